"""Session 139: the fuzzer draws ``predict --race-dt`` and reruns a refusal's named fix, as it does for
race-exhaust. Each test failed before its change, except the hostile values' (a guard: clean errors today)."""
from __future__ import annotations

import math

import pytest

import fuzz
from theorykit.spec.files import load_spec

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
