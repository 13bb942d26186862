"""Rules from a walkthrough by a user who installs theorykit from a built wheel, not from a checkout.

The README's commands install the checkout in editable mode, which hides what a wheel user meets: no
``examples/`` folder in the current directory (the example specs are installed inside the package),
no optional extra unless asked for (``pip install theorykit`` has no scikit-learn), and only the
dependencies pyproject.toml declares. Each test below failed before its fix.
"""
from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

import pytest

from theorykit.errors import SpecError
from theorykit.spec.files import example_path, read_toml

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------------------------
# The docs' and --help's `examples/...` paths, run where there is no examples/ folder
# ------------------------------------------------------------------------------------------------
def test_a_missing_examples_path_names_the_copy_installed_with_the_package(tmp_path, monkeypatch):
    """``theorykit derive examples/xor_reln.toml`` (the README's command) from a folder that is not a
    checkout: the error said only "give the path of a .toml spec"; it now names the installed copy,
    a file that exists and is the same spec."""
    monkeypatch.chdir(tmp_path)                       # no examples/ here
    with pytest.raises(SpecError) as exc:
        read_toml(Path("examples/xor_reln.toml"))
    assert exc.value.field == "spec" and "no such file: examples/xor_reln.toml" in exc.value.problem
    installed = example_path("xor_reln.toml")
    assert str(installed) in exc.value.fix and installed.is_file()
    # a nested one (the predict examples) too
    with pytest.raises(SpecError) as exc:
        read_toml(Path("examples/predict/xor_data.toml"))
    assert str(example_path("predict/xor_data.toml")) in exc.value.fix


def test_no_installed_copy_is_named_where_there_is_none(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for missing in ("examples/no_such_example.toml", "my_specs/xor_reln.toml", str(tmp_path / "xor_reln.toml")):
        with pytest.raises(SpecError) as exc:
            read_toml(Path(missing))
        assert exc.value.fix == "give the path of a .toml spec", missing


def test_the_command_line_names_the_installed_example(tmp_path, monkeypatch, capsys):
    from theorykit.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["check", "examples/xor_linear.toml"]) == 2
    err = capsys.readouterr().err
    assert "no such file: examples/xor_linear.toml" in err and str(example_path("xor_linear.toml")) in err


# ------------------------------------------------------------------------------------------------
# scikit-learn is the extra `gates`: without it, an error naming the extra, before anything trains
# ------------------------------------------------------------------------------------------------
@pytest.fixture
def no_sklearn(monkeypatch):
    """An install without the extra ``gates``: ``import sklearn`` fails (None in sys.modules makes
    the import system raise ImportError, as for a missing package)."""
    for name in ("sklearn", "sklearn.cluster", "sklearn.datasets"):
        monkeypatch.setitem(sys.modules, name, None)


def _no_training(*_a, **_k):
    raise AssertionError("a network trained before the missing scikit-learn was reported")


def test_find_gates_without_scikit_learn_names_the_extra_before_training(no_sklearn, monkeypatch):
    import theorykit as tk
    from theorykit.analysis import findgates

    monkeypatch.setattr(findgates, "train_relu", _no_training)
    with pytest.raises(SpecError) as exc:
        findgates.find_gates(tk.contexts(4, 2), K=2, seeds=1, steps=10)
    assert exc.value.field == "scikit-learn" and "theorykit[gates]" in exc.value.fix
    with pytest.raises(SpecError, match=r"theorykit\[gates\]"):
        findgates.cluster_gates([[0, 1], [1, 0], [1, 1]], K=2)


def test_the_command_line_reports_it_as_a_bad_install_not_a_bug(no_sklearn, monkeypatch, tmp_path, capsys):
    """Exit status 2 and the extra to install; it was 70, "internal error (a bug in theorykit, please
    report it): ModuleNotFoundError", after the networks had trained."""
    from theorykit.analysis import findgates
    from theorykit.cli import main

    monkeypatch.setattr(findgates, "train_relu", _no_training)
    status = main(["find-gates", "contexts", "--K", "2", "--seeds", "1", "--steps", "10", "--out",
                   str(tmp_path / "found.toml")])
    err = capsys.readouterr().err
    assert status == 2, err
    assert "scikit-learn" in err and "theorykit[gates]" in err and "internal error" not in err
    assert not (tmp_path / "found.toml").exists()


def test_the_gates_suite_without_scikit_learn_fails_at_once_naming_the_extra(no_sklearn, monkeypatch, tmp_path):
    from theorykit.suites import load_suite

    gates = load_suite("gates")
    monkeypatch.setattr(gates, "_section4", _no_training)
    with pytest.raises(SpecError, match=r"theorykit\[gates\]"):
        gates.run(tmp_path, "quick", progress=False)


