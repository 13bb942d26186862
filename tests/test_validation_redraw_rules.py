"""``predict --validate``'s figures (loss.png, gates.png; docs' predict_contexts_loss.png and _gates.png)
could not be redrawn without training again: validate.json's ``validation`` kept no ReLU loss curves and
no unit patterns beyond the top 20. It now keeps ``figure_data``, what the two figures draw (each network's
loss, their mean and the predicted race over L(0), at most FIGURE_POINTS steps, capped as the prediction's
figure is; the gate panels' rows); ``Validation.figures`` and ``redraw_validation(validate.json)`` draw it by
one function (``theorykit.analysis.predict_figure.plot_validation``), and the redraw reads the saved file
and trains nothing, as ``redraw_prediction`` does (tests/test_predict_redraw_rules.py)."""
import json
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
import theorykit.analysis._runs as runs_module
import theorykit.analysis.findgates as findgates_module
import theorykit.analysis.predict as predict_module
import theorykit.analysis.predict_validate as pv
import theorykit.sim.engine as engine_module
from theorykit.cli import main
from theorykit.errors import SpecError
from theorykit.io import write_json
from theorykit.theory.race import RaceSystem

XOR_TOML = ('[symbols]\nDelta = {positive = true}\n[data]\ntask = "xor-margin"\n'
            '[training]\nlr = 0.05\nloss = "mean"\ninit_std = 0.01\nsteps = 300\n')


def _pf():
    """The figure module (imported here, so that without its validation figure each test fails on its own)."""
    from theorykit.analysis import predict_figure
    return predict_figure


def _hand_validation(monkeypatch):
    """validate_prediction on a run given by hand (tests/test_predict_rules.py's): two seeds of three units
    on two datapoints (X = I), losses (4, 2, 2, 2, 6) and (2, 2, 2, 0, 2), the predicted race (3, 2, 3, 1, 1);
    Algorithm 1 "finds" 10 (3 of 4 hidden units) and 11 (1 of 4). No training runs."""
    W1 = np.array([[[1, 0], [0, 2], [3, 4]], [[-3, -4], [2, 0], [0, 1]]], float)
    snaps = np.zeros((2, 3, 3, 2), bool)
    relu = SimpleNamespace(loss=np.array([[4, 2, 2, 2, 6], [2, 2, 2, 0, 2]], float), params=[W1, np.ones((2, 1, 3))],
                           snapshots=snaps, t_ck=np.array([0, 50, 100, 200]))
    found = SimpleNamespace(pathways=[SimpleNamespace(active=(1, 0), hidden=3),
                                      SimpleNamespace(active=(1, 1), hidden=1)], hidden_total=4)
    monkeypatch.setattr(pv, "find_gates", lambda task, **kw: SimpleNamespace(run=relu, spec=found))
    pred = SimpleNamespace(task=tk.Task(sp.eye(2), sp.Matrix([[1, 1]])), hidden=3,
                           training=tk.Training(lr=0.05, loss="mean", init_std=0.01, steps=200),
                           gates=np.array([[1, 0], [0, 1]], bool), t=np.arange(5.0),
                           loss=np.array([3, 2, 3, 1, 1], float), t_half=60.0)
    return pv.validate_prediction(pred, seeds=2), pred


def _refuse(*a, **kw):
    raise AssertionError("a network was trained or a prediction run: the redraw must read the saved file")


@pytest.fixture
def no_training(monkeypatch):
    """Any training, prediction or race raises: a redraw that ran one fails the test (a test that builds its
    Validation by hand sets predict_validate.find_gates back to _refuse after)."""
    # tk first: theorykit's lazy tk.predict_reln, read after predict.predict_reln was replaced, would be
    # recorded as the refusal and "restored" as such, for every later test
    for module, name in ((tk, "predict_reln"), (pv, "find_gates"), (findgates_module, "find_gates"),
                         (findgates_module, "train_relu"), (runs_module, "train_relu"), (engine_module, "train"),
                         (predict_module, "predict_reln"), (predict_module, "_race_families"),
                         (predict_module, "race_rk4"), (RaceSystem, "solve")):
        monkeypatch.setattr(module, name, _refuse)


