"""Small fixes found by the fuzzer and by review, each pinned by a test that failed before it.

1. ``--time-limit 0``: predict read it as "no limit" (its --help, docs/predict.md, docs/api.md), while
   check, derive, simulate, sweep and find-gates refused it ("0 is out of range (0, inf)"). Every
   command now reads 0 (and inf) as no limit, and says so in its --help.
2. ``race-exhaust --race-dt 1e400`` said "inf is not a finite number": float("1e400") is inf, a value
   never typed (and ``--time-limit 1e400`` silently meant no limit, ``--time-limit 1e-400`` a limit of 0,
   i.e. none). Every real-number option's reader (theorykit.cli.options.Number) now refuses a number
   written in digits that no float holds, naming the text typed.
3. ``race-exhaust --race-dt 1e300`` quoted "(at most 0 steps)" for the RK4 budget's bound beside the
   useful one: a bound below 1 step is now "not even 1 step", and where no --steps can help the
   --race-dt fix names a value that passes every check (the default 10 here).
4. A Python ``tk.Task(X, Y)`` has no magnitude check, a spec file's numbers must be 0 or within 1e-6 … 1e6.
   Not made a check: every finite float must read back bit for bit through a Task (docs/api.md, pinned
   over all finite floats by tests/test_float_entries_rules.py), and an imported run's data are taken as
   trained on. docs/api.md's Task entry now states the difference and where the range bites (reading the
   spec file written from such a task).
5. ``share_hidden(H, m)`` gave widths of 0 when H < m (``[1, 0, 0]``), leaving the check to its callers;
   it now refuses H < m itself, as ``share_mass`` does.
6. ``predict --share mass``: a degenerate pattern (mass 0) keeps one unit. Kept, not changed: docs/predict.md's
   "Width rule" section now says why (a sampled zero; a pathway of 0 units never learns and no spec takes
   it; Lemma 4.1 keeps such patterns; the measured rule), and the behaviour it describes is pinned here.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import sympy as sp

import theorykit as tk
from theorykit.analysis import exhaust
from theorykit.analysis.predict_share import share_hidden, share_mass
from theorykit.cli import find_gates as cli_find_gates
from theorykit.cli import main
from theorykit.cli.options import Number, check_numbers
from theorykit.cli.parser import build_parser, commands
from theorykit.errors import SpecError
from theorykit.net.starts import a0_rule

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


# ------------------------------------------------------------------------------------------
# 2. a number no float holds is named as typed, by the one reader of every real-number option
# ------------------------------------------------------------------------------------------
def test_race_dt_1e400_is_named_as_typed(capsys, tmp_path):
    assert main(["race-exhaust", "--k", "2", "--race-dt", "1e400", "--no-progress", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("theorykit: error in --race-dt: '1e400' is not a finite number (its magnitude is beyond the "
                   "largest float, about 1.8e308) (fix: give a positive number, e.g. --race-dt 10)"), err


def _number_options():
    """(command, option) for every real-number option of the parser."""
    return sorted({(name, a.type.option) for name, sub in commands(build_parser()).items()
                   for a in sub._actions if isinstance(a.type, Number)})


@pytest.mark.parametrize("text, words", [("1e400", "is not a finite number"), ("-1E+400", "is not a finite number"),
                                         ("1e-400", "is too small for a float")])
def test_every_real_option_names_a_number_no_float_holds(text, words):
    options = _number_options()
    assert len(options) >= 11       # --time-limit (6 commands), --lr (2), --gamma, --a0, --race-dt, --rtol
    for command, option in options:
        sub = commands(build_parser())[command]
        action = next(a for a in sub._actions if option in a.option_strings)
        value = action.type(text)
        with pytest.raises(SpecError) as info:
            check_numbers(build_parser(), type("Args", (), {"command": command, action.dest: value})())
        assert info.value.field == option and info.value.problem.startswith(f"{text!r} {words}"), (option, info.value)
        assert info.value.fix.startswith("give ") and f"e.g. {option} " in info.value.fix


@pytest.mark.parametrize("text, value", [("inf", math.inf), ("1e308", 1e308), ("5e-324", 5e-324), ("0", 0.0),
                                         ("1_000.5", 1000.5)])
def test_numbers_a_float_holds_and_inf_are_read_as_before(text, value):
    assert Number("--x", "a number", "1")(text) == value


def test_time_limit_1e_minus_400_is_not_read_as_no_limit(capsys):
    assert main(["derive", XOR, "--time-limit", "1e-400"]) == 2
    assert "error in --time-limit: '1e-400' is too small for a float" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------
# 3. race-exhaust --race-dt 1e300: no "at most 0 steps"; the fix's value passes every check
# ------------------------------------------------------------------------------------------
# --k 2: τ = 62.5 (tests/test_cli_error_names_rules.py), the RK4 step τ/1e300 = 6.25e-299; one step of the
# race is 1/6.25e-299 = 1.6e299 RK4 steps, over the budget of 2e6: no step count passes at this --race-dt.
# At --race-dt 10 (the default) 8000 steps are 8000/6.25 = 1280 RK4 steps, and 10 >= min_race_dt.
def test_race_dt_1e300_gives_only_sound_advice(capsys, tmp_path, monkeypatch):
    assert main(["race-exhaust", "--k", "2", "--race-dt", "1e300", "--no-progress", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("theorykit: error in --race-dt: no step count is within the race's bounds: RK4 steps of "
                          "τ/race-dt = 6.25e-299 are 1.28e+302 integration steps, more than the flow's budget of "
                          "2,000,000 (not even 1 step) (fix: lower --race-dt ("), err
    assert "at most 0 steps" not in err and "at most -1 steps" not in err
    fix = re.search(r"e\.g\. --race-dt (\S+)\)$", err)
    assert fix is not None and float(fix.group(1)) == 10.0, err

    def stop(*a, **k):
        raise _Stop
    monkeypatch.setattr(exhaust, "race_rk4", stop)      # every check passes before the first race
    with pytest.raises(_Stop):
        main(["race-exhaust", "--k", "2", "--race-dt", fix.group(1), "--no-progress", "--out", str(tmp_path)])


def test_a_race_dt_fix_value_is_checked_by_the_bounds():
    # k = 2: s_max = 15/(8√2) = 1.3258, τ = 62.5; the rate's bound is 2357022 steps (tests/
    # test_cli_error_names_rules.py). At race_dt 10 (RK4 step 6.25, recorded every 6): 2357022 steps are
    # 2357022/6.25 = 377124 RK4 steps (within 2e6) and 392837 records (within 1e7), and 10 >= min_race_dt
    # = 2·1.3258·2/2.785 = 1.90: the default passes. One step more is past the rate's bound, which no
    # race_dt moves: no value to give.
    s_max, tau = 15 / (8 * math.sqrt(2)), 62.5
    assert exhaust._race_dt_for(s_max, tau, 8000) == 10.0
    assert exhaust._race_dt_for(s_max, tau, 2_357_022) == 10.0
    assert exhaust._race_dt_for(s_max, tau, 2_357_023) is None
    # a tiny τ (0.001): 8000 steps need race_dt <= 2e6 · 0.001/8000 = 0.25, below min_race_dt 1.90: none
    assert exhaust._race_dt_for(s_max, 0.001, 8000) is None


# ------------------------------------------------------------------------------------------
# 5. share_hidden refuses fewer units than pathways, as share_mass does
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("H, m", [(1, 3), (0, 1), (2, 3), (7, 8)])
def test_share_hidden_refuses_fewer_units_than_pathways(H, m):
    for rule in (lambda: share_hidden(H, m), lambda: share_mass(H, [1.0] * m)):
        with pytest.raises(SpecError) as info:
            rule()
        units = "1 hidden unit" if H == 1 else f"{H} hidden units"          # a count of 1 takes the singular
        whom = "the one pathway" if m == 1 else f"each of the {m} pathways"
        assert info.value.field == "H" and f"{units} cannot give {whom}" in info.value.problem
        assert info.value.fix.startswith(f"use H >= {m}")


def test_share_hidden_at_and_above_the_count_is_unchanged():
    # by hand: 3 // 3 = 1 each; 10 = 3·3 + 1, the remainder to the first; no pathways, no widths
    assert share_hidden(3, 3) == [1, 1, 1] and share_hidden(10, 3) == [4, 3, 3] and share_hidden(5, 0) == []


# ------------------------------------------------------------------------------------------
# 4. Task keeps any finite number (documented); the file written from it is refused by the spec's range
# ------------------------------------------------------------------------------------------
def test_task_magnitude_difference_is_documented_and_holds(tmp_path):
    api = Path(__file__).resolve().parents[1].joinpath("docs", "api.md").read_text(encoding="utf-8")
    entry = api[api.index("Unlike a spec file's numbers"):]
    entry = entry[:entry.index("\n\n")]
    assert "between 1e-6 and 1e6" in entry and "does not refuse" in entry and "tk.load_spec" in entry
    # what the entry says: 2e-7 = 1/5000000 and 3e6 are kept exactly by a Task ...
    t = tk.Task([[1.0, 2e-7], [3e6, 1]], [[1, 0]])
    assert t.X[0, 1] == sp.Rational(1, 5000000) and t.X[1, 0] == 3000000
    assert t.numeric()[0][0, 1] == 2e-7 and t.numeric()[0][1, 0] == 3e6
    # ... and the spec file written from it is refused on reading, naming the first entry out of range
    # (the writer now refuses it first, naming the same entry: tests/test_spec_write_range_rules.py;
    # the file it used to write is written here by hand)
    spec = tk.GDLNSpec(t, [tk.Pathway("p", "all", "all", "all", 4)], tk.Training(lr=0.01))
    path = tmp_path / "s.toml"
    with pytest.raises(SpecError) as wrote:
        path.write_text(tk.spec_to_toml(spec), encoding="utf-8")
    assert wrote.value.field == "data.inputs[0][1]" and "too small" in wrote.value.problem and not path.exists()
    path.write_text('name = "s"\n\n[data]\ninputs = [[1, "1/5000000"], [3000000, 1]]\ntargets = [[1, 0]]\n\n'
                    '[[pathways]]\nname = "p"\nactive = [1, 1]\nhidden = 4\n\n[training]\nlr = 0.01\n', encoding="utf-8")
    with pytest.raises(SpecError) as info:
        tk.load_spec(path)
    assert info.value.field == "data.inputs[0][1]" and "too small" in info.value.problem


# ------------------------------------------------------------------------------------------
# 6. the mass rule keeps one unit for a pattern of mass 0: the reasons are documented, and hold
# ------------------------------------------------------------------------------------------
def test_mass_zero_keeps_one_unit_and_the_width_rule_says_why():
    page = Path(__file__).resolve().parents[1].joinpath("docs", "predict.md").read_text(encoding="utf-8")
    section = page[page.index("## Width rule"):]
    end = section.find("\n## ", 3)
    section = section if end < 0 else section[:end]
    assert "keeps its one unit. That is deliberate" in section
    for reason in ("1/`--samples`", "fixed point of the mode ODE", "`pathways[i].hidden`", "Lemma 4.1"):
        assert reason in section, reason
    # what it says: 1 + 62 · (1/2, 0, 1/2) = (32, 1, 31) (Hamilton: remainders 0, 0, 0; by hand)
    assert share_mass(64, [0.1, 0.0, 0.1]) == [32, 1, 31]
    # a pathway of 0 units is no spec (reason 2), and a0_rule has no start for it
    with pytest.raises(SpecError, match=r"pathways\[0\]\.hidden"):
        tk.GDLNSpec(tk.xor_margin(0.5), [tk.Pathway("p", "all", "all", "all", 0)], tk.Training(lr=0.01))
    with pytest.raises(SpecError):
        a0_rule(0.01, 0)
