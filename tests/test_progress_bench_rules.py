"""Progress on long runs and the benchmark's output (a CLI craftsperson's round).

The benchmark: ``theorykit bench --json`` wrote its record with the library's ``io.write_json``
while every other command writes its results through the command line's one writer,
``cli.common.write_result`` (the same atomic write, and an unwritable path named by its option:
a full disk during the bench was reported as ``file: No space left on device``, not ``--json``).
The ok/MISMATCH verdict of the recurrence check, with its relative difference, was formatted in
three places of ``run_bench``; now one function, ``bench.verdict``, and the printed text is as it
was (docs/performance.md and docs/scaling.md quote it).
"""
from __future__ import annotations

import io
import json
import os
import sys

import pytest

import theorykit.bench as bench
import theorykit.io as tio
from theorykit.cli import main
from test_bench_rules import _stub_run_bench
from test_io import _HalfWriter         # a file object that writes half of the data, then fails as a full disk would


# --- bench: one verdict ------------------------------------------------------------------------------

def test_verdict_words_and_difference():
    # by hand: 1.234e-13 to two significant figures in e-notation is 1.2e-13; 0.034 is 3.4e-02
    assert bench.verdict(True, 1.234e-13) == "ok (1.2e-13)"
    assert bench.verdict(False, 0.034) == "MISMATCH (3.4e-02)"
    assert bench.verdict(True, 0.0) == "ok (0.0e+00)"


def test_every_recurrence_row_is_the_one_verdict(monkeypatch, capsys):
    """On a (stubbed) GPU with the fused kernel timed, run_bench prints three verdicts per dtype
    kind: the table's row, the fused kernel's line and the where-it-fits line. Each must come
    from bench.verdict (a marker put in its place shows up six times: 2 dtypes x 3 places)."""
    fused = {"status": "ok", "network_steps_per_s": 2.0, "matches_naive_recurrence": True,
             "max_rel_weight_difference": 1e-13}
    _stub_run_bench(monkeypatch, platform="gpu", fused=fused)
    monkeypatch.setattr(bench, "throughput", lambda cfg, dt, mm, mem, _t=bench.throughput: dict(
        _t(cfg, dt, mm, mem), fused_flop_per_s=1e9))
    monkeypatch.setattr(bench, "fused_where_it_fits", lambda cfg, dt: {
        "hidden": 128, "dtype": dt, "plain_network_steps_per_s": 1.0, "fused": dict(fused),
        "ratio_fused_over_plain": 2.0})
    calls = []
    monkeypatch.setattr(bench, "verdict", lambda ok, d: calls.append((ok, d)) or "<VERDICT>")
    assert bench.run_bench(quick=True) == 0
    out = capsys.readouterr().out
    assert out.count("<VERDICT>") == 6 and len(calls) == 6
    assert "MISMATCH" not in out and " ok (" not in out


def test_the_printed_verdicts_read_as_before(monkeypatch, capsys):
    """The wording the docs quote: the table row ends ``  ok (1.0e-12)`` (the stub's difference
    1e-12), the fused line ``recurrence MISMATCH (1.0e+00)``."""
    _stub_run_bench(monkeypatch, fused={"status": "ok", "network_steps_per_s": 1.0,
                                        "matches_naive_recurrence": False, "max_rel_weight_difference": 1.0})
    monkeypatch.setattr(bench, "throughput", lambda cfg, dt, mm, mem, _t=bench.throughput: dict(
        _t(cfg, dt, mm, mem), fused_flop_per_s=1e9))
    assert bench.run_bench(quick=True) == 1
    out = capsys.readouterr().out
    assert "  ok (1.0e-12)\n" in out
    assert "x the ensemble; recurrence MISMATCH (1.0e+00)\n" in out


# --- bench: its JSON through the commands' writer -----------------------------------------------------

def test_bench_json_written_by_the_commands_writer(monkeypatch, tmp_path):
    import theorykit.cli.bench as cli_bench
    import theorykit.cli.common as common

    _stub_run_bench(monkeypatch)
    seen = []
    monkeypatch.setattr(cli_bench, "write_result", lambda opt, path, text: seen.append(opt)
                        or common.write_result(opt, path, text), raising=False)
    out = tmp_path / "b.json"
    assert main(["bench", "--quick", "--json", str(out)]) == 0
    assert seen and set(seen) == {"--json"}
    data = json.loads(out.read_text())
    assert data["complete"] is True and data["mode"] == "quick"
    assert sorted(os.listdir(tmp_path)) == ["b.json"]


