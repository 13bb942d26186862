"""Section 3 of the paper: the XoR-with-margin task and its two ReLNs (docs/theory.md#xor, Appendix C).

Everything is derived from the task and the pathway specs with Δ a symbol; nothing is typed in:

1. each ReLN's effective datasets Σyx_p, Σx_p and their exact SVDs (s, d, u, v per pathway),
2. the mode trajectories a(t) and each ReLN's total loss L(t) (the paper's Eqs. 22–23),
3. the crossover Δ*: the non-negative root of s_linear(Δ) = s_xor(Δ) (Eqs. 24–26), and on which
   side each ReLN is faster,
4. the time at which each ReLN's loss falls to half its initial value (closed form in a0), and the
   learning-time crossover for a per-pathway a0 rule (a0_p = H_p σ²/2, see ``A0_RULE``),
5. where each ReLN is *implementable* by a bias-free ReLU unit: the Δ for which a unit whose input
   weight is ± the pathway's singular vector v gates exactly that pathway's datapoints.

``derive()`` returns a dict; ``python -m theorykit.derivations.xor_crossover`` prints the LaTeX.
"""
from __future__ import annotations

import functools

import sympy as sp

from theorykit.derivations import run_script
from theorykit.theory.crossings import crossings
from theorykit.theory.derivation import Derivation
from theorykit.theory.effective import output_trace
from theorykit.spec.gating import GDLNSpec, xor_relns
from theorykit.theory.latex import latex_document
from theorykit.spec.task import xor_margin
from theorykit.theory.trajectory import a0, mode_trajectory, tau

__all__ = ["derive", "half_loss_time", "A0_RULE", "summary", "latex_rows", "main"]

#: initial-condition rule used beside random (non-aligned) initial weights of std σ. In the early,
#: linear phase each hidden unit i of a pathway obeys τ d(w2_i, c_i)/dt = s (c_i, w2_i) with
#: c_i = W1_i·v, so the balanced part p_i = (w2_i + c_i)/√2 grows as e^{st/τ} and the mode strength
#: a = Σ_i w2_i c_i ≈ ½‖p‖² e^{2st/τ}: the logistic's a0 is ½ E‖p‖² = H_p σ²/2.
A0_RULE = "a0_p = H_p * sigma**2 / 2 (silent alignment: half the expected squared norm of the balanced part)"

_sigma = sp.Symbol("sigma", positive=True)


def _is_identically(expr, value=0) -> bool:
    return sp.simplify(sp.sympify(expr) - value) == 0


def half_loss_time(s, d, n_modes, trSy_half, a_init=a0):
    """Time at which L(t) = ½ tr Σy − n (s a − ½ d a²) falls to half of L(0), for n identical modes.

    Solved, not typed: with a0 written as (s/d)(1 − ψ), L(a) = L(a0)/2 is a quadratic in a (the root
    below the end point s/d is the one reached), and the logistic a(t) = a* is solved for
    E = exp(−2st/τ).
    Returns ``(a_star, t_half)``, both in terms of ``a_init``; ``t_half = τ/(2s) · ln(ratio)``.
    """
    a = sp.Symbol("a", positive=True)
    psi = sp.Symbol("psi", positive=True)
    A0 = (s / d) * (1 - psi)
    L = trSy_half - n_modes * (s * a - d * a ** 2 / 2)
    roots = [sp.simplify(r) for r in sp.solve(sp.Eq(L, L.subs(a, A0) / 2), a)]
    ref = {sym: sp.Rational(13, 10) for sym in (s * d).free_symbols}
    ref[psi] = sp.Rational(999, 1000)
    roots = sorted(roots, key=lambda r: float(sp.re(sp.N(r.subs(ref)))))
    a_half = roots[0]  # the larger root lies beyond the end point s/d
    # invert the logistic through E = exp(−2 s t/τ), in which a(t) is a Möbius map (one root)
    E = sp.Symbol("E", positive=True)
    a_of_E = mode_trajectory(s, d, A0, time=-tau * sp.log(E) / (2 * s))
    Esol = sp.solve(sp.Eq(a_of_E, a_half), E)
    if len(Esol) != 1:  # pragma: no cover - the logistic has one inverse
        raise RuntimeError(f"could not invert the logistic: {Esol}")
    ratio = sp.simplify(1 / Esol[0])
    back = {psi: 1 - d * a_init / s}
    a_half = sp.simplify(a_half.subs(back))
    ratio = sp.simplify(ratio.subs(back))
    return a_half, tau / (2 * s) * sp.log(ratio)


