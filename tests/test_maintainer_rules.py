"""Rules from a new contributor's walkthrough: README, docs/api.md, docs/index.md, CHANGELOG.md and
pyproject.toml read as someone who must add a feature in a day, then a training option and a tiny
validation suite added end to end (and thrown away) to find where the docs and checks fell short.

Each rule is a promise the project makes -- "one way to do each thing", the layer contract of
docs/api.md ("Layout"), a command line with "a module per command", docstring examples that print
what they say -- checked where a contributor's change would break it silently. The expected values
are read from the docs and pyproject.toml, or written out by hand here, never taken from a run of
the code under test. Every test is static or tiny (well under 2 s each, the doctests aside).
"""
from __future__ import annotations

import argparse
import ast
import dataclasses
import doctest
import importlib
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "theorykit"
DOCS = ROOT / "docs"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


# ---------------------------------------------------------------------------------------------
# Docstring examples: nothing in CI ran them (neither .ci/run nor pyproject.toml asks for doctests)
# ---------------------------------------------------------------------------------------------
WITH_EXAMPLES = sorted(_module_name(p) for p in PKG.rglob("*.py") if ">>>" in p.read_text("utf-8"))


def test_the_package_has_docstring_examples_to_run():
    # by reading the sources: theorykit/__init__.py, spec.expr, spec.files, spec.gating,
    # theory.derivation, theory.jaxify and theory.svd hold ">>>" examples
    assert {"theorykit", "theorykit.theory.derivation", "theorykit.spec.files"} <= set(WITH_EXAMPLES)


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_every_docstring_example_prints_what_it_says(name):
    """The ``>>>`` lines of the package's docstrings (shown on the API page as pycon blocks) run and
    print what they show, as ``python -m doctest`` would read them."""
    mod = importlib.import_module(name)
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert res.attempted > 0, f"{name} has '>>>' in its source but doctest found no example in it"
    assert res.failed == 0, f"{res.failed} of {res.attempted} docstring examples of {name} fail (output above)"


# ---------------------------------------------------------------------------------------------
# The layer contract: an import by name at run time passed both lint-imports and test_architecture
# ---------------------------------------------------------------------------------------------
#: the modules allowed to import by a name computed at run time: the package's lazy flat namespace,
#: the command line's one module per command, and the loader of the validation suites
DYNAMIC_IMPORTERS = {"theorykit", "theorykit.cli", "theorykit.suites"}
_DYNAMIC = {"import_module", "__import__", "spec_from_file_location", "module_from_spec", "find_spec"}


