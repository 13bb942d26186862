"""Rules of the suites' run helpers, the depth suite's measurements, the LaTeX of a derivation and
the result-file writers that a mutation check of analysis/_runs.py, analysis/depth_runs.py,
theory/latex.py and io.py found unpinned: each test kills a mutant that the other tests let through.

The depth measurements (:func:`run_statistics`, :func:`relu_gating`, :func:`compare_curves`) are fed
runs written by hand (loss curves, alignment records, gate snapshots, tiny weights) whose crossing
times, R² values and shares are worked out in the comments. The LaTeX is read against the numbers
of a one-datapoint task derived by hand, the trainings against numpy, and the writers against the
bytes they must leave on disk. Every expected value is derived by hand or by a second method (numpy
written out here), never taken from a run of the code under test.
"""
from __future__ import annotations

import math
import types

import numpy as np
import pytest

from theorykit.analysis.depth_runs import compare_curves, relu_gating, run_statistics, section6_gates


# ------------------------------------------------------------------------------------------------
# depth_runs: the Section 6 gates
# ------------------------------------------------------------------------------------------------
def test_section6_gates_for_two_contexts_by_hand():
    """k = 2, 1 item per context: the common pathway (all on), then the pathway off in the last
    context, then the one off in the first (``reversed(range(k))``): rows (1,1), (1,0), (0,1)."""
    assert section6_gates(1, 2).tolist() == [[1, 1], [1, 0], [0, 1]]
    assert section6_gates().shape == (4, 24)           # defaults: 8 items × 3 contexts, 4 pathways


# ------------------------------------------------------------------------------------------------
# depth_runs: run statistics on runs written by hand
# ------------------------------------------------------------------------------------------------
T_CK = np.array([0.0, 2.0, 4.0, 6.0])                 # checkpoints of a 6-step run (loss has 7 columns)


def _loss(ck_rows, junk=100.0):
    """A seeds × 7 loss whose checkpoint columns (0, 2, 4, 6) are ``ck_rows``; the other columns hold
    ``junk``, so reading the loss at a step that is not a checkpoint shows."""
    ck_rows = np.asarray(ck_rows, float)
    L = np.full((ck_rows.shape[0], 7), junk)
    L[:, T_CK.astype(int)] = ck_rows
    return L


def _rec(cos_in, cos_out, e_in, e_out):
    """seeds × checkpoints × [cos_in, cos_out, energy_in, energy_out]."""
    return np.stack([np.asarray(cos_in, float), np.asarray(cos_out, float), np.asarray(e_in, float),
                     np.asarray(e_out, float)], axis=-1)


def test_run_statistics_three_aligned_runs_by_hand():
    """Four runs, align = 0.9.

    Alignment (first checkpoint with min(cos_in, cos_out) ≥ 0.9): run 0 at t = 2 (cos_out 0.9 is
    the smaller and counts, ≥), run 1 at 4 (cos_in binds), run 2 at 6, run 3 never (NaN).
    Top-4 energies: run 0 at 4, run 1 at 4, run 2 never, run 3 at 2 (energy_out binds).
    So 3 aligned runs, 3 aligned4 runs, 2 aligned in both.

    Loss at the checkpoints: 8, then 2 + ta, 1 + ta/2, (2 + ta)/4 for the aligned runs (every
    non-constant checkpoint is exactly linear in ta: R² = 1 at each, so weighted R² = 1); run 3
    stays at 7. Across the aligned runs the variance is largest at checkpoint 1 (var(4, 6, 8) = 8/3
    against var(2, 3, 4) = 2/3 and var(1, 1.5, 2) = 1/6): t_max_var = 2.
    Halving (first checkpoint with L ≤ 4): run 0 at 2, run 1 at 4 (3 ≤ 4), run 2 at 4 (4 ≤ 4), run 3
    never. R² of half = (2, 4, 4) on ta = (2, 4, 6): slope cov/var = (4/3)/(8/3) = 1/2, fitted
    (7/3, 10/3, 13/3), residuals (−1, 2, −1)/3, SS_res = 2/3, SS_tot = 8/3: R² = 3/4.
    Fewer than 4 runs aligned in both: no r2_weighted_both. Final loss: the last column.
    Spread: at checkpoint 3 the values (1, 1.5, 2, 7) have mean 2.875 and population variance
    23.1875/4 (deviations −1.875, −1.375, −0.875, 4.125); that std/mean (0.84) is the largest (at
    checkpoint 2: (2, 3, 4, 7), std √3.5 over mean 4 = 0.47; at checkpoint 1 0.24; at 0 zero)."""
    ck = [[8, 4, 2, 1], [8, 6, 3, 1.5], [8, 8, 4, 2], [8, 7, 7, 7]]
    rec = _rec(cos_in=[[0, 0.95, 1, 1], [0, 0.5, 0.92, 1], [0, 0, 0.5, 0.99], [1, 1, 1, 1]],
               cos_out=[[0, 0.9, 1, 1], [0, 1, 1, 1], [0, 1, 1, 1], [0.5, 0.8, 0.89, 0.5]],
               e_in=[[0, 0, 0.95, 1], [0, 0.95, 0.95, 0.95], [0, 0, 0, 0.8], [1, 1, 1, 1]],
               e_out=[[0, 0.5, 0.9, 1], [0.5, 0.8, 0.91, 1], [1, 1, 1, 1], [0, 0.99, 1, 1]])
    r = types.SimpleNamespace(loss=_loss(ck), recorded=rec)
    s = run_statistics(r, T_CK, 0.9)
    np.testing.assert_array_equal(s["t_align"], [2.0, 4.0, 6.0, np.nan])
    np.testing.assert_array_equal(s["t_align4"], [4.0, 4.0, np.nan, 2.0])
    np.testing.assert_array_equal(s["t_half_loss"], [2.0, 4.0, 4.0, np.nan])
    np.testing.assert_array_equal(s["final_loss"], [1, 1.5, 2, 7])
    assert (s["aligned_runs"], s["aligned4_runs"], s["aligned_both_runs"]) == (3, 3, 2)
    assert s["r2_weighted"] == pytest.approx(1.0, abs=1e-12)
    assert s["r2_at_max_var"] == pytest.approx(1.0, abs=1e-12)
    assert s["t_max_var"] == 2.0
    assert s["r2_half_time"] == pytest.approx(0.75, rel=1e-12)
    assert s["r2_curve"].shape == (4,) and np.isnan(s["r2_curve"][0])      # checkpoint 0: no variance
    np.testing.assert_allclose(s["r2_curve"][1:], 1.0, atol=1e-12)
    assert "r2_weighted_both" not in s and "r2_weighted_align4" not in s
    assert s["loss_rel_spread_max"] == pytest.approx(math.sqrt(23.1875 / 4) / 2.875, rel=1e-12)
    # the stereotypical run, by the docstring's rule written out: nearest the mean curve in log loss
    lg = np.log(np.asarray(ck, float))
    assert s["stereotypical_run"] == int(np.argmin(np.sqrt(((lg - lg.mean(0)) ** 2).mean(1))))


