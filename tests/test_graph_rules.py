"""Rules of the graph spec (theorykit.spec.graph) and of the network layout theory and simulation share
(theorykit.net.layout) that a mutation check left loose: each check of a graph spec names its field,
pathways (gates, rows, widths, depths, names) by hand, the path limit at exactly MAX_PATHS, schedules,
parse errors, ``scaled``, ``graph_from_pathways``, and the layout's forward pass, paths, losses and
schedule objective against numpy or hand arithmetic (docs/theory.md#gdln, #pathways, the loss table)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.net.layout import (Net, as_dtype, gdln_graph, loss_value, net_apply, objective_for,
                                  unit_activity)
from theorykit.spec.files import spec_from_dict
from theorykit.spec.gating import Pathway
from theorykit.spec.graph import (MAX_PATHS, Edge, GraphSpec, Group, Node, graph_from_pathways, scaled)

# d = 3 inputs, P = 4 datapoints, p = 2 outputs (integers: exact data)
X = [[1, 0, 1, 0], [0, 1, 1, 0], [1, 1, 0, 1]]
Y = [[1, 0, -1, 2], [0, 1, 1, -1]]


def small():
    """input → h → k → output and h → output (two paths, h on both)."""
    return {"data": {"inputs": X, "targets": Y},
            "nodes": [{"name": "h", "width": 2}, {"name": "k", "width": 1}],
            "edges": [{"from": "input", "to": "h"}, {"from": "h", "to": "k"},
                      {"from": "k", "to": "output"}, {"from": "h", "to": "output"}]}


ALL = ["input->h", "h->k", "k->output", "h->output"]


def gated():
    """Nodes declared out of topological order (m first), node gates, a gated hidden edge, a gated
    output edge, input rows and output rows:

    edges (in order): input->h rows [0, 2]; input->k; h->m gate [1,0,1,1]; k->m; m->output rows [1];
    h->output rows [0] gate [1,1,1,0]; k->output.   node gates: m [0,1,1,1], h [1,1,0,1], k all."""
    return {"data": {"inputs": X, "targets": Y},
            "nodes": [{"name": "m", "width": 1, "active": [0, 1, 1, 1]},
                      {"name": "h", "width": 2, "active": [1, 1, 0, 1]},
                      {"name": "k", "width": 2}],
            "edges": [{"from": "input", "to": "h", "rows": [0, 2]}, {"from": "input", "to": "k"},
                      {"from": "h", "to": "m", "active": [1, 0, 1, 1]}, {"from": "k", "to": "m"},
                      {"from": "m", "to": "output", "rows": [1]},
                      {"from": "h", "to": "output", "rows": [0], "active": [1, 1, 1, 0]},
                      {"from": "k", "to": "output"}]}


def _field(d):
    with pytest.raises(SpecError) as e:
        spec_from_dict(d)
    assert e.value.fix
    return e.value


def _with(mutate, base=small):
    d = base()
    mutate(d)
    return d


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["nodes"].append({"name": "h", "width": 3}), "nodes[2].name"),            # declared twice
    (lambda d: d["edges"].append({"from": "h", "to": "zz"}), "edges[4].to"),              # unknown node
    (lambda d: d["edges"].append({"from": "output", "to": "h"}), "edges[4].from"),
    (lambda d: d["edges"].append({"from": "k", "to": "input"}), "edges[4].to"),
    (lambda d: d["edges"].append({"from": "h", "to": "k"}), "edges[4]"),                  # edge twice
    (lambda d: d["edges"].append({"from": "input", "to": "output"}), "edges[4]"),         # no hidden layer
    (lambda d: d["edges"][0].update(init_scale=0), "edges[0].init_scale"),               # 0 < σ
    (lambda d: d["edges"][0].update(init_scale=1e6), "edges[0].init_scale"),             # σ < 1e6
    (lambda d: d["edges"][0].update(init_scale=True), "edges[0].init_scale"),            # a bool is no number
    (lambda d: d["edges"][1].update(rows=np.array([0, 1])), "edges[1].rows"),            # was a raw ValueError
    (lambda d: d["edges"][0].update(**{"from": ["h"]}), "edges[0].from"),                 # unhashable: TypeError
    (lambda d: d.update(nodes=[]), "nodes"),
    (lambda d: d.update(edges=[]), "edges"),
    (lambda d: d.update(schedule=[]), "schedule"),
])
def test_graph_errors_name_their_field(mutate, field):
    assert _field(_with(mutate)).field == field


def test_error_messages_say_which_rows_and_which_cycle():
    """An input edge's bad row is called an input row (an output edge's an output row); a cycle's
    message lists the nodes on it and none upstream (z feeds the cycle h → k → h)."""
    assert "input row" in str(_field(_with(lambda d: d["edges"][0].update(rows=[0, 3]))))
    assert "output row" in str(_field(_with(lambda d: d["edges"][2].update(rows=[2]))))
    d = _with(lambda d: (d["nodes"].append({"name": "z", "width": 1}),
                         d["edges"].extend([{"from": "input", "to": "z"}, {"from": "z", "to": "h"},
                                            {"from": "k", "to": "h"}])))
    e = _field(d)
    assert e.field == "edges" and "['h', 'k']" in str(e) and "'z'" not in str(e)


def test_python_api_checks_its_own_nodes_and_gates():
    """GraphSpec made in Python (no parse_graph in front): no node is refused as ``nodes``; a pathway
    whose node gates never overlap (h on 0, 1; k on 2, 3) is off on every datapoint; an integer
    init_scale is kept as a float."""
    task = spec_from_dict(small()).task
    with pytest.raises(SpecError) as e:
        GraphSpec(task, (), (Edge("input", "h"), Edge("h", "output")))
    assert e.value.field == "nodes"
    nodes = (Node("h", 2, (1, 1, 0, 0)), Node("k", 1, (0, 0, 1, 1)))
    edges = tuple(Edge(*k.split("->")) for k in ALL)
    with pytest.raises(SpecError, match="off on every datapoint") as e:
        GraphSpec(task, nodes, edges)
    assert e.value.field == "nodes"
    g = GraphSpec(task, (Node("h", 2), Node("k", 1)), (Edge("input", "h", init_scale=2),) + edges[1:])
    assert g.edges[0].init_scale == 2.0 and type(g.edges[0].init_scale) is float


def test_pathways_of_a_gated_graph_by_hand():
    """Depth-first in edge order: h/m, h, k/m, k. Gates (products of node and edge gates on the path):
    h/m = h·(h->m)·m = [1,1,0,1]·[1,0,1,1]·[0,1,1,1] = [0,0,0,1]; h = h·(h->output) = [1,1,0,0];
    k/m = m = [0,1,1,1]; k = [1,1,1,1]. Width: the narrowest node; depth: the number of edges."""
    g = spec_from_dict(gated())
    got = [(gp.name, gp.edges, gp.pathway.active, gp.pathway.inputs, gp.pathway.outputs, gp.pathway.hidden,
            gp.pathway.depth) for gp in g.pathways]
    assert got == [
        ("h/m", ("input->h", "h->m", "m->output"), (0, 0, 0, 1), (0, 2), (1,), 1, 3),
        ("h", ("input->h", "h->output"), (1, 1, 0, 0), (0, 2), (0,), 2, 2),
        ("k/m", ("input->k", "k->m", "m->output"), (0, 1, 1, 1), (0, 1, 2), (1,), 1, 3),
        ("k", ("input->k", "k->output"), (1, 1, 1, 1), (0, 1, 2), (0, 1), 2, 2)]
    assert g.order == ["h", "k", "m"]                 # topological, though m is declared first
    assert g.shared_edges() == {"input->h": ["h/m", "h"], "m->output": ["h/m", "k/m"],
                                "input->k": ["k/m", "k"]}
    assert [p.hidden for p in g.size_view().pathways] == [2, 2, 2, 2]     # the widest node on each
    assert g.hidden_total == 1 + 2 + 2
    assert g.pathway_field(0) == "nodes[0]"           # h/m: its narrowest node m is nodes[0]
    assert g.node_field("input") == g.node_field("output") == "task"
    assert (g.width("input"), g.width("output"), g.width("h")) == (3, 2, 2)
    e = {x.key: x for x in g.edges}
    # (rows, cols): rows written (to output) or the destination's width × rows read (from input) or
    # the source's width
    assert [g.edge_shape(e[k]) for k in ("input->h", "input->k", "m->output", "k->output")] == \
        [(2, 2), (2, 3), (1, 1), (2, 2)]


def _forward_by_hand(W, Xa):
    """docs/theory.md#gdln written out for gated(): h_v = g_v ⊙ Σ_e g_e ⊙ (W_e h_u), rows as declared."""
    gh, gm = np.array([1, 1, 0, 1.]), np.array([0, 1, 1, 1.])
    g_hm, g_ho = np.array([1, 0, 1, 1.]), np.array([1, 1, 1, 0.])
    h = gh * (W["input->h"] @ Xa[[0, 2]])
    k = W["input->k"] @ Xa
    m = gm * (g_hm * (W["h->m"] @ h) + W["k->m"] @ k)
    y = W["k->output"] @ k
    y[1] += (W["m->output"] @ m)[0]
    y[0] += g_ho * (W["h->output"] @ h)[0]
    return y


