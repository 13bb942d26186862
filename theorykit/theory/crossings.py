"""Mode crossings: where two singular values, exact expressions in one free symbol, coincide.

A derivation with a symbol left free orders its modes at one reference point
(:func:`theorykit.theory.svd.generic_reference`); :func:`crossings` finds every point of the symbol's
domain where that order can change: the real points where ``s_a = s_b`` for two modes whose values are
not identically equal. The roots are exact (rationals, surds or ``CRootOf``): ``s_a² − s_b²`` is brought
over one denominator and the real roots of its numerator, a polynomial in the symbol, are isolated
exactly; each is kept only where the unsquared ``s_a = s_b`` holds (not ``s_a = −s_b``) and the
denominator does not vanish. Which mode is larger on each side is decided at a rational point between
neighbouring roots, by the sign of ``s_a² − s_b²`` there (exact for rational functions of the symbol).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import combinations

import sympy as sp

from ..errors import SpecError
from ..io import counted
from ..spec.fields import Typeset, short_repr, tex_label, tex_number, type_name
from .display import fit_lines, set_pieces
from .modes import exact_latex
from .radicals import exactly_equal, rational_between

__all__ = ["Crossing", "CrossingGroup", "CrossingGroups", "Crossings", "crossings", "group_line", "mode_set"]

_DIGITS = 60        # digits of the check that a root of s_a² = s_b² is one of s_a = s_b (not s_a = −s_b)


@dataclass(frozen=True)
class Crossing:
    """``s_a(x) = s_b(x)`` at ``x = at`` (exact): ``larger_below`` / ``larger_above`` name the mode that
    is larger just below / above the point (the same one where the values touch without crossing;
    ``"none"`` on the side beyond a closed end of the domain, such as below 0 for a nonnegative symbol)."""

    symbol: sp.Symbol
    at: sp.Expr
    a: str
    b: str
    larger_below: str
    larger_above: str
    value: sp.Expr

    @property
    def at_float(self) -> float:
        return float(sp.N(self.at, 30))

    def as_dict(self) -> dict:
        """JSON-ready: exact text, a float, LaTeX, the two modes and the larger on each side."""
        return {"symbol": str(self.symbol), "at": str(self.at), "at_float": self.at_float,
                "latex": sp.latex(self.at), "modes": [self.a, self.b], "value": str(self.value),
                "larger_below": self.larger_below, "larger_above": self.larger_above}

    def text(self) -> str:
        return (f"{self.symbol} = {self.at} ≈ {self.at_float:.6g}: s[{self.a}] = s[{self.b}] = {self.value}; "
                f"larger below: {self.larger_below}, above: {self.larger_above}")

    def latex(self) -> str:
        return (f"{sp.latex(self.symbol)} = {exact_latex(self.at)}:\\ s_{{{tex_label(self.a)}}} = "
                f"s_{{{tex_label(self.b)}}}")

    def _repr_latex_(self):
        return f"${self.latex()}$"


def _same_number(x, dx, y, dy) -> bool:
    """Whether the exact numbers ``x`` and ``y`` are equal, proved by
    :func:`~theorykit.theory.radicals.exactly_equal`. Digits only ever tell them apart first (where they
    differ by far more than their error); what cannot be proved equal counts as different (two groups shown
    where one might have done, never one too few). ``dx``, ``dy``: their values to ``_DIGITS`` digits."""
    if x == y:
        return True
    if dx.free_symbols or dy.free_symbols:     # a value in a symbol that cancelled (c·√6/6): exactly only
        return exactly_equal(x, y)
    if abs(dx - dy) > sp.Float(10, _DIGITS) ** (-_DIGITS // 2) * (1 + abs(dx) + abs(dy)):
        return False
    return exactly_equal(x, y)


def _proper(c: Crossing) -> bool:
    """A change of order between the two modes: one larger below, the other above (not a touch, nor a
    closed end of the domain)."""
    return {c.larger_below, c.larger_above} == {c.a, c.b}


def _natural(label: str):
    """Sort key: ``point2`` before ``point10``."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", label)]


