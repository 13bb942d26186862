"""Gating: pathways of a gated deep linear network (GDLN) and the spec that holds them.

A **pathway** is a path from input rows to output rows through one layer of hidden units;
its **gate** is 0 or 1 on each datapoint. One :class:`GDLNSpec` (task + pathways +
training settings) is the single source for both the derivation and the simulation, so
the two cannot drift apart.
"""
from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping, Sequence

import numpy as np
import sympy as sp

from ..errors import SpecError, keyword_typos
from ..html import html_escape
from ..io import counted
from .fields import (NAME_MAX_LEN, init_scale, integer, label, flow_tau, learning_rate, loss_factor, loss_name, node_label,
                     fmt, short_repr, type_name)
from . import ranges      # MAX_FAMILIES read when a check runs: the one bound, stated in spec.ranges
from .ranges import MAX_STEPS, family_count, max_family_contexts
from .task import Task

__all__ = ["Pathway", "Training", "GDLNSpec", "TrainedSpec", "check_indices", "xor_relns", "context_pathways", "context_name", "lemma41_gatings",
           "context_family", "family_masks"]


@dataclass(frozen=True)
class Pathway:
    """One GDLN pathway.

    Attributes
    ----------
    name: label used in reports.
    active: gate per datapoint, a tuple of 0/1 of length P.
    inputs: input row indices the pathway sees (default ``"all"``, as in a spec file).
    outputs: output row indices the pathway writes to (default ``"all"``).
    hidden: number of hidden units (used by the simulation only).
    depth: number of weight layers (2: one hidden layer).
    """

    name: str
    active: tuple
    inputs: tuple = "all"
    outputs: tuple = "all"
    hidden: int = 16
    depth: int = 2

    def gate_matrix(self) -> sp.Matrix:
        """The P × P diagonal 0/1 matrix of ``active`` (SymPy)."""
        return sp.diag(*self.active)

    def resolve(self, task: Task, field: str = "pathway") -> "Pathway":
        """This pathway checked against ``task``, with "all" expanded to indices."""
        act = check_gates(self.active, task.P, field + ".active", f"pathway {self.name!r} is active on no datapoint",
                          "pathway on")
        ins = check_indices(self.inputs, task.d, field + ".inputs", "input row")
        outs = check_indices(self.outputs, task.p, field + ".outputs", "output row")
        positive_int(self.hidden, field + ".hidden", "hidden = 32")
        # depth="2" was answered "depth '2' is not supported (fix: use 2 ...)"; the rule of a spec file's depth
        depth = integer(self.depth, field + ".depth", lo=2, hi=3, fix="use 2 (one hidden layer) or 3, e.g. depth=2")
        node_label(self.name, field + ".name", "name = \"common\"")
        return replace(self, active=act, inputs=ins, outputs=outs, depth=depth)


@dataclass(frozen=True)
class Training:
    """Gradient-descent settings.

    lr: step size η. loss: ``"mean"`` (L = 1/(2P) Σ‖·‖², τ = 1/η) or ``"sum"``
    (L = ½ Σ‖·‖², the paper's published code, τ = 1/(Pη)). a0: initial mode strength for
    the closed form and the aligned initialisation. init_std: std of random initial weights.
    """

    lr: float = 0.05
    loss: str = "mean"
    a0: float = 1e-3
    init_std: float = 0.01
    steps: int = 2000

    def __post_init__(self):
        """Every setting is checked where it is made, so ``Training(lr=-1)`` fails at once, naming
        the field (spec files also check the ranges of docs/specs.md as they are read). The learning
        rate is held to the one rule of every entry point (:func:`~theorykit.spec.fields.learning_rate`)."""
        learning_rate(self.lr, "training.lr", "lr = 0.05")
        for name, example in (("a0", "a0 = 0.001"), ("init_std", "init_std = 0.01")):
            init_scale(getattr(self, name), f"training.{name}", example)      # the spec file's range
        integer(self.steps, "training.steps", lo=1, hi=MAX_STEPS,     # the one bound of a spec's steps and simulate's
                fix=f"a positive integer (at most {fmt(MAX_STEPS)}), e.g. steps = 2000")
        loss_name(self.loss, "training.loss", "write loss = \"mean\" or \"sum\"")


Training.__init__ = keyword_typos(Training.__init__)       # Training(lrate=0.1): "did you mean lr=?"


def chain_node_names(p: "Pathway") -> list:
    """The hidden nodes of pathway ``p`` as a chain: ``p``, then ``p_2``, …, ``p_{L-1}`` for depth L."""
    return [p.name] + [f"{p.name}_{j}" for j in range(2, p.depth)]


