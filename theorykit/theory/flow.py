"""The one race engine: gradient flows of the theory, integrated in JAX and vmapped over a batch
(gating families, initial strengths, swept values).

* :func:`integrate` is the integrator: classical fourth-order Runge–Kutta with a fixed step
  ``h``, recording chosen functions every ``record_every`` time units, ``vmap`` over the leading
  axis of the state and its arguments. The vector field, the solver settings and what is
  recorded are separate arguments (as in diffrax's ``diffeqsolve(terms, solver, saveat)``).
  scipy's ``solve_ivp`` (:func:`theorykit.theory.race.integrate_race`) is kept only as an independent
  second method, in tests.
* :func:`graph_flow` is the neural race reduction of a graph GDLN with shared edges
  (THEORY.md §3): gradient flow ``τ dW_e/dt = −∂L/∂W_e`` of its edge weights on the loss written
  through the pathways' effective datasets,

      L = ½ tr Σy − Σ_p ⟨W_p, Σyx_p⟩ + ½ Σ_{p,q} ⟨W_p, W_q Σx_qp⟩,

  with ``W_p`` the product of the edges on pathway p (embedded in its rows), ``Σyx_p = ⟨g_p y xᵀ⟩``
  and ``Σx_qp = ⟨g_q g_p x xᵀ⟩``. Its gradient is the edge update of THEORY.md §3, summed over the
  pathways through each edge, so the data enter only through the effective datasets. From
  aligned, balanced weights it runs at the smallest widths that hold the task (the rank r of the
  full Σyx); from given weights it is that network's own gradient flow.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from . import jaxify  # noqa: F401  (float64)
from ..errors import SpecError

__all__ = ["FlowResult", "integrate", "net_flow", "graph_flow", "race_flow_system", "effective_arrays", "effective_loss"]


@dataclass
class FlowResult:
    """``t``: recording times; ``records[name]``: batch × len(t) × …; ``final``: the end state."""

    t: np.ndarray
    records: dict
    final: object = None
    h: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def loss(self) -> np.ndarray:
        return self.records["loss"]


#: most RK4 steps one flow may take (about 60x the longest flow a suite integrates); beyond it a
#: spec's time scale is out of proportion with its data (a fuzz hang: 1.4e7 steps ran for minutes)
MAX_FLOW_STEPS = 2e6


def integrate(vector_field: Callable, y0, args=None, *, h: float, t_end: float | None = None,
              record_every: float | None = None, times=None, record: Mapping[str, Callable] | None = None,
              batched_args: bool = True) -> FlowResult:
    """Integrate ``dy/dt = vector_field(y, args)`` from ``y0`` (leading batch axis), starting at t = 0.

    What is recorded: ``record`` (name → ``fn(y, args)``) at ``times`` (sorted, ≥ 0), or at
    t = 0, record_every, 2·record_every, … up to the first multiple ≥ ``t_end``. How: RK4, each
    interval between recording times cut into ``ceil(length / h)`` equal steps (so no step is
    longer than ``h`` and every recording time is hit exactly).
    """
    if times is None:
        if not (record_every and record_every > 0 and t_end is not None and t_end >= 0):
            raise SpecError("flow", f"needs record_every > 0 and t_end >= 0 (got {record_every}, {t_end})",
                            "pass positive recording intervals, or times")
        nrec = int(math.ceil(t_end / record_every - 1e-12))
        ts = np.arange(nrec + 1) * float(record_every)
    else:
        ts = np.asarray(times, float)
        if ts.ndim != 1 or ts.size == 0 or (ts < 0).any() or (np.diff(ts) < 0).any() or not np.isfinite(ts).all():
            raise SpecError("times", "recording times must be finite, non-negative and sorted", "sort them")
    if not h > 0:
        raise SpecError("h", f"needs a positive step, got {h!r}", "e.g. h = tau / 40")
    lengths = np.diff(np.concatenate([[0.0], ts]))
    ratio = lengths / h
    if not np.all(np.isfinite(ratio)) or ratio.sum() > MAX_FLOW_STEPS:
        raise SpecError("training.lr", f"the flow would need {ratio.sum():.3g} integration steps of {h:.3g} to reach "
                        f"t = {ts[-1]:.3g} (the time scale tau = 1/lr sets the step)",
                        "ask for earlier --times, or check training.lr and the data's scale")
    nsub = np.where(lengths > 0, np.ceil(ratio - 1e-9), 0).astype(np.int32)
    steps = np.where(nsub > 0, lengths / np.maximum(nsub, 1), 0.0)
    record = dict(record or {})

    def axpy(a, x, y):
        return jax.tree_util.tree_map(lambda u, v: u + a * v, x, y)

    # RK4 as a loop over its four stages, so the vector field is traced and compiled once, not
    # four times (compile time dominated small flows): k_i = f(y + c_i dt k_{i−1}), y += dt Σ b_i k_i
    c_stage = jnp.asarray([0.0, 0.5, 0.5, 1.0])
    b_stage = jnp.asarray([1.0, 2.0, 2.0, 1.0]) / 6.0

    def one(y, a):
        def rk4(_, carry):
            yc, dt = carry

            def stage(i, sk):
                acc, k = sk
                k = vector_field(axpy(c_stage[i] * dt, yc, k), a)
                return axpy(b_stage[i] * dt, acc, k), k

            zero = jax.tree_util.tree_map(jnp.zeros_like, yc)
            ynew, _ = jax.lax.fori_loop(0, 4, stage, (yc, zero))
            return ynew, dt

        def interval(yc, seg):
            n, dt = seg
            yc, _ = jax.lax.fori_loop(0, n, rk4, (yc, dt))
            return yc, {k: fn(yc, a) for k, fn in record.items()}

        return jax.lax.scan(interval, y, (jnp.asarray(nsub), jnp.asarray(steps)))

    with jax.default_matmul_precision("highest"):
        final, recs = jax.jit(jax.vmap(one, in_axes=(0, 0 if batched_args else None)))(y0, args)
    return FlowResult(ts, jax.tree_util.tree_map(np.asarray, recs), final, float(steps.max(initial=0.0)))


# ---------------------------------------------------------------------------------------------
# The race of a graph GDLN
# ---------------------------------------------------------------------------------------------
def effective_arrays(net, X, Y) -> dict:
    """Numeric effective datasets of every pathway of a :class:`~theorykit.sim.engine.Net` on data
    X (d × P), Y (p × P): ``Syx`` (K × p × d, each in its rows and columns), ``Sx`` (K × K × d × d),
    ``trSy``; ⟨·⟩ averages over all P datapoints."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    P = X.shape[1]
    paths = net.paths(P)
    G = np.array([g for _k, g, _i, _o in paths], float)
    In = np.zeros((len(paths), X.shape[0]))
    Out = np.zeros((len(paths), Y.shape[0]))
    for j, (_k, _g, ins, outs) in enumerate(paths):
        In[j, ins] = 1.0
        Out[j, outs] = 1.0
    Syx = np.einsum("km,im,jm->kij", G, Y, X) / P * Out[:, :, None] * In[:, None, :]
    Sx = np.einsum("km,lm,im,jm->klij", G, G, X, X) / P
    return {"Syx": Syx, "Sx": Sx, "trSy": float(np.sum(Y * Y) / P), "P": P, "paths": paths}


