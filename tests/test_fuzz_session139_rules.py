"""Session 139: the fuzzer draws ``predict --race-dt`` and reruns a refusal's named fix, as it does for
race-exhaust; ``simulate --plot`` is counted in the simulation's estimate, as derive's ``--plot`` is in the
derivation's; the campaign's hang (predict's symmetry search on 3000 datapoints). Each test failed before its
change, except the hostile values' (a guard: clean errors today)."""
from __future__ import annotations

import math
import time
from types import SimpleNamespace

import numpy as np
import pytest

import fuzz
from theorykit.analysis.patterns import data_symmetries
from theorykit.cli import main
from theorykit.cli.common import sim_estimate
from theorykit.spec import limits as L
from theorykit.spec.files import load_spec, spec_from_dict

# The race's bound on white data (predict's race takes RK4 steps of τ/(race_dt·s_max)): race_dt ≥ 2 · RK4_MARGIN /
# RK4_STABLE = 2 · 2 / 2.785 = 1.43627 (race_step.min_race_dt, s_max = 1; docs/predict.md), printed rounded up: 1.44
_WHITE_BOUND = 4 / 2.785

# XoR with margin Δ = 1/2 (d = 3, P = 4, docs/theory.md): a gate pattern's ‖Σyx‖ is at most 1 here (s_max floored at
# 1) and its race no faster than 2·s_max/τ (the refusal prints the rate it used), so the bound is the white one above.
_XOR = {"data": {"task": "xor-margin", "reln": "xor", "hidden": 4, "Delta": 0.5},
        "training": {"lr": 0.05, "loss": "mean", "a0": 0.001, "init_std": 0.01, "steps": 40}}


def _opt(argv, flag):
    return argv[argv.index(flag) + 1] if flag in argv else None


def _predict_case(race_dt):
    argv = ["predict", "{dir}/spec.toml", "--hidden", "4", "--out", "{dir}/pred.toml", "--no-progress",
            "--time-limit", "10", "--race-dt", race_dt]
    return fuzz.Case("predict", dict(_XOR), None, [], runs=[("predict", argv, "pred.toml")], ref="predict")


# ------------------------------------------------------------------------------------------------
# 1. the fuzzer's predict kind draws --race-dt
# ------------------------------------------------------------------------------------------------
def test_the_predict_kind_draws_race_dt_and_its_hostile_values():
    """Was: no predict case had --race-dt (the option landed in predict, the fuzzer drew it for race-exhaust only)."""
    cases = fuzz._generate(300, 20261129, ["predict"])
    argvs = [c.runs[0][1] for c in cases]
    dts = [_opt(a, "--race-dt") for a in argvs]
    assert None in dts                                          # the default, not given
    vals = []
    for v in dts:
        try:
            vals.append(float(v))
        except (TypeError, ValueError):
            pass
    assert any(v is not None and not _is_number(v) for v in dts), dts              # text
    assert any(math.isnan(v) for v in vals) and math.inf in vals, dts
    assert any(0.9 * _WHITE_BOUND < v < _WHITE_BOUND for v in vals), dts           # just below: refused
    assert any(_WHITE_BOUND <= v < 1.1 * _WHITE_BOUND for v in vals), dts          # just above: accepted
    assert any(0 < v < 1e-6 for v in vals), dts                                    # tiny
    assert 1e6 in vals and 1e300 in vals, dts                                      # huge
    assert 10.0 in vals, dts                                                       # the default, given
    # the drawn value is recorded among the case's mutations, as race-exhaust's is
    assert any(m.startswith("--race-dt ") for c in cases for m in c.mutations)


def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def test_a_predict_refusal_naming_a_race_dt_is_run_again_with_it(tmp_path):
    """1.43 is below the white bound 1.4363: refused naming --race-dt with the fix 1.44, which the reference runs
    again (its --out beside the first, ``-fix`` added) and which predicts (a spec sharing the 4 hidden units).
    Was: a predict refusal's named value was never run (only race-exhaust's cases were)."""
    out = fuzz.run_case(_predict_case("1.43"), tmp_path, time_limit=300)
    assert out.kind == "error", out
    name, rc, first, _ = out.commands[0]
    assert rc == 2 and first.startswith("theorykit: error in --race-dt: 1.43 makes the RK4 step"), first
    assert "(fix: use --race-dt 1.44 or larger" in first, first
    assert not (tmp_path / "pred.toml").exists()
    fixed = load_spec(tmp_path / "pred-fix.toml")           # the rerun with --race-dt 1.44 wrote its prediction
    assert sum(pw.hidden for pw in fixed.pathways) == 4


