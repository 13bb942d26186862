"""The readers of the command line's number options: whole numbers (:class:`WholeNumber`) and real
numbers (:class:`Number`), a text either refuses kept as a :class:`Refused` until parsing ends, then
reported by :func:`check_numbers` as a :class:`~theorykit.errors.SpecError` naming the option, and an
option's former name kept working (:class:`_Renamed`). :mod:`theorykit.cli.parser` builds every option
with them; like it, this module loads nothing heavier than argparse."""
from __future__ import annotations

import argparse
import decimal
import math
from typing import NamedTuple

from ..errors import SpecError

#: the largest --seeds (networks trained at once); theorykit.cli.common reads it from here
MAX_SEEDS = 2 ** 31 - 1


class WholeNumber:
    """The reader of a whole-number option (every ``type=int`` option is one: :func:`_whole_option`),
    so that every such option answers by one rule: the message names the option, says what it takes
    and gives an example, ``--seeds two`` and ``--seeds 0`` alike ("give a whole number from 1 to
    2147483647, e.g. --seeds 4"; argparse said only "invalid int value: 'two'").

    Called by argparse with the text: ``int(text)`` (argparse's own rule: ``10_000`` is ten thousand,
    as in Python); a number written another way is refused, with the digits to write where it is
    whole (``1e4``: 10000, exactly; ``2.5``: not a whole number).
    Every refusal, of a spelling or of a range, is reported after parsing by :func:`check_numbers`
    as a :class:`SpecError` (``theorykit: error in --seeds: …``, exit 2), as every other value's check:
    one form for one kind of mistake. Without ``option`` it is the reader of any whole number
    (:data:`_whole`), refused by argparse itself."""

    def __init__(self, option: str | None = None, lo: int | None = None, hi: int | None = None, example: int | None = None):
        self.option, self.lo, self.hi, self.example = option, lo, hi, example

    @property
    def fix(self) -> str:
        """What the option takes, with an example: the fix of each of its errors."""
        span = "" if self.lo is None else f" of at least {self.lo}" if self.hi is None else f" from {self.lo} to {self.hi}"
        return "" if self.option is None else f"give a whole number{span}, e.g. {self.option} {self.example}"

    def allows(self, value: int) -> bool:
        return (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi)

    def __call__(self, text: str):
        """argparse's reading of the option's text: the number, or a :class:`Refused` that
        :func:`check_numbers` reports (the range of a number in digits is checked there too)."""
        try:
            return int(text)
        except ValueError:
            pass
        try:
            return self.read(text)      # never returns: text is not in digits
        except SpecError as exc:
            if self.option is None:
                raise argparse.ArgumentTypeError(f"{exc.problem} (fix: {exc.fix})" if exc.fix else exc.problem) from None
            return Refused(exc)

    def read(self, text: str) -> int:
        """The whole number ``text`` writes in digits, in range; else a :class:`SpecError` naming the option."""
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None:
            try:
                exact = decimal.Decimal(text.strip())    # exact: 1e23 is 10**23 (a float: 99999999999999991611392)
            except decimal.InvalidOperation:
                exact = decimal.Decimal("NaN")
            if exact.is_finite() and exact.adjusted() > 99:     # 1e999999999: not a billion digits to print
                raise SpecError(self.option, f"{text!r} is far too large", self.fix)
            if not exact.is_finite() or exact != exact.to_integral_value():
                raise SpecError(self.option, f"{text!r} is not a whole number", self.fix)
            if not self.allows(int(exact)):
                raise SpecError(self.option, f"{text!r} is {int(exact)}, out of range", self.fix)
            digits = f"{self.option} {int(exact)}" if self.option else f"{int(exact)}"
            raise SpecError(self.option, f"{text!r} is {int(exact)} written another way", f"write it in digits, {digits}")
        self.check(value)
        return value

    def check(self, value) -> None:
        """Refuse a value out of the option's range, as :class:`SpecError` (``theorykit: error in --seeds:
        0 is out of range (fix: give a whole number from 1 to 2147483647, e.g. --seeds 4)``)."""
        if value is not None and not self.allows(value):
            raise SpecError(self.option, f"{value} is out of range", self.fix)


#: any whole number, in digits (the reader of a ``type=int`` option added without :func:`_whole_option`)
_whole = WholeNumber()


def _whole_option(sp_, option: str, *, lo: int, hi: int | None = None, example: int | None = None, **kwargs):
    """Add the whole-number option ``option`` from ``lo`` to ``hi`` (no bound where None), read by a
    :class:`WholeNumber` whose example is ``example``, else the option's default."""
    example = kwargs.get("default") if example is None else example
    return sp_.add_argument(option, type=WholeNumber(option, lo, hi, example), action=_KeepRefused, **kwargs)


