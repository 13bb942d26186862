"""The exact values and vectors of the exact engine (:mod:`theorykit.theory.exactla`): singular
values over ℚ, ℚ(√D) or as a root of an irreducible polynomial (:class:`SValue`), vectors over ℚ,
ℚ(√D) or as high-precision numbers, and a mode's raw data (:class:`RawMode`).
"""
from __future__ import annotations
import math
from fractions import Fraction
import flint
import mpmath
import numpy as np
import sympy as sp

__all__ = ["SValue", "RatVec", "QuadVec", "NumVec", "RootVec", "RawMode", "X", "PREC_BITS", "DPS"]


#: the variable of polynomials written in exact strings (``CRootOf(x**4 - …, 2)``): not ``lambda``,
#: a Python keyword that ``sympify`` cannot read back
X = sp.Symbol("x")
PREC_BITS = 256
DPS = 60


def _hp():
    """The working precision of every mpmath operation on stored high-precision values.

    An ``mpf`` keeps its bits, but every operation on it (even ``-x``) rounds to the *current*
    context precision, 15 digits by default: arithmetic on stored values outside this context
    silently drops them to double precision."""
    return mpmath.workdps(DPS + 20)


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

    ``kind`` and ``data``: ``"sqrt"``, data ``a`` (an fmpq, ``s = √a``); ``"quad"``, data
    ``(p0, p1, D)`` (fmpq, ``s = √(p0 + p1√D)``, D not a square); ``"root"``, data ``(poly, index)``
    (``s`` is root ``index`` of the irreducible integer polynomial ``poly`` in ``x``, numbered as
    SymPy's ``CRootOf``: real roots ascending). ``data`` determines ``s`` exactly (it is what
    products of values, for Kronecker factors, are computed from). ``expr()`` builds the SymPy
    expression (cached); ``text()`` writes it without building it; ``mp`` is the value to ``DPS``
    digits.
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
        return sp.Matrix([_q(x) * c for x in self.w.entries()])

    def mp(self) -> list:
        with _hp():
            c = 1 / mpmath.sqrt(_mpq(self.N))
            return [_mpq(x) * c for x in self.w.entries()]

    def floats(self) -> np.ndarray:
        c = 1.0 / math.sqrt(float(Fraction(int(self.N.p), int(self.N.q))))
        return np.array([float(Fraction(int(x.p), int(x.q))) for x in self.w.entries()]) * c

    def first_sign(self) -> int:
        for x in self.w.entries():
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
        return sp.Matrix([self._entry(a, b, r, inv) for a, b in zip(self.c.entries(), self.e.entries())])

    def _entry(self, a, b, r, inv) -> sp.Expr:
        """``x = (a + b√D)/√(P + Q√D)``; where the denominator nests (Q ≠ 0), the same number as
        ``±√(x²)``, one root nested no deeper and no root in a denominator: ``x² = (a + b√D)²/(P + Q√D)``
        is ``A + B√D`` in ℚ(√D), computed exactly, its root denested where it can be (:func:`_sqrt_quad`),
        the sign that of ``a + b√D`` (exact): with X = I₂, Y = [[2, 1], [1, 3]] (one pathway),
        ``5√5/√(125√5/2 + 625/2)`` is ``√(1/2 − √5/10)``."""
        if self.Q == 0 or (a == 0 and b == 0):
            return (_q(a) + _q(b) * r) * inv
        D, P, Q = self.D, self.P, self.Q
        n0, n1 = a * a + b * b * D, 2 * a * b                  # (a + b√D)² = n0 + n1√D
        den = P * P - Q * Q * D                                 # (P + Q√D)(P − Q√D) ≠ 0: √D is irrational
        A, B = (n0 * P - n1 * Q * D) / den, (n1 * P - n0 * Q) / den
        big = a if a * a > b * b * D else b                     # the sign of a + b√D is its larger term's
        return (1 if big > 0 else -1) * _sqrt_quad(A, B, D)

    def mp(self) -> list:
        with _hp():
            r = mpmath.sqrt(_mpq(self.D))
            inv = 1 / mpmath.sqrt(_mpq(self.P) + _mpq(self.Q) * r)
            return [(_mpq(a) + _mpq(b) * r) * inv for a, b in zip(self.c.entries(), self.e.entries())]

    def floats(self) -> np.ndarray:
        return np.array([float(x) for x in self.mp()])

    def first_sign(self) -> int:
        for a, b, v in zip(self.c.entries(), self.e.entries(), self.mp()):
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
        with _hp():                      # ``-x`` rounds to the context precision (15 digits outside)
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
        with _hp():
            Sv = [mpmath.fsum(_mpq(rows[i][j]) * self.vals[j] for j in range(n) if rows[i][j] != 0)
                  for i in range(n)]
            d = mpmath.fsum(a * b for a, b in zip(self.vals, Sv))
            resid = max((abs(a - d * b) for a, b in zip(Sv, self.vals)), default=mpmath.mpf(0))
            scale = max([abs(d)] + [abs(a) for a in Sv] + [mpmath.mpf(1)])
            return sp.Float(mpmath.nstr(d, 35), 30), bool(resid < scale * mpmath.mpf(10) ** (-(DPS - 20)))