def test_run_statistics_r2_needs_three_aligned_runs_that_differ():
    """The R² summaries need at least 3 aligned runs with different alignment times: 2 aligned runs
    (run 2 never aligns) give none, and 3 aligned at the same time (std 0) give none either. A
    half time that is never reached by an aligned run makes r2_half_time None (not NaN)."""
    ck = [[8, 4, 2, 1], [8, 6, 3, 1.5], [8, 8, 8, 8]]
    ones, zeros = np.ones((3, 4)), np.zeros((3, 4))
    early = [[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 0]]                       # ta = 2, 4, never
    s = run_statistics(types.SimpleNamespace(loss=_loss(ck), recorded=_rec(early, ones, zeros, zeros)), T_CK, 0.9)
    assert s["aligned_runs"] == 2 and "r2_weighted" not in s and "r2_curve" not in s
    same = [[0, 1, 1, 1]] * 3                                                 # ta = 2, 2, 2
    s = run_statistics(types.SimpleNamespace(loss=_loss(ck), recorded=_rec(same, ones, zeros, zeros)), T_CK, 0.9)
    assert s["aligned_runs"] == 3 and "r2_weighted" not in s
    three = [[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1]]                        # ta = 2, 4, 6; run 2 never halves
    s = run_statistics(types.SimpleNamespace(loss=_loss(ck), recorded=_rec(three, ones, zeros, zeros)), T_CK, 0.9)
    assert "r2_weighted" in s and s["r2_half_time"] is None
    assert s["aligned4_runs"] == 0 and s["aligned_both_runs"] == 0


def test_run_statistics_both_alignments_by_hand():
    """Four runs aligned in both senses: ta = (2, 2, 4, 6), ta4 = (2, 4, 4, 6); the loss varies only
    at checkpoint 1, where it is ta + ta4 = (4, 6, 8, 12) (elsewhere constant: no variance, left out).
    On (ta, ta4) together the fit is exact: R² = 1. On ta4 alone: dx = (−2, 0, 0, 2),
    dy = (−3.5, −1.5, 0.5, 4.5), R² = cov²/(var_x var_y) = 16²/(8·35) = 32/35. On ta alone:
    dx = (−1.5, −1.5, 0.5, 2.5), Σdx dy = 19, Σdx² = 11: R² = 19²/(11·35) = 361/385.
    With exactly 3 runs aligned in both (run 3's top-4 energies never reach 0.9) there is no
    combined R²; with the four but equal ta4 there is none either."""
    ta_cos = [[0, 1, 1, 1], [0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1]]
    ta4_e = [[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1]]
    ck = [[8, 4, 3, 2], [8, 6, 3, 2], [8, 8, 3, 2], [8, 12, 3, 2]]
    ones = np.ones((4, 4))
    r = types.SimpleNamespace(loss=_loss(ck), recorded=_rec(ta_cos, ones, ta4_e, ones))
    s = run_statistics(r, T_CK, 0.9)
    np.testing.assert_array_equal(s["t_align"], [2, 2, 4, 6])
    np.testing.assert_array_equal(s["t_align4"], [2, 4, 4, 6])
    assert s["aligned_both_runs"] == 4
    assert s["r2_weighted_both"] == pytest.approx(1.0, rel=1e-12)
    assert s["r2_weighted_align4"] == pytest.approx(32 / 35, rel=1e-12)
    assert s["r2_weighted"] == pytest.approx(361 / 385, rel=1e-12)
    never4 = np.array(ta4_e, float)
    never4[3] = 0
    s = run_statistics(types.SimpleNamespace(loss=_loss(ck), recorded=_rec(ta_cos, ones, never4, ones)), T_CK, 0.9)
    assert s["aligned_both_runs"] == 3 and "r2_weighted_both" not in s and "r2_weighted" in s
    flat4 = [[0, 1, 1, 1]] * 4
    s = run_statistics(types.SimpleNamespace(loss=_loss(ck), recorded=_rec(ta_cos, ones, flat4, ones)), T_CK, 0.9)
    assert s["aligned_both_runs"] == 4 and "r2_weighted_align4" not in s


# ------------------------------------------------------------------------------------------------
# depth_runs: how ReLU runs gate, on weights and snapshots written by hand
# ------------------------------------------------------------------------------------------------
def test_relu_gating_by_hand():
    """X = I₃ (3 contexts of one item), three seeds of a [3, 2, 1, 1] ReLU network (3 seeds and
    2 units, so the seed axis is not the unit axis).

    Seed 0: W1 rows (1, 1, 1) and (1, −1, −1): unit 0 is on for every datapoint, unit 1 for the
    first only. Both live, one all-on: share 1/2. Unit weights ‖w1_u‖·‖W2[:, u]‖ = √3·1 each, so the
    all-on weight share is 1/2 and the weighted on-fraction (1 + 1/3)/2 = 2/3. Second layer:
    W2 relu(W1 X) = (1, 1, 1) + (1, 0, 0) = (2, 1, 1) > 0 in every block: common, share 1.
    Seeds 1 and 2: W1 rows (1, 1, 1) and (2, 2, 2): both all-on (1, 1, 1), W2 = (1, −1) gives
    (1 − 2)·(1, 1, 1) < 0: the second-layer unit is silent ("none", share 1).
    Means over seeds: (1/2 + 1 + 1)/3 = 5/6 (units and weight), (2/3 + 1 + 1)/3 = 8/9; common 1/3,
    none 2/3, double and single 0.

    Snapshots (seeds × 2 times × 2 units × 3 datapoints): seed 0 at t0 has unit 1 dead (off
    everywhere), so the share of live units on for all datapoints is 1/1 (dead units are not
    counted); at t1 1/2. Seed 1 at t0: both all-on, 1; at t1 unit 0 on for one datapoint and unit 1
    dead: 0/1 = 0. Seed 2 at t0: both all-on, 1; at t1 no unit is live: 0 (not 0/0).
    Over seeds: (1, 1/6), whose maximum is 1."""
    W1 = np.array([[[1.0, 1, 1], [1, -1, -1]], [[1, 1, 1], [2, 2, 2]], [[1, 1, 1], [2, 2, 2]]])
    W2 = np.array([[[1.0, 1]], [[1, -1]], [[1, -1]]])
    W3 = np.ones((3, 1, 1))
    snaps = np.zeros((3, 2, 2, 3), bool)
    snaps[0, 0, 0] = True
    snaps[0, 1, 0] = True
    snaps[0, 1, 1, 0] = True
    snaps[1, 0] = True
    snaps[1, 1, 0, 2] = True
    snaps[2, 0] = True
    relu = types.SimpleNamespace(params=[W1, W2, W3], snapshots=snaps)
    gating, all_on_t = relu_gating(relu, np.eye(3))
    np.testing.assert_allclose(all_on_t, [1.0, 1 / 6], rtol=1e-12)
    assert gating["first_all_on_units_mean"] == pytest.approx(5 / 6, rel=1e-12)
    assert gating["first_all_on_weight_mean"] == pytest.approx(5 / 6, rel=1e-12)
    assert gating["first_on_fraction_weighted_mean"] == pytest.approx(8 / 9, rel=1e-12)
    assert gating["first_all_on_units_max_over_time"] == 1.0
    assert gating["second_weight_share_mean"] == pytest.approx({"common": 1 / 3, "double": 0.0, "single": 0.0,
                                                                "none": 2 / 3}, rel=1e-12, abs=1e-15)


