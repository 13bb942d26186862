"""Closed-form mode trajectories: ODE (symbolic and at random points), discrete recurrence, convergence order."""
import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.theory.trajectory import a0, discrete_mode_recurrence, mode_trajectory, t, t_half, tau

s, d = sp.symbols("s d", positive=True)


def test_closed_form_solves_its_ode_symbolically_and_numerically():
    a = mode_trajectory(s, d)
    resid = tau * sp.diff(a, t) - 2 * a * (s - d * a)
    assert sp.simplify(resid) == 0
    assert a.subs(t, 0).simplify() == a0
    rng = np.random.default_rng(1)
    f = sp.lambdify((t, s, d, a0, tau), resid, "mpmath")
    for _ in range(20):
        args = rng.uniform([0, 0.05, 0.05, 1e-4, 1], [500, 3, 3, 2, 200])
        assert abs(float(f(*args))) < 1e-12


def test_t_half_reaches_half_the_end_point():
    rng = np.random.default_rng(2)
    for _ in range(10):
        sv, dv, a0v, tv = rng.uniform(0.1, 2), rng.uniform(0.1, 2), 1e-3, rng.uniform(10, 100)
        th = float(t_half(s, d).subs({s: sv, d: dv, a0: a0v, tau: tv}))
        a = float(mode_trajectory(s, d).subs({s: sv, d: dv, a0: a0v, tau: tv, t: th}))
        assert a == pytest.approx(sv / dv / 2, rel=1e-10)


def test_discrete_recurrence_converges_to_flow_at_order_one():
    """diffrax-style order check: the gap between gradient descent and the flow is O(η)."""
    sv, dv, a0v = 0.6, 0.8, 1e-3
    T = 60.0  # flow time in units of τ·(steps) — fixed physical time, shrinking step
    errs = []
    for eta in [0.04, 0.02, 0.01, 0.005]:
        steps = int(round(T / eta))
        a_gd = discrete_mode_recurrence(sv, dv, a0v, 1.0 / eta, steps)
        ts = np.arange(steps + 1)
        a_flow = np.array([(sv / dv) / (1 + (sv / (dv * a0v) - 1) * np.exp(-2 * sv * k * eta)) for k in ts])
        errs.append(np.max(np.abs(a_gd - a_flow)))
    orders = np.log2(np.array(errs[:-1]) / np.array(errs[1:]))
    # the gap is η·e₁(t) + η²·e₂(t) + …, so the measured order is 1 + log2((1 + rη)/(1 + rη/2)) ≈ 1 + rη/(2 ln 2)
    # with r = e₂/e₁ of the scale of the mode's rate 2s = 1.2: at most 1.2·0.04/1.39 = 0.035 at η = 0.04 —
    # and the excess over 1 shrinks with η (halves, to first order)
    assert np.all(np.abs(orders - 1.0) < 0.05), orders
    assert np.all(np.diff(np.abs(orders - 1.0)) < 0), orders


def test_closed_form_is_monotone_and_bounded():
    a = sp.lambdify((t,), mode_trajectory(s, d).subs({s: 0.5, d: 0.25, a0: 1e-3, tau: 10}))
    ts = np.linspace(0, 1000, 500)
    vals = np.array([a(x) for x in ts])
    assert np.all(np.diff(vals) >= 0) and vals[0] == pytest.approx(1e-3) and vals[-1] <= 2.0 + 1e-12
    # above the end point it decays monotonically towards s/d
    a = sp.lambdify((t,), mode_trajectory(s, d).subs({s: 0.5, d: 0.25, a0: 3.0, tau: 10}))
    vals = np.array([a(x) for x in ts])
    assert np.all(np.diff(vals) <= 0) and vals[-1] >= 2.0 - 1e-12


