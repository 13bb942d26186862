"""Ranges of settings that several entry points read, stated once and importable without SymPy (the
command line's parser states them in its help texts, and must answer ``--help`` at once).

The learning rate: a spec's ``[training] lr``, ``find-gates --lr``, ``compare --lr``, a sweep's
``--grid lr=…`` and a checkpoint's ``lr`` metadata are all checked against ``[LR_MIN, LR_MAX]`` by
:func:`theorykit.spec.fields.learning_rate`, whose fix is ``give LR_WHAT, e.g. EXAMPLE``.

The two initial scales, a spec's ``[training] a0`` and ``init_std``, ``tk.Training(a0=…, init_std=…)`` and
the ``a0=``/``init_std=`` of ``tk.simulate`` and ``tk.find_gates``: ``[SCALE_MIN, SCALE_MAX]``, by
:func:`theorykit.spec.fields.init_scale` (fix ``give SCALE_WHAT, e.g. EXAMPLE``).

A random seed, ``--seed`` and the ``seed=`` of the Python API: ``0 … MAX_SEED`` (JAX's PRNGKey and
scikit-learn's k-means take no other), by :func:`theorykit.spec.fields.seed_value` (fix ``give SEED_WHAT, e.g. EXAMPLE``).
"""
from __future__ import annotations

__all__ = ["LR_MIN", "LR_MAX", "LR_WHAT", "SCALE_MIN", "SCALE_MAX", "SCALE_WHAT", "MAX_SEED", "SEED_WHAT", "MAX_STEPS"]

#: smallest learning rate (docs/specs.md, training.lr: 1e-12 … 1e3)
LR_MIN = 1e-12
#: largest learning rate
LR_MAX = 1e3
#: what a learning rate must be, as every message and help text says it
LR_WHAT = f"a number from {LR_MIN:g} to {LR_MAX:g}"

#: smallest initial scale, a0 or init_std (docs/specs.md, training.a0 and training.init_std: 1e-12 … 1e2)
SCALE_MIN = 1e-12
#: largest initial scale
SCALE_MAX = 1e2
#: what an initial scale must be, as every message says it
SCALE_WHAT = f"a positive number from {SCALE_MIN:g} to {SCALE_MAX:g}"
#: the largest random seed: JAX's PRNGKey takes 0 to 2**32 - 1
MAX_SEED = 2 ** 32 - 1
#: what a seed must be, as every message says it
SEED_WHAT = f"a whole number from 0 to {MAX_SEED}"
#: the most gradient steps of a run: a spec's training.steps, --steps and simulate(steps=…) (the memory and
#: time estimates usually bind first)
MAX_STEPS = 10 ** 9
