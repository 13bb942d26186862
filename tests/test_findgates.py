"""Finding gates (Algorithm 1), the exact ReLN (Definition 3.1) and the numeric race reduction."""
import numpy as np
import pytest

from theorykit import Derivation, contexts, load_spec, spec_to_toml, xor_margin
from theorykit.analysis import findgates as fg
from theorykit.analysis import _runs as fr
from theorykit.analysis import reln as fl
from theorykit.sim.simulation import gdln_forward, relu_forward

pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def ctx():
    return contexts(8, 3, blocks=["hierarchy", "ring", "cross"]).numeric()


# ------------------------------------------------------------------------------------------------
# Exact ReLN (Definition 3.1)
# ------------------------------------------------------------------------------------------------
def test_exact_reln_forward_equals_relu_at_every_checkpoint(ctx):
    X, Y = ctx
    run = fr.train_relu(X, Y, hidden=24, lr=0.02, steps=400, seeds=2, init_std=0.1, every=50, keep_params=True)
    n_ck = len(run.t_ck)
    assert n_ck == 9 and run.params_ck[0].shape[:2] == (2, n_ck)
    changed = False
    for s in range(2):
        first = None
        for c in range(n_ck):
            params = [W[s, c] for W in run.params_ck]
            a = np.asarray(fl.exact_reln_outputs(params, X))
            b = np.asarray(relu_forward(params, X))
            # both sum the same H products; float64 rounding only
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(b, run.outputs[s, c], rtol=1e-10, atol=1e-12)
            gates = np.asarray(params[0] @ X > 0)
            first = gates if first is None else first
            changed |= bool((gates != first).any())
    # the gates move during training, so a fixed-gate GDLN could not have passed this
    assert changed


@pytest.mark.parametrize("hidden", [16, [12, 12]])
def test_exact_reln_trained_side_by_side_tracks_relu(ctx, hidden):
    X, Y = ctx
    t, ro, lo = fr.exact_reln_trajectory(X, Y, hidden=hidden, lr=0.02, steps=300, init_std=0.3, every=25)
    assert ro.shape == lo.shape == (len(t), Y.shape[0], X.shape[1])
    assert np.max(np.abs(ro[-1] - ro[0])) > 0.1          # it learned something
    # the ReLN's gradient with the ReLU gates held fixed is the ReLU gradient (ReLU' = gate), so the
    # two weight trajectories coincide; tolerance: float64 rounding accumulated over 300 steps
    np.testing.assert_allclose(lo, ro, rtol=0, atol=1e-10 * max(1.0, np.abs(ro).max()))


def test_fixed_gates_do_not_track(ctx):
    """Control: a GDLN with the ReLU network's *initial* gates frozen is not the exact ReLN."""
    X, Y = ctx
    run = fr.train_relu(X, Y, hidden=16, lr=0.02, steps=300, seeds=1, init_std=0.3, every=300, keep_params=True)
    g0 = np.asarray(run.snapshots[0, 0], float)              # H × P at t = 0
    gd = fr.train_gdln(X, Y, g0, hidden=[1] * 16, lr=0.02, steps=300, seeds=1, init_std=0.3, every=300)
    # same initial weights (paired seeds): identical at t = 0, different once gates move
    np.testing.assert_allclose(gd.outputs[0, 0], run.outputs[0, 0], atol=1e-12)
    assert np.max(np.abs(gd.outputs[0, -1] - run.outputs[0, -1])) > 1e-3


