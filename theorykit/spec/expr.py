"""Safe parsing of expression strings from spec files.

Spec files are data. Expression strings are parsed with :mod:`ast` into a tree that is
walked by hand: only numbers, declared symbols, ``+ - * / **``, unary minus, parentheses,
``sqrt(x)`` and ``Rational(p, q)`` are accepted. Nothing is passed to ``eval``, ``exec``
or :func:`sympy.sympify` (which calls ``eval``).

Decimal literals become exact rationals (``0.33`` is ``33/100``), so that a spec written
with decimals is derived exactly.
"""
from __future__ import annotations

import ast
import decimal
import fractions
import math
import numbers
import operator
from typing import Mapping

import numpy as np
import sympy as sp
from mpmath import libmp

from ..errors import SpecError
from .fields import DATA_MAX, DATA_MIN, _SCALE_FIX, check_magnitude, check_real_finite, fmt, log10_abs, short_repr

__all__ = ["parse_expr", "to_exact", "exact_float", "exact_floats", "float_text", "data_number", "WrittenFloat", "SYMBOL_ASSUMPTIONS"]

#: assumptions a ``[symbols]`` table may declare
SYMBOL_ASSUMPTIONS = ("positive", "nonnegative", "real", "integer", "nonzero")

_MAX_LEN = 500
_MAX_POW = 64
#: largest |log10| of a number an intermediate power may reach (guards against huge integers)
_MAX_LOG10 = 400

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


_ARITY = {"sqrt": "one argument", "Rational": "two arguments"}
#: the functions an expression may call (every other name is a symbol)
FUNCTIONS = tuple(_ARITY)
#: names that read as infinity or NaN (SymPy's oo and zoo, Python's and TOML's inf and nan), unless declared
_NOT_FINITE = {"oo": "infinity", "zoo": "complex infinity", "inf": "infinity", "infinity": "infinity",
               "nan": "NaN"}
#: what an expression may hold, for the fix of every error about what it may not
_ALLOWED = "use numbers, declared symbols, + - * / **, parentheses, sqrt() and Rational()"


def written_nonzero(literal: str) -> bool:
    """Whether a number's text has a non-zero digit before its exponent (``1e-400`` does, ``0.0e5``
    does not): a float that reads it as 0 then lost it to underflow."""
    mantissa = literal.strip().lstrip("+-").replace("_", "").split("e")[0].split("E")[0]
    return any(c in "123456789" for c in mantissa)


def _check_underflow(literal: str, field: str) -> None:
    """Refuse a number written non-zero that a float reads as 0 (``1e-400``): too small, as any
    non-zero number below DATA_MIN is, rather than silently 0."""
    if written_nonzero(literal):
        raise SpecError(field, f"{short_repr(literal.strip())} is too small (below the smallest float, about "
                        f"1e-308; non-zero numbers need at least {fmt(DATA_MIN)} in magnitude)",
                        _SCALE_FIX + "; or write 0")


def _too_large(literal: str, field: str) -> None:
    """Refuse a number that a float reads as infinite (``1e400``), by the text that was written."""
    raise SpecError(field, f"{short_repr(literal.strip())} is too large (above the largest float, about 1e308; "
                    f"numbers need at most {fmt(DATA_MAX)} in magnitude)", _SCALE_FIX)


class WrittenFloat(float):
    """A TOML float written with more digits than a double holds (``0.12345678901234567890``): a float
    everywhere, which :func:`to_exact` reads exactly as written (``.text``), not as the double's
    shortest repr."""

    def __new__(cls, value: float, text: str):
        self = super().__new__(cls, value)
        self.text = text
        return self

    def __reduce__(self):                   # pickle and deepcopy keep the written digits
        return WrittenFloat, (float(self), self.text)


