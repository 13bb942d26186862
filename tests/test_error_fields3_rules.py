"""Bad input names the exact field, in Python as on the command line (round 3 of
tests/test_error_fields_rules.py and tests/test_error_fields2_rules.py).

1. The initial scales ``a0`` and ``init_std`` are held to the spec file's range, 1e-12 … 1e2
   (docs/specs.md, "training.a0 | number | 1e-12 … 1e2"), wherever Python takes them:
   ``tk.Training``, ``tk.simulate(a0=…, init_std=…)``, ``tk.find_gates(init_std=…)``; ``Training(a0=1e5)``
   and ``Training(init_std=1e9)`` were accepted.
2. A seed is held to ``--seed``'s rule, 0 … 2**32 - 1 (docs/cli.md; JAX's PRNGKey takes no other):
   ``tk.simulate(spec, seed=-1)`` ran.
3. A misspelt choice (``method="closed_form"``, ``network="Relu"``, ``--network relux``, a misspelt
   command) is answered with the nearest valid one, "did you mean 'closed-form'?", by one rule
   (theorykit.errors.nearest) in Python and on the command line alike.
4. ``tk.simulate(spec, steps=10**12)`` is refused by the spec's bound on steps (10**9), naming ``steps``;
   it was a MemoryError (7 TiB) from deep inside the recorder.
5. ``tk.simulate(…, snapshot_every=0 | -1 | 1.5)``: a positive whole number of steps, named; 0 was ignored,
   -1 took one snapshot, 1.5 was a TypeError from ``range``.

The golden ranges are docs/specs.md's table (1e-12 … 1e2 for a0 and init_std; training.steps up to
10**9) and the command line's help for ``--seed`` ("0 to 2**32 - 1"), written here by hand.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest

import theorykit as tk
from theorykit.cli.parser import MAX_SEED, WholeNumber, build_parser
from theorykit.errors import SpecError, nearest
from theorykit.net.layout import Net
from theorykit.net.starts import random_params
from theorykit.sim.engine import train_net
from theorykit.spec import ranges
from theorykit.spec.files import TRAINING_RANGES, spec_from_dict

XOR = Path(__file__).resolve().parents[1] / "examples" / "xor_linear.toml"
SCALE_FIX = "give a positive number from 1e-12 to 100, e.g. "     # docs/specs.md: 1e-12 … 1e2
SEED_FIX = "give a whole number from 0 to 4294967295, e.g. "        # 2**32 - 1 = 4294967295, by hand


def _spec():
    return tk.load_spec(XOR).subs({"Delta": 0.5})


# -- 1. a0 and init_std: the spec file's range, in Python too ------------------------------------------
@pytest.mark.parametrize("call, field, example", [
    (lambda: tk.Training(a0=1e5), "training.a0", "a0 = 0.001"),
    (lambda: tk.Training(init_std=1e9), "training.init_std", "init_std = 0.01"),
    (lambda: tk.Training(a0=1e-13), "training.a0", "a0 = 0.001"),
    (lambda: tk.Training(init_std=float("inf")), "training.init_std", "init_std = 0.01"),
    (lambda: tk.simulate(_spec(), a0=1e5, steps=2, seeds=1), "a0", "a0=1e-3"),
    (lambda: tk.simulate(_spec(), init="random", init_std=1e9, steps=2, seeds=1), "init_std", "init_std=0.01"),
    (lambda: tk.find_gates(tk.xor_margin(0.5), K=1, hidden=4, seeds=1, init_std=1e3), "init_std", "init_std=0.01"),
], ids=["Training-a0-huge", "Training-init_std-huge", "Training-a0-tiny", "Training-init_std-inf",
        "simulate-a0", "simulate-init_std", "find_gates-init_std"])
def test_an_initial_scale_outside_the_spec_files_range_is_refused_in_python(call, field, example):
    with pytest.raises(SpecError) as e:
        call()
    assert e.value.field == field
    assert e.value.fix == SCALE_FIX + example


def test_the_initial_scales_have_one_range_and_its_ends_are_accepted():
    assert (ranges.SCALE_MIN, ranges.SCALE_MAX) == (1e-12, 1e2)
    assert TRAINING_RANGES["a0"] == TRAINING_RANGES["init_std"] == (1e-12, 1e2)
    tr = tk.Training(a0=1e-12, init_std=100.0)          # both ends are inside (docs/specs.md: 1e-12 … 1e2)
    assert (tr.a0, tr.init_std) == (1e-12, 100.0)
    with pytest.raises(SpecError) as e:                # Training(a0=1e5) was accepted
        tk.Training(a0=1e5)
    py = e.value
    data = tomllib.loads(XOR.read_text())
    data.setdefault("training", {})["a0"] = 1e5
    with pytest.raises(SpecError) as e:                # the spec file says it the same way
        spec_from_dict(data)
    assert (e.value.field, e.value.problem, e.value.fix) == (py.field, py.problem, py.fix)
    assert py.problem == "100000 is out of range [1e-12, 100]"


# -- 2. a seed: --seed's rule --------------------------------------------------------------------------
@pytest.mark.parametrize("seed, problem", [
    (-1, "-1 is out of range: must be between 0 and 4294967295"),
    (2 ** 32, "4294967296 is out of range: must be between 0 and 4294967295"),
    (1.5, "needs an integer, got a float 1.5"),
    ("1", "needs an integer, got a string '1'"),
])
def test_simulate_refuses_a_seed_that_the_command_line_refuses(seed, problem):
    with pytest.raises(SpecError) as e:
        tk.simulate(_spec(), seed=seed, steps=2, seeds=1)
    assert (e.value.field, e.value.problem, e.value.fix) == ("seed", problem, SEED_FIX + "seed=0")


def test_the_seed_rule_is_the_command_lines_and_its_last_seed_runs():
    assert ranges.MAX_SEED == 2 ** 32 - 1 == MAX_SEED
    cli = WholeNumber("--seed", 0, MAX_SEED, 1).fix          # what --seed -1 answers on the command line
    assert cli == SEED_FIX + "--seed 1"
    with pytest.raises(SpecError) as e:                      # seed=-1 ran
        tk.simulate(_spec(), seed=-1, steps=2, seeds=1)
    assert e.value.fix == SEED_FIX + "seed=0"
    run = tk.simulate(_spec(), seed=2 ** 32 - 1, steps=2, seeds=1)
    assert run.loss.shape == (1, 3)


# -- 3. a misspelt choice: the nearest one ---------------------------------------------------------------
@pytest.mark.parametrize("call, field, meant", [
    (lambda: tk.Derivation(_spec(), method="closed_form"), "method", "closed-form"),
    (lambda: tk.Derivation(_spec(), method="race"), "method", "race-reduction"),
    (lambda: tk.Derivation(_spec(), method="Closed-Form"), "method", "closed-form"),
    (lambda: tk.simulate(_spec(), network="Relu", steps=2), "network", "relu"),
    (lambda: tk.simulate(_spec(), init="random_", steps=2), "init", "random"),
    (lambda: tk.simulate(_spec(), schedule="stage", steps=2), "schedule", "staged"),
    (lambda: tk.simulate(_spec(), dtype="flaot64", steps=2), "dtype", "float64"),
    (lambda: tk.contexts(2, 2, blocks="hierarchyy"), "blocks[0]", "hierarchy"),
    (lambda: tk.Training(loss="meen"), "training.loss", "mean"),
], ids=["method-underscore", "method-prefix", "method-case", "network", "init", "schedule", "dtype", "structure",
        "loss"])
def test_a_misspelt_choice_is_answered_with_the_nearest_valid_one(call, field, meant):
    with pytest.raises(SpecError) as e:
        call()
    assert e.value.field == field
    assert e.value.fix.startswith(f"did you mean {meant!r}? Otherwise ")


def test_a_choice_with_no_near_name_keeps_its_fix_and_the_message_its_words():
    with pytest.raises(SpecError) as e:
        tk.Derivation(_spec(), method="zzz")
    assert str(e.value) == ("method: unknown method 'zzz' (fix: use one of ['auto', 'closed-form', "
                            "'race-reduction'])")
    with pytest.raises(SpecError) as e:
        tk.Derivation(_spec(), method="closed_form")
    assert str(e.value) == ("method: unknown method 'closed_form' (fix: did you mean 'closed-form'? Otherwise use "
                            "one of ['auto', 'closed-form', 'race-reduction'])")


def test_nearest_is_one_rule_for_keywords_choices_and_options():
    methods = ("auto", "closed-form", "race-reduction")
    assert nearest("closed_form", methods) == "closed-form"     # difflib's ratio 10/11 (one character differs)
    assert nearest("CLOSED-FORM", methods) == "closed-form"     # the same but for case
    assert nearest("race", methods) == "race-reduction"         # the only name it begins
    assert nearest("zzz", methods) is None and nearest(3, methods) is None
    assert nearest("ra", methods) is None                        # too short to be read as a beginning
    with pytest.raises(TypeError) as e:                         # the keywords' rule is the same one
        tk.Training(LR=0.1)
    assert str(e.value).endswith("(fix: did you mean lr=?)")


@pytest.mark.parametrize("argv, tail", [
    (["simulate", str(XOR), "--network", "relux"], "(fix: did you mean 'relu'?)"),
    (["derive", str(XOR), "--method", "closed"], "(fix: did you mean 'closed-form'?)"),
    (["simualte", str(XOR)], "(fix: did you mean 'simulate'?)"),
])
def test_the_command_line_names_the_nearest_choice_too(argv, tail, capsys):
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "invalid choice" in err and err.endswith(tail), err


def test_the_command_line_adds_no_guess_where_none_is_near(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["simulate", str(XOR), "--network", "zzz"])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith("invalid choice: 'zzz' (choose from 'gdln', 'relu')"), err
    assert nearest("zzz", ("gdln", "relu")) is None


# -- 4. steps: the spec's bound ----------------------------------------------------------------------------
def test_simulate_refuses_more_steps_than_a_spec_may_ask_for():
    """steps=10**12 was numpy's MemoryError ("Unable to allocate 7.28 TiB") from theorykit/record.py."""
    assert ranges.MAX_STEPS == 10 ** 9
    with pytest.raises(SpecError) as e:
        tk.simulate(_spec(), steps=10 ** 12, seeds=1)
    assert e.value.field == "steps"
    assert e.value.problem == "1000000000000 is out of range: must be between 0 and 1000000000"
    assert e.value.fix == "e.g. steps = 2000"


