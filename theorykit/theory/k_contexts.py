"""k-context closed forms with k, n and the structure's singular values as symbols (docs/theory.md#contexts).

Derives, from the effective datasets of the context task and with nothing typed in:

1. the common pathway's modes (three sectors: centred items, centred contexts, the grand
   mean), its closed-form dynamics and its least-squares residual;
2. the (k−1)-context pathways on that residual: s_α(k), their own and their *coupled* input
   variance d(k) (the overlaps between the k pathways' output singular vectors are derived,
   not assumed), the end points and the loss; the same for single-context pathways, and for
   the family of all r-context pathways (general r);
3. the full closed-form loss of the paper's scheme (common pathway on the targets, context
   pathways on its residual).

All averages over the data are computed by :mod:`k_algebra`'s Kronecker
algebra (i and c independent and uniform). The result is then checked against theorykit's
exact numeric derivation on the actual effective datasets of ``contexts(n, k)`` for
k = 2 … 8, and against the race reduction integrated from the data.

Run as a script: ``python -m theorykit.derivations.k_contexts [--latex OUT.tex] [--json OUT.json] [--quick]``.
"""
from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from .k_algebra import (ONE, CVec, E, SymPathway, TVec, _z, gamma, gram_apply, k, n, residual_of_datapoint, sig, sigbar,
                        structure_assumption, structure_values, sum_over_other_contexts, sx_apply, syx_apply)
from .modes import _radical_free, exact_latex, product_of_irreducible_powers
from .radicals import zero_by_radical_reduction
from .trajectory import mode_loss_reduction, mode_trajectory
from .derivation import Derivation
from ..errors import DerivationError
from ..io import counted
from ..spec.expr import exact_float, exact_floats, to_exact
from ..spec.fields import tex_text
from ..spec.gating import GDLNSpec, Training, context_family, context_pathways
from ..spec.limits import Limits
from ..spec.task import Task, contexts, hierarchy
from .effective import effective_dataset
from ..linalg import correlation, numeric_svd
from .race import RaceSystem
from .latex import latex_document

__all__ = ["derive", "KContexts", "closed_form_loss", "closed_form_modes", "check_against_numeric", "r_family"]

r_sym = sp.Symbol("r", positive=True, integer=True)


def _s(x):
    """Presentation form: ``factor(simplify(x))``; a rational function of the symbols (no radicals
    or functions) goes straight to ``factor``, which is canonical for it (same form, no simplify)."""
    x = sp.sympify(x)
    # a product of irreducible powers, e.g. σ√(k+1)/(√k n): nothing for simplify to combine either
    if _radical_free(x) or product_of_irreducible_powers(x):
        return sp.factor(x)
    return sp.factor(sp.simplify(x))


def _zero(x) -> bool:
    """Exact zero test: reduction modulo the square roots' relations (exact polynomial arithmetic),
    else ``simplify``."""
    x = sp.sympify(x)
    return zero_by_radical_reduction(x) or _z(x)


@dataclass
class KContexts:
    """Results of :func:`derive` (SymPy expressions in k, n, γ, σ̃_α, σ̄, t, τ, a_0)."""
    common: list                     # mode sectors of the common pathway
    residual: dict                   # residual of the common pathway's least squares
    kminus1: dict                    # (k−1)-context pathways on the residual
    single: dict                     # single-context pathways on the residual
    r_family: dict                   # all r-context pathways on the residual (general r)
    loss: dict                       # closed-form loss pieces
    checks: list = field(default_factory=list)
    seconds: float = 0.0
    latex: str = ""

    def __repr__(self):     # the fields hold long expressions and every check (5,000 characters): one line
        return (f"KContexts({len(self.common)} common-pathway sectors, {counted(len(self.checks), 'numeric check')}, "
                f"{self.seconds:.1f} s; .summary() for JSON, .latex for the document)")

    def _repr_latex_(self):
        """Jupyter: each family's s, d and end point s/d, one a line (common sectors, k−1, single, r)."""
        fams = [(f"common, {m['sector']}", m, "d") for m in self.common] + [
            ("(k-1)-context", self.kminus1, "d_eff"), ("single-context", self.single, "d_eff"),
            ("r-context", self.r_family, "d_eff")]
        rows = [f"\\text{{{tex_text(name)}}}: & s = {exact_latex(f['s'])}, & d = {exact_latex(f[d])}, "
                f"& s/d = {exact_latex(f['end_point'])}" for name, f, d in fams]
        return r"$\begin{aligned}" + r" \\ ".join(rows) + r"\end{aligned}$"

    def summary(self) -> dict:
        """JSON-ready strings and the checks."""
        def texts(fields: dict) -> dict:        # SymPy values as strings; flags and counts as they are
            return {kk: (str(v) if isinstance(v, sp.Basic) else v) for kk, v in fields.items()}

        return {"common": [texts(m) for m in self.common], "residual": texts(self.residual),
                "kminus1": texts(self.kminus1), "single": texts(self.single), "r_family": texts(self.r_family),
                "loss": texts(self.loss), "checks": copy.deepcopy(self.checks),
                "seconds": self.seconds}     # a copy of the checks: a caller's changes never reach the result


