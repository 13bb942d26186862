"""Suite "depth": two hidden layers (paper Section 6, Fig. 6; THEORY.md §6, §9).

ReLU networks [11, H, H, 60] on the Section 4 task (``contexts(8, 3, blocks=["hierarchy",
"ring", "cross"])``), summed loss, over many seeds, and the GDLN counterpart with depth-3
pathways (common + the three pathways on in two of three contexts, every pathway seeing the
whole input, H/4 units per layer each), trained from the same initial weights (paired seeds).

Measured per run:

* the loss curve; the stereotypical run (closest to the mean curve, in log loss) and the spread;
* the **alignment time**: the first checkpoint at which the cosine between the first layer's
  top right singular vector and the data's top right singular vector v₁ of Σyx, and the cosine
  between the last layer's top left singular vector and u₁, both exceed 0.9 (``t_align``); and
  the first checkpoint at which both layers hold more than 90 % of their squared norm in the
  data's top-4 singular subspaces (``t_align4``, the modes the context pathways need);
* how much of the variance of the loss across runs the alignment times explain: at every
  checkpoint the R² of a least-squares fit of the loss on the alignment time(s); summarised
  as the variance-weighted R² (share of the across-run loss variance, summed over time, that is
  explained) and the R² at the time of largest variance.

Theory curves: the balanced three-layer mode ODE τ da/dt = 3 a^{4/3}(s − d a) (THEORY.md §2)
for each mode of the full data's Σyx (a single linear network; d_α = v_αᵀ Σx v_α), integrated
with scipy ``solve_ivp``; and the race reduction of the depth-3 GDLN counterpart (balanced
weight-space flow, :func:`theorykit.findgates.race_loss`). Initial strength by the stated rule
a0 = (σ√H)³ (per pathway: H/4 units) — a rule, not a fit.

full: H = 420, σ = 0.0006, η = 0.001, 30001 steps, 50 seeds (THEORY.md §9).
quick: H = 96, σ = 0.0006·√(420/96) (keeps σ√H, hence a0, fixed), η = 0.002, 15001 steps
(same time in units of τ), 8 seeds.
"""
from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np

NAME = "depth"
DESCRIPTION = "Two hidden layers (Section 6, Fig. 6): ReLU [11,H,H,60] vs depth-3 GDLN, alignment times, mode ODE"

SETTINGS = {
    "full": {"hidden": 420, "init_std": 0.0006, "lr": 0.001, "steps": 30001, "seeds": 50, "every": 100},
    "quick": {"hidden": 96, "init_std": 0.0006 * np.sqrt(420 / 96), "lr": 0.002, "steps": 15001, "seeds": 8,
              "every": 100},
}
ALIGN = 0.9


def _save(fig, path):
    from theorykit.io import atomic_write_bytes

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    atomic_write_bytes(path, buf.getvalue())


def _top_vector(M, v0, iters=100):
    """Top eigenvector of the PSD matrix-vector map ``M`` by power iteration (jit-friendly)."""
    import jax
    import jax.numpy as jnp

    def body(_, v):
        w = M(v)
        return w / (jnp.linalg.norm(w) + 1e-300)

    return jax.lax.fori_loop(0, iters, body, v0 / jnp.linalg.norm(v0))


def _record(p, aux):
    """Alignment of the first and last layers with the data's singular vectors (inside the jit).

    Returns [cos_in, cos_out, energy_in, energy_out]: cosines between the data's top singular
    vectors (v₁, u₁) and the layer's top right (first layer) / left (last layer) singular vectors
    (power iteration, fixed start vectors), and the share of each layer's squared norm that lies
    in the data's top-4 singular subspace."""
    import jax.numpy as jnp

    U4, V4, s_in, s_out = aux
    W1, WL = p[0], p[-1]
    r1 = _top_vector(lambda v: W1.T @ (W1 @ v), s_in)
    l1 = _top_vector(lambda v: WL @ (WL.T @ v), s_out)
    cos_in = jnp.abs(V4[:, 0] @ r1)
    cos_out = jnp.abs(U4[:, 0] @ l1)
    e_in = jnp.sum((W1 @ V4) ** 2) / (jnp.sum(W1 ** 2) + 1e-300)
    e_out = jnp.sum((U4.T @ WL) ** 2) / (jnp.sum(WL ** 2) + 1e-300)
    return jnp.stack([cos_in, cos_out, e_in, e_out])


