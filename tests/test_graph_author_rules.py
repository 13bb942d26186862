"""Rules from a walkthrough by a spec author writing graph GDLNs (docs/graphs.md, docs/specs.md,
docs/theory.md#pathways and #race): skip edges, shared edges, deep chains, node names a theorist
picks (``m`` beside ``m_2``, names holding ``/``, long names), and the same spec written as TOML,
as JSON and in Python.

docs/graphs.md: "A pathway is a path from input to output. [...] its name is the list of its
hidden nodes (``h1/m4``)", and every check of a graph spec names its own field (``nodes[2]``,
``edges[5]``). A graph file has no ``[[pathways]]``, so an error naming ``pathways[1].name`` points
at nothing the author wrote. Expected values are derived by hand in the comments.
"""
from __future__ import annotations

import json

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
