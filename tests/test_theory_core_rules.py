"""Rules of the theory core that a mutation check found untested (trajectory, SVD, effective datasets,
the race, the starts, the unit-gate classifier). Every expected value comes from a hand derivation
written beside it, from docs/theory.md, or from a second method computed here (SciPy, SymPy, Python
integers), never from the code under test."""
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from theorykit.errors import SpecError
from theorykit.theory.trajectory import (deep_mode_rhs, discrete_mode_gap, discrete_mode_recurrence,
                                         mode_loss_reduction, t_half, t_half_float)


# ------------------------------------------------------------------------------------------------
# trajectory: half-way times, deep modes, the mode's loss term
# ------------------------------------------------------------------------------------------------
def _deep_half_time_by_ode(s, d, a0, tau, L):
    """Second method: integrate docs/theory.md#deep-modes, τ da/dt = L a^{2−2/L}(s − d a), until
    a = s/(2d) (an event of solve_ivp), written here without theorykit."""
    half = s / (2 * d)

    def rhs(_t, y):
        return [L * y[0] ** (2 - 2 / L) * (s - d * y[0]) / tau]

    def reach(_t, y):
        return y[0] - half
    reach.terminal, reach.direction = True, 1
    sol = solve_ivp(rhs, (0, 1e7), [a0], events=reach, rtol=1e-11, atol=1e-14, method="LSODA")
    return float(sol.t_events[0][0])


def test_t_half_two_layers_in_floats_and_symbols_is_the_hand_formula():
    # docs/theory.md#closed-form: t½ = τ/(2s) ln(s/(d a0) − 1); s = 0.5, d = 0.25, a0 = 0.01, τ = 20:
    # 20/1 · ln(0.5/0.0025 − 1) = 20 ln 199
    want = 20 * np.log(199.0)
    assert t_half_float(0.5, 0.25, 0.01, 20.0) == pytest.approx(want, rel=1e-13)
    assert float(t_half(0.5, 0.25, 0.01, 20)) == pytest.approx(want, rel=1e-13)


@pytest.mark.parametrize("L", [3, 4])
def test_t_half_of_a_deep_mode_is_where_the_deep_ode_reaches_half(L):
    s, d, a0, tau = 2.0, 0.5, 0.01, 10.0
    want = _deep_half_time_by_ode(s, d, a0, tau, L)
    assert float(sp.N(t_half(sp.Float(s), sp.Float(d), sp.Float(a0), sp.Float(tau), depth=L), 20)) == \
        pytest.approx(want, rel=1e-6)
    assert t_half_float(s, d, a0, tau, depth=L) == pytest.approx(want, rel=1e-6)


def test_t_half_refuses_a_start_exactly_at_half_the_end_point():
    # s/(2d) = 2/(2·1) = 1: a mode started at 1 is at half its end point already (no time ahead)
    with pytest.raises(SpecError) as e:
        t_half(2, 1, 1)
    assert e.value.field == "a_init"


def test_deep_mode_rhs_by_hand():
    # L a^{2−2/L}(s − d a): L = 3, a = 8, s = 2, d = 0.1 → 3 · 8^{4/3} · (2 − 0.8) = 3 · 16 · 1.2 = 57.6
    assert deep_mode_rhs(8.0, 2.0, 0.1, 3) == pytest.approx(57.6, rel=1e-14)
    # L = 2 is the mode ODE's 2a(s − d a): a = 0.5, s = 1, d = 1 → 2 · 0.5 · 0.5 = 0.5
    assert deep_mode_rhs(0.5, 1.0, 1.0, 2) == pytest.approx(0.5, rel=1e-14)
    # L = 4, a = 16: 4 · 16^{3/2} · (1 − 0.5·16·(1/16)) = 4 · 64 · 0.5 = 128 (s = 1, d = 1/32)
    assert deep_mode_rhs(16.0, 1.0, 1 / 32, 4) == pytest.approx(128.0, rel=1e-14)


