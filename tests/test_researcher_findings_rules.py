"""Small defects an ML researcher found, each checked against what the docs and --help promise or a
value worked out by hand (never a run of the code under test): an output path the operating system
refuses (/proc, where even root makes no file) refused before any work naming its option; --times
out of order or repeated sorted, each once, with a note (simulate and derive alike); a sweep grid value
given twice refused naming --grid NAME; find-gates --steps recorded as a number; the elbow's line saying
'no pattern kept' where it printed 'inf'."""
import json
from pathlib import Path

import pytest

from theorykit.cli import main

EX = Path(__file__).resolve().parent.parent / "examples"
XOR_RELN = str(EX / "xor_reln.toml")


def _err(capsys, field):
    err = capsys.readouterr().err
    assert f"error in {field}:" in err, err
    return err


# ---- 1. an output the file system refuses -------------------------------------------------------

PROC = Path("/proc")
needs_proc = pytest.mark.skipif(not (PROC / "self").exists(), reason="needs Linux's /proc")


@needs_proc
@pytest.mark.parametrize("path", ["/proc/x.json", "/proc/missing/x.json"])
def test_json_in_proc_is_refused_naming_the_option(capsys, path):
    """os.access says /proc is writable to root, but no file can be made there: it was found only on
    writing, after the training, as 'error in /proc/x.json: No such file or directory'."""
    assert main(["simulate", XOR_RELN, "--set", "Delta=1", "--steps", "5", "--seeds", "1", "--no-progress",
                 "--json", path]) == 2
    err = _err(capsys, "--json")
    assert "/proc" in err and "fix:" in err and "writ" in err


@needs_proc
def test_out_folder_in_proc_is_refused_naming_the_option(capsys, tmp_path):
    """The folder check (sweep --out) is the same check."""
    assert main(["sweep", XOR_RELN, "--grid", "Delta=1", "--steps", "5", "--seeds", "1", "--no-progress",
                 "--out", "/proc/sweep-out"]) == 2
    _err(capsys, "--out")


def test_a_writable_folder_is_left_as_it_was(tmp_path):
    """The check makes and removes a file: nothing is left in the folder."""
    from theorykit.cli.common import check_outputs

    check_outputs(("--json", str(tmp_path / "a.json")), ("--plot", str(tmp_path / "new" / "b.png")))
    assert list(tmp_path.iterdir()) == []


# ---- 2. --times out of order or repeated: sorted, each once, with a note (simulate and derive alike) -----

def _loss_times(capsys, argv, tmp_path):
    out = tmp_path / "out.json"
    assert main([*argv, "--json", str(out)]) == 0
    return json.loads(out.read_text())["loss"]["t"], capsys.readouterr().err


@pytest.mark.parametrize("command", [["simulate", XOR_RELN, "--set", "Delta=1", "--steps", "100", "--seeds", "1",
                                      "--no-progress"],
                                     ["derive", XOR_RELN, "--set", "Delta=1"]])
def test_times_repeated_are_dropped_and_out_of_order_sorted_with_a_note(capsys, tmp_path, command):
    """--times 0,100,100 reported the loss at step 100 twice; 0,100,50 was sorted without a word.
    Both commands read --times with the one parser: each time once, in order, and a note on stderr."""
    t, err = _loss_times(capsys, [*command, "--times", "0,100,100"], tmp_path)
    assert t == [0.0, 100.0]
    assert "note: --times" in err and "1 repeat dropped" in err and "0,100 " in err
    t, err = _loss_times(capsys, [*command, "--times", "0,100,50"], tmp_path)
    assert t == [0.0, 50.0, 100.0]
    assert "note: --times" in err and "sorted" in err and "0,50,100 " in err
    t, err = _loss_times(capsys, [*command, "--times", "0,50,100"], tmp_path)     # in order, each once: no note
    assert t == [0.0, 50.0, 100.0] and "--times" not in err


def test_parse_times_drops_repeats():
    from theorykit.cli.common import parse_times

    assert parse_times("5,1,5,1,3", 10).tolist() == [1.0, 3.0, 5.0]


# ---- 3. a grid value given twice ------------------------------------------------------------------

@pytest.mark.parametrize("grid", ["Delta=0.5,0.5", "Delta=1:1:3", "Delta=0.5,1/2,1"])
def test_sweep_grid_with_a_repeated_value_is_refused(capsys, tmp_path, grid):
    """--grid Delta=0.5,0.5 trained the same point twice and listed two identical results; 1:1:3 is
    linspace(1, 1, 3) = 1, 1, 1; 1/2 is 0.5. Refused before anything is written, naming --grid Delta,
    the fix the values once."""
    out = tmp_path / "sw"
    assert main(["sweep", XOR_RELN, "--grid", grid, "--steps", "5", "--seeds", "1", "--no-progress",
                 "--out", str(out)]) == 2
    err = _err(capsys, "--grid Delta")
    assert "more than once" in err
    once = {"Delta=0.5,0.5": "Delta=0.5)", "Delta=1:1:3": "Delta=1)", "Delta=0.5,1/2,1": "Delta=0.5,1)"}[grid]
    assert f"--grid {once}" in err
    assert not out.exists()


