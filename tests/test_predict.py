"""``theorykit predict``: the ReLN predicted from data alone (theorykit/analysis/predict.py).

Golden values come from hand derivations written beside each test, or from a second method written
here (a brute-force LP with a different formulation; the lemma module's enumeration of weight orderings).
"""
from __future__ import annotations

import json
import math
import tomllib

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st
from scipy.optimize import linprog

import theorykit as tk
from theorykit.analysis.patterns import consistent_pattern, data_symmetries, pattern_orbits, realisable_patterns
from theorykit.analysis.predict import predict_reln, share_hidden
from theorykit.spec.gating import Training
from _specs import XOR_TOML

XOR_TRAINING = Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)


# ---------------------------------------------------------------------------------------------
# 1. enumeration against brute force
# ---------------------------------------------------------------------------------------------
def _brute_realisable(X, g):
    """Independent decider: maximise the margin t of ``w·x ≥ t`` (on), ``w·x ≤ 0`` (off) with |w_i| ≤ 1, t ≤ 1;
    g is realisable iff the optimum t* > 0 (a different LP from the code's ``≥ 1`` feasibility)."""
    d = X.shape[0]
    g = np.asarray(g, bool)
    A, b = [], []
    for mu in range(X.shape[1]):
        if g[mu]:
            A.append(np.r_[-X[:, mu], 1.0])
        else:
            A.append(np.r_[X[:, mu], 0.0])
        b.append(0.0)
    res = linprog(np.r_[np.zeros(d), -1.0], A_ub=np.array(A), b_ub=np.array(b),
                  bounds=[(-1, 1)] * d + [(None, 1)], method="highs")
    assert res.status == 0
    return -res.fun > 1e-9


@settings(max_examples=25)
@given(st.integers(1, 3).flatmap(lambda d: st.integers(1, 6).flatmap(
    lambda P: st.lists(st.lists(st.integers(-3, 3), min_size=P, max_size=P), min_size=d, max_size=d))))
def test_exact_enumeration_matches_brute_force(rows):
    X = np.array(rows, float)
    P = X.shape[1]
    pats, counts, info = realisable_patterns(X, method="exact")
    got = {tuple(int(v) for v in p) for p in pats}
    want = set()
    for bits in range(1, 2 ** P):            # all 2^P patterns but the all-off one
        g = tuple((bits >> mu) & 1 for mu in range(P))
        if _brute_realisable(X, g):
            want.add(g)
    assert got == want
    assert info["method"] == "exact" and counts is None


def test_exact_enumeration_on_context_data_equals_the_lemma_enumeration():
    """On contexts(3, 2) a unit's pre-activation is a_i + b_c: the lemma module enumerates those patterns by
    weight orderings (independent of any LP); their number is the poly-Bernoulli B_3^(-2) = 46 (Σ_m (m!)²
    S(4, m+1) S(3, m+1) = 1 + 7·3 + 4·6·1 = 46), all-off included."""
    from theorykit.theory.lemmas import poly_bernoulli, realisable_gate_patterns

    X, _ = tk.contexts(2, 3, blocks="identity", common="identity").numeric()
    pats, _, _ = realisable_patterns(X, method="exact")
    n, k = 2, 3
    lemma = {np.frombuffer(p, bool).reshape(n, k).T.reshape(-1).tobytes() for p in realisable_gate_patterns(n, k)}
    lemma.discard(np.zeros(n * k, bool).tobytes())
    assert {p.tobytes() for p in pats} == lemma
    assert len(pats) == poly_bernoulli(n, k) - 1 == 45


def test_sampled_patterns_are_realisable_and_seeded():
    X = np.random.default_rng(3).standard_normal((3, 9))
    a, ca, ia = realisable_patterns(X, method="sample", samples=3000, seed=5)
    b, cb, _ = realisable_patterns(X, method="sample", samples=3000, seed=5)
    assert np.array_equal(a, b) and np.array_equal(ca, cb) and ca.sum() <= 3000
    assert all(_brute_realisable(X, g) for g in a)
    exact, _, _ = realisable_patterns(X, method="exact")
    assert {p.tobytes() for p in a} <= {p.tobytes() for p in exact}
    assert ia["method"] == "sample"


def test_cover_bound_is_covers_count():
    """Cover (1965): P points in general position in R^r admit C(P, r) = 2 Σ_{k<r} C(P−1, k) sign
    patterns through the origin. By hand: C(4, 2) = 2(1 + 3) = 8 (= 2P in the plane), C(5, 3) =
    2(1 + 4 + 6) = 22, and P ≤ r gives every pattern, C(3, 5) = 2(1 + 2 + 1) = 2³. On the five
    vertices of a regular pentagon (general position, in no half-plane, so neither all-on nor
    all-off is a strict pattern) the exact enumeration finds exactly C(5, 2) = 10 patterns."""
    from theorykit.analysis.patterns import cover_bound

    assert (cover_bound(4, 2), cover_bound(5, 3), cover_bound(3, 5), cover_bound(6, 1)) == (8, 22, 8, 2)
    ang = 2 * np.pi * np.arange(5) / 5
    pats, _, info = realisable_patterns(np.vstack([np.cos(ang), np.sin(ang)]), method="exact")
    assert len(pats) == info["cover_bound"] == 10 and info["rank"] == 2

