"""The notebooks in examples/notebooks: each paired .ipynb is in sync with its .py, and each runs.

The jupytext percent-format ``.py`` is the source; the ``.ipynb`` beside it holds the same cells
with their outputs, which the docs render (mkdocs-jupyter, ``execute: false``). For every notebook:

* **in sync**: the cells of the ``.ipynb`` (type and source) are those of the ``.py``, so an edit to
  one that was not carried to the other (``jupytext --sync``) fails here;
* **committed with outputs**: the ``.ipynb`` has at least one figure and no error output, so the docs
  show what the notebook computes;
* **runs**: the notebook built from the ``.py`` is executed by a Jupyter kernel of this Python
  (nbclient, kernel ``python3``, 120 s per cell) in a temporary folder, not in the repository; any
  cell error fails the test, and the run must draw at least one figure;
* **outputs current**: that same execution's outputs are compared, code cell by code cell, with the
  committed ``.ipynb``'s (tests/_notebook_outputs.py: text of stdout and of the LaTeX, plain,
  Markdown and HTML outputs, with timings, addresses and paths normalised and numbers compared to
  the digits printed; figures only counted), so a change to what a cell prints fails until the
  ``.ipynb`` is refreshed (``jupytext --to ipynb --execute examples/notebooks/NAME.py``). A cell
  tagged ``varies`` is not compared for its text.

Needs the ``notebooks`` extra (``pip install -e ".[test,gates,notebooks]"``); without it the tests
skip, saying so.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from _notebook_outputs import refresh_command, stale_outputs

jupytext = pytest.importorskip("jupytext", reason="the notebook tests need the notebooks extra: "
                                                  "pip install -e \".[test,gates,notebooks]\"")
nbclient = pytest.importorskip("nbclient", reason="the notebook tests need the notebooks extra: "
                                                  "pip install -e \".[test,gates,notebooks]\"")
nbformat = pytest.importorskip("nbformat", reason="the notebook tests need the notebooks extra: "
                                                  "pip install -e \".[test,gates,notebooks]\"")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "examples" / "notebooks").glob("*.py"))
CELL_TIMEOUT = 120


def _cells(nb) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source.strip()) for c in nb.cells]


def _figures(nb) -> int:
    return sum("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))


def _errors(nb) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue')}" for c in nb.cells if c.cell_type == "code"
            for o in c.get("outputs", []) if o.get("output_type") == "error"]


def _tree() -> dict:
    """The files under examples/ and the repository's top level, with their modification times."""
    files = [p for p in (ROOT / "examples").rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    files += [p for p in ROOT.iterdir() if p.is_file()]
    return {str(p.relative_to(ROOT)): p.stat().st_mtime_ns for p in files}


def test_at_least_five_notebooks():
    assert len(NOTEBOOKS) >= 5, [p.name for p in NOTEBOOKS]
    for py in NOTEBOOKS:
        assert py.with_suffix(".ipynb").is_file(), f"{py.name} has no paired .ipynb (run: jupytext --to ipynb {py})"


@pytest.mark.parametrize("py", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_paired_ipynb_in_sync_and_has_outputs(py):
    ipynb = py.with_suffix(".ipynb")
    src, paired = jupytext.read(py), jupytext.read(ipynb)
    a, b = _cells(src), _cells(paired)
    diff = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    assert a == b, (f"{ipynb.name} is out of sync with {py.name} from cell {diff} on "
                    f"(fix: {refresh_command(py.relative_to(ROOT))})")
    assert _figures(paired) >= 1, f"{ipynb.name} is committed without a figure in its outputs (execute it)"
    assert not _errors(paired), f"{ipynb.name} is committed with errors: {_errors(paired)}"
    assert all(c.get("outputs") is not None for c in paired.cells if c.cell_type == "code")


@pytest.mark.parametrize("py", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(py, tmp_path, monkeypatch):
    # the kernel must draw inline (CI sets MPLBACKEND=Agg for the tests; the kernel would inherit it)
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = jupytext.read(py)
    client = nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3", allow_errors=False,
                                     resources={"metadata": {"path": str(tmp_path)}})
    before = _tree()
    t0 = time.perf_counter()
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as err:        # names the cell and the traceback
        pytest.fail(f"{py.name}: a cell failed:\n{str(err)[-3000:]}")
    seconds = time.perf_counter() - t0
    assert _figures(nb) >= 1, f"{py.name} drew no figure"
    assert _tree() == before, f"{py.name} wrote into the repository: {sorted(set(_tree()) ^ set(before))}"
    # the one execution also checks the committed outputs are current (the in-sync test checks the cells)
    committed = nbformat.read(py.with_suffix(".ipynb"), as_version=4)
    stale = stale_outputs(committed, nb, str(py.with_suffix(".ipynb").relative_to(ROOT)), str(py.relative_to(ROOT)))
    assert stale is None, stale
    print(f"{py.name}: {seconds:.1f} s")
