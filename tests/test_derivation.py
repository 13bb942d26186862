"""Derivation object: method choice, documented fall-backs and degenerate input."""
import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.errors import DerivationError


def _skewed_spec(lr=0.01):
    # one pathway, inputs not white: Σyx = ½(1, 0) has v = (1, 0) but Σx = ½[[2, 1], [1, 1]] maps v to
    # (1, ½), which is not parallel to v (hand computation) -> Assumption 2.1 fails.
    task = tk.Task(sp.Matrix([[1, 1], [0, 1]]), sp.Matrix([[1, 0]]))
    return tk.GDLNSpec(task, [tk.Pathway("p", "all", "all", "all", 4)], tk.Training(lr=lr, a0=1e-3))


def test_not_diagonalisable_falls_back_to_race_reduction_with_a_warning():
    der = tk.Derivation(_skewed_spec(), method="closed-form")
    with pytest.warns(UserWarning, match="not mutually diagonalisable"):
        assert der.method == "race-reduction"
    assert der.diagonalisable == {"p": False} and der.notes
    with pytest.raises(DerivationError, match="no closed form"):
        der.loss


def test_race_reduction_follows_the_non_diagonalisable_network():
    """Least squares can fit y exactly (X is invertible): the loss must go to zero, and the race
    reduction (balanced gradient flow) must follow gradient descent up to O(η). No closed form, so no
    discrete recurrence to compare with: the tolerance 1e-2 of L(0) is the measured gap, 1.8e-3 at
    η = 0.01 (over the same time t·η = 30), with 5x room, and the gap is shown to be first order: at
    η/2 it halves (ratio 2.00 measured; a gap from anything but η would not scale so)."""
    gaps = []
    for lr in (0.01, 0.005):
        spec = _skewed_spec(lr=lr)
        der = tk.Derivation(spec)
        steps = int(round(30 / lr))
        sim = tk.simulate(spec, seeds=1, steps=steps)
        ts = np.arange(0, steps + 1, steps // 30)
        pred = der.predict_loss(ts)
        assert pred[-1] < 1e-6 and sim.mean[-1] < 1e-6
        gaps.append(np.max(np.abs(sim.mean[ts] - pred)) / pred[0])
    assert gaps[0] < 1e-2
    # gap(η) = C η (1 + r(η)), r = O(s/τ) the next order (s = 1/2, τ = 100: 5e-3; at most 1 % as in
    # tests/_gd_reference.py gd_flow_gap), so the ratio is 2 (1 + r(η)) / (1 + r(η/2)) = 2 ± 0.02
    # (measured 1.9998)
    assert gaps[0] / gaps[1] == pytest.approx(2.0, abs=0.02), gaps


def test_zero_effective_dataset_is_a_clear_error():
    # X = I₂, y = (1, 0): a pathway on the second datapoint only sees the target 0, so its Σyx is
    # zero for every value -> nothing to learn, a spec error
    task = tk.Task(sp.eye(2), sp.Matrix([[1, 0]]))
    der = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("idle", (0, 1), "all", "all", 2)]))
    with pytest.raises(DerivationError, match="nothing to learn"):
        der.modes


