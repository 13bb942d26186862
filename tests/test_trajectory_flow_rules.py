"""Rules of the mode trajectory, the flow integrator and the effective datasets that a mutation check of
theorykit/theory/trajectory.py, flow.py and effective.py found untested. Every expected value comes
from a hand derivation written beside it, from a published table (Dormand–Prince, Hairer, Nørsett &
Wanner, Table II.5.2, by its order conditions in Python fractions), or from a second method computed
here, never from the code under test."""
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from theorykit.errors import SpecError
from theorykit.record import SaveAt
from theorykit.spec.gating import Pathway
from theorykit.spec.task import Task
from theorykit.theory import flow
from theorykit.theory.effective import effective_dataset, exact_parts
from theorykit.theory.flow import RK4, integrate


# ------------------------------------------------------------------------------------------------
# flow: the solvers' own rules
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("h", [0.0, -0.1])
def test_rk4_refuses_a_step_that_is_not_positive_by_naming_the_solver(h):
    # RK4's docstring: h is the largest step, a positive time; h = 0 is refused as the solver's
    # fault (not as a time scale out of proportion, "training.lr", which is about the data)
    with pytest.raises(SpecError) as e:
        integrate(lambda y, a: -y, np.ones((1, 1)), None, solver=RK4(h), save=SaveAt(ts=[1.0]))
    assert e.value.field == "solver"




def test_rk4_cuts_each_interval_into_equal_steps_and_reports_the_largest():
    # RK4's docstring: each interval between recording times is cut into ceil(length/h) steps. ts =
    # (0, 1, 1.25, 1.3) with h = 0.1: the empty interval [0, 0] takes none, [0, 1] takes 10 steps of
    # 0.1, [1, 1.25] takes ceil(2.5) = 3 of 0.25/3, [1.25, 1.3] one of 0.05; the largest step is 0.1
    # and the flow is e^(−t)
    fl = integrate(lambda y, a: -y, np.ones((1, 1)), None, solver=RK4(0.1),
                   save=SaveAt(ts=[0.0, 1.0, 1.25, 1.3], fns={"y": lambda y, a: y}))
    assert fl.extra["steps"] == 14 and fl.extra["h"] == pytest.approx(0.1, rel=1e-15)
    # RK4's global error at h = 0.1 is ~h⁴/120 ≈ 1e-6 relative (hence the tolerance against e^(−t))
    np.testing.assert_allclose(fl.saved["y"][0, :, 0], np.exp(-np.array([0.0, 1.0, 1.25, 1.3])), rtol=1e-5)
    # That tolerance cannot tell equal steps from unequal ones, nor a step taken in float32. A second
    # method, exact to rounding: on y' = −y one RK4 step of size dt multiplies y by its stability
    # polynomial R(−dt), R(z) = 1 + z + z²/2 + z³/6 + z⁴/24 (the Taylor polynomial of e^z, the same for
    # every 4-stage 4th-order method), so the recorded values are R(−0.1)¹⁰, then × R(−0.25/3)³, then
    # × R(−0.05). Rounding only: 14 steps of a few ulp each, so rtol 1e-14 (measured 4.5e-16, CPU).
    R = lambda z: 1 + z + z ** 2 / 2 + z ** 3 / 6 + z ** 4 / 24  # noqa: E731
    y1 = R(-0.1) ** 10
    y2 = y1 * R(-0.25 / 3) ** 3
    np.testing.assert_allclose(fl.saved["y"][0, :, 0], [1.0, y1, y2, y2 * R(-0.05)], rtol=1e-14, atol=0)
    assert fl.saved["y"][0, 0, 0] == 1.0                        # no step before t = 0

@pytest.mark.parametrize("solver", [flow.Dopri5(rtol=0.0), flow.Dopri5(atol=-1e-12), flow.Dopri5(h_max=0.0),
                                    flow.Dopri5(max_steps=0)])
def test_dopri5_refuses_settings_outside_its_documented_ranges_by_naming_the_solver(solver):
    # the rule in _integrate_dopri5: rtol > 0, atol >= 0, h_max > 0, max_steps >= 1
    with pytest.raises(SpecError) as e:
        integrate(lambda y, a: -y, np.ones((1, 1)), None, solver=solver, save=SaveAt(ts=[1.0]))
    assert e.value.field == "solver"



