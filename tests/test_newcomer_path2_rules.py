"""Rules from a second newcomer's walk (README, docs/tutorial.md, ``theorykit --help`` and every
subcommand's ``--help``, the first notebooks).

What the walk found and these tests hold:

* ``--time-limit SECONDS`` said only "time limit of the size check (default 3600, or
  THEORYKIT_MAX_SECONDS)": not what happens at the limit (the run is refused before it starts, from its
  *estimated* time), nor that THEORYKIT_MAX_SECONDS is an environment variable;
* ``theorykit --help`` summarised ``bench`` as "(ratios in one run)", which says nothing to a reader
  who has not run it, and left out the REPL speed that README's table lists;
* ``theorykit derive SPEC`` without ``--set`` printed the "symbols … have no value" line twice on a
  terminal (at the top and again as a closing note);
* ``find-gates contexts`` / ``find-gates xor-margin``: --hidden, --lr and --steps defaulted to "the
  spec's", and a built-in task has no spec file to look in;
* docs/tutorial.md's section 5 rebound ``a0``, the SymPy symbol section 3 imported, to a float.
"""
from __future__ import annotations

import doctest
import json
import re
from pathlib import Path

import pytest
import sympy as sp

from theorykit.analysis import summary as S
from theorykit.cli import main
from theorykit.cli.parser import build_parser, commands
from theorykit.theory import trajectory

ROOT = Path(__file__).resolve().parent.parent


def _option_help(command: str, option: str) -> str:
    """The help text of ``option`` of subcommand ``command``, as argparse holds it (one line)."""
    sub = commands(build_parser())[command]
    (act,) = [a for a in sub._actions if option in a.option_strings]
    return " ".join(act.help.split())


@pytest.mark.parametrize("command", ["check", "derive", "simulate", "sweep"])
def test_time_limit_help_says_what_it_refuses_its_unit_default_and_the_variable(command):
    """--time-limit: the run is refused when its *estimated* time is over the limit, in seconds, 3600 by
    default, and THEORYKIT_MAX_SECONDS is named as an environment variable (theorykit/spec/limits.py:
    ``_env_number("THEORYKIT_MAX_SECONDS", 3600.0)``)."""
    text = _option_help(command, "--time-limit")
    assert "estimated" in text and "refuse" in text, text
    assert re.search(r"\bseconds\b", text), text
    assert "default 3600" in text, text
    assert "environment variable THEORYKIT_MAX_SECONDS" in text, text
    assert "--force" in text, text


def test_bench_summary_in_the_command_list_says_what_it_measures():
    """The line ``theorykit --help`` gives ``bench`` names what README's table names: derivation time,
    simulator throughput, REPL speed; and no unexplained "ratios"."""
    text = build_parser().format_help()
    line = " ".join(re.search(r"\n    bench\s+(.*?)\n\n", text, flags=re.S).group(1).split())
    assert "derivation time" in line and "simulator throughput" in line and "REPL speed" in line, line
    assert "ratios" not in line, line


def test_derive_summary_says_once_that_symbols_have_no_value(monkeypatch, capsys):
    """Without --set, the terminal summary says once that Δ has no value (the header line), not again as
    a closing note; the JSON document keeps its note (the next test)."""
    monkeypatch.setattr(S, "stdout_is_terminal", lambda: True)
    assert main(["derive", str(ROOT / "examples" / "xor_linear.toml")]) == 0
    out = capsys.readouterr().out
    assert len(re.findall(r"have no value", out)) == 1, out
    assert out.splitlines()[1].startswith("  symbols Delta have no value")


def test_derive_json_keeps_the_note_on_symbols_without_value(capsys):
    """The JSON document (what a script reads) still holds the note: only the terminal summary drops the
    repeat."""
    assert main(["derive", str(ROOT / "examples" / "xor_linear.toml"), "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert any("have no value" in n for n in doc["notes"])



@pytest.mark.parametrize("option, contexts_value, xor_value", [
    ("--hidden", "700", "128"),     # docs/theory.md#paper-settings: Section 4 ReLU 11 → 700 → 60; XoR 3 → 128 → 1
    ("--lr", "0.001", "0.05"),      # the same table: η = 0.001 (summed loss), XoR η = 0.05 (mean loss)
    ("--steps", "8001", "2000"),    # Section 4: 8001 steps; XoR: docs/tutorial.md's Training(..., steps=2000)
])
def test_find_gates_help_names_the_built_in_tasks_defaults(option, contexts_value, xor_value):
    """``find-gates contexts`` and ``find-gates xor-margin`` have no spec, so "default: the spec's" told a
    newcomer nothing: the help names each built-in task's value."""
    text = _option_help("find-gates", option)
    assert f"contexts {contexts_value}" in text, text
    assert f"xor-margin {xor_value}" in text, text


def test_tutorial_session_keeps_the_symbols_it_imports(tmp_path, monkeypatch):
    """docs/tutorial.md imports the SymPy symbols ``a0`` and ``tau`` (section 3) and the session goes on
    (README: "The tutorial continues this session"); section 5's loop rebound ``a0`` to a float, so
    ``expr.subs({a0: ...})`` typed afterwards silently substituted nothing. Run as written (doctest),
    ``a0`` and ``tau`` are still the symbols of theorykit.theory.trajectory at the end."""
    text = (ROOT / "docs" / "tutorial.md").read_text("utf-8")
    src = "\n".join(m.group(1) for m in re.finditer(r"```pycon\n(.*?)```", text, flags=re.S))
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(src, {}, "tutorial.md", "tutorial.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out: list[str] = []
    runner.run(test, out=out.append, clear_globs=False)
    assert runner.failures == 0, "".join(out)
    g = test.globs
    assert isinstance(g["a0"], sp.Symbol) and g["a0"] == trajectory.a0, g["a0"]
    assert isinstance(g["tau"], sp.Symbol) and g["tau"] == trajectory.tau, g["tau"]