#: a label that ends in a number: its stem and the number
_NUMBERED = re.compile(r"^(.*\D)(\d+)$")


def mode_set(labels) -> str:
    """A set of mode labels as text, ``{a, b, c}`` in natural order, shortened by one rule: three or
    more labels that are one stem followed by consecutive numbers (``xor-xor:point0`` …
    ``xor-xor:point3``) are written as a range, the first label, an en dash and the last one without the
    part up to its last ``:`` (``{xor-xor:point0–point3}``); anything else is listed in full."""
    labels = sorted(set(labels), key=_natural)
    m = [_NUMBERED.match(lab) for lab in labels]
    if len(labels) >= 3 and all(m) and len({x.group(1) for x in m}) == 1:
        nums = [int(x.group(2)) for x in m]
        if nums == list(range(nums[0], nums[0] + len(nums))) and all(str(n) == x.group(2) for n, x in zip(nums, m)):
            return "{" + f"{labels[0]}–{labels[-1].rsplit(':', 1)[-1]}" + "}"
    return "{" + ", ".join(labels) + "}"


def group_line(symbol: str, at: str, at_float: float, value: str, below, above, pair=None) -> str:
    """One group of crossings as one line of text, from its fields as text (a JSON record's too):
    ``Delta = sqrt(6)/3 (≈ 0.8165), s = sqrt(6)/6: {…} larger below, {…} larger above``; ``pair``
    (``(a, b, larger_below, larger_above)``) for a group of one crossing that is not a change of order
    (a touch, or a closed end of the domain), which is written as the pair it is."""
    num = f"{at_float:.4g}"
    head = f"{symbol} = {at}" + ("" if num == at else f" (≈ {num})") + f", s = {value}: "
    if pair is not None:
        a, b, lb, la = pair
        return head + f"s[{a}] = s[{b}]; larger below: {lb}, above: {la}"
    return head + f"{mode_set(below)} larger below, {mode_set(above)} larger above"


@dataclass(frozen=True)
class CrossingGroup:
    """Crossings at one point with one value, read as one statement: every mode of ``below`` is larger
    than every mode of ``above`` just below ``at``, and smaller just above it (``crossings`` holds one
    :class:`Crossing` per such pair). A crossing that is not a change of order (a touch, or at a closed
    end of the domain) is a group of its own: ``below`` / ``above`` then name the mode larger on that
    side (none beyond a closed end; the same one for a touch)."""

    symbol: sp.Symbol
    at: sp.Expr
    value: sp.Expr
    below: tuple
    above: tuple
    crossings: tuple

    @property
    def at_float(self) -> float:
        """The point as a float."""
        return float(sp.N(self.at, 30))

    @property
    def modes(self) -> tuple:
        """Every mode of the group's crossings, in natural order."""
        return tuple(sorted({m for c in self.crossings for m in (c.a, c.b)}, key=_natural))

    def _pair(self):
        c = self.crossings[0]
        return None if _proper(c) else (c.a, c.b, c.larger_below, c.larger_above)

    def text(self) -> str:
        """One line: the point (exact, and its float), the value, the modes larger below and above."""
        return group_line(str(self.symbol), str(self.at), self.at_float, str(self.value), self.below, self.above,
                          self._pair())

    def as_dict(self) -> dict:
        """JSON-ready: exact text, a float, LaTeX, the value, the modes larger below and above, every mode,
        the number of pairs, and ``pair`` (``[a, b, larger_below, larger_above]``) for a crossing that is not a
        change of order (null otherwise)."""
        return {"symbol": str(self.symbol), "at": str(self.at), "at_float": self.at_float,
                "latex": sp.latex(self.at), "value": str(self.value), "below": list(self.below),
                "above": list(self.above), "modes": list(self.modes), "pairs": len(self.crossings),
                "pair": None if self._pair() is None else list(self._pair())}

    def latex(self) -> str:
        """The group as LaTeX (math mode): ``Δ = √6/3: s = √6/6``, the modes larger below and above; an
        ``aligned`` block of lines that fit a page where one line would not (long spec names: :meth:`rows`)."""
        rows = self.rows()
        return rows[0] if len(rows) == 1 else r"\begin{aligned}&" + r" \\ &\quad ".join(rows) + r"\end{aligned}"

    def rows(self) -> list[str]:
        """The group's LaTeX as lines of at most :data:`~theorykit.theory.display.LINE_WIDTH` (one where it fits),
        broken between the modes (:func:`~theorykit.theory.display.fit_lines`)."""
        below, above = ([tex_label(m) for m in sorted(set(x), key=_natural)] for x in (self.below, self.above))
        approx = tex_number(format(self.at_float, ".4g"))     # 1e-05 typeset as 1e − 05: 10^{-5}
        head = f"{sp.latex(self.symbol)} = {exact_latex(self.at)} \\approx {approx}:\\ s = {exact_latex(self.value)}"
        if (pair := self._pair()) is not None:
            a, b, lb, la = pair
            return fit_lines([head + f",\\ s_{{{tex_label(a)}}} = s_{{{tex_label(b)}}};\\ ",
                              f"\\text{{larger below: }}{tex_label(lb)},\\ ", f"\\text{{above: }}{tex_label(la)}"])
        return fit_lines([head + ";\\ ", *set_pieces(below, r"\text{larger below},\ "),
                          *set_pieces(above, r"\text{larger above}")])

    def _repr_latex_(self):
        return f"${self.latex()}$"


