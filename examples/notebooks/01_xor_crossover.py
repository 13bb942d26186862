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
# # The XoR crossover
#
# XoR with a margin $\Delta$: inputs $x = (\pm 1, \pm 1, \pm\Delta)$, target $y = x_1 x_2$. The task is
# linearly separable for every $\Delta > 0$, yet a ReLU network can learn it in two ways: with a
# *linear* ReLN (one pathway on the positive examples, one on the negative) or with an *XoR* ReLN
# (one pathway per datapoint). This notebook derives exactly where the two tie, $\Delta^*$, then
# trains both ReLNs and the ReLU network itself at a small size and compares them with the closed
# forms. (Section 3 of the paper; the `xor` validation suite does the same at full size.)

# %%
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
from IPython.display import Math, display

import theorykit as tk

task = tk.xor_margin()          # Delta left symbolic
task.X

# %% [markdown]
# ## Derive: each ReLN's modes
#
# `Derivation` computes each pathway's effective dataset and its exact SVD. Each pathway has a single
# mode; in Jupyter a derivation displays its singular values $s$ and input variances $d$ as LaTeX.

# %%
H = 32                                       # total hidden width of each ReLN
relns = tk.xor_relns(hidden=H)
lin = tk.Derivation(tk.GDLNSpec(task, relns["linear"]))
xor = tk.Derivation(tk.GDLNSpec(task, relns["xor"]))
display(lin, xor)

# %% [markdown]
# ## The crossover $\Delta^*$
#
# A mode rises at rate $2s/\tau$, so the ReLN with the larger $s$ is the faster. They tie where
# $s_\text{linear}(\Delta) = s_\text{xor}(\Delta)$; SymPy solves it exactly.

# %%
Delta = task.symbols["Delta"]
s_lin = lin.modes["positive"].singular_values[0]
s_xor = xor.modes["point0"].singular_values[0]
roots = [r for r in sp.solve(sp.Eq(s_lin, s_xor), Delta) if r.is_positive]
(Dstar,) = roots
display(Math(sp.latex(sp.Eq(s_lin, s_xor)) + r"\quad\Longrightarrow\quad \Delta^* = " + sp.latex(Dstar)
             + rf" \approx {float(Dstar):.4f}"))

# %% [markdown]
# `tk.crossings` finds the same point from the two derivations themselves, exactly, with the faster
# ReLN on each side. Each mode is labelled `label:pathway` by the dict's keys (a list labels them by
# the specs' names); each linear pathway meets each of the four XoR pathways, all at $\Delta^*$: eight
# crossings, which the result shows as one group (`cross.groups`: the point, the common $s$, the modes
# larger below and those larger above). (From the command line: `theorykit derive
# examples/xor_linear.toml --crossings Delta --against examples/xor_reln.toml`.)

# %%
cross = tk.crossings({"linear": lin, "xor": xor})
assert len(cross) == 8 and {c.at for c in cross} == {Dstar}    # 2 linear × 4 XoR modes, all at Delta*
(group,) = cross.groups
assert group.at == Dstar and set(group.above) == {"linear:negative", "linear:positive"}
print(f"Delta* = {group.at} ≈ {group.at_float:.4f}")
cross

# %%
grid = np.linspace(0.05, 2, 200)
f_lin, f_xor = sp.lambdify(Delta, s_lin), sp.lambdify(Delta, s_xor)
fig, ax = plt.subplots(figsize=(5, 3.2))
ax.plot(grid, f_lin(grid), label="linear ReLN")
ax.plot(grid, f_xor(grid) * np.ones_like(grid), label="XoR ReLN")
ax.axvline(float(Dstar), color="grey", ls=":", label=r"$\Delta^* = \sqrt{2/3}$")
ax.set_xlabel(r"margin $\Delta$")
ax.set_ylabel("singular value $s$ (rate $2s/\\tau$)")
ax.legend()
plt.show()

# %% [markdown]
# The half-way time of a mode, $\tau/(2s)\,\ln(s/(d a_0) - 1)$, derived for the linear ReLN:

# %%
display(Math(r"t_{1/2}^{\text{linear}} = " + sp.latex(lin.t_half["positive"][0])))

# %% [markdown]
# ## Simulate and compare
#
# Now train, on either side of $\Delta^*$, three networks from small random weights (std $\sigma$) by
# full-batch gradient descent in float64: the ReLU network itself (bias-free, $H = 32$ hidden units)
# and the GDLNs of both ReLNs (the same width, gates fixed). Random weights first align with the data,
# so the closed forms need the initial mode strength of a random start: the rule
# $a_0 = H_p\sigma^2/2$ ($H_p$: units per pathway).

# %%
lr, steps, sigma = 0.05, 800, 0.01
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
for ax, D in zip(axes, (0.5, 1.2)):
    X, Y = task.numeric({"Delta": D})
    relu = tk.simulate((X, Y), network="relu", hidden=H, lr=lr, steps=steps, seeds=4, init_std=sigma)
    L0 = relu.mean[0]
    ax.plot(relu.t, relu.mean / L0, color="k", lw=4, alpha=0.3, label="ReLU network")
    for name, color in (("linear", "C0"), ("xor", "C1")):
        a0 = relns[name][0].hidden * sigma**2 / 2
        spec = tk.GDLNSpec(task, relns[name], tk.Training(lr=lr, a0=a0, init_std=sigma))
        theory = tk.Derivation(spec).predict_loss(relu.t, values={"Delta": D})
        gdln = tk.simulate(spec, values={"Delta": D}, init="random", seeds=4, steps=steps)
        ax.plot(relu.t, theory / L0, color=color, label=f"{name} ReLN, closed form")
        ax.plot(gdln.t, gdln.mean / L0, color=color, ls="--", label=f"{name} ReLN, simulated")
        rms = np.sqrt(np.mean((relu.mean - theory) ** 2)) / L0
        print(f"Delta = {D}: ReLU network vs the {name} ReLN's closed form: RMS gap {rms:.3f} of L(0)")
    faster = "linear" if D > float(Dstar) else "XoR"
    ax.set_title(rf"$\Delta = {D}$ ({faster} ReLN faster)")
    ax.set_xlabel("gradient step")
    ax.legend(fontsize=7)
axes[0].set_ylabel("L(t) / L(0), mean of 4 seeds")
plt.show()

# %% [markdown]
# On either side of $\Delta^*$ the ReLU network's curve is closest to the closed form of the faster
# ReLN (the RMS gaps printed above): it learns like whichever ReLN is faster. At this small width the
# match above $\Delta^*$ is looser than below it (the tutorial measures 1% of $L(0)$ with 128 hidden
# units over 2000 steps). The same from the command line:
#
# ```bash
# theorykit derive examples/xor_reln.toml --latex xor.tex
# theorykit validate xor --quick --out results
# ```
