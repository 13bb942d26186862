"""LaTeX that fits the page: the typeset loss (``der.loss_typeset``) and the crossings' LaTeX are broken into
lines no wider than a standard article page (345 pt, pdflatex at 10 pt), with nothing lost or changed.

pdflatex is not on CI, so the fit is checked by a structural property that implies it: no line of the LaTeX
source between line breaks (``\\\\``) holds more than ``MAX_SYMBOLS`` printed symbols, counted by
:func:`_symbols` below (written here, independently of theorykit's own width estimate). Its bound comes
from pdflatex (TeX Live 2022, article class, \\textwidth 345 pt), each line of the outputs of the XoR
crossover (example names and spec names of 31 and 39–42 characters), a cubic task's loss, the k = 3 common
pathway's loss and a graph's loss typeset alone in a display box: lines of 62 to 67 counted symbols were
237 to 336 pt wide, the widest of any line of 64 or fewer 313 pt. A line of the fix's outputs here holds at
most 64 (``MAX_SYMBOLS``); before the fix the XoR crossover was one line of 739 pt (394 pt too wide) with
the example names, 1,703 pt with 39- and 42-character spec names, and the cubic task's ``der.loss``
(SymPy's printer) one line 2,838 pt wide.
"""
import dataclasses
import re
from pathlib import Path

import sympy as sp

import theorykit as tk
from theorykit.theory import latex as tk_latex

ROOT = Path(__file__).resolve().parents[1]
LIN, XOR = ROOT / "examples" / "xor_linear.toml", ROOT / "examples" / "xor_reln.toml"
#: see the module docstring: the most counted symbols on a line of 345 pt or less, measured with pdflatex
MAX_SYMBOLS = 64
# the cubic task of tests/test_theorist_session149_rules.py: Y = M on X = I₃, M Mᵀ with the irreducible
# characteristic polynomial λ³ − 17λ² + 66λ − 49, so the singular values √λ/3 are CRootOf values
M = [[1, 2, 0], [0, 1, 3], [1, 0, 1]]
from theorykit.theory.trajectory import a0, t, tau  # noqa: E402  (the loss's own symbols)


def _symbols(line: str) -> int:
    """Printed symbols of one line of math-mode LaTeX, an upper bound: markup that prints nothing of its own
    (``\\left``, ``\\frac``, ``\\mathrm``, braces, ``^``, ``_``, ``&``) is dropped, every other macro counts
    one, every other character one; a fraction counts its numerator and denominator both."""
    line = re.sub(r"\\(begin|end)\{aligned\}", "", line)
    line = re.sub(r"\\(left|right|text|mathrm|operatorname|frac|phantom)(?![A-Za-z])", "", line)
    line = re.sub(r"\\[A-Za-z]+|\\.", "#", line)
    return sum(1 for c in line if not c.isspace() and c not in "{}^_&")


def _lines(tex: str) -> list[str]:
    return [ln for ln in re.sub(r"\\(begin|end)\{aligned\}", "", tex).split(r"\\") if ln.strip()]


def _unbroken(tex: str) -> str:
    """The LaTeX with its line breaks taken out: one line again, as it was printed before the fix."""
    tex = re.sub(r"\\(begin|end)\{aligned\}", "", tex)
    return re.sub(r"\s*\\\\\s*&\\quad\s*", " ", tex).lstrip("&")


def _unspaced(tex: str) -> str:
    """Without the spaces (``\\,``, ``\\ ``, blanks), which a line ends without: what prints, but its spacing."""
    return re.sub(r"\\[ ,]|\s+", "", tex)


def test_the_counter_counts_what_prints():
    """The counter itself, by hand: Δ = √6/3 is Δ, =, √, 6, 3 (five symbols; the fraction bar and braces
    print nothing of their own); ``\\mathrm{ab}`` is a and b."""
    assert _symbols(r"\Delta = \frac{\sqrt{6}}{3}") == 5
    assert _symbols(r"\mathrm{ab}_{1}^{2}") == 4
    assert _symbols(r"\left(x\right)") == 3