# ------------------------------------------------------------------------------------------------
# depth_runs: the curve comparison on curves written by hand
# ------------------------------------------------------------------------------------------------
def test_compare_curves_by_hand():
    """Checkpoints 0, 2, 4, 6 of 6-step runs. At the checkpoints:
    ReLU runs (4, 2, 1, 0.5), (4, 4, 2, 1): mean rm = (4, 3, 1.5, 0.75), L0 = rm[0] = 4;
    GDLN runs (4, 2, 2, 1), (4, 2, 1, 1): mean gm = (4, 2, 1.5, 1);
    wide GDLN (4, 1, 1, 1), (4, 3, 1, 0.6): mean wm = (4, 2, 1, 0.8);
    mode ODE (4, 3.5, 2, 1); GDLN flow (4, 2.5, 0.06, 0.03).
    Stereotypical ReLU run 1 (4, 4, 2, 1), GDLN run 0 (4, 2, 2, 1).
    Gaps over L0 = 4 (largest |a − b|): stereo 2/4; rm−gm 1/4; ode−rm 0.5/4; ode−gm 1.5/4;
    flow−gm 1.44/4; flow−stereo GDLN 1.94/4; flow−rm 1.44/4; wm−rm 1/4.
    Halving (≤ 2): rm at 4, gm at 2, wm at 2, ode at 4, flow at 4. 1 % (≤ 0.04): only the flow, at 6
    (its 0.06 at t = 4 is within 2 % but not 1 %).
    Level times (levels 2, 1, 0.4, 0.2): flow 4, 4, 4, 4; GDLN runs 50 %: (2, 2) → 2, 25 %:
    (6, 4) → median 5, 10 %: neither → NaN; ReLU runs 50 %: (2, 4) → 3, 25 %: (4, 6) → 5, 10 %: NaN;
    ODE 4, 6, NaN, NaN. Finals: flow 0.03, ODE 1, rm 0.75, gm 1, wide mean (1 + 0.6)/2 = 0.8."""
    relu = types.SimpleNamespace(loss=_loss([[4, 2, 1, 0.5], [4, 4, 2, 1]]))
    gd = types.SimpleNamespace(loss=_loss([[4, 2, 2, 1], [4, 2, 1, 1]]))
    gdw = types.SimpleNamespace(loss=_loss([[4, 1, 1, 1], [4, 3, 1, 0.6]]))
    ode, flow = np.array([4, 3.5, 2, 1.0]), np.array([4, 2.5, 0.06, 0.03])
    rm, gm, wm, c = compare_curves(relu, gd, gdw, ode, flow, T_CK, 1, 0)
    np.testing.assert_allclose(rm, [4, 3, 1.5, 0.75], rtol=1e-15)
    np.testing.assert_allclose(gm, [4, 2, 1.5, 1], rtol=1e-15)
    np.testing.assert_allclose(wm, [4, 2, 1, 0.8], rtol=1e-15)
    want = {"stereo_relu_vs_gdln_max_rel": 0.5, "mean_relu_vs_gdln_max_rel": 0.25, "ode_vs_relu_mean_max_rel": 0.125,
            "ode_vs_gdln_mean_max_rel": 0.375, "flow_vs_gdln_mean_max_rel": 1.44 / 4,
            "flow_vs_gdln_stereo_max_rel": 1.94 / 4, "flow_vs_relu_mean_max_rel": 1.44 / 4, "flow_final": 0.03,
            "wide_gdln_vs_relu_mean_max_rel": 0.25, "gdln_wide_final_mean": 0.8, "ode_final": 1.0,
            "relu_final_mean": 0.75, "gdln_final_mean": 1.0}
    for k, v in want.items():
        assert c[k] == pytest.approx(v, rel=1e-12), k
    assert c["t_half"] == {"relu_mean": 4.0, "gdln_mean": 2.0, "gdln_wide_mean": 2.0, "mode_ode": 4.0,
                           "gdln_flow": 4.0}
    assert c["t_1pct"]["gdln_flow"] == 6.0
    assert all(np.isnan(c["t_1pct"][k]) for k in ("relu_mean", "gdln_mean", "gdln_wide_mean", "mode_ode"))
    lv = c["level_times"]
    assert list(lv) == ["50%", "25%", "10%", "5%"]
    assert [lv[k]["gdln_flow"] for k in lv] == [4.0, 4.0, 4.0, 4.0]
    assert [lv["50%"]["gdln_runs"], lv["25%"]["gdln_runs"]] == [2.0, 5.0] and np.isnan(lv["10%"]["gdln_runs"])
    assert [lv["50%"]["relu_runs"], lv["25%"]["relu_runs"]] == [3.0, 5.0] and np.isnan(lv["10%"]["relu_runs"])
    assert [lv["50%"]["mode_ode"], lv["25%"]["mode_ode"]] == [4.0, 6.0] and np.isnan(lv["5%"]["mode_ode"])


# ------------------------------------------------------------------------------------------------
# latex: the derivation of a two-datapoint task, by hand
# ------------------------------------------------------------------------------------------------
def _tiny(loss="mean", name="spec", lr=0.5):
    """X = I₂ (P = 2), Y = (2, 4). Pathway ``my_path`` is on for datapoint 1 only, ``fast`` for
    datapoint 2 only, both see every input and write the one output; they share no datapoint, so
    they are not coupled and the closed form applies. With Σ^yx_p = ⟨g y xᵀ⟩ = (1/P) Σ_μ g_μ y_μ x_μᵀ:
    my_path: Σ^yx = ½·2·e₁ᵀ = (1, 0), Σ^x = ½ e₁e₁ᵀ = diag(½, 0): s = 1, v = e₁, d = ½;
    fast:    Σ^yx = ½·4·e₂ᵀ = (0, 2), Σ^x = diag(0, ½):           s = 2, v = e₂, d = ½.
    tr Σ^y = ½(2² + 4²) = 10."""
    import sympy as sp

    import theorykit as tk

    task = tk.Task(sp.eye(2), sp.Matrix([[2, 4]]), name="tiny_task")
    paths = [tk.Pathway("my_path", (1, 0)), tk.Pathway("fast", (0, 1))]
    return tk.Derivation(tk.GDLNSpec(task, paths, tk.Training(lr=lr, loss=loss, a0=1e-3), name=name))


MAT_I2 = r"\left[\begin{matrix}1 & 0\\0 & 1\end{matrix}\right]"      # sympy's LaTeX of a matrix


