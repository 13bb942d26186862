"""A fuzz and misuse campaign on the day's changes (session 122): Trajectory.loss_at's span check, the
race_dt checks of race-exhaust and predict_reln, realisable_patterns' keywords. Each test failed before its fix."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, strategies as st

import theorykit as tk
from theorykit.analysis import exhaust
from theorykit.analysis.patterns import realisable_patterns
from theorykit.errors import SpecError
from theorykit.record import Trajectory


def _line():
    # a hand-built record: t = 0 and 10, loss 1 and 0 (one member)
    return Trajectory(t=np.array([0.0, 10.0]), loss=np.array([[1.0, 0.0]]), saved={}, saved_t=np.array([]))


@pytest.mark.parametrize("when", [np.inf, -np.inf, [5.0, np.inf]])
def test_loss_at_an_infinite_time_names_no_record_there(when):
    """Was: 'record to inf: … e.g. SaveAt(ts=[…, inf])', a fix naming a time no run can record."""
    with pytest.raises(SpecError) as info:
        _line().loss_at(when)
    assert info.value.field == "times"
    assert "inf" not in info.value.fix.replace("infinite", "")
    assert info.value.fix == "ask within 0 … 10, or drop the infinite times"


@pytest.mark.parametrize("when", ["5", "abc", True, [True, False], 5 + 0j, None, np.datetime64(1, "s")])
def test_loss_at_refuses_what_is_not_a_time(when):
    """Was: '5' and True were read as the times 5 and 1 (loss 0.5 and 0.9), 'abc' a raw ValueError, 5+0j a raw
    TypeError; None read as NaN."""
    with pytest.raises(SpecError) as info:
        _line().loss_at(when)
    assert info.value.field == "times" and "is not a time" in info.value.problem
    assert info.value.fix == "give real numbers, e.g. loss_at(5.0) or loss_at([0.0, 5.0])"


def test_loss_at_a_time_past_any_float_is_refused_by_name():
    """Was: 10**400 (a Python int) a raw OverflowError."""
    with pytest.raises(SpecError) as info:
        _line().loss_at(10 ** 400)
    assert info.value.field == "times" and "outside the recording span 0 … 10" in info.value.problem
    assert info.value.fix == "ask within 0 … 10"


def test_loss_at_still_reads_numbers_of_any_real_kind():
    # by hand: the line from (0, 1) to (10, 0): t = 5 gives 0.5, t = 2.5 gives 0.75; the fix's own example works
    tr = _line()
    assert tr.loss_at(np.float32(5.0)) == 0.5 and tr.loss_at(np.int64(5)) == 0.5
    assert tr.loss_at([[0, 5], [10, 2.5]]).tolist() == [[1.0, 0.5], [0.0, 0.75]]
    assert tr.loss_at([]).tolist() == [] and tr.loss_at(10 ** 1).tolist() == 0.0
    assert tr.loss_at(5.0) == 0.5 and tr.loss_at([0.0, 5.0]).tolist() == [1.0, 0.5]


# ---------------------------------------------------------------------------------------------------
# race_dt: a small one hung race_steps_bounds (race-exhaust, predict_reln); a huge one named the wrong fix
# ---------------------------------------------------------------------------------------------------
def _counted(ok, most=2000):
    """``ok`` that fails the test past ``most`` calls (the old search stepped one by one: billions of calls)."""
    calls = [0]

    def wrapped(t):
        calls[0] += 1
        if calls[0] > most:
            raise AssertionError(f"_largest called its test more than {most} times")
        return ok(t)
    return wrapped


@pytest.mark.parametrize("bound, guess", [(10 ** 9, 4e18), (4 * 10 ** 18 - 5, 1e3), (0, 1e30), (-1, 1e18),
                                          (123_456_789_012, 1e30)])
def test_largest_finds_a_far_bound_in_few_calls(bound, guess):
    """Was: from a guess far above the bound it stepped down by a factor 1 − 1e-9 a step, from one below it up by
    one a step: hours (race-exhaust --race-dt 1e-10 hung in race_steps_bounds). By definition the answer is the
    largest t >= 0 with t <= bound, -1 when bound < 0."""
    assert exhaust._largest(_counted(lambda t: t <= bound), guess) == bound


def test_largest_stops_at_its_cap_where_every_count_passes():
    # the records' test with a record every 6.25e11 steps passes every count up to past 4e18: was an endless loop
    assert exhaust._largest(_counted(lambda t: True), 1e30) == 4 * 10 ** 18


@given(st.integers(-1, 400), st.floats(0, 1e4, allow_nan=False))
def test_largest_agrees_with_a_plain_scan(bound, guess):
    # a second method: scan 0, 1, 2, … while the test holds
    ok = (lambda t: t <= bound)
    scan = -1
    while ok(scan + 1):
        scan += 1
    assert exhaust._largest(ok, guess) == scan


def test_race_exhaust_with_a_tiny_race_dt_is_bounded_not_hung(monkeypatch):
    """race_steps_bounds(s_max=4, τ=62.5, race_dt=1e-10): τ/race_dt = 6.25e11 steps per RK4 step. The records'
    bound: a record every 625 000 000 000 steps, at most 10**7 records: past the 4e18 cap (hung before). The RK4
    bound: 2e6 steps of 6.25e11 = 1.25e18 (float rounding moves it by < 1e-15 relative). The rate's bound is
    race_dt's alone to keep: by hand 2e6 steps of τ/(40 s_max) = 62.5/160 = 0.390625, i.e. 781 250."""
    count = _counted(lambda x: x, most=10 ** 4)         # the calls of the records' and the budget's tests
    every, budget = exhaust.every_count, exhaust.within_budget
    monkeypatch.setattr(exhaust, "every_count", lambda *a: count(every(*a)))
    monkeypatch.setattr(exhaust, "within_budget", lambda *a: count(budget(*a)))
    b = exhaust.race_steps_bounds(4.0, 62.5, 1e-10)
    assert b["records"] == 4 * 10 ** 18 and b["rate"] == 781_250
    assert abs(b["rk4"] - 1.25e18) < 1e3


