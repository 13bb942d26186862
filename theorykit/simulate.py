"""Simulation: full-batch gradient descent on the GDLN a spec defines, and on a bias-free ReLU
network of the same total width, in JAX, vmapped over seeds.

Precision: float64 by default (``jax_enable_x64`` is switched on when theorykit is imported).
In float32 the matrix products run at ``"highest"`` precision on purpose, so a GPU does not
silently use TF32.

Initialisations of the GDLN (keyword ``init``):

* ``"aligned"``: exact aligned, balanced weights of mode strength ``a0`` on every mode of
  each pathway's effective dataset: ``W1 = √a0 R Vᵀ``, ``W2 = √a0 U Rᵀ`` with ``R`` a random
  orthonormal H × r frame (depth 3: cube roots and two frames). The closed form then holds
  up to the O(η) gap between gradient descent and gradient flow.
* ``"random"``: i.i.d. N(0, init_std²) weights; the network first aligns ("silent alignment").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from . import jaxify  # noqa: F401  (switches on float64)
from .errors import DivergenceError, SpecError
from .gating import GDLNSpec

__all__ = ["SimResult", "simulate_gdln", "simulate_relu", "simulate_relu_spec", "relu_init", "relu_forward", "gdln_forward", "DTYPES"]

DTYPES = {"float64": jnp.float64, "float32": jnp.float32}


@dataclass
class SimResult:
    """Loss curves of an ensemble: ``loss[seed, i]`` is the loss before step ``t[i]``."""

    t: np.ndarray
    loss: np.ndarray
    params: object = None
    extra: dict = field(default_factory=dict)
    dtype: str = "float64"

    @property
    def mean(self) -> np.ndarray:
        return self.loss.mean(axis=0)

    @property
    def std(self) -> np.ndarray:
        return self.loss.std(axis=0)


def _dtype(name):
    if name not in DTYPES:
        raise SpecError("dtype", f"unknown dtype {name!r}", f"use one of {sorted(DTYPES)}")
    return DTYPES[name]


def _check_finite(loss: np.ndarray, what: str, lr):
    bad = ~np.isfinite(loss)
    if bad.any() or (loss[:, -1] > 10 * loss[:, 0] + 1e-12).any():
        raise DivergenceError(f"{what} diverged with lr={lr} (loss became non-finite or grew tenfold); "
                              "lower training.lr")


def _orthonormal(key, rows, cols, dtype):
    A = jax.random.normal(key, (rows, max(cols, 1)), dtype=dtype)
    Q, R = jnp.linalg.qr(A)
    return (Q * jnp.sign(jnp.diag(R)))[:, :cols]


# ---------------------------------------------------------------------------------------------
# GDLN
# ---------------------------------------------------------------------------------------------
def gdln_forward(params, X, gates, inputs, outputs, p_out):
    """Output of the GDLN: ``ŷ = Σ_p g_p ⊙ (W_p x_{s(p)})`` scattered to each pathway's output rows."""
    Yh = jnp.zeros((p_out, X.shape[1]), dtype=X.dtype)
    for Ws, g, ins, outs in zip(params, gates, inputs, outputs):
        h = X[ins, :]
        for W in Ws:
            h = W @ h
        Yh = Yh.at[outs, :].add(h * g[None, :])
    return Yh


#: residual entries below this are set to zero in the training loss. A network that can fit its
#: targets exactly drives the residual down exponentially; once its square underflows into
#: subnormal floats (~1e-308) every CPU step becomes ~100 times slower. Dropping residuals
#: below 1e-150 changes the loss by < 1e-300 and the weights by far less than float64 rounding.
RESIDUAL_FLOOR = 1e-150


def _loss(Yh, Y, loss):
    """Training loss: ½Σ‖y − ŷ‖² (``"sum"``) or that over P (``"mean"``), residual floor applied."""
    res = Y - Yh
    res = jnp.where(jnp.abs(res) < RESIDUAL_FLOOR, 0.0, res)
    r = 0.5 * jnp.sum(res ** 2)
    return r if loss == "sum" else r / Y.shape[1]


def gd_step(loss_fn, lr):
    """The ``lax.scan`` body of full-batch gradient descent: ``(params, _) → (params − lr·∇L, L)``."""
    vg = jax.value_and_grad(loss_fn)

    def step(p, _):
        val, g = vg(p)
        return jax.tree_util.tree_map(lambda w, gw: w - lr * gw, p, g), val

    return step


def _gd_scan(loss_fn, params, lr, steps):
    params, losses = jax.lax.scan(gd_step(loss_fn, lr), params, None, length=steps)
    final = loss_fn(params)
    return params, jnp.concatenate([losses, final[None]])


