"""Rules of the exact engine (theorykit.theory.exactla, theorykit.theory.exact_values) that the random
and task-level tests of tests/test_exact_engine.py do not pin: integers beyond int64, denominators
with roots of degree ≥ 3, the block cache, Kronecker products inside one quadratic field, and the
value and vector classes. Every golden value is a hand derivation (in the comments) or a second
method (mpmath's SVD at high precision, numpy), never the engine's own output."""
import math

import flint
import mpmath
import numpy as np
import pytest
import sympy as sp

import theorykit.theory.exactla as ex
from theorykit.theory.exact_values import NumVec, QuadVec, RatVec, RawMode, SValue
from theorykit.theory.svd import exact_svd

q = flint.fmpq


def _zero(e) -> bool:
    """Exact zero test for an algebraic number (expansion, else its minimal polynomial is x)."""
    e = sp.expand(e)
    return e == 0 or sp.minimal_polynomial(e, sp.Symbol("x")) == sp.Symbol("x")


def _mp_singular_values(rows, den=1, dps=80):
    """Singular values of rows/den by mpmath's SVD at ``dps`` digits (a second method), descending."""
    with mpmath.workdps(dps):
        A = mpmath.matrix([[mpmath.mpf(int(x)) / den for x in r] for r in rows])
        return sorted((mpmath.mpf(s) for s in mpmath.svd_r(A, compute_uv=False)), reverse=True)


def _residuals(B, den, modes, dps=80):
    """Largest |M v − s u| and |Mᵀ u − s v| over the modes, M = B/den, at ``dps`` digits."""
    worst = mpmath.mpf(0)
    with mpmath.workdps(dps):
        M = [[mpmath.mpf(int(x)) / den for x in r] for r in B.tolist()]
        for m in modes:
            u, v, s = m.u.mp(), m.v.mp(), m.s.mp
            for i in range(len(M)):
                worst = max(worst, abs(mpmath.fsum(M[i][j] * v[j] for j in range(len(v))) - s * u[i]))
            for j in range(len(v)):
                worst = max(worst, abs(mpmath.fsum(M[i][j] * u[i] for i in range(len(M))) - s * v[j]))
    return worst


def _vectors_check(B, ms, den=1, dps=80, tol=None):
    """M v = s u, Mᵀ u = s v (M = B/den) and UᵀU = VᵀV = I at ``dps`` digits: an exact vector's error is
    ~10^-dps (``tol`` 10^-(dps−15) by default), a 60-digit one's ~10^-60; a wrong norm or sign of √D is
    of order 1."""
    tol = mpmath.mpf(10) ** -(dps - 15) if tol is None else tol
    assert _residuals(B, den, ms, dps) < tol
    with mpmath.workdps(dps):
        for side in ("u", "v"):
            vecs = [getattr(m, side).mp() for m in ms]
            for i, a in enumerate(vecs):
                for j, b in enumerate(vecs):
                    assert abs(mpmath.fsum(x * y for x, y in zip(a, b)) - (i == j)) < tol


# ------------------------------------------------------------------------------------------------
# integers beyond int64
# ------------------------------------------------------------------------------------------------
def test_entries_beyond_int64_stay_exact():
    """M = a·[[1, 1], [1, −1]] has MᵀM = 2a²·I (hand), so σ = a√2 twice. With a = 2⁷⁰ or 2⁶³ the entries
    do not fit an int64 at all; with a = 3·10⁹ they do, but 2a² ≈ 1.8·10¹⁹ (an entry of the Gram matrix)
    does not: an int64 product would wrap around silently."""
    for a in (2 ** 70, 2 ** 63, 3 * 10 ** 9):
        M = sp.Matrix([[a, a], [a, -a]])
        svd = exact_svd(M)
        assert svd.singular_values == [a * sp.sqrt(2)] * 2
        assert sp.simplify(svd.reconstruct() - M) == sp.zeros(2, 2)


