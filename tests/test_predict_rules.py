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
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
import theorykit.analysis.predict as pr
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


# ---------------------------------------------------------------------------------------------
# stage 3: which families are raced (the real race)
# ---------------------------------------------------------------------------------------------
def test_max_orbit_size_is_inclusive():
    """Candidates are orbits of at most max_orbit_size patterns. XoR Δ = 1 has two consistent orbits,
    the four singles and the two label pairs; max_orbit_size = 2 keeps the pairs (2 ≤ 2), leaves out the
    singles, and the prediction is the pair family."""
    pred = predict_reln(tk.xor_margin(1.0), 16, XOR_TRAINING, max_orbit_size=2, progress=False)
    assert pred.search["candidates"] == 1 and pred.search["left_out"] == 1
    assert _gates(pred) == {(1, 1, 0, 0), (0, 0, 1, 1)}


def test_auto_search_is_exhaustive_up_to_max_families_inclusive():
    """"auto: exhaustive up to --max-families families". XoR has 2 candidate orbits, 2² − 1 = 3 families:
    max_families = 3 is exhaustive, 2 is beam."""
    a = predict_reln(tk.xor_margin(1.0), 16, XOR_TRAINING, max_families=3, progress=False)
    b = predict_reln(tk.xor_margin(1.0), 16, XOR_TRAINING, max_families=2, progress=False)
    assert a.search["method"] == "exhaustive" and b.search["method"] == "beam"


def test_a_family_fits_with_exactly_one_unit_per_pathway():
    """"A family needs one unit per pathway": with H = 4 the four XoR singles fit, one unit each, and
    below Δ* = √(2/3) they win (tests/test_predict.py's crossover); nothing is left out except the
    six-pathway family of both orbits."""
    pred = predict_reln(tk.xor_margin(0.5), 4, XOR_TRAINING, progress=False)
    assert _gates(pred) == {(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)}
    assert pred.widths == [1, 1, 1, 1] and "(1 left out" in pred.search["covered"]


def test_the_race_starts_each_pathway_at_the_shared_width_a0(monkeypatch):
    """Stage 4 inside the race, not only in the result: each family's pathways start at
    a0 = σ²H_p/2 with H shared equally (remainder to the first). XoR, H = 130: singles 130 = 4·32 + 2
    → 33, 33, 32, 32; pairs 65, 65; all six 130 = 6·21 + 4 → 22, 22, 22, 22, 21, 21. Checked on the
    arguments the race engine receives."""
    from theorykit.theory.race import RaceSystem

    seen = []
    solve = RaceSystem.solve

    def spy(self, *args, **kw):
        for a0, m in zip(np.asarray(kw["a0"]), np.asarray(kw["masks"])):
            seen.append(sorted(np.round(a0[m > 0] / (SIGMA ** 2 / 2), 9).tolist()))
        return solve(self, *args, **kw)

    monkeypatch.setattr(RaceSystem, "solve", spy)
    predict_reln(tk.xor_margin(0.5), 130, XOR_TRAINING, steps=50, progress=False)
    assert sorted(seen) == sorted([[32, 32, 33, 33], [65, 65], [21, 21, 22, 22, 22, 22]])


# ---------------------------------------------------------------------------------------------
# stage 3: the search's bookkeeping, with a stand-in race
# ---------------------------------------------------------------------------------------------
# X = I₃, y = (1, 2, 3): every one of the 7 non-empty subsets is realisable and consistent (v₁ ∝ y ∘ g,
# positive on g; w = v₁ is 0 elsewhere), and YᵀY = y yᵀ has a different diagonal entry per datapoint,
# so the only symmetry is the identity: 7 orbits of one pattern each. The stand-in race's final output
# is 0, so the residual is Y, and the residual score ‖(Y ∘ g) Xᵀ / 3‖₂ = ‖y ∘ g‖ / 3 orders the patterns
# 111 (√14) > 011 (√13) > 101 (√10) > 001 (3) > 110 (√5) > 010 (2) > 100 (1).
SEARCH_TASK = _task(np.eye(3, dtype=int), [[1, 2, 3]])


def _stand_in(monkeypatch, areas, default):
    """Replace the race: a family (a set of gate tuples) gets L = (1, 2a − 1) on t = (0, 1), whose area
    (trapezoid of L/L(0), over the horizon) is exactly a: ``areas[family]``, else ``default``."""
    raced = []

    def race(task, training, gates_all, families, H, *, race_dt, steps, chunk_pathways=48, done=None, masses=None,
             given_dt=None):     # given_dt: the race_dt a diverged race names (the stand-in's curves are set, not raced)
        _, Y = task.numeric()
        Ls = []
        for fam in families:
            key = frozenset(tuple(int(v) for v in gates_all[p]) for p in fam)
            raced.append(key)
            Ls.append(np.array([1.0, 2 * areas.get(key, default) - 1]))
        if done is not None:
            done(len(families))
        return np.array([0.0, 1.0]), Ls, [np.zeros_like(Y) for _ in families]

    monkeypatch.setattr(pr, "_race_families", race)
    return raced


def F(*pats):
    return frozenset(tuple(int(c) for c in p) for p in pats)


def _family(pred, fam):
    ex = {o["orbit"]: tuple(o["example"]) for o in pred.orbits}
    return frozenset(ex[k] for k in fam)


