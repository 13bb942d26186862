"""Fuzzing the command line with bad specs: every case ends in a success or a clean error.

A case is a spec file built by a Hypothesis strategy: a *valid* spec of one of the registered
kinds (:data:`SPEC_KINDS`: pathway specs with explicit data, the built-in tasks ``xor-margin``
and ``contexts``), then zero to three *mutations* (:data:`MUTATIONS`: wrong types, missing and
unknown keys, duplicate names, empty and ragged arrays, huge and tiny numbers, NaN and inf,
complex expressions, deep nesting, non-ASCII names, sizes beyond the machine, broken TOML and
bad ``--set`` values). Each case runs ``check``, ``derive`` and a short ``simulate`` through
:func:`theorykit.cli.main`, in process, under a time limit. The outcome must be

* **success**: exit 0, the result file written and readable; where derive and simulate both
  succeed, the simulated loss at t = 0 (aligned initial weights, JAX) equals the derived one
  (closed form or race reduction, SymPy/SciPy) to 1e-6; or
* **clean error**: exit 2, one message ``theorykit: error in FIELD: ...`` naming a spec field
  or a command-line option, no traceback, and no result file (or temporary file) left behind.

Anything else -- another exit status, a traceback, an exception escaping ``main``, a hang or a
partly written file -- is a **crash**.

A new kind of spec (e.g. graph specs) is added with :func:`register_spec_kind`; a new mutation
by appending to :data:`MUTATIONS`.

Long campaign (workers in subprocesses, a hard time limit per case)::

    python -m theorykit.fuzz --cases 10000 --jobs 2

prints the counts of cases, clean errors, successes and crashes (and hangs) and exits 1 if any
case crashed. The test suite runs a few hundred derandomized cases (tests/test_fuzz.py).
"""
from __future__ import annotations

import contextlib
import copy
import io
import json
import math
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

__all__ = ["Case", "Outcome", "SPEC_KINDS", "MUTATIONS", "register_spec_kind", "valid_specs", "cases", "to_toml",
           "run_case", "campaign", "main"]

# ------------------------------------------------------------------------------------------------
# TOML writing (any nesting of tables, arrays, strings, numbers, booleans; NaN and inf included)
# ------------------------------------------------------------------------------------------------
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k) -> str:
    k = str(k)
    return k if _BARE.match(k) else json.dumps(k, ensure_ascii=False)


def _val(v) -> str:
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
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_val(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_val(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


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

    def spec_bytes(self) -> bytes:
        return self.raw if self.raw is not None else to_toml(self.doc).encode("utf-8")

    def __repr__(self):
        body = self.spec_bytes()[:2000]
        return (f"Case(kind={self.kind!r}, mutations={self.mutations}, sets={self.sets}, steps={self.steps}, "
                f"seeds={self.seeds}, sim_args={self.sim_args},\nspec=\n{body.decode('utf-8', 'replace')})")


# --- valid specs of every kind -------------------------------------------------------------------
_NUMS = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -0.25, 1.5, 0.1, 2.0]))
_EXPRS = st.sampled_from(["sqrt(2)", "1/3", "Rational(2, 3)", "2**-1", "-sqrt(3)/2", "0.33"])
_SYM_EXPRS = st.sampled_from(["Delta", "-Delta", "Delta/2", "sqrt(Delta)", "Delta**2", "1 + Delta"])
_NAMES = st.one_of(st.sampled_from(["common", "ctx", "p", "Weg-ä", "通路", "path one"]),
                   st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12))
_SET_VALUES = st.sampled_from(["0.5", "1", "2", "sqrt(2)", "3/4"])


