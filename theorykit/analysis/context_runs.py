"""The simulations and measurements of the contexts suite (Sections 4-5 of the paper).

The suite (``validation/contexts.py``) holds the settings, the claims and the figures; every step
that runs or measures something is here (and in :mod:`theorykit.analysis.context_races`), driven
by a settings dict ``cfg``: the suite's mode (seeds, widths, grids, …) together with the paper's
hyper-parameters ``eta``, ``steps``, ``sec4_blocks`` (the Section 4 task), ``sec5`` ({k: {gamma,
hidden}}), ``loss_at_steps`` and ``fractions`` (of L(0), for the learning times).

* the derivation and the races (Proposition 4.2 by exhaustion, the r-context families) are in
  :mod:`theorykit.analysis.context_races`;
* :func:`section4` -- ReLU networks, GDLNs and the race on the Section 4 task, their agreement,
  the units of the trained ReLU networks (:mod:`theorykit.theory.gates`), end points
  (:func:`end_points_sec4`), the staged scheme (:func:`staged_theory`) and MDS of the hidden
  representations (:func:`mds_at`); :func:`snapshot_singular_values` -- Fig. 4b's data;
* :func:`section5` -- k contexts: ReLU networks, GDLNs and the closed forms for k = 3 … 6.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..spec.gating import GDLNSpec, context_pathways
from ..spec.limits import fixed_size
from ..spec.task import contexts
from ..curves import best_grid_row, loss_at_steps, loss_metrics, max_gap, time_errors
from ..theory.gates import UnitGates, context_census, pathway_maps, unit_gates, unit_weights
from ..spec.gating import context_family
from ..record import SaveAt
from ..sim.simulation import simulate
from ..spec.graph import graph_from_pathways
from ..net.starts import a0_rule
from ..theory.k_algebra import k as ksym
from ..theory.k_algebra import sig, structure_values
from ..theory.k_contexts import closed_form_loss, closed_form_modes
from ..theory.lemmas import singular_values
from ..spec.task import hierarchy
from .context_races import suite_race, suite_spec

__all__ = ["section4", "staged_theory", "end_points_sec4", "mds_at", "mds_controls", "disparity_all_dims", "section5", "snapshot_singular_values", "svals", "hidden_rep_relu", "hidden_rep_gdln", "distances"]


# ---------------------------------------------------------------------------------------------
# hidden representations and pathway maps
# ---------------------------------------------------------------------------------------------
def svals(M, top=None):
    """Singular values of M, largest first (the ``top`` largest): :func:`theorykit.theory.lemmas.singular_values`."""
    s = singular_values(M)
    return s[:top] if top else s


def mean_svals(W1, W2, top):
    """Singular values (the ``top`` largest) of a pathway's map W2 W1, averaged over seeds (axis 0)."""
    return np.mean(np.linalg.svd(W2 @ W1, compute_uv=False)[:, :top or None], axis=0)


def _pathway_svals(spec, params, top=8):
    """{pathway name: :func:`mean_svals` of its map} for the params of ``spec``'s pathways, as lists."""
    return {p.name: mean_svals(*Ws, top).tolist() for p, Ws in zip(spec.pathways, params)}


def hidden_rep_relu(W1, X):
    """Hidden activity of a one-hidden-layer ReLU network (H × P)."""
    return np.maximum(W1 @ X, 0.0)


def hidden_rep_gdln(params, spec, X):
    """Hidden activity of a GDLN of ``spec``'s pathways (params per pathway, one network), stacked."""
    return np.concatenate([(Ws[0] @ X[list(p.inputs)]) * np.asarray(p.active, float)[None, :]
                           for Ws, p in zip(params, spec.pathways)], axis=0)


def distances(Hrep):
    """Euclidean distances between the datapoints' hidden representations (columns of Hrep)."""
    G = Hrep.T
    sq = np.sum(G ** 2, axis=1)
    D2 = np.clip(sq[:, None] + sq[None, :] - 2 * G @ G.T, 0, None)
    return np.sqrt(D2)


