"""A committed notebook whose outputs are stale fails (tests/_notebook_outputs.py, run by tests/test_notebooks.py).

The .ipynb files of examples/notebooks are committed with their outputs and the docs render them.
tests/test_notebooks.py checked that they are in sync with their .py (same cells), carry a figure
and no error, and that the notebook executes; nothing compared what the cells print today with what
is committed, so a change to, say, how a mode is typeset left the docs showing the old LaTeX and no
test failed. test_notebook_executes now compares its one execution with the committed outputs.

These tests execute no notebook: they feed the comparison a committed notebook of the repository and
a copy whose outputs were altered by hand, and expect the message (the notebook, the cell, the first
differing line, committed and now, the refresh command), or ``None`` where the alteration is one the
normalisation documents as not a difference (a timing, an address, a temporary path, the way a stream
is split, stderr, a number within one unit of its last printed digit, float64 round-off).
"""
from __future__ import annotations

import ast
import copy
import re
from pathlib import Path

import pytest

from _notebook_outputs import refresh_command, same_line, stale_outputs

nbformat = pytest.importorskip("nbformat", reason="the notebook tests need the notebooks extra: "
                                                  "pip install -e \".[test,gates,notebooks]\"")

ROOT = Path(__file__).resolve().parents[1]
NB = ROOT / "examples" / "notebooks"
XOR, CONTEXTS = "01_xor_crossover", "02_contexts_race"


def _load(stem):
    return nbformat.read(NB / f"{stem}.ipynb", as_version=4)


def _compare(stem, executed, committed=None):
    return stale_outputs(committed or _load(stem), executed, f"examples/notebooks/{stem}.ipynb",
                         f"examples/notebooks/{stem}.py")


def _code_cell(nb, startswith):
    """The index of the code cell whose source starts so (found by its text, not by a hard-coded number)."""
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and c.source.startswith(startswith))


def _printing(nb, text):
    """The index of the code cell whose committed stdout contains ``text``."""
    return next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and any(text in o.text for o in _stdout(c)))


def _output(cell, kind):
    """The first rich output of the cell that has ``kind`` (e.g. "text/latex")."""
    return next(o for o in cell.outputs if kind in o.get("data", {}))


def _stdout(cell):
    return [o for o in cell.outputs if o.output_type == "stream" and o.name == "stdout"]


# ---- an altered output fails, with the message the brief asks for --------------------------------

def test_a_changed_number_names_the_notebook_the_cell_the_line_and_the_fix():
    ex = _load(XOR)
    i = _code_cell(ex, "lr, steps, sigma")            # the cell that prints the RMS gaps
    first = _stdout(ex.cells[i])[0]
    assert "RMS gap 0.260 of L(0)" in first.text      # what is committed (the premise of the alteration)
    first.text = first.text.replace("RMS gap 0.260", "RMS gap 0.274")
    msg = _compare(XOR, ex)
    assert msg is not None
    n = _load(XOR).cells[i].execution_count
    assert msg.startswith(f"examples/notebooks/{XOR}.ipynb: cell {i} (In [{n}]) prints other output")
    assert "committed: [stdout] Delta = 0.5: ReLU network vs the linear ReLN's closed form: RMS gap 0.260" in msg
    assert "now:       [stdout] Delta = 0.5: ReLU network vs the linear ReLN's closed form: RMS gap 0.274" in msg
    assert f"`jupytext --to ipynb --execute examples/notebooks/{XOR}.py`" in msg


def test_the_typesetting_of_a_mode_changed_is_stale():
    """What h145 did: ``s = \\left(\\frac{\\Delta}{2}\\right)`` became ``s = \\frac{\\Delta}{2}``. A .ipynb committed
    before it (the parentheses) against the execution after it fails, showing the LaTeX where it differs."""
    old = _load(XOR)
    i = _code_cell(old, "H = 32")
    latex = _output(old.cells[i], "text/latex")
    assert r"s = \frac{\Delta}{2}" in latex.data["text/latex"]
    latex.data["text/latex"] = latex.data["text/latex"].replace(r"s = \frac{\Delta}{2}", r"s = \left(\frac{\Delta}{2}\right)")
    msg = _compare(XOR, _load(XOR), committed=old)
    assert msg is not None and f"cell {i} " in msg
    assert r"committed: [text/latex] " in msg and r"s = \left(\frac{\Delta}{2}\right)" in msg
    assert r"now:       [text/latex] " in msg


