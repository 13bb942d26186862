"""Rules from a numerics engineer: the exact input variance d of a mode whose singular vectors rotate
with a symbol, and the loss JAX takes from it at the crossing.

Targets 2·f on the inputs I₂ (two samples): Σx = I/2 and Σyx = f, so each mode's d = vᵀ Σx v = ½ for
any unit vector v (by hand), and s are f's singular values. For f = [[1, Δ], [0, 1]]: fᵀf =
[[1, Δ], [Δ, 1 + Δ²]] has trace 2 + Δ² and determinant 1, so s² = (2 + Δ² ± Δ√(Δ² + 4))/2, that is
s = (√(4 + Δ²) ± Δ)/2 (squaring: (2Δ² + 4 ± 2Δ√(Δ² + 4))/4); the two cross at Δ = 0, where the
singular vectors turn. ½ tr Σy = ½ ⟨‖2 f x‖²⟩ = ‖f‖²_F = 2 + Δ². For f = [[1, Δ − 1], [0, 1]] the same
with Δ − 1 for Δ (crossing at Δ = 1).

theorykit builds v = w/‖w‖ with ‖w‖ a root of a polynomial in Δ and √(Δ² + 4), so d was printed as a
long ratio of such roots, 0/0 at the crossing: JAX gave NaN there and lost digits near it (docs/api.md,
"rotate"). Expected values here: d = ½ by hand; the loss by mpmath at 50 digits of the paper's logistic
a = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}) and loss ½ tr Σy − Σ (s a − ½ d a²) with the s above, which
share no code with theorykit, its derivatives by mpmath's own differentiation.
"""
import jax
import jax.numpy as jnp
import mpmath
import pytest
import sympy as sp

import theorykit as tk
from theorykit.theory.radicals import _square_roots_multiplied_out as reduce_
from theorykit.theory.trajectory import a0, t, tau

A0, T, TAU = 1e-3, 50.0, 10.0          # t = 5τ: both modes half-way through their rise (t½ ≈ 3.8τ)
D = sp.Symbol("Delta", nonnegative=True)


def _der(shift):
    f = sp.Matrix([[1, D - shift], [0, 1]])
    task = tk.Task(sp.eye(2), 2 * f, {"Delta": D})
    return tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 8, 2),),
                                     tk.Training(lr=0.01, a0=A0)))


@pytest.fixture(scope="module")
def ders():
    return {0: _der(0), 1: _der(1)}


def _paper_loss(x, shift):
    """½ tr Σy − Σ (s a − ½ d a²) with s = (√(4 + e²) ± e)/2, e = Δ − shift, d = ½ (module docstring)."""
    e, d = x - shift, mpmath.mpf(1) / 2
    L = 2 + e ** 2
    for s in ((mpmath.sqrt(4 + e ** 2) + e) / 2, (mpmath.sqrt(4 + e ** 2) - e) / 2):
        a = (s / d) / (1 + (s / (d * A0) - 1) * mpmath.exp(-2 * s * T / TAU))
        L -= s * a - d * a * a / 2
    return L


@pytest.mark.parametrize("shift", [0, 1])
def test_d_of_rotating_singular_vectors_is_exactly_one_half(ders, shift):
    """Σx = I/2 and v a unit vector: d = vᵀ v / 2 = ½ (by hand), an exact Rational, not a ratio of roots."""
    for m in ders[shift].modes["p"].modes:
        assert m.d == sp.Rational(1, 2) and isinstance(m.d, sp.Rational), m.d
    assert all(isinstance(m.d_untidied, sp.Expr) for m in ders[shift].modes["p"].modes)


@pytest.mark.parametrize("shift, points", [(0, [0.0, 1e-9, -1e-9, 1e-6, -1e-6]), (1, [1.0, 1 + 1e-9, 1 - 1e-9])])
def test_loss_in_jax_is_finite_and_right_at_the_crossing(ders, shift, points):
    """Value, ∂/∂Δ and ∂²/∂Δ² of tk.to_jax(der.loss) under jit and vmap, at and next to the crossing,
    against mpmath (50 digits) of the paper's formula: no NaN, and every digit float64 can hold
    (the ratio form was NaN at the crossing and ∂L/∂Δ of the wrong size at 1e-9 from it)."""
    f = tk.to_jax(ders[shift].loss, [D, a0, t, tau])
    batch = jax.jit(jax.vmap(lambda x: (f(x, A0, T, TAU), jax.grad(f)(x, A0, T, TAU),
                                        jax.grad(jax.grad(f))(x, A0, T, TAU))))
    got = [[float(v) for v in col] for col in batch(jnp.asarray(points))]
    with mpmath.workdps(50):
        for i, x in enumerate(points):
            xm = mpmath.mpf(x)
            want = [mpmath.diff(lambda y: _paper_loss(y, shift), xm, n) for n in range(3)]
            for n in range(3):
                assert abs(got[n][i] - want[n]) <= 1e-9 * abs(want[n]) + 1e-14, (x, n, got[n][i], float(want[n]))


def test_tower_of_square_roots_multiplies_out():
    """r = √(x² + 1): (x + r)² = x² + 2xr + r² = 2x² + 2xr + 1, so ((x + r)/√(2x² + 2xr + 1))² = 1 (a root
    nested in the denominator's root); 1/(1 + √x) + 1/(1 − √x) = 2/(1 − x) (a root in a denominator);
    (√x + 1)² − 2√x − x − 1 = 0."""
    x = sp.Symbol("x")
    r = sp.sqrt(x ** 2 + 1)
    assert reduce_(((x + r) / sp.sqrt(2 * x ** 2 + 2 * x * r + 1)) ** 2) == 1
    assert sp.cancel(reduce_(1 / (1 + sp.sqrt(x)) + 1 / (1 - sp.sqrt(x))) - 2 / (1 - x)) == 0
    assert reduce_((sp.sqrt(x) + 1) ** 2 - 2 * sp.sqrt(x) - x - 1) == 0


def test_tower_reduction_refuses_what_keeps_a_root():
    """(x + r)/√(2x² + 2xr + 1) = (x + r)/|x + r| is 1 with the principal roots at real x, but −1 with the
    other sign of r (x − r < 0): the reduction uses only y² = b, so it cannot tell, and gives None; a
    root left in the numerator (√x/(1 + x)) and a cube root give None too."""
    x = sp.Symbol("x")
    r = sp.sqrt(x ** 2 + 1)
    assert reduce_((x + r) / sp.sqrt(2 * x ** 2 + 2 * x * r + 1)) is None
    assert reduce_(sp.sqrt(x) / (1 + x)) is None
    assert reduce_(1 / (1 + x ** sp.Rational(1, 3))) is None
