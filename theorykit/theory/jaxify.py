"""Lambdify SymPy expressions to JAX functions that survive jit, vmap and grad.

:func:`to_jax` prints with SymPy's JAX printer, then checks the generated function: every
global name it uses must come from ``jax.numpy`` (or be a Python builtin constant), so a
silent fallback to ``math.*`` or ``numpy`` (which would break tracing and ``grad``) is
caught at lambdify time, not inside a traced computation. ``Piecewise`` is refused, because
``jnp.where`` evaluates both branches and their NaNs leak into gradients.
"""
from __future__ import annotations

import functools
import numbers
from typing import Sequence

import jax
import jax.numpy as jnp
import numpy as np
import sympy as sp

from ..errors import SpecError, TheorykitError
from ..spec.fields import short_repr
from .trajectory import _jax_phi

jax.config.update("jax_enable_x64", True)
try:        # seed → weights as JAX ≥ 0.5 draws them, under every JAX allowed (theorykit/__init__.py)
    jax.config.update("jax_threefry_partitionable", True)
except (AttributeError, ValueError):    # a JAX where it is no longer an option (always on)
    pass

__all__ = ["to_jax", "NotJaxSafe"]


class NotJaxSafe(TheorykitError, ValueError):
    """The expression would not lambdify to pure ``jax.numpy`` code (a ``ValueError``, and a
    :class:`~theorykit.errors.TheorykitError` as every theorykit error is)."""


_ALLOWED_BUILTINS = {"True", "False", "None", "range", "len", "complex", "float", "int"}


class _tk_phi(sp.Function):
    """φ(u) = (1 − e^{−u})/u, only inside :func:`to_jax` (printed as JAX's
    :func:`~theorykit.theory.trajectory._jax_phi`); never in an expression a user sees."""
    nargs = 1


def _one_minus_exp(e):
    """``(c, w)`` where ``e`` is ``c − c·e^w`` (c a nonzero number, w not a number), else None."""
    if not (isinstance(e, sp.Add) and len(e.args) == 2):
        return None
    c, m = sorted(e.args, key=lambda a: not a.is_number)
    if not c.is_number or c == 0 or m.is_number:
        return None
    r = m / (-c)
    return (c, r.args[0]) if isinstance(r, sp.exp) else None


def _small_s_safe(expr):
    """``expr`` rewritten for JAX without the 0/0 of a mode whose s → 0 while its d does not (the same
    value; docs/api.md). s is whatever expression the mode's singular value is (Δ, 3Δ, |Δ − 1|,
    |Δ² − ¼|, ...): the trajectory holds (1 − e^{−2st/τ})/s and the loss s²(1 − a d/s)², with s the
    same SymPy expression in both places. (1) In a product holding 1/P^k (P any expression that is not a
    number), a factor c(1 − e^w) with P a factor of w (w = −2st/τ), or, for a symbol x, w ∝ x, becomes
    c·(−w)·φ(−w): SymPy cancels P against 1/P, and φ(0) = 1. (2) P^n·B^m, where the sum B holds terms
    with 1/P^k at most and n ≥ k m (the loss's s²/(2d)·q², q ∝ 1/s), becomes P^(n − k m)·(P^k B)^m, P^k B
    summed term by term, so that P cancels there too; for a real P whose B holds 1/|P|^k (s = |Δ − 1|
    where the loss has (Δ − 1)²) the same with |P|^(k m) = P^(k m), k m even; again for each such
    factor (s = c|Δ − 1|: c, then |Δ − 1|). Both are identities, so
    the value is unchanged wherever the printed form has one. Other expressions (the XoR Δ = 0 cases,
    saturation) are left alone."""
    def divides(e):                 # {P: k} for each factor P^(−k) (P not a number, k > 0) of the product e
        return {f.base: -f.exp for f in sp.Mul.make_args(e)
                if isinstance(f, sp.Pow) and not f.base.is_number and f.exp.is_negative}

    def factor_of(p, w):            # whether p (or p^m, m > 0) is a factor of the product w
        return any(b == p and x.is_positive for b, x in (g.as_base_exp() for g in sp.Mul.make_args(w)))

    def phi_target(e):
        if not isinstance(e, sp.Mul):
            return None
        ps = divides(e)
        if not ps:
            return None
        for f in e.args:
            cw = _one_minus_exp(f)
            if cw and any(factor_of(p, cw[1]) or isinstance(p, sp.Symbol) and cw[1].has(p)
                          and cw[1].subs(p, 0) == 0 for p in ps):
                return f, cw
        return None

    def phi_rewrite(e):
        f, (c, w) = phi_target(e)
        return e / f * c * (-w) * _tk_phi(-w)

    def absorb_target(e):           # (P^n, B^m, k, A): B's terms hold A^(−k) at most (A = P or |P|), n ≥ k m
        if not isinstance(e, sp.Mul):
            return None
        gs = [g for g in e.args if isinstance(g, sp.Pow) and isinstance(g.base, sp.Add) and g.exp.is_Integer
              and g.exp > 0]
        if not gs:
            return None
        ks = [[divides(tm) for tm in g.base.args] for g in gs]
        for f in e.args:
            p, n = f.as_base_exp()
            if p.is_number or not (n.is_Integer and n > 0) or not any(p in d or sp.Abs(p) in d
                                                                       for kg in ks for d in kg):
                continue
            for g, kg in zip(gs, ks):
                if g is f:
                    continue
                for a in (p, sp.Abs(p)):
                    if a is not p and (a == p or not p.is_extended_real):
                        continue
                    k = max(d.get(a, sp.S.Zero) for d in kg)
                    if k.is_Integer and k > 0 and n >= k * g.exp and (a is p or (k * g.exp) % 2 == 0):
                        return f, g, k, a
        return None

    def absorb(e):                  # again while a factor is left (s = c|Δ − 1|: c, then |Δ − 1|)
        for _ in range(len(e.args)):
            target = absorb_target(e)
            if target is None:
                break
            f, g, k, a = target
            p, n = f.as_base_exp()
            inner = sp.Add(*[a ** k * tm for tm in g.base.args])
            e = e / (f * g) * p ** (n - k * g.exp) * inner ** g.exp
        return e

    expr = expr.replace(lambda e: phi_target(e) is not None, phi_rewrite)
    return expr.replace(lambda e: absorb_target(e) is not None, absorb)


