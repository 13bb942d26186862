"""Valid but unusual inputs whose exact results must not depend on theorykit's internal choices.

The reference point (``Derivation.reference``: where a symbolic derivation orders its modes and checks
that no mode has zero input variance) is theorykit's own choice, not the user's. A task whose data
vanish exactly there (an input ``n − 3`` for an integer n, whose reference was the prime 3; ``Δ − 7/10``
for a real Δ, whose reference was 7/10) was refused with "zero input variance d ... choose other
parameter values" although the user had chosen no value. Golden numbers: hand derivations below and
numpy's SVD of Σyx = Y Xᵀ / P written here.
"""
import warnings

import numpy as np
import pytest
import sympy as sp

import theorykit as tk


def _spec(symbol: str, assumptions: dict, entry: str):
    # inputs X = [[entry, 0], [0, 1]] (datapoints are columns), targets Y = I₂, one pathway on both
    return tk.spec_from_dict({
        "name": "domain-edge", "symbols": {symbol: assumptions},
        "data": {"inputs": [[entry, 0], [0, 1]], "targets": [[1, 0], [0, 1]]},
        "pathways": [{"name": "a", "active": [1, 1], "hidden": 4}],
        "training": {"lr": 0.01, "a0": 0.001, "steps": 100}})


def _numpy_loss(x: float, times: np.ndarray, tau: float = 100.0, a0: float = 1e-3) -> np.ndarray:
    """Second method: numpy's SVD of Σyx at the value, d = vᵀ Σx v, and the paper's closed form
    a(t) = 1/(e^{−2st/τ}/a0 + (d/s)(1 − e^{−2st/τ})), L = ½ tr Σy − Σ (s a − ½ d a²)."""
    X = np.array([[x, 0.0], [0.0, 1.0]])
    Y = np.eye(2)
    P = X.shape[1]
    Syx, Sx = Y @ X.T / P, X @ X.T / P
    _, s, Vt = np.linalg.svd(Syx)
    L = np.full(times.shape, np.sum(Y ** 2) / P / 2)
    for k, sk in enumerate(s):
        d = Vt[k] @ Sx @ Vt[k]
        e = np.exp(-2 * sk * times / tau)
        a = 1 / (e / a0 + d / sk * (1 - e))
        L -= sk * a - d * a ** 2 / 2
    return L


def _modes(der):
    return [(sp.simplify(m.s), sp.simplify(m.d)) for m in der.modes["a"].modes]


def _has_modes(got, want):
    assert len(got) == len(want), got
    for s0, d0 in want:
        assert any(sp.simplify(s - s0) == 0 and sp.simplify(d - d0) == 0 for s, d in got), (s0, d0, got)


