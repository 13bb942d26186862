"""Estimates that are honest, and one check done once (session 161).

- The simulation's estimate, as ``check`` prints it and ``simulate`` and ``sweep`` enforce it, left out the
  command's own start-up (Python and the imports, JAX's among them: 1.16-1.36 s of CPU measured in 42 runs,
  docs/performance.md#sim-estimates), so runs of 300 to 3000 steps took 1.6-1.9× their estimate. The
  command's estimate now counts it once (``SIM_STARTUP``, a part "start-up" that no refusal names as the
  field to lower); a Python caller's (``simulation_estimate``), whose process has paid it, does not.
- A symbolic context scale (``tk.contexts(4, 3, context_scale=gamma)``) spent 98 % of its derivation in
  SymPy's ``Matrix.nullspace(simplify=True)``; those null spaces are now computed over QQ(gamma), the same
  vectors (checked symbolically against the old path on a smaller case, and against numpy's SVD).
- ``Derivation.numeric_values`` checked each symbol value (``spec.values.checked_value``: a symbol of
  the task, a number, its assumptions) and then ``Task.value_map`` checked every value again through
  ``Task.keyed``; ``Derivation.summary`` did the same through ``keyed``. Each value is now checked once,
  and every error the check gives is the same (same field, same words).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
import theorykit.spec.task as task_mod
import theorykit.theory.derivation as derivation_mod
import theorykit.theory.svd as svd_mod
from theorykit.cli.common import sim_estimate
from theorykit.cli.parser import build_parser
from theorykit.errors import SpecError
from theorykit.spec.files import load_spec
from theorykit.spec.limits import Limits, enforce, simulation_estimate

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------------------------
# the simulation's estimate of a command counts the command's start-up
# ------------------------------------------------------------------------------------------------
def _simulate_estimate(*options, steps=300, seeds=2):
    argv = ["simulate", str(ROOT / "examples" / "xor_reln.toml"), "--init", "random", "--steps", str(steps),
            "--seeds", str(seeds), "--set", "Delta=0.5", *options]
    args = build_parser().parse_args(argv)
    spec = load_spec(args.spec)
    return spec, sim_estimate(args, spec, steps, seeds, need_derivation=False)


def test_the_commands_estimate_counts_its_start_up():
    # the smallest start-up measured: Python and the imports of `theorykit simulate`, 1.16 s of CPU
    # (42 runs, docs/performance.md#sim-estimates); it was not counted at all
    spec, est = _simulate_estimate()
    start = [pt for pt in est.parts if pt[0] == "start-up"]
    assert len(start) == 1 and start[0][1] >= 1.16
    # once, beside the run's own estimate (a library caller's, whose process has paid the start-up)
    lib = simulation_estimate(spec, steps=300, seeds=2)
    assert not any(pt[0] == "start-up" for pt in lib.parts)
    assert est.seconds == pytest.approx(lib.seconds + start[0][1], rel=1e-12)


def test_a_refusal_never_names_the_start_up():
    """Like the compilation, the start-up is no field a user can lower: a limit below it names --seeds."""
    _, est = _simulate_estimate()
    with pytest.raises(SpecError) as exc:
        enforce(est, Limits(max_seconds=1.0))
    assert exc.value.field == "--seeds" and "start-up" not in str(exc.value)


# ------------------------------------------------------------------------------------------------
# Derivation.numeric_values / summary: each value checked once
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def xor_der():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3)))
    der.reference           # the modes and their reference point derived first: that check is not the caller's
    return der


def _count_checks(monkeypatch):
    """Every call of ``checked_value`` from the derivation and the task, counted (the real check still runs)."""
    calls = []
    real = derivation_mod.checked_value

    def spy(task, key, value):
        calls.append((str(key), value))
        return real(task, key, value)
    monkeypatch.setattr(derivation_mod, "checked_value", spy)
    monkeypatch.setattr(task_mod, "checked_value", spy)
    return calls


def test_numeric_values_checks_each_value_once(monkeypatch, xor_der):
    calls = _count_checks(monkeypatch)
    vals = xor_der.numeric_values({"Delta": 0.5})
    assert calls == [("Delta", 0.5)]
    # the result is as before: Δ keyed by the task's own symbol, τ and a0 from the spec (τ = 1/η = 100)
    assert vals[xor_der.task.symbols["Delta"]] == 0.5
    assert sp.nsimplify(vals[sp.Symbol("tau", positive=True)]) == 100


def test_summary_checks_each_value_once(monkeypatch, xor_der):
    calls = _count_checks(monkeypatch)
    out = xor_der.summary({"Delta": 1})
    assert calls == [("Delta", 1)]
    # s = √(Δ² + 2)/4 (README, docs/theory.md#xor) at Δ = 1: √3/4
    assert out["point0"]["singular_values_float"][0] == pytest.approx(3 ** 0.5 / 4, rel=1e-12)


@pytest.mark.parametrize("values, field, words", [
    ({"Delta": -1}, "values[Delta]", "nonnegative"),            # against the symbol's assumption
    ({"Delt": 0.5}, "values", "did you mean 'Delta'"),          # a misspelt name
    ({"Delta": "x + 1"}, "values[Delta]", "not a number"),      # an expression, no value
    ({"Delta": True}, "values[Delta]", "needs a number"),
    ("Delta=0.5", "values", "needs a dict"),                    # no mapping at all
])
def test_numeric_values_keeps_every_error(xor_der, values, field, words):
    for call in (xor_der.numeric_values, xor_der.summary):
        with pytest.raises(SpecError) as exc:
            call(values)
        assert exc.value.field == field and words in str(exc.value), str(exc.value)


def test_numeric_values_still_needs_every_symbol(xor_der):
    with pytest.raises(SpecError, match=r"no value for \['Delta'\]"):
        xor_der.numeric_values({})


def test_numeric_values_still_refuses_a_value_other_than_the_fixed_one():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3)),
                        values={"Delta": 1})
    with pytest.raises(SpecError, match="was fixed when this Derivation was built"):
        der.numeric_values({"Delta": 0.5})


# ------------------------------------------------------------------------------------------------
# a symbolic context scale: the Gram matrix's null spaces over QQ(gamma), not SymPy's simplify-based rref
# ------------------------------------------------------------------------------------------------
GAMMA = sp.Symbol("gamma", positive=True)


def _ctx_spec(n, k):
    """contexts(n, k) with the context scale gamma, a common pathway and one per pair of contexts."""
    return tk.GDLNSpec(tk.contexts(n, k, context_scale=GAMMA),
                       tk.context_pathways(n, k, [(a, b) for a in range(k) for b in range(a + 1, k)]))


def test_symbolic_context_scale_needs_no_sympy_nullspace(monkeypatch):
    """contexts(4, 3, context_scale=gamma) derived in 116 s of CPU (under cProfile; 98 % of it in SymPy's
    ``Matrix.nullspace(simplify=True)`` of G − λI for the common pathway's 7 × 7 Gram matrix G, whose
    eigenvalues are polynomials in gamma). Those null spaces are now computed over QQ(gamma). Checked
    against numpy's SVD at two values and against docs/theory.md#contexts' centred-context sector."""
    def refuse(self, *a, **kw):
        raise AssertionError("SymPy's Matrix.nullspace was called")
    monkeypatch.setattr(sp.Matrix, "nullspace", refuse)
    der = tk.Derivation(_ctx_spec(4, 3))
    common = der.modes["common"].modes
    # the centred-context sector (docs/theory.md#contexts): s = σ̄ γ/(k √n), σ̄² = ‖H 1‖²/n; hierarchy(4):
    # H 1 = (4, 2, 2, 1, 1, 1, 1), ‖H 1‖² = 28, σ̄ = √7; k = 3, n = 4: s = √7 γ/6, k − 1 = 2 times
    assert sum(sp.simplify(m.s - sp.sqrt(7) * GAMMA / 6) == 0 for m in common) == 2
    B = der.effective_datasets["common"].Syx
    for g in (0.7, 1.1):
        Bn = np.array(B.subs(GAMMA, g).evalf(30).tolist(), dtype=float)
        ref = np.linalg.svd(Bn, compute_uv=False)
        ref = ref[ref > 1e-12]
        ours = sorted((float(m.s.subs(GAMMA, g)) for m in common), reverse=True)
        np.testing.assert_allclose(ours, ref, rtol=1e-12)
        U = np.array([[float(x.subs(GAMMA, g)) for x in m.u] for m in common]).T
        V = np.array([[float(x.subs(GAMMA, g)) for x in m.v] for m in common]).T
        S = np.array([float(m.s.subs(GAMMA, g)) for m in common])
        np.testing.assert_allclose(Bn @ V, U * S, atol=1e-12)          # B v = s u
        np.testing.assert_allclose(V.T @ V, np.eye(len(S)), atol=1e-12)
        np.testing.assert_allclose(U.T @ U, np.eye(len(S)), atol=1e-12)


def test_field_nullspace_is_sympys_nullspace():
    """The same vectors as SymPy's ``nullspace`` (1 at each free column), symbolically, on the null spaces
    the common pathway of contexts(2, 3, gamma) asks for (one eigenvalue of multiplicity 2), on a rational
    matrix, and None for entries with a surd (SymPy's own null space then)."""
    B = tk.Derivation(_ctx_spec(2, 3)).effective_datasets["common"].Syx.applyfunc(sp.expand)
    G = (B.T * B).applyfunc(sp.expand)
    lams = [lam for lam, mult in G.eigenvals().items() if lam != 0]
    assert any(lam.has(GAMMA) for lam in lams) and max(G.eigenvals().values()) >= 2
    for lam in lams:
        N = (G - lam * sp.eye(G.rows)).applyfunc(lambda x: sp.radsimp(sp.expand(x)))
        ours, sympys = svd_mod._field_nullspace(N), N.nullspace(simplify=True)
        assert len(ours) == len(sympys) >= 1
        for a, b in zip(ours, sympys):
            assert all(sp.simplify(x - y) == 0 for x, y in zip(a, b)), (lam, a, b)
            assert all(sp.simplify(x) == 0 for x in N * a)
    R = sp.Matrix([[1, 2, 3], [2, 4, 6], [1, 0, 1]])
    assert svd_mod._field_nullspace(R) == R.nullspace()            # [(-1, -1, 1)]
    assert svd_mod._field_nullspace(sp.Matrix([[1, sp.sqrt(2)], [sp.sqrt(2), 2]])) is None
    # a function of the symbol would be a generator of its own, independent of gamma to QQ(gamma, exp(gamma))
    assert svd_mod._field_nullspace(sp.Matrix([[sp.exp(GAMMA), sp.exp(2 * GAMMA)], [1, sp.exp(GAMMA)]])) is None


def test_symbolic_svd_equals_the_sympy_nullspace_path(monkeypatch):
    """The exact SVD of contexts(2, 3, gamma)'s common pathway, as before (SymPy's null space: the new path
    turned off) and now: the same singular values and vectors, the differences simplified to 0."""
    B = tk.Derivation(_ctx_spec(2, 3)).effective_datasets["common"].Syx
    ref = {GAMMA: sp.Rational(11, 10)}
    now = svd_mod.exact_svd(B, ref)
    monkeypatch.setattr(svd_mod, "_field_nullspace", lambda N: None)
    before = svd_mod.exact_svd(B, ref)
    assert len(now.modes) == len(before.modes) == 4          # rank 4: the 2 items and the 3 contexts span 4
    for a, b in zip(now.modes, before.modes):
        assert sp.simplify(a.s - b.s) == 0
        assert all(sp.simplify(x - y) == 0 for x, y in zip(a.u, b.u))
        assert all(sp.simplify(x - y) == 0 for x, y in zip(a.v, b.v))