def first_crossing(t, x, level=ALIGN):
    """First time at which x ≥ level (NaN if never)."""
    idx = np.nonzero(np.asarray(x) >= level)[0]
    return float(t[idx[0]]) if idx.size else float("nan")


def r2(y, X):
    """R² of a least-squares fit of y on the columns of X (with intercept)."""
    y = np.asarray(y, float)
    A = np.column_stack([np.ones(len(y)), np.asarray(X, float).reshape(len(y), -1)])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    ss = np.sum((y - y.mean()) ** 2)
    return float(1 - np.sum((y - A @ coef) ** 2) / ss) if ss > 0 else float("nan")


def variance_explained(loss_ck, regressors):
    """Per-checkpoint R² of the loss across runs on the regressors; variance-weighted summary."""
    var = loss_ck.var(axis=0)
    r2s = np.array([r2(loss_ck[:, i], regressors) if var[i] > 0 else np.nan for i in range(loss_ck.shape[1])])
    ok = np.isfinite(r2s)
    weighted = float(np.sum(var[ok] * r2s[ok]) / np.sum(var[ok])) if ok.any() else float("nan")
    imax = int(np.argmax(var))
    return r2s, weighted, imax


def stereotypical(loss):
    """Index of the run closest to the mean curve (RMS distance in log loss)."""
    lg = np.log(np.maximum(loss, 1e-300))
    return int(np.argmin(np.sqrt(np.mean((lg - lg.mean(0)) ** 2, axis=1))))


def mode_ode_loss(X, Y, a0, tau, times, loss_factor, depth=3):
    """Loss of a single balanced depth-L linear network, mode by mode (THEORY.md §2)."""
    from scipy.integrate import solve_ivp

    from theorykit.trajectory import deep_mode_rhs

    P = X.shape[1]
    Syx, Sx = Y @ X.T / P, X @ X.T / P
    U, s, Vt = np.linalg.svd(Syx, full_matrices=False)
    keep = s > 1e-10 * s[0]
    L = np.full(len(times), 0.5 * np.sum(Y * Y) / P)
    for sa, v in zip(s[keep], Vt[keep]):
        d = float(v @ Sx @ v)
        sol = solve_ivp(lambda _t, a: deep_mode_rhs(a, sa, d, depth) / tau, (0, float(times.max())), [a0],
                        t_eval=times, method="LSODA", rtol=1e-8, atol=1e-14)
        a = sol.y[0]
        L -= sa * a - 0.5 * d * a ** 2
    return loss_factor * L


