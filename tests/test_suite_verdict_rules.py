"""Verdict rules and pure measurements of the lemmas, gates and contexts suites, and the suite runner's
cache and staging rules (found untested by a hand mutation check of validation/lemmas.py, gates.py,
contexts.py, contexts_figures.py and __init__.py).

Every expected value is derived by hand in a comment, read from a docstring / docs/validation.md /
docs/lemmas.md, or computed here by a second method (sympy's Stirling numbers, itertools enumeration,
numpy), never taken from a run of the code under test. The suites' training runs are never started:
claim rows get hand-made result dicts, and the pure measurements run at tiny sizes.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from theorykit.theory.lemmas import GATE_CLASSES


def _row(claims, start):
    (row,) = [c for c in claims if c["claim"].startswith(start)]
    return row


# ------------------------------------------------------------------------------------------------
# lemmas: claim rows on hand-made results
# ------------------------------------------------------------------------------------------------
def _lemma_results(lemmas, *, il=0, ie=0, rs=0, all_agree=True, shares=None, counts=None, mismatch=0.04,
                   weighted=None):
    """A minimal results dict for ``lemmas._claims``: 2 seeds × 10 units; ``counts`` per seed."""
    counts = counts or {"dead": 1, "always-on": 1, "context-only": 1, "single-datapoint": 0, "item-only": 0,
                        "other-staircase": 7, "not-staircase": 0}
    per_seed = [dict.fromkeys(GATE_CLASSES, 0) | counts for _ in range(2)]
    tot = {c: sum(ps[c] for ps in per_seed) / 20 for c in GATE_CLASSES}
    sh = shares or {"sum_nonnegative": 0.0, "pathway_fixed_P_nonnegative": 0.0, "averaged_nonnegative": 0.0,
                    "sum_mixed_signs": 0.2}
    return {
        "interlacing_random": {"checked": 2000, "violations": il},
        "interlacing_exact": {"checked": 100, "violations": ie},
        "section4_restrictions": {"violations": rs, "top_singular_values": {
            "all contexts": {"all features": 1.25, "items only": 0.5}}},
        "positive_data": {"decrease_share": sh},
        "gate_characterisation": {"sizes": [{"n": 2, "k": 2, "realisable": 14, "patterns": 16, "poly_bernoulli": 14},
                                            {"n": 2, "k": 3, "realisable": 46, "patterns": 64, "poly_bernoulli": 46}],
                                  "all_agree": all_agree, "infeasible_2x2_patterns": lemmas.XOR_2X2},
        "section4_pattern_counts": {"realisable": 354106, "context_only_incl_dead_and_always_on": 8,
                                    "single_datapoint": 24},
        "census": {"seeds": 2, "hidden": 10, "counts_per_seed": per_seed, "shares": tot,
                   "weighted_shares": weighted or tot, "activity_weighted_mismatch_to_context_gating": mismatch},
    }


@pytest.mark.parametrize("il,ie,verdict", [(0, 0, "confirmed"), (1, 0, "not borne out"), (0, 1, "not borne out")])
def test_interlacing_row_is_confirmed_only_with_no_violation_in_either_check(lemmas, il, ie, verdict):
    """The interlacing row (docs/validation.md: 'no violation' → confirmed): one violation in the random
    float cases, or one in the exact integer cases, is enough to refute the exact statement."""
    row = _row(lemmas._claims(_lemma_results(lemmas, il=il, ie=ie)), "Interlacing")
    assert row["verdict"] == verdict
    assert row["agreement"] == ("exact statement holds" if verdict == "confirmed" else "violated")
    assert row["ours"] == f"{il} violations in 2000 random float cases, {ie} in 100 exact integer cases"


@pytest.mark.parametrize("rs,verdict", [(0, "confirmed"), (1, "not borne out")])
def test_proposition42_restriction_row_follows_its_violation_count(lemmas, rs, verdict):
    """Proposition 4.2's restriction row: confirmed with 0 violations, not borne out with one. Its figure
    prints the common pathway's σ₁ with all features (1.25 given) and with items only (0.5 given)."""
    row = _row(lemmas._claims(_lemma_results(lemmas, rs=rs)), "Removing input features")
    assert row["verdict"] == verdict
    assert row["agreement"].startswith("holds for the rate" if rs == 0 else "violated for the rate")
    assert "1.2500 (all features) vs 0.5000 (items only)" in row["ours"] and f"{rs} violations" in row["ours"]


@pytest.mark.parametrize("agree,verdict", [(True, "confirmed"), (False, "not borne out")])
def test_staircase_row_follows_all_agree(lemmas, agree, verdict):
    """'Realisable gate patterns are exactly the staircase patterns': confirmed iff enumeration, LP,
    staircase test and the poly-Bernoulli count all agree (``all_agree``); its figure lists n×k:
    realisable/patterns (B=poly-Bernoulli) per size, as given."""
    row = _row(lemmas._claims(_lemma_results(lemmas, all_agree=agree)), "Realisable gate patterns")
    assert row["verdict"] == verdict
    assert row["ours"] == "2×2: 14/16 (B=14); 2×3: 46/64 (B=46)"
    assert row["agreement"].startswith("enumeration, LP and staircase test agree" if agree else
                                       "enumeration, LP, staircase test or poly-Bernoulli count disagree")


def test_positive_data_row_refutes_on_the_sum_form_alone_and_names_the_re_averaged_form(lemmas):
    """The positive-data row's rule (its agreement text): not borne out if the sum or the P-fixed pathway
    form ever decreases; else partly if the re-averaged form does; else confirmed. By hand: a decrease
    of the sum form alone (pathway 0) refutes; the re-averaged clause says 'fails' when its share is
    above 0 and 'holds ... too' at 0; the shares are printed as percentages (0.125 → 12.5%)."""
    def row(**sh):
        base = {"sum_nonnegative": 0.0, "pathway_fixed_P_nonnegative": 0.0, "averaged_nonnegative": 0.0,
                "sum_mixed_signs": 0.125}
        return _row(lemmas._claims(_lemma_results(lemmas, shares=base | sh)), "Positive data")

    r = row(sum_nonnegative=0.001)
    assert r["verdict"] == "not borne out" and r["agreement"].startswith("fails for Σ_μ y_μ x_μᵀ")
    r = row()
    assert r["verdict"] == "confirmed" and r["agreement"].startswith("holds for Σ_μ y_μ x_μᵀ")
    assert "; holds re-averaged too" in r["agreement"] and "mixed signs (sum; outside the lemma) 12.5%" in r["ours"]
    r = row(averaged_nonnegative=0.25)
    assert r["verdict"] == "partly" and "; fails for (1/P)YXᵀ re-averaged" in r["agreement"]
    assert "re-averaged over P+1 25.0%" in r["ours"]


def test_informal_lemma_row_prints_the_share_outside_the_reading(lemmas):
    """By hand: per seed of 10 units, dead 1 + always-on 1 + context-only 1 fit the reading, 7 do not:
    70.0 % of units, 14 of 20; the weighted share given as 0.1 each for the four reading classes
    → 1 − 0.4 = 60.0 % weighted. Of the 354 106 realisable 8 × 3 patterns 8 + 24 = 32 fit
    (docs/validation.md: 'only 32 fit it')."""
    w = dict.fromkeys(GATE_CLASSES, 0.0) | {"dead": 0.1, "always-on": 0.1, "context-only": 0.1,
                                            "single-datapoint": 0.1, "other-staircase": 0.6}
    row = _row(lemmas._claims(_lemma_results(lemmas, weighted=w)), "Informal Lemma 4.1")
    assert row["ours"] == ("of 354106 realisable 8×3 patterns only 32 fit; in trained networks 70.0% of units "
                           "(14 of 20; 60.0% weighted) have other staircase patterns")
    assert row["agreement"].startswith("trained units outside the reading")
    # a single unit outside the reading (1 of 20, in one seed only) refutes it: counted exactly
    one = {"dead": 5, "always-on": 2, "context-only": 2, "single-datapoint": 1, "item-only": 0,
           "other-staircase": 0, "not-staircase": 0}
    res = _lemma_results(lemmas, counts=one)
    res["census"]["counts_per_seed"][1] = res["census"]["counts_per_seed"][1] | {"dead": 4, "item-only": 1}
    row = _row(lemmas._claims(res), "Informal Lemma 4.1")
    assert row["verdict"] == "not borne out" and "(1 of 20;" in row["ours"]
    row = _row(lemmas._claims(_lemma_results(lemmas, counts=one)), "Informal Lemma 4.1")
    assert row["verdict"] == "confirmed" and row["agreement"].startswith("every trained unit fits the reading")


@pytest.mark.parametrize("mismatch,start", [(0.0, "exactly context-gated"), (0.05, "non-zero but ≤ 5%"),
                                            (0.0500001, "above 5%: units are not close")])
def test_context_gating_agreement_text_follows_the_rule(lemmas, mismatch, start):
    """The row's rule: confirmed at 0, partly up to 5 % (CONTEXT_GATING_CLOSE = 0.05, the bound
    included), else not borne out; the agreement text says which of the three."""
    row = _row(lemmas._claims(_lemma_results(lemmas, mismatch=mismatch)), "Trained networks' units")
    assert row["agreement"].startswith(start)


# ------------------------------------------------------------------------------------------------
# lemmas: the pure measurements at tiny sizes
# ------------------------------------------------------------------------------------------------
def _poly_bernoulli_kaneko(n, k):
    """Kaneko's formula, a second method: B_n^(−k) = (−1)^n Σ_{m=0}^{n} (−1)^m m! S(n, m) (m+1)^k."""
    from sympy.functions.combinatorial.numbers import stirling

    return (-1) ** n * sum((-1) ** m * math.factorial(m) * int(stirling(n, m)) * (m + 1) ** k for m in range(n + 1))


