"""Rules from a theorist's hour in IPython (session 139, follow-ups): the typeset singular values of one
mode, crossings of a task with no symbol, refusals of a symbol's value in Python's words, and exact
results printed simplified. Every expected value is worked out by hand in a comment or by a second method.
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.spec.files import parse_assignment
from theorykit.spec.task import check_assumptions
from theorykit.theory.trajectory import a0, t, tau

D = sp.Symbol("Delta", nonnegative=True)      # tk.xor_margin()'s Δ (docs/api.md)


def _xor(delta=None, reln="xor"):
    return tk.Derivation(tk.GDLNSpec(tk.xor_margin(delta), tk.xor_relns()[reln], tk.Training(lr=0.01, a0=1e-3)))


# ------------------------------------------------------------------------------------------------
# 1. One mode was typeset "s = (\frac{\Delta}{2})", which reads like a one-element tuple.
# ------------------------------------------------------------------------------------------------

def test_one_mode_is_typeset_without_parentheses():
    # XoR's linear ReLN (docs/theory.md): each of its two pathways has one mode, s = Δ/2, d = Δ²/2
    lin = _xor(reln="linear")
    s, d = sp.latex(D / 2), sp.latex(D ** 2 / 2)
    assert lin.modes["positive"].latex() == f"s = {s}"
    assert lin.modes["positive"]._repr_latex_() == f"$s = {s}$"
    assert rf"\mathrm{{positive}}: & s = {s}, & d = {d} \\" in lin._repr_latex_()
    assert "(" + s + ")" not in lin._repr_latex_() and "(" + d + ")" not in lin._repr_latex_()


def test_several_modes_keep_the_parenthesised_list():
    # [[0, 3], [4, 0]]: columns orthogonal of norms 4 and 3, so s = (4, 3) (by hand)
    assert tk.exact_svd(sp.Matrix([[0, 3], [4, 0]])).latex() == "s = (4, 3)"
    # one pathway on both points of X = I₂, Y = diag(2, 1): Σyx = ½ Y Xᵀ = diag(1, ½), Σx = ½ I:
    # s = (1, ½), d = (½, ½)
    task = tk.Task(sp.eye(2), sp.diag(2, 1))
    der = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("p", active=(1, 1))]))
    assert r"\mathrm{p}: & s = (1, \frac{1}{2}), & d = (\frac{1}{2}, \frac{1}{2})" in der._repr_latex_()


# ------------------------------------------------------------------------------------------------
# 2. tk.crossings of a task with no free symbol printed "no crossing": there was nothing to search along.
# ------------------------------------------------------------------------------------------------

def test_crossings_of_a_task_with_no_symbol_is_a_spec_error_naming_the_fix():
    with pytest.raises(SpecError) as err:
        tk.crossings(_xor(1))
    assert err.value.field == "symbol" and "no free symbol" in err.value.problem
    assert "tk.xor_margin()" in err.value.fix
    with pytest.raises(SpecError) as err:            # pairs of numbers: nothing to search along either
        tk.crossings([("a", sp.Rational(1, 2)), ("b", 1)])
    assert err.value.field == "symbol"
    # the same task with Δ free still searches (and its four equal modes never cross: an empty list)
    assert tk.crossings(_xor()) == []


# ------------------------------------------------------------------------------------------------
# 3. From Python, a value Δ's assumptions forbid named the spec file's [symbols]; 1j was "not nonnegative".
# ------------------------------------------------------------------------------------------------

def test_a_forbidden_value_from_python_names_the_symbols_assumptions():
    der = _xor()
    with pytest.raises(SpecError) as err:
        der.predict_loss([0.0, 1.0], values={"Delta": -1})
    assert err.value.field == "values[Delta]" and "not nonnegative" in err.value.problem
    assert "[symbols]" not in err.value.fix and "sp.Symbol('Delta', real=True)" in err.value.fix


def test_a_complex_value_is_called_complex():
    der = _xor()
    with pytest.raises(SpecError) as err:
        der.predict_loss([0.0, 1.0], values={"Delta": 1j})
    assert err.value.field == "values[Delta]"
    assert "is complex" in err.value.problem and "real number" in err.value.problem
    assert "nonnegative" not in str(err.value)


def test_the_command_line_keeps_the_spec_files_words():
    # --set Delta=-1 on a spec file: the fix is still the file's [symbols] section
    with pytest.raises(SpecError) as err:
        parse_assignment("Delta=-1", {"Delta": D})
    assert err.value.field == "--set Delta" and "[symbols]" in err.value.fix
    with pytest.raises(SpecError) as err:           # (the command line reads no I; the check's words, directly)
        check_assumptions(D, sp.I, "--set Delta", "I")
    assert "is complex" in err.value.problem and "--set Delta=0.5" in err.value.fix
