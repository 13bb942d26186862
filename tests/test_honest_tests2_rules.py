"""Test audit, round 2: code checked against an independent reference, not against itself.

The xor suite's grid trains its ReLNs (GDLNs of resolved pathways, each reading some input rows) from
the ReLU network's own random weights with :func:`theorykit.sim.grid.train_grid`, one program over
Δ × seeds. Its other checks compare it with the aligned recurrence (tests/test_xor.py) or with
``simulate``, which trains with the same ``train_net``; here every member's loss curve and final weights
are held to gradient descent written in numpy (tests/_gd_reference.py ``gdln_gd``) on the member's own
dataset X(Δ), from the member's own initial weights.
"""
import jax
import jax.numpy as jnp
import numpy as np
from _gd_reference import gdln_gd

import theorykit as tk
from theorykit.sim import grid


def test_reln_grid_from_the_relu_weights_is_numpy_gradient_descent_at_every_delta():
    task = tk.xor_margin()
    deltas = (0.3, 1.1, 1.8)
    Xs = np.stack([task.numeric({"Delta": x})[0] for x in deltas])
    Y = task.numeric({"Delta": 1.0})[1]
    keys = jax.random.split(jax.random.PRNGKey(5), 2)
    # two pathways that read different input rows (masked first layers), private hidden units
    paths = tk.GDLNSpec(task, [tk.Pathway("positive", (1, 1, 0, 0), (0, 2), "all", 3),
                               tk.Pathway("negative", (0, 0, 1, 1), (1, 2), "all", 5)]).pathways
    net, p0 = grid.reln_grid_start(jnp.asarray(Xs), jnp.asarray(Y), keys, paths, task=task, hidden=8, std=0.3)
    lr, steps = 0.1, 150
    params, rec, _ = grid.train_grid(net, p0, jnp.asarray(Xs), jnp.asarray(Y), lr, steps, 1, 2)
    rec = np.asarray(rec)
    assert rec.shape == (3, 2, steps + 1)
    gated = [(p.active, p.inputs, p.outputs) for p in paths]
    for i in range(len(deltas)):
        for j in range(2):                                   # member i·2 + j: grid-major, then seed
            m = 2 * i + j
            start = [[np.asarray(p0[f"input->{p.name}"])[m], np.asarray(p0[f"{p.name}->output"])[m]] for p in paths]
            ref, final = gdln_gd(gated, start, Xs[i], Y, lr=lr, steps=steps, loss="mean")
            assert ref[-1] < 0.5 * ref[0], (deltas[i], j)     # it learned: the curves are not two plateaus
            # float64 rounding over 150 steps of two small pathways (measured 5.7e-16 of L(0) at most, CPU)
            np.testing.assert_allclose(rec[i, j], ref, rtol=0, atol=1e-12 * ref[0])
            for p, (W1, W2) in zip(paths, final):
                np.testing.assert_allclose(params[f"input->{p.name}"][i, j], W1, rtol=0, atol=1e-12 * np.abs(W1).max())
                np.testing.assert_allclose(params[f"{p.name}->output"][i, j], W2, rtol=0, atol=1e-12 * np.abs(W2).max())
