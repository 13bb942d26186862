"""Four rough edges a previous helper found and left (session 149, helper h156).

1. ``tk.structure("ring", 4)`` refused in a spec file's words, naming a field no Python caller wrote
   (``data.structure: … n = 8 … (fix: use n = 8 …)``). Called from Python it now refuses as ``tk.ring(4)``
   does, naming ``n`` in Python's words; a bad structure names the keyword ``spec``. :func:`contexts`, which
   passes its own field (``data.blocks[2]``), keeps it.
2. ``tk.xor_margin().subs({"Delta": True})`` (and ``.numeric``) crashed with an AttributeError of SymPy's;
   ``None`` with a SympifyError; ``1j``, ``nan`` for a symbol without assumptions were blamed on
   ``data.inputs[2][0]``. A symbol's value now goes through the one check of every ``values=``
   (``theorykit.spec.values.checked_value``, as ``Derivation`` and ``simulate`` check them), naming
   ``values[NAME]`` and giving a fix in Python's words.
3. Counts of 1 with a plural noun: "1 widths for 2 pathways", "1 hidden units", "1 ranks", "1 checkpoints",
   "n·k = 1 datapoints", "1 gates for 1 items × 1 contexts".
4. ``tk.Task([5], [[1]])`` was refused as "a flat list of 1 entries: one datapoint of 1 features, or 1
   datapoints of one feature?": both readings are the same 1 × 1 matrix, so a flat list of one entry is taken.
"""
import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.analysis._runs import train_gdln, train_gdln_many
from theorykit.analysis.compare import Comparison
from theorykit.analysis.predict_share import share_hidden, share_mass
from theorykit.errors import SpecError
from theorykit.spec.task import structure
from theorykit.theory.display import Ranking
from theorykit.theory.lemmas import classify_context_gating, gate_census, pattern_from_gates


def _refusal(call) -> SpecError:
    with pytest.raises(SpecError) as ei:
        call()
    return ei.value


# ------------------------------------------------------------------------------------------------
# 1. tk.structure from Python: refusals in Python's words
# ------------------------------------------------------------------------------------------------
def test_structure_ring_of_4_refuses_as_ring_does():
    err = _refusal(lambda: tk.structure("ring", 4))
    assert str(err) == "n: 'ring' is defined for n=8 items, got n=4 (fix: use n=8 or another structure)", str(err)
    assert str(err) == str(_refusal(lambda: tk.ring(4)))         # the second way to ask, the same words


@pytest.mark.parametrize("name,n,direct", [("cross", 4, tk.cross), ("hierarchy", 6, tk.hierarchy),
                                           ("ring", 7, tk.ring)])
def test_each_named_structure_refuses_as_its_own_function(name, n, direct):
    err = _refusal(lambda: tk.structure(name, n))
    assert err.field == "n" and str(err) == str(_refusal(lambda: direct(n)))
    assert "n = " not in str(err) and "data." not in str(err)      # no spec file's words


def test_a_bad_structure_names_the_keyword_spec():
    """tk.structure's first parameter is ``spec`` (its signature): a refusal of it names that keyword."""
    import inspect
    assert list(inspect.signature(tk.structure).parameters)[:2] == ["spec", "n"]
    for bad in (None, "spiral", [[1, 0, 0]]):                        # [[1, 0, 0]]: 3 columns for n = 2 items
        assert _refusal(lambda: tk.structure(bad, 2)).field == "spec"


def test_a_structure_named_by_a_spec_field_keeps_that_field_and_its_words():
    """contexts passes the field its structure came from (data.blocks[1]): the refusal names it, in the spec
    file's words; tk.contexts puts them in Python's, naming the keyword blocks[2]."""
    err = _refusal(lambda: structure("ring", 4, "data.blocks[1]"))
    assert err.field == "data.blocks[1]" and "n = 8" in err.problem
    err = _refusal(lambda: tk.contexts(n=4, blocks=["hierarchy", "hierarchy", "ring"]))
    assert str(err) == "blocks[2]: 'ring' is defined for n=8 items, got n=4 (fix: use n=8 or another structure)"


