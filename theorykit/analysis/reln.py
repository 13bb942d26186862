"""The exact ReLN (Definition 3.1): a ReLU network's own gates, read off its activity at every step."""
from __future__ import annotations
import jax
import jax.numpy as jnp
import numpy as np
from ..errors import SpecError
from ..theory import jaxify  # noqa: F401  (float64)
from ..sim.simulate import gdln_forward, relu_gates


__all__ = ["exact_reln_outputs"]


def exact_reln_outputs(params, X):
    """Output of the exact ReLN at the ReLU weights ``params`` (one network, not batched).

    One hidden layer: a GDLN with one pathway per hidden unit h, gate ``1[w_h·x > 0]``, maps
    ``W1[h, :]`` and ``W2[:, h]`` (evaluated with :func:`theorykit.sim.simulate.gdln_forward`).
    Deeper: node-gated linear layers ``ŷ = W_L G_{L−1} W_{L−1} … G_1 W_1 x`` with ``G_l`` the
    diagonal of unit activities of the ReLU network on that datapoint (no nonlinearity applied).

    Products at "highest" precision (float32 weights on a GPU would otherwise run in TF32, and a
    gate read from a TF32 pre-activation can differ from the network's own)."""
    params, X = _checked(params, X)
    with jax.default_matmul_precision("highest"):
        return _exact_reln_outputs(params, X)


def _checked(params, X):
    """``params`` a list of 2-d weights ``[W1, …, WL]`` (L ≥ 2) that chain, ``X`` a d × P array with d
    the width ``W1`` reads; else an error naming the argument."""
    fix = "one network's weights in order, [W1 (hidden × d), …, WL (p × hidden)], e.g. [W[seed] for W in params]"
    if not isinstance(params, (list, tuple)):
        raise SpecError("params", f"expected a list of weight matrices, got {type(params).__name__}", fix)
    if len(params) < 2:
        raise SpecError("params", f"{len(params)} weight matrix: a ReLU network has at least 2 (one hidden layer)", fix)
    shapes = [np.shape(W) for W in params]
    for i, sh in enumerate(shapes):
        if len(sh) != 2:
            raise SpecError(f"params[{i}]", f"has shape {sh}, not a matrix (a batch of networks?)", fix)
        if i and sh[1] != shapes[i - 1][0]:
            raise SpecError(f"params[{i}]", f"shape {sh} does not follow params[{i - 1}] of shape {shapes[i - 1]}", fix)
    try:
        X = jnp.asarray(X)
    except (TypeError, ValueError):
        raise SpecError("X", f"expected a numeric d × P array, got {type(X).__name__}",
                        "numbers, datapoints as columns (a task's: X, Y = task.numeric(values))") from None
    if X.ndim != 2 or X.shape[0] != shapes[0][1]:
        raise SpecError("X", f"has shape {X.shape}; the first layer reads {shapes[0][1]} inputs",
                        f"give {shapes[0][1]} × P, datapoints as columns (transpose P × d)")
    return list(params), X


def _exact_reln_outputs(params, X):
    X = jnp.asarray(X)
    gates = relu_gates(params, X)
    if len(params) == 2:
        W1, W2 = params
        H = W1.shape[0]
        paths = [[W1[h:h + 1, :], W2[:, h:h + 1]] for h in range(H)]
        g = [gates[0][h].astype(X.dtype) for h in range(H)]
        idx_in, idx_out = [np.arange(X.shape[0])] * H, [np.arange(W2.shape[0])] * H
        return gdln_forward(paths, X, g, idx_in, idx_out, W2.shape[0])
    h = X
    for W, g in zip(params[:-1], gates):
        h = g.astype(X.dtype) * (W @ h)
    return params[-1] @ h
