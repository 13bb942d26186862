"""Typeset results: exact text and LaTeX of SymPy expressions in bounded time, and the lists and maps of
results that Jupyter shows typeset (:class:`Exprs`, :class:`ExprsByName`, :class:`Ranking`, with the tied
ranks of :func:`competition_ranks`).

One notation throughout: a singular value of Σyx is written ``s`` (``s_α``), as in the paper and
docs/theory.md (Notation; the closed form), in every typeset result: an SVD, a mode, a derivation, a
ranking, a crossing.
"""
from __future__ import annotations

import difflib
import re

import sympy as sp

from ..errors import UnknownKeyError
from ..io import counted
from ..spec.fields import Typeset, tex_label
from .radicals import exactly_equal

__all__ = ["Exprs", "ExprsByName", "Ranking", "competition_ranks", "exact_text", "exact_latex", "is_large",
           "values_latex", "LARGE_NODES", "LINE_WIDTH", "printed_width", "fit_lines",
           "set_pieces", "aligned_rows"]

#: expressions with more nodes than this are printed without SymPy's canonical term order and
#: combined without its automatic flattening: sorting the terms of one 7,000-node eigenvector entry
#: for ``str`` took 227 s (4.9 s unsorted), and ``vᵀ Σx v`` by matrix product 11.8 s (0.4 ms unevaluated).
#: Both are the same exact expressions; the text still reads back with ``sympify``.
LARGE_NODES = 2000


def is_large(x, cap: int = LARGE_NODES) -> bool:
    """More than ``cap`` nodes in the expression tree (stops counting at ``cap``)."""
    for i, _ in enumerate(sp.preorder_traversal(sp.sympify(x))):
        if i >= cap:
            return True
    return False


def exact_text(x) -> str:
    """``str(x)``, or for a large expression the same exact expression printed in its stored term order."""
    x = sp.sympify(x)
    return sp.sstr(x, order="none") if is_large(x) else str(x)


def exact_latex(x, **kwargs) -> str:
    """``sp.latex(x)``, or for a large expression (or a matrix or list holding one) the same exact
    expression with its terms in their stored order: SymPy's term order evaluates each numeric term to
    sort it, at every level of a nested radical (LaTeX of one irrational task's derivation took 102 s,
    93 % of it there, for 2 MB of text no one reads term by term)."""
    return sp.latex(x, **({"order": "none"} | kwargs if is_large(x) else kwargs))


#: the widest a line of a typeset result may be, in :func:`printed_width`'s units (about 5 pt each): a
#: standard article page is 345 pt wide (pdflatex, 10 pt type). Measured with pdflatex on every line of the
#: XoR crossover (spec names up to 42 characters) and of the losses of a cubic-field task, the k = 3 common
#: pathway and a one-chain graph, a line of at most 60 units was at most 285 pt wide, and no line wider than
#: 5.2 pt a unit (60 units: 312 pt)
LINE_WIDTH = 60

_TOKEN = re.compile(r"\\[A-Za-z]+|\\.|\s+|.")
_TEXT = ("text", "mathrm", "operatorname", "mathit", "mathbf", "phantom")
_OPS = {"+", "-", "=", "<", ">", r"\approx", r"\leq", r"\geq", r"\cdot", r"\times", r"\in", r"\neq"}
_SPACE = {r"\quad": 2.0, r"\qquad": 4.0, r"\,": 0.35, r"\;": 0.55, r"\:": 0.45, r"\ ": 0.7, r"\!": -0.35}
_SILENT = {"&", r"\\", r"\left", r"\right", r"\big", r"\Big", r"\bigg", r"\Bigg", r"\displaystyle"}


