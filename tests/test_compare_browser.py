"""The comparison page (``theorykit compare``) in headless Chromium: its figures load, and a screenshot.

Skips without chromium, as tests/test_browser.py does (.ci/run installs it)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from test_browser import CHROMIUM, chromium, dom

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install "
                                                         "chromium; .ci/run installs it)")


@pytest.fixture
def compare_page(tmp_path) -> Path:
    """A comparison of a hand-made one-pathway spec with a two-checkpoint run (no training needed
    to test the page: the curves are whatever they are)."""
    from theorykit.analysis.checkpoints import RunCheckpoints, data_task
    from theorykit.analysis.compare import compare_run, write_comparison
    from theorykit.spec.gating import GDLNSpec, Pathway, Training

    X = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])
    Y = np.array([[1.0, 1, -1, -1]])
    rng = np.random.default_rng(0)
    W = [0.1 * rng.standard_normal((2, 4, 3)), 0.1 * rng.standard_normal((2, 1, 4))]
    run = RunCheckpoints(np.array([0, 10]), W, ["a", "b"], X, Y)
    spec = GDLNSpec(data_task(X, Y), (Pathway("g1", (1, 1, 1, 1), "all", "all", 4),),
                    Training(lr=0.05, loss="mean"), "hand-made")
    out = tmp_path / "cmp"
    write_comparison(compare_run(spec, run), out)
    return out / "compare.html"


def test_compare_page_figures_load(tmp_path, compare_page):
    p = dom(tmp_path, compare_page)
    assert len(p.images) == 2
    assert [i.get("data-loaded") for i in p.images] == ["yes", "yes"]
    assert p.body.get("data-images") == "2/2"
    assert "agreement" in " ".join(p.text).lower()


def test_compare_page_screenshot(tmp_path, compare_page):
    r = chromium(tmp_path, compare_page, f"--screenshot={tmp_path / 'shot.png'}")
    assert r.returncode == 0, r.stderr[-2000:]
    import matplotlib.image as mpimg

    img = mpimg.imread(tmp_path / "shot.png")
    assert img.shape[0] > 100 and float(np.std(img[..., :3])) > 0.01        # not blank