# ---------------------------------------------------------------------------------------------
# 2. consistency and symmetry (hand derivations on XoR)
# ---------------------------------------------------------------------------------------------
def test_consistency_on_xor_by_hand():
    """XoR points x0 = (1,1,Δ), x1 = (−1,−1,Δ) (y = +1), x2 = (1,−1,−Δ), x3 = (−1,1,−Δ) (y = −1), Δ = 1/2.
    Single {0}: v₁ ∝ x0, positive on x0, and w = x0 + n (n ⊥ x0) can be ≤ 0 elsewhere: kept.
    Pair {0,1}: Σyx ∝ x0 + x1 = (0,0,2Δ): v₁ = e3, on x0, x1, −Δ on x2, x3: kept.
    Mixed pair {1,3}: Σyx ∝ x1 − x3 = (0,−2,2Δ): v₁·x1 = 1+Δ² > 0 but v₁·x3 = −1−Δ² < 0: dropped.
    Triple {0,1,2}: Σyx ∝ (−1,1,3Δ): positive on x0, x1 and negative on x2: dropped."""
    X, Y = tk.xor_margin(0.5).numeric()
    assert consistent_pattern(X, Y, [1, 0, 0, 0])[0]
    assert consistent_pattern(X, Y, [1, 1, 0, 0])[0]
    assert not consistent_pattern(X, Y, [0, 1, 0, 1])[0]
    assert not consistent_pattern(X, Y, [1, 1, 1, 0])[0]


def test_xor_symmetry_group_by_hand():
    """YᵀY = y yᵀ with y = (1,1,−1,−1) is kept by the permutations that keep or swap the classes {0,1}, {2,3}
    (2·2·2 = 8); XᵀX has 2+Δ² on the diagonal, Δ²−2 within a class and −Δ² across, so all 8 keep it."""
    X, Y = tk.xor_margin(0.5).numeric()
    perms, info = data_symmetries(X, Y, tk.xor_margin(0.5))
    assert info["order"] == 8 and info["exact"]
    for s in perms:
        assert {frozenset(s[[0, 1]]), frozenset(s[[2, 3]])} == {frozenset({0, 1}), frozenset({2, 3})}
    singles = np.eye(4, dtype=bool)
    assert len(set(pattern_orbits(singles, perms))) == 1


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6).flatmap(lambda P: st.tuples(
    st.lists(st.lists(st.integers(-1, 1), min_size=P, max_size=P), min_size=1, max_size=3),
    st.lists(st.lists(st.integers(-1, 1), min_size=P, max_size=P), min_size=1, max_size=2))), st.booleans())
def test_symmetry_search_matches_brute_force(XY, exact):
    """Every datapoint permutation preserving XᵀX and YᵀY, found by trying all P! of them here,
    against the backtracking search (exact rational task and floats alike)."""
    import itertools

    X, Y = np.array(XY[0], float), np.array(XY[1], float)
    Kx, Ky = X.T @ X, Y.T @ Y
    want = {p for p in itertools.permutations(range(X.shape[1]))
            if np.array_equal(Kx[np.ix_(p, p)], Kx) and np.array_equal(Ky[np.ix_(p, p)], Ky)}
    task = tk.Task(sp.Matrix(XY[0]), sp.Matrix(XY[1])) if exact else None
    perms, info = data_symmetries(X, Y, task)
    got = {tuple(int(v) for v in np.argsort(s)) for s in perms}      # σ maps μ to σ[μ]; compare the inverses
    assert got == want and info["order"] == len(want) and info["exact"] == exact


def test_symmetry_search_and_consistency_stop_at_the_time_bound():
    """A deadline already passed: the symmetry search raises TimeoutError, and predict names time_limit (--time-limit on the command line)."""
    import time

    X, Y = tk.contexts(4, 3).numeric()
    with pytest.raises(TimeoutError):
        data_symmetries(X, Y, tk.contexts(4, 3), deadline=time.monotonic() - 1)
    with pytest.raises(tk.SpecError) as e:
        predict_reln(tk.contexts(4, 3), 16, XOR_TRAINING, time_limit=1e-9)
    assert e.value.field == "time_limit" and "pattern enumeration" in str(e.value)     # the first stage
    with pytest.raises(tk.SpecError) as e:
        predict_reln(tk.contexts(4, 3), 16, XOR_TRAINING, time_limit=1e-9, enumerate_method="sample", consistency="off")
    assert e.value.field == "time_limit" and "symmetry search" in str(e.value)


