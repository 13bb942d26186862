"""What a run records and what it returns, for gradient descent and for the flows alike.

:class:`SaveAt` says what is recorded, and every run takes it: the trainer
(:func:`theorykit.sim.engine.train`), the flow integrator (:func:`theorykit.theory.flow.integrate`)
and the race (:meth:`theorykit.theory.race.RaceSystem.solve`). Every run returns one
:class:`Trajectory`. :func:`check_finite` is the divergence check.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import numpy as np

from .errors import DivergenceError, SpecError
from .io import counted, log_if_spanning, lone_markers, png_bytes, subplots

__all__ = ["SaveAt", "Trajectory", "check_finite", "checked_save", "every_count"]


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
    """None, or a :class:`~theorykit.errors.DivergenceError` naming ``what`` and ``lr`` where a loss curve
    (``loss``: batch × times, or one curve) is non-finite or ends above ten times its start. ``what``
    True (``check=True``, as ``simulate`` takes it) reads "training"."""
    what = "training" if what is True else what
    loss = np.atleast_2d(loss)
    if (~np.isfinite(loss)).any() or (loss[:, -1] > 10 * loss[:, 0] + 1e-12).any():
        raise DivergenceError(f"{what} diverged with lr={lr} (loss became non-finite or grew tenfold); "
                              "lower training.lr")


def checked_save(save) -> "SaveAt":
    """``save``, which every run takes as a :class:`SaveAt` (the trainer, the flows, ``simulate``):
    anything else, a list of steps included, is refused naming ``save``."""
    if not isinstance(save, SaveAt):
        raise SpecError("save", f"needs a SaveAt, got {type(save).__name__}",
                        "e.g. save=SaveAt(ts=[0, 100], fns={...}) (theorykit.record.SaveAt)")
    return save


#: the most recording times an ``every`` grid may have (their times alone are 80 MB; each recorded
#: value takes as much again per network or family): more is a mistaken ``every``
MAX_RECORDS = 10_000_000


def every_count(every: float, t_end: float) -> float:
    """The recording times of an ``every`` grid up to ``t_end`` before its last, as :meth:`SaveAt.times`
    counts them against :data:`MAX_RECORDS`: t_end/every, less a relative 1e-12 (the ratio's rounding error
    grows with it: 115000 / 2.3 is 50000 + 7e-12)."""
    return t_end / every * (1 - 1e-12)


def _round_up(x: float) -> str:
    """``x`` (> 0) rounded up to one significant figure, as a fix suggests it: 1234.5 -> ``2000``."""
    if not x > 0:
        return "1"
    e = math.floor(math.log10(x))
    return f"{math.ceil(x / 10 ** e) * 10 ** e:g}"


@dataclass(frozen=True)
class SaveAt:
    """What a run records, as diffrax's ``SaveAt``: the same object for gradient descent and flows.

    ``ts``: the times at which each function in ``fns`` is recorded: gradient steps for the
    trainer, flow time for :func:`~theorykit.theory.flow.integrate` and
    :meth:`~theorykit.theory.race.RaceSystem.solve`. ``every``: instead of ``ts``, record at 0,
    ``every``, 2·``every``, … below the end of the run, and the end itself (a flow's ``t_end``, the
    trainer's last step): a curve recorded so covers the run's horizon exactly (at most
    :data:`MAX_RECORDS` times; for the trainer's whole steps an ``every`` below 1 is every step). ``fns``: name → ``fn(state, data)``, the trainer's
    ``fn(params, data)`` or a flow's ``fn(y, args)``, any pytree (a race records its loss and modes
    itself). ``loss_every``: the trainer's loss curve every that many steps (and at the last step;
    0: none); a flow records its loss at the recording times. ``final``: keep the final state.
    """

    ts: Sequence[float] = ()
    every: float | None = None
    fns: Mapping[str, Callable] = field(default_factory=dict)
    loss_every: int = 1
    final: bool = True

    def __post_init__(self):
        if np.size(self.ts) and self.every is not None:     # refused where it is made, whoever runs it
            raise SpecError("save", "both ts and every are given", "pass SaveAt(ts=[...]) or SaveAt(every=...), not both")
        le = self.loss_every
        if isinstance(le, bool) or not isinstance(le, (int, np.integer)) or le < 0:
            raise SpecError("save.loss_every", f"needs a whole number of steps >= 0, got {le!r}",
                            "e.g. SaveAt(loss_every=10); 0 records no loss curve")

    def loss_steps(self, steps: int) -> np.ndarray:
        """The steps of the trainer's loss curve over a run of ``steps``: 0, ``loss_every``,
        2·``loss_every``, … and the last step (none with ``loss_every=0``)."""
        if not self.loss_every:
            return np.zeros(0, int)
        return np.unique(np.append(np.arange(0, steps + 1, self.loss_every), steps))

    def times(self, t_end=None, *, integer: bool = False) -> np.ndarray:
        """The recording times, checked: ``ts`` (finite, ≥ 0, sorted unless ``integer``: the
        trainer sorts its steps and drops repeats), or the ``every`` grid up to ``t_end``."""
        if self.every is not None:
            # a finite number > 0 (every=inf recorded the end alone, not t = 0; every="3" was a TypeError)
            ev = self.every
            if isinstance(ev, bool) or not isinstance(ev, numbers.Real) or not math.isfinite(ev) or not (
                    ev > 0 and t_end is not None and np.isfinite(t_end) and t_end >= 0):
                raise SpecError("save.every", f"needs a finite every > 0 and an end time >= 0 (got every={self.every!r}, "
                                              f"end={t_end})", "e.g. SaveAt(every=10) with t_end=1000")
            # whole steps: an every below 1 records every step, as every=1 does (each step is within
            # every/2 < 1/2 of a multiple); the grid is made of every=1 then, not of t_end/every points
            ev = max(float(ev), 1.0) if integer else float(ev)
            # the multiples of `every` below t_end, then t_end; a relative tolerance, as the ratio's
            # rounding error grows with it (115000 / 2.3 is 50000 + 7e-12). Counted as a float first:
            # every=1e-300 asked numpy for 1e303 times ("Maximum allowed size exceeded"), 1e-10 for 73 TiB
            count = every_count(ev, t_end)
            if not count <= MAX_RECORDS:
                raise SpecError("save.every", f"every={self.every!r} up to {t_end:g} is {count:.3g} recording times, "
                                              f"more than {MAX_RECORDS:,}",
                                f"a larger every, e.g. SaveAt(every={_round_up(t_end / 1000)}) for about 1000 points")
            n = int(math.ceil(count))
            ts = np.append(np.arange(n) * ev, float(t_end))
            if integer:
                return np.unique(np.minimum(np.round(ts).astype(int), int(t_end)))
            return ts
        try:
            ts = np.asarray(self.ts, float)
        except (TypeError, ValueError):
            ts = np.full(1, np.nan)
        if ts.ndim != 1 or ts.size == 0 or not np.isfinite(ts).all() or (ts < 0).any():
            raise SpecError("save.ts", f"recording times must be a non-empty list of finite times >= 0, got "
                                       f"{np.ravel(self.ts).tolist()[:8]}", "the run starts at t = 0: drop negative or infinite times")
        if integer:
            if (ts != np.round(ts)).any() or (t_end is not None and (ts > t_end).any()):
                raise SpecError("save.ts", f"steps to record must be whole steps in 0..{t_end}", "drop the others")
            return np.unique(ts.astype(int))
        if (np.diff(ts) < 0).any():
            raise SpecError("save.ts", "a flow records at sorted times", "sort them (RaceSystem.solve sorts them for you)")
        return ts


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
            raise SpecError("save.fns", "this run recorded no loss curve",
                            "record a function named \"loss\" (a flow: SaveAt(fns={\"loss\": ...})), or keep "
                            "SaveAt.loss_every > 0 (training)")
        return np.asarray(self.loss)

    def loss_at(self, times, batch: int = 0) -> np.ndarray:
        """The loss of member ``batch`` at ``times`` (in any order), each within the recording span (the first to
        the last recording time): the recorded loss at a recording time, linear interpolation between two (a
        coarse record interpolates coarsely: record more often, a smaller ``SaveAt.every`` or ``loss_every``,
        where the curve bends between records). A time outside the span (or not finite) is refused naming
        ``times``: the run says nothing there (it held the end values once, as if the curve were flat)."""
        curves = self._curve()
        n = curves.shape[0]
        if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or not -n <= batch < n:
            raise SpecError("batch", f"{batch!r} is not a member of this run ({counted(n, 'member')}: " + ("0)" if n == 1 else f"0 … {n - 1})"),
                            "give a member's index, e.g. batch=0, or use .mean")
        loss = curves[batch]
        t = np.asarray(self.t, float)
        order = np.argsort(t, kind="stable")
        lo, hi = float(t[order[0]]), float(t[order[-1]])
        raw = np.asarray(times)
        if raw.dtype.kind == "O" and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in raw.flat):
            try:                                # ints past a float (10**400): an OverflowError
                raw = raw.astype(float)
            except OverflowError:
                raise SpecError("times", f"{str(times)[:40]}… is past the largest float, outside the recording span "
                                         f"{lo:g} … {hi:g}", f"ask within {lo:g} … {hi:g}") from None
        if raw.dtype.kind not in "iuf":         # strings, booleans, complex, None: refused, not converted
            raise SpecError("times", f"{str(times)[:60]!r} is not a time or a list of times (a {type(times).__name__})",
                            "give real numbers, e.g. loss_at(5.0) or loss_at([0.0, 5.0])")
        at = raw.astype(float)
        outside = ~((at >= lo) & (at <= hi))                # NaN is outside too
        if outside.any():
            bad = np.ravel(at[outside])
            late, early = bad[(bad > hi) & np.isfinite(bad)], bad[(bad < lo) & np.isfinite(bad)]
            fix = [f"ask within {lo:g} … {hi:g}"]
            if late.size:
                fix.append(f"record to {late.max():g}: a longer run (the trainer's steps, a flow's t_end) with a SaveAt "
                           f"whose ts or every covers it, e.g. SaveAt(ts=[…, {late.max():g}])")
            if early.size and early.min() >= 0:
                fix.append(f"record from {early.min():g}: SaveAt(ts=[{early.min():g}, …])")
            if np.isnan(bad).any():
                fix.append("drop the NaN times")
            if np.isinf(bad).any():         # no run records at ±inf: the fix names no SaveAt there
                fix.append("drop the infinite times")
            raise SpecError("times", f"{bad[0]:g}{f' (and {bad.size - 1} more)' if bad.size > 1 else ''} is outside "
                                     f"the recording span {lo:g} … {hi:g}: the run recorded nothing there",
                            ", or ".join(fix) + ("; a run starts at t = 0" if early.size and early.min() < 0 else ""))
        return np.interp(at, t[order], loss[order])

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
        # one time is "t 0 (1 time)", not "t 0…0 (1 times)"
        lo_hi = f"{t.min():g}" if t.size == 1 else f"{t.min():g}…{t.max():g}"
        span = f"t {lo_hi} ({counted(t.size, 'time')})" if t.size else "no times"
        if self.loss is None or not np.size(self.loss):
            loss = "no loss"
        else:
            m = np.asarray(self.loss).mean(axis=0)
            order = np.argsort(t, kind="stable")
            loss = f"loss {float(np.ravel(m[order])[0]):.4g} → {float(np.ravel(m[order])[-1]):.4g} (batch mean)"
        return f"Trajectory(batch {self.batch}, {span}, {loss}; saved: {', '.join(self.saved) or 'nothing'})"

    def _repr_png_(self):
        """In Jupyter: the loss curve, mean ± std over the batch (drawn without pyplot, so the
        notebook's own backend is left as it is), on a log scale where it spans more than three decades."""
        if self.loss is None or not np.size(self.loss):
            return None
        fig, ax = subplots(figsize=(5.5, 3.5))
        order = np.argsort(self.t, kind="stable")
        t, m, s = np.asarray(self.t)[order], self.mean[order], self.std[order]
        B = self.loss.shape[0]
        if B > 1:
            ax.fill_between(t, m - s, m + s, color="C0", alpha=0.25, lw=0)
        ax.plot(t, m, color="C0", label=f"loss, mean ± std over {B}" if B > 1 else "loss", **lone_markers(m))
        # a flow of the integrator runs in its own time; training and the race count steps (τ = 1/η)
        ax.set_xlabel("t" if "solver" in self.extra and "blocks" not in self.extra else "step")
        ax.set_ylabel("loss")
        log_if_spanning(ax)     # a loss spanning decades: its end is a flat line at 0 on a linear axis
        ax.legend(fontsize=8)
        fig.tight_layout()
        return png_bytes(fig, dpi=90)
