"""A refusal's fix leads to a run that is accepted.

race-exhaust: `--k 2 --steps 100000000` was refused for its recording count with "lower --steps to at most
60000000", and `--steps 60000000` was then refused by the flow's step budget, whose fix ("lower --race-dt
(default 10), --gamma or --steps") blamed --race-dt even where --race-dt moves nothing (the budget's step is
τ/(40·s_max), whatever --race-dt). Now every bound is checked before any race, and the fix names the one
--steps that passes them all.

predict --validate: its trainings' estimated time had no bound (only the memory was checked; --time-limit
bounds the prediction's search). Then the estimate was checked against the general time limit (3600 s, or
THEORYKIT_MAX_SECONDS); now against predict's one limit, --time-limit (60 s by default), which lifts it, as it
lifts the task's build and the search (session 161).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import theorykit as tk
from theorykit.analysis import exhaust, findgates, predict, predict_validate
from theorykit.analysis.exhaust import race_exhaust, race_rk4
from theorykit.cli import main
from theorykit.cli import predict as cli_predict
from theorykit.cli.parser import build_parser
from theorykit.errors import SpecError
from theorykit.spec.limits import Limits
from theorykit.spec.task import contexts
from theorykit.theory import flow
from theorykit.theory.race import RaceSystem

# The expected bound, by hand. race-exhaust --k 2: contexts(8, 2), P = 16 datapoints, the summed loss at
# η = 0.001: τ = 1/(P η) = 62.5. The race's fastest rate is s_max/τ with s_max the largest singular value
# of the pathways' Σyx: the common pathway's YXᵀ/P at γ = 1 is 15/(8√2) = 1.32582521 (checked with numpy
# below). integrate budgets 2e6 steps of 1/(40 · s_max/τ) = 62.5 · 8√2 / 600 = 1.17851130; so
# t_end ≤ 2e6 · 1.17851130 = 2357022.6: N = 2357022 (its flow is 1999999.5 such steps, N + 1's 2000000.3).
# The other two bounds are looser: RK4 steps of τ/10 = 6.25, at most 2e6 · 6.25 = 12 500 000, and the loss
# recorded every ⌊6.25⌋ = 6 steps, at most 6 · 1e7 = 60 000 000.
N = 2357022


class _Stop(BaseException):
    """Raised by the spy once the race's checks have passed: nothing is compiled or integrated."""


def _spy(monkeypatch):
    """Make the race stop right after integrate's two budget checks (the rate's step, then RK4's own), each
    made by the real check; returns the steps they were made with."""
    seen, real = [], flow._check_budget

    def spy(ts, h):
        real(ts, h)
        seen.append(h)
        if len(seen) == 2:
            raise _Stop
    monkeypatch.setattr(flow, "_check_budget", spy)
    return seen


def test_the_hand_derived_s_max_by_numpy():
    """The second method for s_max: the top singular value of YXᵀ/P of contexts(8, 2) is 15/(8√2), and the
    race's rate is that."""
    X, Y = contexts(8, 2, context_scale=1).numeric()
    top = np.linalg.svd(Y @ X.T / X.shape[1], compute_uv=False)[0]
    assert top == pytest.approx(15 / (8 * math.sqrt(2)), rel=1e-12)
    spec = exhaust.exhaust_spec(2)[0]
    assert RaceSystem.from_spec(spec).rate == pytest.approx(top, rel=1e-12) and spec.tau == 62.5