def test_mode_loss_reduction_by_hand_and_at_the_end_point():
    # s a − ½ d a²: s = 3, d = 2, a = 1 → 3 − 1 = 2; at a = s/d it is s²/(2d) (docs/theory.md#mode-loss)
    assert mode_loss_reduction(3, 2, 1) == 2
    sv, dv = sp.Rational(3), sp.Rational(2)
    assert sp.simplify(mode_loss_reduction(sv, dv, sv / dv) - sv ** 2 / (2 * dv)) == 0


def test_discrete_mode_without_input_variance_has_no_end_point():
    # d = 0 forces s = 0 (no input along the mode, so no correlation): a never moves, and the gap to an
    # end point s/d does not exist (inf), as XoR's linear ReLN at Δ = 0 has it
    a = discrete_mode_recurrence(0.0, 0.0, 1e-3, 20.0, 5)
    g = discrete_mode_gap(0.0, 0.0, 1e-3, 20.0, 5)
    assert np.all(a == 1e-3) and np.all(np.isinf(g))


# ------------------------------------------------------------------------------------------------
# effective datasets (docs/theory.md#effective-datasets): Σyx_p = ⟨g_p y xᵀ⟩, Σx_qp = ⟨g_q g_p x xᵀ⟩
# ------------------------------------------------------------------------------------------------
from theorykit.spec.gating import Pathway  # noqa: E402
from theorykit.spec.task import Task  # noqa: E402
from theorykit.theory.effective import (couplings, effective_dataset, input_correlation,  # noqa: E402
                                        output_correlation, output_trace)

_K = sp.Symbol("k")


def _small_task(symbolic: bool, cx=1, cy=1):
    """X = cx [[1, 2, 3], [5, 1, −1]], Y = cy [[1, y₂, 2]] with y₂ = 0 (rational) or the symbol k."""
    return Task(cx * sp.Matrix([[1, 2, 3], [5, 1, -1]]), cy * sp.Matrix([[1, _K if symbolic else 0, 2]]),
                {"k": _K} if symbolic else {})


@pytest.mark.parametrize("symbolic", [False, True])
@pytest.mark.parametrize("cx, cy", [(1, 1), (sp.Rational(1, 2), sp.Rational(1, 3))])
def test_effective_dataset_of_a_gated_pathway_by_hand(symbolic, cx, cy):
    # gates (1, 0, 1): datapoints 0 and 2, x = (1, 5) and (3, −1), y = 1 and 2, P = 3 (an off
    # datapoint still counts in the average, and its target, k or 0, never enters):
    # Σyx = ⅓[1·(1, 5) + 2·(3, −1)] = ⅓(7, 3);  Σx = ⅓[(1,5)(1,5)ᵀ + (3,−1)(3,−1)ᵀ] = ⅓[[10, 2], [2, 26]].
    # Scaling X by cx and Y by cy scales Σyx by cx·cy and Σx by cx² (rationals: the exact route's
    # common denominators, 2 and 3, enter both)
    eff = effective_dataset(_small_task(symbolic, cx, cy), Pathway("p", (1, 0, 1), "all", "all"))
    assert eff.Syx == cx * cy * sp.Matrix([[sp.Rational(7, 3), 1]])
    assert eff.Sx == cx ** 2 * sp.Matrix([[sp.Rational(10, 3), sp.Rational(2, 3)], [sp.Rational(2, 3), sp.Rational(26, 3)]])


def test_output_trace_by_hand():
    # tr Σy = ⟨‖y‖²⟩ = (1 + y₂² + 4)/3: 5/3 for y₂ = 0, (5 + k²)/3 for the symbol; Y/3: 5/27
    assert output_trace(_small_task(False)) == sp.Rational(5, 3)
    assert output_trace(_small_task(False, cy=sp.Rational(1, 3))) == sp.Rational(5, 27)
    assert sp.expand(output_trace(_small_task(True)) - (5 + _K ** 2) / 3) == 0