def test_dopri5_takes_a_zero_absolute_tolerance():
    # atol >= 0 (a pure relative tolerance is allowed); dy/dt = −y from 1: e^(−1) at t = 1, to well
    # within rtol = 1e-8 (the local error control keeps the global error near that size)
    fl = integrate(lambda y, a: -y, np.ones((1, 1)), None, solver=flow.Dopri5(atol=0.0),
                   save=SaveAt(ts=[1.0], fns={"y": lambda y, a: y}))
    assert fl.saved["y"][0, -1, 0] == pytest.approx(np.exp(-1.0), rel=1e-6)

def test_the_step_budget_allows_exactly_max_flow_steps_and_refuses_one_more():
    # integrate's docstring: a flow longer than MAX_FLOW_STEPS steps of 1/(40·rate) is refused. With
    # rate = 1/40 the step is 1 (exact in binary), so t = MAX_FLOW_STEPS is the last time allowed
    rate, n = 1 / 40, flow.MAX_FLOW_STEPS
    ok = integrate(lambda y, a: 0 * y, np.ones((1, 1)), None, solver=flow.Dopri5(), rate=rate,
                   save=SaveAt(ts=[n], fns={"y": lambda y, a: y}))
    assert ok.saved["y"][0, -1, 0] == 1.0                       # dy/dt = 0: y stays 1
    with pytest.raises(SpecError) as e:
        integrate(lambda y, a: 0 * y, np.ones((1, 1)), None, solver=flow.Dopri5(), rate=rate,
                  save=SaveAt(ts=[n + 1]))
    assert e.value.field == "training.lr"

def test_dormand_prince_tableau_meets_its_order_conditions():
    # Hairer, Nørsett & Wanner II.5: the rows of A sum to c; the 5th-order weights b (the last row
    # of A: "first same as last") meet Σ b c^(k−1) = 1/k for k = 1..5 and Σ b A c = 1/6; the
    # embedded 4th-order weights b̂ = b − e meet Σ b̂ c^(k−1) = 1/k for k = 1..4; c_7 = 1, b_7 = 0.
    F = lambda x: Fraction(x).limit_denominator(10 ** 7)             # noqa: E731  (the tableau's fractions)
    A = [[F(v) for v in row] + [Fraction(0)] * (7 - len(row)) for row in flow._DP_A]
    c, b, e = [F(v) for v in flow._DP_C], [F(v) for v in flow._DP_B], [F(v) for v in flow._DP_E]
    for i in range(7):
        assert sum(A[i]) == c[i]
    assert b == A[6] and b[6] == 0 and c[6] == 1
    for k in range(1, 6):
        assert sum(bi * ci ** (k - 1) for bi, ci in zip(b, c)) == Fraction(1, k)
    Ac = [sum(A[i][j] * c[j] for j in range(7)) for i in range(7)]
    assert sum(bi * x for bi, x in zip(b, Ac)) == Fraction(1, 6)
    bh = [bi - ei for bi, ei in zip(b, e)]
    for k in range(1, 5):
        assert sum(bi * ci ** (k - 1) for bi, ci in zip(bh, c)) == Fraction(1, k)
    # Hairer's b̂ (Table II.5.2): 5179/57600, 0, 7571/16695, 393/640, −92097/339200, 187/2100, 1/40
    assert bh == [Fraction(5179, 57600), 0, Fraction(7571, 16695), Fraction(393, 640),
                  Fraction(-92097, 339200), Fraction(187, 2100), Fraction(1, 40)]


