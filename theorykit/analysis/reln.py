"""The exact ReLN (Definition 3.1): a ReLU network's own gates, read off its activity at every step."""
from __future__ import annotations
import jax
import jax.numpy as jnp
import numpy as np
from ..errors import SpecError
from ..io import counted
from ..theory import jaxify  # noqa: F401  (float64)
from ..sim.simulation import relu_gates


__all__ = ["exact_reln_outputs"]


def exact_reln_outputs(params, X):
    """Output of the exact ReLN at the ReLU weights ``params`` (one network, not batched).

    One hidden layer: a GDLN with one pathway per hidden unit h, gate ``1[w_h·x > 0]``, maps
    ``W1[h, :]`` and ``W2[:, h]``: ``ŷ = Σ_h W2[:, h] g_h W1[h, :] x = W2 G_1 W1 x``, the node-gated form below
    with L = 2 (one product per layer, not one pathway at a time).
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
        raise SpecError("X", f"has shape {X.shape}; the first layer reads {counted(shapes[0][1], 'input')}",
                        f"give {shapes[0][1]} × P, datapoints as columns (transpose P × d)")
    return list(params), X


def _exact_reln_outputs(params, X):
    gates = relu_gates(params, X)
    h = X
    for W, g in zip(params[:-1], gates):
        h = g.astype(X.dtype) * (W @ h)
    return params[-1] @ h
