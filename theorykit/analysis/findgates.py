"""Finding gates: Algorithm 1 of the paper (docs/theory.md#finding-gates) and the exact ReLN (Definition 3.1).

Pipeline (every step is a plain function, so each can be tested on its own):

1. ``train_relu`` (:mod:`theorykit.analysis._runs`, internal) -- full-batch gradient descent on
   bias-free ReLU networks over several seeds (vmapped) by the one trainer, recording every
   ``every`` steps the first hidden layer's binary activity (H × P per snapshot) and the
   network's outputs. It starts from the weights ``tk.simulate(..., network="relu")`` draws, key
   for key, so the two agree to rounding.
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
   patterns from random weights with the ReLU network's hyper-parameters (``_runs``, internal)
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
strength of a random start is the one rule of :func:`theorykit.net.starts.a0_rule`,
``a0 = Π_l σ_l √(n_l/2)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from ..theory import jaxify  # noqa: F401  (float64)
from ..curves import max_gap
from ..errors import SpecError, keyword_typos
from ..io import counted
from ..progress import checked_progress, progress_bar
from ..linalg import correlation, data_scale
from ._runs import ReluRun, train_gdln_many, train_relu
from ..spec.fields import choice, fmt, init_scale, integer, learning_rate, loss_name, real, seed_value
from ..spec.limits import Estimate, Limits, enforce, lift, simulation_estimate
from ..spec.ranges import MAX_SEED, MAX_STEPS     # k-means' random_state (and numpy's legacy seeding) takes 0 … 2**32 − 1 too
from ..spec.gating import GDLNSpec, Pathway, Training
from ..spec.task import Task, as_task

__all__ = ["FoundGates", "unit_rows", "cluster_gates", "centroids_to_patterns", "patterns_to_spec", "pattern_ranks",
           "elbow_scores", "choose_elbow", "patterns_for_K", "elbow_scores_from", "find_gates", "require_sklearn",
           "ELBOW_THRESHOLD", "MAX_SEED", "geometric_mean", "training_estimate", "elbow_estimate",
           "check_training_size"]

#: default threshold of the "improvement" elbow rule (fraction of the total improvement)
ELBOW_THRESHOLD = 0.1


def unit_rows(snapshots) -> np.ndarray:
    """Stack binary snapshots (seeds × snapshots × H × P) into rows (N × P) of 0/1 floats."""
    S = np.asarray(snapshots)
    if S.ndim < 2:
        raise SpecError("snapshots", f"need at least two axes (units × datapoints), got shape {S.shape}",
                        "give seeds × snapshots × H × P gates (or H × P), datapoints last")
    return S.reshape(-1, S.shape[-1]).astype(float)


@dataclass
class Clustering:
    """The k-means result of :func:`cluster_gates`: K centroids (gate frequencies in [0, 1]), the rows in
    each, and the inertia."""

    K: int
    centroids: np.ndarray      # K × P
    weights: np.ndarray        # K: number of rows in each cluster
    inertia: float


def cluster_gates(rows, K: int, seed: int = 0, n_init: int = 10) -> Clustering:
    """scikit-learn k-means of binary unit rows into K centroids (duplicate rows merged, weighted)."""
    KMeans = require_sklearn("cluster").KMeans

    if n_init < 5:
        raise SpecError("n_init", f"{n_init!r} k-means restarts are too few", "use at least 5 (n_init >= 5)")
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

    An entry is on where it exceeds ``threshold`` strictly: a tie (exactly ½, as in a cluster of two
    units whose gates differ at that datapoint) reads as off. All-zero patterns are dropped; identical patterns are merged (shares add); shares are
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
    """Numerical rank of each pattern's effective Σyx = (1/P) Y diag(g) Xᵀ.

    A Σyx counts as zero where its largest singular value is at most ``tol`` × ‖Y‖_F ‖X‖_F / P (a
    bound on every pattern's Σyx), so the ranks do not depend on the data's scale."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    scale = data_scale(X, Y)
    out = []
    for g in patterns:
        S = correlation(X, Y, g)
        sv = np.linalg.svd(S, compute_uv=False)
        out.append(int(np.sum(sv > tol * sv.max())) if sv.size and sv.max() > tol * scale else 0)
    return out


def _hidden_split(shares, total, ranks):
    """Widths proportional to ``shares``, each at least its rank, summing to ``total`` where
    possible: the rounding remainder goes to the largest pathway, or, where that would take it below
    its rank, one unit at a time from the pathways farthest above their share, none below its rank.
    Where the ranks alone exceed ``total`` they are the widths.

    Only removing is ever needed there: the largest width ``h[j]`` is at least its floor, so where
    ``h[j] + total - sum(h)`` is below that floor, ``sum(h) > total``; one unit at a time, the loop
    stops at ``total`` or, every width at its floor, above it."""
    floor = [max(r, 1) for r in ranks]
    h = [max(int(round(s * total)), f) for s, f in zip(shares, floor)]
    j = int(np.argmax(h))
    if h[j] + total - sum(h) >= floor[j]:
        h[j] += total - sum(h)
        return h
    ideal = np.asarray(shares, float) * total
    while sum(h) > total:
        free = [i for i in range(len(h)) if h[i] > floor[i]]
        if not free:
            break
        h[max(free, key=lambda i: (h[i] - ideal[i], -i))] -= 1
    return h


def _learnable(X, Y, patterns, hidden_total):
    """The (pattern, share) pairs whose effective Σyx is non-zero: their patterns, their shares, and
    widths split from ``hidden_total`` by those shares renormalised (:func:`_hidden_split`; all three
    empty if none is kept)."""
    gates = [p for p, _ in patterns]
    ranks = pattern_ranks(X, Y, gates)
    keep = [i for i, r in enumerate(ranks) if r > 0]
    if not keep:
        return [], [], []
    shares = np.array([patterns[i][1] for i in keep])
    hidden = _hidden_split(shares / shares.sum(), hidden_total, [ranks[i] for i in keep])
    return [gates[i] for i in keep], [patterns[i][1] for i in keep], hidden


def patterns_to_spec(task: Task, patterns, hidden_total: int, training: Training | None = None,
                     name: str = "found-gates", values: Mapping | None = None, depth: int = 2) -> GDLNSpec:
    """A GDLN spec with one pathway per (pattern, share); patterns whose Σyx is zero are dropped."""
    X, Y = task.numeric(values)
    pats, _, hid = _learnable(X, Y, patterns, hidden_total)
    if not pats:
        raise SpecError("--K", "none of the found gate patterns has a non-zero effective dataset (the units are off "
                               "wherever the targets correlate with the inputs)",
                        "ask for more clusters (--K); where find-gates trains the networks, train more or wider "
                        "ones (--seeds, --hidden)")
    paths = [Pathway(f"g{j + 1}", tuple(g), "all", "all", h, depth) for j, (g, h) in enumerate(zip(pats, hid))]
    return GDLNSpec(task, tuple(paths), training or Training(), name)


def geometric_mean(values) -> float:
    """The geometric mean of positive ``values`` (the one a0 or init_std a found or predicted spec holds
    for its pathways or layers), kept between the smallest and the largest: equal values come back as
    they are (exp(mean(log)) of 0.0004 gave 0.0004000000000000001), and the mean of unequal ones stays
    within them (exp(log(100)) is 100.00000000000004)."""
    v = [float(x) for x in values]
    g = v[0] if len(set(v)) == 1 else float(np.exp(np.mean(np.log(v))))
    return min(max(g, min(v)), max(v))


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
    pats, shares, hidden = _learnable(X, Y, centroids_to_patterns(cl.centroids, cl.weights), int(hidden_total))
    return {"K": K, "centroids": cl.centroids, "weights": cl.weights, "inertia": cl.inertia,
            "patterns": pats, "shares": shares, "hidden": hidden}


def elbow_scores_from(X, Y, rows, Ks, hidden_total: int, fit, *, kmeans_seed: int = 0, n_init: int = 10,
                      progress=None, empty: dict | None = None, patterns: dict | None = None) -> list:
    """The elbow's scores from given unit ``rows`` (snapshots of any run): for each K,
    :func:`patterns_for_K`, then ``fit(rec)`` → a dict with at least ``mse`` (merged into the
    record). ``empty``: the record's values when no pattern is kept (``mse`` = +inf by default).
    ``progress``: as :func:`find_gates`'s (:func:`~theorykit.progress.checked_progress`), advanced once
    per K; the default None shows none."""
    checked_progress(progress)
    Ks, out = list(Ks), []
    with progress_bar(progress, "elbow", len(Ks)) as bar:
        for K in Ks:
            rec = dict(patterns[K]) if patterns is not None and K in patterns else \
                patterns_for_K(X, Y, rows, K, hidden_total, kmeans_seed=kmeans_seed, n_init=n_init)
            rec.update(fit(rec) if rec["patterns"] else (empty or {"mse": float("inf")}))
            out.append(rec)
            bar.update(note=f"K={K}")
    return out


def elbow_scores(X, Y, relu: ReluRun, Ks=range(1, 9), *, kmeans_seed: int = 0, n_init: int = 10,
                 gdln_seed: int = 1, progress=None) -> list:
    """For each K: k-means, patterns, a GDLN of those patterns trained with the ReLU settings.

    Returns one dict per K: K, centroids, weights, patterns, hidden, mse (outputs, averaged over
    checkpoints/datapoints/outputs and seeds: ReLU run i against GDLN run i, the GDLNs drawing their
    own small random start from ``gdln_seed``), loss_mse, loss_max_rel_err, gdln_loss (mean).
    ``progress``: as :func:`elbow_scores_from`'s, checked before any network trains."""
    checked_progress(progress)
    Ks = list(Ks)
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
                    loss_max_rel_err=max_gap(rl, gl, rl[0]), gdln_loss=gl,
                    gdln_outputs_final=g.outputs[:, -1])

    empty = dict(mse=float(np.mean(relu.outputs ** 2)), loss_mse=float("nan"), hidden=[], gdln_loss=None,
                 loss_max_rel_err=float("nan"))
    return elbow_scores_from(X, Y, rows, Ks, Ht, fit, kmeans_seed=kmeans_seed, n_init=n_init, progress=progress,
                             empty=empty, patterns=recs)


