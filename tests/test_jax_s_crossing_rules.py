"""Rules from a numerics engineer closing the 0/0 in ``tk.to_jax`` where a mode's singular value s
vanishes at a symbol's value other than 0 (s = |Δ − 1|, |Δ² − ¼|, (Δ − 1)², or |R| for a real R), and
checking two singular values that cross.

A mode with s → 0 and d fixed has a = 1/(e^{−u}/a0 + (d/s)(1 − e^{−u})), u = 2st/τ, 0/0 at s = 0 (the
limit: a = a0/(1 + 2 d a0 t/τ)), and the loss holds s²(1 − a d/s)². SymPy writes such an s as Abs(...)
(Abs(Δ − 1) for targets 2·[[Δ − 1, 0], [0, 1]]): to_jax refused every such loss and trajectory
("lambdified code uses 'abs' from nowhere"), and its φ rewrite matched only s ∝ a symbol.

The task: targets 2·[[f(Δ), 0], [0, 1]] on the inputs I₂ (as in test_jax_small_s_rules): Σx = I/2,
Σyx = diag(f, 1), so one mode s = |f|, d = ½ and one s = 1, d = ½, and ½ tr Σy = f² + 1 (by hand).
Expected values: by hand at the zero of f, elsewhere mpmath at 50 digits of the paper's logistic form
a = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}) and loss ½ tr Σy − Σ (s a − ½ d a²), which share no code with
what theorykit prints. The loss depends on f through |f| (each mode starts at a0 along the target's
singular vectors, whose sign flips with f), so where f changes sign and ∂L/∂s ≠ 0 at s = 0 the loss has
a kink: the one-sided derivatives differ in sign, and at the zero itself JAX (d|x|/dx = 1 at 0) gives
the one from the side where the argument of the Abs SymPy prints is positive (|1 − Δ| prints as
Abs(Δ − 1))."""
import jax
import jax.numpy as jnp
import mpmath
import pytest
import sympy as sp

import theorykit as tk
from theorykit.theory.trajectory import a0, t, tau

A0, T, TAU = 1e-3, 100.0, 100.0
D = sp.Symbol("Delta", nonnegative=True)
R = sp.Symbol("R", real=True)


def _der(sym, f, *more):
    task = tk.Task(sp.eye(2), 2 * sp.Matrix([[f, 0], [0, 1]]), {x.name: x for x in (sym, *more)})
    return tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 8, 2),),
                                     tk.Training(lr=0.01, a0=A0)))


def _varying_mode(der):
    (i,) = [k for k, m in enumerate(der.modes["p"].modes) if m.s != 1]
    assert der.modes["p"].modes[i].d == sp.Rational(1, 2)
    return der.trajectories["p"][i]


def _logistic(s, a_, t_, tau_, d=mpmath.mpf("0.5")):
    return (s / d) / (1 + (s / (d * a_) - 1) * mpmath.exp(-2 * s * t_ / tau_))


def _paper_loss(fy, a_=mpmath.mpf("0.001"), t_=mpmath.mpf(T), tau_=mpmath.mpf(TAU)):
    """½ tr Σy − Σ (s a − ½ d a²) = f² + 1 − Σ (s a − a²/4), s = |f| and 1, d = ½."""
    L = fy ** 2 + 1
    for s in (abs(fy), mpmath.mpf(1)):
        a = _logistic(s, a_, t_, tau_)
        L -= s * a - a * a / 4
    return L


def _hand_at_s_zero(a_=A0, t_=T, tau_=TAU):
    """At s = 0, d = ½: a = a0/(1 + a0 t/τ) (τ ȧ = 2a(0 − a/2)); ∂a/∂s = a² (t²/τ² + 2t/(τ a0)) (from
    a = 1/G, G = (t/τ) φ(u) + e^{−u}/a0, u = 2st/τ, φ′(0) = −½: ∂G/∂s = −t²/τ² − (2t/τ)/a0).
    ∂L/∂s = −(a + (s − d a) ∂a/∂s) = −a + (a/2) ∂a/∂s (the f² of ½ tr Σy has derivative 2f = 0 there).
    The other mode: a1 = 2/(1 + (2/a0 − 1) e^{−2t/τ}); L = 1 − (a1 − a1²/4) + a²/4."""
    a = a_ / (1 + a_ * t_ / tau_)
    a_s = a * a * (t_ ** 2 / tau_ ** 2 + 2 * t_ / (tau_ * a_))
    with mpmath.workdps(50):
        a1 = float(_logistic(mpmath.mpf(1), mpmath.mpf(a_), mpmath.mpf(t_), mpmath.mpf(tau_)))
    return {"a": a, "a_s": a_s, "L": 1 - (a1 - a1 * a1 / 4) + a * a / 4, "L_s": -a + a / 2 * a_s}