def check_gates(act, P, field, off="is off on every datapoint", on="on", integers=(numbers.Integral,)):
    """One 0/1 gate per datapoint, from a list (or a 1-d numpy array) or \"all\", checked: ``off`` is the
    problem named when every gate is 0, ``on`` what a 1 turns on, ``integers`` the types a gate may have."""
    act = _listed(act)
    if isinstance(act, str):
        if act != "all":
            raise SpecError(field, f"expected a list of gates or \"all\", got {act!r}",
                            f"give a list of {counted(P, 'zero or one', 'zeros and ones')}, or \"all\"")
        return (1,) * P
    if not isinstance(act, (list, tuple)) or len(act) != P:
        raise SpecError(field, f"needs one gate per datapoint ({P}), got {act!r}",
                        f"give a list of {counted(P, 'zero or one', 'zeros and ones')}, or \"all\"")
    for j, g in enumerate(act):
        if isinstance(g, bool) or not isinstance(g, integers) or g not in (0, 1):
            raise SpecError(f"{field}[{j}]", f"gate {short_repr(g)} (datapoint {j}) is not 0 or 1",
                            f"gates are binary: 1 = {on} for that datapoint")
    if not any(act):
        raise SpecError(field, off, "turn it on somewhere or remove it")
    return tuple(int(g) for g in act)


def positive_int(v, field_name, example):
    """:func:`~theorykit.spec.fields.integer` at least 1, the fix an ``example``."""
    return integer(v, field_name, lo=1, fix=f"e.g. {example}")


def check_indices(vals, size, field, what):
    """Row indices from \"all\" or a list (or a 1-d numpy array), checked: in range, not repeated, sorted."""
    vals = _listed(vals)
    if isinstance(vals, str):
        if vals == "all":
            return tuple(range(size))
        raise SpecError(field, f"expected \"all\" or a list of {what} indices, got {vals!r}",
                        "write \"all\" or e.g. [0, 1]")
    if not isinstance(vals, (list, tuple)) or not vals:
        raise SpecError(field, f"expected \"all\" or a non-empty list of {what} indices, got {vals!r}",
                        "write \"all\" or e.g. [0, 1]")
    for j, v in enumerate(vals):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or not 0 <= v < size:
            raise SpecError(f"{field}[{j}]", f"{v!r} is not an {what} index in 0..{size - 1}", f"use integers below {size}")
    if len(set(vals)) != len(vals):
        raise SpecError(field, f"repeated {what} index in {vals!r}", "list each index once")
    return tuple(sorted(int(v) for v in vals))


def _listed(v):
    """A 1-d numpy array as the list of its (Python) numbers; anything else as it is."""
    return v.tolist() if isinstance(v, np.ndarray) and v.ndim == 1 else v


def check_pathway_list(pathways) -> tuple:
    """``pathways`` as a tuple of :class:`Pathway`; a single pathway, a dict of ReLNs (what
    :func:`xor_relns` returns) or anything else is refused, naming ``pathways``."""
    fix = "pass a list of Pathway, e.g. xor_relns()[\"linear\"]"
    if isinstance(pathways, Mapping):
        raise SpecError("pathways", f"got a dict (keys {sorted(map(str, pathways))[:4]}), not a list of pathways",
                        "pick one ReLN from it, e.g. xor_relns()[\"linear\"]")
    if isinstance(pathways, Pathway) or isinstance(pathways, str) or not isinstance(pathways, Iterable):
        raise SpecError("pathways", f"expected a list of Pathway, got {type_name(pathways)} {short_repr(pathways)}",
                        fix)
    paths = tuple(pathways)
    for i, p in enumerate(paths):
        if not isinstance(p, Pathway):
            raise SpecError(f"pathways[{i}]", f"expected a Pathway, got {type_name(p)} {short_repr(p)}", fix)
    return paths


