"""Rules from a maintainer removing copies in the simulation layer and the derivation scripts (issue 26,
"one way to do each thing", fourth pass): each rule pins that a job is done in one place and that the
results stay those of gradient descent written out in numpy here, to 1e-12 in float64.
"""
import ast
import logging
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import theorykit as tk
from theorykit.net.layout import Net
from theorykit.record import SaveAt
from theorykit.sim import engine, simulation
from theorykit.sim.engine import train_net
from theorykit.sim.simulation import relu_gates
from theorykit.spec.gating import GDLNSpec, xor_relns
from theorykit.spec.task import xor_margin

ROOT = Path(__file__).resolve().parents[1]
SIM = ROOT / "theorykit" / "sim"


def _sibling_net():
    """Two sibling pathways input → a → output and input → b → output (pack_net merges them), node
    gates per pattern: a on patterns 0, 1, 2; b on 1, 2, 3."""
    ga, gb = np.array([1.0, 1.0, 1.0, 0.0]), np.array([0.0, 1.0, 1.0, 1.0])
    rows_in, rows_out = np.arange(3), np.arange(2)
    edges = (("input->a", "input", "a", rows_in, None), ("a->output", "a", "output", None, rows_out),
             ("input->b", "input", "b", rows_in, None), ("b->output", "b", "output", None, rows_out))
    return Net(3, 2, (("a", 2), ("b", 3)), edges, {"a": ga, "b": gb}, {}, False), {"a": ga, "b": gb}


def _numpy_gd(params, gates, X, Y, lr, steps):
    """Full-batch gradient descent on the mean loss L = ‖Y − Ŷ‖²/(2P), Ŷ = Σ_v W_v,out (g_v ⊙ W_in,v X),
    written out by hand: ∂L/∂W_v,out = −R (g_v ⊙ H_v)ᵀ/P and ∂L/∂W_in,v = −(g_v ⊙ W_v,outᵀ R) Xᵀ/P with
    R = Y − Ŷ. Returns every member's loss at steps 0 … steps."""
    P = X.shape[1]
    out = []
    for m in range(next(iter(params.values())).shape[0]):
        W = {k: np.array(v[m], float) for k, v in params.items()}
        curve = []
        for t in range(steps + 1):
            H = {v: W[f"input->{v}"] @ X for v in gates}
            R = Y - sum(W[f"{v}->output"] @ (gates[v] * H[v]) for v in gates)
            curve.append(0.5 * np.sum(R ** 2) / P)
            if t == steps:
                break
            grads = {}
            for v, g in gates.items():
                grads[f"{v}->output"] = -R @ (g * H[v]).T / P
                grads[f"input->{v}"] = -(g * (W[f"{v}->output"].T @ R)) @ X.T / P
            W = {k: W[k] - lr * grads[k] for k in W}
        out.append(curve)
    return np.array(out)


@pytest.fixture(scope="module")
def case():
    net, gates = _sibling_net()
    rng = np.random.default_rng(7)
    X, Y = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    p0 = {k: rng.normal(scale=0.3, size=(2,) + tuple(s)) for k, s in net.shapes().items()}
    return net, gates, X, Y, p0


@pytest.mark.parametrize("pack", [True, False])
def test_train_net_packed_or_not_is_numpy_gradient_descent(case, pack):
    """train_net ran a packed net and an unpacked one down two copies of the same call (objective_for,
    net_loss, train); now one call serves both. Either way the loss curve is numpy's gradient descent
    to 1e-12, recorded at 0, 3, 6 and the last step 7, and save.fns see the original edge keys."""
    net, gates, X, Y, p0 = case
    save = SaveAt(ts=[2, 7], fns={"Wa": lambda p, d: p["a->output"]}, loss_every=3)
    res = train_net(net, p0, (X, Y), lr=0.05, steps=7, save=save, pack=pack)
    ref = _numpy_gd(p0, gates, X, Y, 0.05, 7)
    assert res.t.tolist() == [0, 3, 6, 7]
    np.testing.assert_allclose(res.loss, ref[:, [0, 3, 6, 7]], rtol=0, atol=1e-12)
    assert res.saved["Wa"].shape == (2, 2, 2, 2) and res.saved_t.tolist() == [2, 7]
    assert sorted(res.params) == sorted(net.shapes())


