"""Rules from a maintainer removing copies from the theory layer, second pass (issue 26, "one way to
do each thing").

Each job below was written twice; now one implementation serves, and these rules pin both the one way
and the behaviour it keeps (every expected value is derived by hand in the docstring, or comes from
numpy written here):

* :func:`theorykit.effective_dataset` built a symbolic task's Σx_pp by hand beside
  :func:`theorykit.input_correlation` (Σx_qp, here with q = p), and kept a test of "plain" gates that
  could never fail: :meth:`Pathway.resolve`, which it calls first, leaves only the integers 0 and 1;
* :meth:`Derivation.frames` evaluated a symbolic task's ``U`` and ``V`` entry by entry beside
  :meth:`SVD.numeric`, which served the numeric tasks;
* the k-context numeric check evaluated the closed forms' common and (k−1)-context modes at (k, n, γ)
  beside :func:`~theorykit.theory.k_contexts.closed_form_modes`, which evaluates the same modes for the loss;
* two readers of numbers in the lemmas (a unit's weights, pre-activations) each wrote out
  :func:`theorykit.curves._floats`: the same conversion with the same error;
* with its closed-form modes from :func:`closed_form_modes`, the k-context check no longer needed its own
  exact σ̄, which repeated the structure assumption's test.
"""
import numpy as np
import pytest
import sympy as sp

import theorykit.theory.effective as effective
import theorykit.theory.k_contexts as kc
import theorykit.theory.lemmas as lemmas
from theorykit.errors import SpecError
from theorykit.spec.gating import GDLNSpec, Pathway, xor_relns
from theorykit.theory import derivation, modes
from theorykit.spec.task import hierarchy, xor_margin


# ---------------------------------------------------------------------------------------------
# effective_dataset: a symbolic task's Σx is input_correlation(task, p, p)
# ---------------------------------------------------------------------------------------------
def test_symbolic_effective_dataset_takes_its_input_correlation_from_input_correlation(monkeypatch):
    """XoR with the symbol Δ, the pathway on datapoints 0 and 2: x₀ = (1, 1, Δ) with y = 1 and
    x₂ = (1, −1, −Δ) with y = −1, P = 4. By hand:
    Σyx = (x₀ − x₂)/4 = (0, 2, 2Δ)/4 = (0, ½, Δ/2);
    Σx = (x₀x₀ᵀ + x₂x₂ᵀ)/4 = [[2, 0, 0], [0, 2, 2Δ], [0, 2Δ, 2Δ²]]/4.
    The Σx is the one that :func:`input_correlation` returns for q = p (one way to form it)."""
    calls = []
    real = effective.input_correlation

    def spy(task, q, p):
        calls.append((q.name, p.name))
        return real(task, q, p)

    monkeypatch.setattr(effective, "input_correlation", spy)
    task = xor_margin()
    D = task.symbols["Delta"]
    eff = effective.effective_dataset(task, Pathway("p", (1, 0, 1, 0)))
    assert calls == [("p", "p")]
    assert eff.Syx == sp.Matrix([[0, sp.Rational(1, 2), D / 2]])
    assert eff.Sx == sp.Matrix([[sp.Rational(1, 2), 0, 0], [0, sp.Rational(1, 2), D / 2], [0, D / 2, D ** 2 / 2]])


def test_symbolic_effective_dataset_agrees_with_numpy_at_a_value():
    """The same pathway at Δ = 3/10 against numpy written here: Σyx = Y diag(g) Xᵀ/P, Σx = X diag(g) Xᵀ/P."""
    task = xor_margin()
    D = task.symbols["Delta"]
    g = np.array([1.0, 0.0, 1.0, 0.0])
    X = np.array([[1, -1, 1, -1], [1, -1, -1, 1], [0.3, 0.3, -0.3, -0.3]])
    Y = np.array([[1.0, 1.0, -1.0, -1.0]])
    eff = effective.effective_dataset(task, Pathway("p", (1, 0, 1, 0)))
    at = {D: sp.Rational(3, 10)}
    np.testing.assert_allclose(np.array(eff.Syx.subs(at), float), (Y * g) @ X.T / 4, rtol=1e-15)
    np.testing.assert_allclose(np.array(eff.Sx.subs(at), float), (X * g) @ X.T / 4, rtol=1e-15)


def test_effective_dataset_keeps_no_test_of_plain_gates():
    """``_plain_gates`` asked whether the gates were 0 and 1 after :meth:`Pathway.resolve` had made them so."""
    assert not hasattr(effective, "_plain_gates")
    assert Pathway("p", (1, 0, 1, 0)).resolve(xor_margin(0.5)).active == (1, 0, 1, 0)


