"""A theorist's session (149): tasks over a cubic field, symbolic parameters other than Δ, graphs with
shared edges. Goldens come from hand derivations (in comments) or a second method (numpy's SVD)."""
import flint
import numpy as np
import sympy as sp

import theorykit as tk
from theorykit.theory.exactla import rational_svd

# Y = M below on the inputs X = I₃ (P = 3): Σyx = M/3, Σx = I/3. By hand, M Mᵀ = [[5, 2, 1], [2, 10, 3],
# [1, 3, 2]], with characteristic polynomial λ³ − 17λ² + 66λ − 49 (trace 17; the principal 2 × 2 minors
# 46 + 9 + 11 = 66; det 49), which has no rational root (±1, ±7, ±49 all miss), so it is irreducible over ℚ:
# the singular values √λ/3 lie in a cubic field and each v is a vector over it.
M = [[1, 2, 0], [0, 1, 3], [1, 0, 1]]


def _one_pathway(X, Y):
    P = sp.Matrix(X).cols
    return tk.Derivation(tk.GDLNSpec(tk.Task(sp.Matrix(X), sp.Matrix(Y), name="cubic"),
                                     (tk.Pathway("all", active=(1,) * P),), tk.Training(lr=0.01, a0=1e-3)))


def test_the_cubic_task_is_over_a_cubic_field():
    lam = sp.Symbol("lam")
    poly = (sp.Matrix(M) * sp.Matrix(M).T).charpoly(lam).as_expr()
    assert sp.expand(poly - (lam ** 3 - 17 * lam ** 2 + 66 * lam - 49)) == 0
    assert sp.Poly(poly, lam).is_irreducible


def test_input_variance_over_a_cubic_field_is_exact():
    """d = vᵀ Σx v with Σx = I/3 and v a unit vector is 1/3 exactly, whatever v is; it was the float
    0.333333333333333333333333333333 (30 digits), and with it the half-way times had a factor 3.0 and
    the loss floats 1.5."""
    der = _one_pathway(sp.eye(3), M)
    modes = der.modes["all"].modes
    assert len(modes) == 3 and not any(m.exact_vectors for m in modes)
    for m in modes:
        assert m.d == sp.Rational(1, 3)
    # singular values: exact (roots of one irreducible polynomial), descending, numpy's to 1e-12
    np_s = np.linalg.svd(np.array(M, float) / 3, compute_uv=False)
    assert np.allclose([float(m.s.evalf(30)) for m in modes], np_s, rtol=0, atol=1e-12)
    for expr in [*der.t_half["all"], *der.trajectories["all"], der.loss]:
        assert not expr.atoms(sp.Float), expr


def test_input_variance_over_a_cubic_field_matches_numpy():
    """Σx not ∝ I (X = diag(1, 2, 3)): d is exact, no float in it, and equals vᵀ Σx v from numpy's SVD."""
    X = sp.diag(1, 2, 3)
    der = _one_pathway(X, M)
    Syx = np.array(M, float) @ np.diag([1.0, 2, 3]) / 3
    Sx = np.diag([1.0, 4, 9]) / 3
    _, S, Vt = np.linalg.svd(Syx)
    modes = der.modes["all"].modes
    assert np.allclose([float(m.s.evalf(30)) for m in modes], S, rtol=0, atol=1e-12)
    for m, v in zip(modes, Vt):
        assert not m.d.atoms(sp.Float), m.d
        assert abs(float(m.d.evalf(30)) - v @ Sx @ v) < 1e-12


def test_root_vectors_quad_form_exact_on_both_sides():
    """The engine's vectors over a cubic field, on the Gram side (v of a tall block) and the other side
    (u = B v/s): uᵀ I u = 1 exactly, vᵀ S v equals numpy's for a random S, and "S v = d v" is decided
    exactly: true for S = 2I, false for a generic S (checked against numpy's residual)."""
    rng = np.random.default_rng(7)
    seen = 0
    for B in (np.array(M), np.array(M).T, np.array([[1, 2, 0, 0], [0, 1, 3, 0], [1, 0, 1, 1]])):
        for m in rational_svd(B, 2):
            if m.v.exact:             # rational or quadratic: not the case here
                continue
            seen += 1
            r, c = B.shape
            du, oku = m.u.quad_form(flint.fmpq_mat(r, r, [1 if i == j else 0 for i in range(r) for j in range(r)]))
            assert du == 1 and du.is_Rational and oku
            d2, ok2 = m.v.quad_form(flint.fmpq_mat(c, c, [2 if i == j else 0 for i in range(c) for j in range(c)]))
            assert d2 == 2 and d2.is_Rational and ok2
            A = rng.integers(-2, 3, size=(c, c))
            S = A @ A.T + np.eye(c, dtype=int)
            d, ok = m.v.quad_form(flint.fmpq_mat(c, c, [int(x) for x in S.flat]))
            v = np.array([float(x) for x in m.v.vals])
            assert not d.atoms(sp.Float) and abs(float(d.evalf(30)) - v @ S @ v) < 1e-12
            assert ok == (np.linalg.norm(S @ v - (v @ S @ v) * v) < 1e-9)
    assert seen == 9          # three cubic modes each; the 3 × 4 block (B Bᵀ: λ³ − 18λ² + 81λ − 95) is solved on the u side