def test_forward_and_beam_follow_their_frontiers(monkeypatch):
    """Round 1 (shortlist 7: every orbit): 111 has area 0.60, 100 0.62, the rest 0.9. Forward keeps
    only 111: round 2 races 111 + each of the 6 others, best 111 + 100 (0.59 < 0.60·0.999), round 3 the
    5 extensions of that (0.95 each) stops it: 7 + 6 + 5 = 18 families in 3 rounds, prediction
    {111, 100}. Beam 2 keeps 111 and 100: round 2 races 6 + 6 − 1 (111 + 100 twice) = 11 families,
    best 100 + 010 (0.55); round 3 the extensions of 100 + 010 and 111 + 100, 5 + 5 − 1 (both give
    100 + 010 + 111) = 9, all 0.95: 27 families in 3 rounds, prediction {100, 010}."""
    areas = {F("111"): 0.60, F("100"): 0.62, F("111", "100"): 0.59, F("100", "010"): 0.55}
    areas.update({F("111", p): 0.595 for p in ("001", "010", "011", "101", "110")})
    fwd_raced = _stand_in(monkeypatch, {**areas, **{F(p): 0.9 for p in ("001", "010", "011", "101", "110")}}, 0.95)
    fwd = predict_reln(SEARCH_TASK, 16, XOR_TRAINING, search="forward", shortlist=7, progress=False)
    assert _gates(fwd) == {(1, 1, 1), (1, 0, 0)} and fwd.area == pytest.approx(0.59, abs=1e-15)
    assert [r["families_raced"] for r in fwd.search["rounds"]] == [7, 6, 5]
    assert "18 families raced in 3 rounds" in fwd.search["covered"] and fwd.search["families_raced"] == 18
    assert len(fwd_raced) == len(set(fwd_raced)) == 18
    beam_raced = _stand_in(monkeypatch, {**areas, **{F(p): 0.9 for p in ("001", "010", "011", "101", "110")}}, 0.95)
    beam = predict_reln(SEARCH_TASK, 16, XOR_TRAINING, search="beam", beam=2, shortlist=7, progress=False)
    assert _gates(beam) == {(1, 0, 0), (0, 1, 0)} and beam.area == pytest.approx(0.55, abs=1e-15)
    assert [r["families_raced"] for r in beam.search["rounds"]] == [7, 11, 9]
    assert "27 families raced in 3 rounds" in beam.search["covered"] and len(beam_raced) == 27


def test_shortlist_takes_the_largest_residual_correlations(monkeypatch):
    """Shortlist 2 from nothing: the two orbits of largest ‖y ∘ g‖ are 111 (√14) and 011 (√13), so round 1
    races exactly those; every area 0.9 after that first round (no gain) stops the search."""
    raced = _stand_in(monkeypatch, {}, 0.9)
    pred = predict_reln(SEARCH_TASK, 16, XOR_TRAINING, search="forward", shortlist=2, progress=False)
    assert set(raced[:2]) == {F("111"), F("011")}
    assert pred.search["rounds"][0]["families_raced"] == 2


def test_the_search_stops_when_the_gain_is_not_more_than_min_gain(monkeypatch):
    """"stop when no addition lowers the area by more than min_gain (relative)". Areas: every single
    orbit 1.25 but 111 at 1.0; 111 + 100 at 0.75 = 1.0 × (1 − 0.25) exactly (binary fractions), every
    other pair 1.25; 111 + 100 + 010 at 0.5. With min_gain = 0.25, round 2's gain is exactly 0.25, not
    more: the search stops after round 2 and predicts 111 + 100 (area 0.75), never racing the triple.
    With min_gain = 0.2 round 2 gains more than that, round 3 (0.5 < 0.75 × 0.8) too, and round 4
    (1.25) stops it: the triple is predicted."""
    areas = {F("111"): 1.0, F("111", "100"): 0.75, F("111", "100", "010"): 0.5}
    _stand_in(monkeypatch, areas, 1.25)
    pred = predict_reln(SEARCH_TASK, 16, XOR_TRAINING, search="forward", shortlist=7, min_gain=0.25, progress=False)
    assert [r["best_area"] for r in pred.search["rounds"]] == [1.0, 0.75]
    assert _gates(pred) == {(1, 1, 1), (1, 0, 0)}
    pred = predict_reln(SEARCH_TASK, 16, XOR_TRAINING, search="forward", shortlist=7, min_gain=0.2, progress=False)
    assert [r["best_area"] for r in pred.search["rounds"]] == [1.0, 0.75, 0.5, 1.25]
    assert _gates(pred) == {(1, 1, 1), (1, 0, 0), (0, 1, 0)}


def test_exhaustive_ranking_ties_and_runner_ups(monkeypatch):
    """Exhaustive over the 7 orbits: 2⁷ − 1 = 127 families, all raced. 011 alone and 001 + 010 tie at
    area 0.6; the prediction is the family of least area, and of two equal ones the one of fewer orbits
    (module docstring of theorykit.analysis.predict): 011. The runner-ups are the next families by
    area, without the winner: first 001 + 010 (0.6, two pathways), then the 0.7 families."""
    _stand_in(monkeypatch, {F("011"): 0.6, F("001", "010"): 0.6}, 0.7)
    pred = predict_reln(SEARCH_TASK, 16, XOR_TRAINING, search="exhaustive", runners_up=3, progress=False)
    assert _gates(pred) == {(0, 1, 1)}
    assert pred.search["families_raced"] == 127 and "all 127 non-empty unions of the 7" in pred.search["covered"]
    assert len(pred.runners_up) == 3
    first = pred.runners_up[0]
    assert _family(pred, first["family"]) == F("001", "010") and first["pathways"] == 2
    assert first["area"] == pytest.approx(0.6, abs=1e-15)
    np.testing.assert_allclose([r["area"] for r in pred.runners_up[1:]], [0.7, 0.7], atol=1e-15)


def test_residual_score_is_the_top_singular_value():
    """The shortlist ranks by "top singular value of the residual correlation (R ∘ g) Xᵀ / P". X = I₃,
    R = [[1, 0, 1.2], [0, 1, 0]]: gate 110 gives diag(1, 1)/3 padded, top singular value 1/3 (Frobenius
    √2/3 ≈ 0.47); gate 001 gives 1.2 e₁e₃ᵀ/3, singular value 0.4. So 001 ranks above 110."""
    R = np.array([[1.0, 0.0, 1.2], [0.0, 1.0, 0.0]])
    sc = pr._residual_score(np.eye(3), R, np.array([[1, 1, 0], [0, 0, 1]], bool))
    np.testing.assert_allclose(sc, [1 / 3, 0.4], rtol=1e-12)


