"""Spec files (TOML): the single source of a derivation and a simulation.

Layout::
    name = "xor-linear"

    [symbols]
    Delta = {positive = true}        # or: Delta = "positive", or Delta = {}

    [data]                           # either explicit matrices ...
    inputs  = [[1, -1], ["Delta", "-Delta"]]     # d × P, numbers or expression strings
    targets = [[1, -1]]                          # p × P
    # ... or a built-in task:
    # task = "xor-margin"            # parameters: Delta (number or expression)
    # task = "contexts"              # parameters: n, k, common, blocks, context_scale
    # reln = "linear"                # a built-in pathway set, instead of [[pathways]]

    [[pathways]]
    name = "positive"
    active = [1, 0]                  # one 0/1 gate per datapoint, or "all"
    inputs = "all"                   # or row indices
    outputs = "all"
    hidden = 64

    [training]
    lr = 0.05
    loss = "mean"                    # or "sum"
    a0 = 0.001

Expression strings are parsed by :func:`theorykit.spec.expr.parse_expr` (no eval).
Every error names the field and the fix.
"""
from __future__ import annotations

import difflib
import keyword
import numbers
import os
import re
from pathlib import Path
from typing import Mapping

import sympy as sp
from sympy.printing.str import StrPrinter

from . import fields as vf
from .fields import DATA_MAX
from .ranges import LR_MAX, LR_MIN, MAX_STEPS, SCALE_MAX, SCALE_MIN
from ..errors import SpecError, as_command
from ..io import counted
from .expr import SYMBOL_ASSUMPTIONS, data_number, parse_expr
from .gating import GDLNSpec, Pathway, Training, context_family, context_pathways, xor_relns
from .limits import Limits, enforce, task_estimate
from .task import Task, _structure_rows, xor_margin
from .task import contexts as _python_contexts
from .graph import EDGE_KEYS, NODE_KEYS, SCHEDULE_KEYS, GraphSpec, parse_graph
from .values import check_assumptions
from .toml_text import parse_toml

__all__ = ["example_path", "load_spec", "load_task", "spec_from_dict", "parse_assignment", "spec_to_toml", "check_values", "check_assumptions", "FIELDS",
           "MAX_SPEC_BYTES"]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")     # \Z: "$" matched before a final newline ("D\n")
_RESERVED = {"sqrt", "Rational", "t", "tau", "a_0", "lambda"}

#: keys each table admits (the parser refuses any other; docs/specs.md lists each one)
TOP_KEYS = ("name", "symbols", "data", "pathways", "training", "nodes", "edges", "schedule")
DATA_KEYS = ("inputs", "targets")
XOR_KEYS = ("task", "reln", "Delta", "hidden")
CONTEXTS_KEYS = ("task", "reln", "n", "k", "common", "blocks", "context_scale", "hidden")
PATHWAY_KEYS = ("name", "active", "inputs", "outputs", "hidden", "depth")
TRAINING_KEYS = ("lr", "loss", "a0", "init_std", "steps")

#: every field the parser accepts, as written in docs/specs.md (a test keeps the two in step)
FIELDS = (["name", "symbols.NAME", "symbols.NAME.ASSUMPTION", "data.task"]
          + [f"data.{k}" for k in DATA_KEYS]
          + sorted({f"data.{k}" for k in XOR_KEYS + CONTEXTS_KEYS} - {"data.task"})
          + [f"pathways[].{k}" for k in PATHWAY_KEYS] + [f"training.{k}" for k in TRAINING_KEYS]
          + [f"nodes[].{k}" for k in NODE_KEYS] + [f"edges[].{k}" for k in EDGE_KEYS]
          + [f"schedule[].{k}" for k in SCHEDULE_KEYS])

#: largest spec file read (bytes)
MAX_SPEC_BYTES = 16 << 20
#: training settings: (low, high) of each number
TRAINING_RANGES = {"lr": (LR_MIN, LR_MAX), "a0": (SCALE_MIN, SCALE_MAX), "init_std": (SCALE_MIN, SCALE_MAX)}
#: contexts task: largest n and k before the size estimate
MAX_ITEMS = 1 << 20


