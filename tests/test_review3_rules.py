"""Rules from a code review of the day's merges (theorykit rerun, the Ctrl-C watchdog, Task.subs's
check, per-host staging), as a careful senior engineer: each test reproduces a defect the review found.

Expected values are hand-made files and the command's own refusals of the same mistake elsewhere
(``derive s.toml --json s.toml`` is refused: check_outputs), never pasted from a run of the code.
"""
from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest

from theorykit.cli import main

EX = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def derived(tmp_path_factory):
    """A derive result of a spec file of its own (xor_linear at Δ = 1/2), made in its own folder."""
    d = tmp_path_factory.mktemp("derived")
    spec, out = d / "s.toml", d / "d.json"
    shutil.copy(EX / "xor_linear.toml", spec)
    assert main(["derive", str(spec), "--set", "Delta=1/2", "--json", str(out)]) == 0
    return spec, out


def test_rerun_out_may_not_replace_a_file_the_recorded_command_reads(derived, capsys):
    """``theorykit rerun d.json --out s.toml``, s.toml the spec the recorded command read, replaced the
    user's spec with the new result (exit 0), where ``derive s.toml --json s.toml`` is refused: an
    output may not be an input. Now exit 2 naming --out and the recorded input, the file unchanged."""
    spec, out = derived
    before = spec.read_bytes()
    capsys.readouterr()
    assert main(["rerun", str(out), "--out", str(spec)]) == 2
    err = capsys.readouterr().err
    assert "error in --out:" in err and "recorded spec" in err
    assert spec.read_bytes() == before


def _crafted(out: Path, dst: Path, edit) -> Path:
    doc = json.loads(out.read_text())
    edit(doc["provenance"])
    dst.write_text(json.dumps(doc))
    return dst


def test_rerun_shows_a_crafted_command_without_raw_newlines_or_terminal_escapes(derived, tmp_path, capsys):
    """The record may come from anyone. A command whose --set value holds a newline and an ESC (a
    terminal's control sequence) was printed raw: the 'rerun: theorykit …' line broke into a line of
    the file's choosing ('identical: all fine') and the ESC reached the terminal. Each is now written
    as its escape (\\n, \\x1b), on the one line."""
    _, out = derived
    evil = "1/2\nidentical: all fine\x1b[2K"
    crafted = _crafted(out, tmp_path / "crafted.json", lambda rec: rec.update(
        command=rec["command"].replace("Delta=1/2", shlex.quote(f"Delta={evil}"))))
    capsys.readouterr()
    assert main(["rerun", str(crafted)]) == 2          # the value itself is refused by derive's --set
    lines = capsys.readouterr().err.splitlines()
    shown = [line for line in lines if line.startswith("rerun: theorykit derive")]
    assert len(shown) == 1 and "\\nidentical: all fine\\x1b[2K" in shown[0] and "\x1b" not in shown[0]
    assert not any(line.startswith("identical: all fine") for line in lines)


def test_rerun_names_a_crafted_recorded_version_without_terminal_escapes(derived, tmp_path, capsys):
    """The versions warning quoted the recorded version as it was: an ESC in it reached the terminal."""
    _, out = derived
    crafted = _crafted(out, tmp_path / "crafted.json", lambda rec: rec["versions"].update(sympy="0.0\x1b[31m"))
    capsys.readouterr()
    assert main(["rerun", str(crafted)]) == 0          # the numbers are this SymPy's: identical
    err = capsys.readouterr().err
    warning = [line for line in err.splitlines() if line.startswith("theorykit: warning")]
    assert len(warning) == 1 and "sympy 0.0\\x1b[31m ->" in warning[0] and "\x1b" not in err


def test_rerun_names_a_crafted_field_without_terminal_escapes(derived, tmp_path, capsys):
    """A field the rerun does not make (added to the file) is the difference, named by its key: a key
    holding an ESC was printed raw on stdout, the verdict's own line."""
    _, out = derived
    doc = json.loads(out.read_text())
    doc["\x1b[2Jx"] = 1
    crafted = tmp_path / "crafted.json"
    crafted.write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["rerun", str(crafted)]) == 1
    verdict = capsys.readouterr().out
    assert verdict.startswith("differ:") and ("\\x1b[2Jx: present in the recorded result only, not in the rerun "
                                                   "(written by a newer theorykit, or added by hand): recorded 1\n") in verdict
    assert "\x1b" not in verdict


def test_rerun_help_lists_143_which_it_passes_on_from_a_terminated_command(derived, monkeypatch, capsys):
    """A SIGTERM inside the recorded command makes it return 143, and rerun passes it on (its code
    returns 70, 130 and 143 as they are); its --help listed 0, 1, 2, 70 and 130 only."""
    import theorykit.cli as cli
    from theorykit.cli.parser import RERUN_DESCRIPTION

    _, out = derived
    monkeypatch.setattr(cli, "main", lambda argv=None: 143)     # the inner command, as SIGTERM ends it
    from theorykit.cli import rerun

    args = type("A", (), {"result": str(out), "out": None, "rtol": 0.0})()
    assert rerun.run(args) == 143
    statuses = RERUN_DESCRIPTION.split("exit status:", 1)[1]
    assert "143" in statuses and "130" in statuses