def _dynamic_imports(source: str) -> list[str]:
    """The calls in ``source`` that import a module by a name computed at run time."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            if name in _DYNAMIC:
                out.append(f"line {node.lineno}: {ast.unparse(f)}(...)")
    return out


def test_the_dynamic_import_check_sees_one():
    """The check below can fail: a spec module reaching the simulator through importlib (which neither
    ``lint-imports`` nor tests/test_architecture.py sees: it is no import statement)."""
    src = "import importlib\n\ndef f():\n    return importlib.import_module('theorykit.sim.simulation').simulate\n"
    assert _dynamic_imports(src) == ["line 4: importlib.import_module(...)"]
    assert _dynamic_imports("from importlib import import_module as im\nim('x')\n") == []  # an alias: see below
    assert _dynamic_imports("from importlib import import_module\nimport_module('x')\n") == ["line 2: import_module(...)"]


def test_no_import_by_computed_name_below_the_interfaces():
    """docs/api.md: "A module imports only from its own layer or lower ones". An import by a name
    computed at run time (``importlib.import_module``, ``__import__``) is invisible to both checks of
    that rule, so only the three interfaces that need one may hold one; no module renames
    ``import_module`` on import (which would hide a call from this check)."""
    found = {}
    for p in sorted(PKG.rglob("*.py")):
        src = p.read_text("utf-8")
        name = _module_name(p)
        assert not re.search(r"import_module\s+as\b|__import__\s*as\b", src), f"{name} renames import_module"
        calls = _dynamic_imports(src)
        if calls and name not in DYNAMIC_IMPORTERS:
            found[name] = calls
    assert not found, f"imports by computed name outside {sorted(DYNAMIC_IMPORTERS)}: {found}"


# ---------------------------------------------------------------------------------------------
# The command line: "a module per command", and the pages that list the commands
# ---------------------------------------------------------------------------------------------
def _commands() -> dict:
    from theorykit.cli.parser import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_every_command_runs_in_its_own_module():
    """docs/api.md: "cli (a module per command)": each command's ``module`` is a file of theorykit/cli
    that defines ``run(args)`` (read from its source, not imported)."""
    for name, p in _commands().items():
        path = PKG / "cli" / f"{p.get_default('module')}.py"
        assert path.is_file(), f"command {name}: no {path.relative_to(ROOT)}"
        runs = [f for f in ast.parse(path.read_text("utf-8")).body if isinstance(f, ast.FunctionDef) and f.name == "run"]
        assert runs and [a.arg for a in runs[0].args.args] == ["args"], f"{path.name} has no run(args)"


def test_the_command_line_docstring_and_the_readme_name_every_command():
    """theorykit/cli/__init__.py's docstring ("Subcommands: ...; one module each") and the README's
    Commands table name every command of the parser. The docstring left out ``predict``."""
    import theorykit.cli as cli

    doc = cli.__doc__.split("Subcommands:", 1)[1].split(";", 1)[0]
    listed = {w.strip() for w in doc.replace("\n", " ").split(",")}
    assert listed == set(_commands()), f"cli/__init__.py's docstring lists {sorted(listed)}"
    readme = (ROOT / "README.md").read_text("utf-8")
    table = re.findall(r"^\| `theorykit ([a-z-]+)", readme, re.M)
    assert set(table) == set(_commands()), f"README's Commands table has {table}"


# ---------------------------------------------------------------------------------------------
# Validation suites: one list (theorykit.suites.SUITES), and what each suite module must define
# ---------------------------------------------------------------------------------------------
def test_every_suite_is_named_where_a_user_looks_for_it():
    """The suites ``validate`` runs are theorykit.suites.SUITES; the ``validate`` help, the README's
    Commands table and docs/validation.md (a section ``## … (`name`)`` each) name the same ones, so a
    suite added to SUITES is not missing from a page."""
    from theorykit.suites import SUITES

    v = _commands()["validate"]
    positional = next(a for a in v._actions if a.dest == "suite")
    assert positional.help.split(" | ") == [*SUITES, "all"]
    readme = (ROOT / "README.md").read_text("utf-8")
    row = re.search(r"^\| `theorykit validate ([^ `]+)", readme, re.M).group(1)
    assert row.split("\\|") == [*SUITES, "all"]
    sections = re.findall(r"^## .*\(`([a-z_]+)`\)\s*$", (DOCS / "validation.md").read_text("utf-8"), re.M)
    assert sections == list(SUITES)


def _assigned(tree, name):
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node.value.value if isinstance(node.value, ast.Constant) else None
    return None


@pytest.mark.parametrize("name", __import__("theorykit.suites", fromlist=["SUITES"]).SUITES)
def test_every_suite_module_defines_what_the_runner_reads(name):
    """validation/__init__.py: "Each suite module defines NAME, DESCRIPTION and
    run(out_dir, mode, progress=True) -> dict" (read from the source, not imported)."""
    tree = ast.parse((ROOT / "validation" / f"{name}.py").read_text("utf-8"))
    assert _assigned(tree, "NAME") == name
    assert isinstance(_assigned(tree, "DESCRIPTION"), str) and _assigned(tree, "DESCRIPTION").strip()
    run = next(f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == "run")
    assert [a.arg for a in run.args.args][:3] == ["out_dir", "mode", "progress"]
    # progress defaults to True (the last default belongs to the last positional argument before config)
    defaults = dict(zip([a.arg for a in run.args.args][-len(run.args.defaults):], run.args.defaults))
    assert ast.literal_eval(defaults["progress"]) is True


# ---------------------------------------------------------------------------------------------
# Spec fields: a field added to a spec dataclass must reach the file format, both ways
# ---------------------------------------------------------------------------------------------
def test_every_spec_dataclass_field_is_a_spec_file_key():
    """A spec file's tables hold the fields of the dataclasses they build (docs/specs.md lists the
    keys; tests/test_docs.py keeps that page in step with the keys): a field added to ``Training``,
    ``Pathway``, ``Node``, ``Edge`` or ``Group`` without its key could not be written to a file."""
    from theorykit.spec import files
    from theorykit.spec.gating import Pathway, Training
    from theorykit.spec.graph import Edge, Group, Node

    def names(cls):
        return [f.name for f in dataclasses.fields(cls)]

    assert names(Training) == list(files.TRAINING_KEYS)
    assert names(Pathway) == list(files.PATHWAY_KEYS)
    assert names(Node) == list(files.NODE_KEYS)
    assert names(Group) == list(files.SCHEDULE_KEYS)
    # an edge's src and dst are written "from" and "to" (docs/graphs.md)
    assert [{"src": "from", "dst": "to"}.get(n, n) for n in names(Edge)] == list(files.EDGE_KEYS)


def test_every_training_field_survives_a_spec_file():
    """``spec_to_toml`` then ``spec_from_dict`` gives back every training setting, each set away from
    its default (a field the writer forgot would come back as its default)."""
    import theorykit as tk
    from theorykit.spec.files import spec_from_dict, spec_to_toml

    defaults = tk.Training()
    # every value differs from the default written in Training (lr 0.05, loss mean, a0 1e-3,
    # init_std 0.01, steps 2000)
    tr = tk.Training(lr=0.02, loss="sum", a0=2e-4, init_std=0.03, steps=123)
    assert all(getattr(tr, f.name) != getattr(defaults, f.name) for f in dataclasses.fields(tk.Training))
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tr)
    back = spec_from_dict(tomllib.loads(spec_to_toml(spec)))
    assert back.training == tr


