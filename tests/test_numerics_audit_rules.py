"""Rules from a numerics audit: every simulation's precision is chosen on purpose and recorded, a
gradient-descent run is compared with the discrete recurrence (to rounding) beside the flow (O(η)),
and importing theorykit sets JAX's float64 and Threefry whatever came before it.

Expected values come from hand derivations in the comments (the XoR ReLN's modes, the recurrence
a ← a(1 + (s − d a)/τ)² written out here) or from what docs/scaling.md states ("highest")."""
import json
import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import theorykit as tk
from theorykit.cli import main

from _gd_reference import xor_reln_by_hand

EX = Path(__file__).resolve().parent.parent / "examples"
HIGHEST = "precision=(Precision.HIGHEST, Precision.HIGHEST)"


@pytest.mark.parametrize("dtype, rounding", [("float64", 1e-12), ("float32", 1e-5)])
def test_simulate_compare_reports_the_discrete_recurrence_beside_the_flow(tmp_path, dtype, rounding):
    """--compare gave only the flow's gap, O(η) (7e-4 of L(0) here), with no word that it is not
    rounding. Now the theory says it is the flow, and an aligned closed-form run is also compared with
    the discrete recurrence, which gradient descent follows exactly: the gap is the dtype's rounding."""
    out = tmp_path / "s.json"
    t = [0, 150, 300]
    assert main(["simulate", str(EX / "xor_reln.toml"), "--set", "Delta=1", "--seeds", "1", "--steps", "300",
                 "--times", "0,150,300", "--compare", "--dtype", dtype, "--no-progress", "--json", str(out)]) == 0
    th = json.loads(out.read_text())["theory"]
    assert "O(" in th["what"] and "flow" in th["what"]
    ref = xor_reln_by_hand(1.0, 1e-3, 0.01, t)[0]
    np.testing.assert_allclose(th["discrete"]["value"], ref, rtol=1e-12)
    assert th["discrete"]["max_abs_error_over_initial_loss"] < rounding
    # the flow's gap is the step size's, far above rounding in float64 (and named as such)
    assert th["max_abs_error_over_initial_loss"] > 100 * th["discrete"]["max_abs_error_over_initial_loss"]


def test_simulate_compare_of_a_random_start_gives_no_discrete_recurrence(tmp_path):
    """The recurrence is exact only from the aligned start: a random start gets the flow alone."""
    out = tmp_path / "s.json"
    assert main(["simulate", str(EX / "xor_reln.toml"), "--set", "Delta=1", "--seeds", "1", "--steps", "20",
                 "--init", "random", "--compare", "--no-progress", "--json", str(out)]) == 0
    assert "discrete" not in json.loads(out.read_text())["theory"]