def test_residual_subtracts_each_pathways_gated_output(monkeypatch):
    """The shortlist's residual is R = Y − the family's final output, and a pathway's output is
    M (X ∘ g): zero on the datapoints it is off. Random ±1 data of tests/test_predict.py (seed 11),
    600 steps (30 τ): the first family is one pattern g, whose race ends at the least-squares fit
    W (X ∘ g), W = (Y ∘ g)(X ∘ g)⁺ (numpy here). The residual scored in round 2 is Y − W (X ∘ g),
    so it equals Y on every datapoint g leaves off."""
    rng = np.random.default_rng(11)
    X = rng.choice([-1, 1], size=(3, 5)).astype(int)
    Y = np.stack([X[0] * X[1], X[2]])
    seen = []
    score = pr._residual_score

    def spy(X_, R, gates):
        seen.append(np.array(R, float))
        return score(X_, R, gates)

    monkeypatch.setattr(pr, "_residual_score", spy)
    tr = Training(lr=0.05, loss="mean", init_std=0.01, steps=600)
    pred = predict_reln(_task(X.tolist(), Y.tolist()), 32, tr, search="forward", shortlist=1, min_gain=0.5,
                        progress=False)
    ex = {o["orbit"]: np.array(o["example"], float) for o in pred.orbits}
    first = pred.search["rounds"][0]["best"]
    assert len(first) == 1 and len(seen) >= 2
    g = ex[first[0]]
    Xf, Yf = X.astype(float), Y.astype(float)
    np.testing.assert_allclose(seen[0], Yf)                                  # round 1: R = Y
    R = Yf - ((Yf * g) @ np.linalg.pinv(Xf * g)) @ (Xf * g)
    np.testing.assert_allclose(seen[1], R, atol=1e-6)
    np.testing.assert_array_equal(seen[1][:, g == 0], Yf[:, g == 0])


# ---------------------------------------------------------------------------------------------
# validation: the agreement metrics on a stand-in for the trained networks
# ---------------------------------------------------------------------------------------------
def test_validation_metrics_by_hand(monkeypatch):
    """X = I₂, y = (1, 1), two "trained" networks of three units, predicted patterns 10 and 01.

    Units (W1 row → final pattern, W2 = 1 so the weight ‖W1_j‖·‖W2_j‖ = ‖W1_j‖):
      seed 0: (1, 0) → 10, w 1;  (0, 2) → 01, w 2;  (3, 4) → 11, w 5
      seed 1: (−3, −4) → 00, w 5; (2, 0) → 10, w 2;  (0, 1) → 01, w 1      total 16
    * weight share in predicted patterns (1 + 2 + 2 + 1)/16 = 0.375 (by count it would be 4/6);
    * Algorithm 1 "found" 10 and 11: Jaccard |{10}| / |{10, 01, 11}| = 1/3;
    * snapshots at steps 0, 50, 100 (t_ck = 0, 50, 100, 200); t½ = 60, so the snapshot at 100, the first
      at or after t½. There seed 0's second unit was 11 (changed since: weight 2) and seed 1's first
      unit was 11 (changed on both points: weight 5); the rest as at the end: share 7/16 = 0.4375
      (by count 2/6; counting only units changed on every point, 5/16). At step 0 every unit is as at
      the end, so a measure taken there would say 0;
    * losses (seeds × 5 steps) (4, 2, 2, 2, 6) and (2, 2, 2, 0, 2): L(0) = mean(4, 2) = 3, mean curve
      (3, 2, 2, 1, 4); the predicted (3, 2, 3, 1, 1) differs by (0, 0, 1, 0, −3): RMS √(10/5)/3 = √2/3,
      largest |gap| 3/3 = 1;
    * unit patterns by weight share: 11 and 00 5/16 each, then 10 and 01 3/16 each."""
    import theorykit.analysis.predict_validate as pv

    W1 = np.array([[[1, 0], [0, 2], [3, 4]], [[-3, -4], [2, 0], [0, 1]]], float)
    W2 = np.ones((2, 1, 3))
    pat = {"10": (1, 0), "01": (0, 1), "11": (1, 1), "00": (0, 0)}
    final = [["10", "01", "11"], ["00", "10", "01"]]
    at100 = [["10", "11", "11"], ["11", "10", "01"]]
    snaps = np.array([[[pat[p] for p in final[s]], [pat[p] for p in final[s]], [pat[p] for p in at100[s]]]
                      for s in range(2)], bool)                       # seeds × 3 snapshots × H × P
    relu = SimpleNamespace(loss=np.array([[4, 2, 2, 2, 6], [2, 2, 2, 0, 2]], float), params=[W1, W2],
                           snapshots=snaps, t_ck=np.array([0, 50, 100, 200]))
    found = SimpleNamespace(pathways=[SimpleNamespace(active=(1, 0), hidden=3),
                                      SimpleNamespace(active=(1, 1), hidden=1)], hidden_total=4)
    calls = []

    def fake_find_gates(task, **kw):
        calls.append(kw)
        return SimpleNamespace(run=relu, spec=found)

    monkeypatch.setattr(pv, "find_gates", fake_find_gates)
    pred = SimpleNamespace(task=_task(np.eye(2, dtype=int), [[1, 1]]), hidden=3,
                           training=Training(lr=0.05, loss="mean", init_std=0.01, steps=200),
                           gates=np.array([[1, 0], [0, 1]], bool), t=np.arange(5.0),
                           loss=np.array([3, 2, 3, 1, 1], float), t_half=60.0)
    val = pv.validate_prediction(pred, seeds=2)
    assert calls[0]["K"] == 2 and calls[0]["hidden"] == 3 and calls[0]["seeds"] == 2
    assert val.rms_gap == pytest.approx(math.sqrt(2) / 3, rel=1e-12)
    assert val.max_gap == pytest.approx(1.0, rel=1e-12)
    assert val.weight_share == pytest.approx(0.375, rel=1e-12)
    assert val.jaccard == pytest.approx(1 / 3, rel=1e-12)
    assert val.gate_change_share == pytest.approx(7 / 16, rel=1e-12)
    assert "between step 100 and the end (200)" in val.notes[0]
    assert [p for p, _ in val.top_unit_patterns[:2]] in (["11", "00"], ["00", "11"])
    np.testing.assert_allclose([s for _, s in val.top_unit_patterns], [5 / 16, 5 / 16, 3 / 16, 3 / 16], rtol=1e-12)
    assert val.found == [((1, 0), 0.75), ((1, 1), 0.25)]