# ---------------------------------------------------------------------------------------------
# 1. the common pathway
# ---------------------------------------------------------------------------------------------
def _rayleigh(v: TVec, Av: TVec, vv=1):
    """``vᵀ(Av)/vv`` (``vv = vᵀv``) in presentation form, and whether ``Av`` is that multiple of ``v``."""
    lam = _s(v.dot(Av) / vv)
    return lam, (Av - v * lam).is_zero()


def _sector_1d(p: SymPathway, v: TVec, label: str, multiplicity) -> dict:
    vv = v.dot(v)
    lam, eig_ok = _rayleigh(v, gram_apply(p, v), vv)
    s = _s(sp.sqrt(lam))
    d, diag_ok = _rayleigh(v, sx_apply(p, p, v), vv)
    return {"sector": label, "s": s, "d": d, "end_point": _s(s / d), "multiplicity": multiplicity,
            "eigenvector_check": bool(eig_ok), "diagonalisable": bool(diag_ok)}


def _common_pathway() -> list:
    p = SymPathway("common", ONE, True)
    out = [
        _sector_1d(p, TVec.item("v"), "centred items (one mode per alpha)", "one per centred mode alpha"),
        # a representative of the centred context vectors: S_k acts irreducibly on them (Schur)
        _sector_1d(p, TVec.ctx((E("a") - E("b")) * (1 / sp.sqrt(2))), "centred contexts", k - 1),
    ]
    # grand-mean sector: span{[1_n; 0], [0; 1_k]}, a 2x2 problem
    b = [TVec.item("1"), TVec.ctx(ONE)]
    Gb = sp.Matrix(2, 2, lambda i, j: b[i].dot(b[j]))
    A = sp.Matrix(2, 2, lambda i, j: b[i].dot(gram_apply(p, b[j])))
    M = (Gb.inv() * A).applyfunc(_s)          # Gram operator in the basis b
    closure = all((gram_apply(p, b[j]) - (b[0] * M[0, j] + b[1] * M[1, j])).is_zero() for j in range(2))
    det = _s(M.det())
    lam = _s(M.trace())                        # rank one: the non-zero eigenvalue is the trace
    vcol = M[:, 0] if not _zero(M[0, 0]) or not _zero(M[1, 0]) else M[:, 1]
    v = b[0] * vcol[0] + b[1] * vcol[1]
    d, diag_ok = _rayleigh(v, sx_apply(p, p, v), v.dot(v))
    s = _s(sp.sqrt(lam))
    # the zero mode: the kernel of M
    ker = M.nullspace()
    vz = b[0] * ker[0][0] + b[1] * ker[0][1]
    sxz = sx_apply(p, p, vz)
    out.append({"sector": "grand mean", "s": s, "d": d, "end_point": _s(s / d), "multiplicity": 1,
                "eigenvector_check": bool(closure and _zero(det)), "diagonalisable": bool(diag_ok),
                "right_vector": f"{_s(vcol[0])}*[1_n;0] + {_s(vcol[1])}*[0;1_k] (unnormalised)",
                "zero_mode_input_variance": _s(vz.dot(sxz) / vz.dot(vz))})
    return out


# ---------------------------------------------------------------------------------------------
# 2. the residual
# ---------------------------------------------------------------------------------------------
def _residual(common: list) -> dict:
    res = residual_of_datapoint("c")
    cf = res["context_blocks_context_factor"]          # C_k e_c
    common_zero = res["common_block_context_factor"].is_zero()
    # per centred mode alpha: target loss, fitted part, residual part
    L0_alpha = sp.Rational(1, 2) * (sig ** 2 / n) * (1 + E("c").dot(E("c")))   # common block + own block
    L0_bar = sp.Rational(1, 2) * (sigbar ** 2 / n) * (1 + E("c").dot(E("c")))
    resid_alpha = _s(sp.Rational(1, 2) * (sig ** 2 / n) * cf.dot(cf))
    A, B, C = common
    fit_alpha = _s(A["s"] ** 2 / (2 * A["d"]))
    fit_bar = _s(B["multiplicity"] * B["s"] ** 2 / (2 * B["d"]) + C["s"] ** 2 / (2 * C["d"]))
    return {
        "datapoint": sp.Symbol(r"R(i,c;c') = (\tilde H e_i)\,(\delta_{cc'} - 1/k)"),
        "context_factor": sp.sympify(cf.terms.get("1", 0)),
        "common_block_is_fitted": sp.true if common_zero else sp.false,
        "loss_per_alpha": resid_alpha,
        "initial_loss_per_alpha": _s(L0_alpha),
        "initial_loss_bar": _s(L0_bar),
        "fit_per_alpha": fit_alpha,
        "fit_bar": fit_bar,
        "consistent_alpha": sp.true if _zero(L0_alpha - fit_alpha - resid_alpha) else sp.false,
        "consistent_bar": sp.true if _zero(L0_bar - fit_bar) else sp.false,
        "residual_loss": _s((k - 1) / (2 * n * k)) * sp.Symbol(r"\lVert\tilde H\rVert_F^2"),
    }


