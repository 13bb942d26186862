"""Field checks shared by every spec parser (pathway specs now, graph specs later).

Each helper checks one value read from a spec file and either returns it (converted) or
raises :class:`~theorykit.errors.SpecError` naming the field path (``pathways[2].hidden``,
``data.inputs[3][1]``), what is wrong and how to fix it. Parsers call them where they read a
field, so a field is checked once, in one way, wherever it appears.

Numbers in the data are exact (SymPy); they must be real, finite and, when they are plain
numbers, ``0`` or of magnitude in ``[DATA_MIN, DATA_MAX]`` (see :func:`theorykit.spec.expr.data_number`).
"""
from __future__ import annotations

import decimal
import difflib
import json
import math
import numbers
import re
import unicodedata
from typing import Iterable, Mapping

import sympy as sp

from ..errors import SpecError, nearest
from ..io import cut, figure_path      # figure_path: a figure's output path, checked where io writes one
from .ranges import LR_MAX, LR_MIN, LR_WHAT, MAX_SEED, SCALE_MAX, SCALE_MIN, SCALE_WHAT, SEED_WHAT

__all__ = ["DATA_MIN", "DATA_MAX", "NAME_MAX_LEN", "path", "figure_path", "table", "no_unknown_keys", "required", "entry", "integer",
           "real", "learning_rate", "init_scale", "seed_value", "choice", "loss_name", "loss_factor", "flow_tau", "label", "tex_label", "tex_text", "check_real_finite", "check_magnitude",
           "type_name", "file_field"]

#: smallest magnitude of a non-zero number in the data (inputs, targets, task parameters)
DATA_MIN = 1e-6
#: largest magnitude of a number in the data
DATA_MAX = 1e6
#: longest name (pathway, spec) accepted
NAME_MAX_LEN = 64
#: a TOML bare key (written without quotes in a dotted path)
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")



def fmt(x: float) -> str:
    """1e6 -> '1e6', 0.05 -> '0.05' (short, for messages)."""
    s = f"{x:g}"
    if "e" in s:
        m, e = s.split("e")
        s = f"{m}e{int(e)}"
    return s


_SCALE_FIX = (f"numbers in the data must be 0 or between {fmt(DATA_MIN)} and {fmt(DATA_MAX)} in magnitude: "
              "rescale the task (divide every input, or every target, by one common factor; "
              "the learning dynamics only change their time scale)")


def path(base: str, *parts) -> str:
    """``path("pathways", 2, "hidden") == "pathways[2].hidden"``; ints become indices."""
    out = base
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out


def file_field(option: str, path, key=None) -> str:
    """The field path of a value read from a file: ``--init-weights W.npz: key 'h1->output'``."""
    f = f"{option} {path}" if option else str(path)
    return f if key is None else f"{f}: key {key!r}"


_TYPE_NAMES = ((bool, "a boolean"), (numbers.Integral, "an integer"), (float, "a float"), (str, "a string"),
               ((list, tuple), "an array"), (Mapping, "a table"))


def type_name(v) -> str:
    """A TOML-ish name for the type of ``v``, for messages."""
    return next((name for t, name in _TYPE_NAMES if isinstance(v, t)), f"a {type(v).__name__}")


def short_repr(v, n: int = 60) -> str:
    return cut(repr(v), n, "...")


def table(value, field: str, fix: str) -> dict:
    """``value`` must be a table (dict)."""
    if not isinstance(value, Mapping):
        raise SpecError(field, f"must be a table, got {type_name(value)} {short_repr(value)}", fix)
    return dict(value)


