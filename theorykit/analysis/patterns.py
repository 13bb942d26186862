"""Which gate patterns a bias-free ReLU unit can realise on the data (exact LP feasibility, or a
stated seeded search), which of them a learning unit keeps (Definition 3.1's consistency), and
the data's symmetries that group them into orbits. Stages 1 and 2 of :mod:`theorykit.analysis.predict`.
"""
from __future__ import annotations
import math
import time

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from ..errors import SpecError, keyword_errors
from ..spec.fields import choice, integer, seed_value
from ..spec.ranges import SEED_WHAT
from ..spec.limits import Estimate, Limits, enforce
from ..linalg import data_pair, unit_columns
from ..theory.effective import exact_parts
from ..theory.lemmas import lp_pattern_feasible

#: largest datapoint count enumerated exactly
EXACT_MAX_P = 16

__all__ = ["cover_bound", "sample_bytes", "realisable_patterns", "gates_key", "consistent_pattern", "consistent_any_output", "data_symmetries", "pattern_orbits"]


def cover_bound(P: int, r: int) -> int:
    """Cover's count ``2 Σ_{k<r} C(P−1, k)``: the number of sign patterns P points of rank r admit in
    general position. It decides only which enumeration runs; the exact search's cap counts the
    non-empty patterns it finds (w = 0 adds the all-off pattern, which Cover's count need not hold)."""
    return 2 * sum(math.comb(P - 1, k) for k in range(min(r, P)))


def sample_bytes(samples: int, d: int, P: int) -> float:
    """Bytes the sampled enumeration holds at its peak: the weights W (samples × d float64), W·X (samples × P
    float64) and the patterns with their copy of the non-empty rows (2 × samples × P booleans)."""
    return float(samples) * (8.0 * d + 8.0 * P + 2.0 * P)


