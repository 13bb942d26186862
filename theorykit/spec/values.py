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
from .expr import SYMBOL_ASSUMPTIONS, parse_expr, to_exact
from .fields import check_real_finite, short_repr, type_name

__all__ = ["checked_value", "exact_values", "checked_times", "check_assumptions", "parse_value"]


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
    where, fix = f"values[{key}]", f"give {key} a finite real number, e.g. values={{'{key}': 0.5}}"
    if isinstance(value, (bool, np.bool_, sp.logic.boolalg.BooleanAtom)):   # True: 1 to Python, no number to SymPy
        raise SpecError(where, f"needs a number, got {type_name(value)} {short_repr(value)}", fix)
    try:
        val = sp.sympify(exact_values({key: value})[key])
    except SpecError as exc:                        # nan, "x": the problem to_exact or parse_value found
        raise SpecError(where, exc.problem, fix) from None
    except (sp.SympifyError, TypeError) as exc:
        raise SpecError(where, f"{value!r} is not a number ({exc})", fix) from None
    if not getattr(val, "is_number", False):
        raise SpecError(where, f"{short_repr(value)} is not a number", fix)
    if val.is_finite is not True:                   # sp.oo, sp.nan: said so, whatever the symbol assumes
        _real_finite(val, where, value, fix)
    check_assumptions(sym, val, where, value)       # 1j for a real Δ: "Δ is a real symbol"
    _real_finite(val, where, value, fix)            # 1j for a symbol without assumptions
    return sym


def _real_finite(val, where: str, value, fix: str) -> None:
    """:func:`~theorykit.spec.fields.check_real_finite` with the fix in Python's words."""
    try:
        check_real_finite(val, where, value)
    except SpecError as exc:
        raise SpecError(where, exc.problem, fix) from None


def check_assumptions(sym, val, field: str, shown) -> None:
    """Refuse a value that contradicts an assumption of ``sym`` (declared, or implied by those declared):
    the derivation simplified with it (e.g. ``sqrt(D**2) = D`` for positive D), so any other value
    would be silently wrong. ``field``: ``--set NAME`` (the command line: the fix names the spec file's
    ``[symbols]``) or ``values[NAME]`` (Python: the fix names the symbol's assumptions, ``sp.Symbol``)."""
    if not isinstance(sym, sp.Symbol):
        return
    facts = sym.assumptions0
    if facts.get("real") and getattr(val, "is_extended_real", None) is False:    # 1j: not "not nonnegative"
        raise SpecError(field, f"{shown} is complex ({sym} is a real symbol: it needs a real number)",
                        f"give {sym} a real number, e.g. " + (f"--set {sym}=0.5" if field.startswith("--set")
                                                               else f"values={{'{sym}': 0.5}}"))
    declared = [k for k in SYMBOL_ASSUMPTIONS if k in facts]
    for k in declared + sorted(set(facts) - set(declared)):
        holds = getattr(val, f"is_{k}", None)
        if holds is not None and holds != facts[k]:
            how = "declared" if k in SYMBOL_ASSUMPTIONS else "by its declared assumptions"
            other = ("change its assumptions under [symbols]" if field.startswith("--set") else
                     f"build the task with {sym} declared otherwise, e.g. sp.Symbol('{sym}', real=True)")
            raise SpecError(field, f"{sym} is {how} {k} = {str(facts[k]).lower()}, but {shown} is "
                            f"{'' if holds else 'not '}{k}",
                            f"give {sym} a value that is {'' if facts[k] else 'not '}{k}, or {other}")


def parse_value(value: str, key) -> sp.Expr:
    """A symbol's value given as a string (``"sqrt(2)"``, ``"6/5"``): a number read by
    :func:`~theorykit.spec.expr.parse_expr`, never ``eval``; anything else is refused as not a number."""
    try:
        return parse_expr(value, {}, f"values[{key}]")
    except SpecError as exc:
        raise SpecError(f"values[{key}]", f"{value!r} is not a number ({exc.problem})",
                        f"e.g. values={{'{key}': 0.5}}") from None


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
