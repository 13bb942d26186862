"""LaTeX output: the derivation step by step (task → effective datasets → SVDs → trajectories → loss)."""
from __future__ import annotations

import sympy as sp

from ..spec.fields import Typeset, tex_label, tex_number, tex_text
from .effective import output_trace
from .display import LINE_WIDTH, ExprsByName, aligned_rows, exact_text, fit_lines, printed_width, values_latex
from .modes import exact_latex

__all__ = ["NamedExprs", "TypesetLoss", "derivation_latex", "derivation_latex_short", "latex_document", "named_results",
           "typeset_loss"]

_PREAMBLE = r"""\documentclass[11pt]{article}
\usepackage{amsmath,amssymb}
\usepackage[margin=2cm]{geometry}
\allowdisplaybreaks
\begin{document}
"""


def _mat(M, limit=24) -> str:
    M = sp.Matrix(M)
    if M.rows > limit or M.cols > limit:
        return r"(" + f"{M.rows}\\times {M.cols}" + r"\text{ matrix, omitted})"   # \times in math mode, not inside \text (pdflatex stops there)
    return exact_latex(M)


#: under pdflatex, a character of a name that LaTeX cannot typeset (通, ά) is printed as its code point
#: instead of stopping the run; lualatex and xelatex (with a font that has it) print the character
_FALLBACK = r"""\usepackage{iftex}
\ifPDFTeX\makeatletter
\def\tk@fallback#1#2{\ifcsname u8:\detokenize{#1}\endcsname\else\DeclareUnicodeCharacter{#2}{\texttt{[U+#2]}}\fi}
%s\makeatother\fi
"""

#: Latin-1 and Latin Extended-A letters that LaTeX's utf8 input maps to a command the default OT1
#: font encoding lacks (ð is \dh, « is \guillemotleft, ą is \k{a}): pdflatex stops at them, so they
#: get the code-point fallback too. Found by compiling each of U+00A0..U+017F alone with pdflatex
#: (TeX Live 2022); tests/test_latex_compile.py compiles all of them in one name.
_OT1_MISSING = frozenset("«»ÐÞðþĄąĐđĘęĦħĮįĸĿŀŉŊŋŦŧŲųſ")


def latex_document(title: str, body: str) -> str:
    """A standalone LaTeX document (article, amsmath) of ``body`` under the heading ``title``; a character
    the default fonts lack is typeset by a fallback, so that the document compiles."""
    text = title + body
    odd = sorted({c for c in text if ord(c) > 0x17F or c in _OT1_MISSING})   # beyond what OT1 typesets
    pre = _PREAMBLE
    if odd:
        fallback = _FALLBACK % "".join(
            f"\\DeclareUnicodeCharacter{{{ord(c):04X}}}{{\\texttt{{[U+{ord(c):04X}]}}}}\n" if c in _OT1_MISSING
            else f"\\tk@fallback{{{c}}}{{{ord(c):04X}}}\n" for c in odd)
        pre = pre.replace("\\begin{document}", fallback + "\\begin{document}")
    return pre + r"\section*{" + title + "}\n" + body + "\n\\end{document}\n"


