"""Are a notebook's committed outputs what its code prints today? (tests/test_notebooks.py)

The ``.ipynb`` of each notebook in examples/notebooks is committed with its outputs and the docs render
them as they are (mkdocs-jupyter, ``execute: false``). ``stale_outputs(committed, executed, ...)``
compares, code cell by code cell, the outputs of a fresh execution with the committed ones and returns
a message naming the notebook, the cell, the first line that differs (committed and now) and the command
that refreshes the file; ``None`` when they agree. Compared per code cell:

* **text**: stdout (the cell's stream outputs joined, since how a kernel splits a stream into outputs
  depends on timing), then each rich output's ``text/plain``, ``text/latex``, ``text/markdown`` and
  ``text/html``, in order. stderr is not compared: it carries the environment's warnings (a missing
  font, a deprecation in a dependency), not what the notebook computes.
* **figures**: only how many (``image/png``, ``image/svg+xml``, ``image/jpeg``); pixels differ with the
  fonts and the matplotlib version, so they are not compared.

Normalised before comparing (both sides alike):

* memory addresses (``0x7f3a…``) become ``0x…``;
* absolute paths of two or more parts (``/tmp/tmpab12/split.toml``) become ``<path>``: a notebook's
  temporary folders differ on every run;
* timings, a number with a unit of time (``derived in 0.30 s``, ``12 ms``), become ``<time>`` in stdout
  and ``text/plain`` (not in LaTeX, where ``2 s`` can be mathematics);
* numbers: the text between numbers must be equal; an integer must be equal digit for digit (counts,
  ranks, sizes, gate patterns); two decimals agree when they differ by at most the largest of
  ``RTOL`` times the larger (numbers printed in full), ``ATOL`` (round-off: a float64 difference such
  as ``2.2e-16`` depends on the order of the CPU's operations) and one unit in the last digit printed
  by the less precise of the two (``0.008`` against ``0.009``: a number printed to 3 decimals that lies
  on a rounding boundary flips with the last bits of a simulation, which differ between CPUs, BLAS
  builds and XLA versions and which gradient descent from random starts and ReLU gates can amplify).
  So ``0.0277`` against ``0.0279`` is stale; a change of format (``1e-07`` against ``10^{-7}``) is
  stale too, since the text between the numbers differs.

A code cell tagged ``varies`` (in the ``.py``: ``# %% tags=["varies"]``) is skipped for its text, for
output that is legitimately different on every run; its figures are still counted.
"""
from __future__ import annotations

import re

RTOL = 1e-6
ATOL = 1e-12
VARIES_TAG = "varies"
TEXT_KINDS = ("text/plain", "text/latex", "text/markdown", "text/html")
FIGURE_KINDS = ("image/png", "image/svg+xml", "image/jpeg")

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
_PATH = re.compile(r"(?<![\w.~/])(?:/[\w.~+\-]+){2,}/?")
_TIME = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\s?(?:ns|µs|us|ms|s|sec|seconds?|min|minutes?)\b")
_NUMBER = re.compile(r"(?:\d+\.\d+|\d+)(?:[eE][-+]?\d+)?")     # signs are text: compared exactly


def refresh_command(py_relative: str) -> str:
    """The command that re-executes a notebook and rewrites its ``.ipynb`` (docs/contributing.md)."""
    return f"jupytext --to ipynb --execute {py_relative}"


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def cell_text(cell) -> list[tuple[str, str]]:
    """The cell's compared text as ``(kind, line)`` pairs: stdout first, then the rich outputs in order."""
    outputs = cell.get("outputs", [])
    stdout = "".join(_text(o.get("text", "")) for o in outputs
                     if o.get("output_type") == "stream" and o.get("name") == "stdout")
    lines = [("stdout", line) for line in stdout.splitlines()]
    for o in outputs:
        if o.get("output_type") in ("execute_result", "display_data"):
            data = o.get("data", {})
            for kind in TEXT_KINDS:
                if kind in data:
                    lines += [(kind, line) for line in _text(data[kind]).splitlines()]
    return lines


def cell_figures(cell) -> int:
    return sum(any(k in o.get("data", {}) for k in FIGURE_KINDS) for o in cell.get("outputs", []))


