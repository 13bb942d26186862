"""Exact arithmetic with square roots: zero tests and rational forms by polynomial reduction.

A square root ``√b`` of an expression ``b`` becomes a fresh symbol ``y`` with the relation
``y² = b``, after the radicand is brought to a normal form (:func:`_sqrt_normal_form`: ``√6 = √2·√3``,
``√(2Δ² + 4) = √2·√(Δ² + 2)``, a square factor of known sign taken out), so that roots related by a
product share their symbols. What is then proved by polynomial arithmetic modulo these relations holds
for either sign of every symbol ``y``, so for the principal roots, and nothing is guessed from digits.
:func:`zero_by_radical_reduction` proves an expression zero (behind
:func:`theorykit.theory.modes.is_zero`); :func:`_square_roots_multiplied_out` finds the rational
function an expression with square roots equals (behind :func:`theorykit.theory.modes.tidy`), roots
nested in roots included: the input variance ``d = vᵀ Σx v`` of a singular vector ``v = w/‖w‖`` that
rotates with a symbol holds ``1/√(Q(Δ, √(Δ² + 4)))`` squared and is a constant. Both use one replacement of the roots by
symbols and one reduction (:func:`_roots_as_symbols`, :func:`_reduced`), with the same bounds.
"""
from __future__ import annotations

import random

import mpmath
import sympy as sp
from sympy.polys.polyerrors import NotAlgebraic

__all__ = ["zero_by_radical_reduction", "exactly_equal", "rational_between", "RADICAL_REDUCTION_MAX_OPS",
           "RADICAL_REDUCTION_MAX_POWER",
           "RADICAL_REDUCTION_MAX_ROOTS", "RADICAL_REDUCTION_MAX_TERMS"]


def zero_by_radical_reduction(expr) -> bool:
    """True when ``expr`` is proved identically zero by exact polynomial arithmetic; False when
    this test cannot decide (the caller goes on to ``simplify``).

    Its square roots become symbols with their relations, innermost first (:func:`_roots_as_symbols`:
    towers of roots too), and the numerator is reduced modulo these relations. A zero remainder with a
    non-zero reduced denominator proves ``expr = 0`` for either sign of every root symbol (only
    ``y² = b`` is used) wherever the denominator is not zero; a non-zero one decides nothing. Radicands are first
    brought to a normal form (:func:`_sqrt_normal_form`: ``√(2Δ² + 4) = √2·√(Δ² + 2)``, ``√6 = √2·√3``),
    so that roots related by a product share their symbols and a denominator such as
    ``√(2Δ² + 4) − √2·√(Δ² + 2)`` reduces to 0 (0/0 is not called zero). A radicand that is a square
    (``√(x² + 2x + 1)``) is its root ``±(x + 1)`` where the symbols' assumptions give the sign (x > 0),
    and makes the test undecided otherwise: its symbol would make a reduced denominator that is not zero
    vanish on one branch (``((√x + 1)(√x − 1) − x + 1)/(√(x² + 2x + 1) − x − 1)``, 0/0 for x > −1). A
    square of this kind hidden in a tower is taken out (:func:`_denested`): with numbers where SymPy's
    ``sqrtdenest`` finds it (``√(3 + 2√2) = 1 + √2``), with symbols where the radicand is a square of a
    small polynomial in the roots whose sign the assumptions prove (:func:`_square_taken_out`:
    ``√(x + 2√x + 1) = √x + 1`` for x ≥ 0). Where one is left (``√(x − 2√x + 1) = |√x − 1|``), a
    denominator that is not zero modulo the relations may still vanish
    for the principal roots; it is evaluated at one point (:func:`_vanishes_at_a_point`), and if it
    vanishes there the test is undecided: the point can only refuse a proof, never make one. Radicals
    other than square roots, functions, and anything past the bounds of :func:`_roots_as_symbols` make
    it undecided."""
    expr = sp.sympify(expr)
    if expr == 0:
        return True
    try:
        f, rels, k = _roots_as_symbols(expr, rationalise=False)
        return (_reduced(f.numer, rels) == 0 and _reduced(f.denom, rels) != 0
                and not _vanishes_at_a_point(f.denom, rels, k))
    except _UNDECIDED:
        return False