def test_bench_json_failing_write_leaves_no_partial_file_and_names_json(monkeypatch, tmp_path, capsys):
    """A disk that fills while bench writes its record: no file (nor temporary) is left, and the
    error names --json with the fix (write_result's), exit status 2."""
    _stub_run_bench(monkeypatch)
    real = os.fdopen
    seen = []

    def half(fd, *a, **kw):
        seen.append(fd)
        return _HalfWriter(real(fd, *a, **kw))

    monkeypatch.setattr(tio.os, "fdopen", half)
    out = tmp_path / "b.json"
    assert main(["bench", "--quick", "--json", str(out)]) == 2
    assert seen, "the record was not written through io's atomic writer: this test no longer tests it"
    err = capsys.readouterr().err
    assert "--json" in err and "No space left" in err and "give a writable path" in err
    assert os.listdir(tmp_path) == []


def test_bench_json_failing_write_keeps_the_old_file(monkeypatch, tmp_path):
    _stub_run_bench(monkeypatch)
    out = tmp_path / "b.json"
    out.write_text('{"old": true}\n')
    real = os.fdopen
    monkeypatch.setattr(tio.os, "fdopen", lambda fd, *a, **kw: _HalfWriter(real(fd, *a, **kw)))
    assert main(["bench", "--quick", "--json", str(out)]) == 2
    assert out.read_text() == '{"old": true}\n' and os.listdir(tmp_path) == ["b.json"]


def test_bench_repl_json_through_the_commands_writer(monkeypatch, tmp_path, capsys):
    import theorykit.cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "run_section", lambda baseline: {"now": {"help": 0.5}, "baseline": None})
    real = os.fdopen
    monkeypatch.setattr(tio.os, "fdopen", lambda fd, *a, **kw: _HalfWriter(real(fd, *a, **kw)))
    assert main(["bench", "--repl", "--json", str(tmp_path / "r.json")]) == 2
    assert "--json" in capsys.readouterr().err and os.listdir(tmp_path) == []
    monkeypatch.setattr(tio.os, "fdopen", real)
    assert main(["bench", "--repl", "--json", str(tmp_path / "r.json")]) == 0
    # the same bytes io.write_json writes: indented JSON and a newline
    assert (tmp_path / "r.json").read_text() == json.dumps({"now": {"help": 0.5}, "baseline": None}, indent=2) + "\n"


# --- find-gates: the training's bar, with --K too ----------------------------------------------------

class _Terminal(io.StringIO):
    """stderr as a terminal (tests/test_progress_one_way_rules.py's): the bar is drawn on it."""

    def isatty(self):
        return True


def _find_gates_run(monkeypatch, capsys, tmp_path, *extra):
    """``find-gates xor-margin --K 2`` (one network of 4 units, 100 steps) with stderr a terminal:
    (exit status, stdout, what the terminal got). The command's clock is stopped (its printed
    seconds are 0.0), so two runs' stdout can be compared byte for byte."""
    import types

    import theorykit.cli.find_gates as cmd

    monkeypatch.setattr(cmd, "time", types.SimpleNamespace(time=lambda: 0.0))
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    rc = main(["find-gates", "xor-margin", "--set", "Delta=0.5", "--K", "2", "--seeds", "1", "--hidden", "4",
               "--steps", "100", "--out", str(tmp_path / "found.toml"), *extra])
    monkeypatch.setattr(sys, "stderr", sys.__stderr__)
    return rc, capsys.readouterr().out, term.getvalue()


def test_find_gates_with_K_shows_the_trainings_progress_on_stderr_only(monkeypatch, capsys, tmp_path):
    """``find-gates contexts --K 4`` trained its ReLU networks for 22 s (shared CPU) and printed
    nothing until the end: its only bar was the elbow's, off with --K. Now the training has a bar
    of its steps (the trainer's on_step, as simulate's), on stderr; stdout is the same bytes with
    and without it."""
    pytest.importorskip("sklearn")
    rc, out, err = _find_gates_run(monkeypatch, capsys, tmp_path)
    assert rc == 0
    # 100 steps: on_step about 100 times a run, every max(1, 100 // 100) = 1 step, the last at 100
    assert "find-gates: training" in err and "100/100" in err
    assert "find-gates: training" not in out
    rc2, out2, err2 = _find_gates_run(monkeypatch, capsys, tmp_path, "--no-progress")
    assert rc2 == 0 and err2 == ""
    assert out2 == out
    assert out.startswith("find-gates: K = 2 (given), ") and "(0.0s)\n" in out


def test_find_gates_passes_on_step_to_the_relu_training(monkeypatch):
    """The library's hook: ``tk.find_gates(..., on_step=f)`` has ``f(done)`` called with the steps
    done, up to the training's steps (50 here, every step: 50 // 100 is 0, so a tick of 1)."""
    pytest.importorskip("sklearn")
    import theorykit as tk

    done = []
    tk.find_gates(tk.xor_margin(0.5), K=2, seeds=1, steps=50, hidden=4, every=25, on_step=done.append)
    assert done and done[-1] == 50 and done == sorted(done)