def derivation_latex_short(der) -> str:
    """One aligned LaTeX formula of a :class:`~theorykit.theory.derivation.Derivation`: each pathway's
    singular values s and input variances d, and the method (Jupyter's display of a derivation); a root of
    degree 3 or more by its name s_{p,α}, defined on a line of its own (:func:`_where`). Where that would be
    wider than :data:`~theorykit.theory.display.LINE_WIDTH`: one column, each pathway's s and d broken between
    values (:func:`~theorykit.theory.display.fit_lines`), the method on the last line."""
    cells, roots, long = [], _root_names(der.modes), []
    for n, svd in der.modes.items():
        s = [roots[m.s][0] if m.s in roots else m.s for m in svd.modes]        # one mode: s = Δ/2
        d = [m.d.xreplace({r: y for r, (y, _, _) in roots.items()}) for m in svd.modes]
        cells.append((f"{tex_label(n)}: ", f" s = {values_latex(s)}, ", f" d = {values_latex(d)}") if svd.modes else
                     (f"{tex_label(n)}: ", r" \text{no mode (nothing to learn)} ", ""))
        long.append(fit_lines([f"{tex_label(n)}:\\ ", *_tuple_pieces("s", s, ",\\ "), *_tuple_pieces("d", d, "")]
                              if svd.modes else [f"{tex_label(n)}:\\ \\text{{no mode (nothing to learn)}}"], LINE_WIDTH - 2))
    where, meth = _where(roots, roots), r"(\text{" + der.method + "})"
    if sum(max(map(printed_width, [c[k] for c in cells] + (where if k == 1 else []))) for k in range(3)) + 2 \
            + printed_width(r"\quad" + meth) <= LINE_WIDTH:
        return (r"$\begin{aligned}" + r" \\ ".join(["&".join(c).rstrip() for c in cells] + ["&" + w for w in where])
                + r"\end{aligned}\quad" + meth + "$")
    # too wide for a page (k = 3: 178 pt; a cubic field's where lines beside d: 56 pt): one column, broken
    # between the values, the method on the last line
    rows = [("&" if k == 0 else r"&\quad ") + ln for ls in long for k, ln in enumerate(ls)]
    return r"$\begin{aligned}" + r" \\ ".join(rows + ["&" + w for w in where] + ["&" + meth]) + r"\end{aligned}$"


def _tuple_pieces(name: str, xs, then: str) -> list[str]:
    """``name = (x₁, …, xₙ)`` then ``then``, as :func:`~theorykit.theory.display.fit_lines` pieces, one a value
    (a single value without brackets, as :func:`~theorykit.theory.display.values_latex` prints it)."""
    xs = [exact_latex(x) for x in xs]
    if len(xs) == 1:
        return [f"{name} = {xs[0]}{then}"]
    return [("" if k else f"{name} = (") + x + (", " if k < len(xs) - 1 else ")" + then) for k, x in enumerate(xs)]


