"""check_race_dt names the race's rate the way it was found: a measured rate within rounding of 2·s_max is the
mode ODE's 2·s_max/τ (white inputs: pathway_rate is 2·s up to eigvalsh's last bits), and only a rate clearly
above it is called a curvature of non-white inputs (theorykit.analysis.race_step; docs/theory.md, the mode ODE)."""
import pytest

from theorykit.analysis.race_step import RK4_MARGIN, RK4_STABLE, check_race_dt
from theorykit.errors import SpecError

S_MAX, TAU = 1.326, 62.5


def _message(fastest):
    with pytest.raises(SpecError) as exc:
        check_race_dt(1e-3, S_MAX, TAU, fastest=fastest)
    return str(exc.value)


@pytest.mark.parametrize("ulps", [0.0, 1e-15, 1e-12])
def test_a_rate_a_rounding_above_two_s_max_is_named_as_two_s_max(ulps):
    # numpy 2.4's eigvalsh gave 2·s a few ulps high on race-exhaust --k 2, and the message named a curvature
    msg = _message(2 * S_MAX * (1 + ulps))
    assert "fastest rate 2·s_max/τ (s_max = 1.326, τ = 62.5)" in msg
    assert "curvature" not in msg


def test_a_rate_clearly_above_two_s_max_is_named_as_measured():
    msg = _message(2 * S_MAX * 1.01)
    assert f"fastest rate {2 * S_MAX * 1.01:.4g}/τ" in msg and "curvature" in msg


def test_the_accepted_step_is_unchanged_by_the_rounding():
    # race_dt ≥ 2·s_max·margin/RK4_STABLE = 2·1.326·2/2.785 = 1.9044…: 1.905 passes at 2·s_max and a hair above
    low = 2 * S_MAX * RK4_MARGIN / RK4_STABLE
    assert 1.904 < low < 1.905
    check_race_dt(1.905, S_MAX, TAU, fastest=2 * S_MAX * (1 + 1e-15))
