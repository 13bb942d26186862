"""Starts of a :class:`~theorykit.net.layout.Net`, shared by the theory and the simulator: random,
aligned (private chains and shared edges), and the one rule for the initial mode strength ``a0``
of a random start.

**The a0 rule.** A pathway of depth L whose layer l has i.i.d. N(0, σ_l²) entries and fan-out
n_l into the mode's direction starts, after the short silent-alignment phase, like an aligned,
balanced pathway of strength

    a0 = ¼ (σ1² n1 + σ2² n2)       for L = 2 (derived below),
    a0 = Π_l σ_l √(n_l / 2)        for L > 2 (a stated rule);

both are σ²n/2 at L = 2 when the layers' stds and widths agree.

Derivation for L = 2 (docs/theory.md#a0-rule): with w1 = W1 v and w2 = W2ᵀ u (both in R^H), the mode
strength is a = w1·w2. While the weights are small, τ dw1/dt = s w2 and τ dw2/dt = s w1, so
w1 + w2 grows as e^{st/τ} and w1 − w2 decays as e^{−st/τ}: a(t) → ¼‖w1(0) + w2(0)‖² e^{2st/τ}.
The closed form starts as a0 e^{2st/τ}, so a0 = ¼ E‖w1 + w2‖² = ¼(σ1² H + σ2² H) (what
:func:`a0_rule` returns for two layers) = σ²H/2 for σ1 = σ2 = σ, which is Π_l σ√(H/2). For L > 2 the same factor per layer (the half of each layer's
squared norm along the growing, symmetric direction) is a stated rule, not a derivation; the
depth suite reports how well it does.
"""
from __future__ import annotations

import functools
import math
from typing import Mapping, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import SpecError
from ..io import counted
from ..linalg import correlation, correlation_rank, data_scale, numeric_svd
from ..spec.fields import integer, real
from ..spec.graph import graph_from_pathways
from .layout import MATMUL_PRECISION, Net, as_dtype

__all__ = ["a0_rule", "random_params", "aligned_params", "aligned_net_params"]


def a0_rule(stds: Sequence[float] | float, widths: Sequence[int] | int, depth: int | None = None) -> float:
    """``a0 = ¼(σ₁² n₁ + σ₂² n₂)`` for two layers, ``Π_l σ_l √(n_l/2)`` deeper (module docstring):
    ``stds`` per layer (or one σ), ``widths`` the hidden width each layer's mode vector lives in (or
    one H), ``depth`` L when both are one number. The two forms agree at L = 2 when σ₁ = σ₂ (and
    n₁ = n₂); when the layers' stds differ (a checkpoint of a fan-in initialisation) the sum, the
    derivation's own form, is the right one."""
    if np.isscalar(stds) and np.isscalar(widths):
        L = 2 if depth is None else int(depth)
        stds, widths = [stds] * L, [widths] * L
    elif np.isscalar(stds):
        stds = [stds] * len(widths)
    elif np.isscalar(widths):
        widths = [widths] * len(stds)
    if len(stds) != len(widths):
        raise SpecError("a0_rule", "one width per layer is needed", "give as many widths as stds")
    if len(stds) < 2:
        raise SpecError("depth", f"{len(stds)} layers: a pathway has at least 2", "give a std and a width per layer")
    for sd, n in zip(stds, widths):     # a negative width or std gave a meaningless (negative) a0
        real(sd, "stds", lo=0.0, hi=math.inf, fix="weight stds ≥ 0, e.g. 0.01 (a zero-initialised layer: 0)")
        real(n, "widths", lo=0.0, hi=math.inf, lo_open=True, fix="positive widths, e.g. 64")
    if len(stds) == 2:
        return float(0.25 * sum(s * s * n for s, n in zip(stds, widths)))
    return float(np.prod([s * np.sqrt(n / 2.0) for s, n in zip(stds, widths)]))


