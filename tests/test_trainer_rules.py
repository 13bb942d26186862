"""The one trainer's rules, each against an independent source: gradient descent written out in
numpy with hand-derived gradients (tests/_gd_reference.py), or a toy loss whose descent is known
in closed form (L = ½‖w‖²: w_t = (1 − η)^t w_0, by hand).

Found by a mutation check of theorykit/net/layout.py, sim/engine.py, sim/simulation.py, record.py and
curves.py: each test here fails for at least one operator swap that the suite let pass before
(rows read in another order, the 1/P of the mean loss taken over outputs, a schedule group starting
a step late, the recorded steps shifted by one, a member's own learning rate, …).
"""
import jax.numpy as jnp
import numpy as np
import pytest

import theorykit as tk
from _gd_reference import gdln_gd, relu_gd, scheduled_gd
from theorykit.net.layout import Net, net_apply, net_loss, unit_activity
from theorykit.net.starts import random_params
from theorykit.record import SaveAt, check_finite
from theorykit.sim.engine import train, train_net
from theorykit.spec.graph import Group

RTOL = 1e-10


def _net_and_pathways(P):
    """A GDLN written as a Net, and the same network as pathways for the numpy reference.

    a: reads input rows (2, 0), writes output rows (1, 0) (a permutation of all outputs), node gate;
    b: reads rows (1, 0, 2) (a permutation of all inputs), writes row 1, gated on both edges;
    c1, c2: siblings (the trainer merges them into one node of 3 + 1 units) on rows (0, 1) → (0, 1),
    c1 gated, c2 always on; c3, their sibling but for the gate on its edge out, which keeps it apart.
    A linear pathway gated anywhere is gated at its output."""
    assert P == 5
    # b's two edge gates differ at datapoints 1 (in on, out off) and 2 (in off, out on)
    ga, gb1, gb2, gc, g3 = (np.array(g, float) for g in ([1, 0, 1, 1, 0], [1, 1, 0, 1, 0], [1, 0, 1, 1, 1],
                                                         [0, 1, 1, 0, 1], [1, 1, 0, 1, 0]))
    net = Net(3, 2, (("a", 2), ("b", 3), ("c1", 3), ("c2", 1), ("c3", 2)),
              (("input->a", "input", "a", np.array([2, 0]), None),
               ("a->output", "a", "output", None, np.array([1, 0])),
               ("input->b", "input", "b", np.array([1, 0, 2]), None),
               ("b->output", "b", "output", None, np.array([1])),
               ("input->c1", "input", "c1", np.array([0, 1]), None),
               ("c1->output", "c1", "output", None, np.array([0, 1])),
               ("input->c2", "input", "c2", np.array([0, 1]), None),
               ("c2->output", "c2", "output", None, np.array([0, 1])),
               ("input->c3", "input", "c3", np.array([0, 1]), None),
               ("c3->output", "c3", "output", None, np.array([0, 1]))),
              {"a": ga, "c1": gc}, {"input->b": gb1, "b->output": gb2, "c3->output": g3})
    pathways = [(ga, [2, 0], [1, 0]), (gb1 * gb2, [1, 0, 2], [1]), (gc, [0, 1], [0, 1]), (np.ones(P), [0, 1], [0, 1]),
                (g3, [0, 1], [0, 1])]
    order = [("input->a", "a->output"), ("input->b", "b->output"), ("input->c1", "c1->output"),
             ("input->c2", "c2->output"), ("input->c3", "c3->output")]
    return net, pathways, order


@pytest.mark.parametrize("pack", [True, False])
@pytest.mark.parametrize("loss", ["mean", "sum"])
def test_a_gated_net_with_rows_in_any_order_descends_as_numpy_does(loss, pack):
    """Forward pass, loss (½Σ‖y − ŷ‖², over P = 5 datapoints for "mean", not over the p = 2 outputs),
    gradient and step of a Net with permuted input and output rows, node and edge gates and packed
    siblings, against plain numpy gradient descent (_gd_reference.gdln_gd), member by member."""
    P = 5
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(3, P)), rng.normal(size=(2, P))
    net, pathways, order = _net_and_pathways(P)
    p0 = random_params(net, 0.6, seeds=2, seed=3)
    lr, steps = 0.1, 8
    res = train_net(net, p0, (jnp.asarray(X), jnp.asarray(Y)), loss=loss, lr=lr, steps=steps, pack=pack)
    assert list(res.t) == list(range(steps + 1))
    for m in range(2):
        params = [[np.asarray(p0[k][m]) for k in ks] for ks in order]
        want, Ws = gdln_gd(pathways, params, X, Y, lr, steps, loss=loss)
        np.testing.assert_allclose(res.loss[m], want, rtol=RTOL)
        for ks, W in zip(order, Ws):
            for k, w in zip(ks, W):
                np.testing.assert_allclose(np.asarray(res.params[k][m]), w, rtol=RTOL, atol=1e-14, err_msg=k)
        # the loss function itself, at the start: ½ Σ (y − ŷ)² (over P for the mean)
        first = {k: p0[k][m] for k in p0}
        assert float(net_loss(net, loss)(first, (X, Y))) == pytest.approx(want[0], rel=RTOL)


