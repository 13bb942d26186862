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

XOR = "examples/xor_reln.toml"


@pytest.mark.parametrize("argv, line", [
    (["simulate", XOR, "--seed", "x", "--seed", "4"],
     "theorykit: error in --seed: 'x' is not a whole number (fix: give a whole number from 0 to 4294967295, "
     "e.g. --seed 1)"),
    (["simulate", XOR, "--seeds", "0", "--seeds", "4"],
     "theorykit: error in --seeds: 0 is out of range (fix: give a whole number from 1 to 2147483647, "
     "e.g. --seeds 4)"),
    (["find-gates", "contexts", "--out", "f.toml", "--lr", "fast", "--lr", "0.1"],
     "theorykit: error in --lr: 'fast' is not a number (fix: give a positive number up to 1e3, e.g. --lr 0.05)"),
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
