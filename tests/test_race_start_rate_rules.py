"""The race's step check offers a fix that races from a start above the end point (fuzz campaign 2026-11-30).

``theorykit race-exhaust --k 2 --steps 50 --a0 10 --race-dt 1.9`` was refused with "use --race-dt 1.91 or larger";
--race-dt 1.91 then blew the race up ("its loss rose to 1.8e+14 × its start"): the check took the fastest rate at
the modes' end points (2·s_max/τ), but a start a0 above its end point s/d is faster there. The mode ODE
τȧ = 2a(s − da) (docs/theory.md) linearised at a0 is τδȧ = 2(s − 2d·a0)δa, of size 2(2d·a0 − s) once a0 > s/d.
The check still accepts or refuses by the end points' rate (a start that diverges is refused after the race,
naming --a0: tests/test_fuzz_findings_rules.py); the value it offers covers the start's rate too.
"""
import numpy as np
import pytest

from theorykit.analysis import exhaust as E
from theorykit.analysis import race_step as RS
from theorykit.cli import main
from theorykit.theory.race import RaceSystem


def _system(k=2):
    spec, *_ = E.exhaust_spec(k)
    X, Y = (np.asarray(a, float) for a in spec.task.numeric())
    return RaceSystem.from_spec(spec), X, Y


def test_a_start_above_the_end_point_is_the_fastest_rate():
    system, X, Y = _system()
    P = X.shape[1]
    s = np.linalg.svd(Y @ X.T / P, compute_uv=False)[0]             # s_max by numpy: 1.3258 at k = 2
    lam = np.linalg.eigvalsh(X @ X.T / P)[-1]                        # the common pathway's λmax(Σx): 0.625 at k = 2
    a0 = 10.0
    fastest = RS.start_rate(system, a0)
    # the bound taken, 4·λmax(Σx)·a0, is at least the mode ODE's own start rate 2(2d·a0 − s) for every d ≤ λmax
    assert fastest == pytest.approx(4 * lam * a0, rel=1e-12)
    assert fastest >= 2 * (2 * lam * a0 - s)
    assert fastest > 2 * system.rate * 9                             # 25 against 2.65: the end point alone misses it


def test_a_small_start_changes_nothing(capsys, tmp_path):
    system, *_ = _system()
    # a0 = 1e-3 (the a0 rule's scale): 4·0.625·1e-3 is far below 2·s_max, so the offered value is the end point's
    assert RS.start_rate(system, 1e-3) == pytest.approx(4 * 0.625 * 1e-3, rel=1e-12)
    assert RS.start_rate(system, 1e-3) < 2 * system.rate
    assert main(["race-exhaust", "--k", "2", "--steps", "50", "--a0", "0.001", "--no-progress", "--race-dt", "1.9",
                 "--out", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert "use --race-dt 1.91 or larger (default 10))" in err and "start" not in err


def test_the_refusals_fix_races(tmp_path, capsys):
    """The fix of the refusal is a value that runs: before, 1.91 was offered and then diverged (it still does,
    refused after the race with 'raise --race-dt', the option given)."""
    args = ["race-exhaust", "--k", "2", "--steps", "50", "--a0", "10", "--no-progress"]
    assert main(args + ["--race-dt", "1.91", "--out", str(tmp_path / "d")]) == 2
    assert "error in --race-dt: the race diverged" in capsys.readouterr().err
    assert main(args + ["--race-dt", "1.9", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "error in --race-dt" in err and "resolves the start's rate 4·λmax(Σx)·a0 = 25/τ" in err and "diverged" not in err
    ok = float(err.split("use --race-dt ")[1].split(" ")[0])
    assert ok >= RS.min_race_dt(1.3258, 4 * 0.625 * 10) * 0.999      # hand: 25 · 2 / 2.785 = 17.95, shown as 18
    assert main(args + ["--race-dt", str(ok), "--out", str(tmp_path / "b")]) == 0
    assert (tmp_path / "b" / "exhaust.json").exists()