def require_sklearn(module: str = "cluster"):
    """``sklearn.<module>`` (``"cluster"`` or ``"datasets"``), or a :class:`~theorykit.errors.SpecError`
    saying how to install it: scikit-learn is the optional extra ``gates`` of pyproject.toml (k-means, the digits), so a plain
    ``pip install theorykit`` lacks it (that install met a bare ModuleNotFoundError, reported as a
    bug in theorykit, after every network had trained)."""
    try:
        if module == "datasets":
            from sklearn import datasets as found
        else:
            from sklearn import cluster as found
        return found
    except ImportError:
        raise SpecError("scikit-learn", "not installed: finding gates (Algorithm 1's k-means) and the digits "
                                        "data need it", "pip install 'theorykit[gates]', or pip install scikit-learn") \
            from None


def check_elbow_settings(rule, threshold, n_init, seed=0, seed_field: str = "seed", *, K=None, Ks=()) -> None:
    """The elbow ``rule``, its ``threshold`` (a fraction in [0, 1]), the k-means restarts ``n_init``
    (at least 5), the ``seed`` (0 … :data:`MAX_SEED`) and the number of pathways (``K``, or the
    ``Ks`` to try when K is None), checked before any network trains; a
    :class:`~theorykit.errors.SpecError` naming the setting otherwise (a seed of −1 or 2**32 trained
    every network and then failed inside k-means)."""
    for arg, k in ([("K", K)] if K is not None else []) + [("Ks", k) for k in ([] if K is not None else Ks)]:
        integer(k, arg, lo=1, fix="e.g. K=4" if arg == "K" else "positive integers, e.g. Ks=range(1, 9)")
    if K is None and not len(list(Ks)):
        raise SpecError("Ks", "no K to try", "e.g. Ks=range(1, 9), or give K")
    choice(rule, "rule", ("improvement", "chord"))
    real(threshold, "threshold", lo=0.0, hi=1.0, fix="a fraction of the total improvement, e.g. threshold=0.1")
    integer(n_init, "n_init", lo=5, fix="at least 5 k-means restarts, e.g. n_init=10")
    check_seed(seed, seed_field)
    require_sklearn("cluster")