def _groups(found) -> list[CrossingGroup]:
    """The crossings ``found`` grouped: by point and value (both compared exactly), then the proper
    ones by the set of modes each "larger below" mode meets (those meeting the same set form one group:
    every pair below × above is a member); the others one each. Ascending by point, then value."""
    clusters = []       # [(at, its digits), (value, its digits), members]
    for c in found:
        at, value = (c.at, sp.N(c.at, _DIGITS)), (c.value, sp.N(c.value, _DIGITS))
        for cl in clusters:
            if _same_number(*cl[0], *at) and _same_number(*cl[1], *value):
                cl[2].append(c)
                break
        else:
            clusters.append([at, value, [c]])
    out, order = [], {}
    for (at, dat), (value, dvalue), members in clusters:
        meets = {}
        for c in members:
            if _proper(c):
                meets.setdefault(c.larger_below, set()).add(c.larger_above)
        by_set = {}
        for b, above in meets.items():
            by_set.setdefault(frozenset(above), []).append(b)
        for above, below in by_set.items():
            below_set = set(below)
            mem = tuple(c for c in members if _proper(c) and c.larger_below in below_set and c.larger_above in above)
            out.append(CrossingGroup(members[0].symbol, at, value, tuple(sorted(below, key=_natural)),
                                     tuple(sorted(above, key=_natural)), mem))
            order[id(out[-1])] = (dat, dvalue)
        for c in members:
            if not _proper(c):
                out.append(CrossingGroup(c.symbol, at, value, tuple(m for m in (c.larger_below,) if m in (c.a, c.b)),
                                         tuple(m for m in (c.larger_above,) if m in (c.a, c.b)), (c,)))
                order[id(out[-1])] = (dat, dvalue)
    index = {id(c): k for k, c in enumerate(found)}
    out.sort(key=lambda g: (*order[id(g)], min(index[id(c)] for c in g.crossings)))
    return out


class CrossingGroups(Typeset, list):
    """The :class:`CrossingGroup` s of a :class:`Crossings` (its :attr:`~Crossings.groups`): a plain list
    that prints one line per group and that Jupyter shows typeset, one group a line."""

    def _repr_latex_(self):
        if not self:
            return r"$\text{no crossing}$"
        rows = [("&" if k == 0 else r"&\quad ") + row for g in self for k, row in enumerate(g.rows())]
        return r"$\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}$"

    def __str__(self):
        return "\n".join(g.text() for g in self) if self else "no crossing"


