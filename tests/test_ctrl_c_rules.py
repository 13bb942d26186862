"""Rules that came from a QA engineer pressing Ctrl-C during a long JAX computation. docs/cli.md
promises "130 interrupted (Ctrl-C)" and README.md that results are written atomically; a user at a
terminal expects Ctrl-C to end the command, not a minute later. Each test runs the command line in a
fresh interpreter (SIGINT at Python's default, KeyboardInterrupt, as in a terminal), sends SIGINT
once it says "computing", and checks the exit status, the one line said, and the files left. The
subprocess limit (60 s) is a hang detector, far shorter than the computation (600 s, or hours)."""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from _signals import SPIN, WORK, dropped_in_gc, signalled, stuck

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")


STUCK = stuck("SIGINT")      # one long call not Python's; SPIN: a compiled JAX loop (tests/_signals.py)

# Python's own code, between bytecodes: the handler runs at once
PYTHON = """
    import time

    def compute():
        print("computing", file=sys.stderr, flush=True)
        for _ in range(100):                # 1 s, interrupted in its first milliseconds
            time.sleep(0.01)
"""

# `check` made to write a result with the computation inside the write: its temporary file exists
WRITE = """
    import theorykit.io as io
    import theorykit.cli.check as command

    def run(args):
        io.os.fsync = lambda fd: compute()
        io.atomic_write_text("r.json", '{"new": true}\\n')
        return 0

    command.run = run
"""

# the program: main() reads its arguments from sys.argv, as the `theorykit` script and `python -m
# theorykit` call it
PROGRAM = """
    sys.argv = ["theorykit", "check", "spec.toml"]
    sys.exit(theorykit.cli.main())
"""


def _interrupted_while(compute, codes, tmp_path, sigint=None, flags=()):
    """Run the ``codes`` with ``compute`` defined; SIGINT it once it says "computing"; its status and the
    lines of stderr and stdout."""
    head = ("import signal, sys\nsignal.signal(signal.SIGINT, " + (sigint or "signal.default_int_handler") +
            ")\nimport theorykit.cli\ntheorykit.cli.TERM_GRACE_SECONDS = 0.5\n")
    status, said, out = signalled(head + "".join(map(textwrap.dedent, (compute, *codes))), "computing", tmp_path,
                                  signal.SIGINT, flags=flags)
    return status, said, out.split()


# ------------------------------------------------------------------------------------------
# Ctrl-C inside a long computation ended the command only when the computation did
# ------------------------------------------------------------------------------------------
# Before (2-core CPU): `theorykit simulate examples/xor_linear.toml --set Delta=0.5 --steps 6000000
# --seeds 4 --force`, SIGINT 10 s in, said "interrupted" and exited 130 47-50 s later: Python raises
# KeyboardInterrupt only between bytecodes of the main thread, and the process also waited, on its
# way out, for a computation it had started. Now the SIGTERM watchdog serves Ctrl-C too, where the
# program is theorykit: the same command ended 5.1 s after SIGINT (TERM_GRACE_SECONDS, 0.5 here).
@pytest.mark.parametrize("compute", [STUCK, SPIN], ids=["one-long-call", "jax-loop"])
def test_ctrl_c_inside_a_long_computation_ends_the_command_with_130_and_cleans_up(tmp_path, compute):
    """The result being written is not committed and its temporary file goes; the old result is
    kept; one line, status 130 (docs/cli.md: "130 interrupted (Ctrl-C)"; 128 + SIGINT's 2)."""
    (tmp_path / "r.json").write_text('{"old": true}\n')
    status, said, _ = _interrupted_while(compute, (WRITE, PROGRAM), tmp_path)
    assert status == 128 + signal.SIGINT == 130, said
    assert said == ["theorykit: interrupted"]
    assert sorted(os.listdir(tmp_path)) == ["r.json"]                  # no .tk<pid>-….tmp left
    assert (tmp_path / "r.json").read_text() == '{"old": true}\n'