def test_forward_pass_of_a_graph_whose_nodes_sum_their_edges():
    """h_v = g_v ⊙ Σ_{e: u→v} g_e ⊙ (W_e h_u) (docs/theory.md#gdln), written out by hand for a graph
    whose node m sums an edge from the input (rows 1, 0, 2) and one from node a (rows 2, 0), and
    whose output sums m into rows (1, 0) and a into row 0 (through an edge gate)."""
    rng = np.random.default_rng(6)
    P = 4
    X = rng.normal(size=(3, P))
    ga, gm, ge, go = (np.array(g, float) for g in ([1, 0, 1, 1], [1, 1, 0, 1], [0, 1, 1, 1], [1, 1, 1, 0]))
    W = {"input->a": rng.normal(size=(2, 2)), "input->m": rng.normal(size=(3, 3)), "a->m": rng.normal(size=(3, 2)),
         "m->output": rng.normal(size=(2, 3)), "a->output": rng.normal(size=(1, 2))}
    net = Net(3, 2, (("a", 2), ("m", 3)),
              (("input->a", "input", "a", np.array([2, 0]), None),
               ("input->m", "input", "m", np.array([1, 0, 2]), None),
               ("a->m", "a", "m", None, None),
               ("m->output", "m", "output", None, np.array([1, 0])),
               ("a->output", "a", "output", None, np.array([0]))),
              {"a": ga, "m": gm}, {"a->m": ge, "a->output": go})
    ha = ga * (W["input->a"] @ X[[2, 0]])
    hm = gm * (W["input->m"] @ X[[1, 0, 2]] + ge * (W["a->m"] @ ha))
    want = np.zeros((2, P))
    want[[1, 0]] += W["m->output"] @ hm
    want[[0]] += go * (W["a->output"] @ ha)
    np.testing.assert_allclose(np.asarray(net_apply(net, W, X)), want, rtol=RTOL)
    only_a = np.zeros((2, P))
    only_a[[0]] = go * (W["a->output"] @ ha)
    np.testing.assert_allclose(np.asarray(net_apply(net, W, X, edges=["a->output"])), only_a, rtol=RTOL)


def test_packing_leaves_a_node_with_two_edges_in_apart():
    """pack_net merges only nodes with one edge in and one out. Node m sums two edges in; node w has
    m's first in-edge rows and m's out-edge rows but one edge each way: nothing may merge, and
    training with and without packing is one computation."""
    from theorykit.sim.engine import pack_net

    rng = np.random.default_rng(8)
    X, Y = rng.normal(size=(3, 4)), rng.normal(size=(2, 4))
    net = Net(3, 2, (("a", 2), ("m", 3), ("w", 2)),
              (("input->a", "input", "a", np.array([2, 0]), None),
               ("input->m", "input", "m", np.array([1, 0, 2]), None),
               ("a->m", "a", "m", None, None),
               ("m->output", "m", "output", None, np.array([1, 0])),
               ("input->w", "input", "w", np.array([1, 0, 2]), None),
               ("w->output", "w", "output", None, np.array([1, 0]))),
              {"m": np.array([1.0, 0, 1, 1])}, {})
    assert pack_net(net) is None
    p0 = random_params(net, 0.5, seeds=1, seed=2)
    a = train_net(net, p0, (X, Y), lr=0.1, steps=6, pack=True)
    b = train_net(net, p0, (X, Y), lr=0.1, steps=6, pack=False)
    np.testing.assert_allclose(a.loss, b.loss, rtol=1e-12)


