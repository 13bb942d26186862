"""Defects found by the command-line fuzz campaign of 2026-11-29 and the hand-typed hostile inputs
that went with it (tests/fuzz.py; the counts are in the CHANGELOG entry). Each test failed before its fix.

Golden values are derived by hand in the comments.
"""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from theorykit.analysis.exhaust import race_exhaust
from theorykit.analysis.findgates import choose_elbow
from theorykit.cli import main
from theorykit.errors import SpecError


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    return lines[0]


# ------------------------------------------------------------------------------------------------
# race-exhaust: a blown-up race was ranked and written, exit 0
# ------------------------------------------------------------------------------------------------
# race-exhaust --k 2: contexts(8, 2), P = 16 datapoints, the summed loss at η = 0.001, so τ = 1/(P η) = 62.5.
# --race-dt 1e-9 asks for an RK4 step of τ/1e-9 = 6.25e10 steps, far past the 8000 raced: one RK4 step
# covers the whole horizon, and RK4's polynomial 1 + z + z²/2 + z³/6 + z⁴/24 at z ≈ h·(2 s/τ) ~ 1e9 sends a
# mode's strength from a0 ≈ 5e-9 to ~1e28. Gradient flow never raises the loss (dL/dt = −‖∇L‖²/τ ≤ 0), so
# any L(t) > L(0) is the integration, not the race. Before: exit 0, "common only: area 5.39e25",
# a ranking and exhaust.json written.
# Since: --race-dt 1e-9 is refused before any race, a step too coarse for RK4 at the race's fastest rate
# (tests/test_race_dt_stability_rules.py); the rise is still refused where the start is too large (--a0 100).
def test_race_exhaust_refuses_a_race_whose_loss_rises_above_its_start(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["race-exhaust", "--k", "2", "--race-dt", "1e-9", "--no-progress", "--out", str(out)]) == 2
    line = _one_line(capsys)
    assert line.startswith("theorykit: error in --race-dt: 1e-09 makes the RK4 step τ/race-dt = 6.25e+10 too coarse ")
    assert line.endswith("(fix: use --race-dt 1.91 or larger (default 10))")
    assert not (out / "exhaust.json").exists() and not (out / "race_k2.png").exists()
    assert main(["race-exhaust", "--k", "2", "--a0", "100", "--no-progress", "--out", str(out)]) == 2
    line = _one_line(capsys)
    assert line.startswith("theorykit: error in --a0: the race diverged: its loss rose to ")
    assert "× its start L(0)" in line and "raise --race-dt" in line
    assert not (out / "exhaust.json").exists() and not (out / "race_k2.png").exists()


def test_race_exhaust_rise_names_the_option_given_and_the_keyword_from_python():
    # --a0 100 (in range: up to 100) at the default step τ/10: the start's weights are ~10 per layer,
    # its rate ~a0/τ far above the data's s_max ≈ 1.33, so RK4 at τ/10 blows up (in some family of the 7);
    # before, it came back as an area of 0.0015 and a ranking
    with pytest.raises(SpecError) as err:
        race_exhaust(2, a0=100, progress=False)
    assert err.value.field == "a0" and "rose to" in err.value.problem
    with pytest.raises(SpecError) as err:
        race_exhaust(2, race_dt=1e-9, families=[0], progress=False)
    assert err.value.field == "race_dt"


def test_race_exhaust_at_the_suites_steps_keeps_the_loss_at_or_below_its_start():
    # the check refuses nothing that is right: τ/10 (the default) and τ/2 (the quick contexts suite's)
    for race_dt in (10, 2):
        res = race_exhaust(2, race_dt=race_dt, families=[0, 6], progress=False, curves_top=2)
        for m in res.metrics:
            assert np.isfinite(m["area"]) and m["area"] <= 1.0 and m["final_fraction"] <= 1.0


