"""Rules found by a command-line user's walkthrough (README.md, docs/cli.md, docs/specs.md and
docs/validation.md read, then each command run as a researcher would, mistakes included). Each test
states what the docs promise -- "Errors exit with status 2 and name the field and the fix", "Results
are written atomically" (README.md) -- and checks it with a tiny input; expected values are read from
the docs or worked out by hand, never from a run of the code under test."""
import types
from pathlib import Path

import pytest

from theorykit.cli import main

EX = Path(__file__).resolve().parent.parent / "examples"
XOR = str(EX / "xor_linear.toml")
XOR_DATA = str(EX / "predict" / "xor_data.toml")


def _never(*_a, **_k):
    raise AssertionError("the work ran although its output folder could not be written")


# ------------------------------------------------------------------------------------------
# output folders (--out of validate, race-exhaust, sweep, compare; --html of predict)
# ------------------------------------------------------------------------------------------
# Before: an --out that was an existing file (or lay under one) was found only when the first result
# was written -- after the race, the suites or the training (race-exhaust --k 4 is 2 h on a CPU) --
# and the error named the path, not the option, with no fix: "theorykit: error in out.json: File
# exists". Now it is refused before any work, naming the option.
def _folder_commands(tmp_path, out):
    ckpt = tmp_path / "run"
    return {
        "validate": (["validate", "xor", "--out", out], [("theorykit.cli.validate", "load_package")]),
        "race-exhaust": (["race-exhaust", "--k", "3", "--out", out], [("theorykit.cli.race_exhaust", "race_exhaust")]),
        "sweep": (["sweep", XOR, "--grid", "Delta=1,2", "--seeds", "1", "--steps", "10", "--out", out],
                  [("theorykit.cli.sweep", "run_sweep")]),
        "compare": (["compare", str(EX / "contexts_double.toml"), "--checkpoints", str(ckpt / "step_*.npz"), "--data", str(ckpt / "data.npz"),
                     "--out", out], [("theorykit.cli.compare", "run_from_args")]),
        "predict": (["predict", XOR_DATA, "--hidden", "8", "--set", "Delta=0.5", "--out", str(tmp_path / "p.toml"),
                     "--validate", "--seeds", "1", "--html", out],
                    [("theorykit.cli.predict", "predict_reln")]),
    }


@pytest.mark.parametrize("command", ["validate", "race-exhaust", "sweep", "compare", "predict"])
@pytest.mark.parametrize("where", ["file", "under-a-file"])
def test_an_output_folder_that_is_a_file_is_refused_before_any_work(tmp_path, capsys, monkeypatch, command, where):
    import importlib

    existing = tmp_path / "out.json"
    existing.write_text("kept\n")
    out = str(existing if where == "file" else existing / "sub")
    argv, work = _folder_commands(tmp_path, out)[command]
    for module, name in work:
        mod = importlib.import_module(module)
        stub = types.SimpleNamespace(__wrapped__=_never) if name == "predict_reln" else _never
        monkeypatch.setattr(mod, name, stub)
    assert main(argv) == 2
    err = capsys.readouterr().err
    option = "--html" if command == "predict" else "--out"
    assert f"error in {option}:" in err, err
    assert "(fix:" in err and "Traceback" not in err, err
    assert existing.read_text() == "kept\n"                 # the file in the way is left as it was
    assert not (tmp_path / "p.toml").exists()                # predict wrote no spec either


def test_a_new_output_folder_is_still_made(tmp_path, monkeypatch):
    """The check refuses only what cannot be written: a folder that does not exist yet (two levels
    down) passes it, and the work runs (here a stub that records the folder it was given)."""
    import theorykit.cli.race_exhaust as rx

    seen = []

    def race(*_a, **_k):
        seen.append(True)
        raise KeyboardInterrupt          # stop right there: the check is what is under test

    monkeypatch.setattr(rx, "race_exhaust", race)
    assert main(["race-exhaust", "--k", "3", "--out", str(tmp_path / "a" / "b")]) == 130
    assert seen == [True]