def test_forward_pass_and_paths_of_a_gated_graph_against_numpy():
    """Net.from_graph + net_apply equal the forward pass written in numpy, and equal the sum over
    paths Σ_p g_p W_p x_{s(p)} into rows t(p) (docs/theory.md#pathways) of Net.paths."""
    g = spec_from_dict(gated())
    net = Net.from_graph(g)
    assert [v for v, _ in net.nodes] == ["h", "k", "m"]
    rng = np.random.default_rng(0)
    W = {k: rng.standard_normal(s) for k, s in net.shapes().items()}
    assert net.shapes() == {"input->h": (2, 2), "input->k": (2, 3), "h->m": (1, 2), "k->m": (1, 2),
                            "m->output": (1, 1), "h->output": (1, 2), "k->output": (2, 2)}
    Xa = np.array(X, float)
    want = _forward_by_hand(W, Xa)
    got = np.asarray(net_apply(net, {k: jnp.asarray(v) for k, v in W.items()}, jnp.asarray(Xa)))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    paths = net.paths(4)
    assert [(keys, list(gate), list(i), list(o)) for keys, gate, i, o in paths] == [
        (["input->h", "h->m", "m->output"], [0, 0, 0, 1], [0, 2], [1]),
        (["input->h", "h->output"], [1, 1, 0, 0], [0, 2], [0]),
        (["input->k", "k->m", "m->output"], [0, 1, 1, 1], [0, 1, 2], [1]),
        (["input->k", "k->output"], [1, 1, 1, 1], [0, 1, 2], [0, 1])]
    by_paths = np.zeros((2, 4))
    for keys, gate, i, o in paths:
        M = np.eye(len(i))
        for k in keys:
            M = W[k] @ M
        by_paths[o] += gate * (M @ Xa[i])
    np.testing.assert_allclose(by_paths, want, rtol=1e-12, atol=1e-12)
    # a group's output: only the edges named
    only = np.asarray(net_apply(net, W, jnp.asarray(Xa), edges=["k->output"]))
    np.testing.assert_allclose(only, W["k->output"] @ (W["input->k"] @ Xa), rtol=1e-12)