def _reln(task, name, pathways):
    der = Derivation(GDLNSpec(task, pathways, name=f"xor-{name}"))
    if der.method != "closed-form":  # pragma: no cover - both ReLNs decouple
        raise RuntimeError(f"the {name} ReLN has no closed form: {der.notes}")
    paths = {}
    for p in der.spec.pathways:
        eff = der.effective_datasets[p.name]
        m = der.modes[p.name].modes[0]
        paths[p.name] = {"active": p.active, "hidden": p.hidden, "Syx": eff.Syx, "Sx": eff.Sx,
                         "s": m.s, "d": m.d, "u": m.u, "v": m.v, "rank": der.modes[p.name].rank,
                         "trajectory": der.trajectories[p.name][0], "end_point": der.end_points[p.name][0]}
    s_top = der.ranking[0][1]
    first = paths[der.ranking[0][0]]
    identical = all(_is_identically(q["s"], first["s"]) and _is_identically(q["d"], first["d"])
                    and q["rank"] == 1 for q in paths.values())
    return der, {"pathways": paths, "s": s_top, "d": first["d"], "n_pathways": len(paths),
                 "identical_pathways": identical, "loss": sp.simplify(der.loss),
                 "initial_loss": der.initial_loss}


def _implementable(task, paths, Delta):
    """Δ ≥ 0 for which every pathway's gate equals {μ : ±v·x_μ > 0} for one sign (a ReLU unit on ±v):
    ``{"all": set for every pathway at once, "per_pathway": {name: set}}``.

    For a mode with s > 0, v = Σyxᵀu / s, so the sign of v·x_μ is that of the polynomial uᵀΣyx x_μ
    (where s = 0 the pathway has no direction and the condition fails, as it should).
    """
    dom = sp.Interval(0, sp.oo)
    total = dom
    per = {}

    @functools.cache
    def solve(cond):
        return sp.solveset(cond, Delta, domain=dom)

    for name, q in paths.items():
        ok = sp.EmptySet
        for sign in (1, -1):
            S = dom
            for mu in range(task.P):
                e = sp.expand(sign * (q["u"].T * q["Syx"] * task.X[:, mu])[0])
                S = S.intersect(solve(e > 0 if q["active"][mu] else e <= 0))
            ok = ok.union(S)
        per[name] = ok
        total = total.intersect(ok)
    return {"all": total, "per_pathway": per}


