"""A bad number option is reported in one form, whatever the mistake: `theorykit: error in OPTION: ...`.

Before, a number option's text was refused in two forms. A spelling argparse's reader refused (`--seeds
two`, `--gamma abc`, `--steps 1e4`) came as argparse's usage block and `theorykit simulate: error:
argument --seeds: 'two' is not a whole number (fix: ...)`; a range refused after parsing (`--seeds 0`)
as `theorykit: error in --seeds: 0 is out of range (fix: ...)`, the form of every other value's error
(a spec's field, a file's key). Now both come in the second form: one line on stderr, exit 2, nothing
on stdout, before any work. The expected lines are written by hand from the options' help texts.
"""
from __future__ import annotations

import pytest

from theorykit.cli import main

XOR = "examples/xor_reln.toml"
SEEDS_FIX = "(fix: give a whole number from 1 to 2147483647, e.g. --seeds 4)"


@pytest.mark.parametrize("argv, line", [
    (["simulate", XOR, "--seeds", "two"], f"theorykit: error in --seeds: 'two' is not a whole number {SEEDS_FIX}"),
    (["simulate", XOR, "--seeds", "0"], f"theorykit: error in --seeds: 0 is out of range {SEEDS_FIX}"),
    (["sweep", XOR, "--seeds", "2.5", "--out", "d"],
     f"theorykit: error in --seeds: '2.5' is not a whole number {SEEDS_FIX}"),
    (["race-exhaust", "--gamma", "abc"],
     "theorykit: error in --gamma: 'abc' is not a number (fix: give a number from 1e-6 to 1e6, e.g. --gamma 1.1)"),
    (["race-exhaust", "--k", "3e0"],
     "theorykit: error in --k: '3e0' is 3 written another way (fix: write it in digits, --k 3)"),
    (["rerun", "r.json", "--rtol", "x"],
     "theorykit: error in --rtol: 'x' is not a number (fix: give a number at least 0 and below 1, e.g. --rtol 1e-12)"),
])
def test_a_bad_number_option_is_one_line_in_the_form_of_every_value_error(tmp_path, monkeypatch, capsys, argv, line):
    monkeypatch.chdir(tmp_path)
    argv = [a if a != XOR else "missing.toml" for a in argv]      # refused before the spec is read
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert err == line + "\n" and out == ""
    assert list(tmp_path.iterdir()) == []


def test_an_argparse_mistake_that_is_not_a_value_keeps_argparse_s_form(capsys):
    # an option without its value is a mistake in the command line's shape: argparse's usage block and
    # its own words, with the fix theorykit adds (tests/test_cli_int_options_rules.py)
    with pytest.raises(SystemExit) as exc:
        main(["simulate", XOR, "--seeds"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "usage: theorykit simulate" in err and "argument --seeds: expected one argument" in err
