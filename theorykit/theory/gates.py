"""The one unit-gate classifier: how the hidden units of a trained ReLU network gate the data.

A hidden unit's *gate pattern* is the set of datapoints it is on for. The suites and tools read
these patterns in a few ways, all of them here:

* :func:`unit_gates` -- the pattern itself from pre-activations: on for datapoint μ when
  ``pre_μ > tol · max_ν |pre_ν|`` (``tol = 0``: the ReLU's own gate, ``pre > 0``; a small
  ``tol`` keeps units that sit on the kink from being classified by rounding noise).
* :class:`UnitGates` -- the patterns read per *block* of datapoints (the contexts of the
  context task, datapoints block-major: P = blocks · items). A unit is on in a block under the
  ``"exact"`` rule when it is on for every datapoint of the block; under the ``"majority"`` rule
  when it is on for at least half of them (as the clustering of Algorithm 1 would read it).
  From that: a class per unit (:data:`CONTEXT_CLASSES`), a pathway label per unit ("common",
  "ctx12", …), groups of units by label, and whether a unit's pattern is one of a named set of
  patterns (:meth:`UnitGates.matches`, the xor suite's 2- and 4-pathway patterns), and the
  classes of the census of Lemma 4.1 (:meth:`UnitGates.lemma_classes`).
* :func:`tally` -- counts or (weighted) shares of units in each class, per network or pooled,
  and :func:`unit_weights` / :func:`significant`, the weight of a unit ``‖w_in‖·‖w_out‖`` and the
  units that carry a non-negligible share of it.

Every array keeps its leading axes (seeds, grid points, …): patterns are ``(..., H, P)``, per-unit
results ``(..., H)``.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import SpecError
from ..io import counted
from ..spec.fields import choice, integer
from ..spec.gating import context_name

__all__ = ["CONTEXT_CLASSES", "LEMMA_CLASSES", "RULES", "UnitGates", "unit_gates", "unit_weights", "significant", "tally",
           "read_units", "context_census", "pathway_maps", "layer_activity"]

#: classes of :meth:`UnitGates.classes`, in report order
CONTEXT_CLASSES = ("common", "k-1-context", "single-context", "other-context", "other", "silent")

#: classes of :meth:`UnitGates.lemma_classes` (the census of Lemma 4.1), in report order
LEMMA_CLASSES = ("dead", "always-on", "context-only", "single-datapoint", "item-only", "other-staircase",
                 "not-staircase")

#: the rules that decide whether a unit is on in a block
RULES = ("exact", "majority")


def unit_gates(pre, tol: float = 0.0) -> np.ndarray:
    """Gate patterns from pre-activations ``pre`` (..., H, P): ``pre_μ > tol · max_ν |pre_ν|`` per unit."""
    pre = np.asarray(pre, dtype=float)
    if tol == 0.0:
        return pre > 0
    return pre > tol * np.max(np.abs(pre), axis=-1, keepdims=True)


@dataclass(frozen=True)
class UnitGates:
    """Gate patterns ``on`` (..., H, P) of hidden units, read per block of datapoints.

    ``blocks``: number of blocks (contexts); the datapoints are block-major, P = blocks · items
    (``blocks = 1``: the whole dataset is one block). ``rule``: ``"exact"`` or ``"majority"``
    (see the module docstring).
    """

    on: np.ndarray
    blocks: int = 1
    rule: str = "exact"

    def __post_init__(self):
        on = np.asarray(self.on, dtype=bool)
        if on.ndim < 2:
            raise SpecError("on", f"gate patterns must be (..., H, P), got shape {on.shape}",
                            "give units × datapoints (H × P), e.g. one network's gates; a single unit as [gates]")
        object.__setattr__(self, "blocks", integer(self.blocks, "blocks", lo=1, fix="a whole number of contexts, "
                                                   "e.g. blocks=3 for three contexts, blocks=1 for one block"))
        if on.shape[-1] % self.blocks:
            raise SpecError("blocks", f"{counted(on.shape[-1], 'datapoint')} cannot be split into {self.blocks} blocks",
                            f"give a divisor of {on.shape[-1]} (the datapoints are block-major: P = blocks · items), "
                            "or check that on is H × P, datapoints last")
        choice(self.rule, "rule", RULES, problem=f"unknown rule {self.rule!r}")
        object.__setattr__(self, "on", on)

    @property
    def items(self) -> int:
        """Datapoints per block."""
        return self.on.shape[-1] // self.blocks

    @property
    def n_on(self) -> np.ndarray:
        """Number of datapoints each unit is on for (..., H)."""
        return self.on.sum(axis=-1)

    @cached_property
    def fraction(self) -> np.ndarray:
        """Share of each block's datapoints the unit is on for (..., H, blocks)."""
        return self.on.reshape(self.on.shape[:-1] + (self.blocks, self.items)).mean(axis=-1)

    @cached_property
    def consistent(self) -> np.ndarray:
        """Whether the unit is on for all or none of every block's datapoints (..., H)."""
        f = self.fraction
        return ((f == 0.0) | (f == 1.0)).all(axis=-1)

    @cached_property
    def block_on(self) -> np.ndarray:
        """Whether the unit is on in each block, under the rule (..., H, blocks)."""
        return self.fraction == 1.0 if self.rule == "exact" else self.fraction >= 0.5

    @property
    def blocks_on(self) -> np.ndarray:
        """Number of blocks each unit is on in (..., H)."""
        return self.block_on.sum(axis=-1)

    @property
    def purity(self) -> np.ndarray:
        """Share of a unit's datapoints that agree with its block-level pattern (..., H)."""
        f = self.fraction
        return np.where(self.block_on, f, 1.0 - f).mean(axis=-1)

    @cached_property
    def classes(self) -> np.ndarray:
        """Class of each unit (..., H), one of :data:`CONTEXT_CLASSES`.

        ``common``: on in every block; ``k-1-context``: in all blocks but one (only with more than
        two blocks); ``single-context``: in exactly one; ``other-context``: another number of
        them; ``silent``: in none. ``other``: under the exact rule, a unit not constant within a
        block (item-dependent patterns: single datapoints, "staircases"); the majority rule
        reads every unit at block level and never gives it."""
        k, m = self.blocks, self.blocks_on
        cls = np.full(m.shape, "other-context", dtype=object)
        if k > 2:
            cls[m == k - 1] = "k-1-context"
        cls[m == 1] = "single-context"
        cls[m == k] = "common"
        cls[m == 0] = "silent"
        if self.rule == "exact":
            cls[~self.consistent] = "other"
        return cls

    @cached_property
    def item_consistent(self) -> np.ndarray:
        """Whether the unit's pattern is the same in every block, item by item (..., H)."""
        g = self.on.reshape(self.on.shape[:-1] + (self.blocks, self.items))
        return (g == g[..., :1, :]).all(axis=(-2, -1))

    def lemma_classes(self) -> np.ndarray:
        """Class of each unit in the census of Lemma 4.1 (..., H), one of :data:`LEMMA_CLASSES`
        (blocks = contexts, items = the task's items), the first that applies: ``dead`` (never on),
        ``always-on``, ``context-only`` (constant within every context), ``single-datapoint`` (on
        for exactly one), ``item-only`` (the same in every context), ``other-staircase`` (realisable
        by a bias-free unit, :func:`theorykit.theory.lemmas.is_staircase`) and ``not-staircase``."""

        n_on = self.n_on
        cls = np.full(n_on.shape, "", dtype=object)
        for name, m in (("dead", n_on == 0), ("always-on", n_on == self.on.shape[-1]),
                        ("context-only", self.consistent), ("single-datapoint", n_on == 1),
                        ("item-only", self.item_consistent)):
            cls[m & (cls == "")] = name
        g = self.on.reshape(self.on.shape[:-1] + (self.blocks, self.items))
        for idx in zip(*np.nonzero(cls == "")):
            cls[idx] = "other-staircase" if is_staircase(g[idx].T) else "not-staircase"
        return cls

    def labels(self) -> np.ndarray:
        """Pathway label of each unit (..., H): ``"common"`` (on in every block), ``"ctx13"`` (on in
        blocks 1 and 3, 1-based; from 10 blocks on ``"ctx1-12"``, see
        :func:`~theorykit.spec.gating.context_name`), or ``""`` for a unit that belongs to no pathway
        (silent, or, under the exact rule, not constant within a block)."""
        b = self.block_on
        out = np.empty(b.shape[:-1], dtype=object)
        for idx in np.ndindex(out.shape):
            on = np.flatnonzero(b[idx])
            if self.rule == "exact" and not self.consistent[idx] or on.size == 0:
                out[idx] = ""
            else:
                out[idx] = "common" if on.size == self.blocks else context_name(on, self.blocks)
        return out

    def groups(self) -> dict:
        """Units of one network grouped by pathway label: {label: [unit indices]} (unlabelled units left out)."""
        if self.on.ndim != 2:
            raise SpecError("on", f"groups are read from one network (H × P), got shape {self.on.shape}",
                            "take one network's gates first, e.g. UnitGates(on[seed], blocks, rule).groups()")
        out: dict = {}
        for h, lab in enumerate(self.labels()):
            if lab:
                out.setdefault(lab, []).append(h)
        return out

    def matches(self, patterns: Sequence) -> np.ndarray:
        """Whether each unit's pattern is exactly one of ``patterns`` (each of length P) (..., H)."""
        m = np.zeros(self.on.shape[:-1], dtype=bool)
        for p in patterns:
            m |= np.all(self.on == np.asarray(p, dtype=bool), axis=-1)
        return m

    def masks(self, names: Sequence[str] = CONTEXT_CLASSES) -> dict:
        """{class: (..., H) boolean mask of its units} for the class names ``names``."""
        return {c: self.classes == c for c in names}


