"""A square hidden in a tower of roots with symbols is taken out where its sign is proved.

Before, a radicand that holds a root and another symbol (a + 2√a + 1) became one root symbol y with
y² = b, whatever b was, so (a + 2√a + 1)^(3/2) − (√a + 1)³ was left undecided (y³ − (√a + 1)³ is not
zero modulo y² = a + 2√a + 1 and √a² = a). Now the radicand, with a = s² for its root s = √a, is tested
for being a square of a small polynomial Q (radicals._square_taken_out); then √b = |Q| = Q where the
symbols' assumptions prove Q ≥ 0 (−Q where Q ≤ 0), and nothing is found where the sign is not proved.

References, by hand (s = √a, t = √b, a, b > 0; n < 0, x < 0, u = √(−x)):
  a + 2s + 1 = (s + 1)²,  a + 4s + 4 = (s + 2)²,  a + b + 2st = (s + t)²,  ab + 2st + 1 = (st + 1)²
  (√(ab) = √a·√b for a, b ≥ 0),  n² − 2ns + a = (s − n)² with s − n > 0,
  x² − x − 2xu = u⁴ + u² + 2u³ = (u² + u)² with u² + u = −x + √(−x) > 0;
so b^(p/2) = Q^p for p = ±1, ±3. Each identity is also checked in mpmath at 50 digits at several points
(second method). Refused: a − 2s + 1 = (s − 1)², and s − 1 changes sign at a = 1, so
√((√a − 1)²) − (√a − 1) = 2(1 − √a) ≠ 0 for a < 1 and √((√a − 1)²) + √a − 1 = 2(√a − 1) ≠ 0 for a > 1;
with w of unknown sign, w² + 2w√b + b = (w + √b)² and w + √b < 0 at w = −5, b = 1; with a of unknown
sign SymPy does not prove √a + 1 ≥ 0 and nothing is decided (true for every complex a, not proved);
and a 0/0 through any of these squares is never called zero.
"""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from theorykit.theory import radicals
from theorykit.theory.radicals import _square_roots_multiplied_out, zero_by_radical_reduction

A, B = sp.symbols("a b", positive=True)
N, X = sp.Symbol("n", negative=True), sp.Symbol("x", negative=True)
U = sp.Symbol("a")                                        # no assumptions: sign unknown
SA, SB = sp.sqrt(A), sp.sqrt(B)
HALF = sp.Rational(1, 2)
POINTS = ["0.01", "0.3", "1", "2.5", "7", "40"]            # a, b > 0 (b = 2a + 1/3 below)
ZERO_NUM = (SA + 1) * (SA - 1) - A + 1                     # ≡ 0 by expansion

mp_sqrt = mpmath.sqrt


def _mp_point(p):
    a = mpmath.mpf(p)
    return {"a": a, "b": 2 * a + mpmath.mpf(1) / 3, "n": -a, "x": -a}


# (radicand, Q, mpmath radicand, mpmath Q): radicand = Q² with Q > 0 on the symbols' domain (by hand above)
SQUARES = {
    "a+2sqrt(a)+1": (A + 2 * SA + 1, SA + 1, lambda v: v["a"] + 2 * mp_sqrt(v["a"]) + 1, lambda v: mp_sqrt(v["a"]) + 1),
    "a+4sqrt(a)+4": (A + 4 * SA + 4, SA + 2, lambda v: v["a"] + 4 * mp_sqrt(v["a"]) + 4, lambda v: mp_sqrt(v["a"]) + 2),
    "a+b+2sqrt(a)sqrt(b)": (A + B + 2 * SA * SB, SA + SB,
                            lambda v: v["a"] + v["b"] + 2 * mp_sqrt(v["a"]) * mp_sqrt(v["b"]),
                            lambda v: mp_sqrt(v["a"]) + mp_sqrt(v["b"])),
    "ab+2sqrt(ab)+1": (A * B + 2 * sp.sqrt(A * B) + 1, SA * SB + 1,
                       lambda v: v["a"] * v["b"] + 2 * mp_sqrt(v["a"] * v["b"]) + 1,
                       lambda v: mp_sqrt(v["a"]) * mp_sqrt(v["b"]) + 1),
    "n^2-2n*sqrt(a)+a": (N ** 2 - 2 * N * SA + A, SA - N,
                         lambda v: v["n"] ** 2 - 2 * v["n"] * mp_sqrt(v["a"]) + v["a"],
                         lambda v: mp_sqrt(v["a"]) - v["n"]),
    "x^2-x-2x*sqrt(-x)": (X ** 2 - X - 2 * X * sp.sqrt(-X), -X + sp.sqrt(-X),
                          lambda v: v["x"] ** 2 - v["x"] - 2 * v["x"] * mp_sqrt(-v["x"]),
                          lambda v: -v["x"] + mp_sqrt(-v["x"])),
}
EXPONENTS = [1, -1, 3, -3]                                 # b^(p/2) = Q^p


