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
# # Your own task
#
# A task that is not in the paper: random $\pm1$ inputs and targets. We write its spec file, derive it,
# and see where the closed form holds and where it stops: when pathways **couple** (they write the same
# outputs on a common datapoint) or when a pathway's input correlations are not diagonal in its
# singular vectors, `Derivation.method` switches from `closed-form` to `race-reduction`, the reduction
# of the network's gradient flow to its modes, integrated numerically.

# %%
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
from IPython.display import Math, display
from scipy.linalg import hadamard

import theorykit as tk

# %% [markdown]
# ## The task
#
# $P = 6$ datapoints, $d = 8$ inputs, $p = 2$ outputs, all $\pm1$. The inputs are 6 columns of an
# $8\times8$ Hadamard matrix with random signs, so they are orthogonal; the targets are random.

# %%
rng = np.random.default_rng(7)
X = np.diag(rng.choice([-1, 1], 8)) @ hadamard(8)[:, rng.choice(8, 6, replace=False)]
Y = rng.choice([-1, 1], size=(2, 6))
print("X =\n", X, "\nY =\n", Y)

# %% [markdown]
# ## Write the spec
#
# A spec file is TOML: the data (datapoints as columns), the pathways (a gate per datapoint, 1 = on)
# and the training settings. A small helper writes one for a given set of pathways.

# %%
def write_spec(path, pathways, X=X, Y=Y):
    rows = lambda M: "[" + ", ".join("[" + ", ".join(str(int(v)) for v in r) + "]" for r in M) + "]"  # noqa: E731
    text = f'name = "random-pm1"\n\n[data]\ninputs = {rows(X)}\ntargets = {rows(Y)}\n'
    for name, gate in pathways.items():
        text += f'\n[[pathways]]\nname = "{name}"\nactive = {list(gate)}\nhidden = 8\n'
    text += '\n[training]\nlr = 0.01\nloss = "mean"\na0 = 0.001\nsteps = 800\n'
    Path(path).write_text(text)
    return text


folder = Path(tempfile.mkdtemp())
pos = [int(y > 0) for y in Y[0]]                 # split the datapoints by the sign of the first target
print(write_spec(folder / "split.toml", {"positive": pos, "negative": [1 - g for g in pos]}))

# %% [markdown]
# ## Derive: the closed form
#
# Two pathways on disjoint datapoints do not couple, and with orthogonal inputs each pathway's input
# correlation is diagonal in its singular vectors: every mode follows the closed-form logistic
# $a(t) = \frac{s/d}{1 + (s/(d a_0) - 1)e^{-2st/\tau}}$.

# %%
split = tk.load_spec(folder / "split.toml")
der = tk.Derivation(split)
print(der.method)
display(der)
display(Math(r"t_{1/2} = " + sp.latex(der.t_half["positive"])))

# %% [markdown]
# ## Where the closed form stops
#
# Add a third pathway, on for every datapoint (a *common* pathway). It writes the same outputs as the
# other two on the same datapoints: the pathways couple, and the race between them no longer
# separates into modes. The derivation still gives each pathway's exact SVD, but the loss comes from
# integrating the race reduction, and the notes say why.

# %%
write_spec(folder / "common.toml", {"common": [1] * 6, "positive": pos, "negative": [1 - g for g in pos]})
common = tk.load_spec(folder / "common.toml")
der_c = tk.Derivation(common)
print(der_c.method, "- couplings:", der_c.couplings)
print(der_c.notes[0])

# %% [markdown]
# The other way out of the closed form: inputs that are not orthogonal. With random $\pm1$ inputs a
# pathway's input correlation mixes its singular directions, even with no coupling at all:

# %%
X_random = rng.choice([-1, 1], size=(8, 6))
write_spec(folder / "random_inputs.toml", {"positive": pos, "negative": [1 - g for g in pos]}, X=X_random)
der_r = tk.Derivation(tk.load_spec(folder / "random_inputs.toml"))
print(der_r.method)
print(der_r.notes[0])

# %% [markdown]
# ## Simulate and compare
#
# Each GDLN is trained from small, aligned, balanced weights of strength $a_0$ (full-batch gradient
# descent with $\eta = 0.01$, float64). The theory is a gradient *flow*, so the gap to the discrete steps
# is $O(\eta)$.

# %%
fig, axes = plt.subplots(1, 3, figsize=(12, 3.4), sharey=True)
cases = {"split (closed form)": (split, der), "with a common pathway (race)": (common, der_c),
         "random inputs (race)": (der_r.spec, der_r)}
for ax, (title, (spec, d)) in zip(axes, cases.items()):
    sim = tk.simulate(spec, init="aligned", seeds=1)
    theory = d.predict_loss(sim.t)
    L0 = sim.mean[0]
    gap = np.max(np.abs(sim.mean - theory)) / L0
    print(f"{title}: method {d.method}, largest gap simulation vs theory {gap:.3f} of L(0)")
    ax.plot(sim.t, sim.mean / L0, "k", lw=4, alpha=0.3, label="GDLN, simulated")
    ax.plot(sim.t, theory / L0, "C3--", label=f"{d.method}")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("gradient step")
    ax.legend()
axes[0].set_ylabel("L(t) / L(0)")
plt.show()

# %% [markdown]
# Both methods follow the network. The closed form gives $L(t)$ as a formula (`der.loss`); the race
# reduction gives it as a numerical solution of a small ODE, which is what remains once pathways couple.
# The command line reads the same files: `theorykit derive split.toml --latex split.tex` and
# `theorykit simulate common.toml --compare`.