def test_a_mode_with_nothing_to_learn_decays_by_its_own_ode_not_nan():
    """s = 0: the logistic form is 0/0, but the ODE τ ȧ = −2 d a² solves by hand to a0/(1 + 2 d a0 t/τ)."""
    from theorykit.theory.trajectory import mode_gap
    # hand values: a0 = 1/100, d = 1, t = 10, τ = 1 → (1/100)/(1 + 1/5) = 1/120
    assert mode_trajectory(0, 1, sp.Rational(1, 100), 10, 1) == sp.Rational(1, 120)
    assert sp.simplify(mode_trajectory(0, d) - sp.limit(mode_trajectory(s, d), s, 0)) == 0
    with np.errstate(all="raise"):
        a = mode_trajectory(np.array([0.0, 0.5]), 1.0, 0.01, np.array([10.0, 10.0]), 1.0, np.exp)
        g = mode_gap(np.array([0.0, 0.5]), 1.0, 0.01, 10.0, 1.0)
        assert mode_gap(0.0, 2.0, 0.01, 10.0, 1.0) == pytest.approx(-0.01 / 1.4, rel=1e-15)
    assert a[0] == pytest.approx(1 / 120, rel=1e-15) and g[0] == pytest.approx(-1 / 120, rel=1e-15)
    a_s = (0.5 / 1.0) / (1 + (0.5 / 0.01 - 1) * np.exp(-2 * 0.5 * 10.0))    # the other entry: the logistic form
    assert a[1] == pytest.approx(a_s, rel=1e-15) and g[1] == pytest.approx(0.5 - a_s, rel=1e-9)


def test_derivation_loss_is_the_sum_of_modes_and_starts_at_half_trace():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"]))
    D = der.task.symbols["Delta"]
    # at t = 0 with a0 -> 0 the loss is ½ tr Σy = ½ · (1/4) · 4 = 1/2 (labels ±1)
    L0 = sp.limit(der.loss.subs(t, 0), a0, 0)
    assert sp.simplify(L0 - sp.Rational(1, 2)) == 0
    # at t -> ∞ every xor pathway fits its point exactly: loss 0
    Linf = sp.limit(der.loss.subs({tau: 1, a0: sp.Rational(1, 1000), D: 1}), t, sp.oo)
    assert Linf == 0


def test_one_result_type_for_the_trainer_the_flows_and_the_race():
    """Gradient descent, the flow integrator and the race return one type, with the same fields. The
    race's recorded modes follow the closed form a(t) of docs/theory.md#mode-ode (the XoR linear
    ReLN: two decoupled pathways), and the flow dy/dt = −y its solution y0·e^(−t)."""
    from theorykit.net.layout import Net, net_loss
    from theorykit.net.starts import random_params
    from theorykit.record import SaveAt, Trajectory
    from theorykit.sim.engine import train
    from theorykit.theory.flow import RK4, integrate

    spec = tk.GDLNSpec(tk.xor_margin(1), tk.xor_relns()["linear"], tk.Training(lr=0.05, steps=400))
    der = tk.Derivation(spec)
    rs = der.race_system()
    times = np.linspace(0, 400, 9)
    race = rs.solve(times)
    for name, svd in der.modes.items():
        for i, m in enumerate(svd.modes):
            f = sp.lambdify(t, mode_trajectory(m.s, m.d).subs({a0: rs.a0, tau: rs.tau}))
            want = np.array([float(f(x)) for x in times])
            np.testing.assert_allclose(race.saved["modes"][name][0, :, i], want, rtol=1e-6)
    assert set(race.params) == set(rs.names) and race.params["positive"].shape[0] == 1

    X, Y = spec.task.numeric()
    net = Net.chain(X.shape[0], [4], Y.shape[0])
    gd = train(net_loss(net, "mean"), random_params(net, 0.1, seeds=2, seed=0), (X, Y), lr=0.05, steps=20,
               save=SaveAt(ts=[0, 20], fns={"W": lambda p, d: p[net.keys[0]]}))
    flow = integrate(lambda y, a: -y, np.array([1.0, 2.0]), None, solver=RK4(1e-3),
                     save=SaveAt(ts=[0.0, 0.5, 1.0], fns={"loss": lambda y, a: y ** 2 / 2, "y": lambda y, a: y}))
    np.testing.assert_allclose(flow.saved["y"][:, -1], np.array([1.0, 2.0]) * np.exp(-1.0), rtol=1e-9)
    for res, B, saved in ((race, 1, "modes"), (gd, 2, "W"), (flow, 2, "y")):
        assert type(res) is Trajectory
        assert res.loss.shape == (B, len(res.t))
        first = res.saved[saved]
        first = next(iter(first.values())) if isinstance(first, dict) else first
        assert first.shape[:2] == (B, len(res.saved_t))
        np.testing.assert_allclose(res.loss_at(res.t[-1:], batch=B - 1), res.loss[B - 1, -1:])
    assert gd.extra["devices"] >= 1 and flow.extra["solver"] == "rk4" and race.extra["solver"] == "dopri5"
    quiet = integrate(lambda y, a: -y, np.array([1.0]), None, solver=RK4(1e-2),
                      save=SaveAt(ts=[0.0, 1.0], fns={"y": lambda y, a: y}))
    assert quiet.loss is None and "no loss" in repr(quiet)
    with pytest.raises(tk.SpecError, match="no loss curve"):
        quiet.loss_at([0.5])
    with pytest.raises(tk.SpecError, match="no loss curve"):
        quiet.mean
    with pytest.raises(tk.SpecError, match="one number per batch member"):
        integrate(lambda y, a: -y, np.ones((1, 2)), None, solver=RK4(0.1),
                  save=SaveAt(ts=[0.0, 1.0], fns={"loss": lambda y, a: y}))
    # times in any order: the race records them in the caller's order, loss_at reads them sorted
    shuffled = rs.solve(times[::-1])
    np.testing.assert_allclose(shuffled.loss[0], race.loss[0][::-1], rtol=1e-9)
    np.testing.assert_allclose(shuffled.loss_at([25.0, 125.0]), race.loss_at([25.0, 125.0]), rtol=1e-9)
    assert "t 0…400" in repr(shuffled)
    with pytest.raises(tk.SpecError, match="times >= 0"):
        rs.solve([-1.0, 5.0])
    # a run that keeps no weights: no params, and no gates to read from them
    bare = tk.simulate(spec, network="relu", seeds=2, steps=5, save=SaveAt(final=False))
    assert bare.params is None and "gates" not in bare.extra and bare.loss.shape == (2, 6)