def load_spec(path, limits: Limits | None = None) -> GDLNSpec:
    """Read a TOML spec file (checked against ``limits``, by default :class:`~theorykit.spec.limits.Limits`)."""
    return spec_from_dict(read_toml(path), default_name=Path(path).stem, limits=limits)


def load_task(path, limits: Limits | None = None) -> tuple:
    """``(task, training)`` from a spec file's ``[data]``, ``[symbols]`` and ``[training]``: the file
    :func:`theorykit.predict_reln` and ``theorykit predict`` read, which needs no pathways (any it
    has are not read). The fields are checked as :func:`load_spec` checks them.

    >>> task, training = load_task(example_path("predict/xor_data.toml"))
    >>> task.symbols, training.lr
    ({'Delta': Delta}, 0.05)
    """
    task, training, _name = task_file(read_toml(path), limits)
    return task, training


def task_file(data: Mapping, limits: Limits | None = None) -> tuple:
    """``(task, training, name or None)`` of a parsed spec file (:func:`read_toml`): what
    :func:`load_task` returns, and the name ``theorykit predict`` writes into its prediction."""
    vf.no_unknown_keys(data, TOP_KEYS, "spec", " at the top level")     # a misspelt table is never ignored
    name = vf.label(data["name"], "name", "name = \"my-spec\" (at most 64 printable characters)") \
        if "name" in data else None
    return task_of(data, limits or Limits()), _training(data.get("training")), name


def read_toml(path) -> dict:
    """The TOML document of the spec file ``path``, read with the spec files' checks (size, TOML
    syntax, nesting), not yet parsed as a spec."""
    if not isinstance(path, (str, os.PathLike)):    # None or a dict reached pathlib's TypeError
        fix = ("a dict is read by tk.spec_from_dict(d)" if isinstance(path, Mapping) else
               "it is a spec already: use it as it is (its task and training: spec.task, spec.training)" if isinstance(path, (GDLNSpec, GraphSpec)) else
               "e.g. tk.load_spec(\"examples/xor_linear.toml\")")
        raise SpecError("spec", f"expected the path of a .toml spec file, got {vf.type_name(path)} "
                                f"{vf.short_repr(path)}", fix)
    path = Path(path)
    too_large = "keep large data out of the spec"
    try:
        size = path.stat().st_size
        if size > MAX_SPEC_BYTES:
            raise SpecError("spec", f"{path} is {size} bytes, larger than the {MAX_SPEC_BYTES} a spec may be", too_large)
        with open(path, "rb") as f:     # at most one byte more than a spec may have: /dev/zero, a device, a
            raw = f.read(MAX_SPEC_BYTES + 1)    # pipe, report no size and would be read without end
        if len(raw) > MAX_SPEC_BYTES:
            raise SpecError("spec", f"{path} holds more than the {MAX_SPEC_BYTES} bytes a spec may have (a device or "
                                    "a pipe without end?)", too_large + "; give a spec file")
    except FileNotFoundError:
        raise SpecError("spec", f"no such file: {path}", "give the path of a .toml spec" + _installed_example(path)) \
            from None
    except OSError as exc:
        raise SpecError("spec", f"cannot read {path}: {exc.strerror or exc}", "give the path of a readable .toml file") \
            from None
    except UnicodeEncodeError:      # a lone surrogate (\ud800) in a Python caller's string, or a hand-edited record's
        raise SpecError("spec", f"{ascii(str(path))} holds a character no file name can hold (a lone surrogate)",
                        "give the path of a .toml spec") from None
    return parse_toml(raw, path)


