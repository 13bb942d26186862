"""The measurements of the depth suite (Section 6, Fig. 6) on its runs.

* :func:`section6_gates` -- the gates of the Section 6 GDLN's four pathways (common, and on in two
  of three contexts);
* :func:`run_statistics` -- per run: when the layers align with the data's top singular vectors
  (recorded by :func:`theorykit.analysis.alignment.layer_alignment`), when the loss halves, the
  stereotypical run, and how much of the across-run loss variance the alignment times explain;
* :func:`relu_gating` -- how the ReLU runs gate, read by the one classifier
  (:func:`theorykit.theory.gates.layer_activity`), and the share of first-layer units on for all
  datapoints over time;
* :func:`compare_curves` -- the mean and stereotypical loss curves of ReLU network, GDLN, wide
  GDLN, mode ODE and GDLN flow against each other.
"""
from __future__ import annotations

import numpy as np

from theorykit.curves import first_crossing, level_times, max_gap, r2, stereotypical, variance_explained
from theorykit.theory.gates import UnitGates, layer_activity

__all__ = ["section6_gates", "run_statistics", "relu_gating", "compare_curves"]


def section6_gates(items: int = 8, k: int = 3) -> np.ndarray:
    """Gates (4 × P, datapoints context-major) of the common pathway and of the pathways off in
    one context each (ctx12, ctx13, ctx23 for k = 3)."""
    G = np.ones((k + 1, items * k))
    for j, c in enumerate(reversed(range(k))):
        G[j + 1, c * items:(c + 1) * items] = 0
    return G


def run_statistics(r, t_ck, align: float) -> dict:
    """Statistics of a set of runs ``r`` (``loss``: seeds × steps; ``recorded``: seeds × checkpoints ×
    [cos_in, cos_out, energy_in, energy_out]) at the checkpoints ``t_ck``: alignment times (first
    checkpoint with both top-mode cosines, resp. both top-4 energies, ≥ ``align``), loss halving
    times, the stereotypical run, and the R² of the loss across runs on the alignment times."""
    seeds = r.loss.shape[0]
    idx = t_ck.astype(int)
    rec = np.asarray(r.recorded)               # seeds × checkpoints × 4
    ta = np.array([first_crossing(t_ck, np.minimum(rec[i, :, 0], rec[i, :, 1]), align) for i in range(seeds)])
    ta4 = np.array([first_crossing(t_ck, np.minimum(rec[i, :, 2], rec[i, :, 3]), align) for i in range(seeds)])
    Lck = r.loss[:, idx]
    half = np.array([first_crossing(t_ck, -Lck[i], -0.5 * Lck[i, 0]) for i in range(seeds)])
    res = {"t_align": ta, "t_align4": ta4, "t_half_loss": half, "final_loss": r.loss[:, -1],
           "stereotypical_run": stereotypical(Lck)}
    fin = np.isfinite(ta)
    fin4 = np.isfinite(ta4)
    res["aligned_runs"] = int(fin.sum())
    res["aligned4_runs"] = int(fin4.sum())
    res["aligned_both_runs"] = int((fin & fin4).sum())
    if fin.sum() >= 3 and np.std(ta[fin]) > 0:
        r2s, w, imax = variance_explained(Lck[fin], ta[fin])
        res.update(r2_weighted=w, r2_at_max_var=float(r2s[imax]), t_max_var=float(t_ck[imax]),
                   r2_half_time=r2(half[fin], ta[fin]) if np.all(np.isfinite(half[fin])) else None,
                   r2_curve=r2s)
    both = fin & fin4
    if both.sum() >= 4 and np.std(ta4[both]) > 0:
        _, w2, _ = variance_explained(Lck[both], np.column_stack([ta[both], ta4[both]]))
        _, w4, _ = variance_explained(Lck[both], ta4[both])
        res.update(r2_weighted_align4=w4, r2_weighted_both=w2)
    res["loss_rel_spread_max"] = float(np.max(Lck.std(0) / np.maximum(Lck.mean(0), 1e-300)))
    return res


