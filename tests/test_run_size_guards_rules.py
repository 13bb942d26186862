"""find-gates and predict refuse sizes they cannot run, by name and with an estimate, before anything is
allocated (the audit's command lines ran until killed, or ended in an internal MemoryError).

Every refusal here is reached with the trainer (and, for predict, the prediction or the random draw) replaced
by a function that fails the test: the check comes first. The expected figures are derived by hand in the
comments (bytes = count × 8 for float64, × 1 for booleans), as lower bounds of what the estimate must count,
or exactly where the estimate is a single product (the sampled enumeration).

xor-margin (theorykit.spec.task.xor_margin, docs/theory.md#xor): d = 3 inputs (two signs and the constant
Δ row), p = 1 output, P = 4 datapoints.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import theorykit as tk
from theorykit.analysis import findgates, patterns, predict_validate
from theorykit.cli import main
from theorykit.cli import predict as cli_predict
from theorykit.sim import engine
from theorykit.spec.limits import Limits

XOR_DATA = "examples/predict/xor_data.toml"
UNITS = {"B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15, "EB": 1e18}


def _estimated_bytes(text: str) -> float:
    m = re.search(r"needs an estimated ([0-9.e+]+) ([KMGTPE]?B) of memory", text)
    assert m, text
    return float(m.group(1)) * UNITS[m.group(2)]


@pytest.fixture
def no_training(monkeypatch):
    """The trainer's entries fail the test if reached: a refusal must come before any allocation."""
    def boom(*a, **k):
        raise AssertionError("the trainer was reached: the size check did not refuse first")
    monkeypatch.setattr(findgates, "train_relu", boom)
    monkeypatch.setattr(engine, "train_net", boom)
    monkeypatch.setattr(engine, "train", boom)


def _err(capsys, field):
    err = capsys.readouterr().err
    assert f"error in {field}:" in err, err
    return err


# ---------------------------------------------------------------------------------------------------
# find-gates: the audit's three command lines
# ---------------------------------------------------------------------------------------------------
# Lower bounds, by hand (xor-margin, default --seeds 4, elbow over --max-K 8, so 4 ReLU networks and
# 4 × 8 = 32 GDLNs of the same width; each network's weights are (d + p) × H = 4H float64):
# --hidden 1e8: the weights alone, 36 networks × 4 × 1e8 × 8 B = 1.152e11 B;
# --seeds 2**31 − 1: 9 × (2**31 − 1) networks × 4 × 128 × 8 B ≥ 7.9e13 B;
# --steps 1e9: the loss histories alone, 36 networks × (1e9 + 1) × 8 B = 2.88e11 B.
@pytest.mark.parametrize("option,value,lower", [("--hidden", "100000000", 36 * 4 * 1e8 * 8),
                                                ("--seeds", str(2 ** 31 - 1), 9 * (2 ** 31 - 1) * 4 * 128 * 8),
                                                ("--steps", "1000000000", 36 * (1e9 + 1) * 8)])
def test_find_gates_refuses_the_audits_sizes_by_name_before_training(tmp_path, capsys, no_training, option, value,
                                                                     lower):
    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", option, value, "--out",
                 str(tmp_path / "f.toml"), "--no-progress"]) == 2
    err = _err(capsys, option)
    assert "memory" in err and "--force does not lift the memory limit" in err
    assert f"lower {option} from {value} to at most" in err
    assert _estimated_bytes(err) >= lower
    assert not (tmp_path / "f.toml").exists()


def test_find_gates_seeds_bound_is_linear_in_the_memory_limit(tmp_path, capsys, no_training, monkeypatch):
    """Every byte of the estimate grows linearly with the seeds (each network's weights, activations, loss
    history and records), so the fix gives a bound, at least 1, that a network's least bytes keep under 1e9."""
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1e9")
    S = 2 ** 31 - 1
    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", "--seeds", str(S), "--K", "2", "--out",
                 str(tmp_path / "f.toml")]) == 2
    err = _err(capsys, "--seeds")
    bound = int(re.search(r"to at most (\d+)", err).group(1))
    # with K given there is no elbow: 1 network of 128 units is at least its 4 × 128 weights and its
    # 2001-step loss history (device and host), 8 B each: (512 + 2 × 2001) × 8 = 36 112 B
    assert 1 <= bound <= 1e9 / 36112


