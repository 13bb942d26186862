"""Rules of the gating lemmas and the unit-gate classifier (theorykit.theory.lemmas,
theorykit.theory.gates; docs/theory.md#lemma-4-1, docs/lemmas.md) and of the race by exhaustion
(theorykit.analysis.exhaust; docs/race_k4.md), each checked against a value derived by hand in
the test (or by a second method written here), never against a value the code under test
produced. Written from a hand mutation check of the three modules: each test pins a rule that a
surviving mutant broke."""
import json

import numpy as np
import pytest

import theorykit.analysis.exhaust as ex


# ------------------------------------------------------------------------------------------------
# race-exhaust: the summary's top 20 and the written outputs
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stand_in_race():
    """race_exhaust (k = 3) over every family with stood-in metrics: family f gets area 2 − f/1000 (so
    the area order is the reverse of the index order) and never reaches any fraction of L(0)."""
    labels = ex.exhaust_spec(3)[3]
    areas = iter([2 - f / 1000 for f in range(len(labels))])
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ex, "loss_metrics", lambda t, L, fr: {"area": next(areas), "t_0.5": None, "t_0.1": None,
                                                         "t_0.01": None, "final_fraction": 1.0, "L0": 1.0})
        res = ex.race_exhaust(3, steps=20, race_dt=2, progress=False, use_symmetry=False, curves_top=8)
    return res, labels


def test_top20_is_the_twenty_smallest_areas_in_order(stand_in_race):
    """docs/race_k4.md: exhaust.json holds "the top 20". With 127 families of areas 2 − f/1000, the 20
    smallest are those of families 126, 125, …, 107 (areas 1.874 … 1.893), ranked 1 … 20."""
    res, labels = stand_in_race
    top = res.summary["top20_by_area"]
    assert [r["family"] for r in top] == [labels[f] for f in range(126, 106, -1)]
    assert [r["rank_area"] for r in top] == list(range(1, 21))
    assert top[0]["area"] == pytest.approx(2 - 126 / 1000, rel=1e-15)


def test_write_outputs_ranks_every_family_and_plots_loss_against_steps(stand_in_race, monkeypatch, tmp_path):
    """exhaust.json's ranking_by_area lists every family by rank (1 … 127: the reverse index order
    here), and the figure plots each kept curve as L/L(0) (y) against the gradient step (x): the
    named sets (present: all four at k = 3) and, of the top families (curves_top = 8 kept), the first
    5 by area (families 126 … 122), each once."""
    res, labels = stand_in_race
    figs = []
    real_png = ex.write_figure
    monkeypatch.setattr(ex, "write_figure", lambda fig, path, **kw: (figs.append(fig), real_png(fig, path, **kw))[1])
    paths = ex.write_outputs(res, tmp_path / "new" / "dir")        # folders made as needed
    data = json.loads(paths["json"].read_text())
    assert [r["rank_area"] for r in data["ranking_by_area"]] == list(range(1, 128))
    assert [r["family"] for r in data["ranking_by_area"]] == labels[::-1]
    assert paths["figure"].name == "race_k3.png" and paths["figure"].stat().st_size > 0
    lines = figs[0].axes[0].get_lines()
    named = set(ex.named_families(3, labels).values())
    assert len(named) == 4 and len(lines) == len(named | {labels[f] for f in range(126, 121, -1)})
    # legend: a named set as "name (#rank)" (rank of family f: 127 − f here), a top family as "#r label"
    want = {f"{nm} (#{127 - labels.index(lab)})" for nm, lab in ex.named_families(3, labels).items()}
    want |= {f"#{127 - f} {labels[f]}" if len(labels[f]) < 40 else f"#{127 - f}"
             for f in range(126, 121, -1) if labels[f] not in named}
    assert {ln.get_label() for ln in lines} == want
    for ln in lines:
        np.testing.assert_array_equal(ln.get_xdata(), res.t)
        assert ln.get_ydata()[0] == pytest.approx(1.0, rel=1e-6)        # L(0)/L(0)
    # right panel: every family's area, sorted, against its rank 1 … 127
    curve = figs[0].axes[1].get_lines()[0]
    np.testing.assert_array_equal(curve.get_xdata(), np.arange(1, 128))
    np.testing.assert_allclose(curve.get_ydata(), sorted(2 - f / 1000 for f in range(127)), rtol=1e-15)
    # and one marker per named set at (its rank, its area): family f has rank 127 − f and area 2 − f/1000
    marks = {ln.get_label(): (ln.get_xdata()[0], ln.get_ydata()[0]) for ln in figs[0].axes[1].get_lines()[1:]}
    want = {f"{nm}: #{127 - labels.index(lab)}": (127 - labels.index(lab), 2 - labels.index(lab) / 1000)
            for nm, lab in ex.named_families(3, labels).items()}
    assert marks.keys() == want.keys()
    for lab, (x, y) in want.items():
        assert marks[lab][0] == x and marks[lab][1] == pytest.approx(y, rel=1e-15)


