"""Properties of the closed-form trajectories (docs/theory.md#mode-ode) and of the exact ReLN (§3, Definition 3.1).

Every check compares the closed form with a second, independent method: a numerical ODE solver
(scipy), the numerically integrated race reduction, or the ReLU network's own forward pass.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

import theorykit as tk
from theorykit.theory.derivation import Derivation
from theorykit.spec.gating import GDLNSpec, Pathway, Training
from theorykit.sim.simulation import gdln_forward, relu_forward, relu_gates
from theorykit.spec.task import Task
from theorykit.theory.trajectory import a0 as A0
from theorykit.theory.trajectory import mode_ode_residual, mode_trajectory, t as T, t_half, tau as TAU


def _scaled(frac: float, floor: int = 8) -> settings:
    """A fraction of the active profile's examples (for the expensive properties)."""
    return settings(max_examples=max(floor, int(settings.default.max_examples * frac)))


S_, D_ = sp.symbols("s d", positive=True)
A_T = mode_trajectory(S_, D_)
DA_DT = sp.diff(A_T, T)
_a = sp.lambdify((S_, D_, A0, TAU, T), A_T, "numpy")
_da = sp.lambdify((S_, D_, A0, TAU, T), DA_DT, "numpy")
_th = sp.lambdify((S_, D_, A0, TAU), t_half(S_, D_), "numpy")

pos = st.floats(0.01, 5.0, allow_nan=False)
a0s = st.floats(1e-6, 10.0, allow_nan=False)
taus = st.floats(0.5, 100.0, allow_nan=False)


def test_closed_form_satisfies_its_ode_symbolically():
    """τ da/dt − 2a(s − d a) simplifies to 0 for symbolic s, d > 0, a0 > 0."""
    assert mode_ode_residual(S_, D_) == 0


@given(pos, pos, a0s, taus, st.floats(0.0, 50.0))
def test_closed_form_satisfies_its_ode_numerically(s, d, a0, tau, x):
    """At any time t = x·τ/s: τ a'(t) = 2 a (s − d a), to float precision relative to the terms."""
    t = x * tau / s
    a = _a(s, d, a0, tau, t)
    lhs = tau * _da(s, d, a0, tau, t)
    rhs = 2 * a * (s - d * a)
    scale = 2 * a * (s + d * a)
    assert abs(lhs - rhs) <= 1e-9 * scale + 1e-300


