"""Rules of Algorithm 1's pieces (theorykit.analysis.findgates) and of the exact ReLN
(theorykit.analysis.reln), each checked against a value derived by hand in the test (or by a
second method written here), never against a value the code under test produced."""
import numpy as np
import pytest

import theorykit as tk
from theorykit.analysis import findgates as fg
from theorykit.analysis import reln as fl
from theorykit.errors import SpecError
from theorykit.spec.task import as_task

pytest.importorskip("sklearn")


# ------------------------------------------------------------------------------------------------
# unit_rows, cluster_gates
# ------------------------------------------------------------------------------------------------
def test_unit_rows_order_and_a_single_axis_refused():
    """seeds × snapshots × units × P → rows in that order (seed slowest, unit fastest), 0/1 floats."""
    S = (np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5) % 2).astype(bool)
    rows = fg.unit_rows(S)
    assert rows.shape == (24, 5) and rows.dtype == float
    # row of (seed 1, snapshot 2, unit 3) is 1·12 + 2·4 + 3 = 23
    assert rows[23].tolist() == S[1, 2, 3].astype(float).tolist()
    with pytest.raises(ValueError, match="two axes"):
        fg.unit_rows(np.ones(5))             # one pattern, no units axis


def test_cluster_gates_weights_merged_duplicates_by_their_counts():
    """Rows a = 0000 (×100), b = 1000 (×100), c = 1111 (×1), K = 2. The three 2-clusterings cost
    (weighted within-cluster squared distance; a pair of weights w, v at squared distance d costs
    w v d / (w + v)): {a,b}|{c}: 100·100·1/200 = 50; {a}|{b,c}: 100·1·3/101 = 300/101;
    {a,c}|{b}: 100·1·4/101. So {a}|{b,c}: centroids 0000 (weight 100) and (100 b + c)/101 =
    (1, 1/101, 1/101, 1/101) (weight 101, listed first: heaviest first). Unweighted (each distinct row
    once) the best split would be {a,b}|{c} instead."""
    a, b, c = [0, 0, 0, 0], [1, 0, 0, 0], [1, 1, 1, 1]
    rows = np.array([a] * 100 + [b] * 100 + [c], float)
    cl = fg.cluster_gates(rows, 2, seed=0)
    np.testing.assert_allclose(cl.centroids, [[1, 1 / 101, 1 / 101, 1 / 101], [0, 0, 0, 0]], atol=1e-12)
    assert cl.weights.tolist() == [101.0, 100.0]
    assert cl.inertia == pytest.approx(300 / 101, rel=1e-9)
    with pytest.raises(ValueError, match="n_init"):
        fg.cluster_gates(rows, 2, n_init=4)
    fg.cluster_gates(rows, 2, n_init=5)     # the documented least


def test_more_clusters_than_distinct_rows_keeps_the_counts():
    """(1, 0) three times and (0, 1) once, K = 4: two distinct rows, so two real clusters of weights 3
    and 1; the two padding clusters weigh nothing and add no share: shares ¾ and ¼."""
    rows = np.array([[1, 0]] * 3 + [[0, 1]], float)
    cl = fg.cluster_gates(rows, 4)
    assert cl.centroids.shape == (4, 2) and sorted(cl.weights.tolist()) == [0.0, 0.0, 1.0, 3.0]
    assert cl.inertia == 0.0
    assert fg.centroids_to_patterns(cl.centroids, cl.weights) == [((1, 0), 0.75), ((0, 1), 0.25)]


# ------------------------------------------------------------------------------------------------
# centroids_to_patterns, pattern_ranks
# ------------------------------------------------------------------------------------------------
def test_centroid_threshold_is_one_half_and_weightless_clusters_are_dropped():
    # 0.45 is below ½: off; 0.9 on
    assert fg.centroids_to_patterns([[0.45, 0.9]], [2.0]) == [((0, 1), 1.0)]
    # a cluster of weight 0 (padding) gives no pathway, even with a non-zero pattern
    assert fg.centroids_to_patterns([[1, 0], [0, 1]], [3.0, 0.0]) == [((1, 0), 1.0)]
    # shares are of the kept clusters only: the all-off cluster's weight 5 is not counted
    assert fg.centroids_to_patterns([[0, 0], [1, 1], [0, 1]], [5.0, 1.0, 3.0]) == [((0, 1), 0.75), ((1, 1), 0.25)]