def _names(code):
    names = set(code.co_names)
    for c in code.co_consts:
        if hasattr(c, "co_names"):
            names |= _names(c)
    return names


def to_jax(expr, args: Sequence[sp.Symbol]):
    """A JAX function of ``args`` computing ``expr`` (an expression or a matrix).

    An expression's value is a JAX array of the arguments' broadcast shape, also where ``expr`` is
    free of some (or all) of them. A string is refused, never evaluated (SymPy's ``sympify`` would ``eval``
    it): read one with :func:`~theorykit.spec.expr.parse_expr` first, as a spec file's expressions are read.

    >>> import sympy as sp, jax
    >>> x = sp.Symbol("x")
    >>> f = to_jax(sp.exp(-x) * x, [x])
    >>> float(jax.grad(f)(0.0))
    1.0
    """
    if isinstance(args, (str, sp.Basic)) or not isinstance(args, Sequence):
        raise SpecError("args", f"expected a list of SymPy symbols, got {type(args).__name__} {args!r:.40}",
                        "e.g. to_jax(expr, [t]) for one argument")
    bad = [a for a in args if not isinstance(a, sp.Symbol)]
    if bad:
        raise SpecError("args", f"{bad[0]!r} is a {type(bad[0]).__name__}, not a SymPy symbol",
                        "pass the symbols themselves (e.g. task.symbols[\"Delta\"] or sp.Symbol(\"Delta\", ...)), "
                        "not their names")
    twice = sorted({str(a) for a in args if list(args).count(a) > 1})
    if twice:       # was "no JAX translation: duplicate argument 't' ... rewrite the expression with functions jax.numpy has"
        raise SpecError("args", f"{twice} given more than once", "give each symbol once, e.g. to_jax(expr, [t, tau, a0])")
    if isinstance(expr, str):       # SymPy's sympify would eval it: a string that may come from a file never is
        names = ", ".join(f"{a.name!r}: {a.name}" for a in args)
        raise SpecError("expr", f"got a string {short_repr(expr)}: to_jax takes a SymPy expression, and never evaluates "
                        "a string", f"parse it with the safe parser first: tk.to_jax(tk.parse_expr({short_repr(expr)}, "
                        f"{{{names}}}), [{', '.join(a.name for a in args)}]), or build it from the symbols")
    numeric = isinstance(expr, np.ndarray) and expr.dtype.kind in "biuf"     # sympify reads numbers, never text
    if not isinstance(expr, (sp.Basic, sp.MatrixBase, numbers.Number)) and not numeric:
        raise SpecError("expr", f"expected a SymPy expression or matrix, got {type(expr).__name__} {short_repr(expr)}",
                        "pass e.g. der.loss; several expressions as one sp.Matrix([...])")
    expr = sp.sympify(expr)
    # exact roots of irreducible polynomials (CRootOf) have no JAX translation: they are numbers,
    # so they are evaluated (to 30 digits) before printing
    if expr.has(sp.CRootOf):
        expr = expr.replace(lambda e: isinstance(e, sp.CRootOf), lambda e: e.evalf(30))
    if expr.has(sp.Integral):
        raise NotJaxSafe("an unevaluated Integral (e.g. the half-way time of a pathway deeper than two layers) has "
                         "no JAX translation: evaluate it in numbers (sp.N, or "
                         "theorykit.theory.trajectory.t_half_float for a half-way time)")
    if expr.has(sp.Piecewise):
        raise NotJaxSafe("Piecewise expressions give NaN gradients under jnp.where; rewrite without Piecewise")
    if isinstance(expr, sp.MatrixBase):
        expr = sp.ImmutableMatrix(expr)
    extra = expr.free_symbols - set(args)
    if extra:
        names = sorted(map(str, extra))
        twins = sorted(str(a) for a in args if str(a) in names)    # sp.Symbol("Delta") for the task's nonnegative Delta
        if twins:
            raise NotJaxSafe(f"free symbols {names} are not among the arguments: the argument(s) {twins} are SymPy "
                             "symbols of the same name with other assumptions, which SymPy counts as different "
                             "(fix: pass the expression's own symbols, e.g. der.task.symbols['Delta'], or "
                             "{s.name: s for s in expr.free_symbols})")
        raise NotJaxSafe(f"free symbols {names} are not among the arguments (fix: add them to the arguments, "
                         f"or substitute numbers for them first: expr.subs({{...}}))")
    expr = _small_s_safe(expr)
    try:
        f = sp.lambdify(list(args), expr, modules=[{"_tk_phi": _jax_phi, "abs": jnp.abs}, "jax"])
    except Exception as exc:  # SymPy's JAX printer has no translation for some function
        first = (str(exc).splitlines() or [""])[0]     # not SymPy's "set the printer option 'strict'": to_jax has none
        raise NotJaxSafe(f"no JAX translation: {first} (fix: rewrite the expression with functions jax.numpy has, "
                         "or evaluate it in numbers: sp.N, or sp.lambdify with numpy)") from None
    g = f.__globals__
    for name in _names(f.__code__):
        if name in _ALLOWED_BUILTINS:
            continue
        obj = g.get(name)
        mod = getattr(obj, "__module__", "") or ""
        if obj is None or not (mod.startswith("jax") or obj is jnp or obj is jax or obj is _jax_phi):
            raise NotJaxSafe(f"lambdified code uses {name!r} from {mod or 'nowhere'}, not jax.numpy (fix: rewrite "
                             f"the expression without {name}, or evaluate it in numbers: sp.N, or sp.lambdify "
                             "with numpy)")
    # every argument becomes a JAX array first (Python scalars stay weakly typed, so float32 inputs stay
    # float32): otherwise Python numbers are computed on with Python's arithmetic up to the first jnp call,
    # and f(0.0) raises ZeroDivisionError where f(jnp.float64(0.0)) gives IEEE inf, and lists fail
    if isinstance(expr, sp.MatrixBase):
        g = lambda *a: jnp.asarray(f(*map(jnp.asarray, a)))        # noqa: E731
    else:
        def g(*a):
            # broadcast over every argument, as a formula in all of them would be: an expression free
            # of some argument (a loss that is constant at a special value, L = 1/2) came back as a
            # Python float, or at the shape of the others, for an array of times
            a = [jnp.asarray(x) for x in a]
            r = f(*a)
            shape = jnp.broadcast_shapes(jnp.shape(r), *(x.shape for x in a))
            if isinstance(r, jax.Array) and r.shape == shape:
                return r                                            # as computed (weak types kept)
            return jnp.broadcast_to(jnp.asarray(r, dtype=jnp.result_type(r, *a)), shape)
    return functools.wraps(f)(g)