def test_net_reads_and_writes_permuted_rows():
    """A Net made by hand may list its rows in any order: in_rows [1, 0] reads x reversed and
    out_rows [1, 0] writes reversed. W_ih = [1, 10], x = (1, 2): h = 1·2 + 10·1 = 12;
    W_ho = (1, 100): z = (12, 1200) into rows (1, 0), so ŷ = (1200, 12)."""
    net = Net(2, 2, (("h", 1),), (("input->h", "input", "h", np.array([1, 0]), None),
                                  ("h->output", "h", "output", None, np.array([1, 0]))))
    W = {"input->h": jnp.array([[1.0, 10.0]]), "h->output": jnp.array([[1.0], [100.0]])}
    np.testing.assert_allclose(np.asarray(net_apply(net, W, jnp.array([[1.0], [2.0]]))), [[1200.0], [12.0]])


def test_relu_net_unit_gates_and_unit_activity():
    """Net.chain is a ReLU network by default. W1 = (1, 0)ᵀ, W2 = (1, 1), x = 2: pre = (2, 0), so
    relu gives ŷ = 2 and activity (1, 0) (exactly 0 is off); with W1 = (1, −1)ᵀ the unit gates
    (1, 1) override the ReLU (the exact ReLN): ŷ = 2 − 2 = 0, where the ReLU gives 2."""
    net = Net.chain(1, [2], 1)
    assert net.relu and net.keys == ["input->h1", "h1->output"]
    X1 = jnp.array([[2.0]])
    W = {"input->h1": jnp.array([[1.0], [0.0]]), "h1->output": jnp.array([[1.0, 1.0]])}
    np.testing.assert_array_equal(np.asarray(unit_activity(net, W, X1)["h1"]), [[1.0], [0.0]])
    W["input->h1"] = jnp.array([[1.0], [-1.0]])
    assert float(net_apply(net, W, X1)[0, 0]) == 2.0
    assert float(net_apply(net, W, X1, unit_gates={"h1": jnp.ones((2, 1))})[0, 0]) == 0.0