@pytest.mark.parametrize("route", ["values at construction", "values at prediction"])
def test_a_pathway_with_nothing_to_learn_at_special_values_adds_no_mode(route):
    # the linear ReLN at Δ = 0: each pathway's Σyx is (0, 0, Δ/2) = 0 there (not in general), so no
    # mode and no learning; the loss stays at ½·(1/4)Σ‖y‖² = ½ (targets ±1) for all time, by hand
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=0.05, a0=1e-3))
    times = [0, 10, 1000, 10**6]
    with pytest.warns(UserWarning, match="nothing to learn at Delta = 0"):
        if route == "values at construction":
            der = tk.Derivation(spec, values={"Delta": 0})
            assert [n for n, svd in der.modes.items() if svd.modes] == []
            assert der.ranking == [("positive", 0), ("negative", 0)]
            assert "nothing to learn" in der._repr_latex_()
            loss, disc = der.predict_loss(times), der.predict_loss(times, discrete=True)
        else:
            der = tk.Derivation(spec)
            loss, disc = (der.predict_loss(times, values={"Delta": 0}),
                          der.predict_loss(times, values={"Delta": 0}, discrete=True))
    np.testing.assert_array_equal(loss, 0.5)
    np.testing.assert_array_equal(disc, 0.5)
    # and it is the limit of the general case: at Δ = 1e-6 the loss has barely moved by t = 1000
    assert tk.Derivation(spec).predict_loss([1000], values={"Delta": 1e-6})[0] == pytest.approx(0.5, rel=1e-6)
    # how far it has moved, by hand (rel 1e-6 above passes 0.5 itself): each pathway's one mode has s = Δ/2,
    # d = Δ²/2, and ŷ = ±aΔ on its two datapoints, so L = ½(1 − aΔ)² with a(t) = (s/d)/(1 + (s/(d a0) − 1)
    # e^(−2st/τ)), τ = 1/η = 20: a(1000) = 1.00005e-3 and L = ½ − 1.00005e-9, held to float64 rounding
    D, tau_, a0_ = 1e-6, 20.0, 1e-3
    s_, d_ = D / 2, D * D / 2
    a = (s_ / d_) / (1 + (s_ / (d_ * a0_) - 1) * np.exp(-2 * s_ * 1000 / tau_))
    assert tk.Derivation(spec).predict_loss([1000], values={"Delta": D})[0] == pytest.approx(0.5 * (1 - a * D) ** 2,
                                                                                             rel=1e-12)


def test_repeated_singular_values_get_an_orthonormal_basis():
    der = tk.Derivation(tk.GDLNSpec(tk.Task(sp.eye(3), sp.eye(3)), [tk.Pathway("id", "all", "all", "all", 3)]))
    svd = der.modes["id"]
    assert svd.singular_values == [sp.Rational(1, 3)] * 3
    assert svd.V.T * svd.V == sp.eye(3)


def test_ranking_and_t_half():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"] + tk.xor_relns()["xor"][:0]),
                        values={"Delta": 2})
    # at Δ = 2: s_linear = 1, both pathways tie
    assert [s for _, s in der.ranking] == [1, 1]
    fast = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"]), values={"Delta": 2})
    # s_xor(2) = √6/4 ≈ 0.61 < 1: at Δ = 2 the linear ReLN is the faster learner (docs/theory.md#xor)
    assert float(fast.ranking[0][1]) < float(der.ranking[0][1])
    # t½ by hand: a(t) = (s/d) / (1 + (s/(d a0) − 1) e^{−2st/τ}) reaches half its end point s/(2d) when
    # 1 + (s/(d a0) − 1) e^{−2st/τ} = 2, i.e. at t½ = τ/(2s) · ln(s/(d a0) − 1).
    # linear ReLN: s = Δ/2, d = Δ²/2 → t½ = (τ/Δ) ln(1/(Δ a0) − 1);
    # XoR ReLN: s = √(Δ²+2)/4, d = (Δ²+2)/4 → t½ = (2τ/√(Δ²+2)) ln(1/(a0 √(Δ²+2)) − 1).
    lin = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]))
    xor = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"]))
    (th_lin,), (th_xor,) = lin.t_half["positive"], xor.t_half["point0"]
    sym = {str(x): x for x in th_lin.free_symbols | th_xor.free_symbols}
    D, tau, a0 = sym["Delta"], sym["tau"], sym["a_0"]
    assert sp.simplify(th_lin - tau / D * sp.log(1 / (D * a0) - 1)) == 0
    r = sp.sqrt(D ** 2 + 2)
    assert sp.simplify(th_xor - 2 * tau / r * sp.log(1 / (a0 * r) - 1)) == 0
    assert all(v == [th_lin] for v in lin.t_half.values()) and all(v == [th_xor] for v in xor.t_half.values())
    # numerically: the hand logistic is at exactly half its end point at the derived t½
    for Dv, a0v, tv in ((2.0, 1e-3, 20.0), (0.5, 1e-2, 100.0), (1.2, 1e-3, 1.0)):
        for th, s_, d_ in ((th_lin, Dv / 2, Dv ** 2 / 2), (th_xor, np.sqrt(Dv ** 2 + 2) / 4, (Dv ** 2 + 2) / 4)):
            t_h = float(th.subs({D: Dv, tau: tv, a0: a0v}))
            a = (s_ / d_) / (1 + (s_ / (d_ * a0v) - 1) * np.exp(-2 * s_ * t_h / tv))
            assert a == pytest.approx(s_ / (2 * d_), rel=1e-12)
    # at Δ = 2 the derivation with values gives the numbers: linear t½ = (τ/2) ln(1/(2 a0) − 1)
    assert sp.simplify(der.t_half["positive"][0] - tau / 2 * sp.log(1 / (2 * a0) - 1)) == 0