def _xor(names=None):
    lin, xor = tk.load_spec(LIN), tk.load_spec(XOR)
    if names:
        lin, xor = dataclasses.replace(lin, name=names[0]), dataclasses.replace(xor, name=names[1])
    return tk.Derivation(lin), tk.Derivation(xor)


def test_the_xor_crossover_fits_a_page_with_the_example_names():
    """docs/theory.md#xor: Δ* = √6/3 with s = √6/6, the four XoR modes larger below, the two linear ones
    above. The one line (739 pt by pdflatex) is now three; taken out, the breaks leave the same line,
    written here by hand."""
    tex = tk.crossings(list(_xor())).latex()
    one_line = (r"\Delta = \frac{\sqrt{6}}{3} \approx 0.8165:\ s = \frac{\sqrt{6}}{6};\ "
                r"\{\mathrm{xor\text{-}xor:point0},\, \mathrm{xor\text{-}xor:point1},\, \mathrm{xor\text{-}xor:point2},\, "
                r"\mathrm{xor\text{-}xor:point3}\}\ \text{larger below},\ "
                r"\{\mathrm{xor\text{-}linear:negative},\, \mathrm{xor\text{-}linear:positive}\}\ \text{larger above}")
    assert _symbols(one_line) > 100         # what the fix must break: over a page (739 pt by pdflatex)
    lines = _lines(tex)
    assert len(lines) >= 2 and all(_symbols(ln) <= MAX_SYMBOLS for ln in lines), [_symbols(ln) for ln in lines]
    assert _unspaced(_unbroken(tex)) == _unspaced(one_line)


def test_the_xor_crossover_fits_a_page_with_long_spec_names():
    """Spec names of 31 characters each (``xor-margin-linear-reln-baseline``): one line of 1,342 pt before.
    Every mode is still there, once, in its set."""
    names = ("xor-margin-linear-reln-baseline", "xor-margin-xor-reln-four-points")
    cross = tk.crossings(list(_xor(names)))
    for tex in (cross.latex(), cross.groups.latex(), cross.groups[0].latex()):
        lines = _lines(tex)
        assert len(lines) >= 3 and all(_symbols(ln) <= MAX_SYMBOLS for ln in lines), [_symbols(ln) for ln in lines]
        flat = _unspaced(_unbroken(tex))
        below = ",\\, ".join(r"\mathrm{xor\text{-}margin\text{-}xor\text{-}reln\text{-}four\text{-}points:point%d}" % k
                             for k in range(4))
        above = ",\\, ".join(r"\mathrm{xor\text{-}margin\text{-}linear\text{-}reln\text{-}baseline:%s}" % side
                             for side in ("negative", "positive"))
        assert flat == _unspaced(r"\Delta = \frac{\sqrt{6}}{3} \approx 0.8165:\ s = \frac{\sqrt{6}}{6};"
                                 rf"\{{{below}\}}\ \text{{larger below}},\ \{{{above}\}}\ \text{{larger above}}"), flat


def test_a_short_group_stays_one_line():
    """a = 1/2 where a/2 = 1/4 (by hand): short, so one line, as before (no aligned block, no break)."""
    a = sp.Symbol("a", positive=True)
    (g,) = tk.crossings([("p", a / 2), ("q", sp.Rational(1, 4))]).groups
    assert g.latex() == (r"a = \frac{1}{2} \approx 0.5:\ s = \frac{1}{4};\ \{\mathrm{q}\}\ \text{larger below},\ "
                         r"\{\mathrm{p}\}\ \text{larger above}")


def _cubic(name="all"):
    return tk.Derivation(tk.GDLNSpec(tk.Task(sp.eye(3), sp.Matrix(M), name="cubic"),
                                     (tk.Pathway(name, active=(1,) * 3),), tk.Training(lr=0.01, a0=1e-3)))


