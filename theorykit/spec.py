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

Expression strings are parsed by :func:`theorykit.expr.parse_expr` (no eval).
Every error names the field and the fix.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Mapping

import sympy as sp

from .errors import SpecError
from .expr import SYMBOL_ASSUMPTIONS, parse_expr, to_exact
from .gating import GDLNSpec, Pathway, Training, context_pathways, xor_relns
from .task import Task, contexts, xor_margin

__all__ = ["load_spec", "spec_from_dict", "parse_assignment", "spec_to_toml"]

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_RESERVED = {"sqrt", "Rational", "t", "tau", "a_0", "lambda"}
_TOP = {"name", "symbols", "data", "pathways", "training", "nodes", "edges", "schedule"}


def load_spec(path) -> GDLNSpec:
    """Read a TOML spec file."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SpecError("spec", f"no such file: {path}", "give the path of a .toml spec") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SpecError("spec", f"{path} is not valid TOML: {exc}", "check the file's syntax") from None
    return spec_from_dict(data, default_name=path.stem)


def _symbols(table) -> dict:
    if table is None:
        return {}
    if not isinstance(table, dict):
        raise SpecError("symbols", "must be a table of name = {assumption = true, ...}",
                        "write [symbols] then Delta = {positive = true}")
    out = {}
    for name, assum in table.items():
        f = f"symbols.{name}"
        if not _NAME.match(name) or name in _RESERVED:
            raise SpecError(f, f"{name!r} is not a usable symbol name", "use a letter then letters, digits or _, "
                            f"not one of {sorted(_RESERVED)}")
        if isinstance(assum, str):
            assum = {a.strip(): True for a in assum.split(",") if a.strip()}
        if not isinstance(assum, dict):
            raise SpecError(f, f"expected a table of assumptions, got {assum!r}", "e.g. Delta = {positive = true}")
        kw = {}
        for k, v in assum.items():
            if k not in SYMBOL_ASSUMPTIONS:
                raise SpecError(f"{f}.{k}", f"unknown assumption {k!r}", f"use one of {list(SYMBOL_ASSUMPTIONS)}")
            if not isinstance(v, bool):
                raise SpecError(f"{f}.{k}", f"needs true or false, got {v!r}", "write positive = true")
            kw[k] = v
        try:
            out[name] = sp.Symbol(name, **kw)
        except Exception as exc:  # inconsistent assumptions
            raise SpecError(f, f"inconsistent assumptions {kw}: {exc}", "drop the contradictory ones") from None
    return out


def _matrix(rows, symbols, field) -> sp.Matrix:
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
        raise SpecError(field, "must be a non-empty list of rows (lists)", "write e.g. [[1, -1], [0, 1]]")
    width = len(rows[0])
    if width == 0:
        raise SpecError(field, "rows are empty", "give at least one datapoint (column)")
    for i, r in enumerate(rows):
        if len(r) != width:
            raise SpecError(f"{field}[{i}]", f"has {len(r)} entries, row 0 has {width}",
                            "every row needs one entry per datapoint")
    return sp.Matrix([[parse_expr(v, symbols, f"{field}[{i}][{j}]") if isinstance(v, str)
                       else to_exact(v, f"{field}[{i}][{j}]") for j, v in enumerate(r)] for i, r in enumerate(rows)])


def _param(data, key, symbols, default):
    if key not in data:
        return default
    v = data[key]
    return parse_expr(v, symbols, f"data.{key}") if isinstance(v, str) else to_exact(v, f"data.{key}")


def _task(data, symbols):
    if not isinstance(data, dict):
        raise SpecError("data", "missing or not a table", "add a [data] table with inputs/targets or task = \"...\"")
    name = data.get("task")
    if name is None:
        for key in ("inputs", "targets"):
            if key not in data:
                raise SpecError(f"data.{key}", "missing", "give inputs and targets as nested lists, or task = \"...\"")
        extra = set(data) - {"inputs", "targets"}
        if extra:
            raise SpecError("data", f"unknown keys {sorted(extra)}", "use inputs and targets (or a built-in task)")
        return Task(_matrix(data["inputs"], symbols, "data.inputs"), _matrix(data["targets"], symbols, "data.targets"),
                    symbols)
    if name == "xor-margin":
        extra = set(data) - {"task", "reln", "Delta", "hidden"}
        if extra:
            raise SpecError("data", f"unknown keys {sorted(extra)} for task xor-margin", "use Delta, reln and hidden")
        if "Delta" in data:
            D = _param(data, "Delta", symbols, None)
        else:
            D = symbols.get("Delta")
        t = xor_margin(D)
        if isinstance(D, sp.Basic) and D.free_symbols:
            t = Task(t.X, t.Y, dict(symbols), t.name, t.meta)
        return t
    if name == "contexts":
        extra = set(data) - {"task", "reln", "n", "k", "common", "blocks", "context_scale", "hidden"}
        if extra:
            raise SpecError("data", f"unknown keys {sorted(extra)} for task contexts",
                            "use n, k, common, blocks, context_scale, reln and hidden")
        n, k = data.get("n", 8), data.get("k", 3)
        blocks = data.get("blocks", "hierarchy")
        if isinstance(blocks, list) and blocks and isinstance(blocks[0], list):
            blocks = _matrix(blocks, symbols, "data.blocks")
        scale = _param(data, "context_scale", symbols, 1)
        return contexts(n, k, data.get("common", "hierarchy"), blocks, scale)
    raise SpecError("data.task", f"unknown task {name!r}", "use \"xor-margin\" or \"contexts\", or give inputs/targets")


def _builtin_pathways(data, task):
    reln = data.get("reln")
    hidden = data.get("hidden")
    if task.name == "xor-margin":
        sets = xor_relns(hidden or 128)
        if reln not in sets:
            raise SpecError("data.reln", f"unknown ReLN {reln!r} for xor-margin", f"use one of {sorted(sets)}")
        return sets[reln]
    if task.name == "contexts":
        n, k = task.meta["n"], task.meta["k"]
        import itertools

        sets = {
            "double": [S for S in itertools.combinations(range(k), k - 1)],
            "single": [(c,) for c in range(k)],
            "all": [S for r in range(1, k) for S in itertools.combinations(range(k), r)],
            "common": [],
        }
        if reln not in sets:
            raise SpecError("data.reln", f"unknown ReLN {reln!r} for contexts", f"use one of {sorted(sets)}")
        return context_pathways(n, k, sets[reln], hidden=hidden or 100)
    raise SpecError("data.reln", "built-in pathway sets exist only for built-in tasks", "declare [[pathways]]")


def _pathways(items, data, task):
    if items is None:
        if isinstance(data, dict) and "reln" in data:
            return _builtin_pathways(data, task)
        raise SpecError("pathways", "missing", "add [[pathways]] tables, or reln = \"...\" under [data] for a built-in task")
    if not isinstance(items, list) or not items:
        raise SpecError("pathways", "must be a non-empty array of tables", "write [[pathways]] blocks")
    out = []
    for i, it in enumerate(items):
        f = f"pathways[{i}]"
        if not isinstance(it, dict):
            raise SpecError(f, "must be a table", "write a [[pathways]] block")
        extra = set(it) - {"name", "active", "inputs", "outputs", "hidden", "depth"}
        if extra:
            raise SpecError(f, f"unknown keys {sorted(extra)}", "use name, active, inputs, outputs, hidden, depth")
        for key in ("name", "active"):
            if key not in it:
                raise SpecError(f"{f}.{key}", "missing", "every pathway needs a name and its active gates")
        if not isinstance(it["name"], str):
            raise SpecError(f"{f}.name", f"needs a string, got {it['name']!r}", "name = \"common\"")
        act = it["active"]
        if isinstance(act, list):
            act = tuple(act)
        out.append(Pathway(it["name"], act, it.get("inputs", "all"), it.get("outputs", "all"),
                           it.get("hidden", 16), it.get("depth", 2)).resolve(task, f))
    return out


def _training(table) -> Training:
    if table is None:
        return Training()
    if not isinstance(table, dict):
        raise SpecError("training", "must be a table", "write [training] then lr = 0.05")
    extra = set(table) - {"lr", "loss", "a0", "init_std", "steps"}
    if extra:
        raise SpecError("training", f"unknown keys {sorted(extra)}", "use lr, loss, a0, init_std, steps")
    kw = {}
    for key, kind in (("lr", float), ("a0", float), ("init_std", float), ("steps", int), ("loss", str)):
        if key not in table:
            continue
        v = table[key]
        ok = isinstance(v, str) if kind is str else (isinstance(v, (int, float)) and not isinstance(v, bool))
        if kind is int:
            ok = isinstance(v, int) and not isinstance(v, bool) and v > 0
        if kind is float and ok:
            ok = v > 0 and v == v and v != float("inf")
        if not ok:
            raise SpecError(f"training.{key}", f"bad value {v!r}",
                            {"lr": "a positive number, e.g. 0.05", "a0": "a positive number, e.g. 0.001",
                             "init_std": "a positive number, e.g. 0.01", "steps": "a positive integer",
                             "loss": "\"mean\" or \"sum\""}[key])
        kw[key] = float(v) if kind is float else v
    return Training(**kw)


def spec_from_dict(data: Mapping, default_name: str = "spec"):
    """Build a :class:`GDLNSpec` (pathway form) or a :class:`~theorykit.graph.GraphSpec` (with
    ``[[nodes]]`` and ``[[edges]]``) from parsed TOML (a dict)."""
    if not isinstance(data, Mapping):
        raise SpecError("spec", "must be a table", "see docs/specs.md")
    extra = set(data) - _TOP
    if extra:
        raise SpecError("spec", f"unknown top-level keys {sorted(extra)}", f"use {sorted(_TOP)}")
    name = data.get("name", default_name)
    if not isinstance(name, str):
        raise SpecError("name", f"needs a string, got {name!r}", "name = \"my-spec\"")
    symbols = _symbols(data.get("symbols"))
    task = _task(data.get("data"), symbols)
    if symbols:
        task = Task(task.X, task.Y, {**task.symbols, **symbols}, task.name, task.meta)
    if any(k in data for k in ("nodes", "edges", "schedule")):
        from .graph import parse_graph

        if "pathways" in data or (isinstance(data.get("data"), dict) and "reln" in data["data"]):
            raise SpecError("pathways", "a spec gives either [[pathways]] (or reln) or a graph ([[nodes]], [[edges]])",
                            "keep one of the two forms")
        return parse_graph(task, data.get("nodes"), data.get("edges"), data.get("schedule"),
                           _training(data.get("training")), name)
    if "schedule" in data:
        raise SpecError("schedule", "a schedule needs a graph spec", "write the network as [[nodes]] and [[edges]]")
    pathways = _pathways(data.get("pathways"), data.get("data"), task)
    return GDLNSpec(task, tuple(pathways), _training(data.get("training")), name)


def parse_assignment(text: str, symbols: Mapping[str, sp.Symbol]) -> tuple:
    """Parse a ``NAME=VALUE`` command-line assignment (VALUE: a number or safe expression)."""
    if "=" not in text:
        raise SpecError("--set", f"{text!r} is not NAME=VALUE", "write e.g. --set Delta=0.5")
    name, value = (s.strip() for s in text.split("=", 1))
    if name not in symbols:
        raise SpecError("--set", f"unknown symbol {name!r}", f"the spec declares {sorted(symbols) or 'no symbols'}")
    val = parse_expr(value, {}, f"--set {name}")
    return symbols[name], val


def _toml_value(v) -> str:
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, sp.Basic):
        return _toml_value(str(v)) if not v.is_Integer else str(int(v))
    return repr(v)


def spec_to_toml(spec: GDLNSpec) -> str:
    """Write a spec as TOML with explicit data (round-trips through :func:`load_spec`)."""
    lines = [f"name = {_toml_value(spec.name)}", ""]
    syms = spec.task.symbols
    if syms:
        lines.append("[symbols]")
        for n, s in syms.items():
            assum = {k: True for k in SYMBOL_ASSUMPTIONS if s.assumptions0.get(k)}
            lines.append(f"{n} = {{{', '.join(f'{k} = true' for k in assum)}}}")
        lines.append("")
    lines.append("[data]")
    lines.append("inputs = " + _toml_value([[x for x in spec.task.X.row(i)] for i in range(spec.task.d)]))
    lines.append("targets = " + _toml_value([[x for x in spec.task.Y.row(i)] for i in range(spec.task.p)]))
    lines.append("")
    for p in spec.pathways:
        lines += ["[[pathways]]", f"name = {_toml_value(p.name)}", f"active = {_toml_value(list(p.active))}",
                  f"inputs = {_toml_value(list(p.inputs))}", f"outputs = {_toml_value(list(p.outputs))}",
                  f"hidden = {p.hidden}", f"depth = {p.depth}", ""]
    t = spec.training
    lines += ["[training]", f"lr = {t.lr!r}", f"loss = {_toml_value(t.loss)}", f"a0 = {t.a0!r}",
              f"init_std = {t.init_std!r}", f"steps = {t.steps}", ""]
    return "\n".join(lines)