def relu_gating(relu, X) -> tuple[dict, np.ndarray]:
    """How trained two-hidden-layer ReLU runs gate (means over seeds of
    :func:`theorykit.theory.gates.layer_activity`), and the share of live first-layer units on for
    every datapoint at each snapshot (``relu.snapshots``: seeds × snapshots × H × P)."""
    seeds = np.asarray(relu.params[0]).shape[0]
    acts = [layer_activity([np.asarray(w)[i] for w in relu.params], X) for i in range(seeds)]
    first = UnitGates(np.asarray(relu.snapshots))              # seeds × (checkpoints−1) × H × P
    live = first.n_on > 0
    all_on_t = ((first.n_on == first.on.shape[-1]).sum(2) / np.maximum(live.sum(2), 1)).mean(0)   # share over time
    gating = {"first_all_on_units_mean": float(np.mean([a["first_all_on_units"] for a in acts])),
              "first_all_on_weight_mean": float(np.mean([a["first_all_on_weight"] for a in acts])),
              "first_on_fraction_weighted_mean": float(np.mean([a["first_on_fraction_weighted"] for a in acts])),
              "first_all_on_units_max_over_time": float(all_on_t.max()),
              "second_weight_share_mean": {k: float(np.mean([a["second_weight_share"][k] for a in acts]))
                                           for k in ("common", "double", "single", "none")}}
    return gating, all_on_t


def compare_curves(relu, gd, gdw, ode, flow, t_ck, stereo_relu: int, stereo_gdln: int):
    """Mean curves (ReLU, GDLN, wide GDLN) at the checkpoints and their gaps, over L(0), to each other,
    to the mode ODE and to the GDLN flow; halving and 1 % times; level times. Returns (relu mean,
    GDLN mean, wide GDLN mean, comparison dict)."""
    idx = t_ck.astype(int)
    rm, gm = relu.loss[:, idx].mean(0), gd.loss[:, idx].mean(0)
    wm = gdw.loss[:, idx].mean(0)
    L0 = rm[0]
    sr, sg = relu.loss[stereo_relu, idx], gd.loss[stereo_gdln, idx]
    means = {"relu_mean": rm, "gdln_mean": gm, "gdln_wide_mean": wm, "mode_ode": ode, "gdln_flow": flow}

    def reached(frac):
        return {k: first_crossing(t_ck, -c, -frac * L0) for k, c in means.items()}

    cmp = {"stereo_relu_vs_gdln_max_rel": max_gap(sr, sg, L0),
           "mean_relu_vs_gdln_max_rel": max_gap(rm, gm, L0),
           "ode_vs_relu_mean_max_rel": max_gap(ode, rm, L0),
           "ode_vs_gdln_mean_max_rel": max_gap(ode, gm, L0),
           "flow_vs_gdln_mean_max_rel": max_gap(flow, gm, L0),
           "flow_vs_gdln_stereo_max_rel": max_gap(flow, sg, L0),
           "flow_vs_relu_mean_max_rel": max_gap(flow, rm, L0),
           "flow_final": float(flow[-1]),
           "wide_gdln_vs_relu_mean_max_rel": max_gap(wm, rm, L0),
           "t_half": reached(0.5),
           "t_1pct": reached(0.01),
           "level_times": level_times(t_ck, L0, {"gdln_flow": flow[None], "gdln_runs": gd.loss[:, idx],
                                                   "relu_runs": relu.loss[:, idx], "mode_ode": ode[None]}),
           "gdln_wide_final_mean": float(gdw.loss[:, -1].mean()),
           "ode_final": float(ode[-1]), "relu_final_mean": float(rm[-1]), "gdln_final_mean": float(gm[-1])}
    return rm, gm, wm, cmp
