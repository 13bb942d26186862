"""Figures of suite ``xor`` (Fig. 2d, 2e), drawn from the arrays its measurements keep."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from theorykit.io import SIMULATION_STYLE, THEORY_STYLE, subplots, write_figure


COLORS = {"relu": "black", "linear": "tab:blue", "xor": "tab:orange"}
#: the suite's loss: the mean over the four datapoints of ½ (y − ŷ)², so ½ at a zero output (y = ±1)
LOSS_LABEL = "mean loss ½ (y − ŷ)² over the 4 datapoints"


def _protocol(cfg, sep=", ") -> str:
    """The run in words: network, training and seeds (``sep`` between the network and the training)."""
    return (f"ReLU network with {cfg['hidden']} hidden units{sep}full-batch gradient descent on the mean loss, "
            f"η = {cfg['lr']}, init std {cfg['init_std']}, {cfg['seeds']} seeds")


def figures(out_dir, cfg, theory, deltas, times, A) -> list:
    """Write fig2d_learning_time.png and fig2e_loss_curves.png into ``out_dir``; returns their {file, caption}."""
    dstar = theory["crossover_float"]
    files = []
    # Fig. 2d: learning time against Δ
    fig, ax = subplots(figsize=(5.5, 4))
    m, q = A["relu_lt_med"], A["relu_q"]
    ax.fill_between(deltas, q[0], q[1], color=COLORS["relu"], alpha=0.15, lw=0)
    ax.plot(deltas, m, "o-", color=COLORS["relu"], ms=3, label="ReLU network (median, IQR)")
    for n, lab in (("linear", "linear ReLN"), ("xor", "XoR ReLN")):
        ax.plot(deltas, A["cf_lt_rule"][n], "-", color=COLORS[n], label=f"{lab} (closed form)")
        ax.plot(deltas, A["sim_lt_med"][n], "x", color=COLORS[n], ms=4, label=f"{lab} (simulated)")
    ax.axvline(dstar, color="grey", ls="--", label=r"$\Delta^\ast=\sqrt{2/3}$")
    if A["crossover_sim"] is not None:
        ax.axvline(A["crossover_sim"], color="grey", ls=":", label="ReLU switch (sim)")
    ax.set_yscale("log")
    ax.set_xlabel(r"margin $\Delta$")
    ax.set_ylabel("learning time (gradient steps to half the initial loss)")
    finite = np.concatenate([v[np.isfinite(v)] for v in [m] + list(A["cf_lt_rule"].values())])
    if finite.size:
        ax.set_ylim(0.7 * finite.min(), min(3 * finite.max(), 20 * np.nanmax(m)))
    ax.set_title(f"Fig. 2d: learning time on XoR with a margin\n{_protocol(cfg, chr(10))}", fontsize=8)
    ax.legend(fontsize=7)
    fig.tight_layout()
    p = write_figure(fig, Path(out_dir) / "fig2d_learning_time.png", dpi=130)
    files.append({"file": p.name, "caption": "Fig. 2d: learning time (steps to half the initial loss) against the "
                  "margin Δ: ReLU networks (median, IQR), linear and XoR ReLNs (closed form, simulated); Δ* dashed, "
                  "the ReLU switch point dotted"})

    # Fig. 2e: loss curves for several Δ
    want = [x for x in cfg["curve_deltas"] if x <= deltas[-1] + 1e-12]
    idx = sorted({int(np.argmin(np.abs(deltas - x))) for x in want})
    ncol = min(3, len(idx))
    nrow = int(math.ceil(len(idx) / ncol))
    fig, axes = subplots(nrow, ncol, figsize=(4 * ncol, 3 * nrow), squeeze=False)
    rc = A["relu_curves"]
    for a, i in zip(axes.ravel(), idx):
        fin = np.isfinite(A["relu_lt_med"][i])
        tmax = 4 * A["relu_lt_med"][i] if fin else times[-1]
        tmax = min(max(tmax, 50), times[-1])
        sel = times <= tmax
        mu = rc[i].mean(0)
        a.fill_between(times[sel], rc[i].min(0)[sel], rc[i].max(0)[sel], color="k", alpha=0.12, lw=0)
        # the ReLU network above the ReLN simulations (solid, wide, pale), the closed forms narrow and dashed
        # on top of both: the simulations were thin solid lines over the dashes, which they filled in
        a.plot(times[sel], mu[sel], color=COLORS["relu"], lw=2, zorder=2.5, label="ReLU (mean, range)")
        for n, lab in (("linear", "linear ReLN"), ("xor", "XoR ReLN")):
            a.plot(times[sel], A["sims"][n][i].mean(0)[sel], color=COLORS[n], label=f"{lab} sim", **SIMULATION_STYLE)
            a.plot(times[sel], A["cf_rule"][n][i][sel], color=COLORS[n], label=f"{lab} closed form", **THEORY_STYLE)
        a.set_title(f"Δ = {deltas[i]:.3g} ({'<' if deltas[i] < dstar else '>'} Δ*: "
                    f"{'XoR' if deltas[i] < dstar else 'linear'} ReLN faster)", fontsize=9)
        a.set_xlabel("gradient step")
        a.set_ylabel(LOSS_LABEL, fontsize=8)
    for a in axes.ravel()[len(idx):]:
        a.axis("off")
    axes.ravel()[0].legend(fontsize=6)
    fig.suptitle(r"Fig. 2e: loss curves on XoR with a margin, $\Delta^\ast \approx$" + f"{dstar:.3f}\n"
                 + _protocol(cfg), fontsize=10)
    fig.tight_layout()
    p = write_figure(fig, Path(out_dir) / "fig2e_loss_curves.png", dpi=130)
    files.append({"file": p.name, "caption": "Fig. 2e: loss curves of the ReLU networks (mean, range over seeds) beside "
                  "the linear and XoR ReLNs (closed form dashed, simulation wide and pale under it) for several Δ"})
    return files
