"""The gap form of the closed-form loss (Derivation.predict_loss, flow and discrete=True;
theorykit.theory.trajectory.mode_gap / discrete_mode_gap) at its edges, against mpmath.

The reference is the expanded form L = ½ tr Σy − Σ_α (s a − ½ d a²) with a(t) the logistic (or, for
gradient descent, the recurrence a ← a (1 + (s − d a)/τ)²), evaluated at 120 digits from s and d
written out by hand (docs/theory.md#xor): the XoR ReLN's four pathways have s = √(Δ² + 2)/4 and
d = (Δ² + 2)/4, the linear ReLN's two have s = Δ/2 and d = Δ²/2; on xor_margin ½ tr Σy = ½, and each
pathway removes s²/2d (1/8 and 1/4), so nothing is left at the end: the tail is all gap. At 120 digits
the expanded form keeps ~100 digits of a loss down to 1e-20 of L(0), so it checks the gap form there
without sharing its algebra."""
import mpmath
import numpy as np
import pytest
import sympy as sp

import theorykit as tk

DPS = 120


def _flow(modes, half_trace, a0, tau, times):
    with mpmath.workdps(DPS):
        a0, tau = mpmath.mpf(a0), mpmath.mpf(tau)
        out = []
        for t in times:
            L = mpmath.mpf(half_trace)
            for s, d in modes:
                a = (s / d) / (1 + (s / (d * a0) - 1) * mpmath.exp(-2 * s * mpmath.mpf(t) / tau))
                L -= s * a - d * a * a / 2
            out.append(L)
        return out


def _discrete(modes, half_trace, a0, tau, times):
    with mpmath.workdps(DPS):
        a0, tau = mpmath.mpf(a0), mpmath.mpf(tau)
        steps = int(max(times))
        traj = []
        for s, d in modes:
            a, row = a0, []
            for _ in range(steps + 1):
                row.append(a)
                a = a * (1 + (s - d * a) / tau) ** 2
            traj.append(row)
        return [mpmath.mpf(half_trace) - sum(s * row[int(t)] - d * row[int(t)] ** 2 / 2
                                             for (s, d), row in zip(modes, traj)) for t in times]


def _xor_modes(delta):
    with mpmath.workdps(DPS):
        D = mpmath.mpf(delta)
        return [(mpmath.sqrt(D ** 2 + 2) / 4, (D ** 2 + 2) / 4)] * 4


def _linear_modes(delta):
    with mpmath.workdps(DPS):
        D = mpmath.mpf(delta)
        return [(D / 2, D ** 2 / 2)] * 2


def _check(got, ref, L0, tail=1e-28):
    """Relative 1e-12 where the loss is above 1e-20 of L(0) (digits kept far below the start); below,
    at most ``tail``·L(0) and never negative (a loss is a sum of squares)."""
    got = np.asarray(got)
    for g, r in zip(got, ref):
        if r > mpmath.mpf(1e-20) * L0:
            assert g == pytest.approx(float(r), rel=1e-12), (g, float(r))
        else:
            assert 0 <= g <= tail * L0 + float(r) * (1 + 1e-12), (g, float(r))


@pytest.mark.parametrize("built_with_values", [False, True])
@pytest.mark.parametrize("delta", [0.3, 1])
def test_xor_tail_far_below_the_start_and_at_huge_t(delta, built_with_values):
    """A symbolic derivation given Δ at prediction (Δ = 0.3 a float), and one built at Δ (the exact
    engine's modes): the tail below 1e-16 of L(0), and t = 1e12 (the --times bound), where the
    loss is 0 up to 1e-28 of L(0), not the ±1e-17 that s and d in floats left of ½ tr Σy − Σ s²/2d."""
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3))
    times = [0, 500, 2000, 4000, 6000, 1e5, 1e12]
    if built_with_values:
        got = tk.Derivation(spec, values={"Delta": delta}).predict_loss(times)
    else:
        got = tk.Derivation(spec).predict_loss(times, values={"Delta": delta})
    ref = _flow(_xor_modes(delta), 0.5, 1e-3, 100, times)
    assert ref[3] < 1e-18 and ref[4] < 1e-30                       # the window reaches far below 1e-16
    _check(got, ref, 0.5)


def test_discrete_xor_tail_at_an_irrational_s():
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3))
    times = [0, 100, 1000, 3000, 5000]
    got = tk.Derivation(spec, values={"Delta": 1}).predict_loss(times, discrete=True)
    ref = _discrete(_xor_modes(1), 0.5, 1e-3, 100, times)
    assert ref[-1] < 1e-30
    _check(got, ref, 0.5)


