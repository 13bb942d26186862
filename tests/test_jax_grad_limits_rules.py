"""Rules from a JAX user differentiating theorykit's closed forms at special values: jax.grad, jit and vmap
of ``tk.to_jax(der.loss, ...)``, the trajectories and ``predict_modes`` where a symbol sits on the edge
its assumptions allow (Δ = 0 for a nonnegative Δ, t = 0, a tiny a0 or context scale, saturation).
Expected values are hand derivations (in the docstrings) or mpmath at 50 digits of the paper's
logistic form a = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}), a second method that shares no code with
the forms theorykit prints."""
import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.spec.gating import context_pathways
from theorykit.theory.trajectory import a0, t, tau


def _xor(reln):
    return tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns(hidden=8)[reln], tk.Training(lr=0.01, a0=1e-3)))


def _paper_loss(der):
    """½ tr Σy − Σ (s a − ½ d a²) with the paper's logistic a(t), built here from the modes' s and d."""
    L = der.initial_loss / der.spec.loss_factor
    for svd in der.modes.values():
        for m in svd.modes:
            a = (m.s / m.d) / (1 + (m.s / (m.d * a0) - 1) * sp.exp(-2 * m.s * t / tau))
            L -= m.s * a - m.d * a ** 2 / 2
    return der.spec.loss_factor * L


def test_xor_linear_loss_has_finite_gradients_at_delta_zero():
    """The "linear" ReLN's modes are s = Δ/2, d = Δ²/2 (docs/theory.md#xor), so the logistic form's
    1/(Δ a0) made jax.grad of the loss NaN at Δ = 0 (its value, ½, was right). By hand: a = a0 + O(Δ),
    so L = ½ − 2(s a − ½ d a²) = ½ − Δ a0 + O(Δ²): ∂L/∂Δ = −a0 at Δ = 0, and L ≡ ½ on Δ = 0 makes
    ∂L/∂t = ∂L/∂τ = ∂L/∂a0 = 0 there. Under jit, and vmapped over a batch of Δ holding 0."""
    der = _xor("linear")
    D = der.task.symbols["Delta"]
    L = tk.to_jax(der.loss, [D, a0, t, tau])
    for a_, t_, tau_ in ((0.01, 3.0, 1.0), (1e-3, 100.0, 100.0), (1e-12, 1e4, 1.0), (1e-3, 0.0, 100.0)):
        g = jax.jit(jax.grad(L, argnums=(0, 1, 2, 3)))(0.0, a_, t_, tau_)
        assert float(L(0.0, a_, t_, tau_)) == 0.5
        assert float(g[0]) == pytest.approx(-a_, rel=1e-12, abs=0)
        assert [float(x) for x in g[1:]] == [0.0, 0.0, 0.0]
    # batched: Δ = 0 next to ordinary values; the others against a central difference of the paper's form
    Ds = jnp.array([0.0, 1e-9, 0.5])
    gs = jax.jit(jax.vmap(jax.grad(L), in_axes=(0, None, None, None)))(Ds, 1e-3, 100.0, 100.0)
    assert bool(jnp.all(jnp.isfinite(gs))) and float(gs[0]) == pytest.approx(-1e-3, rel=1e-12, abs=0)
    paper = sp.lambdify([D, a0, t, tau], _paper_loss(der), "mpmath")
    with mpmath.workdps(50):
        for x, gx in zip((1e-9, 0.5), gs[1:]):
            want = mpmath.diff(lambda y: paper(y, mpmath.mpf("0.001"), 100, 100), mpmath.mpf(x))
            assert float(gx) == pytest.approx(float(want), rel=1e-9, abs=0)


def test_trajectories_where_s_and_d_vanish_together():
    """At Δ = 0 the linear ReLN's modes have s = d = 0: τ ȧ = 2a(s − d a) = 0, so a(t) = a0 (the
    logistic form was ∞/∞, NaN). Written a = 1/(e/a0 + Δ(1 − e)) with e = e^{−Δt/τ} (d/s = Δ), by hand
    ∂a/∂Δ at 0 = a0² · t/(τ a0) = a0 t/τ. At Δ = 1e-12 the logistic form's JAX gradient also lost
    digits (∂a/∂Δ 2e-8 where it is 1e-27 at t = 0, 1.4e-4 off at t = τ); checked against mpmath."""
    der = _xor("linear")
    D = der.task.symbols["Delta"]
    a = tk.to_jax(der.trajectories["positive"][0], [D, a0, t, tau])
    grad = jax.jit(jax.grad(a))
    for a_, t_, tau_ in ((1e-3, 0.0, 100.0), (1e-3, 100.0, 100.0), (1e-12, 1e7, 1.0)):
        assert float(a(0.0, a_, t_, tau_)) == a_
        assert float(grad(0.0, a_, t_, tau_)) == pytest.approx(a_ * t_ / tau_, rel=1e-12, abs=1e-300)
    with mpmath.workdps(50):
        def logistic(x, t_):
            s_, d_ = x / 2, x * x / 2
            return (s_ / d_) / (1 + (s_ / (d_ * mpmath.mpf("0.001")) - 1) * mpmath.exp(-2 * s_ * t_ / 100))
        for t_ in (0.0, 100.0, 1e4):
            want = mpmath.diff(lambda x: logistic(x, t_), mpmath.mpf("1e-12"))
            assert float(grad(1e-12, 1e-3, t_, 100.0)) == pytest.approx(float(want), rel=1e-9, abs=1e-20)


