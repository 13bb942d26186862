"""A fuzz and misuse campaign on the day's changes (session 122): Trajectory.loss_at's span check,
realisable_patterns' keywords, and find-gates --checkpoints' elbow estimate. Each test failed before its fix."""
from __future__ import annotations

import numpy as np
import pytest

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