# ---------------------------------------------------------------------------------------------
# 3. context pathways on the residual
# ---------------------------------------------------------------------------------------------
def _family(gate_of, label: str) -> dict:
    """A symmetric family {p_q}: pathway q has gate gate_of(q) (a CVec), items only, on the residual."""
    pq = SymPathway("q", gate_of("q"), False)
    v = TVec.item("v")
    lam, eig_ok = _rayleigh(v, gram_apply(pq, v, "residual"))
    s = _s(sp.sqrt(lam))

    def u_of(name):
        p_ = SymPathway(name, gate_of(name), False)
        return syx_apply(p_, v, "residual") * (1 / s)

    def ctx_factor(name) -> CVec:
        u = u_of(name)
        return CVec({key[1]: c for key, c in u.terms.items()})   # keys ("B", ctx_atom, "u")

    uq = u_of("q")
    d_own, own_diag = _rayleigh(v, sx_apply(pq, pq, v))

    def over_others(fn, fixed: str):
        """:func:`sum_over_other_contexts` of ``fn(b)``, ``b`` the name of a context other than ``fixed``."""
        return sum_over_other_contexts(lambda eb: fn([x[1] for x in eb.terms if x != "1"][0]), [fixed])

    def overlap(name: str):
        pb = SymPathway(name, gate_of(name), False)
        return uq.dot(u_of(name)), v.dot(sx_apply(pb, pq, v))

    O, cpl = (_s(x) for x in overlap("_b"))
    d_eff = _s(d_own + over_others(lambda b: overlap(b)[0] * overlap(b)[1], "q"))
    # closure of the symmetric ansatz W_p = a u_p v^T for every p:
    # G_q v = s u_q − a Σ_p (v^T Σx_pq v) u_p  must equal (s − d_eff a) u_q
    a = sp.Symbol("a")
    others = over_others(lambda b: ctx_factor(b) * cpl, "q")
    Gq = TVec.blocks(ctx_factor("q") * (s - a * d_own) - others * a, "u")
    closure = (Gq - uq * (s - d_eff * a)).is_zero()
    end = _s(s / d_eff)
    # at the end point the summed maps reproduce the residual at datapoint (i, c):
    # Σ_{q: c in S_q} end · u_q ṽ(i)  vs  σ̃ ṽ(i) (e_c − 1/k) ⊗ ũ
    c_name = "c"
    on = lambda q_name: gate_of(q_name).dot(E(c_name))      # noqa: E731  g_q(c)
    total = ctx_factor("c") * (end * on("c")) + over_others(lambda b: ctx_factor(b) * (end * on(b)), "c")
    target = E(c_name).centred() * sig
    reproduces = (total - target).is_zero()
    ell = mode_loss_reduction(s, d_eff, mode_trajectory(s, d_eff))
    return {"family": label, "s": s, "s_squared": lam, "d_own": d_own, "overlap_other": O,
            "input_coupling_other": cpl, "d_eff": d_eff, "end_point": end,
            "eigenvector_check": bool(eig_ok), "own_diagonalisable": bool(own_diag),
            "ansatz_closed": bool(closure), "end_maps_reproduce_residual": bool(reproduces),
            "loss_reduction_per_pathway_per_alpha": ell}


def _vandermonde_sum(p, j, r, kk):
    """``Σ_j C(r, j) C(kk − r, r − j) p(j)`` for ``p`` a polynomial in ``j`` (coefficients in the
    other symbols), exactly.

    Write ``p(j) = Σ_m c_m [j]_m`` in falling factorials (``c_m = Δᵐp(0)/m!``, Newton's forward
    differences). Each term is a Vandermonde convolution: ``C(r, j)[j]_m = [r]_m C(r−m, j−m)``, so
    ``Σ_j C(r, j) C(kk−r, r−j)[j]_m = [r]_m C(kk−m, r−m) = C(kk, r)[r]_m²/[kk]_m``. The last form
    holds for ``kk ≥ m``, so the result is valid for ``kk ≥ deg p`` (here deg p = 2 and k ≥ 2)."""
    P = sp.Poly(sp.expand(p), j)
    vals = [P.as_expr().subs(j, i) for i in range(P.degree() + 1)]
    ff = lambda x, m: sp.Mul(*[x - i for i in range(m)])          # noqa: E731  falling factorial
    out = 0
    for m in range(len(vals)):
        out += sp.together(vals[0] / sp.factorial(m)) * ff(r, m) ** 2 / ff(kk, m)
        vals = [vals[i + 1] - vals[i] for i in range(len(vals) - 1)]
    return sp.binomial(kk, r) * out