def _loss_lines(fig):
    """Per panel (linear, log): the drawn lines' y-data, in drawing order."""
    return [[np.asarray(ln.get_ydata(), float) for ln in a.get_lines()] for a in fig.axes[:2]]


def _images(fig):
    return [np.asarray(a.images[0].get_array()) for a in fig.axes[:3]]


def test_summary_keeps_what_the_figures_draw(monkeypatch):
    """By hand: L(0) = mean(4, 2) = 3; each network's loss over 3 is (4, 2, 2, 2, 6)/3 and (2, 2, 2, 0, 2)/3,
    their mean (3, 2, 2, 1, 4)/3, the race (3, 2, 3, 1, 1)/3 (its steps are the training's). Unit weights
    ‖W1_j‖·‖W2_j‖ (W2 all ones): seed 0's units 10, 01, 11 weigh 1, 2, 5, seed 1's 00, 10, 01 weigh 5, 2, 1:
    11 and 00 hold 5/16 each, 10 and 01 3/16 each. The live figures draw exactly those numbers."""
    val, pred = _hand_validation(monkeypatch)
    fd = val.summary()["figure_data"]
    assert fd["t"] == [0.0, 1.0, 2.0, 3.0, 4.0] and fd["L0"] == 3.0
    np.testing.assert_allclose(fd["relu"], [[4 / 3, 2 / 3, 2 / 3, 2 / 3, 2.0], [2 / 3, 2 / 3, 2 / 3, 0.0, 2 / 3]],
                               rtol=1e-15)
    np.testing.assert_allclose(fd["relu_mean"], [1.0, 2 / 3, 2 / 3, 1 / 3, 4 / 3], rtol=1e-15)
    np.testing.assert_allclose(fd["predicted"], [1.0, 2 / 3, 1.0, 1 / 3, 1 / 3], rtol=1e-15)
    assert fd["predicted_gates"] == [[1, 0], [0, 1]]
    assert fd["found"] == [{"active": [1, 0], "share": 0.75}, {"active": [1, 1], "share": 0.25}]
    assert sorted((tuple(r["active"]), r["share"]) for r in fd["relu_units"]) == [
        ((0, 0), 5 / 16), ((0, 1), 3 / 16), ((1, 0), 3 / 16), ((1, 1), 5 / 16)]
    assert (fd["task"], fd["hidden"], fd["lr"], fd["loss"], fd["seeds"]) == ("your data, 2 datapoints", 3, 0.05,
                                                                              "mean", 2)
    assert fd["gate_group"] is None
    f1, f2 = val.figures()                  # the prediction checked, kept by the Validation
    for lines in _loss_lines(f1):           # seed 0, seed 1, the mean, the race: in both panels
        for drawn, want in zip(lines, fd["relu"] + [fd["relu_mean"], fd["predicted"]]):
            np.testing.assert_array_equal(drawn, want)
        assert len(lines) == 4
    img = _images(f2)
    np.testing.assert_array_equal(img[0], [[1, 0], [0, 1]])
    np.testing.assert_array_equal(img[2], [[1, 0], [1, 1]])
    assert val.figures(pred)[0]._suptitle.get_text() == f1._suptitle.get_text()