# ---------------------------------------------------------------------------------------------
# Derivation.frames: SVD.numeric at the values, for symbolic and numeric tasks alike
# ---------------------------------------------------------------------------------------------
def test_frames_of_a_symbolic_task_come_from_svd_numeric(monkeypatch):
    """``frames`` evaluated ``U`` and ``V`` entry by entry with ``numeric_matrix`` for a task with symbols
    and by :meth:`SVD.numeric` without: one way now, :meth:`SVD.numeric` at the values.

    XoR's pathway ``point0`` is on (1, 1, Δ) with y = 1 alone: Σyx = (1, 1, Δ)/4, one mode with u = 1 and
    v = (1, 1, Δ)/√(2 + Δ²); at Δ = 1/2, √(2 + ¼) = 3/2 and v = (2/3, 2/3, 1/3)."""
    calls = []
    real = modes.SVD.numeric

    def spy(self, values=None):
        calls.append(dict(values or {}))
        return real(self, values)

    def refuse(*_a, **_k):
        raise AssertionError("frames evaluated a matrix entry by entry beside SVD.numeric")

    monkeypatch.setattr(modes.SVD, "numeric", spy)
    monkeypatch.setattr(derivation, "numeric_matrix", refuse)
    der = derivation.Derivation(GDLNSpec(xor_margin(), xor_relns()["xor"]))
    fr = der.frames({"Delta": sp.Rational(1, 2)})
    assert len(calls) == len(der.spec.pathways)
    U, V = fr["point0"]
    np.testing.assert_allclose(U, [[1.0]], rtol=1e-15)
    np.testing.assert_allclose(V, [[2 / 3], [2 / 3], [1 / 3]], rtol=1e-15)


# ---------------------------------------------------------------------------------------------
# the k-context check: the closed forms' modes at the numbers from closed_form_modes
# ---------------------------------------------------------------------------------------------
_K_RES = []


def _k_res():
    """The symbolic k-context results, derived once for this file (no numeric checks, no LaTeX)."""
    if not _K_RES:
        _K_RES.append(kc.derive(check_ks=[], latex=False))
    return _K_RES[0]


def test_k_context_check_evaluates_the_closed_forms_with_closed_form_modes(monkeypatch):
    """``check_against_numeric`` compares the closed forms' modes with numpy's SVD of the task's effective
    datasets (written in the check, a second method): the closed forms' side is
    :func:`closed_form_modes` at the same (k, n, γ) and structure, called once; the two sides agree to
    rounding, for the common pathway (n + k − 1 modes for n = 4 items: the items sector's n − 1, the
    contexts sector's k − 1 and the grand mean's one; 5 at k = 2) and the (k−1)-context pathways."""
    calls = []
    real = kc.closed_form_modes

    def spy(res, H, nn, kk, gam):
        calls.append((H, nn, kk, gam))
        return real(res, H, nn, kk, gam)

    res = _k_res()
    monkeypatch.setattr(kc, "closed_form_modes", spy)
    out = kc.check_against_numeric(res, 2, 4, race=False, exact=False)
    assert [(nn, kk, gam) for _H, nn, kk, gam in calls] == [(4, 2, 1.0)]
    assert calls[0][0] == hierarchy(4)
    assert out["common_modes"] == 5
    assert out["common_max_abs_error"] < 1e-12
    assert out["kminus1_s_max_abs_error"] < 1e-12


def test_k_context_check_computes_no_exact_sigma_bar_of_its_own():
    """σ̄ (the structure's singular value on the all-ones item) enters only the common pathway's closed
    forms, which :func:`closed_form_modes` evaluates (and whose structure assumption it checks, a
    DerivationError naming data.structure); the (k−1)-context closed forms that the check still evaluates
    itself hold none, so the check's own exact σ̄ (``_exact_sigbar``, a second test of the assumption) went."""
    res = _k_res()
    assert not hasattr(kc, "_exact_sigbar")
    for f in ("s", "d_own", "d_eff", "end_point"):
        assert kc.sigbar not in res.kminus1[f].free_symbols
    assert kc.sigbar in res.common[2]["s"].free_symbols          # the grand mean's s = σ̄ (times a factor)


# ---------------------------------------------------------------------------------------------
# the lemmas read numbers with theorykit.curves._floats (one conversion, one error)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, field, fix", [
    (lambda: lemmas.gate_pattern(["a", 1], [0.5]), "w_item", "give one weight per item"),
    (lambda: lemmas.gate_pattern([1.0, 2.0], [None, "x"]), "w_context", "give one weight per context"),
    (lambda: lemmas.context_gating_mismatch([["a"] * 4], 2, 2), "pre", "give H × P pre-activations as an array"),
])
def test_lemmas_read_numbers_with_curves_floats(monkeypatch, call, field, fix):
    """A weight or a pre-activation that is no number is a SpecError naming the field: "cannot be read as
    numbers (numpy's reason)" and the fix, as :func:`theorykit.curves._floats` says it for every reader."""
    calls = []
    real = lemmas._floats

    def spy(x, f, fx):
        calls.append(f)
        return real(x, f, fx)

    monkeypatch.setattr(lemmas, "_floats", spy)
    with pytest.raises(SpecError) as e:
        call()
    assert calls[-1] == field
    assert e.value.field == field and "cannot be read as numbers (" in str(e.value) and fix in str(e.value)


def test_lemmas_readers_keep_their_results():
    """The conversion is unchanged: a = (1, −1), s·b = (0.5, −2) gives on where a_i + s b_c > 0, by hand
    [[1.5 > 0, −1 ≤ 0], [−0.5 ≤ 0, −3 ≤ 0]]; a unit whose pre-activations on context 0 are (1, −1) and on
    context 1 are (2, 2) (n = 2, k = 2) costs min(1, 1) + min(0, 4) = 1 of Σ|pre| = 6."""
    np.testing.assert_array_equal(lemmas.gate_pattern([1, -1], [0.5, -2]), [[True, False], [False, False]])
    np.testing.assert_allclose(lemmas.context_gating_mismatch([[1, -1, 2, 2]], 2, 2), [1 / 6], rtol=1e-15)
