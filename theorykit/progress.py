"""Progress for long runs: a tqdm bar on a terminal's stderr; on a log file or a pipe (a batch job's
output, ``2> log``, ``| tee``) a plain line now and then; nothing in a Jupyter kernel, on an
in-memory stream, or when disabled.

``with progress_bar(progress, "xor", 10) as pr: pr.update(note="stage")`` -- the one way the long
runs of the library (``tk.find_gates``, ``compare_run``, ``tk.predict_reln``, ``race_exhaust``,
``run_sweep``) and the validation suites show progress; the bar itself is tqdm's (:class:`Progress`,
which the command line makes from ``--no-progress`` and hands to them as its own). They take their
``progress`` one way, :func:`checked_progress`: True, False, None, an object of the caller's own
with ``update(k=1, note="")``, or a tqdm bar of the caller's (advanced with ``update(k)``, the note
as its postfix).
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Set
import stat
import sys
import time

from .errors import SpecError


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


#: the bar's size, (columns, rows), where the terminal reports 0 rows or 0 columns (``script``
#: without a size, some CI and editor shells): tqdm read it as -1 x -1 and drew nothing (a bar
#: of width -1, on row 0 of -1 rows: "more hidden")
FALLBACK_SIZE = (80, 24)


def _fixed_size(stream) -> tuple[int, int] | tuple[None, None]:
    """(None, None) when the terminal ``stream`` reports a usable size, or none at all (tqdm then
    follows it as it changes, as it reads it: ``os.get_terminal_size``); :data:`FALLBACK_SIZE`
    when it reports 0 rows or 0 columns."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError):      # no descriptor, or not a terminal's: tqdm's way
        return None, None
    return (None, None) if size.columns > 0 and size.lines > 0 else FALLBACK_SIZE


def _duration(seconds: float) -> str:
    """A time left as a log line says it: ``73s``, ``21 min`` (from 2 minutes), ``2.1 h`` (from 2 hours)."""
    if seconds < 120:
        return f"{seconds:.0f}s"
    return f"{seconds / 60:.0f} min" if seconds < 7200 else f"{seconds / 3600:.1f} h"


class Progress:
    """A tqdm bar labelled ``label`` with ``total`` steps; ``update(k, note)`` advances it.

    On a terminal (``stream``, stderr by default) it is tqdm's bar. On a log file or a pipe it is a
    line ``label: n/total (p%), note, Xs (about Ys left)`` at most every :attr:`LOG_SECONDS` seconds (Y at
    the pace so far; none before the first step or at the end), the first only
    once the run has lasted that long: a short run writes nothing, a long one shows it is alive,
    and the log has no carriage returns or escape codes (tqdm's bar wrote a ``\\r`` update per step).
    Quiet when ``enabled`` is false. A terminal that reports 0 rows or 0 columns gets a bar
    of :data:`FALLBACK_SIZE` (tqdm's own would be empty)."""

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
        ncols, nrows = _fixed_size(self.stream) if self.enabled else (None, None)
        self._bar = tqdm(total=self.total, desc=label, file=self.stream, disable=not self.enabled, leave=True,
                         dynamic_ncols=ncols is None, ncols=ncols, nrows=nrows)

    def __enter__(self):
        return self

    def update(self, k: int = 1, note: str = ""):
        self.n += k
        if self.n > self.total:                 # a total that was an estimate grows with the work
            self.total = self._bar.total = self.n
        self._note = note or self._note
        _TqdmNotes(self._bar).update(k, note)       # tqdm's update, the note as the postfix
        if self.log and time.monotonic() - self._said >= self.LOG_SECONDS:
            self._line()

    def _line(self):
        self._said = now = time.monotonic()
        note = f", {self._note}" if self._note else ""
        spent = now - self._start
        # the terminal's bar shows the time left; so does the line, at the pace so far (none before any work)
        left = f" (about {_duration(spent * (self.total - self.n) / self.n)} left)" if 0 < self.n < self.total else ""
        try:
            print(f"{self.label}: {self.n}/{self.total} ({100 * self.n / self.total:.0f}%){note}, "
                  f"{spent:.0f}s{left}", file=self.stream, flush=True)
        except (OSError, ValueError):           # the log went away: the run goes on
            self.log = False

    def close(self):
        self._bar.close()

    def __exit__(self, *exc):
        self.close()
        return False


