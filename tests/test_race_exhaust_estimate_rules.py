"""``theorykit race-exhaust`` had no time estimate: ``race-exhaust --k 4`` raced for about 2 hours on a 2-core CPU
with no word up front, and no ``--time-limit``. It is now estimated before any race by predict's estimator
(:func:`theorykit.analysis.predict_estimate.exhaust_estimate` -> ``estimate_seconds``, the same constants and the
same RK4 step counter ``race_rk4_steps``), said on stderr, recorded in exhaust.json, and refused over
``--time-limit`` (default 3600 s or THEORYKIT_MAX_SECONDS, as every command but predict; ``--force`` or
``--time-limit 0`` runs it anyway) naming the estimate, the limit and the options that bound the run.
Every test here failed before the change (no ``on_estimate``, ``time_limit``, ``--time-limit`` or ``--force``).
No test times anything: the counts are checked against hand counts, the seconds against the estimator's formula
written out."""
from __future__ import annotations

import json

import pytest

import theorykit.analysis.exhaust as ex
import theorykit.analysis.predict_estimate as pe
from theorykit.analysis.exhaust import race_exhaust
from theorykit.cli import main
from theorykit.errors import SpecError


class _Stop(Exception):
    """Raised by an on_estimate callback to stop race_exhaust before any race."""


def _estimate(k, **kw):
    """race_exhaust's estimate, taken before any race (the callback stops it there: nothing is raced)."""
    got = {}

    def stop(est):
        got.update(est)
        raise _Stop
    with pytest.raises(_Stop):
        race_exhaust(k, progress=False, on_estimate=stop, **kw)
    return got


# ---------------------------------------------------------------------------------------------------
# the counting, by hand
# ---------------------------------------------------------------------------------------------------
# contexts(8, k): P = 8k datapoints, d = 8 + k inputs (8 items, k contexts), summed loss at η = 0.001, so
# τ = 1/(P η) = 1000/(8k): 62.5 (k = 2), 41.67 (k = 3), 31.25 (k = 4). At race_dt 10 the RK4 step is τ/10 and the
# loss is recorded every e = ⌊τ/10⌋ steps: e = 6, 4, 3. Each interval between recordings is shorter than the
# step, so one RK4 step each, and the last interval (up to `steps`) one more:
#   k = 2, steps 30:   recordings 0, 6, …, 24, then 30: 5 intervals                    -> 5 RK4 steps
#   k = 2, steps 8000: 1333 intervals of 6 (to 7998), then 7998..8000                  -> 1334
#   k = 3, steps 8000: 2000 intervals of 4 (to 8000)                                   -> 2000
#   k = 3, steps 16000: 4000 intervals of 4                                            -> 4000
#   k = 3, steps 8000, race_dt 40: step τ/40 = 1.04, recorded every step, 1 RK4 each  -> 8000
#   k = 4, steps 8000: 2666 intervals of 3 (to 7998), then 7998..8000                  -> 2667
# Orbits under the context permutations (docs/race_k4.md): k = 2: 7 families {c}, {1}, {2}, {c,1}, {c,2}, {1,2},
# {c,1,2}; swapping the contexts pairs {1}~{2} and {c,1}~{c,2}: 5 orbits. k = 3: 39; k = 4: 1 991.
@pytest.mark.parametrize("k, steps, race_dt, rk4, orbits", [(2, 30, 10, 5, 5), (2, 8000, 10, 1334, 5),
                                                            (3, 8000, 10, 2000, 39), (3, 16000, 10, 4000, 39),
                                                            (3, 8000, 40, 8000, 39), (4, 8000, 10, 2667, 1991)])
