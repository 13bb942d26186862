"""Effective datasets of GDLN pathways (docs/theory.md#race).

For pathway p with gate g_p, input rows s(p) and output rows t(p):

* ``Σyx_p = ⟨ g_p y_{t(p)} x_{s(p)}ᵀ ⟩`` (its input-output correlation),
* ``Σx_qp = ⟨ g_q g_p x_{s(q)} x_{s(p)}ᵀ ⟩`` (input correlation between two pathways),

where ⟨·⟩ averages over all P datapoints (a gated-off datapoint counts as zero).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from ..errors import SpecError
from ..spec.expr import exact_float
from ..spec.fields import tex_label
from ..spec.gating import GDLNSpec, Pathway
from ..spec.task import Task
from .exactla import _int_matmul, rational_parts

__all__ = ["EffectiveDataset", "effective_dataset", "input_correlation", "output_correlation", "output_trace", "couplings",
           "exact_parts"]


class EffectiveDataset:
    """The effective dataset of one pathway: exact SymPy matrices ``Syx`` and ``Sx``.

    For a task with rational entries they are kept as integer arrays over a common denominator
    (``exact``: ``(Syx_B, den, Sx_B, den)``) and the SymPy matrices are built on first access.
    """

    __slots__ = ("pathway", "_Syx", "_Sx", "exact")

    def __init__(self, pathway: Pathway, Syx: sp.Matrix | None = None, Sx: sp.Matrix | None = None, exact=None):
        self.pathway, self._Syx, self._Sx, self.exact = pathway, Syx, Sx, exact

    @property
    def Syx(self) -> sp.Matrix:
        """Σyx_p, the pathway's input-output correlation (an exact SymPy matrix, built on first use)."""
        if self._Syx is None:
            self._Syx = _to_sympy(self.exact[0], self.exact[1])
        return self._Syx

    @property
    def Sx(self) -> sp.Matrix:
        """Σx_pp, the pathway's input correlation (an exact SymPy matrix, built on first use)."""
        if self._Sx is None:
            self._Sx = _to_sympy(self.exact[2], self.exact[3])
        return self._Sx

    def Sx_fmpq(self):
        """Σx as a FLINT rational matrix (exact tasks only)."""
        import flint

        B, den = self.exact[2], self.exact[3]
        r, c = B.shape
        return flint.fmpq_mat(r, c, [flint.fmpq(int(x), den) for x in B.ravel()])

    def Syx_float(self):
        """Σyx_p as a float array (None where the task is not exact), each entry the double nearest it
        (numerator and denominator each rounded to a float, then divided, missed it beyond 2**53)."""
        if self.exact is None:
            return None
        B, den = self.exact[0], int(self.exact[1])
        return np.array([exact_float(Fraction(int(b), den)) for b in B.ravel()], dtype=float).reshape(B.shape)

    def __repr__(self):      # one line, nothing built: the matrices' shapes (print .Syx and .Sx for their entries)
        def shape(m, i):
            s = m.shape if m is not None else self.exact[i].shape if self.exact is not None else None
            return f"{s[0]} × {s[1]}" if s else "?"
        return f"EffectiveDataset({self.pathway.name!r}, Syx {shape(self._Syx, 0)}, Sx {shape(self._Sx, 2)})"

    def _repr_latex_(self):
        name = tex_label(self.pathway.name)
        return f"$\\Sigma^{{yx}}_{{{name}}} = {sp.latex(self.Syx)},\\quad \\Sigma^{{x}}_{{{name}}} = {sp.latex(self.Sx)}$"

    def latex(self) -> str:
        """Σyx and Σx as LaTeX, as Jupyter shows them, without the dollar signs."""
        return self._repr_latex_().strip("$")


def _to_sympy(B, den) -> sp.Matrix:
    r, c = B.shape
    return sp.Matrix(r, c, [sp.Rational(int(x), den) for x in B.ravel()])


def exact_parts(task: Task):
    """``(X_B, x_den, Y_B, y_den)``: the task's inputs and targets as integer numpy arrays over
    common denominators, or ``None`` when an entry is symbolic or irrational. Cached on the task."""
    cached = getattr(task, "_exact_parts", False)
    if cached is not False:
        return cached

    out = None
    if not task.free_symbols:
        px, py = rational_parts(task.X), rational_parts(task.Y)
        if px is not None and py is not None:
            out = (px[0], px[1], py[0], py[1])
    object.__setattr__(task, "_exact_parts", out)
    return out


