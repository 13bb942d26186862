"""A GDLN as a graph (docs/theory.md#race; Saxe, Sodhani & Lewallen 2022): the one model of theorykit.

A network is a set of **nodes** (layers of units) and **edges** (weight matrices):

* a node has a ``width`` and a gate per datapoint (``active``; default: on everywhere);
* an edge ``u -> v`` has a weight matrix ``W_e`` (``width(v) × width(u)``), an optional gate
  per datapoint, an optional ``init_scale`` and, from ``input`` or to ``output``, the ``rows``
  it reads or writes;
* forward pass: ``h_v = g_v ⊙ Σ_{e: u→v} g_e ⊙ (W_e h_u)``; the output sums its incoming
  edges in the same way, each edge into its own rows;
* a **pathway** is a path from ``input`` to ``output``; its gate is the product of the gates
  on it, its map the product of its edges.

The pathway form of a spec (:class:`~theorykit.spec.gating.GDLNSpec`) is shorthand for one private
chain per pathway (:func:`graph_from_pathways`). One :class:`GraphSpec` feeds the derivation
(:meth:`GraphSpec.pathways`, :meth:`GraphSpec.shared_edges`) and the simulation
(:mod:`theorykit.sim.engine`) alike, so the two cannot drift.

A **schedule** (the staged training of the paper's published code) is a list of
:class:`Group` s: edges that start training at a given step, each group fitting either the
targets or the residual of named groups (``Y − stop_gradient(their output)``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping

from ..errors import SpecError
from .fields import NAME_MAX_LEN, entry, integer, label, node_label, real, short_repr
from .gating import (GDLNSpec, Pathway, TrainedSpec, Training, chain_node_names, check_gates, check_indices,
                     pathways_html, positive_int)
from .ranges import LR_MAX
from .task import Task

__all__ = ["Node", "Edge", "Group", "GraphSpec", "graph_from_pathways", "edge_key", "scaled", "INPUT", "OUTPUT"]

INPUT, OUTPUT = "input", "output"
#: most paths from input to output a graph may have (each is a pathway of the derivation)
MAX_PATHS = 10_000
#: most weight layers on one path (a pathway has depth 2 or 3: theorykit.spec.gating.Pathway)
MAX_DEPTH = 3
#: keys each table of a graph spec admits (docs/specs.md lists each one)
NODE_KEYS = ("name", "width", "active")
EDGE_KEYS = ("from", "to", "active", "init_scale", "rows")
SCHEDULE_KEYS = ("name", "edges", "start", "fit")


def edge_key(src: str, dst: str) -> str:
    """The name of edge ``src -> dst`` (also its key in weight files): ``"src->dst"``."""
    return f"{src}->{dst}"


@dataclass(frozen=True)
class Node:
    """A layer of ``width`` units, gated per datapoint by ``active`` (a 0/1 tuple, or ``"all"``)."""

    name: str
    width: int
    active: object = "all"


@dataclass(frozen=True)
class Edge:
    """A weight matrix from node ``src`` to node ``dst``.

    ``active``: gate per datapoint (``"all"`` by default). ``init_scale``: std of its random
    initial weights (default: ``training.init_std``). ``rows``: from ``input``, the input rows
    it reads; to ``output``, the output rows it writes (``"all"`` by default).
    """

    src: str
    dst: str
    active: object = "all"
    init_scale: float | None = None
    rows: object = "all"

    @property
    def key(self) -> str:
        """The edge's key, ``"src->dst"`` (the name of its weights in ``params``)."""
        return edge_key(self.src, self.dst)


@dataclass(frozen=True)
class Group:
    """A schedule group: ``edges`` train from step ``start`` on; the group's output (the sum of
    its edges into ``output``) fits the targets (``fit = ()``) or the residual
    ``Y − stop_gradient(Σ output of the groups named in fit)``."""

    name: str
    edges: tuple
    start: int = 0
    fit: tuple = ()


@dataclass(frozen=True)
class GraphPathway:
    """A path from input to output: its name, its edges (keys, in order) and its pathway data."""

    name: str
    edges: tuple
    pathway: Pathway


