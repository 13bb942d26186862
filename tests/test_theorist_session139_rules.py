"""Rules found by a theorist's hour with theorykit in a REPL (session 139): the XoR and k-context
derivations, their LaTeX and JAX forms, the lemma checks, and a task of one's own written in Python.
Every expected value is worked out by hand in a comment or computed by a second method in the test.
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.spec.files import spec_from_dict


# ------------------------------------------------------------------------------------------------
# A task of one's own, from Python, with a symbol. tk.Task took symbols={"b": a} (the symbol a under
# the name b): values={"a": 1} was then refused with "no value for ['a']; ['a'] given a value but not a
# symbol of the task (fix: values={'a': 0.5})", which contradicts itself, values={"b": 1} set a, and
# spec_to_toml wrote a file declaring b whose entries use a. A symbol left out of symbols=, or a string
# entry naming one, was answered with a spec file's fix ("declare them under [symbols]").
# ------------------------------------------------------------------------------------------------
a = sp.Symbol("a", positive=True)
X_A = sp.Matrix([[a, 1], [0, 1]])
Y_A = sp.Matrix([[1, 0]])


def test_a_symbol_keyed_by_another_name_is_refused_naming_its_own():
    with pytest.raises(SpecError) as err:
        tk.Task(X_A, Y_A, symbols={"b": a})
    assert err.value.field == "symbols['b']"
    assert "{'a': a}" in err.value.fix


@pytest.mark.parametrize("value", [1, "a", a + 1])
def test_a_symbols_value_that_is_no_symbol_is_refused_by_its_key(value):
    with pytest.raises(SpecError) as err:
        tk.Task(X_A, Y_A, symbols={"a": value})
    assert err.value.field == "symbols['a']" and "sp.Symbol('a')" in err.value.fix


def test_a_symbol_under_its_own_name_takes_its_value_by_that_name():
    # By hand: P = 2, one pathway on both points. Σyx = ½ Y Xᵀ = (a/2, 0), so s = a/2 along v = e1, and
    # d = e1ᵀ(½ X Xᵀ)e1 = (a² + 1)/2. At a = 1: s = ½, d = 1, L(0) = ½ tr Σy = ½ · ½ · 1 = ¼ with the maps
    # at zero; started at a0 = 1e-3 the loss at t = 0 is ¼ − (s a0 − ½ d a0²) = 0.25 − 0.0005 + 0.0000005.
    task = tk.Task(X_A, Y_A, symbols={"a": a})
    der = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("p", active=(1, 1))], tk.Training(a0=1e-3)))
    (m,) = der.modes["p"].modes
    assert sp.simplify(m.s - a / 2) == 0 and sp.simplify(m.d - (a ** 2 + 1) / 2) == 0
    assert der.predict_loss([0.0], values={"a": 1})[0] == pytest.approx(0.2495005, rel=1e-12)


def test_a_symbol_missing_from_symbols_names_the_python_fix():
    with pytest.raises(SpecError) as err:
        tk.Task(X_A, Y_A)
    assert err.value.field == "data" and "['a']" in err.value.problem
    assert "symbols={'a': a}" in err.value.fix and "[symbols]" not in err.value.fix


def test_a_string_entry_naming_an_undeclared_symbol_names_the_python_fix():
    with pytest.raises(SpecError) as err:
        tk.Task([["a", 1], [0, 1]], [[1, 0]])
    assert err.value.field == "data.inputs[0][0]"
    assert "tk.Task(X, Y, symbols={'a': sp.Symbol('a')})" in err.value.fix and "[symbols]" not in err.value.fix
    # declared, the same string is read as the symbol
    assert tk.Task([["a", 1], [0, 1]], [[1, 0]], symbols={"a": a}).X == X_A


def test_a_string_symbol_in_a_structure_from_python_says_to_pass_the_symbol():
    with pytest.raises(SpecError) as err:
        tk.contexts(2, 2, common=[["g", 1]])
    assert err.value.field == "common[0][0]" and "[symbols]" not in err.value.fix
    assert "sp.Symbol('g'" in err.value.fix
    # a spec file is still told to declare it, and reads it once declared
    with pytest.raises(SpecError, match=r"declare it under \[symbols\]"):
        spec_from_dict({"data": {"task": "contexts", "n": 2, "k": 2, "common": [["g", 1]], "reln": "double"}})
    spec = spec_from_dict({"symbols": {"g": {"positive": True}},
                           "data": {"task": "contexts", "n": 2, "k": 2, "common": [["g", 1]], "reln": "double"}})
    g = spec.task.symbols["g"]
    assert spec.task.Y.row(0).tolist() == [[g, 1, g, 1]]      # the common block in both contexts


# ------------------------------------------------------------------------------------------------
# The LaTeX of a race (k = 3 contexts, common + (k−1)-context pathways, which couple through their
# outputs) wrote G_p = Σyx_p − Σ_q O_pq M_q Σx_qp and never said what O_pq is: a reader of the paper
# takes it for the output overlaps its Fig. 4 set by hand. In theorykit (docs/theory.md#race, and the
# independent reference tests/race_reference.py) O_pq is the 0/1 matrix taking q's output rows to p's.
# ------------------------------------------------------------------------------------------------
def test_the_race_latex_says_what_its_overlap_matrix_is():
    k = 3
    task = tk.contexts(4, k)
    subsets = [tuple(c for c in range(k) if c != q) for q in range(k)]
    der = tk.Derivation(tk.GDLNSpec(task, tk.context_pathways(4, k, subsets)))
    assert der.method == "race-reduction"
    tex = der.latex()
    assert r"O_{pq}" in tex
    assert r"where $O_{pq}$ is the $0/1$ matrix" in tex and "none is set by hand" in tex
    assert r"\Sigma^x_{qp} = \langle g_q g_p\, x_{s(q)} x_{s(p)}^\top\rangle" in tex
    assert tex.count("{") == tex.count("}") and tex.count("$") % 2 == 0


# ------------------------------------------------------------------------------------------------
# Numbers Python prints with an exponent went into LaTeX as they were: a derivation started at
# a0 = 1e-7 ended with "$a_0 = 1e-07$", and a crossing at Δ = 1/100000 showed "\approx 1e-05", which
# typeset as the product 1·e minus 07 (or 05). They are written as powers of ten now.
# ------------------------------------------------------------------------------------------------
def _mathtext_parses(tex: str) -> None:
    """matplotlib's mathtext, an independent TeX-math parser: raises on what it cannot read."""
    from matplotlib.mathtext import MathTextParser
    MathTextParser("path").parse(tex)


