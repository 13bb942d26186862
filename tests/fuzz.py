"""Fuzzing the command line with bad specs: every case ends in a success or a clean error.

A case is a spec file built by a Hypothesis strategy: a *valid* spec of one of the registered
kinds (:data:`SPEC_KINDS`: pathway specs with explicit data, the built-in tasks ``xor-margin``
and ``contexts``, graph specs with shared edges, gates, rows and schedules), then zero to three
*mutations* (graph ones too: cycles, dangling edges, unused nodes, widths, rows, gates, schedules,
path explosions) (:data:`MUTATIONS`: wrong types, missing and
unknown keys, duplicate names, empty and ragged arrays, huge and tiny numbers, NaN and inf,
complex expressions, deep nesting, non-ASCII names, sizes beyond the machine, broken TOML and
bad ``--set`` values). Each case runs ``check``, ``derive`` (with its LaTeX and plot) and a short ``simulate`` through
:func:`theorykit.cli.main`, in process, under a time limit. The outcome must be

* **success**: exit 0, the result file written and readable; where derive and simulate both
  succeed, the simulated loss at t = 0 (aligned initial weights, JAX) equals the derived one
  (closed form or race reduction, SymPy/SciPy) to 1e-10 (1e-6 for a ``--dtype float32`` simulation); or
* **clean error**: exit 2, one message ``theorykit: error in FIELD: ...`` naming a spec field
  or a command-line option, no traceback, and no result file (or temporary file) left behind.

Anything else -- another exit status, a traceback, an exception escaping ``main``, a hang or a
partly written file -- is a **crash**.

File kinds (:data:`FILE_KINDS`) bring their own files and commands: ``weights`` runs
``simulate --init-weights W.npz`` (reference: the simulated L(0) equals the numpy loss of the
given weights), ``checkpoints`` runs ``find-gates --checkpoints … --data …`` on ``.npz`` or
hand-written ``.safetensors`` files; each file is damaged (truncated, wrong dtype or shape, NaN,
huge values, missing, extra or renamed keys, a header that lies about its sizes), with ``--K 1`` or
the elbow (``--max-K``), sometimes ``--force`` and a ``--time-limit`` (0, tiny, huge, inf, NaN,
negative). The outcome rules are the same: exit 2 naming the option, the file and the key, or a
success. ``predict`` runs ``predict SPEC --hidden H --out pred.toml`` (sometimes with ``--validate``;
``--share equal`` or ``mass``) on a small spec, mutated, with bad options drawn too; on success the
written prediction must load as a spec whose pathways share exactly H hidden units; half its cases
draw ``--race-dt X`` (the default, around the bound of white data, 1.4363, tiny, huge such as 1e6 and
1e300, inf, NaN, text).
``race-exhaust`` runs ``race-exhaust --k 2 --race-dt X --out DIR`` with X around the RK4 stability
bound (1.91), tiny, huge, inf and NaN. For both commands a refusal that names ``use --race-dt V or
larger`` is run again with V (its ``--out`` beside the first, ``-fix`` added), which must not be
refused as too coarse (before the race or after it); a predict that then succeeds is checked as above.

A seed draws the same cases only on the same code: a new draw (as each kind above was once) shifts the
cases that follow, so a failure is reproduced from the case text the campaign records.

A new kind of spec is added with :func:`register_spec_kind`; a new mutation by adding to
:data:`MUTATIONS`.

Long campaign (workers in subprocesses; a hang is a command that uses more than ``--time-limit``
seconds of CPU time, or a case with no answer within 3 × that of wall time plus a minute)::

    python tests/fuzz.py --cases 10000 --jobs 2

prints the counts of cases, clean errors, successes and crashes (and hangs) and exits 1 if any
case crashed. The test suite runs a few hundred derandomized cases (tests/test_fuzz.py).
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import warnings
import os
import re
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from hypothesis import strategies as st

from theorykit.cli import main as cli_main
from theorykit.errors import SpecError
from theorykit.io import atomic_write_text
from theorykit.spec.fields import node_label
from theorykit.spec.files import load_spec, spec_from_dict
from theorykit.spec.graph import INPUT, OUTPUT, graph_from_pathways

__all__ = ["Case", "Outcome", "SPEC_KINDS", "MUTATIONS", "register_spec_kind", "valid_specs", "cases", "to_toml",
           "run_case", "campaign", "main"]

# ------------------------------------------------------------------------------------------------
# TOML writing (any nesting of tables, arrays, strings, numbers, booleans; NaN and inf included)
# ------------------------------------------------------------------------------------------------
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k) -> str:
    k = str(k)
    return k if _BARE.match(k) else json.dumps(k, ensure_ascii=False)


def _scalar(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        r = repr(v)
        return r if ("." in r or "e" in r) else r + ".0"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


class _Text(str):
    """Punctuation already written out (a str subclass, so a spec string is never taken for it)."""


def _val(v) -> str:
    """One TOML inline value. Iterative, not recursive: the deep-nesting mutation composes (two
    draws of depth 300 nest 600 deep), and a recursive writer hit Python's recursion limit, in the
    worker and again in the campaign's own report of the case (fuzz seed 8004, cases 416-421)."""
    out, stack = [], [v]
    while stack:
        x = stack.pop()
        if type(x) is _Text:
            out.append(x)
        elif isinstance(x, (list, tuple)):
            stack.append(_Text("]"))
            for i in reversed(range(len(x))):
                stack.append(x[i])
                if i:
                    stack.append(_Text(", "))
            stack.append(_Text("["))
        elif isinstance(x, dict):
            items = list(x.items())
            stack.append(_Text("}"))
            for i in reversed(range(len(items))):
                stack.append(items[i][1])
                stack.append(_Text(f"{_key(items[i][0])} = "))
                if i:
                    stack.append(_Text(", "))
            stack.append(_Text("{"))
        else:
            out.append(_scalar(x))
    return "".join(out)


def to_toml(doc: dict) -> str:
    """A TOML document for ``doc`` (top-level keys as ``key = inline value`` lines)."""
    return "".join(f"{_key(k)} = {_val(v)}\n" for k, v in doc.items())


# ------------------------------------------------------------------------------------------------
# cases
# ------------------------------------------------------------------------------------------------
@dataclass
class Case:
    """One fuzz case: the spec (a dict, or raw bytes for broken files) and the command-line extras."""

    kind: str
    doc: dict | None
    raw: bytes | None = None
    sets: list = field(default_factory=list)
    steps: int = 20
    seeds: int = 1
    sim_args: list = field(default_factory=list)
    mutations: list = field(default_factory=list)
    simulate: bool = True
    #: data and checkpoint files written beside the spec (name -> bytes)
    files: dict = field(default_factory=dict)
    #: commands run instead of check/derive/simulate: (name, argv with "{dir}" for the case's folder, output or None)
    runs: list | None = None
    #: an extra reference: "weights" (simulated L(0) = the numpy loss of the given initial weights)
    ref: str | None = None
    #: runs (by name) that must refuse: their output is one of their inputs
    refuse: set = field(default_factory=set)
    #: (run name, result file, damages): the result the run wrote, damaged after it (:func:`edit_result`)
    edit: tuple | None = None

    def spec_bytes(self) -> bytes:
        return self.raw if self.raw is not None else to_toml(self.doc).encode("utf-8")

    def __repr__(self):
        body = self.spec_bytes()[:2000]
        extra = ""
        if self.runs:
            extra += f", runs={[r[1] for r in self.runs]}"
        for name, data in self.files.items():
            extra += f",\nfile {name} ({len(data)} bytes) = {data[:600]!r}"
        return (f"Case(kind={self.kind!r}, mutations={self.mutations}, sets={self.sets}, steps={self.steps}, "
                f"seeds={self.seeds}, sim_args={self.sim_args}{extra},\nspec=\n{body.decode('utf-8', 'replace')})")


# --- valid specs of every kind -------------------------------------------------------------------
_NUMS = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -0.25, 1.5, 0.1, 2.0]))
_EXPRS = st.sampled_from(["sqrt(2)", "1/3", "Rational(2, 3)", "2**-1", "-sqrt(3)/2", "0.33"])
_SYM_EXPRS = st.sampled_from(["Delta", "-Delta", "Delta/2", "sqrt(Delta)", "Delta**2", "1 + Delta"])
_NAMES = st.one_of(st.sampled_from(["common", "ctx", "p", "Weg-ä", "通路", "path one",
                                    # TeX's and matplotlib's special characters (derive writes LaTeX and a plot)
                                    "50% $a$", "a&b {c}", "x^2_~\\", "cost $\\x$"]),
                   st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12))
_SET_VALUES = st.sampled_from(["0.5", "1", "2", "sqrt(2)", "3/4"])