class Crossings(Typeset, list):
    """The :class:`Crossing` s in ascending order of the point, one per pair of modes; a plain list that
    prints (and Jupyter shows typeset) by :attr:`groups`, one line per group of coincident crossings."""

    @property
    def groups(self) -> CrossingGroups:
        """The crossings grouped, one :class:`CrossingGroup` per point, value and split of the modes
        into those larger below and those larger above (XoR's Δ*: its 8 crossings, each linear mode
        with each XoR mode, are one group), ascending by point. Points and values are compared exactly."""
        return CrossingGroups(_groups(list(self)))

    #: the symbols besides the searched one that cancelled from every comparison (see :func:`crossings`)
    cancelled: tuple = ()

    def cancelled_note(self) -> str:
        """What cancelled (:attr:`cancelled`), in words; empty where nothing did."""
        names = ", ".join(map(str, self.cancelled))
        return (f"{names} cancelled: each s_a² − s_b² is a factor of fixed sign in {names} times one free of "
                f"{'it' if len(self.cancelled) == 1 else 'them'}, so the points and the order hold for every "
                f"value {'it takes' if len(self.cancelled) == 1 else 'they take'}") if self.cancelled else ""

    def _repr_latex_(self):
        tex = self.groups._repr_latex_()
        if not self.cancelled:
            return tex
        note = r"\text{(}" + ",\\, ".join(sp.latex(c) for c in self.cancelled) + r"\text{ cancelled)}"
        if not tex.endswith(r"\end{aligned}$"):            # "no crossing": one short line
            return tex[:-1] + r"\quad " + note + "$"
        # the note a line of its own, the block's last: after a block of full lines it was past the page
        return tex[:-len(r"\end{aligned}$")] + r" \\ &" + note + r"\end{aligned}$"

    def text(self) -> str:
        """One line per group of crossings (see :attr:`groups`); ``no crossing`` where there is none; a last
        line naming the symbols that cancelled, where any did."""
        text = "\n".join(g.text() for g in self.groups) if self else "no crossing"
        return text + (f"\n({self.cancelled_note()})" if self.cancelled else "")

    def __str__(self):
        return self.text()

    def __repr__(self):
        if not self:
            return "Crossings([])"
        groups = self.groups
        n = counted(len(self), "crossing") + (f" in {counted(len(groups), 'group')}" if len(groups) != len(self) else "")
        note = f"; {self.cancelled_note()}" if self.cancelled else ""
        return f"Crossings({n}: " + "; ".join(g.text() for g in groups) + note + ")"


def _is_derivation(obj) -> bool:
    return hasattr(obj, "modes") and hasattr(obj, "spec")


def _modes(der, prefix="") -> list[tuple[str, sp.Expr]]:
    """Every mode of every pathway of ``der``: ``prefix + pathway`` (``[k]`` added where a pathway has several)."""
    out = []
    for name, svd in der.modes.items():
        ms = svd.modes
        out += [(prefix + (name if len(ms) == 1 else f"{name}[{k + 1}]"), m.s) for k, m in enumerate(ms)]
    return out


def _values(source) -> list[tuple[str, sp.Expr]]:
    """``(label, s)`` pairs from a derivation (every mode of every pathway), a dict or a list of pairs; a
    derivation inside the list (or dict) gives its modes, labelled ``spec-name:pathway`` (``key:pathway``)."""
    if _is_derivation(source):
        return _modes(source)
    items = list(source.items()) if isinstance(source, dict) else source
    try:
        items = [(None, it) if _is_derivation(it) else tuple(it) for it in items]
        pairs = []
        for lab, s in items:
            if _is_derivation(s):
                pairs += _modes(s, f"{s.spec.name if lab is None else lab}:")
            else:
                pairs.append((str(lab), sp.sympify(s) if not isinstance(s, str) else None))
    except (TypeError, ValueError):
        raise SpecError("values", "must be a Derivation, a list (or dict) of Derivations, a dict {label: s} or a "
                        "list of (label, s) pairs", "pass e.g. [('linear', Delta/2), ('xor', sp.sqrt(2 + Delta**2)/4)]"
                        " or [tk.Derivation(spec_a), tk.Derivation(spec_b)]") from None
    bad = [lab for lab, s in pairs if s is None]
    if bad:
        raise SpecError("values", f"the values of {bad} are text, not SymPy expressions",
                        "build them with SymPy (or tk.parse_expr); text is not evaluated here")
    labels = [lab for lab, _ in pairs]
    twice = sorted({lab for lab in labels if labels.count(lab) > 1})
    if twice and any(_is_derivation(it[1]) for it in items):
        raise SpecError("values", f"the labels {twice} name two modes (two derivations of specs with one name?)",
                        "pass a dict {label: derivation}: its keys label the derivations' modes instead")
    return pairs


