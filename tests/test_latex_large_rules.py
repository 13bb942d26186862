"""LaTeX of a large exact expression is printed without SymPy's term ordering (theory.modes.exact_latex).

`theorykit derive SPEC --latex OUT.tex` on the fuzz campaign's nested-radical task (4 inputs, 3
datapoints, √2 and √3 in the data at Δ = 1/2; its exact eigenvectors are nested radicals of thousands
of nodes) took 102 s on the shared 2-core CPU, 93 % of it in SymPy's ``as_ordered_terms``: to sort the
terms of every sum it evaluates each numeric term, at every level of the tower. The JSON of the same
derivation took 11 s, because ``exact_text`` already printed such expressions in their stored order
(``order="none"``). LaTeX now does the same (16 s, measured once on the same CPU; no time is asserted
here: the test counts what is sorted). Expressions of at most ``LARGE_NODES`` nodes, every expression
of the five examples among them, print as before, byte for byte (their LaTeX was diffed).
"""
from __future__ import annotations

import sympy as sp

from test_fuzz import _NESTED_RADICALS
from theorykit.cli import main
from theorykit.theory.modes import LARGE_NODES, exact_latex, is_large


def test_the_large_expressions_of_a_derivation_are_not_sorted_for_latex(tmp_path, monkeypatch):
    spec = tmp_path / "spec.toml"
    spec.write_text(_NESTED_RADICALS, "utf-8")
    sorted_sizes = []
    ordered = sp.Expr.as_ordered_terms

    def counting(self, *args, **kwargs):
        sorted_sizes.append(is_large(self))
        if sorted_sizes[-1]:
            raise AssertionError("a large expression's terms were sorted for printing")
        return ordered(self, *args, **kwargs)

    monkeypatch.setattr(sp.Expr, "as_ordered_terms", counting)
    out = tmp_path / "d.tex"
    assert main(["derive", str(spec), "--set", "Delta=0.5", "--times", "0,5", "--latex", str(out)]) == 0
    assert not any(sorted_sizes) and sorted_sizes       # small sums are still sorted, as SymPy prints them
    assert out.stat().st_size > 1_000_000               # the large entries are printed in full


def test_a_small_expression_prints_as_sympy_prints_it():
    # SymPy's own order (polynomial in Δ, the constant last); the stored order would put 2 first
    D = sp.Symbol("Delta", positive=True)
    assert exact_latex(sp.sqrt(D ** 2 + 2) / 4) == r"\frac{\sqrt{\Delta^{2} + 2}}{4}"


def test_a_large_expression_keeps_its_value():
    # a sum of √j, j = 2 … LARGE_NODES + 1: more nodes than the limit. Every term is printed, in some
    # order: one \sqrt for each j that is not a perfect square (2² … 44² lie in the range: 43 squares)
    x = sp.Add(*[sp.sqrt(j) for j in range(2, LARGE_NODES + 2)], evaluate=False)
    assert is_large(x)
    assert exact_latex(x).count(r"\sqrt{") == LARGE_NODES - 43
