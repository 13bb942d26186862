"""Closed-form mode trajectories: ODE (symbolic and at random points), discrete recurrence, convergence order."""
import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.theory.trajectory import a0, discrete_mode_recurrence, mode_trajectory, t, t_half, tau

s, d = sp.symbols("s d", positive=True)


def test_closed_form_solves_its_ode_symbolically_and_numerically():
    a = mode_trajectory(s, d)
    resid = tau * sp.diff(a, t) - 2 * a * (s - d * a)
    assert sp.simplify(resid) == 0
    assert a.subs(t, 0).simplify() == a0
    rng = np.random.default_rng(1)
    f = sp.lambdify((t, s, d, a0, tau), resid, "mpmath")
    for _ in range(20):
        args = rng.uniform([0, 0.05, 0.05, 1e-4, 1], [500, 3, 3, 2, 200])
        assert abs(float(f(*args))) < 1e-12


def test_t_half_reaches_half_the_end_point():
    rng = np.random.default_rng(2)
    for _ in range(10):
        sv, dv, a0v, tv = rng.uniform(0.1, 2), rng.uniform(0.1, 2), 1e-3, rng.uniform(10, 100)
        th = float(t_half(s, d).subs({s: sv, d: dv, a0: a0v, tau: tv}))
        a = float(mode_trajectory(s, d).subs({s: sv, d: dv, a0: a0v, tau: tv, t: th}))
        assert a == pytest.approx(sv / dv / 2, rel=1e-10)


def test_discrete_recurrence_converges_to_flow_at_order_one():
    """diffrax-style order check: the gap between gradient descent and the flow is O(η)."""
    sv, dv, a0v = 0.6, 0.8, 1e-3
    T = 60.0  # flow time in units of τ·(steps) — fixed physical time, shrinking step
    errs = []
    for eta in [0.04, 0.02, 0.01, 0.005]:
        steps = int(round(T / eta))
        a_gd = discrete_mode_recurrence(sv, dv, a0v, 1.0 / eta, steps)
        ts = np.arange(steps + 1)
        a_flow = np.array([(sv / dv) / (1 + (sv / (dv * a0v) - 1) * np.exp(-2 * sv * k * eta)) for k in ts])
        errs.append(np.max(np.abs(a_gd - a_flow)))
    orders = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    assert np.all(np.abs(orders - 1.0) < 0.15), orders


def test_closed_form_is_monotone_and_bounded():
    a = sp.lambdify((t,), mode_trajectory(s, d).subs({s: 0.5, d: 0.25, a0: 1e-3, tau: 10}))
    ts = np.linspace(0, 1000, 500)
    vals = np.array([a(x) for x in ts])
    assert np.all(np.diff(vals) >= 0) and vals[0] == pytest.approx(1e-3) and vals[-1] <= 2.0 + 1e-12
    # above the end point it decays monotonically towards s/d
    a = sp.lambdify((t,), mode_trajectory(s, d).subs({s: 0.5, d: 0.25, a0: 3.0, tau: 10}))
    vals = np.array([a(x) for x in ts])
    assert np.all(np.diff(vals) <= 0) and vals[-1] >= 2.0 - 1e-12


def test_derivation_loss_is_the_sum_of_modes_and_starts_at_half_trace():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"]))
    D = der.task.symbols["Delta"]
    # at t = 0 with a0 -> 0 the loss is ½ tr Σy = ½ · (1/4) · 4 = 1/2 (labels ±1)
    L0 = sp.limit(der.loss.subs(t, 0), a0, 0)
    assert sp.simplify(L0 - sp.Rational(1, 2)) == 0
    # at t -> ∞ every xor pathway fits its point exactly: loss 0
    Linf = sp.limit(der.loss.subs({tau: 1, a0: sp.Rational(1, 1000), D: 1}), t, sp.oo)
    assert Linf == 0