@st.composite
def pathway_specs(draw, numeric: bool = False):
    """Explicit data (numbers, expressions, symbols) and 1-3 [[pathways]] (``numeric``: plain numbers only)."""
    P, d, p = draw(st.integers(1, 5)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    symbolic = not numeric and draw(st.booleans())
    atom = _NUMS if numeric else st.one_of(_NUMS, _EXPRS, _SYM_EXPRS) if symbolic else st.one_of(_NUMS, _EXPRS)
    mat = lambda r, c: [[draw(atom) for _ in range(c)] for _ in range(r)]  # noqa: E731
    doc = {"name": draw(st.sampled_from(["fuzz", "spec-1", "Spezifikation"]))}
    if symbolic:
        doc["symbols"] = {"Delta": draw(st.sampled_from([{"positive": True}, "nonnegative", "positive, real"]))}
    doc["data"] = {"inputs": mat(d, P), "targets": mat(p, P)}
    paths, used = [], set()
    for i in range(draw(st.integers(1, 3))):
        name = draw(_NAMES)
        if name in used or not _usable_name(name):
            name = f"p{i}"
        while name in used:
            name += "x"
        used.add(name)
        gates = draw(st.lists(st.integers(0, 1), min_size=P, max_size=P).filter(any))
        pw = {"name": name, "active": gates if draw(st.integers(0, 3)) else "all"}
        if draw(st.booleans()):
            pw["inputs"] = sorted(draw(st.sets(st.integers(0, d - 1), min_size=1)))
        if draw(st.booleans()):
            pw["outputs"] = sorted(draw(st.sets(st.integers(0, p - 1), min_size=1)))
        pw["hidden"] = draw(st.integers(1, 8))
        if draw(st.integers(0, 4)) == 0:
            pw["depth"] = 3
        paths.append(pw)
    for pw in paths:   # a depth-3 pathway p has an inner node p_2, which no pathway may be named
        if pw.get("depth") == 3 and pw["name"] + "_2" in used:
            del pw["depth"]
    doc["pathways"] = paths
    if draw(st.booleans()):
        doc["training"] = _training(draw)
    sets = [f"Delta={draw(_SET_VALUES)}"] if symbolic else []
    return "pathways", doc, sets


def _usable_name(name) -> bool:

    try:
        node_label(name, "name", "")
        return True
    except SpecError:
        return False


def _training(draw):
    return {"lr": draw(st.sampled_from([0.01, 0.05, 0.1])), "loss": draw(st.sampled_from(["mean", "sum"])),
            "a0": draw(st.sampled_from([0.001, 0.01])), "init_std": draw(st.sampled_from([0.01, 0.1])),
            "steps": draw(st.integers(10, 60))}


@st.composite
def xor_specs(draw):
    """The built-in XoR-with-margin task with its "linear" or "xor" pathway set."""
    doc = {}
    data = {"task": "xor-margin", "reln": draw(st.sampled_from(["linear", "xor"])), "hidden": draw(st.integers(4, 16))}
    sets = []
    how = draw(st.integers(0, 2))
    if how == 0:
        data["Delta"] = draw(st.sampled_from([0, 0.5, 1, "sqrt(2)", "1/3"]))
    elif how == 1:
        doc["symbols"] = {"Delta": draw(st.sampled_from(["nonnegative", "positive"]))}
        sets = [f"Delta={draw(_SET_VALUES)}"]
    else:
        sets = [f"Delta={draw(_SET_VALUES)}"]       # the task's own symbol Delta
    doc["data"] = data
    if draw(st.booleans()):
        doc["training"] = _training(draw)
    return "xor-margin", doc, sets


@st.composite
def contexts_specs(draw):
    """The built-in contexts task (small: n = 2 or 4 items, k = 2 or 3 contexts)."""
    n, k = draw(st.sampled_from([2, 4])), draw(st.sampled_from([2, 3]))
    data = {"task": "contexts", "n": n, "k": k, "reln": draw(st.sampled_from(["double", "single", "common", "all"])),
            "hidden": draw(st.integers(2, 8))}
    if draw(st.booleans()):
        data["common"] = draw(st.sampled_from(["hierarchy", "identity"]))
    if draw(st.booleans()):
        data["blocks"] = draw(st.sampled_from(["hierarchy", "identity", ["identity"] * k, ["hierarchy"] * k]))
    if draw(st.booleans()):
        data["context_scale"] = draw(st.sampled_from([1, 1.1, "sqrt(2)", 0.5]))
    doc = {"name": "ctx", "data": data}
    if draw(st.booleans()):
        doc["training"] = _training(draw)
    return "contexts", doc, []


#: registered kinds of valid spec: name -> a strategy of (kind, doc, --set values)
SPEC_KINDS: dict[str, Callable[[], st.SearchStrategy]] = {
    "pathways": pathway_specs,
    "xor-margin": xor_specs,
    "contexts": contexts_specs,
}


def register_spec_kind(name: str, strategy: Callable[[], st.SearchStrategy]) -> None:
    """Add a kind of valid spec (a function returning a strategy of ``(kind, doc, sets)``)."""
    SPEC_KINDS[name] = strategy


def valid_specs() -> st.SearchStrategy:
    return st.one_of(*[s() for s in SPEC_KINDS.values()])


# --- graph specs ---------------------------------------------------------------------------------
_NODE_NAMES = ["h1", "h2", "shared", "m0", "m1", "m2", "Knoten-ä", "层", "node one"]


def _gate(draw, P, on):
    """A 0/1 gate per datapoint, on at datapoint ``on`` (so every path's product of gates is on somewhere)."""
    g = draw(st.lists(st.integers(0, 1), min_size=P, max_size=P))
    g[on] = 1
    return g


def _row_subset(draw, n):
    return sorted(draw(st.sets(st.integers(0, n - 1), min_size=1)))


@st.composite
def graph_specs(draw, numeric: bool = False):
    """A small GDLN graph: 1-2 first-layer nodes fed by the input, 0-3 modules behind them (so
    first-layer edges are shared by several pathways), node gates, edge gates, rows on input and
    output edges, init scales and an optional [[schedule]] of one or two groups.
    ``numeric``: data of plain numbers only (no symbols, no expressions)."""
    P, d, p = draw(st.integers(1, 5)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    symbolic = not numeric and draw(st.integers(0, 3)) == 0
    atom = _NUMS if numeric else st.one_of(_NUMS, _EXPRS, _SYM_EXPRS) if symbolic else st.one_of(_NUMS, _EXPRS)
    mat = lambda r, c: [[draw(atom) for _ in range(c)] for _ in range(r)]  # noqa: E731
    doc = {"name": draw(st.sampled_from(["graph", "g-1", "Netz"]))}
    if symbolic:
        doc["symbols"] = {"Delta": draw(st.sampled_from([{"positive": True}, "nonnegative"]))}
    doc["data"] = {"inputs": mat(d, P), "targets": mat(p, P)}
    on = draw(st.integers(0, P - 1))
    names = draw(st.lists(st.sampled_from(_NODE_NAMES), min_size=1, max_size=5, unique=True))
    n1 = draw(st.integers(1, min(2, len(names))))
    first, modules = names[:n1], names[n1:]
    nodes = []
    for n in names:
        node = {"name": n, "width": draw(st.integers(1, 6))}
        if draw(st.integers(0, 2)) == 0:
            node["active"] = _gate(draw, P, on) if draw(st.booleans()) else "all"
        nodes.append(node)
    edges = []

    def edge(a, b):
        e = {"from": a, "to": b}
        if draw(st.integers(0, 3)) == 0:
            e["active"] = _gate(draw, P, on)
        if (a == "input" or b == "output") and draw(st.booleans()):
            e["rows"] = _row_subset(draw, d if a == "input" else p) if draw(st.integers(0, 3)) else "all"
        if draw(st.integers(0, 4)) == 0:
            e["init_scale"] = draw(st.sampled_from([0.001, 0.01, 0.1]))
        edges.append(e)

    for a in first:
        edge("input", a)
    feeds = {a: [] for a in first}
    for m in modules:
        for a in draw(st.lists(st.sampled_from(first), min_size=1, max_size=len(first), unique=True)):
            feeds[a].append(m)
            edge(a, m)
    for a in first:
        if not feeds[a] or draw(st.integers(0, 3)) == 0:
            edge(a, "output")
    for m in modules:
        edge(m, "output")
    # nodes and edges in a drawn order (the parser must not depend on it)
    if draw(st.booleans()):
        nodes = draw(st.permutations(nodes))
        edges = draw(st.permutations(edges))
    doc["nodes"], doc["edges"] = list(nodes), list(edges)
    if draw(st.integers(0, 2)) == 0:
        keys = [f"{e['from']}->{e['to']}" for e in edges]
        outs = [k for k in keys if k.endswith("->output")]
        if len(outs) > 1 and draw(st.booleans()):
            late = draw(st.lists(st.sampled_from(outs), min_size=1, max_size=len(outs) - 1, unique=True))
            g1 = {"name": "common", "edges": [k for k in keys if k not in late]}
            g2 = {"name": "context", "edges": late, "start": draw(st.integers(0, 4)),
                  "fit": draw(st.sampled_from([["common"], "targets", "common"]))}
            if draw(st.booleans()):
                g1["start"] = draw(st.integers(0, 2))
            doc["schedule"] = [g1, g2]
        else:
            doc["schedule"] = [{"name": "all", "edges": keys, "start": draw(st.integers(0, 3))}]
    if draw(st.booleans()):
        doc["training"] = _training(draw)
    sets = [f"Delta={draw(_SET_VALUES)}"] if symbolic else []
    return "graph", doc, sets


register_spec_kind("graph", graph_specs)


# --- mutations ----------------------------------------------------------------------------------
def _paths(doc, prefix=()):
    """Every path (tuple of keys/indices) to a value inside ``doc``."""
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else []
    for k, v in items:
        out.append(prefix + (k,))
        if isinstance(v, (dict, list)):
            out.extend(_paths(v, prefix + (k,)))
    return out


def _get(doc, path):
    for k in path:
        doc = doc[k]
    return doc


def _pick(draw, doc, pred=lambda v: True):
    paths = [p for p in _paths(doc) if pred(_get(doc, p))]
    return draw(st.sampled_from(paths)) if paths else None


def _set(doc, path, value):
    _get(doc, path[:-1])[path[-1]] = value


_ANY = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.floats(allow_nan=True, allow_infinity=True),
                 st.text(max_size=8), st.just([]), st.just({}), st.just([[1, 2], [3]]), st.just({"a": 1}),
                 st.just("all"), st.just([1, 0]))
_HUGE_TINY = st.sampled_from([1e308, -1e308, 1e-308, 5e-324, 10 ** 30, -(10 ** 20), 2 ** 63, 2 ** 64 + 1, 1e6 + 1,
                              1e-7, 0.0, -0.0, 1e6, 1e-6, 10 ** 400, 3.0e-300])
_NONFINITE = st.sampled_from([math.nan, math.inf, -math.inf])
_BAD_EXPRS = st.sampled_from([
    "sqrt(-1)", "sqrt(-2)*Delta", "(-1)**0.5", "(-8)**(1/3)", "1j", "2**sqrt(-1)", "0**-1", "1/0", "10**64",
    "(10**64)**64", "((10**64)**64)**64", "Delta**Delta", "-" * 300 + "1", "(" * 150 + "1" + ")" * 150,
    "1" + "+1" * 240, "sqrt(" * 60 + "2" + ")" * 60, "Rational(1, 10**64)", "1e-400", "1e400", "nan", "inf",
    "sqrt(-Delta)", "Delta**-64", "2**64**2", "Rational(1, 0)", "x.real", "__import__('os')", "sqrt()", "",
    "\x00", "1\n2", "é", "Delta**0.5**0.5", "(0.1)**64", "2**(-64)*2**(-64)", "Delta/(Delta-Delta)",
    "(-Delta)**Rational(1, 2)", "1e-6", "1e6", "-1e6", "1000000.5", "0.0000009"])
_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


def _m_wrong_type(draw, doc):
    p = _pick(draw, doc)
    if p:
        v = draw(_ANY)
        if v is None:
            _get(doc, p[:-1]).pop(p[-1]) if isinstance(p[-1], str) else _set(doc, p, "none")
        else:
            _set(doc, p, v)
    return doc


def _m_delete(draw, doc):
    p = _pick(draw, doc)
    if p:
        parent = _get(doc, p[:-1])
        del parent[p[-1]]
    return doc


def _m_unknown_key(draw, doc):
    p = _pick(draw, doc, lambda v: isinstance(v, dict))
    tab = _get(doc, p) if p else doc
    tab[draw(st.one_of(st.sampled_from(["momentum", "Hidden", "depths", "nodes", "edges", "task2"]), _TEXT))] = \
        draw(_ANY.filter(lambda v: v is not None))
    return doc


def _m_duplicate(draw, doc):
    if isinstance(doc.get("pathways"), list) and doc["pathways"]:
        doc["pathways"].append(copy.deepcopy(draw(st.sampled_from(doc["pathways"]))))
    else:
        doc.setdefault("symbols", {})["Delta"] = {"positive": True, "nonnegative": False}
    return doc


def _m_empty_or_ragged(draw, doc):
    p = _pick(draw, doc, lambda v: isinstance(v, list))
    if p is None:
        return doc
    v = _get(doc, p)
    how = draw(st.integers(0, 3))
    if how == 0:
        _set(doc, p, [])
    elif how == 1 and v:
        _set(doc, p, [[]] * len(v))
    elif how == 2 and v and isinstance(v[0], list):
        v[draw(st.integers(0, len(v) - 1))].append(1)
    elif v:
        v.pop()
    return doc


def _number_paths(doc):
    return lambda x: isinstance(x, (int, float)) and not isinstance(x, bool) or isinstance(x, str)


def _replace_a_number(values: st.SearchStrategy) -> Callable:
    """A mutation that replaces one number (or expression string) of the spec by a draw of ``values``."""
    def mutate(draw, doc):
        p = _pick(draw, doc, _number_paths(doc))
        if p:
            _set(doc, p, draw(values))
        return doc

    return mutate


_m_huge_tiny = _replace_a_number(_HUGE_TINY)
_m_nonfinite = _replace_a_number(_NONFINITE)
_m_bad_expr = _replace_a_number(_BAD_EXPRS)


def _m_deep(draw, doc):
    p = _pick(draw, doc)
    depth = draw(st.sampled_from([2, 5, 50, 300]))
    v = 1
    for _ in range(depth):
        v = [v] if draw(st.booleans()) or depth > 50 else {"a": v}
    if p:
        _set(doc, p, v)
    else:
        doc["data"] = v
    return doc


def _m_non_ascii(draw, doc):
    name = draw(st.one_of(_TEXT, st.sampled_from(["Δ", "ñame", "名前", "\u202e", "a\u0301", "\x00", "\t", " ",
                                                  "x" * 200, "😀", "\ufeffname", "Delta\u200b"])))
    where = draw(st.integers(0, 3))
    if where == 0 and isinstance(doc.get("pathways"), list) and doc["pathways"] and \
            isinstance(doc["pathways"][0], dict):
        doc["pathways"][0]["name"] = name
    elif where == 1:
        doc["name"] = name
    elif where == 2:
        doc.setdefault("symbols", {})[name] = {}
    else:
        p = _pick(draw, doc, lambda v: isinstance(v, dict))
        (_get(doc, p) if p else doc)[name] = 1
    return doc


_SIZES = [("pathways", "hidden", [10 ** 12, 10 ** 9, 2 ** 62, 10 ** 7, 0, -1]),
          ("training", "steps", [10 ** 14, 10 ** 9, 10 ** 8, 2 ** 63, 0]),
          ("data", "n", [10 ** 6, 1024, 64, 16, 8, 2 ** 40]),
          ("data", "k", [10 ** 5, 64, 12, 8, 1]),
          ("data", "hidden", [10 ** 12, 10 ** 8, 2, 1])]


def _m_sizes(draw, doc):
    table, key, vals = draw(st.sampled_from(_SIZES))
    v = draw(st.sampled_from(vals))
    if table == "pathways":
        if isinstance(doc.get("pathways"), list) and doc["pathways"] and isinstance(doc["pathways"][0], dict):
            doc["pathways"][draw(st.integers(0, len(doc["pathways"]) - 1))][key] = v
    elif isinstance(doc.get(table), dict):
        doc[table][key] = v
    else:
        doc[table] = {key: v}
    return doc


def _m_big_data(draw, doc):
    """Explicit data larger than the derivation can do quickly (the estimate must refuse or allow it)."""
    d, P = draw(st.sampled_from([(40, 60), (3, 3000), (200, 200), (80, 120)]))
    doc["data"] = {"inputs": [[(i * 7 + j * 3) % 5 - 2 for j in range(P)] for i in range(d)],
                   "targets": [[(i + j) % 3 - 1 for j in range(P)] for i in range(2)]}
    doc["pathways"] = [{"name": "all", "active": "all"}]
    doc.pop("symbols", None)
    return doc


def _m_training(draw, doc):
    doc["training"] = {draw(st.sampled_from(["lr", "a0", "init_std", "steps", "loss"])):
                       draw(st.sampled_from([1e3, 1e-12, 100.0, 1e-13, 1e4, 50.0, 5.0, "sum", "median", 1]))}
    return doc


# --- graph mutations (a no-op on a spec without a graph, except graph-onto-pathways) -------------------
def _graph(doc):
    return isinstance(doc.get("nodes"), list) and isinstance(doc.get("edges"), list) and doc["nodes"] and \
        doc["edges"] and all(isinstance(x, dict) for x in doc["nodes"] + doc["edges"])


def _node_names(doc):
    return [n.get("name") for n in doc["nodes"] if isinstance(n.get("name"), str)] or ["h1"]


def _m_graph_cycle(draw, doc):
    """A self-loop, a back edge or a longer cycle through the hidden nodes."""
    if not _graph(doc):
        return doc
    names = _node_names(doc)
    a = draw(st.sampled_from(names))
    how = draw(st.integers(0, 2))
    if how == 0 or len(names) == 1:
        doc["edges"].append({"from": a, "to": a})
    elif how == 1:
        b = draw(st.sampled_from([n for n in names if n != a]))
        doc["edges"] += [{"from": a, "to": b}, {"from": b, "to": a}]
    else:
        ring = draw(st.permutations(names))
        doc["edges"] += [{"from": x, "to": y} for x, y in zip(ring, ring[1:] + ring[:1])]
    return doc


def _m_graph_dangling(draw, doc):
    """An edge from or to a node that is not declared (or to input / from output)."""
    if not _graph(doc):
        return doc
    ghost = draw(st.sampled_from(["ghost", "H1", "", " h1", "input ", "Output", "h1->output", "通路", 7, None]))
    e = draw(st.sampled_from(doc["edges"]))
    end = draw(st.sampled_from(["from", "to"]))
    if ghost is None:
        e.pop(end, None)
    else:
        e[end] = ghost if draw(st.integers(0, 3)) else ("output" if end == "from" else "input")
    return doc


def _m_graph_unused(draw, doc):
    """A node on no path: no edges, only an edge in, or only an edge out."""
    if not _graph(doc):
        return doc
    name = draw(st.sampled_from(["spare", "h9", "unused node"]))
    doc["nodes"].append({"name": name, "width": draw(st.integers(1, 4))})
    how = draw(st.integers(0, 2))
    if how == 1:
        doc["edges"].append({"from": "input", "to": name})
    elif how == 2:
        doc["edges"].append({"from": name, "to": "output"})
    return doc


_WIDTHS = st.sampled_from([0, -1, -(2 ** 63), 10 ** 12, 2 ** 62, 2 ** 64, 10 ** 7, 10 ** 5, 1.5, 2.0, "8", True,
                           math.nan, [4], {"w": 4}])


def _m_graph_width(draw, doc):
    if not _graph(doc):
        return doc
    n = draw(st.sampled_from(doc["nodes"]))
    n["width"] = draw(_WIDTHS)
    if draw(st.integers(0, 3)) == 0:        # every node huge (the size estimate must refuse it)
        for m in doc["nodes"]:
            m["width"] = 10 ** 6
    return doc


def _m_graph_rows(draw, doc):
    if not _graph(doc):
        return doc
    e = draw(st.sampled_from(doc["edges"]))
    e["rows"] = draw(st.sampled_from([[-1], [99], [0, 0], [], "some", [True], [0.5], [[0]], 2 ** 64, "all", [0],
                                      list(range(50)), [0, 10 ** 20]]))
    return doc


def _m_graph_active(draw, doc):
    if not _graph(doc):
        return doc
    item = draw(st.sampled_from(doc["nodes"] + doc["edges"]))
    item["active"] = draw(st.sampled_from([[], [2], [1, 1, 1, 1, 1, 1, 1, 1, 1], [0] * 5, [0], "none", "ALL", 1,
                                           [True], [1.0], [[1]], [-1], {"a": 1}, [1] * 10 ** 4]))
    if draw(st.integers(0, 2)) == 0 and isinstance(doc.get("data"), dict) and \
            isinstance(doc["data"].get("inputs"), list) and doc["data"]["inputs"] and \
            isinstance(doc["data"]["inputs"][0], list):
        # gates that never overlap: every pathway off everywhere
        P = len(doc["data"]["inputs"][0])
        for j, it in enumerate(doc["nodes"] + doc["edges"]):
            it["active"] = [1 if (i + j) % 2 else 0 for i in range(P)]
    return doc


def _m_pathway_names(draw, doc):
    """Pathway names that are reserved, contain the edge arrow, or equal a deep pathway's inner node."""
    paths = doc.get("pathways")
    if not (isinstance(paths, list) and paths and all(isinstance(p, dict) for p in paths)):
        return doc
    p = draw(st.sampled_from(paths))
    how = draw(st.sampled_from(["input", "output", "a->b", "->", "input->h1", "inner"]))
    if how != "inner":
        p["name"] = how
    elif len(paths) > 1 and isinstance(paths[0].get("name"), str):
        paths[0]["depth"] = 3
        paths[1]["name"] = paths[0]["name"] + "_2"
    return doc


def _m_graph_names(draw, doc):
    """Node names that are reserved, duplicated, empty, not strings or contain the edge arrow."""
    if not _graph(doc):
        return doc
    n = draw(st.sampled_from(doc["nodes"]))
    old = n.get("name")
    new = draw(st.sampled_from(["input", "output", "", " ", "a->b", "->", "h1", "m0", 3, None, ["h1"], "x" * 300,
                                "\x00", "Δ", "a\tb"]))
    if new is None:
        n.pop("name", None)
        return doc
    n["name"] = new
    if isinstance(old, str) and isinstance(new, str) and draw(st.booleans()):   # keep the edges pointing at it
        for e in doc["edges"]:
            for end in ("from", "to"):
                if e.get(end) == old:
                    e[end] = new
        for g in doc.get("schedule") or []:
            if isinstance(g, dict) and isinstance(g.get("edges"), list):
                g["edges"] = [k.replace(old, new) if isinstance(k, str) else k for k in g["edges"]]
    return doc


def _m_graph_schedule(draw, doc):
    """Schedule groups naming unknown edges or later groups, bad starts, duplicate or empty groups."""
    if not _graph(doc):
        return doc
    keys = [f"{e.get('from')}->{e.get('to')}" for e in doc["edges"]]
    sched = doc.get("schedule")
    if not isinstance(sched, list) or not sched or not all(isinstance(g, dict) for g in sched):
        sched = doc["schedule"] = [{"name": "all", "edges": list(keys)}]
    g = draw(st.sampled_from(sched))
    how = draw(st.integers(0, 8))
    if how == 0:
        g["edges"] = (g.get("edges") or []) + [draw(st.sampled_from(["ghost->output", "input->output", "h1 -> output",
                                                                     "", "->", "a->b->c"]))]
    elif how == 1:
        g["start"] = draw(st.sampled_from([-1, 10 ** 20, 2 ** 63, "5", True, 1.5, math.inf, 10 ** 9]))
    elif how == 2:
        g["fit"] = draw(st.sampled_from(["later", ["later"], [g.get("name", "x")], [], 1, [1], "targets", ["targets"],
                                         None]))
        if g["fit"] is None:
            g["fit"] = g.get("name", "x")
    elif how == 3:
        sched.append(copy.deepcopy(g))
    elif how == 4:
        g["edges"] = draw(st.sampled_from([[], "input->h1", [1], [["input->h1"]]]))
    elif how == 5:
        sched.append({"name": "late", "edges": [k for k in keys if not k.endswith("->output")][:1] or keys[:1]})
        sched[0]["fit"] = ["late"]
    elif how == 6:
        for gr in sched:            # drop the output edges: those edges are then in no group
            if isinstance(gr.get("edges"), list):
                gr["edges"] = [k for k in gr["edges"] if not str(k).endswith("->output")]
    elif how == 7:
        doc["schedule"] = draw(st.sampled_from([[], {}, "staged", [1], [[]]]))
    else:
        g[draw(st.sampled_from(["step", "Edges", "until"]))] = 1
    return doc


def _m_graph_explosion(draw, doc):
    """Many nodes or a layered graph with very many paths (the path count must be refused early)."""
    layers, per = draw(st.sampled_from([(40, 2), (25, 2), (12, 3), (6, 5), (2, 200), (1, 3000)]))
    nodes, edges = [], []
    prev = ["input"]
    for l in range(layers):
        cur = [f"n{l}_{i}" for i in range(per)]
        nodes += [{"name": c, "width": 1} for c in cur]
        edges += [{"from": a, "to": b} for a in prev for b in cur]
        prev = cur
    edges += [{"from": a, "to": "output"} for a in prev]
    doc["nodes"], doc["edges"] = nodes, edges
    for k in ("pathways", "schedule"):
        doc.pop(k, None)
    if isinstance(doc.get("data"), dict):
        doc["data"].pop("reln", None)
        doc["data"].pop("hidden", None)
    return doc


def _m_graph_init_scale(draw, doc):
    if not _graph(doc):
        return doc
    e = draw(st.sampled_from(doc["edges"]))
    e["init_scale"] = draw(st.sampled_from([0, -0.1, 0.0, math.nan, math.inf, 1e300, 1e6, 1e-300, "0.1", True, [0.1]]))
    return doc


def _m_graph_and_pathways(draw, doc):
    """Both forms at once, or a graph table on a built-in task, or a schedule without a graph."""
    how = draw(st.integers(0, 2))
    if how == 0:
        doc["pathways"] = [{"name": "p", "active": "all"}]
        doc.setdefault("nodes", [{"name": "h1", "width": 2}])
    elif how == 1:
        doc["schedule"] = [{"name": "all", "edges": ["input->p", "p->output"]}]
        doc.pop("nodes", None)
        doc.pop("edges", None)
    else:
        doc["nodes"] = draw(st.sampled_from([[], {}, "h1", [{"name": "h1"}], [{"width": 2}], [[1]]]))
    return doc


#: mutations: name -> function(draw, doc) -> doc (the doc is a deep copy, mutated in place)
MUTATIONS: dict[str, Callable] = {
    "wrong-type": _m_wrong_type, "missing-key": _m_delete, "unknown-key": _m_unknown_key,
    "duplicate": _m_duplicate, "empty-or-ragged": _m_empty_or_ragged, "huge-or-tiny": _m_huge_tiny,
    "nan-or-inf": _m_nonfinite, "bad-expression": _m_bad_expr, "deep-nesting": _m_deep,
    "non-ascii": _m_non_ascii, "pathway-names": _m_pathway_names, "sizes": _m_sizes, "big-data": _m_big_data, "training": _m_training,
    "graph-cycle": _m_graph_cycle, "graph-dangling": _m_graph_dangling, "graph-unused-node": _m_graph_unused,
    "graph-width": _m_graph_width, "graph-rows": _m_graph_rows, "graph-active": _m_graph_active,
    "graph-names": _m_graph_names, "graph-schedule": _m_graph_schedule, "graph-explosion": _m_graph_explosion,
    "graph-init-scale": _m_graph_init_scale, "graph-and-pathways": _m_graph_and_pathways,
}

# ------------------------------------------------------------------------------------------------
# data, weight and checkpoint files (.npz, .safetensors): written by hand, then damaged
# ------------------------------------------------------------------------------------------------
def npy_bytes(A=None, header: str | None = None, data: bytes | None = None) -> bytes:
    """A ``.npy`` member: the array ``A``, or a hand-written ``header`` (a dict literal) and ``data``."""
    import numpy as np

    if header is None:
        buf = io.BytesIO()
        np.lib.format.write_array(buf, np.asarray(A), allow_pickle=True)
        return buf.getvalue()
    h = header.encode("latin1")
    h += b" " * (-(10 + len(h) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + (data or b"")


def npz_bytes(members: dict) -> bytes:
    """An ``.npz`` (a zip of ``name.npy``): each value an array, or the bytes of a member."""
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for k, v in members.items():
            z.writestr(k if k.endswith(".npy") or isinstance(v, bytes) and not k.isidentifier() else f"{k}.npy",
                       v if isinstance(v, bytes) else npy_bytes(v))
    return buf.getvalue()


_ST_NAMES = {"float64": "F64", "float32": "F32", "float16": "F16", "int64": "I64", "int32": "I32", "int8": "I8",
             "uint8": "U8", "bool": "BOOL", "complex128": "C128"}


def safetensors_bytes(arrays: dict, meta: dict | None = None, lie: str | None = None) -> bytes:
    """A ``.safetensors`` file by hand: 8-byte little-endian header length, JSON header, data.
    ``lie``: a damage to the header (see :data:`_ST_LIES`)."""
    import numpy as np

    header, data = {}, b""
    for k, A in arrays.items():
        A = np.ascontiguousarray(A)
        b = A.astype(A.dtype.newbyteorder("<")).tobytes() if A.dtype.kind in "fiuc" else A.tobytes()
        header[k] = {"dtype": _ST_NAMES.get(A.dtype.name, A.dtype.str), "shape": list(A.shape),
                     "data_offsets": [len(data), len(data) + len(b)]}
        data += b
    if meta is not None:
        header["__metadata__"] = meta
    first = next((k for k in header if k != "__metadata__"), None)
    if lie and first is not None:
        ent = header[first]
        if lie == "offsets-beyond":
            ent["data_offsets"] = [ent["data_offsets"][0], len(data) + 64]
        elif lie == "offsets-short":
            ent["data_offsets"] = [ent["data_offsets"][0], max(ent["data_offsets"][1] - 8, 0)]
        elif lie == "offsets-overlap" and len(header) > 1:
            for k in header:
                if k not in ("__metadata__", first):
                    header[k]["data_offsets"] = [0, header[k]["data_offsets"][1] - header[k]["data_offsets"][0]]
                    break
        elif lie == "offsets-negative":
            ent["data_offsets"] = [-8, ent["data_offsets"][1] - 8]
        elif lie == "offsets-float":
            ent["data_offsets"] = [0.0, float(ent["data_offsets"][1])]
        elif lie == "shape-bigger":
            ent["shape"] = [x * 1000 for x in ent["shape"]] or [10 ** 9]
        elif lie == "shape-huge":
            ent["shape"] = [2 ** 40, 2 ** 40]
            ent["data_offsets"] = [0, 2 ** 83]
        elif lie == "shape-negative":
            ent["shape"] = [-1] + ent["shape"][1:]
        elif lie == "dtype-unknown":
            ent["dtype"] = "F8_E4M3"
        elif lie == "dtype-other":
            ent["dtype"] = "F16" if ent["dtype"] != "F16" else "F64"
        elif lie == "missing-field":
            ent.pop("data_offsets")
        elif lie == "extra-field":
            ent["stride"] = [1]
        elif lie == "meta-not-str":
            header["__metadata__"] = {"lr": 0.05}
        elif lie == "meta-lr":
            header["__metadata__"] = {"lr": "not a number"}
        elif lie == "meta-lr-neg":
            header["__metadata__"] = {"lr": "-0.5"}
        elif lie == "meta-lr-nan":
            header["__metadata__"] = {"lr": "nan"}
        elif lie == "meta-loss":
            header["__metadata__"] = {"loss": "median", "lr": "0.05"}
        elif lie == "entry-not-table":
            header[first] = [1, 2]
    h = json.dumps(header).encode("utf-8")
    if lie == "not-json":
        h = h[: len(h) // 2]
    elif lie == "header-list":
        h = b"[1, 2, 3]"
    elif lie == "header-not-utf8":
        h = b"\xff\xfe" + h
    h += b" " * (-len(h) % 8)
    n = len(h)
    if lie == "length-too-big":
        n += 1000
    elif lie == "length-huge":
        n = 2 ** 63 + 5
    elif lie == "length-small":
        n = max(n // 2, 1)
    elif lie == "length-zero":
        n = 0
    return n.to_bytes(8, "little") + h + data


_ST_LIES = ["offsets-beyond", "offsets-short", "offsets-overlap", "offsets-negative", "offsets-float", "shape-bigger",
            "shape-huge", "shape-negative", "dtype-unknown", "dtype-other", "missing-field", "extra-field",
            "meta-not-str", "meta-lr", "meta-lr-neg", "meta-lr-nan", "meta-loss", "entry-not-table", "not-json",
            "header-list", "header-not-utf8", "length-too-big", "length-huge", "length-small", "length-zero"]
_NPY_LIES = [
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }", 64),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (100, 100), }", 80),
    ("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", 16),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (-1, 2), }", 16),
    ("{'descr': 'not a dtype', 'fortran_order': False, 'shape': (2,), }", 16),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2)", 32),
    ("__import__('os').system('true')", 8),
    ("{'descr': '<f8', 'fortran_order': True, 'shape': (2,), 'extra': 1}", 16),
    ("{'descr': '<c16', 'fortran_order': False, 'shape': (1, 1), }", 16),
    ("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (1, 1), }", 8),
]


@dataclass
class FileDoc:
    """A data/weight/checkpoint file before it is written: its arrays, metadata and damage."""

    fmt: str                           # "npz" or "safetensors"
    arrays: dict
    meta: dict | None = None
    lie: str | None = None             # a safetensors header lie
    npy_lie: tuple | None = None       # (key, header, data length) of a hand-written .npy member
    truncate: float | None = None      # keep this share of the bytes
    raw: bytes | None = None           # the bytes, whatever the arrays say

    def to_bytes(self) -> bytes:
        if self.raw is not None:
            return self.raw
        if self.fmt == "safetensors":
            b = safetensors_bytes(self.arrays, self.meta, self.lie)
        else:
            members = dict(self.arrays)
            if self.npy_lie:
                key, header, n = self.npy_lie
                members[key] = npy_bytes(header=header, data=b"\x00" * n)
            b = npz_bytes(members)
        if self.truncate is not None:
            b = b[: int(len(b) * self.truncate)]
        return b


def _damage_file(draw, f: FileDoc) -> str:
    """One damage to a file: truncated, wrong dtype or shape, NaN, huge, missing or extra keys, a lying header."""
    import numpy as np

    keys = sorted(f.arrays)
    how = draw(st.sampled_from(["truncate", "dtype", "shape", "nan", "huge", "missing-key", "extra-key", "rename",
                                "lie", "garbage"]))
    k = draw(st.sampled_from(keys)) if keys else None
    A = np.asarray(f.arrays[k]) if k is not None else None
    if A is not None and A.dtype.kind not in "biufc":
        # an earlier damage left strings, dates or objects: damage their numeric stand-in (a generator
        # crash, seed 7414: "abc" cast to float)
        A = np.zeros(A.shape)
    if how == "truncate":
        f.truncate = draw(st.sampled_from([0.0, 0.01, 0.1, 0.5, 0.9, 0.99]))
    elif how == "dtype" and k is not None:
        dt = draw(st.sampled_from(["complex128", "bool", "int8", "float16", "float32", "uint64", "U3", "object",
                                   "datetime64[s]", "longdouble"]))
        if dt == "object":
            f.arrays[k] = np.array([object()] * 2 if f.fmt == "npz" else A.tolist(), dtype=object) \
                if f.fmt == "npz" else A.astype("float32")
        elif dt == "datetime64[s]":
            f.arrays[k] = np.zeros(A.shape, dtype="datetime64[s]")
        elif dt == "U3":
            f.arrays[k] = np.full(A.shape, "abc")
        else:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)   # the damage is the point
                f.arrays[k] = A.astype(dt)
    elif how == "shape" and k is not None:
        A = np.atleast_1d(A)            # an earlier damage may have left a scalar (a generator crash, seed 7002)
        f.arrays[k] = draw(st.sampled_from([
            A.T, A[None], A.ravel(), A[:0], np.asarray(1.0), A[..., :-1], np.zeros(tuple(x + 1 for x in A.shape)),
            np.zeros((2,) + A.shape), np.zeros((0,) + A.shape), np.zeros((1, 1, 1, 1))]))
    elif how == "nan" and k is not None and A.size:
        B = np.real(A).astype(float)
        B.flat[draw(st.integers(0, B.size - 1))] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
        f.arrays[k] = B
    elif how == "huge" and k is not None:
        f.arrays[k] = np.real(A).astype(float) * draw(st.sampled_from([1e300, 1e20, 1e7, 1e-300, -1e5]))
    elif how == "missing-key" and k is not None:
        del f.arrays[k]
    elif how == "extra-key":
        f.arrays[draw(st.sampled_from(["b1", "fc1.bias", "W3", "W4", "junk", "input->ghost", "ü", ""]))] = \
            draw(st.sampled_from([np.zeros(3), np.ones((2, 2)), np.asarray(0.5)]))
    elif how == "rename" and k is not None:
        f.arrays[draw(st.sampled_from([k.upper(), k + " ", "w1", "x", k.replace("->", "-")]))] = f.arrays.pop(k)
    elif how == "lie":
        if f.fmt == "safetensors":
            f.lie = draw(st.sampled_from(_ST_LIES))
        else:
            header, n = draw(st.sampled_from(_NPY_LIES))
            f.npy_lie = (k or "X", header, n)
    else:
        f.raw = draw(st.sampled_from([b"", b"PK\x03\x04", b"\x00" * 7, b"\x08" + b"\x00" * 7 + b"{}", b"not a file",
                                      (16).to_bytes(8, "little") + b'{"__metadata__":', b"\x93NUMPY\x01\x00",
                                      b"PK\x05\x06" + b"\x00" * 18]))
    return f"file-{how}"