def float_text(f: sp.Float) -> str:
    """The shortest decimal that reads back as the finite SymPy Float ``f`` at its own precision: for a
    double-precision Float (53 bits, SymPy's default) the ``repr`` of ``float(f)`` (``sp.Float(0.1)``:
    ``'0.1'``); for others mpmath's digits, the fewest from ``prec_to_dps`` on that read back as ``f``
    (``sp.Float("0.1", 30)``: ``'0.1'``, ``sp.Float(1/3, 30)``: the 30 digits it prints)."""
    prec, mpf = f._prec, f._mpf_
    if prec == 53:
        x = float(f)
        if math.isfinite(x) and libmp.from_float(x) == mpf:      # a double (not one below its range)
            return repr(x)
    for digits in range(libmp.prec_to_dps(prec), libmp.repr_dps(prec) + 1):
        text = libmp.to_str(mpf, digits)
        if libmp.from_str(text, prec, libmp.round_nearest) == mpf:
            return text
    return libmp.to_str(mpf, libmp.repr_dps(prec))        # pragma: no cover - repr_dps digits read back


def exact_float(x) -> float:
    """The double nearest the exact real number ``x`` (a SymPy number or expression free of symbols, an
    int, a ``Fraction``): the project's one exact → float conversion.

    A rational p/q is Python's ``p / q``: an integer division rounded once, so correctly rounded, as
    ``float(Fraction(p, q))``. SymPy's ``evalf()`` rounds twice (to 57 bits, then to 53) and misses by an
    ulp for about 2 % of small fractions (9/11: evalf gives 0.8181818181818181, the nearest double is
    0.8181818181818182). Any other number (a surd, a log) is evaluated at 30 significant digits and then
    rounded to a double (``float(x)`` would evalf at 15 digits first: an ulp off for about 4 % of the
    surds √(p/q)). That is correctly rounded unless the number lies within about 10⁻³⁰ (relative) of a
    point halfway between two doubles: astronomically rare, never met in the project's numbers."""
    if isinstance(x, sp.Rational):                  # sp.Integer too
        return int(x.p) / int(x.q)
    if isinstance(x, numbers.Rational) and not isinstance(x, bool):     # int, fractions.Fraction
        return int(x.numerator) / int(x.denominator)
    if isinstance(x, (float, np.floating)):
        return float(x)
    return float(x.evalf(30))


def exact_floats(M, dtype=np.float64) -> np.ndarray:
    """The SymPy matrix ``M`` (numbers, no symbols) as a numpy array, entry by entry by :func:`exact_float`
    (a rational p/q as the double nearest it, so a float's exact reading gives that float back, bit for
    bit; SymPy's ``evalf()`` missed it by an ulp for 3 of 288 Gaussian entries)."""
    return np.array([exact_float(e) for e in M.flat()], dtype=dtype).reshape(M.rows, M.cols)


def to_exact(value, field: str = "value") -> sp.Expr:
    """Turn a number into an exact SymPy number: a TOML number, a Python or numpy one, a SymPy ``Float``.

    A float is read by its decimal repr, the shortest decimal that reads back as the same float
    (``0.5`` is 1/2, ``0.1`` is 1/10, ``1/3`` is 3333333333333333/10**16); a numpy float by that of
    ``float(x)``; a SymPy ``Float`` by the shortest decimal that reads back as it at its precision
    (:func:`float_text`). ``float(to_exact(x)) == x`` for every finite float x."""
    if isinstance(value, bool):
        raise SpecError(field, f"got a boolean {value!r}, expected a number", "write 0 or 1")
    if isinstance(value, numbers.Integral):
        return sp.Integer(int(value))
    if isinstance(value, numbers.Rational):           # fractions.Fraction: exact as it is
        return sp.Rational(int(value.numerator), int(value.denominator))
    if isinstance(value, WrittenFloat) and math.isfinite(value):
        return sp.Rational(value.text)
    if isinstance(value, (float, np.floating)):        # numpy floats too: their repr is np.float64(…)
        value = float(value)
        if not math.isfinite(value):
            raise SpecError(field, f"{value!r} is not a finite number", "use a finite number")
        return sp.Rational(repr(value))
    if isinstance(value, decimal.Decimal):    # a TOML float load_spec could not read as a float (1e-400)
        if float(value) == 0:                 # only one that a float reads as 0 underflowed (0.5 did not)
            _check_underflow(str(value), field)
        if value.is_finite() and math.isinf(float(value)):     # 1e400: overflowed
            _too_large(str(value), field)
        return to_exact(float(value), field)
    if isinstance(value, sp.Float) and value.is_finite:    # by the decimal it stands for, as a float by its repr
        return sp.Rational(float_text(value))
    if isinstance(value, sp.Basic):
        return value
    raise SpecError(field, f"expected a number, got {type(value).__name__} {value!r}",
                    "write a number or an expression string such as \"sqrt(2)*Delta\"")


