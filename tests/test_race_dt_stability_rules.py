"""A coarse race step gave wrong numbers silently (race-exhaust, predict_reln); share_mass below one unit each.

race-exhaust --k 2: contexts(8, 2), P = 16 datapoints, summed loss at η = 0.001: τ = 1/(P η) = 62.5 steps.
Its race's fastest rate is 2·s_max/τ (the mode ODE τȧ = 2a(s − da) linearised at a = s/d: τ δȧ = −2s δa,
docs/theory.md), s_max = 1.326 at k = 2. RK4 on y' = −λy multiplies y by R(−hλ) per step,
R(z) = 1 + z + z²/2 + z³/6 + z⁴/24, |R(−x)| ≤ 1 for 0 ≤ x ≤ 2.7853, where R = 1 (computed below with numpy's roots).
With the safety margin 2 the step h = τ/race_dt must satisfy h·2 s_max/τ ≤ 2.785/2, so
race_dt ≥ 4 s_max/2.785 = 1.904 (k = 2), printed rounded up as 1.91. predict_reln steps at τ/(race_dt·s_max):
h·2 s_max/τ = 2/race_dt ≤ 2.785/2, race_dt ≥ 4/2.785 = 1.436, printed as 1.44, whatever the data.
"""
from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import theorykit as tk
from theorykit.analysis import checkpoints
from theorykit.analysis.predict_share import share_hidden, share_mass
from theorykit.analysis.exhaust import exhaust_spec, race_exhaust
from theorykit.analysis.race_step import RK4_MARGIN, RK4_STABLE, min_race_dt
from theorykit.cli import main
from theorykit.errors import SpecError
from theorykit.record import SaveAt
from theorykit.spec.limits import Limits
from theorykit.theory.flow import RK4, integrate
from theorykit.theory.race import RaceSystem
from test_record_span_rules import _long_run

S_MAX_K2 = 1.3258252147247762      # k = 2: the race's largest singular value (checked below by numpy's SVD)
TRAINING = tk.Training(lr=0.05, init_std=0.01, steps=2000)     # docs/predict.md's XoR example


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err
    return err


def test_rk4_stability_interval_is_the_root_of_r_plus_one():
    # R(−x) = 1 ⟺ x (x³/24 − x²/6 + x/2 − 1) = 0: the cubic's one real root bounds RK4's interval
    roots = np.roots([1 / 24, -1 / 6, 1 / 2, -1])
    real = [r.real for r in roots if abs(r.imag) < 1e-9 and r.real > 0]
    assert len(real) == 1 and 2.785 <= real[0] < 2.786         # 2.78529…
    assert RK4_STABLE <= real[0] and RK4_MARGIN >= 2


def test_s_max_of_k2_and_the_smallest_race_dt():
    spec = exhaust_spec(2)[0]
    S = RaceSystem.from_spec(spec).arrays_np["Syx"]
    assert np.isclose(max(np.linalg.svd(S, compute_uv=False)[..., 0].max(), 1.0), S_MAX_K2, rtol=1e-12)
    assert spec.tau == 62.5
    assert math.isclose(min_race_dt(S_MAX_K2), 4 * S_MAX_K2 / 2.785, rel_tol=1e-12)     # 1.9042


# ---------------------------------------------------------------------------------------------------
# the zero-step interval: RK4(h) with h more than 1e9 × an interval took no step in it
# ---------------------------------------------------------------------------------------------------
def test_rk4_steps_at_least_once_in_an_interval_far_shorter_than_its_step():
    # y' = −y from 1 to t = 1e-3 with RK4(1e12): one step of 1e-3 (every interval is cut into
    # max(1, ceil(length/h)) steps), y = R(−1e-3) = e^−1e-3 up to 1e-3⁵/120 ≈ 8e-18. Before: 0 steps, y = 1.
    res = integrate(lambda y, a: -y, np.ones((1, 1)), solver=RK4(1e12), save=SaveAt(ts=[1e-3], fns={"y": lambda y, a: y[0]}),
                    batched_args=False)
    assert res.extra["steps"] == 1
    assert abs(float(res.saved["y"][0, -1]) - math.exp(-1e-3)) < 1e-15