def effective_dataset(task: Task, p: Pathway) -> EffectiveDataset:
    """Σyx_p and Σx_pp of pathway ``p`` on ``task``."""
    if not isinstance(task, Task):
        raise SpecError("task", f"expected a Task, got {type(task).__name__}",
                        "pass spec.task (a spec's task), or a task such as xor_margin(0.5)")
    if not isinstance(p, Pathway):
        raise SpecError("p", f"expected a Pathway, got {type(p).__name__} {p!r:.40}",
                        "pass one of spec.pathways (a Pathway, not its name)")
    p = p.resolve(task, "p")              # its gates are now the integers 0 and 1 (Pathway.resolve)
    parts = exact_parts(task)
    if parts is not None:
        Xb, xd, Yb, yd = parts
        act = [i for i, g in enumerate(p.active) if g]
        Xa = Xb[np.ix_(list(p.inputs), act)]
        Ya = Yb[np.ix_(list(p.outputs), act)]
        Syx = _int_matmul(Ya, Xa.T)
        Sx = _int_matmul(Xa, Xa.T)
        return EffectiveDataset(p, exact=(Syx, yd * xd * task.P, Sx, xd * xd * task.P))
    X = task.X.extract(list(p.inputs), list(range(task.P)))
    Y = task.Y.extract(list(p.outputs), list(range(task.P)))
    Syx = (Y * p.gate_matrix() * X.T) / task.P
    # Σx_pp is Σx_qp with q = p: a 0/1 gate is its own square
    return EffectiveDataset(p, Syx.applyfunc(sp.expand), input_correlation(task, p, p))


def output_trace(task: Task) -> sp.Expr:
    """tr Σy = ⟨‖y‖²⟩, exact, without forming Σy."""
    parts = exact_parts(task)
    if parts is not None:
        Yb, yd = parts[2], parts[3]
        tot = int(np.sum(Yb.astype(object) ** 2)) if Yb.dtype == object or np.max(np.abs(Yb)) > 2 ** 20 \
            else int(np.sum(Yb.astype(np.int64) ** 2))
        return sp.Rational(tot, yd * yd * task.P)
    return sp.expand(sum(x ** 2 for x in task.Y) / task.P)


def input_correlation(task: Task, q: Pathway, p: Pathway) -> sp.Matrix:
    """Σx_qp = ⟨ g_q g_p x_{s(q)} x_{s(p)}ᵀ ⟩ (|s(q)| × |s(p)|)."""
    q, p = q.resolve(task), p.resolve(task)
    Xq = task.X.extract(list(q.inputs), list(range(task.P)))
    Xp = task.X.extract(list(p.inputs), list(range(task.P)))
    G = sp.diag(*[a * b for a, b in zip(q.active, p.active)])
    return ((Xq * G * Xp.T) / task.P).applyfunc(sp.expand)


def output_correlation(task: Task) -> sp.Matrix:
    """Σy = ⟨ y yᵀ ⟩."""
    return (task.Y * task.Y.T / task.P).applyfunc(sp.expand)


def couplings(spec: GDLNSpec) -> list:
    """Pairs (q, p) of distinct pathways that interact: shared output rows and a shared datapoint."""
    if not isinstance(spec, GDLNSpec):
        raise SpecError("spec", f"expected a pathway spec (GDLNSpec), got {type(spec).__name__}",
                        "pass GDLNSpec(task, pathways) or a spec file with [[pathways]] (a graph spec has none)")
    out = []
    ps = spec.pathways
    for i, q in enumerate(ps):
        for p in ps[i + 1:]:
            shared_out = set(q.outputs) & set(p.outputs)
            shared_pts = any(a and b for a, b in zip(q.active, p.active))
            if shared_out and shared_pts:
                out.append((q.name, p.name))
    return out


#: how many coupled pairs a note names (all of them are in ``couplings``): a note of every pair grew as K²
NOTE_PAIRS = 8


def pairs_text(pairs: list, most: int = NOTE_PAIRS) -> str:
    """``pairs`` as a note shows them: all of up to ``most``, else the first ``most`` and how many in all."""
    if len(pairs) <= most:
        return str(list(pairs))
    return f"{str(list(pairs[:most]))[:-1]}, …] ({len(pairs)} pairs in all, every one in couplings)"
