"""A task's symbol values and a run's times, checked where a user gives them (``values=``,
``--set``, ``times=``): every error names the value and says how to fix it. The derivation and the
simulation check them alike."""
from __future__ import annotations

import difflib
import numbers
from typing import Mapping

import numpy as np
import sympy as sp

from ..errors import SpecError
from .expr import to_exact
from .files import check_assumptions
from .task import parse_value

__all__ = ["checked_value", "exact_values", "checked_times"]


def checked_value(task, key, value):
    """The task's symbol named by ``key``, after refusing a key the task does not have and a value
    that breaks the symbol's assumptions (the derivation simplified with them: √(Δ²) = Δ for
    nonnegative Δ, so Δ = −½ would be silently wrong)."""
    known = set(task.symbols.values())
    sym = task.symbols.get(key, key) if isinstance(key, str) else key
    if sym not in known:
        same = [k for k in known if str(k) == str(key)]
        if same and isinstance(key, sp.Symbol):    # sp.Symbol("Delta"): not the task's Delta, which has assumptions
            own = ", ".join(f"{a}=True" for a, v in sorted(same[0].assumptions0.items()) if v and a in
                            ("positive", "nonnegative", "negative", "nonpositive", "real", "integer")) or "other assumptions"
            raise SpecError("values", f"the key Symbol('{key}') is a SymPy Symbol of its own, not the task's {str(key)!r} "
                                      f"(declared with {own}): SymPy counts them as different symbols",
                            f"key it by name, values={{'{key}': 0.5}}, or by the task's own symbol, "
                            f"task.symbols['{key}']")
        near = difflib.get_close_matches(str(key), sorted(map(str, known)), n=1)
        raise SpecError("values", f"the task has no symbol {str(key)!r} (its symbols: "
                                  f"{sorted(map(str, known)) or 'none'})",
                        f"did you mean {near[0]!r}? Otherwise drop it from the values" if near else "drop it from the values")
    if type(value).__module__.split(".")[0] in ("jax", "jaxlib"):   # SymPy's sympify fails on these itself
        traced = "Tracer" in type(value).__name__
        arg = f"keep it an argument: tk.to_jax(der.loss, [t, tau, a0, der.task.symbols['{key}']]) (docs/api.md)"
        raise SpecError(f"values[{key}]", ("a traced JAX value (inside jit, vmap or grad)" if traced else "a JAX array")
                        + ", not a number: values are substituted exactly into SymPy",
                        f"to jit, vmap or differentiate over {key}, {arg}" if traced else
                        f"pass float(x) for one value; to jit, vmap or differentiate over {key}, {arg}")
    try:
        val = sp.sympify(exact_values({key: value})[key])
    except (sp.SympifyError, TypeError) as exc:
        raise SpecError(f"values[{key}]", f"{value!r} is not a number ({exc})", f"e.g. values={{'{key}': 0.5}}") from None
    if not getattr(val, "is_number", False):
        raise SpecError(f"values[{key}]", f"{value!r} is not a number", f"e.g. values={{'{key}': 0.5}}")
    check_assumptions(sym, val, f"values[{key}]", value)
    return sym


def exact_values(values: Mapping) -> dict:
    """``values`` with each real number made exact (``0.1`` is 1/10) and each string read as an expression."""
    return {k: to_exact(v, f"values[{k}]") if isinstance(v, numbers.Real) else
            parse_value(v, k) if isinstance(v, str) else v for k, v in values.items()}


def checked_times(times) -> np.ndarray:
    """``times`` as a float array of finite gradient steps t ≥ 0, else a SpecError naming ``times``."""
    if "Tracer" in type(times).__name__:            # np.asarray of a tracer raises a TypeError: say why
        raise SpecError("times", "a traced JAX value (inside jit, vmap or grad): predictions are computed in "
                                 "numpy (recurrences, the race's integrator), not traced",
                        "call it outside the transform with concrete times; for a JAX function of t use "
                        "der.loss_function(values) (the closed form), or tk.to_jax (docs/api.md)")
    try:
        times = np.asarray(times, dtype=float)
    except (TypeError, ValueError):
        times = None
    if times is None or not np.isfinite(times).all() or (times < 0).any():
        raise SpecError("times", "needs finite gradient steps t ≥ 0", "e.g. times=np.arange(0, 5001, 50)")
    return times