#: --race-dt values: the default, around the RK4 stability bound (1.91 at --k 2, default --gamma), tiny, huge
#: (past the flow's step budget), and not numbers
_RACE_DTS = ["10", "10", "4", "2", "1.91", "1.9", "1.9099", "1.92", "1e-300", "1e-9", "0", "-1", "1e4", "1e6", "1e300",
             "1e400", "nan", "inf", "-inf", "ten", ""]
#: predict's --race-dt values: the default, around the bound of white data (race_step.min_race_dt(1) = 4/2.785 =
#: 1.4363 RK4 steps per τ·s_max, refused below and printed rounded up, 1.44; anisotropic data need more), tiny, huge
#: (1e6: past the flow's step budget; 1e300: not one step within it), and not numbers
_PREDICT_RACE_DTS = ["10", "1.4", "1.43", "1.436", "1.4363", "1.44", "1.5", "3", "1e-300", "1e-9", "0", "-1", "1e4",
                     "1e6", "1e300", "1e400", "nan", "inf", "-inf", "ten", ""]
#: --time-limit values: plausible, 0 and inf (no limit, for commands that allow it), tiny, huge, and hostile
_TIME_LIMITS = ["30", "0", "1e-9", "1e-3", "1e9", "1e300", "inf", "nan", "-1"]
#: the options of this file's newest draws, recorded among a case's mutations so a campaign's report shows them
_NEW_FLAGS = ("--max-K", "--force", "--time-limit", "--race-dt", "--share")


