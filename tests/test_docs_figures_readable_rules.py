"""The paper's full-size figures are readable at docs width: a docs page shows a figure about 750 px wide
whatever its size in inches, so text of ``pt`` points in a figure ``w`` inches wide shows
``pt × 750 / (72 × w)`` px high there (72 pt to the inch). Before, Fig. 4b (four pathways of the full run)
was 16 in wide and Fig. 5 (k = 3 … 6) about 17 in, both with 7-8 pt keys: 8 × 750 / (72 × 16) = 5.2 px and
7 × 750 / (72 × 17) = 4.3 px. Now the smallest text is at least 8 px there, and each figure is at most
two panels wide. Checked on the figure as written (``write_figure(…, tight=True)``, the suite's call: the
PNG's own width) and on every piece of text drawn in it."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from matplotlib.text import Text

from theorykit.suites import load_package
from test_plot_critic_rules import fig4b_stand_in

DOCS_PX, MIN_PX = 750, 8           # the docs' width in px, the smallest readable text in px (the task's rule)


def _figs():
    return __import__(load_package("validation").__name__ + ".contexts_figures", fromlist=["fig4b"])


def _written(figs, monkeypatch, tmp_path):
    """Each figure the module writes, with the width in inches of the PNG it wrote (pixels / dpi)."""
    from theorykit import io

    out = []

    def keep(fig, path, dpi=110, tight=False):
        png = io.png_bytes(fig, dpi, tight, "png")
        width_px = struct.unpack(">I", png[16:20])[0]          # the PNG header's IHDR width
        out.append((fig, width_px / dpi))
        return path

    monkeypatch.setattr(figs, "write_figure", keep)
    monkeypatch.setattr(figs, "write_json", lambda *a, **kw: None)
    return out


def _smallest_text_pt(fig):
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    assert texts
    return min(t.get_fontsize() for t in texts)


def _panels(fig):
    return [a for a in fig.axes if a.get_visible()]


def _s4(names, snaps=(0, 250, 500, 750)):
    return fig4b_stand_in(names, snaps, np.random.default_rng(3), dims=(8, 6), relu_groups=(names[1],))


def _s5(ks):
    t = np.arange(0.0, 1000.0, 10.0)
    rng = np.random.default_rng(5)
    return {kk: {"gamma": 1.0, "_curves": {"t": t, "relu": rng.random((3, t.size)), "gdln": rng.random((3, t.size)),
                                          "closed_form": rng.random(t.size), "closed_form_fit": rng.random(t.size),
                                          "race": rng.random(t.size)}} for kk in ks}


def _check_readable(fig, width_in, panels):
    smallest = _smallest_text_pt(fig)
    px = smallest * DOCS_PX / (72 * width_in)
    assert px >= MIN_PX, f"smallest text {smallest} pt in {width_in:.1f} in shows {px:.1f} px at {DOCS_PX} px"
    assert len(_panels(fig)) == panels
    # at most two panels side by side: no three panels' x ranges are disjoint
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    lefts = sorted({round(a.get_window_extent(r).x0) for a in _panels(fig)})
    assert len(lefts) <= 2
    # no key over a panel
    boxes = [a.get_window_extent(r) for a in _panels(fig)]
    for lg in fig.legends:
        assert not any(lg.get_window_extent(r).overlaps(b) for b in boxes)


@pytest.mark.parametrize("names", [["common", "ctx12", "ctx13", "ctx23"],         # the full run's four pathways
                                   ["common", "ctx12", "ctx13"]])
def test_fig4b_is_readable_at_docs_width(names, tmp_path, monkeypatch):
    figs = _figs()
    out = _written(figs, monkeypatch, tmp_path)
    s4 = _s4(names)
    data = figs.fig4b(s4, tmp_path / "fig4b.png")
    ((fig, width),) = out
    _check_readable(fig, width, len(names))
    assert width <= 12                  # was 16 in for four pathways
    for nm, a in zip(names, _panels(fig)):        # every panel its pathway, the numbers given
        assert a.get_title() == nm
        ys = [list(ln.get_ydata()) for ln in a.lines]
        assert list(np.asarray(s4["sv_race_svals"][nm])[:, 0]) in ys
        assert [r[0] for r in data[nm]["gdln_joint"]] in ys


@pytest.mark.parametrize("ks", [("3", "4", "5", "6"), ("3", "4", "5"), ("3",)])
def test_fig5_is_readable_at_docs_width(ks, tmp_path, monkeypatch):
    figs = _figs()
    out = _written(figs, monkeypatch, tmp_path)
    s5 = _s5(ks)
    figs.fig5(s5, tmp_path / "fig5.png")
    ((fig, width),) = out
    _check_readable(fig, width, len(ks))
    assert width <= 12                  # was about 17 in for k = 3 … 6
    assert all(a.get_legend() is None for a in fig.axes)          # the key is the figure's, beside no curve
    (key,) = fig.legends
    assert [t.get_text() for t in key.get_texts()] == ["ReLU (mean)", "GDLN common + (k-1)-context (joint)",
                                                       "closed form (rule a0)", "closed form (a0 fitted to ReLU)",
                                                       "race reduction (joint, rule a0)"]
    for kk, a in zip(ks, _panels(fig)):           # each panel its k, the numbers given
        assert a.get_title().startswith(f"k = {kk} ")
        by = {ln.get_label(): ln for ln in a.lines}
        np.testing.assert_array_equal(by["race reduction (joint, rule a0)"].get_ydata(), s5[kk]["_curves"]["race"])
        np.testing.assert_array_equal(by["ReLU (mean)"].get_ydata(), s5[kk]["_curves"]["relu"].mean(0))
