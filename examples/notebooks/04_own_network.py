# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Your own network
#
# A bias-free ReLU network trained anywhere can be brought in as weight checkpoints plus its data.
# theorykit then runs Algorithm 1 of the paper on **that run's own hidden activity**: it clusters the
# units' on/off patterns into gates, builds the GDLN of those gates, and compares it with the run.
# Here a small network on 100 of scikit-learn's digits stands for your run (see the docs page
# *Your own network* for the file formats and the command line).

# %%
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
from IPython.display import display
from sklearn.datasets import load_digits

import theorykit as tk
from theorykit.analysis.checkpoints import find_gates_in_run, load_checkpoints
from theorykit.analysis.compare import compare_run

# %% [markdown]
# ## 1. Train and save checkpoints
#
# Plain JAX, nothing from theorykit: 10 digits per class ($P = 100$), pixels / 16, one-hot targets,
# **datapoints as columns**; a 64 → 16 → 10 bias-free ReLU network, full-batch gradient descent on the
# mean loss $L = \frac{1}{2P}\sum_\mu\lVert\hat y_\mu - y_\mu\rVert^2$, a checkpoint every 50 steps.
# Layers are saved as `W1`, `W2`, each out × in (as PyTorch's `nn.Linear.weight`).

# %%
digits = load_digits()
rng = np.random.default_rng(0)
idx = np.concatenate([rng.choice(np.flatnonzero(digits.target == c), 10, replace=False) for c in range(10)])
X = digits.data[idx].T / 16.0            # 64 × 100
Y = np.eye(10)[digits.target[idx]].T     # 10 × 100
P, H, lr, steps, every = X.shape[1], 16, 0.1, 2000, 50


def loss(W):
    return 0.5 * jnp.sum((W[1] @ jax.nn.relu(W[0] @ X) - Y) ** 2) / P


@jax.jit
def step(W):
    return [w - lr * g for w, g in zip(W, jax.grad(loss)(W))]


run_dir = Path(tempfile.mkdtemp())
W = [0.01 * rng.standard_normal((H, 64)), 0.01 * rng.standard_normal((10, H))]
for t in range(steps + 1):
    if t % every == 0:
        np.savez(run_dir / f"step_{t:06d}.npz", W1=np.asarray(W[0]), W2=np.asarray(W[1]))
    if t < steps:
        W = step(W)
print(f"final loss {float(loss(W)):.4f}; {len(list(run_dir.glob('step_*.npz')))} checkpoints")

# %% [markdown]
# ## 2. Load the run and find its gates
#
# `load_checkpoints` reads and checks the files (step numbers from the names). `find_gates_in_run`
# clusters the first hidden layer's binary activity at every checkpoint for K = 1 … 4 clusters, trains
# the GDLN of each K's gate patterns **from the run's own first checkpoint**, scores it by its output
# MSE against the run, and picks K at the elbow.

# %%
t0 = time.time()
run = load_checkpoints(str(run_dir / "step_*.npz"), (X, Y))
found = find_gates_in_run(run, lr=lr, loss="mean", Ks=range(1, 5))
print(f"Algorithm 1 in {time.time() - t0:.1f} s")
for note in found.notes:
    print(note)
print("pathways:", [(p.name, p.hidden, f"on for {sum(p.active)} of {P}") for p in found.spec.pathways])

fig, ax = plt.subplots(figsize=(4.5, 3))
ax.plot([r["K"] for r in found.scores], [r["mse"] for r in found.scores], "o-")
ax.axvline(found.K, color="grey", ls=":", label=f"elbow: K = {found.K}")
ax.set_xticks(found.Ks)                       # K counts clusters: whole numbers only
ax.set_xlabel("clusters K")
ax.set_ylabel("output MSE, GDLN vs run")
ax.legend()
plt.show()

# %% [markdown]
# ## 3. Derive
#
# Here the elbow found **no gating**: at K = 2 one cluster holds the units that are mostly off (its
# pattern is empty and dropped, the note above) and the other those on for most images, whose centroid,
# thresholded at ½, is on for all 100. So the found spec is one always-on pathway of all 16 units, a
# deep linear network. K = 3 adds a gated pathway but lowers the MSE by less than the elbow rule's
# 10 % of the total improvement (the plot); `find_gates_in_run(run, lr=lr, K=3)` takes it anyway.
#
# The found spec is an ordinary pathway spec. On digits the pathway's input correlations are not
# diagonal in its singular vectors, so there is no closed form: `Derivation.method` is
# `race-reduction` and the notes say why.

# %%
der = tk.Derivation(found.spec)
print(der.method)
print(der.notes)

# %% [markdown]
# ## 4. Compare
#
# `compare_run` recomputes the run's loss at every checkpoint, trains the found GDLN from the run's
# first checkpoint, integrates the race reduction, and reports the largest gap between each pair of
# curves as a share of the run's initial loss. In Jupyter the comparison displays as its figure.

# %%
cmp = compare_run(found.spec, run)
print({k: round(v, 3) for k, v in cmp.agreement().items()})
display(cmp)

# %% [markdown]
# The race reduction (theory) follows the found GDLN more closely than the GDLN follows the ReLU run:
# the theory describes the GDLN, and the GDLN with gates fixed at the patterns the units settle into
# describes the run only roughly. The same from the command line (with your own files):
#
# ```bash
# theorykit find-gates --checkpoints 'run/step_*.npz' --data run/data.npz --lr 0.1 --out found.toml
# theorykit compare found.toml --checkpoints 'run/step_*.npz' --data run/data.npz --lr 0.1 --out compare/
# ```
