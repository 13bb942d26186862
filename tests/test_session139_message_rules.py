"""Six honesty and message fixes a user meets, each pinned by a test that failed before it.

1. ``--time-limit``: a word (``abc``) and a number no float holds (``1e400``) were refused with the fix
   "give a number of seconds, 0 or more, e.g. --time-limit 600", while NaN and a negative number got the
   same words and "(0 or inf: no limit)": the fix was written in four places (the parser's reader, the size
   check's limits, predict's command and predict_reln). It is written once now
   (``theorykit.spec.ranges.time_limit_fix``) and every refusal gives it whole.
2. ``predict xor_data.toml --set Delta=0.5 --hidden 8 --race-dt 1e6`` blamed training.steps ("2000 steps are
   more than a race of this data can take: at most 40 … lower training.steps"), which the user never set.
   Where race_dt is given away from its default and another race_dt reaches the steps, the error names
   --race-dt (``race_dt`` in Python) with that value, the steps the other way
   (``theorykit.analysis.exhaust.check_predict_horizon``, the one place of predict's horizon check).
3. ``theorykit rerun sweep.json`` whose ``provenance.spec_toml`` is broken said "error in spec:
   /tmp/theorykit-rerun-…/spec.toml is not valid TOML": a temporary file the user never saw. The recorded
   text is checked before the rerun, and the error names provenance.spec_toml and the JSON file.
4. ``find-gates --checkpoints … --steps 0,100`` recorded its --steps as the text ``'0,100'`` in the written spec's
   provenance options, where ``find-gates TASK --steps 100`` records the number 100. It records the numbers
   now, ``[0, 100]``: a number, or numbers, on both paths.
5. ``theorykit.spec.limits.Limits(max_seconds=0)`` was a limit of 0 s (every estimate over it), while
   ``--time-limit 0`` is no limit (its --help: "0 or inf: no limit"). Limits now reads 0 as no limit too
   (stored as inf), and refuses a negative or NaN max_seconds by name (NaN was no limit: nothing is > NaN).
6. ``FoundGates.summary()["mse"]`` held +inf for a K whose clusters kept no gate pattern (an imported run),
   which ``json.dumps`` wrote as ``Infinity`` (no JSON) and ``theorykit.io.write_json`` refused. Such a
   score is None now, and ``mse_none`` says why.
"""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import theorykit as tk
from theorykit.analysis import predict
from theorykit.analysis.checkpoints import find_gates_in_run, load_checkpoints
from theorykit.io import write_json
from theorykit.cli import main
from theorykit.cli.parser import build_parser, commands
from theorykit.errors import SpecError
from theorykit.spec.limits import Estimate, Limits, enforce

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


# ------------------------------------------------------------------------------------------
# 2. a race_dt too fine for the steps is named, not the steps the user never set
# ------------------------------------------------------------------------------------------
# By hand (as tests/test_fix_leads_to_a_run_rules.py derives it): XoR with Δ = 1/2, lr 0.05, mean loss: τ = 1/η = 20
# steps, s_max = max(1, 1/2) = 1. At race_dt = 1e6 the RK4 step is τ/(race_dt·s_max) = 2e-5 steps, and the flow's
# budget of 2e6 integration steps reaches 2e6 × 2e-5 = 40 steps (its loss recorded every max(1, ⌊2e-5⌋) = 1 step:
# 1e7 records; the rate's step τ/(40 s_max) = 1/2: 1e6 steps), so at most 40 of training.steps' 2000. At the
# default race_dt = 10 the step is 2 (4e6 steps), records every 2 (2e7), the rate's 1e6: 2000 steps pass, and RK4
# is stable there (race_dt >= 2·s_max·2/2.785 = 1.44).
def test_predict_names_a_given_race_dt_with_a_value_that_works(capsys, tmp_path):
    out = tmp_path / "p.toml"
    assert main(["predict", XOR_DATA, "--set", "Delta=0.5", "--hidden", "8", "--race-dt", "1e6", "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "theorykit: error in --race-dt: 1000000.0 makes the RK4 step τ/(race_dt·s_max) = 2e-05 steps, so a race of "
        "this data can take at most 40 steps (the flow's budget of integration steps at its fastest rate, and of "
        "recorded losses), fewer than training.steps = 2000 (fix: use --race-dt 10 (the default), or lower "
        "training.steps to at most 40)")
    assert not out.exists()


def test_with_steps_given_the_other_way_names_them(capsys, tmp_path):
    assert main(["predict", XOR_DATA, "--set", "Delta=0.5", "--hidden", "8", "--race-dt", "1e6", "--steps", "100",
                 "--out", str(tmp_path / "p.toml")]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("theorykit: error in --race-dt: ")
    assert err.endswith("fewer than --steps = 100 (fix: use --race-dt 10 (the default), or lower --steps to at most 40)")


def test_predict_reln_names_race_dt_and_its_fix_leads_to_the_race(monkeypatch):
    task, tr = tk.xor_margin(0.5), tk.Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)
    with pytest.raises(SpecError) as info:
        tk.predict_reln(task, 8, tr, race_dt=1e6, progress=False)
    assert info.value.field == "race_dt"
    assert info.value.fix == "use race_dt=10 (the default), or lower training.steps to at most 40"
    with pytest.raises(SpecError) as info:
        tk.predict_reln(task, 8, tr, race_dt=1e6, steps=2000, progress=False)
    assert info.value.field == "race_dt" and info.value.fix == "use race_dt=10 (the default), or steps=40 or fewer"

    def reached(*a, **kw):
        raise RuntimeError("the race was reached")
    monkeypatch.setattr(predict, "_race_families", reached)
    for kw in ({"race_dt": 10}, {"race_dt": 1e6, "steps": 40}):      # either fix passes every check before the race
        with pytest.raises(RuntimeError, match="the race was reached"):
            tk.predict_reln(task, 8, tr, progress=False, **kw)


def test_at_the_default_race_dt_the_steps_are_still_named():
    # 2e6 steps of the rate's 1/2 reach 1e6 steps: past them no race_dt helps, and --steps is the fix
    task, tr = tk.xor_margin(0.5), tk.Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)
    for race_dt in (10, 20):
        with pytest.raises(SpecError) as info:
            tk.predict_reln(task, 8, tr, race_dt=race_dt, steps=1_000_001, time_limit=0, progress=False)
        assert info.value.field == "steps" and "at most 1000000" in info.value.problem


