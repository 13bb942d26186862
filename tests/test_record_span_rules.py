"""Records read outside their span, Python errors that name CLI options, and the estimate of
find-gates --checkpoints' elbow."""
from __future__ import annotations

import numpy as np
import pytest

import theorykit as tk
from theorykit.analysis.exhaust import exhaust_spec, race_exhaust, race_steps_bounds
from theorykit.analysis.patterns import realisable_patterns
from theorykit.cli import main
from theorykit.analysis import checkpoints
from theorykit.errors import SpecError, as_command
from theorykit.spec.limits import Limits
from theorykit.record import Trajectory
from theorykit.theory import flow
from theorykit.theory.race import RaceSystem


def _line():
    # a hand-built record: t = 0 and 10, loss 1 and 0 (member 0), 2 and 4 (member 1)
    return Trajectory(t=np.array([0.0, 10.0]), loss=np.array([[1.0, 0.0], [2.0, 4.0]]), saved={},
                      saved_t=np.array([]))


def test_loss_at_interpolates_inside_the_span():
    tr = _line()
    # by hand: half-way along the line from (0, 1) to (10, 0) is 0.5; member 1's is (2 + 4) / 2 = 3;
    # the ends are the recorded values
    assert tr.loss_at(5.0) == 0.5
    assert tr.loss_at([5.0], batch=1).tolist() == [3.0]
    assert tr.loss_at([0.0, 10.0, 2.5]).tolist() == [1.0, 0.0, 0.75]


@pytest.mark.parametrize("when", [11.0, -1.0, [5.0, 11.0], [np.nan]])
def test_loss_at_outside_the_span_is_refused(when):
    """loss_at(11) on a record to t = 10 answered loss[10] (np.interp holds the end values), as if the
    curve were flat past the run; before t = 0 it answered the first loss."""
    with pytest.raises(SpecError) as info:
        _line().loss_at(when)
    assert info.value.field == "times"
    assert "outside the recording span 0 … 10" in info.value.problem
    assert "ask within 0 … 10" in info.value.fix


def test_loss_at_past_the_end_says_to_record_there():
    with pytest.raises(SpecError) as info:
        _line().loss_at([5.0, 5000.0])
    assert info.value.problem.startswith("5000 is outside")
    assert "record to 5000: a longer run" in info.value.fix and "SaveAt(ts=[…, 5000])" in info.value.fix


def test_loss_at_before_a_late_first_record_says_to_record_from_it():
    tr = Trajectory(t=np.array([10.0, 2.0]), loss=np.array([[0.0, 1.0]]), saved={}, saved_t=np.array([]))
    # recorded out of order: the span is 2 … 10; t = 6 is half-way, (1 + 0) / 2 by hand
    assert tr.loss_at(6.0) == 0.5
    with pytest.raises(SpecError) as info:
        tr.loss_at(1.0)
    assert info.value.field == "times" and "record from 1: SaveAt(ts=[1, …])" in info.value.fix


# ---------------------------------------------------------------------------------------------------
# samples: Python's word from Python (realisable_patterns, predict_reln), --samples on the command line
# ---------------------------------------------------------------------------------------------------
# d = 3 inputs, P = 4 datapoints: per sample W's row 3 × 8 B, W·X's row 4 × 8 B, the pattern and its copy
# 2 × 4 × 1 B: 64 B. Under THEORYKIT_MAX_BYTES = 1e9 the most samples are 1e9 / 64 = 15 625 000 by hand.
_X = np.array([[1.0, 0, 1, 0], [0, 1, 1, 0], [1, 1, 1, 1]])


@pytest.fixture
def small_memory(monkeypatch):
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1e9")

    def boom(*a, **k):
        raise AssertionError("the samples were drawn: the size check did not refuse first")
    monkeypatch.setattr(np.random, "default_rng", boom)


def test_realisable_patterns_names_samples_in_python_words(small_memory):
    """Was field "--samples", fix "lower --samples from 2000000000 to at most 15625000" from Python."""
    with pytest.raises(SpecError) as info:
        realisable_patterns(_X, method="sample", samples=2 * 10 ** 9)
    assert info.value.field == "samples" and "128 GB" in info.value.problem
    assert info.value.fix == "samples=15625000 or fewer (THEORYKIT_MAX_BYTES raises the limit)"
    assert "--" not in str(info.value)
    with pytest.raises(SpecError) as info:
        realisable_patterns(_X, method="sample", samples=0)
    assert info.value.field == "samples"
    assert info.value.fix == "a positive number of weight vectors, e.g. samples=20000"
    # its other options are its keywords too: --enumerate is method=, --max-patterns max_patterns=
    with pytest.raises(SpecError) as info:
        realisable_patterns(_X, method="sampled")
    assert info.value.field == "method"
    with pytest.raises(SpecError) as info:
        realisable_patterns(_X, method="exact", max_patterns=2)
    assert info.value.field == "max_patterns"