def test_int64_wraparound_does_not_fake_a_kronecker_factor():
    """C = [[2³², 1], [2³², 2³² + 1]] has det C = 2³²(2³² + 1) − 2³² = 2⁶⁴ ≠ 0 (hand), so it has rank 2 and
    is no Kronecker product of a 2 × 1 and a 1 × 2 factor (that has rank 1). Its rank-1 test
    T[i]·b[k] = T[i, k]·b holds modulo 2⁶⁴ (2³²·2³² and (2³² + 1)·2³² − 2³² wrap to 0), so in int64 it
    would pass. The singular values are checked against mpmath's SVD at 80 digits (a second method),
    and their product against |det C| = 2⁶⁴."""
    t = 2 ** 32
    B = np.array([[t, 1], [t, t + 1]], dtype=np.int64)
    before = ex.STATS["kronecker"]
    ms = ex.rational_svd(B, 1, {})
    assert ex.STATS["kronecker"] == before
    want = _mp_singular_values(B.tolist())
    with mpmath.workdps(80):
        assert len(ms) == 2
        for m, w in zip(ms, want):
            assert abs(mpmath.mpf(str(sp.N(m.s.expr(), 70))) - w) < mpmath.mpf(10) ** -50 * w
        assert abs(ms[0].s.mp * ms[1].s.mp - 2 ** 64) < mpmath.mpf(10) ** -40 * 2 ** 64
        assert _residuals(B, 1, ms) < mpmath.mpf(10) ** -40 * t


# ------------------------------------------------------------------------------------------------
# a common denominator with a root of degree ≥ 3
# ------------------------------------------------------------------------------------------------
def test_roots_of_degree_three_divide_by_the_denominator():
    """B = [[0, 0, −1], [1, 3, 0], [−1, 0, −3]]: BᵀB = [[2, 3, 3], [3, 9, 0], [3, 0, 10]] has the
    characteristic polynomial x³ − 21x² + 110x − 9 (hand: trace 21, sum of principal 2 × 2 minors
    9 + 11 + 90 = 110, det 180 − 90 − 81 = 9), irreducible (no rational root among ±1, ±3, ±9), so each σ is a root of a degree-6 polynomial. For M = B/7 every
    value is that of B over 7 and every vector is that of B: the values against mpmath's SVD of B/7 at
    80 digits (a second method), the exact value (CRootOf) and its text against the same, and
    M v = s u, Mᵀ u = s v with orthonormal U, V to 10⁻⁴⁰."""
    B = np.array([[0, 0, -1], [1, 3, 0], [-1, 0, -3]])
    x = sp.Symbol("x")
    assert sp.Matrix(B.T @ B).charpoly(x).as_expr() == x ** 3 - 21 * x ** 2 + 110 * x - 9
    ms = ex.rational_svd(B, 7, {})
    want = _mp_singular_values(B.tolist(), 7)
    assert len(ms) == 3 and all(m.s.kind == "root" for m in ms)
    with mpmath.workdps(80):
        for m, w in zip(ms, want):
            assert abs(m.s.mp - w) < mpmath.mpf(10) ** -50
            assert abs(mpmath.mpf(str(sp.N(m.s.expr(), 70))) - w) < mpmath.mpf(10) ** -50
            assert abs(mpmath.mpf(str(sp.N(sp.sympify(m.s.text()), 70))) - w) < mpmath.mpf(10) ** -50
    _vectors_check(B, ms, 7, tol=mpmath.mpf(10) ** -40)


# ------------------------------------------------------------------------------------------------
# the block cache
# ------------------------------------------------------------------------------------------------
def _numpy_check(M, ms):
    """Values against numpy's SVD and U S Vᵀ = M (floats, a second method)."""
    M = np.asarray(M, dtype=float)
    s = np.array([float(m.s.mp) for m in ms])
    np.testing.assert_allclose(s, np.linalg.svd(M, compute_uv=False)[: len(s)], rtol=1e-12)
    U = np.column_stack([m.u.floats() for m in ms])
    V = np.column_stack([m.v.floats() for m in ms])
    np.testing.assert_allclose(U @ np.diag(s) @ V.T, M, atol=1e-12 * np.abs(M).max())


