"""Finding gates: Algorithm 1 of the paper (THEORY.md §7) and the exact ReLN (Definition 3.1).

Pipeline (every step is a plain function, so each can be tested on its own):

1. :func:`train_relu` -- full-batch gradient descent on bias-free ReLU networks over several
   seeds (vmapped), recording every ``every`` steps the first hidden layer's binary activity
   (H × P per snapshot) and the network's outputs. Its initialisation replicates
   :func:`theorykit.sim.simulate.simulate_relu` key for key, so the two agree to rounding.
2. :func:`unit_rows` -- stack the snapshots: one row per (seed, snapshot, unit), the unit's
   binary activity over the P datapoints.
3. :func:`cluster_gates` -- scikit-learn ``KMeans(n_clusters=K, n_init, random_state)`` over
   the rows. Identical rows are merged first and passed with ``sample_weight`` (their count):
   the k-means objective is unchanged, the run is much faster.
4. :func:`centroids_to_patterns` -- threshold each centroid at 0.5 to get a 0/1 gate per
   datapoint; all-zero patterns are dropped, identical patterns merged (their shares add).
5. :func:`patterns_to_spec` -- a :class:`~theorykit.spec.gating.GDLNSpec` with one pathway per
   pattern (inputs and outputs "all"); pathway hidden width = its share of the units ×
   the ReLU network's width, at least the rank of its effective Σyx.
6. :func:`elbow_scores` / :func:`choose_elbow` -- for K = 1 … 8, train the GDLN of the K
   patterns from random weights with the ReLU network's hyper-parameters (:func:`train_gdln`)
   and score it by the mean squared error between its outputs and the ReLU network's,
   averaged over checkpoints (every ``every`` steps), datapoints, output units and paired
   seeds. **Elbow rule** (default ``"improvement"``, threshold 0.1): the smallest K such that
   no larger K lowers the score by more than 10 % of the total improvement
   ``score(K=1) − min score``. The alternative ``"chord"`` rule picks the K farthest from
   the chord between the first and last point of the curve (both axes scaled to [0, 1]).

:func:`find_gates` runs the whole algorithm on a task or a spec.

The **exact ReLN** (Definition 3.1): gate each hidden unit by the ReLU network's own
activity ``1[pre-activation > 0]``. :func:`exact_reln_outputs` is its output at given weights
(one pathway per hidden unit for one hidden layer; node-gated linear layers in general);
:func:`exact_reln_trajectory` trains it by gradient descent with the gates read off the ReLU
network at every step and returns both networks' outputs at every checkpoint.

The race of found gates on data too large for exact SymPy (e.g. the digits) is
:meth:`theorykit.theory.race.RaceSystem.from_data` (effective datasets in numpy). The initial mode
strength of a random start is the one rule of :func:`theorykit.sim.init.a0_rule`,
``a0 = Π_l σ_l √(n_l/2)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ..theory import jaxify  # noqa: F401  (float64)
from ..errors import DivergenceError, SpecError
from ..spec.gating import GDLNSpec, Pathway, Training
from ..sim.engine import Net, SaveAt, loss_value, net_apply, train, train_net, unit_activity
from ..sim.init import random_params
from ..sim.simulate import gdln_forward, relu_gates
from ..spec.task import Task

__all__ = ["ReluRun", "GdlnRun", "FoundGates", "train_relu", "train_gdln", "unit_rows", "cluster_gates",
           "centroids_to_patterns", "patterns_to_spec", "pattern_ranks", "elbow_scores", "choose_elbow",
           "patterns_for_K", "elbow_scores_from",
           "find_gates", "unstack_gdln", "exact_reln_outputs", "exact_reln_trajectory",
           "ELBOW_THRESHOLD", "shared_first_flow"]

#: default threshold of the "improvement" elbow rule (fraction of the total improvement)
ELBOW_THRESHOLD = 0.1


# ---------------------------------------------------------------------------------------------
# Training with checkpoints
# ---------------------------------------------------------------------------------------------
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


@dataclass
class GdlnRun:
    t_ck: np.ndarray
    loss: np.ndarray
    outputs: np.ndarray
    params: list
    params_ck: list | None = None
    recorded: object = None


def _checkpoints(steps, every):
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise SpecError("every", f"needs a positive integer, got {every!r}", "e.g. every = 100")
    n = steps // every
    return n, np.array([i * every for i in range(n)] + [steps])


def _run_checkpointed(net, p0, X, Y, *, lr, steps, every, loss, keep_params, record, aux, batch, on_batch, what,
                      unit_gates=None, snapshots=False):
    """One call of :func:`theorykit.sim.engine.train` with checkpoints at 0, every, …, steps: outputs
    (and, on request, first-layer snapshots, the weights and ``record(params, aux)``)."""
    n, t_ck = _checkpoints(steps, every)
    keys = net.keys

    def as_list(p):
        return [p[k] for k in keys]

    fns = {"outputs": lambda p, d: net_apply(net, p, d[0], unit_gates)}
    if snapshots:
        first = net.nodes[0][0]
        fns["snap"] = lambda p, d: unit_activity(net, p, d[0])[first] > 0
    if keep_params:
        fns["params"] = lambda p, d: p
    if record is not None:
        fns["rec"] = lambda p, d: record(as_list(p), aux)
    save = SaveAt(steps=list(t_ck), fns=fns)
    if unit_gates is None:
        res = train_net(net, p0, (X, Y), loss=loss, lr=lr, steps=steps, save=save, batch=batch, on_batch=on_batch,
                        check=what)
    else:
        res = train(lambda p, d: loss_value(net_apply(net, p, d[0], unit_gates), d[1], loss), p0, (X, Y), lr=lr,
                    steps=steps, save=save, batch=batch, on_batch=on_batch, check=what)
    sv = res.saved
    snaps = np.asarray(sv["snap"])[:, :n] if snapshots else None
    pck = [np.asarray(sv["params"][k]) for k in keys] if keep_params else None
    rec = jax.tree_util.tree_map(np.asarray, sv["rec"]) if record is not None else None
    return t_ck, res.loss, np.asarray(sv["outputs"]), snaps, [np.asarray(res.params[k]) for k in keys], pck, rec


def _chain_init(dims, init_std, seed, seeds):
    """N(0, init_std²) weights of a chain of layers ``dims`` (as :func:`theorykit.sim.simulate.simulate_relu`
    draws them with the same seed), as a list with a seed axis."""
    net = Net.chain(dims[0], list(dims[1:-1]), dims[-1])
    p = random_params(net, init_std, seeds, seed)
    return [p[k] for k in net.keys]


def train_relu(X, Y, *, hidden, lr: float, steps: int, seeds: int = 4, init_std: float = 0.01,
               loss: str = "mean", seed: int = 0, every: int = 100, keep_params: bool = False,
               record=None, aux=None, batch: int | None = None, on_batch=None) -> ReluRun:
    """Bias-free ReLU networks (one or more hidden layers), full-batch GD, vmapped over seeds,
    with checkpoints every ``every`` steps (a caller of :func:`theorykit.sim.engine.train`).

    The initial weights are those of :func:`theorykit.sim.simulate.simulate_relu` with the same
    ``seed``. ``batch`` seeds run per compiled call, with ``on_batch(seeds_done)`` called after
    each (progress on long runs); the results do not depend on it."""
    if loss not in ("mean", "sum"):
        raise SpecError("loss", f"{loss!r} is not \"mean\" or \"sum\"", "use \"mean\" or \"sum\"")
    X, Y = jnp.asarray(X, jnp.float64), jnp.asarray(Y, jnp.float64)
    widths = [int(hidden)] if isinstance(hidden, (int, np.integer)) else [int(w) for w in hidden]
    net = Net.chain(X.shape[0], widths, Y.shape[0])
    p0 = random_params(net, init_std, seeds, seed)
    t_ck, losses, outs, snaps, params, pck, rec = _run_checkpointed(
        net, p0, X, Y, lr=lr, steps=steps, every=every, loss=loss, keep_params=keep_params, record=record, aux=aux,
        batch=batch, on_batch=on_batch, what="ReLU training", snapshots=True)
    settings = {"hidden": widths, "lr": lr, "steps": steps, "seeds": seeds, "init_std": init_std, "loss": loss,
                "seed": seed, "every": every}
    return ReluRun(t_ck, losses, outs, snaps, params, pck, settings, rec)


def gdln_graph(d: int, p: int, gates, hidden: Sequence[int], depth: int = 2, shared_first: int | None = None):
    """The :class:`theorykit.sim.engine.Net` of a GDLN of fixed gates (K × P): pathway j is node(s)
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