def r_family() -> dict:
    """All C(k, r) pathways on r-subsets of contexts, on the residual (general r).

    Pathway S has context factor c_S = 1_S − (r/k)1 (from the residual's C_k e_c), so
    |c_S|² = r − r²/k and c_S·c_T = |S∩T| − r²/k. By Vandermonde, C(r, j)·C(k−r, r−j) subsets T
    meet S in j contexts; ⟨g_S g_T⟩ = |S∩T|/k. The overlaps are summed exactly by
    :func:`_vandermonde_sum` (factorial moments of the hypergeometric weights; SymPy's general
    ``summation`` reaches the same closed form through hypergeometric-series machinery, ~10× slower).
    """
    j = sp.Symbol("j", integer=True, nonnegative=True)
    r = r_sym
    cS2 = r - r ** 2 / k
    s = sig * sp.sqrt(cS2) / (n * k)
    # Σ_j C(r, j) C(k−r, r−j) · (j − r²/k)/|c_S|² · j/(nk)   (k ≥ 2: proper subsets exist)
    tot = _vandermonde_sum((j - r ** 2 / k) / cS2 * j / (n * k), j, r, k)
    d_eff = sp.combsimp(sp.factor(tot))
    N = sp.binomial(k, r)
    frac = sp.combsimp(sp.factor(sp.combsimp(N * s ** 2 / (2 * d_eff) / (sig ** 2 * (k - 1) / (2 * n * k)))))
    return {"s": _s(s), "d_eff": d_eff, "end_point": sp.simplify(s / d_eff), "pathways": N,
            "fraction_of_residual_learned": frac}


# ---------------------------------------------------------------------------------------------
# 4. the loss
# ---------------------------------------------------------------------------------------------
def _loss(common, kminus1) -> dict:
    A, B, C = common
    a_c = lambda m: mode_trajectory(m["s"], m["d"])         # noqa: E731
    L_bar = sigbar ** 2 / n - B["multiplicity"] * mode_loss_reduction(B["s"], B["d"], a_c(B)) \
        - mode_loss_reduction(C["s"], C["d"], a_c(C))
    L_alpha = sig ** 2 / n - mode_loss_reduction(A["s"], A["d"], a_c(A)) \
        - k * kminus1["loss_reduction_per_pathway_per_alpha"]
    L_res_alpha = sig ** 2 * (k - 1) / (2 * n * k) - k * kminus1["loss_reduction_per_pathway_per_alpha"]
    return {"L_bar": L_bar, "L_alpha": L_alpha, "residual_only_L_alpha": L_res_alpha,
            "total": sp.Symbol(r"L(t) = L_{\bar\sigma}(t) + \sum_\alpha L_\alpha(t)\ \ (\times nk\ \mathrm{for\ a\ summed\ loss})")}


def closed_form_modes(res: KContexts, H, nn: int, kk: int, gam: float) -> tuple:
    """Numeric modes of the closed form for a concrete structure: ``(modes, L0, Lres)``, ``modes`` a list
    of ``(s, d, multiplicity, group)``, ``L0`` the loss at the start and ``Lres`` the part of it left once
    the common modes are learned, which the context modes learn (``closed_form_loss(..., residual_only=True)``).

    ``group`` is "common" or "context" (which initial strength a0 applies). The closed forms assume
    that 1 is a right singular vector of H (HᵀH1 ∝ 1, true of the hierarchy and the cross, not of
    ``ring(8)``); a structure without it is refused."""

    if not structure_assumption(H)["holds"]:
        raise DerivationError("the k-context closed forms assume 1 is a right singular vector of the structure "
                              "(HᵀH 1 ∝ 1), which this one is not: its common pathway does not split into the "
                              "three sectors; derive the task numerically (theorykit.Derivation)", field="data.structure")
    sv = structure_values(H)
    A, B, C = res.common
    K = res.kminus1
    base = {k: kk, n: nn, gamma: gam, sigbar: sv["sigbar"]}
    f = _float_at
    modes = [(f(B["s"], base), f(B["d"], base), f(B["multiplicity"], base), "common"),
             (f(C["s"], base), f(C["d"], base), 1.0, "common")]
    for st in sv["sigma_tilde"]:
        v = {**base, sig: st}
        modes.append((f(A["s"], v), f(A["d"], v), 1.0, "common"))
        modes.append((f(K["s"], v), f(K["d_eff"], v), float(kk), "context"))
    L0 = (sv["sigbar"] ** 2 + float(np.sum(sv["sigma_tilde"] ** 2))) / nn
    Lres = float(np.sum(sv["sigma_tilde"] ** 2)) * (kk - 1) / (2 * nn * kk)
    return modes, L0, Lres


def _float_at(e, values: dict) -> float:
    """The closed form ``e`` at ``values`` as a float. A float value is read as the decimal it prints as
    (:func:`theorykit.spec.expr.to_exact`: γ = 1.1 is 11/10, as ``contexts(…, context_scale=1.1)`` reads
    it); ``e`` is then evaluated at 30 digits and rounded once, as :func:`theorykit.spec.expr.exact_float`
    does an irrational number (correctly rounded but in astronomically rare cases).
    ``float(N(e.subs(v)))`` rounded every step to 15 digits, then evalf rounded twice: up to an ulp off."""
    vals = {s_: to_exact(x) if isinstance(x, (float, np.floating)) else x for s_, x in values.items()}
    return float(e.evalf(30, subs=vals))


