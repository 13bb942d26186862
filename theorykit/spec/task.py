"""Tasks: inputs ``X`` (d × P) and targets ``Y`` (p × P), datapoints as columns.

Entries are exact SymPy numbers or expressions in declared symbols (such as ``Delta``).
Built-in tasks:

* :func:`xor_margin` -- XoR in two dimensions plus a third, linearly separable coordinate
  with margin ``Delta`` (docs/theory.md#xor);
* :func:`contexts` -- one-hot items and contexts with structured output blocks (docs/theory.md#contexts).
"""
from __future__ import annotations

import ast
import numbers
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import sympy as sp

from ..errors import SpecError, as_command, keyword_errors
from ..io import counted
from .expr import FUNCTIONS, exact_floats, parse_expr, to_exact
from .fields import check_real_finite, choice, integer, short_repr, type_name
from .limits import Limits, enforce, human_bytes, lift, task_estimate
from .task_radicals import Radicals, radicals_of     # re-exported: their home before the size guards
from .values import check_assumptions, checked_value, parse_value  # noqa: F401 (re-exported: their home before)

__all__ = ["Task", "parse_value", "Radicals", "radicals_of", "xor_margin", "contexts", "structure", "hierarchy", "ring", "cross"]


@dataclass(frozen=True)
class Task:
    """A supervised task with exact entries.

    Entries are read as a spec file's are (:func:`~theorykit.spec.expr.to_exact`): integers as they are,
    floats by their decimal repr, the shortest decimal that reads back as the same float (``0.5`` is 1/2,
    ``0.1`` is 1/10, the float ``1/3`` is 3333333333333333/10**16), whether Python floats, numpy floats
    or float arrays; a SymPy ``Float`` by the shortest decimal that reads back as it at its precision
    (``sp.Float("0.1", 30)`` is 1/10), inside an expression too (``0.5*Delta`` is ``Delta/2``); strings
    by :func:`~theorykit.spec.expr.parse_expr`. :meth:`numeric` gives each float back bit for bit.

    Attributes
    ----------
    X, Y:
        SymPy matrices, inputs (d × P) and targets (p × P); column μ is datapoint μ.
    symbols:
        Name → SymPy symbol for every free symbol the entries may use.
    name:
        Short name (``"xor-margin"``, ``"contexts"`` or ``"custom"``).
    meta:
        Task parameters (e.g. ``{"n": 8, "k": 3}``), kept for reports.
    """

    X: sp.Matrix
    Y: sp.Matrix
    symbols: Mapping[str, sp.Symbol] = field(default_factory=dict)
    name: str = "custom"
    meta: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self):
        syms = _checked_symbols(self.symbols) if isinstance(self.symbols, Mapping) else {}
        X, Y = (_matrix_arg(M, f, syms) for M, f in ((self.X, "data.inputs"), (self.Y, "data.targets")))
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "Y", Y)
        if X.cols == 0 or X.rows == 0:
            raise SpecError("data.inputs", "the input matrix is empty", "give at least one datapoint with one feature")
        if Y.rows == 0:
            raise SpecError("data.targets", "the target matrix is empty", "give at least one target row")
        if X.cols != Y.cols:
            raise SpecError("data.targets", f"inputs have {counted(X.cols, 'datapoint')} (columns) but targets have {Y.cols}",
                            "datapoints are columns: give inputs as d × P and targets as p × P")
        if not isinstance(self.symbols, Mapping):
            raise SpecError("symbols", f"needs a dict name → SymPy symbol, got {type_name(self.symbols)} "
                            f"{short_repr(self.symbols)}", "e.g. symbols={\"Delta\": sp.Symbol(\"Delta\")}")
        free = self.free_symbols - set(self.symbols.values())
        if free:        # only Python reaches this (a spec file's names are checked as it is read): Python's fix
            names = sorted(map(str, free))
            raise SpecError("data", f"unknown symbols {names}: symbols= does not give them",
                            "pass each under its own name, e.g. tk.Task(X, Y, symbols={"
                            + ", ".join(f"{n!r}: {n}" for n in names) + "})")

    # -- sizes -----------------------------------------------------------------
    @property
    def P(self) -> int:
        """Number of datapoints."""
        return self.X.cols

    @property
    def d(self) -> int:
        """Input dimension."""
        return self.X.rows

    @property
    def p(self) -> int:
        """Output dimension."""
        return self.Y.rows

    @property
    def free_symbols(self) -> set:
        """The symbols the inputs and targets hold (a set of SymPy symbols)."""
        return self.X.free_symbols | self.Y.free_symbols

    @property
    def radicals(self) -> "Radicals":
        """The radicals in the entries and the degree bound they imply (see :class:`Radicals`)."""
        return radicals_of({"data.inputs": self.X, "data.targets": self.Y})

    def keyed(self, values: Mapping | None, check: bool = True) -> dict:
        """``values`` keyed by the task's symbols: a name (a ``str`` key) becomes its symbol; a string
        value is an expression for :func:`parse_expr` (SymPy's ``subs`` would ``eval`` it). A value its
        symbol's assumptions forbid is refused (unless ``check`` is False: the caller refuses it itself)."""
        checked_values_map(values, self.symbols)
        own = set(self.symbols.values())
        for k, v in (values or {}).items():     # Δ = −2, True, None, 1j, nan: refused as Derivation and simulate do
            if not check or ((k not in self.symbols) if isinstance(k, str) else (k not in own)):
                continue                        # a name no symbol has: reported by subs, or with the missing ones
            if isinstance(v, sp.Expr) and v.free_symbols:       # an expression in symbols (subs a → 2*b): no value
                check_assumptions(self.symbols.get(k, k), v, f"values[{k}]", v)
            else:
                checked_value(self, k, v)
        return {self.symbols.get(k, k) if isinstance(k, str) else k:
                parse_value(v, k) if isinstance(v, str) else v for k, v in (values or {}).items()}

    def subs(self, values: Mapping, check: bool = True) -> "Task":
        """The task with symbols replaced by values (names or symbols as keys). A key that is no symbol of
        the task (a misspelt ``"Delt"``, a ``sp.Symbol("Delta")`` of its own, a number) is a SpecError naming
        it: SymPy's ``subs`` would leave the task unchanged (or replace that number in the entries). ``check``:
        as :meth:`keyed` (False where the caller checked each value already, e.g. ``Derivation``)."""
        checked_values_map(values, self.symbols)
        own = set(self.symbols.values())
        for k in values or {}:
            if (k not in self.symbols) if isinstance(k, str) else (k not in own):
                alike = " (a SymPy Symbol of its own, not the task's: key it by name)" \
                    if isinstance(k, sp.Symbol) and str(k) in self.symbols else ""
                name = repr(str(k)) if isinstance(k, (str, sp.Symbol)) else repr(k)
                raise SpecError("values", f"the task has no symbol {name}{alike}; its symbols: "
                                          f"{sorted(self.symbols) or 'none'} (names are case-sensitive)",
                                f"key a value by one of those names, e.g. {{{_example(self.symbols)}}}"
                                if self.symbols else "drop it from the values: this task has no symbols")
        rep = self.keyed(values, check)
        return Task(self.X.subs(rep), self.Y.subs(rep), self.symbols, self.name, dict(self.meta))

    def value_map(self, values: Mapping | None = None, check: bool = True) -> dict:
        """``{symbol: value}`` for ``values`` keyed by name or symbol; every free symbol needs one. ``check``:
        as :meth:`keyed` (False where the caller checked each value already, e.g. ``Derivation.numeric_values``)."""
        vals = self.keyed(values, check)
        missing = self.free_symbols - set(vals)
        if missing:
            raise no_value_error(missing, self._unknown_names(values))
        return vals

    def numeric(self, values: Mapping | None = None, dtype=np.float64):
        """``(X, Y)`` as numpy arrays (a rational entry as the double nearest it); every symbol needs a value."""
        rep = self.keyed(values)        # not subs: a name no symbol has is reported with the missing ones below
        t = Task(self.X.subs(rep), self.Y.subs(rep), self.symbols, self.name, dict(self.meta)) if rep else self
        if t.free_symbols:
            raise no_value_error(t.free_symbols, self._unknown_names(values))
        return exact_floats(t.X, dtype), exact_floats(t.Y, dtype)

    def _unknown_names(self, values: Mapping | None) -> list:
        """The names among ``values``' keys that are no symbol of the task (a misspelt ``"delta"``)."""
        return sorted(k for k in (values or {}) if isinstance(k, str) and k not in self.symbols)

    def __repr__(self):     # one line: the dataclass's own printed both matrices, row by row (1,500 characters
        syms = f"; symbols {', '.join(self.symbols)}" if self.symbols else ""      # for contexts(4)); .X, .Y hold them
        return f"Task({self.name!r}, X {self.d} × {self.P}, Y {self.p} × {self.P}{syms})"

    def _repr_latex_(self):
        return f"$X = {sp.latex(self.X)},\\quad Y = {sp.latex(self.Y)}$"

    def latex(self) -> str:
        """The task as LaTeX (X and Y), as Jupyter shows it, without the dollar signs."""
        return self._repr_latex_().strip("$")