def test_named_families_at_k_4_by_hand():
    """named_families' docstring: common only, common + all r-context pathways (r = 1 … k−1), all
    (the last label). k = 4: singles 1…4, doubles the six pairs, triples the four triples, each in
    the lexicographic order of its contexts."""
    assert ex.named_families(4, ["common", "1", "every"]) == {
        "common only": "common",
        "common + singles": "common+1+2+3+4",
        "common + doubles": "common+12+13+14+23+24+34",
        "common + triples": "common+123+124+134+234",
        "all": "every"}


@pytest.mark.parametrize("k", [1, 0, 3.0, "3"])
def test_exhaust_spec_needs_an_integer_k_of_at_least_2(k):
    """"needs an integer k >= 2": one context has no proper non-empty subset (no family to race)."""
    with pytest.raises(ex.SpecError) as e:
        ex.exhaust_spec(k)
    assert e.value.field == "--k"


# ------------------------------------------------------------------------------------------------
# gates.py: the census pools seeds
# ------------------------------------------------------------------------------------------------
from theorykit.theory.gates import UnitGates, context_census, layer_activity, tally, unit_gates  # noqa: E402

# 2 contexts × 2 items, context-major columns (c1 i1, c1 i2, c2 i1, c2 i2)
_TWO_SEEDS = np.array([[[1, 1, 1, 1],      # seed 0: common
                        [1, 1, 0, 0],      #         on in context 1: single-context
                        [1, 0, 0, 0]],     #         one datapoint: exact "other"; majority on in context 1
                       [[0, 0, 1, 1],      # seed 1: single-context
                        [0, 0, 0, 0],      #         silent
                        [1, 1, 1, 1]]], bool)


def test_context_census_pools_every_count_over_seeds():
    """"counted by class over all leading axes (seeds pooled)": 2 seeds × 3 units, unit weights (1, 1,
    0.001) and (1, 1, 1); a unit is significant above 1 % of its own network's largest weight, so seed
    0's third unit is not. Significant units, majority rule: common (seed 0 unit 0, seed 1 unit 2),
    single-context (seed 0 unit 1, seed 1 unit 0), silent (seed 1 unit 1): 2, 2, 1 -- one pooled count
    each, not one per seed. All units, exact rule: common 2, single-context 2, other 1, silent 1."""
    w = np.array([[1.0, 1.0, 0.001], [1.0, 1.0, 1.0]])
    out = context_census(_TWO_SEEDS, 2, weights=w)
    assert out["all"] == {"common": 2, "k-1-context": 0, "single-context": 2, "other-context": 0, "other": 1,
                          "silent": 1}
    assert out["majority"] == {"common": 2, "k-1-context": 0, "single-context": 3, "other-context": 0,
                               "silent": 1}
    assert out["significant_majority"] == {"common": 2, "k-1-context": 0, "single-context": 2,
                                           "other-context": 0, "silent": 1}
    assert out["significant"] == {"common": 2, "k-1-context": 0, "single-context": 2, "other-context": 0,
                                  "other": 0, "silent": 1}
    assert all(type(v) is int for v in out["significant_majority"].values())
    # weight share, pooled: common 2 of the total 5.001
    assert out["weight_share_majority"]["common"] == pytest.approx(2 / 5.001, rel=1e-12)


# ------------------------------------------------------------------------------------------------
# lemmas.py: distance from a context-only gating
# ------------------------------------------------------------------------------------------------
from theorykit.theory.lemmas import context_gating_mismatch, interlacing_holds, pattern_from_gates  # noqa: E402


