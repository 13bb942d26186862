"""Rules from a test auditor, who mutated the code behind the last sessions' tests one small change at a
time and kept each change no test caught (the mutation is named in each test's comment).

Expected values come from hand derivations in the comments and from mpmath at 50 digits of the paper's
logistic form a = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}), which shares no code with theorykit, never from a
run of the code under test."""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from theorykit.cli.rerun import compare


# ------------------------------------------------------------------------------------------------
# rerun's compare: a list of another length, the relative difference of the larger, a type change
# ------------------------------------------------------------------------------------------------
def test_a_list_of_another_length_differs():
    """Mutation that survived every rerun test: the length check dropped (zip walks the shorter list),
    so a rerun that wrote one more loss value, or one fewer, was "identical"."""
    for old, new in (([1.0, 2.0], [1.0, 2.0, 3.0]), ([1.0, 2.0, 3.0], [1.0, 2.0]), ([], [0.0])):
        got = compare({"loss": old}, {"loss": new}, 0.5)
        assert not got.agree and got.fields == 1 and got.shown[0][0] == "loss (length)", (old, new)
        assert got.shown[0][1:3] == (len(old), len(new))


def test_the_relative_difference_is_taken_of_the_larger_number():
    """compare's docstring: numbers agree "within rtol of the larger". By hand: 1 against 2 is
    |1 − 2|/2 = 0.5 (of the smaller it would be 1.0); 1 against 1.5 is 0.5/1.5 = 1/3, within 0.34
    (of the smaller, 0.5, it is not). Mutation that survived: max → min in _relative."""
    assert compare([1.0], [2.0], 0.0).worst == 0.5
    assert compare([2.0], [1.0], 0.0).worst == 0.5
    assert compare([-1.0], [-2.0], 0.0).worst == 0.5
    near = compare([1.0], [1.5], 0.34)
    assert near.agree and near.worst == pytest.approx(1 / 3, rel=1e-15)
    assert not compare([1.0], [1.5], 0.33).agree


def test_a_value_of_another_json_type_differs():
    """JSON ``true`` is not the number 1 and the text "1" is not 1 (Python's ``True == 1`` holds):
    mutation that survived, ``type(old) is type(new)`` dropped from compare's last test."""
    for old, new in ((True, 1), (1, True), (False, 0), ("1", 1)):
        got = compare({"x": old}, {"x": new}, 0.5)
        assert not got.agree and got.fields == 1, (old, new)
    assert compare({"x": True}, {"x": True}, 0.0).agree


# ------------------------------------------------------------------------------------------------
# φ(u) = (1 − e^{−u})/u, the series branch, seen where it is not swamped by e^{−u}/a0
# ------------------------------------------------------------------------------------------------
def _logistic_mp(s, d, a0, t_over_tau):
    s, d, a0 = mpmath.mpf(s), mpmath.mpf(d), mpmath.mpf(a0)
    return (s / d) / (1 + (s / (d * a0) - 1) * mpmath.exp(-2 * s * t_over_tau))


@pytest.fixture(scope="module")
def small_mode():
    """The small mode of tests/test_jax_small_s_rules.py's task (s = Δ, d = ½), lambdified by to_jax."""
    import theorykit as tk
    from theorykit.theory.trajectory import a0, t, tau

    D = sp.Symbol("Delta", nonnegative=True)
    task = tk.Task(sp.eye(2), 2 * sp.Matrix([[D, 0], [0, 1]]), {"Delta": D})
    der = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 8, 2),),
                                    tk.Training(lr=0.01, a0=1e-3)))
    (i,) = [k for k, m in enumerate(der.modes["p"].modes) if m.s == D]
    return tk.to_jax(der.trajectories["p"][i], [D, a0, t, tau])


@pytest.mark.parametrize("u", [1e-3, 0.02, 0.05, 0.0999, 0.1001, 1.0])
def test_phi_series_and_quotient_hold_every_digit_where_they_decide_the_trajectory(small_mode, u):
    """a = 1/G, G = d (2t/τ) φ(u) + e^{−u}/a0, u = 2st/τ. tests/test_jax_small_s_rules.py takes a0 = 1e-3
    and t = τ, where e^{−u}/a0 ≈ 1000 swamps d (2t/τ) φ ≈ 1: a wrong φ moves a by 1/1000 of its own
    error. Here a0 = 1 and t = 50τ, so d (2t/τ) φ ≈ 50 of G ≈ 51, and a's relative error is φ's.
    Mutations that survived there and fail here: the series cut after u⁵ (an error u⁶/7! ≈ 2e-10 at
    u = 0.1), and the quotient taken from |u| = 0.01 (1 − e^{−u} loses ε/u, 5e-15 at u = 0.02, and its
    gradient ε/u², 3e-13). Both branches (u on either side of the threshold 0.1) and jax.grad up to
    second order, against mpmath at 50 digits of the logistic form. Tolerances: a few ulp for the
    value (1e-15 ≈ 4.5 ε); the derivatives compose more rounded operations: φ′ from the quotient side
    subtracts terms of size 1/u = 10 to leave ½ (20 ε ≈ 4e-15), φ″ terms of size 2/u² = 200 to leave
    ⅓ (600 ε ≈ 1.3e-13, a few times that through the rest of G), so 1e-14 and 2e-12 there; each is
    far below the mutations' errors."""
    import jax

    s, tt = u / 100, 50.0                # u = 2 s t/τ with t/τ = 50
    g = jax.grad(small_mode)
    h = jax.grad(g)
    with mpmath.workdps(50):
        f = lambda y: _logistic_mp(y, "0.5", 1, 50)                        # noqa: E731
        want = (f(s), mpmath.diff(f, mpmath.mpf(s)), mpmath.diff(f, mpmath.mpf(s), 2))
    got = (small_mode(s, 1.0, tt, 1.0), g(s, 1.0, tt, 1.0), h(s, 1.0, tt, 1.0))
    assert float(got[0]) == pytest.approx(float(want[0]), rel=1e-15, abs=0)
    assert float(got[1]) == pytest.approx(float(want[1]), rel=1e-14, abs=0)
    assert float(got[2]) == pytest.approx(float(want[2]), rel=2e-12, abs=0)


@pytest.mark.parametrize("u", [1e-3, 0.02, 0.0999, 0.1001, 1.0])
def test_the_jax_trajectory_of_numbers_holds_every_digit_too(u):
    """mode_trajectory on JAX values (its own copy of the series, :func:`_jax_rate_form`): the same
    check as above, with the same tolerances and the same hand set-up (a0 = 1, t = 50τ, d = ½)."""
    import jax
    import jax.numpy as jnp

    from theorykit.theory.trajectory import mode_trajectory

    s = u / 100
    f = lambda x: mode_trajectory(x, 0.5, 1.0, 50.0, 1.0)                   # noqa: E731
    with mpmath.workdps(50):
        m = lambda y: _logistic_mp(y, "0.5", 1, 50)                          # noqa: E731
        want = (m(s), mpmath.diff(m, mpmath.mpf(s)), mpmath.diff(m, mpmath.mpf(s), 2))
    x = jnp.float64(s)
    assert float(f(x)) == pytest.approx(float(want[0]), rel=1e-15, abs=0)
    assert float(jax.grad(f)(x)) == pytest.approx(float(want[1]), rel=1e-14, abs=0)
    assert float(jax.grad(jax.grad(f))(x)) == pytest.approx(float(want[2]), rel=2e-12, abs=0)
