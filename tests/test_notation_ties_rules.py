"""One notation and honest ties in the typeset results.

* One symbol for a singular value: the paper and docs/theory.md (Notation; the closed form: "singular
  values $s_\\alpha$") write s for the singular values of Σyx, so every typeset result does: an SVD, a
  mode, a derivation (short and long form), a ranking, a crossing. None writes σ.
* Ties in the ranking: pathways whose top singular values are exactly equal learn equally fast and
  share a rank (standard competition ranking, "1, 2, 2, 2, 5"), in ``Derivation.ranks``, the ranking's
  LaTeX, the derivation's LaTeX and ``theorykit derive``'s JSON. Equality is proved exactly (structural,
  then :func:`~theorykit.theory.radicals.zero_by_radical_reduction`), never taken from floats alone.
"""
from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import sympy as sp

import theorykit as tk
from theorykit.cli import main
from theorykit.theory import crossings as cr
from theorykit.theory.display import Ranking, competition_ranks
from theorykit.theory.radicals import exactly_equal
from theorykit.theory.modes import Ranking as RankingFromModes

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
D = sp.Symbol("Delta", nonnegative=True)


def _xor():
    relns = tk.xor_relns()
    return (tk.Derivation(tk.GDLNSpec(tk.xor_margin(), relns["linear"])),
            tk.Derivation(tk.GDLNSpec(tk.xor_margin(), relns["xor"])))


def test_every_typeset_result_of_xor_writes_s_for_a_singular_value():
    # XoR (docs/theory.md): the xor ReLN's four pathways each have one mode, s = √(Δ² + 2)/4, the
    # linear ReLN's two s = Δ/2; so the SVD of point0 typesets as "s = √(Δ²+2)/4" (one mode: no parentheses).
    lin, xor = _xor()
    s_xor = sp.latex(sp.sqrt(D ** 2 + 2) / 4)
    svd, mode = xor.modes["point0"], xor.modes["point0"].modes[0]
    assert svd._repr_latex_() == f"$s = {s_xor}$" and svd.latex() == f"s = {s_xor}"
    assert mode.latex().startswith(f"s = {s_xor}")
    typeset = [svd.latex(), mode.latex(), xor.modes._repr_latex_(), xor._repr_latex_(), xor.latex(),
               xor.ranking._repr_latex_(), lin.latex(), tk.crossings([lin, xor], symbol="Delta")._repr_latex_(),
               tk.crossings([lin, xor], symbol="Delta").groups._repr_latex_()]
    for tex in typeset:
        assert r"\sigma" not in tex and "σ" not in tex, tex
    assert all("s = " in tex or "s_{" in tex for tex in typeset)


def test_the_svd_writes_s_for_a_plain_matrix():
    # [[0, 3], [4, 0]]: singular values 4 and 3 by hand (the columns are orthogonal, of norms 4 and 3)
    svd = tk.exact_svd(sp.Matrix([[0, 3], [4, 0]]))
    assert svd.latex() == "s = (4, 3)"


def _contexts_spec():
    return tk.GDLNSpec(tk.contexts(8, 3), tk.context_pathways(8, 3, [[0], [1], [2], [0, 1], [0, 2], [1, 2]]))