def test_no_symmetry_on_generic_data():
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((3, 6)), rng.standard_normal((2, 6))
    perms, info = data_symmetries(X, Y)
    assert info["order"] == 1 and np.array_equal(perms[0], np.arange(6))


def test_share_hidden_rule():
    assert share_hidden(10, 3) == [4, 3, 3]
    assert share_hidden(128, 4) == [32] * 4


def test_written_spec_a0_is_the_geometric_mean_of_the_pathways():
    """XoR below Δ* predicts the four single-point pathways; 130 units shared by the stated rule give
    33, 33, 32, 32, each a0 = σ²H_p/2, and the written spec's one training.a0 is their geometric mean
    (docstring of to_spec): σ²/2 · (33² · 32²)^{1/4} = σ²/2 · √(33·32) (the arithmetic mean would be
    σ²/2 · 32.5, 1.2e-4 higher)."""
    pred = predict_reln(tk.xor_margin(0.6), 130, XOR_TRAINING, progress=False)
    assert len(pred.gates) == 4 and pred.widths == [33, 33, 32, 32]
    np.testing.assert_allclose(pred.a0, [0.01 ** 2 * h / 2 for h in (33, 33, 32, 32)], rtol=1e-12)
    spec = pred.to_spec()
    assert [p.hidden for p in spec.pathways] == [33, 33, 32, 32]
    assert spec.training.a0 == pytest.approx(0.01 ** 2 / 2 * math.sqrt(33 * 32), rel=1e-12)


# ---------------------------------------------------------------------------------------------
# 3. XoR on both sides of Δ* = sqrt(2/3)
# ---------------------------------------------------------------------------------------------
# Hand derivation: the single-datapoint pathway has s_xor = |x_μ|/4 = sqrt(2+Δ²)/4; the linear pathway
# (on both points of one label) s_lin = |x0 + x1|/4 = 2Δ/4; equal at 4Δ² = Δ² + 2, Δ* = sqrt(2/3) ≈ 0.816.
@pytest.mark.parametrize("delta, expected", [(0.6, "xor"), (1.0, "linear")])
def test_xor_prediction_both_sides_of_the_crossover(delta, expected):
    assert (delta < math.sqrt(2 / 3)) == (expected == "xor")
    pred = predict_reln(tk.xor_margin(delta), 128, XOR_TRAINING)
    got = {tuple(int(v) for v in g) for g in pred.gates}
    if expected == "xor":
        assert got == {(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)}
        assert pred.widths == [32] * 4
        assert np.allclose(pred.a0, 0.01 ** 2 * 32 / 2)          # a0 rule σ²H_p/2
    else:
        assert got == {(1, 1, 0, 0), (0, 0, 1, 1)}
        assert pred.widths == [64, 64]
        assert np.allclose(pred.a0, 0.01 ** 2 * 64 / 2)
    assert pred.search["method"] == "exhaustive"
    assert pred.runners_up and all(r["area"] >= pred.area for r in pred.runners_up)
    assert pred.t_half is not None and pred.loss[-1] < 0.01 * pred.loss[0]
    spec = pred.to_spec()
    assert sum(p.hidden for p in spec.pathways) == 128
    # the text names the orbits its families are made of. Of XoR's patterns only the 4 single points and
    # the 2 same-label pairs keep their gates while their units grow (Definition 3.1: the unit grows along
    # the top direction of Y diag(g) Xᵀ, which must be positive on every on-point; for the mixed pair 1001
    # it is (1, 0, Δ), negative on x4 = (−1, 1, −Δ); for 1111 it is (0, 0, 1), negative on the −Δ points),
    # two orbits under the task's symmetry
    text = pred.text()
    assert "0: 4 patterns like 0001" in text or "1: 4 patterns like 0001" in text
    assert "2 patterns like 0011" in text or "2 patterns like 1100" in text
    assert text.count("(predicted)") == 1
    # equal widths, one a0: written as the rule gives it (1.6e-3 or 3.2e-3 to the last digit, not the
    # geometric mean's exp(mean(log)) with a rounding error in the 16th digit)
    assert spec.training.a0 == pred.a0[0] == 0.01 ** 2 * pred.widths[0] / 2


def test_progress_on_a_terminal_and_quiet_otherwise(monkeypatch):
    """The stages and the race show a bar on a terminal's stderr; a pipe, or progress=False, gets nothing."""
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    for enabled, isatty in ((True, True), (False, True), (True, False)):
        err = Terminal() if isatty else io.StringIO()
        monkeypatch.setattr(sys, "stderr", err)
        predict_reln(tk.xor_margin(1.0), 16, XOR_TRAINING, steps=200, progress=enabled)
        shown = err.getvalue()
        if enabled and isatty:
            assert "predict: patterns" in shown and "orbits" in shown
            assert "predict: racing (exhaustive)" in shown and "families raced" in shown
        else:
            assert shown == ""