@pytest.mark.parametrize("old, new", [
    ("tolerance 1e-07", r"tolerance 10^{-7}"),     # a change of number format
    ("rank  78   area 0.2789", "rank  79   area 0.2789"),   # an integer: digit for digit
    ("log(-1 + x)", "log(1 + x)"),                 # a sign is text
    ("gap 0.260 of L(0)", "gap 0.262 of L(0)"),    # two units of the last printed digit
    ("gap 0.0277", "gap 0.0279"),
    ("area 0.06745", "area 0.06760"),
    ("s = 0.500000", "s = 0.500002"),              # two units of the 6th decimal (and 4e-6 relative > 1e-6)
    ("derived 1 thing", "derived 2 things"),
])
def test_lines_that_differ(old, new):
    assert not same_line(old, new)


@pytest.mark.parametrize("old, new", [
    ("gap 0.008 of L(0)", "gap 0.009 of L(0)"),    # one unit of the last printed digit: a rounding flip
    ("largest |difference|: 2.2e-16", "largest |difference|: 4.4e-16"),   # float64 round-off (< 1e-12)
    ("s, d_own, d: 4.2e-17, 0.0e+00, 5.6e-17", "s, d_own, d: 0.0e+00, 1.1e-16, 5.6e-17"),
    ("x = 0.30000000000000004", "x = 0.3"),        # within one unit of the 1-decimal print
    ("Delta* = 0.8165", "Delta* = 0.8165"),
])
def test_lines_that_agree(old, new):
    assert same_line(old, new)


def test_a_figure_more_or_less_is_stale():
    ex = _load(XOR)
    i = _code_cell(ex, "grid = np.linspace")
    ex.cells[i].outputs = [o for o in ex.cells[i].outputs if "image/png" not in o.get("data", {})]
    msg = _compare(XOR, ex)
    assert msg is not None and f"cell {i} " in msg and "committed with 1 figure(s) but draws 0 now" in msg
    assert refresh_command(f"examples/notebooks/{XOR}.py") in msg


def test_an_output_missing_now_is_stale():
    ex = _load(XOR)
    i = _code_cell(ex, "cross = tk.crossings")
    ex.cells[i].outputs = [o for o in ex.cells[i].outputs if o.output_type != "execute_result"]
    msg = _compare(XOR, ex)
    assert msg is not None and f"cell {i} " in msg and "now:       (nothing)" in msg


def test_a_cell_of_another_kind_or_source_is_out_of_sync():
    ex = _load(XOR)
    i = _code_cell(ex, "grid = np.linspace")
    ex.cells[i] = nbformat.v4.new_markdown_cell(ex.cells[i].source)
    msg = _compare(XOR, ex)
    assert msg is not None and f"cell {i} " in msg and "out of sync" in msg
    ex = _load(XOR)
    ex.cells[i].source += "\nprint('one more line')"
    assert "out of sync" in _compare(XOR, ex)
    ex = _load(XOR)
    ex.cells.append(nbformat.v4.new_code_cell("print(1)"))
    assert "cells committed but" in _compare(XOR, ex)


# ---- what the normalisation forgives ---------------------------------------------------------------

def test_a_committed_notebook_agrees_with_itself():
    for p in sorted(NB.glob("*.ipynb")):
        assert _compare(p.stem, copy.deepcopy(_load(p.stem))) is None, p.name