def test_both_trainers_refuse_more_steps_than_a_spec_may_ask_for():
    """The plain trainer and the fused kernel check the step count by one rule (tests/test_simulation_core.py)."""
    net = Net.chain(2, [3], 1)
    p0 = random_params(net, 0.1, 1, 0, "float64")
    data = (np.ones((2, 4)), np.ones((1, 4)))
    for fused in (False, True):
        with pytest.raises(SpecError) as e:
            train_net(net, p0, data, lr=0.1, loss="sum", steps=10 ** 12, fused=fused)
        assert (e.value.field, e.value.problem) == ("steps", "1000000000000 is out of range: must be between 0 "
                                                             "and 1000000000")


@pytest.mark.parametrize("every, problem", [
    (0, "0 is out of range: must be at least 1"),              # was ignored: no snapshots, no error
    (-1, "-1 is out of range: must be at least 1"),            # was one snapshot at step 0
    (1.5, "needs an integer, got a float 1.5"),                 # was TypeError from range()
])
def test_a_snapshot_interval_that_is_no_positive_whole_number_is_refused(every, problem):
    X, Y = tk.xor_margin(0.5).numeric()
    with pytest.raises(SpecError) as e:
        tk.simulate((X, Y), network="relu", hidden=4, lr=0.1, steps=3, seeds=1, snapshot_every=every)
    assert (e.value.field, e.value.problem) == ("snapshot_every", problem)
    assert e.value.fix == "a positive number of steps, e.g. snapshot_every=100"


@pytest.mark.parametrize("kw, field, start", [
    ({"search": "beem"}, "search", "did you mean 'beam'? Otherwise use exhaustive, forward or beam"),
    ({"consistency": "tpo"}, "consistency", "did you mean 'top'? Otherwise use top, any-output or off"),
    ({"race_dt": float("nan")}, "race_dt", "a positive number, e.g. race_dt=10"),      # was ValueError: NaN to integer
    ({"race_dt": 0}, "race_dt", "a positive number, e.g. race_dt=10"),
])
def test_predict_reln_names_a_misspelt_choice_and_a_bad_race_step(kw, field, start):
    with pytest.raises(SpecError) as e:
        tk.predict_reln(tk.xor_margin(0.5), 8, tk.Training(), progress=False, **kw)
    assert e.value.field == field
    assert e.value.fix.startswith(start), e.value.fix
