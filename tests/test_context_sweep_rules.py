"""The contexts suite's helpers (theorykit/analysis/context_runs.py, context_races.py) and the
resumable sweep (theorykit/analysis/sweep.py) against hand-worked numbers and their docstrings.

Each test closes a gap a mutation check of the three modules found (a changed line that no test
noticed): the singular values, hidden representations, distances and classical MDS that read a
trained network and Fig. 4b's snapshot data (checked on matrices small enough to do by hand), the
recording steps of a run, the race's recording grid, horizon and target, the r-family winner rule
of Finding 3, and the sweep's grid syntax (COUNT bounds, empty items, names), member order, chunk files and summary notes.
The sweep's trainer is replaced (as in tests/test_interfaces_rules.py) by one that returns
hand-written constant loss curves, so every number is known without training."""
import types
from pathlib import Path

import numpy as np
import pytest

from theorykit.analysis import context_runs as cr
from theorykit.analysis.context_races import r_families, suite_race, suite_spec
from theorykit.errors import SpecError
from theorykit.spec.files import load_spec
from theorykit.spec.gating import context_pathways
from theorykit.spec.task import contexts

XOR = Path(__file__).resolve().parents[1] / "examples" / "xor_linear.toml"


# ------------------------------------------------------------------------------------------------
# reading a network: singular values, hidden representations, distances, MDS
# ------------------------------------------------------------------------------------------------
def test_svals_are_largest_first_and_top_keeps_that_many():
    # diag(3, 1, 2): singular values 3, 2, 1 (largest first); top=2 keeps 3, 2; no top keeps all
    M = np.diag([3.0, 1.0, 2.0])
    np.testing.assert_allclose(cr.svals(M), [3.0, 2.0, 1.0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(cr.svals(M, 2), [3.0, 2.0], rtol=0, atol=1e-12)


def test_mean_svals_average_over_seeds_not_over_values():
    # seed 0: W2 W1 = diag(2, 1); seed 1: W2 W1 = diag(4, 3) (W2 = I). Mean over seeds: [3, 2]
    # (a mean over the values of each seed would give [1.5, 3.5]).
    W1 = np.stack([np.diag([2.0, 1.0]), np.diag([4.0, 3.0])])
    W2 = np.stack([np.eye(2), np.eye(2)])
    np.testing.assert_allclose(cr.mean_svals(W1, W2, 2), [3.0, 2.0], rtol=0, atol=1e-12)


def test_hidden_representations_by_hand():
    # ReLU: W1 = [[1, -1], [2, 0.5]], X = [[1, 0], [0, 1]] -> W1 X = W1, negative part cut to 0
    W1 = np.array([[1.0, -1.0], [2.0, 0.5]])
    np.testing.assert_array_equal(cr.hidden_rep_relu(W1, np.eye(2)), [[1.0, 0.0], [2.0, 0.5]])
    # GDLN: pathway a sees input rows (0, 1), on for datapoints 0 and 2; pathway b sees row 2, on for
    # datapoint 1. X (3 inputs x 3 datapoints) = [[1,2,3],[0,1,0],[5,5,5]].
    # a: W = [[1, 1]] -> rows 0+1 = [1, 3, 3], gated [1, 0, 3]; b: W = [[2]] -> 2*[5,5,5] gated [0, 10, 0]
    X = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0], [5.0, 5.0, 5.0]])
    spec = types.SimpleNamespace(pathways=[types.SimpleNamespace(inputs=(0, 1), active=(1, 0, 1)),
                                           types.SimpleNamespace(inputs=(2,), active=(0, 1, 0))])
    params = [[np.array([[1.0, 1.0]]), np.zeros((1, 1))], [np.array([[2.0]]), np.zeros((1, 1))]]
    np.testing.assert_array_equal(cr.hidden_rep_gdln(params, spec, X), [[1.0, 0.0, 3.0], [0.0, 10.0, 0.0]])


