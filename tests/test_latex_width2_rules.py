"""The rest of the typeset results fitted to a page (345 pt, pdflatex at 10 pt): a derivation's display
(``der._repr_latex_()``), per-mode results (``der.t_half``, ``der.trajectories``), the crossings' note on what
cancelled, and results over pathways with long names.

pdflatex is not on CI: as in tests/test_latex_width_rules.py the fit is checked by its counter of printed
symbols (``_symbols``, at most ``MAX_SYMBOLS`` a line, bound measured there with pdflatex), here summed over
the columns of an ``aligned`` block (each row's cell k sits in column k, as wide as the widest cell k of any
row) plus what is printed after the block (``\\quad(\\text{closed-form})``), since that is what sets a block's
width. Measured with pdflatex (TeX Live 2022, article, 10 pt) before the fix, overfull by: the cubic task's
display 56 pt, k = 3's 178 pt, the tutorial's graph 205 pt; k = 3's t½ 759 pt, the graph's 852 pt, the k = 3
common pathway's trajectories 806 pt; a cubic field's loss over the pathway "all-datapoints-one-pathway" 222 pt
(its display 270 pt, its t½ 125 pt); the scaled XoR crossings with 40-character spec names, the "c cancelled"
note after the block, 12 pt (45 characters: 38 pt). After it: none overfull.
"""
import dataclasses
import re

import pytest
import sympy as sp

import theorykit as tk
from test_latex_width_rules import MAX_SYMBOLS, M, _symbols
from theorykit.theory.trajectory import a0, t, tau

c = sp.Symbol("c", positive=True)
LONG = "all-datapoints-one-pathway"
LONG_TEX = r"\mathrm{all\text{-}datapoints\text{-}one\text{-}pathway}"
K3_PATHWAYS = [(0, 1), (1, 2), (0, 2), (0,), (1,), (2,)]


def _width(tex: str) -> int:
    """Printed symbols of the widest line of math-mode LaTeX as it prints: an ``aligned`` block's columns
    summed (each its widest cell), plus what follows the block on its line."""
    tex = tex.strip("$")
    m = re.search(r"\\end\{aligned\}(.*)$", tex)
    outside = _symbols(m.group(1)) if m else 0
    body = (tex[:m.start()] if m else tex).replace(r"\begin{aligned}", "")
    rows = [re.split(r"(?<!\\)&", r) for r in body.split(r"\\")]
    return sum(max(_symbols(r[k]) for r in rows if k < len(r)) for k in range(max(map(len, rows)))) + outside


def _rows(tex: str) -> list[str]:
    return [r.strip() for r in re.sub(r"\\(begin|end)\{aligned\}", "", tex.strip("$")).split(r"\\")]


def test_the_width_counts_columns_and_what_follows_the_block():
    """The counter, by hand: ``a: & bb, & ccc`` over ``& dddd``: columns a (1 + the colon), max(bb, (comma) ;
    dddd) = 4, ccc = 3, so 2 + 4 + 3 = 9; a trailing ``\\quad(\\text{x})`` adds (, x, ) and the \\quad: 4."""
    assert _width(r"\begin{aligned}a: & bb, & ccc \\ & dddd\end{aligned}") == 9
    assert _width(r"$\begin{aligned}a: & bb, & ccc \\ & dddd\end{aligned}\quad(\text{x})$") == 13


def _cubic(name="all"):
    return tk.Derivation(tk.GDLNSpec(tk.Task(sp.eye(3), sp.Matrix(M), name="cubic"),
                                     (tk.Pathway(name, active=(1,) * 3),), tk.Training(lr=0.01, a0=1e-3)))


def _k3(pathways=K3_PATHWAYS):
    return tk.Derivation(tk.GDLNSpec(tk.contexts(8, 3), tk.context_pathways(8, 3, pathways),
                                     tk.Training(lr=0.01, a0=1e-3)))


