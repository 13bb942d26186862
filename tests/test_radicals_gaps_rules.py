"""The zero test's point lies in the symbols' domains; towers written with other exponents.

Before, the one point at which a denominator is evaluated (radicals._point, the guard against a 0/0
through a square the relations do not see) put every symbol in [0.3, 2.5], whatever its assumptions.
For a symbol declared negative, nonpositive or imaginary that point is outside its domain, and there
the principal roots can take the other sign, so a denominator that vanishes on ALL of the domain was
not seen to vanish and a 0/0 was called zero:

  x < 0, s = √(−x) > 0:  x² − x − 2x√(−x) = s⁴ + s² + 2s³ = (s² + s)²  and  s² + s > 0,
      so √(x² − x − 2x√(−x)) = s² + s = −x + √(−x), and
      TOWER = √(x² − x − 2x√(−x)) − √(−x) + x = 0 for every x < 0 (for x > 0 it is 2x − 2i√x ≠ 0);
  x < 0:  x² − x = (−x)(1 − x) with −x > 0, 1 − x > 0, so √(x² − x) = √(−x)·√(1 − x), and
      PRODUCT = √(x² − x) − √(−x)·√(1 − x) = 0 for every x < 0 (for x > 1 it is 2√(x² − x) ≠ 0);
  x = it, t ≠ 0:  w = √x − x² has Re w = Re √x + t² > 0 (Re √x ≥ 0), so √(w²) = w, and
      IMAGINARY = √(x + x⁴ − 2x²√x) − √x + x² = 0 for every imaginary x (for real x > 1 it is −2w ≠ 0).

The numerators below are ≡ 0 by expansion ((s + 1)(s − 1) = s² − 1 = −x − 1), so these are 0/0 on the
whole domain and must not be called zero. The other way, a denominator that vanishes only outside the
domain (TOWER with the other sign of its last two terms: 2s(s + 1) ≠ 0 for x < 0, but 0 at x > 0) made the
test refuse a true proof. Each vanishing is checked in mpmath at 50 digits below (second method).
"""
from __future__ import annotations

import random

import mpmath
import pytest
import sympy as sp

from theorykit.theory import radicals
from theorykit.theory.radicals import _square_roots_multiplied_out, zero_by_radical_reduction

NEG = sp.Symbol("x", negative=True)
NONPOS = sp.Symbol("x", nonpositive=True)
IM = sp.Symbol("x", imaginary=True)


def _num_neg(x):
    return (sp.sqrt(-x) + 1) * (sp.sqrt(-x) - 1) + x + 1          # s² − 1 + x + 1 = 0, s = √(−x)


def _tower(x, sign=-1):
    return sp.sqrt(x ** 2 - x - 2 * x * sp.sqrt(-x)) + sign * (sp.sqrt(-x) - x)


def _product(x):
    return sp.sqrt(x ** 2 - x) - sp.sqrt(-x) * sp.sqrt(1 - x)


def _mp_tower(x, sign=-1):
    s = mpmath.sqrt(-x)
    return mpmath.sqrt(x ** 2 - x - 2 * x * s) + sign * (s - x)


def _mp_product(x):
    return mpmath.sqrt(x ** 2 - x) - mpmath.sqrt(-x) * mpmath.sqrt(1 - x)


def _mp_imaginary(x):
    w = mpmath.sqrt(x) - x ** 2
    return mpmath.sqrt(x + x ** 4 - 2 * x ** 2 * mpmath.sqrt(x)) - w


NEGATIVE_POINTS = ["-0.05", "-0.6", "-1", "-1.7", "-3.3", "-40"]


@pytest.mark.parametrize("x", [NEG, NONPOS], ids=["negative", "nonpositive"])
@pytest.mark.parametrize("den, reference", [(_tower, _mp_tower), (_product, _mp_product)],
                         ids=["tower", "product"])
def test_zero_over_zero_on_a_nonpositive_domain_is_not_called_zero(x, den, reference):
    with mpmath.workdps(50):
        for p in NEGATIVE_POINTS:                                 # the denominator is 0 on all of x < 0
            assert abs(reference(mpmath.mpf(p))) < mpmath.mpf(10) ** -45
        assert abs(reference(mpmath.mpf("2.2"))) > 1               # and not at a point x > 1
    assert not zero_by_radical_reduction(_num_neg(x) / den(x))
    assert _square_roots_multiplied_out(1 / den(x)) is None


def test_zero_over_zero_on_an_imaginary_domain_is_not_called_zero():
    with mpmath.workdps(50):
        for t in ["0.05", "0.4", "1.7", "-0.4", "-3.1", "-25"]:
            assert abs(_mp_imaginary(mpmath.mpc(0, t))) < mpmath.mpf(10) ** -45
        assert abs(_mp_imaginary(mpmath.mpf("2.2"))) > 1
    x = IM
    num = (sp.sqrt(x) + 1) * (sp.sqrt(x) - 1) - x + 1
    w = sp.sqrt(x) - x ** 2
    assert not zero_by_radical_reduction(num / (sp.sqrt(sp.expand(w ** 2)) - w))


@pytest.mark.parametrize("x", [NEG, NONPOS], ids=["negative", "nonpositive"])
def test_a_true_zero_on_a_nonpositive_domain_is_proved(x):
    # √(x² − x − 2x√(−x)) + √(−x) − x = (s² + s) + s + s² = 2s(s + 1) ≠ 0 for x < 0 (by hand, above)
    with mpmath.workdps(50):
        for p in NEGATIVE_POINTS:
            assert abs(_mp_tower(mpmath.mpf(p), +1) - 2 * mpmath.sqrt(-mpmath.mpf(p)) * (
                mpmath.sqrt(-mpmath.mpf(p)) + 1)) < mpmath.mpf(10) ** -45
    assert zero_by_radical_reduction(_num_neg(x) / _tower(x, +1))


