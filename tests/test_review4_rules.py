"""Rules from a code reviewer of the day's merges (rerun's report, the one way to take ``progress``).

1. ``elbow_scores`` and ``elbow_scores_from`` (public in ``theorykit.analysis.findgates``) took
   ``progress`` without :func:`~theorykit.progress.checked_progress`: after the first K's work they
   called ``progress.update(note=...)`` on it as it was, so ``progress=True`` ended in an
   AttributeError ('bool' object has no attribute 'update'), a caller's tqdm bar in a TypeError
   (no ``note``), a string in an AttributeError. Now they take it the one way (True, False, None, an
   object with ``update(k=1, note="")``, a tqdm bar) and refuse anything else by name before any work.
2. ``validation.run_suites`` asked ``if progress:`` of the ``progress`` it hands to each suite: a
   caller's tqdm bar with no total raises TypeError on ``bool()``, and a bad ``progress`` ("yes")
   failed every suite one by one (exit 1) instead of being refused. Now it is checked once, before
   any suite, and the runner's lines follow a flag's truth (shown for a caller's own bar).
3. ``theorykit rerun --rtol R`` printed ``identical: … reruns bit for bit`` for two unequal integers
   whose relative difference is too small for a float (10**400 and 10**400 + 1: 1e-400 rounds to
   0.0), and ``relative difference 0`` for them. Now it says they agree to the tolerance, and the
   difference is "below 1e-323". The verdict cut each value to its first 59 characters, so the two
   read the same (``1000…``); a long integer now keeps its last digits and its number of digits.
4. The merge that let two outputs share /dev/null let them share a named pipe too, whose reader ends
   with the first output: the second then waited for ever (``derive --json F --latex F`` hung).
   Now refused, naming the second option. And a result written to ``/dev/stdout`` on a pipe
   (``--json /dev/stdout | jq``) failed with "error in /proc/N/fd/pipe:[M]: No such file or
   directory"; it is now written through to the pipe.
"""
from __future__ import annotations

import io
import os
import stat
import subprocess
import sys

import numpy as np
import pytest

from theorykit.errors import SpecError

tqdm = pytest.importorskip("tqdm").tqdm


# ---------------------------------------------------------------------------------------------
# 1. elbow_scores(_from) take progress the one way
# ---------------------------------------------------------------------------------------------
def _elbow_args():
    """Two Ks whose records are given (``patterns``: no k-means), each fitted by ``fit``, which
    notes the K it was called for: the work whose start a bad ``progress`` must precede."""
    X = np.eye(2)
    Y = np.ones((1, 2))
    rows = np.ones((3, 2))
    recs = {K: {"K": K, "patterns": [[1.0, 1.0]], "hidden": [2]} for K in (1, 2)}
    fitted = []

    def fit(rec):
        fitted.append(rec["K"])
        return {"mse": 0.5 / rec["K"]}
    return X, Y, rows, recs, fit, fitted


@pytest.mark.parametrize("progress", [True, False, None], ids=["True", "False", "None"])
def test_elbow_scores_from_takes_a_flag(progress):
    """Before: progress=True raised AttributeError after the first K; each K is fitted once."""
    from theorykit.analysis.findgates import elbow_scores_from

    X, Y, rows, recs, fit, fitted = _elbow_args()
    out = elbow_scores_from(X, Y, rows, [1, 2], 2, fit, progress=progress, patterns=recs)
    assert fitted == [1, 2]
    assert [r["mse"] for r in out] == [0.5, 0.25]      # fit's own 0.5 / K


def test_elbow_scores_from_advances_a_callers_tqdm_bar_once_per_K():
    """Before: TypeError (tqdm's update has no ``note``). The bar advances by the number of Ks (2)
    and shows the last K's note, ``K=2``; it stays the caller's (open, its total untouched)."""
    from theorykit.analysis.findgates import elbow_scores_from

    X, Y, rows, recs, fit, _ = _elbow_args()
    buf = io.StringIO()
    bar = tqdm(total=7, file=buf, mininterval=0, miniters=1)
    elbow_scores_from(X, Y, rows, [1, 2], 2, fit, progress=bar, patterns=recs)
    assert bar.n == 2 and bar.total == 7 and "K=2" in buf.getvalue()
    bar.close()


@pytest.mark.parametrize("bad", ["yes", 1, {"a": 1}])
def test_elbow_scores_from_refuses_a_bad_progress_before_any_work(bad):
    from theorykit.analysis.findgates import elbow_scores_from

    X, Y, rows, recs, fit, fitted = _elbow_args()
    with pytest.raises(SpecError) as err:
        elbow_scores_from(X, Y, rows, [1, 2], 2, fit, progress=bad, patterns=recs)
    assert err.value.field == "progress" and fitted == []


def test_elbow_scores_refuses_a_bad_progress_before_any_network_trains(monkeypatch):
    from theorykit.analysis import findgates

    def no_work(*a, **k):
        raise AssertionError("work started before progress was checked")

    for name in ("unit_rows", "patterns_for_K", "train_gdln_many"):
        monkeypatch.setattr(findgates, name, no_work)

    class Run:
        settings = {"hidden": [2]}
        snapshots = None

    with pytest.raises(SpecError) as err:
        findgates.elbow_scores(np.eye(2), np.ones((1, 2)), Run(), [1, 2], progress="yes")
    assert err.value.field == "progress"


