"""The symbolic derivation and the races of the contexts suite (Sections 4-5 of the paper).

Driven by the suite's settings dict ``cfg`` (see :mod:`theorykit.analysis.context_runs`):

* :func:`derivation` -- the symbolic-k derivation (:mod:`theorykit.theory.k_contexts`), written as LaTeX;
* :func:`race_ranking` -- Proposition 4.2 by exhaustion: the race of all 127 context gatings (and
  datapoint-level ones), ranked by speed;
* :func:`r_families` -- for k = 3 … 6, common + all r-context pathways (Finding 3).
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..spec.gating import GDLNSpec, Pathway, Training, context_family, context_pathways, family_masks
from ..spec.limits import fixed_size
from ..spec.task import contexts
from ..curves import loss_metrics
from ..theory.race import RaceSystem
from ..io import atomic_write_text
from ..theory import k_contexts as kc
from .exhaust import SEC5_GAMMA, race_rk4, rank_families

__all__ = ["derivation", "race_ranking", "r_families", "suite_spec", "suite_race"]


def suite_spec(task, pathways, cfg) -> GDLNSpec:
    """A spec of the suite: ``pathways`` on ``task``, trained with the paper's summed loss, η =
    ``cfg["eta"]`` and ``cfg["steps"]`` steps."""
    return GDLNSpec(task, pathways, Training(lr=cfg["eta"], loss="sum", steps=cfg["steps"]))


def suite_race(spec, cfg, a0, *, every: int | None = None, t_end: int | None = None, target=None, **kw):
    """The race reduction of ``spec`` (on ``target``, default the task's Y) from strength ``a0``: RK4
    with step τ/``cfg["race_dt"]``, the loss recorded every ``every`` steps (default the RK4 step,
    rounded down, at least 1) up to ``t_end`` (default ``cfg["steps"]``); ``kw`` (``masks``,
    ``svals``) go to :meth:`~theorykit.theory.race.RaceSystem.solve`."""
    return race_rk4(RaceSystem.from_spec(spec, target=target), spec.tau, cfg["race_dt"],
                    cfg["steps"] if t_end is None else t_end, every=every, a0=a0, **kw)


# ---------------------------------------------------------------------------------------------
# symbolic derivation
# ---------------------------------------------------------------------------------------------
def derivation(out_dir: Path, cfg) -> dict:
    t0 = time.time()
    # the checks' tasks, contexts(4, k), are the suite's own size: a refusal names THEORYKIT_MAX_BYTES (fixed_size)
    res = kc.derive(check_ks=range(2, 9), n_check=4, race_check=cfg["race_check"], exact_check=cfg["exact_checks"],
                    limits=fixed_size())
    # one check with a scaled context (the k = 5 experiments' γ)
    res.checks.append(kc.check_against_numeric(res, 5, 4, gam=SEC5_GAMMA[5], race=False, exact=False,
                                               limits=fixed_size()))
    atomic_write_text(out_dir / "k_contexts.tex", res.latex)
    summ = res.summary()
    worst = max(max(c["common_max_abs_error"], c["kminus1_s_max_abs_error"], c["kminus1_d_own_max_abs_error"],
                    c["kminus1_d_eff_max_abs_error"], c["kminus1_end_point_max_abs_error"],
                    c.get("residual_max_abs_error", 0.0) or 0.0)
                for c in res.checks)
    summ["worst_abs_error_k2_to_8"] = worst
    summ["all_residuals_match"] = all(c["residual_exact_match"] for c in res.checks)
    summ["symbolic_seconds"] = res.seconds
    summ["total_seconds"] = time.time() - t0
    summ["latex_file"] = "k_contexts.tex"
    summ["_obj"] = res
    return summ


# ---------------------------------------------------------------------------------------------
# the race, by exhaustion (Proposition 4.2)
# ---------------------------------------------------------------------------------------------
def race_ranking(cfg, a0: float, pr) -> dict:
    task = contexts(8, 3, blocks=cfg["sec4_blocks"], limits=fixed_size())
    subsets, masks, labels = family_masks(3)
    spec = suite_spec(task, context_pathways(8, 3, subsets), cfg)
    rf = suite_race(spec, cfg, a0, masks=np.array(masks))
    pr.update(note=f"race: {len(masks)} families")
    rows = []
    for lab, m, L in zip(labels, masks, rf.loss):
        met = loss_metrics(rf.t, L, cfg["fractions"])
        met.update({"family": lab, "pathways": int(sum(m)), "has_common": bool(m[0]),
                    "loss_at_2000": float(np.interp(2000, rf.t, L))})
        rows.append(met)
    # edge case of Lemma 4.1: pathways on single datapoints (24 of them), with and without doubles
    pts = []
    P = task.P

    base = context_pathways(8, 3, [(0, 1), (0, 2), (1, 2)])
    single_pts = [Pathway(f"pt{mu}", tuple(int(i == mu) for i in range(P)), tuple(range(8)), "all", 8)
                  for mu in range(P)]
    for lab, paths in (("common+24 single-datapoint", [base[0]] + single_pts),
                       ("common+12+13+23+24 single-datapoint", base + single_pts),
                       ("24 single-datapoint (all inputs)", [Pathway(f"ptx{mu}", tuple(int(i == mu) for i in range(P)),
                                                                     "all", "all", 8) for mu in range(P)])):
        r2 = suite_race(suite_spec(task, paths, cfg), cfg, a0)
        met = loss_metrics(r2.t, r2.loss[0], cfg["fractions"])
        met.update({"family": lab, "pathways": len(paths), "has_common": lab.startswith("common"),
                    "loss_at_2000": float(np.interp(2000, r2.t, r2.loss[0])), "datapoint_level": True})
        pts.append(met)
    pr.update(note="race: datapoint-level gatings")
    allrows = rows + pts
    core = {"common", "12", "13", "23"}
    by_area, by_t1, near, lacking = rank_families(allrows, core)
    named = {"common+12+13+23": "common+double", "common+1+2+3": "common+single",
             "common+1+2+3+12+13+23": "all seven", "common": "common only"}
    named_rows = {v: next(r for r in allrows if r["family"] == k) for k, v in named.items()}
    win, second = by_area[0], by_area[1]
    near_all_contain_core = all(core <= set(r["family"].split("+")) for r in near if not r.get("datapoint_level"))
    dbl, sgl = named_rows["common+double"], named_rows["common+single"]
    # how much the single-context pathways learn when all seven race (the pathways of ``spec``)
    rf7 = suite_race(spec, cfg, a0)
    share = {}
    X, Y = task.numeric()
    for p in spec.pathways:
        M = rf7.params[p.name][0]
        out = (M @ X[list(p.inputs)]) * np.asarray(p.active, float)[None, :]
        share[p.name] = float(np.linalg.norm(out))
    tot = sum(share.values())
    share = {k_: v / tot for k_, v in share.items()}
    pr.update(note="race: all seven")
    # robustness of the winner to a0 (named families only)
    robust = {}
    sel = [labels.index(k_) for k_ in named if k_ in labels]
    for a in cfg["robust_a0"]:
        rr = suite_race(spec, cfg, a, masks=np.array([masks[i] for i in sel]))
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
        task = contexts(8, kk, context_scale=gam, limits=fixed_size())
        rows = {}
        rs = range(1, kk) if cfg["rfamily_all_r"] else sorted({1, kk // 2, kk - 1})
        for r in rs:
            rf = suite_race(suite_spec(task, context_pathways(8, kk, context_family(kk, r)), cfg), cfg, a0)
            m = loss_metrics(rf.t, rf.loss[0], cfg["fractions"])
            rows[str(r)] = {kk_: m[kk_] for kk_ in ("area", "t_0.5", "t_0.1", "t_0.01", "final_fraction")}
        best = min(rows, key=lambda r_: rows[r_]["area"])
        out[str(kk)] = {"gamma": gam, "families": rows, "winner_r": int(best),
                        "kminus1_wins": int(best) == kk - 1,
                        "single_over_kminus1_area": rows["1"]["area"] / rows[str(kk - 1)]["area"]}
        pr.update(note=f"r-families k={kk}")
    return out
