"""Small fixes found by the fuzzer and by review, each pinned by a test that failed before it.

1. ``--time-limit 0``: predict read it as "no limit" (its --help, docs/predict.md, docs/api.md), while
   check, derive, simulate, sweep and find-gates refused it ("0 is out of range (0, inf)"). Every
   command now reads 0 (and inf) as no limit, and says so in its --help.
"""
from __future__ import annotations

import math

import pytest

from theorykit.cli import find_gates as cli_find_gates
from theorykit.cli import main
from theorykit.cli.parser import build_parser, commands

XOR = "examples/xor_reln.toml"


# ------------------------------------------------------------------------------------------
# 1. --time-limit 0: no limit, for every command that takes --time-limit
# ------------------------------------------------------------------------------------------
def test_every_time_limit_help_says_what_0_does():
    found = []
    for name, sub in commands(build_parser()).items():
        for action in sub._actions:
            if "--time-limit" in action.option_strings:
                found.append(name)
                assert "0 or inf: no limit" in action.help, (name, action.help)
    assert {"check", "derive", "simulate", "sweep", "find-gates", "predict"} <= set(found)


def test_check_time_limit_0_is_no_limit(capsys):
    # tests/test_cli.py: xor_reln.toml is refused at --time-limit 0.01 (its estimate is over it); at 0 the
    # limit is lifted, as predict's --time-limit 0 is, and check reports the time limit as infinite
    assert main(["check", XOR, "--time-limit", "0"]) == 0
    out = capsys.readouterr().out
    assert "limits: memory" in out and "time inf s" in out


class _Stop(BaseException):
    pass


def test_find_gates_time_limit_0_is_no_limit(monkeypatch, tmp_path):
    """The fuzzer's case: find-gates … --time-limit 0 was refused ("0 is out of range (0, inf)"). It now
    reaches the training with no time limit (the training itself is stopped here: only the limits matter)."""
    seen = {}

    def stop(*args, limits=None, **kwargs):
        seen["limits"] = limits
        raise _Stop

    monkeypatch.setattr(cli_find_gates, "find_gates", stop)
    with pytest.raises(_Stop):
        main(["find-gates", "xor-margin", "--set", "Delta=0.5", "--K", "2", "--seeds", "1", "--steps", "10",
              "--no-progress", "--time-limit", "0", "--out", str(tmp_path / "found.toml")])
    assert seen["limits"].max_seconds == math.inf


@pytest.mark.parametrize("value", ["-1", "nan"])
def test_a_negative_or_nan_time_limit_is_still_refused(capsys, value):
    assert main(["derive", XOR, "--time-limit", value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in --time-limit: ")
    assert "(fix: give a number of seconds, 0 or more, e.g. --time-limit 600 (0 or inf: no limit))" in err
