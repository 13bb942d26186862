"""Rules from a walkthrough by a spec author writing graph GDLNs (docs/graphs.md, docs/specs.md,
docs/theory.md#pathways and #race): skip edges, shared edges, deep chains, node names a theorist
picks (``m`` beside ``m_2``, names holding ``/``, long names), and the same spec written as TOML,
as JSON and in Python.

docs/graphs.md: "A pathway is a path from input to output. [...] its name is the list of its
hidden nodes (``h1/m4``)", and every check of a graph spec names its own field (``nodes[2]``,
``edges[3].from``). A graph file has no ``[[pathways]]``, so an error naming ``pathways[1].name`` points
at nothing the author wrote. Expected values are derived by hand in the comments.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit import Edge, GraphSpec, Node, SpecError, Task
from theorykit.spec.files import spec_from_dict

# d = 2 inputs, P = 2 datapoints (the identity), p = 2 outputs
T = Task([[1, 0], [0, 1]], [[1, 0], [0, 2]])


def _err(make):
    with pytest.raises(SpecError) as e:
        make()
    assert e.value.fix
    return e.value


def _chain_sibling():
    """input -> x, x -> y -> output and x -> y_2 -> output: two depth-3 paths, x/y and x/y_2."""
    return GraphSpec(T, (Node("x", 2), Node("y", 2), Node("y_2", 2)),
                     (Edge("input", "x"), Edge("x", "y"), Edge("x", "y_2"), Edge("y", "output"),
                      Edge("y_2", "output")))


def test_a_node_named_like_a_chain_layer_is_a_graph_node_like_any_other():
    """Nodes y and y_2 are two nodes of the author's own graph. The pathway form of a spec names
    the second layer of a depth-3 pathway q "q_2", so it refused the graph's path x/y_2 beside the
    depth-3 path x/y, naming pathways[1].name (a field no graph has). A graph's paths are not chains
    to be built: derive it. Both paths are on every datapoint and write every output row, so each
    effective dataset is the whole Σyx = YX^T/P = diag(1, 2)/2, singular values 1 and 1/2."""
    g = _chain_sibling()
    assert [p.name for p in g.pathways] == ["x/y", "x/y_2"]
    der = tk.Derivation(g)
    assert der.method == "race-reduction"                  # they share input->x
    for name in ("x/y", "x/y_2"):
        assert der.modes[name].singular_values == [1, sp.Rational(1, 2)]


def test_two_paths_of_one_name_are_refused_naming_the_node_with_a_slash():
    """Node "a/b" on its own and nodes a -> b make two paths both named "a/b" (hidden nodes joined
    by "/"). The derivation's error named pathways[1].name; it names the node whose name holds the "/"."""
    g = GraphSpec(T, (Node("a", 2), Node("b", 2), Node("a/b", 2)),
                  (Edge("input", "a/b"), Edge("a/b", "output"), Edge("input", "a"), Edge("a", "b"),
                   Edge("b", "output")))
    e = _err(lambda: tk.Derivation(g))
    assert e.field == "nodes[2].name" and "'a/b'" in e.problem and "/" in e.fix


def test_a_pathway_name_past_64_characters_names_a_node_of_it():
    """Two nodes of 40 characters each (each within the 64 of docs/specs.md) on one path: its name is
    40 + 1 + 40 = 81 characters, over the pathway names' 64. The error named pathways[0].name with
    the fix 'name = "common"'; it names the longer node (the second: 41 characters)."""
    a, b = "A" * 40, "B" * 41
    g = GraphSpec(T, (Node(a, 2), Node(b, 2)), (Edge("input", a), Edge(a, b), Edge(b, "output")))
    e = _err(lambda: tk.Derivation(g))
    assert e.field == "nodes[1].name" and "82" in e.problem


