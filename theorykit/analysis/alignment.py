"""How a deep network's first and last layers align with the data's singular vectors (inside a jit).

:func:`layer_alignment` is a ``record`` function for the trainer (``theorykit.analysis._runs.train_relu``
/ ``train_gdln``): called with the layers' weights and ``aux = (U4, V4, s_in, s_out)`` (the data's top
four left and right singular vectors, and fixed start vectors of the power iterations).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["top_vector", "layer_alignment"]


def _nonzero(x):
    """``x`` plus the smallest normal number of its dtype: a guard against 0/0 for an all-zero layer that
    also holds in float32 (a fixed 1e-300 rounds to 0 there)."""
    return x + jnp.finfo(jnp.result_type(x)).tiny


def top_vector(M, v0, iters=100):
    """Top eigenvector of the PSD matrix-vector map ``M`` by power iteration (jit-friendly)."""
    def body(_, v):
        w = M(v)
        return w / _nonzero(jnp.linalg.norm(w))

    return jax.lax.fori_loop(0, iters, body, v0 / jnp.linalg.norm(v0))


def layer_alignment(p, aux):
    """Alignment of the first and last layers with the data's singular vectors (inside the jit).

    Returns [cos_in, cos_out, energy_in, energy_out]: cosines between the data's top singular
    vectors (v₁, u₁) and the layer's top right (first layer) / left (last layer) singular vectors
    (power iteration, fixed start vectors), and the share of each layer's squared norm that lies
    in the data's top-4 singular subspace."""
    U4, V4, s_in, s_out = aux
    W1, WL = p[0], p[-1]
    r1 = top_vector(lambda v: W1.T @ (W1 @ v), s_in)
    l1 = top_vector(lambda v: WL @ (WL.T @ v), s_out)
    cos_in = jnp.abs(V4[:, 0] @ r1)
    cos_out = jnp.abs(U4[:, 0] @ l1)
    e_in = jnp.sum((W1 @ V4) ** 2) / _nonzero(jnp.sum(W1 ** 2))
    e_out = jnp.sum((U4.T @ WL) ** 2) / _nonzero(jnp.sum(WL ** 2))
    return jnp.stack([cos_in, cos_out, e_in, e_out])