def test_one_cache_shared_by_denominators_and_shapes():
    """A cache shared between calls keys a block by its shape and denominator too: B over 1 and over 2
    (values halve), then Bᵀ, then Y = [[1, 2], [3, 4], [5, 6]]: B and Y are both in canonical order (rows
    and columns ascending) and read row by row are the same six numbers 1..6; and a Kronecker product (A ⊗ A, A = [[1, 2], [0, 1]]) over 1 and over 3. Each call is checked
    against numpy (values and U S Vᵀ = M)."""
    cache: dict = {}
    B = np.array([[1, 2, 3], [4, 5, 6]])
    Y = np.array([[1, 2], [3, 4], [5, 6]])
    for Bi, den in ((B, 1), (B, 2), (B.T.copy(), 1), (B.T.copy(), 5), (Y, 1), (Y, 2)):
        ms = ex.rational_svd(Bi, den, cache)
        assert all(len(m.u.floats()) == Bi.shape[0] and len(m.v.floats()) == Bi.shape[1] for m in ms)
        _numpy_check(Bi / den, ms)
    K = np.kron(np.array([[1, 2], [0, 1]]), np.array([[1, 2], [0, 1]]))
    for den in (1, 3):
        _numpy_check(K / den, ex.rational_svd(K, den, cache))


# ------------------------------------------------------------------------------------------------
# Kronecker products inside one quadratic field
# ------------------------------------------------------------------------------------------------
def test_kronecker_square_of_a_golden_matrix_stays_in_its_field():
    """A = [[1, 1], [0, 1]]: AᵀA = [[1, 1], [1, 2]], eigenvalues (3 ± √5)/2, so σ_A = φ, 1/φ with
    φ = (1 + √5)/2 (hand). A ⊗ A has σ = φ², 1, 1, φ⁻² = (3 + √5)/2, 1, 1, (3 − √5)/2: surds of ℚ(√5),
    not roots of a resultant's factor. The two equal values share one value object, and the vectors
    are exact (ℚ(√5)) with M v = s u, Mᵀ u = s v proved and U, V orthonormal."""
    A = np.array([[1, 1], [0, 1]])
    K = np.kron(A, A)
    before = ex.STATS["kronecker"]
    ms = ex.rational_svd(K, 1, {})
    assert ex.STATS["kronecker"] == before + 1
    r5 = sp.sqrt(5)
    want = [(3 + r5) / 2, sp.Integer(1), sp.Integer(1), (3 - r5) / 2]
    assert len(ms) == 4 and all(m.s.kind != "root" for m in ms)
    for m, w in zip(ms, want):
        assert _zero(m.s.expr() - w), (m.s.expr(), w)
    assert ms[1].s is ms[2].s
    assert all(m.u.exact and m.v.exact for m in ms)
    _vectors_check(K, ms)
    # beside a block [[1]] (value 1 from a rational Gram root) the three 1's are one exact value
    Kd = np.zeros((5, 5), dtype=np.int64)
    Kd[:4, :4], Kd[4, 4] = K, 1
    md = ex.rational_svd(Kd, 1, {})
    assert [m.s.expr() for m in md][1:4] == [1, 1, 1] and md[1].s is md[2].s is md[3].s


@pytest.mark.parametrize("order", ["quad_rat", "rat_quad"])
def test_kronecker_of_a_quadratic_and_a_rational_factor(order):
    """A = [[1, 1], [0, 1]] (σ = φ, 1/φ, vectors in ℚ(√5)) and R = [[1, 2], [2, 1]] (symmetric, eigenvalues
    3 and −1, so σ = 3, 1 with rational vectors; hand). A ⊗ R and R ⊗ A have σ = 3φ, φ·1... i.e. the
    products {3φ, φ, 3/φ, 1/φ}, descending 3φ > 3/φ > φ > 1/φ (3/φ = 1.854 > φ = 1.618). The vectors are
    exact (ℚ(√5)) and satisfy M v = s u, Mᵀ u = s v and orthonormality."""
    A, R = np.array([[1, 1], [0, 1]]), np.array([[1, 2], [2, 1]])
    K = np.kron(A, R) if order == "quad_rat" else np.kron(R, A)
    ms = ex.rational_svd(K, 1, {})
    phi = (1 + sp.sqrt(5)) / 2
    want = [3 * phi, 3 / phi, phi, 1 / phi]
    assert len(ms) == 4
    for m, w in zip(ms, want):
        assert _zero(m.s.expr() - w)
        assert m.u.exact and m.v.exact
    _vectors_check(K, ms)