# ------------------------------------------------------------------------------------------------
# Trainers against independent implementations
# ------------------------------------------------------------------------------------------------
def test_train_relu_matches_numpy_gradient_descent(ctx):
    """train_relu against plain numpy gradient descent (tests/_gd_reference.py) from its own step-0
    weights: the loss at every step, the weights at every checkpoint, and the activity snapshots
    (1 where the numpy pre-activation W1 X is positive)."""
    from _gd_reference import relu_gd

    X, Y = ctx
    a = fr.train_relu(X, Y, hidden=20, lr=0.01, steps=250, seeds=2, init_std=0.05, loss="sum", every=100,
                      keep_params=True)
    # records every 100 steps (0, 100, 200), then the final state, as the docstring and SaveAt(every=…) say
    # (it used to skip 200, the start of a block shorter than 100)
    assert list(a.t_ck) == [0, 100, 200, 250] and a.snapshots.shape[1] == 3
    W1s, W2s = a.params_ck
    for s in range(2):
        ref, _, _ = relu_gd(W1s[s, 0], W2s[s, 0], X, Y, lr=0.01, steps=250, loss="sum")
        assert ref[-1] < 0.9 * ref[0]
        np.testing.assert_allclose(a.loss[s], ref, rtol=1e-10, atol=0)
        for j, t in enumerate(a.t_ck):
            _, W1, W2 = relu_gd(W1s[s, 0], W2s[s, 0], X, Y, lr=0.01, steps=int(t), loss="sum")
            np.testing.assert_allclose(W1s[s, j], W1, rtol=0, atol=1e-10 * np.abs(W1).max())
            np.testing.assert_allclose(W2s[s, j], W2, rtol=0, atol=1e-10 * np.abs(W2).max())
            np.testing.assert_allclose(a.outputs[s, j], W2 @ np.maximum(W1 @ X, 0), rtol=0, atol=1e-10)
            if j < 3:
                np.testing.assert_array_equal(a.snapshots[s, j], W1 @ X > 0)


def test_train_gdln_one_step_by_hand():
    """One GD step of the unit-gated GDLN against the gradient written out by hand (numpy)."""
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(3, 5)), rng.normal(size=(2, 5))
    G = np.array([[1, 1, 0, 0, 1], [0, 1, 1, 1, 0]], float)
    hid, lr, std = [3, 2], 0.1, 0.5
    g = fr.train_gdln(X, Y, G, hidden=hid, lr=lr, steps=1, seeds=1, init_std=std, loss="mean", every=1,
                      keep_params=True)
    W1, W2 = (w[0, 0] for w in g.params_ck)                    # initial stacked weights
    paths = fr.unstack_gdln([W1, W2], hid)
    P = X.shape[1]
    # ŷ = Σ_j g_j ⊙ (W2_j W1_j x); L = 1/(2P) Σ‖y − ŷ‖²
    Yh = sum((W2j @ W1j @ X) * G[j] for j, (W1j, W2j) in enumerate(paths))
    np.testing.assert_allclose(g.outputs[0, 0], Yh, atol=1e-12)
    np.testing.assert_allclose(
        np.asarray(gdln_forward(paths, X, list(G), [np.arange(3)] * 2, [np.arange(2)] * 2, 2)), Yh, atol=1e-12)
    E = (Y - Yh) / P
    new = []
    for j, (W1j, W2j) in enumerate(paths):
        Ej = E * G[j]
        dW2 = -Ej @ (W1j @ X).T
        dW1 = -W2j.T @ Ej @ X.T
        new.append((W1j - lr * dW1, W2j - lr * dW2))
    Yh1 = sum((W2j @ W1j @ X) * G[j] for j, (W1j, W2j) in enumerate(new))
    np.testing.assert_allclose(g.outputs[0, 1], Yh1, atol=1e-12)
    np.testing.assert_allclose(g.loss[0], [0.5 * np.sum((Y - Yh) ** 2) / P, 0.5 * np.sum((Y - Yh1) ** 2) / P],
                               rtol=1e-12)


