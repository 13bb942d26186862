"""Bad input names its field and says how to fix it: the learning rate's one rule, and malformed inputs a
user might write, fed to the command line.

1. The learning rate. Before, its range was stated five ways: a spec's ``training.lr`` in [1e-12, 1e3]
   ("a positive number, e.g. 0.05, between 1e-12 and 1000"), ``find-gates --lr`` the same range in other
   words, ``compare --lr`` and the checkpoints' ``run_settings`` (0, 1e3] (so ``--lr 1e-13`` ran a
   comparison that ``training.lr = 1e-13`` refuses), a sweep's ``--grid lr=`` [1e-12, 1e3] in a third
   wording ("learning rates between …"), and a checkpoint's metadata "(a positive number up to 1e3)". Now
   one rule (theorykit.spec.ranges, theorykit.spec.fields.learning_rate), one fix everywhere:
   ``give a number from 1e-12 to 1000, e.g. <how it is written there>``. The range is docs/specs.md's
   (``training.lr``: 1e-12 … 1e3), written out here by hand.
2. Malformed inputs: each case, fed to the command that reads it, exits 2 with one line on stderr,
   ``theorykit: error in FIELD: problem (fix: …)``, names the field (the TOML path where it is one),
   prints nothing on stdout and leaves no output file.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from theorykit.analysis.checkpoints import run_settings
from theorykit.analysis.safetensors_io import check_metadata
from theorykit.analysis.sweep import plan_sweep
from theorykit.cli import main
from theorykit.cli.parser import build_parser, commands
from theorykit.errors import SpecError
from theorykit.spec import ranges
from theorykit.spec.files import TRAINING_RANGES, load_spec

#: the range of every learning rate, as docs/specs.md states it for training.lr (1e-12 … 1e3)
LR_FIX = "give a number from 1e-12 to 1000, e.g."

SPEC = '''name = "t"
[data]
inputs = [[1, -1, 1, -1], [1, -1, -1, 1], [1, 1, -1, -1]]
targets = [[1, 1, -1, -1]]
[[pathways]]
name = "a"
active = [1, 1, 0, 0]
hidden = 4
[[pathways]]
name = "b"
active = [0, 0, 1, 1]
hidden = 4
[training]
lr = 0.05
steps = 10
'''


def _one_error_line(capsys, argv, tmp_path):
    """Run ``argv`` in ``tmp_path``: exit 2, nothing on stdout, one error line on stderr (returned)."""
    before = set(tmp_path.rglob("*"))
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "", out
    assert err.count("\n") == 1 and err.startswith("theorykit: error in "), err
    assert "Traceback" not in err
    assert set(tmp_path.rglob("*")) == before, "an output was left"
    return err.strip()


def _npz_run(tmp_path):
    np.savez(tmp_path / "data.npz", X=np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [1, 1, -1, -1]]),
             Y=np.array([[1.0, 1, -1, -1]]))
    (tmp_path / "ck").mkdir()
    rng = np.random.default_rng(0)
    for s in (0, 10):
        np.savez(tmp_path / "ck" / f"step_{s}.npz", W1=0.1 * rng.standard_normal((8, 3)),
                 W2=0.1 * rng.standard_normal((1, 8)))


# ------------------------------------------------------------------------------------------------
# 1. the learning rate: one rule, one message, at every entry point
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, problem", [
    ("5000", "5000 is out of range [1e-12, 1000]"),
    ("0", "0 is out of range [1e-12, 1000]"),
    ("1e-13", "1e-13 is out of range [1e-12, 1000]"),
    ('"0.05"', "needs a number, got a string '0.05'"),
    ("nan", "nan is not a finite number"),
])
def test_training_lr_in_a_spec_file(tmp_path, monkeypatch, capsys, value, problem):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(SPEC.replace("lr = 0.05", f"lr = {value}"))
    for argv in (["check", "s.toml"], ["derive", "s.toml", "--json", "o.json"],
                 ["simulate", "s.toml", "--json", "o.json"]):
        line = _one_error_line(capsys, argv, tmp_path)
        assert line == f"theorykit: error in training.lr: {problem} (fix: {LR_FIX} lr = 0.05)"


@pytest.mark.parametrize("value, problem", [
    ("5000", "5000 is out of range [1e-12, 1000]"),
    ("1e-13", "1e-13 is out of range [1e-12, 1000]"),     # compare took it (its range was (0, 1e3])
    ("0", "0 is out of range [1e-12, 1000]"),
    ("fast", "'fast' is not a number"),
])
def test_every_lr_option(tmp_path, monkeypatch, capsys, value, problem):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(SPEC)
    _npz_run(tmp_path)
    want = f"theorykit: error in --lr: {problem} (fix: {LR_FIX} --lr 0.05)"
    for argv in (["find-gates", "contexts", "--out", "f.toml"],
                 ["find-gates", "--checkpoints", "ck/*.npz", "--data", "data.npz", "--out", "f.toml"],
                 ["compare", "s.toml", "--checkpoints", "ck/*.npz", "--data", "data.npz", "--out", "cmp"]):
        assert _one_error_line(capsys, [*argv, "--lr", value, "--no-progress"], tmp_path) == want


@pytest.mark.parametrize("grid, problem", [
    ("lr=5000", "5000 is out of range [1e-12, 1000]"),
    ("lr=0.01,0", "0 is out of range [1e-12, 1000]"),
    ("lr=1e-13:0.1:3", "1e-13 is out of range [1e-12, 1000]"),
])
def test_a_sweeps_learning_rates(tmp_path, monkeypatch, capsys, grid, problem):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(SPEC)
    line = _one_error_line(capsys, ["sweep", "s.toml", "--grid", grid, "--out", "sw", "--no-progress"], tmp_path)
    assert line == f"theorykit: error in --grid lr: {problem} (fix: {LR_FIX} --grid lr=0.01,0.05)"


def test_a_sweep_planned_in_python_meets_the_same_rule(tmp_path):
    (tmp_path / "s.toml").write_text(SPEC)
    spec = load_spec(tmp_path / "s.toml")
    for lr, problem in ((0.0, "0 is out of range [1e-12, 1000]"), (2e3, "2000 is out of range [1e-12, 1000]")):
        with pytest.raises(SpecError) as e:
            plan_sweep(spec, {"lr": [0.05, lr]}, seeds=1)
        assert (e.value.field, e.value.problem, e.value.fix) == ("--grid lr", problem, f"{LR_FIX} --grid lr=0.01,0.05")


@pytest.mark.parametrize("lr, problem", [(1e-13, "1e-13 is out of range [1e-12, 1000]"),
                                         (1e4, "10000 is out of range [1e-12, 1000]")])
def test_the_runs_learning_rate(lr, problem):
    """find-gates --checkpoints and compare read a run's lr through run_settings: it took 1e-13."""

    with pytest.raises(SpecError) as e:
        run_settings(SimpleNamespace(meta={}, files=["ck/step_0.npz"]), lr=lr, loss="mean")
    assert (e.value.field, e.value.problem, e.value.fix) == ("--lr", problem, f"{LR_FIX} --lr 0.05")


@pytest.mark.parametrize("text, problem", [("5000", "5000 is out of range [1e-12, 1000]"),
                                           ("1e-13", "1e-13 is out of range [1e-12, 1000]"),
                                           ("fast", "needs a number, got a string 'fast'")])
def test_a_checkpoints_metadata_lr(text, problem):

    with pytest.raises(SpecError) as e:
        check_metadata({"lr": text}, "ck/step_0.safetensors")
    assert e.value.field == "--checkpoints ck/step_0.safetensors: metadata 'lr'"
    assert e.value.problem == problem
    assert e.value.fix.startswith(f"{LR_FIX} metadata lr = \"0.05\"")


def test_the_range_is_stated_once():
    """The help of every --lr states the range the check applies, from the one place."""
    assert (ranges.LR_MIN, ranges.LR_MAX) == (1e-12, 1e3)
    assert TRAINING_RANGES["lr"] == (ranges.LR_MIN, ranges.LR_MAX)
    for name in ("find-gates", "compare"):
        action = commands(build_parser())[name]._option_string_actions["--lr"]
        assert "a number from 1e-12 to 1000" in action.help
        assert action.type.what == "a number from 1e-12 to 1000"
