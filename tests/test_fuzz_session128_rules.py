"""A fuzz campaign on the day's changes (session 128): predict's race step on correlated anisotropic inputs from
the command line; theorykit rerun of an interrupted sweep. Each test failed before its fix."""
from __future__ import annotations

import json
import math
import re
import tomllib

import numpy as np
import pytest

import theorykit as tk
from theorykit.cli import main
from theorykit.errors import SpecError

# Correlated anisotropic inputs (d = 3, P = 6; X = A Z, A random with column scales 1, 0.3, 3, times 0.3, rounded to
# 3 digits): Σx = X Xᵀ/P does not commute with Σyx, so the race runs faster than 2·s_max/τ and predict's step check
# refuses the default race_dt = 10 (tests/fuzz session 128, seed 2, scale 0.3).
ANISO = """name = "aniso2"
[data]
inputs = [[-0.097, -0.093, -0.142, 0.351, -0.294, -0.778], [0.583, -0.287, 0.552, -0.779, 1.242, 1.921], [0.095, 0.026, 0.092, -0.215, 0.213, 0.535]]
targets = [[-1.0, -1.0, -1.0, 1.0, 1.0, 1.0]]
[training]
lr = 0.05
loss = "mean"
init_std = 0.01
steps = 3000
"""


def _refusal(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_predict_cli_refusal_of_race_dt_names_an_option_the_command_takes(tmp_path, capsys):
    """Was: 'theorykit: error in race_dt: … (fix: use race_dt=18.1 or larger)' from the command line, which had no
    way to set race_dt (predict had no --race-dt): every correlated anisotropic data set of the fuzz campaign (12 of
    12) could not be predicted at all. Now the refusal names --race-dt with a value, and that value is accepted."""
    spec = tmp_path / "aniso.toml"
    spec.write_text(ANISO)
    out, js = tmp_path / "pred.toml", tmp_path / "pred.json"
    err = _refusal(capsys, ["predict", str(spec), "--hidden", "6", "--out", str(out), "--no-progress"])
    assert "error in --race-dt:" in err, err
    named = re.search(r"use --race-dt ([0-9.e+]+) or larger", err)
    assert named, err
    value = float(named.group(1))
    assert value > 10          # the default was refused: the named value is larger
    assert not out.exists()
    # a value just below the named one is still refused, naming the same option
    below = _refusal(capsys, ["predict", str(spec), "--hidden", "6", "--out", str(out), "--no-progress",
                              "--race-dt", repr(value * 0.9)])
    assert "error in --race-dt:" in below
    # the named value is accepted and the prediction is finite
    assert main(["predict", str(spec), "--hidden", "6", "--out", str(out), "--json", str(js), "--no-progress",
                 "--race-dt", named.group(1)]) == 0
    capsys.readouterr()
    doc = json.loads(js.read_text())
    assert doc["provenance"]["options"]["race_dt"] == value
    spec_out = tk.load_spec(out)
    assert sum(pw.hidden for pw in spec_out.pathways) == 6
    assert all(math.isfinite(v) for v in _numbers(doc["prediction"]))


def _numbers(x):
    if isinstance(x, bool):
        return
    if isinstance(x, (int, float)):
        yield float(x)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _numbers(v)
    elif isinstance(x, list):
        for v in x:
            yield from _numbers(v)


@pytest.mark.parametrize("bad", ["0", "-1", "nan", "1e-400"])
def test_predict_cli_race_dt_refuses_what_is_not_a_positive_number(tmp_path, capsys, bad):
    spec = tmp_path / "aniso.toml"
    spec.write_text(ANISO)
    err = _refusal(capsys, ["predict", str(spec), "--hidden", "6", "--out", str(tmp_path / "p.toml"),
                            "--no-progress", f"--race-dt={bad}"])
    assert "error in --race-dt:" in err, err


def test_predict_reln_still_names_the_keyword_race_dt():
    """A Python caller's refusal names race_dt= (the keyword), not the command line's option."""
    doc = tomllib.loads(ANISO)
    X, Y = np.array(doc["data"]["inputs"]), np.array(doc["data"]["targets"])
    with pytest.raises(SpecError) as info:
        tk.predict_reln((X, Y), 6, tk.Training(lr=0.05, steps=3000), progress=False)
    assert info.value.field == "race_dt"
    assert re.fullmatch(r"use race_dt=[0-9.e+]+ or larger \(default 10\)", info.value.fix), info.value.fix


# ---------------------------------------------------------------------------------------------------
# theorykit rerun of a sweep stopped before its end


def _stopped_sweep(tmp_path, capsys, complete=False):
    """A finished small sweep whose sweep.json is then put as a sweep stopped by Ctrl-C leaves it: complete =
    false and no results (what the campaign's `timeout -s INT` sweep wrote)."""
    out = tmp_path / "sw"
    assert main(["sweep", "examples/xor_linear.toml", "--grid", "Delta=0.5,1", "--seeds", "1", "--steps", "20",
                 "--chunk", "1", "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    f = out / "sweep.json"
    doc = json.loads(f.read_text())
    assert doc["complete"] is True and "results" in doc
    doc["complete"] = complete
    doc.pop("results")
    f.write_text(json.dumps(doc))
    return f


def test_rerun_of_a_stopped_sweep_is_refused_naming_complete(tmp_path, capsys):
    """Was: the whole sweep was run again, then 'differ' (exit 1): 'complete: recorded False, rerun True' and
    'results: present in the rerun only … (an older theorykit's, or removed by hand)', neither the cause."""
    f = _stopped_sweep(tmp_path, capsys)
    assert main(["rerun", str(f)]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert "error in complete:" in err and "stopped before its end" in err, err
    assert "rerun:" not in out + err and "sweep:" not in out + err      # refused before running anything


def test_rerun_of_a_sweep_whose_complete_is_not_a_bool_is_refused(tmp_path, capsys):
    f = _stopped_sweep(tmp_path, capsys, complete="yes")
    err = _refusal(capsys, ["rerun", str(f)])
    assert "error in complete: is 'yes', not true or false" in err, err