def test_input_and_output_correlations_by_hand():
    task = Task(sp.Matrix([[1, 2, 3], [5, 1, -1]]), sp.Matrix([[1, 0, 2], [1, 1, 1]]))
    q = Pathway("q", (1, 1, 0), (0,), "all")
    p = Pathway("p", (0, 1, 1), (1,), "all")
    # on together only at datapoint 1: Σx_qp = ⅓ · x₀[1] · x₁[1] = ⅓ · 2 · 1
    assert input_correlation(task, q, p) == sp.Matrix([[sp.Rational(2, 3)]])
    # and the other way round: ⅓ · x₁[1] · x₀[1], the same number
    assert input_correlation(task, p, q) == sp.Matrix([[sp.Rational(2, 3)]])
    # Σy = ⅓ Σ y yᵀ: ⅓[[1 + 0 + 4, 1 + 0 + 2], [3, 1 + 1 + 1]]
    assert output_correlation(task) == sp.Matrix([[sp.Rational(5, 3), 1], [1, 1]])


def test_exact_effective_dataset_and_trace_with_entries_past_int64():
    # entries 2³⁵ + 1: their products (~2⁷⁰) overflow int64, so the exact route must use Python integers.
    # The expected values are Python integer arithmetic: X = [[b, 1], [1, b]], Y = [[b, b]], P = 2.
    b = 2 ** 35 + 1
    task = Task(sp.Matrix([[b, 1], [1, b]]), sp.Matrix([[b, b]]))
    eff = effective_dataset(task, Pathway("p", (1, 1), "all", "all"))
    assert eff.Sx == sp.Matrix([[sp.Rational(b * b + 1, 2), b], [b, sp.Rational(b * b + 1, 2)]])
    assert eff.Syx == sp.Matrix([[sp.Rational(b * b + b, 2), sp.Rational(b * b + b, 2)]])
    assert output_trace(task) == b * b


# ------------------------------------------------------------------------------------------------
# the exact SVD's conventions (svd.py docstring): descending singular values, first non-zero of v > 0
# ------------------------------------------------------------------------------------------------
from theorykit.theory.svd import exact_svd  # noqa: E402

_A = sp.Symbol("a", positive=True)


def test_symbolic_svd_of_separate_blocks_is_in_descending_order():
    # diag(a, 2a), a > 0: two 1 × 1 blocks found in row order (a first); the SVD lists 2a, then a
    svd = exact_svd(sp.Matrix([[_A, 0], [0, 2 * _A]]))
    assert [sp.simplify(x) for x in svd.singular_values] == [2 * _A, _A]


@pytest.mark.parametrize("M", [
    sp.Matrix([[-_A, 0], [0, 2 * _A]]),            # a row block and a column block with a negative entry
    sp.Matrix([[0, -_A, -1]]),                      # one row: v = (0, −a, −1)/√(a² + 1) before the sign fix
    sp.Matrix([[-_A], [2]]),                        # one column: v = (1), u = (−a, 2)/√(a² + 4)
    sp.Matrix([[-_A, -1], [-1, -2 * _A]]),         # a full symbolic 2 × 2 block (Gram route)
])
def test_symbolic_svd_has_positive_first_entry_of_each_v_and_rebuilds_the_matrix(M):
    svd = exact_svd(M)
    # a symbolic entry's sign may depend on a: the convention holds at the SVD's reference values
    for m in svd.modes:
        v = [complex(sp.N(x.subs(svd.reference))).real for x in m.v]
        first = next(x for x in v if abs(x) > 1e-12)
        assert first > 0, v
    ref = {_A: sp.Rational(7, 5)}
    # U S Vᵀ = M at a = 7/5 (numbers: the rebuild checks u and v were flipped together)
    num = np.array(sp.N(svd.reconstruct().subs(ref)), dtype=float)
    assert np.allclose(num, np.array(M.subs(ref), dtype=float), atol=1e-12)