# ------------------------------------------------------------------------------------------
# --plot OUT.png
# ------------------------------------------------------------------------------------------
# Before: `derive --plot loss.pdf` exited 0 and wrote PNG bytes into loss.pdf (a PDF viewer refuses
# it). A figure is now written in the format its name ends in, .png, .pdf or .svg (PDF and SVG are
# what a paper wants), and any other ending is refused before any work, with the .png name as the fix.
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"     # the PNG signature (PNG specification, section 5.2)
PDF_MAGIC = b"%PDF-"                  # a PDF file's header (ISO 32000-1, section 7.5.2)


@pytest.mark.parametrize("name", ["loss.jpg", "loss.eps", "loss"])
@pytest.mark.parametrize("command", ["derive", "simulate"])
def test_plot_to_a_name_that_is_not_a_figure_format_is_refused(tmp_path, capsys, command, name):
    argv = [command, XOR, "--set", "Delta=1", "--plot", str(tmp_path / name), "--json", str(tmp_path / "o.json")]
    if command == "simulate":
        argv += ["--steps", "10", "--seeds", "1", "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error in --plot:" in err and "(fix:" in err and "loss.png" in err and "loss.pdf" in err, err
    assert list(tmp_path.iterdir()) == []          # nothing written, --json included


@pytest.mark.parametrize("command", ["derive", "simulate"])
def test_plot_is_written_in_the_format_its_name_ends_in(tmp_path, command):
    """The suffix is read as the file systems of Windows and macOS read it: .PNG is a PNG."""
    extra = ["--steps", "10", "--seeds", "1", "--no-progress"] if command == "simulate" else ["--times", "0,1000"]
    for name, check in [("LOSS.PNG", lambda b: b[:8] == PNG_MAGIC), ("loss.pdf", lambda b: b[:5] == PDF_MAGIC),
                        # an SVG is XML whose root element is <svg> (SVG 1.1, section 5.1)
                        ("loss.svg", lambda b: b"<svg" in b and b.rstrip().endswith(b"</svg>"))]:
        out = tmp_path / name
        assert main([command, XOR, "--set", "Delta=1", "--plot", str(out),
                     "--json", str(tmp_path / "o.json"), *extra]) == 0
        assert check(out.read_bytes()), name


def test_python_plots_take_the_same_formats(tmp_path):
    import theorykit as tk
    from theorykit.errors import SpecError

    der = tk.Derivation(tk.load_spec(XOR), values={"Delta": 1})
    tk.plot(tmp_path / "a.pdf", der=der, values={"Delta": 1}, times=[0, 100, 1000])
    assert (tmp_path / "a.pdf").read_bytes()[:5] == PDF_MAGIC
    with pytest.raises(SpecError, match="path"):
        tk.plot(tmp_path / "a.jpg", der=der, values={"Delta": 1}, times=[0, 100, 1000])
    assert not (tmp_path / "a.jpg").exists()


# ------------------------------------------------------------------------------------------
# a misspelt option
# ------------------------------------------------------------------------------------------
# Before: `theorykit derive SPEC --jsn out.json` printed the top level's usage line ("usage:
# theorykit [-h] [--distributed] ... COMMAND ...", which lists no option of derive) and "theorykit:
# error: unrecognized arguments: --jsn out.json", with no hint. Now the command's own parser answers:
# its usage, its name, and the nearest of its options (the names are those of docs/cli.md).
@pytest.mark.parametrize("command, typo, meant", [
    ("derive", "--jsn", "--json"),
    ("check", "--sett", "--set"),
    ("simulate", "--no-progess", "--no-progress"),   # not a prefix: argparse takes prefixes as the option
])
def test_a_misspelt_option_names_the_command_and_the_option_meant(capsys, command, typo, meant):
    with pytest.raises(SystemExit) as exc:
        main([command, XOR, typo, "x"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"usage: theorykit {command} " in err, err
    assert f"theorykit {command}: error: unrecognized arguments: {typo} x" in err, err
    assert f"{typo} -> {meant}?" in err, err
    assert "Traceback" not in err


def test_an_extra_argument_with_no_near_option_points_to_the_commands_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["derive", XOR, "second.toml"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: second.toml (see theorykit derive --help)" in err, err


# ------------------------------------------------------------------------------------------
# compare with a spec that still has symbols
# ------------------------------------------------------------------------------------------
# Before: `compare examples/xor_linear.toml --checkpoints ... --data ...` said "error in symbols: no
# value for ['Delta'] (fix: ... --set Delta=0.5 on the command line)", but compare has no --set
# (docs/cli.md). Now the error names the spec file and the symbol, and its fix is one compare can take.
def test_compare_with_a_symbolic_spec_offers_no_option_compare_lacks(tmp_path, capsys):
    import numpy as np

    rng = np.random.default_rng(0)
    X = np.array([[1., -1, 1, -1], [1, -1, -1, 1], [.5, .5, -.5, -.5]])     # xor_linear at Delta = 1/2
    Y = np.array([[1., 1, -1, -1]])
    np.savez(tmp_path / "data.npz", X=X, Y=Y)
    for step in (0, 100):
        np.savez(tmp_path / f"step_{step}.npz", W1=0.01 * rng.standard_normal((8, 3)), W2=0.01 * rng.standard_normal((1, 8)))
    out = tmp_path / "cmp"
    assert main(["compare", XOR, "--checkpoints", str(tmp_path / "step_*.npz"), "--data", str(tmp_path / "data.npz"),
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "error in spec:" in err and "Delta" in err and "(fix:" in err, err
    assert "--set" not in err, err        # `theorykit compare --help` lists no --set
    assert not out.exists()


# ------------------------------------------------------------------------------------------
# a value that is not a number
# ------------------------------------------------------------------------------------------
# Before: `--set Delta=abc` said "unknown symbol 'abc' in 'abc' (fix: declare it under [symbols]
# (declared: none))" -- Delta is declared, and a value may not name a symbol at all (docs/specs.md:
# "--set Delta=0.5 ... gives values"). Now the fix says what a value is.
@pytest.mark.parametrize("argv, field", [
    (["derive", XOR, "--set", "Delta=abc"], "--set Delta"),
    (["simulate", XOR, "--set", "Delta=x", "--steps", "10"], "--set Delta"),
    (["sweep", XOR, "--grid", "Delta=1,x", "--out", "SWEEP"], "--grid Delta"),
    (["sweep", XOR, "--grid", "lr=0.1,y", "--out", "SWEEP"], "--grid lr"),
])
def test_a_value_that_names_a_symbol_is_told_to_be_a_number(tmp_path, capsys, argv, field):
    argv = [str(tmp_path / "sw") if a == "SWEEP" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"error in {field}: unknown symbol" in err, err
    assert "declare it under [symbols]" not in err and "a number" in err, err
    assert not (tmp_path / "sw").exists()


# ------------------------------------------------------------------------------------------
# simulate --fused --plot
# ------------------------------------------------------------------------------------------
# docs/cli.md, simulate --fused: "loss curve only (not with --plot)". Before: the GDLN with both
# failed inside the engine as "error in --fused: the fused kernel records only the loss curve and
# takes lr, steps and check; got recorded functions (save.fns) (fix: leave --fused off ...)", engine
# words a user never typed. Now --plot is named before any work, and either way out is given.
def test_simulate_fused_with_plot_names_plot_before_any_work(tmp_path, capsys, monkeypatch):
    import theorykit.cli.simulate as cs

    monkeypatch.setattr(cs, "simulate", _never)
    png = tmp_path / "loss.png"
    assert main(["simulate", XOR, "--set", "Delta=1", "--fused", "--plot", str(png), "--steps", "10",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "error in --plot:" in err and "--fused" in err and "(fix:" in err, err
    assert "save.fns" not in err
    assert not png.exists()


# ------------------------------------------------------------------------------------------
# an output that is an input, or another output
# ------------------------------------------------------------------------------------------
# Before: `derive s.toml --set Delta=1 --json s.toml` exited 0 having replaced the spec with its own
# JSON derivation (the input lost), and `derive ... --json r --latex r` kept only the last written.
# README.md: "Results are written atomically" -- and nothing the user has may be lost. Now both are
# refused before any work, naming the option.
@pytest.mark.parametrize("command, option", [
    ("derive", "--json"), ("derive", "--latex"), ("simulate", "--json"),
    ("predict", "--out"), ("find-gates", "--out"),
])
def test_an_output_over_the_spec_it_reads_is_refused(tmp_path, capsys, command, option):
    spec = tmp_path / "s.toml"
    spec.write_text((EX / ("predict/xor_data.toml" if command == "predict" else "xor_linear.toml")).read_text())
    before = spec.read_bytes()
    argv = [command, str(spec), "--set", "Delta=1", option, str(spec)]
    argv += {"simulate": ["--steps", "10", "--no-progress"], "predict": ["--hidden", "8", "--no-progress"],
             "find-gates": ["--K", "1", "--seeds", "1", "--steps", "10", "--no-progress"]}.get(command, [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"error in {option}:" in err and "(fix:" in err, err
    assert spec.read_bytes() == before


def test_two_outputs_on_one_path_are_refused(tmp_path, capsys):
    out = tmp_path / "r.out"
    assert main(["derive", XOR, "--set", "Delta=1", "--json", str(out), "--latex", str(tmp_path / "." / "r.out")]) == 2
    err = capsys.readouterr().err
    assert "error in --json:" in err and "--latex" in err and "(fix:" in err, err
    assert not out.exists()


def test_outputs_on_their_own_paths_are_all_written(tmp_path):
    """The check compares paths, not names: r.json and r.tex side by side are both written."""
    assert main(["derive", XOR, "--set", "Delta=1", "--json", str(tmp_path / "r.json"),
                 "--latex", str(tmp_path / "r.tex")]) == 0
    assert (tmp_path / "r.json").read_text().startswith("{")
    assert (tmp_path / "r.tex").read_text().startswith("\\documentclass")


# ------------------------------------------------------------------------------------------
# race-exhaust: a flow too fine to integrate
# ------------------------------------------------------------------------------------------
# Before: `race-exhaust --k 3 --race-dt 1e9` (an RK4 step of tau/1e9) said "error in training.lr: the
# flow would need 1.92e+11 integration steps ... (fix: ask for earlier times (--times; ...), or check
# training.lr ...)": race-exhaust reads no spec and has no --times (docs/cli.md). Now the option the
# user changed is named, with the options that set the step count as the fix.
@pytest.mark.parametrize("option, value", [("--race-dt", "1e9"), ("--gamma", "1e6")])
def test_race_exhaust_too_fine_a_flow_names_the_option_given(tmp_path, capsys, option, value):
    out = tmp_path / "r"
    assert main(["race-exhaust", "--k", "3", option, value, "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"error in {option}:" in err and "(fix:" in err, err
    assert "training.lr" not in err and "--times" not in err, err
    assert not out.exists()


# ------------------------------------------------------------------------------------------
# derive --times past what the race reduction can integrate
# ------------------------------------------------------------------------------------------
# Before: `derive examples/contexts_double.toml --times 0,1e9` (coupled pathways: the race reduction
# is integrated, docs/cli.md --method) said "error in training.lr: the flow would need 4.28e+08
# integration steps ...": the spec's lr is fine (0.01); the horizon the user typed is what is too
# long. Now --times is named; the fix (earlier times, or lr and the data's scale) is unchanged.
def test_derive_a_horizon_too_long_to_integrate_names_times(tmp_path, capsys):
    out = tmp_path / "d.json"
    assert main(["derive", str(EX / "contexts_double.toml"), "--times", "0,1e9", "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert "error in --times:" in err and "(fix:" in err, err
    assert not out.exists()


# ------------------------------------------------------------------------------------------
# --distributed on one host
# ------------------------------------------------------------------------------------------
# docs/cli.md, --distributed: "on SLURM it reads the job's variables; elsewhere set
# JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID". Before: with neither, the command
# said "internal error (a bug in theorykit, please report it): ValueError: coordinator_address should
# be defined." and exited 70. Now it is a user's error naming --distributed, exit 2, with those
# variables as the fix. Run in a fresh process with no cluster's variables (jax detects SLURM, Open
# MPI and others from the environment), so no jax.distributed state is left in this one.
def test_distributed_without_a_cluster_is_a_users_error(tmp_path):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_", "JAX_", "OMPI_", "PMI_", "PMIX_", "MPI_", "TPU_", "MEGASCALE_"))}
    env["JAX_PLATFORMS"] = "cpu"
    r = subprocess.run([sys.executable, "-m", "theorykit", "--distributed", "check", XOR], env=env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2, r.stderr
    assert "error in --distributed:" in r.stderr and "JAX_COORDINATOR_ADDRESS" in r.stderr, r.stderr
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr


# ------------------------------------------------------------------------------------------
# bench --json, predict --html, an unquoted --checkpoints glob
# ------------------------------------------------------------------------------------------
# Before: `bench --quick --json out/` ran the whole benchmark (two minutes; GPU sizes far longer) and
# then said "error in out: is a folder: give a file name to write to", naming no option. Now --json
# is checked first, as derive and simulate check theirs.
@pytest.mark.parametrize("where", ["folder", "under-a-file"])
def test_bench_json_path_is_checked_before_the_timings(tmp_path, capsys, monkeypatch, where):
    import theorykit.cli.bench as cb

    monkeypatch.setattr(cb, "run_bench", _never)
    monkeypatch.setattr(cb, "run_section", _never)
    (tmp_path / "f").write_text("kept\n")
    path = tmp_path if where == "folder" else tmp_path / "f" / "b.json"
    assert main(["bench", "--quick", "--json", str(path)]) == 2
    err = capsys.readouterr().err
    assert "error in --json:" in err and "(fix:" in err, err
    assert (tmp_path / "f").read_text() == "kept\n"


# Before: `predict ... --html DIR` without --validate exited 0 and wrote no page: --help says "with
# --validate: write the validation page and figures here". Now it is refused, with both ways out.
def test_predict_html_without_validate_is_refused(tmp_path, capsys):
    out, html = tmp_path / "p.toml", tmp_path / "val"
    assert main(["predict", XOR_DATA, "--hidden", "8", "--set", "Delta=1", "--out", str(out), "--html", str(html),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "error in --html:" in err and "--validate" in err and "(fix:" in err, err
    assert not out.exists() and not html.exists()


# Before: an unquoted `--checkpoints run/step_*.npz` (the shell expands it) listed every file name in
# "unrecognized arguments: ..." and no more. docs/own_network.md and --help say to quote the glob; the
# error now says so, and shows the first few names only.
@pytest.mark.parametrize("command", ["find-gates", "compare"])
def test_an_unquoted_checkpoint_glob_is_told_to_be_quoted(tmp_path, capsys, command):
    files = []
    for step in range(0, 1000, 100):       # ten files: more than the few names the error shows
        f = tmp_path / f"step_{step}.npz"
        f.write_bytes(b"")
        files.append(str(f))
    argv = [command] + ([str(EX / "contexts_double.toml")] if command == "compare" else [])
    argv += ["--checkpoints", *files, "--data", str(tmp_path / "d.npz"), "--out", str(tmp_path / "o")]
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "quote it" in err, err
    assert files[-1] not in err        # the ten names are not all repeated back
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------------------------------
# docs/specs.md's example files
# ------------------------------------------------------------------------------------------
# Before: the snippet headed "# examples/contexts_double.toml" lacked the file's [training] table and
# context_scale, so a user who copied it trained at the defaults (lr 0.05, 2000 steps) instead of the
# example's lr 0.01 and 4000 steps. Each TOML snippet that names an example file must read as that file.
def test_spec_doc_snippets_that_name_an_example_file_are_that_file():
    import re
    import tomllib

    text = (EX.parent / "docs" / "specs.md").read_text()
    named = 0
    for block in re.findall(r"```toml\n(.*?)```", text, re.S):
        m = re.search(r"examples/(\S+\.toml)", block.splitlines()[0])
        if m:
            named += 1
            assert tomllib.loads(block) == tomllib.loads((EX / m.group(1)).read_text()), m.group(1)
    assert named >= 2          # xor_linear.toml and contexts_double.toml


# ------------------------------------------------------------------------------------------
# '-' where only derive's and simulate's --json mean stdout
# ------------------------------------------------------------------------------------------
# docs/cli.md gives '-' (stdout) to derive --json and simulate --json only. Before: `derive --latex -`,
# `--plot -`, `find-gates --out -`, `predict --json -` and `bench --json -` each exited 0 having
# written a file named '-' in the current folder. Now they are refused before any work.
@pytest.mark.parametrize("argv, option", [
    (["derive", XOR, "--set", "Delta=1", "--latex", "-"], "--latex"),
    (["derive", XOR, "--set", "Delta=1", "--plot", "-"], "--plot"),
    (["simulate", XOR, "--set", "Delta=1", "--steps", "10", "--plot", "-"], "--plot"),
    (["find-gates", "contexts", "--K", "1", "--seeds", "1", "--steps", "10", "--out", "-"], "--out"),
    (["predict", XOR_DATA, "--set", "Delta=1", "--hidden", "8", "--out", "-"], "--out"),
    (["predict", XOR_DATA, "--set", "Delta=1", "--hidden", "8", "--out", "p.toml", "--json", "-"], "--json"),
    (["bench", "--repl", "--json", "-"], "--json"),
])
def test_dash_is_stdout_only_for_derive_and_simulate_json(tmp_path, capsys, monkeypatch, argv, option):
    import theorykit.cli.bench as cb

    monkeypatch.setattr(cb, "run_section", _never)
    monkeypatch.chdir(tmp_path)
    assert main(argv + ["--no-progress"] * (argv[0] in ("simulate", "find-gates", "predict"))) == 2
    err = capsys.readouterr().err
    assert f"error in {option}:" in err and "(fix:" in err, err
    assert list(tmp_path.iterdir()) == []


def test_derive_json_dash_is_still_stdout(tmp_path, capsys, monkeypatch):
    import json

    monkeypatch.chdir(tmp_path)
    assert main(["derive", XOR, "--set", "Delta=1", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["spec"] == "xor-linear"     # name = "xor-linear" in the file
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------------------
# small wording
# ------------------------------------------------------------------------------------------
def test_find_gates_says_one_pathway_not_one_pathways(tmp_path, capsys):
    # --K 1: one cluster, so one pathway; the summary line printed "1 pathways"
    out = tmp_path / "f.toml"
    assert main(["find-gates", XOR, "--set", "Delta=0.5", "--K", "1", "--seeds", "1", "--steps", "50",
                 "--no-progress", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert ", 1 pathway -> " in printed and "1 pathways" not in printed, printed


def test_a_range_open_at_infinity_is_written_open():
    # --race-dt takes any positive finite number: its range is (0, inf), not (0, inf] (inf itself is
    # refused as not finite, so a closed bracket there promised what is refused)
    import math

    from theorykit.errors import SpecError
    from theorykit.spec.fields import real

    with pytest.raises(SpecError, match=r"out of range \(0, inf\) "):
        real(-1, "--race-dt", lo=0.0, lo_open=True, hi=math.inf, fix="a positive number")
    with pytest.raises(SpecError, match=r"out of range \[0, 1\] "):
        real(2, "x", lo=0.0, hi=1.0, fix="a number in [0, 1]")
