"""Figures a reader can read without the text: the gate panels (prediction, validation, comparison) and
Fig. 4a of the contexts suite, checked through matplotlib's object API on the Figure each returns or
writes (no image comparison). What each test asks for:

* every gate panel has an on/off key (black = on, white = off), thin lines between its rows, and, on
  a context task, a line where one context's datapoints end and the next context's begin;
* the validation's unit panels label their rows by rank and share with two significant digits (they
  all read "0.01" before);
* Fig. 4a has its legend outside the axes, in two groups (simulation, theory), the ReLU network drawn
  above the ReLN simulations and the theory curves above both, and an axis label that says what is
  plotted; the plotted numbers are the ones given.

The expected values are worked out by hand in each test (the task's layout, a percentage rounded to two
significant digits), never read off the code under test.
"""
from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest
from matplotlib.colors import to_rgba

import theorykit as tk
from theorykit.analysis.compare import Comparison
from theorykit.analysis.predict import Prediction
from theorykit.analysis.predict_validate import Validation
from theorykit.io import gate_groups, gate_image, gate_share_labels, new_figure


def _vlines(ax):
    """x positions of the vertical lines (axvline: constant x, y from 0 to 1 in axes coordinates)."""
    return sorted(float(ln.get_xdata()[0]) for ln in ax.lines
                  if len(set(np.asarray(ln.get_xdata(), float))) == 1 and list(ln.get_ydata()) == [0, 1])


def _hlines(ax):
    return sorted(float(ln.get_ydata()[0]) for ln in ax.lines
                  if len(set(np.asarray(ln.get_ydata(), float))) == 1 and list(ln.get_xdata()) == [0, 1])


def _key(ax):
    """The on/off key: (label, face colour) of each entry of the axis' legend."""
    leg = ax.get_legend()
    assert leg is not None
    return [(t.get_text(), to_rgba(h.get_facecolor())) for t, h in zip(leg.get_texts(), leg.legend_handles)]


ON_OFF = [("on", to_rgba("black")), ("off", to_rgba("white"))]


def test_gate_groups_is_the_items_per_context_of_a_context_task_only():
    """contexts(n, k) puts context c in columns c·n … c·n+n−1 (theorykit.spec.task.contexts): groups of
    n. XoR and a custom task have no groups; one context has no boundary to mark."""
    assert gate_groups(tk.contexts(4, 3)) == 4
    assert gate_groups(tk.contexts(8, 3)) == 8
    # one context (k = 1, which tk.contexts refuses as a spec file does: k >= 2), as a task's meta says it
    one = tk.contexts(4, 2)
    assert gate_groups(tk.Task(one.X[:, :4], one.Y[:, :4], name="contexts", meta={**one.meta, "k": 1})) is None
    assert gate_groups(tk.xor_margin(0.5)) is None
    assert gate_groups(None) is None


def test_gate_image_has_an_on_off_key_row_lines_and_context_boundaries():
    """3 contexts of 4 items, 12 datapoints: context boundaries between datapoints 3|4 and 7|8, at
    x = 3.5 and 7.5 (pixel centres at integers); 3 rows: row boundaries at y = 0.5 and 1.5. The key
    says which colour is on. The image itself is unchanged: the 0/1 gates, Greys from 0 to 1."""
    gates = (np.arange(36).reshape(3, 12) % 5 == 0).astype(int)
    ax = new_figure().subplots()
    gate_image(ax, gates, 12, ["a", "b", "c"], group=4)
    np.testing.assert_array_equal(ax.get_images()[0].get_array(), gates)
    assert ax.get_images()[0].get_clim() == (0, 1)
    assert _vlines(ax) == [3.5, 7.5]
    assert _hlines(ax) == [0.5, 1.5]
    assert _key(ax) == ON_OFF
    assert "context" in ax.get_xlabel()
    ax = new_figure().subplots()                 # no groups (XoR): no vertical line, the key still there
    gate_image(ax, gates[:, :4], 4, ["a", "b", "c"])
    assert _vlines(ax) == [] and _hlines(ax) == [0.5, 1.5] and _key(ax) == ON_OFF
    assert ax.get_xlabel() == "datapoint"
    ax = new_figure().subplots()
    gate_image(ax, gates, 12, ["a", "b", "c"], key=False)
    assert ax.get_legend() is None


