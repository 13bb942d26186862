"""The one trainer: full-batch gradient descent on any network of theorykit, in JAX.

Three things are kept apart, in the manner of diffrax's ``diffeqsolve(terms, solver, saveat)``:

* **what is stepped**: a :class:`Net` (the static structure of a graph GDLN or a ReLU network)
  and its parameters, a dict of weight matrices keyed ``"<from>-><to>"``; the training loss and,
  for a :class:`~theorykit.spec.graph.Group` schedule, the training objective built from it;
* **how it is stepped**: :func:`train` (``W ← W − η ∇objective``, one ``lax.fori_loop`` between
  save points, ``vmap`` over an ensemble axis: seeds, swept symbol values, learning rates);
* **what is recorded**: :class:`SaveAt` (the loss curve at a stride, and any functions of the
  parameters at chosen steps: outputs, hidden activity, weights, alignment, …).

Every simulation of the package goes through :func:`train`. Float64 by default; float32
products run at ``"highest"`` precision on purpose (no TF32 on a GPU).

The forward pass of a :class:`Net` (docs/theory.md#race) is described in :mod:`theorykit.net.layout`.
"""
from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, replace
from typing import Callable, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from ..net.layout import MATMUL_PRECISION, Net, net_loss, objective_for
from .fused import _fused_train, layout
from ..record import SaveAt, Trajectory, check_finite, checked_save
from ..errors import SpecError
from ..io import counted
from ..spec.fields import integer
from ..spec.ranges import MAX_STEPS

__all__ = ["Packing", "pack_net", "Trainer", "train", "train_net", "ensemble_placement"]

@dataclass(frozen=True)
class Packing:
    """Sibling hidden nodes merged into one node, for speed (:func:`pack_net`).

    ``net``: the packed :class:`Net`; ``schedule``: the schedule on its edge keys; ``members``:
    merged edge key → the original edge keys, in order, and the axis they are stacked on (0 for
    edges into the merged node, their rows; 1 for edges out of it, their columns)."""

    net: Net
    schedule: tuple
    members: Mapping
    sizes: Mapping                    # original edge key → (rows, columns)

    def pack(self, params):
        """Original weights (a dict, any leading axes) → the packed net's weights."""
        out = {k: v for k, v in params.items() if not any(k in m for m, _ax in self.members.values())}
        for key, (ms, ax) in self.members.items():
            out[key] = jnp.concatenate([params[m] for m in ms], axis=ax - 2)
        return out

    def unpack(self, params):
        """The packed net's weights → the original edge keys (slices, no copies of data in jit)."""
        out = {k: v for k, v in params.items() if k not in self.members}
        for key, (ms, ax) in self.members.items():
            cuts = np.cumsum([self.sizes[m][ax] for m in ms])[:-1].tolist()
            split = np.split if isinstance(params[key], np.ndarray) else jnp.split      # numpy outside jit
            for m, part in zip(ms, split(params[key], cuts, axis=ax - 2)):
                out[m] = part
        return out