def test_exhaust_within_one_percent_is_inclusive(monkeypatch):
    """race_exhaust's "within 1 %" is every family whose area is at most 1.01 × the winner's
    (docs/race_k4.md; tests/test_exhaust.py). With the metrics stood in: areas 1.0, 1.01 (exactly
    1.01 × 1.0 in floats) and 1.5 for families 0, 1, 2: the first two are within 1 %."""
    import theorykit.analysis.exhaust as ex

    areas = iter([1.0, 1.01, 1.5])
    monkeypatch.setattr(ex, "loss_metrics", lambda t, L, fr: {"area": next(areas), "t_0.5": None, "t_0.1": None,
                                                               "t_0.01": None, "final_fraction": 1.0, "L0": 1.0})
    res = ex.race_exhaust(3, steps=20, race_dt=2, progress=False, families=[0, 1, 2], use_symmetry=False)
    labels = [r["family"] for r in sorted(res.metrics, key=lambda r: r["index"])]
    assert res.summary["within_1pct_of_winner"] == labels[:2]


def test_predict_and_find_gates_take_data_as_simulate_does():
    """predict_reln's docstring says "from (X, Y) alone", and simulate takes (X, Y): a tuple failed with
    an AttributeError (find_gates refused it). XoR at Δ = 1/2 < Δ* = √(2/3): the four single-datapoint
    pathways (docs/theory.md#xor), 16 units shared equally, 4 each."""
    X = np.array([[1, 1, -1, -1], [1, -1, 1, -1], [0.5, 0.5, -0.5, -0.5]])
    Y = np.array([[1.0, -1.0, -1.0, 1.0]])
    pred = predict_reln((X, Y), 16, Training(lr=0.05, steps=500), progress=False)
    assert _gates(pred) == {(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)} and pred.widths == [4] * 4
    found = tk.find_gates((X, Y), K=2, seeds=1, steps=20, hidden=8, lr=0.05)
    assert found.K == 2


# ---------------------------------------------------------------------------------------------
# second mutation check (patterns, predict, exhaust): the rules its survivors showed loose
# ---------------------------------------------------------------------------------------------
def test_written_spec_takes_pathways_at_the_top_of_the_a0_range():
    """XoR Δ = 1 (above Δ*: the two label pairs), H = 4 and init_std 10: each pathway has 2 units, so
    a0 = σ²H_p/2 = 100·2/2 = 100 exactly, the top of the [1e-12, 100] a spec file accepts (ends included,
    theorykit.spec.files.TRAINING_RANGES), and the geometric mean of two equal values is that value. In
    floats exp(log(100)) is 100.00000000000004: to_spec refused "a0 = 100 ... outside [1e-12, 100]"."""
    import tomllib

    # a0 = 100 starts the maps far past their end point, where the race is ~100 times faster: at the default
    # race_dt = 10 its loss turned infinite (the prediction came from NaN areas; since refused, race_step.check_raced);
    # at race_dt = 160 the race is stable (area 0.010878, 0.010878 at 640)
    pred = predict_reln(tk.xor_margin(1.0), 4, Training(lr=0.05, init_std=10.0, steps=50), progress=False, race_dt=160)
    assert _gates(pred) == {(1, 1, 0, 0), (0, 0, 1, 1)} and pred.a0 == [100.0, 100.0]
    spec = pred.to_spec()
    assert spec.training.a0 == 100.0
    assert tk.spec_from_dict(tomllib.loads(tk.spec_to_toml(spec))).training.a0 == 100.0


def test_race_exhaust_refuses_k_5_before_building_its_families(monkeypatch):
    """k contexts give 1 + (2^k − 2) pathways and 2^(2^k − 1) − 1 families (module docstring): 2^31 − 1 at
    k = 5, a list the enumeration cannot hold (k = 4's 32 767 take 0.25 s). k = 5 was accepted and began to
    build it; now it is refused by --k, as k = 6 was, before any family is built (the stand-in
    family_masks fails the test if it is reached)."""
    import theorykit.analysis.exhaust as ex

    def no_enumeration(kk, *a, **kw):
        raise AssertionError(f"family_masks({kk}) was called")

    monkeypatch.setattr(ex, "family_masks", no_enumeration)
    for k in (5, 6):
        with pytest.raises(tk.SpecError) as e:
            ex.exhaust_spec(k)
        assert e.value.field == "--k" and f"2^{2 ** k - 1} - 1 families" in str(e.value)
        with pytest.raises(tk.SpecError) as e:
            ex.race_exhaust(k, progress=False)
        assert e.value.field == "k"        # from Python, the keyword (the command line says --k)


@pytest.mark.parametrize("s_", [1.0, 1e-10])
def test_patterns_and_consistency_do_not_depend_on_the_data_scale(s_):
    """Realisability and consistency ask only for signs of w·x_μ (and equalities datapoint by datapoint),
    which a positive scale keeps. By hand on XoR Δ = 1/2 (tests/test_predict.py): 14 realisable patterns
    (4 singles, 6 pairs, 4 triples; the four points sum to 0, so never all four), of which the singles and
    the two label pairs are consistent and the 4 mixed pairs and 4 triples are not. With the inputs scaled
    by 1e-10 the LP solver dropped every constraint entry (HiGHS ignores entries below 1e-9): the
    enumeration found only the all-off pattern and every consistency LP was infeasible."""
    X, Y = tk.xor_margin(0.5).numeric()
    pats = realisable_patterns(X * s_, method="exact")[0]
    assert sorted(map(int, pats.sum(axis=1))) == [1] * 4 + [2] * 6 + [3] * 4
    verdicts = [consistent_pattern(X * s_, Y, g)[0] for g in ([1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 0, 1], [1, 1, 1, 0])]
    assert verdicts == [True, True, False, False]
    from theorykit.analysis.patterns import consistent_any_output

    assert [consistent_any_output(X * s_, Y, g)[0] for g in ([1, 0, 0, 0], [0, 1, 0, 1])] == [True, False]
    pred = predict_reln(_task(sp.Matrix(X) * sp.Rational(s_), sp.Matrix(Y)), 16, XOR_TRAINING, steps=50,
                        progress=False)
    assert pred.enumeration["found"] == 14 and pred.enumeration["dropped_inconsistent"] == 8