def _batched(f, xs):
    """Value, ∂/∂x and ∂²/∂x² of f(x, a0, t, τ) over a batch of x, under jit and vmap."""
    return jax.jit(jax.vmap(lambda x: (f(x, A0, T, TAU), jax.grad(f)(x, A0, T, TAU),
                                       jax.hessian(f)(x, A0, T, TAU))))(xs)


CASES = [(D, D - 1, 1.0), (D, 1 - D, 1.0), (R, R, 0.0)]      # (symbol, f, the zero x0 of f)


@pytest.mark.parametrize("sym,f,x0", CASES, ids=["Delta-1", "1-Delta", "R-real"])
def test_trajectory_where_s_vanishes_off_zero(sym, f, x0):
    """Was NotJaxSafe ('abs' from nowhere). At x0: the decaying limit, and ∂a/∂x = ±f′ ∂a/∂s by hand (one
    side's; which one follows the sign of the argument of the Abs SymPy prints); near x0 (±1e-12, ±1e-9) and farther, value, first and second
    derivatives under jit, vmap and grad against mpmath of the logistic form at 50 digits."""
    a = tk.to_jax(_varying_mode(_der(sym, f)), [sym, a0, t, tau])
    fprime = float(sp.diff(f, sym))
    h = _hand_at_s_zero()
    assert float(jax.jit(a)(x0, A0, T, TAU)) == pytest.approx(h["a"], rel=1e-14, abs=0)
    # a one-sided derivative: ±f′ ∂a/∂s (the side is where the Abs SymPy prints has a positive argument)
    assert abs(float(jax.jit(jax.grad(a))(x0, A0, T, TAU))) == pytest.approx(abs(fprime) * h["a_s"], rel=1e-12,
                                                                             abs=0)
    xs = [x0 - 1e-9, x0 - 1e-12, x0 + 1e-12, x0 + 1e-9, x0 - 0.3, x0 + 0.3]
    xa = jnp.array(xs)
    vals, grads, hess = _batched(a, xa)
    fm = sp.lambdify([sym], f, "mpmath")
    with mpmath.workdps(50):
        ref = lambda y: _logistic(abs(fm(y)), mpmath.mpf("0.001"), mpmath.mpf(T), mpmath.mpf(TAU))  # noqa: E731
        for x, v, g, hh in zip(xa, vals, grads, hess):
            y = mpmath.mpf(float(x))        # the float64 value itself: x0 ± 1e-12 is not exact in binary
            assert float(v) == pytest.approx(float(ref(y)), rel=1e-14, abs=0)
            assert float(g) == pytest.approx(float(mpmath.diff(ref, y)), rel=1e-10, abs=0)
            assert float(hh) == pytest.approx(float(mpmath.diff(ref, y, 2)), rel=1e-8, abs=0)


@pytest.mark.parametrize("sym,f,x0", CASES, ids=["Delta-1", "1-Delta", "R-real"])
def test_loss_where_s_vanishes_off_zero_has_the_kink_of_abs(sym, f, x0):
    """Was NotJaxSafe. At x0 the loss is the hand limit and ∂L/∂x = ±f′ ∂L/∂s (one side's); at x0 ± 1e-12
    the one-sided derivatives ±∂L/∂s (the kink of |f|) and the second derivatives, against mpmath."""
    L = tk.to_jax(_der(sym, f).loss, [sym, a0, t, tau])
    fprime = float(sp.diff(f, sym))
    h = _hand_at_s_zero()
    assert float(jax.jit(L)(x0, A0, T, TAU)) == pytest.approx(h["L"], rel=1e-14, abs=0)
    assert abs(float(jax.jit(jax.grad(L))(x0, A0, T, TAU))) == pytest.approx(abs(fprime * h["L_s"]), rel=1e-12,
                                                                             abs=0)
    xa = jnp.array([x0 - 1e-12, x0 + 1e-12, x0 - 1e-9, x0 + 0.5])
    vals, grads, hess = _batched(L, xa)
    # by hand: within 1e-12 of x0 the slope is ±L_s (to about 1e-12 · L″ ≈ 2e-12 of it)
    side = [1 if float(sp.N(f.subs(sym, float(x)))) > 0 else -1 for x in xa[:2]]
    for g, sg in zip(grads[:2], side):
        assert float(g) == pytest.approx(sg * fprime * h["L_s"], rel=1e-8, abs=0)
    fm = sp.lambdify([sym], f, "mpmath")
    with mpmath.workdps(50):
        ref = lambda y: _paper_loss(fm(y))          # noqa: E731
        for x, v, g, hh in zip(xa, vals, grads, hess):
            y = mpmath.mpf(float(x))
            assert float(v) == pytest.approx(float(ref(y)), rel=1e-14, abs=0)
            assert float(g) == pytest.approx(float(mpmath.diff(ref, y)), rel=1e-10, abs=0)
            assert float(hh) == pytest.approx(float(mpmath.diff(ref, y, 2)), rel=1e-8, abs=0)


