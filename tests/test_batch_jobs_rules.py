"""Rules that came from a cluster batch-job user (SLURM-style): stdout and stderr are files, not
terminals; a job's time limit sends SIGTERM and, a grace period later, SIGKILL; long runs record
their curves with ``SaveAt(every=...)``. Tiny sizes; a subprocess where a signal or a log file is
the point. No timing assertions (a subprocess limit is a hang detector only)."""
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from _signals import SPIN, signalled_after, stuck
from theorykit.errors import SpecError
from theorykit.record import SaveAt

EX = os.path.join(os.path.dirname(__file__), "..", "examples")
XOR = os.path.join(EX, "xor_linear.toml")


# ------------------------------------------------------------------------------------------
# SaveAt(every=...): a tiny or huge grid is theorykit's own error on save.every
# ------------------------------------------------------------------------------------------
# Before: SaveAt(every=1e-300).times(1000) asked numpy for 1000 / 1e-300 = 1e303 recording times and
# stopped with numpy's "ValueError: Maximum allowed size exceeded" (every=1e-10: a MemoryError for
# 73 TiB; every=5e-324: OverflowError "cannot convert float infinity to integer"), naming no field.
# Now a SpecError on save.every that says how many times that is and suggests a larger every.
@pytest.mark.parametrize("every, t_end", [(1e-300, 1000), (1e-10, 1000), (5e-324, 1), (1.0, 1e300)])
def test_a_grid_of_too_many_recording_times_is_refused_on_save_every(every, t_end):
    with pytest.raises(SpecError, match="recording times") as exc:
        SaveAt(every=every).times(t_end)
    assert exc.value.field == "save.every"
    assert "larger every" in exc.value.fix


def test_a_race_with_a_tiny_every_is_refused_on_save_every():
    """The same through RaceSystem.solve (the flow's own grid), before any work."""
    import theorykit as tk
    from theorykit.theory.race import RaceSystem

    race = RaceSystem.from_spec(tk.load_spec(XOR), values={"Delta": 0.5})
    with pytest.raises(SpecError) as exc:
        race.solve(SaveAt(every=1e-300), t_end=100)
    assert exc.value.field == "save.every"


def test_whole_steps_with_an_every_below_one_record_every_step():
    """The trainer's grid is of whole steps: each step k lies within every/2 < 1/2 of a multiple of
    every (every < 1), so every step 0..t_end is recorded -- as every=1 records them (hand count:
    t_end + 1 steps). every=1e-300 used to stop as above; 0.5 gave the same steps already."""
    for every in (1e-300, 1e-9, 0.5, 1):
        np.testing.assert_array_equal(SaveAt(every=every).times(10, integer=True), np.arange(11))
    # a grid that is not tiny is as before: 0, 2.3, 4.6, … below 115000, then 115000 (50000 + 1 times)
    ts = SaveAt(every=2.3).times(115000)
    assert ts.size == 50001 and ts[-1] == 115000 and math.isclose(ts[-2], 49999 * 2.3)
    # a huge every: t = 0 and the end
    np.testing.assert_array_equal(SaveAt(every=1e300).times(1000), [0.0, 1000.0])


# ------------------------------------------------------------------------------------------
# SIGTERM (a job's time limit) while the main thread is inside a long computation
# ------------------------------------------------------------------------------------------
# Python runs a signal handler only between bytecodes of the main thread, and a process still waits,
# on its way out, for a JAX computation it started. Measured before the fix (2-core CPU):
# `theorykit simulate examples/xor_linear.toml --set Delta=0.5 --steps 6000000 --seeds 4 --force`
# sent SIGTERM 10 s in exited 143 only 60 s later -- past a job's grace period (SLURM: 30 s), so the
# job's SIGKILL ended it first, with no clean-up and no word. Now a watchdog thread, woken by the
# signal itself (signal.set_wakeup_fd), ends the process TERM_GRACE_SECONDS (0.5 here) later when
# the handler has not run; a command that did end by SIGTERM ends the process at once. The subprocess
# limit (60 s) is a hang detector, not a timing assertion.
posix = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

STUCK = stuck("SIGTERM")      # one long call not Python's; SPIN: a compiled JAX loop (tests/_signals.py)


