"""Rules found untested by a hand mutation check of the simulation, the analysis and the suites' verdicts
(theorykit/sim, theorykit/net/starts.py and layout.py, theorykit/analysis, theorykit/curves.py and the
verdict logic of validation/xor.py, contexts.py, lemmas.py, gates.py, depth.py).

Each test kills a mutant that the earlier test files let through (a threshold moved, a factor changed, a
comparison flipped). Every expected value comes from a hand derivation in a comment, a row's own printed
criterion, docs/theory.md, or a second method computed here (numpy gradient descent from
tests/_gd_reference.py, scipy), never from a run of the code under test. Nothing trains for long: tiny
sizes, a few steps.
"""
from __future__ import annotations

import numpy as np
import pytest

from theorykit.suites import load_suite


class _Num(float):
    """A number that is also an empty mapping: fills every field of a claim row's inputs that a test does
    not set (the rows format the numbers and read nested dicts)."""

    def __new__(cls, v=0.0):
        return super().__new__(cls, v)

    def __getitem__(self, key):
        return _Num(0.0)

    def get(self, key, default=None):
        return _Num(0.0)

    def items(self):
        return []

    def values(self):
        return []


class _Fields(dict):
    def __missing__(self, key):
        return _Num(0.0)


# ------------------------------------------------------------------------------------------------
# depth: the first-layer gating row
# ------------------------------------------------------------------------------------------------
def _depth_row(first_all_on_weight, second=None):
    depth = load_suite("depth")
    g2 = second or {"common": 0.0, "double": 0.0, "single": 0.0, "none": 0.0}
    gating = _Fields(first_all_on_weight_mean=first_all_on_weight, second_weight_share_mean=g2)
    rows = depth._claims(gating, _Fields(), _Fields(), 0.0, {"one": float("nan"), "both": float("nan")},
                         _Fields(), 4)
    return rows


@pytest.mark.parametrize("share, verdict", [(0.95, "confirmed"), (0.9, "confirmed"), (0.7, "partly"),
                                            (0.1, "not borne out")])
def test_depth_first_layer_row_confirms_only_from_its_printed_threshold(share, verdict):
    # the row prints its own criterion: "share of first-layer weight on units on for all datapoints
    # (≥ 0.9 to confirm)"; 70 % of the weight is not that (a mutant confirming from 0.5 passed every test)
    row = _depth_row(share)[0]
    assert "≥ 0.9 to confirm" in row["agreement"]
    assert row["verdict"] == verdict


# ------------------------------------------------------------------------------------------------
# xor: the Fig. 2e agreement leaves out the Δ within the exclusion band around Δ*
# ------------------------------------------------------------------------------------------------
def test_xor_closest_is_faster_agreement_leaves_out_the_band_around_delta_star():
    """xor._measure on hand-built runs (no training; the construction of tests/test_xor_depth_suite_rules.py's
    ``measured`` fixture, cut down): over Δ = 0, 0.2, …, 2 every ReLU run is the faster ReLN's closed-form
    curve, except at Δ = 0.8, where it is the *slower* (linear) ReLN's. |0.8 − Δ*| = 0.0165 is inside the
    exclusion band 0.1 (CRITERIA, the row's criterion "|Δ − Δ*| > 0.1"), so the agreement of "closest =
    faster" over the Δ outside it is 10/10 = 1.0 (with the band ignored it would be 10/11)."""
    import math

    from test_xor_depth_suite_rules import hand_built_grid

    xor = load_suite("xor")
    dstar = math.sqrt(2 / 3)
    g = hand_built_grid(xor, 400)
    H, tau, seeds, theory, summary, task, relns, deltas, times, a0, cf = (
        g.H, g.tau, g.seeds, g.theory, g.summary, g.task, g.relns, g.deltas, g.times, g.a0, g.cf)
    sims = {n: np.repeat(cf[n][:, None], seeds, axis=1) for n in cf}
    faster = np.where(deltas > dstar, "linear", "xor")
    follows = faster.copy()
    follows[4] = "linear"                                   # Δ = 0.8: the slower ReLN's curve
    assert abs(deltas[4] - dstar) < xor.CRITERIA["exclusion_band"]
    relu = np.stack([sims[f][i] for i, f in enumerate(follows)])
    relu_lt = np.full((len(deltas), seeds), 100.0)
    sim_lt = {n: np.full((len(deltas), seeds), 100.0) for n in sims}
    W1 = np.ones((len(deltas), seeds, H, 3))
    W2 = np.ones((len(deltas), seeds, 1, H))
    Xs = np.stack([task.numeric({"Delta": float(x)})[0] for x in deltas])
    res = xor._measure({}, theory, summary, relns, deltas, times, tau, a0, relu, relu_lt, W1, W2, Xs, sims,
                       sim_lt, {n: v.copy() for n, v in sims.items()})
    tab = res["learning_time"]["table"]
    assert [r["closest_reln_by_loss_curve"] for r in tab] == follows.tolist()
    assert res["closest_reln"]["agreement_with_faster_away_from_crossover"] == 1.0