# ---------------------------------------------------------------------------------------------
# 4. family search against exhaustive search
# ---------------------------------------------------------------------------------------------
def test_beam_and_forward_against_exhaustive():
    """Two output groups on random ±1 data (more orbits than XoR): the beam's and the forward search's
    winners are families the exhaustive search also raced, with the same area, and no better than its winner."""
    rng = np.random.default_rng(11)
    X = rng.choice([-1, 1], size=(3, 5)).astype(int)
    Y = np.stack([X[0] * X[1], X[2]])
    task = tk.Task(sp.Matrix(X.tolist()), sp.Matrix(Y.tolist()))
    tr = Training(lr=0.05, loss="mean", init_std=0.01, steps=600)
    ex = predict_reln(task, 32, tr, search="exhaustive", max_families=4095)
    assert ex.search["method"] == "exhaustive" and ex.search["candidates"] >= 3
    for method in ("beam", "forward"):
        other = predict_reln(task, 32, tr, search=method, beam=2, shortlist=4)
        assert other.search["method"] == method
        assert other.area >= ex.area - 1e-12
        fam = sorted(other.search["prediction_orbits"])
        same = [r for r in ex.runners_up + [{"family": ex.search["prediction_orbits"], "area": ex.area}]
                if sorted(r["family"]) == fam]
        if same:                       # among the exhaustive ranking's top: the same race gives the same area
            assert abs(same[0]["area"] - other.area) < 1e-9


def test_forward_search_follows_the_residual_correlation_and_stops_by_min_gain():
    """The stated rule of the forward search (module docstring, docs/predict.md), recomputed with numpy
    on the beam test's data (every orbit a single pattern here). With shortlist 1 the first family
    is the orbit of largest ‖(Y ∘ g) Xᵀ / P‖₂; the second adds the orbit of largest ‖(R ∘ g) Xᵀ / P‖₂,
    R = Y − the first family's final output. At 600 steps (30 τ) that output is taken as the gated
    network's end point, the least-squares fit W (X ∘ g) with W = (Y ∘ g)(X ∘ g)⁺; the residual's
    best orbits beat the next by ≈ 0.08, far more than the race's distance from its end point, and
    differ from the best orbit on Y itself. A search stops after the first round that does not
    lower the area by more than min_gain (relative): with min_gain = 0.5, every earlier round halved it."""
    rng = np.random.default_rng(11)
    X = rng.choice([-1, 1], size=(3, 5)).astype(int)
    Y = np.stack([X[0] * X[1], X[2]])
    task = tk.Task(sp.Matrix(X.tolist()), sp.Matrix(Y.tolist()))
    tr = Training(lr=0.05, loss="mean", init_std=0.01, steps=600)
    pred = predict_reln(task, 32, tr, search="forward", shortlist=1, min_gain=0.5, progress=False)
    Xf, Yf = X.astype(float), Y.astype(float)
    P = Xf.shape[1]
    assert all(o["size"] == 1 and o["candidate"] for o in pred.orbits)
    pats = {o["orbit"]: np.array(o["example"], float) for o in pred.orbits}

    def score(R, g):
        return np.linalg.norm((R * g) @ Xf.T / P, 2)

    on_Y = {k: score(Yf, g) for k, g in pats.items()}
    first = max(on_Y, key=on_Y.get)
    assert sorted(on_Y.values())[-2] < on_Y[first] - 1e-3           # a unique best on Y
    rounds = pred.search["rounds"]
    assert rounds[0]["best"] == [first]
    g1 = pats[first]
    R = Yf - ((Yf * g1) @ np.linalg.pinv(Xf * g1)) @ (Xf * g1)
    on_R = {k: score(R, g) for k, g in pats.items() if k != first}
    top = max(on_R.values())
    best_R = {k for k, v in on_R.items() if v > top - 1e-9}
    assert max(v for v in on_R.values() if v < top - 1e-9) < top - 0.05
    best_Y = max((k for k in pats if k != first), key=on_Y.get)
    assert best_Y not in best_R                                     # the residual matters here
    assert len(rounds) >= 2 and set(rounds[1]["best"]) - {first} <= best_R and len(rounds[1]["best"]) == 2
    # the stopping rule
    for prev, cur in zip(rounds[:-2], rounds[1:-1]):
        assert cur["best_area"] < prev["best_area"] * (1 - 0.5)
    assert rounds[-1]["best_area"] >= rounds[-2]["best_area"] * (1 - 0.5)


# ---------------------------------------------------------------------------------------------
# 5. command line
# ---------------------------------------------------------------------------------------------