def test_distances_between_columns_by_hand_and_never_nan():
    # columns (0, 0), (3, 4), (3, 0): distances 5 (3-4-5), 3, 4
    H = np.array([[0.0, 3.0, 3.0], [0.0, 4.0, 0.0]])
    np.testing.assert_allclose(cr.distances(H), [[0, 5, 3], [5, 0, 4], [3, 4, 0]], rtol=0, atol=1e-12)
    # two equal columns v whose |v|^2 + |v|^2 - 2 v.v (the squared distance as computed: row sums and a
    # matrix product, which round differently) comes out below 0: the distance is ~0 (at most the square
    # root of that rounding, ~1e-5 here; 1e-3 allowed), not the NaN of the square root of a negative number
    rng = np.random.default_rng(0)
    for _ in range(500):
        v = rng.standard_normal(7) * 1e3
        G = np.stack([v, v])
        if (2 * np.sum(G ** 2, axis=1)[0] - 2 * (G @ G.T)[0, 1]) < 0:
            break
    else:
        pytest.fail("no vector found whose rounding goes negative: the check below would be empty")
    D = cr.distances(np.stack([v, v], axis=1))
    assert not np.isnan(D).any() and D[0, 1] <= 1e-3


def test_classical_mds_recovers_points_up_to_rotation():
    # points 0, 1, 3 on a line: centred coordinates -4/3, -1/3, 5/3 (mean 4/3); one dimension
    # recovers them up to sign
    x = np.array([0.0, 1.0, 3.0])
    D = np.abs(x[:, None] - x[None, :])
    z = cr.classical_mds(D, 1)[:, 0]
    want = x - 4.0 / 3.0
    np.testing.assert_allclose(z * np.sign(z[2]), want, rtol=0, atol=1e-12)
    # a planar triangle (0,0), (3,0), (0,4): 2-D coordinates whose distances are the given ones
    P = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
    D2 = np.sqrt(((P[:, None] - P[None, :]) ** 2).sum(-1))
    Z = cr.classical_mds(D2, 2)
    np.testing.assert_allclose(np.sqrt(((Z[:, None] - Z[None, :]) ** 2).sum(-1)), D2, rtol=0, atol=1e-10)


def test_mds_at_equal_representations_agree_and_missing_times_are_skipped():
    """A ReLU net and a one-pathway GDLN with the same non-negative first layer have the same hidden
    representations (ReLU of non-negative W1 X is W1 X): Procrustes disparity 0 and distance correlation 1.
    A time recorded for only one of the two is skipped (nothing to compare)."""
    X = np.eye(4)
    W1 = np.array([[1.0, 0.0, 2.0, 0.5], [0.0, 3.0, 1.0, 0.0], [1.0, 1.0, 0.0, 4.0]])
    rsn = {5: [W1[None], np.ones((1, 1, 3))], 7: [W1[None], np.ones((1, 1, 3))]}
    gsn = {5: [[W1[None], np.ones((1, 1, 3))]]}
    spec = types.SimpleNamespace(pathways=[types.SimpleNamespace(inputs=(0, 1, 2, 3), active=(1, 1, 1, 1))])
    out = cr.mds_at(rsn, gsn, spec, X, [5, 7])
    assert sorted(out) == [5]
    assert out[5]["procrustes_disparity"] == pytest.approx(0.0, abs=1e-12)
    assert out[5]["procrustes_disparity_all_dims"] == pytest.approx(0.0, abs=1e-12)
    assert out[5]["distance_correlation"] == pytest.approx(1.0, abs=1e-12)


def test_keep_sigma_sqrt_h_factor():
    # sigma * sqrt(H) kept at its value for width 50: at width 200 the factor is sqrt(50/200) = 1/2
    assert cr._keep_sigma_sqrt_h({"gdln_sigma_width": 50}, 200) == pytest.approx(0.5, rel=1e-15)
    assert cr._keep_sigma_sqrt_h({}, 200) == 1.0


def test_param_saver_keeps_the_steps_in_range_once_and_in_order():
    # record [5, -1, 0, 3, 3, 11, 10] with 10 steps: 0 ... 10 inclusive, duplicates once, sorted -> [0, 3, 5, 10]
    rec, save = cr._param_saver([5, -1, 0, 3, 3, 11, 10], 10)
    assert rec == [0, 3, 5, 10] and list(save.ts) == [0, 3, 5, 10] and set(save.fns) == {"params"}
    rec, save = cr._param_saver([], 10)
    assert rec == [] and dict(save.fns) == {}


# ------------------------------------------------------------------------------------------------
# the suite's spec and race
# ------------------------------------------------------------------------------------------------
def _ctx_spec(cfg):
    return suite_spec(contexts(8, 3), context_pathways(8, 3, [(0, 1), (0, 2), (1, 2)], hidden=2), cfg)