def test_the_estimate_counts_the_races_and_their_rk4_steps_by_hand(k, steps, race_dt, rk4, orbits):
    est = _estimate(k, steps=steps, race_dt=race_dt)
    assert est["rk4_steps"] == rk4 and est["orbits"] == orbits
    assert est["pathways"] == 2 ** k - 1            # common + one per proper non-empty subset of the k contexts
    assert est["calls"] == -(-orbits // 256)        # --batch 256 a call: k = 4's 1 991 orbits in 8 calls


def test_the_estimate_is_predicts_estimator_written_out():
    # the seconds are estimate_seconds' formula (predict_estimate.py) with race-exhaust's sizes, written out here:
    # each race is of the whole superset (K = 2^k - 1 pathways, R = K·rank rows, D = K·d inputs), k = 4: P = 32,
    # d = rank = 12 (min(d, outputs)), K = 15, 1 991 races of 2 667 RK4 steps in 8 calls, at most 2 new shapes
    # (256 a call, 199 in the last)
    est = _estimate(4)
    K, d, P, n, rk, calls = 15, 12, 32, 1991, 2667, 8
    arithmetic = n * rk * 4 * 6 * (K * d) * (K * d) * P / pe.FLOPS
    steps = rk * (pe.RK4_STEP_S * calls + pe.RK4_FAMILY_STEP_S * n)
    assert est["compiles"] <= 2
    want = pe.COMPILE_S * est["compiles"] + pe.CALL_S * calls + steps + arithmetic
    assert est["seconds"] == pytest.approx(want, rel=1e-12)
    # the hand's figure: 1991 · 2667 · 24 · 180² · 32 / 3e10 = 4 406 s of arithmetic, over an hour: the default
    # time limit (3600 s) refuses it (below)
    assert 4400 < arithmetic < 4410 and est["seconds"] > 3600


def test_the_estimate_grows_with_k_and_steps_as_counted():
    e2, e3, e3b = _estimate(2), _estimate(3), _estimate(3, steps=16000)
    assert e2["seconds"] < e3["seconds"] < e3b["seconds"]
    # doubling the steps doubles the RK4 steps (2000 -> 4000, above) and the part they drive; the rest (compiling,
    # the calls) stays: the difference is exactly the priced steps and arithmetic of 2000 more RK4 steps
    K, d, P, n, calls = 7, 11, 24, 39, 1
    per_rk4 = pe.RK4_STEP_S * calls + pe.RK4_FAMILY_STEP_S * n + n * 4 * 6 * (K * d) ** 2 * P / pe.FLOPS
    assert e3b["compiles"] == e3["compiles"]
    assert e3b["seconds"] - e3["seconds"] == pytest.approx(2000 * per_rk4, rel=1e-9)


def test_the_estimate_is_given_before_any_race(monkeypatch):
    events = []
    real_race = ex.race_rk4
    monkeypatch.setattr(ex, "race_rk4", lambda *a, **kw: events.append("race") or real_race(*a, **kw))
    res = race_exhaust(2, steps=30, progress=False, on_estimate=lambda est: events.append(("estimate", est["rk4_steps"])))
    assert events[0] == ("estimate", 5) and events[1:] == ["race"]
    assert res.summary["estimate"]["rk4_steps"] == 5 and res.summary["estimate"]["engine_calls"] == 1


# ---------------------------------------------------------------------------------------------------
# the refusal
# ---------------------------------------------------------------------------------------------------
def test_python_refusal_names_the_keywords(monkeypatch):
    called = []
    monkeypatch.setattr(ex, "race_rk4", lambda *a, **kw: called.append(1))
    with pytest.raises(SpecError) as info:
        race_exhaust(3, time_limit=1e-3, progress=False)
    err = info.value
    assert err.field == "time_limit" and not called
    assert "the estimated run time is" in err.problem and "over the 0.001 s bound" in err.problem
    assert "39 orbits of 127 families raced, 2,000 RK4 steps each" in err.problem
    assert "lower k (k=2: 7 families)" in err.fix and "lower race_dt" in err.fix and "time_limit" in err.fix
    assert "--" not in err.fix


@pytest.mark.parametrize("bad", [-1, float("nan"), "soon"])
def test_a_bad_time_limit_is_refused_by_name(bad):
    with pytest.raises(SpecError) as info:
        race_exhaust(2, time_limit=bad, progress=False)
    assert info.value.field == "time_limit"


def test_on_estimate_must_be_a_function():
    with pytest.raises(SpecError) as info:
        race_exhaust(2, on_estimate="print", progress=False)
    assert info.value.field == "on_estimate"


def test_the_command_refuses_over_its_time_limit_naming_the_options(capsys, tmp_path, monkeypatch):
    called = []
    monkeypatch.setattr(ex, "race_rk4", lambda *a, **kw: called.append(1))
    out = tmp_path / "race"
    assert main(["race-exhaust", "--k", "3", "--time-limit", "1", "--no-progress", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("theorykit: error in --time-limit: the estimated run time is ")
    assert "over the 1 s bound (39 orbits of 127 families raced, 2,000 RK4 steps each" in err
    for fix in ("lower --k (--k 2: 7 families)", "lower --race-dt",
                "raise --time-limit (0: no limit) or pass --force to run it anyway"):
        assert fix in err
    assert not called and not (out / "exhaust.json").exists()


def test_the_steps_the_refusal_offers_fit_and_one_more_does_not(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "race_rk4", lambda *a, **kw: pytest.fail("raced"))
    assert main(["race-exhaust", "--k", "3", "--time-limit", "5", "--no-progress", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    n = int(err.split("lower --steps to at most ")[1].split(",")[0].split(" ")[0])
    full = _estimate(3)
    # k = 3: P = 24, d = rank = 11, τ = 1000/24, 39 races of 7 pathways, in this process's compiled state
    sizes = {"P": 24, "d": 11, "rank": 11, "tau": 1000 / 24, "race_dt": 10, "batch": 256, "key": ("race-exhaust",)}
    at = lambda t: pe.exhaust_estimate(39, 7, steps=t, compiled=pe.compiled_shapes(), **sizes)["seconds"]  # noqa: E731
    assert full["seconds"] > 5 and at(n) <= 5 < at(n + 1)


def test_the_default_time_limit_refuses_k4_and_force_or_0_lifts_it(capsys, tmp_path, monkeypatch):
    # the default of every command but predict: 3600 s (THEORYKIT_MAX_SECONDS); k = 4 is estimated above it
    monkeypatch.delenv("THEORYKIT_MAX_SECONDS", raising=False)
    monkeypatch.setattr(ex, "race_rk4", lambda *a, **kw: pytest.fail("raced"))
    assert main(["race-exhaust", "--k", "4", "--no-progress", "--out", str(tmp_path / "r4")]) == 2
    err = capsys.readouterr().err
    assert "error in --time-limit: the estimated run time is" in err and "over the 3600 s bound" in err
    assert "(1,991 orbits of 32,767 families raced, 2,667 RK4 steps each, in 8 engine calls of up to 256" in err


@pytest.mark.parametrize("lift", [["--time-limit", "0"], ["--time-limit", "inf"], ["--time-limit", "0.001", "--force"]])
def test_time_limit_0_and_force_do_not_refuse(capsys, tmp_path, lift):
    # --time-limit 0.001: every k = 2 race is over it (its estimate counts at least one engine call, CALL_S = 0.12 s)
    out = tmp_path / "race"
    argv = ["race-exhaust", "--k", "2", "--steps", "30", "--no-progress", "--out", str(out)]
    assert main(argv + ["--time-limit", "0.001"]) == 2
    assert "over the 0.001 s bound" in capsys.readouterr().err
    assert main(argv + lift) == 0
    assert "theorykit: note" not in capsys.readouterr().err     # estimated at a few seconds: quiet
    doc = json.loads((out / "exhaust.json").read_text())
    assert doc["estimate"]["rk4_steps"] == 5 and doc["estimate"]["seconds"] > 0.001


def test_a_long_race_says_its_estimate_before_it_starts(capsys, tmp_path, monkeypatch):
    # k = 3 at --steps 32000: 39 races of 8 000 RK4 steps (4 × the 2 000 counted above), estimated at
    # 39 · 8000 · (24 · 77² · 24 / 3e10 + RK4_FAMILY_STEP_S) s = 36 s of steps and arithmetic: over the 10 s from
    # which a race says its estimate (derive's rule). The race is stopped as it starts: the note must be out by then.
    def stop(*a, **kw):
        raise SpecError("--k", "stopped at the race's start", "none")
    monkeypatch.setattr(ex, "race_rk4", stop)
    assert main(["race-exhaust", "--k", "3", "--steps", "32000", "--no-progress", "--out", str(tmp_path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0].startswith("theorykit: note: race-exhaust: estimated ")
    assert "(39 races of 8000 RK4 steps each, in 1 engine call; a CPU's estimate" in lines[0]
    assert lines[-1].startswith("theorykit: error in --k: stopped at the race's start")
