"""One bound for the race by exhaustion, and the XoR notebook's grouped crossings.

1. The families of context-gated pathways are bounded once: ``MAX_FAMILIES`` (2^15 − 1, stated in
   theorykit.spec.ranges so that the command line's parser reads it without SymPy, and re-exported by
   theorykit.spec.limits with the other size bounds). ``family_masks``, ``exhaust_spec`` /
   ``race_exhaust`` and ``race-exhaust --k`` all take k up to ``max_family_contexts()``, the largest k whose
   2^(2^k − 1) − 1 families are within it. Before, exhaust_spec refused ``k > 4``, the parser ``--k`` above 4
   and family_masks's fix said "kk ≤ 4 (32,767 families)": three copies of 4 that a lower MAX_FAMILIES did
   not move. exhaust_spec(10**5) also failed with Python's ValueError (2^(2^100000 − 1) has too many digits
   to write) instead of refusing the size.
2. examples/notebooks/01_xor_crossover.py shows ``tk.crossings``'s result itself (one group at Δ*), not a
   count and one crossing printed by hand.

Golden numbers by hand: k contexts allow the common pathway and 2^k − 2 item-only ones (Lemma 4.1), so
2^(2^k − 1) − 1 non-empty families: k = 2: 2^3 − 1 = 7; k = 3: 2^7 − 1 = 127; k = 4: 2^15 − 1 = 32,767;
k = 5: 2^31 − 1 = 2,147,483,647. With MAX_FAMILIES = 2^15 − 1 the largest k is 4; with 2^7 − 1 it is 3 (127
families exactly at the bound); with 2^7 − 2 = 126 it is 2.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import theorykit as tk
import theorykit.analysis.exhaust as ex
from theorykit.cli import main
from theorykit.spec import gating, limits, ranges

ROOT = Path(__file__).resolve().parents[1]


def _no_enumeration(monkeypatch):
    """family_masks in exhaust fails the test if it is reached: the refusal comes first."""
    def boom(kk, *a, **kw):
        raise AssertionError(f"family_masks({kk}) was called")
    monkeypatch.setattr(ex, "family_masks", boom)


def test_the_bound_and_its_largest_k_by_hand():
    assert [ranges.family_count(k) for k in (2, 3, 4, 5)] == [7, 127, 32_767, 2_147_483_647]
    assert limits.MAX_FAMILIES is ranges.MAX_FAMILIES and limits.MAX_FAMILIES == 2 ** 15 - 1
    assert ranges.max_family_contexts() == 4 == limits.max_family_contexts()


@pytest.mark.parametrize("bound, top", [(2 ** 7 - 1, 3), (2 ** 7 - 2, 2), (2 ** 31 - 1, 5), (2 ** 3 - 2, 1)])
def test_the_largest_k_follows_the_bound(monkeypatch, bound, top):
    monkeypatch.setattr(ranges, "MAX_FAMILIES", bound)
    assert ranges.max_family_contexts() == top


def test_exhaust_spec_refuses_k_5_by_the_one_bound_in_its_words(monkeypatch):
    _no_enumeration(monkeypatch)
    with pytest.raises(tk.SpecError) as e:
        ex.exhaust_spec(5)
    assert e.value.field == "--k"
    assert str(e.value) == "--k: k = 5 has 2^31 - 1 families: too many to enumerate (fix: use --k 3 or 4)"


def test_a_smaller_bound_refuses_k_3_everywhere(monkeypatch, capsys):
    """MAX_FAMILIES = 126 < 127 (k = 3's families): k = 3 is refused by exhaust_spec, race_exhaust (its
    keyword k), family_masks and the command line, each before any family is built; k = 2 is the largest."""
    monkeypatch.setattr(ranges, "MAX_FAMILIES", 2 ** 7 - 2)
    _no_enumeration(monkeypatch)
    with pytest.raises(tk.SpecError) as e:
        ex.exhaust_spec(3)
    assert str(e.value) == "--k: k = 3 has 2^7 - 1 families: too many to enumerate (fix: use --k 2)"
    with pytest.raises(tk.SpecError) as e:
        ex.race_exhaust(3, progress=False)
    assert e.value.field == "k"
    with pytest.raises(tk.SpecError) as e:
        gating.family_masks(3)
    assert e.value.field == "kk" and "over the bound of 126 (MAX_FAMILIES" in e.value.problem
    assert e.value.fix.startswith("use kk ≤ 2 (7 families)")
    assert main(["race-exhaust", "--k", "3"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "theorykit: error in --k: 3 is out of range (fix: give a whole number from 2 to 2, e.g. --k 2)"


def test_k_3_at_the_bound_is_taken(monkeypatch):
    """MAX_FAMILIES = 127: k = 3's 127 families are exactly at the bound, so exhaust_spec builds them."""
    monkeypatch.setattr(ranges, "MAX_FAMILIES", 2 ** 7 - 1)
    spec, subsets, masks, labels = ex.exhaust_spec(3)
    assert len(subsets) == 6 and masks.shape == (127, 7) and len(labels) == 127


def test_the_parsers_k_range_and_help_read_the_bound(monkeypatch):
    from theorykit.cli.parser import build_parser, commands

    def k_action():
        return commands(build_parser())["race-exhaust"]._option_string_actions["--k"]
    assert k_action().type.hi == 4 and "2 to 4" in k_action().help
    monkeypatch.setattr(ranges, "MAX_FAMILIES", 2 ** 31 - 1)
    assert k_action().type.hi == 5 and "2 to 5" in k_action().help


@pytest.mark.parametrize("k, count", [(100, "2^(2^100 - 1) - 1"), (10 ** 5, "2^(2^100000 - 1) - 1")])
def test_a_huge_k_is_refused_with_its_count_written(monkeypatch, k, count):
    """2^(2^100000 − 1) has about 3·10^30102 digits: Python refused to write it (ValueError)."""
    _no_enumeration(monkeypatch)
    with pytest.raises(tk.SpecError) as e:
        ex.exhaust_spec(k)
    assert str(e.value) == f"--k: k = {k} has {count} families: too many to enumerate (fix: use --k 3 or 4)"


def test_no_copy_of_the_bound_is_left_in_the_package():
    """No ``k > 4`` / ``k <= 4`` / ``hi=4`` check and no 32767 written as a number outside the bound's statement."""
    hits = []
    for path in (ROOT / "theorykit").rglob("*.py"):
        for i, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if re.search(r"\bk{1,2}\s*(>|<=|>=|<)\s*[45]\b|\bhi=4\b|\b32_?767\b", code):
                hits.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert hits == []


def test_the_xor_notebook_displays_the_grouped_crossings():
    """The crossings cell ends with the Crossings object (typeset by its _repr_latex_, one line per group)
    and reads Δ* from its single group; the count printed by hand and ``cross[0]`` are gone."""
    src = (ROOT / "examples" / "notebooks" / "01_xor_crossover.py").read_text()
    cell = next(c for c in src.split("# %%") if "tk.crossings(" in c and "import" not in c)
    lines = [ln for ln in cell.strip().splitlines() if ln.strip()]
    assert lines[-1] == "cross"
    assert "(group,) = cross.groups" in cell and "group.at == Dstar" in cell
    assert "len(cross)} crossings" not in src and "cross[0]" not in src
