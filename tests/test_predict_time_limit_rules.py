"""predict's time limit has one meaning in Python and on the command line, and its estimate is priced
from a measurement of today's engine (the RK4 programs cached).

Before (measured on main, 2026-11-29):
- `tk.predict_reln(..., time_bound=0)` was a ZERO-second bound: the run failed at once ("passed the 0 s
  bound"), while `theorykit predict --time-limit 0` meant no limit; the keyword was not the option's name.
  Now the keyword is `time_limit=` (as `--time-limit`), 0 or None means no limit in both, a negative
  number or NaN is refused by name (`time_limit` from Python, `--time-limit` from the command line), and
  `time_bound=` still works with a DeprecationWarning naming `time_limit`.
- The estimate priced every engine call at CALL_S = 0.25 s, set when the RK4 loop was traced afresh each
  call; a repeated shape is no longer traced again, so the per-call price was re-measured.
Never timed: the estimate is monkeypatched or counted by hand in a comment.
"""
import math
import warnings

import pytest
import sympy as sp
from _specs import XOR_TOML

import theorykit as tk
import theorykit.analysis.predict as pr
import theorykit.analysis.predict_estimate as pe
from theorykit.cli import main
from theorykit.spec.gating import Training

TR = Training(lr=0.05, loss="mean", init_std=0.01, steps=100)
XOR = tk.xor_margin(sp.Rational(1, 2))


def huge_estimate(monkeypatch):
    """Every estimate (the up-front one and each batch's) a billion seconds: any limit would refuse."""
    monkeypatch.setattr(pr, "estimate_seconds", lambda *a, **k: 1e9)


