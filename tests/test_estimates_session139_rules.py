"""Session 139, two time-estimate gaps the fuzzer's campaign found. 1. predict's estimate had no cost per RK4 step,
so a huge ``--race-dt`` on a small task (2e6 RK4 steps, 13-14 s of CPU) was estimated at about 3 s and ran past
``--time-limit 10``; the race's steps are now counted (analysis.exhaust.race_rk4_steps) and priced
(predict_estimate.RK4_STEP_S, RK4_FAMILY_STEP_S). 2. When ``simulate --plot`` was what took a run over
``--time-limit``, the refusal named --seeds; it names --plot where leaving it out alone fits. Each test failed
before its change."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import fuzz
import theorykit.analysis.predict as pr
import theorykit.analysis.predict_estimate as pe
from theorykit.analysis.exhaust import race_rk4, race_rk4_steps
from theorykit.cli import main
from theorykit.cli.common import sim_estimate
from theorykit.errors import SpecError
from theorykit.spec import limits as L
from theorykit.spec.files import load_spec, spec_from_dict
from theorykit.theory.race import RaceSystem

# the campaign's spec: XoR with margin Δ = 1/2 (d = 3, P = 4), lr 0.05 with the mean loss: τ = 1/lr = 20 steps
_XOR = {"data": {"task": "xor-margin", "reln": "xor", "hidden": 4, "Delta": 0.5},
        "training": {"lr": 0.05, "loss": "mean", "a0": 0.001, "init_std": 0.01, "steps": 40}}


# ------------------------------------------------------------------------------------------------
# 1. predict's estimate counts the race's RK4 steps
# ------------------------------------------------------------------------------------------------
def test_the_race_steps_by_hand():
    # race_rk4 records every max(1, ⌊τ/race_dt⌋) steps and cuts each interval into ⌈length/(τ/race_dt)⌉ RK4 steps:
    # τ = 20, race_dt = 1e6: τ/race_dt = 2e-5 < 1, so every step is recorded and cut into 1/2e-5 = 50 000: 40 steps
    # are 2 000 000 RK4 steps (the campaign's run); race_dt 2e6: 100 000 each, 4 000 000
    assert race_rk4_steps(20.0, 1e6, 40) == 2_000_000
    assert race_rk4_steps(20.0, 2e6, 40) == 4_000_000
    # race_dt 10: τ/race_dt = 2, recorded every 2 steps, one RK4 step each: 100 steps are 50 (t_end·race_dt/τ)
    assert race_rk4_steps(20.0, 10.0, 100) == 50
    # race_dt 13: τ/race_dt = 1.54, recorded every step (⌊1.54⌋ = 1), each cut into ⌈0.65⌉ = 1: 40 steps, not the
    # 40 · 13 / 20 = 26 that t_end·race_dt/τ (the estimate's count before) gives
    assert race_rk4_steps(20.0, 13.0, 40) == 40
    assert race_rk4_steps(20.0, 10.0, 0) == 0


@pytest.mark.parametrize("tau,race_dt,t_end", [(20.0, 10.0, 101), (20.0, 13.0, 40), (20.0, 7.0, 33), (100.0, 3.0, 250),
                                               (20.0, 1.5, 7), (20.0, 30.0, 5), (20.0, 1e4, 40)])
def test_the_race_steps_are_the_engines(tau, race_dt, t_end):
    """A second method: the count the integrator reports after it ran (``extra["steps"]``)."""
    X = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])
    Y = np.array([[1.0, 1, -1, -1]])
    system = RaceSystem.from_data(X, Y, np.array([[0, 0, 0, 1], [1, 1, 0, 0]], float), names=["a", "b"])
    rf = race_rk4(system, tau, race_dt, t_end, a0=1e-3)
    assert race_rk4_steps(tau, race_dt, t_end) == rf.extra["steps"]


def test_the_estimate_grows_in_proportion_to_the_race_steps():
    # P = 4, d = 3, rank 1, 2 pathways, 2 families in 1 call (1 new shape), 40 steps, τ = 20: at race_dt 1e6 and 2e6
    # the race takes N = 2e6 and 4e6 RK4 steps (above); each costs RK4_STEP_S for the call, RK4_FAMILY_STEP_S for
    # each of the 2 families, and their arithmetic, 2 · 4 · 6 · R · D · P = 2 · 24 · 2 · 6 · 4 = 2304 FLOP (R = 2, D = 6)
    per_step = pe.RK4_STEP_S + 2 * pe.RK4_FAMILY_STEP_S + 2304 / pe.FLOPS
    e1 = pe.estimate_seconds(4, 3, 1, 2, 2, 40, 20.0, 1e6, 1, 1)
    e2 = pe.estimate_seconds(4, 3, 1, 2, 2, 40, 20.0, 2e6, 1, 1)
    assert e2 - e1 == pytest.approx(2_000_000 * per_step, rel=1e-9)
    assert e1 == pytest.approx(pe.COMPILE_S + pe.CALL_S + 2_000_000 * per_step, rel=1e-9)
    # the constants are the measurement in predict_estimate.py's comment (CPU, repeated calls of a compiled shape):
    # 6.38 µs a step for 2 families (4 and 2 pathways, 5 760 FLOP a step), 13.56 µs for 16 (46 080 FLOP)
    assert pe.RK4_STEP_S + 2 * pe.RK4_FAMILY_STEP_S + 5760 / pe.FLOPS == pytest.approx(6.38e-6, rel=0.05)
    assert pe.RK4_STEP_S + 16 * pe.RK4_FAMILY_STEP_S + 46080 / pe.FLOPS == pytest.approx(13.56e-6, rel=0.05)
    # so the campaign's 2e6 steps (12.8 s of CPU measured for the race alone) are over its --time-limit 10
    assert e1 > 10


def _no_race(*args, **kwargs):
    raise AssertionError("the race ran: the refusal should come before it")


def test_predict_with_a_huge_race_dt_is_refused_before_it_runs(tmp_path, capsys, monkeypatch):
    """The campaign's command: estimated about 3 s before, it raced 2e6 RK4 steps (14 s of CPU) past --time-limit 10.
    Now refused before any race, naming --time-limit, with --race-dt in the fix."""
    monkeypatch.setattr(pr, "_race_families", _no_race)
    spec = tmp_path / "x.toml"
    spec.write_text(fuzz.to_toml(_XOR), "utf-8")
    out = tmp_path / "p.toml"
    rc = main(["predict", str(spec), "--hidden", "4", "--out", str(out), "--no-progress", "--time-limit", "10",
               "--race-dt", "1e6"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.startswith("theorykit: error in --time-limit: the estimated run time is "), err
    assert "lower --race-dt (2,000,000 RK4 steps a race here, 20 at the default 10)" in err, err
    assert "Traceback" not in err and not out.exists()
    # from Python: the keyword
    s = load_spec(spec)
    with pytest.raises(SpecError) as e:
        pr.predict_reln(s.task, 4, s.training, race_dt=1e6, time_limit=10, progress=False)
    assert e.value.field == "time_limit"


# ------------------------------------------------------------------------------------------------
# 2. a refusal that the plot causes names --plot
# ------------------------------------------------------------------------------------------------
def _estimate(plot=1.0):
    # 4 s: a compilation of 1 s, 2 s driven by --steps (2000, linear), the plot's 1 s
    est = L.Estimate("simulation").add("compile", 1.0, 0.0, None, 0.0).add("--steps", 2.0, 0.0, 2000, 1.0)
    return est.add("--plot", plot, 0.0, None, 1.0)


def test_enforce_names_the_plot_where_leaving_it_out_alone_fits():
    # limit 3.5 s: without the plot 3 s fits; --steps alone would fit too: room 3.5 − (4 − 2) = 1.5 s of its 2 s,
    # 2000 · 1.5 / 2 = 1500 steps
    with pytest.raises(SpecError) as e:
        L.enforce(_estimate(), L.Limits(max_seconds=3.5))
    assert e.value.field == "--plot", e.value
    assert e.value.fix.startswith("leave out --plot (it adds an estimated 1 s: the run without it, 3 s, fits the "
                                  "limit), or lower --steps from 2000 to at most 1500; or pass --force"), e.value.fix
    # limit 2.5 s: without the plot 3 s is still over, so --steps is named as before: 2000 · (2.5 − 2) / 2 = 500
    with pytest.raises(SpecError) as e:
        L.enforce(_estimate(), L.Limits(max_seconds=2.5))
    assert e.value.field == "--steps" and "lower --steps from 2000 to at most 500" in e.value.fix, e.value
    # no plot: --steps
    with pytest.raises(SpecError) as e:
        L.enforce(_estimate(plot=0.0), L.Limits(max_seconds=2.5))
    assert e.value.field == "--steps"


def _ten():
    """10 pathways of 4 units on XoR-like data (d = 3, P = 4), each on a different gate pattern."""
    pats = [[int(b) for b in f"{m:04b}"] for m in range(1, 11)]
    return {"data": {"inputs": [[1, -1, 1, -1], [1, -1, -1, 1], [1, 1, -1, -1]], "targets": [[1, 1, -1, -1]]},
            "pathways": [{"name": f"q{i}", "active": p, "inputs": [0, 1, 2], "outputs": [0], "hidden": 4}
                         for i, p in enumerate(pats)],
            "training": {"lr": 0.05, "loss": "mean", "a0": 0.001, "init_std": 0.01, "steps": 2000}}


def test_simulate_plot_over_the_time_limit_names_plot(tmp_path, capsys):
    """simulate SPEC --steps 2000 --seeds 2 --init random --plot f.png --time-limit T, T between the estimate with the
    plot and without it: the refusal named --seeds ("lower --seeds"), though leaving out --plot fits. A random start
    needs the derivation only for the plot, so leaving out --plot saves it too: T is put between the run alone and
    the run with that derivation, where only both savings together fit."""
    spec_path = tmp_path / "ten.toml"
    spec_path.write_text(fuzz.to_toml(_ten()), "utf-8")
    spec = spec_from_dict(_ten())
    args = lambda **kw: SimpleNamespace(**{"network": "gdln", "dtype": "float64", "steps": 2000, "plot": None, **kw})  # noqa: E731
    plain = sim_estimate(args(), spec, 2000, 2, need_derivation=False).seconds
    drawn = sim_estimate(args(plot="f.png"), spec, 2000, 2, need_derivation=False).seconds
    der = L.derivation_estimate(spec, horizon=None).seconds
    assert der > 0 and drawn > plain + der
    png = tmp_path / "f.png"
    argv = ["simulate", str(spec_path), "--steps", "2000", "--seeds", "2", "--init", "random", "--no-progress",
            "--plot", str(png), "--time-limit"]
    assert main(argv + [f"{plain + der / 2:.6f}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in --plot: ") and "(fix: leave out --plot (it adds an estimated " in err, err
    assert not png.exists()
    # below the run alone: the plot is not the fix, so it is not named
    assert main(argv + [f"{plain / 2:.6f}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in ") and "error in --plot" not in err, err
