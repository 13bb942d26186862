"""Rules of the mode helpers and the Derivation object that a mutation check found untested (the
SVD container and its empty case, the reference values, the bounded evaluation and simplification
helpers, the closed-form loss, ranking, end points and half-way times, the checks on times and
values, the summary). Every expected value comes from a hand derivation written beside it, from
docs/theory.md, or from a second method computed here (NumPy, SymPy written directly, Python
fractions), never from the code under test."""
import warnings
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.errors import DerivationError, SpecError
from theorykit.theory import modes as md
from theorykit.theory import radicals
from theorykit.theory.svd import exact_svd


# ------------------------------------------------------------------------------------------------
# modes: the SVD container, reference values, Mode
# ------------------------------------------------------------------------------------------------
def test_reference_values_are_the_documented_cycle_plus_the_rank_of_the_name():
    # vals = (7/10, 13/10, 5/3, 3/7, 11/5), symbol i (sorted by name) gets vals[i mod 5] + i:
    # a: 7/10, b: 13/10 + 1, c: 5/3 + 2, d: 3/7 + 3, e: 11/5 + 4, f: 7/10 + 5 (the cycle restarts)
    syms = sp.symbols("f d b e a c")
    got = md.reference_values(set(syms))
    byname = {str(k): v for k, v in got.items()}
    F = sp.Rational
    assert byname == {"a": F(7, 10), "b": F(23, 10), "c": F(11, 3), "d": F(24, 7), "e": F(31, 5), "f": F(57, 10)}
    assert md.reference_values(set()) == {}


def test_an_empty_svd_has_empty_factors_of_the_right_shapes():
    # a zero 2 × 3 matrix has rank 0: U is 2 × 0, V is 3 × 0, S is 0 × 0, no singular values
    svd = exact_svd(sp.zeros(2, 3))
    assert svd.rank == 0 and svd.singular_values == []
    assert svd.U.shape == (2, 0) and svd.V.shape == (3, 0) and svd.S.shape == (0, 0)
    U, s, V = svd.numeric()
    assert U.shape == (2, 0) and s.shape == (0,) and V.shape == (3, 0)
    assert svd.floats() == []


def test_svd_of_a_diagonal_matrix_by_hand():
    # M = diag(3, 4): σ = 4 along e₂ (u = v = e₂), then 3 along e₁; v's first non-zero entry positive
    M = sp.Matrix([[3, 0], [0, 4]])
    svd = exact_svd(M)
    assert svd.singular_values == [4, 3] and svd.rank == 2
    assert svd.U == sp.Matrix([[0, 1], [1, 0]]) and svd.V == sp.Matrix([[0, 1], [1, 0]])
    assert svd.S == sp.diag(4, 3)
    assert svd.reconstruct() == M
    assert svd.floats() == [4.0, 3.0]
    U, s, V = svd.numeric()
    np.testing.assert_array_equal(s, [4.0, 3.0])
    np.testing.assert_array_equal(U, [[0.0, 1.0], [1.0, 0.0]])
    np.testing.assert_array_equal(V, [[0.0, 1.0], [1.0, 0.0]])
    assert svd._repr_latex_() == "$s = (4, 3)$" and svd.latex() == "s = (4, 3)"


def test_symbolic_singular_values_are_ordered_at_the_reference_and_evaluated_at_given_values():
    # M = diag(a, 1): at the reference a = 7/10 (first of the cycle) the order is (1, a); floats at
    # values a = 1/2 are (1, 0.5), and at a = 3 still in the reference order: (1, 3)
    a = sp.Symbol("a", positive=True)
    svd = exact_svd(sp.Matrix([[a, 0], [0, 1]]), md.reference_values({a}))
    assert svd.singular_values == [1, a]
    assert svd.floats() == [1.0, 0.7]
    assert svd.floats({a: sp.Rational(1, 2)}) == [1.0, 0.5]
    assert list(svd.numeric({a: 3})[1]) == [1.0, 3.0]


def test_a_mode_built_from_expressions():
    # s = √2, u = e₁, v = e₂, d = 1/2: floats by hand, d replaced by with_d, equality on (s, u, v, d)
    m = md.Mode(sp.sqrt(2), sp.Matrix([1, 0]), sp.Matrix([0, 1]), sp.Rational(1, 2))
    assert m.s_float() == pytest.approx(2 ** 0.5, rel=1e-15)
    assert m.d_float() == 0.5
    np.testing.assert_array_equal(m.u_floats(), [1.0, 0.0])
    np.testing.assert_array_equal(m.v_floats(), [0.0, 1.0])
    assert m.s_text == "sqrt(2)" and repr(m) == "Mode(s=sqrt(2), d=1/2, exact_vectors=True)"
    assert m.latex() == "s = \\sqrt{2},\\quad d = \\frac{1}{2}"
    m2 = m.with_d(sp.Rational(3, 4))
    assert m2.d == sp.Rational(3, 4) and m2.s == m.s and m2.u == m.u and m2.v == m.v
    assert m2 != m and m.with_d(sp.Rational(1, 2)) == m
    assert (m == 3) is False                     # not a Mode: NotImplemented, so == falls back to False
    # a symbolic s evaluated at given values: s = 2a at a = 3/4 is 1.5
    a = sp.Symbol("a", positive=True)
    assert md.Mode(2 * a, sp.Matrix([1]), sp.Matrix([1]), a).s_float({a: sp.Rational(3, 4)}) == 1.5
    assert md.Mode(2 * a, sp.Matrix([1]), sp.Matrix([1]), a).d_float({a: sp.Rational(3, 4)}) == 0.75
    # no d yet: the latex shows s only
    assert md.Mode(sp.Integer(5), sp.Matrix([1]), sp.Matrix([1])).latex() == "s = 5"