def _symbols(table) -> dict:
    if table is None:
        return {}
    table = vf.table(table, "symbols", "write [symbols] then Delta = {positive = true}")
    out = {}
    for name, assum in table.items():
        f = f"symbols.{name}"
        if not _NAME.match(name) or name in _RESERVED:
            raise SpecError(vf.path("symbols", repr(name)) if not _NAME.match(name) else f,
                            f"{name!r} is not a usable symbol name",
                            f"use an ASCII letter then letters, digits or _, not one of {sorted(_RESERVED)}")
        if keyword.iskeyword(name):
            raise SpecError(f, f"{name!r} is a Python keyword, which an expression cannot use as a name",
                            f"rename it (e.g. {name}_)")
        if isinstance(assum, str):
            assum = {a.strip(): True for a in assum.split(",") if a.strip()}
        if not isinstance(assum, dict):
            raise SpecError(f, f"expected a table of assumptions, got {vf.type_name(assum)}",
                            "e.g. Delta = {positive = true}")
        kw = {}
        for k, v in assum.items():
            vf.choice(k, f"{f}.{k}", SYMBOL_ASSUMPTIONS, problem=f"unknown assumption {k!r}")
            if not isinstance(v, bool):
                raise SpecError(f"{f}.{k}", f"needs true or false, got {vf.type_name(v)}", "write positive = true")
            kw[k] = v
        try:
            out[name] = sp.Symbol(name, **kw)
        except Exception:  # inconsistent assumptions
            raise SpecError(f, f"inconsistent assumptions {kw}", "drop the contradictory ones") from None
    return out


def _rows(rows, field):
    if isinstance(rows, list) and rows and not any(isinstance(r, (list, dict)) for r in rows):
        # one row written without the outer brackets: inputs = [1, -1, 1, -1]
        raise SpecError(field, f"is one row, not a list of rows: got {vf.short_repr(rows)}",
                        f"write it as a d × P array, one list per row: {field.split('.')[-1]} = "
                        f"{vf.short_repr([rows])}")
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
        bad = next((i for i, r in enumerate(rows) if not isinstance(r, list)), None) if isinstance(rows, list) else None
        got = ("an empty array" if rows == [] else f"{vf.type_name(rows)} {vf.short_repr(rows)}" if bad is None
               else f"a row {bad} that is {vf.type_name(rows[bad])} {vf.short_repr(rows[bad])}")
        raise SpecError(field, f"must be a non-empty list of rows (lists), got {got}",
                        "write e.g. [[1, -1], [0, 1]]")
    width = len(rows[0])
    if width == 0:
        raise SpecError(field + "[0]", "the row is empty", "give at least one datapoint (column)")
    for i, r in enumerate(rows):
        if len(r) != width:
            raise SpecError(f"{field}[{i}]", f"has {len(r)} entries, row 0 has {width}",
                            "every row needs one entry per datapoint")
    return len(rows), width


def _matrix(rows, symbols, field) -> sp.Matrix:
    _rows(rows, field)
    # the common case, small integers (0/1 data, ±1 targets), needs no parsing: each is exact, real,
    # finite and in range by construction; anything else goes through data_number entry by entry
    if all(type(v) is int and -DATA_MAX <= v <= DATA_MAX for r in rows for v in r):
        return sp.Matrix(len(rows), len(rows[0]) if rows else 0, [v for r in rows for v in r])
    return sp.Matrix([[data_number(v, f"{field}[{i}][{j}]", symbols) for j, v in enumerate(r)]
                      for i, r in enumerate(rows)])


#: what a built-in task's number field takes, for the fix of a value that is none (true: "write 0 or 1" misled)
PARAM_TAKES = {"Delta": "the margin: a number, or an expression string in declared [symbols], e.g. Delta = 0.5; "
                        "leave it out for the symbol Delta",
               "context_scale": "the context one-hot's scale: a positive number or an expression string, "
                                "e.g. context_scale = 1.1 or context_scale = \"sqrt(2)\""}


def _param(data, key, symbols, default):
    if key not in data:
        return default
    if isinstance(data[key], bool):
        raise SpecError(f"data.{key}", f"got a boolean {str(data[key]).lower()}, expected a number", PARAM_TAKES[key])
    return data_number(data[key], f"data.{key}", symbols)


