"""Rules from a maintainer removing copies from the theory layer (issue 26, "one way to do each thing").

Each job below was written twice; now one implementation serves, and these rules pin both the one way
and the behaviour it keeps (every expected value is derived by hand in the docstring, or comes from
numpy written here):

* the k-context numeric check built each pathway's Σyx by hand and trimmed numpy's SVD by hand, beside
  :func:`theorykit.linalg.correlation` and :func:`theorykit.linalg.numeric_svd`, which it imported;
* the k-context zero test repeated :mod:`theorykit.theory.k_algebra`'s ``simplify`` test after its
  radical reduction; its JSON summary wrote SymPy values as text by two copies of one rule;
* the XoR derivation tested ``simplify(a − b) == 0`` inline beside its own ``_is_identically``, and built
  Σy to take its trace beside :func:`theorykit.output_trace`;
* both derivation scripts passed ``sys.argv[1:]`` to ``run_script`` and imported it inside their
  ``__main__`` block: ``run_script`` now reads the command line itself;
* Derivation._mode_numbers kept a float path that no caller took (its one caller asks for 30 digits);
* the aligned start read the task's numbers in each of its two branches;
* the flow's two errors for a flow too long for its data wrote out one fix twice;
* three readers of an items × contexts pattern (is_staircase, has_xor_subpattern, lp_realisable) each
  checked its shape with the same error after :func:`theorykit.theory.gates.binary`.
"""
import ast
import inspect
import io
import re
import sys
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest
import sympy as sp

import theorykit.derivations as derivations
import theorykit.derivations.xor_crossover as xc
import theorykit.theory.k_contexts as kc
from theorykit.derivations import run_script
from theorykit.errors import SpecError
from theorykit.net.starts import aligned_params
from theorykit.record import SaveAt
from theorykit.theory import flow
from theorykit.theory.gates import binary, is_staircase
from theorykit.theory.lemmas import has_xor_subpattern, lp_realisable
from theorykit.spec.gating import GDLNSpec, Pathway
from theorykit.spec.task import Task, xor_margin
from theorykit.theory.derivation import Derivation
from theorykit.theory.k_algebra import k, n, sig, sigbar

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------------
# the k-context numeric check: theorykit.linalg's correlation and SVD, not copies of them
# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def res():
    return kc.derive(check_ks=[], latex=False)


def test_k_context_check_builds_its_correlations_with_theorykit_linalg(res, monkeypatch):
    """Every Σyx of the residual check (the (k−1)-context pathways' Σyx and the gradients G_q of the
    coupled d) comes from ``theorykit.linalg.correlation`` and its modes from ``numeric_svd``; the
    numbers are the same as before: at k = 3, n = 4 the stated d, s/d and the end maps agree with the
    data to rounding (the closed forms are exact, so every error is at the level of float64 rounding)."""
    calls = {"correlation": 0, "numeric_svd": 0}
    for name in calls:
        real = getattr(kc, name)

        def spy(*a, _real=real, _name=name, **kw):
            calls[_name] += 1
            return _real(*a, **kw)

        monkeypatch.setattr(kc, name, spy)
    out = kc.check_against_numeric(res, 3, 4, race=False, exact=False)
    assert calls["correlation"] >= 6 and calls["numeric_svd"] >= 3          # 3 pathways: Σyx and G_q each
    assert "np.linalg.svd" not in inspect.getsource(kc)
    assert out["kminus1_d_eff_max_abs_error"] < 1e-12
    assert out["kminus1_end_point_max_abs_error"] < 1e-12
    assert out["end_maps_fit_residual_max_abs"] < 1e-12
    assert out["kminus1_gradient_off_mode_max_abs"] < 1e-12


