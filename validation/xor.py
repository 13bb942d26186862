"""Suite ``xor``: Section 3 of the paper, the XoR-with-margin transition (Fig. 2d, 2e; Finding 1).

What it does
------------
1. **Theory** (:mod:`theorykit.derivations.xor_crossover`): both ReLNs derived from the task and the
   pathway specs with Δ symbolic: s, d, mode trajectories, total losses (Eqs. 22–23), the exact
   crossover Δ* (root of s_linear = s_xor) and the half-loss times.
2. **Simulation**, one jit(vmap(vmap(...))) program per network kind over Δ × seeds:
   bias-free ReLU networks [3, 128, 1] (``theorykit.sim.engine``), and both ReLNs as GDLNs
   (their graphs, the same trainer), with random initial weights (the *same* draws as the ReLU network: the ReLN's
   pathway p takes the ReLU network's hidden units in order) and with exact aligned, balanced
   initial weights. Full-batch gradient descent on the mean loss, float64.
3. **Measurements**, per Δ: learning time (first step at which the loss is below half its initial
   value, linearly interpolated between the two steps around the crossing, detected on device at
   every step); which ReLN's loss curve the ReLU network's is closest to (RMS distance over the whole
   run, per seed, against the paired ReLN simulations and against the closed forms); the gating of
   the trained ReLU hidden units on the four points (2-pathway / 4-pathway / other, dead units apart).
   From these, the Δ at which the ReLU network switches from the XoR ReLN to the linear ReLN.
4. **Figures**: ``fig2d_learning_time.png`` and ``fig2e_loss_curves.png``; the derivation as LaTeX in
   ``xor_crossover.tex``. Results carry ``claims`` rows (paper claim → our figure → agreement → verdict).

Initial conditions of the closed forms (docs/theory.md#mode-ode). The closed forms need the initial mode
strength a0. The suite uses the rule ``a0_p = H_p σ²/2`` (:data:`A0_RULE`, derived in
:mod:`theorykit.derivations.xor_crossover`: half the expected squared norm of the balanced part of
the random weights, which is what the early, linear phase amplifies). It also fits a0 per Δ and ReLN
on the random-init ReLN simulations (least squares on the loss curve) and reports the agreement of
the closed forms with the simulations under both initialisations (random: rule and fit; aligned:
flow and the exact discrete recurrence).

Gate classification of a trained ReLU unit: its set of points with pre-activation
``> GATE_TOL · max_μ |pre-activation|`` (the relative tolerance keeps units that sit on the ReLU kink,
pre-activation ≈ 0 on a point, from being classified by rounding noise). "2-pathway" patterns are the
gates of the linear ReLN's pathways, "4-pathway" patterns those of the XoR ReLN's pathways (both read
from the pathway specs); everything else is "other" (dead units, 3-point patterns, mixed 2-point
patterns: ``three_point``, ``mixed_two``), and dead units are also counted on their own (``dead``).
"""
from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np
import sympy as sp

from theorykit.spec.gating import xor_relns
from theorykit.io import atomic_write_text
from theorykit.theory.latex import latex_document
from theorykit.progress import progress_bar
from theorykit.curves import curve_distance, median_never_inf, nan_to_none, switch_point
from theorykit.theory.gates import read_units, tally, unit_weights
from theorykit.net.starts import a0_rule as init_a0_rule
from theorykit.sim.grid import aligned_reln_grid_start, reln_grid_start, relu_grid_start, train_grid
from theorykit.spec.task import xor_margin
from theorykit.theory.closed_grid import (ClosedFormGrid, discrete_loss_grid, fit_a0_grid, half_loss_time_grid,
                                          values_on_grid, vectors_on_grid)

from ._common import Stopwatch, start

NAME = "xor"
DESCRIPTION = ("Section 3: XoR with a margin. Both ReLNs derived with Δ symbolic, the crossover Δ*, "
               "ReLU networks beside both ReLNs over a grid of Δ (Fig. 2d, 2e; Finding 1)")

#: the derivation as a standalone LaTeX document, written beside the figures
DERIVATION_TEX = "xor_crossover.tex"

#: relative tolerance of the gate classification (see the module docstring)
GATE_TOL = 1e-6

#: run sizes. Same physics in both modes (lr, init std, width); quick has a coarser grid, fewer
#: seeds and a shorter run (long enough for the linear ReLN to learn at the smallest Δ > 0 of its grid).
CONFIGS = {
    "quick": {"n_delta": 21, "delta_max": 2.0, "seeds": 4, "steps": 2000, "record_every": 1, "lr": 0.05,
              "init_std": 0.01, "hidden": 128, "aligned_seeds": 1, "curve_deltas": [0.0, 0.4, 0.8, 1.2, 1.6, 2.0]},
    "full": {"n_delta": 81, "delta_max": 2.0, "seeds": 32, "steps": 8000, "record_every": 4, "lr": 0.05,
             "init_std": 0.01, "hidden": 128, "aligned_seeds": 2, "curve_deltas": [0.0, 0.4, 0.8, 1.2, 1.6, 2.0]},
}