@dataclass(frozen=True, repr=False)
class GraphSpec(TrainedSpec):
    """A task, a GDLN graph and training settings (and optionally a schedule).

    Nodes and edges are checked on construction: every error names its field
    (``nodes[2].width``, ``edges[0].to``) and says how to fix it.
    """

    task: Task
    nodes: tuple
    edges: tuple
    training: Training = field(default_factory=Training)
    name: str = "graph"
    schedule: tuple = ()
    path_names: Mapping = field(default_factory=dict)   # tuple of hidden nodes -> pathway name

    def __post_init__(self):
        P, d, p = self.task.P, self.task.d, self.task.p
        _check_items(self.nodes, Node, "nodes", "Node(\"h1\", 64)")
        _check_items(self.edges, Edge, "edges", "Edge(\"input\", \"h1\")")
        _check_items(self.schedule, Group, "schedule", "Group(\"common\", (\"input->h1\", \"h1->output\"))")
        nodes, names = [], set()
        if not self.nodes:
            raise SpecError("nodes", "no node declared", "add [[nodes]] tables (name, width)")
        for i, n in enumerate(self.nodes):
            f = f"nodes[{i}]"
            node_label(n.name, f"{f}.name", "name = \"h1\" (at most 64 printable characters)")
            if n.name in names:
                raise SpecError(f"{f}.name", f"node {n.name!r} is declared twice", "give each node its own name")
            names.add(n.name)
            nodes.append(replace(n, width=positive_int(n.width, f"{f}.width", "width = 64"),
                                 active=check_gates("all" if n.active is None else n.active, P, f"{f}.active")))
        edges, keys = [], set()
        if not self.edges:
            raise SpecError("edges", "no edge declared", "add [[edges]] tables (from, to)")
        for i, e in enumerate(self.edges):
            f = f"edges[{i}]"
            if e.src == OUTPUT:             # before the unknown-node checks, which would name it unknown
                raise SpecError(f"{f}.from", "an edge cannot leave the output", "edges run from input towards output")
            if e.dst == INPUT:
                raise SpecError(f"{f}.to", "an edge cannot enter the input", "edges run from input towards output")
            if e.src != INPUT and e.src not in names:
                raise SpecError(f"{f}.from", f"unknown node {e.src!r}", f"use \"input\" or one of {sorted(names)}")
            if e.dst != OUTPUT and e.dst not in names:
                raise SpecError(f"{f}.to", f"unknown node {e.dst!r}", f"use \"output\" or one of {sorted(names)}")
            if e.key in keys:
                raise SpecError(f, f"edge {e.key} is declared twice", "declare each edge once")
            keys.add(e.key)
            rows = e.rows
            if e.src == INPUT or e.dst == OUTPUT:
                size = d if e.src == INPUT else p
                what = "input row" if e.src == INPUT else "output row"
                if e.src == INPUT and e.dst == OUTPUT:
                    raise SpecError(f, "an edge from input straight to output has no hidden layer",
                                    "route it through a node")
                rows = check_indices("all" if rows is None else rows, size, f"{f}.rows", what)
            elif rows is not None and not (isinstance(rows, str) and rows == "all"):   # an array: no ``in``
                raise SpecError(f"{f}.rows", "rows apply only to edges from input or to output",
                                "drop rows here")
            else:
                rows = None
            scale = e.init_scale
            if scale is not None:       # docs/specs.md: 0 < σ < 1e6
                scale = real(scale, f"{f}.init_scale", lo=0.0, hi=1e6, lo_open=True, hi_open=True,
                             fix="a positive number below 1e6, e.g. init_scale = 0.001")
            active = check_gates("all" if e.active is None else e.active, P, f"{f}.active")
            edges.append(replace(e, active=active, rows=rows, init_scale=scale))
        object.__setattr__(self, "nodes", tuple(nodes))
        object.__setattr__(self, "edges", tuple(edges))
        self._check_acyclic_and_used()
        object.__setattr__(self, "schedule", tuple(self._check_schedule()))
        self._check_training()
        for gp in self.pathways:
            if not any(gp.pathway.active):
                raise SpecError("nodes", f"pathway {gp.name} is off on every datapoint (its gates never overlap)",
                                "check the node and edge gates along it")

    def _repr_html_(self):
        """In Jupyter, as a pathway spec: the one-line summary, then a table of the pathways read off the
        graph (gates per datapoint, rows read and written, width: the narrowest node, depth) and the edges
        of each, those it shares with another pathway marked ``*``."""
        shared = self.shared_edges()
        return pathways_html(repr(self), [gp.pathway for gp in self.pathways], self.task.P,
                             [", ".join(k + ("*" if k in shared else "") for k in gp.edges) for gp in self.pathways])

    # -- structure ---------------------------------------------------------------------------
    @property
    def node(self) -> dict:
        """The hidden nodes by name (a dict name → :class:`Node`)."""
        return {n.name: n for n in self.nodes}

    def width(self, name: str) -> int:
        """The width of node ``name``: the task's input or output dimension for ``input`` and ``output``."""
        if name == INPUT:
            return self.task.d
        if name == OUTPUT:
            return self.task.p
        return self.node[name].width

    def edge_shape(self, e: Edge) -> tuple:
        """``(rows, cols)`` of ``W_e``: the destination's width (or rows written) × the source's."""
        rows = len(e.rows) if e.dst == OUTPUT else self.width(e.dst)
        cols = len(e.rows) if e.src == INPUT else self.width(e.src)
        return rows, cols

    def node_field(self, name: str) -> str:
        """The spec field of a node, ``nodes[i]`` (``task`` for the input and output)."""
        for i, n in enumerate(self.nodes):
            if n.name == name:
                return f"nodes[{i}]"
        return "task"

    def pathway_field(self, i: int) -> str:
        """The spec field an error about pathway ``i`` names: its narrowest hidden node, which holds
        the pathway's width and (with its edges) its gate."""
        gp = self.pathways[i]
        hidden = self.nodes_of(gp.edges)
        return self.node_field(min(hidden, key=self.width)) if hidden else "edges"

    @property
    def order(self) -> list:
        """Hidden nodes in topological order (from the input)."""
        return self._topo

    def _check_acyclic_and_used(self):
        succ = {n.name: [] for n in self.nodes}
        succ[INPUT] = []
        indeg = {n.name: 0 for n in self.nodes}
        for e in self.edges:
            if e.dst != OUTPUT and e.src != INPUT:
                succ[e.src].append(e.dst)
                indeg[e.dst] += 1
        order, ready = [], [n.name for n in self.nodes if indeg[n.name] == 0]
        while ready:
            v = ready.pop(0)
            order.append(v)
            for w in succ[v]:
                indeg[w] -= 1
                if indeg[w] == 0:
                    ready.append(w)
        if len(order) < len(self.nodes):
            # Kahn's order leaves the cycles and every node downstream of one: name only the nodes
            # on a cycle (each reaches itself), not those a cycle feeds
            left = {v for v, k in indeg.items() if k > 0}
            cyc = sorted(v for v in left if _reaches(v, v, succ, left))
            raise SpecError("edges", f"the edges form a cycle through {cyc}", "a GDLN is feed-forward: remove an edge")
        object.__setattr__(self, "_topo", order)
        if not self.pathways:               # before the per-node check, which would blame nodes[0]
            raise SpecError("edges", "no path runs from input to output", "connect input to output through the nodes")
        used = {v for gp in self.pathways for v in self.nodes_of(gp.edges)}
        for i, n in enumerate(self.nodes):
            if n.name not in used:
                raise SpecError(f"nodes[{i}]", f"node {n.name!r} lies on no path from input to output",
                                "connect it (an edge in and an edge out) or remove it")
        # every edge is then on a path too: its source is reached from input, and its end reaches output

    def _check_paths(self):
        """Each path is a pathway of the derivation (:meth:`as_pathway_spec`): at most MAX_DEPTH weight
        layers, and a name (its hidden nodes joined by "/") of at most NAME_MAX_LEN characters that no
        other path has. Each error names the graph's own field (a graph has no pathways[i] to name).
        The graph itself (its net, a simulation from random or given weights) has no such limits."""
        index = {e.key: i for i, e in enumerate(self.edges)}
        seen = {}
        for gp in self.pathways:
            hidden = self.nodes_of(gp.edges)
            route = " -> ".join([INPUT, *hidden, OUTPUT])
            if len(gp.edges) > MAX_DEPTH:
                k = gp.edges[MAX_DEPTH - 1]         # the edge into the third hidden node
                raise SpecError(f"edges[{index[k]}]",
                                f"edge {k} makes the path {route} {len(gp.edges)} weight layers deep; the derivation "
                                f"and the size checks take pathways of at most {MAX_DEPTH} (two hidden nodes)",
                                "route every path from input to output through at most two hidden nodes")
            if len(gp.name) > NAME_MAX_LEN:
                longest = max(hidden, key=len)
                raise SpecError(f"{self.node_field(longest)}.name",
                                f"the path {route} is named {gp.name!r} (its hidden nodes joined by '/'): "
                                f"{len(gp.name)} characters, more than {NAME_MAX_LEN}",
                                "shorten the names of the nodes on it")
            other = seen.get(gp.name)
            if other is not None:   # two paths join to one name only through a "/" in a node's name
                slashed = next((h for h in (*other, *hidden) if "/" in h), None)
                field_name = f"{self.node_field(slashed)}.name" if slashed is not None else "nodes"
                raise SpecError(field_name,
                                f"the paths {' -> '.join([INPUT, *other, OUTPUT])} and {route} are both named "
                                f"{gp.name!r} (pathway names join the hidden nodes with '/')",
                                f"drop the '/' from the node name {slashed!r}" if slashed is not None
                                else "give each path its own name")
            seen[gp.name] = hidden

    @staticmethod
    def nodes_of(keys) -> list:
        """The hidden nodes a path (its edge keys, in order) passes through."""
        return [k.split("->")[1] for k in keys[:-1]]

    @property
    def pathways(self) -> tuple:
        """Every path from input to output, as :class:`GraphPathway` (depth-first, in edge order)."""
        cached = self.__dict__.get("_paths")
        if cached is not None:
            return cached
        out_edges = {}
        for e in self.edges:
            out_edges.setdefault(e.src, []).append(e)
        n_paths = self._count_paths()
        if n_paths > MAX_PATHS:
            raise SpecError("edges", f"the graph has {n_paths} paths from input to output (at most {MAX_PATHS})",
                            "use fewer edges: the derivation works pathway by pathway")
        # depth-first with an explicit stack (a recursive walk hit Python's recursion limit on a
        # chain of ~1000 nodes): each entry is a partial path, its last edge the one to follow
        paths, stack = [], [[e] for e in reversed(out_edges.get(INPUT, []))]
        while stack:
            acc = stack.pop()
            e = acc[-1]
            if e.dst == OUTPUT:
                paths.append(acc)
            elif e.dst not in (x.dst for x in acc[:-1]):
                stack.extend(acc + [x] for x in reversed(out_edges.get(e.dst, [])))
        P = self.task.P
        node = self.node
        result = []
        for es in paths:
            gate = [1] * P
            for e in es:
                gate = [a * b for a, b in zip(gate, e.active)]
                if e.dst != OUTPUT:
                    gate = [a * b for a, b in zip(gate, node[e.dst].active)]
            hidden = tuple(e.dst for e in es[:-1])
            name = self.path_names.get(hidden, "/".join(hidden))
            width = min(node[h].width for h in hidden)
            pw = Pathway(name, tuple(gate), es[0].rows, es[-1].rows, width, len(es))
            result.append(GraphPathway(name, tuple(e.key for e in es), pw))
        result = tuple(result)
        object.__setattr__(self, "_paths", result)
        return result

    def _count_paths(self) -> int:
        """The number of paths from input to output, counted in topological order (no path is listed)."""
        order = self.__dict__.get("_topo")
        if order is None:
            return 0
        count = {INPUT: 1}
        into = {}
        for e in self.edges:
            into.setdefault(e.dst, []).append(e.src)
        for v in order + [OUTPUT]:
            count[v] = sum(count.get(u, 0) for u in into.get(v, []))
        return count[OUTPUT]

    def shared_edges(self) -> dict:
        """Edge key → names of the pathways that run through it, for edges on more than one path."""
        on = {}
        for gp in self.pathways:
            for k in gp.edges:
                on.setdefault(k, []).append(gp.name)
        return {k: v for k, v in on.items() if len(v) > 1}

    @property
    def private_chains(self) -> bool:
        """True when no edge is shared, every hidden node is on one path and gated as a whole."""
        return not self.shared_edges()

    def as_pathway_spec(self) -> GDLNSpec:
        """The pathway form (one :class:`~theorykit.spec.gating.Pathway` per path). Exact for the
        derivation whenever the pathways share no edge; with shared edges it is the list of
        pathways whose coupling :mod:`theorykit.theory.flow` integrates."""
        self._check_paths()
        return _GraphPathways(self.task, tuple(gp.pathway for gp in self.pathways), self.training, self.name)

    def size_view(self) -> GDLNSpec:
        """The pathway form with each pathway's ``hidden`` the widest node on it: what the size
        checks of :mod:`theorykit.spec.limits` estimate (an upper bound for the graph's cost)."""
        self._check_paths()
        pws = tuple(replace(gp.pathway, hidden=max(map(self.width, self.nodes_of(gp.edges))))
                    for gp in self.pathways)
        return _GraphPathways(self.task, pws, self.training, self.name)

    def edge_init_scales(self, default: float) -> dict:
        """Each edge's σ of a random start by key: its ``init_scale``, or ``default`` where it has none."""
        return {e.key: (e.init_scale if e.init_scale is not None else default) for e in self.edges}

    @property
    def hidden_total(self) -> int:
        """The total hidden width: the sum of the hidden nodes' widths."""
        return sum(n.width for n in self.nodes)

    def _check_schedule(self):
        out, names = [], set()
        keys = {e.key for e in self.edges}
        for i, g in enumerate(self.schedule):
            f = f"schedule[{i}]"
            label(g.name, f"{f}.name", "name = \"common\" (at most 64 printable characters)")
            if g.name in names:
                raise SpecError(f"{f}.name", f"group {g.name!r} is declared twice", "give each group its own name")
            integer(g.start, f"{f}.start", lo=0, fix="a step >= 0, e.g. start = 500")
            _names_list(g.edges, f"{f}.edges", "edge", "(\"input->h1\", \"h1->output\")")
            if not g.edges:
                raise SpecError(f"{f}.edges", "lists no edge", "list the edges it trains, e.g. [\"h1->m0\"]")
            for k in g.edges:
                if k not in keys:
                    raise SpecError(f"{f}.edges", f"unknown edge {k!r}", f"use one of {sorted(keys)}")
            _no_repeats(g.edges, f"{f}.edges", "edge")
            if not isinstance(g.fit, str):      # one group's name stands for itself; "targets" for the targets
                _names_list(g.fit, f"{f}.fit", "group", "(\"common\",)")
            fit = (g.fit,) if isinstance(g.fit, str) and g.fit != "targets" else \
                () if g.fit in ("targets", None) else tuple(g.fit)
            for h in fit:
                if h not in names:
                    above = [o.name for o in out]
                    raise SpecError(f"{f}.fit", f"{h!r} is not an earlier group",
                                    "fit \"targets\" or the residual of groups declared above"
                                    + (f" ({above})" if above else " (none is, above this one)"))
            _no_repeats(fit, f"{f}.fit", "group")    # a repeat would subtract that group's output twice
            names.add(g.name)
            out.append(replace(g, edges=tuple(g.edges), fit=fit))
        if out:
            covered = {k for g in out for k in g.edges}
            missing = [e.key for e in self.edges if e.key not in covered]
            if missing:             # (so some group writes to the output: every path ends in an output edge)
                raise SpecError("schedule", f"edges in no group: {missing}", "add each edge to a group")
        return out


