"""The trainings Algorithm 1 and the gating suites read, private presets of the one trainer
(:func:`theorykit.sim.engine.train_net`, :func:`theorykit.sim.engine.train`), not a second one:
ReLU networks with their activity recorded at checkpoints (:func:`train_relu`), GDLNs of found
gates (:func:`train_gdln`; every K of an elbow in one call, :func:`train_gdln_many`), a ReLU network
beside its exact ReLN (:func:`exact_reln_trajectory`) and a spec's GDLN from a checkpoint's paired
start (:func:`gdln_outputs_from_start`). Users train with :func:`theorykit.simulate` (a spec or data)
or :func:`theorykit.sim.engine.train_net` (their own ``Net``), and find gates with
:func:`theorykit.find_gates`.
"""
from __future__ import annotations
from dataclasses import dataclass, field
from typing import Mapping, Sequence
import jax
import jax.numpy as jnp
import numpy as np
from ..theory import jaxify  # noqa: F401  (float64)
from ..errors import SpecError
from ..io import counted
from ..spec.fields import integer, loss_name
from ..spec.gating import positive_int
from ..net.layout import Net, gdln_graph, loss_value, net_apply, unit_activity
from ..record import SaveAt
from ..sim.engine import train, train_net
from ..net.starts import random_params
from ..sim.simulation import simulate

__all__ = ["ReluRun", "GdlnRun", "train_relu", "train_gdln", "train_gdln_many", "unstack_gdln",
           "exact_reln_trajectory", "gdln_outputs_from_start"]


@dataclass
class ReluRun:
    """ReLU networks trained with checkpoints every ``every`` steps.

    t_ck: checkpoint times (0, every, …, and the final step). loss: seeds × (steps+1).
    outputs: seeds × checkpoints × p × P. recorded: ``record(params, aux)`` at every checkpoint
    (seeds × checkpoints × …), for quantities too large to keep as weights. snapshots: seeds × (checkpoints−1) × H × P binary
    first-layer activity at t_ck[:-1] (Algorithm 1 samples every ``every`` steps).
    params: final weights (batched over seeds). params_ck: weights at every checkpoint (optional).
    """

    t_ck: np.ndarray
    loss: np.ndarray
    outputs: np.ndarray
    snapshots: np.ndarray
    params: list
    params_ck: list | None = None
    settings: dict = field(default_factory=dict)
    recorded: object = None

    def __repr__(self):     # one line (the dataclass's own printed every loss curve, output and snapshot)
        seeds, steps = np.shape(self.loss)[0], np.shape(self.loss)[1] - 1
        ck = f" (t {self.t_ck[0]:g}…{self.t_ck[-1]:g})" if len(self.t_ck) else ""
        units = f", {counted(np.shape(self.snapshots)[2], 'hidden unit')}" if np.ndim(self.snapshots) == 4 else ""
        return (f"ReluRun({counted(seeds, 'seed')}, {counted(steps, 'step')}, {counted(len(self.t_ck), 'checkpoint')}{ck}"
                f"{units}; final loss {float(np.mean(np.asarray(self.loss)[:, -1])):.4g} (mean over seeds))")


@dataclass
class GdlnRun:
    t_ck: np.ndarray
    loss: np.ndarray
    outputs: np.ndarray
    params: list
    params_ck: list | None = None
    recorded: object = None


def _width(h, field: str) -> int:
    """A hidden width, by the one integer rule (a float such as 2.5 or 2.0 is refused, naming the field)."""
    return integer(h, field, lo=1, fix="a positive whole number of units, e.g. hidden=[4, 4]")


