"""Race by exhaustion: the task's symmetry is found (S_3 at k = 3), orbits reproduce the direct race."""
import numpy as np

import theorykit as tk
import pytest

from theorykit.analysis.exhaust import context_symmetries, exhaust_spec, family_orbits, pathway_action, race_exhaust


def test_symmetry_found_and_orbits():
    spec, subsets, masks, labels = exhaust_spec(3)
    syms = context_symmetries(spec.task, 8, 3)
    assert sorted(s["pi"] for s in syms) == sorted([(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)])
    perms = [pathway_action(spec, s) for s in syms]
    assert all(p is not None for p in perms)
    rep, orbit_of = family_orbits(masks, perms)
    # Burnside by hand: 2 (common) x orbits of subsets of the 6 context pathways under S_3, minus empty
    assert len(masks) == 127 and len(rep) == 39
    # each orbit's representative is its family of smallest bit code (pathway j is bit j), by brute force
    codes = masks.astype(np.int64) @ (1 << np.arange(masks.shape[1], dtype=np.int64))
    for o, r in enumerate(rep):
        assert orbit_of[r] == o and codes[r] == codes[orbit_of == o].min()
    # the Section 4 task (three different structures) has no context symmetry but the identity
    from theorykit import contexts

    assert [s["pi"] for s in context_symmetries(contexts(8, 3, blocks=["hierarchy", "ring", "cross"]), 8, 3)] == [(0, 1, 2)]


@pytest.fixture(scope="module")
def both():
    kw = dict(steps=1500, race_dt=2, progress=False, batch=128)
    return race_exhaust(3, **kw), race_exhaust(3, use_symmetry=False, **kw)


def test_orbits_equal_direct(both):
    orb, direct = both
    assert orb.summary["symmetry"]["orbits_integrated"] == 39 and direct.summary["symmetry"]["orbits_integrated"] == 127
    for a, b in zip(orb.metrics, direct.metrics):
        assert a["family"] == b["family"]
        assert abs(a["area"] - b["area"]) < 1e-10
        for f in ("t_0.5", "t_0.1"):
            assert (a[f] is None) == (b[f] is None) and (a[f] is None or abs(a[f] - b[f]) < 1e-8)


def test_winner_has_common_and_doubles(both):
    s = both[0].summary
    assert {"common", "12", "13", "23"} <= set(s["winner"].split("+"))
    assert s["winner_contains_common_and_all_(k-1)-context"]
    assert s["named"]["common + doubles"]["rank_area"] < s["named"]["common + singles"]["rank_area"]
    assert s["named"]["common + doubles"]["rank_area"] < s["named"]["common only"]["rank_area"]


@pytest.fixture(scope="module")
def horizon8000():
    """Eleven families (singles and doubles alone, common, common with some of the rest, all) over
    the 8000 steps of Section 5, where their areas spread and only some reach 1 % of L(0)."""
    return race_exhaust(3, steps=8000, race_dt=10, progress=False, families=[0, 1, 2, 3, 63, 64, 70, 94, 120, 122, 126])


def test_ranking_rules_by_brute_force(both, horizon8000):
    """The summary's selections, recomputed from the metrics by the rules docs/race_k4.md states:
    "within 1 %" is every family whose area is at most 1.01 × the winner's, in area order; rank_area
    orders by area (then index). Checked first: some family lies between 1 % and 10 % behind."""
    for res in (both[0], horizon8000):
        s, rows = res.summary, res.metrics
        amin = min(r["area"] for r in rows)
        by_area = sorted(rows, key=lambda r: (r["area"], r["index"]))
        assert s["winner"] == by_area[0]["family"]
        assert s["within_1pct_of_winner"] == [r["family"] for r in by_area if r["area"] <= 1.01 * amin]
        assert [r["rank_area"] for r in by_area] == list(range(1, len(rows) + 1))
    assert any(1.01 * amin < r["area"] <= 1.1 * amin for r in horizon8000.metrics)


def test_rank_by_time_to_one_percent_puts_never_last(horizon8000):
    """rank_t_0.01 orders the families that reach 1 % of L(0) by that time, then those that never do
    (None), in index order. Checked first: some of these families reach 1 % and some do not."""
    rows = horizon8000.metrics
    reached = sorted((r for r in rows if r["t_0.01"] is not None), key=lambda r: (r["t_0.01"], r["index"]))
    never = sorted((r for r in rows if r["t_0.01"] is None), key=lambda r: r["index"])
    assert reached and never
    assert [r["rank_t_0.01"] for r in reached + never] == list(range(1, len(rows) + 1))


def test_pathway_action_carries_input_rows_forward():
    """Nine pathways on contexts(8, 3): gated on context c, reading the items and the context row c′.
    A symmetry carries input row r at datapoint μ to row rx[r] at σ(μ), so the image of (c, c′) reads
    rx(c′); a pathway and its image race identically (the data are permuted, nothing else). For the
    3-cycles (not their own inverse) the old action used rx⁻¹ and paired a pathway with a different one,
    whose race differs."""
    from theorykit.spec.gating import Pathway
    from theorykit.spec.task import contexts
    from theorykit.theory.race import RaceSystem

    n, k = 8, 3
    task = contexts(n, k)
    P = n * k
    paths = [Pathway(f"g{c}_in{c2}", tuple(int(mu // n == c) for mu in range(P)), tuple(range(n)) + (n + c2,), "all")
             for c in range(k) for c2 in range(k)]
    spec = tk.GDLNSpec(task, tuple(paths), tk.Training(lr=0.001, loss="sum", steps=2000))
    system = RaceSystem.from_spec(spec)
    cycles = 0
    for s in context_symmetries(task, n, k):
        pa = pathway_action(spec, s)
        assert pa is not None
        cycles += len(set(s["pi"])) == 3 and s["pi"] != tuple(np.argsort(s["pi"]))
        m = np.zeros((2, len(paths)))
        m[0, 1], m[1, pa[1]] = 1, 1                  # g0_in1 and its image
        L = system.solve([500.0, 2000.0], a0=1e-6, masks=m, modes=False).loss
        np.testing.assert_allclose(L[0], L[1], rtol=1e-9)
    assert cycles == 2