def test_a_named_race_dt_refused_again_is_a_crash(tmp_path, monkeypatch):
    """The check can fail: a rerun answered with the same too-coarse refusal is reported as a crash."""
    real = fuzz._run_main
    calls, errs = [], []

    def run_main(argv, time_limit):
        calls.append(list(argv))
        if errs:            # the rerun: answered with the first refusal again, as if 1.44 were too coarse too
            return 2, "", errs[0], 0.0
        rc, out, err, secs = real(argv, time_limit)
        errs.append(err)
        return rc, out, err, secs

    monkeypatch.setattr(fuzz, "_run_main", run_main)
    out = fuzz.run_case(_predict_case("1.43"), tmp_path, time_limit=300)
    assert len(calls) == 2 and _opt(calls[1], "--race-dt") == "1.44", calls
    assert out.kind == "crash" and "the named fix --race-dt 1.44 is refused again" in out.detail, out


@pytest.mark.parametrize("race_dt,field", [("1e300", "--race-dt"), ("inf", "--race-dt"), ("nan", "--race-dt"),
                                           ("ten", "--race-dt"), ("0", "--race-dt"), ("1e-9", "--race-dt")])
def test_hostile_race_dt_is_a_clean_error_naming_it(tmp_path, race_dt, field):
    out = fuzz.run_case(_predict_case(race_dt), tmp_path, time_limit=300)
    assert out.kind == "error", out
    assert out.commands[0][2].startswith(f"theorykit: error in {field}: "), out.commands


# ------------------------------------------------------------------------------------------------
# 2. simulate --plot is counted in the estimate
# ------------------------------------------------------------------------------------------------
_THREE = {"data": {"inputs": [[1, 0, 0.5, 0], [0, 1, 0, 0.5], [1, 1, 0, 0]], "targets": [[1, -1, 0.5, 0]]},
          "pathways": [{"name": f"p{i}", "active": "all", "hidden": 2} for i in range(3)],
          "training": {"lr": 0.05, "loss": "mean", "a0": 0.001, "init_std": 0.01, "steps": 50}}


def test_simulation_estimate_counts_the_plot():
    """The --plot part, by the stated rule: SIM_PLOT_SECONDS for the figure, plus SIM_PLOT_PATHWAY_SECONDS for each
    of a GDLN's 3 pathways (its modes recorded and drawn); a ReLU network's plot draws the loss only. Was: no
    ``plot`` argument (simulate --plot was not counted at all)."""
    spec = spec_from_dict(_THREE)
    for network, want in (("gdln", L.SIM_PLOT_SECONDS + 3 * L.SIM_PLOT_PATHWAY_SECONDS), ("relu", L.SIM_PLOT_SECONDS)):
        plain = L.simulation_estimate(spec, steps=50, seeds=2, network=network)
        drawn = L.simulation_estimate(spec, steps=50, seeds=2, network=network, plot=True)
        assert drawn.seconds - plain.seconds == pytest.approx(want, rel=1e-12)
        assert [p for p in drawn.parts if p[0] == "--plot"] == [("--plot", pytest.approx(want, rel=1e-12), 0.0,
                                                                 None, 1.0)]
        assert not [p for p in plain.parts if p[0] == "--plot"]
    # the measured figure (CPU s, limits.py's comment) is what the constants say, within 25 %: K = 1: 0.43 s,
    # K = 50: 2.16 + 0.23 + 0.20 s (the figure, the recorded modes, plot_save's frames)
    assert L.SIM_PLOT_SECONDS + L.SIM_PLOT_PATHWAY_SECONDS == pytest.approx(0.43 + 0.02 + 0.01, rel=0.25)
    assert L.SIM_PLOT_SECONDS + 50 * L.SIM_PLOT_PATHWAY_SECONDS == pytest.approx(2.16 + 0.23 + 0.20, rel=0.25)


def test_simulate_plot_of_a_random_start_counts_its_derivation():
    """A GDLN's --plot derives the spec for its modes (analysis.summary.plot_save) whatever the start: a random start
    needs no derivation otherwise, so the check counts it only with --plot (and a ReLU network's plot never)."""
    spec = spec_from_dict(_THREE)
    der = L.derivation_estimate(spec, horizon=None).seconds
    args = lambda **kw: SimpleNamespace(**{"network": "gdln", "dtype": "float64", "steps": None, "plot": None, **kw})  # noqa: E731
    base = sim_estimate(args(), spec, 50, 2, need_derivation=False).seconds
    gdln = sim_estimate(args(plot="f.png"), spec, 50, 2, need_derivation=False).seconds
    relu = sim_estimate(args(plot="f.png", network="relu"), spec, 50, 2, need_derivation=False).seconds
    relu0 = sim_estimate(args(network="relu"), spec, 50, 2, need_derivation=False).seconds
    assert gdln - base == pytest.approx(der + L.SIM_PLOT_SECONDS + 3 * L.SIM_PLOT_PATHWAY_SECONDS, rel=1e-9)
    assert relu - relu0 == pytest.approx(L.SIM_PLOT_SECONDS, rel=1e-9)


