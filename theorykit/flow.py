"""The one race engine: gradient flows of the theory, integrated in JAX and vmapped over a batch
(gating families, initial strengths, swept values).

* :func:`integrate` is the integrator: classical fourth-order Runge–Kutta with a fixed step
  ``h``, recording chosen functions every ``record_every`` time units, ``vmap`` over the leading
  axis of the state and its arguments. The vector field, the solver settings and what is
  recorded are separate arguments (as in diffrax's ``diffeqsolve(terms, solver, saveat)``).
  scipy's ``solve_ivp`` (:func:`theorykit.race.integrate_race`) is kept only as an independent
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
from .errors import SpecError

__all__ = ["FlowResult", "integrate", "graph_flow", "effective_arrays", "effective_loss"]


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


def integrate(vector_field: Callable, y0, args=None, *, t_end: float, record_every: float, h: float,
              record: Mapping[str, Callable] | None = None, batched_args: bool = True) -> FlowResult:
    """Integrate ``dy/dt = vector_field(y, args)`` from ``y0`` (leading batch axis) to ``t_end``.

    RK4 with a step of at most ``h``: each recording interval ``record_every`` is cut into
    ``ceil(record_every / h)`` equal steps. ``record``: name → ``fn(y, args)``, evaluated at
    t = 0, record_every, 2·record_every, …, up to the first multiple ≥ ``t_end``.
    """
    if not (record_every > 0 and h > 0 and t_end >= 0):
        raise SpecError("flow", f"needs record_every > 0, h > 0, t_end >= 0 (got {record_every}, {h}, {t_end})",
                        "pass positive step sizes")
    nrec = int(math.ceil(t_end / record_every - 1e-12))
    sub = max(1, int(math.ceil(record_every / h - 1e-9)))
    step = record_every / sub
    record = dict(record or {})

    def axpy(a, x, y):
        return jax.tree_util.tree_map(lambda u, v: u + a * v, x, y)

    def one(y, a):
        def rk4(yc, _):
            k1 = vector_field(yc, a)
            k2 = vector_field(axpy(step / 2, yc, k1), a)
            k3 = vector_field(axpy(step / 2, yc, k2), a)
            k4 = vector_field(axpy(step, yc, k3), a)
            return jax.tree_util.tree_map(lambda p, b, c, d, e: p + step / 6 * (b + 2 * c + 2 * d + e),
                                          yc, k1, k2, k3, k4), None

        def rec_step(yc, _):
            r = {k: fn(yc, a) for k, fn in record.items()}
            yc, _ = jax.lax.scan(rk4, yc, None, length=sub)
            return yc, r

        y, recs = jax.lax.scan(rec_step, y, None, length=nrec)
        last = {k: fn(y, a) for k, fn in record.items()}
        recs = jax.tree_util.tree_map(lambda r, l_: jnp.concatenate([r, l_[None]]), recs, last)
        return y, recs

    with jax.default_matmul_precision("highest"):
        final, recs = jax.jit(jax.vmap(one, in_axes=(0, 0 if batched_args else None)))(y0, args)
    return FlowResult(np.arange(nrec + 1) * record_every, jax.tree_util.tree_map(np.asarray, recs), final, step)


# ---------------------------------------------------------------------------------------------
# The race of a graph GDLN
# ---------------------------------------------------------------------------------------------
def effective_arrays(graph, values: Mapping | None = None) -> dict:
    """Numeric effective datasets of every pathway of ``graph``: ``Syx`` (K × p × d), ``Sx``
    (K × K × d × d), ``trSy`` (mean loss units; ⟨·⟩ over all P datapoints)."""
    from .graph import graph_from_pathways

    g = graph_from_pathways(graph)
    X, Y = g.task.numeric(values)
    P = X.shape[1]
    G = np.array([gp.pathway.active for gp in g.pathways], float)
    Syx = np.einsum("km,im,jm->kij", G, Y, X) / P
    Sx = np.einsum("km,lm,im,jm->klij", G, G, X, X) / P
    return {"Syx": Syx, "Sx": Sx, "trSy": float(np.sum(Y * Y) / P), "P": P}


def _pathway_maps(graph, params):
    """Each pathway's map embedded in the full p × d matrix (K × p × d)."""
    d, p = graph.task.d, graph.task.p
    maps = []
    for gp in graph.pathways:
        M = params[gp.edges[0]]
        for k in gp.edges[1:]:
            M = params[k] @ M
        full = jnp.zeros((p, d), M.dtype).at[np.ix_(np.asarray(gp.pathway.outputs), np.asarray(gp.pathway.inputs))].set(M)
        maps.append(full)
    return jnp.stack(maps)