def _split_stacked(net, stacked, hidden, shared_first):
    """Edge weights from weights drawn for a stacked chain (paired seeds with a ReLU network)."""
    offs = np.concatenate([[0], np.cumsum(hidden)]).astype(int)
    out = {}
    for j in range(len(hidden)):
        sl = slice(offs[j], offs[j + 1])
        name = f"g{j + 1}"
        if shared_first is not None:
            out["input->shared"] = stacked[0]
            out[f"shared->{name}"] = stacked[1][:, sl, :]
            out[f"{name}->output"] = stacked[2][:, :, sl]
            continue
        chain = [name] + [f"{name}_{l}" for l in range(2, len(stacked))]
        out[f"input->{chain[0]}"] = stacked[0][:, sl, :]
        for l, (a, b) in enumerate(zip(chain[:-1], chain[1:])):
            out[f"{a}->{b}"] = stacked[l + 1][:, sl, sl]
        out[f"{chain[-1]}->output"] = stacked[-1][:, :, sl]
    return {k: out[k] for k in net.keys}


def _restack(net, by_edge, hidden, shared_first, depth):
    """The stacked form ``[W1, …, WL]`` (seed axis first; off-block entries zero) of edge weights."""
    K = len(hidden)
    offs = np.concatenate([[0], np.cumsum(hidden)]).astype(int)
    names = [f"g{j + 1}" for j in range(K)]
    if shared_first is not None:
        return [by_edge["input->shared"], jnp.concatenate(tuple([by_edge[f"shared->{n}"] for n in names]), axis=-2),
                jnp.concatenate(tuple([by_edge[f"{n}->output"] for n in names]), axis=-1)]
    first = jnp.concatenate(tuple([by_edge[f"input->{n}"] for n in names]), axis=-2)
    last = jnp.concatenate(tuple([by_edge[f"{n if depth == 2 else n + '_' + str(depth - 1)}->output"] for n in names]), axis=-1)
    mids = []
    for l in range(2, depth):
        lead = by_edge[f"input->{names[0]}"].shape[:-2]
        M = jnp.zeros(lead + (int(offs[-1]), int(offs[-1])))
        for j, n in enumerate(names):
            a = n if l == 2 else f"{n}_{l - 1}"
            M = M.at[..., offs[j]:offs[j + 1], offs[j]:offs[j + 1]].set(by_edge[f"{a}->{n}_{l}"])
        mids.append(M)
    return [first] + mids + [last]


