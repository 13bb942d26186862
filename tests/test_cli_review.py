"""Command-line defects found in a review: each bad option is a SpecError naming it (exit 2, never 70
or a silent default), and an error leaves no file behind. Each test failed before its fix."""
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from theorykit.analysis.sweep import parse_grid
from theorykit.cli import main
from theorykit.cli.parser import build_parser
from theorykit.errors import SpecError
from theorykit.spec.files import load_spec

EX = Path(__file__).resolve().parent.parent / "examples"

XOR = ["xor-margin", "--set", "Delta=0.5", "--K", "2", "--seeds", "1", "--no-progress"]


def _error(capsys, field):
    err = capsys.readouterr().err
    assert f"error in {field}:" in err, err
    return err


# ------------------------------------------------------------------------------------------
# find-gates
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("opt,value", [("--steps", "0"), ("--hidden", "0"), ("--lr", "0"), ("--lr", "-1"),
                                       ("--lr", "nan"), ("--max-K", "0")])
def test_find_gates_refuses_a_bad_size_instead_of_a_default(tmp_path, capsys, opt, value):
    """0 steps, 0 hidden units, a learning rate outside training.lr's range [1e-12, 1e3] (0, -1, nan)
    and an elbow over no K (K = 1..0) are no settings: each is refused naming the option. Before,
    `x or default` made 0 the default (exit 0), -1 and nan were reported as a divergence of
    training.lr, and --max-K 0 crashed (exit 70)."""
    out = tmp_path / "f.toml"
    argv = ["find-gates", *XOR, "--out", str(out), opt, value]
    if opt != "--steps":
        argv += ["--steps", "50"]
    if opt == "--max-K":
        argv.remove("--K"), argv.remove("2")
    assert main(argv) == 2
    _error(capsys, opt)
    assert not out.exists()


def test_find_gates_keeps_an_explicit_zero():
    """find_gates read `lr or default`: lr = 0 counted as not given and it trained at the default 0.05.
    An explicit value is kept now, so a zero step size reaches the trainer, which refuses it."""
    from theorykit.analysis.findgates import find_gates
    from theorykit.spec.task import xor_margin

    with pytest.raises(SpecError) as e:
        find_gates(xor_margin(0.5), K=1, seeds=1, steps=50, hidden=8, lr=0.0)
    # named as the keyword it is (was training.lr), by the one rule of every learning rate
    assert e.value.field == "lr" and e.value.fix == "give a number from 1e-12 to 1000, e.g. lr=0.05"


@pytest.mark.parametrize("name", ["a" * 80, "a\nb", ""])
def test_find_gates_checks_the_name_as_the_spec_parser(tmp_path, capsys, name):
    """A spec's name is 1 to 64 printable characters (theorykit.spec.fields.label): 80 characters,
    a newline or nothing cannot be a name; before, the first two were written (exit 0) into a spec
    load_spec refuses, and an empty one was silently replaced."""
    out = tmp_path / "f.toml"
    assert main(["find-gates", *XOR, "--steps", "50", "--name", name, "--out", str(out)]) == 2
    _error(capsys, "--name")
    assert not out.exists()


def test_find_gates_default_name_is_cut_to_fit(tmp_path):
    """The default name found-<stem> of a spec whose file stem has 70 characters would have 76 > 64:
    it is cut to its first 64 characters, 'found-' and 58 x's, and the written spec loads."""
    src = tmp_path / ("x" * 70 + ".toml")
    shutil.copy(EX / "xor_linear.toml", src)
    out = tmp_path / "f.toml"
    assert main(["find-gates", str(src), "--set", "Delta=0.5", "--K", "2", "--seeds", "1", "--steps", "50",
                 "--no-progress", "--out", str(out)]) == 0
    assert load_spec(out).name == "found-" + "x" * 58


