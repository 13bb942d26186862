"""Rules from a docs auditor, a careful newcomer who types exactly what the docs say.

docs/api.md's "From SymPy to JAX" has the reader build the task of targets [[Δ, 0], [0, 1]] on the
inputs I₂ and hand its loss to ``tk.to_jax``. Typed with ``Delta`` declared ``real`` (the spec
files' plainest assumption) that stopped twice: at a product x^m·(sum)^n whose sum has no term
dividing by x (``to_jax(x**2 * (y + 1)**2, [x, y])``: an AttributeError from inside the rewrite
for small s), and at the singular value |Δ|, which SymPy prints as Python's ``abs`` and to_jax
refused. Expected values are by hand, in the docstrings and comments.
"""
import math
import re
from pathlib import Path

import jax
import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.theory.trajectory import a0, t, tau


def test_to_jax_of_a_power_times_a_power_of_a_sum_free_of_it():
    """f = x²(y + 1)²: f(2, 0.5) = 4 · 2.25 = 9; ∂f/∂x = 2x(y + 1)² = 9, ∂f/∂y = 2x²(y + 1) = 12."""
    x, y = sp.symbols("x y")
    f = tk.to_jax(x ** 2 * (y + 1) ** 2, [x, y])
    assert float(f(2.0, 0.5)) == pytest.approx(9.0, rel=1e-14)
    gx, gy = jax.grad(f, argnums=(0, 1))(2.0, 0.5)
    assert (float(gx), float(gy)) == pytest.approx((9.0, 12.0), rel=1e-12)


def _hand_loss(delta, t_, tau_, a0_):
    """Targets diag(Δ, 1) on I₂, mean loss (P = 2): Σ^yx = diag(Δ, 1)/2, Σ^x = I/2, so the modes are
    s = |Δ|/2 and 1/2, each d = 1/2; L = ½ tr Σ^y − Σ (s a − d a²/2), ½ tr Σ^y = (Δ² + 1)/4, with
    a(t) = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}) (docs/theory.md, the closed form)."""
    total = (delta ** 2 + 1) / 4
    for s, d in ((abs(delta) / 2, 0.5), (0.5, 0.5)):
        a = (s / d) / (1 + (s / (d * a0_) - 1) * math.exp(-2 * s * t_ / tau_))
        total -= s * a - d * a * a / 2
    return total


def test_to_jax_of_a_loss_whose_singular_value_is_abs_of_a_real_symbol():
    """With Delta real the singular value is |Δ|/2, printed Abs(Delta)/2: to_jax now translates it, and the
    loss matches the hand closed form on both sides of 0 (even in Δ), its gradient the hand formula's
    central difference (odd in Δ), under jit and vmap."""
    spec = tk.spec_from_dict({"name": "diag", "symbols": {"Delta": {"real": True}},
                              "data": {"inputs": [[1, 0], [0, 1]], "targets": [["Delta", 0], [0, 1]]},
                              "pathways": [{"name": "p", "active": [1, 1], "hidden": 8}],
                              "training": {"lr": 0.01, "a0": 0.001, "loss": "mean"}})
    der = tk.Derivation(spec)
    D = der.task.symbols["Delta"]
    assert der.loss.has(sp.Abs)                     # the case this test is about
    L = tk.to_jax(der.loss, [t, tau, a0, D])
    for d in (-0.7, 0.7, 1.3):
        assert float(L(300.0, 100.0, 1e-3, d)) == pytest.approx(_hand_loss(d, 300.0, 100.0, 1e-3), rel=1e-12)
    h = 1e-6
    want = [(_hand_loss(d + h, 300.0, 100.0, 1e-3) - _hand_loss(d - h, 300.0, 100.0, 1e-3)) / (2 * h)
            for d in (-0.7, 0.7)]
    grads = jax.jit(jax.vmap(jax.grad(L, argnums=3), in_axes=(None, None, None, 0)))(
        300.0, 100.0, 1e-3, np.array([-0.7, 0.7]))
    np.testing.assert_allclose(np.asarray(grads), want, rtol=1e-6)
    assert float(grads[0]) == pytest.approx(-float(grads[1]), rel=1e-12)


