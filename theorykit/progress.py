"""A small progress reporter for long runs (stderr; quiet when not a terminal unless forced)."""
from __future__ import annotations

import sys
import time


class Progress:
    """Context manager: ``with Progress("xor", total=10) as pr: pr.update()``.

    Prints ``[label] i/total (elapsed, eta)`` on stderr: redrawn in place on a terminal,
    one line per update (at most every few seconds) otherwise.
    """

    def __init__(self, label: str, total: int, stream=None, enabled: bool = True):
        self.label, self.total, self.n = label, max(int(total), 1), 0
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.t0 = self.last = time.time()

    def __enter__(self):
        self._draw(force=True)
        return self

    def update(self, k: int = 1, note: str = ""):
        self.n += k
        self._draw(note=note)

    def _draw(self, force=False, note=""):
        if not self.enabled:
            return
        now = time.time()
        if not (force or self.tty or now - self.last > 5 or self.n >= self.total):
            return
        self.last = now
        el = now - self.t0
        eta = el / self.n * (self.total - self.n) if self.n else float("nan")
        bar = "#" * int(20 * self.n / self.total)
        msg = f"[{self.label}] |{bar:<20}| {self.n}/{self.total} {el:6.1f}s elapsed"
        if self.n and self.n < self.total:
            msg += f", ~{eta:.0f}s left"
        if note:
            msg += f" {note}"
        self.stream.write(("\r" + msg) if self.tty else msg + "\n")
        self.stream.flush()

    def __exit__(self, *exc):
        if self.enabled and self.tty:
            self.stream.write("\n")
        return False