def _keep_sigma_sqrt_h(cfg, width: int) -> float:
    """Factor on the GDLNs' initial std that keeps σ√H (hence a0 = σ²H/2) at its value for the width
    ``cfg["gdln_sigma_width"]`` (1 when that key is absent: the paper's std at any width)."""
    ref = cfg.get("gdln_sigma_width")
    return float(np.sqrt(ref / width)) if ref else 1.0


# ---------------------------------------------------------------------------------------------
# Section 4 simulations
# ---------------------------------------------------------------------------------------------
def section4(cfg, pr) -> dict:
    seeds = cfg["seeds"]
    task = contexts(8, 3, blocks=cfg["sec4_blocks"], limits=fixed_size())
    X, Y = task.numeric()
    H = cfg["relu_hidden4"]
    std_relu = 0.005 / np.sqrt(700 * H)      # the paper's 0.005/700 at H = 700; other widths keep σ√H, hence a0
    snaps = list(range(0, cfg["steps"] + 1, cfg["snap_every"]))
    Lr, rsn = _relu_run(X, Y, hidden=H, lr=cfg["eta"], steps=cfg["steps"], seeds=seeds, init_std=std_relu, loss="sum", record=snaps)
    pr.update(note="ReLU network")
    t = np.arange(cfg["steps"] + 1)
    L0 = float(Lr[0, 0])
    gh = cfg["gdln_hidden"]
    b = 0.0005 / 700 * _keep_sigma_sqrt_h(cfg, gh)
    fams = {"double": [(0, 1), (0, 2), (1, 2)], "single": [(0,), (1,), (2,)],
            "all seven": [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]}
    gd, gsn, specs = {}, {}, {}
    for nm, subs in fams.items():
        spec = suite_spec(task, context_pathways(8, 3, subs, hidden=gh), cfg)
        specs[nm] = spec
        stds = {p.name: (10 * b if p.name == "common" else 20 * b) for p in spec.pathways}
        for sch in ("joint", "staged") if nm in cfg["staged_families"] else ("joint",):
            L, sn = _gdln_run(spec, init_std=stds, seeds=seeds, steps=cfg["steps"], schedule=sch,
                             record=snaps if (nm == "double") else [cfg["steps"]])
            gd[(nm, sch)] = L
            gsn[(nm, sch)] = sn
            pr.update(note=f"GDLN {nm} {sch}")
    # theory: race reduction (joint) with a0 by rule, per pathway
    a0c, a0x = a0_rule(10 * b, gh), a0_rule(20 * b, gh)
    race = {}
    for nm, spec in specs.items():
        a0v = [a0c if p.name == "common" else a0x for p in spec.pathways]
        race[nm] = suite_race(spec, cfg, np.array(a0v), every=1, svals=4 if nm == "double" else 0)
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
        rf = suite_race(spec_d, cfg, Ab, masks=np.ones((len(Ab), 4)))
        return np.stack([rf.loss_at(t, i) for i in range(len(Ab))])

    a_fit, err_fit, L_fit = best_grid_row(pred, A, Lm, L0)
    relu_rule = a0_rule(std_relu, H)
    L_relu_rule = pred(np.array([[relu_rule] * 4]))[0]
    pr.update(note="a0 fit")
    L_race_rule = race["double"].loss_at(t)
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
                                                                            race["single"].loss_at(t), L0),
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
    # Fig. 4c's controls: the same disparity against the ReLNs of the wrong gatings (same runs, last step)
    mds_ctrl = mds_controls(rsn, {nm: gsn[(nm, "joint")] for nm in specs}, specs, X, cfg["steps"])
    pr.update(note="Section 4 analysis")
    return {"t": t, "L0": L0, "relu": Lr, "gdln": gd, "race": race, "staged": staged, "fit_curve": L_fit,
            "relu_rule_curve": L_relu_rule, "agreement": agreement, "loss_at": loss_at, "joint_vs_staged": js,
            "units": units, "end_points": ends, "mds": mds, "mds_controls": mds_ctrl, "rsn": rsn, "gsn": gsn,
            "spec_d": spec_d, "snaps": snaps, "X": X, "final_gates": gates, "wts": wts, "per_seed": per_seed}