def test_untidied_vectors_are_the_vectors_as_given():
    # u = v = 1/(1 + √2), pending presentation: the tidy form is √2 − 1 (radsimp: (√2 − 1)/(2 − 1)),
    # the untidied one the expression as given
    w = sp.Matrix([sp.Pow(1 + sp.sqrt(2), -1)])
    m = md.Mode(sp.Integer(1), w, w, sp.Integer(1), uv_pending=("plain", "plain"))
    assert m.u_untidied == w and m.v_untidied == w
    assert m.u == sp.Matrix([sp.sqrt(2) - 1]) and m.v == sp.Matrix([sp.sqrt(2) - 1])
    # a mode of the exact engine: built on first access, the same either way (diag(3, 4): u = v = e₂ first)
    (first, second) = exact_svd(sp.Matrix([[3, 0], [0, 4]])).modes
    assert first.u_untidied == sp.Matrix([0, 1]) and first.v_untidied == sp.Matrix([0, 1])
    assert second.u == sp.Matrix([1, 0]) and second.s_float() == 3.0


def test_a_misspelt_pathway_names_the_pathways_there_are():
    e = md.ExprsByName({"p": 1, "q": 2})
    with pytest.raises(KeyError, match=r"'r' is no pathway here; the pathways are \['p', 'q'\]"):
        e["r"]
    assert e["q"] == 2
    assert md.Exprs([sp.Rational(1, 2)])._repr_latex_() == "$\\left[ \\frac{1}{2}\\right]$"
    # one pathway a line, underscores escaped in the name
    two = md.ExprsByName({"p_1": sp.Rational(1, 2), "q": sp.sqrt(2)})
    assert two._repr_latex_() == ("$\\begin{aligned}\\mathrm{p\\_1}: & \\frac{1}{2} \\\\ "
                                  "\\mathrm{q}: & \\sqrt{2}\\end{aligned}$")


def test_the_ranking_prints_as_latex_one_pathway_a_line_and_stays_a_list():
    # a ranking is numbered, fastest first, and equal to the plain list of (name, s) pairs; a
    # derivation's ranking is one (the README: lists of results print as LaTeX in Jupyter)
    from pathlib import Path

    import theorykit as tk

    der = tk.Derivation(tk.load_spec(Path(__file__).resolve().parents[1] / "examples" / "xor_linear.toml"))
    assert isinstance(der.ranking, md.Ranking) and len(der.ranking) == len(der.spec.pathways)
    r = md.Ranking([("p_1", sp.sqrt(2)), ("q", sp.S.Zero)])
    assert r == [("p_1", sp.sqrt(2)), ("q", 0)] and isinstance(r, list)
    assert r._repr_latex_() == ("$\\begin{aligned}1.\\ \\mathrm{p\\_1}: & s = \\sqrt{2} \\\\ "
                                "2.\\ \\mathrm{q}: & s = 0\\end{aligned}$")


# ------------------------------------------------------------------------------------------------
# modes: bounded evaluation and simplification helpers
# ------------------------------------------------------------------------------------------------
def test_is_large_counts_nodes_up_to_the_cap():
    # x + y has 3 nodes (Add, x, y): large for a cap of 2, not for a cap of 3
    x, y = sp.symbols("x y")
    assert md.is_large(x + y, cap=2) and not md.is_large(x + y, cap=3)
    big = sp.Add(*[sp.Symbol(f"z{i}") for i in range(md.LARGE_NODES)])   # 2001 nodes
    assert md.is_large(big) and not md.is_large(x + y)