def test_a_path_of_four_weight_layers_names_the_edge_that_makes_it():
    """input -> h1 -> h2 -> h3 -> output has 4 weight layers; a pathway has 2 or 3 (docs/specs.md,
    pathways[].depth). check, derive and simulate all stopped at pathways[0].depth, a field the
    graph file does not have; the error names edges[2] (h2 -> h3, the third hidden node). The graph
    itself may be deeper (tests/test_graph_rules.py builds a chain of 1100 nodes): the derivation
    and the size checks (``size_view``, which check and simulate estimate from) are what refuse it."""
    d = {"data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, 0], [0, 2]]},
         "nodes": [{"name": f"h{i}", "width": 2} for i in (1, 2, 3)],
         "edges": [{"from": "input", "to": "h1"}, {"from": "h1", "to": "h2"}, {"from": "h2", "to": "h3"},
                   {"from": "h3", "to": "output"}]}
    g = spec_from_dict(d)
    for use in (lambda: tk.Derivation(g), g.size_view):
        e = _err(use)
        assert e.field == "edges[2]" and "4 weight layers" in e.problem
    # a skip edge makes the short path fine and the long one still too deep: the same edge is named
    d["edges"].append({"from": "h1", "to": "output"})
    assert _err(lambda: tk.Derivation(spec_from_dict(d))).field == "edges[2]"


def test_check_of_a_too_deep_graph_file_names_the_edge(tmp_path, capsys):
    """The command line says the same: exit 2, the edge, no traceback."""
    from theorykit.cli import main

    path = tmp_path / "deep.toml"
    path.write_text('[data]\ninputs = [[1, 0], [0, 1]]\ntargets = [[1, 0], [0, 2]]\n'
                    + "".join(f'[[nodes]]\nname = "h{i}"\nwidth = 2\n' for i in (1, 2, 3))
                    + "".join(f'[[edges]]\nfrom = "{a}"\nto = "{b}"\n'
                              for a, b in (("input", "h1"), ("h1", "h2"), ("h2", "h3"), ("h3", "output"))))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "error in edges[2]:" in err and "Traceback" not in err


def test_the_same_graph_from_toml_json_and_python_derives_alike(tmp_path):
    """One graph three ways: a TOML file, the same tables through JSON (spec_from_dict), and Python.
    s -> m (on datapoints 0, 1; all rows) and s -> n (on 1, 2; output row 1), with a symbol k.
    By hand, Σyx = Σ_μ g_μ y_μ x_μ^T / P with P = 3:
      s/m: (y0 x0^T + y1 x1^T)/3 = diag(3/10, 2k)/3: singular values 2k/3 and 1/10 (k > 0; 2k/3 first
           only for k >= 3/20, so the test takes the set);
      s/n: row 1 only, (2k x1 + 7/10 x2)/3 = (7/100, 27k/10)/3 = (7/300, 9k/10)."""
    text = """
[symbols]
k = "positive"
[data]
inputs = [[1, 0, 0.1], [0, 1, "k"]]
targets = [[0.3, 0, 1], [0, "2*k", 0.7]]
[[nodes]]
name = "s"
width = 3
[[nodes]]
name = "m"
width = 2
active = [1, 1, 0]
[[nodes]]
name = "n"
width = 2
active = [0, 1, 1]
[[edges]]
from = "input"
to = "s"
[[edges]]
from = "s"
to = "m"
[[edges]]
from = "s"
to = "n"
[[edges]]
from = "m"
to = "output"
[[edges]]
from = "n"
to = "output"
rows = [1]
"""
    import tomllib

    path = tmp_path / "g.toml"
    path.write_text(text)
    from_toml = tk.load_spec(path)
    from_json = spec_from_dict(json.loads(json.dumps(tomllib.loads(text))), "g")
    k = sp.Symbol("k", positive=True)
    from_python = GraphSpec(Task([[1, 0, "0.1"], [0, 1, "k"]], [["0.3", 0, 1], [0, "2*k", "0.7"]], symbols={"k": k}),
                            (Node("s", 3), Node("m", 2, (1, 1, 0)), Node("n", 2, (0, 1, 1))),
                            (Edge("input", "s"), Edge("s", "m"), Edge("s", "n"), Edge("m", "output"),
                             Edge("n", "output", rows=[1])), name="g")
    s_n = sp.sqrt(sp.Rational(7, 300) ** 2 + (sp.Rational(9, 10) * k) ** 2)
    for spec in (from_toml, from_json, from_python):
        der = tk.Derivation(spec)
        assert set(der.modes["s/m"].singular_values) == {2 * k / 3, sp.Rational(1, 10)}
        assert sp.simplify(der.modes["s/n"].singular_values[0] - s_n) == 0
    assert from_toml == from_json == from_python