def test_a_true_zero_with_symbols_known_not_real_is_still_proved():
    z = sp.Symbol("z", real=False)
    num = (sp.sqrt(z) + 1) * (sp.sqrt(z) - 1) - z + 1                # ≡ 0 by expansion
    assert zero_by_radical_reduction(num / (sp.sqrt(z) + 2))        # √z + 2 ≠ 0: Re √z ≥ 0
    assert zero_by_radical_reduction(num.subs(z, IM) / (sp.sqrt(IM) + 2))


def test_the_point_is_in_each_symbols_domain_and_unchanged_for_the_others():
    a, b = sp.symbols("a b", positive=True)
    u, v = sp.Symbol("u"), sp.Symbol("v", real=False)
    F, *_ = sp.field([a, NEG, IM, u, v, b], sp.QQ)
    vals = radicals._point(F.ring, [], 0)
    rng = random.Random(1729)                                       # the draws of before, in order
    draws = [rng.uniform(0.3, 2.5) for _ in range(6)]
    units = [1, -1, 1j, 1, 1 + 1j, 1]                               # positive, negative, imaginary, none, non-real
    assert [complex(p) for p in vals] == [complex(dr * w) for dr, w in zip(draws, units)]


# Towers with exponents other than 1/2: √(3 + 2√2) = 1 + √2 by hand ((1 + √2)² = 3 + 2√2), so
# (3 + 2√2)^(−1/2) = 1/(1 + √2) = √2 − 1 and (3 + 2√2)^(−3/2) = (√2 − 1)³; x^(3/2) = x·√x, x^(−1/2) = √x/x.
R2 = sp.sqrt(2)
POS = sp.Symbol("a", positive=True)
NUM_POS = (sp.sqrt(POS) + 1) * (sp.sqrt(POS) - 1) - POS + 1          # ≡ 0 by expansion
T = 3 + 2 * R2
HIDDEN = POS + 2 * sp.sqrt(POS) + 1                                    # (√a + 1)², √a + 1 > 0


@pytest.mark.parametrize("expr", [
    POS ** sp.Rational(3, 2) - POS * sp.sqrt(POS), POS ** sp.Rational(-1, 2) - sp.sqrt(POS) / POS,
    T ** sp.Rational(-1, 2) - (R2 - 1), T ** sp.Rational(-3, 2) - (R2 - 1) ** 3, T ** sp.Rational(3, 2) - (1 + R2) ** 3])
def test_towers_with_other_exponents_are_proved_zero(expr):
    with mpmath.workdps(50):
        assert abs(complex(expr.subs(POS, sp.Rational(7, 3)).evalf(50))) < 1e-45
    assert zero_by_radical_reduction(expr)


@pytest.mark.parametrize("den", [
    T ** sp.Rational(3, 2) - (1 + R2) ** 3, T ** sp.Rational(-1, 2) - 1 / (1 + R2),
    HIDDEN ** sp.Rational(3, 2) - (sp.sqrt(POS) + 1) ** 3, HIDDEN ** sp.Rational(-1, 2) - 1 / (sp.sqrt(POS) + 1),
    HIDDEN ** sp.Rational(-3, 2) - 1 / (sp.sqrt(POS) + 1) ** 3])
def test_zero_over_zero_through_a_tower_with_other_exponents_is_not_called_zero(den):
    with mpmath.workdps(50):
        for p in [sp.Rational(1, 3), sp.Rational(7, 3), 11]:       # 0 on the principal branch
            assert abs(den.subs(POS, p).evalf(50)) < 1e-45
    assert not zero_by_radical_reduction(NUM_POS / den)


def test_a_symbolic_tower_with_a_hidden_square_is_proved_zero():
    # (a + 2√a + 1)^(3/2) = ((√a + 1)²)^(3/2) = (√a + 1)³ for a > 0 (√a + 1 > 0)
    assert zero_by_radical_reduction(HIDDEN ** sp.Rational(3, 2) - (sp.sqrt(POS) + 1) ** 3)


@pytest.mark.parametrize("x", [NEG, NONPOS], ids=["negative", "nonpositive"])
def test_a_radicand_with_factors_known_to_be_nonpositive_shares_their_roots(x):
    # x ≤ 0: x² − x = (−x)(1 − x) with −x ≥ 0 and 1 − x ≥ 0, so √(x² − x) = √(−x)·√(1 − x) (√(a·z) = √a·√z
    # for a ≥ 0); x³ − x² = x²(x − 1), √ = |x|·√(x − 1) = −x·√(−1)·√(1 − x); before, √(x² − x) was a root
    # of its own and neither identity was proved (undecided, not wrong)
    with mpmath.workdps(50):
        for p in NEGATIVE_POINTS:
            X = mpmath.mpf(p)
            assert abs(_mp_product(X)) < mpmath.mpf(10) ** -45
            assert abs(mpmath.sqrt(X ** 3 - X ** 2) + X * mpmath.sqrt(-1) * mpmath.sqrt(1 - X)) < mpmath.mpf(10) ** -45
    assert zero_by_radical_reduction(_product(x))
    assert _square_roots_multiplied_out(sp.sqrt(x ** 2 - x) / (sp.sqrt(-x) * sp.sqrt(1 - x))) == 1
    assert zero_by_radical_reduction(sp.sqrt(x ** 3 - x ** 2) - sp.sqrt(x - 1) * sp.sqrt(x ** 2))
