"""The exact ReLN (Definition 3.1): a ReLU network's own gates, read off its activity at every step,
and the gradient flow of the Section 6 GDLN (a first layer shared by every pathway) on its
effective datasets.
"""
from __future__ import annotations
import jax
import jax.numpy as jnp
import numpy as np
from ..theory import jaxify  # noqa: F401  (float64)
from ..errors import SpecError
from ..net.layout import Net, loss_value, net_apply, unit_activity
from ..sim.record import SaveAt
from ..sim.engine import train
from ..net.starts import random_params
from ..sim.simulate import gdln_forward, relu_gates
from ..theory.flow import net_flow
from ..net.starts import aligned_net_params

from .runs import _checkpoints, gdln_graph

__all__ = ["exact_reln_outputs", "exact_reln_trajectory", "shared_first_flow"]


def exact_reln_outputs(params, X):
    """Output of the exact ReLN at the ReLU weights ``params`` (one network, not batched).

    One hidden layer: a GDLN with one pathway per hidden unit h, gate ``1[w_h·x > 0]``, maps
    ``W1[h, :]`` and ``W2[:, h]`` (evaluated with :func:`theorykit.sim.simulate.gdln_forward`).
    Deeper: node-gated linear layers ``ŷ = W_L G_{L−1} W_{L−1} … G_1 W_1 x`` with ``G_l`` the
    diagonal of unit activities of the ReLU network on that datapoint (no nonlinearity applied)."""
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


def exact_reln_trajectory(X, Y, *, hidden, lr: float, steps: int, init_std: float = 0.1, loss: str = "mean",
                          seed: int = 0, every: int = 10):
    """Train a ReLU network and its exact ReLN side by side from the same initial weights.

    The ReLN is a node-gated deep *linear* network with its own weights; at each step its gates
    are the ReLU network's current unit activities (held fixed for the gradient). Both are one
    ensemble of :func:`theorykit.sim.engine.train`: the stepped state is the pair of weight sets and
    the loss is the sum of the two losses, whose gradients do not mix. Returns
    ``(t_ck, relu_outputs, reln_outputs)`` at every checkpoint (checkpoints × p × P each)."""
    X, Y = jnp.asarray(X, jnp.float64), jnp.asarray(Y, jnp.float64)
    widths = [hidden] if isinstance(hidden, int) else list(hidden)
    relu = Net.chain(X.shape[0], widths, Y.shape[0])
    lin = Net.chain(X.shape[0], widths, Y.shape[0], relu=False)
    p = random_params(relu, init_std, 1, seed)
    n, t_ck = _checkpoints(steps, every)

    def outputs(pair, d):
        pr, pl = pair
        gates = jax.lax.stop_gradient(unit_activity(relu, pr, d[0]))
        return net_apply(relu, pr, d[0]), net_apply(lin, pl, d[0], gates)

    def both_losses(pair, d):
        yr, yl = outputs(pair, d)
        return loss_value(yr, d[1], loss) + loss_value(yl, d[1], loss)

    res = train(both_losses, (p, p), (X, Y), lr=lr, steps=steps,
                save=SaveAt(loss_every=0, steps=list(t_ck), fns={"out": outputs}))
    ro, lo = res.saved["out"]
    return t_ck, np.asarray(ro)[0], np.asarray(lo)[0]


# ---------------------------------------------------------------------------------------------
# Gradient flow of the Section 6 GDLN (shared first layer) on its effective datasets
# ---------------------------------------------------------------------------------------------
def shared_first_flow(X, Y, gates, *, a0: float, lr: float, loss: str, times, h: float | None = None,
                      tol: float = 1e-9) -> np.ndarray:
    """Loss of the Section 6 GDLN (first layer shared by every pathway, a gated module per
    pathway in the second layer) under gradient flow, integrated on its effective datasets by the
    race engine (:func:`theorykit.theory.flow.net_flow`).

    This is the GDLN learning rule of docs/theory.md#race with a shared edge, at the smallest widths
    that can represent the task (r = rank of the full Σyx in both hidden layers):
        E_p = Σyx_p − Σ_q W_q Σx_qp,             W_p = W3_p W2_p W1,
        τ dW3_p/dt = E_p (W2_p W1)ᵀ,   τ dW2_p/dt = W3_pᵀ E_p W1ᵀ,   τ dW1/dt = Σ_p (W3_p W2_p)ᵀ E_p,

    with ``Σyx_p = Y diag(g_p) Xᵀ/P`` and ``Σx_qp = X diag(g_q g_p) Xᵀ/P``. Start: small, aligned
    and balanced (:func:`theorykit.net.starts.aligned_net_params`): W1 = √K c V_rᵀ (V_r: the full Σyx's
    top right singular vectors), W2_p = c I, W3_p = c Q_p (Q_p: the orthonormal polar factor of
    Σyx_p V_r), so ``W1 W1ᵀ = Σ_p W2_pᵀ W2_p`` and ``W2_p W2_pᵀ = W3_pᵀ W3_p`` hold, and each pathway
    starts at strength √K c³ = ``a0``. τ = 1/η for the mean loss, 1/(Pη) for the summed loss (then
    the loss is returned summed). With one always-on pathway and whitened inputs it is the balanced
    three-layer mode ODE of docs/theory.md#mode-ode (a test checks this)."""

    if loss not in ("mean", "sum"):
        raise SpecError("loss", f"{loss!r} is not \"mean\" or \"sum\"", "use \"mean\" or \"sum\"")
    if not (np.isfinite(a0) and a0 > 0):
        raise SpecError("a0", f"needs a positive initial strength, got {a0!r}", "e.g. theorykit.net.starts.a0_rule(σ, [H1, Hp, Hp])")
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    G = np.asarray(gates, float)
    K, P = G.shape
    s = np.linalg.svd(Y @ X.T / P, compute_uv=False)
    r = int(np.sum(s > tol * s[0]))
    net = gdln_graph(X.shape[0], Y.shape[0], G, [r] * K, depth=3, shared_first=r)
    p0 = aligned_net_params(net, X, Y, a0, 1, 0)
    tau = 1.0 / (lr * (P if loss == "sum" else 1))
    res = net_flow(net, X, Y, p0, tau=tau, times=times, loss_factor=P if loss == "sum" else 1, h=h)
    return res.loss[0]
