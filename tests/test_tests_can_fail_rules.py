"""Tests that can fail: tolerances derived (not measured) and golden values from a second method.

Each test here tightens a check elsewhere whose tolerance had no derivation (the older test stays);
each was shown to fail on a small deliberate mutation of the code under test (see the docstrings)."""
import numpy as np
import pytest

from theorykit import curves
from theorykit.suites import load_suite
from theorykit.theory.flow import RK4
from theorykit.theory.race import RaceSystem

from test_depth import _shared_first_case, _shared_first_gd
from test_race_hand_rules import _gd as _race_gd, _spec as _race_spec

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


def test_shared_first_flow_is_the_richardson_limit_of_gradient_descent():
    """tests/test_depth.py::test_shared_first_flow_matches_gradient_descent_on_the_data checks that the
    GD-to-flow gap halves with η (order 1 ± 0.3) and caps it at 0.02·L(0), 300× the measured 6.3e-5:
    a flow off by 1e-6 passes both. Second method, sharper: GD's gap to the flow is
    gap(η) = C1 η + C2 η² + O(η³) (explicit Euler on a smooth field), so the Richardson combination
    R(η) = 2 GD(η/2) − GD(η) misses the flow by r(η) = −C2 η²/2 + O(η³): halving η must QUARTER r
    (order 2), which only holds while the flow's own error is well below r(0.01) (measured 1.1e-8;
    the flow is RaceSystem.solve's Dopri5 at its default rtol 1e-8). Band: ratio 4 ± 0.8, a
    convergence-order check (the O(η³) term moves the ratio by a relative O(λη), not derived here;
    measured ratios 3.99 to 4.01, CPU).
    Mutations that fail it while the older test passes: shared_first_flow called with lr·(1 + 1e-6)
    (τ off by 1e-6), or RaceSystem.solve with Dopri5(rtol=1e-5)."""
    X, Y, G, a0, Vr, Qs, c, T = _shared_first_case()
    flow = dp.shared_first_flow(X, Y, G, a0=a0, lr=1.0, loss="mean", times=[0.0, T / 2, T])
    gd = {eta: _shared_first_gd(X, Y, G, Vr, Qs, c, T, eta) for eta in (0.02, 0.01, 0.005)}
    # the same start: two float64 evaluations of one loss (a few dozen terms): ~10 eps relative
    assert abs(gd[0.02][0] - flow[0]) <= 1e-14 * flow[0]
    r = {eta: (2 * gd[eta / 2] - gd[eta] - flow)[1:] for eta in (0.02, 0.01)}
    assert np.all(np.abs(gd[0.01] - flow)[1:] > 1e3 * np.abs(r[0.01])), (gd[0.01] - flow, r[0.01])
    ratio = r[0.02] / r[0.01]                                              # at T/2 and at T, each
    assert np.all((3.2 < ratio) & (ratio < 4.8)), (r, ratio)
    assert flow[-1] < 0.5 * flow[0]


@pytest.mark.parametrize("loss,eta", [("mean", 0.025), ("sum", 1 / 120)])
def test_race_in_steps_is_the_richardson_limit_of_gradient_descent(loss, eta):
    """tests/test_race_hand_rules.py::test_race_in_steps_matches_plain_gradient_descent_to_order_lr checks
    that the GD-to-race gap halves with η (2 ± 0.4) and stays < 1e-2 of the loss's drop; a race whose
    τ is off by 1e-5 passes both. Second method, sharper (as for the shared-first flow above): the
    gap is C1 η + C2 η² + O(η³) (GD is the flow's explicit Euler steps), so the Richardson
    combination R(η) = 2 GD(η/2) − GD(η) misses the race by O(η²): halving η quarters it (ratio 4 ± 0.8,
    a convergence-order check; measured 3.99 to 4.17, CPU). η is chosen so that τ = 40, 80, 160 steps
    exactly (mean: τ = 1/η; sum: τ = 1/(Pη), P = 3), so the three GD runs are read at the same times
    0, 1, 2, 3 τ. The race's RK4 at h = τ/100 has error ~(h·rate)⁴ ≈ 1e-8 relative, below r(η/2) ≈ 2e-7.
    Mutation that fails it while the older test passes: RaceSystem.solve with τ·(1 + 1e-5)."""
    gd = {}
    for k in (1, 2, 4):
        spec = _race_spec(loss, eta / k)
        tau = round(spec.tau)
        assert tau == 40 * k and abs(spec.tau - tau) < 1e-9 * tau
        gd[k] = _race_gd(loss, eta / k, 3 * tau, 0.05)[[0, tau, 2 * tau, 3 * tau]]
    spec = _race_spec(loss, eta)
    race = RaceSystem.from_spec(spec).solve([0.0, 40.0, 80.0, 120.0], solver=RK4(spec.tau / 100)).loss[0]
    drop = gd[1][0] - gd[1][-1]
    r = {k: (2 * gd[2 * k] - gd[k] - race)[1:] / drop for k in (1, 2)}
    gap = np.abs(gd[2] - race)[1:] / drop
    assert np.all(gap > 10 * np.abs(r[1])), (gap, r)     # the extrapolation removes the first-order term
    ratio = r[1] / r[2]                                  # at 1, 2 and 3 τ, each
    assert np.all((3.2 < ratio) & (ratio < 4.8)), (r, ratio)


def test_shared_first_flow_one_pathway_is_the_mode_ode_to_the_integrators_tolerance():
    """tests/test_depth.py::test_shared_first_flow_one_pathway_is_the_mode_ode compares at rtol 1e-5.
    Derived bound: both curves come from Dopri5 at rtol 1e-8 (RaceSystem.solve and mode_ode_loss, their
    defaults). As for the depth-2 closed form above, take the global relative error of a mode's strength
    as ε = 10·rtol for the mode ODE (state a) and 3·10·rtol for the flow (a = the product of three layers'
    factors, each integrated to 10·rtol). A mode's loss moves by (s − d a) δa ≤ ε s²/(4d), d = 1 here
    (Σx = I), so |δL| ≤ (1e-7 + 3e-7) · Σ s²/4 = 3.0e-7 for s = (1.642, 0.571) (measured: 1.8e-8, CPU).
    Mutation that fails it while the rtol-1e-5 test passes: shared_first_flow's lr·(1 + 1e-6)."""
    rng = np.random.default_rng(7)
    P = 4
    X = np.sqrt(P) * np.linalg.qr(rng.normal(size=(P, P)))[0][:3]       # rows orthonormal·√P: Σx = I
    Y = rng.normal(size=(2, P))
    np.testing.assert_allclose(X @ X.T / P, np.eye(3), atol=1e-15)
    t = np.linspace(0, 60, 13)
    flow = dp.shared_first_flow(X, Y, np.ones((1, P)), a0=1e-3, lr=0.5, loss="mean", times=t)
    ode = dp.mode_ode_loss(X, Y, 1e-3, 2.0, t, loss_factor=1.0, depth=3)
    s = np.linalg.svd(Y @ X.T / P, compute_uv=False)
    bound = (1e-7 + 3e-7) * np.sum(s ** 2) / 4
    assert bound < 4e-7
    np.testing.assert_allclose(flow, ode, rtol=0, atol=bound)
    assert flow[-1] < 0.5 * flow[0]                                      # something was learned