def test_one_saveat_for_the_trainer_the_flows_and_the_race():
    """The same SaveAt records for gradient descent and for a flow (diffrax's saveat): at ts, or on
    an every-grid; final=False keeps no state; misuse names the field. Golden values: gradient
    descent on L = ½‖w‖² is w_t = (1 − η)^t w_0 (by hand); the flow dy/dt = −y is y_0 e^(−t)."""
    import jax.numpy as jnp

    from theorykit.record import SaveAt
    from theorykit.sim.engine import train
    from theorykit.theory.flow import RK4, integrate

    w0 = np.array([[1.0, -2.0]])
    half_sq = lambda w, d: 0.5 * jnp.sum(w ** 2)            # noqa: E731
    ident = {"w": lambda w, d: w}
    both = SaveAt(ts=[0, 2, 4], fns=ident)
    gd = train(half_sq, jnp.asarray(w0), None, lr=0.1, steps=4, save=both)
    fl = integrate(lambda y, a: -y, w0, None, solver=RK4(1e-3), save=both)
    np.testing.assert_allclose(gd.saved["w"][0], np.array([0.9 ** t * w0[0] for t in (0, 2, 4)]), rtol=1e-12)
    np.testing.assert_allclose(fl.saved["w"][0], np.array([np.exp(-t) * w0[0] for t in (0, 2, 4)]), rtol=1e-9)
    assert list(gd.saved_t) == [0, 2, 4] and list(fl.saved_t) == [0.0, 2.0, 4.0]
    # every: both grids end at the end of the run (the trainer's last step, the flow's t_end), so a
    # curve recorded on it covers the horizon exactly (an area over it is over [0, t_end])
    gd = train(half_sq, jnp.asarray(w0), None, lr=0.1, steps=5, save=SaveAt(every=2, fns=ident))
    fl = integrate(lambda y, a: -y, w0, None, solver=RK4(1e-3), t_end=5.0, save=SaveAt(every=2, fns=ident))
    assert list(gd.saved_t) == [0, 2, 4, 5] and list(fl.saved_t) == [0.0, 2.0, 4.0, 5.0]
    assert integrate(lambda y, a: -y, w0, None, solver=RK4(0.1), save=SaveAt(ts=[1.0], final=False)).params is None
    # (ts with every is refused where the SaveAt is made, the others where the flow reads it)
    for bad, field in ((lambda: SaveAt(ts=[1.0], every=1.0), "save"), (lambda: SaveAt(ts=[2.0, 1.0]), "save.ts"),
                       (lambda: SaveAt(every=1.0), "save.every"), (lambda: SaveAt(ts=[1.0], loss_every=5),
                                                                   "save.loss_every")):
        with pytest.raises(tk.SpecError) as e:
            integrate(lambda y, a: -y, w0, None, solver=RK4(0.1), save=bad())
        assert e.value.field == field
    with pytest.raises(tk.SpecError) as e:
        train(half_sq, jnp.asarray(w0), None, lr=0.1, steps=4, save=SaveAt(ts=[7], fns=ident))
    assert e.value.field == "save.ts"
    rs = tk.RaceSystem.from_spec(tk.GDLNSpec(tk.xor_margin(1), tk.xor_relns()["linear"], tk.Training(lr=0.05)))
    with pytest.raises(tk.SpecError) as e:
        rs.solve(SaveAt(ts=[1.0], fns=ident))
    assert e.value.field == "save.fns"
    for bad, field in ((lambda: SaveAt(ts=[1.0], every=1.0), "save"), (lambda: SaveAt(ts=5.0), "save.ts"),
                       (lambda: SaveAt(ts=[1.0], loss_every=0), "save.loss_every"),
                       (lambda: SaveAt(every=10.0), "save.every")):
        with pytest.raises(tk.SpecError) as e:
            rs.solve(bad())
        assert e.value.field == field
    assert rs.solve(SaveAt(ts=[3.0, 1.0], final=False)).params is None
    grid = rs.solve(SaveAt(every=50.0), t_end=120.0)
    assert list(grid.saved_t) == [0.0, 50.0, 100.0, 120.0]          # the grid, then t_end itself
    np.testing.assert_allclose(grid.loss[0], rs.solve([0.0, 50.0, 100.0, 120.0]).loss[0], rtol=1e-9)