def _lonesum_count(n, k):
    """Brute force: n × k 0/1 matrices with no 2 × 2 XOR sub-pattern (rows i<j, cols a<b with
    g[i,a] = g[j,b] ≠ g[i,b] = g[j,a])."""
    count = 0
    for bits in itertools.product((0, 1), repeat=n * k):
        g = np.array(bits).reshape(n, k)
        count += not any(g[i, a] == g[j, b] != g[i, b] == g[j, a]
                         for i, j in itertools.combinations(range(n), 2)
                         for a, b in itertools.combinations(range(k), 2))
    return count


def test_section4_pattern_counts_by_hand(lemmas):
    """docs/lemmas.md: B_8^(−3) = 354106 realisable 8 × 3 patterns, 32 context-only or single-datapoint.
    By hand: context-only incl. dead and always-on 2^3 = 8; single datapoint 8·3 = 24; item-only (a
    pattern set by the item alone, not constant) 2^8 − 2 = 254; the rest 354106 − 8 − 24 − 254 = 353820;
    the stronger reading's share 32/354106."""
    assert _poly_bernoulli_kaneko(8, 3) == 354106
    c = lemmas._section4_pattern_counts()
    assert c == {"realisable": 354106, "context_only_incl_dead_and_always_on": 8, "single_datapoint": 24,
                 "item_only": 254, "other_staircase": 353820, "stronger_reading_share": 32 / 354106}


def test_gate_characterisation_counts_and_the_lp_size_limit(lemmas):
    """Rows per size: 2^(n·k) patterns; realisable = the lonesum count (brute force here: 14 for 2×2,
    46 for 2×3, and Kaneko's formula agrees); the LP check only where n·k ≤ lp_max_cells (the bound
    included: 2×3 = 6 cells with a limit of 6 is checked; 2×2 = 4 cells with a limit of 3 is not)."""
    assert (_lonesum_count(2, 2), _lonesum_count(2, 3)) == (14, 46)
    assert (_poly_bernoulli_kaneko(2, 2), _poly_bernoulli_kaneko(2, 3)) == (14, 46)
    res = lemmas._gate_characterisation([(2, 2), (2, 3)], 6)
    rows = {(r["n"], r["k"]): r for r in res["sizes"]}
    assert [(r["n"], r["k"]) for r in res["sizes"]] == [(2, 2), (2, 3)]
    assert (rows[2, 2]["patterns"], rows[2, 3]["patterns"]) == (16, 64)
    assert (rows[2, 2]["realisable"], rows[2, 3]["realisable"]) == (14, 46)
    assert rows[2, 2]["poly_bernoulli"] == 14 and rows[2, 3]["poly_bernoulli"] == 46
    assert rows[2, 3]["lp_equals_enumeration"] is True and res["all_agree"] is True
    assert res["infeasible_are_the_xor_patterns"] is True
    res = lemmas._gate_characterisation([(2, 2)], 3)
    assert "lp_equals_enumeration" not in res["sizes"][0] and res["all_agree"] is True


def test_gate_characterisation_disagrees_when_one_count_is_off(lemmas, monkeypatch):
    """``all_agree`` needs every size to agree: a poly-Bernoulli count off by one (patched) must make
    it False, even though enumeration, LP and the staircase test still agree with one another."""
    import theorykit.theory.lemmas as tl

    real = tl.poly_bernoulli
    monkeypatch.setattr(tl, "poly_bernoulli", lambda n, k: real(n, k) + (sorted((n, k)) == [2, 3]))
    res = lemmas._gate_characterisation([(2, 2), (2, 3)], 4)
    assert res["all_agree"] is False and res["sizes"][1]["poly_bernoulli"] == 47
    assert res["sizes"][0]["enumeration_equals_staircase"] and res["sizes"][0]["staircase_equals_xor_free"]


def test_interlacing_checks_count_every_failed_case(lemmas, monkeypatch):
    """'violations' counts the cases the check rejects: with a check that always rejects (patched),
    every one of ``count`` cases is a violation; with the real check none (Thompson's theorem)."""
    import theorykit.theory.lemmas as tl

    assert lemmas._interlacing_exact(12) == {"checked": 12, "violations": 0}
    assert lemmas._interlacing_random(40) == {"checked": 40, "violations": 0}
    monkeypatch.setattr(tl, "interlacing_holds_exact", lambda A, rows, cols: False)
    monkeypatch.setattr(tl, "interlacing_holds", lambda A, rows, cols: False)
    assert lemmas._interlacing_exact(12) == {"checked": 12, "violations": 12}
    assert lemmas._interlacing_random(40)["violations"] == 40


def test_positive_data_shares_are_the_counts_over_the_cases(lemmas):
    """decrease_share[k] = decreases[k] / checked; the sum form and the P-fixed pathway never decrease
    (the lemma), the re-averaged form sometimes does (dividing by P + 1 instead of P can lower σ₁:
    e.g. a datapoint of zeros lowers σ₁ by P/(P+1))."""
    res = lemmas._positive_data(60)
    assert res["checked"] == 60
    for k, v in res["decreases"].items():
        assert res["decrease_share"][k] == v / 60
    assert res["decreases"]["sum_nonnegative"] == res["decreases"]["pathway_fixed_P_nonnegative"] == 0
    assert res["decreases"]["averaged_nonnegative"] > 0


# ------------------------------------------------------------------------------------------------
# gates
# ------------------------------------------------------------------------------------------------
def test_gates_settings_follow_the_docstring(gates):
    """gates' module docstring: k-means for K = 1 … 8; a run 'tracks' within 5 % of the initial loss
    (TRACK_TOL); quick: H = 200 with init std 0.005/200 and η = 0.002 over 4001 steps, 3 seeds."""
    assert gates.KS == [1, 2, 3, 4, 5, 6, 7, 8] and gates.TRACK_TOL == 0.05
    q = gates.SETTINGS["quick"]
    assert (q["hidden"], q["init_std"], q["lr"], q["steps"], q["seeds"]) == (200, 0.005 / 200, 0.002, 4001, 3)


def test_gate_pattern_labels_by_context(gates):
    """_label's docstring: context-level name of a 24-entry pattern (3 contexts × 8 items, context-major):
    all on → 'common'; contexts 1 and 3 fully on, 2 off → 'ctx13'; context 2 alone → 'ctx2'; a context
    partly on → 'mixed(c1:on/8,c2:…,c3:…)' with each context's count of active items."""
    on, off = [1] * 8, [0] * 8
    assert gates._label(on + on + on) == "common"
    assert gates._label(on + off + on) == "ctx13"
    assert gates._label(off + on + off) == "ctx2"
    assert gates._label(on + on + off) == "ctx12"
    assert gates._label(on + [1, 1, 1, 0, 0, 0, 0, 0] + off) == "mixed(c1:8/8,c2:3/8,c3:0/8)"
    # another size (n = 2 items, k = 2 contexts): the reshape is k × n
    assert gates._label([1, 1, 0, 0], n=2, k=2) == "ctx1" and gates._label([1, 0, 1, 1], n=2, k=2) == \
        "mixed(c1:1/2,c2:2/2)"


def test_elbow_row_names_the_rules_that_give_four_and_the_lowest_mse(gates):
    """_elbow_claim: partly when some but not all of the four estimates are 4, and the agreement names
    those (in the order linear improvement, linear chord, log improvement, log chord); 'lowest MSE at K'
    is the K of the smallest MSE (here K = 6 by construction); MSEs printed to 3 significant digits."""
    mse = [0.5, 0.25, 0.125, 0.0625, 0.05, 0.01234, 0.02, 0.03]
    per_k = [{"K": K, "mse": m} for K, m in zip(range(1, 9), mse)]
    row = gates._elbow_claim(per_k, {"improvement": 4, "chord": 3}, {"improvement": 5, "chord": 4})
    assert row["verdict"] == "partly"
    assert row["agreement"].startswith("K = 4 only by the improvement rule on linear MSE and the chord rule on "
                                       "log10(MSE);")
    assert "lowest MSE at K = 6" in row["ours"] and row["ours"].endswith("0.5, 0.25, 0.125, 0.0625, 0.05, 0.0123, "
                                                                          "0.02, 0.03")
    assert ("elbow on linear MSE: K = 4 (improvement rule, 10 %), K = 3 (chord rule); on log10(MSE) (the axis of "
            "our Fig. 9): K = 5 (improvement), K = 4 (chord)") in row["ours"]
    # one estimate of four is 4: still partly (not borne out needs none)
    row = gates._elbow_claim(per_k, {"improvement": 3, "chord": 3}, {"improvement": 3, "chord": 4})
    assert row["verdict"] == "partly" and row["agreement"].startswith("K = 4 only by the chord rule on log10(MSE);")
    row = gates._elbow_claim(per_k, {"improvement": 3, "chord": 3}, {"improvement": 5, "chord": 5})
    assert row["agreement"].startswith("K = 4 by no rule on either scale")
    row = gates._elbow_claim(per_k, {"improvement": 4, "chord": 4}, {"improvement": 4, "chord": 4})
    assert row["agreement"].startswith("K = 4 by both rules on both scales")


@pytest.mark.parametrize("field", ["forward_max_abs_diff", "trained_max_abs_diff", "trained_two_layer_max_abs_diff"])
def test_exact_reln_identity_fails_on_any_one_difference(gates, field):
    """_exact_reln_claim: the worst of the three differences decides; each alone at 1e-3 (≥ tol 1e-9)
    is an implementation defect ('failed'), and the row prints each to 2 significant digits."""
    ok = {"checkpoints": 7, "forward_max_abs_diff": 0.0, "trained_max_abs_diff": 0.0,
          "trained_two_layer_max_abs_diff": 0.0, "output_scale": 2.5}
    row = gates._exact_reln_claim({**ok, field: 1e-3})
    assert row["verdict"] == "failed" and row["agreement"].startswith("identity violated (≥ 1e-09)")
    assert "over 7 checkpoints" in row["ours"] and "1.00e-03" in row["ours"] and "(outputs of size 2.50)" in row["ours"]
    row = gates._exact_reln_claim(ok)
    assert row["verdict"] == "n/a" and row["agreement"].startswith("identity holds to 1e-09")


