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


# ------------------------------------------------------------------------------------------------
# 4. X = I₂, Y = [[2, 1], [1, 3]], one pathway: the loss's constant bracket printed as
#    −(√5/4 + 5/4)(√5/2 + 5/2)/2 − (5/4 − √5/4)(5/2 − √5/2)/2 + 15/4 (which is 0), and u, v as nested radicals
#    such as 5√5/√(125√5/2 + 625/2).
# By hand: P = 2, Σyx = ½ Y Xᵀ = ½ Y, Σx = ½ I. Y's eigenvalues are (5 ± √5)/2 (trace 5, det 5), so
# s = (5 ± √5)/4 and d = ½. Y v = λ v for λ = (5 + √5)/2 gives v₂ = (λ − 2) v₁ = φ v₁ (φ = (1 + √5)/2), so
# v₁² = 1/(1 + φ²) = 2/(5 + √5) = (5 − √5)/10 = 1/2 − √5/10, v₂² = 1/2 + √5/10; the other mode's v is
# (v₂, −v₁) (first entry positive, the convention). Y is symmetric positive definite, so u = Σyx v/s = v.
# The loss ½ tr Σy − Σ s²/(2d) + Σ s²/(2d)·q²: ½ tr Σy = ¼ tr Y² = ¼ (4 + 1 + 1 + 9) = 15/4 and
# Σ s²/(2d) = Σ s² = ((5 + √5)² + (5 − √5)²)/16 = 60/16 = 15/4: the bracket is 0 (Y is learnt fully),
# and each mode's weight s²/(2d) = s² = (15 ± 5√5)/8.
# ------------------------------------------------------------------------------------------------
R5 = sp.sqrt(5)


def _sym_task():
    task = tk.Task(sp.eye(2), sp.Matrix([[2, 1], [1, 3]]))
    return tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("p", active=(1, 1))]))


def test_the_loss_of_a_fully_learnt_task_has_no_constant_bracket():
    der = _sym_task()
    const, moving = der.loss.as_independent(t, as_Add=True)
    assert const == 0, const                     # printed: no bracket that is 0 (hand: 15/4 − 15/4)
    # each mode's weight s²/(2d), the factor free of t, written as the plain surd (15 ± 5√5)/8
    weights = {sp.Mul(*[f for f in sp.Mul.make_args(term) if t not in f.free_symbols])
               for term in sp.Add.make_args(moving)}
    assert weights == {sp.Rational(15, 8) + 5 * R5 / 8, sp.Rational(15, 8) - 5 * R5 / 8}
    # the same loss as the formula written out by hand from s, d (second method), exactly and to 30 digits
    s_hand, d = [(5 + R5) / 4, (5 - R5) / 4], sp.Rational(1, 2)
    a = [s / d / (1 + (s / (d * a0) - 1) * sp.exp(-2 * s * t / tau)) for s in s_hand]
    hand = sp.Rational(15, 4) - sum(s * x - d * x ** 2 / 2 for s, x in zip(s_hand, a))
    point = {t: 37, tau: 10, a0: sp.Rational(1, 1000)}
    assert abs(sp.N((der.loss - hand).subs(point), 40)) < sp.Float("1e-30")


def test_the_singular_vectors_of_a_quadratic_field_are_plain_roots():
    der = _sym_task()
    top, low = der.modes["p"].modes
    v1, v2 = sp.sqrt(sp.Rational(1, 2) - R5 / 10), sp.sqrt(sp.Rational(1, 2) + R5 / 10)
    assert list(top.v) == [v1, v2] and list(top.u) == [v1, v2]          # by hand (comment above)
    assert list(low.v) == [v2, -v1] and list(low.u) == [v2, -v1]        # first entry of v positive


@pytest.mark.parametrize("rows", [[[2, 1], [1, 3]], [[1, 2], [3, 4]], [[0, 1], [2, 3]], [[5, 2], [-1, 1]],
                                  [[1, 1, 0], [0, 1, 2]], [[3, -1], [1, 1], [0, 2]]])
def test_the_shorter_vectors_are_the_same_svd(rows):
    """Second method: numpy's SVD (up to each mode's sign, which is the convention's: v's first non-zero
    entry positive) to 1e-12, and U S Vᵀ = M exactly."""
    M = sp.Matrix(rows)
    svd = tk.exact_svd(M)
    U, S, Vt = np.linalg.svd(np.array(rows, dtype=float))
    for k, m in enumerate(svd.modes):
        v, u = np.array([float(x) for x in m.v]), np.array([float(x) for x in m.u])
        sign = 1 if Vt[k][np.flatnonzero(np.abs(Vt[k]) > 1e-9)[0]] > 0 else -1
        assert v[np.flatnonzero(np.abs(v) > 1e-9)[0]] > 0
        assert np.allclose(v, sign * Vt[k], atol=1e-12) and np.allclose(u, sign * U[:, k], atol=1e-12)
        assert not any(_nested_root_in_denominator(x) for x in list(m.u) + list(m.v)), (list(m.u), list(m.v))
    assert sp.simplify(svd.reconstruct() - M) == sp.zeros(*M.shape)


def _nested_root_in_denominator(x) -> bool:
    return any(not p.exp.is_Integer and any(not q.exp.is_Integer for q in p.base.atoms(sp.Pow))
               for p in sp.denom(x).atoms(sp.Pow))
