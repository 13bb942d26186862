"""The network description that theory and simulation share: :class:`Net` (the static structure of a
graph GDLN or a bias-free ReLU network), its forward pass, its loss and a schedule's objective.

Forward pass of a :class:`Net` (docs/theory.md#gdln): ``h_v = g_v ⊙ Σ_{e: u→v} g_e ⊙ (W_e h_u)``,
the output summing its edges into their rows. With ``relu=True`` a hidden node applies
``relu`` instead of a fixed gate (a bias-free ReLU network); ``unit_gates`` overrides the gate
of chosen nodes by a (units × datapoints) 0/1 array (the exact ReLN: a ReLU network's own gates).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import SpecError
from ..spec.fields import choice, integer, loss_name
from ..spec.graph import INPUT, OUTPUT, graph_from_pathways

__all__ = ["Net", "net_apply", "net_loss", "unit_activity", "objective_for", "loss_value", "as_dtype", "DTYPES",
           "RESIDUAL_FLOOR", "MATMUL_PRECISION", "gdln_graph"]

DTYPES = {"float64": jnp.float64, "float32": jnp.float32}

#: JAX's matmul precision of every simulation (the trainer, the fused kernel, the starts): float32
#: products on a GPU would otherwise run in TF32 (10 mantissa bits); recorded in the results' JSON
MATMUL_PRECISION = "highest"

#: residual entries below this are set to zero in the training loss. A network that can fit its
#: targets exactly drives the residual down exponentially; once its square underflows into
#: subnormal floats (~1e-308) every CPU step becomes ~100 times slower. Dropping residuals
#: below 1e-150 changes the loss by < 1e-300 and the weights by far less than float64 rounding.
RESIDUAL_FLOOR = 1e-150


def as_dtype(name):
    """The JAX dtype of ``name``; float64 only while JAX's x64 mode is on (theorykit turns it on at
    import; a user who turns it off later would get float32 arrays labelled float64)."""
    choice(name, "dtype", sorted(DTYPES), problem=f"unknown dtype {name!r}")
    if name == "float64" and not jax.config.jax_enable_x64:
        raise SpecError("dtype", "float64 was asked for, but JAX's x64 mode is off (jax_enable_x64 = False): "
                                 "the run would be float32", "leave jax_enable_x64 on (theorykit turns it on "
                                                             "when imported), or, where a run takes a dtype, pass "
                                                             "dtype=\"float32\"")
    return DTYPES[name]


def loss_value(Yh, Y, loss: str):
    """½Σ‖y − ŷ‖² (``"sum"``) or that over P (``"mean"``), with the residual floor."""
    loss_name(loss)       # any other name was the mean before: refuse it (checked when traced)
    res = Y - Yh
    res = jnp.where(jnp.abs(res) < RESIDUAL_FLOOR, 0.0, res)
    r = 0.5 * jnp.sum(res ** 2)
    return r if loss == "sum" else r / Y.shape[-1]


# ---------------------------------------------------------------------------------------------
# What is stepped: the network
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Net:
    """Static structure of a network: hidden nodes in topological order, edges, gates.

    ``d``, ``p``: input and output dimensions. ``nodes``: ``((name, width), …)``, the hidden nodes
    in topological order (``"input"`` and ``"output"`` are implied). ``edges``: tuples ``(key, src,
    dst, in_rows, out_rows)``; an edge from ``"input"`` needs ``in_rows``, the input rows it reads
    (e.g. ``np.arange(d)``), an edge to ``"output"`` needs ``out_rows``, the rows it writes; both
    are None elsewhere. ``node_gates`` / ``edge_gates``: key → 0/1 vector over datapoints (absent:
    always on). ``relu``: hidden nodes apply a ReLU (a ReLU network) instead of their gates.
    :meth:`chain` and :meth:`from_graph` build one without writing the tuples.
    """

    d: int
    p: int
    nodes: tuple                      # ((name, width), ...) in topological order
    edges: tuple
    node_gates: Mapping = field(default_factory=dict)
    edge_gates: Mapping = field(default_factory=dict)
    relu: bool = False

    @classmethod
    def from_graph(cls, graph) -> "Net":
        """The :class:`Net` of a :class:`~theorykit.spec.graph.GraphSpec` (or a pathway spec)."""
        g = graph_from_pathways(graph)
        node = g.node
        nodes = tuple((v, node[v].width) for v in g.order)
        edges = tuple((e.key, e.src, e.dst, np.asarray(e.rows) if e.src == INPUT else None,
                       np.asarray(e.rows) if e.dst == OUTPUT else None) for e in g.edges)
        ng = {n.name: np.asarray(n.active, float) for n in g.nodes if not all(n.active)}
        eg = {e.key: np.asarray(e.active, float) for e in g.edges if not all(e.active)}
        return cls(g.task.d, g.task.p, nodes, edges, ng, eg)

    @classmethod
    def chain(cls, d: int, widths: Sequence[int], p: int, relu: bool = True) -> "Net":
        """A fully connected chain input → h1 → … → output (a bias-free ReLU network by default)."""
        if isinstance(widths, (str, bytes)) or not isinstance(widths, (Sequence, np.ndarray)):    # len() TypeError
            raise SpecError("widths", f"needs a list of hidden widths, got {type(widths).__name__} {widths!r}",
                            f"e.g. Net.chain(d, [{widths!r}], p) for one hidden layer")
        names = ["input"] + [f"h{i + 1}" for i in range(len(widths))] + ["output"]
        edges = tuple((f"{a}->{b}", a, b, np.arange(d) if a == "input" else None,
                       np.arange(p) if b == "output" else None) for a, b in zip(names[:-1], names[1:]))
        return cls(d, p, tuple((f"h{i + 1}", w) for i, w in enumerate(widths)), edges, {}, {}, relu)

    def __post_init__(self):
        integer(self.d, "d", lo=1, fix="the number of inputs, e.g. 3")
        integer(self.p, "p", lo=1, fix="the number of outputs, e.g. 1")
        for node in self.nodes:
            if not (isinstance(node, tuple) and len(node) == 2):
                raise SpecError("nodes", f"{node!r} is not (name, width)", "e.g. nodes=((\"h1\", 64),)")
            integer(node[1], f"nodes[{node[0]!r}].width", lo=1, fix="a positive width, e.g. 64")
        for k, src, dst, i, o in self.edges:      # what shapes() needs, said where the Net is made
            if (src == "input") != (i is not None) or (dst == "output") != (o is not None):
                raise SpecError(f"edges[{k!r}]", "in_rows must be given exactly for an edge from \"input\", "
                                "out_rows exactly for an edge to \"output\"",
                                "e.g. (\"input->h1\", \"input\", \"h1\", np.arange(d), None)")

    def shapes(self) -> dict:
        """Edge key → ``(rows, columns)`` of its weight matrix."""
        width = dict(self.nodes)
        return {k: (len(o) if o is not None else width[dst], len(i) if i is not None else width[src])
                for k, src, dst, i, o in self.edges}

    @property
    def keys(self) -> list:
        """The edge keys, in edge order (a property; :meth:`shapes` and :meth:`paths` are methods)."""
        return [e[0] for e in self.edges]

    def paths(self, P: int) -> list:
        """Every path from input to output: ``(edge keys, gate over the P datapoints, input rows,
        output rows)``; the gate is the product of the node and edge gates on the path."""
        out_edges = {}
        for e in self.edges:
            out_edges.setdefault(e[1], []).append(e)
        found, stack = [], [[e] for e in reversed(out_edges.get("input", []))]
        while stack:                  # depth-first, iterative (no recursion limit on deep chains)
            acc = stack.pop()
            if acc[-1][2] == "output":
                found.append(acc)
            else:
                stack.extend(acc + [e] for e in reversed(out_edges.get(acc[-1][2], [])))
        result = []
        for es in found:
            g = np.ones(P)
            for k, _src, dst, _i, _o in es:
                g = g * self.edge_gates.get(k, 1.0)
                if dst != "output":
                    g = g * self.node_gates.get(dst, 1.0)
            result.append(([e[0] for e in es], g, es[0][3], es[-1][4]))
        return result

    def chain_names(self) -> dict:
        """``W1, W2, …`` → edge key, for a chain (the ReLU weight names)."""
        return {f"W{i + 1}": k for i, k in enumerate(self.keys)}


def _hidden(net: Net, params, X, unit_gates=None):
    """Hidden activity of every node, and its pre-activation."""
    h = {"input": X}
    pre_all = {}
    incoming = {}
    for e in net.edges:
        incoming.setdefault(e[2], []).append(e)
    for v, _w in net.nodes:
        pre = None
        for k, src, _dst, ins, _outs in incoming.get(v, []):
            x = h[src] if ins is None or len(ins) == net.d and np.all(ins == np.arange(net.d)) else h[src][ins, :]
            z = params[k] @ x
            if k in net.edge_gates:
                z = z * net.edge_gates[k].astype(X.dtype)[None, :]
            pre = z if pre is None else pre + z
        pre_all[v] = pre
        if unit_gates is not None and v in unit_gates:
            h[v] = pre * unit_gates[v]
        elif net.relu:
            h[v] = jax.nn.relu(pre)
        elif v in net.node_gates:
            gate = net.node_gates[v].astype(X.dtype)
            h[v] = pre * (gate if gate.ndim == 2 else gate[None, :])
        else:
            h[v] = pre
    return h, pre_all


def net_apply(net: Net, params, X, unit_gates=None, edges: Sequence[str] | None = None):
    """Output ``ŷ`` (p × P). ``edges``: only these edges into the output contribute (a group's output)."""
    h, _ = _hidden(net, params, X, unit_gates)
    Yh = jnp.zeros((net.p, X.shape[1]), dtype=X.dtype)
    for k, src, dst, _ins, outs in net.edges:
        if dst != "output" or (edges is not None and k not in edges):
            continue
        z = params[k] @ h[src]
        if k in net.edge_gates:
            z = z * net.edge_gates[k].astype(X.dtype)[None, :]
        Yh = Yh + z if len(outs) == net.p and np.all(outs == np.arange(net.p)) else Yh.at[outs, :].add(z)
    return Yh


def unit_activity(net: Net, params, X) -> dict:
    """0/1 activity (units × datapoints) of every hidden node: ``pre > 0`` for a ReLU network,
    the node's gate for a GDLN."""
    _, pre = _hidden(net, params, X)
    if net.relu:
        return {v: (pre[v] > 0).astype(X.dtype) for v, _ in net.nodes}
    return {v: jnp.broadcast_to(jnp.asarray(net.node_gates.get(v, np.ones(X.shape[1])), X.dtype)[None, :],
                                (w, X.shape[1])) for v, w in net.nodes}


def net_loss(net: Net, loss: str = "mean"):
    """``(params, data) → L``, with ``data = (X, Y)``."""
    def fn(params, data):
        X, Y = data
        return loss_value(net_apply(net, params, X), Y, loss)

    return fn


def objective_for(net: Net, schedule, loss: str = "mean"):
    """Training objective and update mask of a :class:`~theorykit.spec.graph.Group` schedule.

    objective(params, data, t) = Σ_{groups g started by step t} L(T_g − ŷ_g), where ŷ_g is the
    output of g's edges into the output, and T_g = Y, or Y − stop_gradient(Σ_{h ∈ fit_g} ŷ_h).
    mask(t)[e] = 1 once a group holding edge e has started. Nothing depends on group names.
    """
    if not schedule:
        return None, None
    starts = {}
    for g in schedule:
        for k in g.edges:
            starts[k] = min(starts.get(k, g.start), g.start)
    out_edges = {g.name: [k for k in g.edges if k.endswith("->output")] for g in schedule}

    def objective(params, data, t):
        X, Y = data
        outs = {g.name: net_apply(net, params, X, edges=out_edges[g.name]) for g in schedule}
        total = 0.0
        for g in schedule:
            target = Y
            for h in g.fit:
                target = target - jax.lax.stop_gradient(outs[h])
            total = total + jnp.where(t >= g.start, loss_value(outs[g.name], target, loss), 0.0)
        return total

    def mask(t):
        return {k: (t >= s) for k, s in starts.items()}

    return objective, mask


def gdln_graph(d: int, p: int, gates, hidden: Sequence[int], depth: int = 2, shared_first: int | None = None):
    """The :class:`Net` of a GDLN of fixed gates (K × P): pathway j is node(s)
    ``g{j+1}`` of ``hidden[j]`` units gated by row j; with ``shared_first=H1`` (depth 3) every
    pathway reads one always-on node ``shared`` of H1 units (the paper's Section 6 design)."""
    G = np.asarray(gates, float)
    K = G.shape[0]
    nodes, edges, ng = [], [], {}
    full_in, full_out = np.arange(d), np.arange(p)
    if shared_first is not None:
        nodes.append(("shared", int(shared_first)))
        edges.append(("input->shared", "input", "shared", full_in, None))
    for j in range(K):
        chain = [f"g{j + 1}"] + [f"g{j + 1}_{l}" for l in range(2, depth if shared_first is None else 2)]
        for v in chain:
            nodes.append((v, int(hidden[j])))
            ng[v] = G[j]
        if shared_first is None:
            edges.append((f"input->{chain[0]}", "input", chain[0], full_in, None))
        else:
            edges.append((f"shared->{chain[0]}", "shared", chain[0], None, None))
        edges += [(f"{a}->{b}", a, b, None, None) for a, b in zip(chain[:-1], chain[1:])]
        edges.append((f"{chain[-1]}->output", chain[-1], "output", None, full_out))
    return Net(d, p, tuple(nodes), tuple(edges), ng, {})
