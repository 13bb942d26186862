"""A number option's refusal is never dropped, and every refusal has its fix in the one form.

- ``--seed x --seed 4``: argparse keeps the last value given, so the refused ``x`` was silently replaced
  by the ``4`` and the run went ahead. The first refusal is now reported, as it would be alone; so is a
  whole number out of its option's range (``--seeds 0 --seeds 4``). Two readable values in range keep
  argparse's rule: the last wins.
- ``--steps 1e4`` said "'1e4' is not written as a whole number: write it in digits, 10000", the one
  refusal without the ``(fix: …)`` of every other. It now reads "'1e4' is 10000 written another way
  (fix: write it in digits, --steps 10000)".
The expected lines are written by hand from the options' ranges in ``theorykit <command> --help``.
"""
from __future__ import annotations

import argparse

import pytest

from theorykit.cli import main
from theorykit.cli.parser import _whole, build_parser
from theorykit.errors import SpecError
from theorykit.spec.fields import real

XOR = "examples/xor_reln.toml"


@pytest.mark.parametrize("argv, line", [
    (["simulate", XOR, "--seed", "x", "--seed", "4"],
     "theorykit: error in --seed: 'x' is not a whole number (fix: give a whole number from 0 to 4294967295, "
     "e.g. --seed 1)"),
    (["simulate", XOR, "--seeds", "0", "--seeds", "4"],
     "theorykit: error in --seeds: 0 is out of range (fix: give a whole number from 1 to 2147483647, "
     "e.g. --seeds 4)"),
    (["find-gates", "contexts", "--out", "f.toml", "--lr", "fast", "--lr", "0.1"],
     "theorykit: error in --lr: 'fast' is not a number (fix: give a number from 1e-12 to 1000, e.g. --lr 0.05)"),
    (["simulate", XOR, "--steps", "1e4", "--steps", "100"],
     "theorykit: error in --steps: '1e4' is 10000 written another way (fix: write it in digits, --steps 10000)"),
])
def test_a_refused_value_is_reported_though_the_option_is_given_again(capsys, argv, line):
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == line


def test_two_readable_values_keep_argparses_rule_the_last_wins():
    args = build_parser().parse_args(["simulate", XOR, "--seed", "4", "--seed", "5", "--steps", "10", "--steps", "20"])
    assert (args.seed, args.steps) == (5, 20)


def test_the_reader_without_an_option_gives_the_digits_as_its_fix():
    # 1e4 = 10**4 = 10000, by hand
    with pytest.raises(argparse.ArgumentTypeError) as info:
        _whole("1e4")
    assert str(info.value) == "'1e4' is 10000 written another way (fix: write it in digits, 10000)"


# --rtol ([0, 1): 0 is bit for bit, 1 would let any two numbers agree) and --time-limit ((0, ∞), and
# inf for no limit) were checked by hand copies of spec.fields.real, with their own wording and, for
# --time-limit, a fix without what the option takes. No test pinned either. Both are now real()'s check.
@pytest.mark.parametrize("argv, line", [
    # 0 is no limit now, as predict's --time-limit 0 (tests/test_small_fixes_rules.py); -1 is below [0, inf)
    (["derive", XOR, "--time-limit", "-1"],
     "theorykit: error in --time-limit: -1 is out of range [0, inf) (fix: give a number of seconds, 0 or more, "
     "e.g. --time-limit 600 (0 or inf: no limit))"),
    (["derive", XOR, "--time-limit", "-inf"],
     "theorykit: error in --time-limit: -inf is not a finite number (fix: give a number of seconds, 0 or more, "
     "e.g. --time-limit 600 (0 or inf: no limit))"),
    (["rerun", "no-such.json", "--rtol", "1"],
     "theorykit: error in --rtol: 1 is out of range [0, 1) (fix: give a number at least 0 and below 1, "
     "e.g. --rtol 1e-12 (0: bit for bit))"),
    (["rerun", "no-such.json", "--rtol", "nan"],
     "theorykit: error in --rtol: nan is not a finite number (fix: give a number at least 0 and below 1, "
     "e.g. --rtol 1e-12 (0: bit for bit))"),
])
def test_a_tolerance_or_a_time_limit_out_of_range_is_refused_by_the_one_check(capsys, argv, line):
    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == line


def test_no_time_limit_is_inf(capsys):
    assert main(["derive", XOR, "--time-limit", "inf"]) == 0


@pytest.mark.parametrize("value, ok", [(0.0, True), (0.999, True), (1.0, False), (-1e-300, False)])
def test_real_with_an_open_upper_end(value, ok):
    if ok:
        assert real(value, "x", lo=0.0, hi=1.0, hi_open=True, fix="f") == value
    else:
        with pytest.raises(SpecError, match=r"out of range \[0, 1\)"):
            real(value, "x", lo=0.0, hi=1.0, hi_open=True, fix="f")