# ------------------------------------------------------------------------------------------------
# find-gates --checkpoints … --data: all-zero targets (or inputs)
# ------------------------------------------------------------------------------------------------
# XoR with margin 0.5 (3 inputs × 4 datapoints), and two checkpoints of a 4-unit network.
X = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])
W = {"W1": 0.1 * np.array([[1.0, 2, -1], [-1, 1, 2], [2, -1, 1], [1, 1, -2]]), "W2": 0.1 * np.array([[1.0, -2, 1, 2]])}


def _run_with(tmp_path, X, Y):
    np.savez(tmp_path / "data.npz", X=X, Y=Y)
    for s in (0, 100):
        np.savez(tmp_path / f"step_{s}.npz", **{k: (1 + s / 100) * v for k, v in W.items()})
    return str(tmp_path / "step_*.npz"), str(tmp_path / "data.npz")


@pytest.mark.parametrize("zero, what", [("Y", "targets"), ("X", "inputs")])
def test_find_gates_refuses_all_zero_data_naming_the_file_and_key(tmp_path, capsys, zero, what):
    # Y ≡ 0 (or X ≡ 0): every pattern's effective dataset Σyx = Y diag(g) Xᵀ / P is zero, so no K keeps a
    # pattern. Before: two numpy warnings ("invalid value encountered in subtract": the elbow's inf − inf)
    # and "error in --K: … (fix: use more clusters (a larger --K) …)", though no --K was given.
    data = {"X": X, "Y": np.array([[1.0, 1, -1, -1]])}
    data[zero] = np.zeros_like(data[zero])
    ck, path = _run_with(tmp_path, data["X"], data["Y"])
    assert main(["find-gates", "--checkpoints", ck, "--data", path, "--lr", "0.1",
                 "--out", str(tmp_path / "f.toml")]) == 2
    line = _one_line(capsys)
    assert line == (f"theorykit: error in --data {path}: key '{zero}': the {what} are all zero: no gate pattern has "
                    f"anything to learn (fix: give the {what} the network was trained on)")
    assert not (tmp_path / "f.toml").exists()


def test_choose_elbow_with_no_finite_score_warns_nothing_and_gives_the_first_k():
    # every K kept no pattern (score +inf): there is no curve, so no elbow; the first K, as for a flat
    # curve (no improvement). Before: inf − inf, a RuntimeWarning, and the last K.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert choose_elbow([1, 2, 3], [np.inf, np.inf, np.inf]) == 1
        assert choose_elbow([1, 2, 3], [np.inf] * 3, rule="chord") == 1


# ------------------------------------------------------------------------------------------------
# derive --crossings --against: --set of a symbol only the --against spec declares
# ------------------------------------------------------------------------------------------------
# Two datapoints (the identity's columns), one pathway on each, the mean loss (P = 2): a pathway's
# Σyx = y x / P is its target over 2. "eq": targets a, a → s[eq:p] = s[eq:q] = a/2. "two": targets a, b →
# s[two:p] = a/2, s[two:q] = b/2, at --set b=2: 1. The only crossings: a/2 = 1 at a = 2, value 1, with
# two:q larger below (1 > a/2 for a < 2) and the three a/2 modes larger above (eq:p = eq:q = two:p: equal,
# no crossing among them).
SPEC = """name = "{name}"
[symbols]
{symbols}
[data]
inputs  = [[1, 0], [0, 1]]
targets = [[{targets}]]
[[pathways]]
name = "p"
active = [1, 0]
hidden = 4
[[pathways]]
name = "q"
active = [0, 1]
hidden = 4
[training]
lr = 0.01
steps = 100
"""


