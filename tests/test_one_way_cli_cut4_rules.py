"""One way to do each thing on the command line (issue 26, cut 4: theorykit/cli).

* ``sweep`` read its spec with a copy of :func:`theorykit.cli.common.spec_from_args` (the limits, then
  ``load_spec`` under them), and checked --steps and --seeds a second time, by ``common.steps_arg`` and
  ``seeds_arg``, after the parser's rule (:class:`theorykit.cli.parser.WholeNumber`) had checked them;
  ``find-gates`` checked --seed again by ``analysis.findgates.check_seed`` after the parser had. Each
  number option is now checked once, by the parser, before the command's module is loaded.
* ``sweep``'s size check was a copy of :func:`theorykit.cli.common.sim_estimate` (the --steps or
  training.steps field chosen again): it is that function, with the members named as its seeds field.
* ``find-gates xor-margin`` read --set by its own copy of :func:`theorykit.cli.common.values_from`
  (``parse_assignment`` alone): ``--set Delta=0.5 --set Delta=0.25`` ran with 0.25, where every other
  command refuses a symbol given twice. The built-in task's spec now reads --set as a spec file's does.
* The error line ``theorykit: error in FIELD: problem (fix: …)`` was made in two places of
  :mod:`theorykit.cli` (``_report`` and ``_failure``), the warning line ``theorykit: warning: …`` in two
  (``main``'s ``showwarning`` and ``rerun``): each is made by one function, ``_report`` and ``warning``.
* Arguments no parser took were answered after a second search of the parser for its sub-commands,
  beside :func:`theorykit.cli.parser.commands`: the one search is that function.
* ``simulate`` named its start by choosing "random" for a ReLU network twice over (``args.init`` is
  already "random" there): the start's name is ``--init-weights`` or ``args.init``, as the tests
  below pin (they pass before and after: a simplification, not a fix).

Every expected message below is written out by hand from the --help texts (docs/cli.md): the bounds
are MAX_SEEDS = 2**31 - 1 = 2147483647 and MAX_SEED = 2**32 - 1 = 4294967295.
"""
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from theorykit.cli import common, main

EX = Path(__file__).resolve().parent.parent / "examples"
XOR = str(EX / "xor_linear.toml")           # one symbol, Delta; training.steps 3000


# ---------------------------------------------------------------------------------------------
# sweep: its spec read as every command reads it; its numbers checked once, by the parser
# ---------------------------------------------------------------------------------------------
def test_sweep_reads_its_spec_by_the_one_spec_from_args():
    from theorykit.cli import sweep

    assert sweep.spec_from_args is common.spec_from_args


@pytest.mark.parametrize("given, steps, seeds", [([], None, 4),                        # --help: default 4
                                                 (["--steps", "7", "--seeds", "3"], 7, 3)])
def test_sweep_passes_the_steps_and_seeds_as_given(tmp_path, monkeypatch, given, steps, seeds):
    from theorykit.cli import sweep

    seen = {}
    monkeypatch.setattr(sweep, "run_sweep", lambda *a, **k: seen.update(k) or {
        "members": 0, "chunks": 0, "chunks_computed": [], "seconds_this_run": 0.0})
    assert main(["sweep", XOR, "--grid", "Delta=0.5", *given, "--no-progress", "--out", str(tmp_path / "s")]) == 0
    assert (seen["steps"], seen["seeds"]) == (steps, seeds)


@pytest.mark.parametrize("argv, line", [
    (["sweep", XOR, "--grid", "Delta=0.5", "--seeds", "0", "--out", "unused"],
     "theorykit: error in --seeds: 0 is out of range (fix: give a whole number from 1 to 2147483647, e.g. --seeds 4)"),
    (["sweep", XOR, "--grid", "Delta=0.5", "--steps", "0", "--out", "unused"],
     "theorykit: error in --steps: 0 is out of range (fix: give a whole number from 1 to 1000000000, e.g. --steps "
     "2000)"),
    (["find-gates", "xor-margin", "--set", "Delta=0.5", "--seed", "4294967296", "--out", "unused.toml"],
     "theorykit: error in --seed: 4294967296 is out of range (fix: give a whole number from 0 to 4294967295, e.g. "
     "--seed 1)"),
    (["find-gates", "xor-margin", "--set", "Delta=0.5", "--seed", "-1", "--out", "unused.toml"],
     "theorykit: error in --seed: -1 is out of range (fix: give a whole number from 0 to 4294967295, e.g. --seed 1)"),
])
def test_the_numbers_no_longer_checked_twice_are_refused_as_before(tmp_path, monkeypatch, capsys, argv, line):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert capsys.readouterr().err == line + "\n"
    assert list(tmp_path.iterdir()) == []           # refused before any work: nothing written


def test_find_gates_checks_its_seed_by_the_parsers_rule_only():
    from theorykit.cli import find_gates

    assert not hasattr(find_gates, "check_seed")