def _checked_symbols(symbols: Mapping) -> Mapping:
    """``symbols`` (name → SymPy symbol), each symbol under its own name. ``{"b": a}`` was taken: the
    task then answered ``values={"a": 1}`` with "no value for ['a']" and "fix: values={'a': 0.5}", took
    ``values={"b": 1}`` for a, and ``spec_to_toml`` wrote a file declaring b whose entries use a."""
    for name, sym in symbols.items():
        where = f"symbols[{name!r}]"
        if not isinstance(sym, sp.Symbol):
            raise SpecError(where, f"needs a SymPy symbol, got {type_name(sym)} {short_repr(sym)}",
                            f"map the name to its symbol, e.g. symbols={{{name!r}: sp.Symbol({name!r})}}; "
                            "values are substituted later (values=...)")
        if name != sym.name:
            raise SpecError(where, f"holds the symbol {sym.name!r} under another name, so values= and a spec "
                            "file would name it differently from the entries",
                            f"key it by its own name: symbols={{{sym.name!r}: {sym.name}}}")
    return symbols


def _matrix_arg(M, field: str, symbols: Mapping | None = None) -> sp.Matrix:
    """``M`` as a SymPy matrix of finite real entries. A numpy array must hold finite real numbers
    (NaN, ∞ and complex entries became nan, oo and I in the exact task); in lists, a string entry
    is an expression read by :func:`parse_expr` (never ``eval``) in ``symbols``, and every entry
    must end up a finite real number (``float("nan")``, ``sp.I``, ``True`` and ``None`` are refused,
    naming the entry)."""
    if isinstance(M, np.ndarray) and (M.dtype.kind == "c" or (M.dtype.kind == "f" and not np.isfinite(M).all())):
        raise SpecError(field, "holds NaN, infinite or complex numbers", "give finite real numbers")
    if _double_array(M):                   # each entry a Rational by to_exact: nothing left to check
        return _read_entries(M, field, symbols or {})
    if not isinstance(M, sp.MatrixBase):
        _refuse_flat(M, field)
        M = _read_entries(M, field, symbols or {})
    try:
        out = sp.Matrix(M)
    except (TypeError, ValueError, NotImplementedError, sp.SympifyError) as exc:
        raise SpecError(field, f"cannot be read as a matrix ({type_name(M)} {short_repr(M)}: {exc!s:.80})",
                        "give a 2-d array or nested lists, datapoints as columns") from None
    exact = {}                             # k → the entry with its SymPy Floats read exactly (to_exact)
    for k, e in enumerate(out.flat()):     # flat(): indexing entry by entry took seconds at n = 128
        if e.is_Rational:
            continue
        if e.is_Float and e.is_finite:
            exact[k] = to_exact(e)
            continue
        i, j = divmod(k, out.cols)
        where = f"{field}[{i}][{j}]"
        if not isinstance(e, sp.Expr):
            raise SpecError(where, f"needs a number, got {type_name(e)} {short_repr(e)}",
                            "give numbers, SymPy expressions or expression strings")
        check_real_finite(e, where)
        if e.has(sp.Float):                # 0.5*Delta: 1/2*Delta
            exact[k] = e.xreplace({f: to_exact(f) for f in e.atoms(sp.Float)})
    if exact:
        flat = out.flat()
        for k, e in exact.items():
            flat[k] = e
        out = sp.Matrix(out.rows, out.cols, flat)
    return out


