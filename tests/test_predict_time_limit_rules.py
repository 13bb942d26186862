"""predict's time limit has one meaning in Python and on the command line.

Before (measured on main, 2026-11-29):
- `tk.predict_reln(..., time_bound=0)` was a ZERO-second bound: the run failed at once ("passed the 0 s
  bound"), while `theorykit predict --time-limit 0` meant no limit; the keyword was not the option's name.
  Now the keyword is `time_limit=` (as `--time-limit`), 0 or None means no limit in both, a negative
  number or NaN is refused by name (`time_limit` from Python, `--time-limit` from the command line), and
  `time_bound=` still works with a DeprecationWarning naming `time_limit`.
Never timed: the estimate is monkeypatched or counted by hand in a comment.
"""
import math
import warnings

import pytest
import sympy as sp
from _specs import XOR_TOML

import theorykit as tk
import theorykit.analysis.predict as pr
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


def test_the_command_lines_0_reaches_python_as_no_limit(tmp_path, monkeypatch):
    huge_estimate(monkeypatch)
    seen = {}
    real = pr.predict_reln.__wrapped__

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(pr.predict_reln, "__wrapped__", spy)
    spec, out = tmp_path / "x.toml", tmp_path / "p.toml"
    spec.write_text(XOR_TOML)
    assert main(["predict", str(spec), "--hidden", "8", "--set", "Delta=1", "--time-limit", "0", "--no-progress",
                 "--out", str(out)]) == 0
    assert seen["time_limit"] == 0 and "time_bound" not in seen and out.exists()


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