def _terminated_while(compute, code, tmp_path):
    """Run ``code`` with ``compute`` defined; SIGTERM it once it says "computing"; its status, stderr."""
    head = ("import signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "import theorykit.cli\ntheorykit.cli.TERM_GRACE_SECONDS = 0.5\n")
    return signalled_after(head + textwrap.dedent(compute) + textwrap.dedent(code), "computing", tmp_path)


WRITE = """
    import theorykit.io as io
    import theorykit.cli.check as command

    def run(args):
        io.os.fsync = lambda fd: compute()      # inside the write: its temporary file exists
        io.atomic_write_text("r.json", '{"new": true}\\n')
        return 0

    command.run = run
    sys.exit(theorykit.cli.main(["check", "spec.toml"]))
"""


@posix
@pytest.mark.parametrize("compute", [STUCK, SPIN], ids=["one-long-call", "jax-loop"])
def test_sigterm_inside_a_long_computation_while_writing_removes_the_temporary_file_and_exits_143(
        tmp_path, compute):
    """The result being written is not committed and its temporary file goes; the old result is kept;
    one line, status 143 (docs/cli.md: "143 terminated … cleaned up as for Ctrl-C")."""
    (tmp_path / "r.json").write_text('{"old": true}\n')
    status, said = _terminated_while(compute, WRITE, tmp_path)
    assert status == 143, said
    assert said == ["theorykit: terminated"]
    assert sorted(os.listdir(tmp_path)) == ["r.json"]                  # no .tk<pid>-….tmp left
    assert (tmp_path / "r.json").read_text() == '{"old": true}\n'      # the old result kept


@posix
def test_sigterm_inside_a_long_computation_of_a_suite_leaves_no_staging_folder(tmp_path):
    """validate: a suite inside one long call when SIGTERM comes leaves no OUT/.staging/<suite>/ (its
    half-made figure), as an interrupt between bytecodes does (test_interrupted_user_rules)."""
    status, said = _terminated_while(STUCK, """
        from theorykit.suites import load_suite

        def run(out, mode, progress=True):
            (out / "half_made_figure.png").write_bytes(b"\\x89PNG half")
            compute()

        load_suite("lemmas").run = run
        sys.exit(theorykit.cli.main(["validate", "lemmas", "--quick", "--no-progress", "--out", "res"]))
        """, tmp_path)
    assert status == 143, said
    assert said == ["theorykit: terminated"]
    res = tmp_path / "res"
    assert sorted(str(p.relative_to(res)) for p in res.rglob("*") if p.is_file()) == []
    assert not (res / ".staging").exists() or not list((res / ".staging").glob("lemmas*"))


# ------------------------------------------------------------------------------------------
# Ctrl-C or SIGTERM that lands in the trainer's progress callback
# ------------------------------------------------------------------------------------------
# The trainer reports its steps from the running program (jax.debug.callback), and JAX runs that
# callback in the main thread, where a signal's KeyboardInterrupt is raised as often as not. JAX
# turned it into its own JaxRuntimeError ("CpuCallback error calling callback: … KeyboardInterrupt"),
# so that Ctrl-C during `theorykit simulate … --steps 6000000` was (2 of 4 tries) "theorykit:
# internal error (a bug in theorykit, please report it): JaxRuntimeError: …" over several lines,
# status 70, after JAX had logged the traceback; SIGTERM the same. Now the interrupt is raised as itself.
def test_an_interrupt_in_the_progress_callback_is_an_interrupt_not_a_jax_error():
    import jax.numpy as jnp

    from theorykit.cli import Terminated        # SIGTERM, a KeyboardInterrupt too
    from theorykit.sim.engine import train

    def on_step(done):
        raise Terminated()

    with pytest.raises(Terminated):
        train(lambda p, d: jnp.sum(p["w"] ** 2), {"w": jnp.ones((2, 3))}, None, lr=0.1, steps=10,
              on_step=on_step)


def test_an_interrupt_jax_caught_around_a_callback_is_raised_as_that_interrupt():
    """The signal may land in JAX's own code around the callback, which reports it in its error's
    text only: the interrupt's kind is read from that (KeyboardInterrupt, or a subclass by name);
    another error of a callback stays JAX's error."""
    import jax

    from theorykit.cli import Terminated
    from theorykit.sim.engine import _interrupt_reported

    def error_of(exc_type):
        def cb(x):
            raise exc_type()
        try:
            jax.jit(lambda x: (jax.debug.callback(cb, x), x + 1)[1])(1.0).block_until_ready()
        except Exception as exc:
            return exc
        raise AssertionError("the callback's error did not stop the program")

    assert type(_interrupt_reported(error_of(KeyboardInterrupt))) is KeyboardInterrupt
    assert type(_interrupt_reported(error_of(Terminated))) is Terminated
    assert _interrupt_reported(error_of(ValueError)) is None
    assert _interrupt_reported(ValueError("KeyboardInterrupt")) is None


def test_simulate_interrupted_in_its_progress_callback_says_interrupted_in_one_line(tmp_path, monkeypatch, capsys):
    import theorykit.cli.simulate as command
    from theorykit.cli import main
    from theorykit.progress import Progress

    class Bar(Progress):
        def update(self, k=1, note=""):
            raise KeyboardInterrupt             # Ctrl-C as the trainer reports its first steps

    monkeypatch.setattr(command, "Progress", Bar)
    status = main(["simulate", XOR, "--set", "Delta=0.5", "--steps", "200", "--seeds", "1",
                   "--json", str(tmp_path / "s.json")])
    assert status == 130
    said = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert said == ["theorykit: interrupted"]       # no JAX traceback logged before it
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------------------------------------
# progress on a batch job's log (stderr a file, not a terminal)
# ------------------------------------------------------------------------------------------
# Before: on a log file the progress of simulate, predict, sweep, find-gates and compare was silent
# for the whole run (the bar is shown on a terminal only), so a job hours long showed nothing until
# it ended; race-exhaust wrote tqdm's bar as it is, a "\r" update per batch in one line of the log.
# Now a log gets a plain line now and then (Progress.LOG_SECONDS, set to 0 here so that every update
# writes one; a run shorter than that writes none), with no carriage return and no escape code.
def _log_lines(path):
    text = path.read_text()
    assert "\r" not in text and "\x1b" not in text, repr(text[:300])
    return [line for line in text.splitlines() if line.strip()]


def test_race_exhaust_on_a_log_writes_lines_not_carriage_returns(tmp_path, monkeypatch):
    from theorykit.analysis.exhaust import race_exhaust
    from theorykit.progress import Progress

    monkeypatch.setattr(Progress, "LOG_SECONDS", 0.0)
    with open(tmp_path / "log", "w") as log:
        monkeypatch.setattr(sys, "stderr", log)
        race_exhaust(k=3, families=[0], steps=20, progress=True)
    # one family is one orbit raced in one batch: one update, one line, 1 of 1
    lines = _log_lines(tmp_path / "log")
    assert len(lines) == 1 and lines[0].startswith("race k=3: 1/1 (100%)"), lines


def test_simulate_on_a_log_shows_its_steps_in_plain_lines(tmp_path, monkeypatch):
    from theorykit.cli import main
    from theorykit.progress import Progress

    monkeypatch.setattr(Progress, "LOG_SECONDS", 0.0)
    with open(tmp_path / "log", "w") as log:
        monkeypatch.setattr(sys, "stderr", log)
        assert main(["simulate", XOR, "--set", "Delta=0.5", "--steps", "200", "--seeds", "1",
                     "--json", str(tmp_path / "s.json")]) == 0
    lines = _log_lines(tmp_path / "log")
    # the trainer reports every 200 // 100 = 2 steps, so the last line is at step 200 of 200
    assert lines and all(line.startswith("simulate: ") for line in lines), lines
    assert lines[-1].startswith("simulate: 200/200 (100%)"), lines


def test_a_short_run_on_a_log_or_an_in_memory_stream_writes_nothing(tmp_path):
    """With the default LOG_SECONDS (60) a run of a moment writes no line to a log; an in-memory
    stream (a test's capture) and --no-progress never get one."""
    import io

    from theorykit.progress import Progress

    with open(tmp_path / "log", "w") as log:
        with Progress("quick", 3, stream=log) as pr:
            assert pr.log and not pr.enabled
            pr.update(3)
        with Progress("off", 3, stream=log, enabled=False) as pr:
            assert not pr.log
            pr.update(3)
    assert (tmp_path / "log").read_text() == ""
    assert not Progress("memory", 3, stream=io.StringIO()).log


# ------------------------------------------------------------------------------------------
# two jobs, one --out folder
# ------------------------------------------------------------------------------------------
# Before: every run of a suite staged its figures in OUT/.staging/<suite>/ and, finding that folder,
# removed it as an interrupted run's leftover: a second job running the same suite into the same
# --out (an array job, a resubmitted one) deleted the first one's half-made figures, and the first
# then finished without them. Here job A's suite, while it runs, starts job B (another process, the
# same suite and --out). Now each process stages in a folder of its own (.staging/<suite>.<pid>), a
# running process's folder is left alone, and both figures arrive in OUT.
def test_a_second_job_of_the_same_suite_into_the_same_out_leaves_the_first_ones_figures(tmp_path, monkeypatch):
    from theorykit.suites import load_suite
    from validation import run_suites

    job_b = textwrap.dedent(f"""
        from pathlib import Path
        from theorykit.suites import load_suite
        from validation import run_suites

        def run(out, mode, progress=True):
            (out / "b.png").write_bytes(b"B")
            return {{"claims": []}}

        load_suite("lemmas").run = run
        raise SystemExit(run_suites(Path({str(tmp_path / "res")!r}), "quick", ["lemmas"], force=True, progress=False))
        """)

    def job_a(out, mode, progress=True):
        (out / "a.png").write_bytes(b"A")
        proc = subprocess.run([sys.executable, "-c", job_b], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return {"claims": []}

    monkeypatch.setattr(load_suite("lemmas"), "run", job_a)
    assert run_suites(tmp_path / "res", "quick", ["lemmas"], force=True, progress=False) == 0
    assert (tmp_path / "res" / "a.png").read_bytes() == b"A"     # A's figure, made before B ran
    assert (tmp_path / "res" / "b.png").read_bytes() == b"B"
    assert not (tmp_path / "res" / ".staging").exists()
