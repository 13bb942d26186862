"""predict_contexts.png could not be redrawn without predicting again: ``Prediction.summary()`` (what
``predict --json`` and ``validate.json`` keep) held no curves, only the first and last loss. The summary
now keeps what the figure draws (``figure_data``), the figure is drawn from those numbers by one function
(``theorykit.analysis.predict_figure.plot_prediction``) both for a live prediction and for
``redraw_prediction(PRED.json)``, which reads the saved file and predicts nothing, as
``redraw_exhaust`` does for race-exhaust (tests/test_figures_session139_rules.py)."""
import json

import numpy as np
import pytest

import theorykit as tk
import theorykit.analysis.predict as predict_module
from theorykit.cli import main
from theorykit.errors import SpecError
from theorykit.io import write_json
from theorykit.theory.race import RaceSystem

XOR_TOML = ('[symbols]\nDelta = {positive = true}\n[data]\ntask = "xor-margin"\n'
            '[training]\nlr = 0.05\nloss = "mean"\ninit_std = 0.01\nsteps = 300\n')


def _pf():
    """The figure module (imported here, so that without it each test fails on its own assertion)."""
    from theorykit.analysis import predict_figure
    return predict_figure


@pytest.fixture(scope="module")
def xor_pred():
    """XoR at Δ = 0.5, H = 16, 300 steps: a race of three families (a second or two)."""
    return tk.predict_reln(tk.xor_margin(0.5), 16, tk.Training(lr=0.05, init_std=0.01, steps=300), progress=False)


@pytest.fixture
def no_prediction(monkeypatch):
    """Any prediction or race raises: a redraw that predicted again fails the test."""
    def refuse(*a, **kw):
        raise AssertionError("a prediction was run: the redraw must read the saved file")
    monkeypatch.setattr(predict_module, "predict_reln", refuse)
    monkeypatch.setattr(predict_module, "_race_families", refuse)
    monkeypatch.setattr(predict_module, "race_rk4", refuse)
    monkeypatch.setattr(tk, "predict_reln", refuse)
    monkeypatch.setattr(RaceSystem, "solve", refuse)


def _lines(fig):
    return {ln.get_label(): ln for ln in fig.axes[0].get_lines()}


def test_summary_keeps_what_the_figure_draws(xor_pred):
    """figure_data holds the race's steps (all 151 of 300 steps recorded every 2nd: under the cap), the
    predicted L(t)/L(0) (computed here from the prediction's own loss: 1 at step 0 by its definition) and the
    runner-up curves the figure draws (the curves after the prediction's own, at most four); XoR has no
    contexts, so no context lines (gate_group None). The live figure's lines draw exactly those numbers."""
    pred = xor_pred
    fd = pred.summary()["figure_data"]
    np.testing.assert_array_equal(fd["t"], pred.t)
    np.testing.assert_array_equal(fd["predicted"], np.asarray(pred.loss) / pred.loss[0])
    assert fd["predicted"][0] == 1.0
    labels = list(pred.curves)[1:5]
    assert list(fd["runners_up"]) == labels and len(labels) >= 1
    for lab in labels:
        np.testing.assert_array_equal(fd["runners_up"][lab], pred.curves[lab])
    assert fd["gate_group"] is None
    drawn = _lines(pred.figure())
    np.testing.assert_array_equal(drawn["predicted ReLN (race)"].get_ydata(), fd["predicted"])
    np.testing.assert_array_equal(drawn["predicted ReLN (race)"].get_xdata(), fd["t"])
    for lab in labels:
        np.testing.assert_array_equal(drawn[f"runner-up: orbits {lab}"].get_ydata(), fd["runners_up"][lab])


def test_predict_json_and_validate_json_keep_the_figure_data(tmp_path):
    """Both files the command writes with the prediction (--json, and validate.json of --validate --html)
    hold prediction.figure_data, the same in both; from either the figure is redrawn."""
    spec = tmp_path / "xor.toml"
    spec.write_text(XOR_TOML)
    pj, html = tmp_path / "pred.json", tmp_path / "val"
    assert main(["predict", str(spec), "--hidden", "16", "--set", "Delta=0.5", "--no-progress", "--validate",
                 "--seeds", "1", "--html", str(html), "--json", str(pj), "--out", str(tmp_path / "pred.toml")]) == 0
    fd = json.loads(pj.read_text())["prediction"]["figure_data"]
    assert fd == json.loads((html / "validate.json").read_text())["prediction"]["figure_data"]
    assert len(fd["t"]) == len(fd["predicted"]) >= 2 and fd["t"][0] == 0 and fd["t"][-1] == 300
    assert fd["predicted"][0] == 1.0
    assert _pf().redraw_prediction(pj) == tmp_path / "pred.png" and (tmp_path / "pred.png").stat().st_size > 0
    assert _pf().redraw_prediction(html / "validate.json").exists()