def train_gdln(X, Y, gates, *, hidden: Sequence[int], lr: float, steps: int, seeds: int = 4,
               init_std: float = 0.01, loss: str = "mean", seed: int = 0, every: int = 100,
               depth: int = 2, keep_params: bool = False, record=None, aux=None,
               shared_first: int | None = None, batch: int | None = None, on_batch=None) -> GdlnRun:
    """A GDLN of fixed gates (K × P, one row per pathway) from random N(0, init_std²) weights,
    trained by :func:`theorykit.sim.engine.train` on the graph of :func:`gdln_graph`.

    Pathway j has ``hidden[j]`` units per hidden layer and ``depth`` weight layers, sees every
    input and writes every output. Initial weights: drawn as for a ReLU network of the total
    widths with the same ``seed`` (:func:`train_relu`) and cut into the pathways' blocks, so a
    GDLN and a ReLU network of equal total width start from identical weights (paired seeds).
    ``params`` and ``params_ck`` come back in that stacked form ``[W1, …, WL]`` (entries outside
    the pathways' blocks are zero); ``record(params, aux)`` sees the stacked form too.

    ``shared_first=H1`` (depth 3 only) builds the GDLN of the paper's Section 6 instead: the
    first hidden layer (``H1`` units) is one node, always on and shared by every pathway; the
    pathways split the second hidden layer (pathway j owns ``hidden[j]`` of its units, gated by
    its row of ``gates``), so all pathways share the edge ``W_1`` (THEORY.md §3). With
    ``H1 = sum(hidden)`` the initial weights are those of a ReLU network ``[in, H1, H1, out]``
    with the same seed (paired seeds)."""
    X, Y = jnp.asarray(X, jnp.float64), jnp.asarray(Y, jnp.float64)
    G = np.asarray(gates, dtype=float)
    K = G.shape[0]
    hidden = [int(h) for h in hidden]
    if len(hidden) != K:
        raise SpecError("hidden", f"{len(hidden)} widths for {K} pathways", "give one width per pathway")
    Ht = sum(hidden)
    if shared_first is not None:
        if depth != 3:
            raise SpecError("depth", f"shared_first needs depth 3, got {depth}",
                            "use depth = 3 (one shared layer, one gated layer)")
        H1 = int(shared_first)
        if H1 < 1:
            raise SpecError("shared_first", f"needs a positive width, got {shared_first!r}",
                            "give the shared first layer's width, e.g. the ReLU layer's")
        dims = [X.shape[0], H1, Ht, Y.shape[0]]
    else:
        if depth not in (2, 3):
            raise SpecError("depth", f"depth {depth!r} is not supported", "use 2 or 3")
        dims = [X.shape[0]] + [Ht] * (depth - 1) + [Y.shape[0]]
    net = gdln_graph(X.shape[0], Y.shape[0], G, hidden, depth, shared_first)
    p0 = _split_stacked(net, _chain_init(dims, init_std, seed, seeds), hidden, shared_first)
    stacked_record = None
    if record is not None:
        def stacked_record(plist, a):
            return record(_restack(net, dict(zip(net.keys, plist)), hidden, shared_first, depth), a)

    t_ck, losses, o, _, params, pck, rec = _run_checkpointed(
        net, p0, X, Y, lr=lr, steps=steps, every=every, loss=loss, keep_params=keep_params, record=stacked_record,
        aux=aux, batch=batch, on_batch=on_batch, what="GDLN training")
    params = [np.asarray(w) for w in _restack(net, dict(zip(net.keys, params)), hidden, shared_first, depth)]
    if pck is not None:
        pck = [np.asarray(w) for w in _restack(net, dict(zip(net.keys, pck)), hidden, shared_first, depth)]
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
    if loss not in ("mean", "sum"):
        raise SpecError("loss", f"{loss!r} is not \"mean\" or \"sum\"", "use \"mean\" or \"sum\"")
    if len(gate_sets) != len(hidden_sets):
        raise SpecError("hidden", f"{len(hidden_sets)} width lists for {len(gate_sets)} gatings", "give one per gating")
    X, Y = jnp.asarray(X, jnp.float64), jnp.asarray(Y, jnp.float64)
    P = X.shape[1]
    units = []
    for G, hidden in zip(gate_sets, hidden_sets):
        G = np.asarray(G, float)
        if G.ndim != 2 or G.shape[1] != P or G.shape[0] != len(hidden):
            raise SpecError("gates", f"a gating of shape {G.shape} with {len(hidden)} widths, for {P} datapoints",
                            "give one row of P gates per pathway and one width per pathway")
        units.append(np.repeat(G, [int(h) for h in hidden], axis=0))
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
                    save=SaveAt(steps=list(t_ck), fns={"outputs": out}), check="GDLN training")
        o = np.asarray(res.saved["outputs"])
        for j, i in enumerate(idx):
            sl = slice(j * seeds, (j + 1) * seeds)
            runs[i] = GdlnRun(t_ck, res.loss[sl], o[sl], [np.asarray(res.params[k])[sl] for k in net.keys])
    return runs


