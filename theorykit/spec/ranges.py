"""Ranges of settings that several entry points read, stated once and importable without SymPy (the
command line's parser states them in its help texts, and must answer ``--help`` at once).

The learning rate: a spec's ``[training] lr``, ``find-gates --lr``, ``compare --lr``, a sweep's
``--grid lr=…`` and a checkpoint's ``lr`` metadata are all checked against ``[LR_MIN, LR_MAX]`` by
:func:`theorykit.spec.fields.learning_rate`, whose fix is ``give LR_WHAT, e.g. EXAMPLE``.
"""
from __future__ import annotations

__all__ = ["LR_MIN", "LR_MAX", "LR_WHAT"]

#: smallest learning rate (docs/specs.md, training.lr: 1e-12 … 1e3)
LR_MIN = 1e-12
#: largest learning rate
LR_MAX = 1e3
#: what a learning rate must be, as every message and help text says it
LR_WHAT = f"a number from {LR_MIN:g} to {LR_MAX:g}"