def printed_width(tex: str) -> float:
    """An estimate of how wide math-mode LaTeX prints, in units of about 5 pt (a digit at 10 pt): a letter,
    digit or bracket 1.1, an operator or relation with its spacing 2.4, a fraction its wider part, a
    script 0.7 of its width, a macro such as ``\\Delta`` one symbol (``\\log``: its letters)."""
    toks, pos = _TOKEN.findall(tex), 0

    def group(scale: float, text: bool = False) -> float:       # the next argument: {…} or one token
        nonlocal pos
        while pos < len(toks) and toks[pos].isspace():
            pos += 1
        if pos >= len(toks):
            return 0.0
        pos += 1
        return run(scale, text, True) if toks[pos - 1] == "{" else one(toks[pos - 1], scale, text)

    def one(tok: str, scale: float, text: bool) -> float:
        if tok.isspace():
            return 0.7 * scale if text else 0.0
        if tok in ("^", "_"):
            return group(0.7 * scale, text)
        if tok == r"\frac":
            return max(group(scale, text), group(scale, text))
        if tok == r"\sqrt":
            return 1.6 * scale + group(scale, text)
        if tok[1:] in _TEXT:
            return group(scale, True)
        if tok == "{":
            return run(scale, text, True)
        w = (_SPACE.get(tok) if tok in _SPACE else 0.0 if tok in _SILENT or tok == "}" else
             2.4 if tok in _OPS and not text else len(tok) - 1 if tok[1:] in ("log", "ln", "exp", "sin", "cos")
             else 1.2 if tok.startswith("\\") and len(tok) > 2 else 1.1)
        return w * scale

    def run(scale: float, text: bool, close: bool) -> float:
        nonlocal pos
        w = 0.0
        while pos < len(toks):
            tok = toks[pos]
            pos += 1
            if tok == "}" and close:
                return w
            w += one(tok, scale, text)
        return w
    return run(1.0, False, False)


def fit_lines(pieces, width: float = LINE_WIDTH) -> list[str]:
    """``pieces`` of LaTeX (a sum's terms, a set's members), each with the separator that follows it (``"+ "``,
    ``",\\, "``), packed in order into lines of at most ``width`` (:func:`printed_width`), each line as full as
    it goes and without the separator it ends with; a piece wider than a line alone gets a line of its own."""
    lines, cur, w = [], "", 0.0
    for p in pieces:
        pw = printed_width(p)
        if cur and w + pw > width:
            lines.append(cur)
            cur, w = "", 0.0
        cur, w = cur + p, w + pw
    return [re.sub(r"(\\[ ,]|\s)+$", "", line) for line in lines + ([cur] if cur else [])]


def set_pieces(labels, then: str = "") -> list[str]:
    """The set of LaTeX ``labels``, then ``then`` (``\\{a,\\, b\\}\\ then``), as :func:`fit_lines` pieces: the
    whole set one piece where it fits a line (a line then breaks before it, not inside it), else one a member."""
    pieces = [("\\{" if k == 0 else "") + lab + (",\\, " if k < len(labels) - 1 else "\\}\\ " + then)
              for k, lab in enumerate(labels)] or ["\\{\\}\\ " + then]
    return ["".join(pieces)] if printed_width("".join(pieces)) <= LINE_WIDTH else pieces


def values_latex(xs) -> str:
    """The values of one quantity a pathway has per mode (its ``s``, its ``d``), as typeset after
    ``s = ``: one value alone (``\\frac{\\Delta}{2}``: ``(\\frac{\\Delta}{2})`` read like a one-element
    tuple), several in parentheses, comma-separated (``(2, 1)``), none as ``()``."""
    xs = [exact_latex(x) for x in xs]
    return xs[0] if len(xs) == 1 else "(" + ", ".join(xs) + ")"


class Exprs(Typeset, list):
    """A list of SymPy expressions that Jupyter shows typeset; otherwise a plain list (same repr,
    equality and JSON)."""

    def _repr_latex_(self):
        return f"${exact_latex(list(self))}$"


