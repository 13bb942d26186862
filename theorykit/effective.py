"""Effective datasets of GDLN pathways (THEORY.md §3).

For pathway p with gate g_p, input rows s(p) and output rows t(p):

* ``Σyx_p = ⟨ g_p y_{t(p)} x_{s(p)}ᵀ ⟩`` (its input-output correlation),
* ``Σx_qp = ⟨ g_q g_p x_{s(q)} x_{s(p)}ᵀ ⟩`` (input correlation between two pathways),

where ⟨·⟩ averages over all P datapoints (a gated-off datapoint counts as zero).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .gating import GDLNSpec, Pathway
from .task import Task

__all__ = ["EffectiveDataset", "effective_dataset", "input_correlation", "output_correlation", "couplings"]


@dataclass(frozen=True)
class EffectiveDataset:
    """The effective dataset of one pathway: exact SymPy matrices."""

    pathway: Pathway
    Syx: sp.Matrix
    Sx: sp.Matrix

    def _repr_latex_(self):
        return (f"$\\Sigma^{{yx}}_{{\\mathrm{{{self.pathway.name}}}}} = {sp.latex(self.Syx)},\\quad "
                f"\\Sigma^{{x}}_{{\\mathrm{{{self.pathway.name}}}}} = {sp.latex(self.Sx)}$")

    def latex(self) -> str:
        return self._repr_latex_().strip("$")


def _gated(task: Task, gates) -> sp.Matrix:
    return sp.diag(*gates)


def effective_dataset(task: Task, p: Pathway) -> EffectiveDataset:
    """Σyx_p and Σx_pp of pathway ``p`` on ``task``."""
    p = p.resolve(task)
    X = task.X.extract(list(p.inputs), list(range(task.P)))
    Y = task.Y.extract(list(p.outputs), list(range(task.P)))
    G = _gated(task, p.active)
    Syx = (Y * G * X.T) / task.P
    Sx = (X * G * X.T) / task.P
    return EffectiveDataset(p, Syx.applyfunc(sp.expand), Sx.applyfunc(sp.expand))


def input_correlation(task: Task, q: Pathway, p: Pathway) -> sp.Matrix:
    """Σx_qp = ⟨ g_q g_p x_{s(q)} x_{s(p)}ᵀ ⟩ (|s(q)| × |s(p)|)."""
    q, p = q.resolve(task), p.resolve(task)
    Xq = task.X.extract(list(q.inputs), list(range(task.P)))
    Xp = task.X.extract(list(p.inputs), list(range(task.P)))
    G = _gated(task, [a * b for a, b in zip(q.active, p.active)])
    return ((Xq * G * Xp.T) / task.P).applyfunc(sp.expand)


def output_correlation(task: Task) -> sp.Matrix:
    """Σy = ⟨ y yᵀ ⟩."""
    return (task.Y * task.Y.T / task.P).applyfunc(sp.expand)


def couplings(spec: GDLNSpec) -> list:
    """Pairs (q, p) of distinct pathways that interact: shared output rows and a shared datapoint."""
    out = []
    ps = spec.pathways
    for i, q in enumerate(ps):
        for p in ps[i + 1:]:
            shared_out = set(q.outputs) & set(p.outputs)
            shared_pts = any(a and b for a, b in zip(q.active, p.active))
            if shared_out and shared_pts:
                out.append((q.name, p.name))
    return out