#: criteria of the claim verdicts
CRITERIA = {"median_rel_error": 0.10, "switch_abs": 0.10, "closest_agreement": 0.90, "exclusion_band": 0.10}

#: the closed form is the gradient-flow (η → 0) limit of the discrete recurrence the aligned runs follow:
#: the recurrence is also run at η/FLOW_REFINE (τ and the steps × FLOW_REFINE), and the closed form's gap
#: to it must shrink as a first-order (O(η)) difference does, to at most FLOW_SLACK/FLOW_REFINE of its gap
#: at η (1/FLOW_REFINE at first order; FLOW_SLACK for the O(η²) terms), or to rounding (1e-8). A closed form
#: off by a fixed amount (scaled by 1.05, say) keeps its gap at every η and fails.
FLOW_REFINE = 8
FLOW_SLACK = 2.0


# ================================================================================================
# Gates of the trained ReLU networks
# ================================================================================================
def gate_shares(pre, two_patterns, four_patterns, tol: float = GATE_TOL, weights=None) -> dict:
    """Shares (per network; weighted by ``weights`` (..., H) if given) of the units of ``pre`` (..., H, P)
    in the classes of the module docstring, read by :class:`theorykit.theory.gates.UnitGates`."""
    ug = read_units(np.asarray(pre, float), tol=tol)
    two, four, n_on = ug.matches(two_patterns), ug.matches(four_patterns), ug.n_on
    return tally({"two": two, "four": four, "other": ~(two | four), "dead": n_on == 0, "three_point": n_on == 3,
                  "mixed_two": (n_on == 2) & ~two}, weights)


def closest_by_majority(frac_linear):
    """The ReLN most seeds' loss curves are closest to, per Δ: "linear" where more than half are
    closer to the linear ReLN, "xor" where fewer than half are, and "tie" where exactly half are (no
    majority, so neither ReLN; the claim's agreement counts a tie as not the faster ReLN)."""
    f = np.asarray(frac_linear, float)
    return np.where(f > 0.5, "linear", np.where(f < 0.5, "xor", "tie"))


def rel_error_to_faster(relu_lt, lt_lin, lt_xor):
    """Per Δ: |t_ReLU − t_fast| / t_fast with t_fast = min(t_linear, t_xor) ('never' = NaN in all three).

    'Never' is an infinite learning time, not a missing value: where the faster ReLN learns and the ReLU
    network never does (or the ReLU network learns and neither ReLN does) the error is +∞, so a median over
    Δ counts it; where neither learns there is nothing to compare (NaN)."""
    relu_lt = np.asarray(relu_lt, float)
    fast = np.fmin(np.asarray(lt_lin, float), np.asarray(lt_xor, float))
    relu_never, fast_never = ~np.isfinite(relu_lt), ~np.isfinite(fast)
    with np.errstate(invalid="ignore", divide="ignore"):
        err = np.abs(relu_lt - fast) / fast
    return np.where(relu_never != fast_never, np.inf, np.where(relu_never & fast_never, np.nan, err))


# ================================================================================================
# The suite
# ================================================================================================
def _load_theory():
    from theorykit.suites import load_package

    load_package("derivations")
    from theorykit.derivations.xor_crossover import derive, summary

    return derive, summary