def _quad_value(p0, p1, D):
    """SValue √(p0 + p1√D), its value from mpmath."""
    with mpmath.workdps(80):
        mp = mpmath.sqrt(mpmath.mpf(p0) + mpmath.mpf(p1) * mpmath.sqrt(D))
    return SValue("quad", (q(p0), q(p1), q(D)), mp, sp.sqrt(p0 + p1 * sp.sqrt(D)))


def test_product_of_values_written_over_two_discriminants_of_one_field():
    """√(3 + √8) = 1 + √2 (as (1 + √2)² = 3 + 2√2) and √(12 − 8√2) = 2(√2 − 1) (as 4(3 − 2√2) = 12 − 8√2),
    by hand: D = 8 and D = 2 name one field, so the product goes through the resultant, whose factor
    vanishing at it is x − 2. The product is 2 = √4: a surd with data 4. And 1 + √2 times √3 (a
    rational square) is √(9 + 3√8) in ℚ(√8)."""
    x, y = _quad_value(3, 1, 8), _quad_value(12, -8, 2)
    s = ex._sv_mul(x, y)
    assert s.kind == "sqrt" and s.data == 4 and s.expr() == 2
    with mpmath.workdps(80):
        r3 = SValue("sqrt", q(3), mpmath.sqrt(3), sp.sqrt(3))
    t = ex._sv_mul(x, r3)
    assert t.kind == "quad" and t.data == (q(9), q(3), q(8))
    assert _zero(t.expr() - sp.sqrt(3) * (1 + sp.sqrt(2)))


# ------------------------------------------------------------------------------------------------
# the value and vector classes
# ------------------------------------------------------------------------------------------------
def test_rational_vector_values_and_its_quadratic_form():
    """w = (3, 4), N = 25: the unit vector (3/5, 4/5) (hand). With S = diag(2, 3): d = (9·2 + 16·3)/25
    = 66/25, and S w = (6, 12) is not a multiple of w; with S = 5·I it is (d = 5)."""
    v = RatVec(flint.fmpq_mat(2, 1, [3, 4]), 25)
    with mpmath.workdps(60):
        assert all(abs(a - b) < mpmath.mpf(10) ** -55 for a, b in zip(v.mp(), [mpmath.mpf(3) / 5, mpmath.mpf(4) / 5]))
    np.testing.assert_allclose(v.floats(), [0.6, 0.8], rtol=1e-15)
    assert v.sympy() == sp.Matrix([sp.Rational(3, 5), sp.Rational(4, 5)])
    assert v.first_sign() == 1 and v.neg().first_sign() == -1
    assert v.quad_form(flint.fmpq_mat(2, 2, [2, 0, 0, 3])) == (sp.Rational(66, 25), False)
    assert v.quad_form(flint.fmpq_mat(2, 2, [5, 0, 0, 5])) == (5, True)