# ------------------------------------------------------------------------------------------
# 1. one meaning of the limit
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("limit", [0, 0.0, None, math.inf])
def test_time_limit_0_none_and_inf_run_unbounded(monkeypatch, limit):
    huge_estimate(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # the new keyword warns about nothing
        pred = pr.predict_reln(XOR, 8, TR, time_limit=limit, progress=False)
    assert pred.gates.shape[0] in (2, 4)        # a prediction, not a refusal


def test_a_positive_time_limit_still_refuses_naming_time_limit(monkeypatch):
    huge_estimate(monkeypatch)
    with pytest.raises(tk.SpecError) as e:
        pr.predict_reln(XOR, 8, TR, time_limit=60, progress=False)
    assert e.value.field == "time_limit" and "over the 60 s bound" in str(e.value)
    assert "time_limit=" in e.value.fix


@pytest.mark.parametrize("bad", [-1, -1e-9, math.nan, -math.inf, "60", True])
def test_a_negative_or_nan_time_limit_is_refused_by_name_in_python(bad):
    with pytest.raises(tk.SpecError) as e:
        pr.predict_reln(XOR, 8, TR, time_limit=bad, progress=False)
    assert e.value.field == "time_limit"
    assert "e.g." in e.value.fix and "time_limit=" in e.value.fix       # how to fix it, in Python's words


def test_a_negative_time_limit_is_refused_naming_the_option_on_the_command_line(tmp_path, capsys):
    spec, out = tmp_path / "x.toml", tmp_path / "p.toml"
    spec.write_text(XOR_TOML)
    assert main(["predict", str(spec), "--hidden", "8", "--set", "Delta=1", "--time-limit", "-1", "--no-progress",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--time-limit" in err and "time_limit" not in err and not out.exists()


@pytest.mark.parametrize("text, value", [("0", 0), ("inf", math.inf)])
def test_the_command_lines_0_and_inf_reach_python_as_no_limit(tmp_path, monkeypatch, text, value):
    """--time-limit 0 and --time-limit inf mean no limit, as they do in Python and (inf) for every other
    command's --time-limit; inf was refused by predict's own pre-check ("inf is not a finite number")."""
    huge_estimate(monkeypatch)
    seen = {}
    real = pr.predict_reln.__wrapped__

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(pr.predict_reln, "__wrapped__", spy)
    spec, out = tmp_path / "x.toml", tmp_path / "p.toml"
    spec.write_text(XOR_TOML)
    assert main(["predict", str(spec), "--hidden", "8", "--set", "Delta=1", "--time-limit", text, "--no-progress",
                 "--out", str(out)]) == 0
    assert seen["time_limit"] == value and "time_bound" not in seen and out.exists()


# ------------------------------------------------------------------------------------------
# 2. the former keyword
# ------------------------------------------------------------------------------------------
def test_time_bound_warns_once_naming_time_limit_and_works(monkeypatch):
    huge_estimate(monkeypatch)
    with pytest.warns(DeprecationWarning, match="time_limit") as rec:
        pred = pr.predict_reln(XOR, 8, TR, time_bound=0, progress=False)     # 0: no limit, as time_limit=0
    assert pred.gates.shape[0] in (2, 4)
    assert len([w for w in rec if issubclass(w.category, DeprecationWarning)]) == 1
    assert rec[0].filename == __file__          # points at the caller, not at theorykit's decorators
    with pytest.warns(DeprecationWarning, match="time_limit"):
        with pytest.raises(tk.SpecError) as e:
            pr.predict_reln(XOR, 8, TR, time_bound=60, progress=False)      # the same limit as before
    assert e.value.field == "time_limit"


def test_time_bound_and_time_limit_together_are_refused():
    with pytest.raises(tk.SpecError) as e:
        pr.predict_reln(XOR, 8, TR, time_limit=60, time_bound=60, progress=False)
    assert e.value.field == "time_limit" and "time_limit=" in e.value.fix


# ------------------------------------------------------------------------------------------
# 3. the re-priced estimate
# ------------------------------------------------------------------------------------------
def test_the_estimates_priced_parts_by_hand():
    # The constants, measured 2026-11-29 (predict_estimate.py's comment, docs/predict.md#time):
    # COMPILE_S = 2.5 s a new shape, CALL_S = 0.12 s a call, FLOPS = 3e10; per RK4 step RK4_STEP_S = 5.4e-6 s a
    # call and RK4_FAMILY_STEP_S = 0.42e-6 s a family (measured 2026-11-29, 20:50 UTC).
    # P = 4, d = 3, rank 1, 2 pathways, 3 families, 100 steps, tau 20, race_dt 10:
    # 100 / (20 / 10) = 50 RK4 steps; R = 2, D = 6; FLOP = 3 · 50 · 4 · 6 · 2 · 6 · 4 = 172 800,
    # 172 800 / 3e10 = 5.76e-6 s; the steps in 3 calls of 3 families: 50 · (3 · 5.4e-6 + 3 · 0.42e-6) = 8.73e-4 s.
    # 1 new shape, 3 calls: 1 · 2.5 + 3 · 0.12 + 8.73e-4 + 5.76e-6 = 2.86087876 s
    assert pe.estimate_seconds(4, 3, 1, 2, 3, 100, 20.0, 10.0, 1, 3) == pytest.approx(2.86087876, rel=1e-12)
    # no new shape, 3 calls: 3 · 0.12 + 8.73e-4 + 5.76e-6 = 0.36087876 s
    assert pe.estimate_seconds(4, 3, 1, 2, 3, 100, 20.0, 10.0, 0, 3) == pytest.approx(0.36087876, rel=1e-12)
    # the defaults: 40 families → ceil(40 / 16) = 3 calls, each counted a new shape:
    # FLOP = 40 · 50 · 4 · 6 · 2 · 6 · 4 = 2 304 000 → 7.68e-5 s; steps 50 · (3 · 5.4e-6 + 40 · 0.42e-6) = 1.65e-3 s;
    # 3 · 2.5 + 3 · 0.12 + 1.65e-3 + 7.68e-5 = 7.8617268 s
    assert pe.estimate_seconds(4, 3, 1, 2, 40, 100, 20.0, 10.0) == pytest.approx(7.8617268, rel=1e-12)
