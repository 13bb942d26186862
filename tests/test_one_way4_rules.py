"""One way to do each thing (issue "one way to do each thing", fourth cut).

A figure and its axes drawn without pyplot were made in two ways: ``validation._common.subplots`` for the
suites, and ``new_figure(...)`` followed by ``fig.subplots(...)`` written out again in each command that
draws (compare, exhaust, predict, predict-validate, summary). There is now one,
:func:`theorykit.io.subplots`, which all of them call; the copy in ``validation._common`` is gone.

The axes' places are checked against a hand derivation of matplotlib's grid layout (its default
``figure.subplot.*`` parameters), not against a second call of the same code.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

PNG = b"\x89PNG\r\n\x1a\n"

# matplotlib's defaults (rcParams figure.subplot.*): the axes fill [LEFT, RIGHT] × [BOTTOM, TOP] of the
# figure; between two columns lies WSPACE × the mean column width.
LEFT, RIGHT, BOTTOM, TOP, WSPACE = 0.125, 0.9, 0.11, 0.88, 0.2


def _columns(ratios):
    """Hand derivation of the columns' [x0, x1] for width ratios ``ratios`` in one row: the mean column
    width is w = (RIGHT − LEFT) / (n + WSPACE (n − 1)), the gap WSPACE·w, and the n columns share n·w in
    proportion to their ratios."""
    n = len(ratios)
    w = (RIGHT - LEFT) / (n + WSPACE * (n - 1))
    widths = [n * w * r / sum(ratios) for r in ratios]
    out, x = [], LEFT
    for width in widths:
        out.append((x, x + width))
        x += width + WSPACE * w
    return out


def test_one_subplots_maker_and_no_copy_in_the_suites():
    import theorykit.io as tio
    from theorykit.validation import _common

    assert callable(tio.subplots)
    assert not hasattr(_common, "subplots")        # the suites' copy is gone: they import theorykit.io's


@pytest.mark.parametrize("ratios", [None, [1.4, 1]])   # the plain 1×2 grid; predict's (1.4 : 1)
def test_subplots_places_the_axes_as_the_hand_derivation(ratios):
    from theorykit.io import subplots

    kw = {} if ratios is None else {"gridspec_kw": {"width_ratios": ratios}}
    fig, (a1, a2) = subplots(1, 2, figsize=(10, 3.6), **kw)
    assert tuple(fig.get_size_inches()) == (10.0, 3.6)
    want = _columns(ratios or [1, 1])
    for ax, (x0, x1) in zip((a1, a2), want):
        p = ax.get_position()
        assert np.allclose([p.x0, p.x1, p.y0, p.y1], [x0, x1, BOTTOM, TOP], atol=1e-12)
    assert fig._repr_png_()[:8] == PNG          # Jupyter shows it, with no pyplot


def test_subplots_squeeze_and_a_single_axes():
    from theorykit.io import subplots

    fig, axes = subplots(1, 3, figsize=(15.6, 3.8), squeeze=False)      # summary's grid
    assert axes.shape == (1, 3) and len(fig.axes) == 3
    fig, ax = subplots(figsize=(10, 2.0))                              # compare's gate panel: one Axes
    assert ax is fig.axes[0] and len(fig.axes) == 1


def test_subplots_leaves_pyplot_unimported():
    code = textwrap.dedent("""
        import sys
        from theorykit.io import subplots
        fig, ax = subplots(1, 2, figsize=(4, 2))
        print("matplotlib.pyplot" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