# ------------------------------------------------------------------------------------------
# 3. rerun: a broken recorded spec is named as the record's field, in the file given
# ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    """A sweep.json as `theorykit sweep … --out DIR` writes it (two members, 5 steps: seconds)."""
    out = tmp_path_factory.mktemp("sweep") / "sw"
    assert main(["sweep", str(ROOT / "examples" / "xor_linear.toml"), "--grid", "Delta=0.5,1", "--seeds", "1",
                 "--steps", "5", "--no-progress", "--out", str(out)]) == 0
    return out


def _damaged(sweep_dir, tmp_path, spec_toml):
    dst = tmp_path / "copy"
    shutil.copytree(sweep_dir, dst)
    doc = json.loads((dst / "sweep.json").read_text())
    assert isinstance(doc["provenance"]["spec_toml"], str)      # the sweep records its spec as text
    doc["provenance"]["spec_toml"] = spec_toml(doc["provenance"]["spec_toml"])
    (dst / "sweep.json").write_text(json.dumps(doc))
    return dst / "sweep.json"


@pytest.mark.parametrize("damage, says", [
    (lambda t: t.replace("[data]", "[data", 1), "the recorded spec is not valid TOML: "),
    (lambda t: "", "the recorded spec is empty"),
    (lambda t: t.replace("[data]", "[data]\ud800", 1), "the recorded spec is not UTF-8 text"),   # a lone surrogate
    (lambda t: 42, "a int, not the text of a spec"),
])
def test_a_broken_recorded_spec_names_the_field_and_the_file(sweep_dir, tmp_path, capsys, monkeypatch, damage, says):
    monkeypatch.chdir(ROOT)
    result = _damaged(sweep_dir, tmp_path, damage)
    capsys.readouterr()
    assert main(["rerun", str(result)]) == 2
    err = capsys.readouterr().err
    # the file as the message shows it: a path over 80 characters keeps its end ("…" + the last 79), as
    # under pytest-xdist's longer temporary folders
    shown = str(result) if len(str(result)) <= 80 else "…" + str(result)[-79:]
    assert err.startswith(f"theorykit: error in provenance.spec_toml: in {shown}: {says}"), err
    assert err.split(": in ", 1)[1].split(": ", 1)[0].endswith("copy/sweep.json")
    assert "theorykit-rerun-" not in err and "rerun: theorykit" not in err      # no temporary file; nothing run
    assert len(err.strip().splitlines()) == 1