def test_exact_search_decides_a_tiny_datapoint_by_its_sign():
    """One dimension, x = (1, ε): with ε = 1e-10 > 0 a unit is on for both points or neither, so 11 is
    the only pattern (10 would need w·ε ≤ 0 < w·1); with ε = −1e-10 the points have opposite signs and
    the patterns are 10 and 01, never 11. The LP solver dropped the entry 1e-10 (below its 1e-9 floor)
    and answered 10 alone for ε = 1e-10. The LP's witness is on (w·x ≥ 1) and off (≤ 0) as it states."""
    from theorykit.theory.lemmas import lp_pattern_feasible

    pats = realisable_patterns(np.array([[1.0, 1e-10]]), method="exact")[0]
    assert pats.astype(int).tolist() == [[1, 1]]
    pats = realisable_patterns(np.array([[1.0, -1e-10]]), method="exact")[0]
    assert sorted(map(tuple, pats.astype(int).tolist())) == [(0, 1), (1, 0)]
    X = np.array([[1.0, 1e-10, -2.0], [0.0, 1e-10, 1.0]])
    ok, w = lp_pattern_feasible(X, [0, 1, 1])           # w = (−1, 2)·t: −t, t·1e-10, 4t
    assert ok and w @ X[:, 0] <= 0 and (w @ X[:, 1:] >= 1 - 1e-9).all()


# stage 1: enumeration -------------------------------------------------------------------------
def test_a_zero_datapoint_is_never_on():
    """A bias-free unit is on for x iff w·x > 0, and w·0 = 0: no unit is on for a zero datapoint.
    x₀ = (1, 0), x₁ = 0, x₂ = (−1, 1): x₀ and x₂ are 135° apart, so by hand every sign combination of
    the two is realisable (their half-planes overlap in a 45° sector, 1/8 of N(0, I) draws), and the
    non-empty patterns are 100, 001 and 101, by the exact search and the sampled one alike."""
    X = np.array([[1.0, 0.0, -1.0], [0.0, 0.0, 1.0]])
    for method in ("exact", "sample"):
        pats = realisable_patterns(X, method=method, samples=2000)[0]
        assert {tuple(int(v) for v in p) for p in pats} == {(1, 0, 0), (0, 0, 1), (1, 0, 1)}, method


def test_sampled_counts_are_the_seeded_draws_counted_here():
    """method="sample": ``samples`` weight vectors N(0, I) drawn by numpy's default_rng(seed), and
    ``counts`` how many drew each non-empty pattern. Counted here with a Counter over the same draws,
    for two seeds (which give different counts: the seed is used)."""
    import collections

    X = np.random.default_rng(3).standard_normal((3, 7))
    got = {}
    for seed in (0, 5):
        pats, counts, info = realisable_patterns(X, method="sample", samples=400, seed=seed)
        W = np.random.default_rng(seed).standard_normal((400, 3))
        want = collections.Counter(tuple(int(v) for v in row) for row in (W @ X > 0) if row.any())
        got[seed] = {tuple(int(v) for v in p): int(c) for p, c in zip(pats, counts)}
        assert got[seed] == dict(want) and info["found"] == len(want)
    assert got[0] != got[5]


# stage 1b: consistency --------------------------------------------------------------------------
def test_a_pattern_of_zero_correlation_is_not_consistent():
    """X = I₂, y = (1, 0), pattern 01: Y diag(g) Xᵀ = 0, so a unit of that pathway does not grow at all
    and has no growth direction to keep: (False, 0), by either test. The same with two outputs,
    Y = [[0, 1], [0, 1]] and pattern 10: Σyx is the 2 × 2 zero matrix, every direction is a "top" one, and
    none grows. (predict drops such patterns before the test; the functions are public.)"""
    from theorykit.analysis.patterns import consistent_any_output

    X = np.eye(2)
    for Y, g in ((np.array([[1.0, 0.0]]), [0, 1]), (np.array([[0.0, 1.0], [0.0, 1.0]]), [1, 0])):
        assert consistent_pattern(X, Y, g) == (False, 0)
        assert consistent_any_output(X, Y, g) == (False, 0)


def test_a_repeated_top_singular_value_is_one_within_1e_9_relative():
    """consistent_pattern's docstring: a top singular value is repeated "within 1e-9, relative". X = I₂,
    Y = diag(1, 1 + ε), pattern 11: Σyx = diag(1, 1 + ε). Within the tolerance (ε = 0, 2e-10) the top
    subspace is the plane and e₁ + e₂ grows positive on both points: kept, sign 0. At ε = 5e-9 the top
    direction is e₂ alone, whose pre-activation on x₁ = e₁ is 0 (off): not kept."""
    X = np.eye(2)
    for eps, want in ((0.0, (True, 0)), (2e-10, (True, 0)), (5e-9, (False, 0))):
        assert consistent_pattern(X, np.diag([1.0, 1.0 + eps]), [1, 1]) == want, eps


def test_the_consistent_sign_makes_the_top_direction_positive_on_the_pattern():
    """"Returns (consistent, sign or 0)": for a single top direction the sign c ∈ {±1} is the one with
    c v₁·x > 0 on the pattern's points, v₁ being numpy's SVD of Σyx computed here. X = (1, −1), y = (1, 0),
    pattern 10 (a unit w > 0): c v₁ = +1. A small positive pre-activation, 5e-9 of the largest (above the
    1e-9 tolerance), still counts as on: x = (1, 5e-9), y = (1, 1), pattern 11 (w = 1 is on for both)."""
    X, Y, g = np.array([[1.0, -1.0]]), np.array([[1.0, 0.0]]), np.array([True, False])
    ok, c = consistent_pattern(X, Y, g)
    v1 = np.linalg.svd((Y * g) @ X.T)[2][0]
    assert ok and c in (1, -1) and c * (v1 @ X[:, 0]) > 0
    ok, c = consistent_pattern(np.array([[1.0, 5e-9]]), np.array([[1.0, 1.0]]), [1, 1])
    assert ok and c in (1, -1)


