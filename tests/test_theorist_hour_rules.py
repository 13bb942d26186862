"""A theorist's first hour in the REPL (XoR with margin, crossings, LaTeX): what went wrong or was awkward.

Golden values are derived by hand in the comments, never from running the code under test.
"""
import shutil
import subprocess

import sympy as sp
import pytest

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.theory.trajectory import a0, tau

# XoR with margin, mean loss over P = 4 points (docs/theory.md#xor, THEORY.md §4), derived by hand:
#   linear ReLN, pathway "positive": points (1, 1, Δ), (−1, −1, Δ), y = +1:
#     Σyx = ¼ (0, 0, 2Δ) = (0, 0, Δ/2)  →  s = Δ/2;
#   XoR ReLN, pathway "point0": the point (1, 1, Δ), y = +1:  Σyx = ¼ (1, 1, Δ)  →  s = √(2 + Δ²)/4.
#   They tie where 2Δ = √(2 + Δ²), 4Δ² = 2 + Δ², Δ* = √(2/3) = √6/3 (Δ ≥ 0), with s = Δ*/2 = √6/6.
D = sp.Symbol("Delta", nonnegative=True)        # the [symbols] Delta = {nonnegative = true} of the examples
PAIRS = [("linear", D / 2), ("xor", sp.sqrt(2 + D ** 2) / 4)]


def _derivations():
    return [tk.Derivation(tk.load_spec(f"examples/{name}.toml")) for name in ("xor_linear", "xor_reln")]


def test_crossings_symbol_given_by_name_or_own_symbol_finds_the_hand_derived_delta_star():
    for sym in ("Delta", D):
        (g,) = tk.crossings(PAIRS, symbol=sym).groups
        assert g.at == sp.sqrt(6) / 3 and g.value == sp.sqrt(6) / 6
        assert (g.below, g.above) == (("xor",), ("linear",))


@pytest.mark.parametrize("source", ["pairs", "derivations"])
def test_crossings_symbol_of_the_same_name_with_other_assumptions_is_refused_naming_the_fix(source):
    """``sp.Symbol("Delta")`` (no assumptions) is, to SymPy, another symbol than the spec's nonnegative
    Delta. It was reported as "the singular values also hold ['Delta'] besides Delta", with the fix "give
    ['Delta'] values": wrong (giving Delta a value leaves nothing to search along)."""
    src = PAIRS if source == "pairs" else _derivations()
    with pytest.raises(SpecError) as err:
        tk.crossings(src, symbol=sp.Symbol("Delta"))
    msg = str(err.value)
    assert err.value.field == "symbol"
    assert "other assumptions" in msg and "besides" not in msg
    assert "symbol='Delta'" in msg and "der.task.symbols['Delta']" in msg


def test_crossings_symbol_absent_from_the_singular_values_is_named_as_absent():
    """A symbol the singular values do not hold (here x) was reported as "also hold ['Delta'] besides x"
    with the fix "give ['Delta'] values"; it is now the same error as for an unknown name."""
    for sym in (sp.Symbol("x"), "x"):
        with pytest.raises(SpecError) as err:
            tk.crossings(PAIRS, symbol=sym)
        assert err.value.field == "symbol"
        assert "'x' is not in the singular values" in str(err.value) and "['Delta']" in str(err.value)


def test_crossings_symbol_of_another_type_is_refused_by_field():
    with pytest.raises(SpecError) as err:
        tk.crossings(PAIRS, symbol=3)
    assert err.value.field == "symbol" and "not a symbol or its name" in str(err.value)