def test_a_singular_value_vanishing_as_a_quadratic():
    """s = |Δ² − ¼| at Δ = ½ (the zero of an expression that is not a symbol times a number) and s =
    (Δ − 1)² (SymPy: Abs(Δ² − 2Δ + 1), smooth through its zero). By hand at the zero, with s′ and s″
    of the printed form (JAX's side of the Abs), the mode's part M(s) = −(s a − ½ d a²) of the loss has
    ∂M/∂Δ = L_s s′ and ∂²M/∂Δ² = M″ s′² + L_s s″; for (Δ − 1)² s′ = 0, s″ = 2 and ½ tr Σy = s² + 1 adds
    nothing at s = 0, so ∂L/∂Δ = 0 and ∂²L/∂Δ² = 2 L_s. Elsewhere (and M″) mpmath."""
    h = _hand_at_s_zero()
    # s = (Δ − 1)²
    L = tk.to_jax(_der(D, (D - 1) ** 2).loss, [D, a0, t, tau])
    (v,), (g,), (hh,) = _batched(L, jnp.array([1.0]))
    assert float(v) == pytest.approx(h["L"], rel=1e-14, abs=0)
    assert float(g) == 0.0
    assert float(hh) == pytest.approx(2 * h["L_s"], rel=1e-12, abs=0)
    # s = |Δ² − ¼|
    L = tk.to_jax(_der(D, D ** 2 - sp.Rational(1, 4)).loss, [D, a0, t, tau])
    with mpmath.workdps(50):
        def M(s):                   # one mode's part of the loss, −(s a − ½ d a²), analytic through s = 0
            a = _logistic(s, mpmath.mpf("0.001"), mpmath.mpf(T), mpmath.mpf(TAU))
            return -(s * a - a * a / 4)
        M_ss = float(mpmath.diff(M, mpmath.mpf("1e-30"), 2))
        ref = lambda y: _paper_loss(y * y - mpmath.mpf(1) / 4)                               # noqa: E731
        xs = [0.5, 0.5 + 1e-12, 0.5 - 1e-9, 0.8]
        vals, grads, hess = _batched(L, jnp.array(xs))
        assert float(vals[0]) == pytest.approx(h["L"], rel=1e-14, abs=0)
        assert float(grads[0]) == pytest.approx(h["L_s"], rel=1e-12, abs=0)      # s′ = 2Δ = 1
        # the mode: M″ s′² + M′ s″ = M″ + 2 L_s; ½ tr Σy = f² + 1 adds 2 f′² + 2 f f″ = 2 at f = 0
        assert float(hess[0]) == pytest.approx(M_ss + 2 * h["L_s"] + 2, rel=1e-10, abs=0)
        for x, g, hh in zip(xs[1:], grads[1:], hess[1:]):
            y = mpmath.mpf(x)
            assert float(g) == pytest.approx(float(mpmath.diff(ref, y)), rel=1e-10, abs=0)
            assert float(hh) == pytest.approx(float(mpmath.diff(ref, y, 2)), rel=1e-8, abs=0)


def test_the_rewrite_stays_inside_to_jax():
    """What SymPy shows and prints is the paper's form with Abs, no φ and no jnp: to_jax leaves it as it was."""
    der = _der(D, D - 1)
    tr = _varying_mode(der)
    before = (der.loss, tr, sp.latex(der.loss), sp.latex(tr))
    tk.to_jax(der.loss, [D, a0, t, tau])
    tk.to_jax(tr, [D, a0, t, tau])
    assert (der.loss, tr, sp.latex(der.loss), sp.latex(tr)) == before
    assert "phi" not in before[2] and sp.simplify(
        tr - (2 * sp.Abs(D - 1)) / (1 + (2 * sp.Abs(D - 1) / a0 - 1) * sp.exp(-2 * sp.Abs(D - 1) * t / tau))) == 0


