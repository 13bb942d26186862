"""An ML researcher's hour with the simulation side (h135): the defects it found, each pinned here."""
from __future__ import annotations

import numpy as np

from theorykit.analysis.summary import plot
from theorykit.record import Trajectory


def _traj(loss_curve):
    t = np.arange(loss_curve.size, dtype=float)
    loss = np.stack([loss_curve, loss_curve * (1 + 1e-3)])      # two seeds
    return Trajectory(t=t, loss=loss, saved={}, saved_t=np.zeros(0, int))


def test_plot_loss_axis_is_log_where_the_loss_spans_decades():
    """`simulate --plot` / tk.plot: a loss that falls from 0.5 to ~1e-14 (here 0.5·exp(−t/100) over 3000
    steps, written by hand: 0.5·e^−30 ≈ 4.7e-14) was drawn on a linear axis, a flat line at 0 after
    the drop; it is drawn on a log scale now. A loss within a decade (0.5 to
    0.3) stays linear."""
    t = np.arange(3001.0)
    fig = plot(sim=_traj(0.5 * np.exp(-t / 100)))
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "loss"
    fig = plot(sim=_traj(0.5 - 0.2 * t / 3000))
    assert fig.axes[0].get_yscale() == "linear" and fig.axes[0].get_ylabel() == "loss"