def check_seed(seed, field: str = "seed") -> int:
    """A seed: an integer in 0 … :data:`MAX_SEED`; a SpecError naming ``field`` otherwise."""
    return seed_value(seed, field, "--seed 0" if field.startswith("--") else "seed=0")


def choose_elbow(Ks, scores, rule: str = "improvement", threshold: float = ELBOW_THRESHOLD) -> int:
    """The elbow K of a decreasing score curve (over the K with a finite score; the first K where none is).

    ``"improvement"``: the smallest K such that no larger K lowers the score by more than
    ``threshold`` × (score[first] − min score). ``"chord"``: the K farthest below the chord
    joining the first and last points, both axes scaled to [0, 1]."""
    Ks = list(Ks)
    s = np.asarray(scores, dtype=float)
    if len(Ks) != len(s) or not len(Ks):
        raise SpecError("scores", f"{len(Ks)} Ks and {len(s)} scores: they must be non-empty and of equal length",
                        "give one score per K, e.g. choose_elbow([1, 2, 3], [0.5, 0.1, 0.09])")
    if not 0 <= threshold <= 1:
        raise SpecError("threshold", f"{threshold!r} is not a fraction in [0, 1]",
                        f"e.g. threshold={ELBOW_THRESHOLD} (the default)")
    finite = np.isfinite(s)     # a K that kept no pattern (score +inf) is never the elbow
    if not finite.any():        # no K kept one: no curve to bend (inf - inf warned, then the last K came back)
        return Ks[0]
    if not finite.all():
        Ks, s = [k for k, f in zip(Ks, finite) if f], s[finite]
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
    raise SpecError("rule", f"unknown elbow rule {rule!r}", "use 'improvement' or 'chord'")