def _pathway_maps(net, paths, params):
    """Each pathway's map embedded in the full p × d matrix (K × p × d)."""
    maps = []
    for keys, _g, ins, outs in paths:
        M = params[keys[0]]
        for k in keys[1:]:
            M = params[k] @ M
        maps.append(jnp.zeros((net.p, net.d), M.dtype).at[np.ix_(np.asarray(outs), np.asarray(ins))].set(M))
    return jnp.stack(maps)


def effective_loss(net, eff):
    """``params → L`` (mean loss) of ``net`` written through its effective datasets (module docstring)."""
    Syx, Sx, trSy, paths = jnp.asarray(eff["Syx"]), jnp.asarray(eff["Sx"]), eff["trSy"], eff["paths"]

    def loss(params):
        W = _pathway_maps(net, paths, params)
        lin = jnp.sum(W * Syx)
        quad = jnp.einsum("pij,qik,qpkj->", W, W, Sx)
        return 0.5 * trSy - lin + 0.5 * quad

    return loss


def net_flow(net, X, Y, params0, *, tau: float, times, loss_factor: float = 1.0, h: float | None = None,
             record: Mapping[str, Callable] | None = None) -> FlowResult:
    """Gradient flow ``τ dW_e/dt = −∂L/∂W_e`` of a :class:`~theorykit.sim.engine.Net`'s edge weights on its
    effective-dataset loss, from ``params0`` (leading batch axis), recorded at ``times`` exactly:
    ``records["loss"]`` (mean loss × ``loss_factor``) and ``record`` (name → fn(weights, None))."""
    eff = effective_arrays(net, X, Y)
    L = effective_loss(net, eff)
    grad = jax.grad(L)

    def field_(y, _a):
        return jax.tree_util.tree_map(lambda gw: -gw / tau, grad(y))

    rec = {"loss": lambda y, _a: L(y) * loss_factor}
    rec.update(record or {})
    times = np.asarray(times, float)
    order = np.argsort(times)
    res = integrate(field_, params0, None, times=times[order], h=h if h is not None else _default_step(tau, eff),
                    record=rec, batched_args=False)
    inv = np.argsort(order)
    res.records = jax.tree_util.tree_map(lambda r: r[:, inv], res.records)
    res.t = times
    res.extra["loss_at"] = res.records["loss"]
    return res


