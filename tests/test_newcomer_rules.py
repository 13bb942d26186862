"""Rules found in a newcomer's walkthrough of the README, the tutorial and the spec, graph and API
pages: the obvious next things a researcher types in a REPL, and the bad inputs among them.

Each bad input must stop with theorykit's own error (``SpecError``) naming the field at fault,
as docs/specs.md promises ("Imaginary and complex values, infinities and NaN are refused by name";
expression strings "are parsed without eval"; a schedule naming an unknown edge, or leaving an
edge in no group, is refused, docs/graphs.md), never with a raw Python error, a run that trains
on something else, or a string run through ``eval``.
"""
from __future__ import annotations

import os

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit import Edge, GraphSpec, Group, Node


# -- Task: entries of data given as Python lists ------------------------------------------------------

def test_task_string_entry_is_parsed_not_evaluated():
    """A string entry is an expression for the safe parser (docs/specs.md, Expressions): a call
    other than sqrt or Rational is refused by entry, and the code in it never runs (SymPy's
    ``sympify`` would ``eval`` it)."""
    key = "THEORYKIT_NEWCOMER_EVAL_PROBE"
    os.environ.pop(key, None)
    code = f"__import__('os').environ.setdefault('{key}', '1')"
    with pytest.raises(tk.SpecError) as info:
        tk.Task([[1, code]], [[1, 1]])
    assert key not in os.environ
    assert info.value.field == "data.inputs[0][1]"
    with pytest.raises(tk.SpecError) as info:
        tk.Task([[1, 0]], [["Abs(-2)", 1]])            # sympify would read 2
    assert info.value.field == "data.targets[0][0]"


def test_task_string_entries_read_as_the_spec_files_read_them():
    """The safe parser's reading, checked against SymPy's own constructors: sqrt(2)/2, a declared
    symbol, and a decimal read exactly (0.1 is 1/10, docs/specs.md)."""
    D = sp.Symbol("Delta", positive=True)
    task = tk.Task([["sqrt(2)/2", "2*Delta"], [0, "0.1"]], [[1, "-1"]], symbols={"Delta": D})
    assert task.X == sp.Matrix([[sp.sqrt(2) / 2, 2 * D], [0, sp.Rational(1, 10)]])
    assert task.Y == sp.Matrix([[1, -1]])
    with pytest.raises(tk.SpecError) as info:
        tk.Task([["2*x", 0]], [[1, 1]])
    assert info.value.field == "data.inputs[0][0]" and "x" in info.value.problem


@pytest.mark.parametrize("bad, where", [
    ([[float("nan"), 0], [0, 1]], "data.inputs[0][0]"),
    ([[1, 0], [0, float("inf")]], "data.inputs[1][1]"),
    ([[1, sp.I], [0, 1]], "data.inputs[0][1]"),
    ([[sp.zoo, 0], [0, 1]], "data.inputs[0][0]"),
    ([[1, 0], [True, 1]], "data.inputs[1][0]"),
    ([[1, None], [0, 1]], "data.inputs[0][1]"),
    (sp.Matrix([[1, 0], [0, sp.nan]]), "data.inputs[1][1]"),
])
def test_task_refuses_nan_inf_complex_and_non_numbers_by_entry(bad, where):
    """A numpy array holding NaN was refused, the same value in a list was not (the derivation then
    failed on an internal matrix named ``M``); every form is refused now, naming the entry."""
    with pytest.raises(tk.SpecError) as info:
        tk.Task(bad, [[1, 1]])
    assert info.value.field == where


def test_task_refuses_nan_in_targets_and_before_any_derivation():
    with pytest.raises(tk.SpecError) as info:
        tk.Task([[1, 0], [0, 1]], [[1, float("nan")]])
    assert info.value.field == "data.targets[0][1]"


# -- simulate((X, Y)): data for a ReLU network ---------------------------------------------------------

_KW = dict(network="relu", hidden=4, steps=5, seeds=1, lr=0.05)


def test_simulate_data_with_nan_is_refused_by_name_not_blamed_on_lr():
    """NaN in X made the run non-finite, and the error said to lower training.lr."""
    X = np.array([[np.nan, 1.0], [0.0, 1.0]])
    with pytest.raises(tk.SpecError) as info:
        tk.simulate((X, np.ones((1, 2))), **_KW)
    assert info.value.field == "source X" and "NaN" in info.value.problem
    with pytest.raises(tk.SpecError) as info:
        tk.simulate((np.eye(2), np.array([[1.0, np.inf]])), **_KW)
    assert info.value.field == "source Y"


