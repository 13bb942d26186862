"""Figures of suite ``contexts`` (Figs. 4a-c, 5), drawn from the results of
:mod:`theorykit.analysis.context_runs`."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from theorykit.analysis.context_runs import mean_svals
from theorykit.curves import nan_to_none
from theorykit.errors import SpecError
from theorykit.io import SIMULATION_STYLE, new_figure, read_json, subplots, write_json, write_figure



#: the curves of Fig. 4a: (key in its data and JSON, label, panel style), simulation first, then theory.
#: Every simulation solid, every theory dashed or dotted (the staged GDLN run was dotted, like the theory
#: curves: a dark blue line inside the joint run's wide pale one now)
FIG4A_SIM = (("gdln_double_joint", "ReLN double (GDLN, joint)", dict(color="C0", lw=2.6, alpha=0.75)),
             ("gdln_double_staged", "ReLN double (GDLN, staged)", dict(color="#08306b", lw=1.1)),
             ("gdln_single_joint", "ReLN single (GDLN, joint)", dict(color="C3", lw=2.6, alpha=0.75)),
             ("gdln_all_seven_joint", "all seven (GDLN, joint)", dict(color="C2", lw=1.4, alpha=0.9)))
FIG4A_THEORY = (("race_double_rule_a0", "race reduction, double (rule a0)", dict(color="C1", ls="--", lw=1.4)),
                ("race_single_rule_a0", "race reduction, single (rule a0)", dict(color="C4", ls="--", lw=1.4)),
                ("race_double_a0_fitted_to_relu", "race reduction, double (a0 fitted to ReLU)",
                 dict(color="C1", ls="-.", lw=1.2)),
                ("staged_theory", "closed form / staged theory", dict(color="C5", ls=(0, (1, 1)), lw=1.8)))


def fig4a_data(s4) -> dict:
    """Fig. 4a's curves from the suite's runs ``s4``, at every step: what :func:`plot_fig4a` draws and (every
    10th point) what ``fig4a_loss.json`` keeps."""
    t = s4["t"]
    return {"figure": "4a", "every": 1, "seeds": len(s4["relu"]), "t": t, "relu_mean": s4["relu"].mean(0),
            "relu_std": s4["relu"].std(0),
            **{f"gdln_{nm.replace(' ', '_')}_{sch}": L.mean(0) for (nm, sch), L in s4["gdln"].items()},
            "race_double_rule_a0": s4["race"]["double"].loss_at(t),
            "race_single_rule_a0": s4["race"]["single"].loss_at(t),
            "race_all_seven_rule_a0": s4["race"]["all seven"].loss_at(t),
            "race_double_a0_fitted_to_relu": s4["fit_curve"], "staged_theory": s4["staged"]["loss"],
            "staged_theory_note": s4["staged"]["note"]}


def plot_fig4a(d: dict):
    """Fig. 4a from its curves ``d`` (:func:`fig4a_data`, or ``fig4a_loss.json`` as read): the loss of the
    ReLU network and the ReLN simulations (solid and wide, the ReLU network above the ReLNs) under the theory
    curves (dashed or dotted, narrow, on top), linear and log scale; one key right of the figure, in two
    groups, simulation and theory. Returns the figure."""
    t = np.asarray(d["t"], dtype=float)
    mean, std = np.asarray(d["relu_mean"], dtype=float), np.asarray(d["relu_std"], dtype=float)
    fig, ax = subplots(1, 2, figsize=(11, 4.2), layout="constrained")
    sim, theory = [], []
    for a, logy in zip(ax, (False, True)):
        a.fill_between(t, mean - std, mean + std, color="k", alpha=0.15, zorder=1)
        sim = [a.plot(t, mean, color="k", lw=2.2, zorder=2.5, label=f"ReLU network (mean ± std of {d['seeds']} seeds)")[0]]
        sim += [a.plot(t, np.asarray(d[key], dtype=float), zorder=2, label=lab, **style)[0]
                for key, lab, style in FIG4A_SIM]
        theory = [a.plot(t, np.asarray(d[key], dtype=float), zorder=3, label=lab, **style)[0]
                  for key, lab, style in FIG4A_THEORY]
        a.set_xlabel("gradient step")
        a.set_ylabel("loss (summed over the datapoints)")
        a.set_title("log scale" if logy else "linear scale", fontsize=10)
        if logy:
            a.set_yscale("log")
    fig.legend(handles=sim, title="simulation", loc="upper left", bbox_to_anchor=(1.0, 0.95), fontsize=8,
                       title_fontsize=8, alignment="left")
    fig.legend(handles=theory, title="theory", loc="upper left", bbox_to_anchor=(1.0, 0.55), fontsize=8,
               title_fontsize=8, alignment="left")
    fig.suptitle("Fig. 4a: context task (hierarchy, ring, cross), 3 contexts: loss by gradient step")
    return fig


def fig4a(s4, path):
    """Fig. 4a (:func:`plot_fig4a`) at every step into ``path``, and every 10th point of its curves
    (:func:`fig4a_data`) into the JSON beside it, which :func:`redraw_fig4a` draws again."""
    d = fig4a_data(s4)
    write_figure(plot_fig4a(d), path, tight=True)
    sub = slice(None, None, 10)
    words = ("figure", "every", "seeds", "staged_theory_note")          # the rest are curves over t
    write_json(path.with_suffix(".json"), {k: (v if k in words else np.asarray(v)[sub]) for k, v in d.items()}
               | {"every": 10})


def redraw_fig4a(json_path, path=None):
    """Fig. 4a drawn again from a ``fig4a_loss.json`` the suite wrote (every 10th step), without a run, by the
    suite's own drawing (:func:`plot_fig4a`), into ``path`` (default: the .png beside the JSON). A JSON
    written before it kept the seed count is refused: rerun ``theorykit validate contexts``."""
    json_path = Path(json_path)
    d = read_json(json_path, "give the fig4a_loss.json that theorykit validate contexts wrote")
    need = ["seeds", "t", "relu_mean", "relu_std"] + [k for k, _, _ in FIG4A_SIM + FIG4A_THEORY]
    missing = [k for k in need if not isinstance(d, dict) or k not in d]
    if missing:
        raise SpecError(missing[0], f"{json_path} has no {', '.join(missing)} (not Fig. 4a's JSON, or written "
                                    "before the seed count was kept)",
                        "run theorykit validate contexts again (--quick or --full, --out DIR)")
    out = json_path.with_suffix(".png") if path is None else path
    return write_figure(plot_fig4a(d), out, tight=True)


#: The docs show a figure about 750 px wide, whatever its size in inches: text of ``pt`` points in a figure
#: ``w`` inches wide shows ``pt × 750 / (72 × w)`` px high there. Figs. 4b and 5 keep that at 8 px or more
#: for their smallest text (before: 16-17 in wide with 7-8 pt keys, 3-5 px): a grid of at most two panels a
#: row, the keys beside or below them, no text under 9 pt (9 pt reads as 8 px up to 11.7 in wide).
DOCS_WIDTH_PX, DOCS_MIN_TEXT_PX, SMALLEST_PT = 750, 8, 9


def _panel_grid(n: int, panel_w: float, panel_h: float, extra_w: float = 0.0, extra_h: float = 0.0):
    """A figure of ``n`` panels, at most two a row (:data:`DOCS_WIDTH_PX`), each ``panel_w`` × ``panel_h`` in,
    plus ``extra_w`` / ``extra_h`` in for the keys; a grid cell with no panel (odd ``n``) removed, so the
    figure's axes are the panels in order. Returns the figure and its panels."""
    cols = min(n, 2)
    rows = -(-n // cols)
    fig, ax = subplots(rows, cols, figsize=(panel_w * cols + extra_w, panel_h * rows + extra_h), squeeze=False,
                       layout="constrained")   # the suptitle above the panel titles, not over them
    ax = list(ax.ravel())
    for a in ax[n:]:
        fig.delaxes(a)
    return fig, ax[:n]


#: Fig. 4b's line styles: each pathway's singular values by three methods, a colour per mode
FIG4B_STYLES = (("gdln_joint", "GDLN (joint)", dict(ls="-", lw=1.8)),
                ("race", "race reduction", dict(ls="--", lw=1.2)),
                ("relu_groups", "ReLU units grouped", dict(ls=":", lw=1.2)))


def plot_fig4b(data: dict):
    """Fig. 4b from its curves ``data`` (pathway name -> ``{"t", "gdln_joint", "race", "relu_groups"}``, as
    :func:`fig4b` computes them and ``fig4b_singular_values.json`` keeps them under ``pathways``): a panel per
    pathway, its singular values by step, a colour per mode and a line style per method; two keys right of
    the panels, method (line style) and mode (colour). Returns the figure."""
    from matplotlib.lines import Line2D

    names = list(data)
    fig, ax = _panel_grid(len(names), 3.6, 2.9, extra_w=1.9, extra_h=0.5)     # two a row, readable at docs width
    modes = 0
    for nm, a in zip(names, ax):
        d = data[nm]
        top = np.asarray(d["gdln_joint"], dtype=float).shape[1]      # the GDLN's top modes; the others' as many
        modes = max(modes, top)
        for key, _, style in FIG4B_STYLES:
            if d.get(key) is None:
                continue
            sv = np.asarray(d[key], dtype=float)
            for i in range(min(top, sv.shape[1])):
                a.plot(d["t"], sv[:, i], color=f"C{i}", **style)
        a.set_title(nm)
        a.set_xlabel("gradient step")
        a.set_ylabel("singular value of the pathway map")    # every panel: each has its own y range
    # the keys sit right of the last panel, over no curve (before: the mode colours had no key, and the
    # line styles' key lay inside the first panel)
    shown = [(lab, style) for key, lab, style in FIG4B_STYLES if any(data[nm].get(key) is not None for nm in names)]
    kw = dict(loc="outside right upper", fontsize=SMALLEST_PT, title_fontsize=SMALLEST_PT, alignment="left")
    fig.legend(handles=[Line2D([], [], color="0.25", label=lab, **style) for lab, style in shown], title="method",
               **kw)
    fig.legend(handles=[Line2D([], [], color=f"C{i}", lw=1.8, label=f"mode {i + 1}" + (" (largest)" if i == 0 else ""))
                        for i in range(modes)], title="mode (colour)", **(kw | {"loc": "outside right lower"}))
    fig.suptitle("Fig. 4b: singular-value trajectories of each pathway (top 4)")
    return fig


def fig4b(s4, path):
    spec = s4["spec_d"]
    snaps = [s for s in s4["snaps"] if s in s4["gsn"][("double", "joint")]]
    names = [p.name for p in spec.pathways]
    data = {}
    for j, nm in enumerate(names):
        # GDLN joint: singular values of W2 W1 (mean over seeds)
        sv = np.array([mean_svals(*s4["gsn"][("double", "joint")][s][j], 4) for s in snaps])
        # race: singular values at snapshots from a sparse re-run
        rs = s4["sv_race_svals"][nm]
        # ReLU groups
        rl = s4["relu_group_svals"].get(nm)
        data[nm] = {"t": snaps, "gdln_joint": sv.tolist(), "race": np.asarray(rs).tolist(),
                    "relu_groups": None if rl is None else np.asarray(rl).tolist()}
    write_figure(plot_fig4b(data), path, tight=True)
    write_json(path.with_suffix(".json"), {"figure": "4b", "pathways": data,
                                           "note": "GDLN: mean over seeds of the singular values of W2 W1; race: "
                                                   "singular values of the race's maps; ReLU: units grouped by majority "
                                                   "context gating at the end (seed 0), item part of their map"})
    return data


#: Fig. 4c's gatings as its controls panel labels them (the paper's ReLN first)
FIG4C_GATINGS = {"double": "paper's ReLN\n(common + double)", "single": "common + single\n(wrong gating)",
                 "all seven": "all seven pathways\n(wrong gating)"}


def fig4c(s4, path, controls=None):
    """Fig. 4c: the MDS panels (ReLU network above, the paper's ReLN below, at each recorded step) and,
    under them, the controls panel: per seed, the disparity of the ReLU network with each gating's ReLN
    (lines join a seed's values: the comparison is paired), the seed-scatter margin above the paper's
    ReLN shaded. ``controls``: the Fig. 4c row's comparison (``validation.contexts._fig4c_controls``);
    its numbers go to the JSON under ``controls``."""
    from scipy.spatial import procrustes

    mds = s4["mds"]
    times = sorted(mds)
    if not times:
        return {}
    controls = controls or {}
    fig = new_figure(figsize=(max(4 * len(times), 9), 12), layout="constrained")
    grid = fig.add_gridspec(3, len(times), height_ratios=(1, 1, 0.95))
    ax = [[fig.add_subplot(grid[r, j]) for j in range(len(times))] for r in range(2)]
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
    _fig4c_controls_panel(grid[2, :], controls, s4.get("mds_controls") or {})
    fig.suptitle("Fig. 4c: MDS of hidden representations (after Procrustes alignment); below, the same "
                 "disparity for the wrong gatings (controls)")
    write_figure(fig, path, tight=True)
    ctrl_json = {k_: controls[k_] for k_ in ("paper", "controls", "margin", "closer", "per_seed", "text")
                 if k_ in controls}
    if controls.get("per_seed"):
        ctrl_json["step"] = (s4.get("mds_controls") or {}).get("step")
    write_json(path.with_suffix(".json"), {"figure": "4c", "datapoints": "context-major, 8 items per context",
                                           "times": {str(tt): {k_: v for k_, v in mds[tt].items()} for tt in times},
                                           "controls": nan_to_none(ctrl_json)})     # NaN margin: one seed
    return {str(tt): {"procrustes_disparity": mds[tt]["procrustes_disparity"],
                      "procrustes_disparity_all_dims": mds[tt]["procrustes_disparity_all_dims"],
                      "distance_correlation": mds[tt]["distance_correlation"]} for tt in times}


def _fig4c_controls_panel(cell, cmp, ctrl):
    """The controls row (``cell``, a grid cell): left, each gating's per-seed disparity with the ReLU
    network (dots, a line per seed: the comparison is paired; the mean a bar, printed; the margin a scale
    bar beside the paper's ReLN); right, per seed, how much farther each control is than the paper's
    ReLN, against the margin (the Fig. 4c row's test: above the margin in every seed)."""
    fig = cell.get_gridspec().figure
    per = cmp.get("per_seed") or {}
    if not per:
        a = fig.add_subplot(cell)
        a.text(0.5, 0.5, "controls: " + cmp.get("text", "no control gatings were run"), ha="center", va="center",
               fontsize=9, wrap=True, transform=a.transAxes)
        a.set_axis_off()
        return
    a, b = (fig.add_subplot(c) for c in cell.subgridspec(1, 2, width_ratios=(1.5, 1)))
    names = [g for g in FIG4C_GATINGS if g in per]
    vals = np.array([per[g] for g in names], float)           # gatings × seeds
    x = np.arange(len(names))
    margin = cmp.get("margin", float("nan"))
    closer = cmp.get("closer", {})
    colour = {g: "C0" if g == "double" else "C2" if closer.get(g) else "C3" for g in names}
    for s in range(vals.shape[1]):
        a.plot(x, vals[:, s], color="0.6", lw=0.8, marker="o", ms=4, zorder=2,
               label="one seed (its ReLU run against each gating)" if s == 0 else None)
    for i, g in enumerate(names):
        m = float(np.nanmean(vals[i]))
        a.hlines(m, i - 0.25, i + 0.25, color=colour[g], lw=2.5, zorder=3, label="mean over seeds" if i == 0 else None)
        a.annotate(f"{m:.3g}", (i + 0.28, m), va="center", fontsize=9)
    if np.isfinite(margin):
        m0 = float(np.nanmean(vals[0]))
        a.errorbar([-0.35], [m0 + margin / 2], yerr=[[margin / 2], [margin / 2]], color="k", capsize=4, lw=1.5,
                   label=f"margin {margin:.2g} (the ReLU network's\nlargest seed-to-seed disparity)")
    a.set_xticks(x, [FIG4C_GATINGS[g] for g in names], fontsize=8)
    a.set_xlim(-0.6, len(names) - 0.3)
    a.set_ylabel("Procrustes disparity with the\nReLU network (lower = closer)")
    a.set_title(f"Controls at step {ctrl.get('step', '?')}, {vals.shape[1]} seeds: disparity of each gating's ReLN",
                fontsize=9)
    a.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3)
    # right: control − paper's ReLN, seed by seed
    ctl = names[1:]
    for i, g in enumerate(ctl):
        diff = vals[i + 1] - vals[0]
        b.scatter(np.full(diff.size, i), diff, color=colour[g], s=22, zorder=3)
        b.annotate("yes" if closer.get(g) else "no", (i, 0.96), xycoords=("data", "axes fraction"), ha="center",
                   va="top", fontsize=10, color=colour[g], weight="bold")
    b.axhline(0.0, color="0.5", lw=0.8)
    diffs = vals[1:] - vals[0]
    lo = min(float(np.nanmin(diffs)) if np.isfinite(diffs).any() else 0.0, 0.0)
    hi = max(float(np.nanmax(diffs)) if np.isfinite(diffs).any() else 0.0, margin if np.isfinite(margin) else 0.0)
    span = (hi - lo) or 1.0
    b.set_ylim(lo - 0.15 * span, hi + 0.35 * span)           # room above the points for the yes / no
    if np.isfinite(margin):
        b.axhline(margin, color="k", ls="--", lw=1.2, label=f"margin {margin:.2g}")
        b.axhspan(lo - 0.15 * span, margin, color="0.85", zorder=0, label="not clearly farther (≤ margin)")
        b.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    b.set_xticks(range(len(ctl)), [FIG4C_GATINGS[g] for g in ctl], fontsize=8)
    b.set_xlim(-0.6, len(ctl) - 0.4)
    b.set_ylabel("control − paper's ReLN, per seed\n(> 0: the paper's ReLN is closer)")
    b.set_title("Farther than the paper's ReLN by more than\nthe margin in every seed? (the row's test)", fontsize=9)


