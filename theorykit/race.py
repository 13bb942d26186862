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


def integrate_race(system: RaceSystem, a0: float, tau: float, times, rtol: float = 1e-8,
                   atol: float = 1e-12) -> RaceSolution:
    """Integrate the balanced pathway-map flow from aligned initial maps of strength ``a0``."""
    shapes = [m.shape for m in system.Syx]
    sizes = [a * b for a, b in shapes]
    offs = np.cumsum([0] + sizes)
    M0 = [a0 * (U @ V.T) for U, V in zip(system.U, system.V)]

    def unpack(y):
        return [y[offs[i]:offs[i + 1]].reshape(shapes[i]) for i in range(len(shapes))]

    def rhs(_t, y):
        Ms = unpack(y)
        Gs = system.grads(Ms)
        out = []
        for M, G, L in zip(Ms, Gs, system.depth):
            MMt, MtM = M @ M.T, M.T @ M
            dM = np.zeros_like(M)
            for j in range(1, L + 1):
                dM += _psd_power(MMt, (L - j) / L) @ G @ _psd_power(MtM, (j - 1) / L)
            out.append(dM.ravel() / tau)
        return np.concatenate(out)

    times = np.asarray(times, dtype=float)
    y0 = np.concatenate([m.ravel() for m in M0])
    sol = solve_ivp(rhs, (0.0, float(times.max())), y0, t_eval=np.sort(times), method="LSODA",
                    rtol=rtol, atol=atol)
    if not sol.success:
        raise RuntimeError(f"race integration failed: {sol.message}")
    order = np.argsort(np.argsort(times))
    Y = sol.y[:, order]
    losses, strengths = [], {n: [] for n in system.names}
    for col in Y.T:
        Ms = unpack(col)
        losses.append(system.loss(Ms))
        for n, M, U, V in zip(system.names, Ms, system.U, system.V):
            strengths[n].append(np.einsum("ia,ij,ja->a", U, M, V))
    return RaceSolution(times, np.array(losses), {k: np.array(v) for k, v in strengths.items()}, unpack(Y[:, -1]))