# stage 2: symmetry and orbits -------------------------------------------------------------------
def test_float_symmetry_tolerance_is_1e_12_relative_on_both_sides():
    """Narrower than the test above: x₁ = e₁, x₂ = (1 + ε) e₂, y = (1, 1). The diagonals of XᵀX,
    scaled by their largest entry, differ by 1 − (1 + ε)⁻² ≈ 2ε: 4e-12 at ε = 2e-12 (more than 1e-12:
    only the identity) and 4e-13 at ε = 2e-13 (within it: the swap is kept)."""
    for eps, order in ((2e-12, 1), (2e-13, 2)):
        perms, info = data_symmetries(np.diag([1.0, 1.0 + eps]), np.array([[1.0, 1.0]]))
        assert info["order"] == order, eps


def test_orbits_follow_every_given_permutation_and_skip_missing_images():
    """pattern_orbits (σ[μ]: where datapoint μ goes; a pattern moves with its datapoints), by hand:
    * 100, 010, 001 under {id, (0 1)}: 100 ↔ 010, 001 alone → orbits [0, 0, 1];
    * 100, 001 (010 missing, as a sampled search may leave it) under the same: no image of 100 in the
      list, so it stays alone (docstring) → [0, 1];
    * 100, 010 under the 3-cycle σ = (1, 2, 0) alone: 100 → 010 is in the list, 010 → 001 is not; one
      permutation carrying 100 onto 010 puts them in one orbit → [0, 0]."""
    from theorykit.analysis.patterns import pattern_orbits

    ident, swap, cyc = np.array([0, 1, 2]), np.array([1, 0, 2]), np.array([1, 2, 0])
    p3 = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], bool)
    assert pattern_orbits(p3, [ident, swap]).tolist() == [0, 0, 1]
    assert pattern_orbits(p3[[0, 2]], [ident, swap]).tolist() == [0, 1]
    assert pattern_orbits(p3[[0, 1]], [cyc]).tolist() == [0, 0]


# predict: settings, result fields ---------------------------------------------------------------
def test_a_summed_loss_is_P_times_the_mean_loss_on_the_same_clock(monkeypatch):
    """docs/theory.md: the mean loss is (1/2P) Σ‖y − ŷ‖² with τ = 1/η, the summed loss (1/2) Σ‖y − ŷ‖² with
    τ = 1/(ηP). XoR Δ = 1 (P = 4) at η = 0.05 (mean) and η = 0.0125 (sum) is the same flow, τ = 20 both:
    the predicted loss ("the spec's loss: times P for a summed loss") is 4 times the mean one at every
    recorded step, and the search's time estimate is given τ = 20 for both. L(0) ≈ ½ · (1/4) · 4 = ½ for
    the mean loss (ŷ starts at about a0 = σ²H_p/2 = 4e-4)."""
    taus = []
    est = pr.estimate_seconds

    def spy(P, d, rank, pathways, families, steps, tau, race_dt, *shapes):     # shapes: compiles, calls
        taus.append(tau)
        return est(P, d, rank, pathways, families, steps, tau, race_dt, *shapes)

    monkeypatch.setattr(pr, "estimate_seconds", spy)
    mean = predict_reln(tk.xor_margin(1.0), 16, Training(lr=0.05, loss="mean", init_std=0.01, steps=100), progress=False)
    summed = predict_reln(tk.xor_margin(1.0), 16, Training(lr=0.0125, loss="sum", init_std=0.01, steps=100), progress=False)
    assert _gates(mean) == _gates(summed) and np.array_equal(mean.t, summed.t)
    np.testing.assert_allclose(summed.loss, 4 * mean.loss, rtol=1e-9)
    assert mean.loss[0] == pytest.approx(0.5, rel=1e-2)
    # the offset from ½, derived: the race starts each datapoint's mode at strength a0 along its target
    # (y_μ = ±1), so ŷ_μ(0) = a0 y_μ and L(0) = ½ (1 − a0)², a0 = 0.01² · 8 / 2 = 4e-4: ½ − 4e-4 + 8e-8
    # (measured to 1e-16; float64 RK4 is exact at t = 0)
    assert mean.loss[0] == pytest.approx(0.5 * (1 - 4e-4) ** 2, rel=1e-9)
    assert taus == [pytest.approx(20.0, rel=1e-12)] * 2


def test_hidden_zero_is_refused_by_name():
    """"needs a positive integer": 0 is not one, refused as such at once (not after the enumeration, as a
    width no family fits)."""
    with pytest.raises(tk.SpecError) as e:
        predict_reln(tk.xor_margin(1.0), 0, XOR_TRAINING, progress=False)
    assert e.value.field == "hidden" and e.value.problem == "0 is out of range: must be at least 1"
    assert e.value.fix.startswith("a positive integer, e.g. --hidden 128")


def test_only_an_exactly_zero_correlation_is_dropped():
    """X = I₂ (exact), y = (1, 5·10⁻¹²), consistency off. Patterns 10, 01, 11; (y ∘ 01) Xᵀ = (0, 5e-12) is
    not zero, and far above rounding (1e-16 of the data's scale 1): kept, nothing dropped. With y = 0
    every correlation is zero and the error names the targets (data.targets), not the consistency test."""
    pred = predict_reln(_task(np.eye(2, dtype=int), [[1, sp.Rational(5, 10 ** 12)]]), 8, XOR_TRAINING,
                        consistency="off", steps=50, progress=False)
    assert pred.enumeration["dropped_zero_correlation"] == 0
    assert {tuple(o["example"]) for o in pred.orbits} == {(1, 0), (0, 1), (1, 1)}
    with pytest.raises(tk.SpecError) as e:
        predict_reln(_task(np.eye(2, dtype=int), [[0, 0]]), 8, XOR_TRAINING, progress=False)
    assert e.value.field == "data.targets"


