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
from theorykit.spec.gating import GDLNSpec, Pathway
from theorykit.spec.task import Task, hierarchy
from theorykit.theory.closed_grid import values_on_grid
from theorykit.theory.derivation import Derivation
from theorykit.theory.effective import effective_dataset
from theorykit.theory.k_algebra import gamma, k, n, sig, sigbar, structure_values
from theorykit.theory.modes import _quad_float


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


# ---------------------------------------------------------------------------------------------------------
# the theory layer's remaining exact → float sites: each now goes through exact_float / exact_floats
# ---------------------------------------------------------------------------------------------------------
def _mp_grid(v, two):
    """1/(v + √2) at 50 digits, v the double as it is (exact in binary): the reference of values_on_grid."""
    with mpmath.workdps(50):
        return float(1 / (mpmath.mpf(v) + mpmath.sqrt(two)))


def test_values_on_grid_rounds_each_value_once():
    x = sp.Symbol("x")
    expr = 1 / (x + sp.sqrt(2))        # stays a sum with √2 after subs: float(sp.N(…)) took √2 at 15 digits
    xs = [k / 7 for k in range(1, 300)]
    old = [v for v in xs if float(sp.N(expr.subs(x, sp.Float(v, 30)))) != _mp_grid(v, 2)]
    assert old, "the old 15-digit path was an ulp off for some k/7 (SymPy 1.14: 15 of 299)"
    got = values_on_grid(expr, x, xs)
    assert got.tolist() == [_mp_grid(v, 2) for v in xs]


class _UnitMode:
    """A stand-in mode whose input vector is e₁ (so vᵀ Σx v is Σx[0, 0], read in floats)."""
    v = sp.Matrix([1, 0])

    def v_floats(self, ref):
        return np.array([1.0, 0.0])


def test_quad_float_reads_a_surd_input_correlation_as_the_nearest_double():
    a, b = _surds_off()[0]             # √(a/b): float() (15 digits first) is an ulp off
    Sx = sp.Matrix([[sp.sqrt(sp.Rational(a, b)), 0], [0, 1]])
    assert float(Sx[0, 0]) != _mp_sqrt(a, b)
    assert _quad_float(_UnitMode(), Sx, None) == _mp_sqrt(a, b)


def test_syx_float_is_the_nearest_double_beyond_2_pow_53():
    # one datapoint x = 1, y = N/7 with N > 2**53 (N, 7 coprime): Σyx = y xᵀ / P = N/7 (den 7, numerator N).
    # The old path rounded N to a float first, then divided by 7: two roundings, an ulp off for these N
    off = [N for N in range(2 ** 53 + 1, 2 ** 53 + 200) if N % 7 and float(N) / 7 != float(Fraction(N, 7))]
    assert len(off) > 10
    for N in off[:5]:
        task = Task(sp.Matrix([[1]]), sp.Matrix([[sp.Rational(N, 7)]]))
        eff = effective_dataset(task, Pathway("all", (1,)))
        assert eff.exact is not None and int(eff.exact[0][0, 0]) == N and eff.exact[1] == 7
        assert eff.Syx_float().tolist() == [[float(Fraction(N, 7))]]
    # two datapoints, one output, two inputs: Σyx = (N/7 · [1, 1] + [0, 1]·1)/2 = [N/14, (N + 7)/14]
    N = off[0]
    task = Task(sp.Matrix([[1, 0], [1, 1]]), sp.Matrix([[sp.Rational(N, 7), 1]]))
    got = effective_dataset(task, Pathway("all", (1, 1))).Syx_float()
    assert got.tolist() == [[float(Fraction(N, 14)), float(Fraction(N + 7, 14))]]


def test_derivation_input_variance_of_a_surd_is_the_nearest_double():
    # X = [[-1, 0, 1], [-3, -1, 0]], Y = [[-1, 1, 2], [-2, 1, 0]], P = 3, by hand:
    # Σyx = Y Xᵀ / 3 = [[3, 2], [2, 5]] / 3 (symmetric), top eigenvalue (4 + √5)/3, v ∝ (2, 1 + √5),
    # ‖v‖² = 10 + 2√5; Σx = X Xᵀ / 3 = [[2, 3], [3, 10]] / 3, so
    # d = vᵀ Σx v / ‖v‖² = (80 + 32√5) / (3 (10 + 2√5)) = 2 + 2√5/3 ≈ 3.49071198499986
    X = sp.Matrix([[-1, 0, 1], [-3, -1, 0]])
    Y = sp.Matrix([[-1, 1, 2], [-2, 1, 0]])
    with mpmath.workdps(50):
        ref = float(2 + 2 * mpmath.sqrt(5) / 3)
    d_exact = 2 + 2 * sp.sqrt(5) / 3
    assert float(d_exact) != ref, "float() (15 digits first) was an ulp off for this d"
    der = Derivation(GDLNSpec(Task(X, Y), [Pathway("all", (1, 1, 1))]))
    top = der.modes["all"].modes[0]
    assert sp.simplify(top.d - d_exact) == 0
    assert top.d_float(der.reference) == ref
    # a second method: numpy's eigenvector of Σyx read against Σx (to 1e-12)
    w, V = np.linalg.eigh(np.array([[3.0, 2.0], [2.0, 5.0]]) / 3)
    v = V[:, np.argmax(w)]
    assert abs(v @ (np.array([[2.0, 3.0], [3.0, 10.0]]) / 3) @ v - ref) < 1e-12