def test_the_three_two_context_pathways_of_contexts_8_3_share_one_rank():
    """contexts(8, 3) (docs/theory.md, the context task): every context block holds the same hierarchy H,
    and the item part of the input is the same one-hot in every context. Swapping two contexts permutes
    the datapoints (columns) and the context output blocks (rows) and leaves the task as it was; it maps
    the gate of ctx12 onto that of ctx13 or ctx23. So their effective datasets Σyx = (1/P) Y G Xᵀ are
    P_out Σyx Q for permutation matrices, which are orthogonal: the same singular values, exactly. The
    same holds for ctx1, ctx2, ctx3. With the common pathway first: ranks 1, 2, 2, 2, 5, 5, 5 — if the
    values order common > two-context > one-context, which numpy checks here (a second method)."""
    spec = _contexts_spec()
    der = tk.Derivation(spec)
    X, Y = (np.array(M.tolist(), dtype=float) for M in (spec.task.X, spec.task.Y))
    top = {}
    for p in spec.pathways:
        g = np.array(p.active, dtype=float)
        rows = list(range(X.shape[0])) if p.name == "common" else list(range(8))    # the item rows only
        top[p.name] = np.linalg.svd((Y * g) @ X[rows].T / X.shape[1], compute_uv=False)[0]
    for group in (("ctx12", "ctx13", "ctx23"), ("ctx1", "ctx2", "ctx3")):
        for a, b in combinations(group, 2):
            assert abs(top[a] - top[b]) < 1e-12
    assert top["common"] > top["ctx12"] > top["ctx1"]
    rk = der.ranking
    assert [n for n, _ in rk][:1] == ["common"]
    assert rk.ranks == der.ranks == [1, 2, 2, 2, 5, 5, 5]
    assert {n for n, _ in rk[1:4]} == {"ctx12", "ctx13", "ctx23"} and {n for n, _ in rk[4:]} == {"ctx1", "ctx2", "ctx3"}
    tex = rk._repr_latex_()
    for name in ("ctx12", "ctx13", "ctx23"):
        assert rf"2.\ \mathrm{{{name}}}: & s = " in tex
    for name in ("ctx1", "ctx2", "ctx3"):
        assert rf"5.\ \mathrm{{{name}}}: & s = " in tex
    assert "3." not in tex and "4." not in tex
    assert rf"$2.\ \mathrm{{{rk[2][0]}}}: s_1 = " in der.latex()


def test_derive_json_gives_each_pathway_its_rank(tmp_path):
    # the xor ReLN (examples/xor_reln.toml): four pathways of one s = √(Δ² + 2)/4 each (docs/theory.md,
    # XoR): one shared rank, 1
    out = tmp_path / "d.json"
    assert main(["derive", str(EXAMPLES / "xor_reln.toml"), "--json", str(out)]) == 0
    ranking = json.loads(out.read_text())["ranking"]
    assert [r["rank"] for r in ranking] == [1, 1, 1, 1]
    assert {sp.sympify(r["top_singular_value"]) for r in ranking} == {sp.sqrt(sp.Symbol("Delta") ** 2 + 2) / 4}


def _floats(keys):
    return [tuple(float(sp.N(x, 30)) for x in k) for k in keys]


def test_values_equal_only_after_simplification_share_a_rank():
    # (1 + √2)² = 1 + 2√2 + 2 = 3 + 2√2 (by hand), √(5 + 2√6) = √2 + √3 (since (√2 + √3)² = 5 + 2√6),
    # and √(Δ² + 2)/4 = √(Δ²/16 + 1/8) (the 1/16 taken into the root): written differently, equal.
    for a, b in (((1 + sp.sqrt(2)) ** 2, 3 + 2 * sp.sqrt(2)), (sp.sqrt(5 + 2 * sp.sqrt(6)), sp.sqrt(2) + sp.sqrt(3))):
        assert a != b                   # not structurally equal: the exact test decides
        keys = [(a,), (b,), (sp.Integer(1),)]
        assert competition_ranks(_floats(keys), lambda i: keys[i]) == [1, 1, 3]
    a, b = sp.sqrt(D ** 2 + 2) / 4, sp.sqrt(D ** 2 / 16 + sp.Rational(1, 8))
    assert a != b
    keys = [(a,), (b,)]
    fl = _floats([(k[0].subs(D, sp.Rational(7, 10)),) for k in keys])      # at a reference point
    assert competition_ranks(fl, lambda i: keys[i]) == [1, 1]


def test_distinct_values_keep_distinct_ranks_even_when_their_floats_nearly_agree():
    # √2 and 141421356237/10¹¹ differ by about 3·10⁻¹² (√2 = 1.41421356237309…): their floats agree to
    # far better than 1e-9, yet they are different numbers, so they keep ranks 1 and 2
    keys = [(sp.sqrt(2),), (sp.Rational(141421356237, 10 ** 11),), (sp.Integer(1),), (sp.Integer(1),), (sp.Rational(1, 2),)]
    assert competition_ranks(_floats(keys), lambda i: keys[i]) == [1, 2, 3, 3, 5]
    # the display follows the ranks it is given; by default every pathway has its own place
    r = Ranking([("p", sp.sqrt(2)), ("q", sp.sqrt(2)), ("z", sp.S.Zero)], [1, 1, 3])
    assert r == [("p", sp.sqrt(2)), ("q", sp.sqrt(2)), ("z", 0)] and RankingFromModes is Ranking
    assert r._repr_latex_() == (r"$\begin{aligned}1.\ \mathrm{p}: & s = \sqrt{2} \\ 1.\ \mathrm{q}: & s = \sqrt{2} \\ "
                                r"3.\ \mathrm{z}: & s = 0\end{aligned}$")
    assert Ranking([("p", 2), ("q", 1)]).ranks == [1, 2]