def unstack_gdln(params, hidden: Sequence[int]) -> list:
    """Per-pathway weight lists (as :func:`theorykit.sim.simulate.gdln_forward` takes them) from the
    stacked form of :func:`train_gdln` (one network, not batched)."""
    offs = np.concatenate([[0], np.cumsum(hidden)])
    out = []
    for j in range(len(hidden)):
        sl = slice(int(offs[j]), int(offs[j + 1]))
        Ws = [params[0][sl, :]] + [W[sl, sl] for W in params[1:-1]] + [params[-1][:, sl]]
        out.append(Ws)
    return out


# ---------------------------------------------------------------------------------------------
# Algorithm 1: snapshots → binary rows → k-means → patterns → spec
# ---------------------------------------------------------------------------------------------
def unit_rows(snapshots) -> np.ndarray:
    """Stack binary snapshots (seeds × snapshots × H × P) into rows (N × P) of 0/1 floats."""
    S = np.asarray(snapshots)
    if S.ndim < 2:
        raise ValueError("snapshots need at least two axes (units × datapoints)")
    return S.reshape(-1, S.shape[-1]).astype(float)


@dataclass
class Clustering:
    K: int
    centroids: np.ndarray      # K × P
    weights: np.ndarray        # K: number of rows in each cluster
    inertia: float