def is_flag(progress) -> bool:
    """Whether ``progress`` is None, True or False (NumPy's booleans too; NumPy is not imported here)."""
    np = sys.modules.get("numpy")
    return progress is None or isinstance(progress, bool) or (np is not None and isinstance(progress, np.bool_))


def _tqdm(progress) -> bool:
    """Whether ``progress`` is a tqdm bar (tqdm.auto's and tqdm.notebook's too): looked up among the
    modules already imported, as a bar of tqdm's cannot exist before tqdm is."""
    std = sys.modules.get("tqdm.std")
    return std is not None and isinstance(progress, std.tqdm)


class _TqdmNotes:
    """A caller's tqdm bar advanced the long runs' way: ``update(k, note)`` is tqdm's ``update(k)``
    with the note as the bar's postfix. Its total, and closing it, stay the caller's."""

    def __init__(self, bar):
        self.bar = bar

    def update(self, k: int = 1, note: str = ""):
        if note:
            self.bar.set_postfix_str(note, refresh=False)
        self.bar.update(k)


def _no_note(update) -> str:
    """Why ``update`` cannot be called as the long runs call it, ``update(k)`` and ``update(note=…)``
    (both, as ``update(k=1, note="")``); "" when it can, or when its signature cannot be read."""
    import inspect

    try:
        sig = inspect.signature(update)
    except (TypeError, ValueError):     # a builtin's without a signature: taken at its word
        return ""
    for args, kw, call in (((1,), {"note": "stage"}, "update(1, note='stage')"),
                           ((), {"note": "stage"}, "update(note='stage')")):
        try:
            sig.bind(*args, **kw)
        except TypeError:
            return f"its update{sig} cannot be called as {call}"
    return ""


def checked_progress(progress):
    """``progress`` as the long runs take it: True or False (a bar on stderr or none), None (none), a
    :class:`Progress` or any object of the caller's own whose ``update`` takes ``update(k=1, note="")``,
    or a tqdm bar of the caller's (see :func:`progress_bar`); anything else -- an ``update`` without
    the ``note`` keyword too -- is a :class:`~theorykit.errors.SpecError` naming ``progress``, raised
    before any work."""
    if is_flag(progress) or _tqdm(progress):
        return progress
    update = getattr(progress, "update", None)
    if callable(update) and not isinstance(progress, (Mapping, Set)):  # a dict's or a set's update is not a bar's
        why = _no_note(update)
        if not why:
            return progress
        raise SpecError("progress", f"{type(progress).__name__} has an update, but {why}",
                        "give its update the signature update(k=1, note='') (note: what the stage did), or pass "
                        "a tqdm bar, progress=True for a bar on stderr or progress=False for none")
    got = f"{type(progress).__name__} {progress!r}"
    raise SpecError("progress", f"expected True, False or a theorykit.progress.Progress, got {got[:80]}",
                    "pass progress=True for a bar on stderr, progress=False for none, or an object of your own "
                    "with update(k=1, note='')")


def progress_bar(progress, label: str, total: int):
    """A context giving the bar to advance for :func:`checked_progress`'s ``progress``: a bar
    ``label`` of ``total`` steps made (and closed) here for True, a quiet one for False or None (as
    every bar, quiet off a terminal too), a caller's tqdm bar advanced by ``update(k)`` with the note
    as its postfix, the caller's own object as it is (neither closed here: they are theirs)."""
    if is_flag(checked_progress(progress)):
        return Progress(label, total, enabled=bool(progress))
    return contextlib.nullcontext(_TqdmNotes(progress) if _tqdm(progress) else progress)