#: :func:`_roots_as_symbols` (so :func:`zero_by_radical_reduction` and :func:`_square_roots_multiplied_out`)
#: works on expressions of at most this many operations, with integer powers of sums at most this high,
#: at most this many distinct square roots, and numerator and denominator polynomials of at most this
#: many terms at every step: bounds on its time (milliseconds to about a second); past any of them
#: nothing is decided (False, ``None``)
RADICAL_REDUCTION_MAX_OPS, RADICAL_REDUCTION_MAX_POWER = 8 * 120, 4
RADICAL_REDUCTION_MAX_ROOTS, RADICAL_REDUCTION_MAX_TERMS = 6, 4000


class _Refused(Exception):
    """Past a bound of :func:`_roots_as_symbols`, or a form it does not treat."""


_UNDECIDED = (_Refused, ValueError, sp.PolynomialError, sp.GeneratorsNeeded, sp.CoercionFailed)


def _roots_as_symbols(x, rationalise: bool = True):
    """``x`` as ``(f, rels, k)``: every ``b^(p/2)`` becomes ``y_b^p`` with a fresh symbol ``y_b``
    (``(c·∏ y_r)^p`` over the roots ``r`` of ``b``'s normal form, :func:`_sqrt_normal_form`, where ``b``
    holds no root), innermost first, so that ``b`` may hold the symbols of roots inside it (a tower:
    ``√(Δ² + Δ√(Δ² + 4) + 2)``); ``f`` is the result, a rational function over ℚ whose first ``k``
    generators are the roots' symbols, outermost first, then ``x``'s symbols; ``rels`` are the
    relations ``y_b² − b``, innermost first. In this lex order they are a triangular set (the leading
    term of each is ``y_b²``), so reduction modulo them (:func:`_reduced`) is a normal form. Raises
    (one of ``_UNDECIDED``) on a root that is not square, a function, a radicand that is not a
    polynomial, a radicand that is a square of unknown sign, or past a bound
    (:data:`RADICAL_REDUCTION_MAX_OPS`, :data:`RADICAL_REDUCTION_MAX_POWER`,
    :data:`RADICAL_REDUCTION_MAX_ROOTS`). The bounds on operations and powers guard the products of
    rationalisation; with ``rationalise=False`` (the zero test, which only reduces the numerator once)
    they are not applied, and the roots' count and :func:`_reduced`'s term count bound its cost, so
    that an identity such as (x + 1)⁵ − its expansion, or a large residual of an exact derivation, is
    still proved exactly."""
    if x.atoms(sp.Function) or rationalise and (sp.count_ops(x) > RADICAL_REDUCTION_MAX_OPS or any(
            p.base.is_Add and p.exp.is_Integer and abs(p.exp) > RADICAL_REDUCTION_MAX_POWER for p in x.atoms(sp.Pow))):
        raise _Refused
    ys = {}                                       # radicand -> its symbol, innermost first
    forms = {}                                    # radicand -> _sqrt_normal_form's (c, roots)
    flat = {}                                     # radicand of a tower -> its root without the tower, or None

    def rad(e):
        if not (e.exp.is_Rational and e.exp.q == 2):
            raise _Refused      # a root other than a square root
        if e.base not in forms:
            inner = e.base.free_symbols & set(ys.values())
            if inner and e.base not in flat:
                flat[e.base] = _denested(e.base, ys)
            if inner and flat[e.base] is not None:
                return flat[e.base].replace(lambda q: q.is_Pow and not q.exp.is_Integer, rad) ** int(e.exp.p)
            forms[e.base] = (1, [e.base]) if inner else _sqrt_normal_form(e.base)
        coeff, roots = forms[e.base]
        if len(ys.keys() | set(roots)) > RADICAL_REDUCTION_MAX_ROOTS:
            raise _Refused      # too many roots
        return (coeff * sp.Mul(*[ys.setdefault(b, sp.Dummy("y")) for b in roots])) ** int(e.exp.p)

    body = x.replace(lambda e: e.is_Pow and not e.exp.is_Integer, rad)    # bottom-up: inner roots first
    outer_first = list(ys.values())[::-1]
    syms = body.free_symbols.union(*[b.free_symbols for b in ys]) - set(outer_first)
    F, *_ = sp.field(outer_first + sorted(syms, key=str), sp.QQ)
    rels = [F.ring.from_expr(y ** 2 - b) for b, y in ys.items()]   # CoercionFailed: a rational radicand
    return F.from_expr(body), rels, len(outer_first)


