"""``theorykit predict``: the stated rules of each stage, on small hand-worked cases.

Written for a hand mutation check of theorykit/analysis/{predict, predict_validate, patterns}.py:
each test pins one rule of docs/predict.md or of the modules' docstrings that the tests of
tests/test_predict.py left loose. Expected values are worked by hand beside each test. The family
search is tested with a stand-in for the race (``_race_families``) whose areas are set by the test,
so that the search's bookkeeping (shortlist, beam, stopping rule, ranking) is checked on its own;
the validation's agreement metrics with a stand-in for the trained networks (``find_gates``).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.analysis.patterns import consistent_pattern, data_symmetries, realisable_patterns
from theorykit.analysis.predict import predict_reln
from theorykit.spec.gating import Training

XOR_TRAINING = Training(lr=0.05, loss="mean", init_std=0.01, steps=500)
SIGMA = 0.01


def _task(X, Y):
    return tk.Task(sp.Matrix(X), sp.Matrix(Y))


def _gates(pred):
    return {tuple(int(v) for v in g) for g in pred.gates}


# ---------------------------------------------------------------------------------------------
# stage 1: enumeration
# ---------------------------------------------------------------------------------------------
PENTAGON = np.vstack([np.cos(2 * np.pi * np.arange(5) / 5), np.sin(2 * np.pi * np.arange(5) / 5)])


def test_auto_enumeration_is_exact_at_both_limits():
    """docs/predict.md: "With at most 16 datapoints and at most --max-patterns patterns by Cover's
    bound, every pattern is enumerated". The pentagon (P = 5, rank 2) has Cover's bound 2(1 + 4) = 10:
    max_patterns = 10 and exact_max_p = 5 are both "at most" (exact); 9 and 4 are not (sampled)."""
    assert realisable_patterns(PENTAGON, max_patterns=10)[2]["method"] == "exact"
    assert realisable_patterns(PENTAGON, max_patterns=9)[2]["method"] == "sample"
    assert realisable_patterns(PENTAGON, exact_max_p=5)[2]["method"] == "exact"
    assert realisable_patterns(PENTAGON, exact_max_p=4)[2]["method"] == "sample"


# Three unit vectors at 0°, 10° and 180°. A unit w at angle φ is on for x at angle θ iff |φ − θ| < 90°:
# φ ∈ (−80°, 90°) gives 110 (170° of the circle), (90°, 100°) gives 011 (10°), (100°, 270°) gives 001
# (170°) and (270°, 280°) gives 100 (10°). N(0, I) draws have uniform angle, so 110 and 001 are each
# drawn about 17 times as often as 011 and 100.
TEN = math.radians(10)
FAN = np.array([[1.0, math.cos(TEN), -1.0], [0.0, math.sin(TEN), 0.0]])


def test_sampled_patterns_come_most_often_drawn_first_and_never_all_off():
    """realisable_patterns(method="sample"): "counts = how many drew each pattern", ordered so that
    predict can keep "the most often sampled"; the all-off pattern is dropped (module docstring).
    On the fan above: four patterns, the two wide sectors first, counts non-increasing. On 1-D data
    X = (1, 1) a draw w > 0 gives all-on and w < 0 all-off (about half the draws each); only all-on
    is returned."""
    pats, counts, info = realisable_patterns(FAN, method="sample", samples=4000, seed=0)
    got = [tuple(int(v) for v in p) for p in pats]
    assert sorted(got) == [(0, 0, 1), (0, 1, 1), (1, 0, 0), (1, 1, 0)] and info["found"] == 4
    assert set(got[:2]) == {(1, 1, 0), (0, 0, 1)}
    assert all(a >= b for a, b in zip(counts, counts[1:]))
    assert counts[:2].min() > 8 * counts[2:].max()                  # 170° against 10° sectors
    assert counts.sum() <= 4000
    one, c1, _ = realisable_patterns(np.array([[1.0, 1.0]]), method="sample", samples=500, seed=1)
    assert one.astype(int).tolist() == [[1, 1]] and 150 < c1[0] < 350   # about half the draws


def test_consistency_cut_keeps_the_most_often_sampled():
    """predict: beyond max_checked sampled patterns, consistency tests "the max_checked most often
    sampled". On the fan with y = (1, 1, 1) all four patterns are consistent (by hand: 110 grows along
    x₀ + x₁, negative on x₂; 001 along x₂, w = x₂ is ≤ 0 on x₀, x₁; 011 along x₁ + x₂ at 95°, negative
    on x₀; 100 along x₀, w = (1, t) with t ≤ −cot 10° is ≤ 0 on x₁, x₂), and XᵀX has three different
    off-diagonal entries (cos 10°, −1, −cos 10°), so every orbit is one pattern. max_checked = 2 keeps
    exactly the wide sectors 110 and 001."""
    task = _task(sp.Matrix([[1, sp.cos(sp.pi / 18), -1], [0, sp.sin(sp.pi / 18), 0]]), [[1, 1, 1]])
    pred = predict_reln(task, 8, XOR_TRAINING, enumerate_method="sample", samples=4000, max_checked=2,
                        progress=False)
    assert pred.enumeration["found"] == 4
    assert "the 2 most often sampled of 4" in pred.enumeration["consistency_checked"]
    assert {tuple(o["example"]) for o in pred.orbits} == {(1, 1, 0), (0, 0, 1)}


def test_zero_correlation_patterns_are_dropped_even_without_the_consistency_test():
    """Stage 1: "patterns whose effective correlation Y diag(g) Xᵀ is zero" are dropped. X = I₂, y = (1, 0):
    the realisable patterns are 10, 01, 11 and (Y ∘ 01) Xᵀ = (0, 0), so 01 goes, whatever the consistency
    setting; 10 and 11 stay ((1, 0) each)."""
    pred = predict_reln(_task(np.eye(2, dtype=int), [[1, 0]]), 8, XOR_TRAINING, consistency="off", progress=False)
    assert pred.enumeration["dropped_zero_correlation"] == 1
    assert {tuple(o["example"]) for o in pred.orbits} == {(1, 0), (1, 1)}


def test_zero_correlation_floor_is_relative_to_the_targets_scale():
    """The floor is "relative: the data's scale is the user's". XoR Δ = 1/2 has 14 realisable patterns,
    and none has Σ y_μ g_μ x_μ = 0: the only null vector of X is (1, 1, 1, 1), and y ∘ g = (±1, ±1, ∓1, ∓1)
    restricted to g is never proportional to it. Targets scaled by 1e-13 make those correlations ~1e-13,
    below any absolute 1e-12, but not zero."""
    X, Y = tk.xor_margin(0.5).numeric()
    task = _task(sp.Matrix(X), sp.Matrix(Y) * sp.Rational(1, 10 ** 13))
    pred = predict_reln(task, 16, XOR_TRAINING, consistency="off", steps=50, progress=False)
    assert pred.enumeration["found"] == 14 and pred.enumeration["dropped_zero_correlation"] == 0


# ---------------------------------------------------------------------------------------------
# stage 1b: consistency
# ---------------------------------------------------------------------------------------------
def test_consistency_needs_a_strictly_positive_top_direction_on_every_on_point():
    """X = I₂, y = (1, 0), pattern 11: Σ y x = e₁, so the unit grows along ±e₁ and its pre-activation on
    x₂ = e₂ stays 0, which is off: 11 is not kept. Pattern 10 (v₁ = e₁, w = (1, −1)) is."""
    X, Y = np.eye(2), np.array([[1.0, 0.0]])
    assert consistent_pattern(X, Y, [1, 1]) == (False, 0)
    assert consistent_pattern(X, Y, [1, 0])[0]


@pytest.mark.parametrize("flip", [False, True])
def test_consistency_does_not_depend_on_the_svds_sign(monkeypatch, flip):
    """(U, s, Vᵀ) and (−U, s, −Vᵀ) are the same SVD; the verdict may not depend on which one LAPACK
    returns ("±v₁"). X = (1, −1) in one dimension, y = (1, 0), pattern 10: a unit w > 0 is on x₀ and
    off x₁ = −x₀, so 10 is consistent: with either sign of v₁ the test must find the c with c v₁ = +1
    (then w·x₁ = −1 ≤ 0; the other sign is negative on x₀). The returned sign is relative to SVD's v₁."""
    svd = np.linalg.svd
    if flip:
        def flipped(a, *args, **kw):
            u, s, vt = svd(a, *args, **kw)
            return -u, s, -vt
        monkeypatch.setattr(np.linalg, "svd", flipped)
    X, Y = np.array([[1.0, -1.0]]), np.array([[1.0, 0.0]])
    assert consistent_pattern(X, Y, [1, 0])[0]
    assert consistent_pattern(X, -Y, [1, 0])[0]


