"""One way to take ``progress`` in every long run (these came from a maintainer who wanted one
progress helper for every long run).

Before: ``tk.find_gates``, ``find_gates_in_run`` and ``compare_run`` took True/False/None or a
caller's own :class:`theorykit.progress.Progress` (``checked_progress``/``progress_bar`` in
``analysis/findgates.py``), but ``tk.predict_reln``, ``race_exhaust`` and ``run_sweep`` built
``Progress(..., enabled=progress)`` inline: a caller's own bar was taken as "True" and never
advanced, and ``progress="yes"`` ran the whole search. Now the helpers live in
``theorykit/progress.py`` alone and all six take ``progress`` the same way.
"""
from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.spec.gating import Training

XOR = Path(__file__).resolve().parent.parent / "examples" / "xor_linear.toml"
TRAINING = Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)


class Recorder:
    """A caller's own progress: anything with ``update(k=1, note="")``."""

    def __init__(self):
        self.calls = []

    def update(self, k=1, note=""):
        self.calls.append((k, note))


class Terminal(io.StringIO):
    def isatty(self):
        return True


def _no_work(*a, **k):
    raise AssertionError("work started before progress was checked")


def _sweep_args(tmp_path):
    from theorykit.analysis.sweep import parse_grid
    from theorykit.spec.files import load_spec

    spec = load_spec(str(XOR))
    return spec, parse_grid(["Delta=0,0.5"], spec.task.symbols)


# ---------------------------------------------------------------------------------------------
# one definition
# ---------------------------------------------------------------------------------------------
def test_the_progress_helpers_are_defined_in_theorykit_progress_only():
    import theorykit.analysis.findgates as findgates
    import theorykit.progress as progress

    root = Path(progress.__file__).parent
    defining = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                      if "def checked_progress(" in p.read_text() or "def progress_bar(" in p.read_text())
    assert defining == ["progress.py"]
    # findgates uses them, but they are theorykit.progress's (no copy, no shim of its own)
    assert findgates.checked_progress is progress.checked_progress
    assert progress.checked_progress.__module__ == "theorykit.progress"


# ---------------------------------------------------------------------------------------------
# a bad progress is refused by name before any work
# ---------------------------------------------------------------------------------------------
def test_predict_reln_refuses_a_string_progress_before_any_work(monkeypatch):
    import theorykit.analysis.predict as predict

    monkeypatch.setattr(predict, "realisable_patterns", _no_work)
    with pytest.raises(SpecError) as err:
        predict.predict_reln(tk.xor_margin(1.0), 16, TRAINING, progress="yes")
    assert err.value.field == "progress" and "progress=False" in err.value.fix


def test_race_exhaust_refuses_a_string_progress_before_any_work(monkeypatch):
    import theorykit.analysis.exhaust as exhaust

    monkeypatch.setattr(exhaust, "exhaust_spec", _no_work)
    with pytest.raises(SpecError) as err:
        exhaust.race_exhaust(k=3, families=[0], steps=20, progress="yes")
    assert err.value.field == "progress"


def test_run_sweep_refuses_a_string_progress_before_any_work(tmp_path, monkeypatch):
    import theorykit.analysis.sweep as sweep

    spec, grid = _sweep_args(tmp_path)
    monkeypatch.setattr(sweep, "plan_sweep", _no_work)
    with pytest.raises(SpecError) as err:
        sweep.run_sweep(spec, grid, seeds=1, steps=5, out=tmp_path / "sw", progress="yes")
    assert err.value.field == "progress"
    assert not (tmp_path / "sw").exists()          # no folder made either


def test_a_dict_has_an_update_but_is_not_a_progress():
    """``checked_progress`` took anything with a callable ``update``, a dict or a set too: the run
    went on and failed at the first stage's ``{}.update(note=…)`` with a TypeError. Now refused."""
    from theorykit.analysis.compare import compare_run

    spec = tk.GDLNSpec(tk.xor_margin(1), tk.xor_relns()["linear"], tk.Training(lr=0.1))
    for bad in ({}, set()):
        with pytest.raises(SpecError) as err:
            compare_run(spec, None, progress=bad)
        assert err.value.field == "progress"


def test_numpy_booleans_are_flags():
    from theorykit.progress import checked_progress, progress_bar

    for flag in (np.bool_(True), np.bool_(False), True, False, None):
        assert checked_progress(flag) is flag
        with progress_bar(flag, "p", 2) as bar:      # a bar of our own, with update, for every flag
            bar.update(note="x")


