"""Tests written by the second mutation audit: the code that turns runs into the numbers and verdicts
users read and cite (compare's gaps, the contexts suite's a0 rules, rerun's tolerance, sweep's resume,
the depth suite's first-layer share). Each one kills a small, plausible wrong change that the rest of the suite let through (the
mutation is named in the test's docstring). Golden numbers come from a hand derivation written here
or from numpy written in the test, never from the code under test."""
from types import SimpleNamespace

import numpy as np
import pytest


# ------------------------------------------------------------------------------------------------
# compare: the gaps are shares of the run's first loss
# ------------------------------------------------------------------------------------------------
def test_compare_gaps_are_over_the_runs_first_loss_not_its_largest():
    """Comparison.agreement: max_t |L_a − L_b| / L_run(0), the run's loss at its first checkpoint
    (module docstring). A run whose loss rises before it falls (a large learning rate, a late
    start) tells L(0) from the largest loss; every run the suite compared started at its largest, so
    ``L0 = max(run_loss)`` survived. By hand, run 4, 5, 1; GDLN 4, 3, 1; race 4, 4.5, 1.5:
    GDLN vs run max(0, 2, 0)/4 = .5; race vs run max(0, .5, .5)/4 = .125; race vs GDLN
    max(0, 1.5, .5)/4 = .375 (over the largest loss 5: .4, .1, .3)."""
    from theorykit.analysis.compare import Comparison

    c = Comparison(np.array([10, 20, 30]), np.array([0, 10, 20]), np.array([4.0, 5.0, 1.0]), np.array([4.0, 3.0, 1.0]),
                   np.array([4.0, 4.5, 1.5]), None, 1e-3, 0.1, "mean")
    assert c.L0 == 4.0
    ag = c.agreement()
    assert ag["gdln_vs_run"] == pytest.approx(0.5, rel=1e-12)
    assert ag["race_vs_run"] == pytest.approx(0.125, rel=1e-12)
    assert ag["race_vs_gdln"] == pytest.approx(0.375, rel=1e-12)


# ------------------------------------------------------------------------------------------------
# the contexts suite: the a0 rules of the ReLU network (Section 4) and of the GDLN race (Section 5)
# ------------------------------------------------------------------------------------------------
class _Stop(Exception):
    pass


class _Quiet:
    """A progress bar that shows nothing."""

    def update(self, *a, **k):
        pass


def _ones_race():
    """A race whose every loss curve is 1 (only the a0 handed to the race is checked)."""
    return SimpleNamespace(loss_at=lambda t, i=None: np.ones(len(t)))


def test_contexts_section4_relu_rule_a0_is_sigma2_H_over_2_of_the_relu_width(monkeypatch):
    """section4 races the rule a0 of the ReLU network against its mean loss (``relu_vs_race_rule_a0``).
    Its std is 0.005/√(700 H) (the paper's 0.005/700 at H = 700, σ√H kept at other widths), so by the
    a0 rule (docs/theory.md#a0-rule) a0 = ¼(σ²H + σ²H) = σ²H/2 = 0.005²/1400 ≈ 1.786e-8 at every width.
    ``a0_rule(std_relu, 700)`` (the paper's width, not the network's) survived every test; at H = 8 it
    would give 0.005²/16. Networks, races, the staged theory and the a0 fit are stubbed: only the
    number handed to the race of the rule a0 is checked."""
    import theorykit.analysis.context_runs as cr

    steps, seen = 4, {}
    monkeypatch.setattr(cr, "_relu_run", lambda X, Y, **kw: (np.ones((kw["seeds"], steps + 1)), None))
    monkeypatch.setattr(cr, "_gdln_run", lambda spec, **kw: (np.ones((kw["seeds"], steps + 1)), None))
    monkeypatch.setattr(cr, "staged_theory", lambda *a, **k: {"loss": np.ones(steps + 1)})
    monkeypatch.setattr(cr, "best_grid_row", lambda f, A, ref, L0: (A[0], 0.0, np.ones(steps + 1)))

    def race(spec, cfg, a0, **kw):
        if "masks" in kw:                       # the ReLU network's rule-a0 race
            seen["a0"] = np.asarray(a0, float)
            raise _Stop
        return _ones_race()

    monkeypatch.setattr(cr, "suite_race", race)
    cfg = {"seeds": 1, "sec4_blocks": ["hierarchy", "ring", "cross"], "relu_hidden4": 8, "steps": steps,
           "snap_every": steps, "eta": 0.01, "gdln_hidden": 50, "staged_families": [], "fit_grid": 3}
    with pytest.raises(_Stop):
        cr.section4(cfg, _Quiet())
    assert seen["a0"].shape == (1, 4)
    np.testing.assert_allclose(seen["a0"], 0.005 ** 2 / 1400, rtol=1e-12)