def closed_form_loss(res: KContexts, H, nn: int, kk: int, gam: float, times, tau_val: float, a0_common,
                     a0_ctx=None, loss_factor: float = 1.0, residual_only: bool = False, modes=None):
    """The closed-form loss at ``times`` for a concrete structure H (numpy).

    ``a0_common``/``a0_ctx`` may be arrays (broadcast against each other): the result then has
    their shape followed by the shape of ``times``. ``modes``: the result of :func:`closed_form_modes`
    for the same arguments, when the caller already has it (default: computed here)."""
    modes, L0, Lres = modes or closed_form_modes(res, H, nn, kk, gam)
    a0_ctx = a0_common if a0_ctx is None else a0_ctx
    ac, ax = np.broadcast_arrays(np.asarray(a0_common, float), np.asarray(a0_ctx, float))
    times = np.asarray(times, float)
    ac, ax = ac[..., None], ax[..., None]
    L = np.full(np.broadcast(ac, times).shape, Lres if residual_only else L0)
    for s_, d_, m_, grp in modes:
        if residual_only and grp == "common":
            continue
        a0v = ac if grp == "common" else ax
        a = mode_trajectory(s_, d_, a0v, times, tau_val, np.exp)
        L = L - m_ * mode_loss_reduction(s_, d_, a)
    return L * loss_factor


# ---------------------------------------------------------------------------------------------
# 5. checks against the numeric derivation on the actual task
# ---------------------------------------------------------------------------------------------
def _numpy_modes(task, p):
    """``(s, d, V, Sx)`` of pathway ``p``: its exact effective dataset (:func:`theorykit.effective_dataset`)
    decomposed by numpy, with input variances ``d_α = v_αᵀ Σx v_α``."""
    eff = effective_dataset(task, p)
    Sx = exact_floats(eff.Sx)                           # exact entries, each as the double nearest it
    _U, s, V = numeric_svd(exact_floats(eff.Syx))
    return s, np.einsum("ia,ij,ja->a", V, Sx, V), V, Sx