def _checkpoints(steps, every):
    positive_int(every, "every", "every = 100")
    # 0, every, … below steps (n of them: ⌈steps/every⌉; a run shorter than one interval still has step 0),
    # then steps, as SaveAt(every=…) records
    n = -(-steps // every)
    return n, np.array([i * every for i in range(n)] + [steps])


def _run_checkpointed(net, p0, X, Y, *, lr, steps, every, loss, keep_params, record, aux, batch, on_batch, what,
                      snapshots=False, on_step=None):
    """One call of :func:`theorykit.sim.engine.train` with checkpoints at 0, every, …, steps: outputs
    (and, on request, first-layer snapshots, the weights and ``record(params, aux)``)."""
    n, t_ck = _checkpoints(steps, every)
    keys = net.keys
    fns = {"outputs": lambda p, d: net_apply(net, p, d[0])}
    if snapshots:
        first = net.nodes[0][0]
        fns["snap"] = lambda p, d: unit_activity(net, p, d[0])[first] > 0
    if keep_params:
        fns["params"] = lambda p, d: p
    if record is not None:
        fns["rec"] = lambda p, d: record([p[k] for k in keys], aux)
    save = SaveAt(ts=list(t_ck), fns=fns)
    res = train_net(net, p0, (X, Y), loss=loss, lr=lr, steps=steps, save=save, batch=batch, on_batch=on_batch,
                    check=what, on_step=on_step)
    sv = res.saved
    snaps = np.asarray(sv["snap"])[:, :n] if snapshots else None
    pck = [np.asarray(sv["params"][k]) for k in keys] if keep_params else None
    rec = jax.tree_util.tree_map(np.asarray, sv["rec"]) if record is not None else None
    return t_ck, res.loss, np.asarray(sv["outputs"]), snaps, [np.asarray(res.params[k]) for k in keys], pck, rec


def _chain_init(dims, init_std, seed, seeds):
    """N(0, init_std²) weights of a chain of layers ``dims`` (as :func:`theorykit.sim.simulation.simulate`
    (``network="relu"``) draws them with the same seed), as a list with a seed axis."""
    net = Net.chain(dims[0], list(dims[1:-1]), dims[-1])
    p = random_params(net, init_std, seeds, seed)
    return [p[k] for k in net.keys]


def train_relu(X, Y, *, hidden, lr: float, steps: int, seeds: int = 4, init_std: float = 0.01,
               loss: str = "mean", seed: int = 0, every: int = 100, keep_params: bool = False,
               record=None, aux=None, batch: int | None = None, on_batch=None, on_step=None) -> ReluRun:
    """Bias-free ReLU networks (one or more hidden layers), full-batch GD, vmapped over seeds,
    with checkpoints every ``every`` steps (a caller of :func:`theorykit.sim.engine.train`).

    The initial weights are those of :func:`theorykit.sim.simulation.simulate` (``network="relu"``) with
    the same ``seed``. ``batch`` seeds run per compiled call, with ``on_batch(seeds_done)`` called after
    each (progress on long runs); the results do not depend on it. ``on_step(done)``: the trainer's
    (:func:`theorykit.sim.engine.train`), the steps done, about 100 times a run (a bar of the steps)."""
    loss_name(loss)
    X, Y = jnp.asarray(X, jnp.float64), jnp.asarray(Y, jnp.float64)
    widths = ([_width(w, f"hidden[{j}]") for j, w in enumerate(hidden)] if isinstance(hidden, (list, tuple, np.ndarray))
              else [_width(hidden, "hidden")])      # 2.5 is refused, not cut to 2
    net = Net.chain(X.shape[0], widths, Y.shape[0])
    p0 = random_params(net, init_std, seeds, seed)
    t_ck, losses, outs, snaps, params, pck, rec = _run_checkpointed(
        net, p0, X, Y, lr=lr, steps=steps, every=every, loss=loss, keep_params=keep_params, record=record, aux=aux,
        batch=batch, on_batch=on_batch, what="ReLU training", snapshots=True, on_step=on_step)
    settings = {"hidden": widths, "lr": lr, "steps": steps, "seeds": seeds, "init_std": init_std, "loss": loss,
                "seed": seed, "every": every}
    return ReluRun(t_ck, losses, outs, snaps, params, pck, settings, rec)


def _split_stacked(net, stacked, hidden, shared_first):
    """Edge weights from weights drawn for a stacked chain (paired seeds with a ReLU network): the
    shared first layer's weights where there is one, then each pathway's blocks (:func:`unstack_gdln`),
    in the order of the net's edges."""
    head = [stacked[0]] if shared_first is not None else []
    blocks = unstack_gdln(stacked[len(head):], hidden)
    return dict(zip(net.keys, head + [W for Ws in blocks for W in Ws]))


def _restack(ws, hidden, shared_first):
    """The stacked form ``[W1, …, WL]`` (seed axis first; off-block entries zero) of edge weights
    ``ws`` in the order of the net's edges (the inverse of :func:`_split_stacked`)."""
    head = list(ws[:1]) if shared_first is not None else []
    n = (len(ws) - len(head)) // len(hidden)            # edges per pathway
    blocks = [ws[i:i + n] for i in range(len(head), len(ws), n)]
    offs = np.concatenate([[0], np.cumsum(hidden)]).astype(int)
    mids = []
    for l in range(1, n - 1):
        M = jnp.zeros(blocks[0][l].shape[:-2] + (int(offs[-1]), int(offs[-1])))
        for j, b in enumerate(blocks):
            M = M.at[..., offs[j]:offs[j + 1], offs[j]:offs[j + 1]].set(b[l])
        mids.append(M)
    first = jnp.concatenate([b[0] for b in blocks], axis=-2)
    return head + [first] + mids + [jnp.concatenate([b[-1] for b in blocks], axis=-1)]


def train_gdln(X, Y, gates, *, hidden: Sequence[int], lr: float, steps: int, seeds: int = 4,
               init_std: float = 0.01, loss: str = "mean", seed: int = 0, every: int = 100,
               depth: int = 2, keep_params: bool = False, record=None, aux=None,
               shared_first: int | None = None, batch: int | None = None, on_batch=None) -> GdlnRun:
    """A GDLN of fixed gates (K × P, one row per pathway) from random N(0, init_std²) weights,
    trained by :func:`theorykit.sim.engine.train` on the graph of :func:`theorykit.net.layout.gdln_graph`.

    Pathway j has ``hidden[j]`` units per hidden layer and ``depth`` weight layers, sees every
    input and writes every output. Initial weights: drawn as for a ReLU network of the total
    widths with the same ``seed`` (:func:`train_relu`) and cut into the pathways' blocks, so a
    GDLN and a ReLU network of equal total width start from identical weights (paired seeds).
    ``params`` and ``params_ck`` come back in that stacked form ``[W1, …, WL]`` (entries outside
    the pathways' blocks are zero); ``record(params, aux)`` sees the stacked form too.

    ``shared_first=H1`` (depth 3 only) builds the GDLN of the paper's Section 6 instead: the
    first hidden layer (``H1`` units) is one node, always on and shared by every pathway; the
    pathways split the second hidden layer (pathway j owns ``hidden[j]`` of its units, gated by
    its row of ``gates``), so all pathways share the edge ``W_1`` (docs/theory.md#race). With
    ``H1 = sum(hidden)`` the initial weights are those of a ReLU network ``[in, H1, H1, out]``
    with the same seed (paired seeds)."""
    X, Y = jnp.asarray(X, jnp.float64), jnp.asarray(Y, jnp.float64)
    G = np.asarray(gates, dtype=float)
    K = G.shape[0]
    hidden = [_width(h, f"hidden[{j}]") for j, h in enumerate(hidden)]     # 2.5 is refused, not cut to 2
    if len(hidden) != K:
        raise SpecError("hidden", f"{counted(len(hidden), 'width')} for {counted(K, 'pathway')}", "give one width per pathway")
    Ht = sum(hidden)
    depth = integer(depth, "depth", lo=2, hi=3, fix="use 2 or 3")
    if shared_first is not None:
        if depth != 3:
            raise SpecError("depth", f"shared_first needs depth 3, got {depth}",
                            "use depth = 3 (one shared layer, one gated layer)")
        H1 = shared_first = integer(shared_first, "shared_first", lo=1,
                                    fix="give the shared first layer's width, e.g. the ReLU layer's")
        dims = [X.shape[0], H1, Ht, Y.shape[0]]
    else:
        dims = [X.shape[0]] + [Ht] * (depth - 1) + [Y.shape[0]]
    net = gdln_graph(X.shape[0], Y.shape[0], G, hidden, depth, shared_first)
    p0 = _split_stacked(net, _chain_init(dims, init_std, seed, seeds), hidden, shared_first)
    # record sees the stacked form
    stacked_record = None if record is None else (lambda ws, a: record(_restack(ws, hidden, shared_first), a))
    t_ck, losses, o, _, params, pck, rec = _run_checkpointed(
        net, p0, X, Y, lr=lr, steps=steps, every=every, loss=loss, keep_params=keep_params, record=stacked_record,
        aux=aux, batch=batch, on_batch=on_batch, what="GDLN training")
    params = [np.asarray(w) for w in _restack(params, hidden, shared_first)]
    if pck is not None:
        pck = [np.asarray(w) for w in _restack(pck, hidden, shared_first)]
    return GdlnRun(t_ck, losses, o, params, pck, rec)


def train_gdln_many(X, Y, gate_sets: Sequence, hidden_sets: Sequence, *, lr: float, steps: int, seeds: int = 4,
                    init_std: float = 0.01, loss: str = "mean", seed: int = 0, every: int = 100) -> list:
    """:func:`train_gdln` (depth 2) for several gatings at once: one :class:`GdlnRun` per entry of
    ``gate_sets`` (K × P each) with widths ``hidden_sets``, equal to ``train_gdln(X, Y, G, hidden=h, …)``.

    A depth-2 GDLN whose pathways all read the whole input and write the whole output is one
    layer of ``sum(hidden)`` units, each gated by its pathway's row of G (the packed form of
    :func:`theorykit.sim.engine.pack_net`). Gatings of the same total width therefore differ only in
    a (units × P) gate array, which the one trainer takes as per-member data: every such gating and
    seed is one member of one compiled ensemble (Algorithm 1's elbow: K = 1 … 8 in one call)."""
    loss_name(loss)
    if len(gate_sets) != len(hidden_sets):
        raise SpecError("hidden", f"{counted(len(hidden_sets), 'width list')} for {counted(len(gate_sets), 'gating')}", "give one per gating")
    X, Y = jnp.asarray(X, jnp.float64), jnp.asarray(Y, jnp.float64)
    P = X.shape[1]
    units = []
    for i, (G, hidden) in enumerate(zip(gate_sets, hidden_sets)):
        G = np.asarray(G, float)
        if G.ndim != 2 or G.shape[1] != P or G.shape[0] != len(hidden):
            raise SpecError("gates", f"a gating of shape {G.shape} with {counted(len(hidden), 'width')}, for {counted(P, 'datapoint')}",
                            "give one row of P gates per pathway and one width per pathway")
        units.append(np.repeat(G, [_width(h, f"hidden_sets[{i}][{j}]") for j, h in enumerate(hidden)], axis=0))
    runs = [None] * len(units)
    n, t_ck = _checkpoints(steps, every)
    for Ht in sorted({u.shape[0] for u in units}):
        idx = [i for i, u in enumerate(units) if u.shape[0] == Ht]
        net = Net.chain(X.shape[0], [Ht], Y.shape[0], relu=False)
        h = net.nodes[0][0]
        w0 = _chain_init([X.shape[0], Ht, Y.shape[0]], init_std, seed, seeds)
        m = len(idx)
        p0 = {k: jnp.tile(w, (m, 1, 1)) for k, w in zip(net.keys, w0)}          # gating-major, then seed
        gates = jnp.asarray(np.repeat(np.stack([units[i] for i in idx]), seeds, axis=0))
        data = (jnp.broadcast_to(X, (m * seeds,) + X.shape), jnp.broadcast_to(Y, (m * seeds,) + Y.shape), gates)

        def out(p, d):
            return net_apply(net, p, d[0], {h: d[2]})

        res = train(lambda p, d: loss_value(out(p, d), d[1], loss), p0, data, lr=lr, steps=steps, data_axis=0,
                    save=SaveAt(ts=list(t_ck), fns={"outputs": out}), check="GDLN training")
        o = np.asarray(res.saved["outputs"])
        for j, i in enumerate(idx):
            sl = slice(j * seeds, (j + 1) * seeds)
            runs[i] = GdlnRun(t_ck, res.loss[sl], o[sl], [np.asarray(res.params[k])[sl] for k in net.keys])
    return runs


def unstack_gdln(params, hidden: Sequence[int]) -> list:
    """Per-pathway weight lists (as :func:`theorykit.sim.simulation.gdln_forward` takes them) from the
    stacked form of :func:`train_gdln` (one network, or a batch of them along leading axes)."""
    offs = np.concatenate([[0], np.cumsum(hidden)]).astype(int)
    out = []
    for j in range(len(hidden)):
        sl = slice(int(offs[j]), int(offs[j + 1]))
        out.append([params[0][..., sl, :]] + [W[..., sl, sl] for W in params[1:-1]] + [params[-1][..., :, sl]])
    return out


def exact_reln_trajectory(X, Y, *, hidden, lr: float, steps: int, init_std: float = 0.1, loss: str = "mean",
                          seed: int = 0, every: int = 10):
    """Train a ReLU network and its exact ReLN side by side from the same initial weights.

    The ReLN is a node-gated deep *linear* network with its own weights; at each step its gates
    are the ReLU network's current unit activities (held fixed for the gradient). Both are one
    ensemble of :func:`theorykit.sim.engine.train`: the stepped state is the pair of weight sets and
    the loss is the sum of the two losses, whose gradients do not mix. Returns
    ``(t_ck, relu_outputs, reln_outputs)`` at every checkpoint (checkpoints × p × P each)."""
    X, Y = jnp.asarray(X, jnp.float64), jnp.asarray(Y, jnp.float64)
    widths = [int(hidden)] if isinstance(hidden, (int, np.integer)) else [int(w) for w in hidden]   # as train_relu
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
                save=SaveAt(loss_every=0, ts=list(t_ck), fns={"out": outputs}))
    ro, lo = res.saved["out"]
    return t_ck, np.asarray(ro)[0], np.asarray(lo)[0]


def gdln_outputs_from_start(spec, start: Mapping, steps: Sequence[int], lr: float, loss: str | None = None):
    """Train the spec's GDLN from ``start`` (edge weights with a seed axis) with
    :func:`theorykit.sim.simulation.simulate`, recording its outputs after each of ``steps`` steps
    (``loss``: the convention, default the spec's). Returns ``(outputs (seeds × len(steps) × p × P),
    the simulation's Trajectory)``."""

    net = Net.from_graph(spec)
    steps = [int(s) for s in steps]
    save = SaveAt(loss_every=1, ts=steps, fns={"out": lambda p, d: net_apply(net, p, d[0])})
    sim = simulate(spec, init=dict(start), seeds=int(next(iter(start.values())).shape[0]), steps=max(steps),
                   lr=lr, save=save, loss=loss)
    saved = np.asarray(sim.saved["out"])
    idx = np.searchsorted(sim.saved_t, steps)
    return saved[:, idx], sim