def test_suite_spec_is_the_papers_summed_loss():
    s = _ctx_spec({"eta": 0.05, "steps": 12})
    assert (s.training.loss, s.training.lr, s.training.steps) == ("sum", 0.05, 12)
    # docs: tau = 1/(P eta) for the summed loss; P = 8 items x 3 contexts = 24
    assert s.tau == pytest.approx(1.0 / (24 * 0.05), rel=1e-15)


def test_suite_race_records_on_its_grid_to_its_horizon_and_target():
    # eta = 0.05, P = 24: tau = 1/1.2 = 0.833 steps; race_dt = 0.1 -> RK4 step tau/0.1 = 8.33, so the
    # default recording step is int(8.33) = 8: t = 0, 8, 16, 24 (and the horizon 30; SaveAt.every
    # covers the run's horizon exactly, record.py)
    cfg = {"eta": 0.05, "steps": 30, "race_dt": 0.1}
    spec = _ctx_spec(cfg)
    rf = suite_race(spec, cfg, 1e-3)
    np.testing.assert_array_equal(rf.t, [0, 8, 16, 24, 30])
    # race_dt = 40 -> RK4 step 0.0208 < 1: recorded every step (at least 1); t_end overrides steps
    cfg = {"eta": 0.05, "steps": 30, "race_dt": 40}
    rf = suite_race(spec, cfg, 1e-3, t_end=3)
    np.testing.assert_array_equal(rf.t, [0, 1, 2, 3])
    # an explicit ``every`` overrides the RK4 step: every 2 steps up to t_end = 4
    np.testing.assert_array_equal(suite_race(spec, cfg, 1e-3, every=2, t_end=4).t, [0, 2, 4])
    # L(0) from a small a0 is near 0.5 ||Y||^2 (summed loss); contexts(8, 3): Y stacks the 8-item
    # hierarchy targets (entries +-1 / 0) -- computed here from Y; on the zero target the loss is 0
    X, Y = spec.task.numeric()
    # By hand (docs/theory.md#mode-loss, summed loss = P x mean): L(0) = P[1/2 tr Sy - sum_a (s_a a0 -
    # 1/2 d_a a0^2)] + cross terms of O(a0^2), so 0.5 ||Y||^2 - L(0) ~ P a0 sum_a s_a. The singular values
    # of the four pathways' Syx (computed below) sum to about 3.6 + 3 x 1.5 = 8.1, so the offset is
    # about 24 x 1e-3 x 8.1 = 0.19 of 96: rel ~2e-3, and never more than 3e-3.
    assert rf.loss[0][0] == pytest.approx(0.5 * np.sum(Y ** 2), rel=3e-3)   # a0 = 1e-3: the start is off by O(a0)
    # A second method, sharing no code with the race: the network's loss at its aligned start, built in
    # numpy from the spec's X (features x P), Y and gates. Each pathway's map is a0 U V^T over the
    # nonzero modes of its own Syx_p = (1/P) Y_p diag(g_p) X_p^T (the aligned start; U V^T does not
    # depend on the basis chosen inside a repeated singular value), and the output is
    # y_hat = sum_p g_p W_p x. The recorded t = 0 is that start itself (no step taken), so the two agree
    # to rounding: rel 1e-12 (the sums are of ~1e3 terms of size <= 1).
    P = X.shape[1]
    Yhat = np.zeros_like(Y)
    offset = 0.0
    for p in spec.pathways:
        g, ins, outs = np.asarray(p.active, float), list(p.inputs), list(p.outputs)
        U, sv, Vt = np.linalg.svd((Y[outs] * g) @ X[ins].T / P, full_matrices=False)
        r = int(np.sum(sv > 1e-10 * sv[0]))
        offset += P * 1e-3 * np.sum(sv[:r])
        Yhat[outs] += (1e-3 * U[:, :r] @ Vt[:r] @ X[ins]) * g
    assert 1e-3 < offset / 96 < 3e-3                     # the hand estimate above
    assert rf.loss[0][0] == pytest.approx(0.5 * np.sum((Y - Yhat) ** 2), rel=1e-12)
    rz = suite_race(spec, cfg, 1e-3, t_end=3, target=np.zeros_like(Y))
    np.testing.assert_array_equal(rz.loss[0], 0.0)