def test_net_checks_name_their_field():
    ok_in = np.arange(2)
    for make, field in [
        (lambda: Net(0, 1, (), ()), "d"),
        (lambda: Net(2, 1, (("h", 0),), ()), "nodes['h'].width"),
        (lambda: Net(2, 1, (["h", 2],), ()), "nodes"),
        (lambda: Net(2, 1, (("h", 2),), (("input->h", "input", "h", None, None),)), "edges['input->h']"),
        (lambda: Net(2, 1, (("h", 2),), (("h->k", "h", "k", ok_in, None),)), "edges['h->k']"),
    ]:
        with pytest.raises(SpecError) as e:
            make()
        assert e.value.field == field


def test_gdln_graph_layout():
    """gdln_graph(d=2, p=3, gates of 2 pathways, hidden (2, 3)): depth 3 is a chain g_j, g_j_2, both
    gated by row j; with shared_first = 4 (depth 3) each pathway is one gated node fed by an
    always-on node ``shared`` of 4 units; every output edge writes all 3 rows."""
    G = [[1, 0, 1], [0, 1, 1]]
    net = gdln_graph(2, 3, G, [2, 3], depth=3)
    assert net.nodes == (("g1", 2), ("g1_2", 2), ("g2", 3), ("g2_2", 3))
    assert {k: list(v) for k, v in net.node_gates.items()} == {"g1": [1, 0, 1], "g1_2": [1, 0, 1],
                                                                "g2": [0, 1, 1], "g2_2": [0, 1, 1]}
    assert net.shapes() == {"input->g1": (2, 2), "g1->g1_2": (2, 2), "g1_2->output": (3, 2),
                            "input->g2": (3, 2), "g2->g2_2": (3, 3), "g2_2->output": (3, 3)}
    sh = gdln_graph(2, 3, G, [2, 3], depth=3, shared_first=4)
    assert sh.nodes == (("shared", 4), ("g1", 2), ("g2", 3)) and "shared" not in sh.node_gates
    assert sh.shapes() == {"input->shared": (4, 2), "shared->g1": (2, 4), "g1->output": (3, 2),
                           "shared->g2": (3, 4), "g2->output": (3, 3)}
    act = unit_activity(sh, {k: jnp.zeros(s) for k, s in sh.shapes().items()}, jnp.zeros((2, 3)))
    np.testing.assert_array_equal(np.asarray(act["g2"]), [[0, 1, 1]] * 3)
    np.testing.assert_array_equal(np.asarray(act["shared"]), [[1, 1, 1]] * 4)


