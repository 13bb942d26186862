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
# # Contexts and the race
#
# The context task: $n$ items in $k$ contexts, input $x = [e_i;\ \gamma e_c]$, targets a common block
# (the item's structure in every context) and one block per context (the structure in its own context,
# zero elsewhere). A ReLU network learns it with a *common* pathway, always on, and *context*
# pathways, each on in a subset of the contexts. Which subsets? This notebook
#
# 1. derives the dynamics for **symbolic $k$**: the common pathway's modes, the residual it leaves,
#    and the pathways on $r$ of the $k$ contexts that learn that residual;
# 2. runs the **race by exhaustion** at $k = 3$: every one of the $2^{2^3-1}-1 = 127$ families of
#    context-gated pathways, ranked by how fast the race reduction learns the task.
#
# (Sections 4 and 5 of the paper.)

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp
from IPython.display import Math, display

import theorykit as tk
from theorykit.analysis.exhaust import race_exhaust
from theorykit.theory import k_contexts
from theorykit.theory.k_algebra import k, n, sig

# %% [markdown]
# ## Derive for symbolic $k$
#
# `k_contexts.derive` works with $k$, $n$ and the structure's singular values $\tilde\sigma_\alpha$ as
# symbols: the averages over items and contexts are exact Kronecker algebra, nothing is typed in. We
# also ask it to check the result at $k = 3$ against theorykit's exact derivation of the actual task
# `contexts(4, 3)`.

# %%
res = k_contexts.derive(check_ks=(3,), race_check=False, latex=False)
print(f"derived in {res.seconds:.2f} s")
rows = [rf"\text{{{m['sector']}}}:\quad & s = {sp.latex(m['s'])}, & d = {sp.latex(m['d'])}" for m in res.common]
display(Math(r"\text{common pathway}\qquad\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}"))

# %% [markdown]
# The common pathway fits the additive part $f(i) + g(c)$ of the targets. The $k$ pathways on $k-1$
# contexts then learn its residual. They share the output, so their race couples them; but their
# maps sum to zero by symmetry, the overlap terms cancel, and the effective $d$ of each is smaller
# than its own input variance $d_\text{own}$ ([the theory page](../../docs/theory.md#contexts)).

# %%
K = res.kminus1
display(Math(r"(k-1)\text{-context:}\quad s_\alpha = " + sp.latex(K["s"]) + r",\quad d_\text{own} = "
             + sp.latex(K["d_own"]) + r",\quad d = " + sp.latex(K["d_eff"]) + r",\quad \frac{s_\alpha}{d} = "
             + sp.latex(K["end_point"])))
S1, RF = res.single, res.r_family
display(Math(r"\text{single-context:}\quad s_\alpha = " + sp.latex(S1["s"]) + r",\quad d = " + sp.latex(S1["d_eff"])))
display(Math(r"r\text{-context (all } \tbinom{k}{r}\text{):}\quad s_\alpha = " + sp.latex(RF["s"])
             + r",\quad d = " + sp.latex(RF["d_eff"])))

# %%
c = res.checks[0]
print(f"check at k = {c['k']}, n = {c['n']} (exact derivation of contexts({c['n']}, {c['k']})):")
print(f"  common pathway, largest |difference|: {c['common_max_abs_error']:.1e}")
print(f"  residual matches exactly: {c['residual_exact_match']}")
print(f"  (k-1)-context s, d_own, d: {c['kminus1_s_max_abs_error']:.1e}, {c['kminus1_d_own_max_abs_error']:.1e}, "
      f"{c['kminus1_d_eff_max_abs_error']:.1e}")

# %% [markdown]
# On the residual alone, the rate $s$ of an $r$-context pathway is $\propto\sqrt{r(k-r)}$: the same
# for $r = 1$ and $r = k-1$. The residual cannot rank single- against $(k-1)$-context pathways;
# the race from $t = 0$, where every pathway also sees the full targets, can.

# %%
r = k_contexts.r_sym
s_r = sp.lambdify((r, k), (RF["s"] / sig * n))
fig, ax = plt.subplots(figsize=(5, 3.2))
for kk in range(3, 9):
    rr = np.arange(1, kk)
    ax.plot(rr, s_r(rr, kk), "o-", label=f"k = {kk}")
ax.set_xlabel("contexts per pathway, r")
ax.set_ylabel(r"$s_\alpha\, n / \tilde\sigma_\alpha$ on the residual")
ax.legend(ncol=2, fontsize=8)
plt.show()

# %% [markdown]
# ## The race by exhaustion at $k = 3$
#
# `race_exhaust` builds the superset (common pathway plus one item-only pathway per proper non-empty
# subset of contexts: 7 pathways, 127 families), finds the task's symmetry ($S_3$, checked exactly on
# $X$ and $Y$), integrates the race reduction of one family per orbit, and ranks every family by the
# area under $L(t)/L(0)$ over 8000 steps (lower is faster). The command line does the same:
# `theorykit race-exhaust --k 3 --out DIR`.

# %%
t0 = time.time()
ex = race_exhaust(3, progress=False)
S = ex.summary
print(f"{S['families']} families in {S['symmetry']['orbits']} orbits, raced in {time.time() - t0:.1f} s")
print("winner:", S["winner"])
print("every family within 1% of the winner contains common + all (k-1)-context pathways:",
      S["all_within_1pct_contain_common_and_all_(k-1)-context"])
for name, row in S["named"].items():
    print(f"  {name:18s} rank {row['rank_area']:3d}   area {row['area']:.4f}")

# %%
named = {row["family"]: name for name, row in S["named"].items()}
fig, ax = plt.subplots(figsize=(7, 4))
# the named sets dashed and thick, the fastest three thin on top: where a named set is among the
# fastest its two lines coincide, so the legend says which
top3 = [r["family"] for r in S["top20_by_area"][:3]]
for lab, curve in ex.curves.items():
    if lab in named:
        also = " (also a top 3)" if lab in top3 else ""
        ax.plot(ex.t, curve, lw=3, ls="--", alpha=0.8, label=f"{named[lab]}: {lab}{also}")
for lab in top3:
    ax.plot(ex.t, ex.curves[lab], lw=1, label=f"top 3: {lab}")
ax.set_yscale("log")
ax.set_xlabel("gradient step")
ax.set_ylabel("L(t) / L(0), race reduction")
ax.set_title("k = 3: the fastest families and the named sets")
ax.legend(fontsize=7)
plt.show()

# %% [markdown]
# The families that learn fastest all hold the common pathway and the three 2-context ("double")
# pathways (Proposition 4.2 of the paper); adding single-context pathways changes the area by well
# under 1%. `docs/race_k4.md` does the same at $k = 4$ (32 767 families).