@pytest.mark.parametrize("every,steps,want", [(3, 7, [0, 3, 6, 7]), (2, 6, [0, 2, 4, 6]), (5, 3, [0, 3]),
                                              (1, 0, [0]), (0, 5, [])])
def test_the_loss_curve_steps_are_one_grid_of_saveat(every, steps, want):
    """The steps of the trainer's loss curve were worked out three times: a count in _build_run
    (steps // every + 1, one more where every does not divide steps), np.unique of a range in
    _make_trainer, and a set of a range in the fused kernel's driver. SaveAt.loss_steps is the one
    grid: 0, every, 2·every, … and the last step (none with loss_every = 0); by hand above."""
    assert SaveAt(loss_every=every).loss_steps(steps).tolist() == want


def test_the_fused_kernel_records_the_loss_at_the_same_steps(case):
    """The fused kernel's driver records its loss at SaveAt.loss_steps too, and its curve is numpy's."""
    net, gates, X, Y, p0 = case
    pytest.importorskip("jax.experimental.pallas")
    res = train_net(net, p0, (X, Y), lr=0.05, steps=7, save=SaveAt(loss_every=3), fused=True)
    np.testing.assert_allclose(res.loss, _numpy_gd(p0, gates, X, Y, 0.05, 7)[:, [0, 3, 6, 7]], rtol=0, atol=1e-12)
    assert res.t.tolist() == [0, 3, 6, 7]


def _calls(path, name):
    return [n for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Call)
            and getattr(n.func, "id", getattr(n.func, "attr", None)) == name]


def test_a_saveat_is_copied_with_replace_not_field_by_field():
    """train_net (packed weights) and the ReLU snapshots rebuilt SaveAt from its five fields written
    out in order, SaveAt(save.ts, save.every, fns, save.loss_every, save.final): a field added to
    SaveAt would be dropped there. Both now change only what they change, dataclasses.replace."""
    for name in ("engine.py", "simulation.py"):
        assert [c.lineno for c in _calls(SIM / name, "SaveAt") if len(c.args) > 1] == [], name


def test_simulate_passes_on_step_as_it_is():
    """The GDLN and ReLU runs passed on_step as **({"on_step": on_step} if on_step is not None else {}),
    though train_net takes on_step=None as no callback (and the fused path drops options that are None);
    a dict unpacked into a call is gone from simulation.py."""
    calls = _calls(SIM / "simulation.py", "train_net")
    assert len(calls) == 2 and all(k.arg is not None for c in calls for k in c.keywords)


def test_the_gdln_run_checks_seeds_once():
    """simulate checked seeds (integer, lo=1) and its GDLN run checked them again (positive_int), a check
    that could never fail there; the one check's message stays."""
    assert _calls(SIM / "simulation.py", "positive_int") == []
    with pytest.raises(tk.SpecError, match="seeds"):
        tk.simulate(GDLNSpec(xor_margin(0.5), tuple(xor_relns(8)["linear"])), seeds=0)


def test_a_relu_runs_final_gates_are_relu_gates_of_its_final_weights(monkeypatch):
    """The ReLU run's extra["gates"] were a second copy of relu_gates (unit_activity > 0 per hidden
    layer, vmapped by hand); the run now calls relu_gates itself. Against numpy: hᵢ = Wᵢ relu(hᵢ₋₁),
    the gate of layer i is hᵢ > 0, from the returned final weights."""
    calls = []
    monkeypatch.setattr(simulation, "relu_gates", lambda *a: calls.append(1) or relu_gates(*a))
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(3, 6)), rng.normal(size=(2, 6))
    res = tk.simulate((X, Y), network="relu", hidden=[4, 5], lr=0.05, steps=20, seeds=3)
    assert calls
    for m in range(3):
        h, want = X, []
        for W in res.params[:-1]:
            h = np.asarray(W[m]) @ h
            want.append(h > 0)
            h = np.maximum(h, 0)
        for got, ref in zip(res.extra["gates"], want):
            assert got.dtype == bool and (got[m] == ref).all()


