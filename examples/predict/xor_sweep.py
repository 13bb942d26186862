"""The XoR sweep of docs/predict.md ("XoR with a margin: the switch at Δ*"): ``theorykit predict`` across Δ.

For each Δ of the page's grid it runs :func:`theorykit.predict_reln` on ``xor_margin(Δ)`` with the page's
settings (those of examples/predict/xor_data.toml: H = 128, η = 0.05, mean loss, init std 0.01, 2000
gradient steps; exhaustive search), prints the number of predicted pathways and the predicted half-way
time (the gradient step at which the predicted loss reaches L(0)/2) per Δ, and draws
docs/figures/img/predict_xor_sweep.png:

    python examples/predict/xor_sweep.py --out docs/figures/img/predict_xor_sweep.png

About 15–30 s on a shared 2-core CPU. ``--json`` also writes the numbers.
"""
import argparse
import json
import math

import sympy as sp

import theorykit as tk
from theorykit.io import new_figure, write_figure

DELTAS = (0.3, 0.45, 0.6, 0.7, 0.75, 0.78, 0.8, 0.81, 0.82, 0.83, 0.85, 0.9, 1.0, 1.2, 1.5)
HIDDEN = 128
TRAINING = dict(lr=0.05, loss="mean", init_std=0.01, steps=2000)
DSTAR = math.sqrt(2 / 3)
RELU_SWITCH = 0.811      # the ReLU network's own switch, as the xor validation suite measures it (full run)


def sweep(deltas=DELTAS, hidden=HIDDEN):
    """[{"delta", "pathways", "t_half", "area"}] for each Δ: the prediction of ``theorykit predict``."""
    tr = tk.Training(**TRAINING)
    out = []
    for d in deltas:
        pred = tk.predict_reln(tk.xor_margin(sp.Float(d)), hidden, tr, search="exhaustive", progress=False)
        out.append({"delta": d, "pathways": len(pred.gates), "t_half": pred.t_half, "area": pred.area})
    return out


def figure(rows):
    """Two panels over Δ: the number of predicted pathways (4: the XoR ReLN, one pathway per datapoint;
    2: the linear ReLN), and the predicted half-way time in gradient steps; Δ* and the ReLU network's
    own switch marked on both."""
    ds = [r["delta"] for r in rows]
    fig = new_figure(figsize=(12, 4.2))
    a0, a1 = fig.subplots(1, 2)
    a0.plot(ds, [r["pathways"] for r in rows], "o-", color="C0", label="predicted ReLN")
    a0.set_yticks([2, 4], ["2: linear ReLN", "4: XoR ReLN"])
    a0.set_ylabel("predicted pathways")
    a0.set_title("Predicted ReLN across Δ (XoR with a margin, H = 128)")
    t_half = [float("nan") if r["t_half"] is None else r["t_half"] for r in rows]
    a1.plot(ds, t_half, "o-", color="C0", label="predicted half-way time")
    a1.set_ylabel("gradient steps to L(0)/2 (predicted)")
    a1.set_title("Predicted half-way time (η = 0.05, mean loss over 4 points)")
    for ax in (a0, a1):
        ax.axvline(DSTAR, color="red", ls="--", label="Δ* = √(2/3) ≈ 0.8165")
        ax.axvline(RELU_SWITCH, color="C1", ls=":", label=f"ReLU network's switch (xor suite, {RELU_SWITCH})")
        ax.set_xlabel("Δ (margin of the third coordinate)")
        ax.legend(fontsize=8, loc="center right" if ax is a0 else "upper right")
    fig.tight_layout()
    return fig


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="predict_xor_sweep.png", help="the figure to write (.png, .pdf or .svg)")
    p.add_argument("--json", default=None, help="also write the numbers here")
    a = p.parse_args(argv)
    rows = sweep()
    for r in rows:
        th = "never" if r["t_half"] is None else f"{r['t_half']:.1f}"
        print(f"Δ = {r['delta']:<5} pathways {r['pathways']}  half-way step {th}  area {r['area']:.5f}")
    write_figure(figure(rows), a.out)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