def _check_samples(samples, d: int, P: int) -> None:
    """Refuse, before drawing, ``samples`` weight vectors whose arrays (:func:`sample_bytes`) are over the memory
    limit (:class:`~theorykit.spec.limits.Limits`: half this machine's memory, or THEORYKIT_MAX_BYTES). Its
    errors name ``--samples`` with the command's fix, and carry the fix in Python's words (``samples=``) that
    :func:`~theorykit.errors.keyword_errors` gives a Python caller."""
    try:
        samples = integer(samples, "--samples", lo=1, fix="a positive number of weight vectors, e.g. --samples 20000")
    except SpecError as err:
        raise SpecError(err.field, err.problem, err.fix,
                        keyword_fix="a positive number of weight vectors, e.g. {key}=20000") from None
    est = Estimate("the sampled pattern enumeration").add("--samples", 0.0, sample_bytes(samples, d, P), samples)
    limits = Limits(max_seconds=math.inf)
    try:
        enforce(est, limits)
    except SpecError as err:
        most = int(limits.max_bytes // sample_bytes(1, d, P))      # the most samples under the limit
        raise SpecError(err.field, f"{samples} weight vectors of {d} inputs on {P} datapoints: {err.problem}",
                        f"{err.fix.split(';')[0]} (THEORYKIT_MAX_BYTES raises the limit)",
                        keyword_fix=(f"{{key}}={most} or fewer" if most >= 1 else
                                     "fewer datapoints or inputs: even {key}=1 is over the limit")
                        + " (THEORYKIT_MAX_BYTES raises the limit)") from None


def _checked(check, what: str, example: str):
    """``check()``, its SpecError's fix ``what, e.g. --option example`` (in Python's words: ``e.g. key=example``)."""
    try:
        return check()
    except SpecError as err:
        raise SpecError(err.field, err.problem, f"{what}, e.g. {err.field} {example}",
                        keyword_fix=f"{what}, e.g. {{key}}={example}") from None


@keyword_errors({"--samples": "samples", "--max-patterns": "max_patterns", "--enumerate": "method", "--seed": "seed"})
def realisable_patterns(X, *, method: str = "auto", max_patterns: int = 4096, samples: int = 20000,
                        seed: int = 0, exact_max_p: int = EXACT_MAX_P, deadline: float | None = None):
    """Realisable gate patterns of the data's columns (bias-free units), all-off dropped.

    Returns ``(patterns (N × P bool), counts (N,) or None, info)``. ``method``: ``"exact"`` (depth-first
    search with LP pruning, every pattern), ``"sample"`` (``samples`` seeded N(0, I) weight vectors;
    ``counts`` = how many drew each pattern), or ``"auto"`` (exact when P ≤ ``exact_max_p`` and Cover's
    bound is at most ``max_patterns``). ``deadline`` (a ``time.monotonic()`` value): the exact search
    raises :class:`TimeoutError` when it runs past it.

    Order of the rows (it numbers predict's orbits: :func:`pattern_orbits` numbers an orbit by its first
    pattern): exact, by the number of datapoints on, fewest first, then by the pattern read as a 0/1 tuple
    over the datapoints, smallest first (datapoint 1 is the most significant: on P = 3, (0, 0, 1),
    (0, 1, 0), (1, 0, 0), then (0, 1, 1), (1, 0, 1), (1, 1, 0), (1, 1, 1)); sampled, by how many weight
    vectors drew it, most first, ties as the exact order's second key. predict's ranking does not depend on
    this order: families of equal area and orbit count are told apart by their gates (:func:`gates_key`)."""
    X = np.asarray(X, float)
    if X.ndim != 2:                     # "not enough values to unpack"
        raise SpecError("X", f"needs the d × P inputs, got shape {X.shape}", "give X with datapoints as columns")
    if not np.isfinite(X).all():        # NaN: an SVD that did not converge (a LinAlgError)
        raise SpecError("X", "has values that are not finite (NaN or inf)", "give finite inputs")
    # max_patterns was never checked (0, -1, NaN and True ran; '5' a raw TypeError), nor seed (-1: a raw ValueError)
    _checked(lambda: integer(max_patterns, "--max-patterns", lo=1, fix=""), "a positive number of patterns", "4096")
    _checked(lambda: seed_value(seed, "--seed", ""), f"give {SEED_WHAT}", "0")
    d, P = X.shape
    r = int(np.linalg.matrix_rank(X)) if X.size else 0
    bound = cover_bound(P, r)
    if method == "auto":
        method = "exact" if P <= exact_max_p and bound <= max_patterns else "sample"
    if method == "exact":
        pats = _exact_patterns(X, max_patterns, deadline)
        if pats is None:
            raise SpecError("--max-patterns", f"the data has more than {max_patterns} realisable gate patterns",
                            "raise --max-patterns, or use the sampled search (--enumerate sample)")
        info = {"method": "exact", "how": "depth-first search over datapoints, LP feasibility of every prefix "
                                          "(w·x ≥ 1 on, w·x ≤ 0 off)", "cover_bound": bound, "rank": r}
        out = np.array(sorted(pats, key=lambda p: (sum(p), p)), dtype=bool).reshape(-1, P)
        return out[out.any(axis=1)], None, {**info, "found": int(out.any(axis=1).sum())}
    choice(method, "--enumerate", ("auto", "exact", "sample"), 'use "auto", "exact" or "sample"',
           problem=f"unknown method {method!r}")
    _check_samples(samples, d, P)
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((int(samples), d))
    G = (W @ X) > 0
    G = G[G.any(axis=1)]
    uniq, counts = np.unique(np.packbits(G, axis=1), axis=0, return_counts=True)
    pats = np.unpackbits(uniq, axis=1)[:, :P].astype(bool)
    order = np.argsort(-counts, kind="stable")
    info = {"method": "sample", "how": f"{int(samples)} weight vectors N(0, I), seed {seed}; each pattern found is "
                                       "realisable by construction; rare patterns may be missed",
            "cover_bound": bound, "rank": r, "found": int(len(pats))}
    return pats[order], counts[order], info


def _exact_patterns(X, cap, deadline=None):
    """Every realisable pattern (tuples), or None beyond ``cap``. A node is a feasible prefix with a
    witness w; a child whose bit the witness already gives (w·x > 1e-9 for on, after scaling w up;
    w·x < −1e-9, or w = 0, for off) needs no LP."""
    d, P = X.shape
    out = []
    stack = [((), np.zeros(d))]
    while stack:
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"the exact enumeration found {len(out)} patterns before its deadline")
        pre, w = stack.pop()
        k = len(pre)
        if k == P:
            if any(pre):            # all-off (w = 0) is dropped, and not counted against the cap
                out.append(pre)
                if len(out) > cap:
                    return None
            continue
        x = X[:, k]
        v = float(w @ x)
        zero = not np.any(w)
        for bit in (0, 1):
            g = pre + (bit,)
            if bit == 1 and v > 1e-9:
                stack.append((g, w * max(1.0, 1.0 / v)))
            elif bit == 0 and (zero or v < -1e-9):
                stack.append((g, w))
            else:
                ok, ww = lp_pattern_feasible(X[:, :k + 1], g)
                if ok:
                    stack.append((g, ww))
    return out