def _check_numerically(mp_radicand, mp_q, p):
    with mpmath.workdps(50):
        for pt in POINTS:
            v = _mp_point(pt)
            assert abs(mp_radicand(v) ** (mpmath.mpf(p) / 2) - mp_q(v) ** p) < mpmath.mpf(10) ** -40


@pytest.mark.parametrize("p", EXPONENTS)
@pytest.mark.parametrize("name", list(SQUARES))
def test_a_square_in_a_symbolic_tower_is_taken_out(name, p):
    radicand, q, mp_radicand, mp_q = SQUARES[name]
    _check_numerically(mp_radicand, mp_q, p)
    assert zero_by_radical_reduction(radicand ** (p * HALF) - q ** p)
    assert not zero_by_radical_reduction(radicand ** (p * HALF) + q ** p)      # 2Q^p ≠ 0: not zero


@pytest.mark.parametrize("name", list(SQUARES))
def test_zero_over_zero_through_a_square_taken_out_is_not_called_zero(name):
    radicand, q, mp_radicand, mp_q = SQUARES[name]
    _check_numerically(mp_radicand, mp_q, 1)                 # the denominator √b − Q is 0 on the domain
    assert not zero_by_radical_reduction(ZERO_NUM / (sp.sqrt(radicand) - q))
    assert _square_roots_multiplied_out(1 / (sp.sqrt(radicand) - q)) is None


def test_a_tower_with_a_square_taken_out_is_multiplied_out():
    # (√(a + 2√a + 1) − 1)/√a = (√a + 1 − 1)/√a = 1 for a > 0 (by hand)
    with mpmath.workdps(50):
        for pt in POINTS:
            a = mpmath.mpf(pt)
            assert abs((mp_sqrt(a + 2 * mp_sqrt(a) + 1) - 1) / mp_sqrt(a) - 1) < mpmath.mpf(10) ** -45
    assert _square_roots_multiplied_out((sp.sqrt(A + 2 * SA + 1) - 1) / SA) == 1


W = sp.Symbol("w")                                          # no assumptions: sign unknown


@pytest.mark.parametrize("p", EXPONENTS)
def test_the_square_with_a_symbol_of_unknown_sign_is_not_proved(p):
    # with w of unknown sign, Q = w + √b can be < 0 (w = −5, b = 1: Q = −4, √(Q²) = 4 ≠ Q), so
    # √(w² + 2w√b + b) − (w + √b) is not zero there: it must not be proved
    with mpmath.workdps(50):
        w, b = mpmath.mpf(-5), mpmath.mpf(1)
        assert abs(mp_sqrt(w ** 2 + 2 * w * mp_sqrt(b) + b) - (w + mp_sqrt(b))) > 7
    assert not zero_by_radical_reduction((W ** 2 + 2 * W * SB + B) ** (p * HALF) - (W + SB) ** p)
    # the task's family with a of unknown sign: SymPy does not prove √a + 1 ≥ 0 (a may be < 0), so
    # nothing is decided (the identity holds for every complex a, Re(√a + 1) ≥ 1, but is not proved)
    s = sp.sqrt(U)
    assert not zero_by_radical_reduction((U + 2 * s + 1) ** (p * HALF) - (s + 1) ** p)
    y = sp.Dummy("y")
    assert radicals._square_taken_out(U + 2 * y + 1, {U: y}) is None


@pytest.mark.parametrize("sign", [-1, 1])
def test_a_square_whose_root_changes_sign_is_not_called_zero(sign):
    # (√a − 1)² = a − 2√a + 1; √((√a − 1)²) = |√a − 1|, so √(…) + sign·(√a − 1) is 2|√a − 1| ≠ 0 on one side of 1
    with mpmath.workdps(50):
        side = "0.25" if sign == -1 else "4"
        a = mpmath.mpf(side)
        assert abs(mp_sqrt(a - 2 * mp_sqrt(a) + 1) + sign * (mp_sqrt(a) - 1)) > mpmath.mpf("0.5")
    assert not zero_by_radical_reduction(sp.sqrt(A - 2 * SA + 1) + sign * (SA - 1))
    assert not zero_by_radical_reduction(((SA - 1) ** 2) ** HALF + sign * (SA - 1))


def test_a_square_past_the_bound_stays_one_root():
    # (√a + 1)⁵ squared is of degree 10 in s = √a (> 8) and 11 terms: not tried, the identity undecided
    q = (SA + 1) ** 5
    assert radicals._SQUARE_MAX_DEGREE < 10
    assert not zero_by_radical_reduction(sp.sqrt(sp.expand(q ** 2)) - q)


def test_a_radicand_with_a_float_is_not_taken_out():
    # 2.0 is known only to its digits: a + 2.0√a + 1.0 is not read as the square (√a + 1)²
    y = sp.Dummy("y")
    assert radicals._square_taken_out(A + 2.0 * y + 1.0, {A: y}) is None
    assert not zero_by_radical_reduction(sp.sqrt(A + 2.0 * SA + 1.0) - SA - 1)