def cluster_gates(rows, K: int, seed: int = 0, n_init: int = 10) -> Clustering:
    """scikit-learn k-means of binary unit rows into K centroids (duplicate rows merged, weighted)."""
    from sklearn.cluster import KMeans

    if n_init < 5:
        raise ValueError("use at least 5 k-means restarts (n_init >= 5)")
    rows = np.asarray(rows, dtype=float)
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    if len(uniq) < K:
        # fewer distinct rows than clusters: each distinct row is a centroid
        pad = K - len(uniq)
        cents = np.vstack([uniq, np.repeat(uniq[:1], pad, axis=0)])
        w = np.concatenate([counts, np.zeros(pad)])
        return Clustering(K, cents, w.astype(float), 0.0)
    km = KMeans(n_clusters=K, n_init=n_init, random_state=seed)
    km.fit(uniq, sample_weight=counts)
    w = np.bincount(km.labels_, weights=counts, minlength=K)
    order = np.argsort(-w, kind="stable")
    return Clustering(K, km.cluster_centers_[order], w[order], float(km.inertia_))


def centroids_to_patterns(centroids, weights, threshold: float = 0.5):
    """Threshold centroids at ``threshold`` → list of (pattern tuple, share of units).

    All-zero patterns are dropped; identical patterns are merged (shares add); shares are
    renormalised over the patterns kept and sorted by share, largest first."""
    C = np.asarray(centroids, dtype=float)
    w = np.asarray(weights, dtype=float)
    merged: dict = {}
    for c, wt in zip(C, w):
        pat = tuple(int(v) for v in (c > threshold))
        if not any(pat) or wt <= 0:
            continue
        merged[pat] = merged.get(pat, 0.0) + float(wt)
    if not merged:
        return []
    tot = sum(merged.values())
    return sorted(((p, s / tot) for p, s in merged.items()), key=lambda it: -it[1])


