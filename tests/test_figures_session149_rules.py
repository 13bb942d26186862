"""Rules from a newcomer who found three outputs hard to read, and from a check whose estimate ran low:
the bench's scaling table (a long values entry pushed its row out of line), Fig. 4b (mode colours
without a key), Fig. 9 (a legend over the K = 4 line), and ``theorykit check``'s simulation estimate
(against a hand computation of its formula, never the clock).

Figure checks read the Figure objects (legend entries, window extents), never pixels.
"""
from __future__ import annotations

import re
import types

import numpy as np

from theorykit import bench_derive as bd


def _scaling_lines(monkeypatch, kinds):
    """The derivation section's printed lines, with the derivations replaced by rows whose value kinds
    are ``kinds`` (one row each)."""
    monkeypatch.setattr(bd, "paper_results", lambda: [{"result": "r0", "seconds": 0.5, "cpu_seconds": 0.25}])
    rows = [{"task": "hierarchy", "n": 32, "k": 4, "modes": 7, "value_kinds": list(k), "seconds": 1.25,
             "cpu_seconds": 1.5} for k in kinds]

    def scaling(quick, on_row):
        for r in rows:
            on_row(r)
        return rows

    monkeypatch.setattr(bd, "scaling", scaling)
    lines = []
    bd.run_section(out=lines.append)
    head = next(i for i, ln in enumerate(lines) if "modes" in ln and "values" in ln)
    return lines[head].lstrip("\n"), lines[head + 1:head + 1 + len(rows)]


def test_the_scaling_table_keeps_its_columns_with_the_longest_values_entry(monkeypatch):
    """`theorykit bench --quick`: the row whose values were "quad,root,sqrt" (14 characters in a column of
    12) had its seconds, CPU and target two characters to the right of every other row's. Every kind a
    case can report together ("expr,quad,root,sqrt", the widest entry) now fits: each row's seconds and
    CPU end where the header's "seconds" and "CPU" end, and the target starts in the same column."""
    kinds = [("sqrt",), ("quad", "root", "sqrt"), ("expr", "quad", "root", "sqrt"), ("expr",)]
    header, rows = _scaling_lines(monkeypatch, kinds)
    assert len(rows) == 4
    # hand-written: seconds 1.25 and CPU 1.50 as the rows print them; target of 32 × 4 is 0.5 s
    ends = {(ln.index("1.25") + 4, ln.index("1.50") + 4, ln.index("< 0.5 s")) for ln in rows}
    assert len(ends) == 1, rows
    (sec_end, cpu_end, tgt_at), = ends
    assert header.index("seconds") + len("seconds") == sec_end
    assert header.index("CPU") + len("CPU") == cpu_end
    assert header.index("target") == tgt_at
    # the values sit under their header, each row's entry in full
    for ln, k in zip(rows, kinds):
        assert ln.index(",".join(k)) == header.index("values")
    # and the kinds the column is sized for are the ones a derivation reports (SValue.kind, or expr)
    assert set(bd.VALUE_KINDS) == {"expr", "sqrt", "quad", "root"}