def _symbol(pairs, symbol):
    free = set().union(*(s.free_symbols for _, s in pairs)) if pairs else set()
    names = sorted(map(str, free))
    clash = sorted({n for n in names if names.count(n) > 1})
    if clash:       # e.g. Delta positive in one spec, nonnegative in another: two symbols of one name
        raise SpecError("symbol", f"{clash} name symbols declared with different assumptions in the sources "
                        f"({', '.join(sorted(f'{x.name}: {_kind(x)}' for x in free if x.name in clash))})",
                        "declare the symbol alike in every spec ([symbols] NAME = {positive = true}, say)")
    if symbol is None:
        if len(free) > 1:
            raise SpecError("symbol", f"the singular values hold the symbols {names}; a crossing is searched "
                            "along one", f"pass symbol= one of {names} and values for the others "
                            "(derive with values=, or .subs them into the expressions; on the command line "
                            "--set NAME=VALUE)")
        if not free:    # tk.xor_margin(1): every mode a number, which was answered "no crossing"
            raise SpecError("symbol", "the singular values hold no free symbol: there is nothing to search along "
                            "(the task has none, or each was given a value)",
                            "derive a task with a symbol left free, e.g. tk.xor_margin() (Δ free) rather than "
                            "tk.xor_margin(1), and give it no value")
        return next(iter(free))
    if not isinstance(symbol, (str, sp.Symbol)):
        raise SpecError("symbol", f"{short_repr(symbol)} is {type_name(symbol)}, not a symbol or its name",
                        f"pass one of {names} (a name), or the symbol itself, e.g. der.task.symbols[{names[0]!r}]"
                        if names else "the values hold no symbol: nothing can cross")
    if symbol not in free:      # a name, a symbol of another name, or one of this name with other assumptions
        name = symbol if isinstance(symbol, str) else symbol.name
        match = [x for x in free if x.name == name]
        if not match:
            raise SpecError("symbol", f"{name!r} is not in the singular values (their symbols: {names})",
                            f"use one of {names}" if names else "the values hold no symbol: nothing can cross")
        if not isinstance(symbol, str):     # sp.Symbol("Delta") for a spec's nonnegative Delta: SymPy's twin
            raise SpecError("symbol", f"{symbol!r} has other assumptions ({_kind(symbol)}) than the singular values' "
                            f"{name} ({_kind(match[0])}), and SymPy counts the two as different symbols",
                            f"pass its name, symbol={name!r}, or the expressions' own symbol, "
                            f"e.g. der.task.symbols[{name!r}]; to search another interval, pass interval=")
        symbol = match[0]
    return symbol


def _fixed_sign_factor(expr, others):
    """``expr = F·G`` with ``F`` a polynomial in ``others`` alone of one sign by their assumptions (c², c + 1
    for a positive c) and ``G`` free of them: ``F``'s sign (±1), or None where no such split is proved. Every
    coefficient of ``expr`` as a polynomial in ``others`` must be a rational multiple of the first."""
    if expr == 0:
        return 1
    try:
        poly = sp.Poly(expr, *others)
    except (sp.PolynomialError, sp.polys.polyerrors.GeneratorsError):
        return None
    ratios = [sp.cancel(co / poly.coeffs()[0]) for co in poly.coeffs()]
    if not all(r.is_Rational for r in ratios):
        return None
    F = sp.Add(*[r * sp.Mul(*[o ** e for o, e in zip(others, m)]) for r, m in zip(ratios, poly.monoms())])
    return 1 if F.is_positive else -1 if F.is_negative else None