def test_contexts_section5_race_a0_is_the_rule_of_the_gdln_std_and_width(monkeypatch):
    """section5 races its GDLN (std gstd = 10·0.0005/(100(k+1)), times √(w_ref/gh) to keep σ√H) from
    a0 = σ²H/2 of that std and the GDLN's width gh (docs/theory.md#a0-rule). ``a0_rule(gstd, Hh)``
    (the ReLU network's width) survived every test. By hand, k = 2, gh = 25, w_ref = 50:
    gstd = (0.005/300)·√2, a0 = gstd²·25/2 = (0.005/300)²·25 ≈ 6.94e-9 (the paper's std at width 50);
    with the ReLU width Hh = 8 it would be 8/25 of that. The networks and the closed form are stubbed."""
    import theorykit.analysis.context_runs as cr

    steps, seen = 4, {}
    monkeypatch.setattr(cr, "_relu_run", lambda X, Y, **kw: (np.ones((kw["seeds"], steps + 1)), {steps: None}))
    monkeypatch.setattr(cr, "_gdln_run", lambda spec, **kw: (np.ones((kw["seeds"], steps + 1)), None))
    monkeypatch.setattr(cr, "closed_form_loss", lambda *a, **k: np.ones(steps + 1))

    def race(spec, cfg, a0, **kw):
        seen["a0"] = float(a0)
        raise _Stop

    monkeypatch.setattr(cr, "suite_race", race)
    cfg = {"seeds": 1, "sec5": {2: {"gamma": 1.0, "hidden": 8}}, "sec5_hidden": 8, "sec5_sigma_width": None,
           "steps": steps, "eta": 0.01, "gdln_hidden": 25, "gdln_sigma_width": 50, "sec5_staged": False}
    with pytest.raises(_Stop):
        cr.section5(cfg, None, _Quiet())
    assert seen["a0"] == pytest.approx((0.005 / 300) ** 2 * 25, rel=1e-12)


# ------------------------------------------------------------------------------------------------
# rerun: "within --rtol of the larger", whichever of the two is larger
# ------------------------------------------------------------------------------------------------
def test_rerun_relative_difference_is_over_the_larger_even_when_the_rerun_is_larger():
    """rerun's numbers agree within --rtol of the larger of the two. The suite checked it only with
    the recorded number the larger (4 recorded, 3 rerun), so ``|old − new|/|old|`` survived. By hand:
    recorded 3, rerun 4 differ by 1, a quarter of the larger (exactly, in binary): they agree at
    --rtol 0.25 (over the recorded 3 it would be 1/3: a difference)."""
    from theorykit.cli.rerun import compare

    found = compare({"x": 3.0}, {"x": 4.0}, 0.25)
    assert found.agree and found.worst == 0.25
    assert compare({"x": -3.0}, {"x": -4.0}, 0.25).worst == 0.25
    assert compare({"x": 3.0}, {"x": 4.0}, 0.2499).shown == [("x", 3.0, 4.0, 0.25)]


# ------------------------------------------------------------------------------------------------
# sweep: which chunk files a resume keeps
# ------------------------------------------------------------------------------------------------
def test_sweep_resume_keeps_a_keyless_chunk_only_where_told(tmp_path):
    """load_chunks: a chunk file without a ``key`` entry (written before chunks carried one) is kept only
    with ``keyless=True`` (the folder's manifest says it is this sweep's); without it, it is left out
    to be run again. A file with this sweep's key is kept either way; another sweep's key is refused,
    naming --out. Reading the rule backwards (keeping keyless files only when not told) survived."""
    from theorykit.analysis.sweep import load_chunks
    from theorykit.errors import SpecError

    (tmp_path / "chunks").mkdir()
    np.savez(tmp_path / "chunks" / "chunk_00000.npz", members=np.array([0, 1]), loss=np.zeros((2, 3)))
    np.savez(tmp_path / "chunks" / "chunk_00001.npz", members=np.array([2]), loss=np.ones((1, 3)), key=np.asarray("abc"))
    assert sorted(load_chunks(tmp_path, 2, 2, 3, key="abc", keyless=True)) == [0, 1]
    assert sorted(load_chunks(tmp_path, 2, 2, 3, key="abc", keyless=False)) == [1]
    with pytest.raises(SpecError) as e:
        load_chunks(tmp_path, 2, 2, 3, key="xyz", keyless=True)
    assert e.value.field == "--out"


