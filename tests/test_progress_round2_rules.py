"""Progress, round 2 (these came from a maintainer finishing the one way to take ``progress``).

Before: ``checked_progress`` took anything with a callable ``update``, so a raw ``tqdm`` bar (whose
``update(n=1)`` has no ``note``) and any object whose ``update`` takes no ``note`` passed the check,
the run started, and its first ``bar.update(k, note=...)`` failed with a TypeError after the work
had begun (``race_exhaust``, which calls ``update(k)`` alone, happened to work). Now a tqdm bar of
the caller's is advanced (``update(k)``, the note as its postfix, its total and closing left to the
caller), and any other ``update`` that cannot be called as ``update(k=1, note="")`` is refused before
any work by a SpecError naming ``progress``. The validation suites build their bars with
``progress_bar`` rather than ``Progress(..., enabled=...)`` inline, so a caller's own object is
advanced and a bad one refused there too.
"""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.spec.gating import Training

tqdm = pytest.importorskip("tqdm").tqdm

ROOT = Path(__file__).resolve().parent.parent
XOR = ROOT / "examples" / "xor_linear.toml"
TRAINING = Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)


def _no_work(*a, **k):
    raise AssertionError("work started before progress was checked")


def _sweep_args():
    from theorykit.analysis.sweep import parse_grid
    from theorykit.spec.files import load_spec

    spec = load_spec(str(XOR))
    return spec, parse_grid(["Delta=0,0.5"], spec.task.symbols)


class NoNote:
    """An ``update(k=1)`` of its own, as tqdm's is: no ``note``."""

    def update(self, k=1):
        raise AssertionError("called")


class NoteOnly:
    def update(self, note=""):
        raise AssertionError("called")


class KeywordsOnly:
    def update(self, **kw):
        raise AssertionError("called")


# ---------------------------------------------------------------------------------------------
# a caller's tqdm bar receives the updates
# ---------------------------------------------------------------------------------------------
def test_run_sweep_advances_a_callers_tqdm_bar_with_its_notes(tmp_path):
    """2 grid points x 1 learning rate x 2 seeds = 4 members, in chunks of 2 (run_sweep's docstring):
    the bar advances by 4 in all and shows the last chunk's note, ``chunk 2/2 written``."""
    from theorykit.analysis.sweep import run_sweep

    spec, grid = _sweep_args()
    buf = io.StringIO()
    bar = tqdm(total=4, file=buf, mininterval=0, miniters=1)
    run_sweep(spec, grid, seeds=2, steps=5, chunk=2, out=tmp_path / "sw", progress=bar)
    assert bar.n == 4
    assert "chunk 2/2 written" in buf.getvalue()
    assert not bar.disable and bar.total == 4      # the caller's bar: not closed, its total untouched
    bar.close()


def test_predict_reln_advances_a_callers_tqdm_bar_through_both_stages():
    """predict_reln's docstring: three pattern stages, then the race; the pattern stages' notes end
    with ``consistent`` and ``orbits``. All of it lands on the one bar of the caller's."""
    from theorykit.analysis.predict import predict_reln

    buf = io.StringIO()
    bar = tqdm(total=100, file=buf, mininterval=0, miniters=1)
    pred = predict_reln(tk.xor_margin(1.0), 16, TRAINING, steps=200, progress=bar)
    c = pred.search["candidates"]
    assert pred.search["method"] == "exhaustive"
    assert bar.n == 3 + 2 ** c - 1                 # the stages, then every non-empty union of c orbits
    out = buf.getvalue()
    assert "consistent" in out and "orbits" in out and f"{2 ** c - 1} families raced" in out
    bar.close()


def test_progress_bar_hands_the_notes_to_a_tqdm_bar_and_leaves_it_open():
    from theorykit.progress import checked_progress, progress_bar

    buf = io.StringIO()
    bar = tqdm(total=5, file=buf, mininterval=0, miniters=1)
    assert checked_progress(bar) is bar
    with progress_bar(bar, "label", 99) as b:
        b.update(2, note="first")
        b.update(note="second")
    assert bar.n == 3 and bar.total == 5
    assert "first" in buf.getvalue() and buf.getvalue().rstrip().endswith("second]") and bar.postfix == "second"
    bar.update(1)                                   # still the caller's, open
    assert bar.n == 4
    bar.close()


# ---------------------------------------------------------------------------------------------
# an update without the note keyword is refused by name before any work
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [NoNote(), NoteOnly(), KeywordsOnly()])
def test_an_update_that_cannot_take_k_and_note_is_refused(bad):
    from theorykit.progress import checked_progress

    with pytest.raises(SpecError) as err:
        checked_progress(bad)
    assert err.value.field == "progress"
    assert type(bad).__name__ in str(err.value) and "update(k=1, note='')" in err.value.fix


