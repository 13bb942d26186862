"""Progress on long runs, round 3.

1. A terminal that reports 0 rows or 0 columns (``script`` without a size, some CI and editor
   shells): tqdm read its width as ``0 - 1`` and drew nothing, so the bar vanished. Now
   ``Progress`` draws it :data:`~theorykit.progress.FALLBACK_SIZE` (80 x 24) there.
2. The trainer reported its steps every ``steps // 100`` steps, so a run of 8001 steps ended its
   bar at 8000/8001 (``theorykit find-gates``, ``simulate``). Now the last report is the final step.
"""
from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import theorykit as tk
from theorykit.progress import Progress


class ZeroTerminal(io.StringIO):
    """A terminal's stderr (isatty, a descriptor) whose size the test sets through os.get_terminal_size."""

    def isatty(self):
        return True

    def fileno(self):
        return 2


def _bar_text(monkeypatch, columns, lines, note="stage"):
    monkeypatch.setattr(os, "get_terminal_size", lambda *fd: os.terminal_size((columns, lines)))
    err = ZeroTerminal()
    # stderr itself, as a command's bar writes to it: tqdm reads the size of sys.stderr and
    # sys.stdout only (its rows too: 0 rows hid the bar as "more hidden")
    monkeypatch.setattr(sys, "stderr", err)
    with Progress("xor", 10) as bar:
        for _ in range(10):
            bar.update(1, note=note)
    return err.getvalue()


def test_a_zero_by_zero_terminal_still_shows_the_bar(monkeypatch):
    text = _bar_text(monkeypatch, 0, 0)
    last = text.strip("\n").split("\r")[-1]
    assert "xor" in last and "10/10" in last and "100%" in last
    # the fixed width: tqdm fills the line to exactly ncols characters
    assert len(last) == 80


def test_zero_rows_or_zero_columns_alone_fall_back_too(monkeypatch):
    for columns, lines in ((0, 24), (120, 0)):
        last = _bar_text(monkeypatch, columns, lines).strip("\n").split("\r")[-1]
        assert "10/10" in last and len(last) == 80, (columns, lines, last)


def test_a_terminal_with_a_size_keeps_its_width(monkeypatch):
    # tqdm's own rule: a terminal of C columns gets a bar line of C - 1 characters
    last = _bar_text(monkeypatch, 100, 30).strip("\n").split("\r")[-1]
    assert "10/10" in last and len(last) == 99


def test_the_training_reports_its_final_step():
    """201 steps: the trainer's tick is 201 // 100 = 2, so the reports were 2, 4, …, 200; the run's
    last report must be 201, the bar's total."""
    done = []
    tk.find_gates(tk.xor_margin(0.5), K=1, seeds=1, steps=201, hidden=4, every=67, on_step=done.append)
    assert done[-1] == 201
    assert done == sorted(done) and done[:3] == [2, 4, 6]


def test_the_find_gates_bar_ends_at_its_total(monkeypatch, tmp_path):
    """The command's training bar is Progress("find-gates: training", steps), advanced by on_step
    to the steps done: after the run it must stand at its total, 201 of 201."""
    import theorykit.cli.find_gates as cli_fg

    bars = []

    class Recorded(Progress):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            bars.append(self)

    monkeypatch.setattr(cli_fg, "Progress", Recorded)
    from theorykit.cli import main
    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", "--K", "1", "--steps", "201", "--seeds", "1",
                 "--hidden", "4", "--out", str(tmp_path / "found.toml")]) == 0
    training = [b for b in bars if b.label == "find-gates: training"]
    assert len(training) == 1 and training[0].total == 201 and training[0].n == 201


# --- 3. theorykit bench: a line on stderr as each part starts, the table on stdout as it was ---------