def effective_loss(graph, eff):
    """``params → L`` (mean loss) of ``graph`` written through its effective datasets (module docstring)."""
    Syx, Sx, trSy = jnp.asarray(eff["Syx"]), jnp.asarray(eff["Sx"]), eff["trSy"]

    def loss(params):
        W = _pathway_maps(graph, params)
        lin = jnp.sum(W * Syx)
        quad = jnp.einsum("pij,qik,qpkj->", W, W, Sx)
        return 0.5 * trSy - lin + 0.5 * quad

    return loss


def graph_flow(graph, times, *, values: Mapping | None = None, start="aligned", a0: float | None = None,
               seeds: int = 1, seed: int = 0, h: float | None = None, record_every: float | None = None,
               record: Mapping[str, Callable] | None = None) -> FlowResult:
    """The race reduction of a graph GDLN (module docstring), recorded up to ``max(times)``.

    ``start``: ``"aligned"`` (small, aligned, balanced weights of strength ``a0`` at the
    smallest widths, :func:`theorykit.init.aligned_params`) or a dict of weights with a leading
    batch axis (e.g. a simulation's initial weights: then this is that network's gradient flow).
    ``h``: RK4 step in gradient steps (default τ/40); ``record_every`` (default τ/40, at least 1).
    Records the loss in the training's own units (× P for a summed loss), interpolated to ``times``
    in ``extra["loss_at"]``.
    """
    from dataclasses import replace

    from .graph import graph_from_pathways
    from .init import aligned_params

    g = graph_from_pathways(graph)
    tau = g.tau
    eff = effective_arrays(g, values)
    times = np.asarray(times, float)
    if isinstance(start, Mapping):
        params0 = {k: jnp.asarray(v) for k, v in start.items()}
        shape_graph = g
    elif start == "aligned":
        r = max(1, int(np.linalg.matrix_rank(eff["Syx"].sum(0), tol=1e-9 * max(np.abs(eff["Syx"]).max(), 1e-300))))
        shape_graph = replace(g, nodes=tuple(replace(n, width=r) for n in g.nodes), path_names=dict(g.path_names))
        params0 = aligned_params(shape_graph, g.training.a0 if a0 is None else a0, seeds, seed, "float64", values)
    else:
        raise SpecError("start", f"unknown start {start!r}", "use \"aligned\" or a dict of weights")
    L = effective_loss(shape_graph, eff)
    grad = jax.grad(L)
    fac = g.loss_factor

    def field_(y, _a):
        return jax.tree_util.tree_map(lambda gw: -gw / tau, grad(y))

    every = record_every if record_every is not None else max(1.0, tau / 40)
    rec = {"loss": lambda y, _a: L(y) * fac}
    rec.update(record or {})
    res = integrate(field_, params0, None, t_end=float(times.max(initial=0.0)), record_every=every,
                    h=h if h is not None else tau / 40, record=rec, batched_args=False)
    res.extra["loss_at"] = np.stack([np.interp(times, res.t, row) for row in res.records["loss"]])
    res.extra["widths"] = {n.name: n.width for n in shape_graph.nodes}
    return res