def test_cli_predict_xor_linear_side(tmp_path, capsys):
    from theorykit.cli import main
    from theorykit.spec.files import load_spec

    spec_path = tmp_path / "xor.toml"
    spec_path.write_text(XOR_TOML)
    out, js = tmp_path / "pred.toml", tmp_path / "pred.json"
    rc = main(["predict", str(spec_path), "--hidden", "64", "--set", "Delta=1", "--out", str(out), "--json", str(js)])
    assert rc == 0
    text = capsys.readouterr().out
    assert "predicted ReLN: 2 pathways" in text and "runner-up" in text
    spec = load_spec(out)
    assert sorted(p.active for p in spec.pathways) == [(0, 0, 1, 1), (1, 1, 0, 0)]
    assert [p.hidden for p in spec.pathways] == [32, 32]
    doc = json.loads(js.read_text())
    assert doc["prediction"]["pathways"][0]["a0"] == pytest.approx(0.01 ** 2 * 32 / 2)   # σ²H_p/2
    assert doc["prediction"]["search"]["method"] == "exhaustive"


def test_cli_predict_errors_name_the_field(tmp_path, capsys):
    from theorykit.cli import main

    spec_path = tmp_path / "xor.toml"
    spec_path.write_text(XOR_TOML)
    assert main(["predict", str(spec_path), "--hidden", "0", "--out", str(tmp_path / "o.toml")]) == 2
    assert "--hidden" in capsys.readouterr().err
    assert main(["predict", str(spec_path), "--hidden", "8", "--out", str(tmp_path / "o.toml")]) == 2
    assert "--set" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[training]\nlr = 0.1\n")
    assert main(["predict", str(bad), "--hidden", "8", "--out", str(tmp_path / "o.toml")]) == 2
    assert "error in data" in capsys.readouterr().err
    assert not (tmp_path / "o.toml").exists()


def test_cli_time_bound_refuses_with_an_estimate(tmp_path, capsys):
    from theorykit.cli import main

    spec_path = tmp_path / "xor.toml"
    spec_path.write_text(XOR_TOML)
    out = tmp_path / "o.toml"
    # a bound the pattern stages fit in (XoR: well under a second), and a race estimated beyond it: its
    # 1e6 steps, the most this race takes (τ = 20, s_max = 1: 2e6 budget steps of τ/40), cost a new shape
    # (2.5 s) and their arithmetic (1e8 steps, the old figure here, are now refused by --steps first)
    assert main(["predict", str(spec_path), "--hidden", "8", "--set", "Delta=1", "--out", str(out),
                 "--time-limit", "2", "--steps", "1000000"]) == 2
    err = capsys.readouterr().err
    assert "error in --time-limit" in err and "estimated run time" in err and "--beam" in err
    assert not out.exists()


def test_time_bound_holds_during_the_search(monkeypatch):
    """The bound is checked again before each batch of families, from that batch's own sizes: a
    search whose first estimate fits is stopped, with an error, before a batch that would not."""
    import theorykit.analysis.predict as pr

    calls = []

    def fake(*args):
        calls.append(args)
        return 0.0 if len(calls) == 1 else 1e6          # the up-front estimate fits; the first batch does not

    monkeypatch.setattr(pr, "estimate_seconds", fake)
    with pytest.raises(tk.SpecError) as e:
        pr.predict_reln(tk.xor_margin(1.0), 16, XOR_TRAINING, steps=200, time_limit=30)
    assert e.value.field == "time_limit" and "0 families raced" in str(e.value) and "would pass the 30 s bound" in str(e.value)
    assert len(calls) == 2
    calls.clear()
    # a shortlist of one orbit that does not fit three units: the search shortlists among the fitting ones
    small = Training(lr=0.05, loss="mean", init_std=0.01, steps=500)
    monkeypatch.undo()
    pred = pr.predict_reln(tk.xor_margin(0.5), 3, small, search="forward", shortlist=1)
    assert {tuple(int(v) for v in g) for g in pred.gates} == {(1, 1, 0, 0), (0, 0, 1, 1)}
    monkeypatch.setattr(pr, "estimate_seconds", lambda *a: 0.0)
    monkeypatch.setattr(pr, "estimate_seconds", lambda *a: 0.0)
    assert pr.predict_reln(tk.xor_margin(1.0), 16, XOR_TRAINING, steps=200, time_limit=30).gates.shape[0] == 2


def test_families_need_a_unit_per_pathway():
    """Found by the fuzzer: with fewer hidden units than a family has pathways, the equal-share rule
    gave some pathways 0 units and the written spec failed to load. Such families are now left out
    of the race, and the search says so; with too few units for any family, a clear error."""
    small = Training(lr=0.05, loss="mean", init_std=0.01, steps=500)
    pred = predict_reln(tk.xor_margin(0.5), 3, small)            # the 4-pathway XoR family needs 4 units
    assert {tuple(int(v) for v in g) for g in pred.gates} == {(1, 1, 0, 0), (0, 0, 1, 1)}
    assert pred.widths == [2, 1] and "2 left out" in pred.search["covered"]
    assert sum(p.hidden for p in pred.to_spec().pathways) == 3
    with pytest.raises(tk.SpecError) as e:
        predict_reln(tk.xor_margin(0.5), 1, small)
    assert e.value.field == "hidden" and "at least 2" in str(e.value)
    with pytest.raises(tk.SpecError) as e:
        predict_reln(tk.xor_margin(0.5), 8, small, max_orbit_size=1)
    assert e.value.field == "max_orbit_size" and "at least 2" in str(e.value)


