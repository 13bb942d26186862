"""Modes: exact singular value decompositions of effective datasets.

Generic symbolic SVD is slow and yields nested radicals, so :func:`exact_svd` derives from
structure first:

1. zero rows and columns are dropped, and the matrix is split into the connected blocks of
   its bipartite non-zero pattern (a block-diagonal matrix has the union of its blocks' SVDs);
2. a block with one row or one column is rank one: ``σ = ‖b‖``, no eigenproblem at all;
3. otherwise the smaller Gram matrix ``BᵀB`` (or ``BBᵀ``) is used: its characteristic
   polynomial is factored over the rationals (or the symbols' field), each factor is solved
   by radicals where its degree allows and kept as an exact ``CRootOf`` otherwise, and the
   singular vectors come from exact null spaces. Vectors of ``CRootOf`` roots are given to SymPy
   as numbers (marked ``exact_vectors=False``); the singular values stay exact, and so do the input
   variances d of a rational task (polynomials in s, from the vectors kept exactly over ℚ(s²) by
   the engine, which the LaTeX also prints).

Conventions: singular values are sorted in descending order; for each mode the first non-zero
entry of the right (input) singular vector ``v`` is made positive, and ``u`` is flipped with it.
When symbolic, both are decided at the reference values of the symbols (:func:`reference_values`)
and hold there only: at other values the order can be ascending and the first entry negative
(``[[a − 1, 1]]`` has ``v = −(a − 1, 1)/√(a² − 2a + 2)``, negative first at a = 2);
``Derivation(spec, values=...)`` decides both at the values. A candidate point where two singular values
coincide, one vanishes, or an entry of v before the one that fixes its sign vanishes (not identically) is
passed over, with a note (:func:`~theorykit.theory.svd.generic_reference`). Repeated singular values get an
orthonormal basis from Gram–Schmidt on the exact null space.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import mpmath
import numpy as np

import sympy as sp

from ..errors import SpecError
from ..spec.expr import exact_floats
from ..spec.values import check_assumptions
from ..spec.values import exact_values
from .radicals import _square_roots_multiplied_out, _unit, zero_by_radical_reduction
# the typeset results and their exact text live in .display; importable from here as before
from .display import LARGE_NODES, Exprs, ExprsByName, Ranking, exact_latex, exact_text, is_large, values_latex

__all__ = ["Mode", "SVD", "Exprs", "ExprsByName", "Ranking", "reference_values", "is_zero",
           "product_of_irreducible_powers", "exact_latex", "exact_text", "is_large", "LARGE_NODES"]


def reference_values(symbols, avoid=(), skip: int = 0) -> dict:
    """Fixed, generic values for symbols, used to order modes and to test identities, each in its
    symbol's domain: positive, negated for a symbol declared not positive (a singular value ``√(Δ²)/2``
    of a negative Δ simplifies to ``−Δ/2``, and a positive point made it negative), a prime (3, 5, 7, …)
    for an integer symbol (distinct, so that no two symbols meet at a special point).

    ``avoid``: expressions that are not identically zero (the non-zero entries of Σyx and Σx) and must
    not vanish at the point: where one does (an input ``n − 3`` for an integer n, or ``Δ − 7/10``), the
    point is special (a zero input variance, a singular value 0) and the next one is taken (each value
    moved by its index times the attempt, integers to the next primes). ``skip``: pass over that many such
    points (:func:`~theorykit.theory.svd.generic_reference` does, where the SVD's conventions are arbitrary)."""
    vals = [sp.Rational(7, 10), sp.Rational(13, 10), sp.Rational(5, 3), sp.Rational(3, 7), sp.Rational(11, 5)]
    syms = sorted(symbols, key=str)
    avoid = [e for e in avoid if e != 0 and e.free_symbols]
    for k in range(8 + skip):
        out = {}
        for i, s in enumerate(syms):
            v = (sp.Integer(sp.prime(i + 2 + k * len(syms))) if s.is_integer
                 else vals[i % len(vals)] + i + k * sp.Rational(i + 3, 11))
            out[s] = -v if s.is_positive is False else v      # ≤ 0, or declared not positive
        if not any(_vanishes_at(e, out) for e in avoid) and (skip := skip - 1) < 0:
            break
    return out


def _vanishes_at(expr, point) -> bool:
    """Whether ``expr`` is 0 (or undefined) at ``point`` (exact numbers; 80 digits for radicals)."""
    v = expr.subs(point)
    return v == 0 or v.has(sp.nan, sp.zoo) or (not v.is_Number and _mp_abs(v) < 1e-40)


def is_zero(expr, symbols=None, trials: int = 4, tol: float = 1e-10) -> bool:
    """Decide whether ``expr`` is identically zero: by exact reduction, at random parameter values,
    then by simplify.

    An exact proof comes first (:func:`zero_by_radical_reduction`: rational-function arithmetic
    modulo the square roots' relations); where it cannot decide, a numeric test at random values
    (cheap and trustworthy for a non-zero answer), and if that passes everywhere the expression is
    simplified to confirm.
    """
    expr = sp.sympify(expr)
    syms = sorted(expr.free_symbols if symbols is None else symbols, key=str)
    if not syms:
        return _mp_abs(expr) <= tol
    if zero_by_radical_reduction(expr):       # exact proof first (the common case: zero)
        return True
    rng = np.random.default_rng(12345)
    if not _vanishes_at_random_points(expr, syms, rng, trials, 30, tol):
        return False
    if sp.count_ops(expr) > SIMPLIFY_MAX_OPS:
        # too large to simplify in bounded time: confirm at more random points, 50 digits
        return _vanishes_at_random_points(expr, syms, rng, 8, 50, tol)
    return sp.simplify(expr) == 0


def _vanishes_at_random_points(x, syms, rng, trials: int, digits: int, tol: float) -> bool:
    """Whether ``|x| ≤ tol`` at ``trials`` points drawn from ``rng`` (each of ``syms`` uniform on
    [0.3, 2.5], times :func:`~theorykit.theory.radicals._unit` to lie in the symbol's domain: a negative
    symbol at negative values), evaluated with ``digits`` digits. An undefined value (0/0, a pole) is
    not zero: ``nan > tol`` is False, so it passed as vanishing."""
    for _ in range(trials):
        pt = {s: sp.Float(rng.uniform(0.3, 2.5), digits) * _unit_value(s) for s in syms}
        z = complex(x.subs(pt).evalf(digits))
        if not (abs(z) <= tol):
            return False
    return True


def _unit_value(s) -> sp.Expr:
    """:func:`~theorykit.theory.radicals._unit` of the symbol ``s`` as a SymPy number."""
    u = complex(_unit(s))
    return sp.Integer(int(u.real)) + sp.I * int(u.imag)


def product_of_irreducible_powers(x) -> bool:
    """``x`` a product of rational powers of numbers, symbols and irreducible integer polynomials
    (e.g. ``√(Δ² + 2)/4``): ``factor`` leaves it as it is and ``simplify`` has nothing to combine."""
    for f in sp.Mul.make_args(x):
        b, e = f.as_base_exp()
        if not e.is_Rational:
            return False
        if b.is_Number or b.is_Symbol:
            continue
        if not (b.is_Add and b.is_polynomial() and all(c.is_Integer for c in sp.Poly(b).coeffs())):
            return False
        if sp.factor(b) != b:
            return False
    return True


def _nested_symbolic_radical(x) -> bool:
    """A fractional power whose base holds another fractional power and a free symbol."""
    return any(not p.exp.is_Integer and p.base.free_symbols and any(not q.exp.is_Integer for q in p.base.atoms(sp.Pow))
               for p in x.atoms(sp.Pow))


def _content_form(x):
    """``x`` with every radicand expanded and its rational content taken out of the root
    (``√(2a/9) → √2·√a/3``), bottom-up: an exact rewriting."""
    if x.is_Atom:
        return x
    x = x.func(*[_content_form(a) for a in x.args])
    if x.is_Pow and x.exp.is_Rational and not x.exp.is_Integer:
        content, rest = sp.expand(x.base).as_content_primitive()
        return content ** x.exp * rest ** x.exp
    return x


def _radical_free(x) -> bool:
    """No fractional powers and no functions: a rational function of its symbols."""
    return all(a.exp.is_Integer for a in x.atoms(sp.Pow)) and not x.atoms(sp.Function)


def _tidy_vec(v: sp.Matrix, kind: str) -> sp.Matrix:
    """A vector's presentation form: entrywise :func:`tidy` (``kind`` "plain"), or ``radsimp`` of it
    ("rad": the eigenvectors of a Gram matrix), bounded in size. ``radsimp`` is skipped where the
    denominator holds a root of a sum with roots of the symbols in it (a 2 × 2 Gram problem over the
    symbols: targets [[1, 2Δ], [1, Δ − 1]]): it has no sum of roots to rationalise there, and took
    92–129 s per entry (2-core CPU) to return it unchanged."""
    def rad(x):
        if sp.count_ops(x) > SIMPLIFY_MAX_OPS:
            return x
        x = tidy(x)
        return x if _nested_symbolic_radical(sp.denom(x)) else sp.radsimp(x)

    return v.applyfunc(rad if kind == "rad" else tidy)


def num(expr, ref) -> float:
    """The real part of an exact expression, as a float, in bounded time.

    SymPy's ``N`` raises its working precision until each sum is accurate, which on large nested
    radicals that nearly cancel ran for many minutes (a fuzz hang: the eigenvectors of a 3 × 3 Gram
    matrix over Q(√2, √3)). Here the expression is evaluated once per precision, 40, 80, 160 then 320
    digits, in mpmath, sharing repeated subexpressions; two successive precisions agreeing to 25
    digits settle it. Only what this cannot evaluate (an unknown function) goes to ``N``."""
    e = sp.sympify(expr)
    if ref:
        own = {str(x): x for x in e.free_symbols}     # a name, or a plain Symbol of that name, keys its symbol
        e = e.subs({own.get(str(k), k) if isinstance(k, (str, sp.Symbol)) else k: v for k, v in ref.items()})
    if e.is_Number:
        return float(e)
    if e.free_symbols:          # SymPy's "Cannot convert expression to float" named nothing
        names = sorted(map(str, e.free_symbols))
        raise SpecError("values", f"no value for {names}", f"give each a value, e.g. {{'{names[0]}': 0.5}}")
    if not e.free_symbols:
        try:
            prev = None
            for dps in (40, 80, 160, 320):
                with mpmath.workdps(dps):
                    val = mpmath.re(_mp_value(e, {}))
                    if prev is not None and abs(val - prev) <= mpmath.mpf(10) ** -25 * max(1, abs(val)):
                        return float(val)
                    prev = val
        except (_NotFast, RecursionError, ValueError, TypeError, ZeroDivisionError):
            pass
    return float(sp.re(sp.N(e, 30)))


def _mp_abs(expr) -> float:
    """``|expr|`` (no free symbols) at 80 digits in mpmath, in time linear in its size (SymPy's ``N``
    on an exact zero made of nested radicals raises its precision without end)."""
    try:
        with mpmath.workdps(80):
            return float(abs(_mp_value(sp.sympify(expr), {})))
    except (_NotFast, RecursionError, ValueError, TypeError, ZeroDivisionError):
        return abs(complex(sp.sympify(expr).evalf(30)))


def build_unevaluated(x) -> bool:
    """Whether products and sums of ``x`` are built unevaluated: ``x`` is large, or holds a root of
    a quadratic over the symbols (a nested radical with symbols inside), whose products SymPy's
    automatic evaluation takes seconds each to flatten (assumption queries on every factor)."""
    x = sp.sympify(x)
    return is_large(x) or _nested_symbolic_radical(x)


def lazy_matvec(S: sp.Matrix, v: sp.Matrix) -> sp.Matrix:
    """``S v`` exactly; built without SymPy's automatic flattening where :func:`build_unevaluated` says so."""
    if not any(build_unevaluated(x) for x in v):
        return S * v
    return sp.Matrix([sp.Add(*[sp.Mul(S[i, j], v[j], evaluate=False) for j in range(v.rows)
                               if S[i, j] != 0 and v[j] != 0], evaluate=False) for i in range(S.rows)])


def quad_exact(v: sp.Matrix, S: sp.Matrix):
    """``vᵀ S v`` exactly; built unevaluated where :func:`build_unevaluated` says so."""
    if not any(build_unevaluated(x) for x in v):
        return (v.T * S * v)[0]
    terms = [sp.Mul(v[i], S[i, j], v[j], evaluate=False) for i in range(v.rows) for j in range(v.rows)
             if S[i, j] != 0 and v[i] != 0 and v[j] != 0]
    return sp.Add(*terms, evaluate=False) if terms else sp.Integer(0)


class _NotFast(Exception):
    """An expression :func:`_mp_value` does not evaluate (the caller uses SymPy's ``N``)."""


_MP_FUNCS = {sp.re: mpmath.re, sp.im: mpmath.im, sp.Abs: abs, sp.exp: mpmath.exp, sp.log: mpmath.log,
             sp.cos: mpmath.cos, sp.sin: mpmath.sin, sp.acos: mpmath.acos, sp.atan: mpmath.atan}


def _mp_value(e, memo):
    """``e`` (no free symbols) in mpmath at the current precision; ``memo`` shares subexpressions."""
    hit = memo.get(e)
    if hit is not None:
        return hit
    if e.is_Integer:
        r = mpmath.mpf(int(e))
    elif e.is_Rational:
        r = mpmath.mpf(int(e.p)) / int(e.q)
    elif e.is_Float:
        r = mpmath.mpf(e._mpf_)
    elif e is sp.I:
        r = mpmath.mpc(0, 1)
    elif e is sp.pi:
        r = +mpmath.pi
    elif e is sp.E:
        r = +mpmath.e
    elif e.is_Add:
        r = mpmath.fsum([_mp_value(a, memo) for a in e.args])
    elif e.is_Mul:
        r = mpmath.fprod([_mp_value(a, memo) for a in e.args])
    elif e.is_Pow:
        b, x = _mp_value(e.base, memo), e.exp
        if x.is_Integer:
            r = b ** int(x)
        elif x.is_Rational:
            r = mpmath.power(b, mpmath.mpf(int(x.p)) / int(x.q))     # the principal branch, as SymPy's
        else:
            r = mpmath.power(b, _mp_value(x, memo))
    elif type(e) in _MP_FUNCS:
        r = _MP_FUNCS[type(e)](*[_mp_value(a, memo) for a in e.args])
    elif isinstance(e, sp.CRootOf):
        r = mpmath.mpmathify(str(sp.N(e, mpmath.mp.dps + 5)).replace("*I", "j").replace(" ", ""))
    else:
        raise _NotFast(type(e).__name__)
    memo[e] = r
    return r


#: expressions with more operations than this are kept as they are (still exact, just not
#: tidied): SymPy's ``simplify`` can run for many minutes on large nested radicals, which a spec
#: with symbolic entries in a 3 × 4 matrix can produce. Simplification here is presentation only.
SIMPLIFY_MAX_OPS = 120


def tidy(x):
    """Exact, cheaper-to-read form of ``x``: ``factor(simplify(x))`` for a symbolic expression,
    ``sqrtdenest(radsimp(x))`` for a number (both exact rewritings: nothing is guessed from digits);
    ``x`` unchanged when it is larger than :data:`SIMPLIFY_MAX_OPS` operations (bounded cost on any
    input). A symbolic expression whose square roots (nested ones too) multiply out is its factored
    rational function (:func:`~theorykit.theory.radicals._square_roots_multiplied_out`), at any size up
    to that function's own bounds: the d of a singular vector that rotates with a symbol is 1/2, not a
    ratio of roots that is 0/0 at the crossing."""
    x = sp.sympify(x)
    if x.is_Rational or x.is_Symbol:
        return x
    if sp.count_ops(x) > SIMPLIFY_MAX_OPS:
        # too large for simplify; a rational function of the symbols once its square roots multiply
        # out (d = vᵀ Σx v of v = x_μ/‖x_μ‖) still has its factored form, by polynomial arithmetic
        r = _square_roots_multiplied_out(x) if x.free_symbols else None
        return x if r is None else sp.factor(r)
    if x.free_symbols:
        # a rational function of the symbols (possibly only after expansion: products of equal
        # square roots multiply out) has a canonical factored form: factor it, no simplify needed
        if _radical_free(x) or product_of_irreducible_powers(x):
            return sp.factor(x)
        e = sp.expand(x)
        if _radical_free(e):
            return sp.factor(e)
        r = _square_roots_multiplied_out(x)   # roots that cancel, nested ones too (d of a rotating v)
        if r is not None:
            return sp.factor(r)
        if _nested_symbolic_radical(x):
            # a root of a quadratic over the symbols and surds (a 2 × 2 Gram problem): SymPy's
            # simplify takes seconds to tens of seconds on it and finds what this finds in ms
            return _content_form(x)
        return sp.factor(sp.simplify(x))
    if x.has(sp.CRootOf, sp.Float):
        return x
    try:
        return sp.sqrtdenest(sp.radsimp(x))
    except Exception:  # pragma: no cover - denesting is best-effort presentation
        return x


#: total operation count of (G − λI) above which pivots are decided numerically (see _eigen_gram)
NULLSPACE_SIMPLIFY_MAX_OPS = 300


def _is_zero_at_random_points(x, trials: int = 3, digits: int = 40) -> bool:
    """Pivot test for exact elimination: ``x`` is zero iff it vanishes (to 1e-25) at ``trials``
    random parameter points evaluated with ``digits`` digits. A non-zero rational function or
    radical vanishes at a random real point with probability zero, so this errs only at
    negligible probability, and never runs long."""
    x = sp.sympify(x)
    if x.is_Number:
        return bool(x == 0)
    syms = sorted(x.free_symbols, key=str)
    return _vanishes_at_random_points(x, syms, np.random.default_rng(2024), trials if syms else 1, digits, 1e-25)


class Mode:
    """One mode α of an effective dataset: ``Σyx = Σ_α s_α u_α v_αᵀ``.

    ``d`` is the input variance ``v_αᵀ Σx v_α`` (``None`` until an input correlation is given).
    Built from the exact engine (:mod:`theorykit.theory.exactla`), ``s``, ``u``, ``v`` and ``d`` are SymPy
    objects made on first access; ``s_text`` writes the exact value without building it and
    ``s_float``/``d_float`` are its numbers.
    """

    __slots__ = ("_s", "_u", "_v", "_d", "_d_pending", "exact_vectors", "raw", "_d_float", "_uv_pending")

    def __init__(self, s=None, u=None, v=None, d=None, exact_vectors: bool = True, raw=None, d_pending=False,
                 d_float=None, uv_pending=False):
        self._s, self._u, self._v, self._d = s, u, v, d
        self._d_pending = d_pending          # d is exact but not tidied yet (tidied on first access)
        # (u kind, v kind) of _tidy_vec while u, v are exact but not tidied yet (tidied on first access)
        self._uv_pending = uv_pending
        self.exact_vectors = bool(exact_vectors if raw is None else raw.exact_vectors)
        self.raw = raw
        self._d_float = d_float

    @property
    def s(self) -> sp.Expr:
        """The singular value s_α (exact, SymPy)."""
        if self._s is None:
            self._s = self.raw.s.expr()
        return self._s

    def _tidy_vectors(self):
        if self._uv_pending:
            ku, kv = self._uv_pending
            self._u, self._v = _tidy_vec(self._u, ku), _tidy_vec(self._v, kv)
            self._uv_pending = False

    @property
    def u(self) -> sp.Matrix:
        """The left singular vector u_α (exact, a SymPy column)."""
        if self._u is None:
            self._u = self.raw.u.sympy()
        self._tidy_vectors()
        return self._u

    @property
    def v(self) -> sp.Matrix:
        """The right singular vector v_α (exact, a SymPy column)."""
        if self._v is None:
            self._v = self.raw.v.sympy()
        self._tidy_vectors()
        return self._v

    @property
    def u_untidied(self) -> sp.Matrix:
        """``u`` as derived (exact), without the presentation-only simplification."""
        return self._u if self._u is not None else self.u

    @property
    def v_untidied(self) -> sp.Matrix:
        """``v`` as derived (exact), without the presentation-only simplification."""
        return self._v if self._v is not None else self.v

    @property
    def d(self):
        """The input variance d_α = v_αᵀ Σx v_α (exact; None until an input correlation is given)."""
        if self._d_pending:
            self._d = tidy(self._d)
            self._d_pending = False
        return self._d

    @property
    def d_untidied(self):
        """``d`` as derived (exact), without the presentation-only simplification."""
        return self._d

    @property
    def s_text(self) -> str:
        """The exact singular value as text that ``sympy.sympify`` reads back (built without
        constructing a ``CRootOf`` object where the engine kept a polynomial and a root index)."""
        if self.raw is not None and self._s is None:
            return self.raw.s.text()
        return exact_text(self.s)

    def s_float(self, ref=None) -> float:
        if self.raw is not None:
            return float(self.raw.s.mp)
        return num(self.s, ref or {})

    def d_float(self, ref=None) -> float:
        if self._d_float is not None:
            return self._d_float
        return num(self._d, ref or {})

    def with_d(self, d, d_pending=False, d_float=None) -> "Mode":
        return Mode(self._s, self._u, self._v, d, self.exact_vectors, self.raw, d_pending, d_float, self._uv_pending)

    def u_floats(self, ref=None) -> np.ndarray:
        if self.raw is not None:
            return self.raw.u.floats()
        return np.array([num(x, ref or {}) for x in self.u])

    def v_floats(self, ref=None) -> np.ndarray:
        if self.raw is not None:
            return self.raw.v.floats()
        return np.array([num(x, ref or {}) for x in self.v])

    def __eq__(self, other):
        if not isinstance(other, Mode):
            return NotImplemented
        return (self.s, self.u, self.v, self.d) == (other.s, other.u, other.v, other.d)

    __hash__ = None

    def __repr__(self):
        return f"Mode(s={self.s_text}, d={self.d}, exact_vectors={self.exact_vectors})"

    def _repr_latex_(self):
        d = "" if self.d is None else f",\\quad d = {exact_latex(self.d)}"
        return f"$s = {exact_latex(self.s)}{d}$"

    def latex(self) -> str:
        return self._repr_latex_().strip("$")


@dataclass(frozen=True)
class SVD:
    """Exact SVD of a matrix, modes in descending order of singular value."""

    modes: tuple
    shape: tuple
    reference: Mapping = field(default_factory=dict)

    @property
    def singular_values(self) -> list:
        """The singular values, largest first (exact, SymPy)."""
        return Exprs(m.s for m in self.modes)

    @property
    def rank(self) -> int:
        return len(self.modes)

    @property
    def U(self) -> sp.Matrix:
        return sp.Matrix.hstack(*[m.u for m in self.modes]) if self.modes else sp.zeros(self.shape[0], 0)

    @property
    def V(self) -> sp.Matrix:
        return sp.Matrix.hstack(*[m.v for m in self.modes]) if self.modes else sp.zeros(self.shape[1], 0)

    @property
    def S(self) -> sp.Matrix:
        return sp.diag(*self.singular_values) if self.modes else sp.zeros(0, 0)

    def numeric(self, values: Mapping | None = None):
        """``(U, s, V)`` as float arrays (from the exact engine's high-precision vectors, or by
        evaluating the exact expressions at ``values`` and the reference values)."""
        if not self.modes:
            return np.zeros((self.shape[0], 0)), np.zeros(0), np.zeros((self.shape[1], 0))
        ref = self._point(values)
        U = np.stack([m.u_floats(ref) for m in self.modes], axis=1)
        V = np.stack([m.v_floats(ref) for m in self.modes], axis=1)
        return U, np.array(self.floats(values)), V

    def reconstruct(self) -> sp.Matrix:
        return self.U * self.S * self.V.T

    def floats(self, values: Mapping | None = None) -> list:
        """The singular values in floats, at ``values`` (names or symbols as keys) and the reference values."""
        ref = self._point(values)
        return [m.s_float(ref) for m in self.modes]

    def _point(self, values: Mapping | None) -> dict:
        """The reference values updated by ``values``, each key the SVD's own symbol: a name (``"Delta"``)
        or a plain ``sp.Symbol`` matched no symbol declared with assumptions, and the reference value was
        used in silence. A value its symbol's assumptions forbid is refused, as ``Derivation`` does."""
        own = {str(k): k for k in self.reference}
        out = dict(self.reference)
        for k, v in (values or {}).items():
            sym = own.get(str(k), k) if isinstance(k, (str, sp.Symbol)) else k
            if isinstance(sym, str):
                raise SpecError("values", f"no symbol {k!r} in this SVD (its symbols: {sorted(own)})",
                                "key the values by the names of the matrix's symbols")
            val = sp.sympify(exact_values({k: v})[k])      # a string is parsed as the spec's values are
            check_assumptions(sym, val, f"values[{k}]", v)
            out[sym] = val
        return out

    def _repr_latex_(self):
        return f"$s = {values_latex(self.singular_values)}$"    # one mode: no parentheses

    def latex(self) -> str:
        return self._repr_latex_().strip("$")


def _floats(mode, Sx, ref):
    """``(Σx, v)`` in floats, from the mode's numeric ``v``; None where symbols are left."""
    if Sx.free_symbols or any(x.free_symbols for x in mode.v):
        return None
    return exact_floats(Sx), mode.v_floats(ref)       # a surd entry as the double nearest it (float() is 15 digits)


def _quad_float(mode, Sx, ref) -> float | None:
    """``vᵀ Σx v`` in floats from the mode's numeric ``v`` (None where symbols are left: evaluated later)."""
    fl = _floats(mode, Sx, ref)
    return None if fl is None else float(fl[1] @ fl[0] @ fl[1])


def _maybe_eigvec(mode, Sx, ref) -> bool:
    """False when ``Σx v ≠ d v`` is plain in floats (a relative residual above 1e-8); True when it
    may hold (the exact test decides)."""
    fl = _floats(mode, Sx, ref)
    if fl is None:
        return True
    S, v = fl
    d = mode.d_float(ref)
    r = S @ v - d * v
    return bool(np.linalg.norm(r) <= 1e-8 * max(np.linalg.norm(S) * np.linalg.norm(v), 1e-300))