@settings(max_examples=max(8, settings.default.max_examples // 4))
@given(pos, pos, a0s, taus)
def test_closed_form_matches_a_numerical_ode_solver(s, d, a0, tau):
    """The closed form against scipy's solve_ivp of τ da/dt = 2a(s − d a) (independent method)."""
    t_end = 12 * tau / s
    ts = np.linspace(0, t_end, 25)
    sol = solve_ivp(lambda t, a: 2 * a * (s - d * a) / tau, (0, t_end), [a0], t_eval=ts, rtol=1e-11, atol=1e-14,
                    method="LSODA")
    np.testing.assert_allclose(_a(s, d, a0, tau, ts), sol.y[0], rtol=2e-7, atol=1e-12 * max(a0, s / d))


@given(pos, pos, a0s, taus)
def test_monotone_between_a0_and_end_point(s, d, a0, tau):
    """a(t) runs monotonically from a0 to s/d: up when a0 < s/d, down when a0 > s/d, and never
    leaves the interval between them."""
    end = s / d
    ts = np.linspace(0, 40 * tau / s, 400)
    a = _a(s, d, a0, tau, ts)
    lo, hi = min(a0, end), max(a0, end)
    eps = 1e-12 * hi
    assert np.all(a >= lo - eps) and np.all(a <= hi + eps)
    da = np.diff(a)
    if a0 < end:
        assert np.all(da >= -eps)
    elif a0 > end:
        assert np.all(da <= eps)
    else:
        np.testing.assert_allclose(a, end, rtol=1e-12)
    assert abs(a[-1] - end) <= 1e-6 * hi + abs(a0 - end) * 1e-6  # 40 time constants: converged


@given(pos, pos, st.floats(1e-6, 0.49), taus)
def test_t_half_formula(s, d, frac, tau):
    """t½ = τ/(2s)·ln(s/(d a0) − 1) is where a(t) = s/(2d) (for a0 < s/(2d)); checked against the
    crossing time found by integrating the ODE with an event (independent of the closed form)."""
    a0 = frac * s / d
    th = _th(s, d, a0, tau)
    assert th > 0
    np.testing.assert_allclose(_a(s, d, a0, tau, th), s / (2 * d), rtol=1e-10)
    ev = lambda t, a: a[0] - s / (2 * d)  # noqa: E731
    ev.terminal = True
    sol = solve_ivp(lambda t, a: 2 * a * (s - d * a) / tau, (0, 10 * th + 10 * tau / s), [a0], events=ev,
                    rtol=1e-11, atol=1e-14 * s / d, method="LSODA")
    np.testing.assert_allclose(sol.t_events[0][0], th, rtol=1e-6)


@st.composite
def one_pathway_specs(draw):
    """One pathway on a task with one-hot inputs (X = I), so Σx is diagonal and the closed form applies."""
    P = draw(st.integers(1, 3))
    p = draw(st.integers(1, 3))
    Y = sp.Matrix(draw(st.lists(st.lists(st.integers(-3, 3), min_size=P, max_size=P), min_size=p, max_size=p)))
    active = tuple(draw(st.lists(st.integers(0, 1), min_size=P, max_size=P).filter(any)))
    assume(any(Y[i, j] != 0 and active[j] for i in range(p) for j in range(P)))
    task = Task(sp.eye(P), Y)
    return GDLNSpec(task, [Pathway("p", active, "all", "all", hidden=8)], Training(lr=0.05, a0=1e-3))


def _closed_form_loss(der: Derivation, times):
    """Derivation.loss (symbolic closed form) evaluated in floats; CRootOf values via evalf."""
    spec = der.spec
    L = der.loss.subs({TAU: spec.tau, A0: spec.training.a0})
    L = L.replace(lambda e: isinstance(e, sp.CRootOf), lambda e: e.evalf(30))
    return np.asarray(sp.lambdify(T, L, "numpy")(np.asarray(times, dtype=float)), dtype=float) * np.ones(len(times))


@_scaled(0.25)
@given(one_pathway_specs())
def test_race_reduction_with_one_pathway_equals_closed_form(spec):
    """For a single pathway the numerically integrated race reduction reproduces the closed-form loss."""
    closed = Derivation(spec, method="auto")
    assert closed.method == "closed-form"
    race = Derivation(spec, method="race-reduction")
    smin = min(float(m.s) for m in closed.modes["p"].modes)
    times = np.linspace(0, 3 * spec.tau / smin * np.log(1e4), 30)
    L_closed = _closed_form_loss(closed, times)
    L_race = race.predict_loss(times)
    np.testing.assert_allclose(L_race, L_closed, rtol=1e-6, atol=1e-8 * L_closed[0])


# Found by the property above (Hypothesis): singular values that are roots of an irreducible cubic
# (exact CRootOf) make Derivation.predict_loss fail in theorykit.theory.jaxify (NotJaxSafe: 'lambda_').
CUBIC_SPEC = GDLNSpec(Task(sp.eye(3), sp.Matrix([[-3, 3, 0], [0, -2, -1], [-2, 0, 0]])),
                      [Pathway("p", (1, 1, 1), "all", "all", hidden=8)], Training(lr=0.05, a0=1e-3))


def test_predict_loss_with_crootof_singular_values():
    """Derivation.predict_loss should agree with the closed form evaluated by SymPy."""
    der = Derivation(CUBIC_SPEC)
    times = np.linspace(0, 400, 9)
    np.testing.assert_allclose(der.predict_loss(times), _closed_form_loss(der, times), rtol=1e-9)


# ---------------------------------------------------------------------------------------------
# The exact ReLN (Definition 3.1) equals the ReLU network's output
# ---------------------------------------------------------------------------------------------
def _exact_reln_output(W1, W2, X):
    """The GDLN that gates each hidden unit by its own activity, with units that share a gate
    pattern merged into one pathway, evaluated by theorykit's GDLN forward pass."""
    g = np.asarray(relu_gates([W1, W2], X)[0])  # H × P
    patterns, which = np.unique(g, axis=0, return_inverse=True)
    which = np.asarray(which).reshape(-1)
    params, gates, ins, outs = [], [], [], []
    for j, pat in enumerate(patterns):
        idx = np.flatnonzero(which == j)
        params.append([W1[idx, :], W2[:, idx]])
        gates.append(jnp.asarray(pat, dtype=X.dtype))
        ins.append(np.arange(X.shape[0]))
        outs.append(np.arange(W2.shape[0]))
    return np.asarray(gdln_forward(params, X, gates, ins, outs, W2.shape[0])), len(patterns)


SEC4 = tk.contexts(8, 3, blocks=["hierarchy", "ring", "cross"])


def test_exact_reln_equals_relu_output_along_training():
    """At checkpoints every 500 steps of one training run on the Section 4 task (bias-free ReLU
    net, 64 hidden units, sum loss, η = 0.001, full-batch gradient descent written here with
    theorykit.sim.simulation.relu_forward), the per-unit-gated GDLN's output equals the ReLU network's
    output on every datapoint, to float64 rounding (W2 diag(g_μ) W1 x_μ = W2 relu(W1 x_μ))."""
    import jax

    X, Y = (jnp.asarray(a) for a in SEC4.numeric())
    k1, k2 = jax.random.split(jax.random.PRNGKey(3))
    params = [0.05 * jax.random.normal(k1, (64, SEC4.d)), 0.05 * jax.random.normal(k2, (SEC4.p, 64))]
    loss = lambda p: 0.5 * jnp.sum((Y - relu_forward(p, X)) ** 2)  # noqa: E731

    @jax.jit
    def chunk(p):
        def step(p, _):
            g = jax.grad(loss)(p)
            return [w - 0.001 * gw for w, gw in zip(p, g)], None
        return jax.lax.scan(step, p, None, length=500)[0]

    losses, n_paths = [], []
    for _ in range(9):  # checkpoints at steps 0, 500, …, 4000
        W1, W2 = params
        out_relu = np.asarray(relu_forward(params, X))
        out_reln, n = _exact_reln_output(W1, W2, X)
        scale = float(np.abs(np.asarray(W2)).sum(axis=1).max() * np.abs(np.asarray(W1 @ X)).max())
        np.testing.assert_allclose(out_reln, out_relu, rtol=0, atol=1e-13 * max(scale, 1e-300))
        losses.append(float(loss(params)))
        n_paths.append(n)
        params = chunk(params)
    assert min(n_paths) > 1                   # non-trivial gating at every checkpoint
    assert losses[-1] < 0.2 * losses[0]       # the checkpoints span real training


@_scaled(0.25)
@given(st.integers(0, 2 ** 31 - 1), st.integers(1, 12), st.sampled_from([1e-3, 1.0, 30.0]))
def test_exact_reln_equals_relu_output_for_any_weights(seed, H, scale):
    """Definition 3.1's construction holds for arbitrary weights, not only trained ones."""
    rng = np.random.default_rng(seed)
    X = jnp.asarray(SEC4.numeric()[0])
    W1 = jnp.asarray(scale * rng.standard_normal((H, X.shape[0])))
    W2 = jnp.asarray(rng.standard_normal((SEC4.p, H)))
    out_reln, _ = _exact_reln_output(W1, W2, X)
    out_relu = np.asarray(relu_forward([W1, W2], X))
    bound = float(np.abs(np.asarray(W2)).sum(axis=1).max() * np.abs(np.asarray(W1 @ X)).max())
    np.testing.assert_allclose(out_reln, out_relu, rtol=0, atol=1e-13 * max(bound, 1e-300))
