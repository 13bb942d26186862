"""A theorist deriving a crossover for a new task of their own, as the paper derives Δ* = √(2/3).

These tests came from a theorist who built new symbolic tasks in a REPL (XoR with a second margin ε,
3-bit parity with a margin Δ, XoR with outputs scaled by γ), gave each two ReLNs, derived singular
values, input variances, losses and the crossover where the two ReLNs' singular values tie, and
took the results to LaTeX and JAX. Expected values come from hand derivations in the comments, or
from numpy's SVD of the same data, never from a run of the code under test.
"""
from __future__ import annotations

import itertools
import re
import shutil
import subprocess

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.theory.lemmas import lp_pattern_feasible
from theorykit.theory.trajectory import a0, t, tau

D = sp.Symbol("Delta", nonnegative=True)
E = sp.Symbol("epsilon", nonnegative=True)


def _points(P):
    return [tk.Pathway(f"p{i}", tuple(int(j == i) for j in range(P)), hidden=4) for i in range(P)]


def _two_margin_task():
    """XoR with margin Δ on x3 (the class) and a second margin ε on x4 (= ε·x1, not the class)."""
    X = sp.Matrix([[1, -1, 1, -1], [1, -1, -1, 1], [D, D, -D, -D], [E, -E, E, -E]])
    return tk.Task(X, sp.Matrix([[1, 1, -1, -1]]), symbols={"Delta": D, "epsilon": E})


def _parity_task():
    """3-bit parity y = b1 b2 b3 on the cube, with a fourth input Δ·y (the margin)."""
    pts = list(itertools.product([1, -1], repeat=3))
    y = [a * b * c for a, b, c in pts]
    X = sp.Matrix([[p[0] for p in pts], [p[1] for p in pts], [p[2] for p in pts], [D * v for v in y]])
    return tk.Task(X, sp.Matrix([y]), symbols={"Delta": D}), y


# ------------------------------------------------------------------------------------------------
# XoR with two margins: every point pathway's d in its factored form
# ------------------------------------------------------------------------------------------------
def test_two_margin_xor_point_pathways_have_tidy_input_variances():
    """By hand, a pathway on the single datapoint x_μ has Σyx = y_μ x_μᵀ/4 and Σx = x_μ x_μᵀ/4, so
    s = ‖x_μ‖/4 = √(2 + Δ² + ε²)/4, v = ±x_μ/‖x_μ‖ and d = vᵀΣx v = ‖x_μ‖²/4 = (Δ² + ε² + 2)/4, for
    all four points. Before the fix the points with −Δ (p2, p3) kept d as a 149-operation sum of
    radicals (over tidy's size bound), and it ran through the loss, t½ and the LaTeX."""
    der = tk.Derivation(tk.GDLNSpec(_two_margin_task(), _points(4)))
    want_d = (D ** 2 + E ** 2 + 2) / 4
    for name in ("p0", "p1", "p2", "p3"):
        (m,) = der.modes[name].modes
        assert sp.simplify(m.s - sp.sqrt(D ** 2 + E ** 2 + 2) / 4) == 0
        assert sp.expand(m.d - want_d) == 0, (name, m.d)
        assert sp.count_ops(m.d) <= sp.count_ops(sp.factor(want_d)), (name, m.d)   # the short form
        assert sp.count_ops(der.end_points[name][0]) <= sp.count_ops(4 / sp.sqrt(D ** 2 + E ** 2 + 2)) + 2
    # the LaTeX of the derivation no longer carries the long form
    assert "\\frac{\\Delta^{3}" not in der.latex()