def test_the_kept_svd_trim_is_the_one_of_the_hand_written_copy():
    """The copy kept singular values above 1e-10 (absolute) and read U, s, V off numpy's SVD; numeric_svd
    with tol=1e-10 and scale=1 keeps the same modes (its signs may differ, and the check uses U and V
    only as the products u vᵀ and uᵀ G v, which a joint sign flip leaves alone). Σ = diag(3, 1e-9, 1e-11)
    (a rotation on each side): two modes kept, 3 and 1e-9, not 1e-11."""
    rng = np.random.default_rng(0)
    Qa, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    Qb, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    M = Qa @ np.diag([3.0, 1e-9, 1e-11]) @ Qb.T
    U, s, V = kc.numeric_svd(M, tol=1e-10, scale=1.0)
    np.testing.assert_allclose(s, [3.0, 1e-9], rtol=1e-6)
    Uh, sh, Vth = np.linalg.svd(M)                                        # the hand-written copy
    r = int(np.sum(sh > 1e-10))
    np.testing.assert_allclose(U @ np.diag(s) @ V.T, Uh[:, :r] @ np.diag(sh[:r]) @ Vth[:r], atol=1e-15)
    assert np.allclose(U[:, 0] @ V[:, 0].T, Uh[:, 0] @ Vth[0].T)


# ---------------------------------------------------------------------------------------------
# the k-context zero test and summary
# ---------------------------------------------------------------------------------------------
def test_k_context_zero_test_falls_back_on_the_one_simplify_test(monkeypatch):
    """With r = √(x² + 1): (r + 1)(r − 1) = r² − 1 = x², times sin² + cos² = 1, so the difference is 0;
    the radical reduction refuses the functions in it, and the fall-back is k_algebra's own ``_z``
    (called once); x² + 1 is not zero."""
    x = sp.Symbol("x")
    r = sp.sqrt(x ** 2 + 1)
    seen = []
    real = kc._z
    monkeypatch.setattr(kc, "_z", lambda e: seen.append(e) or real(e))
    assert kc._zero((r + 1) * (r - 1) - x ** 2 * (sp.sin(x) ** 2 + sp.cos(x) ** 2))
    assert len(seen) == 1
    assert not kc._zero(x ** 2 + 1)
    assert "sp.simplify(sp.together(sp.expand(" not in inspect.getsource(kc)


def test_k_context_summary_writes_sympy_values_as_text_and_keeps_the_rest(res):
    """Every SymPy value of every family is its ``str`` (as JSON needs); Python flags and labels keep their
    type; the checks and seconds pass through. On hand-made fields (the expected dict written out), and on
    the derived ones, where the residual, the r-family and the loss hold SymPy values only (all text)."""
    out = kc.KContexts([{"s": sig / n, "multiplicity": k - 1, "eigenvector_check": True, "sector": "a"}],
                       {"loss_per_alpha": sig ** 2 / n, "common_block_is_fitted": sp.true},
                       {"s": sig, "ansatz_closed": True}, {"s": 2 * sig, "own_diagonalisable": False},
                       {"s": sigbar}, {"L_bar": sigbar ** 2}, checks=[{"k": 2}], seconds=1.5).summary()
    assert out == {"common": [{"s": str(sig / n), "multiplicity": str(k - 1), "eigenvector_check": True,
                               "sector": "a"}],
                   "residual": {"loss_per_alpha": str(sig ** 2 / n), "common_block_is_fitted": "True"},
                   "kminus1": {"s": str(sig), "ansatz_closed": True},
                   "single": {"s": str(2 * sig), "own_diagonalisable": False},
                   "r_family": {"s": str(sigbar)}, "loss": {"L_bar": str(sigbar ** 2)},
                   "checks": [{"k": 2}], "seconds": 1.5}
    real = res.summary()
    for name in ("residual", "r_family", "loss"):          # every value there is a SymPy value: all text
        assert real[name] == {kk: str(v) for kk, v in getattr(res, name).items()}
    assert real["kminus1"]["ansatz_closed"] is True and isinstance(real["kminus1"]["s"], str)