def _double_array(M) -> bool:
    """A 2-d numpy array of floats of at most double precision (a long double is left to SymPy: a Float of
    its precision, made exact as any SymPy Float)."""
    return isinstance(M, np.ndarray) and M.dtype.kind == "f" and M.dtype.itemsize <= 8 and M.ndim == 2


def _refuse_flat(M, field: str) -> None:
    """A flat list (or 1-d array) of n ≥ 2 numbers is refused: SymPy reads it as one column, one datapoint
    of n features, where a user often means n datapoints of one feature. Datapoints are columns. One
    number (``[5]``) is taken: both readings are the same 1 × 1 matrix."""
    flat = ((isinstance(M, np.ndarray) and M.ndim == 1) or (
        isinstance(M, (list, tuple)) and len(M) > 0
        and not any(isinstance(v, (list, tuple, np.ndarray, sp.MatrixBase)) for v in M))) and len(M) != 1
    if flat:
        n = len(M)
        raise SpecError(field, f"is a flat list of {n} entries: one datapoint of {n} features, or {n} datapoints "
                        "of one feature?", f"datapoints are columns: give [[v1, …, v{n}]] for {n} datapoints of one "
                        f"feature, or [[v1], …, [v{n}]] for one datapoint (a numpy array: reshape it to 2-d)")