def elbow_pick(scores: list, rule: str, threshold: float, notes: list) -> tuple:
    """``(K, its score record, the K scored)`` by :func:`choose_elbow` over ``scores`` (records with
    ``"K"`` and ``"mse"``); appends to ``notes`` how K was chosen."""
    Ks = [r["K"] for r in scores]
    K = choose_elbow(Ks, [r["mse"] for r in scores], rule, threshold)
    notes.append(f"K = {K} by the {rule!r} elbow rule (threshold {threshold}) over K = {Ks}")
    return K, scores[Ks.index(K)], Ks


@dataclass
class FoundGates:
    """What Algorithm 1 found, from a run it trained (:func:`find_gates`) or an imported one
    (:func:`theorykit.analysis.checkpoints.find_gates_in_run`): the GDLN ``spec`` of ``K`` gate
    patterns, the elbow's ``scores`` over ``Ks`` (empty when K was given), the ReLU ``run`` it read
    (a :class:`~theorykit.analysis._runs.ReluRun` or a
    :class:`~theorykit.analysis.checkpoints.RunCheckpoints`), the elbow ``rule``, the run's learning
    rate ``lr`` and ``loss``, and ``notes`` on how K was chosen."""
    spec: GDLNSpec
    K: int
    Ks: list
    scores: list
    run: object
    rule: str
    lr: float
    loss: str
    notes: list = field(default_factory=list)

    def summary(self) -> dict:
        """A dict, JSON as it is: K, the rule, the Ks tried, their scores (``mse``, one per K; None where a score is
        no finite number, and ``mse_none`` says why, one ``{"K", "why"}`` each: an imported run's K whose clusters
        kept no gate pattern scores +inf in :attr:`scores`, a diverged GDLN NaN or inf; JSON has neither, and
        ``json.dumps`` wrote ``Infinity``), the found pathways and the notes."""
        none = [{"K": r["K"], "why": "its clusters kept no gate pattern: no GDLN to score"
                 if "patterns" in r and len(r["patterns"]) == 0 else f"{float(r['mse'])} is no finite number (a "
                 "diverged GDLN: lower the learning rate)"} for r in self.scores if not np.isfinite(r["mse"])]
        return {"K": self.K, "rule": self.rule, "Ks": list(self.Ks),
                "mse": [r["mse"] if np.isfinite(r["mse"]) else None for r in self.scores], "mse_none": none,
                "pathways": [{"name": p.name, "active": list(p.active), "hidden": p.hidden}
                             for p in self.spec.pathways], "notes": list(self.notes)}    # copies: the caller's own

    def __repr__(self):     # one line (the dataclass's own printed the whole run, tens of thousands of characters)
        paths = ", ".join(f"{p.name!r} ({p.hidden} units, on {sum(p.active)} of {len(p.active)})"
                          for p in self.spec.pathways)
        return (f"FoundGates(K={self.K} ({self.rule!r} over Ks {list(self.Ks)}), {paths}; "
                f"lr {self.lr:g}, loss {self.loss!r}; {len(self.notes)} note{'s' if len(self.notes) != 1 else ''})")