def test_the_sweep_as_written_still_reruns(sweep_dir, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    capsys.readouterr()
    assert main(["rerun", str(sweep_dir / "sweep.json")]) == 0
    assert capsys.readouterr().out.startswith("identical:")


# ------------------------------------------------------------------------------------------
# 5. Limits(max_seconds=0) is no limit, as --time-limit 0
# ------------------------------------------------------------------------------------------
def test_limits_max_seconds_0_is_no_limit_as_on_the_command_line(capsys):
    # the same cost through both: a stage estimated at a year, where the command line's 0 (its --help: "0 or
    # inf: no limit") lets it pass
    year = Estimate("simulation", seconds=365 * 86400.0)
    for value in (0, 0.0, math.inf):
        assert Limits(max_seconds=value).max_seconds == math.inf
        enforce(year, Limits(max_seconds=value))        # no error: no limit
    with pytest.raises(SpecError):      # a limit is still a limit
        enforce(year, Limits(max_seconds=600))
    # and the command line's limits are those of Python's: `check --time-limit 0` reports the limit as inf
    assert main(["check", XOR, "--time-limit", "0"]) == 0
    assert "time inf s" in capsys.readouterr().out


def test_limits_docstring_says_what_0_means():
    assert "0 or ``math.inf`` for no time limit" in Limits.__doc__


@pytest.mark.parametrize("value", [-1, float("nan"), "600", True])
def test_a_bad_max_seconds_is_refused_by_name(value):
    # NaN was silently no limit (no estimate is > NaN), -1 a limit nothing passes
    with pytest.raises(SpecError) as info:
        Limits(max_seconds=value)
    assert info.value.field == "max_seconds" and "e.g. Limits(max_seconds=600) (0 or inf: no limit" in info.value.fix


# ------------------------------------------------------------------------------------------
# 4. find-gates records --steps as numbers with --checkpoints too
# ------------------------------------------------------------------------------------------
def _record(spec_file: Path) -> dict:
    first = spec_file.read_text().split("\n", 1)[0]       # "# made by theorykit: {json}"
    return json.loads(first.split(": ", 1)[1])


def test_find_gates_records_steps_as_numbers_on_both_paths(tmp_path):
    # your own run: random 3 -> 4 -> 1 ReLU weights at steps 0 and 100 on XoR with margin 0.5
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "data.npz", X=np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]]),
             Y=np.array([[1.0, 1, -1, -1]]))
    for s in (0, 100):
        np.savez(tmp_path / f"step_{s}.npz", W1=0.1 * rng.standard_normal((4, 3)), W2=0.1 * rng.standard_normal((1, 4)))
    imported, trained = tmp_path / "found.toml", tmp_path / "trained.toml"
    assert main(["find-gates", "--checkpoints", str(tmp_path / "step_*.npz"), "--data", str(tmp_path / "data.npz"),
                 "--steps", "0,100", "--lr", "0.1", "--K", "1", "--no-progress", "--out", str(imported)]) == 0
    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", "--seeds", "1", "--steps", "20", "--K", "1",
                 "--hidden", "4", "--no-progress", "--out", str(trained)]) == 0
    got, other = _record(imported)["options"]["steps"], _record(trained)["options"]["steps"]
    assert other == 20 and type(other) is int       # the trained path: the number typed
    assert got == [0, 100] and all(type(v) is int for v in got)     # the steps typed, as numbers


# ------------------------------------------------------------------------------------------
# 6. FoundGates.summary() is JSON: no Infinity
# ------------------------------------------------------------------------------------------
def _strict(text: str):
    """JSON as the standard has it: Python's json reads NaN, Infinity and -Infinity unless told not to."""
    def refuse(word):
        raise ValueError(f"{word} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_found_gates_summary_is_strict_json_where_a_K_kept_no_pattern(tmp_path):
    # A run of 4 units on positive inputs: units 1-3 have negative weights (never on); unit 0, w = (0.3, -0.2), is
    # on at x = (1, 1), (2, 1), (2, 2) (w·x = 0.1, 0.4, 0.2) and off at (1, 2) (-0.1). By hand, K = 1's one centroid
    # is the units' mean activity, 1/4 on three datapoints: below Algorithm 1's threshold of 1/2 everywhere, so
    # its pattern is all off and dropped: no pattern kept, no GDLN to score.
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "data.npz", X=np.array([[1.0, 2, 1, 2], [1, 1, 2, 2]]), Y=np.array([[1.0, -1, -1, 1]]))
    for s in (0, 100, 200):
        W1 = -np.abs(0.1 * rng.standard_normal((4, 2)))
        W1[0] = [0.3, -0.2]
        np.savez(tmp_path / f"step_{s}.npz", W1=W1, W2=0.1 * rng.standard_normal((1, 4)))
    run = load_checkpoints(str(tmp_path / "step_*.npz"), str(tmp_path / "data.npz"))
    found = find_gates_in_run(run, lr=0.1, Ks=[1, 2], progress=False)
    assert len(found.scores[0]["patterns"]) == 0 and found.scores[1]["patterns"]      # as derived above
    summ = found.summary()
    assert summ["mse"][0] is None and summ["mse"][1] == found.scores[1]["mse"]
    assert summ["mse_none"] == [{"K": 1, "why": "its clusters kept no gate pattern: no GDLN to score"}]
    assert _strict(json.dumps(summ))["mse"][0] is None          # as a user writes it
    write_json(tmp_path / "summary.json", summ)                 # as theorykit writes results (it refused)
    assert _strict((tmp_path / "summary.json").read_text()) == _strict(json.dumps(summ))


def test_the_strict_parser_refuses_infinity():
    # the check above can fail: what the summary held before is refused
    with pytest.raises(ValueError, match="Infinity is not JSON"):
        _strict(json.dumps({"mse": [float("inf")]}))
