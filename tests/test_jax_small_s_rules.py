"""Rules from a numerics engineer closing the last 0/0 in the lambdified trajectories: a mode whose
singular value s goes to 0 while its input variance d stays fixed. Its trajectory
a = 1/(e^{−u}/a0 + (d/s)(1 − e^{−u})), u = 2st/τ, is 0/0 at s = 0 (inf·0 in JAX: NaN value and
gradient) and loses the digits of 1 − e^{−u} for tiny s, although the limit is finite:
(d/s)(1 − e^{−u}) = d (2t/τ) φ(u), φ(u) = (1 − e^{−u})/u, φ(0) = 1, φ′(0) = −½.

The task: targets 2·[[Δ, 0], [0, 1]] on the inputs I₂ (docs/api.md), one mode s = Δ, d = ½, one
s = 1, d = ½. Expected values: by hand at Δ = 0 (the mode ODE τ ȧ = 2a(s − d a) with s = 0:
a = a0/(1 + 2 d a0 t/τ)), elsewhere mpmath at 50 digits of the paper's logistic form
a = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}), which shares no code with what theorykit prints."""
import jax
import jax.numpy as jnp
import mpmath
import pytest
import sympy as sp

import theorykit as tk
from theorykit.theory.trajectory import a0, t, tau

D = sp.Symbol("Delta", nonnegative=True)
A0, T, TAU = 1e-3, 100.0, 100.0


@pytest.fixture(scope="module")
def der():
    task = tk.Task(sp.eye(2), 2 * sp.Matrix([[D, 0], [0, 1]]), {"Delta": D})
    return tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 8, 2),),
                                     tk.Training(lr=0.01, a0=A0)))


def _small_mode(der):
    (i,) = [k for k, m in enumerate(der.modes["p"].modes) if m.s == D]
    assert der.modes["p"].modes[i].d == sp.Rational(1, 2)
    return der.trajectories["p"][i]


def _logistic(s, d, a_, t_, tau_):
    return (s / d) / (1 + (s / (d * a_) - 1) * mpmath.exp(-2 * s * t_ / tau_))


def _paper_loss(x, a_, t_, tau_):
    """½ tr Σy − Σ (s a − ½ d a²) = Δ² + 1 − Σ (s a − ½ d a²), both modes by the logistic form."""
    L = x ** 2 + 1
    for s in (x, mpmath.mpf(1)):
        a = _logistic(s, mpmath.mpf("0.5"), a_, t_, tau_)
        L -= s * a - a * a / 4
    return L


def _hand_at_zero(a_, t_, tau_):
    """At Δ = 0 (s = 0, d = ½): a = a0/(1 + a0 t/τ); from a = 1/G with G = (t/τ) φ(u) + e^{−u}/a0,
    u = 2Δt/τ: ∂G/∂Δ = (t/τ) φ′(0) (2t/τ) − (2t/τ)/a0, so ∂a/∂Δ = a² (t²/τ² + 2t/(τ a0));
    ∂a/∂t = −a²/τ (τ ȧ = 2a(0 − a/2)); ∂a/∂a0 = a²/a0²; ∂a/∂τ = a² t/τ²."""
    a = a_ / (1 + a_ * t_ / tau_)
    return a, a * a * (t_ ** 2 / tau_ ** 2 + 2 * t_ / (tau_ * a_)), a * a / a_ ** 2, -a * a / tau_, a * a * t_ / tau_ ** 2


def test_trajectory_at_s_zero_is_the_decaying_limit(der):
    """Was NaN (value and every gradient) at Δ = 0."""
    a = tk.to_jax(_small_mode(der), [D, a0, t, tau])
    g = jax.jit(jax.grad(a, argnums=(0, 1, 2, 3)))
    for a_, t_, tau_ in ((A0, T, TAU), (0.5, 3.0, 1.0), (1e-6, 1e5, 10.0), (A0, 0.0, TAU)):
        want = _hand_at_zero(a_, t_, tau_)
        assert float(jax.jit(a)(0.0, a_, t_, tau_)) == pytest.approx(want[0], rel=1e-14, abs=0)
        got = g(0.0, a_, t_, tau_)
        for x, w in zip(got, want[1:]):
            assert float(x) == pytest.approx(w, rel=1e-12, abs=1e-300)