def _bench_output(monkeypatch, capsys, *flags):
    import theorykit.bench as bench
    from theorykit.cli import main
    from test_bench_rules import _stub_run_bench      # every measured part stubbed: no timing is run

    _stub_run_bench(monkeypatch)
    assert main(["bench", "--quick", *flags]) == 0
    got = capsys.readouterr()
    # the only figure that is a timing of this run: "total X s (before the scaling table)"
    out = "\n".join(line for line in got.out.splitlines() if not line.startswith("total "))
    return out, got.err, bench


def test_bench_announces_each_part_on_stderr_only(monkeypatch, capsys):
    out, err, bench = _bench_output(monkeypatch, capsys)
    lines = err.splitlines()
    assert lines and all(line.startswith("bench: ") for line in lines)
    # the parts of a CPU run, in order: derivations, matmul, stream, ReLU x 2 dtypes, GDLN x 2, race, scaling
    # (QUICK's Section 5 ks, read from the config, not from the output)
    ks = ", ".join(map(str, bench.QUICK["section5_ks"]))
    expected = [f"derivation times (XoR, Section 4, Section 5 k = {ks})", "matmul rate, float64 and float32",
                "stream rate, float64 and float32", "Section 4 ReLU ensemble and baselines, float64",
                "Section 4 ReLU ensemble and baselines, float32", "Section 6 GDLN, float64", "Section 6 GDLN, float32",
                "race engine", "derivation scaling table (a row as each case is done)"]
    assert [line[len("bench: "):line.rindex(" (")] for line in lines] == expected
    assert "bench:" not in out


def test_bench_stdout_is_the_same_with_and_without_progress(monkeypatch, capsys):
    shown, err, _ = _bench_output(monkeypatch, capsys)
    quiet, quiet_err, _ = _bench_output(monkeypatch, capsys, "--no-progress")
    assert err and quiet_err == ""
    assert shown == quiet and "Derivation time" in shown


def test_run_bench_is_quiet_on_stderr_by_default(monkeypatch, capsys):
    import theorykit.bench as bench
    from test_bench_rules import _stub_run_bench

    _stub_run_bench(monkeypatch)
    assert bench.run_bench(quick=True) == 0
    assert capsys.readouterr().err == ""


# --- 4. the tutorial's last command says how long it takes and that it shows a bar ----------------------

def test_the_tutorials_long_command_says_how_long_and_shows_a_bar():
    from theorykit.spec.files import load_spec

    root = Path(__file__).resolve().parents[1]
    text = (root / "docs" / "tutorial.md").read_text("utf-8")
    cmd = "theorykit simulate examples/section6_paper.toml --init random --seeds 2 --times 0,500,12000,30000"
    assert text.count(cmd) == 1
    after = " ".join(text.split(cmd, 1)[1].split("```", 1)[1].split())    # the text after its code block
    assert "minute" in after and "2-core CPU" in after and "bar" in after and "--no-progress" in after
    # the steps the page names are the example's own (read from the spec, not from the page)
    assert load_spec(str(root / "examples" / "section6_paper.toml")).training.steps == 30000
    assert "30,000 steps" in after


# --- 5. predict --validate: its ReLU training has a bar of its steps --------------------------------------

def test_predict_validate_shows_the_training_bar_to_its_end(monkeypatch, tmp_path):
    """The prediction's bars (patterns, racing) were there; the validation's ReLU training, the
    rest of the run, had none. 301 steps: the trainer's tick is 3, so the bar must reach 301/301."""
    import theorykit.cli.predict as cli_predict
    from theorykit.cli import main

    bars = []

    class Recorded(Progress):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            bars.append(self)

    monkeypatch.setattr(cli_predict, "Progress", Recorded, raising=False)
    xor = str(Path(__file__).resolve().parents[1] / "examples" / "xor_linear.toml")
    assert main(["predict", xor, "--hidden", "16", "--set", "Delta=0.5", "--steps", "301", "--validate",
                 "--seeds", "2", "--out", str(tmp_path / "p.toml")]) == 0
    (bar,) = [b for b in bars if b.label == "predict: validating (ReLU training)"]
    assert bar.total == 301 and bar.n == 301