def test_max_checked_equal_to_the_count_cuts_nothing():
    """"beyond max_checked": the fan of test_consistency_cut_keeps_the_most_often_sampled has 4 sampled
    patterns, all consistent; max_checked = 4 tests all of them and says nothing was cut."""
    task = _task(sp.Matrix([[1, sp.cos(sp.pi / 18), -1], [0, sp.sin(sp.pi / 18), 0]]), [[1, 1, 1]])
    pred = predict_reln(task, 8, XOR_TRAINING, enumerate_method="sample", samples=4000, max_checked=4, steps=50,
                        progress=False)
    assert pred.enumeration["found"] == 4 and "consistency_checked" not in pred.enumeration
    assert len(pred.orbits) == 4


def test_each_consistency_setting_runs_its_own_test():
    """X = I₂, two outputs Y = diag(2, 1): patterns 10, 01, 11 (no symmetry: YᵀY = diag(4, 1)). By hand:
    10 and 01 grow along e₁, e₂, positive on their point, and w = e₁ (e₂) is 0 on the other: kept by
    both tests. 11: Σyx = diag(2, 1), top direction e₁ alone, 0 on x₂: dropped by "top" (and by True,
    which means top); "any-output" lets it grow along Sᵀu = (2u₁, u₂), u = (1, 1), positive on both: kept."""
    from theorykit.analysis.patterns import consistent_any_output

    task = _task(np.eye(2, dtype=int), [[2, 0], [0, 1]])
    X, Y = np.eye(2), np.diag([2.0, 1.0])
    assert consistent_pattern(X, Y, [1, 1])[0] is False and consistent_any_output(X, Y, [1, 1])[0] is True
    for setting, name, dropped in (("top", "top", 1), (True, "top", 1), ("any-output", "any-output", 0)):
        pred = predict_reln(task, 8, XOR_TRAINING, consistency=setting, steps=50, progress=False)
        assert pred.enumeration["consistency"] == name and pred.enumeration["dropped_inconsistent"] == dropped, setting


def test_half_way_time_is_where_the_predicted_loss_halves(monkeypatch):
    """t_half: "the step at which the predicted loss reaches L(0)/2", linearly interpolated. The
    stand-in race (above) gives a family of area a the loss (1, 2a − 1) on t = (0, 1): area 0.6 →
    (1, 0.2), half at t = 0.5/0.8 = 0.625; area 0.7 → (1, 0.4), half at 0.5/0.6 = 5/6; area 0.95 →
    (1, 0.9), never (None)."""
    _stand_in(monkeypatch, {F("011"): 0.6, F("001", "010"): 0.7}, 0.95)
    pred = predict_reln(SEARCH_TASK, 16, XOR_TRAINING, search="exhaustive", runners_up=2, progress=False)
    assert _gates(pred) == {(0, 1, 1)} and pred.t_half == pytest.approx(0.625, rel=1e-12)
    assert pred.runners_up[0]["t_half"] == pytest.approx(5 / 6, rel=1e-12) and pred.runners_up[1]["t_half"] is None


def test_the_orbit_table_and_runner_ups_count_pathways_and_flags():
    """XoR Δ = 1: two consistent orbits, the four singles and the two label pairs; above Δ* the pairs win
    (tests/test_predict.py). Each orbit says whether it is a candidate and in the prediction; the runner-up
    families are the singles (4 pathways) and both orbits (4 + 2 = 6 pathways), counted in pathways, not
    orbits. Nothing is left out at the default max_orbit_size (None); at 2 the singles are, and said."""
    pred = predict_reln(tk.xor_margin(1.0), 16, XOR_TRAINING, steps=100, progress=False)
    assert sorted((o["size"], o["candidate"], o["in_prediction"]) for o in pred.orbits) == [(2, True, True), (4, True, False)]
    assert sorted(r["pathways"] for r in pred.runners_up) == [4, 6]
    assert pred.search["left_out_orbits_larger_than"] is None and pred.search["left_out"] == 0
    pred = predict_reln(tk.xor_margin(1.0), 16, XOR_TRAINING, steps=100, max_orbit_size=2, progress=False)
    assert sorted((o["size"], o["candidate"], o["in_prediction"]) for o in pred.orbits) == [(2, True, True), (4, False, False)]
    assert pred.search["left_out_orbits_larger_than"] == 2 and pred.runners_up == []


# race-exhaust -----------------------------------------------------------------------------------
def test_exhaust_spec_sizes_context_scale_and_default_a0():
    """k contexts: 1 + (2^k − 2) pathways and 2^(2^k − 1) − 1 families (module docstring): k = 2, the
    smallest accepted, has 3 pathways and 7 families. The context scale is γ when given, else the
    paper's (docs/theory.md: 1.1 at k = 4, k = 3 unscaled). default_a0 is the a0 rule σ²H/2 for
    σ = 20·0.0005/700 and H = 50 (its docstring): (1/70000)² · 25."""
    import theorykit.analysis.exhaust as ex

    _, subsets, masks, labels = ex.exhaust_spec(2)
    assert masks.shape == (7, 3) and len(set(labels)) == 7
    spec = ex.exhaust_spec(3, gamma=2)[0]
    assert spec.task.X == tk.contexts(8, 3, context_scale=2).X and spec.task.X != tk.contexts(8, 3).X
    assert ex.exhaust_spec(3)[0].task.X == tk.contexts(8, 3).X
    assert float(sp.nsimplify(ex.exhaust_spec(4)[0].task.meta["context_scale"])) == pytest.approx(1.1, rel=1e-12)
    assert ex.default_a0() == pytest.approx((1 / 70000) ** 2 * 25, rel=1e-12)


def test_context_symmetries_map_rows_one_to_one():
    """n = 1 item, k = 2 contexts: datapoint c is column c, and the context swap moves column 0 to 1.
    (a) X rows (1,1), (1,0), (0,1), (1,1): swapping the columns swaps rows 1 and 2, so the swap is a
    symmetry, and its row map must be a permutation (rows 0 and 3 are equal: each is used once).
    (b) X rows (1,0), (1,0), (0,1): swapped, (0,1) appears twice and (1,0) once: no row permutation, so
    only the identity is a symmetry."""
    from theorykit.analysis.exhaust import context_symmetries

    Xa = np.array([[1, 1], [1, 0], [0, 1], [1, 1]])
    syms = context_symmetries(tk.Task(sp.Matrix(Xa), sp.Matrix([[1, 1]])), 1, 2)
    assert sorted(s["pi"] for s in syms) == [(0, 1), (1, 0)]
    for s in syms:
        assert sorted(s["rx"].tolist()) == [0, 1, 2, 3] and np.array_equal(Xa[s["rx"]], Xa[:, np.argsort(s["cols"])])
    Xb = np.array([[1, 0], [1, 0], [0, 1]])
    assert [s["pi"] for s in context_symmetries(tk.Task(sp.Matrix(Xb), sp.Matrix([[1, 1]])), 1, 2)] == [(0, 1)]


