"""The experiments of the contexts suite (Sections 4-5 of the paper): races, simulations, measurements.

The suite (``validation/contexts.py``) holds the settings, the claims and the figures; every step
that runs or measures something is here, driven by a settings dict ``cfg``: the suite's mode
(seeds, widths, grids, …) together with the paper's hyper-parameters ``eta``, ``steps``,
``sec4_blocks`` (the Section 4 task), ``sec5`` ({k: {gamma, hidden}}), ``loss_at_steps`` and
``fractions`` (of L(0), for the learning times).

* :func:`derivation` -- the symbolic-k derivation (``derivations/k_contexts.py``), written as LaTeX;
* :func:`race_ranking` -- Proposition 4.2 by exhaustion: the race of all 127 context gatings (and
  datapoint-level ones), ranked by speed; :func:`r_families` -- common + all r-context pathways;
* :func:`section4` -- ReLU networks, GDLNs and the race on the Section 4 task, their agreement,
  the units of the trained ReLU networks (:mod:`theorykit.analysis.gates`), end points
  (:func:`end_points_sec4`), the staged scheme (:func:`staged_theory`) and MDS of the hidden
  representations (:func:`mds_at`); :func:`snapshot_singular_values` -- Fig. 4b's data;
* :func:`section5` -- k contexts: ReLU networks, GDLNs and the closed forms for k = 3 … 6.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from theorykit import GDLNSpec, Training, context_pathways, contexts
from theorykit.analysis.curves import best_grid_row, loss_at_steps, loss_metrics, max_gap, time_errors
from theorykit.analysis.gates import UnitGates, context_census, pathway_maps, unit_gates, unit_weights
from theorykit.contexts_theory import (classical_mds, context_family, family_masks, gdln_run, race_flow, race_loss_at,
                                       relu_run, structure_values)
from theorykit.init import a0_rule
from theorykit.io import atomic_write_text

__all__ = ["derivation", "race_ranking", "r_families", "section4", "staged_theory", "end_points_sec4", "mds_at",
           "section5", "snapshot_singular_values", "svals", "hidden_rep_relu", "hidden_rep_gdln", "distances"]


# ---------------------------------------------------------------------------------------------
# hidden representations and pathway maps
# ---------------------------------------------------------------------------------------------
def svals(M, top=None):
    """Singular values of M, largest first (the ``top`` largest)."""
    s = np.linalg.svd(M, compute_uv=False)
    return s[:top] if top else s


def hidden_rep_relu(W1, X):
    """Hidden activity of a one-hidden-layer ReLU network (H × P)."""
    return np.maximum(W1 @ X, 0.0)


def hidden_rep_gdln(params, spec, X):
    """Hidden activity of a GDLN of ``spec``'s pathways (params per pathway, one network), stacked."""
    hs = []
    for Ws, p in zip(params, spec.pathways):
        g = np.asarray(p.active, float)
        hs.append((Ws[0] @ X[list(p.inputs)]) * g[None, :])
    return np.concatenate(hs, axis=0)


def distances(Hrep):
    """Euclidean distances between the datapoints' hidden representations (columns of Hrep)."""
    G = Hrep.T
    sq = np.sum(G ** 2, axis=1)
    D2 = np.clip(sq[:, None] + sq[None, :] - 2 * G @ G.T, 0, None)
    return np.sqrt(D2)


# ---------------------------------------------------------------------------------------------
# 1. symbolic derivation
# ---------------------------------------------------------------------------------------------
def derivation(out_dir: Path, cfg) -> dict:
    from theorykit.suites import load_package

    load_package("derivations")
    from theorykit.derivations import k_contexts as kc

    t0 = time.time()
    res = kc.derive(check_ks=range(2, 9), n_check=4, race_check=cfg["race_check"], exact_check=cfg["exact_checks"])
    # one check with a scaled context (the k = 5 experiments used 1.35)
    res.checks.append(kc.check_against_numeric(res, 5, 4, gam=1.35, race=False, exact=False))
    atomic_write_text(out_dir / "k_contexts.tex", res.latex)
    summ = res.summary()
    worst = max(max(c["common_max_abs_error"], c["kminus1_s_max_abs_error"], c["kminus1_d_own_max_abs_error"],
                    c["kminus1_d_eff_max_abs_error"], c.get("residual_max_abs_error", 0.0) or 0.0)
                for c in res.checks)
    summ["worst_abs_error_k2_to_8"] = worst
    summ["all_residuals_match"] = all(c["residual_exact_match"] for c in res.checks)
    summ["symbolic_seconds"] = res.seconds
    summ["total_seconds"] = time.time() - t0
    summ["latex_file"] = "k_contexts.tex"
    summ["_obj"] = res
    return summ