def _specs_md_defaults():
    """{field: default as written} of docs/specs.md's field reference (the table's last column)."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "specs.md").read_text("utf-8")
    section = text.split("## Field reference", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \|(.*)\|\s*$", section, flags=re.M)
    return {field: cells.split("|")[-1].strip() for field, cells in rows}


def test_specs_md_quoted_defaults_are_the_parsers():
    """The defaults docs/specs.md quotes for [training], [[pathways]] and the built-in tasks are what a spec
    that leaves the key out gets (the page had no check of its default column, only of its field names)."""
    written = _specs_md_defaults()
    bare = tk.spec_from_dict({"data": {"inputs": [[1, 0]], "targets": [[1, 0]]},
                              "pathways": [{"name": "p", "active": "all"}]})
    for key in ("lr", "loss", "a0", "init_std", "steps"):
        value = getattr(bare.training, key)
        assert written[f"training.{key}"].strip('`"') == (value if isinstance(value, str) else f"{value:g}"), key
    p = bare.pathways[0]
    assert (written["pathways[].hidden"], written["pathways[].depth"]) == (str(p.hidden), str(p.depth))
    assert written["pathways[].inputs"] == written["pathways[].outputs"] == '`"all"`'
    assert (p.inputs, p.outputs) == ((0,), (0,))          # "all" of a 1 × 2 task: row 0
    # the built-in tasks: contexts n = 8, k = 3 is d = n + k = 11 inputs, P = n·k = 24 datapoints
    n, k = int(written["data.n"]), int(written["data.k"])
    ctx = tk.spec_from_dict({"data": {"task": "contexts", "reln": "double"}})
    assert ctx.task.X.shape == (n + k, n * k)
    hx, hc = re.fullmatch(r"(\d+) \(xor-margin\), (\d+) \(contexts\)", written["data.hidden"]).groups()
    assert {p.hidden for p in ctx.pathways} == {int(hc)}
    xor = tk.spec_from_dict({"data": {"task": "xor-margin", "reln": "xor"}})
    assert sum(p.hidden for p in xor.pathways) == int(hx)     # xor-margin: the total width
    assert written["data.Delta"] == "the symbol `Delta`" and set(xor.task.symbols) == {"Delta"}


_ROOT = Path(__file__).resolve().parent.parent
_COMMAND = re.compile(r"theorykit((?: --[a-z-]+)*) ([a-z-]+)([^`\n|#;&]*)")


def _option_misuses(text, commands, top):
    """(command, option) for each ``theorykit [TOP-OPTS] COMMAND … --option`` in ``text`` whose option the
    command does not have, and the number of command lines read."""
    bad, seen = [], 0
    for m in _COMMAND.finditer(text):
        cmd = m.group(2)
        if cmd not in commands:          # prose: "theorykit reads …"
            continue
        seen += 1
        bad += [(cmd, o) for o in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", m.group(3))
                if o not in commands[cmd] and o not in top]
        bad += [("theorykit", o) for o in re.findall(r"--[a-z][a-z0-9-]*", m.group(1)) if o not in top]
    return bad, seen


def test_every_command_line_the_docs_show_uses_options_its_command_has():
    """Every ``theorykit COMMAND … --option`` written in the README, the docs pages, the CHANGELOG, the
    notebooks and examples, and the package's and suites' own messages and docstrings uses an option that
    COMMAND's parser has (docs/cli.md is generated from the parser; the prose and the examples are not)."""
    import argparse

    from theorykit.cli.parser import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    top = {o for a in parser._actions for o in a.option_strings}
    commands = {n: {o for a in p._actions for o in a.option_strings} for n, p in sub.choices.items()}
    # the check catches a misuse, also behind a global option, and skips prose
    assert _option_misuses("`theorykit derive x.toml --compare` and theorykit reads --nothing", commands, top) \
        == ([("derive", "--compare")], 1)
    assert _option_misuses("theorykit --distributed simulate s.toml --seeds 8 --quick", commands, top)[0] \
        == [("simulate", "--quick")]
    files = [_ROOT / "README.md", _ROOT / "CHANGELOG.md", *(_ROOT / "docs").rglob("*.md"),
             *(_ROOT / "examples").rglob("*.py"), *(_ROOT / "examples").rglob("*.toml"),
             *(_ROOT / "theorykit").rglob("*.py"), *(_ROOT / "validation").rglob("*.py")]
    bad, seen = [], 0
    for f in files:
        if f.name == "cli.md":
            continue
        b, n = _option_misuses(f.read_text("utf-8"), commands, top)
        bad += [f"{f.relative_to(_ROOT)}: theorykit {c} … {o}" for c, o in b]
        seen += n
    assert seen > 100, seen                     # the scan reads the docs' command lines
    assert bad == [], "\n".join(bad)


def test_derivation_script_piped_to_head_exits_141_without_traceback_and_writes_its_file(tmp_path):
    """README's ``python -m theorykit.derivations.k_contexts`` piped into ``head`` (the reader leaves early)
    ended in a BrokenPipeError traceback and never wrote its ``--latex`` file; it now goes on as the
    ``theorykit`` commands do (docs/cli.md: 141 stdout closed by its reader) and writes the file."""
    import subprocess
    import sys

    out = tmp_path / "k.tex"
    p = subprocess.Popen([sys.executable, "-m", "theorykit.derivations.k_contexts", "--quick", "--latex", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    p.stdout.close()                       # the reader leaves before the first line (the imports take a second)
    err = p.stderr.read().decode()
    assert p.wait(timeout=300) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert out.read_text("utf-8").startswith("\\documentclass")


def test_two_outputs_to_dev_null_are_written_as_it_is_and_two_to_one_file_still_refused(tmp_path, capsys):
    """docs/index.md: a device such as /dev/null is written as it is, so ``derive --json /dev/null --latex
    /dev/null`` (discard both) replaces nothing; it was refused ("one result would replace the other", exit
    2). Two outputs to one regular file are still refused, naming the second option."""
    import os

    from theorykit.cli import main
    from theorykit.cli.common import check_outputs

    spec = tmp_path / "s.toml"
    spec.write_text('[data]\ninputs = [[1, 0]]\ntargets = [[1, 0]]\n[[pathways]]\nname = "p"\nactive = "all"\n')
    assert main(["derive", str(spec), "--json", "/dev/null", "--latex", "/dev/null"]) == 0
    assert os.path.exists("/dev/null") and tk.io.is_special("/dev/null")
    with pytest.raises(tk.SpecError) as err:
        check_outputs(("--json", tmp_path / "a.out"), ("--latex", tmp_path / "a.out"))
    assert err.value.field == "--latex"
    capsys.readouterr()
