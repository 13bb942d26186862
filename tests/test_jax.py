"""Lambdified code survives jax.jit, jax.vmap and jax.grad in float64, with no math.* fallback."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.theory.jaxify import NotJaxSafe, to_jax
from theorykit.theory.trajectory import a0, mode_trajectory, t, tau

s, d = sp.symbols("s d", positive=True)


def test_trajectory_jit_vmap_grad_float64():
    f = to_jax(mode_trajectory(s, d), [t, s, d, a0, tau])
    ts = jnp.linspace(0.0, 1e7, 9)
    out = jax.jit(jax.vmap(f, in_axes=(0, None, None, None, None)))(ts, 0.5, 0.25, 1e-3, 100.0)
    assert out.dtype == jnp.float64 and bool(jnp.all(jnp.isfinite(out)))
    assert float(out[-1]) == pytest.approx(2.0, rel=1e-14)       # end point s/d at large t: no inf/inf
    # d a / d s at t: compare with a central finite difference (float64)
    g = jax.grad(f, argnums=1)(300.0, 0.5, 0.25, 1e-3, 100.0)
    h = 1e-6
    fd = (f(300.0, 0.5 + h, 0.25, 1e-3, 100.0) - f(300.0, 0.5 - h, 0.25, 1e-3, 100.0)) / (2 * h)
    assert float(g) == pytest.approx(float(fd), rel=1e-6)
    # tiny a0 and huge t: finite values (no inf/inf) and finite gradients, no NaN
    vals = jax.vmap(f, in_axes=(0, None, None, None, None))(ts, 0.5, 0.25, 1e-300, 1.0)
    assert bool(jnp.all(jnp.isfinite(vals))) and float(vals[-1]) == pytest.approx(2.0)
    grads = jax.vmap(jax.grad(f, argnums=(0, 1, 2, 3)), in_axes=(0, None, None, None, None))(ts, 0.5, 0.25, 1e-12, 1.0)
    assert all(bool(jnp.all(jnp.isfinite(x))) for x in grads)


def test_mode_with_nothing_to_learn_under_jit_vmap_grad():
    """s = 0 inside a JAX transform: the value is the ODE's own solution a0/(1 + 2 d a0 t/τ) (by hand, as
    in test_trajectory_core), and ∂a/∂s there is the s¹ coefficient of SymPy's series of the closed form,
    checked against a central finite difference of the logistic form at s = ±h. No NaN anywhere."""
    from theorykit.theory.trajectory import mode_gap
    d_, a_, t_, tau_ = 2.0, 0.01, 30.0, 1.0
    traj = lambda s_: mode_trajectory(s_, d_, a_, t_, tau_, jnp.exp)                   # noqa: E731
    gap = lambda s_: mode_gap(s_, d_, a_, t_, tau_, jnp.exp)                            # noqa: E731
    hand = a_ / (1 + 2 * d_ * a_ * t_ / tau_)                                           # 0.01/2.2
    vals = jax.jit(jax.vmap(traj))(jnp.array([0.0, 0.5]))
    assert float(vals[0]) == pytest.approx(hand, rel=1e-14) and bool(jnp.isfinite(vals[1]))
    series = sp.series(mode_trajectory(s, d), s, 0, 2).removeO().coeff(s, 1)
    slope = float(series.subs({d: d_, a0: a_, t: t_, tau: tau_}))
    h = 1e-5
    logistic = lambda s_: (s_ / d_) / (1 + (s_ / (d_ * a_) - 1) * np.exp(-2 * s_ * t_ / tau_))  # noqa: E731
    assert slope == pytest.approx((logistic(h) - logistic(-h)) / (2 * h), rel=1e-6)
    grads = jax.vmap(jax.grad(traj))(jnp.array([0.0, 0.5]))
    assert float(grads[0]) == pytest.approx(slope, rel=1e-12) and bool(jnp.all(jnp.isfinite(grads)))
    assert float(jax.grad(gap)(0.0)) == pytest.approx(1 / d_ - slope, rel=1e-12)      # gap = s/d − a
    assert float(jax.jit(gap)(0.0)) == pytest.approx(-hand, rel=1e-14)
    # the time derivative at s = 0 is the ODE's right-hand side −2 d a²/τ
    assert float(jax.grad(lambda x: mode_trajectory(0.0, d_, a_, x, tau_, jnp.exp))(t_)) == \
        pytest.approx(-2 * d_ * hand ** 2 / tau_, rel=1e-12)


def test_derived_loss_function_survives_transforms():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=0.01)))
    L = der.loss_function({"Delta": 0.7})
    ts = jnp.linspace(0, 5000, 11)
    vals = jax.jit(jax.vmap(L))(ts)
    assert vals.dtype == jnp.float64 and bool(jnp.all(jnp.diff(vals) <= 1e-15))
    dL = jax.vmap(jax.grad(L))(ts)
    assert bool(jnp.all(jnp.isfinite(dL))) and bool(jnp.all(dL <= 0))
    # the values, by hand (docs/theory.md#xor): each pathway of the linear ReLN has s = Δ/2, d = Δ²/2 and
    # its output on its two datapoints is ±aΔ, so L = ½(1 − Δa)² with the logistic
    # a(t) = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}), τ = 1/η = 100 (mean loss), a0 = 10⁻³ (the default).
    # With c = 1/(Δ a0) − 1 and r = e^{−Δt/τ}: Δa = 1/(1 + cr), 1 − Δa = cr/(1 + cr) (no cancellation in the
    # tail), L = ½ (cr/(1 + cr))², and dL/dt = −Δ(1 − Δa)·ȧ with τ ȧ = 2a(s − d a) = aΔ(1 − Δa):
    # dL/dt = −(Δ/τ)·Δa·(1 − Δa)²
    Dv, a0v, tauv = 0.7, 1e-3, 100.0
    cr = (1 / (Dv * a0v) - 1) * np.exp(-Dv * np.asarray(ts) / tauv)
    gap, Da = cr / (1 + cr), 1 / (1 + cr)
    # loss_function is the expanded form ½ tr Σy − Σ (s a − ½ d a²) in floats: a few ulp of L(0) absolute
    # (tests/test_gap_loss.py), so the tail far below L(0) is held absolutely. Measured (CPU): 2.6e-15 (L)
    # and 1.1e-15 (dL/dt) relative where L ≥ 10⁻³ L(0); 3.7e-18 of L(0) and 4.5e-16 of max |dL/dt| absolute
    hand, dhand = 0.5 * gap ** 2, -(Dv / tauv) * Da * gap ** 2
    np.testing.assert_allclose(np.asarray(vals), hand, rtol=1e-13, atol=1e-16 * hand[0])
    np.testing.assert_allclose(np.asarray(dL), dhand, rtol=1e-13, atol=1e-14 * np.abs(dhand).max())
    assert float(vals[-1]) < 1e-3 * float(vals[0])                  # the window covers the learning
    # and w.r.t. a symbol kept as an argument
    D = der.task.symbols["Delta"]
    LD = to_jax(der.loss.subs({tau: 100, a0: 1e-3}), [t, D])
    g = jax.grad(LD, argnums=1)(1000.0, 0.7)
    assert np.isfinite(float(g))
    # ∂L/∂Δ by hand at t = 1000: with r = e^{−2st/τ}, a = 1/(Δ(1 + (1/(Δ a0) − 1) r)) (s/d = 1/Δ, s/(d a0) =
    # 1/(Δ a0)) and s = Δ/2 in the exponent; its derivative against a central difference of that formula
    # (numpy, float64: h = 1e-6 leaves ~1e-11 relative, measured 2e-11)
    def L_hand(x):
        r = np.exp(-2 * (x / 2) * 1000.0 / 100.0)
        a_ = 1 / (x * (1 + (1 / (x * 1e-3) - 1) * r))
        return 0.5 * (1 - x * a_) ** 2
    h = 1e-6
    assert float(g) == pytest.approx((L_hand(0.7 + h) - L_hand(0.7 - h)) / (2 * h), rel=1e-8)


def test_refuses_piecewise_and_math_fallback():
    x = sp.Symbol("x")
    with pytest.raises(NotJaxSafe):
        to_jax(sp.Piecewise((x, x > 0), (0, True)), [x])
    with pytest.raises(NotJaxSafe):
        to_jax(x + sp.Symbol("y"), [x])
    # a function SymPy's JAX printer does not know falls back to a non-jax name: refused
    with pytest.raises(NotJaxSafe):
        to_jax(sp.lowergamma(x, 2), [x])


# -------------------------------------------------------------------------------------------------
# every public route from SymPy to JAX under jit, vmap and grad together, against references that do
# not go through the lambdified code: SymPy's own derivative evaluated by sp.N at 30 digits, mpmath
# from s and d written out by hand, and central finite differences
# -------------------------------------------------------------------------------------------------
def _sp_values(expr, var, points, subs):
    return np.array([float(sp.N(expr.subs({**subs, var: sp.Float(p, 30)}), 30)) for p in points])


def test_to_jax_scalar_jit_vmap_grad_against_sympy_at_30_digits():
    expr = mode_trajectory(s, d)
    f = to_jax(expr, [t, s, d, a0, tau])
    ts = np.array([0.0, 50.0, 300.0, 1000.0, 5000.0])
    args = {s: sp.Rational(1, 2), d: sp.Rational(1, 4), a0: sp.Rational(1, 1000), tau: 100}
    vm = (0, None, None, None, None)
    vals = jax.jit(jax.vmap(f, in_axes=vm))(ts, 0.5, 0.25, 1e-3, 100.0)
    np.testing.assert_allclose(vals, _sp_values(expr, t, ts, args), rtol=1e-14)
    for var, argnum in ((t, 0), (s, 1), (a0, 3)):
        g = jax.jit(jax.vmap(jax.grad(f, argnums=argnum), in_axes=vm))(ts, 0.5, 0.25, 1e-3, 100.0)
        want = np.array([float(sp.N(sp.diff(expr, var).subs({**args, t: sp.Float(x, 30)}), 30)) for x in ts])
        np.testing.assert_allclose(g, want, rtol=1e-12, atol=1e-15 * np.max(np.abs(want)))


def test_loss_function_jit_vmap_grad_against_mpmath_by_hand():
    """The XoR ReLN's loss, Derivation.loss_function: four modes with s = √(Δ²+2)/4, d = (Δ²+2)/4
    (docs/theory.md#xor), L = ½ − 4(s a − ½ d a²), dL/dt = −4 · 2a(s − d a)²/τ (τ = 100), in mpmath."""
    import mpmath

    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3)))
    L = der.loss_function({"Delta": 1.6})
    ts = np.linspace(0.0, 3000.0, 13)
    vals = np.asarray(jax.jit(jax.vmap(L))(ts))
    dL = np.asarray(jax.jit(jax.vmap(jax.grad(L)))(ts))
    with mpmath.workdps(50):
        D = mpmath.mpf(1.6)
        s_, d_ = mpmath.sqrt(D ** 2 + 2) / 4, (D ** 2 + 2) / 4
        want, dwant = [], []
        for x in ts:
            a = (s_ / d_) / (1 + (s_ / (d_ * mpmath.mpf("0.001")) - 1) * mpmath.exp(-2 * s_ * x / 100))
            want.append(float(mpmath.mpf(1) / 2 - 4 * (s_ * a - d_ * a * a / 2)))
            dwant.append(float(-4 * 2 * a * (s_ - d_ * a) ** 2 / 100))
    np.testing.assert_allclose(vals, want, rtol=1e-13, atol=4e-16)      # the expanded form: ulp of L(0)
    np.testing.assert_allclose(dL, dwant, rtol=1e-10, atol=1e-18)
    h = 1e-2                                                              # and a finite difference
    fd = (np.asarray(jax.vmap(L)(ts + h)) - np.asarray(jax.vmap(L)(ts - h))) / (2 * h)
    np.testing.assert_allclose(dL, fd, rtol=1e-5, atol=1e-12)


