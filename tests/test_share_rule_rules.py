"""predict's "mass" width rule (theorykit.analysis.predict_share): H_p in proportion to the Gaussian
mass m(g) of pattern g, the chance that a unit started at w ~ N(0, σ²I) starts in g.

The golden masses are a hand derivation for XoR with a margin (below), checked here a second way by
mpmath quadrature; the widths are worked by hand."""
from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.analysis.predict import predict_reln
from theorykit.analysis.predict_share import family_a0s, pattern_masses, share_hidden, share_mass
from theorykit.errors import SpecError
from theorykit.spec.gating import Training
from _specs import XOR_TOML


# Hand derivation. xor_margin(Δ) has the datapoints x1 = (1, 1, Δ), x2 = (−1, −1, Δ), x3 = (1, −1, −Δ),
# x4 = (−1, 1, −Δ). For w = (a, b, c) ~ N(0, I) put u = a + b, v = a − b (independent N(0, 2)) and z = Δc;
# then w·x1 = u + z, w·x2 = −u + z, w·x3 = v − z, w·x4 = −v − z. With u = √2 U, v = √2 V, z = Δ Z
# (U, V, Z iid N(0, 1)) and k = Δ/√2:
#   label pair {x1, x2} on, x3, x4 off  <=>  z > |u| and z > |v|  <=>  kZ > max(|U|, |V|)
#   single {x1} on, the rest off       <=>  u > z > |v|           <=>  U > kZ > |V|
# Conditioning on Z (erf(kZ/√2) = P(|U| < kZ)):
#   m(pair)   = ∫_0^∞ φ(z) erf(kz/√2)² dz
#   m(single) = ∫_0^∞ φ(z) erf(kz/√2) (1 − erf(kz/√2))/2 dz
# and with ∫_0^∞ e^{−c²x²} erf(ax) dx = arctan(a/c)/(c√π), ∫_0^∞ e^{−c²x²} erf(ax)² dx =
# arctan(a²/(c√(2a² + c²)))/(c√π) (c² = 1/2, a = k/√2):
#   m(pair)   = arctan(k²/√(2k² + 1)) / π
#   m(single) = (arctan k − arctan(k²/√(2k² + 1))) / (2π)
# (Δ → ∞: pair → 1/2, single → 0; Δ = 0: both 0, the classical XoR's patterns being the mixed pairs.)
def _pair(delta):
    k = delta / math.sqrt(2)
    return math.atan(k * k / math.sqrt(2 * k * k + 1)) / math.pi


def _single(delta):
    k = delta / math.sqrt(2)
    return (math.atan(k) - math.atan(k * k / math.sqrt(2 * k * k + 1))) / (2 * math.pi)


@pytest.mark.parametrize("delta", [0.5, 1.2])
def test_xor_closed_form_masses_agree_with_quadrature(delta):
    """The hand closed form, checked by mpmath quadrature of the conditional integrals."""
    k = mpmath.mpf(delta) / mpmath.sqrt(2)
    phi = lambda z: mpmath.exp(-z * z / 2) / mpmath.sqrt(2 * mpmath.pi)     # noqa: E731
    e = lambda z: mpmath.erf(k * z / mpmath.sqrt(2))                        # noqa: E731
    pair = mpmath.quad(lambda z: phi(z) * e(z) ** 2, [0, mpmath.inf])
    single = mpmath.quad(lambda z: phi(z) * e(z) * (1 - e(z)) / 2, [0, mpmath.inf])
    assert float(pair) == pytest.approx(_pair(delta), rel=1e-12)
    assert float(single) == pytest.approx(_single(delta), rel=1e-12)


@pytest.mark.parametrize("delta", [0.5, 1.2])
def test_pattern_masses_of_xor_match_the_hand_derivation(delta):
    X, _ = tk.xor_margin(sp.Float(delta)).numeric()
    gates = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]])
    N = 400_000
    m = pattern_masses(X, gates, N, 0)
    gold = np.array([_single(delta)] * 4 + [_pair(delta)] * 2)
    # binomial standard error sqrt(m(1 − m)/N) < 5e-4 here: 5 of them
    assert np.all(np.abs(m - gold) < 5 * np.sqrt(gold * (1 - gold) / N)), (m, gold)
    # the all-on pattern of XoR is not realisable (x1 + x2 + x3 + x4 = 0): mass 0
    assert pattern_masses(X, np.ones((1, 4)), N, 0)[0] == 0.0