# ------------------------------------------------------------------------------------------------
# the depth suite: the first layer's "on for all datapoints" shares
# ------------------------------------------------------------------------------------------------
def test_first_layer_all_on_weight_counts_a_dead_units_weight():
    """layer_activity's ``first_all_on_weight`` is the share of *all* first-layer weight
    ‖w1_u‖·‖W2[:, u]‖ on units on for every datapoint (the depth suite's verdict: "all its neurons are
    active for all datapoints"); a unit that is never on is a neuron that is not, so its weight counts
    against the claim. By hand, X = I₃, W1 rows (1, 1, 1) (on everywhere, norm √3) and (−1, −1, −1)
    (never on, norm √3), W2 = (1, 1) (column norms 1), W3 = (1): weights √3 and √3, so the share is ½
    (over the live units' weight only, a surviving mutation, it would be 1). Of the live units all are
    on everywhere (1); the weighted share of datapoints a unit is on for is (√3·1 + √3·0)/(2√3) = ½."""
    from theorykit.theory.gates import layer_activity

    X = np.eye(3)
    W1 = np.array([[1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]])
    a = layer_activity([W1, np.array([[1.0, 1.0]]), np.array([[1.0]])], X, blocks=3)
    assert a["first_all_on_units"] == pytest.approx(1.0)
    assert a["first_all_on_weight"] == pytest.approx(0.5, rel=1e-12)
    assert a["first_on_fraction_weighted"] == pytest.approx(0.5, rel=1e-12)



# ------------------------------------------------------------------------------------------------
# report: every suite word for a partial verdict counts as "partly"
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("word, cls", [
    ("partial", "partly"), ("Partially", "partly"), ("partly confirmed", "partly"),
    ("partially supported", "partly"), ("partially confirmed", "partly"),
    ("reproduced", "confirmed"), ("yes", "confirmed"), ("pass", "confirmed"), ("passed", "confirmed"),
    ("agrees", "confirmed"), ("not confirmed", "not borne out"), ("refuted", "not borne out"),
    ("no", "not borne out"), ("fail", "not borne out"), ("failed", "not borne out"),
    ("na", "n/a"), ("not applicable", "n/a"), ("skipped", "n/a"), ("  ", "n/a")])
def test_verdict_class_reads_each_suite_word_by_its_meaning(word, cls):
    """verdict_class maps a suite's own verdict word onto the report's four classes; the summary's
    counts ("N confirmed, M partly …") are made of them. The words were tested only in part
    (confirmed, supported, partly, partly supported, not borne out, not supported, n/a), so mapping
    "partly confirmed" onto "confirmed" (a partial result counted as a full one) survived. The golden
    is the words' plain meaning: a partial confirmation is "partly" whatever its verb, a refusal or a
    failure is "not borne out", a skip is "n/a"."""
    from theorykit.report import verdict_class

    assert verdict_class(word) == cls


def test_no_verdict_word_that_says_partly_counts_as_a_full_verdict():
    """Whatever words the table holds, one with "partly" or "partial" in it is a partial verdict, and one
    that starts with "not " is never "confirmed" (the meaning of the words, not the table's entries)."""
    from theorykit.report import _VERDICT_WORDS, verdict_class

    for w in _VERDICT_WORDS:
        if "partly" in w or "partial" in w:
            assert verdict_class(w) == "partly", w
        if w.startswith("not "):
            assert verdict_class(w) != "confirmed", w