def test_quadratic_vector_sign_and_quadratic_form():
    """(c + e√D)/√(P + Q√D) with c = (0, 1), e = (−1, 0), D = 2 is (−√2, 1)/√3 (P = 3, Q = 0): its first
    non-zero entry is −√2/√3, negative, though its rational part there is 0 (hand).
    v = (1 + √2, 1) (c = (1, 1), e = (1, 0)) has |v|² = (3 + 2√2) + 1 = 4 + 2√2 (P = 4, Q = 2); with
    S = diag(1, 3): vᵀSv/|v|² = (6 + 2√2)/(4 + 2√2) = 2 − √2/2 (multiply by (2 − √2)/(2 − √2)), and S v is
    no multiple of v. w = (1, √2, √2) (c = (1, 0, 0), e = (0, 1, 1), |w|² = 5) with S = diag(1, 2, 0):
    wᵀSw/5 = (1 + 4)/5 = 1 and S c = c, but S e = (0, 2, 0) ≠ e: not an eigenvector."""
    col = lambda *x: flint.fmpq_mat(len(x), 1, list(x))       # noqa: E731
    a = QuadVec(col(0, 1), col(-1, 0), 2, 3, 0)
    assert a.first_sign() == -1 and a.neg().first_sign() == 1
    np.testing.assert_allclose(a.floats(), [-math.sqrt(2 / 3), math.sqrt(1 / 3)], rtol=1e-15)
    b = QuadVec(col(1, 1), col(1, 0), 2, 4, 2)
    np.testing.assert_allclose(b.floats(), np.array([1 + math.sqrt(2), 1]) / math.sqrt(4 + 2 * math.sqrt(2)), rtol=1e-15)
    assert all(_zero(x - y) for x, y in zip(b.sympy(), sp.Matrix([1 + sp.sqrt(2), 1]) / sp.sqrt(4 + 2 * sp.sqrt(2))))
    d, ok = b.quad_form(flint.fmpq_mat(2, 2, [1, 0, 0, 3]))
    assert _zero(d - (2 - sp.sqrt(2) / 2)) and not ok
    d, ok = b.quad_form(flint.fmpq_mat(2, 2, [7, 0, 0, 7]))
    assert d == 7 and ok
    w = QuadVec(col(1, 0, 0), col(0, 1, 1), 2, 5, 0)
    d, ok = w.quad_form(flint.fmpq_mat(3, 3, [1, 0, 0, 0, 2, 0, 0, 0, 0]))
    assert d == 1 and not ok


def test_numeric_vector_sign_digits_and_quadratic_form():
    """A NumVec's sign is its first entry above 10⁻⁴⁵ of its largest (1e−5 counts: sign +); its SymPy
    form keeps 40 digits; (0.6, 0.8) with S = diag(1, 2) gives d = 0.36 + 1.28 = 1.64 and is no
    eigenvector (S v = (0.6, 1.6)), with S = 3·I it is (hand)."""
    with mpmath.workdps(80):
        assert NumVec([mpmath.mpf("1e-5"), mpmath.mpf(-1)]).first_sign() == 1
        assert NumVec([mpmath.mpf("1e-70"), mpmath.mpf(-1)]).first_sign() == -1
        third = mpmath.mpf(1) / 3
        v = NumVec([mpmath.mpf(3) / 5, mpmath.mpf(4) / 5])
    assert abs(NumVec([third]).sympy()[0] - sp.Rational(1, 3)) < sp.Float("1e-38", 40)
    d, ok = v.quad_form(flint.fmpq_mat(2, 2, [1, 0, 0, 2]))
    assert abs(d - sp.Rational(41, 25)) < 1e-28 and not ok
    d, ok = v.quad_form(flint.fmpq_mat(2, 2, [3, 0, 0, 3]))
    assert abs(d - 3) < 1e-28 and ok
    assert not RawMode(None, RatVec(flint.fmpq_mat(1, 1, [1]), 1), v).exact_vectors
    assert RawMode(None, RatVec(flint.fmpq_mat(1, 1, [1]), 1), RatVec(flint.fmpq_mat(1, 1, [1]), 1)).exact_vectors


