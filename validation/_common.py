"""Helpers shared by the validation suites (part of every suite's cache key, see :func:`validation._suite_source`)."""
from __future__ import annotations

import math
import operator


def pyplot():
    """``matplotlib.pyplot`` on the non-interactive Agg backend: the suites only write PNG files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def graded(x, confirm, partly, *, higher=False, strict=False, nan="not borne out"):
    """The verdict from one number and its two thresholds: "confirmed" at ``confirm`` or better, "partly"
    at ``partly`` or better, else "not borne out". Better is lower, or higher with ``higher``; ``strict``
    leaves the thresholds themselves out. NaN is ``nan`` (rows where it means "nothing to
    measure" pass "n/a"); +∞ and −∞ are compared like any number."""
    if math.isnan(x):
        return nan
    ok = (operator.gt if strict else operator.ge) if higher else (operator.lt if strict else operator.le)
    return "confirmed" if ok(x, confirm) else ("partly" if ok(x, partly) else "not borne out")
