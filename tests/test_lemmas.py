"""The paper's lemmas (Appendices D–E; docs/theory.md#lemma-4-1) as property tests that state exactly what holds.

Golden values here come from hand derivations (in comments), from the literature (poly-Bernoulli
numbers count the lonesum matrices, Brewbaker 2008) or from a second, independent method
(enumeration vs linear programming vs a combinatorial test; floating-point vs exact SymPy).
See docs/lemmas.md for the statements and findings.
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, find, given, settings
from hypothesis import strategies as st

import theorykit as tk
from theorykit.theory.effective import effective_dataset
from theorykit.spec.gating import Pathway
from theorykit.theory.lemmas import (all_patterns, classify_context_gating, exact_squared_singular_values, gate_census,
                              gate_pattern, has_xor_subpattern, interlacing_bounds, interlacing_holds,
                              interlacing_holds_exact, is_staircase, lp_realisable, pattern_from_gates,
                              poly_bernoulli, realisable_gate_patterns, singular_values, staircase_weights,
                              stronger_reading_holds, top_singular_value)
from theorykit.spec.task import Task

# =============================================================================================
# 1. Generalised interlacing (Thompson 1972)
# =============================================================================================
SV_CHOICES = [0.0, 0.0, 1e-3, 0.5, 1.0, 1.0, 1.0, 2.0, 3.0, 1e3]  # repeats and zeros on purpose


def _orthogonal(rng, n):
    Q, R = np.linalg.qr(rng.standard_normal((n, n)))
    return Q * np.sign(np.diag(R))


@st.composite
def svd_matrix_and_removal(draw):
    """A = U·diag(s)·Vᵀ with chosen (repeated, zero) singular values, optional zero rows/columns,
    plus the rows and columns to remove (at least one row and one column kept)."""
    m = draw(st.integers(1, 6))
    n = draw(st.integers(1, 6))
    q = min(m, n)
    s = sorted(draw(st.lists(st.sampled_from(SV_CHOICES), min_size=q, max_size=q)), reverse=True)
    scale = draw(st.sampled_from([1e-6, 1.0, 1e6]))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    S = np.zeros((m, n))
    S[np.arange(q), np.arange(q)] = s
    A = scale * _orthogonal(rng, m) @ S @ _orthogonal(rng, n).T
    for i in draw(st.sets(st.integers(0, m - 1), max_size=m)):
        A[i, :] = 0.0  # zero rows
    for j in draw(st.sets(st.integers(0, n - 1), max_size=n)):
        A[:, j] = 0.0  # zero columns
    rows = draw(st.sets(st.integers(0, m - 1), max_size=m - 1))
    cols = draw(st.sets(st.integers(0, n - 1), max_size=n - 1))
    return A, sorted(rows), sorted(cols)


@given(svd_matrix_and_removal())
def test_interlacing_holds_for_any_shape(case):
    """σ_i(A) ≥ σ_i(B) ≥ σ_{i+r+c}(A) for B = A minus r rows and c columns (σ_j(A) = 0 beyond min(m, n))."""
    A, rows, cols = case
    assert interlacing_holds(A, rows, cols)
    up, sB, _ = interlacing_bounds(A, rows, cols)
    # the special case Proposition 4.2 uses: the top singular value never grows
    tol = 32 * np.finfo(float).eps * max(A.shape) * (up[0] if up.size else 0)
    assert sB.size == 0 or sB[0] <= up[0] + tol


def test_interlacing_index_is_sharp():
    """The lower index i+r+c cannot be lowered: hand example with equality.

    A = diag(3, 2, 1); remove row 0 and column 1 (r = c = 1): B = [[0, 0], [0, 1]], σ(B) = (1, 0).
    σ_1(B) = 1 = σ_3(A) (equality in σ_1(B) ≥ σ_{1+2}(A)), while σ_1(B) ≥ σ_2(A) = 2 fails.
    So a test that checked the wrong index would fail here.
    """
    A = np.diag([3.0, 2.0, 1.0])
    up, sB, low = interlacing_bounds(A, [0], [1])
    np.testing.assert_allclose(up, [3, 2])
    np.testing.assert_allclose(sB, [1, 0], atol=1e-15)
    np.testing.assert_allclose(low, [1, 0])
    assert sB[0] < singular_values(A)[1]  # the too-strong bound σ_1(B) ≥ σ_{1+r+c-1}(A) fails
    assert interlacing_holds_exact(sp.diag(3, 2, 1), [0], [1])


def test_interlacing_upper_bound_is_sharp():
    """σ_i(A) ≥ σ_i(B) with equality when the removed rows/columns are zero (hand example)."""
    A = np.array([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    up, sB, _ = interlacing_bounds(A, [1], [2])
    assert sB[0] == up[0] == 2.0


small_int_matrices = st.integers(1, 3).flatmap(
    lambda m: st.integers(1, 4).flatmap(
        lambda n: st.tuples(st.lists(st.lists(st.integers(-3, 3), min_size=n, max_size=n), min_size=m, max_size=m),
                            st.sets(st.integers(0, m - 1), max_size=m - 1),
                            st.sets(st.integers(0, n - 1), max_size=n - 1))))


@given(small_int_matrices)
@example(([[3, 0, 0], [0, 2, 0], [0, 0, 1]], {0}, {1}))   # equality case (see the sharpness test)
@example(([[1, 1], [1, 1]], {0}, set()))                 # rank one, repeated zero singular value
def test_interlacing_exact_on_integer_matrices(case):
    """Exact (SymPy algebraic numbers) on small integer matrices, and consistent with the floats."""
    rows_list, rows, cols = case
    A = sp.Matrix(rows_list)
    assert interlacing_holds_exact(A, rows, cols)
    lam = exact_squared_singular_values(A)
    np.testing.assert_allclose(np.sqrt(np.maximum([float(x) for x in lam], 0)),
                               singular_values(np.array(rows_list, dtype=float)), atol=1e-9)


# =============================================================================================
# 2. The consequence Proposition 4.2 uses, through theorykit's effective datasets
# =============================================================================================
@st.composite
def task_and_restriction(draw):
    d, p, P = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 5))
    ints = st.integers(-3, 3)
    X = sp.Matrix(draw(st.lists(st.lists(ints, min_size=P, max_size=P), min_size=d, max_size=d)))
    Y = sp.Matrix(draw(st.lists(st.lists(ints, min_size=P, max_size=P), min_size=p, max_size=p)))
    active = draw(st.lists(st.integers(0, 1), min_size=P, max_size=P).filter(any))
    ins = sorted(draw(st.sets(st.integers(0, d - 1), min_size=1, max_size=d)))
    outs = sorted(draw(st.sets(st.integers(0, p - 1), min_size=1, max_size=p)))
    return Task(X, Y), tuple(active), tuple(ins), tuple(outs)


def _np(M):
    return np.array(M.evalf(30).tolist(), dtype=float).reshape(M.shape)


@given(task_and_restriction())
def test_restricting_pathway_features_never_raises_s(case):
    """For any task and gate: a pathway restricted to some input rows and output rows has an
    effective Σyx that is the corresponding submatrix of the full pathway's (exactly), so its
    singular values interlace and its top singular value s (learning rate 2s/τ) is never larger."""
    task, active, ins, outs = case
    full = effective_dataset(task, Pathway("full", active, "all", "all"))
    sub = effective_dataset(task, Pathway("sub", active, ins, outs))
    assert sub.Syx == full.Syx.extract(list(outs), list(ins))
    removed_rows = [r for r in range(task.p) if r not in outs]
    removed_cols = [c for c in range(task.d) if c not in ins]
    A = _np(full.Syx)
    assert interlacing_holds(A, removed_rows, removed_cols)
    assert top_singular_value(sub.Syx) <= top_singular_value(full.Syx) * (1 + 1e-12) + 1e-300


SEC4 = tk.contexts(8, 3, blocks=["hierarchy", "ring", "cross"])


@settings(max_examples=max(30, settings.default.max_examples // 10))
@given(st.sets(st.integers(0, 2), min_size=1, max_size=3),
       st.sets(st.integers(0, SEC4.d - 1), min_size=1, max_size=SEC4.d),
       st.sets(st.integers(0, SEC4.p - 1), min_size=1, max_size=SEC4.p))
def test_restriction_on_section4_task(contexts_on, ins, outs):
    """Same statement on the paper's Section 4 task, for pathways on any set of contexts."""
    act = tuple(int(mu // 8 in contexts_on) for mu in range(SEC4.P))
    full = effective_dataset(SEC4, Pathway("full", act, "all", "all"))
    sub = effective_dataset(SEC4, Pathway("sub", act, tuple(sorted(ins)), tuple(sorted(outs))))
    A = _np(full.Syx)
    rr = [r for r in range(SEC4.p) if r not in outs]
    cc = [c for c in range(SEC4.d) if c not in ins]
    assert interlacing_holds(A, rr, cc)
    assert top_singular_value(sub.Syx) <= top_singular_value(A) * (1 + 1e-12)


# =============================================================================================
# 3. Positive-data lemma
# =============================================================================================
nonneg = st.integers(0, 4)


@st.composite
def nonneg_data(draw, lo=0):
    d, p, P = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(1, 5))
    ent = st.integers(lo, 4)
    X = np.array(draw(st.lists(st.lists(ent, min_size=P, max_size=P), min_size=d, max_size=d)), dtype=float)
    Y = np.array(draw(st.lists(st.lists(ent, min_size=P, max_size=P), min_size=p, max_size=p)), dtype=float)
    x = np.array(draw(st.lists(ent, min_size=d, max_size=d)), dtype=float)
    y = np.array(draw(st.lists(ent, min_size=p, max_size=p)), dtype=float)
    return X, Y, x, y


@given(nonneg_data())
def test_positive_data_unnormalised_sum(case):
    """Element-wise non-negative data: σ₁(Σ_μ y_μ x_μᵀ + y xᵀ) ≥ σ₁(Σ_μ y_μ x_μᵀ).

    Proof: S ≥ 0 has non-negative top singular vectors u, v (Perron–Frobenius), so
    σ₁(S + y xᵀ) ≥ uᵀ(S + y xᵀ)v = σ₁(S) + (uᵀy)(xᵀv) ≥ σ₁(S)."""
    X, Y, x, y = case
    S = Y @ X.T
    S2 = S + np.outer(y, x)
    assert top_singular_value(S2) >= top_singular_value(S) * (1 - 1e-12)


@st.composite
def nonneg_task_gate_and_point(draw):
    d, p, P = draw(st.integers(1, 4)), draw(st.integers(1, 4)), draw(st.integers(2, 5))
    X = sp.Matrix(draw(st.lists(st.lists(nonneg, min_size=P, max_size=P), min_size=d, max_size=d)))
    Y = sp.Matrix(draw(st.lists(st.lists(nonneg, min_size=P, max_size=P), min_size=p, max_size=p)))
    active = draw(st.lists(st.integers(0, 1), min_size=P, max_size=P).filter(lambda a: any(a) and not all(a)))
    mu = draw(st.sampled_from([i for i, g in enumerate(active) if not g]))
    return Task(X, Y), tuple(active), mu


@given(nonneg_task_gate_and_point())
def test_positive_data_pathway_gated_on_one_more_datapoint(case):
    """The form Proposition 4.2 needs: with the task's P fixed (theorykit's effective datasets
    always average over all P datapoints), gating a pathway on one more non-negative datapoint
    never lowers the top singular value of its Σyx (it adds (1/P) y_μ x_μᵀ ≥ 0)."""
    task, active, mu = case
    more = tuple(1 if i == mu else g for i, g in enumerate(active))
    s_before = top_singular_value(effective_dataset(task, Pathway("p", active, "all", "all")).Syx)
    s_after = top_singular_value(effective_dataset(task, Pathway("p", more, "all", "all")).Syx)
    assert s_after >= s_before * (1 - 1e-12)


def _averaged_top(X, Y):
    X, Y = sp.Matrix(X), sp.Matrix(Y)
    return sp.sqrt(max(exact_squared_singular_values(Y * X.T / X.cols)))


def test_positive_data_averaged_version_fails_pinned():
    """FINDING: with Σyx = (1/P) Y Xᵀ re-averaged over the new P, adding a non-negative
    datapoint can lower σ₁. Hand example: one point x = 1, y = 1 gives σ₁ = 1; adding
    x = 1, y = 1/2 (strictly positive) gives (1 + 1/2)/2 = 3/4 < 1; adding x = 1, y = 0
    gives 1/2. The lemma holds for the sum, and for a pathway's effective dataset with P fixed."""
    assert _averaged_top([[1]], [[1]]) == 1
    assert _averaged_top([[1, 1]], [[1, sp.Rational(1, 2)]]) == sp.Rational(3, 4)
    assert _averaged_top([[1, 1]], [[1, 0]]) == sp.Rational(1, 2)


def test_positive_data_averaged_version_counterexamples_are_found():
    """Hypothesis finds an averaged-version counterexample among non-negative integer data."""
    def lowers(case):
        X, Y, x, y = case
        before = top_singular_value(Y @ X.T / X.shape[1])
        after = top_singular_value((Y @ X.T + np.outer(y, x)) / (X.shape[1] + 1))
        return after < before * (1 - 1e-9)

    X, Y, x, y = find(nonneg_data(), lowers, settings=settings(max_examples=500, database=None))
    assert (X >= 0).all() and (Y >= 0).all() and (x >= 0).all() and (y >= 0).all()


def test_mixed_signs_counterexample_pinned():
    """Once signs are mixed the lemma fails even for the unnormalised sum: x = 1, y = 1 gives
    S = [[1]]; adding x = 1, y = −1 gives S = [[0]] (hand computation)."""
    S = np.array([[1.0]])
    assert top_singular_value(S + np.outer([-1.0], [1.0])) == 0.0 < top_singular_value(S)


def test_mixed_signs_counterexample_is_found():
    """Hypothesis finds a mixed-sign decrease of σ₁ of the unnormalised sum."""
    def lowers(case):
        X, Y, x, y = case
        return top_singular_value(Y @ X.T + np.outer(y, x)) < top_singular_value(Y @ X.T) * (1 - 1e-9)

    X, Y, x, y = find(nonneg_data(lo=-4), lowers, settings=settings(max_examples=500, database=None))
    assert (np.concatenate([X.ravel(), Y.ravel(), x, y]) < 0).any()


# =============================================================================================
# 4. Gating (Lemma 4.1)
# =============================================================================================
weights = st.floats(-10, 10, allow_nan=False, allow_infinity=False)
XOR = np.array([[1, 0], [0, 1]], dtype=bool)  # on (o1,c1),(o2,c2); off (o1,c2),(o2,c1)


@given(st.lists(weights, min_size=2, max_size=2), st.lists(weights, min_size=2, max_size=2),
       st.sampled_from([1.0, 1.1, 1.35]))
def test_no_unit_realises_the_xor_gate(w_item, w_ctx, scale):
    """The proof of Lemma 4.1: a bias-free unit (pre-activation a_i + s·b_c) is never on for
    (o1,c1), (o2,c2) and off for (o1,c2), (o2,c1) (or the mirror pattern)."""
    G = gate_pattern(w_item, w_ctx, scale)
    assert not np.array_equal(G, XOR) and not np.array_equal(G, ~XOR)


def test_xor_gate_exhaustive_over_sign_patterns():
    """All 16 on/off patterns of 2 items × 2 contexts, decided by LP: exactly the two XOR
    patterns are infeasible (hand: summing the on-inequalities gives a1+a2+b1+b2 > 0, summing
    the off ones ≤ 0)."""
    infeasible = [G for G in all_patterns(2, 2) if not lp_realisable(G)[0]]
    assert len(infeasible) == 2
    assert {g.tobytes() for g in infeasible} == {XOR.tobytes(), (~XOR).tobytes()}


@pytest.mark.parametrize("n,k", [(1, 1), (1, 4), (4, 1), (2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (3, 4), (4, 4)])
def test_realisable_set_equals_characterisation_exhaustively(n, k):
    """Over all 2^(nk) patterns: realisable (enumeration of weight orderings) ⇔ no 2×2 XOR
    sub-pattern ⇔ staircase under row/column orderings ⇔ LP-feasible (LP for nk ≤ 9); and the
    number of them is the poly-Bernoulli number B_n^(−k) (lonesum matrices, Brewbaker 2008;
    e.g. B_2^(−2) = 14, B_3^(−3) = 230, B_4^(−4) = 6902)."""
    R = realisable_gate_patterns(n, k)
    P = all_patterns(n, k)
    enum = np.array([g.tobytes() in R for g in P])
    stair = np.array([is_staircase(g) for g in P])
    xorfree = np.array([not has_xor_subpattern(g) for g in P])
    assert np.array_equal(enum, stair) and np.array_equal(enum, xorfree)
    assert len(R) == enum.sum() == poly_bernoulli(n, k)
    if n * k <= 9:
        lp = np.array([lp_realisable(g)[0] for g in P])
        assert np.array_equal(lp, enum)


def test_poly_bernoulli_table():
    """Golden values of B_n^(−k) from the literature (OEIS A099594): 2, 4, 8; 4, 14, 46; 8, 46, 230."""
    assert [[poly_bernoulli(n, k) for k in (1, 2, 3)] for n in (1, 2, 3)] == [[2, 4, 8], [4, 14, 46], [8, 46, 230]]


@given(st.integers(1, 6).flatmap(lambda n: st.integers(1, 6).flatmap(
    lambda k: st.lists(st.lists(st.booleans(), min_size=k, max_size=k), min_size=n, max_size=n))))
def test_characterisation_beyond_exhaustive_sizes(rows):
    """For random patterns up to 6×6: staircase ⇒ explicit weights realise it (constructive proof);
    not staircase ⇒ it contains a 2×2 XOR and the LP is infeasible."""
    G = np.array(rows, dtype=bool)
    if is_staircase(G):
        a, b = staircase_weights(G)
        assert np.array_equal(gate_pattern(a, b), G)
        assert not has_xor_subpattern(G)
    else:
        assert has_xor_subpattern(G)
        assert not lp_realisable(G)[0]


# The counterexample Hypothesis finds (shrunk) to the paper's stronger reading
# ("units gate on context alone or on a single datapoint"), for n = 8 items and k = 3 contexts:
# item weights (0, …, 0, 1), context weights (0, 0, 1) — on for all of context 3 and for item 8 in
# every context ("context 3 OR item 8").
PINNED_ITEM = [0.0] * 7 + [1.0]
_SEC4_X = {sc: tk.contexts(8, 3, blocks=["hierarchy", "ring", "cross"], context_scale=sc).numeric()[0]
           for sc in (1.0, 1.1, 1.35)}
PINNED_CTX = [0.0, 0.0, 1.0]


@given(st.lists(weights, min_size=8, max_size=8), st.lists(weights, min_size=3, max_size=3),
       st.sampled_from([1.0, 1.1, 1.35]))
@example(PINNED_ITEM, PINNED_CTX, 1.0)
def test_unit_gate_pattern_is_exactly_a_staircase(w_item, w_ctx, scale):
    """What Lemma 4.1's proof does establish, stated exactly: the gate pattern of a bias-free ReLU
    unit on the Section 4 inputs (computed by theorykit.sim.simulation.relu_gates) is a staircase (no 2×2
    XOR sub-pattern) and LP-feasible.

    It does NOT establish the paper's stronger reading (context alone or a single datapoint):
    the pinned @example is "context 3 OR item 8", realisable and neither. The proof's 2×2 argument
    excludes only the XOR sub-pattern; item-only gating is excluded (if at all) by a separate
    functional argument, and the single-datapoint case is left to Proposition 4.2.
    """
    import jax.numpy as jnp
    from theorykit.sim.simulation import relu_gates

    X = _SEC4_X[scale]
    W1 = jnp.asarray([list(w_item) + list(w_ctx)])
    g = np.asarray(relu_gates([W1, jnp.zeros((1, 1))], jnp.asarray(X))[0])[0]
    G = pattern_from_gates(g, 8, 3)
    # relu_gates is 1[a_i + s·b_c > 0] evaluated the way XLA on CPU does it: subnormal operands and
    # results are flushed to zero (found by the thorough profile: w_ctx = (0, 0, 5e-324) reads as off).
    ftz = lambda v: np.where(np.abs(v) < np.finfo(float).tiny, 0.0, v)  # noqa: E731
    pre = ftz(ftz(np.asarray(w_item))[:, None] + ftz(scale * ftz(np.asarray(w_ctx)))[None, :])
    assert np.array_equal(G, pre > 0)
    assert is_staircase(gate_pattern(w_item, w_ctx, scale))
    assert is_staircase(G) and not has_xor_subpattern(G)
    assert lp_realisable(G, scale)[0]
    assert classify_context_gating(G, 8, 3) != "not-staircase"


def test_paper_stronger_reading_pinned_counterexample():
    """FINDING. Informal Lemma 4.1 says units "gate based on the context features in isolation or
    are only active for a single datapoint". The unit with item weights (0,…,0,1) and context
    weights (0,0,1) is on for (any item, context 3) and (item 8, any context): a staircase, neither
    context-only, item-only nor single-datapoint. The proof's contradiction needs two items that
    are each on in a context where the other is off; here item 8's on-set contains every other
    item's, so there is none."""
    G = gate_pattern(PINNED_ITEM, PINNED_CTX)
    expected = np.zeros((8, 3), dtype=bool)
    expected[:, 2] = True
    expected[7, :] = True
    assert np.array_equal(G, expected)
    assert classify_context_gating(G, 8, 3) == "other-staircase"
    assert not stronger_reading_holds(G, 8, 3)


def test_hypothesis_finds_a_counterexample_to_the_stronger_reading():
    """Hypothesis search over weights finds a realisable pattern outside the stronger reading that
    is not item-only either (the class the paper excludes by its functional argument)."""
    w = find(st.tuples(st.lists(weights, min_size=8, max_size=8), st.lists(weights, min_size=3, max_size=3)),
             lambda w: classify_context_gating(gate_pattern(*w), 8, 3) == "other-staircase",
             settings=settings(max_examples=2000, database=None))
    G = gate_pattern(*w)
    assert is_staircase(G) and not stronger_reading_holds(G, 8, 3)


def test_exact_counts_for_section4_sizes():
    """For n = 8, k = 3 the realisable patterns number B_8^(−3) = Σ_m (m!)² S(9,m+1) S(4,m+1)
    = 1 + 255·7 + 4·3025·6 + 36·7770 = 354106 (hand, with Stirling numbers S(9,·) = 1, 255, 3025, 7770
    and S(4,·) = 1, 7, 6, 1). The stronger reading allows 2^3 context-only patterns (dead and
    always-on included) + 24 single datapoints = 32 of them; item-only adds 2^8 − 2 = 254."""
    assert poly_bernoulli(8, 3) == 1 + 255 * 7 + 4 * 3025 * 6 + 36 * 7770 == 354106
    R = realisable_gate_patterns(8, 3)
    assert len(R) == 354106
    G = np.frombuffer(b"".join(sorted(R)), dtype=bool).reshape(-1, 8, 3)
    on = G.sum(axis=(1, 2))
    col_const = (G == G[:, :1, :]).all(axis=(1, 2))
    row_const = (G == G[:, :, :1]).all(axis=(1, 2))
    assert (col_const.sum(), (on == 1).sum(), (row_const & ~col_const).sum()) == (8, 24, 254)
    other = ~col_const & ~row_const & (on != 1)
    assert other.sum() == 354106 - 8 - 24 - 254
    # the vectorised classes agree with classify_context_gating on a sample of patterns
    for i in range(0, len(G), 997):
        assert (classify_context_gating(G[i], 8, 3) == "other-staircase") == bool(other[i])


def test_gate_census_and_classes_on_hand_patterns():
    """classify_context_gating on hand-made gate vectors (context-major columns c·n + i)."""
    n, k = 2, 3
    assert classify_context_gating([0] * 6, n, k) == "dead"
    assert classify_context_gating([1] * 6, n, k) == "always-on"
    assert classify_context_gating([1, 1, 0, 0, 1, 1], n, k) == "context-only"   # contexts 1 and 3
    assert classify_context_gating([0, 0, 0, 1, 0, 0], n, k) == "single-datapoint"
    assert classify_context_gating([0, 1, 0, 1, 0, 1], n, k) == "item-only"
    assert classify_context_gating([0, 1, 1, 1, 0, 1], n, k) == "other-staircase"  # item 2 OR context 2
    assert classify_context_gating([1, 0, 0, 1, 0, 0], n, k) == "not-staircase"    # the XOR
    counts = gate_census(np.array([[0] * 6, [1] * 6, [1, 0, 0, 1, 0, 0]]), n, k)
    assert counts["dead"] == counts["always-on"] == counts["not-staircase"] == 1


def test_context_gating_mismatch_hand_example():
    """n = 2 items, k = 2 contexts, pre-activations (context-major) [3, −1 | −2, 0.5]:
    context 1 best on (cost 1), context 2 best off (cost 0.5); total |pre| = 6.5 → 1.5/6.5.
    A context-gated unit [1, 2 | −1, −3] costs 0."""
    from theorykit.theory.lemmas import context_gating_mismatch

    m = context_gating_mismatch(np.array([[3.0, -1.0, -2.0, 0.5], [1.0, 2.0, -1.0, -3.0]]), 2, 2)
    np.testing.assert_allclose(m, [1.5 / 6.5, 0.0])