def test_ctrl_c_inside_a_long_computation_of_a_suite_leaves_no_staging_folder(tmp_path):
    """validate: a suite inside one long call when Ctrl-C comes leaves no OUT/.staging/<suite>/."""
    status, said, _ = _interrupted_while(STUCK, ["""
        from theorykit.suites import load_suite

        def run(out, mode, progress=True):
            (out / "half_made_figure.png").write_bytes(b"\\x89PNG half")
            compute()

        load_suite("lemmas").run = run
        sys.argv = ["theorykit", "validate", "lemmas", "--quick", "--no-progress", "--out", "res"]
        sys.exit(theorykit.cli.main())
        """], tmp_path)
    assert status == 130, said
    assert said == ["theorykit: interrupted"]
    res = tmp_path / "res"
    assert sorted(str(p.relative_to(res)) for p in res.rglob("*") if p.is_file()) == []
    assert not (res / ".staging").exists() or not list((res / ".staging").glob("lemmas*"))


# ------------------------------------------------------------------------------------------
# what stays as it was
# ------------------------------------------------------------------------------------------
def test_ctrl_c_between_bytecodes_still_raises_keyboard_interrupt_in_the_command(tmp_path):
    """The polite path first: Python's handler runs, the command's own clean-up runs (a finally in
    the command prints its line before "interrupted"), status 130."""
    status, said, _ = _interrupted_while(PYTHON, ["""
        import theorykit.cli.check as command

        def run(args):
            try:
                compute()
            finally:
                print("command cleaned up", file=sys.stderr)
            return 0

        command.run = run
        """, PROGRAM], tmp_path)
    assert status == 130, said
    assert said == ["command cleaned up", "theorykit: interrupted"]


def test_a_caller_of_main_with_its_own_argv_gets_130_back_and_goes_on(tmp_path):
    """main(argv) inside someone's interpreter (a REPL) keeps Python's Ctrl-C: it returns 130 to the
    caller, who goes on; the process is not ended for it."""
    status, said, out = _interrupted_while(PYTHON, [WRITE, """
        status = theorykit.cli.main(["check", "spec.toml"])
        print("caller goes on", status)
        """], tmp_path)
    assert status == 0, said
    assert said == ["theorykit: interrupted"]
    assert out == ["caller", "goes", "on", "130"]


def test_the_program_run_inside_an_interactive_interpreter_returns_130_to_it(tmp_path):
    """``python -i``: main() called as the program (no argv) inside a person's interpreter returns 130
    to it after Ctrl-C, which goes on (then ends at the end of its input, status 0); the process is
    not ended for the interrupt."""
    status, said, out = _interrupted_while(PYTHON, [WRITE, """
        sys.argv = ["theorykit", "check", "spec.toml"]
        status = theorykit.cli.main()
        print("interpreter goes on", status)
        """], tmp_path, flags=["-i"])
    assert status == 0, said
    assert "theorykit: interrupted" in said
    assert out == ["interpreter", "goes", "on", "130"]


