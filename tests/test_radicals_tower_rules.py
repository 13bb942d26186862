"""Squares hidden in towers of roots: found in numbers, never mistaken for a proof with symbols.

Before, a radicand holding another root (a tower) became one root symbol y with y² = b, whatever b
was. When b is a square in the field of the inner roots (3 + 2√2 = (1 + √2)²; x + 2√x + 1 = (√x + 1)²),
an element that is not zero modulo y² = b can still vanish for the principal roots, so a 0/0 was
called zero:
  ((√x + 1)(√x − 1) − x + 1) / (√(3 + 2√2) − 1 − √2)      (numerator ≡ 0, denominator = 0 by hand)
  ((√x + 1)(√x − 1) − x + 1) / (√(x + 2√x + 1) − √x − 1)   (the same, the square symbolic; x > 0)
and √(3 + 2√2) − 1 − √2 = 0 was not proved. Now a tower of numbers is denested by SymPy's sqrtdenest
(exact), and a denominator that vanishes at a point of the principal branch makes the test undecided.

References, by hand: (1 + √2)² = 3 + 2√2, (√3 − √2)² = 5 − 2√6 with √3 > √2, ((√6 + √2)/2)² = (8 + 2√12)/4
= 2 + √3; and each identity checked in mpmath at 50 digits below.
"""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from theorykit.theory.radicals import _square_roots_multiplied_out, zero_by_radical_reduction

x = sp.Symbol("x", positive=True)
r2, r3, r6 = sp.sqrt(2), sp.sqrt(3), sp.sqrt(6)
ZERO_OVER_ZERO_NUM = (sp.sqrt(x) + 1) * (sp.sqrt(x) - 1) - x + 1       # ≡ 0 by expansion

IDENTITIES = [
    (sp.sqrt(3 + 2 * r2) - 1 - r2, lambda: mpmath.sqrt(3 + 2 * mpmath.sqrt(2)) - 1 - mpmath.sqrt(2)),
    (sp.sqrt(5 - 2 * r6) - r3 + r2, lambda: mpmath.sqrt(5 - 2 * mpmath.sqrt(6)) - mpmath.sqrt(3) + mpmath.sqrt(2)),
    (sp.sqrt(2 + r3) - (r6 + r2) / 2,
     lambda: mpmath.sqrt(2 + mpmath.sqrt(3)) - (mpmath.sqrt(6) + mpmath.sqrt(2)) / 2),
]


@pytest.mark.parametrize("expr, reference", IDENTITIES)
def test_a_square_in_a_tower_of_numbers_is_proved_zero(expr, reference):
    with mpmath.workdps(50):
        assert abs(reference()) < mpmath.mpf(10) ** -45        # the identity holds (second method)
    assert zero_by_radical_reduction(expr)


def test_a_tower_that_is_not_a_square_is_not_called_zero():
    # √(3 + √2) is not 1 + √2 (its square is 3 + √2, (1 + √2)² = 3 + 2√2): not zero, not proved
    assert not zero_by_radical_reduction(sp.sqrt(3 + r2) - 1 - r2)
    assert not zero_by_radical_reduction(sp.sqrt(3 + 2 * r2) - 1)


@pytest.mark.parametrize("den", [sp.sqrt(3 + 2 * r2) - 1 - r2, sp.sqrt(x + 2 * sp.sqrt(x) + 1) - sp.sqrt(x) - 1])
def test_zero_over_zero_through_a_hidden_square_is_not_called_zero(den):
    with mpmath.workdps(50):                                     # the denominator is 0 on the principal branch
        value = den.subs(x, sp.Rational(7, 3)).evalf(50)
        assert abs(value) < 1e-45
    assert not zero_by_radical_reduction(ZERO_OVER_ZERO_NUM / den)


def test_a_tower_of_numbers_is_multiplied_out():
    # (√(3 + 2√2) − 1)/√2 = √2/√2 = 1 by hand
    assert _square_roots_multiplied_out((sp.sqrt(3 + 2 * r2) - 1) / r2) == 1
    # 1/(√(x + 2√x + 1) − √x − 1) is 1/0: no rational function
    assert _square_roots_multiplied_out(1 / (sp.sqrt(x + 2 * sp.sqrt(x) + 1) - sp.sqrt(x) - 1)) is None