def test_pattern_ranks_by_hand():
    """X = I₂ (two datapoints, two inputs), Y = I₂: Σyx(g) = diag(g)/2, whose rank is the number of
    datapoints on. X = [[1, 1]], Y = [[1, −1]]: with both points on the two halves cancel (Σyx = 0,
    rank 0); with one, Σyx = ±½ (rank 1)."""
    I2 = np.eye(2)
    assert fg.pattern_ranks(I2, I2, [(1, 1), (1, 0), (0, 1), (0, 0)]) == [2, 1, 1, 0]
    assert fg.pattern_ranks([[1.0, 1.0]], [[1.0, -1.0]], [(1, 1), (1, 0), (0, 1)]) == [0, 1, 1]
    # X = [[.1, .2, .3]], Y = [[1, 1, −1]]: Σyx = (.1 + .2 − .3)/3 = 0, which floats leave as about 10⁻¹⁷:
    # rounding, not a dataset (rank 0)
    assert fg.pattern_ranks([[0.1, 0.2, 0.3]], [[1.0, 1.0, -1.0]], [(1, 1, 1)]) == [0]


def test_pattern_ranks_do_not_depend_on_the_data_scale():
    """Scaling X and Y by 10⁻⁵ (data down to 10⁻⁶ is accepted) scales every Σyx by 10⁻¹⁰ and changes no
    rank. An absolute cut-off at 10⁻⁹ read every pattern of such a task as rank 0, and
    patterns_to_spec refused it ("none of the found gate patterns has a non-zero effective dataset")."""
    X = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [1, 1, -1, -1]])     # xor-margin, Delta = 1
    Y = np.array([[1.0, 1, -1, -1]])
    pats = [(1, 1, 0, 0), (1, 1, 1, 1), (1, 0, 0, 0)]
    # by hand: Σyx(1100) ∝ Y[:, :2] X[:, :2]ᵀ = [0, 0, 2] (rank 1); 1111: [0, 0, 4]; 1000: [1, 1, 1]
    assert fg.pattern_ranks(X, Y, pats) == [1, 1, 1]
    assert fg.pattern_ranks(1e-5 * X, 1e-5 * Y, pats) == [1, 1, 1]
    spec = fg.patterns_to_spec(as_task((1e-5 * X, 1e-5 * Y)), [((1, 1, 0, 0), 0.5), ((0, 0, 1, 1), 0.5)], 8)
    assert [(p.active, p.hidden) for p in spec.pathways] == [((1, 1, 0, 0), 4), ((0, 0, 1, 1), 4)]


# ------------------------------------------------------------------------------------------------
# _hidden_split
# ------------------------------------------------------------------------------------------------
def test_hidden_split_rounds_to_nearest_and_gives_the_remainder_to_the_largest():
    """Shares .6, .2, .2 of 9 units: 5.4, 1.8, 1.8 round to 5, 2, 2 (9, nothing left over).
    Shares .44, .44, .12 of 10: 4.4, 4.4, 1.2 round to 4, 4, 1 (9); the one unit left goes to the
    largest pathway (the first of the two largest): 5, 4, 1."""
    assert fg._hidden_split([0.6, 0.2, 0.2], 9, [1, 1, 1]) == [5, 2, 2]
    assert fg._hidden_split([0.44, 0.44, 0.12], 10, [1, 1, 1]) == [5, 4, 1]
    # shares .2, .2, .6 of 8 with ranks 0, 3, 3: 1.6, 1.6, 4.8 round to 2, 2, 5, lifted to the ranks
    # 2, 3, 5 (10 units); the 2 over come off the largest pathway, which stays at its rank: 2, 3, 3
    assert fg._hidden_split([0.2, 0.2, 0.6], 8, [0, 3, 3]) == [2, 3, 3]
    # shares .1, .4, .5 of 8 with ranks 3, 0, 3: .8, 3.2, 4 round to 1, 3, 4, lifted to 3, 3, 4 (10).
    # The largest (4) cannot give 2 and keep its rank 3, so units come off one at a time from the
    # pathway most over its share, among those above their rank: pathway 3 (4 − 4 = 0 over, pathway 2
    # is 3 − 3.2 = −0.2), then pathway 2 (pathway 3 is at its rank now): 3, 2, 3
    assert fg._hidden_split([0.1, 0.4, 0.5], 8, [3, 0, 3]) == [3, 2, 3]
    # every pathway gets at least one unit even at rank 0 (a rank-0 pattern is dropped before this)
    assert fg._hidden_split([0.9, 0.1], 3, [0, 0]) == [2, 1]