def test_exact_svd_reads_floats_as_the_decimals_they_print_as():
    # [[0.5, 0.2], [0.1, 0.3]] is read as [[1/2, 1/5], [1/10, 3/10]] (as a spec file's numbers). By hand:
    # MᵀM = [[13/50, 13/100], [13/100, 13/100]], trace 39/100, det (det M)² = (3/20 − 1/50)² = (13/100)²,
    # so σ² = (39 ± √(39² − 4·13²))/200 = (39 ± 13√5)/200 and σ = (√65 ± √13)/20 (as √σ² squares check)
    svd = exact_svd(sp.Matrix([[0.5, 0.2], [0.1, 0.3]]))
    want = [(sp.sqrt(65) + sp.sqrt(13)) / 20, (sp.sqrt(65) - sp.sqrt(13)) / 20]
    assert [sp.simplify(a - b) for a, b in zip(svd.singular_values, want)] == [0, 0]
    assert [sp.expand(w ** 2) for w in want] == [sp.Rational(39, 200) + 13 * sp.sqrt(5) / 200,
                                                  sp.Rational(39, 200) - 13 * sp.sqrt(5) / 200]
    assert exact_svd(np.array([[0.1, 0.0], [0.0, 0.25]])).singular_values == [sp.Rational(1, 4), sp.Rational(1, 10)]
    with pytest.raises(SpecError) as e:                 # digits beyond a double would be guessed
        exact_svd(sp.Matrix([[sp.Float("0.1", 40)]]))
    assert e.value.field == "M"


# ------------------------------------------------------------------------------------------------
# the unit-gate classifier (gates.py): ties, one block, dead units, non-binary patterns
# ------------------------------------------------------------------------------------------------
from theorykit.theory.gates import UnitGates, is_staircase, layer_activity, significant, tally, unit_gates  # noqa: E402


def test_a_zero_pre_activation_is_off():
    # ReLU(0) = 0: a unit at zero passes nothing (its gate is off), with or without a tolerance; a
    # silent unit (all zero) is off everywhere rather than "on" by a tie with tol · max|pre| = 0
    assert unit_gates([[0.0, 1.0, -1.0]]).tolist() == [[False, True, False]]
    assert unit_gates([[0.0, 0.0]], tol=0.1).tolist() == [[False, False]]
    # tol · max = 0.5 · 1: a pre-activation equal to it does not exceed it
    assert unit_gates([[1.0, 0.5, 0.6]], tol=0.5).tolist() == [[True, False, True]]


def test_significant_means_strictly_above_the_threshold():
    # 0.5 × max = 0.5: the unit of weight 0.5 sits on the threshold and does not exceed it
    assert significant([1.0, 0.5, 0.6], 0.5).tolist() == [True, False, True]


def test_one_block_units_are_common_and_agree_with_their_labels():
    # blocks = 1: a unit on for every datapoint is on in every block (common), as labels() says
    ug = UnitGates(np.array([[1, 1], [0, 0]], bool), blocks=1)
    assert ug.classes.tolist() == ["common", "silent"]
    assert ug.labels().tolist() == ["common", ""]


def test_tally_shares_of_a_weightless_total_are_zero():
    # the docstring: an empty or weightless total gives shares of 0 (not 0/0)
    out = tally({"x": np.array([[True, False]])}, np.array([[0.0, 0.0]]))
    assert out["x"].tolist() == [0.0]
    pooled = tally({"x": np.array([True, False])}, where=np.array([False, False]), pooled=True)
    assert pooled == {"x": 0.0}


def test_layer_activity_counts_all_on_units_among_live_ones():
    # X = I₂ (2 datapoints, 1 block). First-layer rows: (1, 1) on for both, (1, −1) on for one,
    # (−1, −1) dead. Live units: 2, of which 1 is on for all: share ½ (a dead unit is not counted).
    X = np.eye(2)
    W1 = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]])
    W2 = np.array([[1.0, 1.0, 1.0]])
    W3 = np.array([[1.0]])
    a = layer_activity([W1, W2, W3], X, blocks=1)
    assert a["first_all_on_units"] == 0.5


def test_staircase_refuses_non_binary_patterns():
    with pytest.raises(SpecError) as e:
        is_staircase(np.array([[1, 2], [0, 1]]))
    assert e.value.field == "pattern"


# ------------------------------------------------------------------------------------------------
# starts: the a0 rule (docs/theory.md#a0-rule) by hand
# ------------------------------------------------------------------------------------------------
from theorykit.net.starts import a0_rule  # noqa: E402


