"""Refusals a user reads, in the user's words (session 161): each names the field or option as the user
typed it (on the command line the option or the environment variable; from Python the keyword) and a fix
that works."""
from __future__ import annotations

import pytest

from theorykit.analysis.predict_share import share_hidden, share_mass
from theorykit.errors import SpecError


# ---------------------------------------------------------------------------------------------
# share_hidden / share_mass with no unit to give: fewer pathways cannot help
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("share", [share_hidden, lambda H, m: share_mass(H, [1.0] * m)])
@pytest.mark.parametrize("H, m", [(0, 1), (0, 3), (-2, 2)])
def test_no_units_fix_asks_for_units_not_fewer_pathways(share, H, m):
    # with H ≤ 0 units, every m ≥ 1 pathways is refused (m pathways need m units, m ≥ 1 > H): the fix must
    # ask for at least 1 unit and H ≥ m, never for fewer pathways (the fewest, one, still needs a unit)
    with pytest.raises(SpecError) as info:
        share(H, m)
    assert info.value.field == "H"
    assert "fewer pathways" not in info.value.fix
    assert info.value.fix == f"use H >= {m}: at least 1 unit, and at least one per pathway (H >= the number of pathways)"


@pytest.mark.parametrize("H, m", [(1, 2), (2, 3), (3, 7)])
def test_some_units_fix_says_how_many_pathways_fit(H, m):
    # 1 ≤ H < m: H pathways of one unit each fit, so the fix's "at most H pathways" works, and H ≥ m does
    with pytest.raises(SpecError) as info:
        share_hidden(H, m)
    noun = "pathway" if H == 1 else "pathways"
    assert info.value.fix == f"use H >= {m} (one unit per pathway at least), or at most {H} {noun}"
    assert share_hidden(H, H) == [1] * H and share_hidden(m, m) == [1] * m       # both fixes work