def test_cli_failed_validation_names_the_option_and_writes_nothing(tmp_path, capsys):
    """Found by the fuzzer: one datapoint, one hidden unit that ends off on it, so Algorithm 1 finds no
    pattern with a non-zero effective dataset. The error names --validate (it named "patterns", no
    option at all) and the prediction file is not written (it was written before the validation)."""
    from theorykit.cli import main

    spec_path = tmp_path / "one.toml"
    spec_path.write_text('data = {inputs = [[-2], ["-sqrt(3)/2"], ["2**-1"]], targets = [[-2], [1.5]]}\n'
                         'training = {lr = 0.01, loss = "mean", init_std = 0.01, steps = 10}\n')
    out = tmp_path / "pred.toml"
    assert main(["predict", str(spec_path), "--hidden", "1", "--out", str(out), "--validate", "--seeds", "1",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in --validate: Algorithm 1 found no usable gate pattern")
    assert not out.exists()


def test_cli_spec_name_is_checked_as_the_spec_parser_checks_it(tmp_path, capsys):
    """Found by the fuzzer: a spec named with a control character (U+001C) was accepted, and the
    prediction file carried the name raw, which no TOML reader accepts. The name is now checked as
    load_spec checks it (an error naming "name", nothing written); a plain name gives a loadable file."""
    from theorykit.cli import main

    for name, ok in (('"odd\\u001cname"', False), ('"odd name: é通路 \\"quoted\\""', True)):
        spec_path = tmp_path / "odd.toml"
        spec_path.write_text(f"name = {name}\n" + XOR_TOML)
        out = tmp_path / "pred.toml"
        rc = main(["predict", str(spec_path), "--hidden", "8", "--set", "Delta=1", "--out", str(out), "--no-progress"])
        err = capsys.readouterr().err
        if ok:
            assert rc == 0 and tk.load_spec(out).name == 'odd name: é通路 "quoted"-predicted'
        else:
            assert rc == 2 and err.startswith("theorykit: error in name: contains control") and not out.exists()


def test_written_prediction_keeps_a0_in_the_spec_files_range():
    """Found by the fuzzer: init_std 1e-6 and one unit per pathway give a0 = σ²H_p/2 = 5e-13 (by hand),
    below the 1e-12 a spec file accepts, so the written prediction did not load. to_spec now refuses,
    naming training.init_std; at init_std 1e-5 (a0 = 5e-11) it is written and loads."""
    for std, ok in ((1e-6, False), (1e-5, True)):
        pred = predict_reln(tk.xor_margin(0.5), 2, Training(lr=0.05, loss="sum", init_std=std, steps=49))
        assert np.allclose(pred.a0, std ** 2 / 2)                # two pathways of one unit each
        if ok:
            spec = pred.to_spec()
            assert spec.training.a0 == pytest.approx(std ** 2 / 2)
            assert tk.spec_from_dict(tomllib.loads(tk.spec_to_toml(spec))).training.a0 == pytest.approx(std ** 2 / 2)
        else:
            with pytest.raises(tk.SpecError) as e:
                pred.to_spec()
            assert e.value.field == "training.init_std" and "raise init_std or --hidden" in str(e.value)


def test_validation_page_and_agreements(tmp_path):
    """Two ReLU networks on XoR Δ = 0.5: the page is written with its figures, and the agreements are
    recomputed here from the curves and weights the validation keeps."""
    from theorykit.analysis.predict_validate import validate_prediction

    pred = predict_reln(tk.xor_margin(0.5), 32, XOR_TRAINING)
    val = validate_prediction(pred, seeds=2, html_dir=tmp_path)
    L0 = val.relu_loss[:, 0].mean()
    rms = np.sqrt(np.mean((val.pred_loss - val.relu_loss.mean(axis=0)) ** 2)) / L0
    assert val.rms_gap == pytest.approx(rms)
    assert val.pred_loss[0] == pytest.approx(pred.loss[0])
    assert 0.0 <= val.weight_share <= 1.0 and 0.0 <= val.jaccard <= 1.0 and 0.0 <= val.gate_change_share <= 1.0
    html = (tmp_path / "validate.html").read_text()
    assert html.count("data:image/png;base64,") == 2 and "RMS gap" in html
    assert json.loads((tmp_path / "validate.json").read_text())["validation"]["seeds"] == 2


def test_relaxed_consistency_equals_top_mode_for_one_output():
    """With one output, u is a scalar, so the (u, w) LP of consistent_any_output must agree with the
    top-mode test (w₀ = ±v₁ up to scale), pattern by pattern, on random data."""
    from theorykit.analysis.patterns import consistent_any_output

    rng = np.random.default_rng(4)
    for _ in range(4):
        X = rng.integers(-2, 3, size=(3, 5)).astype(float)
        Y = rng.integers(-2, 3, size=(1, 5)).astype(float)
        pats, _, _ = realisable_patterns(X, method="exact")
        for g in pats:
            if np.linalg.norm((Y * g) @ X.T) == 0:
                continue
            assert consistent_any_output(X, Y, g)[0] == consistent_pattern(X, Y, g)[0], (X, Y, g)


# ---------------------------------------------------------------------------------------------
# the contexts(8, 3) control under the paper's protocol (docs/predict.md, "Where it departs")
# ---------------------------------------------------------------------------------------------
def _published_control():
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[1] / "examples" / "predict" / "published_control.py"
    spec = importlib.util.spec_from_file_location("published_control", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_published_control_trains_on_contexts_8_3_by_plain_gradient_descent():
    """The control script (no theorykit; the published relu3.py protocol) trains on exactly
    ``contexts(8, 3)`` with the hierarchy in every context, and its float32 loop is plain gradient
    descent: against the float64 numpy reference from the same normal draws, at reduced size."""
    from _gd_reference import relu_gd

    ctl = _published_control()
    X, Y = ctl.context_task()
    Xt, Yt = tk.contexts(8, 3).numeric()
    np.testing.assert_array_equal(X, Xt)
    np.testing.assert_array_equal(Y, Yt)
    # hierarchy(8) by hand: the root, 2 halves, 4 quarters, 8 leaves
    assert ctl.hierarchy(8).sum(axis=1).tolist() == [8, 4, 4, 2, 2, 2, 2] + [1] * 8
    H, steps, std, lr = 40, 300, 0.05, 0.01          # a larger start than published, to learn in 300 steps
    L, ck = ctl.train(X, Y, seed=3, hidden=H, steps=steps, lr=lr, checkpoints=(), std=std)
    rng = np.random.RandomState(3)
    W1 = rng.normal(0.0, std, (H, 11))
    W2 = rng.normal(0.0, std, (60, H))
    ref, _, _ = relu_gd(W1, W2, X, Y, lr=lr, steps=steps, loss="sum")
    assert ref[-1] < 0.9 * ref[0]                        # it learns within the window
    np.testing.assert_allclose(L, ref, rtol=2e-4)        # float32 against float64
    # the share classes partition the weight, and a unit on everywhere counts as the paper's
    s = ctl.shares(X, *ck[steps])
    assert sum(s.values()) == pytest.approx(1.0)
    W1_on = np.zeros((1, 11)); W1_on[0, 8:] = 1.0      # context inputs only: on at every datapoint
    assert ctl.shares(X, W1_on, np.ones((60, 1)))["paper"] == pytest.approx(1.0)


# ---------------------------------------------------------------------------------------------
# defects found in a review (each test fails on the code before the fix)
# ---------------------------------------------------------------------------------------------
def test_steps_set_the_race_horizon_the_validation_and_the_written_spec(tmp_path):
    """A prediction for 200 steps is validated on 200 steps and written with steps = 200 (it was
    validated on the spec's 2000, against a race loss held flat past step 200)."""
    from theorykit.analysis.predict_validate import validate_prediction

    pred = predict_reln(tk.xor_margin(0.5), 32, XOR_TRAINING, steps=200, progress=False)
    assert pred.training.steps == 200 and pred.to_spec().training.steps == 200
    assert pred.t[-1] <= 200 + pred.t[1] - pred.t[0]
    val = validate_prediction(pred, seeds=2)
    assert val.t[-1] == 200
    with pytest.raises(tk.SpecError, match="--steps"):
        predict_reln(tk.xor_margin(0.5), 32, XOR_TRAINING, steps=0, progress=False)


def test_exact_enumeration_is_tested_for_consistency_whole():
    """X = I₅, Y = (1 … 1): the exact enumeration gives every non-empty subset, 31 patterns, sorted by
    size. With max_checked = 10 the consistency stage used to keep the 10 smallest, losing the
    all-on pattern; only a sampled enumeration may be cut (its patterns are ordered by frequency).
    Every subset is consistent here: v₁ ∝ g itself, positive on the subset, and w = g is 0 elsewhere."""
    X, Y = np.eye(5), np.ones((1, 5))
    pred = predict_reln(tk.Task(sp.Matrix(X), sp.Matrix(Y)), 8, XOR_TRAINING, max_checked=10, progress=False)
    assert pred.enumeration["found"] == 31 and "consistency_checked" not in pred.enumeration
    assert pred.enumeration["dropped_inconsistent"] == 0
    assert sum(o["size"] for o in pred.orbits) == 31


def test_consistency_with_a_repeated_top_singular_value_respects_the_symmetry():
    """x₁, x₂ = e₁, e₂ with y = e₁, e₂; x₃, x₄ the columns of the reflection Q (coordinates 3–4) with y
    the columns of the reflection U. Swapping (1, 2) ↔ (3, 4) keeps XᵀX = I and YᵀY = I, so patterns
    1100 and 0011 are images of each other. Each has Σyx of two equal singular values (an orthogonal
    2 × 2 block), so "the" top direction is SVD's arbitrary pick: it made 1100 inconsistent and 0011
    consistent. Some direction of the top subspace (e₁ + e₂ for 1100; Q's columns summed for 0011) is
    positive on both on-points and zero on the others, so both are consistent."""
    Q = np.array([[-0.6, -0.8], [-0.8, 0.6]])
    U = np.array([[-0.8, -0.6], [-0.6, 0.8]])
    X = np.zeros((4, 4)); X[:2, :2] = np.eye(2); X[2:, 2:] = Q
    Y = np.zeros((2, 4)); Y[:, :2] = np.eye(2); Y[:, 2:] = U
    a, b = consistent_pattern(X, Y, [1, 1, 0, 0])[0], consistent_pattern(X, Y, [0, 0, 1, 1])[0]
    assert a and b
    perms, _ = data_symmetries(X, Y)
    assert any(set(np.asarray(p)[[0, 1]].tolist()) == {2, 3} for p in perms)   # the swap is in the group


def test_gate_change_share_uses_one_activity_rule_at_both_ends():
    """With η = 1e-12 the weights do not move, so no unit changes its activity between the half-way
    time and the end: the share must be 0. Datapoint 3 (input 1e-7) gives pre-activations ~1e-9, below
    the 1e-6 relative rule of the final gates but above 0, the snapshots' rule: mixing the two counted
    most units as changed."""
    from theorykit.analysis.predict_validate import validate_prediction

    X = np.array([[1.0, 0.0, 1e-7], [0.0, 1.0, 1e-7]])
    Y = np.array([[1.0, 1.0, 0.0]])
    tr = Training(lr=1e-12, init_std=0.01, steps=200)
    pred = predict_reln(tk.Task(sp.Matrix(X), sp.Matrix(Y)), 16, tr, progress=False)
    val = validate_prediction(pred, seeds=2, K=2)
    assert val.gate_change_share == 0.0


def test_results_do_not_depend_on_the_data_scale():
    """x₁ = s e₁, x₂ = s√2 e₂, y = (1, 1): ‖x₁‖ ≠ ‖x₂‖, so the only symmetry is the identity at any
    scale s (an absolute 1e-12 floor accepted the swap at s = 1e-7). XoR scaled by 1e-7 keeps its 14
    realisable patterns' non-zero correlations (an absolute floor dropped them all)."""
    for s_ in (1.0, 1e-7):
        X = np.array([[s_, 0.0], [0.0, s_ * math.sqrt(2)]])
        perms, _ = data_symmetries(X, np.array([[1.0, 1.0]]))
        assert [list(p) for p in perms] == [[0, 1]]
    Xx, Yx = tk.xor_margin(0.5).numeric()
    small = tk.Task(sp.Matrix(Xx * 1e-7), sp.Matrix(Yx))
    pred = predict_reln(small, 16, XOR_TRAINING, consistency="off", progress=False)
    assert pred.enumeration["dropped_zero_correlation"] == 0


def test_exact_cap_counts_only_patterns_that_are_kept():
    """x = (1, −1) in one dimension: w > 0 gives 10, w < 0 gives 01, and w = 0 the all-off pattern,
    which is dropped. Two patterns fit a cap of two."""
    pats, _, info = realisable_patterns(np.array([[1.0, -1.0]]), method="exact", max_patterns=2)
    assert sorted(map(tuple, pats.astype(int))) == [(0, 1), (1, 0)] and info["found"] == 2


def test_cli_passes_every_search_option(tmp_path, monkeypatch):
    """--search, --beam and --shortlist reach predict_reln with the values given (a comment once cut
    them off the call, so the defaults auto, 3 and 8 ran whatever was asked)."""
    import theorykit.cli.predict as cp
    from theorykit.cli import main

    seen = {}

    def fake(task, hidden, training, **kw):
        seen.update(kw, hidden=hidden)
        raise RuntimeError("stop after the call")

    monkeypatch.setattr(cp, "predict_reln", type("Wrapped", (), {"__wrapped__": staticmethod(fake)}))
    spec_path = tmp_path / "xor.toml"
    spec_path.write_text(XOR_TOML)
    assert main(["predict", str(spec_path), "--hidden", "8", "--set", "Delta=1", "--out", str(tmp_path / "o.toml"),
                 "--search", "beam", "--beam", "5", "--shortlist", "2", "--samples", "77", "--seed", "3"]) == 70
    assert (seen["search"], seen["beam"], seen["shortlist"]) == ("beam", 5, 2)
    assert (seen["hidden"], seen["samples"], seen["seed"]) == (8, 77, 3)