def test_trajectory_for_tiny_s_keeps_its_digits(der):
    """At Δ = 1e-12 ∂a/∂Δ was −22.08 where it is 2.0e-3 (1 − e^{−u} cancelled); the second derivative
    goes through φ″ too. vmap over a batch holding 0, tiny and ordinary Δ, against mpmath."""
    a = tk.to_jax(_small_mode(der), [D, a0, t, tau])
    xs = [0.0, 1e-300, 1e-12, 1e-9, 0.01, 0.3]
    vals = jax.jit(jax.vmap(a, in_axes=(0, None, None, None)))(jnp.array(xs), A0, T, TAU)
    grads = jax.jit(jax.vmap(jax.grad(a), in_axes=(0, None, None, None)))(jnp.array(xs), A0, T, TAU)
    hess = jax.vmap(jax.grad(jax.grad(a)), in_axes=(0, None, None, None))(jnp.array(xs), A0, T, TAU)
    with mpmath.workdps(50):
        am, tm = mpmath.mpf("0.001"), mpmath.mpf(T)
        for x, v, gx, h in zip(xs[2:], vals[2:], grads[2:], hess[2:]):
            f = lambda y: _logistic(y, mpmath.mpf("0.5"), am, tm, tm)   # noqa: E731
            assert float(v) == pytest.approx(float(f(mpmath.mpf(x))), rel=1e-14, abs=0)
            assert float(gx) == pytest.approx(float(mpmath.diff(f, mpmath.mpf(x))), rel=1e-10, abs=0)
            assert float(h) == pytest.approx(float(mpmath.diff(f, mpmath.mpf(x), 2)), rel=1e-8, abs=0)
    hand = _hand_at_zero(A0, T, TAU)
    for v, gx in zip(vals[:2], grads[:2]):         # 0 and 1e-300: the limit, to rounding
        assert float(v) == pytest.approx(hand[0], rel=1e-14, abs=0)
        assert float(gx) == pytest.approx(hand[1], rel=1e-12, abs=0)


def test_loss_at_s_zero_and_tiny_s(der):
    """The loss was NaN at Δ = 0 (value and gradient) and ∂L/∂Δ at 1e-12 was −0.0120 where it is
    −9.98e-4. By hand at Δ = 0, with a the small mode's trajectory and a1 the other's
    (a1 = 2/(1 + (2/a0 − 1) e^{−2t/τ})): L = 1 − (a1 − a1²/4) + a²/4;
    ∂L/∂Δ = −(s′ a + (s − d a) ∂a/∂Δ) = −a + (a/2) ∂a/∂Δ; ∂L/∂t = −Σ (s − d a) ȧ =
    −(1 − a1/2) 2 a1 (1 − a1/2)/τ − a³/(2τ). Under jit, grad, and vmap over Δ."""
    L = tk.to_jax(der.loss, [D, a0, t, tau])
    a, a_D, *_ = _hand_at_zero(A0, T, TAU)
    with mpmath.workdps(50):
        a1 = float(_logistic(mpmath.mpf(1), mpmath.mpf("0.5"), mpmath.mpf("0.001"), T, TAU))
    assert float(jax.jit(L)(0.0, A0, T, TAU)) == pytest.approx(1 - (a1 - a1 * a1 / 4) + a * a / 4, rel=1e-14, abs=0)
    gD, _, gt, _ = jax.jit(jax.grad(L, argnums=(0, 1, 2, 3)))(0.0, A0, T, TAU)
    assert float(gD) == pytest.approx(-a + a / 2 * a_D, rel=1e-12, abs=0)
    assert float(gt) == pytest.approx(-(1 - a1 / 2) ** 2 * 2 * a1 / TAU - a ** 3 / (2 * TAU), rel=1e-12, abs=0)
    xs = jnp.array([0.0, 1e-12, 1e-9, 0.5])
    vals = jax.vmap(L, in_axes=(0, None, None, None))(xs, A0, T, TAU)
    grads = jax.jit(jax.vmap(jax.grad(L), in_axes=(0, None, None, None)))(xs, A0, T, TAU)
    assert float(grads[0]) == pytest.approx(float(gD), rel=1e-15, abs=0)
    with mpmath.workdps(50):
        f = lambda y: _paper_loss(y, mpmath.mpf("0.001"), mpmath.mpf(T), mpmath.mpf(TAU))   # noqa: E731
        for x, v, gx in zip(xs[1:], vals[1:], grads[1:]):
            assert float(v) == pytest.approx(float(f(mpmath.mpf(float(x)))), rel=1e-14, abs=0)
            assert float(gx) == pytest.approx(float(mpmath.diff(f, mpmath.mpf(float(x)))), rel=1e-10, abs=0)


