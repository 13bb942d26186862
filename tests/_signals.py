"""A signal sent to a theorykit process mid-run (the harness several test modules use, one copy)."""
import signal
import subprocess
import sys


def signalled_after(code: str, marker: str, cwd, sig=signal.SIGTERM, timeout: float = 60):
    """Run ``code`` in a fresh interpreter in ``cwd``; once its first line on stderr is ``marker`` (the code
    prints it when it reaches the point to be interrupted), send ``sig`` and wait (at most ``timeout`` s).
    Returns ``(exit status, the non-blank lines of its stderr after the marker)``; the process is killed if it
    outlives the wait or the marker is wrong."""
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()
        assert first.strip() == marker, first + proc.stderr.read()
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, [line for line in err.splitlines() if line.strip()]
