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
