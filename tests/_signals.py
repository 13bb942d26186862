"""A signal sent to a theorykit process mid-run (the harness several test modules use, one copy), and
the stand-ins for a long computation those modules interrupt."""
import signal
import subprocess
import sys


def signalled(code: str, marker: str, cwd, sig=signal.SIGTERM, timeout: float = 60, flags=()):
    """Run ``code`` in a fresh interpreter (with ``flags``) in ``cwd``; once its first line on stderr is
    ``marker`` (the code prints it when it reaches the point to be interrupted), send ``sig`` and wait (at
    most ``timeout`` s). Returns ``(exit status, the non-blank lines of its stderr after the marker, its
    stdout)``; the process is killed if it outlives the wait or the marker is wrong."""
    proc = subprocess.Popen([sys.executable, *flags, "-c", code], cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()
        assert first.strip() == marker, first + proc.stderr.read()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, [line for line in err.splitlines() if line.strip()], out


def signalled_after(code: str, marker: str, cwd, sig=signal.SIGTERM, timeout: float = 60):
    """:func:`signalled` without its stdout: ``(exit status, the non-blank lines of its stderr)``."""
    status, said, _out = signalled(code, marker, cwd, sig, timeout)
    return status, said


def stuck(sig: str) -> str:
    """A ``compute()`` that is one call not Python's and outlasts any test: signal ``sig`` (``"SIGINT"``,
    ``"SIGTERM"``) blocked in the main thread (the kernel hands it to another thread, as it does while
    the main thread runs a compiled loop), then libc's sleep. It says "computing" first."""
    return f"""
    import ctypes

    def compute():
        signal.pthread_sigmask(signal.SIG_BLOCK, {{signal.{sig}}})
        print("computing", file=sys.stderr, flush=True)
        ctypes.CDLL(None).sleep(600)
"""


# a compiled JAX loop of 2**31 vector steps (hours); block_until_ready lets the handler run, and the
# command ends -- but the process then waited for the loop on its way out
SPIN = """
    import jax, jax.numpy as jnp

    @jax.jit
    def spin(n):
        return jax.lax.fori_loop(0, n, lambda i, x: jnp.sin(x) * 1.0000001 + 1e-9, jnp.ones(20000))

    spin(3).block_until_ready()                 # compiled before the marker: the marker means "computing"

    def compute():
        print("computing", file=sys.stderr, flush=True)
        spin(2 ** 31 - 1).block_until_ready()
"""


def dropped_in_gc(sig: str, then: str) -> str:
    """A ``run(args)`` for ``theorykit.cli.check`` (module-level source, to be dedented) in which signal
    ``sig`` arrives while a garbage-collector callback runs (Python drops the exception it raises there,
    as with JAX's callback); the command then runs ``then`` (source at 4 spaces) and writes
    ``result.txt``, which the interrupt should have stopped."""
    return f"""
def run(args):
    fired = []
    def callback(phase, info):          # the signal arrives while the collector's callback runs
        if not fired:
            fired.append(1)
            signal.raise_signal(signal.{sig})
    gc.callbacks.append(callback)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(callback)
{then}
    atomic_write_text("result.txt", "a result the interrupt should have stopped")
    return 0

"""


#: the command's own work after the dropped signal (Python's code: the signal sent again lands here)
WORK = "    for _ in range(1000):\n        sum(range(100))"
