"""Size guards of the exhaustive enumerations (theorykit.theory.lemmas, theorykit.spec.gating.family_masks,
theorykit.analysis.exhaust.context_symmetries): a size whose count is over its bound in theorykit.spec.limits
is refused with a SpecError naming the argument, stating the count and a fix, before any allocation or loop
(each refusal is checked with a tripwire on the function's enumeration: reaching it fails the test at once,
so the test never allocates); the largest sizes the bounds admit still run where that is cheap. Golden
values: OEIS A099594 (the poly-Bernoulli table B_n^(−k)), Kaneko's formula and brute force written here,
or counts derived by hand in the comments; never the code under test."""
import itertools
import math
import types

import numpy as np
import pytest

import theorykit as tk
import theorykit.analysis.exhaust as ex
import theorykit.spec.gating as gating
import theorykit.theory.lemmas as lemmas
from theorykit.errors import SpecError
from theorykit.spec import limits


def _tripwire(module, name, monkeypatch, *attrs):
    """Replace ``module.name`` (a module such as itertools or numpy) by a namespace whose ``attrs`` fail the
    test: the guarded function must refuse before it enumerates or allocates anything."""
    real = getattr(module, name)
    fake = types.SimpleNamespace(**{a: getattr(real, a) for a in dir(real) if not a.startswith("__")})

    def boom(*args, **kwargs):
        raise AssertionError(f"{name} was called: the enumeration started instead of being refused")
    for a in attrs:
        setattr(fake, a, boom)
    monkeypatch.setattr(module, name, fake)


def _stirling2(n, k):
    """S(n, k) by the explicit formula (1/k!) Σ_j (−1)^j C(k, j) (k − j)^n: a second method."""
    return sum((-1) ** j * math.comb(k, j) * (k - j) ** n for j in range(k + 1)) // math.factorial(k)


def _poly_bernoulli_kaneko(n, k):
    """Kaneko's definition, B_n^(−k) = (−1)^n Σ_{m=0}^{n} (−1)^m m! S(n, m) (m + 1)^k: not the symmetric
    double sum that the package evaluates."""
    return (-1) ** n * sum((-1) ** m * math.factorial(m) * _stirling2(n, m) * (m + 1) ** k for m in range(n + 1))


# ------------------------------------------------------------------------------------------------
# all_patterns: at most 2^20 patterns
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,k,count", [(10, 4, "2^40 = 1,099,511,627,776"), (8, 3, "2^24 = 16,777,216"),
                                       (3, 7, "2^21 = 2,097,152"), (1, 21, "2^21 = 2,097,152")])
def test_all_patterns_refuses_over_2_to_the_20_before_allocating(n, k, count, monkeypatch):
    _tripwire(lemmas, "np", monkeypatch, "arange")
    with pytest.raises(SpecError) as exc:
        lemmas.all_patterns(n, k)
    e = exc.value
    assert e.field == "n, k"
    assert count in e.problem and "ALL_PATTERNS_MAX" in e.problem
    assert "at most 20" in e.fix and "lp_realisable" in e.fix and "poly_bernoulli" in e.fix


def test_all_patterns_refuses_astronomical_sizes_without_building_the_count(monkeypatch):
    """n·k = 10^18: 2^(10^18) is never built (it would not fit in memory); the message gives its size."""
    _tripwire(lemmas, "np", monkeypatch, "arange")
    with pytest.raises(SpecError, match=r"about 10\^\(3\.01e\+17\) patterns") as exc:
        lemmas.all_patterns(10 ** 9, 10 ** 9)
    assert exc.value.field == "n, k"


@pytest.mark.parametrize("n,k", [(20, 1), (4, 5)])
def test_all_patterns_at_the_bound_still_runs(n, k):
    """n·k = 20, the largest admitted: all 2^20 = 1,048,576 patterns, each once (as bits of its index)."""
    assert limits.ALL_PATTERNS_MAX == 2 ** 20
    P = lemmas.all_patterns(n, k)
    assert P.shape == (2 ** 20, n, k) and P.dtype == bool
    codes = P.reshape(len(P), -1).astype(np.int64) @ (1 << np.arange(20, dtype=np.int64))
    assert np.array_equal(np.sort(codes), np.arange(2 ** 20))


# ------------------------------------------------------------------------------------------------
# realisable_gate_patterns: at most 10^7 weight orderings k^k (k + 1)^n
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,k,count", [(10, 4, "2,500,000,000"),          # 4^4 · 5^10 = 256 · 9,765,625
                                       (10, 3, "28,311,552"),             # 3^3 · 4^10 = 27 · 1,048,576
                                       (5, 5, "24,300,000"),              # 5^5 · 6^5 = 3125 · 7776
                                       # 10^6^(10^6) · (10^6 + 1)^2: 10^(6·10^6 + 12.0000009)
                                       (2, 10 ** 6, "about 10^6,000,012.0")])
def test_realisable_gate_patterns_refuses_over_ten_million_orderings_before_looping(n, k, count, monkeypatch):
    _tripwire(lemmas, "itertools", monkeypatch, "product")
    with pytest.raises(SpecError) as exc:
        lemmas.realisable_gate_patterns(n, k)
    e = exc.value
    assert e.field == "n, k"
    assert f"k^k·(k+1)^n = {count} weight orderings" in e.problem and "REALISABLE_MAX_ORDERINGS" in e.problem
    assert "lp_realisable" in e.fix and "poly_bernoulli" in e.fix