def test_patterns_to_spec_drops_rank_0_patterns_and_splits_by_the_shares_kept():
    """X = I₃, Y = [1, 1, 0]: Σyx(g) = (g₁, g₂, 0)/3, so pattern 001 has rank 0 and is dropped. The two
    kept (shares ¼, ¼ of the clusters) split the 8 units by their shares among the kept, ½ and ½:
    4 and 4; depth as asked."""
    task = as_task((np.eye(3), np.array([[1.0, 1.0, 0.0]])))
    pats = [((0, 0, 1), 0.5), ((1, 0, 0), 0.25), ((0, 1, 0), 0.25)]
    spec = fg.patterns_to_spec(task, pats, 8, depth=3)
    assert [(p.active, p.hidden, p.depth) for p in spec.pathways] == [((1, 0, 0), 4, 3), ((0, 1, 0), 4, 3)]
    with pytest.raises(SpecError) as e:
        fg.patterns_to_spec(task, [((0, 0, 1), 1.0)], 8)
    assert e.value.field == "--K"


# ------------------------------------------------------------------------------------------------
# choose_elbow
# ------------------------------------------------------------------------------------------------
def test_improvement_rule_measures_from_the_first_score_not_the_largest():
    """Scores [2, 4, 0.3, 0] (K = 2 worse than K = 1): total improvement 2 − 0 = 2, threshold 0.2.
    From K = 3 a larger K still gains 0.3 > 0.2, so the elbow is K = 4 (measuring from the largest
    score, 4, the threshold would be 0.4 and K = 3)."""
    assert fg.choose_elbow([1, 2, 3, 4], [2.0, 4.0, 0.3, 0.0]) == 4


def test_improvement_rule_looks_at_every_larger_K_not_only_the_next():
    """Scores [10, 5, 4.8, 0]: total 10, threshold 1. K = 2 and 3 gain little over their next K
    (0.2 from 5 to 4.8), but from K = 3 the last K still gains 4.8: the elbow is K = 4."""
    assert fg.choose_elbow([1, 2, 3, 4], [10.0, 5.0, 4.8, 0.0]) == 4


def test_chord_rule_uses_the_K_values_and_the_chord_to_the_last_point():
    """Ks = 1, 2, 4, 8 with scores [1, 0.5, 0.2, 0] (already in [0, 1]): x = (K − 1)/7 =
    [0, 1/7, 3/7, 1], chord 1 − x = [1, .857, .571, 0], chord − y = [0, .357, .371, 0]: K = 4. (Equal
    steps in x, [0, 1/3, 2/3, 1], would give [0, .167, .133, 0]: K = 2.)
    Ks = 1 … 4 with scores [1, 0.2, 0, 0.5] (the last is not the lowest): chord from (0, 1) to
    (1, 0.5): [1, .833, .667, .5], chord − y = [0, .633, .667, 0]: K = 3 (a chord to (1, 0) would give
    [0, .467, .333, −.5]: K = 2)."""
    assert fg.choose_elbow([1, 2, 4, 8], [1.0, 0.5, 0.2, 0.0], "chord") == 4
    assert fg.choose_elbow([1, 2, 3, 4], [1.0, 0.2, 0.0, 0.5], "chord") == 3
    # scaled and shifted scores: the same K (both axes are scaled to [0, 1])
    assert fg.choose_elbow([1, 2, 4, 8], [7.0, 4.5, 3.0, 2.0], "chord") == 4