def pack_net(net: Net, schedule=()) -> Packing | None:
    """Merge *sibling* hidden nodes: nodes with one edge in and one edge out, all in from the same
    node (the same input rows) and all out to the same node (the same output rows), with no edge
    gates, whose edges belong to the same schedule groups. The merged node's gate is per unit
    (units × datapoints); its in-edge stacks the rows, its out-edge the columns, of the members'.
    The forward pass, the loss and the gradient descent step are those of the original network
    (each weight entry gets the same update); only the number of matrix products changes, from one
    per pathway to one per merged layer. ``None`` when there is nothing to merge."""
    if net.relu:
        return None
    ins, outs = {}, {}
    for e in net.edges:
        outs.setdefault(e[1], []).append(e)
        ins.setdefault(e[2], []).append(e)
    groups_of = {}
    for gr in schedule or ():
        for k in gr.edges:
            groups_of.setdefault(k, set()).add(gr.name)
    rows = lambda r: None if r is None else tuple(int(i) for i in r)  # noqa: E731
    buckets = {}
    for v, w in net.nodes:
        if len(ins.get(v, [])) != 1 or len(outs.get(v, [])) != 1:
            continue
        ei, eo = ins[v][0], outs[v][0]
        if ei[0] in net.edge_gates or eo[0] in net.edge_gates:
            continue
        key = (ei[1], rows(ei[3]), eo[2], rows(eo[4]), frozenset(groups_of.get(ei[0], ())),
               frozenset(groups_of.get(eo[0], ())))
        buckets.setdefault(key, []).append(v)
    merges = [vs for vs in buckets.values() if len(vs) > 1]
    if not merges:
        return None
    width = dict(net.nodes)
    P = next((len(g) for g in list(net.node_gates.values()) + list(net.edge_gates.values())), None)
    shapes = net.shapes()
    merged_of = {v: i for i, vs in enumerate(merges) for v in vs}
    nodes, edges, gates, members, rename = [], [], {}, {}, {}
    for v, w in net.nodes:
        if v not in merged_of:
            nodes.append((v, w))
            if v in net.node_gates:
                gates[v] = net.node_gates[v]
            continue
        vs = merges[merged_of[v]]
        if v != vs[0]:
            continue
        name = "+".join(vs)
        nodes.append((name, sum(width[u] for u in vs)))
        if any(u in net.node_gates for u in vs):
            gates[name] = np.concatenate([np.broadcast_to(np.asarray(net.node_gates.get(u, np.ones(P)), float)[None, :],
                                                          (width[u], P)) for u in vs])
        ei, eo = ins[vs[0]][0], outs[vs[0]][0]
        k_in, k_out = f"{ei[1]}->{name}", f"{name}->{eo[2]}"
        members[k_in] = ([ins[u][0][0] for u in vs], 0)
        members[k_out] = ([outs[u][0][0] for u in vs], 1)
        rename.update({ins[u][0][0]: k_in for u in vs})
        rename.update({outs[u][0][0]: k_out for u in vs})
    done = set()
    for e in net.edges:
        k = rename.get(e[0], e[0])
        if k in done:
            continue
        done.add(k)
        if k == e[0]:
            edges.append(e)
        elif k in members and members[k][1] == 0:
            edges.append((k, e[1], k.split("->", 1)[1], e[3], None))
        else:
            edges.append((k, k.split("->", 1)[0], e[2], None, e[4]))
    packed = Net(net.d, net.p, tuple(nodes), tuple(edges), gates, dict(net.edge_gates), False)
    sched = tuple(type(gr)(gr.name, tuple(dict.fromkeys(rename.get(k, k) for k in gr.edges)), gr.start, tuple(gr.fit))
                  for gr in schedule or ())
    return Packing(packed, sched, members, shapes)


# ---------------------------------------------------------------------------------------------
# How it is stepped
# ---------------------------------------------------------------------------------------------
def _build_run(loss_fn, objective, mask, steps: int, save: SaveAt, on_step=None):
    every = save.loss_every
    tick = max(1, steps // 100)         # on_step(t) about 100 times a run, from the host
    n_curve = save.loss_steps(steps).size

    def run(params, data, lr, seg_lengths):
        vg = jax.value_and_grad(loss_fn)
        og = jax.grad(objective) if objective is not None else None

        def body(t, carry):
            p, buf = carry
            if og is None:
                val, g = vg(p, data)
            else:
                val = loss_fn(p, data)
                g = og(p, data, t)
            if mask is not None:
                m = mask(t)
                g = {k: (gw * m[k].astype(gw.dtype) if k in m else gw) for k, gw in g.items()}
            p = jax.tree_util.tree_map(lambda w, gw: w - lr.astype(w.dtype) * gw, p, g)
            if on_step is not None:     # t is the loop's own counter, not batched: one call per tick,
                # and one at the last step (steps=8001, tick 80: the bar ended at 8000/8001)
                jax.lax.cond(((t + 1) % tick == 0) | (t + 1 == steps),
                             lambda: jax.debug.callback(on_step, t + 1), lambda: None)
            if every:
                idx = jnp.where(t % every == 0, t // every, n_curve)      # slot n_curve: a scratch slot
                buf = buf.at[idx].set(val.astype(buf.dtype))
            return p, buf

        dt = jax.tree_util.tree_leaves(params)[0].dtype
        buf = jnp.zeros(n_curve + 1, dt)

        def segment(carry, seg):
            start, length = seg
            p, buf = jax.lax.fori_loop(start, start + length, body, carry)
            rec = {name: fn(p, data) for name, fn in save.fns.items()}
            return (p, buf), rec

        starts = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(seg_lengths)[:-1]]).astype(jnp.int32)
        (params, buf), recs = jax.lax.scan(segment, (params, buf), (starts, seg_lengths))
        final = loss_fn(params, data)
        if every:
            buf = buf.at[n_curve - 1].set(final.astype(buf.dtype))
        return params, buf[:n_curve], recs, final

    return run, n_curve


