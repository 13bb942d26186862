"""Context tasks with symbolic k and n: Kronecker reasoning, the coupled race, and helpers.

THEORY.md §5. The context task is Kronecker-structured: a datapoint is a pair (item i, context c)
drawn uniformly, ``x = [e_i; γ e_c]``, ``y = [H e_i; e_c ⊗ H e_i]``. Every average over the data
factorises, ``⟨f(i) g(c)⟩ = ⟨f⟩_i ⟨g⟩_c``, so every effective dataset is a sum of Kronecker
products of an item-side average and a context-side average. This module does that algebra
with k, n, the context scale γ and the structure's singular values kept as SymPy symbols.

Context side (:class:`CVec`): vectors in R^k written in the atoms ``1`` (all ones) and ``e_q``
(the unit vector of a *named* context q; different names are different contexts), with
``1·1 = k``, ``1·e_q = 1``, ``e_q·e_r = δ_qr`` and the element-wise product
``1∘x = x``, ``e_q∘e_r = δ_qr e_q``. A gate on the contexts S is its indicator vector ``1_S``.

Item side (atoms of :class:`TVec`): the input atoms ``v`` (a unit right singular vector
ṽ_α of the centred structure H̃ = H(I − 11ᵀ/n), orthogonal to 1) and ``1`` (1_n, norm² n);
the output atoms ``u`` (ũ_α = H̃ṽ_α/σ̃_α) and ``ub`` (ū = H1/‖H1‖). The only facts about the
structure H that are used (its *assumptions*) are

    H ṽ = σ̃ ũ,  H 1 = √n σ̄ ū,  Hᵀ ũ = σ̃ ṽ,  Hᵀ ū = (σ̄/√n) 1,  ũ ⊥ ū,

i.e. 1 is a right singular vector of H (HᵀH1 = σ̄²1, true for the hierarchy, checked by
:func:`structure_assumption`). One representative centred mode stands for every α: the
operators never mix different α, because ũ_α ⊥ ũ_β and ũ_α ⊥ ū.

The second half of the module integrates the coupled race (the balanced pathway-map flow of
:mod:`theorykit.race`) in JAX, in its factorised form: for balanced weights ``W2ᵀW2 = W1W1ᵀ``
the flow ``τ dM = (MMᵀ)^{1/2}G + G(MᵀM)^{1/2}`` is exactly the gradient flow of ``W2 W1`` with
``rank`` hidden units, so no matrix square root is needed and the overlaps between pathways are
those of the data (the loss is written on the datapoints themselves). Families of gatings are
integrated at once by masking pathways of a superset (``vmap``).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import sympy as sp

__all__ = [
    "k", "n", "gamma", "sig", "sigbar", "CVec", "ONE", "E", "TVec",
    "syx_apply", "syxT_apply", "sx_apply", "gram_apply", "residual_of_datapoint",
    "structure_assumption", "structure_values",
    "race_flow", "race_loss_at", "RaceFlow", "context_family", "family_masks",
    "relu_run", "gdln_run", "classical_mds",
]

#: number of contexts, number of items (symbols)
k = sp.Symbol("k", positive=True, integer=True)
n = sp.Symbol("n", positive=True, integer=True)
#: context scale γ (the context one-hot is scaled by it)
gamma = sp.Symbol("gamma", positive=True)
#: a centred singular value σ̃_α of the structure, and its singular value σ̄ on the all-ones item
sig = sp.Symbol(r"\tilde{\sigma}_\alpha", positive=True)
sigbar = sp.Symbol(r"\bar{\sigma}", positive=True)


def _z(x):
    return sp.simplify(sp.together(sp.expand(x))) == 0


# ---------------------------------------------------------------------------------------------
# Context side: vectors in R^k with symbolic k
# ---------------------------------------------------------------------------------------------
class CVec:
    """A vector in R^k: ``c1 · 1 + Σ_q c_q e_q`` over named contexts q (symbolic k)."""

    __slots__ = ("terms",)

    def __init__(self, terms: Mapping | None = None):
        self.terms = {a: sp.sympify(c) for a, c in (terms or {}).items() if sp.sympify(c) != 0}

    @staticmethod
    def _dot_atoms(a, b):
        if a == "1" and b == "1":
            return k
        if a == "1" or b == "1":
            return sp.Integer(1)
        return sp.Integer(1) if a == b else sp.Integer(0)

    @staticmethod
    def _had_atoms(a, b):
        if a == "1":
            return b
        if b == "1":
            return a
        return a if a == b else None

    def __add__(self, other: "CVec") -> "CVec":
        out = dict(self.terms)
        for a, c in other.terms.items():
            out[a] = out.get(a, 0) + c
        return CVec(out)

    def __sub__(self, other: "CVec") -> "CVec":
        return self + other * (-1)

    def __mul__(self, c) -> "CVec":
        return CVec({a: v * c for a, v in self.terms.items()})

    __rmul__ = __mul__

    def __truediv__(self, c) -> "CVec":
        return self * (1 / sp.sympify(c))

    def dot(self, other: "CVec") -> sp.Expr:
        return sp.expand(sum((ca * cb * self._dot_atoms(a, b) for a, ca in self.terms.items()
                              for b, cb in other.terms.items()), sp.Integer(0)))

    def had(self, other: "CVec") -> "CVec":
        """Element-wise product (the product of two gates is the gate of the intersection)."""
        out: dict = {}
        for a, ca in self.terms.items():
            for b, cb in other.terms.items():
                r = self._had_atoms(a, b)
                if r is not None:
                    out[r] = out.get(r, 0) + ca * cb
        return CVec(out)

    def centred(self) -> "CVec":
        """C_k x = x − (1·x / k) 1."""
        return self - ONE * (ONE.dot(self) / k)

    def simplify(self) -> "CVec":
        return CVec({a: sp.factor(sp.simplify(c)) for a, c in self.terms.items()})

    def is_zero(self) -> bool:
        return all(_z(c) for c in self.terms.values())

    def subs(self, rep) -> "CVec":
        return CVec({a: c.subs(rep) for a, c in self.terms.items()})

    def numeric(self, kk: int, names: Mapping) -> np.ndarray:
        """The vector in R^kk, named contexts placed by ``names`` (name → index)."""
        out = np.zeros(kk)
        for a, c in self.terms.items():
            val = float(sp.N(c.subs(k, kk)))
            if a == "1":
                out += val
            else:
                out[names[a[1]]] += val
        return out

    def latex(self) -> str:
        parts = []
        for a, c in self.terms.items():
            atom = r"\mathbf{1}_k" if a == "1" else rf"e_{{{a[1]}}}"
            parts.append(f"\\left({sp.latex(sp.factor(c))}\\right){atom}")
        return " + ".join(parts) if parts else "0"

    def __repr__(self):
        return f"CVec({self.terms})"


ONE = CVec({"1": 1})


def E(name: str) -> CVec:
    """The unit vector of the named context ``name``."""
    return CVec({("e", name): 1})


def sum_over_other_contexts(fn, fixed: Sequence[str], fresh: str = "_b"):
    """``Σ_{b ∉ fixed} fn(e_b)`` for ``fn`` affine in the atom e_b (a CVec or a scalar).

    Uses ``Σ_{b ∉ F} e_b = 1 − Σ_{f∈F} e_f`` and ``Σ_{b ∉ F} 1 = k − |F|``.
    """
    val = fn(E(fresh))
    cnt = k - len(fixed)
    if isinstance(val, CVec):
        out = CVec()
        for a, c in val.terms.items():
            if a == ("e", fresh):
                out = out + (ONE - sum((E(f) for f in fixed), CVec())) * c
            else:
                out = out + CVec({a: c * cnt})
        return out
    return sp.expand(val * cnt)


# ---------------------------------------------------------------------------------------------
# Tensor vectors: item side ⊗ context side, in the input and the output spaces of a pathway
# ---------------------------------------------------------------------------------------------
# input keys: ("I", item_atom) and ("C", ctx_atom); output keys: ("O", out_atom) for the common
# block and ("B", ctx_atom, out_atom) for the context blocks (block index ⊗ structure output).
_ITEM_IN = {("v", "v"): 1, ("v", "1"): 0, ("1", "v"): 0, ("1", "1"): None}  # None → n
_OUT = {("u", "u"): 1, ("ub", "ub"): 1, ("u", "ub"): 0, ("ub", "u"): 0}


def _ip_item(a, b):
    r = _ITEM_IN[(a, b)]
    return n if r is None else sp.Integer(r)


class TVec:
    """A vector in a pathway's input or output space (see the key conventions above)."""

    __slots__ = ("terms",)

    def __init__(self, terms: Mapping | None = None):
        self.terms = {}
        for key, c in (terms or {}).items():
            c = sp.expand(sp.sympify(c))
            if c != 0:
                self.terms[key] = self.terms.get(key, 0) + c

    @staticmethod
    def item(atom: str, c=1) -> "TVec":
        return TVec({("I", atom): c})

    @staticmethod
    def ctx(v: CVec, c=1) -> "TVec":
        return TVec({("C", a): c * x for a, x in v.terms.items()})

    @staticmethod
    def common(out_atom: str, c=1) -> "TVec":
        return TVec({("O", out_atom): c})

    @staticmethod
    def blocks(v: CVec, out_atom: str, c=1) -> "TVec":
        return TVec({("B", a, out_atom): c * x for a, x in v.terms.items()})

    def __add__(self, other):
        out = dict(self.terms)
        for key, c in other.terms.items():
            out[key] = out.get(key, 0) + c
        return TVec(out)

    def __sub__(self, other):
        return self + other * (-1)

    def __mul__(self, c):
        return TVec({key: v * c for key, v in self.terms.items()})

    __rmul__ = __mul__

    def dot(self, other: "TVec") -> sp.Expr:
        tot = sp.Integer(0)
        for ka, ca in self.terms.items():
            for kb, cb in other.terms.items():
                if ka[0] != kb[0]:
                    continue
                if ka[0] == "I":
                    tot += ca * cb * _ip_item(ka[1], kb[1])
                elif ka[0] == "C":
                    tot += ca * cb * CVec._dot_atoms(ka[1], kb[1])
                elif ka[0] == "O":
                    tot += ca * cb * _OUT[(ka[1], kb[1])]
                else:
                    tot += ca * cb * CVec._dot_atoms(ka[1], kb[1]) * _OUT[(ka[2], kb[2])]
        return sp.expand(tot)

    def norm(self) -> sp.Expr:
        return sp.sqrt(sp.factor(self.dot(self)))

    def is_zero(self) -> bool:
        # collect terms that are the same vector (keys are already canonical)
        return all(_z(c) for c in self.terms.values())

    def subs(self, rep) -> "TVec":
        return TVec({key: c.subs(rep) for key, c in self.terms.items()})

    def __repr__(self):
        return f"TVec({self.terms})"