def test_kronecker_factors_from_two_quadratic_fields():
    """A = [[1, 1], [0, 1]] (σ = φ, 1/φ in ℚ(√5)) and B = [[1, 2], [0, 1]] (BᵀB = [[1, 2], [2, 5]], trace 6,
    det 1: eigenvalues 3 ± 2√2 = (1 ± √2)², σ = √2 + 1, √2 − 1 in ℚ(√2); hand). A ⊗ B is found as a
    Kronecker product and its values are the products, of degree 4 over ℚ (roots of a resultant's
    factor, not a fallback to a direct solve): φ(√2 + 1) > (√2 + 1)/φ > φ(√2 − 1) > (√2 − 1)/φ
    (3.906, 1.492, 0.670, 0.256). Each exact value and its text equal these; vectors satisfy
    M v = s u, Mᵀ u = s v and orthonormality to 10⁻⁶⁰."""
    A, B = np.array([[1, 1], [0, 1]]), np.array([[1, 2], [0, 1]])
    K = np.kron(A, B)
    before = dict(ex.STATS)
    ms = ex.rational_svd(K, 1, {})
    assert ex.STATS["kronecker"] == before["kronecker"] + 1
    assert ex.STATS["kronecker_fallback"] == before["kronecker_fallback"]
    phi, r2 = (1 + sp.sqrt(5)) / 2, sp.sqrt(2)
    want = [phi * (r2 + 1), (r2 + 1) / phi, phi * (r2 - 1), (r2 - 1) / phi]
    assert len(ms) == 4
    with mpmath.workdps(80):
        for m, w in zip(ms, want):
            wv = mpmath.mpf(str(sp.N(w, 75)))
            assert abs(mpmath.mpf(str(sp.N(m.s.expr(), 75))) - wv) < mpmath.mpf(10) ** -60
            assert abs(mpmath.mpf(str(sp.N(sp.sympify(m.s.text()), 75))) - wv) < mpmath.mpf(10) ** -60
            assert abs(m.s.mp - wv) < mpmath.mpf(10) ** -60
    _vectors_check(K, ms)


def test_a_rank_one_outer_product_is_a_kronecker_product():
    """a bᵀ with a = (1, 2) and b = (3, 0, 4) is the Kronecker product of a 2 × 1 and a 1 × 3 factor (the
    factor shapes may span a whole side): found, with the one value |a||b| = √5·5 (hand), u = a/|a|,
    v = b/|b|."""
    C = np.array([[3, 0, 4], [6, 0, 8]])
    before = ex.STATS["kronecker"]
    ms = ex.rational_svd(C, 1, {})
    assert ex.STATS["kronecker"] == before + 1
    assert len(ms) == 1 and sp.simplify(ms[0].s.expr() - 5 * sp.sqrt(5)) == 0
    np.testing.assert_allclose(ms[0].u.floats(), np.array([1, 2]) / math.sqrt(5), rtol=1e-15)
    np.testing.assert_allclose(ms[0].v.floats(), [0.6, 0, 0.8], rtol=1e-15, atol=0)


def test_equal_values_keep_the_order_they_are_found_in_not_their_rounding():
    """A = [[1, 1], [1, 1], [1, 1], [1, −1]]: AᵀA = [[4, 2], [2, 4]], σ_A = √6, √2 with v = (1, 1)/√2,
    (1, −1)/√2; B = [[1, 1], [0, 1], [1, 0]]: BᵀB = [[2, 1], [1, 2]], σ_B = √3, 1 with the same v's (hand).
    A ⊗ B has σ = √18, √6, √6, √2; the two √6 (√6·1 and √2·√3) are one exact value, in the order they
    are found (A's modes outer, B's inner): v = v_A1 ⊗ v_B2 = (1, −1, 1, −1)/2 first, then
    v_A2 ⊗ v_B1 = (1, 1, −1, −1)/2, although at 80 digits √2·√3 rounds above √6."""
    A = np.array([[1, 1], [1, 1], [1, 1], [1, -1]])
    B = np.array([[1, 1], [0, 1], [1, 0]])
    with mpmath.workdps(80):
        assert mpmath.sqrt(2) * mpmath.sqrt(3) > mpmath.sqrt(6)      # the rounding this test is about
    ms = ex.rational_svd(np.kron(A, B), 1, {})
    assert [m.s.expr() for m in ms] == [3 * sp.sqrt(2), sp.sqrt(6), sp.sqrt(6), sp.sqrt(2)]
    assert ms[1].s is ms[2].s
    np.testing.assert_allclose(ms[1].v.floats(), [0.5, -0.5, 0.5, -0.5], atol=1e-15)
    np.testing.assert_allclose(ms[2].v.floats(), [0.5, 0.5, -0.5, -0.5], atol=1e-15)