# ------------------------------------------------------------------------------------------------
# effective datasets: the exact (integer) route
# ------------------------------------------------------------------------------------------------
def test_exact_parts_of_a_rational_task_are_integers_over_common_denominators():
    # X = [[1/2, 1], [3/2, −1]] = [[1, 2], [3, −2]]/2; Y = [[1/3, 2/3]] = [[1, 2]]/3 (by hand)
    task = Task(sp.Matrix([[sp.Rational(1, 2), 1], [sp.Rational(3, 2), -1]]),
                sp.Matrix([[sp.Rational(1, 3), sp.Rational(2, 3)]]))
    Xb, xd, Yb, yd = exact_parts(task)
    assert (xd, yd) == (2, 3)
    assert Xb.tolist() == [[1, 2], [3, -2]] and Yb.tolist() == [[1, 2]]
    # and the effective dataset takes that route: Σyx = ⟨y xᵀ⟩ = ½[(1/3)(1/2, 3/2) + (2/3)(1, −1)]
    # = ½(1/6 + 2/3, 1/2 − 2/3) = (5/12, −1/12)
    eff = effective_dataset(task, Pathway("p", (1, 1), "all", "all"))
    assert eff.exact is not None
    assert eff.Syx == sp.Matrix([[sp.Rational(5, 12), sp.Rational(-1, 12)]])
    # its float copy is the same pair, Σyx_B / den
    np.testing.assert_allclose(eff.Syx_float(), [[5 / 12, -1 / 12]], rtol=1e-15)


def test_exact_parts_of_a_symbolic_task_is_none():
    k = sp.Symbol("k")
    assert exact_parts(Task(sp.Matrix([[1, k]]), sp.Matrix([[1, 2]]), {"k": k})) is None


def test_a_long_rk4_flow_unrolls_its_stages_and_still_solves_the_ode():
    # 10 001 steps × a batch of 1 reach flow.UNROLL_STEPS (5000), so the four stages are written
    # out (the other code path of rk4_step). ts = (2.0005, 10), h = 1e-3: ceil(2000.5) = 2001 steps
    # of 2.0005/2001, then ceil(7999.5) = 8000 of 7.9995/8000 (a first interval whose step differs from
    # the rest). dy/dt = −y from y0 = (1, 2): y0 e^(−t) by hand; RK4's error at h = 1e-3 is ~h⁴/120,
    # far below the 1e-10 asked
    assert 10.0 / 1e-3 >= flow.UNROLL_STEPS
    ts = np.array([2.0005, 10.0])
    fl = integrate(lambda y, a: -y, np.array([[1.0, 2.0]]), None, solver=RK4(1e-3),
                   save=SaveAt(ts=ts, fns={"y": lambda y, a: y}))
    assert fl.extra["steps"] == 2001 + 8000
    np.testing.assert_allclose(fl.saved["y"][0], np.exp(-ts)[:, None] * [1.0, 2.0], rtol=1e-10)


# ------------------------------------------------------------------------------------------------
# trajectory: the half-way time off the special point 2s = 1, and s = 0 in arrays
# ------------------------------------------------------------------------------------------------
def test_t_half_where_two_s_is_not_one_is_the_hand_formula():
    # docs/theory.md: t½ = τ/(2s) ln(s/(d a0) − 1); s = 2, d = 1, a0 = 0.1, τ = 10:
    # 10/4 · ln(20 − 1) = 2.5 ln 19 (2s = 4, so τ/(2s) and τ·2s differ, unlike at s = 0.5)
    from theorykit.theory.trajectory import t_half, t_half_float
    assert t_half_float(2.0, 1.0, 0.1, 10.0) == pytest.approx(2.5 * np.log(19.0), rel=1e-14)
    assert float(t_half(2, 1, sp.Rational(1, 10), 10)) == pytest.approx(2.5 * np.log(19.0), rel=1e-14)


@pytest.mark.parametrize("s_arr", [np.zeros(2), np.array([0, 0])])
def test_an_array_of_only_zero_singular_values_decays_by_the_ode_not_nan(s_arr):
    # s = 0 (a float or an integer array with no other entry): τ ȧ = −2 d a², so
    # a(t) = a0/(1 + 2 d a0 t/τ); a0 = 0.01, d = 1, τ = 1, t = (10, 40): 0.01/1.2 and 0.01/1.8
    from theorykit.theory.trajectory import mode_gap, mode_trajectory
    with np.errstate(all="raise"):
        a = mode_trajectory(s_arr, 1.0, 0.01, np.array([10.0, 40.0]), 1.0, np.exp)
        g = mode_gap(s_arr, 1.0, 0.01, np.array([10.0, 40.0]), 1.0)
    np.testing.assert_allclose(a, [0.01 / 1.2, 0.01 / 1.8], rtol=1e-15)
    np.testing.assert_allclose(g, [-0.01 / 1.2, -0.01 / 1.8], rtol=1e-15)      # gap s/d − a = −a
