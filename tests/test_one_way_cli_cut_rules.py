"""The command line's number options, reviewed: a negative infinity or NaN written as a value."""
import math

import pytest

from theorykit.cli import main
from theorykit.cli.parser import build_parser, check_numbers


@pytest.mark.parametrize("text", ["-inf", "-INF", "-Infinity", "-nan"])
def test_a_negative_infinity_or_nan_is_a_value_not_an_option(text):
    # float(text) is the reading of every other spelling ('inf', '-1e3'); argparse took '-inf' for an
    # option and exited "expected one argument". Reference: Python's float() of the same text.
    parser = build_parser()
    args = parser.parse_args(["race-exhaust", "--race-dt", text])
    check_numbers(parser, args)
    want = float(text)
    assert (math.isnan(args.race_dt) and math.isnan(want)) or args.race_dt == want


def test_lr_minus_inf_is_refused_naming_the_option_and_the_fix(capsys):
    assert main(["race-exhaust", "--race-dt", "-inf"]) == 2
    err = capsys.readouterr().err
    assert "error in --race-dt: -inf is not a finite number" in err
    assert "fix: a positive number, e.g. --race-dt 10" in err
    assert "expected one argument" not in err


def test_race_exhaust_steps_is_bounded_like_every_other_steps(capsys):
    """race-exhaust --steps had no upper bound: 99999999999999 was refused only after the race was set up,
    in `save.every`, which does not name --steps. It now has the bound of every other --steps
    (MAX_STEPS = 10**9, the spec's training.steps bound) and is refused before any work."""
    from theorykit.cli import main

    assert main(["race-exhaust", "--steps", "99999999999999"]) == 2
    assert capsys.readouterr().err == ("theorykit: error in --steps: 99999999999999 is out of range (fix: give a whole "
                                       "number from 1 to 1000000000, e.g. --steps 8000)\n")
