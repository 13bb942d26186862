"""The one unit-gate classifier (theorykit.theory.gates) against patterns written out by hand."""
import numpy as np
import pytest

from theorykit.theory.gates import (UnitGates, context_census, layer_activity, pathway_maps, read_units, significant,
                                      tally, unit_gates, unit_weights)

# three contexts × two items, context-major: columns (c1 i1, c1 i2, c2 i1, c2 i2, c3 i1, c3 i2)
PATTERNS = np.array([
    [1, 1, 1, 1, 1, 1],    # 0 common
    [1, 1, 0, 0, 1, 1],    # 1 on in contexts 1, 3
    [0, 0, 1, 1, 0, 0],    # 2 on in context 2
    [0, 0, 0, 0, 0, 0],    # 3 silent
    [1, 0, 1, 0, 1, 0],    # 4 item 1 only: not constant in a context; majority: on in every context
    [1, 0, 0, 0, 0, 0],    # 5 one datapoint; majority: on in context 1
    [1, 1, 1, 0, 0, 0],    # 6 staircase; majority: contexts 1, 2
], bool)
# written by hand from the rows above
EXACT = ["common", "k-1-context", "single-context", "silent", "other", "other", "other"]
MAJORITY = ["common", "k-1-context", "single-context", "silent", "common", "single-context", "k-1-context"]
MAJ_LABELS = ["common", "ctx13", "ctx2", "", "common", "ctx1", "ctx12"]
EXACT_LABELS = ["common", "ctx13", "ctx2", "", "", "", ""]
# share of each unit's datapoints that agree with its majority (per-context) reading
PURITY = [1.0, 1.0, 1.0, 1.0, 0.5, 5 / 6, 5 / 6]


def test_exact_and_majority_classes_by_hand():
    ex, mj = UnitGates(PATTERNS, blocks=3), UnitGates(PATTERNS, blocks=3, rule="majority")
    assert list(ex.classes) == EXACT
    assert list(mj.classes) == MAJORITY
    assert list(ex.labels()) == EXACT_LABELS
    assert list(mj.labels()) == MAJ_LABELS
    assert mj.purity == pytest.approx(PURITY)
    assert list(ex.consistent) == [True, True, True, True, False, False, False]
    assert list(ex.n_on) == [6, 4, 2, 0, 3, 1, 3]
    assert mj.blocks_on.tolist() == [3, 2, 1, 0, 3, 1, 2]
    assert ex.groups() == {"common": [0], "ctx13": [1], "ctx2": [2]}
    assert mj.groups() == {"common": [0, 4], "ctx13": [1], "ctx2": [2], "ctx1": [5], "ctx12": [6]}


def test_labels_from_twelve_contexts_on_are_not_ambiguous():
    # 12 contexts of one item: a unit on in contexts 1 and 2 and a unit on in context 12 alone would
    # both read "ctx12" in the digit form; from 10 contexts on the numbers are joined by "-".
    on = np.zeros((2, 12), bool)
    on[0, [0, 1]] = True
    on[1, 11] = True
    assert UnitGates(on, blocks=12).labels().tolist() == ["ctx1-2", "ctx12"]


def test_leading_axes_and_other_context():
    # four contexts, one item each: "on in two of four" is other-context
    g = np.array([[[1, 1, 0, 0], [1, 1, 1, 0]], [[0, 0, 0, 1], [1, 1, 1, 1]]], bool)    # 2 networks × 2 units
    ug = UnitGates(g, blocks=4)
    assert ug.classes.tolist() == [["other-context", "k-1-context"], ["single-context", "common"]]
    # two contexts: no k-1 class, one context on is single-context
    assert UnitGates(np.array([[1, 1, 0, 0]], bool), blocks=2).classes.tolist() == ["single-context"]
    with pytest.raises(ValueError):
        ug.groups()                                   # groups are read from one network
    with pytest.raises(ValueError):
        UnitGates(g, blocks=3)                        # 4 datapoints do not split into 3 blocks
    with pytest.raises(ValueError):
        UnitGates(g, blocks=2, rule="mean")


def test_gates_from_pre_activations_with_a_tolerance():
    pre = np.array([[1.0, 2.0, -1.0, -3.0],
                    [1.0, 1e-12, -1.0, -1.0],     # on the kink
                    [0.0, 0.0, 0.0, 0.0]])
    assert unit_gates(pre).tolist() == [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0]]
    assert unit_gates(pre, tol=1e-6).tolist() == [[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]]
    assert read_units(pre, tol=1e-6).on.tolist() == unit_gates(pre, tol=1e-6).tolist()
    assert read_units(pre > 0).on.tolist() == unit_gates(pre).tolist()
    ug = read_units(pre)
    assert ug.matches([(1, 1, 0, 0), (0, 0, 1, 1)]).tolist() == [True, True, False]
    assert ug.matches([]).tolist() == [False, False, False]