# ---------------------------------------------------------------------------------------------
# The flat namespace and the layer pages
# ---------------------------------------------------------------------------------------------
def test_every_flat_name_is_on_the_api_page():
    """docs/api.md renders whole modules (``::: module``, members with a docstring only): every name
    of ``tk.__all__`` must be defined in one of them and have a docstring, or the page leaves it out."""
    import theorykit as tk

    rendered = set(re.findall(r"^::: (\S+)", (DOCS / "api.md").read_text("utf-8"), re.M))
    missing = []
    for name in tk.__all__:
        if name == "__version__":
            continue
        obj = getattr(tk, name)
        if obj.__module__ not in rendered or not (obj.__doc__ or "").strip():
            missing.append(f"{name} ({obj.__module__})")
    assert not missing, f"flat names the API page does not show: {missing}"


def _contract_packages() -> list[str]:
    """The one-package layers of pyproject.toml's import-linter contract, lowest first."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    layers = cfg["tool"]["importlinter"]["contracts"][0]["layers"]
    return [layer for layer in reversed(layers) if (PKG / layer.split(".", 1)[1]).is_dir()]


def test_the_install_page_walks_the_layers_in_the_contracts_order():
    """docs/index.md says "the package's folders follow" the data flow and names them in order; they
    must be the subpackages of the layer contract (pyproject.toml), in its order. By hand: spec < net
    < theory < sim < analysis < cli. The page left out ``theorykit.net`` and put the networks in
    ``theorykit.sim`` and the curve metrics in ``theorykit.analysis``."""
    packages = _contract_packages()
    assert packages == ["theorykit.spec", "theorykit.net", "theorykit.theory", "theorykit.sim",
                        "theorykit.analysis", "theorykit.cli"]
    text = (DOCS / "index.md").read_text("utf-8")
    para = text.split("the package's folders follow it:", 1)[1].split("\n\n", 1)[0]
    named = [m for m in re.findall(r"`(theorykit\.[a-z_]+)`", para) if m in packages]
    assert named == packages


# ---------------------------------------------------------------------------------------------
# Packaging: the editable install of the docs and CI hides what a wheel would leave out
# ---------------------------------------------------------------------------------------------
def _globbed(rel: str, pattern: str) -> bool:
    """Whether setuptools' package-data ``pattern`` (a glob relative to the package folder, whose ``*``
    stays inside one folder) takes the file at ``rel``."""
    import fnmatch

    a, b = rel.split("/"), pattern.split("/")
    return len(a) == len(b) and all(fnmatch.fnmatchcase(x, y) for x, y in zip(a, b))


def test_the_globbing_rule_stays_inside_a_folder():
    assert _globbed("xor_linear.toml", "*.toml") and _globbed("predict/xor_data.toml", "predict/*.toml")
    assert not _globbed("predict/xor_data.toml", "*.toml")


def test_a_wheel_holds_every_package_and_every_example_spec():
    """The README's installs are editable (``pip install -e``), which find any folder of the checkout,
    so a subpackage missing from ``[tool.setuptools] packages`` or an example spec missing from the
    package data only fails for a user who installs the wheel. ``example_path`` reads
    ``examples/**/*.toml`` (``load_task``'s docstring example reads ``predict/xor_data.toml``); the
    package data held only ``*.toml``, so a wheel had no ``examples/predict`` and the example failed
    with a FileNotFoundError."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    st = cfg["tool"]["setuptools"]
    packages = set(st["packages"])
    for init in PKG.rglob("__init__.py"):
        name = ".".join(init.parent.relative_to(ROOT).parts)
        assert name in packages, f"{name} is not in [tool.setuptools] packages of pyproject.toml"
    assert st["package-dir"]["theorykit.examples"] == "examples"
    patterns = st["package-data"]["theorykit.examples"]
    for f in (ROOT / "examples").rglob("*.toml"):
        rel = f.relative_to(ROOT / "examples").as_posix()
        assert any(_globbed(rel, p) for p in patterns), f"examples/{rel} is in no package-data pattern {patterns}"


def _contract_layers() -> list[list[str]]:
    """pyproject.toml's import-linter layers, lowest first, each a list of its modules."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    layers = cfg["tool"]["importlinter"]["contracts"][0]["layers"]
    return [re.split(r"\s*[|:]\s*", layer.strip()) for layer in reversed(layers)]


def test_every_top_level_module_has_a_place_in_the_layer_contract():
    """A module of theorykit/ that the contract does not name is in no layer: lint-imports checks
    nothing about its own imports. Every top-level module and subpackage must be in one (the
    package's ``__main__``, two lines that call the command line, and ``assets``, data only, aside)."""
    named = {m for layer in _contract_layers() for m in layer}
    top = {f"theorykit.{p.stem}" for p in PKG.glob("*.py") if p.stem not in ("__init__", "__main__")}
    top |= {f"theorykit.{p.parent.name}" for p in PKG.glob("*/__init__.py")}
    assert top - named == set(), f"in no layer of pyproject.toml's contract: {sorted(top - named)}"
    assert named - top == set(), f"the contract names modules that do not exist: {sorted(named - top)}"


def test_the_two_layer_checks_agree():
    """tests/test_architecture.py keeps its own list of layers beside pyproject.toml's contract (it
    checks cycles and function-level imports too). Its layers may be coarser, never in another order:
    a module below another in one list is not above it in the other."""
    from test_architecture import LAYERS

    theirs = {m: i for i, group in enumerate(LAYERS) for m in group if m not in ("theorykit", "theorykit.__main__")}
    ours = {m: i for i, layer in enumerate(_contract_layers()) for m in layer}
    assert set(theirs) == set(ours), sorted(set(theirs) ^ set(ours))
    wrong = [(a, b) for a in ours for b in ours if ours[a] < ours[b] and theirs[a] > theirs[b]]
    assert not wrong, f"ordered one way in pyproject.toml and the other in test_architecture.py: {wrong}"


def test_the_removed_flat_names_stay_removed():
    """CHANGELOG.md's "Removed names" table: each ``tk.NAME`` of its left column (0.1.0's flat names)
    is gone from ``import theorykit as tk``, with an AttributeError, and is not in ``tk.__all__``."""
    import theorykit as tk

    text = (ROOT / "CHANGELOG.md").read_text("utf-8").split("### Removed names", 1)[1].split("\n## ", 1)[0]
    old = {n for row in re.findall(r"^\| (.*?) \| .* \|$", text, re.M) for n in re.findall(r"`tk\.([A-Za-z_]\w*)", row)}
    # by reading the table: simulate_gdln, simulate_relu, simulate_relu_spec, integrate_race, Net, SaveAt,
    # SimResult, train, integrate, graph_flow, load_weights, numeric_svd, t, tau, a0, ... (19 or more)
    assert {"simulate_gdln", "simulate_relu", "Net", "SaveAt", "train", "integrate", "t", "tau", "a0"} <= old
    for name in sorted(old):
        assert name not in tk.__all__, name
        with pytest.raises(AttributeError):
            getattr(tk, name)


# ---------------------------------------------------------------------------------------------
# The one trainer: what it records is a SaveAt, as the integrator's is
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("save", [[0, 10], {"ts": [0, 10]}, []])
def test_the_trainer_names_a_save_that_is_not_a_saveat(save):
    """docs/api.md: the trainer records "with theorykit.record.SaveAt(ts=…, fns=…)", the same SaveAt
    as the integrator's, which refuses anything else by name. ``RaceSystem.solve`` takes a list of
    times for short, so a list is what a user tries; ``tk.simulate``, ``train_net`` and ``train``
    raised AttributeError ('list' object has no attribute 'fns'), and an empty list was dropped."""
    import jax.numpy as jnp

    import theorykit as tk
    from theorykit.errors import SpecError
    from theorykit.net.layout import Net, net_loss
    from theorykit.net.starts import random_params
    from theorykit.sim.engine import train, train_net

    net = Net.chain(2, [3], 1)
    p0 = random_params(net, 0.1, seeds=1)
    data = (jnp.ones((2, 4)), jnp.ones((1, 4)))
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=0.05))
    runs = [lambda: tk.simulate(spec, values={"Delta": 1.0}, seeds=1, steps=2, save=save),
            lambda: tk.simulate(spec, network="relu", values={"Delta": 1.0}, seeds=1, steps=2, save=save,
                                snapshot_every=1),
            lambda: train_net(net, p0, data, lr=0.1, steps=2, save=save),
            lambda: train(net_loss(net), p0, data, lr=0.1, steps=2, save=save)]
    for run in runs:
        with pytest.raises(SpecError, match="SaveAt") as err:
            run()
        assert err.value.field == "save"