def test_tracking_verdict_at_the_tolerance_itself(gates):
    """_tracking_verdict: an error counts when it is *under* TRACK_TOL (0.05); exactly 0.05 is not under
    it: (0.05, 0.01) is partly, (0.05, 0.05) not borne out; one number alone works as well."""
    v = gates._tracking_verdict
    assert gates.TRACK_TOL == 0.05
    assert v(0.05, 0.01) == "partly" and v(0.05, 0.05) == "not borne out"
    assert v(0.049) == "confirmed" and v(0.05) == "not borne out" and v(math.nan) == "n/a"


def test_gates_run_reads_the_digits_row_at_its_elbow(gates, monkeypatch, tmp_path):
    """gates.run on stubbed parts (no training): each part gets the quick settings (H = 200) and the
    progress flag; the digits claim reads the row of K = K_elbow (rows are K = 1, 2, …; here K_elbow = 2,
    whose simulated error 0.01 and race error 0.2 give partly: one of two under 0.05); the rows' sim/race
    curves are dropped from the result; the figures go to fig8_centroids.png, fig9_elbow.png and
    fig_digits.png; the claims are the elbow row, the two pathway rows, the identity check and the
    digits row, in that order."""
    import types

    per_k = [{"K": K, "mse": 1.0 / K, "labels": ["common"]} for K in range(1, 9)]
    relu = types.SimpleNamespace(loss=np.array([[3.0, 2.0, 1.0]]))
    calls = []

    def part(name, value):
        def f(st, progress=None):
            calls.append((name, st["hidden"], progress))
            return value
        return f

    K_log = {"improvement": 4, "chord": 4}
    monkeypatch.setattr(gates, "_section4", part("section4", (relu, ["scores"], per_k, 3, 3, K_log)))
    monkeypatch.setattr(gates, "_exact_reln", part("reln", {"checkpoints": 1, "forward_max_abs_diff": 0.0,
                                                           "trained_max_abs_diff": 0.0,
                                                           "trained_two_layer_max_abs_diff": 0.0, "output_scale": 1.0}))
    rows = [{"K": K, "sim_max_rel_err": [0.5, 0.01, 0.02][K - 1], "race_max_rel_err": [0.5, 0.2, 0.01][K - 1],
             "sim_final_rel_err": 0.0, "race_final_rel_err": 0.0, "sim_loss": [1.0], "race_loss": [1.0]}
            for K in (1, 2, 3)]
    dg = {"rows": rows, "K_elbow": 2, "t": [0.0]}
    monkeypatch.setattr(gates, "_digits", part("digits", dg))
    figs = []
    monkeypatch.setattr(gates, "_fig8", lambda scores, path: figs.append(("8", scores, path.name)))
    monkeypatch.setattr(gates, "_fig9", lambda pk, ki, kc, path, kl=None: figs.append(("9", (ki, kc, kl), path.name)))
    monkeypatch.setattr(gates, "_fig_digits", lambda d, path: figs.append(("d", d is dg, path.name)))
    res = gates.run(tmp_path, "quick", progress=False)
    assert calls == [("section4", 200, False), ("reln", 200, None), ("digits", 200, False)]
    assert figs == [("8", ["scores"], "fig8_centroids.png"), ("9", (3, 3, K_log), "fig9_elbow.png"),
                    ("d", True, "fig_digits.png")]
    claims = res["claims"]
    assert [c["claim"][:12] for c in claims] == ["Fig. 9: the ", "with 4 clust", "every cluste", "identity che",
                                                 "reviewers' q"]
    digits = claims[-1]
    assert digits["verdict"] == "partly" and "elbow K = 2: simulated ReLN max loss error 0.010·L(0)" in digits["ours"]
    assert "race reduction max 0.200·L(0)" in digits["ours"] and digits["agreement"] == \
        "tracking tolerance 0.05·L(0) (max over time)"
    assert all("sim_loss" not in r and "race_loss" not in r for r in res["digits"]["rows"])
    assert res["section4"]["K_elbow"] == 3 and res["section4"]["relu_final_loss"].tolist() == [1.0]
    assert claims[0]["verdict"] == "partly"      # linear K = 3 by both rules, log10 K = 4 by both


def test_gates_section4_trains_with_the_settings_and_reads_the_elbow_on_both_scales(gates, monkeypatch):
    """gates._section4 with training and k-means stubbed: the ReLU network gets the mode's settings, the
    summed loss, seed 0 and snapshots every 100 steps (module docstring) on the Section 4 task (11 inputs,
    60 outputs, 24 datapoints: the lemmas docstring's [11, 700, 60]); the elbow is read with both rules on
    the MSE and on log10(MSE), each the findgates rule applied here to the same numbers (the two scales
    give different K on these MSEs, so a swapped scale is seen). Labels per K are those of the patterns
    (all on → 'common'), patterns printed as 0/1 strings."""
    from theorykit.analysis.findgates import choose_elbow

    st = gates.SETTINGS["quick"]
    seen = {}

    def train_relu(X, Y, **kw):
        seen["shape"], seen["kw"] = (X.shape, Y.shape), kw
        return "relu"

    mse = [1.0, 0.1, 0.01, 0.009, 0.008, 0.007, 0.006, 0.005]

    def elbow_scores(X, Y, relu, Ks, kmeans_seed, n_init, progress):
        seen["elbow"] = (relu, list(Ks), kmeans_seed, n_init)
        assert (X.shape, Y.shape) == ((11, 24), (60, 24))           # inputs first, then targets
        return [{"K": K, "mse": m, "loss_max_rel_err": 0.0, "patterns": [np.ones(24, int)] * K, "shares": [1.0],
                 "hidden": [1]} for K, m in zip(Ks, mse)]

    monkeypatch.setattr(gates, "train_relu", train_relu)
    monkeypatch.setattr(gates, "elbow_scores", elbow_scores)
    relu, scores, per_k, K_imp, K_chord, K_log = gates._section4(st, progress=False)
    assert seen["kw"] == {"hidden": 200, "lr": 0.002, "steps": 4001, "seeds": 3, "init_std": 0.005 / 200,
                          "loss": "sum", "seed": 0, "every": 100}
    assert seen["shape"] == ((11, 24), (60, 24)) and seen["elbow"] == ("relu", list(range(1, 9)), 0, 5)
    Ks = list(range(1, 9))
    assert (K_imp, K_chord) == (choose_elbow(Ks, mse, "improvement"), choose_elbow(Ks, mse, "chord"))
    assert K_log == {r: choose_elbow(Ks, np.log10(mse), r) for r in ("improvement", "chord")}
    assert K_log != {"improvement": K_imp, "chord": K_chord}        # the two scales differ on these numbers
    assert per_k[0]["labels"] == ["common"] and per_k[2]["patterns"] == ["1" * 24] * 3 and per_k[7]["mse"] == 0.005