def normalise(kind: str, line: str) -> str:
    """Addresses, paths and (in stdout and ``text/plain``) timings replaced; numbers are left to ``same_line``."""
    line = _PATH.sub("<path>", _ADDRESS.sub("0x…", line))
    if kind in ("stdout", "text/plain"):
        line = _TIME.sub("<time>", line)
    return line.rstrip()


def _unit(number: str) -> float:
    """One unit in the last printed digit: 0.008 -> 0.001, 2.2e-16 -> 1e-17, 15 -> 1."""
    mantissa, _, exponent = number.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exponent or 0) - decimals)


def same_number(old: str, new: str) -> bool:
    if not any(c in old + new for c in ".eE"):          # integers: digit for digit
        return old == new
    a, b = float(old), float(new)
    return abs(a - b) <= max(RTOL * max(abs(a), abs(b)), ATOL, max(_unit(old), _unit(new)))


def same_line(old: str, new: str) -> bool:
    """Equal text between the numbers, and each pair of numbers equal by ``same_number``."""
    if _NUMBER.split(old) != _NUMBER.split(new):
        return False
    return all(same_number(a, b) for a, b in zip(_NUMBER.findall(old), _NUMBER.findall(new)))


def _excerpt(line: str, at: int, width: int = 160) -> str:
    """The line, or where it is long (LaTeX), ``width`` characters of it around ``at``."""
    if len(line) <= width:
        return line
    start = max(0, at - width // 3)
    return ("…" if start else "") + line[start:start + width] + ("…" if start + width < len(line) else "")


def _first_difference(old: list[tuple[str, str]], new: list[tuple[str, str]]) -> tuple[str, str] | None:
    for i in range(max(len(old), len(new))):
        (k_old, l_old) = old[i] if i < len(old) else ("", "")
        (k_new, l_new) = new[i] if i < len(new) else ("", "")
        if k_old != k_new or not same_line(normalise(k_old, l_old), normalise(k_new, l_new)):
            at = next((j for j, (x, y) in enumerate(zip(l_old, l_new)) if x != y), min(len(l_old), len(l_new)))
            show = [f"[{k}] {_excerpt(line, at)}" if k else "(nothing)" for k, line in ((k_old, l_old), (k_new, l_new))]
            return show[0], show[1]
    return None


def stale_outputs(committed, executed, notebook: str, py_relative: str) -> str | None:
    """The first code cell whose executed outputs differ from the committed ones, as a message; None if none.

    ``committed`` and ``executed`` are notebooks (nbformat) of the same cells; ``notebook`` names the
    ``.ipynb`` in the message and ``py_relative`` is its source's path from the repository root, for the
    refresh command.
    """
    fix = (f"the docs show the committed outputs; refresh them with `{refresh_command(py_relative)}`, look at "
           f"the figures and commit the .ipynb (only a cell whose text legitimately differs on every run, not a "
           f"timing, is tagged \"{VARIES_TAG}\" instead: docs/contributing.md)")
    for i, (old, new) in enumerate(zip(committed.cells, executed.cells)):
        if old.get("cell_type") != "code" and new.get("cell_type") != "code":
            continue
        where = f"{notebook}: cell {i} (In [{old.get('execution_count') or ' '}])"
        if old.get("cell_type") != new.get("cell_type") or old.get("source", "").strip() != new.get("source", "").strip():
            return f"{where} has other source than the notebook executed: out of sync; {fix}"
        if cell_figures(old) != cell_figures(new):
            return (f"{where} is committed with {cell_figures(old)} figure(s) but draws {cell_figures(new)} now; "
                    f"{fix}")
        if VARIES_TAG in old.get("metadata", {}).get("tags", []) + new.get("metadata", {}).get("tags", []):
            continue
        diff = _first_difference(cell_text(old), cell_text(new))
        if diff:
            return f"{where} prints other output than is committed:\n  committed: {diff[0]}\n  now:       {diff[1]}\n{fix}"
    if len(committed.cells) != len(executed.cells):
        return f"{notebook} has {len(committed.cells)} cells committed but {len(executed.cells)} executed: out of sync; {fix}"
    return None