def no_unknown_keys(tab: Mapping, allowed: Iterable[str], field: str, what: str = "") -> None:
    """Refuse keys of ``tab`` not in ``allowed`` (a misspelt key is never ignored). The error's field
    is the first unknown key's TOML path (``training.lrate``; a top-level key alone where ``field`` is
    ``"spec"``), the message lists every unknown key."""
    allowed = list(allowed)
    extra = [k for k in tab if k not in allowed]
    if extra:
        near = {str(k): difflib.get_close_matches(str(k), allowed, n=1, cutoff=0.75) for k in extra}
        guess = ", ".join(f"{m[0]!r} for {k!r}" for k, m in near.items() if m)
        key = str(extra[0]) if _BARE_KEY.fullmatch(str(extra[0])) else json.dumps(str(extra[0]))  # TOML quotes it
        raise SpecError(key if field == "spec" else path(field, key), f"unknown keys {sorted(map(str, extra))}{what}",
                        (f"did you mean {guess}? Otherwise " if guess else "") + f"use only {allowed}")


def required(tab: Mapping, key: str, field: str, fix: str):
    if key not in tab:
        raise SpecError(path(field, key), "missing", fix)
    return tab[key]


def entry(value, field: str, allowed: Iterable[str], needed: Iterable[str], fix: str) -> dict:
    """One table of an array of tables (``pathways[2]``, ``edges[0]``): a table, no key outside
    ``allowed`` and every key of ``needed`` (``fix``: what every entry needs)."""
    tab = table(value, field, f"write a [[{field.split('[')[0]}]] block")
    no_unknown_keys(tab, allowed, field)
    for key in needed:
        required(tab, key, field, fix)
    return tab


def integer(value, field: str, *, lo: int, hi: int | None = None, fix: str, keyword_fix: str | None = None) -> int:
    """An integer (not a boolean, not a float) in ``[lo, hi]``. ``keyword_fix``: the fix in Python's words,
    as :func:`real`'s."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise SpecError(field, f"needs an integer, got {type_name(value)} {short_repr(value)}", fix, keyword_fix)
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        rng = f"at least {lo}" if hi is None else f"between {lo} and {_bound(hi)}"
        raise SpecError(field, f"{short_repr(v)} is out of range: must be {rng}", fix, keyword_fix)
    return v


def _bound(n: int) -> str:
    """An integer bound as a reader takes it in: a power of two over 2^32 as ``2^62``, others as they are."""
    return f"2^{n.bit_length() - 1}" if n > 2 ** 32 and n & (n - 1) == 0 else str(n)


def real(value, field: str, *, lo: float, hi: float, fix: str, lo_open: bool = False, hi_open: bool = False,
         keyword_fix: str | None = None) -> float:
    """A finite real number (TOML integer or float, not a boolean) in ``[lo, hi]`` (``(lo, …`` if lo_open,
    ``…, hi)`` if hi_open). ``keyword_fix``: the fix in Python's words, where ``field`` is an option that a
    function takes as a keyword (:class:`~theorykit.errors.SpecError`)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, decimal.Decimal)):   # numpy numbers too
        raise SpecError(field, f"needs a number, got {type_name(value)} {short_repr(value)}", fix, keyword_fix)
    try:
        v = float(value)
    except OverflowError:
        v = math.inf
    except ValueError:            # a signalling NaN (Decimal("sNaN")) refuses float()
        v = math.nan
    if v == 0 and value != 0:     # a Decimal below the smallest float (load_spec keeps 1e-400 so)
        raise SpecError(field, f"{value} is too small (below the smallest float, about 1e-308)", fix, keyword_fix)
    if isinstance(value, decimal.Decimal) and value.is_finite() and math.isinf(v):    # 1e400, kept so too
        raise SpecError(field, f"{value} is too large (above the largest float, about 1e308)", fix, keyword_fix)
    if not math.isfinite(v):
        raise SpecError(field, f"{short_repr(value)} is not a finite number", fix, keyword_fix)
    if v < lo or v > hi or (lo_open and v == lo) or (hi_open and v == hi):
        left, right = "(" if lo_open else "[", ")" if hi_open or math.isinf(hi) else "]"    # infinity is no number here
        raise SpecError(field, f"{fmt(v)} is out of range {left}{fmt(lo)}, {fmt(hi)}{right}", fix, keyword_fix)
    return v