def test_predict_reln_names_race_dt_where_no_step_fits():
    """Was: race_dt=1e308 said 'lower training.steps to at most 0', a value training.steps refuses. Following the
    fix (race_dt=10) is accepted."""
    task, tr = tk.xor_margin(0.5), tk.Training(lr=0.05, steps=2000)
    with pytest.raises(SpecError) as info:
        tk.predict_reln(task, 8, tr, race_dt=1e308, progress=False)
    assert info.value.field == "race_dt" and "too short for even one step" in info.value.problem
    assert info.value.fix == "a smaller race_dt, e.g. race_dt=10 (the default)"
    assert len(tk.predict_reln(task, 8, tr, race_dt=10, progress=False).widths) >= 1


# ---------------------------------------------------------------------------------------------------
# realisable_patterns: max_patterns and seed, named in Python's words like samples=
# ---------------------------------------------------------------------------------------------------
_X = np.array([[1.0, 0, 1, 0], [0, 1, 1, 0], [1, 1, 1, 1]])


@pytest.mark.parametrize("bad", [0, -1, True, float("nan"), "5", 10 ** 30 + 0.5])
def test_realisable_patterns_checks_max_patterns(bad):
    """Was: max_patterns 0, -1, NaN and True ran (the sampled search ignores it), '5' a raw TypeError."""
    with pytest.raises(SpecError) as info:
        realisable_patterns(_X, method="sample", max_patterns=bad, samples=100)
    assert info.value.field == "max_patterns"
    assert info.value.fix == "a positive number of patterns, e.g. max_patterns=4096"
    realisable_patterns(_X, method="sample", max_patterns=4096, samples=100)    # the fix's value is accepted


@pytest.mark.parametrize("bad", [-1, True, float("nan"), 2 ** 32])
def test_realisable_patterns_checks_seed(bad):
    """Was: seed=-1 a raw ValueError from numpy, NaN a raw TypeError, True and 2**32 ran."""
    with pytest.raises(SpecError) as info:
        realisable_patterns(_X, method="sample", seed=bad, samples=100)
    assert info.value.field == "seed" and info.value.fix == "give a whole number from 0 to 4294967295, e.g. seed=0"
    realisable_patterns(_X, method="sample", seed=0, samples=100)


def test_realisable_patterns_refuses_data_that_is_not_finite():
    """Was: a NaN input a raw LinAlgError (SVD did not converge)."""
    with pytest.raises(SpecError) as info:
        realisable_patterns(np.array([[np.nan, 1.0]]), method="sample")
    assert info.value.field == "X"


def test_predict_reln_gives_the_python_fix_for_max_patterns():
    with pytest.raises(SpecError) as info:
        tk.predict_reln(tk.xor_margin(0.5), 8, tk.Training(lr=0.05, steps=2000), max_patterns=0, progress=False)
    assert info.value.field == "max_patterns"
    assert info.value.fix == "a positive number of patterns, e.g. max_patterns=4096"
