# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Predicting the ReLN from data
#
# Algorithm 1 reads a gated network off a *trained* ReLU network. `predict_reln` goes the other way:
# from the data $(X, Y)$, the width and the training settings alone, it predicts which gating a
# bias-free ReLU network will learn. It enumerates the gate patterns a bias-free unit can realise,
# keeps those its units keep while they learn, groups them by the data's symmetry, and races the
# candidate families with the race reduction (see `docs/predict.md`). `validate_prediction` then
# trains the ReLU networks and sets the prediction beside them.

# %%
import theorykit as tk
from theorykit.analysis.predict_validate import validate_prediction

training = tk.Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)

# %% [markdown]
# ## XoR with a margin, below $\Delta^* = \sqrt{2/3}$
#
# At $\Delta = 0.5$ the four single-datapoint pathways learn faster than the two-pathway linear
# ReLN, so the prediction is the XoR gating. No training has happened yet.

# %%
pred = tk.predict_reln(tk.xor_margin(0.5), 128, training)
print(pred.text())
pred.figure()

# %% [markdown]
# ## The check: eight ReLU networks
#
# `validate_prediction` trains eight networks of width 128 from small random weights with the same
# settings, runs Algorithm 1 on them, and reports the gap between the predicted loss and the mean
# ReLU loss, the share of the ReLU weight in predicted patterns, and the overlap with Algorithm 1's
# gates. Two figures: the loss (left: linear scale, right: log scale), then three panels of gates
# (the predicted gates, the ReLU units' most common patterns, Algorithm 1's found gates).

# %%
val = validate_prediction(pred, seeds=8)
print(val.text())
fig_loss, fig_gates = val.figures(pred)
display(fig_loss, fig_gates)  # noqa: F821 - IPython's display

# %% [markdown]
# ## Above $\Delta^*$
#
# At $\Delta = 1.2$ the linear ReLN (one pathway per label) is faster, and the prediction switches.

# %%
pred_hi = tk.predict_reln(tk.xor_margin(1.2), 128, training)
print(pred_hi.text())
pred_hi.figure()
