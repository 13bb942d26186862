"""Rules from a referee of the contexts suite's Fig. 4c row (and of one xor tolerance).

1. contexts, Fig. 4c: the row graded the Procrustes disparity of the ReLU network's representation with
   the paper's ReLN (common + double pathways) against 0.1 alone. A mutation tester measured, at quick
   size, 0.031 for the paper's ReLN, 0.040 for a wrong one (common + single) and 0.027 for all seven
   pathways: all below 0.1, so the row could not single out the paper's gating. Now the suite measures the
   same disparity for the wrong gatings it already trains (same data, same runs, every seed) and confirms
   only when the paper's ReLN is within 0.1 *and* each wrong gating is farther in every seed by more
   than the seed scatter (the ReLU network's largest seed-to-seed disparity); within 0.1 but not that
   much closer is "partly".
2. xor, "Each ReLN follows its closed-form loss": random starts were graded within 0.05·L(0), so a closed
   form 4.99 % too high passed, while the aligned-start gap to the flow was recorded, not graded. Now the
   closed form must be the η → 0 limit of the same start's discrete recurrence: its gap to the recurrence at
   η/8 at most 2/8 of its gap at η (an O(η) difference shrinks as η does; a wrong closed form does not).

Expected values come from the row's printed rule and numbers set by hand, or from a second method written
here: the Procrustes disparity of full-dimensional configurations as 1 − ‖ÃᵀB̃‖²_* (Ã, B̃ the centred,
unit-norm datapoint coordinates; no MDS), and the mode recurrence and closed form of
tests/test_mutation_validation_rules.py.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from types import SimpleNamespace

from theorykit.analysis import context_runs as cr
from theorykit.suites import load_suite


# ================================================================================================
# contexts: the controls' numbers (context_runs.mds_controls)
# ================================================================================================
def _disparity_by_hand(Ha, Hb):
    """Procrustes disparity of two configurations that keep every dimension: rows = datapoints,
    centred, Frobenius norm 1; the best rotation (and scale) leaves 1 − (sum of singular values of
    ÃᵀB̃)² (scipy.spatial.procrustes' standardisation). Full classical MDS reproduces the centred
    configuration up to a rotation, so this needs no MDS."""
    def std(H):
        A = np.asarray(H, float).T
        A = A - A.mean(axis=0)
        return A / np.linalg.norm(A)

    return 1.0 - np.linalg.svd(std(Ha).T @ std(Hb), compute_uv=False).sum() ** 2


def _tiny_runs():
    """Two seeds of a 3-unit ReLU network on X = I₄ and one-pathway "ReLNs" of three gatings, at step 7.
    ReLU seed 0 has non-negative first-layer weights (its representation is W1 itself); seed 1 has
    negative entries (clipped). "double" copies the ReLU weights (seed 0 equal), "single" gates the
    pathway off on datapoints 2 and 3, "all seven" has its own weights."""
    W1 = np.array([[[1.0, 0.0, 2.0, 0.5], [0.0, 3.0, 1.0, 0.0], [1.0, 1.0, 0.0, 4.0]],
                   [[2.0, -1.0, 0.5, 1.0], [0.5, 2.0, -2.0, 1.0], [1.0, 0.0, 3.0, -1.0]]])
    W2 = np.ones((2, 1, 3))
    Wo = np.array([[[0.5, 1.0, 0.0, 2.0], [1.0, 0.0, 1.0, 1.0], [0.0, 2.0, 1.0, 0.0]]] * 2)
    Wo[1, 0, 0] = 3.0
    X = np.eye(4)
    rsn = {7: [W1, W2]}
    specs = {"double": SimpleNamespace(pathways=[SimpleNamespace(inputs=(0, 1, 2, 3), active=(1, 1, 1, 1))]),
             "single": SimpleNamespace(pathways=[SimpleNamespace(inputs=(0, 1, 2, 3), active=(1, 1, 0, 0))]),
             "all seven": SimpleNamespace(pathways=[SimpleNamespace(inputs=(0, 1, 2, 3), active=(1, 1, 1, 1))])}
    gsn = {"double": {7: [[np.abs(W1), W2]]}, "single": {7: [[np.abs(W1), W2]]}, "all seven": {7: [[Wo, W2]]}}
    reps = {"relu": [np.maximum(W1[s], 0) for s in range(2)],
            "double": [np.abs(W1[s]) for s in range(2)],
            "single": [np.abs(W1[s]) * np.array([1, 1, 0, 0.0]) for s in range(2)],
            "all seven": [Wo[s] for s in range(2)]}
    return rsn, gsn, specs, X, reps


def test_mds_controls_are_the_disparities_of_each_seed_with_each_gating():
    """Per seed s, ReLU seed s against each gating's seed s, and seed 0 against seed 1 of each network,
    equal to the disparity computed without MDS (second method above); seed 0's ReLU and "double" have
    equal representations (disparity 0)."""
    rsn, gsn, specs, X, reps = _tiny_runs()
    out = cr.mds_controls(rsn, gsn, specs, X, 7)
    assert out["step"] == 7 and out["seeds"] == 2
    for nm in ("double", "single", "all seven"):
        want = [_disparity_by_hand(reps["relu"][s], reps[nm][s]) for s in range(2)]
        # 1e-8: "single" puts datapoints 2 and 3 on one point, so one MDS eigenvalue is 0 up to rounding;
        # its square root (~1e-8) enters the nuclear norm linearly (measured 2.6e-9)
        assert out["relu_vs_reln"][nm] == pytest.approx(want, abs=1e-8)
    assert out["relu_vs_reln"]["double"][0] == pytest.approx(0.0, abs=1e-12)
    assert out["relu_vs_reln"]["single"][0] > 0.01                  # gating changes the geometry
    for nm in ("relu", "double", "single", "all seven"):
        assert out["seed0_vs_other_seeds"][nm] == pytest.approx([_disparity_by_hand(*reps[nm])], abs=1e-10)


def test_mds_controls_match_the_figures_number_and_skip_unrecorded_steps():
    """Seed 0 against "double" is the number Fig. 4c prints (mds_at, all dims); a step one family did not
    record leaves nothing to compare: {}."""
    rsn, gsn, specs, X, _ = _tiny_runs()
    W1 = rsn[7][0].copy()
    W1[0] = np.maximum(W1[1], 0) + 0.5       # seed 0: a second representation, so the disparity is not 0
    rsn = {7: [W1, rsn[7][1]]}
    out = cr.mds_controls(rsn, gsn, specs, X, 7)
    fig = cr.mds_at(rsn, gsn["double"], specs["double"], X, [7])[7]["procrustes_disparity_all_dims"]
    assert out["relu_vs_reln"]["double"][0] == pytest.approx(fig, abs=1e-12) and fig > 1e-3
    gsn["single"] = {5: gsn["single"][7]}
    assert cr.mds_controls(rsn, gsn, specs, X, 7) == {}


# ================================================================================================
# contexts: the Fig. 4c verdict with its controls (contexts._assemble on hand-made numbers)
# ================================================================================================
@pytest.fixture(scope="module")
def contexts():
    return load_suite("contexts")


def _fig4c(contexts, double, single, all_seven, relu_seeds=(0.0033,), mode="quick"):
    from test_suite_verdict_rules import _ctx, _row

    f4c = {"8000": {"procrustes_disparity": 0.7, "procrustes_disparity_all_dims": double[0],
                    "distance_correlation": 0.9}}
    ctrl = {"step": 8000, "seeds": len(double),
            "relu_vs_reln": {"double": list(double), "single": list(single), "all seven": list(all_seven)},
            "seed0_vs_other_seeds": {"relu": list(relu_seeds)}}
    res = _ctx(contexts, mode, f4c=f4c, mds_controls=ctrl)
    return _row(res["claims"], "Fig. 4c"), res


def test_fig4c_a_wrong_gating_as_close_as_the_papers_is_partly_not_confirmed(contexts):
    """Was a defect: the mutation tester's quick figures (the paper's ReLN 0.031, 0.031; common + single
    0.040, 0.041; all seven 0.027, 0.029; ReLU seed-to-seed 0.0033) were "confirmed" (0.031 ≤ 0.1). All
    seven is *closer* (0.027 < 0.031), so the disparity cannot single out the paper's gating: partly."""
    row, _ = _fig4c(contexts, [0.031, 0.031], [0.040, 0.041], [0.027, 0.029])
    assert row["verdict"] == "partly"
    assert row["agreement"].startswith("0.031 (confirmed if ≤ 0.1 and every control gating")
    assert "common + single 0.0405, all seven pathways 0.028" in row["ours"]
    # common + single is farther by 0.009 and 0.010 in the two seeds, beyond 0.0033; all seven is closer
    assert "in every seed: common + single yes, all seven no" in row["ours"]