def test_derivation_latex_of_a_tiny_task_by_hand():
    """Every section of the document for ``_tiny``: sizes, matrices, the loss convention, the gates
    and index lists, the effective datasets, the modes (s, d, v), the closed form, the ranking
    (fast: s₁ = 2 before my_path: s₁ = 1) and τ = 1/η = 2 steps; underscores escaped for LaTeX."""
    import sympy as sp

    der = _tiny()
    tex = der.latex()
    assert r"$P = 2$ datapoints (columns), inputs $X\in\mathbb{R}^{2\times 2}$, targets $Y\in\mathbb{R}^{1\times 2}$." in tex
    assert r"\[ X = " + MAT_I2 + r",\qquad Y = \left[\begin{matrix}2 & 4\end{matrix}\right] \]" in tex
    assert (r"Loss $L = \tfrac{1}{2P}\sum_\mu \lVert y_\mu - \hat y_\mu\rVert^2$, $\Sigma^{y} = \langle y y^\top"
            r"\rangle$ with $\operatorname{tr}\Sigma^y = 10$.") in tex
    assert "summed loss" not in tex
    assert r"\paragraph{my\_path} gate $g = (1,0)$, inputs [0, 1], outputs [0]." in tex
    assert r"\paragraph{fast} gate $g = (0,1)$, inputs [0, 1], outputs [0]." in tex
    assert (r"\[ \Sigma^{yx}_{\mathrm{my\_path}} = \left[\begin{matrix}1 & 0\end{matrix}\right],\qquad "
            r"\Sigma^{x}_{\mathrm{my\_path}} = \left[\begin{matrix}\frac{1}{2} & 0\\0 & 0\end{matrix}\right] \]") in tex
    assert (r"\paragraph{my\_path} \begin{align*}s_{1} &= 1, & d_{1} &= \frac{1}{2}, & "
            r"v_{1}^\top &= \left[\begin{matrix}1 & 0\end{matrix}\right]\end{align*}") in tex
    assert (r"\paragraph{fast} \begin{align*}s_{1} &= 2, & d_{1} &= \frac{1}{2}, & "
            r"v_{1}^\top &= \left[\begin{matrix}0 & 1\end{matrix}\right]\end{align*}") in tex
    assert "Coupled pairs" not in tex and "Assumption 2.1 fails" not in tex
    assert r"Method: \textbf{closed-form}. " in tex
    assert r"\subsection*{4. Trajectories}" in tex and r"\subsection*{5. Loss}" in tex
    # t½ = τ/(2s)·ln(s/(d a0) − 1) (symbols τ, a0), with d = ½: at τ = 2, a0 = 10⁻³ that is
    # ln(1999) (my_path) and ln(3999)/2 (fast)
    for n, want in (("my_path", math.log(1999)), ("fast", math.log(3999) / 2)):
        th = der.t_half[n][0]
        at = {s: {"tau": 2, "a_0": sp.Rational(1, 1000)}[s.name] for s in th.free_symbols}
        assert float(th.subs(at)) == pytest.approx(want, rel=1e-12)
        assert r"\[ t_{1/2}(\mathrm{" + n.replace("_", r"\_") + "}) = " + sp.latex(th) + r" \]" in tex
    assert (r"\[ L(t) = \tfrac12\operatorname{tr}\Sigma^y - \sum_p\sum_\alpha \left(s_\alpha a_\alpha(t) "
            r"- \tfrac12 d_\alpha a_\alpha(t)^2\right) \]") in tex
    assert r"\[ L(t) = " + sp.latex(der.loss) + r" \]" in tex
    assert r"$1.\ \mathrm{fast}: s_1 = 2$, $2.\ \mathrm{my\_path}: s_1 = 1$ (fastest first)." in tex
    assert r"Here $\tau = 2$ steps and $a_0 = 0.001$." in tex
    assert r"\documentclass" not in tex                   # a body, not a document


def test_derivation_latex_whole_body_of_the_tiny_task():
    """The whole body for ``_tiny``, piece by piece in order, joined by blank lines: the fixed prose
    of each section (the closed form is docs/theory.md's logistic a(t) and its t½), the numbers of
    ``_tiny``'s docstring, and t½ and L(t) as sympy prints the derivation's expressions."""
    import sympy as sp

    der = _tiny()
    th = {n: sp.latex(der.t_half[n][0]) for n in ("my_path", "fast")}
    parts = [
        r"\subsection*{1. Task}",
        r"$P = 2$ datapoints (columns), inputs $X\in\mathbb{R}^{2\times 2}$, targets $Y\in\mathbb{R}^{1\times 2}$.",
        r"\[ X = " + MAT_I2 + r",\qquad Y = \left[\begin{matrix}2 & 4\end{matrix}\right] \]",
        r"Loss $L = \tfrac{1}{2P}\sum_\mu \lVert y_\mu - \hat y_\mu\rVert^2$, $\Sigma^{y} = \langle y y^\top\rangle$"
        r" with $\operatorname{tr}\Sigma^y = 10$.",
        r"\subsection*{2. Pathways and effective datasets}",
        r"$\Sigma^{yx}_p = \langle g_p\, y_{t(p)} x_{s(p)}^\top\rangle$, "
        r"$\Sigma^{x}_{p} = \langle g_p\, x_{s(p)} x_{s(p)}^\top\rangle$.",
        r"\paragraph{my\_path} gate $g = (1,0)$, inputs [0, 1], outputs [0].",
        r"\[ \Sigma^{yx}_{\mathrm{my\_path}} = \left[\begin{matrix}1 & 0\end{matrix}\right],\qquad "
        r"\Sigma^{x}_{\mathrm{my\_path}} = \left[\begin{matrix}\frac{1}{2} & 0\\0 & 0\end{matrix}\right] \]",
        r"\paragraph{fast} gate $g = (0,1)$, inputs [0, 1], outputs [0].",
        r"\[ \Sigma^{yx}_{\mathrm{fast}} = \left[\begin{matrix}0 & 2\end{matrix}\right],\qquad "
        r"\Sigma^{x}_{\mathrm{fast}} = \left[\begin{matrix}0 & 0\\0 & \frac{1}{2}\end{matrix}\right] \]",
        r"\subsection*{3. Modes (exact SVD)}",
        r"$\Sigma^{yx}_p = \sum_\alpha s_\alpha u_\alpha v_\alpha^\top$, sorted descending, first non-zero "
        r"entry of $v_\alpha$ positive; $d_\alpha = v_\alpha^\top \Sigma^x_p v_\alpha$.",
        r"\paragraph{my\_path} \begin{align*}s_{1} &= 1, & d_{1} &= \frac{1}{2}, & "
        r"v_{1}^\top &= \left[\begin{matrix}1 & 0\end{matrix}\right]\end{align*}",
        r"\paragraph{fast} \begin{align*}s_{1} &= 2, & d_{1} &= \frac{1}{2}, & "
        r"v_{1}^\top &= \left[\begin{matrix}0 & 1\end{matrix}\right]\end{align*}",
        r"\subsection*{4. Trajectories}",
        r"Method: \textbf{closed-form}. ",
        r"Each mode obeys $\tau \dot a = 2a(s - d a)$, solved by "
        r"\[ a(t) = \frac{s/d}{1 + \left(\frac{s}{d a_0} - 1\right) e^{-2 s t/\tau}},\qquad "
        r"t_{1/2} = \frac{\tau}{2s}\ln\!\left(\frac{s}{d a_0} - 1\right). \]",
        r"\[ t_{1/2}(\mathrm{my\_path}) = " + th["my_path"] + r" \]",
        r"\[ t_{1/2}(\mathrm{fast}) = " + th["fast"] + r" \]",
        r"\subsection*{5. Loss}",
        r"\[ L(t) = \tfrac12\operatorname{tr}\Sigma^y - \sum_p\sum_\alpha \left(s_\alpha a_\alpha(t) "
        r"- \tfrac12 d_\alpha a_\alpha(t)^2\right) \]",
        r"\[ L(t) = " + sp.latex(der.loss) + r" \]",
        r"\subsection*{Ranking by speed}",
        r"$1.\ \mathrm{fast}: s_1 = 2$, $2.\ \mathrm{my\_path}: s_1 = 1$ (fastest first).",
        r"Here $\tau = 2$ steps and $a_0 = 0.001$.",
    ]
    assert der.latex() == "\n\n".join(parts)