def test_train_gdln_many_against_numpy_gradient_descent():
    """Several gatings in one call: each equals plain numpy gradient descent on its unit-gated GDLN
    (h = G_units ⊙ W1 x, ŷ = W2 h, summed loss), from the stacked initial weights train_gdln draws;
    gatings of two total widths exercise the grouping."""
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(4, 7)), rng.normal(size=(3, 7))
    Gs = [np.ones((1, 7)), (rng.random((3, 7)) > 0.4).astype(float), (rng.random((2, 7)) > 0.3).astype(float)]
    Hs = [[6], [2, 2, 2], [3, 2]]
    lr, steps = 0.01, 40
    runs = fr.train_gdln_many(X, Y, Gs, Hs, lr=lr, steps=steps, seeds=2, init_std=0.4, loss="sum", seed=5, every=10)
    for G, H, run in zip(Gs, Hs, runs):
        ref = fr.train_gdln(X, Y, G, hidden=H, lr=lr, steps=0, seeds=2, init_std=0.4, loss="sum", seed=5, every=1)
        Gu = np.repeat(G, H, axis=0)
        for s in range(2):
            W1, W2 = (w[s].copy() for w in ref.params)            # the initial stacked weights
            losses = []
            for _ in range(steps + 1):
                h = Gu * (W1 @ X)
                R = W2 @ h - Y
                losses.append(0.5 * np.sum(R ** 2))
                gW2, gW1 = R @ h.T, (Gu * (W2.T @ R)) @ X.T
                W1, W2 = W1 - lr * gW1, W2 - lr * gW2
            np.testing.assert_allclose(run.loss[s], losses, rtol=1e-11)
            assert losses[-1] < 0.5 * losses[0]                      # it learned
            np.testing.assert_allclose(run.params[0][s], W1 + lr * gW1, atol=1e-11)


# ------------------------------------------------------------------------------------------------
# Algorithm 1 pieces
# ------------------------------------------------------------------------------------------------
def test_kmeans_recovers_planted_patterns():
    rng = np.random.default_rng(1)
    P = 12
    planted = np.array([[1] * 12, [1] * 8 + [0] * 4, [0] * 4 + [1] * 8], dtype=int)
    counts = [300, 200, 100]
    rows = np.vstack([np.repeat(p[None], c, axis=0) for p, c in zip(planted, counts)]).astype(float)
    flip = rng.random(rows.shape) < 0.05                       # 5 % of entries flipped
    rows = np.abs(rows - flip)
    snaps = rows.reshape(2, 3, 100, P)                         # seeds × snapshots × units × P
    cl = fg.cluster_gates(fg.unit_rows(snaps), 3, seed=0, n_init=5)
    pats = fg.centroids_to_patterns(cl.centroids, cl.weights)
    assert {p for p, _ in pats} == {tuple(p) for p in planted}
    shares = dict(pats)
    for p, c in zip(planted, counts):
        # a row moves to another pattern when 2 or more of the 4 entries that tell its pattern from a
        # neighbour's flip (tie or closer): 6·0.05²·0.95² + 4·0.05³·0.95 + 0.05⁴ = 1.4 %, so about 0.7 % of
        # the 600 units move, with a binomial spread of √4.2/600 = 0.34 %; 0.02 is 6 spreads past the mean
        assert abs(shares[tuple(p)] - c / 600) < 0.02


def test_centroids_to_patterns_threshold_drop_merge():
    C = np.array([[0.9, 0.6, 0.1], [0.2, 0.3, 0.4], [0.7, 0.55, 0.0], [0.1, 0.1, 0.9]])
    w = np.array([4.0, 10.0, 2.0, 4.0])
    pats = fg.centroids_to_patterns(C, w)
    # rows 0 and 2 → (1, 1, 0) merged (share 6/10); row 1 → all zero, dropped; row 3 → (0, 0, 1) (4/10)
    assert pats == [((1, 1, 0), 0.6), ((0, 0, 1), 0.4)]
    # a tie is off (the docstring's rule): the centroid of two units with gates (1, 1, 0) and
    # (1, 0, 0) is (1, ½, 0), which reads as (1, 0, 0)
    assert fg.centroids_to_patterns(np.array([[1.0, 0.5, 0.0]]), np.array([2.0])) == [((1, 0, 0), 1.0)]


def test_choose_elbow_rules():
    Ks = [1, 2, 3, 4, 5]
    s = [10.0, 2.0, 1.1, 1.0, 0.95]
    # improvement: total = 9.05, threshold 0.905; K=2 still has 2.0 − 0.95 = 1.05 to gain; K=3 only 0.15
    assert fg.choose_elbow(Ks, s) == 3
    # chord on [0,1]²: y = (s − 0.95)/9.05 = [1, .116, .017, .006, 0], chord 1 − x: gaps [0, .634, .483, .245, 0]
    assert fg.choose_elbow(Ks, s, "chord") == 2
    assert fg.choose_elbow(Ks, [1, 1, 1, 1, 1]) == 1
    with pytest.raises(ValueError):
        fg.choose_elbow(Ks, s, "nope")