def test_a_derivation_with_distinct_values_ranks_them_one_two():
    # X = I₂, Y = diag(2, 4): pathway "a" on for datapoint 1 only writes output 1 from input 1 (Σyx = [[1]],
    # s = 2/2 = 1), pathway "b" on for datapoint 2 (Σyx = [[2]], s = 4/2 = 2): b then a, ranks 1, 2
    task = tk.Task(X=sp.eye(2), Y=sp.diag(2, 4))
    spec = tk.GDLNSpec(task, [tk.Pathway("a", (1, 0), (0,), (0,)), tk.Pathway("b", (0, 1), (1,), (1,))])
    der = tk.Derivation(spec)
    assert der.ranking == [("b", 2), ("a", 1)] and der.ranks == [1, 2]


def test_predict_modes_is_times_by_modes_in_the_order_of_the_svd():
    """X = I₂, Y = diag(2, 4), one pathway on for both datapoints: Σyx = ½Y = diag(1, 2), Σx = ½I (by hand),
    so s = (2, 1) (descending), d = (½, ½), end points s/d = (4, 2). predict_modes says (docstring): one
    array per pathway, rows the times, columns the modes in the order of ``modes[name].modes``; long after
    both half-way times (τ/(2s)) ln(s/(d a0) − 1) the columns are at (4, 2) in that order. The race
    reduction (contexts(8, 3), coupled) has the same shape: len(times) × its pathway's number of modes."""
    doc = " ".join(tk.Derivation.predict_modes.__doc__.split())
    assert "shape (len(times), number of modes)" in doc and "in that order (descending s" in doc
    task = tk.Task(X=sp.eye(2), Y=sp.diag(2, 4))
    der = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("p", (1, 1))]))
    assert der.method == "closed-form" and [m.s for m in der.modes["p"].modes] == [2, 1]
    t = np.array([0.0, 10.0, 1e5])
    a = der.predict_modes(t)["p"]
    assert a.shape == (3, 2)
    np.testing.assert_allclose(a[-1], [4.0, 2.0], rtol=1e-9)
    race = tk.Derivation(tk.GDLNSpec(tk.contexts(8, 3), tk.context_pathways(8, 3, [[0], [0, 1]])))
    pm = race.predict_modes(np.array([0.0, 100.0]))
    assert race.method == "race-reduction"
    assert {n: a.shape for n, a in pm.items()} == {n: (2, len(svd.modes)) for n, svd in race.modes.items()}


def test_ties_and_crossing_groups_share_one_exact_equality_that_knows_algebraic_numbers():
    """CRootOf(x³ − x − 1, 0), the plastic number, equals its Cardano radicals
    ∛(1/2 + √69/18) + ∛(1/2 − √69/18): with ρ = that sum, ρ³ = 1 + 3·∛(1/4 − 69/324)·ρ = 1 + 3·∛(12/324)·ρ
    = 1 + 3·(1/3)·ρ = 1 + ρ (∛(1/27) = 1/3), the same cubic, and both are its one real root. The radical
    zero test cannot decide the cube roots; the minimal polynomial can. The ranking's ties gave [1, 2]
    here; they and the crossings now use one rule (radicals.exactly_equal)."""
    x = sp.Symbol("x")
    root = sp.CRootOf(x ** 3 - x - 1, 0)
    cardano = sp.cbrt(sp.Rational(1, 2) + sp.sqrt(69) / 18) + sp.cbrt(sp.Rational(1, 2) - sp.sqrt(69) / 18)
    assert abs(float(root) - 1.324717957244746) < 1e-15          # the plastic number, to 16 digits
    assert exactly_equal(root, cardano) and not exactly_equal(root, cardano + sp.Rational(1, 10 ** 40))
    assert competition_ranks([(float(root),), (float(cardano),)], lambda i: [(root,), (cardano,)][i]) == [1, 1]
    assert cr._same_number(root, sp.N(root, 60), cardano, sp.N(cardano, 60))
    assert not exactly_equal(sp.Symbol("a", positive=True), 1)      # a symbol: not proved, so different
