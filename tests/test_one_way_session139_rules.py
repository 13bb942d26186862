"""One way to do each thing (session 139): pieces written once that were written two to four times.

Each test pins the behaviour the copies had, so that the one piece that serves them all is held to it.

* How a size refusal's fix ends (``theorykit.spec.limits.lift``): on the command line, docs/specs.md's
  "--force does not lift the memory limit" and "--force runs past the time limit" (as "or pass --force (or a
  larger --time-limit) to run it anyway"); from Python, docs/specs.md's "limits=theorykit.spec.limits.
  Limits(force=True) is --force" and "THEORYKIT_MAX_BYTES raises the memory limit". It was written in
  spec/limits.py (enforce), spec/task.py (the context tasks' size guard: "to build it anyway"),
  analysis/findgates.py (check_training_size) and analysis/checkpoints.py (check_elbow_size, both forms).
"""
from __future__ import annotations

import numpy as np
import pytest

import theorykit as tk
from theorykit.analysis import findgates
from theorykit.analysis.checkpoints import RunCheckpoints, check_elbow_size
from theorykit.errors import SpecError
from theorykit.spec.limits import Estimate, Limits, enforce

CLI_MEMORY = "; --force does not lift the memory limit"
CLI_TIME = "; or pass --force (or a larger --time-limit) to run it anyway"
PY_MEMORY = "; or raise the memory limit: limits=theorykit.spec.limits.Limits(max_bytes=…), or THEORYKIT_MAX_BYTES"
PY_TIME = ("; or pass limits=theorykit.spec.limits.Limits(force=True) (or max_seconds=…, or THEORYKIT_MAX_SECONDS) "
           "to {verb} it anyway")

# an estimate of 1 s and 1000 bytes: over Limits(max_bytes=10) in memory, over Limits(max_seconds=0.1) in time only
ONE = Estimate("a stage").add("--steps", 1.0, 1000.0, 100, 1.0)


@pytest.mark.parametrize("limits, ending", [(Limits(max_bytes=10), CLI_MEMORY), (Limits(max_seconds=0.1), CLI_TIME)])
def test_enforce_ends_its_fix_with_the_command_lines_way_past_the_limit(limits, ending):
    with pytest.raises(SpecError) as e:
        enforce(ONE, limits)
    assert e.value.fix.endswith(ending), e.value.fix
    # a limit over which nothing is: no refusal (the test can tell a refusal from none)
    enforce(ONE, Limits(max_bytes=1e4, max_seconds=10))


@pytest.mark.parametrize("limits, ending", [(Limits(max_bytes=10), PY_MEMORY),
                                            (Limits(max_seconds=0.1), PY_TIME.format(verb="run"))])
def test_find_gates_python_fix_ends_with_pythons_way(limits, ending):
    with pytest.raises(SpecError) as e:
        findgates.check_training_size(ONE, limits, python=True)
    assert e.value.fix.endswith(ending), e.value.fix
    assert "--force" not in e.value.fix          # Python's words only
    with pytest.raises(SpecError) as e:          # the command line keeps enforce's own words
        findgates.check_training_size(ONE, limits, python=False)
    assert e.value.fix.endswith(CLI_MEMORY if limits.max_bytes == 10 else CLI_TIME), e.value.fix


# contexts(8, 3) builds (n + k) × nk = 11 × 24 inputs and (p × 24) targets of exact entries (docs/theory.md#contexts):
# far over 10 bytes, and (at 2e-5 s an entry, spec.limits.SYMPY_ENTRY_SECONDS) over a time limit of 1e-9 s
@pytest.mark.parametrize("limits, ending", [(Limits(max_bytes=10), PY_MEMORY),
                                            (Limits(max_seconds=1e-9), PY_TIME.format(verb="build"))])
def test_the_context_tasks_size_guard_says_build(limits, ending):
    with pytest.raises(SpecError) as e:
        tk.contexts(8, 3, limits=limits)
    assert e.value.field == "n" and e.value.fix.endswith(ending), e.value.fix      # the keyword (was data.n)


X3 = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])      # d = 3, P = 4
Y1 = np.array([[1.0, 1, -1, -1]])                                                # p = 1


@pytest.mark.parametrize("limits, cli, py", [(Limits(max_bytes=10), CLI_MEMORY, PY_MEMORY),
                                             (Limits(max_seconds=1e-9), CLI_TIME, PY_TIME.format(verb="run"))])