def _default_step(tau, eff):
    """RK4 step: τ/40 divided by the largest singular value of the effective datasets (at least 1),
    so a mode's growth rate 2s/τ times the step stays below 1/20."""
    s = max([np.linalg.norm(S, 2) for S in eff["Syx"]] + [1.0])
    return tau / (40.0 * s)


def graph_flow(graph, times, *, values: Mapping | None = None, start="aligned", a0: float | None = None,
               seeds: int = 1, seed: int = 0, h: float | None = None,
               record: Mapping[str, Callable] | None = None) -> FlowResult:
    """The race reduction of a graph GDLN (module docstring), recorded up to ``max(times)``.

    ``start``: ``"aligned"`` (small, aligned, balanced weights of strength ``a0`` at the
    smallest widths, :func:`theorykit.sim.init.aligned_params`) or a dict of weights with a leading
    batch axis (e.g. a simulation's initial weights: then this is that network's gradient flow).
    ``h``: largest RK4 step in gradient steps (default τ/(40 s_max)). Records the loss in the
    training's own units (× P for a summed loss) at ``times`` exactly (``extra["loss_at"]``:
    batch × len(times)), and ``record`` (name → fn(weights, None)) likewise.
    """
    from dataclasses import replace

    from ..spec.graph import graph_from_pathways
    from ..sim.init import aligned_params

    from ..sim.engine import Net

    g = graph_from_pathways(graph)
    X, Y = g.task.numeric(values)
    times = np.asarray(times, float)
    if isinstance(start, Mapping):
        params0 = {k: jnp.asarray(v) for k, v in start.items()}
        shape_graph = g
    elif start == "aligned":
        S = Y @ X.T / X.shape[1]
        r = max(1, int(np.linalg.matrix_rank(S, tol=1e-9 * max(np.abs(S).max(), 1e-300))))
        shape_graph = replace(g, nodes=tuple(replace(n, width=r) for n in g.nodes), path_names=dict(g.path_names))
        params0 = aligned_params(shape_graph, g.training.a0 if a0 is None else a0, seeds, seed, "float64", values)
    else:
        raise SpecError("start", f"unknown start {start!r}", "use \"aligned\" or a dict of weights")
    res = net_flow(Net.from_graph(shape_graph), X, Y, params0, tau=g.tau, times=times, loss_factor=g.loss_factor,
                   h=h, record=record)
    res.extra["widths"] = {n.name: n.width for n in shape_graph.nodes}
    return res


# ---------------------------------------------------------------------------------------------
# The race of a pathway system (closed-form-free pathway specs, Algorithm 1's found gates)
# ---------------------------------------------------------------------------------------------
def race_flow_system(system, a0, tau: float, times, h: float | None = None) -> FlowResult:
    """Integrate a :class:`theorykit.theory.race.RaceSystem` (Σyx_p, Σx_qp, output overlaps O_pq, each
    pathway's singular vectors U_p, V_p, depth L_p) from aligned maps of strength ``a0`` (one
    number, or a batch of numbers: one run each).

    Gradient flow on a minimal balanced factorisation of each map (W_1 = a0^{1/L} V_pᵀ, middle
    layers a0^{1/L} I, W_L = a0^{1/L} U_p; hidden width = the pathway's rank) of the loss
    ``½ tr Σy − Σ_p ⟨M_p, Σyx_p⟩ + ½ Σ_{p,q} ⟨M_p, O_pq M_q Σx_qp⟩``. Balance is conserved, so the
    maps follow the balanced matrix flow of the race reduction (THEORY.md §3) exactly.
    ``records``: ``loss`` (mean loss) and ``modes`` (per pathway u_αᵀ M_p v_α), batch × len(times).
    """
    times = np.asarray(times, float)
    a0s = np.atleast_1d(np.asarray(a0, float))
    Syx = [jnp.asarray(S) for S in system.Syx]
    pairs = [(p, q, jnp.asarray(system.O[(p, q)]), jnp.asarray(system.Sx[(q, p)]))
             for p in range(len(Syx)) for q in range(len(Syx)) if (p, q) in system.O and (q, p) in system.Sx]
    U = [jnp.asarray(u) for u in system.U]
    V = [jnp.asarray(v) for v in system.V]

    # the system's arrays travel as arguments, not as constants folded into the compiled program
    data = {"Syx": Syx, "O": [O for _p, _q, O, _S in pairs], "Sx": [S for _p, _q, _O, S in pairs], "U": U, "V": V}
    pq = [(p, q) for p, q, _O, _S in pairs]

    def maps(Ws):
        out = []
        for chain in Ws:
            M = chain[0]
            for W in chain[1:]:
                M = W @ M
            out.append(M)
        return out

    def loss(Ws, d):
        Ms = maps(Ws)
        val = 0.5 * system.Sy_trace - sum(jnp.sum(M * S) for M, S in zip(Ms, d["Syx"]))
        for (p, q), O, Sx in zip(pq, d["O"], d["Sx"]):
            val = val + 0.5 * jnp.sum(Ms[p] * (O @ Ms[q] @ Sx))
        return val

    grad = jax.grad(loss)

    def field_(Ws, d):
        return jax.tree_util.tree_map(lambda g: -g / tau, grad(Ws, d))

    def start(a):
        Ws = []
        for u, v, L in zip(U, V, system.depth):
            c = a ** (1.0 / L)
            Ws.append([c * v.T] + [c * jnp.eye(u.shape[1])] * (L - 2) + [c * u])
        return Ws

    def strengths(Ws, d):
        return [jnp.einsum("ia,ij,ja->a", u, M, v) for u, M, v in zip(d["U"], maps(Ws), d["V"])]

    s_max = max([float(np.linalg.norm(np.asarray(S), 2)) for S in system.Syx] + [1.0])
    order = np.argsort(times)
    if _stackable(system):
        field_, start, loss, strengths, data = _stacked_race(system, tau)
    res = integrate(field_, jax.jit(jax.vmap(start))(jnp.asarray(a0s)), data, times=times[order],
                    h=h if h is not None else tau / (40.0 * s_max),
                    record={"loss": loss, "modes": strengths}, batched_args=False)
    inv = np.argsort(order)
    res.records = jax.tree_util.tree_map(lambda r: r[:, inv], res.records)
    res.t = times
    res.extra["names"] = list(system.names)
    return res


