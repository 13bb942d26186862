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


def test_derived_loss_function_survives_transforms():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=0.01)))
    L = der.loss_function({"Delta": 0.7})
    ts = jnp.linspace(0, 5000, 11)
    vals = jax.jit(jax.vmap(L))(ts)
    assert vals.dtype == jnp.float64 and bool(jnp.all(jnp.diff(vals) <= 1e-15))
    dL = jax.vmap(jax.grad(L))(ts)
    assert bool(jnp.all(jnp.isfinite(dL))) and bool(jnp.all(dL <= 0))
    # and w.r.t. a symbol kept as an argument
    D = der.task.symbols["Delta"]
    LD = to_jax(der.loss.subs({tau: 100, a0: 1e-3}), [t, D])
    g = jax.grad(LD, argnums=1)(1000.0, 0.7)
    assert np.isfinite(float(g))


def test_refuses_piecewise_and_math_fallback():
    x = sp.Symbol("x")
    with pytest.raises(NotJaxSafe):
        to_jax(sp.Piecewise((x, x > 0), (0, True)), [x])
    with pytest.raises(NotJaxSafe):
        to_jax(x + sp.Symbol("y"), [x])
    # a function SymPy's JAX printer does not know falls back to a non-jax name: refused
    with pytest.raises(NotJaxSafe):
        to_jax(sp.lowergamma(x, 2), [x])
