"""Command-line errors name the option or file the user typed, not a spec field or keyword they never wrote.

Each case is in range for the option's own check and fails a later internal one: the paired start of
an imported run (Training's a0 and init_std, the race's a0), the span of its steps (Training's and the
trainer's step bound), race-exhaust's recording count (SaveAt's), a divergence at a given --lr. Before,
these said ``training.a0``, ``training.init_std``, ``a0``, ``training.steps``, ``steps``,
``save.every`` (with a ``SaveAt(every=…)`` fix) and ``training.lr``. Golden numbers are derived by hand
in the comments.
"""
from __future__ import annotations

import numpy as np
import pytest

safetensors_numpy = pytest.importorskip("safetensors.numpy")
pytest.importorskip("sklearn")

from theorykit.analysis.exhaust import race_exhaust  # noqa: E402
from theorykit.cli import main  # noqa: E402
from theorykit.errors import SpecError  # noqa: E402

# XoR with margin 0.5: 3 inputs × 4 datapoints, 1 output
X = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])
Y = np.array([[1.0, 1, -1, -1]])
# a later checkpoint of 4 hidden units: any finite weights
LATER = {"W1": 0.1 * np.array([[1.0, 2, -1], [-1, 1, 2], [2, -1, 1], [1, 1, -2]]), "W2": 0.1 * np.array([[1.0, -2, 1, 2]])}
# ±1 signs whose mean is 0 (row sums 1, -1, 1, -1): 20 * SIGNS has std exactly 20
SIGNS = np.array([[1.0, -1, 1], [-1, 1, -1], [1, 1, -1], [-1, -1, 1]])
ALT = np.array([[1.0, -1, 1, -1]])          # mean 0: c * ALT has std exactly c


def _run(tmp_path, first, steps=(0, 100), meta=None):
    """Two checkpoints, ``first`` at steps[0] and LATER at steps[1], with the data; the glob and data path."""
    np.savez(tmp_path / "data.npz", X=X, Y=Y)
    for s, arrays in zip(steps, (first, LATER)):
        safetensors_numpy.save_file({k: np.ascontiguousarray(v, dtype=np.float64) for k, v in arrays.items()},
                                    str(tmp_path / f"step_{s}.safetensors"), metadata=meta or {"lr": "0.1", "loss": "mean"})
    return str(tmp_path / "step_*.safetensors"), str(tmp_path / "data.npz")


def _err(capsys, argv):
    """The one stderr line of a refused command (exit 2), and no traceback."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.startswith("theorykit: error")]
    assert len(lines) == 1, err
    return lines[0]


LOW_FIX = ("give checkpoints of a run started from small random weights, not (near) zeros (from all-zero weights "
           "gradient descent never moves), or leave this checkpoint out of --checkpoints: the run then starts at the next")


def test_find_gates_zero_start_names_the_checkpoint_file_and_array(tmp_path, capsys):
    """All-zero starting weights: a0 = ¼(σ₁² n₁ + σ₂² n₂) = ¼(0·4 + 0·4) = 0, under 1e-12. Was
    "error in training.a0: 0 is out of range [1e-12, 100] (fix: … e.g. a0 = 0.001)"."""
    ck, data = _run(tmp_path, {"W1": np.zeros((4, 3)), "W2": np.zeros((1, 4))})
    line = _err(capsys, ["find-gates", "--checkpoints", ck, "--data", data, "--K", "1", "--no-progress",
                         "--out", str(tmp_path / "f.toml")])
    assert line == (f"theorykit: error in --checkpoints {tmp_path / 'step_0.safetensors'}: key 'W1': the weights of "
                    "this first checkpoint (step 0) have stds W1 = 0, W2 = 0, so the a0 of the GDLN started from them "
                    "(the a0 rule of those stds) is out of range: 0 is out of range [1e-12, 100] "
                    f"(fix: {LOW_FIX})")
    assert not (tmp_path / "f.toml").exists()


def test_find_gates_zero_first_layer_names_it_for_the_init_std(tmp_path, capsys):
    """W1 all zero, W2 of std 0.1 (0.1 × ALT): a0 = ¼(0 + 0.01·4) = 0.01 is in range; init_std, the
    geometric mean of the stds with 0 floored at 1e-300, is √(1e-300 · 0.1) = 10^-150.5. Was "error in
    training.init_std: … (fix: … e.g. init_std = 0.01)"."""
    ck, data = _run(tmp_path, {"W1": np.zeros((4, 3)), "W2": 0.1 * ALT})
    line = _err(capsys, ["find-gates", "--checkpoints", ck, "--data", data, "--K", "1", "--no-progress",
                         "--out", str(tmp_path / "f.toml")])
    assert line == (f"theorykit: error in --checkpoints {tmp_path / 'step_0.safetensors'}: key 'W1': the weights of "
                    "this first checkpoint (step 0) have stds W1 = 0, W2 = 0.1, so the init_std of the GDLN started "
                    "from them (the geometric mean of those stds) is out of range: "
                    f"{10 ** -150.5:g} is out of range [1e-12, 100] (fix: {LOW_FIX})")