class ExprsByName(Typeset, dict):
    """``{pathway name: expressions (or an SVD)}`` that Jupyter shows typeset, one pathway a line;
    otherwise a plain dict."""

    def __missing__(self, key):         # a misspelt pathway: say which names there are
        near = difflib.get_close_matches(str(key), [str(k) for k in self], n=1)
        raise UnknownKeyError("pathway", f"{key!r} is no pathway here; the pathways are {list(self)}",
                              f"did you mean {near[0]!r}?" if near else "use one of those names")

    def _repr_latex_(self):
        rows = [(tex_label(k) + ": ", v.latex() if hasattr(v, "latex") else exact_latex(v)) for k, v in self.items()]
        if max((printed_width(a) for a, _ in rows), default=0) + max((printed_width(b) for _, b in rows), default=0) \
                > LINE_WIDTH:       # too wide for a page (k = 3: ten t½ a pathway, 759 pt too wide): a mode a line
            rows = [r for (a, b), v in zip(rows, self.values()) for r in
                    ([(f"{a[:-2]}, {i + 1}: ", exact_latex(e)) for i, e in enumerate(v)]
                     if isinstance(v, (list, tuple)) and len(v) > 1 else [(a, b)])]
        return f"${aligned_rows(rows)}$"


def aligned_rows(rows) -> str:
    """``(label, body)`` rows as an ``aligned`` block: labels right-aligned before the bodies where the widest
    label and the widest body fit a line together (:data:`LINE_WIDTH`); else one left-aligned column, each body
    after its own label (a long pathway name pushed every body, and its ``where`` lines, past the page), or on
    the line below it where the two do not fit a line together."""
    two = max((printed_width(a) for a, _ in rows), default=0) + max((printed_width(b) for _, b in rows), default=0)
    cells = [a + "& " + b for a, b in rows] if two <= LINE_WIDTH else [
        c for a, b in rows for c in (["&" + a + ("\\ " if a else "") + b] if not a or printed_width(a + b) <= LINE_WIDTH
                                     else ["&" + a, r"&\quad " + b])]      # still too wide: the body a line below
    return r"\begin{aligned}" + r" \\ ".join(cells) + r"\end{aligned}"


def competition_ranks(floats, exact) -> list[int]:
    """Standard competition ranks ("1, 2, 2, 2, 5") of items already in order, fastest first: an item
    shares the rank of the one before it where every entry of their keys is exactly equal
    (:func:`~theorykit.theory.radicals.exactly_equal`); otherwise its rank is its place (1-based).
    ``floats``: each item's key (a tuple: a pathway's top s; for mixed depths its depth, s and d) in
    floats, which only ever tell keys
    apart (where they differ by more than 1e-9 relative); ``exact(i)``: item i's key in exact values,
    asked for only where the floats agree (an exact value can cost a ``CRootOf`` to build)."""
    ranks = []
    for i, f in enumerate(floats):
        g = floats[i - 1] if i else ()
        tie = (i > 0 and len(f) == len(g) and all(abs(a - b) <= 1e-9 * (1 + abs(a) + abs(b)) for a, b in zip(f, g))
               and all(exactly_equal(a, b) for a, b in zip(exact(i), exact(i - 1))))
        ranks.append(ranks[-1] if tie else i + 1)
    return ranks


class Ranking(Typeset, list):
    """``(pathway name, s)`` pairs, fastest first, that Jupyter shows typeset, one a line; otherwise
    a plain list of tuples. ``ranks``: each pair's rank, shared by exactly equal values ("1, 2, 2, 2, 5",
    :func:`competition_ranks`); by default the places 1, 2, 3, … (no ties)."""

    def __init__(self, pairs=(), ranks=None):
        super().__init__(pairs)
        self.ranks = list(range(1, len(self) + 1)) if ranks is None else list(ranks)
        if len(self.ranks) != len(self):
            raise ValueError(f"Ranking: {counted(len(self.ranks), 'rank')} for {counted(len(self), 'pathway')}; give one rank a pathway")

    def _repr_latex_(self):
        rows = [f"{r}.\\ {tex_label(n)}: & s = {exact_latex(s)}" for r, (n, s) in zip(self.ranks, self)]
        return r"$\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}$"