@st.composite
def pathway_specs(draw):
    """Explicit data (numbers, expressions, symbols) and 1-3 [[pathways]]."""
    P, d, p = draw(st.integers(1, 5)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    symbolic = draw(st.booleans())
    atom = st.one_of(_NUMS, _EXPRS, _SYM_EXPRS) if symbolic else st.one_of(_NUMS, _EXPRS)
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
    doc["pathways"] = paths
    if draw(st.booleans()):
        doc["training"] = _training(draw)
    sets = [f"Delta={draw(_SET_VALUES)}"] if symbolic else []
    return "pathways", doc, sets


def _usable_name(name) -> bool:
    from .errors import SpecError
    from .spec.fields import label

    try:
        label(name, "name", "")
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


def _m_huge_tiny(draw, doc):
    p = _pick(draw, doc, _number_paths(doc))
    if p:
        _set(doc, p, draw(_HUGE_TINY))
    return doc


def _m_nonfinite(draw, doc):
    p = _pick(draw, doc, _number_paths(doc))
    if p:
        _set(doc, p, draw(_NONFINITE))
    return doc


def _m_bad_expr(draw, doc):
    p = _pick(draw, doc, _number_paths(doc))
    if p:
        _set(doc, p, draw(_BAD_EXPRS))
    return doc


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


#: mutations: name -> function(draw, doc) -> doc (the doc is a deep copy, mutated in place)
MUTATIONS: dict[str, Callable] = {
    "wrong-type": _m_wrong_type, "missing-key": _m_delete, "unknown-key": _m_unknown_key,
    "duplicate": _m_duplicate, "empty-or-ragged": _m_empty_or_ragged, "huge-or-tiny": _m_huge_tiny,
    "nan-or-inf": _m_nonfinite, "bad-expression": _m_bad_expr, "deep-nesting": _m_deep,
    "non-ascii": _m_non_ascii, "sizes": _m_sizes, "big-data": _m_big_data, "training": _m_training,
}

_RAW = st.sampled_from([
    b"", b"\xff\xfe not utf-8", b"[data\ninputs = [[1]]", b"a = 1\na = 2\n", b"[data]\ninputs = [[1, 2]\n",
    b"data = " + b"[" * 5000 + b"]" * 5000 + b"\n", b"[[pathways]]\nname = 'a'\n" * 3,
    b"name = \"\\ud800\"\n", b"\x00\x00\x00", b"[training]\nlr = 1e999\n",
])
_BAD_SETS = st.sampled_from(["Delta=-1", "Delta=sqrt(-1)", "Delta=1e9", "Delta=nan", "Gamma=1", "Delta",
                             "Delta=1e-300", "Delta=10**64", "Delta=", "=1", "Delta=1/0", "Delta=0", "Delta=1e6",
                             "Delta=-0.5"])


@st.composite
def cases(draw, mutate: float = 0.8, simulate: float = 1.0):
    """Valid specs of every registered kind, a fraction ``mutate`` of them mutated 1-3 times.

    ``simulate``: the fraction of cases that also run ``simulate`` (each one compiles a JAX program,
    seconds on a CPU); check and derive run on every case."""
    kind, doc, sets = draw(valid_specs())
    case = Case(kind, copy.deepcopy(doc), None, list(sets), steps=draw(st.sampled_from([5, 20])),
                seeds=draw(st.sampled_from([1, 2])), simulate=draw(st.floats(0, 1)) < simulate)
    if draw(st.floats(0, 1)) < 0.15:
        case.sim_args = draw(st.sampled_from([["--network", "relu"], ["--init", "random"], ["--dtype", "float32"]]))
    if draw(st.floats(0, 1)) < mutate:
        n = draw(st.integers(1, 3))
        for _ in range(n):
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


_FIELD_ROOTS = ("spec", "name", "symbols", "data", "pathways", "training", "nodes", "edges", "--set", "--steps",
                "--seeds", "--times", "--json", "--latex", "--time-limit", "THEORYKIT_")
_ERR = re.compile(r"^theorykit: error in (.+?): \S")


def _run_main(argv, time_limit):
    from .cli import main

    out, err = io.StringIO(), io.StringIO()

    def _alarm(signum, frame):
        raise CaseTimeout()

    use_alarm = hasattr(signal, "setitimer") and threading_main()
    if use_alarm:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, time_limit)
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
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
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
            ("derive", ["derive", str(spec), *sets, "--times", times, "--json", str(derive_json), *lim], derive_json),
            ("simulate", ["simulate", str(spec), *sets, "--steps", str(case.steps), "--seeds", str(case.seeds),
                          "--times", times, *case.sim_args, "--json", str(sim_json), *lim], sim_json)]
    if not case.simulate:
        runs = runs[:2]
    outcome = Outcome("success")
    results = {}
    any_error = False
    for name, argv, out_file in runs:
        rc, out, err, secs = _run_main(argv, time_limit)
        first = err.strip().splitlines()[0][:300] if err.strip() else ""
        outcome.commands.append((name, rc if isinstance(rc, (int, str)) else "escaped", first, round(secs, 2)))
        if rc == "hang":
            return Outcome("hang", f"{name} ran past {time_limit}s", outcome.commands)
        if isinstance(rc, tuple):
            return Outcome("crash", f"{name}: exception escaped main(): {rc[1][-3000:]}", outcome.commands)
        if "Traceback" in err:
            return Outcome("crash", f"{name}: traceback on stderr:\n{err[-3000:]}", outcome.commands)
        left = _leftovers(folder, {"spec.toml", "derive.json", "sim.json"})
        if left:
            return Outcome("crash", f"{name}: left files behind: {left}", outcome.commands)
        if rc == 0:
            if out_file is not None:
                if not out_file.exists():
                    return Outcome("crash", f"{name}: exit 0 but no {out_file.name}", outcome.commands)
                try:
                    results[name] = json.loads(out_file.read_text("utf-8"))
                except ValueError as exc:
                    return Outcome("crash", f"{name}: unreadable {out_file.name}: {exc}", outcome.commands)
            elif "OK" not in out:
                return Outcome("crash", f"{name}: exit 0 without a summary", outcome.commands)
            continue
        if rc == 2:
            any_error = True
            m = _ERR.match(err.strip().splitlines()[-1]) if err.strip() else None
            usage = err.strip().startswith("usage:") and "error: argument" in err
            if not (m and m.group(1).startswith(_FIELD_ROOTS)) and not usage:
                return Outcome("crash", f"{name}: exit 2 without naming a field: {err[-1000:]!r}", outcome.commands)
            if out_file is not None and out_file.exists():
                return Outcome("crash", f"{name}: error but {out_file.name} was written", outcome.commands)
            continue
        return Outcome("crash", f"{name}: exit status {rc}: {err[-2000:]}", outcome.commands)
    # reference: derived and simulated loss at t = 0 agree (aligned initial weights)
    d, s = results.get("derive"), results.get("simulate")
    if d and s and d.get("loss") and s.get("init") == "aligned" and s.get("network") == "gdln":
        ld, ls = d["loss"]["value"][0], s["loss"]["mean"][0]
        if not math.isclose(ld, ls, rel_tol=1e-6, abs_tol=1e-12):
            return Outcome("crash", f"reference mismatch: derived L(0) = {ld!r}, simulated L(0) = {ls!r}",
                           outcome.commands)
    if any_error:
        outcome.kind = "error"
    return outcome


