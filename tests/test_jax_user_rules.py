"""Rules from a JAX user's walkthrough of the lambdified formulas: composing ``tk.to_jax`` and
``Derivation.loss_function`` with one's own jit/vmap/grad code, with Python scalars, 0-d arrays and
batches, against SymPy's exact values (evalf at 30 digits) and hand derivations."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.theory.trajectory import a0, t, tau

XOR_LINEAR = tk.xor_relns()["linear"]


def _linear_derivation():
    return tk.Derivation(tk.GDLNSpec(tk.xor_margin(), XOR_LINEAR, tk.Training(lr=0.01, a0=1e-3)))


def test_python_scalars_give_what_jax_scalars_give():
    """The XoR "linear" ReLN's loss (modes s = Δ/2, d = Δ²/2, docs/theory.md#xor) printed with Δ kept as
    an argument. At Δ = 0 each mode has nothing to learn (s = d = 0), so L = ½ tr Σy = ½ for all t, by
    hand. The lambdified form holds 1/(Δ a0): with JAX scalars that is IEEE inf and the value comes out
    ½, but with Python floats it used to be Python's arithmetic, which raised ZeroDivisionError.
    Python floats, ints, 0-d arrays and lists now all go through jax.numpy alike."""
    der = _linear_derivation()
    D = der.task.symbols["Delta"]
    L = tk.to_jax(der.loss, [t, tau, a0, D])
    assert float(L(100.0, 100.0, 1e-3, 0.0)) == 0.5
    assert float(L(100.0, 100.0, 1e-3, 0)) == 0.5                       # an int Δ
    assert float(L(jnp.float64(100.0), 100.0, 1e-3, jnp.float64(0.0))) == 0.5
    # away from 0: every kind of input against SymPy's exact value at 30 digits
    exact = float(sp.N(der.loss.subs({t: 100, tau: 100, a0: sp.Rational(1, 1000), D: sp.Rational(1, 2)}), 30))
    for args in ((100.0, 100.0, 1e-3, 0.5), (100, 100, 1e-3, 0.5), (np.float64(100), np.array(100.0), 1e-3, 0.5),
                 (jnp.array(100.0), jnp.array(100.0), jnp.array(1e-3), jnp.array(0.5))):
        assert float(L(*args)) == pytest.approx(exact, rel=1e-14)
    # a list is a batch, as a jnp array would be
    x = sp.Symbol("x")
    np.testing.assert_array_equal(np.asarray(tk.to_jax(x ** 2 + 1 / x, [x])([1.0, 2.0])), [2.0, 4.5])


def test_weak_python_scalars_keep_float32_inputs_float32():
    """A float32 user's arrays stay float32 when the other arguments are Python numbers (weakly typed)."""
    der = _linear_derivation()
    L = tk.to_jax(der.loss, [t, tau, a0, der.task.symbols["Delta"]])
    ts = jnp.linspace(0, 300, 4, dtype=jnp.float32)
    out = jax.jit(jax.vmap(L, in_axes=(0, None, None, None)))(ts, 100.0, 1e-3, 1.6)
    assert out.dtype == jnp.float32
    assert jax.grad(L)(jnp.float32(10), 100.0, 1e-3, 1.6).dtype == jnp.float32
    # and the matrix form too
    x = sp.Symbol("x")
    M = tk.to_jax(sp.Matrix([[x, 2 * x]]), [x])
    assert M(jnp.float32(1)).dtype == jnp.float32 and M(1.0).dtype == jnp.float64


@pytest.mark.parametrize("wrap", ["concrete", "vmap", "grad"])
def test_loss_function_names_a_jax_value_and_says_what_to_do(wrap):
    """``loss_function({"Delta": x})`` with x a JAX array (concrete, or traced inside vmap/grad) raised
    JAX's own NotImplementedError ('arr.flat') from inside sympify. Now a SpecError names values[Delta]
    and says how to do it: float(x) for a concrete value, Δ as an argument of tk.to_jax to transform."""
    der = _linear_derivation()
    with pytest.raises(SpecError) as err:
        if wrap == "concrete":
            der.loss_function({"Delta": jnp.float64(0.5)})
        elif wrap == "vmap":
            jax.vmap(lambda D: der.loss_function({"Delta": D})(10.0))(jnp.array([0.5, 1.0]))
        else:
            jax.grad(lambda D: der.loss_function({"Delta": D})(10.0))(0.5)
    msg = str(err.value)
    assert "values[Delta]" in msg and "to_jax" in msg
    assert ("float(x)" in msg) == (wrap == "concrete")          # float() of a tracer would fail: not offered
    # and the route it names works, against a central finite difference of the exact loss (float64)
    D = der.task.symbols["Delta"]
    L = tk.to_jax(der.loss, [t, tau, a0, D])
    h = sp.Rational(1, 10 ** 8)
    fd = float(sp.N((der.loss.subs({t: 10, tau: 100, a0: sp.Rational(1, 1000), D: sp.Rational(1, 2) + h})
                     - der.loss.subs({t: 10, tau: 100, a0: sp.Rational(1, 1000), D: sp.Rational(1, 2) - h})) / (2 * h), 30))
    assert float(jax.grad(L, argnums=3)(10.0, 100.0, 1e-3, 0.5)) == pytest.approx(fd, rel=1e-10)