def _rng(draw):
    import numpy as np

    return np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))


def _spec_shapes(doc, relu: bool):
    """The weight shapes (key -> (rows, cols)) of a valid spec's network, from the spec itself."""

    g = graph_from_pathways(spec_from_dict(doc))
    if relu:
        H = sum(n.width for n in g.nodes)
        return {"W1": (H, g.task.d), "W2": (g.task.p, H)}
    return {e.key: g.edge_shape(e) for e in g.edges}


@st.composite
def weight_file_cases(draw, mutate: float = 0.8):
    """``simulate SPEC --init-weights W.npz`` with a valid numeric spec (graph or pathways) and a
    weight file of the right shapes, then damaged. Reference: the simulated L(0) equals the
    loss of those weights computed here with numpy."""
    kind, doc, sets = draw(st.one_of(graph_specs(numeric=True), pathway_specs(numeric=True)))
    doc.pop("schedule", None) if draw(st.integers(0, 3)) == 0 else None
    relu = kind == "pathways" and all(pw.get("depth", 2) == 2 for pw in doc["pathways"]) and draw(st.booleans())
    shapes = _spec_shapes(doc, relu)
    seeds = draw(st.sampled_from([1, 2]))
    lead = draw(st.sampled_from([(), (seeds,)] if seeds > 1 else [(), (1,)]))
    rng = _rng(draw)
    scale = draw(st.sampled_from([0.01, 0.1, 0.5]))
    f = FileDoc("npz", {k: scale * rng.standard_normal(lead + sh) for k, sh in shapes.items()})
    muts = []
    if draw(st.floats(0, 1)) < mutate:
        for _ in range(draw(st.integers(1, 2))):
            muts.append(_damage_file(draw, f))
    sim = ["--network", "relu"] if relu else []
    argv = ["simulate", "{dir}/spec.toml", "--init-weights", "{dir}/W.npz", "--steps", "3", "--seeds", str(seeds),
            "--times", "0,3", *sim, "--json", "{dir}/sim.json", "--time-limit", "30"]
    return Case("weights", doc, None, list(sets), steps=3, seeds=seeds, sim_args=sim, mutations=muts,
                files={"W.npz": f.to_bytes()}, runs=[("simulate", argv, "sim.json")], ref="weights")


@st.composite
def checkpoint_cases(draw, mutate: float = 0.85):
    """``find-gates --checkpoints 'step_*.EXT' --data data.npz --K 1``: an imported run of a bias-free
    ReLU network (1 or 2 hidden layers) saved as .npz or hand-written .safetensors, then damaged."""
    import numpy as np

    rng = _rng(draw)
    P, d, p, H = draw(st.integers(3, 6)), draw(st.integers(1, 3)), draw(st.integers(1, 2)), draw(st.integers(2, 5))
    depth = draw(st.sampled_from([2, 2, 3]))
    X = rng.integers(-2, 3, (d, P)).astype(float)
    X[0] = 1.0                       # a constant input: with W1's first column > 0 (below) most units are on,
    Y = rng.integers(-1, 2, (p, P)).astype(float)          # so K = 1 finds a pattern and the valid case succeeds
    Y[0, 0] = 1.0
    fmt = draw(st.sampled_from(["npz", "safetensors"]))
    dims = [d] + [H] * (depth - 1) + [p]
    W0 = {f"W{i + 1}": 0.3 * rng.standard_normal((dims[i + 1], dims[i])) for i in range(depth)}
    for i in range(depth - 1):
        W0[f"W{i + 1}"][:, 0] = 1.0 + np.abs(W0[f"W{i + 1}"][:, 0])
    steps = [0, draw(st.sampled_from([2, 4]))]
    lr_meta = fmt == "safetensors" and draw(st.booleans())
    meta = {"lr": "0.05", "loss": draw(st.sampled_from(["mean", "sum"]))} if lr_meta else None
    docs = {"data.npz": FileDoc("npz", {"X": X, "Y": Y})}
    for i, s in enumerate(steps):
        Ws = {k: W + 0.01 * i * rng.standard_normal(W.shape) for k, W in W0.items()}
        docs[f"step_{s}.{fmt}"] = FileDoc(fmt, Ws, meta)
    muts = []
    if draw(st.floats(0, 1)) < mutate:
        for _ in range(draw(st.integers(1, 2))):
            name = draw(st.sampled_from(sorted(docs)))
            muts.append(f"{name}:{_damage_file(draw, docs[name])}")
    # --K 1, or the elbow (K = 1..--max-K, one GDLN trained per K; its estimate is checked first,
    # check_elbow_size); with or without --force, and --time-limit plausible or hostile
    elbow = draw(st.sampled_from([[], [], ["--max-K", "2"], ["--max-K", "3"], ["--max-K", "1"]]))
    argv = ["find-gates", "--checkpoints", f"{{dir}}/step_*.{fmt}", "--data", "{dir}/data.npz",
            *(elbow or ["--K", "1"]), "--out", "{dir}/found.toml", "--no-progress"]
    if not lr_meta or draw(st.booleans()):
        argv += ["--lr", draw(st.sampled_from(["0.05", "0.05", "-1", "nan", "1e9"])) if muts else "0.05"]
    argv += draw(st.sampled_from([[], [], ["--force"]]))
    argv += draw(st.sampled_from([[], [], *[["--time-limit", t] for t in _TIME_LIMITS]]))
    return Case("checkpoints", None, b"", [], steps=steps[-1], mutations=muts + [a for a in argv if a in _NEW_FLAGS],
                files={n: f.to_bytes() for n, f in docs.items()}, runs=[("find-gates", argv, "found.toml")])