def _read_entries(M, field: str, symbols: Mapping):
    """Nested lists (or an object or string array) with each string entry parsed by
    :func:`parse_expr`, each finite float (Python's or numpy's; a 2-d float array too) read exactly by
    :func:`to_exact` and each ``bool`` or ``None`` refused; anything else is left to SymPy."""
    if isinstance(M, np.ndarray):
        if _double_array(M):       # finite (checked by the caller): each value read by to_exact once
            seen: dict = {}
            return sp.Matrix(*M.shape, [seen[v] if v in seen else seen.setdefault(v, to_exact(v, field))
                                        for v in M.ravel().tolist()])
        if M.dtype.kind not in "OUSb":
            return M
        M = M.tolist()
    if not isinstance(M, (list, tuple)):
        return M

    def entry(v, where):
        if isinstance(v, str):
            try:
                return parse_expr(v, symbols, where)
            except SpecError as exc:   # the file's fix ("declare it under [symbols]") said nothing to Python
                if not exc.problem.startswith("unknown symbol "):
                    raise
                name = exc.problem.split("'")[1]
                fix = (f"pass it under its own name, e.g. tk.Task(X, Y, symbols={{{name!r}: sp.Symbol({name!r})}})"
                       if field in ("data.inputs", "data.targets") else
                       f"put the symbol itself in the matrix, e.g. sp.Symbol({name!r}, positive=True), not a "
                       "string (a string holds numbers only, such as \"sqrt(2)\")")
                raise SpecError(exc.field, exc.problem, fix) from None
        if v is None or isinstance(v, (bool, np.bool_)):
            raise SpecError(where, f"needs a number, got {type_name(v)} {v!r}",
                            "give numbers, SymPy expressions or expression strings")
        if isinstance(v, (float, np.float16, np.float32, np.float64)) and np.isfinite(v):   # 0.5 is 1/2, as in a spec file
            return to_exact(v, where)
        return v

    return [[entry(v, f"{field}[{i}][{j}]") for j, v in enumerate(row)] if isinstance(row, (list, tuple))
            else entry(row, f"{field}[{i}]") for i, row in enumerate(M)]


def _n_arg(n, field: str = "n") -> int:
    """A number of items: a positive integer (numpy integers too), as an int."""
    return integer(n, field, lo=1, fix="a positive integer, e.g. n = 8", keyword_fix="a positive integer, e.g. n=8")


def _count_arg(v, field: str) -> int:
    """contexts' n or k (``field``: the spec file's ``data.n``/``data.k``): n ≥ 1, k ≥ 2 as a spec file's (one
    context leaves no residual for a context pathway, docs/theory.md#contexts: a task with none to learn)."""
    return integer(v, field, lo=2 if field == "data.k" else 1, fix="use e.g. n = 8, k = 3",
                   keyword_fix="use e.g. contexts(8, 3): n=8 items, k=3 contexts")


def as_task(source) -> "Task":
    """A :class:`Task`, or data ``(X, Y)`` (arrays or matrices, datapoints as columns) made into one,
    as :func:`theorykit.simulate` takes them."""
    if isinstance(source, tuple) and len(source) == 2:
        return Task(*source)
    return source


