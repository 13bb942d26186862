"""Rules from a maintainer's pass over the mends list: a name that gave a module where the docs promise
a function, own-module imports left inside functions, one test harness written twice, a silent
``Task.subs`` typo, and the message of ``float()`` of a derivation's time with symbols left free.

Expected values are written out by hand here (or read from the docs), never taken from a run of the
code under test. Every test is tiny.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import sympy as sp
import pytest

import theorykit as tk

PKG = Path(__file__).resolve().parents[1] / "theorykit"


# ---------------------------------------------------------------------------------------------
# 1. ``from theorykit.sim import simulate`` was the module theorykit/sim/simulate.py
# ---------------------------------------------------------------------------------------------
def test_from_sim_import_simulate_is_the_function():
    """docs/api.md: ``tk.simulate`` is the one way to simulate; the subpackage's name for it was the module
    (``simulate(spec)`` failed with "'module' object is not callable"). The module is now ``simulation``."""
    from theorykit.sim import simulate

    assert callable(simulate) and simulate is tk.simulate
    from theorykit.sim import simulation

    assert simulation.simulate is tk.simulate
    # it runs: one input, one output (y = 2x, P = 1), a ReLU network of one hidden unit, one step
    X, Y = np.array([[1.0]]), np.array([[2.0]])
    res = simulate((X, Y), network="relu", hidden=1, lr=0.01, steps=1, seeds=1)
    assert isinstance(res, tk.Trajectory)


@pytest.mark.parametrize("module", ["theorykit.sim", "theorykit.analysis.exhaust", "theorykit.report", "theorykit.cli"])
def test_imported_first_in_a_fresh_interpreter(module):
    """An import moved to module level must not create a cycle: each module touched by the mends is imported
    first thing in a fresh interpreter (where a cycle shows as an ImportError)."""
    r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]


# ---------------------------------------------------------------------------------------------
# 2. Own-module imports inside functions
# ---------------------------------------------------------------------------------------------
def _own_imports_in(path: Path, function: str) -> list[str]:
    """The relative (own-package) imports inside ``function`` of the module at ``path``."""
    tree = ast.parse(path.read_text("utf-8"))
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    return [ast.unparse(n) for n in ast.walk(fn) if isinstance(n, ast.ImportFrom) and n.level > 0]


@pytest.mark.parametrize("path, function", [("analysis/exhaust.py", "race_exhaust"), ("report.py", "build_results")])
def test_no_own_import_left_inside_these_functions(path, function):
    """``race_exhaust`` imported ``..progress`` and ``build_results`` the package's ``__version__`` inside the
    function, though neither creates a cycle at module level (the fresh-interpreter test above): they are at the
    top now, where a reader of the module's imports sees them."""
    assert _own_imports_in(PKG / path, function) == []


def test_the_command_lines_parser_loads_no_sympy():
    """The one own-module import left inside a function, ``cli._unrecognized``'s ``..spec.files``, stays there for
    this: theorykit/cli/__init__.py's docstring promises ``--help`` at once, with nothing but argparse, and
    spec.files loads SymPy."""
    assert _own_imports_in(PKG / "cli" / "__init__.py", "_unrecognized") == ["from ..spec.files import TRAINING_KEYS"]
    code = "import sys\nfrom theorykit.cli import build_parser\nbuild_parser()\nprint('sympy' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr[-2000:]


# ---------------------------------------------------------------------------------------------
# 4. Task.subs ignored a name that is no symbol of the task
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key, named", [("Delt", "no symbol 'Delt'"), ("delta", "no symbol 'delta'"),
                                        (sp.Symbol("Delta"), "no symbol 'Delta' (a SymPy Symbol of its own"),
                                        (1, "no symbol 1;")])
def test_task_subs_refuses_a_key_that_is_no_symbol(key, named):
    """xor_margin's only symbol is Delta (docs/theory.md, Section 4). A misspelt name, a lower-case one, a
    SymPy Symbol without Delta's assumptions (SymPy counts it as another symbol) gave back the task unchanged;
    a number key replaced that number in the entries (1 -> 7 in X). Now a SpecError names the key and the
    task's symbols, and the fix keys a value by name."""
    task = tk.xor_margin()
    with pytest.raises(tk.SpecError) as exc:
        task.subs({key: 0.5})
    assert exc.value.field == "values"
    assert named in exc.value.problem and "['Delta']" in exc.value.problem
    assert "'Delta': 0.5" in exc.value.fix
    with pytest.raises(tk.SpecError, match="'delta'"):          # through a spec, as Derivation and the CLI call it
        tk.GDLNSpec(task, tk.xor_relns()["xor"]).subs({"delta": 0.5})


def test_task_subs_still_takes_names_and_the_tasks_own_symbols():
    """The keys the docstring promises: a name, or the task's own symbol. docs/theory.md ("XoR with a margin"):
    x = (x1, x2, Δ·x1·x2), so at Δ = 1/2 each column's third input is x1·x2/2."""
    task = tk.xor_margin()
    for key in ("Delta", task.symbols["Delta"]):
        t = task.subs({key: sp.Rational(1, 2)})
        assert t.free_symbols == set()
        assert all(t.X[2, j] == sp.Rational(1, 2) * t.X[0, j] * t.X[1, j] for j in range(4))
    assert task.subs({}).free_symbols == {task.symbols["Delta"]}


# ---------------------------------------------------------------------------------------------
# 5. float() of a half-way time with symbols left free: SymPy's "Cannot convert expression to float"
# ---------------------------------------------------------------------------------------------
def test_the_t_half_docstring_says_what_is_free_and_how_to_give_it():
    """float(der.t_half[name][0]) is SymPy's float() of an expression: theorykit cannot word its error. The
    property's docstring now names that error, which symbols stay free (τ and a0 always; the task's without values)
    and how to give each, and points to the tutorial's worked example (run by tests/test_docs.py)."""
    from theorykit.theory.derivation import Derivation

    text = " ".join(Derivation.t_half.__doc__.split())
    for said in ("Cannot convert expression to float", "values={...}", "--set NAME=VALUE", "τ (1/lr) and a0 by ``subs``",
                 "docs/tutorial.md"):
        assert said in text, said
    tutorial = (Path(__file__).resolve().parents[1] / "docs" / "tutorial.md").read_text("utf-8")
    assert "from theorykit.theory.trajectory import a0, tau" in tutorial


def test_t_half_with_its_symbols_given_is_the_closed_form_number():
    """The docstring's recipe gives the closed form's number. docs/theory.md ("XoR with a margin"): the linear
    ReLN's positive pathway has s = Δ/2 and d = Δ²/2; the two-layer half-way time is τ/(2s)·ln(s/(d·a0) − 1).
    At Δ = 1/2, lr = 0.01 (τ = 100), a0 = 10⁻³: s = 1/4, s/d = 2, t½ = 200·ln(1999)."""
    import math

    from theorykit.theory.trajectory import a0, tau

    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=0.01, a0=1e-3))
    th = tk.Derivation(spec, values={"Delta": 0.5}).t_half["positive"][0]
    with pytest.raises(TypeError, match="Cannot convert expression to float"):    # SymPy's, as documented
        float(th)
    assert th.free_symbols == {tau, a0}
    assert float(th.subs({tau: 100, a0: sp.Rational(1, 1000)})) == pytest.approx(200 * math.log(1999), rel=1e-12)