#: the largest degree of a field, and coefficient size in bits, at which a d that is not rational and the
#: exact vectors of :class:`RootVec` are written out (cubic and quartic fields with modest coefficients)
SHORT_DEGREE = 4
SHORT_BITS = 64


class RootVec(NumVec):
    """A unit vector over ℚ(α), α a root of an irreducible ``f`` of degree ≥ 3 (a Gram eigenvalue):
    entry i is ``p_i(α)/√R(α)`` with ``p_i`` and ``R`` rational polynomials of degree < deg f. Its
    numbers (``vals``, to ``DPS`` digits) are those of a :class:`NumVec`, and SymPy is given those numbers;
    what the exact form adds is :meth:`quad_form`, exact in ℚ(α): ``d = Σ p_i S_ij p_j / R`` reduced
    modulo ``f``, written as a polynomial in the singular value ``s`` (α = den²·s²), so that Σx = I/3
    gives ``d = 1/3`` and not a 30-digit float. A rational d is always given exactly; a d of higher degree
    in s, and the exact vector (:meth:`in_s`), only where they are short (:data:`SHORT_DEGREE`,
    :data:`SHORT_BITS`): over a field of degree 24 one d was 95,710 characters and took the derivation from
    3 s to 25 s and its LaTeX from 1 s to 56 s; there d is the 30-digit number, as before."""

    __slots__ = ("polys", "R", "f", "s", "den")

    def __init__(self, vals, polys, R, f, s, den):
        super().__init__(vals)
        self.polys, self.R, self.f, self.s, self.den = list(polys), R, f, s, den

    def neg(self):
        return RootVec(NumVec.neg(self).vals, [-p for p in self.polys], self.R, self.f, self.s, self.den)

    def spread(self, idx, n: int):
        """The vector placed at rows ``idx`` of an n-vector."""
        full, polys = [mpmath.mpf(0)] * n, [flint.fmpq_poly([])] * n
        for i, x, p in zip(idx, self.vals, self.polys):
            full[i], polys[i] = x, p
        return RootVec(full, polys, self.R, self.f, self.s, self.den)

    def _short(self, polys) -> bool:
        """Whether polynomials in α are short enough to be written out (see the class docstring)."""
        return self.f.degree() <= SHORT_DEGREE and all(
            max(int(c.p).bit_length(), int(c.q).bit_length()) <= SHORT_BITS for p in polys for c in p.coeffs())

    def in_s(self, s) -> tuple | None:
        """``(entries, R)``: the vector exactly, as ``Matrix(entries)/√R``, with entries and R polynomials in
        ``s`` (a symbol standing for the singular value, or the value itself): α = den²·s²; None where
        they would be long (over a field of degree above :data:`SHORT_DEGREE`, or large coefficients)."""
        if not self._short([*self.polys, self.R]):
            return None
        z = sp.Dummy("s")
        alpha = self.den ** 2 * z ** 2

        def poly(p):
            return sp.Poly(sp.Add(*[_q(x) * alpha ** k for k, x in enumerate(p.coeffs())]), z)
        entries, R = [poly(p) for p in self.polys], poly(self.R)
        cs = [x for e in entries for x in e.coeffs() if x != 0]
        # the entries scaled to integer polynomials with no common factor (R by its square): one scale
        c = sp.Rational(sp.ilcm(*[x.q for x in cs]), sp.igcd(*[x.p for x in cs])) if cs else sp.S.One
        return [(e * c).as_expr().subs(z, s) for e in entries], (R * c ** 2).as_expr().subs(z, s)

    def quad_form(self, S: flint.fmpq_mat):
        """``selfᵀ S self`` exactly (a polynomial in ``s``, rational coefficients) and whether
        ``S self`` is that multiple of self (exact: each entry of ``S p − d p`` vanishes modulo f)."""
        rows, f, n = S.tolist(), self.f, len(self.polys)
        Sp = [sum((self.polys[j] * rows[i][j] for j in range(n) if rows[i][j] != 0), flint.fmpq_poly([])) % f
              for i in range(n)]
        num = sum((p * q for p, q in zip(self.polys, Sp)), flint.fmpq_poly([])) % f
        g, inv, _ = self.R.xgcd(f)                # g = 1: R ≠ 0 modulo the irreducible f
        d = (num * inv * (1 / g.coeffs()[0])) % f
        ok = all((q - d * p) % f == 0 for p, q in zip(self.polys, Sp))
        if d.degree() > 0 and not self._short([d]):
            return NumVec.quad_form(self, S)[0], bool(ok)
        alpha = self.den ** 2 * self.s.expr() ** 2
        return sp.Add(*[_q(c) * alpha ** k for k, c in enumerate(d.coeffs())]), bool(ok)


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