def test_to_jax_matrix_jit_vmap_jacobian_against_sympy():
    x, y = sp.symbols("x y")
    M = sp.Matrix([[sp.exp(-x) * y, sp.sqrt(x ** 2 + 1)], [sp.log(1 + y ** 2), x * y]])
    f = to_jax(M, [x, y])
    xs = np.array([0.0, 0.5, 2.0])
    got = jax.jit(jax.vmap(f, in_axes=(0, None)))(xs, 0.7)
    want = np.stack([np.array(M.subs({x: sp.Float(v, 30), y: sp.Float(0.7, 30)}).evalf(30), float) for v in xs])
    np.testing.assert_allclose(got, want, rtol=1e-14)
    J = jax.jit(jax.vmap(jax.jacfwd(f, argnums=0), in_axes=(0, None)))(xs, 0.7)
    dM = M.diff(x)
    wantJ = np.stack([np.array(dM.subs({x: sp.Float(v, 30), y: sp.Float(0.7, 30)}).evalf(30), float) for v in xs])
    np.testing.assert_allclose(J, wantJ, rtol=1e-13, atol=1e-15)
    g = jax.grad(lambda a: jnp.sum(f(a, 0.7)))(0.5)                      # grad through the matrix form
    assert float(g) == pytest.approx(float(sum(dM.subs({x: 0.5, y: 0.7}).evalf(30))), rel=1e-13)


def test_to_jax_with_crootof_jit_vmap_grad():
    """A CRootOf (an exact root with no JAX translation) is evaluated to 30 digits before printing."""
    x, z = sp.symbols("x z")
    r = sp.CRootOf(z ** 3 - z - 1, 0)                                    # the plastic number 1.3247…
    expr = r * sp.exp(-r * x)
    f = to_jax(expr, [x])
    xs = np.array([0.0, 0.3, 2.0])
    np.testing.assert_allclose(jax.jit(jax.vmap(f))(xs), _sp_values(expr, x, xs, {}), rtol=1e-14)
    np.testing.assert_allclose(jax.jit(jax.vmap(jax.grad(f)))(xs), _sp_values(sp.diff(expr, x), x, xs, {}),
                               rtol=1e-14)
