"""Rules of the theory core that a mutation tester of the theory core found unpinned.

Each small change to an exact formula (a sign, an off-by-one, a dropped factor, a loosened
condition) that no test caught became a test here. Every expected value comes from a hand
derivation written beside it, from docs/theory.md, or from a second method computed in the test
(NumPy, SymPy, mpmath, a brute-force loop), never from a run of the code under test."""
import numpy as np
import pytest
import sympy as sp

from theorykit.spec.gating import GDLNSpec, Pathway
from theorykit.spec.task import Task
from theorykit.theory.effective import couplings
from theorykit.theory.trajectory import discrete_mode_recurrence


# ------------------------------------------------------------------------------------------------
# effective.couplings: two pathways interact only through a shared output row AND a shared datapoint
# ------------------------------------------------------------------------------------------------
def test_couplings_need_a_shared_output_and_a_shared_datapoint():
    # docs/theory.md#effective-datasets: pathways q, p meet in the loss through ⟨M_p, M_q Σx_qp⟩ restricted
    # to their common output rows, and Σx_qp = ⟨g_q g_p x xᵀ⟩ is 0 unless some datapoint has both gates on.
    # Three datapoints, two outputs:
    #   A on {0, 1} → out 0;  B on {2} → out 0;  C on {0} → out 1;  D on {1, 2} → outs 0, 1
    #   A–B: share out 0, no datapoint → no.   A–C: share datapoint 0, no output → no.
    #   A–D: out 0 and datapoint 1 → yes.      B–D: out 0 and datapoint 2 → yes.
    #   C–D: out 1 but no datapoint (0 vs 1, 2) → no.   B–C: nothing shared → no.
    task = Task(sp.Matrix([[1, 0, 2], [0, 1, 1]]), sp.Matrix([[1, 2, 3], [1, -1, 0]]))
    paths = [Pathway("A", (1, 1, 0), "all", (0,), 1), Pathway("B", (0, 0, 1), "all", (0,), 1),
             Pathway("C", (1, 0, 0), "all", (1,), 1), Pathway("D", (0, 1, 1), "all", (0, 1), 1)]
    assert couplings(GDLNSpec(task, paths)) == [("A", "D"), ("B", "D")]


# ------------------------------------------------------------------------------------------------
# trajectory.discrete_mode_recurrence without input variance
# ------------------------------------------------------------------------------------------------
def test_discrete_mode_without_input_variance_still_follows_its_recurrence():
    # Each layer's strength b (a = b²) steps b ← b + (1/τ) b (s − d b²); with d = 0 that is
    # b ← b (1 + s/τ), so a ← a (1 + s/τ)² and a_n = a0 (1 + s/τ)^{2n}. s = 1, τ = 4, a0 = 0.01:
    # a_n = 0.01 · 1.25^{2n} = 0.01 · 1.5625^n.
    a = discrete_mode_recurrence(1.0, 0.0, 0.01, 4.0, 3)
    np.testing.assert_allclose(a, [0.01, 0.015625, 0.0244140625, 0.03814697265625], rtol=1e-15)


# ------------------------------------------------------------------------------------------------
# gates: significant units are read per network; the census classes are taken in their stated order
# ------------------------------------------------------------------------------------------------
def test_significant_units_are_measured_against_their_own_networks_largest():
    from theorykit.theory.gates import significant

    # docstring: a unit is significant when its weight exceeds rel_threshold × the largest *in its
    # network*. Network 0: largest 10, threshold 0.1 → 10, 1, 0.5 all above. Network 1: largest 0.1,
    # threshold 0.001 → 0.1 and 0.05 above, 1e-4 below. (Against the largest over both networks,
    # 10, network 1 would have no significant unit at all.)
    w = np.array([[10.0, 1.0, 0.5], [0.1, 0.05, 1e-4]])
    assert significant(w, 0.01).tolist() == [[True, True, True], [True, True, False]]