def derivation_latex(der, document: bool = False) -> str:
    """The derivation step by step as LaTeX: task, effective datasets, SVDs, trajectories and loss (a
    standalone document with ``document=True``; :meth:`Derivation.latex` returns it)."""
    task = der.task
    parts = []
    parts.append(r"\subsection*{1. Task}")
    parts.append(f"$P = {task.P}$ datapoints (columns), inputs $X\\in\\mathbb{{R}}^{{{task.d}\\times {task.P}}}$, "
                 f"targets $Y\\in\\mathbb{{R}}^{{{task.p}\\times {task.P}}}$.")
    parts.append(r"\[ X = " + _mat(task.X) + r",\qquad Y = " + _mat(task.Y) + r" \]")
    parts.append(r"Loss $L = \tfrac{1}{2P}\sum_\mu \lVert y_\mu - \hat y_\mu\rVert^2$"
                 + (r" (times $P$: summed loss)" if der.spec.training.loss == "sum" else "")
                 + r", $\Sigma^{y} = \langle y y^\top\rangle$ with $\operatorname{tr}\Sigma^y = "
                 + exact_latex(output_trace(task)) + "$.")
    parts.append(r"\subsection*{2. Pathways and effective datasets}")
    parts.append(r"$\Sigma^{yx}_p = \langle g_p\, y_{t(p)} x_{s(p)}^\top\rangle$, "
                 r"$\Sigma^{x}_{p} = \langle g_p\, x_{s(p)} x_{s(p)}^\top\rangle$.")
    for p in der.spec.pathways:
        eff = der.effective_datasets[p.name]
        parts.append(r"\paragraph{" + tex_text(p.name) + "} gate $g = (" + ",".join(map(str, p.active))
                     + ")$, inputs " + str(list(p.inputs)) + ", outputs " + str(list(p.outputs)) + ".")
        parts.append(r"\[ \Sigma^{yx}_{" + tex_label(p.name) + "} = " + _mat(eff.Syx)
                     + r",\qquad \Sigma^{x}_{" + tex_label(p.name) + "} = " + _mat(eff.Sx) + r" \]")
    if der.couplings:
        parts.append("Coupled pairs (shared outputs and datapoints): "
                     + ", ".join(f"({tex_text(a)}, {tex_text(b)})" for a, b in der.couplings) + ".")
    parts.append(r"\subsection*{3. Modes (exact SVD)}")
    parts.append(r"$\Sigma^{yx}_p = \sum_\alpha s_\alpha u_\alpha v_\alpha^\top$, sorted descending, first non-zero "
                 r"entry of $v_\alpha$ positive; $d_\alpha = v_\alpha^\top \Sigma^x_p v_\alpha$.")
    roots = _root_names(der.modes)
    for n, svd in der.modes.items():
        rows = []
        for i, m in enumerate(svd.modes):
            v = _mat(m.v.T) if m.exact_vectors else _root_vector(m, roots)
            sep = r", \\ " if m.s in roots else ", & "         # a named root: s, d and v a line each (they are long)
            rows.append(f"s_{{{i + 1}}} &= {exact_latex(m.s)}{sep}d_{{{i + 1}}} &= {_named(m.d, roots)}{sep}"
                        f"v_{{{i + 1}}}^\\top &= {v}")
        parts.append(r"\paragraph{" + tex_text(n) + r"} " + (r"\begin{align*}" + r" \\ ".join(rows) + r"\end{align*}"
                     if rows else r"no mode: $\Sigma^{yx}_{" + tex_label(n) + r"} = 0$, nothing to learn."))
        if not der.diagonalisable[n]:
            parts.append(r"\emph{$\Sigma^x$ is not diagonal in these singular vectors (Assumption 2.1 fails).}")
    if roots:
        parts.append("Below, " + ", ".join(f"${sp.latex(y)}$ is $s_{{{i}}}$ of {tex_text(n)}" for y, n, i in roots.values())
                     + r" (roots of polynomials of degree 3 or more, named rather than written out).")
    parts.append(r"\subsection*{4. Trajectories}")
    parts.append(f"Method: \\textbf{{{der.method}}}. ")
    if der.method == "closed-form":
        parts.append(r"Each mode obeys $\tau \dot a = 2a(s - d a)$, solved by "
                     r"\[ a(t) = \frac{s/d}{1 + \left(\frac{s}{d a_0} - 1\right) e^{-2 s t/\tau}},\qquad "
                     r"t_{1/2} = \frac{\tau}{2s}\ln\!\left(\frac{s}{d a_0} - 1\right). \]")
        for n, ths in der.t_half.items():       # every mode's (a pathway with none: nothing to learn)
            for i, th in enumerate(ths):
                mode = f", {i + 1}" if len(ths) > 1 else ""
                parts.append(r"\[ t_{1/2}(" + tex_label(n) + mode + ") = " + _named(th, roots) + r" \]")
        parts.append(r"\subsection*{5. Loss}")
        P = der.spec.loss_factor          # the summed loss is P times the mean loss the modes lower
        parts.append(r"\[ L(t) = " + (f"{P}" + r"\Big(" if P != 1 else "") +
                     r"\tfrac12\operatorname{tr}\Sigma^y - \sum_p\sum_\alpha \left(s_\alpha a_\alpha(t) "
                     r"- \tfrac12 d_\alpha a_\alpha(t)^2\right)" + (r"\Big)" if P != 1 else "") + r" \]")
        if len(str(der.loss)) < 4000:
            parts.append(_loss_lines(der.loss, roots))
        if der.notes:           # a caveat holds for the closed form too (a pathway narrower than its modes)
            parts.append(_notes_text(der))
    else:
        parts.append(_race_text(der) + (_notes_text(der) if der.notes else ""))
    parts.append(r"\subsection*{Ranking by speed}")
    rk = der.ranking          # exactly equal values share a rank: "1, 2, 2, 2, 5"
    parts.append(", ".join(f"${r}.\\ {tex_label(n)}: s_1 = {exact_latex(s)}$" for r, (n, s) in zip(rk.ranks, rk))
                 + " (fastest first).")
    tr = der.spec.training          # τ = 1/η (mean loss) or 1/(Pη) (summed), from the lr as written
    tau_tex = exact_latex(1 / (sp.Rational(repr(float(tr.lr))) * der.spec.loss_factor)) if isinstance(tr.lr, float) \
        else exact_latex(sp.sympify(der.spec.tau))
    a0_tex = tex_number(repr(tr.a0) if isinstance(tr.a0, float) else tr.a0)    # 1e-07 typeset as 1e − 07
    parts.append(f"Here $\\tau = {tau_tex}$ steps and $a_0 = {a0_tex}$.")
    body = "\n\n".join(parts)
    if document:
        # a spec made in Python is named "spec" unless told otherwise: its task names it better
        name = der.spec.name if der.spec.name != "spec" or not der.task.name else der.task.name
        return latex_document("Derivation: " + tex_text(name), body)
    return body