def test_fig4c_controls_farther_by_more_than_the_seed_scatter_confirm(contexts):
    """Both wrong gatings farther in every seed by more than the margin (0.05 vs 0.09/0.10 and 0.12/0.2,
    margin 0.01): confirmed; the result carries the controls' figures (results JSON: section4.fig4c_controls,
    summary)."""
    row, res = _fig4c(contexts, [0.05, 0.05], [0.09, 0.10], [0.12, 0.2], relu_seeds=(0.01,))
    assert row["verdict"] == "confirmed"
    assert res["section4"]["fig4c_controls"]["relu_vs_reln"]["single"] == [0.09, 0.10]
    s = res["summary"]
    assert s["Fig. 4c disparity at the end, mean over seeds: paper's ReLN (common + double)"] == pytest.approx(0.05)
    assert s["Fig. 4c disparity at the end, mean over seeds: control, common + single"] == pytest.approx(0.095)
    assert s["Fig. 4c disparity at the end, mean over seeds: control, all seven"] == pytest.approx(0.16)
    assert s["Fig. 4c margin (seed scatter)"] == pytest.approx(0.01)


@pytest.mark.parametrize("single,all_seven,relu_seeds,why", [
    ([0.055, 0.055], [0.2, 0.2], (0.01,), "common + single only 0.005 farther, within the 0.01 margin"),
    ([0.2, 0.2], [0.2, 0.04], (0.01,), "all seven closer in seed 1 (0.04 < 0.05)"),
    ([0.2, 0.2], [0.2, 0.2], (), "one seed: no seed-to-seed margin, nothing says the gap is beyond scatter"),
])
def test_fig4c_not_clearly_closer_is_partly(contexts, single, all_seven, relu_seeds, why):
    row, _ = _fig4c(contexts, [0.05, 0.05], single, all_seven, relu_seeds=relu_seeds)
    assert row["verdict"] == "partly", why