@pytest.mark.parametrize("a0, shown", [(1e-7, r"10^{-7}"), (2.5e-5, r"2.5 \cdot 10^{-5}"), (0.001, "0.001")])
def test_a_derivations_small_a0_is_typeset_as_a_power_of_ten(a0, shown):
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=0.01, a0=a0)))
    tex = der.latex()
    # τ = 1/η = 100 steps (mean loss); a0 as given: 1e-7 = 10^{-7}, 2.5e-5 = 2.5·10^{-5}
    assert tex.endswith(f"Here $\\tau = 100$ steps and $a_0 = {shown}$.")
    assert "e-0" not in tex.split("Here ")[-1]
    _mathtext_parses(f"$a_0 = {shown}$")


@pytest.mark.parametrize("at, shown", [(sp.Rational(1, 100000), r"\approx 10^{-5}:"),
                                       (sp.Integer(123456), r"\approx 1.235 \cdot 10^{5}:")])
def test_a_crossing_far_from_one_is_typeset_as_a_power_of_ten(at, shown):
    # s_a = Δ meets the constant s_b = at at Δ = at (by hand); 123456 to four digits is 1.235·10⁵
    D = sp.Symbol("Delta", nonnegative=True)
    cross = tk.crossings([("a", D), ("b", at)])
    assert [c.at for c in cross] == [at]
    tex = cross._repr_latex_()
    assert shown in tex and "e-05" not in tex and "e+05" not in tex
    _mathtext_parses("$" + shown.rstrip(":") + "$")


# ------------------------------------------------------------------------------------------------
# Docstrings that said what the code does not do. Derivation.summary promised "end points, and the
# method" (it returns neither) and did not say its floats are taken at the reference point when a
# symbol has no value (Δ = 7/10 for XoR). Derivation.end_points said "End point s_α/d_α of each mode"
# for every method: in a race the coupled pathways end far from s/d.
# ------------------------------------------------------------------------------------------------
def test_the_summary_says_where_its_floats_are_taken_and_promises_nothing_it_lacks():
    lin = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]))
    doc = tk.Derivation.summary.__doc__
    assert "reference" in doc and "at ``values``" in doc
    assert "end points, and the method" not in doc
    # what it says: s = Δ/2 (docs/theory.md#xor) is taken at the reference Δ = 7/10 (0.35), or at values
    assert lin.reference == {lin.task.symbols["Delta"]: sp.Rational(7, 10)}
    assert lin.summary()["positive"]["singular_values_float"] == [0.35]
    assert lin.summary({"Delta": 2})["positive"]["singular_values_float"] == [1.0]
    assert all("end_point" not in key and key != "method" for key in lin.summary()["positive"])