def derive(task=None, relns=None, hidden: int = 128) -> dict:
    """Derive both ReLNs of the XoR-with-margin task and the crossover Δ* (symbolic Δ).

    Returns a dict with, per ReLN (``"linear"``, ``"xor"``): pathways (Σyx, Σx, s, d, u, v,
    trajectory), the top singular value ``s`` and its ``d``, the total ``loss`` L(t) (symbols
    ``t``, ``tau``, ``a_0``, ``Delta``), ``a_half`` and ``t_half_loss`` (half-initial-loss time);
    and ``crossover`` (exact Δ*), ``crossover_float``, ``faster_above`` / ``faster_below``,
    ``linear_faster_set``, ``implementable``, ``learning_time_crossover`` (for ``A0_RULE``),
    ``s_linear``, ``d_linear``, ``s_xor``, ``d_xor``, ``loss_linear``, ``loss_xor`` and ``latex``.
    """
    task = xor_margin() if task is None else task
    relns = xor_relns(hidden) if relns is None else relns
    if "Delta" not in task.symbols:
        raise ValueError("the task must keep Delta symbolic (use xor_margin() with delta=None)")
    Delta = task.symbols["Delta"]
    others = sorted(map(str, task.free_symbols - {Delta}))
    if others:   # the sides of Δ* and the sets below are decided for numbers, not for other symbols
        raise ValueError(f"the task may hold only the symbol Delta, but it also holds {others}: give them values "
                         f"(task.subs), or locate s_a = s_b with tk.crossings on the derivations' ranking (docs/api.md)")
    trSy_half = output_trace(task) / 2
    out: dict = {"Delta": Delta, "task": task, "a0_rule": A0_RULE}
    for name in ("linear", "xor"):
        der, r = _reln(task, name, relns[name])
        if r["identical_pathways"]:
            r["a_half"], r["t_half_loss"] = half_loss_time(r["s"], r["d"], r["n_pathways"], trSy_half)
        else:
            r["a_half"] = r["t_half_loss"] = None
        r["derivation"] = der
        out[name] = r
    s_lin, s_xor = out["linear"]["s"], out["xor"]["s"]
    # Δ*: theorykit's one crossing finder (exact, squared and checked unsquared, sides by exact signs)
    cross = crossings([("linear", s_lin), ("xor", s_xor)], symbol=Delta, interval=sp.Interval(0, sp.oo))
    if len(cross) != 1:
        raise RuntimeError(f"expected one non-negative crossover, found {[c.at for c in cross]}")
    dstar = sp.simplify(cross[0].at)
    lin_faster = _larger_set(cross[0], "linear", s_lin - s_xor, Delta)
    out.update({
        "crossover": dstar, "crossover_float": float(sp.N(dstar, 30)),
        "crossover_equation": sp.Eq(s_lin, s_xor),
        "linear_faster_set": lin_faster,
        "faster_above": cross[0].larger_above, "faster_below": cross[0].larger_below,
        "s_linear": s_lin, "d_linear": out["linear"]["d"], "s_xor": s_xor, "d_xor": out["xor"]["d"],
        "loss_linear": out["linear"]["loss"], "loss_xor": out["xor"]["loss"],
    })
    # implementability of each ReLN by bias-free ReLU units aligned to its singular vectors
    out["implementable"] = {name: _implementable(task, out[name]["pathways"], Delta)
                            for name in ("linear", "xor")}
    # learning-time crossover for the a0 rule a0_p = H_p σ²/2
    out["learning_time_crossover"] = _lt_crossover(out, Delta)
    out["latex"] = _latex(out)
    return out


def _larger_set(cross, name, diff, Delta):
    """The Δ ≥ 0 where mode ``name`` is strictly larger, from the one crossing ``cross`` (its sides are
    decided exactly by :func:`~theorykit.theory.crossings.crossings`; Δ = 0 by the exact sign there)."""
    below = sp.Interval(0, cross.at, left_open=not bool(diff.subs(Delta, 0) > 0), right_open=True)
    above = sp.Interval.open(cross.at, sp.oo)
    return sp.Union(*[iv for iv, larger in ((below, cross.larger_below), (above, cross.larger_above))
                      if larger == name])


def _lt_crossover(out, Delta):
    """Δ where the half-loss times of the two ReLNs are equal, under ``A0_RULE``."""
    ths = {}
    for name in ("linear", "xor"):
        r = out[name]
        if r["t_half_loss"] is None:
            return None
        H = r["pathways"][next(iter(r["pathways"]))]["hidden"]
        ths[name] = r["t_half_loss"].subs(a0, H * _sigma ** 2 / 2)
    diff = sp.simplify(sp.logcombine((ths["linear"] - ths["xor"]).subs(Delta, out["crossover"]), force=True))
    return {"rule": A0_RULE, "t_half_loss_rule": ths,
            "equal_at_crossover": bool(diff == 0), "difference_at_crossover": diff}


# ----------------------------------------------------------------------------------------------
# LaTeX
# ----------------------------------------------------------------------------------------------
_NAMES = {"linear": "linear", "xor": "XoR"}