# ---------------------------------------------------------------------------------------------
# the XoR derivation: one identity test
# ---------------------------------------------------------------------------------------------
def test_xor_derivation_has_one_identity_test():
    """``simplify(a − b) == 0`` is written once, in ``_is_identically``; it says √(2/3) = √6/3 (both squared
    are 2/3) and √(2/3) ≠ 2/3."""
    src = (ROOT / "derivations" / "xor_crossover.py").read_text()
    assert len(re.findall(r"simplify\(.*\) == 0", src)) == 1
    assert xc._is_identically(sp.sqrt(sp.Rational(2, 3)), sp.sqrt(6) / 3)
    assert not xc._is_identically(sp.sqrt(sp.Rational(2, 3)), sp.Rational(2, 3))


def test_xor_derivation_reads_tr_sigma_y_from_output_trace():
    """½ tr Σy comes from :func:`theorykit.output_trace` (not the trace of a Σy built for it): the XoR task's
    targets are (1, 1, −1, −1), so tr Σy = ⟨y²⟩ = 1, and the derivation's LaTeX says ½ tr Σy = 1/2."""
    src = (ROOT / "derivations" / "xor_crossover.py").read_text()
    assert "output_correlation" not in src and src.count("output_trace(task) / 2") == 2
    assert xc.output_trace(xor_margin()) == 1


# ---------------------------------------------------------------------------------------------
# the derivation scripts: run_script reads the command line
# ---------------------------------------------------------------------------------------------
def test_run_script_reads_the_command_line_by_default(monkeypatch):
    """``run_script(main)`` passes ``sys.argv[1:]`` to main and returns its status; a given argv wins."""
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    monkeypatch.setattr(sys, "argv", ["prog", "--quick", "--json", "x.json"])
    seen = []

    def main(argv):
        seen.append(list(argv))
        return 3

    assert run_script(main) == 3
    assert run_script(main, ["--help"]) == 3
    assert seen == [["--quick", "--json", "x.json"], ["--help"]]


@pytest.mark.parametrize("script", ["k_contexts.py", "xor_crossover.py"])
def test_derivation_scripts_import_nothing_in_their_main_block(script):
    """The ``if __name__ == "__main__"`` block is one line, ``raise SystemExit(run_script(main))``, with
    ``run_script`` imported at the top of the module like every other own import."""
    tree = ast.parse((ROOT / "derivations" / script).read_text())
    mains = [node for node in tree.body if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test)]
    assert len(mains) == 1
    assert [ast.unparse(s) for s in mains[0].body] == ["raise SystemExit(run_script(main))"]
    top = [a.name for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == "theorykit.derivations"
           for a in node.names]
    assert top == ["run_script"] and derivations.run_script is run_script


# ---------------------------------------------------------------------------------------------
# the flow: one fix for a flow too long for its data
# ---------------------------------------------------------------------------------------------
def test_a_flow_too_long_for_its_data_says_one_fix_where_refused_and_where_stopped():
    """Refused before it starts (dy/dt = y at rate 1 to t = 10⁶: 4·10⁷ RK4 steps of 1/40, over the cap of
    2·10⁶) and stopped by the adaptive solver (Dopri5 with max_steps = 1 to t = 100 on dy/dt = −y), the
    error names ``training.lr`` and gives the same fix, written out here."""
    fix = "ask for earlier times (--times; times= from Python), or check training.lr and the data's scale"
    assert flow._FIX_TOO_LONG == fix
    y0 = jnp.ones((1, 1))
    with pytest.raises(SpecError) as refused:
        flow.integrate(lambda y, a: y, y0, solver=flow.RK4(1.0 / 40), save=SaveAt(ts=[1e6]), rate=1.0)
    with pytest.raises(SpecError) as stopped:
        flow.integrate(lambda y, a: -y, y0, solver=flow.Dopri5(max_steps=1), save=SaveAt(ts=[100.0]))
    for e in (refused.value, stopped.value):
        assert e.field == "training.lr" and e.fix == fix
    assert "integration steps" in str(refused.value) and "stopped before t = 100" in str(stopped.value)