# ------------------------------------------------------------------------------------------------
# curves: the best grid row minimises the *largest* error (its docstring), not the mean one
# ------------------------------------------------------------------------------------------------
def test_best_grid_row_minimises_the_largest_error_over_l0():
    from theorykit.curves import best_grid_row

    # against ref = 0 with L0 = 2: row "a" is 0 but for one step of 1 (largest 1, mean 0.25), row "b" is
    # 0.5 throughout (largest 0.5, mean 0.5); the smallest largest error is row "b"'s, 0.5 / 2 = 0.25
    curves = np.array([[0.0, 0.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5]])
    row, err, curve = best_grid_row(lambda A: curves, np.array(["a", "b"]), np.zeros(4), 2.0)
    assert row == "b" and err == 0.25 and curve.tolist() == [0.5] * 4


# ------------------------------------------------------------------------------------------------
# starts: the shared-edge aligned start's mean path strength is a0 when the paths' c_e products differ
# ------------------------------------------------------------------------------------------------
def test_shared_edge_aligned_start_mean_strength_is_a0_with_unequal_edge_products():
    # three depth-3 paths on X = I₃, Y rank 1: input→h→a→output, input→h→b→output, input→c→b→output.
    # c_e ∝ √(paths through e) (aligned_params' docstring): input→h and b→output carry two paths (√2), the
    # rest one, so the paths' products are √2, 2, √2: unequal (their mean (2 + 2√2)/3 is not their largest).
    # Every path's map is c0³ Π c_e times a rank-1 partial isometry, and the start makes the *mean* strength
    # a0 (docstring: "the common factor makes the mean pathway strength a0"): numpy's SVD of each product
    # of edge weights gives the three strengths; their mean is a0, their ratios 1 : √2 : 1.
    from theorykit.net.starts import aligned_params
    from theorykit.spec.files import spec_from_dict

    g = spec_from_dict({
        "name": "three", "data": {"inputs": np.eye(3).tolist(), "targets": [[1.0, 2.0, 3.0]]},
        "nodes": [{"name": n, "width": 2} for n in ("h", "a", "b", "c")],
        "edges": [{"from": "input", "to": "h"}, {"from": "h", "to": "a"}, {"from": "a", "to": "output"},
                  {"from": "h", "to": "b"}, {"from": "b", "to": "output"}, {"from": "input", "to": "c"},
                  {"from": "c", "to": "b"}],
        "training": {"lr": 0.05, "loss": "mean", "a0": 1e-2, "steps": 10},
    })
    a0 = 1e-2
    W = {k: np.asarray(v[0]) for k, v in aligned_params(g, a0).items()}
    maps = [W["a->output"] @ W["h->a"] @ W["input->h"], W["b->output"] @ W["h->b"] @ W["input->h"],
            W["b->output"] @ W["c->b"] @ W["input->c"]]
    s = np.array([np.linalg.svd(M, compute_uv=False)[0] for M in maps])
    assert s.mean() == pytest.approx(a0, rel=1e-9)
    assert s / s[0] == pytest.approx([1.0, np.sqrt(2), 1.0], rel=1e-9)


# ------------------------------------------------------------------------------------------------
# findgates: the k-means seed reaches scikit-learn
# ------------------------------------------------------------------------------------------------
def test_cluster_gates_passes_its_seed_to_kmeans():
    # Algorithm 1's k-means is scikit-learn's KMeans(n_clusters=K, n_init, random_state=seed) on the distinct
    # rows weighted by their counts (cluster_gates' docstring). On these 30 random binary rows, five
    # restarts from seed 0 and from seed 1 end at different inertias (checked here with scikit-learn
    # itself), so a seed that does not reach KMeans shows.
    from sklearn.cluster import KMeans

    from theorykit.analysis.findgates import cluster_gates

    rows = (np.random.default_rng(0).random((30, 6)) < 0.5).astype(float)
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    ref = {s: KMeans(n_clusters=4, n_init=5, random_state=s).fit(uniq, sample_weight=counts).inertia_ for s in (0, 1)}
    assert abs(ref[0] - ref[1]) > 1e-6            # the two seeds do differ on these rows
    for s in (0, 1):
        cl = cluster_gates(rows, 4, seed=s, n_init=5)
        assert cl.inertia == pytest.approx(ref[s], rel=1e-12)
        assert cl.weights.sum() == 30


# ------------------------------------------------------------------------------------------------
# simulate: the a0= override, the gates' "> 0" rule; summary: the mode recorder keeps the sign
# ------------------------------------------------------------------------------------------------
def _xor_reln_spec():
    from pathlib import Path

    from theorykit.spec.files import load_spec

    return load_spec(Path(__file__).resolve().parents[1] / "examples" / "xor_reln.toml")