def _structure_arg(v, symbols, field, n):
    if isinstance(v, str):
        return vf.choice(v, field, ["hierarchy", "ring", "cross", "identity"],
                         "use \"hierarchy\", \"ring\", \"cross\" or \"identity\", or an explicit matrix")
    if isinstance(v, list) and v and all(isinstance(r, list) for r in v):
        _r, cols = _rows(v, field)
        if cols != n:
            raise SpecError(field, f"an explicit structure needs {counted(n, 'column')} (n = {n} items), got {cols}",
                            "give a features × items matrix")
        return _matrix(v, symbols, field)
    raise SpecError(field, f"expected a structure name or a matrix, got {vf.type_name(v)}",
                    "write \"hierarchy\" or e.g. [[1, 0], [0, 1]]")


#: tk.contexts as a spec file's task builds it: its refusals name the file's fields (data.blocks[2], data.context_scale)
contexts = as_command(_python_contexts)


def task_of(data: Mapping, limits: Limits) -> Task:
    """The task of a parsed spec: its ``[data]``, with the ``[symbols]`` it declares."""
    symbols = _symbols(data.get("symbols"))
    task = _task(data.get("data"), symbols, limits)
    return Task(task.X, task.Y, {**task.symbols, **symbols}, task.name, task.meta) if symbols else task


def _task(data, symbols, limits):
    if data is None:
        raise SpecError("data", "missing", "add a [data] table with inputs/targets or task = \"...\"")
    data = vf.table(data, "data", "add a [data] table with inputs/targets or task = \"...\"")
    name = data.get("task")
    if name is None:
        vf.no_unknown_keys(data, DATA_KEYS, "data", " (without task = ...)")
        for key in DATA_KEYS:
            vf.required(data, key, "data", "give inputs and targets as nested lists, or task = \"...\"")
        d, P = _rows(data["inputs"], "data.inputs")
        p, _ = _rows(data["targets"], "data.targets")
        enforce(task_estimate(d, p, P, "data.inputs"), limits)
        return Task(_matrix(data["inputs"], symbols, "data.inputs"), _matrix(data["targets"], symbols, "data.targets"),
                    symbols)
    if name == "xor-margin":
        vf.no_unknown_keys(data, XOR_KEYS, "data", " for task xor-margin")
        return xor_margin(_param(data, "Delta", symbols, symbols.get("Delta")))   # task_of adds [symbols]
    if name == "contexts":
        vf.no_unknown_keys(data, CONTEXTS_KEYS, "data", " for task contexts")
        n = vf.integer(data.get("n", 8), "data.n", lo=1, hi=MAX_ITEMS, fix="items: a positive integer, e.g. n = 8")
        k = vf.integer(data.get("k", 3), "data.k", lo=2, hi=MAX_ITEMS, fix="contexts: an integer >= 2, e.g. k = 3")
        common = data.get("common", "hierarchy")
        blocks = data.get("blocks", "hierarchy")
        named = isinstance(blocks, list) and blocks and all(isinstance(b, str) for b in blocks)
        # size first, before any matrix is built
        brows = sum(_structure_rows(b, n) for b in blocks) if named else k * _structure_rows(blocks, n)
        p = _structure_rows(common, n) + brows
        enforce(task_estimate(n + k, p, n * k, "data.n", n, 2.0), limits)
        common = _structure_arg(common, symbols, "data.common", n)
        if named:
            if len(blocks) != k:
                raise SpecError("data.blocks", f"{counted(len(blocks), 'structure')} given for k = {k} contexts",
                                "give one per context, or one name for all")
            blocks = [_structure_arg(b, symbols, f"data.blocks[{i}]", n) for i, b in enumerate(blocks)]
        else:
            blocks = _structure_arg(blocks, symbols, "data.blocks", n)
        # contexts() refuses a scale that is not positive, naming data.context_scale
        return contexts(n, k, common, blocks, _param(data, "context_scale", symbols, sp.Integer(1)), limits=limits)
    vf.choice(name, "data.task", ("xor-margin", "contexts"), "use \"xor-margin\" or \"contexts\", or give inputs/targets",
              problem=f"unknown task {name!r}" if isinstance(name, str) else f"needs a string, got {vf.type_name(name)}")