def test_r_families_winner_is_the_smallest_area_and_the_default_rs():
    """k = 4 without rfamily_all_r: r in {1, k//2, k-1} = {1, 2, 3}; the winner is the r of the
    smallest area (docstring: lower area is faster), kminus1_wins says whether it is k-1, and
    single_over_kminus1_area is area(r=1)/area(r=k-1)."""
    class PR:
        def update(self, **kw):
            pass

    cfg = {"eta": 0.05, "steps": 40, "race_dt": 1, "rfamily_k": [4], "rfamily_all_r": False,
           "sec5": {4: {"gamma": 1.0}}, "fractions": [0.5, 0.1, 0.01]}
    out = r_families(cfg, 1e-3, PR())["4"]
    rows = out["families"]
    assert sorted(rows) == ["1", "2", "3"]
    areas = {int(r): v["area"] for r, v in rows.items()}
    best = min(areas, key=areas.get)
    assert out["winner_r"] == best and out["kminus1_wins"] == (best == 3)
    assert out["single_over_kminus1_area"] == pytest.approx(areas[1] / areas[3], rel=1e-15)
    assert len(set(areas.values())) == 3       # the three families differ, so the minimum is a real choice


# ------------------------------------------------------------------------------------------------
# the sweep: grid syntax, plan, chunk files, summary
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def xor():
    return load_spec(XOR)


def _field(exc):
    return exc.value.field, exc.value.problem


@pytest.mark.parametrize("count, words", [("0", "at least 1"), ("-2", "at least 1"),
                                          (str(10 ** 6 + 1), "more than 1000000")])
def test_grid_count_out_of_range_is_refused(xor, count, words):
    from theorykit.analysis.sweep import parse_grid

    with pytest.raises(SpecError) as exc:
        parse_grid([f"Delta=0:1:{count}"], xor.task.symbols)
    assert exc.value.field == "--grid" and words in exc.value.problem


def test_grid_count_at_the_limit_and_a_falling_range(xor):
    from theorykit.analysis.sweep import MAX_GRID_COUNT, parse_grid

    # COUNT = MAX_GRID_COUNT (10**6) is allowed: 10**6 points from 0 to 1
    g = parse_grid([f"Delta=0:1:{MAX_GRID_COUNT}"], xor.task.symbols)["Delta"]
    assert len(g) == 10 ** 6 and (g[0], g[-1]) == (0.0, 1.0)
    # START > STOP: the points run from START down: 2, 1, 0
    assert parse_grid(["Delta=2:0:3"], xor.task.symbols)["Delta"] == [2.0, 1.0, 0.0]


def test_grid_names_and_items(xor):
    from theorykit.analysis.sweep import parse_grid

    sy = xor.task.symbols
    # empty items of a list are skipped; a list of only empty items is refused
    assert parse_grid(["Delta=0.5,,1.5,"], sy) == {"Delta": [0.5, 1.5]}
    with pytest.raises(SpecError) as exc:
        parse_grid(["Delta= , "], sy)
    assert _field(exc) == ("--grid", "Delta: no values")
    for bad, words in (("Delta", "is not NAME=VALUES"), ("Delta=1=2", "Delta"), ("Gamma=1", "unknown name 'Gamma'")):
        with pytest.raises(SpecError) as exc:
            parse_grid([bad], sy)
        assert words in exc.value.problem or words in exc.value.field
    with pytest.raises(SpecError) as exc:
        parse_grid(["Delta=1", "Delta=2"], sy)
    assert _field(exc) == ("--grid", "Delta is given twice")
    # lr needs no symbol, and is checked as training.lr is (range), named as the grid
    assert parse_grid(["lr=0.01,0.05"], sy) == {"lr": [0.01, 0.05]}
    with pytest.raises(SpecError) as exc:
        parse_grid(["lr=5000"], sy)
    assert exc.value.field == "--grid lr"


