"""The neural race reduction: one system, one loss, one vector field (docs/theory.md#race).

With balanced weights (``W_{l+1}ᵀW_{l+1} = W_l W_lᵀ``, kept by gradient flow) a pathway's map
``M_p = W_L … W_1`` follows the race reduction

    τ dM_p/dt = Σ_j (M_p M_pᵀ)^{(L−j)/L} G_p (M_pᵀ M_p)^{(j−1)/L},
    G_p = Σyx_p − Σ_q M_q Σx_qp,

where every map is embedded in the full output × input matrix (zero outside the pathway's output
rows and input columns), so two pathways couple exactly where they share outputs and datapoints:
``Σx_qp = ⟨g_q g_p x xᵀ⟩`` vanishes when they share no datapoint, and ``⟨M_p, M_q Σx_qp⟩``
when they share no output row. Every overlap comes from the data; none is set by hand.

The flow is integrated in its factorised form: gradient flow ``τ dW/dt = −∇L`` of the one loss

    L(W) = ½ tr Σy − Σ_p ⟨M_p, Σyx_p⟩ + ½ Σ_{p,q} ⟨M_p, M_q Σx_qp⟩

on a minimal balanced factorisation of each aligned initial map (``W_1 = a^{1/L} V_pᵀ``, middle
layers ``a^{1/L} I``, ``W_L = a^{1/L} U_p``; hidden width = the pathway's rank). Balance is
conserved and the rank never grows, so this is the matrix flow above exactly, with matrix products
only. Pathways are stacked (ranks padded with zero units, which get no gradient and stay zero),
so tracing and compiling do not grow with the number of pathway pairs.

Where every pathway writes the same outputs, the outputs are first projected on the span of the
pathways' Σyx columns: every map's columns stay in that span under the flow (``G_p``'s columns
lie in ``col Σyx_p + Σ_q col M_q``), so the projected flow is the same flow, on fewer rows.

One engine for every caller: :meth:`RaceSystem.solve` (the theory's predictions, Algorithm 1's
found gates, the race by exhaustion over masks of a superset of pathways, swept initial
strengths) through the one integrator :func:`theorykit.theory.flow.integrate`. SciPy's
``solve_ivp`` on the map equation is the independent second method in the tests.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cache, cached_property

import jax
import jax.numpy as jnp
import numpy as np

from . import jaxify  # noqa: F401  (float64)
from .flow import Dopri5, integrate
from ..linalg import correlation_rank, data_pair, data_scale, numeric_svd
from ..errors import SpecError, keyword_typos
from ..io import counted
from ..record import SaveAt, Trajectory
from ..net.layout import Net
from ..net.starts import aligned_params
from ..spec.fields import integer, real, short_repr
from ..spec.graph import graph_from_pathways

__all__ = ["RaceSystem"]


@dataclass(frozen=True, eq=False)
class RaceSystem:
    """Numeric data of a system of pathways that race (float64), split into independent blocks.

    Pathway maps are embedded in the full output × input matrix. The input space is split into
    orthogonal subspaces ``R_b`` that every ``Σx_qp`` and every ``Σyx_pᵀΣyx_q`` leave invariant
    (found from the eigenvectors of a random combination of them, then joined wherever any of
    them connects two: the split is checked, not assumed), and the outputs into ``O_b =
    Σ_p Σyx_p R_b``. In those bases every Σyx_p and Σx_qp is block diagonal, the flow keeps the
    maps block diagonal (``G_p`` is), and an aligned start is block diagonal (the partial
    isometry ``U_p V_pᵀ`` of a block-diagonal matrix is), so the race is one small race per
    block, integrated side by side. Where pathways write different outputs there is one block,
    in the original coordinates, with output masks. Arrays (``nb`` blocks, padded):

    ``Syx`` nb × K × pb × db; ``Sxb`` nb × Kdb × Kdb (block (q, p): Σx_qp); ``Uf``/``Vf`` nb × K ×
    pb × r and nb × K × db × r, each pathway's singular vectors in each block (the start);
    ``Um``/``Vm`` nb × K × pb × R and nb × K × db × R, each pathway's mode vectors (the frames
    asked for) in each block; ``Ob`` nb × p × pb and ``Rb`` nb × d × db, the bases; ``om`` nb × K ×
    pb, the output masks.
    """

    names: tuple
    arrays_np: dict
    trSy: float
    ranks: tuple
    depth: tuple
    outputs: tuple
    inputs: tuple
    tau: float | None = None          # defaults of :meth:`solve` (a spec's τ, a0 and loss factor)
    a0: float | None = None
    loss_factor: float = 1.0
    #: a network's edges instead of one chain per pathway (:meth:`from_net`): each path's edge
    #: keys, input rows and output rows; the aligned start of a graph (:meth:`from_graph`)
    paths: tuple | None = None
    start_graph: object = None
    values: object = None

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def from_data(cls, X, Y, gates, *, inputs=None, outputs=None, depth=2, names=None, frames=None,
                  split: bool = True, tol: float = 1e-10) -> "RaceSystem":
        """The race of pathways with 0/1 ``gates`` (K × P) on data X (d × P), Y (p × P).

        ``inputs``/``outputs``: per pathway, the input and output indices it sees (default all).
        ``frames``: per pathway ``(U, V)`` in its own rows and columns, the mode vectors whose
        strengths are recorded (default: numpy's SVD of its Σyx,
        :func:`theorykit.linalg.numeric_svd`). ``depth``: one depth or one per pathway.
        ``split``: integrate independent blocks side by side (class docstring)."""
        X, Y = data_pair(X, Y)
        if not (np.isfinite(X).all() and np.isfinite(Y).all()):
            raise SpecError("X, Y", "the data hold NaN or inf", "give finite data")
        try:
            G = np.atleast_2d(np.asarray(gates, float))
        except (TypeError, ValueError):           # "all", a ragged list: not K × P numbers
            raise SpecError("gates", f"needs K × P 0/1 numbers, got {short_repr(gates)}",
                            "give one row of 0/1 gates per pathway, e.g. [[1, 1, 0, 0], [0, 0, 1, 1]]") from None
        K, P = G.shape
        d, p = X.shape[0], Y.shape[0]
        if X.shape[1] != P:
            raise SpecError("gates", f"gates cover {counted(P, 'datapoint')}, the data {X.shape[1]}", "one gate per datapoint")
        if not np.isin(G, (0.0, 1.0)).all() or not G.any(axis=1).all():
            raise SpecError("gates", "a gate is not 0 or 1, or a pathway is off on every datapoint",
                            "give each pathway 0/1 gates, on for at least one datapoint")
        one = not isinstance(depth, (list, tuple, np.ndarray))
        depths = (depth,) * K if one else tuple(depth)
        if len(depths) != K:
            raise SpecError("depth", f"{depth!r} is not one depth ≥ 2 or one per pathway ({K})", "e.g. depth=2")
        depths = tuple(integer(x, "depth" if one else f"depth[{k}]", lo=2, fix="a depth ≥ 2 (weight layers), e.g. depth=2")
                       for k, x in enumerate(depths))
        if names is not None and len(names) != K:
            raise SpecError("names", f"{len(names)} names for {K} pathways", "give one name per pathway")
        ins = [list(range(d)) if inputs is None or inputs[k] is None else list(inputs[k]) for k in range(K)]
        outs = [list(range(p)) if outputs is None or outputs[k] is None else list(outputs[k]) for k in range(K)]
        for what, rows, n in (("inputs", ins, d), ("outputs", outs, p)):
            if any(not r or min(r) < 0 or max(r) >= n for r in rows):
                raise SpecError(what, f"each pathway's {what} must be indices in 0…{n - 1}",
                                f"give one list of indices per pathway (or None: all {n})")
        im, om = np.zeros((K, d)), np.zeros((K, p))
        for k in range(K):
            im[k, ins[k]] = 1.0
            om[k, outs[k]] = 1.0
        # every pair at once (K² pairs: a loop over them took minutes for thousands of pathways)
        Syx = np.einsum("ap,kp,ip->kai", Y, G, X, optimize=True) / P * om[:, :, None] * im[:, None, :]
        Sx = np.einsum("ip,qp,rp,jp->qrij", X, G, G, X, optimize=True) / P \
            * im[:, None, :, None] * im[None, :, None, :]
        modes, scale = [], data_scale(X, Y)
        for k in range(K):
            if frames is not None and frames[k] is not None:
                u, v = (np.asarray(a, float) for a in frames[k])
            else:
                u, _s, v = numeric_svd(Syx[k][np.ix_(outs[k], ins[k])], scale=scale)
            U, V = np.zeros((p, u.shape[1])), np.zeros((d, v.shape[1]))
            U[outs[k]] = u
            V[ins[k]] = v
            modes.append((U, V))
        depths = tuple(int(x) for x in depths)
        same_out = bool(np.all(om == om[:1]))
        Rb, Ob = _blocks(Syx, Sx, tol) if split and same_out else ([np.eye(d)], [np.eye(p)])
        arr = {**_block_arrays(Syx, Sx, modes, Rb, Ob, om if not same_out else None, scale), "X": X, "Y": Y, "G": G}
        return cls(tuple(names or [f"g{k + 1}" for k in range(K)]), arr, float(np.sum(Y * Y) / P),
                   tuple(U.shape[1] for U, _V in modes), depths, tuple(map(tuple, outs)), tuple(map(tuple, ins)))

    @classmethod
    def from_spec(cls, spec, values=None, *, frames=None, target=None, split: bool = True) -> "RaceSystem":
        """The race of a :class:`~theorykit.spec.gating.GDLNSpec`'s pathways on its task's numbers
        (``target`` replaces Y, e.g. by a residual)."""
        if not (hasattr(spec, "task") and hasattr(spec, "pathways")):     # a Task, a path: no pathways to race
            raise SpecError("spec", f"expected a GDLNSpec, got {type(spec).__name__}",
                            "pass a pathway spec: tk.load_spec(path) or tk.GDLNSpec(task, pathways)")
        X, Y = spec.task.numeric(values)
        if target is not None:
            Y = np.asarray(target, float)
        ps = spec.pathways
        system = cls.from_data(X, Y, [p.active for p in ps], inputs=[p.inputs for p in ps],
                               outputs=[p.outputs for p in ps], depth=[p.depth for p in ps],
                               names=[p.name for p in ps], frames=frames, split=split)
        return replace(system, tau=float(spec.tau), a0=float(spec.training.a0), loss_factor=float(spec.loss_factor))

    @classmethod
    def from_net(cls, net, X, Y, *, tau: float | None = None, a0: float | None = None,
                 loss_factor: float = 1.0) -> "RaceSystem":
        """The race of a :class:`~theorykit.net.layout.Net` whose pathways may share edges
        (docs/theory.md#race): the state is the network's edge weights, each pathway's map the
        product of the edges on its path (embedded in its rows and columns), and the loss and
        vector field are the system's one loss of those maps. From a network's own weights
        (``solve(start=weights)``) it is that network's gradient flow on its effective datasets."""
        X, Y = np.asarray(X, float), np.asarray(Y, float)
        paths = net.paths(X.shape[1])
        every_in, every_out = np.arange(net.d), np.arange(net.p)
        ins = [every_in if i is None else np.asarray(i) for _k, _g, i, _o in paths]
        outs = [every_out if o is None else np.asarray(o) for _k, _g, _i, o in paths]
        system = cls.from_data(X, Y, [g for _k, g, _i, _o in paths], inputs=ins, outputs=outs,
                               depth=[len(k) for k, _g, _i, _o in paths], names=["+".join(k) for k, *_ in paths],
                               split=False)
        layout = tuple((tuple(k), tuple(int(x) for x in i), tuple(int(x) for x in o))
                       for (k, *_), i, o in zip(paths, ins, outs))
        return replace(system, tau=tau, a0=a0, loss_factor=float(loss_factor), paths=(layout, net.p, net.d))

    @classmethod
    def from_graph(cls, graph, values=None) -> "RaceSystem":
        """The race of a graph GDLN with shared edges (:meth:`from_net`) at its task's numbers, with
        the graph's τ, a0 and loss factor. Its aligned start (``solve()`` with no ``start``) runs at
        the smallest widths that hold the task, the rank r of the full Σyx
        (:func:`theorykit.net.starts.aligned_params`)."""
        g = graph_from_pathways(graph)
        X, Y = g.task.numeric(values)
        r = correlation_rank(X, Y)                       # the aligned start's r (net.starts), by one rule
        small = replace(g, nodes=tuple(replace(n, width=r) for n in g.nodes), path_names=dict(g.path_names))
        net = Net.from_graph(small)
        system = cls.from_net(net, X, Y, tau=float(g.tau), a0=float(g.training.a0), loss_factor=float(g.loss_factor))
        # the graph's own pathway names (its hidden nodes, "trunk/A"), not the edge chains
        dst = {k: d for k, _s, d, *_ in net.edges}
        hidden = [tuple(dst[k] for k in keys[:-1]) for keys, *_ in net.paths(X.shape[1])]
        names = tuple(g.path_names.get(h, "/".join(h)) for h in hidden)
        return replace(system, start_graph=small, values=values, names=names)

    # -- the one loss and the one start ------------------------------------------------------
    def __repr__(self):      # the arrays are data, not a description: their shapes only
        blocks = self.arrays_np["Syx"].shape[0] if "Syx" in self.arrays_np else "?"
        return (f"RaceSystem(pathways={list(self.names)}, depth={list(self.depth)}, blocks={blocks}, "
                f"tau={self.tau}, a0={self.a0}, loss_factor={self.loss_factor})")

    def start(self, a0, mask=None):
        """Aligned, balanced factors of strength ``a0`` (a number or one per pathway; ``mask``
        zeroes pathways, which then stay at zero). For a graph's race (:meth:`from_graph`): its
        aligned edge weights, of one strength."""
        if self.paths is not None:
            return {k: v[0] for k, v in self._initial(a0, mask, None).items()}
        a = jnp.broadcast_to(jnp.asarray(a0, jnp.float64), (self.K,))
        if mask is not None:
            a = a * jnp.asarray(mask, jnp.float64)
        return _start(a, self.arrays(), self._groups())

    def loss(self, Ws) -> float:
        """The mean loss ½⟨‖y − ŷ‖²⟩ of the state ``Ws`` (one chain of factors per pathway, or a
        network's edge weights for a system :meth:`from_net`; module docstring)."""
        return _data_loss(_maps_of(self._layout())(Ws), self.arrays())

    def arrays(self) -> dict:
        """The system's arrays, as the compiled vector field takes them."""
        out = {k: jnp.asarray(v) for k, v in self.arrays_np.items()}
        out["trSy"] = jnp.asarray(self.trSy)
        return out

    @property
    def K(self) -> int:
        """The number of pathways that race."""
        return len(self.names)

    @property
    def blocks(self) -> list:
        """The blocks' (output, input) dimensions."""
        return list(zip(self.arrays_np["pdim"].tolist(), self.arrays_np["ddim"].tolist()))

    def _groups(self) -> tuple:
        return tuple((L, tuple(k for k in range(self.K) if self.depth[k] == L)) for L in sorted(set(self.depth)))

    def _layout(self) -> tuple:
        """What the state is, as the compiled pieces are keyed: chains (depth groups) or edges."""
        return ("edges", self.paths) if self.paths is not None else ("chains", self._groups(), self.K)

    @cached_property
    def rate(self) -> float:
        """Largest singular value of the pathways' Σyx (at least 1): the flow's fastest rate × τ."""
        S = self.arrays_np["Syx"]
        top = np.linalg.svd(S, compute_uv=False)[..., 0] if S.size else np.zeros(0)
        return max(float(np.max(top, initial=0.0)), 1.0)

    # -- solving -------------------------------------------------------------------------------
    @keyword_typos
    def solve(self, save=None, *, t_end=None, tau: float | None = None, a0=None, masks=None, start=None, solver=None,
              modes: bool = True, svals: int = 0, loss_factor: float | None = None) -> Trajectory:
        """Integrate the race with :func:`~theorykit.theory.flow.integrate`.

        The start: aligned maps of strength ``a0`` (a number, one per pathway, or batch ×
        pathways; ``masks``, batch × pathways of 0/1, integrates sub-families of these pathways at
        once), or, for a system :meth:`from_net`, ``start``: the network's edge weights with a
        leading batch axis (its own gradient flow; by default the graph's aligned start of one
        strength ``a0``, :meth:`from_graph`; ``masks`` are for chains only). Recorded as ``save`` says
        (:class:`~theorykit.record.SaveAt`, the trainer's too): at ``save.ts`` exactly, in any order
        (a list of times is short for ``SaveAt(ts=times)``), or every ``save.every`` up to ``t_end``;
        the race records its loss, modes and singular values itself, so ``save.fns`` stays empty.
        ``solver``: :class:`~theorykit.theory.flow.Dopri5` (default) or
        :class:`~theorykit.theory.flow.RK4`. ``tau``, ``a0``, ``loss_factor``: by default the spec's.

        Returns the :class:`~theorykit.record.Trajectory` that the trainer returns too: ``loss``
        (batch × len(t), the mean loss × ``loss_factor``: P for a summed loss, from the residual on the
        data, so a tail far below L(0) is as good as the state: RK4's fixed steps follow it to ~1e-28
        of L(0), Dopri5 to about its rtol² of L(0));
        ``saved["modes"][name]`` (batch × len(t) × rank: each mode's u_αᵀ M_p v_α, with ``modes``);
        ``saved["svals"][name]`` (batch × len(t) × m: the m largest singular values of each map,
        with ``svals=m``); ``params[name]``: each pathway's final map, batch × outputs × inputs;
        ``extra``: the solver, its steps, the number of blocks and, for a graph's aligned start, the widths.
        ``params`` is None with ``SaveAt(final=False)``."""
        if start is not None and self.paths is None:
            raise SpecError("start", "weights start only a network's race", "build it with RaceSystem.from_net")
        if start is not None and a0 is not None:
            raise SpecError("a0", "a given start sets every strength", "pass start= or a0=, not both")
        tau = self.tau if tau is None else tau
        a0 = self.a0 if a0 is None else a0
        loss_factor = self.loss_factor if loss_factor is None else loss_factor
        if tau is None or (a0 is None and self.paths is None):
            raise SpecError("tau" if tau is None else "a0", "needs a time scale and an initial strength",
                            "pass tau= and start= (a network's race, RaceSystem.from_net)" if self.paths is not None
                            else "pass tau= and a0=, or build the system with RaceSystem.from_spec")
        real(tau, "tau", lo=0.0, hi=math.inf, lo_open=True, fix="a positive time scale in steps, e.g. tau=100 (1/lr)")
        real(loss_factor, "loss_factor", lo=0.0, hi=math.inf, lo_open=True, fix="1 (mean loss) or P (summed)")
        if a0 is not None:      # one strength > 0; an array (per pathway, per family) may hold 0 where masked
            a0s = np.asarray(a0, dtype=object).ravel()
            for v in a0s:
                real(v, "a0", lo=0.0, hi=math.inf, lo_open=a0s.size == 1, fix="a positive strength, or one per pathway")
            if a0s.size not in (1, self.K) and np.ndim(a0) == 1:
                raise SpecError("a0", f"{a0s.size} strengths for {self.K} pathways", "give one, or one per pathway")
        layout, data = self._layout(), self.arrays()
        y0 = self._initial(a0, masks, start)
        data["tau"] = jnp.asarray(float(tau))
        if save is None or not isinstance(save, SaveAt):
            if save is None or np.ndim(save) != 1:
                raise SpecError("save", f"needs recording times, got {save!r}",
                                "pass a list of times, SaveAt(ts=[...]) or SaveAt(every=...) with t_end")
            save = SaveAt(ts=save)
        if save.fns:
            raise SpecError("save.fns", "a race records its loss, modes and singular values itself",
                            "leave fns out; ask for modes= or svals=")
        if save.loss_every != 1:
            raise SpecError("save.loss_every", "a race records its loss at the recording times",
                            "leave loss_every out")
        order = None
        if np.ndim(save.ts) == 1 and np.size(save.ts) and save.every is None:      # any order: sorted here
            times = np.asarray(save.ts, float)
            order = np.argsort(times, kind="stable")
            save = SaveAt(ts=times[order], final=save.final)
        save.times(t_end)                       # checked: both ts and every, bad times, a missing t_end
        record = {"loss": _record_loss(layout)}
        if modes:
            record["modes"] = _record_modes(layout)
        if svals:
            record["svals"] = _record_svals(layout, int(svals))
        res = integrate(_field(layout), y0, data, solver=solver or Dopri5(), t_end=t_end,
                        save=SaveAt(save.ts, save.every, record), batched_args=False, rate=self.rate / tau)
        recs = {k: np.asarray(v) for k, v in res.saved.items()}
        t = res.saved_t
        if order is not None:
            inv = np.argsort(order)
            recs = {k: v[:, inv] for k, v in recs.items()}
            t = t[inv]
        saved = {"modes": {n: recs["modes"][:, :, k, :self.ranks[k]] for k, n in enumerate(self.names)}} if modes else {}
        extra = {**res.extra, "blocks": len(self.blocks)}      # the solver, its steps and h
        if svals:
            saved["svals"] = {n: recs["svals"][:, :, k] for k, n in enumerate(self.names)}
        if self.start_graph is not None and start is None:
            extra["widths"] = {n.name: n.width for n in self.start_graph.nodes}
        maps = self._final_maps(layout, res.params) if save.final else None
        return Trajectory(t, recs["loss"] * loss_factor, saved, t, maps, extra)

    def _final_maps(self, layout, params) -> dict:
        """Each pathway's final map (name → batch × outputs × inputs) from the flow's final state."""
        maps_of = _maps_of(layout, np)
        fin = jax.tree_util.tree_map(np.asarray, params)
        B = len(jax.tree_util.tree_leaves(fin)[0])
        final = np.stack([maps_of(jax.tree_util.tree_map(lambda w, i=i: w[i], fin)) for i in range(B)])
        full = np.einsum("bip,zbkpq,bjq->zkij", self.arrays_np["Ob"], final, self.arrays_np["Rb"], optimize=True)
        return {n: full[:, k][:, list(self.outputs[k])][:, :, list(self.inputs[k])] for k, n in enumerate(self.names)}

    def _initial(self, a0, masks, start):
        """The batched start of :meth:`solve` (numpy: small, and no compilation beyond the flow's own)."""
        if self.paths is not None:
            if masks is not None:
                raise SpecError("masks", "sub-families are raced from aligned chains, not from a network's edges",
                                "build the pathways' race with RaceSystem.from_data or from_spec")
            if start is None:
                if self.start_graph is None:
                    raise SpecError("start", "a network's race needs its start weights",
                                    "pass start= (edge weights with a leading batch axis), or use from_graph")
                a = np.asarray(self.a0 if a0 is None else a0, float)
                if a.ndim:
                    raise SpecError("a0", f"a graph's aligned start takes one strength, got shape {a.shape}",
                                    "pass one number (the mean pathway strength)")
                # built once per strength (a seeded draw of frames: the same weights every time; a REPL's
                # repeated predict_loss of a graph spent most of a short flow's time here)
                cache = self.__dict__.setdefault("_aligned_starts", {})
                if float(a) not in cache:
                    cache[float(a)] = aligned_params(self.start_graph, float(a), 1, 0, "float64", self.values)
                start = cache[float(a)]
            return {k: jnp.asarray(v) for k, v in start.items()}
        K = self.K
        a = np.asarray(a0, float)
        a = a[None] if a.ndim == 1 else a
        B = max(a.shape[0] if a.ndim == 2 else 1, 1 if masks is None else np.atleast_2d(masks).shape[0])
        masks = np.ones((B, K)) if masks is None else np.broadcast_to(np.atleast_2d(np.asarray(masks, float)), (B, K))
        a = np.broadcast_to(a, (B, K))
        starts = [_start(a[i] * masks[i], self.arrays_np, self._groups(), np) for i in range(B)]
        return jax.tree_util.tree_map(lambda *ws: jnp.asarray(np.stack(ws)), *starts)


# ---------------------------------------------------------------------------------------------
# The split into blocks
# ---------------------------------------------------------------------------------------------
def _orth(A, tol):
    if A.size == 0:
        return np.zeros((A.shape[0], 0))
    U, s, _ = np.linalg.svd(A, full_matrices=False)
    return U[:, s > tol * max(s[0], 1e-300)] if s.size and s[0] > 0 else np.zeros((A.shape[0], 0))


def _blocks(Syx, Sx, tol):
    """Orthonormal input bases R_b and output bases O_b that split the race (class docstring)."""
    from scipy.sparse.csgraph import connected_components

    K, p, d = Syx.shape
    # the generators: every Σx_qr and every Σyx_qᵀ Σyx_r (K × K × d × d each), handled as arrays
    gram = np.einsum("qai,raj->qrij", Syx, Syx, optimize=True)
    # each generator is weighed against its own scale: Σx scales with X², the Grams with X²Y², and one
    # threshold for both took a real coupling through the outputs for noise when Y was small (Y·1e-6)
    sx_scale, gram_scale = (max(float(np.abs(M).max(initial=0.0)), 1e-300) for M in (Sx, gram))
    c = np.random.default_rng(20250125).normal(size=(2, K, K))
    A = np.einsum("qr,qrij->ij", c[0], Sx) / sx_scale + np.einsum("qr,qrij->ij", c[1], gram) / gram_scale
    _w, Q = np.linalg.eigh(A + A.T)
    adj = (np.abs(np.einsum("ia,qrij,jb->qrab", Q, Sx, Q, optimize=True)) > tol * sx_scale).any(axis=(0, 1))
    adj |= (np.abs(np.einsum("ia,qrij,jb->qrab", Q, gram, Q, optimize=True)) > tol * gram_scale).any(axis=(0, 1))
    nc, lab = connected_components(adj, directed=False)
    Rb = [Q[:, lab == c] for c in range(nc)]
    Ob = [_orth(np.concatenate([Syx[k] @ R for k in range(K)], axis=1), 1e-12) for R in Rb]
    # check the split: every Σyx_p is rebuilt from its blocks
    rebuilt = sum(np.einsum("ia,kab,jb->kij", O, np.einsum("ia,kij,jb->kab", O, Syx, R), R) for O, R in zip(Ob, Rb))
    if not np.allclose(rebuilt, Syx, rtol=0, atol=1e-9 * max(float(np.abs(Syx).max(initial=0.0)), 1e-300)):
        return [np.eye(d)], [np.eye(p)]
    return Rb, Ob


def _block_arrays(Syx, Sx, modes, Rb, Ob, om, scale) -> dict:
    """The padded block arrays of :class:`RaceSystem` (``om``: output masks, one block only; ``scale``:
    the data's :func:`~theorykit.linalg.data_scale`)."""
    K, p, d = Syx.shape
    nb = len(Rb)
    pb = max(1, max(O.shape[1] for O in Ob))
    db = max(1, max(R.shape[1] for R in Rb))
    Rmax = max([U.shape[1] for U, _V in modes] + [1])
    sy = np.zeros((nb, K, pb, db))
    sxb = np.zeros((nb, K, db, K, db))
    Ob_, Rb_ = np.zeros((nb, p, pb)), np.zeros((nb, d, db))
    Um, Vm = np.zeros((nb, K, pb, Rmax)), np.zeros((nb, K, db, Rmax))
    # a block's modes are those above 1e-9 of the data's scale: rotating Σyx into the block bases
    # leaves rounding noise (1e-12 against 0.2 in a fuzz case) that an absolute threshold took for
    # modes, and the aligned start then put a0 on them too; and data scaled by 1e-12 keep their modes
    frames = []
    for b, (O, R) in enumerate(zip(Ob, Rb)):
        po, dr = O.shape[1], R.shape[1]
        Ob_[b, :, :po], Rb_[b, :, :dr] = O, R
        sy[b, :, :po, :dr] = np.einsum("ao,kai,ir->kor", O, Syx, R, optimize=True)
        sxb[b, :, :dr, :, :dr] = np.einsum("is,qkij,jt->qskt", R, Sx, R, optimize=True)
        for k in range(K):
            U, V = modes[k]
            Um[b, k, :po, :U.shape[1]] = O.T @ U
            Vm[b, k, :dr, :V.shape[1]] = R.T @ V
            if po and dr:
                u, _sv, v = numeric_svd(sy[b, k, :po, :dr], tol=1e-9, scale=scale)
            else:
                u, v = np.zeros((po, 0)), np.zeros((dr, 0))
            frames.append((b, k, u, v))
    r = max([u.shape[1] for _b, _k, u, _v in frames] + [1])
    Uf, Vf = np.zeros((nb, K, pb, r)), np.zeros((nb, K, db, r))
    for b, k, u, v in frames:
        Uf[b, k, :u.shape[0], :u.shape[1]] = u
        Vf[b, k, :v.shape[0], :v.shape[1]] = v
    mask = np.ones((nb, K, pb)) if om is None else om[None].astype(float)
    return {"Syx": sy, "Sxb": sxb.reshape(nb, K * db, K * db), "Uf": Uf, "Vf": Vf, "Um": Um, "Vm": Vm,
            "om": mask, "Ob": Ob_, "Rb": Rb_, "pdim": np.array([O.shape[1] for O in Ob]),
            "ddim": np.array([R.shape[1] for R in Rb])}


# ---------------------------------------------------------------------------------------------
# The compiled pieces (module level, keyed by the layout, so a second system of the same layout
# reuses the compiled program). Factors: one list of layers per depth group, each layer
# nb × K_group × out × in.
# ---------------------------------------------------------------------------------------------
def _start(a, dd, groups, xp=jnp):
    """The aligned start of strengths ``a`` (one per pathway); ``xp``: numpy (outside a trace, no
    compilation) or jax.numpy."""
    Ws = []
    r = dd["Uf"].shape[3]
    nb = dd["Uf"].shape[0]
    for L, idx in groups:
        ix = np.asarray(idx)
        c = (a[ix] ** (1.0 / L))[None, :, None, None]
        layers = [c * xp.swapaxes(dd["Vf"][:, ix], 2, 3)]
        layers += [c * xp.broadcast_to(xp.eye(r), (nb, len(ix), r, r))] * (L - 2)
        layers.append(c * dd["Uf"][:, ix])
        Ws.append(layers)
    return Ws


def _maps(Ws, groups, K, xp=jnp):
    """Pathway maps (nb × K × pb × db) of stacked chains of factors."""
    parts, order = [], []
    for (_L, idx), layers in zip(groups, Ws):
        M = layers[0]
        for W in layers[1:]:
            M = xp.einsum("bkxy,bkyz->bkxz", W, M)
        parts.append(M)
        order += list(idx)
    M = xp.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
    if order != list(range(K)):
        M = M[:, np.argsort(order)]
    return M


def _edge_maps(params, paths, p, d, xp=jnp):
    """Pathway maps (1 × K × p × d) of a network's edge weights: the product of each path's edges,
    embedded in its output rows and input columns."""
    maps = []
    for keys, ins, outs in paths:
        M = params[keys[0]]
        for k in keys[1:]:
            M = params[k] @ M
        full = xp.zeros((p, d), M.dtype)
        ix = np.ix_(np.asarray(outs), np.asarray(ins))
        maps.append(full.at[ix].set(M) if xp is jnp else _set(full, ix, M))
    return xp.stack(maps)[None]


def _set(A, ix, M):
    A[ix] = M
    return A


def _maps_of(layout, xp=jnp):
    """``state → maps`` for a layout (:meth:`RaceSystem._layout`)."""
    if layout[0] == "edges":
        paths, p, d = layout[1]
        return lambda Ws: _edge_maps(Ws, paths, p, d, xp)
    _kind, groups, K = layout
    return lambda Ws: _maps(Ws, groups, K, xp)


def _loss(M, dd):
    """The one loss of the race, of the pathway maps M (nb × K × pb × db; module docstring)."""
    M = M * dd["om"][..., None]                                     # each map in its output rows
    # Σ_{p,q} ⟨M_p, M_q Σx_qp⟩ per block as one matrix product: [M_1 … M_K] (pb × K db) times
    # the block matrix of the Σx_qp (K db × K db, block (q, p))
    Mcat = jnp.swapaxes(M, 1, 2).reshape(M.shape[0], M.shape[2], -1)
    coupled = jnp.sum(Mcat * jnp.einsum("bij,bjk->bik", Mcat, dd["Sxb"]))
    return 0.5 * dd["trSy"] - jnp.sum(M * dd["Syx"]) + 0.5 * coupled


def _data_loss(M, dd):
    """The same loss on the data, ½⟨‖y − Σ_p M_p (g_p ⊙ x)‖²⟩: what is recorded. Its three terms above
    cancel near 1e-16 of L(0), where a log plot's tail turned to noise; the residual keeps its digits."""
    full = jnp.einsum("bao,bkor,bdr->kad", dd["Ob"], M * dd["om"][..., None], dd["Rb"])
    R = dd["Y"] - jnp.einsum("kad,dn,kn->an", full, dd["X"], dd["G"])
    return 0.5 * jnp.sum(R * R) / dd["X"].shape[1]


# each piece is built once per layout (functools.cache), so its compiled program is reused
@cache
def _record_loss(layout):
    maps = _maps_of(layout)
    return lambda Ws, dd: _data_loss(maps(Ws), dd)


@cache
def _field(layout):
    maps = _maps_of(layout)
    grad = jax.grad(lambda Ws, dd: _loss(maps(Ws), dd))

    def field_(Ws, dd):
        return jax.tree_util.tree_map(lambda g: -g / dd["tau"], grad(Ws, dd))

    return field_


@cache
def _record_modes(layout):
    maps = _maps_of(layout)
    return lambda Ws, dd: jnp.einsum("bkia,bkij,bkja->ka", dd["Um"], maps(Ws), dd["Vm"])


@cache
def _record_svals(layout, m):
    maps = _maps_of(layout)

    def svals(Ws, dd):
        full = jnp.einsum("bip,bkpq,bjq->kij", dd["Ob"], maps(Ws), dd["Rb"])
        sv = jnp.linalg.svd(full, compute_uv=False)
        return jnp.pad(sv, ((0, 0), (0, max(0, m - sv.shape[1]))))[:, :m]
    return svals