class TrainedSpec:
    """What every spec (pathway form or graph) derives from its task and training settings."""

    @property
    def tau(self) -> float:
        """Time constant of the gradient flow in units of steps: 1/η (mean) or 1/(Pη) (sum)."""
        return flow_tau(self.training.lr, self.training.loss, self.task.P)

    @property
    def loss_factor(self) -> int:
        """Reported loss / mean-loss: P for a summed loss, 1 for a mean loss."""
        return loss_factor(self.training.loss, self.task.P)

    def _check_training(self) -> Training:
        """The spec's training settings, which must be a :class:`Training` (it checks its own fields)."""
        if not isinstance(self.training, Training):
            raise SpecError("training", f"expected a Training, got {type(self.training).__name__}",
                            "pass e.g. Training(lr=0.05, loss=\"mean\")")
        return self.training

    def subs(self, values: Mapping, check: bool = True):
        """The spec with the task's symbols replaced by values (``check``: as :meth:`Task.keyed`)."""
        return replace(self, task=self.task.subs(values, check))

    def __repr__(self):     # one line: the dataclass's own printed the task's matrices (7,000 characters
        t = self.task       # and 71 lines for examples/contexts_double.toml)
        graph = "nodes" in self.__dataclass_fields__     # a GraphSpec: its nodes and edges, not its pathways
        names = [n.name for n in self.nodes] if graph else [p.name for p in self.pathways]
        shown = ", ".join(map(repr, names[:6])) + (f", … ({len(names)} in all)" if len(names) > 6 else "")
        parts = f"nodes [{shown}], {len(self.edges)} edges" if graph else f"pathways [{shown}]"
        if getattr(self, "schedule", ()):
            parts += f", schedule [{', '.join(repr(g.name) for g in self.schedule)}]"
        syms = f"; symbols {', '.join(t.symbols)}" if t.symbols else ""
        return (f"{type(self).__name__}({self.name!r}, task {t.name!r} (X {t.d} × {t.P}, Y {t.p} × {t.P}{syms}), "
                f"{parts}, {self.training!r})")


@dataclass(frozen=True, repr=False)
class GDLNSpec(TrainedSpec):
    """A task, its pathways and training settings: the single source of derivation and simulation.

    Example
    -------
    >>> from theorykit import xor_margin, xor_relns, GDLNSpec
    >>> spec = GDLNSpec(xor_margin(), xor_relns()["linear"])
    >>> [p.name for p in spec.pathways]
    ['positive', 'negative']
    """

    task: Task
    pathways: tuple
    training: Training = field(default_factory=Training)
    name: str = "spec"

    def _repr_html_(self):
        """In Jupyter: the one-line summary, then a table of the pathways (gates per datapoint as 0/1)."""
        return pathways_html(repr(self), self.pathways, self.task.P)

    def __post_init__(self):
        if not isinstance(self.task, Task):
            raise SpecError("task", f"expected a Task, got {type_name(self.task)} {short_repr(self.task)}",
                            "e.g. tk.xor_margin(0.5), or tk.Task(X, Y) for data (datapoints as columns)")
        paths = check_pathway_list(self.pathways)
        object.__setattr__(self, "pathways", paths)
        label(self.name, "name", "a short string, e.g. name=\"my-spec\"")
        if not paths:
            raise SpecError("pathways", "no pathway declared", "add at least one [[pathways]] table")
        names = [p.name for p in paths]
        if len(set(names)) != len(names):
            j = next(i for i, n in enumerate(names) if n in names[:i])
            raise SpecError(f"pathways[{j}].name", f"pathway names repeat: {names}", "give each pathway its own name")
        checked = [p.resolve(self.task, f"pathways[{i}]") for i, p in enumerate(paths)]
        self._check_chain_names(checked)
        object.__setattr__(self, "pathways", tuple(checked))
        self._check_training()

    def _check_chain_names(self, checked) -> None:
        """The pathways are built as chains (:func:`theorykit.spec.graph.graph_from_pathways`): the inner
        layers of a deep pathway p are nodes p_2, ..., p_{L-1}, so no other pathway may bear those names."""
        owner = {p.name: i for i, p in enumerate(checked)}
        for i, p in enumerate(checked):
            for j, inner in enumerate(chain_node_names(p)[1:], start=2):
                if inner in owner:
                    raise SpecError(f"pathways[{owner[inner]}].name",
                                    f"{inner!r} is also the name of hidden layer {j} of pathways[{i}] "
                                    f"({p.name!r}, depth {p.depth})", "rename one of the two pathways")
                owner[inner] = i

    @property
    def hidden_total(self) -> int:
        """The total hidden width: the sum of the pathways' ``hidden``."""
        return sum(p.hidden for p in self.pathways)

    def with_pathways(self, pathways: Sequence[Pathway]) -> "GDLNSpec":
        """A copy of this spec with ``pathways`` in place of its own."""
        return replace(self, pathways=tuple(pathways))


