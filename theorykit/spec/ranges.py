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

A time limit, every command's ``--time-limit`` and the ``time_limit=`` of ``tk.predict_reln``: seconds, 0 or more,
0 and inf meaning no limit; every refusal of one (a word, NaN, a negative number, ``1e400``) gives the fix
:func:`time_limit_fix`.

The families of context-gated pathways, ``MAX_FAMILIES`` (listed with the other size bounds in
:mod:`theorykit.spec.limits`, which re-exports it): :func:`theorykit.spec.gating.family_masks`,
``exhaust_spec``/``race_exhaust`` and ``race-exhaust --k`` take every k up to :func:`max_family_contexts`.
"""
from __future__ import annotations

__all__ = ["LR_MIN", "LR_MAX", "LR_WHAT", "SCALE_MIN", "SCALE_MAX", "SCALE_WHAT", "MAX_SEED", "SEED_WHAT", "MAX_STEPS",
           "TIME_LIMIT_WHAT", "time_limit_fix", "MAX_FAMILIES", "family_count", "max_family_contexts"]

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
#: what a time limit must be, as every message says it (0 and inf: no limit, :func:`time_limit_fix`)
TIME_LIMIT_WHAT = "a number of seconds, 0 or more"


def time_limit_fix(example: str, keyword: bool = False) -> str:
    """The one fix of every refused time limit: ``give TIME_LIMIT_WHAT, e.g. --time-limit EXAMPLE (0 or inf: no
    limit)``; with ``keyword``, in Python's words (``{key}`` standing for the keyword, as
    :class:`~theorykit.errors.SpecError`'s ``keyword_fix`` takes it; None means no limit there too)."""
    if keyword:
        return f"give {TIME_LIMIT_WHAT}, e.g. {{key}}={example} (0, None or inf: no limit)"
    return f"give {TIME_LIMIT_WHAT}, e.g. --time-limit {example} (0 or inf: no limit)"


#: the most families of context-gated pathways enumerated (family_masks, race-exhaust): 2^15 − 1 = 32,767, those of
#: k = 4 contexts (0.25 s); k = 5 has 2^31 − 1, built as a list (measurements: theorykit.spec.limits)
MAX_FAMILIES = 2 ** 15 - 1


def family_count(k: int) -> int:
    """The non-empty families of context-gated pathways on k contexts: the common pathway and the 2^k − 2
    item-only ones, 2^(2^k − 1) − 1 subsets (Lemma 4.1; 127 at k = 3)."""
    return 2 ** (2 ** k - 1) - 1


def max_family_contexts() -> int:
    """The largest k whose ``family_count(k)`` is at most ``MAX_FAMILIES`` (read when called): 4 for 2^15 − 1."""
    k = 0
    while family_count(k + 1) <= MAX_FAMILIES:      # counts grow doubly exponentially: a few steps
        k += 1
    return k