def read_units(pre_or_on, *, blocks: int = 1, rule: str = "exact", tol: float = 0.0) -> UnitGates:
    """:class:`UnitGates` from pre-activations (float array: gated by :func:`unit_gates` with
    ``tol``) or from gate patterns (boolean array)."""
    a = np.asarray(pre_or_on)
    on = a if a.dtype == bool else unit_gates(a, tol)
    return UnitGates(on, blocks, rule)


def unit_weights(w_in, w_out) -> np.ndarray:
    """Weight of each hidden unit ``‖w_in[u, :]‖ · ‖w_out[:, u]‖`` from its incoming (..., H, d) and
    outgoing (..., p, H) weights: (..., H)."""
    return np.linalg.norm(np.asarray(w_in, float), axis=-1) * np.linalg.norm(np.asarray(w_out, float), axis=-2)


def significant(weights, rel_threshold: float = 0.01) -> np.ndarray:
    """Units whose weight exceeds ``rel_threshold`` × the largest in their network (..., H)."""
    w = np.asarray(weights, dtype=float)
    return w > rel_threshold * w.max(axis=-1, keepdims=True)


def tally(masks: Mapping, weights=None, *, where=None, pooled: bool = False, share: bool = True) -> dict:
    """Units in each class: {name: count or share}.

    ``masks``: {name: (..., H) boolean mask}; ``weights`` (..., H) weigh the units (default 1 each);
    ``where`` (..., H) restricts to some units. ``share=False`` gives the (weighted) sums, as ints
    when unweighted; ``share=True`` divides them by the total over all units (``where`` included).
    Per network (an array over the leading axes, summed over units) or, with ``pooled``, summed over
    every axis (a float). An empty or weightless total gives shares of 0."""
    first = np.asarray(next(iter(masks.values())))
    w = np.ones(first.shape) if weights is None else np.broadcast_to(np.asarray(weights, float), first.shape)
    if where is not None:
        w = w * np.asarray(where, bool)
    tot = w.sum() if pooled else w.sum(axis=-1)
    out = {}
    for name, m in masks.items():
        s = w[np.asarray(m, bool)].sum() if pooled else (w * np.asarray(m, bool)).sum(axis=-1)
        if share:
            s = s / np.where(tot > 0, tot, 1.0)
        elif weights is None:
            s = np.asarray(s).astype(int)
        out[name] = s.item() if pooled else s
    if pooled and share:
        out = {k: float(v) for k, v in out.items()}
    return out


