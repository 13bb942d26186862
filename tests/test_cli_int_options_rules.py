"""Whole-number options answer by one rule: the message names the option, says what it takes and
gives an example (theorykit/cli/parser.py, WholeNumber).

Before: `theorykit simulate examples/xor_reln.toml --seeds two` said "argument --seeds: 'two' is not a
whole number: write one in digits" (no range, no example), `--seeds 0` "0 is out of range: must be
between 1 and 2147483647 (fix: a positive integer, e.g. --seeds 4)", `predict --beam 0` "(fix: e.g.
--beam 8)" (its default is 3), and `--max-orbit-size 0`, `find-gates --seeds 0` and `simulate --seed -3`
were refused only after the spec was read (a missing --set was reported instead). Now each option's
range is checked before any work, and every message ends "(fix: give a whole number from LO to HI, e.g.
OPTION EXAMPLE)".

The expected ranges and examples below are written by hand from the help texts and the limits the
library states: --seeds at most 2**31 - 1 = 2147483647; --steps of a training at most 10**9
(spec.files.MAX_STEPS) = 1000000000; --seed from 0 to 2**32 - 1 = 4294967295 (JAX's PRNGKey); race-exhaust
--k from 2 to 4 (k = 5 has 2**31 - 1 families, refused by analysis.exhaust); every other count at least 1.
"""
import subprocess
import sys
from pathlib import Path

import pytest

from theorykit.cli import main
from theorykit.cli.parser import MAX_SEED, MAX_SEEDS, MAX_STEPS, WholeNumber, build_parser, commands

ROOT = Path(__file__).resolve().parents[1]
XOR = str(ROOT / "examples" / "xor_reln.toml")

#: (command, option, lowest, highest or None, the example the fix gives): by hand, see the docstring
WHOLE = [
    ("check", "--seeds", 1, 2147483647, 4), ("check", "--steps", 1, 1000000000, 2000),
    ("simulate", "--seeds", 1, 2147483647, 4), ("simulate", "--steps", 1, 1000000000, 2000),
    ("simulate", "--seed", 0, 4294967295, 1),
    ("predict", "--hidden", 1, None, 128), ("predict", "--beam", 1, None, 3),
    ("predict", "--shortlist", 1, None, 8), ("predict", "--max-families", 1, None, 1023),
    ("predict", "--max-patterns", 1, None, 4096), ("predict", "--max-orbit-size", 1, None, 32),
    ("predict", "--samples", 1, None, 20000), ("predict", "--seed", 0, 4294967295, 1),
    ("predict", "--steps", 1, 1000000000, 2000), ("predict", "--seeds", 1, 2147483647, 8),
    ("find-gates", "--K", 1, None, 4), ("find-gates", "--max-K", 1, None, 8),
    ("find-gates", "--seeds", 1, 2147483647, 4), ("find-gates", "--hidden", 1, None, 128),
    ("find-gates", "--seed", 0, 4294967295, 1),
    ("race-exhaust", "--k", 2, 4, 3), ("race-exhaust", "--batch", 1, None, 256),
    ("race-exhaust", "--steps", 1, 10 ** 9, 8000),       # bounded like every --steps (was unbounded)
    ("sweep", "--seeds", 1, 2147483647, 4), ("sweep", "--steps", 1, 1000000000, 2000),
    ("sweep", "--chunk", 1, None, 64),
]

#: what each command needs besides the option, so that argparse reads it (nothing is run)
BASE = {"check": ["check", XOR], "simulate": ["simulate", XOR],
        "predict": ["predict", XOR, "--hidden", "8", "--out", "p.toml"],
        "find-gates": ["find-gates", "contexts", "--out", "f.toml"], "race-exhaust": ["race-exhaust"],
        "sweep": ["sweep", XOR, "--out", "sweep"]}


def _fix(option, lo, hi, example):
    span = f"of at least {lo}" if hi is None else f"from {lo} to {hi}"
    return f"(fix: give a whole number {span}, e.g. {option} {example})"


def _argv(command, option, value):
    argv = list(BASE[command])
    if option in argv:            # predict's --hidden: given once, by the test
        i = argv.index(option)
        del argv[i:i + 2]
    return argv + [option, value]


def test_every_whole_number_option_is_read_by_the_one_rule():
    """Every option of every command that takes a whole number has a WholeNumber reader with its own
    name, range and example (no bare type=int, which answered in argparse's words), and the table above
    lists them all; each default lies in its range."""
    found = {}
    for name, sub in commands(build_parser()).items():
        for action in sub._actions:
            assert action.type is not int, f"{name} {action.option_strings}: type=int, not a WholeNumber"
            if isinstance(action.type, WholeNumber):
                r = action.type
                assert r.option in action.option_strings
                found[(name, r.option)] = (r.lo, r.hi, r.example)
                if action.default is not None:
                    assert r.allows(action.default), (name, r.option, action.default)
    assert found == {(c, o): (lo, hi, ex) for c, o, lo, hi, ex in WHOLE}