def _cancel(pairs, x, others):
    """Where the symbols ``others`` cancel from every comparison, the values at a point of theirs (the
    search then runs as if they were numbers); else the refusal. Exact: each s_a² − s_b², over one
    denominator, has numerator and denominator :func:`_fixed_sign_factor` (a factor of fixed sign in
    ``others`` times one free of them), so its real roots in ``x`` and its sign on each side are those of the
    part free of them; and each value is nonnegative by its symbols' assumptions, so s_a² = s_b² is
    s_a = s_b. Singular values (c·Δ/2 and c·√(Δ² + 2)/4 for XoR's targets times a positive c) are."""
    names = sorted(map(str, others))
    fix = (f"give {names} values (derive with values=, e.g. tk.Derivation(spec, values={{{names[0]!r}: 1}}), or "
           ".subs them; on the command line --set NAME=VALUE)")
    for lab, s in pairs:
        if not s.is_nonnegative:
            raise SpecError("symbol", f"the singular values also hold {names} besides {x}, and s[{lab}] = "
                            f"{sp.sstr(s)[:80]} is not nonnegative by its symbols' assumptions, so "
                            f"{names} cannot be shown to cancel", fix)
    for (la, sa), (lb, sb) in combinations(pairs, 2):
        num, den = sp.together(sp.expand(sa ** 2 - sb ** 2)).as_numer_denom()
        if _fixed_sign_factor(sp.expand(num), others) is None or _fixed_sign_factor(sp.expand(den), others) is None:
            raise SpecError("symbol", f"the singular values also hold {names} besides {x}, and {names} do not "
                            f"cancel from s[{la}]² − s[{lb}]²: where the two cross depends on them", fix)
    at = {o: -1 if (o.is_negative or o.is_nonpositive) else 1 for o in others}
    return [(lab, s.subs(at)) for lab, s in pairs]


#: a symbol's kind (the first of its assumptions that holds) → its default search domain
_DOMAINS = {"positive": sp.Interval.open(0, sp.oo), "negative": sp.Interval.open(-sp.oo, 0),
            "nonnegative": sp.Interval(0, sp.oo), "nonpositive": sp.Interval(-sp.oo, 0),
            "real": sp.Interval(-sp.oo, sp.oo)}


def _kind(x) -> str:
    return next((k for k in _DOMAINS if getattr(x, f"is_{k}")), "no sign assumption")


def _domain(x) -> sp.Set:
    """The default search domain: the symbol's own, by its assumptions (none: the real line)."""
    return _DOMAINS.get(_kind(x), _DOMAINS["real"])


def _interval(interval, x):
    if interval is None:
        return _domain(x) if x is not None else sp.Interval(-sp.oo, sp.oo)
    if isinstance(interval, sp.Set):
        dom = interval
    else:
        try:
            lo, hi = interval
            ends = [sp.nsimplify(v) if isinstance(v, float) else sp.sympify(v) for v in (lo, hi)]
            # an end that is a symbol (0, Delta) or NaN found "no crossing", or raised "Invalid NaN comparison"
            if not all(isinstance(e, sp.Expr) and e.is_number and e.is_extended_real for e in ends):
                raise ValueError(interval)
            dom = sp.Interval(*ends)
        except (TypeError, ValueError, sp.SympifyError):
            raise SpecError("interval", f"{interval!r} is no interval",
                            "pass (lo, hi) with real numbers (sp.oo for no bound) or a sympy.Interval") from None
    if dom.free_symbols:
        raise SpecError("interval", f"{interval!r} has ends that hold symbols {sorted(map(str, dom.free_symbols))}",
                        "give its ends as numbers, e.g. interval=(0, 2)")
    if dom is sp.S.EmptySet:        # (2, 0): SymPy's NotImplementedError "(EmptySet)._inf" reached the caller
        raise SpecError("interval", f"{interval!r} holds no point (its lower end is above its upper end)",
                        "pass (lo, hi) with lo ≤ hi, e.g. interval=(0, 2)")
    return dom


