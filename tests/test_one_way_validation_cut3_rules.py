"""One way to do each thing, in the validation suites (issue 26, third cut).

1. The suites drew their figures through pyplot (``validation._common.pyplot``), which also switched the
   caller's matplotlib backend to Agg (``matplotlib.use("Agg")``): a notebook that ran a suite lost its
   backend. They now draw through theorykit's one figure maker (:func:`theorykit.io.new_figure`, via
   ``validation._common.subplots``), which leaves pyplot unimported and the backend as it was.
2. contexts' Fig. 4c comparison with no controls: one record and one text for the seed counts, where it was
   written twice; the records it returns are pinned here against ones written out by hand.
"""
from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import pytest

from theorykit.suites import load_suite

PNG = b"\x89PNG\r\n\x1a\n"


def test_suite_figures_leave_pyplot_unimported_and_the_backend_as_it_was(tmp_path):
    """gates' Fig. 8 (centroids, with its colour bar) and Fig. 9 (the elbow), drawn in a fresh process whose
    backend is "svg": both PNG files are written, pyplot is never imported and the backend is still "svg".
    (Before: pyplot imported and the backend switched to "agg".)"""
    code = textwrap.dedent(f"""
        import sys
        import matplotlib
        matplotlib.use("svg")
        import numpy as np
        from theorykit.suites import load_suite
        gates = load_suite("gates")
        per_k = [{{"K": 1, "mse": 1.0, "loss_max_rel_err": 0.3}}, {{"K": 2, "mse": 0.1, "loss_max_rel_err": 0.05}}]
        gates._fig9(per_k, 2, 2, {str(tmp_path / "fig9.png")!r}, K_log={{"improvement": 2, "chord": 2}})
        scores = [{{"centroids": np.full((K, 24), 0.5), "weights": [1.0] * K}} for K in (1, 2)]
        gates._fig8(scores, {str(tmp_path / "fig8.png")!r}, show=(1, 2))
        print("pyplot" if "matplotlib.pyplot" in sys.modules else "no pyplot", matplotlib.get_backend())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["no", "pyplot", "svg"]
    for name in ("fig8.png", "fig9.png"):
        assert (tmp_path / name).read_bytes()[:8] == PNG


def test_subplots_returns_a_figure_and_axes_as_pyplot_subplots_does():
    """``theorykit.io.subplots`` (the suites' and the commands') gives what ``plt.subplots`` gives for the same grid and keywords: the
    axes' shape (squeezed, or not with ``squeeze=False``), the figure's size in inches and its layout."""
    load_suite("gates")
    from theorykit.io import subplots      # the one figure-and-axes maker (was validation._common.subplots)

    fig, ax = subplots(1, 3, figsize=(9, 2.5), squeeze=False, layout="constrained")
    assert ax.shape == (1, 3) and tuple(fig.get_size_inches()) == (9.0, 2.5)
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    fig, ax = subplots(figsize=(5.5, 4))
    assert ax in fig.axes and len(fig.axes) == 1 and fig.get_layout_engine() is None
    assert fig._repr_png_()[:8] == PNG       # drawn without pyplot, and still shown by Jupyter


@pytest.fixture(scope="module")
def contexts():
    return load_suite("contexts")


def _no_controls(paper, text):
    """The record of a Fig. 4c comparison with nothing to compare, written out by hand."""
    return {"paper": paper, "controls": {}, "margin": math.nan, "closer": {}, "per_seed": {}, "text": text}


def _same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert (math.isnan(a[k]) and math.isnan(b[k])) if k == "margin" else a[k] == b[k], k


def test_fig4c_controls_not_run_is_the_figures_number_alone(contexts):
    """No control gating was run (one of them missing): the figure's number (seed 0's, 0.04) alone."""
    ctrl = {"step": 10, "relu_vs_reln": {"double": [0.05], "single": [0.2]}, "seed0_vs_other_seeds": {}}
    _same(contexts._fig4c_controls(ctrl, 0.04),
          _no_controls(0.04, "no control gatings were run (the disparity alone cannot single out a gating)"))
    _same(contexts._fig4c_controls({}, 0.04),
          _no_controls(0.04, "no control gatings were run (the disparity alone cannot single out a gating)"))


def test_fig4c_controls_with_no_common_seed_name_every_gatings_seed_count(contexts):
    """Every gating run, but all seven with no seed: the text names the three counts, in the rows' order."""
    ctrl = {"step": 10, "relu_vs_reln": {"double": [0.05, 0.06, 0.07], "single": [0.2], "all seven": []},
            "seed0_vs_other_seeds": {"relu": [0.003]}}
    _same(contexts._fig4c_controls(ctrl, 0.05),
          _no_controls(0.05, "no seed has every control gating (the paper's ReLN (common + double) 3, "
                             "common + single 1, all seven 0 seeds): the disparity alone cannot single out a gating"))