def test_loss_values_by_hand():
    """docs/theory.md (the loss table): residual (1, 2, 3, 4) on one output row and P = 4 datapoints:
    sum = ½·30 = 15, mean = 15/4; a residual of 1e-100 still counts (½·1e-200), one below the floor
    1e-150 does not; any other loss name is refused."""
    Y1, Z = jnp.array([[1.0, 2, 3, 4]]), jnp.zeros((1, 4))
    assert float(loss_value(Z, Y1, "sum")) == 15.0 and float(loss_value(Z, Y1, "mean")) == 3.75
    tiny = jnp.array([[1e-100, 0, 0, 0]])
    assert float(loss_value(Z, tiny, "sum")) == pytest.approx(0.5e-200, rel=1e-12, abs=0)
    assert float(loss_value(Z, jnp.array([[1e-160, 0, 0, 0]]), "sum")) == 0.0
    with pytest.raises(SpecError):
        loss_value(Z, Y1, "median")


def test_as_dtype_refuses_unknown_names_and_float64_without_x64():
    assert as_dtype("float32") == jnp.float32
    with pytest.raises(SpecError) as e:
        as_dtype("float16")
    assert e.value.field == "dtype"
    jax.config.update("jax_enable_x64", False)
    try:
        with pytest.raises(SpecError, match="x64"):
            as_dtype("float64")
    finally:
        jax.config.update("jax_enable_x64", True)
    assert as_dtype("float64") == jnp.float64


def _two_module_schedule():
    """d = p = 1, P = 2: modules a and b. Group A (start 2): input->a, a->output, input->b; group B
    (start 5): input->b (again), b->output, fitting the residual of A."""
    d = {"data": {"inputs": [[1, 2]], "targets": [[1, 0]]},
         "nodes": [{"name": "a", "width": 1}, {"name": "b", "width": 1}],
         "edges": [{"from": "input", "to": "a"}, {"from": "a", "to": "output"},
                   {"from": "input", "to": "b"}, {"from": "b", "to": "output"}],
         "schedule": [{"name": "A", "edges": ["input->a", "a->output", "input->b"], "start": 2},
                      {"name": "B", "edges": ["input->b", "b->output"], "start": 5, "fit": "A"}]}
    return spec_from_dict(d)


def test_schedule_objective_and_mask_by_hand():
    """W_ia = 2, W_ao = 3, W_ib = 1, W_bo = −1, x = (1, 2), y = (1, 0): ŷ_A = 6x = (6, 12),
    ŷ_B = −x = (−1, −2). L_A (mean) = ½(5² + 12²)/2 = 42.25; B's target is y − ŷ_A = (−5, −12), its
    residual (−4, −10): L_B = ½(16 + 100)/2 = 29. The summed loss is P = 2 times that. A group's loss
    counts from its start step on (t ≥ start). dL/dW_ao: only A's loss (B's target holds ŷ_A fixed):
    −(1/P) Σ (y − ŷ_A)(W_ia x) = −½((−5)(2) + (−12)(4)) = 29. An edge in two groups (input->b)
    trains from the earlier start, 2."""
    g = _two_module_schedule()
    assert [gr.fit for gr in g.schedule] == [(), ("A",)]
    net = Net.from_graph(g)
    obj, mask = objective_for(net, g.schedule, "mean")
    W = {"input->a": jnp.array([[2.0]]), "a->output": jnp.array([[3.0]]),
         "input->b": jnp.array([[1.0]]), "b->output": jnp.array([[-1.0]])}
    data = (jnp.array([[1.0, 2.0]]), jnp.array([[1.0, 0.0]]))
    assert [float(obj(W, data, t)) for t in (1, 2, 4, 5)] == [0.0, 42.25, 42.25, 71.25]
    obj_sum, _ = objective_for(net, g.schedule, "sum")
    assert float(obj_sum(W, data, 5)) == 142.5
    grad = jax.grad(obj)(W, data, 5)
    assert float(grad["a->output"][0, 0]) == pytest.approx(29.0, rel=1e-12)
    assert {k: [bool(mask(t)[k]) for t in (1, 2, 4, 5)] for k in net.keys} == {
        "input->a": [False, True, True, True], "a->output": [False, True, True, True],
        "input->b": [False, True, True, True], "b->output": [False, False, False, True]}
    assert objective_for(net, (), "mean") == (None, None)


