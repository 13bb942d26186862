"""Tests that can fail: tolerances derived (not measured) and golden values from a second method.

Each test here tightens a check elsewhere whose tolerance had no derivation (the older test stays);
each was shown to fail on a small deliberate mutation of the code under test (see the docstrings)."""
import numpy as np

from theorykit import curves
from theorykit.suites import load_suite

dp = load_suite("depth")           # theorykit.validation.depth, installed or from the checkout


def _weighted_r2_by_numpy(L, x):
    """Second method for curves.variance_explained: per checkpoint, R² of the least-squares line
    L[:, i] ≈ α + β x (numpy lstsq), weighted by the checkpoint's across-run variance (ddof 0)."""
    A = np.column_stack([np.ones_like(x), x])
    r2s, var = [], L.var(axis=0)
    for i in range(L.shape[1]):
        y = L[:, i]
        coef = np.linalg.lstsq(A, y, rcond=None)[0]
        ss_res, ss_tot = np.sum((y - A @ coef) ** 2), np.sum((y - y.mean()) ** 2)
        r2s.append(1 - ss_res / ss_tot if ss_tot > 0 else np.nan)
    r2s = np.array(r2s)
    ok = np.isfinite(r2s)
    return r2s, float(np.sum(var[ok] * r2s[ok]) / np.sum(var[ok]))


def test_variance_explained_on_synthetic_runs_against_numpy():
    """tests/test_depth.py::test_run_statistics_on_synthetic_runs only asks 0.8 < w ≤ 1 for these runs
    (a band a plain mean of the R², or a weight by the standard deviation, also falls in). Here the
    value itself, from a second method (numpy lstsq, above): float64 sums over 4 runs × 10 checkpoints,
    so agreement to ~1e-15; rel 1e-12 leaves room for the different summation order.
    Mutations that fail it (and pass the 0.8 < w ≤ 1 band): weights var → std in
    curves.variance_explained (w 0.8946 → 0.9000), or the plain mean of the R² (→ 0.9035)."""
    t = np.arange(0, 1000, 100.0)
    ta = np.array([100.0, 200, 300, 400])
    L = np.exp(-np.maximum(t[None, :] - ta[:, None], 0) / 200)
    r2s, w, imax = curves.variance_explained(L, ta)
    want_r2s, want_w = _weighted_r2_by_numpy(L, ta)
    np.testing.assert_allclose(r2s, want_r2s, rtol=1e-12, atol=1e-14)     # column 0 is constant: NaN both
    assert abs(w - want_w) <= 1e-12 * want_w, (w, want_w)
    assert imax == int(np.argmax(L.var(axis=0)))
    assert 0.8 < w < 1.0 - 1e-3                 # and the value is not the trivial 1 (the runs are not linear in ta)


def test_mode_ode_depth2_closed_form_to_the_integrators_tolerance():
    """tests/test_depth.py::test_mode_ode_depth2_equals_the_closed_form checks at rtol 1e-6, a hundred
    times what the integrator allows. Derived bound: mode_ode_loss integrates a(t) with Dopri5 at its
    defaults rtol 1e-8, atol 1e-10 (theorykit.theory.flow.Dopri5). On the logistic a relative error
    stays relative (growth phase: linear in a; saturation: contracting), so take the global error as
    |δa| ≤ ε a with ε = 10·rtol = 1e-7 (tolerance proportionality, 10 for the accumulated steps). The
    loss moves by (s − d a) δa per mode, and a (s − d a) ≤ s²/(4d), so
        |δL| ≤ ε Σ_α s_α²/(4d) = 1e-7 · (1.0979² + 0.1250²)/(4/3) = 9.2e-8   (s from the SVD below).
    atol is that bound (measured: 9e-9, CPU). Mutations that fail it while the rtol-1e-6 test
    passes: the field divided by (1 + 1e-7) (τ off by 1e-7), or mode_ode_loss's Dopri5 at rtol 1e-6."""
    rng = np.random.default_rng(2)
    X, Y = np.eye(3), rng.normal(size=(2, 3))           # Σx = I/3 so d = 1/3 for every mode
    a0, tau = 1e-3, 2.0
    t = np.linspace(0, 40, 9)
    got = dp.mode_ode_loss(X, Y, a0, tau, t, loss_factor=1.0, depth=2)
    s = np.linalg.svd(Y @ X.T / 3, compute_uv=False)
    d = 1 / 3
    L = np.full(t.shape, 0.5 * np.sum(Y * Y) / 3)
    for sa in s:
        a = (sa / d) / (1 + (sa / (d * a0) - 1) * np.exp(-2 * sa * t / tau))
        L -= sa * a - 0.5 * d * a * a
    bound = 1e-7 * np.sum(s ** 2) / (4 * d)
    assert bound < 1e-7
    np.testing.assert_allclose(got, L, rtol=0, atol=bound)
    assert L[0] - L[-1] > 1.0                            # the modes were learned: the curve is not flat