def _builtin_pathways(data, task):
    reln = data.get("reln")
    if task.name == "xor-margin":
        sets = {"linear": 2, "xor": 4}
        vf.choice(reln, "data.reln", sorted(sets), f"use one of {sorted(sets)} for xor-margin")
        hidden = vf.integer(data.get("hidden", 128), "data.hidden", lo=4,     # xor_relns builds both sets
                            fix=f"the total width, split over the {sets[reln]} pathways: an integer >= 4")
        return xor_relns(hidden)[reln]
    if task.name == "contexts":
        k = task.meta["k"]
        hidden = vf.integer(data.get("hidden", 100), "data.hidden", lo=1, fix="hidden units per pathway, e.g. 100")
        sizes = {"all": range(1, k), "common": [], "double": [k - 1], "single": [1]}    # of each set's context subsets
        vf.choice(reln, "data.reln", list(sizes), f"use one of {list(sizes)} for contexts")
        n_paths = 1 + {"double": k, "single": k, "all": 2 ** k - 2, "common": 0}[reln]     # with the common one
        if n_paths > 256:
            raise SpecError("data.reln", f"reln = \"{reln}\" with k = {k} contexts makes {n_paths} pathways "
                            "(more than 256)", "use fewer contexts" + (" or reln = \"double\" or \"single\""
                                                                       if reln == "all" else ""))
        return context_pathways(task.meta["n"], k, [S for r in sizes[reln] for S in context_family(k, r)],
                                hidden=hidden)
    raise SpecError("data.reln", "built-in pathway sets exist only for built-in tasks", "declare [[pathways]]")


def _pathways(items, data, task):
    if items is None:
        if isinstance(data, dict) and "reln" in data:
            return _builtin_pathways(data, task)
        raise SpecError("pathways", "missing", "add [[pathways]] tables, or reln = \"...\" under [data] for a built-in "
                        "task; a spec of data and training alone is predict's: theorykit predict SPEC.toml --hidden 128 "
                        "--out PRED.toml writes the ReLN it predicts as a spec with [[pathways]]")
    if isinstance(data, dict) and "reln" in data:
        raise SpecError("data.reln", "given together with [[pathways]]", "keep one: the built-in set or your pathways")
    if not isinstance(items, list) or not items:
        raise SpecError("pathways", "must be a non-empty array of tables", "write [[pathways]] blocks")
    out = []
    seen = {}
    for i, it in enumerate(items):
        f = f"pathways[{i}]"
        it = vf.entry(it, f, PATHWAY_KEYS, ("name", "active"), "every pathway needs a name and its active gates")
        name = vf.node_label(it["name"], f"{f}.name", "name = \"common\" (at most 64 printable characters)")
        if name in seen:
            raise SpecError(f"{f}.name", f"{name!r} is also the name of pathways[{seen[name]}]",
                            "give each pathway its own name")
        seen[name] = i
        hidden = vf.integer(it.get("hidden", 16), f"{f}.hidden", lo=1, hi=2 ** 62,
                            fix="a positive whole number of hidden units, e.g. hidden = 32")
        depth = vf.integer(it.get("depth", 2), f"{f}.depth", lo=2, hi=3, fix="use 2 (one hidden layer) or 3")
        act = tuple(it["active"]) if isinstance(it["active"], list) else it["active"]
        out.append(Pathway(name, act, it.get("inputs", "all"), it.get("outputs", "all"),
                           hidden, depth).resolve(task, f))
    return out


def _training(table) -> Training:
    if table is None:
        return Training()
    table = vf.table(table, "training", "write [training] then lr = 0.05")
    vf.no_unknown_keys(table, TRAINING_KEYS, "training")
    kw = {}
    if "lr" in table:
        kw["lr"] = vf.learning_rate(table["lr"], "training.lr", "lr = 0.05")
    for key, example in (("a0", "a0 = 0.001"), ("init_std", "init_std = 0.01")):
        if key in table:
            kw[key] = vf.init_scale(table[key], f"training.{key}", example)
    if "steps" in table:
        kw["steps"] = vf.integer(table["steps"], "training.steps", lo=1, hi=MAX_STEPS,
                                 fix=f"a positive integer (at most {vf.fmt(MAX_STEPS)}), e.g. steps = 2000")
    if "loss" in table:
        kw["loss"] = vf.loss_name(table["loss"], "training.loss", "write loss = \"mean\" or \"sum\"")
    return Training(**kw)


