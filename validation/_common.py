"""Helpers shared by the validation suites (part of every suite's cache key, see :func:`validation._suite_source`)."""
from __future__ import annotations


def pyplot():
    """``matplotlib.pyplot`` on the non-interactive Agg backend: the suites only write PNG files."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