# ---------------------------------------------------------------------------------------------------
# race-exhaust: a too coarse --race-dt is refused before any race, with the smallest accepted value
# ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("race_dt, steps", [("1e-10", "10"), ("1e-10", "8000"), ("1.9", "8000"), ("0.01", "10")])
def test_race_exhaust_refuses_a_race_dt_too_coarse_for_rk4(capsys, tmp_path, race_dt, steps):
    # before: 1e-10 over 10 steps learned nothing (area exactly 1.0, winner "2"), exit 0
    out = tmp_path / "out"
    assert main(["race-exhaust", "--k", "2", "--race-dt", race_dt, "--steps", steps, "--no-progress",
                 "--out", str(out)]) == 2
    line = _one_line(capsys)
    assert line.startswith(f"theorykit: error in --race-dt: {float(race_dt)!r} makes the RK4 step τ/race-dt = ")
    assert "too coarse for the race's fastest rate 2·s_max/τ (s_max = 1.326, τ = 62.5)" in line
    assert line.endswith("(fix: use --race-dt 1.91 or larger (default 10))")
    assert not (out / "exhaust.json").exists()
    with pytest.raises(SpecError) as info:
        race_exhaust(2, race_dt=float(race_dt), steps=int(steps), progress=False)
    assert info.value.field == "race_dt" and info.value.fix == "use race_dt=1.91 or larger (default 10)"


def test_race_exhaust_at_the_smallest_race_dt_ranks_as_the_default():
    low = race_exhaust(2, race_dt=1.91, progress=False)
    ref = race_exhaust(2, progress=False)
    rank = lambda r: [m["family"] for m in sorted(r.metrics, key=lambda m: m["rank_area"])]  # noqa: E731
    assert rank(low) == rank(ref) and low.summary["winner"] == ref.summary["winner"] == "common+1+2"
    for a, b in zip(sorted(low.metrics, key=lambda m: m["index"]), sorted(ref.metrics, key=lambda m: m["index"])):
        assert 0 < a["area"] < 1 and abs(a["area"] - b["area"]) < 1e-2 * b["area"]
        # the gap is RK4's error at the coarse step, O(h⁴): the default's step is 10/1.91 times finer, its error
        # (10/1.91)⁴ ≈ 750 times smaller, so the gap is the coarse race's own error: measured at most 1.0e-4 of
        # the area (CPU); 1e-3 is 10× that (1e-2 passed RK4's last stage taken at 0.9·h, a gap of 2.0e-3)
        assert abs(a["area"] - b["area"]) < 1e-3 * b["area"], (a["family"], a["area"], b["area"])


# ---------------------------------------------------------------------------------------------------
# predict_reln: race_dt=1e-3 blew up to an area of 4.1e24; refused, 1.44 accepted
# ---------------------------------------------------------------------------------------------------
def test_predict_reln_refuses_a_race_dt_too_coarse_for_rk4():
    for race_dt in (1e-3, 1.43):
        with pytest.raises(SpecError) as info:
            tk.predict_reln(tk.xor_margin(0.5), 8, TRAINING, race_dt=race_dt, progress=False)
        assert info.value.field == "race_dt" and info.value.fix == "use race_dt=1.44 or larger (default 10)"
        assert f"{race_dt!r} makes the RK4 step τ/(race_dt·s_max) = " in info.value.problem


def test_predict_reln_at_the_smallest_race_dt_predicts_as_the_default():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low = tk.predict_reln(tk.xor_margin(0.5), 8, TRAINING, race_dt=1.44, progress=False)
        ref = tk.predict_reln(tk.xor_margin(0.5), 8, TRAINING, progress=False)
    gates = lambda r: sorted(tuple(int(v) for v in g) for g in r.gates)  # noqa: E731
    assert gates(low) == gates(ref) and list(low.widths) == list(ref.widths)
    a, b = low.area, ref.area
    assert 0 < a < 1 and abs(a - b) < 1e-2 * b
    # RK4's error at the coarse step (O(h⁴); the default's is (10/1.44)⁴ ≈ 2300 times smaller): measured 2.6e-5
    # of the area (CPU); 1e-3 as for race-exhaust above (1e-2 passed RK4's last stage at 0.9·h, a gap of 2.3e-3)
    assert abs(a - b) < 1e-3 * b, (a, b)


# ---------------------------------------------------------------------------------------------------
# find-gates --checkpoints: an elbow over the memory limit offered "lower --max-K" whatever it saved
# ---------------------------------------------------------------------------------------------------
_run = _long_run      # the elbow tests' two-checkpoint run, written once (tests/test_record_span_rules.py)


class _Passed(Exception):
    """The elbow got past its size check (a GDLN would train)."""


@pytest.fixture
def no_gdln(monkeypatch):
    def stop(*a, **k):
        raise _Passed
    monkeypatch.setattr(checkpoints, "gdln_outputs_from_start", stop)