def test_latex_reprs():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]))
    for obj in (der, der.modes["positive"], der.effective_datasets["positive"], der.task,
                der.modes["positive"].modes[0]):
        r = obj._repr_latex_()
        assert r.startswith("$") and r.endswith("$")
        if hasattr(obj, "latex"):
            assert obj.latex()
    doc = der.latex(document=True)
    assert doc.count("\\begin{document}") == 1 and "\\frac{\\Delta}{2}" in doc


def test_values_given_later_must_agree_with_the_values_the_derivation_was_built_with():
    """A Derivation built at Δ = 0.5 has Δ substituted: asking it for Δ = 1 used to return the Δ = 0.5
    curve silently, and a misspelt symbol was accepted."""
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3))
    der = tk.Derivation(spec, values={"Delta": 0.5})
    ref = tk.Derivation(spec).predict_loss([0, 100, 1000], values={"Delta": 0.5})
    assert np.allclose(der.predict_loss([0, 100, 1000], values={"Delta": 0.5}), ref, rtol=1e-12)
    # both routes share the derivation's mode numbers: the curve by hand (docs/theory.md#xor, the XoR ReLN's
    # four pathways, one mode each): s = √(Δ² + 2)/4 = 3/8, d = (Δ² + 2)/4 = 9/16 at Δ = ½,
    # L = ½ − 4 (s a − ½ d a²) with a(t) = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}), τ = 1/η = 100
    ts = np.array([0.0, 100.0, 1000.0])
    s_, d_ = 3 / 8, 9 / 16
    a_t = (s_ / d_) / (1 + (s_ / (d_ * 1e-3) - 1) * np.exp(-2 * s_ * ts / 100))
    np.testing.assert_allclose(der.predict_loss(ts, values={"Delta": 0.5}), 0.5 - 4 * (s_ * a_t - d_ * a_t ** 2 / 2),
                               rtol=1e-12, atol=0)
    with pytest.raises(tk.SpecError, match="fixed"):
        der.predict_loss([0, 100], values={"Delta": 1.0})
    with pytest.raises(tk.SpecError, match="no symbol 'Bogus'"):
        tk.Derivation(spec).predict_loss([0, 100], values={"Delta": 1.0, "Bogus": 3})


def _deep_spec(depths, ys=(1, sp.Rational(6, 5))):
    task = tk.Task(sp.eye(2), sp.diag(*ys))
    return tk.GDLNSpec(task, tuple(tk.Pathway(f"p{i}", "all", [i], [i], 8, L) for i, L in enumerate(depths)),
                       tk.Training(lr=0.05, a0=1e-3))


