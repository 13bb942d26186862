"""Exact SVDs of rational matrices by exact linear algebra (python-flint), with no guessing.

This is the engine behind :func:`theorykit.theory.modes.exact_svd` for matrices with rational entries
(every numeric task). Nothing here identifies a number from its digits: every exact value comes
from exact arithmetic over ℚ or over ℚ(α) for an algebraic α.

Method, for an integer matrix ``B`` with common denominator ``den`` (the matrix is ``B/den``):

1. **Structure.** Zero rows and columns are dropped and the bipartite non-zero pattern is split
   into connected blocks (a block-diagonal matrix, up to row and column permutations, has the union
   of its blocks' SVDs). Each block is brought to a canonical row/column order (rows and columns
   sorted as tuples until stable) and the SVD of each *distinct* canonical block is computed once
   (``cache``): repeated blocks inside a matrix, and pathways whose correlations are permutations
   of one another (the (k−1)-context pathways of the contexts task), cost one SVD.
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
   written directly) and the vectors are evaluated from the exact Krylov form at 256-bit precision.

Cost: one characteristic polynomial, one factorisation and one null space per distinct irreducible
factor of each distinct block, all in FLINT (C); the Python work grows with the number of modes
times the block size.
"""
from __future__ import annotations

import math
from fractions import Fraction

import flint
import mpmath
import numpy as np
import sympy as sp

__all__ = ["rational_parts", "rational_svd", "SValue", "RatVec", "QuadVec", "NumVec", "RawMode", "X"]

#: the variable of polynomials written in exact strings (``CRootOf(x**4 - …, 2)``): not ``lambda``,
#: a Python keyword that ``sympify`` cannot read back
X = sp.Symbol("x")
PREC_BITS = 256
DPS = 60


# --------------------------------------------------------------------------------------------
# exact scalars
# --------------------------------------------------------------------------------------------
def _q(x) -> sp.Rational:
    x = flint.fmpq(x)
    return sp.Rational(int(x.p), int(x.q))


def _is_square(q: flint.fmpq):
    """√q as an fmpq when q ≥ 0 is the square of a rational, else None (exact integer square roots)."""
    if q < 0:
        return None
    p, d = int(q.p), int(q.q)
    rp, rd = math.isqrt(p), math.isqrt(d)
    if rp * rp == p and rd * rd == d:
        return flint.fmpq(rp, rd)
    return None


def _sqrt_quad(P, Q, D):
    """SymPy expression of √(P + Q√D) (P, Q, D rational, D > 0 not a square, P + Q√D > 0),
    denested exactly when P² − Q²D is a rational square r² (then √(P+Q√D) = √((P+r)/2) ± √((P−r)/2))."""
    if Q == 0:
        return sp.sqrt(_q(P))
    r = _is_square(P * P - Q * Q * D)
    if r is not None:
        a, b = (P + r) / 2, (P - r) / 2
        if a >= 0 and b >= 0:
            sgn = 1 if Q > 0 else -1
            return sp.sqrt(_q(a)) + sgn * sp.sqrt(_q(b))
    return sp.sqrt(_q(P) + _q(Q) * sp.sqrt(_q(D)))


def _poly_text(f: flint.fmpz_poly) -> str:
    return str(sp.Poly([int(c) for c in reversed(f.coeffs())], X).as_expr())


class SValue:
    """An exact positive real algebraic number with its high-precision value.

    ``kind`` is ``"sqrt"`` (``√a``, a rational), ``"quad"`` (in ℚ(√D)) or ``"root"`` (root ``index``
    of the irreducible integer polynomial ``poly`` in ``x``, numbered as SymPy's ``CRootOf``: real
    roots ascending). ``expr()`` builds the SymPy expression (cached); ``text()`` writes it without
    building it; ``mp`` is the value to ``DPS`` digits.
    """

    __slots__ = ("kind", "data", "mp", "_expr", "_text")

    def __init__(self, kind, data, mp, expr=None):
        self.kind, self.data, self.mp = kind, data, mp
        self._expr, self._text = expr, None

    def expr(self) -> sp.Expr:
        if self._expr is None:
            if self.kind == "root":
                poly, idx = self.data
                self._expr = sp.CRootOf(sp.Poly([int(c) for c in reversed(poly.coeffs())], X), idx)
            else:  # pragma: no cover - sqrt/quad are built eagerly
                raise AssertionError
        return self._expr

    def text(self) -> str:
        if self._text is None:
            if self.kind == "root" and self._expr is None:
                poly, idx = self.data
                self._text = f"CRootOf({_poly_text(poly)}, {idx})"
            else:
                self._text = str(self.expr())
        return self._text

    def __float__(self):
        return float(self.mp)