def test_a_long_run_keeps_at_most_the_capped_points():
    """8001 recorded steps (a run of 8000): figure_data keeps 1001, every 8th (8000 / 1000), first and last,
    the same steps the prediction's figure_data keeps; network s's loss (s + 1)·exp(−t/1000) over L(0) =
    mean(1, 2) = 1.5 at those steps; contexts(4, 3)'s gate panels split every 4 datapoints."""
    pf = _pf()
    t = np.arange(8001.0)
    L = np.array([np.exp(-t / 1000), 2 * np.exp(-t / 1000)])
    P = 12
    val = pv.Validation(t, L, np.exp(-t / 500), 0.1, 0.2, 0.5, 0.5, [((1,) * P, 1.0)], 0.0, 2, [[1] * P],
                        [("1" * P, 1.0)])
    pred = SimpleNamespace(task=tk.contexts(4, 3), hidden=24, training=tk.Training(lr=0.05, loss="mean"))
    fd = val.summary(pred)["figure_data"]
    kept = np.arange(0.0, 8001.0, 8.0)
    assert len(fd["t"]) == 1001 == pf.FIGURE_POINTS
    np.testing.assert_array_equal(fd["t"], kept)
    np.testing.assert_allclose(fd["relu"][1], 2 * np.exp(-kept / 1000) / 1.5, rtol=1e-13)
    np.testing.assert_allclose(fd["relu_mean"], np.exp(-kept / 1000), rtol=1e-13)
    np.testing.assert_allclose(fd["predicted"], np.exp(-kept / 500) / 1.5, rtol=1e-13)
    assert fd["t"] == pf.figure_data(t, np.ones(8001), {}, None)["t"]      # one capping for both figures
    assert fd["gate_group"] == 4


def test_redraw_reads_the_saved_file_and_draws_its_numbers(tmp_path, monkeypatch, no_training):
    """What the file holds is drawn, not a new run: the saved curves are replaced by numbers no run gives
    (a network's (1, 1/2, 1/4, 1/8, 1/16), the mean 0.9^t, the race 0.5·exp(−t/11)), the first predicted
    pathway's gates by 11, a unit pattern by 01 at share 0.42; the redrawn lines and panels are exactly those."""
    pf = _pf()
    val, pred = _hand_validation(monkeypatch)
    monkeypatch.setattr(pv, "find_gates", _refuse)
    path = tmp_path / "validate.json"
    write_json(path, {"prediction": {"hidden": 3}, "validation": val.summary()})
    data = json.loads(path.read_text())
    fd = data["validation"]["figure_data"]
    t = np.asarray(fd["t"])
    fd["relu"] = [[1, 0.5, 0.25, 0.125, 0.0625]]
    fd["relu_mean"] = list(0.9 ** t)
    fd["predicted"] = list(0.5 * np.exp(-t / 11))
    fd["predicted_gates"][0] = [1, 1]
    fd["relu_units"] = [{"active": [0, 1], "share": 0.42}]
    fd["seeds"], fd["rms_gap"] = 7, 0.123
    path.write_text(json.dumps(data))
    figs = []
    monkeypatch.setattr(pf, "write_figure", lambda fig, out, **kw: figs.append((fig, out)) or out)
    assert pf.redraw_validation(path) == (tmp_path / "loss.png", tmp_path / "gates.png")   # beside the JSON
    (f1, out1), (f2, out2) = figs
    assert (out1, out2) == (tmp_path / "loss.png", tmp_path / "gates.png")
    for lines in _loss_lines(f1):
        assert len(lines) == 3
        np.testing.assert_array_equal(lines[0], [1, 0.5, 0.25, 0.125, 0.0625])
        np.testing.assert_array_equal(lines[1], 0.9 ** t)
        np.testing.assert_array_equal(lines[2], 0.5 * np.exp(-t / 11))
    assert "vs 7 ReLU networks" in f1._suptitle.get_text() and "RMS gap 0.123 L(0)" in f1._suptitle.get_text()
    img = _images(f2)
    np.testing.assert_array_equal(img[0], [[1, 1], [0, 1]])
    np.testing.assert_array_equal(img[1], [[0, 1]])
    assert [x.get_text() for x in f2.axes[1].get_yticklabels()] == ["#1  42 %"]