@pytest.mark.parametrize("schedule, field", [
    ([{"name": "a", "edges": ALL}, {"name": "a", "edges": ["h->k"]}], "schedule[1].name"),
    ([{"name": "a", "edges": ALL, "start": -1}], "schedule[0].start"),
    ([{"name": "a", "edges": []}, {"name": "b", "edges": ALL}], "schedule[0].edges"),
    ([{"name": "a", "edges": ALL + ["h->k"]}], "schedule[0].edges"),                 # an edge twice
    ([{"name": "a", "edges": [["input->h"]]}], "schedule[0].edges"),                 # was a TypeError
    ([{"name": "a", "edges": ALL, "fit": 3}], "schedule[0].fit"),                    # was a TypeError
    ([{"name": "a", "edges": ALL, "fit": ["b"]}, {"name": "b", "edges": ALL}], "schedule[0].fit"),
    ([{"name": "a", "edges": ALL}, {"name": "b", "edges": ALL, "fit": ["a", "a"]}], "schedule[1].fit"),
    ([{"name": "a", "edges": ALL[:3]}], "schedule"),                                 # h->output in no group
])
def test_schedule_errors_name_their_field(schedule, field):
    assert _field(_with(lambda d: d.update(schedule=schedule))).field == field


def test_schedule_defaults_and_python_groups():
    """start defaults to 0; fit "targets" (or None from Python) fits the targets, fit as one name is
    that group; init_scale is read from the table."""
    g = spec_from_dict(_with(lambda d: (d.update(schedule=[{"name": "a", "edges": ALL[:2], "fit": "targets"},
                                                           {"name": "b", "edges": ALL[2:], "fit": "a"}]),
                                        d["edges"][1].update(init_scale=0.5))))
    assert [(gr.start, gr.fit) for gr in g.schedule] == [(0, ()), (0, ("a",))]
    assert [e.init_scale for e in g.edges] == [None, 0.5, None, None]
    g2 = GraphSpec(g.task, g.nodes, g.edges, schedule=(Group("a", tuple(ALL), 0, None),))
    assert g2.schedule[0].fit == ()