def test_find_gates_large_start_names_the_widest_spread_array(tmp_path, capsys):
    """W1 = 20 · SIGNS and W2 = 30 · ALT (stds exactly 20 and 30): a0 = ¼(20²·4 + 30²·4) = 1300, over 100;
    the array named is the one of the larger std, W2."""
    ck, data = _run(tmp_path, {"W1": 20 * SIGNS, "W2": 30 * ALT})
    line = _err(capsys, ["find-gates", "--checkpoints", ck, "--data", data, "--K", "1", "--no-progress",
                         "--out", str(tmp_path / "f.toml")])
    assert line == (f"theorykit: error in --checkpoints {tmp_path / 'step_0.safetensors'}: key 'W2': the weights of "
                    "this first checkpoint (step 0) have stds W1 = 20, W2 = 30, so the a0 of the GDLN started from them "
                    "(the a0 rule of those stds) is out of range: 1300 is out of range [1e-12, 100] (fix: the theory "
                    "is of learning from small weights: give checkpoints of a run started from smaller random weights "
                    "(docs/theory.md#a0-rule))")


def test_compare_zero_start_names_the_checkpoint_not_the_race_keyword(tmp_path, capsys):
    """compare's race from the run's start: a0 = 0 (all-zero weights, as above). Was "error in a0: 0 is
    out of range (0, inf) (fix: a positive strength, or one per pathway)", a keyword of the Python API."""
    good = tmp_path / "good"
    good.mkdir()
    ck, data = _run(good, {"W1": 0.1 * SIGNS, "W2": 0.1 * ALT})
    found = tmp_path / "found.toml"
    assert main(["find-gates", "--checkpoints", ck, "--data", data, "--K", "1", "--no-progress", "--out", str(found)]) == 0
    zero = tmp_path / "zero"
    zero.mkdir()
    ck, data = _run(zero, {"W1": np.zeros((4, 3)), "W2": np.zeros((1, 4))})
    capsys.readouterr()
    line = _err(capsys, ["compare", str(found), "--checkpoints", ck, "--data", data, "--no-progress",
                         "--out", str(tmp_path / "cmp")])
    assert line == (f"theorykit: error in --checkpoints {zero / 'step_0.safetensors'}: key 'W1': the weights of "
                    "this first checkpoint (step 0) have stds W1 = 0, W2 = 0, so the a0 of the GDLN started from them "
                    "(the a0 rule of those stds) is out of range: 0 is out of range (0, inf) "
                    f"(fix: {LOW_FIX})")


SPAN = ("2000000000 steps from the first checkpoint (step 0) to the last (step 2000000000): a GDLN is trained for "
        "at most 1e9 steps")


@pytest.mark.parametrize("command", ["find-gates", "compare"])
def test_a_span_over_the_step_bound_names_steps_as_given(tmp_path, capsys, command):
    """--steps 0,2000000000 (each step in range for --steps' own check): a span of 2e9 over the 1e9 bound.
    Was "error in training.steps: … (fix: … e.g. steps = 2000)" (find-gates), "error in steps: …" (compare)."""
    ck, data = _run(tmp_path, {"W1": 0.1 * SIGNS, "W2": 0.1 * ALT})
    spec = []
    if command == "compare":
        spec = [str(tmp_path / "found.toml")]
        assert main(["find-gates", "--checkpoints", ck, "--data", data, "--K", "1", "--no-progress", "--out", spec[0]]) == 0
        capsys.readouterr()
    line = _err(capsys, [command, *spec, "--checkpoints", ck, "--data", data, "--steps", "0,2000000000", "--no-progress",
                         "--out", str(tmp_path / "out")])
    assert line == (f"theorykit: error in --steps: {SPAN} (fix: check --steps: one step per file, in the order of the "
                    "sorted file names, at most 1e9 apart from first to last)")


def test_a_span_from_the_file_names_names_the_last_checkpoint(tmp_path, capsys):
    """Steps read from the names step_0 and step_2000000000: the file of the last is named."""
    ck, data = _run(tmp_path, {"W1": 0.1 * SIGNS, "W2": 0.1 * ALT}, steps=(0, 2000000000))
    line = _err(capsys, ["find-gates", "--checkpoints", ck, "--data", data, "--K", "1", "--no-progress",
                         "--out", str(tmp_path / "f.toml")])
    assert line == (f"theorykit: error in --checkpoints {tmp_path / 'step_2000000000.safetensors'}: its step number, "
                    f"the last number in its name, is {SPAN} (fix: check the step numbers in the file names, or give "
                    "the checkpoints' steps with --steps 0,100,…)")