def test_hidden_split_and_ranks(ctx):
    X, Y = ctx
    pats = [(1,) * 24, (0,) * 8 + (1,) * 16]
    r = fg.pattern_ranks(X, Y, pats)
    # Σyx of the full context task has rank 10 (11 inputs; the item and context one-hots share the
    # all-ones direction: Σ items = Σ contexts, so X has rank 10)
    assert r[0] == 10 == np.linalg.matrix_rank(X)
    h = fg._hidden_split([0.97, 0.03], 100, [10, 9])
    assert sum(h) == 100 and h[1] >= 9


# ------------------------------------------------------------------------------------------------
# Specs: written, read back, derived
# ------------------------------------------------------------------------------------------------
def test_patterns_to_spec_roundtrip(tmp_path):
    task = xor_margin().subs({"Delta": 0.5})
    spec = fg.patterns_to_spec(task, [((1, 1, 0, 0), 0.5), ((0, 0, 1, 1), 0.5)], 32,
                               name="found")
    path = tmp_path / "found.toml"
    path.write_text(spec_to_toml(spec))
    back = load_spec(path)
    assert [p.active for p in back.pathways] == [(1, 1, 0, 0), (0, 0, 1, 1)]
    assert [p.hidden for p in back.pathways] == [16, 16]
    der = Derivation(back)
    assert der.method == "closed-form"                      # disjoint datapoints: decoupled
    # overlapping patterns couple: the race reduction
    spec2 = fg.patterns_to_spec(task, [((1, 1, 1, 1), 0.5), ((1, 1, 0, 0), 0.5)], 32)
    path.write_text(spec_to_toml(spec2))
    der2 = Derivation(load_spec(path))
    assert der2.method == "race-reduction"
    L = der2.predict_loss([0, 50])
    assert L[1] < L[0]


def _realisable_by_a_bias_free_unit(X, active) -> bool:
    """Lemma 4.1's condition, by linear programming (SciPy): some w has w·x > 0 exactly on the active
    datapoints (w·x_μ ≥ 1 where on, ≤ 0 where off; a strict margin can be scaled to 1)."""
    from scipy.optimize import linprog

    X = np.asarray(X, float)
    on = np.asarray(active, bool)
    A = np.vstack([-X[:, on].T, X[:, ~on].T])
    b = np.concatenate([-np.ones(on.sum()), np.zeros((~on).sum())])
    r = linprog(np.zeros(X.shape[0]), A_ub=A, b_ub=b, bounds=[(None, None)] * X.shape[0], method="highs")
    return r.status == 0


def test_find_gates_api_and_cli(tmp_path):
    from theorykit.cli import main

    task = xor_margin().subs({"Delta": 1})
    X, _ = task.numeric()
    found = fg.find_gates(task, K=2, seeds=2, steps=300, hidden=16, lr=0.05, every=100)
    # K = 2 clusters of the 16 units: two pathways holding all 16, with distinct gate patterns, each one
    # a bias-free ReLU unit can have (Lemma 4.1; checked by linear programming)
    assert found.K == 2 and len(found.spec.pathways) == 2
    assert sum(p.hidden for p in found.spec.pathways) == 16
    # one result type for a trained and an imported run: the run read, and its settings
    assert isinstance(found, fg.FoundGates) and (found.lr, found.loss) == (0.05, "mean")
    assert found.run.snapshots.shape[-2:] == (16, 4) and found.summary()["K"] == 2
    acts = [p.active for p in found.spec.pathways]
    assert len(set(acts)) == 2 and all(any(a) for a in acts)
    assert all(_realisable_by_a_bias_free_unit(X, a) for a in acts), acts
    # the LP can say no: the four points sum to zero, so no w is positive on all of them
    assert not _realisable_by_a_bias_free_unit(X, (1, 1, 1, 1))
    out = tmp_path / "found.toml"
    assert main(["find-gates", "xor-margin", "--set", "Delta=1", "--K", "2", "--seeds", "2", "--steps", "300",
                 "--hidden", "16", "--lr", "0.05", "--out", str(out), "--no-progress"]) == 0
    spec = load_spec(out)
    # the command line runs the same algorithm with the same settings: the same pathways
    assert [(p.active, p.hidden) for p in spec.pathways] == [(p.active, p.hidden) for p in found.spec.pathways]
    assert main(["derive", str(out), "--times", "0,10", "--json", str(tmp_path / "d.json")]) == 0
    assert main(["find-gates", "xor-margin", "--K", "2", "--out", str(out)]) == 2   # Delta missing