def test_exact_text_of_a_large_expression_reads_back_to_the_same_expression():
    terms = [sp.Symbol(f"z{i}") * (i + 2) for i in range(md.LARGE_NODES // 2)]   # 3 nodes a term
    big = sp.Add(*terms)
    assert md.is_large(big)
    assert sp.sympify(md.exact_text(big)) == big
    assert md.exact_text(sp.Rational(3, 4)) == "3/4"


def test_lazy_products_equal_the_ordinary_matrix_products():
    # v holds √(a + √a), a nested radical with a symbol: the unevaluated path; its value must equal
    # S v and vᵀ S v computed by SymPy's own matrix product (a second method), here at a = 2
    a = sp.Symbol("a", positive=True)
    v = sp.Matrix([sp.sqrt(a + sp.sqrt(a)), 0, 3])
    S = sp.Matrix([[1, 2, 0], [0, 5, 7], [4, 0, 1]])
    assert md.build_unevaluated(v[0])
    lazy = md.lazy_matvec(S, v)
    want = S * v
    for i in range(3):
        assert float(lazy[i].subs(a, 2)) == pytest.approx(float(want[i].subs(a, 2)), rel=1e-14)
    q = md.quad_exact(v, S)
    assert float(q.subs(a, 2)) == pytest.approx(float((v.T * S * v)[0].subs(a, 2)), rel=1e-14)
    # a zero matrix: no terms at all, the exact zero
    assert md.quad_exact(v, sp.zeros(3, 3)) == 0
    # without a nested radical: the plain product
    w = sp.Matrix([1, 2, 3])
    assert md.lazy_matvec(S, w) == S * w and md.quad_exact(w, S) == (w.T * S * w)[0]


def test_num_substitutes_and_takes_the_real_part():
    a = sp.Symbol("a")
    assert md.num(a ** 2 + 1, {a: 3}) == 10.0
    assert md.num(3 + 4 * sp.I, {}) == 3.0
    # √2 + √3 to 16 digits (a second method: Python's float arithmetic on the two roots)
    assert md.num(sp.sqrt(2) + sp.sqrt(3), None) == pytest.approx(2 ** 0.5 + 3 ** 0.5, rel=1e-15)
    # the constants and functions mpmath evaluates, against Python's math module
    import math
    e = sp.pi + sp.E + sp.log(3) * sp.cos(sp.Rational(1, 3)) + sp.atan(2) - sp.acos(sp.Rational(1, 5)) * sp.sin(1)
    want = math.pi + math.e + math.log(3) * math.cos(1 / 3) + math.atan(2) - math.acos(0.2) * math.sin(1)
    assert md.num(e, {}) == pytest.approx(want, rel=1e-14)
    assert md.num(sp.Add(sp.exp(sp.Rational(1, 2)), sp.Float("0.25", 30), evaluate=False), {}) == pytest.approx(
        math.exp(0.5) + 0.25, rel=1e-15)
    assert md.num(sp.Pow(2, sp.sqrt(2), evaluate=False), {}) == pytest.approx(2 ** 2 ** 0.5, rel=1e-14)
    # 1 + 10⁻⁵⁰ − 1 cancels at 40 digits (to 0) and not at 80: the precisions must agree before a value is
    # returned, so the answer is 10⁻⁵⁰, not 0
    tiny = sp.Add(sp.Rational(10 ** 50 + 1, 10 ** 50), -1, evaluate=False)
    assert md.num(tiny, {}) == pytest.approx(1e-50, rel=1e-14, abs=0)


def test_is_zero_of_numbers_uses_the_tolerance():
    # no symbols: |x| ≤ tol (1e-10 by default) at 80 digits
    assert md.is_zero(sp.Float("1e-11", 30))
    assert not md.is_zero(sp.Float("2e-10", 30))
    assert md.is_zero(sp.Float("2e-10", 30), tol=1e-9)
    assert not md.is_zero(sp.sqrt(2) - sp.Rational(99, 70))       # 1.41421… − 1.41428… ≈ −7e-5
    # with symbols given: a non-zero expression is not zero, an identity is
    D = sp.Symbol("Delta", positive=True)
    assert not md.is_zero(D - 1, symbols=[D])
    assert md.is_zero(sp.sin(D) ** 2 + sp.cos(D) ** 2 - 1)        # undecided by radicals: simplify decides


def test_radical_reduction_leaves_other_roots_and_functions_undecided():
    D = sp.Symbol("Delta", positive=True)
    # a cube root or a function: not a square root, so no proof (False even for a true identity)
    cube = sp.Mul(D ** sp.Rational(1, 3), D ** sp.Rational(1, 3), D ** sp.Rational(1, 3), evaluate=False) - D
    assert not radicals.zero_by_radical_reduction(cube)
    assert not radicals.zero_by_radical_reduction(sp.sin(D) ** 2 + sp.cos(D) ** 2 - 1)
    # the plain identity √D · √D = D: proved
    assert radicals.zero_by_radical_reduction(sp.Mul(sp.sqrt(D), sp.sqrt(D), evaluate=False) - D)
    assert radicals.zero_by_radical_reduction(sp.Integer(0))


def test_product_of_irreducible_powers_by_hand():
    D = sp.Symbol("Delta", positive=True)
    assert md.product_of_irreducible_powers(sp.sqrt(D ** 2 + 2) / 4)      # the XoR s: irreducible radicand
    assert md.product_of_irreducible_powers(D ** 2 * 3)
    assert not md.product_of_irreducible_powers(sp.sqrt(D ** 2 - 1))       # = √((Δ − 1)(Δ + 1)): factors
    assert not md.product_of_irreducible_powers(sp.sqrt(D ** 2 + sp.Rational(1, 2)))   # coefficient 1/2
    assert not md.product_of_irreducible_powers(sp.exp(D))                 # exponent Δ is not rational
    assert not md.product_of_irreducible_powers(sp.sqrt(sp.sin(D) + 1))    # not a polynomial


def test_radical_free_means_integer_powers_and_no_functions():
    D = sp.Symbol("Delta", positive=True)
    assert md._radical_free(D ** 2 + 1 / D) is True and md._radical_free(sp.Rational(3, 2)) is True
    assert md._radical_free(sp.sqrt(D) + 1) is False and md._radical_free(sp.sin(D)) is False
    assert md._nested_symbolic_radical(sp.sqrt(D + sp.sqrt(D))) and not md._nested_symbolic_radical(sp.sqrt(D))
    assert not md._nested_symbolic_radical(sp.sqrt(2 + sp.sqrt(2)))          # no symbol inside


def test_content_form_takes_the_rational_content_out_of_the_root():
    # √(2a/9) = √2 · √a / 3 (content 2/9 of the radicand 2a/9, by hand)
    a = sp.Symbol("a", positive=True)
    got = md._content_form(sp.Pow(2 * a / 9, sp.Rational(1, 2), evaluate=False))
    assert got == sp.sqrt(2) * sp.sqrt(a) / 3
    assert md._content_form(a) is a


def test_tidy_by_hand():
    D = sp.Symbol("Delta", positive=True)
    assert md.tidy(sp.Rational(3, 4)) == sp.Rational(3, 4) and md.tidy(D) == D
    assert md.tidy(1 / (sp.sqrt(2) + 1)) == sp.sqrt(2) - 1              # radsimp: (√2 − 1)/(2 − 1)
    assert md.tidy(sp.sqrt(3 + 2 * sp.sqrt(2))) == 1 + sp.sqrt(2)        # denested: (1 + √2)² = 3 + 2√2
    assert md.tidy(D ** 2 + 2 * D + 1) == (D + 1) ** 2                   # a polynomial: factored
    f = sp.Float(0.5, 30) * sp.sqrt(2)
    assert md.tidy(f) is f or md.tidy(f) == f                            # floats are left as they are


# ------------------------------------------------------------------------------------------------
# derivation: one mode by hand
# ------------------------------------------------------------------------------------------------
# One input, two datapoints x = 1 and x = 2, targets 1 and 1 (P = 2), one pathway on everything:
#   Σyx = (1·1 + 1·2)/2 = 3/2 = s (v = u = 1),  Σx = (1 + 4)/2 = 5/2 = d,  tr Σy = (1 + 1)/2 = 1,
#   end point s/d = 3/5; what no mode removes: ½ tr Σy − s²/(2d) = 1/2 − (9/4)/5 = 1/20.
S_, D_, TR_ = Fraction(3, 2), Fraction(5, 2), Fraction(1)


def _one_mode_spec(lr=0.05, a0=1e-3, loss="mean", hidden=2):
    task = tk.Task(sp.Matrix([[1, 2]]), sp.Matrix([[1, 1]]))
    return tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", hidden, 2),), tk.Training(lr=lr, a0=a0, loss=loss))


def _hand_a(t, s, d, a0, tau):
    """docs/theory.md#closed-form: a(t) = (s/d) / (1 + (s/(d a0) − 1) e^{−2st/τ})."""
    return (s / d) / (1 + (s / (d * a0) - 1) * np.exp(-2 * s * np.asarray(t, float) / tau))


def test_one_mode_modes_end_point_t_half_and_summary_by_hand():
    der = tk.Derivation(_one_mode_spec())
    (m,) = der.modes["p"].modes
    assert m.s == sp.Rational(3, 2) and m.d == sp.Rational(5, 2)
    assert der.end_points == {"p": [sp.Rational(3, 5)]}
    assert der.diagonalisable == {"p": True} and der.method == "closed-form" and der.couplings == []
    # t½ = τ/(2s) ln(s/(d a0) − 1) = (τ/3) ln(3/(5 a0) − 1)
    (th,) = der.t_half["p"]
    sym = {str(x): x for x in th.free_symbols}
    assert sp.simplify(th - sym["tau"] / 3 * sp.log(sp.Rational(3, 5) / sym["a_0"] - 1)) == 0
    assert der.initial_loss == sp.Rational(1, 2)               # ½ tr Σy
    assert der.summary() == {"p": {"singular_values": ["3/2"], "singular_values_float": [1.5],
                                   "input_variances": ["5/2"], "input_variances_float": [2.5],
                                   "exact_vectors": True, "diagonalisable": True}}
    assert der.ranking == [("p", sp.Rational(3, 2))] and der.ranking_text == [("p", "3/2")]
    assert repr(der) == "Derivation('spec', pathways=['p'], method='closed-form')"


def test_one_mode_symbolic_loss_and_trajectory_are_the_hand_closed_form():
    der = tk.Derivation(_one_mode_spec())
    (a,) = der.trajectories["p"]
    sym = {str(x): x for x in der.loss.free_symbols | a.free_symbols}
    t_, tau, a0 = sym["t"], sym["tau"], sym["a_0"]
    s, d = sp.Rational(3, 2), sp.Rational(5, 2)
    a_hand = (s / d) / (1 + (s / (d * a0) - 1) * sp.exp(-2 * s * t_ / tau))
    L_hand = sp.Rational(1, 2) - (s * a_hand - d * a_hand ** 2 / 2)
    for tv, tauv, a0v in ((0, 20, 1e-3), (37, 20, 1e-3), (400, 20, 1e-2), (5, 1, 0.3)):
        at = {t_: tv, tau: tauv, a0: a0v}
        assert float(a.subs(at)) == pytest.approx(float(a_hand.subs(at)), rel=1e-13)
        assert float(der.loss.subs(at)) == pytest.approx(float(L_hand.subs(at)), rel=1e-12)
    summed = tk.Derivation(_one_mode_spec(loss="sum"))
    assert summed.initial_loss == 1                             # P · ½ tr Σy = 2 · 1/2
    at = {t_: 37, tau: 20, a0: 1e-3}
    assert float(summed.loss.subs(at)) == pytest.approx(2 * float(L_hand.subs(at)), rel=1e-12)


def test_one_mode_predicted_loss_and_modes_follow_the_hand_closed_form():
    lr, a0 = 0.05, 1e-3
    der = tk.Derivation(_one_mode_spec(lr=lr, a0=a0))
    times = np.array([0.0, 10.0, 40.0, 80.0, 200.0, 5000.0])
    s, d = float(S_), float(D_)
    a = _hand_a(times, s, d, a0, 1 / lr)
    L = 0.5 * float(TR_) - (s * a - 0.5 * d * a ** 2)
    np.testing.assert_allclose(der.predict_loss(times), L, rtol=1e-11)
    # at the end the loss is what no mode removes, 1/20 (not 0: one input cannot fit both points)
    assert der.predict_loss([1e5])[0] == pytest.approx(1 / 20, rel=1e-12)
    np.testing.assert_allclose(der.predict_modes(times)["p"][:, 0], a, rtol=1e-11)
    fn = der.loss_function()
    np.testing.assert_allclose(np.asarray(fn(times)), L, rtol=1e-10)
    # the summed loss (τ = 1/(Pη)) is P times the mean loss of the same flow at τ = 1/(2η)
    summed = tk.Derivation(_one_mode_spec(lr=lr, a0=a0, loss="sum"))
    a2 = _hand_a(times, s, d, a0, 1 / (2 * lr))
    np.testing.assert_allclose(summed.predict_loss(times), 2 * (0.5 - (s * a2 - 0.5 * d * a2 ** 2)), rtol=1e-11)


def test_one_mode_discrete_prediction_is_the_recurrence_by_hand():
    # docs: a ← a (1 + (s − d a)/τ)², loss ½ tr Σy − (s a − ½ d a²), with τ = 1/η = 20
    lr, a0 = 0.05, 1e-3
    der = tk.Derivation(_one_mode_spec(lr=lr, a0=a0))
    s, d, tau = 1.5, 2.5, 1 / lr
    a, hand = a0, []
    for _ in range(301):
        hand.append(0.5 - (s * a - 0.5 * d * a ** 2))
        a = a * (1 + (s - d * a) / tau) ** 2
    steps = np.array([0, 1, 2, 50, 100, 300])
    np.testing.assert_allclose(der.predict_loss(steps, discrete=True), np.array(hand)[steps], rtol=1e-10)


@pytest.mark.parametrize("times", [[-1.0, 2.0], [0.0, np.nan], [np.inf], "soon", [[0, 1], [2]]])
def test_bad_times_name_the_field_in_predict_loss_and_predict_modes(times):
    der = tk.Derivation(_one_mode_spec())
    with pytest.raises(SpecError, match="times"):
        der.predict_loss(times)
    with pytest.raises(SpecError, match="times"):         # a raw numpy ValueError before, or no check at all
        der.predict_modes(times)


def test_discrete_prediction_needs_whole_steps():
    der = tk.Derivation(_one_mode_spec())
    with pytest.raises(SpecError, match="whole steps"):
        der.predict_loss([0, 1.5], discrete=True)
    assert der.predict_loss([0.0, 2.0], discrete=True)[0] == pytest.approx(0.5 - (1.5e-3 - 1.25e-6), rel=1e-14)


def test_an_unknown_method_is_refused_naming_the_field():
    with pytest.raises(SpecError, match=r"method: unknown method 'exact'.*closed-form"):
        tk.Derivation(_one_mode_spec(), method="exact")


def test_tiny_data_keep_their_mode():
    """X scaled by 1e-8: s = 3/2 · 1e-8 and d = 5/2 · 1e-16 (the one-mode task by hand, Σyx scales with X,
    Σx with X²). d is below 1e-14 but not zero: the derivation refused it as a 'zero input variance'
    (an absolute threshold); the end point s/d = (3/5) · 1e8 and the loss floor 1/20 are scale-free."""
    e = sp.Rational(1, 10 ** 8)
    task = tk.Task(sp.Matrix([[e, 2 * e]]), sp.Matrix([[1, 1]]))
    der = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 2, 2),)))
    (m,) = der.modes["p"].modes
    assert m.s == sp.Rational(3, 2) * e and m.d == sp.Rational(5, 2) * e ** 2
    assert der.end_points["p"] == [sp.Rational(3, 5) / e]
    # L(0) = ½ tr Σy − (s a0 − ½ d a0²) = 1/2 − 1.5e-8 · 1e-3 + (a term of 1e-22)
    assert der.predict_loss([0.0])[0] == pytest.approx(0.5 - 1.5e-11, rel=1e-15, abs=0)