def test_race_exhaust_refuses_an_update_without_note_before_any_work(monkeypatch):
    """race_exhaust calls update(k) only, so a NoNote ran there: the one rule is the same for every
    long run now."""
    import theorykit.analysis.exhaust as exhaust

    monkeypatch.setattr(exhaust, "exhaust_spec", _no_work)
    with pytest.raises(SpecError) as err:
        exhaust.race_exhaust(k=3, families=[0], steps=20, progress=NoNote())
    assert err.value.field == "progress"


def test_run_sweep_refuses_an_update_without_note_before_any_work(tmp_path, monkeypatch):
    import theorykit.analysis.sweep as sweep

    spec, grid = _sweep_args()
    monkeypatch.setattr(sweep, "plan_sweep", _no_work)
    with pytest.raises(SpecError) as err:
        sweep.run_sweep(spec, grid, seeds=1, steps=5, out=tmp_path / "sw", progress=NoNote())
    assert err.value.field == "progress"
    assert not (tmp_path / "sw").exists()


def test_the_documented_signatures_are_taken():
    """``update(k=1, note="")`` (the docs), ``update(*args, **kwargs)`` (a wrapper or a mock) and
    theorykit's own Progress all pass as they are."""
    from unittest import mock

    from theorykit.progress import Progress, checked_progress

    class Own:
        def update(self, k=1, note=""):
            pass

    class Loose:
        def update(self, *args, **kwargs):
            pass

    with Progress("p", 2, enabled=False) as own_bar:
        for ok in (Own(), Loose(), mock.Mock(), own_bar):
            assert checked_progress(ok) is ok


# ---------------------------------------------------------------------------------------------
# theorykit.progress stays light: tqdm is looked up, not imported
# ---------------------------------------------------------------------------------------------
def test_checking_progress_imports_neither_tqdm_nor_the_heavy_libraries():
    code = ("import sys\nfrom theorykit.progress import checked_progress\n"
            "class Own:\n    def update(self, k=1, note=''): pass\n"
            "checked_progress(Own()); checked_progress(True)\n"
            "print([m for m in ('tqdm', 'jax', 'sympy', 'numpy') if m in sys.modules])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT.parent)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stderr[-2000:]


# ---------------------------------------------------------------------------------------------
# the suites and the command line: progress_bar, not Progress(..., enabled=...) inline
# ---------------------------------------------------------------------------------------------
def test_no_progress_is_built_inline_outside_theorykit_progress():
    """docs/contributing.md: "Do not build ``Progress`` inline" -- that took a caller's own bar for
    True and never advanced it; the five suites still did. The command line is exempt: it is a caller
    making its own bar from ``--no-progress`` (simulate reads the bar's ``n``) and handing it on."""
    import re

    pattern = re.compile(r"\bProgress\(")
    found = []
    for folder in ("theorykit", "validation", "derivations"):
        for p in sorted((ROOT / folder).rglob("*.py")):
            rel = p.relative_to(ROOT).as_posix()
            if rel == "theorykit/progress.py" or rel.startswith("theorykit/cli/"):
                continue
            found += [f"{p.relative_to(ROOT)}:{i}" for i, line in enumerate(p.read_text().splitlines(), 1)
                      if pattern.search(line.split("#")[0])]
    assert found == []


def test_a_suite_advances_a_callers_own_progress(tmp_path, monkeypatch, cheap_lemmas):
    """Before, ``Progress("lemmas", 6, enabled=progress)`` took the caller's object for True: a quiet
    bar of its own, the caller's never advanced."""
    lemmas = cheap_lemmas
    calls = []

    class Own:
        def update(self, k=1, note=""):
            calls.append((k, note))

    lemmas.run(tmp_path, "quick", progress=Own())
    assert len(calls) == 6 and all(k == 1 and note for k, note in calls)


def test_a_suite_refuses_a_bad_progress_by_name(tmp_path, monkeypatch, cheap_lemmas):
    lemmas = cheap_lemmas
    for name in ("_interlacing_random",):
        monkeypatch.setattr(lemmas, name, _no_work)
    for bad in ("yes", NoNote()):
        with pytest.raises(SpecError) as err:
            lemmas.run(tmp_path, "quick", progress=bad)
        assert err.value.field == "progress"


@pytest.mark.parametrize("flag", [False, True])
def test_a_suite_with_a_flag_shows_its_own_bar_on_a_terminal_only_when_true(tmp_path, monkeypatch, flag, cheap_lemmas):
    """progress=True: the suite's bar (labelled with the suite's name) on a terminal; False: nothing."""
    lemmas = cheap_lemmas

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    lemmas.run(tmp_path, "quick", progress=flag)
    monkeypatch.undo()
    assert ("lemmas" in term.getvalue()) == flag
    if not flag:
        assert term.getvalue() == ""