def _graph():
    """docs/tutorial.md §6: a shared h1, then common, m12 and m23 to the output."""
    task = tk.contexts(8, 3, "hierarchy", "hierarchy")
    ctx = lambda *cs: [int(mu // 8 in cs) for mu in range(24)]  # noqa: E731
    nodes = [tk.Node("h1", 24), tk.Node("common", 12), tk.Node("m12", 6, ctx(0, 1)), tk.Node("m23", 6, ctx(1, 2))]
    edges = [tk.Edge("input", "h1")] + [tk.Edge("h1", m) for m in ("common", "m12", "m23")] \
        + [tk.Edge(m, "output") for m in ("common", "m12", "m23")]
    return tk.Derivation(tk.GraphSpec(task, nodes, edges, tk.Training(lr=0.001, loss="sum", init_std=0.05, steps=400)))


# the cubic field (tests/test_latex_width_rules.py): s = √λ/3 for λ³ − 17λ² + 66λ − 49 = 0, so with λ = 9x²
# each s is a positive root of 729x⁶ − 1377x⁴ + 594x² − 49 (17·81 = 1377, 66·9 = 594); CRootOf numbers the six
# real roots ±s ascending, so the largest s is index 5, then 4, 3
_POLY = r"\operatorname{CRootOf} {\left(729 x^{6} - 1377 x^{4} + 594 x^{2} - 49, %d\right)}"


def test_the_cubic_derivation_display_fits_and_says_the_same():
    """Σx = I/3, so d = 1/3 for each mode; the where lines sat in the s column, beside which d was pushed past
    the page (56 pt): now one column, the method on the last line. Written here by hand."""
    tex = _cubic()._repr_latex_()
    assert _width(tex) <= MAX_SYMBOLS, _width(tex)
    s = [rf"s_{{\mathrm{{all}},{i}}}" for i in (1, 2, 3)]
    assert _rows(tex) == [rf"&\mathrm{{all}}:\ s = ({', '.join(s)}),\ d = (\frac{{1}}{{3}}, \frac{{1}}{{3}}, \frac{{1}}{{3}})",
                          rf"&\text{{where }} {s[0]} = {_POLY % 5}",
                          rf"&\phantom{{\text{{where }}}}{s[1]} = {_POLY % 4}",
                          rf"&\phantom{{\text{{where }}}}{s[2]} = {_POLY % 3}",
                          r"&(\text{closed-form})"]


def _flat(rows: list[str]) -> str:
    """The rows run together again: continuation indents taken out, and the spacing (``\\ ``, ``\\,``, blanks),
    which a line ends without."""
    return _unspaced("".join(re.sub(r"^&(\\quad)?", "", r) for r in rows))


def _unspaced(tex: str) -> str:
    return re.sub(r"\\[ ,]|\s+", "", tex)


#: the tutorial's graph gives m12 and m23 six units for nine modes, and says so: not what is tested here
NARROW = pytest.mark.filterwarnings("ignore:pathway 'h1/m")


@NARROW
def test_the_k3_and_graph_displays_fit_and_keep_every_value():
    """k = 3 (10 modes on the common pathway) and the tutorial's graph: each pathway's s and d, in order, as
    the one-line form wrote them; broken only between values."""
    for der in (_k3(), _graph()):
        tex = der._repr_latex_()
        assert _width(tex) <= MAX_SYMBOLS, _width(tex)
        rows = _rows(tex)
        assert rows[-1] == rf"&(\text{{{der.method}}})" and der.method == "race-reduction"
        want = "".join(rf"{tk.spec.fields.tex_label(n)}:\ s = ({', '.join(sp.latex(m.s) for m in svd.modes)}),\ "
                       rf"d = ({', '.join(sp.latex(m.d) for m in svd.modes)})" for n, svd in der.modes.items())
        assert _flat(rows[:-1]) == _unspaced(want)
        assert len(rows) > len(der.modes) + 1          # broken: a pathway's values on more than one line


def test_the_k3_t_half_and_common_trajectories_fit_a_mode_a_line():
    """k = 3's t½ (ten modes on one line: 759 pt too wide) and the common pathway's a(t): a mode a line,
    labelled "pathway, α". By hand, the common pathway's first mode: s = √165/12, d = 11/24 (its display
    above), t½ = τ/(2s) ln(s/(d a0) − 1) = (2√165/55) τ ln(2√165/(11 a0) − 1)."""
    der = _k3()
    tex = der.t_half._repr_latex_()
    assert _width(tex) <= MAX_SYMBOLS, _width(tex)
    rows = _rows(tex)
    assert len(rows) == sum(len(v) for v in der.t_half.values()) == 58
    assert rows[0] == r"\mathrm{common}, 1: & " + sp.latex(2 * sp.sqrt(165) / 55 * tau * sp.log(2 * sp.sqrt(165) / (11 * a0) - 1))
    assert rows == [rf"\mathrm{{{n}}}, {i + 1}: & {sp.latex(e)}" for n, v in der.t_half.items() for i, e in enumerate(v)]
    common = _k3([])
    tex = common.trajectories._repr_latex_()
    assert _width(tex) <= MAX_SYMBOLS, _width(tex)
    s, d = sp.sqrt(165) / 12, sp.Rational(11, 24)            # the logistic a(t) of docs/theory.md#closed-form
    first = common.trajectories["common"][0]
    hand = (s / d) / (1 + (s / (d * a0) - 1) * sp.exp(-2 * s * t / tau))
    assert all(abs(sp.N((first - hand).subs({tau: 100, a0: sp.Rational(1, 1000), t: tv}), 30)) < 1e-25 for tv in (0, 300))
    assert _rows(tex)[0] == r"\mathrm{common}, 1: & " + sp.latex(first) and len(_rows(tex)) == 10


@NARROW
def test_the_graph_t_half_fits_a_mode_a_line():
    """The graph's t½ (deep pathways: an integral each, 852 pt too wide): 10 + 9 + 9 modes, a line each."""
    der = _graph()
    tex = der.t_half._repr_latex_()
    assert _width(tex) <= MAX_SYMBOLS, _width(tex)
    assert _rows(tex) == [rf"{tk.spec.fields.tex_label(n)}, {i + 1}: & {sp.latex(e)}"
                          for n, v in der.t_half.items() for i, e in enumerate(v)]
    assert [len(v) for v in der.t_half.values()] == [10, 9, 9]


def test_a_long_pathway_name_is_abbreviated_in_root_names_with_a_legend():
    """s_{all-datapoints-one-pathway,α}, four times a term, made one term of the loss 222 pt too wide. The name
    is now p_{1} (the first pathway) in the roots' names, and a where line says which pathway p_{1} is; the loss
    is still the loss (its lines are its terms with the roots named so), its display, t½ and a(t) fit."""
    der = _cubic(LONG)
    names = {m.s: sp.Symbol(rf"s_{{p_{{1}},{i + 1}}}", positive=True) for i, m in enumerate(der.modes[LONG].modes)}
    legend = rf"\phantom{{\text{{where }}}}p_{{1}}\ \text{{is pathway }}{LONG_TEX}"
    loss = der.loss_typeset.latex()
    texs = (loss, der._repr_latex_(), der.t_half._repr_latex_(), der.trajectories._repr_latex_(),
            der.end_points._repr_latex_(), der.modes._repr_latex_())        # der.modes: each s written out
    assert all("s_{p_{1}," in tex for tex in texs[:5])
    for tex in texs:
        assert _width(tex) <= MAX_SYMBOLS, (_width(tex), tex)
        assert tex.count(legend) == (1 if "s_{p_{1}," in tex else 0)      # where p_{1} is used, said once
        assert "_{" + LONG_TEX not in tex       # the long name is nowhere a subscript
    for r, y in names.items():
        assert loss.count(f"{sp.latex(y)} = {sp.latex(r)}") == 1
    terms = sp.Add.make_args(der.loss)
    want = [("- " if tm.could_extract_minus_sign() else "+ " if k else "")
            + sp.latex((-tm if tm.could_extract_minus_sign() else tm).xreplace(names)) for k, tm in enumerate(terms)]
    body = loss.split(r" \\ &\text{where }")[0].replace(r"\begin{aligned}", "")
    assert re.sub(r"\s*\\\\\s*&\\quad\s*", " ", body) == "L(t) &= " + " ".join(want)
    assert not re.search(r"\d\.\d", loss)        # exact: no float


def test_a_short_name_is_kept_in_root_names():
    """"all" (and a name of 7 letters) stays in the subscript, no legend: the short forms do not change."""
    for name in ("all", "abcdefg"):
        tex = _cubic(name).loss_typeset.latex()
        assert rf"s_{{\mathrm{{{name}}},1}} = " in tex and "is pathway" not in tex


def _xor_scaled(name_length=None):
    """XoR with a margin, its targets times c (tests/test_theorist2_session149_rules.py); spec names of
    ``name_length`` letters."""
    base = tk.xor_margin()
    task = tk.Task(base.X, c * base.Y, {"Delta": base.symbols["Delta"], "c": c}, name="xor-c")
    relns = tk.xor_relns()
    specs = [tk.GDLNSpec(task, relns[k]) for k in ("linear", "xor")]
    if name_length:
        specs = [dataclasses.replace(s, name=("abcdefghij" * 6)[:name_length]) for s in specs]
    return [tk.Derivation(s) for s in specs]


def test_the_cancelled_note_is_the_blocks_last_line():
    """With 40-letter spec names the group's lines are full, and the note beside the block was 12 pt past the
    page (pdflatex; 38 pt with 45 letters); now the note is the block's last line, the block otherwise the
    groups' own."""
    for n in (40, None):
        cross = tk.crossings(_xor_scaled(n), symbol="Delta")
        tex = cross._repr_latex_()
        assert _width(tex) <= MAX_SYMBOLS, _width(tex)
        note = r" \\ &\text{(}c\text{ cancelled)}\end{aligned}$"
        assert tex == cross.groups._repr_latex_()[:-len(r"\end{aligned}$")] + note