# ---------------------------------------------------------------------------------------------
# edge cases of the one SaveAt, the trainer, the flows and simulate (found in a review)
# ---------------------------------------------------------------------------------------------
def test_saveat_every_grid_ends_at_t_end_even_for_long_runs():
    """The grid is the multiples of `every` below t_end, then t_end. 115000 / 2.3 = 50000 exactly, but in
    floating point the ratio is 50000 + 7e-12: an absolute tolerance on it put one more point past the
    end. A flow's grid ended at the first multiple at or past t_end, so areas over it overshot the
    horizon (8001 or 8010 for 8000 steps)."""
    from theorykit.record import SaveAt

    ts = SaveAt(every=2.3).times(115000.0)
    assert len(ts) == 50001 and ts[-1] == 115000.0 and ts[-2] == pytest.approx(114997.7, rel=1e-14)
    assert SaveAt(every=0.3).times(1.0).tolist() == pytest.approx([0.0, 0.3, 0.6, 0.9, 1.0])   # t_end itself last
    for bad in (-1, 2.5, True, "10"):
        with pytest.raises(tk.SpecError, match="save.loss_every"):
            SaveAt(loss_every=bad)



def test_trainer_records_steps_given_out_of_order_or_twice_once_each_in_order():
    """SaveAt.times: the trainer sorts its steps and drops repeats. ts = [4, 0, 2, 2] records at steps
    0, 2, 4, once each; golden values by hand: gradient descent on L = ½‖w‖² with η = 0.1 is
    w_t = 0.9^t w_0."""
    import jax.numpy as jnp

    from theorykit.record import SaveAt
    from theorykit.sim.engine import train

    w0 = np.array([[1.0, -2.0]])
    res = train(lambda w, d: 0.5 * jnp.sum(w ** 2), jnp.asarray(w0), None, lr=0.1, steps=4,
                save=SaveAt(ts=[4, 0, 2, 2], fns={"w": lambda w, d: w}))
    assert list(res.saved_t) == [0, 2, 4]
    np.testing.assert_allclose(res.saved["w"][0], np.array([0.9 ** t * w0[0] for t in (0, 2, 4)]), rtol=1e-12)