@pytest.mark.parametrize("all_seven,verdict", [([0.0405, 0.0605], "partly"), ([0.045, 0.065], "confirmed")])
def test_fig4c_margin_is_the_relu_seed_to_seed_disparity_in_a_paired_comparison(contexts, all_seven, verdict):
    """The paper's ReLN at 0.04 and 0.06 (spread 0.02, which moves every gating together, as at the paper's
    sizes) and the ReLU seed-to-seed disparities 0.0005, 0.001: the margin is 0.001, the largest. common +
    single (0.075, 0.09) is 0.035 and 0.03 farther; all seven at (0.0405, 0.0605) only 0.0005 in each seed,
    within it: partly; at (0.045, 0.065), 0.005 in each seed: confirmed."""
    row, res = _fig4c(contexts, [0.04, 0.06], [0.075, 0.09], all_seven, relu_seeds=(0.0005, 0.001))
    assert res["summary"]["Fig. 4c margin (seed scatter)"] == pytest.approx(0.001)
    assert row["verdict"] == verdict


def test_fig4c_one_seed_or_a_nan_disparity_leaves_a_writable_result(contexts):
    """One seed: no seed scatter, so no margin (null in the JSON, not NaN, which write_json refuses) and
    at most partly; a disparity that could not be computed (NaN: a representation with no spread) is
    written as null too, and the mean it enters is NaN: "n/a"."""
    from theorykit.io import jsonable

    row, res = _fig4c(contexts, [0.05], [0.2], [0.2], relu_seeds=())
    assert row["verdict"] == "partly" and res["summary"]["Fig. 4c margin (seed scatter)"] is None
    jsonable(res["summary"])
    row, res = _fig4c(contexts, [0.05, math.nan], [0.2, 0.2], [0.2, 0.2], relu_seeds=(0.01,))
    assert row["verdict"] == "n/a"
    assert res["section4"]["fig4c_controls"]["relu_vs_reln"]["double"] == [0.05, None]
    jsonable(res["summary"]), jsonable(res["section4"]["fig4c_controls"])


def test_fig4c_without_controls_is_not_confirmed(contexts):
    """Was a defect (the same one): with no control gatings run the row confirmed on 0.05 ≤ 0.1; a number
    that a wrong gating could equally reach is at most partly."""
    from test_suite_verdict_rules import _ctx, _row

    f4c = {"8000": {"procrustes_disparity": 0.7, "procrustes_disparity_all_dims": 0.05, "distance_correlation": 0.9}}
    row = _row(_ctx(contexts, "full", f4c=f4c)["claims"], "Fig. 4c")
    assert row["verdict"] == "partly" and "no control gatings were run" in row["ours"]


def test_fig4c_beyond_the_tolerance_is_not_rescued_by_the_controls(contexts):
    """0.31 > 0.3 at the paper's sizes: not borne out, however far the controls are."""
    row, _ = _fig4c(contexts, [0.31, 0.31], [0.9, 0.9], [0.9, 0.9], mode="full")
    assert row["verdict"] == "not borne out"


