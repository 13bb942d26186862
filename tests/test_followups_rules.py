"""Four follow-ups: family_a0s refuses H < m and a masses count other than m by name; derive's estimate
counts --plot (a line and a legend entry per pathway); realisable_patterns' documented order (which
numbers predict's orbits); predict's tie-break between families of equal area. Every golden number
here is worked by hand in the comments; nothing is timed."""
from __future__ import annotations

import numpy as np
import pytest

from theorykit.analysis.predict_share import family_a0s
from theorykit.errors import SpecError


# ------------------------------------------------------------------------------------------------
# 1. family_a0s
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("H, m, masses", [(1, 3, None), (2, 3, [0.2, 0.3, 0.5]), (2, 3, [0.5, 0.5])])
def test_family_a0s_refuses_fewer_units_than_pathways_by_name(H, m, masses):
    """H < m: some pathway would have no unit. (2, 3, [0.5, 0.5]) passed before: share_mass shared
    H = 2 over the 2 masses given, not over the m = 3 pathways, and returned 2 widths for 3 pathways."""
    with pytest.raises(SpecError) as ei:
        family_a0s(0.01, H, m, masses)
    assert ei.value.field == "H"
    units = "1 hidden unit " if H == 1 else f"{H} hidden units "       # a count of 1 takes the singular
    assert ei.value.problem.startswith(units) and f"use H >= {m}" in ei.value.fix


def test_family_a0s_refuses_masses_of_another_count_than_the_pathways():
    """H = 3 >= m = 3, but 2 masses: it returned widths [2, 1] for a family of 3 pathways."""
    with pytest.raises(SpecError) as ei:
        family_a0s(0.01, 3, 3, [0.5, 0.5])
    assert ei.value.field == "masses"
    assert "2 masses for a family of 3 pathways" in ei.value.problem


def test_family_a0s_at_one_unit_per_pathway():
    """H = m = 3: widths 1, 1, 1 either way; a0 = σ²H_p/2 = 0.01² · 1 / 2 = 5e-05 each."""
    for masses in (None, [0.2, 0.3, 0.5], np.array([0.2, 0.3, 0.5])):
        widths, a0 = family_a0s(0.01, 3, 3, masses)
        assert widths == [1, 1, 1]
        assert a0 == pytest.approx([5e-05] * 3, rel=1e-12)


# ------------------------------------------------------------------------------------------------
# 2. derive --plot in derive's estimate
# ------------------------------------------------------------------------------------------------
def test_the_plot_adds_its_per_pathway_term_to_the_derive_estimate():
    """K = 100 width-1 paths of the exploded graph (tests/test_derive_estimate_graph_rules.py): the
    figure draws 100 lines and legend entries and integrates the race again for its 100·99/2 = 4950
    pairs, so the estimate with a plot exceeds the one without by 100 × PLOT_PATHWAY_SECONDS (0.017 s:
    1.7 s) + (4950 − 1000) × PLOT_PAIR_SECONDS (3e-5 s: 0.1185 s) = 1.8185 s, in one part named --plot."""
    from test_derive_estimate_graph_rules import _exploded
    from theorykit.spec import limits as L
    from theorykit.spec.files import spec_from_dict

    spec = spec_from_dict(_exploded(100))
    plain = L.derivation_estimate(spec, horizon=20.0, symbolic=False, horizon_field="--plot")
    drawn = L.derivation_estimate(spec, horizon=20.0, symbolic=False, horizon_field="--plot", plot=True)
    term = 100 * L.PLOT_PATHWAY_SECONDS + (4950 - L.PAIRS_CALIBRATED) * L.PLOT_PAIR_SECONDS
    assert drawn.seconds - plain.seconds == pytest.approx(term, rel=1e-9)
    assert term == pytest.approx(1.8185)
    assert drawn.parts[:-1] == plain.parts and drawn.parts[-1][0] == "--plot"
    assert drawn.bytes == plain.bytes


def test_a_small_specs_estimate_barely_changes_with_the_plot():
    """A single-pathway spec: the plot adds 1 × 0.017 s (no pairs), under 0.1 s."""
    from theorykit.spec import limits as L
    from theorykit.spec.files import spec_from_dict

    spec = spec_from_dict({"data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, 2]]},
                           "pathways": [{"name": "a", "active": [1, 1]}]})
    plain = L.derivation_estimate(spec, horizon=20.0, symbolic=False)
    drawn = L.derivation_estimate(spec, horizon=20.0, symbolic=False, plot=True)
    assert 0 < drawn.seconds - plain.seconds < 0.1
    # exactly, by the docstring's count: K = 1 has 0 pairs, 1000 fewer than PAIRS_CALIBRATED (none counted), so
    # the term is 1 × PLOT_PATHWAY_SECONDS (0.017 s; the band above passed it counted twice, or per output)
    assert drawn.seconds - plain.seconds == pytest.approx(L.PLOT_PATHWAY_SECONDS, rel=1e-9)
    assert drawn.parts[-1][0] == "--plot" and drawn.parts[:-1] == plain.parts