def test_the_trainer_still_records_at_the_steps_a_saveat_names():
    """The check above lets a SaveAt through: recorded at steps 0 and 2, as asked (a two-step run of a
    2-3-1 network; the weights at step 0 are the start itself)."""
    import jax.numpy as jnp
    import numpy as np

    from theorykit.net.layout import Net
    from theorykit.net.starts import random_params
    from theorykit.record import SaveAt
    from theorykit.sim.engine import train_net

    net = Net.chain(2, [3], 1)
    p0 = random_params(net, 0.1, seeds=1)
    res = train_net(net, p0, (jnp.ones((2, 4)), jnp.ones((1, 4))), lr=0.1, steps=2,
                    save=SaveAt(ts=[0, 2], fns={"w": lambda p, d: p["input->h1"]}))
    assert list(res.saved_t) == [0, 2]
    np.testing.assert_array_equal(np.asarray(res.saved["w"])[:, 0], np.asarray(p0["input->h1"]))


def test_the_package_docstring_walks_the_layers_in_the_contracts_order():
    """``help(theorykit)``: "Data flows one way: spec → … → interfaces" names the contract's
    subpackages below the interfaces in its order (by hand: spec, net, theory, sim, analysis); it
    left out ``net``."""
    import theorykit

    chain = theorykit.__doc__.split("Data flows one way:", 1)[1].split("interfaces", 1)[0]
    named = [w.strip() for w in chain.split("→") if w.strip()]
    assert [f"theorykit.{w}" for w in named] == _contract_packages()[:-1]


