"""Exact SVDs of rational matrices by exact linear algebra (python-flint), with no guessing.

This is the engine behind :func:`theorykit.theory.svd.exact_svd` for matrices with rational entries
(every numeric task). Nothing here identifies a number from its digits: every exact value comes
from exact arithmetic over ℚ or over ℚ(α) for an algebraic α.

Method, for an integer matrix ``B`` with common denominator ``den`` (the matrix is ``B/den``):

1. **Structure.** Zero rows and columns are dropped and the bipartite non-zero pattern is split
   into connected blocks (a block-diagonal matrix, up to row and column permutations, has the union
   of its blocks' SVDs). Each block is brought to a canonical row/column order (rows and columns
   sorted as tuples until stable) and the SVD of each *distinct* canonical block is computed once
   (``cache``): repeated blocks inside a matrix, and pathways whose correlations are permutations
   of one another (the (k−1)-context pathways of the contexts task), cost one SVD.
   **Kronecker factors** are found first, in the order the block is given: ``C = A ⊗ B`` exactly
   when the Van Loan–Pitsianis rearrangement (rows: the flattened sub-blocks) has rank 1 over ℚ,
   tried for every pair of factor shapes that divide the dimensions. Then ``A`` and ``B`` are solved
   (recursively, through the same cache) and combined: ``σ = σ_A σ_B`` (exact, in ℚ, one quadratic
   field, or as a root of the irreducible factor of a resultant), ``u = u_A ⊗ u_B``,
   ``v = v_A ⊗ v_B``. ``STATS`` counts how often this was used.
2. **Gram matrix and characteristic polynomial.** ``G`` is the smaller of ``BᵀB`` and ``BBᵀ``
   (an integer matrix). Its characteristic polynomial is computed and factored over ℚ by FLINT.
3. **Eigenspaces.** For each irreducible factor ``f`` (degree ``m``, multiplicity ``μ``) the
   invariant subspace ``W = ker f(G)`` (dimension ``mμ``) is an exact rational null space. It is
   split into ``μ`` mutually orthogonal cyclic (Krylov) subspaces ``{w, Gw, …, G^{m−1}w}`` by exact
   Gram–Schmidt over ℚ. For each root ``α`` of ``f`` the vector ``q_α(G) w``, with
   ``q_α(x) = f(x)/(x − α)``, is an eigenvector of ``G`` for ``α`` (``(G − α)q_α(G)w = f(G)w = 0``),
   and eigenvectors from different cyclic subspaces are orthogonal: an orthogonal eigenbasis with
   no arithmetic in ℚ(α) beyond the coefficients of ``q_α``.
4. **Values.** ``m = 1``: ``α`` is rational, ``σ = √α/den`` a surd, vectors are rational vectors
   over a surd norm. ``m = 2``: ``α = (−b ± √Δ)/2a`` and everything lives in ℚ(√Δ) (exact; nested
   square roots denested when ``P² − Q²Δ`` is a rational square, which is a proof, not a guess).
   ``m ≥ 3``: the singular value is kept as an irreducible integer polynomial and a root index
   (``CRootOf``; the SymPy object is built only when the expression is asked for, its text is
   written directly) and the vectors are evaluated from the exact Krylov form at 256-bit precision;
   that form is kept too (``RootVec``: entries polynomials in α over the square root of one), so
   that ``d = vᵀ Σx v`` is exact in ℚ(α) and v can be written exactly.

Cost: one characteristic polynomial, one factorisation and one null space per distinct irreducible
factor of each distinct block, all in FLINT (C); the Python work grows with the number of modes
times the block size.
"""
from __future__ import annotations

import math

import flint
import mpmath
import numpy as np
import sympy as sp

from .exact_values import DPS, PREC_BITS, NumVec, QuadVec, RatVec, RawMode, RootVec, SValue, _col, _dot, _hp, _mpq, _q, _sqrt_quad

__all__ = ["rational_parts", "rational_svd", "STATS"]