def test_derivation_latex_lists_several_modes_and_several_coupled_pairs():
    """X = I₂, Y = diag(2, 4), one pathway on for both datapoints: Σyx = ½Y = diag(1, 2), Σx = ½I,
    so s = (2, 1) (descending), d = (½, ½): the short form lists both, comma-separated.
    Three pathways a (both datapoints), b (the second), c (the first), all writing both outputs:
    a–b share datapoint 2, a–c datapoint 1, b–c none, so two coupled pairs, comma-separated."""
    import re

    import sympy as sp

    import theorykit as tk

    task = tk.Task(sp.eye(2), sp.diag(2, 4), name="t")
    der = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("p", (1, 1))], tk.Training(lr=0.5)))
    assert der._repr_latex_() == (r"$\begin{aligned}\mathrm{p}: & s = (2, 1), & d = (\frac{1}{2}, \frac{1}{2})"
                                  r"\end{aligned}\quad(\text{closed-form})$")
    three = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("a", (1, 1)), tk.Pathway("b", (0, 1)), tk.Pathway("c", (1, 0))],
                                      tk.Training(lr=0.5)))
    tex = three.latex()
    assert re.search(r"Coupled pairs \(shared outputs and datapoints\): \(a, [bc]\), \(a, [bc]\)\.\n\n", tex)


def test_derivation_latex_of_a_summed_loss_and_a_document():
    """Summed loss (P = 2, η = 0.5): τ = 1/(Pη) = 1, the displayed loss is 2 × (½ tr Σy − …), and the
    note says so. As a document: the preamble, then the title from the task's name when the spec is
    unnamed ("spec"), else the spec's name, underscores escaped, and the document closed."""
    tex = _tiny("sum").latex()
    assert r"(times $P$: summed loss)" in tex
    assert r"\[ L(t) = 2\Big(\tfrac12\operatorname{tr}\Sigma^y" in tex and r"\right)\Big) \]" in tex
    assert r"Here $\tau = 1$ steps" in tex
    doc = _tiny().latex(document=True)
    assert doc.startswith("\\documentclass[11pt]{article}\n\\usepackage{amsmath,amssymb}\n")
    assert "\\begin{document}\n\\section*{Derivation: tiny\\_task}\n\\subsection*{1. Task}" in doc
    assert doc.endswith("(fastest first).\n\nHere $\\tau = 2$ steps and $a_0 = 0.001$.\n\\end{document}\n")
    assert r"\section*{Derivation: my\_spec}" in _tiny(name="my_spec").latex(document=True)


def test_derivation_latex_an_integer_lr_prints_tau_from_the_spec():
    """An lr that is not a float (here the integer 1; a float lr is read through its repr) gives τ
    from the spec: 1/η = 1 for the mean loss, 1/(Pη) = 1/2 for the summed loss."""
    assert r"Here $\tau = 1.0$ steps" in _tiny(lr=1).latex()
    assert r"Here $\tau = 0.5$ steps" in _tiny("sum", lr=1).latex()


def test_derivation_latex_short_by_hand():
    """One line per pathway (s and d of each mode), the method in brackets, one math block."""
    assert _tiny()._repr_latex_() == (
        r"$\begin{aligned}\mathrm{my\_path}: & s = 1, & d = \frac{1}{2} \\ "
        r"\mathrm{fast}: & s = 2, & d = \frac{1}{2}\end{aligned}\quad(\text{closed-form})$")


def test_derivation_latex_short_of_a_pathway_with_nothing_to_learn():
    """XoR's linear ReLN at Δ = 0 (tests/test_derivation.py): each pathway's Σyx = (0, 0, Δ/2) is zero
    there, so no mode: its line says so, and its d column is empty."""
    import warnings

    import theorykit as tk

    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=0.05, a0=1e-3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        der = tk.Derivation(spec, values={"Delta": 0})
        assert der._repr_latex_() == (r"$\begin{aligned}\mathrm{positive}: & \text{no mode (nothing to learn)} & \\ "
                                      r"\mathrm{negative}: & \text{no mode (nothing to learn)} &\end{aligned}"
                                      r"\quad(\text{closed-form})$")


def test_derivation_latex_of_coupled_pathways_names_the_pair_and_the_race_reduction():
    """``a_1`` (on for both datapoints) and ``b`` (the second) share the output and datapoint 2:
    coupled, so no closed form: the text names the pair, describes the race reduction and has no
    loss section; the derivation's notes are printed with their underscores escaped."""
    import sympy as sp

    import theorykit as tk

    task = tk.Task(sp.eye(2), sp.Matrix([[2, 4]]), name="tiny_task")
    der = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("a_1", (1, 1)), tk.Pathway("b", (0, 1))],
                                    tk.Training(lr=0.5, a0=1e-3)))
    tex = der.latex()
    assert der.method == "race-reduction"
    assert r"Coupled pairs (shared outputs and datapoints): (a\_1, b)." in tex
    assert r"Method: \textbf{race-reduction}. " in tex
    assert "The pathways are integrated numerically with the race reduction" in tex
    assert r"\subsection*{5. Loss}" not in tex and r"t_{1/2}(" not in tex
    assert r"\subsection*{Ranking by speed}" in tex
    for note in der.notes:
        assert note.replace("_", r"\_") in tex


def test_derivation_latex_flags_a_non_diagonalisable_pathway():
    """Σyx = ½(1, 0) with Σx = ½[[2, 1], [1, 1]] (tests/test_derivation.py's skewed spec): Σx maps
    v = e₁ to (1, ½), not parallel to v, so the page says Assumption 2.1 fails."""
    import warnings

    import sympy as sp

    import theorykit as tk

    task = tk.Task(sp.Matrix([[1, 1], [0, 1]]), sp.Matrix([[1, 0]]))
    der = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("p", "all", "all", "all", 4)], tk.Training(lr=0.01, a0=1e-3)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tex = der.latex()
    assert (r"\emph{$\Sigma^x$ is not diagonal in these singular vectors (Assumption 2.1 fails).}"
            "\n\n" r"\subsection*{4. Trajectories}") in tex


def test_large_matrices_are_named_by_size_not_printed():
    """Up to 24 rows and columns a matrix is printed; a 25th row or column (either one alone)
    replaces it by its size, with \\times in math mode."""
    import sympy as sp

    from theorykit.theory.latex import _mat

    assert _mat(sp.zeros(24, 1)) == sp.latex(sp.zeros(24, 1))
    assert _mat(sp.zeros(1, 24)) == sp.latex(sp.zeros(1, 24))
    assert _mat(sp.zeros(25, 1)) == r"(25\times 1\text{ matrix, omitted})"
    assert _mat(sp.zeros(1, 25)) == r"(1\times 25\text{ matrix, omitted})"
    assert _mat(sp.zeros(3, 2), limit=2) == r"(3\times 2\text{ matrix, omitted})"