def test_elbow_threshold_default_is_one_tenth():
    """Scores [10, 1.5, 0]: total 10. At 10 % (threshold 1) K = 2 still gains 1.5: K = 3. At 20 % it
    would stop at K = 2."""
    assert fg.ELBOW_THRESHOLD == 0.1
    assert fg.choose_elbow([1, 2, 3], [10.0, 1.5, 0.0]) == 3
    assert fg.choose_elbow([1, 2, 3], [10.0, 1.5, 0.0], threshold=0.2) == 2


# ------------------------------------------------------------------------------------------------
# exact ReLN outputs of a network whose gates are known by hand
# ------------------------------------------------------------------------------------------------
# W1 rows: unit 1 reads x₁, unit 2 reads x₂, unit 3 reads x₁ − x₂. Datapoints (columns)
# (1, 0), (0, 1), (−1, −1), (2, 1): pre-activations (1, 0, 1), (0, 1, −1), (−1, −1, 0), (2, 1, 1);
# gates (on where > 0) (1, 0, 1), (0, 1, 0), (0, 0, 0), (1, 1, 1).
W1 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]])
X4 = np.array([[1.0, 0.0, -1.0, 2.0], [0.0, 1.0, -1.0, 1.0]])


def test_exact_reln_one_hidden_layer_by_hand():
    """W2 = [1, 2, 3]: output Σ_h W2[h] g_h (W1[h]·x) = 1·1 + 3·1 = 4; 2·1 = 2; 0; 1·2 + 2·1 + 3·1 = 7."""
    W2 = np.array([[1.0, 2.0, 3.0]])
    np.testing.assert_allclose(np.asarray(fl.exact_reln_outputs([W1, W2], X4)), [[4.0, 2.0, 0.0, 7.0]], atol=1e-12)


def test_exact_reln_two_hidden_layers_by_hand():
    """W2 = [[1, 0, 1], [0, 1, −1]], W3 = [1, −2]. Layer 1 (gated): (1, 0, 1), (0, 1, 0), 0, (2, 1, 1);
    layer 2 pre-activations (2, −1), (0, 1), 0, (3, 0), gated (2, 0), (0, 1), 0, (3, 0); output
    2, −2, 0, 3. Without the gates the second datapoint would give W3 W2 W1 x = −5."""
    W2 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, -1.0]])
    W3 = np.array([[1.0, -2.0]])
    np.testing.assert_allclose(np.asarray(fl.exact_reln_outputs([W1, W2, W3], X4)), [[2.0, -2.0, 0.0, 3.0]],
                               atol=1e-12)
    with pytest.raises(SpecError) as e:
        fl.exact_reln_outputs([W1, W2.T, W3], X4)        # 3 × 2 does not follow 3 × 2
    assert e.value.field == "params[1]"
    with pytest.raises(SpecError) as e:
        fl.exact_reln_outputs([W1, W2, W3], X4[:1])       # one input row; W1 reads two
    assert e.value.field == "X"


