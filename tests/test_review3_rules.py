"""Rules from a code review of the day's merges (theorykit rerun, the Ctrl-C watchdog, Task.subs's
check, per-host staging), as a careful senior engineer: each test reproduces a defect the review found.

Expected values are hand-made files and the command's own refusals of the same mistake elsewhere
(``derive s.toml --json s.toml`` is refused: check_outputs), never pasted from a run of the code.
"""
from __future__ import annotations

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
