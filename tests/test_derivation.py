"""Derivation object: method choice, documented fall-backs and degenerate input."""
import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.errors import DerivationError


def _skewed_spec(lr=0.01):
    # one pathway, inputs not white: Σyx = ½(1, 0) has v = (1, 0) but Σx = ½[[2, 1], [1, 1]] maps v to
    # (1, ½), which is not parallel to v (hand computation) -> Assumption 2.1 fails.
    task = tk.Task(sp.Matrix([[1, 1], [0, 1]]), sp.Matrix([[1, 0]]))
    return tk.GDLNSpec(task, [tk.Pathway("p", "all", "all", "all", 4)], tk.Training(lr=lr, a0=1e-3))


def test_not_diagonalisable_falls_back_to_race_reduction_with_a_warning():
    der = tk.Derivation(_skewed_spec(), method="closed-form")
    with pytest.warns(UserWarning, match="not mutually diagonalisable"):
        assert der.method == "race-reduction"
    assert der.diagonalisable == {"p": False} and der.notes
    with pytest.raises(DerivationError, match="no closed form"):
        der.loss


def test_race_reduction_follows_the_non_diagonalisable_network():
    spec = _skewed_spec(lr=0.01)
    der = tk.Derivation(spec)
    sim = tk.simulate(spec, seeds=1, steps=3000)
    ts = np.arange(0, 3001, 100)
    pred = der.predict_loss(ts)
    # least squares can fit y exactly (X is invertible): the loss must go to zero, and the race
    # reduction (balanced gradient flow) must follow gradient descent up to O(η)
    assert pred[-1] < 1e-6 and sim.mean[-1] < 1e-6
    assert np.max(np.abs(sim.mean[ts] - pred)) / pred[0] < 1e-2


def test_zero_effective_dataset_is_a_clear_error():
    # the linear ReLN at Δ = 0: Σyx of each pathway is (0, 0, Δ/2) = 0 -> nothing to learn
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]), values={"Delta": 0})
    with pytest.raises(DerivationError, match="nothing to learn"):
        der.modes


def test_repeated_singular_values_get_an_orthonormal_basis():
    der = tk.Derivation(tk.GDLNSpec(tk.Task(sp.eye(3), sp.eye(3)), [tk.Pathway("id", "all", "all", "all", 3)]))
    svd = der.modes["id"]
    assert svd.singular_values == [sp.Rational(1, 3)] * 3
    assert svd.V.T * svd.V == sp.eye(3)


def test_ranking_and_t_half():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"] + tk.xor_relns()["xor"][:0]),
                        values={"Delta": 2})
    # at Δ = 2: s_linear = 1, both pathways tie
    assert [s for _, s in der.ranking] == [1, 1]
    fast = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"]), values={"Delta": 2})
    # s_xor(2) = √6/4 ≈ 0.61 < 1: at Δ = 2 the linear ReLN is the faster learner (docs/theory.md#xor)
    assert float(fast.ranking[0][1]) < float(der.ranking[0][1])
    # t½ by hand: a(t) = (s/d) / (1 + (s/(d a0) − 1) e^{−2st/τ}) reaches half its end point s/(2d) when
    # 1 + (s/(d a0) − 1) e^{−2st/τ} = 2, i.e. at t½ = τ/(2s) · ln(s/(d a0) − 1).
    # linear ReLN: s = Δ/2, d = Δ²/2 → t½ = (τ/Δ) ln(1/(Δ a0) − 1);
    # XoR ReLN: s = √(Δ²+2)/4, d = (Δ²+2)/4 → t½ = (2τ/√(Δ²+2)) ln(1/(a0 √(Δ²+2)) − 1).
    lin = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]))
    xor = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"]))
    (th_lin,), (th_xor,) = lin.t_half["positive"], xor.t_half["point0"]
    sym = {str(x): x for x in th_lin.free_symbols | th_xor.free_symbols}
    D, tau, a0 = sym["Delta"], sym["tau"], sym["a_0"]
    assert sp.simplify(th_lin - tau / D * sp.log(1 / (D * a0) - 1)) == 0
    r = sp.sqrt(D ** 2 + 2)
    assert sp.simplify(th_xor - 2 * tau / r * sp.log(1 / (a0 * r) - 1)) == 0
    assert all(v == [th_lin] for v in lin.t_half.values()) and all(v == [th_xor] for v in xor.t_half.values())
    # numerically: the hand logistic is at exactly half its end point at the derived t½
    for Dv, a0v, tv in ((2.0, 1e-3, 20.0), (0.5, 1e-2, 100.0), (1.2, 1e-3, 1.0)):
        for th, s_, d_ in ((th_lin, Dv / 2, Dv ** 2 / 2), (th_xor, np.sqrt(Dv ** 2 + 2) / 4, (Dv ** 2 + 2) / 4)):
            t_h = float(th.subs({D: Dv, tau: tv, a0: a0v}))
            a = (s_ / d_) / (1 + (s_ / (d_ * a0v) - 1) * np.exp(-2 * s_ * t_h / tv))
            assert a == pytest.approx(s_ / (2 * d_), rel=1e-12)
    # at Δ = 2 the derivation with values gives the numbers: linear t½ = (τ/2) ln(1/(2 a0) − 1)
    assert sp.simplify(der.t_half["positive"][0] - tau / 2 * sp.log(1 / (2 * a0) - 1)) == 0


def test_latex_reprs():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]))
    for obj in (der, der.modes["positive"], der.effective_datasets["positive"], der.task,
                der.modes["positive"].modes[0]):
        r = obj._repr_latex_()
        assert r.startswith("$") and r.endswith("$")
        if hasattr(obj, "latex"):
            assert obj.latex()
    doc = der.latex(document=True)
    assert doc.count("\\begin{document}") == 1 and "\\frac{\\Delta}{2}" in doc


def test_values_given_later_must_agree_with_the_values_the_derivation_was_built_with():
    """A Derivation built at Δ = 0.5 has Δ substituted: asking it for Δ = 1 used to return the Δ = 0.5
    curve silently, and a misspelt symbol was accepted."""
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3))
    der = tk.Derivation(spec, values={"Delta": 0.5})
    ref = tk.Derivation(spec).predict_loss([0, 100, 1000], values={"Delta": 0.5})
    assert np.allclose(der.predict_loss([0, 100, 1000], values={"Delta": 0.5}), ref, rtol=1e-12)
    with pytest.raises(tk.SpecError, match="fixed"):
        der.predict_loss([0, 100], values={"Delta": 1.0})
    with pytest.raises(tk.SpecError, match="no symbol 'Bogus'"):
        tk.Derivation(spec).predict_loss([0, 100], values={"Delta": 1.0, "Bogus": 3})
