"""Rules found by a newcomer's first hour with the command line (session 149): every command's
--help, the examples it shows, the mistakes a first user makes and the progress of long runs.
Each test names the command a user typed and what it printed before the fix."""
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from theorykit.cli import main
from theorykit.cli.parser import build_parser, commands

ROOT = Path(__file__).resolve().parents[1]
TRAIN = "python examples/own_network/train_digits.py --out run/"


# ------------------------------------------------------------------------------------------------
# Every command's --help shows an example that runs as written
# ------------------------------------------------------------------------------------------------
# Before: `theorykit simulate --help` (and every other command's) ended with its options: no example.
# The examples were only in `theorykit --help`, and there `theorykit find-gates --checkpoints
# 'run/step_*.safetensors' --data run/data.npz --out found.toml`, pasted as written, answered
# "error in --data: no such file: run/data.npz": nothing shown made run/ (docs/own_network.md does,
# with examples/own_network/train_digits.py).
def _examples(text: str) -> list[str]:
    """The lines of the "example:"/"examples:" section of a help text (up to the first blank line)."""
    m = re.search(r"^examples?:\n((?:  .+\n?)+)", text, re.MULTILINE)
    return [line.strip() for line in m.group(1).splitlines()] if m else []


def _check_example_lines(lines: list[str], where: str) -> None:
    """Each line is a command that runs as written from the checkout: a `theorykit` line parses with
    theorykit's own parser (no argparse error, nothing left over), every examples/ file it names
    exists, and a run/ folder it reads was made by the training script on an earlier line."""
    made_run = False
    for line in lines:
        words = shlex.split(line)
        if words[0] == "python":
            assert words[1] == "examples/own_network/train_digits.py" and (ROOT / words[1]).is_file(), line
            made_run = made_run or words[2:] == ["--out", "run/"]
            continue
        assert words[0] == "theorykit", (where, line)
        args, extra = build_parser().parse_known_args(words[1:])
        assert not extra and args.module, (where, line)
        for word in words:
            if word.startswith("examples/"):
                assert (ROOT / word).exists(), (where, word)
        if any(w.startswith("run/") for w in words):
            assert made_run, f"{where}: {line!r} reads run/ before any line makes it"


@pytest.mark.parametrize("name", sorted(commands(build_parser())))
def test_every_command_help_shows_an_example_of_that_command_that_runs_as_written(name):
    text = commands(build_parser())[name].format_help()
    lines = _examples(text)
    assert lines, f"theorykit {name} --help shows no example"
    assert any(shlex.split(line)[:2] == ["theorykit", name] for line in lines), (name, lines)
    _check_example_lines(lines, name)


def test_the_top_level_examples_make_the_run_they_read():
    lines = _examples(build_parser().format_help())
    assert len(lines) >= 10 and TRAIN in lines
    _check_example_lines(lines, "theorykit --help")