def spec_from_dict(data: Mapping, default_name: str = "spec", limits: Limits | None = None):
    """Build a :class:`GDLNSpec` (pathway form) or a :class:`~theorykit.spec.graph.GraphSpec` (with
    ``[[nodes]]`` and ``[[edges]]``) from parsed TOML (a dict)."""
    if not isinstance(data, Mapping):
        raise SpecError("spec", f"must be a table (a dict of the spec file's tables), got {vf.type_name(data)} "
                                f"{vf.short_repr(data)}",
                        "a path is read by tk.load_spec(path); a dict is e.g. {'data': {'task': 'xor-margin'}, "
                        "'pathways': [...]} (docs/specs.md)" if isinstance(data, (str, os.PathLike)) else
                        "give e.g. {'data': {'task': 'xor-margin'}, 'pathways': [...]} (docs/specs.md)")
    vf.no_unknown_keys(data, TOP_KEYS, "spec", " at the top level")
    limits = limits or Limits()
    name = vf.label(data.get("name", default_name) if "name" in data else (default_name or "spec")[:64] or "spec",
                    "name", "name = \"my-spec\" (at most 64 printable characters)")
    task = task_of(data, limits)
    if any(k in data for k in ("nodes", "edges", "schedule")):
        if "pathways" in data or (isinstance(data.get("data"), dict) and "reln" in data["data"]):
            raise SpecError("pathways", "a spec gives either [[pathways]] (or reln) or a graph ([[nodes]], [[edges]])",
                            "keep one of the two forms")
        return parse_graph(task, data.get("nodes"), data.get("edges"), data.get("schedule"),
                           _training(data.get("training")), name)
    pathways = _pathways(data.get("pathways"), data.get("data"), task)
    return GDLNSpec(task, tuple(pathways), _training(data.get("training")), name)


def check_values(spec: GDLNSpec, values: Mapping, given: Mapping | None = None) -> None:
    """Refuse symbol values that break a symbol's assumptions or make a data entry complex, infinite or
    out of range.

    ``values``: symbol → value; ``given``: symbol → the text the user wrote (for messages).
    A bad entry is reported as ``--set NAME``, NAME the symbol whose value alone breaks it, with the
    entry's field path; when only the values together break it, as the entry's field."""
    if not values:
        return
    given = given or {}
    rep = spec.task.keyed(values, check=False)      # refused here, naming --set
    for sym, v in rep.items():
        check_assumptions(sym, v, f"--set {sym}", given.get(sym, v))

    def check(e, sub, where):
        val = e.subs(sub)
        vf.check_real_finite(val, where, where)
        vf.check_magnitude(val, where, text=where)

    for mname, M in (("inputs", spec.task.X), ("targets", spec.task.Y)):
        for i in range(M.rows):
            for j in range(M.cols):
                e = M[i, j]
                used = sorted(e.free_symbols & set(rep), key=str)
                if not used:
                    continue
                where = f"data.{mname}[{i}][{j}] = {e}"
                try:
                    check(e, rep, where)
                except SpecError as err:
                    # blame the symbol whose value alone breaks the entry (a in a/b is blameless when b = 0)
                    for sym in used:
                        try:
                            check(e, {sym: rep[sym]}, where)
                        except SpecError as one:
                            raise SpecError(f"--set {sym}", f"with {sym} = {given.get(sym, rep[sym])}: {one.problem}",
                                            one.fix) from None
                    shown = ", ".join(f"{s} = {given.get(s, rep[s])}" for s in used)
                    raise SpecError(f"data.{mname}[{i}][{j}]", f"with {shown}: {err.problem}",
                                    err.fix + " (or change the --set values)") from None


VALUE_FIX = "a value is a number or an expression of numbers, such as 0.5 or sqrt(2)/2"