def test_two_pathways_rank_by_their_top_singular_value_and_sum_their_losses():
    # X = I₂, Y = (1, 3), P = 2; pathway "first" on datapoint 0, "second" on datapoint 1 (disjoint
    # datapoints: no coupling). first: Σyx = (1/2, 0), s = 1/2, d = 1/2; second: Σyx = (0, 3/2),
    # s = 3/2, d = 1/2. "second" is faster (larger s) though listed second. tr Σy = (1 + 9)/2 = 5, so
    # nothing is left at the end: ½·5 − (1/4)/1 − (9/4)/1 = 0.
    task = tk.Task(sp.eye(2), sp.Matrix([[1, 3]]))
    spec = tk.GDLNSpec(task, (tk.Pathway("first", (1, 0), "all", "all", 2, 2),
                                     tk.Pathway("second", (0, 1), "all", "all", 2, 2)),
                       tk.Training(lr=0.1, a0=1e-2))
    der = tk.Derivation(spec)
    assert der.method == "closed-form"
    assert der.ranking == [("second", sp.Rational(3, 2)), ("first", sp.Rational(1, 2))]
    assert der.end_points == {"first": [1], "second": [3]}
    times = np.array([0.0, 5.0, 20.0, 60.0])
    L = np.full(times.shape, 2.5)
    for s in (0.5, 1.5):
        a = _hand_a(times, s, 0.5, 1e-2, 10.0)
        L -= s * a - 0.25 * a ** 2
    np.testing.assert_allclose(der.predict_loss(times), L, rtol=1e-11)
    assert der.predict_loss([1e4])[0] == pytest.approx(0.0, abs=1e-15)


