"""Closed forms of a derivation evaluated over a grid of one task symbol (the xor suite's Δ).

A derivation with a symbol x left free (``theorykit.derivations.xor_crossover``: Δ) gives, per
ReLN, the mode's s(x) and d(x), its total loss L(t; x, a0, τ) and its half-loss time
t½(x, a0, τ). Here they are lambdified once and evaluated on a grid of x:

* :class:`ClosedFormGrid` -- L(t) on a grid of x and times (one a0 per grid point);
* :func:`half_loss_time_grid` -- t½ on the grid (NaN where the mode does not move);
* :func:`values_on_grid` and :func:`vectors_on_grid` -- a scalar (s, d) or a vector (u, v) on the grid;
* :func:`discrete_loss_grid` -- the loss of k equal modes under the exact discrete gradient-descent
  recurrence (:func:`theorykit.theory.trajectory.discrete_mode_recurrence`);
* :func:`fit_a0_grid` -- per grid point, the a0 whose closed form best fits a simulated curve.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from theorykit.curves import fit_log_scale
from theorykit.spec.expr import exact_float
from theorykit.theory.trajectory import a0 as A0_SYM
from theorykit.theory.trajectory import mode_loss_reduction, t as T_SYM, tau as TAU_SYM

__all__ = ["ClosedFormGrid", "half_loss_time_grid", "values_on_grid", "vectors_on_grid", "discrete_loss_grid",
           "fit_a0_grid"]


class ClosedFormGrid:
    """Closed-form loss L(t) of one ReLN on a grid of the symbol ``x`` (numpy, lambdified once).

    ``loss``: L(t; x, a0, τ) in the trajectory symbols; ``s``: the mode's singular value s(x);
    ``initial_loss``: L(0). Where s = 0 the mode does not move and L stays at L(0)."""

    def __init__(self, loss, s, initial_loss, x):
        self.f = sp.lambdify((T_SYM, x, A0_SYM, TAU_SYM), loss, "numpy")
        self.s = sp.lambdify(x, s, "numpy")
        self.L_zero = float(initial_loss)

    def __call__(self, xs, times, a0, tau):
        xs = np.asarray(xs, float)
        a0 = np.broadcast_to(np.asarray(a0, float), xs.shape)[:, None]
        s_vals = np.asarray([float(self.s(x)) for x in xs])
        with np.errstate(all="ignore"):
            L = np.asarray(self.f(np.asarray(times, float)[None, :], xs[:, None], a0, tau), float)
            L0 = np.asarray(self.f(np.zeros((1, 1)), xs[:, None], a0, tau), float)
        L = np.broadcast_to(L, (xs.size, np.size(times)))
        L0 = np.where(np.isfinite(L0), L0, self.L_zero)
        still = (s_vals <= 1e-15)[:, None] | ~np.isfinite(L)
        return np.where(still, L0, L)


def half_loss_time_grid(expr, x, xs, a0, tau) -> np.ndarray:
    """Closed-form half-loss time ``expr`` (t½ in x, a0, τ; continuous time, in steps) on the grid ``xs``;
    NaN where it is not a finite positive number (e.g. s = 0)."""
    f = sp.lambdify((x, A0_SYM, TAU_SYM), expr, "numpy")
    out = []
    for v in xs:
        with np.errstate(all="ignore"):
            try:
                r = float(f(float(v), a0, tau))
            except (ZeroDivisionError, ValueError):
                r = float("nan")
        out.append(r if np.isfinite(r) and r > 0 else float("nan"))
    return np.asarray(out)


def values_on_grid(expr, x, xs, digits: int = 30) -> np.ndarray:
    """A scalar expression in x evaluated (at ``digits`` significant digits) on the grid ``xs``, each value
    then rounded once to the nearest double (:func:`~theorykit.spec.expr.exact_float`; ``float(sp.N(…))``
    evaluated at 15 digits first and was an ulp off now and then)."""
    return np.array([exact_float(expr.subs(x, sp.Float(v, digits))) for v in xs])


def vectors_on_grid(vec, x, xs) -> np.ndarray:
    """A column/row vector expression in x on the grid: len(xs) × its length (constant entries allowed)."""
    f = sp.lambdify(x, vec + 0 * sp.ones(*vec.shape) * x, "numpy")
    return np.stack([np.asarray(f(v), float).ravel() for v in xs])


def _step_rows(times) -> tuple[np.ndarray, np.ndarray]:
    """The distinct step counts in ``times``, sorted, and where each entry of ``times`` is among them.

    ``times`` may be in any order and repeat a step; each must be a whole number ≥ 0 (a float that is
    whole, such as ``np.arange(0, 3001, 10.0)``, is accepted)."""
    fix = "(fix: give the gradient steps at which to read the loss, e.g. np.arange(0, steps + 1, every))"
    try:
        t = np.asarray(times, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"times: expected numbers, got {times!r} {fix}") from None
    if t.ndim != 1 or t.size == 0:
        raise ValueError(f"times: expected a non-empty 1-D array of step counts, got shape {t.shape} {fix}")
    bad = ~np.isfinite(t) | (t < 0) | (t != np.round(t))
    if bad.any():
        raise ValueError(f"times: {t[bad][0]!r} is not a whole number of steps ≥ 0 {fix}")
    return np.unique(t.astype(np.int64), return_inverse=True)


def discrete_loss_grid(s_vals, d_vals, a0, tau, times, k: int, half_trace: float) -> np.ndarray:
    """Loss of ``k`` equal modes (s, d per grid point) under the discrete recurrence from a0, at the
    step counts ``times`` (whole numbers ≥ 0, in any order): ``half_trace − k (s a − d a²/2)``
    (``half_trace`` = ½ tr Σyy). Returns an array of shape (grid points, len(times)).

    The recurrence is :func:`theorykit.theory.trajectory.discrete_mode_recurrence`'s (``a`` carried with
    its gap ``g = s/d − a``; ``d = 0``: ``a ← a (1 + s/τ)²``), with the same floating-point operations in
    the same order, but stepped for every grid point at once (one numpy step per time step, not one
    Python loop per grid point): at η/8 over a full run's 64,000 steps it was the xor suite's slowest
    part. Not bit for bit: the square (1 + step)² is numpy's x·x, where the per-point loop's scalar
    power rounds differently about once in a thousand steps; the two agree to 1e-12 relative
    (measured 5e-16; tests/test_xor_contexts_referee_rules.py checks it against the per-point loop).
    Only the rows at the asked steps are kept (memory: grid points × distinct times, not × steps)."""
    wanted, where = _step_rows(times)
    s = np.asarray(s_vals, float).ravel()
    d = np.asarray(d_vals, float).ravel()
    flat = d == 0                      # no input variance (s = 0 too, e.g. XoR's linear ReLN at Δ = 0)
    live = ~flat
    rows = np.empty((wanted.size, s.size))      # a at the asked steps, one row per distinct step
    grow = (1.0 + s[flat] / tau) ** 2           # d = 0: a ← a (1 + s/τ)², the same factor every step
    a_flat = np.full(grow.size, float(a0))
    dl = d[live]                                # d > 0: a ← a (1 + step)², g ← g (1 − (a d/τ)(2 + step)),
    a = np.full(dl.size, float(a0))             # step = d g/τ
    g = s[live] / dl - a
    st, u, v = np.empty_like(a), np.empty_like(a), np.empty_like(a)
    for j, stop in enumerate(wanted):
        for _ in range(stop - (wanted[j - 1] if j else 0)):  # the per-point loop's operations, in its order
            np.multiply(a_flat, grow, out=a_flat)
            np.divide(np.multiply(dl, g, out=st), tau, out=st)                 # (s − d a)/τ = d g/τ
            np.multiply(np.divide(np.multiply(a, dl, out=v), tau, out=v), np.add(st, 2.0, out=u), out=v)
            np.multiply(g, np.subtract(1.0, v, out=v), out=g)
            np.multiply(a, np.square(np.add(st, 1.0, out=u), out=u), out=a)
        rows[j, flat], rows[j, live] = a_flat, a
    out = rows[where].T
    return half_trace - k * mode_loss_reduction(s[:, None], d[:, None], out)


def fit_a0_grid(cf: ClosedFormGrid, t_half, x, xs, times, tau, targets, s_vals, start):
    """Per grid point, the a0 whose closed form ``cf`` is closest (RMS) to ``targets[i]``
    (:func:`theorykit.curves.fit_log_scale`); points where s = 0 are skipped (a0 NaN, curve
    ``start[i]``, time NaN). Returns (a0, curves, half-loss times from ``t_half``)."""
    n = len(xs)
    a0s, curves, lts = np.full(n, np.nan), np.array(start), np.full(n, np.nan)
    for i, v in enumerate(xs):
        if s_vals[i] <= 1e-15:
            continue

        def curve(a0, v=v):
            return cf(np.array([v]), times, a0, tau)[0]

        a, _ = fit_log_scale(curve, targets[i])
        a0s[i] = a
        curves[i] = curve(a)
        lts[i] = half_loss_time_grid(t_half, x, np.array([v]), a, tau)[0]
    return a0s, curves, lts