# ---------------------------------------------------------------------------------------------
# the lemmas' items × contexts patterns: one reader
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [is_staircase, has_xor_subpattern, lp_realisable])
def test_a_pattern_is_read_by_one_rule(fn):
    """A pattern is a 2-d array of 0/1: a flat [1, 0, 1] is refused with its shape (3,), a 2 first for its
    value (the value check comes first, as before), and [[1, 0], [0, 1]] is read: a staircase? no
    (rows {0} and {1} cross, the XoR sub-pattern), so is_staircase is False, has_xor_subpattern True,
    and no bias-free unit realises it (Lemma 4.1), so lp_realisable is infeasible."""
    with pytest.raises(SpecError) as flat:
        fn([1, 0, 1])
    assert (flat.value.field, flat.value.fix) == ("pattern", "reshape it to n × k")
    assert "needs an items × contexts array, got shape (3,)" in str(flat.value)
    with pytest.raises(SpecError, match="holds values other than 0 and 1"):
        fn([2, 0])
    out = fn([[1, 0], [0, 1]])
    assert {is_staircase: False, has_xor_subpattern: True}.get(fn, (False, None)) == out


def test_binary_reads_a_pattern_and_the_check_is_written_once():
    """``binary(..., pattern=True)`` is the one items × contexts reader: 2-d gates come back as booleans,
    a 1-d or 3-d array is refused naming the field; without ``pattern`` any shape is read."""
    np.testing.assert_array_equal(binary([[1, 0], [0, 1]], "pattern", pattern=True), [[True, False], [False, True]])
    with pytest.raises(SpecError, match=r"got shape \(1, 1, 2\)"):
        binary([[[1, 0]]], "p", pattern=True)
    np.testing.assert_array_equal(binary([1, 0]), [True, False])
    src = "".join(p.read_text() for p in (ROOT / "theorykit" / "theory").glob("*.py"))
    assert src.count("needs an items × contexts array") == 1


# ---------------------------------------------------------------------------------------------
# Derivation._mode_numbers: the float path no caller took is gone
# ---------------------------------------------------------------------------------------------
def test_mode_numbers_give_the_digits_asked_for_and_have_no_float_path():
    """Its one caller (predict_loss) asks for 30 digits, so ``digits`` has no default (the float path of
    ``digits=None`` never ran). By hand: X = I₂, targets (1, 0): Σyx = (1, 0)/2, so s = 1/2, v = e₁, and
    Σx = I/2, so d = 1/2; both come back as 30-digit SymPy Floats."""
    assert inspect.signature(Derivation._mode_numbers).parameters["digits"].default is inspect.Parameter.empty
    der = Derivation(GDLNSpec(Task(sp.eye(2), sp.Matrix([[1, 0]]), {}), (Pathway("p", "all", "all", "all", 8, 2),)))
    m = der.modes["p"].modes[0]
    s30, d30 = der._mode_numbers(m, der.numeric_values(None), 30)
    assert sp.Rational(s30) == sp.Rational(1, 2) and sp.Rational(d30) == sp.Rational(1, 2)
    assert all(isinstance(x, sp.Float) and x._prec == sp.Float(1, 30)._prec for x in (s30, d30))


# ---------------------------------------------------------------------------------------------
# the aligned start: the task's numbers read in one place
# ---------------------------------------------------------------------------------------------
def test_aligned_start_reads_the_task_numbers_once_for_both_kinds_of_graph():
    """``aligned_params`` reads X, Y once, for private chains and shared edges alike. By hand: X = I₂,
    targets (1, 0): Σyx = (1, 0)/2 has u = 1, v = e₁, so the aligned start's map W₂W₁ is a0 u vᵀ = (a0, 0)."""
    src = (ROOT / "theorykit" / "net" / "starts.py").read_text()
    assert src.count("g.task.numeric(values)") == 1
    spec = GDLNSpec(Task(sp.eye(2), sp.Matrix([[1, 0]]), {}), (Pathway("p", "all", "all", "all", 8, 2),))
    W = aligned_params(spec, 0.01)
    (k1, W1), (k2, W2) = sorted(W.items(), key=lambda kv: kv[0].startswith("input") is False)
    np.testing.assert_allclose(np.asarray(W2[0] @ W1[0]), [[0.01, 0.0]], atol=1e-15)