def run(out_dir, mode: str = "quick", progress: bool = True, config: dict | None = None) -> dict:
    """Run the suite; writes the figures into ``out_dir`` and returns the results dict.

    ``config`` overrides entries of ``CONFIGS[mode]`` (used by the tests for a tiny run).
    """
    out_dir, cfg = start(out_dir, mode, CONFIGS)
    cfg = {**cfg, **(config or {})}
    t_start = time.time()
    stages = ["derive", "relu", "reln-random", "reln-aligned", "measure", "figures"]
    with progress_bar(progress, "xor", len(stages)) as pr:
        timing = Stopwatch(pr)
        # ---- 1. theory ------------------------------------------------------------------------
        derive, summary = _load_theory()
        theory = derive(hidden=cfg["hidden"])
        atomic_write_text(out_dir / DERIVATION_TEX, latex_document(
            r"XoR with a margin: the two ReLNs and the crossover $\Delta^\ast$", theory["latex"]))
        task = xor_margin()
        relns = {n: [q.resolve(task) for q in ps] for n, ps in xor_relns(cfg["hidden"]).items()}
        timing.lap("derive", "derived")

        # ---- 2. simulations ----------------------------------------------------------------------
        deltas = np.linspace(0.0, cfg["delta_max"], cfg["n_delta"])
        Xs = np.stack([task.numeric({"Delta": float(x)})[0] for x in deltas])
        Y = task.numeric({"Delta": 1.0})[1]
        Xs_j, Y_j = jnp.asarray(Xs), jnp.asarray(Y)
        lr, steps, rec_every, std, H = cfg["lr"], cfg["steps"], cfg["record_every"], cfg["init_std"], cfg["hidden"]
        if steps % rec_every:
            raise ValueError("steps must be a multiple of record_every")
        tau = 1.0 / lr
        times = np.arange(0, steps + 1, rec_every, dtype=float)
        keys = jax.random.split(jax.random.PRNGKey(0), cfg["seeds"])

        net, p0 = relu_grid_start(Xs_j, Y_j, keys, hidden=H, std=std)
        params, relu_curves, relu_lt = train_grid(net, p0, Xs_j, Y_j, lr, steps, rec_every, len(keys))
        relu_curves = np.asarray(relu_curves, float)
        relu_lt = np.asarray(relu_lt, float)
        W1 = np.asarray(params["input->h1"], float)          # nΔ × seeds × H × d
        W2 = np.asarray(params["h1->output"], float)         # nΔ × seeds × p × H
        timing.lap("relu", "ReLU networks trained")

        sims, sim_lt = {}, {}
        for name in ("linear", "xor"):
            net, p0 = reln_grid_start(Xs_j, Y_j, keys, relns[name], task=task, hidden=H, std=std)
            _, c, lt = train_grid(net, p0, Xs_j, Y_j, lr, steps, rec_every, len(keys))
            sims[name], sim_lt[name] = np.asarray(c, float), np.asarray(lt, float)
        timing.lap("reln_random", "ReLNs (random init) trained")

        # a0 rule (per pathway; the pathways of one ReLN have equal widths)
        a0_rule = {n: init_a0_rule(std, relns[n][0].hidden) for n in ("linear", "xor")}   # σ²H/2
        D = theory["Delta"]
        aligned = {}
        for name in ("linear", "xor"):
            U = [vectors_on_grid(q["u"], D, deltas) for q in theory[name]["pathways"].values()]
            V = [vectors_on_grid(q["v"], D, deltas) for q in theory[name]["pathways"].values()]
            frames = [{q.name: (U[j][i][:, None], V[j][i][:, None]) for j, q in enumerate(relns[name])}
                      for i in range(len(deltas))]
            net, p0 = aligned_reln_grid_start(task, relns[name], [{"Delta": float(x)} for x in deltas], frames,
                                              a0_rule[name], seeds=cfg["aligned_seeds"], seed=1)
            aligned[name] = np.asarray(train_grid(net, p0, Xs_j, Y_j, lr, steps, rec_every, cfg["aligned_seeds"])[1], float)
        timing.lap("reln_aligned", "ReLNs (aligned init) trained")

        # ---- 3. measurements -----------------------------------------------------------------------
        res = _measure(cfg, theory, summary, relns, deltas, times, tau, a0_rule, relu_curves, relu_lt, W1, W2, Xs,
                       sims, sim_lt, aligned)
        timing.lap("measure", "measured")

        from .xor_figures import figures

        figs = figures(out_dir, cfg, theory, deltas, times, res["_arrays"])
        timing.lap("figures", "figures written")

    del res["_arrays"]
    timing["total"] = time.time() - t_start
    result = {"suite": NAME, "mode": mode, "description": DESCRIPTION, "config": cfg,
              "device": str(jax.devices()[0]), **res, "figures": figs, "derivation_tex": DERIVATION_TEX,
              "timing_s": timing}
    return nan_to_none(result)