def test_simulate_plot_over_the_time_limit_is_refused_before_it_runs(tmp_path, capsys):
    """A --time-limit that admits the run but not its plot: the run without --plot succeeds, with --plot it is
    refused (exit 2, an estimate over the limit) and no figure is written. Was: the plot ran past the limit."""
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text(fuzz.to_toml(_THREE), "utf-8")
    spec = load_spec(spec_path)
    plain = sim_estimate(SimpleNamespace(network="gdln", dtype="float64", steps=5, plot=None), spec, 5, 1,
                         need_derivation=True).seconds
    limit = f"{plain + 0.2:.6f}"     # room for the run, not for its plot (measured: the figure alone 0.43 s)
    argv = ["simulate", str(spec_path), "--steps", "5", "--seeds", "1", "--times", "0,5", "--no-progress",
            "--time-limit", limit]
    assert main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    png = tmp_path / "f.png"
    assert main(argv + ["--plot", str(png)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in ") and "over the time limit" in err and "Traceback" not in err, err
    assert not png.exists()


# ------------------------------------------------------------------------------------------------
# 3. the campaign's hang: predict's symmetry search on many datapoints
# ------------------------------------------------------------------------------------------------
def _periodic(P):
    """The fuzzer's big-data mutation: X[i, μ] = (7i + 3μ) mod 5 − 2, Y[i, μ] = (i + μ) mod 3 − 1 (d = 3, p = 2): the
    columns repeat with period 15, so many datapoints share a colour."""
    mu = np.arange(P)
    return (np.array([(7 * i + 3 * mu) % 5 - 2 for i in range(3)], float),
            np.array([(i + mu) % 3 - 1 for i in range(2)], float))


def test_data_symmetries_of_1500_datapoints_does_not_recurse_past_pythons_limit():
    """Was: RecursionError (one call deep per datapoint; predict --time-limit 0 on P = 3000 exited 70, 'internal
    error'). Each permutation found is checked here with numpy: it preserves XᵀX and YᵀY."""
    X, Y = _periodic(1500)
    perms, info = data_symmetries(X, Y, max_group=2)
    assert len(perms) == 2 and info["truncated_at"] == 2
    for s in perms:
        assert sorted(s) == list(range(1500))
        inv = np.argsort(s)
        for A in (X, Y):
            np.testing.assert_array_equal((A.T @ A)[np.ix_(inv, inv)], A.T @ A)
    assert any(np.array_equal(s, np.arange(1500)) for s in perms)      # the identity comes first (depth first)


def test_data_symmetries_past_its_deadline_stops_before_comparing_the_datapoints():
    """An expired deadline raises TimeoutError (predict names --time-limit) before the P colours are compared."""
    X, Y = _periodic(300)
    with pytest.raises(TimeoutError, match="comparing 300 datapoints"):
        data_symmetries(X, Y, deadline=time.monotonic() - 1.0)


@pytest.mark.slow
def test_predict_on_3000_periodic_datapoints_is_a_clean_time_limit_error(tmp_path):
    """Campaign session 139 (seed 139, --kinds predict, cases 321 and 322, alone too): predict on the big-data mutation
    (d = 3, P = 3000, one entry 1e6) --time-limit 10 used more than 120 s of CPU (a hang): its symmetry search
    compared every pair of datapoints' colours (P² tuples of 2P entries) before it looked at the deadline."""
    X, Y = _periodic(3000)
    X = X.tolist()
    X[0][125] = 1e6
    doc = {"name": "ctx", "data": {"inputs": X, "targets": Y.tolist()}, "pathways": [{"name": "all", "active": "all"}],
           "training": {"lr": 0.05, "loss": "mean", "a0": 0.001, "init_std": 0.01, "steps": 40}}
    argv = ["predict", "{dir}/spec.toml", "--hidden", "16", "--out", "{dir}/pred.toml", "--search", "beam", "--beam",
            "2", "--share", "mass", "--no-progress", "--time-limit", "10", "--race-dt", "3"]
    out = fuzz.run_case(fuzz.Case("predict", doc, None, [], runs=[("predict", argv, "pred.toml")], ref="predict"),
                        tmp_path, time_limit=120)
    assert out.kind == "error", out
    assert out.commands[0][2].startswith("theorykit: error in --time-limit: "), out.commands