def test_derive_against_takes_set_for_a_symbol_only_the_other_spec_declares(tmp_path):
    # Before: "error in --crossings: the singular values also hold ['b'] besides a (fix: … --set NAME=VALUE)"
    # without --set b, and with it "error in --set: unknown symbol 'b' (fix: the spec declares ['a'])":
    # the fix offered could not be followed
    eq, two, out = tmp_path / "eq.toml", tmp_path / "two.toml", tmp_path / "c.json"
    eq.write_text(SPEC.format(name="eq", symbols="a = {positive = true}", targets='"a", "a"'))
    two.write_text(SPEC.format(name="two", symbols="a = {positive = true}\nb = {positive = true}", targets='"a", "b"'))
    assert main(["derive", str(eq), "--crossings", "a", "--against", str(two), "--set", "b=2", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert [(g["at"], g["value"], g["below"], g["above"]) for g in doc["crossing_groups"]] == \
        [("2", "1", ["two:q"], ["eq:p", "eq:q", "two:p"])]


def test_derive_set_of_a_symbol_no_spec_declares_is_still_refused(tmp_path, capsys):
    eq, two = tmp_path / "eq.toml", tmp_path / "two.toml"
    eq.write_text(SPEC.format(name="eq", symbols="a = {positive = true}", targets='"a", "a"'))
    two.write_text(SPEC.format(name="two", symbols="a = {positive = true}\nb = {positive = true}", targets='"a", "b"'))
    assert main(["derive", str(eq), "--crossings", "a", "--against", str(two), "--set", "b=2", "--set", "c=1",
                 "--json", "-"]) == 2
    assert _one_line(capsys) == "theorykit: error in --set: unknown symbol 'c' (fix: the spec declares ['a'])"
    assert main(["derive", str(eq), "--crossings", "a", "--set", "b=2", "--json", "-"]) == 2   # no --against: not ours
    assert _one_line(capsys) == "theorykit: error in --set: unknown symbol 'b' (fix: the spec declares ['a'])"


def test_derive_against_errors_name_the_against_file(tmp_path, capsys):
    # Before: "error in spec: no such file: …" (the spec given was fine) and "error in pathways[0].hidden: …"
    # (in which of the two files?). Now the option and the file, then the field in it, then the same message.
    eq, bad = tmp_path / "eq.toml", tmp_path / "bad.toml"
    eq.write_text(SPEC.format(name="eq", symbols="a = {positive = true}", targets='"a", "a"'))
    bad.write_text(SPEC.format(name="bad", symbols="a = {positive = true}", targets='"a", "a"').replace(
        "hidden = 4", "hidden = -4", 1))
    missing = tmp_path / "missing.toml"
    assert main(["derive", str(eq), "--crossings", "a", "--against", str(missing), "--json", "-"]) == 2
    line = _one_line(capsys)
    assert line.startswith(f"theorykit: error in --against {missing}: no such file: ")
    assert main(["derive", str(bad), "--json", "-"]) == 2          # the same file as the spec: the field alone
    as_spec = _one_line(capsys)
    assert as_spec.startswith("theorykit: error in pathways[0].hidden: ")
    assert main(["derive", str(eq), "--crossings", "a", "--against", str(bad), "--json", "-"]) == 2
    assert _one_line(capsys) == as_spec.replace("error in ", f"error in --against {bad}: ", 1)


def test_derive_crossings_along_a_symbol_given_a_value_says_so(tmp_path, capsys):
    # Before: "error in --crossings: 'a' is not in the singular values (their symbols: []) (fix: the values
    # hold no symbol: nothing can cross)", after the whole derivation, for a symbol the spec does declare.
    eq, two = tmp_path / "eq.toml", tmp_path / "two.toml"
    eq.write_text(SPEC.format(name="eq", symbols="a = {positive = true}", targets='"a", "a"'))
    two.write_text(SPEC.format(name="two", symbols="a = {positive = true}\nb = {positive = true}", targets='"a", "b"'))
    fix = "theorykit: error in --crossings: {0} has a value (--set {0}=…): crossings are searched along a symbol " \
          "left free (fix: leave out --set {0}=…)"
    assert main(["derive", str(eq), "--crossings", "a", "--set", "a=1", "--json", "-"]) == 2
    assert _one_line(capsys) == fix.format("a")
    assert main(["derive", str(eq), "--crossings", "b", "--against", str(two), "--set", "b=1", "--json", "-"]) == 2
    assert _one_line(capsys) == fix.format("b")