def test_t_half_of_a_deeper_pathway_solves_its_own_mode_equation():
    """Depth 3: τ ȧ = 3 a^{4/3} (s − d a). The half-way time is τ ∫_{a0}^{s/2d} da / (3 a^{4/3}(s − d a)),
    checked here against scipy's quadrature of that integrand (a second method) and against an RK4
    integration of the ODE to a = s/(2d) written in the test; the depth-2 formula τ/(2s) ln(s/(d a0) − 1)
    (138.1 steps for s = d = 1/2, a0 = 1e-3, τ = 20) is far off (≈ 366)."""
    from scipy.integrate import quad

    from theorykit.theory.trajectory import a0 as A0, tau as TAU

    spec = _deep_spec([3], ys=(1, 0))
    der = tk.Derivation(spec)
    m = der.modes["p0"].modes[0]
    s_, d_, a0_, tau_ = float(m.s), float(m.d), 1e-3, float(spec.tau)
    th = float(sp.N(der.t_half["p0"][0].subs({TAU: tau_, A0: a0_})))
    ref = tau_ * quad(lambda a: 1 / (3 * a ** (4 / 3) * (s_ - d_ * a)), a0_, s_ / (2 * d_), limit=200)[0]
    assert th == pytest.approx(ref, rel=1e-8)
    a, t_, h = a0_, 0.0, 0.01
    f = lambda a: 3 * a ** (4 / 3) * (s_ - d_ * a) / tau_  # noqa: E731
    while a < s_ / (2 * d_):
        k1 = f(a); k2 = f(a + h * k1 / 2); k3 = f(a + h * k2 / 2); k4 = f(a + h * k3)
        a, t_ = a + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6, t_ + h
    # the loop stops at the first step at or past a = s/(2d), so t_ is t½ rounded up to the grid h = 0.01;
    # RK4's own error at h = 0.01 (rates ≤ 3·s/τ = 0.075) is O(h⁴), far below 1e-6
    assert -1e-6 <= t_ - th <= h + 1e-6, (t_, th)
    assert abs(th - tau_ / (2 * s_) * np.log(s_ / (d_ * a0_) - 1)) > 200


def test_ranking_across_depths_orders_by_half_way_time():
    """A depth-2 pathway with s = 1/2 and a depth-3 pathway with s = 3/5 (d = s, τ = 20, a0 = 1e-3):
    the deep one has the larger s but reaches half its end point later (about 307 steps against 138 by
    its own mode equation), so it ranks second."""
    der = tk.Derivation(_deep_spec([2, 3]))
    assert [n for n, _ in der.ranking] == ["p0", "p1"]
    assert [n for n, _ in tk.Derivation(_deep_spec([2, 2])).ranking] == ["p1", "p0"]     # same depth: by s


def test_predict_loss_with_symbols_only_in_the_input_correlation():
    """One input, two datapoints x = 1 and x = a (a > 0), targets 1 and 0: Σyx = (1·1 + 0·a)/2 = 1/2 has
    no symbol (s = 1/2, v = 1), Σx = (1 + a²)/2 does (d = (1 + a²)/2). The loss at a = 1 must equal
    that of a Derivation built at a = 1 (it crashed converting the symbolic d to a float)."""
    a = sp.Symbol("a", positive=True)
    spec = tk.GDLNSpec(tk.Task(sp.Matrix([[1, a]]), sp.Matrix([[1, 0]]), {"a": a}),
                       (tk.Pathway("q", "all", "all", "all", 8, 2),))
    got = tk.Derivation(spec).predict_loss([0.0, 100.0], values={"a": 1})
    want = tk.Derivation(spec, values={"a": 1}).predict_loss([0.0, 100.0])
    assert np.allclose(got, want, rtol=1e-12)
    # both routes share the mode numbers: the values by hand. ½ tr Σy = ½·(1² + 0²)/2 = ¼, the one mode
    # removes s a − ½ d a² with a(t) = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}), τ = 1/η = 20 (the default
    # training: η = 0.05, mean loss), a0 = 10⁻³; at a = 1: d = 1, at a = 2: d = 5/2
    assert (spec.training.lr, spec.training.loss, spec.training.a0) == (0.05, "mean", 1e-3)
    ts = np.array([0.0, 100.0, 200.0, 600.0])
    for av in (1, 2):
        s_, d_ = 0.5, (1 + av ** 2) / 2
        a_t = (s_ / d_) / (1 + (s_ / (d_ * 1e-3) - 1) * np.exp(-2 * s_ * ts / 20))
        hand = 0.25 - (s_ * a_t - d_ * a_t ** 2 / 2)
        np.testing.assert_allclose(tk.Derivation(spec).predict_loss(ts, values={"a": av}), hand, rtol=1e-12)
        assert a_t[0] < 1e-2 * s_ / d_ < 0.99 * s_ / d_ < a_t[-1]      # the window covers the learning