def test_predict_reln_gives_a_python_fix_for_samples(small_memory):
    with pytest.raises(SpecError) as info:
        tk.predict_reln(tk.xor_margin(0.5), 8, tk.Training(lr=0.05, steps=2000), enumerate_method="sample",
                        samples=2 * 10 ** 9, progress=False)
    assert info.value.field == "samples"
    assert info.value.fix == "samples=15625000 or fewer (THEORYKIT_MAX_BYTES raises the limit)"


def test_the_command_line_still_names_samples_as_its_option(small_memory, tmp_path, capsys):
    with pytest.raises(SpecError) as info:
        as_command(realisable_patterns)(_X, method="sample", samples=0)
    assert info.value.field == "--samples" and info.value.fix.endswith("e.g. --samples 20000")
    assert main(["predict", "examples/predict/xor_data.toml", "--set", "Delta=0.5", "--hidden", "8", "--out",
                 str(tmp_path / "p.toml"), "--enumerate", "sample", "--samples", "2000000000", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "error in --samples:" in err and "samples=" not in err
    assert "lower --samples from 2000000000 to at most 15625000 (THEORYKIT_MAX_BYTES raises the limit)" in err


# ---------------------------------------------------------------------------------------------------
# race-exhaust and predict: a race_dt so small that τ/race_dt overflows
# ---------------------------------------------------------------------------------------------------
def test_a_race_dt_whose_step_overflows_is_refused_by_name(capsys, tmp_path):
    """τ = 62.5 steps for race-exhaust (1/(P lr), P = 8 × 2 = 16 items, lr = 0.001); 62.5 / 5e-324 is
    past the largest float: int(τ/race_dt) raised Python's OverflowError ("cannot convert float infinity
    to integer") from race_steps_bounds, in race-exhaust and in predict_reln alike."""
    assert main(["race-exhaust", "--k", "2", "--race-dt", "5e-324", "--no-progress", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in --race-dt: 5e-324 makes the RK4 step τ/race-dt = 62.5/5e-324 overflow")
    assert err.rstrip().endswith("(fix: a larger --race-dt, e.g. --race-dt 10 (the default))")
    with pytest.raises(SpecError) as info:
        race_exhaust(2, race_dt=5e-324, progress=False)
    assert info.value.field == "race_dt" and info.value.fix == "a larger race_dt, e.g. race_dt=10 (the default)"
    with pytest.raises(SpecError) as info:
        tk.predict_reln(tk.xor_margin(0.5), 8, tk.Training(lr=0.05, steps=2000), race_dt=1e-310, progress=False)
    assert info.value.field == "race_dt" and "overflow" in info.value.problem


# ---------------------------------------------------------------------------------------------------
# race-exhaust: its race never runs out of the flow's steps (the CLI's "training.lr" fallback is dead)
# ---------------------------------------------------------------------------------------------------
class _Reached(Exception):
    """The race got past every check the flow makes before it steps."""


@pytest.fixture
def checks_only(monkeypatch):
    """The real race (race_rk4 → RaceSystem.solve → integrate: SaveAt's recording count, the budget at the
    fastest rate), stopped where RK4 would step, after its own budget check of the RK4 step."""
    def stop(vector_field, y0, args, h, ts, record, batched_args):
        flow._check_budget(ts, h)
        raise _Reached
    monkeypatch.setattr(flow, "_integrate_rk4", stop)


@pytest.mark.parametrize("k, gamma, race_dt", [
    (2, None, 10),          # the rate's bound binds (2357022 steps, tests/test_cli_error_names_rules.py)
    (2, None, 1000),        # the RK4 step's: 2e6 × 62.5/1000 = 125000 steps, under the rate's
    (2, None, 2),           # RK4 steps of 31.25 > 1: recorded every 31 steps (0.5 before: since refused, a step
    #                         too coarse for RK4 at the race's fastest rate, tests/test_race_dt_stability_rules.py)
    (3, 1e6, 2e6),          # a huge context scale: s_max far above 1, the rate's bound small (s_max = 9.1e5 needs
    #                         --race-dt 1.32e6 or more: --race-dt 10 is since refused)
    (3, 1e-6, 2),           # a tiny one: s_max = 1 (at 1e-3 before: since refused, as 0.5 above)
])
def test_race_exhaust_at_its_steps_bound_passes_every_flow_check(checks_only, k, gamma, race_dt):
    """race_exhaust refuses, before any race, a --steps over race_steps_bounds (_check_steps); at the bound
    itself the race passes every check the flow makes (none raises its "training.lr" budget error), and one
    step past it is refused by _check_steps naming an option, never training.lr. So no input reaches the
    command line's old fallback for a "training.lr" error after race_exhaust (removed)."""
    spec = exhaust_spec(k, gamma)[0]
    bounds = race_steps_bounds(RaceSystem.from_spec(spec).rate, spec.tau, race_dt)
    most = min(bounds.values())
    assert most >= 1
    with pytest.raises(_Reached):
        race_exhaust(k, gamma=gamma, race_dt=race_dt, steps=most, progress=False, families=[0])
    with pytest.raises(SpecError) as info:
        race_exhaust(k, gamma=gamma, race_dt=race_dt, steps=most + 1, progress=False, families=[0])
    assert info.value.field in ("steps", "race_dt", "gamma") and f"at most {most}" in str(info.value)


# ---------------------------------------------------------------------------------------------------
# find-gates --checkpoints: the elbow's GDLN trainings, estimated and refused over the limits
# ---------------------------------------------------------------------------------------------------
def _long_run(path, last):
    """Two checkpoints of a 3-4-1 ReLU network (4 hidden units), at steps 0 and ``last``, and XoR-like data."""
    rng = np.random.default_rng(0)
    X = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])
    np.savez(path / "data.npz", X=X, Y=np.array([[1.0, 1, -1, -1]]))
    for s in (0, last):
        np.savez(path / f"step_{s}.npz", W1=0.1 * rng.standard_normal((4, 3)), W2=0.1 * rng.standard_normal((1, 4)))
    return str(path / "step_*.npz"), str(path / "data.npz")


@pytest.fixture
def no_gdln(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a GDLN trained before the elbow's size was checked")
    monkeypatch.setattr(checkpoints, "gdln_outputs_from_start", boom)


# By hand (simulate's estimator, theorykit/spec/limits.py): the elbow over K = 1 … 4 (the run's 4 units) trains
# one GDLN per K for the run's 10**9 steps. Each keeps its loss history twice (device and host): 2 × 8 B ×
# (10**9 + 1) = 16 GB. The largest held besides is K = 4's: 4 pathways of width 1, each with 3·1 + 1·1 = 4
# weights and (1 + 1) × 4 activations: 8 B × (6 × 4 + 4 × 8 + 1 × 2) = 464 B, 1856 B in all. Under a 1e9 B limit:
# 1856 + 16 (T + 1) <= 1e9, so T <= (1e9 − 1856) / 16 − 1 = 62 499 884 − 1 = 62 499 883 steps.
MOST = 62_499_883


def test_find_gates_checkpoints_elbow_over_the_memory_limit_is_refused(tmp_path, capsys, monkeypatch, no_gdln):
    """Was: the elbow trained 4 GDLNs of 10**9 steps each, with no estimate (16 GB of loss history apiece)."""
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1e9")
    ck, data = _long_run(tmp_path, 10 ** 9)
    assert main(["find-gates", "--checkpoints", ck, "--data", data, "--lr", "0.05", "--out", str(tmp_path / "f.toml"),
                 "--no-progress", "--force"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in --checkpoints: the elbow (4 GDLN trainings, K = 1, 2, 3, 4: width 4, "
                          "1000000000 steps each) needs an estimated 16 GB of memory, over the limit of 1 GB")
    assert (f"(fix: read checkpoints over at most {MOST} steps (the elbow trains a GDLN per K over the run's 1000000000 "
            "steps, from step 0 to 1000000000), or give --K (no elbow: nothing is trained); --force does not lift "
            "the memory limit)") in err
    assert not (tmp_path / "f.toml").exists()


def test_find_gates_in_run_names_run_and_its_python_fix(tmp_path, no_gdln):
    ck, data = _long_run(tmp_path, 10 ** 9)
    run = checkpoints.load_checkpoints(ck, data)
    with pytest.raises(SpecError) as info:
        checkpoints.find_gates_in_run(run, lr=0.05, limits=Limits(max_bytes=1e9, force=True))
    assert info.value.field == "run"
    assert info.value.fix.startswith(f"a run over at most {MOST} steps (")
    assert info.value.fix.endswith("or give K= (no elbow: nothing is trained); or raise the memory limit: "
                                   "limits=theorykit.spec.limits.Limits(max_bytes=…), or THEORYKIT_MAX_BYTES")
    # a run over MOST steps itself passes the check (the GDLNs would train: the stand-in says so)
    (tmp_path / "b").mkdir()
    ck, data = _long_run(tmp_path / "b", MOST)
    with pytest.raises(AssertionError, match="before the elbow's size"):
        checkpoints.find_gates_in_run(checkpoints.load_checkpoints(ck, data), lr=0.05, Ks=[1, 2, 3, 4],
                                      limits=Limits(max_bytes=1e9, force=True))


def test_find_gates_checkpoints_takes_force_and_time_limit_for_its_elbow(tmp_path, capsys):
    """--force and --time-limit bound the elbow's trainings now: accepted with --checkpoints (without --K)."""
    ck, data = _long_run(tmp_path, 20)
    assert main(["find-gates", "--checkpoints", ck, "--data", data, "--lr", "0.05", "--out", str(tmp_path / "f.toml"),
                 "--no-progress", "--max-K", "1", "--force", "--time-limit", "600"]) == 0
    assert (tmp_path / "f.toml").exists()