def test_the_parsers_bounds_are_the_librarys():
    """The parser keeps its own copies (it must not load SymPy): they must agree with the library's."""
    from theorykit.spec.files import MAX_STEPS as SPEC_MAX_STEPS

    assert (MAX_STEPS, MAX_SEEDS, MAX_SEED) == (SPEC_MAX_STEPS, 2 ** 31 - 1, 2 ** 32 - 1)


@pytest.mark.parametrize("command, option, lo, hi, example", WHOLE)
@pytest.mark.parametrize("text", ["two", "2.5"])
def test_a_word_or_a_fraction_is_refused_naming_the_option_and_its_range(capsys, command, option, lo, hi,
                                                                          example, text):
    assert main(_argv(command, option, text)) == 2
    err = capsys.readouterr().err
    # the form of every value's error (was argparse's "argument --seeds: ..." under a usage block)
    assert err.strip() == f"theorykit: error in {option}: '{text}' is not a whole number {_fix(option, lo, hi, example)}"
    assert "invalid int value" not in err and "Traceback" not in err


@pytest.mark.parametrize("command, option, lo, hi, example", WHOLE)
def test_a_number_below_the_range_is_refused_before_any_work(tmp_path, monkeypatch, capsys, command,
                                                             option, lo, hi, example):
    """lo - 1 (0, or -1 for --seed, 1 for --k): exit 2, the option named with its range, before the spec
    is read (the spec path here does not exist: it is not what is reported) and before anything is written."""
    monkeypatch.chdir(tmp_path)
    argv = [a if a != XOR else "missing.toml" for a in _argv(command, option, str(lo - 1))]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"theorykit: error in {option}: {lo - 1} is out of range {_fix(option, lo, hi, example)}"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command, option, lo, hi, example", [w for w in WHOLE if w[3] is not None])
def test_a_number_above_the_range_is_refused(capsys, command, option, lo, hi, example):
    assert main(_argv(command, option, str(hi + 1))) == 2
    err = capsys.readouterr().err
    assert f"error in {option}: {hi + 1} is out of range {_fix(option, lo, hi, example)}" in err


@pytest.mark.parametrize("argv, says", [
    # 1e12 = 10**12 = 1000000000000 > 2147483647: the range at once, not "write it in digits" first
    (["simulate", XOR, "--seeds", "1e12"],
     "theorykit: error in --seeds: '1e12' is 1000000000000, out of range (fix: give a whole number from 1 to 2147483647, "
     "e.g. --seeds 4)"),
    # 3e0 = 3 is in range: the digits to write
    (["race-exhaust", "--k", "3e0"],
     "theorykit: error in --k: '3e0' is 3 written another way (fix: write it in digits, --k 3)"),
])
def test_a_number_written_another_way(capsys, argv, says):
    assert main(argv) == 2 and capsys.readouterr().err.strip() == says