def context_census(gates, blocks: int, weights=None, rel_threshold: float = 0.01) -> dict:
    """Units of trained networks counted by class over all leading axes (seeds pooled).

    ``gates`` (..., H, P) (boolean, datapoints block-major). Returns ``all`` (class counts, exact
    rule), ``majority`` (majority rule; no ``other`` class) and ``majority_mean_purity``. With
    ``weights`` (..., H) (e.g. :func:`unit_weights`) also ``significant`` and
    ``significant_majority`` (the counts over the :func:`significant` units),
    ``significant_majority_mean_purity`` (None when no unit is significant),
    ``weight_share_majority`` (pooled share of the weight in each majority class) and
    ``significant_threshold``."""
    exact = UnitGates(gates, blocks, "exact")
    maj = UnitGates(exact.on, blocks, "majority")
    mnames = [c for c in CONTEXT_CLASSES if c != "other"]
    purity = maj.purity
    out = {"all": tally(exact.masks(), pooled=True, share=False),
           "majority": tally(maj.masks(mnames), pooled=True, share=False),
           "majority_mean_purity": float(purity.mean())}
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        sig = significant(w, rel_threshold)
        out["significant"] = tally(exact.masks(), where=sig, pooled=True, share=False)
        out["significant_majority"] = tally(maj.masks(mnames), where=sig, pooled=True, share=False)
        out["significant_majority_mean_purity"] = float(purity[sig].mean()) if sig.any() else None
        out["weight_share_majority"] = tally(maj.masks(mnames), w, pooled=True)
        out["significant_threshold"] = rel_threshold
    return out


