"""Figures of suite ``contexts`` (Figs. 4a-c, 5), drawn from the results of
:mod:`theorykit.analysis.context_runs`."""
from __future__ import annotations

import numpy as np

from theorykit.analysis.context_runs import mean_svals
from theorykit.io import write_json, write_figure

from ._common import pyplot


def fig4a(s4, path):
    plt = pyplot()

    t = s4["t"]
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.2), layout="constrained")
    for a, logy in zip(ax, (False, True)):
        Lr = s4["relu"]
        a.plot(t, Lr.mean(0), color="k", lw=2.2, label="ReLU network (mean of seeds)")
        a.fill_between(t, Lr.mean(0) - Lr.std(0), Lr.mean(0) + Lr.std(0), color="k", alpha=0.15)
        a.plot(t, s4["gdln"][("double", "joint")].mean(0), color="C0", lw=1.6, label="ReLN double (GDLN, joint)")
        a.plot(t, s4["gdln"][("double", "staged")].mean(0), color="C0", lw=1.0, ls=":", label="ReLN double (staged)")
        a.plot(t, s4["gdln"][("single", "joint")].mean(0), color="C3", lw=1.6, label="ReLN single (GDLN, joint)")
        a.plot(t, s4["gdln"][("all seven", "joint")].mean(0), color="C2", lw=1.0, label="all seven (GDLN, joint)")
        a.plot(t, s4["race"]["double"].loss_at(t), color="C1", ls="--", lw=1.6, label="race reduction, double (rule a0)")
        a.plot(t, s4["race"]["single"].loss_at(t), color="C4", ls="--", lw=1.2, label="race reduction, single")
        a.plot(t, s4["fit_curve"], color="C1", ls="-.", lw=1.0, label="race reduction, double (a0 fitted to ReLU)")
        a.plot(t, s4["staged"]["loss"], color="C5", ls=(0, (1, 1)), lw=1.6, label="closed form / staged theory")
        a.set_xlabel("gradient step")
        a.set_ylabel("loss (summed)")
        if logy:
            a.set_yscale("log")
    ax[0].legend(fontsize=7)
    fig.suptitle("Fig. 4a: context task (hierarchy, ring, cross), 3 contexts")
    write_figure(fig, path, tight=True)
    sub = slice(None, None, 10)
    write_json(path.with_suffix(".json"), {
        "figure": "4a", "every": 10, "t": t[sub], "relu_mean": s4["relu"].mean(0)[sub], "relu_std": s4["relu"].std(0)[sub],
        **{f"gdln_{nm.replace(' ', '_')}_{sch}": L.mean(0)[sub] for (nm, sch), L in s4["gdln"].items()},
        "race_double_rule_a0": s4["race"]["double"].loss_at(t)[sub],
        "race_single_rule_a0": s4["race"]["single"].loss_at(t)[sub],
        "race_all_seven_rule_a0": s4["race"]["all seven"].loss_at(t)[sub],
        "race_double_a0_fitted_to_relu": s4["fit_curve"][sub], "staged_theory": s4["staged"]["loss"][sub],
        "staged_theory_note": s4["staged"]["note"]})


def fig4b(s4, path):
    plt = pyplot()

    spec = s4["spec_d"]
    snaps = [s for s in s4["snaps"] if s in s4["gsn"][("double", "joint")]]
    names = [p.name for p in spec.pathways]
    fig, ax = plt.subplots(1, len(names), figsize=(4 * len(names), 3.6), sharey=False,
                           layout="constrained")   # the suptitle above the panel titles, not over them
    data = {}
    for j, (nm, a) in enumerate(zip(names, ax)):
        # GDLN joint: singular values of W2 W1 (mean over seeds)
        sv = np.array([mean_svals(*s4["gsn"][("double", "joint")][s][j], 4) for s in snaps])
        # race: singular values at snapshots from a sparse re-run
        rs = s4["sv_race_svals"][nm]
        # ReLU groups
        rl = s4["relu_group_svals"].get(nm)
        for i in range(sv.shape[1]):
            a.plot(snaps, sv[:, i], color=f"C{i}", lw=1.8, label="GDLN (joint)" if i == 0 else None)
            a.plot(snaps, rs[:, i], color=f"C{i}", ls="--", lw=1.2, label="race reduction" if i == 0 else None)
            if rl is not None:
                a.plot(snaps, rl[:, i], color=f"C{i}", ls=":", lw=1.2, label="ReLU units grouped" if i == 0 else None)
        a.set_title(nm)
        a.set_xlabel("gradient step")
        data[nm] = {"t": snaps, "gdln_joint": sv.tolist(), "race": rs.tolist(),
                    "relu_groups": None if rl is None else rl.tolist()}
    ax[0].set_ylabel("singular value of the pathway map")
    ax[0].legend(fontsize=7)
    fig.suptitle("Fig. 4b: singular-value trajectories of each pathway (top 4)")
    write_figure(fig, path, tight=True)
    write_json(path.with_suffix(".json"), {"figure": "4b", "pathways": data,
                                           "note": "GDLN: mean over seeds of the singular values of W2 W1; race: "
                                                   "singular values of the race's maps; ReLU: units grouped by majority "
                                                   "context gating at the end (seed 0), item part of their map"})
    return data


