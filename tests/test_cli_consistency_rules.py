"""The command line reads as one tool: one name for one idea, counts in correct English, results
that do not write into the library's objects, and help texts a theorist can read.

Before (measured on main):
- `theorykit predict` bounded its run with `--time-bound SECONDS`, while derive, simulate, check and
  sweep refuse a run by its estimate with `--time-limit SECONDS`: one idea, two names. Now predict's is
  `--time-limit` too (its own default, 60 s, and its re-checks during the run kept), and `--time-bound`
  still works, with one line on stderr saying it is now `--time-limit`.
- derive/check printed "1 outputs"; derive's JSON notes were the Derivation's own list (the CLI's notes
  landed in der.notes); the contexts report said "130 gatings" for 127 families and 3 datapoint-level
  gatings; sweep --help spoke of "members of one sharded trainer call". Each section below says more.
"""
from pathlib import Path

import pytest
from _specs import XOR_TOML

from theorykit.cli import main
from theorykit.cli.parser import build_parser, commands

ROOT = Path(__file__).resolve().parents[1]
PREDICT = ["predict", "x.toml", "--hidden", "8", "--out", "p.toml"]


# ------------------------------------------------------------------------------------------
# 1. one name for the time limit
# ------------------------------------------------------------------------------------------
def test_every_command_that_refuses_by_time_calls_it_time_limit():
    for name, sub in commands(build_parser()).items():
        shown = {o for a in sub._actions if a.help != "==SUPPRESS==" for o in a.option_strings}
        assert "--time-bound" not in shown, f"{name} --help still shows --time-bound"
        if name in ("check", "derive", "simulate", "sweep", "predict"):
            assert "--time-limit" in shown, name
    help_ = commands(build_parser())["predict"]._option_string_actions["--time-limit"].help
    assert "default 60" in help_ and "during the run" in help_ and "--time-bound" in help_


def test_predict_time_limit_keeps_its_default_of_60_seconds():
    assert build_parser().parse_args(PREDICT).time_limit == 60.0