class _GraphPathways(GDLNSpec):
    """The pathway form of a graph (:meth:`GraphSpec.as_pathway_spec`). Its pathways are the graph's
    own paths, not chains to be built, so their names need leave no room for chain layers ``q_2``:
    a graph may have nodes ``y`` and ``y_2``, and paths ``x/y`` and ``x/y_2``."""

    def _check_chain_names(self, checked) -> None:
        pass


def _check_items(items, cls, field_name: str, example: str) -> None:
    """``items`` must be a list or tuple of ``cls`` (a tuple ``("input", "h1")`` for an Edge, a
    string for a Node): the error names the entry, before any attribute of it is read."""
    if not isinstance(items, (list, tuple)):
        raise SpecError(field_name, f"expected a list of {cls.__name__}, got {type(items).__name__} "
                        f"{short_repr(items)}", f"pass a list, e.g. [{example}]")
    for i, x in enumerate(items):
        if not isinstance(x, cls):
            article = "an" if cls.__name__[0] in "AEIOU" else "a"
            raise SpecError(f"{field_name}[{i}]", f"expected {article} {cls.__name__}, got {type(x).__name__} "
                            f"{short_repr(x)}", f"write {example}")


def _reaches(src: str, dst: str, succ: Mapping, within: set) -> bool:
    """Whether a path of one edge or more runs from ``src`` to ``dst`` through the nodes ``within``."""
    seen, stack = set(), [w for w in succ[src] if w in within]
    while stack:
        v = stack.pop()
        if v == dst:
            return True
        if v not in seen:
            seen.add(v)
            stack.extend(w for w in succ[v] if w in within)
    return False