def check_against_numeric(res: KContexts, kk: int, nn: int = 4, gam=1, race: bool = True,
                          exact: bool = True, limits: Limits | None = None) -> dict:
    """Compare the symbolic results at (k, n, γ) with theorykit's derivation of ``contexts(nn, kk)``.

    ``exact=True``: the core's exact SVD (:class:`theorykit.Derivation`) and an exact SymPy least
    squares; ``exact=False``: the same effective datasets (exact SymPy matrices from
    :func:`theorykit.effective_dataset`) decomposed by numpy (fast). ``limits``: the size guard of
    ``contexts(nn, kk)`` and ``hierarchy(nn)`` (default: their defaults; a caller whose user cannot choose
    ``nn``, as the contexts suite, passes :func:`~theorykit.spec.limits.fixed_size`: the refusal then names
    THEORYKIT_MAX_BYTES).
    """

    t0 = time.time()
    # exact: a float is read as the decimal it prints as (0.5 -> 1/2), never guessed from digits
    gam = sp.Rational(repr(gam)) if isinstance(gam, float) else sp.sympify(gam, strict=True)
    task = contexts(nn, kk, context_scale=gam, limits=limits)
    H = hierarchy(nn, limits=limits)
    sv = structure_values(H)
    # the (k−1)-context closed forms at these numbers (σ̄ is in the common pathway's, from closed_form_modes)
    vals = {k: kk, n: nn, gamma: gam}
    out = {"k": kk, "n": nn, "gamma": str(gam)}
    # common pathway: its closed-form modes at these numbers, as closed_form_loss takes them
    cf_modes = closed_form_modes(res, H, nn, kk, exact_float(gam))[0]
    if exact:
        der = Derivation(GDLNSpec(task, context_pathways(nn, kk, [])), method="closed-form")
        num = sorted(((float(sp.N(m.s, 30)), float(sp.N(m.d, 30))) for m in der.modes["common"].modes), reverse=True)
        out["common_closed_form"] = der.method == "closed-form"
    else:
        s_, dd, V_, Sx = _numpy_modes(task, context_pathways(nn, kk, [])[0])
        num = sorted(zip(s_.tolist(), dd.tolist()), reverse=True)
        out["common_closed_form"] = bool(np.abs(Sx @ V_ - V_ * dd).max() < 1e-12)
    sym = sorted(((s_, d_) for s_, d_, m_, grp in cf_modes if grp == "common" for _ in range(round(m_))), reverse=True)
    out["common_modes"] = len(num)
    out["common_max_abs_error"] = float(np.max(np.abs(np.array(num) - np.array(sym)))) if len(num) == len(sym) else None
    # residual of the common pathway's least squares
    X, Y = task.X, task.Y
    Ht = H * (sp.eye(nn) - sp.ones(nn, nn) / nn)
    # block c' at datapoint (i, c): H̃ e_i (δ_cc' − 1/k), i.e. C_k ⊗ H̃ below a zero common block
    Rsym = sp.Matrix.vstack(sp.zeros(H.rows, nn * kk),
                            sp.kronecker_product(sp.eye(kk) - sp.ones(kk, kk) / kk, Ht))
    if exact:
        Wstar = (Y * X.T) * (X * X.T).pinv()
        R = (Y - Wstar * X).applyfunc(sp.expand)                      # exact rationals
        out["residual_exact_match"] = bool((R - Rsym).applyfunc(sp.simplify).is_zero_matrix)
    else:
        Xf, Yf = exact_floats(X), exact_floats(Y)
        W = np.linalg.lstsq(Xf.T, Yf.T, rcond=None)[0].T
        err = float(np.abs(Yf - W @ Xf - exact_floats(Rsym)).max())
        out["residual_max_abs_error"] = err
        out["residual_exact_match"] = err < 1e-12
        R = Rsym
    # (k-1)-context pathways on the residual: exact modes
    rtask = Task(X, R, {}, "contexts-residual", {"n": nn, "k": kk})
    fam = context_family(kk, kk - 1)
    spec = GDLNSpec(rtask, context_pathways(nn, kk, fam, common=False, hidden=8),
                    Training(lr=0.01, loss="mean", a0=1e-3, steps=20000))
    K = res.kminus1
    errs_s, errs_d = [], []
    s_sym = sorted((s_ for s_, _d, _m, grp in cf_modes if grp == "context"), reverse=True)
    rder = Derivation(spec) if exact else None
    for p in spec.pathways:
        if exact:
            svd = rder.modes[p.name]
            s_num = sorted((float(sp.N(m.s, 30)) for m in svd.modes), reverse=True)
            d_num = [float(sp.N(m.d, 30)) for m in svd.modes]
        else:
            s_, d_, _V, _Sx = _numpy_modes(rtask, p)
            s_num = sorted(s_.tolist(), reverse=True)
            d_num = d_.tolist()
        errs_s.append(np.max(np.abs(np.array(s_num) - np.array(s_sym))))
        errs_d.append(np.max(np.abs(np.array(d_num) - exact_float(K["d_own"].subs(vals)))))
    out["kminus1_s_max_abs_error"] = float(max(errs_s))
    out["kminus1_d_own_max_abs_error"] = float(max(errs_d))
    out["exact"] = bool(exact)
    # coupled input variance from the data: G_p(M) v = (s − d_eff a) u with every M_q = a Σ_α u v^T
    Xn, Rn = exact_floats(X), exact_floats(R)
    Us, Vs, Ss, gs = [], [], [], []
    for p in spec.pathways:
        g = np.asarray(p.active, float)
        U, s_, V = numeric_svd(correlation(Xn[:nn], Rn, g), tol=1e-10, scale=1.0)      # the modes above 1e-10
        Us.append(U); Vs.append(V); Ss.append(s_); gs.append(g)
    aval = 0.37
    Yh = sum((aval * Us[q] @ Vs[q].T @ Xn[:nn]) * gs[q] for q in range(len(gs)))
    d_eff_num, off_mode = [], 0.0
    for q in range(len(gs)):
        G = correlation(Xn[:nn], Rn - Yh, gs[q])
        coeff = np.einsum("ia,ij,ja->a", Us[q], G, Vs[q])
        d_eff_num.extend(list((Ss[q] - coeff) / aval))
        off_mode = max(off_mode, float(np.abs(G - Us[q] @ np.diag(coeff) @ Vs[q].T).max()))
    out["kminus1_gradient_off_mode_max_abs"] = off_mode
    out["kminus1_d_eff_max_abs_error"] = float(np.max(np.abs(np.array(d_eff_num) - exact_float(K["d_eff"].subs(vals)))))
    end_num = sorted(_float_at(K["end_point"], {**vals, sig: st}) for st in sv["sigma_tilde"])
    out["kminus1_end_points"] = end_num
    # the stated end points s/d against the data's: each pathway's singular values over its own d_eff
    # above (mode by mode); a length mismatch (a mode missing on either side) is an infinite error
    end_errs, i0 = [], 0
    for q in range(len(gs)):
        e_data = np.sort(Ss[q] / np.array(d_eff_num[i0:i0 + len(Ss[q])]))
        i0 += len(Ss[q])
        end_errs.append(float(np.abs(e_data - end_num).max()) if len(e_data) == len(end_num) else np.inf)
    out["kminus1_end_point_max_abs_error"] = max(end_errs)
    # end points from the data: least-norm fixed point = s/d_eff mode by mode, check the loss vanishes
    Mend = [Us[q] @ np.diag(Ss[q] / exact_float(K["d_eff"].subs(vals))) @ Vs[q].T for q in range(len(gs))]
    Yend = sum((Mend[q] @ Xn[:nn]) * gs[q] for q in range(len(gs)))
    out["end_maps_fit_residual_max_abs"] = float(np.abs(Yend - Rn).max())
    if race:
        times = np.array([0, 2000, 5000, 10000, 20000])
        tau_v = spec.tau
        rf = RaceSystem.from_spec(spec).solve(times, modes=False)
        L_race = rf.loss_at(times)
        L_cf = closed_form_loss(res, H, nn, kk, exact_float(gam), times, tau_v, spec.training.a0, residual_only=True)
        out["race_vs_closed_form_max_rel"] = float(np.max(np.abs(L_race - L_cf)) / L_cf[0])
    out["seconds"] = time.time() - t0
    return out


