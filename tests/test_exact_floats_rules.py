"""Exact → float conversions are correctly rounded: a rational p/q becomes the double nearest it, an
irrational exact number (a surd) the double nearest it too (evaluated at 30 digits, then rounded once).

SymPy's ``evalf()`` rounds twice (to 57 bits, then to 53) and ``float(expr)`` evaluates at 15 digits
first: both miss by an ulp now and then. The references here are independent of both: Python's
``float(Fraction(p, q))`` (correctly rounded, an integer division rounded once) and mpmath at 50 digits
(``float`` of an mpf rounds to nearest). Each case below is one where the old path was an ulp off, found
by a small search in the test itself.
"""
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

import theorykit.theory.k_contexts as kc
from theorykit.spec.expr import exact_float, exact_floats
from theorykit.spec.gating import Pathway
from theorykit.spec.task import Task, hierarchy
from theorykit.theory.k_algebra import gamma, k, n, sig, sigbar, structure_values


def _fractions(qmax=40):
    return [(p, q) for q in range(2, qmax + 1) for p in range(1, q) if Fraction(p, q).denominator == q]


def _evalf_off():
    """The fractions p/q (q ≤ 40, in lowest terms) whose ``evalf()`` is not the double nearest them."""
    return [(p, q) for p, q in _fractions() if float(sp.Rational(p, q).evalf()) != float(Fraction(p, q))]


def _mp_sqrt(p, q):
    with mpmath.workdps(50):
        return float(mpmath.sqrt(mpmath.mpf(p) / q))


def _surds_off(qmax=40):
    """√(p/q) (irrational, q ≤ qmax) whose ``float(expr)`` (evalf at 15 digits) is not the double nearest it."""
    out = []
    for p, q in _fractions(qmax):
        e = sp.sqrt(sp.Rational(p, q))
        if not e.is_Rational and float(e) != _mp_sqrt(p, q):
            out.append((p, q))
    return out


def test_evalf_misses_small_fractions_exact_float_does_not():
    off = _evalf_off()
    # the old path (SymPy 1.14): 9 of the 489 fractions, 9/11 among them (evalf'd: 0.8181818181818181)
    assert (9, 11) in off and len(off) >= 5, "SymPy's evalf() now rounds p/q once: see this module's docstring"
    # 9/11 = 0.81818…: 0.8181818181818182 is 5.05e-17 from it, 0.8181818181818181 6.06e-17 (mpmath, 40 digits)
    assert float(Fraction(9, 11)) == 0.8181818181818182 != float(sp.Rational(9, 11).evalf())
    for p, q in _fractions():
        ref = float(Fraction(p, q))
        with mpmath.workdps(50):
            assert ref == float(mpmath.mpf(p) / q)    # the two references agree
        assert exact_float(sp.Rational(p, q)) == ref, (p, q)
        assert exact_float(sp.Rational(-p, q)) == -ref
        assert exact_float(Fraction(p, q)) == ref
    assert exact_float(sp.Integer(3)) == 3.0 and exact_float(7) == 7.0 and exact_float(0.1) == 0.1


def test_exact_float_of_a_surd_is_the_nearest_double():
    off = _surds_off()
    assert off, "float(sqrt(p/q)) was an ulp off for some p/q"
    for p, q in off + _fractions(12):
        assert exact_float(sp.sqrt(sp.Rational(p, q))) == _mp_sqrt(p, q), (p, q)
    with mpmath.workdps(50):
        assert exact_float(sp.log(3) / 7) == float(mpmath.log(3) / 7)


def test_exact_floats_matrix_and_task_numeric_round_each_entry_once():
    (p, q), (a, b) = _evalf_off()[0], _surds_off()[0]
    M = sp.Matrix([[sp.Rational(p, q), sp.sqrt(sp.Rational(a, b))], [sp.Rational(-p, q), 1]])
    want = np.array([[float(Fraction(p, q)), _mp_sqrt(a, b)], [-float(Fraction(p, q)), 1.0]])
    got = exact_floats(M)
    assert got.dtype == np.float64 and got.tolist() == want.tolist()
    # Task.numeric: an irrational entry was evalf()'d at 15 digits (an ulp off for this one)
    X, _Y = Task(M, sp.Matrix([[1, 0]])).numeric()
    assert X.tolist() == want.tolist()


def test_structure_values_read_the_structure_as_nearest_doubles():
    # a one-column structure [[9/11]]: σ̄ = |H 1| / √1 = 9/11, no centred mode (H C = 0), ‖H‖² = (9/11)²
    sv = structure_values(sp.Matrix([[sp.Rational(9, 11)]]))
    assert sv["sigbar"] == float(Fraction(9, 11))
    assert sv["sigma_tilde"].size == 0
    assert sv["frob2"] == float(Fraction(9, 11)) ** 2


def test_numpy_modes_read_the_effective_dataset_as_nearest_doubles():
    # one datapoint, x = 1, y = 9/11, one pathway on it: Σyx = y xᵀ / P = 9/11, Σx = 1; s = 9/11, d = 1
    task = Task(sp.Matrix([[1]]), sp.Matrix([[sp.Rational(9, 11)]]))
    s, d, _V, Sx = kc._numpy_modes(task, Pathway("all", (1,)))
    assert Sx.tolist() == [[1.0]] and d.tolist() == [1.0]
    assert s.tolist() == [float(Fraction(9, 11))]


@pytest.fixture(scope="module")
def kres():
    return kc.derive(check_ks=[], latex=False)


def _mp_modes(res, H, nn, kk, gam):
    """The closed-form modes by a second method: each expression lambdified to mpmath, evaluated at 50
    digits with each float read as the decimal it prints as (as theorykit reads γ = 1.1: 11/10)."""
    A, B, C = res.common
    K = res.kminus1
    sv = structure_values(H)
    syms = (k, n, gamma, sigbar, sig)

    def at(e, st=0.0):
        fn = sp.lambdify(syms, e, "mpmath")
        with mpmath.workdps(50):
            return float(fn(*(mpmath.mpf(repr(float(x))) for x in (kk, nn, gam, sv["sigbar"], st))))

    out = [(at(B["s"]), at(B["d"]), at(B["multiplicity"])), (at(C["s"]), at(C["d"]), 1.0)]
    for st in sv["sigma_tilde"]:
        out += [(at(A["s"], st), at(A["d"], st), 1.0), (at(K["s"], st), at(K["d_eff"], st), float(kk))]
    return out


@pytest.mark.parametrize("nn,kk,gam", [(4, 3, 1.0), (4, 5, 1.35), (8, 3, 0.7)])
def test_closed_form_modes_are_the_nearest_doubles(kres, nn, kk, gam):
    modes = kc.closed_form_modes(kres, hierarchy(nn), nn, kk, gam)[0]
    assert [m[:3] for m in modes] == _mp_modes(kres, hierarchy(nn), nn, kk, gam)
    # by hand: the common pathway's mode C has d = (γ²n + k)/(kn); B has d = γ²/k
    g = Fraction(repr(gam))
    assert modes[1][1] == float((g * g * nn + kk) / (kk * nn))
    assert modes[0][1] == float(g * g / kk)


def test_closed_form_modes_hand_value_that_was_an_ulp_off(kres):
    # k = 3, n = 4, γ = 1: d_C = (1·4 + 3)/(3·4) = 7/12, whose nearest double is 0.5833333333333334
    # (the old subs-then-N path gave 0.5833333333333333)
    modes = kc.closed_form_modes(kres, hierarchy(4), 4, 3, 1.0)[0]
    assert float(Fraction(7, 12)) == 0.5833333333333334
    assert modes[1][1] == 0.5833333333333334