# ------------------------------------------------------------------------------------------------
# the long campaign: workers in subprocesses, a hard wall-clock limit per case
# ------------------------------------------------------------------------------------------------
def _generate(n: int, seed: int) -> list:
    from hypothesis import HealthCheck, Phase, given, settings

    out = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate], derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(cases())
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


def campaign(n: int, seed: int = 0, jobs: int = 1, time_limit: float = 120.0, estimate_limit: float = 30.0,
             log=None, report_every: int = 100) -> dict:
    """Run ``n`` cases; returns the counts and the failing cases."""
    import multiprocessing as mp
    from multiprocessing.connection import wait

    t0 = time.time()
    todo = list(enumerate(_generate(n, seed)))
    gen_secs = time.time() - t0
    ctx = mp.get_context("spawn")
    counts = {"cases": 0, "success": 0, "error": 0, "crash": 0, "hang": 0}
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
            failures.append({"index": idx, "kind": out.kind, "detail": out.detail, "commands": out.commands,
                             "case": repr(todo_map[idx])})
            if log:
                print(f"[{idx}] {out.kind.upper()}: {out.detail[:500]}\n{repr(todo_map[idx])[:1500]}", file=log,
                      flush=True)
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

    ap = argparse.ArgumentParser(prog="python -m theorykit.fuzz",
                                 description="Fuzz the command line with valid and mutated specs; print counts.")
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0, help="random seed of the case generator")
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 1)))
    ap.add_argument("--time-limit", type=float, default=120.0, help="wall-clock seconds per command before a hang")
    ap.add_argument("--estimate-limit", type=float, default=30.0,
                    help="the --time-limit given to the commands (estimated-longer runs are refused)")
    ap.add_argument("--out", help="write the counts and the failing cases here (JSON)")
    args = ap.parse_args(argv)
    res = campaign(args.cases, args.seed, args.jobs, args.time_limit, args.estimate_limit, log=sys.stderr)
    c = res["counts"]
    print(f"cases {c['cases']}, clean errors {c['error']}, successes {c['success']}, crashes {c['crash']}, "
          f"hangs {c['hang']} ({c['seconds']} s, {c['generate_seconds']} s generating)")
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=2, default=str) + "\n", "utf-8")
    return 1 if (c["crash"] or c["hang"]) else 0


if __name__ == "__main__":
    sys.exit(main())