@dataclass(frozen=True)
class Trainer:
    """A compiled-once training loop: ``fn(params0, data, lrs) → (params, loss curve, saved)``,
    jitted and vmapped over the ensemble axis (see :func:`_make_trainer`)."""

    fn: Callable
    t: np.ndarray
    save_steps: np.ndarray
    n_curve: int


def _make_trainer(loss_fn: Callable, *, steps: int, objective: Callable | None = None, mask: Callable | None = None,
                  save: SaveAt = SaveAt(), data_axis: int | None = None, on_step=None) -> Trainer:
    """The loop of :func:`train`, built and jitted but not run (benchmarks compile it ahead of time)."""
    checked_save(save)
    steps = integer(steps, "steps", lo=0, hi=MAX_STEPS, fix="e.g. steps = 2000")     # a spec's bound (10**12: MemoryError)
    save_steps = [int(s) for s in save.times(steps, integer=True)] if save.fns else []
    seg = np.diff([0] + save_steps).astype(np.int32)
    tail = steps - (save_steps[-1] if save_steps else 0)
    run_a, n_curve = _build_run(loss_fn, objective, mask, steps, save, on_step)
    segs = jnp.asarray(np.append(seg, tail).astype(np.int32))

    def member(p, d, eta):
        # one segment per save step (recording at its end), then the tail up to `steps`; with no loss
        # curve, L(0) and the final loss besides, for the divergence check
        l0 = None if n_curve else loss_fn(p, d)
        p, buf, recs, final = run_a(p, d, eta, segs)
        ends = buf[:0] if n_curve else jnp.stack([l0, final])
        return p, buf, jax.tree_util.tree_map(lambda r: r[:len(seg)], recs), ends

    return Trainer(jax.jit(jax.vmap(member, in_axes=(0, data_axis, 0))), save.loss_steps(steps),
                   np.asarray(save_steps, int), n_curve)


def _interrupt_reported(exc):
    """A new interrupt of the kind JAX's error ``exc`` reports, or None. Ctrl-C or SIGTERM that lands
    in JAX's own code around a host callback (not in the callback) is caught there and reported as
    a JaxRuntimeError, "CpuCallback error calling callback: Traceback … KeyboardInterrupt"; the
    kind is found by its name among KeyboardInterrupt and its subclasses (the command line's
    ``Terminated``, SIGTERM)."""
    if type(exc).__name__ != "JaxRuntimeError" or "callback" not in str(exc).lower():
        return None
    kinds, todo = [], [KeyboardInterrupt]
    while todo:
        kind = todo.pop()
        kinds.append(kind)
        todo.extend(kind.__subclasses__())
    # the reported traceback's last line (the last one not indented) names the exception by its
    # class's name: "KeyboardInterrupt", "Terminated: " (theorykit's own first where names repeat)
    last = ([line for line in str(exc).splitlines() if line.strip() and not line[:1].isspace()] or [""])[-1]
    name = last.split(":", 1)[0].strip()
    kinds.sort(key=lambda k: not k.__module__.startswith("theorykit."))
    for kind in kinds:
        if name in (kind.__name__, kind.__qualname__, f"{kind.__module__}.{kind.__qualname__}"):
            return kind()
    return None


@contextlib.contextmanager
def _dropping_logged(raised):
    """While it runs, JAX's log of a callback's exception is dropped where that exception is in
    ``raised`` (JAX logs it with its traceback, "jax.debug.callback failed"; :func:`train` raises it
    again as itself, and the command line reports it in one line)."""
    def f(record):
        """Drops the log record of an exception in ``raised`` (one that is raised again, as itself)."""
        return not (record.exc_info and record.exc_info[1] is not None and
                    any(record.exc_info[1] is e for e in raised))
    log = logging.getLogger("jax._src.debugging")
    log.addFilter(f)
    try:
        yield
    finally:
        log.removeFilter(f)


