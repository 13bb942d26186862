"""The k-context Kronecker algebra (theorykit/theory/k_algebra.py) and the closed forms of
theorykit/theory/k_contexts.py against a second method: the k-context dataset of docs/theory.md#contexts
built explicitly here with numpy (every (item, context) pair once, x = [e_i; γ e_c],
y = [H e_i; e_c ⊗ H e_i]), its correlations averaged over the nk datapoints, its least-squares residual,
and numpy SVDs, at k = 2, 3, 4, 5. Nothing here reads theorykit's task builders.

Each test closes a gap a mutation check of the two modules found (a changed line that no test noticed):
operator results on vectors the derivation itself never produces (gated pathways on the full target,
outputs along ū, common-block outputs, non-unit coefficients), the common sectors' end points, the
grand-mean sector's zero mode, and the single-context family's own numbers."""
import numpy as np
import pytest
import sympy as sp

from theorykit.theory import k_contexts as kc
from theorykit.theory.k_algebra import (ONE, CVec, E, SymPathway, TVec, gamma, k, n, sig, sigbar, sx_apply,
                                        syx_apply, syxT_apply)

KS = (2, 3, 4, 5)
NN = 4
#: the 4-item hierarchy written out: root, the two halves, the four leaves (7 features × 4 items)
H4 = np.array([[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1],
               [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], float)
#: named contexts of the symbolic algebra → their index in the numpy data ("c" is a plain name here)
IDX = {"a": 0, "b": 1, "c": 2}


@pytest.fixture(scope="module")
def res():
    return kc.derive(check_ks=[], latex=False)


def _data(kk, gam=1.0, H=H4):
    """Explicit dataset: columns are the datapoints (i, c), c outer. Returns X (n+k, P), Y, the
    least-squares residual R = Y − W X of a linear map of all of x (numpy lstsq), and the context of
    each datapoint."""
    m, nn = H.shape
    xs, ys, cs = [], [], []
    for c in range(kk):
        ec = np.eye(kk)[c]
        for i in range(nn):
            ei = np.eye(nn)[i]
            xs.append(np.concatenate([ei, gam * ec]))
            ys.append(np.concatenate([H @ ei, np.kron(ec, H @ ei)]))
            cs.append(c)
    X, Y = np.array(xs).T, np.array(ys).T
    W = np.linalg.lstsq(X.T, Y.T, rcond=None)[0].T
    return X, Y, Y - W @ X, np.array(cs)


def _atoms(H=H4):
    """Numpy vectors of the algebra's atoms: ṽ (the top right singular vector of H̃ = H(I − 11ᵀ/n),
    σ̃ = √3 for the 4-item hierarchy: HᵀH is 3 on the diagonal, 2 for siblings, 1 across halves, and
    the halves contrast has 3 + 2 − 1 − 1 = 3), 1_n, ũ = H̃ṽ/σ̃, ū = H1/‖H1‖ (‖H1‖² = 1ᵀHᵀH1 = 4·7)."""
    nn = H.shape[1]
    Ht = H @ (np.eye(nn) - np.ones((nn, nn)) / nn)
    U, S, Vt = np.linalg.svd(Ht)
    assert S[0] == pytest.approx(np.sqrt(3.0), rel=1e-12) and S[1] < S[0] - 0.5   # non-degenerate top
    ones = np.ones(nn)
    return {"v": Vt[0], "1": ones, "u": U[:, 0], "ub": H @ ones / np.linalg.norm(H @ ones)}, S[0]


def _vals(kk, st, gam):
    # σ̄ = ‖H1‖/√n = √7 for the 4-item hierarchy
    return {k: kk, n: NN, gamma: gam, sig: st, sigbar: np.sqrt(7.0)}


def _num(x, vals):
    return float(sp.N(sp.sympify(x).subs(vals)))


def _cvec(cv: CVec, kk, vals):
    out = np.zeros(kk)
    for a, c in cv.terms.items():
        out += _num(c, vals) * (np.ones(kk) if a == "1" else np.eye(kk)[IDX[a[1]]])
    return out


def _embed_in(v: TVec, kk, atoms, vals, sees_context):
    """An input vector of a pathway: [item part; context part] (context part only if it sees them)."""
    item, ctx = np.zeros(NN), np.zeros(kk)
    for key, c in v.terms.items():
        if key[0] == "I":
            item += _num(c, vals) * atoms[key[1]]
        else:
            ctx += _num(c, vals) * _cvec(CVec({key[1]: 1}), kk, vals)
    return np.concatenate([item, ctx]) if sees_context else item


def _embed_out(w: TVec, kk, atoms, vals):
    """An output vector: [common block; context blocks c' = 0 … k−1] (block c' outer)."""
    m = H4.shape[0]
    common, blocks = np.zeros(m), np.zeros(kk * m)
    for key, c in w.terms.items():
        if key[0] == "O":
            common += _num(c, vals) * atoms[key[1]]
        else:
            blocks += _num(c, vals) * np.kron(_cvec(CVec({key[1]: 1}), kk, vals), atoms[key[2]])
    return np.concatenate([common, blocks])


def _gate_per_point(gate_idx, cs):
    g = np.zeros(len(cs))
    g[np.isin(cs, gate_idx)] = 1.0
    return g


def _pathways(kk):
    """(SymPathway, numpy context indices it is on in): common, a (k−1)-context, a single-context, a
    two-context gate (k ≥ 3) and an items-only pathway on every context."""
    ps = [(SymPathway("common", ONE, True), list(range(kk))),
          (SymPathway("km1", ONE - E("a"), False), [c for c in range(kk) if c != 0]),
          (SymPathway("one", E("b"), False), [1]),
          (SymPathway("all_items", ONE, False), list(range(kk))),
          (SymPathway("single_ctx_reader", E("a"), True), [0])]
    if kk >= 3:
        ps.append((SymPathway("pair", E("a") + E("c"), True), [0, 2]))
    return ps


def _test_inputs(sees_context):
    vs = [TVec.item("v"), TVec.item("1"), TVec.item("v", 0.7) + TVec.item("1", -1.3)]
    if sees_context:
        vs += [TVec.ctx(ONE), TVec.ctx(E("a") * 2 - E("b")), TVec.item("1", 0.5) + TVec.ctx(E("b"), 1.7)]
    return vs


def _test_outputs():
    return [TVec.common("u"), TVec.common("ub", 1.5), TVec.blocks(E("a"), "u"), TVec.blocks(E("b"), "ub", 2.0),
            TVec.blocks(ONE, "ub"), TVec.blocks(ONE - E("a"), "u", -0.4) + TVec.common("ub", 0.3)]


# ------------------------------------------------------------------------------------------------
# the algebra's atoms and operators against the explicit data
# ------------------------------------------------------------------------------------------------
def test_atom_inner_products_are_those_of_the_numpy_vectors():
    """TVec.dot on input and output vectors (items, contexts, common block, context blocks) equals the
    numpy inner product of the same vectors: ṽ ⊥ 1 (ṽ is centred), 1·1 = n, ũ ⊥ ū (1 is a right singular
    vector of H, so Hᵀũ = σ̃ṽ ⊥ 1), unit ũ, ū; e_a·e_b = 0, 1·e_a = 1, 1·1 = k."""
    atoms, st = _atoms()
    for kk in KS:
        vals = _vals(kk, st, 1.3)
        ins = _test_inputs(True) + [TVec.item("v") + TVec.item("1", 2) + TVec.ctx(ONE - E("a"), 3)]
        for a in ins:
            for b in ins:
                got = _num(a.dot(b), vals)
                want = _embed_in(a, kk, atoms, vals, True) @ _embed_in(b, kk, atoms, vals, True)
                assert got == pytest.approx(want, abs=1e-12), (kk, a, b)
        outs = _test_outputs() + [TVec.common("u") + TVec.common("ub", 2),
                                  TVec.blocks(E("a"), "u") + TVec.blocks(E("a"), "ub")]
        for a in outs:
            for b in outs:
                got = _num(a.dot(b), vals)
                want = _embed_out(a, kk, atoms, vals) @ _embed_out(b, kk, atoms, vals)
                assert got == pytest.approx(want, abs=1e-12), (kk, a, b)


def test_hadamard_and_centring_with_general_coefficients():
    """CVec.had is the element-wise product and CVec.centred is x − (1·x/k)1, on coefficients that are
    not ±1 (the gates are; these are not), against numpy at k = 3, 4, 5. By hand at k = 4:
    (2·1 + 3e_a)∘(5e_a − e_b) = 2(5e_a − e_b) + 15e_a = 25e_a − 2e_b."""
    x = ONE * 2 + E("a") * 3
    y = E("a") * 5 - E("b")
    assert (x.had(y) - (E("a") * 25 - E("b") * 2)).is_zero()
    for kk in (3, 4, 5):
        vals = {k: kk}
        xn, yn = _cvec(x, kk, vals), _cvec(y, kk, vals)
        np.testing.assert_allclose(_cvec(x.had(y), kk, vals), xn * yn, atol=1e-14)
        np.testing.assert_allclose(_cvec(x.had(x), kk, vals), xn * xn, atol=1e-14)
        np.testing.assert_allclose(_cvec(x.centred(), kk, vals), xn - xn.mean(), atol=1e-14)
        assert _num(x.dot(y), vals) == pytest.approx(xn @ yn, abs=1e-13)


@pytest.mark.parametrize("kk", KS)
@pytest.mark.parametrize("target", ["full", "residual"])
def test_correlation_operators_equal_the_data_averages(kk, target):
    """syx_apply, syxT_apply and sx_apply for gated pathways (common, (k−1)-context, single-context, a
    pair, items-only on every context; reading the contexts or not) equal Σyx_p v = ⟨g_p(c) y x_pᵀ⟩ v,
    Σyx_pᵀ w and Σx_qp v = ⟨g_q g_p x_q x_pᵀ⟩ v averaged over the nk datapoints of the explicit data,
    with y the targets or the least-squares residual of the common pathway (docs/theory.md#contexts:
    R(i, c; block c') = (H_i − h̄)(δ_cc' − 1/k), common block 0)."""
    gam = 1.3
    X, Y, R, cs = _data(kk, gam)
    T = Y if target == "full" else R
    assert np.abs(R[:H4.shape[0]]).max() < 1e-12                       # the common block is fitted
    P = X.shape[1]
    atoms, st = _atoms()
    vals = _vals(kk, st, gam)
    ps = _pathways(kk)
    for p, on in ps:
        g = _gate_per_point(on, cs)
        Xp = X if p.sees_context else X[:NN]
        Syx = (T * g) @ Xp.T / P
        for v in _test_inputs(p.sees_context):
            got = _embed_out(syx_apply(p, v, target), kk, atoms, vals)
            np.testing.assert_allclose(got, Syx @ _embed_in(v, kk, atoms, vals, p.sees_context), atol=1e-13,
                                       err_msg=f"syx {p.name} {v}")
        for w in _test_outputs():
            got = _embed_in(syxT_apply(p, w, target), kk, atoms, vals, p.sees_context)
            np.testing.assert_allclose(got, Syx.T @ _embed_out(w, kk, atoms, vals), atol=1e-13,
                                       err_msg=f"syxT {p.name} {w}")
        if target == "full":
            for q, on_q in ps:
                gq = _gate_per_point(on_q, cs)
                Xq = X if q.sees_context else X[:NN]
                Sx = (Xq * (gq * g)) @ Xp.T / P
                for v in _test_inputs(p.sees_context):
                    got = _embed_in(sx_apply(q, p, v), kk, atoms, vals, q.sees_context)
                    np.testing.assert_allclose(got, Sx @ _embed_in(v, kk, atoms, vals, p.sees_context),
                                               atol=1e-13, err_msg=f"sx {q.name} {p.name} {v}")


# ------------------------------------------------------------------------------------------------
# the closed forms against numpy SVDs of the explicit data
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kk,gam", [(2, 1.0), (3, 0.6), (4, 1.0), (5, 1.7)])
def test_common_sectors_end_points_match_numpy(res, kk, gam):
    """End points s/d of the common pathway's sectors against s/(vᵀΣx v) of numpy's SVD of Σyx = Y Xᵀ/P.
    By hand (docs/theory.md#contexts): centred items s = σ̃√(k+1)/(√k n), d = 1/n → s/d = σ̃√((k+1)/k);
    centred contexts s = γσ̄/(k√n), d = γ²/k → σ̄/(γ√n); grand mean s = σ̄√(k+1)√(γ²n+k)/(kn),
    d = (γ²n+k)/(kn) → σ̄√(k+1)/√(γ²n+k). σ̄ = √7, σ̃ = √3, 1, 1 for the 4-item hierarchy."""
    X, Y, _R, _cs = _data(kk, gam)
    P = X.shape[1]
    _U, S, Vt = np.linalg.svd(Y @ X.T / P)
    keep = S > 1e-10
    Sx = X @ X.T / P
    ends = sorted(s_ / (v @ Sx @ v) for s_, v in zip(S[keep], Vt[:len(S)][keep]))
    A, B, C = res.common
    base = {k: kk, n: NN, gamma: gam, sigbar: np.sqrt(7.0)}
    mine = [_num(A["end_point"], {**base, sig: st}) for st in (np.sqrt(3.0), 1.0, 1.0)]
    mine += [_num(B["end_point"], base)] * (kk - 1) + [_num(C["end_point"], base)]
    hand = [np.sqrt(3.0 * (kk + 1) / kk), np.sqrt((kk + 1) / kk), np.sqrt((kk + 1) / kk)]
    hand += [np.sqrt(7.0) / (gam * 2.0)] * (kk - 1) + [np.sqrt(7.0 * (kk + 1) / (gam ** 2 * NN + kk))]
    np.testing.assert_allclose(sorted(mine), sorted(hand), rtol=1e-12)
    np.testing.assert_allclose(sorted(mine), ends, rtol=1e-10)


@pytest.mark.parametrize("kk,gam", [(2, 1.0), (3, 0.6), (5, 1.7)])
def test_grand_mean_zero_mode_is_the_direction_the_inputs_never_take(res, kk, gam):
    """In the grand-mean plane span{[1_n; 0], [0; 1_k]} the direction w with Σyx w = 0 has xᵀw the same
    for every datapoint (xᵀ[α1; β1] = α + γβ), so it is w ∝ [−γ1_n; 1_k], where xᵀw = 0: its input
    variance wᵀΣx w/wᵀw is 0. Numpy: the null vector of Σyx restricted to the plane, and its Rayleigh
    quotient of Σx = X Xᵀ/P."""
    C = res.common[2]
    assert sp.simplify(C["zero_mode_input_variance"]) == 0
    X, Y, _R, _cs = _data(kk, gam)
    P = X.shape[1]
    B = np.zeros((NN + kk, 2))                                       # orthonormal basis of the plane
    B[:NN, 0], B[NN:, 1] = 1 / np.sqrt(NN), 1 / np.sqrt(kk)
    _u, s, vt = np.linalg.svd((Y @ X.T / P) @ B)
    assert s[1] < 1e-12 * s[0]
    w = B @ vt[1]
    np.testing.assert_allclose(w / w[NN], np.concatenate([-gam * np.ones(NN), np.ones(kk)]), atol=1e-12)
    assert abs(w @ (X @ X.T / P) @ w / (w @ w)) < 1e-14
    # the non-zero direction of the plane is the grand-mean mode: d and s as derived
    v = B @ vt[0]
    base = {k: kk, n: NN, gamma: gam, sigbar: np.sqrt(7.0)}
    assert v @ (X @ X.T / P) @ v == pytest.approx(_num(C["d"], base), rel=1e-12)
    assert s[0] == pytest.approx(_num(C["s"], base), rel=1e-12)


def _family_numbers(kk, gates):
    """Per family (gates: list of context-index lists, one pathway each, items only, on the least-squares
    residual R of the explicit data): s of the top mode, d_own = ṽᵀΣx_qq ṽ, the overlap u_q·u_b and the
    input coupling ṽᵀΣx_bq ṽ of pathways 0 and 1 (u = Σyx ṽ/s with the same ṽ, so signs agree), and the
    coupled d read off the gradient of the data's loss when every W_p = a u_p ṽᵀ:
    G_q = ⟨g_q (R − Σ_p g_p W_p x) xᵀ⟩ = (s − d a) u_q ṽᵀ."""
    X, _Y, R, cs = _data(kk)
    P, Xi = X.shape[1], X[:NN]
    atoms, st = _atoms()
    v = atoms["v"]
    gs = [_gate_per_point(on, cs) for on in gates]
    Syx = [(R * g) @ Xi.T / P for g in gs]
    s = [np.linalg.norm(S @ v) for S in Syx]
    u = [S @ v / s_ for S, s_ in zip(Syx, s)]
    assert np.linalg.svd(Syx[0], compute_uv=False)[0] == pytest.approx(s[0], rel=1e-12)   # ṽ is the top mode
    Sx = lambda a, b: (Xi * (gs[a] * gs[b])) @ Xi.T / P               # noqa: E731
    a = 0.37
    Yhat = sum(a * np.outer(u[p], v) @ Xi * gs[p] for p in range(len(gs)))
    G0 = ((R - Yhat) * gs[0]) @ Xi.T / P
    d_grad = (s[0] - u[0] @ G0 @ v) / a
    return {"s": s[0], "d_own": v @ Sx(0, 0) @ v, "overlap_other": u[0] @ u[1],
            "input_coupling_other": v @ Sx(1, 0) @ v, "d_eff": d_grad, "sigma": st, "s_all": s}


@pytest.mark.parametrize("kk", KS)
@pytest.mark.parametrize("family", ["single", "kminus1"])
def test_context_families_on_the_residual_match_numpy(res, kk, family):
    """Every number of the two families against the explicit data. By hand, with w_q the context vector
    of pathway q on the residual (docs/theory.md#contexts): single-context (on in q only) w_q = e_q − 1/k;
    (k−1)-context (on in all but q) w_q = 1/k − e_q; both |w_q|² = (k−1)/k, so s = √((k−1)/k) σ̃/(nk),
    and w_q·w_b = −1/k, overlap −1/(k−1). Own input variance ⟨g_q⟩/n: 1/(nk) (single), (k−1)/(nk);
    coupling ⟨g_q g_b⟩/n: 0 (disjoint), (k−2)/(nk). d = d_own + (k−1)·overlap·coupling = 1/(nk) in both."""
    fam = res.single if family == "single" else res.kminus1
    gates = [[q] for q in range(kk)] if family == "single" else [[c for c in range(kk) if c != q] for q in range(kk)]
    num = _family_numbers(kk, gates)
    st = num["sigma"]
    vals = {k: kk, n: NN, sig: st}
    hand = {"s": np.sqrt((kk - 1) / kk) * st / (NN * kk),
            "d_own": (1 if family == "single" else kk - 1) / (NN * kk),
            "overlap_other": -1 / (kk - 1),
            "input_coupling_other": (0 if family == "single" else kk - 2) / (NN * kk),
            "d_eff": 1 / (NN * kk)}
    for key, want in hand.items():
        assert num[key] == pytest.approx(want, rel=1e-10, abs=1e-14), (key, "numpy vs hand")
        assert _num(fam[key], vals) == pytest.approx(want, rel=1e-12, abs=1e-14), (key, "closed form vs hand")
    assert _num(fam["end_point"], vals) == pytest.approx(num["s"] / num["d_eff"], rel=1e-10)
    np.testing.assert_allclose(num["s_all"], num["s"], rtol=1e-12)          # the k pathways are alike
