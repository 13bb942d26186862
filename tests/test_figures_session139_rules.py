"""The figures that kept an old look because redrawing them needed a full run (CHANGELOG: "race_k4.png
[needs a] full run"). race-exhaust's exhaust.json now keeps what race_k<k>.png draws, and the figure is
drawn from that file's contents by one function (``plot_exhaust``), so ``redraw_exhaust(exhaust.json)``
redraws it without a race and cannot drift from the command's drawing (docs/race_k4.md)."""
import json

import numpy as np
import pytest

import theorykit.analysis.exhaust as ex
from theorykit.errors import SpecError
from theorykit.theory.race import RaceSystem


def _hand_result():
    """A race-exhaust result made by hand (no race): 3 families at k = 3, family i's curve exp(−t/(10 + i))
    over steps 0 … 49; "common + doubles" is #1 and named, "common only" #3 and named, #2 a top family."""
    t = np.arange(0.0, 50.0)
    fams = ["common+12+13+23", "common+1+12+13+23", "common"]
    curves = {f: np.exp(-t / (10 + i)).astype(np.float32) for i, f in enumerate(fams)}
    rows = [{"family": f, "area": 0.2 + 0.1 * i, "t_0.01": None, "rank_area": i + 1, "orbit": i}
            for i, f in enumerate(fams)]
    summary = {"k": 3, "named": {"common + doubles": rows[0], "common only": rows[2]}, "top20_by_area": rows}
    return ex.ExhaustResult(summary, t, curves, rows), t


@pytest.fixture
def no_race(monkeypatch):
    """Any race raises: a redraw that raced again fails the test."""
    def refuse(*a, **kw):
        raise AssertionError("a race was run: the redraw must read the saved file")
    for name in ("race_exhaust", "race_rk4", "exhaust_spec"):
        monkeypatch.setattr(ex, name, refuse)
    monkeypatch.setattr(RaceSystem, "solve", refuse)


def test_exhaust_json_keeps_the_figures_curves_from_a_small_race(tmp_path):
    """A real race at k = 3 (400 steps, RK4 step τ/2): exhaust.json's figure_data holds the recorded
    steps and, for each of the 4 named sets of k = 3 (named_families: common only, + singles, + doubles,
    all) and each of the top five families, the curve L(t)/L(0) (1 at step 0, by its definition), equal
    to the result's own curves; the figure's lines draw exactly those numbers."""
    res = ex.race_exhaust(3, steps=400, race_dt=2, progress=False)
    figs = []
    real = ex.write_figure
    ex_write = lambda fig, path, **kw: (figs.append(fig), real(fig, path, **kw))[1]     # noqa: E731
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ex, "write_figure", ex_write)
        paths = ex.write_outputs(res, tmp_path)
    fd = json.loads(paths["json"].read_text())["figure_data"]
    labels = ex.exhaust_spec(3)[3]
    named = set(ex.named_families(3, labels).values())
    assert len(named) == 4 and named <= set(fd["curves"])
    top5 = [r["family"] for r in res.summary["top20_by_area"][:5]]
    assert set(top5) <= set(fd["curves"])
    np.testing.assert_array_equal(fd["t"], res.t)
    for lab, c in res.curves.items():
        np.testing.assert_array_equal(fd["curves"][lab], c)
        assert fd["curves"][lab][0] == pytest.approx(1.0, rel=1e-6)
    drawn = {ln.get_label(): ln for ln in figs[0].axes[0].get_lines()}
    nm = {r["family"]: n for n, r in res.summary["named"].items()}
    for lab in named:
        ln = drawn[f"{nm[lab]} (#{res.summary['named'][nm[lab]]['rank_area']})"]
        np.testing.assert_array_equal(ln.get_ydata(), fd["curves"][lab])