# ---------------------------------------------------------------------------------------------
# 2. the race, by exhaustion (Proposition 4.2)
# ---------------------------------------------------------------------------------------------
def race_ranking(cfg, a0: float, pr) -> dict:
    task = contexts(8, 3, blocks=cfg["sec4_blocks"])
    subsets, masks, labels = family_masks(3)
    spec = GDLNSpec(task, context_pathways(8, 3, subsets), Training(lr=cfg["eta"], loss="sum", steps=cfg["steps"]))
    dt = spec.tau / cfg["race_dt"]
    rev = max(1, int(dt))
    rf = race_flow(spec, T=cfg["steps"], masks=np.array(masks), a0=a0, record_modes=False, dt=dt, record_every=rev)
    pr.update(note="race: 127 families")
    rows = []
    for lab, m, L in zip(labels, masks, rf.loss):
        met = loss_metrics(rf.t, L, cfg["fractions"])
        met.update({"family": lab, "pathways": int(sum(m)), "has_common": bool(m[0]),
                    "loss_at_2000": float(np.interp(2000, rf.t, L))})
        rows.append(met)
    # edge case of Lemma 4.1: pathways on single datapoints (24 of them), with and without doubles
    pts = []
    P = task.P
    from theorykit import Pathway

    base = context_pathways(8, 3, [(0, 1), (0, 2), (1, 2)])
    single_pts = [Pathway(f"pt{mu}", tuple(int(i == mu) for i in range(P)), tuple(range(8)), "all", 8)
                  for mu in range(P)]
    for lab, paths in (("common+24 single-datapoint", [base[0]] + single_pts),
                       ("common+12+13+23+24 single-datapoint", base + single_pts),
                       ("24 single-datapoint (all inputs)", [Pathway(f"ptx{mu}", tuple(int(i == mu) for i in range(P)),
                                                                     "all", "all", 8) for mu in range(P)])):
        sp_ = GDLNSpec(task, paths, Training(lr=cfg["eta"], loss="sum", steps=cfg["steps"]))
        r2 = race_flow(sp_, T=cfg["steps"], a0=a0, record_modes=False, dt=dt, record_every=rev)
        met = loss_metrics(r2.t, r2.loss[0], cfg["fractions"])
        met.update({"family": lab, "pathways": len(paths), "has_common": lab.startswith("common"),
                    "loss_at_2000": float(np.interp(2000, r2.t, r2.loss[0])), "datapoint_level": True})
        pts.append(met)
    pr.update(note="race: datapoint-level gatings")
    allrows = rows + pts
    by_area = sorted(allrows, key=lambda r: r["area"])
    key1 = lambda r: (r["t_0.01"] is None, r["t_0.01"] or 0.0)  # noqa: E731
    by_t1 = sorted(allrows, key=key1)
    named = {"common+12+13+23": "common+double", "common+1+2+3": "common+single",
             "common+1+2+3+12+13+23": "all seven", "common": "common only"}
    named_rows = {v: next(r for r in allrows if r["family"] == k) for k, v in named.items()}
    win, second = by_area[0], by_area[1]
    near = [r for r in by_area if r["area"] <= 1.01 * win["area"]]
    core = {"common", "12", "13", "23"}
    near_all_contain_core = all(core <= set(r["family"].split("+")) for r in near if not r.get("datapoint_level"))
    lacking = next(r for r in by_area if not core <= set(r["family"].split("+")))
    dbl, sgl = named_rows["common+double"], named_rows["common+single"]
    # how much the single-context pathways learn when all seven race
    spec7 = GDLNSpec(task, context_pathways(8, 3, subsets), Training(lr=cfg["eta"], loss="sum", steps=cfg["steps"]))
    rf7 = race_flow(spec7, T=cfg["steps"], a0=a0, record_modes=False, dt=dt, record_every=rev)
    share = {}
    X, Y = task.numeric()
    for p in spec7.pathways:
        M = rf7.final_maps[p.name][0]
        out = (M @ X[list(p.inputs)]) * np.asarray(p.active, float)[None, :]
        share[p.name] = float(np.linalg.norm(out))
    tot = sum(share.values())
    share = {k_: v / tot for k_, v in share.items()}
    pr.update(note="race: all seven")
    # robustness of the winner to a0 (named families only)
    robust = {}
    sel = [labels.index(k_) for k_ in named if k_ in labels]
    for a in cfg["robust_a0"]:
        rr = race_flow(spec, T=cfg["steps"], masks=np.array([masks[i] for i in sel]), a0=a, record_modes=False, dt=dt,
                       record_every=rev)
        robust[f"{a:g}"] = {named[labels[i]]: loss_metrics(rr.t, L, cfg["fractions"])["area"] for i, L in zip(sel, rr.loss)}
    pr.update(note="race: a0 robustness")
    return {
        "a0": a0, "families": len(allrows), "context_families": len(rows), "metric": "area = mean of L(t)/L(0) over 0..8000 steps (lower is faster)",
        "ranking_by_area": [{k_: r[k_] for k_ in ("family", "area", "t_0.5", "t_0.1", "t_0.01", "loss_at_2000", "pathways")}
                            for r in by_area],
        "ranking_by_time_to_1pct_top10": [{k_: r[k_] for k_ in ("family", "t_0.01", "area")} for r in by_t1[:10]],
        "winner": win["family"], "runner_up": second["family"],
        "within_1pct_of_winner": [r["family"] for r in near],
        "all_within_1pct_contain_common_and_all_doubles": near_all_contain_core,
        "best_family_lacking_common_or_a_double": lacking["family"],
        "its_area_excess_over_common_double": lacking["area"] / named_rows["common+double"]["area"] - 1,
        "common_double_area_excess_over_winner": named_rows["common+double"]["area"] / win["area"] - 1,
        "margin_area_relative": (second["area"] - win["area"]) / win["area"],
        "named": {k_: {kk: v[kk] for kk in ("area", "t_0.5", "t_0.1", "t_0.01", "loss_at_2000", "final_fraction")}
                  for k_, v in named_rows.items()},
        "double_vs_single_area_ratio": sgl["area"] / dbl["area"],
        "rank_of_common_double_by_area": 1 + [r["family"] for r in by_area].index("common+12+13+23"),
        "best_without_common_by_area": next(r["family"] for r in by_area if not r["has_common"]),
        "winner_by_time_to_1pct": by_t1[0]["family"],
        "all_seven_output_share": share,
        "a0_robustness_area": robust,
        "_curves": {"t": rf.t, **{named[k_]: rf.loss[labels.index(k_)] for k_ in named}},
    }