def test_context_scale_near_zero_keeps_the_start_exact():
    """contexts(2, 2) with a symbolic context scale c and only the common pathway: one mode has
    s = √6 c/4, d = c²/2 (d/s → 0 as c → 0, like XoR's linear ReLN). At t = 0 every mode is at a0 for
    every c, so ∂a/∂c = 0 exactly (by hand); the logistic form gave 2.7e-8 and −9.6e-11 at c = 1e-12
    and 1e-9. At t = 0, L = ½ tr Σy − Σ (s a0 − ½ d a0²), so ∂L/∂c = −Σ (a0 s′ − ½ a0² d′) (tr Σy is free
    of c: the outputs are); at t = 100 against mpmath's derivative of the paper's form."""
    c = sp.Symbol("c", positive=True)
    der = tk.Derivation(tk.GDLNSpec(tk.contexts(2, 2, context_scale=c), context_pathways(2, 2, [], hidden=4),
                                    tk.Training(lr=0.01, a0=1e-3)))
    small = [tr for m, tr in zip(der.modes["common"].modes, der.trajectories["common"]) if (m.d / m.s).subs(c, 0) == 0]
    assert len(small) == 1
    a = tk.to_jax(small[0], [c, a0, t, tau])
    L = tk.to_jax(der.loss, [c, a0, t, tau])
    dL0 = -sum(1e-3 * sp.diff(m.s, c) - sp.Rational(1, 2) * 1e-6 * sp.diff(m.d, c) for m in der.modes["common"].modes)
    for c_ in (1e-12, 1e-9):
        assert float(jax.grad(a)(c_, 1e-3, 0.0, 100.0)) == 0.0
        assert float(jax.grad(L)(c_, 1e-3, 0.0, 100.0)) == pytest.approx(float(dL0.subs(c, c_)), rel=1e-12, abs=0)
    paper = sp.lambdify([c, a0, t, tau], _paper_loss(der), "mpmath")
    with mpmath.workdps(50):
        for c_ in (1e-12, 1e-9, 1.0):
            want = mpmath.diff(lambda y: paper(y, mpmath.mpf("0.001"), 100, 100), mpmath.mpf(c_))
            assert float(jax.grad(L)(c_, 1e-3, 100.0, 100.0)) == pytest.approx(float(want), rel=1e-8, abs=1e-25)


@pytest.mark.parametrize("reln", ["linear", "xor"])
def test_the_loss_is_the_papers_loss(reln):
    """The printed loss is the same expression as the paper's ½ tr Σy − Σ (s a − ½ d a²) with the
    logistic a(t) (SymPy simplifies the difference to 0), and the trajectories are the logistic form."""
    der = _xor(reln)
    assert sp.simplify(der.loss - _paper_loss(der)) == 0
    for svd, trs in zip(der.modes.values(), der.trajectories.values()):
        for m, tr in zip(svd.modes, trs):
            assert sp.simplify(tr - (m.s / m.d) / (1 + (m.s / (m.d * a0) - 1) * sp.exp(-2 * m.s * t / tau))) == 0