def test_context_gating_mismatch_by_hand():
    """n = 3 items, k = 2 contexts, context-major (columns c1 i1..i3, c2 i1..i3). Per context the cost
    is min(Σ|pre| where pre < 0, Σ pre where pre > 0), summed, over Σ|pre|:
    (1, −1, 2 | −4, 0, 5): min(1, 3) + min(4, 5) = 5 over 13 (reading the columns item-major, in
    pairs, would give min(1,1) + min(4,2) + min(0,5) = 3 instead);
    (1, 2, 3 | −1, −1, −2): on for context 1, off for context 2: 0;
    all zero: 0 (no activity to mismatch, not 0/0)."""
    pre = np.array([[1.0, -1.0, 2.0, -4.0, 0.0, 5.0],
                    [1.0, 2.0, 3.0, -1.0, -1.0, -2.0],
                    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    [0.01, -0.01, 0.02, -0.04, 0.0, 0.05]])     # the first unit scaled by 1/100: still 5/13
    np.testing.assert_allclose(context_gating_mismatch(pre, 3, 2), [5 / 13, 0.0, 0.0, 5 / 13], rtol=1e-14, atol=0)


def test_layer_activity_with_a_dead_first_layer_has_no_all_on_share():
    """X = I₂, one first-layer unit of weights (−1, −1): never on, so no live unit. The share of live
    units on for every datapoint is 0 of 0 live units, reported as 0 (max(live, 1) in the denominator),
    not 0/0; the weight on all-on units is likewise 0."""
    a = layer_activity([np.array([[-1.0, -1.0]]), np.array([[1.0]]), np.array([[1.0]])], np.eye(2), blocks=1)
    assert a["first_all_on_units"] == 0.0
    assert a["first_all_on_weight"] == 0.0


def test_layer_activity_weight_shares_do_not_depend_on_the_weights_scale():
    """X = I₂ (one block). First-layer rows 0.1·(1, 1) (on for both datapoints) and 0.1·(1, −1) (on for
    the first only), second layer 0.1·(1, 1): unit weights ‖w1_u‖·‖W2[:, u]‖ = 0.1√2 · 0.1 each, a total
    of 0.02√2 < 1. Shares are relative to that total: the all-on unit carries ½, and the weighted mean
    share of datapoints a unit is on for is (1 + ½)/2 = ¾ (the same as with weights of order 1)."""
    W1 = 0.1 * np.array([[1.0, 1.0], [1.0, -1.0]])
    W2 = 0.1 * np.array([[1.0, 1.0]])
    a = layer_activity([W1, W2, np.array([[1.0]])], np.eye(2), blocks=1)
    assert a["first_all_on_weight"] == pytest.approx(0.5, rel=1e-12)
    assert a["first_on_fraction_weighted"] == pytest.approx(0.75, rel=1e-12)
    assert a["first_all_on_units"] == 0.5


# ------------------------------------------------------------------------------------------------
# lemmas.py: poly-Bernoulli at zero sizes
# ------------------------------------------------------------------------------------------------
from theorykit.theory.lemmas import poly_bernoulli  # noqa: E402


def test_poly_bernoulli_at_zero_sizes_counts_the_one_empty_matrix():
    """B_n^(−k) counts the n × k lonesum matrices; with no rows or no columns there is exactly one,
    the empty matrix. By the sum: only m = 0, (0!)² S(n+1, 1) S(k+1, 1) = 1 (S(j, 1) = 1)."""
    assert poly_bernoulli(0, 3) == 1
    assert poly_bernoulli(2, 0) == 1
    assert poly_bernoulli(0, 0) == 1



# ------------------------------------------------------------------------------------------------
# race-exhaust: settings of the wrong type are refused by name (fixed: raw TypeErrors, or a numpy k refused)
# ------------------------------------------------------------------------------------------------
def test_exhaust_spec_takes_a_numpy_integer_k():
    """k = np.int64(2) is an integer k ≥ 2 (it was refused as "needs an integer"): 1 + (2² − 2) = 3
    pathways and 2³ − 1 = 7 families (module docstring), as for k = 2."""
    _, _, masks, labels = ex.exhaust_spec(np.int64(2))
    assert masks.shape == (7, 3) and labels == ex.exhaust_spec(2)[3]


@pytest.mark.parametrize("kw, field", [({"batch": 2.5}, "batch"), ({"batch": "8"}, "batch"),
                                       ({"batch": True}, "batch"), ({"race_dt": "x"}, "race_dt"),
                                       ({"race_dt": float("nan")}, "race_dt")])