# ------------------------------------------------------------------------------------------------
# io: JSON conversion, error naming, figures
# ------------------------------------------------------------------------------------------------
def test_jsonable_converts_by_type():
    """io.jsonable's rules: dict keys become strings, tuples and arrays lists, numpy floats and
    integers and bools their Python kinds; None, str, int and bool stay as they are; anything else
    (a sympy number, a path) becomes its str."""
    from pathlib import Path

    import sympy as sp

    from theorykit.io import jsonable

    assert jsonable(None) is None
    assert jsonable({1: (np.float32(0.5), np.int8(-3))}) == {"1": [0.5, -3]}
    got = jsonable(np.array([[1.5, 2.0]]))
    assert got == [[1.5, 2.0]] and type(got[0][0]) is float
    assert type(jsonable(np.int64(7))) is int and jsonable(np.bool_(False)) is False
    assert jsonable("a") == "a" and jsonable(True) is True and jsonable(3) == 3
    assert jsonable(sp.Rational(1, 2)) == "1/2"
    assert jsonable(Path("/x/y")) == "/x/y"


def test_json_files_are_indented_by_two_and_end_with_a_newline(tmp_path):
    """write_json writes json.dumps(…, indent=2) and a final newline: {"a": [1]} is, by hand,
    '{', '  "a": [', '    1', '  ]', '}' and a newline."""
    from theorykit.io import write_json

    f = write_json(tmp_path / "r.json", {"a": [1]})
    assert f == tmp_path / "r.json"
    assert f.read_text() == '{\n  "a": [\n    1\n  ]\n}\n'


def test_a_file_in_the_folder_path_is_named_and_explained(tmp_path):
    """A file where a folder of the output path should be: NotADirectoryError naming the output and
    saying what is wrong (io's comment: errors say what is wrong with the path), not the bare
    'Not a directory' of the temporary file's creation."""
    from theorykit import io

    (tmp_path / "afile").write_text("x")
    with pytest.raises(NotADirectoryError) as ei:
        io.write_json(tmp_path / "afile" / "sub" / "r.json", {})
    assert ei.value.filename == str(tmp_path / "afile" / "sub" / "r.json")
    assert "a part of its folder path is a file" in ei.value.strerror


def test_errors_without_an_errno_name_the_output(tmp_path, monkeypatch):
    """An OSError with no errno (only a message) is re-raised as the same kind naming the output:
    '<message> (writing <path>)'."""
    from theorykit import io

    def fail(**kw):
        raise OSError("no temporary file today")

    monkeypatch.setattr(io.tempfile, "mkstemp", fail)
    f = tmp_path / "r.json"
    with pytest.raises(OSError) as ei:
        io.atomic_write_text(f, "{}")
    assert type(ei.value) is OSError and str(ei.value) == f"no temporary file today (writing {f})"


def test_errors_of_a_subclass_with_its_own_constructor_name_the_output(tmp_path, monkeypatch):
    """An OSError subclass that cannot be rebuilt from (errno, strerror, path) becomes a plain
    OSError with the same errno and message, naming the output path."""
    import errno

    from theorykit import io

    class Odd(OSError):
        def __init__(self, message):
            super().__init__(errno.EIO, message)

    def fail(**kw):
        raise Odd("disk on fire")

    monkeypatch.setattr(io.tempfile, "mkstemp", fail)
    f = tmp_path / "r.json"
    with pytest.raises(OSError) as ei:
        io.atomic_write_text(f, "{}")
    e = ei.value
    assert type(e) is OSError and e.errno == errno.EIO and e.strerror == "disk on fire" and e.filename == str(f)


