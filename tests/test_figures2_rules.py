"""Figures and pages a person would rather look at than read (round 2), checked through matplotlib's
object API on the Figure each returns (no image comparison) and on the HTML each writes:

* the XoR sweep figure of docs/predict.md (``predict_xor_sweep.png``) is drawn by a script the page
  names, ``examples/predict/xor_sweep.py``, and its numbers are the page's table;
* Fig. 2e says what loss it plots (the mean over the four datapoints), in gradient steps, and which
  task and protocol;
* ``Prediction._repr_html_``'s runner-up table has a header row;
* the xor validation row does not say "never halved its loss at 0 of 21 Δ".

Expected values are worked out by hand in each test (the page's table, the task's layout), never read
off the code under test.
"""
from __future__ import annotations

import importlib.util
import math
import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.analysis.predict import predict_reln
from theorykit.spec.gating import Training

ROOT = Path(__file__).resolve().parents[1]


def _xor_sweep():
    spec = importlib.util.spec_from_file_location("xor_sweep", ROOT / "examples" / "predict" / "xor_sweep.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------------------------
# 1. the XoR sweep of docs/predict.md can be regenerated
# ---------------------------------------------------------------------------------------------
def test_the_xor_sweep_figure_is_drawn_by_the_script_the_page_names():
    page = (ROOT / "docs" / "predict.md").read_text()
    assert "predict_xor_sweep.png" in page and "examples/predict/xor_sweep.py" in page
    sw = _xor_sweep()
    # the page's table: Δ = 0.3 … 1.5, four pathways up to 0.81, two from 0.82 (Δ* = √(2/3) = 0.8165)
    table = [0.3, 0.45, 0.6, 0.7, 0.75, 0.78, 0.8, 0.81, 0.82, 0.83, 0.85, 0.9, 1.0, 1.2, 1.5]
    assert list(sw.DELTAS) == table
    assert sw.DSTAR == pytest.approx(math.sqrt(2 / 3), abs=1e-15)
    rows = [{"delta": d, "pathways": 4 if d < 0.8165 else 2, "t_half": 100.0, "area": 0.05} for d in table]
    fig = sw.figure(rows)
    a0, a1 = fig.axes[:2]
    xs, ys = a0.lines[0].get_data()
    assert list(xs) == table and list(ys) == [r["pathways"] for r in rows]
    assert [t.get_text() for t in a0.get_yticklabels()] == ["2: linear ReLN", "4: XoR ReLN"]
    assert "gradient steps" in a1.get_ylabel() and "Δ" in a0.get_xlabel() and "Δ" in a1.get_xlabel()
    for ax in (a0, a1):    # Δ* marked on both panels, and named in their legends
        assert any(np.allclose(ln.get_xdata(), math.sqrt(2 / 3)) for ln in ax.lines)
        assert any("Δ*" in t.get_text() for t in ax.get_legend().get_texts())
        assert ax.get_title()


def test_the_xor_sweep_gives_the_pages_pathway_counts_at_the_switch():
    # the page: four pathways at Δ = 0.81, two at 0.82 (the switch at Δ* = 0.8165 lies between)
    rows = _xor_sweep().sweep(deltas=(0.81, 0.82))
    assert [r["pathways"] for r in rows] == [4, 2]


# ---------------------------------------------------------------------------------------------
# 3. the runner-up table of Prediction's HTML has a header row
# ---------------------------------------------------------------------------------------------
def test_prediction_html_runner_up_table_has_a_header_row():
    # XoR at Δ = 1/2: exhaustive over 2 orbits gives 3 families, so the winner and 2 runner-ups
    tr = Training(lr=0.05, loss="mean", init_std=0.01, steps=300)
    pred = predict_reln(tk.xor_margin(sp.Rational(1, 2)), 16, tr, search="exhaustive", progress=False)
    assert len(pred.runners_up) == 2
    html = pred._repr_html_()
    tables = re.findall(r"<table>(.*?)</table>", html, flags=re.S)
    assert len(tables) == 2
    ru = tables[1]
    first = re.match(r"<tr>(.*?)</tr>", ru).group(1)
    assert re.findall(r"<th>(.*?)</th>", first) == ["orbits", "pathways", "area"]
    assert ru.count("<tr>") == 1 + 2     # the header and one row per runner-up


# ---------------------------------------------------------------------------------------------
# 4. the xor report's "never halved" clause when no Δ was missed
# ---------------------------------------------------------------------------------------------
def test_xor_report_does_not_say_never_halved_at_zero_deltas():
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_mutation_validation_rules import _xor_claims
    from theorykit.suites import load_suite

    # the hand-built grid: every ReLU run halves its loss (learning times the faster ReLN's t½ × 0.99, 1.01)
    rows, res = _xor_claims(load_suite("xor"))
    row = rows["finding1-learning-time"]
    assert row["measured"]["deltas_relu_never_learned"] == 0
    n = row["measured"]["deltas"]
    assert "never halved its loss at 0 of" not in row["agreement"]
    assert f"halved its loss at all {n} Δ" in row["agreement"]


# ---------------------------------------------------------------------------------------------
# 2. the suites' figures say what loss, in gradient steps, on which task and protocol
# ---------------------------------------------------------------------------------------------
def _validation_module(name, monkeypatch, kept):
    from theorykit.suites import load_package

    mod = __import__(load_package("validation").__name__ + "." + name, fromlist=["x"])
    monkeypatch.setattr(mod, "write_figure", lambda fig, path, **kw: kept.append(fig) or Path(path))
    if hasattr(mod, "write_json"):
        monkeypatch.setattr(mod, "write_json", lambda *a, **kw: None)
    return mod


def test_fig2d_and_fig2e_name_the_loss_the_gradient_steps_the_task_and_protocol(monkeypatch, tmp_path):
    kept = []
    figs = _validation_module("xor_figures", monkeypatch, kept)
    deltas = np.array([0.0, 0.4, 0.8, 1.2])
    times = np.arange(0.0, 301.0)
    rng = np.random.default_rng(0)
    curves = lambda: rng.random((deltas.size, 2, times.size)) * 0.5         # Δ × seeds × steps  # noqa: E731
    A = {"relu_lt_med": np.array([150.0, 140.0, 120.0, 80.0]), "relu_q": (np.full(4, 70.0), np.full(4, 160.0)),
         "cf_lt_rule": {"linear": np.array([np.nan, 300.0, 130.0, 80.0]), "xor": np.array([150.0, 145.0, 125.0, 110.0])},
         "sim_lt_med": {"linear": np.array([np.nan, 300.0, 130.0, 80.0]), "xor": np.array([150.0, 145.0, 125.0, 110.0])},
         "crossover_sim": 0.85, "relu_curves": curves(),
         "cf_rule": {n: rng.random((deltas.size, times.size)) for n in ("linear", "xor")},
         "sims": {"linear": curves(), "xor": curves()}}
    cfg = {"lr": 0.05, "init_std": 0.01, "seeds": 2, "hidden": 128, "curve_deltas": [0.0, 0.4, 0.8, 1.2]}
    figs.figures(tmp_path, cfg, {"crossover_float": math.sqrt(2 / 3)}, deltas, times, A)
    f2d, f2e = kept
    ax = f2d.axes[0]
    assert "gradient steps" in ax.get_ylabel()
    for text in (ax.get_title(), f2e._suptitle.get_text()):
        # the task, the network, the protocol: mean loss, full-batch gradient descent, η, σ, seeds
        for words in ("XoR with a margin", "128 hidden units", "gradient descent on the mean loss", "η = 0.05",
                      "init std 0.01", "2 seeds"):
            assert words in text, (words, text)
    panels = [a for a in f2e.axes if a.axison]
    assert len(panels) == 4
    for a, d in zip(panels, deltas):
        assert a.get_xlabel() == "gradient step"
        assert a.get_ylabel() == "mean loss ½ (y − ŷ)² over the 4 datapoints"
        # Δ* = √(2/3) = 0.8165: the XoR ReLN is faster at 0, 0.4 and 0.8, the linear one at 1.2
        assert ("XoR ReLN faster" if d < 0.8165 else "linear ReLN faster") in a.get_title()
    # the numbers are the ones given: the ReLU mean over seeds, up to the panel's last step (4 × t½ or the run)
    i = 1
    x, y = panels[i].lines[0].get_data()
    sel = times <= min(4 * A["relu_lt_med"][i], times[-1])
    assert np.array_equal(x, times[sel]) and np.allclose(y, A["relu_curves"][i].mean(0)[sel])


def test_fig_digits_names_its_loss_steps_and_protocol(monkeypatch):
    kept = []
    gates = _validation_module("gates", monkeypatch, kept)
    t = np.arange(0.0, 4001.0, 100.0)
    rows = [{"K": k, "sim_loss": np.exp(-t / 1000) / k, "race_loss": np.exp(-t / 900) / k, "sim_max_rel_err": 0.1 * k,
             "race_max_rel_err": 0.12 * k, "sim_final_rel_err": 0.2, "race_final_rel_err": 0.3} for k in (1, 2, 4, 8)]
    dg = {"t": t, "relu_loss": np.exp(-t / 800), "rows": rows, "K_elbow": 2, "X_shape": [64, 900],
          "settings": {"classes": 5, "images": 900, "hidden": 200, "init_std": 1e-3, "lr": 0.05, "steps": 4000,
                       "seeds": 5}}
    gates._fig_digits(dg, Path("fig_digits.png"))
    fig = kept[0]
    a0, a1 = fig.axes
    assert a0.get_xlabel() == "gradient step" and a0.get_ylabel() == "mean loss over the 900 images"
    assert a1.get_ylabel() and "K" in a1.get_xlabel()
    title = fig._suptitle.get_text()
    for words in ("digits 0–4", "900 images", "200 hidden units", "gradient descent on the mean loss", "η = 0.05",
                  "5 seeds"):
        assert words in title, (words, title)
    assert np.allclose(a0.lines[0].get_ydata(), dg["relu_loss"])


def test_fig6_and_fig5_say_the_loss_is_summed_over_the_datapoints_in_gradient_steps(monkeypatch):
    kept = []
    depth = _validation_module("depth", monkeypatch, kept)
    t = np.arange(0.0, 50.0)
    L = np.exp(-t / 10)[None, :] * np.array([[1.0], [2.0]])
    out = {k: {"stereotypical_run": 0, "t_align": [1.0, 2.0], "t_half_loss": [3.0, 4.0]} for k in ("relu", "gdln")}
    depth._fig6(t, L, L, out, L[0], Path("fig6.png"), {"hidden": 96})
    ax = kept[0].axes
    for a in ax[:2]:
        assert a.get_xlabel() == "gradient step" and a.get_ylabel() == "loss summed over all datapoints"
    assert ax[2].get_ylabel() == "gradient step at which the loss halves"
    kept.clear()
    figs = _validation_module("contexts_figures", monkeypatch, kept)
    c = {"t": t, "relu": L, "gdln": L, "closed_form": L[0], "closed_form_fit": L[0], "race": L[0]}
    figs.fig5({"3": {"_curves": c, "gamma": 1.0}}, Path("fig5.png"))
    a = kept[0].axes[0]
    assert a.get_xlabel() == "gradient step" and a.get_ylabel() == "loss (summed over the datapoints)"


@pytest.mark.parametrize("loss, word", [("mean", "averaged"), ("sum", "summed")])
def test_compare_figure_names_its_loss_and_gradient_steps(loss, word):
    """A found spec on contexts(2, 2): P = 2 items × 2 contexts = 4 datapoints; the loss label said "loss (mean)"."""
    from theorykit.analysis.compare import Comparison

    paths = (tk.Pathway("g1", (1, 1, 0, 0), hidden=2), tk.Pathway("g2", (1, 1, 1, 1), hidden=2))
    spec = tk.GDLNSpec(tk.contexts(2, 2), paths, tk.Training(lr=0.1), "found-gates")
    steps = np.array([0, 50, 100])
    cmp = Comparison(steps, steps, np.array([0.5, 0.3, 0.1]), np.array([0.5, 0.25, 0.1]), None, spec, 1e-3, 0.1, loss)
    for ax in cmp.figure().axes:
        assert ax.get_xlabel() == "gradient step"
        assert ax.get_ylabel() == f"loss, ½ ‖y − ŷ‖² {word} over the 4 datapoints"
        assert list(ax.lines[0].get_ydata()) == [0.5, 0.3, 0.1]