def test_simulate_a0_argument_sets_the_aligned_start():
    # an aligned start of strength a0 gives each pathway the map a0 U Vᵀ (aligned_params' docstring): the
    # top singular value of W2 W1 is a0 = 0.02 as passed, not the spec's training.a0 (1e-3)
    from theorykit.sim.simulation import simulate
    from theorykit.spec.graph import graph_from_pathways

    spec = _xor_reln_spec()
    assert spec.training.a0 != 0.02
    sim = simulate(spec, seeds=1, steps=1, values={"Delta": 1}, a0=0.02)
    W = sim.extra["initial_params"]
    for gp in graph_from_pathways(spec).pathways:
        k1, k2 = gp.edges
        M = np.asarray(W[k2][0]) @ np.asarray(W[k1][0])
        assert np.linalg.svd(M, compute_uv=False)[0] == pytest.approx(0.02, rel=1e-12)


def test_relu_gates_count_a_zero_pre_activation_as_off():
    # relu_gates' docstring: "1 where pre-activation > 0". Unit 0 has zero weights (pre-activation exactly
    # 0 everywhere): off at every datapoint; unit 1 = (1, −1): on where x₁ > x₂ only
    import jax.numpy as jnp

    from theorykit.sim.simulation import relu_gates

    X = jnp.asarray([[1.0, 0.0, 2.0], [0.0, 1.0, 2.0]])
    W1 = jnp.asarray([[0.0, 0.0], [1.0, -1.0]])
    g = np.asarray(relu_gates([W1, jnp.ones((1, 2))], X)[0])
    assert g.tolist() == [[False, False, False], [True, False, False]]


def test_mode_recorder_keeps_the_sign_of_a_mode_strength():
    # mode_recorder's docstring: strengths diag(Uᵀ W_p V). The aligned start's map is a0 U Vᵀ; with the
    # last layer negated it is −a0 U Vᵀ, whose strength is Uᵀ(−a0 U Vᵀ)V = −a0 (a start on the wrong side
    # must not read as a correct one)
    from theorykit import Derivation
    from theorykit.analysis.summary import mode_recorder
    from theorykit.net.starts import aligned_params
    from theorykit.spec.graph import graph_from_pathways

    spec, vals, a0 = _xor_reln_spec(), {"Delta": 1}, 1e-3
    der = Derivation(spec, values=vals)
    W = {k: v[0] for k, v in aligned_params(spec, a0, values=vals).items()}
    for gp in graph_from_pathways(spec).pathways:
        W[gp.edges[-1]] = -W[gp.edges[-1]]
    got = mode_recorder(spec, der, vals)(W, None)
    assert set(got) == {gp.name for gp in graph_from_pathways(spec).pathways}
    for name, s in got.items():
        assert np.asarray(s).tolist() == pytest.approx([-a0], rel=1e-9), name


# ------------------------------------------------------------------------------------------------
# layout: the residual floor drops only residuals that cannot matter (below 1e-150)
# ------------------------------------------------------------------------------------------------
def test_loss_keeps_small_residuals_above_the_floor():
    # layout.RESIDUAL_FLOOR's comment: residuals below 1e-150 are dropped (they change the loss by
    # < 1e-300). A residual of 1e-8 is kept: ½ (1e-8)² = 5e-17 ("sum"), over P = 2 datapoints 2.5e-17 ("mean")
    import jax.numpy as jnp

    from theorykit.net.layout import loss_value

    Y = jnp.asarray([[1e-8, 0.0]])
    assert float(loss_value(jnp.zeros((1, 2)), Y, "sum")) == pytest.approx(5e-17, rel=1e-12, abs=0)
    assert float(loss_value(jnp.zeros((1, 2)), Y, "mean")) == pytest.approx(2.5e-17, rel=1e-12, abs=0)


# ------------------------------------------------------------------------------------------------
# sweep: the summary's mean over seeds is the mean (with 2 seeds the median is the same number)
# ------------------------------------------------------------------------------------------------
def test_sweep_summary_mean_and_std_over_three_seeds(monkeypatch, tmp_path):
    # run_sweep with its trainer replaced (as tests/test_context_sweep_rules.py's fake_sweep): member m's
    # loss curve is constant at final[m]. One point, 3 seeds with finals 1, 2, 6: mean 3 (the median
    # would be 2), population std √((4 + 1 + 9)/3) = √(14/3)
    import math

    from theorykit.analysis import sweep as sw

    final = [1.0, 2.0, 6.0]

    def fake_train(net, p0, data, *, lr, steps, batch, on_batch_result, **kw):
        for a in range(0, len(lr), batch):
            b = min(len(lr), a + batch)
            on_batch_result(a, b, np.array([[final[a + j]] * (steps + 1) for j in range(b - a)]))

    monkeypatch.setattr(sw, "train_net", fake_train)
    res = sw.run_sweep(_xor_reln_spec(), {"Delta": [0.5]}, seeds=3, steps=2, out=tmp_path / "s", chunk=2,
                       progress=False)
    (row,) = res["results"]
    assert row["final_loss_mean"] == pytest.approx(3.0, rel=1e-12)
    assert row["final_loss_std"] == pytest.approx(math.sqrt(14 / 3), rel=1e-12)
    assert row["diverged_seeds"] == 0