def test_end_points_say_they_are_each_modes_alone_and_a_race_ends_elsewhere():
    doc = tk.Derivation.end_points.__doc__
    assert "alone" in doc and "race-reduction" in doc
    # k = 3 contexts, common + (k−1)-context pathways (n = 4 hierarchy): ctx23 alone has s = √42/12 and
    # d = 1/6 (Σyx = (1/12)[2H; 0; H; H] with σ₁(H) = √7, Σx = (2/12) I on the items), so s/d = √42/2 ≈ 3.24.
    k = 3
    subsets = [tuple(c for c in range(k) if c != q) for q in range(k)]
    der = tk.Derivation(tk.GDLNSpec(tk.contexts(4, k), tk.context_pathways(4, k, subsets),
                                    tk.Training(lr=0.05, a0=1e-3)))
    assert der.method == "race-reduction"
    assert der.end_points["ctx23"][0] == sp.sqrt(42) / 2
    # in the race the common pathway takes most of it: ctx23's top mode settles far below √42/2
    late = np.asarray(der.predict_modes(np.array([0.0, 10000.0, 20000.0]))["ctx23"])[..., -2:]
    assert np.allclose(late[..., 0], late[..., 1], rtol=1e-3)       # settled
    assert float(np.max(late)) < 0.5 * float(sp.sqrt(42) / 2)


# ------------------------------------------------------------------------------------------------
# tk.crossings(..., interval=(2, 0)), the ends swapped, reached SymPy's EmptySet and came back as a raw
# NotImplementedError "(EmptySet)._inf", naming neither the argument nor the fix.
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("interval", [(2, 0), (0.9, 0.5), (sp.oo, 0), sp.Interval(2, 0)])
def test_a_crossing_search_over_an_empty_interval_is_refused_by_name(interval):
    D = sp.Symbol("Delta", nonnegative=True)
    pairs = [("linear", D / 2), ("xor", sp.sqrt(D ** 2 + 2) / 4)]
    with pytest.raises(SpecError) as err:
        tk.crossings(pairs, interval=interval)
    assert err.value.field == "interval" and "lo ≤ hi" in err.value.fix
    # the same search the right way round finds Δ* (Δ/2 = √(Δ² + 2)/4 squares to 4Δ² = Δ² + 2: Δ² = 2/3)
    assert [c.at for c in tk.crossings(pairs, interval=(0, 2))] == [sp.sqrt(6) / 3]


# An end that is a symbol, (0, Δ), was searched as if it were a number and answered "no crossing"
# (Δ* = √6/3 lies inside (0, Δ) for every Δ above it); an end that is NaN raised "Invalid NaN comparison".
@pytest.mark.parametrize("interval", [(0, "x"), (0, sp.Symbol("Delta", nonnegative=True)), (0, float("nan")),
                                      (0, None), sp.Interval(0, sp.Symbol("Delta", nonnegative=True))])
def test_a_crossing_search_over_an_interval_that_is_not_numbers_is_refused_by_name(interval):
    D = sp.Symbol("Delta", nonnegative=True)
    with pytest.raises(SpecError) as err:
        tk.crossings([("linear", D / 2), ("xor", sp.sqrt(D ** 2 + 2) / 4)], interval=interval)
    assert err.value.field == "interval" and ("e.g." in err.value.fix or "real numbers" in err.value.fix)


# ------------------------------------------------------------------------------------------------
# tk.to_jax(der.loss, [t, t, tau, a0, Delta]), a symbol typed twice, was answered "no JAX translation:
# duplicate argument 't' in function definition (fix: rewrite the expression with functions jax.numpy
# has, ...)": the wrong field and the wrong fix.
# ------------------------------------------------------------------------------------------------
def test_to_jax_names_a_symbol_given_twice():
    from theorykit.theory.trajectory import a0, t, tau
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]))
    D = der.task.symbols["Delta"]
    with pytest.raises(SpecError) as err:
        tk.to_jax(der.loss, [t, t, tau, a0, D])
    assert err.value.field == "args" and "'t'" in err.value.problem and "once" in err.value.fix
    # once each, it is the closed form: at Δ = 0 every mode stays at a0 (s = d = 0), so L = ½ (1 − 0·a0)² = ½
    L = tk.to_jax(der.loss, [t, tau, a0, D])
    assert float(L(100.0, 100.0, 1e-3, 0.0)) == pytest.approx(0.5, rel=1e-15)