def _denested(b, ys):
    """``√b`` without its tower, for a radicand ``b`` of symbols and root symbols (``ys``: radicand ->
    symbol), exact on the principal branch, or ``None`` where nothing is found. With numbers only,
    SymPy's ``sqrtdenest``: ``√(3 + 2√2) = 1 + √2``, ``√(5 − 2√6) = √3 − √2``. With other symbols, a
    square in the field of the roots (:func:`_square_taken_out`): ``√(a + 2√a + 1) = √a + 1`` for a ≥ 0."""
    if b.free_symbols - set(ys.values()):
        return _square_taken_out(b, ys)
    whole = sp.sqrt(b.xreplace({y: sp.sqrt(r) for r, y in ys.items()}))
    out = sp.sqrtdenest(whole)
    roots = [q for q in out.atoms(sp.Pow) if not q.exp.is_Integer]
    nested = any(not w.exp.is_Integer for q in roots for w in q.base.atoms(sp.Pow))
    return None if out == whole or nested else out


#: :func:`_square_taken_out` tries a radicand of at most this many terms and this total degree (after
#: ``t = y²/q`` below): a bound on the cost of the square test in a tower with symbols (one square-free
#: decomposition of a small polynomial, milliseconds); a larger radicand stays one root
_SQUARE_MAX_TERMS, _SQUARE_MAX_DEGREE = 12, 8


