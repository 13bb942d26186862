"""Initial weights of a :class:`~theorykit.sim.engine.Net`: random, aligned, or given (a weight file),
and the one rule for the initial mode strength ``a0`` of a random start.

Weights are dicts keyed by edge, ``"<from>-><to>"``, each ``to_width × from_width`` (for an edge
from the input or to the output: the rows it reads or writes), with a leading ensemble axis. A
ReLU chain's weights may also be keyed ``W1, W2, …``.

**The a0 rule.** A pathway of depth L whose layer l has i.i.d. N(0, σ_l²) entries and fan-out
n_l into the mode's direction starts, after the short silent-alignment phase, like an aligned,
balanced pathway of strength

    a0 = Π_l σ_l √(n_l / 2).

Derivation for L = 2 (THEORY.md §2): with w1 = W1 v and w2 = W2ᵀ u (both in R^H), the mode
strength is a = w1·w2. While the weights are small, τ dw1/dt = s w2 and τ dw2/dt = s w1, so
w1 + w2 grows as e^{st/τ} and w1 − w2 decays as e^{−st/τ}: a(t) → ¼‖w1(0) + w2(0)‖² e^{2st/τ}.
The closed form starts as a0 e^{2st/τ}, so a0 = ¼ E‖w1 + w2‖² = ¼(σ1² H + σ2² H) = σ²H/2 for
σ1 = σ2 = σ, which is Π_l σ√(H/2). For L > 2 the same factor per layer (the half of each layer's
squared norm along the growing, symmetric direction) is a stated rule, not a derivation; the
depth suite reports how well it does.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Mapping, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .engine import Net, as_dtype
from ..errors import SpecError
from ..spec.fields import file_field

__all__ = ["a0_rule", "random_params", "aligned_params", "aligned_net_params", "load_weights", "save_weights", "from_chain_names", "unused_weight_keys",
           "read_npz", "check_weights", "file_field"]


def a0_rule(stds: Sequence[float] | float, widths: Sequence[int] | int, depth: int | None = None) -> float:
    """``a0 = Π_l σ_l √(n_l/2)`` (module docstring): ``stds`` per layer (or one σ), ``widths``
    the hidden width each layer's mode vector lives in (or one H), ``depth`` L when both are one number."""
    if np.isscalar(stds) and np.isscalar(widths):
        L = 2 if depth is None else int(depth)
        stds, widths = [stds] * L, [widths] * L
    elif np.isscalar(stds):
        stds = [stds] * len(widths)
    elif np.isscalar(widths):
        widths = [widths] * len(stds)
    if len(stds) != len(widths):
        raise SpecError("a0_rule", "one width per layer is needed", "give as many widths as stds")
    return float(np.prod([s * np.sqrt(n / 2.0) for s, n in zip(stds, widths)]))


def random_params(net: Net, scales: Mapping[str, float] | float, seeds: int = 1, seed: int = 0,
                  dtype: str = "float64", keys=None) -> dict:
    """N(0, σ_e²) weights for every edge (σ_e from ``scales``, by edge key, or one number),
    ``seeds`` members (or one per key in ``keys``). Drawn in float64 and cast, so float32 and
    float64 runs start alike; each member's key is split edge by edge in edge order."""
    shapes = net.shapes()
    sc = {k: float(scales) for k in shapes} if np.isscalar(scales) else dict(scales)
    if keys is None:
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
                   values: Mapping | None = None) -> dict:
    """Small, aligned, balanced weights of strength ``a0``.

    Private chains (no shared edge): every mode of each pathway's effective dataset starts at
    ``a0`` exactly (``W1 = a0^{1/L} R Vᵀ``, …, ``W_L = a0^{1/L} U Rᵀ``, R random orthonormal
    frames, U, V the exact singular vectors), so the closed form holds up to the O(η) gap
    between gradient descent and gradient flow.

    Shared edges: each hidden node v gets a random orthonormal frame R_v of r columns (r: rank
    of the full Σyx); an edge from the input is ``c_e R_v V_rᵀ`` (V_r: top right singular
    vectors of Σyx, on the edge's rows), a hidden edge ``c_e R_v R_uᵀ``, an edge to the output
    ``c_e Q_e R_uᵀ`` (Q_e: polar factor of Σ_{p∋e} Σyx_p V_r on its rows). With c_e² ∝ the number
    of pathways through e the weights are balanced at every node; the common factor makes the
    mean pathway strength ``a0``. The activity stays in the frames, so this network's gradient
    flow is the r-dimensional flow that :mod:`theorykit.theory.flow` integrates.
    """
    from ..spec.graph import graph_from_pathways

    g = graph_from_pathways(graph)
    dt = as_dtype(dtype)
    if g.private_chains:
        return _aligned_chains(g, a0, seeds, seed, dt, values)
    return _aligned_shared(g, a0, seeds, seed, dt, values)