def _measure(cfg, theory, summary, relns, deltas, times, tau, a0_rule, relu_curves, relu_lt, W1, W2, Xs,
             sims, sim_lt, aligned):
    nD = len(deltas)
    dstar = theory["crossover_float"]
    D = theory["Delta"]
    s_num = {n: values_on_grid(theory[n]["s"], D, deltas) for n in ("linear", "xor")}
    d_num = {n: values_on_grid(theory[n]["d"], D, deltas) for n in ("linear", "xor")}
    faster = np.where(s_num["linear"] > s_num["xor"], "linear", "xor")

    # closed forms with the a0 rule, and with a0 fitted to the random-init ReLN simulations
    cfs = {n: ClosedFormGrid(theory[n]["loss"], theory[n]["s"], theory[n]["initial_loss"], D) for n in ("linear", "xor")}
    cf_rule = {n: cfs[n](deltas, times, a0_rule[n], tau) for n in ("linear", "xor")}
    cf_lt_rule = {n: half_loss_time_grid(theory[n]["t_half_loss"], D, deltas, a0_rule[n], tau) for n in ("linear", "xor")}
    fits = {n: fit_a0_grid(cfs[n], theory[n]["t_half_loss"], D, deltas, times, tau, sims[n].mean(axis=1), s_num[n],
                           cf_rule[n]) for n in ("linear", "xor")}
    fit_a0, cf_fit, cf_lt_fit = ({n: f[j] for n, f in fits.items()} for j in range(3))

    # agreement of the closed forms with the ReLN simulations
    def max_rel(sim, cf):
        # np.max, not np.nanmax: a prediction (or run) that is NaN at some Δ or step was not compared
        # there, so the largest gap is NaN and the row that grades it fails (see _worst), rather than
        # being graded on the Δ where it happens to be finite
        L0 = sim[..., :1]
        return float(np.max(np.abs(sim - cf) / L0))

    discrete = {n: discrete_loss_grid(s_num[n], d_num[n], a0_rule[n], tau, times, len(relns[n]), 0.5)
                for n in ("linear", "xor")}
    pairs = {"random_init_a0_rule": (sims, cf_rule), "random_init_a0_rule_discrete": (sims, discrete),
             "random_init_a0_fit": (sims, cf_fit), "aligned_init_flow": (aligned, cf_rule),
             "aligned_init_discrete": (aligned, discrete)}
    agreement = {k: {n: max_rel(a[n].mean(axis=1), b[n]) for n in ("linear", "xor")} for k, (a, b) in pairs.items()}
    # the closed form against the same start's discrete recurrence at η and at η/FLOW_REFINE (its flow limit)
    fine = {n: discrete_loss_grid(s_num[n], d_num[n], a0_rule[n], tau * FLOW_REFINE, np.asarray(times) * FLOW_REFINE,
                                  len(relns[n]), 0.5) for n in ("linear", "xor")}
    agreement["closed_form_vs_discrete"] = {n: max_rel(discrete[n], cf_rule[n]) for n in ("linear", "xor")}
    agreement["closed_form_vs_discrete_refined"] = {n: max_rel(fine[n], cf_rule[n]) for n in ("linear", "xor")}
    agreement["what"] = ("largest |simulated − closed-form loss| / initial loss over all Δ and recorded steps "
                         "(random init: mean over seeds)")

    # learning times
    relu_lt_med = median_never_inf(relu_lt)
    relu_q = np.nanpercentile(relu_lt, [25, 75], axis=1) if np.isfinite(relu_lt).any() else np.full((2, nD), np.nan)
    sim_lt_med = {n: median_never_inf(sim_lt[n]) for n in ("linear", "xor")}

    relu_never = int((~np.isfinite(relu_lt_med)).sum())     # Δ at which the median ReLU network never learned
    errs = {"closed_form_a0_rule": rel_error_to_faster(relu_lt_med, cf_lt_rule["linear"], cf_lt_rule["xor"]),
            "closed_form_a0_fit": rel_error_to_faster(relu_lt_med, cf_lt_fit["linear"], cf_lt_fit["xor"]),
            "simulated_relns": rel_error_to_faster(relu_lt_med, sim_lt_med["linear"], sim_lt_med["xor"])}
    med_err = {k: float(np.nanmedian(v)) for k, v in errs.items()}
    max_err = {k: float(np.nanmax(v)) for k, v in errs.items()}
    # which ReLN's learning time is the ReLU network's closest to
    lt_closer_lin = np.abs(relu_lt_med - cf_lt_rule["linear"]) < np.abs(relu_lt_med - cf_lt_rule["xor"])
    lt_closer_lin = np.where(np.isfinite(cf_lt_rule["linear"]), lt_closer_lin, False)

    # closest ReLN by loss curve (per seed), paired simulations and closed forms
    d_sim = {n: curve_distance(relu_curves, sims[n]) for n in ("linear", "xor")}            # nΔ × seeds
    d_cf = {n: curve_distance(relu_curves, cf_rule[n][:, None, :]) for n in ("linear", "xor")}
    frac_lin_sim = (d_sim["linear"] < d_sim["xor"]).mean(axis=1)
    frac_lin_cf = (d_cf["linear"] < d_cf["xor"]).mean(axis=1)
    closest_sim = closest_by_majority(frac_lin_sim)
    L0 = relu_curves[..., 0].mean()

    # gates of the trained ReLU networks
    pre = np.einsum("asij,ajk->asik", W1, Xs)                                 # nΔ × seeds × H × P
    contrib = unit_weights(W1, W2)                                            # nΔ × seeds × H
    two = [p.active for p in relns["linear"]]
    four = [p.active for p in relns["xor"]]
    g_count = {k: v.mean(axis=1) for k, v in gate_shares(pre, two, four).items()}
    g_weight = {k: v.mean(axis=1) for k, v in gate_shares(pre, two, four, weights=contrib).items()}
    g_strict = {k: v.mean(axis=1) for k, v in gate_shares(pre, two, four, tol=0.0).items()}
    kink = (np.abs(pre) <= GATE_TOL * np.abs(pre).max(-1, keepdims=True)).any(-1).mean(axis=(1, 2))

    # switch points
    sw = {"loss_curve_vs_simulated_relns": switch_point(deltas, frac_lin_sim, 0.5),
          "loss_curve_vs_closed_forms": switch_point(deltas, frac_lin_cf, 0.5),
          "learning_time_vs_closed_forms": switch_point(deltas, lt_closer_lin.astype(float), 0.5),
          "gates_unit_count": switch_point(deltas, g_count["two"] - g_count["four"], 0.0),
          "gates_contribution_weighted": switch_point(deltas, g_weight["two"] - g_weight["four"], 0.0)}
    crossover_sim = sw["loss_curve_vs_simulated_relns"][0]

    # Fig. 2e claim: the closest ReLN is the faster one (away from Δ*)
    band = CRITERIA["exclusion_band"]
    away = np.abs(deltas - dstar) > band
    agree = closest_sim == faster
    closest_agreement = float(agree[away].mean()) if away.any() else float("nan")
    rel_dist = np.minimum(d_sim["linear"], d_sim["xor"]).mean(axis=1) / L0

    grid = float(deltas[1] - deltas[0]) if nD > 1 else float("nan")
    claims = _claims(theory, med_err, max_err, crossover_sim, dstar, grid, closest_agreement, sw, g_count,
                     g_weight, deltas, agreement, errs["closed_form_a0_rule"], relu_never)

    table = [{"delta": float(x), "faster_reln": str(faster[i]),
              "relu_median": relu_lt_med[i], "relu_q25": relu_q[0][i], "relu_q75": relu_q[1][i],
              "linear_closed_form": cf_lt_rule["linear"][i], "xor_closed_form": cf_lt_rule["xor"][i],
              "linear_closed_form_fit_a0": cf_lt_fit["linear"][i], "xor_closed_form_fit_a0": cf_lt_fit["xor"][i],
              "linear_sim": sim_lt_med["linear"][i], "xor_sim": sim_lt_med["xor"][i],
              "rel_error_to_faster_closed_form": errs["closed_form_a0_rule"][i],
              "closest_reln_by_loss_curve": str(closest_sim[i]),
              "frac_seeds_closer_to_linear": frac_lin_sim[i],
              "frac_seeds_closer_to_linear_closed_form": frac_lin_cf[i],
              "share_two_pathway": g_count["two"][i], "share_four_pathway": g_count["four"][i],
              "share_other": g_count["other"][i], "share_dead": g_count["dead"][i]}
             for i, x in enumerate(deltas)]
    return {
        "theory": summary(theory, a0_rule),
        "crossover_theory": {"exact": str(theory["crossover"]), "float": dstar},
        "crossover_sim": {"value": crossover_sim,
                          "method": "Δ where the fraction of seeds whose ReLU loss curve is closer (RMS over the "
                                    "run) to the linear ReLN than to the XoR ReLN (paired simulations, same initial "
                                    "weights) crosses 1/2 (step-function fit, linear interpolation)",
                          "abs_difference_to_theory": (None if crossover_sim is None else abs(crossover_sim - dstar)),
                          "grid_step": grid,
                          "estimates": {k: {"value": v[0], **v[1]} for k, v in sw.items()}},
        "learning_time": {"definition": "steps until the loss first falls below half its initial value "
                                        "(interpolated between steps); ReLU and simulated ReLNs: median over seeds; "
                                        "closed forms: continuous-time t_1/2 with the a0 rule or fitted a0; "
                                        "null = never within the run",
                          "table": table},
        "median_rel_error_to_faster_reln": med_err["closed_form_a0_rule"],
        "median_rel_error_to_faster_reln_detail": {"median": med_err, "max": max_err,
                                                   "primary": "closed_form_a0_rule"},
        "closest_reln": {"agreement_with_faster_away_from_crossover": closest_agreement,
                         "exclusion_band": band,
                         "relative_rms_distance_to_closest": rel_dist.tolist()},
        "gates": {"tolerance": GATE_TOL, "two_pathway_patterns": [list(p) for p in two],
                  "four_pathway_patterns": [list(p) for p in four],
                  "delta": deltas.tolist(),
                  "unit_count": {k: v.tolist() for k, v in g_count.items()},
                  "contribution_weighted": {k: v.tolist() for k, v in g_weight.items()},
                  "strict_zero_threshold": {k: v.tolist() for k, v in g_strict.items()},
                  "share_units_on_kink": kink.tolist()},
        "reln_agreement": agreement,
        "a0": {"rule": theory["a0_rule"], "rule_values": a0_rule,
               "fitted": {n: fit_a0[n].tolist() for n in ("linear", "xor")},
               "fitted_over_rule_median": {n: float(np.nanmedian(fit_a0[n] / a0_rule[n])) for n in ("linear", "xor")}},
        "claims": claims,
        "_arrays": {"relu_curves": relu_curves, "sims": sims, "cf_rule": cf_rule, "relu_lt_med": relu_lt_med,
                    "relu_q": relu_q, "cf_lt_rule": cf_lt_rule, "sim_lt_med": sim_lt_med,
                    "crossover_sim": crossover_sim, "g_count": g_count, "g_weight": g_weight},
    }