def test_plan_sweep_member_order_steps_and_lr(xor):
    from theorykit.analysis.sweep import plan_sweep

    # docstring: every symbol point, every lr, every seed (seed fastest)
    plan = plan_sweep(xor, {"Delta": [0.5, 1.0], "lr": [0.01, 0.02]}, 2, 7)
    assert plan["members"] == [(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1),
                               (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)]
    assert plan["steps"] == 7 and plan["points"] == [(0.5,), (1.0,)]
    # steps default to the spec's training.steps; lr to its training.lr
    plan = plan_sweep(xor, {"Delta": [0.5]}, 1)
    assert plan["steps"] == xor.training.steps and plan["lrs"] == [xor.training.lr]
    for kw, field in (({"steps": 0}, "--steps"), ({"seeds": 0}, "--seeds")):
        with pytest.raises(SpecError) as exc:
            plan_sweep(xor, {"Delta": [0.5]}, kw.get("seeds", 1), kw.get("steps", 5))
        assert exc.value.field == field
    with pytest.raises(SpecError) as exc:                  # every free symbol of the task needs grid values
        plan_sweep(xor, {"lr": [0.01]}, 1, 5)
    assert _field(exc) == ("--grid", "no values for symbols ['Delta']")
    # lr = 0 learns nothing: refused, as is any lr below the one rule's 1e-12 (theorykit.spec.ranges)
    with pytest.raises(SpecError, match=r"--grid lr: 0 is out of range \[1e-12, 1000\]"):
        plan_sweep(xor, {"Delta": [0.5], "lr": [0.0]}, 1, 5)


def test_load_chunks_keeps_only_files_with_chunk_is_members(tmp_path):
    """chunk 2, 3 members: chunk 0 holds members [0, 1], chunk 1 (the last, short) holds [2]."""
    from theorykit.analysis.sweep import load_chunks

    (tmp_path / "chunks").mkdir()
    np.savez(tmp_path / "chunks" / "chunk_00000.npz", members=np.array([0, 1]), loss=np.zeros((2, 3)))
    np.savez(tmp_path / "chunks" / "chunk_00001.npz", members=np.array([2]), loss=np.ones((1, 3)))
    done = load_chunks(tmp_path, 2, 2, 3)
    assert sorted(done) == [0, 1] and list(done[1][0]) == [2]
    # a file holding other members (e.g. from another chunk size) is left out, to be run again
    np.savez(tmp_path / "chunks" / "chunk_00001.npz", members=np.array([1]), loss=np.ones((1, 3)))
    assert sorted(load_chunks(tmp_path, 2, 2, 3)) == [0]


@pytest.fixture
def fake_sweep(monkeypatch):
    """run_sweep with its trainer replaced: member m's loss curve is constant at final[m]."""
    from theorykit.analysis import sweep as sw

    state = {"final": None}

    def fake_train(net, p0, data, *, lr, steps, batch, on_batch_result, **kw):
        n = len(lr)
        for a in range(0, n, batch):
            b = min(n, a + batch)
            on_batch_result(a, b, np.array([[state["final"][a + j]] * (steps + 1) for j in range(b - a)]))

    monkeypatch.setattr(sw, "train_net", fake_train)
    return types.SimpleNamespace(run=sw.run_sweep, state=state)


def test_sweep_chunks_are_the_ceiling_and_resume_reads_them(fake_sweep, xor, tmp_path):
    # 5 members (5 Delta points, 1 seed) in chunks of 2: ceil(5/2) = 3 chunk files, the last with 1 member
    fake_sweep.state["final"] = [1.0, 2.0, 3.0, 4.0, 5.0]
    grid = {"Delta": [0.1, 0.2, 0.3, 0.4, 0.5]}
    res = fake_sweep.run(xor, grid, seeds=1, steps=2, out=tmp_path / "s", chunk=2, progress=False)
    assert res["chunks"] == 3 and res["chunks_computed"] == [0, 1, 2]
    assert sorted(p.name for p in (tmp_path / "s" / "chunks").iterdir()) == \
        ["chunk_00000.npz", "chunk_00001.npz", "chunk_00002.npz"]
    assert [r["final_loss_mean"] for r in res["results"]] == [1.0, 2.0, 3.0, 4.0, 5.0]
    # resumed with other final losses in the trainer: nothing is recomputed, the files' losses are read
    fake_sweep.state["final"] = [9.0] * 5
    again = fake_sweep.run(xor, grid, seeds=1, steps=2, out=tmp_path / "s", chunk=2, progress=False)
    assert again["chunks_computed"] == [] and [r["final_loss_mean"] for r in again["results"]] == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_sweep_with_other_learning_rates_is_another_sweep(fake_sweep, xor, tmp_path):
    fake_sweep.state["final"] = [1.0] * 4
    fake_sweep.run(xor, {"Delta": [0.5], "lr": [0.01]}, seeds=1, steps=2, out=tmp_path / "s", chunk=1,
                   progress=False)
    with pytest.raises(SpecError, match="different sweep"):
        fake_sweep.run(xor, {"Delta": [0.5], "lr": [0.02]}, seeds=1, steps=2, out=tmp_path / "s", chunk=1,
                       progress=False)