def test_race_exhaust_refuses_settings_of_the_wrong_type_by_name(kw, field):
    """A batch of 2.5 or "8" and a race_dt of "x" raised raw TypeErrors (range() of a float, "<" of a
    string); they are refused naming the keyword (the command line names its option), as 0 is
    (tests/test_predict_rules.py)."""
    with pytest.raises(ex.SpecError) as e:
        ex.race_exhaust(3, steps=20, progress=False, **kw)
    assert e.value.field == field


def test_unit_gates_threshold_is_tol_times_each_units_largest_magnitude():
    """on where pre > tol · max_ν |pre_ν|, per unit. tol = 0.25: unit (4, 1, 1.5) has threshold 1, so
    (on, off: 1 does not exceed 1, on); unit (−8, 1, 3) has threshold 0.25 · 8 = 2 (the largest
    magnitude is a negative pre-activation): (off, off, on); unit (0.4, 0.11, 0.05): threshold 0.1,
    (on, on, off) -- the same rule at any scale."""
    pre = np.array([[4.0, 1.0, 1.5], [-8.0, 1.0, 3.0], [0.4, 0.11, 0.05]])
    want = [[True, False, True], [False, False, True], [True, True, False]]
    assert unit_gates(pre, tol=0.25).tolist() == want
    # leading axes kept (seeds × H × P): the largest magnitude is still taken over the datapoints
    assert unit_gates(np.stack([pre, pre[::-1]]), tol=0.25).tolist() == [want, want[::-1]]


def test_tally_weighted_sums_stay_weighted():
    """share=False gives the (weighted) sums, "as ints when unweighted": weights 0.5 and 1.5 on the
    units in class a give 0.5 (network 0) and 2.0 (network 1), not their integer parts; unweighted,
    the counts are ints."""
    m = {"a": np.array([[True, False], [True, True]])}
    w = np.array([[0.5, 1.0], [0.5, 1.5]])
    assert tally(m, w, share=False)["a"].tolist() == [0.5, 2.0]
    assert tally(m, w, pooled=True, share=False) == {"a": 2.5}
    counts = tally(m, share=False)["a"]
    assert counts.tolist() == [1, 2] and counts.dtype.kind == "i"


def test_interlacing_default_tolerance_is_32_eps_max_dim_sigma1(monkeypatch):
    """interlacing_holds' docstring: tol = 32 · eps · max(m, n) · σ₁(A). Stood-in bounds for a 4 × 2
    matrix with σ₁ = 1 (tol = 128 eps): σ₁(B) above σ₁(A) by 126 eps holds, by 130 eps does not; below
    the lower bound likewise."""
    from theorykit.theory import lemmas

    eps = np.finfo(float).eps
    monkeypatch.setattr(lemmas, "top_singular_value", lambda A: 1.0)
    for over, holds in ((126 * eps, True), (130 * eps, False)):
        monkeypatch.setattr(lemmas, "interlacing_bounds", lambda A, r, c: (np.array([1.0]), np.array([1.0 + over]),
                                                                           np.array([0.0])))
        assert lemmas.interlacing_holds(np.zeros((4, 2)), [], []) is holds
        monkeypatch.setattr(lemmas, "interlacing_bounds", lambda A, r, c: (np.array([1.0]), np.array([0.5 - over]),
                                                                           np.array([0.5])))
        assert lemmas.interlacing_holds(np.zeros((4, 2)), [], []) is holds


def test_unit_gates_need_units_and_datapoints_and_match_per_network():
    """Patterns are (..., H, P): one flat pattern (no units axis) is refused. matches() compares each
    unit's pattern over the datapoints (the last axis), leading axes kept: 2 seeds × 2 units × 3
    datapoints, named pattern (1, 0, 1): seed 0 unit 1 and seed 1 unit 0 match."""
    with pytest.raises(ValueError, match="must be"):
        UnitGates(np.array([True, False, True, True]))
    on = np.array([[[1, 1, 1], [1, 0, 1]], [[1, 0, 1], [0, 0, 0]]], bool)
    assert UnitGates(on).matches([(1, 0, 1)]).tolist() == [[False, True], [True, False]]


def test_context_symmetries_refuse_a_task_of_the_wrong_size_by_name():
    """n = 1 item, k = 2 contexts need n·k = 2 datapoints; a task with 3 is refused naming "task" and
    saying how many it has."""
    import sympy as sp
    from theorykit.spec.task import Task

    task = Task(sp.Matrix([[1, 0, 0], [0, 1, 1]]), sp.Matrix([[1, 1, 1]]))
    with pytest.raises(ex.SpecError) as e:
        ex.context_symmetries(task, 1, 2)
    assert e.value.field == "task" and "expected n·k = 2 datapoints, got 3" in str(e.value)