def test_a0_rule_by_hand():
    # L = 2: ¼(σ₁² n₁ + σ₂² n₂) = ¼(0.01 · 50 + 0.04 · 20) = ¼ · 1.3 = 0.325
    assert a0_rule([0.1, 0.2], [50, 20]) == pytest.approx(0.325, rel=1e-14)
    # one σ and one H with no depth: two layers, σ²H/2 = 0.01 · 50 / 2 = 0.25
    assert a0_rule(0.1, 50) == pytest.approx(0.25, rel=1e-14)
    # L = 3: Π σ_l √(n_l/2) = (0.1 · √4)(0.2 · √9)(0.5 · √1) = 0.2 · 0.6 · 0.5 = 0.06
    assert a0_rule([0.1, 0.2, 0.5], [8, 18, 2]) == pytest.approx(0.06, rel=1e-14)


# ------------------------------------------------------------------------------------------------
# the race: pathways of mixed depths in one system (the depth groups are stacked and unstacked)
# ------------------------------------------------------------------------------------------------
from theorykit.theory.race import RaceSystem  # noqa: E402


def _mode_by_ode(s, d, a0, tau, L, times):
    """Second method: solve_ivp on τ da/dt = L a^{2−2/L}(s − d a) (docs/theory.md#deep-modes)."""
    sol = solve_ivp(lambda _t, y: [L * y[0] ** (2 - 2 / L) * (s - d * y[0]) / tau], (0, times[-1]), [a0],
                    t_eval=times, rtol=1e-11, atol=1e-14, method="LSODA")
    return sol.y[0]


def test_race_of_pathways_of_mixed_depths_keeps_each_pathway_its_own_mode():
    # X = I₃ (P = 3), Y = 3 diag(1, 0.8, 0.6); pathway k writes output row k only, so nothing couples:
    # Σyx_k = ⅓ Y[k] Xᵀ = s_k e_kᵀ (s = 1, 0.8, 0.6), Σx = ⅓ I (d = ⅓), and each pathway's one mode
    # follows its own mode ODE of its own depth (3, 3, 2), from a0. Depth groups {2: [2], 3: [0, 1]}
    # are stacked in the order (2, 0, 1), which is not its own inverse.
    s, d, a0, tau = (1.0, 0.8, 0.6), 1 / 3, 0.01, 10.0
    X, Y = np.eye(3), 3 * np.diag(s)
    system = RaceSystem.from_data(X, Y, np.ones((3, 3)), outputs=[[0], [1], [2]], depth=(3, 3, 2),
                                  names=["a", "b", "c"])
    times = np.linspace(0.0, 60.0, 13)
    traj = system.solve(list(times), tau=tau, a0=a0)
    want_loss = np.full(len(times), 0.5 * np.sum(Y * Y) / 3)       # ½ tr Σy = ½(1 + 0.64 + 0.36) · 3
    for name, s_k, L in zip("abc", s, (3, 3, 2)):
        a = _mode_by_ode(s_k, d, a0, tau, L, times)
        np.testing.assert_allclose(traj.saved["modes"][name][0, :, 0], a, rtol=1e-6, atol=1e-10)
        want_loss -= s_k * a - 0.5 * d * a ** 2                     # docs/theory.md#mode-loss
    np.testing.assert_allclose(traj.loss[0], want_loss, rtol=1e-6, atol=1e-10)


def test_race_with_a_zero_strength_pathway_keeps_it_at_zero():
    # a0 per pathway may hold 0 (a masked pathway, solve's docstring): that pathway's map is 0 and stays
    # 0 (no gradient reaches a zero factorisation), and the other one follows its closed form
    # (docs/theory.md#closed-form): uncoupled, as they write different outputs. X = I₂ (P = 2),
    # Y = 2 diag(1, ½): Σyx_a = ½ Y[0] Xᵀ = (1, 0), so s = 1; Σx = ½ I, so d = ½ and s/d = 2
    X, Y = np.eye(2), 2 * np.diag([1.0, 0.5])
    system = RaceSystem.from_data(X, Y, np.ones((2, 2)), outputs=[[0], [1]], names=["a", "b"])
    times = np.array([0.0, 10.0, 30.0])
    traj = system.solve(list(times), tau=10.0, a0=[0.01, 0.0])
    a = 2.0 / (1 + (1 / (0.5 * 0.01) - 1) * np.exp(-2 * times / 10.0))
    np.testing.assert_allclose(traj.saved["modes"]["a"][0, :, 0], a, rtol=1e-7)
    assert np.all(traj.saved["modes"]["b"][0] == 0.0)