def test_an_imported_runs_steps_reach_the_reader_as_given(monkeypatch):
    from types import SimpleNamespace

    from theorykit.cli import runs

    seen = []
    monkeypatch.setattr(runs, "load_checkpoints", lambda *a, **k: seen.append(k["steps"]))
    for steps in (None, "0,100"):
        runs.run_from_args(SimpleNamespace(data="d.npz", checkpoints="c_*.npz", layers=None, steps=steps,
                                           ignore_bias=False))
    assert seen == [None, "0,100"]


# ---------------------------------------------------------------------------------------------
# sweep: the size check of every simulation, its members named as the seeds
# ---------------------------------------------------------------------------------------------
def test_sweep_estimates_its_size_by_the_one_sim_estimate():
    from theorykit.cli import sweep

    assert sweep.sim_estimate is common.sim_estimate


@pytest.mark.parametrize("given, start", [
    # memory: 8 members (2 grid points × 4 seeds) × (10**6 + 1) loss values × 8 bytes alone is 64 MB, over
    # 30 MB: --steps is named
    (["--seeds", "4", "--steps", "1000000"], "theorykit: error in --steps: simulation needs an estimated "),
    # time: a thousandth of a second is below any run: the members (2 grid points × 4 seeds) are named
    (["--seeds", "4", "--time-limit", "0.001"],
     "theorykit: error in --seeds × --grid (members): simulation needs an estimated "),
])
def test_sweep_size_refusals_name_the_steps_or_the_members(tmp_path, monkeypatch, capsys, given, start):
    from theorykit.cli import sweep

    monkeypatch.setattr(sweep, "run_sweep", lambda *a, **k: pytest.fail("ran"))
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "30e6")
    out = tmp_path / "sw"
    assert main(["sweep", XOR, "--grid", "Delta=0.5,1", *given, "--no-progress", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(start) and err.count("\n") == 1 and not out.exists()


# ---------------------------------------------------------------------------------------------
# find-gates: the built-in task's --set read as a spec file's
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def fg_source(monkeypatch):
    """The spec find-gates would train on, caught before any training (the probe stops the command)."""
    from theorykit.cli import find_gates
    from theorykit.errors import SpecError

    seen = {}

    def probe(source, **kw):
        seen["source"] = source
        raise SpecError("probe", "stop", "")

    monkeypatch.setattr(find_gates, "find_gates", probe)
    return seen


def test_find_gates_xor_margin_refuses_a_symbol_given_twice(tmp_path, capsys, fg_source):
    argv = ["find-gates", "xor-margin", "--set", "Delta=0.5", "--set", "Delta=0.25", "--no-progress",
            "--out", str(tmp_path / "f.toml")]
    assert main(argv) == 2
    assert capsys.readouterr().err == ("theorykit: error in --set Delta: is given twice (0.5 and 0.25) (fix: give "
                                       "each symbol one value)\n")
    assert fg_source == {}


def test_find_gates_xor_margin_trains_on_the_given_delta(tmp_path, capsys, fg_source):
    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", "--no-progress",
                 "--out", str(tmp_path / "f.toml")]) == 2
    assert "error in probe: stop" in capsys.readouterr().err
    src = fg_source["source"]
    # by hand (spec.task.xor_margin's docstring): datapoints (1, 1, Δ), (-1, -1, Δ), (1, -1, -Δ), (-1, 1, -Δ)
    # with labels y = x1·x2 = 1, 1, -1, -1; Δ = 1/2
    want_X = np.array([[1, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])
    X, Y = src.task.numeric({})
    np.testing.assert_array_equal(X, want_X)
    np.testing.assert_array_equal(Y, [[1, 1, -1, -1]])
    assert not src.task.free_symbols and src.name == "xor-margin"
    assert [(p.name, p.hidden) for p in src.pathways] == [("all", 128)]
    assert (src.training.lr, src.training.loss, src.training.init_std, src.training.steps) == (0.05, "mean", 0.01, 2000)


@pytest.mark.parametrize("argv, line", [
    (["xor-margin"], "theorykit: error in --set: xor-margin needs a value for Delta (fix: add --set Delta=0.5)"),
    (["contexts", "--set", "Delta=0.5"],
     "theorykit: error in --set: the contexts task has no symbols (fix: leave out --set)"),
    ([XOR], "theorykit: error in --set: no value for ['Delta'] (fix: pass --set Delta=VALUE)"),
    (["xor-margin", "--set", "Delta=-1"], None),        # Delta is nonnegative: refused naming --set Delta
])
def test_find_gates_set_refusals_are_kept(tmp_path, capsys, fg_source, argv, line):
    assert main(["find-gates", *argv, "--no-progress", "--out", str(tmp_path / "f.toml")]) == 2
    err = capsys.readouterr().err
    assert err == line + "\n" if line else err.startswith("theorykit: error in --set Delta: ")
    assert fg_source == {}


# ---------------------------------------------------------------------------------------------
# the error line and the warning line, each made in one place
# ---------------------------------------------------------------------------------------------
def test_the_error_and_warning_lines_are_each_made_once():
    from theorykit import cli
    from theorykit.cli import rerun

    assert rerun.warning is cli.warning
    code = "".join(f.read_text() for f in sorted(Path(cli.__file__).parent.glob("*.py")))
    # a string that begins the line (docstrings quote it between ``, not as a string of the code)
    assert len(re.findall(r'f?"theorykit: error in ', code)) == 1
    assert len(re.findall(r'f?"theorykit: warning: ', code)) == 1


def test_the_lines_of_each_kind_of_error_as_written_by_hand(capsys):
    from theorykit.cli import _failure
    from theorykit.errors import DerivationError, DivergenceError, SpecError

    cases = [
        (SpecError("--x", "bad\nthing", "fix it"), "theorykit: error in --x: bad thing (fix: fix it)"),
        (DivergenceError("the loss became infinite at step 12"),
         "theorykit: error in training.lr: the loss became infinite at step 12 (fix: lower training.lr (or rescale "
         "the data))"),
        (DerivationError("a degenerate SVD", field="pathways[1]"),
         "theorykit: error in pathways[1]: cannot derive: a degenerate SVD"),
        (DerivationError("a degenerate SVD"), "theorykit: error in data: cannot derive: a degenerate SVD"),
        (OSError(13, "Permission denied", "out.json"), "theorykit: error in out.json: Permission denied"),
        (OSError("no name"), "theorykit: error in file: no name"),
    ]
    for exc, line in cases:
        assert _failure(exc, False) == 2
        assert capsys.readouterr().err == line + "\n"


def test_a_warning_is_one_line_of_its_own(capsys, monkeypatch):
    from theorykit import cli
    from theorykit.cli import check

    cli.warning("two\nlines")
    assert capsys.readouterr().err == "theorykit: warning: two lines\n"
    monkeypatch.setattr(check, "run", lambda args: warnings.warn("from\na library") or 0)
    assert main(["check", XOR]) == 0
    assert capsys.readouterr().err == "theorykit: warning: from a library\n"


# ---------------------------------------------------------------------------------------------
# unrecognized arguments: the sub-commands found by parser.commands, the one search
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, line", [
    # docs/cli.md: --init is an option of simulate and sweep only; --jsn is nearest to derive's --json
    (["check", XOR, "--init", "random"],
     "theorykit check: error: unrecognized arguments: --init random (--init is an option of theorykit simulate and "
     "sweep, not of theorykit check; see theorykit check --help)"),
    (["derive", XOR, "--jsn", "x"], "theorykit derive: error: unrecognized arguments: --jsn x (did you mean: --jsn -> "
                                    "--json?)"),
    (["--jsn"], "theorykit: error: unrecognized arguments: --jsn (see theorykit --help)"),
])
def test_unrecognized_arguments_are_answered_by_the_commands_parser(monkeypatch, capsys, argv, line):
    from theorykit import cli
    from theorykit.cli import parser

    seen = []
    monkeypatch.setattr(cli, "commands", lambda p: seen.append(p) or parser.commands(p))
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and len(seen) == 1
    assert capsys.readouterr().err.splitlines()[-1] == line


