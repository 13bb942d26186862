"""Simulation of a spec's networks: the GDLN its graph defines, and the bias-free ReLU network of
the same total width, by full-batch gradient descent in JAX, vmapped over seeds.

Every function here is a thin caller of the one trainer, :func:`theorykit.sim.engine.train`.

Precision: float64 by default (``jax_enable_x64`` is switched on when theorykit is imported).
In float32 the matrix products run at ``"highest"`` precision on purpose (no TF32 on a GPU).

Initialisations of the GDLN (keyword ``init``), see :mod:`theorykit.net.starts`:

* ``"aligned"``: small, aligned, balanced weights of strength ``a0``; for private chains every
  mode starts at ``a0`` and the closed form holds up to the O(η) gap between gradient descent
  and gradient flow;
* ``"random"``: i.i.d. N(0, σ_e²) weights (σ_e: the edge's ``init_scale`` or ``init_std``);
* a dict of weights (``"<from>-><to>"`` keys, leading seed axis): the given start, e.g. a ReLU
  run's own initial weights (:func:`theorykit.sim.weights.load_weights` reads them from a file).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ..net.layout import DTYPES, Net, as_dtype, net_apply, unit_activity
from ..record import SaveAt, Trajectory, checked_save
from ..linalg import data_pair
from .engine import train_net
from ..errors import SpecError, keyword_typos
from ..spec.values import checked_value
from ..spec.task import checked_values_map
from ..theory.derivation import Derivation
from ..spec.fields import choice, init_scale, integer, learning_rate, loss_name, seed_value
from ..spec.graph import GraphSpec, Group, graph_from_pathways
from ..spec.gating import GDLNSpec
from ..net.starts import aligned_params, random_params
from .weights import check_weights

__all__ = ["simulate", "relu_forward", "relu_gates", "gdln_forward", "DTYPES"]


def _schedule(graph, schedule, staged_first):
    """Groups from ``schedule``: a tuple of :class:`~theorykit.spec.graph.Group`, ``"joint"`` (none,
    or the graph's own), or ``"staged"`` (pathways named in ``staged_first`` fit the targets, the
    others the residual of those, both from step 0). An edge that a first pathway shares with
    another is listed in the first group, and like every edge it descends the whole objective
    (:func:`~theorykit.net.layout.objective_for`): the first group's loss and, through the residual
    group's output, which reads it too, the residual's loss."""
    if isinstance(schedule, (list, tuple)):     # checked as a [[schedule]] of the graph: edges, fits
        return replace(graph, schedule=tuple(schedule)).schedule
    if schedule == "joint":
        return graph.schedule
    choice(schedule, "schedule", ("joint", "staged"), "use \"joint\", \"staged\" or a list of groups",
           problem=f"unknown schedule {schedule!r}")
    first = [gp for gp in graph.pathways if gp.name in staged_first]
    if not first or len(first) == len(graph.pathways):
        raise SpecError("staged_first", f"names {list(staged_first)} must pick some but not all pathways "
                        f"of {[gp.name for gp in graph.pathways]}", "name the pathways that fit the targets first")
    a = sorted({k for gp in first for k in gp.edges})
    b = sorted({k for gp in graph.pathways if gp not in first for k in gp.edges} - set(a))
    return (Group("first", tuple(a)), Group("rest", tuple(b), 0, ("first",)))


def _edge_scales(g, std):
    """σ per edge: one number (the edges' own ``init_scale`` first), or a mapping by pathway name
    (every edge of that pathway) or by edge key. An edge key wins over a pathway name; an edge that
    pathways share takes their σ only where they agree (otherwise the edge needs its own key)."""
    if not isinstance(std, Mapping):
        return g.edge_init_scales(float(std))
    out, by = {}, {}
    for gp in g.pathways:
        for k in gp.edges:
            if k in std:
                out[k] = float(std[k])
            elif gp.name in std:
                v = float(std[gp.name])
                if k in by and out[k] != v:
                    raise SpecError(f"init_std[{gp.name!r}]",
                                    f"edge {k!r} is shared by pathways {by[k]!r} and {gp.name!r}, "
                                    f"which give it different stds ({out[k]} and {v})",
                                    f"give the shared edge its own: init_std[{k!r}] = …")
                out[k], by[k] = v, by.get(k, gp.name)
    names = {gp.name for gp in g.pathways} | {e.key for e in g.edges}
    unknown = sorted(str(k) for k in std if k not in names)      # a misspelt key is never ignored
    missing = [e.key for e in g.edges if e.key not in out]
    if missing or unknown:
        what = [f"no std for edges {missing}"] * bool(missing) + [f"{unknown} name no pathway or edge"] * bool(unknown)
        raise SpecError("init_std", "; ".join(what),
                        f"give one per pathway name ({sorted(gp.name for gp in g.pathways)}) or edge key")
    return out


def _simulate_gdln(g, Xn, Yn, *, init="aligned", seeds: int = 4, steps: int, values: Mapping | None = None,
             a0: float | None = None, init_std, dtype: str = "float64", schedule="joint",
             staged_first: Sequence[str] = (), seed: int = 0, save: SaveAt | None = None, lr: float,
             batch: int | None = None, on_batch=None, on_step=None, fused: bool = False, loss: str,
             check: bool = True) -> Trajectory:
    """Full-batch gradient descent on the GDLN of a graph ``g`` on its task's data ``Xn``, ``Yn``,
    vmapped over ``seeds``; ``steps``, ``lr``, ``init_std`` and ``loss`` come resolved (:func:`simulate`
    takes them from the spec's training settings where they are not given).

    ``init``: ``"aligned"``, ``"random"``, or a dict of initial weights (see module docstring).
    ``schedule``: ``"joint"`` (the graph's own schedule, if it has one, else the total loss),
    ``"staged"`` with ``staged_first``, or a tuple of :class:`~theorykit.spec.graph.Group`.
    ``save``: what to record besides the loss curve (:class:`~theorykit.record.SaveAt`).
    ``fused``: step with the fused multi-step kernel (:mod:`theorykit.sim.fused`; depth-2, no schedule).
    """
    net = Net.from_graph(g)
    dt = as_dtype(dtype)
    data = (jnp.asarray(Xn, dt), jnp.asarray(Yn, dt))
    if isinstance(init, Mapping):
        p0 = check_weights(init, net, seeds, dtype, "init weights")
    elif init == "aligned":
        # private chains start in the derivation's own singular frames (shared edges: the full Σyx's)
        frames = Derivation(g.as_pathway_spec(), values=values).frames(values) if g.private_chains else None
        p0 = aligned_params(g, g.training.a0 if a0 is None else a0, seeds, seed, dtype, values, frames=frames)
    elif init == "random":
        p0 = random_params(net, _edge_scales(g, init_std), seeds, seed, dtype)
    else:
        choice(init, "init", ("aligned", "random"), "use \"aligned\", \"random\" or a dict of weights",
               problem=f"unknown init {init!r}")
    kind = "given" if isinstance(init, Mapping) else init
    groups = _schedule(g, schedule, staged_first)
    res = train_net(net, p0, data, loss=loss, schedule=groups, lr=lr, steps=steps, save=save or SaveAt(),
                    batch=batch, on_batch=on_batch, check="GDLN simulation" if check else None, fused=fused,
                    on_step=on_step)
    return replace(res, extra={"init": kind, "schedule": [gr.name for gr in groups] or "joint", "initial_params": p0,
                               "dtype": dtype, "devices": res.extra["devices"]})


# ---------------------------------------------------------------------------------------------
# ReLU network
# ---------------------------------------------------------------------------------------------
def relu_forward(params, X):
    """Bias-free ReLU network ``ŷ = W_L relu(… relu(W_1 x))`` (``params``: ``[W1, …, WL]``)."""
    net = Net.chain(X.shape[0], [W.shape[0] for W in params[:-1]], params[-1].shape[0])
    return net_apply(net, dict(zip(net.keys, params)), X)


def relu_gates(params, X):
    """Binary activity (hidden unit × datapoint) of every hidden layer: 1 where pre-activation > 0."""
    net = Net.chain(X.shape[0], [W.shape[0] for W in params[:-1]], params[-1].shape[0])
    act = unit_activity(net, dict(zip(net.keys, params)), X)
    return [act[v] > 0 for v, _ in net.nodes]


def gdln_forward(params, X, gates, inputs, outputs, p_out):
    """Output of a pathway-form GDLN: ``ŷ = Σ_p g_p ⊙ (W_p x_{s(p)})`` into each pathway's rows
    (``params[p]``: that pathway's ``[W1, …, WL]``)."""
    Yh = jnp.zeros((p_out, X.shape[1]), dtype=X.dtype)
    for Ws, g, ins, outs in zip(params, gates, inputs, outputs):
        h = X[np.asarray(ins), :]
        for W in Ws:
            h = W @ h
        Yh = Yh.at[np.asarray(outs), :].add(h * g[None, :])
    return Yh


def _simulate_relu(X, Y, *, hidden: Sequence[int] | int, lr: float, steps: int, seeds: int = 4,
                  init_std: float = 0.01, loss: str = "mean", dtype: str = "float64", seed: int = 0,
                  snapshot_every: int | None = None, check: bool = True, init: Mapping | None = None,
                  save: SaveAt | None = None, batch: int | None = None, on_batch=None, on_step=None,
                  fused: bool = False) -> Trajectory:
    """Full-batch gradient descent on bias-free ReLU networks (vmapped over ``seeds``).

    ``hidden`` is one width or a list of widths (two for two hidden layers). ``init``: given
    initial weights (``W1, W2, …`` or edge keys, leading seed axis). With ``snapshot_every`` the
    binary first-hidden-layer activity is recorded every that many steps, at 0, ``snapshot_every``, …
    below ``steps`` (at least step 0; ``extra["snapshots"]``: seeds × snapshots × H × P), for finding
    gates (Algorithm 1). ``extra["gates"]`` holds the
    final activity of every hidden layer. ``params`` is ``[W1, …, WL]``, each with a seed axis.
    ``fused``: step with the fused multi-step kernel (:mod:`theorykit.sim.fused`; one hidden layer).
    """
    loss_name(loss, "training.loss")
    dt = as_dtype(dtype)
    X, Y = jnp.asarray(X, dt), jnp.asarray(Y, dt)
    widths = [hidden] if isinstance(hidden, int) else list(hidden)
    net = Net.chain(X.shape[0], widths, Y.shape[0])
    p0 = check_weights(init, net, seeds, dtype, "init weights") if init is not None else \
        random_params(net, init_std, seeds, seed, dtype)
    save = save or SaveAt()
    if snapshot_every:
        first = net.nodes[0][0]
        marks = [i * snapshot_every for i in range(max(steps // snapshot_every, 1))]
        fns = dict(save.fns, snapshots=lambda p, d: unit_activity(net, p, d[0])[first] > 0)
        ts = set(save.times(steps, integer=True).tolist()) if save.fns else set()
        save = replace(save, ts=sorted(ts | set(marks)), every=None, fns=fns)
    # a ReLU network has no siblings to pack and no schedule: train_net is train on its loss
    res = train_net(net, p0, (X, Y), loss=loss, lr=lr, steps=steps, save=save, batch=batch, on_batch=on_batch,
                    on_step=on_step,
                    check="ReLU simulation" if check else None, fused=fused)
    extra = {"dtype": dtype, "devices": res.extra["devices"]}
    params = None
    if res.params is not None:                   # SaveAt(final=False) keeps no weights, so no gates
        params = [res.params[k] for k in net.keys]
        with jax.default_matmul_precision("highest"):  # the trainer's products: float32 gates not read in TF32
            extra["gates"] = [np.asarray(g) for g in jax.vmap(relu_gates, in_axes=(0, None))(params, X)]
    if snapshot_every:
        idx = np.searchsorted(res.saved_t, marks)
        extra["snapshots"] = np.asarray(res.saved["snapshots"])[:, idx]
    return replace(res, params=params, extra=extra)


def _data_array(a, name: str) -> np.ndarray:
    """Data ``X`` or ``Y`` of ``simulate((X, Y), ...)`` as a float array of finite real numbers;
    complex, non-numeric and non-finite entries are refused by name (not cast, not trained on)."""
    try:
        A = np.asarray(a)
        complex_ = A.dtype.kind == "c"
        A = A.astype(float) if not complex_ else A
    except (TypeError, ValueError) as exc:
        raise SpecError(f"source {name}", f"cannot be read as an array of real numbers ({exc!s:.80})",
                        "give a 2-D array of numbers, datapoints as columns") from None
    if complex_:
        raise SpecError(f"source {name}", "holds complex numbers", "give real numbers")
    if not np.isfinite(A).all():
        raise SpecError(f"source {name}", "holds NaN or inf", "give finite numbers")
    return A


@keyword_typos
def simulate(source, *, network: str = "gdln", init=None, seeds: int = 4, steps: int | None = None,
             values: Mapping | None = None, dtype: str = "float64", seed: int = 0, save: SaveAt | None = None,
             lr: float | None = None, init_std=None, a0: float | None = None, schedule="joint",
             staged_first: Sequence[str] = ("common",), hidden=None, loss: str | None = None,
             snapshot_every: int | None = None, batch: int | None = None, on_batch=None, on_step=None,
             fused: bool = False, check: bool = True) -> Trajectory:
    """Full-batch gradient descent, vmapped over ``seeds``: the one way to simulate.

    ``source``: a pathway or graph spec, or data ``(X, Y)`` (d × P, p × P; then ``network="relu"``
    and ``hidden``, ``lr``, ``steps`` are needed). ``network``:
    * ``"gdln"``: the spec's GDLN. ``init``: ``"aligned"`` (the default), ``"random"`` or a dict of weights;
      ``schedule``: ``"joint"`` (the graph's own schedule, if any, else the total loss),
      ``"staged"`` (pathways in ``staged_first`` fit the targets, the others the residual) or a
      tuple of :class:`~theorykit.spec.graph.Group`;
    * ``"relu"``: a bias-free ReLU network with one hidden layer of the spec's total width (a
      deeper graph's too: ``hidden``, one width per hidden layer, gives more layers), random
      N(0, init_std²) weights (``init`` left out or ``"random"``) or ``init``, a dict of weights
      (``W1, W2, …`` or edge keys). The GDLN's ``"aligned"`` start, ``a0`` and ``schedule`` are
      refused here, by name. ``snapshot_every``: record the first hidden layer's binary activity (``extra["snapshots"]``:
      seeds × snapshots × H × P); ``extra["gates"]``: every hidden layer's final activity.

    ``values``: numbers for the task's symbols (name → value, e.g. ``{"Delta": 0.5}``). ``seed``: the
    random seed the ``seeds`` members are drawn from (the random weights, or the aligned start's random
    frames). ``dtype``: ``"float64"`` (the default) or ``"float32"``.
    Training settings default to the spec's (``lr``, ``loss``, ``init_std``, ``a0``, ``steps``).
    A GDLN's ``init_std`` may be a dict by pathway name or edge key (an edge key wins; an edge that
    pathways share needs its own key where their σ differ).
    ``check``: raise :class:`~theorykit.errors.DivergenceError` if the loss diverges.
    ``save``: what to record besides the loss curve (:class:`~theorykit.record.SaveAt`; it comes
    back in ``saved``, at the steps ``saved_t``). Its functions get the network's weights keyed by
    edge, as the trainer holds them (a ReLU network's ``"input->h1"``, ``"h1->output"``; ``params``
    comes back as the list ``[W1, …]``: ``Net.chain_names()`` maps one onto the other).

    Returns the :class:`~theorykit.record.Trajectory` every run returns: ``loss[seed, i]`` after
    ``t[i]`` steps; ``params``, the final weights (a GDLN: edge key → seeds × out × in; a ReLU
    network: the list ``[W1, …, WL]``, each with a seed axis); ``extra``: ``dtype``, ``devices``,
    a GDLN's ``init``, ``schedule`` and ``initial_params``, a ReLU network's ``gates`` and
    ``snapshots`` (the activity at the snapshot steps only; ``saved["snapshots"]`` has it at
    every saved step).
    ``fused``: the fused multi-step kernel (:mod:`theorykit.sim.fused`; depth 2, no schedule).
    ``batch``, ``on_batch``, ``on_step``: the trainer's (:func:`~theorykit.sim.engine.train`);
    ``on_step(done)`` serves a progress bar (not with ``fused``).
    """
    choice(network, "network", ("gdln", "relu"), "use \"gdln\" or \"relu\"", problem=f"unknown network {network!r}")
    integer(seeds, "seeds", lo=1, fix="a positive number of networks, e.g. seeds=4")
    stds = init_std.items() if isinstance(init_std, Mapping) else [(None, init_std)]   # one, or by pathway/edge
    if lr is not None:          # the one rule of every learning rate (a spec's training.lr, --lr)
        learning_rate(lr, "lr", "lr=0.05")
    for name, v, example in (("a0", a0, "a0=1e-3"),
                             *((f"init_std[{k!r}]" if k is not None else "init_std", v, "init_std=0.01")
                               for k, v in stds)):
        if v is not None:       # an override is checked as the spec's own setting is (Training)
            init_scale(v, name, example)
    seed_value(seed, "seed", "seed=0")      # as --seed: JAX's PRNGKey takes 0 … 2**32 - 1 (-1 ran)
    checked_values_map(values, getattr(getattr(source, "task", None), "symbols", ()))     # as the Derivation's
    if save is not None:
        checked_save(save)
    for k, v in (values or {}).items() if isinstance(source, (GDLNSpec, GraphSpec)) else ():
        checked_value(source.task, k, v)   # as predict_loss checks them: a symbol of the task, a number, its assumptions
    if isinstance(source, tuple) and len(source) == 2:
        if network != "relu":
            raise SpecError("network", "data (X, Y) trains a ReLU network", "pass network=\"relu\", or a spec")
        if hidden is None or lr is None or steps is None:
            raise SpecError("hidden" if hidden is None else "lr" if lr is None else "steps",
                            "is needed to train on data (X, Y)", "pass hidden=, lr= and steps=")
        X, Y = data_pair(*(_data_array(a, name) for a, name in zip(source, ("X", "Y"))), "source",
                         "give X and Y with datapoints as columns (2-D arrays; transpose data stored as rows)")
        std0, loss0 = 0.01, "mean"
    else:                                   # the spec's data and training settings (a ReLU network: total width)
        for name, v in (("hidden", hidden), ("snapshot_every", snapshot_every)) if network == "gdln" else ():
            if v is not None:   # a GDLN's widths are its spec's, and it has no ReLU units to snapshot
                raise SpecError(name, "applies to the ReLU network only", f"pass network=\"relu\", or drop {name}=")
        g = graph_from_pathways(source)
        X, Y = g.task.numeric(values)
        hidden = source.hidden_total if hidden is None and network == "relu" else hidden
        lr = g.training.lr if lr is None else lr
        steps = g.training.steps if steps is None else steps
        std0, loss0 = g.training.init_std, g.training.loss
    init_std, loss = std0 if init_std is None else init_std, loss or loss0
    if network == "relu":
        for h in np.atleast_1d(np.asarray(hidden, dtype=object)) if hidden is not None else ():
            integer(h, "hidden", lo=1, fix="a positive width, or one per hidden layer, e.g. hidden=128")
        if hidden is not None and np.ndim(hidden) and not len(hidden):
            raise SpecError("hidden", "no hidden layer given", "give one width, or one per hidden layer")
        if snapshot_every is not None:      # 0 was ignored, -1 took step 0 only, 1.5 a raw TypeError
            integer(snapshot_every, "snapshot_every", lo=1, fix="a positive number of steps, e.g. snapshot_every=100")
        if isinstance(init, str) and init != "random":
            raise SpecError("init", f"a ReLU network has no {init!r} start (it is the GDLN's)",
                            "leave init out or pass init=\"random\" (or a dict of weights)")
        for name, v, default in (("a0", a0, None), ("schedule", schedule, "joint"),
                                 ("staged_first", tuple(staged_first), ("common",))):
            if v != default:     # the GDLN's settings: silently ignored before
                raise SpecError(name, "applies to the GDLN only", f"pass network=\"gdln\", or drop {name}=")
        return _simulate_relu(X, Y, hidden=hidden, lr=lr, steps=steps, seeds=seeds,
                              init_std=init_std, loss=loss, dtype=dtype,
                              seed=seed, snapshot_every=snapshot_every, check=check,
                              init=init if isinstance(init, Mapping) else None, save=save, batch=batch,
                              on_batch=on_batch, on_step=on_step, fused=fused)
    return _simulate_gdln(g, X, Y, init="aligned" if init is None else init, seeds=seeds, steps=steps, values=values,
                          a0=a0, init_std=init_std, dtype=dtype, schedule=schedule, staged_first=staged_first,
                          seed=seed, save=save, lr=lr, batch=batch, on_batch=on_batch, on_step=on_step, fused=fused,
                          loss=loss, check=check)
