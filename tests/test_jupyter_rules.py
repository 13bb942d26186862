"""Rules from a Jupyter user's walkthrough: every notebook run as CI runs it, and every result object
the notebooks and the tutorial show displayed as Jupyter displays it (``_repr_latex_``,
``_repr_html_``, ``_repr_png_``), with names holding TeX's and HTML's special characters.

Each test failed before its fix; the expected values are derived by hand in the comments.
"""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.analysis.compare import Comparison, render_html

PDFLATEX = shutil.which("pdflatex")


def _xor_one_point_spec(name: str):
    """XoR with a margin, one pathway on datapoint 0 only, called ``name``."""
    return tk.GDLNSpec(tk.xor_margin(), (tk.Pathway(name, (1, 0, 0, 0), hidden=4),), tk.Training(lr=0.01, a0=1e-3))


def test_effective_datasets_display_typeset_like_the_other_per_pathway_results():
    # The README: "Everything prints as LaTeX in Jupyter, the lists and per-pathway dicts of results
    # included". der.modes, .trajectories, .t_half and .end_points did; der.effective_datasets was a
    # plain dict, so Jupyter showed {'point0': EffectiveDataset('point0', Syx 1 × 3, Sx 3 × 3)}.
    der = tk.Derivation(_xor_one_point_spec("point0"))
    effs = der.effective_datasets
    tex = effs._repr_latex_()
    assert tex.startswith("$") and tex.endswith("$")
    # By hand (docs/theory.md: Σyx_p = <g_p y x^T> over P = 4 datapoints): only datapoint 0 is on,
    # x_0 = (1, 1, Δ), y_0 = 1, so Σyx = (1/4, 1/4, Δ/4) and Σx = x_0 x_0^T / 4.
    D = tk.xor_margin().symbols["Delta"]
    x0 = sp.Matrix([1, 1, D])
    assert sp.latex(x0.T / 4) in tex
    assert sp.latex(x0 * x0.T / 4) in tex
    assert r"\mathrm{point0}" in tex
    # still a dict of EffectiveDataset, and a misspelt pathway says which names there are
    assert isinstance(effs, dict) and list(effs) == ["point0"]
    assert effs["point0"].Syx == x0.T / 4
    with pytest.raises(KeyError, match="point0"):
        effs["pointO"]


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex not installed (Debian: apt-get install texlive-latex-base)")
def test_effective_datasets_display_compiles_with_tex_characters_in_the_name(tmp_path):
    # a name with every one of TeX's special characters: each must be escaped in the display
    name = "50% of h_1 & {x} #2 $ ~^\\"
    tex = tk.Derivation(_xor_one_point_spec(name)).effective_datasets._repr_latex_()
    doc = tmp_path / "eff.tex"
    doc.write_text("\\documentclass{article}\\usepackage{amsmath}\\begin{document}\n" + tex
                   + "\n\\end{document}\n", "utf-8")
    r = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, [line for line in r.stdout.splitlines() if line.startswith("!")]


def _comparison(n_pathways: int) -> Comparison:
    P = 4
    paths = tuple(tk.Pathway(f"g{i + 1}", tuple(int(j % n_pathways == i) for j in range(P)), hidden=4)
                  for i in range(n_pathways))
    spec = tk.GDLNSpec(tk.xor_margin(1), paths, tk.Training(lr=0.1), "found-gates")
    steps = np.array([0, 50, 100])
    return Comparison(steps, steps, np.array([0.5, 0.3, 0.1]), np.array([0.5, 0.25, 0.1]), None, spec, 1e-3, 0.1,
                      "mean")


@pytest.mark.parametrize("n, words", [(1, "1 pathway;"), (2, "2 pathways;")])
def test_comparison_counts_its_pathways_in_words(n, words):
    # Notebook 04's comparison (one pathway found on digits) was titled "found-gates: 1 pathways",
    # and compare.html said the same; the count now agrees with its noun.
    cmp = _comparison(n)
    title = cmp.figure()._suptitle.get_text()
    assert words in title, title
    assert words in render_html(cmp, {}), "compare.html"