def staged_theory(task, spec_d, a0c, a0x, cfg):
    """The paper's scheme: the common pathway alone on the targets, the context pathways on its residual."""
    X, Y = task.numeric()
    W = np.linalg.lstsq(X.T, Y.T, rcond=None)[0].T
    R = Y - W @ X
    spec_c = GDLNSpec(task, [spec_d.pathways[0]], spec_d.training)
    rc = suite_race(spec_c, cfg, a0c, every=1)
    spec_r = GDLNSpec(task, list(spec_d.pathways[1:]), spec_d.training)
    rr = suite_race(spec_r, cfg, a0x, every=1, target=R)
    # the loss decomposes: additive part (common) + interaction part (context pathways on R)
    Lres0 = 0.5 * np.sum(R ** 2)
    Lc = rc.loss_at(np.arange(cfg["steps"] + 1))           # common alone on Y: ends at the residual loss
    Lr_ = rr.loss_at(np.arange(cfg["steps"] + 1))          # context pathways on R: starts at Lres0
    # is the common pathway's Σx diagonal in its modes here? (no for the ring: closed form approximate)
    return {"loss": Lc - Lres0 + Lr_, "residual_loss": float(Lres0), "note":
            "common pathway integrated alone on the targets (its input correlation is not diagonal in its modes "
            "for the ring block, so its closed form is only approximate and the flow is integrated), context "
            "pathways integrated on the exact least-squares residual from t = 0; loss = common part + residual part"}


def end_points_sec4(spec_d, task, a0v, gsn, rsn, gates, wts, per_seed, cfg, race8000):
    X, Y = task.numeric()
    Tlong = 40000
    rf = suite_race(spec_d, cfg, np.array(a0v), every=100, t_end=Tlong)
    out = {"exact_note": "race reduction integrated to t = 40000 steps (converged), singular values of each pathway's map"}
    ex = {p.name: svals(rf.params[p.name][0], 8).tolist() for p in spec_d.pathways}
    # GDLN joint and staged (mean over seeds of sorted singular values)
    sim = {f"gdln_{sch}": _pathway_svals(spec_d, gsn[("double", sch)][cfg["steps"]]) for sch in ("joint", "staged")}
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
    out["race_at_8000"] = {p.name: svals(race8000.params[p.name][0], 8).tolist() for p in spec_d.pathways}
    return out


def disparity_all_dims(Ha, Hb) -> float:
    """Procrustes disparity of the full classical-MDS configurations of two hidden representations
    (units × datapoints): as many dimensions as both representations and the datapoints allow (Fig. 4c's
    number; :func:`mds_at`)."""
    from scipy.spatial import procrustes

    Da, Db = distances(Ha), distances(Hb)
    m_ = min(Ha.shape[0], Hb.shape[0], Da.shape[0] - 1)
    Fa, Fb = classical_mds(Da, m_), classical_mds(Db, m_)
    if np.allclose(Fa, 0) or np.allclose(Fb, 0):
        return float("nan")         # a representation with no spread: nothing to align
    return float(procrustes(Fa, Fb)[2])