def test_crossing_singular_values_with_fixed_singular_vectors_are_smooth():
    """Targets 2·[[Δ, 0], [0, 1]]: s = Δ and s = 1 cross at Δ = 1, but the singular vectors (e1, e2) do not
    depend on Δ, so the loss is smooth there (each mode has its own trajectory): value, first and second
    derivatives at Δ = 1 and 1 ± 1e-12 against mpmath of ½ tr Σy − Σ (s a − ½ d a²), ½ tr Σy = Δ² + 1."""
    L = tk.to_jax(_der(D, D).loss, [D, a0, t, tau])
    xa = jnp.array([1.0 - 1e-12, 1.0, 1.0 + 1e-12])
    vals, grads, hess = _batched(L, xa)
    with mpmath.workdps(50):
        for x, v, g, hh in zip(xa, vals, grads, hess):
            y = mpmath.mpf(float(x))
            assert float(v) == pytest.approx(float(_paper_loss(y)), rel=1e-14, abs=0)
            assert float(g) == pytest.approx(float(mpmath.diff(_paper_loss, y)), rel=1e-10, abs=0)
            assert float(hh) == pytest.approx(float(mpmath.diff(_paper_loss, y, 2)), rel=1e-8, abs=0)


def test_a_singular_value_that_is_a_product_of_vanishing_and_other_factors():
    """s = c|Δ − 1| (a second symbol c > 0; targets 2·[[c(Δ − 1), 0], [0, 1]]) and s = |R|³ (targets
    2·[[R³, 0], [0, 1]]): the loss's s²(1 − a d/s)² holds two factors (c and |Δ − 1|, or R² and |R|) to
    take into the bracket, and was NaN at the zero after the first. By hand at Δ = 1: L as above, ∂L/∂c = 0
    (s = 0 and c²(Δ − 1)² = 0 for every c), |∂L/∂Δ| = c L_s; at R = 0, s = |R|³ has s′ = s″ = 0 and
    ½ tr Σy = R⁶ + 1, so ∂L/∂R = ∂²L/∂R² = 0. Near the zeros, mpmath."""
    c = sp.Symbol("c", positive=True)
    h = _hand_at_s_zero()
    L = tk.to_jax(_der(D, c * (D - 1), c).loss, [D, a0, t, tau, c])
    g = jax.jit(jax.grad(L, argnums=(0, 4)))
    assert float(L(1.0, A0, T, TAU, 1.5)) == pytest.approx(h["L"], rel=1e-14, abs=0)
    gD, gc = g(1.0, A0, T, TAU, 1.5)
    assert abs(float(gD)) == pytest.approx(1.5 * abs(h["L_s"]), rel=1e-12, abs=0) and float(gc) == 0.0
    with mpmath.workdps(50):
        for x in (1 - 1e-12, 1 + 1e-9):
            y = mpmath.mpf(x)
            ref = lambda z, cc: _paper_loss(cc * (z - 1))        # noqa: E731
            gD, gc = g(x, A0, T, TAU, 1.5)
            assert float(gD) == pytest.approx(float(mpmath.diff(lambda z: ref(z, 1.5), y)), rel=1e-10, abs=0)
            # ∂L/∂c = |Δ − 1| ∂L/∂s is about 1e-15 at 1 − 1e-12; SymPy's ½ tr Σy = c²Δ² − 2c²Δ + c² + 1,
            # expanded, gives 2c(Δ² − 2Δ + 1) in float64 to a few ulp of 1 (absolute), not of (Δ − 1)²
            assert float(gc) == pytest.approx(float(mpmath.diff(lambda cc: ref(y, cc), mpmath.mpf(1.5))),
                                              rel=1e-10, abs=3 * 4 * 2.0 ** -52)
    L = tk.to_jax(_der(R, R ** 3).loss, [R, a0, t, tau])
    vals, grads, hess = _batched(L, jnp.array([0.0, 0.3, -0.3]))
    assert float(vals[0]) == pytest.approx(h["L"], rel=1e-14, abs=0)
    assert float(grads[0]) == 0.0 and float(hess[0]) == 0.0
    with mpmath.workdps(50):
        ref = lambda z: _paper_loss(z ** 3)                     # noqa: E731
        for x, v, gg, hh in zip((0.3, -0.3), vals[1:], grads[1:], hess[1:]):
            y = mpmath.mpf(x)
            assert float(v) == pytest.approx(float(ref(y)), rel=1e-14, abs=0)
            assert float(gg) == pytest.approx(float(mpmath.diff(ref, y)), rel=1e-10, abs=0)
            assert float(hh) == pytest.approx(float(mpmath.diff(ref, y, 2)), rel=1e-8, abs=0)