def run(out_dir: Path, mode: str = "quick", progress: bool = True) -> dict:
    import jax.numpy as jnp

    from theorykit import contexts
    from theorykit.findgates import race_loss, random_init_a0, train_gdln, train_relu
    from theorykit.progress import Progress

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    st = SETTINGS[mode]
    H, sd, lr, steps, seeds, every = st["hidden"], float(st["init_std"]), st["lr"], st["steps"], st["seeds"], \
        st["every"]
    X, Y = contexts(8, 3, blocks=["hierarchy", "ring", "cross"]).numeric()
    P = X.shape[1]
    U, s, Vt = np.linalg.svd(Y @ X.T / P, full_matrices=False)
    rng = np.random.default_rng(12345)                    # fixed start vectors of the power iterations
    aux = (jnp.asarray(U[:, :4]), jnp.asarray(Vt[:4].T), jnp.asarray(rng.normal(size=X.shape[0])),
           jnp.asarray(rng.normal(size=Y.shape[0])))
    t0 = time.time()
    with Progress("depth", 4, enabled=progress) as pr:
        relu = train_relu(X, Y, hidden=[H, H], lr=lr, steps=steps, seeds=seeds, init_std=sd, loss="sum",
                          every=every, record=_record, aux=aux)
        pr.update(note="ReLU")
        G = np.zeros((4, P))
        G[0] = 1
        for j, off in enumerate([(2,), (1,), (0,)]):      # ctx12 (off in 3), ctx13, ctx23
            G[j + 1] = 1
            for c in off:
                G[j + 1, c * 8:(c + 1) * 8] = 0
        gd = train_gdln(X, Y, G, hidden=[H // 4] * 4, lr=lr, steps=steps, seeds=seeds, init_std=sd, loss="sum",
                        every=every, depth=3, record=_record, aux=aux)
        # variant: every pathway as wide as the ReLU layer (the split above gives each pathway
        # H/4 units, so a smaller (σ√H_p)³ and a longer plateau)
        gdw = train_gdln(X, Y, G, hidden=[H] * 4, lr=lr, steps=steps, seeds=seeds, init_std=sd, loss="sum",
                         every=every, depth=3)
        pr.update(note="GDLN")
        t_ck = relu.t_ck.astype(float)
        tau = 1.0 / (P * lr)
        a0_lin = random_init_a0(sd, H, 3)
        ode = mode_ode_loss(X, Y, a0_lin, tau, t_ck, P)
        pr.update(note="mode ODE")
        a0_p = random_init_a0(sd, H // 4, 3)
        race = race_loss(X, Y, G, a0=a0_p, lr=lr, loss="sum", times=t_ck, depth=3)
        pr.update(note="race")
    sim_s = time.time() - t0

    idx = t_ck.astype(int)
    out = {}
    for name, r in (("relu", relu), ("gdln", gd)):
        rec = np.asarray(r.recorded)               # seeds × checkpoints × 4
        ta = np.array([first_crossing(t_ck, np.minimum(rec[i, :, 0], rec[i, :, 1])) for i in range(seeds)])
        ta4 = np.array([first_crossing(t_ck, np.minimum(rec[i, :, 2], rec[i, :, 3])) for i in range(seeds)])
        Lck = r.loss[:, idx]
        half = np.array([first_crossing(t_ck, -Lck[i], -0.5 * Lck[i, 0]) for i in range(seeds)])
        res = {"t_align": ta, "t_align4": ta4, "t_half_loss": half, "final_loss": r.loss[:, -1],
               "stereotypical_run": stereotypical(Lck)}
        fin = np.isfinite(ta)
        fin4 = np.isfinite(ta4)
        res["aligned_runs"] = int(fin.sum())
        res["aligned4_runs"] = int(fin4.sum())
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
        out[name] = res

    rm, gm = relu.loss[:, idx].mean(0), gd.loss[:, idx].mean(0)
    L0 = rm[0]
    sr, sg = relu.loss[out["relu"]["stereotypical_run"], idx], gd.loss[out["gdln"]["stereotypical_run"], idx]
    cmp = {"stereo_relu_vs_gdln_max_rel": float(np.max(np.abs(sr - sg)) / L0),
           "mean_relu_vs_gdln_max_rel": float(np.max(np.abs(rm - gm)) / L0),
           "ode_vs_relu_mean_max_rel": float(np.max(np.abs(ode - rm)) / L0),
           "race_vs_relu_mean_max_rel": float(np.max(np.abs(race - rm)) / L0),
           "race_vs_gdln_mean_max_rel": float(np.max(np.abs(race - gm)) / L0),
           "wide_gdln_vs_relu_mean_max_rel": float(np.max(np.abs(gdw.loss[:, idx].mean(0) - rm)) / L0),
           "t_half": {"relu_mean": first_crossing(t_ck, -rm, -0.5 * L0), "gdln_mean": first_crossing(t_ck, -gm, -0.5 * L0),
                      "gdln_wide_mean": first_crossing(t_ck, -gdw.loss[:, idx].mean(0), -0.5 * L0),
                      "mode_ode": first_crossing(t_ck, -ode, -0.5 * L0), "race": first_crossing(t_ck, -race, -0.5 * L0)},
           "gdln_wide_final_mean": float(gdw.loss[:, -1].mean()),
           "ode_final": float(ode[-1]), "race_final": float(race[-1]), "relu_final_mean": float(rm[-1]),
           "gdln_final_mean": float(gm[-1])}

    _fig6(t_ck, relu.loss[:, idx], gd.loss[:, idx], out, ode, race, out_dir / "fig6_depth.png", st,
          wide=gdw.loss[:, idx].mean(0))

    ra, ga = out["relu"], out["gdln"]
    claims = [
        {"claim": "Section 6: with two hidden layers the runs vary (unlike one hidden layer)",
         "ours": f"largest across-run std/mean of the loss: ReLU {ra['loss_rel_spread_max']:.2f}, "
                 f"GDLN {ga['loss_rel_spread_max']:.2f} over {seeds} seeds",
         "agreement": "spread present" if ra["loss_rel_spread_max"] > 0.05 else "little spread",
         "verdict": "confirmed" if ra["loss_rel_spread_max"] > 0.05 else "not borne out"},
        {"claim": "the variance comes from when the layers align with the data's singular vectors",
         "ours": (f"ReLU: top mode aligned in {ra['aligned_runs']}/{seeds} runs, variance-weighted R² of loss on "
                  f"t_align {ra.get('r2_weighted', float('nan')):.2f}, on top-4 alignment "
                  f"{ra.get('r2_weighted_align4', float('nan')):.2f}, on both "
                  f"{ra.get('r2_weighted_both', float('nan')):.2f}; GDLN: "
                  f"{ga.get('r2_weighted', float('nan')):.2f} / {ga.get('r2_weighted_align4', float('nan')):.2f} / "
                  f"{ga.get('r2_weighted_both', float('nan')):.2f}"),
         "agreement": "share of across-run loss variance explained",
         "verdict": _verdict_r2(max(ra.get("r2_weighted_both", np.nan) if np.isfinite(
             ra.get("r2_weighted_both", np.nan)) else -1, ra.get("r2_weighted", -1) or -1))},
        {"claim": "Fig. 6: stereotypical ReLU and GDLN (depth-3 pathways) trajectories agree closely",
         "ours": f"max |stereotypical ReLU − GDLN| = {cmp['stereo_relu_vs_gdln_max_rel']:.3f}·L(0); means "
                 f"{cmp['mean_relu_vs_gdln_max_rel']:.3f}·L(0) (H/4 units per pathway; with H per pathway "
                 f"{cmp['wide_gdln_vs_relu_mean_max_rel']:.3f}·L(0)); final loss ReLU {cmp['relu_final_mean']:.3g}, "
                 f"GDLN {cmp['gdln_final_mean']:.3g}, wide GDLN {cmp['gdln_wide_final_mean']:.3g}; loss halves at "
                 f"ReLU {cmp['t_half']['relu_mean']:.0f}, GDLN {cmp['t_half']['gdln_mean']:.0f}, wide "
                 f"{cmp['t_half']['gdln_wide_mean']:.0f}",
         "agreement": "tolerance 0.05·L(0)",
         "verdict": "confirmed" if cmp["stereo_relu_vs_gdln_max_rel"] < 0.05 else (
             "partly" if cmp["stereo_relu_vs_gdln_max_rel"] < 0.15 else "not borne out")},
        {"claim": "balanced three-layer theory (mode ODE of one linear network; race reduction of the GDLN) "
                  "describes the runs (no closed form given in the paper)",
         "ours": f"mode ODE vs ReLU mean max {cmp['ode_vs_relu_mean_max_rel']:.3f}·L(0) (final {cmp['ode_final']:.3g}"
                 f" vs {cmp['relu_final_mean']:.3g}); race vs ReLU mean {cmp['race_vs_relu_mean_max_rel']:.3f}·L(0), "
                 f"vs GDLN mean {cmp['race_vs_gdln_mean_max_rel']:.3f}·L(0); loss halves at ODE "
                 f"{cmp['t_half']['mode_ode']:.0f}, race {cmp['t_half']['race']:.0f} vs ReLU "
                 f"{cmp['t_half']['relu_mean']:.0f}; a0 by the rule (σ√H)³, not fitted",
         "agreement": "tolerance 0.05·L(0)",
         "verdict": "confirmed" if cmp["race_vs_relu_mean_max_rel"] < 0.05 else (
             "partly" if min(cmp["race_vs_relu_mean_max_rel"], cmp["race_vs_gdln_mean_max_rel"]) < 0.15
             else "not borne out")},
    ]
    return {"suite": NAME, "mode": mode, "settings": st, "sim_seconds": sim_s, "t": t_ck,
            "relu": {k: v for k, v in ra.items() if k != "r2_curve"},
            "gdln": {k: v for k, v in ga.items() if k != "r2_curve"},
            "r2_curve_relu": ra.get("r2_curve"), "comparison": cmp,
            "relu_mean": rm, "gdln_mean": gm, "mode_ode": ode, "race": race,
            "a0_rule": {"linear_network": a0_lin, "per_pathway": a0_p, "rule": "(sigma*sqrt(H))^3"},
            "alignment_rule": f"first checkpoint with both top-mode cosines >= {ALIGN}",
            "figures": ["fig6_depth.png"], "claims": claims}


def _verdict_r2(v):
    if not np.isfinite(v):
        return "n/a"
    return "confirmed" if v >= 0.5 else ("partly" if v >= 0.2 else "not borne out")


def _fig6(t, Lr, Lg, out, ode, race, path, st, wide=None):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 3, figsize=(14, 3.8))
    for L, c, name in ((Lr, "C0", "ReLU"), (Lg, "C1", "GDLN")):
        for row in L:
            ax[0].plot(t, row, color=c, alpha=0.12, lw=0.7)
        k = out["relu" if name == "ReLU" else "gdln"]["stereotypical_run"]
        ax[0].plot(t, L[k], color=c, lw=2, label=f"{name} stereotypical")
        q = np.quantile(L, [0.1, 0.9], axis=0)
        ax[1].fill_between(t, q[0], q[1], color=c, alpha=0.25, label=f"{name} 10–90 %")
        ax[1].plot(t, L.mean(0), color=c, lw=1.5, label=f"{name} mean")
    if wide is not None:
        ax[1].plot(t, wide, color="C2", lw=1.2, label="GDLN, H units per pathway (mean)")
    ax[1].plot(t, ode, "k--", lw=1.2, label="3-layer mode ODE (linear net)")
    ax[1].plot(t, race, "k:", lw=1.5, label="race reduction (depth-3 GDLN)")
    for a in ax[:2]:
        a.set_yscale("log")
        a.set_xlabel("step")
        a.set_ylabel("summed loss")
        a.legend(fontsize=6)
    ra = out["relu"]
    ax[2].scatter(ra["t_align"], ra["t_half_loss"], label="ReLU: t_align vs t(loss = L0/2)")
    ga = out["gdln"]
    ax[2].scatter(ga["t_align"], ga["t_half_loss"], marker="x", label="GDLN")
    ax[2].set_xlabel("alignment time (top mode, both layers, cos > 0.9)")
    ax[2].set_ylabel("time loss halves")
    ax[2].legend(fontsize=6)
    fig.suptitle(f"Fig. 6: two hidden layers [11, {st['hidden']}, {st['hidden']}, 60], {Lr.shape[0]} seeds",
                 fontsize=9)
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