def test_a_pathway_exactly_as_wide_as_its_rank_is_not_flagged():
    # Σyx = diag(1, 1/2) (X = I₂, Y = diag(2, 1), P = 2) has two modes: width 2 is enough, width 1 not
    task = tk.Task(sp.eye(2), sp.diag(2, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        der = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 2, 2),)))
        assert der.modes["p"].singular_values == [1, sp.Rational(1, 2)]
    assert der.notes == []
    with pytest.warns(UserWarning, match=r"raise pathways\[0\].hidden to 2"):
        tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 1, 2),))).modes


# ------------------------------------------------------------------------------------------------
# derivation: values
# ------------------------------------------------------------------------------------------------
def _xor_spec():
    return tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=0.05, a0=1e-3))


def test_values_later_agree_to_one_part_in_1e12():
    # built at Δ = 1/2: a later 1/2 + 3e-13 agrees (|diff| ≤ 1e-12 · max(1, |Δ|) = 1e-12), 1/2 + 3e-12 not
    der = tk.Derivation(_xor_spec(), values={"Delta": 0.5})
    der.predict_loss([0.0, 10.0], values={"Delta": 0.5 + 3e-13})
    with pytest.raises(SpecError, match=r"^symbols: Delta = 0\.5 was fixed when this Derivation was built, not "
                                        r"0\.500000000003 \(fix: build Derivation\(spec, values="):
        der.predict_loss([0.0, 10.0], values={"Delta": 0.5 + 3e-12})
    # below 1 the tolerance stays 1e-12 (the max with 1): at Δ = 1/1000, 1/1000 + 5e-13 agrees
    small = tk.Derivation(_xor_spec(), values={"Delta": 0.001})
    small.predict_loss([0.0], values={"Delta": 0.001 + 5e-13})
    with pytest.raises(SpecError, match="fixed"):
        small.predict_loss([0.0], values={"Delta": 0.001 + 2e-12})
    # at Δ = 1000 the tolerance is relative: 1000 + 3e-10 agrees (3e-10 ≤ 1e-12 · 1000 = 1e-9)
    big = tk.Derivation(_xor_spec(), values={"Delta": 1000})
    big.predict_loss([0.0], values={"Delta": 1000 + 3e-10})
    with pytest.raises(SpecError, match="fixed"):
        big.predict_loss([0.0], values={"Delta": 1000 + 3e-9})