def _square_taken_out(b, ys):
    """``√b = ±√c·Q`` for a radicand ``b`` with symbols and root symbols (``ys``: radicand -> symbol)
    that is ``c·Q²`` (``c > 0`` rational, ``Q`` a polynomial in the roots and symbols), with the sign of
    ``Q`` proved by SymPy from the symbols' assumptions; ``None`` otherwise (not a square, past
    :data:`_SQUARE_MAX_TERMS` / :data:`_SQUARE_MAX_DEGREE`, or a square of unknown sign: the tower stays
    one root, no branch is guessed; a Float in ``b``). A root ``y`` of a radicand ``q·t`` (``t`` a
    symbol, ``q`` rational) gives ``t = y²/q`` (true of the principal root, ``(√r)² = r``), so that ``a + 2√a + 1`` becomes
    ``y² + 2y + 1 = (y + 1)²``, a square-free decomposition (``sqf_list``) finds ``Q = y + 1``, and
    ``√((√a + 1)²) = √a + 1`` where ``√a + 1 ≥ 0`` (a ≥ 0: ``√(Q²) = Q`` for a real ``Q ≥ 0``,
    ``−Q`` for ``Q ≤ 0``); with ``a`` of unknown sign ``√a + 1`` may be complex and nothing is found."""
    if b.atoms(sp.Float) or len(sp.Add.make_args(sp.expand(b))) > _SQUARE_MAX_TERMS:
        return None                                 # a Float is known only to its digits; the bound
    subs = {}
    for r, y in ys.items():
        q, t = r.as_coeff_Mul()
        if t.is_Symbol and q.is_Rational and q != 0 and t not in subs:
            subs[t] = y ** 2 / q
    B = sp.expand(b.xreplace(subs))
    gens = sorted(B.free_symbols, key=str)
    if not gens or not B.is_polynomial(*gens) or sp.Poly(B, *gens).total_degree() > _SQUARE_MAX_DEGREE:
        return None
    c, factors = sp.sqf_list(B, *gens)
    if not (c.is_Rational and c > 0) or any(k % 2 for _, k in factors):
        return None
    Q = sp.Mul(*[f ** (k // 2) for f, k in factors]).xreplace({y: sp.sqrt(r) for r, y in ys.items()})
    sign = 1 if Q.is_nonnegative else -1 if Q.is_nonpositive else 0
    return sign * sp.sqrt(c) * sp.expand(Q) if sign else None


def _point(ring, rels, k, flip=None):
    """The values of ``ring``'s generators at one fixed random point: the symbols (generators ``k`` on)
    in [0.3, 2.5] times :func:`_unit`, so in the domain their assumptions give them: in [−2.5, −0.3]
    for a symbol SymPy knows to be ≤ 0 (``negative``, ``nonpositive``), on i·[0.3, 2.5] for an
    ``imaginary`` one (a point outside a symbol's domain could miss a denominator that vanishes on all
    of it); each root symbol (the first ``k``, ``rels`` innermost first) the principal square root of
    its radicand there, with the sign of root ``flip`` turned (mpmath, 30 digits; the caller sets the
    precision)."""
    rng = random.Random(1729)
    vals = [None] * k + [mpmath.mpf(rng.uniform(0.3, 2.5)) * _unit(s) for s in ring.symbols[k:]]
    for j, rel in enumerate(rels):                 # innermost first: generator k − 1 − j
        i = k - 1 - j
        vals[i] = mpmath.sqrt(_poly_value(ring.gens[i] ** 2 - rel, vals)) * (-1 if i == flip else 1)
    return vals


def _unit(s):
    """The factor that takes a number of [0.3, 2.5] into the domain of the symbol ``s``: −1 for a symbol
    known to be ≤ 0 or declared not positive (``positive = false``: the negative reals lie in its domain,
    the positive ones do not; :func:`~theorykit.theory.modes.reference_values` takes the same side), i for
    an imaginary one, 1 + i for another one known not to be real, else 1."""
    if s.is_positive is False and s.is_real is not False:
        return -1
    return mpmath.mpc(0, 1) if s.is_imaginary else mpmath.mpc(1, 1) if s.is_real is False else 1


def _vanishes_at_a_point(den, rels, k) -> bool:
    """True when the polynomial ``den`` is zero at :func:`_point` (principal roots), to 20 digits of its
    terms' size: a refusal for the zero test and :func:`_square_roots_multiplied_out` (a denominator that
    is not zero modulo the relations can vanish for the principal roots when a radicand is a square
    they do not see, ``√(x − 2√x + 1) = |√x − 1|``). The point lies in every symbol's domain (:func:`_unit`):
    a denominator that vanishes on all of it vanishes there. False decides nothing."""
    if k == 0:
        return False
    with mpmath.workdps(30):
        vals = _point(den.ring, rels, k)
        size = mpmath.fsum(abs(_poly_value(den.ring({m: c}), vals)) for m, c in den.terms())
        return abs(_poly_value(den, vals)) <= mpmath.mpf(10) ** -20 * size


#: a rational radicand ``n/m`` is split into primes when ``n·m`` has no prime factor above this
#: after trial division (``factorint``'s cost); a larger cofactor stays one root
_TRIAL_DIVISION_LIMIT = 10 ** 6
#: a polynomial radicand of more terms than this is not factored (its content still comes out)
_FACTOR_MAX_TERMS = 60


def _sqrt_normal_form(b):
    """``(c, roots)`` with ``√b = c·∏ √r`` (``r`` in ``roots``) on the principal branch, so that roots
    related by a product get symbols related by it: ``√6 = √2·√3``, ``√8 = 2√2``, ``√(3/4) = √3/2``,
    ``√(2Δ² + 4) = √2·√(Δ² + 2)``, ``√(Δ²(Δ² + 1)) = Δ·√(Δ² + 1)`` and ``√(Δ² + Δ) = √Δ·√(Δ + 1)`` for Δ ≥ 0.

    A positive rational radicand becomes its square part times the roots of its primes (independent of
    each other). A polynomial ``b`` (over ℚ, no root symbols in it) is its positive rational content
    ``q`` (treated so) times a primitive ``P = ±∏ fᵢ^kᵢ`` (``fᵢ`` irreducible over ℚ):
    ``√b = √q·|S|·∏ √fᵢ·√g`` with ``S = ∏ fᵢ^(kᵢ//2)``, one root ``√fᵢ`` for each odd ``kᵢ`` whose
    ``fᵢ`` is known to be ≥ 0 (``√(−fᵢ)`` and a sign −1 in ``g`` for one known to be ≤ 0:
    ``√(x² − x) = √(−x)·√(1 − x)`` for x ≤ 0), and ``g`` the product of the sign and the other odd
    factors. Each step is exact for the principal root: ``√(a·z) = √a·√z`` for a real ``a ≥ 0`` and any
    complex ``z``, and
    ``√(S²z) = |S|·√z`` for a real ``S``. Signs come from SymPy's assumptions on the symbols (``Δ + 1``
    is ≥ 0 for ``Δ ≥ 0``); ``|S|`` is ``±S`` when the sign of ``S`` is known, else ``P`` stays one root.
    A radicand that is a square (``g = 1``: ``√(x² + 2x + 1)``) of unknown sign raises ``_Refused``: a
    symbol ``y`` with ``y² = S²`` would make ring elements that are not zero vanish on one branch
    (``y − S``), so that 0/0 could be called zero. A negative number, a radicand with a Float, a
    rational function, or one with a root inside stays one root (``(1, [b])``)."""
    if b.is_Rational:
        if b <= 0:
            return 1, [b]
        c, roots = sp.Rational(1, b.q), []
        for p, k in sp.factorint(b.p * b.q, limit=_TRIAL_DIVISION_LIMIT).items():
            c *= sp.Integer(p) ** (k // 2)
            roots += [sp.Integer(p)] if k % 2 else []
        return c, roots
    if b.atoms(sp.Float) or not b.is_polynomial() or not b.free_symbols:
        return 1, [b]
    q, P = sp.expand(b).as_content_primitive()
    c, roots = _sqrt_normal_form(q)
    if len(sp.Add.make_args(P)) > _FACTOR_MAX_TERMS:
        return c, roots + [P]                   # factoring's cost: P stays one root
    g, factors = sp.factor_list(P)
    S, odd = sp.Mul(*[f ** (k // 2) for f, k in factors]), [f for f, k in factors if k % 2]
    if S != 1:
        sign = 1 if S.is_nonnegative else -1 if S.is_nonpositive else 0
        if sign == 0 and not odd:
            raise _Refused      # a square of unknown sign: √(S²) = |S|
        if sign == 0:
            return c, roots + [P]
        c *= sign * S
    for f in odd:
        if f.is_nonnegative:
            roots.append(f)
        elif f.is_nonpositive:
            roots.append(sp.expand(-f))         # f = (−1)·(−f), −f ≥ 0
            g = -g
        else:
            g *= f
    return c, roots + ([] if g == 1 else [sp.expand(g)])


def _reduced(p, rels):
    """``p`` reduced modulo the triangular set ``rels`` (:func:`_roots_as_symbols`); ``_Refused`` past
    :data:`RADICAL_REDUCTION_MAX_TERMS` terms."""
    p = p.rem(rels) if rels else p
    if len(p) > RADICAL_REDUCTION_MAX_TERMS:
        raise _Refused
    return p


def _poly_value(p, vals):
    """The polynomial ``p`` (a ring element) at ``vals`` (one mpmath number per generator)."""
    return mpmath.fsum(mpmath.mpf(int(c.numerator)) / int(c.denominator)
                       * mpmath.fprod([vals[i] ** e for i, e in enumerate(m) if e]) for m, c in p.terms())


def _sign_flip_changes_value(num, den, rels, k) -> bool:
    """A quick numeric refusal for :func:`_square_roots_multiplied_out`: True when ``num/den`` (with
    ``y_i² = b_i``, the first ``k`` generators the roots from outside, ``rels`` innermost first) takes
    another value at one random point when the sign of one root is flipped. A rational function of the
    symbols that ``num/den`` reduces to by the relations alone is the same for every sign, so True means
    the exact reduction would find nothing; False decides nothing (the exact reduction follows)."""
    if k == 0:
        return False
    with mpmath.workdps(30):

        def value(flip):
            vals = _point(num.ring, rels, k, flip)
            d = _poly_value(den, vals)
            return None if abs(d) < mpmath.mpf(10) ** -20 else _poly_value(num, vals) / d

        base = value(None)
        if base is None:
            return False
        for i in range(k):
            other = value(i)
            if other is not None and abs(other - base) > mpmath.mpf(10) ** -15 * max(1, abs(base)):
                return True
    return False


def _square_roots_multiplied_out(x):
    """``x`` as a radical-free rational function when its square roots cancel out, else ``None``.

    Its square roots become symbols with their relations, innermost first (:func:`_roots_as_symbols`),
    and numerator and denominator are reduced modulo them. The denominator is then rationalised one
    root at a time, outermost first: reduced, it is ``a + c·y`` with ``a``, ``c`` free of ``y`` and of
    every root outside it; numerator and denominator are multiplied by ``a − c·y`` and reduced again,
    which leaves ``a² − c²·b`` below. Where numerator and denominator are then both free of the ``y``'s,
    their quotient equals ``x`` exactly, for either sign of every root symbol (only ``y² = b`` is used); it is
    returned cancelled. ``None`` (nothing decided) otherwise: a root is left in the numerator, a
    conjugate vanishes, or :func:`_roots_as_symbols` refuses (a root that is not square, a function, a
    radicand that is not a polynomial, past a bound), or a Float in ``x`` (a number known only to its digits:
    tidy keeps it a Float, not the fraction ℚ would read from it)."""
    x = sp.sympify(x)
    if x.atoms(sp.Float):
        return None                               # a Float is not exact: ℚ would take its digits as a fraction
    try:
        f, rels, k = _roots_as_symbols(x)
        if _sign_flip_changes_value(f.numer, f.denom, rels, k) or _vanishes_at_a_point(f.denom, rels, k):
            return None                           # not one rational function, or 0/0: skip the exact work
        R = f.numer.ring
        num, den = _reduced(f.numer, rels), _reduced(f.denom, rels)
        for i in range(k):                        # R.gens[i] is the i-th root from outside
            if den.degree(R.gens[i]) <= 0:
                continue
            conj = R({m: (-c if m[i] else c) for m, c in den.terms()})    # a − c·y of den = a + c·y
            num, den = _reduced(num * conj, rels), _reduced(den * conj, rels)
        if den == 0 or any(num.degree(R.gens[i]) > 0 or den.degree(R.gens[i]) > 0 for i in range(k)):
            return None
        return sp.cancel(num.as_expr() / den.as_expr())
    except _UNDECIDED:
        return None


def exactly_equal(x, y) -> bool:
    """Whether the exact values ``x`` and ``y`` are equal, proved: structurally equal, their difference
    proved zero by :func:`zero_by_radical_reduction` (square roots, symbols too), or, for a difference free
    of symbols, its minimal polynomial being the variable itself (``CRootOf`` and other algebraic numbers:
    ``CRootOf(x**3 - x - 1, 0)`` equals its Cardano radicals). What is not proved equal counts as different:
    the one rule of the crossings' groups and the ranking's ties (a group or a rank too many, never a
    false one)."""
    x, y = sp.sympify(x), sp.sympify(y)
    if x == y:
        return True
    diff = x - y
    if zero_by_radical_reduction(diff):
        return True
    if diff.free_symbols:
        return False
    try:
        z = sp.Dummy("z")
        return sp.minimal_polynomial(diff, z) == z
    except (NotImplementedError, ValueError, TypeError, sp.PolynomialError, NotAlgebraic):
        return False


def rational_between(lo, hi):
    """A simple rational strictly between the exact numbers ``lo < hi`` (either may be ±∞)."""
    if lo == -sp.oo and hi == sp.oo:
        return sp.Integer(0)
    if hi == sp.oo:
        return sp.floor(lo) + 1
    if lo == -sp.oo:
        return sp.ceiling(hi) - 1
    lo_f, hi_f = sp.N(lo, 40), sp.N(hi, 40)
    for den in (1, 2, 4, 10, 100, 1000, 10 ** 6, 10 ** 12):
        q = sp.Rational(int(sp.floor((lo_f + hi_f) / 2 * den)), den)
        for cand in (q, q + sp.Rational(1, den)):
            if bool(cand > lo) and bool(cand < hi):
                return cand
    return sp.nsimplify((lo_f + hi_f) / 2, rational=True)
