"""Half-way times of modes whose s and d are nested radicals (a task with irrational data).

The fuzz campaign's nested-radical task (4 inputs, 3 datapoints, √2 and √3 in the data at Δ = 1/2):
- `theorykit derive` printed "t½ = nan" for every mode. The summary evaluated the exact t½, and
  `Derivation.t_half` refused pathway p1: SymPy's assumptions cannot decide the sign of its d, a
  nested radical of thousands of nodes, so `not d.is_positive` called it "not a positive number" (and
  printed the whole expression, 800 kB, in the message). Evaluating it to decide took over 5 minutes.
- Now the summary takes t½ from s and d in floats, as it already did for deeper pathways, and
  `t_half` evaluates an undecided sign to 30 digits where the expression is small, and passes a large
  one unchecked.
The reference is numpy: the data at Δ = 1/2 in floats, the SVD of each pathway's Σyx, and
t½ = τ/(2s) ln(s/(d a0) − 1) (docs/theory.md), with the spec's τ: summed loss over P = 2 datapoints,
τ = 1/(η P) = 1/(0.1 · 2) = 5 steps.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from test_fuzz import _NESTED_RADICALS
from theorykit.analysis import summary
from theorykit.cli import main
from theorykit.theory.trajectory import t_half


def _reference():
    # the spec's data at Δ = 1/2: columns are datapoints
    X = np.array([[0.1, 2 / 3], [-0.25, -0.5], [-np.sqrt(3) / 2, 2 / 3], [0.25, np.sqrt(0.5)]])
    Y = np.array([[np.sqrt(2), 0.5], [2, 0], [-3, 0.1]])
    P, tau, a0 = 2, 1 / (0.1 * 2), 0.001          # summed loss: τ = 1/(η P)
    out = {}
    for name, gate in (("p0", np.array([0.0, 1.0])), ("p1", np.array([1.0, 1.0]))):
        Syx, Sx = (Y * gate) @ X.T / P, (X * gate) @ X.T / P
        U, s, Vt = np.linalg.svd(Syx)
        out[name] = [tau / (2 * s[a]) * math.log(s[a] / ((Vt[a] @ Sx @ Vt[a]) * a0) - 1)
                     for a in range(int(np.sum(s > 1e-12 * s[0])))]
    return out


def test_the_summary_prints_each_modes_half_way_time(tmp_path, monkeypatch, capsys):
    spec = tmp_path / "spec.toml"
    spec.write_text(_NESTED_RADICALS, "utf-8")
    monkeypatch.setattr(summary, "stdout_is_terminal", lambda: True)
    assert main(["derive", str(spec), "--set", "Delta=0.5", "--times", "0,5"]) == 0
    printed = [float(x) for x in re.findall(r"t½ = ([0-9.e+-]+|nan)", capsys.readouterr().out)]
    ref = _reference()
    expected = ref["p0"] + ref["p1"]
    assert len(printed) == len(expected) == 3
    np.testing.assert_allclose(printed, expected, rtol=1e-3)     # printed to 4 significant digits


@pytest.mark.slow
def test_the_exact_half_way_time_of_an_undecided_sign_is_built(tmp_path):
    path = tmp_path / "spec.toml"
    path.write_text(_NESTED_RADICALS, "utf-8")
    spec = tk.load_spec(path)
    der = tk.Derivation(spec.subs({"Delta": sp.Rational(1, 2)}))
    th = der.t_half                                    # refused p1 before ("… is not a positive number")
    assert [len(th[n]) for n in ("p0", "p1")] == [1, 2]
    # p0's is small: its value against numpy
    vals = der.numeric_values({})
    assert float(sp.N(th["p0"][0].subs(vals))) == pytest.approx(_reference()["p0"][0], rel=1e-9)


def test_a_sign_that_is_decided_is_still_refused():
    # s = 1 - √2 < 0 (SymPy decides it): refused as before, the expression shortened in the message
    with pytest.raises(tk.SpecError, match=r"^s: 1 - sqrt\(2\) is not a positive number \(fix: give s > 0\)$"):
        t_half(1 - sp.sqrt(2), 1)
    # a0 past half its end point s/(2d) = 1/(2√2) ≈ 0.354, in numbers
    with pytest.raises(tk.SpecError, match="already at or past half its end point"):
        t_half(1, sp.sqrt(2), a_init=sp.Rational(1, 2), time_const=1)