def test_symbolic_derivation_at_a_special_value_of_its_symbol():
    """Σyx = [[√2, Δ], [0, 1]], Σx = I/2 (X = I, Y = 2Σyx, P = 2). The symbolic SVD's eigenvector
    (G₀₁, λ − G₀₀) of G = ΣyxᵀΣyx vanishes at Δ = 0 (G₀₁ = √2Δ), which gave NaN losses and frames.
    At Δ = 0, Σyx is diagonal: s = √2 and 1 along e₁, e₂, d = 1/2 each, so the loss is the sum of two
    closed-form modes, written here by hand (mean loss, τ = 1/η = 20, a0 = 1e-3)."""
    D = sp.Symbol("Delta", nonnegative=True)
    task = tk.Task(sp.eye(2), 2 * sp.Matrix([[sp.sqrt(2), D], [0, 1]]), {"Delta": D})
    spec = tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 8, 2),), tk.Training(lr=0.05, a0=1e-3))
    der = tk.Derivation(spec)
    t_ = np.array([0.0, 100.0, 1000.0])
    L0 = 0.5 * (4 * 2 + 4 * 1) / 2                  # ½ tr Σy = ½ Σ y² / P
    L = np.full(3, L0)
    modes = []
    for s_ in (np.sqrt(2), 1.0):
        a = (s_ / 0.5) / (1 + (s_ / (0.5 * 1e-3) - 1) * np.exp(-2 * s_ * t_ / 20))
        modes.append(a)
        L -= s_ * a - 0.25 * a ** 2
    assert np.allclose(der.predict_loss(t_, values={"Delta": 0}), L, rtol=1e-10, atol=1e-12)
    U, V = der.frames({"Delta": 0})["p"]
    assert np.allclose(np.abs(V), np.eye(2)) and np.isfinite(U).all()
    assert np.isfinite(der.predict_modes(t_, values={"Delta": 0})["p"]).all()
    # the mode strengths themselves, the same closed form (columns: s = √2, then s = 1; d = ½, τ = 20)
    np.testing.assert_allclose(der.predict_modes(t_, values={"Delta": 0})["p"], np.stack(modes, axis=1),
                               rtol=1e-10, atol=1e-12)
    assert np.allclose(np.asarray(der.loss_function({"Delta": 0})(t_)), L, rtol=1e-10, atol=1e-12)


def test_a_pathway_narrower_than_its_rank_is_flagged():
    """Σyx = diag(1, 1/2) has rank 2; a pathway of one hidden unit can hold one mode only, so a
    derivation that learns both is an over-estimate and says so (note and warning)."""
    task = tk.Task(sp.eye(2), sp.diag(2, 1))
    spec = tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 1, 2),), tk.Training(lr=0.05, a0=1e-3))
    with pytest.warns(UserWarning, match="1 hidden unit"):
        der = tk.Derivation(spec)
        der.modes
    assert any("pathways[0].hidden" in n for n in der.notes)
    wide = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 2, 2),), spec.training))
    wide.modes
    assert not any("hidden unit" in n for n in wide.notes)


def test_latex_of_a_summed_loss_states_the_factor_and_tau_exactly():
    """Summed loss on XoR (P = 4) with η = 0.03: the displayed loss is 4 × (½ tr Σy − …), and
    τ = 1/(Pη) = 1/0.12 = 25/3 exactly (it was printed as 4166666666666667/500000000000000)."""
    spec = tk.GDLNSpec(tk.xor_margin(0.5), tk.xor_relns()["xor"], tk.Training(lr=0.03, loss="sum", a0=1e-3))
    tex = tk.Derivation(spec).latex()
    assert r"L(t) = 4\Big(\tfrac12\operatorname{tr}\Sigma^y" in tex
    assert r"\tau = \frac{25}{3}$" in tex
    mean = tk.Derivation(tk.GDLNSpec(spec.task, spec.pathways, tk.Training(lr=0.03, a0=1e-3))).latex()
    assert r"L(t) = \tfrac12\operatorname{tr}\Sigma^y" in mean and r"\tau = \frac{100}{3}$" in mean