def test_trainer_checks_divergence_without_a_loss_curve():
    """x ← x − η·x (L = x²/2) with η = 3 multiplies x by −2 each step: after 10 steps L is 4¹⁰ L(0)."""
    import jax.numpy as jnp

    from theorykit.record import SaveAt
    from theorykit.sim.engine import train

    p0 = {"x": jnp.ones((2, 1))}
    loss = lambda p, _: 0.5 * jnp.sum(p["x"] ** 2)  # noqa: E731
    with pytest.raises(tk.DivergenceError):
        train(loss, p0, None, lr=3.0, steps=10, save=SaveAt(loss_every=0), check="toy")
    res = train(loss, p0, None, lr=0.5, steps=10, save=SaveAt(loss_every=0), check="toy")   # x halves: fine
    assert np.asarray(res.params["x"]) == pytest.approx(0.5 ** 10) and res.loss.shape == (2, 0)


def test_dopri5_may_take_exactly_max_steps():
    from theorykit.record import SaveAt
    from theorykit.theory.flow import Dopri5, integrate

    f = lambda y, a: -a * y  # noqa: E731
    y0, args = np.ones((1, 1)), np.ones(1)
    n = integrate(f, y0, args, solver=Dopri5(), save=SaveAt(ts=[1.0])).extra["steps"]
    res = integrate(f, y0, args, solver=Dopri5(max_steps=n), save=SaveAt(ts=[1.0]))
    assert float(np.asarray(res.params)[0, 0]) == pytest.approx(np.exp(-1.0), rel=1e-7)
    with pytest.raises(tk.SpecError):
        integrate(f, y0, args, solver=Dopri5(max_steps=n - 1), save=SaveAt(ts=[1.0]))


@pytest.mark.parametrize("solver", ["rk4", "dopri5"])
def test_flows_run_in_float64_from_a_float32_start(solver):
    """A float32 start (a network's checkpoint) is cast: the flow runs in float64, as from a float64 start."""
    from theorykit.record import SaveAt
    from theorykit.theory.flow import RK4, Dopri5, integrate

    sv = RK4(0.01) if solver == "rk4" else Dopri5()
    f = lambda y, a: -a * y  # noqa: E731
    save = SaveAt(ts=[0.0, 1.0], fns={"y": lambda y, a: y})
    r32 = integrate(f, np.full((2, 1), 0.1, np.float32), np.ones(2), solver=sv, save=save)
    r64 = integrate(f, np.full((2, 1), np.float32(0.1), np.float64), np.ones(2), solver=sv, save=save)
    assert np.asarray(r32.params).dtype == np.float64
    assert np.array_equal(np.asarray(r32.saved["y"]), np.asarray(r64.saved["y"]))
    assert float(np.asarray(r32.params)[0, 0]) == pytest.approx(float(np.float32(0.1)) * np.exp(-1), rel=1e-7)


def test_simulate_gdln_honours_loss_and_check_and_refuses_relu_only_options():
    """The summed loss is P times the mean (XoR: P = 4); check=False lets a diverging run return."""
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3))
    v = {"Delta": 0.5}
    mean = tk.simulate(spec, values=v, seeds=1, steps=0)
    summed = tk.simulate(spec, values=v, seeds=1, steps=0, loss="sum")
    assert summed.loss[0, 0] == pytest.approx(4 * mean.loss[0, 0], rel=1e-12)
    with pytest.raises(tk.DivergenceError):
        tk.simulate(spec, values=v, seeds=1, steps=50, lr=50.0)
    wild = tk.simulate(spec, values=v, seeds=1, steps=50, lr=50.0, check=False)
    assert not np.isfinite(wild.loss[0, -1]) or wild.loss[0, -1] > 10 * wild.loss[0, 0]
    for opt in ({"hidden": 8}, {"snapshot_every": 10}):
        with pytest.raises(tk.SpecError, match=next(iter(opt))):
            tk.simulate(spec, values=v, seeds=1, steps=5, **opt)


def test_relu_snapshots_are_the_saved_steps_even_for_a_short_run():
    """Snapshots at 0, every, … below the last step; a run shorter than one interval keeps step 0."""
    X = np.array([[1.0, -1.0, 0.5], [0.5, 1.0, -1.0]])
    Y = np.array([[1.0, 0.0, 1.0]])
    for steps, every, marks in ((5, 10, [0]), (30, 10, [0, 10, 20])):
        res = tk.simulate((X, Y), network="relu", hidden=4, lr=0.1, steps=steps, seeds=2, snapshot_every=every)
        assert res.extra["snapshots"].shape == (2, len(marks), 4, 3)
        assert set(marks) <= set(res.saved_t.tolist())
        idx = [res.saved_t.tolist().index(m) for m in marks]
        assert np.array_equal(res.extra["snapshots"], np.asarray(res.saved["snapshots"])[:, idx])