def _aligned_init(spec: GDLNSpec, values, a0, dtype):
    from .derivation import Derivation

    der = Derivation(spec, values=values)
    vals = der._numeric_values(values)
    frames = []
    for p in spec.pathways:
        svd = der.modes[p.name]
        U = np.array(svd.U.subs(vals).evalf(30).tolist(), dtype=float).reshape(svd.U.shape)
        V = np.array(svd.V.subs(vals).evalf(30).tolist(), dtype=float).reshape(svd.V.shape)
        if p.hidden < svd.rank:
            raise SpecError(f"pathways.{p.name}.hidden", f"{p.hidden} hidden units cannot hold rank {svd.rank}",
                            f"set hidden >= {svd.rank}")
        frames.append((U, V, svd.rank))

    def init(key):
        params = []
        for (U, V, r), p in zip(frames, spec.pathways):
            key, k1, k2 = jax.random.split(key, 3)
            R1 = _orthonormal(k1, p.hidden, r, dtype)
            if p.depth == 2:
                c = a0 ** 0.5
                params.append([c * R1 @ jnp.asarray(V.T, dtype), c * jnp.asarray(U, dtype) @ R1.T])
            else:
                R2 = _orthonormal(k2, p.hidden, r, dtype)
                c = a0 ** (1 / 3)
                params.append([c * R1 @ jnp.asarray(V.T, dtype), c * R2 @ R1.T, c * jnp.asarray(U, dtype) @ R2.T])
        return params

    return init


def _random_init(spec: GDLNSpec, std, dtype):
    """Seed → N(0, std²) weights of every pathway (``std`` one number, or one per pathway)."""
    stds = list(std) if isinstance(std, (list, tuple)) else [std] * len(spec.pathways)

    def init(key):
        params = []
        for p, sd in zip(spec.pathways, stds):
            dims = [len(p.inputs)] + [p.hidden] * (p.depth - 1) + [len(p.outputs)]
            Ws = []
            for a, b in zip(dims[:-1], dims[1:]):
                key, k = jax.random.split(key)
                Ws.append((sd * jax.random.normal(k, (b, a), dtype=jnp.float64)).astype(dtype))
            params.append(Ws)
        return params

    return init


def simulate_gdln(spec: GDLNSpec, *, init: str = "aligned", seeds: int = 4, steps: int | None = None,
                  values: Mapping | None = None, a0: float | None = None, init_std: float | None = None,
                  dtype: str = "float64", schedule: str = "joint", staged_first: Sequence[str] = ("common",),
                  seed: int = 0) -> SimResult:
    """Full-batch gradient descent on the spec's GDLN, vmapped over ``seeds``.

    ``schedule="joint"`` trains every pathway on the total loss. ``"staged"`` is the scheme of
    the paper's published experiments: pathways named in ``staged_first`` learn the targets,
    the others the residual ``Y − (their current output)`` (gradients do not flow between them).
    """
    if init not in ("aligned", "random"):
        raise SpecError("init", f"unknown init {init!r}", "use \"aligned\" or \"random\"")
    if schedule not in ("joint", "staged"):
        raise SpecError("schedule", f"unknown schedule {schedule!r}", "use \"joint\" or \"staged\"")
    if not isinstance(seeds, int) or seeds < 1:
        raise SpecError("seeds", f"needs a positive integer, got {seeds!r}", "e.g. --seeds 4")
    dt = _dtype(dtype)
    tr = spec.training
    steps = tr.steps if steps is None else steps
    Xn, Yn = spec.task.numeric(values)
    X, Y = jnp.asarray(Xn, dt), jnp.asarray(Yn, dt)
    gates = [jnp.asarray(p.active, dt) for p in spec.pathways]
    inputs = [np.array(p.inputs) for p in spec.pathways]
    outputs = [np.array(p.outputs) for p in spec.pathways]
    a0 = tr.a0 if a0 is None else a0
    std = tr.init_std if init_std is None else init_std
    init_fn = _aligned_init(spec, values, a0, dt) if init == "aligned" else _random_init(spec, std, dt)
    first = [i for i, p in enumerate(spec.pathways) if p.name in staged_first]

    def loss_fn(params):
        Yh = gdln_forward(params, X, gates, inputs, outputs, Y.shape[0])
        return _loss(Yh, Y, tr.loss)

    def staged_loss(params):
        pa = [params[i] if i in first else jax.tree_util.tree_map(jax.lax.stop_gradient, params[i])
              for i in range(len(params))]
        pb = [jax.tree_util.tree_map(jax.lax.stop_gradient, params[i]) if i in first else params[i]
              for i in range(len(params))]
        ga = [g if i in first else g * 0 for i, g in enumerate(gates)]
        gb = [g * 0 if i in first else g for i, g in enumerate(gates)]
        common = gdln_forward(pa, X, ga, inputs, outputs, Y.shape[0])
        l1 = _loss(common, Y, tr.loss)
        rest = gdln_forward(pb, X, gb, inputs, outputs, Y.shape[0])
        return l1 + _loss(rest, Y - jax.lax.stop_gradient(common), tr.loss)

    train_loss = loss_fn if schedule == "joint" else staged_loss

    def run(key):
        params = init_fn(key)
        vg = jax.grad(train_loss)

        def step(p, _):
            val = loss_fn(p)
            g = vg(p)
            return jax.tree_util.tree_map(lambda w, gw: w - tr.lr * gw, p, g), val

        with jax.default_matmul_precision("highest"):
            params, losses = jax.lax.scan(step, params, None, length=steps)
            return params, jnp.concatenate([losses, loss_fn(params)[None]])

    keys = jax.random.split(jax.random.PRNGKey(seed), seeds)
    params, loss = jax.jit(jax.vmap(run))(keys)
    loss = np.asarray(loss, dtype=float)
    _check_finite(loss, "GDLN simulation", tr.lr)
    return SimResult(np.arange(steps + 1), loss, params, {"init": init, "schedule": schedule}, dtype)