def _names_list(names, field_name: str, what: str, example: str) -> None:
    """A schedule group's ``edges`` (or ``fit``) must be a list or tuple of names (or None): a string is
    refused by name, where iterating it read one edge per character ('unknown edge 'i'')."""
    if names is None:
        return
    if isinstance(names, str):
        raise SpecError(field_name, f"needs a list of {what} names, got the string {names!r}",
                        f"put it in a tuple: ({names!r},)")
    if not isinstance(names, (list, tuple)) or not all(isinstance(x, str) for x in names):
        raise SpecError(field_name, f"needs a list of {what} names, got {short_repr(names)}", f"e.g. {example}")


def _no_repeats(names, field_name, what):
    seen = set()
    for x in names:
        if x in seen:
            raise SpecError(field_name, f"{what} {x!r} is listed twice", f"list each {what} once")
        seen.add(x)


def graph_from_pathways(spec: GDLNSpec | GraphSpec) -> GraphSpec:
    """The graph of a pathway spec: one private chain per pathway.

    A depth-2 pathway ``p`` becomes node ``p`` (its ``hidden`` units, gated by its gate) with
    edges ``input->p`` (reading its input rows) and ``p->output`` (writing its output rows);
    a depth-L pathway has nodes ``p``, ``p_2``, …, ``p_{L-1}``. The gate sits on every hidden
    node of the chain; a per-datapoint gate commutes with a linear map, so the output is the
    pathway form's ``g_p ⊙ (W_p x)``.
    """
    if isinstance(spec, GraphSpec):
        return spec
    if not isinstance(spec, GDLNSpec):
        raise SpecError("spec", f"expected a GDLNSpec, got {type(spec).__name__}",
                        "pass a spec: GDLNSpec(task, pathways) or load_spec(path)")
    nodes, edges, names = [], [], {}
    for p in spec.pathways:
        chain = chain_node_names(p)
        names[tuple(chain)] = p.name
        nodes += [Node(h, p.hidden, p.active) for h in chain]
        edges.append(Edge(INPUT, chain[0], rows=list(p.inputs)))
        edges += [Edge(a, b) for a, b in zip(chain[:-1], chain[1:])]
        edges.append(Edge(chain[-1], OUTPUT, rows=list(p.outputs)))
    return GraphSpec(spec.task, tuple(nodes), tuple(edges), spec.training, spec.name, (), names)