def test_race_of_pathways_on_one_input_writing_different_outputs_does_not_couple():
    # docs/theory.md#race: pathways couple only where they share outputs. X = [[1, 1]] (P = 2), Y =
    # [[2, 2], [1, 1]]; pathway a writes row 0, b row 1, both read the one input on both datapoints:
    # Σyx_a = 2, Σyx_b = 1, Σx = 1 (d = 1). Each follows its own closed form (s = 2 and 1), and the
    # loss is ½ tr Σy − Σ (s a − ½ d a²) with ½ tr Σy = ½ (4 + 4 + 1 + 1)/2 = 2.5
    X, Y = np.array([[1.0, 1.0]]), np.array([[2.0, 2.0], [1.0, 1.0]])
    system = RaceSystem.from_data(X, Y, np.ones((2, 2)), outputs=[[0], [1]], names=["a", "b"])
    times = np.array([0.0, 5.0, 10.0, 20.0, 40.0])
    a0, tau = 0.01, 10.0
    traj = system.solve(list(times), tau=tau, a0=a0)
    loss = np.full(len(times), 2.5)
    for name, s_ in (("a", 2.0), ("b", 1.0)):
        a = s_ / (1 + (s_ / a0 - 1) * np.exp(-2 * s_ * times / tau))
        np.testing.assert_allclose(traj.saved["modes"][name][0, :, 0], a, rtol=1e-7)
        loss -= s_ * a - 0.5 * a ** 2
    np.testing.assert_allclose(traj.loss[0], loss, rtol=1e-7, atol=1e-9)     # the integrator: ~1e-10


def test_race_loss_keeps_its_digits_far_below_the_start():
    # XoR with margin at Δ = 1/2, its four single-datapoint pathways: uncoupled, so each mode follows
    # the closed form, and the loss is ½ d Σ g² with the gap g = s/d − a (docs/theory.md#mode-loss),
    # written here with numpy: s = |x|/4, d = |x|²/4, |x|² = 2 + Δ². At t = 800 it is ~2e-21 of L(0);
    # the race records the residual on the data, so RK4 at a fixed step follows it there (the form
    # ½ tr Σy − ⟨M, Σyx⟩ + ½⟨M, M Σx⟩ came out as rounding noise near 1e-17, negative at times)
    from theorykit.theory.flow import RK4
    import theorykit as tk
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.05, a0=1e-3))
    times = np.array([0.0, 200.0, 400.0, 600.0, 800.0])
    traj = RaceSystem.from_spec(spec, {"Delta": 0.5}).solve(list(times), solver=RK4(0.5))
    n2 = 2 + 0.25
    s_, d_, a0, tau = np.sqrt(n2) / 4, n2 / 4, 1e-3, 20.0
    c = s_ / (d_ * a0) - 1
    e = c * np.exp(-2 * s_ * times / tau)
    g = (s_ / d_) * e / (1 + e)
    want = 4 * 0.5 * d_ * g ** 2                    # four equal modes; nothing is left unfit (L* = 0)
    assert want[-1] < 1e-20 * want[0]
    np.testing.assert_allclose(traj.loss[0], want, rtol=1e-4)     # RK4 at h = τ/40: its rate errs by ~1e-6
    # to t = 600, RK4's truncation bounds the error: on the tail g ∝ e^{−λt}, λ = 2s/τ = 0.0375, one step
    # of h = 0.5 multiplies g by 1 − λh + (λh)²/2 − (λh)³/6 + (λh)⁴/24, off e^{−λh} by (λh)⁵/120 ≈ 1.9e-11
    # relative; 1200 steps give ≤ 2.3e-8 in g, ≤ 4.6e-8 in L ∝ g². (At t = 800, g ≈ 6e-11·s/d: rounding
    # of the state at ~1e-16 is ~1e-6 of g per ulp, and the 1e-4 above is what holds there.) A 1-ppm
    # error in the time scale τ would move L(600) by 2λ·600·1e-6 ≈ 4.5e-5: caught here, not above.
    np.testing.assert_allclose(traj.loss[0][:4], want[:4], rtol=1e-7, atol=0)


