"""One gate image: `theorykit.io.gate_image` draws every gate panel (pathways or units by datapoints).

The compare gates figure, the prediction's figure and the validation's three gate panels each drew the
same image by hand (imshow in Greys from 0 to 1, whole-datapoint ticks, at most 16, "datapoint" below);
they now call the one helper, and a change to it reaches all of them.
"""
from __future__ import annotations

import numpy as np
import theorykit as tk
from theorykit.analysis import compare, predict_figure, predict_validate
from theorykit.io import gate_image, new_figure


def test_gate_image_draws_rows_by_datapoints_with_at_most_16_whole_ticks():
    gates = (np.arange(3 * 40).reshape(3, 40) % 3 == 0).astype(int)
    ax = new_figure().subplots()
    gate_image(ax, gates.tolist(), 40, ["a", "b", "c"], label_size=7)
    img = ax.get_images()[0]
    np.testing.assert_array_equal(img.get_array(), gates)          # one row per pathway, black (1) = on
    assert img.get_cmap().name == "Greys" and img.get_clim() == (0, 1)
    # 40 datapoints: a tick every ceil(40/16) = 3 datapoints, from 0: 0, 3, ..., 39, 14 ticks
    assert list(ax.get_xticks()) == list(range(0, 40, 3))
    assert ax.get_xlabel() == "datapoint"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    assert {t.get_fontsize() for t in ax.get_yticklabels()} == {7}


def test_no_rows_draws_an_empty_panel():
    ax = new_figure().subplots()
    gate_image(ax, [], 4, [])                    # Algorithm 1 found no pattern: an empty panel, no error
    assert ax.get_images()[0].get_array().shape == (0, 4)


def _spy(monkeypatch, module):
    calls = []

    def spy(ax, gates, datapoints, labels, **kw):
        calls.append((np.asarray(gates, float).reshape(-1, datapoints).shape, len(labels)))
        return gate_image(ax, gates, datapoints, labels, **kw)

    monkeypatch.setattr(module, "gate_image", spy)
    return calls


def test_every_gate_panel_is_drawn_by_the_one_helper(monkeypatch):
    pred = tk.predict_reln(tk.xor_margin(0.5), 16, tk.Training(lr=0.05, init_std=0.01, steps=300))
    calls = _spy(monkeypatch, predict_figure)     # the prediction's and the validation's figures are drawn there
    pred.figure()
    assert calls == [((len(pred.gates), 4), len(pred.gates))]

    val = predict_validate.validate_prediction(pred, seeds=1)
    calls = _spy(monkeypatch, predict_figure)
    val.figures(pred)
    assert len(calls) == 3 and calls[0] == ((len(pred.gates), 4), len(pred.gates))

    paths = tuple(tk.Pathway(f"g{i + 1}", tuple(int(j % 2 == i) for j in range(4)), hidden=4) for i in range(2))
    spec = tk.GDLNSpec(tk.xor_margin(1), paths, tk.Training(lr=0.1), "found-gates")
    steps = np.array([0, 50, 100])
    cmp = compare.Comparison(steps, steps, np.array([0.5, 0.3, 0.1]), np.array([0.5, 0.25, 0.1]), None, spec, 1e-3,
                             0.1, "mean")
    calls = _spy(monkeypatch, compare)
    cmp.gates_figure()
    assert calls == [((2, 4), 2)]