def test_the_cubic_loss_typeset_fits_a_page_and_is_the_loss():
    """By hand (docs/theory.md#closed-form): Σyx = M/3 and Σx = I/3, so each mode has d = 1/3 and
    L(t) = ½ tr Σy − Σ_α (s_α a_α − ½ d a_α²) with tr Σy = ‖M‖²_F/3 = 17/3 and the logistic
    a_α(t) = (s/d)/(1 + (s/(d a0) − 1) e^{−2 s t/τ}). ``der.loss`` (SymPy's one line, 2,838 pt by pdflatex)
    stays that expression; ``der.loss_typeset`` prints it in lines that fit, the roots named s_{all,α} and
    defined on ``where`` lines, no float in it."""
    der = _cubic()
    loss = der.loss
    assert isinstance(loss, sp.Expr) and der.loss_typeset.expr is loss
    s = [m.s for m in der.modes["all"].modes]
    d = sp.Rational(1, 3)
    hand = sp.Rational(17, 6) - sum(si * (si / d) / (1 + (si / (d * a0) - 1) * sp.exp(-2 * si * t / tau))
                                    - d / 2 * ((si / d) / (1 + (si / (d * a0) - 1) * sp.exp(-2 * si * t / tau))) ** 2
                                    for si in s)
    at = {tau: 100, a0: sp.Rational(1, 1000)}
    for tv in (0, 50, 400):        # the same function of t: equal at 40 digits where it is evaluated
        assert abs(sp.N((loss - hand).subs({**at, t: tv}), 40)) < sp.Float(10) ** -30
    typeset = der.loss_typeset
    tex = typeset.latex()
    assert typeset._repr_latex_() == f"${tex}$"
    assert sp.latex(loss) != tex and _symbols(sp.latex(loss)) > 3 * MAX_SYMBOLS       # SymPy's: one line
    lines = _lines(tex)
    assert len(lines) >= 3 and all(_symbols(ln) <= MAX_SYMBOLS for ln in lines), [_symbols(ln) for ln in lines]
    assert "CRootOf" not in "".join(lines[:-3]) and not re.search(r"\d\.\d", tex)      # named, and exact
    names = {r: sp.Symbol(rf"s_{{\mathrm{{all}},{i + 1}}}", positive=True) for i, r in enumerate(s)}
    for r, y in names.items():          # each name defined once, on a where line, by its CRootOf
        assert tex.count(f"{sp.latex(y)} = {sp.latex(r)}") == 1
    # the lines are the loss's terms, each as SymPy prints it with the roots named, in order, + and − between
    terms = sp.Add.make_args(loss)
    want = [("- " if tm.could_extract_minus_sign() else "+ " if k else "")
            + sp.latex((-tm if tm.could_extract_minus_sign() else tm).xreplace(names)) for k, tm in enumerate(terms)]
    body = _unbroken(tex.split(r" \\ &\text{where }")[0] + r"\end{aligned}")
    assert body == "L(t) &= " + " ".join(want)


def test_a_loss_of_one_short_line_stays_one_line():
    """The XoR ReLN's loss (docs/theory.md#xor: four modes of s = √(Δ² + 2)/4) has no CRootOf: no where
    line, and one line where it fits."""
    _, xor = _xor()
    tex = xor.loss_typeset.latex()
    assert tex.startswith(r"\begin{aligned}L(t) &= ") and r"\\" not in tex and "where" not in tex
    assert str(xor.loss_typeset) == str(xor.loss) and repr(xor.loss_typeset) == str(xor.loss)
    assert isinstance(xor.loss_typeset, tk_latex.TypesetLoss)


def test_the_k3_common_and_graph_losses_fit_a_page():
    """contexts(8, 3): the common pathway alone (closed form), and the same as a graph of one chain
    (input → common → output): SymPy's one line was 914 pt and 1,033 pt wide."""
    task = tk.contexts(8, 3)
    common = tk.Derivation(tk.GDLNSpec(task, tk.context_pathways(8, 3, [])[:1], tk.Training(lr=0.01, a0=1e-3)))
    graph = tk.Derivation(tk.GraphSpec(task, [tk.Node("common", 24)], [tk.Edge("input", "common"), tk.Edge("common", "output")],
                                       tk.Training(lr=0.001, loss="sum")))
    for der in (common, graph):
        lines = _lines(der.loss_typeset.latex())
        assert len(lines) >= 2 and all(_symbols(ln) <= MAX_SYMBOLS for ln in lines), [_symbols(ln) for ln in lines]
        assert _symbols(sp.latex(der.loss)) > 2 * MAX_SYMBOLS