@st.composite
def predict_cases(draw, mutate: float = 0.8):
    """``predict SPEC --hidden H --out pred.toml``: a valid spec of a small kind (its pathways, if any,
    are ignored by predict), with the spec mutated and bad options drawn. Reference on success: the
    written prediction is a valid spec whose pathways share exactly H hidden units."""
    kind, doc, sets = draw(st.one_of(pathway_specs(numeric=draw(st.booleans())), xor_specs(), contexts_specs()))
    doc = copy.deepcopy(doc)
    if draw(st.booleans()):
        doc.pop("pathways", None)
    if "training" not in doc or draw(st.integers(0, 3)) == 0:
        doc["training"] = _training(draw)
    hidden = draw(st.sampled_from(["1", "2", "8", "16"]))
    opts = ["--no-progress", "--time-limit", "10"]
    muts = []
    if draw(st.floats(0, 1)) < mutate:
        for _ in range(draw(st.integers(1, 2))):
            which = draw(st.sampled_from(sorted(k for k in MUTATIONS if not k.startswith("graph-")) + ["cli"]))
            muts.append(which)
            if which == "cli":
                flag, val = draw(st.sampled_from([("--hidden", "0"), ("--hidden", "-3"), ("--hidden", "10**9"),
                                                  ("--hidden", "1e9"), ("--beam", "0"), ("--shortlist", "0"),
                                                  ("--samples", "0"), ("--steps", "0"), ("--steps", "-5"),
                                                  ("--max-families", "0"), ("--max-patterns", "0"),
                                                  ("--max-orbit-size", "0"), ("--time-limit", "nan"),
                                                  ("--share", "bogus"), ("--share", ""), ("--share", "MASS"),
                                                  ("--time-limit", "-1"), ("--seeds", "0"), ("--set", "Delta=-1"),
                                                  ("--set", "Gamma=1")]))
                if flag == "--hidden":
                    hidden = val
                else:
                    opts += [flag, val]
            else:
                doc = MUTATIONS[which](draw, copy.deepcopy(doc))
    search = draw(st.sampled_from([[], [], ["--search", "forward"], ["--search", "beam", "--beam", "2"],
                                   ["--enumerate", "sample", "--samples", "300"], ["--consistency", "any-output"],
                                   ["--consistency", "off"]]))
    validate = ["--validate", "--seeds", "1"] if draw(st.integers(0, 5)) == 0 else []
    # how H is shared among the predicted pathways: both rules (mass: sampled weight vectors, --samples, --seed)
    share = draw(st.sampled_from([[], ["--share", "equal"], ["--share", "mass"], ["--share", "mass", "--samples", "500"],
                                  ["--share", "mass", "--seed", "7"], ["--share", "mass", "--samples", "1"],
                                  ["--share", "even"]]))
    # the race's RK4 step (half the cases): the default, around the white-data bound, tiny, huge, not a number
    race_dt = ["--race-dt", draw(st.sampled_from(_PREDICT_RACE_DTS))] if draw(st.booleans()) else []
    muts += [" ".join(race_dt)] if race_dt else []
    argv = ["predict", "{dir}/spec.toml", *[a for v in sets for a in ("--set", v)], "--hidden", hidden,
            "--out", "{dir}/pred.toml", *search, *share, *validate, *opts, *race_dt]
    return Case("predict", doc, None, list(sets), mutations=muts, runs=[("predict", argv, "pred.toml")], ref="predict")


def _predict_reference(case: Case, folder: Path, pred: dict | None = None, out: str = "pred.toml") -> str | None:
    """The written prediction (``out`` in ``folder``) is a valid spec (loaded by the spec parser) whose pathways
    share exactly the --hidden units; None if so."""
    argv = case.runs[0][1]
    H = int(argv[argv.index("--hidden") + 1])
    try:
        spec = load_spec(folder / out)
    except SpecError as exc:
        return f"predict wrote a spec that does not load: {exc}"
    widths = [pw.hidden for pw in spec.pathways]
    if sum(widths) != H or min(widths) < 1:
        return f"predicted widths {widths} do not share --hidden {H} (each at least 1)"
    return None


@st.composite
def race_exhaust_cases(draw, mutate: float = 0.8):
    """``race-exhaust --k 2 --steps S --race-dt X --out DIR``: the race by exhaustion of the 2-context task,
    --race-dt drawn around the RK4 stability bound (:func:`theorykit.analysis.race_step.check_race_dt`), tiny, huge
    and not a number; sometimes --gamma or --a0 moved. Reference on a refusal that names a --race-dt to use: that
    value is accepted (the case runs again with it)."""
    race_dt = draw(st.sampled_from(_RACE_DTS)) if draw(st.floats(0, 1)) < mutate else "10"
    steps = draw(st.sampled_from(["1", "50", "400"]))
    extra = draw(st.sampled_from([[], [], [], ["--gamma", "2"], ["--gamma", "0.5"], ["--a0", "1e-3"], ["--batch", "1"]]))
    argv = ["race-exhaust", "--k", "2", "--steps", steps, "--race-dt", race_dt, *extra, "--out", "{dir}/race",
            "--no-progress"]
    return Case("race-exhaust", None, b"", [], steps=int(steps), mutations=[f"--race-dt {race_dt}", *extra],
                runs=[("race-exhaust", argv, "race/exhaust.json")], ref="race-dt")


_FIX_RACE_DT = re.compile(r"use --race-dt (\S+) or larger")


def _race_dt_reference(case: Case, folder: Path, err: str, time_limit: float) -> str | None:
    """A refusal naming ``use --race-dt V or larger`` (race-exhaust's or predict's): the command is run again with
    ``--race-dt V`` (its --out beside the first, with ``-fix`` added), and V itself must pass the stability check
    (the fix's value is not refused again as too coarse, before or after the race); a predict that then succeeds
    must write a valid prediction (:func:`_predict_reference`). None if so, or if the error names no such value."""
    m = _FIX_RACE_DT.search(err)
    if not m:
        return None
    argv = [a.replace("{dir}", str(folder)) for a in case.runs[0][1]]
    argv[argv.index("--race-dt") + 1] = m.group(1)
    out = Path(argv[argv.index("--out") + 1])
    fixed = out.with_name(f"{out.stem}-fix{out.suffix}")
    argv[argv.index("--out") + 1] = str(fixed)
    rc, _, err2, _ = _run_main(argv, time_limit)
    if rc == "hang" or isinstance(rc, tuple) or "Traceback" in err2:
        return f"the named fix --race-dt {m.group(1)} crashed or hung: {err2[-1500:]}"
    if rc != 0 and "--race-dt" in err2 and "too coarse" in err2:
        return f"the named fix --race-dt {m.group(1)} is refused again: {err2.strip()[-600:]}"
    if rc == 0 and case.ref == "predict":
        bad = _predict_reference(case, folder, out=fixed.name)
        return f"the named fix --race-dt {m.group(1)}: {bad}" if bad else None
    return None


#: kinds of case that bring their own files and commands: name -> a strategy of Case
FILE_KINDS: dict[str, Callable[[], st.SearchStrategy]] = {
    "weights": weight_file_cases,
    "checkpoints": checkpoint_cases,
    "predict": predict_cases,
    "race-exhaust": race_exhaust_cases,
}

_RAW = st.sampled_from([
    b"", b"\xff\xfe not utf-8", b"[data\ninputs = [[1]]", b"a = 1\na = 2\n", b"[data]\ninputs = [[1, 2]\n",
    b"data = " + b"[" * 5000 + b"]" * 5000 + b"\n", b"[[pathways]]\nname = 'a'\n" * 3,
    b"name = \"\\ud800\"\n", b"\x00\x00\x00", b"[training]\nlr = 1e999\n",
])
_BAD_SETS = st.sampled_from(["Delta=-1", "Delta=sqrt(-1)", "Delta=1e9", "Delta=nan", "Gamma=1", "Delta",
                             "Delta=1e-300", "Delta=10**64", "Delta=", "=1", "Delta=1/0", "Delta=0", "Delta=1e6",
                             "Delta=-0.5"])


#: how often each kind is drawn (relative); a kind not listed has weight 1
KIND_WEIGHTS = {"pathways": 3, "graph": 3, "xor-margin": 1, "contexts": 1, "weights": 1, "checkpoints": 1, "predict": 1,
                "race-exhaust": 1}
_GRAPH_MUTATIONS = sorted(k for k in MUTATIONS if k.startswith("graph-"))


# ------------------------------------------------------------------------------------------------
# the command line of 2026-11-29: predict of a data-only spec, race-exhaust's options, rerun of a
# damaged or hand-edited result (campaign of session 161)
# ------------------------------------------------------------------------------------------------
_SMALL_ATOMS = st.one_of(st.integers(-2, 2), st.sampled_from([0.5, -1.5, "sqrt(2)", "1/3", "Delta", "-Delta"]))


@st.composite
def _data_only_doc(draw):
    """A spec of ``[data]`` (explicit, or a small built-in task), ``[training]`` and perhaps ``[symbols]``, no
    pathways: what ``predict`` reads. Explicit data of 1-6 datapoints (exact enumeration), sometimes 17-20
    (sampled); entries whole numbers, halves, radicals and the symbol Delta."""
    sets = []
    how = draw(st.sampled_from(["explicit", "explicit", "explicit", "xor", "contexts"]))
    doc = {"name": draw(st.sampled_from(["data", "d-1", "Daten"]))}
    if how == "explicit":
        P = draw(st.sampled_from([1, 2, 3, 4, 5, 6, 4, 17, 20]))
        d, p = draw(st.integers(1, 3)), draw(st.integers(1, 2))
        symbolic = draw(st.integers(0, 3)) == 0
        atom = _SMALL_ATOMS if symbolic else st.one_of(st.integers(-2, 2), st.sampled_from([0.5, -1.5, "sqrt(2)"]))
        doc["data"] = {"inputs": [[draw(atom) for _ in range(P)] for _ in range(d)],
                       "targets": [[draw(atom) for _ in range(P)] for _ in range(p)]}
        shape = draw(st.sampled_from([None, None, "zero-targets", "zero-inputs", "repeated-point", "constant"]))
        X, Y = doc["data"]["inputs"], doc["data"]["targets"]
        if shape == "zero-targets":
            doc["data"]["targets"] = [[0] * P for _ in range(p)]
        elif shape == "zero-inputs":
            doc["data"]["inputs"] = [[0] * P for _ in range(d)]
        elif shape == "repeated-point" and P > 1:
            for row in X + Y:
                row[1] = row[0]
        elif shape == "constant":
            doc["data"]["inputs"] = [[1] * P for _ in range(d)]
        if symbolic or any("Delta" in str(v) for row in doc["data"]["inputs"] + doc["data"]["targets"] for v in row):
            doc["symbols"] = {"Delta": draw(st.sampled_from(["positive", "nonnegative", {"positive": True}]))}
            sets = [f"Delta={draw(_SET_VALUES)}"]
    elif how == "xor":
        doc["data"] = {"task": "xor-margin"}
        if draw(st.booleans()):
            doc["data"]["Delta"] = draw(st.sampled_from([0, 0.5, 1, "sqrt(2)"]))
        else:
            doc["symbols"] = {"Delta": {"positive": True}}
            sets = [f"Delta={draw(_SET_VALUES)}"]
    else:
        doc["data"] = {"task": "contexts", "n": 2, "k": 2}
    doc["training"] = {"lr": draw(st.sampled_from([0.01, 0.05, 0.1])), "loss": draw(st.sampled_from(["mean", "sum"])),
                       "init_std": draw(st.sampled_from([0.01, 0.1])), "steps": draw(st.sampled_from([50, 200, 2000]))}
    if draw(st.integers(0, 4)) == 0:
        doc["training"]["a0"] = draw(st.sampled_from([0.001, 0.01]))
    return doc, sets