def test_end_points_are_s_over_d_of_the_theory_page():
    """Derivation.end_points against docs/theory.md#xor: a mode ends at a∞ = s/d, so the linear ReLN's
    pathways end at (Δ/2)/(Δ²/2) = 1/Δ and the XoR ReLN's at (√(2+Δ²)/4)/((2+Δ²)/4) = 1/√(2+Δ²);
    at Δ = 1/2 that is 2 and 2/3 exactly."""
    task = tk.xor_margin()
    D = task.symbols["Delta"]
    lin = tk.Derivation(tk.GDLNSpec(task, tk.xor_relns()["linear"])).end_points
    xor = tk.Derivation(tk.GDLNSpec(task, tk.xor_relns()["xor"])).end_points
    assert set(lin) == {"positive", "negative"} and len(xor) == 4
    for Dv in (0.3, 0.8, 2.5):
        for (end,) in lin.values():
            assert float(end.subs(D, Dv)) == pytest.approx(1 / Dv, rel=1e-12)
        for (end,) in xor.values():
            assert float(end.subs(D, Dv)) == pytest.approx(1 / np.sqrt(2 + Dv ** 2), rel=1e-12)
    half = {"Delta": sp.Rational(1, 2)}
    assert tk.Derivation(tk.GDLNSpec(task, tk.xor_relns()["linear"]), values=half).end_points["positive"] == [2]
    assert tk.Derivation(tk.GDLNSpec(task, tk.xor_relns()["xor"]), values=half).end_points["point0"] == \
        [sp.Rational(2, 3)]


def test_summed_loss_scales_the_symbolic_loss_and_the_initial_loss_by_P():
    """docs/theory.md#time-conventions: the summed loss is P times the averaged one. XoR at Δ = 1/2
    (P = 4, labels ±1), the XoR ReLN, summed loss, by hand:

    * initial_loss = ½ Σ_μ y_μ² = ½ · 4 = 2;
    * each of the four pathways has s = √(2 + 1/4)/4 = 3/8 and d = (2 + 1/4)/4 = 9/16, and a(0) = a0, so
      L(0) = 4 · (½ − 4 (3/8 · a0 − ½ · 9/16 · a0²)) = 2 − 6 a0 + 9 a0²/2;
    * at the end points every mode removes s²/(2d) = 1/8, so L(∞) = 4 · (½ − 4/8) = 0.

    The averaged loss of the same spec is a quarter of each."""
    from theorykit.theory.trajectory import a0 as A0, t as T, tau as TAU

    a0 = sp.Symbol("a_0")
    for loss, factor in (("sum", 4), ("mean", 1)):
        spec = tk.GDLNSpec(tk.xor_margin(0.5), tk.xor_relns()["xor"], tk.Training(lr=0.03, loss=loss, a0=1e-3))
        der = tk.Derivation(spec)
        assert der.initial_loss == sp.Rational(factor, 2)
        L0 = sp.expand(der.loss.subs(T, 0)).subs(A0, a0)
        assert sp.expand(L0 - sp.Rational(factor, 4) * (2 - 6 * a0 + sp.Rational(9, 2) * a0 ** 2)) == 0
        late = float(sp.N(der.loss.subs({T: 10 ** 4, TAU: spec.tau, A0: sp.Rational(1, 1000)})))
        assert abs(late) < 1e-12
        got = np.asarray(der.loss_function()(np.array([0.0])))
        assert got[0] == pytest.approx(factor / 4 * (2 - 6e-3 + 4.5e-6), rel=1e-12)