def test_simulate_data_complex_or_text_is_refused_not_cast():
    """Complex X was cast to its real part with only a numpy warning; text raised numpy's ValueError."""
    with pytest.raises(tk.SpecError) as info:
        tk.simulate((np.eye(2) * 1j, np.ones((1, 2))), **_KW)
    assert info.value.field == "source X" and "complex" in info.value.problem
    with pytest.raises(tk.SpecError) as info:
        tk.simulate((np.array([["a", "b"]]), np.ones((1, 2))), **_KW)
    assert info.value.field == "source X"


def test_simulate_data_as_lists_trains_as_the_same_arrays():
    """Lists and float arrays are the same data: the same seed gives the same losses."""
    X, Y = [[1, 0, 1], [0, 1, 1]], [[1, 0, 1]]
    a = tk.simulate((X, Y), **_KW)
    b = tk.simulate((np.array(X, float), np.array(Y, float)), **_KW)
    np.testing.assert_array_equal(a.loss, b.loss)


# -- GraphSpec: nodes, edges and schedules built in Python ---------------------------------------------

_TASK = tk.Task([[1, 0, 1], [0, 1, 1]], [[1, 0, 1], [0, 1, 1]])


def test_graph_nodes_and_edges_of_the_wrong_type_are_named():
    """Edges given as tuples, or nodes as names, raised AttributeError ('tuple' object has no
    attribute 'src')."""
    with pytest.raises(tk.SpecError) as info:
        GraphSpec(_TASK, [Node("h", 4)], [("input", "h"), ("h", "output")])
    assert info.value.field == "edges[0]" and "Edge" in info.value.fix
    with pytest.raises(tk.SpecError) as info:
        GraphSpec(_TASK, ["h"], [Edge("input", "h"), Edge("h", "output")])
    assert info.value.field == "nodes[0]" and "Node" in info.value.fix
    with pytest.raises(tk.SpecError) as info:
        GraphSpec(_TASK, Node("h", 4), [Edge("input", "h"), Edge("h", "output")])
    assert info.value.field == "nodes"


def _two_branch_graph():
    return GraphSpec(_TASK, [Node("h", 4), Node("a", 2, [1, 1, 0]), Node("b", 2, [0, 1, 1])],
                     [Edge("input", "h"), Edge("h", "a"), Edge("h", "b"), Edge("a", "output"), Edge("b", "output")])


def test_simulate_schedule_is_checked_as_the_graph_checks_its_own():
    """A schedule passed to simulate naming an unknown edge trained nothing (the loss stayed at
    L(0) for every step) and said nothing; docs/graphs.md lists an unknown edge and an edge in no
    group among the checks."""
    g = _two_branch_graph()
    with pytest.raises(tk.SpecError) as info:
        tk.simulate(g, seeds=1, steps=10, schedule=[Group("x", ("input->zz",))])
    assert info.value.field == "schedule[0].edges" and "input->zz" in info.value.problem
    with pytest.raises(tk.SpecError) as info:
        tk.simulate(g, seeds=1, steps=10, schedule=[Group("x", ("input->h", "h->a", "a->output"))])
    assert info.value.field == "schedule" and "h->b" in info.value.problem
    with pytest.raises(tk.SpecError) as info:
        tk.simulate(g, seeds=1, steps=10, schedule=[("x", ("input->h",))])
    assert info.value.field == "schedule[0]"


def test_simulate_valid_schedule_still_waits_for_its_start():
    """A whole-graph group starting at step 3: the loss is L(0) up to step 3 (no edge trains),
    then falls, as a schedule's start means (docs/graphs.md, Schedules)."""
    g = _two_branch_graph()
    keys = ("input->h", "h->a", "h->b", "a->output", "b->output")
    sim = tk.simulate(g, seeds=1, steps=10, schedule=[Group("all", keys, start=3)])
    assert np.all(sim.loss[0, :4] == sim.loss[0, 0])
    assert sim.loss[0, 10] < sim.loss[0, 3]


# -- Derivation of something that is not a spec --------------------------------------------------------

@pytest.mark.parametrize("not_a_spec", ["examples/xor_linear.toml", tk.xor_margin(), tk.xor_relns()["linear"]])
def test_derivation_of_a_path_task_or_pathway_list_says_what_to_pass(not_a_spec):
    """tk.Derivation("spec.toml"), of the task alone or of a ReLN's pathways raised AttributeError
    ('str' object has no attribute 'task')."""
    with pytest.raises(tk.SpecError) as info:
        tk.Derivation(not_a_spec)
    assert info.value.field == "spec" and "load_spec" in info.value.fix