# ---------------------------------------------------------------------------------------------
# a caller's own progress receives the updates
# ---------------------------------------------------------------------------------------------
def test_predict_reln_advances_a_callers_own_progress_through_both_stages():
    """Its docstring: three pattern stages (realisable, consistent, orbits), then one update per
    batch of families raced. An exhaustive search races every non-empty union of its candidate
    orbits, 2**c - 1 of them (all fit in 16 units here), so the race's ``k`` add up to that."""
    from theorykit.analysis.predict import predict_reln

    rec = Recorder()
    pred = predict_reln(tk.xor_margin(1.0), 16, TRAINING, steps=200, progress=rec)
    stages, race = rec.calls[:3], rec.calls[3:]
    assert [k for k, _ in stages] == [1, 1, 1]
    assert "realisable" in stages[0][1] and stages[1][1].endswith("consistent") and stages[2][1].endswith("orbits")
    assert pred.search["method"] == "exhaustive" and "left out" not in pred.search["covered"]
    c = pred.search["candidates"]
    assert race and sum(k for k, _ in race) == 2 ** c - 1
    assert race[-1][1] == f"{2 ** c - 1} families raced"


def test_race_exhaust_advances_a_callers_own_progress_per_batch():
    """Without the symmetry each family is its own orbit: 3 families in batches of 2 are two
    batches, of 2 and then 1 orbit."""
    from theorykit.analysis.exhaust import race_exhaust

    rec = Recorder()
    race_exhaust(k=3, families=[0, 1, 2], use_symmetry=False, batch=2, steps=20, progress=rec)
    assert [k for k, _ in rec.calls] == [2, 1]


def test_run_sweep_advances_a_callers_own_progress_per_chunk(tmp_path):
    """2 grid points × 1 learning rate × 2 seeds = 4 members, in chunks of 2: two updates of 2."""
    from theorykit.analysis.sweep import run_sweep

    spec, grid = _sweep_args(tmp_path)
    rec = Recorder()
    run_sweep(spec, grid, seeds=2, steps=5, chunk=2, out=tmp_path / "sw", progress=rec)
    assert rec.calls == [(2, "chunk 1/2 written"), (2, "chunk 2/2 written")]


def test_find_gates_advances_a_callers_own_progress_once_per_K():
    pytest.importorskip("sklearn")
    rec = Recorder()
    tk.find_gates(tk.xor_margin(0.5), Ks=[1, 2], seeds=1, steps=50, hidden=4, every=25, progress=rec)
    assert rec.calls == [(1, "K=1"), (1, "K=2")]


# ---------------------------------------------------------------------------------------------
# progress=False: nothing on stderr, even on a terminal (where True shows the bar)
# ---------------------------------------------------------------------------------------------
def test_progress_false_writes_nothing_where_true_shows_a_bar(tmp_path, monkeypatch, capsys):
    from theorykit.analysis.exhaust import race_exhaust
    from theorykit.analysis.predict import predict_reln
    from theorykit.analysis.sweep import run_sweep

    spec, grid = _sweep_args(tmp_path)
    runs = {"predict: racing": lambda p: predict_reln(tk.xor_margin(1.0), 16, TRAINING, steps=200, progress=p),
            "race k=3": lambda p: race_exhaust(k=3, families=[0], steps=20, progress=p),
            "sweep": lambda p: run_sweep(spec, grid, seeds=1, steps=5, chunk=2, out=tmp_path / f"sw{p}", progress=p)}
    for label, run in runs.items():
        for p in (False, True):
            term = Terminal()
            monkeypatch.setattr(sys, "stderr", term)
            run(p)
            monkeypatch.undo()
            assert (label in term.getvalue()) == p, (label, p, term.getvalue()[:200])
            if not p:
                assert term.getvalue() == ""
    assert capsys.readouterr().err == ""


def test_the_sweeps_bar_is_closed_when_its_training_fails(tmp_path, monkeypatch):
    """run_sweep opened its bar with ``__enter__`` and closed it after the trainer returned: an
    error or Ctrl-C in the trainer left it open (on a terminal the bar's line then ran into the
    message that followed). Now it is a ``with`` block."""
    import theorykit.analysis.sweep as sweep
    from theorykit.progress import Progress

    closed = []
    monkeypatch.setattr(Progress, "close", lambda self: closed.append(self.label))

    def fail(*a, **k):
        raise RuntimeError("the trainer failed")

    monkeypatch.setattr(sweep, "train_net", fail)
    spec, grid = _sweep_args(tmp_path)
    with pytest.raises(RuntimeError, match="the trainer failed"):
        sweep.run_sweep(spec, grid, seeds=1, steps=5, out=tmp_path / "sw", progress=True)
    assert closed == ["sweep"]