def rational_parts(M: sp.Matrix):
    """``(B, den)`` with ``M = B/den``, ``B`` an integer numpy array (int64 or object), or ``None``
    when an entry is not rational."""
    flat = [x for row in M.tolist() for x in row]
    den = 1
    for x in flat:
        if not getattr(x, "is_Rational", False):
            return None
        den = math.lcm(den, int(x.q))
    vals = [int(x.p) for x in flat] if den == 1 else [int(x.p) * (den // int(x.q)) for x in flat]
    big = max((abs(v) for v in vals), default=0) >= 2 ** 62
    B = np.array(vals, dtype=object if big else np.int64).reshape(M.shape)
    return B, den


def _fmpz_mat(B: np.ndarray) -> flint.fmpz_mat:
    r, c = B.shape
    return flint.fmpz_mat(r, c, [int(x) for x in B.ravel()])


def _max_abs(B: np.ndarray) -> int:
    """The largest |entry| of an integer array, a Python integer (``np.abs`` of int64's −2⁶³ is −2⁶³: a
    bound taken from it came out negative, and a product that overflowed was taken as exact)."""
    return max(abs(int(B.min())), abs(int(B.max()))) if B.size else 0


def _int_matmul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A @ B`` of integer arrays, exact: in int64 where no entry can overflow (each a sum of n products,
    at most n·max|A|·max|B| < 2⁶²), else FLINT's product as Python integers (dtype object)."""
    if A.dtype != object and B.dtype != object and _max_abs(A) * _max_abs(B) * max(A.shape[1], 1) < 2 ** 62:
        return A @ B
    P = _fmpz_mat(A) * _fmpz_mat(B)
    return np.array([int(x) for x in P.entries()], dtype=object).reshape(A.shape[0], B.shape[1])


def _gram(B: np.ndarray, side: str) -> flint.fmpz_mat:
    """BᵀB (side 'v') or BBᵀ (side 'u'), exact (:func:`_int_matmul`)."""
    A = B.T if side == "v" else B
    return _fmpz_mat(_int_matmul(A, A.T))


# --------------------------------------------------------------------------------------------
# structure
# --------------------------------------------------------------------------------------------
def _components(mask: np.ndarray):
    """Connected blocks of the bipartite non-zero pattern: list of (row indices, col indices)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    r, c = mask.shape
    ii, jj = np.nonzero(mask)
    n = r + c
    A = coo_matrix((np.ones(ii.size), (ii, jj + r)), shape=(n, n))
    _, lab = connected_components(A, directed=False)
    rows_nz = mask.any(axis=1)
    cols_nz = mask.any(axis=0)
    out = {}
    for i in np.flatnonzero(rows_nz):
        out.setdefault(lab[i], ([], []))[0].append(int(i))
    for j in np.flatnonzero(cols_nz):
        out.setdefault(lab[r + j], ([], []))[1].append(int(j))
    return [v for v in out.values() if v[0] and v[1]]


def _canonical(B: np.ndarray):
    """Row and column orders that sort rows and columns as tuples (iterated until stable)."""
    rp = np.arange(B.shape[0])
    cp = np.arange(B.shape[1])
    for _ in range(4):
        C = B[np.ix_(rp, cp)]
        r_ord = sorted(range(C.shape[0]), key=lambda i: tuple(C[i].tolist()))
        C = C[r_ord]
        c_ord = sorted(range(C.shape[1]), key=lambda j: tuple(C[:, j].tolist()))
        new_rp, new_cp = rp[r_ord], cp[c_ord]
        if np.array_equal(new_rp, rp) and np.array_equal(new_cp, cp):
            break
        rp, cp = new_rp, new_cp
    return rp, cp


# --------------------------------------------------------------------------------------------
# eigenspaces of an integer Gram matrix
# --------------------------------------------------------------------------------------------
def _poly_at(f: flint.fmpz_poly, G: flint.fmpz_mat) -> flint.fmpz_mat:
    n = G.nrows()
    cs = f.coeffs()
    I = flint.fmpz_mat(n, n, [1 if i == j else 0 for i in range(n) for j in range(n)])
    R = I * cs[-1]
    for c in reversed(cs[:-1]):
        R = R * G + I * c
    return R


def _nullspace(F: flint.fmpz_mat) -> list:
    """Exact basis of ker F from its reduced row echelon form (one vector per free column, that
    column 1): the convention of SymPy's ``nullspace``."""
    R, d, rank = F.rref()
    n = F.ncols()
    rows = R.tolist()
    pivots = [next(j for j in range(n) if rows[i][j] != 0) for i in range(rank)]
    pset = set(pivots)
    out = []
    for f in range(n):
        if f in pset:
            continue
        vec = [flint.fmpq(0)] * n
        vec[f] = flint.fmpq(1)
        for i, pcol in enumerate(pivots):
            if rows[i][f] != 0:
                vec[pcol] = -flint.fmpq(rows[i][f], rows[i][pcol])
        out.append(_col(vec))
    return out


def _orthogonalised(x: flint.fmpq_mat, basis: list) -> flint.fmpq_mat:
    """``x`` minus its projections on the orthogonal ``basis`` ((vector, squared norm) pairs), exact."""
    for e, ee in basis:
        c = _dot(e, x)
        if c != 0:
            x = x - e * (c / ee)
    return x


def _cyclic_blocks(G: flint.fmpq_mat, W: list, m: int) -> list:
    """Split the G-invariant space spanned by ``W`` (dimension m·μ, minimal polynomial of degree m on
    it) into μ mutually orthogonal Krylov blocks [w, Gw, …, G^{m−1}w] (exact Gram–Schmidt over ℚ)."""
    basis = []          # orthogonal basis of the blocks found so far: (vector, squared norm)
    blocks = []
    need = len(W) // m
    for b in W:
        if len(blocks) == need:
            break
        w = _orthogonalised(b, basis)
        if w.is_zero() if hasattr(w, "is_zero") else all(x == 0 for x in w.entries()):
            continue
        K = [w]
        for _ in range(m - 1):
            K.append(G * K[-1])
        blocks.append(K)
        for k in K:
            x = _orthogonalised(k, basis)
            basis.append((x, _dot(x, x)))
    if len(blocks) != need:  # pragma: no cover - impossible for a symmetric G
        raise ArithmeticError("cyclic decomposition failed")
    return blocks


def _real_roots(f: flint.fmpz_poly):
    """The real roots of ``f`` (all of them for a Gram factor) as arb balls, ascending, at PREC_BITS."""
    with flint.ctx.workprec(PREC_BITS):
        rts = [r for r, _ in f.complex_roots()]
    real = [r.real for r in rts if r.imag == 0]
    return sorted(real, key=lambda a: float(a.mid()))


def _arb_mp(a) -> mpmath.mpf:
    with flint.ctx.workprec(PREC_BITS), mpmath.workdps(DPS + 20):
        return +mpmath.mpf(a.mid().str(DPS + 5, radius=False))


def _factor_vanishing_at(facs, s):
    """Of the irreducible factors ``facs`` (flint ``factor()`` pairs) of a polynomial with the root
    ``s`` (an mpmath number at the caller's working precision), the one that vanishes at ``s``:
    the smallest |h(s)| relative to the size of its terms (the others are bounded away from 0)."""
    best = None
    for h, _ in facs:
        val = abs(mpmath.polyval([int(c) for c in reversed(h.coeffs())], s))
        scale = mpmath.polyval([abs(int(c)) for c in reversed(h.coeffs())], abs(s)) + 1
        if best is None or val / scale < best[0]:
            best = (val / scale, h)
    return best[1]

def _sqrt_root_value(f: flint.fmpz_poly, alpha_mp: mpmath.mpf, den: int) -> tuple:
    """``s = √α/den`` with α a root of the irreducible f: the irreducible integer polynomial of s
    (a factor of f(den²x²)) and its CRootOf index (real roots ascending)."""
    cs = [int(c) for c in f.coeffs()]
    g = [0] * (2 * len(cs) - 1)
    for i, c in enumerate(cs):
        g[2 * i] = c * den ** (2 * i)
    gp = flint.fmpz_poly(g)
    _, facs = gp.factor()
    with mpmath.workdps(DPS + 20):
        s = mpmath.sqrt(alpha_mp) / den
        h = _factor_vanishing_at(facs, s)
    return h, _root_index(h, s), s


def _root_index(h: flint.fmpz_poly, s) -> int:
    """The CRootOf index (real roots ascending) of the root of ``h`` nearest to ``s`` (an mpmath number)."""
    mids = [_arb_mp(r) for r in _real_roots(h)]
    return min(range(len(mids)), key=lambda i: abs(mids[i] - s))


# --------------------------------------------------------------------------------------------
# SVD of one integer block
# --------------------------------------------------------------------------------------------
@_hp()                          # every mpmath value (singular values, vectors) to DPS digits
def _block_modes(B: np.ndarray, den: int) -> list:
    """Modes of the block B/den (B an integer numpy array without zero rows or columns)."""
    r, c = B.shape
    side = "v" if c <= r else "u"          # the Gram matrix on the smaller side
    G = _gram(B, side)
    Bf = _fmpz_mat(B)
    Bs = Bf if side == "v" else Bf.transpose()      # B on the Gram matrix's side: B x/s is the other vector
    Gq = flint.fmpq_mat(G)
    _, facs = G.charpoly().factor()
    den2 = flint.fmpq(den * den)
    out = []
    for f, _mult in facs:
        m = f.degree()
        if m == 1 and f.coeffs()[0] == 0:
            continue                          # the zero eigenvalue
        W = _nullspace(_poly_at(f, G))
        blocks = _cyclic_blocks(Gq, W, m)
        cs = [flint.fmpq(x) for x in f.coeffs()]
        if m == 1:
            alpha = -cs[0] / cs[1]
            s = SValue("sqrt", alpha / den2, mpmath.sqrt(_mpq(alpha)) / den, sp.sqrt(_q(alpha)) / den)
            for (w,) in blocks:
                x = RatVec(w, _dot(w, w))
                # the other side: B x/s = Bi w/den / (√N √α/den) = Bi w / √(N α)
                y = x.times(Bs, alpha)
                out.append(RawMode(s, y, x) if side == "v" else RawMode(s, x, y))
        elif m == 2:
            a, b, cc = cs[2], cs[1], cs[0]
            D = b * b - 4 * a * cc
            for eps in (1, -1):
                # α = (−b + ε√D)/2a = α0 + α1√D; s = √α/den
                a0_, a1_ = -b / (2 * a), flint.fmpq(eps) / (2 * a)
                s_expr = _sqrt_quad(a0_, a1_, D) / den
                s_mp = mpmath.sqrt(_mpq(a0_) + _mpq(a1_) * mpmath.sqrt(_mpq(D))) / den
                s = SValue("quad", (a0_ / den2, a1_ / den2, D), s_mp, s_expr)
                for w, Gw in blocks:
                    # q_α(G)w = a·Gw + (b + aα)w = a·Gw + (b/2)w + (ε/2)√D·w
                    cvec = Gw * a + w * (b / 2)
                    evec = w * (flint.fmpq(eps) / 2)
                    P = _dot(cvec, cvec) + D * _dot(evec, evec)
                    Q = 2 * _dot(cvec, evec)
                    x = QuadVec(cvec, evec, D, P, Q)
                    y = x.times(Bs, a0_, a1_)
                    out.append(RawMode(s, y, x) if side == "v" else RawMode(s, x, y))
        else:
            roots = _real_roots(f)
            Bm = [[int(x) for x in row] for row in Bs.tolist()]
            # the eigenvectors q_α(G)w exactly, as polynomials in α: q_{m−1} = f_m, q_{j−1} = f_j + α q_j
            fq, alpha_x = flint.fmpq_poly(cs), flint.fmpq_poly([0, 1])
            qp = [flint.fmpq_poly([cs[m]])] * m
            for j in range(m - 1, 0, -1):
                qp[j - 1] = cs[j] + alpha_x * qp[j]
            exact = [[sum((qp[j] * e for j, e in enumerate(es) if e != 0), flint.fmpq_poly([]))
                      for es in zip(*[k.entries() for k in K])] for K in blocks]
            for root in roots:
                alpha = _arb_mp(root)
                h, idx, s_mp = _sqrt_root_value(f, alpha, den)
                s = SValue("root", (h, idx), s_mp)
                # q_α(x) = f(x)/(x − α) by synthetic division: q_{m−1} = f_m, q_{j−1} = f_j + α q_j
                q = [mpmath.mpf(0)] * m
                q[m - 1] = _mpq(cs[m])
                for j in range(m - 1, 0, -1):
                    q[j - 1] = _mpq(cs[j]) + alpha * q[j]
                for K, px in zip(blocks, exact):
                    cols = [[_mpq(x) for x in k.entries()] for k in K]
                    vec = [mpmath.fsum(q[j] * cols[j][i] for j in range(m)) for i in range(len(cols[0]))]
                    nrm = mpmath.sqrt(mpmath.fsum(x * x for x in vec))
                    vec = [x / nrm for x in vec]
                    other = [mpmath.fsum(row[j] * vec[j] for j in range(len(vec)) if row[j] != 0) / den / s_mp
                             for row in Bm]
                    # exact in ℚ(α): x = px(α)/√N(α), and B x/s = (B px)(α)/√(N(α)·α), as s = √α/den
                    py = [sum((px[j] * c for j, c in enumerate(row) if c != 0), flint.fmpq_poly([])) for row in Bm]
                    N = sum((p * p for p in px), flint.fmpq_poly([])) % fq
                    x_, y_ = RootVec(vec, px, N, fq, s, den), RootVec(other, py, N * alpha_x % fq, fq, s, den)
                    out.append(RawMode(s, y_, x_) if side == "v" else RawMode(s, x_, y_))
    return out


# --------------------------------------------------------------------------------------------
# Kronecker factors
# --------------------------------------------------------------------------------------------
#: how often structure was used (``kronecker``: blocks solved as A ⊗ B from their factors'
#: SVDs; ``kronecker_fallback``: a Kronecker split found whose values could not be combined in
#: the exact representations here, solved directly instead). Counters only, for tests and notes.
STATS = {"kronecker": 0, "kronecker_fallback": 0}


def _divisors(n: int) -> list:
    return [d for d in range(1, n + 1) if n % d == 0]


def _kron_split(C: np.ndarray):
    """``(A, B)`` integer arrays with ``C = A ⊗ B`` (both factors larger than 1 × 1, ``B``
    primitive with its first non-zero entry positive), or ``None``.

    Exact test (Van Loan–Pitsianis): for factor shapes ``(p, q)`` and ``(r/p, c/q)`` the
    rearranged matrix whose rows are the flattened ``(r/p) × (c/q)`` blocks of ``C`` has rank 1
    over ℚ, i.e. every block is a rational multiple of the first non-zero block ``b``:
    ``T[i]·b[k] = T[i, k]·b`` in integers. With ``B = b/gcd(b)`` primitive the multiples are
    integers (``t·B`` integral with ``gcd(B) = 1`` forces ``t ∈ ℤ``)."""
    r, c = C.shape
    if C.dtype != object and int(np.max(np.abs(C))) >= 2 ** 31:
        C = C.astype(object)
    shapes = sorted(((p, q) for p in _divisors(r) for q in _divisors(c)
                     if 1 < p * q < r * c), key=lambda pq: (pq[0] * pq[1], pq))
    for p, q in shapes:
        r2, c2 = r // p, c // q
        T = C.reshape(p, r2, q, c2).transpose(0, 2, 1, 3).reshape(p * q, r2 * c2)
        nz = np.flatnonzero(T.any(axis=1))
        b = T[nz[0]]
        k = int(np.flatnonzero(b)[0])
        if not np.array_equal(T * b[k], np.outer(T[:, k], b)):
            continue
        g = math.gcd(*map(int, b.tolist()))
        if b[k] < 0:
            g = -g
        Bm = b // g
        a = T[:, k] // Bm[k]
        assert np.array_equal(np.outer(a, Bm), T)          # the exact factorisation, checked
        return a.reshape(p, q), Bm.reshape(r2, c2)
    return None


def _kron_cols(a: list, b: list) -> list:
    return [x * y for x in a for y in b]


def _sq_quad(sv: "SValue"):
    """``s²`` as ``(p0, p1, D)`` (p1 = 0, D = None for a rational), or None for a root."""
    if sv.kind == "sqrt":
        return sv.data, flint.fmpq(0), None
    if sv.kind == "quad":
        return sv.data
    return None


def _value_poly(sv: "SValue") -> flint.fmpz_poly:
    """An integer polynomial with ``s`` among its roots: ``Q x² − P`` for ``s = √(P/Q)``; for
    ``s² = p0 + p1√D`` the polynomial ``(x² − p0)² − p1²D`` cleared of denominators; ``poly`` for a root."""
    if sv.kind == "root":
        return sv.data[0]
    if sv.kind == "sqrt":
        a = sv.data
        return flint.fmpz_poly([-int(a.p), 0, int(a.q)])
    p0, p1, D = sv.data
    c = [p0 * p0 - p1 * p1 * D, flint.fmpq(0), -2 * p0, flint.fmpq(0), flint.fmpq(1)]
    den = math.lcm(*(int(x.q) for x in c))
    return flint.fmpz_poly([int(x * den) for x in c])


#: largest degree of a product's polynomial (degree of one times the other's) tried exactly
MAX_PRODUCT_DEGREE = 48


def _value_product_poly(x: "SValue", y: "SValue", s_mp):
    """``s = x·y`` as a root-kind (or sqrt-kind, when s² is rational) value: ``s`` is a root of
    ``Res_z(f(z), z^{deg g} g(t/z))`` (f, g polynomials of x and y), whose irreducible factor
    vanishing at ``s`` and root index are chosen from 256-bit root enclosures, as for any Gram root."""
    f, g = _value_poly(x), _value_poly(y)
    d1, d2 = f.degree(), g.degree()
    if d1 * d2 > MAX_PRODUCT_DEGREE:
        return None
    ctx = flint.fmpz_mpoly_ctx.get(("z", "t"))
    z, t = ctx.gens()
    F = sum((int(c) * z ** i for i, c in enumerate(f.coeffs()) if c != 0), ctx.from_dict({}))
    G = sum((int(c) * t ** j * z ** (d2 - j) for j, c in enumerate(g.coeffs()) if c != 0), ctx.from_dict({}))
    R = F.resultant(G, "z")
    coeffs = [0] * (d1 * d2 + 1)
    for c, (_, k) in zip(R.coeffs(), R.monoms()):
        coeffs[k] = int(c)
    _, facs = flint.fmpz_poly(coeffs).factor()
    with _hp():
        h = _factor_vanishing_at(facs, s_mp)
        hc = h.coeffs()
        if h.degree() <= 2 and (h.degree() == 1 or hc[1] == 0):      # s or s² rational: a surd
            a = -flint.fmpq(int(hc[0]), int(hc[-1]))
            a = a * a if h.degree() == 1 else a
            return SValue("sqrt", a, s_mp, sp.sqrt(_q(a)))
        idx = _root_index(h, s_mp)
    if h.coeffs()[-1] < 0:
        h = -h
    return SValue("root", (h, idx), s_mp)


def _sv_mul(x: "SValue", y: "SValue"):
    """The exact product of two singular values: in ℚ or one quadratic field where it stays there,
    else as a root of an irreducible polynomial (None when that polynomial's degree would exceed
    ``MAX_PRODUCT_DEGREE``)."""
    with _hp():
        s_mp = x.mp * y.mp
    qx, qy = _sq_quad(x), _sq_quad(y)
    if qx is not None and qy is not None:
        (a0, a1, D1), (b0, b1, D2) = qx, qy
        if D1 is None or D2 is None or D1 == D2:                  # one field: ℚ or ℚ(√D)
            D = D1 if D1 is not None else D2
            c0 = a0 * b0 + (a1 * b1 * D if D is not None else 0)
            c1 = (a0 * b1 + a1 * b0) if D is not None else flint.fmpq(0)
            if c1 == 0:
                return SValue("sqrt", c0, s_mp, sp.sqrt(_q(c0)))
            return SValue("quad", (c0, c1, D), s_mp, _sqrt_quad(c0, c1, D))
    return _value_product_poly(x, y, s_mp)


def _vec_kron(a, b):
    """``a ⊗ b`` for two unit vectors, exact where both are (in one quadratic field), else to DPS digits."""
    if isinstance(a, RatVec) and isinstance(b, RatVec):
        return RatVec(_col(_kron_cols(a.w.entries(), b.w.entries())), a.N * b.N)
    if isinstance(a, RatVec) and isinstance(b, QuadVec):
        w = a.w.entries()
        return QuadVec(_col(_kron_cols(w, b.c.entries())), _col(_kron_cols(w, b.e.entries())), b.D,
                       a.N * b.P, a.N * b.Q)
    if isinstance(a, QuadVec) and isinstance(b, RatVec):
        w = b.w.entries()
        return QuadVec(_col(_kron_cols(a.c.entries(), w)), _col(_kron_cols(a.e.entries(), w)), a.D,
                       a.P * b.N, a.Q * b.N)
    if isinstance(a, QuadVec) and isinstance(b, QuadVec) and a.D == b.D:
        D = a.D
        c = [x + D * y for x, y in zip(_kron_cols(a.c.entries(), b.c.entries()),
                                       _kron_cols(a.e.entries(), b.e.entries()))]
        e = [x + y for x, y in zip(_kron_cols(a.c.entries(), b.e.entries()),
                                   _kron_cols(a.e.entries(), b.c.entries()))]
        return QuadVec(_col(c), _col(e), D, a.P * b.P + a.Q * b.Q * D, a.P * b.Q + a.Q * b.P)
    with _hp():
        return NumVec(_kron_cols(a.mp(), b.mp()))


def _kron_modes(C: np.ndarray, den: int, cache: dict):
    """Modes of ``C/den`` from its Kronecker factors ``C = A ⊗ B`` (each solved by
    :func:`rational_svd`, so recursively structured, sharing ``cache``): values are the products
    ``σ_A σ_B``, vectors ``u_A ⊗ u_B`` and ``v_A ⊗ v_B`` (``A ⊗ B = (U_A ⊗ U_B)(S_A ⊗ S_B)(V_A ⊗ V_B)ᵀ``).
    ``None`` when ``C`` has no Kronecker factors or their values cannot be combined exactly."""
    split = _kron_split(C)
    if split is None:
        return None
    A, Bk = split
    ma, mb = rational_svd(A, 1, cache), rational_svd(Bk, den, cache)
    out = []
    for x in ma:
        for y in mb:
            s = _sv_mul(x.s, y.s)
            if s is None:
                STATS["kronecker_fallback"] += 1
                return None
            out.append(RawMode(s, _vec_kron(x.u, y.u), _vec_kron(x.v, y.v)))
    STATS["kronecker"] += 1
    return out


def _spread(vals, idx, n: int, zero) -> list:
    """``vals`` placed at positions ``idx`` of a list of ``n`` entries, ``zero`` elsewhere."""
    full = [zero] * n
    for i, x in zip(idx, vals):
        full[i] = x
    return full


def _embed(vec, idx, n):
    """A block vector placed at rows ``idx`` of an n-vector (same representation)."""
    z = flint.fmpq(0)
    if isinstance(vec, RatVec):
        return RatVec(_col(_spread(vec.w.entries(), idx, n, z)), vec.N)
    if isinstance(vec, QuadVec):
        return QuadVec(_col(_spread(vec.c.entries(), idx, n, z)), _col(_spread(vec.e.entries(), idx, n, z)),
                       vec.D, vec.P, vec.Q)
    if isinstance(vec, RootVec):
        return vec.spread(idx, n)
    return NumVec(_spread(vec.vals, idx, n, mpmath.mpf(0)))


def rational_svd(B: np.ndarray, den: int = 1, cache: dict | None = None) -> list:
    """All modes of ``B/den`` (B an integer numpy array), sorted by singular value, descending,
    first non-zero entry of each v positive. ``cache`` (a dict) shares the SVDs of identical
    canonical blocks between calls."""
    cache = {} if cache is None else cache
    if B.dtype != object and B.dtype != np.int64:
        # the integer products here are sized for int64 (entries below 2⁶² as rational_parts gives):
        # narrower integers (int32, uint8, …) would wrap around, and uint64 past 2⁶² needs Python integers
        big = B.size and max(int(B.max()), -int(B.min())) >= 2 ** 62
        B = B.astype(object if big else np.int64)
    nr, nc = B.shape
    modes = []
    for rows, cols in _components(B != 0):
        blk = np.ascontiguousarray(B[np.ix_(rows, cols)])
        # Kronecker factors, in the order the matrix is given (a permutation can hide them)
        kkey = ("kron", blk.shape, den, tuple(blk.ravel().tolist()))
        if kkey not in cache:
            cache[kkey] = _kron_modes(blk, den, cache) if min(blk.shape) > 1 else None
        if cache[kkey] is not None:
            block_modes, rows_c, cols_c = cache[kkey], rows, cols
        else:
            rp, cp = _canonical(blk)
            C = blk[np.ix_(rp, cp)]
            key = (C.shape, den, tuple(C.ravel().tolist()))
            if key not in cache:
                cache[key] = _block_modes(np.ascontiguousarray(C), den)
            block_modes = cache[key]
            rows_c = [rows[i] for i in rp]
            cols_c = [cols[j] for j in cp]
        for bm in block_modes:
            u = _embed(bm.u, rows_c, nr)
            v = _embed(bm.v, cols_c, nc)
            if v.first_sign() < 0:
                u, v = u.neg(), v.neg()
            modes.append(RawMode(bm.s, u, v))
    return _sort_modes(modes)


def _same_value(x: SValue, y: SValue) -> bool:
    """Exact equality of two singular values from their exact data (no digits involved)."""
    return x is y or (x.kind == y.kind and x.data == y.data)


def _sort_modes(modes: list) -> list:
    """Descending by value; modes with exactly equal values (:func:`_same_value`) share one
    ``SValue`` and keep discovery order among themselves. Values that are not exactly equal are
    ordered by their DPS-digit values (distinct algebraic numbers of this size differ far above
    that precision)."""
    with _hp():
        order = sorted(range(len(modes)), key=lambda i: -modes[i].s.mp)
        groups: list = []
        for i in order:
            for g in groups[-3:]:                     # equal values sit next to each other
                if _same_value(modes[g[0]].s, modes[i].s):
                    g.append(i)
                    break
            else:
                groups.append([i])
    out = []
    for g in groups:
        s0 = modes[g[0]].s
        for i in sorted(g):
            m = modes[i]
            out.append(m if m.s is s0 else RawMode(s0, m.u, m.v))
    return out
