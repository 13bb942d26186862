"""Rules found by a user whose runs get interrupted (Ctrl-C on a shared server, jobs killed, two runs
into one folder, read-only or odd disks). docs/cli.md promises "130 interrupted (Ctrl-C)" and README.md
"Results are written atomically": each test sends or simulates the interrupt in a subprocess with a
tiny input and checks the exit status, the one line said, and that no result file was left behind.
No timing assertions: a signal is sent at a point the test itself chooses (a marker, a callback)."""
import os
import subprocess
import sys
import textwrap

import pytest

from _signals import WORK, dropped_in_gc, signalled_after

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")


def _python(code, tmp_path, timeout=60):
    """Run ``code`` in a fresh interpreter with SIGINT at Python's default, KeyboardInterrupt, as in a
    terminal (a background job of a shell inherits it ignored). Set by the child's first line, not by a
    ``preexec_fn``: that forces a fork of this multithreaded (JAX) process, which can deadlock."""
    head = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    return subprocess.run([sys.executable, "-c", head + textwrap.dedent(code)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=timeout)


def _said(proc):
    return [line for line in proc.stderr.splitlines() if line.strip()]


# ------------------------------------------------------------------------------------------
# Ctrl-C swallowed (the predict report)
# ------------------------------------------------------------------------------------------
# Before: `timeout -s INT 1 theorykit predict examples/predict/random_24x12.toml --hidden 64 --out p.toml`
# now and then printed "Exception ignored in: <function _xla_gc_callback …> … KeyboardInterrupt", ran to
# its end, wrote p.toml and exited 0. SIGINT raises KeyboardInterrupt wherever the main thread is; when
# that is a garbage-collector callback (JAX registers one) Python reports it as "unraisable" and drops it.
# Here the signal is delivered inside such a callback on purpose, during a command that would then
# write a file. Now: exit 130, the one line "theorykit: interrupted", and no file.
def test_a_ctrl_c_that_lands_in_a_gc_callback_still_stops_the_command(tmp_path):
    proc = _python("import gc, signal, sys\nimport theorykit.cli.check as command\n"
                   "from theorykit.io import atomic_write_text\n" + dropped_in_gc("SIGINT", WORK) +
                   "command.run = run\nfrom theorykit.cli import main\nsys.exit(main(['check', 'spec.toml']))\n",
                   tmp_path)
    assert proc.returncode == 130, proc.stderr
    assert _said(proc) == ["theorykit: interrupted"]
    assert sorted(os.listdir(tmp_path)) == []       # no result, no temporary file


# Before: a Ctrl-C that landed while JAX started its backend (between its `threading.Timer(60, warn)`
# .start() and the `try: … finally: t.cancel()` after it) printed "theorykit: interrupted" and then the
# process did not end: Python's exit waits for every non-daemon thread, so a minute later it warned
# "TPU backend initialization is taking more than 60.0 seconds" and only then exited. Here the command
# arms such a timer (10 minutes) and is interrupted before it cancels it. Now: the interrupted command's
# own leftover timers are cancelled and the process exits 130 at once (the subprocess limit, 60 s, is a
# hang detector, not a timing assertion).
def test_an_interrupt_does_not_wait_for_a_library_timer_left_armed(tmp_path):
    proc = _python("""
        import sys, threading
        import theorykit.cli.check as command

        def run(args):
            t = threading.Timer(600, print, ("a library's warning after 10 minutes",))
            t.start()
            raise KeyboardInterrupt             # before the library's try/finally that cancels it

        command.run = run
        from theorykit.cli import main
        sys.exit(main(["check", "spec.toml"]))
        """, tmp_path)
    assert proc.returncode == 130, proc.stderr
    assert _said(proc) == ["theorykit: interrupted"] and proc.stdout == ""


# Before: Ctrl-C during `theorykit race-exhaust --k 3 --out rx` (its progress bar is tqdm's, shown on a
# log too) printed "theorykit: interrupted" and then, when the abandoned bar was collected at exit, the
# bar's last line after it: the message was not the last thing said. The race is interrupted here at its
# first batch. Now the bar is closed as the interrupt passes, and the message is the last line.
def test_race_exhaust_says_interrupted_last_and_writes_nothing(tmp_path):
    proc = _python("""
        import sys
        import theorykit.analysis.exhaust as exhaust

        class Interrupted:
            @staticmethod
            def from_spec(spec):
                raise KeyboardInterrupt         # Ctrl-C during the first batch of the race

        exhaust.RaceSystem = Interrupted
        from theorykit.cli import main
        sys.exit(main(["race-exhaust", "--k", "3", "--out", "rx"]))
        """, tmp_path)
    assert proc.returncode == 130, proc.stderr
    said = _said(proc)
    assert said[-1] == "theorykit: interrupted" and said.count("theorykit: interrupted") == 1, said
    assert not (tmp_path / "rx").exists() or os.listdir(tmp_path / "rx") == []


# ------------------------------------------------------------------------------------------
# odd output paths: devices and named pipes
# ------------------------------------------------------------------------------------------
# Before: an output path that was a device or a named pipe was written to a temporary file beside it
# and renamed over it. Run as root (a container), `theorykit derive s.toml --json /dev/null` replaced
# /dev/null with a regular file -- for every process on the machine -- and `--json /dev/full` took the
# result and exited 0; as another user the same command was refused ("the folder /dev is not
# writable"). A named pipe shows the same rename without harming the machine: its reader never got
# the data and the pipe became a regular file. Now such a path is written as it is: the pipe's reader
# gets the JSON, the pipe stays a pipe.
def test_a_named_pipe_as_json_output_receives_the_result_and_stays_a_pipe(tmp_path):
    import json
    import stat
    import threading

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    from theorykit.io import write_json

    try:
        write_json(fifo, {"loss": [1.0, 0.5]})
    finally:
        if not got:                         # unblock the reader if nothing opened the pipe for writing
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
    reader.join(10)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert json.loads(got[0]) == {"loss": [1.0, 0.5]}
    assert sorted(os.listdir(tmp_path)) == ["out.fifo"]          # no temporary file beside it


# /dev/full is the disk-full device: every write fails with ENOSPC (it must stay a device: not run where
# it is not one). Before: as root the result replaced it and the command exited 0. Now exit 2 and one
# line that names the path and says the disk is full.
@pytest.mark.skipif(not os.path.exists("/dev/full") or not __import__("stat").S_ISCHR(os.stat("/dev/full").st_mode),
                    reason="no /dev/full device")
def test_a_full_disk_is_an_error_naming_the_output(capsys):
    import stat

    from theorykit.cli import main
    xor = os.path.join(os.path.dirname(__file__), "..", "examples", "xor_linear.toml")
    status = main(["derive", xor, "--set", "Delta=0.5", "--json", "/dev/full"])
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    assert status == 2
    said = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(said) == 1 and "/dev/full" in said[0] and "No space left" in said[0], said


# ------------------------------------------------------------------------------------------
# exit statuses a script branches on
# ------------------------------------------------------------------------------------------
# docs/index.md: "A suite that fails is recorded in the report with its error; the others still run,
# and the command exits with status 1" (validation/__init__.py: run_suites returns 1). Before: the exit
# statuses of `theorykit --help` (and docs/cli.md) were 0, 2, 70, 130 and 141 -- a job script that
# resubmitted on anything but 0 or 2 could not tell a failed suite from a bug. Now 1 is listed.
def test_a_failed_suite_exits_1_and_the_help_lists_status_1(tmp_path, monkeypatch, capsys):
    from theorykit.cli import main
    from theorykit.cli.parser import build_parser
    from theorykit.suites import load_suite

    def failing(out, mode, progress=True):
        raise RuntimeError("this suite fails")

    monkeypatch.setattr(load_suite("lemmas"), "run", failing)
    assert main(["validate", "lemmas", "--quick", "--no-progress", "--out", str(tmp_path / "res")]) == 1
    err = capsys.readouterr().err
    assert "this suite fails" in err
    # one suite writes no report: the last line pointed to "the report / results.json", neither written
    assert "results.json" not in err or (tmp_path / "res" / "results.json").exists(), err
    help_text = " ".join(build_parser().format_help().split())
    assert "exit status: 0 done; 1 a validation suite failed" in help_text


# ------------------------------------------------------------------------------------------
# validate: an interrupted suite leaves nothing in --out
# ------------------------------------------------------------------------------------------
# docs/index.md: "a suite's figures appear in the output folder only once the suite has finished, so an
# interrupted run leaves no half-written file". Before: Ctrl-C during `theorykit validate lemmas --quick
# --out res` left res/.staging/lemmas/ (with whatever figures the suite had made) until the next run.
# Here the suite writes a figure into its staging folder and is then interrupted. Now the staging
# folder is removed as the interrupt passes: --out is as it was (empty), and a re-run is not affected.
def test_an_interrupted_suite_leaves_no_staging_folder(tmp_path, monkeypatch, capsys):
    from theorykit.cli import main
    from theorykit.suites import load_suite

    def interrupted(out, mode, progress=True):
        (out / "half_made_figure.png").write_bytes(b"\x89PNG half")
        raise KeyboardInterrupt

    monkeypatch.setattr(load_suite("lemmas"), "run", interrupted)
    res = tmp_path / "res"
    assert main(["validate", "lemmas", "--quick", "--no-progress", "--out", str(res)]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == "theorykit: interrupted"
    left = sorted(str(p.relative_to(res)) for p in res.rglob("*")) if res.exists() else []
    assert left == []


# ------------------------------------------------------------------------------------------
# SIGTERM (kill, SLURM's scancel and time limit, a container stop)
# ------------------------------------------------------------------------------------------
# Before: SIGTERM had Python's default action: the process died at once (status -15, no word), no
# clean-up ran, and a result being written left its temporary file `.tk<pid>-….tmp` beside the output
# (removed only by a later write into that folder, an hour on). Here the command is stopped by a real
# SIGTERM while it writes its --json (in the fsync, after the marker line). Now SIGTERM is handled as
# Ctrl-C is: the temporary file is removed, the old result is kept, one line, exit 143 (128 + 15).
def test_sigterm_while_writing_a_result_cleans_up_and_exits_143(tmp_path):
    (tmp_path / "d.json").write_text('{"old": true}\n')
    xor = os.path.join(os.path.dirname(__file__), "..", "examples", "xor_linear.toml")
    code = textwrap.dedent(f"""
        import sys, time
        import theorykit.io as io

        def fsync(fd):
            print("writing", file=sys.stderr, flush=True)
            while True:
                time.sleep(0.05)

        io.os.fsync = fsync
        from theorykit.cli import main
        sys.exit(main(["derive", {xor!r}, "--set", "Delta=0.5", "--json", "d.json"]))
        """)
    status, said = signalled_after(code, "writing", tmp_path)
    assert status == 143, (status, said)
    assert said == ["theorykit: terminated"]
    assert sorted(os.listdir(tmp_path)) == ["d.json"]                  # no temporary file left
    assert (tmp_path / "d.json").read_text() == '{"old": true}\n'      # the old result kept