# race-exhaust --k 2: contexts(8, 2) has P = 16 datapoints, the summed loss at η = 0.001, so
# τ = 1/(P η) = 62.5; --race-dt 10 gives an RK4 step of 6.25, the loss recorded every ⌊6.25⌋ = 6 steps;
# 1e8 steps are 1e8/6 = 1.67e7 recording times, over SaveAt's 1e7 (the most steps: 6 · 1e7 = 60000000), and
# 1e8/6.25 = 1.6e7 RK4 steps, over the flow's 2e6 (at most 2e6 · 6.25 = 12500000), and the flow's budget of
# 2e6 steps of τ/(40 s_max), s_max = 15/(8√2) = 1.3258 (the common pathway's Σyx = YXᵀ/16), a step of
# 62.5 · 8√2/600 = 1.1785, is 1e8/1.1785 = 8.49e7 of them (at most ⌊2e6 · 1.1785113⌋ = 2357022): the fix
# gives the least of the three (was 60000000, which the flow's budget refused in turn; tests/
# test_fix_leads_to_a_run_rules.py)
RACE = ("100000000 steps are more than the race can take: the loss, recorded every 6 (τ/race-dt = 62.5/10, rounded "
        "down, at least 1), is 1.67e+07 recording times, more than 10,000,000 (at most 60000000 steps); RK4 steps of "
        "τ/race-dt = 6.25 are 1.6e+07 integration steps, more than the flow's budget of 2,000,000 (at most 12500000 "
        "steps); steps of τ/(40·s_max) = 1.18 (s_max = 1.326, the pathways' largest singular value, at least 1; "
        "--race-dt does not change this step) are 8.49e+07 integration steps, more than the flow's budget of "
        "2,000,000 (at most 2357022 steps)")
RACE_FIX = "lower --steps to at most 2357022"


def test_race_exhaust_recording_count_names_steps(tmp_path, capsys):
    """Was "error in save.every: every=6 up to 1e+08 is 1.67e+07 recording times, more than 10,000,000
    (fix: a larger every, e.g. SaveAt(every=100000) for about 1000 points)": a Python API the user never wrote."""
    line = _err(capsys, ["race-exhaust", "--k", "2", "--steps", "100000000", "--no-progress", "--out", str(tmp_path)])
    assert line == f"theorykit: error in --steps: {RACE} (fix: {RACE_FIX})"


def test_race_exhaust_recording_count_names_the_keyword_from_python():
    """From Python the same error names the keyword steps=, as every race_exhaust error does."""
    with pytest.raises(SpecError) as err:
        race_exhaust(2, steps=100000000, progress=False)
    assert err.value.field == "steps" and err.value.problem == RACE
    assert err.value.fix == f"{RACE_FIX} (options are keywords here: --steps is steps=)"


def test_a_divergence_at_the_given_lr_names_lr(tmp_path, capsys):
    """find-gates xor-margin --lr 1000: the ReLU training diverges at the learning rate typed. Was
    "error in training.lr: … lower training.lr (fix: lower training.lr (or rescale the data))"."""
    line = _err(capsys, ["find-gates", "xor-margin", "--set", "Delta=0.5", "--lr", "1000", "--steps", "50", "--K", "2",
                         "--seeds", "1", "--hidden", "8", "--no-progress", "--out", str(tmp_path / "f.toml")])
    assert line == ("theorykit: error in --lr: ReLU training diverged with lr=1000.0 (loss became non-finite or grew "
                    "tenfold) (fix: lower --lr (or rescale the data))")


@pytest.mark.parametrize("extra, opt", [(["--force"], "--force"), (["--time-limit", "600"], "--time-limit")])
def test_find_gates_checkpoints_refuses_the_training_size_options(tmp_path, capsys, extra, opt):
    """--force and --time-limit bound a training by its estimate; with --checkpoints and --K nothing is trained
    (no elbow: the run is read), so they were accepted and did nothing. Now refused by name. (Without --K the
    elbow trains a GDLN per K, and they bound it: tests/test_record_span_rules.py.)"""
    ck, data = _run(tmp_path, {"W1": 0.01 * SIGNS, "W2": 0.01 * ALT})
    line = _err(capsys, ["find-gates", "--checkpoints", ck, "--data", data, "--K", "1", "--no-progress",
                         "--out", str(tmp_path / "f.toml"), *extra])
    assert line == (f"theorykit: error in {opt}: given with --checkpoints and --K: it bounds the elbow's GDLN trainings "
                    "by their estimate; with --K there is no elbow, and the imported run is read, not trained "
                    f"(fix: leave out {opt})")
    assert not (tmp_path / "f.toml").exists()