def test_the_command_keeps_the_figure_data_and_its_redraw_is_the_live_drawing(tmp_path):
    """predict --validate --html: validate.json holds validation.figure_data (300 steps: all 301 kept, under
    the cap; the race and the networks start at L/L(0) = 1 for one seed); redrawn from the file, loss.png and
    gates.png have the bytes the command wrote, and a live Validation's lines are its redraw's."""
    spec = tmp_path / "xor.toml"
    spec.write_text(XOR_TOML)
    html = tmp_path / "val"
    assert main(["predict", str(spec), "--hidden", "16", "--set", "Delta=0.5", "--no-progress", "--validate",
                 "--seeds", "1", "--html", str(html), "--out", str(tmp_path / "pred.toml")]) == 0
    fd = json.loads((html / "validate.json").read_text())["validation"]["figure_data"]
    assert fd["t"] == list(np.arange(301.0)) and fd["relu"][0][0] == 1.0 == fd["relu_mean"][0]
    pf = _pf()
    loss, gates = pf.redraw_validation(html / "validate.json", tmp_path / "loss2.png", tmp_path / "gates2.png")
    assert loss.read_bytes() == (html / "loss.png").read_bytes()
    assert gates.read_bytes() == (html / "gates.png").read_bytes()
    pred = tk.predict_reln(tk.xor_margin(0.5), 16, tk.Training(lr=0.05, init_std=0.01, steps=300), progress=False)
    val = pv.validate_prediction(pred, seeds=1, html_dir=tmp_path / "live")
    live = val.figures()
    saved = json.loads((tmp_path / "live" / "validate.json").read_text())["validation"]["figure_data"]
    again = pf.plot_validation(saved)
    for la, lb in zip(_loss_lines(live[0]), _loss_lines(again[0]), strict=True):
        assert len(la) == len(lb) == 3                  # one network, the mean, the race
        for x, y in zip(la, lb, strict=True):
            np.testing.assert_array_equal(x, y)
    for x, y in zip(_images(live[1]), _images(again[1]), strict=True):
        np.testing.assert_array_equal(x, y)


def test_an_old_file_is_refused_naming_the_field(tmp_path, monkeypatch, no_training):
    """validate.json written before figure_data was kept: refused as validation.figure_data (figure_data in a
    bare summary), with the fix, run predict --validate --html again; nothing drawn. Not JSON, missing, no
    validation in it: named path. A figure ending in no figure format: named loss or gates. A Validation that
    knows no prediction keeps figure_data None (refused on redraw) and its figures() asks for the prediction."""
    pf = _pf()
    val, _ = _hand_validation(monkeypatch)
    monkeypatch.setattr(pv, "find_gates", _refuse)
    doc = json.loads(json.dumps({"validation": val.summary()}))
    del doc["validation"]["figure_data"]
    (tmp_path / "old.json").write_text(json.dumps(doc))
    with pytest.raises(SpecError) as e:
        pf.redraw_validation(tmp_path / "old.json")
    assert e.value.field == "validation.figure_data" and "--validate --html" in e.value.fix
    assert not (tmp_path / "loss.png").exists() and not (tmp_path / "gates.png").exists()
    (tmp_path / "bare.json").write_text(json.dumps(doc["validation"]))
    with pytest.raises(SpecError) as e:
        pf.redraw_validation(tmp_path / "bare.json")
    assert e.value.field == "figure_data" and "--validate --html" in e.value.fix
    bare = pv.Validation(*[getattr(val, k) for k in ("t", "relu_loss", "pred_loss", "rms_gap", "max_gap",
                                                     "weight_share", "jaccard", "found", "gate_change_share",
                                                     "seeds", "predicted", "top_unit_patterns")])
    assert bare.summary()["figure_data"] is None
    write_json(tmp_path / "none.json", {"validation": bare.summary()})
    with pytest.raises(SpecError) as e:
        pf.redraw_validation(tmp_path / "none.json")
    assert e.value.field == "validation.figure_data"
    with pytest.raises(SpecError) as e:
        bare.figures()
    assert e.value.field == "pred"
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "other.json").write_text('{"k": 3}')
    for name in ("bad.json", "other.json", "missing.json"):
        with pytest.raises(SpecError) as e:
            pf.redraw_validation(tmp_path / name)
        assert e.value.field == "path" and "validate.json" in e.value.fix
    with pytest.raises(SpecError) as e:
        pf.redraw_validation(tmp_path / "old.json", tmp_path / "x.jpg")
    assert e.value.field == "loss"
    with pytest.raises(SpecError) as e:
        pf.redraw_validation(tmp_path / "old.json", None, tmp_path / "x.gif")
    assert e.value.field == "gates"