def test_find_gates_refuses_to_write_a_spec_that_would_not_load(tmp_path, capsys):
    """An imported run whose data hold -1e-8: a spec's data numbers are 0 or of magnitude in
    [1e-6, 1e6], so the spec found in it (its data written out) would not load back; it is refused
    naming the entry (inputs row 2, column 3) and nothing is written. Before: exit 0 and a file
    load_spec refuses."""
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "data.npz", X=np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -1e-8]]),
             Y=np.array([[1.0, 1, -1, -1]]))
    for s in (0, 10):
        np.savez(tmp_path / f"step_{s}.npz", W1=0.1 * rng.standard_normal((4, 3)), W2=0.1 * rng.standard_normal((1, 4)))
    out = tmp_path / "f.toml"
    assert main(["find-gates", "--checkpoints", str(tmp_path / "step_*.npz"), "--data", str(tmp_path / "data.npz"),
                 "--lr", "0.05", "--K", "1", "--no-progress", "--out", str(out)]) == 2
    assert "data.inputs[2][3]" in _error(capsys, "--out")
    assert not out.exists()


# ------------------------------------------------------------------------------------------
# predict reads its spec with load_spec's checks
# ------------------------------------------------------------------------------------------
_DATA = """[data]
inputs = [[1, -1, 1, -1], [1, -1, -1, 1], ["sqrt(D)", "sqrt(D)", 1, 1]]
targets = [[1, 1, -1, -1]]
"""


@pytest.mark.parametrize("text,sets,field,says", [
    ("[symbols]\nD = {}\n" + _DATA + "[trainig]\nlr = 0.05\n", ["D=1"], "trainig", "unknown keys ['trainig']"),
    ("a = " + "[" * 5000 + "]" * 5000 + "\n", [], "spec", "nested too deeply"),
    ("[symbols]\nD = {}\n" + _DATA, ["D=-1"], "--set D", "imaginary or complex"),
])
def test_predict_spec_gets_load_specs_checks(tmp_path, capsys, text, sets, field, says):
    """A misspelt [trainig] table is refused (it was ignored: defaults written, exit 0); a file nested
    5000 deep is an error (it crashed with RecursionError, exit 70); sqrt(D) at D = -1 is i, not a
    real number, refused as --set D (it crashed converting a complex number, exit 70)."""
    spec, out = tmp_path / "p.toml", tmp_path / "pred.toml"
    spec.write_text(text)
    argv = ["predict", str(spec), "--hidden", "8", "--out", str(out), "--no-progress"]
    for s in sets:
        argv += ["--set", s]
    assert main(argv) == 2
    assert says in _error(capsys, field)
    assert not out.exists()


# ------------------------------------------------------------------------------------------
# sweep
# ------------------------------------------------------------------------------------------
def test_sweep_checks_its_size_first(tmp_path, capsys, monkeypatch):
    """simulate's size check: the loss history alone is 2 x 8 bytes x 1 member x (10^6 + 1) steps
    = 16 MB, over a memory limit of 1 MB, so the sweep is refused naming --steps before anything is
    written (before: no check; at --steps 1e9 it died of memory)."""
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1e6")
    out = tmp_path / "sw"
    assert main(["sweep", str(EX / "xor_linear.toml"), "--grid", "Delta=0.5", "--seeds", "1", "--steps", "1000000",
                 "--no-progress", "--out", str(out)]) == 2
    assert "memory" in _error(capsys, "--steps")
    assert not out.exists()


def test_sweep_grid_values_are_checked_and_named_as_grid(tmp_path, capsys):
    """Grid learning rates obey training.lr's range [1e-12, 1e3]: 1e-8 is a learning rate (it was
    refused as a data number under '--set _x'), 5000 is not (it ran, diverged and crashed, exit 70,
    leaving files); a bad symbol value is reported under --grid, not --set."""
    syms = load_spec(EX / "xor_linear.toml").task.symbols
    assert parse_grid(["lr=1e-8"], syms) == {"lr": [1e-8]}
    for item, field in (("lr=5000", "--grid lr"), ("lr=0", "--grid lr"), ("Delta=nan", "--grid Delta"),
                        ("Delta=1e-9", "--grid Delta")):
        with pytest.raises(SpecError) as e:
            parse_grid([item], syms)
        assert e.value.field == field, item
    out = tmp_path / "sw"
    assert main(["sweep", str(EX / "xor_linear.toml"), "--grid", "Delta=0.5", "--grid", "lr=5000", "--seeds", "1",
                 "--steps", "10", "--no-progress", "--out", str(out)]) == 2
    _error(capsys, "--grid lr")
    assert not out.exists()


