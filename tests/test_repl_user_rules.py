"""Rules found by a theorist's REPL-speed walkthrough: timing the everyday loop (Derivation, modes,
predict_loss at several horizons, values=, plot, the k-context results, race-exhaust, predict) on
the shared 2-core CPU, then looking for valid tasks that are refused or far slower than their
neighbours. No test here times anything (speed is measured by ``theorykit bench``); each pins what
was wrong: a refusal of a documented task, or a result that must not change when only the cost does.
Every expected value is worked out by hand in a comment or computed by a second method in the test.
"""
from __future__ import annotations

import pytest
import sympy as sp

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.spec.files import spec_from_dict


# ------------------------------------------------------------------------------------------------
# A symbolic context scale (docs/specs.md: data.context_scale is a "number or expression"; docs/theory.md:
# "theorykit takes γ as a parameter"). It was refused with "unknown symbols ['g'] (fix: declare them
# under [symbols])" although g was declared: contexts() built its Task with no symbols at all.
# ------------------------------------------------------------------------------------------------
def test_contexts_with_a_declared_symbolic_scale_is_read():
    spec = spec_from_dict({"symbols": {"g": {"positive": True}},
                           "data": {"task": "contexts", "n": 2, "k": 2, "context_scale": "g", "reln": "double"}})
    g = spec.task.symbols["g"]
    assert set(spec.task.symbols) == {"g"} and g.is_positive
    # contexts(2, 2): the one-hot item on the scaled one-hot context, context-major columns
    # (docstring of contexts: context c holds columns c·n … c·n+n−1), so by hand:
    assert spec.task.X.tolist() == [[1, 0, 1, 0], [0, 1, 0, 1], [g, g, 0, 0], [0, 0, g, g]]
    # and at g = 11/10 it is the task built with the number
    at = spec.subs({"g": sp.Rational(11, 10)}).task
    assert at.X == tk.contexts(2, 2, context_scale=sp.Rational(11, 10)).X and not at.free_symbols


def test_contexts_from_python_keeps_the_symbols_of_its_scale():
    g = sp.Symbol("g", positive=True)
    task = tk.contexts(2, 3, context_scale=2 * g)
    assert task.symbols == {"g": g}
    # the context rows are 2g on their context's n = 2 columns, 0 elsewhere (by hand)
    assert task.X.row(2).tolist() == [[2 * g, 2 * g, 0, 0, 0, 0]]
    assert task.X.row(4).tolist() == [[0, 0, 0, 0, 2 * g, 2 * g]]


def test_contexts_with_an_undeclared_symbol_is_still_refused_by_name():
    with pytest.raises(SpecError, match="context_scale"):
        spec_from_dict({"data": {"task": "contexts", "n": 2, "k": 2, "context_scale": "g", "reln": "double"}})