def test_integer_symbol_vanishing_at_its_default_reference_prime_derives():
    # n integer: the default reference was n = 3, where the input n − 3 is 0 (a zero input variance).
    # By hand: P = 2, Σyx = Y Xᵀ/2 = diag(n − 3, 1)/2, Σx = X Xᵀ/2 = diag((n − 3)², 1)/2, so the modes are
    # (s, d) = (|n − 3|/2, (n − 3)²/2) and (1/2, 1/2), for every integer n.
    spec = _spec("n", {"integer": True}, "n - 3")
    n = spec.task.symbols["n"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no warning either
        der = tk.Derivation(spec)
        got = _modes(der)
    _has_modes(got, [(sp.Abs(n - 3) / 2, (n - 3) ** 2 / 2), (sp.Rational(1, 2), sp.Rational(1, 2))])
    assert der.reference[n] != 3 and der.reference[n].is_integer        # a point of the domain, not special
    times = np.array([0.0, 50.0, 200.0, 1000.0, 3000.0])
    for x in (5, -2):
        np.testing.assert_allclose(der.predict_loss(times, values={"n": x}), _numpy_loss(x - 3, times), rtol=1e-9, atol=1e-13)


def test_real_symbol_vanishing_at_its_default_reference_derives():
    # Δ real: the default reference was 7/10, where the input Δ − 7/10 is 0. By hand, as above with
    # n − 3 → Δ − 7/10: (s, d) = (|10Δ − 7|/20, (10Δ − 7)²/200) and (1/2, 1/2).
    spec = _spec("Delta", {"real": True}, "Delta - 7/10")
    D = spec.task.symbols["Delta"]
    der = tk.Derivation(spec)
    got = _modes(der)
    _has_modes(got, [(sp.Abs(10 * D - 7) / 20, (10 * D - 7) ** 2 / 200), (sp.Rational(1, 2), sp.Rational(1, 2))])
    times = np.array([0.0, 100.0, 1000.0])
    for x in (-2.0, 3.0):
        np.testing.assert_allclose(der.predict_loss(times, values={"Delta": x}), _numpy_loss(x - 0.7, times), rtol=1e-9, atol=1e-13)


def test_negative_integer_symbol_vanishing_at_its_default_reference_derives():
    # n integer, declared not positive: the default reference was −3, where the input n + 3 is 0.
    # By hand: (s, d) = (|n + 3|/2, (n + 3)²/2) and (1/2, 1/2).
    spec = _spec("n", {"integer": True, "positive": False}, "n + 3")
    n = spec.task.symbols["n"]
    der = tk.Derivation(spec)
    assert der.reference[n] < 0 and der.reference[n] != -3
    _has_modes(_modes(der), [(sp.Abs(n + 3) / 2, (n + 3) ** 2 / 2), (sp.Rational(1, 2), sp.Rational(1, 2))])
    np.testing.assert_allclose(der.predict_loss(np.array([0.0, 500.0]), values={"n": -7}),
                               _numpy_loss(-4.0, np.array([0.0, 500.0])), rtol=1e-9, atol=1e-13)


def test_reference_unchanged_where_the_data_do_not_vanish_there():
    # the default point stays the documented one (7/10, primes) when nothing vanishes at it
    spec = _spec("Delta", {"real": True}, "Delta + 1")
    assert tk.Derivation(spec).reference == {spec.task.symbols["Delta"]: sp.Rational(7, 10)}
    spec = _spec("n", {"integer": True}, "n + 1")
    assert tk.Derivation(spec).reference == {spec.task.symbols["n"]: 3}


# -- SVD.floats / SVD.numeric / Derivation.summary at values keyed by name -------------------------
# xor_linear by hand (docs/theory.md#xor): the "positive" pathway sees (1, 1, Δ) and (−1, −1, Δ), both
# labelled +1, of P = 4 datapoints: Σyx = ((1, 1, Δ) + (−1, −1, Δ))/4 = (0, 0, Δ/2), so s = Δ/2 (Δ ≥ 0),
# v = e₃, u = (1), and d = Σx₃₃ = (Δ² + Δ²)/4 = Δ²/2. At Δ = 2: s = 1, d = 2. The reference is Δ = 7/10
# (s = 0.35): a name key ("Delta") matched no symbol (the task's Delta is nonnegative) and that 0.35 came
# back in silence.

def _xor_linear():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tk.Derivation(tk.load_spec(tk.spec.files.example_path("xor_linear.toml")))


def test_svd_floats_and_numeric_take_values_keyed_by_name():
    der = _xor_linear()
    svd = der.modes["positive"]
    D = der.task.symbols["Delta"]
    for key in ("Delta", D, sp.Symbol("Delta")):
        assert svd.floats({key: 2}) == [1.0]
        U, s, V = svd.numeric({key: 2})
        np.testing.assert_allclose(s, [1.0])
        np.testing.assert_allclose(V[:, 0], [0.0, 0.0, 1.0])
        np.testing.assert_allclose(U[:, 0], [1.0])
    assert svd.floats() == [0.35]                      # no values: the reference point, as documented


def test_svd_floats_refuse_values_outside_the_domain_or_unknown_names():
    svd = _xor_linear().modes["positive"]
    with pytest.raises(tk.SpecError) as e:
        svd.floats({"Delta": -2})                      # s = Δ/2 would be −1: no singular value
    assert "values[Delta]" in str(e.value) and "nonnegative" in str(e.value)
    with pytest.raises(tk.SpecError) as e:
        svd.numeric({"Delt": 2})
    assert "Delt" in str(e.value) and "Delta" in str(e.value)


def test_summary_at_values_checks_the_domain():
    der = _xor_linear()
    with pytest.raises(tk.SpecError) as e:
        der.summary({"Delta": -2})                     # printed singular_values_float −1.0
    assert "values[Delta]" in str(e.value)
    out = der.summary({"Delta": 2})["positive"]
    assert out["singular_values_float"] == [1.0] and out["input_variances_float"] == [2.0]


def test_exact_svd_of_a_user_matrix_at_values_keyed_by_name():
    # a matrix of the user's own symbol: numpy's SVD at D = −3 is (3, 1)
    D = sp.Symbol("D", real=True)
    svd = tk.exact_svd(sp.Matrix([[D, 0], [0, 1]]))
    ref = np.linalg.svd(np.array([[-3.0, 0.0], [0.0, 1.0]]), compute_uv=False)
    np.testing.assert_allclose(sorted(svd.floats({"D": -3}), reverse=True), ref)
    U, s, V = svd.numeric({"D": -3})
    np.testing.assert_allclose(U @ np.diag(s) @ V.T, [[-3.0, 0.0], [0.0, 1.0]], atol=1e-12)