def test_redraw_reads_the_saved_file_and_draws_its_numbers(tmp_path, monkeypatch, xor_pred, no_prediction):
    """redraw_prediction draws what the file holds, not a new prediction: the saved predicted curve is replaced
    by 0.5·exp(−t/11) and the first runner-up's by exp(−t/7) (no race gives either), the half-way step by 42
    and the first pathway's gates by 1010; the redrawn lines and gate image are exactly those."""
    pf = _pf()
    path = tmp_path / "pred.json"
    write_json(path, {"prediction": xor_pred.summary()})
    data = json.loads(path.read_text())
    fd = data["prediction"]["figure_data"]
    t = np.asarray(fd["t"])
    fd["predicted"] = list(0.5 * np.exp(-t / 11))
    first = next(iter(fd["runners_up"]))
    fd["runners_up"][first] = list(np.exp(-t / 7))
    data["prediction"]["t_half"] = 42.0
    data["prediction"]["pathways"][0]["active"] = [1, 0, 1, 0]
    path.write_text(json.dumps(data))
    figs = []
    monkeypatch.setattr(pf, "write_figure", lambda fig, out, **kw: figs.append((fig, out)) or out)
    out = pf.redraw_prediction(path)
    fig, where = figs[0]
    assert out == where == tmp_path / "pred.png"           # beside the JSON
    drawn = _lines(fig)
    np.testing.assert_array_equal(drawn["predicted ReLN (race)"].get_ydata(), 0.5 * np.exp(-t / 11))
    np.testing.assert_array_equal(drawn["predicted ReLN (race)"].get_xdata(), t)
    np.testing.assert_array_equal(drawn[f"runner-up: orbits {first}"].get_ydata(), np.exp(-t / 7))
    assert list(drawn["half-way, step 42"].get_xdata()) == [42.0, 42.0]
    img = np.asarray(fig.axes[1].images[0].get_array())
    np.testing.assert_array_equal(img[0], [1, 0, 1, 0])
    assert img.shape == (len(data["prediction"]["pathways"]), 4)


def test_redraw_is_the_live_drawing(tmp_path, xor_pred):
    """One drawing: Prediction.plot's PNG and the one redrawn from its written summary (a bare summary, as
    Python writes it) have the same bytes."""
    live = xor_pred.plot(tmp_path / "live.png")
    write_json(tmp_path / "summary.json", xor_pred.summary())
    again = _pf().redraw_prediction(tmp_path / "summary.json", tmp_path / "again.png")
    assert again.read_bytes() == live.read_bytes()


def test_a_long_race_keeps_at_most_the_capped_points():
    """A race of 8000 steps records 8001; figure_data keeps 1001 of them, every 8th (8000 / 1000), the first
    and the last, with the curve's values there: the loss 3·exp(−t/1000) is kept as exp(−t/1000) (over
    L(0) = 3). Of six families' curves the first is the prediction's own and the next four are kept. A
    contexts(8, 3) task's columns are context-major, 8 items per context: the gate panel's group is 8."""
    pf = _pf()
    t = np.arange(8001.0)
    loss = 3 * np.exp(-t / 1000)
    curves = {f"f{i}": np.exp(-t / (1000 + 100 * i)) for i in range(6)}
    fd = pf.figure_data(t, loss, curves, tk.contexts(8, 3))
    assert len(fd["t"]) == 1001 == pf.FIGURE_POINTS
    np.testing.assert_array_equal(fd["t"], np.arange(0.0, 8001.0, 8.0))
    np.testing.assert_allclose(fd["predicted"], np.exp(-np.arange(0.0, 8001.0, 8.0) / 1000), rtol=1e-13)
    assert list(fd["runners_up"]) == ["f1", "f2", "f3", "f4"]
    np.testing.assert_array_equal(fd["runners_up"]["f4"], np.exp(-np.arange(0.0, 8001.0, 8.0) / 1400))
    assert fd["gate_group"] == 8


def test_a_file_without_the_figure_data_is_refused_naming_it(tmp_path, xor_pred, no_prediction):
    """A JSON written before the curves were kept: refused by name (prediction.figure_data, or figure_data in a
    bare summary) with the fix, predict again; a file that is not JSON, missing, or holds no prediction: named
    path; a figure whose ending is no figure format: named figure."""
    pf = _pf()
    doc = json.loads(json.dumps({"prediction": xor_pred.summary()}))
    del doc["prediction"]["figure_data"]
    (tmp_path / "old.json").write_text(json.dumps(doc))
    with pytest.raises(SpecError) as e:
        pf.redraw_prediction(tmp_path / "old.json")
    assert e.value.field == "prediction.figure_data" and "predict again" in e.value.fix
    assert not (tmp_path / "old.png").exists()
    (tmp_path / "bare.json").write_text(json.dumps(doc["prediction"]))
    with pytest.raises(SpecError) as e:
        pf.redraw_prediction(tmp_path / "bare.json")
    assert e.value.field == "figure_data" and "predict again" in e.value.fix
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "other.json").write_text('{"k": 3}')
    for name in ("bad.json", "other.json", "missing.json"):
        with pytest.raises(SpecError) as e:
            pf.redraw_prediction(tmp_path / name)
        assert e.value.field == "path" and "theorykit predict --json" in e.value.fix
    with pytest.raises(SpecError) as e:
        pf.redraw_prediction(tmp_path / "old.json", tmp_path / "x.jpg")
    assert e.value.field == "figure"
