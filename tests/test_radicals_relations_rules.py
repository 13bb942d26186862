"""Rules for the exact square-root reduction of theorykit.theory.radicals (behind is_zero's exact step
and tidy, so a mode's d) on roots that are related by a product and on radicands that are squares.

Before, each distinct radicand got its own symbol y with y² = b: √(2Δ² + 4) and √2·√(Δ² + 2) were
unrelated symbols (so an exact zero or a rational ratio of them was missed), and a radicand that is a
square made ring elements that vanish on one branch (y − S with y² = S²), so that 0/0 was called zero.
Every expected value is derived by hand in the docstrings and checked with mpmath at 50 digits at
several points (an independent evaluation, not the code under test).
"""
import mpmath
import numpy as np
import sympy as sp

import theorykit as tk
from theorykit.theory.modes import tidy
from theorykit.theory.radicals import _square_roots_multiplied_out as reduce_
from theorykit.theory.radicals import zero_by_radical_reduction as zero

D = sp.Symbol("Delta", nonnegative=True)
xp = sp.Symbol("x", positive=True)
x = sp.Symbol("x")
POINTS = ("0.3", "1.7", "2.9")


def mp50(e, sym, at):
    """``e`` at ``sym = at`` in mpmath at 50 digits (principal roots), by lambdify: not the reduction."""
    with mpmath.workdps(50):
        return sp.lambdify(sym, e, "mpmath")(mpmath.mpf(at))


def test_roots_related_by_a_product_share_their_symbols():
    """√(2Δ² + 4) = √2·√(Δ² + 2) and √(6Δ² + 6) = √2·√(3Δ² + 3) (both = √6·√(Δ² + 1)): positive factors
    (content 2, 6, 3 and Δ² + 1 > 0) come out of a principal root, so the differences are 0.
    √(8Δ² + 8)·√(2Δ² + 2) = √16·(Δ² + 1) = 4(Δ² + 1), so its ratio to Δ² + 1 is 4.
    (√(2Δ² + 4) − 2)/(√2·√(Δ² + 2) − 2) has equal numerator and denominator: 1, and 0/0 at Δ = 0 as written.
    Before, each radicand had its own symbol: the zero test missed the first two and the reduction gave None."""
    a = sp.sqrt(2 * D ** 2 + 4) - sp.sqrt(2) * sp.sqrt(D ** 2 + 2)
    b = sp.sqrt(6 * D ** 2 + 6) - sp.sqrt(2) * sp.sqrt(3 * D ** 2 + 3)
    four = sp.sqrt(8 * D ** 2 + 8) * sp.sqrt(2 * D ** 2 + 2) / (D ** 2 + 1)
    one = (sp.sqrt(2 * D ** 2 + 4) - 2) / (sp.sqrt(2) * sp.sqrt(D ** 2 + 2) - 2)
    for at in POINTS:
        assert abs(mp50(a, D, at)) < 1e-45 and abs(mp50(b, D, at)) < 1e-45
        assert abs(mp50(four, D, at) - 4) < 1e-45 and abs(mp50(one, D, at) - 1) < 1e-45
    assert zero(a) and zero(b)
    assert reduce_(four) == 4 and reduce_(one) == 1 and tidy(one) == 1
    assert zero(sp.sqrt(2) * sp.sqrt(D) * sp.sqrt(3 * D + 3) - sp.sqrt(6 * D ** 2 + 6 * D))   # √(6Δ(Δ+1)), Δ ≥ 0
    assert not zero(a + sp.sqrt(2) - sp.sqrt(3))          # √2 − √3 ≠ 0: independent primes stay independent


def test_a_zero_denominator_made_of_related_roots_is_not_called_zero():
    """Numerator (√Δ + 1)(√Δ − 1) − Δ + 1 = Δ − 1 − Δ + 1 = 0 and denominator √(2Δ² + 4) − √2·√(Δ² + 2) = 0
    (above): 0/0 everywhere, which is not zero. Before, the denominator's reduced form (y₁ − y₂·y₃) was not
    zero, so the quotient was "proved" zero."""
    den = sp.sqrt(2 * D ** 2 + 4) - sp.sqrt(2) * sp.sqrt(D ** 2 + 2)
    num = (sp.sqrt(D) + 1) * (sp.sqrt(D) - 1) - D + 1
    for at in POINTS:
        assert abs(mp50(den, D, at)) < 1e-45 and abs(mp50(num, D, at)) < 1e-45
    assert not zero(num / den)
    assert reduce_(num / den) is None


