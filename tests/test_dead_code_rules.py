"""Copies removed for issue 26 (fewer lines by removing copies, every feature kept): each removal's one
implementation, checked against values written out by hand, and the copies gone.

- Shortening a text for a message was written five times (``theory.svd._short``, ``analysis.summary._short``,
  ``spec.fields.short_repr``, ``sim.weights._short_exc``, the end of ``cli.rerun._value``): now
  :func:`theorykit.io.cut`.
"""
from __future__ import annotations

import pytest

from theorykit import io
from theorykit.analysis import summary
from theorykit.cli import rerun
from theorykit.sim import weights
from theorykit.spec import fields
from theorykit.theory import svd


# ---------------------------------------------------------------------------------------------
# io.cut: the one shortening of a text for a message
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, n, mark, want", [
    ("a" * 60, 60, "…", "a" * 60),                 # n characters: kept whole
    ("a" * 61, 60, "…", "a" * 59 + "…"),           # one more: 59 kept and the mark, 60 in all
    ("abcdef", 4, "…", "abc…"),
    ("abcdef", 4, "...", "a..."),                  # a three-character mark takes three of the four
    ("", 1, "…", ""),
])
def test_cut_keeps_n_characters_the_last_of_them_the_mark(text, n, mark, want):
    assert io.cut(text, n, mark) == want
    assert len(io.cut(text, n, mark)) == min(len(text), n)


def test_the_copies_of_the_shortening_are_gone():
    """svd and summary had each its own ``_short``; both now use io.cut."""
    assert not hasattr(svd, "_short") and not hasattr(summary, "_short")
    assert svd.cut is io.cut and summary.cut is io.cut


def test_the_callers_shorten_as_before():
    """short_repr (repr, 60 characters, "..."), the npz reader's exception text (white space folded,
    160 characters, "...") and rerun's value for a verdict (repr, 60, "…") say what they said."""
    assert fields.short_repr("x" * 70) == "'" + "x" * 56 + "..."          # repr: 72 characters, 57 kept + "..."
    assert fields.short_repr([1, 2]) == "[1, 2]"
    assert weights._short_exc(ValueError("a  b\n c")) == "a b c"
    assert weights._short_exc(ValueError("y" * 200)) == "y" * 157 + "..."
    assert rerun._value("z" * 70) == "'" + "z" * 58 + "…"                # repr: 72 characters, 59 kept + "…"
    assert rerun._value(10 ** 80) == "1" + "0" * 15 + "…" + "0" * 24 + " (81 digits)"     # a long integer: both ends


def test_derive_summary_cuts_a_long_crossing_value_to_40_characters(tmp_path):
    """derive --crossings's summary cuts each crossing's value to 40 characters, in the grouped lines and in an
    older document's pair lines (summary's last two callers of the old ``_short``): a 50-character value shows
    as its first 39 characters and "…"."""
    import json
    from pathlib import Path

    import theorykit as tk
    from theorykit.cli import main

    root = Path(__file__).resolve().parents[1]
    lin, xor = root / "examples" / "xor_linear.toml", root / "examples" / "xor_reln.toml"
    out = tmp_path / "r.json"
    assert main(["derive", str(lin), "--crossings", "Delta", "--against", str(xor), "--json", str(out)]) == 0
    doc = json.loads(out.read_text()) | {"notes": []}
    long = "v" * 50
    for rec in doc["crossings"] + doc["crossing_groups"]:
        rec["value"] = long
    der = tk.Derivation(tk.load_spec(lin))
    grouped = summary.derive_text(der, doc)
    assert "s = " + "v" * 39 + "…: " in grouped and long not in grouped
    older = summary.derive_text(der, {k: v for k, v in doc.items() if k != "crossing_groups"})
    assert older.count(" = " + "v" * 39 + "…; larger below") == len(doc["crossings"]) and long not in older