def fig5(s5, path):
    ks = sorted(s5, key=int)
    # at most two panels a row (readable at docs width, DOCS_WIDTH_PX), also for a single k; the key below them
    fig, ax = _panel_grid(len(ks), 4.0, 3.0, extra_h=1.3)
    sub = slice(None, None, 10)
    data = {}
    for a, kk in zip(ax, ks):
        c = s5[kk]["_curves"]
        t = c["t"]
        m, s = c["relu"].mean(0), c["relu"].std(0)
        # the GDLN simulation wide and pale, the ReLU network above it, the theory narrow on top of both (the
        # GDLN drawn over the ReLU network hid it, and the race over the GDLN blended into one teal line)
        a.plot(t, m, color="k", lw=2.2, zorder=2.5, label="ReLU (mean)")
        a.fill_between(t, m - s, m + s, color="k", alpha=0.15)
        a.plot(t, c["gdln"].mean(0), color="C0", label="GDLN common + (k-1)-context (joint)", **SIMULATION_STYLE)
        a.plot(t, c["closed_form"], color="C1", ls="--", lw=1.6, zorder=3, label="closed form (rule a0)")
        a.plot(t, c["closed_form_fit"], color="C1", ls="-.", lw=1.0, zorder=3, label="closed form (a0 fitted to ReLU)")
        a.plot(t, c["race"], color="C2", ls=":", lw=1.4, zorder=3, label="race reduction (joint, rule a0)")
        a.set_title(f"k = {kk} (gamma = {s5[kk]['gamma']}){' — not in the paper' if kk == '6' else ''}", fontsize=10)
        a.set_xlabel("gradient step")
        data[kk] = {"gamma": s5[kk]["gamma"], "t": t[sub], "relu_mean": m[sub], "relu_std": s[sub],
                    "gdln_joint_mean": c["gdln"].mean(0)[sub], "closed_form_rule_a0": c["closed_form"][sub],
                    "closed_form_a0_fitted_to_relu": c["closed_form_fit"][sub], "race_rule_a0": c["race"][sub]}
    for a in ax:            # every panel: each k has its own y range (the loss at the start grows with k)
        a.set_ylabel("loss (summed over the datapoints)")
    # one key below the panels, over no curve (before: inside the first panel, at 7 pt)
    fig.legend(handles=ax[0].get_lines(), loc="outside lower center", ncol=2, fontsize=SMALLEST_PT)
    fig.suptitle("Fig. 5: closed form vs GDLN vs ReLU, every block the hierarchy")
    write_figure(fig, path, tight=True)
    write_json(path.with_suffix(".json"), {"figure": "5", "every": 10, "k": data})