def _scheduled(tmp_path):
    """One chain input -> h -> output whose only group starts at step 3: a simulation keeps L(0) for
    three steps, while every edge trains from step 0 in the derivation (docs/graphs.md, Schedules)."""
    path = tmp_path / "staged.toml"
    path.write_text('[data]\ninputs = [[1, 0], [0, 1]]\ntargets = [[1, 0], [0, 2]]\n'
                    '[[nodes]]\nname = "h"\nwidth = 2\n'
                    '[[edges]]\nfrom = "input"\nto = "h"\n[[edges]]\nfrom = "h"\nto = "output"\n'
                    '[[schedule]]\nname = "late"\nedges = ["input->h", "h->output"]\nstart = 3\n'
                    '[training]\nlr = 0.1\nsteps = 6\n')
    return path


def test_a_derivation_of_a_scheduled_graph_says_it_leaves_the_schedule_out(tmp_path):
    """The derivation has no schedule in it: its notes said nothing of one, and simulate --compare
    reported the staged run's distance from the joint theory as its error, silently (0.47 of L(0)
    for examples/section6_paper.toml at 3000 steps). The same graph without its schedule has no
    such note."""
    path = _scheduled(tmp_path)
    spec = tk.load_spec(path)
    assert any("[[schedule]]" in n for n in tk.Derivation(spec).notes)
    from dataclasses import replace
    assert not any("[[schedule]]" in n for n in tk.Derivation(replace(spec, schedule=())).notes)


def test_simulate_compare_of_a_scheduled_graph_says_so(tmp_path, capsys):
    from theorykit.cli import main

    path = _scheduled(tmp_path)
    out = tmp_path / "run.json"
    assert main(["simulate", str(path), "--compare", "--seeds", "1", "--no-progress", "--json", str(out)]) == 0
    err = capsys.readouterr().err
    assert "--compare" in err and "[[schedule]]" in err
    run = json.loads(out.read_text())
    # the group starts at step 3: the simulated loss holds L(0) = ½·(1 + 4)/2 = 5/4 (less the a0 start) until
    # then, while the joint theory has already moved at step 1 (lr 0.1 on a depth-2 chain)
    assert run["loss"]["mean"][0] == run["loss"]["mean"][3]
    assert run["theory"]["value"][3] < run["theory"]["value"][0]


def test_json_spec_file_is_told_how_to_load_json(tmp_path, capsys):
    """A spec written as JSON (the same tables) was refused as "not valid TOML" with the fix "check the
    file's syntax", though its syntax is fine. A spec file is TOML (docs/specs.md); the error of a .json
    file now says so and names spec_from_dict, which reads the same tables (see the TOML/JSON test above)."""
    from theorykit.cli import main

    path = tmp_path / "g.json"
    path.write_text(json.dumps({"data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, 0], [0, 2]]},
                                "nodes": [{"name": "h", "width": 2}],
                                "edges": [{"from": "input", "to": "h"}, {"from": "h", "to": "output"}]}))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "error in spec:" in err and "spec_from_dict" in err and "Traceback" not in err