def test_find_gates_note_counts_patterns_in_words():
    # "2 clusters gave 1 distinct non-empty gate patterns" (notebook 04): with one pattern, one noun.
    # On a task of one datapoint a bias-free unit is on for it or for nothing, so any K > 1 clusters
    # give exactly one non-empty pattern (the all-on gate).
    task = tk.Task(sp.Matrix([[1], [1]]), sp.Matrix([[1]]))
    found = tk.find_gates(task, K=2, seeds=1, steps=50, hidden=8, every=25, lr=0.05)
    assert len(found.spec.pathways) == 1
    assert "2 clusters gave 1 distinct non-empty gate pattern" in " ".join(found.notes)
    assert "1 distinct non-empty gate patterns" not in " ".join(found.notes)


def test_found_gates_prints_in_one_line():
    # In Jupyter, `found` (what tk.find_gates returns) printed the dataclass's repr: the spec's task,
    # the ReLU run it read with all its arrays, every score: over 20 000 characters on XoR. It now
    # prints one line naming K and each found pathway.
    task = tk.Task(sp.Matrix([[1], [1]]), sp.Matrix([[1]]))
    found = tk.find_gates(task, K=2, seeds=1, steps=50, hidden=8, every=25, lr=0.05)
    text = repr(found)
    assert "\n" not in text and len(text) < 400, text
    assert text.startswith("FoundGates(K=2")
    for p in found.spec.pathways:
        assert repr(p.name) in text and f"on {sum(p.active)} of 1" in text


def test_gate_panels_tick_whole_datapoints():
    # Notebook 06's prediction (pred.figure(), and its HTML display) ticked the gate panel's datapoint
    # axis at -0.5, 0.0, 0.5, ..., 3.5; the compare gates figure did the same. XoR has P = 4
    # datapoints, so the ticks are the whole numbers 0, 1, 2, 3, as in validate_prediction's panels.
    pred = tk.predict_reln(tk.xor_margin(0.5), 16, tk.Training(lr=0.05, init_std=0.01, steps=300))
    gates_ax = pred.figure().axes[1]
    assert gates_ax.get_xlabel() == "datapoint"
    assert list(gates_ax.get_xticks()) == [0, 1, 2, 3]
    found_ax = _comparison(2).gates_figure().axes[0]
    assert list(found_ax.get_xticks()) == [0, 1, 2, 3]
    # the loss panel's grey line at the half-way step had no legend entry; it says what it marks
    labels = pred.figure().axes[0].get_legend_handles_labels()[1]
    assert f"half-way, step {pred.t_half:.0f}" in labels and pred.t_half is not None


def test_results_without_a_short_print_print_in_one_line():
    # race_exhaust's result printed every family's metrics and curve (46 000 characters at k = 3),
    # a Prediction its task, curves and orbits (11 000), a Comparison every array: each now one line.
    from theorykit.analysis.exhaust import race_exhaust

    # two families by hand: family_masks(2) rows 0 and 1, on the k = 2 context task
    ex = race_exhaust(2, families=[0, 1], progress=False, steps=200)
    pred = tk.predict_reln(tk.xor_margin(0.5), 16, tk.Training(lr=0.05, init_std=0.01, steps=300))
    cmp = _comparison(1)
    for obj, start in ((ex, "ExhaustResult(k=2"), (pred, "Prediction(predicted ReLN: "), (cmp, "Comparison('found-gates'")):
        text = repr(obj)
        assert "\n" not in text and len(text) < 300, text
        assert text.startswith(start), text
    # the counts it prints are the object's own: XoR below Δ* predicts one pathway per datapoint (4)
    assert "4 pathways" in repr(pred) and len(pred.gates) == 4
    assert "1 pathway, 3 checkpoints (steps 0…100)" in repr(cmp)


def test_a_one_pathway_prediction_counts_in_words():
    # On a task of one datapoint a bias-free unit is on for it or for nothing: one realisable pattern,
    # one orbit, one candidate, one family; the prediction printed "1 pathways", "1 orbits
    # (1 candidates)" and "all 1 non-empty unions of the 1 candidate orbits", in text and HTML.
    task = tk.Task(sp.Matrix([[1], [1]]), sp.Matrix([[1]]))
    pred = tk.predict_reln(task, 8, tk.Training(lr=0.05, init_std=0.01, steps=200))
    assert len(pred.gates) == 1
    text, page = pred.text(), pred._repr_html_()
    assert "predicted ReLN: 1 pathway, H = 8" in text and "1 orbit (1 candidate)" in text
    assert "all 1 non-empty union of the 1 candidate orbit" in text
    assert "</b>: 1 pathway, H = 8" in page
    for wrong in ("1 pathways", "1 orbits", "1 candidates", "1 non-empty unions"):
        assert wrong not in text and wrong not in page, wrong