def _fan(n_a, n_b, extra):
    """input → a_i (n_a) → m → b_j (n_b) → output: n_a·n_b paths, plus one (input → z → output)."""
    nodes = [{"name": f"a{i}", "width": 1} for i in range(n_a)] + [{"name": "m", "width": 1}] + \
        [{"name": f"b{j}", "width": 1} for j in range(n_b)]
    edges = [{"from": "input", "to": f"a{i}"} for i in range(n_a)] + [{"from": f"a{i}", "to": "m"} for i in range(n_a)]
    edges += [{"from": "m", "to": f"b{j}"} for j in range(n_b)]
    edges += [{"from": f"b{j}", "to": "output"} for j in range(n_b)]
    if extra:
        nodes.append({"name": "z", "width": 1})
        edges += [{"from": "input", "to": "z"}, {"from": "z", "to": "output"}]
    return {"data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, -1]]}, "nodes": nodes, "edges": edges}


def test_path_limit_is_exactly_max_paths():
    """100 × 100 = 10 000 = MAX_PATHS paths are allowed; one more is refused, naming the count."""
    assert MAX_PATHS == 10_000
    assert len(spec_from_dict(_fan(100, 100, False)).pathways) == 10_000
    e = _field(_fan(100, 100, True))
    assert e.field == "edges" and "10001 paths" in str(e)


def test_a_chain_deeper_than_the_recursion_limit():
    """A chain of 1100 nodes (one path of 1101 edges) was a RecursionError in the path walk."""
    n = 1100
    d = {"data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, -1]]},
         "nodes": [{"name": f"n{i}", "width": 1} for i in range(n)],
         "edges": [{"from": "input", "to": "n0"}] + [{"from": f"n{i}", "to": f"n{i + 1}"} for i in range(n - 1)]
         + [{"from": f"n{n - 1}", "to": "output"}]}
    g = spec_from_dict(d)
    assert len(g.pathways) == 1 and g.pathways[0].pathway.depth == n + 1
    assert len(Net.from_graph(g).paths(2)[0][0]) == n + 1


def test_graph_from_pathways_by_hand():
    """A depth-3 pathway q (gate [1,0,1,1], inputs [0,2], output [1], 4 units) is the chain q, q_2, both
    gated; a depth-2 pathway r. Pathway names stay q and r (not "q/q_2"); a graph is its own graph."""
    task = spec_from_dict(small()).task
    spec = tk.GDLNSpec(task, (Pathway("q", (1, 0, 1, 1), (0, 2), (1,), 4, 3), Pathway("r", (0, 1, 1, 0))))
    g = graph_from_pathways(spec)
    assert [(n.name, n.width, n.active) for n in g.nodes] == [
        ("q", 4, (1, 0, 1, 1)), ("q_2", 4, (1, 0, 1, 1)), ("r", 16, (0, 1, 1, 0))]
    assert [(e.key, e.rows) for e in g.edges] == [("input->q", (0, 2)), ("q->q_2", None), ("q_2->output", (1,)),
                                                  ("input->r", (0, 1, 2)), ("r->output", (0, 1))]
    assert [(gp.name, gp.pathway.depth, gp.pathway.active) for gp in g.pathways] == [
        ("q", 3, (1, 0, 1, 1)), ("r", 2, (0, 1, 1, 0))]
    assert graph_from_pathways(g) is g


def test_scaled_rounds_widths_and_keeps_rows():
    """scaled(g, 1.5, 1): width 5 → round(7.5) = 8 (not 7), width 1 → round(1.5) = 2; scaled(g, 0.1, 1):
    width 5 → round(0.5) = 0 → at least 1; rows stay; scaled(g, 1.0, 2) is not g: steps 2000 → 1000."""
    d = small()
    d["nodes"][0]["width"] = 5
    d["edges"][0]["rows"] = [1]
    d["training"] = {"steps": 2000}
    g = spec_from_dict(d)
    s = scaled(g, 1.5, 1)
    assert [n.width for n in s.nodes] == [8, 2]
    assert [e.rows for e in s.edges] == [(1,), None, (0, 1), (0, 1)]
    assert [n.width for n in scaled(g, 0.1, 1).nodes] == [1, 1]
    t = scaled(g, 1.0, 2)
    assert t is not g and t.training.steps == 1000 and [n.width for n in t.nodes] == [5, 1]


@pytest.mark.parametrize("edges,field,message", [
    ([("input", "h"), ("h", "output"), ("output", "k")], "edges[2].from", "cannot leave the output"),
    ([("input", "h"), ("h", "input"), ("h", "output")], "edges[1].to", "cannot enter the input"),
    ([("input", "h"), ("k", "output")], "edges", "no path runs from input to output"),
])
def test_the_specific_graph_error_is_the_one_given(edges, field, message):
    """An edge out of the output or into the input is named as such (not as an unknown node), and a graph
    with no path at all says so (not that its first node lies on no path)."""
    d = {"data": {"inputs": X, "targets": Y}, "nodes": [{"name": "h", "width": 2}, {"name": "k", "width": 1}],
         "edges": [{"from": a, "to": b} for a, b in edges]}
    with pytest.raises(SpecError, match=message) as err:
        spec_from_dict(d)
    assert err.value.field == field