# ------------------------------------------------------------------------------------------------
# The interlacing checks on a matrix of one's own. rows_removed=[0.5] removed nothing (0.5 is no row)
# and answered True for a B that is A; ['0'] was a raw TypeError. interlacing_holds_exact on entries
# whose Gram matrix is irrational was SymPy's NotImplementedError "sorted roots not supported over EX".
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rows, cols, field", [([0.5], [], "rows_removed"), (["0"], [], "rows_removed"),
                                               ([True], [], "rows_removed"), ([], [1.0], "cols_removed")])
def test_interlacing_refuses_an_index_that_is_no_integer(rows, cols, field):
    A = np.arange(6.0).reshape(2, 3)
    with pytest.raises(SpecError) as err:
        tk.interlacing_holds(A, rows, cols)
    assert err.value.field == field and "integer" in err.value.fix
    with pytest.raises(SpecError):
        tk.interlacing_holds_exact(sp.Matrix(A.astype(int)), rows, cols)


def test_interlacing_with_integer_indices_decides_as_by_hand():
    # A = diag(3, 2, 1) without row 0 and column 1 is B = [[0, 0], [0, 1]]: σ(B) = (1, 0) (docs/lemmas.md),
    # and σ_1(A) = 3 ≥ 1 ≥ σ_3(A) = 1, σ_2(A) = 2 ≥ 0 ≥ σ_4(A) = 0: the inequalities hold
    A = np.diag([3.0, 2.0, 1.0])
    assert tk.interlacing_holds(A, [0], [1]) and tk.interlacing_holds(A, [np.int64(0)], [np.int64(1)])
    assert tk.interlacing_holds_exact(sp.diag(3, 2, 1), [0], [1])


def test_exact_interlacing_on_an_irrational_gram_matrix_is_refused_by_name():
    with pytest.raises(SpecError) as err:
        tk.interlacing_holds_exact(sp.Matrix([[sp.sqrt(2), 2], [4, 5]]), [0], [])
    assert err.value.field == "A" and "interlacing_holds" in err.value.fix
    # where the Gram matrix is rational it still decides: diag(√2, 1) has Gram diag(2, 1); without row 0,
    # B = [[0, 1]] has σ = 1, and √2 ≥ 1 ≥ σ_2(A) = 1
    assert tk.interlacing_holds_exact(sp.Matrix([[sp.sqrt(2), 0], [0, 1]]), [0], [])


# ------------------------------------------------------------------------------------------------
# Lemma 4.1's deciders with the context scale of one's own task: context_scale=NaN reached linprog's
# ValueError, staircase_weights(..., context_scale=0) divided by zero and failed a bare assert. A
# task's scale is positive (tk.contexts refuses 0 and −1 by data.context_scale); so are these now.
# ------------------------------------------------------------------------------------------------
L_SHAPE = np.array([[1, 1, 1], [1, 0, 0], [1, 0, 0]])       # item 1 in every context, plus context 1


@pytest.mark.parametrize("scale", [0, -1, float("nan"), True])
@pytest.mark.parametrize("call", ["lp_realisable", "staircase_weights", "gate_pattern"])
def test_lemma_deciders_refuse_a_context_scale_that_is_not_positive(call, scale):
    from theorykit.theory import lemmas
    args = {"lp_realisable": (L_SHAPE,), "staircase_weights": (L_SHAPE,),
            "gate_pattern": ([1.0, 0.0, 0.0], [0.0, 1.0, 1.0])}[call]
    with pytest.raises(SpecError) as err:
        getattr(lemmas, call)(*args, context_scale=scale)
    assert err.value.field == "context_scale"


@pytest.mark.parametrize("scale", [1, 1.1, 1.35])
def test_the_l_shaped_staircase_is_realised_at_the_papers_scales(scale):
    from theorykit.theory.lemmas import gate_pattern, lp_realisable, staircase_weights
    # docs/theory.md#lemma-4-1: the L-shape is a staircase, realised by a_i = r_i − ½ = (2.5, 0.5, 0.5) and
    # s·b_c = −ρ_c = (0, −1, −2): a_i + s b_c > 0 exactly on the L (by hand: 2.5, 1.5, 0.5 | 0.5, −0.5, −1.5 | …)
    a, b = staircase_weights(L_SHAPE, context_scale=scale)
    assert np.allclose(a, [2.5, 0.5, 0.5]) and np.allclose(scale * b, [0, -1, -2])
    assert np.array_equal(gate_pattern(a, b, context_scale=scale), L_SHAPE.astype(bool))
    assert lp_realisable(L_SHAPE, context_scale=scale)[0]