def checked_values_map(values, names=()):
    """``values`` if it is None or a mapping name → value, else a SpecError naming ``values``: a string
    ``"Delta=0.5"`` or a list ``[0.5]`` reached ``.items()`` (an AttributeError) in Task.subs, Task.numeric
    and the Derivation. ``names``: the task's symbol names, for the example in the fix."""
    if values is None or isinstance(values, Mapping):
        return values
    example = _example(names) or "'Delta': 0.5"
    raise SpecError("values", f"needs a dict name → value, got {type_name(values)} {short_repr(values)}",
                    f"e.g. values={{{example}}}")


def _example(names) -> str:
    """``'Delta': 0.5, …`` for the fix of an error about a task's values."""
    return ", ".join(f"{n!r}: 0.5" for n in sorted(map(str, names)))


def no_value_error(missing, unknown=()) -> SpecError:
    """The one error for symbols left without a value, with the fix in both dialects (the names are
    the missing symbols' own); ``unknown``: names given a value that are no symbol (a misspelling)."""
    names = sorted(map(str, missing))
    cli = " ".join(f"--set {n}=0.5" for n in names)
    given = f"; {list(unknown)} given a value but not a symbol of the task (names are case-sensitive)" if unknown else ""
    return SpecError("symbols", f"no value for {names}{given}",
                     f"pass values: values={{{_example(names)}}} in Python, {cli} on the command line")


# ---------------------------------------------------------------------------------
# XoR with a margin (docs/theory.md#xor)
# ---------------------------------------------------------------------------------
def xor_margin(delta: sp.Expr | float | None = None) -> Task:
    """XoR in the first two coordinates, separable with margin ``delta`` in the third.

    Datapoints (columns), in order: ``(1, 1, Δ)`` and ``(−1, −1, Δ)`` with label ``+1``,
    ``(1, −1, −Δ)`` and ``(−1, 1, −Δ)`` with label ``−1``: ``y = x1·x2`` and the third
    coordinate is ``+Δ`` on positive and ``−Δ`` on negative examples. ``Δ = 0`` is the
    classical XoR. With ``delta=None`` Δ is the nonnegative symbol ``Delta``. A string is an
    expression read as in a spec file (:func:`~theorykit.spec.expr.parse_expr`, never ``eval``), its
    names plain symbols: ``"2*x"``.
    """
    if delta is None:
        D = sp.Symbol("Delta", nonnegative=True)
    elif isinstance(delta, str):            # an expression such as "2*x", read as a spec file's (no eval)
        D = parse_expr(delta, _names_as_symbols(delta), "delta")
    else:                                   # numbers (numpy's too) exact, floats via their repr
        D = None if isinstance(delta, bool) else to_exact(delta, "delta")      # True: no "write 0 or 1"
    if not isinstance(D, sp.Expr):
        raise SpecError("delta", f"{short_repr(delta)} is not a number or an expression", "e.g. delta=0.5")
    check_real_finite(D, "delta")
    symbols = {s.name: s for s in D.free_symbols}      # Delta, or those of an expression such as 2*x
    pts = [(1, 1), (-1, -1), (1, -1), (-1, 1)]
    X = sp.Matrix([[a for a, b in pts], [b for a, b in pts], [D * a * b for a, b in pts]])
    Y = sp.Matrix([[a * b for a, b in pts]])
    return Task(X, Y, symbols, "xor-margin", {"Delta": str(D)})


def _names_as_symbols(text: str) -> dict:
    """A plain symbol for each name in the expression ``text`` (none if it does not parse, which
    :func:`~theorykit.spec.expr.parse_expr` then reports)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    return {n.id: sp.Symbol(n.id) for n in ast.walk(tree)
            if isinstance(n, ast.Name) and n.id not in FUNCTIONS}


# ---------------------------------------------------------------------------------
# Context tasks (docs/theory.md#contexts)
# ---------------------------------------------------------------------------------
def _size_guard(what: str, shape: str, fld: str, value: int, d: int, p: int, P: int, limits: "Limits | None",
                python: bool = True) -> None:
    """Refuse, before anything is allocated, a build of ``(d + p) × P`` exact entries over ``limits`` (by
    default :class:`~theorykit.spec.limits.Limits`: half this machine's memory, or THEORYKIT_MAX_BYTES; an
    hour, or THEORYKIT_MAX_SECONDS), by the estimate a spec file's ``[data]`` is checked with; the
    error names ``fld`` (whose value drives the size, quadratically) and the size (``shape``) it would build.
    ``python`` False: ``fld`` is a spec file's field, the fix in a spec file's words, Python's its ``keyword_fix``."""
    est = task_estimate(d, p, P, fld, value, 2.0)
    est.stage = f"building {what}"
    limits = limits if limits is not None else Limits()
    if not isinstance(limits, Limits):        # an int reached limits.max_bytes (an AttributeError)
        raise SpecError("limits", f"needs a theorykit.spec.limits.Limits, got {type_name(limits)} {short_repr(limits)}",
                        "e.g. limits=theorykit.spec.limits.Limits(max_bytes=2**30), or leave it out (the defaults)")
    try:
        enforce(est, limits)
    except SpecError as err:
        if limits.fixed:        # named THEORYKIT_MAX_BYTES, in the user's words wherever it is read
            raise SpecError(err.field, f"{what} would be {shape}, {human_bytes(est.bytes)} of exact entries: {err.problem}",
                            err.fix) from None
        how = err.fix.split(';')[0]
        raise SpecError(err.field, f"{what} would be {shape}, {human_bytes(est.bytes)} of exact entries: {err.problem}",
                        f"{how}; {lift(est, limits, python, 'build')}",
                        None if python else f"{how.replace(fld, '{key}')}; {lift(est, limits, True, 'build')}") from None


