"""predict's time estimate in parts (theorykit.analysis.predict_estimate): the engine calls and the distinct
shapes they compile, the bound on a beam search's rounds, and a refusal that says what it assumed.
Never timed: every number here is counted by hand in a comment."""
import re

import pytest
import sympy as sp

import theorykit as tk
import theorykit.analysis.predict_estimate as pe
from theorykit.analysis.predict import predict_reln
from theorykit.spec.gating import Training

TR = Training(lr=0.05, loss="mean", init_std=0.01, steps=100)


def test_batch_plan_and_its_distinct_shapes_are_counted_by_hand():
    # chunk of 3 pathways: [0,1] then [2] (union {0,1,2}: 3, fits); [0,2,3] would make {0,1,2,3}: a new batch;
    # [4] would make {0,2,3,4}: a new batch; [5] joins it ({4,5}). Shapes (batch, union): (2,3), (1,3), (2,2)
    fams = [[0, 1], [2], [0, 2, 3], [4], [5]]
    groups = pe.batch_plan(fams, chunk_pathways=3)
    assert groups == [[0, 1], [2], [3, 4]]
    assert pe.engine_shapes(fams, groups) == [(2, 3), (1, 3), (2, 2)]
    assert pe.new_shapes(pe.engine_shapes(fams, groups), compiled=()) == 3
    # six disjoint single-pattern families, chunk 2: three calls of one shape (2 families, 2 pathways),
    # so one compilation, and none once that shape is compiled
    single = [[i] for i in range(6)]
    shapes = pe.engine_shapes(single, pe.batch_plan(single, chunk_pathways=2), key=(100, 10.0))
    assert shapes == [(2, 2, 100, 10.0)] * 3
    assert pe.new_shapes(shapes, compiled=()) == 1 and pe.new_shapes(shapes, compiled=[(2, 2, 100, 10.0)]) == 0


def test_the_estimate_prices_compilations_and_calls_apart():
    # P = 4, d = 3, rank 1, 2 pathways, 3 families, 100 steps, tau 20, race_dt 10: 100 / (20/10) = 50 RK4
    # steps; R = 2, D = 6; FLOP = 3 · 50 · 4 · 6 · 2 · 6 · 4 = 172 800; the 50 steps themselves in 3 calls of 3 families
    steps = 50 * (3 * pe.RK4_STEP_S + 3 * pe.RK4_FAMILY_STEP_S)
    got = pe.estimate_seconds(4, 3, 1, 2, 3, 100, 20.0, 10.0, 1, 3)
    assert got == pytest.approx(1 * pe.COMPILE_S + 3 * pe.CALL_S + steps + 172_800 / pe.FLOPS, rel=1e-12)
    # a call whose shape is compiled costs no compilation
    assert pe.estimate_seconds(4, 3, 1, 2, 3, 100, 20.0, 10.0, 0, 3) == pytest.approx(3 * pe.CALL_S + steps + 172_800 / pe.FLOPS)


def test_beam_rounds_are_bounded_by_orbits_and_hidden_units():
    # orbit sizes 1, 2, 2, 4, 8: the three smallest need 1 + 2 + 2 = 5 units <= 6, a fourth 9 > 6: 3 rounds
    assert pe.beam_rounds_bound([8, 2, 4, 1, 2], 6) == 3
    assert pe.beam_rounds_bound([8, 2, 4, 1, 2], 100) == 5      # all five orbits fit: one round each
    assert pe.beam_rounds_bound([8], 7) == 0                     # no family fits
    # n = 5 orbits, beam 3, shortlist 2: round 1 expands the empty family by 2; rounds 2 and 3 expand 3
    # frontier families by 2 each (6 <= C(5,2) = C(5,3) = 10); round 4 could expand 3 · 2 = 6, but only
    # C(5,4) = 5 unions of four orbits exist
    assert pe.beam_round_sizes(5, 3, 2, 4) == [2, 6, 6, 5]


def test_beam_estimate_assumes_rounds_and_bounds_them():
    kw = dict(P=4, d=3, rank=1, steps=100, tau=20.0, race_dt=10.0)
    # ten orbits of one pattern, 100 units: up to 10 rounds, 4 assumed; the high end covers all ten
    ten = pe.beam_estimate([1] * 10, 100, 3, 8, **kw)
    assert (ten["rounds_bound"], ten["rounds_assumed"]) == (10, 4)
    assert ten["families"] == sum(pe.beam_round_sizes(10, 3, 8, 10)[:4]) < ten["families_high"]
    assert ten["seconds"] < ten["seconds_high"]
    # three orbits of one pattern, 2 units: at most 2 rounds, so the assumption is the bound; round 1
    # races 3 families, round 2 at most min(3, C(3,1)) · min(8, 2) = 6, but C(3,2) = 3 unions exist: 6 in all
    three = pe.beam_estimate([1, 1, 1], 2, 3, 8, **kw)
    assert (three["rounds_bound"], three["rounds_assumed"], three["families_high"]) == (2, 2, 6)
    assert three["seconds"] == three["seconds_high"]


def test_a_repeated_search_compiles_nothing_new(monkeypatch):
    # XoR at Δ = 1/2, 8 units: its candidate orbits are the four single-point patterns and the two pairs
    # (0011, 1100), so the exhaustive search races 3 families of 4, 2 and 6 pathways; their union is the
    # 6 patterns (<= 48), so one engine call of one shape: 1 compilation in a fresh process, 0 the second time
    monkeypatch.setattr(pe, "_COMPILED", set())
    first = predict_reln(tk.xor_margin(sp.Rational(1, 2)), 8, TR, progress=False)
    est = first.search["estimate"]
    assert (est["families"], est["calls"], est["compiles"]) == (3, 1, 1)
    assert "3 families in 1 engine call, 1 new shape to compile" == est["assumes"]
    again = predict_reln(tk.xor_margin(sp.Rational(1, 2)), 8, TR, progress=False)
    assert (again.search["estimate"]["calls"], again.search["estimate"]["compiles"]) == (1, 0)


def test_a_beam_refusal_states_its_assumed_rounds_and_the_bound(monkeypatch):
    # the same XoR by beam search, 5 units: orbit sizes 2 and 4, and 2 + 4 = 6 > 5, so at most 1 round
    # (assumed: min(4, 1) = 1), of min(1 · 2, C(2,1)) = 2 families. A compilation priced at 1e4 s passes the
    # 1000 s bound; the error says what it assumed and which options bound the search
    monkeypatch.setattr(pe, "COMPILE_S", 1e4)
    with pytest.raises(tk.SpecError) as e:
        predict_reln(tk.xor_margin(sp.Rational(1, 2)), 5, TR, search="beam", time_limit=1000, progress=False)
    msg = str(e.value)
    assert e.value.field == "time_limit"
    assert "assuming 1 round of the search, up to 2 families and one new shape to compile per round" in msg
    assert "after at most 1 round (up to 2 families" in msg
    assert re.search(r"the estimated run time is \d+ s, over the 1000 s bound", msg)
    assert "--shortlist" in e.value.fix and "--beam" in e.value.fix and "--time-limit" in e.value.fix