def _aligned_chains(g, a0, seeds, seed, dt, values):
    from ..theory.derivation import Derivation

    spec = g.as_pathway_spec()
    der = Derivation(spec, values=values)
    vals = der.task.value_map(values)
    frames = []
    for gp in g.pathways:
        svd = der.modes[gp.name]
        U = np.array(svd.U.subs(vals).evalf(30).tolist(), dtype=float).reshape(svd.U.shape)
        V = np.array(svd.V.subs(vals).evalf(30).tolist(), dtype=float).reshape(svd.V.shape)
        if gp.pathway.hidden < svd.rank:
            narrowest = min(g.nodes_of(gp.edges), key=g.width)
            raise SpecError(f"{g.node_field(narrowest)}.width",
                            f"{gp.pathway.hidden} hidden units (node {narrowest!r}) cannot hold rank {svd.rank}",
                            f"set the width >= {svd.rank}")
        frames.append((gp, U, V, svd.rank))

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

    return jax.vmap(one)(jax.random.split(jax.random.PRNGKey(seed), seeds))


def _aligned_shared(g, a0, seeds, seed, dt, values):
    X, Y = g.task.numeric(values)
    return aligned_net_params(Net.from_graph(g), X, Y, a0, seeds, seed, dt, node_field=g.node_field)


def aligned_net_params(net: Net, X, Y, a0: float, seeds: int = 1, seed: int = 0, dtype="float64",
                       node_field=None) -> dict:
    """The shared-edge aligned start of :func:`aligned_params` (see there) for a :class:`Net` and
    numeric data (X: d × P, Y: p × P). ``node_field(name)``: the spec field an error names."""
    dt = as_dtype(dtype) if isinstance(dtype, str) else dtype
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    P = X.shape[1]
    _, s, vt = np.linalg.svd(Y @ X.T / P, full_matrices=False)
    r = max(1, int(np.sum(s > 1e-9 * max(s[0], 1e-300))))
    Vr = vt[:r].T
    paths = net.paths(P)
    through = {}
    for i, (keys, _g, _i, _o) in enumerate(paths):
        for k in keys:
            through.setdefault(k, []).append(i)
    for v, w in net.nodes:
        if w < r:
            raise SpecError(f"{node_field(v) if node_field else 'nodes.' + v}.width",
                            f"{w} units (node {v!r}) cannot hold the task's rank {r} in an aligned start",
                            f"set width >= {r}, or use init = random")
    # c_e ∝ sqrt(#pathways through e); the common factor sets the mean pathway strength to a0
    rel = {k: np.sqrt(len(through[k])) for k in net.keys}
    mean_prod = np.mean([np.prod([rel[k] for k in keys]) for keys, _g, _i, _o in paths])
    depth = np.mean([len(keys) for keys, _g, _i, _o in paths])
    c0 = (a0 / mean_prod) ** (1.0 / depth)
    Q = {}
    for k, src, dst, ins, outs in net.edges:
        if dst == "output":
            S = sum((Y * paths[i][1]) @ X.T / P for i in through[k])
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

    return jax.vmap(one)(jax.random.split(jax.random.PRNGKey(seed), seeds))