def test_kronecker_values_over_a_denominator():
    """R = [[1, 2], [2, 1]] is symmetric with eigenvalues 3 and −1, so σ_R = 3, 1 (hand); (R ⊗ R)/2 has
    σ = 9/2, 3/2, 3/2, 1/2, rational, solved from the factors."""
    R = np.array([[1, 2], [2, 1]])
    before = ex.STATS["kronecker"]
    ms = ex.rational_svd(np.kron(R, R), 2, {})
    assert ex.STATS["kronecker"] == before + 1
    assert [m.s.expr() for m in ms] == [sp.Rational(9, 2), sp.Rational(3, 2), sp.Rational(3, 2), sp.Rational(1, 2)]
    _vectors_check(np.kron(R, R), ms, 2)


def test_kronecker_of_a_degree_three_factor_and_a_surd():
    """B3 = [[0, 0, −1], [1, 3, 0], [−1, 0, −3]] (σ roots of a degree-6 polynomial, see above) times the
    row [[1, 1]] (σ = √2): [[1, 1]] ⊗ B3 = [B3, B3] has σ = √2·σ(B3). Values against mpmath's SVD of the
    3 × 6 matrix at 80 digits (a second method), as exact values and as text; vectors to 10⁻⁴⁰."""
    B3 = np.array([[0, 0, -1], [1, 3, 0], [-1, 0, -3]])
    K = np.kron(np.array([[1, 1]]), B3)
    before = ex.STATS["kronecker"]
    ms = ex.rational_svd(K, 1, {})
    assert ex.STATS["kronecker"] == before + 1
    want = _mp_singular_values(K.tolist())
    assert len(ms) == 3 and all(m.s.kind == "root" for m in ms)
    with mpmath.workdps(80):
        for m, w in zip(ms, want):
            assert abs(mpmath.mpf(str(sp.N(m.s.expr(), 70))) - w) < mpmath.mpf(10) ** -50
            assert abs(mpmath.mpf(str(sp.N(sp.sympify(m.s.text()), 70))) - w) < mpmath.mpf(10) ** -50
    _vectors_check(K, ms, tol=mpmath.mpf(10) ** -40)


@pytest.mark.parametrize("dtype, a", [(np.int8, 100), (np.uint8, 200), (np.int16, 1000), (np.uint16, 1000),
                                      (np.int32, 100_000), (np.uint32, 100_000), (np.uint64, 2 ** 63)])
def test_integer_arrays_of_any_width_give_the_exact_svd(dtype, a):
    """exact_svd((B, den)) with B of any integer dtype: int32 (NumPy's default integer on Windows), int8,
    unsigned ones. Their products used to be taken in the array's own width, which wraps around (a
    TypeError from inside the engine, or silently wrong values for unsigned ones). B = a·[[1, 1], [1, 0]]:
    BᵀB = a²·[[2, 1], [1, 1]], eigenvalues a²(3 ± √5)/2, so σ(B/3) = aφ/3, a/(3φ) with φ = (1 + √5)/2 (hand)."""
    B = np.array([[a, a], [a, 0]], dtype=dtype)
    svd = exact_svd((B, 3))
    phi = (1 + sp.sqrt(5)) / 2
    got = svd.singular_values
    assert len(got) == 2 and _zero(got[0] - a * phi / 3) and _zero(got[1] - a / (3 * phi))


def test_integer_arrays_of_objects_are_read_as_integers_or_refused():
    """(B, den) with B an object array: Python or NumPy integers are read exactly as Python integers
    (np.int64 entries 2⁴⁰ wrapped around in the Kronecker test's products, an AssertionError from inside
    the engine: B = 2⁴⁰·[[1, 1], [1, −1]] has σ = 2⁴⁰√2 twice, hand, as in
    test_entries_beyond_int64_stay_exact); a non-integer entry (Fraction(1, 2), which int() truncated to
    0, giving σ = 1 for [[1/2, 1]] instead of √5/2) is refused naming M."""
    from fractions import Fraction

    from theorykit.errors import SpecError

    t = np.int64(2 ** 40)
    B = np.array([[t, t], [t, -t]], dtype=object)
    assert exact_svd((B, 1)).singular_values == [2 ** 40 * sp.sqrt(2)] * 2
    with pytest.raises(SpecError, match="integers") as e:
        exact_svd((np.array([[Fraction(1, 2), 1]], dtype=object), 1))
    assert e.value.field == "M"