def test_numeric_values_hold_tau_and_a0():
    der = tk.Derivation(_xor_spec())
    vals = der.numeric_values({"Delta": 2})
    byname = {str(k): v for k, v in vals.items()}
    assert byname["tau"] == 20.0 and byname["a_0"] == 1e-3 and byname["Delta"] == 2


def test_bad_values_name_the_symbol():
    with pytest.raises(SpecError, match=r"values\[Delta\].*not a number"):
        tk.Derivation(_xor_spec(), values={"Delta": "soon"})
    with pytest.raises(SpecError, match="no symbol 'delta'"):
        tk.Derivation(_xor_spec(), values={"delta": 1})
    with pytest.raises(SpecError, match=r"values\[Delta\]"):
        tk.Derivation(_xor_spec(), values={"Delta": -0.5})        # Δ is nonnegative


def test_private_number_helpers():
    from theorykit.theory import derivation as dv
    assert dv._positive(1, 2.0) and not dv._positive(1, 0) and not dv._positive(sp.nan)
    assert not dv._positive(-1e-300)
    x = dv._digits(0.1, 30)
    assert isinstance(x, sp.Float) and x == sp.Float(0.1, 30) and x._prec > 53
    assert dv._digits(sp.Rational(1, 3), 30) == sp.Rational(1, 3)
    assert dv._same_value(sp.Rational(1, 2), 0.5) and not dv._same_value(1, 1 + 2e-12)
    M = dv.numeric_matrix(sp.Matrix([[sp.sqrt(2), 1], [0, sp.Symbol("a")]]), {sp.Symbol("a"): 3})
    np.testing.assert_allclose(M, [[2 ** 0.5, 1.0], [0.0, 3.0]], rtol=1e-15)