def random_params(net: Net, scales: Mapping[str, float] | float, seeds: int = 1, seed: int = 0,
                  dtype: str = "float64", keys=None) -> dict:
    """N(0, σ_e²) weights for every edge (σ_e from ``scales``, by edge key, or one number),
    ``seeds`` members (or one per key in ``keys``). Drawn in float64 and cast, so float32 and
    float64 runs start alike; each member's key is split edge by edge in edge order."""
    shapes = net.shapes()
    if not (np.isscalar(scales) or isinstance(scales, Mapping)):
        raise SpecError("scales", f"needs one number or a dict edge → number, got {type(scales).__name__}",
                        f"e.g. 0.01, or a dict over the edges {list(shapes)}")
    sc = {k: scales for k in shapes} if np.isscalar(scales) else dict(scales)
    missing = [k for k in shapes if k not in sc]       # a KeyError of the first missing edge before
    if missing:
        raise SpecError("scales", f"no scale for the edges {missing}",
                        f"give one number for every edge, or a dict over the edges {list(shapes)}")
    for k in shapes:                                    # a negative or NaN σ drew weights without a word
        f = "scales" if np.isscalar(scales) else f"scales[{k!r}]"
        try:
            v = float(sc[k])
        except (TypeError, ValueError):
            raise SpecError(f, f"needs a number, got {sc[k]!r}", "a standard deviation ≥ 0, e.g. 0.01") from None
        if not (math.isfinite(v) and v >= 0):
            raise SpecError(f, f"{sc[k]!r} is not a standard deviation (a finite number ≥ 0)", "e.g. 0.01")
        sc[k] = v
    if keys is None:
        integer(seeds, "seeds", lo=1, fix="a positive number of members, e.g. seeds=4")    # 0: no weights
        keys = jax.random.split(jax.random.PRNGKey(seed), seeds)
    layout = tuple((k, tuple(int(n) for n in shapes[k]), sc[k]) for k in net.keys)
    return _draw(layout, str(np.dtype(as_dtype(dtype))))(jnp.asarray(keys))


@functools.lru_cache(maxsize=128)
def _draw(layout: tuple, dtype: str):
    """The compiled draw of :func:`random_params` for one layout of edges (key, shape, σ): built
    once per layout, so repeated draws (an elbow's K networks, a sweep's chunks) do not recompile."""
    def one(key):
        out = {}
        for k, shape, s in layout:
            key, sub = jax.random.split(key)
            out[k] = (s * jax.random.normal(sub, shape, dtype=jnp.float64)).astype(dtype)
        return out

    draw = jax.jit(jax.vmap(one))
    compiled = {}

    def call(keys):
        # compiled without LLVM's optimisations: the draw runs once, and the threefry rounds took
        # ~3 s to optimise on the CPU for every layout (0.35 s without; the draws agree to 1 ulp)
        if keys.shape not in compiled:
            low = draw.lower(keys)
            try:
                compiled[keys.shape] = low.compile(compiler_options={"xla_backend_optimization_level": 0})
            except Exception:                                        # a backend without the option
                compiled[keys.shape] = low.compile()
        return compiled[keys.shape](keys)

    return call


def _orthonormal(key, rows, cols, dtype):
    A = jax.random.normal(key, (rows, max(cols, 1)), dtype=dtype)
    Q, R = jnp.linalg.qr(A)
    return (Q * jnp.sign(jnp.diag(R)))[:, :cols]


def aligned_params(graph, a0: float, seeds: int = 1, seed: int = 0, dtype: str = "float64",
                   values: Mapping | None = None, frames: Mapping | None = None) -> dict:
    """Small, aligned, balanced weights of strength ``a0``.

    Private chains (no shared edge): every mode of each pathway's effective dataset starts at
    ``a0`` exactly (``W1 = a0^{1/L} R Vᵀ``, …, ``W_L = a0^{1/L} U Rᵀ``, R random orthonormal
    frames, U, V the exact singular vectors), so the closed form holds up to the O(η) gap
    between gradient descent and gradient flow.

    Shared edges: each hidden node v gets a random orthonormal frame R_v of r columns (r: rank
    of the full Σyx); an edge from the input is ``c_e R_v V_rᵀ`` (V_r: top right singular
    vectors of Σyx, on the edge's rows), a hidden edge ``c_e R_v R_uᵀ``, an edge to the output
    ``c_e Q_e R_uᵀ`` (Q_e: polar factor of Σ_{p∋e} Σyx_p V_r on its rows). With c_e² ∝ the number
    of pathways through e the weights are balanced at every node where every edge reads all input
    rows and writes at least r output rows (an edge restricted to fewer rows is not: its frame is
    not orthonormal there); the common factor makes the mean pathway strength ``a0`` (paths of
    different depths included). The activity stays in the frames, so this network's gradient
    flow is the r-dimensional flow that :mod:`theorykit.theory.flow` integrates.

    ``frames``: pathway name → ``(U, V)``, each pathway's singular vectors (e.g. a derivation's
    exact ones); by default numpy's SVD of its numeric Σyx, which gives the same start (``U Vᵀ``
    does not depend on the basis chosen within a repeated singular value).
    """
    g = graph_from_pathways(graph)
    dt = as_dtype(dtype)
    X, Y = g.task.numeric(values)
    if g.private_chains:
        return _aligned_chains(g, X, Y, a0, seeds, seed, dt, frames)
    return aligned_net_params(Net.from_graph(g), X, Y, a0, seeds, seed, dt, node_field=g.node_field)