# ---------------------------------------------------------------------------------------------
# stage 2: symmetry
# ---------------------------------------------------------------------------------------------
def test_symmetry_group_is_capped_at_max_group():
    """XoR's group has order 8 (tests/test_predict.py, by hand); capped at 4 it is truncated to exactly 4
    elements, said in the info; uncapped at 8 it is whole."""
    task = tk.xor_margin(0.5)
    X, Y = task.numeric()
    perms, info = data_symmetries(X, Y, task, max_group=4)
    assert len(perms) == info["order"] == 4 and info["truncated_at"] == 4
    perms, info = data_symmetries(X, Y, task, max_group=9)
    assert info["order"] == 8 and info["truncated_at"] is None


def test_float_symmetry_tolerance_is_1e_12_relative():
    """Float data: Gram entries equal "with a 1e-12 relative tolerance". x₁ = e₁, x₂ = (1 + 1e-10) e₂,
    y = (1, 1): the diagonals of XᵀX differ by 2e-10 relative, more than 1e-12, so the swap is no
    symmetry (only the identity); at 1e-14 they are equal to the tolerance, and the swap is kept."""
    for eps, order in ((1e-10, 1), (1e-14, 2)):
        X = np.diag([1.0, 1.0 + eps])
        perms, info = data_symmetries(X, np.array([[1.0, 1.0]]))
        assert info["order"] == order and not info["exact"]