def test_shared_edge_race_of_scalar_weights_against_the_race_written_out():
    """Two pathways sharing their first edge, every width 1, so the race reduction of docs/theory.md#race
    is exact in scalars: input -> s (w), s -> a -> output row 0 (u1, u2; a on datapoint 0), s -> b ->
    output row 1 (v1, v2; b on datapoint 1). X = [1, 1], Y = [[2, 0], [0, 1]], P = 2, mean loss:
      s/a: Σyx = 2·1/2 = 1, Σx = 1/2;  s/b: Σyx = 1·1/2 = 1/2, Σx = 1/2;  no common rows: no coupling
      L = ½ tr Σy − Σ_p s_p A_p + ½ Σ_p d_p A_p²,  ½ tr Σy = ½ (4 + 1)/2 = 5/4,  A_a = w u1 u2, A_b = w v1 v2
      τ ẇ = u1 u2 (s_a − d_a A_a) + v1 v2 (s_b − d_b A_b),  τ u̇1 = w u2 (s_a − d_a A_a), …
    The aligned start (docs/graphs.md, Weights): the shared edge scaled by √2 (two pathways through it),
    balanced at every node: w = √2 c, the other four c; mean path strength √2 c³ = a0."""
    from scipy.integrate import solve_ivp

    g = GraphSpec(Task([[1, 1]], [[2, 0], [0, 1]]),
                  (Node("s", 1), Node("a", 1, (1, 0)), Node("b", 1, (0, 1))),
                  (Edge("input", "s"), Edge("s", "a"), Edge("s", "b"), Edge("a", "output", rows=[0]),
                   Edge("b", "output", rows=[1])), tk.Training(lr=0.01, a0=0.01))
    der = tk.Derivation(g)
    assert der.method == "race-reduction"
    assert der.modes["s/a"].singular_values == [1] and der.modes["s/b"].singular_values == [sp.Rational(1, 2)]
    tau, a0, sa, sb, d = 100.0, 0.01, 1.0, 0.5, 0.5
    c = (a0 / 2 ** 0.5) ** (1 / 3)

    def flow(_t, x):
        w, u1, u2, v1, v2 = x
        ea, eb = sa - d * w * u1 * u2, sb - d * w * v1 * v2
        return [(u1 * u2 * ea + v1 * v2 * eb) / tau, w * u2 * ea / tau, w * u1 * ea / tau,
                w * v2 * eb / tau, w * v1 * eb / tau]

    ts = [0.0, 200.0, 400.0, 600.0, 800.0]
    w, u1, u2, v1, v2 = solve_ivp(flow, (0, ts[-1]), [2 ** 0.5 * c, c, c, c, c], t_eval=ts,
                                  rtol=1e-11, atol=1e-14).y
    A_a, A_b = w * u1 * u2, w * v1 * v2
    ref = 5 / 4 - sa * A_a + d * A_a ** 2 / 2 - sb * A_b + d * A_b ** 2 / 2
    assert ref[2] < 0.2 * ref[0]                       # the window saw the race
    np.testing.assert_allclose(der.predict_loss(ts), ref, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("extra,noted", [([], False), (["--init", "random"], True), (["--network", "relu"], True)])
def test_simulate_compare_from_a_random_start_says_which_a0_the_theory_has(tmp_path, capsys, extra, noted):
    """The theory of --compare starts from aligned weights of strength training.a0, whatever the run's start.
    From N(0, σ²) weights a path starts near its own effective a0 (docs/theory.md#a0-rule): depth 3 through
    4 units, Π σ√(n/2) = (0.01·√2)³ ≈ 2.8e-6 for docs/graphs.md's shared-trunk spec, far below its
    a0 = 1e-3, so --init random --compare reported a largest error of 0.99998 of L(0) at its 2000 steps
    (the run had not started to learn) and nothing said why. Such a run is now noted; an aligned one is not."""
    from theorykit.cli import main

    path = tmp_path / "one.toml"
    path.write_text('[data]\ninputs = [[1, 0], [0, 1]]\ntargets = [[1, 0], [0, 2]]\n'
                    '[[nodes]]\nname = "h"\nwidth = 4\n'
                    '[[edges]]\nfrom = "input"\nto = "h"\n[[edges]]\nfrom = "h"\nto = "output"\n')
    assert main(["simulate", str(path), "--compare", "--steps", "2", "--seeds", "1", "--no-progress",
                 "--json", str(tmp_path / "r.json"), *extra]) == 0
    assert ("training.a0" in capsys.readouterr().err) == noted


def test_a_graph_too_wide_to_simulate_names_the_wide_node_not_the_seeds():
    """docs/specs.md: an error over the limits "names the field that drives the cost and says how far to
    lower it". docs/graphs.md's shared-trunk graph with its branch nodes 10^8 wide: memory goes as the
    edges trunk -> left and trunk -> right (10^8 × 8 each), the seeds only multiply it. The error named
    --seeds (4, the default, which the author never gave) since a graph's parts (nodes[i].width, edges[i])
    were not measured against an ordinary width as pathways[i].hidden is; it names the node's width now.
    The same with the trunk 10^12 wide: the widest part is edges[0], input -> trunk."""
    from theorykit.spec import limits as L

    def doc(trunk, branch):
        return {"data": {"inputs": [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]], "targets": [[1, 1, 0, 0], [0, 0, 1, 1]]},
                "nodes": [{"name": "trunk", "width": trunk}, {"name": "left", "width": branch, "active": [1, 1, 0, 0]},
                          {"name": "right", "width": branch, "active": [0, 0, 1, 1]}],
                "edges": [{"from": "input", "to": "trunk"}, {"from": "trunk", "to": "left"},
                          {"from": "trunk", "to": "right"}, {"from": "left", "to": "output", "rows": [0]},
                          {"from": "right", "to": "output", "rows": [1]}]}

    limits = L.Limits(max_bytes=1e9, max_seconds=1e30)
    for (trunk, branch), field in (((8, 10 ** 8), "nodes[1].width"), ((10 ** 12, 4), "edges[0]")):
        est = L.simulation_estimate(spec_from_dict(doc(trunk, branch)), steps=10, seeds=4)
        e = _err(lambda: L.enforce(est, limits))
        assert e.field == field, e