def pathway_maps(W1, W2, gates, blocks: int, items: int | None = None, rule: str = "majority") -> dict:
    """The ReLN read off one trained one-hidden-layer ReLU network: {pathway label: W2[:, units]
    W1[units, :items]} (items → outputs), units grouped by :meth:`UnitGates.groups`. ``items``:
    the input columns kept (default: the datapoints per block)."""
    ug = UnitGates(gates, blocks, rule)
    items = ug.items if items is None else items
    W1, W2 = np.asarray(W1), np.asarray(W2)
    return {lab: W2[:, hs] @ W1[hs, :items] for lab, hs in ug.groups().items()}


#: the second layer's classes in :func:`layer_activity`, by number of blocks on (3 blocks)
LAYER_CLASSES = {"common": "common", "double": "k-1-context", "single": "single-context", "none": "silent"}


def layer_activity(params, X, blocks: int = 3) -> dict:
    """How a trained two-hidden-layer bias-free ReLU network (``params`` = [W1, W2, W3], one
    network) gates the data X (d × P, datapoints block-major).

    First layer (gates ``pre > 0``): the share of live units (on for some datapoint) that are on
    for every datapoint, the share of the weight :func:`unit_weights` ``‖w1_u‖·‖W2[:, u]‖`` they
    carry, and the weighted mean share of datapoints a unit is on for. Second layer: the weight
    share ``‖W2[u]‖·‖W3[:, u]‖`` of each class of :data:`LAYER_CLASSES` under the majority rule
    (on in a block when on for at least half its datapoints): common (every block), double (all
    but one, with more than two blocks), single (one), none."""
    W1, W2, W3 = (np.asarray(w, float) for w in params)
    pre1 = W1 @ X
    first = UnitGates(unit_gates(pre1), 1)
    w1 = unit_weights(W1, W2)
    all_on = first.n_on == first.on.shape[-1]
    live = first.n_on > 0
    frac1 = first.fraction[:, 0]
    second = UnitGates(unit_gates(W2 @ np.maximum(pre1, 0)), blocks, "majority")
    w2 = unit_weights(W2, W3)
    masks = {k: second.classes == c for k, c in LAYER_CLASSES.items()}
    return {"first_all_on_units": float(all_on.sum() / max(live.sum(), 1)),
            "first_all_on_weight": float(w1[all_on].sum() / max(w1.sum(), 1e-300)),
            "first_on_fraction_weighted": float((w1 * frac1).sum() / max(w1.sum(), 1e-300)),
            "second_weight_share": tally(masks, w2, pooled=True)}


def binary(gates, field: str = "gates", pattern: bool = False) -> np.ndarray:
    """Gates given as 0/1 numbers or booleans, as booleans; any other value is an error naming
    ``field`` (a gate of 2 or 0.5 read as "on" before). ``pattern``: an items × contexts pattern,
    which must be 2-d (the one check of :func:`is_staircase` and the lemmas' pattern functions)."""
    try:
        a = np.asarray(gates)
    except ValueError:          # ragged nested lists
        raise SpecError(field, "is not a rectangular array (rows of different lengths)",
                        "give every row the same length") from None
    if a.dtype != bool and not np.isin(a, (0, 1)).all():
        raise SpecError(field, "holds values other than 0 and 1", "give binary gates (1 = on, 0 = off)")
    if pattern and a.ndim != 2:
        raise SpecError(field, f"needs an items × contexts array, got shape {a.shape}", "reshape it to n × k")
    return a.astype(bool)


def is_staircase(pattern: np.ndarray) -> bool:
    """Whether some ordering of items and of contexts makes the pattern a staircase.

    Decided by sorting: rows by their number of on-entries (descending), columns likewise; the
    pattern is a staircase (Ferrers diagram) iff then every row is a run of ones followed by
    zeros. Independent of :func:`theorykit.theory.lemmas.has_xor_subpattern` (which the tests compare it with).
    """
    G = binary(pattern, "pattern", pattern=True)
    if G.size == 0:
        return True
    rows = np.argsort(-G.sum(axis=1), kind="stable")
    cols = np.argsort(-G.sum(axis=0), kind="stable")
    S = G[np.ix_(rows, cols)]
    r = S.sum(axis=1)
    prefix = np.arange(S.shape[1])[None, :] < r[:, None]
    return bool(np.array_equal(S, prefix))