def test_the_contributing_page_names_files_and_functions_that_exist():
    """docs/contributing.md sends a contributor to files and functions by name: each source file it
    names (``spec/files.py``, ``cli/parser.py``, …, under theorykit/ or the root) exists, and each
    dotted name (``spec.fields.loss_name``, ``sim.engine.train``, …) resolves in theorykit."""
    text = (DOCS / "contributing.md").read_text("utf-8")
    code = re.findall(r"`([^`\s]+)`", text)
    files = [c for c in code if re.fullmatch(r"[\w./]+\.(py|md|toml)", c) and "NAME" not in c and "module" not in c]
    assert len(files) >= 10
    for f in files:
        assert (ROOT / f).exists() or (PKG / f).exists() or (DOCS / f).exists(), f
    dotted = [c for c in code if re.fullmatch(r"(theorykit\.)?(spec|net|theory|sim|analysis|record)(\.\w+)+", c)]
    assert {"spec.fields.loss_name", "sim.engine.train", "spec.expr.parse_expr"} <= set(dotted)
    for name in dotted:
        parts = name.removeprefix("theorykit.").split(".")
        obj = importlib.import_module(f"theorykit.{parts[0]}")
        for part in parts[1:]:
            obj = getattr(obj, part, None) or importlib.import_module(f"{obj.__name__}.{part}")
        assert obj is not None, name
