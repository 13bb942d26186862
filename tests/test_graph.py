"""The graph model: spec checks, the one trainer against a gradient-descent loop written out in
numpy, schedules, weight files, and the race engine against simulation and scipy."""
from __future__ import annotations

import numpy as np
import pytest

import theorykit as tk
from theorykit.net.layout import Net, net_apply
from theorykit.record import SaveAt
from theorykit.errors import SpecError
from theorykit.theory.flow import RK4, integrate
from theorykit.theory.race import RaceSystem
from theorykit.spec.graph import GraphSpec, graph_from_pathways
from theorykit.net.starts import a0_rule, random_params
from theorykit.sim.weights import load_weights, save_weights
from theorykit.spec.files import spec_from_dict

# A small task: 6 datapoints, 4 inputs, 3 outputs (integers, so the data are exact).
X6 = [[1, 0, 1, 0, 1, 0], [0, 1, 0, 1, 0, 1], [1, 1, 0, 0, 1, 1], [0, 0, 1, 1, 1, 1]]
Y6 = [[1, -1, 0, 1, 2, 0], [0, 1, 1, -1, 0, 1], [1, 0, -1, 0, 1, 1]]


def shared_graph_dict(lr=0.02, steps=50):
    """A shared first layer h (always on) feeding two gated modules; module b writes rows [0, 2]
    only and its output edge has its own gate."""
    return {
        "name": "shared",
        "data": {"inputs": X6, "targets": Y6},
        "nodes": [{"name": "h", "width": 5},
                  {"name": "a", "width": 3, "active": [1, 1, 1, 0, 0, 1]},
                  {"name": "b", "width": 2, "active": [0, 1, 1, 1, 1, 0]}],
        "edges": [{"from": "input", "to": "h", "rows": [0, 1, 2, 3]},
                  {"from": "h", "to": "a"}, {"from": "h", "to": "b"},
                  {"from": "a", "to": "output"},
                  {"from": "b", "to": "output", "rows": [0, 2], "active": [1, 1, 0, 1, 1, 1]}],
        "training": {"lr": lr, "loss": "mean", "a0": 1e-3, "init_std": 0.3, "steps": steps},
    }


def numpy_gd(W, X, Y, lr, steps, ga, gb, ge):
    """The GDLN above trained by hand (float64 numpy): forward and backward written out.

    h = W1 x; a = ga ⊙ (Wa h); b = gb ⊙ (Wb h); ŷ = Wao a + E_{0,2} (ge ⊙ (Wbo b)),
    L = 1/(2P) Σ‖y − ŷ‖²; every gradient is the chain rule through these lines."""
    W = {k: v.copy() for k, v in W.items()}
    P = X.shape[1]
    losses = []
    for _ in range(steps + 1):
        h = W["input->h"] @ X
        a = ga * (W["h->a"] @ h)
        b = gb * (W["h->b"] @ h)
        yh = W["a->output"] @ a
        yh[[0, 2]] += ge * (W["b->output"] @ b)
        R = yh - Y                              # dL/dŷ = R / P
        losses.append(0.5 * np.sum(R ** 2) / P)
        D = R / P
        gWao = D @ a.T
        Db = ge * D[[0, 2]]
        gWbo = Db @ b.T
        da = W["a->output"].T @ D * ga
        db = W["b->output"].T @ Db * gb
        gWa, gWb = da @ h.T, db @ h.T
        dh = W["h->a"].T @ da + W["h->b"].T @ db
        gW1 = dh @ X.T
        if len(losses) == steps + 1:
            break
        for k, g in (("input->h", gW1), ("h->a", gWa), ("h->b", gWb), ("a->output", gWao), ("b->output", gWbo)):
            W[k] = W[k] - lr * g
    return np.array(losses), W


def test_graph_spec_pathways_and_sharing():
    g = spec_from_dict(shared_graph_dict())
    assert isinstance(g, GraphSpec)
    names = [gp.name for gp in g.pathways]
    assert names == ["h/a", "h/b"]
    # pathway gate = product of the node gates and the edge gate on it
    assert g.pathways[0].pathway.active == (1, 1, 1, 0, 0, 1)
    assert g.pathways[1].pathway.active == (0, 1, 0, 1, 1, 0)
    assert g.pathways[1].pathway.outputs == (0, 2)
    assert g.shared_edges() == {"input->h": ["h/a", "h/b"]}
    assert not g.private_chains
    der = tk.Derivation(g)
    assert der.method == "race-reduction" and any("share edges" in n for n in der.notes)


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["nodes"].append({"name": "z", "width": 2}), "nodes[3]"),           # unused node
    (lambda d: d["edges"].append({"from": "q", "to": "a"}), "edges[5].from"),      # unknown node
    (lambda d: d["nodes"][0].update(width=0), "nodes[0].width"),
    (lambda d: d["edges"].append({"from": "a", "to": "h"}), "edges"),              # cycle h→a→h
    (lambda d: d["edges"][3].update(rows=[0, 7]), "edges[3].rows[1]"),
    (lambda d: d["edges"][1].update(rows=[0]), "edges[1].rows"),                    # rows on a hidden edge
    (lambda d: d["nodes"][1].update(active=[1, 0]), "nodes[1].active"),
    (lambda d: d.update(pathways=[{"name": "x", "active": "all"}]), "pathways"),
    (lambda d: d.update(schedule=[{"name": "g", "edges": ["h->nowhere"]}]), "schedule[0].edges"),
    # the arrow joins an edge key's two ends, so a node named "a->b" would make keys ambiguous
    (lambda d: [e.update({k: "a->b"}) for e in d["edges"] for k in ("from", "to") if e[k] == "a"]
     and d["nodes"][1].update(name="a->b"), "nodes[1].name"),
    (lambda d: d["nodes"][0].update(name="output"), "nodes[0].name"),
])
def test_graph_errors_name_the_field(mutate, field):
    d = shared_graph_dict()
    mutate(d)
    with pytest.raises(SpecError) as e:
        spec_from_dict(d)
    assert e.value.field == field, str(e.value)
    assert e.value.fix