# structure facts (the assumptions): actions of H, Hᵀ, H̃ = H C_n, H̃ᵀ on the atoms
def _H(atom, centred=False) -> dict:
    """Item input atom → {output atom: coefficient} under H (or H̃)."""
    if atom == "v":
        return {"u": sig}
    return {} if centred else {"ub": sp.sqrt(n) * sigbar}


def _HT(atom, centred=False) -> dict:
    """Output atom → {item input atom: coefficient} under Hᵀ (or H̃ᵀ)."""
    if atom == "u":
        return {"v": sig}
    return {} if centred else {"1": sigbar / sp.sqrt(n)}


def _ones_dot(atom) -> sp.Expr:
    """1_nᵀ (item atom)."""
    return n if atom == "1" else sp.Integer(0)


@dataclass(frozen=True)
class SymPathway:
    """A pathway of the symbolic task: a context gate (indicator CVec) and whether it sees the contexts."""

    name: str
    gate: CVec
    sees_context: bool


def syx_apply(p: SymPathway, v: TVec, target: str = "full") -> TVec:
    """Σyx_p v = ⟨g_p(c) y (x_pᵀ v)⟩ over the data, for target ``"full"`` or ``"residual"``.

    Averages used (i, c independent and uniform): ⟨e_i e_iᵀ⟩ = I/n, ⟨e_i⟩ = 1/n,
    ⟨g(c)⟩ = (1·g)/k, ⟨g(c) e_c⟩ = g/k, ⟨g(c) e_c e_cᵀ⟩ = diag(g)/k.
    The residual target is y_R = [0; (e_c − 1/k) ⊗ H̃ e_i] (see :func:`residual_of_datapoint`).
    """
    g = p.gate
    out = TVec()
    for key, c in v.terms.items():
        if key[0] == "I":
            a = key[1]
            if target == "full":
                for o, h in _H(a).items():
                    out = out + TVec.common(o, c * ONE.dot(g) / k * h / n)
                    out = out + TVec.blocks(g / k, o, c * h / n)
            else:
                ctxv = g / k - ONE * (ONE.dot(g) / k ** 2)
                for o, h in _H(a, centred=True).items():
                    out = out + TVec.blocks(ctxv, o, c * h / n)
        elif key[0] == "C":
            if not p.sees_context:
                continue
            cat = CVec({key[1]: 1})
            if target == "full":
                # ⟨H e_i⟩ = H1/n = (σ̄/√n) ū
                out = out + TVec.common("ub", c * gamma * g.dot(cat) / k * sigbar / sp.sqrt(n))
                out = out + TVec.blocks(g.had(cat) / k, "ub", c * gamma * sigbar / sp.sqrt(n))
            # residual: ⟨H̃ e_i⟩ = 0
    return out


