"""Context tasks with symbolic k and n: the Kronecker algebra behind derivations/k_contexts.py.

docs/theory.md#contexts. The context task is Kronecker-structured: a datapoint is a pair (item i, context c)
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

The paper-specific algebra of Section 5: it serves the derivation of :mod:`k_contexts` (symbolic
k) and nothing in the general engine depends on it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import sympy as sp

from ..spec.expr import exact_floats

__all__ = [
    "k", "n", "gamma", "sig", "sigbar", "CVec", "ONE", "E", "TVec", "SymPathway",
    "syx_apply", "syxT_apply", "sx_apply", "gram_apply", "residual_of_datapoint",
    "structure_assumption", "structure_values", "sum_over_other_contexts",
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
# Linear combinations of named atoms: the arithmetic CVec and TVec share
# ---------------------------------------------------------------------------------------------
class _Terms:
    """A linear combination ``Σ c_key · key`` (dict ``terms``); each subclass's constructor
    canonicalises the coefficients and its ``dot`` gives the atoms' inner products."""

    __slots__ = ("terms",)

    def __add__(self, other):
        out = dict(self.terms)
        for key, c in other.terms.items():
            out[key] = out.get(key, 0) + c
        return type(self)(out)

    def __sub__(self, other):
        return self + other * (-1)

    def __mul__(self, c):
        return type(self)({key: v * c for key, v in self.terms.items()})

    __rmul__ = __mul__

    def is_zero(self) -> bool:
        # collect terms that are the same vector (keys are already canonical)
        return all(_z(c) for c in self.terms.values())

    def __repr__(self):
        return f"{type(self).__name__}({self.terms})"


# ---------------------------------------------------------------------------------------------
# Context side: vectors in R^k with symbolic k
# ---------------------------------------------------------------------------------------------
class CVec(_Terms):
    """A vector in R^k: ``c1 · 1 + Σ_q c_q e_q`` over named contexts q (symbolic k)."""

    __slots__ = ()

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
_ITEM_IN = {("v", "v"): 1, ("v", "1"): 0, ("1", "v"): 0, ("1", "1"): n}
_OUT = {("u", "u"): 1, ("ub", "ub"): 1, ("u", "ub"): 0, ("ub", "u"): 0}


# inner product of two keys of the same kind (item input, context input, common output, context blocks)
_KEY_DOT = {"I": lambda a, b: _ITEM_IN[(a[1], b[1])], "C": lambda a, b: CVec._dot_atoms(a[1], b[1]),
            "O": lambda a, b: _OUT[(a[1], b[1])],
            "B": lambda a, b: CVec._dot_atoms(a[1], b[1]) * _OUT[(a[2], b[2])]}


class TVec(_Terms):
    """A vector in a pathway's input or output space (see the key conventions above)."""

    __slots__ = ()

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

    def dot(self, other: "TVec") -> sp.Expr:
        tot = sp.Integer(0)
        for ka, ca in self.terms.items():
            for kb, cb in other.terms.items():
                if ka[0] == kb[0]:
                    tot += ca * cb * _KEY_DOT[ka[0]](ka, kb)
        return sp.expand(tot)


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
        if key[0] == "O" and target != "full":
            continue
        # the common block is a context block whose context factor is 1 (1·g = 1ᵀg, 1∘g = g)
        ca, o = (ONE, key[1]) if key[0] == "O" else (CVec({key[1]: 1}), key[2])
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
    Hn = exact_floats(sp.Matrix(H))                 # each entry the double nearest it (evalf: an ulp off)
    nn = Hn.shape[1]
    C = np.eye(nn) - np.ones((nn, nn)) / nn
    st = np.linalg.svd(Hn @ C, compute_uv=False)
    st = st[st > 1e-10 * max(1.0, st.max())]
    sb = float(np.linalg.norm(Hn @ np.ones(nn)) / np.sqrt(nn))
    return {"sigbar": sb, "sigma_tilde": st, "frob2": float(np.sum(Hn ** 2))}