def test_unit_gates_override_a_nodes_activity():
    """net_apply(..., unit_gates): the exact ReLN's gates, per unit and datapoint, replace the node's
    own nonlinearity: ŷ = W2 (G ⊙ W1 x) by hand."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(3, 4))
    W1, W2 = rng.normal(size=(5, 3)), rng.normal(size=(2, 5))
    G = rng.integers(0, 2, (5, 4)).astype(float)
    net = Net.chain(3, [5], 2)
    got = net_apply(net, {"input->h1": W1, "h1->output": W2}, X, {"h1": G})
    np.testing.assert_allclose(np.asarray(got), W2 @ (G * (W1 @ X)), rtol=RTOL)


def test_relu_activity_is_off_where_the_pre_activation_is_zero():
    """unit_activity of a ReLU network is pre > 0: a datapoint x = 0 gives pre = 0, so no unit is on."""
    X = np.array([[1.0, 0.0, -1.0], [0.5, 0.0, 2.0]])
    W1 = np.array([[1.0, 1.0], [-1.0, 0.5], [0.0, 0.0]])
    net = Net.chain(2, [3], 1)
    act = np.asarray(unit_activity(net, {"input->h1": W1, "h1->output": np.ones((1, 3))}, X)["h1"])
    np.testing.assert_array_equal(act, (W1 @ X > 0).astype(float))
    assert not act[:, 1].any()


@pytest.mark.parametrize("first", [("common",), ("ctx12", "ctx13")])
def test_staged_schedule_fits_the_residual_of_the_first_group(first):
    """schedule="staged": the pathways named first fit Y alone, the others the residual Y − ŷ_first
    (held fixed), against numpy (_gd_reference.gdln_gd with staged_first); the loss reported is the
    total. On contexts(4, 3) the ctx pathways are siblings (one input row set, one output row set):
    packing must not merge pathways of different groups."""
    spec = tk.GDLNSpec(tk.contexts(4, 3), tk.context_pathways(4, 3, [(0, 1), (0, 2), (1, 2)], hidden=4),
                       tk.Training(lr=0.1, init_std=0.3))
    names = [p.name for p in spec.pathways]
    res = tk.simulate(spec, init="random", seeds=1, steps=12, schedule="staged", staged_first=first)
    X, Y = spec.task.numeric()
    p0 = res.extra["initial_params"]
    pathways = [(np.asarray(p.active, float), p.inputs, p.outputs) for p in spec.pathways]
    params = [[np.asarray(p0[f"input->{n}"][0]), np.asarray(p0[f"{n}->output"][0])] for n in names]
    staged = [i for i, n in enumerate(names) if n in first]
    want, _ = gdln_gd(pathways, params, X, Y, 0.1, 12, loss="mean", staged_first=staged)
    np.testing.assert_allclose(res.loss[0], want, rtol=RTOL)
    joint, _ = gdln_gd(pathways, params, X, Y, 0.1, 12, loss="mean")
    assert np.max(np.abs(want - joint)) > 1e-3 * want[0]       # the schedule made a difference


@pytest.mark.parametrize("pack", [True, False])
def test_a_group_starts_at_its_step_and_fits_the_residual_it_names(pack):
    """Groups A (step 0, fits Y) and B (from step 3, fits Y − ŷ_A): B's weights stay put for steps
    0, 1, 2 and move at step 3; the reported loss is the total L(Y − ŷ_A − ŷ_B), against numpy
    (_gd_reference.scheduled_gd). Three pathways, the last two in B."""
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(3, 6)), rng.normal(size=(2, 6))
    G = rng.integers(0, 2, (3, 6)).astype(float)
    G[:, 0] = 1.0
    net = tk.net.layout.gdln_graph(3, 2, G, [2, 3, 2])
    p0 = random_params(net, 0.5, seeds=1, seed=5)
    sched = (Group("A", ("input->g1", "g1->output")),
             Group("B", ("input->g2", "g2->output", "input->g3", "g3->output"), 3, ("A",)))
    res = train_net(net, p0, (X, Y), loss="sum", schedule=sched, lr=0.05, steps=7, pack=pack,
                    save=SaveAt(ts=[2, 3, 4], fns={"W": lambda p, d: p["input->g2"]}))
    pathways = [(G[j], range(3), range(2)) for j in range(3)]
    params = [[np.asarray(p0[f"input->g{j + 1}"][0]), np.asarray(p0[f"g{j + 1}->output"][0])] for j in range(3)]
    want, Ws = scheduled_gd(pathways, params, X, Y, 0.05, 7, [([0], 0, []), ([1, 2], 3, [0])], loss="sum")
    np.testing.assert_allclose(res.loss[0], want, rtol=RTOL)
    for j in range(3):
        np.testing.assert_allclose(np.asarray(res.params[f"g{j + 1}->output"][0]), Ws[j][1], rtol=RTOL)
    W = np.asarray(res.saved["W"][0])
    np.testing.assert_array_equal(W[0], np.asarray(p0["input->g2"][0]))   # after steps 0, 1: unmoved
    np.testing.assert_array_equal(W[1], np.asarray(p0["input->g2"][0]))   # after step 2 too
    assert np.abs(W[2] - W[1]).max() > 0                                   # step 3 moved it


def test_an_edge_trains_once_any_group_holding_it_has_started():
    """objective_for's mask (its docstring): mask(t)[e] = 1 once a group holding e has started. An
    edge in groups starting at 0 and at 3 trains from step 0; an edge only in the late group from 3."""
    from theorykit.net.layout import gdln_graph, objective_for

    net = gdln_graph(3, 2, np.ones((2, 4)), [2, 2])
    sched = (Group("A", ("input->g1", "g1->output")), Group("B", ("g1->output", "input->g2", "g2->output"), 3))
    _, mask = objective_for(net, sched)
    assert {k: bool(v) for k, v in mask(0).items()} == {"input->g1": True, "g1->output": True,
                                                        "input->g2": False, "g2->output": False}
    assert all(bool(v) for v in mask(3).values())
    # depth 3: each pathway is a chain of three edges through g{j}, g{j}_2
    assert gdln_graph(3, 2, np.ones((2, 4)), [2, 2], depth=3).keys == [
        "input->g1", "g1->g1_2", "g1_2->output", "input->g2", "g2->g2_2", "g2_2->output"]


def _toy():
    """L = ½(‖a‖² + ‖b‖²) on two members: gradient descent multiplies each by (1 − η) per step."""
    a0 = np.array([[[1.0, -2.0]], [[0.5, 3.0]]])
    b0 = np.array([[[2.0, 1.0]], [[-1.0, 0.25]]])
    loss = lambda p, d: 0.5 * (jnp.sum(p["a"] ** 2) + jnp.sum(p["b"] ** 2))   # noqa: E731
    return {"a": jnp.asarray(a0), "b": jnp.asarray(b0)}, a0, b0, loss


def test_loss_curve_and_saved_steps_are_recorded_where_they_say():
    """loss_every = 3 over 7 steps: the curve at 0, 3, 6 and the last step 7; functions recorded
    after exactly 3 and 5 steps; the final weights after 7. By hand: w_t = 0.9^t w_0 (η = 0.1),
    L_t = 0.81^t L_0."""
    p0, a0, b0, loss = _toy()
    L0 = 0.5 * (np.sum(a0 ** 2, axis=(1, 2)) + np.sum(b0 ** 2, axis=(1, 2)))
    res = train(loss, p0, None, lr=0.1, steps=7, save=SaveAt(ts=[3, 5], fns={"a": lambda p, d: p["a"]}, loss_every=3))
    assert list(res.t) == [0, 3, 6, 7] and list(res.saved_t) == [3, 5]
    np.testing.assert_allclose(res.loss, L0[:, None] * 0.81 ** np.array([0, 3, 6, 7])[None], rtol=1e-12)
    np.testing.assert_allclose(res.saved["a"], np.stack([0.9 ** 3 * a0, 0.9 ** 5 * a0], axis=1), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(res.params["a"]), 0.9 ** 7 * a0, rtol=1e-12)
    # in batches of one member, the same
    one = train(loss, p0, None, lr=0.1, steps=7, batch=1, save=SaveAt(ts=[3, 5], fns={"a": lambda p, d: p["a"]},
                                                                       loss_every=3))
    np.testing.assert_allclose(one.loss, res.loss, rtol=1e-12)
    np.testing.assert_allclose(one.saved["a"], res.saved["a"], rtol=1e-12)
    with pytest.raises(tk.SpecError, match="batch"):
        train(loss, p0, None, lr=0.1, steps=7, batch=0)


def test_each_member_steps_with_its_own_learning_rate():
    """lr = [0.1, 0.3]: member 0 shrinks by 0.9 per step, member 1 by 0.7 (w ← w − η w)."""
    p0, a0, _b0, loss = _toy()
    res = train(loss, p0, None, lr=[0.1, 0.3], steps=4)
    np.testing.assert_allclose(np.asarray(res.params["a"][0]), 0.9 ** 4 * a0[0], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(res.params["a"][1]), 0.7 ** 4 * a0[1], rtol=1e-12)


def test_an_objective_and_mask_step_while_the_loss_is_reported():
    """objective(t) = ‖a‖² (from step 2 on) + ‖b‖² (twice the loss: factor 1 − 2η = 0.8 per step)
    with b masked until step 3: step t sees its own t, so a_t = 0.8^max(0, t − 2) a_0,
    b_t = 0.8^max(0, t − 3) b_0; the curve reports the loss ½(‖a‖² + ‖b‖²) of those weights, not
    the objective."""
    p0, a0, b0, loss = _toy()
    objective = lambda p, d, t: jnp.where(t >= 2, jnp.sum(p["a"] ** 2), 0.0) + jnp.sum(p["b"] ** 2)   # noqa: E731
    mask = lambda t: {"b": t >= 3}                                             # noqa: E731
    steps = 6
    res = train(loss, p0, None, lr=0.1, steps=steps, objective=objective, mask=mask)
    tt = np.arange(steps + 1)
    fa, fb = 0.8 ** np.maximum(0, tt - 2), 0.8 ** np.maximum(0, tt - 3)
    want = 0.5 * (np.sum(a0 ** 2, axis=(1, 2))[:, None] * fa ** 2 + np.sum(b0 ** 2, axis=(1, 2))[:, None] * fb ** 2)
    np.testing.assert_allclose(res.loss, want, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(res.params["b"]), fb[-1] * b0, rtol=1e-12)


def test_the_divergence_check_reads_growth_tenfold_and_non_finite_values():
    """check_finite: a curve that ends above 10 × its start (11×) or holds a NaN diverged; one that
    stays at zero up to rounding (0 → 1e-14) did not."""
    with pytest.raises(tk.DivergenceError):
        check_finite(np.array([[1.0, 5.0, 11.0]]), "toy", 0.1)
    with pytest.raises(tk.DivergenceError):
        check_finite(np.array([[1.0, np.nan, 0.5]]), "toy", 0.1)
    check_finite(np.array([[1.0, 9.0, 9.9]]), "toy", 0.1)
    check_finite(np.array([[0.0, 1e-14]]), "toy", 0.1)


def test_saveat_every_grid_on_exact_multiples_and_rounded_to_steps():
    """every = 2 up to 4: 0, 2, 4 (t_end is a multiple: not twice). every = 2.4 to step 10: 0, 2.4,
    4.8, 7.2, 9.6 and 10, each rounded to the nearest step: 0, 2, 5, 7, 10. every = 0 is refused."""
    assert SaveAt(every=2.0).times(4.0).tolist() == [0.0, 2.0, 4.0]
    assert SaveAt(every=2.4).times(10, integer=True).tolist() == [0, 2, 5, 7, 10]
    with pytest.raises(tk.SpecError) as e:
        SaveAt(every=0.0).times(10.0)
    assert e.value.field == "save.every"
    # ts and every together are refused where the SaveAt is made, before any run reads it
    with pytest.raises(tk.SpecError) as e:
        SaveAt(ts=[1.0], every=1.0)
    assert e.value.field == "save"
    # a flow's times need only be sorted (non-decreasing): a repeated time is recorded twice
    assert SaveAt(ts=[0.0, 1.0, 1.0]).times().tolist() == [0.0, 1.0, 1.0]


def test_relu_on_data_defaults_to_the_mean_loss_and_a_001_start_and_keeps_its_dtype():
    """simulate((X, Y), network="relu") without loss or init_std: the mean loss and N(0, 0.01²)
    weights (the draw of random_params at σ = 0.01, seed 0; seed=2 draws seed 2's); its descent
    against numpy (_gd_reference.relu_gd). A float32 run keeps float32 weights."""
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(2, 6)), rng.normal(size=(1, 6))
    net = Net.chain(2, [4], 1)
    for seed in (0, 2):
        start = tk.simulate((X, Y), network="relu", hidden=4, lr=0.1, steps=0, seeds=2, seed=seed)
        want = random_params(net, 0.01, seeds=2, seed=seed)
        for W, k in zip(start.params, net.keys):
            np.testing.assert_array_equal(np.asarray(W), np.asarray(want[k]))
    W1, W2 = (rng.normal(size=(2, 4, 2)) * 0.7, rng.normal(size=(2, 1, 4)) * 0.7)
    res = tk.simulate((X, Y), network="relu", hidden=4, lr=0.1, steps=9, seeds=2, init={"W1": W1, "W2": W2})
    for m in range(2):
        want, w1, w2 = relu_gd(W1[m], W2[m], X, Y, 0.1, 9, loss="mean")
        np.testing.assert_allclose(res.loss[m], want, rtol=RTOL)
        np.testing.assert_allclose(np.asarray(res.params[0][m]), w1, rtol=RTOL, atol=1e-15)
    r32 = tk.simulate((X, Y), network="relu", hidden=4, lr=0.1, steps=2, seeds=1, dtype="float32")
    assert all(np.asarray(W).dtype == np.float32 for W in r32.params) and r32.extra["dtype"] == "float32"


def test_simulate_overrides_the_specs_lr_steps_loss_and_init_std():
    """A spec trains at lr 0.05 for 10 steps on the mean loss; simulate(lr=0.02, steps=7, loss="sum")
    runs those instead, for the GDLN and for the spec's ReLU network, against numpy; init_std=0.7
    draws the start at σ = 0.7, not the spec's 0.3; seed=1 draws seed 1's; a0=0.02 starts there."""
    spec = tk.GDLNSpec(tk.xor_margin(1), tk.xor_relns(4)["linear"],
                       tk.Training(lr=0.05, steps=10, loss="mean", init_std=0.3, a0=1e-3))
    X, Y = spec.task.numeric()
    g = tk.simulate(spec, init="random", init_std=0.7, seeds=1, seed=1, lr=0.02, steps=7, loss="sum")
    p0 = g.extra["initial_params"]
    net = Net.from_graph(spec)
    drawn = random_params(net, 0.7, seeds=1, seed=1)
    for k in net.keys:
        np.testing.assert_array_equal(np.asarray(p0[k]), np.asarray(drawn[k]), err_msg=k)
    pathways = [(np.asarray(p.active, float), range(3), range(1)) for p in spec.pathways]
    params = [[np.asarray(p0[f"input->{p.name}"][0]), np.asarray(p0[f"{p.name}->output"][0])] for p in spec.pathways]
    want, _ = gdln_gd(pathways, params, X, Y, 0.02, 7, loss="sum")
    np.testing.assert_allclose(g.loss[0], want, rtol=RTOL)
    relu = tk.simulate(spec, network="relu", hidden=6, init_std=0.7, seeds=1, lr=0.02, steps=7, loss="sum")
    chain = Net.chain(3, [6], 1)
    drawn = random_params(chain, 0.7, seeds=1, seed=0)
    want, _, _ = relu_gd(np.asarray(drawn["input->h1"][0]), np.asarray(drawn["h1->output"][0]), X, Y, 0.02, 7, loss="sum")
    np.testing.assert_allclose(relu.loss[0], want, rtol=RTOL)
    # a0 = 0.02 (the spec's is 1e-3): the default start is aligned, each pathway's map W2 W1 one mode
    # of strength a0 (simulate's docstring: "every mode starts at a0")
    aligned = tk.simulate(spec, a0=0.02, seeds=1, steps=0).extra["initial_params"]
    for p in spec.pathways:
        M = np.asarray(aligned[f"{p.name}->output"][0]) @ np.asarray(aligned[f"input->{p.name}"][0])
        np.testing.assert_allclose(np.linalg.svd(M, compute_uv=False), [0.02], rtol=1e-12)


def test_a_relu_run_that_diverges_is_reported():
    """check=True (the default) raises for a ReLU network too; check=False returns the run."""
    X = np.array([[1.0, -1.0, 2.0], [0.5, 1.0, -1.0]])
    Y = np.array([[1.0, 0.0, 1.0]])
    kw = dict(network="relu", hidden=8, lr=30.0, steps=40, seeds=1, init_std=0.5)
    with pytest.raises(tk.DivergenceError):
        tk.simulate((X, Y), **kw)
    wild = tk.simulate((X, Y), check=False, **kw)
    assert not np.isfinite(wild.loss[0, -1]) or wild.loss[0, -1] > 10 * wild.loss[0, 0]


# ---------------------------------------------------------------------------------------------
# what a run returns (record.py) and the curve helpers (curves.py)
# ---------------------------------------------------------------------------------------------
def test_trajectory_batch_mean_and_std_are_over_the_members():
    """loss[b, i] of 3 members at 5 times: batch 3; mean and std over members (axis 0), the std the
    population one (numpy's default), so a batch of one has std 0 (the CLI writes it), not NaN."""
    from theorykit.record import Trajectory

    loss = np.array([[1.0, 2, 3, 4, 5], [3.0, 2, 1, 0, 5], [2.0, 2, 2, 2, 2]])
    tr = Trajectory(np.arange(5), loss, {}, np.zeros(0), None)
    assert tr.batch == 3
    np.testing.assert_allclose(tr.mean, [2.0, 2.0, 2.0, 2.0, 4.0])
    np.testing.assert_allclose(tr.std, [np.sqrt(2 / 3), 0.0, np.sqrt(2 / 3), np.sqrt(8 / 3), np.sqrt(2)])
    one = Trajectory(np.arange(5), loss[:1], {}, np.zeros(0), None)
    assert one.batch == 1 and np.array_equal(one.std, np.zeros(5))


def test_nan_to_none_turns_every_non_finite_float_into_null():
    """NaN and ±∞ (Python or numpy floats, in dicts, lists, tuples, arrays) become None; the rest stays."""
    from theorykit.curves import nan_to_none

    got = nan_to_none({"a": [1.0, float("nan"), np.float64(np.inf)], "b": np.array([np.nan, 2.0]),
                       "c": (np.float32(-np.inf), 3, "x")})
    assert got == {"a": [1.0, None, None], "b": [None, 2.0], "c": [None, 3, "x"]}


def test_staged_first_must_name_some_but_not_all_pathways():
    """schedule="staged" with every pathway first (or none) leaves no residual to fit: refused by name."""
    spec = tk.GDLNSpec(tk.contexts(4, 3), tk.context_pathways(4, 3, [(0, 1), (0, 2), (1, 2)], hidden=4),
                       tk.Training(lr=0.1))
    for first in ([p.name for p in spec.pathways], ["nothing"]):
        with pytest.raises(tk.SpecError) as e:
            tk.simulate(spec, init="random", seeds=1, steps=2, schedule="staged", staged_first=first)
        assert e.value.field == "staged_first"


def test_relu_snapshots_are_at_their_own_steps_beside_other_saved_steps():
    """snapshot_every = 10 over 30 steps with a function recorded at step 5 as well: saved at 0, 5, 10,
    20; extra["snapshots"] holds the activity at 0, 10, 20 only: by hand, (W1 x > 0) of the weights
    recorded at those steps."""
    X = np.array([[1.0, -1.0, 0.5], [0.5, 1.0, -1.0]])
    Y = np.array([[1.0, 0.0, 1.0]])
    res = tk.simulate((X, Y), network="relu", hidden=4, lr=0.1, steps=30, seeds=2, snapshot_every=10,
                      init_std=0.5, save=SaveAt(ts=[5], fns={"W1": lambda p, d: p["input->h1"]}))
    assert list(res.saved_t) == [0, 5, 10, 20]
    W1 = np.asarray(res.saved["W1"])[:, [0, 2, 3]]
    np.testing.assert_array_equal(res.extra["snapshots"], np.einsum("bshd,dp->bshp", W1, X) > 0)


def test_the_fused_kernel_keeps_no_weights_when_asked_not_to():
    """SaveAt(final=False) keeps no final weights, with the plain engine and the fused kernel alike
    (the kernel runs on a CPU too, interpreted); the loss curves are the same."""
    rng = np.random.default_rng(9)
    X, Y = rng.normal(size=(2, 5)), rng.normal(size=(1, 5))
    net = Net.chain(2, [3], 1)
    p0 = random_params(net, 0.5, seeds=2, seed=1)
    runs = [train_net(net, p0, (jnp.asarray(X), jnp.asarray(Y)), lr=0.05, steps=4, fused=f, save=SaveAt(final=False))
            for f in (False, True)]
    assert all(r.params is None for r in runs)
    np.testing.assert_allclose(runs[1].loss, runs[0].loss, rtol=1e-12)


def test_residuals_below_the_floor_count_as_zero():
    """RESIDUAL_FLOOR (layout.py): residual entries below 1e-150 are set to zero in the training loss,
    so a fit that exact has loss 0 and gradient 0 (no subnormal arithmetic); a residual of 1e-100
    still counts: ½ · 1e-200 summed."""
    import jax

    from theorykit.net.layout import RESIDUAL_FLOOR, loss_value

    assert RESIDUAL_FLOOR == 1e-150
    zero = jnp.zeros((1, 2))
    tiny = jnp.asarray([[1e-160, -1e-200]])            # targets this small: the residuals are these
    assert float(loss_value(zero, tiny, "sum")) == 0.0
    assert not np.asarray(jax.grad(lambda yh: loss_value(yh, tiny, "sum"))(zero)).any()
    assert float(loss_value(zero, jnp.asarray([[1e-100, 0.0]]), "sum")) == pytest.approx(0.5e-200, rel=1e-12)


def test_learning_time_at_the_level_itself_and_from_the_first_point():
    """learning_time is the first time the curve is ≤ frac·L(0): a curve that touches half its start
    at t = 1 and stays there has learned at 1 (not never); a curve already below the level at its
    first point (initial = 1 given, level 0.5, first value 0.4) has learned at its first time, 5."""
    from theorykit.curves import learning_time

    assert float(learning_time(np.array([1.0, 0.5, 0.5]))) == 1.0
    assert float(learning_time(np.array([0.4, 0.3]), initial=1.0, times=[5.0, 6.0])) == 5.0


def test_switch_point_on_the_level_and_for_a_falling_curve():
    """switch_point splits left y ≤ level, right y > level (its docstring). y = 0, 0.5, 0.5, 1 at
    x = 0..3, level 0.5: the points at the level are left, the split is between x = 2 and 3, and the
    crossing interpolated there is x = 2 (y = 0.5 at x = 2). y = 1, 1, 1, 0 (high on the left) fits
    best with every point right (one error; a split inside has more): no crossing, None."""
    from theorykit.curves import switch_point

    v, info = switch_point([0, 1, 2, 3], [0.0, 0.5, 0.5, 1.0])
    assert v == 2.0 and info["misclassified"] == 0
    assert switch_point([0, 1, 2, 3], [1.0, 1.0, 1.0, 0.0])[0] is None


def test_best_grid_row_minimises_the_largest_error():
    """best_grid_row picks the row with the smallest largest error (its docstring), not the smallest
    mean: against ref = 0, row 10 is off by 1 everywhere (largest 1, mean 1), row 20 by 3 once
    (largest 3, mean 0.75): row 10 wins, error 1 / L0 = 0.5."""
    from theorykit.curves import best_grid_row

    curves = {10: np.ones(4), 20: np.array([0.0, 0.0, 0.0, 3.0])}
    row, err, curve = best_grid_row(lambda A: np.stack([curves[a] for a in A]), np.array([10, 20]), np.zeros(4), 2.0)
    assert row == 10 and err == 0.5 and np.array_equal(curve, np.ones(4))


def _shared_edge_graph():
    """Pathways "h" (input→h→output) and "h/a" (input→h→a→output) share the edge input→h; X = I₃."""
    from theorykit.spec.files import spec_from_dict
    return spec_from_dict({
        "name": "shared", "data": {"inputs": np.eye(3).tolist(), "targets": [[1, 0, 0], [0, 2, 0]]},
        "nodes": [{"name": "h", "width": 3}, {"name": "a", "width": 3}],
        "edges": [{"from": "input", "to": "h"}, {"from": "h", "to": "output"},
                  {"from": "h", "to": "a"}, {"from": "a", "to": "output"}],
        "training": {"lr": 0.1, "loss": "mean", "init_std": 0.4, "steps": 6}})


def test_staged_schedule_gives_a_shared_edge_to_the_first_group():
    """schedule="staged", "h" first: the objective is L(Y − ŷ_h) + L(Y − stop(ŷ_h) − ŷ_a)
    (net.layout.objective_for), ŷ_h = W2 W1 X the first group's output, ŷ_a = W4 W3 W1 X the rest's.
    Every edge descends it from step 0: W2 the first loss, W3 and W4 the second, and the shared edge
    W1 (input→h, listed in the first group) both, since ŷ_a reads it too. Written here in numpy with
    the mean loss ½⟨‖e‖²⟩ (gradient (ŷ − Y)/P with respect to ŷ); the total loss is reported."""
    g = _shared_edge_graph()
    res = tk.simulate(g, init="random", seeds=1, steps=6, schedule="staged", staged_first=("h",))
    X, Y = g.task.numeric()
    P = X.shape[1]
    p0 = res.extra["initial_params"]
    W1, W2, W3, W4 = (np.asarray(p0[k][0], float) for k in ("input->h", "h->output", "h->a", "a->output"))
    want = []
    for step in range(7):
        H = W1 @ X
        y_h, y_a = W2 @ H, W4 @ W3 @ H
        want.append(0.5 * np.sum((y_h + y_a - Y) ** 2) / P)
        if step == 6:
            break
        E1, E2 = (y_h - Y) / P, (y_h + y_a - Y) / P         # the first group's error, the rest's
        W1, W2, W3, W4 = (W1 - 0.1 * (W2.T @ E1 + (W4 @ W3).T @ E2) @ X.T, W2 - 0.1 * E1 @ H.T,
                          W3 - 0.1 * W4.T @ E2 @ H.T, W4 - 0.1 * E2 @ (W3 @ H).T)
    np.testing.assert_allclose(res.loss[0], want, rtol=RTOL)
    np.testing.assert_allclose(np.asarray(res.params["input->h"][0]), W1, rtol=RTOL)


def test_init_std_by_pathway_name_for_a_shared_edge():
    """init_std by pathway name: an edge that two pathways share takes their σ where they agree; where
    they differ, the edge must be named on its own (an edge key wins over a pathway name), and the
    refusal names the field. Drawn σ read back from the weights: 3 × 3 entries N(0, σ²), 200 seeds."""
    g = _shared_edge_graph()
    with pytest.raises(tk.SpecError) as e:
        tk.simulate(g, init="random", seeds=1, steps=1, init_std={"h": 0.1, "h/a": 0.2})
    assert e.value.field == "init_std['h/a']" and "input->h" in str(e.value)
    res = tk.simulate(g, init="random", seeds=200, steps=0, init_std={"h": 0.1, "h/a": 0.2, "input->h": 0.05})
    p0 = res.extra["initial_params"]
    for key, sigma in (("input->h", 0.05), ("h->output", 0.1), ("h->a", 0.2), ("a->output", 0.2)):
        assert np.std(np.asarray(p0[key])) == pytest.approx(sigma, rel=0.05)    # 1800 draws: ±1.7 % s.e.
    with pytest.raises(tk.SpecError) as e:           # a misspelt key, even where every edge has a σ
        tk.simulate(g, init="random", seeds=1, steps=1, init_std={"h": 0.1, "h/a": 0.1, "h/b": 0.3})
    assert e.value.field == "init_std" and "['h/b'] name no pathway or edge" in str(e.value)
    res = tk.simulate(g, init="random", seeds=200, steps=0, init_std={"h": 0.1, "h/a": 0.1})
    # the same 1800 draws: 1/√(2·1800) = 1.7 % s.e. of a sample σ, so 5 % is 3 s.e.
    assert np.std(np.asarray(res.extra["initial_params"]["input->h"])) == pytest.approx(0.1, rel=0.05)


def test_on_step_reports_the_steps_done_and_leaves_the_run_unchanged():
    """simulate(on_step=f): f gets the steps done so far, about 100 times a batch, rising to batches ×
    steps (3 seeds in batches of 2: 2 × 250); the losses are those of the run without it, bit for bit."""
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns(8)["xor"], tk.Training(lr=0.05, init_std=0.3))
    kw = dict(values={"Delta": 0.5}, init="random", seeds=3, steps=250, batch=2)
    calls = []
    res = tk.simulate(spec, on_step=calls.append, **kw)
    assert calls == sorted(calls) and calls[-1] == 500 and 150 <= len(calls) <= 250
    assert calls[:2] == [2, 4] and 250 in calls        # every max(1, 250 // 100) = 2 steps; batch 1 ends at 250
    np.testing.assert_array_equal(res.loss, tk.simulate(spec, **kw).loss)
    with pytest.raises(tk.SpecError) as e:             # the fused kernel takes no callback
        tk.simulate(spec, fused=True, on_step=calls.append, **{**kw, "init": "random"})
    assert e.value.field == "fused"


def test_every_rate_takes_its_loss_factor_from_one_place():
    """tau = 1/η (mean loss) or 1/(Pη) (summed loss), docs/theory.md "Time, step size and loss
    scale"; the reported loss is the mean loss times 1 or P. Written out by hand for η = 0.05, P = 4:
    1/0.05 = 20 and 1/(4·0.05) = 5. A third loss name was read as the mean in six places (the
    spec's tau, the fused kernel, compare, predict, the depth suite); it is refused, naming loss."""
    from theorykit.errors import SpecError
    from theorykit.spec.fields import flow_tau, loss_factor

    assert (loss_factor("mean", 4), loss_factor("sum", 4)) == (1, 4)
    assert flow_tau(0.05, "mean", 4) == pytest.approx(20.0) and flow_tau(0.05, "sum", 4) == pytest.approx(5.0)
    with pytest.raises(SpecError) as err:
        loss_factor("abs", 4)
    assert err.value.field == "loss"