def test_timings_addresses_paths_stream_splits_and_stderr_are_not_differences():
    ex = _load(CONTEXTS)
    i = _printing(ex, "derived in")
    out = _stdout(ex.cells[i])[0]
    # the committed timings are whatever the last execution measured (0.30 s, then 0.65 s): read, not pinned
    derived = re.match(r"derived in [0-9.]+ s", out.text).group(0)
    out.text = out.text.replace(derived, "derived in 12.7 s" if derived != "derived in 12.7 s" else "derived in 3 s")
    j = _printing(ex, "raced in")
    race = _stdout(ex.cells[j])[0]
    head, rest = race.text.split("\n", 1)
    raced = re.search(r"raced in [0-9.]+ s", head).group(0)
    # the same text, split by the kernel into two stream outputs, with a warning on stderr between them
    race.text = head.replace(raced, "raced in 1 min") + "\n"
    ex.cells[j].outputs.insert(1, nbformat.v4.new_output("stream", name="stderr", text="findfont: Font family not found\n"))
    ex.cells[j].outputs.insert(2, nbformat.v4.new_output("stream", name="stdout", text=rest))
    assert _compare(CONTEXTS, ex) is None

    # an address and a temporary folder (nothing committed prints one: checked on a made-up cell pair)
    old, new = (nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("f", outputs=[
        nbformat.v4.new_output("execute_result", data={"text/plain": text})])]) for text in (
        "<Run at 0x7f3a2b1c9d10 in /tmp/tmpab12cd/split.toml>", "<Run at 0x55d0e1a2b3c4 in /tmp/pytest-of-x/p0/split.toml>"))
    assert stale_outputs(old, new, "a.ipynb", "a.py") is None
    new.cells[0].outputs[0].data["text/plain"] = "<Run at 0x55d0e1a2b3c4 in /tmp/pytest-of-x/p0/common.toml>"
    assert stale_outputs(old, new, "a.ipynb", "a.py") is None       # a path is a path: its name too
    new.cells[0].outputs[0].data["text/plain"] = "<Sweep at 0x55d0e1a2b3c4 in /tmp/x/split.toml>"
    assert stale_outputs(old, new, "a.ipynb", "a.py") is not None   # but not the words around it


def test_a_timing_is_only_forgiven_outside_latex():
    r"""In LaTeX ``2 s`` can be mathematics (a rate $2 s/\tau$): there it is compared as written."""
    def nb(text, kind):
        return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("f", outputs=[
            nbformat.v4.new_output("display_data", data={kind: text})])])
    assert stale_outputs(nb("rate 2 s", "text/plain"), nb("rate 3 s", "text/plain"), "a.ipynb", "a.py") is None
    assert stale_outputs(nb("$2 s/\\tau$", "text/latex"), nb("$3 s/\\tau$", "text/latex"), "a.ipynb", "a.py") is not None


def test_a_cell_tagged_varies_is_not_compared_for_its_text_but_for_its_figures():
    ex, committed = _load(XOR), _load(XOR)
    i = _code_cell(ex, "lr, steps, sigma")
    _stdout(ex.cells[i])[0].text = "something else entirely\n"
    assert _compare(XOR, ex, committed=committed) is not None        # untagged: stale
    ex.cells[i].metadata["tags"] = ["varies"]                         # the tag comes from the .py
    assert _compare(XOR, ex, committed=committed) is None
    ex.cells[i].outputs = [o for o in ex.cells[i].outputs if "image/png" not in o.get("data", {})]
    assert "figure(s)" in _compare(XOR, ex, committed=committed)


# ---- wired in and documented -----------------------------------------------------------------------

def test_the_execution_test_compares_its_one_execution():
    """test_notebook_executes calls stale_outputs on the notebook it executed (no second execution)."""
    tree = ast.parse((ROOT / "tests" / "test_notebooks.py").read_text("utf-8"))
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "test_notebook_executes")
    calls = [c.func.id for c in ast.walk(fn) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)]
    assert "stale_outputs" in calls
    attrs = [c.func.attr for c in ast.walk(fn) if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)]
    assert attrs.count("execute") == 1


def test_contributing_gives_the_refresh_command_and_the_varies_tag():
    text = (ROOT / "docs" / "contributing.md").read_text("utf-8")
    assert refresh_command("examples/notebooks/NN_name.py") in text
    assert '# %% tags=["varies"]' in text
    assert "tests/_notebook_outputs.py" in text