# --------------------------------------------------------------------------------------------
# exact vectors
# --------------------------------------------------------------------------------------------
def _col(vals) -> flint.fmpq_mat:
    return flint.fmpq_mat(len(vals), 1, list(vals))


def _dot(a: flint.fmpq_mat, b: flint.fmpq_mat) -> flint.fmpq:
    return (a.transpose() * b)[0, 0]


def _entries(a) -> list:
    return a.entries()


class RatVec:
    """The unit vector ``w/√N`` (``w`` a rational column, ``N = ‖w‖²`` or any positive rational
    with ``‖w‖² = N``)."""

    exact = True
    __slots__ = ("w", "N")

    def __init__(self, w, N):
        self.w, self.N = w, flint.fmpq(N)

    def neg(self):
        return RatVec(-self.w, self.N)

    def sympy(self) -> sp.Matrix:
        c = 1 / sp.sqrt(_q(self.N))
        return sp.Matrix([_q(x) * c for x in _entries(self.w)])

    def mp(self) -> list:
        c = 1 / mpmath.sqrt(mpmath.mpf(int(self.N.p)) / int(self.N.q))
        return [mpmath.mpf(int(x.p)) / int(x.q) * c for x in _entries(self.w)]

    def floats(self) -> np.ndarray:
        c = 1.0 / math.sqrt(float(Fraction(int(self.N.p), int(self.N.q))))
        return np.array([float(Fraction(int(x.p), int(x.q))) for x in _entries(self.w)]) * c

    def first_sign(self) -> int:
        for x in _entries(self.w):
            if x != 0:
                return 1 if x > 0 else -1
        return 1

    def times(self, B, scale2):
        """``B·self/√scale2`` for an integer matrix ``B`` (flint) and a positive rational ``scale2``."""
        return RatVec(flint.fmpq_mat(B) * self.w, self.N * scale2)

    def quad_form(self, S: flint.fmpq_mat):
        """``selfᵀ S self``, exact (SymPy Rational), and whether ``S self = (that)·self``."""
        Sw = S * self.w
        d = _dot(self.w, Sw) / self.N
        return _q(d), Sw == self.w * d


class QuadVec:
    """The unit vector ``(c + e√D)/√(P + Q√D)`` with rational columns ``c, e`` and rationals D, P, Q."""

    exact = True
    __slots__ = ("c", "e", "D", "P", "Q")

    def __init__(self, c, e, D, P, Q):
        self.c, self.e, self.D, self.P, self.Q = c, e, flint.fmpq(D), flint.fmpq(P), flint.fmpq(Q)

    def neg(self):
        return QuadVec(-self.c, -self.e, self.D, self.P, self.Q)

    def sympy(self) -> sp.Matrix:
        r = sp.sqrt(_q(self.D))
        inv = 1 / _sqrt_quad(self.P, self.Q, self.D)
        return sp.Matrix([(_q(a) + _q(b) * r) * inv for a, b in zip(_entries(self.c), _entries(self.e))])

    def mp(self) -> list:
        r = mpmath.sqrt(_mpq(self.D))
        inv = 1 / mpmath.sqrt(_mpq(self.P) + _mpq(self.Q) * r)
        return [(_mpq(a) + _mpq(b) * r) * inv for a, b in zip(_entries(self.c), _entries(self.e))]

    def floats(self) -> np.ndarray:
        return np.array([float(x) for x in self.mp()])

    def first_sign(self) -> int:
        for a, b, v in zip(_entries(self.c), _entries(self.e), self.mp()):
            if a != 0 or b != 0:          # exactly non-zero (√D is irrational): the sign is v's
                return 1 if v > 0 else -1
        return 1

    def times(self, B, P2, Q2):
        """``B·(c + e√D)/√((P + Q√D)(P2 + Q2√D))``."""
        B = flint.fmpq_mat(B)
        P, Q, D = self.P, self.Q, self.D
        return QuadVec(B * self.c, B * self.e, D, P * P2 + Q * Q2 * D, P * Q2 + Q * P2)

    def quad_form(self, S: flint.fmpq_mat):
        """``selfᵀ S self`` exactly (an element of ℚ(√D)) and whether ``S self`` is that multiple of self."""
        c, e, D = self.c, self.e, self.D
        Sc, Se = S * c, S * e
        A = _dot(c, Sc) + D * _dot(e, Se)
        Bq = _dot(c, Se) + _dot(e, Sc)
        P, Q = self.P, self.Q
        den = P * P - Q * Q * D
        d0 = (A * P - Bq * Q * D) / den
        d1 = (Bq * P - A * Q) / den
        ok = (Sc == c * d0 + e * (d1 * D)) and (Se == e * d0 + c * d1)
        expr = _q(d0) + _q(d1) * sp.sqrt(_q(D)) if d1 != 0 else _q(d0)
        return expr, ok