# ---------------------------------------------------------------------------------------------
# Weight files
# ---------------------------------------------------------------------------------------------
def from_chain_names(net: Net, weights: Mapping, where: str = "init weights") -> dict:
    """Accept ``W1, W2, …`` for a chain, or edge keys; return edge keys."""
    if net.keys and all(k in weights for k in net.keys):
        return {k: weights[k] for k in net.keys}
    names = {f"W{i + 1}": k for i, k in enumerate(net.keys)}
    if all(n in weights for n in names):
        return {names[n]: weights[n] for n in names}
    missing = [k for k in net.keys if k not in weights]
    raise SpecError(f"{where}: key {missing[0]!r}", f"missing: no weights for edges {missing} (the file has "
                    f"{sorted(map(str, weights))[:12]})",
                    f"key the arrays by edge ({', '.join(net.keys)}) or W1, W2, … for a ReLU chain")


def unused_weight_keys(raw: Mapping, net: Net) -> list:
    """The keys of ``raw`` that :func:`from_chain_names` does not read for ``net`` (biases,
    optimizer state, misnamed arrays): reported, since they change nothing in the run."""
    used = set(net.keys) if net.keys and all(k in raw for k in net.keys) else \
        {f"W{i + 1}" for i in range(len(net.keys))}
    return sorted(str(k) for k in raw if k not in used)


def load_weights(path, net: Net, seeds: int | None = None, dtype: str = "float64", unused: list | None = None) -> dict:
    """Read initial weights from an ``.npz`` (arrays keyed by edge or ``W1, W2, …``), checking every
    shape; each array is ``to × from`` or has a leading seed axis. Returns weights with a seed axis.
    ``unused``: a list that receives the file's keys the network does not read."""
    raw = read_npz(path, "--init-weights", "an .npz of weights", "save the weights with numpy.savez")
    out = check_weights(raw, net, seeds, dtype, file_field("--init-weights", path))
    if unused is not None:
        unused.extend(unused_weight_keys(raw, net))
    return out


#: largest magnitude of a weight read from a file
MAX_WEIGHT = 1e6
#: largest total size (bytes, as stored) of the arrays of one .npz file read (weights, data, checkpoints)
MAX_NPZ_BYTES = 4 << 30


def read_npz(path, option: str, what: str, how: str, max_bytes: float | None = None) -> dict:
    """Every array of an ``.npz`` (no pickles, no object arrays); a missing, unreadable, truncated
    or oversized file is a :class:`SpecError` naming ``option``, the file and, where one is at
    fault, the key. Each array's header (dtype, shape) is checked before its data is read, so a
    file that declares more data than memory allows is refused without reading it."""
    import zipfile

    from ..spec.limits import Limits

    path = Path(path)
    f = file_field(option, path)
    limit = min(MAX_NPZ_BYTES, Limits().max_bytes) if max_bytes is None else max_bytes
    try:
        zf = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise SpecError(option, f"no such file: {path}", f"give the path of {what}") from None
    except IsADirectoryError:
        raise SpecError(option, f"{path} is a folder", f"give the path of {what}") from None
    except Exception as exc:  # noqa: BLE001 - a corrupt, truncated or foreign file
        raise SpecError(f, f"is not a readable .npz ({type(exc).__name__}: {_short_exc(exc)})", how) from None
    out, total = {}, 0
    with zf:
        for info in zf.infolist():
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            kf = file_field(option, path, key)
            try:
                with zf.open(info) as fh:
                    version = np.lib.format.read_magic(fh)
                    if version == (1, 0):
                        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
                    else:
                        shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
            except Exception as exc:  # noqa: BLE001
                raise SpecError(kf, f"is not a readable array ({type(exc).__name__}: {_short_exc(exc)})", how) \
                    from None
            if dtype.hasobject:
                raise SpecError(kf, f"has dtype {dtype} (Python objects, read only with pickle)",
                                "store real numbers (float64, float32 or integers)")
            n = 1
            for s in shape:
                n *= int(s)
            nbytes = n * dtype.itemsize
            total += nbytes
            if total > limit:
                raise SpecError(kf, f"declares shape {tuple(shape)} ({nbytes} bytes), more than the "
                                f"{int(limit)} bytes a file may hold here", "store smaller arrays")
            try:
                with zf.open(info) as fh:
                    A = np.lib.format.read_array(fh, allow_pickle=False)
            except Exception as exc:  # noqa: BLE001 - truncated data, a bad CRC
                raise SpecError(kf, f"cannot be read ({type(exc).__name__}: {_short_exc(exc)})", how) from None
            if key in out:
                raise SpecError(kf, "appears twice in the file", how)
            out[key] = A
    return out