def _stackable(system) -> bool:
    """Depth-2 pathways whose maps all have one shape: the race can be written on stacked arrays."""
    shapes = {np.asarray(S).shape for S in system.Syx}
    return len(system.Syx) > 1 and len(shapes) == 1 and all(L == 2 for L in system.depth)


def _stacked_race(system, tau: float):
    """The depth-2 race of :func:`race_flow_system` on stacked arrays (K pathways, one map shape):
    the loss is one einsum, so tracing and compiling do not grow with the K² pathway pairs.

    Each pathway's factors are padded to the largest rank with zero rows of ``W1`` and zero
    columns of ``W2``; a hidden unit with no weights in or out gets no gradient, so the padding
    stays zero and the flow is the unpadded one exactly. Pairs without an output overlap or an
    input correlation contribute zero."""
    K = len(system.Syx)
    p, d = np.asarray(system.Syx[0]).shape
    r = max(1, max(np.asarray(u).shape[1] for u in system.U))
    Syx = np.stack([np.asarray(S, float) for S in system.Syx])
    O = np.zeros((K, K, p, p))
    Sx = np.zeros((K, K, d, d))                  # Sx[q, p] = Σx_qp
    for a in range(K):
        for b in range(K):
            if (a, b) in system.O and (b, a) in system.Sx:
                O[a, b] = system.O[(a, b)]
                Sx[b, a] = system.Sx[(b, a)]
    U = np.zeros((K, p, r))
    V = np.zeros((K, d, r))
    for j, (u, v) in enumerate(zip(system.U, system.V)):
        U[j, :, :u.shape[1]] = u
        V[j, :, :v.shape[1]] = v
    data = {"Syx": jnp.asarray(Syx), "O": jnp.asarray(O), "Sx": jnp.asarray(Sx), "U": jnp.asarray(U),
            "V": jnp.asarray(V)}

    def maps(Ws):
        return jnp.einsum("kpr,krd->kpd", Ws[1], Ws[0])

    def loss(Ws, dd):
        M = maps(Ws)
        coupled = jnp.einsum("apd,abpq,bqe,baed->", M, dd["O"], M, dd["Sx"])
        return 0.5 * system.Sy_trace - jnp.sum(M * dd["Syx"]) + 0.5 * coupled

    grad = jax.grad(loss)

    def field_(Ws, dd):
        return jax.tree_util.tree_map(lambda g: -g / tau, grad(Ws, dd))

    def start(a):
        c = jnp.sqrt(a)
        return [c * jnp.swapaxes(data["V"], 1, 2), c * data["U"]]

    ranks = [np.asarray(u).shape[1] for u in system.U]

    def strengths(Ws, dd):
        s = jnp.einsum("kia,kij,kja->ka", dd["U"], maps(Ws), dd["V"])
        return [s[j, :rj] for j, rj in enumerate(ranks)]

    return field_, start, loss, strengths, data
