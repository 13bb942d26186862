"""Rules from two small mends by a careful maintainer (validate's staging leftovers of suites never
run again; findgates._hidden_split's dead adding loop): each test failed before its fix, or pins
the behaviour the mend keeps."""
import os
import socket
import subprocess

import pytest

from validation import run_suites


def _dead_pid() -> int:
    """The process number of a process that has ended (started, waited for, reaped)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _half_made(folder):
    folder.mkdir(parents=True)
    (folder / "half.png").write_bytes(b"x")
    return folder


# ------------------------------------------------------------------------------------------
# validate: a killed suite that is never run again left OUT/.staging/<suite>.<host>.<pid>/ for ever
# ------------------------------------------------------------------------------------------
# Before: a run cleared only the dead staging folders of the suite it was about to run, so `validate
# xor` killed outright and followed by `validate lemmas` (or by nothing but cached suites) kept
# .staging/xor.<host>.<pid>/ and .staging itself. Now every run first clears this host's dead
# processes' folders of every suite; a running process's folder and another host's are kept.
def test_a_run_of_one_suite_clears_another_suites_dead_folder_of_this_host(tmp_path, monkeypatch):
    from theorykit.suites import load_suite

    out = tmp_path / "res"
    monkeypatch.setattr(socket, "gethostname", lambda: "node-a")
    dead = _dead_pid()
    live = os.getppid()                 # the process that started the tests: running
    gone = _half_made(out / ".staging" / f"xor.node-a.{dead}")
    kept = [_half_made(out / ".staging" / f"xor.node-a.{live}"),       # a running job's
            _half_made(out / ".staging" / f"xor.node-b.{dead}"),       # another host's
            _half_made(out / ".staging" / f"xor.x.node-a.{dead}")]     # host "x.node-a"'s, not ours
    monkeypatch.setattr(load_suite("lemmas"), "run", lambda stage, mode, progress=True: {"claims": []})
    assert run_suites(out, "quick", ["lemmas"], force=True, progress=False) == 0
    assert not gone.exists()
    for d in kept:
        assert (d / "half.png").read_bytes() == b"x", d.name
    assert not (out / "half.png").exists()


def test_a_run_that_runs_no_suite_still_clears_the_leftover_and_removes_the_empty_staging(tmp_path, monkeypatch):
    out = tmp_path / "res"
    monkeypatch.setattr(socket, "gethostname", lambda: "node-a")
    _half_made(out / ".staging" / f"xor.node-a.{_dead_pid()}")
    # a suite name that cannot be imported: the run runs nothing, records the failure
    assert run_suites(out, "quick", ["no_such_suite"], force=True, progress=False) == 1
    assert not (out / ".staging").exists()


# ------------------------------------------------------------------------------------------
# findgates._hidden_split: the "adding" loop could never run (removed)
# ------------------------------------------------------------------------------------------
# Where the quick path (the whole remainder to the largest width h[j]) fails, h[j] + total - sum(h)
# < floor[j] ≤ h[j], so sum(h) > total; the removing loop takes one unit at a time while
# sum(h) > total, so it stops at sum(h) == total or, all widths at their floors, above it: never
# below. Widths above the total where the ranks need it, the total otherwise, none below its rank.
@pytest.mark.parametrize("shares,total,ranks,want", [
    # round(0.3*4)=1, round(0.3*4)=1, round(0.4*4)=2 → floors 3,3,1 → h=[3,3,2], sum 8 > 4;
    # largest (h[0]=3, first) would go to 3-4 < 3; the floors alone (3+3+1=7) exceed 4: [3,3,1]
    ([0.3, 0.3, 0.4], 4, [3, 3, 1], [3, 3, 1]),
    # h=[max(1,3), max(5,1)]=[3,5], sum 8 > 6; h[1]=5 → 5-2=3 ≥ 1: quick path, [3,3]
    ([0.1, 0.9], 6, [3, 1], [3, 3]),
])
def test_hidden_split_never_ends_below_the_total_nor_a_width_below_its_rank(shares, total, ranks, want):
    from theorykit.analysis import findgates as fg

    h = fg._hidden_split(shares, total, ranks)
    assert h == want
    assert sum(h) >= total and all(w >= max(r, 1) for w, r in zip(h, ranks))


# The docstring's promise, checked on many splits: the total where the ranks allow it (sum of the
# floors max(rank, 1) ≤ total), the floors themselves where they do not, never a width below its
# floor. With the adding loop gone nothing would bring a split that ended below the total back up:
# this checks none ends there.
def test_hidden_split_sums_to_the_total_where_the_ranks_allow_and_is_the_ranks_where_not():
    from hypothesis import given, settings, strategies as st

    from theorykit.analysis import findgates as fg

    @settings(max_examples=300, database=None, deadline=None, derandomize=True)
    @given(st.lists(st.tuples(st.integers(1, 50), st.integers(0, 6)), min_size=1, max_size=5),
           st.integers(1, 30))
    def check(pairs, total):
        weights, ranks = zip(*pairs)
        shares = [w / sum(weights) for w in weights]
        floors = [max(r, 1) for r in ranks]
        h = fg._hidden_split(shares, total, list(ranks))
        assert all(isinstance(w, int) and w >= f for w, f in zip(h, floors))
        assert sum(h) == total if sum(floors) <= total else h == floors

    check()