def pattern_ranks(X, Y, patterns, tol: float = 1e-9) -> list:
    """Numerical rank of each pattern's effective Σyx = (1/P) Y diag(g) Xᵀ."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    out = []
    for g in patterns:
        S = (Y * np.asarray(g, float)[None, :]) @ X.T / X.shape[1]
        sv = np.linalg.svd(S, compute_uv=False)
        out.append(int(np.sum(sv > tol * max(sv.max(initial=0.0), 1e-300))) if sv.size and sv.max() > tol else 0)
    return out


def _hidden_split(shares, total, ranks):
    """Widths proportional to ``shares``, each at least its rank, summing to ``total`` where
    possible (the rounding remainder goes to the largest pathway)."""
    h = [max(int(round(s * total)), r, 1) for s, r in zip(shares, ranks)]
    j = int(np.argmax(h))
    h[j] = max(h[j] + total - sum(h), ranks[j], 1)
    return h


def patterns_to_spec(task: Task, patterns, hidden_total: int, training: Training | None = None,
                     name: str = "found-gates", values: Mapping | None = None, depth: int = 2) -> GDLNSpec:
    """A GDLN spec with one pathway per (pattern, share); patterns whose Σyx is zero are dropped."""
    X, Y = task.numeric(values)
    pats = [p for p, _ in patterns]
    ranks = pattern_ranks(X, Y, pats)
    keep = [i for i, r in enumerate(ranks) if r > 0]
    if not keep:
        raise SpecError("patterns", "no pattern has a non-zero effective dataset", "use more clusters or seeds")
    shares = np.array([patterns[i][1] for i in keep])
    shares = shares / shares.sum()
    hid = _hidden_split(shares, hidden_total, [ranks[i] for i in keep])
    paths = [Pathway(f"g{j + 1}", tuple(pats[i]), "all", "all", hid[j], depth) for j, i in enumerate(keep)]
    return GDLNSpec(task, tuple(paths), training or Training(), name)


# ---------------------------------------------------------------------------------------------
# Elbow
# ---------------------------------------------------------------------------------------------
def output_mse(a, b) -> float:
    """Mean squared difference of two output trajectories (seeds × checkpoints × p × P)."""
    return float(np.mean((np.asarray(a) - np.asarray(b)) ** 2))


def patterns_for_K(X, Y, rows, K: int, hidden_total: int, *, kmeans_seed: int = 0, n_init: int = 10) -> dict:
    """Algorithm 1 for one K: k-means of the unit ``rows``, thresholded patterns, those with a
    non-zero effective dataset kept, widths split from ``hidden_total`` by share.

    Returns a dict: K, centroids, weights, inertia, patterns, shares, hidden (empty if none kept)."""
    cl = cluster_gates(rows, K, seed=kmeans_seed, n_init=n_init)
    pats = centroids_to_patterns(cl.centroids, cl.weights)
    gates = [p for p, _ in pats]
    ranks = pattern_ranks(X, Y, gates)
    keep = [i for i, r in enumerate(ranks) if r > 0]
    rec = {"K": K, "centroids": cl.centroids, "weights": cl.weights, "inertia": cl.inertia,
           "patterns": [gates[i] for i in keep], "shares": [pats[i][1] for i in keep], "hidden": []}
    if keep:
        sh = np.array(rec["shares"]) / np.sum(rec["shares"])
        rec["hidden"] = _hidden_split(sh, int(hidden_total), [ranks[i] for i in keep])
    return rec


def elbow_scores_from(X, Y, rows, Ks, hidden_total: int, fit, *, kmeans_seed: int = 0, n_init: int = 10,
                      progress=None, empty: dict | None = None, patterns: dict | None = None) -> list:
    """The elbow's scores from given unit ``rows`` (snapshots of any run): for each K,
    :func:`patterns_for_K`, then ``fit(rec)`` → a dict with at least ``mse`` (merged into the
    record). ``empty``: the record's values when no pattern is kept (``mse`` = +inf by default)."""
    out = []
    for K in Ks:
        rec = dict(patterns[K]) if patterns is not None and K in patterns else \
            patterns_for_K(X, Y, rows, K, hidden_total, kmeans_seed=kmeans_seed, n_init=n_init)
        rec.update(fit(rec) if rec["patterns"] else (empty or {"mse": float("inf")}))
        out.append(rec)
        if progress is not None:
            progress.update(note=f"K={K}")
    return out


