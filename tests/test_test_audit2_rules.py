"""Rules from a test auditor, round 2 (tests/test_test_audit_rules.py was round 1).

Round 1 found that lowering ``t_half_float``'s ``quad(limit=200)`` to 20 survived every test. Round 2
looked for a case where the limit matters and found none: in x = ln a the integrand is an exponential
times a factor between 1/s and 2/s, and over depths 3 … 1000, a0 down to 1e-300 and s, d from 1e-12
to 1e6, quad used at most 7 subintervals and limit=20 returned the same bits as limit=200 (and
agreed with mpmath at 40 digits to 1e-13), so no test pins the limit. The search found instead that
below a0 ≈ 1e-154 the integrand's a^(2−2/L) underflowed and the half-way time came back inf; the tests
here pin the finite value.

Expected values are hand derivations in the comments, never a run of the code under test."""
from __future__ import annotations

import warnings

import pytest

from theorykit.theory.trajectory import t_half_float


def test_deep_half_way_time_from_a_tiny_start_is_finite():
    """t_½ = τ ∫_{a0}^{s/2d} da / (L a^(2−2/L) (s − d a)). For a0 → 0 the lower end dominates: there
    s − d a → s, and ∫_{a0} a^(2/L−2) da / (L s) = a0^(2/L−1) / (s L (1 − 2/L)) = a0^(2/L−1) / (s (L − 2)),
    with relative corrections O(a0^(1−2/L)) (the upper end and d a/s), far below rounding here.
    Depth 3, a0 = 1e-300, s = d = τ = 1: (1e-300)^(−1/3) = 1e100. Depth 50, a0 = 1e-200, s = 2, d = 1,
    τ = 3: 3 (1e-200)^(−0.96) / (2 · 48) = 1e192 / 32. Before the fix both were inf (a^(2−2/L)
    underflowed to 0, with a RuntimeWarning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # no divide-by-zero or integration warning either
        assert t_half_float(1.0, 1.0, 1e-300, 1.0, depth=3) == pytest.approx(1e100, rel=1e-12)
        assert t_half_float(2.0, 1.0, 1e-200, 3.0, depth=50) == pytest.approx(1e192 / 32, rel=1e-12)


def test_deep_half_way_time_is_unchanged_where_nothing_underflows():
    """Depth 4, s = d = 1, a0 = 1e-8, τ = 1: the integral ∫ a^(−3/2)/(4(1 − a)) da in closed form (put
    a = u², da = 2u du: ∫ du/(2u²(1 − u²)) = ½[−1/u + artanh u]) from u0 = 1e-4 to u1 = √½:
    ½[(1/u0 − 1/u1) + artanh u1 − artanh u0]."""
    import math

    u0, u1 = 1e-4, math.sqrt(0.5)
    want = 0.5 * ((1 / u0 - 1 / u1) + math.atanh(u1) - math.atanh(u0))
    assert t_half_float(1.0, 1.0, 1e-8, 1.0, depth=4) == pytest.approx(want, rel=1e-12)
