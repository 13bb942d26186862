"""A fused multi-step kernel: many gradient steps of a two-layer network per kernel call (Pallas).

Why: the one trainer (:func:`theorykit.sim.engine.train`) is ``jit(vmap(fori_loop(step)))``. XLA
compiles each step as a handful of matrix products, and every product reads its operands from
device memory and writes its result back: at every step each network's weights travel through
memory (HBM on a GPU). For the Section 4 ReLU network [11, 700, 60] that traffic, not arithmetic,
bounds the throughput on a GPU. This kernel instead runs ``k`` full-batch gradient steps of one
network per program with its weights held on chip as loop-carried values, and writes them back
once, after the ``k`` steps.

What it covers (:func:`supports` says why a network is not covered):

* ``ŷ = W₂ φ(W₁ x)``: one hidden node fed by the whole input and read by the whole output,
  bias-free, no edge gates, no schedule;
* ``φ = relu`` (a ReLU network), or ``φ(h) = g ⊙ h`` with fixed gates ``g`` per pattern or per unit
  and pattern (a depth-2 GDLN, e.g. a Section 4 or 5 GDLN after :func:`~theorykit.sim.engine.pack_net`
  has merged its pathways into one node);
* the loss ``"sum"`` (½‖Y − Ŷ‖²) or ``"mean"`` (that over P), one step size for the ensemble,
  float32 or float64, every product at ``"highest"`` precision (no TF32).

The arithmetic is the plain engine's, step for step: the same products in the same order, the same
ReLU derivative (0 at 0) and the same residual floor (:data:`~theorykit.sim.engine.RESIDUAL_FLOOR`).
Dimensions are zero-padded to powers of two (Triton's block shapes); padded units, inputs, outputs
and patterns stay exactly zero under gradient descent, so the padding changes nothing.

Where it runs: on a GPU the kernel is compiled by Pallas's Triton backend. Elsewhere it runs in
Pallas's interpreter (``interpret=True``): the same kernel, evaluated by XLA op by op, which is how
the CPU tests check it against the plain engine. The interpreter is slow; on a CPU use the plain
engine (:func:`theorykit.sim.engine.train_net`), whose ``fused=True`` option calls this module.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import SpecError
from ..spec.fields import integer, loss_factor, loss_name
from ..spec.ranges import MAX_STEPS
from ..net.layout import RESIDUAL_FLOOR, Net
from ..record import SaveAt, Trajectory, check_finite

__all__ = ["Layout", "layout", "supports", "pad_to"]


def pad_to(n: int, floor: int = 16) -> int:
    """The block size used for a dimension of ``n``: the next power of two, at least ``floor``
    (Triton's matrix products need every block dimension ≥ 16 and a power of two)."""
    return max(floor, 1 << max(0, int(n) - 1).bit_length())


@dataclass(frozen=True)
class Layout:
    """A depth-2 :class:`~theorykit.net.layout.Net` as one hidden layer: every hidden node's units
    stacked (``slices[v]``), ``W₁`` (units × d) holding each node's in-edge in the input columns it
    reads, ``W₂`` (p × units) each out-edge in the output rows it writes. ``M1``/``M2``: 0/1 masks of
    the entries that are weights (None: all are), kept zero by masking the update; ``G``: the gate
    of every unit on every pattern (node gate × edge gates; None for a ReLU network)."""

    net: Net
    slices: dict
    into: dict          # node -> (in-edge key, input rows)
    out: dict           # node -> (out-edge key, output rows)
    M1: np.ndarray | None
    M2: np.ndarray | None
    G: np.ndarray | None
    units: int

    def pack(self, params):
        """Edge-keyed weights (leading ensemble axis) → ``(W1, W2)``."""
        E = np.asarray(next(iter(params.values()))).shape[0]
        dt = jnp.asarray(next(iter(params.values()))).dtype
        W1 = jnp.zeros((E, self.units, self.net.d), dt)
        W2 = jnp.zeros((E, self.net.p, self.units), dt)
        for v, sl in self.slices.items():
            (k1, rows_in), (k2, rows_out) = self.into[v], self.out[v]
            W1 = W1.at[:, sl, rows_in].set(jnp.asarray(params[k1], dt))
            W2 = W2.at[:, rows_out, sl].set(jnp.asarray(params[k2], dt))
        return W1, W2

    def unpack(self, W1, W2):
        """``(W1, W2)`` → edge-keyed weights."""
        out = {}
        for v, sl in self.slices.items():
            (k1, rows_in), (k2, rows_out) = self.into[v], self.out[v]
            out[k1] = W1[:, sl][:, :, rows_in]
            out[k2] = W2[:, rows_out][:, :, sl]
        return out


def layout(net: Net, schedule=(), lr=None) -> "Layout | str":
    """The :class:`Layout` of ``net``, or the reason the fused kernel cannot train it exactly as the
    plain engine does (a sentence naming what is outside its scope)."""
    if schedule:
        return "it has a schedule (the fused kernel steps every weight at every step)"
    if lr is not None and np.unique(np.asarray(lr, dtype=float)).size > 1:
        return "its members have different step sizes (the fused kernel takes one)"
    if not net.nodes:
        return "it has no hidden node"
    into, out = {}, {}
    for k, src, dst, ins, outs in net.edges:
        if src != "input" and dst != "output":
            return f"edge {k} joins two hidden nodes (the fused kernel takes depth-2 networks only)"
        if src == "input" and dst == "output":
            return f"edge {k} runs from input to output directly"
        if src == "input":
            if dst in into:
                return f"hidden node {dst} has two edges in"
            into[dst] = (k, np.arange(net.d) if ins is None else np.asarray(ins, int))
        else:
            if src in out:
                return f"hidden node {src} has two edges out"
            out[src] = (k, np.arange(net.p) if outs is None else np.asarray(outs, int))
    if net.relu and (net.edge_gates or net.node_gates):
        return "it is a ReLU network with fixed gates"
    slices, at = {}, 0
    for v, w in net.nodes:
        if v not in into or v not in out:
            return f"hidden node {v} is not between input and output"
        slices[v] = slice(at, at + w)
        at += w
    M1 = np.zeros((at, net.d))
    M2 = np.zeros((net.p, at))
    for v, sl in slices.items():
        M1[sl, into[v][1]] = 1.0
        M2[np.ix_(out[v][1], np.arange(sl.start, sl.stop))] = 1.0
    G = None
    if not net.relu:
        gates = [np.asarray(g) for g in list(net.node_gates.values()) + list(net.edge_gates.values())]
        P = max([g.shape[-1] for g in gates], default=1)
        G = np.ones((at, P))
        for v, sl in slices.items():
            for g in (net.node_gates.get(v), net.edge_gates.get(into[v][0]), net.edge_gates.get(out[v][0])):
                if g is not None:
                    g = np.asarray(g, float)
                    G[sl] = G[sl] * (g if g.ndim == 2 else g[None, :])
    return Layout(net, slices, into, out, None if M1.all() else M1, None if M2.all() else M2, G, at)


def supports(net: Net, schedule=(), lr=None) -> str | None:
    """None if the fused kernel trains ``net`` exactly as the plain engine does, else the reason."""
    lay = layout(net, schedule, lr)
    return lay if isinstance(lay, str) else None


def _kernel(*refs, steps: int, lr: float, scale: float, relu: bool, masked: tuple):
    refs = list(refs)
    x, y = refs.pop(0)[...], refs.pop(0)[...]
    g = None if relu else refs.pop(0)[...]
    m1 = refs.pop(0)[...] if masked[0] else None
    m2 = refs.pop(0)[...] if masked[1] else None
    w1_ref, w2_ref, o1_ref, o2_ref = refs
    hp = jax.lax.Precision.HIGHEST

    def step(_, w):
        w1, w2 = w
        h = jnp.dot(w1, x, precision=hp)                         # pre-activation, units × P
        a = jnp.where(h > 0, h, 0.0) if relu else h * g
        r = y - jnp.dot(w2, a, precision=hp)                     # residual Y − Ŷ
        r = jnp.where(jnp.abs(r) < RESIDUAL_FLOOR, 0.0, r) * scale
        d2 = jnp.dot(r, a.T, precision=hp)                       # −∂L/∂W₂
        da = jnp.dot(w2.T, r, precision=hp)
        dh = jnp.where(h > 0, da, 0.0) if relu else da * g
        d1 = jnp.dot(dh, x.T, precision=hp)                      # −∂L/∂W₁
        if m1 is not None:
            d1 = d1 * m1
        if m2 is not None:
            d2 = d2 * m2
        return w1 + lr * d1, w2 + lr * d2

    w1, w2 = jax.lax.fori_loop(0, steps, step, (w1_ref[...], w2_ref[...]))
    o1_ref[...] = w1
    o2_ref[...] = w2


@partial(jax.jit, static_argnames=("steps", "lr", "scale", "relu", "interpret", "num_warps"))
def _fused_steps(W1, W2, X, Y, G=None, M1=None, M2=None, *, steps: int, lr: float, scale: float = 1.0,
                 relu: bool = True, interpret: bool = False, num_warps: int = 8):
    """``steps`` gradient steps of every network of an ensemble in one kernel call (one program per
    network). Arrays already padded (:func:`pad_to`): ``W1`` E × H × D, ``W2`` E × O × H, ``X`` D × P,
    ``Y`` O × P; ``G`` H × P gates (None for a ReLU network); ``M1``, ``M2`` 0/1 masks of the weight
    entries of ``W1``, ``W2`` (None: every entry is a weight). ``scale``: 1 for the summed loss, 1/P
    for the mean. Returns the new ``(W1, W2)``."""
    from jax.experimental import pallas as pl

    E, H, D = W1.shape
    O, P = Y.shape
    shared = lambda i: (0, 0)      # noqa: E731
    member = lambda i: (i, 0, 0)   # noqa: E731
    args = [X, Y] + [a for a in (None if relu else G, M1, M2) if a is not None]
    in_specs = [pl.BlockSpec(a.shape, shared) for a in args]
    in_specs += [pl.BlockSpec((None, H, D), member), pl.BlockSpec((None, O, H), member)]
    out_specs = [pl.BlockSpec((None, H, D), member), pl.BlockSpec((None, O, H), member)]
    opts = {}
    if not interpret:
        from jax.experimental.pallas import triton as plgpu

        opts["compiler_params"] = plgpu.CompilerParams(num_warps=num_warps, num_stages=1)
    n = len(args)
    kernel = partial(_kernel, steps=steps, lr=lr, scale=scale, relu=relu, masked=(M1 is not None, M2 is not None))
    call = pl.pallas_call(kernel,
                          out_shape=[jax.ShapeDtypeStruct(W1.shape, W1.dtype), jax.ShapeDtypeStruct(W2.shape, W2.dtype)],
                          grid=(E,), in_specs=in_specs, out_specs=out_specs,
                          input_output_aliases={n: 0, n + 1: 1}, interpret=interpret, **opts)
    return tuple(call(*args, W1, W2))


def _too_big_for_chip(exc: Exception, padded) -> None:
    """Raise a :class:`SpecError` in place of Triton's "shared memory size limit exceeded". On an
    H200 (2026-11-26) the Section 4 ReLU network [11, 700, 60] (padded [16, 1024, 64], 32 patterns)
    asked for 403 456 bytes in float32 and 548 864 in float64 where a block may have 232 448."""
    m = re.search(r"[Ss]hared memory size limit exceeded: requested (\d+), available:? (\d+)", str(exc))
    if m:
        D, H, O, P = padded
        raise SpecError("fused", f"the fused kernel does not fit on this GPU: padded to [{D}, {H}, {O}] with {P} "
                                 f"patterns, it needs {int(m[1]):,} bytes of shared memory per network and the "
                                 f"GPU has {int(m[2]):,}",
                        "leave fused off (the plain engine trains every network), or use fewer hidden units "
                        "(on an H100 or H200 the kernel fits neither float32 nor float64 at 700 hidden units)") from exc


def _pad(a, shape):
    a = jnp.asarray(a)
    return jnp.pad(a, [(0, s - n) for n, s in zip(a.shape, shape)])


def _fused_train(lay: Layout, params0, data, *, lr, steps: int, loss: str = "sum", loss_every: int = 1,
                 check: str | None = None, interpret: bool | None = None, num_warps: int = 8) -> Trajectory:
    """Train the network of ``lay`` (its :func:`layout`) on the full batch ``data = (X, Y)`` with the fused kernel:
    the :class:`~theorykit.record.Trajectory` that :func:`theorykit.sim.engine.train` returns
    (loss curve every ``loss_every`` steps and at the last; final weights), computed with one kernel
    call per ``loss_every`` steps. ``params0``: dict of weights with a leading ensemble axis, as
    :func:`theorykit.net.starts.random_params` draws them. ``interpret``: run Pallas's interpreter
    (default: on any backend but a GPU)."""
    steps = integer(steps, "steps", lo=0, hi=MAX_STEPS, fix="e.g. steps = 2000")     # as the plain trainer
    loss_name(loss)
    interpret = jax.default_backend() != "gpu" if interpret is None else bool(interpret)
    W1, W2 = lay.pack(params0)
    dt = W1.dtype
    X, Y = (jnp.asarray(a, dt) for a in data)
    E, H, D = W1.shape
    O, P = Y.shape
    Hp, Dp, Op, Pp = pad_to(H), pad_to(D), pad_to(O), pad_to(P)
    relu = lay.G is None
    G = None if relu else _pad(jnp.asarray(np.broadcast_to(lay.G, (H, P)), dt), (Hp, Pp))
    M1 = None if lay.M1 is None else _pad(jnp.asarray(lay.M1, dt), (Hp, Dp))
    M2 = None if lay.M2 is None else _pad(jnp.asarray(lay.M2, dt), (Op, Hp))
    Xp, Yp = _pad(X, (Dp, Pp)), _pad(Y, (Op, Pp))
    W1p, W2p = _pad(W1, (E, Hp, Dp)), _pad(W2, (E, Op, Hp))
    scale = loss_factor(loss, P) / P          # 1 for a summed loss, 1/P for a mean loss
    eta = float(np.asarray(lr, dtype=float).ravel()[0])

    @jax.jit
    def loss_of(W1p, W2p):
        with jax.default_matmul_precision("highest"):
            h = jnp.einsum("ehd,dp->ehp", W1p, Xp)
            a = jax.nn.relu(h) if relu else h * G
            r = Yp - jnp.einsum("eoh,ehp->eop", W2p, a)
            r = jnp.where(jnp.abs(r) < RESIDUAL_FLOOR, 0.0, r)
            return 0.5 * jnp.sum(r ** 2, axis=(1, 2)) * scale

    marks = SaveAt(loss_every=loss_every).loss_steps(steps).tolist() if loss_every else [0, steps]
    curve = [loss_of(W1p, W2p)]
    run = partial(_fused_steps, lr=eta, scale=scale, relu=relu, interpret=interpret, num_warps=num_warps)
    for a, b in zip(marks[:-1], marks[1:]):
        try:
            W1p, W2p = run(W1p, W2p, Xp, Yp, G, M1, M2, steps=b - a)
        except Exception as exc:  # noqa: BLE001 - only the one compile failure below is translated
            _too_big_for_chip(exc, (Dp, Hp, Op, Pp))
            raise
        curve.append(loss_of(W1p, W2p))
    curve = np.asarray(jnp.stack(curve, axis=1), dtype=float)
    if check:
        check_finite(curve, check, lr)
    params = lay.unpack(W1p[:, :H, :D], W2p[:, :O, :H])
    t = np.asarray(marks) if loss_every else np.zeros(0, int)
    return Trajectory(t, curve if loss_every else np.zeros((E, 0)), {}, np.zeros(0, int), params, {"devices": 1})
