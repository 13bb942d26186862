"""Race by exhaustion: the task's symmetry is found (S_3 at k = 3), orbits reproduce the direct race."""
import numpy as np
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