def test_xor_loss_in_saturation_keeps_its_own_digits():
    """docs/api.md: the xor ReLN's loss at Δ = 1.6, τ = 100, a0 = 1e-3, t = 2000 (3.09e-14, far below
    L(0) = ½) comes out of to_jax to 2e-10 in float64: what no mode removes is the exact bracket 0, and
    each mode keeps s²/(2d) q². The expanded form was good to an ulp of L(0) only (2e-3 off at t = 2000,
    and 0 for 6.0e-18 at t = 2400).
    Reference: the paper's form in mpmath at 50 digits."""
    der = _xor("xor")
    D = der.task.symbols["Delta"]
    L = tk.to_jax(der.loss, [t, tau, a0, D])
    paper = sp.lambdify([t, tau, a0, D], _paper_loss(der), "mpmath")
    with mpmath.workdps(50):
        for t_, rel in ((2000.0, 1e-9), (2400.0, 1e-6)):          # about ulp(1)/q: q = 2.5e-7, 3.5e-9
            want = paper(mpmath.mpf(t_), 100, mpmath.mpf("0.001"), mpmath.mpf("1.6"))
            assert float(L(t_, 100.0, 1e-3, 1.6)) == pytest.approx(float(want), rel=rel, abs=0)
    # and its gradient in t there, against the mode ODE by hand: dL/dt = −Σ (s − d a) ȧ = −4 · 2a(s − d a)²/τ
    with mpmath.workdps(50):
        Dm = mpmath.mpf("1.6")
        s_, d_ = mpmath.sqrt(Dm ** 2 + 2) / 4, (Dm ** 2 + 2) / 4
        am = (s_ / d_) / (1 + (s_ / (d_ * mpmath.mpf("0.001")) - 1) * mpmath.exp(-2 * s_ * 2000 / 100))
        dwant = -4 * 2 * am * (s_ - d_ * am) ** 2 / 100
    assert float(jax.grad(L)(2000.0, 100.0, 1e-3, 1.6)) == pytest.approx(float(dwant), rel=1e-8, abs=0)


def test_predict_modes_where_a_pathway_has_nothing_to_learn():
    """At Δ = 0 the linear ReLN's pathways have Σyx = 0. ``predict_modes`` raised numpy's
    "need at least one array to stack" there (a pathway with no mode); now such a pathway has no
    column. The generic derivation's modes stay at their start a0 (τ ȧ = 2a(s − d a) = 0, by hand)."""
    der = _xor("linear")
    ts = np.array([0.0, 100.0, 1e4])
    at0 = tk.Derivation(der.spec, values={"Delta": 0})
    with pytest.warns(UserWarning, match="nothing to learn"):
        got = at0.predict_modes(ts)
    assert {k: v.shape for k, v in got.items()} == {"positive": (3, 0), "negative": (3, 0)}
    generic = der.predict_modes(ts, values={"Delta": 0})
    for v in generic.values():
        np.testing.assert_array_equal(v, np.full((3, 1), 1e-3))


def test_a_singular_value_that_vanishes_alone_takes_the_documented_route():
    """docs/api.md: targets [[Δ, 0], [0, 1]] (times 2) on the inputs I₂ have a mode s = Δ, d = 1/2, whose
    (1 − e^{−2st/τ})/s is 0/0 at Δ = 0 in the generic loss; ``loss_function({"Delta": 0})`` derives there.
    By hand at Δ = 0: Σyx = diag(0, 1), Σx = I/2, tr Σy = 2, one mode s = 1, d = ½:
    a = 2/(1 + (2/a0 − 1) e^{−2t/τ}), L = 1 − (a − a²/4), dL/dt = −(1 − a/2) · 2a(1 − a/2)/τ."""
    D = sp.Symbol("Delta", nonnegative=True)
    task = tk.Task(sp.eye(2), 2 * sp.Matrix([[D, 0], [0, 1]]), {"Delta": D})
    der = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 8, 2),), tk.Training(lr=0.01, a0=1e-3)))
    L0 = der.loss_function({"Delta": 0})
    with mpmath.workdps(40):
        a = 2 / (1 + (2 / mpmath.mpf("0.001") - 1) * mpmath.exp(-2))           # t = τ = 100
        want, dwant = 1 - (a - a * a / 4), -(1 - a / 2) * 2 * a * (1 - a / 2) / 100
    assert float(jax.jit(L0)(100.0)) == pytest.approx(float(want), rel=1e-14, abs=0)
    assert float(jax.grad(L0)(100.0)) == pytest.approx(float(dwant), rel=1e-12, abs=0)


def test_half_way_time_of_a_mode_with_nothing_to_learn_is_infinite():
    """docs/api.md: t½ = τ/(2s) ln(s/(d a0) − 1) = τ ln(1/(Δ a0) − 1)/Δ for the linear ReLN: at Δ = 0
    (s = 0) the mode never reaches half its end point, and JAX gives +inf, not NaN; a start above
    half the end point (a0 > s/(2d) = 1/(2Δ)) gives a negative time, and a0 = s/d gives −inf."""
    der = _xor("linear")
    D = der.task.symbols["Delta"]
    th = tk.to_jax(der.t_half["positive"][0], [D, a0, tau])
    assert float(th(0.0, 1e-3, 100.0)) == np.inf
    assert float(th(1.0, 0.75, 100.0)) == pytest.approx(100 * np.log(1 / 0.75 - 1), rel=1e-14, abs=0) and \
        float(th(1.0, 0.75, 100.0)) < 0
    assert float(th(1.0, 1.0, 100.0)) == -np.inf