@pytest.mark.parametrize("steps,noted", [(3, True), (4, False)])
def test_a_group_that_starts_after_the_run_is_noted(tmp_path, capsys, steps, noted):
    """The group of _scheduled starts at step 3 ("start: first step at which they train", docs/graphs.md):
    a run of 3 steps makes updates 0, 1, 2 only, so nothing trains and the loss stays at L(0) throughout,
    and nothing said why. Such a run is now noted; a run of 4 steps trains the group at its last step."""
    from theorykit.cli import main

    out = tmp_path / "r.json"
    assert main(["simulate", str(_scheduled(tmp_path)), "--steps", str(steps), "--seeds", "1", "--no-progress",
                 "--json", str(out)]) == 0
    assert ("schedule[0] ('late') starts at step 3" in capsys.readouterr().err) == noted
    mean = json.loads(out.read_text())["loss"]["mean"]
    assert (mean[-1] == mean[0]) == noted


def test_a_node_narrower_than_its_modes_is_told_to_raise_its_width():
    """One node h of width 1 on X = I, Y = diag(1, 2): Σyx = diag(1, 2)/2 has two modes, more than the one
    unit. The derivation's note said "raise nodes[0].hidden to 2"; a graph node has a width, not a hidden."""
    g = GraphSpec(T, (Node("h", 1),), (Edge("input", "h"), Edge("h", "output")))
    with pytest.warns(UserWarning, match=r"raise nodes\[0\]\.width to 2"):
        der = tk.Derivation(g)
        der.modes
    assert not any("nodes[0].hidden" in n for n in der.notes)