def _flow_limit_ok(agreement: dict) -> bool:
    """The closed form is the recurrence's η → 0 limit (:data:`FLOW_REFINE`): for each ReLN, its gap to
    the recurrence at η/FLOW_REFINE is at most FLOW_SLACK/FLOW_REFINE of the gap at η, or below 1e-8.
    Not measured (keys absent) or NaN: False."""
    at_eta, refined = agreement.get("closed_form_vs_discrete"), agreement.get("closed_form_vs_discrete_refined")
    if not at_eta or not refined or set(at_eta) != set(refined):
        return False
    return all(bool(refined[n] <= max(FLOW_SLACK / FLOW_REFINE * at_eta[n], 1e-8)) for n in at_eta)


def _flow_text(agreement: dict) -> str:
    at_eta, refined = agreement.get("closed_form_vs_discrete"), agreement.get("closed_form_vs_discrete_refined")
    if not at_eta or not refined:
        return "not measured"
    return (f"{_worst(at_eta):.1e} at η, {_worst(refined):.1e} at η/{FLOW_REFINE} "
            f"(limit {FLOW_SLACK:g}/{FLOW_REFINE} of the first)")


def _worst(errors: dict) -> float:
    """The largest of the errors, NaN if any is NaN (the builtin ``max`` skips a NaN that is not first,
    so a diverged run's error could let the closed-form claim pass)."""
    return float(np.max(list(errors.values())))


