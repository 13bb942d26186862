"""A theorist's session (149), second part: a second positive symbol that cancels from the race, and
per-result LaTeX that fits a page. Goldens come from docs/theory.md (Δ* = √(2/3)) and hand derivations
(in comments)."""
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import sympy as sp

import theorykit as tk
from theorykit.cli import main
from theorykit.errors import SpecError

c = sp.Symbol("c", positive=True)
EX = Path(__file__).resolve().parents[1] / "examples"


def _xor_scaled(values=None):
    """XoR with a margin, its targets times the positive symbol c: the linear and the XoR ReLN."""
    base = tk.xor_margin()
    task = tk.Task(base.X, c * base.Y, {"Delta": base.symbols["Delta"], "c": c}, name="xor-c")
    relns = tk.xor_relns()
    return [tk.Derivation(tk.GDLNSpec(task, relns[k]), values=values) for k in ("linear", "xor")]


def test_a_positive_scale_of_the_targets_cancels_from_the_crossing():
    """Y = c·(XoR targets): every Σyx is c times the unscaled one, so s_lin = cΔ/2 and s_xor = c√(Δ² + 2)/4
    (docs/theory.md#xor times c), s_lin² − s_xor² = c²(3Δ² − 2)/16: c² > 0 times a function of Δ alone.
    The crossing is Δ* = √(2/3) = √6/3 (docs/theory.md) for every c > 0, at s = c·(√6/3)/2 = c√6/6. It
    was refused: "the singular values also hold ['c']"."""
    cross = tk.crossings(_xor_scaled(), symbol="Delta")
    assert len(cross) == 8 and {x.at for x in cross} == {sp.sqrt(sp.Rational(2, 3))}
    assert all(sp.simplify(x.value - c * sp.sqrt(6) / 6) == 0 for x in cross)
    assert cross.cancelled == (c,)
    (g,) = cross.groups         # below Δ* the XoR ReLN is faster (docs/theory.md)
    assert len(g.below) == 4 and all(":point" in m for m in g.below)
    assert "c cancelled" in cross.text() and "c cancelled" in repr(cross)
    # the note is the block's last line (beside a block of full lines it passed the page:
    # tests/test_latex_width2_rules.py), the block otherwise the groups' own
    assert cross.latex() == (cross.groups._repr_latex_()[1:-len(r"\end{aligned}$")]
                             + r" \\ &\text{(}c\text{ cancelled)}\end{aligned}")


def test_the_scale_given_a_value_crosses_at_the_same_point():
    """c = 3: s_lin = 3Δ/2 and s_xor = 3√(Δ² + 2)/4 tie at Δ* = √(2/3) again (nothing cancels)."""
    cross = tk.crossings(_xor_scaled({"c": 3}), symbol="Delta")
    assert {x.at for x in cross} == {sp.sqrt(sp.Rational(2, 3))} and cross.cancelled == ()
    assert {x.value for x in cross} == {sp.sqrt(6) / 2}       # 3·√6/6
    assert "cancelled" not in cross.text()


def test_a_symbol_that_does_not_cancel_is_refused_with_the_fix():
    """s_a = cΔ/2 against s_b = √(Δ² + 2)/4: s_a² − s_b² = (4c²Δ² − Δ² − 2)/16, where they tie (Δ² =
    2/(4c² − 1)) depends on c: refused, and the fix says how to give c a value. So is a common factor r of
    unknown sign: s = rΔ/2 is not nonnegative by its assumptions, so s_a² = s_b² need not be s_a = s_b."""
    D = sp.Symbol("Delta", nonnegative=True)
    with pytest.raises(SpecError) as e:
        tk.crossings([("a", c * D / 2), ("b", sp.sqrt(D ** 2 + 2) / 4)], symbol="Delta")
    assert e.value.field == "symbol" and "['c']" in e.value.problem and "values=" in e.value.fix
    r = sp.Symbol("r", real=True)
    with pytest.raises(SpecError) as e:
        tk.crossings([("a", r * D / 2), ("b", r * sp.sqrt(D ** 2 + 2) / 4)], symbol="Delta")
    assert e.value.field == "symbol" and "nonnegative" in e.value.problem and "values=" in e.value.fix


def test_a_positive_symbol_in_a_sum_cancels_only_as_a_common_factor():
    """s_a = (c + 1)Δ, s_b = (c + 1)·1: s_a² − s_b² = (c + 1)²(Δ² − 1), (c + 1)² > 0 for c > 0, so Δ = 1 (by
    hand) with s = c + 1. s_a = Δ + c, s_b = 1: (Δ + c)² − 1 has its root Δ = 1 − c, which moves with c."""
    D = sp.Symbol("Delta", nonnegative=True)
    (x,) = tk.crossings([("a", (c + 1) * D), ("b", c + 1)], symbol="Delta")
    assert x.at == 1 and sp.expand(x.value - (c + 1)) == 0 and (x.larger_below, x.larger_above) == ("b", "a")
    with pytest.raises(SpecError):
        tk.crossings([("a", D + c), ("b", sp.Integer(1))], symbol="Delta")


def _spec_file(path, name, gates):
    """A spec file of XoR with a margin, targets times the positive symbol c, one pathway per gate."""
    paths = "".join(f'[[pathways]]\nname = "{n}"\nactive = {g}\nhidden = 16\n\n' for n, g in gates)
    path.write_text(f'name = "{name}"\n\n[symbols]\nDelta = {{nonnegative = true}}\nc = {{positive = true}}\n\n'
                    '[data]\ninputs = [[1, -1, 1, -1], [1, -1, -1, 1], ["Delta", "Delta", "-Delta", "-Delta"]]\n'
                    'targets = [["c", "c", "-c", "-c"]]\n\n' + paths)
    return str(path)


