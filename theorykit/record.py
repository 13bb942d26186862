"""What a run records and what it returns, for gradient descent and for the flows alike.

:class:`SaveAt` says what the trainer records (:func:`theorykit.sim.engine.train`); the flows take
their recording times and functions as arguments (:func:`theorykit.theory.flow.integrate`). Every
run returns one :class:`Trajectory`: the trainer, the flow integrator and the race
(:meth:`theorykit.theory.race.RaceSystem.solve`). :func:`check_finite` is the divergence check.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from .errors import DivergenceError, SpecError
from .io import png_bytes

__all__ = ["SaveAt", "Trajectory", "check_finite"]


def _leaves(x):
    if isinstance(x, Mapping):
        for v in x.values():
            yield from _leaves(v)
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from _leaves(v)
    elif x is not None:
        yield x


def check_finite(loss: np.ndarray, what: str, lr):
    loss = np.atleast_2d(loss)
    if (~np.isfinite(loss)).any() or (loss[:, -1] > 10 * loss[:, 0] + 1e-12).any():
        raise DivergenceError(f"{what} diverged with lr={lr} (loss became non-finite or grew tenfold); "
                              "lower training.lr")


@dataclass(frozen=True)
class SaveAt:
    """What :func:`~theorykit.sim.engine.train` records.

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
    """The result of a run: gradient descent or a flow, batched (ensemble members, seeds, families).

    ``loss[b, i]``: the loss of member ``b`` at ``t[i]`` (gradient steps, or flow time in the same
    units; None for a flow that recorded no ``loss``). ``saved[name]``: what was recorded, batch × len(``saved_t``) × …, at the times
    ``saved_t`` (a race: ``saved["modes"][pathway]``, each mode's strength u_αᵀ M_p v_α).
    ``params``: the final state with its batch axis, or None: a network's weights, a flow's state,
    a race's pathway maps (name → batch × outputs × inputs). ``extra``: what the run reports
    beside (``devices``; a flow's ``solver``, ``steps`` and ``h``; …).
    """

    t: np.ndarray
    loss: np.ndarray
    saved: dict
    saved_t: np.ndarray
    params: object = None
    extra: dict = field(default_factory=dict)

    def _curve(self) -> np.ndarray:
        if self.loss is None or not np.size(self.loss):
            raise SpecError("record", "this run recorded no loss curve",
                            "record a function named \"loss\" (a flow), or keep SaveAt.loss_every > 0 (training)")
        return np.asarray(self.loss)

    def loss_at(self, times, batch: int = 0) -> np.ndarray:
        """The loss of member ``batch`` at ``times``: linear interpolation between the recording
        times (in any order), and the first or last recorded loss outside them."""
        loss = self._curve()[batch]
        order = np.argsort(self.t, kind="stable")
        return np.interp(np.asarray(times, float), np.asarray(self.t, float)[order], loss[order])

    @property
    def mean(self) -> np.ndarray:
        """The loss curve's mean over the batch."""
        return self._curve().mean(axis=0)

    @property
    def std(self) -> np.ndarray:
        """The loss curve's standard deviation over the batch."""
        return self._curve().std(axis=0)

    @property
    def batch(self) -> int:
        """How many runs this holds (ensemble members, seeds, families)."""
        for x in (self.loss, self.saved, self.params):
            leaves = [v for v in _leaves(x) if np.ndim(v)]
            if leaves:
                return int(np.shape(leaves[0])[0])
        return 0

    def __repr__(self) -> str:
        t = np.asarray(self.t, float)
        span = f"t {t.min():g}…{t.max():g} ({t.size} times)" if t.size else "no times"
        if self.loss is None or not np.size(self.loss):
            loss = "no loss"
        else:
            m = np.asarray(self.loss).mean(axis=0)
            order = np.argsort(t, kind="stable")
            loss = f"loss {float(np.ravel(m[order])[0]):.4g} → {float(np.ravel(m[order])[-1]):.4g} (batch mean)"
        return f"Trajectory(batch {self.batch}, {span}, {loss}; saved: {', '.join(self.saved) or 'nothing'})"

    def _repr_png_(self):
        """In Jupyter: the loss curve, mean ± std over the batch (drawn without pyplot, so the
        notebook's own backend is left as it is)."""
        if self.loss is None or not np.size(self.loss):
            return None
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        fig = Figure(figsize=(5.5, 3.5))
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        order = np.argsort(self.t, kind="stable")
        t, m, s = np.asarray(self.t)[order], self.mean[order], self.std[order]
        B = self.loss.shape[0]
        if B > 1:
            ax.fill_between(t, m - s, m + s, color="C0", alpha=0.25, lw=0)
        ax.plot(t, m, color="C0", label=f"loss, mean ± std over {B}" if B > 1 else "loss")
        # a flow of the integrator runs in its own time; training and the race count steps (τ = 1/η)
        ax.set_xlabel("t" if "solver" in self.extra and "blocks" not in self.extra else "step")
        ax.set_ylabel("loss")
        ax.legend(fontsize=8)
        fig.tight_layout()
        return png_bytes(fig, dpi=90)
