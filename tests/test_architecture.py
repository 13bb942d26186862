"""The layer contract of the package, checked on its source (function-level imports included).

Data flows one way: base (errors, io, progress, curves, linalg, record) < spec < net < theory < sim < analysis <
interfaces (cli, report, bench, suites). A module imports only from its own layer or lower ones,
the import graph has no cycle, the library never imports the scripts (``validation/``,
``derivations/``), at most 10 imports of theorykit's own modules sit inside functions (the rest are
at module level, where they can be seen), and no module is over 600 lines. ``lint-imports`` checks
the layers again in CI from the ``[tool.importlinter]`` contract in pyproject.toml.
"""
import ast
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "theorykit"
LAYERS = [
    ("theorykit.errors", "theorykit.io", "theorykit.progress", "theorykit.curves", "theorykit.linalg", "theorykit.html",
     "theorykit.record"),
    ("theorykit.spec",),
    ("theorykit.net",),
    ("theorykit.theory",),
    ("theorykit.sim",),
    ("theorykit.analysis",),
    ("theorykit.cli", "theorykit.report", "theorykit.bench", "theorykit.bench_derive", "theorykit.bench_repl", "theorykit.suites",
     "theorykit.__main__", "theorykit"),
]


def _modules():
    mods = {}
    for p in ROOT.rglob("*.py"):
        rel = p.relative_to(ROOT.parent).with_suffix("")
        name = ".".join(rel.parts)
        if name.endswith(".__init__"):
            name = name[: -len(".__init__")]
        mods[name] = p
    return mods


def _imports(mods):
    """(importer, imported, inside_a_function) for every import of a theorykit module."""
    out = []
    for name, path in mods.items():
        tree = ast.parse(path.read_text())
        is_pkg = path.name == "__init__.py"
        in_func = set()
        for f in ast.walk(tree):
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                in_func.update(id(n) for n in ast.walk(f))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                for a in node.names:
                    targets.append(f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod)
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                if t.split(".")[0] in ("theorykit", "validation", "derivations"):
                    out.append((name, t, id(node) in in_func))
    return out


def _layer(mod):
    best, rank = -1, None
    for i, group in enumerate(LAYERS):
        for prefix in group:
            if (mod == prefix or mod.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), i
    return rank


MODS = _modules()
IMPORTS = _imports(MODS)


def test_layers_run_one_way():
    bad = [(a, b) for a, b, _f in IMPORTS if _layer(b) is not None and _layer(a) < _layer(b)]
    assert not bad, f"imports from a higher layer: {bad}"


def test_no_import_cycle():
    graph = {}
    for a, b, _f in IMPORTS:
        if b in MODS and a != b and not (a == "theorykit" or b == "theorykit"):
            graph.setdefault(a, set()).add(b)
    index, low, stack, on, cycles = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in list(graph):
        if v not in index:
            visit(v)
    assert not cycles, f"import cycles: {cycles}"


def test_the_library_never_imports_the_scripts():
    bad = [(a, b) for a, b, _f in IMPORTS if b.split(".")[0] in ("validation", "derivations")
           or b.startswith(("theorykit.validation", "theorykit.derivations"))]
    assert not bad, bad


def test_few_own_imports_inside_functions():
    inner = [(a, b) for a, b, f in IMPORTS if f and b.startswith("theorykit")]
    assert len(inner) <= 10, f"{len(inner)} own-module imports inside functions: {inner}"


@pytest.mark.parametrize("name", sorted(MODS))
def test_no_module_over_600_lines(name):
    n = sum(1 for _ in MODS[name].open())
    assert n <= 600, f"{MODS[name].relative_to(ROOT.parent)} has {n} lines"


def test_the_checker_sees_a_violation(tmp_path, monkeypatch):
    """The checks above can fail: a spec module importing the simulator is an upward import."""
    global ROOT
    pkg = tmp_path / "theorykit"
    (pkg / "spec").mkdir(parents=True)
    (pkg / "sim").mkdir()
    for d in (pkg, pkg / "spec", pkg / "sim"):
        (d / "__init__.py").write_text("")
    (pkg / "spec" / "task.py").write_text("def f():\n    from ..sim import engine\n")
    (pkg / "sim" / "engine.py").write_text("from ..spec import task\n")
    monkeypatch.setattr(os, "sep", os.sep)
    old = ROOT
    ROOT = pkg
    try:
        imports = _imports(_modules())
    finally:
        ROOT = old
    assert any(_layer(a) < _layer(b) for a, b, _f in imports)
    assert ("theorykit.spec.task", "theorykit.sim.engine", True) in imports


def test_the_flat_namespace_shows_only_what_a_user_types():
    """dir(theorykit) (tab completion) lists the flat API and the subpackages, every one of which
    resolves; the module's own imports (os, sys, importlib, __future__'s annotations) stay hidden."""
    import importlib

    import theorykit as tk

    names = dir(tk)
    assert not {"os", "sys", "importlib", "annotations"} & set(names)
    assert {"Derivation", "simulate", "predict_reln", "Trajectory", "theory", "sim"} <= set(names)
    for name in names:
        if name in tk._SUBPACKAGES:
            importlib.import_module(f"theorykit.{name}")
        else:
            assert getattr(tk, name) is not None, name