# ---------------------------------------------------------------------------------
# Standard ReLNs of the built-in tasks
# ---------------------------------------------------------------------------------
def xor_relns(hidden: int = 128) -> dict:
    """The two ReLNs of the XoR-with-margin task (docs/theory.md#xor).

    ``"linear"``: one pathway on the positive examples, one on the negative.
    ``"xor"``: four pathways, each on for exactly one example. ``hidden`` is the total width
    (at least 4: each of the four XoR pathways needs a unit), shared equally, the remainder one
    unit each to the first pathways (130: 65 + 65 and 33 + 33 + 32 + 32).
    """
    hidden = integer(hidden, "hidden", lo=4, fix="the total width, e.g. hidden=128")
    lin = [Pathway("positive", (1, 1, 0, 0), "all", "all", hidden // 2 + hidden % 2),
           Pathway("negative", (0, 0, 1, 1), "all", "all", hidden // 2)]
    xor = [Pathway(f"point{m}", tuple(int(i == m) for i in range(4)), "all", "all", hidden // 4 + (m < hidden % 4))
           for m in range(4)]
    return {"linear": lin, "xor": xor}


def context_pathways(n: int, k: int, subsets: Sequence[Sequence[int]], common: bool = True,
                     hidden: int = 100) -> list:
    """A common pathway (all contexts, sees items and contexts) plus one pathway per subset of contexts.

    A context pathway is on for the datapoints of its contexts and sees the item rows only;
    every pathway writes to all outputs.
    """
    n, k = (integer(v, f, lo=1, fix="e.g. n=8, k=3") for f, v in (("n", n), ("k", k)))
    hidden = integer(hidden, "hidden", lo=1, fix="units per pathway, e.g. hidden=100")
    subsets = _context_subsets(subsets, k)
    paths = []
    if common:
        paths.append(Pathway("common", (1,) * (n * k), "all", "all", hidden))
    for i, S in enumerate(subsets):
        S = tuple(sorted(S))
        act = tuple(int(mu // n in S) for mu in range(n * k))
        name = context_name(S, k)
        if len(name) > NAME_MAX_LEN:
            raise SpecError(f"subsets[{i}]", f"the pathway of {len(S)} of the {k} contexts would be named "
                            f"{name[:24]}… ({len(name)} characters, more than {NAME_MAX_LEN})",
                            "build this pathway yourself, as Pathway(name, gates, ...), with a shorter name")
        paths.append(Pathway(name, act, tuple(range(n)), "all", hidden))
    return paths


def context_name(contexts: Iterable[int], k: int) -> str:
    """The name of the pathway (or the label of a unit) that is on in ``contexts`` (0-based) of ``k``.

    While k ≤ 9 the contexts' numbers (1-based) follow "ctx" as digits: ``"ctx13"`` is on in contexts 1
    and 3. From k = 10 on, where "ctx12" could also be context 12, they are joined by "-" (``"ctx1-12"``),
    and a name that would be longer than NAME_MAX_LEN (64) characters names the contexts left out
    instead (``"ctx-all-but-7"``: every context but the seventh)."""
    on = sorted(int(c) + 1 for c in contexts)
    if k <= 9:
        return "ctx" + "".join(map(str, on))
    name = "ctx" + "-".join(map(str, on))
    if len(name) > NAME_MAX_LEN:
        on_set = set(on)
        name = "ctx-all-but-" + "-".join(str(c) for c in range(1, k + 1) if c not in on_set)
    return name


def _context_subsets(subsets, k: int) -> list:
    """``subsets`` checked: a list of non-empty collections of context indices in 0..k−1."""
    fix = f"a list of tuples of contexts in 0..{k - 1}, e.g. [(0,), (1, 2)]"
    if isinstance(subsets, (str, Mapping)) or not isinstance(subsets, Iterable):
        raise SpecError("subsets", f"expected a list of context subsets, got {type_name(subsets)} "
                        f"{short_repr(subsets)}", fix)
    out = []
    for i, S in enumerate(subsets):
        S = _listed(S)
        if isinstance(S, (str, Mapping)) or not isinstance(S, Iterable):
            raise SpecError(f"subsets[{i}]", f"{short_repr(S)} is not a collection of contexts "
                            "(each subset is a tuple, also of one context)", fix)
        S = tuple(S)
        if not S or any(isinstance(c, bool) or not isinstance(c, numbers.Integral) or not 0 <= c < k for c in S):
            raise SpecError(f"subsets[{i}]", f"{S!r} is not a non-empty set of contexts in 0..{k - 1}", fix)
        out.append(tuple(int(c) for c in S))
    return out


def lemma41_gatings(k: int = 3) -> dict:
    """Every context-gated pathway set Lemma 4.1 allows for k contexts, by name.

    A bias-free unit on one-hot item + context gates on whole contexts (or single datapoints);
    here we enumerate the context-level choices: a common pathway plus any non-empty family
    of proper, non-empty context subsets, grouped by subset size, and the named sets of the paper.
    """
    k = integer(k, "k", lo=1, fix="the number of contexts, e.g. k=3")
    by_size = {f"common+{r}-context": context_family(k, r) for r in range(1, k)}
    proper = [S for family in by_size.values() for S in family]
    return {**by_size, "common+all-proper": proper, "common-only": []}


def context_family(kk: int, r: int) -> list:
    """All r-subsets of the kk contexts (0-based tuples)."""
    return [tuple(S) for S in itertools.combinations(range(kk), r)]


def family_masks(kk: int, include_common: bool | None = None):
    """Every non-empty family of context-gated pathways Lemma 4.1 allows, as masks.

    The superset is the common pathway (on in every context; sees items and contexts) and
    one item-only pathway per proper non-empty subset of contexts. Returns (subsets, masks,
    labels): ``subsets`` the proper subsets in superset order (after "common"), ``masks`` a
    list of 0/1 tuples over [common] + subsets, ``labels`` readable names. There are
    2^(2^kk − 1) − 1 families: at most ``MAX_FAMILIES`` (kk ≤ ``max_family_contexts()``, 4) are built, a
    larger kk is refused.
    """
    kk = integer(kk, "kk", lo=0, fix="a whole number of contexts, e.g. kk=3")
    top = max_family_contexts()
    if kk > top:      # kk = 5: 2^31 − 1 families, built as a list
        count = f"2^{2 ** kk - 1} − 1" if kk <= 60 else f"2^(2^{kk} − 1) − 1"
        raise SpecError("kk", f"{kk} contexts have {count} families of context-gated pathways (every non-empty subset "
                              f"of the common pathway and the 2^kk − 2 item-only ones), over the bound of "
                              f"{ranges.MAX_FAMILIES:,} (MAX_FAMILIES in theorykit.spec.ranges)",
                        f"use kk ≤ {top} ({family_count(top):,} families); for a larger kk write the families you want "
                        "as pathways (context_pathways(n, kk, subsets))")
    subsets = [S for r in range(1, kk) for S in context_family(kk, r)]
    npw = 1 + len(subsets)
    masks, labels = [], []
    for bits in itertools.product((0, 1), repeat=npw):
        if not any(bits) or (include_common is not None and bool(bits[0]) != include_common):
            continue
        masks.append(bits)
        parts = (["common"] if bits[0] else []) + ["".join(str(c + 1) for c in S)
                                                    for b, S in zip(bits[1:], subsets) if b]
        labels.append("+".join(parts))
    return subsets, masks, labels


def pathways_html(head: str, pathways, P: int, edges=None) -> str:
    """The Jupyter table of a spec: ``head`` (its one-line summary), then one row per pathway (gates per
    datapoint as 0/1, the input rows it reads, the output rows it writes, hidden width, depth) and, for a
    graph, the edges of each (``edges``: one string per pathway, its shared edges marked)."""
    def cut(seq, n):    # a long gate row: its first n gates and the count
        return seq[:n] + (f"… ({len(seq)} datapoints)" if len(seq) > n else "")

    def rows(v):        # "all", a run of rows as "0–59", else the first 12 row indices
        if isinstance(v, str) or len(v) < 4 or list(v) != list(range(v[0], v[0] + len(v))):
            return "all" if isinstance(v, str) else ", ".join(map(str, v[:12])) + (
                f", … ({len(v)} rows)" if len(v) > 12 else "")
        return f"{v[0]}–{v[-1]}"
    extra = [""] * len(pathways) if edges is None else [f"<td>{html_escape(e)}</td>" for e in edges]
    body = "".join(f"<tr><td>{html_escape(p.name)}</td><td><code>{cut(''.join(map(str, p.active)), 64)}</code>"
                   f"</td><td>{rows(p.inputs)}</td><td>{rows(p.outputs)}</td><td>{p.hidden}</td><td>{p.depth}</td>"
                   f"{x}</tr>" for p, x in zip(pathways, extra))
    return (f"<p><code>{html_escape(head)}</code></p><table><tr><th>pathway</th><th>gates (datapoint "
            f"0 … {P - 1})</th><th>inputs</th><th>outputs</th><th>hidden</th><th>depth</th>"
            f"{'' if edges is None else '<th>edges (* shared)</th>'}</tr>{body}</table>")