def test_simulate_and_sweep_json_record_the_matmul_precision(tmp_path):
    """The dtype was recorded, the matmul precision (set on purpose, docs/scaling.md: "highest") not."""
    out = tmp_path / "s.json"
    assert main(["simulate", str(EX / "xor_reln.toml"), "--set", "Delta=1", "--seeds", "1", "--steps", "5",
                 "--dtype", "float32", "--no-progress", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert (doc["dtype"], doc["matmul_precision"]) == ("float32", "highest")
    assert main(["sweep", str(EX / "xor_reln.toml"), "--grid", "Delta=1", "--seeds", "1", "--steps", "5",
                 "--out", str(tmp_path / "sw"), "--no-progress"]) == 0
    sw = json.loads((tmp_path / "sw" / "sweep.json").read_text())
    assert (sw["dtype"], sw["matmul_precision"]) == ("float64", "highest")


def test_relu_final_gates_are_read_at_the_trainers_precision(monkeypatch):
    """simulate(network="relu") read the final gates (extra["gates"]) outside the trainer's
    jax.default_matmul_precision("highest"): on a GPU a float32 run's gates came from TF32 products,
    not from the pre-activations it trained on. Checked from the jaxpr of a product traced where
    unit_activity runs (every call: the snapshots inside the trainer and the final gates)."""
    from theorykit.sim import simulation as S

    seen = []
    real = S.unit_activity

    def spy(net, p, X):
        seen.append(str(jax.make_jaxpr(lambda a: a @ a)(jnp.ones((2, 2), jnp.float32))))
        return real(net, p, X)

    monkeypatch.setattr(S, "unit_activity", spy)
    X = np.array([[1.0, -1.0, 0.5], [0.3, 1.0, -1.0]])
    Y = np.array([[1.0, 0.0, 1.0]])
    res = tk.simulate((X, Y), network="relu", hidden=3, lr=0.1, steps=3, seeds=2, dtype="float32")
    assert seen and all(HIGHEST in s for s in seen)
    # the gates are the pre-activations' signs, W1 X > 0, recomputed here in float64 numpy
    W1 = np.asarray(res.params[0], dtype=float)
    np.testing.assert_array_equal(res.extra["gates"][0], np.einsum("ehd,dp->ehp", W1, X) > 0)


def _python(code, **env):
    full = {**os.environ, **env}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def test_import_sets_float64_over_an_environment_that_turned_it_off():
    """theorykit's docstring: "JAX computes in float64 once theorykit is imported". With
    JAX_ENABLE_X64=0 in the environment it stayed float32 until a later module (theory.jaxify)
    turned x64 on: arrays made in between were float32."""
    out = _python("import theorykit, jax.numpy as jnp; print(jnp.zeros(1).dtype)", JAX_ENABLE_X64="0")
    assert out == ["float64"]


def test_import_after_jax_sets_partitionable_threefry():
    """The docstring: Threefry partitionable is "set here too, so that a seed draws the same weights
    under every JAX that pyproject.toml allows". A JAX imported before theorykit kept its own setting
    (off by default under JAX < 0.5): the x64 flag was set there, Threefry not."""
    out = _python("import jax; jax.config.update('jax_threefry_partitionable', False); import theorykit; "
                  "print(jax.config.jax_threefry_partitionable, jax.config.jax_enable_x64)")
    assert out == ["True", "True"]


# singular values descending, the first non-zero entry of each v positive (theorykit.theory.modes),
# on matrices with repeated singular values and sign-ambiguous vectors, against numpy's float64 SVD
SIGN_AMBIGUOUS = [[[1, 0], [0, 1]], [[0, 1], [1, 0]], [[0, -1], [-1, 0]], [[-1, 0], [0, -1]], [[0, 1], [-1, 0]],
                  [[0, 0, -2], [0, -2, 0]], [[1, -1, 1, -1]], [[-1], [2]], [[-3]], [[2, 0], [0, -2], [0, 0]],
                  [[1, 1, -1, -1], [1, -1, 1, -1]], [[0, -1, 1], [-1, 0, 1]]]


@pytest.mark.parametrize("M", SIGN_AMBIGUOUS)
def test_exact_svd_convention_on_repeated_and_sign_ambiguous_modes(M):
    import sympy as sp
    from theorykit.linalg import numeric_svd

    svd = tk.exact_svd(sp.Matrix(M))
    A = np.asarray(M, float)
    s = np.array([float(m.s) for m in svd.modes])
    np.testing.assert_allclose(s, np.linalg.svd(A, compute_uv=False)[:len(s)], rtol=1e-14)   # numpy: descending
    assert len(s) == np.linalg.matrix_rank(A)
    rebuilt = np.zeros_like(A)
    for m, sv in zip(svd.modes, s):
        u = np.array([float(x) for x in m.u])
        v = np.array([float(x) for x in m.v])
        assert v[np.flatnonzero(v)[0]] > 0
        np.testing.assert_allclose(A @ v, sv * u, atol=1e-14)
        rebuilt += sv * np.outer(u, v)
    np.testing.assert_allclose(rebuilt, A, atol=1e-14)
    _U, s_num, V = numeric_svd(A)
    np.testing.assert_allclose(s_num, s, rtol=1e-14)
    assert all(V[np.flatnonzero(np.abs(V[:, j]) > 1e-9)[0], j] > 0 for j in range(V.shape[1]))


def test_symbolic_sign_convention_is_decided_at_the_reference_values():
    """As theorykit.theory.modes now states: a symbolic v has its first entry positive at the reference
    values (a = 7/10 here), not at every value; the same matrix at a = 2 gets its own sign."""
    import sympy as sp
    from theorykit.theory.modes import reference_values

    a = sp.Symbol("a", positive=True)
    M = sp.Matrix([[a - 1, 1]])
    v = tk.exact_svd(M).modes[0].v
    ref = reference_values({a})
    assert float(v[0].subs(ref)) > 0
    assert float(v[0].subs(a, 2)) < 0                          # v ∝ (a − 1, 1) flipped for a < 1
    v2 = tk.exact_svd(M.subs(a, 2)).modes[0].v                 # at the value: (1, 1)/√2
    assert [float(x) for x in v2] == pytest.approx([2 ** -0.5, 2 ** -0.5], rel=1e-15)


def test_sweep_aligned_note_says_the_seeds_agree_up_to_rounding(tmp_path):
    """sweep.json said the aligned seeds' losses are "the same (spread 0)"; in float32 the xor_linear
    sweep (Δ = 0.5, 2 seeds, 1000 steps) wrote final_loss_std = 1.5e-8 beside it: the seeds differ by a
    rotation the loss does not see, so exactly but for rounding, and the note now says so."""
    from theorykit.analysis.sweep import run_sweep

    spec = tk.load_spec(EX / "xor_linear.toml")
    res = run_sweep(spec, {"Delta": [0.5]}, seeds=2, steps=40, out=tmp_path / "s", progress=False, dtype="float32")
    assert "rounding" in res["notes"][0] and "float32" in res["notes"][0]
    r = res["results"][0]
    assert r["final_loss_std"] <= 1e-6 * r["final_loss_mean"]        # float32 rounding, ε ≈ 1.2e-7


@pytest.mark.parametrize("s, d, a0, tau, depth", [(0.5, 0.5, 1e-7, 20.0, 3), (0.5, 0.5, 1e-9, 20.0, 3),
                                                  (1.2, 0.7, 1e-6, 20.0, 4), (2.0, 3.0, 1e-12, 50.0, 5),
                                                  (0.5, 0.25, 1e-3, 100.0, 3)])
def test_deep_half_way_time_in_floats_is_the_integral(s, d, a0, tau, depth):
    """t_half_float (depth > 2) integrated τ ∫_{a0}^{s/2d} da / (L a^{2−2/L} (s − d a)) by quadrature in a:
    for a small a0 the integrand spans many decades and quad returned garbage with only a warning
    (−34.18 for 8583.7 at depth 3, a0 = 1e-7). Reference: mpmath, 30 digits, the same integral in a
    split at every decade from a0."""
    import mpmath as mp
    from theorykit.theory.trajectory import t_half_float

    with mp.workdps(30):
        L = mp.mpf(depth)
        top = mp.mpf(s) / (2 * mp.mpf(d))
        pts = [mp.mpf(a0) * mp.mpf(10) ** k for k in range(40) if mp.mpf(a0) * mp.mpf(10) ** k < top] + [top]
        ref = float(tau * mp.quad(lambda a: 1 / (L * a ** (2 - 2 / L) * (s - d * a)), pts))
    assert t_half_float(s, d, a0, tau, depth) == pytest.approx(ref, rel=1e-9)


def test_pathways_of_different_depths_rank_by_their_true_half_way_times(tmp_path):
    """Across depths the ranking orders pathways by t_half_float: with a0 = 1e-7 the depth-3 pathway's
    time came out negative (−34) and it ranked first. By hand: the shallow mode (s = 1, d = 1/2, τ = 20)
    halves at τ/(2s) ln(s/(d a0) − 1) = 10 ln(2·10⁷ − 1) ≈ 168; the deep one (s = d = 1/2) at the integral
    above, ≈ 8584 (mpmath): the shallow pathway is first."""
    path = tmp_path / "deep.toml"
    path.write_text('name = "deep"\n[data]\ninputs = [[1, 0], [0, 1]]\ntargets = [[2, 0], [0, 1]]\n'
                    '[[pathways]]\nname = "shallow"\nactive = [1, 0]\nhidden = 2\n'
                    '[[pathways]]\nname = "deep"\nactive = [0, 1]\nhidden = 2\ndepth = 3\n'
                    '[training]\nlr = 0.05\nloss = "mean"\na0 = 1e-7\nsteps = 2000\n')
    der = tk.Derivation(tk.load_spec(path))
    assert [n for n, _ in der.ranking] == ["shallow", "deep"]
