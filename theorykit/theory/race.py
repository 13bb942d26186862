"""The neural race reduction, integrated numerically (THEORY.md §3).

With balanced weights (``W2ᵀW2 = W1W1ᵀ``, preserved by gradient flow), a depth-2 pathway's
map ``M_p = W2 W1`` obeys the closed matrix equation

    τ dM_p/dt = (M_p M_pᵀ)^{1/2} G_p + G_p (M_pᵀ M_p)^{1/2},
    G_p = Σyx_p − Σ_q O_pq M_q Σx_qp,

where ``O_pq`` selects the output rows pathways p and q share and ``Σx_qp`` is their joint
input correlation (THEORY.md §3). The pathways race through ``G_p``: every overlap between
them comes from the data. For depth L the factor becomes
``Σ_j (MMᵀ)^{(L−j)/L} G (MᵀM)^{(j−1)/L}``. When all correlations share singular vectors
(Assumption 2.1) the maps stay diagonal in that basis and this is Eq. 6 mode by mode; when
they do not (different output singular vectors, non-white inputs) it is still exact for
balanced initial weights. Initial maps are aligned: ``M_p(0) = a0 Σ_α u_α v_αᵀ``.

Two integrators: :func:`integrate_race` (SciPy's ``solve_ivp`` on the matrix equation, kept as an
independent second method for the tests) and :func:`race_flow`, the one used by every caller: the
same flow in its factorised form (for balanced weights it is the gradient flow of ``W2 W1`` with
``rank`` hidden units, so no matrix square root is needed), stepped by the one race engine
(:func:`theorykit.theory.flow.integrate`, RK4 in JAX) and vmapped over families of gatings
(masks over a superset of pathways; :func:`family_masks` lists the families Lemma 4.1 allows).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy.integrate import solve_ivp

__all__ = ["RaceSystem", "RaceSolution", "integrate_race", "RaceFlow", "race_flow", "race_loss_at", "context_family",
           "family_masks"]


@dataclass
class RaceSystem:
    """Numeric data of a coupled pathway system (all matrices float64)."""

    names: list
    Syx: list           # Σyx_p, |t(p)| × |s(p)|
    Sx: dict            # (q, p) -> Σx_qp, |s(q)| × |s(p)|
    O: dict             # (p, q) -> output overlap |t(p)| × |t(q)|
    Sy_trace: float     # tr Σy
    U: list             # left singular vectors of Σyx_p (columns)
    V: list             # right singular vectors
    depth: list

    def loss(self, Ms) -> float:
        """Mean loss ½⟨‖y − ŷ‖²⟩ of the maps ``Ms``."""
        n = len(Ms)
        val = 0.5 * self.Sy_trace
        for p in range(n):
            val -= np.sum(Ms[p] * self.Syx[p])
            for q in range(n):
                if (p, q) in self.O and (q, p) in self.Sx:
                    val += 0.5 * np.sum(Ms[p] * (self.O[(p, q)] @ Ms[q] @ self.Sx[(q, p)]))
        return float(val)

    def grads(self, Ms):
        out = []
        for p in range(len(Ms)):
            G = self.Syx[p].copy()
            for q in range(len(Ms)):
                if (p, q) in self.O and (q, p) in self.Sx:
                    G -= self.O[(p, q)] @ Ms[q] @ self.Sx[(q, p)]
            out.append(G)
        return out


def _psd_power(A, power):
    w, Q = np.linalg.eigh(0.5 * (A + A.T))
    w = np.clip(w, 0.0, None)
    return (Q * w ** power) @ Q.T


@dataclass
class RaceSolution:
    """Result of :func:`integrate_race`: mean loss and per-pathway mode strengths at ``t``."""

    t: np.ndarray
    loss: np.ndarray
    mode_strengths: dict   # name -> array (len(t), rank): u_αᵀ M_p(t) v_α
    maps: list             # final maps


def _chain(Ws):
    """W_L … W_1 for a list [W_1, …, W_L]."""
    out = Ws[0]
    for W in Ws[1:]:
        out = W @ out
    return out


def integrate_race(system: RaceSystem, a0: float, tau: float, times, rtol: float = 1e-8,
                   atol: float = 1e-12, form: str = "weights") -> RaceSolution:
    """Integrate the balanced pathway-map flow from aligned initial maps of strength ``a0``.

    ``form="weights"`` (default) integrates gradient flow on a minimal balanced factorisation of
    each aligned initial map (``W_1 = a0^{1/L} Vᵀ``, middle layers ``a0^{1/L} I_r``,
    ``W_L = a0^{1/L} U``, hidden width r = the pathway's rank). Balance is conserved by the flow,
    so the maps follow the balanced power formula above exactly; a GDLN started from aligned
    weights keeps its hidden activity in an r-dimensional subspace, so this is also its exact
    gradient flow. It needs only matrix products (explicit RK45). ``form="maps"`` integrates the
    matrix equation for the maps directly (an eigendecomposition per evaluation, LSODA): slower,
    kept as an independent second method.
    """
    if form not in ("weights", "maps"):
        raise ValueError(f"form must be 'weights' or 'maps', got {form!r}")
    times = np.asarray(times, dtype=float)
    order = np.argsort(np.argsort(times))
    if form == "weights":
        shapes = []
        for U, V, L in zip(system.U, system.V, system.depth):
            r = U.shape[1]
            shapes.append([(r, V.shape[0])] + [(r, r)] * (L - 2) + [(U.shape[0], r)])
        flat = [sh for shs in shapes for sh in shs]
        offs = np.cumsum([0] + [a * b for a, b in flat])
        y0 = []
        for U, V, L in zip(system.U, system.V, system.depth):
            c = a0 ** (1.0 / L)
            y0 += [c * V.T] + [c * np.eye(U.shape[1])] * (L - 2) + [c * U]
        y0 = np.concatenate([w.ravel() for w in y0])

        def unpack_w(y):
            Ws = [y[offs[i]:offs[i + 1]].reshape(flat[i]) for i in range(len(flat))]
            out, k = [], 0
            for shs in shapes:
                out.append(Ws[k:k + len(shs)])
                k += len(shs)
            return out

        def to_maps(y):
            return [_chain(Ws) for Ws in unpack_w(y)]

        def rhs(_t, y):
            Wp = unpack_w(y)
            Gs = system.grads([_chain(Ws) for Ws in Wp])
            dys = []
            for Ws, G in zip(Wp, Gs):
                L = len(Ws)
                for l in range(L):
                    g = G if l + 1 == L else _chain(Ws[l + 1:]).T @ G
                    g = g if l == 0 else g @ _chain(Ws[:l]).T
                    dys.append(g.ravel() / tau)
            return np.concatenate(dys)

        method = "RK45"
    else:
        shapes_m = [m.shape for m in system.Syx]
        offs_m = np.cumsum([0] + [a * b for a, b in shapes_m])
        y0 = np.concatenate([(a0 * (U @ V.T)).ravel() for U, V in zip(system.U, system.V)])

        def to_maps(y):
            return [y[offs_m[i]:offs_m[i + 1]].reshape(shapes_m[i]) for i in range(len(shapes_m))]

        def rhs(_t, y):
            Ms = to_maps(y)
            Gs = system.grads(Ms)
            out = []
            for M, G, L in zip(Ms, Gs, system.depth):
                MMt, MtM = M @ M.T, M.T @ M
                dM = np.zeros_like(M)
                for j in range(1, L + 1):
                    dM += _psd_power(MMt, (L - j) / L) @ G @ _psd_power(MtM, (j - 1) / L)
                out.append(dM.ravel() / tau)
            return np.concatenate(out)

        method = "LSODA"
    sol = solve_ivp(rhs, (0.0, float(times.max())), y0, t_eval=np.sort(times), method=method,
                    rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"race integration failed: {sol.message}")
    Y = sol.y[:, order]
    losses, strengths = [], {n: [] for n in system.names}
    for col in Y.T:
        Ms = to_maps(col)
        losses.append(system.loss(Ms))
        for n, M, U, V in zip(system.names, Ms, system.U, system.V):
            strengths[n].append(np.einsum("ia,ij,ja->a", U, M, V))
    return RaceSolution(times, np.array(losses), {k: np.array(v) for k, v in strengths.items()},
                        to_maps(Y[:, -1]))


# ---------------------------------------------------------------------------------------------
# The coupled race, integrated in JAX (factorised balanced flow, data form)
# ---------------------------------------------------------------------------------------------
@dataclass
class RaceFlow:
    """Result of :func:`race_flow`: loss (batch × (T+1), the reported loss) and mode strengths."""

    t: np.ndarray
    loss: np.ndarray
    modes: dict            # name -> array batch × (T+1) × rank  (u_αᵀ M_p v_α)
    final_maps: dict       # name -> array batch × out × in
    names: list
    dt: float
    loss_factor: float = 1.0
    extra: dict = field(default_factory=dict)


def _pathway_frames(spec, values=None):
    """Exact left/right singular vectors of each pathway's own Σyx (floats), via the core Derivation."""
    from .derivation import Derivation

    der = Derivation(spec, method="race-reduction", values=values)
    vals = der.task.value_map(values)
    frames = {}
    for p in spec.pathways:
        svd = der.modes[p.name]
        U = np.array(svd.U.subs(vals).evalf(30).tolist(), dtype=float).reshape(svd.U.shape)
        V = np.array(svd.V.subs(vals).evalf(30).tolist(), dtype=float).reshape(svd.V.shape)
        frames[p.name] = (U, V)
    return frames


def race_flow(spec, times=None, *, a0=None, masks=None, values=None, dt: float | None = None,
              frames: str = "numeric", target=None, record_modes: bool = True, T: int | None = None,
              record_every: int | None = None, record_svals: int = 0) -> RaceFlow:
    """Integrate the coupled race of ``spec``'s pathways from aligned, balanced maps of strength a0.

    The flow is ``τ dW/dt = −∇L`` on balanced factors ``M_p = W2_p W1_p`` with as many hidden
    units as the rank of the pathway's own Σyx. This is the matrix flow of the race reduction,
    ``τ dM_p = (M_pM_pᵀ)^{1/2}G_p + G_p(M_pᵀM_p)^{1/2}``, ``G_p = Σyx_p − Σ_q O_pq M_q Σx_qp``
    (balance is conserved and the flow never raises the rank); the loss is written on the
    datapoints, so every overlap between pathways comes from the data, none is set by hand.
    Fourth-order Runge–Kutta with step ``dt`` (gradient steps; default τ/40, at most the
    recording interval: the recording is dense, so adaptive steps would gain nothing); the loss and the mode strengths are recorded every ``record_every``
    steps (default max(1, ⌊τ/40⌋)); ``RaceFlow.t`` holds the recording times.

    ``masks`` (batch × pathways, 0/1): integrate every sub-family of the spec's pathways at
    once (a masked pathway starts, and stays, at zero). ``a0``: a scalar, one value per pathway,
    or batch × pathways. ``target``: numeric targets replacing the task's Y (e.g. a residual).
    The reported loss is the spec's (times P for a summed loss). ``record_svals=m`` also records
    the m largest singular values of every pathway's map (``extra["svals"][name]``: batch × rec × m).
    """
    import jax
    import jax.numpy as jnp

    from .flow import RK4, integrate

    X, Y = spec.task.numeric(values)
    if target is not None:
        Y = np.asarray(target, dtype=float)
    P = X.shape[1]
    tau = spec.tau
    names = [p.name for p in spec.pathways]
    if frames == "exact" and target is None:
        fr = _pathway_frames(spec, values)
    else:
        from .modes import numeric_svd
        fr = {}
        for p in spec.pathways:
            g = np.asarray(p.active, float)
            U, s, V = numeric_svd((Y[list(p.outputs)] * g) @ X[list(p.inputs)].T / P)
            fr[p.name] = (U, V)
    npw = len(names)
    masks = np.ones((1, npw)) if masks is None else np.asarray(masks, dtype=float)
    if masks.ndim == 1:
        masks = masks[None]
    B = masks.shape[0]
    a0 = np.asarray(spec.training.a0 if a0 is None else a0, dtype=float)
    if a0.ndim == 0:
        a0 = np.full((B, npw), float(a0))
    elif a0.ndim == 1:
        a0 = np.tile(a0[None], (B, 1))
    if T is None:
        T = int(np.ceil(np.max(times))) if times is not None else spec.training.steps
    every = max(1, int(tau // 40)) if record_every is None else int(record_every)
    nrec = int(np.ceil(T / every))
    h_max = tau / 40.0 if dt is None else float(dt)
    sub = max(1, int(math.ceil(every / h_max - 1e-9)))
    h = every / sub

    # stack every pathway into one linear network with block-masked layers:
    # Ŷ = (W2 ∘ K2)(W1 ∘ K1) X_big, X_big = rows [g_p ∘ X_{s(p)}]_p; K1 block-diagonal, K2 puts
    # pathway p's hidden units on its output rows. Then M_p = (W2∘K2)[:, r_p](W1∘K1)[r_p, d_p].
    ranks = [fr[nm][0].shape[1] for nm in names]
    dins = [len(p.inputs) for p in spec.pathways]
    ro = np.concatenate([[0], np.cumsum(ranks)]).astype(int)
    do = np.concatenate([[0], np.cumsum(dins)]).astype(int)
    R, D, pout = int(ro[-1]), int(do[-1]), Y.shape[0]
    Xbig = np.concatenate([X[list(p.inputs)] * np.asarray(p.active, float)[None, :] for p in spec.pathways])
    K1 = np.zeros((R, D))
    K2 = np.zeros((pout, R))
    Ubig = np.zeros((npw, pout, R))
    Vbig = np.zeros((npw, D, R))
    for i, p in enumerate(spec.pathways):
        U, V = fr[names[i]]
        K1[ro[i]:ro[i + 1], do[i]:do[i + 1]] = 1.0
        K2[np.ix_(list(p.outputs), range(ro[i], ro[i + 1]))] = 1.0
        Ubig[i][np.ix_(list(p.outputs), range(ro[i], ro[i + 1]))] = U
        Vbig[i][do[i]:do[i + 1], ro[i]:ro[i + 1]] = V
    W1_0 = np.einsum("pdr->rd", Vbig)          # blockdiag(V_pᵀ)
    W2_0 = np.einsum("por->or", Ubig)          # U_p on its output rows
    pw_of_row = np.repeat(np.arange(npw), ranks)
    Yj, Xj, K1j, K2j = jnp.asarray(Y), jnp.asarray(Xbig), jnp.asarray(K1), jnp.asarray(K2)

    def loss(params):
        W1, W2 = params
        return 0.5 * jnp.sum((Yj - W2 @ (W1 @ Xj)) ** 2) / P

    grad = jax.grad(loss)

    def f(params, _a):
        g1, g2 = grad(params)
        return (-(g1 * K1j) / tau, -(g2 * K2j) / tau)

    Uo = [jnp.asarray(fr[nm][0]) for nm in names]
    Vo = [jnp.asarray(fr[nm][1]) for nm in names]
    outs_idx = [np.array(p.outputs) for p in spec.pathways]

    def strengths(params, _a):
        W1, W2 = params
        res = []
        for i in range(npw):
            left = Uo[i].T @ W2[outs_idx[i], ro[i]:ro[i + 1]]          # r × r
            right = W1[ro[i]:ro[i + 1], do[i]:do[i + 1]] @ Vo[i]       # r × r
            res.append(jnp.sum(left * right.T, axis=1))
        return res

    def svals(params, _a):
        M = params[1] @ params[0]
        res = []
        for i in range(npw):
            sv = jnp.linalg.svd(M[outs_idx[i]][:, do[i]:do[i + 1]], compute_uv=False)
            res.append(jnp.pad(sv, (0, max(0, record_svals - sv.shape[0])))[:record_svals])
        return res

    def start(mask, a0row):
        sc_r = jnp.sqrt(a0row * mask)[pw_of_row]                 # per hidden unit
        return (jnp.asarray(W1_0) * sc_r[:, None], jnp.asarray(W2_0) * sc_r[None, :])

    rec = {"loss": lambda y, _a: loss(y)}
    if record_modes:
        rec["modes"] = strengths
    if record_svals:
        rec["svals"] = svals
    y0 = jax.vmap(start)(jnp.asarray(masks), jnp.asarray(a0))
    res = integrate(f, y0, None, t_end=nrec * every, record_every=every, solver=RK4(h),
                    record=rec, batched_args=False, rate=max(1.0, float(np.linalg.norm(Y @ X.T / P, 2))) / tau)
    Ls, md, sv = res.records["loss"], res.records.get("modes", []), res.records.get("svals", [])
    M = np.einsum("bor,brd->bod", np.asarray(res.final[1]), np.asarray(res.final[0]))
    M = np.asarray(M)
    maps = {nm: M[:, list(p.outputs)][:, :, do[i]:do[i + 1]] for i, (nm, p) in enumerate(zip(names, spec.pathways))}
    fac = spec.loss_factor
    return RaceFlow(np.arange(nrec + 1) * every, np.asarray(Ls) * fac,
                    {nm: np.asarray(m) for nm, m in zip(names, md)} if record_modes else {},
                    maps, names, h, fac, {"frames": {nm: fr[nm] for nm in names}, "record_every": every,
                                          "svals": {nm: np.asarray(v) for nm, v in zip(names, sv)}})


def race_loss_at(rf: RaceFlow, times, batch: int = 0) -> np.ndarray:
    """The race's loss at ``times`` (linear interpolation between recording times)."""
    return np.interp(np.asarray(times, float), rf.t, rf.loss[batch])


# ---------------------------------------------------------------------------------------------
# Gating families (Lemma 4.1) and race metrics
# ---------------------------------------------------------------------------------------------
def context_family(kk: int, r: int) -> list:
    """All r-subsets of the kk contexts (0-based tuples)."""
    return [tuple(S) for S in itertools.combinations(range(kk), r)]


def family_masks(kk: int, include_common: bool | None = None):
    """Every non-empty family of context-gated pathways Lemma 4.1 allows, as masks.

    The superset is the common pathway (on in every context; sees items and contexts) and
    one item-only pathway per proper non-empty subset of contexts. Returns (subsets, masks,
    labels): ``subsets`` the proper subsets in superset order (after "common"), ``masks`` a
    list of 0/1 tuples over [common] + subsets, ``labels`` readable names.
    """
    subsets = [S for r in range(1, kk) for S in itertools.combinations(range(kk), r)]
    npw = 1 + len(subsets)
    masks, labels = [], []
    for bits in itertools.product((0, 1), repeat=npw):
        if not any(bits):
            continue
        if include_common is not None and bool(bits[0]) != include_common:
            continue
        masks.append(bits)
        parts = (["common"] if bits[0] else []) + ["".join(str(c + 1) for c in S)
                                                    for b, S in zip(bits[1:], subsets) if b]
        labels.append("+".join(parts))
    return subsets, masks, labels