def test_tally_counts_and_shares():
    m = {"a": np.array([[1, 0, 1], [0, 0, 1]], bool), "b": np.array([[0, 1, 0], [1, 1, 0]], bool)}
    w = np.array([[1.0, 2.0, 1.0], [3.0, 0.0, 1.0]])
    per = tally(m)                                       # per network, unweighted shares
    assert per["a"].tolist() == pytest.approx([2 / 3, 1 / 3])
    assert tally(m, w)["a"].tolist() == pytest.approx([2 / 4, 1 / 4])
    assert tally(m, pooled=True, share=False) == {"a": 3, "b": 3}
    assert tally(m, w, pooled=True) == pytest.approx({"a": 3 / 8, "b": 5 / 8})
    keep = np.array([[True, True, False], [True, False, False]])
    assert tally(m, where=keep, pooled=True, share=False) == {"a": 1, "b": 2}
    assert tally(m, np.zeros((2, 3)), pooled=True) == {"a": 0.0, "b": 0.0}


def test_weights_and_significance():
    W1 = np.array([[3.0, 4.0], [0.0, 1.0], [0.0, 0.0]])       # H × d: norms 5, 1, 0
    W2 = np.array([[1.0, 2.0, 1.0]])                           # p × H: norms 1, 2, 1
    assert unit_weights(W1, W2).tolist() == pytest.approx([5.0, 2.0, 0.0])
    assert significant([5.0, 2.0, 0.0], 0.5).tolist() == [True, False, False]
    assert significant([5.0, 2.0, 0.04], 0.01).tolist() == [True, True, False]


def test_context_census_by_hand():
    w = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.005])        # unit 6 is not significant (< 1% of 1)
    out = context_census(PATTERNS, 3, weights=w)
    assert out["all"] == {"common": 1, "k-1-context": 1, "single-context": 1, "other-context": 0, "other": 3,
                          "silent": 1}
    assert out["majority"] == {"common": 2, "k-1-context": 2, "single-context": 2, "other-context": 0, "silent": 1}
    assert out["significant"]["other"] == 2
    assert out["significant_majority"]["k-1-context"] == 1
    assert out["majority_mean_purity"] == pytest.approx(np.mean(PURITY))
    assert out["significant_majority_mean_purity"] == pytest.approx(np.mean(PURITY[:6]))
    assert out["weight_share_majority"]["common"] == pytest.approx(2 / 6.005)
    assert "significant" not in context_census(PATTERNS, 3)


def test_pathway_maps_by_hand():
    # 2 items × 2 contexts; input = one-hot item ⊕ one-hot context
    gates = np.array([[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 0, 0]], bool)
    W1 = np.arange(12.0).reshape(3, 4)
    W2 = np.array([[1.0, 10.0, 100.0]])
    maps = pathway_maps(W1, W2, gates, 2)
    assert set(maps) == {"common", "ctx1"}
    assert maps["common"].tolist() == [[0.0, 1.0]]            # W2[:, 0] W1[0, :2]
    assert maps["ctx1"].tolist() == [[40.0, 50.0]]


def test_layer_activity_three_contexts():
    # one item per context: X = identity (3 datapoints); second layer units on in 3, 2, 1, 0 contexts
    X = np.eye(3)
    W1 = np.eye(3)                                            # first layer: each unit on for one datapoint
    W2 = np.array([[1.0, 1, 1], [1, 1, -5], [1, -5, -5], [-1, -1, -1]])
    W3 = np.array([[1.0, 2.0, 3.0, 4.0]])
    a = layer_activity([W1, W2, W3], X, blocks=3)
    assert a["first_all_on_units"] == 0.0
    assert a["first_on_fraction_weighted"] == pytest.approx(1 / 3)
    n2 = np.linalg.norm(W2, axis=1) * W3[0]
    assert a["second_weight_share"] == pytest.approx({"common": n2[0] / n2.sum(), "double": n2[1] / n2.sum(),
                                                     "single": n2[2] / n2.sum(), "none": n2[3] / n2.sum()})


def test_lemma_classes_by_hand():
    # the census of Lemma 4.1 on PATTERNS (3 contexts × 2 items), written out by hand, plus the XOR gate
    pats = np.vstack([PATTERNS, [[1, 0, 0, 1, 0, 0]]])
    want = ["always-on", "context-only", "context-only", "dead", "item-only", "single-datapoint",
            "other-staircase",   # on for (c1: both items), (c2: item 1): nested rows, a staircase
            "not-staircase"]     # item 1 in context 1, item 2 in context 2: the XOR no bias-free unit makes
    assert list(UnitGates(pats, blocks=3).lemma_classes()) == want
    # leading axes are kept
    assert UnitGates(np.stack([pats, pats]), blocks=3).lemma_classes().shape == (2, 8)
