"""`modes.is_zero`'s numeric fallback evaluates at points in each symbol's domain, and a 0/0 is not zero.

After the exact test (`zero_by_radical_reduction`) leaves an expression undecided, `is_zero` evaluates it
at random points and, if it vanishes there, confirms with `simplify`. The points lay in [0.3, 2.5] for
every symbol, and an undefined value (nan) passed as vanishing (`nan > tol` is False); `simplify` then
returns 0 for a 0/0 whose numerator simplifies to 0. So for x < 0 (by hand: √(x² − x − 2x√−x) =
√((√−x − x)²) = √−x − x, the denominator below is 0, and so is the numerator), a 0/0 was called zero.
"""
from __future__ import annotations

import mpmath
import sympy as sp

from theorykit.theory.modes import is_zero

x = sp.Symbol("x", negative=True)


def test_zero_over_zero_on_a_negative_domain_is_not_zero():
    num = (sp.sqrt(-x) + 1) * (sp.sqrt(-x) - 1) + x + 1
    den = sp.sqrt(x ** 2 - x - 2 * x * sp.sqrt(-x)) - sp.sqrt(-x) + x
    with mpmath.workdps(50):        # the reference: both vanish at x = −0.7, to 50 digits
        v = mpmath.mpf("-0.7")
        assert abs((mpmath.sqrt(-v) + 1) * (mpmath.sqrt(-v) - 1) + v + 1) < mpmath.mpf(10) ** -45
        assert abs(mpmath.sqrt(v ** 2 - v - 2 * v * mpmath.sqrt(-v)) - mpmath.sqrt(-v) + v) < mpmath.mpf(10) ** -45
    assert is_zero(num / den, trials=4) is False


def test_true_zeros_and_non_zeros_on_a_negative_domain():
    assert is_zero(sp.sqrt(x ** 2) + x)          # √(x²) = |x| = −x for x < 0
    assert not is_zero(sp.sqrt(x ** 2) - x)       # = −2x ≠ 0