#: predict's options beyond those of :func:`predict_cases`: values plausible, at their edges and hostile
_PREDICT_OPTS = [
    ("--time-limit", _TIME_LIMITS + ["5", "20"]), ("--time-bound", ["20", "nan", "-1"]),
    ("--steps", ["1", "10", "0", "-1", "10**9", "1e12", "2.5"]),
    ("--max-patterns", ["1", "2", "3", "0", "-1"]), ("--enumerate", ["exact", "sample", "auto", "random"]),
    ("--samples", ["1", "10", "200", "0", "-1", "1e9"]), ("--max-orbit-size", ["1", "2", "0"]),
    ("--shortlist", ["1", "2", "0"]), ("--max-families", ["1", "2", "0"]), ("--beam", ["1", "0", "-1"]),
    ("--search", ["exhaustive", "forward", "beam", "greedy"]), ("--seed", ["0", "7", "4294967295", "4294967296", "-1"]),
    ("--consistency", ["top", "any-output", "off", "none"]), ("--share", ["equal", "mass", "even"]),
    ("--race-dt", _PREDICT_RACE_DTS), ("--set", ["Delta=1", "Delta=-1", "Gamma=2", "Delta=nan"]),
]
#: predict's output options: a fresh --json, one onto --out or onto the spec, --html or --seeds without --validate
_PREDICT_OUTS = [[], [], ["--json", "{dir}/pred.json"], ["--json", "{dir}/pred.toml"], ["--json", "{dir}/spec.toml"],
                 ["--html", "{dir}/page"], ["--seeds", "2"], ["--json", "{dir}/nodir/pred.json"]]


@st.composite
def predict_data_cases(draw, mutate: float = 0.8):
    """``predict SPEC --hidden H --out pred.toml`` on a data-only spec (no pathways: :func:`_data_only_doc`), with
    predict's options drawn (:data:`_PREDICT_OPTS`, 0-3 of them) and the spec perhaps mutated; sometimes --out
    onto the spec itself, which must be refused. Reference on success: as :func:`predict_cases`."""
    doc, sets = draw(_data_only_doc())
    muts = []
    if draw(st.floats(0, 1)) < mutate * 0.5:
        which = draw(st.sampled_from(sorted(k for k in MUTATIONS if not k.startswith("graph-") and k != "big-data")))
        muts.append(which)
        doc = MUTATIONS[which](draw, copy.deepcopy(doc))
    hidden = draw(st.sampled_from(["1", "2", "2", "3", "4", "0", "-1"]))
    opts = ["--no-progress"]
    if draw(st.floats(0, 1)) < mutate:
        for _ in range(draw(st.integers(1, 3))):
            flag, vals = draw(st.sampled_from(_PREDICT_OPTS))
            val = draw(st.sampled_from(vals))
            opts += [flag, val]
            muts.append(f"{flag} {val}")
    if "--time-limit" not in opts and "--time-bound" not in opts:
        opts += ["--time-limit", "20"]
    outs = draw(st.sampled_from(_PREDICT_OUTS))
    out = draw(st.sampled_from(["{dir}/pred.toml"] * 6 + ["{dir}/spec.toml", "{dir}/nodir/pred.toml"]))
    muts += [f"--out {out[6:]}"] if out != "{dir}/pred.toml" else []
    muts += [" ".join(outs).replace("{dir}/", "")] if outs else []
    argv = ["predict", "{dir}/spec.toml", *[a for v in sets for a in ("--set", v)], "--hidden", hidden, "--out", out,
            *outs, *opts]
    refuse = {"predict"} if out == "{dir}/spec.toml" or "{dir}/spec.toml" in outs or outs[:2] == [
        "--json", "{dir}/pred.toml"] else set()
    return Case("predict-data", doc, None, list(sets), mutations=muts, runs=[
        ("predict", argv, "pred.toml" if out == "{dir}/pred.toml" else None)], ref="predict", refuse=refuse)


#: race-exhaust's options and values: plausible, at their edges, hostile (--k 4 is never drawn with a limit
#: that would let its two-hour race start)
_RACE_OPTS = [
    ("--k", ["2", "3", "1", "5", "0", "-2", "two", "2.5"]), ("--steps", ["1", "50", "0", "-1", "10**9", "1e12", "2.5"]),
    ("--batch", ["1", "7", "0", "-1", "10**12"]), ("--gamma", ["0.5", "2", "0", "-1", "nan", "inf", "1e300", "1e-300"]),
    ("--a0", ["1e-3", "0.5", "0", "-1e-3", "nan", "inf", "1", "10", "1e-300"]),
    ("--race-dt", ["10", "4", "1.9", "0", "nan", "1e300"]), ("--time-limit", _TIME_LIMITS),
    ("--force", None), ("--no-symmetry", None),
]


@st.composite
def race_option_cases(draw, mutate: float = 0.8):
    """``race-exhaust --k 2 --steps 50 --out DIR`` with 1-3 of its options moved (:data:`_RACE_OPTS`), or --out
    onto a file. Success writes DIR/exhaust.json."""
    opts = {"--k": "2", "--steps": "50"}
    flags = []
    if draw(st.floats(0, 1)) < mutate:
        for _ in range(draw(st.integers(1, 3))):
            flag, vals = draw(st.sampled_from(_RACE_OPTS))
            if vals is None:
                flags.append(flag) if flag not in flags else None
            else:
                opts[flag] = draw(st.sampled_from(vals))
    if opts["--k"] == "3":        # 127 families: keep it to a short race
        opts["--steps"] = draw(st.sampled_from(["1", "50"]))
    # (a refused --race-dt is run again with its fix, beside --out: a folder)
    out = "{dir}/race" if "--race-dt" in opts else draw(st.sampled_from(["{dir}/race"] * 5 + ["{dir}/spec.toml", ""]))
    argv = ["race-exhaust", *[a for kv in opts.items() for a in kv], *flags, "--out", out, "--no-progress"]
    muts = [f"{k} {v}" for k, v in opts.items() if (k, v) not in (("--k", "2"), ("--steps", "50"))] + flags
    muts += [f"--out {out[6:] or repr(out)}"] if out != "{dir}/race" else []
    refuse = {"race-exhaust"} if out == "{dir}/spec.toml" else set()
    return Case("race-options", None, b"not a spec\n", [], mutations=muts, runs=[
        ("race-exhaust", argv, "race/exhaust.json" if out == "{dir}/race" else None)], refuse=refuse,
        ref="race-dt" if "--race-dt" in opts else None)


#: commands that make a result to rerun: name -> (argv with {dir}, the result file) (tiny sizes)
_PRODUCERS = {
    "derive": (["derive", "{dir}/spec.toml", "--times", "0,10", "--json", "{dir}/res.json", "--time-limit", "20"],
               "res.json"),
    "simulate": (["simulate", "{dir}/spec.toml", "--steps", "5", "--seeds", "1", "--times", "0,5", "--json",
                  "{dir}/res.json", "--no-progress", "--time-limit", "20"], "res.json"),
    "predict": (["predict", "{dir}/spec.toml", "--hidden", "2", "--out", "{dir}/pred.toml", "--json", "{dir}/res.json",
                 "--no-progress", "--time-limit", "20"], "res.json"),
    "predict-toml": (["predict", "{dir}/spec.toml", "--hidden", "2", "--out", "{dir}/pred.toml", "--no-progress",
                      "--time-limit", "20"], "pred.toml"),
    "race-exhaust": (["race-exhaust", "--k", "2", "--steps", "50", "--out", "{dir}/race", "--no-progress"],
                     "race/exhaust.json"),
}
#: damages of a result (applied by :func:`edit_result` after its command wrote it): (op, argument)
_RESULT_TEXTS = ["", "{", "[]", "null", '"x"', "[" * 5000 + "]" * 5000, "{\"provenance\": {}}", "\ufeff",
                 '{"a": NaN, "provenance": null}', "# made by theorykit: {\n[data]\n"]
_COMMANDS = [None, 7, "", "theorykit", "theorykit check {spec}", "ls -la", "theorykit derive 'unbalanced",
             "theorykit --distributed derive x.toml", "theorykit --debug --debug", "theorykit rerun res.json",
             "theorykit bench --quick", "theorykit validate xor --out /tmp/x", "theorykit derive --help",
             "theorykit derive x.toml --bogus 1", "theorykit derive x.toml --json", "theorykit derive\nx.toml\x1b[2J",
             "theorykit " + "x" * 5000, "theorykit derive x.toml --times 0,10 --json=out.json"]
_PROV_FIELDS = ["provenance", "provenance.options", "provenance.inputs", "provenance.versions",
                "provenance.versions.theorykit", "provenance.spec_toml", "provenance.elapsed_seconds",
                "provenance.written", "provenance.inputs.spec", "provenance.inputs.spec.sha256",
                "provenance.inputs.spec.path", "complete"]
_PROV_VALUES = [None, "delete", 0, -1, 1e308, math.nan, math.inf, True, "x", "0.0.1", [], {}, [1, 2], {"a": 1},
                "[data]\ninputs = [[1]]\n", "\x00", "a = 1\na = 2\n", 10 ** 400, "/nonexistent/spec.toml",
                "0" * 64]


@st.composite
def _result_damage(draw):
    """1-2 damages of a result file: its whole text, a provenance field set or deleted, the recorded command
    replaced or edited word by word, a number or list of the results changed, a key added."""
    out = []
    for _ in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(["text", "truncate", "field", "field", "command", "edit-command", "edit-command",
                                   "number", "number", "list", "key"]))
        if op == "text":
            out.append(("text", draw(st.sampled_from(_RESULT_TEXTS))))
        elif op == "truncate":
            out.append(("truncate", draw(st.sampled_from([0.0, 0.3, 0.5, 0.9, 0.999]))))
        elif op == "field":
            out.append(("field", (draw(st.sampled_from(_PROV_FIELDS)), draw(st.sampled_from(_PROV_VALUES)))))
        elif op == "command":
            out.append(("command", draw(st.sampled_from(_COMMANDS))))
        elif op == "edit-command":
            out.append(("edit-command", (draw(st.sampled_from(["drop", "swap-name", "value", "append", "dup"])),
                                         draw(st.integers(0, 99)),
                                         draw(st.sampled_from(["0", "-1", "nan", "1e9", "x", "--force", "--",
                                                               "--time-limit", "--json", "--out", "{dir}/other.json",
                                                               "--set", "Delta=2", "--steps", "10**9"])))))
        elif op == "number":
            out.append(("number", (draw(st.integers(0, 10 ** 6)), draw(st.sampled_from(
                [1.0000000001, 2, 0, -0.0, math.nan, math.inf, 10 ** 400, "1", None, True, 1e-320])))))
        elif op == "list":
            out.append(("list", (draw(st.integers(0, 10 ** 6)), draw(st.sampled_from(["pop", "append", "empty"])))))
        else:
            out.append(("key", (draw(st.integers(0, 10 ** 6)), draw(st.sampled_from(["seconds", "extra", "é", ""])))))
    return out


@st.composite
def rerun_cases(draw, mutate: float = 0.8):
    """A command makes a result (:data:`_PRODUCERS`: derive, simulate, predict, race-exhaust, tiny), the result is
    damaged or hand-edited (:func:`_result_damage`), then ``rerun RESULT`` runs with options drawn (--rtol,
    --out fresh, onto the result or onto the spec, --force, --time-limit). Reference: an undamaged result reruns
    with exit 0 (``identical``); a damaged one exits 0, 1 (``differ``) or 2 naming the field; --out onto an input
    is refused."""
    prod = draw(st.sampled_from(sorted(_PRODUCERS)))
    if prod in ("predict", "predict-toml"):
        doc, sets = draw(_data_only_doc())
        doc["training"]["steps"] = 50
    elif prod == "race-exhaust":
        doc, sets = None, []
    else:
        _, doc, sets = draw(pathway_specs(numeric=True))
        doc.setdefault("training", {})["steps"] = 10
    argv, result = _PRODUCERS[prod]
    argv = argv[:2] + [a for v in sets for a in ("--set", v)] + argv[2:] if doc is not None else list(argv)
    damage = draw(_result_damage()) if draw(st.floats(0, 1)) < mutate else []
    opts = []
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2]))):
        opts += draw(st.sampled_from([["--rtol", draw(st.sampled_from(["0", "1e-12", "0.5", "1", "-1", "nan", "x"]))],
                                      ["--force"], ["--time-limit", draw(st.sampled_from(_TIME_LIMITS))],
                                      ["--no-progress"]]))
    out = draw(st.sampled_from([None] * 5 + ["{dir}/again" + Path(result).suffix] * 2 + [
        "{dir}/" + result, "{dir}/spec.toml", "{dir}/nodir/x.json"]))
    # --out onto the result, or (an intact record) onto the spec the command read: refused
    refuse = {"rerun"} if out == "{dir}/" + result or (out == "{dir}/spec.toml" and doc is not None and not damage) \
        else set()
    runs = [("make", argv, result), ("rerun", ["rerun", "{dir}/" + result, *opts, *(["--out", out] if out else [])],
                                   "again" + Path(result).suffix if out == "{dir}/again" + Path(result).suffix else None)]
    muts = [f"make: {prod}"] + [f"{op}: {arg!r}"[:120] for op, arg in damage] + opts + \
        ([f"--out {out[6:]}"] if out else [])
    return Case("rerun", doc, b"not a spec\n" if doc is None else None, list(sets), mutations=muts, runs=runs,
                refuse=refuse, edit=("make", result, damage))


def _walk(doc, want, at=()):
    """Paths (tuples) of every value inside ``doc`` for which ``want(value)``, provenance left out."""
    out = []
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for k, v in items:
        if at == () and k == "provenance":
            continue
        if want(v):
            out.append(at + (k,))
        if isinstance(v, (dict, list)):
            out.extend(_walk(v, want, at + (k,)))
    return out