# ---------------------------------------------------------------------------------------------
# simulate: the start's name in the result and in the --compare note
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("given, init", [([], "aligned"), (["--init", "random"], "random"),
                                         (["--network", "relu"], "random"),
                                         (["--network", "relu", "--init", "random"], "random")])
def test_simulate_names_its_start(tmp_path, capsys, given, init):
    # docs/cli.md, simulate --init: aligned is the GDLN's default, random the only start of --network relu
    out = tmp_path / "s.json"
    assert main(["simulate", XOR, "--set", "Delta=0.5", "--seeds", "1", "--steps", "2", "--times", "0,2", *given,
                 "--compare", "--no-progress", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["init"] == init
    notes = [ln for ln in capsys.readouterr().err.splitlines() if "this run starts from" in ln]
    if init == "aligned":
        assert notes == []
    else:
        assert len(notes) == 1 and "this run starts from random weights, which follow it" in notes[0]


def test_simulate_names_a_start_from_a_file_by_its_path(tmp_path, capsys):
    # xor_linear.toml: two pathways of 64 units on 3 inputs and 1 output (docs/specs.md), keyed by edge
    from theorykit.net.layout import Net
    from theorykit.spec.files import load_spec

    net = Net.from_graph(load_spec(XOR))
    rng = np.random.default_rng(0)
    w = tmp_path / "w.npz"
    np.savez(w, **{k: 1e-3 * rng.standard_normal(shape) for k, shape in net.shapes().items()})
    out = tmp_path / "s.json"
    assert main(["simulate", XOR, "--set", "Delta=0.5", "--steps", "2", "--times", "0,2", "--init-weights", str(w),
                 "--compare", "--no-progress", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["init"] == str(w)
    assert f"this run starts from {w} weights" in capsys.readouterr().err
