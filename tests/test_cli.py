"""The command line: derive/simulate JSON, LaTeX output, exit status 2 with field-naming errors."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from theorykit.cli import main

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"


def test_derive_writes_required_json_and_latex(tmp_path):
    out, tex = tmp_path / "d.json", tmp_path / "d.tex"
    rc = main(["derive", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--times", "0,100,1000",
               "--json", str(out), "--latex", str(tex)])
    assert rc == 0
    res = json.loads(out.read_text())
    assert res["method"] == "closed-form"
    pos = res["pathways"]["positive"]
    # THEORY §4: s_linear = Δ/2 = 1/4, d_linear = Δ²/2 = 1/8 at Δ = 1/2
    assert pos["singular_values"] == ["1/4"] and pos["singular_values_float"] == [0.25]
    assert pos["input_variances"] == ["1/8"]
    assert res["loss"]["t"] == [0, 100, 1000] and len(res["loss"]["value"]) == 3
    assert res["loss"]["value"][0] > res["loss"]["value"][2]
    assert "latex" in res
    doc = tex.read_text()
    assert doc.startswith("\\documentclass") and "\\end{document}" in doc
    assert "\\Sigma^{yx}" in doc and "a(t)" in doc


def test_derive_symbolic_without_values(tmp_path, capsys):
    assert main(["derive", str(EX / "xor_reln.toml")]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["pathways"]["point0"]["singular_values"] == ["sqrt(Delta**2 + 2)/4"]
    assert res["loss"] is None


def test_derive_coupled_spec_uses_race_reduction(tmp_path):
    out = tmp_path / "c.json"
    assert main(["derive", str(EX / "contexts_double.toml"), "--times", "0,2000", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["method"] == "race-reduction" and res["notes"]


def test_simulate_writes_loss(tmp_path):
    out = tmp_path / "s.json"
    rc = main(["simulate", str(EX / "xor_reln.toml"), "--set", "Delta=1", "--seeds", "2", "--steps", "300",
               "--times", "0,300", "--compare", "--json", str(out)])
    assert rc == 0
    res = json.loads(out.read_text())
    assert set(res["loss"]) == {"t", "mean", "std"} and res["theory"]["method"] == "closed-form"


@pytest.mark.parametrize("argv, needle", [
    (["derive", "nope.toml"], "no such file"),
    (["derive", str(EX / "xor_linear.toml"), "--set", "Gamma=1"], "--set"),
    (["derive", str(EX / "xor_linear.toml"), "--set", "Delta=__import__('os')"], "--set Delta"),
    (["derive", str(EX / "xor_linear.toml"), "--times", "a,b"], "--times"),
    (["simulate", str(EX / "xor_linear.toml"), "--set", "Delta=1", "--steps", "10", "--times", "50"], "--times"),
])
def test_errors_exit_2_and_name_the_field(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and "fix" in err


def test_bad_spec_file_names_field(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('[data]\ninputs = [[1, 2]]\ntargets = [[1, 2]]\n[[pathways]]\nname = "a"\nactive = [1, 3]\n')
    assert main(["derive", str(bad)]) == 2
    assert "pathways[0].active" in capsys.readouterr().err


def test_divergence_exits_2_and_writes_nothing(tmp_path, capsys):
    spec = tmp_path / "div.toml"
    spec.write_text((EX / "xor_reln.toml").read_text().replace("lr = 0.01", "lr = 80.0"))
    out = tmp_path / "never.json"
    assert main(["simulate", str(spec), "--set", "Delta=1", "--steps", "100", "--seeds", "1", "--json", str(out)]) == 2
    assert "diverged" in capsys.readouterr().err and not out.exists()


def test_module_entry_point_help_from_another_folder(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-m", "theorykit", "--help"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "derive" in r.stdout and "validate" in r.stdout