def test_a_depth_three_pathway_is_integrated_not_given_the_depth_two_closed_form():
    """docs/theory.md#deep-modes: three layers, aligned and balanced, obey τ ȧ = 3 a^{4/3} (s − d a), which
    has no closed form here. One pathway on Task(I₂, diag(1, 0)) reading and writing row 0 (P = 2):
    Σyx = Σx = 1/2, so s = d = 1/2 and ½ tr Σy = 1/4, and L(t) = 1/4 − (s a − ½ d a²). The derivation
    must use the race reduction, and its loss must follow SciPy's integration of that ODE (a second
    method); the depth-2 logistic would reach half-way near t = 138 instead of t ≈ 366."""
    from scipy.integrate import solve_ivp

    spec = _deep_spec([3], ys=(1, 0))
    der = tk.Derivation(spec)
    assert der.method == "race-reduction"
    assert any("deeper than two layers" in n for n in der.notes)
    with pytest.raises(DerivationError, match="no closed form"):
        der.loss
    s_ = d_ = 0.5
    tau_ = float(spec.tau)
    assert tau_ == pytest.approx(20.0)
    ts = np.array([0.0, 100.0, 200.0, 300.0, 350.0, 400.0, 600.0])
    sol = solve_ivp(lambda _t, a: 3 * a ** (4 / 3) * (s_ - d_ * a) / tau_, (0.0, ts[-1]), [1e-3], t_eval=ts,
                    rtol=1e-11, atol=1e-14)
    a = sol.y[0]
    want = 0.25 - (s_ * a - d_ * a * a / 2)
    got = der.predict_loss(ts)
    assert np.max(np.abs(got - want)) / want[0] < 1e-7
    assert want[3] > 0.2 and want[-1] < 1e-6          # the comparison spans the drop


def test_reprs_describe_and_latex_title_names_the_task():
    """A newcomer's review: the repr showed method='auto' after the method was known, a RaceSystem's
    repr dumped ~100 lines of arrays, a spec made in Python titled its document "Derivation: spec",
    and an lr given as a numpy float broke the document (repr 'np.float64(0.01)' is no number)."""
    import numpy as np

    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=np.float64(0.01)))
    der = tk.Derivation(spec)
    assert repr(der).endswith("method='auto')")           # not decided yet: a repr computes nothing
    assert der.method == "closed-form" and repr(der).endswith("method='closed-form')")
    r = repr(der.race_system(values={"Delta": 0.5}))
    assert r.startswith("RaceSystem(pathways=['positive', 'negative']") and "\n" not in r and len(r) < 200
    doc = der.latex(document=True)
    assert "Derivation: xor-margin" in doc and "\\tau = 100$" in doc          # τ = 1/η = 1/0.01


def test_results_print_as_latex_in_jupyter_lists_and_dicts_too():
    """The README: everything prints as LaTeX in Jupyter. Lists of singular values and the
    per-pathway dicts (modes, trajectories, t_half, end points) carry ``_repr_latex_`` and stay plain
    lists and dicts otherwise. By hand (docs/theory.md#xor): a single-datapoint pathway of XoR has
    s = √(Δ² + 2)/4 and end point s/d = 1/√(Δ² + 2)."""
    import sympy as sp

    der = tk.Derivation(tk.load_spec("examples/xor_reln.toml"))
    D = sp.Symbol("Delta", nonnegative=True)
    sv = der.modes["point0"].singular_values
    assert isinstance(sv, list) and sv == [sp.sqrt(D ** 2 + 2) / 4] and repr(sv) == "[sqrt(Delta**2 + 2)/4]"
    assert sv._repr_latex_() == r"$\left[ \frac{\sqrt{\Delta^{2} + 2}}{4}\right]$"
    ends = der.end_points
    assert isinstance(ends, dict) and sp.simplify(ends["point3"][0] - 1 / sp.sqrt(D ** 2 + 2)) == 0
    for d in (der.modes, der.trajectories, der.t_half, ends):
        tex = d._repr_latex_()
        assert tex.startswith(r"$\begin{aligned}") and all(rf"\mathrm{{point{i}}}: &" in tex for i in range(4))