def train(loss_fn: Callable, params0, data, *, lr, steps: int, objective: Callable | None = None,
          mask: Callable | None = None, save: SaveAt = SaveAt(), data_axis: int | None = None,
          batch: int | None = None, on_batch: Callable | None = None, check: str | None = None,
          devices=None, on_batch_result: Callable | None = None, on_step: Callable | None = None) -> Trajectory:
    """Full-batch gradient descent on an ensemble, the one training loop of theorykit.

    Parameters
    ----------
    loss_fn: ``(params, data) → L``, the reported loss (and the training objective when
        ``objective`` is None).
    params0: pytree whose leaves have a leading ensemble axis (one member per seed, swept
        value, …).
    data: pytree passed to ``loss_fn``; with ``data_axis=0`` its leaves carry the ensemble axis
        too (a grid of symbol values), else it is shared by every member.
    lr: step size η, one number or one per member.
    steps: gradient steps each member takes (the loss curve runs over steps 0 … ``steps``).
    objective, mask: a schedule's objective ``(params, data, t)`` and update mask ``t → {key: 0/1}``
        (see :func:`objective_for`).
    save: what to record (:class:`SaveAt`).
    batch: members per compiled call (memory); ``on_batch(done)`` is called after each batch, and
        ``on_batch_result(start, stop, loss)`` with that batch's loss curves (members start..stop−1;
        for writing results as they finish, e.g. :mod:`theorykit.analysis.sweep`).
    on_step: ``on_step(done)``, called from the running program about 100 times a batch, the last
        at its final step, with the steps done over all batches so far (for a progress bar; ``batches × steps`` in all).
    check: a name (True: ``"training"``): raise :class:`DivergenceError`, naming it, if a loss curve is
        non-finite or grows tenfold (with ``save.loss_every=0``: if the final loss is non-finite or
        ten times L(0)); None or False: no check.
    devices: the devices to shard the ensemble axis over (default: every local device; one device
        means no sharding). The members are split evenly (the ensemble is padded to a multiple of
        the device count, and the padding dropped); each member's arithmetic is unchanged.
    """
    offset = [0]       # steps of the batches already run
    raised = []        # what on_step raised: JAX reports it as its own error, JaxRuntimeError

    def tick(t):
        try:
            on_step(offset[0] + int(t))
        except BaseException as exc:    # Ctrl-C or SIGTERM lands in the callback, as often as not
            raised.append(exc)
            raise
    tick = None if on_step is None else tick
    tr = _make_trainer(loss_fn, steps=steps, objective=objective, mask=mask, save=save, data_axis=data_axis,
                       on_step=tick)
    leaves = jax.tree_util.tree_leaves(params0)
    E = leaves[0].shape[0]
    lrs = jnp.broadcast_to(jnp.asarray(lr, dtype=leaves[0].dtype), (E,))
    if batch is not None:
        integer(batch, "batch", lo=1, fix="a positive number of members per call, e.g. batch = 10")
    size = E if not batch else int(batch)
    place = ensemble_placement(devices)
    outs = []
    with jax.default_matmul_precision(MATMUL_PRECISION), _dropping_logged(raised):
        for a in range(0, E, size):
            b = min(E, a + size)
            p_b = jax.tree_util.tree_map(lambda x: x[a:b], params0)
            d_b = jax.tree_util.tree_map(lambda x: x[a:b], data) if data_axis == 0 else None
            args, n = place((p_b, d_b, lrs[a:b]))
            if data_axis != 0:
                args = (args[0], place.replicate(data), args[2])
            try:
                res = place.gather(jax.block_until_ready(tr.fn(*args)))
            except Exception as exc:
                # an interrupt that landed in on_step stopped the program: it is raised as itself (it
                # was an "internal error", status 70, where the command line says "interrupted", 130)
                if raised:
                    raise raised[0].with_traceback(None) from None
                interrupt = _interrupt_reported(exc)
                if interrupt is not None:
                    raise interrupt from None
                raise
            outs.append(jax.tree_util.tree_map(lambda x: np.asarray(x)[:n], res))
            offset[0] += int(steps)
            if on_batch_result is not None:
                on_batch_result(a, b, np.asarray(outs[-1][1], dtype=float))
            if on_batch is not None:
                on_batch(b)
    cat = lambda *xs: np.concatenate([np.asarray(x) for x in xs])  # noqa: E731
    params = jax.tree_util.tree_map(lambda *xs: jnp.asarray(np.concatenate(xs)), *[o[0] for o in outs]) \
        if save.final else None
    loss = np.asarray(cat(*[o[1] for o in outs]), dtype=float) if tr.n_curve else np.zeros((E, 0))
    saved = jax.tree_util.tree_map(cat, *[o[2] for o in outs]) if len(tr.save_steps) else {}
    if check:   # the loss curve, or L(0) and the final loss where none is recorded
        check_finite(loss if tr.n_curve else np.asarray(cat(*[o[3] for o in outs]), dtype=float), check, lr)
    return Trajectory(tr.t, loss, saved, tr.save_steps, params, {"devices": place.count})