#: a pathway name wider than this (:func:`~theorykit.theory.display.printed_width`, about 7 letters) is written
#: ``p_{k}`` (its place among the pathways) in a root's name ``s_{p,α}``, and a ``where`` line says which
#: pathway that is: ``s_{\mathrm{all-datapoints-one-pathway},1}``, four times in each term of a cubic field's
#: loss, made one term 222 pt wider than the page (pdflatex)
NAME_WIDTH = 8


def _root_names(modes) -> dict:
    """``{root: (symbol, pathway, mode number)}`` for each singular value that is a ``CRootOf`` (a root of a
    polynomial of degree 3 or more, a page wide when written out): the LaTeX of d, t½ and L names it,
    ``s_{p,α}``, as the t½ of mode α of pathway p is labelled, once its value is given in the modes; a long
    pathway name (wider than :data:`NAME_WIDTH`) by ``p_{k}``, k its place among the pathways."""
    out = {}
    for k, (n, svd) in enumerate(modes.items()):
        label = tex_label(n) if printed_width(tex_label(n)) <= NAME_WIDTH else f"p_{{{k + 1}}}"
        for i, m in enumerate(svd.modes):
            if isinstance(m.s, sp.CRootOf) and m.s not in out:
                out[m.s] = (sp.Symbol(f"s_{{{label},{i + 1}}}", positive=True), n, i + 1)
    return out


def _where(roots: dict, used, amp: str = "") -> list[str]:
    """Aligned rows that say what each named root in ``used`` stands for, ``where s_{p,α} = CRootOf(…)``, and
    which pathway each ``p_{k}`` of a long name is: a result read alone (pasted into a paper) must define its
    names. ``amp``: the alignment cells before."""
    rows, legend = [], {}
    for r, (y, n, _) in roots.items():
        if r in used:
            rows.append(f"{sp.latex(y)} = {exact_latex(r)}")
            short = y.name[3:].rsplit(",", 1)[0]        # s_{p_{1},2}: p_{1}
            if short != tex_label(n):
                legend[short] = rf"{short}\ \text{{is pathway }}{tex_label(n)}"
    return [amp + (r"\text{where } " if k == 0 else r"\phantom{\text{where }}") + row
            for k, row in enumerate(rows + list(legend.values()))]