def elbow_scores(X, Y, relu: ReluRun, Ks=range(1, 9), *, kmeans_seed: int = 0, n_init: int = 10,
                 gdln_seed: int = 1, progress=None) -> list:
    """For each K: k-means, patterns, a GDLN of those patterns trained with the ReLU settings.

    Returns one dict per K: K, centroids, weights, patterns, hidden, mse (outputs, averaged over
    checkpoints/datapoints/outputs/paired seeds), loss_mse, loss_max_rel_err, gdln_loss (mean)."""
    st = relu.settings
    rows = unit_rows(relu.snapshots)
    Ht = int(np.sum(st["hidden"][:1]))
    # the GDLNs of every K are trained in one call of the trainer (train_gdln_many)
    recs = {K: patterns_for_K(X, Y, rows, K, Ht, kmeans_seed=kmeans_seed, n_init=n_init) for K in Ks}
    live = [K for K in Ks if recs[K]["patterns"]]
    runs = dict(zip(live, train_gdln_many(X, Y, [np.array(recs[K]["patterns"]) for K in live],
                                          [recs[K]["hidden"] for K in live], lr=st["lr"], steps=st["steps"],
                                          seeds=st["seeds"], init_std=st["init_std"], loss=st["loss"],
                                          seed=gdln_seed, every=st["every"])))

    def fit(rec):
        g = runs[rec["K"]]
        rl, gl = relu.loss.mean(0), g.loss.mean(0)
        return dict(mse=output_mse(relu.outputs, g.outputs), loss_mse=float(np.mean((rl - gl) ** 2)),
                    loss_max_rel_err=float(np.max(np.abs(rl - gl)) / rl[0]), gdln_loss=gl,
                    gdln_outputs_final=g.outputs[:, -1])

    empty = dict(mse=float(np.mean(relu.outputs ** 2)), loss_mse=float("nan"), hidden=[], gdln_loss=None,
                 loss_max_rel_err=float("nan"))
    return elbow_scores_from(X, Y, rows, Ks, Ht, fit, kmeans_seed=kmeans_seed, n_init=n_init, progress=progress,
                             empty=empty, patterns=recs)


def choose_elbow(Ks, scores, rule: str = "improvement", threshold: float = ELBOW_THRESHOLD) -> int:
    """The elbow K of a decreasing score curve.

    ``"improvement"``: the smallest K such that no larger K lowers the score by more than
    ``threshold`` × (score[first] − min score). ``"chord"``: the K farthest below the chord
    joining the first and last points, both axes scaled to [0, 1]."""
    Ks = list(Ks)
    s = np.asarray(scores, dtype=float)
    if len(Ks) != len(s) or not len(Ks):
        raise ValueError("Ks and scores must be non-empty and of equal length")
    if rule == "improvement":
        total = s[0] - s.min()
        if total <= 0:
            return Ks[0]
        for i in range(len(Ks)):
            if np.all(s[i] - s[i:] <= threshold * total):
                return Ks[i]
        return Ks[-1]
    if rule == "chord":
        x = (np.asarray(Ks, float) - Ks[0]) / max(Ks[-1] - Ks[0], 1)
        span = s.max() - s.min()
        y = (s - s.min()) / span if span > 0 else np.zeros_like(s)
        chord = y[0] + (y[-1] - y[0]) * x
        return Ks[int(np.argmax(chord - y))]
    raise ValueError(f"unknown elbow rule {rule!r} (use 'improvement' or 'chord')")


@dataclass
class FoundGates:
    spec: GDLNSpec
    K: int
    Ks: list
    scores: list
    relu: ReluRun
    rule: str
    notes: list = field(default_factory=list)

    def summary(self) -> dict:
        return {"K": self.K, "rule": self.rule, "Ks": self.Ks,
                "mse": [r["mse"] for r in self.scores],
                "pathways": [{"name": p.name, "active": list(p.active), "hidden": p.hidden}
                             for p in self.spec.pathways], "notes": self.notes}