#: the sizes a refusal of :func:`find_gates`'s training names: its keywords (the command line passes its options)
SIZE_FIELDS = {"hidden": "hidden", "seeds": "seeds", "steps": "steps"}


def training_estimate(task: Task, *, hidden: int, seeds: int, steps: int, every: int = 100, elbow: int = 0,
                      fields: Mapping | None = None) -> Estimate:
    """The memory and time of :func:`find_gates`'s trainings, from sizes alone (nothing is allocated), by the
    estimator of ``theorykit simulate`` (:func:`~theorykit.spec.limits.simulation_estimate`, a ReLU network:
    the same trainer): ``seeds`` ReLU networks of width ``hidden`` for ``steps`` steps, plus what they record at
    the ⌈steps/every⌉ + 1 checkpoints (first-layer activity, seeds × H × P booleans, and the outputs, seeds × p × P
    numbers, each held on the device and copied to the host), plus, for an elbow over ``elbow`` values of K, the
    GDLNs of the found gates (one of width ``hidden`` per K and seed, with its seeds × H × P gates in float64 and
    its checkpoints' outputs). ``fields``: the names of ``hidden``, ``seeds`` and ``steps`` an error gives
    (:data:`SIZE_FIELDS`, the keywords, by default)."""
    f = {**SIZE_FIELDS, **(fields or {})}
    H, S, T, P, p = int(hidden), int(seeds), int(steps), task.P, task.p
    spec = GDLNSpec(task, (Pathway("all", "all", "all", "all", H),), Training(), "find-gates")

    def relu(n):
        return simulation_estimate(spec, steps=T, seeds=n, network="relu", steps_field=f["steps"],
                                   seeds_field=f["seeds"], hidden_field=f["hidden"])

    parts: dict = {}        # one part per field (enforce names a field that alone can bring the cost under the limit)

    def add(fld, secs, nbytes, value, power=1.0):
        old = parts.get(fld, (0.0, 0.0, value, power))
        parts[fld] = (old[0] + secs, old[1] + nbytes, value, power)

    n = S * int(elbow)      # the GDLNs of every K and seed train as one ensemble, with the ReLU run still held
    for m in (S, n) if elbow else (S,):
        for fld, secs, nbytes, value, power in relu(m).parts:
            add(fld, secs, nbytes, value, power)
    # the checkpoints' records grow with the width and the steps: counted with the one more out of proportion
    ck = float(-(-T // int(every)) + 1)
    records = 2.0 * S * ck * (float(H) * P + 8.0 * p * P) + n * (8.0 * H * P + 2.0 * ck * 8.0 * p * P)
    add(*((f["steps"], 0.0, records, T) if T / 1e4 > H / 1e3 else (f["hidden"], 0.0, records, H)))
    est = Estimate("find-gates' training")
    for fld, (secs, nbytes, value, power) in parts.items():
        est.add(fld, secs, nbytes, value, power)
    est.steps_field, est.seeds_field, est.steps, est.seeds = f["steps"], f["seeds"], float(T), float(S)
    est.stage = (f"training {S} ReLU network{'s' if S != 1 else ''} of width {H} for {T} steps"
                 + (f", and {n} GDLNs for the elbow over {int(elbow)} values of K" if elbow else ""))
    return est


def elbow_estimate(task: Task, *, hidden: int, depth: int, steps: int, Ks) -> Estimate:
    """The memory and time of the elbow of :func:`~theorykit.analysis.checkpoints.find_gates_in_run`, from sizes
    alone, by the estimator of ``theorykit simulate`` (:func:`~theorykit.spec.limits.simulation_estimate`): for
    each K of ``Ks`` one GDLN (one seed) of K pathways (at most, K ≤ ``hidden``) of ``depth`` layers whose widths
    add up to ``hidden``, trained for ``steps`` steps. They train one after another: the times add up, the memory
    is the largest one's. Two parts: ``"steps"`` (what grows with the steps: their arithmetic and loop, and the
    loss history) and ``"Ks"`` (compiling each GDLN, and its weights and activations)."""
    runs = []
    for K in (int(k) for k in Ks):
        k = max(1, min(K, int(hidden)))
        widths = [int(hidden) // k + (i < int(hidden) % k) for i in range(k)]
        spec = GDLNSpec(task, tuple(Pathway(f"p{i}", "all", "all", "all", w, int(depth)) for i, w in enumerate(widths)),
                        Training(), "elbow")
        e = simulation_estimate(spec, steps=int(steps), seeds=1)
        compile_s = sum(pt[1] for pt in e.parts if pt[0] == "compile")
        history = sum(pt[2] for pt in e.parts if pt[0] == "training.steps")
        runs.append((e.seconds - compile_s, compile_s, history, e.bytes - history))
    big = max(runs, key=lambda r: r[2] + r[3], default=(0.0, 0.0, 0.0, 0.0))
    Ks = [int(k) for k in Ks]
    est = Estimate(f"the elbow ({counted(len(Ks), 'GDLN training')}, K = {', '.join(map(str, Ks))}: width {int(hidden)}, "
                   f"{int(steps)} steps each)")
    est.add("steps", sum(r[0] for r in runs), big[2], int(steps))
    est.add("Ks", sum(r[1] for r in runs), big[3], max(Ks, default=0))
    return est


def check_training_size(est: Estimate, limits: Limits | None = None, *, python: bool = True) -> None:
    """Refuse, before anything is allocated, a training whose estimate ``est`` (:func:`training_estimate`) is
    over ``limits`` (default :class:`~theorykit.spec.limits.Limits`: half this machine's memory, or
    THEORYKIT_MAX_BYTES, never lifted; an hour, or THEORYKIT_MAX_SECONDS, unless ``force``), by
    :func:`~theorykit.spec.limits.enforce`: the error names the size to lower and how far. ``python``: its fix
    says how to lift a limit in Python (``limits=Limits(...)``), not on the command line (``--force``)."""
    limits = limits if limits is not None else Limits()
    try:
        enforce(est, limits)
    except SpecError as err:
        if not python:
            raise
        raise SpecError(err.field, err.problem, f"{err.fix.split(';')[0]}; {lift(est, limits, python=True)}") from None


@keyword_typos
def find_gates(task_or_spec, *, K: int | None = None, Ks=range(1, 9), seeds: int = 4, steps: int | None = None,
               hidden: int | None = None, lr: float | None = None, init_std: float | None = None,
               loss: str | None = None, every: int = 100, values: Mapping | None = None, seed: int = 0,
               n_init: int = 10, rule: str = "improvement", threshold: float = ELBOW_THRESHOLD,
               name: str = "found-gates", progress=None, on_step=None, limits: Limits | None = None) -> FoundGates:
    """Algorithm 1 on a task (or a spec's task and training settings): a :class:`FoundGates` (the
    found spec, its K and the elbow's scores, the ReLU run it read).

    Trains ``seeds`` ReLU networks of width ``hidden`` (default: the spec's total width, or
    100), snapshots every ``every`` steps, and clusters the units. With ``K`` given, that many
    clusters; otherwise the elbow over ``Ks`` (which needs a GDLN training per K), by ``rule``
    (``"improvement"`` or ``"chord"``, :func:`choose_elbow`) with its ``threshold``. ``lr``,
    ``init_std``, ``loss``, ``steps``: the networks' training (default: the spec's, or
    :class:`~theorykit.spec.gating.Training`'s for a task); ``values``: numbers for the task's
    symbols; ``seed``: the networks' and k-means' seed; ``n_init``: k-means restarts (at least 5);
    ``name``: the found spec's name. ``progress``:
    True for a bar over the elbow's Ks on stderr (as ``tk.predict_reln``'s), or a
    :class:`~theorykit.progress.Progress` or tqdm bar of your own; the default None shows none.
    ``on_step(done)``: called with the ReLU training's steps done, about 100 times (the command
    line's bar of the training, the long part, shown with ``--K`` too). ``limits``: the size check's
    :class:`~theorykit.spec.limits.Limits` (default: half this machine's memory, an hour): a training whose
    estimate (:func:`training_estimate`) is over them is refused before anything is allocated, naming the
    size to lower (``hidden``, ``seeds``, ``steps``); ``Limits(force=True)`` lifts the time limit only."""
    task_or_spec = as_task(task_or_spec)
    if isinstance(task_or_spec, GDLNSpec):
        spec0 = task_or_spec
        task, tr = spec0.task, spec0.training
        hidden = spec0.hidden_total if hidden is None else hidden
    elif isinstance(task_or_spec, Task):
        task, tr = task_or_spec, Training()
        hidden = 100 if hidden is None else hidden
    else:
        raise SpecError("task_or_spec", f"expected a Task, data (X, Y) or a GDLNSpec, got "
                                        f"{type(task_or_spec).__name__}", "pass theorykit.contexts(...) or a loaded spec")
    if values:
        task = task.subs(values)
    if lr is not None:          # named as the keyword it is, by the one rule of every learning rate
        learning_rate(lr, "lr", "lr=0.05")
    if steps is not None:       # the others as Training checks them, naming the keyword (not training.steps)
        integer(steps, "steps", lo=1, hi=MAX_STEPS, fix=f"a positive integer (at most {fmt(MAX_STEPS)}), e.g. steps=2000")
    if init_std is not None:
        init_scale(init_std, "init_std", "init_std=0.01")
    if loss is not None:
        loss_name(loss, "loss", 'use loss="mean" or loss="sum"')
    tr = Training(lr=tr.lr if lr is None else lr, loss=tr.loss if loss is None else loss, a0=tr.a0,
                  init_std=tr.init_std if init_std is None else init_std, steps=tr.steps if steps is None else steps)
    # what k-means needs, checked before any network trains (a K above the distinct activity patterns
    # is allowed: its clusters merge, and the result says how many pathways came out)
    hidden = integer(hidden, "hidden", lo=1, fix="a positive width, e.g. hidden=128")
    integer(seeds, "seeds", lo=1, fix="a positive number of networks, e.g. seeds=4")
    check_elbow_settings(rule, threshold, n_init, seed, K=K, Ks=Ks)
    checked_progress(progress)
    integer(every, "every", lo=1, fix="a positive number of steps between snapshots, e.g. every=100")
    check_training_size(training_estimate(task, hidden=hidden, seeds=seeds, steps=tr.steps, every=every,
                                          elbow=len(list(Ks)) if K is None else 0), limits)
    X, Y = task.numeric()
    relu = train_relu(X, Y, hidden=int(hidden), lr=tr.lr, steps=tr.steps, seeds=seeds, init_std=tr.init_std,
                      loss=tr.loss, seed=seed, every=every, on_step=on_step)
    notes = []
    if K is None:
        with progress_bar(progress, "find-gates: elbow", len(list(Ks))) as bar:
            scores = elbow_scores(X, Y, relu, Ks, kmeans_seed=seed, n_init=n_init, progress=bar)
        K, rec, Ks = elbow_pick(scores, rule, threshold, notes)
    else:
        rec = patterns_for_K(X, Y, unit_rows(relu.snapshots), int(K), hidden, kmeans_seed=seed, n_init=n_init)
        scores, Ks = [], [K]
    # the record's patterns and shares: its centroids thresholded and those of zero Σyx dropped once, as for the elbow
    spec = patterns_to_spec(task, list(zip(rec["patterns"], rec["shares"])), int(hidden), tr, name)
    if len(spec.pathways) < K:
        notes.append(f"{K} clusters gave {counted(len(spec.pathways), 'distinct non-empty gate pattern')}")
    return FoundGates(spec, int(K), list(Ks), scores, relu, rule, tr.lr, tr.loss, notes)