@pytest.mark.parametrize("not_a_task", ["xor", tk.GDLNSpec(tk.xor_margin(1), tk.xor_relns()["linear"])])
def test_predict_reln_of_a_name_or_a_spec_says_to_pass_the_task(not_a_task):
    """predict_reln("xor", ...) raised AttributeError ('str' object has no attribute 'free_symbols')."""
    with pytest.raises(tk.SpecError) as info:
        tk.predict_reln(not_a_task, hidden=8, training=tk.Training())
    assert info.value.field == "task" and "(X, Y)" in info.value.fix


# -- simulate(spec, values=...): checked as predict_loss checks them ------------------------------------

_XOR = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns(hidden=8)["linear"])


@pytest.mark.parametrize("values, where", [
    ({"Delta": np.array([1.0, 2.0])}, "values[Delta]"),     # SymPy's SympifyError before
    ([("Delta", 1.2)], "values"),                            # AttributeError: 'list' has no 'items'
    ({"Delta": -1}, "values[Delta]"),                        # Delta is nonnegative (xor_margin)
])
def test_simulate_values_are_checked_by_name(values, where):
    with pytest.raises(tk.SpecError) as info:
        tk.simulate(_XOR, values=values, init="random", seeds=1, steps=3)
    assert info.value.field == where


def test_simulate_value_as_an_expression_string_is_the_number():
    """values={"Delta": "6/5"} and values={"Delta": 1.2} simulate the same task: x3 = ±6/5 exactly."""
    a = tk.simulate(_XOR, values={"Delta": "6/5"}, seeds=1, steps=5)
    b = tk.simulate(_XOR, values={"Delta": 1.2}, seeds=1, steps=5)
    np.testing.assert_allclose(a.loss, b.loss, rtol=1e-12)


# -- Asking for a pathway that is not there -----------------------------------------------------------

def test_modes_of_a_missing_pathway_is_a_spec_error_and_still_a_key_error():
    """der.modes["nope"] raised a bare KeyError (a clear message, but not theorykit's error type, so
    ``except tk.SpecError`` missed it); it is now both, naming the look-up, with the names there are."""
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]))
    for results in (der.modes, der.t_half):
        with pytest.raises(tk.SpecError) as info:
            results["point0"]                     # a pathway of the other ReLN
        assert isinstance(info.value, KeyError)
        assert info.value.field == "pathway"
        assert "'positive', 'negative'" in str(info.value) and not str(info.value).startswith('"')


def test_loss_at_of_a_member_the_run_does_not_have_is_named():
    """sim.loss_at(t, batch=5) on a run of 2 seeds raised numpy's IndexError."""
    sim = tk.simulate(_XOR, values={"Delta": 1.2}, seeds=2, steps=4)
    with pytest.raises(tk.SpecError) as info:
        sim.loss_at([1], batch=5)
    assert info.value.field == "batch" and "2 members" in info.value.problem
    with pytest.raises(tk.SpecError):
        sim.loss_at([1], batch=0.0)
    # at a recording time loss_at is the recorded loss, member by member (-1: the last, as in numpy)
    assert sim.loss_at([3], batch=1)[0] == sim.loss[1, 3]
    assert sim.loss_at([3], batch=-1)[0] == sim.loss[1, 3]


def test_string_values_are_parsed_not_evaluated():
    """values={"Delta": "..."} went through SymPy's sympify (eval) in predict_loss, Derivation,
    simulate and Task.subs: code in the string ran. It is now read by parse_expr, as --set is;
    "6/5" still gives s = Δ/2 = 3/5 for the linear ReLN (docs/tutorial.md: s_lin = Δ/2)."""
    key = "THEORYKIT_NEWCOMER_VALUES_PROBE"
    os.environ.pop(key, None)
    code = f"__import__('os').environ.setdefault('{key}', '1')"
    der = tk.Derivation(_XOR)
    calls = (lambda: der.predict_loss([0, 10], values={"Delta": code}),
             lambda: tk.Derivation(_XOR, values={"Delta": code}),
             lambda: tk.simulate(_XOR, values={"Delta": code}, seeds=1, steps=2),
             lambda: _XOR.task.subs({"Delta": code}))
    for call in calls:
        with pytest.raises(tk.SpecError) as info:
            call()
        assert info.value.field == "values[Delta]"
    assert key not in os.environ
    assert tk.Derivation(_XOR, values={"Delta": "6/5"}).modes["positive"].singular_values == [sp.Rational(3, 5)]