def test_elbow_over_memory_where_no_k_fits_offers_only_k(tmp_path, capsys, monkeypatch, no_gdln):
    # 1000 B: even one GDLN of K = 1 over the run's 10 steps is over it (so a lower --max-K, offered before, is
    # refused again: checked below), and fewer steps do not fit either (the run's 10 steps, not one fits)
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1000")
    ck, data = _run(tmp_path, 10)
    assert main(["find-gates", "--checkpoints", ck, "--data", data, "--lr", "0.05", "--out", str(tmp_path / "f.toml"),
                 "--no-progress", "--force"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("theorykit: error in --K: the elbow (4 GDLN trainings, K = 1, 2, 3, 4: width 4, 10 steps each)")
    assert err.endswith("(fix: give --K (no elbow: nothing is trained); --force does not lift the memory limit)")
    run = checkpoints.load_checkpoints(ck, data)
    for Ks in ([1, 2, 3, 4], [1]):
        with pytest.raises(SpecError) as info:
            checkpoints.find_gates_in_run(run, lr=0.05, Ks=Ks, limits=Limits(max_bytes=1000, force=True))
        assert info.value.field == "K"
        assert info.value.fix == ("give K= (no elbow: nothing is trained); or raise the memory limit: "
                                  "limits=theorykit.spec.limits.Limits(max_bytes=…), or THEORYKIT_MAX_BYTES")


def test_elbow_over_memory_offers_a_max_k_that_fits(tmp_path, capsys, monkeypatch):
    # 1600 B over a run of 1 step: K = 4's GDLN needs 1856 + 16 (1 + 1) = 1888 B (by hand,
    # tests/test_record_span_rules.py), over it; no fewer steps (0) can be read. A smaller elbow may fit: the
    # --max-K offered must then pass the check, and one more must not
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1600")
    ck, data = _run(tmp_path, 1)
    args = ["find-gates", "--checkpoints", ck, "--data", data, "--lr", "0.05", "--out", str(tmp_path / "f.toml"),
            "--no-progress", "--force"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("theorykit: error in --max-K: the elbow (4 GDLN trainings, K = 1, 2, 3, 4: width 4, 1 steps each)")
    m = int(re.search(r"\(fix: lower --max-K to at most (\d+), or give --K \(no elbow: nothing is trained\); --force does "
                      r"not lift the memory limit\)$", err).group(1))
    assert 1 <= m < 4
    assert main(args + ["--max-K", str(m + 1)]) == 2
    # --max-K m passes the elbow's size check: the elbow's scores (k-means, then a GDLN per K) come next

    def stop(*a, **k):
        raise _Passed
    monkeypatch.setattr(checkpoints, "elbow_scores_from", stop)
    with pytest.raises(_Passed):
        checkpoints.find_gates_in_run(checkpoints.load_checkpoints(ck, data), lr=0.05, Ks=range(1, m + 1),
                                      limits=Limits(max_bytes=1600, force=True))


# ---------------------------------------------------------------------------------------------------
# share_mass: at least one unit each, so H below the count is refused (it gave widths of 0)
# ---------------------------------------------------------------------------------------------------
def test_share_mass_refuses_fewer_units_than_pathways():
    for H, masses in ((2, [0.5, 0.3, 0.2]), (0, [1.0]), (2, [0.0, 0.0, 0.0])):
        with pytest.raises(SpecError) as info:
            share_mass(H, masses)
        assert info.value.field == "H"
        whom = "the one pathway" if len(masses) == 1 else f"each of the {len(masses)} pathways"   # 1: singular
        assert info.value.problem == f"{H} hidden units cannot give {whom} at least one unit"
        # fewer pathways help only where there is a unit to give: with H = 0 no number of pathways works
        assert info.value.fix == (f"use H >= {len(masses)} (one unit per pathway at least), or at most {H} pathways"
                                  if H >= 1 else f"use H >= {len(masses)}: at least 1 unit, and at least one per "
                                  "pathway (H >= the number of pathways)")
    # H = m: one each (the H − m = 0 others shared by none); H = 5 over masses 0.5, 0.3, 0.2: 1 each and the
    # other 2 by largest remainder: 2·(0.5, 0.3, 0.2) = (1, 0.6, 0.4) → floors (1, 0, 0), one more to 0.6: (2, 2, 1)
    assert share_mass(3, [0.5, 0.3, 0.2]) == [1, 1, 1] and share_mass(5, [0.5, 0.3, 0.2]) == [2, 2, 1]
    assert share_mass(4, [0.0, 0.0]) == share_hidden(4, 2) == [2, 2]
