"""Rules found by a theorist's hour with theorykit in a REPL (session 139): the XoR and k-context
derivations, their LaTeX and JAX forms, the lemma checks, and a task of one's own written in Python.
Every expected value is worked out by hand in a comment or computed by a second method in the test.
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.spec.files import spec_from_dict


# ------------------------------------------------------------------------------------------------
# A task of one's own, from Python, with a symbol. tk.Task took symbols={"b": a} (the symbol a under
# the name b): values={"a": 1} was then refused with "no value for ['a']; ['a'] given a value but not a
# symbol of the task (fix: values={'a': 0.5})", which contradicts itself, values={"b": 1} set a, and
# spec_to_toml wrote a file declaring b whose entries use a. A symbol left out of symbols=, or a string
# entry naming one, was answered with a spec file's fix ("declare them under [symbols]").
# ------------------------------------------------------------------------------------------------
a = sp.Symbol("a", positive=True)
X_A = sp.Matrix([[a, 1], [0, 1]])
Y_A = sp.Matrix([[1, 0]])


def test_a_symbol_keyed_by_another_name_is_refused_naming_its_own():
    with pytest.raises(SpecError) as err:
        tk.Task(X_A, Y_A, symbols={"b": a})
    assert err.value.field == "symbols['b']"
    assert "{'a': a}" in err.value.fix


@pytest.mark.parametrize("value", [1, "a", a + 1])
def test_a_symbols_value_that_is_no_symbol_is_refused_by_its_key(value):
    with pytest.raises(SpecError) as err:
        tk.Task(X_A, Y_A, symbols={"a": value})
    assert err.value.field == "symbols['a']" and "sp.Symbol('a')" in err.value.fix


def test_a_symbol_under_its_own_name_takes_its_value_by_that_name():
    # By hand: P = 2, one pathway on both points. Σyx = ½ Y Xᵀ = (a/2, 0), so s = a/2 along v = e1, and
    # d = e1ᵀ(½ X Xᵀ)e1 = (a² + 1)/2. At a = 1: s = ½, d = 1, L(0) = ½ tr Σy = ½ · ½ · 1 = ¼ with the maps
    # at zero; started at a0 = 1e-3 the loss at t = 0 is ¼ − (s a0 − ½ d a0²) = 0.25 − 0.0005 + 0.0000005.
    task = tk.Task(X_A, Y_A, symbols={"a": a})
    der = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("p", active=(1, 1))], tk.Training(a0=1e-3)))
    (m,) = der.modes["p"].modes
    assert sp.simplify(m.s - a / 2) == 0 and sp.simplify(m.d - (a ** 2 + 1) / 2) == 0
    assert der.predict_loss([0.0], values={"a": 1})[0] == pytest.approx(0.2495005, rel=1e-12)


def test_a_symbol_missing_from_symbols_names_the_python_fix():
    with pytest.raises(SpecError) as err:
        tk.Task(X_A, Y_A)
    assert err.value.field == "data" and "['a']" in err.value.problem
    assert "symbols={'a': a}" in err.value.fix and "[symbols]" not in err.value.fix


def test_a_string_entry_naming_an_undeclared_symbol_names_the_python_fix():
    with pytest.raises(SpecError) as err:
        tk.Task([["a", 1], [0, 1]], [[1, 0]])
    assert err.value.field == "data.inputs[0][0]"
    assert "tk.Task(X, Y, symbols={'a': sp.Symbol('a')})" in err.value.fix and "[symbols]" not in err.value.fix
    # declared, the same string is read as the symbol
    assert tk.Task([["a", 1], [0, 1]], [[1, 0]], symbols={"a": a}).X == X_A


def test_a_string_symbol_in_a_structure_from_python_says_to_pass_the_symbol():
    with pytest.raises(SpecError) as err:
        tk.contexts(2, 2, common=[["g", 1]])
    assert err.value.field == "data.common[0][0]" and "[symbols]" not in err.value.fix
    assert "sp.Symbol('g'" in err.value.fix
    # a spec file is still told to declare it, and reads it once declared
    with pytest.raises(SpecError, match=r"declare it under \[symbols\]"):
        spec_from_dict({"data": {"task": "contexts", "n": 2, "k": 2, "common": [["g", 1]], "reln": "double"}})
    spec = spec_from_dict({"symbols": {"g": {"positive": True}},
                           "data": {"task": "contexts", "n": 2, "k": 2, "common": [["g", 1]], "reln": "double"}})
    g = spec.task.symbols["g"]
    assert spec.task.Y.row(0).tolist() == [[g, 1, g, 1]]      # the common block in both contexts