def test_the_race_reduction_when_asked_for_even_where_the_closed_form_applies():
    # the one-mode task decouples and is diagonalisable, but method="race-reduction" is honoured: no
    # closed-form results, and the integrated loss still follows the hand closed form (1e-6: the ODE
    # solver's tolerance, not the theory)
    der = tk.Derivation(_one_mode_spec(), method="race-reduction")
    assert der.method == "race-reduction"
    for what in ("trajectories", "loss"):
        with pytest.raises(DerivationError, match=f"{what}: no closed form"):
            getattr(der, what)
    times = np.array([0.0, 40.0, 80.0, 400.0])
    a = _hand_a(times, 1.5, 2.5, 1e-3, 20.0)
    np.testing.assert_allclose(der.predict_loss(times), 0.5 - (1.5 * a - 1.25 * a ** 2), rtol=1e-6)


def test_mp_value_evaluates_at_the_working_precision():
    import mpmath
    with mpmath.workdps(50):
        got = md._mp_value(sp.sqrt(2) * sp.pi + sp.I * sp.Rational(1, 3), {})
        assert abs(got - (mpmath.sqrt(2) * mpmath.pi + mpmath.mpc(0, 1) / 3)) < mpmath.mpf(10) ** -48
    with pytest.raises(md._NotFast):
        md._mp_value(sp.gamma(sp.Rational(1, 3)), {})


def test_xor_linear_reln_summary_and_end_points_at_given_values():
    # docs/theory.md#xor: linear ReLN s = Δ/2, d = Δ²/2, end point s/d = 1/Δ; at Δ = 2: s = 1, d = 2
    der = tk.Derivation(_xor_spec())
    D = der.task.symbols["Delta"]
    assert der.end_points == {"positive": [1 / D], "negative": [1 / D]}
    got = der.summary({"Delta": 2})
    for n in ("positive", "negative"):
        assert got[n]["singular_values"] == ["Delta/2"] and got[n]["input_variances"] == ["Delta**2/2"]
        assert got[n]["singular_values_float"] == [1.0] and got[n]["input_variances_float"] == [2.0]
        assert got[n]["diagonalisable"] is True
    # without values: the reference value of Δ (the first of the cycle, 7/10): s = 0.35, d = 0.245
    ref = der.summary()["positive"]
    assert ref["singular_values_float"] == [pytest.approx(0.35, rel=1e-15)]
    assert ref["input_variances_float"] == [pytest.approx(0.245, rel=1e-15)]