# ------------------------------------------------------------------------------------------
# race-exhaust
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("opt,value,says", [("--gamma", "nan", "not a finite"), ("--gamma", "-1", "out of range"),
                                            ("--a0", "-1", "out of range"), ("--a0", "1e9", "out of range"),
                                            ("--a0", "100", "diverged")])
def test_race_exhaust_checks_gamma_and_a0(tmp_path, capsys, opt, value, says):
    """The context scale is a positive data number (in [1e-6, 1e6]) and a0 lies in training.a0's range
    [1e-12, 1e2]: nan, -1 and 1e9 are refused naming the option (before: exit 70, or -1 accepted).
    a0 = 100 is in range, but the race from there blows up (a loss becomes non-finite): refused naming
    --a0 before anything is written (before: exit 70)."""
    out = tmp_path / "re"
    assert main(["race-exhaust", "--k", "3", "--steps", "2000", "--no-progress", "--out", str(out), opt, value]) == 2
    assert says in _error(capsys, opt)
    assert not out.exists()


# ------------------------------------------------------------------------------------------
# every command
# ------------------------------------------------------------------------------------------
def test_every_command_takes_debug():
    """The internal-error message says 'rerun with --debug': every command must accept it (sweep,
    race-exhaust and compare refused it as an unrecognized argument)."""
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    missing = [name for name, p in sub.choices.items() if "--debug" not in p._option_string_actions]
    assert sub.choices and missing == []


def test_debug_after_a_sweep_is_read(tmp_path, capsys):
    """sweep ... --debug is parsed (it was an unrecognized argument) and the error still exits 2."""
    out = tmp_path / "sw"
    assert main(["sweep", str(EX / "xor_linear.toml"), "--grid", "lr=5000", "--grid", "Delta=0.5", "--debug",
                 "--out", str(out)]) == 2
    _error(capsys, "--grid lr")


def test_simulate_refuses_a_fractional_time(tmp_path, capsys):
    """The simulated loss exists at whole steps only: t = 1.5 was reported with the loss of step 1."""
    out = tmp_path / "s.json"
    assert main(["simulate", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--steps", "10", "--seeds", "1",
                 "--times", "0,1.5,2", "--json", str(out)]) == 2
    assert "1.5" in _error(capsys, "--times")
    assert not out.exists()


def test_derive_checks_every_output_path_before_writing(tmp_path, capsys):
    """--json under a path whose 'folder' o.txt is a file cannot be written: derive wrote --latex first
    and then failed, leaving l.tex behind; now both paths are checked before either is written."""
    (tmp_path / "o.txt").write_text("")
    tex = tmp_path / "l.tex"
    assert main(["derive", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--latex", str(tex),
                 "--json", str(tmp_path / "o.txt" / "x.json")]) == 2
    _error(capsys, "--json")
    assert not tex.exists()
    assert main(["derive", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--latex", str(tex),
                 "--json", str(tmp_path)]) == 2          # a folder is no file name
    _error(capsys, "--json")
    assert not tex.exists()


def test_simulate_checks_every_output_path_before_writing(tmp_path, capsys):
    """simulate writes --plot, then --json: a --json path under the file o.txt failed after the PNG
    was written; both paths are now checked first."""
    (tmp_path / "o.txt").write_text("")
    png = tmp_path / "p.png"
    assert main(["simulate", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--steps", "10", "--seeds", "1",
                 "--plot", str(png), "--json", str(tmp_path / "o.txt" / "x.json")]) == 2
    _error(capsys, "--json")
    assert not png.exists()


def test_a_symbol_set_twice_is_refused(tmp_path, capsys):
    """`--set Delta=1 --set Delta=2` kept the last value silently; now neither is guessed and nothing
    is written."""
    out = tmp_path / "d.json"
    assert main(["derive", str(EX / "xor_linear.toml"), "--set", "Delta=1", "--set", "Delta=2", "--json", str(out)]) == 2
    assert "given twice" in _error(capsys, "--set Delta") and not out.exists()


def test_sweep_grid_values_obey_the_symbols_assumptions():
    """Delta is declared nonnegative in examples/xor_linear.toml: a grid reaching −1 is refused, named
    as the grid, as --set refuses it (the derivation simplified with Δ ≥ 0)."""
    symbols = load_spec(str(EX / "xor_linear.toml")).task.symbols
    with pytest.raises(SpecError) as exc:
        parse_grid(["Delta=-1,0.5"], symbols)
    assert exc.value.field == "--grid Delta" and "nonnegative" in exc.value.problem
    assert parse_grid(["Delta=0,0.5"], symbols)["Delta"] == [0.0, 0.5]