def _sign(expr) -> int:
    """The exact sign of a number (a rational here; high-precision digits only where SymPy cannot decide)."""
    expr = sp.nsimplify(expr) if expr.is_Float else expr
    if expr.is_zero:
        return 0
    if expr.is_positive:
        return 1
    if expr.is_negative:
        return -1
    return int(sp.sign(sp.N(expr, _DIGITS)))


def _numeric_poly(expr, x):
    """``expr`` as a polynomial in ``x`` with numeric coefficients, or None: over an algebraic field such as
    ℚ(√5) its norm (the product of its conjugates, a polynomial over ℚ: every root of ``expr`` is one of its
    roots, and the others, roots of a conjugate, fail the caller's check s_a = s_b). s_p² − s_q² = √5·a² of
    M = [[0, a], [a, a]] was refused as "not a rational function"; its norm 5a⁴/4 gives the touch at a = 0."""
    poly = sp.Poly(expr, x)
    if poly.domain.is_Numerical:
        return poly
    if poly.domain.is_EX and not poly.free_symbols_in_domain:    # irrational numbers among the coefficients
        try:
            alg = sp.Poly(expr, x, extension=True)
        except (sp.PolynomialError, NotImplementedError, sp.polys.polyerrors.CoercionFailed):
            return None
        if alg.domain.is_AlgebraicField:
            return alg.norm()
    return None


def _polynomial(num, x):
    """``num`` as a polynomial in ``x`` with numeric coefficients (:func:`_numeric_poly`), its square roots
    squared away (SymPy's ``unrad``: every root of ``num`` is a root of the result) where it has any; else
    None."""
    try:
        poly = _numeric_poly(num, x)
        if poly is not None:
            return poly
    except sp.PolynomialError:
        pass
    try:
        res = sp.solvers.solvers.unrad(num, x)
    except (NotImplementedError, ValueError, TypeError):
        return None
    if res is None or res[1]:       # no radical in x (then not a polynomial), or a change of variable
        return None
    try:
        return _numeric_poly(sp.expand(res[0]), x)
    except sp.PolynomialError:
        return None