def _png_size(data: bytes):
    """Width and height from a PNG's IHDR chunk (bytes 16-23, big-endian), per the PNG format."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_figures_keep_their_size_at_the_asked_dpi(tmp_path):
    """A 2 × 1 inch figure is 220 × 110 pixels at the default 110 dpi, 60 × 30 at 30 dpi (png_bytes
    and write_figure alike); ``tight`` trims a figure holding one small text to less than that."""
    from theorykit.io import new_figure, png_bytes, write_figure

    def fig():
        f = new_figure(figsize=(2, 1))
        f.text(0.5, 0.5, "x", fontsize=4)
        return f

    assert _png_size(png_bytes(fig())) == (220, 110)
    assert _png_size(png_bytes(fig(), dpi=30)) == (60, 30)
    assert _png_size(write_figure(fig(), tmp_path / "a.png", dpi=30).read_bytes()) == (60, 30)
    assert _png_size(write_figure(fig(), tmp_path / "c.png").read_bytes()) == (220, 110)
    w, h = _png_size(png_bytes(fig(), dpi=30, tight=True))
    assert w < 60 and h < 30
    w, h = _png_size(write_figure(fig(), tmp_path / "b.png", dpi=30, tight=True).read_bytes())
    assert w < 60 and h < 30


def test_new_figure_shows_itself_as_png():
    """io.new_figure: a matplotlib Figure(**kw) with an Agg canvas whose _repr_png_ is its PNG."""
    import matplotlib.figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from theorykit.io import new_figure

    f = new_figure(figsize=(1, 1))
    assert isinstance(f, matplotlib.figure.Figure) and isinstance(f.canvas, FigureCanvasAgg)
    assert _png_size(f._repr_png_()) == (110, 110)


# ------------------------------------------------------------------------------------------------
# _runs: checkpoints and the refusals of the trainings (before anything is trained)
# ------------------------------------------------------------------------------------------------
def test_checkpoints_by_hand():
    """0, every, … below steps (⌈steps/every⌉ of them), then steps: 5 steps every 2 → 0, 2, 4, 5
    (n = 3); 4 every 2 → 0, 2, 4 (n = 2); a run shorter than one interval keeps step 0: 1 every 100
    → 0, 1 (n = 1); 0 steps → just 0 (n = 0)."""
    from theorykit.analysis._runs import _checkpoints

    for steps, every, n, t in ((5, 2, 3, [0, 2, 4, 5]), (4, 2, 2, [0, 2, 4]), (1, 100, 1, [0, 1]), (0, 3, 0, [0]),
                               (7, 1, 7, [0, 1, 2, 3, 4, 5, 6, 7])):
        got_n, got_t = _checkpoints(steps, every)
        assert got_n == n and got_t.tolist() == t, (steps, every)


@pytest.mark.parametrize("every", [0, -2])
def test_checkpoint_interval_must_be_positive(every):
    from theorykit.analysis._runs import _checkpoints
    from theorykit.errors import SpecError

    with pytest.raises(SpecError) as ei:
        _checkpoints(10, every)
    assert ei.value.field == "every"


X2 = np.array([[1.0, 0, 1, -1], [0, 1, 1, 2]])             # d = 2, P = 4
Y1 = np.array([[1.0, -1, 0.5, 2]])                          # p = 1


@pytest.mark.parametrize("kw,field,words", [
    (dict(hidden=[2]), "hidden", "1 width for 2 pathways"),
    (dict(hidden=[2, 2], depth=4), "depth", "depth: 4 is out of range: must be between 2 and 3 (fix: use 2 or 3)"),
    (dict(hidden=[2, 2], depth=1), "depth", "depth: 1 is out of range: must be between 2 and 3 (fix: use 2 or 3)"),
    (dict(hidden=[2, 2], depth=2, shared_first=4), "depth", "shared_first needs depth 3, got 2"),
    (dict(hidden=[2, 2], depth=3, shared_first=0), "shared_first",
     "shared_first: 0 is out of range: must be at least 1 (fix: give the shared first layer's width, e.g. the ReLU layer's)"),
    (dict(hidden=[2, 2], depth=3, shared_first=-1), "shared_first",
     "shared_first: -1 is out of range: must be at least 1 (fix: give the shared first layer's width, e.g. the ReLU layer's)"),
])
def test_train_gdln_refuses_bad_settings_naming_the_field(kw, field, words):
    """train_gdln's checks (its docstring: one width per pathway, depth 2 or 3, shared_first only at
    depth 3 and a positive width): each names its field before anything is trained."""
    from theorykit.analysis._runs import train_gdln
    from theorykit.errors import SpecError

    G = np.array([[1, 1, 0, 0], [0, 1, 1, 1]], float)
    with pytest.raises(SpecError) as ei:
        train_gdln(X2, Y1, G, lr=0.1, steps=1, seeds=1, every=1, **kw)
    assert ei.value.field == field and words in str(ei.value)


@pytest.mark.parametrize("gates,hidden,field", [
    ([np.ones((2, 4))], [[1, 1], [2]], "hidden"),           # two width lists for one gating
    ([np.ones((2, 3))], [[1, 1]], "gates"),                 # 3 gates for P = 4 datapoints
    ([np.ones((2, 4))], [[1, 1, 1]], "gates"),              # 2 rows for 3 widths
    ([np.ones(4)], [[1]], "gates"),                         # one row given as a vector
])
def test_train_gdln_many_refuses_mismatched_gatings(gates, hidden, field):
    from theorykit.analysis._runs import train_gdln_many
    from theorykit.errors import SpecError

    with pytest.raises(SpecError) as ei:
        train_gdln_many(X2, Y1, gates, hidden, lr=0.1, steps=1, seeds=1, every=1)
    assert ei.value.field == field


def test_train_gdln_many_defaults_are_train_gdlns():
    """train_gdln_many's docstring: each run equals ``train_gdln(X, Y, G, hidden=h, …)``, so with the
    settings left at their defaults (init_std, seed, loss) the two give the same losses and outputs."""
    from theorykit.analysis._runs import train_gdln, train_gdln_many

    G, H = np.array([[1, 0, 1, 1], [0, 1, 1, 0]], float), [1, 2]
    (r,) = train_gdln_many(X2, Y1, [G], [H], lr=0.2, steps=1, seeds=1, every=1)
    one = train_gdln(X2, Y1, G, hidden=H, lr=0.2, steps=1, seeds=1, every=1)
    np.testing.assert_allclose(r.loss, one.loss, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(r.outputs, one.outputs, rtol=1e-10, atol=1e-15)


def test_train_gdln_depth3_returns_the_stacked_form():
    """Depth 3 without a shared layer, widths (1, 2): ``params_ck`` is the stacked form [W1, W2, W3]
    (train_gdln's docstring), W2 block-diagonal with zeros outside the pathways' blocks, and at
    t = 0 the output is Σ_j g_j ⊙ (W3_j W2_j W1_j X) with the blocks cut by hand (rows 0 | 1-2)."""
    from theorykit.analysis._runs import train_gdln

    G = np.array([[1, 1, 0, 1], [0, 1, 1, 1]], float)
    g = train_gdln(X2, Y1, G, hidden=[1, 2], lr=0.1, steps=1, seeds=1, init_std=0.5, every=1, depth=3,
                   keep_params=True)
    W1, W2, W3 = (w[0, 0] for w in g.params_ck)
    assert W1.shape == (3, 2) and W2.shape == (3, 3) and W3.shape == (1, 3)
    assert W2[0, 1:].tolist() == [0, 0] and W2[1:, 0].tolist() == [0, 0]
    a, b = slice(0, 1), slice(1, 3)
    want = (W3[:, a] @ W2[a, a] @ W1[a] @ X2) * G[0] + (W3[:, b] @ W2[b, b] @ W1[b] @ X2) * G[1]
    np.testing.assert_allclose(g.outputs[0, 0], want, rtol=1e-12, atol=1e-15)
    assert [w.shape for w in g.params] == [(1, 3, 2), (1, 3, 3), (1, 1, 3)]


def test_unstack_gdln_cuts_the_blocks_by_hand():
    """Widths (1, 2): pathway 0 owns hidden unit 0, pathway 1 units 1-2. First layer: rows; middle
    layers: the diagonal blocks; last layer: columns (one network, no seed axis)."""
    from theorykit.analysis._runs import unstack_gdln

    W1 = np.arange(6.0).reshape(3, 2)
    W2 = np.arange(9.0).reshape(3, 3) + 10
    W3 = np.arange(3.0).reshape(1, 3) + 100
    (a1, a2, a3), (b1, b2, b3) = unstack_gdln([W1, W2, W3], [1, 2])
    assert a1.tolist() == [[0, 1]] and a2.tolist() == [[10]] and a3.tolist() == [[100]]
    assert b1.tolist() == [[2, 3], [4, 5]] and b2.tolist() == [[14, 15], [17, 18]] and b3.tolist() == [[101, 102]]


def test_train_relu_checkpoints_snapshots_and_record_against_numpy():
    """5 steps every 2: checkpoints 0, 2, 4, 5. At each, the outputs are W2 relu(W1 X) of the kept
    weights, the loss (mean) ½/P Σ(y − ŷ)² (numpy), ``record(params, aux)`` sees those weights,
    and the first-layer snapshots are (W1 X > 0) at every checkpoint but the last (Algorithm 1
    samples every ``every`` steps). The final weights are the last checkpoint's; the settings
    echo the call, a width given as an int becomes a one-layer list."""
    from theorykit.analysis._runs import train_relu

    seen = []

    def record(ws, aux):
        seen.append(aux)
        return ws[0].sum() * aux

    r = train_relu(X2, Y1, hidden=3, lr=0.1, steps=5, seeds=2, init_std=0.5, seed=3, every=2, keep_params=True,
                   record=record, aux=2.0)
    assert r.t_ck.tolist() == [0, 2, 4, 5] and r.loss.shape == (2, 6)
    W1, W2 = r.params_ck
    assert W1.shape == (2, 4, 3, 2) and W2.shape == (2, 4, 1, 3)
    pre = W1 @ X2                                               # seeds × checkpoints × H × P
    out = W2 @ np.maximum(pre, 0)
    np.testing.assert_allclose(r.outputs, out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.loss[:, [0, 2, 4, 5]], 0.5 * ((Y1 - out) ** 2).sum((-2, -1)) / 4, rtol=1e-12)
    np.testing.assert_array_equal(r.snapshots, pre[:, :3] > 0)
    np.testing.assert_allclose(r.recorded, 2.0 * W1.sum((-2, -1)), rtol=1e-12)
    assert seen and all(a == 2.0 for a in seen)
    np.testing.assert_array_equal(r.params[0], W1[:, -1])
    np.testing.assert_array_equal(r.params[1], W2[:, -1])
    assert r.settings == {"hidden": [3], "lr": 0.1, "steps": 5, "seeds": 2, "init_std": 0.5, "loss": "mean",
                          "seed": 3, "every": 2}
    plain = train_relu(X2, Y1, hidden=[3], lr=0.1, steps=5, seeds=2, init_std=0.5, seed=3, every=2)
    assert plain.params_ck is None and plain.recorded is None
    np.testing.assert_array_equal(plain.loss, r.loss)


def test_gdln_outputs_from_start_against_numpy_gradient_descent():
    """One always-on pathway (a linear network ŷ = W2 W1 x) from a start given per seed, outputs
    after 3, 0 and 2 steps (asked out of order). Numpy, mean loss L = 1/(2P) Σ‖y − ŷ‖²: with
    E = (Y − W2 W1 X)/P, W2 ← W2 + η E (W1 X)ᵀ and W1 ← W1 + η W2ᵀ E Xᵀ (simultaneously).
    A summed loss (``loss="sum"``) is P times the mean loss: the same steps with E = Y − Ŷ."""
    import sympy as sp

    import theorykit as tk
    from theorykit.analysis._runs import gdln_outputs_from_start

    spec = tk.GDLNSpec(tk.Task(sp.Matrix(X2), sp.Matrix(Y1)), [tk.Pathway("p", (1, 1, 1, 1), hidden=2)],
                       tk.Training(lr=0.1))
    rng = np.random.default_rng(4)
    W1s, W2s = rng.normal(size=(2, 2, 2)) * 0.5, rng.normal(size=(2, 1, 2)) * 0.5      # 2 seeds
    start = {"input->p": W1s, "p->output": W2s}
    steps, lr = [3, 0, 2], 0.1
    for loss, scale in (("mean", 1 / 4), ("sum", 1.0)):
        out, sim = gdln_outputs_from_start(spec, start, steps, lr, loss=loss)
        assert out.shape == (2, 3, 1, 4)
        for s in range(2):
            W1, W2 = W1s[s].copy(), W2s[s].copy()
            want = {}
            for k in range(4):
                want[k] = W2 @ W1 @ X2
                E = (Y1 - want[k]) * scale
                W1, W2 = W1 + lr * W2.T @ E @ X2.T, W2 + lr * E @ (W1 @ X2).T
            for j, k in enumerate(steps):
                np.testing.assert_allclose(out[s, j], want[k], rtol=1e-10, atol=1e-13)


# ------------------------------------------------------------------------------------------------
# latex: names and notes with LaTeX's special characters (bug fixed: only "_" was escaped)
# ------------------------------------------------------------------------------------------------
def _special_names():
    """Pathway and spec names may hold any printable characters (spec.fields.label: 'letters,
    digits, spaces and punctuation'), LaTeX's specials & % # ^ ~ { } \\ $ included."""
    import sympy as sp

    import theorykit as tk

    task = tk.Task(sp.eye(2), sp.Matrix([[2, 4]]), name="t")
    paths = [tk.Pathway("a&b 50%", (1, 0)), tk.Pathway("c#^~{x}\\$", (0, 1))]
    return tk.Derivation(tk.GDLNSpec(task, paths, tk.Training(lr=0.5), name="s&p"))


def _narrow_coupled():
    """Pathway a (on for both datapoints, 1 hidden unit) and b (the second) share the outputs and
    datapoint 2: coupled, race reduction. Y has two rows, so a's Σyx = ½ Y has rank 2 (columns
    (2, 1) and (4, 0) are independent): two modes for one unit, a note that names Σyx."""
    import warnings

    import sympy as sp

    import theorykit as tk

    task = tk.Task(sp.eye(2), sp.Matrix([[2, 4], [1, 0]]), name="t")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        der = tk.Derivation(tk.GDLNSpec(task, [tk.Pathway("a", (1, 1), hidden=1), tk.Pathway("b", (0, 1))],
                                        tk.Training(lr=0.5)))
        der.latex()
    return der


def test_latex_escapes_every_special_character_of_a_name():
    """Text mode (paragraph titles, the document title): \\& \\% \\# \\{ \\} \\$ and \\textasciicircum{},
    \\textasciitilde{}, \\textbackslash{}; math mode (\\mathrm{…}, also the short form Jupyter shows):
    the same backslash escapes, and \\hat{}, \\tilde{}, \\backslash{}, and a space written "\\ " (math
    mode drops a bare one: "a&b 50%" would print as "a&b50%")."""
    der = _special_names()
    tex = der.latex(document=True)
    assert r"\paragraph{a\&b 50\%} gate $g = (1,0)$" in tex
    assert r"\paragraph{c\#\textasciicircum{}\textasciitilde{}\{x\}\textbackslash{}\$} gate" in tex
    assert r"\Sigma^{yx}_{\mathrm{a\&b\ 50\%}} = " in tex
    assert r"$1.\ \mathrm{c\#\hat{}\tilde{}\{x\}\backslash{}\$}: s_1 = 2$" in tex
    assert r"\section*{Derivation: s\&p}" in tex
    assert der._repr_latex_().startswith(r"$\begin{aligned}\mathrm{a\&b\ 50\%}: & s = 1, & d = ")


def test_latex_notes_write_sigma_in_math_mode():
    """The derivation's notes say 'Σyx' (a narrow pathway): in the LaTeX that is $\\Sigma$yx, never
    the raw character (pdflatex stops at it: 'Unicode character Σ not set up')."""
    der = _narrow_coupled()
    assert der.method == "race-reduction" and any("Σyx" in n for n in der.notes)
    tex = der.latex(document=True)
    assert r"its $\Sigma$yx: the derivation" in tex and "Σ" not in tex


def test_latex_with_special_names_and_notes_compiles(tmp_path):
    """Both documents above go through pdflatex (before the fix: 'Misplaced alignment tab character
    &' and 'Unicode character Σ'). Skips without pdflatex (tests/test_latex_compile.py says how to
    install it)."""
    import shutil
    import subprocess

    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed")
    for name, der in (("names", _special_names()), ("notes", _narrow_coupled())):
        (tmp_path / f"{name}.tex").write_text(der.latex(document=True))
        p = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, [line for line in p.stdout.splitlines() if line.startswith("!")]


def test_exact_reln_trajectory_takes_a_numpy_integer_width():
    """A width read from an array (np.int64) is a width, as train_relu takes it (it failed with
    "'numpy.int64' object is not iterable"). At t = 0 both networks are the same weights, ReLU
    outputs W2 relu(W1 X) and the ReLN, gated by the same units, the same (checked against the
    width as a plain int)."""
    from theorykit.analysis._runs import exact_reln_trajectory

    kw = dict(lr=0.1, steps=2, init_std=0.5, every=1)
    t, ro, lo = exact_reln_trajectory(X2, Y1, hidden=np.int64(3), **kw)
    t2, ro2, lo2 = exact_reln_trajectory(X2, Y1, hidden=3, **kw)
    assert t.tolist() == [0, 1, 2] and ro.shape == (3, 1, 4)
    np.testing.assert_array_equal(ro, ro2)
    np.testing.assert_array_equal(lo, lo2)
    np.testing.assert_allclose(lo[0], ro[0], rtol=1e-12, atol=1e-15)