def parse_assignment(text: str, symbols: Mapping[str, sp.Symbol]) -> tuple:
    """Parse a ``NAME=VALUE`` command-line assignment (VALUE: a number or safe expression), checked against
    the symbol's assumptions."""
    if "=" not in text:
        raise SpecError("--set", f"{text!r} is not NAME=VALUE", "write e.g. --set Delta=0.5")
    name, value = (s.strip() for s in text.split("=", 1))
    if name not in symbols:
        near = difflib.get_close_matches(name, sorted(symbols), n=1)
        raise SpecError("--set", f"unknown symbol {name!r}", (f"did you mean --set {near[0]}={value}? " if near else "")
                        + f"the spec declares {sorted(symbols) or 'no symbols'}")
    try:
        val = parse_expr(value, {}, f"--set {name}")
    except SpecError as exc:    # a value names no symbol: "declare it under [symbols]" would mislead
        if exc.problem.startswith("unknown symbol"):
            raise SpecError(exc.field, exc.problem, VALUE_FIX) from None
        raise
    vf.check_magnitude(val, f"--set {name}", text=value)
    check_assumptions(symbols[name], val, f"--set {name}", value)
    return symbols[name], val


_TOML_ESCAPES = {"\\": "\\\\", '"': '\\"', "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _toml_str(v: str) -> str:
    """A TOML basic string: quotes and backslashes escaped, and every control character too (TOML
    forbids them raw), so any name read from a spec is written back readable."""
    return '"' + "".join(_TOML_ESCAPES.get(c) or (f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else c)
                         for c in v) + '"'


class _SpecPrinter(StrPrinter):
    """``str`` of an expression, in the language :func:`~theorykit.spec.expr.parse_expr` reads: SymPy
    writes ``sqrt(D**2)`` of a real D as ``Abs(D)``, which a spec may not call, so it is written back
    as ``sqrt((D)**2)`` (parsed again into the same ``Abs(D)``)."""

    def _print_Abs(self, expr):
        return f"sqrt(({self._print(expr.args[0])})**2)"


def _toml_value(v) -> str:
    if isinstance(v, str):
        return _toml_str(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, sp.Basic):
        return _toml_value(_SpecPrinter().doprint(v)) if not v.is_Integer else str(int(v))
    if isinstance(v, numbers.Integral):       # numpy integers too (their repr is not TOML)
        return str(int(v))
    if isinstance(v, numbers.Real):           # numpy floats: repr(np.float64(0.05)) is "np.float64(0.05)"
        return repr(float(v))
    return repr(v)


def _check_writable(task: Task) -> None:
    """Refuse a task whose data a spec file cannot hold: a number (no symbols) that is not 0 and not
    within [DATA_MIN, DATA_MAX] in magnitude (a ``Task`` takes any finite number; :func:`load_spec`
    refuses such a file), by the check load_spec applies, naming the entry as load_spec would."""
    for name, M in (("inputs", task.X), ("targets", task.Y)):
        for (i, j), e in zip(((i, j) for i in range(M.rows) for j in range(M.cols)), M):
            if e.free_symbols or e == 0 or (e.is_Integer and abs(int(e)) <= DATA_MAX):
                continue
            try:
                vf.check_magnitude(e, f"data.{name}[{i}][{j}]", text=_SpecPrinter().doprint(e))
            except SpecError as exc:
                raise SpecError(exc.field, f"{exc.problem}: a spec file cannot hold it (load_spec would refuse "
                                "the file)", exc.fix) from None


def spec_to_toml(spec) -> str:
    """Write a spec (pathway form or :class:`~theorykit.spec.graph.GraphSpec`) as TOML with explicit
    data (round-trips through :func:`load_spec`). A task whose data a spec file cannot hold (a number
    not 0 and not within 1e-6 … 1e6 in magnitude, which a Python ``Task`` accepts) is refused first,
    naming the entry (``data.inputs[0][1]``), its value and the range."""
    if not isinstance(spec, (GDLNSpec, GraphSpec)):
        raise SpecError("spec", f"expected a GDLNSpec or GraphSpec, got {type(spec).__name__}",
                        "pass a spec (load_spec(path) reads one; a Derivation has its .spec)")
    _check_writable(spec.task)
    if isinstance(spec, GraphSpec) and any(spec.path_names.get(h) != "/".join(h) for h in spec.path_names):
        raise SpecError("spec", "the graph names its pathways (path_names), which a spec file cannot hold",
                        "write the pathway spec it was made from")
    lines = [f"name = {_toml_value(spec.name)}", ""]
    syms = spec.task.symbols
    if syms:
        lines.append("[symbols]")
        for n, s in syms.items():
            # every assumption SymPy knows (true or false): the declared ones and those they imply
            assum = {k: s.assumptions0[k] for k in SYMBOL_ASSUMPTIONS if s.assumptions0.get(k) is not None}
            lines.append(f"{n} = {{{', '.join(f'{k} = {_toml_value(v)}' for k, v in assum.items())}}}")
        lines.append("")
    lines.append("[data]")
    lines.append("inputs = " + _toml_value(spec.task.X.tolist()))
    lines.append("targets = " + _toml_value(spec.task.Y.tolist()))
    lines.append("")
    if isinstance(spec, GraphSpec):
        for n in spec.nodes:
            lines += _table("[[nodes]]", ("name", n.name), ("width", n.width), ("active", list(n.active)))
        for e in spec.edges:
            lines += _table("[[edges]]", ("from", e.src), ("to", e.dst), ("active", list(e.active)),
                            ("init_scale", e.init_scale), ("rows", None if e.rows is None else list(e.rows)))
        for g in spec.schedule:
            lines += _table("[[schedule]]", ("name", g.name), ("edges", list(g.edges)), ("start", g.start),
                            ("fit", list(g.fit) if g.fit else "targets"))
    else:
        for p in spec.pathways:
            lines += _table("[[pathways]]", ("name", p.name), ("active", list(p.active)), ("inputs", list(p.inputs)),
                            ("outputs", list(p.outputs)), ("hidden", p.hidden), ("depth", p.depth))
    t = spec.training
    lines += _table("[training]", ("lr", t.lr), ("loss", t.loss), ("a0", t.a0), ("init_std", t.init_std),
                    ("steps", t.steps))
    return "\n".join(lines)


def _table(header: str, *entries) -> list:
    """The lines of a TOML table: ``header``, ``key = value`` per entry (one whose value is None left
    out), and a blank line."""
    return [header] + [f"{k} = {_toml_value(v)}" for k, v in entries if v is not None] + [""]


def _installed_example(path: Path) -> str:
    """For a missing ``examples/<name>`` (the docs' and ``--help``'s paths, relative to a checkout):
    where the copy installed with the package is, as the hint of the error; else "". A user who
    installed the wheel has no ``examples/`` folder, and was told only to give the path of a spec."""
    parts = path.parts
    if path.is_absolute() or len(parts) < 2 or parts[0] != "examples":
        return ""
    try:
        found = example_path("/".join(parts[1:]))
    except FileNotFoundError:
        return ""
    return f"; the example installed with theorykit is {found}"


def example_path(name: str) -> Path:
    """``examples/<name>`` from the checkout, or the copy installed with the package."""
    here = Path(__file__).resolve().parents[1]
    for cand in (here.parent / "examples", here / "examples"):
        if (cand / name).is_file():
            return cand / name
    # the error named the folder only: it now lists what is there, nearest name first (a misspelt example)

    folder = next((c for c in (here.parent / "examples", here / "examples") if c.is_dir()), None)
    have = sorted(str(f.relative_to(folder)) for f in folder.rglob("*.toml")) if folder is not None else []
    near = difflib.get_close_matches(str(name), have, n=1)
    hint = (f" (fix: did you mean {near[0]!r}? the spec examples are {', '.join(have)})" if near else
            f" (fix: the spec examples are {', '.join(have)})" if have else "")
    raise FileNotFoundError(f"examples/{name} not found beside theorykit ({here}){hint}")