def test_the_elbow_size_check_gives_both_ways(limits, cli, py):
    rng = np.random.default_rng(4)
    W = [0.3 * rng.standard_normal((2, 4, 3)), 0.3 * rng.standard_normal((2, 1, 4))]
    run = RunCheckpoints(np.array([0, 10]), W, ["a", "b"], X3, Y1, keys=["W1", "W2"])
    with pytest.raises(SpecError) as e:
        check_elbow_size(run, tk.Task(X3, Y1), range(1, 4), 10, limits)
    assert e.value.fix.endswith(cli), e.value.fix
    assert e.value.keyword_fix.endswith(py), e.value.keyword_fix


# ---------------------------------------------------------------------------------------------------
# Data X (d × P) and Y (p × P) with one P (theorykit.linalg.data_pair): the check was written in
# RaceSystem.from_data, patterns.data_symmetries and simulate((X, Y), ...). X 3 × 4 and Y 1 × 3: P = 4 against 3.
# ---------------------------------------------------------------------------------------------------
def _refusal(call):
    with pytest.raises(SpecError) as e:
        call()
    return e.value


def test_every_entry_that_takes_data_refuses_two_ps_by_one_rule():
    from theorykit.analysis.patterns import data_symmetries
    from theorykit.theory.race import RaceSystem

    Y3 = Y1[:, :3]
    race = _refusal(lambda: RaceSystem.from_data(X3, Y3, np.ones((1, 4))))
    sym = _refusal(lambda: data_symmetries(X3, Y3))
    sim = _refusal(lambda: tk.simulate((X3, Y3), network="relu", hidden=2, lr=0.1, steps=1))
    problem = "X (3, 4) and Y (1, 3) are not d × P and p × P with one P"
    assert (race.field, race.problem, race.fix) == ("X, Y", problem, "give 2-D data with datapoints as columns")
    assert (sym.field, sym.problem, sym.fix) == ("X, Y", problem, "give 2-D data with datapoints as columns")
    assert (sim.field, sim.problem) == ("source", problem)
    assert sim.fix == "give X and Y with datapoints as columns (2-D arrays; transpose data stored as rows)"
    # one-dimensional data (an IndexError of X.shape[1] once), and data that pass the check
    assert _refusal(lambda: data_symmetries(X3[0], Y1)).problem == "X (4,) and Y (1, 4) are not d × P and p × P with one P"
    perms, _ = data_symmetries(X3, Y1)
    assert len(perms) >= 1      # the identity at least


# ---------------------------------------------------------------------------------------------------
# values that are no dict: simulate had its own copy of spec.task.checked_values_map, in other words
# ("got str", no sight of the value). The second method: the Derivation's refusal of the same values.
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("values", ["Delta=0.5", [0.5]])
def test_simulate_refuses_values_that_are_no_dict_in_the_derivations_words(values):
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.05))
    ref = _refusal(lambda: tk.Derivation(spec, values=values))
    sim = _refusal(lambda: tk.simulate(spec, values=values, steps=1, seeds=1))
    assert (sim.field, sim.problem, sim.fix) == (ref.field, ref.problem, ref.fix)
    assert sim.field == "values" and repr(values) in sim.problem and "'Delta': 0.5" in sim.fix


# ---------------------------------------------------------------------------------------------------
# race_dt a positive number: race_exhaust and predict_reln each wrote the check; race_exhaust's lacked
# Python's words, and its fix said "e.g. --race-dt 10 (options are keywords here: --race-dt is race_dt=)".
# The second method: predict_reln's refusal (its Python words came with commit 3080a76).
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("race_dt", [float("nan"), 0.0, -1.0])
def test_race_exhaust_refuses_race_dt_in_pythons_words_as_predict_reln_does(race_dt):
    from theorykit.analysis.exhaust import race_exhaust

    pred = _refusal(lambda: tk.predict_reln(tk.xor_margin(0.5), 8, tk.Training(lr=0.05), race_dt=race_dt, progress=False))
    exh = _refusal(lambda: race_exhaust(2, race_dt=race_dt, progress=False))
    assert (exh.field, exh.problem, exh.fix) == (pred.field, pred.problem, pred.fix)
    assert exh.field == "race_dt" and exh.fix == "a positive number, e.g. race_dt=10"