def test_latex_names_roots_of_a_cubic_field_and_breaks_a_long_loss():
    """The LaTeX of the cubic task: each CRootOf singular value is given once (in the modes) and named
    s_{p,α} in t½ and L, which were a page of CRootOf(729x⁶ − …) each; a long loss is one term a line
    (it was one display line 3,000 pt wider than the page). t½ is the hand formula τ/(2s) ln(s/(d a₀) − 1)
    with d = 1/3 (Σx = I/3, v a unit vector) and s the named root."""
    der = _one_pathway(sp.eye(3), M)
    tex = der.latex(document=True)
    after = tex.split(r"\subsection*{4. Trajectories}")[1].split(r"\subsection*{Ranking by speed}")[0]
    assert "CRootOf" not in after
    tau, a0 = sp.symbols("tau a_0", positive=True)
    for i in (1, 2, 3):
        s = sp.Symbol(rf"s_{{\mathrm{{all}},{i}}}", positive=True)
        hand = tau / (2 * s) * sp.log(s / (sp.Rational(1, 3) * a0) - 1)
        assert rf"t_{{1/2}}(\mathrm{{all}}, {i}) = " + sp.latex(hand) in after
    assert r"\begin{align*} L(t) &= " in after
    loss = after.split(r"\begin{align*} L(t) ")[1].split(r"\end{align*}")[0]
    assert all(len(line) < 400 for line in loss.split(r"\\"))
    # the roots are still defined, by their minimal polynomial, where the modes are given
    assert tex.count(r"\operatorname{CRootOf}") >= 3


def test_vectors_over_a_cubic_field_are_exact_in_the_latex():
    """v of the cubic task, exactly. By hand: with α = 9s² (an eigenvalue of MᵀM = [[2, 2, 1], [2, 5, 3],
    [1, 3, 10]], as Σyx = M/3), w = (α² − 15α + 41, 2α − 17, α + 1) solves (MᵀM − α)w = 0: row 3 gives
    α² − 15α + 41 + 6α − 51 + (10 − α)(α + 1) = 0, row 2 gives 0 the same way, and row 1 gives −(α³ − 17α²
    + 66α − 49) = 0. So v = ±(81s⁴ − 135s² + 41, 18s² − 17, 9s² + 1)/‖·‖, which was "(numeric)" in the LaTeX.
    Every mode's exact v (also with Σx = diag(1, 4, 9)/3) evaluates to numpy's v, first entry positive."""
    der = _one_pathway(sp.eye(3), M)
    tex = der.latex(document=True)
    s1 = sp.Symbol(r"s_{\mathrm{all},1}", positive=True)
    assert sp.latex(sp.Matrix([[81 * s1 ** 4 - 135 * s1 ** 2 + 41, 18 * s1 ** 2 - 17, 9 * s1 ** 2 + 1]])) in tex
    assert "(numeric)" not in tex
    for X, Xn in ((sp.eye(3), np.eye(3)), (sp.diag(1, 2, 3), np.diag([1.0, 2, 3]))):
        modes = _one_pathway(X, M).modes["all"].modes
        _, _, Vt = np.linalg.svd(np.array(M, float) @ Xn / 3)
        for m, v in zip(modes, Vt):
            v = v if v[0] > 0 else -v
            entries, R = m.raw.v.in_s(m.s)
            exact = [float((e / sp.sqrt(R)).evalf(30)) for e in entries]
            assert np.allclose(exact, v, rtol=0, atol=1e-12), (exact, v)


def test_a_field_of_degree_five_keeps_d_a_number_and_rational_d_exact():
    """Past a quartic field the exact d (a polynomial in s) grows fast: over a field of degree 24 one d was
    95,710 characters and the LaTeX took a minute. There d stays the 30-digit number (numpy's vᵀ Σx v) and
    v "(numeric)"; a rational d (Σx = I/5: d = 1/5 for a unit v, by hand) is exact at any degree.
    B below: BᵀB has the irreducible characteristic polynomial λ⁵ − 39λ⁴ + 514λ³ − 2865λ² + 6371λ − 3249."""
    B = [[1, 2, 0, 0, 1], [0, 1, 3, 0, 0], [1, 0, 1, 2, 0], [0, 0, 1, 1, 3], [2, 0, 0, 1, 1]]
    lam = sp.Symbol("lam")
    assert sp.Poly((sp.Matrix(B).T * sp.Matrix(B)).charpoly(lam).as_expr(), lam).is_irreducible
    assert all(m.d == sp.Rational(1, 5) for m in _one_pathway(sp.eye(5), B).modes["all"].modes)
    der = _one_pathway(sp.diag(1, 2, 3, 1, 2), B)
    Xn = np.diag([1.0, 2, 3, 1, 2])
    _, _, Vt = np.linalg.svd(np.array(B, float) @ Xn / 5)
    Sx = Xn @ Xn / 5
    for m, v in zip(der.modes["all"].modes, Vt):
        assert isinstance(m.d, sp.Float) and abs(float(m.d) - v @ Sx @ v) < 1e-12
    assert "(numeric)" in der.latex()