def test_trainer_matches_numpy_gradient_descent(tmp_path):
    """From weights in a file (--init-weights), the one trainer equals the numpy loop to 1e-10:
    node gates, an edge gate and output rows, with a shared edge."""
    g = spec_from_dict(shared_graph_dict(lr=0.05, steps=60))
    net = Net.from_graph(g)
    rng = np.random.default_rng(3)
    W0 = {k: 0.3 * rng.standard_normal(s) for k, s in net.shapes().items()}
    path = tmp_path / "w.npz"
    save_weights(path, {k: v[None] for k, v in W0.items()})
    res = tk.simulate(g, init=load_weights(path, net, seeds=1), seeds=1, steps=60)
    X, Y = (np.array(m, float) for m in (X6, Y6))
    ref, Wend = numpy_gd(W0, X, Y, 0.05, 60, np.array([1, 1, 1, 0, 0, 1.]), np.array([0, 1, 1, 1, 1, 0.]),
                         np.array([1, 1, 0, 1, 1, 1.]))
    np.testing.assert_allclose(res.loss[0], ref, rtol=1e-10, atol=1e-13)
    for k in W0:
        np.testing.assert_allclose(np.asarray(res.params[k][0]), Wend[k], rtol=1e-10, atol=1e-12)
    assert ref[-1] < 0.8 * ref[0]          # it learned something: the comparison is not of constants


def test_weight_file_errors(tmp_path):
    g = spec_from_dict(shared_graph_dict())
    net = Net.from_graph(g)
    np.savez(tmp_path / "bad.npz", **{k: np.zeros((2, 2)) for k in net.keys})
    with pytest.raises(SpecError, match="input->h"):
        load_weights(tmp_path / "bad.npz", net)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(SpecError, match="not a readable"):
        load_weights(tmp_path / "junk.npz", net)
    good = {k: np.ones(s) for k, s in net.shapes().items()}
    good["h->a"] = good["h->a"] * np.nan
    np.savez(tmp_path / "nan.npz", **good)
    with pytest.raises(SpecError, match="NaN"):
        load_weights(tmp_path / "nan.npz", net)


def _staged_gd(W, steps, lr, a_start, b_start, b_fits_residual=False, hold_input_until=0):
    """Autograd-free numpy gradient descent on the shared graph of shared_graph_dict (X6, Y6; the
    mean loss), with group a (its loss L(Y − ŷ_a)) from ``a_start`` and group b from ``b_start``.
    Group b fits Y, or with ``b_fits_residual`` the residual Y − ŷ_a held fixed (its gradient is then
    the usual one with target Y − ŷ_a). ``hold_input_until``: the shared edge input->h does not move
    before that step. Returns the losses at steps 0 … steps and input->h after each step."""
    W = {k: np.array(v, float) for k, v in W.items()}
    X, Y = (np.array(m, float) for m in (X6, Y6))
    ga, gb, ge = np.array([1, 1, 1, 0, 0, 1.]), np.array([0, 1, 1, 1, 1, 0.]), np.array([1, 1, 0, 1, 1, 1.])
    P = X.shape[1]
    losses, W_h = [], [W["input->h"].copy()]
    for t in range(steps + 1):
        h = W["input->h"] @ X
        a = ga * (W["h->a"] @ h)
        b = gb * (W["h->b"] @ h)
        ya = W["a->output"] @ a
        yb = np.zeros_like(Y)
        yb[[0, 2]] = ge * (W["b->output"] @ b)
        losses.append(0.5 * np.sum((Y - ya - yb) ** 2) / P)
        if t == steps:
            break
        G = {k: np.zeros_like(v) for k, v in W.items()}
        if t >= a_start:                             # group a: L(Y − ŷ_a)
            D = (ya - Y) / P
            G["a->output"] += D @ a.T
            da = W["a->output"].T @ D * ga
            G["h->a"] += da @ h.T
            G["input->h"] += (W["h->a"].T @ da) @ X.T
        if t >= b_start:                             # group b: L(T − ŷ_b), T = Y or Y − ŷ_a held fixed
            D = (yb - (Y - ya if b_fits_residual else Y))[[0, 2]] / P * ge
            G["b->output"] += D @ b.T
            db = W["b->output"].T @ D * gb
            G["h->b"] += db @ h.T
            G["input->h"] += (W["h->b"].T @ db) @ X.T   # the shared edge gets both terms
        if t < hold_input_until:                     # the mask: input->h waits
            G["input->h"][:] = 0.0
        W = {k: W[k] - lr * G[k] for k in W}
        W_h.append(W["input->h"].copy())
    return losses, W_h


def test_schedule_matches_hand_written_staged_loop():
    """Group schedule: nothing moves before step 3; group a fits Y from step 3; group b fits
    Y − stop_gradient(ŷ_a) from step 6. Checked against autograd-free numpy: with the residual
    target held fixed, b's loss gradient is the numpy loop's gradient with target Y − ŷ_a."""
    d = shared_graph_dict(lr=0.05, steps=12)
    d["schedule"] = [{"name": "a", "edges": ["input->h", "h->a", "a->output"], "start": 3},
                     {"name": "b", "edges": ["h->b", "b->output"], "start": 6, "fit": ["a"]}]
    g = spec_from_dict(d)
    net = Net.from_graph(g)
    rng = np.random.default_rng(5)
    W = {k: 0.3 * rng.standard_normal(s) for k, s in net.shapes().items()}
    res = tk.simulate(g, init={k: v[None] for k, v in W.items()}, seeds=1, steps=12)
    losses, _ = _staged_gd(W, 12, 0.05, a_start=3, b_start=6, b_fits_residual=True)
    np.testing.assert_allclose(res.loss[0], losses, rtol=1e-10, atol=1e-13)
    assert res.loss[0][0] == res.loss[0][3] and res.loss[0][4] != res.loss[0][3]