def learning_rate(value, field: str, example: str) -> float:
    """A learning rate, by the one rule of every entry point (a spec's ``training.lr``, ``--lr``, a
    sweep's ``lr=``, a checkpoint's metadata): a finite number in ``[LR_MIN, LR_MAX]``
    (:mod:`theorykit.spec.ranges`). ``example``: how it is written where it was read (``lr = 0.05``,
    ``--lr 0.05``); the fix is ``give LR_WHAT, e.g. example`` everywhere."""
    return real(value, field, lo=LR_MIN, hi=LR_MAX, fix=f"give {LR_WHAT}, e.g. {example}")


def init_scale(value, field: str, example: str) -> float:
    """An initial scale, ``a0`` or ``init_std``, by the one rule of every entry point (a spec's
    ``training.a0``/``init_std``, :class:`~theorykit.spec.gating.Training`, ``simulate(a0=…)``): a finite
    number in ``[SCALE_MIN, SCALE_MAX]`` (:mod:`theorykit.spec.ranges`); the fix ``give SCALE_WHAT, e.g. example``."""
    return real(value, field, lo=SCALE_MIN, hi=SCALE_MAX, fix=f"give {SCALE_WHAT}, e.g. {example}")


def seed_value(value, field: str, example: str) -> int:
    """A random seed, by the one rule of ``--seed`` and every ``seed=``: an integer in ``0 … MAX_SEED``
    (:mod:`theorykit.spec.ranges`; JAX's PRNGKey takes no other); the fix ``give SEED_WHAT, e.g. example``."""
    return integer(value, field, lo=0, hi=MAX_SEED, fix=f"give {SEED_WHAT}, e.g. {example}")


def choice(value, field: str, choices: Iterable[str], fix: str | None = None, problem: str | None = None) -> str:
    """One of ``choices`` (a string), else a SpecError naming ``field`` whose fix starts with the nearest
    choice (:func:`~theorykit.errors.nearest`: ``"did you mean 'closed-form'? Otherwise use one of …"``).
    ``problem``: the message's words (default ``'x' is not one of [...]``); ``fix``: default ``use one of [...]``."""
    choices = list(choices)
    if isinstance(value, str) and value in choices:
        return value
    fix, near = fix or f"use one of {choices}", nearest(value, choices)
    raise SpecError(field, problem or f"{short_repr(value)} is not one of {choices}",
                    f"did you mean {near!r}? Otherwise {fix}" if near else fix)


def loss_name(value, field: str = "loss", fix: str = 'use "mean" or "sum"') -> str:
    """The loss reduction: ``"sum"`` (½ Σ‖ŷ − y‖²) or ``"mean"`` (that over the P datapoints)."""
    return choice(value, field, ("mean", "sum"), fix, problem=f"{short_repr(value)} is not \"mean\" or \"sum\"")


def loss_factor(loss: str, P: int) -> int:
    """The loss over the mean loss (docs/theory.md, "Time, step size and loss scale"): P for a
    summed loss, 1 for a mean loss. Every rate and reported loss takes its factor from here, so a
    loss name other than the two is refused, not read as the mean."""
    return P if loss_name(loss) == "sum" else 1


def flow_tau(lr: float, loss: str, P: int) -> float:
    """The gradient flow's time constant in steps: 1/η for a mean loss, 1/(Pη) for a summed one."""
    return 1.0 / (lr * loss_factor(loss, P))


def label(value, field: str, fix: str) -> str:
    """A non-empty name of at most NAME_MAX_LEN printable characters (any script; no control characters)."""
    if not isinstance(value, str):
        raise SpecError(field, f"needs a string, got {type_name(value)} {short_repr(value)}", fix)
    if not value or not value.strip():
        raise SpecError(field, "is empty", fix)
    if len(value) > NAME_MAX_LEN:
        raise SpecError(field, f"is {len(value)} characters long, more than {NAME_MAX_LEN}", fix)
    bad = [c for c in value if unicodedata.category(c)[0] in "CZ" and c != " "]
    if bad:
        raise SpecError(field, f"contains control or separator characters {bad[:3]!r}",
                        "use letters, digits, spaces and punctuation only")
    return value


