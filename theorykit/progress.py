"""Progress bars for long runs: tqdm on stderr, quiet when stderr is not a terminal (a pipe, a log, a
Jupyter kernel) or when disabled.

``with Progress("xor", total=10) as pr: pr.update(note="stage")`` -- the interface the suites and
the command line use; the bar itself is tqdm's.
"""
from __future__ import annotations

import sys


class Progress:
    """A tqdm bar labelled ``label`` with ``total`` steps; ``update(k, note)`` advances it.

    Quiet (no output at all) when ``enabled`` is false or ``stream`` (stderr by default) is not a
    terminal, so logs and pipes stay clean."""

    def __init__(self, label: str, total: int, stream=None, enabled: bool = True):
        from tqdm import tqdm

        self.label, self.total, self.n = label, max(int(total), 1), 0
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.enabled = bool(enabled) and self.tty
        self._bar = tqdm(total=self.total, desc=label, file=self.stream, disable=not self.enabled, leave=True,
                         dynamic_ncols=True)

    def __enter__(self):
        return self

    def update(self, k: int = 1, note: str = ""):
        self.n += k
        if self.n > self.total:                 # a total that was an estimate grows with the work
            self.total = self._bar.total = self.n
        if note:
            self._bar.set_postfix_str(note, refresh=False)
        self._bar.update(k)

    def close(self):
        self._bar.close()

    def __exit__(self, *exc):
        self.close()
        return False

