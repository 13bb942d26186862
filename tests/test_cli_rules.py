"""The command line's rules, each checked against a value worked out by hand or read from the docs
(README.md, docs/specs.md, the --help texts of docs/cli.md), never from a run of the code under test:
defaults (--times, --seeds, --steps), bounds (--times, --time-limit (predict's too), --seeds, --lr),
JSON fields, the size check (--force, --time-limit, THEORYKIT_MAX_BYTES/SECONDS), output paths
checked before anything is written, sweep grids and resume, exit statuses and the text summaries.
Tiny specs and few steps: each test runs in a few seconds."""
import json
from pathlib import Path

import numpy as np
import pytest

from theorykit.cli import main
from _specs import XOR_TOML

EX = Path(__file__).resolve().parent.parent / "examples"
XOR = str(EX / "xor_linear.toml")           # lr 0.01, mean loss, a0 0.001, steps 3000, two pathways of 64
XOR_RELN = str(EX / "xor_reln.toml")        # four point pathways, lr 0.01, a0 0.001

# examples/xor_linear.toml at Δ = 1/2 (docs/theory.md#xor): each pathway has s = Δ/2 = 1/4 and
# d = Δ²/2 = 1/8. The mean loss with no network is ½·Σy²/P = ½, and a mode of strength a lowers it
# by s·a − d·a²/2; from the aligned start a = a0 = 1e-3 in both pathways:
# L(0) = ½ − 2·(1e-3/4 − 1e-6/16) = 0.499500125.
XOR_L0 = 0.5 - 2 * (1e-3 / 4 - 1e-6 / 16)


def _err(capsys, field):
    err = capsys.readouterr().err
    assert f"error in {field}:" in err, err
    return err


@pytest.fixture
def terminal(monkeypatch):
    from theorykit.analysis import summary

    monkeypatch.setattr(summary, "stdout_is_terminal", lambda: True)