def fig4c(s4, path):
    from scipy.spatial import procrustes

    plt = pyplot()

    mds = s4["mds"]
    times = sorted(mds)
    if not times:
        return {}
    fig, ax = plt.subplots(2, len(times), figsize=(4 * len(times), 7.5), squeeze=False, layout="constrained")
    cols = [f"C{c}" for c in range(3)]
    for j, tt in enumerate(times):
        d = mds[tt]
        Zr, Zg, _ = procrustes(d["Z_relu"], d["Z_reln"])
        for row, (Z, lab) in enumerate(((Zr, "ReLU"), (Zg, "ReLN (GDLN double, joint)"))):
            a = ax[row][j]
            for c in range(3):
                sl = slice(c * 8, (c + 1) * 8)
                a.scatter(Z[sl, 0], Z[sl, 1], color=cols[c], s=22, label=f"context {c + 1}")
                for i in range(8):
                    a.annotate(str(i), Z[c * 8 + i], fontsize=6)
            a.set_title(f"{lab}, step {tt}\nProcrustes disparity {d['procrustes_disparity']:.3g} (2-D), "
                        f"{d['procrustes_disparity_all_dims']:.3g} (all dims)", fontsize=8)
            a.set_xticks([])
            a.set_yticks([])
    ax[0][0].legend(fontsize=7)
    fig.suptitle("Fig. 4c: MDS of hidden representations (after Procrustes alignment)")
    write_figure(fig, path, tight=True)
    write_json(path.with_suffix(".json"), {"figure": "4c", "datapoints": "context-major, 8 items per context",
                                           "times": {str(tt): {k_: v for k_, v in mds[tt].items()} for tt in times}})
    return {str(tt): {"procrustes_disparity": mds[tt]["procrustes_disparity"],
                      "procrustes_disparity_all_dims": mds[tt]["procrustes_disparity_all_dims"],
                      "distance_correlation": mds[tt]["distance_correlation"]} for tt in times}


def fig5(s5, path):
    plt = pyplot()

    ks = sorted(s5, key=int)
    fig, ax = plt.subplots(1, len(ks), figsize=(4.2 * len(ks), 3.8), squeeze=False, layout="constrained")
    ax = ax[0]                      # one row of panels, also for a single k
    sub = slice(None, None, 10)
    data = {}
    for a, kk in zip(ax, ks):
        c = s5[kk]["_curves"]
        t = c["t"]
        m, s = c["relu"].mean(0), c["relu"].std(0)
        a.plot(t, m, color="k", lw=2.2, label="ReLU (mean)")
        a.fill_between(t, m - s, m + s, color="k", alpha=0.15)
        a.plot(t, c["gdln"].mean(0), color="C0", lw=1.6, label="GDLN common + (k-1)-context (joint)")
        a.plot(t, c["closed_form"], color="C1", ls="--", lw=1.6, label="closed form (rule a0)")
        a.plot(t, c["closed_form_fit"], color="C1", ls="-.", lw=1.0, label="closed form (a0 fitted to ReLU)")
        a.plot(t, c["race"], color="C2", ls=":", lw=1.4, label="race reduction (joint, rule a0)")
        a.set_title(f"k = {kk} (gamma = {s5[kk]['gamma']}){' — not in the paper' if kk == '6' else ''}", fontsize=9)
        a.set_xlabel("gradient step")
        data[kk] = {"gamma": s5[kk]["gamma"], "t": t[sub], "relu_mean": m[sub], "relu_std": s[sub],
                    "gdln_joint_mean": c["gdln"].mean(0)[sub], "closed_form_rule_a0": c["closed_form"][sub],
                    "closed_form_a0_fitted_to_relu": c["closed_form_fit"][sub], "race_rule_a0": c["race"][sub]}
    ax[0].set_ylabel("loss (summed)")
    ax[0].legend(fontsize=7)
    fig.suptitle("Fig. 5: closed form vs GDLN vs ReLU, every block the hierarchy")
    write_figure(fig, path, tight=True)
    write_json(path.with_suffix(".json"), {"figure": "5", "every": 10, "k": data})