def parse_expr(text: str, symbols: Mapping[str, sp.Symbol], field: str = "expression") -> sp.Expr:
    """Parse ``text`` into a SymPy expression without evaluating any code.

    >>> import sympy as sp
    >>> D = sp.Symbol("Delta", positive=True)
    >>> parse_expr("sqrt(2)*Delta/2 + 0.5", {"Delta": D})
    sqrt(2)*Delta/2 + 1/2
    """
    if symbols is None:
        symbols = {}
    elif not isinstance(symbols, Mapping):
        raise SpecError("symbols", f"needs a dict name → SymPy symbol, got {type(symbols).__name__} "
                        f"{short_repr(symbols)}",
                        "e.g. {\"Delta\": sp.Symbol(\"Delta\", positive=True)}")
    if not isinstance(text, str):
        value = to_exact(text, field)
        return check_real_finite(value, field) if isinstance(text, sp.Basic) else value
    if len(text) > _MAX_LEN:
        raise SpecError(field, f"expression is longer than {_MAX_LEN} characters", "shorten it")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise SpecError(field, f"cannot parse {text!r}: {exc.msg}",
                        _ALLOWED) from None
    except (ValueError, RecursionError, MemoryError) as exc:   # null bytes, too deeply nested
        raise SpecError(field, f"cannot parse {text!r}: {type(exc).__name__}",
                        "use a short expression without control characters or deep nesting") from None
    try:
        return _walk(tree.body, symbols, field, text)
    except RecursionError:
        raise SpecError(field, f"{text!r} is nested too deeply", "write a flatter expression") from None


def _walk(node, symbols, field, text):
    val = _walk1(node, symbols, field, text)
    return check_real_finite(val, field, text)