def test_sweep_summary_per_lr_and_seed_and_the_aligned_note(fake_sweep, xor, tmp_path):
    """2 points x 2 lrs x 2 seeds, members in plan order; finals by hand: point 0: lr0 (1, 3) mean 2,
    lr1 (5, 5) mean 5; point 1: lr0 (2, 2) mean 2, lr1 (10, 20) mean 15, std 5. Aligned starts with
    2 seeds carry the note that their spread is 0; one seed has no spread to note."""
    fake_sweep.state["final"] = [1.0, 3.0, 5.0, 5.0, 2.0, 2.0, 10.0, 20.0]
    res = fake_sweep.run(xor, {"Delta": [0.5, 1.0], "lr": [0.01, 0.02]}, seeds=2, steps=2, out=tmp_path / "s",
                         chunk=3, progress=False)
    got = [(r["Delta"], r["lr"], r["final_loss_mean"], r["final_loss_std"]) for r in res["results"]]
    assert got == [(0.5, 0.01, 2.0, 1.0), (0.5, 0.02, 5.0, 0.0), (1.0, 0.01, 2.0, 0.0), (1.0, 0.02, 15.0, 5.0)]
    assert len(res["notes"]) == 1 and "spread 0" in res["notes"][0]
    one = fake_sweep.run(xor, {"Delta": [0.5]}, seeds=1, steps=2, out=tmp_path / "one", chunk=3, progress=False)
    assert one["notes"] == []


def test_sweep_chunk_must_be_a_positive_integer(fake_sweep, xor, tmp_path):
    with pytest.raises(SpecError) as exc:
        fake_sweep.run(xor, {"Delta": [0.5]}, seeds=1, steps=2, out=tmp_path / "s", chunk=0, progress=False)
    assert exc.value.field == "chunk"         # run_sweep's keyword (the command line: --chunk)


def test_snapshot_singular_values_by_hand():
    """Fig. 4b's data: the race's top 4 singular values interpolated at the snapshot steps, and per
    group of ReLU units (seed 0, majority gating over 3 contexts) the top 4 singular values of the
    item part of its map, padded with zeros. A one-unit group's map W2[:, h] W1[h, :8] is rank one:
    its one singular value is |W2[:, h]| |W1[h, :8]|."""
    race = types.SimpleNamespace(t=np.array([0.0, 2.0]),
                                 saved={"svals": {"a": [np.array([[1.0, 2.0, 3.0, 4.0], [3.0, 4.0, 5.0, 6.0]])]}})
    # 2 units, 3 contexts x 2 items: unit 0 on everywhere, unit 1 on in context 0 only -> two groups
    gates = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0]], bool)
    W1 = np.zeros((2, 11))
    W1[0, :8] = [3.0, 4.0, 0, 0, 0, 0, 0, 0]      # |.| = 5
    W1[1, :8] = [0, 0, 1.0, 0, 0, 0, 0, 0]        # |.| = 1
    W1[:, 8:] = 7.0                               # context inputs: not part of the item map
    W2 = np.array([[2.0, 0.0], [0.0, 3.0]])       # |W2[:, 0]| = 2, |W2[:, 1]| = 3
    s4 = {"spec_d": types.SimpleNamespace(pathways=[types.SimpleNamespace(name="a")]), "snaps": [0, 1, 2],
          "race": {"double": race}, "rsn": {s: [W1[None], W2[None]] for s in (0, 1, 2)}, "final_gates": gates[None]}
    cr.snapshot_singular_values(s4, {})
    # linear interpolation at step 1 is the mean of steps 0 and 2
    np.testing.assert_allclose(s4["sv_race_svals"]["a"], [[1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]], rtol=0, atol=1e-12)
    rel = s4["relu_group_svals"]
    assert len(rel) == 2
    got = sorted(tuple(np.round(v[0], 12)) for v in rel.values())
    assert got == [(3.0, 0.0, 0.0, 0.0), (10.0, 0.0, 0.0, 0.0)]     # 3 * 1 and 2 * 5
    assert all(v.shape == (3, 4) for v in rel.values())