def test_share_labels_read_apart_by_rank_and_two_significant_digits():
    """0.2431 → 24.31 % → "24"; 0.0123 and 0.0118 → "1.2" both, told apart by the rank; 0.00049 →
    0.049 % → "0.049" (it read "0.00"); 0.0996 → 9.96 % → "10" (two digits), 0.099 → "9.9"."""
    labels = gate_share_labels([0.2431, 0.0123, 0.0118, 0.00049])
    assert labels == ["#1  24 %", "#2  1.2 %", "#3  1.2 %", "#4  0.049 %"]
    assert len(set(labels)) == len(labels)
    # no exponent form: one found pattern holding all the weight read "1e+02 %"; 1e-7 → 1e-05 % → "<0.001"
    assert gate_share_labels([1.0, 0.5, 0.0996, 0.099, 1e-7, 0.0]) == ["#1  100 %", "#2  50 %", "#3  10 %",
                                                                      "#4  9.9 %", "#5  <0.001 %", "#6  0 %"]


def _validation(P=12):
    """A hand-made check on contexts(4, 3): 3 predicted patterns, 12 unit patterns of nearly equal share
    (0.0101 … 0.0131: all "0.01" at two decimals), 2 found patterns."""
    rng = np.random.default_rng(0)
    pats = ["".join(str(v) for v in rng.integers(0, 2, P)) for _ in range(12)]
    shares = [0.0131, 0.0128, 0.0124, 0.0122, 0.0119, 0.0116, 0.0114, 0.0112, 0.0109, 0.0107, 0.0103, 0.0101]
    pred = [[int(j // 4 != i) for j in range(P)] for i in range(3)]
    found = [(tuple(pred[0]), 0.6), (tuple(pred[1]), 0.4)]
    t = np.arange(5.0)
    return Validation(t, np.ones((2, 5)), np.ones(5), 0.1, 0.2, 0.5, 0.5, found, 0.1, 2, pred,
                      list(zip(pats, shares)))


def _pred(task):
    return types.SimpleNamespace(task=task, hidden=24, training=tk.Training(lr=0.05, loss="mean"))


def test_validation_loss_figure_says_the_task_the_protocol_and_each_curve():
    """The suptitle names the task, the seeds, H, η and the loss; the thin per-seed lines have a legend
    entry (one, not one per seed); the curves are the numbers given, over the seeds' mean L(0)."""
    val = _validation()
    val.relu_loss = np.array([[2.0, 1.0, 0.5, 0.2, 0.1], [4.0, 2.0, 1.0, 0.4, 0.2]])     # L(0) = (2 + 4)/2 = 3
    val.pred_loss = np.array([3.0, 1.5, 0.6, 0.3, 0.15])
    f1, _ = val.figures(_pred(tk.contexts(4, 3)))
    assert f1._suptitle.get_text() == ("contexts(4, 3), 12 datapoints: predicted ReLN vs 2 ReLU networks (H = 24, "
                                       "η = 0.05, mean loss); RMS gap 0.100 L(0)")
    title = val.figures(_pred(tk.Task([[1, 0, 1], [0, 1, 1]], [[1, 1, 0]])))[0]._suptitle.get_text()
    assert title.startswith("your data, 3 datapoints: ")          # a spec file's own tables: "custom" said nothing
    assert val.figures(_pred(tk.xor_margin(0.5)))[0]._suptitle.get_text().startswith("xor-margin, 4 datapoints: ")
    ax = f1.axes[0]
    assert ax.get_legend_handles_labels()[1] == ["each ReLU network", "ReLU networks (mean)", "predicted ReLN (race)"]
    np.testing.assert_allclose(ax.lines[2].get_ydata(), [1.0, 0.5, 0.25, 0.1, 0.05])     # mean (3, 1.5, .75, .3, .15)/3
    np.testing.assert_allclose(ax.lines[3].get_ydata(), [1.0, 0.5, 0.2, 0.1, 0.05])
    assert [a.get_title() for a in f1.axes] == ["linear scale", "log scale"]
    assert all("L(0)" in a.get_ylabel() for a in f1.axes)


def test_validation_gate_panels_are_ranked_keyed_and_split_by_context():
    val = _validation()
    _, f2 = val.figures(_pred(tk.contexts(4, 3)))
    a_pred, a_units, a_found = f2.axes[:3]
    units = [t.get_text() for t in a_units.get_yticklabels()]
    # by hand: 1.31 → 1.3, 1.28 → 1.3, 1.24 → 1.2, 1.22 → 1.2, 1.19 → 1.2, 1.16 → 1.2, 1.14 → 1.1, 1.12 → 1.1,
    # 1.09 → 1.1, 1.07 → 1.1, 1.03 → 1.0 and 1.01 → 1.0 (written "1": %g drops trailing zeros)
    assert units == [f"#{i + 1}  {v} %" for i, v in enumerate(["1.3"] * 2 + ["1.2"] * 4 + ["1.1"] * 4 + ["1"] * 2)]
    assert len(set(units)) == 12
    assert [t.get_text() for t in a_found.get_yticklabels()] == ["#1  60 %", "#2  40 %"]
    for a in (a_pred, a_units, a_found):
        assert _vlines(a) == [3.5, 7.5]
    assert a_pred.get_legend() is None and a_units.get_legend() is None and _key(a_found) == ON_OFF
    _, f2 = val.figures(_pred(tk.xor_margin(0.5)))   # no contexts: no boundary
    assert all(_vlines(a) == [] for a in f2.axes[:3])


def _prediction(task, gates, widths):
    t = np.arange(0.0, 101.0)
    return Prediction(task, tk.Training(), sum(widths), np.asarray(gates), list(widths), [1e-3] * len(widths), t,
                      np.exp(-t / 30), 20.8, 0.3, [], {}, {}, {}, [])


def test_prediction_figure_gates_are_keyed_and_split_by_context():
    """contexts(2, 3): 6 datapoints in 3 contexts of 2, boundaries at 1.5 and 3.5."""
    pred = _prediction(tk.contexts(2, 3), [[1, 1, 0, 0, 1, 1], [1, 1, 1, 1, 0, 0]], [3, 3])
    a2 = pred.figure().axes[1]
    assert _vlines(a2) == [1.5, 3.5] and _hlines(a2) == [0.5] and _key(a2) == ON_OFF
    assert [t.get_text() for t in a2.get_yticklabels()] == ["p1 (3)", "p2 (3)"]
    assert a2.get_ylabel() == "pathway (hidden units)"


def test_comparison_gates_figure_is_keyed_and_split_by_context():
    """A found spec on contexts(2, 2): 4 datapoints, one boundary at 1.5."""
    paths = (tk.Pathway("g1", (1, 1, 0, 0), hidden=2), tk.Pathway("g2", (1, 1, 1, 1), hidden=2))
    spec = tk.GDLNSpec(tk.contexts(2, 2), paths, tk.Training(lr=0.1), "found-gates")
    steps = np.array([0, 50, 100])
    cmp = Comparison(steps, steps, np.array([0.5, 0.3, 0.1]), np.array([0.5, 0.25, 0.1]), None, spec, 1e-3, 0.1,
                     "mean")
    ax = cmp.gates_figure().axes[0]
    assert _vlines(ax) == [1.5] and _hlines(ax) == [0.5] and _key(ax) == ON_OFF


@pytest.fixture
def fig4a(monkeypatch):
    """validation.contexts_figures.fig4a on hand-made curves; the figure it would write is kept."""
    from theorykit.suites import load_package

    figs = __import__(load_package("validation").__name__ + ".contexts_figures", fromlist=["fig4a"])
    kept = []
    monkeypatch.setattr(figs, "write_figure", lambda fig, path, **kw: kept.append(fig))
    monkeypatch.setattr(figs, "write_json", lambda *a, **kw: None)
    rng = np.random.default_rng(3)
    t = np.arange(0.0, 40.0)
    gdln = {key: rng.random((2, t.size)) + 0.1 for key in (("double", "joint"), ("double", "staged"),
                                                         ("single", "joint"), ("all seven", "joint"))}
    race = {nm: types.SimpleNamespace(loss_at=lambda tt, s=s: s * np.exp(-np.asarray(tt) / 10))
            for nm, s in (("double", 1.0), ("single", 2.0), ("all seven", 3.0))}
    s4 = {"t": t, "relu": rng.random((3, t.size)) + 0.1, "gdln": gdln, "race": race,
          "fit_curve": rng.random(t.size) + 0.1, "staged": {"loss": rng.random(t.size) + 0.1, "note": "n"}}
    figs.fig4a(s4, Path("fig4a.png"))
    return kept[0], s4


def test_fig4a_legend_is_outside_the_axes_in_two_groups(fig4a):
    fig, s4 = fig4a
    assert all(a.get_legend() is None for a in fig.axes)          # no legend over the curves
    legs = fig.legends
    assert [lg.get_title().get_text() for lg in legs] == ["simulation", "theory"]
    sim = [t.get_text() for t in legs[0].get_texts()]
    theory = [t.get_text() for t in legs[1].get_texts()]
    assert sim == ["ReLU network (mean ± std of 3 seeds)", "ReLN double (GDLN, joint)", "ReLN double (GDLN, staged)",
                   "ReLN single (GDLN, joint)", "all seven (GDLN, joint)"]
    assert theory == ["race reduction, double (rule a0)", "race reduction, single (rule a0)",
                      "race reduction, double (a0 fitted to ReLU)", "closed form / staged theory"]
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    right = max(a.get_window_extent(r).x1 for a in fig.axes)
    assert all(lg.get_window_extent(r).x0 >= right for lg in legs)   # right of both panels


def test_fig4a_draw_order_labels_and_numbers(fig4a):
    """ReLU above the ReLN simulations, every theory curve above both; the axes say what is plotted; the
    curves are the numbers given (the ReLU line is the seeds' mean, recomputed here)."""
    fig, s4 = fig4a
    for a in fig.axes:
        by = {ln.get_label(): ln for ln in a.lines}
        relu = by["ReLU network (mean ± std of 3 seeds)"]
        np.testing.assert_array_equal(relu.get_ydata(), s4["relu"].mean(0))
        np.testing.assert_array_equal(by["race reduction, single (rule a0)"].get_ydata(), 2.0 * np.exp(-s4["t"] / 10))
        gd = [by[k].get_zorder() for k in by if k.startswith(("ReLN", "all seven"))]
        th = [by[k].get_zorder() for k in by if k.startswith(("race", "closed"))]
        assert len(gd) == 4 and len(th) == 4
        assert max(gd) < relu.get_zorder() < min(th)
        assert a.get_ylabel() == "loss (summed over the datapoints)" and a.get_xlabel() == "gradient step"
    assert [a.get_yscale() for a in fig.axes] == ["linear", "log"]
    assert [a.get_title() for a in fig.axes] == ["linear scale", "log scale"]
    assert "3 contexts" in fig._suptitle.get_text()


def test_race_figure_keeps_coinciding_curves_visible_and_its_legend_off_the_data(tmp_path, monkeypatch):
    """race-exhaust's figure on a hand-made result of 3 families: "common + doubles" is both named and
    top (#1), "common only" named (#3): wide pale lines (named sets under the rest); family #2 narrow
    on top; the left legend below the axis; a named set has one colour in both panels."""
    from theorykit.analysis import exhaust

    kept = []
    monkeypatch.setattr(exhaust, "write_figure", lambda fig, path, **kw: kept.append(fig) or path)
    t = np.arange(0.0, 50.0)
    fams = ["common+12+13+23", "common+1+12+13+23", "common"]
    curves = {f: np.exp(-t / (10 + i)) for i, f in enumerate(fams)}
    rows = [{"family": f, "area": 0.2 + 0.1 * i, "t_0.01": 40, "rank_area": i + 1, "orbit": i}
            for i, f in enumerate(fams)]
    named = {"common + doubles": rows[0], "common only": rows[2]}
    summary = {"k": 3, "named": named, "top20_by_area": rows}
    exhaust.write_outputs(exhaust.ExhaustResult(summary, t, curves, rows), tmp_path)
    fig = kept[0]
    a1, a2 = fig.axes
    by = {ln.get_label(): ln for ln in a1.lines}
    assert sorted(by) == ["#2 common+1+12+13+23", "common + doubles (#1)", "common only (#3)"]
    wide, narrow = by["common + doubles (#1)"], by["#2 common+1+12+13+23"]
    assert wide.get_linewidth() > narrow.get_linewidth() and wide.get_zorder() < narrow.get_zorder()
    assert wide.get_alpha() < 1 and by["common only (#3)"].get_alpha() < 1
    np.testing.assert_array_equal(narrow.get_ydata(), np.exp(-t / 11))
    points = {ln.get_label(): ln.get_color() for ln in a2.lines if ln.get_label().startswith("common")}
    assert to_rgba(points["common + doubles: #1"]) == to_rgba(wide.get_color())
    assert to_rgba(points["common only: #3"]) == to_rgba(by["common only (#3)"].get_color())
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    assert a1.get_legend().get_window_extent(r).y1 <= a1.get_window_extent(r).y0     # below the axis
    assert "race reduction" in a1.get_ylabel() and a1.get_title().startswith("k = 3 contexts")