def test_start_above_the_end_point():
    """a0 = 3 above s/d = 1 (linear ReLN, Δ = 1): the gap s/d − a is negative, c = s/(d a0) − 1 = −2/3,
    and a falls to s/d; L(0) = ½ − 2 (s a0 − ½ d a0²) = 2. Flow and gradient descent."""
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=0.01, a0=3.0))
    der = tk.Derivation(spec, values={"Delta": 1})
    times = [0, 1, 10, 100, 500, 2000, 4000]
    flow = der.predict_loss(times)
    ref = _flow(_linear_modes(1), 0.5, 3, 100, times)
    assert float(ref[0]) == pytest.approx(2.0, rel=1e-15) and np.all(np.diff(flow) < 0)
    _check(flow, ref, 2.0)
    gd = der.predict_loss(times, discrete=True)
    _check(gd, _discrete(_linear_modes(1), 0.5, 3, 100, times), 2.0)


def test_tiny_singular_value():
    """One datapoint x = 1, y = 10⁻⁸: s = 10⁻⁸, d = 1, so the end point s/d = 10⁻⁸ lies below a0 = 10⁻³
    (negative gap) and the mode decays, nearly as τ ȧ = −2 d a² (hyperbolically), on a time scale
    τ/(2s) = 5·10⁹ steps; ½ tr Σy = s²/2d = 5·10⁻¹⁷ is all removed. L(0) = ½ (y − a0)² ~ 5·10⁻⁷."""
    y = sp.Rational(1, 10 ** 8)
    task = tk.Task(sp.Matrix([[1]]), sp.Matrix([[y]]))
    spec = tk.GDLNSpec(task, [tk.Pathway("p", "all", "all", "all", 1)], tk.Training(lr=0.01, a0=1e-3))
    der = tk.Derivation(spec)
    times = [0, 1e3, 1e5, 1e8, 1e10, 1e11, 1e12]
    got = der.predict_loss(times)
    with mpmath.workdps(DPS):
        s = mpmath.mpf(1) / 10 ** 8
        ref = _flow([(s, mpmath.mpf(1))], s * s / 2, 1e-3, 100, times)
    L0 = float(ref[0])
    assert L0 == pytest.approx(0.5 * (1e-8 - 1e-3) ** 2, rel=1e-14)
    _check(got, ref, L0)
    gd = der.predict_loss([0, 10, 1000, 5000], discrete=True)
    with mpmath.workdps(DPS):
        _check(gd, _discrete([(s, mpmath.mpf(1))], s * s / 2, 1e-3, 100, [0, 10, 1000, 5000]), L0)


def test_summed_loss_is_P_times_the_mean_at_tau_one_over_P_eta():
    """loss = "sum" on xor_margin (P = 4): τ = 1/(Pη) = 25 and the loss is P times the mean form."""
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3, loss="sum"))
    der = tk.Derivation(spec, values={"Delta": 1})
    times = [0, 100, 500, 1000, 1500, 1e12]
    ref = [4 * L for L in _flow(_xor_modes(1), 0.5, 1e-3, 25, times)]
    _check(der.predict_loss(times), ref, 2.0)
    gd_times = [0, 100, 500, 1000, 1500]
    ref_gd = [4 * L for L in _discrete(_xor_modes(1), 0.5, 1e-3, 25, gd_times)]
    _check(der.predict_loss(gd_times, discrete=True), ref_gd, 2.0)


@pytest.mark.parametrize("reln,delta", [("xor", 0.3), ("xor", 1.6), ("linear", 0.7), ("linear", 2.5)])
def test_gap_form_equals_the_expanded_form_where_the_loss_is_not_tiny(reln, delta):
    """Where L ≥ 10⁻³ L(0) the gap form is the expanded form ½ tr Σy − Σ (s a − ½ d a²) at 120 digits,
    to (2u + 10)·ε relative (ε = 2⁻⁵², u = 2 s t/τ): e^{−u} in floats carries u·ε from the rounding
    of u (its condition number is u) and L ∝ g², so ~1e-15 near the start, 2.3e-15 measured at u ≈ 9.
    Against the expanded form in floats (the symbolic loss lambdified to JAX, loss_function)
    everywhere to 4e-15 of L(0): that form's own rounding at the scale of ½ tr Σy (a few ulp of L(0))
    and the u·ε above, so under 1e-14 relative where L ≥ ½ L(0)."""
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()[reln], tk.Training(lr=0.01, a0=1e-3))
    der = tk.Derivation(spec)
    times = np.linspace(0, 3000, 61)
    got = der.predict_loss(times, values={"Delta": delta})
    modes = _xor_modes(delta) if reln == "xor" else _linear_modes(delta)
    ref = np.array([float(r) for r in _flow(modes, 0.5, 1e-3, 100, times)])
    big = ref >= 1e-3 * ref[0]
    assert big.sum() > 5 and (~big).sum() > 5                       # both regimes in the window
    u = 2 * max(float(sm) for sm, _ in modes) * times / 100
    rtol = (2 * u + 10) * 2.0 ** -52
    assert np.all(np.abs(got - ref)[big] <= rtol[big] * ref[big]), np.max(np.abs(got / ref - 1)[big] / rtol[big])
    old = np.asarray(der.loss_function({"Delta": delta})(times))
    assert np.max(np.abs(got - old)) <= 4e-15 * ref[0]