def test_the_check_and_derive_examples_of_their_help_run_as_written(tmp_path, monkeypatch, capsys):
    """Pasted into a copy of the checkout's examples/ (the outputs land in tmp_path): status 0 and the
    files the example names are written."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("notebooks"))
    monkeypatch.chdir(tmp_path)
    for name in ("check", "derive"):
        (line,) = [ln for ln in _examples(commands(build_parser())[name].format_help())
                   if shlex.split(ln)[:2] == ["theorykit", name]][:1]
        assert main(shlex.split(line)[1:]) == 0, (line, capsys.readouterr().err)
    assert json.loads((tmp_path / "out.json").read_text())["spec"] == "xor-linear"
    assert (tmp_path / "out.tex").read_text().startswith("\\documentclass")


# ------------------------------------------------------------------------------------------------
# rerun of a validation result says what it is and how to run it again
# ------------------------------------------------------------------------------------------------
# Before: `theorykit validate xor --quick --out results/` and then `theorykit rerun results/xor.json`
# answered "error in provenance: results/xor.json has no provenance record (results written before it
# was recorded have none) (fix: make the result again with this theorykit, then rerun it)": the file had
# just been made by this theorykit, and making it again changes nothing. A suite's result (and
# validate all's results.json) records no command: rerun does not rerun suites. Now the message says
# which suite's result it is and gives the command that runs it again.
def _rerun_error(path, capsys):
    assert main(["rerun", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("theorykit: error in provenance: ") and "\n" not in err, err
    return err


def test_rerun_of_a_suite_result_names_the_suite_and_the_command_that_runs_it_again(tmp_path, capsys):
    # the fields every suite's result has (docs/contributing.md, "A validation suite"; validation/_common.py)
    doc = {"suite": "xor", "mode": "quick", "description": "Section 3", "claims": [], "figures": [],
           "seconds": 36.2, "cache_key": "674770c1"}
    (tmp_path / "xor.json").write_text(json.dumps(doc))
    err = _rerun_error(tmp_path / "xor.json", capsys)
    assert "validation suite 'xor'" in err and "theorykit validate xor --quick --out" in err, err
    assert "written before it was recorded" not in err
    doc["mode"] = "full"
    (tmp_path / "xor.json").write_text(json.dumps(doc))
    assert "theorykit validate xor --full --out" in _rerun_error(tmp_path / "xor.json", capsys)


def test_rerun_of_validate_alls_results_json_names_validate_all(tmp_path, capsys):
    from theorykit.report import build_results          # the writer of results.json

    (tmp_path / "results.json").write_text(json.dumps(build_results("quick", {})))
    err = _rerun_error(tmp_path / "results.json", capsys)
    assert "theorykit validate all --quick --out" in err and "written before it was recorded" not in err, err


def test_rerun_of_a_json_that_is_no_result_of_theorykit_keeps_its_message(tmp_path, capsys):
    """The case the old message was for: a JSON without a record that no validation wrote."""
    (tmp_path / "old.json").write_text(json.dumps({"spec": "xor-linear", "loss": {"t": [0.0]}}))
    assert "has no provenance record" in _rerun_error(tmp_path / "old.json", capsys)


# ------------------------------------------------------------------------------------------------
# a spec for the wrong command: predict's input given to derive, simulate or check
# ------------------------------------------------------------------------------------------------
# Before: `theorykit derive examples/predict/xor_data.toml` (a spec of data and training, as predict
# reads, with no pathways) answered "error in pathways: missing (fix: add [[pathways]] tables, or
# reln = "..." under [data] for a built-in task)": nothing said that the file is predict's, and that
# predict writes the spec with pathways that derive reads. Now the fix says so.
@pytest.mark.parametrize("command", [["derive"], ["simulate", "--steps", "1"], ["check"], ["sweep", "--out", "{tmp}/s"]])
def test_a_spec_without_pathways_names_predict_which_reads_it(command, tmp_path, capsys):
    spec = str(ROOT / "examples" / "predict" / "xor_data.toml")
    argv = [command[0], spec, *[a.format(tmp=tmp_path) for a in command[1:]], "--set", "Delta=0.5"]
    if command[0] == "sweep":
        argv = argv[:-2] + ["--grid", "Delta=0.5"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("theorykit: error in pathways: missing") and "\n" not in err, err
    assert "theorykit predict" in err and "--hidden" in err and "[[pathways]]" in err, err
    # and the command it names reads this very file: predict parses it (the run itself is predict's tests')
    from theorykit.spec.files import read_toml
    assert "pathways" not in read_toml(Path(spec)) and "data" in read_toml(Path(spec))


# ------------------------------------------------------------------------------------------------
# progress on a log or a pipe: an estimate of the time left, as the terminal's bar has
# ------------------------------------------------------------------------------------------------
# Before: `theorykit find-gates --checkpoints 'run/step_*.safetensors' --data run/data.npz --out
# found.toml 2> log` wrote "find-gates: elbow: 4/8 (50%), K=4, 73s" once a minute: how long it had run,
# not how long it would still run (a terminal's tqdm bar shows both). Now the line ends
# "73s (about 73s left)": the time so far times the work left over the work done.
class _Clock:
    def __init__(self):
        self.now = 1000.0

    def monotonic(self):
        return self.now


def _logging_progress(monkeypatch):
    """theorykit.progress on a made-up clock (``clock.now`` moved by the test), writing a line at every update."""
    import theorykit.progress as progress

    clock = _Clock()
    monkeypatch.setattr(progress, "time", clock)
    monkeypatch.setattr(progress.Progress, "LOG_SECONDS", 0.0)
    return progress, clock


def test_a_progress_line_on_a_log_says_about_how_long_is_left(tmp_path, monkeypatch):
    progress, clock = _logging_progress(monkeypatch)
    with open(tmp_path / "log", "w") as log:
        with progress.Progress("find-gates", 8, stream=log) as pr:
            clock.now += 73.0
            pr.update(4, note="elbow: K=4")       # 4 of 8 in 73 s: 4 more at that pace, 73 s
            clock.now += 27.0
            pr.update(1)                          # 5 of 8 in 100 s: 20 s each, 3 left, 60 s
            clock.now += 3600.0
            pr.update(1)                          # 6 of 8 in 3700 s: 2 x 3700/6 = 1233 s, about 21 min
            clock.now += 10.0
            pr.update(2)                          # done: nothing is left to estimate
    lines = (tmp_path / "log").read_text().splitlines()
    assert lines == ["find-gates: 4/8 (50%), elbow: K=4, 73s (about 73s left)",
                     "find-gates: 5/8 (62%), elbow: K=4, 100s (about 60s left)",
                     "find-gates: 6/8 (75%), elbow: K=4, 3700s (about 21 min left)",
                     "find-gates: 8/8 (100%), elbow: K=4, 3710s"], lines


def test_a_long_estimate_reads_in_hours_and_nothing_is_estimated_before_the_first_step(tmp_path, monkeypatch):
    progress, clock = _logging_progress(monkeypatch)
    with open(tmp_path / "log", "w") as log:
        with progress.Progress("race k=4", 128, stream=log) as pr:
            clock.now += 5.0
            pr.update(0, note="compiling")        # nothing done yet: no rate to go by
            clock.now += 55.0
            pr.update(1)                          # 1 of 128 in 60 s: 127 x 60 s = 7620 s = 2.1 h
    lines = (tmp_path / "log").read_text().splitlines()
    assert lines == ["race k=4: 0/128 (0%), compiling, 5s", "race k=4: 1/128 (1%), compiling, 60s (about 2.1 h left)"]


# ------------------------------------------------------------------------------------------------
# a required argument left out: the fix is the command's own example
# ------------------------------------------------------------------------------------------------
# Before: `theorykit validate xor` printed argparse's "theorykit validate: error: the following arguments
# are required: --out" with no fix, unlike every other error of the command line ("(fix: …)";
# `--seeds` without a value gets an example). Now the line ends with the fix: the command's example.
@pytest.mark.parametrize("argv, missing, example", [
    (["validate", "xor"], "--out", "theorykit validate xor --quick --out results/"),
    (["derive"], "spec", "theorykit derive examples/xor_linear.toml"),
    (["predict", "examples/predict/xor_data.toml", "--out", "p.toml"], "--hidden",
     "theorykit predict examples/predict/xor_data.toml --hidden 128"),
    (["compare", "found.toml", "--out", "cmp"], "--checkpoints, --data",
     "theorykit compare found.toml --checkpoints 'run/step_*.safetensors' --data run/data.npz --out cmp/"),
])
def test_a_missing_required_argument_gets_a_fix_with_an_example(argv, missing, example, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"error: the following arguments are required: {missing} (fix: " in err, err
    assert example in err and err.endswith(")"), err


# ------------------------------------------------------------------------------------------------
# Ctrl-C in a sweep: what was kept, and how to go on
# ------------------------------------------------------------------------------------------------
# Before: `timeout -s INT 25 theorykit sweep examples/xor_linear.toml --grid Delta=0:2:41 --grid
# lr=0.01,0.05 --seeds 4 --steps 20000 --chunk 16 --out sw` said only "theorykit: interrupted" (status
# 130), though 8 of its 21 chunks were saved and the same command would go on from them (the help says
# so; the message did not). Now a note says how many chunks are kept where, and that the same command
# continues; the interrupt itself is still the last line and the status 130.
def test_an_interrupted_sweep_says_what_it_kept_and_the_same_command_continues(tmp_path, monkeypatch, capsys):
    import theorykit.analysis.sweep as sweep

    real = sweep.train_net

    def stopped_after_the_first_chunk(*args, on_batch_result, **kwargs):
        def first_then_ctrl_c(a, b, loss):
            on_batch_result(a, b, loss)           # chunk 1 is written
            raise KeyboardInterrupt               # Ctrl-C before chunk 2
        return real(*args, on_batch_result=first_then_ctrl_c, **kwargs)

    out = tmp_path / "sw"
    # 2 values x 2 seeds = 4 members, 2 a chunk: 2 chunks
    argv = ["sweep", str(ROOT / "examples" / "xor_linear.toml"), "--grid", "Delta=0.5,1", "--seeds", "2",
            "--steps", "20", "--chunk", "2", "--out", str(out), "--no-progress"]
    monkeypatch.setattr(sweep, "train_net", stopped_after_the_first_chunk)
    assert main(argv) == 130
    said = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert said[-1] == "theorykit: interrupted", said
    kept = [ln for ln in said if "chunk" in ln]
    assert len(kept) == 1 and "1 of 2 chunks" in kept[0] and str(out / "chunks") in kept[0], said
    assert "the same command" in kept[0], said
    assert len(list((out / "chunks").glob("*.npz"))) == 1
    # and it does: run again, it computes the one chunk left
    monkeypatch.setattr(sweep, "train_net", real)
    assert main(argv) == 0
    assert "(1 computed this run" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------------
# compare's loss.png: axis labels fit their panels
# ------------------------------------------------------------------------------------------------
# Before: `theorykit compare found.toml --checkpoints 'run/step_*.safetensors' --data run/data.npz --out
# cmp/` drew loss.png with the y label "loss, ½ ‖y − ŷ‖² averaged over the 200 datapoints" in one line,
# taller than the panel (313 px beside 277 at the file's size): it ran past the panel's top, up to the
# figure's title, and past its bottom. Now the figure is taller (4.6 in, not 3.8): the label is within the panel.
def test_compare_loss_figure_y_labels_fit_their_panels():
    import numpy as np

    import theorykit as tk
    from theorykit.analysis.compare import Comparison

    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3))
    steps = np.arange(0.0, 4001.0, 50.0)
    run = 0.5 * np.exp(-steps / 800) + 0.02
    fig = Comparison(steps, steps, run, 1.1 * run, 1.1 * run, spec, 1e-3, 0.1, "mean").figure()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        label, panel = ax.yaxis.label.get_window_extent(renderer), ax.get_window_extent(renderer)
        assert "datapoints" in ax.get_ylabel()
        assert panel.y0 <= label.y0 and label.y1 <= panel.y1, (label, panel)


# ------------------------------------------------------------------------------------------------
# each command's description says what it prints or writes
# ------------------------------------------------------------------------------------------------
# Before: `theorykit simulate --help` began "Full-batch gradient descent on the GDLN the spec defines
# or, with --network relu, on a bias-free ReLU network of the same total width; float64 by default."
# and `theorykit bench --help` "Time each paper result's derivation, then train …": neither said what
# comes out (a table or JSON on stdout, files with --json and --plot), as every other command's does.
@pytest.mark.parametrize("name", sorted(commands(build_parser())))
def test_every_command_description_says_what_it_prints_or_writes(name):
    description = " ".join(commands(build_parser())[name].description.split())
    assert re.search(r"\b(prints?|writes?|saved)\b", description, re.IGNORECASE), (name, description)
    if name in ("simulate", "bench"):
        assert "--json" in description, description


# ------------------------------------------------------------------------------------------------
# two options that exclude each other: the fix says to give one
# ------------------------------------------------------------------------------------------------
# Before: `theorykit validate xor --quick --full --out r` printed argparse's "theorykit validate: error:
# argument --full: not allowed with argument --quick", with no fix, unlike the command line's other errors.
def test_options_that_exclude_each_other_get_a_fix(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["validate", "xor", "--quick", "--full", "--out", "r"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == ("theorykit validate: error: argument --full: not allowed with argument --quick "
                   "(fix: give --quick or --full, not both)"), err