def test_run_sweep_grid_with_a_repeated_value_is_refused_in_python(tmp_path):
    from theorykit.analysis.sweep import parse_grid, run_sweep
    from theorykit.errors import SpecError
    from theorykit.spec.files import load_spec

    spec = load_spec(XOR_RELN)
    for grid in ({"Delta": [0.5, 0.5]}, {"Delta": [1.0], "lr": [0.01, 0.02, 0.01]}):
        with pytest.raises(SpecError) as e:
            run_sweep(spec, grid, seeds=1, steps=5, out=tmp_path / "sw", progress=False)
        assert e.value.field == ("--grid lr" if "lr" in grid else "--grid Delta")
    assert not (tmp_path / "sw").exists()
    with pytest.raises(SpecError) as e:
        parse_grid(["lr=0.01,0.01"], spec.task.symbols)
    assert e.value.field == "--grid lr" and "lr=0.01" in e.value.fix


# ---- 4. find-gates --steps recorded as a number ----------------------------------------------------

def _record(path: Path) -> dict:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# made by theorykit: ")
    return json.loads(first[len("# made by theorykit: "):])


def test_find_gates_records_steps_as_a_number_and_reruns(capsys, tmp_path):
    """The record's options held "steps": "60" (the parser reads --steps as text: with --checkpoints it
    is a list); simulate records its --steps as a number. A result with the number reruns, and so does
    an older one with the text (rerun runs the recorded command line, not the options)."""
    out = tmp_path / "f.toml"
    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", "--steps", "60", "--seeds", "1", "--K", "2",
                 "--no-progress", "--out", str(out)]) == 0
    rec = _record(out)
    assert rec["options"]["steps"] == 60 and type(rec["options"]["steps"]) is int
    capsys.readouterr()
    assert main(["rerun", str(out)]) == 0
    lines = out.read_text().splitlines()
    old = tmp_path / "old.toml"
    old.write_text("\n".join([lines[0].replace('"steps":60,', '"steps":"60",'), *lines[1:]]) + "\n")
    assert _record(old)["options"]["steps"] == "60"
    assert main(["rerun", str(old)]) == 0


# ---- 5. the elbow's line says what an infinite score means -------------------------------------------

def test_find_gates_elbow_line_says_no_pattern_kept(monkeypatch, capsys, tmp_path):
    """An imported run's elbow scores a K that kept no gate pattern +inf (elbow_scores_from's default):
    the line printed '1:inf'. Now '1: no pattern kept'; a finite score is printed as before (3 digits)."""
    import types

    from theorykit.cli import find_gates as cmd
    from theorykit.spec.files import load_spec

    run = types.SimpleNamespace(files=["x/run/step_0.npz", "x/run/step_100.npz"], steps=[0, 100], widths=[4])
    found = types.SimpleNamespace(K=2, spec=load_spec(str(EX / "xor_linear.toml")), notes=[],
                                  scores=[{"K": 1, "mse": float("inf"), "patterns": []},
                                          {"K": 2, "mse": 0.01, "patterns": [(1, 0, 0, 1)]}])
    monkeypatch.setattr(cmd, "run_from_args", lambda args: run)
    monkeypatch.setattr(cmd, "run_settings", lambda run, lr, loss: (0.05, "mean"))
    monkeypatch.setattr(cmd, "find_gates_in_run", lambda run, **kw: found)
    assert main(["find-gates", "--checkpoints", "c_*.npz", "--data", "d.npz", "--no-progress",
                 "--out", str(tmp_path / "f.toml")]) == 0
    out = capsys.readouterr().out
    assert "  output MSE by K: 1: no pattern kept, 2:0.01" in out.splitlines()
    assert "inf" not in out


def test_trained_elbow_line_marks_a_k_with_no_pattern():
    """A trained run scores such a K by the ReLU outputs' mean square (a GDLN of no pathway outputs 0):
    the number stays, and the line says no pattern was kept."""
    from theorykit.cli.find_gates import mse_by_K

    assert mse_by_K([{"K": 1, "mse": 0.5, "patterns": []}, {"K": 2, "mse": 0.0123456, "patterns": [(1, 1)]}]) \
        == "  output MSE by K: 1:0.5 (no pattern kept), 2:0.0123"
