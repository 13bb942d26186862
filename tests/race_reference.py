"""An independent second method for the race reduction, for the tests only: SciPy's ``solve_ivp``
on the pathway maps, written here from the equations of docs/theory.md#race and sharing no code
with :mod:`theorykit.theory.race` (no stacking, no blocks, no JAX).

Each pathway keeps its own map ``M_p`` (its outputs × its inputs) and the coupling goes through
explicit output-overlap matrices ``O_pq`` and input correlations ``Σx_qp``:

    G_p = Σyx_p − Σ_q O_pq M_q Σx_qp,
    τ dM_p/dt = Σ_j (M_p M_pᵀ)^{(L−j)/L} G_p (M_pᵀ M_p)^{(j−1)/L}        (form="maps", LSODA)

or, equivalently for balanced aligned starts, gradient flow on a minimal balanced factorisation
(form="weights", RK45). Initial maps ``a0 U_p V_pᵀ`` from numpy's SVD of each Σyx_p.
"""
from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp


def _psd_power(A, power):
    w, Q = np.linalg.eigh(0.5 * (A + A.T))
    w = np.clip(w, 0.0, None)
    return (Q * w ** power) @ Q.T


def _chain(Ws):
    out = Ws[0]
    for W in Ws[1:]:
        out = W @ out
    return out


def scipy_race(X, Y, gates, *, a0, tau, times, inputs=None, outputs=None, depth=2, form="maps",
               rtol=1e-9, atol=1e-12):
    """Mean loss of the race at ``times`` (and the per-pathway maps at the last time)."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    G = np.atleast_2d(np.asarray(gates, float))
    K, P = G.shape
    ins = [list(range(X.shape[0])) if inputs is None else list(inputs[k]) for k in range(K)]
    outs = [list(range(Y.shape[0])) if outputs is None else list(outputs[k]) for k in range(K)]
    depths = [depth] * K if np.isscalar(depth) else list(depth)
    Syx = [(Y[outs[k]] * G[k]) @ X[ins[k]].T / P for k in range(K)]
    Sx = {(q, p): (X[ins[q]] * G[q] * G[p]) @ X[ins[p]].T / P for q in range(K) for p in range(K)}
    O = {}
    for p in range(K):
        for q in range(K):
            Om = np.zeros((len(outs[p]), len(outs[q])))
            for j, r in enumerate(outs[q]):
                if r in outs[p]:
                    Om[outs[p].index(r), j] = 1.0
            O[(p, q)] = Om
    UV = []
    for S in Syx:
        u, s, vt = np.linalg.svd(S, full_matrices=False)
        r = int(np.sum(s > 1e-12 * max(s.max(initial=0.0), 1e-300)))
        UV.append((u[:, :r], vt[:r].T))
    trSy = float(np.sum(Y * Y) / P)

    def grads(Ms):
        return [Syx[p] - sum(O[(p, q)] @ Ms[q] @ Sx[(q, p)] for q in range(K)) for p in range(K)]

    def loss(Ms):
        val = 0.5 * trSy
        for p in range(K):
            val -= np.sum(Ms[p] * Syx[p])
            for q in range(K):
                val += 0.5 * np.sum(Ms[p] * (O[(p, q)] @ Ms[q] @ Sx[(q, p)]))
        return val

    if form == "maps":
        shapes = [S.shape for S in Syx]
        offs = np.cumsum([0] + [a * b for a, b in shapes])
        y0 = np.concatenate([(a0 * (U @ V.T)).ravel() for U, V in UV])

        def to_maps(y):
            return [y[offs[i]:offs[i + 1]].reshape(shapes[i]) for i in range(K)]

        def rhs(_t, y):
            Ms = to_maps(y)
            out = []
            for M, Gp, L in zip(Ms, grads(Ms), depths):
                MMt, MtM = M @ M.T, M.T @ M
                dM = sum(_psd_power(MMt, (L - j) / L) @ Gp @ _psd_power(MtM, (j - 1) / L) for j in range(1, L + 1))
                out.append(dM.ravel() / tau)
            return np.concatenate(out)

        method = "LSODA"
    else:
        shapes = []
        for (U, V), L in zip(UV, depths):
            r = U.shape[1]
            shapes.append([(r, V.shape[0])] + [(r, r)] * (L - 2) + [(U.shape[0], r)])
        flat = [sh for shs in shapes for sh in shs]
        offs = np.cumsum([0] + [a * b for a, b in flat])
        y0 = []
        for (U, V), L in zip(UV, depths):
            c = a0 ** (1.0 / L)
            y0 += [c * V.T] + [c * np.eye(U.shape[1])] * (L - 2) + [c * U]
        y0 = np.concatenate([w.ravel() for w in y0])

        def unpack(y):
            Ws = [y[offs[i]:offs[i + 1]].reshape(flat[i]) for i in range(len(flat))]
            out, k = [], 0
            for shs in shapes:
                out.append(Ws[k:k + len(shs)])
                k += len(shs)
            return out

        def to_maps(y):
            return [_chain(Ws) for Ws in unpack(y)]

        def rhs(_t, y):
            Wp = unpack(y)
            dys = []
            for Ws, Gp in zip(Wp, grads([_chain(Ws) for Ws in Wp])):
                L = len(Ws)
                for l in range(L):
                    g = Gp if l + 1 == L else _chain(Ws[l + 1:]).T @ Gp
                    g = g if l == 0 else g @ _chain(Ws[:l]).T
                    dys.append(g.ravel() / tau)
            return np.concatenate(dys)

        method = "RK45"
    times = np.asarray(times, float)
    order = np.argsort(times)
    sol = solve_ivp(rhs, (0.0, float(times.max())), y0, t_eval=times[order], method=method, rtol=rtol, atol=atol)
    assert sol.success, sol.message
    Ls = np.empty(times.size)
    Ls[order] = [loss(to_maps(col)) for col in sol.y.T]
    return Ls, to_maps(sol.y[:, -1])


def scipy_race_spec(spec, *, a0=None, times, form="maps", values=None, **kw):
    """:func:`scipy_race` on a spec's task, pathways and training (mean loss × the spec's factor)."""
    X, Y = spec.task.numeric(values)
    ps = spec.pathways
    L, maps = scipy_race(X, Y, [p.active for p in ps], a0=spec.training.a0 if a0 is None else a0, tau=spec.tau,
                         times=times, inputs=[p.inputs for p in ps], outputs=[p.outputs for p in ps],
                         depth=[p.depth for p in ps], form=form, **kw)
    return L * spec.loss_factor, maps