def _latex(out) -> str:
    task = out["task"]
    L = sp.latex
    parts = [r"\subsection*{1. Task}",
             r"Datapoints are columns; $\Delta\ge 0$ is the margin in the third coordinate.",
             r"\[ X = " + L(task.X) + r",\qquad Y = " + L(task.Y) + r",\qquad "
             r"\tfrac12\operatorname{tr}\Sigma^y = " + L(output_trace(task) / 2) + r". \]",
             r"Loss $L = \tfrac{1}{2P}\sum_\mu (y_\mu - \hat y_\mu)^2$, gradient flow with time constant $\tau$; "
             r"each mode obeys $\tau\dot a = 2a(s - d a)$."]
    eq = {"linear": "22", "xor": "23"}
    for k, (name, title) in enumerate((("linear", "Linear ReLN (2 pathways)"), ("xor", "XoR ReLN (4 pathways)"))):
        r = out[name]
        parts.append(r"\subsection*{" + f"{k + 2}. {title}" + "}")
        for pname, q in r["pathways"].items():
            parts.append(r"\paragraph{" + pname + r"} gate $g = (" + ",".join(map(str, q["active"])) + r")$:")
            parts.append(r"\[ \Sigma^{yx} = " + L(q["Syx"]) + r",\quad \Sigma^{x} = " + L(q["Sx"]) + r" \]")
            # two display lines: on one, the point pathways' line ran into the margin (overfull box)
            parts.append(r"\[ s = " + L(q["s"]) + r",\quad d = v^\top\Sigma^x v = " + L(q["d"]) + r",\quad u = "
                         + L(q["u"]) + r",\quad s/d = " + L(q["end_point"]) + r" \]")
            parts.append(r"\[ v^\top = " + L(q["v"].T) + r" \]")
        first = next(iter(r["pathways"].values()))
        parts.append(r"Mode trajectory of every pathway:")
        parts.append(r"\[ a(t) = " + L(first["trajectory"]) + r" \]")
        parts.append(r"Total loss (the paper's Eq.~" + eq[name] + r"):")
        parts.append(r"\[ L_{\mathrm{" + name + r"}}(t) = " + L(r["loss"]) + r" \]")
        if r["t_half_loss"] is not None:
            parts.append(r"The loss falls to half of $L(0)$ when $a = a_\star$, at $t_{1/2}$:")
            parts.append(r"\[ a_\star = " + L(r["a_half"]) + r",\qquad t_{1/2} = " + L(r["t_half_loss"]) + r" \]")
    parts.append(r"\subsection*{4. Crossover}")
    parts.append(r"The learning speed of a mode is $2s/\tau$, so the ReLNs are equally fast when")
    parts.append(r"\[ " + L(out["s_linear"]) + " = " + L(out["s_xor"]) + r"\quad\Longrightarrow\quad \Delta^\ast = "
                 + L(out["crossover"]) + r" \approx " + f"{out['crossover_float']:.6f}" + r" \]")
    parts.append(r"(the only non-negative root). The linear ReLN is faster for $\Delta\in "
                 + L(out["linear_faster_set"]) + r"$; at $\Delta^\ast/2$ the " + _NAMES[out["faster_below"]]
                 + r" ReLN is faster, at $2\Delta^\ast$ the " + _NAMES[out["faster_above"]] + " ReLN.")
    lt = out["learning_time_crossover"]
    if lt is not None:
        parts.append(r"\paragraph{Learning times.} With the initial-condition rule $a_0 = H_p\sigma^2/2$ "
                     r"($H_p$ hidden units in the pathway, $\sigma$ the initial weight scale) the half-loss times are")
        for name in ("linear", "xor"):
            parts.append(r"\[ t_{1/2}^{\mathrm{" + name + r"}} = " + L(lt["t_half_loss_rule"][name]) + r" \]")
        if lt["equal_at_crossover"]:
            parts.append(r"and their difference at $\Delta^\ast$ simplifies to $0$: under this rule the learning-time "
                         r"crossover is $\Delta^\ast$ itself.")
        else:
            parts.append(r"and at $\Delta^\ast$ they differ by $" + L(lt["difference_at_crossover"]) + r"$.")
    parts.append(r"\subsection*{5. Implementability by ReLU units}")
    parts.append(r"A bias-free ReLU unit with input weight $\pm v$ is on for $\{\mu: \pm v^\top x_\mu > 0\}$. "
                 r"Each ReLN's gates are reproduced by such units for")
    for name in ("linear", "xor"):
        parts.append(r"\[ \Delta \in " + L(out["implementable"][name]["all"]) + r"\quad(\mathrm{" + name + r"}) \]")
    xs = out["implementable"]["xor"]["all"]
    if xs.is_Interval and xs.sup.is_finite:
        parts.append(r"Above $\Delta = " + L(xs.sup) + r"$ the XoR ReLN's single-point pathways cannot be realised by "
                     r"units aligned to their own singular vectors (such a unit also turns on for the other example "
                     r"of the same label).")
    return "\n".join(parts)