def test_one_set_of_weights_for_several_seeds_is_noted(tmp_path, capsys):
    """A weight file with one set of weights and --seeds 3: full-batch gradient descent from one start
    is deterministic, so the three runs are identical; the command says so instead of reporting a
    spread of 0 as if it were measured."""
    spec = load_spec(str(EX / "xor_linear.toml"))
    H = spec.hidden_total
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "w.npz", W1=0.01 * rng.standard_normal((H, 3)), W2=0.01 * rng.standard_normal((1, H)))
    out = tmp_path / "sim.json"
    assert main(["simulate", str(EX / "xor_linear.toml"), "--set", "Delta=1", "--network", "relu", "--init-weights",
                 str(tmp_path / "w.npz"), "--seeds", "3", "--steps", "5", "--json", str(out)]) == 0
    assert "runs are identical" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------
# a newcomer's review (2026-11-27): each of these failed before its fix
# ------------------------------------------------------------------------------------------
def test_relu_network_with_an_aligned_start_is_refused_not_run_random(tmp_path, capsys):
    """simulate --network relu --init aligned ran a random start and said so only in the JSON."""
    out = tmp_path / "s.json"
    assert main(["simulate", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--network", "relu",
                 "--init", "aligned", "--steps", "5", "--seeds", "1", "--json", str(out)]) == 2
    assert "--init random" in _error(capsys, "--init") and not out.exists()
    # without --init each network takes its own start: aligned for the GDLN, random for the ReLU network
    for network, init in (("relu", "random"), ("gdln", "aligned")):
        assert main(["simulate", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--network", network,
                     "--steps", "5", "--seeds", "1", "--json", str(out)]) == 0
        assert json.loads(out.read_text())["init"] == init