# ---------------------------------------------------------------------------------------------
# the derivation
# ---------------------------------------------------------------------------------------------
def derive(check_ks=range(2, 9), n_check: int = 4, race_check: bool = True, latex: bool = True,
           exact_check: bool = True, limits: Limits | None = None) -> KContexts:
    """Derive the k-context results symbolically, check them numerically, and typeset them (``limits``: the
    checks' task builds', as :func:`check_against_numeric`)."""
    t0 = time.time()
    common = _common_pathway()
    residual = _residual(common)
    kminus1 = _family(lambda q: ONE - E(q), "k-1 contexts")
    single = _family(lambda q: E(q), "single context")
    rf = r_family()
    loss = _loss(common, kminus1)
    res = KContexts(common, residual, kminus1, single, rf, loss)
    res.seconds = time.time() - t0
    for kk in check_ks:
        res.checks.append(check_against_numeric(res, kk, n_check, race=race_check, exact=exact_check,
                                                 limits=limits))
    if latex:
        res.latex = to_latex(res)
    return res


def to_latex(res: KContexts) -> str:
    L = sp.latex
    A, B, C = res.common
    K, S1, RF = res.kminus1, res.single, res.r_family
    body = []
    body.append(r"""\subsection*{Setting}
Items $i\in[n]$, contexts $c\in[k]$, $P=nk$ datapoints, uniform. Input $x=[e_i;\gamma e_c]$, target
$y=[He_i;\,e_c\otimes He_i]$ (every block the structure $H$). Because $i$ and $c$ are independent,
$\langle f(i)g(c)\rangle=\langle f\rangle_i\langle g\rangle_c$ with $\langle e_ie_i^\top\rangle=I/n$,
$\langle g(c)e_c\rangle=\mathbf 1_S/k$, $\langle g(c)e_ce_c^\top\rangle=\mathrm{diag}(\mathbf 1_S)/k$ for a
gate on the contexts $S$. Structure facts used: $\tilde H=H(I-\mathbf 1\mathbf 1^\top/n)=\sum_\alpha\tilde\sigma_\alpha
\tilde u_\alpha\tilde v_\alpha^\top$, and $\mathbf 1$ is a right singular vector of $H$ with
$\lVert H\mathbf 1\rVert=\sqrt n\,\bar\sigma$ (so $\tilde u_\alpha\perp H\mathbf 1$); both hold for the hierarchy.
Context-side vectors are handled with $k$ symbolic: $\mathbf 1\cdot\mathbf 1=k$, $\mathbf 1\cdot e_q=1$,
$e_q\cdot e_r=\delta_{qr}$.""")
    body.append(r"\subsection*{1. Common pathway (always on, sees items and contexts)}")
    body.append(r"Its $\Sigma^{yx}$, $\Sigma^x$ leave three sectors invariant; in each the right singular vector "
                r"is an eigenvector of $\Sigma^x$ (checked), so every mode is the logistic $a(t)$ of section 5 below.")
    body.append(r"\begin{center}\begin{tabular}{llll}\hline sector & $s$ & $d$ & multiplicity\\\hline")
    for m in res.common:
        mult = m["multiplicity"]
        alpha = r"$\alpha$"
        mult = f"${L(sp.sympify(mult))}$" if not isinstance(mult, str) else mult.replace("alpha", alpha)
        sector = m["sector"].replace("alpha", alpha)
        body.append(f"{sector} & ${L(m['s'])}$ & ${L(m['d'])}$ & {mult}" + r"\\")
    body.append(r"\hline\end{tabular}\end{center}")
    body.append(r"End points $s/d$: $" + ",\\quad ".join(L(m["end_point"]) for m in res.common) + "$. "
                r"The grand-mean sector's second direction has $s=0$ (input variance "
                f"${L(C['zero_mode_input_variance'])}$: the direction the inputs never take).")
    body.append(r"\subsection*{2. Residual}")
    body.append(r"The common pathway's outputs are the additive functions $f(i)+g(c)$; their complement is the "
                r"range of $C_n\otimes C_k$ ($X(C_n\otimes C_k)=0$, dimensions $(n+k-1)+(n-1)(k-1)=nk$). Hence "
                r"\[R(i,c;\,\text{block }c') = (\tilde H e_i)\,\Big(\delta_{cc'} - \frac1k\Big),\qquad "
                r"\text{common block fully fitted},\]"
                r"\[L_{\rm res} = \frac{k-1}{2nk}\lVert\tilde H\rVert_F^2 = \sum_\alpha " + L(res.residual["loss_per_alpha"])
                + r".\]")
    body.append(r"Consistency: per mode $\alpha$, initial $" + L(res.residual["initial_loss_per_alpha"])
                + r"$ = fitted $" + L(res.residual["fit_per_alpha"]) + r"$ + residual (checked: "
                + str(res.residual["consistent_alpha"]) + r"); the $\bar\sigma$ sector is fitted completely ("
                + str(res.residual["consistent_bar"]) + ").")
    for fam, nm, num in ((K, r"$(k-1)$-context", "3a"), (S1, "single-context", "3b")):
        body.append(r"\subsection*{" + num + ". " + nm + r" pathways on the residual}")
        body.append(r"Each pathway $q$ sees the items only. Its effective dataset has the single context factor "
                    r"$c_q$ and the Gram matrix factorises as $\lvert c_q\rvert^2/(nk)^2\cdot\tilde H^\top\tilde H$:")
        body.append(r"\[ s_\alpha = " + L(fam["s"]) + r",\qquad d_{\rm own} = " + L(fam["d_own"])
                    + r",\qquad O_{qq'} = " + L(fam["overlap_other"]) + r",\qquad \langle g_q g_{q'}\rangle/n = "
                    + L(fam["input_coupling_other"]) + r".\]")
        body.append(r"The $k$ pathways share the output node; summing the race reduction's coupling over the "
                    r"other $k-1$ pathways ($\sum_{q'\ne q}c_{q'}=-c_q$) gives")
        body.append(r"\[ d = d_{\rm own} + (k-1)\,O_{qq'}\langle g_qg_{q'}\rangle/n = " + L(fam["d_eff"])
                    + r",\qquad \frac{s_\alpha}{d} = " + L(fam["end_point"]) + r".\]")
        body.append(f"Symmetric ansatz closed: {fam['ansatz_closed']}; summed end maps reproduce the residual: "
                    f"{fam['end_maps_reproduce_residual']}.")
    body.append(r"\subsection*{4. All $r$-context pathways (general $r$)}")
    body.append(r"\[ s_\alpha = " + L(RF["s"]) + r",\qquad d = " + L(RF["d_eff"]) + r",\qquad \binom{k}{r}\ "
                r"\text{pathways learn a fraction } " + L(RF["fraction_of_residual_learned"])
                + r"\text{ of the residual.}\]")
    body.append(r"On the residual alone $s$ is largest for $r=k/2$ and equal for $r=1$ and $r=k-1$: the residual "
                r"cannot rank single- against $(k-1)$-context modules; the coupled race from $t=0$ does.")
    body.append(r"\subsection*{5. Loss (common pathway on the targets, context pathways on its residual)}")
    body.append(r"With $a(t)=\frac{s/d}{1+(s/(da_0)-1)e^{-2st/\tau}}$ and $\ell(s,d,a)=sa-\tfrac12da^2$:")
    body.append(r"\[ L(t) = \Big[\frac{\bar\sigma^2}{n} - (k-1)\,\ell(s_{\rm ctx},d_{\rm ctx}) - \ell(s_{\rm grand},"
                r"d_{\rm grand})\Big] + \sum_\alpha\Big[\frac{\tilde\sigma_\alpha^2}{n} - \ell(s_{\alpha},\tfrac1n) - "
                r"k\,\ell\big(s^{(k-1)}_\alpha, d\big)\Big] \]"
                r"(times $nk$ for the summed loss of the paper's code).")
    if res.checks:
        kind = "exact (SymPy SVD, exact least squares)" if all(c.get("exact") for c in res.checks) else \
            "numeric (the exact effective datasets decomposed by numpy)"
        body.append(r"\subsection*{6. Checks against the derivation of \texttt{contexts(n,k)}}")
        body.append(f"Each row compares the symbolic results at that $k$ ($n = {res.checks[0]['n']}$ hierarchy, "
                    f"$\\gamma = {res.checks[0]['gamma']}$) with theorykit's {kind} derivation on the actual "
                    "effective datasets; the coupled $d$ is read off the gradient of the data's loss; the last column "
                    "integrates the race reduction on the residual from the data (blank: not run).")
        body.append(r"\begin{center}\begin{tabular}{rrrrrrr}\hline $k$ & common $\max|\Delta|$ & residual exact & "
                    r"$s$ $\max|\Delta|$ & $d_{\rm own}$ & $d$ (coupled) & race vs closed form\\\hline")
        for c in res.checks:
            body.append(f"{c['k']} & {c['common_max_abs_error']:.1e} & {c['residual_exact_match']} & "
                        f"{c['kminus1_s_max_abs_error']:.1e} & {c['kminus1_d_own_max_abs_error']:.1e} & "
                        f"{c['kminus1_d_eff_max_abs_error']:.1e} & "
                        + (f"{c['race_vs_closed_form_max_rel']:.1e}" if "race_vs_closed_form_max_rel" in c else "--")
                        + "\\\\")
        body.append(r"\hline\end{tabular}\end{center}")
    body.append(r"\subsection*{7. What the closed form leaves out}")
    body.append(r"The closed form starts the context pathways on the residual at $t=0$. Trained jointly (or staged, "
                r"on $Y$ minus the common pathway's current output) they first grow on the full targets' larger "
                r"correlations, before the common pathway has taken them; the coupled race reduction "
                r"(integrated from the data, \texttt{theorykit.contexts\_theory.race\_flow}) keeps this, and on "
                r"the residual alone single- and $(k-1)$-context modules cannot be told apart.")
    return latex_document("k-context closed forms with symbolic $k$", "\n\n".join(body))
