"""Rules from a code reviewer of the radicals, CLI-mends and Fig. 4c merges (review of 974db20..main).

Expected values are worked out by hand in each test's docstring or comment, never taken from a run."""
import argparse

import pytest
import sympy as sp

from theorykit.cli import main
from theorykit.cli.parser import _whole
from theorykit.theory.modes import tidy
from theorykit.theory.radicals import _square_roots_multiplied_out

x = sp.Symbol("x", positive=True)


def test_tidy_keeps_a_float_a_float():
    """c/(√x + 1) + c√x/(√x + 1) = c(1 + √x)/(√x + 1) = c by hand. With c the Float nearest 1/3, the
    root reduction read c over ℚ and tidy printed the exact 1/3, a fraction guessed from digits (tidy's
    contract: nothing is guessed from digits); it now leaves the Float: c, to float precision."""
    c = sp.Float(1 / 3)
    e = c / (sp.sqrt(x) + 1) + c * sp.sqrt(x) / (sp.sqrt(x) + 1)
    assert _square_roots_multiplied_out(e) is None
    t = tidy(e)
    assert t != sp.Rational(1, 3) and t.atoms(sp.Float)
    assert abs(float(t.subs(x, 2)) - 1 / 3) < 1e-15


@pytest.mark.parametrize("text, digits", [("1e23", str(10 ** 23)), ("-1e3", "-1000"),
                                          ("9007199254740993.0", "9007199254740993")])
def test_whole_number_hint_has_the_digits_written(text, digits):
    """The hint 'write it in digits, N' must be the number the user wrote: 1e23 is 1 and 23 zeros
    (str(10**23)); through a float it was 99999999999999991611392, and 2**53 + 1 lost its last digit."""
    with pytest.raises(argparse.ArgumentTypeError, match=fr"is {digits} written another way \(fix: write it in digits, {digits}\)$"):
        _whole(text)


def test_whole_number_hint_through_the_parser(capsys):
    """The same through the command line: the option is named and the digits are exact. (The parser
    stores the refusal; `main` reports it, in the form of every value's error: `theorykit: error in`.)"""
    assert main(["simulate", "x.toml", "--steps", "1e23"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in --steps: ") and str(10 ** 23) in err
    assert "99999999999999991611392" not in err


def test_whole_number_refuses_a_huge_exponent_without_printing_it():
    """1e999999999 is whole, but its digits are a billion characters: refused as far too large."""
    with pytest.raises(argparse.ArgumentTypeError, match="far too large"):
        _whole("1e999999999")


@pytest.mark.parametrize("text", [" 12 ", "1_000", "+3", "-4"])
def test_whole_accepts_what_int_accepts(text):
    """type=int options read what Python's int reads (argparse's own rule), unchanged."""
    assert _whole(text) == int(text)