def syxT_apply(p: SymPathway, w: TVec, target: str = "full") -> TVec:
    """Σyx_pᵀ w = ⟨g_p(c) x_p (yᵀ w)⟩ over the data."""
    g = p.gate
    out = TVec()
    for key, c in w.terms.items():
        if key[0] == "O":
            if target != "full":
                continue
            o = key[1]
            for a, h in _HT(o).items():
                out = out + TVec.item(a, c * ONE.dot(g) / k * h / n)
            if p.sees_context:
                one_HT = sum((h * _ones_dot(a) for a, h in _HT(o).items()), sp.Integer(0))
                out = out + TVec.ctx(g / k, c * gamma * one_HT / n)
        elif key[0] == "B":
            ca, o = CVec({key[1]: 1}), key[2]
            if target == "full":
                for a, h in _HT(o).items():
                    out = out + TVec.item(a, c * g.dot(ca) / k * h / n)
                if p.sees_context:
                    one_HT = sum((h * _ones_dot(a) for a, h in _HT(o).items()), sp.Integer(0))
                    out = out + TVec.ctx(g.had(ca) / k, c * gamma * one_HT / n)
            else:
                coef = g.dot(ca) / k - ONE.dot(g) * ONE.dot(ca) / k ** 2
                for a, h in _HT(o, centred=True).items():
                    out = out + TVec.item(a, c * coef * h / n)
    return out