# ------------------------------------------------------------------------------------------------
# elbow_scores and find_gates on a ReLU run written by hand (the trainers replaced by stand-ins)
# ------------------------------------------------------------------------------------------------
# xor-margin at Delta = 1; four units, two gated on datapoints 1, 2 and two on 3, 4. K = 1: the
# centroid is ½ everywhere, which reads as all off: no pattern. K = 2: patterns 1100 and 0011, share
# ½ each; Σyx(1100) ∝ x₁ + x₂ = (0, 0, 2) and Σyx(0011) ∝ −x₃ − x₄ = (0, 0, 2), rank 1 each: widths
# 2 and 2 of the first layer's 4 units.
def _hand_run(hidden=(4,)):
    from theorykit.analysis._runs import ReluRun

    snaps = np.array([[[[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]]], bool)   # 1 seed, 1 snapshot
    settings = {"hidden": list(hidden), "lr": 0.05, "steps": 2, "seeds": 1, "init_std": 0.01, "loss": "mean",
                "seed": 0, "every": 1}
    return ReluRun(np.array([0, 1, 2]), np.array([[2.0, 1.0, 0.5]]), np.ones((1, 2, 1, 4)), snaps,
                   [], None, settings)


def test_elbow_scores_statistics_by_hand(monkeypatch):
    """The stand-in GDLN run: outputs 1.5 at the first checkpoint and 0 at the second (the ReLU's are 1
    throughout): differences ½ and −1, mse = (4·¼ + 4·1)/8 = 0.625. Losses ReLU [2, 1, 0.5], GDLN
    [2, 1.5, 0.5]: loss_mse = (½)²/3, loss_max_rel_err = ½ / 2 = ¼. K = 1 keeps no pattern: its mse
    is the ReLU outputs' mean square, 1. Widths split from the first hidden layer (4 units), even for
    a run with a second hidden layer (of 6)."""
    from theorykit.analysis._runs import GdlnRun

    calls = []

    def fake_many(X, Y, gate_sets, hidden_sets, **kw):
        calls.append(([g.tolist() for g in gate_sets], hidden_sets, kw))
        out = np.concatenate([np.full((1, 1, 1, 4), 1.5), np.zeros((1, 1, 1, 4))], axis=1)
        return [GdlnRun(np.array([0, 1, 2]), np.array([[2.0, 1.5, 0.5]]), out, []) for _ in gate_sets]

    monkeypatch.setattr(fg, "train_gdln_many", fake_many)
    X, Y = tk.xor_margin(1).numeric()
    recs = fg.elbow_scores(X, Y, _hand_run((4, 6)), Ks=[1, 2], gdln_seed=7)
    assert [r["K"] for r in recs] == [1, 2]
    assert recs[0]["patterns"] == [] and recs[0]["mse"] == 1.0 and recs[0]["hidden"] == []
    # (equal shares: their order is not a rule)
    assert sorted(tuple(p) for p in recs[1]["patterns"]) == [(0, 0, 1, 1), (1, 1, 0, 0)] and recs[1]["hidden"] == [2, 2]
    assert recs[1]["mse"] == pytest.approx(0.625, rel=1e-12)
    assert recs[1]["loss_mse"] == pytest.approx(0.25 / 3, rel=1e-12)
    assert recs[1]["loss_max_rel_err"] == pytest.approx(0.25, rel=1e-12)
    # one trainer call, for the one K that kept patterns, with the ReLU run's settings
    (gates, hidden, kw), = calls
    assert len(gates) == 1 and sorted(gates[0]) == [[0, 0, 1, 1], [1, 1, 0, 0]] and hidden == [[2, 2]]
    assert (kw["lr"], kw["steps"], kw["seeds"], kw["seed"], kw["every"]) == (0.05, 2, 1, 7, 1)
    # elbow_scores_from's own default for a K without patterns: +inf (never the elbow)
    recs2 = fg.elbow_scores_from(X, Y, fg.unit_rows(_hand_run().snapshots), [1, 2], 4, lambda rec: {"mse": 0.5})
    assert [r["mse"] for r in recs2] == [np.inf, 0.5]


def test_elbow_pick_returns_the_chosen_Ks_record():
    """Scores 10, 1, 0.95: total 9.05, threshold 0.905; from K = 2 only 0.05 more: K = 2, its record."""
    scores = [{"K": 1, "mse": 10.0}, {"K": 2, "mse": 1.0}, {"K": 3, "mse": 0.95}]
    notes = []
    K, rec, Ks = fg.elbow_pick(scores, "improvement", 0.1, notes)
    assert (K, rec, Ks) == (2, scores[1], [1, 2, 3]) and "K = 2" in notes[0]


def test_find_gates_with_K_given_on_a_hand_run(monkeypatch):
    """K = 3 on the hand run: two distinct unit rows, so two pathways (1100 and 0011, 2 units each of
    the 4), and a note that 3 clusters gave 2 patterns. The trainer is asked for the default width
    (100 for a task) with the given seed, on the task with the given values."""
    seen = {}

    def fake_relu(X, Y, **kw):
        seen.update(kw, X=np.asarray(X))
        return _hand_run()

    monkeypatch.setattr(fg, "train_relu", fake_relu)
    found = fg.find_gates(tk.xor_margin(), values={"Delta": 1}, K=3, seeds=1, steps=2, hidden=4, seed=5,
                          name="mine")
    # (equal shares: their order is not a rule)
    assert sorted((p.active, p.hidden) for p in found.spec.pathways) == [((0, 0, 1, 1), 2), ((1, 1, 0, 0), 2)]
    assert found.spec.name == "mine" and found.K == 3 and found.Ks == [3] and found.scores == []
    assert any("3 clusters gave 2" in n for n in found.notes)
    assert seen["seed"] == 5 and seen["hidden"] == 4
    np.testing.assert_array_equal(seen["X"], tk.xor_margin(1).numeric()[0])
    fg.find_gates(tk.xor_margin(1), K=2, seeds=1, steps=2)
    assert seen["hidden"] == 100


# ------------------------------------------------------------------------------------------------
# the elbow's settings are checked before any network trains
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw,field", [({"rule": "nope"}, "rule"), ({"threshold": -0.1}, "threshold"),
                                      ({"threshold": float("nan")}, "threshold"), ({"n_init": 2}, "n_init"),
                                      ({"n_init": 5.5}, "n_init")])