#: TeX's special characters (and the space and hyphen, which math mode would drop or make a minus),
#: as math-mode LaTeX that pdflatex, KaTeX and MathJax all read
_TEX_MATH = {"\\": r"\backslash{}", "{": r"\{", "}": r"\}", "#": r"\#", "$": r"\$", "%": r"\%", "&": r"\&",
             "_": r"\_", "^": r"\hat{}", "~": r"\tilde{}", " ": r"\ ", "-": r"\text{-}"}
_TEX_TEXT = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "#": r"\#", "$": r"\$", "%": r"\%", "&": r"\&",
             "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}",
             # not special, but pdflatex's default font encoding (OT1) sets them as ¡, ¿ and a dash in text:
             # an edge key input->h1 printed as input-¿h1
             "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
#: capital Greek letters TeX has no macro for: they look like Latin ones
_GREEK_AS_LATIN = {"ALPHA": "A", "BETA": "B", "EPSILON": "E", "ZETA": "Z", "ETA": "H", "IOTA": "I", "KAPPA": "K",
                   "MU": "M", "NU": "N", "OMICRON": "O", "RHO": "P", "TAU": "T", "CHI": "X"}


def _greek(c: str) -> str | None:
    """The math-mode macro of a Greek letter (α → \\alpha, Δ → \\Delta, ς → \\varsigma, Α → A), or None."""
    name = unicodedata.name(c, "")
    if not name.startswith(("GREEK SMALL LETTER ", "GREEK CAPITAL LETTER ")) or len(name.split()) > 4 + ("FINAL" in name):
        return None
    word = name.split()[-1].replace("LAMDA", "LAMBDA")
    if "CAPITAL" in name:
        return _GREEK_AS_LATIN.get(word, "\\" + word.capitalize())
    return "o" if word == "OMICRON" else "\\varsigma" if "FINAL" in name else "\\" + word.lower()


def tex_label(name) -> str:
    """A :func:`label` (a pathway's, a task's or a spec's name) as upright math-mode LaTeX,
    ``\\mathrm{...}`` with TeX's special characters escaped, Greek letters as their macros and other
    non-ASCII letters inside ``\\text{}``, so that a name such as ``"50% of h_1"`` or ``"Weg-ä α"``
    prints as written and cannot break the document around it."""
    def char(c):
        if c in _TEX_MATH:
            return _TEX_MATH[c]
        if c.isascii():
            return c
        g = _greek(c)
        return g + "{}" if g else r"\text{" + c + "}"
    return r"\mathrm{" + "".join(map(char, str(name))) + "}"


class Typeset:
    """Mixin of a result that Jupyter shows typeset, its ``_repr_latex_`` one ``$…$``: ``latex()`` is that
    LaTeX without the dollar signs (math mode), as a :class:`~theorykit.theory.modes.Mode`'s is."""

    def latex(self) -> str:
        """The LaTeX that Jupyter shows, without the dollar signs (math mode)."""
        return self._repr_latex_()[1:-1]


def tex_text(text) -> str:
    """Plain text (a note that may quote names, or write Σyx) as text-mode LaTeX: TeX's special
    characters escaped, Greek letters as math (pdflatex stops at a bare Σ), and "--" kept two hyphens."""
    def char(c):
        g = None if c.isascii() else _greek(c)
        return f"${g}$" if g else _TEX_TEXT.get(c, c)
    return re.sub("-(?=-)", "-{}", "".join(map(char, str(text))))


def tex_number(text) -> str:
    """A number as printed by Python (``repr`` or a format such as ``:.4g``) as LaTeX math, its exponent
    written as a power of ten: ``1e-07`` is ``10^{-7}``, ``1.235e+05`` is ``1.235 \\cdot 10^{5}``. In math
    mode ``1e-07`` typesets as the product 1·e minus 07 (a_0 = 1e − 07 in a derivation's document)."""
    text = str(text)
    m = re.fullmatch(r"(-?)(\d+(?:\.\d*)?)e([+-]?\d+)", text)
    if m is None:
        return text
    sign, mant, exp = m.group(1), m.group(2), int(m.group(3))
    return f"{sign}10^{{{exp}}}" if float(mant) == 1 else f"{sign}{mant} \\cdot 10^{{{exp}}}"