def test_structures_still_build():
    """identity of 3 is I₃; the ring is 15 rows of 8 items (its docstring: row 0 all ones)."""
    assert tk.structure("identity", 3) == sp.eye(3)
    R = tk.structure("ring", 8)
    assert R.shape == (15, 8) and list(R[0, :]) == [1] * 8


# ------------------------------------------------------------------------------------------------
# 2. a symbol's value in Task.subs / Task.numeric: the one check
# ------------------------------------------------------------------------------------------------
A = sp.Symbol("a")                     # no assumptions: only the value check can refuse 1j or oo here
PLAIN = tk.Task([[1, A]], [[1, 2]], {"a": A})
BAD = [True, np.bool_(False), sp.true, "x", None, 1j, float("nan"), float("inf"), sp.oo, sp.nan, sp.zoo, sp.I]


@pytest.mark.parametrize("method", ["subs", "numeric"])
@pytest.mark.parametrize("value", BAD, ids=repr)
@pytest.mark.parametrize("task,name", [(tk.xor_margin(), "Delta"), (PLAIN, "a")], ids=["xor", "plain"])
def test_a_value_that_is_no_finite_real_number_is_refused_naming_the_symbol(task, name, value, method):
    err = _refusal(lambda: getattr(task, method)({name: value}))
    assert err.field == f"values[{name}]", str(err)
    assert f"values={{'{name}': 0.5}}" in err.fix, str(err)            # the fix in Python's words


@pytest.mark.parametrize("value", [True, None, float("nan"), 1j], ids=repr)
def test_the_task_refuses_as_the_derivation_does(value):
    """One check: Derivation.predict_loss refuses the value with the same message as Task.numeric."""
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3))
    der = tk.Derivation(spec)
    from_der = _refusal(lambda: der.predict_loss([0.0, 1.0], values={"Delta": value}))
    assert str(_refusal(lambda: spec.task.numeric({"Delta": value}))) == str(from_der)


def test_good_values_still_substitute():
    """xor_margin's third row is (Δ, Δ, −Δ, −Δ) (its docstring): Δ = 0.5, "sqrt(2)" and 1/3 exactly."""
    task = tk.xor_margin()
    X, Y = task.numeric({"Delta": 0.5})
    assert X[2].tolist() == [0.5, 0.5, -0.5, -0.5] and Y.tolist() == [[1, 1, -1, -1]]
    assert task.subs({"Delta": "sqrt(2)"}).X[2, :] == sp.Matrix([[sp.sqrt(2), sp.sqrt(2), -sp.sqrt(2), -sp.sqrt(2)]])
    assert task.subs({"Delta": sp.Rational(1, 3)}).X[2, 0] == sp.Rational(1, 3)
    assert PLAIN.numeric({"a": -2})[0].tolist() == [[1.0, -2.0]]          # no assumption: a negative value is fine


def test_an_expression_in_the_tasks_symbols_is_still_substituted():
    """Task.subs replaces a symbol by an expression in the task's own symbols (a → 2b), as before; the
    symbol's assumptions still hold it (a negative symbol for the nonnegative Δ is refused)."""
    b = sp.Symbol("b")
    task = tk.Task([[1, A]], [[1, b]], {"a": A, "b": b})
    assert task.subs({"a": 2 * b}).X == sp.Matrix([[1, 2 * b]])
    neg = sp.Symbol("m", negative=True)
    err = _refusal(lambda: tk.Task(tk.xor_margin().X, [[1, 1, -1, -1]], {"Delta": tk.xor_margin().symbols["Delta"],
                                                                          "m": neg}).subs({"Delta": neg}))
    assert err.field == "values[Delta]" and "nonnegative" in err.problem


def test_a_symbol_is_no_boolean_to_the_value_check():
    """SymPy's Symbol is a Boolean too (it can stand in logic): a symbol value is refused as not a number."""
    from theorykit.spec.values import checked_value
    err = _refusal(lambda: checked_value(tk.xor_margin(), "Delta", sp.Symbol("x")))
    assert err.problem == "x is not a number", err.problem