def test_race_records_times_given_in_any_order_at_their_own_place():
    """Times given as a permutation that is not its own inverse ([200, 0, 400, 100]; a reversal
    is, so it cannot tell the sorting permutation from its inverse): each loss is recorded at the
    place of its own time. Golden values: the closed form of docs/theory.md#closed-form for the XoR
    linear ReLN at Δ = 1 (two uncoupled pathways, one mode each, s = Δ/2, d = Δ²/2; ½ tr Σy = ½),
    L(t) = ½ − 2 (s a − ½ d a²) with a(t) = (s/d) / (1 + (s/(d a0) − 1) e^{−2st/τ}), τ = 1/η."""
    spec = tk.GDLNSpec(tk.xor_margin(1), tk.xor_relns()["linear"], tk.Training(lr=0.05, a0=1e-3))
    rs = tk.Derivation(spec).race_system()
    times = np.array([200.0, 0.0, 400.0, 100.0])
    s, d, a0, tau_ = 0.5, 0.5, 1e-3, 1 / 0.05
    a = (s / d) / (1 + (s / (d * a0) - 1) * np.exp(-2 * s * times / tau_))
    want = 0.5 - 2 * (s * a - 0.5 * d * a * a)
    got = rs.solve(times)
    np.testing.assert_allclose(got.loss[0], want, rtol=1e-6, atol=1e-10)
    np.testing.assert_array_equal(got.t, times)


def test_loss_tail_keeps_its_digits_far_below_the_start():
    """The XoR "linear" ReLN at Δ = 1 (examples/xor_linear.toml: η = 0.01, mean loss, a0 = 1e-3). By
    hand: each of its two pathways has s = Δ/2 = 1/2 and d = Δ²/2 = 1/2 (docs/theory.md#xor), so each
    removes s²/2d = 1/4 of L(0) = ½ tr Σy = ½: nothing is left at the end, and L(t) = 2 · ½ d g² = ½ g²
    with the gap g = s/d − a = c e^{−u}/(1 + c e^{−u}), c = s/(d a0) − 1 = 999, u = 2 s t/τ = t/100.
    The form ½ − Σ (s a − ½ d a²) cancelled to exactly 0 from about step 2 700 (1.8e-18 here)."""
    der = tk.Derivation(tk.load_spec("examples/xor_linear.toml"))
    ts = np.array([0, 1000, 2400, 2700, 3000])
    ce = 999 * np.exp(-ts / 100)
    by_hand = 0.5 * (ce / (1 + ce)) ** 2
    got = der.predict_loss(ts, values={"Delta": 1})
    assert got[-1] > 0 and got == pytest.approx(by_hand, rel=1e-12)


def test_discrete_loss_tail_against_the_recurrence_at_60_digits():
    """The same ReLN under gradient descent: a ← a (1 + (s − d a)/τ)² run in mpmath at 60 digits (a second
    method: the plain recurrence, no gap), L = ½ − 2 (s a − ½ d a²). The float gap recurrence keeps
    about 1e-12 of relative error at step 3 000, where L is 3.6e-21; float a could not go below 1e-17."""
    import mpmath

    with mpmath.workdps(60):
        s_, d_, tau_ = mpmath.mpf(1) / 2, mpmath.mpf(1) / 2, mpmath.mpf(100)
        a, ref = mpmath.mpf("0.001"), {}
        for i in range(3001):
            if i in (0, 1000, 2400, 2700, 3000):
                ref[i] = float(mpmath.mpf(1) / 2 - 2 * (s_ * a - d_ * a * a / 2))
            a = a * (1 + (s_ - d_ * a) / tau_) ** 2
    der = tk.Derivation(tk.load_spec("examples/xor_linear.toml"))
    got = der.predict_loss(list(ref), values={"Delta": 1}, discrete=True)
    assert got == pytest.approx(list(ref.values()), rel=1e-10)
    assert ref[3000] < 1e-20
