"""Helpers shared by the validation suites (part of every suite's cache key, see :func:`validation._suite_source`)."""
from __future__ import annotations

import math
import operator
import time
from pathlib import Path


def graded(x, confirm, partly, *, higher=False, strict=False, nan="not borne out"):
    """The verdict from one number and its two thresholds: "confirmed" at ``confirm`` or better, "partly"
    at ``partly`` or better, else "not borne out". Better is lower, or higher with ``higher``; ``strict``
    leaves the thresholds themselves out. NaN is ``nan`` (rows where it means "nothing to
    measure" pass "n/a"); +∞ and −∞ are compared like any number."""
    if math.isnan(x):
        return nan
    ok = (operator.gt if strict else operator.ge) if higher else (operator.lt if strict else operator.le)
    return "confirmed" if ok(x, confirm) else ("partly" if ok(x, partly) else "not borne out")


def start(out_dir, mode: str, table: dict):
    """A suite run's output folder (a Path, made if missing) and its settings ``table[mode]``; a ValueError
    names the modes ``table`` has when ``mode`` is not one of them."""
    if mode not in table:
        raise ValueError(f"mode must be one of {sorted(table)}, got {mode!r}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir, table[mode]


class Stopwatch(dict):
    """Seconds per stage of a suite run: ``lap(name)`` stores the seconds since the previous lap (or since
    the stopwatch was made) under ``name``; ``lap(name, note)`` also advances the progress bar ``pr``."""

    def __init__(self, pr=None):
        super().__init__()
        self._pr, self._t = pr, time.time()

    def lap(self, name: str, note: str | None = None) -> None:
        now = time.time()
        self[name], self._t = now - self._t, now
        if note is not None:
            self._pr.update(note=note)