def edit_result(path: Path, ops, folder: Path) -> None:
    """Apply :func:`_result_damage`'s ``ops`` to the result file at ``path`` (JSON, or a spec with its
    ``# made by theorykit:`` line, whose record is edited)."""
    import shlex

    if not path.is_file():
        return
    text = path.read_text("utf-8")
    toml = path.suffix == ".toml"
    head, body = (text.split("\n", 1) + [""])[:2] if toml else ("", text)
    prefix = "# made by theorykit: "
    for op, arg in ops:
        if op == "text":
            path.write_text(arg, "utf-8")
            return
        if op == "truncate":
            path.write_bytes(path.read_bytes()[: int(len(text.encode()) * arg)])
            return
        try:
            doc = json.loads(head[len(prefix):]) if toml else json.loads(body)
        except ValueError:
            return
        rec = doc if toml else doc.get("provenance") if isinstance(doc, dict) else None
        rec = rec if isinstance(rec, dict) else {}
        if op == "field":
            name, value = arg
            keys = name.split(".")
            if toml:
                keys = keys[1:] if keys[0] == "provenance" else None
            if keys == []:
                doc = value if value != "delete" else {}
            elif keys is not None:
                tab, ok = doc, True
                for k in keys[:-1]:
                    tab = tab.get(k) if isinstance(tab, dict) else None
                ok = isinstance(tab, dict)
                if ok and value == "delete":
                    tab.pop(keys[-1], None)
                elif ok:
                    tab[keys[-1]] = value
        elif op == "command":
            rec["command"] = arg.replace("{spec}", str(folder / "spec.toml")) if isinstance(arg, str) else arg
        elif op == "edit-command" and isinstance(rec.get("command"), str):
            how, i, word = arg
            word = word.replace("{dir}", str(folder))
            try:
                words = shlex.split(rec["command"])
            except ValueError:
                words = rec["command"].split()
            j = 2 + i % max(1, len(words) - 2) if len(words) > 2 else len(words)
            if how == "drop" and j < len(words):
                del words[j]
            elif how == "swap-name" and len(words) > 1:
                words[1] = {"derive": "simulate", "simulate": "derive", "predict": "find-gates",
                            "race-exhaust": "sweep"}.get(words[1], "derive")
            elif how == "value" and j < len(words):
                words[j] = word
            elif how == "append":
                words.append(word)
            elif j < len(words):
                words.insert(j, words[j])
            rec["command"] = shlex.join(words)
        elif op in ("number", "list", "key") and not toml:
            i, value = arg
            want = {"number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
                    "list": lambda v: isinstance(v, list), "key": lambda v: isinstance(v, dict)}[op]
            paths = _walk(doc, want)
            if paths:
                p = paths[i % len(paths)]
                parent = _get(doc, p[:-1])
                if op == "number":
                    parent[p[-1]] = value if not isinstance(value, float) or value in (0.0, 1e-320) or \
                        not math.isfinite(value) else parent[p[-1]] * value
                elif op == "list":
                    lst = parent[p[-1]]
                    lst.pop() if value == "pop" and lst else lst.append(lst[-1] if lst else 0) \
                        if value == "append" else lst.clear()
                else:
                    parent[p[-1]][value] = 1
        if toml:
            head = prefix + json.dumps(doc, allow_nan=True)
        else:
            body = json.dumps(doc, allow_nan=True)
    path.write_text(head + "\n" + body if toml else body, "utf-8")


FILE_KINDS.update({"predict-data": predict_data_cases, "race-options": race_option_cases, "rerun": rerun_cases})
KIND_WEIGHTS.update({"predict-data": 2, "race-options": 1, "rerun": 3})



def all_kinds() -> list:
    return sorted(SPEC_KINDS) + sorted(FILE_KINDS)


@st.composite
def cases(draw, mutate: float = 0.8, simulate: float = 1.0, kinds=None):
    """Valid specs of every registered kind, a fraction ``mutate`` of them mutated 1-3 times; and
    cases of the file kinds (:data:`FILE_KINDS`: weight files, checkpoints), their files damaged.

    ``simulate``: the fraction of spec cases that also run ``simulate`` (each one compiles a JAX
    program, seconds on a CPU); check and derive run on every spec case. ``kinds``: draw only these."""
    kinds = sorted(kinds) if kinds else all_kinds()
    unknown = [k for k in kinds if k not in SPEC_KINDS and k not in FILE_KINDS]
    if unknown:
        raise ValueError(f"unknown kinds {unknown}: use {all_kinds()}")
    pool = [k for k in kinds for _ in range(KIND_WEIGHTS.get(k, 1))]
    kind = draw(st.sampled_from(pool))
    if kind in FILE_KINDS:
        return draw(FILE_KINDS[kind](mutate=mutate))
    kind, doc, sets = draw(SPEC_KINDS[kind]())
    case = Case(kind, copy.deepcopy(doc), None, list(sets), steps=draw(st.sampled_from([5, 20])),
                seeds=draw(st.sampled_from([1, 2])), simulate=draw(st.floats(0, 1)) < simulate)
    if draw(st.floats(0, 1)) < 0.15:
        case.sim_args = draw(st.sampled_from([["--network", "relu"], ["--init", "random"], ["--dtype", "float32"],
                                              ["--fused"], ["--network", "relu", "--fused"]]))
    if draw(st.floats(0, 1)) < mutate:
        n = draw(st.integers(1, 3))
        for _ in range(n):
            if kind == "graph" and draw(st.booleans()):
                which = draw(st.sampled_from(_GRAPH_MUTATIONS))
            else:
                which = draw(st.sampled_from(sorted(MUTATIONS) + ["raw-file", "set-value", "cli-sizes"]))
            case.mutations.append(which)
            if which == "raw-file":
                case.raw = draw(_RAW)
                break
            if which == "set-value":
                case.sets = [draw(_BAD_SETS)]
            elif which == "cli-sizes":
                case.steps, case.seeds = draw(st.sampled_from([(10 ** 12, 1), (0, 1), (5, 10 ** 9), (5, 0),
                                                               (-3, 1), (10 ** 7, 2)]))
            else:
                # a fresh copy each time: drawn values may be shared objects (st.just, sampled_from)
                case.doc = MUTATIONS[which](draw, copy.deepcopy(case.doc))
                if not isinstance(case.doc, dict):
                    break
    return case


# ------------------------------------------------------------------------------------------------
# running a case
# ------------------------------------------------------------------------------------------------
class CaseTimeout(BaseException):
    """A command ran past its time limit (a hang)."""


@dataclass
class Outcome:
    kind: str                      # "success", "error" (clean), "crash", "hang"
    detail: str = ""
    commands: list = field(default_factory=list)   # (command, rc, first stderr line)


_FIELD_ROOTS = ("spec", "name", "symbols", "data", "pathways", "training", "nodes", "edges", "schedule", "--set",
                "--steps", "--seeds", "--times", "--json", "--latex", "--time-limit", "THEORYKIT_", "--init-weights",
                "--checkpoints", "--data", "--layers", "--lr", "--loss", "--K", "--out", "--network", "--fused",
                "--hidden", "--beam", "--shortlist", "--samples", "--max-families", "--max-patterns",
                "--max-orbit-size", "--search", "--consistency", "--validate", "--share", "--race-dt", "--k",
                "--gamma", "--a0", "--batch", "--max-K", "--force", "--seed", "--plot",
                # session 161: rerun's RESULT and its record's fields, and the options of predict and race-exhaust
                "RESULT", "provenance", "complete", "--rtol", "--enumerate", "--no-symmetry", "--html", "--time-bound")
#: files a kind's commands may leave in the case's folder besides their outputs (predict --json, the result
#: a rerun is made from, its --out)
#: (and a missing folder of an output, which the commands make: nodir/)
_EXTRA_KEEP = {"predict-data": ("pred.json", "nodir"),
               "rerun": ("pred.toml", "res.json", "race", "again.json", "again.toml", "nodir")}
_ERR = re.compile(r"^theorykit: error in (.+?): \S")


def _run_main(argv, time_limit):
    main = cli_main

    out, err = io.StringIO(), io.StringIO()

    def _alarm(signum, frame):
        raise CaseTimeout()

    # the limit is on the CPU time the command uses (all its threads), not on the wall clock: on a
    # shared machine a command that needs 36 s of CPU took 150 s of wall time, which is load, not a
    # hang. A command that hangs without computing is caught by the campaign's wall-clock limit.
    use_alarm = hasattr(signal, "setitimer") and threading_main()
    if use_alarm:
        old = signal.signal(signal.SIGPROF, _alarm)
        signal.setitimer(signal.ITIMER_PROF, time_limit)
    t0 = time.time()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as exc:          # argparse
                rc = exc.code if isinstance(exc.code, int) else 2
            except CaseTimeout:
                raise
            except BaseException as exc:       # noqa: BLE001 -- escaped main(): a crash
                rc = ("escaped", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
    except CaseTimeout:
        rc = "hang"
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, old)
    return rc, out.getvalue(), err.getvalue(), time.time() - t0


def threading_main() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _leftovers(folder: Path, keep) -> list:
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


def run_case(case: Case, folder, time_limit: float = 120.0, estimate_limit: float = 30.0) -> Outcome:
    """Run check, derive and a short simulate on ``case`` in ``folder``; classify the outcome.

    ``estimate_limit``: the ``--time-limit`` given to the commands (runs estimated longer are refused cleanly);
    ``time_limit``: wall-clock seconds per command before it counts as a hang.
    """
    folder = Path(folder)
    spec = folder / "spec.toml"
    spec.write_bytes(case.spec_bytes())
    sets = [a for s in case.sets for a in ("--set", s)]
    lim = ["--time-limit", str(estimate_limit)]
    derive_json, sim_json = folder / "derive.json", folder / "sim.json"
    times = f"0,{max(case.steps, 0)}" if isinstance(case.steps, int) and case.steps >= 0 else "0"
    runs = [("check", ["check", str(spec), *sets, "--steps", str(case.steps), "--seeds", str(case.seeds), *lim],
             None),
            ("derive", ["derive", str(spec), *sets, "--times", times, "--json", str(derive_json), "--latex",
                        str(folder / "derive.tex"), "--plot", str(folder / "derive.png"), *lim], derive_json),
            ("simulate", ["simulate", str(spec), *sets, "--steps", str(case.steps), "--seeds", str(case.seeds),
                          "--times", times, *case.sim_args, "--json", str(sim_json), *lim], sim_json)]
    if not case.simulate:
        runs = runs[:2]
    if case.runs is not None:
        runs = [(name, [a.replace("{dir}", str(folder)) for a in argv], folder / out if out else None)
                for name, argv, out in case.runs]
    for name, data in case.files.items():
        (folder / name).write_bytes(data)
    # an output in a subfolder (race-exhaust --out DIR) keeps that folder, checked below like a file
    keep = {"spec.toml", "derive.tex", "derive.png", *case.files, *_EXTRA_KEEP.get(case.kind, ()),
            *(r[2].relative_to(folder).parts[0] for r in runs if r[2] is not None)}
    outcome = Outcome("success")
    results = {}
    any_error = False
    for name, argv, out_file in runs:
        rc, out, err, secs = _run_main(argv, time_limit)
        first = err.strip().splitlines()[0][:300] if err.strip() else ""
        outcome.commands.append((name, rc if isinstance(rc, (int, str)) else "escaped", first, round(secs, 2)))
        if rc == "hang":
            return Outcome("hang", f"{name} used more than {time_limit}s of CPU time", outcome.commands)
        if isinstance(rc, tuple):
            return Outcome("crash", f"{name}: exception escaped main(): {rc[1][-3000:]}", outcome.commands)
        if "Traceback" in err:
            return Outcome("crash", f"{name}: traceback on stderr:\n{err[-3000:]}", outcome.commands)
        left = _leftovers(folder, keep)
        if left:
            return Outcome("crash", f"{name}: left files behind: {left}", outcome.commands)
        if rc == 0 and name in case.refuse:
            return Outcome("crash", f"{name}: exit 0 though an output is one of its inputs", outcome.commands)
        if rc == 1 and name == "rerun" and out.startswith("differ:"):
            if not (case.edit and case.edit[2]):
                return Outcome("crash", f"rerun: an undamaged result reruns differently: {out[:1500]}",
                               outcome.commands)
            continue
        if rc == 0:
            if out_file is not None:
                if not out_file.exists():
                    return Outcome("crash", f"{name}: exit 0 but no {out_file.name}", outcome.commands)
                try:
                    text = out_file.read_text("utf-8")
                    results[name] = json.loads(text) if out_file.suffix == ".json" else _toml_loads(text)
                except ValueError as exc:
                    return Outcome("crash", f"{name}: unreadable {out_file.name}: {exc}", outcome.commands)
            elif name == "rerun":
                if not out.startswith(("identical:", "agree to --rtol")):
                    return Outcome("crash", f"rerun: exit 0 without a verdict: {out[:600]!r}", outcome.commands)
            elif "OK" not in out and name not in ("predict", "race-exhaust"):
                return Outcome("crash", f"{name}: exit 0 without a summary", outcome.commands)
            if case.edit is not None and name == case.edit[0]:
                edit_result(folder / case.edit[1], case.edit[2], folder)
            continue
        if rc == 2:
            any_error = True
            m = _ERR.match(err.strip().splitlines()[-1]) if err.strip() else None
            usage = err.strip().startswith("usage:") and "error: argument" in err
            if not (m and m.group(1).startswith(_FIELD_ROOTS)) and not usage:
                return Outcome("crash", f"{name}: exit 2 without naming a field: {err[-1000:]!r}", outcome.commands)
            if out_file is not None and out_file.exists():
                return Outcome("crash", f"{name}: error but {out_file.name} was written", outcome.commands)
            if out_file is not None and out_file.parent != folder and out_file.parent.exists() \
                    and any(out_file.parent.iterdir()):
                return Outcome("crash", f"{name}: error but {out_file.parent.name}/ holds "
                                        f"{sorted(q.name for q in out_file.parent.iterdir())}", outcome.commands)
            if "--race-dt" in argv:         # race-exhaust's and predict's: the named fix is run again
                bad = _race_dt_reference(case, folder, err, time_limit)
                if bad:
                    return Outcome("crash", bad, outcome.commands)
            continue
        return Outcome("crash", f"{name}: exit status {rc}: {err[-2000:]}", outcome.commands)
    # reference: derived and simulated loss at t = 0 agree (aligned initial weights)
    d, s = results.get("derive"), results.get("simulate")
    if d and s and d.get("loss") and s.get("init") == "aligned" and s.get("network") == "gdln":
        ld, ls = d["loss"]["value"][0], s["loss"]["mean"][0]
        if not math.isclose(ld, ls, rel_tol=_l0_rtol(case), abs_tol=1e-12):
            return Outcome("crash", f"reference mismatch: derived L(0) = {ld!r}, simulated L(0) = {ls!r}",
                           outcome.commands)
    if case.ref == "weights" and "simulate" in results:
        bad = _weights_reference(case, folder, results["simulate"])
        if bad:
            return Outcome("crash", bad, outcome.commands)
    if case.ref == "predict" and "predict" in results:
        bad = _predict_reference(case, folder, results["predict"])
        if bad:
            return Outcome("crash", bad, outcome.commands)
    if any_error:
        outcome.kind = "error"
    return outcome