def test_find_gates_checks_the_elbow_settings_before_training(kw, field, monkeypatch):
    """rule = "nope" and n_init = 2 raised a ValueError only after every ReLU network and every GDLN
    of the elbow had trained; a negative threshold silently picked the largest K (no K's gain is at
    most a negative amount). Refused first now, naming the setting."""
    monkeypatch.setattr(fg, "train_relu", lambda *a, **k: pytest.fail("trained"))
    with pytest.raises(SpecError) as e:
        fg.find_gates(tk.xor_margin(1), seeds=1, steps=2, hidden=4, **kw)
    assert e.value.field == field


def test_choose_elbow_refuses_a_threshold_outside_0_1():
    with pytest.raises(ValueError, match="threshold"):
        fg.choose_elbow([1, 2, 3], [10.0, 1.0, 0.0], threshold=-0.1)
    assert fg.choose_elbow([1, 2, 3], [10.0, 1.0, 0.0], threshold=1.0) == 1     # every gain is within 100 %


def test_the_documented_fig9_curve_has_its_elbow_at_K_3_by_both_rules():
    """docs/figures/fig8-9.md: output MSE by K = 1 … 8 of 0.0112, 0.0067, 0.0014, 0.0011, 0.0008, 0.0008,
    0.0015, 0.0017, "Elbow at K = 3 … by both rules". By hand: improvement: total 0.0104, threshold
    0.00104; from K = 2 still 0.0059 to gain, from K = 3 0.0006: K = 3. Chord: y = (s − 0.0008)/0.0104
    = [1, .567, .058, .029, 0, 0, .067, .087], chord 1 − .913·(K − 1)/7; chord − y at K = 2, 3, 4:
    .303, .681, .580 (and smaller after): K = 3."""
    s = [0.0112, 0.0067, 0.0014, 0.0011, 0.0008, 0.0008, 0.0015, 0.0017]
    Ks = range(1, 9)
    assert fg.choose_elbow(Ks, s) == 3 == fg.choose_elbow(Ks, s, "chord")


def test_find_gates_in_run_checks_the_elbow_settings_first():
    """The imported-run form takes the same settings: refused before any GDLN trains (the run's
    activity is never read)."""
    from types import SimpleNamespace

    from theorykit.analysis.checkpoints import find_gates_in_run

    run = SimpleNamespace(X=np.eye(2), Y=np.eye(2), depth=2, widths=[4],
                          hidden_activity=lambda: pytest.fail("read the run"))
    for kw, field in [({"rule": "elbow"}, "rule"), ({"threshold": 2.0}, "threshold"), ({"n_init": 0}, "n_init")]:
        with pytest.raises(SpecError) as e:
            find_gates_in_run(run, lr=0.1, **kw)
        assert e.value.field == field