def test_find_gates_time_limit_and_force(tmp_path, capsys, no_training):
    """Over --time-limit (any training takes more than a millisecond: the estimate's start-up alone is
    1.5 s), refused naming a size, with --force in the fix; --force lets the same command start (it reaches
    the trainer, which the fixture makes fail)."""
    args = ["find-gates", "xor-margin", "--set", "Delta=0.5", "--K", "2", "--seeds", "1", "--steps", "200",
            "--out", str(tmp_path / "f.toml"), "--time-limit", "0.001", "--no-progress"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "over the time limit" in err and "--force" in err
    assert main(args + ["--force"]) == 70       # the internal error the fixture's trainer raises
    assert "trainer was reached" in capsys.readouterr().err


def test_find_gates_small_run_passes_the_check(tmp_path):
    """A normal small run is not refused and writes its spec."""
    out = tmp_path / "f.toml"
    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", "--K", "4", "--seeds", "1", "--steps", "300",
                 "--out", str(out), "--no-progress"]) == 0
    assert out.exists()


@pytest.mark.parametrize("task,hidden,steps", [("xor", 128, 2000), ("contexts", 700, 8001)])
def test_the_built_in_defaults_pass_on_a_small_machine(task, hidden, steps):
    """find-gates' built-in defaults (--help: contexts 700 units, 8001 steps; xor-margin 128, 2000), 4 seeds and
    the elbow over K = 1…8, pass a 1 GB memory limit and the default hour (contexts: 4 × 24 × 700 snapshot booleans
    per checkpoint, 82 checkpoints, is 5.5 MB; its weights, 36 × 71 × 700 × 8 B, 14 MB)."""
    t = tk.xor_margin(0.5) if task == "xor" else tk.contexts(8, 3, blocks=["hierarchy", "ring", "cross"])
    est = findgates.training_estimate(t, hidden=hidden, seeds=4, steps=steps, elbow=8)
    findgates.check_training_size(est, Limits(max_bytes=1e9, max_seconds=3600))


# ---------------------------------------------------------------------------------------------------
# find_gates from Python: the keywords are named
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(hidden=10 ** 8), dict(seeds=2 ** 31 - 1), dict(steps=10 ** 9)])
def test_find_gates_python_names_the_keyword(no_training, kw):
    (name, value), = kw.items()
    with pytest.raises(tk.SpecError) as e:
        tk.find_gates(tk.xor_margin(0.5), **kw)
    assert e.value.field == name
    assert f"lower {name} from {value} to at most" in e.value.fix and "limits=" in e.value.fix


def test_find_gates_python_limits_force_lifts_the_time_limit_only(no_training):
    with pytest.raises(tk.SpecError, match="over the time limit") as e:
        tk.find_gates(tk.xor_margin(0.5), K=2, seeds=1, steps=200, limits=Limits(max_seconds=1e-3))
    assert "Limits(force=True)" in e.value.fix
    with pytest.raises(AssertionError, match="trainer was reached"):
        tk.find_gates(tk.xor_margin(0.5), K=2, seeds=1, steps=200, limits=Limits(max_seconds=1e-3, force=True))
    with pytest.raises(tk.SpecError, match="memory"):
        tk.find_gates(tk.xor_margin(0.5), K=2, seeds=1, steps=200, limits=Limits(max_bytes=10, force=True))