def test_square_root_reduction_is_exact_and_bounded():
    """The reduction used past simplify's size bound: (√a + 1)² − 2√a = a + 1 and
    (a + √2)(a − √2) = a² − 2 by hand; what keeps a root (√a + 1) or has a cube root is left alone."""
    from theorykit.theory.radicals import _square_roots_multiplied_out as reduce_

    a = sp.Symbol("a", positive=True)
    assert sp.expand(reduce_((sp.sqrt(a) + 1) ** 2 - 2 * sp.sqrt(a)) - (a + 1)) == 0
    assert sp.expand(reduce_((a + sp.sqrt(2)) * (a - sp.sqrt(2))) - (a ** 2 - 2)) == 0
    assert reduce_(sp.sqrt(a) + 1) is None
    assert reduce_(a ** sp.Rational(1, 3) + a) is None
    assert reduce_(sp.exp(a) * sp.sqrt(a) ** 2) is None


def test_two_margin_crossover_by_hand_and_against_numpy():
    """Linear ReLN: the positive pathway holds x0 = (1, 1, Δ, ε), x1 = (−1, −1, Δ, −ε), y = 1, so
    Σyx = (x0 + x1)/4 = (0, 0, Δ/2, 0): s = Δ/2, v = e3, d = (Δ² + Δ²)/4 = Δ²/2 (ε drops out).
    The crossover Δ/2 = √(2 + Δ² + ε²)/4 gives 4Δ² = 2 + Δ² + ε², Δ* = √((ε² + 2)/3), which is
    √(2/3) at ε = 0 (the paper's)."""
    task = _two_margin_task()
    lin = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("pos", (1, 1, 0, 0), hidden=4),
                                           tk.Pathway("neg", (0, 0, 1, 1), hidden=4)]))
    pts = tk.Derivation(tk.GDLNSpec(task, _points(4)))
    s_lin, s_pt = lin.ranking[0][1], pts.ranking[0][1]
    assert s_lin == D / 2 and lin.modes["pos"].modes[0].d == D ** 2 / 2
    roots = [r for r in sp.solve(sp.Eq(s_lin, s_pt), D) if r.is_nonnegative is not False]
    assert len(roots) == 1 and sp.simplify(roots[0] - sp.sqrt((E ** 2 + 2) / 3)) == 0
    assert sp.simplify(roots[0].subs(E, 0) - sp.sqrt(sp.Rational(2, 3))) == 0
    # numpy's SVD of the same effective datasets at a few values
    Y = np.array([[1.0, 1, -1, -1]])
    for dv, ev in ((0.3, 0.0), (1.0, 0.5), (2.0, 3.0)):
        X = np.array(task.X.subs({D: dv, E: ev}), float)
        for gates, s in (((1, 1, 0, 0), s_lin), ((0, 0, 1, 0), s_pt)):
            g = np.array(gates, float)
            s_np = np.linalg.svd((Y * g) @ X.T / 4, compute_uv=False)[0]
            assert float(s.subs({D: dv, E: ev})) == pytest.approx(s_np, rel=1e-12)
    # both ReLNs are realisable by bias-free ReLU units at generic values (the linear one on e3,
    # each point on x_μ itself); the linear one is not at Δ = 0, where x0 + x1 ⟂ every w on it
    X = np.array(task.X.subs({D: 1, E: sp.Rational(1, 2)}), float)
    assert all(lp_pattern_feasible(X, g)[0] for g in [(1, 1, 0, 0), (0, 0, 1, 1)] + [np.eye(4)[i] for i in range(4)])
    assert not lp_pattern_feasible(np.array(task.X.subs({D: 0, E: 1}), float), (1, 1, 0, 0))[0]