# ------------------------------------------------------------------------------------------------
# pyproject.toml declares every third-party package the installed code imports
# ------------------------------------------------------------------------------------------------
#: import name -> distribution name, where they differ
_DIST = {"sklearn": "scikit-learn", "flint": "python-flint"}
#: the folders that become the installed package (pyproject.toml's package-dir)
_SOURCES = ("theorykit", "validation", "derivations", "examples")


def _requirement_name(req: str) -> str:
    for stop in "[<>=!~; ":
        req = req.split(stop, 1)[0]
    return req.strip().lower()


def _third_party_imports():
    """(top-level import name, file, at module level?) for every absolute import in the installed
    sources that is neither the standard library nor theorykit itself."""
    out = []
    for folder in _SOURCES:
        for path in sorted((ROOT / folder).glob("*.py")) + sorted((ROOT / folder).glob("*/*.py")):
            if folder == "examples" and path.parent.name != "examples":
                continue                      # examples/notebooks, own_network: not in the wheel
            tree = ast.parse(path.read_text(), str(path))
            top_level = set(map(id, tree.body))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in ("theorykit", "__future__"):
                        out.append((top, path.relative_to(ROOT), id(node) in top_level))
    return out


def test_every_imported_package_is_declared_and_extras_are_imported_lazily():
    """mpmath (theory/modes.py, theory/exact_values.py) was imported but not declared: it came only
    as sympy's own requirement. A package of an extra only must not be imported at module level,
    or ``import theorykit...`` fails without the extra."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    required = {_requirement_name(r) for r in cfg["dependencies"]}
    extras = {_requirement_name(r) for reqs in cfg["optional-dependencies"].values() for r in reqs}
    found = _third_party_imports()
    assert {"numpy", "sympy", "jax", "mpmath", "sklearn"} <= {top for top, _, _ in found}   # the scan sees them
    for top, path, module_level in found:
        dist = _DIST.get(top, top).lower()
        if top == "jaxlib":
            dist = "jax"                      # jax requires its jaxlib
        assert dist in required or dist in extras, f"{path} imports {top}, which pyproject.toml does not declare"
        if dist not in required:
            assert not module_level, f"{path} imports {top} (extra only) at module level"


# ------------------------------------------------------------------------------------------------
# theorykit bench --repl, from a wheel: the example it derives is found inside the package
# ------------------------------------------------------------------------------------------------
def test_bench_repl_finds_its_example_where_a_wheel_installs_it(monkeypatch, tmp_path):
    """``measure()`` looked for ``<folder above theorykit>/examples/contexts_double.toml``: in a
    checkout that is ``examples/``, but from a wheel it is ``site-packages/examples``, which does not
    exist, so the measuring interpreter failed and ``theorykit bench --repl`` ended in "internal
    error (a bug in theorykit)". Here the module sits in a folder with no examples/ beside it, as
    in site-packages, and the interpreters are not started: their command lines are recorded."""
    import json
    import types

    from theorykit import bench_repl

    site = tmp_path / "site-packages" / "theorykit"
    site.mkdir(parents=True)
    monkeypatch.setattr(bench_repl, "__file__", str(site / "bench_repl.py"))
    calls = []

    def fake_run(cmd, **kwargs):
        calls.append(cmd)
        return types.SimpleNamespace(stdout=json.dumps({"imports": 0.0, "cases": {}}) + "\n", returncode=0)

    monkeypatch.setattr(bench_repl.subprocess, "run", fake_run)
    bench_repl.measure(repeats=1)
    measured = [c for c in calls if bench_repl.MEASURE in c]
    assert len(measured) == 1
    spec = Path(measured[0][-1])
    assert spec.is_file() and spec == example_path("contexts_double.toml")


def test_the_python_flint_floor_has_what_the_exact_engine_calls():
    """pyproject.toml allowed python-flint 0.6, where ``theory/exactla.py``'s ``flint.ctx.workprec``
    (the precision of the root enclosures of an irreducible Gram factor) does not exist:
    ``_real_roots(fmpz_poly([-2, 0, 1]))`` raised AttributeError there. python-flint's own changelog
    (README, "0.7.0", gh-251: "Add mpmath-style precision context managers ... workprec"; gh-132 and
    on: the fmpz_mpoly types ``_value_product_poly`` uses) puts both in 0.7.0."""
    import flint

    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (req,) = [r for r in cfg["dependencies"] if _requirement_name(r) == "python-flint"]
    floor = tuple(int(x) for x in req.split(">=", 1)[1].split(",")[0].split("#")[0].strip().split("."))
    assert floor >= (0, 7), req
    source = (ROOT / "theorykit" / "theory" / "exactla.py").read_text()
    assert "flint.ctx.workprec" in source and "fmpz_mpoly_ctx" in source     # what the floor is for
    assert hasattr(flint.ctx, "workprec") and hasattr(flint, "fmpz_mpoly_ctx")