class NamedExprs(ExprsByName):
    """``{pathway: expressions}`` of a derivation whose singular values include roots of degree 3 or more:
    Jupyter shows each mode on a line with those roots named ``s_{p,α}`` (as the derivation's document does,
    :func:`_named`) and a ``where`` line defining each; otherwise the plain :class:`ExprsByName` (a dict)."""

    def __init__(self, mapping, roots=None):
        super().__init__(mapping)
        self.roots = roots or {}

    def _repr_latex_(self):
        svd = {n: hasattr(v, "modes") for n, v in self.items()}       # der.modes: the roots in full, a line each
        exprs = {n: [m.s for m in v.modes] if svd[n] else list(v) for n, v in self.items()}
        used = {r for v in exprs.values() for e in v for r in sp.sympify(e).atoms(sp.CRootOf)} & set(self.roots)
        if not used:
            return super()._repr_latex_()
        rows = [(f"{tex_label(n)}{f', {i + 1}' if len(v) > 1 else ''}: ",
                 f"s = {exact_latex(e)}" if svd[n] else _named(e, self.roots)) for n, v in exprs.items() for i, e in enumerate(v)]
        where = _where(self.roots, {r for n, v in exprs.items() if not svd[n] for e in v for r in sp.sympify(e).atoms(sp.CRootOf)})
        return f"${aligned_rows(rows + [('', w) for w in where])}$"


def named_results(der, mapping, modes=None) -> NamedExprs:
    """Per-pathway results of ``der`` (its modes, t½, trajectories, end points) as :class:`NamedExprs`, the
    roots named after ``modes`` (by default ``der.modes``; the modes themselves while they are built)."""
    return NamedExprs(mapping, _root_names(der.modes if modes is None else modes))


def _root_vector(m, roots: dict) -> str:
    """A numeric v (a root of degree 3 or more) exactly, ``(p₁(s), …)/√R(s)`` in the mode's named s, where
    the engine kept it so (:class:`~theorykit.theory.exact_values.RootVec`); else "(numeric)"."""
    v = getattr(m.raw, "v", None)
    exact = v.in_s(roots[m.s][0]) if hasattr(v, "in_s") and m.s in roots else None
    if exact is None:
        return "(numeric)"
    entries, R = exact
    return r"\frac{1}{\sqrt{" + exact_latex(R) + "}}" + exact_latex(sp.Matrix([entries]))


def _named(expr, roots: dict) -> str:
    """``exact_latex`` of ``expr`` with each named root written by its name."""
    if roots and isinstance(expr, sp.Basic) and expr.has(sp.CRootOf):
        expr = expr.xreplace({r: y for r, (y, _, _) in roots.items()})
    return exact_latex(expr)


def _loss_lines(loss, roots: dict) -> str:
    """``L(t) = …`` displayed; a long sum one term a line (a loss of three cubic-field modes was one line
    3,000 pt wider than the page)."""
    text = _named(loss, roots)
    if len(text) <= 600 or not isinstance(loss, sp.Add):
        return r"\[ L(t) = " + text + r" \]"
    lines = []
    for k, term in enumerate(sp.Add.make_args(loss)):
        neg = term.could_extract_minus_sign()
        body = _named(-term if neg else term, roots)
        lines.append(("&= " if k == 0 else r"&\quad ") + ("- " if neg else ("+ " if k else "")) + body)
    return r"\begin{align*} L(t) " + r" \\ ".join(lines) + r" \end{align*}"