def _walk1(node, symbols, field, text):
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise SpecError(field, f"{node.value!r} in {text!r} is not a number", _ALLOWED)
        if node.value == 0 and isinstance(node.value, float):      # 1e-400 reads as 0.0: never silently
            _check_underflow(ast.get_source_segment(text.strip(), node) or "", field)
        if isinstance(node.value, float) and math.isinf(node.value):  # 1e400 reads as inf: name what was written
            _too_large(ast.get_source_segment(text.strip(), node) or text, field)
        if isinstance(node.value, float):     # the decimal as written, every digit (a float keeps about 17)
            try:
                return sp.Rational(fractions.Fraction(decimal.Decimal(ast.get_source_segment(text.strip(), node))))
            except (decimal.InvalidOperation, TypeError, ValueError):      # no source text: the float's repr
                pass
        return to_exact(node.value, field)
    if isinstance(node, ast.Name):
        if node.id in symbols:
            sym = symbols[node.id]
            if not isinstance(sym, sp.Expr):
                raise SpecError(f"symbols[{node.id!r}]", f"is {short_repr(sym)}, not a SymPy symbol",
                                f"map the name to its symbol, e.g. {{{node.id!r}: sp.Symbol({node.id!r})}}; "
                                "values are substituted later (values=...)")
            return sym
        if node.id.lower() in _NOT_FINITE:     # SymPy's and Python's names of infinity and NaN: no symbol to declare
            raise SpecError(field, f"{node.id!r} in {text!r} is {_NOT_FINITE[node.id.lower()]}, not a finite number",
                            f"give a finite number: 0, or between {fmt(DATA_MIN)} and {fmt(DATA_MAX)} in magnitude")
        raise SpecError(field, f"unknown symbol {node.id!r} in {text!r}",
                        f"declare it under [symbols] (declared: {sorted(symbols) or 'none'})")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        val = _walk(node.operand, symbols, field, text)
        return -val if isinstance(node.op, ast.USub) else val
    if isinstance(node, ast.BinOp):
        left = _walk(node.left, symbols, field, text)
        right = _walk(node.right, symbols, field, text)
        if isinstance(node.op, ast.Pow):
            if not right.is_number:
                raise SpecError(field, f"exponent {right} in {text!r} is not a number", "use a numeric exponent")
            if bool(abs(right) > _MAX_POW):
                raise SpecError(field, f"exponent {short_repr(right)} in {text!r} is too large",
                                f"keep |exponent| <= {_MAX_POW}")
            if left == 0 and bool(right < 0):
                raise SpecError(field, f"division by zero in {text!r} (0 to a negative power)", "fix the base")
            if left.is_negative and right.is_integer is False:     # (-2)**sqrt(2): its value is complex
                raise SpecError(field, f"{text!r} raises a negative base to a non-integer power, which is "
                                "imaginary or complex; only real numbers are allowed",
                                "write a real number (e.g. sqrt(x) needs x >= 0)")
            # the numeric factor of a symbolic base is bounded too: (((Delta*10**60)**64)**64)**64 would build
            # an integer of millions of digits
            base = left if left.is_number else left.as_coeff_Mul()[0]
            if base != 0:
                lg = log10_abs(base)
                if lg is not None and abs(lg * float(right)) > _MAX_LOG10:
                    raise SpecError(field, f"{text!r} is about 1e{int(lg * float(right))}, far outside the "
                                    "range of numbers in the data", "use numbers between 1e-6 and 1e6")
            return left ** right
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise SpecError(field, f"operator {type(node.op).__name__} in {text!r} is not allowed",
                            "use only + - * / **")
        if isinstance(node.op, ast.Div) and right == 0:
            raise SpecError(field, f"division by zero in {text!r}", "fix the denominator")
        return op(left, right)
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.keywords:
            raise SpecError(field, f"only sqrt(x) and Rational(p, q) may be called in {text!r}",
                            "remove the call")
        if node.func.id not in _ARITY:      # the name first: __import__('os') is refused as a call
            raise SpecError(field, f"function {node.func.id!r} is not allowed in {text!r}",
                            "only sqrt(x) and Rational(p, q) are allowed")
        args = [_walk(a, symbols, field, text) for a in node.args]
        if node.func.id == "sqrt" and len(args) == 1:
            if args[0].is_number and bool(args[0] < 0):
                raise SpecError(field, f"sqrt of the negative number {short_repr(args[0])} in {text!r} is imaginary; "
                                "only real numbers are allowed", "take sqrt of a non-negative number")
            return sp.sqrt(args[0])
        if node.func.id == "Rational" and len(args) == 2:
            if not all(a.is_Integer for a in args) or args[1] == 0:
                raise SpecError(field, f"Rational needs two integers, the second nonzero, in {text!r}",
                                "write Rational(p, q) with integers p and q != 0")
            return sp.Rational(args[0], args[1])
        raise SpecError(field, f"{node.func.id} takes {_ARITY[node.func.id]}, got {len(args)} in {text!r}",
                        "write sqrt(x) or Rational(p, q)")
    raise SpecError(field, f"{type(node).__name__} is not allowed in {text!r}", _ALLOWED)


def data_number(value, field: str, symbols: Mapping[str, sp.Symbol] | None = None, *, lo: float = DATA_MIN,
                hi: float = DATA_MAX) -> sp.Expr:
    """A data entry: a TOML number or an expression string, exact, real, finite and in range."""
    v = parse_expr(value, symbols or {}, field)         # a number: to_exact; real and finite, as parse_expr checks
    return check_magnitude(v, field, lo=lo, hi=hi, text=value)