# ------------------------------------------------------------------------------------------------
# the depth suite: each run's halving time is against its own L(0)
# ------------------------------------------------------------------------------------------------
def test_depth_halving_time_is_each_runs_own_half_of_its_start():
    """run_statistics' ``t_half_loss``: the first checkpoint at which a run's loss is at most half of
    *its own* L(0) (the runs start at different losses: random starts). Every hand-built set of runs
    started at one loss, so halving against the first run's L(0) survived. By hand, checkpoints
    t = 0, 2, 4, 6: run 0 loss 8, 6, 4, 2 is at most 4 first at t = 4; run 1 loss 4, 3, 2, 1 is at
    most 2 first at t = 4 (against run 0's half, 4, it would be t = 0). Neither run aligns (cosines 0)."""
    from theorykit.analysis.depth_runs import run_statistics

    t_ck = np.array([0.0, 2.0, 4.0, 6.0])
    loss = np.array([np.interp(np.arange(7.0), t_ck, row) for row in ([8, 6, 4, 2], [4, 3, 2, 1])])
    s = run_statistics(SimpleNamespace(loss=loss, recorded=np.zeros((2, 4, 4))), t_ck, 0.9)
    np.testing.assert_array_equal(s["t_half_loss"], [4.0, 4.0])
    np.testing.assert_array_equal(s["final_loss"], [2.0, 1.0])
    assert s["aligned_runs"] == 0


# ------------------------------------------------------------------------------------------------
# the xor suite: the learning-time switch reads the closed forms of the a0 rule
# ------------------------------------------------------------------------------------------------
def test_xor_learning_time_switch_reads_the_rule_a0_closed_forms_not_the_fitted_ones(monkeypatch):
    """xor._measure's switch estimate "learning_time_vs_closed_forms" asks, per Δ, whether the median
    ReLU learning time is closer to the linear or to the XoR ReLN's closed form *with the a0 rule*
    (the fitted-a0 closed forms have their own row). Where the fit gives the same a0 as the rule (every
    hand-built grid so far), reading the fitted times instead survived. Here the fit is stubbed to give
    each ReLN the other's learning times, so the two readings disagree everywhere. The runs are built as
    in tests/test_xor_depth_suite_rules.py (``hand_built_grid``, no training): each ReLU run learns at the
    faster ReLN's t½, found by brentq on Eqs. 22–23 (``_t_half_by_hand``): s, d = Δ/2, Δ²/2 (linear, 2
    pathways) and √(2+Δ²)/4, (2+Δ²)/4 (XoR, 4 pathways). The XoR ReLN is the faster one below
    Δ* = √(2/3) ≈ 0.8165 and the linear one above, so on Δ = 0, 0.2, …, 2 the step jumps between 0.8 and
    1.0: the switch is half-way, 0.9 (read from the fitted, swapped times it would not be)."""
    import math

    from test_xor_depth_suite_rules import _t_half_by_hand, hand_built_grid

    from theorykit.suites import load_suite

    xor = load_suite("xor")
    g = hand_built_grid(xor, 400)
    deltas, seeds, tau, a0 = g.deltas, g.seeds, g.tau, g.a0
    lt = {"linear": np.array([_t_half_by_hand(2, x / 2, x * x / 2, a0["linear"], tau) for x in deltas]),
          "xor": np.array([_t_half_by_hand(4, math.sqrt(2 + x * x) / 4, (2 + x * x) / 4, a0["xor"], tau)
                           for x in deltas])}
    swapped = iter([lt["xor"], lt["linear"]])           # fit_a0_grid is called for "linear", then "xor"

    def fit(cf, t_half, x, xs, times, tau, targets, s_vals, start):
        return np.full(len(xs), 1e-3), np.array(start), next(swapped)

    monkeypatch.setattr(xor, "fit_a0_grid", fit)
    sims = {n: np.repeat(g.cf[n][:, None], seeds, axis=1) for n in g.cf}
    faster = np.where(deltas > math.sqrt(2 / 3), "linear", "xor")
    relu = np.stack([sims[f][i] for i, f in enumerate(faster)])
    relu_lt = np.repeat(np.array([lt[f][i] for i, f in enumerate(faster)])[:, None], seeds, axis=1)
    W1 = np.ones((len(deltas), seeds, g.H, 3))
    W2 = np.ones((len(deltas), seeds, 1, g.H))
    Xs = np.stack([g.task.numeric({"Delta": float(x)})[0] for x in deltas])
    res = xor._measure({}, g.theory, g.summary, g.relns, deltas, g.times, tau, a0, relu, relu_lt, W1, W2, Xs, sims,
                       {n: np.repeat(lt[n][:, None], seeds, axis=1) for n in lt}, {n: v.copy() for n, v in sims.items()})
    est = res["crossover_sim"]["estimates"]["learning_time_vs_closed_forms"]
    assert est["value"] == pytest.approx(0.9, abs=1e-12)
    assert est["misclassified"] == 0