def gates_key(pats, idx) -> tuple:
    """The tie-break key of a family (or an orbit): the gate patterns ``pats[idx]`` as 0/1 tuples over the
    datapoints, sorted. It depends on the gates alone, never on the order the patterns were enumerated or
    the orbits numbered: predict ranks families of equal area and orbit count by it (smallest first)."""
    return tuple(sorted(tuple(int(v) for v in pats[i]) for i in idx))


def consistent_pattern(X, Y, gates, tol: float = 1e-9):
    """Whether the units of pathway ``gates`` can keep exactly these gates while they learn (Definition 3.1).

    From a small start a unit's weights grow along the pathway's top input direction v₁ (right singular
    vector of ``Y diag(g) Xᵀ``), with the sign of its output weight. Its pre-activations on the pathway's
    own datapoints are then those of ±v₁; on the other datapoints it is free to add any component n
    orthogonal to its own datapoints (the GDLN never sees it). So g is kept iff for one sign c = ±1:
    ``c v₁·x_μ > 0`` on every on-datapoint, and the LP ``w·x_μ = c v₁·x_μ`` (on), ``w·x_ν ≤ 0`` (off) is
    feasible. Returns ``(consistent, sign or 0)``.

    Where the top singular value is repeated (within 1e-9, relative), v₁ is any unit vector of the
    top subspace, and a unit grows along the one its start picks; SVD's choice would be arbitrary and
    could give two symmetric patterns different verdicts. The pattern is then kept iff *some*
    direction of that subspace keeps it: one LP over the direction and w (sign 0)."""
    from scipy.optimize import linprog

    X, Y = np.asarray(X, float), np.asarray(Y, float)
    g = np.asarray(gates, bool)
    S = (Y * g[None, :]) @ X.T
    Xu = unit_columns(X)
    _, sv, Vt = np.linalg.svd(S)
    if not sv.size or sv[0] <= 0:
        return False, 0
    top = int(np.sum(sv >= sv[0] * (1 - 1e-9)))
    if top > 1:
        return _grows_within(X, g, Vt[:top]), 0
    v = Vt[0]
    pre = v @ X[:, g]
    scale = max(np.abs(pre).max(), 1e-300)
    for c in (1.0, -1.0):
        if not np.all(c * pre > tol * scale):
            continue
        if g.all():
            return True, int(c)
        res = linprog(np.zeros(X.shape[0]), A_ub=Xu[:, ~g].T, b_ub=np.zeros(int((~g).sum())),
                      A_eq=Xu[:, g].T, b_eq=c * (v @ Xu[:, g]), bounds=[(None, None)] * X.shape[0], method="highs")
        if res.status == 0:
            return True, int(c)
    return False, 0


