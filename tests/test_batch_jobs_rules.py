"""Rules that came from a cluster batch-job user (SLURM-style): stdout and stderr are files, not
terminals; a job's time limit sends SIGTERM and, a grace period later, SIGKILL; long runs record
their curves with ``SaveAt(every=...)``. Tiny sizes; a subprocess where a signal or a log file is
the point. No timing assertions (a subprocess limit is a hang detector only)."""
import math
import os

import numpy as np
import pytest

from theorykit.errors import SpecError
from theorykit.record import SaveAt

EX = os.path.join(os.path.dirname(__file__), "..", "examples")
XOR = os.path.join(EX, "xor_linear.toml")


# ------------------------------------------------------------------------------------------
# SaveAt(every=...): a tiny or huge grid is theorykit's own error on save.every
# ------------------------------------------------------------------------------------------
# Before: SaveAt(every=1e-300).times(1000) asked numpy for 1000 / 1e-300 = 1e303 recording times and
# stopped with numpy's "ValueError: Maximum allowed size exceeded" (every=1e-10: a MemoryError for
# 73 TiB; every=5e-324: OverflowError "cannot convert float infinity to integer"), naming no field.
# Now a SpecError on save.every that says how many times that is and suggests a larger every.
@pytest.mark.parametrize("every, t_end", [(1e-300, 1000), (1e-10, 1000), (5e-324, 1), (1.0, 1e300)])
def test_a_grid_of_too_many_recording_times_is_refused_on_save_every(every, t_end):
    with pytest.raises(SpecError, match="recording times") as exc:
        SaveAt(every=every).times(t_end)
    assert exc.value.field == "save.every"
    assert "larger every" in exc.value.fix


def test_a_race_with_a_tiny_every_is_refused_on_save_every():
    """The same through RaceSystem.solve (the flow's own grid), before any work."""
    import theorykit as tk
    from theorykit.theory.race import RaceSystem

    race = RaceSystem.from_spec(tk.load_spec(XOR), values={"Delta": 0.5})
    with pytest.raises(SpecError) as exc:
        race.solve(SaveAt(every=1e-300), t_end=100)
    assert exc.value.field == "save.every"


def test_whole_steps_with_an_every_below_one_record_every_step():
    """The trainer's grid is of whole steps: each step k lies within every/2 < 1/2 of a multiple of
    every (every < 1), so every step 0..t_end is recorded -- as every=1 records them (hand count:
    t_end + 1 steps). every=1e-300 used to stop as above; 0.5 gave the same steps already."""
    for every in (1e-300, 1e-9, 0.5, 1):
        np.testing.assert_array_equal(SaveAt(every=every).times(10, integer=True), np.arange(11))
    # a grid that is not tiny is as before: 0, 2.3, 4.6, … below 115000, then 115000 (50000 + 1 times)
    ts = SaveAt(every=2.3).times(115000)
    assert ts.size == 50001 and ts[-1] == 115000 and math.isclose(ts[-2], 49999 * 2.3)
    # a huge every: t = 0 and the end
    np.testing.assert_array_equal(SaveAt(every=1e300).times(1000), [0.0, 1000.0])