def sx_apply(q: SymPathway, p: SymPathway, v: TVec) -> TVec:
    """Σx_qp v = ⟨g_q g_p x_q (x_pᵀ v)⟩ (an input vector of pathway q)."""
    G = q.gate.had(p.gate)
    out = TVec()
    for key, c in v.terms.items():
        if key[0] == "I":
            a = key[1]
            out = out + TVec.item(a, c * ONE.dot(G) / k / n)
            if q.sees_context:
                out = out + TVec.ctx(G / k, c * gamma * _ones_dot(a) / n)
        elif key[0] == "C" and p.sees_context:
            cat = CVec({key[1]: 1})
            out = out + TVec.item("1", c * gamma * G.dot(cat) / k / n)
            if q.sees_context:
                out = out + TVec.ctx(G.had(cat) / k, c * gamma ** 2)
    return out


def gram_apply(p: SymPathway, v: TVec, target: str = "full") -> TVec:
    """Σyx_pᵀ Σyx_p v."""
    return syxT_apply(p, syx_apply(p, v, target), target)


def residual_of_datapoint(ctx_name: str = "c") -> dict:
    """Least-squares residual of the common pathway at datapoint (i, c), derived by projection.

    The common pathway's outputs are the linear functions of x = [e_i; γ e_c]: the additive
    functions f(i) + g(c). Their orthogonal complement (uniform measure on (i, c)) is the range
    of C_n ⊗ C_k (checked: X (C_n ⊗ C_k) = 0 because C 1 = 0, and the dimensions add up:
    (n + k − 1) + (n − 1)(k − 1) = nk). So the residual of a target component f(i) g(c) is
    (C_n f)(i) (C_k g)(c). Returns the residual's blocks as item-side ⊗ context-side factors.
    """
    ec = E(ctx_name)
    # common block: H e_i ⊗ 1(c): C_k 1 = 0
    common = ONE.centred()
    # block c': H e_i · (e_c)_{c'}: item side C_n H e_i = H̃ e_i, context side C_k e_c
    blocks = ec.centred()
    return {"common_block_context_factor": common, "context_blocks_context_factor": blocks,
            "item_factor": r"\tilde H e_i"}


# ---------------------------------------------------------------------------------------------
# Numbers for a concrete structure
# ---------------------------------------------------------------------------------------------
def structure_assumption(H) -> dict:
    """Check that 1 is a right singular vector of H (HᵀH 1 ∝ 1); returns the exact facts."""
    H = sp.Matrix(H)
    nn = H.cols
    one = sp.ones(nn, 1)
    HtH1 = H.T * H * one
    lam = HtH1[0]
    ok = all(sp.simplify(x - lam) == 0 for x in HtH1)
    return {"holds": bool(ok), "sigbar_squared": lam if ok else None}