def _grows_within(X, g, D) -> bool:
    """One LP: some growth direction ``w₀ = Dᵀc`` (c free; the rows of D span the directions a unit may
    grow along) is positive on every on-datapoint, and some w equal to w₀ there is ≤ 0 on the rest.
    Variables [c (k), w (d)]: −c·D x_μ ≤ −1 (on), w·x_ν ≤ 0 (off), w·x_μ − c·D x_μ = 0 (on)."""
    from scipy.optimize import linprog

    X = unit_columns(X)
    k, d = D.shape
    A_on = (D @ X[:, g]).T                         # on × k
    sc = max(np.abs(A_on).max(), 1e-300)
    n_on, n_off = A_on.shape[0], int((~g).sum())
    A_ub = np.vstack([np.hstack([-A_on / sc, np.zeros((n_on, d))]), np.hstack([np.zeros((n_off, k)), X[:, ~g].T])])
    b_ub = np.r_[-np.ones(n_on), np.zeros(n_off)]
    A_eq = np.hstack([-A_on / sc, X[:, g].T])
    res = linprog(np.zeros(k + d), A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=np.zeros(n_on),
                  bounds=[(None, None)] * (k + d), method="highs")
    return res.status == 0


def consistent_any_output(X, Y, gates):
    """The relaxed consistency test (``consistency="any-output"``): some output direction u makes the
    unit's growth direction ``w₀ = Sᵀu`` (S = Y diag(g) Xᵀ) positive on every on-datapoint, and some w equal
    to w₀ there is ≤ 0 on the rest. One LP in (u, w). For one output it is the top-mode test of
    :func:`consistent_pattern`; with several outputs it also admits units that grow along lower modes."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    g = np.asarray(gates, bool)
    return _grows_within(X, g, (Y * g[None, :]) @ X.T), 0


# ---------------------------------------------------------------------------------------------
# 2. symmetry
# ---------------------------------------------------------------------------------------------
def _grams(task, X, Y):
    parts = exact_parts(task) if task is not None else None
    if parts is not None:
        Xb, _, Yb, _ = parts
        Xo, Yo = Xb.astype(object), Yb.astype(object)
        return (Xo.T @ Xo), (Yo.T @ Yo), True
    return X.T @ X, Y.T @ Y, False


def _codes(K) -> np.ndarray:
    """An exact Gram matrix as integer codes: equal codes exactly where the entries are equal."""
    index = {}
    flat = [index.setdefault(v, len(index)) for v in K.ravel()]
    return np.asarray(flat, dtype=np.int64).reshape(K.shape)


def data_symmetries(X, Y, task=None, max_group: int = 2000, deadline: float | None = None):
    """Datapoint permutations preserving XᵀX and YᵀY (see the module docstring).

    Returns ``(perms (list of arrays σ: datapoint μ goes to σ[μ]), info)``. Exact comparison on
    the task's rational entries when ``task`` has them (compared as integer codes of the exact
    values); else floats to 1e-12 relative. ``deadline`` (a ``time.monotonic()`` value): raise
    :class:`TimeoutError` when the search runs past it."""
    X, Y = data_pair(X, Y)
    P = X.shape[1]
    Kx, Ky, exact = _grams(task, X, Y)
    if exact:
        Cx, Cy = _codes(Kx), _codes(Ky)

        def rows_equal(A, b):           # which rows of A equal b
            return np.all(A == b, axis=-1)

        def colour(mu):
            return (Cx[mu, mu], Cy[mu, mu], tuple(np.sort(Cx[mu])), tuple(np.sort(Cy[mu])))
    else:
        # each Gram matrix on its own scale, so the tolerance is relative whatever the data's units
        Cx, Cy = (np.asarray(K, float) / max(float(np.max(np.abs(K))), 1e-300) for K in (Kx, Ky))

        def rows_equal(A, b):
            return np.all(np.abs(A - b) <= 1e-12, axis=-1)

        def colour(mu):  # rounded on floats
            return tuple(np.round([Cx[mu, mu], Cy[mu, mu]] + sorted(Cx[mu]) + sorted(Cy[mu]), 9))

    def late():
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"the symmetry search ran past its deadline while comparing {P} datapoints")

    # datapoints of one colour are each other's candidates: grouped by the colour's hash, P colours of 2P entries;
    # comparing every pair (P² comparisons of tuples of 2P entries) took minutes at P = 3000, past any deadline
    groups = {}
    for mu in range(P):
        if mu % 64 == 0:
            late()
        groups.setdefault(colour(mu), []).append(mu)
    cand = [None] * P
    for members in groups.values():
        arr = np.array(members, dtype=int)      # one array per colour, shared by its datapoints
        for mu in members:
            cand[mu] = arr
    late()
    perms, truncated = [], False
    sigma = np.full(P, -1, dtype=int)
    used = np.zeros(P, dtype=bool)

    def fitting(mu):
        """The unused candidates for μ whose diagonal entries, and entries against every datapoint
        placed so far, match μ's (all candidates at once)."""
        c = cand[mu][~used[cand[mu]]]
        for C in (Cx, Cy):
            rows = C[np.ix_(c, sigma[:mu])]
            keep = rows_equal(np.concatenate([rows, C[c, c][:, None]], axis=1),
                              np.append(C[mu, :mu], C[mu, mu]))
            c = c[keep]
        return c

    # depth-first over μ = 0 … P−1, by an explicit stack of each level's remaining candidates: a recursion one call
    # deep per datapoint raised RecursionError past ~1000 datapoints (predict --time-limit 0 on P = 3000: exit 70)
    stack = [iter(fitting(0))] if P else []
    if not P:
        perms.append(sigma.copy())
    while stack:
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"the symmetry search found {len(perms)} permutations before its deadline")
        mu = len(stack) - 1
        if sigma[mu] >= 0:          # this level's previous choice, undone
            used[sigma[mu]], sigma[mu] = False, -1
        nu = next(stack[-1], None)
        if nu is None:
            stack.pop()
            continue
        sigma[mu], used[nu] = nu, True
        if mu + 1 < P:
            stack.append(iter(fitting(mu + 1)))
            continue
        perms.append(sigma.copy())
        if len(perms) >= max_group:
            truncated = True
            break
    # verify every kept permutation in full (exactly where the task allows)
    good = []
    for s_ in perms:
        late()
        inv = np.argsort(s_)
        if rows_equal(Cx[np.ix_(inv, inv)].ravel(), Cx.ravel()) and rows_equal(Cy[np.ix_(inv, inv)].ravel(), Cy.ravel()):
            good.append(s_)
    info = {"order": len(good), "truncated_at": max_group if truncated else None,
            "test": "XᵀX and YᵀY preserved " + ("exactly (rational entries)" if exact else "to 1e-12 (floats)"),
            "exact": exact}
    return good, info


def pattern_orbits(patterns, perms, deadline: float | None = None):
    """Orbit index of every pattern under the datapoint permutations (a pattern moves with its datapoints).

    Patterns whose image is not in the list are left in their own orbit for that permutation (it never
    happens for an exact enumeration; a sampled one may lack an image). ``deadline``: as
    :func:`data_symmetries`."""
    pats = np.asarray(patterns, bool)
    N = len(pats)
    key = {p.tobytes(): i for i, p in enumerate(pats)}
    edges = []
    for s in perms:
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError("the orbits were not complete by the deadline")
        moved = np.zeros_like(pats)
        moved[:, s] = pats
        edges += [(i, key[m.tobytes()]) for i, m in enumerate(moved) if m.tobytes() in key]
    i, j = (np.array(e, dtype=int) for e in zip(*edges)) if edges else (np.zeros(0, int), np.zeros(0, int))
    graph = coo_matrix((np.ones(len(i)), (i, j)), shape=(N, N))
    # components numbered by their lowest pattern index, in order
    return connected_components(graph, directed=False)[1].astype(int)

