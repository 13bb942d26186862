"""Records read outside their span, Python errors that name CLI options, and the estimate of
find-gates --checkpoints' elbow."""
from __future__ import annotations

import numpy as np
import pytest

from theorykit.errors import SpecError
from theorykit.record import Trajectory


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