def test_a_many_pathway_graph_with_plot_is_refused_where_it_was_accepted(tmp_path, capsys, monkeypatch):
    """K = 1600 paths (measured: summary.plot took 75 s at K = 1600 on the 2-core CPU). The time limit sits
    halfway into the plot's term, 1600 × 0.017 s + (1600·1599/2 − 1000) × 3e-5 s = 27.2 + 38.346 = 65.546 s:
    the estimate without the plot fits it (derive
    without --plot is accepted; not run here, it takes a minute), and derive --plot is refused before any
    work, where before it was accepted (the estimate did not count the figure)."""
    from test_derive_estimate_graph_rules import _exploded, _toml
    from theorykit.cli import main
    from theorykit.spec import limits as L
    from theorykit.spec.files import spec_from_dict

    K = 1600
    plain = L.derivation_estimate(spec_from_dict(_exploded(K)), horizon=20.0, symbolic=False, horizon_field="--plot")
    limit = plain.seconds + 0.5 * 65.546
    L.enforce(plain, L.Limits(max_seconds=limit))           # accepted without the plot
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text(_toml(_exploded(K)))
    fig = tmp_path / "f.png"

    def no_work(*a, **k):           # accepted, it would derive for minutes: stop at the first work instead
        raise AssertionError("derive --plot was accepted: the derivation started")

    monkeypatch.setattr("theorykit.cli.derive.Derivation", no_work)
    rc = main(["derive", str(spec_path), "--times", "0,20", "--plot", str(fig), "--time-limit", f"{limit:.3f}"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "derivation needs an estimated " in err and "--force" in err
    assert not fig.exists()


# ------------------------------------------------------------------------------------------------
# 4. realisable_patterns' order, and predict's tie-break between families of equal area
# ------------------------------------------------------------------------------------------------
def test_realisable_patterns_order_is_the_documented_one():
    """x1 = (1, 0), x2 = (0, 1), x3 = (−1, −1); w = (a, b) gives w·x = a, b, −a − b. By hand every
    non-empty pattern but all-on is realisable (all on would need a, b > 0 and a + b < 0): {x1} by
    (1, −0.5), {x2} by (−0.5, 1), {x3} by (−1, −1), {x1, x2} by (1, 1), {x1, x3} by (1, −2), {x2, x3}
    by (−2, 1). The documented order: fewest datapoints on first, then the 0/1 tuple, smallest first."""
    from theorykit.analysis.patterns import realisable_patterns

    X = np.array([[1.0, 0.0, -1.0], [0.0, 1.0, -1.0]])
    pats, counts, info = realisable_patterns(X, method="exact")
    assert info["method"] == "exact" and counts is None
    assert [tuple(int(v) for v in p) for p in pats] == [(0, 0, 1), (0, 1, 0), (1, 0, 0),
                                                        (0, 1, 1), (1, 0, 1), (1, 1, 0)]


def test_the_gates_key_reads_the_gates_not_their_indices():
    from theorykit.analysis.patterns import gates_key

    pats = np.array([[1, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 1]], bool)
    assert gates_key(pats, [0, 2]) == gates_key(pats[::-1], [2, 0]) == ((0, 0, 1, 1), (1, 1, 0, 0))


def _tied_prediction(monkeypatch, reverse: bool):
    """predict on XoR with a margin (Δ = 1.2; its consistent patterns form 2 orbits, the 4 singles and
    the 2 label pairs) with every family raced to the same loss curve, so every family ties on area;
    ``reverse``: the enumeration returns its patterns in the opposite order (the orbits numbered the
    other way round)."""
    import sympy as sp

    import theorykit as tk
    from theorykit.analysis import predict as P
    from theorykit.analysis.predict import predict_reln
    from theorykit.spec.gating import Training

    real = P.realisable_patterns

    def enumerated(X, **kw):
        pats, counts, info = real(X, **kw)
        return (pats[::-1], None if counts is None else counts[::-1], info) if reverse else (pats, counts, info)

    def same_race(task, training, gates_all, families, H, *, steps, done=None, **kw):
        t = np.linspace(0.0, float(steps), 101)
        L = np.exp(-3.0 * t / steps)
        if done is not None:
            done(len(families))
        Yh = np.zeros((task.p, task.P))
        return t, [L.copy() for _ in families], [Yh.copy() for _ in families]

    monkeypatch.setattr(P, "realisable_patterns", enumerated)
    monkeypatch.setattr(P, "_race_families", same_race)
    tr = Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)
    return predict_reln(tk.xor_margin(sp.Float(1.2)), 64, tr, search="exhaustive", progress=False)


def test_predicts_tie_break_does_not_depend_on_the_enumeration_order(monkeypatch):
    """Families {singles}, {pairs}, {singles, pairs} tie on area; of equal orbit count (1), the one of
    smallest gates_key wins: the singles' sorted gates start (0, 0, 0, 1), the pairs' (0, 0, 1, 1), so the
    4 singles, in either enumeration order. Before, the tie went to whichever family was raced first,
    which the orbits' numbering decides: the pairs in the documented order, the singles reversed."""
    singles = [(0, 0, 0, 1), (0, 0, 1, 0), (0, 1, 0, 0), (1, 0, 0, 0)]
    for reverse in (False, True):
        pred = _tied_prediction(monkeypatch, reverse)
        assert sorted(map(tuple, pred.gates.astype(int).tolist())) == singles, reverse
        assert pred.runners_up[0]["gates"] and sorted(map(tuple, pred.runners_up[0]["gates"])) == [(0, 0, 1, 1), (1, 1, 0, 0)]