def test_time_bound_still_works_and_says_once_that_it_is_now_time_limit(capsys, tmp_path):
    args = build_parser().parse_args([*PREDICT, "--time-bound", "7"])
    assert args.time_limit == 7.0 and not hasattr(args, "time_bound")
    assert build_parser().parse_args([*PREDICT, "--time-limit", "7"]).time_limit == 7.0
    # the command line says it once (given twice too), on stderr; x.toml does not exist: refused after it
    missing = str(tmp_path / "x.toml")
    assert main(["predict", missing, "--hidden", "8", "--out", "p.toml", "--time-bound", "7", "--time-bound", "8"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "theorykit: warning: --time-bound is now --time-limit (same meaning; write --time-limit)"
    assert sum("--time-bound" in ln for ln in err) == 1 and err[1].startswith("theorykit: error in spec")
    # the new name says nothing
    assert main(["predict", missing, "--hidden", "8", "--out", "p.toml", "--time-limit", "7"]) == 2
    assert "warning" not in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--time-limit", "--time-bound"])
def test_predict_refusal_names_time_limit(option, tmp_path, capsys):
    spec, out = tmp_path / "xor.toml", tmp_path / "o.toml"
    spec.write_text(XOR_TOML)
    # 10**6 steps, the most this race takes (τ = 20, s_max = 1; 10**8, the old figure here, is now refused
    # by --steps first): a new shape (2.5 s) and its arithmetic, estimated past 2 s
    assert main(["predict", str(spec), "--hidden", "8", "--set", "Delta=1", "--out", str(out), "--no-progress",
                 option, "2", "--steps", "1000000"]) == 2
    err = capsys.readouterr().err
    assert "theorykit: error in --time-limit: the estimated run time" in err and "raise --time-limit" in err
    assert "error in --time-bound" not in err and not out.exists()


# ------------------------------------------------------------------------------------------
# 2. a count of one takes the singular
# ------------------------------------------------------------------------------------------
# Before: `theorykit check examples/xor_linear.toml` printed "3 inputs x 4 datapoints -> 1 outputs" and
# each pathway "3 inputs, 1 outputs"; derive's summary "3 inputs → 1 outputs". The XoR task has one
# output (targets = [[1, 1, -1, -1]], examples/xor_linear.toml) and 3 inputs.
def test_check_says_1_output(capsys):
    assert main(["check", str(ROOT / "examples" / "xor_linear.toml")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "task: custom, 3 inputs x 4 datapoints -> 1 output"
    assert out[3] == "  positive: on 2/4 datapoints, 3 inputs, 1 output, hidden 64, depth 2"
    assert "1 outputs" not in "\n".join(out)


def test_derive_summary_says_1_output_and_1_pathway(monkeypatch, capsys):
    from theorykit.analysis import summary as S

    monkeypatch.setattr(S, "stdout_is_terminal", lambda: True)
    assert main(["derive", str(ROOT / "examples" / "xor_linear.toml"), "--set", "Delta=1/2"]) == 0
    out = capsys.readouterr().out
    assert "3 inputs → 1 output\n" in out and "1 outputs" not in out


def test_simulate_summary_counts_one_seed_in_the_singular():
    from theorykit.analysis.summary import simulate_text

    doc = {"spec": "s", "network": "gdln", "init": "aligned", "seeds": 1, "steps": 1, "dtype": "float64",
           "seconds": 0.5, "loss": {"t": [0, 1], "mean": [1.0, 0.5], "std": [0.0, 0.0]}}
    assert simulate_text(doc).splitlines()[0] == "s: gdln network, init aligned, 1 seed, 1 step, float64 (0.5s)"


def test_counted_takes_an_irregular_plural():
    from theorykit.io import counted

    assert [counted(n, "family", "families") for n in (0, 1, 2)] == ["0 families", "1 family", "2 families"]
    assert [counted(n, "output") for n in (1, 3)] == ["1 output", "3 outputs"]


# ------------------------------------------------------------------------------------------
# 3. derive's result does not write into the Derivation
# ------------------------------------------------------------------------------------------
# Before: derive built out = {"notes": der.notes, ...} and appended its own notes to out["notes"]: the
# Derivation's own list, so der.notes held the CLI's text ("symbols ['Delta'] have no value ...") and a
# second summary of the same Derivation repeated it.
def test_derive_leaves_the_derivations_notes_as_they_were(monkeypatch, tmp_path):
    import json

    import theorykit.cli.derive as cli_derive

    made = []

    class Recorded(cli_derive.Derivation):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append((self, list(self.notes)))

    monkeypatch.setattr(cli_derive, "Derivation", Recorded)
    out = tmp_path / "d.json"
    # Delta left without a value: derive adds its note on the reference point
    assert main(["derive", str(ROOT / "examples" / "xor_linear.toml"), "--json", str(out)]) == 0
    (der, before), = made
    assert der.notes == before and not any("have no value" in n for n in der.notes)
    written = json.loads(out.read_text())["notes"]
    assert written[:len(before)] == before and sum("have no value" in n for n in written) == 1


# ------------------------------------------------------------------------------------------
# 4. the quick report says what the race by exhaustion counted
# ------------------------------------------------------------------------------------------
# Before: the contexts claim read "race by exhaustion over 130 gatings", while README, validation/contexts.py
# and notebook 02 say 127 families. race_ranking races the 127 context-gated families (every non-empty set
# of the 7 pathways of the 3-context task: common, 3 single-, 3 double-context; 2^7 - 1 = 127) and, beside
# them, 3 datapoint-level gatings (Lemma 4.1's edge case: common + 24 single-datapoint, common + doubles +
# 24 single-datapoint, 24 single-datapoint), and its "families" counts both: 127 + 3 = 130.
def test_the_race_by_exhaustion_is_described_by_what_it_counted():
    from theorykit.spec.gating import family_masks
    from validation.contexts import race_scope

    assert len(family_masks(3)[1]) == 2 ** 7 - 1 == 127
    assert race_scope({"families": 130, "context_families": 127}) == \
        "127 context-gated families and 3 datapoint-level gatings (Lemma 4.1's edge case)"
    assert race_scope({"families": 1, "context_families": 1}) == "1 context-gated family"


# ------------------------------------------------------------------------------------------
# 5. sweep --help in a theorist's words
# ------------------------------------------------------------------------------------------
# Before: "Every (symbol point, lr, seed) is one member of one sharded trainer call; chunks of members
# are written atomically ...", "--chunk: members per chunk": the words of the implementation. Now it says
# what is swept (the --grid values of symbols and lr, and the seeds), what runs (the spec's GDLN trained
# by gradient descent, as simulate would) and what is written (DIR/chunks, DIR/sweep.json).
def test_sweep_help_says_what_is_swept_what_runs_and_what_is_written():
    sweep = commands(build_parser())["sweep"]
    text = sweep.format_help()
    for jargon in ("member", "sharded", "trainer call"):
        assert jargon not in text, jargon
    desc = " ".join(sweep.description.split())
    assert "Train the spec's GDLN by gradient descent, as simulate would" in desc
    assert "every combination of the --grid values" in desc and "learning rate lr" in desc
    assert "DIR/chunks" in desc and "DIR/sweep.json" in desc and "mean and spread over the seeds" in desc
    opts = sweep._option_string_actions
    assert "seeds 0 to SEEDS - 1" in opts["--seeds"].help and "evenly spaced" in opts["--grid"].help
    assert "memory" in opts["--chunk"].help


# ------------------------------------------------------------------------------------------
# 6. Estimate.__add__: the sum theorykit makes (derivation + simulation, cli.common.sim_estimate)
# ------------------------------------------------------------------------------------------
# Read for the report: the extra attributes are the derivation's `radicals` and the simulation's
# `steps_field`, `seeds_field`, `steps`, `seeds`; the one sum theorykit makes adds a derivation to a
# simulation, whose extra attributes do not overlap, so the sum holds each as its part set it. Pinned
# here on hand-made estimates: seconds 2 + 3 = 5, bytes 10 + 20 = 30, the parts of both in order.
def test_a_derivation_plus_a_simulation_keeps_each_ones_own_attributes():
    from theorykit.spec.limits import Estimate

    der = Estimate("derivation").add("pathways[0]", 2.0, 10.0, None, 3.0)
    der.radicals = ("rad", "data", 1.5)
    sim = Estimate("simulation").add("training.steps", 3.0, 20.0, 100, 1.0)
    sim.steps_field, sim.seeds_field, sim.steps, sim.seeds = "training.steps", "--seeds", 100, 4
    s = der + sim
    assert (s.stage, s.seconds, s.bytes) == ("derivation + simulation", 5.0, 30.0)
    assert s.parts == [("pathways[0]", 2.0, 10.0, None, 3.0), ("training.steps", 3.0, 20.0, 100, 1.0)]
    assert s.radicals == ("rad", "data", 1.5) and (s.steps_field, s.seeds_field, s.steps, s.seeds) == \
        ("training.steps", "--seeds", 100, 4)
    assert len(der.parts) == len(sim.parts) == 1 and not hasattr(der, "seeds")     # the terms are unchanged
