"""Rules from a maintainer merging the two square-root reductions of theorykit.theory.radicals
(zero_by_radical_reduction, behind is_zero; _square_roots_multiplied_out, behind tidy) into one core:
roots replaced by symbols innermost first, one triangular set of relations y² − b (outer roots first
in a lex order, so that reduction modulo them is a normal form), one reduction, the same bounds.

Before, the zero test put the inner roots first, where a tower's relations are not a triangular set:
it proved some nested identities by luck and missed others, "proved" 0/0 to be zero, and had no
bounds. Every expected value here is derived by hand in the docstrings (r = √(x² + 1), s = √x,
t = √(1 + s), so r² = x² + 1, s² = x, t² = 1 + s).
"""
import sympy as sp

import theorykit as tk
from theorykit.theory.radicals import RADICAL_REDUCTION_MAX_ROOTS
from theorykit.theory.radicals import _square_roots_multiplied_out as reduce_
from theorykit.theory.radicals import zero_by_radical_reduction as zero

x = sp.Symbol("x")
r, s = sp.sqrt(x ** 2 + 1), sp.sqrt(x)
t = sp.sqrt(1 + s)


def test_zero_test_proves_identities_in_towers_of_roots():
    """(x + r)² = 2x² + 2xr + 1, so ((x + r)/√(2x² + 2xr + 1))² − 1 = 0; (t + 1)² − 2t − 2 = t² − 1 = s, and
    s² = x, so ((t + 1)² − 2t − 2)² − x = 0; (t + 1)(t − 1)·s = (t² − 1)·s = s² = x; 1/(t − 1) = (t + 1)/(t² − 1)
    = (t + 1)/s. (The last three were missed before: a remainder in t⁴ was left.)"""
    assert zero(((x + r) / sp.sqrt(2 * x ** 2 + 2 * x * r + 1)) ** 2 - 1)
    assert zero(((t + 1) ** 2 - 2 * t - 2) ** 2 - x)
    assert zero((t + 1) * (t - 1) * s - x)
    assert zero(1 / (t - 1) - (t + 1) / s)


def test_zero_test_stays_undecided_outside_its_reach():
    """True identities it cannot prove: (t' + 1)(t' − 1) = ∛x with t' = √(1 + ∛x), cubed is x (a cube root);
    (r + 1)(r − 1) = x², times sin² + cos² = 1 (a function in it); Σᵢ ((√(x + i) + 1)² − 2√(x + i) − x − i − 1)
    over 7 roots is a sum of zeros, past the bound of 6 distinct roots (the same bound as tidy's reduction).
    And the non-zero: (t + 1)(t − 1)·s − x − 1 = −1; (x + r)/√(2x² + 2xr + 1) − 1 is 0 with the principal
    roots at real x but −2 with r's other sign (x − r < 0), so not zero for either sign; 0/0 (numerator
    (s + 1)² − 2s − x − 1 = 0 and denominator (r' + 1)² − 2r' − x − 2 = 0 with r' = √(x + 1)) is not zero."""
    c = x ** sp.Rational(1, 3)
    tc = sp.sqrt(1 + c)
    assert not zero(((tc + 1) * (tc - 1)) ** 3 - x)
    assert not zero((r + 1) * (r - 1) - x ** 2 * (sp.sin(x) ** 2 + sp.cos(x) ** 2))
    many = sum((sp.sqrt(x + i) + 1) ** 2 - 2 * sp.sqrt(x + i) - x - i - 1 for i in range(1, 8))
    assert RADICAL_REDUCTION_MAX_ROOTS < 7 and not zero(many)
    assert zero(sum((sp.sqrt(x + i) + 1) ** 2 - 2 * sp.sqrt(x + i) - x - i - 1 for i in range(1, 3)))
    assert not zero((t + 1) * (t - 1) * s - x - 1)
    assert not zero((x + r) / sp.sqrt(2 * x ** 2 + 2 * x * r + 1) - 1)
    rr = sp.sqrt(x + 1)
    assert not zero(((s + 1) ** 2 - 2 * s - x - 1) / ((rr + 1) ** 2 - 2 * rr - x - 2))


def test_reduction_and_zero_test_agree():
    """Where tidy's reduction gives a rational function, the zero test proves the difference zero, and the
    value is the one by hand: ((x + r)/√(2x² + 2xr + 1))² = 1; 1/(1 + s) + 1/(1 − s) = 2/(1 − x);
    s/(t − 1) = s(t + 1)/s = t + 1 keeps a root (None); the input variance d of a mode whose singular vectors
    rotate with Δ (targets 2·[[1, Δ], [0, 1]] on I₂: Σx = I/2 and v a unit vector) is ½."""
    D = sp.Symbol("Delta", nonnegative=True)
    task = tk.Task(sp.eye(2), 2 * sp.Matrix([[1, D], [0, 1]]), {"Delta": D})
    der = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 8, 2),)))
    cases = [(((x + r) / sp.sqrt(2 * x ** 2 + 2 * x * r + 1)) ** 2, 1),
             (1 / (1 + s) + 1 / (1 - s), 2 / (1 - x))]
    cases += [(m.d_untidied, sp.Rational(1, 2)) for m in der.modes["p"].modes]
    assert any(e.has(sp.Pow) and not e.is_Rational for e, _ in cases[2:])
    for e, want in cases:
        got = reduce_(e)
        assert got is not None and sp.cancel(got - want) == 0, (e, got)
        assert zero(e - got) and zero(e - want), e
    assert reduce_(s / (t - 1)) is None and zero(s / (t - 1) - t - 1)


def test_the_zero_test_proves_identities_with_high_powers_of_sums():
    """The operation and power bounds guard tidy's rationalisation, not the zero test (one reduction of
    the numerator): (x + 1)⁵ − (x⁵ + 5x⁴ + 10x³ + 10x² + 5x + 1) = 0 by the binomial theorem, and
    (√x + 1)⁶ − (x³ + 6x²√x + 15x² + 20x√x + 15x + 6√x + 1) = 0 (binomial, (√x)^k = x^(k/2)). Both are
    proved exactly, as they were before the two reductions shared one core; a wrong coefficient is not."""
    x = sp.Symbol("x", positive=True)
    r = sp.sqrt(x)
    assert zero(sp.Pow(x + 1, 5, evaluate=False) - (x**5 + 5*x**4 + 10*x**3 + 10*x**2 + 5*x + 1))
    six = x**3 + 6*x**2*r + 15*x**2 + 20*x*r + 15*x + 6*r + 1
    assert zero(sp.Pow(r + 1, 6, evaluate=False) - six)
    assert not zero(sp.Pow(r + 1, 6, evaluate=False) - six - x)