def test_realisable_gate_patterns_admitted_size_counts_the_poly_bernoulli_number():
    """(6, 4): 4^4 · 5^6 = 4,000,000 orderings, under the bound; the realisable patterns number B_6^(−4)
    (Kaneko's formula, written here), which is also brute force's count of 6 × 4 patterns without a
    2 × 2 XOR sub-pattern (checked for 4 × 4 against OEIS A099594's 6902 below)."""
    assert 4 ** 4 * 5 ** 6 <= limits.REALISABLE_MAX_ORDERINGS < 3 ** 3 * 4 ** 10
    assert len(lemmas.realisable_gate_patterns(6, 4)) == _poly_bernoulli_kaneko(6, 4)
    assert _poly_bernoulli_kaneko(4, 4) == 6902


# ------------------------------------------------------------------------------------------------
# poly_bernoulli: at most 10^10 word operations of its Stirling numbers, integers of at most 10^8 bits
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,k", [(10 ** 6, 10 ** 6), (10 ** 6, 3), (600, 600), (10 ** 9, 1), (99_999_996, 1),
                                 (10 ** 400, 10 ** 400)])
def test_poly_bernoulli_refuses_huge_sizes_before_any_stirling_number(n, k, monkeypatch):
    """(99,999,996, 1): its terms reach 2s + n + k + 2 = 10^8 + 1 bits (2^n, B_n^(−1), has n + 1), one over."""
    def boom(*a):
        raise AssertionError("a Stirling number was computed: the size was not refused first")
    monkeypatch.setattr(lemmas, "_stirling2", boom)
    with pytest.raises(SpecError) as exc:
        lemmas.poly_bernoulli(n, k)
    e = exc.value
    assert e.field == "n, k"
    assert "POLY_BERNOULLI_MAX_WORK" in e.problem and "bits" in e.problem and "lower n or k" in e.fix


def test_poly_bernoulli_matches_oeis_a099594_and_kaneko_within_the_bound():
    """OEIS A099594 (rows n = 0…5, columns k = 0…5), and Kaneko's formula at (40, 30) and (300, 5)."""
    a099594 = [[1, 1, 1, 1, 1, 1], [1, 2, 4, 8, 16, 32], [1, 4, 14, 46, 146, 454], [1, 8, 46, 230, 1066, 4718],
               [1, 16, 146, 1066, 6902, 41506], [1, 32, 454, 4718, 41506, 329462]]
    assert [[lemmas.poly_bernoulli(n, k) for k in range(6)] for n in range(6)] == a099594
    for n, k in ((40, 30), (300, 5)):
        assert lemmas.poly_bernoulli(n, k) == _poly_bernoulli_kaneko(n, k)


def test_poly_bernoulli_largest_admitted_one_column_size_runs():
    """k = 1: every n × 1 pattern is lonesum, so B_n^(−1) = 2^n (by hand); n = 99,999,995 is the largest n
    the 10^8-bit bound admits (2s + n + k + 2 = n + 5 bits), and it is cheap (a closed-form S(n + 1, 2))."""
    assert tk.poly_bernoulli(99_999_995, 1) == 2 ** 99_999_995


# ------------------------------------------------------------------------------------------------
# family_masks: at most 2^15 − 1 families; context_symmetries: at most 7! permutations
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kk,count", [(5, "2^31 − 1"), (6, "2^63 − 1"), (100, "2^(2^100 − 1) − 1")])
def test_family_masks_refuses_over_32767_families_before_enumerating(kk, count, monkeypatch):
    _tripwire(gating, "itertools", monkeypatch, "product", "combinations")
    with pytest.raises(SpecError) as exc:
        gating.family_masks(kk)
    e = exc.value
    assert e.field == "kk" and f"{count} families" in e.problem and "MAX_FAMILIES" in e.problem
    assert "kk ≤ 4" in e.fix


def test_family_masks_at_the_bound_still_runs():
    """kk = 4: the common pathway and 2^4 − 2 = 14 item-only ones, 2^15 − 1 = 32,767 non-empty families."""
    subsets, masks, labels = gating.family_masks(4)
    assert len(subsets) == 14 and len(masks) == len(set(masks)) == len(labels) == 2 ** 15 - 1 == limits.MAX_FAMILIES


def test_context_symmetries_refuse_over_5040_permutations_before_looping(monkeypatch):
    task = tk.contexts(1, 8)
    _tripwire(ex, "itertools", monkeypatch, "permutations")
    with pytest.raises(SpecError) as exc:
        ex.context_symmetries(task, 1, 8)
    e = exc.value
    assert e.field == "k" and "8! = 40,320 permutations" in e.problem and "MAX_CONTEXT_PERMUTATIONS" in e.problem


def test_context_symmetries_at_the_bound_still_run():
    """k = 7 (7! = 5040, the bound): the same block in every context, so every context permutation is a
    symmetry of contexts(2, 7): all 5040 (by hand)."""
    assert limits.MAX_CONTEXT_PERMUTATIONS == math.factorial(7)
    syms = ex.context_symmetries(tk.contexts(2, 7), 2, 7)
    assert sorted(s["pi"] for s in syms) == sorted(itertools.permutations(range(7)))