def test_pathway_form_is_shorthand_for_private_chains():
    spec = tk.GDLNSpec(tk.xor_margin(1), tk.xor_relns(8)["xor"], tk.Training(lr=0.05, init_std=0.2, steps=30))
    g = graph_from_pathways(spec)
    assert g.private_chains and [gp.name for gp in g.pathways] == ["point0", "point1", "point2", "point3"]
    net = Net.from_graph(g)
    p = random_params(net, 0.2, 1, 0)
    X, _ = spec.task.numeric()
    # the graph forward equals the pathway form ŷ = Σ_p g_p ⊙ (W2_p W1_p x), written out here
    Xn = np.asarray(X)
    want = sum(np.asarray(p[f"point{m}->output"][0]) @ np.asarray(p[f"input->point{m}"][0]) @ Xn *
               np.array([float(i == m) for i in range(4)]) for m in range(4))
    got = np.asarray(net_apply(net, {k: v[0] for k, v in p.items()}, np.asarray(X)))
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_shared_edge_derivation_matches_simulation():
    """Aligned, balanced start and small η: the race with shared edges, integrated at the
    smallest widths from the effective datasets, tracks the full-width network within 2e-3 of L(0).

    Why 2e-3: no closed form, so no discrete recurrence; the gap is gradient descent's O(η) lag behind
    the flow, measured 1.02e-3 of L(0) at η = 0.005 (2x room), and shown to be first order by halving
    η over the same time t·η = 30: the gap halves (ratio 2.00 measured)."""
    gaps = []
    for lr in (0.005, 0.0025):
        steps = int(round(30 / lr))
        d = shared_graph_dict(lr=lr, steps=steps)
        d["training"]["a0"] = 1e-2
        d["nodes"][2]["width"] = 4             # an aligned start needs the task's rank (3) in every node
        g = spec_from_dict(d)
        sim = tk.simulate(g, init="aligned", seeds=2, steps=steps)
        der = tk.Derivation(g)
        times = np.arange(0, steps + 1, steps // 60)
        pred = der.predict_loss(times)
        L0 = sim.mean[0]
        gaps.append(np.max(np.abs(sim.mean[times] - pred)) / L0)
        assert sim.mean[-1] < 0.5 * L0          # the comparison covers the learning, not a plateau
    assert gaps[0] < 2e-3, gaps
    # gap(η) = C η (1 + r(η)) with r = O(s/τ) the next order, at most 1 % here (gd_flow_gap: s_max/τ =
    # 0.68/200 = 3.4e-3; the neglected terms 0.05-1 % against the recurrence), so the ratio is
    # 2 (1 + r(η)) / (1 + r(η/2)) = 2 ± 2 · 1 % = 2 ± 0.02 (measured 1.9991)
    assert gaps[0] / gaps[1] == pytest.approx(2.0, abs=0.02), gaps


def test_flow_from_given_weights_is_the_networks_gradient_flow():
    """Started from the simulation's own initial weights, the flow's loss and gradient descent's
    differ by O(η): halving η (and doubling the steps) halves the gap.

    Both runs start from the same weights (seed 2, the same init_std) and are compared at the same
    times t·η (every step of the first run, every second of the second). The largest gap
    e(η) = c₁η + c₂η² + … gives e(η)/e(η/2) = 2(1 + rη)/(1 + rη/2), r = c₂/c₁, held to 2 ± 0.1
    (|rη| ≲ 0.1; measured 1.999, CPU); then the Richardson combination 2·L(η/2) − L(η) = flow − c₂η²/2
    + … lies within |rη/2|·e(η) ≤ 0.05·e(η) of the flow at every compared time, asserted as 0.1·e(η)
    (measured 0.004·e(η)). An error of the flow that does not scale with η (a wrong field, a wrong
    τ) leaves a constant in both gaps and fails these."""
    gaps, sims, flows = [], [], []
    for lr, steps in ((0.02, 300), (0.01, 600)):
        g = spec_from_dict(shared_graph_dict(lr=lr, steps=steps))
        sim = tk.simulate(g, init="random", seeds=1, steps=steps, seed=2)
        fl = RaceSystem.from_graph(g).solve(np.arange(steps + 1), start=sim.extra["initial_params"])
        gaps.append(np.max(np.abs(fl.loss[0] - sim.loss[0])))
        sims.append(sim.loss[0][:: steps // 300])
        flows.append(fl.loss[0][:: steps // 300])
        assert sim.loss[0, -1] < 0.5 * sim.loss[0, 0]       # it learned: the gaps are not of two plateaus
    assert sims[0][0] == sims[1][0]                          # the same start
    assert 1.9 < gaps[0] / gaps[1] < 2.1, gaps
    assert np.max(np.abs(2 * sims[1] - sims[0] - flows[1])) < 0.1 * gaps[0]


def test_integrate_rk4_against_closed_form():
    """dy/dt = 2y(s − y) from y0 has the logistic solution (docs/theory.md#mode-ode with d = 1, τ = 1)."""
    s = 1.5
    y0 = {"y": np.array([[1e-3], [1e-2]])}
    res = integrate(lambda y, a: {"y": 2 * y["y"] * (s - y["y"])}, y0, None, solver=RK4(0.01), t_end=6.0,
                    save=SaveAt(every=0.5, fns={"y": lambda y, a: y["y"][0]}), batched_args=False)
    for b, a0 in enumerate((1e-3, 1e-2)):
        want = s / (1 + (s / a0 - 1) * np.exp(-2 * s * res.t))
        np.testing.assert_allclose(res.saved["y"][b], want, rtol=1e-7)


@pytest.mark.parametrize("rtol", [1e-6, 1e-9])
def test_integrate_dopri5_against_closed_form(rtol):
    """The adaptive solver on the same logistic flow: a batch whose elements need different steps,
    recording times it must hit exactly, and an error that follows the tolerance."""
    from theorykit.theory.flow import Dopri5

    s = 1.5
    a0s = (1e-6, 1e-3, 1e-1)
    times = np.array([0.0, 0.3, 0.30001, 2.0, 4.0, 4.0, 9.0])
    res = integrate(lambda y, a: 2 * y * (s - y), np.array(a0s), None, solver=Dopri5(rtol=rtol, atol=1e-14),
                    save=SaveAt(ts=times, fns={"y": lambda y, a: y}), batched_args=False)
    want = np.array([s / (1 + (s / a0 - 1) * np.exp(-2 * s * times)) for a0 in a0s])
    err = np.max(np.abs(res.saved["y"] - want) / want)
    assert err < 50 * rtol, err
    assert res.extra["solver"] == "dopri5" and 20 < res.extra["steps"] < 5000


def test_integrate_dopri5_clean_error_when_the_flow_blows_up():
    """dy/dt = y² from 1 blows up at t = 1: the step collapses, and the error names the field."""
    from theorykit.errors import SpecError
    from theorykit.theory.flow import Dopri5

    with pytest.raises(SpecError, match="training.lr"):
        integrate(lambda y, a: y * y, np.ones(1), None, solver=Dopri5(max_steps=2000),
                  save=SaveAt(ts=[0.5, 2.0], fns={"y": lambda y, a: y}), batched_args=False)


def test_flow_out_of_proportion_with_its_data_is_refused_before_it_runs():
    """A fuzz hang (issue 16): a graph whose inputs are of scale 1e6 asked the race for ~1e7 steps.
    s_max ≈ 1e6 and τ = 50, so 50 gradient steps need 50·40·1e6/50 = 4e7 steps of τ/(40 s_max),
    over the budget of 2e6: a clean error, with either solver, before any step is taken."""
    from theorykit.theory.flow import MAX_FLOW_STEPS

    d = shared_graph_dict()
    d["data"] = {"inputs": (np.array(X6) * 1e6).tolist(), "targets": Y6}
    g = spec_from_dict(d)
    from theorykit.theory.flow import RK4

    for solver in (None, RK4(0.5)):
        with pytest.raises(SpecError, match="training.lr") as e:
            RaceSystem.from_graph(g).solve(np.arange(51), solver=solver)
        assert "integration steps" in str(e.value)
    assert MAX_FLOW_STEPS < 4e7
    RaceSystem.from_graph(spec_from_dict(shared_graph_dict())).solve(np.arange(51))   # the same graph at scale 1 runs


def test_a0_rule_depth_two_matches_linearised_alignment():
    """a0 = σ²H/2 for depth 2 (the init module's derivation), checked on the numbers: the
    symmetric growth ¼‖w1 + w2‖² over random draws has mean σ²H/2."""
    assert a0_rule(0.1, 100) == pytest.approx(0.1 ** 2 * 100 / 2)
    rng = np.random.default_rng(0)
    H, sd = 400, 0.05
    N = 400
    vals = [0.25 * np.sum((sd * rng.standard_normal(H) + sd * rng.standard_normal(H)) ** 2) for _ in range(N)]
    # The tolerance is the sample's statistical error, no O(.) term: w1 + w2 has iid N(0, 2 sd^2) entries,
    # so each value is (sd^2/2) chi^2_H exactly -- mean sd^2 H/2, relative sd sqrt(2/H) = 0.071 (checked
    # on the sample's own spread, which N = 400 draws estimate to 1/sqrt(2N) = 3.5%) -- and the mean of N
    # of them has relative sd sqrt(2/(H N)) = 0.0035. Five of those (0.018) would fail a correct rule
    # with probability ~6e-7 under any seed, and catch any other constant (sd^2 H, sd^2 H/4, ...).
    assert np.std(vals) / np.mean(vals) == pytest.approx(np.sqrt(2 / H), rel=0.15)
    assert np.mean(vals) == pytest.approx(a0_rule(sd, H), rel=5 * np.sqrt(2 / (H * N)))
    assert a0_rule([0.1, 0.2, 0.3], [10, 20, 30]) == pytest.approx(
        0.1 * np.sqrt(5) * 0.2 * np.sqrt(10) * 0.3 * np.sqrt(15))


def test_graph_derivation_and_aligned_start_errors_name_graph_fields():
    """Errors about a pathway of a graph spec name the graph's own fields (``nodes[i]``), never the
    ``pathways[i]`` a graph file does not have."""
    from theorykit import Derivation
    from theorykit.errors import DerivationError
    from theorykit.net.starts import aligned_params

    # pathway b (node b, reads input row 0, on both datapoints): Σyx_b = (1·1 + (−1)·1)/2 = 0
    doc = {"name": "g", "data": {"inputs": [[1, 1], [0, 1]], "targets": [[1, -1]]},
           "training": {"lr": 0.05, "steps": 10},
           "nodes": [{"name": "a", "width": 2, "active": [1, 0]}, {"name": "b", "width": 2}],
           "edges": [{"from": "input", "to": "a"}, {"from": "a", "to": "output"},
                     {"from": "input", "to": "b", "rows": [0]}, {"from": "b", "to": "output"}]}
    with pytest.raises(DerivationError) as err:
        Derivation(spec_from_dict(doc)).modes
    assert err.value.field == "nodes[1]"
    # one chain input → wide → narrow → output on X = Y = I (Σyx = I/2, rank 2): the narrow node
    # (width 1, nodes[1]) cannot hold rank 2 in an aligned start
    doc2 = {"name": "g2", "data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, 0], [0, 1]]},
            "training": {"lr": 0.05, "steps": 10},
            "nodes": [{"name": "wide", "width": 3}, {"name": "narrow", "width": 1}],
            "edges": [{"from": "input", "to": "wide"}, {"from": "wide", "to": "narrow"},
                      {"from": "narrow", "to": "output"}]}
    with pytest.raises(SpecError) as err2:
        aligned_params(spec_from_dict(doc2), 1e-3)
    assert err2.value.field == "nodes[1].width"


def test_race_blocks_equal_the_unsplit_race_and_scipy():
    """The race split into independent blocks (theorykit.theory.race.RaceSystem) is the unsplit race
    and SciPy's map equation (tests/race_reference.py): pathways read different input rows and
    write different outputs (no projection, one block with masks), or all outputs (blocks)."""
    from race_reference import scipy_race
    from theorykit.theory.flow import RK4
    from theorykit.theory.race import RaceSystem

    rng = np.random.default_rng(1)
    K, p, d, D, P = 4, 3, 4, 7, 12
    X, Y = rng.normal(size=(D, P)), rng.normal(size=(p, P))
    G = (rng.random((K, P)) > 0.4).astype(float)
    rows = [sorted(rng.choice(D, d, replace=False)) for _ in range(K)]
    outs = [[0, 1, 2], [0, 1], [1, 2], [0, 1, 2]]
    times = [0, 50, 200, 1000]
    for outputs in (None, outs):
        split = RaceSystem.from_data(X, Y, G, inputs=rows, outputs=outputs)
        whole = RaceSystem.from_data(X, Y, G, inputs=rows, outputs=outputs, split=False)
        # one fixed RK4 step for both: the same recurrence in other coordinates
        a = split.solve(times, tau=10.0, a0=[[1e-3] * K, [1e-2] * K], solver=RK4(0.25))
        b = whole.solve(times, tau=10.0, a0=[[1e-3] * K, [1e-2] * K], solver=RK4(0.25))
        assert np.max(np.abs(a.loss - b.loss)) < 1e-12
        for n in split.names:
            assert np.max(np.abs(a.saved["modes"][n] - b.saved["modes"][n])) < 1e-12
            assert np.max(np.abs(a.params[n] - b.params[n])) < 1e-12
        ref, _ = scipy_race(X, Y, G, a0=1e-2, tau=10.0, times=times, inputs=rows, outputs=outputs)
        np.testing.assert_allclose(split.solve(times, tau=10.0, a0=1e-2).loss[0], ref, rtol=1e-7)
        assert a.loss[0, -1] < 0.5 * a.loss[0, 0]          # it did learn
    assert len(RaceSystem.from_data(X, Y, G, inputs=rows, outputs=outs).blocks) == 1


def test_race_blocks_do_not_depend_on_the_data_scale():
    """The block split weighs Σx and the output Grams each against its own scale. With one threshold
    for both, Y·1e-6 put the Grams' real couplings (pathways writing the same outputs) under it:
    6 blocks instead of 1, and L(0) of the aligned start 2 % off the unsplit race (0.987 against 1.009)."""
    from theorykit.theory.flow import RK4
    from theorykit.theory.race import RaceSystem

    Y = np.random.default_rng(0).standard_normal((3, 6))
    G = np.array([[1, 1, 1, 0, 0, 0], [0, 0, 1, 1, 1, 1], [0, 0, 0, 0, 1, 1]])
    c = 1e-6
    for sx, sy in [(1, 1), (1, c), (1 / c, 1), (c, 1)]:
        assert len(RaceSystem.from_data(np.eye(6) * sx, Y * sy, G).blocks) == 1
    split, whole = (RaceSystem.from_data(np.eye(6), Y * c, G, split=s) for s in (True, False))
    a, b = (r.solve([0, 1, 2], tau=1.0, a0=0.1 * c, solver=RK4(0.01)).loss for r in (split, whole))
    np.testing.assert_allclose(a, b, rtol=1e-10)


def test_packed_siblings_train_as_the_unpacked_graph():
    """pack_net merges sibling modules (one edge in from h, one edge out to the output, same
    schedule groups) into one node per group, with per-unit gates. Training the packed net is the
    same gradient descent: the loss curve, the recorded outputs and the final weights equal the
    unpacked engine's (itself checked against numpy above) to rounding, under a staged schedule."""
    import jax.numpy as jnp

    from theorykit.net.layout import net_apply

    from theorykit.sim.engine import pack_net, train_net
    from theorykit.spec.graph import graph_from_pathways

    d = {"name": "siblings", "data": {"inputs": X6, "targets": Y6},
         "nodes": [{"name": "h", "width": 4},
                   {"name": "m1", "width": 2}, {"name": "m2", "width": 3, "active": [1, 1, 0, 0, 1, 1]},
                   {"name": "m3", "width": 2, "active": [0, 1, 1, 1, 1, 0]}],
         "edges": [{"from": "input", "to": "h"}, {"from": "h", "to": "m1"}, {"from": "h", "to": "m2"},
                   {"from": "h", "to": "m3"}, {"from": "m1", "to": "output"}, {"from": "m2", "to": "output"},
                   {"from": "m3", "to": "output"}],
         "schedule": [{"name": "common", "edges": ["input->h", "h->m1", "h->m2", "m1->output", "m2->output"],
                       "start": 2},
                      {"name": "ctx", "edges": ["h->m3", "m3->output"], "start": 8, "fit": ["common"]}],
         "training": {"lr": 0.05, "loss": "mean", "a0": 1e-3, "init_std": 0.3, "steps": 30}}
    g = graph_from_pathways(spec_from_dict(d))
    net = Net.from_graph(g)
    pk = pack_net(net, g.schedule)
    assert [n for n, _w in pk.net.nodes] == ["h", "m1+m2", "m3"]
    assert pk.net.node_gates["m1+m2"].shape == (5, 6) and "m3" in pk.net.node_gates
    assert [gr.edges for gr in pk.schedule] == [("input->h", "h->m1+m2", "m1+m2->output"), ("h->m3", "m3->output")]
    p0 = random_params(net, 0.3, 2, 4)
    data = tuple(jnp.asarray(np.array(m, float)) for m in (X6, Y6))
    save = SaveAt(ts=[5, 20], fns={"out": lambda p, dd: net_apply(net, p, dd[0])})
    runs = [train_net(net, p0, data, loss="mean", schedule=g.schedule, lr=0.05, steps=30, save=save, pack=flag)
            for flag in (True, False)]
    a, b = runs
    np.testing.assert_allclose(a.loss, b.loss, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(np.asarray(a.saved["out"]), np.asarray(b.saved["out"]), atol=1e-12)
    assert set(a.params) == set(b.params) == set(net.keys)
    for k in net.keys:
        np.testing.assert_allclose(np.asarray(a.params[k]), np.asarray(b.params[k]), atol=1e-12)
    assert np.all(a.loss[:, 2] == a.loss[:, 0]) and a.loss[0, -1] < 0.8 * a.loss[0, 0]   # held, then learned


def test_race_of_a_nets_edges_is_the_map_equation():
    """The race with a network's edge weights as its state (RaceSystem.from_net, the layout of
    graphs with shared edges), on private chains that read different input rows and write different
    outputs: started from aligned, balanced weights built here by hand (W1 = √a0 V_pᵀ,
    W2 = √a0 U_p, numpy's SVD of each Σyx_p), its loss is SciPy's map equation
    (tests/race_reference.py, LSODA) from the maps a0 U_p V_pᵀ."""
    from race_reference import scipy_race
    from theorykit.net.layout import Net
    from theorykit.theory.race import RaceSystem

    rng = np.random.default_rng(3)
    K, D, p, P = 3, 5, 3, 10
    X, Y = rng.normal(size=(D, P)), rng.normal(size=(p, P))
    G = (rng.random((K, P)) > 0.4).astype(float)
    rows = [[0, 1, 2], [1, 3, 4], [0, 2, 3, 4]]
    outs = [[0, 1], [1, 2], [0, 1, 2]]
    a0, tau, times = 1e-2, 10.0, [0.0, 40.0, 200.0, 900.0]
    nodes, edges, start = [], [], {}
    for k in range(K):
        Syx = (Y[outs[k]] * G[k]) @ X[rows[k]].T / P
        U, s, Vt = np.linalg.svd(Syx, full_matrices=False)
        r = int(np.sum(s > 1e-12 * s[0]))
        nodes.append((f"h{k}", r))
        edges += [(f"input->h{k}", "input", f"h{k}", np.array(rows[k]), None),
                  (f"h{k}->output", f"h{k}", "output", None, np.array(outs[k]))]
        start[f"input->h{k}"] = np.sqrt(a0) * Vt[:r][None]
        start[f"h{k}->output"] = np.sqrt(a0) * U[:, :r][None]
    net = Net(D, p, tuple(nodes), tuple(edges), {f"h{k}": G[k] for k in range(K)}, {})
    system = RaceSystem.from_net(net, X, Y, tau=tau)
    got = system.solve(times, start=start).loss[0]
    ref, _ = scipy_race(X, Y, G, a0=a0, tau=tau, times=times, inputs=rows, outputs=outs)
    np.testing.assert_allclose(got, ref, rtol=1e-7)
    assert got[-1] < 0.5 * got[0]                              # it did learn
    # the loss of the state is the mean loss on the raw data, written out here
    W = {k: v[0] for k, v in start.items()}
    Yh = np.zeros((p, P))
    for k in range(K):
        Yh[outs[k]] += (W[f"h{k}->output"] @ W[f"input->h{k}"] @ X[rows[k]]) * G[k]
    assert float(system.loss(W)) == pytest.approx(0.5 * np.sum((Y - Yh) ** 2) / P, rel=1e-12)
    # a start of the wrong kind is named
    with pytest.raises(SpecError) as e:
        system.solve(times)
    assert e.value.field == "start"
    with pytest.raises(SpecError) as e:
        RaceSystem.from_data(X, Y, G).solve(times, tau=tau, start=start)
    assert e.value.field == "start"
    for bad, field in (({"masks": [[1, 0, 1]]}, "masks"), ({"a0": 0.1}, "a0")):
        with pytest.raises(SpecError) as e:
            system.solve(times, start=start, **bad)
        assert e.value.field == field


def test_graph_race_aligned_start_and_its_errors():
    """RaceSystem.from_graph: its aligned start is the graph's own (L(0) of the solve is the loss
    of RaceSystem.start(a0)); a larger a0 starts lower and learns sooner; one strength only."""
    from theorykit.theory.race import RaceSystem

    g = spec_from_dict(shared_graph_dict())
    system = RaceSystem.from_graph(g)
    t = [0.0, 20.0, 50.0]
    base = system.solve(t, modes=False)
    assert base.loss[0, 0] == pytest.approx(float(system.loss(system.start(system.a0))) * system.loss_factor, rel=1e-12)
    assert set(base.extra["widths"].values()) == {3}                   # the rank of the task's Σyx
    big = system.solve(t, a0=0.1, modes=False)
    assert big.loss[0, 0] < base.loss[0, 0] and big.loss[0, -1] < base.loss[0, -1]
    with pytest.raises(SpecError) as e:
        system.solve(t, a0=[1e-3, 1e-1])
    assert e.value.field == "a0"


def test_race_block_frames_ignore_rounding_noise():
    """A fuzz case (reference mismatch): periodic data with 200 inputs and 200 datapoints (rank 4)
    and one pathway of rank 2. The block split rotates Σyx into block bases; the rounding noise left
    there (3e-12 against singular values of 0.2) was taken for two more modes, and the aligned start
    put a0 on them, so the race's L(0) was 0.004 above the network's. Reference, by hand: the aligned
    start is the map M = a0 Σ_α u_α v_αᵀ (numpy's SVD of Σyx here), and L(0) = ½‖Y − M X‖²/P."""
    P = d = 200
    vals, w = np.array([-2.0, 1, -1, 2, 0]), np.array([-1.0, 0, 1])
    X = np.array([[vals[(mu - i) % 5] for mu in range(P)] for i in range(d)])
    Y = np.array([[w[(mu + j) % 3] for mu in range(P)] for j in range(2)])
    a0 = 0.01
    S = Y @ X.T / P
    U, s, Vt = np.linalg.svd(S, full_matrices=False)
    keep = s > 1e-9 * s[0]
    M = a0 * U[:, keep] @ Vt[keep]
    want = 0.5 * np.sum((Y - M @ X) ** 2) / P
    rs = RaceSystem.from_data(X, Y, np.ones((1, P)))
    got = rs.solve([0.0], tau=10.0, a0=a0, modes=False).loss[0, 0]
    assert len(rs.blocks) > 1                              # the split is what is tested
    assert got == pytest.approx(want, rel=1e-10), (got, want)


def test_shared_edge_aligned_start_puts_the_mean_path_strength_at_a0_across_depths():
    """Paths of depths 2 and 3 through a shared node s (input→s→output and input→s→t→output, t on two
    of three contexts): the mean of the paths' top singular values (each path's product of weights,
    computed here by matrix products) is a0. The common factor used the mean depth as if all paths had
    it, which put the mean at 0.0153 for a0 = 0.01."""
    from theorykit.net.layout import Net
    from theorykit.net.starts import aligned_params
    from theorykit.spec.graph import Edge, GraphSpec, Node

    task = tk.contexts(4, 3)
    gate = tuple(int(mu // 4 in (0, 1)) for mu in range(task.P))
    g = GraphSpec(task, (Node("s", 20), Node("t", 20, gate)),
                  (Edge("input", "s"), Edge("s", "output"), Edge("s", "t"), Edge("t", "output")), tk.Training(a0=0.01))
    p0 = {k: np.asarray(v[0]) for k, v in aligned_params(g, 0.01, 1, 0).items()}
    tops = []
    for keys, *_ in Net.from_graph(g).paths(task.P):
        M = p0[keys[0]]
        for k in keys[1:]:
            M = p0[k] @ M
        tops.append(np.linalg.svd(M, compute_uv=False)[0])
    assert len(tops) == 2 and np.mean(tops) == pytest.approx(0.01, rel=1e-9)


def test_race_of_pathways_of_mixed_depths_matches_scipy():
    """Pathways of depths 3, 2, 2 (in that order): the race stacks them by depth (2, 2, then 3), and
    must put each map back at its own pathway. Reference: SciPy's gradient flow on minimal balanced
    weights on the same data (tests/race_reference.py, form="weights": no stacking, no blocks; the
    map form's matrix powers made LSODA take minutes here). Three different gates on the 6-point
    task, so every pathway has its own effective dataset, and all write every output (coupled)."""
    from race_reference import scipy_race

    X, Y = np.array(X6, float), np.array(Y6, float)
    gates = [[1, 1, 1, 0, 0, 1], [0, 1, 1, 1, 1, 0], [1, 0, 1, 1, 0, 1]]
    times = np.array([0.0, 2.0, 5.0, 10.0])
    ref, _ = scipy_race(X, Y, gates, a0=0.1, tau=1.0, times=times, depth=[3, 2, 2], form="weights",
                        rtol=1e-10, atol=1e-13)
    ours = RaceSystem.from_data(X, Y, gates, depth=[3, 2, 2]).solve(times, tau=1.0, a0=0.1, modes=False).loss[0]
    np.testing.assert_allclose(ours, ref, rtol=1e-6)
    assert ref[-1] < 0.7 * ref[0]                      # the window saw learning


def test_relu_unit_at_exactly_zero_is_off_and_passes_no_gradient():
    """A ReLU unit whose pre-activation is exactly 0 on a non-zero input is off
    (docs/theory.md#reln: on where the pre-activation is positive) and passes no gradient, as in
    the hand-derived numpy gradient descent of tests/_gd_reference.py (``pre > 0``). By hand, with
    W1 = [[1, −1], [2, 0], [−1, ½]] and the columns x = (1, 1), (1, 0), (−1, 2): the
    pre-activations are [0, 1, −3], [2, 2, −2], [−½, −1, 2], so the gates are [0, 1, 0], [1, 1, 0],
    [0, 0, 1]. (A max(pre, 0) whose derivative at 0 is ½ moves W1's first row along x = (1, 1).)"""
    from _gd_reference import relu_gd
    from theorykit.net.layout import unit_activity
    from theorykit.sim.engine import train_net

    net = Net.chain(2, [3], 1)
    W1 = np.array([[1.0, -1.0], [2.0, 0.0], [-1.0, 0.5]])
    W2 = np.array([[0.5, -1.0, 2.0]])
    X, Y = np.array([[1.0, 1.0, -1.0], [1.0, 0.0, 2.0]]), np.array([[1.0, -1.0, 2.0]])
    params = {"input->h1": W1, "h1->output": W2}
    gates = np.asarray(unit_activity(net, params, X)["h1"])
    np.testing.assert_array_equal(gates, [[0, 1, 0], [1, 1, 0], [0, 0, 1]])
    res = train_net(net, {k: v[None] for k, v in params.items()}, (X, Y), loss="sum", lr=0.1, steps=3)
    want, W1_ref, W2_ref = relu_gd(W1, W2, X, Y, 0.1, 3, "sum")
    np.testing.assert_allclose(res.loss[0], want, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(res.params["input->h1"][0]), W1_ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(np.asarray(res.params["h1->output"][0]), W2_ref, rtol=0, atol=1e-14)


def test_schedule_holds_an_edge_until_its_own_group_starts():
    """The mask of a schedule (theorykit.net.layout.objective_for): an edge trains once a group
    holding it has started, even where an earlier group's loss depends on it. Here the shared edge
    input->h is in group b only (from step 5) while group a (h->a, a->output, from step 2) reads h:
    for steps 2-4 a's loss has a gradient on input->h, and the edge must still not move. Checked
    against the numpy loop of test_schedule_matches_hand_written_staged_loop with that mask."""
    d = shared_graph_dict(lr=0.05, steps=9)
    d["schedule"] = [{"name": "a", "edges": ["h->a", "a->output"], "start": 2},
                     {"name": "b", "edges": ["input->h", "h->b", "b->output"], "start": 5}]
    g = spec_from_dict(d)
    net = Net.from_graph(g)
    rng = np.random.default_rng(7)
    W = {k: 0.3 * rng.standard_normal(s) for k, s in net.shapes().items()}
    res = tk.simulate(g, init={k: v[None] for k, v in W.items()}, seeds=1, steps=9)
    losses, W_h = _staged_gd(W, 9, 0.05, a_start=2, b_start=5, hold_input_until=5)
    assert np.array_equal(W_h[5], W_h[0]) and not np.allclose(W_h[6], W_h[5])
    np.testing.assert_allclose(res.loss[0], losses, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(np.asarray(res.params["input->h"][0]), W_h[-1], rtol=1e-10, atol=1e-13)


def test_loss_curve_off_the_recording_grid_matches_numpy():
    """The plain trainer's loss curve when the step count is not a multiple of ``loss_every``: 10
    steps recorded every 4 give the steps 0, 4, 8 and the last, 10 (SaveAt's rule), each equal to
    the hand-written numpy gradient descent of tests/_gd_reference.py at that step."""
    from _gd_reference import relu_gd
    from theorykit.sim.engine import train_net

    rng = np.random.default_rng(11)
    X, Y = rng.standard_normal((3, 5)), rng.standard_normal((2, 5))
    W1, W2 = 0.5 * rng.standard_normal((4, 3)), 0.5 * rng.standard_normal((2, 4))
    net = Net.chain(3, [4], 2)
    res = train_net(net, {"input->h1": W1[None], "h1->output": W2[None]}, (X, Y), loss="sum", lr=0.05,
                    steps=10, save=SaveAt(loss_every=4))
    want, _, _ = relu_gd(W1, W2, X, Y, 0.05, 10, "sum")
    np.testing.assert_array_equal(res.t, [0, 4, 8, 10])
    np.testing.assert_allclose(res.loss[0], want[[0, 4, 8, 10]], rtol=1e-12)
    assert want[10] < want[0]


def test_scaled_graph_and_edge_init_scales_by_hand():
    """scaled(g, factor, time) (its docstring): widths × factor, σ × 1/√factor (so σ√H is kept), η ×
    time, steps and schedule starts ÷ time. By hand for factor 4, time 2: widths 4, 3 → 16, 12; the
    edge's own σ 0.5 → 0.25 and init_std 0.01 → 0.005 (1/√4 = 1/2); lr 0.05 → 0.1; steps 2000 → 1000;
    starts 0, 500 → 0, 250. edge_init_scales: an edge's own init_scale, else the default given
    (docs/specs.md: edges[].init_scale defaults to training.init_std)."""
    from theorykit.spec.graph import scaled

    g = spec_from_dict({
        "data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, -1]]},
        "nodes": [{"name": "h", "width": 4}, {"name": "k", "width": 3}],
        "edges": [{"from": "input", "to": "h"}, {"from": "h", "to": "output", "init_scale": 0.5},
                  {"from": "input", "to": "k"}, {"from": "k", "to": "output"}],
        "schedule": [{"name": "g0", "edges": ["input->h", "h->output"]},
                     {"name": "g1", "edges": ["input->k", "k->output"], "start": 500, "fit": ["g0"]}],
        "training": {"lr": 0.05, "init_std": 0.01, "steps": 2000}})
    assert g.edge_init_scales(0.01) == {"input->h": 0.01, "h->output": 0.5, "input->k": 0.01, "k->output": 0.01}
    assert scaled(g, 1.0, 1) is g
    s = scaled(g, 4.0, 2)
    assert [n.width for n in s.nodes] == [16, 12]
    assert [e.init_scale for e in s.edges] == [None, pytest.approx(0.25), None, None]
    assert s.training.init_std == pytest.approx(0.005) and s.training.lr == pytest.approx(0.1)
    assert s.training.steps == 1000 and [gr.start for gr in s.schedule] == [0, 250]
    assert s.edge_init_scales(s.training.init_std) == pytest.approx(
        {"input->h": 0.005, "h->output": 0.25, "input->k": 0.005, "k->output": 0.005})