def test_interlacing_takes_any_tolerance_of_at_least_zero():
    """tol ≥ 0 is a tolerance ("give tol ≥ 0"): 0 (exact comparisons) and 0.5 are taken; −0.5 and nan
    are refused naming tol. diag(2, 1) minus its second row and column: B = [2], σ(B) = 2 = σ₁(A) and
    σ₁(B) = 2 ≥ σ₂(A) = 1, so it holds even with tol = 0 (the singular values of a diagonal matrix
    are exact)."""
    from theorykit.errors import SpecError
    from theorykit.theory.lemmas import interlacing_holds

    A = np.diag([2.0, 1.0])
    assert interlacing_holds(A, [1], [1], tol=0.0) is True
    assert interlacing_holds(A, [1], [1], tol=0.5) is True
    for bad in (-0.5, float("nan")):
        with pytest.raises(SpecError) as e:
            interlacing_holds(A, [1], [1], tol=bad)
        assert e.value.field == "tol"


def test_removed_indices_must_lie_below_the_size():
    """rows_removed / cols_removed are indices in 0 … m−1 / 0 … n−1: on a 3 × 2 matrix, row 3 and
    column 2 are one past the end and are refused by name (not read as "nothing removed")."""
    from theorykit.errors import SpecError

    A = np.ones((3, 2))
    for rows, cols, field in (([3], [], "rows_removed"), ([], [2], "cols_removed")):
        with pytest.raises(SpecError) as e:
            interlacing_holds(A, rows, cols)
        assert e.value.field == field
    assert interlacing_holds(A, [2], [1])          # the last row and column are fine


def test_pattern_from_gates_keeps_a_units_axis():
    """H × P gates (P = n·k context-major) → H × n × k patterns, G[h, i, c] = gates[h, c·n + i].
    n = 2 items, k = 3 contexts; unit 0 on for (c1, i1), (c2, i2), (c3, i1); unit 1 for context 2."""
    gates = np.array([[1, 0, 0, 1, 1, 0], [0, 0, 1, 1, 0, 0]])
    want = [[[1, 0, 1], [0, 1, 0]], [[0, 1, 0], [0, 1, 0]]]
    assert pattern_from_gates(gates, 2, 3).astype(int).tolist() == want


def test_staircase_weights_divide_the_context_ranks_by_the_scale():
    """staircase_weights' docstring: a_i = r_i − ½, s·b_c = −ρ_c. Pattern rows (1, 1, 0), (1, 0, 0):
    column on-counts 2, 1, 0, so ranks ρ = 0, 1, 2 and r = (2, 1); with s = 2, b = −ρ/2 = (0, −½, −1)
    and a = (1.5, 0.5); the pre-activations a_i + s b_c = (1.5, 0.5, −0.5 | 0.5, −0.5, −1.5) give back
    the pattern."""
    from theorykit.theory.lemmas import gate_pattern, staircase_weights

    G = np.array([[1, 1, 0], [1, 0, 0]], bool)
    a, b = staircase_weights(G, context_scale=2.0)
    assert a.tolist() == [1.5, 0.5] and b.tolist() == [0.0, -0.5, -1.0]
    assert gate_pattern(a, b, 2.0).tolist() == G.tolist()


@pytest.mark.parametrize("blocks,got", [(2.0, "a float 2.0"), ("2", "a string '2'"), (True, "a boolean True")])
def test_unit_gates_refuses_a_block_count_that_is_not_a_whole_number(blocks, got):
    """``blocks`` counts contexts: 2.0, "2" or True is refused by name (2.0 raised a raw TypeError from
    numpy's reshape), in the words of the one integer rule; numpy's integers are taken, as a plain int."""
    on = np.ones((1, 4), dtype=bool)
    with pytest.raises(ValueError) as e:
        UnitGates(on, blocks=blocks)
    assert e.value.field == "blocks" and e.value.problem == f"needs an integer, got {got}"
    assert e.value.fix.startswith("a whole number of contexts")
    assert UnitGates(on, blocks=np.int64(2)).items == 2 and type(UnitGates(on, blocks=np.int64(2)).blocks) is int