def test_a_misspelt_name_is_still_reported_with_the_missing_symbols():
    err = _refusal(lambda: tk.xor_margin().numeric({"delta": 0.5}))
    assert err.field == "symbols" and "['delta'] given a value but not a symbol" in err.problem


# ------------------------------------------------------------------------------------------------
# 3. a count of 1 takes the singular
# ------------------------------------------------------------------------------------------------
X2 = np.array([[1.0, 0, 1, -1], [0, 1, 1, 2]])             # d = 2, P = 4
Y1 = np.array([[1.0, -1, 0.5, 2]])                          # p = 1


def test_train_gdln_counts_widths_and_width_lists():
    G = np.array([[1, 1, 0, 0], [0, 1, 1, 1]], float)
    err = _refusal(lambda: train_gdln(X2, Y1, G, hidden=[2], lr=0.1, steps=1, seeds=1, every=1))
    assert err.problem == "1 width for 2 pathways", err.problem
    err = _refusal(lambda: train_gdln_many(X2, Y1, [G], [[1, 1], [2]], lr=0.1, steps=1, seeds=1, every=1))
    assert err.problem == "2 width lists for 1 gating", err.problem


def test_share_rules_count_one_hidden_unit_and_one_pathway():
    for rule in (lambda: share_hidden(1, 3), lambda: share_mass(1, [0.5, 0.3, 0.2])):
        assert _refusal(rule).problem == "1 hidden unit cannot give each of the 3 pathways at least one unit"
    for rule in (lambda: share_hidden(0, 1), lambda: share_mass(0, [1.0])):
        assert _refusal(rule).problem == "0 hidden units cannot give the one pathway at least one unit"


def test_lemmas_count_one_gate_item_context_and_datapoint():
    err = _refusal(lambda: classify_context_gating([1, 0], 1, 1))        # n·k = 1 gate expected, 2 given
    assert err.problem == "2 gates for 1 item × 1 context" and err.fix == "give 1 gate, context-major", str(err)
    err = _refusal(lambda: pattern_from_gates([1, 0], 1, 1))
    assert err.problem == "expected n·k = 1 datapoint (last axis), got 2", err.problem
    err = _refusal(lambda: gate_census(np.ones((2, 2)), 1, 1))
    assert "the last axis must be the 1 datapoint (n·k)" in err.problem, err.problem


def test_a_ranking_counts_one_rank():
    with pytest.raises(ValueError) as ei:
        Ranking([("a", 1), ("b", 2)], ranks=[1])
    assert str(ei.value) == "Ranking: 1 rank for 2 pathways; give one rank a pathway"


def test_a_comparison_of_one_checkpoint_says_1_checkpoint():
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3))
    one = np.array([1.0])
    cmp = Comparison(np.array([0]), np.array([0.0]), one, one, None, spec, 1e-3, 0.01, "mean")
    assert f", {len(spec.pathways)} pathways, 1 checkpoint (steps 0…0);" in repr(cmp), repr(cmp)


# ------------------------------------------------------------------------------------------------
# 4. a flat list of one entry: both readings are the same 1 × 1 task
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("X,Y,x", [([5], [[1]], 5), ([[5]], [1], 5), (np.array([0.5]), (1,), sp.Rational(1, 2)),
                                   (["sqrt(2)"], [[1]], sp.sqrt(2))], ids=["list", "targets", "array", "string"])
def test_one_entry_is_the_one_by_one_matrix(X, Y, x):
    task = tk.Task(X, Y)
    assert task.X == sp.Matrix([[x]]) and task.Y == sp.Matrix([[1]]) and (task.d, task.P, task.p) == (1, 1, 1)


def test_two_entries_are_still_refused():
    err = _refusal(lambda: tk.Task([5, 6], [[1, 2]]))
    assert err.field == "data.inputs" and "flat list of 2 entries" in err.problem
    assert _refusal(lambda: tk.Task([[5, 6]], np.array([1.0, 2.0]))).field == "data.targets"