def test_special_value_route_in_the_docs():
    """docs/api.md: at Δ = 0 the generic "linear" loss is 0/0 for jax.grad (its modes have s = 0), and
    ``loss_function({"Delta": 0})`` is the route there: nothing is learned, so L = ½ and dL/dt = 0 (by hand)."""
    der = _linear_derivation()
    L0 = der.loss_function({"Delta": 0})
    ts = jnp.array([0.0, 100.0, 1e6])
    np.testing.assert_array_equal(np.asarray(jax.jit(jax.vmap(L0))(ts)), 0.5)
    np.testing.assert_array_equal(np.asarray(jax.vmap(jax.grad(L0))(ts)), 0.0)


def test_mode_trajectory_in_jax_keeps_its_digits_near_s_zero():
    """A singular value near 0 (a symbol's value where a mode is about to have nothing to learn): the
    logistic form (s/d)/(1 + (s/(d a0) − 1)e^{−2st/τ}) is a 0/0 there, and its JAX derivative in s lost
    the digits of 1 − e^{−u}: ∂a/∂s was 5e-3 off at s = 1e-9 and 10³ off at 1e-12, and the second
    derivative at s = 0 was 0 (the s = 0 branch was linear in s). Reference: the same logistic form in
    mpmath at 50 digits, differentiated by mpmath (a second method, no JAX)."""
    import mpmath

    from theorykit.theory.trajectory import mode_trajectory

    d_, a_, t_, tau_ = 2.0, 0.01, 30.0, 1.0
    f = lambda s_: mode_trajectory(s_, d_, a_, t_, tau_, jnp.exp)           # noqa: E731
    with mpmath.workdps(50):
        A = lambda s_: (s_ / d_) / (1 + (s_ / (d_ * a_) - 1) * mpmath.exp(-2 * s_ * t_ / tau_))  # noqa: E731
        for s_ in (1e-12, 1e-9, 1e-6, 0.01, 0.5):
            assert float(f(jnp.float64(s_))) == pytest.approx(float(A(mpmath.mpf(s_))), rel=1e-14)
            assert float(jax.grad(f)(s_)) == pytest.approx(float(mpmath.diff(A, mpmath.mpf(s_))), rel=1e-12)
        # at s = 0 itself, by the series of A about a point 1e-30 away (A is smooth through 0)
        near0 = mpmath.mpf("1e-30")
        assert float(jax.grad(f)(0.0)) == pytest.approx(float(mpmath.diff(A, near0)), rel=1e-12)
        assert float(jax.hessian(f)(0.0)) == pytest.approx(float(mpmath.diff(A, near0, 2)), rel=1e-10)
        # and the time derivative in saturation (u = 2st/τ = 30), ȧ = 2a(s − d a)/τ: no digits lost
        At = lambda x: (mpmath.mpf(0.5) / d_) / (1 + (0.5 / (d_ * a_) - 1) * mpmath.exp(-x / tau_))   # noqa: E731
        a30 = At(mpmath.mpf(30))
        g = jax.grad(lambda x: mode_trajectory(0.5, d_, a_, x, tau_, jnp.exp))(30.0)
        assert float(g) == pytest.approx(float(2 * a30 * (0.5 - d_ * a30) / tau_), rel=1e-12)
    # batched over s and t together, s = 0 in the batch: finite, and equal to the one-at-a-time values
    ss, ts = jnp.array([0.0, 1e-9, 0.5]), jnp.array([0.0, 30.0, 1e7])
    grid = jax.jit(jax.vmap(jax.vmap(lambda s_, x: mode_trajectory(s_, d_, a_, x, tau_, jnp.exp), (None, 0)), (0, None)))(ss, ts)
    assert bool(jnp.all(jnp.isfinite(grid)))
    assert float(grid[2, 2]) == 0.25 and float(grid[0, 0]) == a_ and float(grid[1, 0]) == pytest.approx(a_, rel=1e-15)