def _structure_rows(s, n: int) -> int:
    """Rows of a structure (a name, or a matrix or nested list), without building it: for the size guard."""
    if isinstance(s, str):
        return {"hierarchy": 2 * n - 1, "ring": 15, "cross": 15, "identity": n}.get(s, 1)
    rows = getattr(s, "rows", None)
    if isinstance(rows, int):                     # a SymPy matrix
        return rows
    shape = getattr(s, "shape", None)
    if isinstance(shape, tuple) and shape:        # a numpy array
        return int(shape[0])
    return len(s) if isinstance(s, (list, tuple)) else 1


#: the structures' keyword: from Python they refuse in Python's words (n=8); structure calls them as_command
STRUCTURE_KEYWORDS = {"n": "n"}


@keyword_errors(STRUCTURE_KEYWORDS)
def hierarchy(n: int = 8, *, limits: "Limits | None" = None) -> sp.Matrix:
    """Binary-tree features: for h = 1, 2, 4, …, n, h rows each on a block of n/h items.

    ``limits``: the size guard's (:class:`~theorykit.spec.limits.Limits`): the (2n − 1) × n matrix is
    refused, naming ``n``, before it is built when over them."""
    n = _n_arg(n)
    if n & (n - 1):
        raise SpecError("n", f"the hierarchy needs n a power of two, got n = {n}", "use n = 2, 4, 8, 16, …",
                        keyword_fix="use n=2, 4, 8, 16, …", keyword_problem=f"the hierarchy needs n a power of two, got n={n}")
    _size_guard("the hierarchy", f"{2 * n - 1} × {n} (features × items)", "n", n, n, n - 1, n, limits)
    return sp.Matrix([[1 if i * n // h <= j < (i + 1) * n // h else 0 for j in range(n)]
                      for h in (2 ** e for e in range(n.bit_length())) for i in range(h)])


@keyword_errors(STRUCTURE_KEYWORDS)
def cross(n: int = 8) -> sp.Matrix:
    """The hierarchy with its pair rows regrouped as {0,2}, {1,3}, {4,6}, {5,7}."""
    if _n_arg(n) != 8:
        raise SpecError("n", f"'cross' is defined for n = 8 items, got n = {n}", "use n = 8 or another structure",
                        keyword_fix="use n=8 or another structure", keyword_problem=f"'cross' is defined for n=8 items, got n={n}")
    H = hierarchy(8, limits=Limits(max_seconds=float("inf")))   # fixed, 15 × 8 as ring's: no time limit (the env's was)
    for r, (a, b) in enumerate([(0, 2), (1, 3), (4, 6), (5, 7)]):
        H[3 + r, :] = sp.Matrix([[1 if j in (a, b) else 0 for j in range(8)]])
    return H


RING_BUMP = ("0", "0.33", "0.66", "1", "1", "0.66", "0.33", "0")


@keyword_errors(STRUCTURE_KEYWORDS)
def ring(n: int = 8) -> sp.Matrix:
    """Row 0 all ones; row r ≥ 1 is the bump (0, .33, .66, 1, 1, .66, .33, 0) rotated left by r−1.

    The decimals 0.33 and 0.66 (not thirds) are those of the paper's experiments; they are
    kept exact as 33/100 and 66/100.
    """
    if _n_arg(n) != 8:
        raise SpecError("n", f"'ring' is defined for n = 8 items, got n = {n}", "use n = 8 or another structure",
                        keyword_fix="use n=8 or another structure", keyword_problem=f"'ring' is defined for n=8 items, got n={n}")
    b = [sp.Rational(v) for v in RING_BUMP]
    rows = [[1] * 8] + [[b[(j + r - 1) % 8] for j in range(8)] for r in range(1, 15)]
    return sp.Matrix(rows)


_STRUCTURES = {"hierarchy": as_command(hierarchy), "cross": as_command(cross), "ring": as_command(ring), "identity": sp.eye}


@keyword_errors(STRUCTURE_KEYWORDS)
def structure(spec, n: int, field: str | None = None, *, limits: "Limits | None" = None) -> sp.Matrix:
    """A structure matrix (features × items) from a name or an explicit matrix (a named one is
    size-guarded by ``limits``, as :func:`hierarchy`). ``field``: the spec file's field it comes from
    (:func:`contexts` passes ``data.common``), which every refusal then names; None, as you call it:
    a refusal names ``spec`` or ``n``, in Python's words (``tk.structure("ring", 4)`` as ``tk.ring(4)``)."""
    n = _n_arg(n)
    own = field or "spec"
    if isinstance(spec, str):
        choice(spec, own, sorted(_STRUCTURES), f"use one of {sorted(_STRUCTURES)} or a matrix",
               problem=f"unknown structure {spec!r}")
        try:
            if spec == "hierarchy":                      # the two that grow with n, size-guarded
                return _STRUCTURES["hierarchy"](n, limits=limits)
            if spec == "identity":
                _size_guard("the identity structure", f"{n} × {n} (features × items)", "n", n, n, 0, n, limits)
            return _STRUCTURES[spec](n)
        except SpecError as err:          # name the field the structure came from; from Python n, as it is
            if field is None:
                raise
            raise SpecError(field, err.problem, err.fix, err.keyword_fix, err.keyword_problem) from None  # both kept
    if spec is None or isinstance(spec, (numbers.Number, sp.Expr)):
        raise SpecError(own, f"expected a structure name or a matrix, got {type_name(spec)} {short_repr(spec)}",
                        f"use one of {sorted(_STRUCTURES)} or a features × items matrix")
    M = _matrix_arg(spec, own)
    if M.cols != n:
        raise SpecError(own, f"a given structure must have {counted(n, 'column')} (n={n} items), got {M.cols}",
                        "give a features × items matrix")
    return M


#: a spec file's [data] field → tk.contexts' keyword: contexts below raises in the spec file's words (the loader,
#: spec.files, calls it as_command), keyword_errors puts them in Python's for a Python caller
CONTEXTS_KEYWORDS = {"data.n": "n", "data.k": "k", "data.common": "common", "data.blocks": "blocks",
                     "data.context_scale": "context_scale"}


@keyword_errors(CONTEXTS_KEYWORDS)
def contexts(n: int = 8, k: int = 3, common="hierarchy", blocks: Sequence | str = "hierarchy",
             context_scale=1, *, limits: "Limits | None" = None) -> Task:
    """The context task: one-hot item (n) stacked on a scaled one-hot context (k ≥ 2, as in a spec file: with one
    context the context pathways have nothing to learn, docs/theory.md#contexts).

    Columns are context-major (context c holds columns c·n … c·n+n−1). Outputs: the
    ``common`` block in every context, then one block per context, equal to its structure
    in its own context and zero elsewhere.

    ``blocks`` is one structure for every context or a list of k structures. Section 4 of
    the paper uses ``blocks=["hierarchy", "ring", "cross"]``; Section 5 the hierarchy
    everywhere with ``context_scale`` 1, 1.1, 1.35 for k = 3, 4, 5. ``context_scale`` is a number, a string
    of numbers (``"sqrt(2)"``) or a SymPy expression: ``sp.Symbol("gamma", positive=True)`` leaves it symbolic.

    ``limits`` (:class:`~theorykit.spec.limits.Limits`, default: half this machine's memory, or
    THEORYKIT_MAX_BYTES, and an hour, or THEORYKIT_MAX_SECONDS): the task's size, (n + k + outputs) × n·k
    exact entries, is estimated before anything is built, as a spec file's ``[data]`` is, and refused
    over them, naming the larger of ``n`` and ``k``. Every refusal names the keyword (``blocks[2]``, with a fix in
    Python's words); a spec file's contexts task (``theorykit.spec.files``) names its ``data.`` fields.
    """
    n, k = (_count_arg(v, name) for name, v in (("data.n", n), ("data.k", k)))
    if isinstance(blocks, np.ndarray) and blocks.ndim == 1 and blocks.dtype.kind in "UO":   # names as an array
        blocks = list(blocks)
    per_context = isinstance(blocks, (list, tuple))      # else one structure for all k (below)
    out_rows = _structure_rows(common, n) + (sum(_structure_rows(b, n) for b in blocks) if per_context
                                             else k * _structure_rows(blocks, n))
    fld, value = ("data.k", k) if k > n else ("data.n", n)
    _size_guard(f"contexts(n={n}, k={k})", f"{n * k} datapoints × {n + k} inputs and {out_rows} outputs", fld, value,
                n + k, out_rows, n * k, limits, python=False)   # before any allocation
    if isinstance(blocks, str) or not isinstance(blocks, (list, tuple)):
        blocks = [blocks] * k
    if len(blocks) != k:
        raise SpecError("data.blocks", f"{counted(len(blocks), 'structure')} given for k = {k} contexts",
                        "give one per context, or one name for all", keyword_problem=f"{counted(len(blocks), 'structure')}"
                        f" given for k={k} contexts", keyword_fix="give one per context (a "
                        "list of k), or one for all: a name, or a matrix as sp.Matrix or a numpy array")
    try:
        scale = parse_expr(context_scale, {}, "data.context_scale")     # numbers (numpy's too) or "sqrt(2)"
    except SpecError as exc:        # a name in a string: a spec file declares it, in Python the symbol is passed
        name = exc.problem.split("'")[1] if isinstance(context_scale, str) and exc.problem.startswith(
            "unknown symbol ") else None
        raise SpecError(exc.field, exc.problem, f"declare it under [symbols], e.g. {name} = {{positive = true}}"
                        if name else exc.fix, f"pass the symbol itself, e.g. {{key}}=sp.Symbol({name!r}, positive=True) "
                        "(a string holds numbers only, such as \"sqrt(2)\")" if name else "a positive number, a string "
                        "of numbers or a SymPy expression, e.g. {key}=1.1, {key}=\"sqrt(2)\" or {key}=sp.Symbol("
                        "'gamma', positive=True)") from None
    if scale.is_number and not bool(scale > 0):                     # as a spec file's context_scale
        raise SpecError("data.context_scale", f"{scale} is not positive", "e.g. context_scale = 1.1",
                        keyword_fix="e.g. {key}=1.1")
    Hc = structure(common, n, "data.common", limits=limits)
    Hs = [structure(b, n, f"data.blocks[{i}]", limits=limits) for i, b in enumerate(blocks)]
    P = n * k
    rows = Hc.rows + sum(H.rows for H in Hs)
    # assembled as arrays (a SymPy matrix filled entry by entry takes seconds at n = 128)
    X = np.full((n + k, P), sp.S.Zero, dtype=object)
    Y = np.full((rows, P), sp.S.Zero, dtype=object)
    Hc_a = np.array(Hc.tolist(), dtype=object)
    Hs_a = [np.array(H.tolist(), dtype=object) for H in Hs]
    for c in range(k):
        cols = slice(c * n, (c + 1) * n)
        X[np.arange(n), np.arange(c * n, (c + 1) * n)] = sp.S.One
        X[n + c, cols] = scale
        Y[: Hc.rows, cols] = Hc_a
        off = Hc.rows + sum(H.rows for H in Hs[:c])
        Y[off: off + Hs[c].rows, cols] = Hs_a[c]
    Xm = sp.Matrix(n + k, P, X.ravel().tolist())
    Ym = sp.Matrix(rows, P, Y.ravel().tolist())
    meta = {"n": n, "k": k, "common": common if isinstance(common, str) else "matrix",
            "blocks": [b if isinstance(b, str) else "matrix" for b in blocks], "context_scale": str(scale)}
    # the symbols of a symbolic scale or structure (declared in the spec file's [symbols]) are the task's
    symbols = {s.name: s for s in Xm.free_symbols | Ym.free_symbols}
    return Task(Xm, Ym, symbols, "contexts", meta)