class Refused(NamedTuple):
    """The value argparse stores for an option's text that its reader refused: the
    :class:`SpecError` that :func:`check_numbers` raises once parsing ends."""
    error: SpecError


class _KeepRefused(argparse._StoreAction):
    """Store a number option's value as argparse does (the last given wins), except over a refusal: in
    ``--seed x --seed 4`` the ``x`` is reported, not silently replaced by the ``4``, and so is the ``0``
    of ``--seeds 0 --seeds 4`` (a whole number out of its option's range)."""

    def __call__(self, parser, namespace, values, option_string=None):
        held = getattr(namespace, self.dest, None)
        if not (isinstance(held, Refused)
                or (isinstance(self.type, WholeNumber) and isinstance(held, int) and not self.type.allows(held))):
            setattr(namespace, self.dest, values)


class Number:
    """The reader of a real-number option: ``float(text)``; a text that is no number is refused naming
    the option, what it takes and an example (argparse said only "invalid float value: 'abc'"), in the
    form of every value's error (a :class:`Refused`, see :func:`check_numbers`). So is a number written in
    digits that no float holds: ``1e400`` (float() gives inf, and the error said "inf is not a finite
    number", a value never typed; --time-limit took it as no limit) and ``1e-400`` (float() gives 0: a
    --time-limit of 0 is no limit), each named as typed. ``nan`` and ``inf`` (any spelling) are read as
    float() reads them. Its range is checked where the value is used (with the same words: ``what``). ``fix``: the
    fix of every refusal where the option has one of its own (``--time-limit``: :func:`~theorykit.spec.ranges.time_limit_fix`,
    which its range check gives too), else ``give WHAT, e.g. OPTION EXAMPLE``."""

    def __init__(self, option: str, what: str, example: str, fix: str | None = None):
        self.option, self.what, self.example = option, what, example
        self.fix = fix if fix is not None else f"give {what}, e.g. {option} {example}"

    def __call__(self, text: str):
        fix = self.fix
        try:
            value = float(text)
        except ValueError:
            return Refused(SpecError(self.option, f"{text!r} is not a number", fix))
        try:
            exact = decimal.Decimal(text.strip().replace("_", ""))     # as written: 1e400 stays 1e400
        except decimal.InvalidOperation:
            return value
        if exact.is_finite() and math.isinf(value):
            return Refused(SpecError(self.option, f"{text!r} is not a finite number (its magnitude is beyond the "
                                                  "largest float, about 1.8e308)", fix))
        if exact.is_finite() and exact != 0 and value == 0:
            return Refused(SpecError(self.option, f"{text!r} is too small for a float (below the smallest, about "
                                                  "5e-324, it would read as 0)", fix))
        return value


def _number_option(sp_, option: str, *, what: str, example: str, fix: str | None = None, **kwargs):
    """Add the real-number option ``option``, read by a :class:`Number` (``fix``: its own, where it has one)."""
    return sp_.add_argument(option, type=Number(option, what, example, fix), action=_KeepRefused, **kwargs)


class _Renamed(_KeepRefused):
    """An option's former name, kept working (hidden from --help): it stores the value of the option it was
    renamed to, and notes the renaming in ``args.renamed`` (old name -> new), which :func:`theorykit.cli.main`
    takes out and says in one line on stderr (``theorykit: warning: --time-bound is now --time-limit``). A text its
    reader refuses is named as typed (``error in --time-bound``); so is a value out of range (cli.common.typed_as)."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.renamed = {**getattr(namespace, "renamed", {}), option_string: self.new}
        if isinstance(values, Refused) and values.error.field == self.new:     # named as typed: --time-bound abc
            err = values.error
            values = Refused(SpecError(option_string, err.problem, err.fix))
        super().__call__(parser, namespace, values, option_string)


def commands(parser) -> dict:
    """The sub-commands' parsers of ``parser`` (:func:`build_parser`'s), by name."""
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def check_numbers(parser, args) -> None:
    """Check every number option of the command ``args`` ran: the first text its reader refused
    (:class:`Refused`), or whole number out of its range (a value a :class:`WholeNumber` read, or a
    default), is a :class:`SpecError`."""
    command = commands(parser).get(getattr(args, "command", None))
    for action in command._actions if command is not None else ():
        value = getattr(args, action.dest, None)
        if isinstance(value, Refused):
            raise value.error
        if isinstance(action.type, WholeNumber):
            action.type.check(value)
