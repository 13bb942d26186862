"""Progress for long runs: a tqdm bar on a terminal's stderr; on a log file or a pipe (a batch job's
output, ``2> log``, ``| tee``) a plain line now and then; nothing in a Jupyter kernel, on an
in-memory stream, or when disabled.

``with Progress("xor", total=10) as pr: pr.update(note="stage")`` -- the interface the suites and
the command line use; the bar itself is tqdm's.
"""
from __future__ import annotations

import os
import stat
import sys
import time


def _log_stream(stream) -> bool:
    """Whether ``stream`` is a file or a pipe of the operating system (a batch job's log), not a
    terminal, a Jupyter kernel's stream or an in-memory one."""
    if "ipykernel" in type(stream).__module__:
        return False
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (AttributeError, OSError, ValueError):      # io.StringIO: no file descriptor
        return False
    return stat.S_ISREG(mode) or stat.S_ISFIFO(mode)


class Progress:
    """A tqdm bar labelled ``label`` with ``total`` steps; ``update(k, note)`` advances it.

    On a terminal (``stream``, stderr by default) it is tqdm's bar. On a log file or a pipe it is a
    line ``label: n/total (p%), note, Xs`` at most every :attr:`LOG_SECONDS` seconds, the first only
    once the run has lasted that long: a short run writes nothing, a long one shows it is alive,
    and the log has no carriage returns or escape codes (tqdm's bar wrote a ``\\r`` update per step).
    Quiet when ``enabled`` is false."""

    #: seconds between two progress lines on a log file or a pipe
    LOG_SECONDS = 60.0

    def __init__(self, label: str, total: int, stream=None, enabled: bool = True):
        from tqdm import tqdm

        self.label, self.total, self.n = label, max(int(total), 1), 0
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = bool(enabled) and self.tty
        self.log = bool(enabled) and not self.tty and _log_stream(self.stream)
        self._start = self._said = time.monotonic()
        self._note = ""
        self._bar = tqdm(total=self.total, desc=label, file=self.stream, disable=not self.enabled, leave=True,
                         dynamic_ncols=True)

    def __enter__(self):
        return self

    def update(self, k: int = 1, note: str = ""):
        self.n += k
        if self.n > self.total:                 # a total that was an estimate grows with the work
            self.total = self._bar.total = self.n
        if note:
            self._note = note
            self._bar.set_postfix_str(note, refresh=False)
        self._bar.update(k)
        if self.log and time.monotonic() - self._said >= self.LOG_SECONDS:
            self._line()

    def _line(self):
        self._said = now = time.monotonic()
        note = f", {self._note}" if self._note else ""
        try:
            print(f"{self.label}: {self.n}/{self.total} ({100 * self.n / self.total:.0f}%){note}, "
                  f"{now - self._start:.0f}s", file=self.stream, flush=True)
        except (OSError, ValueError):           # the log went away: the run goes on
            self.log = False

    def close(self):
        self._bar.close()

    def __exit__(self, *exc):
        self.close()
        return False