def summary(th: dict, a0_rule_values: dict) -> dict:
    """The derivation's results as JSON-ready strings and numbers (with the a0 rule's values per ReLN),
    as the xor suite reports them."""
    return {
        "crossover": {"exact": str(th["crossover"]), "float": th["crossover_float"],
                      "equation": str(th["crossover_equation"]),
                      "equals_sqrt_2_over_3": _is_identically(th["crossover"], sp.sqrt(sp.Rational(2, 3)))},
        "faster_below": th["faster_below"], "faster_above": th["faster_above"],
        "linear_faster_for": str(th["linear_faster_set"]),
        "s_linear": str(th["s_linear"]), "d_linear": str(th["d_linear"]),
        "s_xor": str(th["s_xor"]), "d_xor": str(th["d_xor"]),
        "loss_linear": str(th["loss_linear"]), "loss_xor": str(th["loss_xor"]),
        "t_half_loss": {n: str(th[n]["t_half_loss"]) for n in ("linear", "xor")},
        "implementable_by_aligned_relu_units": {n: str(th["implementable"][n]["all"]) for n in ("linear", "xor")},
        "a0_rule": th["a0_rule"], "a0_rule_values": a0_rule_values,
        "learning_time_crossover_equals_crossover_under_a0_rule": (th["learning_time_crossover"] or {}).get(
            "equal_at_crossover"),
        "latex": latex_rows(th),
    }


def latex_rows(th: dict) -> dict:
    """Math-only LaTeX of the derivation's results, one row per result (typeset by the validation report)."""
    L = sp.latex
    out = {"crossover": (r"s_{\mathrm{lin}}(\Delta) = " + L(th["s_linear"]) + " = " + L(th["s_xor"])
                         + r" = s_{\mathrm{xor}}(\Delta)\;\Longrightarrow\;\Delta^\ast = " + L(th["crossover"])
                         + rf" \approx {th['crossover_float']:.4f}")}
    for name, lab in (("linear", "lin"), ("xor", "xor")):
        r = th[name]
        out[f"{name} ReLN"] = (r"s = " + L(r["s"]) + r",\quad d = " + L(r["d"]) + r",\quad L_{\mathrm{" + lab
                               + r"}}(t) = " + L(r["loss"]))
        if r["t_half_loss"] is not None:
            out[f"{name} ReLN half-loss time"] = r"t_{1/2}^{\mathrm{" + lab + r"}} = " + L(r["t_half_loss"])
    return out


def main(argv=()) -> int:
    """Print the LaTeX document; ``argv``: the command line's arguments (only ``--help``)."""
    import argparse

    argparse.ArgumentParser(prog="python -m theorykit.derivations.xor_crossover",
                            description="Derive Section 3 (XoR with a margin: both ReLNs' modes, losses and "
                                        "half-way times, the crossover Delta*, where units can implement each "
                                        "ReLN) and print it as a LaTeX document on stdout (redirect it: "
                                        "> xor_crossover.tex). See docs/theory.md#xor.").parse_args(list(argv))
    out = derive()
    print(latex_document(r"XoR with a margin: the two ReLNs and the crossover $\Delta^\ast$", out["latex"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(run_script(main))