def train_net(net: Net, params0, data, *, loss: str = "mean", schedule=(), save: SaveAt = SaveAt(),
              pack: bool = True, fused: bool = False, **options) -> Trajectory:
    """:func:`train` on a :class:`Net`: its loss (``"mean"`` or ``"sum"``), the objective and mask of
    a ``schedule`` (:func:`objective_for`), and the other options of :func:`train`.

    Sibling hidden nodes are merged first (:func:`pack_net`; ``pack=False`` to keep them apart):
    the same gradient descent with fewer, larger matrix products. ``params0``, the recorded
    functions (``save.fns`` see the original edge keys) and the final weights are unchanged.

    ``fused=True`` steps with the fused multi-step kernel of :mod:`theorykit.sim.fused` (one kernel
    call per recorded loss; for a GPU): depth-2 networks (a ReLU network with one hidden layer, or
    a GDLN whose pathways each run input → node → output), without a schedule, recording only the
    loss curve; options ``lr``, ``steps``, ``check``."""
    checked_save(save)
    _check_net_inputs(net, params0, data, options.get("lr"))
    if fused:
        return _train_fused(net, schedule, params0, data, loss, save, options)
    pk = pack_net(net, schedule) if pack else None
    if pk is not None:      # the packed net is trained; the recorded functions see the original edge keys
        fns = {name: (lambda fn: lambda p, d: fn(pk.unpack(p), d))(fn) for name, fn in save.fns.items()}
        net, schedule, params0, save = pk.net, pk.schedule, pk.pack(params0), replace(save, fns=fns)
    objective, mask = objective_for(net, schedule, loss)
    res = train(net_loss(net, loss), params0, data, objective=objective, mask=mask, save=save, **options)
    if pk is not None and res.params is not None:
        res.params = {k: jnp.asarray(v) for k, v in pk.unpack({k: np.asarray(v) for k, v in res.params.items()}).items()}
    return res


def _check_net_inputs(net: Net, params0, data, lr) -> None:
    """The weights, data and step size :func:`train_net` is given, checked against ``net`` first: a
    missing edge was a KeyError, X with the wrong number of rows JAX's dot_general TypeError, data
    that is not (X, Y) an unpacking error, and lr < 0 ran gradient ascent."""
    if not isinstance(params0, Mapping):
        raise SpecError("params0", f"expected weights keyed by edge, got {type(params0).__name__}",
                        "e.g. random_params(net, 0.1, seeds=4) (theorykit.net.starts)")
    shapes = net.shapes()
    missing, extra = [k for k in shapes if k not in params0], [k for k in params0 if k not in shapes]
    if missing or extra:
        raise SpecError("params0", (f"no weights for the edges {missing}" if missing else "") +
                        ("; " if missing and extra else "") + (f"{extra} are no edges of the net" if extra else ""),
                        f"key the weights by the net's edges {list(shapes)} (net.shapes()), e.g. random_params(net, 0.1)")
    members = set()
    for k, shape in shapes.items():
        got = tuple(np.shape(params0[k]))
        if len(got) != 3 or got[1:] != tuple(shape):
            raise SpecError(f"params0[{k!r}]", f"has shape {got}, the edge needs members × {tuple(shape)}",
                            "give every edge a leading member (seed) axis, as random_params(net, scale, seeds=n) does")
        members.add(got[0])
    if len(members) > 1:
        raise SpecError("params0", f"the edges have different numbers of members {sorted(members)}",
                        "give every edge the same leading member (seed) axis")
    if not (isinstance(data, (tuple, list)) and len(data) == 2):
        raise SpecError("data", f"expected (X, Y), got {type(data).__name__}",
                        f"pass data=(X, Y): X {net.d} × P and Y {net.p} × P, datapoints as columns")
    sx, sy = np.shape(data[0]), np.shape(data[1])
    if len(sx) < 2 or len(sy) < 2 or sx[-2] != net.d or sy[-2] != net.p or sx[-1] != sy[-1]:
        raise SpecError("data", f"X {sx} and Y {sy} do not fit the net's {counted(net.d, 'input')} and {counted(net.p, 'output')} "
                                "with one number P of datapoints",
                        f"give X as {net.d} × P and Y as {net.p} × P, datapoints as columns")
    if lr is not None:
        try:
            rates = np.asarray(lr, dtype=float) if not isinstance(lr, (str, bytes)) else None
        except (TypeError, ValueError):
            rates = None
        if rates is None or rates.size == 0 or not np.isfinite(rates).all() or (rates <= 0).any():
            raise SpecError("lr", f"needs positive, finite step sizes, got {lr!r}",
                            "e.g. lr=0.05 (one number, or one per member)")