def test_race_exhaust_the_fixed_steps_pass_every_check(tmp_path, capsys, monkeypatch):
    """--steps 100000000 is refused with "lower --steps to at most N"; --steps N then clears the recording count
    and both of the flow's budget checks (the race itself stopped by the spy), and N + 1 is refused."""
    assert main(["race-exhaust", "--k", "2", "--steps", "100000000", "--no-progress", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.rstrip().endswith(f"(fix: lower --steps to at most {N})"), err
    seen = _spy(monkeypatch)
    with pytest.raises(_Stop):
        main(["race-exhaust", "--k", "2", "--steps", str(N), "--no-progress", "--out", str(tmp_path)])
    assert seen == [pytest.approx(62.5 * 8 * math.sqrt(2) / 600, rel=1e-12), 6.25]
    capsys.readouterr()
    monkeypatch.undo()
    assert main(["race-exhaust", "--k", "2", "--steps", str(N + 1), "--no-progress", "--out", str(tmp_path)]) == 2
    assert f"(fix: lower --steps to at most {N}, or lower --gamma" in capsys.readouterr().err


def test_one_more_step_is_refused_by_the_flow_itself():
    """N + 1 is over the flow's own budget (not only over race_exhaust's check of it): integrate refuses it."""
    spec = exhaust.exhaust_spec(2)[0]
    system = RaceSystem.from_spec(spec)
    with pytest.raises(SpecError, match="integration steps"):
        race_rk4(system, spec.tau, 10, N + 1, a0=exhaust.default_a0())


@pytest.mark.parametrize("extra", [[], ["--race-dt", "1e-9"]])
def test_the_flow_budget_is_checked_before_any_race_and_names_steps(tmp_path, capsys, monkeypatch, extra):
    """--steps 999999999 (with --race-dt 1e-9 too): the budget's step τ/(40·s_max) does not depend on --race-dt,
    so the error names --steps and its fix the bound, not --race-dt; nothing is raced."""
    def no_race(*a, **k):
        raise AssertionError("a race ran")
    monkeypatch.setattr(exhaust, "race_rk4", no_race)
    assert main(["race-exhaust", "--k", "2", "--steps", "999999999", *extra, "--no-progress",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in --steps: 999999999 steps are more than the race can take: ")
    assert ("steps of "
                          "τ/(40·s_max) = 1.18 (s_max = 1.326, the pathways' largest singular value, at least 1; "
                          "--race-dt does not change this step) are 8.49e+08 integration steps, more than the flow's "
                          "budget of 2,000,000 (at most 2357022 steps)") in err, err
    if extra:       # τ/1e-9: a step of 6.25e10, the loss recorded once; only the rate's bound is passed
        assert ": steps of τ/(40·s_max)" in err and "recording times" not in err
    assert err.rstrip().endswith(f"(fix: lower --steps to at most {N})") and "--race-dt (default" not in err


def test_a_fine_race_dt_names_race_dt_the_right_way(tmp_path, capsys, monkeypatch):
    """--race-dt 1e6: RK4 steps of τ/1e6 = 6.25e-5; 8000 steps are 1.28e8 of them, at most 2e6 · 6.25e-5 = 125
    steps. A smaller --race-dt (a coarser step) is what lowers the count, up to the rate's bound N: the error
    names --race-dt, the option given, and --steps 125 then passes every check."""
    seen = _spy(monkeypatch)
    assert main(["race-exhaust", "--k", "2", "--race-dt", "1e6", "--no-progress", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in --race-dt: 8000 steps are more than the race can take: RK4 steps of "
                          "τ/race-dt = 6.25e-05 are 1.28e+08 integration steps, more than the flow's budget of "
                          "2,000,000 (at most 125 steps) ")
    assert err.rstrip().endswith(f"(fix: lower --race-dt (a coarser RK4 step, recorded less often; up to {N} steps), "
                                 "or lower --steps to at most 125)"), err
    with pytest.raises(_Stop):
        main(["race-exhaust", "--k", "2", "--race-dt", "1e6", "--steps", "125", "--no-progress", "--out", str(tmp_path)])
    assert seen[1] == 62.5 / 1e6


def test_python_names_the_keyword():
    with pytest.raises(SpecError) as err:
        race_exhaust(2, steps=N + 1, progress=False)
    assert err.value.field == "steps" and err.value.fix.startswith(f"lower --steps to at most {N}")


# ---------------------------------------------------------------------------------------------------
# predict --validate: the validation's estimated time is held to the general limit
# ---------------------------------------------------------------------------------------------------
XOR_DATA = "examples/predict/xor_data.toml"
# 8 ReLU networks of width 100 000 on xor-margin (d = 3 inputs, P = 4 datapoints) for 1e7 steps: at least
# 8 · 1e7 · 6 · (3 · 1e5 + 1e5) · 4 FLOP = 7.7e17 FLOP, 5.3 h at simulation_estimate's 4e10 FLOP/s: over an
# hour (the memory, about 2.3 GB, is lifted by THEORYKIT_MAX_BYTES in the test: not what is checked)
BIG = ["--hidden", "100000", "--steps", "10000000"]


@pytest.fixture
def big_memory(monkeypatch):
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1e15")
    monkeypatch.delenv("THEORYKIT_MAX_SECONDS", raising=False)


def test_predict_validate_over_the_time_limit_is_refused_and_the_lift_works(tmp_path, capsys, monkeypatch, big_memory):
    def predicted(*a, **k):
        raise _Stop
    monkeypatch.setattr(cli_predict, "predict_reln", predicted)
    argv = ["predict", XOR_DATA, "--set", "Delta=0.5", *BIG, "--validate", "--out", str(tmp_path / "p.toml"),
            "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in --steps: --validate: training 8 ReLU networks of width 100000 for "
                          "10000000 steps needs an estimated "), err
    # predict's --time-limit (default 60 s), not THEORYKIT_MAX_SECONDS (session 161): its fix names --time-limit
    assert "over the time limit of 60 s" in err and "or leave out --validate; or pass a larger --time-limit" in err, err
    est = float(err.split("needs an estimated ")[1].split(" h,")[0]) * 3600      # hours (5.3 h by hand, above)
    assert est >= 8 * 1e7 * 6 * 4e5 * 4 / 4e10 * 0.99 > 3600      # the hand lower bound above (shown to 3 digits)
    monkeypatch.setenv("THEORYKIT_MAX_SECONDS", str(10 * est))     # the environment no longer lifts it
    assert main(argv) == 2 and "over the time limit of 60 s" in capsys.readouterr().err
    with pytest.raises(_Stop):      # --time-limit past the estimate: the check passed, predict went on to predict
        main(argv + ["--time-limit", str(math.ceil(10 * est))])


def test_predict_keeps_its_60_second_search_limit(big_memory):
    args = build_parser().parse_args(["predict", XOR_DATA, "--hidden", "8", "--out", "p.toml"])
    assert args.time_limit == 60


def test_validate_prediction_checks_the_time_and_takes_limits(monkeypatch):
    """From Python: the default limits now bound the time too (THEORYKIT_MAX_SECONDS), and limits= lifts it as
    tk.find_gates' does; the trainer is stopped when reached."""
    def trained(*a, **k):
        raise _Stop
    monkeypatch.setattr(findgates, "train_relu", trained)
    pred = tk.predict_reln(tk.xor_margin(0.5), 8, tk.Training(lr=0.05, steps=2000), progress=False)
    monkeypatch.setenv("THEORYKIT_MAX_SECONDS", "0.5")      # the estimate is above 1.5 s (the compilation alone)
    with pytest.raises(SpecError) as err:
        predict_validate.validate_prediction(pred, seeds=8)
    assert err.value.field == "seeds" and "over the time limit of 0.5 s" in err.value.problem
    assert "limits=theorykit.spec.limits.Limits(force=True)" in err.value.fix
    with pytest.raises(_Stop):
        predict_validate.validate_prediction(pred, seeds=8, limits=Limits(force=True))
    with pytest.raises(SpecError):
        predict_validate.validate_prediction(pred, seeds=8, limits=Limits(max_seconds=0.5))


# predict: its race of XoR with margin Δ = 1/2 (examples/predict/xor_data.toml: lr 0.05, mean loss), by
# hand: τ = 1/η = 20 steps. The candidates' Σyx = Y diag(g) Xᵀ / 4: all four points give (0, 0, 4Δ)/4, s = Δ =
# 1/2; one point gives y·x/4, s = √(1 + 1 + 1/4)/4 = 3/8; so s_max = max(1, 1/2) = 1. The race's RK4 step is
# τ/(10·s_max) = 2 (2e6 of them: 4e6 steps; its loss recorded every 2: 1e7 records, 2e7 steps), and the flow's
# budget step τ/(40·s_max) = 1/2: 2e6 of them reach 1e6 steps. So at most P_MOST = 1,000,000 steps.
P_MOST = 1_000_000


def _xor_data():
    return tk.xor_margin(0.5), tk.Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)


def test_predict_refuses_steps_past_the_race_bounds_before_anything_with_the_most_it_takes(tmp_path, capsys):
    """predict --steps 1e9 --time-limit 0 was "error in save.every: … (fix: … SaveAt(every=1e+06) …)": an
    internal field and a Python fix. Now the bound is checked first, naming --steps with the most it takes."""
    out = tmp_path / "p.toml"
    argv = ["predict", "examples/predict/xor_data.toml", "--set", "Delta=0.5", "--hidden", "8", "--time-limit", "0",
            "--out", str(out)]
    assert main([*argv, "--steps", str(P_MOST + 1)]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        f"theorykit: error in --steps: {P_MOST + 1} steps are more than a race of this data can take: at most "
        f"{P_MOST} (the flow's budget of integration steps at its fastest rate, and of recorded losses) "
        f"(fix: lower --steps to at most {P_MOST})")
    assert not out.exists()


def test_predict_at_the_most_it_takes_passes_every_check_and_reaches_the_race(monkeypatch):
    """P_MOST steps pass the bound and the estimate (no limit) and reach the race (stopped there)."""
    def reached(*a, **kw):
        raise RuntimeError("the race was reached")
    monkeypatch.setattr(predict, "_race_families", reached)
    task, tr = _xor_data()
    with pytest.raises(RuntimeError, match="the race was reached"):
        tk.predict_reln(task, 8, tr, steps=P_MOST, time_limit=0)
    with pytest.raises(SpecError) as exc:        # one more: refused by the keyword's name, before the race
        tk.predict_reln(task, 8, tr, steps=P_MOST + 1, time_limit=0)
    assert exc.value.field == "steps" and f"at most {P_MOST}" in exc.value.problem


def test_predict_names_the_trainings_steps_where_they_set_the_horizon(monkeypatch):
    monkeypatch.setattr(predict, "_race_families", lambda *a, **kw: pytest.fail("the race was reached"))
    task, tr = _xor_data()
    with pytest.raises(SpecError) as exc:
        tk.predict_reln(task, 8, tk.Training(lr=0.05, loss="mean", init_std=0.01, steps=10 ** 9), time_limit=0)
    assert exc.value.field == "training.steps" and exc.value.fix == f"lower training.steps to at most {P_MOST}"
