"""The balanced mode ODE of a depth-L linear network, integrated by the race engine (docs/theory.md#mode-ode).

Each mode of Σyx (singular value s, its input variance d = vᵀ Σx v) follows
``τ da/dt = L a^(2−2/L)(s − d a)`` from a0; :func:`mode_ode_loss` gives the network's loss.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from theorykit.theory.flow import Dopri5, integrate

__all__ = ["mode_ode_loss"]


def mode_ode_loss(X, Y, a0, tau, times, loss_factor, depth=3):
    """Loss of a single balanced depth-L linear network, mode by mode (docs/theory.md#mode-ode):
    ``τ da/dt = L a^(2−2/L)(s − d a)`` for every mode, integrated by the race engine."""
    P = X.shape[1]
    Syx, Sx = Y @ X.T / P, X @ X.T / P
    U, s, Vt = np.linalg.svd(Syx, full_matrices=False)
    keep = s > 1e-10 * s[0]
    sa = s[keep]
    dd = np.array([float(v @ Sx @ v) for v in Vt[keep]])
    times = np.asarray(times, float)
    order = np.argsort(times)

    def field_(a, _):
        return depth * jnp.abs(a) ** (2.0 - 2.0 / depth) * (sa - dd * a) / tau

    res = integrate(field_, jnp.full((1, len(sa)), float(a0)), None, times=times[order],
                    solver=Dopri5(), rate=max(1.0, float(sa.max())) / tau, record={"a": lambda a, _: a}, batched_args=False)
    a = res.records["a"][0][np.argsort(order)]                 # len(times) × modes
    L = 0.5 * np.sum(Y * Y) / P - (a * sa - 0.5 * dd * a ** 2).sum(axis=1)
    return loss_factor * L