# ------------------------------------------------------------------------------------------
# derive: defaults and JSON fields
# ------------------------------------------------------------------------------------------
def test_derive_without_times_gives_the_closed_form_at_eleven_default_times(tmp_path):
    """Closed form: the loss curve costs nothing, so it is in the JSON without --times, at 11 times
    from 0 to training.steps = 3000 (0, 300, ..., 3000). a0, τ = 1/η = 100 (mean loss,
    docs/specs.md) and the loss kind are the spec's."""
    out = tmp_path / "d.json"
    assert main(["derive", XOR, "--set", "Delta=0.5", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["loss"]["t"] == [300 * i for i in range(11)]
    assert res["loss"]["value"][0] == pytest.approx(XOR_L0, rel=1e-12)
    assert res["a0"] == 0.001 and res["tau"] == pytest.approx(100) and res["loss_kind"] == "mean"


def test_derive_sum_loss_is_reported_with_its_tau(tmp_path):
    """docs/specs.md: loss = "sum" has τ = 1/(P η) = 1/(4 · 0.01) = 25 steps."""
    spec = tmp_path / "s.toml"
    spec.write_text(Path(XOR).read_text().replace('loss = "mean"', 'loss = "sum"'))
    out = tmp_path / "d.json"
    assert main(["derive", str(spec), "--set", "Delta=0.5", "--times", "0", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["loss_kind"] == "sum" and res["tau"] == pytest.approx(25)


def test_derive_plot_asks_for_the_race_curve(tmp_path):
    """derive.py: 'a loss curve is integrated only for --times or --plot': with --plot alone the race
    reduction of contexts_double (coupled pathways) is integrated at the default times, 11 from 0 to
    training.steps = 4000, and the JSON has it; without either it has none."""
    out, png = tmp_path / "d.json", tmp_path / "d.png"
    spec = str(EX / "contexts_double.toml")
    assert main(["derive", spec, "--json", str(out)]) == 0
    assert json.loads(out.read_text())["loss"] is None
    assert main(["derive", spec, "--plot", str(png), "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["method"] == "race-reduction" and res["loss"]["t"] == [400 * i for i in range(11)]
    assert png.exists()


# ------------------------------------------------------------------------------------------
# --times
# ------------------------------------------------------------------------------------------
def test_times_lie_between_0_and_1e12_inclusive(tmp_path, capsys):
    """'times must be numbers between 0 and 1e+12': both ends are allowed. At t = 1e12 each XoR pathway
    has reached a = s/d and removed s²/(2d) = (1/16)/(1/4) = 1/4 of the loss: L = ½ − 2/4 = 0."""
    out = tmp_path / "d.json"
    assert main(["derive", XOR, "--set", "Delta=0.5", "--times", "0,1e12", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["loss"]["t"] == [0, 1e12]
    assert res["loss"]["value"] == [pytest.approx(XOR_L0, rel=1e-12), pytest.approx(0, abs=1e-12)]
    for bad in ("-1", "0,1.5e12"):
        assert main(["derive", XOR, "--set", "Delta=0.5", "--times", bad]) == 2
        _err(capsys, "--times")


def test_blank_items_of_a_list_are_skipped_as_in_grid(tmp_path):
    """--times and --grid read comma-separated lists alike: a trailing comma adds no item
    (parse_grid's 'v1,v2,...' skips blank items; --times 0,300, is the two times 0 and 300)."""
    from theorykit.analysis.sweep import parse_grid
    from theorykit.spec.files import load_spec

    assert parse_grid(["lr=0.01,"], load_spec(XOR).task.symbols) == {"lr": [0.01]}
    out = tmp_path / "d.json"
    assert main(["derive", XOR, "--set", "Delta=0.5", "--times", "0,300,", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["loss"]["t"] == [0, 300]


# ------------------------------------------------------------------------------------------
# simulate: defaults, weight files, --compare
# ------------------------------------------------------------------------------------------
def test_simulate_defaults_are_4_seeds_and_the_specs_steps(tmp_path):
    """--help: --seeds defaults to 4, --steps to training.steps (3000 here), --times to 11 times from 0
    to the steps. The aligned start is the theory's: L(0) as worked out above, every seed alike."""
    out = tmp_path / "s.json"
    assert main(["simulate", XOR, "--set", "Delta=0.5", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["seeds"] == 4 and res["steps"] == 3000 and res["init"] == "aligned"
    assert res["loss"]["t"] == [300 * i for i in range(11)]
    assert res["loss"]["mean"][0] == pytest.approx(XOR_L0, rel=1e-12) and res["loss"]["std"][0] == 0


@pytest.mark.parametrize("command", ["simulate", "check"])
def test_zero_seeds_is_refused(capsys, command):
    """--seeds: 'a positive integer'."""
    assert main([command, XOR, "--set", "Delta=0.5", "--steps", "5", "--seeds", "0"]) == 2
    _err(capsys, "--seeds")


def test_weight_file_seed_axis_sets_the_seed_count(tmp_path):
    """--help: 'with --init-weights, the file's number of seeds' is the default of --seeds; the JSON's
    init names the file. A file with 3 seeds (the leading axis) and no --seeds trains 3 networks."""
    H = 128                                     # xor_linear: 64 + 64 hidden units, 3 inputs, 1 output
    rng = np.random.default_rng(1)
    w = tmp_path / "w.npz"
    np.savez(w, W1=0.01 * rng.standard_normal((3, H, 3)), W2=0.01 * rng.standard_normal((3, 1, H)))
    out = tmp_path / "s.json"
    assert main(["simulate", XOR, "--set", "Delta=0.5", "--network", "relu", "--init-weights", str(w),
                 "--steps", "2", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["seeds"] == 3 and res["init"] == str(w)
    assert res["loss"]["std"][0] > 0           # three different starts


def _xor_reln(t, s, d, a0=1e-3, lr=0.01):
    """The four-pathway XoR ReLN (mean loss, τ = 1/η) by hand, as in tests/test_cli.py: gradient
    descent a ← a (1 + (s − d a)/τ)² and the logistic flow, L = ½ − 4 (s a − d a²/2)."""
    tau, a, disc = 1 / lr, a0, {}
    for step in range(int(max(t)) + 1):
        disc[step] = 0.5 - 4 * (s * a - d * a * a / 2)
        a = a * (1 + (s - d * a) / tau) ** 2
    tt = np.asarray(t, float)
    af = (s / d) / (1 + (s / (d * a0) - 1) * np.exp(-2 * s * tt / tau))
    return disc, 0.5 - 4 * (s * af - d * af ** 2 / 2)


def test_compare_error_is_a_share_of_the_initial_loss(tmp_path):
    """max_abs_error_over_initial_loss divides by L(0), the loss at step 0, even when --times does
    not ask for step 0 (at Δ = 1: s = √3/4, d = 3/4, L(0) = ½ − √3·1e-3 + 1.5e-6)."""
    out = tmp_path / "s.json"
    assert main(["simulate", XOR_RELN, "--set", "Delta=1", "--seeds", "1", "--steps", "400", "--times", "200,400",
                 "--compare", "--json", str(out)]) == 0
    disc, flow = _xor_reln([200, 400], np.sqrt(3) / 4, 3 / 4)
    L0 = 0.5 - np.sqrt(3) * 1e-3 + 1.5e-6
    assert disc[0] == pytest.approx(L0, rel=1e-12)
    gap = max(abs(disc[200] - flow[0]), abs(disc[400] - flow[1])) / L0
    res = json.loads(out.read_text())
    assert res["theory"]["max_abs_error_over_initial_loss"] == pytest.approx(gap, rel=1e-6)


# ------------------------------------------------------------------------------------------
# the size check: --time-limit, THEORYKIT_MAX_SECONDS, memory, the field named
# ------------------------------------------------------------------------------------------
def test_time_limit_must_be_positive(capsys):
    """--time-limit SECONDS: a negative time limit would refuse everything; it is itself refused (0, as
    predict's --time-limit 0, is no limit: tests/test_small_fixes_rules.py)."""
    assert main(["check", XOR, "--time-limit", "-0.5"]) == 2
    _err(capsys, "--time-limit")


def test_max_seconds_from_the_environment_and_the_option_over_it(capsys, monkeypatch):
    """--help: '(default 3600, or the environment variable THEORYKIT_MAX_SECONDS)': the variable
    replaces the default, --time-limit replaces both. Any run takes more than 1 ns."""
    monkeypatch.setenv("THEORYKIT_MAX_SECONDS", "1e-9")
    assert main(["check", XOR]) == 2
    assert "over the time limit" in capsys.readouterr().err
    assert main(["check", XOR, "--time-limit", "3600"]) == 0


@pytest.mark.parametrize("command", ["check", "simulate"])
def test_memory_check_names_the_option_or_the_field_that_set_the_steps(tmp_path, capsys, monkeypatch, command):
    """docs/specs.md: the loss history alone is seeds × (steps + 1) numbers, 8 bytes each in float64:
    1 seed × 1e6 steps ≥ 8 MB, over a 1 MB limit. The error names --steps when the option set the steps
    and training.steps when the spec did (check estimates the simulation as simulate runs it)."""
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1e6")
    assert main([command, XOR, "--set", "Delta=0.5", "--seeds", "1", "--steps", "1000000"]) == 2
    assert "memory" in _err(capsys, "--steps")
    spec = tmp_path / "s.toml"
    spec.write_text(Path(XOR).read_text().replace("steps = 3000", "steps = 1000000"))
    assert main([command, str(spec), "--set", "Delta=0.5", "--seeds", "1"]) == 2
    assert "memory" in _err(capsys, "training.steps")


def test_time_check_of_a_graph_names_the_steps_or_the_seeds(capsys):
    """The time limit's error names the field to lower and how far (limits._pick): for a graph spec
    (section6_paper: 30000 steps, 15 edges) the steps or the seeds, as for a pathway spec (a graph's
    costs sit on its edges and nodes, and were left out of the steps' and seeds' share: the error
    named a node's width). The number it gives is the largest that fits: the estimate at it is under
    the limit, one more is over (the per-step overhead grows with the steps, not with the seeds)."""
    import re

    from theorykit.spec.files import load_spec
    from theorykit.spec.limits import SIM_STARTUP, simulation_estimate

    path = str(EX / "section6_paper.toml")
    s6 = load_spec(path)

    def est(steps, seeds):      # the command's estimate: the run's and its start-up (since 2026-11-30)
        return simulation_estimate(s6, steps=steps, seeds=seeds).seconds + SIM_STARTUP

    for opts, fld, steps, seeds in (([], "training.steps", 30000, 2), (["--steps", "30000"], "--steps", 30000, 2),
                                    (["--steps", "3000"], "--seeds", 3000, 64)):
        limit = 0.5 * est(steps, seeds)
        assert main(["check", path, "--seeds", str(seeds), *opts, "--time-limit", str(limit)]) == 2
        err = _err(capsys, fld)
        n = int(re.search(rf"lower {re.escape(fld)} from \d+ to at most (\d+)", err).group(1))
        if fld == "--seeds":
            assert est(steps, n) <= limit < est(steps, n + 1)
        else:
            assert est(n, seeds) <= limit < est(n + 1, seeds)


# ------------------------------------------------------------------------------------------
# check's summary
# ------------------------------------------------------------------------------------------
def test_check_summary_reads_the_spec_and_the_defaults(capsys):
    """xor_linear: pathway positive is on datapoints 1 and 2 of 4 (active = [1, 1, 0, 0]); a simulation
    as simulate would run it: 4 seeds, training.steps = 3000, float64. The --force note only with --force."""
    assert main(["check", XOR]) == 0
    out = capsys.readouterr().out
    assert "positive: on 2/4 datapoints" in out and "negative: on 2/4 datapoints" in out
    assert "(gdln, 4 seeds, 3000 steps, float64)" in out and "--force" not in out
    assert main(["check", XOR, "--force"]) == 0
    assert "(--force: time limit lifted)" in capsys.readouterr().out


def _estimated_derivation_line(out):
    line = next(ln for ln in out.splitlines() if ln.startswith("estimated derivation:"))
    return line


def test_check_estimates_the_race_curve_only_with_times(capsys):
    """check's docstring and docs/specs.md: the derivation's loss curve is estimated only with --times,
    as derive integrates it; for a coupled spec (race reduction) the estimate with it is larger."""
    from theorykit.spec.files import load_spec
    from theorykit.spec.limits import derivation_estimate

    spec = str(EX / "contexts_double.toml")
    assert main(["check", spec]) == 0
    without = _estimated_derivation_line(capsys.readouterr().out)
    assert main(["check", spec, "--times", "0,1000"]) == 0
    with_times = _estimated_derivation_line(capsys.readouterr().out)
    s = load_spec(spec)
    assert derivation_estimate(s, horizon=1000.0).seconds > derivation_estimate(s).seconds
    assert with_times != without
    assert with_times == "estimated derivation: " + derivation_estimate(s, horizon=1000.0).summary()


# ------------------------------------------------------------------------------------------
# output paths are checked before anything is written
# ------------------------------------------------------------------------------------------
def test_missing_folders_of_an_output_are_made(tmp_path):
    """check_outputs: 'missing folders are made on writing': a --json two new folders deep is written."""
    out = tmp_path / "a" / "b" / "d.json"
    assert main(["derive", XOR, "--set", "Delta=0.5", "--times", "0", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["loss"]["t"] == [0]


def test_an_unwritable_folder_is_refused_before_anything_is_written(tmp_path, capsys, monkeypatch):
    """A folder one cannot write in (os.access says no; the tests may run as root, who can write
    anywhere) is refused naming the option, before --latex is written."""
    from theorykit.cli import common

    monkeypatch.setattr(common.os, "access", lambda *a, **k: False)
    tex, out = tmp_path / "d.tex", tmp_path / "d.json"
    assert main(["derive", XOR, "--set", "Delta=0.5", "--latex", str(tex), "--json", str(out)]) == 2
    assert "not writable" in _err(capsys, "--latex")
    assert sorted(tmp_path.iterdir()) == []


def test_derive_checks_the_plot_path_before_writing_latex(tmp_path, capsys):
    (tmp_path / "o.txt").write_text("")
    tex = tmp_path / "l.tex"
    assert main(["derive", XOR, "--set", "Delta=0.5", "--latex", str(tex), "--plot", str(tmp_path / "o.txt" / "p.png")]) == 2
    _err(capsys, "--plot")
    assert not tex.exists()


def test_simulate_checks_the_plot_path_before_training(tmp_path, capsys, monkeypatch):
    """A --plot path under a file is refused before the networks are trained (the trainer is never called)."""
    from theorykit.cli import simulate as cmd

    called = []
    monkeypatch.setattr(cmd, "simulate", lambda *a, **k: called.append(1) or pytest.fail("trained"))
    (tmp_path / "o.txt").write_text("")
    assert main(["simulate", XOR, "--set", "Delta=0.5", "--steps", "5", "--seeds", "1",
                 "--plot", str(tmp_path / "o.txt" / "p.png")]) == 2
    _err(capsys, "--plot")
    assert called == []


def test_json_dash_writes_no_file(tmp_path, monkeypatch, capsys):
    """--json -: 'to stdout' -- no file named '-' appears."""
    monkeypatch.chdir(tmp_path)
    assert main(["derive", XOR, "--set", "Delta=0.5", "--times", "0", "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["loss"]["t"] == [0]
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------------------------
# sweep
# ------------------------------------------------------------------------------------------
def test_sweep_defaults_to_4_seeds(tmp_path):
    """--help: --seeds 'seeds per (symbol point, learning rate) (default 4)': one point, the spec's lr,
    4 members."""
    out = tmp_path / "sw"
    assert main(["sweep", XOR, "--grid", "Delta=0.5", "--steps", "5", "--no-progress", "--out", str(out)]) == 0
    js = json.loads((out / "sweep.json").read_text())
    assert js["seeds"] == 4 and js["members"] == 4 and js["steps"] == 5


def test_sweep_size_check_counts_every_seed(tmp_path, capsys, monkeypatch):
    """Every member (grid point × lr × seed) is one network: 4 seeds × (1e6 + 1) loss values × 8 bytes
    ≥ 32 MB, over a 30 MB limit, whatever one member needs; refused before the sweep runs."""
    from theorykit.cli import sweep as cmd

    called = []
    monkeypatch.setattr(cmd, "run_sweep", lambda *a, **k: called.append(k["seeds"]) or pytest.fail("ran"))
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "30e6")
    out = tmp_path / "sw"
    assert main(["sweep", XOR, "--grid", "Delta=0.5", "--seeds", "4", "--steps", "1000000", "--no-progress",
                 "--out", str(out)]) == 2
    assert "memory" in capsys.readouterr().err and called == [] and not out.exists()


def test_a_grid_range_of_one_point_is_its_start():
    """START:STOP:COUNT is numpy's linspace: COUNT 1 is the one point START."""
    from theorykit.analysis.sweep import parse_grid
    from theorykit.spec.files import load_spec

    assert parse_grid(["Delta=0.5:2:1"], load_spec(XOR).task.symbols) == {"Delta": [0.5]}


def test_a_chunk_file_holding_other_members_is_run_again(tmp_path):
    """load_chunks: a chunk file whose members are not chunk i's is left out, to be run again. 2 points ×
    2 seeds in chunks of 2: chunk 1 replaced by a copy of chunk 0 is recomputed, and the result equals
    the first run's."""
    import shutil

    from theorykit.analysis.sweep import parse_grid, run_sweep
    from theorykit.spec.files import load_spec

    spec = load_spec(XOR)
    grid = parse_grid(["Delta=0.5,1"], spec.task.symbols)
    out = tmp_path / "sw"
    first = run_sweep(spec, grid, seeds=2, steps=5, out=out, chunk=2, progress=False)
    shutil.copy(out / "chunks" / "chunk_00000.npz", out / "chunks" / "chunk_00001.npz")
    again = run_sweep(spec, grid, seeds=2, steps=5, out=out, chunk=2, progress=False)
    assert again["chunks_computed"] == [1]
    np.testing.assert_array_equal(again["loss"], first["loss"])


# ------------------------------------------------------------------------------------------
# exit statuses (cli/__init__.py: 0 ok, 2 a bad input or a refused run, 70 a bug; 130 = 128 + SIGINT)
# ------------------------------------------------------------------------------------------
def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "usage: theorykit" in capsys.readouterr().out


@pytest.mark.parametrize("exc, status", [(RuntimeError("boom"), 70), (KeyboardInterrupt(), 130)])
def test_a_bug_exits_70_and_an_interrupt_130(capsys, monkeypatch, exc, status):
    from theorykit.cli import check

    def run(args):
        raise exc

    monkeypatch.setattr(check, "run", run)
    assert main(["check", XOR]) == status
    err = capsys.readouterr().err
    assert ("internal error" in err and "boom" in err and "--debug" in err) if status == 70 else "interrupted" in err


# ------------------------------------------------------------------------------------------
# derive's text summary
# ------------------------------------------------------------------------------------------
def test_summary_counts_the_datapoints_a_pathway_is_on(terminal, capsys):
    """xor_reln: each of the four pathways is on for one datapoint of four."""
    assert main(["derive", XOR_RELN, "--set", "Delta=1"]) == 0
    out = capsys.readouterr().out
    assert out.count("active on 1/4 datapoints") == 4


@pytest.mark.parametrize("n, shown, more", [(5, 5, None), (6, 4, 2)])
def test_summary_shows_four_modes_or_all_when_one_more(tmp_path, terminal, capsys, n, shown, more):
    """derive_text: at most 4 modes of a pathway, but a fifth is shown rather than '1 more'. One pathway
    on X = I_n, Y = diag(n, ..., 1): n modes with s_i = (n + 1 - i)/n."""
    X = [[1 if i == j else 0 for j in range(n)] for i in range(n)]
    Y = [[n - i if i == j else 0 for j in range(n)] for i in range(n)]
    spec = tmp_path / "m.toml"
    spec.write_text(f"[data]\ninputs = {X}\ntargets = {Y}\n[[pathways]]\nname = \"a\"\nactive = \"all\"\n")
    assert main(["derive", str(spec)]) == 0
    out = capsys.readouterr().out
    assert f"mode {shown}:" in out and f"mode {shown + 1}:" not in out
    assert (f"… {more} more modes" in out) if more else ("more modes" not in out)


# ------------------------------------------------------------------------------------------
# predict, compare, race-exhaust, find-gates: option bounds
# ------------------------------------------------------------------------------------------


def test_predict_time_bound_0_means_no_bound(tmp_path):
    """--help: '(default 60; 0: no bound)'."""
    spec, out = tmp_path / "x.toml", tmp_path / "p.toml"
    spec.write_text(XOR_TOML)
    assert main(["predict", str(spec), "--hidden", "8", "--set", "Delta=1", "--time-limit", "0", "--no-progress",
                 "--out", str(out)]) == 0
    assert out.exists()


def test_compare_refuses_a_zero_learning_rate(tmp_path, capsys):
    """compare --lr: 'a number from 1e-12 to 1000'; 0 is refused before any comparison."""
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "data.npz", X=np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]]),
             Y=np.array([[1.0, 1, -1, -1]]))
    for s in (0, 10):
        np.savez(tmp_path / f"step_{s}.npz", W1=0.1 * rng.standard_normal((4, 3)), W2=0.1 * rng.standard_normal((1, 4)))
    out = tmp_path / "cmp"
    assert main(["compare", XOR, "--checkpoints", str(tmp_path / "step_*.npz"), "--data", str(tmp_path / "data.npz"),
                 "--lr", "0", "--out", str(out)]) == 2
    _err(capsys, "--lr")
    assert not out.exists()


def test_race_exhaust_divergence_names_a0_first(tmp_path, capsys):
    """a0 = 100 makes the race blow up (tests/test_cli_review.py); given with --gamma at the paper's
    1.1, the error still names --a0, the first of the options given that drive it."""
    out = tmp_path / "re"
    assert main(["race-exhaust", "--k", "3", "--steps", "2000", "--no-progress", "--out", str(out),
                 "--gamma", "1.1", "--a0", "100"]) == 2
    assert "diverged" in _err(capsys, "--a0")
    assert not out.exists()


def test_find_gates_refuses_zero_seeds(tmp_path, capsys):
    """find-gates --seeds: 'ReLU trainings (default 4)'; 0 trainings cannot find gates."""
    out = tmp_path / "f.toml"
    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", "--K", "2", "--seeds", "0", "--steps", "50",
                 "--no-progress", "--out", str(out)]) == 2
    _err(capsys, "--seeds")
    assert not out.exists()


@pytest.mark.parametrize("bad", ["--json", "--out"])
def test_predict_checks_both_output_paths_before_predicting(tmp_path, capsys, monkeypatch, bad):
    """An error leaves no file behind (tests/test_cli_review.py): a --json path under the file o.txt
    cannot be written, so --out is not written either, and the prediction is never run; the error
    names the option. Before: PRED.toml was written, then --json failed naming only the path."""
    from theorykit.cli import predict as cmd

    monkeypatch.setattr(cmd, "predict_reln", lambda *a, **k: pytest.fail("predicted"))
    spec = tmp_path / "x.toml"
    spec.write_text(XOR_TOML)
    (tmp_path / "o.txt").write_text("")
    paths = {"--out": tmp_path / "p.toml", "--json": tmp_path / "p.json"}
    paths[bad] = tmp_path / "o.txt" / "x"
    assert main(["predict", str(spec), "--hidden", "8", "--set", "Delta=1", "--no-progress",
                 "--out", str(paths["--out"]), "--json", str(paths["--json"])]) == 2
    _err(capsys, bad)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.txt", "x.toml"]


@pytest.mark.parametrize("form", ["task", "run"])
def test_find_gates_checks_its_output_path_before_training(tmp_path, capsys, monkeypatch, form):
    """find-gates checked --out only after training (the time was spent, and the error named the
    path, not the option). Both forms, a built-in task and an imported run, now refuse at once."""
    from theorykit.cli import find_gates as cmd

    monkeypatch.setattr(cmd, "find_gates", lambda *a, **k: pytest.fail("trained"))
    monkeypatch.setattr(cmd, "find_gates_in_run", lambda *a, **k: pytest.fail("trained"))
    (tmp_path / "o.txt").write_text("")
    out = str(tmp_path / "o.txt" / "found.toml")
    args = (["xor-margin", "--set", "Delta=0.5", "--K", "2"] if form == "task" else
            ["--checkpoints", str(tmp_path / "none_*.npz"), "--data", str(tmp_path / "none.npz")])
    assert main(["find-gates", *args, "--no-progress", "--out", out]) == 2
    _err(capsys, "--out")


def test_derive_plot_says_when_it_shows_only_the_start(tmp_path, capsys):
    """derive --plot with --times ending before the loss halves: a note names it; with --times reaching
    past it, no note. By hand (docs/theory.md#closed-form, #mode-loss): XoR's four pathways at Δ = 1/2
    have s = √2.25/4 = 0.375, d = 2.25/4 = 0.5625; with x = a d/s a mode removes the share 2x − x² of
    its loss, a half at x = 1 − 1/√2; from x0 = a0 d/s = 0.0015 (a0 = 1e-3) the logistic reaches it at
    t = τ/(2s) ln((1/x0 − 1)/(1/x − 1)) = (100/0.75) ln(665.7/2.414) ≈ 749 steps (τ = 1/0.01)."""
    spec = str(Path(__file__).resolve().parents[1] / "examples" / "xor_reln.toml")
    assert main(["derive", spec, "--set", "Delta=0.5", "--times", "0,10,100", "--plot", str(tmp_path / "a.png")]) == 0
    assert "--plot: the loss has not halved by step 100" in capsys.readouterr().err
    assert main(["derive", spec, "--set", "Delta=0.5", "--times", "0,1000,3000", "--plot", str(tmp_path / "b.png")]) == 0
    assert "has not halved" not in capsys.readouterr().err
