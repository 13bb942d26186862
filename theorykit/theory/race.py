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
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

__all__ = ["RaceSystem", "RaceSolution", "integrate_race"]


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
