"""Typeset results: exact text and LaTeX of SymPy expressions in bounded time, and the lists and maps of
results that Jupyter shows typeset (:class:`Exprs`, :class:`ExprsByName`, :class:`Ranking`).
"""
from __future__ import annotations

import difflib

import sympy as sp

from ..errors import UnknownKeyError
from ..spec.fields import Typeset, tex_label

__all__ = ["Exprs", "ExprsByName", "Ranking", "exact_text", "exact_latex", "is_large",
           "LARGE_NODES"]

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
        rows = [tex_label(k) + ": & "
                + (v.latex() if hasattr(v, "latex") else exact_latex(v)) for k, v in self.items()]
        return r"$\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}$"


class Ranking(Typeset, list):
    """``(pathway name, s)`` pairs, fastest first, that Jupyter shows typeset, one a line; otherwise
    a plain list of tuples."""

    def _repr_latex_(self):
        rows = [f"{i}.\\ {tex_label(n)}: & s = {exact_latex(s)}" for i, (n, s) in enumerate(self, 1)]
        return r"$\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}$"