def _short_exc(exc, n: int = 160) -> str:
    s = " ".join(str(exc).split())
    return s if len(s) <= n else s[: n - 3] + "..."


def check_weights(raw: Mapping, net: Net, seeds: int | None = None, dtype: str = "float64",
                  where: str = "init weights") -> dict:
    """Weights keyed by edge (or W1, W2, …), each ``to × from`` with an optional leading seed axis,
    real and finite; errors name ``where`` and the key."""
    ws = from_chain_names(net, raw, where)
    shapes = net.shapes()
    out, n = {}, None
    for k, W in ws.items():
        W = np.asarray(W)
        f = f"{where}: key {k!r}"
        if W.dtype.kind not in "fiu":
            raise SpecError(f, f"has dtype {W.dtype}", "store real numbers (float64, float32 or integers)")
        if W.ndim == 2:
            W = W[None]
        if W.ndim != 3 or W.shape[1:] != shapes[k]:
            raise SpecError(f, f"has shape {W.shape}, the edge needs {shapes[k]} (or seeds × {shapes[k]})",
                            "each array is to_width × from_width (rows written/read for output/input edges)")
        if W.shape[0] < 1:
            raise SpecError(f, f"has shape {W.shape}: no seed", "give at least one set of weights")
        with np.errstate(all="ignore"):
            W = W.astype(np.float64)
        if not np.all(np.isfinite(W)):
            raise SpecError(f, "holds NaN or inf (or numbers beyond float64)", "store finite weights")
        if np.max(np.abs(W)) > MAX_WEIGHT:
            raise SpecError(f, f"holds a weight of magnitude {np.max(np.abs(W)):.3g}, more than {MAX_WEIGHT:g}",
                            "store initial weights of a trainable size (small: e.g. std 0.01)")
        if n is None:
            n = W.shape[0]
        elif W.shape[0] != n:
            raise SpecError(f, f"has {W.shape[0]} seeds, other arrays {n}", "give every edge the same seed axis")
        out[k] = W
    if seeds is not None and n == 1 and seeds > 1:
        out = {k: np.repeat(W, seeds, axis=0) for k, W in out.items()}
    elif seeds is not None and n != seeds:
        raise SpecError(where, f"holds {n} seeds, {seeds} asked for", f"use --seeds {n}")
    dt = as_dtype(dtype)
    return {k: jnp.asarray(W, dt) for k, W in out.items()}


def save_weights(path, params: Mapping, names: Mapping | None = None):
    """Write weights (with their seed axis) to an ``.npz``, atomically; ``names`` renames keys."""
    from ..io import atomic_write_bytes
    import io

    buf = io.BytesIO()
    np.savez(buf, **{(names or {}).get(k, k): np.asarray(v) for k, v in params.items()})
    atomic_write_bytes(Path(path), buf.getvalue())