class NumVec:
    """A unit vector known to ``DPS`` digits (eigenvectors for roots of degree ≥ 3)."""

    exact = False
    __slots__ = ("vals",)

    def __init__(self, vals):
        self.vals = list(vals)

    def neg(self):
        return NumVec([-x for x in self.vals])

    def sympy(self) -> sp.Matrix:
        return sp.Matrix([sp.Float(mpmath.nstr(x, 40), 40) for x in self.vals])

    def mp(self) -> list:
        return list(self.vals)

    def floats(self) -> np.ndarray:
        return np.array([float(x) for x in self.vals])

    def first_sign(self) -> int:
        scale = max((abs(x) for x in self.vals), default=0)
        for x in self.vals:
            if abs(x) > scale * mpmath.mpf(10) ** (-(DPS - 15)):
                return 1 if x > 0 else -1
        return 1

    def quad_form(self, S: flint.fmpq_mat):
        n = len(self.vals)
        rows = S.tolist()
        Sv = [mpmath.fsum(_mpq(rows[i][j]) * self.vals[j] for j in range(n) if rows[i][j] != 0) for i in range(n)]
        d = mpmath.fsum(a * b for a, b in zip(self.vals, Sv))
        resid = max((abs(a - d * b) for a, b in zip(Sv, self.vals)), default=mpmath.mpf(0))
        scale = max([abs(d)] + [abs(a) for a in Sv] + [mpmath.mpf(1)])
        return sp.Float(mpmath.nstr(d, 35), 30), bool(resid < scale * mpmath.mpf(10) ** (-(DPS - 20)))


def _mpq(x) -> mpmath.mpf:
    x = flint.fmpq(x)
    return mpmath.mpf(int(x.p)) / int(x.q)


class RawMode:
    """One mode in exact form: singular value ``s`` (:class:`SValue`), unit vectors ``u``, ``v``."""

    __slots__ = ("s", "u", "v")

    def __init__(self, s, u, v):
        self.s, self.u, self.v = s, u, v

    @property
    def exact_vectors(self) -> bool:
        return self.u.exact and self.v.exact