class TypesetLoss(Typeset):
    """A closed-form loss L(t) that Jupyter shows typeset to fit a page (:attr:`Derivation.loss_typeset
    <theorykit.theory.derivation.Derivation.loss_typeset>`): ``L(t) = …`` broken at the sum's top-level
    + and − signs into lines of at most :data:`~theorykit.theory.display.LINE_WIDTH`, each root of degree 3
    or more named ``s_{p,α}`` (as in the derivation's document) and defined on a ``where`` line. ``expr``
    is the loss itself (the SymPy expression, unchanged); ``latex()`` is the LaTeX to paste (math mode, an
    ``aligned`` block); ``str`` and ``repr`` are the loss's exact text."""

    def __init__(self, expr, roots=None):
        self.expr, self.roots = expr, roots or {}

    def rows(self) -> list[str]:
        """The aligned lines: ``L(t) &= …``, ``&\\quad + …``, then a ``where`` line per named root."""
        terms = sp.Add.make_args(self.expr) if isinstance(self.expr, sp.Add) else (self.expr,)
        pieces = []
        for k, term in enumerate(terms):
            neg = term.could_extract_minus_sign()
            pieces.append(("- " if neg else "+ " if k else "") + _named(-term if neg else term, self.roots) + " ")
        # the first line also holds "L(t) = " and every line the indent "L(t)" and \quad: 8 of LINE_WIDTH
        lines = fit_lines(pieces, LINE_WIDTH - 8)
        used = {r for r in self.roots if self.expr.has(r)}
        return ([r"L(t) &= " + lines[0]] + [r"&\quad " + ln for ln in lines[1:]]
                + _where(self.roots, used, "&"))

    def _repr_latex_(self):
        return r"$\begin{aligned}" + r" \\ ".join(self.rows()) + r"\end{aligned}$"

    def __str__(self):
        return exact_text(self.expr)

    __repr__ = __str__


def typeset_loss(der) -> TypesetLoss:
    """``der.loss`` as a :class:`TypesetLoss`, its roots named after ``der.modes``."""
    return TypesetLoss(der.loss, _root_names(der.modes))


def _race_text(der) -> str:
    """What the race reduction integrates (docs/theory.md#race, #deep-modes): the closed equation of the
    maps M_p for private depth-2 pathways; the gradient flow of each edge's weights where pathways share
    an edge or run deeper, with each deep balanced mode's own equation."""
    # O_pq was used and never said (the paper's Fig. 4 set such overlaps by hand; here they are the data's)
    G = (r"$G_p = \Sigma^{yx}_p - \sum_q O_{pq} M_q \Sigma^x_{qp}$, where $O_{pq}$ is the $0/1$ matrix that "
         r"takes pathway $q$'s output rows to pathway $p$'s (the rows both write; none is set by hand) and "
         r"$\Sigma^x_{qp} = \langle g_q g_p\, x_{s(q)} x_{s(p)}^\top\rangle$. ")
    shared = der.graph is not None and not der.graph.private_chains
    depths = sorted({p.depth for p in der.spec.pathways})
    if not shared and depths == [2]:
        return ("The pathways are integrated numerically with the race reduction "
                r"$\tau \dot M_p = (M_pM_p^\top)^{1/2}G_p + G_p(M_p^\top M_p)^{1/2}$, " + G)
    text = ("The pathways are integrated numerically with the race reduction in its factorised form, the "
            r"gradient flow of each edge's weights $W_e$ from aligned, balanced weights: "
            r"$\tau \dot W_e = \sum_{p \ni e} A_{p,e}^\top G_p B_{p,e}^\top$, where "
            r"$M_p = A_{p,e} W_e B_{p,e}$ and " + G)
    deep = [L for L in depths if L > 2]
    if deep:
        text += (r"Alone, a balanced mode of a pathway $L$ weight layers deep obeys "
                 r"$\tau \dot a = L\,a^{2-2/L}(s - d\,a)$ (" +
                 ", ".join(f"$L = {L}$: $\\tau \\dot a = {L}a^{{{sp.latex(2 - sp.Rational(2, L))}}}(s - d\\,a)$"
                           for L in deep) + "). ")
    return text


def _notes_text(der) -> str:
    """The derivation's notes, each its own item as it is kept (run together, one note's last word ran
    into the next one's first)."""
    return r"\emph{Notes:}\begin{itemize}" + "".join(r"\item " + tex_text(n) for n in der.notes) + r"\end{itemize}"
