"""The contexts(8, 3) ReLU control under the paper's own protocol, without theorykit.

The paper's Section 5 ReLU runs (its published ``diff_context_num/relu3.py``, CAandL-Lab/make-haste-slowly)
train a bias-free network [11, 700, 60] on the context task with the hierarchy in all three contexts:
weights N(0, (0.005/700)²) in both layers, the summed loss ½ Σ‖y − ŷ‖², plain full-batch gradient
descent with η = 0.001 for 8001 steps, in float32. This script re-implements that
protocol independently (numpy data, a JAX loop; nothing from theorykit), so that the finding in
docs/predict.md rests on the paper's protocol and not only on theorykit's trainer.

It prints, per seed, the loss area (mean of L/L(0) over steps 0…8000, the area `theorykit predict`
ranks families by), and the share of the network's weight ‖W1_j‖·‖W2_j‖ that lies in units whose gate
pattern (W1_j·x_μ > 0) is

* one of the paper's four patterns: all-on (the common pathway) or on in exactly two contexts;
* one of the 24 patterns `theorykit predict` picks: two contexts on, the same item off in both;
* anything else, split into patterns touching all three contexts and the rest.

    python examples/predict/published_control.py --seeds 8 --json control.json
"""
import argparse
import json
import os
import tempfile

import numpy as np


def hierarchy(n):
    """Binary hierarchy on n = 2^m items: one row per tree node (root, then each level)."""
    rows, width = [], n
    while width >= 1:
        for start in range(0, n, width):
            r = np.zeros(n)
            r[start:start + width] = 1.0
            rows.append(r)
        width //= 2
    return np.array(rows)


def context_task(n=8, k=3):
    """Columns context-major; inputs: one-hot item over one-hot context; outputs: the hierarchy in
    every context (common), then each context's own copy, zero in the other contexts."""
    Hh = hierarchy(n)
    X = np.vstack([np.tile(np.eye(n), k), np.repeat(np.eye(k), n, axis=1)])
    blocks = [np.tile(Hh, k)]
    for c in range(k):
        B = np.zeros((Hh.shape[0], n * k))
        B[:, c * n:(c + 1) * n] = Hh
        blocks.append(B)
    return X, np.vstack(blocks)


def train(X, Y, seed, hidden=700, steps=8000, lr=1e-3, checkpoints=(300, 1000, 2000, 4000), std=None,
          precision="highest"):
    """Plain gradient descent from N(0, std²) weights (published: std = 0.005/hidden): the loss at
    steps 0 … steps and the weights at the checkpoints and at the end. ``precision``: of the float32
    products, set on purpose. "highest" is what a CPU does anyway, and on a GPU it keeps TF32 out, so
    the figures do not depend on the device (the published runs do not record theirs)."""
    import jax
    import jax.numpy as jnp

    def loss(p):
        W1, W2 = p
        with jax.default_matmul_precision(precision):
            return 0.5 * jnp.sum((W2 @ jnp.maximum(W1 @ X, 0.0) - Y) ** 2)

    @jax.jit
    def step(p):
        g = jax.grad(loss)(p)
        return [w - lr * dw for w, dw in zip(p, g)], loss(p)

    rng = np.random.RandomState(seed)
    std = 0.005 / hidden if std is None else std
    p = [jnp.asarray(rng.normal(0.0, std, (hidden, X.shape[0])), jnp.float32),
         jnp.asarray(rng.normal(0.0, std, (Y.shape[0], hidden)), jnp.float32)]
    X, Y = jnp.asarray(X, jnp.float32), jnp.asarray(Y, jnp.float32)
    L, ck = np.empty(steps + 1), {}
    for t in range(steps + 1):
        if t in checkpoints or t == steps:
            ck[t] = [np.asarray(w, float) for w in p]
        if t == steps:
            L[t] = float(loss(p))
            break
        p, L[t] = step(p)
    return L, ck


def shares(X, W1, W2, n=8, k=3):
    """Weight shares of the pattern classes described in the module docstring."""
    G = W1 @ X > 0
    w = np.linalg.norm(W1, axis=1) * np.linalg.norm(W2, axis=0)
    w = w / w.sum()
    out = dict(paper=0.0, predicted=0.0, three_contexts_other=0.0, rest=0.0)
    for g, wj in zip(G.reshape(len(G), k, n), w):
        full = g.all(axis=1)
        touched = g.any(axis=1)
        if full.all() or (full.sum() == 2 and touched.sum() == 2):
            out["paper"] += wj
        elif touched.sum() == 2 and (g.sum(axis=0) == 2).sum() == n - 1 and g.sum() == 2 * (n - 1):
            out["predicted"] += wj
        elif touched.all():
            out["three_contexts_other"] += wj
        else:
            out["rest"] += wj
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=8, help="networks to train (seeds 0 … N−1)")
    ap.add_argument("--steps", type=int, default=8000, help="gradient steps (published: 8000)")
    ap.add_argument("--hidden", type=int, default=700, help="hidden width (published: 700)")
    ap.add_argument("--json", help="write the per-seed figures here (atomically)")
    a = ap.parse_args()
    X, Y = context_task()
    L0 = 0.5 * float(np.sum(Y ** 2))
    rows = []
    for s in range(a.seeds):
        L, ck = train(X, Y, s, hidden=a.hidden, steps=a.steps)
        row = dict(seed=s, area=float(np.mean(L / L0)), half_step=int(np.argmax(L <= L0 / 2)),
                   final=float(L[-1]), shares={t: shares(X, *W) for t, W in ck.items()})
        rows.append(row)
        fin = row["shares"][a.steps]
        print(f"seed {s}: area {row['area']:.4f}, half-way step {row['half_step']}, final loss {row['final']:.3f}; "
              f"weight at the end: paper's patterns {fin['paper']:.3f}, predicted {fin['predicted']:.3f}, "
              f"other three-context {fin['three_contexts_other']:.3f}, rest {fin['rest']:.3f}", flush=True)
    for t in sorted(rows[0]["shares"]):
        m = {c: np.mean([r["shares"][t][c] for r in rows]) for c in rows[0]["shares"][t]}
        print(f"mean over seeds at step {t}: " + ", ".join(f"{c} {v:.3f}" for c, v in m.items()))
    print(f"loss area: {np.mean([r['area'] for r in rows]):.4f} "
          f"(range {min(r['area'] for r in rows):.4f}-{max(r['area'] for r in rows):.4f}); L(0) = {L0:g}")
    if a.json:
        d = os.path.dirname(os.path.abspath(a.json))
        fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(dict(L0=L0, runs=rows), f, indent=1, default=float)
        os.replace(tmp, a.json)


if __name__ == "__main__":
    main()