def _toml_loads(text):
    import tomllib

    return tomllib.loads(text)


def _l0_rtol(case: Case) -> float:
    """The relative tolerance of a simulated L(0) against its float64 reference (the derived one, or numpy's
    loss of the given weights). Both sides are the same few sums of products: in float64 they agree to
    rounding (measured <= 2e-16 over 60 cases), held to 1e-10 (conftest.TOL); a ``--dtype float32``
    simulation rounds every product and sum, a relative error of a few eps32 = 1.2e-7 (measured up to
    2.9e-8), held to 1e-6 (8 eps32)."""
    return 1e-6 if "float32" in case.sim_args else 1e-10


def _weights_reference(case: Case, folder: Path, sim: dict) -> str | None:
    """The simulated L(0) from given weights against this numpy forward pass of the spec's graph
    (``h_v = g_v ⊙ Σ_e g_e ⊙ W_e h_u``; a ReLU chain for ``--network relu``); None if they agree."""
    import numpy as np


    g = graph_from_pathways(load_spec(folder / "spec.toml"))
    X, Y = (np.asarray(A, float) for A in g.task.numeric())
    P = X.shape[1]
    with np.load(folder / "W.npz") as z:
        # only real arrays: the file may carry extra keys of any dtype, which simulate does not read
        W = {k: np.asarray(z[k], np.float64) for k in z.files if np.asarray(z[k]).dtype.kind in "fiub"}
    relu = "--network" in case.sim_args
    losses = []
    for s in range(case.seeds):
        Ws = {k: (A if A.ndim == 2 else A[s if A.shape[0] > 1 else 0]) for k, A in W.items() if A.ndim in (2, 3)}
        if not relu and not all(e.key in Ws for e in g.edges):       # keyed W1, W2, ... (a chain)
            Ws = {e.key: Ws[f"W{i + 1}"] for i, e in enumerate(g.edges)}
        if relu:
            Yh = Ws["W2"] @ np.maximum(Ws["W1"] @ X, 0.0)
        else:
            h = {INPUT: X}
            Yh = np.zeros_like(Y)
            for v in g.order + [OUTPUT]:
                acc = np.zeros((g.width(v) if v != OUTPUT else Y.shape[0], P))
                for e in g.edges:
                    if e.dst != v:
                        continue
                    src = h[e.src][list(e.rows)] if e.src == INPUT else h[e.src]
                    z = (Ws[e.key] @ src) * np.asarray(e.active, float)[None, :]
                    if v == OUTPUT:
                        acc[list(e.rows)] += z
                    else:
                        acc += z
                if v == OUTPUT:
                    Yh = acc
                else:
                    h[v] = acc * np.asarray(g.node[v].active, float)[None, :]
        L = 0.5 * float(np.sum((Y - Yh) ** 2))
        losses.append(L / P if g.training.loss == "mean" else L)
    want, got = float(np.mean(losses)), sim["loss"]["mean"][0]
    if not math.isclose(want, got, rel_tol=_l0_rtol(case), abs_tol=1e-12):
        return f"reference mismatch: L(0) of the given weights = {want!r} (numpy), simulated {got!r}"
    return None


# ------------------------------------------------------------------------------------------------
# the long campaign: workers in subprocesses, a hard wall-clock limit per case
# ------------------------------------------------------------------------------------------------
def _generate(n: int, seed: int, kinds=None) -> list:
    from hypothesis import HealthCheck, Phase, given, settings

    out = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate], derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(cases(kinds=kinds))
    def collect(case):
        out.append(case)

    from hypothesis import seed as hseed

    hseed(seed)(collect)()
    return out


def _worker(conn, time_limit, estimate_limit):
    os.environ.setdefault("THEORYKIT_MAX_SECONDS", str(estimate_limit))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        idx, case = msg
        with tempfile.TemporaryDirectory(prefix="tkfuzz-") as tmp:
            try:
                out = run_case(case, tmp, time_limit, estimate_limit)
            except BaseException as exc:  # noqa: BLE001
                out = Outcome("crash", f"runner: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        conn.send((idx, out))


def _run_alone(ctx, case, idx, time_limit, estimate_limit, hard) -> Outcome:
    """Run one case in a new worker process, with the campaign's limits (a hang's retry)."""
    from multiprocessing.connection import wait

    a, b = ctx.Pipe()
    p = ctx.Process(target=_worker, args=(b, time_limit, estimate_limit), daemon=True)
    p.start()
    try:
        a.send((idx, case))
        if not wait([a], timeout=hard):
            return Outcome("hang", f"no answer within {hard:.0f}s (the retry's worker was killed)")
        try:
            return a.recv()[1]
        except (EOFError, OSError):
            return Outcome("crash", "the retry's worker process died")
    finally:
        try:
            a.send(None)
        except OSError:
            pass
        p.join(timeout=5)
        if p.is_alive():
            p.kill()
            p.join(timeout=5)


def _safe_repr(case) -> str:
    """The case as text for the report; a case the harness cannot write is still reported, not fatal."""
    try:
        return repr(case)
    except Exception as exc:  # noqa: BLE001 -- the report of a failure must not end the campaign
        return f"Case(kind={case.kind!r}, mutations={case.mutations}) (not printable: {type(exc).__name__}: {exc})"


def campaign(n: int, seed: int = 0, jobs: int = 1, time_limit: float = 120.0, estimate_limit: float = 30.0,
             log=None, report_every: int = 100, kinds=None, retry_hangs: bool = True) -> dict:
    """Run ``n`` cases; returns the counts and the failing cases.

    ``retry_hangs``: run each hanging case once more, alone in a fresh process; the hang still
    counts, and ``counts["hang_not_repeated"]`` says how many did not hang again."""
    import multiprocessing as mp
    from multiprocessing.connection import wait

    t0 = time.time()
    todo = list(enumerate(_generate(n, seed, kinds)))
    gen_secs = time.time() - t0
    ctx = mp.get_context("spawn")
    counts = {"cases": 0, "success": 0, "error": 0, "crash": 0, "hang": 0, "hang_not_repeated": 0}
    failures = []
    workers = {}

    def start():
        a, b = ctx.Pipe()
        p = ctx.Process(target=_worker, args=(b, time_limit, estimate_limit), daemon=True)
        p.start()
        return {"proc": p, "conn": a, "job": None, "since": None}

    for _ in range(max(1, jobs)):
        w = start()
        workers[w["conn"]] = w
    hard = 3 * time_limit + 60          # three commands per case, plus start-up

    def record(idx, out):
        counts["cases"] += 1
        counts[out.kind] += 1
        if out.kind in ("crash", "hang"):
            entry = {"index": idx, "kind": out.kind, "detail": out.detail, "commands": out.commands,
                     "case": _safe_repr(todo_map[idx])}
            if out.kind == "hang" and retry_hangs:
                # a hang still counts as one; the retry, alone in a fresh process, tells a hang of the
                # code (it hangs again) from one of the machine (a long compile under contention)
                t_retry = time.time()
                again = _run_alone(ctx, todo_map[idx], idx, time_limit, estimate_limit, hard)
                for w in workers.values():            # the others' clocks stop while the retry runs
                    if w["since"] is not None:
                        w["since"] += time.time() - t_retry
                entry["retry"] = {"kind": again.kind, "commands": again.commands}
                if again.kind != "hang":
                    counts["hang_not_repeated"] += 1
            failures.append(entry)
            if log:
                retry = f" (alone in a fresh process: {entry['retry']['kind']})" if "retry" in entry else ""
                print(f"[{idx}] {out.kind.upper()}{retry}: {out.detail[:500]}\n{entry['case'][:1500]}",
                      file=log, flush=True)
        if log and counts["cases"] % report_every == 0:
            print(f"{counts['cases']}/{n} cases, {time.time() - t0:.0f}s: {counts}", file=log, flush=True)

    todo_map = dict(todo)
    queue = list(todo)
    while queue or any(w["job"] is not None for w in workers.values()):
        for w in list(workers.values()):
            if w["job"] is None and queue:
                w["job"] = queue.pop(0)
                w["since"] = time.time()
                w["conn"].send(w["job"])
        ready = wait([w["conn"] for w in workers.values() if w["job"] is not None], timeout=5)
        for conn in ready:
            w = workers[conn]
            try:
                idx, out = conn.recv()
            except (EOFError, OSError):
                idx, out = w["job"][0], Outcome("crash", "the worker process died (a hard crash: abort or kill)")
                _restart(workers, w, start)
                record(idx, out)
                continue
            w["job"] = None
            record(idx, out)
        for w in list(workers.values()):
            if w["job"] is not None and time.time() - w["since"] > hard:
                idx = w["job"][0]
                _restart(workers, w, start)
                record(idx, Outcome("hang", f"no answer within {hard:.0f}s (the worker was killed)"))
    for w in workers.values():
        try:
            w["conn"].send(None)
        except OSError:
            pass
        w["proc"].join(timeout=10)
        if w["proc"].is_alive():
            w["proc"].kill()
    counts["seconds"] = round(time.time() - t0, 1)
    counts["generate_seconds"] = round(gen_secs, 1)
    return {"counts": counts, "failures": failures}


def _restart(workers, w, start):
    try:
        w["proc"].kill()
    except OSError:
        pass
    w["proc"].join(timeout=10)
    del workers[w["conn"]]
    nw = start()
    workers[nw["conn"]] = nw


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python tests/fuzz.py",
                                 description="Fuzz the command line with valid and mutated specs; print counts.")
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0, help="random seed of the case generator")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 1)))
    ap.add_argument("--time-limit", type=float, default=120.0, help="CPU seconds per command before it counts as a hang (a case also hangs with no answer within 3 x this of wall time plus 60 s)")
    ap.add_argument("--estimate-limit", type=float, default=30.0,
                    help="the --time-limit given to the commands (estimated-longer runs are refused)")
    ap.add_argument("--out", help="write the counts and the failing cases here (JSON)")
    ap.add_argument("--kinds", help=f"comma-separated kinds of case to draw (default: all of {all_kinds()})")
    ap.add_argument("--report-every", type=int, default=100, help="print the counts every this many cases")
    ap.add_argument("--no-retry-hangs", action="store_true",
                    help="do not run a hanging case again alone in a fresh process (by default it is, and the "
                         "counts say how many hangs did not repeat)")
    args = ap.parse_args(argv)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()] if args.kinds else None
    bad = [k for k in kinds or [] if k not in all_kinds()]
    if bad:
        ap.error(f"unknown kinds {bad}: use {all_kinds()}")
    res = campaign(args.cases, args.seed, args.jobs, args.time_limit, args.estimate_limit, log=sys.stderr,
                   report_every=args.report_every, kinds=kinds, retry_hangs=not args.no_retry_hangs)
    c = res["counts"]
    print(f"cases {c['cases']}, clean errors {c['error']}, successes {c['success']}, crashes {c['crash']}, "
          f"hangs {c['hang']} (not repeated alone: {c['hang_not_repeated']}) "
          f"({c['seconds']} s, {c['generate_seconds']} s generating)")
    if args.out:
        atomic_write_text(args.out, json.dumps(res, indent=2, default=str) + "\n")
    return 1 if (c["crash"] or c["hang"]) else 0


if __name__ == "__main__":
    sys.exit(main())