RESERVED_NODE_NAMES = ("input", "output")
EDGE_ARROW = "->"


def node_label(value, field: str, fix: str) -> str:
    """A :func:`label` that can name a hidden node (a pathway's or a graph's): not ``input`` or
    ``output``, which the graph reserves, and without ``->``, which joins the two ends of an edge key."""
    value = label(value, field, fix)
    if value in RESERVED_NODE_NAMES:
        raise SpecError(field, f"{value!r} is reserved for the network's own input and output",
                        "pick another name")
    if EDGE_ARROW in value:
        raise SpecError(field, f"{value!r} contains {EDGE_ARROW!r}, which joins the ends of an edge key",
                        f"drop the {EDGE_ARROW!r} (e.g. {value.replace(EDGE_ARROW, '_to_')!r})")
    return value


def check_real_finite(expr, field: str, text=None) -> sp.Expr:
    """Refuse imaginary, complex, infinite or undefined values (also inside symbolic expressions)."""
    what = f" {text!r}" if text is not None else ""
    if not isinstance(expr, sp.Basic):
        raise SpecError(field, f"expected a number, got {type_name(expr)}", "write a real number")
    if expr.has(sp.nan) or expr.has(sp.zoo) or expr.has(sp.oo) or expr.has(-sp.oo):
        raise SpecError(field, f"the value{what} is infinite or undefined", "write a finite real number")
    if expr.has(sp.I) or expr.is_real is False:
        raise SpecError(field, f"the value{what} is imaginary or complex; only real numbers are allowed",
                        "write a real number (e.g. sqrt(x) needs x >= 0)")
    return expr


def log10_abs(x: sp.Expr):
    """log10 |x| of a non-zero real number without overflowing (None if it cannot be evaluated)."""
    if x.is_Rational:
        p, q = abs(int(x.p)), int(x.q)
        return math.log10(p) - math.log10(q)
    try:
        v = sp.Abs(x).evalf(30)
        if v.is_zero:
            return -math.inf
        return float(sp.log(v, 10).evalf(15))
    except (TypeError, ValueError, OverflowError):
        return None


def check_magnitude(expr: sp.Expr, field: str, *, lo: float = DATA_MIN, hi: float = DATA_MAX, text=None,
                    fix: str = _SCALE_FIX) -> sp.Expr:
    """A number (no symbols) must be 0 or have ``lo <= |x| <= hi``; symbolic values pass."""
    if expr.free_symbols or expr == 0:
        return expr
    what = short_repr(text) if text is not None else "the value"
    lg = log10_abs(expr)
    if lg is None:
        raise SpecError(field, f"{what} cannot be evaluated to a real number", "write a real number")
    # a rational (every number a spec writes) is compared exactly: the logarithm's slack let
    # 1000000.000001 pass "at most 1e6"; the slack is for irrational values' rounding only
    exact = expr.is_Rational
    big = abs(expr) > sp.Rational(repr(float(hi))) if exact else lg > math.log10(hi) + 1e-12
    small = abs(expr) < sp.Rational(repr(float(lo))) if exact else lg < math.log10(lo) - 1e-12
    if big:
        shown = f"about 1e{int(lg)}" if lg > 15 else fmt(float(expr))
        shown = f"just over {fmt(hi)}" if shown == fmt(hi) else shown
        raise SpecError(field, f"{what} is too large ({shown}; at most {fmt(hi)} in magnitude)", fix)
    if small:
        shown = f"about 1e{int(math.floor(lg))}" if lg < -15 else fmt(float(expr))
        shown = f"just under {fmt(lo)}" if shown == fmt(lo) else shown
        raise SpecError(field, f"{what} is too small ({shown}; non-zero numbers need at least {fmt(lo)} in magnitude)",
                        fix + "; or write 0")
    return expr