def test_a_square_radicand_is_its_root_only_where_the_sign_is_known():
    """√(x² + 2x + 1) = |x + 1|: x + 1 for x > 0, so √(x² + 2x + 1) − x − 1 = 0 there, and
    ((√x + 1)(√x − 1) − x + 1)/(√(x² + 2x + 1) − x − 1) is 0/0 for x > 0 (not zero; before it was called
    zero). For a real x of unknown sign |x + 1| − x − 1 is 4 at x = −3, so it is not proved zero, and the
    0/0 quotient is not called zero either. √(Δ⁴ + Δ²) = Δ·√(Δ² + 1) for Δ ≥ 0 (a square factor of known
    sign comes out), but for a real x, √(x⁴ + x²) − x√(x² + 1) = 2√2 at x = −1. √(Δ² + 2Δ + 1)/(Δ + 1) = 1
    for Δ ≥ 0; for a real x, √(x² + 2x + 1)/(x + 1) is the sign of x + 1, no rational function."""
    sq = sp.sqrt(xp ** 2 + 2 * xp + 1)
    num = (sp.sqrt(xp) + 1) * (sp.sqrt(xp) - 1) - xp + 1
    for at in POINTS:
        assert abs(mp50(sq - xp - 1, xp, at)) < 1e-45 and abs(mp50(num, xp, at)) < 1e-45
    assert zero(sq - xp - 1)
    assert not zero(num / (sq - xp - 1))
    sqx = sp.sqrt(x ** 2 + 2 * x + 1)
    assert abs(mp50(sqx - x - 1, x, "-3") - 4) < 1e-45
    assert not zero(sqx - x - 1)
    assert not zero(((sp.sqrt(x) + 1) * (sp.sqrt(x) - 1) - x + 1) / (sqx - x - 1))
    quartic = sp.sqrt(D ** 4 + D ** 2) - D * sp.sqrt(D ** 2 + 1)
    quartic_x = sp.sqrt(x ** 4 + x ** 2) - x * sp.sqrt(x ** 2 + 1)
    for at in POINTS:
        assert abs(mp50(quartic, D, at)) < 1e-45
    assert abs(mp50(quartic_x, x, "-1") - mp50(2 * sp.sqrt(2), x, "-1")) < 1e-45
    assert zero(quartic) and not zero(quartic_x)
    ratio = sp.sqrt(D ** 2 + 2 * D + 1) / (D + 1)
    for at in POINTS:
        assert abs(mp50(ratio, D, at) - 1) < 1e-45
    assert reduce_(ratio) == 1
    assert reduce_(sqx / (x + 1)) is None


def test_singular_vectors_of_a_two_by_two_gram_problem_over_a_symbol_are_tidied_quickly(monkeypatch):
    """Targets f = [[1, 2Δ], [1, Δ − 1]] on the inputs I₂: Σyx = f/2, so the modes are f's SVD halved. Its
    right singular vectors (eigenvectors of fᵀf) hold roots of sums holding roots of Δ; radsimp ran 92–129 s
    per entry on a 2-core CPU to return them unchanged (it now takes about a second). No wall-clock
    limit here (the house rule: speed is measured in benchmarks, not timed tests): a spy on ``radsimp``
    checks that it is never handed an entry whose denominator holds such a root (it was, before). The
    vectors are checked against numpy's SVD of f at three points (up to the sign of each pair), and s
    against σ/2: at Δ = 0, σ² = (3 ± √5)/2 by hand."""
    task = tk.Task(sp.eye(2), sp.Matrix([[1, 2 * D], [1, D - 1]]), {"Delta": D})
    handed, real_radsimp = [], sp.radsimp

    def spy(e, *a, **kw):
        # a root of a sum that itself holds a root of Δ, in the denominator: nothing radsimp can rationalise
        handed.append(any(r.exp == sp.Rational(1, 2) and any(q.exp == sp.Rational(1, 2) and q.free_symbols
                                                               for q in r.base.atoms(sp.Pow))
                          for r in sp.denom(e).atoms(sp.Pow)))
        return e if handed[-1] else real_radsimp(e, *a, **kw)     # unchanged, as radsimp gave after minutes

    monkeypatch.setattr(sp, "radsimp", spy)
    modes = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 8, 2),))).modes["p"].modes
    vecs = [(m.s, m.u, m.v, m.d) for m in modes]
    monkeypatch.setattr(sp, "radsimp", real_radsimp)
    assert not any(handed), f"radsimp was handed {sum(handed)} entries with a nested root of Δ in the denominator"
    assert [d for *_, d in vecs] == [sp.Rational(1, 2)] * 2
    s0 = sorted(float(s.subs(D, 0)) ** 2 * 4 for s, *_ in vecs)
    assert np.allclose(s0, [(3 - 5 ** 0.5) / 2, (3 + 5 ** 0.5) / 2], rtol=1e-13)
    for at in (0.3, 1.7, 2.9):
        U, sig, Vt = np.linalg.svd(np.array([[1, 2 * at], [1, at - 1]]))
        for i, (s, u, v, _) in enumerate(vecs):
            uu, vv = (np.array([float(sp.N(e.subs(D, sp.Float(at, 30)), 30)) for e in col]) for col in (u, v))
            sign = np.sign(vv @ Vt[i])
            assert abs(float(sp.N(s.subs(D, sp.Float(at, 30)))) - sig[i] / 2) < 1e-12
            assert np.allclose(sign * vv, Vt[i], atol=1e-12) and np.allclose(sign * uu, U[:, i], atol=1e-12)