def test_mode_gap_in_jax_near_s_zero_and_with_its_default_exp():
    """mode_gap (s/d − a, the form predict_loss sums) had the same cancellation near s = 0 in JAX (∂g/∂s
    3e-3 off at s = 1e-9), and with its default ``exp=np.exp`` a traced time raised
    TracerArrayConversionError under jit. Reference: the gap's own form (s/d)·c e^{−u}/(1 + c e^{−u}),
    c = s/(d a0) − 1, in mpmath at 50 digits; at s = 0 by hand −a0/(1 + 2 d a0 t/τ)."""
    import mpmath

    from theorykit.theory.trajectory import mode_gap

    d_, a_, t_, tau_ = 2.0, 0.01, 30.0, 1.0
    with mpmath.workdps(50):
        def G(s_, x=t_):
            ce = (s_ / (d_ * a_) - 1) * mpmath.exp(-2 * s_ * x / tau_)
            return (s_ / d_) * ce / (1 + ce)
        for s_ in (1e-12, 1e-9, 0.01, 0.5):
            g = lambda y: mode_gap(y, d_, a_, t_, tau_, jnp.exp)                      # noqa: E731
            assert float(g(jnp.float64(s_))) == pytest.approx(float(G(mpmath.mpf(s_))), rel=1e-14)
            assert float(jax.grad(g)(s_)) == pytest.approx(float(mpmath.diff(G, mpmath.mpf(s_))), rel=1e-12)
        # default exp (numpy) with the time traced: jit, vmap and grad all work, and agree with mpmath
        ts = jnp.array([0.0, 3.0, 30.0])
        vals = jax.jit(jax.vmap(lambda x: mode_gap(0.5, d_, a_, x, tau_)))(ts)
        np.testing.assert_allclose(vals, [float(G(mpmath.mpf(0.5), mpmath.mpf(float(x)))) for x in ts], rtol=1e-13)
        dg = jax.grad(lambda x: mode_gap(0.5, d_, a_, x, tau_))(3.0)
        assert float(dg) == pytest.approx(float(mpmath.diff(lambda x: G(mpmath.mpf(0.5), x), mpmath.mpf(3))), rel=1e-12)
    assert float(jax.jit(lambda y: mode_gap(y, d_, a_, t_, tau_))(0.0)) == pytest.approx(
        -a_ / (1 + 2 * d_ * a_ * t_ / tau_), rel=1e-14)


def test_predict_loss_under_jit_says_it_is_numpy_not_that_times_are_bad():
    """predict_loss inside jax.jit: the traced times used to be refused as "needs finite gradient steps
    t ≥ 0", which they are. Now the SpecError says predictions are numpy and names loss_function."""
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3)))
    with pytest.raises(SpecError) as err:
        jax.jit(lambda ts: jnp.asarray(der.predict_loss(ts, values={"Delta": 0.5})))(jnp.array([0.0, 10.0]))
    msg = str(err.value)
    assert msg.startswith("times") and "traced" in msg and "loss_function" in msg and "finite" not in msg
    # concrete JAX times still work, and agree with the JAX closed form (a second path)
    ts = jnp.array([0.0, 10.0])
    np.testing.assert_allclose(der.predict_loss(ts, values={"Delta": 0.5}),
                               jax.vmap(der.loss_function({"Delta": 0.5}))(ts), rtol=1e-13)


def test_deep_half_way_time_is_refused_with_what_to_do():
    """t_half of a 3-layer pathway is an unevaluated Integral: to_jax said SymPy's printer message
    ("Set the printer option 'strict' to False"), which to_jax cannot take; now it names the way out."""
    from theorykit.theory.jaxify import NotJaxSafe
    from theorykit.theory.trajectory import t_half

    s, d = sp.symbols("s d", positive=True)
    with pytest.raises(NotJaxSafe) as err:
        tk.to_jax(t_half(s, d, depth=3), [s, d, a0, tau])
    assert "Integral" in str(err.value) and "t_half_float" in str(err.value) and "strict" not in str(err.value)


def test_crossing_singular_values_route_in_the_docs(tmp_path):
    """docs/api.md: targets [[1, Δ], [0, 1]] on the inputs I₂ have crossing singular values at Δ = 0, where
    the generic mode's d is 0/0; loss_function({"Delta": 0}) derives there. By hand at Δ = 0: Σyx = Σx = I/2,
    two modes with s = d = ½, a = 1/(1 + (1/a0 − 1)e^{−t/τ}), L = ½ − 2(a/2 − a²/4), dL/dt = −a(1 − a)²/τ."""
    import mpmath

    f = tmp_path / "cross.toml"
    f.write_text('name = "cross"\n[symbols]\nDelta = {nonnegative = true}\n[data]\ninputs = [[1, 0], [0, 1]]\n'
                 'targets = [[1, "Delta"], [0, 1]]\n[[pathways]]\nname = "p"\nactive = [1, 1]\ninputs = "all"\n'
                 'outputs = "all"\nhidden = 4\n[training]\nlr = 0.01\nloss = "mean"\na0 = 0.001\n', "utf-8")
    L0 = tk.Derivation(tk.load_spec(str(f))).loss_function({"Delta": 0})
    with mpmath.workdps(40):
        a = 1 / (1 + (1 / mpmath.mpf("0.001") - 1) * mpmath.exp(-1))             # t = τ = 100
        want, dwant = mpmath.mpf(1) / 2 - 2 * (a / 2 - a * a / 4), -a * (1 - a) ** 2 / 100
    assert float(jax.jit(L0)(100.0)) == pytest.approx(float(want), rel=1e-14)
    assert float(jax.grad(L0)(100.0)) == pytest.approx(float(dwant), rel=1e-12)
