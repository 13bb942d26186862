"""The command line: derive/simulate JSON, LaTeX output, exit status 2 with field-naming errors."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from theorykit.cli import main

from _gd_reference import xor_reln_by_hand

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
    # docs/theory.md#xor: s_linear = Δ/2 = 1/4, d_linear = Δ²/2 = 1/8 at Δ = 1/2
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
    # the floats are at a reference point, and the JSON says which: √(Δ² + 2)/4 at Δ = 7/10 is
    # √2.49/4 = 0.3945 (the first of theory.modes.reference_values' fixed generic values is 7/10)
    assert res["reference_values"] == {"Delta": "7/10"} and "7/10" in res["notes"][0]
    assert res["pathways"]["point0"]["singular_values_float"] == [pytest.approx(2.49 ** 0.5 / 4)]


def test_derive_plot_without_values_is_refused_before_any_file(tmp_path, capsys):
    """A plot needs numbers: a symbol without a value is an error naming it and --set, and no PNG is
    written (it drew empty axes and exited 0)."""
    png = tmp_path / "p.png"
    assert main(["derive", str(EX / "xor_linear.toml"), "--plot", str(png)]) == 2
    err = capsys.readouterr().err
    assert "--plot" in err and "'Delta'" in err and "--set Delta=VALUE" in err and not png.exists()


def test_python_api_error_gives_the_python_fix():
    """From Python, a missing value's fix names ``values=``, with the symbol's own name."""
    import theorykit as tk

    with pytest.raises(tk.SpecError, match=r"values=\{'Delta': 0.5\} in Python, --set Delta=0.5"):
        tk.simulate(tk.load_spec(str(EX / "xor_linear.toml")), steps=10)


def test_derive_coupled_spec_uses_race_reduction(tmp_path):
    out = tmp_path / "c.json"
    assert main(["derive", str(EX / "contexts_double.toml"), "--times", "0,2000", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["method"] == "race-reduction" and res["notes"]


def test_simulate_writes_loss(tmp_path):
    """The simulated and the predicted loss against the XoR ReLN written out by hand (xor_reln.toml:
    lr 0.01, a0 0.001, aligned start): L(0) = ½ − √3·10⁻³ + 1.5·10⁻⁶ at Δ = 1."""
    out = tmp_path / "s.json"
    rc = main(["simulate", str(EX / "xor_reln.toml"), "--set", "Delta=1", "--seeds", "2", "--steps", "300",
               "--times", "0,150,300", "--compare", "--json", str(out)])
    assert rc == 0
    res = json.loads(out.read_text())
    assert set(res["loss"]) == {"t", "mean", "std"} and res["theory"]["method"] == "closed-form"
    t = [0, 150, 300]
    assert res["loss"]["t"] == t
    disc, flow = xor_reln_by_hand(1.0, 1e-3, 0.01, t)
    assert res["loss"]["mean"][0] == pytest.approx(0.5 - np.sqrt(3) * 1e-3 + 1.5e-6, rel=1e-12)
    np.testing.assert_allclose(res["loss"]["mean"], disc, rtol=1e-10)          # gradient descent, to rounding
    np.testing.assert_allclose(res["theory"]["value"], flow, rtol=1e-10)      # the closed form
    assert res["loss"]["mean"][0] > res["loss"]["mean"][1] > res["loss"]["mean"][2]
    assert res["loss"]["std"] == [0.0, 0.0, 0.0]                               # aligned: seeds start alike
    gap = np.max(np.abs(disc - flow)) / disc[0]
    assert res["theory"]["max_abs_error_over_initial_loss"] == pytest.approx(gap, rel=1e-6)


@pytest.mark.parametrize("command", [["derive", "--times", "0,100"], ["simulate", "--steps", "20", "--seeds", "1"]])
@pytest.mark.parametrize("where", ["under_a_file", "a_directory"])
def test_unwritable_json_path_exits_2_and_writes_nothing(tmp_path, capsys, command, where):
    """--json at a path that cannot be written (its folder is a file; or it is a folder): exit status 2,
    one message naming the path, no traceback, and nothing written (no temporary file left)."""
    blocker = tmp_path / "blocker"
    blocker.write_text("keep me\n")
    (tmp_path / "dir").mkdir()
    bad = blocker / "out.json" if where == "under_a_file" else tmp_path / "dir"
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    argv = [command[0], str(EX / "xor_linear.toml"), "--set", "Delta=0.5", *command[1:], "--json", str(bad)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit:") and "Traceback" not in err and len(err.strip().splitlines()) <= 2
    assert str(bad) in err, err                 # the output path, not a temporary file or its folder
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    assert blocker.read_text() == "keep me\n" and not any((tmp_path / "dir").iterdir())


def test_simulate_fused_equals_plain_at_the_asked_times(tmp_path):
    """--fused (the Pallas kernel, interpreted on the CPU) records the loss only at --times and
    matches the plain engine there; the same seeds give the same initial weights."""
    res = {}
    for engine in ("plain", "fused"):
        out = tmp_path / f"{engine}.json"
        argv = ["simulate", str(EX / "contexts_double.toml"), "--init", "random", "--seeds", "2", "--steps", "120",
                "--times", "0,40,100,120", "--json", str(out)] + (["--fused"] if engine == "fused" else [])
        assert main(argv) == 0
        res[engine] = json.loads(out.read_text())
    assert res["fused"]["engine"] == "fused" and res["fused"]["loss"]["t"] == [0, 40, 100, 120]
    assert res["fused"]["loss"]["mean"] == pytest.approx(res["plain"]["loss"]["mean"], rel=1e-12)


@pytest.mark.parametrize("argv, needle", [
    (["derive", "nope.toml"], "no such file"),
    (["simulate", str(EX / "section6_paper.toml"), "--steps", "5", "--fused"], "--fused: the fused kernel cannot "
                                                                               "train this network: it has a schedule"),
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


def test_every_command_and_option_explains_itself():
    """`theorykit COMMAND --help` opens with a description, and every option has a help line."""
    import argparse

    from theorykit.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert {"check", "derive", "simulate", "validate", "bench"} <= set(sub.choices)
    for name, parser in sub.choices.items():
        assert parser.description and len(parser.description) > 40, f"{name}: no description"
        for act in parser._actions:
            if act.option_strings and act.help != argparse.SUPPRESS:
                assert act.help, f"{name} {act.option_strings[0]}: no help text"


# --------------------------------------------------------------------------------------------
# issue 16: every field checked, sizes estimated before any work, `check`, --debug, --force
# --------------------------------------------------------------------------------------------
_SMALL = '[data]\ninputs = [[1, -1], [1, 1]]\ntargets = [[1, -1]]\n[[pathways]]\nname = "a"\nactive = "all"\n'


@pytest.mark.parametrize("text, command, field, words", [
    # the four crashes of the issue
    (_SMALL + "hidden = 1000000000000\n", "simulate", "pathways[0].hidden", ["memory", "limit", "lower"]),
    (_SMALL + "[training]\nsteps = 100000000000000\n", "simulate", "training.steps", ["out of range"]),
    (_SMALL.replace("[1, -1], [1, 1]", '[1, "sqrt(-1)"], [1, 1]'), "derive", "data.inputs[0][1]", ["imaginary"]),
    (_SMALL.replace("[1, -1], [1, 1]", "[1, 1e308], [1, 1]"), "derive", "data.inputs[0][1]", ["too large", "rescale"]),
    # more of the same family
    (_SMALL.replace("[1, -1], [1, 1]", '[1, "2**sqrt(-1)"], [1, 1]'), "derive", "data.inputs[0][1]", ["imaginary"]),
    (_SMALL.replace("[1, -1], [1, 1]", '[1, "0**-1"], [1, 1]'), "derive", "data.inputs[0][1]", ["zero"]),
    (_SMALL.replace("[1, -1], [1, 1]", "[1, 1e-300], [1, 1]"), "derive", "data.inputs[0][1]", ["too small"]),
    (_SMALL.replace("[1, -1], [1, 1]", '[1, "((10**64)**64)**64"], [1, 1]'), "derive", "data.inputs[0][1]", ["far"]),
    ('[data]\ntask = "contexts"\nn = 1000000\nreln = "double"\n', "check", "data.n", ["memory", "lower data.n"]),
    (_SMALL + "hidden = 10000000000\n", "simulate", "pathways[0].hidden", ["limit"]),
])
def test_bad_sizes_and_numbers_exit_2_naming_the_field(tmp_path, capsys, text, command, field, words):
    spec = tmp_path / "bad.toml"
    spec.write_text(text)
    out = tmp_path / "out.json"
    argv = [command, str(spec)] + (["--json", str(out)] if command != "check" else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"theorykit: error in {field}: "), err
    assert "Traceback" not in err and "fix:" in err and len(err.strip().splitlines()) == 1
    for w in words:
        assert w in err, (w, err)
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]


def test_set_value_making_an_entry_complex_names_the_option(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text('[symbols]\nDelta = {}\n[data]\ninputs = [[1, "sqrt(Delta)"]]\ntargets = [[1, 1]]\n'
                    '[[pathways]]\nname = "a"\nactive = "all"\n')
    assert main(["derive", str(spec), "--set", "Delta=-1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in --set Delta: ") and "data.inputs[0][1]" in err and "complex" in err


def test_debug_shows_the_traceback(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(_SMALL.replace("[1, -1], [1, 1]", '[1, "sqrt(-1)"], [1, 1]'))
    assert main(["derive", str(spec)]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert main(["derive", str(spec), "--debug"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "SpecError" in err and "data.inputs[0][1]" in err


def test_check_prints_a_summary_without_deriving(capsys):
    assert main(["check", str(EX / "contexts_double.toml")]) == 0
    out = capsys.readouterr().out
    assert "11 inputs x 24 datapoints -> 60 outputs" in out      # n + k = 11, n k = 24, 15 + 3 * 15 = 60
    assert "pathways: 4" in out and "race reduction" in out
    assert "estimated derivation" in out and "estimated simulation" in out


def test_check_refuses_what_derive_refuses(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text(_SMALL + "hidden = 0\n")
    assert main(["check", str(spec)]) == 2
    assert "pathways[0].hidden" in capsys.readouterr().err


def test_force_lifts_the_time_limit_but_never_the_memory_limit(tmp_path, capsys, monkeypatch):
    spec = EX / "xor_reln.toml"
    assert main(["check", str(spec), "--time-limit", "0.01"]) == 2
    err = capsys.readouterr().err
    assert "over the time limit" in err and "--force" in err
    assert main(["check", str(spec), "--time-limit", "0.01", "--force"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1000")
    assert main(["check", str(spec), "--force"]) == 2
    err = capsys.readouterr().err
    assert "of memory" in err and "does not lift the memory limit" in err


def test_deeply_nested_radicals_are_refused_before_exact_arithmetic(tmp_path, capsys):
    """Fuzz seed 7615: sixty nested square roots of 2 are the one number 2**(1/2**60), of degree
    2**60 over the rationals; `check` accepted it and `derive` ran for hours in radsimp. With
    sqrt(3) beside it (same base 2 as the nested root, so one radicand is 2 and the other 3) the
    field the data generate has degree at most 2**60 * 2 = 2**61."""
    import time

    nested = "sqrt(" * 60 + "2" + ")" * 60
    spec = tmp_path / "s.toml"
    spec.write_text(f'[data]\ninputs = [[1, "{nested}"], [1, 1]]\ntargets = [[1, "sqrt(3)"]]\n'
                    '[[pathways]]\nname = "a"\nactive = "all"\n')
    for cmd in ("check", "derive"):
        t0 = time.time()
        assert main([cmd, str(spec)]) == 2
        err = capsys.readouterr().err
        assert time.time() - t0 < 30
        assert err.startswith("theorykit: error in data.inputs[0][1]: "), err
        assert "index 2**60" in err and "degree up to 2**61" in err and "2 different radicands" in err
        assert "--force" in err and "Traceback" not in err


def test_radicals_bound_the_degree_of_the_number_field():
    """Hand count: sqrt(2) and 2**(1/4) share the radicand 2 (lcm of indices 2, 4 = 4); sqrt(3)
    adds index 2 for radicand 3; sqrt(Delta) adds 2 for the symbol: degree bound 4 * 2 * 2 = 16."""
    import sympy as sp
    from theorykit.spec.task import Task

    D = sp.Symbol("Delta", positive=True)
    t = Task(sp.Matrix([[sp.sqrt(2), 2 ** sp.Rational(1, 4)], [1, sp.sqrt(3) / 2]]),
             sp.Matrix([[sp.sqrt(D), sp.Rational(1, 3)]]), {"Delta": D})
    r = t.radicals
    assert r.degree == 16 and r.deepest == ("data.inputs[0][1]", 4)
    assert Task(sp.Matrix([[1, 2]]), sp.Matrix([[3, sp.Rational(1, 2)]])).radicals.degree == 1


def test_the_radical_time_estimate_has_the_measured_shape(tmp_path):
    """The radical term follows the measured python-flint/SymPy engine (tests/calibrate_estimates.py):
    square roots of distinct primes cost per radicand up to three, then no more (8 square roots,
    degree 256, cost what 4 do, degree 16; both more than one); roots of index beyond 16 grow like
    the index, so sixty nested square roots stay refused. The sizes are equal, so nothing else changes."""
    from theorykit.spec.files import spec_from_dict
    from theorykit.spec.limits import RADICAL_CAP, RADICAL_SECONDS, derivation_estimate

    def est(k, deep=None):
        primes = [2, 3, 5, 7, 11, 13, 17, 19]
        v = [f"sqrt({q})" if i < k else i % 3 + 1 for i, q in enumerate(primes)]
        if deep:
            v[0] = f"2**(1/{deep})"
        s = spec_from_dict({"data": {"inputs": [[v[0], v[1], 1, 0], [v[2], 1, v[3], 1]],
                                     "targets": [[v[4], 1, v[5], 0], [0, v[6], 1, v[7]]]},
                            "pathways": [{"name": "a", "active": "all"}]})
        return derivation_estimate(s)

    e0, e1, e2, e4, e8 = est(0), est(1), est(2), est(4), est(8)
    assert not hasattr(e0, "radicals")
    r1, r2, r4, r8 = (e.radicals[2] for e in (e1, e2, e4, e8))
    assert RADICAL_CAP == 3
    assert r1 == pytest.approx(RADICAL_SECONDS) and r2 == pytest.approx(2 * RADICAL_SECONDS)
    assert r8 == pytest.approx(r4) == pytest.approx(3 * RADICAL_SECONDS)
    for e, r in ((e1, r1), (e2, r2), (e4, r4), (e8, r8)):
        assert e.seconds - r == pytest.approx(e0.seconds)
    # index 16 costs as a square root; index 2**10 (ten nested square roots) 64 times that
    assert est(1, deep=16).radicals[2] == pytest.approx(r1)
    assert est(1, deep=2 ** 10).radicals[2] == pytest.approx(64 * r1)


def test_weight_file_keys_the_network_does_not_read_are_reported(tmp_path, capsys):
    """A state dict from elsewhere may carry biases or counters: the run goes on (exit 0), and stderr
    and the JSON name the keys that were not read."""
    import numpy as np

    spec = tmp_path / "x.toml"
    spec.write_text('data = {task = "xor-margin", reln = "linear", hidden = 4, Delta = "1/3"}\n')
    np.savez(tmp_path / "w.npz", W1=0.1 * np.ones((4, 3)), W2=0.1 * np.ones((1, 4)), **{"fc1.bias": np.zeros(4)})
    out = tmp_path / "s.json"
    assert main(["simulate", str(spec), "--network", "relu", "--init-weights", str(tmp_path / "w.npz"),
                 "--steps", "2", "--seeds", "1", "--json", str(out)]) == 0
    err = capsys.readouterr().err
    assert "1 key not read, ['fc1.bias']" in err and "W1, W2" in err and "no biases" in err
    assert json.loads(out.read_text())["init_keys_not_read"] == ["fc1.bias"]


def test_memory_estimate_scales_with_sizes():
    """Independent count: a depth-2 pathway has (d + p) H weights; float64 -> 8 bytes each, per seed."""
    from theorykit.spec.limits import simulation_estimate
    from theorykit.spec.files import spec_from_dict

    def spec(h):
        return spec_from_dict({"data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, -1]]},
                               "pathways": [{"name": "a", "active": "all", "hidden": h}]})

    small = simulation_estimate(spec(10 ** 6), steps=10, seeds=1)
    big = simulation_estimate(spec(10 ** 12), steps=10, seeds=1)
    assert big.bytes >= 8 * 3 * 10 ** 12           # at least the weights themselves
    assert 0.9e6 < big.bytes / small.bytes < 1.1e6  # linear in the width
    hist = simulation_estimate(spec(2), steps=10 ** 9, seeds=4)
    assert hist.bytes >= 8 * 4 * 10 ** 9            # the loss history alone


def test_time_estimate_is_the_calibrated_model():
    """limits.simulation_estimate's docstring (calibrated by tests/calibrate_sim_estimates.py): time =
    SIM_COMPILE[0] + SIM_COMPILE[1]·E + steps·(SIM_STEP_OVERHEAD·E + seeds·SIM_SEED_STEP_OVERHEAD)
    + steps·seeds·6·W·P / rate, with E weight matrices, W weights, rate = SIM_FLOPS (× SIM_FLOAT32_SPEEDUP in float32). Counted here by
    hand: xor_linear has 2 pathways of 64 units on 3 inputs and 1 output (E = 4, W = 2·(3·64 + 64) = 512,
    P = 4); section6_paper's graph has 15 edges, W = 11·420 + 7·420·60 + 7·60·60 = 206,220, P = 24 (its
    schedule costs no more per step); the ReLU network of xor_linear's width has E = 2, W = 3·128 + 128."""
    from theorykit.spec import limits as L
    from theorykit.spec.files import load_spec

    def model(E, W, P, steps, seeds, rate=L.SIM_FLOPS):
        return (L.SIM_COMPILE[0] + L.SIM_COMPILE[1] * E + steps * (L.SIM_STEP_OVERHEAD * E + seeds * L.SIM_SEED_STEP_OVERHEAD)
                + steps * seeds * 6.0 * W * P / rate)

    xor, s6 = load_spec(EX / "xor_linear.toml"), load_spec(EX / "section6_paper.toml")
    cases = [(xor, {}, (4, 512, 4)), (s6, {}, (15, 206220, 24)), (xor, {"network": "relu"}, (2, 512, 4))]
    for spec, kw, (E, W, P) in cases:
        for steps, seeds in ((3000, 1), (30000, 8)):
            est = L.simulation_estimate(spec, steps=steps, seeds=seeds, **kw)
            assert est.seconds == pytest.approx(model(E, W, P, steps, seeds), rel=1e-12)
    f32 = L.simulation_estimate(s6, steps=30000, seeds=2, dtype="float32").seconds
    assert f32 == pytest.approx(model(15, 206220, 24, 30000, 2, L.SIM_FLOPS * L.SIM_FLOAT32_SPEEDUP), rel=1e-12)
    # the loop's per-step overhead and the compilation are shared by the seeds (vmapped), their small
    # operations and FLOPs are not (measured: 3e5 steps of xor_linear took 5.2-5.6 s CPU at 1 seed and
    # 18.1-19.0 s at 16, see limits.SIM_SEED_STEP_OVERHEAD): 7 more seeds add 7·steps·(SIM_SEED_STEP_OVERHEAD
    # + 6·W·P / rate), and the shared parts are counted once (8 seeds cost less than 8 runs of 1)
    one, eight = (L.simulation_estimate(xor, steps=10 ** 6, seeds=s).seconds for s in (1, 8))
    assert eight - one == pytest.approx(7 * 10 ** 6 * (L.SIM_SEED_STEP_OVERHEAD + 6.0 * 512 * 4 / L.SIM_FLOPS),
                                        rel=1e-12)
    assert eight < 8 * one


def test_human_bytes_names_its_unit():
    """Sizes print in decimal units up to EB; beyond 1e21 EB the value in EB was printed with the unit
    "B" (1e40 bytes read "1e+22 B", 18 orders of magnitude off)."""
    from theorykit.spec.limits import human_bytes

    assert [human_bytes(v) for v in (0, 999, 1500, 2.5e9, 1e18)] == ["0 B", "999 B", "1.5 KB", "2.5 GB", "1 EB"]
    assert human_bytes(1e40) == "1e+22 EB"
    assert human_bytes(float("inf")) == "inf B"