def find_gates(task_or_spec, *, K: int | None = None, Ks=range(1, 9), seeds: int = 4, steps: int | None = None,
               hidden: int | None = None, lr: float | None = None, init_std: float | None = None,
               loss: str | None = None, every: int = 100, values: Mapping | None = None, seed: int = 0,
               n_init: int = 10, rule: str = "improvement", threshold: float = ELBOW_THRESHOLD,
               name: str = "found-gates", progress=None) -> FoundGates:
    """Algorithm 1 on a task (or a spec's task and training settings).

    Trains ``seeds`` ReLU networks of width ``hidden`` (default: the spec's total width, or
    100), snapshots every ``every`` steps, and clusters the units. With ``K`` given, that many
    clusters; otherwise the elbow over ``Ks`` (which needs a GDLN training per K)."""
    if isinstance(task_or_spec, GDLNSpec):
        spec0 = task_or_spec
        task, tr = spec0.task, spec0.training
        hidden = hidden or spec0.hidden_total
    elif isinstance(task_or_spec, Task):
        task, tr = task_or_spec, Training()
        hidden = hidden or 100
    else:
        raise SpecError("task_or_spec", f"expected a Task or GDLNSpec, got {type(task_or_spec).__name__}",
                        "pass theorykit.contexts(...) or a loaded spec")
    if values:
        task = task.subs(values)
    tr = Training(lr=lr or tr.lr, loss=loss or tr.loss, a0=tr.a0, init_std=init_std or tr.init_std,
                  steps=steps or tr.steps)
    X, Y = task.numeric()
    relu = train_relu(X, Y, hidden=int(hidden), lr=tr.lr, steps=tr.steps, seeds=seeds, init_std=tr.init_std,
                      loss=tr.loss, seed=seed, every=every)
    notes = []
    if K is None:
        scores = elbow_scores(X, Y, relu, Ks, kmeans_seed=seed, n_init=n_init, progress=progress)
        Ks = [r["K"] for r in scores]
        K = choose_elbow(Ks, [r["mse"] for r in scores], rule, threshold)
        rec = scores[Ks.index(K)]
        notes.append(f"K = {K} by the {rule!r} elbow rule (threshold {threshold}) over K = {Ks}")
    else:
        cl = cluster_gates(unit_rows(relu.snapshots), int(K), seed=seed, n_init=n_init)
        rec = {"K": K, "centroids": cl.centroids, "weights": cl.weights}
        scores, Ks = [], [K]
    pats = centroids_to_patterns(rec["centroids"], rec["weights"])
    spec = patterns_to_spec(task, pats, int(hidden), tr, name)
    if len(spec.pathways) < K:
        notes.append(f"{K} clusters gave {len(spec.pathways)} distinct non-empty gate patterns")
    return FoundGates(spec, int(K), list(Ks), scores, relu, rule, notes)


# ---------------------------------------------------------------------------------------------
# The exact ReLN (Definition 3.1)
# ---------------------------------------------------------------------------------------------
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

    This is the GDLN learning rule of THEORY.md §3 with a shared edge, at the smallest widths
    that can represent the task (r = rank of the full Σyx in both hidden layers):

        E_p = Σyx_p − Σ_q W_q Σx_qp,             W_p = W3_p W2_p W1,
        τ dW3_p/dt = E_p (W2_p W1)ᵀ,   τ dW2_p/dt = W3_pᵀ E_p W1ᵀ,   τ dW1/dt = Σ_p (W3_p W2_p)ᵀ E_p,

    with ``Σyx_p = Y diag(g_p) Xᵀ/P`` and ``Σx_qp = X diag(g_q g_p) Xᵀ/P``. Start: small, aligned
    and balanced (:func:`theorykit.sim.init.aligned_net_params`): W1 = √K c V_rᵀ (V_r: the full Σyx's
    top right singular vectors), W2_p = c I, W3_p = c Q_p (Q_p: the orthonormal polar factor of
    Σyx_p V_r), so ``W1 W1ᵀ = Σ_p W2_pᵀ W2_p`` and ``W2_p W2_pᵀ = W3_pᵀ W3_p`` hold, and each pathway
    starts at strength √K c³ = ``a0``. τ = 1/η for the mean loss, 1/(Pη) for the summed loss (then
    the loss is returned summed). With one always-on pathway and whitened inputs it is the balanced
    three-layer mode ODE of THEORY.md §2 (a test checks this)."""
    from ..theory.flow import net_flow
    from ..sim.init import aligned_net_params

    if loss not in ("mean", "sum"):
        raise SpecError("loss", f"{loss!r} is not \"mean\" or \"sum\"", "use \"mean\" or \"sum\"")
    if not (np.isfinite(a0) and a0 > 0):
        raise SpecError("a0", f"needs a positive initial strength, got {a0!r}", "e.g. theorykit.sim.init.a0_rule(σ, [H1, Hp, Hp])")
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