def _pdflatex_compiles(tmp_path, body: str) -> bool:
    doc = "\\documentclass{article}\\usepackage{amsmath}\\begin{document}\n" + body + "\n\\end{document}\n"
    (tmp_path / "x.tex").write_text(doc, "utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "x.tex"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    return run.returncode == 0


def test_every_typeset_result_of_a_derivation_has_latex_without_dollars(tmp_path):
    """``Crossing``, ``CrossingGroup``, ``Mode``, ``SVD`` and ``EffectiveDataset`` had ``.latex()``; the
    collections a theorist gets back (``tk.crossings(...)``, ``der.trajectories``, ``der.t_half``,
    ``der.effective_datasets``, ``der.ranking``, a pathway's list of trajectories) only ``_repr_latex_``:
    ``tk.crossings(...).latex()`` raised AttributeError."""
    lin, xor = _derivations()
    cross = tk.crossings([lin, xor])
    results = {"crossings": cross, "no crossing": tk.crossings(lin), "trajectories": lin.trajectories,
               "one pathway's trajectories": lin.trajectories["positive"], "t_half": lin.t_half,
               "effective datasets": lin.effective_datasets, "ranking": lin.ranking, "modes": lin.modes}
    for what, r in results.items():
        tex = r.latex()
        assert not tex.startswith("$") and not tex.endswith("$"), what
        assert r._repr_latex_() == f"${tex}$", what
    # Δ* = √6/3 and its s = √6/6 (hand derivation at the top); the linear ReLN's s = Δ/2 (hand)
    assert sp.latex(sp.sqrt(6) / 3) in cross.latex() and sp.latex(sp.sqrt(6) / 6) in cross.latex()
    assert "s = " + sp.latex(D / 2) in lin.ranking.latex()
    if shutil.which("pdflatex"):
        body = "\n\n".join(f"\\[ {r.latex()} \\]" for r in results.values())
        assert _pdflatex_compiles(tmp_path, body)


def test_crossings_groups_display_typeset_in_ipython_one_group_a_line():
    """``tk.crossings(...).groups`` (the docs' way to the groups) was a plain list of dataclasses: IPython
    showed a screenful of ``CrossingGroup(symbol=Delta, at=sqrt(6)/3, …, crossings=(Crossing(…), …))``."""
    lin, xor = _derivations()
    groups = tk.crossings([lin, xor]).groups
    assert isinstance(groups, list) and len(groups) == 1          # still a plain list: one group at Δ*
    tex = groups._repr_latex_()             # what IPython's LaTeX formatter calls (None or absent: plain text)
    assert tex.startswith("$") and tex.endswith("$") and tex.count("$") == 2
    assert sp.latex(sp.sqrt(6) / 3) in tex and groups.latex() == tex[1:-1]    # Δ* = √6/3 (hand, top)
    assert str(groups).startswith("Delta = sqrt(6)/3") and "\n" not in str(groups)
    empty = tk.crossings(lin).groups                                # two equal modes never cross
    assert str(empty) == "no crossing" and "no crossing" in empty._repr_latex_()


def test_derivation_latex_at_a_value_where_a_pathway_has_nothing_to_learn(tmp_path, recwarn):
    """xor_linear at Δ = 0 (the classical XoR): each pathway's Σyx = (0, 0, Δ/2) = 0, so no mode (by hand:
    the positive points (1, 1, 0), (−1, −1, 0) cancel), L = ½ tr Σy = ½ at every t. ``der.latex()`` raised
    IndexError (it took each pathway's first half-way time, of which there is none)."""
    der = tk.Derivation(tk.load_spec("examples/xor_linear.toml"), values={"Delta": 0})
    assert der.loss == sp.Rational(1, 2)
    tex = der.latex(document=True)
    assert r"no mode: $\Sigma^{yx}_{\mathrm{positive}} = 0$" in tex and "t_{1/2}(" not in tex.split("solved by")[1]
    if shutil.which("pdflatex"):
        (tmp_path / "d.tex").write_text(tex, "utf-8")
        run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "d.tex"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stdout[-2000:]


def test_derivation_latex_shows_every_modes_half_way_time():
    """One pathway with two modes: X = I₂, Y = diag(2, 1), mean loss over P = 2 (by hand: Σyx = diag(1, ½),
    Σx = I/2, so s = 1, ½ and d = ½, ½; t½ = τ/(2s) ln(s/(d a0) − 1) = (τ/2) ln(2/a0 − 1) and τ ln(1/a0 − 1)).
    The LaTeX showed only the first mode's t½, labelled as the pathway's."""
    task = tk.Task(sp.eye(2), sp.diag(2, 1), name="two-modes")
    der = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", (1, 1)),)))
    hand = [tau / 2 * sp.log(2 / a0 - 1), tau * sp.log(1 / a0 - 1)]
    assert [m.s for m in der.modes["p"].modes] == [1, sp.Rational(1, 2)]
    assert all(sp.simplify(th - h) == 0 for th, h in zip(der.t_half["p"], hand, strict=True))
    tex = der.latex()
    assert r"t_{1/2}(\mathrm{p}, 1) = " in tex and r"t_{1/2}(\mathrm{p}, 2) = " in tex


def test_contexts_symbolic_scale_from_python_names_the_python_fix():
    """``tk.contexts(4, 2, context_scale="gamma")`` said "declare it under [symbols]", a spec file's section
    that Python has no way to fill; from Python the symbol itself is passed (which works: below)."""
    with pytest.raises(SpecError) as err:
        tk.contexts(4, 2, context_scale="gamma")
    assert err.value.field == "context_scale"
    assert "context_scale=sp.Symbol('gamma', positive=True)" in str(err.value)
    # The symbol itself: the common pathway's centred-context sector (docs/theory.md#contexts, k_contexts):
    # s = σ̄ γ/(k √n), d = γ²/k, with σ̄² = ‖H 1‖²/n. hierarchy(4): rows 1111, 1100, 0011, four singles, so
    # H 1 = (4, 2, 2, 1, 1, 1, 1), ‖H 1‖² = 28, σ̄ = √7; k = 2, n = 4: s = √7 γ/4, d = γ²/2.
    g = sp.Symbol("gamma", positive=True)
    der = tk.Derivation(tk.GDLNSpec(tk.contexts(4, 2, context_scale=g), tk.context_pathways(4, 2, [(0,), (1,)])))
    assert any(sp.simplify(m.s - sp.sqrt(7) * g / 4) == 0 and sp.simplify(m.d - g ** 2 / 2) == 0
               for m in der.modes["common"].modes)
