"""Ensembles over a grid of datasets: one trainer's program for every (grid point, seed) network.

The xor suite's Δ grid: the datasets ``Xs`` (nΔ × d × P) share the targets ``Y``; every network of
the grid is one member of :func:`theorykit.sim.engine.train`'s ensemble (grid-major, then seed), so the
whole grid is one jit(vmap(...)) program, :func:`train_grid`, which returns the final weights, the
recorded loss curves and the learning times (first step below half the initial loss,
:func:`theorykit.curves.learning_time`, from the per-step curve). Its starts: :func:`relu_grid_start`
(bias-free ReLU networks), :func:`reln_grid_start` (a ReLN, a GDLN of resolved pathways, from the
*same* random weights as the ReLU network) and :func:`aligned_reln_grid_start` (a ReLN from the one
aligned start of :mod:`theorykit.net.starts`, with exact singular vectors); each returns ``(net, initial weights)``.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from theorykit.curves import learning_time
from theorykit.net.layout import Net
from ..errors import SpecError
from ..record import SaveAt
from theorykit.sim.engine import train_net
from theorykit.spec.gating import GDLNSpec
from theorykit.spec.graph import graph_from_pathways
from theorykit.net.starts import aligned_params, random_params

__all__ = ["train_grid", "grid_keys", "reln_net", "relu_grid_start", "reln_grid_start", "aligned_reln_grid_start"]


def train_grid(net, p0, Xs, Y, lr, steps, record_every, n_seeds):
    """Train the members (Δ-major, then seed) of ``p0`` on X = Xs[Δ] with :func:`theorykit.sim.engine.train`.
    Returns (final params by edge, nΔ × seeds × …; loss recorded every ``record_every`` steps,
    nΔ × seeds × (steps/record_every + 1); learning time, nΔ × seeds, from the per-step curve)."""
    nD = Xs.shape[0]
    data = (jnp.repeat(jnp.asarray(Xs), n_seeds, axis=0), jnp.broadcast_to(jnp.asarray(Y), (nD * n_seeds,) + Y.shape))
    res = train_net(net, p0, data, loss="mean", lr=lr, steps=steps, save=SaveAt(loss_every=1), data_axis=0)
    curves = res.loss.reshape(nD, n_seeds, steps + 1)
    params = {k: np.asarray(v).reshape((nD, n_seeds) + v.shape[1:]) for k, v in res.params.items()}
    return params, curves[..., ::record_every], learning_time(curves)


def grid_keys(keys, nD):
    """The seeds' keys repeated for each of ``nD`` grid points (grid-major), as the members are laid out."""
    return jnp.tile(jnp.asarray(keys), (nD, 1))


def relu_grid_start(Xs, Y, keys, *, hidden, std):
    """Bias-free ReLU networks for every Δ (Xs: nΔ × d × P) and seed (``keys``), the initial weights
    drawn from each seed's key as :func:`theorykit.sim.simulation.simulate` (``network="relu"``) draws
    them: ``(net, weights)`` for :func:`train_grid`."""
    net = Net.chain(Xs.shape[1], [hidden], Y.shape[0])
    return net, random_params(net, std, keys=grid_keys(keys, Xs.shape[0]))


def reln_net(task, pathways):
    """The GDLN of a ReLN's resolved pathways on ``task`` (private chains); its structure does not depend
    on the task's symbol values."""
    return Net.from_graph(graph_from_pathways(GDLNSpec(task, tuple(pathways))))


def reln_grid_start(Xs, Y, keys, pathways, *, task, hidden, std):
    """A ReLN (GDLN) with the same random initial weights as the ReLU network, for every Δ and seed:
    ``(net, weights)`` for :func:`train_grid`.

    Pathway p takes the ReLU network's hidden units ``offset_p … offset_p + H_p − 1`` (rows of W1,
    columns of W2), restricted to its input and output rows."""
    sizes = [q.hidden for q in pathways]
    if sum(sizes) != hidden:
        raise SpecError("hidden", f"the ReLN's pathways hold {sum(sizes)} units, the ReLU network {hidden}",
                        f"give hidden={sum(sizes)}, or pathways whose hidden widths add up to {hidden}")
    _, w = relu_grid_start(Xs, Y, keys, hidden=hidden, std=std)
    W1, W2 = w["input->h1"], w["h1->output"]
    net = reln_net(task, pathways)
    p0, off = {}, 0
    for q in pathways:
        H, i, o = q.hidden, np.asarray(q.inputs), np.asarray(q.outputs)
        p0[f"input->{q.name}"] = W1[:, off:off + H][:, :, i]
        p0[f"{q.name}->output"] = W2[:, o][:, :, off:off + H]
        off += H
    return net, p0


def aligned_reln_grid_start(task, pathways, points, frames, a0, *, seeds, seed=0, dtype="float64"):
    """A ReLN from exact aligned, balanced weights of strength ``a0`` at every grid point and seed:
    ``(net, weights)`` for :func:`train_grid`. Grid point i starts as the one aligned start,
    :func:`theorykit.net.starts.aligned_params`, at the symbol values ``points[i]`` (e.g.
    ``{"Delta": 0.5}``) with the pathways' exact singular vectors ``frames[i]`` (pathway name →
    ``(U, V)``); every grid point draws its ``seeds`` random frames R from ``seed``."""
    net = reln_net(task, pathways)
    spec = GDLNSpec(task, tuple(pathways))
    per = [aligned_params(spec, a0, seeds, seed, dtype, values=v, frames=f) for v, f in zip(points, frames)]
    return net, {k: jnp.concatenate([p[k] for p in per]) for k in net.keys}