def test_the_rewrite_is_jax_side_only(der):
    """What SymPy shows and prints as LaTeX is the paper's form, with no φ: to_jax leaves it as it was."""
    before = (der.loss, _small_mode(der), sp.latex(der.loss))
    tk.to_jax(der.loss, [D, a0, t, tau])
    tk.to_jax(_small_mode(der), [D, a0, t, tau])
    assert (der.loss, _small_mode(der), sp.latex(der.loss)) == before
    assert "phi" not in before[2] and sp.simplify(
        before[1] - (2 * D) / (1 + (2 * D / a0 - 1) * sp.exp(-2 * D * t / tau))) == 0


def test_a_singular_value_vanishing_as_a_square():
    """Targets [[c², 0], [0, 1]] on I₂: modes s = ½, d = ½ and s = c²/2, d = ½. The loss holds
    s²/(2d)·q² = (c⁴/4)(1 − a0/(c² G))² with 1/c², which was NaN at c = 0 and lost digits for tiny c
    (∂L/∂c at 1e-12 was −5.8e-11 where it is −1.0e-15). By hand at c = 0: Σy = diag(c⁴, 1)/2 (two items),
    so ½ tr Σy = ¼; a1 = 1/(1 + (1/a0 − 1) e^{−t/τ}), a = a0/(1 + a0 t/τ); L = ¼ − (a1/2 − a1²/4) + a²/4;
    L is even in c, so ∂L/∂c = 0 there. At c = 1e-12 and 0.3 against mpmath of the paper's form."""
    c = sp.Symbol("c", nonnegative=True)
    der = tk.Derivation(tk.GDLNSpec(tk.Task(sp.eye(2), sp.Matrix([[c ** 2, 0], [0, 1]]), {"c": c}),
                                    (tk.Pathway("p", "all", "all", "all", 8, 2),), tk.Training(lr=0.01, a0=A0)))
    assert {(m.s, m.d) for m in der.modes["p"].modes} == {(c ** 2 / 2, sp.Rational(1, 2)),
                                                        (sp.Rational(1, 2), sp.Rational(1, 2))}
    L = tk.to_jax(der.loss, [c, a0, t, tau])
    a1 = 1 / (1 + (1 / A0 - 1) * float(mpmath.exp(-1)))           # t = τ
    a = A0 / (1 + A0 * T / TAU)
    assert float(jax.jit(L)(0.0, A0, T, TAU)) == pytest.approx(0.25 - (a1 / 2 - a1 * a1 / 4) + a * a / 4, rel=1e-14, abs=0)
    xs = jnp.array([0.0, 1e-12, 0.3])
    grads = jax.jit(jax.vmap(jax.grad(L), in_axes=(0, None, None, None)))(xs, A0, T, TAU)
    assert float(grads[0]) == 0.0

    def paper(y):
        tot = y ** 4 / 4 + mpmath.mpf(1) / 4
        for s in (y * y / 2, mpmath.mpf("0.5")):
            am = _logistic(s, mpmath.mpf("0.5"), mpmath.mpf("0.001"), mpmath.mpf(T), mpmath.mpf(TAU))
            tot -= s * am - am * am / 4
        return tot
    with mpmath.workdps(50):
        for x, gx in zip((1e-12, 0.3), grads[1:]):
            assert float(L(x, A0, T, TAU)) == pytest.approx(float(paper(mpmath.mpf(x))), rel=1e-14, abs=0)
            assert float(gx) == pytest.approx(float(mpmath.diff(paper, mpmath.mpf(x))), rel=1e-10, abs=0)


def test_loss_function_at_zero_derives_without_the_decaying_mode(der):
    """docs/api.md: ``loss_function({"Delta": 0})`` derives at Δ = 0, where the mode s = Δ does not exist,
    so it is below the generic loss's limit by that mode's d a²/2 = a²/4, a = a0/(1 + a0 t/τ) (by hand)."""
    L = tk.to_jax(der.loss, [D, a0, t, tau])
    L0 = der.loss_function({"Delta": 0})
    for t_ in (0.0, T, 1e4):
        a = A0 / (1 + A0 * t_ / TAU)
        assert float(L(0.0, A0, t_, TAU) - L0(t_)) == pytest.approx(a * a / 4, rel=1e-6, abs=0)
