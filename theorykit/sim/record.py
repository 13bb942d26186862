"""What a training run records (:class:`SaveAt`), what it returns (:class:`Trajectory`), and the check
that it did not diverge: shared by the plain engine and the fused kernel."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from ..errors import DivergenceError

__all__ = ["SaveAt", "Trajectory", "check_finite"]


def check_finite(loss: np.ndarray, what: str, lr):
    loss = np.atleast_2d(loss)
    if (~np.isfinite(loss)).any() or (loss[:, -1] > 10 * loss[:, 0] + 1e-12).any():
        raise DivergenceError(f"{what} diverged with lr={lr} (loss became non-finite or grew tenfold); "
                              "lower training.lr")


@dataclass(frozen=True)
class SaveAt:
    """What :func:`train` records.

    ``loss_every``: the loss curve every that many steps (and at the last step); 0: none.
    ``steps``: steps at which each function in ``fns`` is recorded (``fn(params, data)``: any
    pytree, e.g. outputs, hidden activity, the weights). ``final``: keep the final parameters.
    """

    loss_every: int = 1
    steps: Sequence[int] = ()
    fns: Mapping[str, Callable] = field(default_factory=dict)
    final: bool = True


@dataclass
class Trajectory:
    """Result of :func:`train`: ``loss[member, i]`` is the loss after ``t[i]`` steps;
    ``saved[name][member, j]`` the recorded function at ``saved_steps[j]``."""

    t: np.ndarray
    loss: np.ndarray
    saved_steps: np.ndarray
    saved: dict
    params: object = None
    devices: int = 1