def _race_start_maps(system, a0):
    """Each pathway's start map in the data's own coordinates, from the race's block factors:
    Σ_b O_b (W2 W1)_b R_bᵀ (two-layer pathways)."""
    (W1, W2), = system.start(a0)
    M = np.einsum("bkor,bkri->bkoi", np.asarray(W2), np.asarray(W1))
    A = system.arrays_np
    return np.einsum("bpo,bkoi,bdi->kpd", A["Ob"], M, A["Rb"])


@pytest.mark.parametrize("scale", [1.0, 1e-12])
def test_race_aligned_start_is_a0_on_each_mode_of_sigma_yx_and_nothing_else(scale):
    # docs/theory.md#race: the aligned start of pathway k is a0 U_k V_kᵀ, the partial isometry of Σyx_k
    # scaled by a0: its singular values are a0, as many as Σyx_k's rank, and 0 beyond. The rank comes
    # from numpy's SVD of Σyx_k = Y diag(g_k) Xᵀ / P computed here (relative cutoff 1e-9; the data are
    # small integers or normals, so a true singular value is never below that). Rotating Σyx into the
    # race's blocks leaves rounding noise (~1e-17 against 0.3) that must not become a mode; and data
    # scaled by 1e-12 have the same ranks (a cutoff in absolute terms would drop every mode).
    rng = np.random.default_rng(0)
    a0, checked, noisy = 1e-3, 0, 0
    for trial in range(120):
        P, d, p = int(rng.integers(4, 9)), int(rng.integers(2, 6)), int(rng.integers(1, 4))
        X = rng.choice([-1.0, 0.0, 1.0], (d, P)) if trial % 2 else rng.normal(size=(d, P))
        Y = scale * (rng.choice([-1.0, 0.0, 1.0], (p, P)) if trial % 3 else rng.normal(size=(p, P)))
        G = rng.integers(0, 2, (int(rng.integers(1, 4)), P)).astype(float)
        G[:, 0] = 1
        Syx = np.einsum("ap,kp,ip->kai", Y, G, X) / P
        if not all(np.abs(S).max() > 0 for S in Syx):
            continue
        system = RaceSystem.from_data(X, Y, G)
        maps = _race_start_maps(system, a0)
        for S, M in zip(Syx, maps):
            sv = np.linalg.svd(S, compute_uv=False)
            rank = int(np.sum(sv > 1e-9 * sv[0]))
            got = np.linalg.svd(M, compute_uv=False)
            np.testing.assert_allclose(got[:rank], a0, rtol=1e-9)
            assert np.all(got[rank:] < 1e-12 * a0), (trial, sv, got)
        A = system.arrays_np
        noisy += any(0 < x < 1e-9 * np.abs(A["Syx"]).max()
                     for x in np.linalg.svd(A["Syx"], compute_uv=False).ravel())
        checked += 1
    assert checked > 80 and noisy > 10       # the cases with block noise are really there


# ------------------------------------------------------------------------------------------------
# starts: the aligned starts (net/starts.py) read back from their weights with numpy
# ------------------------------------------------------------------------------------------------
def _mixed_depth_graph(Y):
    """input → h → output (depth 2) and input → h → a → output (depth 3), on X = I₃."""
    from theorykit.spec.files import spec_from_dict
    return spec_from_dict({
        "name": "mixed", "data": {"inputs": np.eye(3).tolist(), "targets": np.asarray(Y).tolist()},
        "nodes": [{"name": "h", "width": 3}, {"name": "a", "width": 3}],
        "edges": [{"from": "input", "to": "h"}, {"from": "h", "to": "output"},
                  {"from": "h", "to": "a"}, {"from": "a", "to": "output"}],
        "training": {"lr": 0.05, "loss": "mean", "a0": 1e-2, "steps": 10},
    })