def r_families(cfg, a0: float, pr) -> dict:
    """For k = 3 … 6: common + all r-context pathways, r = 1 … k−1 (Finding 3)."""
    out = {}
    for kk in cfg["rfamily_k"]:
        gam = cfg["sec5"][kk]["gamma"]
        task = contexts(8, kk, context_scale=gam)
        rows = {}
        rs = range(1, kk) if cfg["rfamily_all_r"] else sorted({1, kk // 2, kk - 1})
        for r in rs:
            spec = GDLNSpec(task, context_pathways(8, kk, context_family(kk, r)),
                            Training(lr=cfg["eta"], loss="sum", steps=cfg["steps"]))
            dt = spec.tau / cfg["race_dt"]
            rf = race_flow(spec, T=cfg["steps"], a0=a0, record_modes=False, dt=dt, record_every=max(1, int(dt)))
            m = loss_metrics(rf.t, rf.loss[0], cfg["fractions"])
            rows[str(r)] = {kk_: m[kk_] for kk_ in ("area", "t_0.5", "t_0.1", "t_0.01", "final_fraction")}
        best = min(rows, key=lambda r_: rows[r_]["area"])
        out[str(kk)] = {"gamma": gam, "families": rows, "winner_r": int(best),
                        "kminus1_wins": int(best) == kk - 1,
                        "single_over_kminus1_area": rows["1"]["area"] / rows[str(kk - 1)]["area"]}
        pr.update(note=f"r-families k={kk}")
    return out


# ---------------------------------------------------------------------------------------------
# 3. Section 4 simulations
# ---------------------------------------------------------------------------------------------
def section4(cfg, pr) -> dict:
    seeds = cfg["seeds"]
    task = contexts(8, 3, blocks=cfg["sec4_blocks"])
    X, Y = task.numeric()
    H = cfg["relu_hidden4"]
    std_relu = 0.005 / 700
    snaps = list(range(0, cfg["steps"] + 1, cfg["snap_every"]))
    Lr, rsn = relu_run(X, Y, hidden=H, lr=cfg["eta"], steps=cfg["steps"], seeds=seeds, init_std=std_relu, loss="sum", record=snaps)
    pr.update(note="ReLU network")
    t = np.arange(cfg["steps"] + 1)
    L0 = float(Lr[0, 0])
    b = 0.0005 / 700
    gh = cfg["gdln_hidden"]
    fams = {"double": [(0, 1), (0, 2), (1, 2)], "single": [(0,), (1,), (2,)],
            "all seven": [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]}
    gd, gsn, specs = {}, {}, {}
    for nm, subs in fams.items():
        spec = GDLNSpec(task, context_pathways(8, 3, subs, hidden=gh), Training(lr=cfg["eta"], loss="sum", steps=cfg["steps"]))
        specs[nm] = spec
        stds = {p.name: (10 * b if p.name == "common" else 20 * b) for p in spec.pathways}
        for sch in ("joint", "staged") if nm in cfg["staged_families"] else ("joint",):
            L, sn = gdln_run(spec, init_std=stds, seeds=seeds, steps=cfg["steps"], schedule=sch,
                             record=snaps if (nm == "double") else [cfg["steps"]])
            gd[(nm, sch)] = L
            gsn[(nm, sch)] = sn
            pr.update(note=f"GDLN {nm} {sch}")
    # theory: race reduction (joint) with a0 by rule, per pathway
    a0c, a0x = a0_rule(10 * b, gh), a0_rule(20 * b, gh)
    race = {}
    for nm, spec in specs.items():
        a0v = [a0c if p.name == "common" else a0x for p in spec.pathways]
        race[nm] = race_flow(spec, T=cfg["steps"], a0=np.array(a0v), record_modes=False,
                             dt=spec.tau / cfg["race_dt"], record_every=1, record_svals=4 if nm == "double" else 0)
    pr.update(note="race (rule a0)")
    spec_d = specs["double"]
    # staged closed form (paper's scheme): common pathway by its own modes; double pathways on the residual
    staged = staged_theory(task, spec_d, a0c, a0x, cfg)
    pr.update(note="staged theory")
    # ReLU: fit (a0_common, a0_ctx) on a log grid, openly
    g = np.logspace(-10, -4, cfg["fit_grid"])
    A = np.array([[a, c, c, c] for a in g for c in g])
    Lm = Lr.mean(0)

    def pred(Ab):
        dt = spec_d.tau / cfg["race_dt"]
        rf = race_flow(spec_d, T=cfg["steps"], masks=np.ones((len(Ab), 4)), a0=Ab, record_modes=False,
                       dt=dt, record_every=max(1, int(dt)))
        return np.stack([race_loss_at(rf, t, i) for i in range(len(Ab))])

    a_fit, err_fit, L_fit = best_grid_row(pred, A, Lm, L0)
    relu_rule = a0_rule(std_relu, H)
    L_relu_rule = pred(np.array([[relu_rule] * 4]))[0]
    pr.update(note="a0 fit")
    L_race_rule = race_loss_at(race["double"], t)
    L_gd = gd[("double", "joint")].mean(0)
    agreement = {
        "relu_vs_race_fitted_a0": {"a0_common": float(a_fit[0]), "a0_context": float(a_fit[1]),
                                   "max_abs_error_over_L0": err_fit},
        "relu_vs_race_rule_a0": {"a0": relu_rule, "rule": "sigma^2 H / 2, H = 700",
                                 "max_abs_error_over_L0": max_gap(Lm, L_relu_rule, L0)},
        "relu_vs_gdln_double_joint_max_abs_error_over_L0": max_gap(Lm, L_gd, L0),
        "gdln_double_joint_vs_race_rule_a0_max_abs_error_over_L0": max_gap(L_gd, L_race_rule, L0),
        "gdln_double_staged_vs_staged_theory_max_abs_error_over_L0": max_gap(gd[("double", "staged")].mean(0),
                                                                              staged["loss"], L0),
        "gdln_single_joint_vs_race_rule_a0_max_abs_error_over_L0": max_gap(gd[("single", "joint")].mean(0),
                                                                            race_loss_at(race["single"], t), L0),
        "relu_seed_spread_max_std_over_L0": float(np.max(Lr.std(0)) / L0),
        "learning_time_errors_relu_vs_race_fitted": time_errors(t, Lm, L_fit, cfg["fractions"]),
        "learning_time_errors_gdln_vs_race_rule": time_errors(t, L_gd, L_race_rule, cfg["fractions"]),
        "a0_rule_gdln": {"common": a0c, "context": a0x, "rule": "sigma_p^2 H_p / 2"},
    }
    def at(curve):
        return loss_at_steps(t, curve, cfg["loss_at_steps"])

    loss_at = {"relu_mean": at(Lm), "theory_race_fitted_a0": at(L_fit), "theory_race_rule_a0": at(L_race_rule),
               "gdln_double_joint": at(L_gd), "gdln_double_staged": at(gd[("double", "staged")].mean(0)),
               "gdln_single_joint": at(gd[("single", "joint")].mean(0)),
               "gdln_all_seven_joint": at(gd[("all seven", "joint")].mean(0)), "staged_theory": at(staged["loss"])}
    # joint vs staged
    js = {}
    for nm in cfg["staged_families"]:
        a_, b_ = gd[(nm, "joint")].mean(0), gd[(nm, "staged")].mean(0)
        js[nm] = {"max_abs_difference_over_L0": max_gap(a_, b_, L0),
                  "step_of_max_difference": int(np.argmax(np.abs(a_ - b_))),
                  "final_joint": float(a_[-1]), "final_staged": float(b_[-1]),
                  "area_joint": loss_metrics(t, a_)["area"], "area_staged": loss_metrics(t, b_)["area"]}
    # units of the trained ReLU networks
    W1f, W2f = rsn[cfg["steps"]]
    gates = unit_gates(np.einsum("shd,dp->shp", W1f, X))
    wts = unit_weights(W1f, W2f)
    uc = context_census(gates, 3, weights=wts)
    per_seed = [context_census(gates[s], 3, weights=wts[s]) for s in range(seeds)]
    units = {"exact_all": uc["all"], "exact_significant": uc["significant"],
             "majority_all": uc["majority"], "majority_significant": uc["significant_majority"],
             "majority_mean_purity": uc["majority_mean_purity"],
             "majority_significant_mean_purity": uc["significant_majority_mean_purity"],
             "weight_share_majority": uc["weight_share_majority"],
             "significant_threshold": uc["significant_threshold"],
             "per_seed_majority_significant": [p["significant_majority"] for p in per_seed], "hidden": H, "seeds": seeds,
             "definitions": "exact: the unit's on/off pattern is constant within every context; majority: a unit is on in a "
                            "context when on for at least half its items (purity = agreement of its datapoints with that "
                            "template); significant: ||w_in||*||w_out|| above 1% of the network's largest"}
    # end points: exact (race to convergence) vs simulated
    ends = end_points_sec4(spec_d, task, [a0c, a0x, a0x, a0x], gsn, rsn, gates, wts, per_seed, cfg, race["double"])
    # MDS at matched times
    mds = mds_at(rsn, gsn[("double", "joint")], spec_d, X, [1000, 3000, cfg["steps"]] if cfg["steps"] in rsn else [cfg["steps"]])
    pr.update(note="Section 4 analysis")
    return {"t": t, "L0": L0, "relu": Lr, "gdln": gd, "race": race, "staged": staged, "fit_curve": L_fit,
            "relu_rule_curve": L_relu_rule, "agreement": agreement, "loss_at": loss_at, "joint_vs_staged": js,
            "units": units, "end_points": ends, "mds": mds, "rsn": rsn, "gsn": gsn,
            "spec_d": spec_d, "snaps": snaps, "X": X, "final_gates": gates, "wts": wts, "per_seed": per_seed}


def staged_theory(task, spec_d, a0c, a0x, cfg):
    """The paper's scheme: the common pathway alone on the targets, the context pathways on its residual."""
    X, Y = task.numeric()
    P = X.shape[1]
    W = np.linalg.lstsq(X.T, Y.T, rcond=None)[0].T
    R = Y - W @ X
    spec_c = GDLNSpec(task, [spec_d.pathways[0]], spec_d.training)
    rc = race_flow(spec_c, T=cfg["steps"], a0=a0c, record_modes=False, dt=spec_c.tau / cfg["race_dt"], record_every=1)
    spec_r = GDLNSpec(task, list(spec_d.pathways[1:]), spec_d.training)
    rr = race_flow(spec_r, T=cfg["steps"], a0=a0x, record_modes=False, dt=spec_r.tau / cfg["race_dt"], target=R,
                   record_every=1)
    # the loss decomposes: additive part (common) + interaction part (context pathways on R)
    Lres0 = 0.5 * np.sum(R ** 2)
    Lc = race_loss_at(rc, np.arange(cfg["steps"] + 1))           # common alone on Y: ends at the residual loss
    Lr_ = race_loss_at(rr, np.arange(cfg["steps"] + 1))          # context pathways on R: starts at Lres0
    # is the common pathway's Σx diagonal in its modes here? (no for the ring: closed form approximate)
    return {"loss": Lc - Lres0 + Lr_, "residual_loss": float(Lres0), "note":
            "common pathway integrated alone on the targets (its input correlation is not diagonal in its modes "
            "for the ring block, so its closed form is only approximate and the flow is integrated), context "
            "pathways integrated on the exact least-squares residual from t = 0; loss = common part + residual part"}


def end_points_sec4(spec_d, task, a0v, gsn, rsn, gates, wts, per_seed, cfg, race8000):
    X, Y = task.numeric()
    Tlong = 40000
    rf = race_flow(spec_d, T=Tlong, a0=np.array(a0v), record_modes=False, dt=spec_d.tau / cfg["race_dt"],
                   record_every=100)
    out = {"exact_note": "race reduction integrated to t = 40000 steps (converged), singular values of each pathway's map"}
    ex = {p.name: svals(rf.final_maps[p.name][0], 8).tolist() for p in spec_d.pathways}
    # GDLN joint and staged (mean over seeds of sorted singular values)
    sim = {}
    for sch in ("joint", "staged"):
        params = gsn[("double", sch)][cfg["steps"]]
        d = {}
        for i, p in enumerate(spec_d.pathways):
            W1, W2 = params[i]
            sv = np.array([svals(W2[s] @ W1[s], 8) for s in range(W1.shape[0])])
            d[p.name] = sv.mean(0).tolist()
        sim[f"gdln_{sch}"] = d
    # ReLU: groups of units by exact final gating pattern, item part of the group map
    W1f, W2f = rsn[cfg["steps"]]
    groups = {}
    for s in range(W1f.shape[0]):
        mp = pathway_maps(W1f[s], W2f[s], gates[s], 3)
        for lab, M in mp.items():
            groups.setdefault(lab, []).append(svals(M, 8))
    sim["relu_groups_note"] = "units grouped by majority context gating; singular values of W2[:, group] W1[group, items]"
    sim["relu_groups_item_map"] = {lab: np.mean(v, axis=0).tolist() for lab, v in groups.items()}
    sim["relu_groups_seen_in_seeds"] = {lab: len(v) for lab, v in groups.items()}
    out["exact"] = ex
    out["simulated"] = sim
    out["race_at_8000"] = {p.name: svals(race8000.final_maps[p.name][0], 8).tolist() for p in spec_d.pathways}
    return out


def mds_at(rsn, gsn_d, spec_d, X, times):
    from scipy.spatial import procrustes

    out = {}
    for tt in times:
        if tt not in rsn or tt not in gsn_d:
            continue
        W1 = rsn[tt][0][0]
        Hr = hidden_rep_relu(W1, X)
        params = [[Ws[0][0], Ws[1][0]] for Ws in gsn_d[tt]]
        Hg = hidden_rep_gdln(params, spec_d, X)
        Dr, Dg = distances(Hr), distances(Hg)
        Zr, Zg = classical_mds(Dr), classical_mds(Dg)
        if np.allclose(Zr, 0) or np.allclose(Zg, 0):
            continue
        _, _, disparity = procrustes(Zr, Zg)
        m_ = min(Hr.shape[0], Hg.shape[0], Dr.shape[0] - 1)
        Fr, Fg = classical_mds(Dr, m_), classical_mds(Dg, m_)
        _, _, disp_full = procrustes(Fr, Fg)
        iu = np.triu_indices(Dr.shape[0], 1)
        rsa = float(np.corrcoef(Dr[iu], Dg[iu])[0, 1])
        out[int(tt)] = {"procrustes_disparity": float(disparity), "procrustes_disparity_all_dims": float(disp_full),
                        "distance_correlation": rsa,
                        "Z_relu": Zr, "Z_reln": Zg}
    return out


# ---------------------------------------------------------------------------------------------
# 4. Section 5
# ---------------------------------------------------------------------------------------------
def section5(cfg, kres, pr) -> dict:
    from theorykit.contexts_theory import k as ksym
    from theorykit.contexts_theory import sig
    from theorykit.derivations.k_contexts import closed_form_loss, closed_form_modes
    from theorykit.task import hierarchy

    seeds = cfg["seeds"]
    out = {}
    H8 = hierarchy(8)
    for kk, par in cfg["sec5"].items():
        gam, Hh = par["gamma"], (cfg["sec5_hidden"] or par["hidden"])
        task = contexts(8, kk, context_scale=gam)
        X, Y = task.numeric()
        P = X.shape[1]
        std = 0.005 / Hh
        Lr, rsn = relu_run(X, Y, hidden=Hh, lr=cfg["eta"], steps=cfg["steps"], seeds=seeds, init_std=std, loss="sum", record=[cfg["steps"]])
        t = np.arange(cfg["steps"] + 1)
        L0 = float(Lr[0, 0])
        gh = cfg["gdln_hidden"]
        spec = GDLNSpec(task, context_pathways(8, kk, context_family(kk, kk - 1), hidden=gh),
                        Training(lr=cfg["eta"], loss="sum", steps=cfg["steps"]))
        gstd = 10 * 0.0005 / (100 * (kk + 1))
        scheds = ("joint", "staged") if cfg["sec5_staged"] else ("joint",)
        gl, gsn = {}, {}
        for sch in scheds:
            gl[sch], gsn[sch] = gdln_run(spec, init_std=gstd, seeds=seeds, steps=cfg["steps"], schedule=sch, record=[cfg["steps"]])
        a0g = a0_rule(gstd, gh)
        tau_v = spec.tau
        L_cf = closed_form_loss(kres, H8, 8, kk, gam, t, tau_v, a0g, loss_factor=P)
        rf = race_flow(spec, T=cfg["steps"], a0=a0g, record_modes=False, dt=tau_v / cfg["race_dt"], record_every=1)
        L_race = race_loss_at(rf, t)
        # ReLU: fit (a0_common, a0_ctx) of the closed form on a fine log grid (vectorised, cheap)
        g = np.logspace(-11, -2, 55)
        Lm = Lr.mean(0)
        cm = closed_form_modes(kres, H8, 8, kk, gam)
        grid = closed_form_loss(kres, H8, 8, kk, gam, t, tau_v, g[:, None], g[None, :], loss_factor=P, modes=cm)
        errs = np.max(np.abs(grid - Lm), axis=-1) / L0
        i, j = np.unravel_index(int(np.argmin(errs)), errs.shape)
        best = ((float(g[i]), float(g[j])), float(errs[i, j]), grid[i, j])
        eg = np.max(np.abs(grid - gl["joint"].mean(0)), axis=-1) / L0
        ig, jg = np.unravel_index(int(np.argmin(eg)), eg.shape)
        best_g = ((float(g[ig]), float(g[jg])), float(eg[ig, jg]))
        # units
        W1f, W2f = rsn[cfg["steps"]]
        gates = unit_gates(np.einsum("shd,dp->shp", W1f, X))
        wts = unit_weights(W1f, W2f)
        uc = context_census(gates, kk, weights=wts)
        on = UnitGates(gates, kk, "majority").blocks_on
        on_hist = {str(c): {"units": int((on == c).sum()), "weight_share": float(wts[on == c].sum() / wts.sum())}
                   for c in range(kk + 1)}
        # end points: exact (closed form) vs GDLN (joint, and staged when run)
        sv = structure_values(H8)
        exact_ctx = sorted((float(kres.kminus1["end_point"].subs({ksym: kk, sig: st})) for st in sv["sigma_tilde"]),
                           reverse=True)
        sim_end = {}
        for sch in scheds:
            params = gsn[sch][cfg["steps"]]
            d = {}
            for i, p in enumerate(spec.pathways):
                W1, W2 = params[i]
                d[p.name] = np.array([svals(W2[s] @ W1[s], 8) for s in range(W1.shape[0])]).mean(0).tolist()
            sim_end[sch] = d
        ctx_names = [p.name for p in spec.pathways if p.name != "common"]
        ctx_mean_joint = np.mean([sim_end["joint"][nm] for nm in ctx_names], axis=0)
        out[str(kk)] = {
            "gamma": gam, "relu_hidden": Hh, "gdln_hidden_per_module": gh, "seeds": seeds, "L0": L0,
            "a0_gdln_rule": a0g, "a0_relu_fitted": {"common": best[0][0], "context": best[0][1]},
            "a0_closed_form_fitted_to_gdln": {"common": best_g[0][0], "context": best_g[0][1]},
            "max_abs_error_over_L0": {
                "gdln_joint_vs_closed_form": max_gap(gl["joint"].mean(0), L_cf, L0),
                "gdln_joint_vs_race": max_gap(gl["joint"].mean(0), L_race, L0),
                "closed_form_vs_race": max_gap(L_cf, L_race, L0),
                "relu_vs_closed_form_fitted_a0": best[1],
                "gdln_joint_vs_closed_form_fitted_a0": best_g[1],
                "relu_vs_gdln_joint": max_gap(Lm, gl["joint"].mean(0), L0),
                **({"gdln_staged_vs_closed_form": max_gap(gl["staged"].mean(0), L_cf, L0)} if "staged" in gl else {}),
            },
            "learning_time_errors_relu_vs_closed_form_fitted": time_errors(t, Lm, best[2], cfg["fractions"]),
            "learning_time_errors_gdln_vs_closed_form": time_errors(t, gl["joint"].mean(0), L_cf, cfg["fractions"]),
            "loss_at": {k_: loss_at_steps(t, c_, cfg["loss_at_steps"])
                        for k_, c_ in (("relu_mean", Lm), ("closed_form_rule_a0", L_cf), ("closed_form_fitted_a0", best[2]),
                                       ("race_rule_a0", L_race), ("gdln_joint", gl["joint"].mean(0)))},
            "end_points": {"exact_kminus1_context": exact_ctx[:8],
                           "exact_formula": "sqrt((k-1)/k) * sigma_tilde_alpha",
                           "gdln_joint_context_mean": ctx_mean_joint.tolist(),
                           "gdln_joint_common": sim_end["joint"]["common"],
                           **({"gdln_staged_context_mean": np.mean([sim_end["staged"][nm] for nm in ctx_names],
                                                                   axis=0).tolist()} if "staged" in sim_end else {})},
            "units": {"exact_significant": uc["significant"], "majority_significant": uc["significant_majority"],
                      "majority_significant_mean_purity": uc["significant_majority_mean_purity"],
                      "weight_share_majority": uc["weight_share_majority"],
                      "contexts_on_histogram_majority": on_hist},
            "_curves": {"t": t, "relu": Lr, "gdln": gl["joint"], "closed_form": L_cf, "closed_form_fit": best[2],
                        "race": L_race},
        }
        pr.update(note=f"Section 5 k={kk}")
    return out


# ---------------------------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------------------------


def snapshot_singular_values(s4, cfg):
    """Singular values of the race's and the ReLU groups' pathway maps at the snapshot steps."""
    spec = s4["spec_d"]
    snaps = s4["snaps"]
    rf = s4["race"]["double"]
    svs = {p.name: np.array([np.interp(snaps, rf.t, rf.extra["svals"][p.name][0][:, i]) for i in range(4)]).T
           for p in spec.pathways}
    s4["sv_race_svals"] = svs
    # ReLU: units grouped by final gating pattern (seed 0), item part of the group map at each snapshot
    rsn = s4["rsn"]
    X = s4["X"]
    groups = UnitGates(s4["final_gates"][0], 3, "majority").groups()
    rel = {}
    for lab, hs in groups.items():
        arr = []
        for s in snaps:
            W1, W2 = rsn[s][0][0], rsn[s][1][0]
            arr.append(np.pad(svals(W2[:, hs] @ W1[hs, :8], 4), (0, 4))[:4])
        rel[lab] = np.array(arr)
    s4["relu_group_svals"] = rel