# ---------------------------------------------------------------------------------------------
# ReLU network
# ---------------------------------------------------------------------------------------------
def relu_init(key, dims, init_std: float, dtype=jnp.float64):
    """N(0, init_std²) weights for layer widths ``dims`` (input, hidden…, output).

    Drawn in float64 and cast, so float32 and float64 runs start from the same weights."""
    Ws = []
    for a, b in zip(dims[:-1], dims[1:]):
        key, k = jax.random.split(key)
        Ws.append((init_std * jax.random.normal(k, (b, a), dtype=jnp.float64)).astype(dtype))
    return Ws


def relu_forward(params, X):
    """Bias-free ReLU network: ``ŷ = W_L relu(… relu(W_1 x))``."""
    h = X
    for W in params[:-1]:
        h = jax.nn.relu(W @ h)
    return params[-1] @ h


def relu_gates(params, X):
    """Binary activity (hidden unit × datapoint) of every hidden layer: 1 where pre-activation > 0."""
    out, h = [], X
    for W in params[:-1]:
        pre = W @ h
        out.append(pre > 0)
        h = jax.nn.relu(pre)
    return out


def simulate_relu(X, Y, *, hidden: Sequence[int] | int, lr: float, steps: int, seeds: int = 4,
                  init_std: float = 0.01, loss: str = "mean", dtype: str = "float64", seed: int = 0,
                  snapshot_every: int | None = None, check: bool = True) -> SimResult:
    """Full-batch gradient descent on bias-free ReLU networks (vmapped over ``seeds``).

    ``hidden`` is one width or a list of widths (two for two hidden layers). With
    ``snapshot_every`` the binary first-hidden-layer activity is recorded every that many steps
    (``extra["snapshots"]``: seeds × snapshots × H × P), for finding gates (Algorithm 1).
    ``extra["gates"]`` holds the final activity of every hidden layer.
    """
    if loss not in ("mean", "sum"):
        raise SpecError("training.loss", f"{loss!r} is not \"mean\" or \"sum\"", "use \"mean\" or \"sum\"")
    dt = _dtype(dtype)
    X, Y = jnp.asarray(X, dt), jnp.asarray(Y, dt)
    widths = [hidden] if isinstance(hidden, int) else list(hidden)
    dims = [X.shape[0]] + widths + [Y.shape[0]]

    def init(key):
        return relu_init(key, dims, init_std, dt)

    def loss_fn(params):
        return _loss(relu_forward(params, X), Y, loss)

    def run(key):
        params = init(key)
        step = gd_step(loss_fn, lr)

        with jax.default_matmul_precision("highest"):
            if snapshot_every:
                def chunk(p, _):
                    snap = relu_gates(p, X)[0]
                    p, vals = jax.lax.scan(step, p, None, length=snapshot_every)
                    return p, (vals, snap)

                n = steps // snapshot_every
                params, (vals, snaps) = jax.lax.scan(chunk, params, None, length=n)
                losses = vals.reshape(-1)
                rem = steps - n * snapshot_every
                if rem:
                    params, extra_vals = jax.lax.scan(step, params, None, length=rem)
                    losses = jnp.concatenate([losses, extra_vals])
            else:
                params, losses = jax.lax.scan(step, params, None, length=steps)
                snaps = None
            return params, jnp.concatenate([losses, loss_fn(params)[None]]), snaps, relu_gates(params, X)

    keys = jax.random.split(jax.random.PRNGKey(seed), seeds)
    params, losses, snaps, gates = jax.jit(jax.vmap(run))(keys)
    losses = np.asarray(losses, dtype=float)
    if check:
        _check_finite(losses, "ReLU simulation", lr)
    extra = {"gates": [np.asarray(g) for g in gates]}
    if snaps is not None:
        extra["snapshots"] = np.asarray(snaps)
    return SimResult(np.arange(steps + 1), losses, params, extra, dtype)


def simulate_relu_spec(spec: GDLNSpec, *, seeds: int = 4, steps: int | None = None, values: Mapping | None = None,
                       init_std: float | None = None, dtype: str = "float64", seed: int = 0,
                       snapshot_every: int | None = None) -> SimResult:
    """The bias-free ReLU network that matches a spec: same task, same total width
    (Σ_p hidden_p), same training settings (lr, loss, init_std)."""
    X, Y = spec.task.numeric(values)
    tr = spec.training
    return simulate_relu(X, Y, hidden=spec.hidden_total, lr=tr.lr, steps=tr.steps if steps is None else steps,
                         seeds=seeds, init_std=tr.init_std if init_std is None else init_std, loss=tr.loss,
                         dtype=dtype, seed=seed, snapshot_every=snapshot_every)