def test_gates_digits_rows_by_hand_with_training_stubbed(gates, monkeypatch):
    """gates._digits with the data, training, k-means and race stubbed. Images: targets
    0,1,2,3,4,5,0,1,7,2 → classes < 5 keep images 0,1,2,3,4,6,7,9 (8 of them), pixels / 16, one-hot
    targets over 5 classes. ReLU loss per step (2 seeds): seed means 4, 3, 2, 1.5, 1 at steps 0..4;
    checkpoints at steps 0, 2, 4. Per K the stub gives K pathways; by hand for K = 2: a0 = σ²·(H/K)/2
    = 1e-6·50/2 = 2.5e-5 (module docstring: σ²H_p/2, H_p = H/K); the race curve (stub) 4, 2.5, 1.5 at
    the checkpoints: max |race − ReLU| / L(0) = max(0, 0.5, 0.5)/4 = 0.125, final |1.5 − 1|/1 = 0.5;
    the GDLN's final loss 1.25: |1.25 − 1|/1 = 0.25. τ = 1/η = 20."""
    import sys
    import types

    datasets = pytest.importorskip("sklearn.datasets")     # the extra gates (not in test)

    target = np.array([0, 1, 2, 3, 4, 5, 0, 1, 7, 2])
    data = np.arange(10 * 64, dtype=float).reshape(10, 64) % 17
    monkeypatch.setattr(datasets, "load_digits", lambda: types.SimpleNamespace(data=data, target=target))
    assert sys.modules["sklearn.datasets"].load_digits().target is target
    loss = np.array([[5.0, 4.0, 3.0, 2.0, 1.5], [3.0, 2.0, 1.0, 1.0, 0.5]])     # means 4, 3, 2, 1.5, 1
    relu = types.SimpleNamespace(loss=loss, t_ck=np.array([0, 2, 4]))
    seen = {}

    def train_relu(X, Y, **kw):
        seen["X"], seen["Y"], seen["kw"] = X, Y, kw
        return relu

    def elbow_scores(X, Y, r, Ks, kmeans_seed, n_init, progress):
        assert r is relu and (kmeans_seed, n_init) == (0, 5) and (X.shape, Y.shape) == ((64, 8), (5, 8))
        return [{"K": K, "mse": 1.0 / K ** 3, "loss_max_rel_err": 0.01 * K,
                 "patterns": [np.arange(8) % (j + 2) == 0 for j in range(K)], "hidden": [100 // K] * K,
                 "gdln_loss": np.array([4.0, 3.5, 3.0, 2.0, 1.25])} for K in Ks]

    class Race:
        @staticmethod
        def from_data(X, Y, G):
            seen.setdefault("G", []).append(np.asarray(G))
            return Race()

        def solve(self, times, tau, a0, modes):
            seen.setdefault("solve", []).append((list(times), tau, a0, modes))
            return types.SimpleNamespace(loss=np.array([[4.0, 2.5, 1.5]]))

    monkeypatch.setattr(gates, "train_relu", train_relu)
    monkeypatch.setattr(gates, "elbow_scores", elbow_scores)
    monkeypatch.setattr(gates, "RaceSystem", Race)
    st = gates.SETTINGS["quick"]
    dg = gates._digits(st, progress=False)
    keep = [0, 1, 2, 3, 4, 6, 7, 9]
    np.testing.assert_array_equal(seen["X"], data[keep].T / 16.0)
    np.testing.assert_array_equal(seen["Y"], np.eye(5)[target[keep]].T)
    assert seen["kw"] == {"hidden": 100, "lr": 0.05, "steps": 3000, "seeds": 2, "init_std": 1e-3, "loss": "mean",
                          "seed": 0, "every": 100}
    assert dg["X_shape"] == [64, 8] and dg["t"].tolist() == [0.0, 2.0, 4.0]
    assert dg["relu_loss"].tolist() == [4.0, 2.0, 1.0] and dg["relu_loss_std"].tolist() == [1.0, 1.0, 0.5]
    row = dg["rows"][1]
    assert (row["K"], row["pathways"], row["hidden"], row["mse"], row["sim_max_rel_err"]) == (2, 2, [50, 50], 1 / 8,
                                                                                          0.02)
    assert row["sizes"] == [4, 3]                       # items 0,2,4,6 and 0,3,6 of the 8
    assert row["race_a0"] == pytest.approx(2.5e-5, rel=1e-12)
    assert seen["solve"][1] == ([0.0, 2.0, 4.0], 20.0, row["race_a0"], False)
    assert row["race_max_rel_err"] == 0.125 and row["race_final_rel_err"] == 0.5 and row["sim_final_rel_err"] == 0.25
    assert row["sim_loss"].tolist() == [4.0, 3.0, 1.25] and row["race_loss"].tolist() == [4.0, 2.5, 1.5]
    # the elbow over K of MSE 1/K³ by the findgates improvement rule, applied here to the same numbers
    from theorykit.analysis.findgates import choose_elbow

    assert dg["K_elbow"] == choose_elbow(list(range(1, 9)), [1.0 / K ** 3 for K in range(1, 9)])
    assert [r["K"] for r in dg["rows"]] == list(range(1, 9)) and dg["settings"] is st["digits"]


def test_gates_exact_reln_takes_the_worst_difference_over_seeds_and_checkpoints(gates, monkeypatch):
    """gates._exact_reln with the networks stubbed: the forward difference is the largest |ŷ_ReLN − ŷ_ReLU|
    over both seeds and every checkpoint (stub: the difference is |W1[s, c]|, values 0.1, −0.2, 0.3 for
    seed 0 and 0.05, 0, −0.7 for seed 1: worst 0.7, at the last checkpoint of the second seed; it starts
    from 0, so all-zero differences give 0); the side-by-side differences are max |ro − lo| (0.5 and,
    with two hidden layers, 0.25), the output scale max |ro| = 3, the checkpoints those of the trajectory (3)."""
    import types

    W1 = np.array([[0.1, -0.2, 0.3], [0.05, 0.0, -0.7]])[..., None]        # seeds × checkpoints × 1
    W2 = np.ones_like(W1)
    seen = []

    def train_relu(X, Y, **kw):
        seen.append(("train", kw))
        return types.SimpleNamespace(t_ck=np.array([0, 25, 50]), params_ck=[W1, W2])

    def trajectory(X, Y, **kw):
        seen.append(("traj", kw))
        if isinstance(kw["hidden"], list):
            return np.arange(3), np.array([[0.0, 1.0]]), np.array([[0.25, 1.0]])
        return np.arange(3), np.array([[1.0, -3.0]]), np.array([[1.0, -2.5]])

    monkeypatch.setattr(gates, "train_relu", train_relu)
    monkeypatch.setattr(gates, "exact_reln_trajectory", trajectory)
    def reln_out(params, X):
        assert len(params) == 2 and X.shape == (11, 24)      # (parameters, the task's inputs), in that order
        return np.array([params[0][0], 0.0])

    def relu_out(params, X):
        assert len(params) == 2 and X.shape == (11, 24)
        return np.zeros(2)

    monkeypatch.setattr(gates, "exact_reln_outputs", reln_out)
    monkeypatch.setattr(gates, "relu_forward", relu_out)
    st = gates.SETTINGS["quick"]
    got = gates._exact_reln(st)
    assert got == {"checkpoints": 3, "forward_max_abs_diff": 0.7, "trained_max_abs_diff": 0.5,
                   "trained_two_layer_max_abs_diff": 0.25, "output_scale": 3.0}
    r = st["reln"]
    assert seen[0] == ("train", {"hidden": r["hidden"], "lr": 0.02, "steps": r["steps"], "seeds": 2, "init_std": 0.1,
                                 "loss": "mean", "every": r["every"], "keep_params": True})
    assert seen[2] == ("traj", {"hidden": [r["hidden"], r["hidden"]], "lr": 0.02, "steps": r["steps"],
                                "init_std": 0.3, "every": r["every"]})
    monkeypatch.setattr(gates, "exact_reln_outputs", lambda params, X: np.zeros(2))
    monkeypatch.setattr(gates, "relu_forward", lambda params, X: np.zeros(2))
    assert gates._exact_reln(st)["forward_max_abs_diff"] == 0.0


# ------------------------------------------------------------------------------------------------
# contexts: claim rows of _assemble on hand-made figures
# ------------------------------------------------------------------------------------------------
def _ctx(contexts, mode="full", *, worst=0.0, residuals=True, exact=False, shares=None, race_fit=0.01, gdln=0.01,
         f4c=None, s5_units=None, hist=0.9, sig=None, f5=(0.01, 0.01), all_r=True, sigma_width=None,
         mds_controls=None):
    """contexts._assemble's claims and result on hand-made figures (k = 3 in Section 5; no training);
    ``mds_controls``: Fig. 4c's controls (context_runs.mds_controls), none by default."""
    sig = sig or {"common": 5, "k-1-context": 15, "single-context": 0, "none": 0}
    der = {"kminus1": {"s": "s", "d_eff": "d", "end_point": "e"}, "worst_abs_error_k2_to_8": worst,
           "all_residuals_match": residuals}
    cfg = {"exact_checks": exact, "relu_hidden4": 350, "sec5_hidden": 100, "gdln_hidden": 25, "rfamily_all_r": all_r,
           **({"gdln_sigma_width": sigma_width} if sigma_width is not None else {})}
    s4 = {"agreement": {"relu_vs_race_fitted_a0": {"max_abs_error_over_L0": race_fit},
                        "relu_vs_race_rule_a0": {"max_abs_error_over_L0": 0.5},
                        "relu_vs_gdln_double_joint_max_abs_error_over_L0": gdln,
                        "gdln_double_joint_vs_race_rule_a0_max_abs_error_over_L0": 0.25},
          "units": {"majority_significant": sig, "exact_significant": dict(sig), "majority_significant_mean_purity": 1.0,
                    "weight_share_majority": {}, "hidden": 100},
          "joint_vs_staged": {"double": {"max_abs_difference_over_L0": 0.5, "step_of_max_difference": 10,
                                         "final_joint": 0.0, "final_staged": 0.0}},
          "loss_at": {"relu_mean": [1.0], "theory_race_fitted_a0": [2.0]}, "end_points": {}, "staged": {"note": "n"},
          **({"mds_controls": mds_controls} if mds_controls is not None else {})}
    rr = {"rank_of_common_double_by_area": 1, "families": 127, "a0": 1e-6, "winner": "w",
          "common_double_area_excess_over_winner": 0.0, "within_1pct_of_winner": ["w"],
          "all_within_1pct_contain_common_and_all_doubles": True,
          "best_family_lacking_common_or_a_double": "b", "its_area_excess_over_common_double": 0.1,
          "double_vs_single_area_ratio": 1.5, "winner_by_time_to_1pct": "w",
          "all_seven_output_share": shares or {"ctx1": 0.0, "ctx2": 0.0, "ctx3": 0.0, "common": 0.5},
          "_private": "dropped"}
    rfam = {"3": {"winner_r": 2, "kminus1_wins": True, "single_over_kminus1_area": 1.2, "families": [1, 2]}}
    s5 = {"3": {"max_abs_error_over_L0": {"gdln_joint_vs_closed_form": f5[0], "gdln_joint_vs_race": 0.01,
                                          "relu_vs_closed_form_fitted_a0": f5[1]},
                "a0_relu_fitted": {"context": 1.0}, "a0_gdln_rule": 1.0, "_curves": {"t": [0]},
                "units": {"majority_significant": s5_units or {"common": 1, "k-1-context": 9, "single-context": 0},
                          "contexts_on_histogram_majority": {"2": {"weight_share": hist}}}}}
    return contexts._assemble(mode, cfg, der, s4, rr, rfam, s5, {}, f4c or {}, {}, 0.0)


@pytest.mark.parametrize("worst,verdict", [(0.0, "confirmed"), (9.9e-10, "confirmed"), (1e-9, "not borne out")])
def test_contexts_derivation_row_is_confirmed_strictly_below_1e_9(contexts, worst, verdict):
    """The symbolic-k derivation row: 'confirmed if < 1e-9' (its agreement text): 1e-9 itself is not below."""
    row = _row(_ctx(contexts, worst=worst)["claims"], "Section 5/App. F-G")
    assert row["verdict"] == verdict and row["agreement"].startswith(f"{worst:.1e} (confirmed if < 1e-9")


def test_contexts_residual_row_follows_the_match_and_names_the_arithmetic(contexts):
    """The least-squares residual row: confirmed iff the residuals match; the agreement says exact
    arithmetic when the run checked it exactly (full), float least squares to 1e-12 otherwise."""
    start = "Section 4: the common pathway learns"
    row = _row(_ctx(contexts, exact=True)["claims"], start)
    assert row["verdict"] == "confirmed" and row["agreement"] == "exact (exact arithmetic)"
    row = _row(_ctx(contexts, exact=False)["claims"], start)
    assert row["verdict"] == "confirmed" and row["agreement"].startswith("to 1e-12 (float least squares")
    row = _row(_ctx(contexts, residuals=False)["claims"], start)
    assert row["verdict"] == "not borne out" and row["agreement"] == "does not match"


def test_contexts_single_context_share_sums_the_three_single_pathways_only(contexts):
    """App. E row: the single-context share is ctx1 + ctx2 + ctx3 of the all-seven race's output (the
    common pathway's 0.9 not counted), graded ≤ 0.02 confirmed, > 0.10 not borne out (full). By hand:
    0.01 + 0.005 + 0.004 = 0.019 → 1.9 %, confirmed; 0.01 + 0.01 + 0.002 = 0.022 → partly;
    0.05 + 0.05 + 0.01 = 0.11 → not borne out (full), partly (quick)."""
    def row(mode="full", **sh):
        return _row(_ctx(contexts, mode, shares={"common": 0.9, **sh})["claims"], "App. E")

    r = row(ctx1=0.01, ctx2=0.005, ctx3=0.004)
    assert r["verdict"] == "confirmed" and r["ours"].startswith("single-context pathways carry 1.9% of the output")
    assert r["agreement"].startswith("1.9% (confirmed if ≤ 0.02; not borne out if > 0.1")
    assert row(ctx1=0.01, ctx2=0.01, ctx3=0.002)["verdict"] == "partly"
    assert row(ctx1=0.05, ctx2=0.05, ctx3=0.01)["verdict"] == "not borne out"
    assert row("quick", ctx1=0.05, ctx2=0.05, ctx3=0.01)["verdict"] == "partly"


@pytest.mark.parametrize("race_fit,gdln,verdict", [(0.01, 0.05, "confirmed"), (0.01, 0.06, "partly"),
                                                   (0.06, 0.01, "partly"), (0.16, 0.01, "not borne out"),
                                                   (0.01, 0.16, "not borne out"), (0.15, 0.15, "partly")])
def test_contexts_fig4a_verdict_reads_the_larger_error(contexts, race_fit, gdln, verdict):
    """Fig. 4a row: 'the larger of the two' errors (race with a0 fitted, GDLN) graded ≤ 0.05 confirmed,
    > 0.15 not borne out at full size (thresholds included in the better grade)."""
    row = _row(_ctx(contexts, race_fit=race_fit, gdln=gdln)["claims"], "Fig. 4a")
    assert row["verdict"] == verdict
    assert row["agreement"].startswith(f"{race_fit:.3f} of L(0) (race, a0 fitted); {gdln:.3f} (GDLN with the paper's")


def test_contexts_fig4a_quick_text_names_the_width_its_scales_keep(contexts):
    """The quick run keeps σ√H at gdln_sigma_width units a pathway (50), not at the paper's 100: a0 =
    σ²H/2 at the same σ√H is then half the full run's (docs/theory.md, the paper's settings). The text
    said 'kept at the paper's widths' values', which is not what the quick run does."""
    row = _row(_ctx(contexts, mode="quick", sigma_width=50)["claims"], "Fig. 4a")
    assert "σ√H kept at 50 units a pathway, where the paper's 100 would double a0" in row["agreement"]
    assert "paper's widths' values" not in row["agreement"]


def test_contexts_fig4c_row_reads_the_last_step_by_number(contexts):
    """Fig. 4c row: present only when there are MDS results; it grades the disparity at the *last* step,
    the largest step as a number (step 10000 after step 500, though '500' > '10000' as text), ≤ 0.1
    confirmed, > 0.3 not borne out (full). With no controls run the number is the figure's (seed 0); with
    controls (tests/test_fig4c_control_rules.py) it is the mean over seeds, and "confirmed" also needs the
    wrong gatings farther by more than the seed scatter (the ReLU seed-to-seed disparity): here 0.3
    and 0.4 against 0.05, margin 0.01."""
    def mds(d):
        return {"procrustes_disparity": 0.5, "procrustes_disparity_all_dims": d, "distance_correlation": 0.75}

    def ctrl(d):
        return {"step": 10000, "seeds": 2, "relu_vs_reln": {"double": [d, d], "single": [0.3, 0.3],
                                                            "all seven": [0.4, 0.4]},
                "seed0_vs_other_seeds": {"relu": [0.01]}}

    assert not [c for c in _ctx(contexts)["claims"] if c["claim"].startswith("Fig. 4c")]
    row = _row(_ctx(contexts, f4c={"500": mds(0.5), "10000": mds(0.05)}, mds_controls=ctrl(0.05))["claims"], "Fig. 4c")
    assert row["verdict"] == "confirmed" and row["agreement"].startswith("0.05 (confirmed if ≤ 0.1")
    assert "distance-matrix correlation at the end 0.750" in row["ours"]
    row = _row(_ctx(contexts, f4c={"500": mds(0.05), "10000": mds(0.31)}, mds_controls=ctrl(0.31))["claims"], "Fig. 4c")
    assert row["verdict"] == "not borne out"
    row = _row(_ctx(contexts, f4c={"500": mds(0.05), "10000": mds(0.31)})["claims"], "Fig. 4c")
    assert row["verdict"] == "not borne out"


def test_contexts_joint_vs_staged_row_is_not_a_verdict(contexts):
    """'The paper describes joint training ...; its code trained it staged': a description, verdict n/a,
    whatever the difference (0.5 of L(0) given)."""
    row = _row(_ctx(contexts)["claims"], "The paper describes joint training")
    assert row["verdict"] == "n/a" and row["agreement"] == "0.5000"


@pytest.mark.parametrize("units,mode,verdict", [
    ({"common": 1, "k-1-context": 8, "single-context": 1}, "full", "confirmed"),     # 9/10 = 0.9
    ({"common": 1, "k-1-context": 6, "single-context": 3}, "full", "partly"),        # 7/10 = 0.7
    ({"common": 1, "k-1-context": 5, "single-context": 4}, "full", "not borne out"),  # 6/10 = 0.6
    ({"common": 1, "k-1-context": 5, "single-context": 4}, "quick", "partly"),
    ({"common": 0, "k-1-context": 0, "single-context": 0}, "full", "not borne out"),  # 0/max(0, 1) = 0
])
def test_contexts_section5_units_row_grades_the_common_plus_k_minus_1_share(contexts, units, mode, verdict):
    """Section 5 units row: (common + (k−1)-context)/(all significant units), ≥ 0.9 confirmed, < 0.7 not
    borne out at full size; no units gives 0 (the max(·, 1) guard), not a division by zero."""
    row = _row(_ctx(contexts, mode, s5_units=units, hist=0.25)["claims"], "Section 5: ReLU networks")
    assert row["verdict"] == verdict
    share = (units["common"] + units["k-1-context"]) / max(sum(units.values()), 1)
    assert f"k=3: {share:.2f} (tested: confirmed if ≥ 0.9; not borne out if < 0.7" in row["agreement"]
    assert row["agreement"].endswith("(k−1)-context weight share k=3: 0.25")


def test_contexts_result_says_which_sizes_were_used(contexts):
    """The result's hyper_parameters: 'these (the paper's)' in full mode; in quick mode the quick sizes
    from the config (ReLU 350 units in Section 4, 100 in Section 5, GDLN modules of 25)."""
    assert _ctx(contexts, "full")["hyper_parameters"]["used_in_this_run"] == "these (the paper's)"
    q = _ctx(contexts, "quick")["hyper_parameters"]["used_in_this_run"]
    assert q.startswith("quick sizes: ReLU 350 units in Section 4 and 100 for every k in Section 5, GDLN modules of 25")
    res = _ctx(contexts, "quick")
    assert res["suite"] == "contexts" and res["mode"] == "quick"
    assert res["summary"]["section 5 worst GDLN vs joint race (a0 from init)"] == 0.01
    assert res["summary"]["gdln_vs_race_max_abs_error_over_L0 (no fit)"] == 0.25
    # docs/theory.md#paper-settings: Section 4 GDLN init std common 10 b, others 20 b, b = 0.0005/700
    assert res["hyper_parameters"]["gdln_init_std_section4"] == {"common": "10*b", "others": "20*b", "b": 0.0005 / 700}
    # Finding 3's figure says when only r = 1, k/2, k − 1 were raced (quick), not when every r was
    quick_note = " (quick: r = 1, k/2, k−1 only; the full run races every r)"
    assert quick_note in _row(_ctx(contexts, "quick", all_r=False)["claims"], "Finding 3")["ours"]
    assert quick_note not in _row(_ctx(contexts, "full", all_r=True)["claims"], "Finding 3")["ours"]
    # the private entries ('_curves', '_private') are left out of the result, the rest kept
    assert "_curves" not in res["section5"]["3"] and res["section5"]["3"]["a0_gdln_rule"] == 1.0
    assert "_private" not in res["race_section4"] and res["race_section4"]["winner"] == "w"


@pytest.mark.parametrize("gdln,relu,mode,verdict", [(0.05, 0.5, "full", "confirmed"), (0.06, 0.05, "full", "partly"),
                                                    (0.06, 0.051, "full", "not borne out"),
                                                    (0.06, 0.051, "quick", "partly")])
def test_contexts_fig5_thresholds_at_five_percent(contexts, gdln, relu, mode, verdict):
    """Fig. 5 row: 'confirmed if ≤ 0.05 without a fit; partly if ≤ 0.05 only with a0 fitted; not borne
    out otherwise at the paper's sizes' (its agreement text): 0.06 is over 0.05 (not confirmed), 0.051
    with a0 fitted is over 0.05 too."""
    row = _row(_ctx(contexts, mode, f5=(gdln, relu))["claims"], "Fig. 5 / App. F-G")
    assert row["verdict"] == verdict


def test_contexts_run_passes_the_mode_and_the_papers_hyper_parameters(contexts, monkeypatch, tmp_path):
    """contexts.run with every part stubbed: the parts read the mode's settings merged with the paper's
    hyper-parameters (η = 0.001, 8000 steps: docs/theory.md#paper-settings); quick keeps Section 5 at the
    paper's k = 3, 4, 5 (module comment), full adds k = 6; the race ranking and the r-families get the
    GDLN rule's context a0 from Section 4; the figures go to fig4a_loss.png, fig4b_singular_values.png,
    fig4c_mds.png, fig5_k_contexts.png in the output folder."""
    from theorykit.analysis import context_races as races
    from theorykit.analysis import context_runs as runs
    from theorykit.suites import load_package

    figs = __import__(load_package("validation").__name__ + ".contexts_figures", fromlist=["fig5"])
    seen = {}
    s4 = {"agreement": {"a0_rule_gdln": {"context": 3.5e-7}}}
    monkeypatch.setattr(races, "derivation", lambda out, cfg: seen.update(der=cfg) or {"_obj": "kres", "x": 1})
    monkeypatch.setattr(runs, "section4", lambda cfg, pr: s4)
    monkeypatch.setattr(runs, "snapshot_singular_values", lambda s, cfg: seen.update(snap=s is s4))
    monkeypatch.setattr(races, "race_ranking", lambda cfg, a0, pr: seen.update(rank_a0=a0) or "rank")
    monkeypatch.setattr(races, "r_families", lambda cfg, a0, pr: seen.update(rfam_a0=a0) or "rfam")
    monkeypatch.setattr(runs, "section5", lambda cfg, kres, pr: seen.update(s5=(sorted(cfg["sec5"]), kres)) or "s5")
    for name in ("fig4a", "fig4b", "fig4c", "fig5"):
        monkeypatch.setattr(figs, name, lambda data, path, *more, name=name: seen.setdefault("figs", []).append(
            (name, data, path)) or seen.setdefault("more", {}).update({name: more}) or name + "-data")
    monkeypatch.setattr(contexts, "_key_latex", lambda kres: "latex of " + kres)
    monkeypatch.setattr(contexts, "_assemble", lambda *a: a)
    for mode, ks in (("quick", [3, 4, 5]), ("full", [3, 4, 5, 6])):
        seen.clear()
        a = contexts.run(tmp_path, mode, progress=False)
        assert seen["der"]["eta"] == 0.001 and seen["der"]["steps"] == 8000
        assert seen["der"]["seeds"] == contexts.MODES[mode]["seeds"]
        assert seen["s5"] == (ks, "kres") and seen["snap"] is True
        assert seen["rank_a0"] == seen["rfam_a0"] == 3.5e-7
        assert [(n, p) for n, _, p in seen["figs"]] == [("fig4a", tmp_path / "fig4a_loss.png"),
                                                        ("fig4b", tmp_path / "fig4b_singular_values.png"),
                                                        ("fig4c", tmp_path / "fig4c_mds.png"),
                                                        ("fig5", tmp_path / "fig5_k_contexts.png")]
        assert seen["figs"][3][1] == "s5"
        # Fig. 4c also draws the row's controls (none in this stub: no MDS, no controls run)
        assert [len(m) for m in seen["more"].values()] == [0, 0, 1, 0]
        assert seen["more"]["fig4c"][0]["text"].startswith("no control gatings were run")
        assert a[:9] == (mode, contexts.MODES[mode], {"x": 1}, s4, "rank", "rfam", "s5", "fig4b-data", "fig4c-data")
        assert a[-1] == "latex of kres"


def test_contexts_modes_follow_the_rows_and_comments_that_describe_them(contexts):
    """contexts.MODES as the suite describes them: the residual row says the full run checks the residual
    'in exact arithmetic' and quick in floats; the Finding 3 row says quick races 'r = 1, k/2, k−1 only;
    the full run races every r'; the MODES comment: quick runs k = 3, 4, 5 in Section 5 and the
    r-families, full adds k = 6 to the r-families; quick: 2 seeds, 350 / 25 / 100 units, RK4 step 2,
    a 37-point a0 grid in Section 5."""
    q, f = contexts.MODES["quick"], contexts.MODES["full"]
    assert (q["exact_checks"], f["exact_checks"]) == (False, True)
    assert (q["rfamily_all_r"], f["rfamily_all_r"]) == (False, True)
    assert q["sec5_k"] == (3, 4, 5) and "sec5_k" not in f
    assert (q["rfamily_k"], f["rfamily_k"]) == ((3, 4, 5), (3, 4, 5, 6))
    assert (q["seeds"], q["relu_hidden4"], q["gdln_hidden"], q["sec5_hidden"], q["race_dt"], q["sec5_fit_grid"]) == \
        (2, 350, 25, 100, 2, 37)
    assert sorted(contexts.SEC5) == [3, 4, 5, 6] and contexts.SEC5[6] == {"gamma": 1.62, "hidden": 700}
    # docs/theory.md#paper-settings: Section 5 ReLU hidden 700 / 500 / 600 for k = 3 / 4 / 5; the context
    # one-hot scaled by γ = 1.1 for k = 4 and 1.35 for k = 5, k = 3 unscaled
    assert [contexts.SEC5[k]["hidden"] for k in (3, 4, 5)] == [700, 500, 600]
    assert [contexts.SEC5[k]["gamma"] for k in (3, 4, 5)] == [1, 1.1, 1.35]


def test_contexts_key_latex_prints_each_headline_equation(contexts):
    """_key_latex: the six headline equations of the symbolic-k derivation, each with sympy's LaTeX of
    the derived expressions (made-up expressions here; sympy.latex applied in the test)."""
    import types

    import sympy as sp

    a, b, c = sp.symbols("a b c")
    kres = types.SimpleNamespace(
        kminus1={"s": a / 2, "d_eff": b ** 2, "end_point": sp.sqrt(c)},
        common=({"s": a + 1, "d": b}, {"s": 2 * a, "d": b + 1}, {"s": 3 * a, "d": c}),
        residual={"loss_per_alpha": a * sp.Symbol(r"\tilde{\sigma}_\alpha") ** 2}, r_family={"s": a - b, "d_eff": c / 3})
    out = contexts._key_latex(kres)
    L = sp.latex
    assert out["(k-1)-context pathways on the residual"] == (rf"s_\alpha = {L(a / 2)},\quad d = {L(b ** 2)},\quad "
                                                             rf"s_\alpha/d = {L(sp.sqrt(c))}")
    # the structure's σ̃_α² is printed as the Frobenius norm of H̃ (sympy writes a σ̃_α^{2})
    assert L(kres.residual["loss_per_alpha"]) == r"\tilde{\sigma}_\alpha^{2} a"           # sympy's order
    assert out["residual of the common pathway"].endswith(r"L_{\rm res} = \lVert\tilde H\rVert_F^2 a")
    assert out["common pathway, centred items"] == rf"s = {L(a + 1)},\quad d = {L(b)}"
    assert out["common pathway, centred contexts (x(k-1))"] == rf"s = {L(2 * a)},\quad d = {L(b + 1)}"
    assert out["common pathway, grand mean"] == rf"s = {L(3 * a)},\quad d = {L(c)}"
    assert out["all r-context pathways"] == rf"s_\alpha = {L(a - b)},\quad d = {L(c / 3)}"


# ------------------------------------------------------------------------------------------------
# the runner (validation/__init__.py): cache entries, staging, non-finite paths, hashes
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def validation():
    from theorykit.suites import load_package

    return load_package("validation")


def _sha(b: bytes) -> str:
    import hashlib

    return hashlib.sha256(b).hexdigest()


def _cache_entry(out, name="alpha", key="k1", data=b'{"x": 1}\n', files=None, entry=None):
    import json

    out.mkdir(parents=True, exist_ok=True)
    (out / f"{name}.json").write_bytes(data)
    (out / ".cache").mkdir(exist_ok=True)
    e = entry if entry is not None else {"key": key, "json_sha256": _sha(data), "files": files or {}}
    (out / ".cache" / f"{name}.json").write_text(json.dumps(e))


def test_load_cached_needs_the_key_the_json_digest_and_every_figure_digest(validation, tmp_path):
    """load_cached's docstring: the cached result if the entry, the JSON and the figures are intact, else
    None. Digests here by hashlib directly. Each defect alone gives None: another key, an edited JSON,
    an edited figure, a missing figure, an entry that is not a dict, an entry that is not JSON."""
    out = tmp_path / "out"
    fig = b"\x89PNG figure"
    (tmp_path / "out").mkdir()
    (out / "a.png").write_bytes(fig)
    _cache_entry(out, files={"a.png": _sha(fig)})
    assert validation.load_cached(out, "alpha", "k1") == {"x": 1}
    assert validation.load_cached(out, "alpha", "k2") is None                   # another key
    assert validation.load_cached(out, "beta", "k1") is None                    # no entry at all
    (out / "a.png").write_bytes(fig + b"!")
    assert validation.load_cached(out, "alpha", "k1") is None                   # a figure edited
    (out / "a.png").unlink()
    assert validation.load_cached(out, "alpha", "k1") is None                   # a figure missing
    _cache_entry(out, files={})
    (out / "alpha.json").write_bytes(b'{"x": 2}\n')
    assert validation.load_cached(out, "alpha", "k1") is None                   # the JSON edited
    _cache_entry(out, entry=["k1"])
    assert validation.load_cached(out, "alpha", "k1") is None                   # not a dict
    (out / ".cache" / "alpha.json").write_text("{not json")
    assert validation.load_cached(out, "alpha", "k1") is None
    _cache_entry(out, data=b"[1, 2]\n")
    assert validation.load_cached(out, "alpha", "k1") == [1, 2]


def test_move_staged_moves_nested_files_and_lists_them_relative(validation, tmp_path):
    """_move_staged: every file under the stage goes to the same relative place under OUT (folders made),
    by rename (the inode is kept), and the list is the sorted relative POSIX paths of files only."""
    stage, out = tmp_path / "stage", tmp_path / "out"
    (stage / "sub" / "deeper").mkdir(parents=True)
    (stage / "b.png").write_bytes(b"b")
    (stage / "sub" / "a.json").write_bytes(b"a")
    (stage / "sub" / "deeper" / "c.txt").write_bytes(b"c")
    (stage / "empty").mkdir()
    ino = (stage / "sub" / "a.json").stat().st_ino
    out.mkdir()
    moved = validation._move_staged(stage, out)
    assert moved == ["b.png", "sub/a.json", "sub/deeper/c.txt"]
    assert (out / "sub" / "a.json").read_bytes() == b"a" and (out / "sub" / "a.json").stat().st_ino == ino
    assert (out / "sub" / "deeper" / "c.txt").read_bytes() == b"c" and not (stage / "b.png").exists()
    # a file two folders down whose folders do not exist under OUT yet: both are made
    (stage / "x" / "y").mkdir(parents=True)
    (stage / "x" / "y" / "z.txt").write_bytes(b"z")
    assert validation._move_staged(stage, out) == ["x/y/z.txt"] and (out / "x" / "y" / "z.txt").read_bytes() == b"z"


@pytest.mark.parametrize("obj,where", [
    ({"a": [1.0, float("nan")]}, "result['a'][1]"),
    ({"a": {"b": (0.0, 2.0, float("-inf"))}}, "result['a']['b'][2]"),
    ({"x": np.array([[1.0, 2.0], [np.inf, 3.0]])}, "result['x'][1, 0]"),
    ({"y": np.float64("nan")}, "result['y']"),
    ([1, 2.0, "nan"], None),                                   # a string is not a number
    ({"z": np.array([1, 2, 3])}, None),                        # an integer array is always finite
    ({"w": np.array([1.0, 2.0])}, None),
])
def test_nonfinite_path_names_the_first_bad_entry(validation, obj, where):
    """_nonfinite_path's docstring: where the first NaN or infinity sits (dict keys by repr, list and
    array indices by number); None where there is none."""
    assert validation._nonfinite_path(obj) == where


def test_json_text_refusal_names_where(validation):
    """_json_text refuses NaN before anything is written, and says where it is."""
    with pytest.raises(ValueError, match=r"at result\['claims'\]\[0\]\['v'\]$"):
        validation._json_text({"claims": [{"v": float("inf")}]})
    assert validation._json_text({"a": 1}) == '{\n  "a": 1\n}\n'


def test_hash_tree_skips_only_top_level_names_and_caches(validation, tmp_path):
    """_hash_tree: ``skip_dirs`` leaves out a top-level folder (not a nested folder of that name),
    ``skip_files`` a top-level file (not a nested file of that name), __pycache__ always; only files
    matching ``pattern`` count. Checked by whether editing a file changes the hash."""
    root = tmp_path / "pkg"
    for rel in ("a.py", "skip.py", "cli/x.py", "sub/cli/y.py", "sub/skip.py", "__pycache__/z.py", "notes.txt"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("0")

    def h():
        return validation._hash_tree(root, skip_dirs=("cli",), skip_files=("skip.py",))

    for rel, counts in (("a.py", True), ("skip.py", False), ("cli/x.py", False), ("sub/cli/y.py", True),
                        ("sub/skip.py", True), ("__pycache__/z.py", False), ("notes.txt", False)):
        before = h()
        (root / rel).write_text((root / rel).read_text() + "1")
        assert (h() != before) is counts, rel
    # a renamed file changes the hash (relative paths are hashed, not only contents)
    before = h()
    (root / "a.py").rename(root / "b.py")
    assert h() != before
    assert validation._hash_tree(root, pattern="*.txt") != validation._hash_tree(root)


def test_version_reads_installed_distributions():
    """installed_version (what the cache fingerprint and every result's record read): the installed
    version of a distribution, python-flint for 'flint', None if not installed."""
    from importlib.metadata import version

    from theorykit.io import installed_version

    assert installed_version("numpy") == version("numpy")
    assert installed_version("flint") == version("python-flint")
    assert installed_version("no-such-distribution-tk46") is None


def test_examples_dir_needs_spec_files_not_only_a_folder(validation, tmp_path, monkeypatch):
    """_examples_dir's docstring: the checkout's examples/, else the copy installed with the package; a
    candidate counts only if it is a folder holding *.toml files. Here the checkout-level examples/
    exists but holds no spec file, so the package's copy is the one; with neither, None."""
    import theorykit.spec.files as files

    pkg = tmp_path / "theorykit"
    (pkg / "spec").mkdir(parents=True)
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "notes.txt").write_text("not a spec")
    (pkg / "examples").mkdir()
    monkeypatch.setattr(files, "__file__", str(pkg / "spec" / "files.py"))
    assert validation._examples_dir() is None
    (pkg / "examples" / "a.toml").write_text("x = 1\n")
    assert validation._examples_dir() == (pkg / "examples").resolve()
    (tmp_path / "examples" / "b.toml").write_text("x = 2\n")
    assert validation._examples_dir() == (tmp_path / "examples").resolve()


def test_run_suites_refuses_an_unknown_mode_naming_it(validation, tmp_path):
    """run_suites: mode must be 'quick' or 'full' (a ValueError that names the bad value)."""
    with pytest.raises(ValueError, match="mode must be 'quick' or 'full', got 'fast'"):
        validation.run_suites(tmp_path / "out", "fast", [], progress=False)
    assert validation.run_suites(tmp_path / "out", "full", [], progress=False) == 0


def test_run_suites_records_a_non_dict_result_and_fills_suite_and_mode(validation, tmp_path, monkeypatch):
    """The runner: a suite returning something other than a dict is a failed suite (TypeError named in
    the error); a dict without 'suite' or 'mode' gets them; a staging folder left by an interrupted run
    is cleared before the suite runs; the cache entry records the digests of the moved files and of the
    result JSON (checked with hashlib)."""
    import json
    import types

    import theorykit.suites as suites_mod

    def suite(result, extra=None):
        def run(out_dir, mode, progress=True):
            assert not (out_dir / "stale.png").exists()       # left by an interrupted run: cleared
            (out_dir / "fig.png").write_bytes(b"fig")
            return result
        return types.SimpleNamespace(run=run, __file__=__file__)

    mods = {"good": suite({"claims": []}), "bad": suite([1, 2])}
    monkeypatch.setattr(suites_mod, "load_suite", lambda name: mods[name])
    out = tmp_path / "out"
    (out / ".staging" / "good").mkdir(parents=True)
    (out / ".staging" / "good" / "stale.png").write_bytes(b"old")
    assert validation.run_suites(out, "quick", ["bad"], progress=False, report=True) == 1
    res = json.loads((out / "results.json").read_text())
    assert res["failed"]["bad"]["error"] == "TypeError: suite 'bad' returned list, expected a dict"
    assert validation.run_suites(out, "quick", ["good"], progress=False) == 0
    one = json.loads((out / "good.json").read_text())
    assert (one["suite"], one["mode"]) == ("good", "quick")
    entry = json.loads((out / ".cache" / "good.json").read_text())
    assert entry["files"] == {"fig.png": _sha(b"fig")} and entry["mode"] == "quick"
    assert entry["json_sha256"] == _sha((out / "good.json").read_bytes()) and entry["suite"] == "good"
    assert not (out / ".staging").exists() and not (out / "stale.png").exists()


def test_section4_restrictions_by_numpy_and_equal_sigma_is_no_violation(lemmas, monkeypatch):
    """_section4_restrictions: σ₁ of a pathway's Σ_yx = Y G Xᵀ / P (docs/theory.md, effective dataset),
    here recomputed with numpy on the task's numbers for the common pathway (G = I): all features, and
    items only (the first 8 input rows). 'Never raises' allows equality: a σ₁ equal to the full one
    (patched: every σ₁ = 1) is no violation, while a failed interlacing check (patched) counts once
    per restriction: 3 pathways × 3 restrictions = 9."""
    import theorykit as tk
    import theorykit.theory.lemmas as tl

    X, Y = tk.contexts(8, 3, blocks=["hierarchy", "ring", "cross"]).numeric()
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    P = X.shape[1]
    res = lemmas._section4_restrictions()
    common = res["top_singular_values"]["all contexts"]
    assert common["all features"] == pytest.approx(np.linalg.svd(Y @ X.T / P, compute_uv=False)[0], rel=1e-12)
    assert common["items only"] == pytest.approx(np.linalg.svd(Y @ X[:8].T / P, compute_uv=False)[0], rel=1e-12)
    assert res["violations"] == 0 and set(res["top_singular_values"]) == {"all contexts", "contexts 1,2", "context 1"}
    monkeypatch.setattr(tl, "top_singular_value", lambda A: 1.0)
    assert lemmas._section4_restrictions()["violations"] == 0
    monkeypatch.setattr(tl, "interlacing_holds", lambda A, rows, cols: False)
    assert lemmas._section4_restrictions()["violations"] == 9


def test_positive_data_counts_a_re_averaged_drop_as_a_decrease(lemmas, monkeypatch):
    """On fixed draws (numpy's generator replaced: every size drawn is 1, every matrix of ones, every new
    datapoint x, y a zero vector, every gate on): X = Y = [[1]], S = YXᵀ = [[1]], σ₁ = 1, P = 1. By hand:
    a zero datapoint adds nothing, so σ₁ of the sum stays 1 (no decrease), the pathway with P = 2 fixed
    keeps Σ_yx = 1/2 (no decrease), the mixed-sign control stays 1; re-averaged over P + 1 = 2 it is
    1/2 < 1/1, a decrease in every case: decreases 0, 0, count, 0."""
    class Fixed:
        def __init__(self, seed=None):
            pass

        def integers(self, lo, hi=None, size=None):
            if hi is None:                        # rng_gate.integers(P): the datapoint forced on
                return 0
            if lo == 1 or isinstance(size, tuple):
                return np.ones(size, dtype=int)   # the sizes d, p, P, and the matrices X, Y, Xm, Ym
            return np.zeros(size, dtype=int)      # the added datapoint x, y (and xm, ym)

        def random(self, size=None):
            return np.zeros(size) if size is not None else 0.0

    monkeypatch.setattr(np.random, "default_rng", Fixed)
    res = lemmas._positive_data(7)
    assert res["decreases"] == {"sum_nonnegative": 0, "pathway_fixed_P_nonnegative": 0, "averaged_nonnegative": 7,
                                "sum_mixed_signs": 0}
    assert res["decrease_share"]["averaged_nonnegative"] == 1.0


# ------------------------------------------------------------------------------------------------
# contexts_figures: the numbers written beside the figures
# ------------------------------------------------------------------------------------------------
def _figures_module(monkeypatch):
    """validation.contexts_figures with its PNG writer replaced by one that only closes the figure
    (drawing a PNG takes seconds; the numbers written beside it are what these tests read)."""
    import matplotlib.pyplot as plt

    from theorykit.suites import load_package

    figs = __import__(load_package("validation").__name__ + ".contexts_figures", fromlist=["fig5"])
    written = []
    monkeypatch.setattr(figs, "write_figure", lambda fig, path, **kw: (written.append(path), plt.close(fig)))
    return figs, written


def test_fig5_json_holds_every_tenth_point_of_the_seed_means(tmp_path, monkeypatch):
    """contexts_figures.fig5: the JSON beside Fig. 5 keeps every 10th point ('every': 10) of the seeds'
    mean and std of the ReLU loss, the GDLN's seed mean and the closed forms and race as given; here
    recomputed with numpy on hand-made curves for k = 3 and 4."""
    import json

    figs, written = _figures_module(monkeypatch)
    rng = np.random.default_rng(0)
    t = np.arange(0, 250, 5.0)
    s5 = {kk: {"gamma": g, "_curves": {"t": t, "relu": rng.random((3, t.size)), "gdln": rng.random((2, t.size)),
                                        "closed_form": rng.random(t.size), "closed_form_fit": rng.random(t.size),
                                        "race": rng.random(t.size)}}
          for kk, g in (("3", 0.5), ("4", 1.25))}
    figs.fig5(s5, tmp_path / "fig5.png")
    assert written == [tmp_path / "fig5.png"]
    data = json.loads((tmp_path / "fig5.json").read_text())
    assert data["figure"] == "5" and data["every"] == 10 and sorted(data["k"]) == ["3", "4"]
    for kk, v in s5.items():
        c, d = v["_curves"], data["k"][kk]
        idx = np.arange(0, t.size, 10)                     # 0, 10, 20, 30, 40
        assert d["gamma"] == v["gamma"] and d["t"] == t[idx].tolist()
        np.testing.assert_allclose(d["relu_mean"], c["relu"][:, idx].mean(axis=0), rtol=1e-15)
        np.testing.assert_allclose(d["relu_std"], c["relu"][:, idx].std(axis=0), rtol=1e-15)
        np.testing.assert_allclose(d["gdln_joint_mean"], c["gdln"][:, idx].mean(axis=0), rtol=1e-15)
        assert d["closed_form_rule_a0"] == c["closed_form"][idx].tolist()
        assert d["closed_form_a0_fitted_to_relu"] == c["closed_form_fit"][idx].tolist()
        assert d["race_rule_a0"] == c["race"][idx].tolist()


def test_fig4a_json_holds_every_tenth_point_of_each_curve(tmp_path, monkeypatch):
    """contexts_figures.fig4a: the JSON beside Fig. 4a keeps every 10th point of the ReLU seeds' mean and
    std, each GDLN's seed mean (named gdln_<family>_<schedule>, spaces as '_'), the three races at the
    rule's a0 (each read at the figure's times), the fitted race and the staged theory; recomputed here
    with numpy on hand-made curves."""
    import json
    import types

    figs, written = _figures_module(monkeypatch)
    rng = np.random.default_rng(2)
    t = np.arange(0.0, 30.0)
    gdln = {key: rng.random((2, t.size)) for key in (("double", "joint"), ("double", "staged"), ("single", "joint"),
                                                     ("all seven", "joint"))}

    def race(scale):
        return types.SimpleNamespace(loss_at=lambda tt: scale * np.asarray(tt))

    s4 = {"t": t, "relu": rng.random((3, t.size)), "gdln": gdln,
          "race": {"double": race(1.0), "single": race(2.0), "all seven": race(3.0)},
          "fit_curve": rng.random(t.size), "staged": {"loss": rng.random(t.size), "note": "staged note"}}
    figs.fig4a(s4, tmp_path / "fig4a.png")
    assert written == [tmp_path / "fig4a.png"]
    d = json.loads((tmp_path / "fig4a.json").read_text())
    idx = [0, 10, 20]
    assert d["figure"] == "4a" and d["every"] == 10 and d["t"] == t[idx].tolist()
    np.testing.assert_allclose(d["relu_mean"], s4["relu"][:, idx].mean(0), rtol=1e-15)
    np.testing.assert_allclose(d["relu_std"], s4["relu"][:, idx].std(0), rtol=1e-15)
    for (nm, sch), L in gdln.items():
        np.testing.assert_allclose(d[f"gdln_{nm.replace(' ', '_')}_{sch}"], L[:, idx].mean(0), rtol=1e-15)
    assert d["race_double_rule_a0"] == [0.0, 10.0, 20.0] and d["race_single_rule_a0"] == [0.0, 20.0, 40.0]
    assert d["race_all_seven_rule_a0"] == [0.0, 30.0, 60.0]
    assert d["race_double_a0_fitted_to_relu"] == s4["fit_curve"][idx].tolist()
    assert d["staged_theory"] == s4["staged"]["loss"][idx].tolist() and d["staged_theory_note"] == "staged note"


def test_fig4c_summary_is_keyed_by_step_in_order(tmp_path, monkeypatch):
    """contexts_figures.fig4c: no MDS results → {} (no figure); else per step (as text, steps sorted as
    numbers) the two Procrustes disparities and the distance correlation, as given."""
    figs, written = _figures_module(monkeypatch)
    assert figs.fig4c({"mds": {}}, tmp_path / "none.png") == {} and not (tmp_path / "none.png").exists()
    rng = np.random.default_rng(1)

    def entry(a, b, c):
        return {"Z_relu": rng.random((24, 2)), "Z_reln": rng.random((24, 2)), "procrustes_disparity": a,
                "procrustes_disparity_all_dims": b, "distance_correlation": c}

    got = figs.fig4c({"mds": {8000: entry(0.1, 0.2, 0.9), 500: entry(0.3, 0.4, 0.5)}}, tmp_path / "fig4c.png")
    assert list(got) == ["500", "8000"]
    assert got["8000"] == {"procrustes_disparity": 0.1, "procrustes_disparity_all_dims": 0.2,
                           "distance_correlation": 0.9}
    assert (tmp_path / "fig4c.json").is_file() and written == [tmp_path / "fig4c.png"]


def test_runner_lines_on_stderr_follow_progress_but_failures_always_show(validation, tmp_path, monkeypatch, capsys):
    """run_suites' docstring: ``progress`` turns the runner's lines on stderr on or off; a failure is
    always reported (its line and the closing count of failed suites)."""
    import types

    import theorykit.suites as suites_mod

    def run_ok(out_dir, mode, progress=True):
        return {"claims": []}

    def run_bad(out_dir, mode, progress=True):
        raise RuntimeError("boom")

    mods = {"ok": types.SimpleNamespace(run=run_ok, __file__=__file__),
            "bad": types.SimpleNamespace(run=run_bad, __file__=__file__)}
    monkeypatch.setattr(suites_mod, "load_suite", lambda name: mods[name])
    assert validation.run_suites(tmp_path / "a", "quick", ["ok"], progress=False) == 0
    assert capsys.readouterr().err == ""
    assert validation.run_suites(tmp_path / "b", "quick", ["ok"], progress=True) == 0
    err = capsys.readouterr().err
    assert "[1/1] ok: running (quick)" in err and "[1/1] ok: done in" in err
    assert validation.run_suites(tmp_path / "b", "quick", ["ok"], progress=True) == 0
    assert "[1/1] ok: up to date, skipped" in capsys.readouterr().err
    assert validation.run_suites(tmp_path / "c", "quick", ["ok", "bad"], progress=False) == 1
    err = capsys.readouterr().err
    assert "[2/2] bad: FAILED after" in err and "RuntimeError: boom" in err and "1 suite(s) failed: bad" in err
    assert "ok:" not in err


# ------------------------------------------------------------------------------------------------
# defects the mutation check found (each test failed before its fix)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("files", [["a.png"], "a.png", 5])
def test_a_damaged_cache_entry_is_a_miss_not_a_crash(validation, tmp_path, files):
    """load_cached's docstring: the cached result if the entry is intact, else None. Defect: an entry
    whose 'files' was a list, a string or a number (not a mapping) raised AttributeError
    out of load_cached, and with it out of run_suites, instead of re-running the suite."""
    out = tmp_path / "out"
    _cache_entry(out, entry={"key": "k1", "json_sha256": _sha(b'{"x": 1}\n'), "files": files})
    assert validation.load_cached(out, "alpha", "k1") is None


def test_a_dead_cluster_is_labelled_dead(gates):
    """_label: a pattern off in every context is a dead cluster. Defect: it was labelled 'ctx' (the
    context prefix with no context), which reads as a truncated context name in Fig. 8's labels."""
    assert gates._label([0] * 24) == "dead"
    assert gates._label([0, 0, 0, 0], n=2, k=2) == "dead"


def test_contexts_fig5_draws_a_single_k(tmp_path):
    """fig5 draws one panel per k; with one k, matplotlib's subplots gave a bare Axes, which the panel loop
    could not iterate. Curves written by hand: every 10th of 21 steps goes to the JSON (steps 0, 10, 20)."""
    import json

    from theorykit.suites import load_package

    figs = __import__(load_package("validation").__name__ + ".contexts_figures", fromlist=["fig5"])
    t = np.arange(21.0)
    curve = np.exp(-t / 10)
    s5 = {"3": {"gamma": 1.0, "_curves": {"t": t, "relu": np.stack([curve, curve]), "gdln": np.stack([curve]),
                                           "closed_form": curve, "closed_form_fit": curve, "race": curve}}}
    figs.fig5(s5, tmp_path / "fig5.png")
    assert (tmp_path / "fig5.png").read_bytes()[:4] == b"\x89PNG"
    data = json.loads((tmp_path / "fig5.json").read_text())
    assert list(data["k"]) == ["3"] and data["k"]["3"]["t"] == [0.0, 10.0, 20.0]