# ---------------------------------------------------------------------------------------------
# 2. run_suites checks progress once, and never asks bool() of a caller's bar
# ---------------------------------------------------------------------------------------------


def test_run_suites_hands_a_callers_tqdm_bar_without_a_total_to_the_suite(tmp_path, monkeypatch, capsys, cheap_lemmas):
    """Before: TypeError ``bool() undefined when iterable == total == None`` from the runner's first
    line. Now the lemmas suite advances the bar by its six stages, and the runner's lines are shown."""
    from theorykit import validation

    bar = tqdm(file=io.StringIO(), mininterval=0, miniters=1)
    validation.run_suites(tmp_path / "out", "quick", ["lemmas"], progress=bar)
    assert bar.n == 6
    assert "lemmas" in capsys.readouterr().err
    bar.close()


def test_run_suites_refuses_a_bad_progress_before_any_suite(tmp_path, monkeypatch, cheap_lemmas):
    """Before: each suite failed on it (returned 1, a failure recorded per suite); now one SpecError
    naming ``progress`` and nothing run."""
    from theorykit import validation

    lemmas = cheap_lemmas
    monkeypatch.setattr(lemmas, "run", lambda *a, **k: pytest.fail("a suite ran"))
    with pytest.raises(SpecError) as err:
        validation.run_suites(tmp_path / "out", "quick", ["lemmas"], progress="yes")
    assert err.value.field == "progress"


# ---------------------------------------------------------------------------------------------
# 3. rerun: unequal numbers are never "identical"
# ---------------------------------------------------------------------------------------------
def test_unequal_big_integers_are_not_identical_under_a_tolerance():
    """10**400 and 10**400 + 1 differ by 1 (by hand): relative difference 10**-400, below every
    positive float. Under --rtol 1e-12 they agree to the tolerance, not bit for bit; under --rtol 0
    they differ, and no relative difference is shown as 0."""
    from theorykit.cli.rerun import compare, verdict

    old, new = {"n": [10 ** 400, 2.0]}, {"n": [10 ** 400 + 1, 2.0]}
    (line,) = verdict("r.json", compare(old, new, 1e-12), 1e-12)
    assert line.startswith("agree to --rtol 1e-12") and "bit for bit" not in line
    lines = verdict("r.json", compare(old, new, 0.0), 0.0)
    assert lines[0].startswith("differ: r.json: 1 of 2 numbers differs")
    assert not any("difference 0)" in x or "difference of 0 " in x for x in lines)
    # equal numbers stay identical (a zero of the other sign is equal)
    (same,) = verdict("r.json", compare({"n": [10 ** 400, 0.0]}, {"n": [10 ** 400, -0.0]}, 1e-12), 1e-12)
    assert same.startswith("identical: r.json reruns bit for bit (2 numbers; 1 zero")


def test_two_long_integers_that_differ_in_their_last_digit_read_differently():
    """Before: each value was cut to its first 59 characters, so 10**400 and 10**400 + 1 (401 digits,
    by hand) both read ``1000…`` in the verdict. Now a long integer keeps its last digits (…0 and …1)
    and its number of digits."""
    from theorykit.cli.rerun import compare, verdict

    lines = verdict("r.json", compare({"n": 10 ** 400}, {"n": 10 ** 400 + 1}, 0.0), 0.0)
    shown = lines[1]
    recorded, rerun = shown.split(", rerun ")
    assert recorded.rstrip().endswith("0 (401 digits)") and rerun.split(" (relative")[0].endswith("1 (401 digits)")


# ---------------------------------------------------------------------------------------------
# 4. outputs that share a pipe
# ---------------------------------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_two_outputs_into_one_named_pipe_are_refused(tmp_path):
    """A named pipe's reader (``cat fifo``) ends when the first output closes it; the second output's
    open then waits for a reader for ever (``derive --json F --latex F`` hung, depending on which came
    first). The merge that let /dev/null take two outputs let a named pipe take them too; now it is
    refused, naming the second option, and /dev/null still takes both."""
    from theorykit.cli.common import check_outputs

    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(SpecError) as err:
        check_outputs(("--json", str(fifo)), ("--latex", str(fifo)))
    assert err.value.field == "--latex" and "named pipe" in str(err.value)
    check_outputs(("--json", str(fifo)))                   # one output into it: fine
    if os.path.exists("/dev/null") and stat.S_ISCHR(os.stat("/dev/null").st_mode):
        check_outputs(("--json", "/dev/null"), ("--latex", "/dev/null"))


@pytest.mark.skipif(not os.path.exists("/dev/stdout"), reason="no /dev/stdout here")
def test_a_result_written_to_dev_stdout_on_a_pipe_reaches_the_pipe():
    """``theorykit derive s.toml --json /dev/stdout | jq`` failed (exit 2, "error in
    /proc/N/fd/pipe:[M]: No such file or directory"): the atomic write resolved the link /dev/stdout
    to the pipe's pseudo-name and tried to make a temporary file beside it. A device or a pipe reached
    through a link is now written as it is; the text comes out of the pipe unchanged."""
    code = "from theorykit.io import atomic_write_text; atomic_write_text('/dev/stdout', 'one\\ntwo\\n')"
    got = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         timeout=120)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == b"one\ntwo\n"