# ------------------------------------------------------------------------------------------------
# Numeric race reduction: weight-space balanced flow vs theorykit.theory.race (matrix-power form)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("depth", [2, 3])
def test_balanced_flow_matches_race_reduction(depth):
    from race_reference import scipy_race
    from theorykit.theory.race import RaceSystem

    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(3, 6)), rng.normal(size=(2, 6))
    G = np.array([[1, 1, 1, 1, 1, 1], [1, 0, 1, 0, 1, 1]], float)
    times = np.array([0.0, 5.0, 20.0, 60.0])
    a, _ = scipy_race(X, Y, G, a0=0.05, tau=2.0, times=times, depth=depth, form="maps", rtol=1e-8, atol=1e-12)
    b = RaceSystem.from_data(X, Y, G, depth=depth).solve(times, tau=2.0, a0=0.05).loss[0]
    assert a[-1] < 0.5 * a[0]
    # two integrators of one ODE at rtol 1e-8
    np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-9)


# ---------------------------------------------------------------------------------------------
# defects found in a review (each test fails before its fix)
# ---------------------------------------------------------------------------------------------
def test_elbow_ignores_a_K_that_kept_no_pattern():
    """Scores [inf, 10, 5, 1, 1]: K = 1 kept no pattern. On the finite part the improvement rule
    (threshold 5 % of 10 − 1 = 9) stops at K = 4; the infinite first score made the threshold
    infinite and picked K = 2."""
    assert fg.choose_elbow([1, 2, 3, 4, 5], [np.inf, 10, 5, 1, 1]) == fg.choose_elbow([2, 3, 4, 5], [10, 5, 1, 1]) == 4


def test_elbow_improvement_rule_at_exactly_the_threshold():
    """The improvement rule's boundary: scores [10, 1, 0] (exact in binary), total improvement 10,
    threshold 0.1 · 10 = 1. From K = 2 a larger K lowers the score by exactly 1, which is not *more*
    than 10 % of the total (choose_elbow's docstring), so the elbow is K = 2, not K = 3."""
    assert fg.choose_elbow([1, 2, 3], [10.0, 1.0, 0.0]) == 2
    assert fg.choose_elbow([1, 2, 3], [10.0, 1.0 + 2 ** -20, 0.0]) == 3      # just over: K = 3


def test_hidden_split_meets_the_total_when_the_largest_pathway_is_at_its_rank():
    """Shares ½, ½ of 4 units with ranks 3 and 1: rounding gives 2, 2, the rank floor 3, 2 (5 units).
    The largest pathway cannot give its extra unit back (it is at its rank 3), but the other can:
    3 + 1 = 4, each at least its rank."""
    assert fg._hidden_split([0.5, 0.5], 4, [3, 1]) == [3, 1]
    assert fg._hidden_split([0.6, 0.4], 10, [1, 1]) == [6, 4]          # the usual case is unchanged
    assert fg._hidden_split([0.5, 0.5], 3, [3, 2]) == [3, 2]           # ranks over the total: the ranks


def test_a_run_shorter_than_one_snapshot_interval_keeps_step_0():
    """steps = 50 with every = 100: checkpoints 0 and 50, one snapshot (step 0), as simulate does."""
    n, t_ck = fr._checkpoints(50, 100)
    assert n == 1 and t_ck.tolist() == [0, 50]
    assert fr._checkpoints(0, 100)[1].tolist() == [0]
    X, Y = xor_margin(0.5).numeric()
    run = fr.train_relu(X, Y, hidden=6, lr=0.05, steps=50, seeds=2, every=100)
    assert run.snapshots.shape == (2, 1, 6, 4)