def test_a_symbolic_skewed_input_correlation_is_not_diagonalisable():
    # X = [[1, 1], [0, a]], y = (1, 0), P = 2: Σyx = ½(1, 0), so v = e₁, s = 1/2; Σx = ½[[2, a], [a, a²]]
    # maps e₁ to (1, a/2), not parallel to e₁ for a > 0: Assumption 2.1 fails (by hand), race reduction
    a = sp.Symbol("a", positive=True)
    task = tk.Task(sp.Matrix([[1, 1], [0, a]]), sp.Matrix([[1, 0]]), {"a": a})
    der = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 2, 2),)))
    assert der.modes["p"].singular_values == [sp.Rational(1, 2)]
    assert der.modes["p"].modes[0].d == 1                     # e₁ᵀ Σx e₁ = 2/2
    assert der.diagonalisable == {"p": False} and der.method == "race-reduction"
    # a = 0 is refused by the assumption (positive); with Σx diagonal the same task decouples: X = I·diag(1, a)
    task2 = tk.Task(sp.Matrix([[1, 0], [0, a]]), sp.Matrix([[1, 0]]), {"a": a})
    der2 = tk.Derivation(tk.GDLNSpec(task2, (tk.Pathway("p", "all", "all", "all", 2, 2),)))
    assert der2.diagonalisable == {"p": True} and der2.method == "closed-form"


def test_frames_are_the_singular_vectors_by_hand():
    # linear ReLN: both pathways have Σyx = (0, 0, Δ/2) (docs/theory.md#xor; the negative one:
    # ¼[−(1, −1, −Δ) − (−1, 1, −Δ)] = (0, 0, Δ/2)), so v = e₃ and u = Σyx v / s = 1
    der = tk.Derivation(_xor_spec())
    fr = der.frames({"Delta": 2})
    for n in ("positive", "negative"):
        U, V = fr[n]
        np.testing.assert_array_equal(U, [[1.0]])
        np.testing.assert_array_equal(V, [[0.0], [0.0], [1.0]])
    U, V = tk.Derivation(_one_mode_spec()).frames()["p"]
    np.testing.assert_array_equal(U, [[1.0]])
    np.testing.assert_array_equal(V, [[1.0]])


def _two_pathway_task():
    return tk.Task(sp.eye(2), sp.Matrix([[1, 3]]))


def test_initial_loss_is_half_the_output_trace_times_the_loss_factor():
    # tr Σy = (1 + 9)/2 = 5 (X = I₂, Y = (1, 3), P = 2): ½ tr Σy = 5/2 (mean), P · 5/2 = 5 (summed)
    paths = (tk.Pathway("p", "all", "all", "all", 2, 2),)
    assert tk.Derivation(tk.GDLNSpec(_two_pathway_task(), paths)).initial_loss == sp.Rational(5, 2)
    summed = tk.Derivation(tk.GDLNSpec(_two_pathway_task(), paths, tk.Training(loss="sum")))
    assert summed.initial_loss == 5


def test_same_depth_pathways_rank_by_s_not_by_half_way_time():
    # X = diag(1/10, 1), Y = (20, 1), P = 2; "big" on datapoint 0, "small" on datapoint 1 (no coupling):
    # big: s = 20 · (1/10)/2 = 1, d = (1/100)/2 = 1/200; small: s = 1/2, d = 1/2. With a0 = 0.01,
    # t½ = τ/(2s) ln(s/(d a0) − 1): big τ/2 · ln 19999 ≈ 4.95 τ, small τ · ln 99 ≈ 4.60 τ. The docstring's
    # rule for one depth is by s (the rate 2s/τ): "big" first although its half-way time is later.
    task = tk.Task(sp.diag(sp.Rational(1, 10), 1), sp.Matrix([[20, 1]]))
    spec = tk.GDLNSpec(task, (tk.Pathway("small", (0, 1), "all", "all", 2, 2), tk.Pathway("big", (1, 0), "all", "all", 2, 2)),
                       tk.Training(lr=0.05, a0=0.01))
    der = tk.Derivation(spec)
    assert np.log(19999) / 2 > np.log(99)                              # the half-way times by hand
    assert der.ranking == [("big", 1), ("small", sp.Rational(1, 2))]
    assert der.end_points == {"small": [1], "big": [200]}


def test_a_gram_problem_with_a_symbol_decides_assumption_2_1_exactly():
    # X = I₂, Y = 2 [[1, Δ], [0, 1]], P = 2: Σyx = [[1, Δ], [0, 1]] (its singular values are roots of a
    # quadratic in Δ: nested radicals), Σx = I/2 maps every v to v/2, so Assumption 2.1 holds and every
    # d = 1/2 (by hand); the product σ₁σ₂ = |det Σyx| = 1 and σ₁² + σ₂² = ‖Σyx‖_F² = 2 + Δ²
    D = sp.Symbol("Delta", nonnegative=True)
    task = tk.Task(sp.eye(2), 2 * sp.Matrix([[1, D], [0, 1]]), {"Delta": D})
    der = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 2, 2),)))
    assert der.diagonalisable == {"p": True} and der.method == "closed-form"
    s1, s2 = der.modes["p"].floats({D: sp.Rational(3, 2)})
    assert s1 * s2 == pytest.approx(1.0, rel=1e-13) and s1 ** 2 + s2 ** 2 == pytest.approx(2 + 2.25, rel=1e-13)
    for m in der.modes["p"].modes:
        assert float(sp.N(m.d_untidied.subs(D, sp.Rational(3, 2)), 30)) == pytest.approx(0.5, rel=1e-13)