def mds_controls(rsn, gsn_by_family, specs, X, step) -> dict:
    """Fig. 4c with its controls: at ``step``, the disparity (:func:`disparity_all_dims`) of each seed's
    ReLU representation with the same seed's ReLN of every gating in ``specs`` (the paper's "double" and
    the wrong gatings the suite trains beside it: "single", "all seven"), and, as the seed-to-seed scale,
    the disparity between two seeds of the ReLU network and between two seeds of each ReLN (seed 0 with
    each other seed). Empty where ``step`` was not recorded for the ReLU network or a family."""
    if step not in rsn or any(step not in g for g in gsn_by_family.values()):
        return {}
    W1r = rsn[step][0]
    seeds = W1r.shape[0]
    relu = [hidden_rep_relu(W1r[s], X) for s in range(seeds)]
    reln = {nm: [hidden_rep_gdln([[Ws[0][s], Ws[1][s]] for Ws in gsn_by_family[nm][step]], specs[nm], X)
                 for s in range(seeds)] for nm in gsn_by_family}
    return {"step": int(step), "seeds": int(seeds),
            "relu_vs_reln": {nm: [disparity_all_dims(relu[s], reln[nm][s]) for s in range(seeds)] for nm in reln},
            "seed0_vs_other_seeds": {"relu": [disparity_all_dims(relu[0], relu[s]) for s in range(1, seeds)],
                                     **{nm: [disparity_all_dims(reln[nm][0], reln[nm][s]) for s in range(1, seeds)]
                                        for nm in reln}}}


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
# Section 5
# ---------------------------------------------------------------------------------------------
def section5(cfg, kres, pr) -> dict:
    seeds = cfg["seeds"]
    out = {}
    H8 = hierarchy(8, limits=fixed_size())
    for kk, par in cfg["sec5"].items():
        gam, Hh = par["gamma"], (cfg["sec5_hidden"] or par["hidden"])
        task = contexts(8, kk, context_scale=gam, limits=fixed_size())
        X, Y = task.numeric()
        P = X.shape[1]
        std = 0.005 / np.sqrt(Hh * (cfg.get("sec5_sigma_width") or Hh))   # 0.005/H, or σ√H of that width kept
        Lr, rsn = _relu_run(X, Y, hidden=Hh, lr=cfg["eta"], steps=cfg["steps"], seeds=seeds, init_std=std, loss="sum", record=[cfg["steps"]])
        t = np.arange(cfg["steps"] + 1)
        L0 = float(Lr[0, 0])
        gh = cfg["gdln_hidden"]
        spec = suite_spec(task, context_pathways(8, kk, context_family(kk, kk - 1), hidden=gh), cfg)
        gstd = 10 * 0.0005 / (100 * (kk + 1)) * _keep_sigma_sqrt_h(cfg, gh)
        scheds = ("joint", "staged") if cfg["sec5_staged"] else ("joint",)
        gl, gsn = {}, {}
        for sch in scheds:
            gl[sch], gsn[sch] = _gdln_run(spec, init_std=gstd, seeds=seeds, steps=cfg["steps"], schedule=sch, record=[cfg["steps"]])
        a0g = a0_rule(gstd, gh)
        tau_v = spec.tau
        L_cf = closed_form_loss(kres, H8, 8, kk, gam, t, tau_v, a0g, loss_factor=P)
        rf = suite_race(spec, cfg, a0g, every=1)
        L_race = rf.loss_at(t)
        # ReLU: fit (a0_common, a0_ctx) of the closed form on a fine log grid (vectorised, cheap)
        g = np.logspace(-11, -2, cfg.get("sec5_fit_grid", 55))
        Lm = Lr.mean(0)
        cm = closed_form_modes(kres, H8, 8, kk, gam)
        grid = closed_form_loss(kres, H8, 8, kk, gam, t, tau_v, g[:, None], g[None, :], loss_factor=P, modes=cm)
        pairs = np.array([(a, c) for a in g for c in g])          # the grid's rows, flattened in its order
        flat = grid.reshape(len(pairs), -1)
        best = best_grid_row(lambda _: flat, pairs, Lm, L0)
        best_g = best_grid_row(lambda _: flat, pairs, gl["joint"].mean(0), L0)
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
        sim_end = {sch: _pathway_svals(spec, gsn[sch][cfg["steps"]]) for sch in scheds}
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
# data of Fig. 4b
# ---------------------------------------------------------------------------------------------