def _train_fused(net, schedule, params0, data, loss, save, options):
    lay = layout(net, schedule, options.get("lr"))
    if isinstance(lay, str):
        raise SpecError("fused", f"the fused kernel cannot train this network: {lay}",
                        "leave fused off (the plain engine trains every network)")
    options = {k: v for k, v in options.items() if v is not None}
    extra = sorted(set(options) - {"lr", "steps", "check"})
    if extra or save.fns:
        what = ", ".join(extra) or "recorded functions (save.fns)"
        raise SpecError("fused", f"the fused kernel records only the loss curve and takes lr, steps and check; got {what}",
                        "leave fused off for these options")
    res = _fused_train(lay, params0, data, loss=loss, loss_every=save.loss_every, **options)
    if not save.final:
        res.params = None
    return res


class ensemble_placement:
    """Places an ensemble (leading axis) on devices: ``place(tree) → (sharded tree, members)``.

    With one device it returns the tree as is. With D > 1 devices it pads the leading axis to a
    multiple of D (repeating the last member) and shards it over a one-axis mesh ("ensemble"),
    so ``jit(vmap(...))`` runs D slices in parallel; ``replicate(tree)`` copies shared data to
    every device."""

    def __init__(self, devices=None):
        devs = list(jax.devices()) if devices is None else list(devices)
        if not devs:
            raise SpecError("devices", "no device given", "pass None (every device) or a list of devices")
        self.count = len(devs)
        if self.count > 1:
            from jax.sharding import Mesh, NamedSharding, PartitionSpec

            mesh = Mesh(np.array(devs), ("ensemble",))
            self._split = NamedSharding(mesh, PartitionSpec("ensemble"))
            self._copy = NamedSharding(mesh, PartitionSpec())

    def __call__(self, tree):
        leaves = [x for x in jax.tree_util.tree_leaves(tree) if x is not None]
        n = leaves[0].shape[0]
        if self.count == 1:
            return tree, n
        pad = (-n) % self.count

        def put(x):
            if x is None:
                return None
            x = np.asarray(x)
            if pad:
                x = np.concatenate([x, np.repeat(x[-1:], pad, axis=0)])
            return _put(x, self._split)

        return jax.tree_util.tree_map(put, tree, is_leaf=lambda x: x is None), n

    def replicate(self, tree):
        """``tree`` copied to every device (as it is on one device)."""
        if self.count == 1:
            return tree
        return jax.tree_util.tree_map(lambda x: _put(np.asarray(x), self._copy), tree)

    def gather(self, tree):
        """Every member's results on this process (an all-gather across hosts when there are several)."""
        if self.count == 1 or jax.process_count() == 1:
            return tree
        from jax.experimental import multihost_utils

        return multihost_utils.process_allgather(tree, tiled=True)


def _put(x, sharding):
    # each process fills the shards on its own devices (one host or several)
    return jax.make_array_from_callback(x.shape, sharding, lambda idx: x[idx])