def test_pathway_action_refuses_a_symmetry_whose_image_is_missing():
    """contexts(8, 3) has all six context permutations (tests/test_exhaust.py). A superset of one pathway,
    gated on context 0 and seeing everything: π carries it to the pathway gated on π(0), which is in the
    superset only when π(0) = 0, 2 of the 6 (the identity and the swap of 1 and 2). The others give None."""
    from theorykit.analysis.exhaust import context_symmetries, pathway_action
    from theorykit.spec.gating import Pathway

    task = tk.contexts(8, 3)
    spec = tk.GDLNSpec(task, (Pathway("g0", tuple(int(mu < 8) for mu in range(24)), "all", "all"),),
                       tk.Training(lr=0.001, loss="sum", steps=10))
    acts = {s["pi"]: pathway_action(spec, s) for s in context_symmetries(task, 8, 3)}
    assert len(acts) == 6
    assert {pi for pi, a in acts.items() if a is not None} == {(0, 1, 2), (0, 2, 1)}
    assert all(acts[pi].tolist() == [0] for pi in ((0, 1, 2), (0, 2, 1)))


@pytest.mark.parametrize("kw, field", [({"race_dt": 0}, "race_dt"), ({"batch": 0}, "batch")])
def test_race_exhaust_needs_positive_race_dt_and_batch(kw, field):
    """"needs a positive number/integer": 0 is neither (it divided by zero, or stepped a range by 0)."""
    import theorykit.analysis.exhaust as ex

    with pytest.raises(tk.SpecError) as e:
        ex.race_exhaust(3, steps=20, progress=False, **kw)
    assert e.value.field == field


@pytest.mark.parametrize("use_symmetry", [False, True])
def test_exhaust_summary_by_hand(monkeypatch, use_symmetry):
    """race_exhaust's summary from stood-in areas (k = 3, the core is common and the three doubles).
    Families and areas: core 1.0; core + single 1 1.005; doubles alone 1.008 (within 1 %, lacks common);
    common + singles 1.5; common 2.0. So: winner core, containing the core; within 1 % the first three,
    not all of which contain it; the best family lacking it the doubles alone. Each row counts its
    pathways and says whether it has the common one (read off its label here). The figure's curves are the
    curves_top = 2 best and the named sets present (common only, common + singles, common + doubles), each
    L/L(0), so starting at 1. The summary counts all orbits: 127 families in 127 orbits without the
    symmetry, 39 with it (tests/test_exhaust.py, Burnside)."""
    import theorykit.analysis.exhaust as ex

    labels = ex.exhaust_spec(3)[3]
    area = {"common+12+13+23": 1.0, "common+1+12+13+23": 1.005, "12+13+23": 1.008, "common+1+2+3": 1.5,
            "common": 2.0}
    fams = sorted(labels.index(lab) for lab in area)
    if use_symmetry:                    # the stand-in cannot tell families of one orbit apart: one family
        fams = fams[:1]
    areas = iter([area[labels[i]] for i in fams])
    monkeypatch.setattr(ex, "loss_metrics", lambda t, L, fr: {"area": next(areas), "t_0.5": None, "t_0.1": None,
                                                               "t_0.01": None, "final_fraction": 1.0, "L0": 1.0})
    res = ex.race_exhaust(3, steps=20, race_dt=2, progress=False, families=fams, use_symmetry=use_symmetry,
                          curves_top=2)
    s = res.summary
    assert s["symmetry"]["orbits"] == (39 if use_symmetry else 127)
    for r in res.metrics:
        parts = r["family"].split("+")
        assert r["pathways"] == len(parts) and r["has_common"] == ("common" in parts)
    for c in res.curves.values():
        assert c[0] == pytest.approx(1.0, rel=1e-6)
    if use_symmetry:
        return
    assert s["winner"] == "common+12+13+23" and s["winner_contains_common_and_all_(k-1)-context"]
    assert s["within_1pct_of_winner"] == ["common+12+13+23", "common+1+12+13+23", "12+13+23"]
    assert s["all_within_1pct_contain_common_and_all_(k-1)-context"] is False
    assert s["best_family_lacking_common_or_a_(k-1)-context_pathway"]["family"] == "12+13+23"
    assert set(res.curves) == {"common+12+13+23", "common+1+12+13+23", "common", "common+1+2+3"}


@pytest.mark.parametrize("kw,field", [({"beam": 0}, "beam"), ({"shortlist": 0}, "shortlist"),
                                      ({"shortlist": -1}, "shortlist"), ({"beam": "x"}, "beam")])
def test_beam_and_shortlist_are_positive_integers(kw, field):
    """``beam``/``shortlist`` below 1 or not integers: a SpecError naming the keyword, before any work.
    shortlist = 0 was reported as "every candidate family has more pathways than the 8 hidden units",
    shortlist = −1 cut the candidate list by one without a word, and beam = "x" was int()'s ValueError."""
    with pytest.raises(tk.SpecError) as e:
        tk.predict_reln(tk.xor_margin(1.2), 8, tk.Training(steps=50, lr=0.05), search="beam", **kw)
    assert e.value.field == field and "positive integer" in e.value.fix


def test_the_command_line_names_the_beam_option(tmp_path, capsys):
    """The same check from the command line names ``--beam`` (exit 2, no file)."""
    from theorykit.cli import main
    out = tmp_path / "p.toml"
    from theorykit.spec.files import example_path
    assert main(["predict", str(example_path("predict/xor_data.toml")),
                 "--hidden", "8", "--search", "beam", "--beam", "0", "--out", str(out)]) == 2
    assert "--beam" in capsys.readouterr().err and not out.exists()