def parse_graph(task: Task, nodes, edges, schedule, training: Training, name: str) -> GraphSpec:
    """A :class:`GraphSpec` from parsed TOML tables (``[[nodes]]``, ``[[edges]]``, ``[[schedule]]``)."""
    if not isinstance(nodes, list) or not nodes:
        raise SpecError("nodes", "must be a non-empty array of tables", "write [[nodes]] blocks with name and width")
    if not isinstance(edges, list) or not edges:
        raise SpecError("edges", "must be a non-empty array of tables", "write [[edges]] blocks with from and to")
    ns, es, gs = [], [], []
    for i, it in enumerate(nodes):
        f = f"nodes[{i}]"
        it = entry(it, f, NODE_KEYS, ("name", "width"), "every node needs a name and a width")
        act = it.get("active", "all")
        ns.append(Node(it["name"], it["width"], tuple(act) if isinstance(act, list) else act))
    for i, it in enumerate(edges):
        f = f"edges[{i}]"
        it = entry(it, f, EDGE_KEYS, ("from", "to"), "every edge needs from and to")
        for key in ("from", "to"):
            if not isinstance(it[key], str):
                raise SpecError(f"{f}.{key}", f"needs a node name (string), got {it[key]!r}", "e.g. from = \"input\"")
        act = it.get("active", "all")
        es.append(Edge(it["from"], it["to"], tuple(act) if isinstance(act, list) else act, it.get("init_scale"),
                       it.get("rows", "all")))
    if schedule is not None:
        if not isinstance(schedule, list) or not schedule:
            raise SpecError("schedule", "must be a non-empty array of tables", "write [[schedule]] blocks")
        for i, it in enumerate(schedule):
            f = f"schedule[{i}]"
            it = entry(it, f, SCHEDULE_KEYS, ("name", "edges"), "every group needs a name and its edges")
            ed = it["edges"]
            if not isinstance(ed, list) or not all(isinstance(x, str) for x in ed):
                raise SpecError(f"{f}.edges", f"needs a list of edge names, got {ed!r}", "e.g. edges = [\"h1->m0\"]")
            fit = it.get("fit", "targets")
            if not (isinstance(fit, str) or (isinstance(fit, list) and all(isinstance(x, str) for x in fit))):
                raise SpecError(f"{f}.fit", f"needs \"targets\" or a list of group names, got {fit!r}",
                                "fit = \"targets\" or fit = [\"common\"]")
            gs.append(Group(it["name"], tuple(ed), it.get("start", 0), fit))
    return GraphSpec(task, tuple(ns), tuple(es), training, name, tuple(gs))