def test_redraw_reads_the_saved_file_and_draws_its_numbers(tmp_path, monkeypatch, no_race):
    """redraw_exhaust draws what exhaust.json holds, not a rerun: the saved curve of family #2 is
    replaced in the file by 0.5·exp(−t/11) (no race gives that), and the redrawn line is exactly that;
    the x-data are the saved steps 0 … 49; the right panel's points are the saved areas 0.2, 0.3, 0.4."""
    res, t = _hand_result()
    paths = ex.write_outputs(res, tmp_path)
    data = json.loads(paths["json"].read_text())
    data["figure_data"]["curves"]["common+1+12+13+23"] = list(0.5 * np.exp(-t / 11))
    paths["json"].write_text(json.dumps(data))
    figs = []
    monkeypatch.setattr(ex, "write_figure", lambda fig, path, **kw: figs.append((fig, path)) or path)
    out = ex.redraw_exhaust(paths["json"])
    fig, where = figs[0]
    assert out == where == tmp_path / "race_k3.png"          # beside the JSON, named by its k
    by = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    assert sorted(by) == ["#2 common+1+12+13+23", "common + doubles (#1)", "common only (#3)"]
    np.testing.assert_array_equal(by["#2 common+1+12+13+23"].get_ydata(), 0.5 * np.exp(-t / 11))
    np.testing.assert_array_equal(by["common only (#3)"].get_ydata(), np.exp(-t / 12).astype(np.float32))
    np.testing.assert_array_equal(by["common only (#3)"].get_xdata(), np.arange(50.0))
    np.testing.assert_allclose(fig.axes[1].get_lines()[0].get_ydata(), [0.2, 0.3, 0.4], rtol=1e-15)
    assert fig.axes[0].get_yscale() == "log" and fig.axes[0].get_xlabel() == "gradient step"


def test_redraw_is_the_commands_drawing(tmp_path, no_race):
    """One drawing for the command and the redraw: the PNG redrawn from exhaust.json, into another file,
    has the same bytes as the one write_outputs wrote beside it."""
    res, _ = _hand_result()
    paths = ex.write_outputs(res, tmp_path)
    again = ex.redraw_exhaust(paths["json"], tmp_path / "again.png")
    assert again.read_bytes() == paths["figure"].read_bytes()


def test_redraw_refuses_a_json_without_the_figures_curves(tmp_path, no_race):
    """An exhaust.json written before the curves were kept (the k = 4 run of 2026-11-26): refused by name
    (figure_data) with the fix, a new run; a file that is not JSON or not race-exhaust's: named path."""
    res, _ = _hand_result()
    paths = ex.write_outputs(res, tmp_path)
    data = json.loads(paths["json"].read_text())
    del data["figure_data"]
    paths["json"].write_text(json.dumps(data))
    with pytest.raises(SpecError) as e:
        ex.redraw_exhaust(paths["json"])
    assert e.value.field == "figure_data" and "race-exhaust again" in str(e.value)
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "other.json").write_text('{"k": 3}')
    for name in ("bad.json", "other.json", "missing.json"):
        with pytest.raises(SpecError) as e:
            ex.redraw_exhaust(tmp_path / name)
        assert e.value.field == "path"
    with pytest.raises(SpecError):
        ex.redraw_exhaust(paths["json"], tmp_path / "x.jpg")        # a figure's ending is checked


# ------------------------------------------------------------------------------------------------
# Fig. 4a (validate contexts): fig4a_loss.json keeps its curves; redraw_fig4a draws the file again
# ------------------------------------------------------------------------------------------------
def _fig4a_module(monkeypatch):
    """validation.contexts_figures, its figures kept (fig, path) instead of written."""
    from theorykit.suites import load_package

    figs = __import__(load_package("validation").__name__ + ".contexts_figures", fromlist=["fig4a"])
    kept = []
    monkeypatch.setattr(figs, "write_figure", lambda fig, path, **kw: kept.append((fig, path)) or path)
    return figs, kept


def _hand_s4(n=31):
    """The suite's Fig. 4a inputs made by hand over steps 0 … n−1: 3 ReLU seeds, four GDLN runs of 2 seeds,
    races whose loss is c·t (c = 1, 2, 3), a fitted race and a staged theory."""
    import types
    rng = np.random.default_rng(5)
    t = np.arange(0.0, n)
    gdln = {key: rng.random((2, n)) + 0.1 for key in (("double", "joint"), ("double", "staged"),
                                                    ("single", "joint"), ("all seven", "joint"))}
    race = {nm: types.SimpleNamespace(loss_at=lambda tt, c=c: c * np.asarray(tt) + 1.0)
            for nm, c in (("double", 1.0), ("single", 2.0), ("all seven", 3.0))}
    return {"t": t, "relu": rng.random((3, n)) + 0.1, "gdln": gdln, "race": race,
            "fit_curve": rng.random(n) + 0.1, "staged": {"loss": rng.random(n) + 0.1, "note": "n"}}