# --------------------------------------------------------------------------------------------
# conversion
# --------------------------------------------------------------------------------------------
def rational_parts(M: sp.Matrix):
    """``(B, den)`` with ``M = B/den``, ``B`` an integer numpy array (int64 or object), or ``None``
    when an entry is not rational."""
    flat = [x for row in M.tolist() for x in row]
    den = 1
    for x in flat:
        if not getattr(x, "is_Rational", False):
            return None
        q = int(x.q)
        if q != 1:
            den = den * q // math.gcd(den, q)
    vals = [int(x.p) for x in flat] if den == 1 else [int(x.p) * (den // int(x.q)) for x in flat]
    big = max((abs(v) for v in vals), default=0) >= 2 ** 62
    B = np.array(vals, dtype=object if big else np.int64).reshape(M.shape)
    return B, den


def _fmpz_mat(B: np.ndarray) -> flint.fmpz_mat:
    r, c = B.shape
    return flint.fmpz_mat(r, c, [int(x) for x in B.ravel()])


def _gram(B: np.ndarray, side: str) -> flint.fmpz_mat:
    """BᵀB (side 'v') or BBᵀ (side 'u'), exact: int64 numpy when it cannot overflow, else flint."""
    A = B.T if side == "v" else B
    if B.dtype != object:
        m = int(np.max(np.abs(B))) if B.size else 0
        if m * m * max(B.shape) < 2 ** 62:
            G = A @ A.T
            return _fmpz_mat(G)
    F = _fmpz_mat(A)
    return F * F.transpose()


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
    pivots = []
    for i in range(rank):
        row = rows[i]
        pivots.append(next(j for j in range(n) if row[j] != 0))
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


def _cyclic_blocks(G: flint.fmpq_mat, W: list, m: int) -> list:
    """Split the G-invariant space spanned by ``W`` (dimension m·μ, minimal polynomial of degree m on
    it) into μ mutually orthogonal Krylov blocks [w, Gw, …, G^{m−1}w] (exact Gram–Schmidt over ℚ)."""
    basis = []          # orthogonal basis of the blocks found so far: (vector, squared norm)
    blocks = []
    need = len(W) // m
    for b in W:
        if len(blocks) == need:
            break
        w = b
        for e, ee in basis:
            c = _dot(e, w)
            if c != 0:
                w = w - e * (c / ee)
        if w.is_zero() if hasattr(w, "is_zero") else all(x == 0 for x in w.entries()):
            continue
        K = [w]
        for _ in range(m - 1):
            K.append(G * K[-1])
        blocks.append(K)
        for k in K:
            x = k
            for e, ee in basis:
                c = _dot(e, x)
                if c != 0:
                    x = x - e * (c / ee)
            basis.append((x, _dot(x, x)))
    if len(blocks) != need:  # pragma: no cover - impossible for a symmetric G
        raise ArithmeticError("cyclic decomposition failed")
    return blocks


def _real_roots(f: flint.fmpz_poly):
    """The real roots of ``f`` (all of them for a Gram factor) as arb balls, ascending, at PREC_BITS."""
    old = flint.ctx.prec
    try:
        flint.ctx.prec = PREC_BITS
        rts = [r for r, _ in f.complex_roots()]
    finally:
        flint.ctx.prec = old
    real = [r.real for r in rts if r.imag == 0]
    return sorted(real, key=lambda a: float(a.mid()))


def _arb_mp(a) -> mpmath.mpf:
    old = flint.ctx.prec
    try:
        flint.ctx.prec = PREC_BITS
        with mpmath.workdps(DPS + 20):
            return +mpmath.mpf(a.mid().str(DPS + 5, radius=False))
    finally:
        flint.ctx.prec = old


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
        best = None
        for h, _ in facs:
            val = abs(mpmath.polyval([int(c) for c in reversed(h.coeffs())], s))
            scale = mpmath.polyval([abs(int(c)) for c in reversed(h.coeffs())], abs(s)) + 1
            if best is None or val / scale < best[0]:
                best = (val / scale, h)
        h = best[1]
    roots = _real_roots(h)
    mids = [_arb_mp(r) for r in roots]
    idx = min(range(len(mids)), key=lambda i: abs(mids[i] - s))
    return h, idx, s


# --------------------------------------------------------------------------------------------
# SVD of one integer block
# --------------------------------------------------------------------------------------------
def _block_modes(B: np.ndarray, den: int) -> list:
    """Modes of the block B/den (B an integer numpy array without zero rows or columns)."""
    r, c = B.shape
    side = "v" if c <= r else "u"          # the Gram matrix on the smaller side
    G = _gram(B, side)
    Bf = _fmpz_mat(B)
    Bt = Bf.transpose()
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
            s = SValue("sqrt", alpha, mpmath.sqrt(_mpq(alpha)) / den, sp.sqrt(_q(alpha)) / den)
            for (w,) in blocks:
                x = RatVec(w, _dot(w, w))
                # the other side: B x/s = Bi w/den / (√N √α/den) = Bi w / √(N α)
                y = x.times(Bf if side == "v" else Bt, alpha)
                out.append(RawMode(s, y, x) if side == "v" else RawMode(s, x, y))
        elif m == 2:
            a, b, cc = cs[2], cs[1], cs[0]
            D = b * b - 4 * a * cc
            for eps in (1, -1):
                # α = (−b + ε√D)/2a = α0 + α1√D; s = √α/den
                a0_, a1_ = -b / (2 * a), flint.fmpq(eps) / (2 * a)
                s_expr = _sqrt_quad(a0_, a1_, D) / den
                s_mp = mpmath.sqrt(_mpq(a0_) + _mpq(a1_) * mpmath.sqrt(_mpq(D))) / den
                s = SValue("quad", (a0_, a1_, D), s_mp, s_expr)
                for w, Gw in blocks:
                    # q_α(G)w = a·Gw + (b + aα)w = a·Gw + (b/2)w + (ε/2)√D·w
                    cvec = Gw * a + w * (b / 2)
                    evec = w * (flint.fmpq(eps) / 2)
                    P = _dot(cvec, cvec) + D * _dot(evec, evec)
                    Q = 2 * _dot(cvec, evec)
                    x = QuadVec(cvec, evec, D, P, Q)
                    y = x.times(Bf if side == "v" else Bt, a0_, a1_)
                    out.append(RawMode(s, y, x) if side == "v" else RawMode(s, x, y))
        else:
            roots = _real_roots(f)
            Bm = [[int(x) for x in row] for row in (Bf if side == "v" else Bt).tolist()]
            for root in roots:
                alpha = _arb_mp(root)
                with mpmath.workdps(DPS + 20):
                    h, idx, s_mp = _sqrt_root_value(f, alpha, den)
                    s = SValue("root", (h, idx), s_mp)
                    # q_α(x) = f(x)/(x − α) by synthetic division: q_{m−1} = f_m, q_{j−1} = f_j + α q_j
                    q = [mpmath.mpf(0)] * m
                    q[m - 1] = _mpq(cs[m])
                    for j in range(m - 1, 0, -1):
                        q[j - 1] = _mpq(cs[j]) + alpha * q[j]
                    for K in blocks:
                        cols = [[_mpq(x) for x in k.entries()] for k in K]
                        vec = [mpmath.fsum(q[j] * cols[j][i] for j in range(m)) for i in range(len(cols[0]))]
                        nrm = mpmath.sqrt(mpmath.fsum(x * x for x in vec))
                        vec = [x / nrm for x in vec]
                        other = [mpmath.fsum(row[j] * vec[j] for j in range(len(vec)) if row[j] != 0) / den
                                 for row in Bm]
                        other = [x / s_mp for x in other]
                        x_, y_ = NumVec(vec), NumVec(other)
                        out.append(RawMode(s, y_, x_) if side == "v" else RawMode(s, x_, y_))
    return out


def _embed(vec, idx, n):
    """A block vector placed at rows ``idx`` of an n-vector (same representation)."""
    if isinstance(vec, RatVec):
        full = [flint.fmpq(0)] * n
        for a, i in enumerate(idx):
            full[i] = vec.w[a, 0]
        return RatVec(_col(full), vec.N)
    if isinstance(vec, QuadVec):
        fc, fe = [flint.fmpq(0)] * n, [flint.fmpq(0)] * n
        for a, i in enumerate(idx):
            fc[i], fe[i] = vec.c[a, 0], vec.e[a, 0]
        return QuadVec(_col(fc), _col(fe), vec.D, vec.P, vec.Q)
    full = [mpmath.mpf(0)] * n
    for a, i in enumerate(idx):
        full[i] = vec.vals[a]
    return NumVec(full)


def rational_svd(B: np.ndarray, den: int = 1, cache: dict | None = None) -> list:
    """All modes of ``B/den`` (B an integer numpy array), sorted by singular value, descending,
    first non-zero entry of each v positive. ``cache`` (a dict) shares the SVDs of identical
    canonical blocks between calls."""
    cache = {} if cache is None else cache
    nr, nc = B.shape
    modes = []
    for rows, cols in _components(B != 0):
        blk = B[np.ix_(rows, cols)]
        rp, cp = _canonical(blk)
        C = blk[np.ix_(rp, cp)]
        key = (C.shape, den, tuple(C.ravel().tolist()))
        if key not in cache:
            cache[key] = _block_modes(np.ascontiguousarray(C), den)
        rows_c = [rows[i] for i in rp]
        cols_c = [cols[j] for j in cp]
        for bm in cache[key]:
            u = _embed(bm.u, rows_c, nr)
            v = _embed(bm.v, cols_c, nc)
            if v.first_sign() < 0:
                u, v = u.neg(), v.neg()
            modes.append(RawMode(bm.s, u, v))
    # descending by value (DPS digits); ties keep discovery order
    order = sorted(range(len(modes)), key=lambda i: -modes[i].s.mp)
    return [modes[i] for i in order]