# ------------------------------------------------------------------------------------------------
# 3-bit parity with a margin
# ------------------------------------------------------------------------------------------------
def test_parity_crossover_is_one_over_root_five():
    """Parity on 8 points (P = 8). Linear ReLN (the four y = +1 points): their first three inputs sum
    to 0 and x4 = Δ on each, so Σyx = (0, 0, 0, 4Δ)/8: s = Δ/2, d = 4Δ²/8 = Δ²/2. A point pathway:
    ‖x_μ‖² = 3 + Δ², s = √(3 + Δ²)/8, d = (3 + Δ²)/8. The tie Δ/2 = √(3 + Δ²)/8 gives 16Δ² = 3 + Δ²,
    Δ* = 1/√5; below it the point ReLN is faster (at Δ = 0: 0 < √3/8)."""
    task, y = _parity_task()
    pos = tuple(int(v > 0) for v in y)
    lin = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("pos", pos, hidden=4),
                                           tk.Pathway("neg", tuple(1 - g for g in pos), hidden=4)]))
    pts = tk.Derivation(tk.GDLNSpec(task, _points(8)))
    assert lin.ranking[0][1] == D / 2 and lin.modes["pos"].modes[0].d == D ** 2 / 2
    for name, m in pts.modes.items():
        assert sp.simplify(m.modes[0].s - sp.sqrt(D ** 2 + 3) / 8) == 0 and sp.expand(m.modes[0].d - (D ** 2 + 3) / 8) == 0, name
    roots = [r for r in sp.solve(sp.Eq(lin.ranking[0][1], pts.ranking[0][1]), D) if r.is_nonnegative is not False]
    assert len(roots) == 1 and sp.simplify(roots[0] - 1 / sp.sqrt(5)) == 0
    # the point pathways are not realisable at Δ = 0 (a cube vertex with its three neighbours
    # cannot be cut off through the origin: S ≤ 2 c_k for all k sums to 3S ≤ 2S), but are for Δ > 0
    X0 = np.array(task.X.subs(D, 0), float)
    X1 = np.array(task.X.subs(D, sp.Rational(1, 2)), float)
    assert not lp_pattern_feasible(X0, np.eye(8)[0])[0] and lp_pattern_feasible(X1, np.eye(8)[0])[0]


# ------------------------------------------------------------------------------------------------
# XoR with outputs scaled by γ: LaTeX and JAX
# ------------------------------------------------------------------------------------------------
def _gamma_derivation():
    g = sp.Symbol("gamma", positive=True)
    X = sp.Matrix([[1, -1, 1, -1], [1, -1, -1, 1], [D, D, -D, -D]])
    task = tk.Task(X, g * sp.Matrix([[1, 1, -1, -1]]), symbols={"Delta": D, "gamma": g})
    return tk.Derivation(tk.GDLNSpec(task, tk.xor_relns(8)["linear"])), g


def test_gamma_scaled_outputs_half_way_time_by_hand():
    """s = γΔ/2, d = Δ²/2 (γ scales Σyx only), end point s/d = γ/Δ, and
    t½ = τ/(2s) ln(s/(d a0) − 1) = τ/(γΔ) ln(γ/(Δ a0) − 1); L(0) = ½ tr Σy = γ²/2."""
    der, g = _gamma_derivation()
    assert der.ranking[0][1] == g * D / 2 and der.modes["positive"].modes[0].d == D ** 2 / 2
    assert sp.simplify(der.end_points["positive"][0] - g / D) == 0
    assert sp.simplify(der.t_half["positive"][0] - tau / (g * D) * sp.log(g / (D * a0) - 1)) == 0
    assert sp.simplify(der.initial_loss - g ** 2 / 2) == 0


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed")
def test_gamma_document_compiles(tmp_path):
    der, _ = _gamma_derivation()
    tex = der.latex(document=True)
    assert tex.count("{") == tex.count("}")
    (tmp_path / "g.tex").write_text(tex)
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "g.tex"], cwd=tmp_path,
                       capture_output=True, text=True, errors="replace", timeout=120)
    assert r.returncode == 0, r.stdout[-800:]
    assert not re.findall(r"^! ", (tmp_path / "g.log").read_text(errors="replace"), flags=re.M)