def structure_values(H) -> dict:
    """σ̄ and the centred singular values σ̃_α of a structure H (floats and exact where cheap)."""
    Hn = np.array(sp.Matrix(H).evalf(), dtype=float)
    nn = Hn.shape[1]
    C = np.eye(nn) - np.ones((nn, nn)) / nn
    st = np.linalg.svd(Hn @ C, compute_uv=False)
    st = st[st > 1e-10 * max(1.0, st.max())]
    sb = float(np.linalg.norm(Hn @ np.ones(nn)) / np.sqrt(nn))
    return {"sigbar": sb, "sigma_tilde": st, "frob2": float(np.sum(Hn ** 2))}


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
    recording interval); the loss and the mode strengths are recorded every ``record_every``
    steps (default max(1, ⌊τ/40⌋)); ``RaceFlow.t`` holds the recording times.

    ``masks`` (batch × pathways, 0/1): integrate every sub-family of the spec's pathways at
    once (a masked pathway starts, and stays, at zero). ``a0``: a scalar, one value per pathway,
    or batch × pathways. ``target``: numeric targets replacing the task's Y (e.g. a residual).
    The reported loss is the spec's (times P for a summed loss). ``record_svals=m`` also records
    the m largest singular values of every pathway's map (``extra["svals"][name]``: batch × rec × m).
    """
    import jax
    import jax.numpy as jnp

    from .flow import integrate

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
    res = integrate(f, y0, None, t_end=nrec * every, record_every=every, h=h, record=rec, batched_args=False)
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


# ---------------------------------------------------------------------------------------------
# Simulations with parameter snapshots (callers of the one trainer, theorykit.engine.train)
# ---------------------------------------------------------------------------------------------
def _param_saver(record, steps):
    from .engine import SaveAt

    record = sorted(set(int(r) for r in record if 0 <= r <= steps))
    return record, SaveAt(steps=record, fns={"params": lambda p, d: p} if record else {})


def relu_run(X, Y, *, hidden: int, lr: float, steps: int, seeds: int, init_std: float, loss: str = "sum",
             dtype: str = "float64", seed: int = 0, record: Sequence[int] = ()):
    """Bias-free one-hidden-layer ReLU networks, vmapped over seeds, with parameter snapshots:
    :func:`theorykit.simulate.simulate_relu` that also returns the parameters at the steps in ``record``.
    Returns (loss[seeds, steps+1], snaps: dict step -> [W1 (seeds×H×d), W2 (seeds×p×H)]).
    """
    from .simulate import simulate_relu

    record, save = _param_saver(record, steps)
    res = simulate_relu(X, Y, hidden=hidden, lr=lr, steps=steps, seeds=seeds, init_std=init_std, loss=loss,
                        dtype=dtype, seed=seed, save=save, check=False)
    keys = ["input->h1", "h1->output"]
    snaps = {s: [np.asarray(res.extra["saved"]["params"][k])[:, j] for k in keys] for j, s in enumerate(record)}
    return res.loss, snaps


def gdln_run(spec, *, init_std, seeds: int, steps: int, schedule: str = "joint", dtype: str = "float64",
             seed: int = 0, record: Sequence[int] = (), staged_first=("common",), values=None):
    """GDLN gradient descent with per-pathway random initial scales and parameter snapshots:
    :func:`theorykit.simulate.simulate` with ``init="random"``.

    ``init_std``: one float or a mapping pathway name → std (the paper's GDLNs use 10·b for the
    common pathway and 20·b for the others). ``schedule``: "joint" (total loss) or "staged"
    (pathways in ``staged_first`` on the targets, the others on the residual of those). Returns
    (loss[seeds, steps+1] of the total loss, snaps: dict step -> params list per pathway).
    """
    from .graph import graph_from_pathways
    from .simulate import simulate

    g = graph_from_pathways(spec)
    record, save = _param_saver(record, steps)
    res = simulate(g, init="random", seeds=seeds, steps=steps, values=values, init_std=init_std, dtype=dtype,
                   schedule=schedule, staged_first=staged_first, seed=seed, save=save)
    saved = res.extra["saved"].get("params", {})
    snaps = {s: [[np.asarray(saved[k])[:, j] for k in gp.edges] for gp in g.pathways] for j, s in enumerate(record)}
    return res.loss, snaps


# ---------------------------------------------------------------------------------------------
# Reading a trained ReLU network
# ---------------------------------------------------------------------------------------------
def classical_mds(D: np.ndarray, dim: int = 2) -> np.ndarray:
    """Classical (Torgerson) MDS of a distance matrix: coordinates (points × dim)."""
    D = np.asarray(D, dtype=float)
    m = D.shape[0]
    J = np.eye(m) - np.ones((m, m)) / m
    Bm = -0.5 * J @ (D ** 2) @ J
    w, Q = np.linalg.eigh(0.5 * (Bm + Bm.T))
    idx = np.argsort(w)[::-1][:dim]
    return Q[:, idx] * np.sqrt(np.clip(w[idx], 0, None))