def _aligned_chains(g, X, Y, a0, seeds, seed, dt, given=None):
    frames = []
    for gp in g.pathways:
        p = gp.pathway
        if given is not None and gp.name in given:
            U, V = (np.asarray(a, float) for a in given[gp.name])
        else:
            U, _s, V = numeric_svd(correlation(X[list(p.inputs)], Y[list(p.outputs)], p.active), scale=data_scale(X, Y))
        rank = U.shape[1]
        if p.hidden < rank:
            narrowest = min(g.nodes_of(gp.edges), key=g.width)
            raise SpecError(f"{g.node_field(narrowest)}.width",
                            f"{counted(p.hidden, 'hidden unit')} (node {narrowest!r}) cannot hold rank {rank}",
                            f"set the width >= {rank}")
        frames.append((gp, U, V, rank))

    def one(key):
        out = {}
        for gp, U, V, r in frames:
            key, *ks = jax.random.split(key, 3)
            L = len(gp.edges)
            widths = [g.width(k.split("->")[1]) for k in gp.edges[:-1]]
            Rs = [_orthonormal(ks[min(j, 1)], w, r, dt) if j < 2 else
                  _orthonormal(jax.random.fold_in(ks[1], j), w, r, dt) for j, w in enumerate(widths)]
            c = a0 ** (1.0 / L)
            out[gp.edges[0]] = c * Rs[0] @ jnp.asarray(V.T, dt)
            for j in range(1, L - 1):
                out[gp.edges[j]] = c * Rs[j] @ Rs[j - 1].T
            out[gp.edges[-1]] = c * jnp.asarray(U, dt) @ Rs[-1].T
        return out

    with jax.default_matmul_precision(MATMUL_PRECISION):      # float32 products: no TF32 on a GPU (engine.train too)
        return jax.vmap(one)(jax.random.split(jax.random.PRNGKey(seed), seeds))


def aligned_net_params(net: Net, X, Y, a0: float, seeds: int = 1, seed: int = 0, dtype="float64",
                       node_field=None) -> dict:
    """The shared-edge aligned start of :func:`aligned_params` (see there) for a :class:`Net` and
    numeric data (X: d × P, Y: p × P). ``node_field(name)``: the spec field an error names."""
    dt = as_dtype(dtype) if isinstance(dtype, str) else dtype
    real(a0, "a0", lo=0.0, hi=math.inf, lo_open=True, fix="a positive strength, e.g. a0=1e-3")   # a0 < 0: NaN weights
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    P = X.shape[1]
    r = correlation_rank(X, Y)
    Vr = np.linalg.svd(correlation(X, Y), full_matrices=False)[2][:r].T
    paths = net.paths(P)
    through = {}
    for i, (keys, _g, _i, _o) in enumerate(paths):
        for k in keys:
            through.setdefault(k, []).append(i)
    for v, w in net.nodes:
        if w < r:
            raise SpecError(f"{node_field(v) if node_field else 'nodes.' + v}.width",
                            f"{counted(w, 'unit')} (node {v!r}) cannot hold the task's rank {r} in an aligned start",
                            f"set width >= {r}, or use init = random")
    # c_e ∝ sqrt(#pathways through e); the common factor sets the mean pathway strength to a0
    rel = {k: np.sqrt(len(through[k])) for k in net.keys}
    prods = np.array([np.prod([rel[k] for k in keys]) for keys, _g, _i, _o in paths])
    depths = np.array([len(keys) for keys, _g, _i, _o in paths], float)
    if np.all(depths == depths[0]):
        c0 = (a0 / prods.mean()) ** (1.0 / depths[0])
    else:   # paths of different depths: the mean of c0^{L_p} Π rel is increasing in c0; solve it in log c0
        lo, hi = -800.0, 800.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if np.mean(np.exp(depths * mid) * prods) < a0 else (lo, mid)
        c0 = float(np.exp(0.5 * (lo + hi)))
    Q = {}
    for k, src, dst, ins, outs in net.edges:
        if dst == "output":
            S = sum(correlation(X, Y, paths[i][1]) for i in through[k])
            u, _, wt = np.linalg.svd(S[np.asarray(outs)] @ Vr, full_matrices=False)
            Q[k] = u @ wt
    width = dict(net.nodes)

    def one(key):
        R = {}
        for v, _w in net.nodes:
            key, sub = jax.random.split(key)
            R[v] = _orthonormal(sub, width[v], r, dt)
        out = {}
        for k, src, dst, ins, outs in net.edges:
            c = c0 * rel[k]
            if src == "input":
                out[k] = c * R[dst] @ jnp.asarray(Vr[np.asarray(ins)].T, dt)
            elif dst == "output":
                out[k] = c * jnp.asarray(Q[k], dt) @ R[src].T
            else:
                out[k] = c * R[dst] @ R[src].T
        return out

    with jax.default_matmul_precision(MATMUL_PRECISION):      # float32 products: no TF32 on a GPU (engine.train too)
        return jax.vmap(one)(jax.random.split(jax.random.PRNGKey(seed), seeds))