# Before this test: `%run -m theorykit check spec.toml` in a Jupyter kernel, interrupted ("interrupt
# kernel", SIGINT to the kernel), ended the kernel (os._exit(130) after the command), its variables
# lost; IPython sets sys.ps1 there, and theorykit now keeps Python's KeyboardInterrupt where it is set.
def test_run_m_theorykit_in_a_jupyter_kernel_survives_interrupt_kernel():
    jupyter_client = pytest.importorskip("jupyter_client")
    pytest.importorskip("ipykernel")
    from jupyter_client.kernelspec import KernelSpec

    km = jupyter_client.KernelManager()
    km._kernel_spec = KernelSpec(argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                                 display_name="python", language="python")
    km.start_kernel()
    kc = None
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=60)
        kc.execute_interactive(textwrap.dedent("""
            import sys, time, theorykit.cli.check as command

            def run(args):                      # a command of 30 s, between bytecodes
                print("computing", file=sys.stderr, flush=True)
                for _ in range(3000):
                    time.sleep(0.01)
                return 0

            command.run = run
            """), timeout=60)
        seen = []

        def output(msg):
            text = msg["content"].get("text", "")
            seen.append(text)
            if "computing" in text and not any("computing" in t for t in seen[:-1]):
                km.interrupt_kernel()
        kc.execute_interactive("%run -m theorykit check spec.toml", timeout=60, output_hook=output)
        assert "theorykit: interrupted" in "".join(seen)
        assert km.is_alive()
        got = []
        kc.execute_interactive("print('still', 6 * 7)", timeout=30,
                               output_hook=lambda msg: got.append(msg["content"].get("text", "")))
        assert "still 42" in "".join(got)
    finally:
        if kc is not None:
            kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_ctrl_c_ignored_as_in_a_background_job_is_still_ignored(tmp_path):
    """A shell's background job inherits SIGINT ignored: the command runs to its end and writes its
    result, status 0, nothing said; neither Python nor the watchdog acts on that signal."""
    status, said, _ = _interrupted_while(PYTHON, (WRITE, PROGRAM), tmp_path, sigint="signal.SIG_IGN")
    assert status == 0, said
    assert said == []
    assert (tmp_path / "r.json").read_text() == '{"new": true}\n'


def test_a_ctrl_c_that_lands_in_a_gc_callback_still_stops_the_program(tmp_path):
    """The program's own SIGINT handler (it tells the watchdog) still plays with _Interrupt: a Ctrl-C
    Python dropped in a garbage-collector callback is raised again (theorykit sends the signal once
    more itself; that is not a second Ctrl-C); the command ends with 130, one line, and no file, as
    test_interrupted_user_rules checks for main(argv)."""
    code = ("import gc, signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "import theorykit.cli\nimport theorykit.cli.check as command\nfrom theorykit.io import atomic_write_text\n"
            + dropped_in_gc("SIGINT", WORK) + "command.run = run\n" + textwrap.dedent(PROGRAM))
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    said = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 130, said
    assert said[-1] == "theorykit: interrupted", said
    assert not (tmp_path / "result.txt").exists()


# ------------------------------------------------------------------------------------------
# a Ctrl-C that Python dropped, then a long computation
# ------------------------------------------------------------------------------------------
# Before: a Ctrl-C raised inside a garbage-collector callback (JAX registers one) is dropped by
# Python; theorykit sends it again 50 ms later -- but the handler had run, so the watchdog counted the
# interrupt as taken, and a command that went on into a long call (here 600 s) was not ended: it
# waited for the whole computation. Now a dropped interrupt gives the watchdog its grace anew.
@pytest.mark.parametrize("sig, word, status", [("SIGINT", "interrupted", 130), ("SIGTERM", "terminated", 143)])
def test_an_interrupt_dropped_in_a_gc_callback_then_a_long_call_still_ends_the_command(tmp_path, sig, word, status):
    then = (f"    signal.pthread_sigmask(signal.SIG_BLOCK, {{signal.{sig}}})   # then one long call, as STUCK\n"
            "    ctypes.CDLL(None).sleep(600)")
    code = ("import ctypes, gc, signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "import theorykit.cli\ntheorykit.cli.TERM_GRACE_SECONDS = 0.5\nimport theorykit.cli.check as command\n"
            "from theorykit.io import atomic_write_text\n"
            + dropped_in_gc(sig, then) + "command.run = run\n" + textwrap.dedent(PROGRAM))
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    said = [line for line in err.splitlines() if line.strip()]
    assert proc.returncode == status == 128 + getattr(signal, sig), said
    assert said[-1] == f"theorykit: {word}", said
    assert not (tmp_path / "result.txt").exists()