def test_shared_edge_aligned_start_of_paths_of_two_depths_has_mean_strength_a0_and_the_tasks_rank():
    # Y = [[1, 2, 3], [2, 4, 6]] on X = I₃: Σyx = Y/3 has rank 1. The aligned start (aligned_params'
    # docstring) gives every path a map c0^L Π c_e · (a rank-r partial isometry), r = rank Σyx = 1, with the
    # mean path strength a0: here the two paths' top singular values (numpy's SVD of the products of
    # their edges) average to a0 = 0.01, and neither map has a second singular value.
    from theorykit.net.starts import aligned_params
    g = _mixed_depth_graph([[1, 2, 3], [2, 4, 6]])
    W = {k: np.asarray(v[0]) for k, v in aligned_params(g, 1e-2).items()}
    short = W["h->output"] @ W["input->h"]
    deep = W["a->output"] @ W["h->a"] @ W["input->h"]
    sv = [np.linalg.svd(M, compute_uv=False) for M in (short, deep)]
    assert np.mean([s[0] for s in sv]) == pytest.approx(1e-2, rel=1e-9)
    assert all(s[1] < 1e-12 * s[0] for s in sv)
    # c_e ∝ √(paths through e): input→h carries both paths (√2), the rest one, so the strengths are
    # √2 c0² and √2 c0³ (c0 the common factor): their ratio is c0, and their mean a0
    c0 = sv[1][0] / sv[0][0]
    assert np.sqrt(2) * (c0 ** 2 + c0 ** 3) / 2 == pytest.approx(1e-2, rel=1e-9)


@pytest.mark.parametrize("scale", [1, sp.Rational(1, 10 ** 12)])
def test_private_chain_as_wide_as_its_rank_gets_an_aligned_start(scale):
    # Σyx = diag(2/3, 1/3) on the first two inputs has rank 2; a pathway of 2 hidden units holds it
    # (hidden = rank), and its map is a0 U Vᵀ = a0 [[1, 0, 0], [0, 1, 0]] (as test_depth's depth-3 case).
    # Targets scaled by 1e-12 have the same singular vectors, so the same start (an absolute rank
    # cutoff of 1e-12 gave them none)
    import theorykit as tk
    from theorykit.net.starts import aligned_params
    from theorykit.spec.graph import graph_from_pathways

    task = tk.Task(sp.eye(3), scale * sp.Matrix([[2, 0, 0], [0, 1, 0]]))
    spec = tk.GDLNSpec(task, [tk.Pathway("p", "all", "all", "all", 2, 2)], tk.Training(a0=1e-3))
    k1, k2 = graph_from_pathways(spec).pathways[0].edges
    W = aligned_params(spec, 1e-3)
    np.testing.assert_allclose(np.asarray(W[k2][0]) @ np.asarray(W[k1][0]),
                               1e-3 * np.array([[1.0, 0, 0], [0, 1.0, 0]]), rtol=0, atol=1e-15)


def test_numeric_correlation_and_its_rank_by_hand():
    """linalg.correlation is Σyx = Y diag(g) Xᵀ / P and correlation_rank the rank of the full Σyx, which
    the shared-edge aligned start (net.starts) and the graph race (RaceSystem.from_graph) both read.
    By hand: X = I₃, Y = [[1, 2, 3], [2, 4, 6]]: Σyx = Y/3 (rows proportional: rank 1); gate (1, 0, 1):
    Σyx = [[1, 0, 3], [2, 0, 6]]/3. Y = [[1, 0, 0], [0, 1e-12, 0]]: s = (1/3, 1e-12/3), ratio 1e-12
    below the relative tolerance 1e-9: rank 1; with 1e-6 in place of 1e-12: rank 2."""
    from theorykit.linalg import correlation, correlation_rank

    X, Y = np.eye(3), np.array([[1.0, 2, 3], [2, 4, 6]])
    np.testing.assert_allclose(correlation(X, Y), Y / 3, rtol=0, atol=1e-15)
    np.testing.assert_allclose(correlation(X, Y, [1, 0, 1]), np.array([[1.0, 0, 3], [2, 0, 6]]) / 3, rtol=0, atol=1e-15)
    assert correlation_rank(X, Y) == 1
    assert correlation_rank(X, np.array([[1.0, 0, 0], [0, 1e-12, 0]])) == 1
    assert correlation_rank(X, np.array([[1.0, 0, 0], [0, 1e-6, 0]])) == 2
    assert correlation_rank(X, np.zeros((2, 3))) == 1          # at least 1: a zero task still gets one frame
