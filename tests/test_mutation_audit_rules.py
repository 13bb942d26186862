"""Tests written by the mutation audit of the core formulas: each one kills a small, plausible wrong
change that the rest of the suite let through (the mutation is named in the test's docstring). Golden
numbers come from a hand derivation or from mpmath/SymPy written here, never from the code under test."""
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from theorykit.theory.trajectory import mode_gap


# ------------------------------------------------------------------------------------------------
# mode_gap with an exp that is neither numpy's nor JAX's (math.exp, sp.exp): the logistic's own form
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("s, d, a0, t, tau", [(0.5, 2.0, 1e-3, 3.0, 1.5), (1.3, 0.7, 0.02, 0.4, 2.0),
                                              (2.0, 1.0, 1e-4, 0.0, 1.0)])
def test_mode_gap_with_math_exp_is_the_end_point_minus_the_logistic(s, d, a0, t, tau):
    """mode_gap(..., exp=math.exp) takes the generic branch ``(s/d)·c e^{−u}/(1 + c e^{−u})``,
    c = s/(d a0) − 1, u = 2 s t/τ; numpy and JAX take other branches, so the mutations c = s/(d a0) + 1
    and u = s t/τ there survived every test. The golden: docs/theory.md#closed-form,
    a(t) = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}), and the gap s/d − a(t), in mpmath at 50 digits.
    By hand for the first case: s/d = 1/4, u = 2·0.5·3/1.5 = 2, c = 0.5/0.002 − 1 = 249, so the gap
    is ¼ − ¼/(1 + 249 e^{−2}) = ¼ · 249e^{−2}/(1 + 249e^{−2}) ≈ 0.24280. At t = 0 it is s/d − a0."""
    with mpmath.workdps(50):
        S, D, A0, T, TAU = (mpmath.mpf(repr(x)) for x in (s, d, a0, t, tau))
        a = (S / D) / (1 + (S / (D * A0) - 1) * mpmath.exp(-2 * S * T / TAU))
        want = float(S / D - a)
    got = mode_gap(s, d, a0, t, tau, math.exp)
    assert got == pytest.approx(want, rel=1e-13)
    if t == 0:
        assert got == pytest.approx(s / d - a0, rel=1e-13)
    if (s, d, a0, t, tau) == (0.5, 2.0, 1e-3, 3.0, 1.5):
        assert got == pytest.approx(0.25 * 249 * math.exp(-2) / (1 + 249 * math.exp(-2)), rel=1e-13)


def test_mode_gap_with_sympy_exp_solves_the_gap_ode():
    """With SymPy symbols and ``exp=sp.exp`` the gap g = s/d − a obeys the mode ODE τ ȧ = 2a(s − d a)
    (docs/theory.md#mode-ode) rewritten for g: τ ġ = −τ ȧ = −2 (s/d − g)(s − d(s/d − g)) = −2 d g (s/d − g),
    and starts at g(0) = s/d − a0. Both are checked exactly (SymPy simplifies the residuals to 0)."""
    s, d, a0, t, tau = sp.symbols("s d a0 t tau", positive=True)
    g = mode_gap(s, d, a0, t, tau, sp.exp)
    assert sp.simplify(tau * sp.diff(g, t) + 2 * d * g * (s / d - g)) == 0
    assert sp.simplify(g.subs(t, 0) - (s / d - a0)) == 0
    # and it vanishes in saturation: the end point is s/d
    assert sp.limit(g.subs({s: 1, d: 2, a0: sp.Rational(1, 100), tau: 1}), t, sp.oo) == 0


# ------------------------------------------------------------------------------------------------
# the contexts suite (Section 4): the race starts each pathway at the a0 rule of its own GDLN std
# ------------------------------------------------------------------------------------------------
def test_contexts_suite_race_starts_each_pathway_at_the_a0_rule_of_its_own_init_std(monkeypatch):
    """section4 trains its GDLNs with std 10b on the common pathway and 20b on the context pathways
    (b = 0.0005/700), and races them from a0 by rule. Swapping the two a0 (the common pathway at the
    context pathways' 20b and back) survived every test (the contexts suite's tests take minutes and
    compare only its verdicts). The golden is the a0 rule by hand (docs/theory.md#a0-rule): two layers
    of std σ and width H start at a0 = ¼(σ²H + σ²H) = σ²H/2, so with H = 50: common
    (10b)²·50/2 = 2500 b², context (20b)²·50/2 = 10000 b², and each pathway's a0 is σ_p²H/2 of the
    std its own GDLN was given. The networks and the race are stubbed: only the pairing is checked."""
    import theorykit.analysis.context_runs as cr

    class _Stop(Exception):
        pass

    seen = {"stds": {}}
    steps, gh = 4, 50

    def relu_run(X, Y, **kw):
        return np.ones((kw["seeds"], steps + 1)), None

    def gdln_run(spec, *, init_std, **kw):
        seen["stds"].update(init_std)
        return np.ones((kw["seeds"], steps + 1)), None

    def race(spec, cfg, a0, **kw):
        seen["a0"] = dict(zip([p.name for p in spec.pathways], np.asarray(a0, float).tolist()))
        raise _Stop

    monkeypatch.setattr(cr, "_relu_run", relu_run)
    monkeypatch.setattr(cr, "_gdln_run", gdln_run)
    monkeypatch.setattr(cr, "suite_race", race)
    cfg = {"seeds": 1, "sec4_blocks": ["hierarchy", "ring", "cross"], "relu_hidden4": 8, "steps": steps, "snap_every": steps, "eta": 0.01,
           "gdln_hidden": gh, "staged_families": []}

    class _Progress:
        def update(self, *a, **k):
            pass

    with pytest.raises(_Stop):
        cr.section4(cfg, _Progress())
    b = 0.0005 / 700
    a0 = seen["a0"]
    assert a0["common"] == pytest.approx(2500 * b ** 2, rel=1e-12)
    others = [v for name, v in a0.items() if name != "common"]
    assert others and all(v == pytest.approx(10000 * b ** 2, rel=1e-12) for v in others)
    assert seen["stds"]["common"] == pytest.approx(10 * b, rel=1e-12)
    for name, v in a0.items():                  # each pathway's a0 is σ_p² H/2 of its own GDLN std
        assert v == pytest.approx(seen["stds"][name] ** 2 * gh / 2, rel=1e-12)