def snapshot_singular_values(s4, cfg):
    """Singular values of the race's and the ReLU groups' pathway maps at the snapshot steps."""
    spec = s4["spec_d"]
    snaps = s4["snaps"]
    rf = s4["race"]["double"]
    svs = {p.name: np.array([np.interp(snaps, rf.t, rf.saved["svals"][p.name][0][:, i]) for i in range(4)]).T
           for p in spec.pathways}
    s4["sv_race_svals"] = svs
    # ReLU: units grouped by final gating pattern (seed 0), item part of the group map at each snapshot
    rsn = s4["rsn"]
    groups = UnitGates(s4["final_gates"][0], 3, "majority").groups()
    rel = {}
    for lab, hs in groups.items():
        arr = []
        for s in snaps:
            W1, W2 = rsn[s][0][0], rsn[s][1][0]
            arr.append(np.pad(svals(W2[:, hs] @ W1[hs, :8], 4), (0, 4))[:4])
        rel[lab] = np.array(arr)
    s4["relu_group_svals"] = rel


# ---------------------------------------------------------------------------------------------
# Reading a trained ReLU network
# ---------------------------------------------------------------------------------------------
def classical_mds(D: np.ndarray, dim: int = 2) -> np.ndarray:
    """Classical (Torgerson) MDS of a distance matrix: coordinates (points × dim)."""
    D = np.asarray(D, dtype=float)
    m = D.shape[0]
    J = np.eye(m) - np.ones((m, m)) / m
    Bm = -0.5 * J @ (D ** 2) @ J
    w, Q = np.linalg.eigh(0.5 * (Bm + Bm.T))
    idx = np.argsort(w)[::-1][:dim]
    return Q[:, idx] * np.sqrt(np.clip(w[idx], 0, None))


# ---------------------------------------------------------------------------------------------
# Simulations with weight snapshots (the suite's runs, through the one simulate)
# ---------------------------------------------------------------------------------------------
def _param_saver(record, steps):
    """The steps to record the weights at, and the :class:`SaveAt` that records them."""
    record = sorted(set(int(r) for r in record if 0 <= r <= steps))
    return record, SaveAt(ts=record, fns={"params": lambda p, d: p} if record else {})


def _relu_run(X, Y, *, hidden: int, lr: float, steps: int, seeds: int, init_std: float, loss: str = "sum",
              dtype: str = "float64", seed: int = 0, record: Sequence[int] = ()):
    """Bias-free one-hidden-layer ReLU networks, vmapped over seeds, with parameter snapshots:
    :func:`theorykit.sim.simulation.simulate` (``network="relu"``) and the parameters at the steps in
    ``record``.
    Returns (loss[seeds, steps+1], snaps: dict step -> [W1 (seeds×H×d), W2 (seeds×p×H)]).
    """
    record, save = _param_saver(record, steps)
    res = simulate((X, Y), network="relu", hidden=hidden, lr=lr, steps=steps, seeds=seeds, init_std=init_std,
                   loss=loss, dtype=dtype, seed=seed, save=save, check=False)
    keys = ["input->h1", "h1->output"]
    snaps = {s: [np.asarray(res.saved["params"][k])[:, j] for k in keys] for j, s in enumerate(record)}
    return res.loss, snaps


def _gdln_run(spec, *, init_std, seeds: int, steps: int, schedule: str = "joint", record: Sequence[int] = ()):
    """GDLN gradient descent with per-pathway random initial scales and parameter snapshots:
    :func:`theorykit.sim.simulation.simulate` with ``init="random"``.

    ``init_std``: one float or a mapping pathway name → std (the paper's GDLNs use 10·b for the
    common pathway and 20·b for the others). ``schedule``: "joint" (total loss) or "staged"
    (the common pathway on the targets, the others on its residual). Returns
    (loss[seeds, steps+1] of the total loss, snaps: dict step -> params list per pathway).
    """

    g = graph_from_pathways(spec)
    record, save = _param_saver(record, steps)
    res = simulate(g, init="random", seeds=seeds, steps=steps, init_std=init_std, schedule=schedule, save=save)
    saved = res.saved.get("params", {})
    snaps = {s: [[np.asarray(saved[k])[:, j] for k in gp.edges] for gp in g.pathways] for j, s in enumerate(record)}
    return res.loss, snaps
