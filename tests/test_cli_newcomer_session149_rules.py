"""Rules found by a newcomer's first hour with the command line (session 149): every command's
--help, the examples it shows, the mistakes a first user makes and the progress of long runs.
Each test names the command a user typed and what it printed before the fix."""
import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from theorykit.cli import main
from theorykit.cli.parser import build_parser, commands

ROOT = Path(__file__).resolve().parents[1]
TRAIN = "python examples/own_network/train_digits.py --out run/"


# ------------------------------------------------------------------------------------------------
# Every command's --help shows an example that runs as written
# ------------------------------------------------------------------------------------------------
# Before: `theorykit simulate --help` (and every other command's) ended with its options: no example.
# The examples were only in `theorykit --help`, and there `theorykit find-gates --checkpoints
# 'run/step_*.safetensors' --data run/data.npz --out found.toml`, pasted as written, answered
# "error in --data: no such file: run/data.npz": nothing shown made run/ (docs/own_network.md does,
# with examples/own_network/train_digits.py).
def _examples(text: str) -> list[str]:
    """The lines of the "example:"/"examples:" section of a help text (up to the first blank line)."""
    m = re.search(r"^examples?:\n((?:  .+\n?)+)", text, re.MULTILINE)
    return [line.strip() for line in m.group(1).splitlines()] if m else []


def _check_example_lines(lines: list[str], where: str) -> None:
    """Each line is a command that runs as written from the checkout: a `theorykit` line parses with
    theorykit's own parser (no argparse error, nothing left over), every examples/ file it names
    exists, and a run/ folder it reads was made by the training script on an earlier line."""
    made_run = False
    for line in lines:
        words = shlex.split(line)
        if words[0] == "python":
            assert words[1] == "examples/own_network/train_digits.py" and (ROOT / words[1]).is_file(), line
            made_run = made_run or words[2:] == ["--out", "run/"]
            continue
        assert words[0] == "theorykit", (where, line)
        args, extra = build_parser().parse_known_args(words[1:])
        assert not extra and args.module, (where, line)
        for word in words:
            if word.startswith("examples/"):
                assert (ROOT / word).exists(), (where, word)
        if any(w.startswith("run/") for w in words):
            assert made_run, f"{where}: {line!r} reads run/ before any line makes it"


@pytest.mark.parametrize("name", sorted(commands(build_parser())))
def test_every_command_help_shows_an_example_of_that_command_that_runs_as_written(name):
    text = commands(build_parser())[name].format_help()
    lines = _examples(text)
    assert lines, f"theorykit {name} --help shows no example"
    assert any(shlex.split(line)[:2] == ["theorykit", name] for line in lines), (name, lines)
    _check_example_lines(lines, name)


def test_the_top_level_examples_make_the_run_they_read():
    lines = _examples(build_parser().format_help())
    assert len(lines) >= 10 and TRAIN in lines
    _check_example_lines(lines, "theorykit --help")


def test_the_check_and_derive_examples_of_their_help_run_as_written(tmp_path, monkeypatch, capsys):
    """Pasted into a copy of the checkout's examples/ (the outputs land in tmp_path): status 0 and the
    files the example names are written."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("notebooks"))
    monkeypatch.chdir(tmp_path)
    for name in ("check", "derive"):
        (line,) = [ln for ln in _examples(commands(build_parser())[name].format_help())
                   if shlex.split(ln)[:2] == ["theorykit", name]][:1]
        assert main(shlex.split(line)[1:]) == 0, (line, capsys.readouterr().err)
    assert json.loads((tmp_path / "out.json").read_text())["spec"] == "xor-linear"
    assert (tmp_path / "out.tex").read_text().startswith("\\documentclass")