def test_lemma_classes_take_context_only_before_single_datapoint():
    from theorykit.theory.gates import UnitGates

    # LEMMA_CLASSES are tried in order, the first that applies wins: dead, always-on, context-only,
    # single-datapoint, ... With one item per context (blocks = 3, items = 1) a unit on for the first
    # datapoint only is constant within every context (context-only) and also on for exactly one
    # datapoint; context-only comes first. A unit on in two contexts is context-only too; none on: dead.
    pats = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0], [1, 1, 1]], dtype=bool)
    assert list(UnitGates(pats, blocks=3).lemma_classes()) == ["context-only", "context-only", "dead", "always-on"]


# ------------------------------------------------------------------------------------------------
# modes.is_zero: agreement at random points is not a proof
# ------------------------------------------------------------------------------------------------
def test_is_zero_does_not_take_vanishing_on_the_sample_range_for_identically_zero():
    from theorykit.theory.modes import is_zero

    # is_zero samples each symbol on [0.3, 2.5] and then must confirm. max(x, 1/5) − x is 0 for every
    # x ≥ 1/5, so on every sample point, but at x = 1/10 it is 1/5 − 1/10 = 1/10: not identically zero.
    x = sp.Symbol("x", positive=True)
    e = sp.Max(x, sp.Rational(1, 5)) - x
    assert e.subs(x, sp.Rational(1, 10)) == sp.Rational(1, 10)        # the hand value, checked by SymPy
    assert not is_zero(e)
    # and a true identity in the same form still passes: max(x, 0) − x = 0 for x > 0
    assert is_zero(sp.Max(x, 0) - x)


# ------------------------------------------------------------------------------------------------
# race.RaceSystem.start: a masked pathway starts at zero
# ------------------------------------------------------------------------------------------------
def test_race_start_with_a_mask_zeroes_the_masked_pathway():
    from theorykit.theory.race import RaceSystem

    # X = I₂ (two datapoints), Y = [2, 0]. Pathway g1 is on for both datapoints, g2 for the first only;
    # each has Σyx = Y G Xᵀ/P = [[1, 0]] (one mode, u = [1], v = e₁), so an aligned start of strength a
    # is the map a·e₁ᵀ. Masked [1, 0], only g1 predicts: ŷ = a on datapoint 0, 0 on datapoint 1, and
    # the mean loss ½⟨(y − ŷ)²⟩ = ½ · ((2 − a)² + 0)/2 = (2 − a)²/4; a = 0.5: 0.5625.
    # (Unmasked, g2 adds a on datapoint 0: ½ · (2 − 2a)²/2 = 0.25.)
    sys_ = RaceSystem.from_data(np.eye(2), np.array([[2.0, 0.0]]), np.array([[1.0, 1.0], [1.0, 0.0]]))
    assert float(sys_.loss(sys_.start(0.5, mask=[1, 0]))) == pytest.approx(0.5625, rel=1e-12)
    assert float(sys_.loss(sys_.start(0.5))) == pytest.approx(0.25, rel=1e-12)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.booleans(), min_size=3, max_size=3).filter(any),
                          st.lists(st.booleans(), min_size=2, max_size=2).filter(any)), min_size=2, max_size=4))
def test_couplings_are_the_pairs_with_a_common_gate_and_a_common_output_row(paths):
    # Second method: a pair couples iff the elementwise products of its 0/1 gate vectors and of its 0/1
    # output-row indicators both have a non-zero sum (numpy), over pairs in spec order (i < j).
    # (Each gate and output set is drawn non-empty: filtering whole examples afterwards and returning
    # early left 27 of the 40 examples checking nothing, and none with four pathways.)
    assert len(paths) >= 2 and all(any(g) and any(o) for g, o in paths)
    task = Task(sp.Matrix([[1, 0, 2], [0, 1, 1]]), sp.Matrix([[1, 2, 3], [1, -1, 0]]))
    ps = [Pathway(f"p{i}", tuple(int(x) for x in g), "all", tuple(j for j in range(2) if o[j]), 1)
          for i, (g, o) in enumerate(paths)]
    G = np.array([g for g, _o in paths], dtype=int)
    O = np.array([o for _g, o in paths], dtype=int)
    want = [(f"p{i}", f"p{j}") for i in range(len(ps)) for j in range(i + 1, len(ps))
            if (G[i] * G[j]).sum() > 0 and (O[i] * O[j]).sum() > 0]
    assert couplings(GDLNSpec(task, ps)) == want