def test_version_is_printed(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.strip() == f"theorykit {version('theorykit')}"


def test_a_call_is_refused_by_its_name_before_its_arguments():
    """__import__('os') was refused as "'os' is not a number (fix: use numbers only)"."""
    from theorykit.spec.expr import parse_expr

    with pytest.raises(SpecError, match=r"function '__import__' is not allowed .*sqrt\(x\) and Rational"):
        parse_expr("__import__('os')", {}, "data.inputs[0][0]")
    with pytest.raises(SpecError, match=r"'os' in .* is not a number \(fix: use numbers, declared symbols"):
        parse_expr("'os'", {}, "data.inputs[0][0]")


@pytest.mark.parametrize("kw,field", [({"lr": -1}, "training.lr"), ({"lr": True}, "training.lr"),
                                      ({"a0": 0}, "training.a0"), ({"init_std": float("nan")}, "training.init_std"),
                                      ({"steps": 0}, "training.steps"), ({"steps": 2.5}, "training.steps"),
                                      ({"loss": "mse"}, "training.loss")])
def test_training_checks_its_fields_where_it_is_made(kw, field):
    """tk.Training(lr=-1, steps=0, loss='mse') was accepted until a spec used it."""
    from theorykit import Training

    with pytest.raises(SpecError) as e:
        Training(**kw)
    assert e.value.field == field
    Training(lr=np.float32(0.01), steps=np.int64(5))       # numpy numbers are numbers


def test_help_texts_a_newcomer_found_wanting():
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction").choices
    simulate = sub["simulate"].format_help()
    assert "--network relu" in " ".join(sub["simulate"].description.split())
    assert "(the default for the GDLN)" in " ".join(simulate.split())
    assert "init-weights" not in sub["check"].format_help()
    sweep = " ".join(sub["sweep"].format_help().split())
    assert "--out DIR" in sweep and "spec file (TOML)" in sweep
    assert "report.html" in " ".join(sub["validate"].format_help().split())


# ------------------------------------------------------------------------------------------
# stdout closed by its reader (| head)
# ------------------------------------------------------------------------------------------
class _ClosedPipe:
    """A stdout whose reader has left: every write fails as a pipe with no reader does. It has no
    ``fileno``, so the command cannot point the test process's own stdout at the null device."""

    def write(self, _text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_leaves_early_ends_the_command_quietly(monkeypatch, capsys):
    """`theorykit derive … | head -1`: when head exits, the next write fails with EPIPE. The command
    stops without a message, as cat and git do, with the status of a command ended by SIGPIPE,
    128 + 13 = 141. Before, it printed "error in stdout: closed by …" to stderr and exited 2, the
    status of a bad input."""
    import sys

    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    status = main(["derive", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--times", "0,1,2"])
    assert status == 128 + 13
    assert capsys.readouterr().err == ""


def test_the_exit_statuses_are_in_the_top_level_help():
    """Scripts branch on the status: --help lists each one main() can return (0, 2, 70, 130, 141)."""
    text = build_parser().format_help()
    for status in ("0 done", "2 a bad input", "70 a bug", "130 interrupted", "141 stdout closed"):
        assert status in text, status


@pytest.mark.parametrize("command", [["find-gates", "--out", "f.toml"], ["compare", "found.toml", "--out", "cmp"]])
def test_checkpoints_given_twice_is_refused_not_overridden(command, capsys):
    """Two --checkpoints globs read as two sets of files of one run; argparse kept only the second,
    and the run went on with half the files (or another run's), without a word. Refused (exit 2),
    naming the option and both globs, before any file is read."""
    argv = [*command, "--checkpoints", "a/*.npz", "--checkpoints", "b/*.npz", "--data", "d.npz"]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--checkpoints given twice ('a/*.npz', then 'b/*.npz')" in err, err


def test_compare_shows_its_stages_and_takes_no_progress(tmp_path, monkeypatch, capsys):
    """compare takes seconds to minutes (the found GDLN is trained over every checkpoint step) and
    showed nothing, and it alone of the commands that train lacked --no-progress. Its bar now
    advances once per stage (the GDLN, the race, the page), and --no-progress turns it off."""
    import theorykit.cli.compare as cmd

    toml = (EX / "xor_linear.toml").read_text().replace('["Delta", "Delta", "-Delta", "-Delta"]', '[0.5, 0.5, -0.5, -0.5]')
    spec = tmp_path / "xor.toml"
    spec.write_text(toml.replace("[symbols]\nDelta = {nonnegative = true}\n", ""))
    rng = np.random.default_rng(0)
    X = np.array([[1., -1, 1, -1], [1, -1, -1, 1], [.5, .5, -.5, -.5]])     # xor_linear at Delta = 1/2
    np.savez(tmp_path / "data.npz", X=X, Y=np.array([[1., 1, -1, -1]]))
    for step in (0, 10):
        np.savez(tmp_path / f"step_{step}.npz", W1=0.01 * rng.standard_normal((128, 3)), W2=0.01 * rng.standard_normal((1, 128)))
    notes = []

    class Recorder:
        def __init__(self, label, total, enabled=True):
            notes.append(("open", label, total, enabled))

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, k=1, note=""):
            notes.append((k, note))

    monkeypatch.setattr(cmd, "Progress", Recorder)
    argv = ["compare", str(spec), "--checkpoints", str(tmp_path / "step_*.npz"), "--data", str(tmp_path / "data.npz")]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert notes == [("open", "compare", 3, True), (1, "found GDLN trained"), (1, "race integrated"), (1, "page written")]
    notes.clear()
    assert main([*argv, "--out", str(tmp_path / "b"), "--no-progress"]) == 0
    assert notes[0] == ("open", "compare", 3, False) and len(notes) == 4


def test_a_reader_that_leaves_early_loses_no_file(tmp_path, monkeypatch, capsys):
    """`theorykit predict … --out p.toml | head -1`: predict prints its result before it writes the
    spec, so a reader that left early stopped the command before the spec was written, and the
    prediction was lost. The text past that point is dropped, the command runs to its end and writes
    its files, and then exits 141 (the pipe status) without a message."""
    import sys

    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    out, js = tmp_path / "p.toml", tmp_path / "p.json"
    status = main(["predict", str(EX / "predict" / "xor_data.toml"), "--hidden", "8", "--set", "Delta=0.5",
                   "--out", str(out), "--json", str(js), "--no-progress"])
    assert status == 128 + 13
    assert capsys.readouterr().err == ""
    assert "[[pathways]]" in out.read_text()
    assert '"prediction"' in js.read_text()
