"""Six honesty and message fixes a user meets, each pinned by a test that failed before it.

1. ``--time-limit``: a word (``abc``) and a number no float holds (``1e400``) were refused with the fix
   "give a number of seconds, 0 or more, e.g. --time-limit 600", while NaN and a negative number got the
   same words and "(0 or inf: no limit)": the fix was written in four places (the parser's reader, the size
   check's limits, predict's command and predict_reln). It is written once now
   (``theorykit.spec.ranges.time_limit_fix``) and every refusal gives it whole.
"""
from __future__ import annotations

from pathlib import Path

import pytest

import theorykit as tk
from theorykit.cli import main
from theorykit.cli.parser import build_parser, commands
from theorykit.errors import SpecError

ROOT = Path(__file__).resolve().parents[1]
XOR = str(ROOT / "examples" / "xor_reln.toml")
XOR_DATA = str(ROOT / "examples" / "predict" / "xor_data.toml")


# ------------------------------------------------------------------------------------------
# 1. every --time-limit refusal gives the one complete fix
# ------------------------------------------------------------------------------------------
# The fix, from the options' own --help ("0 or inf: no limit"; the default 600 of the size check's commands'
# examples, predict's 60): what the option takes, an example, and what 0 and inf mean.
def _fix(example):
    return f"(fix: give a number of seconds, 0 or more, e.g. --time-limit {example} (0 or inf: no limit))"


TYPED = ["abc", "1e400", "1e-400", "nan", "-1", "-inf"]


@pytest.mark.parametrize("value", TYPED)
@pytest.mark.parametrize("argv, example", [
    (["derive", XOR], "600"), (["check", XOR], "600"), (["simulate", XOR], "600"),
    (["sweep", XOR, "--out", "never"], "600"), (["find-gates", "xor-margin", "--set", "Delta=0.5", "--out", "never.toml"], "600"),
    (["predict", XOR_DATA, "--set", "Delta=0.5", "--hidden", "8", "--out", "never.toml"], "60"),
])
def test_every_time_limit_refusal_gives_the_whole_fix(capsys, tmp_path, monkeypatch, argv, example, value):
    monkeypatch.chdir(tmp_path)
    assert main([*argv, "--time-limit", value]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("theorykit: error in --time-limit: ") and err.endswith(_fix(example)), err
    assert not (tmp_path / "never.toml").exists() and not (tmp_path / "never").exists()


def test_the_help_says_what_the_fix_says():
    # the fix's "(0 or inf: no limit)" is the help's own statement, on every command that takes --time-limit
    for name, sub in commands(build_parser()).items():
        for action in sub._actions:
            if "--time-limit" in action.option_strings:
                assert "0 or inf: no limit" in action.help, name


@pytest.mark.parametrize("value", [-1, float("nan"), "abc"])
def test_predict_reln_gives_the_fix_in_pythons_words(value):
    with pytest.raises(SpecError) as info:
        tk.predict_reln(tk.xor_margin(0.5), 8, tk.Training(lr=0.05), time_limit=value, progress=False)
    # the docstring: None (the default), 0 or math.inf is no limit
    assert info.value.field == "time_limit"
    assert info.value.fix == "give a number of seconds, 0 or more, e.g. time_limit=60 (0, None or inf: no limit)"