def test_the_command_line_says_that_c_cancelled(tmp_path):
    """theorykit derive LIN --crossings Delta --against XOR with targets times c: Δ* = √6/3 (docs/theory.md)
    and a note that c cancelled; it was "error in --crossings: the singular values also hold ['c']"."""
    lin = _spec_file(tmp_path / "lin.toml", "lin", [("positive", [1, 1, 0, 0]), ("negative", [0, 0, 1, 1])])
    xor = _spec_file(tmp_path / "xor.toml", "xor", [(f"point{i}", [int(i == j) for j in range(4)]) for i in range(4)])
    out = tmp_path / "d.json"
    assert main(["derive", lin, "--crossings", "Delta", "--against", xor, "--json", str(out)]) == 0
    rec = json.loads(out.read_text())
    assert [g["at"] for g in rec["crossing_groups"]] == ["sqrt(6)/3"]
    assert any(n.startswith("c cancelled") for n in rec["notes"])



# -- per-result LaTeX that fits a page ------------------------------------------------------------------
# M below on X = I₃: M Mᵀ has the irreducible characteristic polynomial λ³ − 17λ² + 66λ − 49
# (tests/test_theorist_session149_rules.py), so the three singular values are CRootOf, a page wide each.
M = [[1, 2, 0], [0, 1, 3], [1, 0, 1]]
PDFLATEX = shutil.which("pdflatex")
needs_pdflatex = pytest.mark.skipif(PDFLATEX is None, reason="pdflatex not installed (Debian: apt-get install "
                                    "texlive-latex-base texlive-latex-recommended; .ci/run installs it)")


def _cubic():
    return tk.Derivation(tk.GDLNSpec(tk.Task(sp.eye(3), sp.Matrix(M), name="cubic"),
                                     (tk.Pathway("all", active=(1, 1, 1)),), tk.Training(lr=0.01, a0=1e-3)))


def _overfull(tmp_path, shown: str) -> list:
    """``shown`` (Jupyter's ``$…$``) pasted into the paragraph of a page as theorykit's documents set it
    (article, 11 pt, 2 cm margins); pdflatex's widths of its overfull boxes, after a run without an error."""
    from theorykit.theory.latex import latex_document
    tex = tmp_path / "r.tex"
    tex.write_text(latex_document("one result", "Pasted: " + shown))
    r = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", tex.name], cwd=tmp_path,
                       capture_output=True, text=True, errors="replace", timeout=120)
    log = tex.with_suffix(".log").read_text(errors="replace")
    assert r.returncode == 0 and not re.findall(r"^! .*$", log, flags=re.M), r.stdout[-1500:]
    return re.findall(r"^Overfull \\hbox \(([\d.]+)pt too wide", log, flags=re.M)


@needs_pdflatex
def test_the_checker_sees_an_overfull_line(tmp_path):
    assert _overfull(tmp_path, r"$\begin{aligned}" + "x + " * 300 + r"x\end{aligned}$")


def _roots_defined(tex, n=3):
    """Each root s_{all,α} is named in the rows and defined once, on a 'where' row, by its CRootOf."""
    rows = tex.split(r"\\")
    where = [r for r in rows if r"\operatorname{CRootOf}" in r]
    assert len(where) == n and r"\text{where }" in where[0]
    for i in range(1, n + 1):
        assert sum(rf"s_{{\mathrm{{all}},{i}}} = \operatorname{{CRootOf}}" in r for r in where) == 1


@needs_pdflatex
def test_t_half_of_a_cubic_field_names_its_roots_and_fits(tmp_path):
    """der.t_half in Jupyter wrote each CRootOf in full, 256 pt past the margin. Now each mode is a line,
    t½ = τ/(2s) ln(s/(d a₀) − 1) with d = 1/3 (Σx = I/3, v a unit vector: by hand) and s named s_{all,α},
    and a 'where' line defines each name: read alone, the result says what s_{all,α} is."""
    der = _cubic()
    tex = der.t_half._repr_latex_()
    tau, a0 = sp.symbols("tau a_0", positive=True)
    for i in (1, 2, 3):
        s = sp.Symbol(rf"s_{{\mathrm{{all}},{i}}}", positive=True)
        assert rf"\mathrm{{all}}, {i}: & " + sp.latex(tau / (2 * s) * sp.log(s / (sp.Rational(1, 3) * a0) - 1)) in tex
    _roots_defined(tex)
    assert _overfull(tmp_path, tex) == []
    for shown in (der.trajectories._repr_latex_(), der.end_points._repr_latex_(), der._repr_latex_()):
        _roots_defined(shown)
        assert _overfull(tmp_path, shown) == [], shown[:200]
    modes = der.modes._repr_latex_()        # the modes give each root in full, a line each (198 pt too wide)
    assert modes.count(r"\operatorname{CRootOf}") == 3 and modes.count(r"\\") == 2 and "where" not in modes
    assert _overfull(tmp_path, modes) == []
    assert der.t_half["all"][0].has(sp.CRootOf)      # the values themselves are unchanged: exact roots


def test_a_result_without_roots_prints_as_before():
    """No root of degree 3 or more (XoR): the typeset t½ is the plain per-pathway table, no 'where'."""
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"]))
    tex = der.t_half._repr_latex_()
    assert r"\text{where}" not in tex and tex.count(r"\\") == 3 and tex.startswith(r"$\begin{aligned}\mathrm{point0}: & ")