def test_simulate_takes_a_specs_training_settings_in_one_place():
    """simulate took lr, steps, init_std and loss from the spec's training settings for a ReLU network,
    and its GDLN run took them again (graph_from_pathways, g.training, four "x if x is None" lines);
    now simulate resolves them once for both networks and the GDLN run gets the graph and its data.
    Pinned: the spec's own steps (set to 6 here) end the loss curve for either network."""
    fn = next(n for n in ast.parse((SIM / "simulation.py").read_text()).body
              if isinstance(n, ast.FunctionDef) and n.name == "_simulate_gdln")
    names = {getattr(n, "attr", getattr(n, "id", None)) for n in ast.walk(fn)}
    assert "graph_from_pathways" not in names and "numeric" not in names
    spec = GDLNSpec(xor_margin(0.5), tuple(xor_relns(8)["linear"]))
    spec = replace(spec, training=replace(spec.training, steps=6))
    for network in ("gdln", "relu"):
        res = tk.simulate(spec, network=network, seeds=2, save=SaveAt(loss_every=2))
        assert res.t.tolist() == [0, 2, 4, 6], network


def test_jax_log_of_an_exception_raised_again_is_dropped_by_a_plain_function():
    """The trainer drops JAX's log of an exception that on_step raised (it is raised again, as itself):
    a logging.Filter subclass, _DropLogged, held the test beside a context manager; logging takes a
    plain function as a filter, so the context manager holds the test itself. Kept: the same test, a
    record dropped exactly when its exception is one of those raised, and the filter removed after."""
    tree = ast.parse((SIM / "engine.py").read_text())
    assert not [c.name for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and c.bases
                and ast.unparse(c.bases[0]) == "logging.Filter"]
    log = logging.getLogger("jax._src.debugging")
    mine, other = KeyboardInterrupt(), ValueError("x")

    def record(exc):
        return logging.LogRecord("jax._src.debugging", logging.ERROR, __file__, 1, "callback failed", None,
                                 None if exc is None else (type(exc), exc, None))
    before = list(log.filters)
    with engine._dropping_logged([mine]):
        assert [bool(log.filter(record(e))) for e in (mine, other, None)] == [False, True, True]
    assert log.filters == before and log.filter(record(mine))


def test_simulate_returns_the_trainers_trajectory_with_its_own_extra():
    """The GDLN and ReLU runs rebuilt the trainer's Trajectory from its six fields written out in
    order to set params and extra; they now replace those two (dataclasses.replace), so t, loss,
    saved and saved_t are the trainer's own. Against numpy: the ReLU run's loss is the mean loss
    ‖Y − W2 relu(W1 X)‖²/(2P) of its initial and final weights."""
    assert [c.lineno for c in _calls(SIM / "simulation.py", "Trajectory")] == []
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(3, 5)), rng.normal(size=(2, 5))
    W1, W2 = rng.normal(scale=0.4, size=(2, 4, 3)), rng.normal(scale=0.4, size=(2, 2, 4))
    res = tk.simulate((X, Y), network="relu", hidden=4, lr=0.1, steps=5, seeds=2, init={"W1": W1, "W2": W2},
                      save=SaveAt(loss_every=5))
    A, B = (np.asarray(W) for W in res.params)       # the final weights; 2P = 10

    def mean_loss(a, b):
        return np.sum((Y - b @ np.maximum(a @ X, 0)) ** 2) / 10
    starts, ends = [mean_loss(W1[m], W2[m]) for m in range(2)], [mean_loss(A[m], B[m]) for m in range(2)]
    np.testing.assert_allclose(res.loss, np.array([starts, ends]).T, rtol=0, atol=1e-12)
    assert res.t.tolist() == [0, 5] and sorted(res.extra) == ["devices", "dtype", "gates"]