@pytest.mark.parametrize("value, says", [
    ("two", "error in --steps: 'two' is not a whole number (fix: give a whole number from 1 to 1000000000, "
            "e.g. --steps 2000)"),
    ("0", "error in --steps: 0 is out of range (fix: give a whole number from 1 to 1000000000, e.g. --steps 2000)"),
])
def test_find_gates_steps_of_a_training_follow_the_same_rule(tmp_path, capsys, value, says):
    """find-gates --steps is text (with --checkpoints a list of steps); of a training it is a number,
    read by the same rule (before: "'two' is not a number of gradient steps (fix: e.g. --steps 2000)",
    and for 0 "must be between 1 and 1000000000 (fix: a positive integer (at most 1e9), ...)")."""
    out = tmp_path / "f.toml"
    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", "--steps", value, "--out", str(out)]) == 2
    assert says in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("value, says", [
    ("two", "theorykit: error in --seeds: 'two' is not a whole number (fix: give a whole number from 1 to 2147483647, "
            "e.g. --seeds 4)"),
    ("-3", "theorykit: error in --seeds: -3 is out of range (fix: give a whole number from 1 to 2147483647, "
           "e.g. --seeds 4)"),
])
def test_the_installed_command_exits_2(value, says):
    """As a user types it, in a terminal: exit status 2 (a usage error), the message on stderr."""
    p = subprocess.run([sys.executable, "-m", "theorykit", "simulate", XOR, "--seeds", value],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 2 and says in p.stderr and p.stdout == ""


# ------------------------------------------------------------------------------------------
# real-number options: the same rule for a text that is no number
# ------------------------------------------------------------------------------------------
# Before: `race-exhaust --gamma abc` said "argument --gamma: invalid float value: 'abc'" (argparse's words:
# neither what --gamma takes nor an example). The ranges are those each option's later check states
# (by hand from theorykit.cli.common.limits_from, predict's --time-limit check, TRAINING_RANGES["lr"] /
# compare's lr check, DATA_MIN..DATA_MAX for --gamma, TRAINING_RANGES["a0"], race_exhaust's race_dt,
# rerun's rtol), the examples those of the help texts.
REAL = [
    ("check", ["check", XOR], "--time-limit", "a number of seconds, 0 or more, e.g. --time-limit 600 (0 or inf: no limit)"),
    ("simulate", ["simulate", XOR], "--time-limit", "a number of seconds, 0 or more, e.g. --time-limit 600 (0 or inf: no limit)"),
    ("derive", ["derive", XOR], "--time-limit", "a number of seconds, 0 or more, e.g. --time-limit 600 (0 or inf: no limit)"),
    ("sweep", ["sweep", XOR, "--out", "d"], "--time-limit", "a number of seconds, 0 or more, e.g. --time-limit 600 (0 or inf: no limit)"),
    ("predict", BASE["predict"], "--time-limit", "a number of seconds, 0 or more, e.g. --time-limit 60 (0 or inf: no limit)"),
    ("find-gates", BASE["find-gates"], "--lr", "a number from 1e-12 to 1000, e.g. --lr 0.05"),
    ("compare", ["compare", XOR, "--checkpoints", "a", "--data", "d.npz", "--out", "o"], "--lr",
     "a number from 1e-12 to 1000, e.g. --lr 0.05"),
    ("race-exhaust", ["race-exhaust"], "--gamma", "a number from 1e-6 to 1e6, e.g. --gamma 1.1"),
    ("race-exhaust", ["race-exhaust"], "--a0", "a positive number up to 100, e.g. --a0 5.1e-9"),
    ("race-exhaust", ["race-exhaust"], "--race-dt", "a positive number, e.g. --race-dt 10"),
    ("rerun", ["rerun", "r.json"], "--rtol", "a number at least 0 and below 1, e.g. --rtol 1e-12"),
]


def test_every_real_number_option_is_read_by_the_one_rule():
    from theorykit.cli.parser import Number

    found = set()
    for name, sub in commands(build_parser()).items():
        for action in sub._actions:
            assert action.type is not float, f"{name} {action.option_strings}: type=float, not a Number"
            if isinstance(action.type, Number):
                found.add((name, action.type.option))
    assert {(c, o) for c, _, o, _ in REAL} <= found
    assert {o for _, o in found} == {o for _, _, o, _ in REAL}


@pytest.mark.parametrize("command, base, option, fix", REAL)
def test_a_word_for_a_number_is_refused_naming_the_option_and_what_it_takes(capsys, command, base, option, fix):
    assert main([*base, option, "abc"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"theorykit: error in {option}: 'abc' is not a number (fix: give {fix})"
    assert "invalid float value" not in err


# ------------------------------------------------------------------------------------------
# help texts: an option several commands share is described alike
# ------------------------------------------------------------------------------------------
# Before: predict's --set read "value of a symbol of the data" (the others: "give a symbol a value
# (repeatable)"), sweep's --steps "gradient steps (default: the spec's)" (check's and simulate's:
# "(default: training.steps of the spec)"), simulate's --json left out "(atomically)" (both write through
# theorykit.io.write_json, which is atomic), validate's and race-exhaust's output folder read OUT (the others
# DIR), predict's --time-bound TIME_BOUND (the other time option SECONDS), and race-exhaust --help did not
# say which k it takes (2 to 4: analysis.exhaust refuses k = 5).
def _help(command, option):
    action = commands(build_parser())[command]._option_string_actions[option]
    return action.help, action.metavar


def test_shared_options_are_described_alike():
    for command in ("check", "derive", "simulate", "find-gates", "predict"):
        assert _help(command, "--set")[0].startswith("give a symbol") and "(repeatable)" in _help(command, "--set")[0]
    for command in ("check", "simulate", "sweep"):
        assert "(default: training.steps of the spec)" in _help(command, "--steps")[0]
    for command in ("derive", "simulate"):
        assert _help(command, "--json")[0].startswith("write the full JSON document here (atomically)")
    for command in ("validate", "race-exhaust", "sweep", "compare"):
        assert _help(command, "--out")[1] == "DIR"
    assert _help("predict", "--time-limit")[1] == _help("simulate", "--time-limit")[1] == "SECONDS"
    assert "2 to 4" in _help("race-exhaust", "--k")[0]


# ------------------------------------------------------------------------------------------
# an option left without its value
# ------------------------------------------------------------------------------------------
# Before: `simulate spec.toml --seeds` (the value forgotten) said only "argument --seeds: expected one
# argument". Now the fix: an example where the option has one (its reader's), else its choices or its
# placeholder.
@pytest.mark.parametrize("argv, fix", [
    (["simulate", XOR, "--seeds"], "argument --seeds: expected one argument (fix: give it a value, e.g. --seeds 4)"),
    (["race-exhaust", "--gamma"], "argument --gamma: expected one argument (fix: give it a value, e.g. --gamma 1.1)"),
    (["simulate", XOR, "--network"],
     "argument --network: expected one argument (fix: give it one of gdln, relu, e.g. --network gdln)"),
    (["validate", "xor", "--out"], "argument --out: expected one argument (fix: give it a value: --out DIR)"),
])
def test_an_option_without_its_value_says_what_to_give(capsys, argv, fix):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2 and fix in capsys.readouterr().err