def scaled(graph, factor: float, time: int):
    """The graph at ``factor`` × its widths with σ × 1/√factor (σ√H kept), η × ``time``, steps and
    schedule starts / ``time`` (the same time in units of τ). η × ``time`` is the scaled run's learning
    rate, so it is held to the rule of every learning rate (:data:`~theorykit.spec.ranges.LR_MAX`)."""
    if factor == 1.0 and time == 1:
        return graph
    if graph.training.lr * time > LR_MAX:
        raise SpecError("time", f"the scaled learning rate η × time = {graph.training.lr:g} × {time} = "
                        f"{graph.training.lr * time:g} is over {LR_MAX:g}",
                        f"give a time of at most {math.floor(LR_MAX / graph.training.lr)}, or a smaller training.lr")
    k = 1.0 / math.sqrt(factor)
    nodes = tuple(replace(n, width=max(1, int(round(n.width * factor)))) for n in graph.nodes)
    edges = tuple(replace(e, init_scale=None if e.init_scale is None else e.init_scale * k,
                          rows=list(e.rows) if e.rows is not None else "all") for e in graph.edges)
    tr = replace(graph.training, lr=graph.training.lr * time, steps=graph.training.steps // time,
                 init_std=graph.training.init_std * k)
    sched = tuple(replace(g, start=g.start // time) for g in graph.schedule)
    return replace(graph, nodes=nodes, edges=edges, training=tr, schedule=sched)