# ---------------------------------------------------------------------------------------------------
# predict --samples: the sampled enumeration's arrays
# ---------------------------------------------------------------------------------------------------
@pytest.fixture
def no_draw(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the samples were drawn: the size check did not refuse first")
    monkeypatch.setattr(np.random, "default_rng", boom)


def test_predict_samples_refused_by_name_with_the_exact_estimate(tmp_path, capsys, no_draw, monkeypatch):
    """xor_data.toml: d = 3, P = 4. Per sample: W's row 3 × 8 B, W·X's row 4 × 8 B, the pattern row and its
    copy 2 × 4 × 1 B = 64 B; 2e9 samples hold 1.28e11 B = 128 GB. Under a limit of 1e9 B the most samples
    are 1e9 / 64 = 15 625 000."""
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1e9")
    assert main(["predict", XOR_DATA, "--set", "Delta=0.5", "--hidden", "8", "--out", str(tmp_path / "p.toml"),
                 "--enumerate", "sample", "--samples", "2000000000", "--no-progress"]) == 2
    err = _err(capsys, "--samples")
    assert "128 GB of memory" in err
    assert "lower --samples from 2000000000 to at most 15625000" in err
    assert patterns.sample_bytes(2 * 10 ** 9, 3, 4) == 2e9 * 64


def test_predict_reln_names_samples(no_draw, monkeypatch):
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1e9")
    with pytest.raises(tk.SpecError) as e:
        tk.predict_reln(tk.xor_margin(0.5), 8, tk.Training(lr=0.05, steps=2000), enumerate_method="sample",
                        samples=2 * 10 ** 9, progress=False)
    assert e.value.field == "samples" and "128 GB" in str(e.value)


def test_the_default_samples_pass():
    """The default 20 000 samples, even on data far larger than the examples' (d = P = 1000): 20 000 ×
    (8 × 1000 + 8 × 1000 + 2 × 1000) B = 3.6e8 B, under a 1 GB limit."""
    assert patterns.sample_bytes(20000, 1000, 1000) == 3.6e8


# ---------------------------------------------------------------------------------------------------
# predict --validate --seeds: the validation's trainings, by find-gates' estimate
# ---------------------------------------------------------------------------------------------------
def test_predict_validate_seeds_refused_before_predicting(tmp_path, capsys, no_training, monkeypatch):
    """2**31 − 1 ReLU networks of 8 units: weights (3 + 1) × 8 × 8 B = 256 B each, and the 2001-step loss
    history on device and host, 2 × 2001 × 8 B: at least 2**31 × 32 264 B ≈ 6.9e13 B."""
    def no_prediction(*a, **k):
        raise AssertionError("predicted before the validation's size was checked")
    monkeypatch.setattr(cli_predict, "predict_reln", no_prediction)
    assert main(["predict", XOR_DATA, "--set", "Delta=0.5", "--hidden", "8", "--out", str(tmp_path / "p.toml"),
                 "--validate", "--seeds", str(2 ** 31 - 1), "--no-progress"]) == 2
    err = _err(capsys, "--seeds")
    assert "--validate" in err and "memory" in err and f"lower --seeds from {2 ** 31 - 1} to at most" in err
    assert "--force" not in err         # predict has none
    assert _estimated_bytes(err) >= (2 ** 31 - 1) * (256 + 2 * 2001 * 8)


def test_validate_prediction_names_seeds(no_training):
    pred = tk.predict_reln(tk.xor_margin(0.5), 8, tk.Training(lr=0.05, steps=2000), progress=False)
    with pytest.raises(tk.SpecError) as e:
        predict_validate.validate_prediction(pred, seeds=2 ** 31 - 1)
    assert e.value.field == "seeds" and "memory" in e.value.problem


def test_predict_validate_default_seeds_pass():
    """--validate's default 8 seeds of the examples' widths (at most 128 units here) pass a 1 GB limit."""
    t = tk.xor_margin(0.5)
    findgates.check_training_size(predict_validate.validation_estimate(t, 128, 8, 2000), Limits(max_bytes=1e9))
