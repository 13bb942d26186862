"""Four follow-ups: family_a0s refuses H < m and a masses count other than m by name; derive's estimate
counts --plot (a line and a legend entry per pathway); realisable_patterns' documented order (which
numbers predict's orbits); predict's tie-break between families of equal area. Every golden number
here is worked by hand in the comments; nothing is timed."""
from __future__ import annotations

import numpy as np
import pytest

from theorykit.analysis.predict_share import family_a0s
from theorykit.errors import SpecError


# ------------------------------------------------------------------------------------------------
# 1. family_a0s
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("H, m, masses", [(1, 3, None), (2, 3, [0.2, 0.3, 0.5]), (2, 3, [0.5, 0.5])])
def test_family_a0s_refuses_fewer_units_than_pathways_by_name(H, m, masses):
    """H < m: some pathway would have no unit. (2, 3, [0.5, 0.5]) passed before: share_mass shared
    H = 2 over the 2 masses given, not over the m = 3 pathways, and returned 2 widths for 3 pathways."""
    with pytest.raises(SpecError) as ei:
        family_a0s(0.01, H, m, masses)
    assert ei.value.field == "H"
    assert f"{H} hidden units" in ei.value.problem and f"use H >= {m}" in ei.value.fix


def test_family_a0s_refuses_masses_of_another_count_than_the_pathways():
    """H = 3 >= m = 3, but 2 masses: it returned widths [2, 1] for a family of 3 pathways."""
    with pytest.raises(SpecError) as ei:
        family_a0s(0.01, 3, 3, [0.5, 0.5])
    assert ei.value.field == "masses"
    assert "2 masses for a family of 3 pathways" in ei.value.problem


def test_family_a0s_at_one_unit_per_pathway():
    """H = m = 3: widths 1, 1, 1 either way; a0 = σ²H_p/2 = 0.01² · 1 / 2 = 5e-05 each."""
    for masses in (None, [0.2, 0.3, 0.5], np.array([0.2, 0.3, 0.5])):
        widths, a0 = family_a0s(0.01, 3, 3, masses)
        assert widths == [1, 1, 1]
        assert a0 == pytest.approx([5e-05] * 3, rel=1e-12)