# ================================================================================================
# xor: the closed form graded as the η → 0 limit of the discrete recurrence
# ================================================================================================
@pytest.fixture(scope="module")
def xor():
    return load_suite("xor")


def _closed_form_by_hand(name, x, a0, tau, times):
    """docs/theory.md#mode-ode: a(t) = (s/d) / (1 + (s/(d a0) − 1) e^{−2st/τ}), loss ½ − n (s a − d a²/2);
    ½ throughout where s = d = 0 (the linear ReLN at Δ = 0: nothing to learn)."""
    from test_mutation_validation_rules import _s_d

    s, d, n = _s_d(name, x)
    if s == 0:
        return np.full(len(times), 0.5)
    a = (s / d) / (1 + (s / (d * a0) - 1) * np.exp(-2 * s * np.asarray(times) / tau))
    return 0.5 - n * (s * a - d * a * a / 2)


def test_xor_closed_form_gap_to_the_recurrence_shrinks_as_eta(xor):
    """Unmutated (hand-built grid, τ = 20, 800 steps): the suite's closed-form-vs-recurrence gaps equal
    those of the recurrence and closed form written out here, and the gap at η/8 is about 1/8 of that at
    η (first order: each step's log-growth is 2 log(1 + x) instead of 2x, x = (s − d a)/τ, an O(η)
    relative error), within the row's 2/8; the row is confirmed."""
    from test_mutation_validation_rules import _discrete_by_hand, _xor_claims
    from test_xor_depth_suite_rules import hand_built_grid

    g = hand_built_grid(xor, 800)
    rows, res = _xor_claims(xor)
    ag = res["reln_agreement"]
    for n in ("linear", "xor"):
        cf = np.array([_closed_form_by_hand(n, x, g.a0[n], g.tau, g.times) for x in g.deltas])
        gaps = []
        for m in (1, 8):
            disc = _discrete_by_hand(n, g.deltas, g.a0[n], g.tau * m, g.times * m)
            gaps.append(np.max(np.abs(disc - cf) / disc[:, :1]))
        assert ag["closed_form_vs_discrete"][n] == pytest.approx(gaps[0], rel=1e-6)
        assert ag["closed_form_vs_discrete_refined"][n] == pytest.approx(gaps[1], rel=1e-6)
        assert 0.1 < gaps[1] / gaps[0] < 0.15
    assert rows["reln-closed-form"]["verdict"] == "confirmed"


@pytest.mark.parametrize("factor", [1.0499, 1.05, 0.96])
def test_xor_closed_form_a_few_percent_off_fails(xor, monkeypatch, factor):
    """Was a defect: the closed form × 1.0499 (or × 0.96) is 0.0499·L(0) (0.04) from the random-start runs
    (here the unscaled closed form), inside "within 0.05", and the row was confirmed (× 1.05 sat on the old
    threshold, 0.05, and was caught). Its gap to the recurrence now stays ≈ |1 − factor| at η/8 instead of
    shrinking to about 1/8 of the gap at η: not borne out."""
    from test_mutation_validation_rules import _xor_claims

    base = xor.ClosedFormGrid

    class Scaled(base):
        def __call__(self, *a, **k):
            return factor * super().__call__(*a, **k)

    monkeypatch.setattr(xor, "ClosedFormGrid", Scaled)
    rows, res = _xor_claims(xor)
    ag = res["reln_agreement"]
    if factor == 1.0499:
        assert max(ag["random_init_a0_rule"].values()) == pytest.approx(0.0499, rel=1e-6)   # the old rule passed
    assert rows["reln-closed-form"]["verdict"] == "not borne out"
    for n in ("linear", "xor"):
        assert ag["closed_form_vs_discrete_refined"][n] >= abs(1 - factor) * (1 - 1e-9)


def test_xor_closed_form_row_without_the_flow_check_is_not_confirmed():
    """The flow check not measured (an agreement without its keys) is not a pass: not borne out."""
    from test_xor_depth_suite_rules import AGREE, _xor_rows

    ag = {k: v for k, v in AGREE.items() if not k.startswith("closed_form_vs_discrete")}
    assert _xor_rows(agreement=ag)["reln-closed-form"]["verdict"] == "not borne out"
    ag = {**AGREE, "closed_form_vs_discrete_refined": {"linear": 0.0025, "xor": math.nan}}
    assert _xor_rows(agreement=ag)["reln-closed-form"]["verdict"] == "not borne out"
    ag = {**AGREE, "closed_form_vs_discrete_refined": {"linear": 0.0051, "xor": 0.00125}}   # 0.0051 > 2/8 · 0.02
    assert _xor_rows(agreement=ag)["reln-closed-form"]["verdict"] == "not borne out"