def test_share_mass_worked_by_hand():
    # 1 each, the other 7 in proportion 0.5 : 0.25 : 0.25 = 3.5, 1.75, 1.75: floors 3, 1, 1 (5), the last
    # 2 units to the largest remainders 0.75, 0.75 (pathways 2 and 3): 1 + (3, 2, 2)
    assert share_mass(10, [0.5, 0.25, 0.25]) == [4, 3, 3]
    # a pattern of mass 0 (degenerate, or not drawn) keeps its 1 unit: 1 + 62 × (1/2, 0, 1/2)
    assert share_mass(64, [0.1, 0.0, 0.1]) == [32, 1, 31]
    assert share_mass(9, [0.0, 0.0, 0.0]) == share_hidden(9, 3) == [3, 3, 3]     # no mass anywhere: equal
    assert share_mass(3, [0.9, 0.05, 0.05]) == [1, 1, 1]     # H = m: one each
    widths, a0 = family_a0s(0.01, 10, 3, [0.5, 0.25, 0.25])
    assert widths == [4, 3, 3] and a0 == pytest.approx([0.01 ** 2 * h / 2 for h in (4, 3, 3)])   # σ²H_p/2


def test_share_mass_sums_to_H_with_at_least_one_each():
    rng = np.random.default_rng(3)
    for _ in range(300):
        m = int(rng.integers(1, 30))
        H = int(rng.integers(m, 2000))
        ms = rng.random(m) * (rng.random(m) < 0.8)      # some masses 0
        w = share_mass(H, ms)
        assert len(w) == m and sum(w) == H and min(w) >= 1
        if ms.sum() > 0:        # within one unit of 1 + (H − m) m_p / Σ m
            assert np.all(np.abs(np.array(w) - 1 - (H - m) * ms / ms.sum()) < 1)


def test_predict_share_mass_states_its_rule_and_widths():
    tr = Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)
    pred = predict_reln(tk.xor_margin(sp.Float(1.2)), 64, tr, search="exhaustive", share="mass", progress=False,
                        samples=20000, seed=5)
    assert sorted(map(tuple, pred.gates.astype(int).tolist())) == [(0, 0, 1, 1), (1, 1, 0, 0)]
    assert sum(pred.widths) == 64 and min(pred.widths) >= 1
    assert pred.a0 == pytest.approx([0.01 ** 2 * h / 2 for h in pred.widths])
    rule = pred.summary()["share_rule"]
    assert "mass" in rule and "20000" in rule and "seed 5" in rule
    assert "width rule:" in pred.text()
    eq = predict_reln(tk.xor_margin(sp.Float(1.2)), 64, tr, search="exhaustive", progress=False)
    assert "equally" in eq.summary()["share_rule"] and "width rule:" not in eq.text()
    with pytest.raises(SpecError) as exc:
        predict_reln(tk.xor_margin(sp.Float(1.2)), 64, tr, share="masses", progress=False)
    assert exc.value.field == "share" and "mass" in exc.value.fix


def test_cli_predict_share_mass_end_to_end(tmp_path, capsys):
    from theorykit.cli import main
    from theorykit.spec.files import load_spec

    spec_path = tmp_path / "xor.toml"
    spec_path.write_text(XOR_TOML)
    out, js = tmp_path / "pred.toml", tmp_path / "pred.json"
    rc = main(["predict", str(spec_path), "--hidden", "64", "--set", "Delta=1", "--out", str(out), "--json", str(js),
               "--share", "mass", "--no-progress"])
    assert rc == 0
    assert "width rule: H shared in proportion to each pattern's Gaussian mass" in capsys.readouterr().out
    spec = load_spec(out)
    assert sorted(p.active for p in spec.pathways) == [(0, 0, 1, 1), (1, 1, 0, 0)]
    assert sum(p.hidden for p in spec.pathways) == 64
    doc = json.loads(js.read_text())["prediction"]
    assert "20000" in doc["share_rule"] and "seed 0" in doc["share_rule"]
    for p in doc["pathways"]:
        assert p["a0"] == pytest.approx(0.01 ** 2 * p["hidden"] / 2)       # σ²H_p/2
    with pytest.raises(SystemExit) as exc:       # argparse's choices: usage error, exit status 2
        main(["predict", str(spec_path), "--hidden", "64", "--set", "Delta=1", "--out", str(out), "--share", "uniform"])
    assert exc.value.code == 2
    assert "--share" in capsys.readouterr().err