def _claims(theory, med_err, max_err, crossover_sim, dstar, grid, closest_agreement, sw, g_count, g_weight,
            deltas, agreement, err_arr, relu_never=0):
    C = CRITERIA

    def verdict(ok, partly=False, measured=True):
        # "n/a" where the row's number is NaN: nothing was compared (as the other suites' rows say)
        if not measured:
            return "n/a"
        return "confirmed" if ok else ("partly" if partly else "not borne out")

    # "our figure" and "agreement" columns of the report (paper claim → our figure → agreement → verdict)
    def f3(x):
        return "—" if x is None or not np.isfinite(x) else f"{x:.3f}"

    def pct(x):
        return "∞ (never)" if x == np.inf else ("—" if not np.isfinite(x) else f"{x:.1%}")

    rows = []
    exact = bool(sp.simplify(theory["crossover"] - sp.sqrt(sp.Rational(2, 3))) == 0)
    rows.append({
        "id": "crossover-derived",
        "claim": "The ReLNs are equally fast at Δ* = √(2/3), the root of s_linear(Δ) = s_xor(Δ); the XoR ReLN is "
                 "faster below, the linear ReLN above.",
        "source": "paper Section 3 and Appendix C, Eqs. 24–26; docs/theory.md, XoR with a margin",
        "prediction": "sqrt(6)/3 ≈ 0.8165",
        "measured": {"derived": str(theory["crossover"]), "faster_below": theory["faster_below"],
                     "faster_above": theory["faster_above"]},
        "criterion": "sympy.solve of the derived top singular values gives exactly √(2/3); faster_below = xor, "
                     "faster_above = linear",
        "verdict": verdict(exact and theory["faster_below"] == "xor" and theory["faster_above"] == "linear"),
        "ours": ("derivations/xor_crossover.py: sympy.solve(s_linear(Δ) − s_xor(Δ) = 0, Δ ≥ 0) on the "
                 "derived singular values"),
        "agreement": (f"exact: Δ* = {theory['crossover']} (= √(2/3)); {theory['faster_below']} faster below, "
                      f"{theory['faster_above']} above"),
    })
    e = med_err["closed_form_a0_rule"]
    i_max = int(np.nanargmax(err_arr)) if (~np.isnan(err_arr)).any() else 0
    rows.append({
        "id": "finding1-learning-time",
        "claim": "Finding 1: the ReLU network learns as fast as whichever ReLN is faster (Fig. 2d).",
        "source": "paper Section 3, Fig. 2d",
        "prediction": "ReLU learning time ≈ min(t_linear, t_xor) at every Δ",
        "measured": {"median_rel_error_closed_form": e, "max_rel_error_closed_form": max_err["closed_form_a0_rule"],
                     "median_rel_error_simulated_relns": med_err["simulated_relns"],
                     "deltas_relu_never_learned": relu_never,
                     "deltas_compared": int((~np.isnan(err_arr)).sum()),
                     "deltas": len(deltas)},
        "criterion": f"the median over all Δ of the relative error ≤ {C['median_rel_error']} ('never' within the run counts as an "
                     "infinite error)",
        "verdict": verdict(e <= C["median_rel_error"], measured=not np.isnan(e)),
        "ours": ("fig2d_learning_time.png: ReLU median learning time beside both ReLNs' closed forms "
                 "(a0 = H_p σ²/2) and simulations"),
        "agreement": (f"median relative error {pct(e)} (vs simulated ReLNs {pct(med_err['simulated_relns'])}); "
                      f"largest {pct(max_err['closed_form_a0_rule'])} at Δ = {deltas[i_max]:.3g}; the "
                      + (f"ReLU network (median seed) never halved its loss at {relu_never} of {len(deltas)} "
                         "Δ (counted as infinite error)" if relu_never else
                         f"ReLU network (median seed) halved its loss at all {len(deltas)} Δ")),
    })
    ok_sw = crossover_sim is not None and abs(crossover_sim - dstar) <= C["switch_abs"]
    rows.append({
        "id": "finding1-switch-point",
        "claim": "The ReLU network's dynamics switch from the XoR ReLN to the linear ReLN at about Δ*.",
        "source": "paper Section 3, Fig. 2d (grey dashed line), Fig. 2e",
        "prediction": dstar,
        "measured": {"crossover_sim": crossover_sim, "grid_step": grid},
        "criterion": f"|Δ_switch − Δ*| ≤ {C['switch_abs']} (loss-curve closeness)",
        "verdict": verdict(ok_sw),
        "ours": ("fig2d (dotted line), fig2e: share of seeds whose ReLU loss curve is closer to the "
                 "linear ReLN than to the XoR ReLN"),
        "agreement": f"Δ_switch = {f3(crossover_sim)} vs Δ* = {dstar:.3f} (grid step {grid:.3g})",
    })
    rows.append({
        "id": "fig2e-closest-is-faster",
        "claim": "Across Δ one ReLN closely matches the ReLU loss dynamics, and it is the faster one.",
        "source": "paper Section 3, Fig. 2e",
        "prediction": "closest ReLN (majority of seeds) = faster ReLN",
        "measured": {"agreement_away_from_crossover": closest_agreement, "exclusion_band": C["exclusion_band"]},
        "criterion": f"agreement ≥ {C['closest_agreement']} for |Δ − Δ*| > {C['exclusion_band']}",
        "verdict": verdict(closest_agreement >= C["closest_agreement"], measured=not np.isnan(closest_agreement)),
        "ours": "fig2e_loss_curves.png: RMS distance of each ReLU loss curve to the paired ReLN runs",
        "agreement": (f"closest ReLN = faster ReLN at {closest_agreement:.0%} of the Δ with "
                      f"|Δ − Δ*| > {C['exclusion_band']}"),
    })
    # nonlinear while separable: hidden units gate like the XoR ReLN for 0 < Δ < Δ*
    sep = (deltas > 0) & (deltas < dstar)
    share4 = float(np.mean(g_count["four"][sep])) if sep.any() else float("nan")
    share2 = float(np.mean(g_count["two"][sep])) if sep.any() else float("nan")
    rows.append({
        "id": "finding1-nonlinear-while-separable",
        "claim": "The ReLU network turns nonlinear (single-point gating, the XoR ReLN) while the task is still "
                 "linearly separable (0 < Δ < Δ*).",
        "source": "paper Section 3, Finding 1",
        "prediction": "4-pathway unit patterns dominate for 0 < Δ < Δ*",
        "measured": {"mean_share_four_pathway": share4, "mean_share_two_pathway": share2},
        "criterion": "mean share of 4-pathway patterns > mean share of 2-pathway patterns on 0 < Δ < Δ*",
        "verdict": verdict(share4 > share2, measured=not (np.isnan(share4) or np.isnan(share2))),
        "ours": "gating patterns of the trained ReLU hidden units (results: gates)",
        "agreement": (f"on 0 < Δ < Δ*: {share4:.0%} of units gate on a single point (4-pathway), {share2:.0%} "
                      "like the linear ReLN"),
    })
    g_sw, gw_sw = sw["gates_unit_count"][0], sw["gates_contribution_weighted"][0]
    ok_g = g_sw is not None and abs(g_sw - dstar) <= C["switch_abs"]
    ok_gw = gw_sw is not None and abs(gw_sw - dstar) <= C["switch_abs"]
    rows.append({
        "id": "gating-switch-at-crossover",
        "claim": "Δ* marks the approximate point at which the ReLU network's hidden units switch from the nonlinear "
                 "(XoR) to the linear gating.",
        "source": "paper Section 3 ('marks the approximate point at which a ReLU network switches from a linear "
                  "decision boundary to a nonlinear boundary')",
        "prediction": dstar,
        "measured": {"switch_unit_count": g_sw, "switch_contribution_weighted": gw_sw,
                     "xor_reln_implementable_for": str(theory["implementable"]["xor"]["all"])},
        "criterion": f"Δ where the share of 2-pathway patterns overtakes 4-pathway patterns within {C['switch_abs']} "
                     "of Δ* (unit count; contribution-weighted for 'partly')",
        "verdict": verdict(ok_g, partly=ok_gw),
        "ours": "gating patterns of the trained ReLU hidden units (results: gates)",
        "agreement": (f"2-pathway units outnumber 4-pathway units only above Δ = {f3(g_sw)}; weighted "
                      f"by contribution above Δ = {f3(gw_sw)}; Δ* = {dstar:.3f} (aligned ReLU units "
                      f"can implement the XoR ReLN for Δ ∈ {theory['implementable']['xor']['all']})"),
    })
    worst_fit = _worst(agreement["random_init_a0_fit"])
    worst_rule = _worst(agreement["random_init_a0_rule"])
    aligned_ok = _worst(agreement["aligned_init_discrete"]) < 1e-8
    flow_ok = _flow_limit_ok(agreement)
    rows.append({
        "id": "reln-closed-form",
        "claim": "Each ReLN follows its closed-form loss (Eqs. 22–23).",
        "source": "paper Appendix C; docs/theory.md, the closed form",
        "prediction": "simulated ReLN loss = closed form up to O(η) (aligned init) / up to the a0 rule (random init)",
        "measured": {"aligned_flow": agreement["aligned_init_flow"], "aligned_discrete": agreement["aligned_init_discrete"],
                     "closed_form_vs_discrete": agreement.get("closed_form_vs_discrete"),
                     "closed_form_vs_discrete_refined": agreement.get("closed_form_vs_discrete_refined"),
                     "random_a0_rule": agreement["random_init_a0_rule"], "random_a0_fit": agreement["random_init_a0_fit"]},
        "criterion": "aligned init: discrete recurrence within 1e-8 of the initial loss, and the closed form its "
                     f"η → 0 limit: its gap to the recurrence at η/{FLOW_REFINE} at most {FLOW_SLACK:g}/{FLOW_REFINE} of "
                     "its gap at η (an O(η) difference shrinks as η; a wrong closed form does not), or below 1e-8; "
                     "random init (the a0 rule stands in for an unaligned start, an approximation with no bound of its "
                     "own, graded at the suites' loss-curve tolerance 0.05·L(0)): fitted a0 within 0.05 (rule within "
                     "0.05 to confirm, else partly)",
        # the aligned checks are part of both grades: a failed one is a defect, not a "partly"
        "verdict": verdict(aligned_ok and flow_ok and worst_rule < 0.05,
                           partly=aligned_ok and flow_ok and worst_fit < 0.05),
        "ours": "ReLN simulations (random and aligned init) beside the closed forms (results: reln_agreement)",
        "agreement": (f"aligned: {max(agreement['aligned_init_flow'].values()):.1e} (flow, O(η)), "
                      f"{max(agreement['aligned_init_discrete'].values()):.0e} (discrete recurrence); closed form vs "
                      f"recurrence {_flow_text(agreement)}; random: "
                      f"{worst_rule:.3f} (a0 rule), {worst_fit:.3f} (a0 fitted), as a share of the initial loss"),
    })
    return rows