def _lines(fig):
    return [{ln.get_label(): ln for ln in a.lines} for a in fig.axes]


def test_fig4a_redraw_reads_the_saved_json_and_draws_its_numbers(tmp_path, monkeypatch):
    """fig4a_loss.json (every 10th step: t = 0, 10, 20, 30) is drawn again by redraw_fig4a: the ReLU
    line replaced in the file by 5, 4, 3, 2 is drawn as 5, 4, 3, 2 (no run gives that), the race of
    loss 2t + 1 as 1, 21, 41, 61 (by hand), in both panels; the key reads the saved seed count (3)."""
    figs, kept = _fig4a_module(monkeypatch)
    figs.fig4a(_hand_s4(), tmp_path / "fig4a_loss.png")
    jpath = tmp_path / "fig4a_loss.json"
    d = json.loads(jpath.read_text())
    assert d["seeds"] == 3 and d["t"] == [0.0, 10.0, 20.0, 30.0]
    d["relu_mean"] = [5.0, 4.0, 3.0, 2.0]
    jpath.write_text(json.dumps(d))
    out = figs.redraw_fig4a(jpath)
    fig, path = kept[-1]
    assert out == path == tmp_path / "fig4a_loss.png"
    for by in _lines(fig):
        relu = by["ReLU network (mean ± std of 3 seeds)"]
        np.testing.assert_array_equal(relu.get_xdata(), [0, 10, 20, 30])
        np.testing.assert_array_equal(relu.get_ydata(), [5, 4, 3, 2])
        np.testing.assert_array_equal(by["race reduction, single (rule a0)"].get_ydata(), [1, 21, 41, 61])
        np.testing.assert_array_equal(by["ReLN double (GDLN, staged)"].get_ydata(), d["gdln_double_staged"])


def test_fig4a_redraw_has_the_suites_look(tmp_path, monkeypatch):
    """One drawing: the suite's figure and the one redrawn from its JSON have the same keys (titles and
    labels), line styles, widths, colours and draw order, axis scales and titles."""
    figs, kept = _fig4a_module(monkeypatch)
    figs.fig4a(_hand_s4(), tmp_path / "fig4a_loss.png")
    figs.redraw_fig4a(tmp_path / "fig4a_loss.json", tmp_path / "again.png")
    (run, _), (redrawn, where) = kept
    assert where == tmp_path / "again.png"

    def look(fig):
        keys = [(lg.get_title().get_text(), [t.get_text() for t in lg.get_texts()]) for lg in fig.legends]
        lines = [[(ln.get_label(), ln.get_linestyle(), ln.get_linewidth(), ln.get_color(), ln.get_zorder(),
                   ln.get_alpha()) for ln in a.lines] for a in fig.axes]
        return keys, lines, [(a.get_yscale(), a.get_title(), a.get_ylabel()) for a in fig.axes], fig._suptitle.get_text()
    assert look(run) == look(redrawn)
    assert [lg.get_title().get_text() for lg in run.legends] == ["simulation", "theory"]


def test_fig4a_redraw_refuses_a_json_without_what_it_draws(tmp_path, monkeypatch):
    """A fig4a_loss.json written before the seed count was kept: refused by that field, with the fix (run the
    suite again); a file that is not JSON: the path."""
    figs, _ = _fig4a_module(monkeypatch)
    figs.fig4a(_hand_s4(), tmp_path / "fig4a_loss.png")
    jpath = tmp_path / "fig4a_loss.json"
    d = json.loads(jpath.read_text())
    del d["seeds"]
    jpath.write_text(json.dumps(d))
    with pytest.raises(SpecError) as e:
        figs.redraw_fig4a(jpath)
    assert e.value.field == "seeds" and "validate contexts" in str(e.value)
    (tmp_path / "bad.json").write_text("[1,")
    with pytest.raises(SpecError) as e:
        figs.redraw_fig4a(tmp_path / "bad.json")
    assert e.value.field == "path"