def test_loss_over_symbols_survives_jit_vmap_grad():
    """L(t) of the γ-scaled linear ReLN: both pathways identical with a(t) the logistic, so
    L = ½ tr Σy − 2(s a − d a²/2) with ½ tr Σy = γ²/2; ∂L/∂γ at t = 0 is ∂/∂γ(γ²/2 − 2(s a0 − d a0²/2)) = γ − Δ a0 by
    hand (s = γΔ/2): checked against jax.grad; jit and vmap agree with the plain call."""
    der, g = _gamma_derivation()
    L = tk.to_jax(der.loss, [t, tau, a0, D, g])
    args = (0.0, 20.0, 1e-3, 0.5, 2.0)
    assert float(jax.grad(L, argnums=4)(*args)) == pytest.approx(2.0 - 0.5 * 1e-3, rel=1e-12)
    assert float(jax.jit(L)(*args)) == pytest.approx(float(L(*args)), rel=1e-15)
    gs = jnp.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(jax.vmap(L, in_axes=(None, None, None, None, 0))(*args[:4], gs),
                               [float(L(*args[:4], x)) for x in gs], rtol=1e-15)


# ------------------------------------------------------------------------------------------------
# to_jax of an expression free of some argument: the arguments' shape, as a JAX array
# ------------------------------------------------------------------------------------------------
def test_constant_loss_at_a_special_value_has_the_shape_of_the_times():
    """At Δ = 0 the XoR linear ReLN has nothing to learn and L(t) = ½ tr Σy = ½ for every t (docs/
    api.md). ``loss_function({"Delta": 0})`` at three times must give three values, like it does at
    Δ = 1 (it gave the Python float 0.5, which cannot be plotted against the times)."""
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns(8)["linear"]))
    ts = np.array([0.0, 100.0, 200.0])
    out = der.loss_function({"Delta": 0})(ts)
    assert isinstance(out, jax.Array) and out.shape == (3,)
    np.testing.assert_array_equal(np.asarray(out), [0.5, 0.5, 0.5])
    assert der.loss_function({"Delta": 1})(ts).shape == (3,)


def test_to_jax_broadcasts_over_every_argument():
    """f(x, y) = x (free of y) at x = 1 and y = [0, 1, 2] is [1, 1, 1], as x + 0·y would be; under jit
    and vmap likewise; a float32 argument keeps float32; grad of a constant is 0."""
    x, y = sp.symbols("x y")
    f = tk.to_jax(x, [x, y])
    np.testing.assert_array_equal(np.asarray(f(1.0, jnp.arange(3.0))), [1.0, 1.0, 1.0])
    c = tk.to_jax(sp.Rational(1, 2), [x])
    assert jax.jit(c)(jnp.arange(3.0)).shape == (3,)
    assert jax.vmap(c)(jnp.arange(3.0)).shape == (3,)
    assert c(jnp.float32(1.0)).dtype == jnp.float32
    assert float(jax.grad(c)(1.0)) == 0.0


# ------------------------------------------------------------------------------------------------
# derivations/xor_crossover on a task of one's own
# ------------------------------------------------------------------------------------------------
def test_xor_crossover_script_names_a_second_symbol():
    """``derive(task, relns)`` takes a task of one's own; one with a second symbol ε failed deep in
    SymPy (NotImplementedError: relationship did not evaluate) when it compared the ReLNs at 2Δ*.
    Now it says which symbol to give a value; with ε = 1 the crossover is √((1 + 2)/3) = 1 by hand
    (test_two_margin_crossover_by_hand_and_against_numpy)."""
    from theorykit.suites import load_package

    load_package("derivations")
    from theorykit.derivations import xor_crossover as xc

    task = _two_margin_task()
    with pytest.raises(ValueError, match="epsilon"):
        xc.derive(task, tk.xor_relns(8))
    out = xc.derive(task.subs({"epsilon": 1}), tk.xor_relns(8))
    assert out["crossover"] == 1 and out["faster_below"] == "xor" and out["faster_above"] == "linear"
