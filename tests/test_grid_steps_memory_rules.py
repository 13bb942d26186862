"""closed_grid.discrete_loss_grid: keeps only the asked steps, reads them in any order, refuses bad ones.

The xor suite steps the discrete gradient-descent recurrence of every grid point at once over up to
64,000 steps (η/8). It used to keep a at *every* step, twice over (the whole history, and a copy of
the live points' history): about 41 MB × 2 on the full grid, to read back a few hundred rows. It also
turned ``times`` into integers with ``astype(int)`` (2.5 → 2, silently) and read the run's length off
the last entry, so an unsorted ``times`` stepped too few steps.

Reference (independent of the code under test): for a balanced two-layer mode with a = b², one
gradient step of b is b ← b + (b/τ)(s − d b²), so a ← a (1 + (s − d a)/τ)² (docs/theory.md, "the mode
ODE", discretised), and the k equal modes' loss is ½ tr Σyy − k (s a − d a²/2). It is written below
as a plain Python loop per grid point.
"""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from theorykit.theory.closed_grid import discrete_loss_grid


def _reference(s, d, a0, tau, steps, k, half_trace):
    """Loss of k equal modes at each step in ``steps`` (any order), by the plain recurrence above."""
    out = np.empty((len(s), len(steps)))
    for p, (sp, dp) in enumerate(zip(s, d)):
        a, loss = float(a0), {}
        for n in range(int(max(steps)) + 1):
            loss[n] = half_trace - k * (sp * a - dp * a * a / 2)
            a = a * (1 + (sp - dp * a) / tau) ** 2
        out[p] = [loss[int(t)] for t in steps]
    return out


S = np.array([0.9, 0.5, 0.0, 0.3])
D = np.array([1.0, 0.25, 0.0, 0.0])          # the last two points have no input variance (d = 0)


def test_unsorted_and_repeated_steps_are_read_at_their_own_step():
    times = np.array([300.0, 0.0, 120.0, 300.0, 7.0])
    got = discrete_loss_grid(S, D, 1e-3, 20.0, times, 2, 0.5)
    want = _reference(S, D, 1e-3, 20.0, times, 2, 0.5)
    # two float64 orderings of the same recurrence over 300 steps: a few hundred ulps at most
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    # the unsorted reading equals the sorted one, column for column
    order = np.argsort(times, kind="stable")
    np.testing.assert_array_equal(got[:, order], discrete_loss_grid(S, D, 1e-3, 20.0, times[order], 2, 0.5))


def test_only_the_asked_steps_are_kept():
    # 40 grid points over 40,000 steps, read every 1,000: keeping a at every step costs 40,001 × 40 × 8 B
    # = 12.8 MB per copy; keeping the 41 asked rows costs 13 kB. The peak of numpy's allocations must
    # stay under 1 MB (tracemalloc counts numpy's buffers; this is a count of bytes, not a timing).
    s = np.linspace(0.1, 1.0, 40)
    d = np.full(40, 0.5)
    d[:5] = 0.0
    times = np.arange(0, 40_001, 1_000, dtype=float)
    tracemalloc.start()
    try:
        out = discrete_loss_grid(s, d, 1e-3, 400.0, times, 1, 0.5)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.shape == (40, 41)
    assert peak < 1_000_000, f"peak {peak / 1e6:.1f} MB: the whole history is kept"


@pytest.mark.parametrize("times, shown", [
    ([0, 10, -1], "-1.0"),
    ([0, 2.5, 10], "2.5"),
    ([0, float("nan")], "nan"),
    ([0, float("inf")], "inf"),
])
def test_a_step_that_is_not_a_whole_number_ge_0_is_named(times, shown):
    with pytest.raises(ValueError) as err:
        discrete_loss_grid(S, D, 1e-3, 20.0, times, 2, 0.5)
    msg = str(err.value)
    assert msg.startswith("times: ") and shown in msg and "fix:" in msg


@pytest.mark.parametrize("times", [[], [[0, 1], [2, 3]], ["a", "b"]])
def test_times_of_the_wrong_shape_or_kind_are_refused(times):
    with pytest.raises(ValueError, match=r"^times: .*fix:"):
        discrete_loss_grid(S, D, 1e-3, 20.0, times, 2, 0.5)