def _pair(x, dom, la, sa, lb, sb):
    """The crossings of one pair along ``x`` in ``dom``; none where the two are identically equal."""
    sq = sp.together(sp.expand(sa ** 2 - sb ** 2))
    num, den = sq.as_numer_denom()
    num = sp.expand(num)
    if num == 0:        # s_a² ≡ s_b²: identically equal, or s_a ≡ −s_b, which meet where s_a = 0
        if sp.simplify(sa - sb) == 0:
            return []
        num, den = sp.together(sa ** 2).as_numer_denom()
        num = sp.expand(num)
    poly = _polynomial(num, x)
    if poly is None:
        raise SpecError("values", f"s[{la}]² − s[{lb}]² is not a rational function of {x} after squaring "
                        f"({sp.sstr(num)[:80]}…)", f"pass simpler values, or solve s[{la}] = s[{lb}] with SymPy")
    roots = []
    for r in sorted(set(sp.real_roots(poly)), key=lambda r: sp.N(r, _DIGITS)):
        if dom.contains(r) is not sp.true:
            continue
        if sp.N(den.subs(x, r), _DIGITS) == 0:
            continue
        ra, rb = sp.N(sa.subs(x, r), _DIGITS), sp.N(sb.subs(x, r), _DIGITS)
        if abs(ra - rb) > sp.Float(10, _DIGITS) ** (-_DIGITS // 2) * (1 + abs(ra) + abs(rb)):
            continue        # a root of s_a = −s_b, brought in by squaring
        roots.append(sp.radsimp(r) if not isinstance(r, sp.CRootOf) else r)
    out = []
    ends = [dom.inf] + roots + [dom.sup]

    def larger(lo, hi):
        if (hi - lo).is_zero:       # the point is the domain's closed end: nothing lies on that side
            return "none"
        q = rational_between(lo, hi)
        va, vb = sa.subs(x, q), sb.subs(x, q)
        nonneg = sp.N(va, _DIGITS) >= 0 and sp.N(vb, _DIGITS) >= 0
        sg = _sign(sq.subs(x, q)) if nonneg else _sign(va - vb)
        return la if sg > 0 else lb if sg < 0 else "equal"
    for k, r in enumerate(roots):
        out.append(Crossing(x, r, la, lb, larger(ends[k], r), larger(r, ends[k + 2]), _value(x, r, sa, sb)))
    return out


def _value(x, r, sa, sb):
    """The common value of ``sa`` and ``sb`` at ``x = r``: the simpler of the two."""
    vals = [v if r.has(sp.CRootOf) else sp.radsimp(sp.expand(v)) for v in (sa.subs(x, r), sb.subs(x, r))]
    return min(vals, key=sp.count_ops)


def crossings(source, symbol=None, interval=None) -> Crossings:
    """Where two singular values coincide along one free symbol, in ascending order (exact points).

    ``source``: a :class:`~theorykit.theory.derivation.Derivation` (every mode of every pathway, labelled
    by pathway, ``name[k]`` where a pathway has several), a list of Derivations (their modes labelled
    ``spec-name:pathway``, e.g. ``xor-linear:positive``: crossings between two derivations, such as the
    XoR crossover Δ* between the linear and the XoR ReLN), a dict ``{label: Derivation}`` (labelled
    ``label:pathway``), a dict ``{label: s}`` or a list of ``(label, s)`` pairs (e.g. the top singular
    values of two derivations); Derivations and pairs may be mixed. ``symbol``: the symbol (or its name)
    to search along (a symbol of that name with other assumptions, such as a plain ``sp.Symbol("Delta")``
    for a spec's nonnegative Δ, is another symbol to SymPy: refused, naming the fix); by default the only
    free one (several: an error naming them; none, as for ``tk.xor_margin(1)``: an error). Another symbol
    is kept only where it cancels (targets times a positive c: each s_a² − s_b² is c² times a function of
    Δ alone), named in ``.cancelled`` and the text; else refused: give it a value. ``interval``: ``(lo, hi)``
    or a ``sympy.Set``; by default the symbol's own
    domain, by its assumptions: positive → (0, ∞), negative → (−∞, 0), nonnegative → [0, ∞),
    nonpositive → (−∞, 0], otherwise (real, or no assumption) the whole real line. Pairs that are
    identically equal are not reported.

        >>> import sympy as sp
        >>> D = sp.Symbol("Delta", positive=True)
        >>> [c.at for c in crossings([("linear", D / 2), ("xor", sp.sqrt(2 + D**2) / 4)])]
        [sqrt(6)/3]
        >>> b = sp.Symbol("b", negative=True)      # searched on b < 0, its own domain
        >>> [c.at for c in crossings([("p", -b / 2), ("q", sp.Rational(1, 4))])]
        [-1/2]
    """
    pairs = _values(source)
    x = _symbol(pairs, symbol)
    dom = _interval(interval, x)
    found = []
    xr = x if x.is_real else sp.Dummy(x.name, real=True)    # on the real line: |x|² = x², √(x²) = |x|
    pairs = [(lab, s.subs(x, xr)) for lab, s in pairs]
    others = sorted(set().union(*(s.free_symbols for _, s in pairs)) - {xr}, key=str) if pairs else []
    searched = _cancel(pairs, xr, others) if others else pairs
    exact = dict(pairs)
    for (la, sa), (lb, sb) in combinations(searched, 2):     # a cancelled symbol at a value; the value exact
        found += [replace(c, symbol=x, value=_value(xr, c.at, exact[la], exact[lb]).subs(xr, x) if others
                          else c.value) for c in _pair(xr, dom, la, sa, lb, sb)]
    found.sort(key=lambda c: (sp.N(c.at, _DIGITS), c.a, c.b))
    (out := Crossings(found)).cancelled = tuple(others)
    return out
