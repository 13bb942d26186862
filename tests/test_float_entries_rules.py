"""Float entries of a Python task are read exactly, by the spec files' rule (theorykit/spec/expr.py
``to_exact``): a float is the decimal of its repr, the shortest decimal that reads back as it (0.25 is
1/4, 0.1 is 1/10, the float 1/3 is 3333333333333333/10**16); a SymPy ``Float`` the shortest decimal
that reads back as it at its precision. A numpy float array and the same numbers written in a TOML spec
give one task, one derivation, and the same numbers back from ``Task.numeric`` (bit for bit).

Golden values: hand derivations in the comments (docs/theory.md's half-way time), Python's own float
repr and ``fractions.Fraction``, and numpy products written here; none read back from the code under test.
"""
from __future__ import annotations

import fractions

import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.spec.expr import to_exact
from theorykit.spec.files import load_task
from theorykit.theory.effective import effective_dataset

XOR_X = np.array([[1., -1., 1., -1.], [1., 1., -1., -1.]])
XOR_Y = np.array([[1., 0., 0., 0.]])


def _gauss(d, p, P, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((d, P)), rng.standard_normal((p, P))


def _toml(X, Y, extra: str = "") -> str:
    """The data written as a spec file's [data], each float by its repr (what a user copies out)."""
    rows = lambda M: "[" + ", ".join("[" + ", ".join(repr(float(v)) for v in r) + "]" for r in M) + "]"
    return f"[data]\ninputs = {rows(X)}\ntargets = {rows(Y)}\n{extra}"


def _task_from_toml(tmp_path, X, Y):
    path = tmp_path / "floats.toml"
    path.write_text(_toml(X, Y, "[training]\nlr = 0.05\nloss = \"mean\"\ninit_std = 0.01\nsteps = 2000\n"))
    return load_task(path)


def test_float_array_task_is_exact_and_its_t_half_has_a_quarter_not_0_25():
    """Σyx = Y Xᵀ/P = (1, 1)/4 (only datapoint 0, x = (1, 1), has y = 1): s = √2/4; Σx = X Xᵀ/4 = I (rows
    of ±1, orthogonal): d = 1. docs/theory.md: t½ = τ/(2s)·ln(s/(d a0) − 1) = √2 τ ln(√2/(4 a0) − 1).
    With Float entries the derivation printed ln(−1 + 0.25·√2/a0)."""
    t = tk.Task(XOR_X, XOR_Y)
    assert all(e.is_Integer for e in t.X) and all(e.is_Integer for e in t.Y)
    der = tk.Derivation(tk.GDLNSpec(t, [tk.Pathway("p", "all", "all", "all", 4, 2)], tk.Training(lr=0.01)))
    (th,) = der.t_half["p"]
    assert not th.atoms(sp.Float)
    syms = {s.name: s for s in th.free_symbols}
    tau, a0 = syms["tau"], syms["a_0"]
    assert sp.simplify(th - sp.sqrt(2) * tau * sp.log(sp.sqrt(2) / (4 * a0) - 1)) == 0
    (mode,) = der.modes["p"].modes
    assert mode.s == sp.sqrt(2) / 4 and mode.d == 1 and mode.d.is_Integer


def test_a_third_as_a_float_is_its_repr_exactly_and_d_is_exact():
    """X = I (2 datapoints), Y = diag(3, 1/3) as floats: Σyx = Y/2, Σx = I/2. The float 1/3 is the decimal
    0.3333333333333333 (its repr) = 3333333333333333/10**16, so s = 3/2 and 3333333333333333/(2·10**16),
    both with d = 1/2 exactly (with Float entries d was 0.500000000000000 and s₂ 8333333333333333/5·10**16,
    the half of 1/3 taken in floats)."""
    t = tk.Task(np.eye(2), np.array([[3., 0.], [0., 1 / 3]]))
    assert t.Y[1, 1] == sp.Rational(3333333333333333, 10 ** 16)
    der = tk.Derivation(tk.GDLNSpec(t, [tk.Pathway("p", "all", "all", "all", 2, 2)], tk.Training(lr=0.01)))
    modes = der.modes["p"].modes
    assert [m.s for m in modes] == [sp.Rational(3, 2), sp.Rational(3333333333333333, 2 * 10 ** 16)]
    assert all(m.d == sp.Rational(1, 2) and m.d.is_Rational for m in modes)


@pytest.mark.parametrize("value, exact", [(0.5, sp.Rational(1, 2)), (0.1, sp.Rational(1, 10)), (-2.0, sp.Integer(-2)),
                                          (np.float64(0.1), sp.Rational(1, 10)), (np.float32(0.5), sp.Rational(1, 2)),
                                          (sp.Float(0.1), sp.Rational(1, 10)), (sp.Float("0.1", 30), sp.Rational(1, 10)),
                                          (sp.Float(0.1, 3), sp.Rational(1, 10)), (1e-7, sp.Rational(1, 10 ** 7)),
                                          (np.longdouble("0.1"), sp.Rational(1, 10))])
def test_each_kind_of_float_in_lists_arrays_and_matrices_is_read_by_its_decimal(value, exact):
    """Python floats, numpy float scalars (a long double too: by its own shortest decimal, not a double's)
    and SymPy Floats, in nested lists, in float and object arrays and in a SymPy Matrix, are read as the decimals they stand for (0.1 → 1/10 by hand); an expression keeps its
    symbol with the Float made exact (0.5·Δ → Δ/2)."""
    D = sp.Symbol("Delta", positive=True)
    arrays = [np.array([[value, 1]])] + ([np.array([[value, 1]], dtype=type(value))]
                                         if isinstance(value, np.floating) else [])
    for X in [[[value, 1]], np.array([[value, 1]], dtype=object), sp.Matrix([[value, 1]])] + arrays:
        t = tk.Task(X, [[1, 0]])
        assert t.X[0, 0] == exact and t.X[0, 0].is_Rational, (type(X), t.X)
    t = tk.Task(sp.Matrix([[sp.Float(0.5) * D, 1]]), [[1, 0]], {"Delta": D})
    assert t.X[0, 0] == D / 2 and not t.X.atoms(sp.Float)


def test_a_float_array_and_the_same_numbers_in_a_spec_file_are_one_task(tmp_path):
    """Gaussian data (and numbers with exponents) as a numpy float array and written in a TOML spec by
    their reprs: the same exact task, entry by entry, each the Fraction of its repr."""
    X, Y = _gauss(3, 2, 4, 0)
    X[0, 0], X[1, 1], Y[0, 0] = 2.5e-05, 123456.789, 1 / 3      # a spec file takes 1e-6 ≤ |x| ≤ 1e6
    t = tk.Task(X, Y)
    spec_task, _training = _task_from_toml(tmp_path, X, Y)
    assert t.X == spec_task.X and t.Y == spec_task.Y
    for M, A in ((t.X, X), (t.Y, Y)):
        for e, v in zip(M, A.ravel()):
            f = fractions.Fraction(repr(float(v)))
            assert e == sp.Rational(f.numerator, f.denominator)


def test_the_derivation_of_float_data_equals_that_of_the_spec_file(tmp_path):
    """Gaussian 3 × 4 data: the derivation from the array and from the spec file are the same exact
    expressions, with no Float in them."""
    X, Y = _gauss(3, 1, 4, 3)
    spec_task, training = _task_from_toml(tmp_path, X, Y)
    pw = [tk.Pathway("p", "all", "all", "all", 4, 2)]
    a = tk.Derivation(tk.GDLNSpec(tk.Task(X, Y), pw, tk.Training(lr=0.01)))
    b = tk.Derivation(tk.GDLNSpec(spec_task, pw, tk.Training(lr=0.01)))
    sa, sb = a.modes["p"].singular_values, b.modes["p"].singular_values
    assert sa == sb and not any(s.atoms(sp.Float) for s in sa)
    # the top singular value by numpy: Σyx = Y Xᵀ/P (one output row: its norm), to float precision
    assert float(sa[0]) == pytest.approx(np.linalg.norm(Y @ X.T / 4), rel=1e-13)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_a_float_read_exactly_reads_back_as_itself(x):
    """The rule loses nothing: the exact value's nearest double is x (the repr round-trips), through
    to_exact, through a SymPy Float of x, and through a task and Task.numeric."""
    r = to_exact(x)
    assert r.is_Rational and float(r) == x
    f = fractions.Fraction(repr(x))
    assert r == sp.Rational(f.numerator, f.denominator)
    assert to_exact(sp.Float(x)) == r
    Xn, _ = tk.Task(np.array([[x, 1.0]]), np.array([[1.0, 0.0]])).numeric()
    assert Xn[0, 0] == x and Xn[0, 1] == 1.0


@pytest.mark.parametrize("text", ["0.1", "0.3333333333333333333333", "2.718281828459045235360287471352662497757"])
@pytest.mark.parametrize("digits", [20, 30, 50])
def test_a_high_precision_float_is_the_shortest_decimal_that_reads_back_at_its_precision(text, digits):
    """sp.Float(text, n): its exact reading, made a Float at the same precision again, is the same Float;
    and it is a decimal no longer than the text, nor than the digits its precision holds."""
    f = sp.Float(text, digits)
    r = to_exact(f)
    assert r.is_Rational and sp.Float(r, precision=f._prec) == f
    # a decimal of k places, k no more than the text's (len - 2) nor the digits the precision holds (+ 3)
    k = next(k for k in range(200) if (r * 10 ** k).is_Integer)
    assert k <= min(len(text) - 2, digits + 3)
    if text == "0.1":
        assert r == sp.Rational(1, 10)


def test_numeric_gives_the_float_data_back_bit_for_bit(tmp_path):
    """Task.numeric of an exact task is the double nearest each entry: the float array itself, and the
    same numbers from a spec file (SymPy's evalf() missed 3 of these 288 entries by an ulp)."""
    X, Y = _gauss(12, 2, 24, 1)
    for task in (tk.Task(X, Y), _task_from_toml(tmp_path, X, Y)[0]):
        Xn, Yn = task.numeric()
        assert Xn.dtype == np.float64 and np.array_equal(Xn, X) and np.array_equal(Yn, Y)
    Xn32, _ = tk.Task(X, Y).numeric(dtype=np.float32)
    assert Xn32.dtype == np.float32 and np.array_equal(Xn32, X.astype(np.float32))


def test_the_effective_dataset_of_float_data_is_numpys_to_rounding():
    """Σyx of a gated pathway = Y diag(g) Xᵀ / P by numpy, to a few ulps (now summed exactly, then rounded)."""
    X, Y = _gauss(3, 2, 6, 2)
    g = np.array([1, 0, 1, 1, 0, 1])
    t = tk.Task(X, Y)
    pw = tk.Pathway("p", tuple(int(v) for v in g), "all", "all", 4, 2)
    eff = effective_dataset(t, pw)
    syx = np.array([[float(e) for e in row] for row in eff.Syx.tolist()])
    assert np.allclose(syx, (Y * g) @ X.T / 6, rtol=1e-14, atol=1e-15)
    assert not eff.Syx.atoms(sp.Float)


def test_predict_on_a_float_array_equals_predict_on_its_spec_file(tmp_path):
    """predict_reln from the float arrays and from the spec file of the same numbers: the same prediction,
    bit for bit (before, the spec file's numbers came back an ulp off through evalf)."""
    X, Y = _gauss(3, 1, 6, 6)      # one entry of these 24 came back an ulp off through evalf
    spec_task, training = _task_from_toml(tmp_path, X, Y)
    a = tk.predict_reln((X, Y), 16, training, progress=False)
    b = tk.predict_reln(spec_task, 16, training, progress=False)
    assert np.array_equal(a.gates, b.gates) and a.widths == b.widths
    assert np.array_equal(a.t, b.t) and np.array_equal(a.loss, b.loss)
    assert a.t_half == b.t_half and a.area == b.area
    # every predicted pathway is a gate pattern a unit realises on the float data (numpy: a w with
    # w·x_μ > 0 exactly on the gated datapoints exists; here the pathway's top input direction ±v₁ by numpy)
    for g in a.gates:
        g = np.asarray(g, bool)
        _u, _s, vt = np.linalg.svd((Y * g) @ X.T)
        proj = vt[0] @ X
        assert np.all(proj[g] > 0) or np.all(-proj[g] > 0)


@pytest.mark.parametrize("X", [np.array([[np.nan, 1.0]]), np.array([[np.inf, 1.0]]), np.array([[1j, 1.0]]),
                               [[float("nan"), 1.0]], [[float("inf"), 1.0]], [[np.float64("-inf"), 1.0]]])
def test_non_finite_and_complex_floats_are_still_refused(X):
    with pytest.raises(SpecError) as e:
        tk.Task(X, [[1, 0]])
    assert e.value.field.startswith("data.inputs")
