"""The reference point of a symbolic derivation is generic for every quantity decided there (round 2).

Round 1 (tests/test_reference_generic_rules.py) passed over a candidate reference point where the SVD's
conventions are arbitrary. Two more ways a candidate could be special while the data are fine in
general, each refused by the derivation although the user chose no value:

1. a mode's input variance d = vᵀ Σx v is at most 1e-14 of the input power ‖X‖_F²/P there (the bound of
   "zero input variance … (degenerate SVD)"), not identically: inputs [[a, 1], [7/10 + 10⁻⁸, 1]] are
   singular at a = 7/10 + 10⁻⁸, next to the first candidate a = 7/10;
2. the exact SVD raised at the point: a root of the Gram matrix that vanishes there (a rank drop) came
   out a rounding below 0 ("negative eigenvalue"), with targets [[a + √2, 7/10 + √2], [2, 2]], whose
   determinant 2(a − 7/10) vanishes at a = 7/10.

Both now move to the next candidate, 7/10 + 3/11 = 107/110 (the rule of ``reference_values``), with a note
naming the point passed over and why. An error at every candidate is raised as before.

Golden values: numpy's SVD of the same numeric Σyx = Y Xᵀ/P and d = vᵀ (X Xᵀ/P) v, written here, at
values of a other than the candidates; hand derivations in the comments.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.cli import main
from theorykit.errors import DerivationError
from theorykit.theory import derivation as derivation_module
from theorykit.theory import svd as svd_module
from theorykit.theory.modes import num
from theorykit.theory.svd import _PointError, exact_svd, generic_reference

A = sp.Symbol("a", positive=True)
NEXT = sp.Rational(107, 110)           # the second candidate for one symbol: 7/10 + 1·(0 + 3)/11
C = 0.7 + 1e-8                         # 7/10 + 10⁻⁸ in floats (numpy's side)


def _spec(inputs, targets, active=(1, 1)):
    return tk.spec_from_dict({
        "name": "generic-ref-2", "symbols": {"a": {"positive": True}},
        "data": {"inputs": inputs, "targets": targets},
        "pathways": [{"name": "p", "active": list(active), "hidden": 4}],
        "training": {"lr": 0.01, "a0": 0.001, "steps": 100}})


# -- 1. a vanishing input variance at the first candidate ------------------------------------------------
NEAR_SINGULAR_X = [["a", 1], ["7/10 + 1/10**8", 1]]
IDENTITY = [[1, 0], [0, 1]]


def _numpy_modes(a: float):
    """numpy: singular values of Σyx = Y Xᵀ/2 = Xᵀ/2 (Y = I, P = 2) and each mode's d = vᵀ (X Xᵀ/2) v."""
    X = np.array([[a, 1.0], [C, 1.0]])
    _, s, Vt = np.linalg.svd(X.T / 2)
    Sx = X @ X.T / 2
    return s, np.array([v @ Sx @ v for v in Vt]), float(np.sum(X ** 2)) / 2


def test_numpy_says_the_first_candidate_is_next_to_a_special_point():
    # By hand: det X = a − 7/10 − 10⁻⁸ = −10⁻⁸ at a = 7/10, so the small mode's d ≈ det²/(…) ≈ 10⁻¹⁷,
    # below 1e-14 of the input power (0.49 + 1 + 0.49 + 1)/2 ≈ 1.49; at a = 1 and a = 2 it is far from 0
    s, d, power = _numpy_modes(0.7)
    assert d.min() <= 1e-14 * power
    for a in (1.0, 2.0):
        s, d, power = _numpy_modes(a)
        assert d.min() > 1e-3 * power and s.min() > 1e-2


def test_a_vanishing_input_variance_at_the_first_candidate_moves_the_point():
    # it raised "a mode with s = … has zero input variance d (degenerate SVD)": the user chose no value
    der = tk.Derivation(_spec(NEAR_SINGULAR_X, IDENTITY))
    assert der.reference == {A: NEXT}
    note = next(n for n in der.notes if "reference point" in n)
    assert "{a = 7/10}" in note and "{a = 107/110}" in note and "input variance d of mode 2 of pathway 'p'" in note
    modes = der.modes["p"]
    for a in (float(NEXT), 1.0, 2.0):
        s, d, _ = _numpy_modes(a)
        assert modes.floats({"a": a}) == pytest.approx(list(s), rel=1e-9)
        assert [num(m.d_untidied, {A: sp.nsimplify(a)}) for m in modes.modes] == pytest.approx(list(d), rel=1e-7)


def test_derive_on_the_command_line_names_the_moved_point(tmp_path):
    spec = tmp_path / "near.toml"
    spec.write_text('name = "near"\n[symbols]\na = {positive = true}\n[data]\n'
                    'inputs = [["a", 1], ["7/10 + 1/10**8", 1]]\ntargets = [[1, 0], [0, 1]]\n'
                    '[[pathways]]\nname = "p"\nactive = [1, 1]\nhidden = 4\n'
                    '[training]\nlr = 0.01\na0 = 0.001\nsteps = 100\n')
    out = tmp_path / "d.json"
    assert main(["derive", str(spec), "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["reference_values"] == {"a": "107/110"}
    s, _, _ = _numpy_modes(float(NEXT))
    assert d["pathways"]["p"]["singular_values_float"] == pytest.approx(list(s), rel=1e-9)
    assert any("{a = 7/10}" in n and "input variance" in n for n in d["notes"])


def test_a_zero_input_variance_at_every_candidate_is_still_refused(monkeypatch):
    # every d counted as 0 (the input power made huge at every point): the first candidate is kept and
    # the derivation refuses the mode as before
    monkeypatch.setattr(svd_module, "input_power", lambda task, ref: 1e300)
    monkeypatch.setattr(derivation_module, "input_power", lambda task, ref: 1e300)
    der = tk.Derivation(_spec(NEAR_SINGULAR_X, IDENTITY))
    with pytest.raises(DerivationError, match="zero input variance"):
        der.modes
    assert der.reference == {A: sp.Rational(7, 10)}


def test_a_pathway_with_nothing_to_learn_is_still_refused():
    # Σyx = Y G Xᵀ/P = 0 identically: the pathway is on the second datapoint only, whose targets are 0
    with pytest.raises(DerivationError, match="Σyx is zero"):
        tk.Derivation(_spec([["a", 1], [1, "a"]], [[1, 0], [0, 0]], active=(0, 1))).modes


# -- 2. an error inside the exact SVD at the first candidate ---------------------------------------------
SURD = [["a + sqrt(2)", "7/10 + sqrt(2)"], [2, 2]]


def _numpy_surd(a: float):
    """numpy: singular values of Σyx = Y/2 (X = I, P = 2)."""
    r = np.sqrt(2.0)
    return np.linalg.svd(np.array([[a + r, 0.7 + r], [2.0, 2.0]]) / 2, compute_uv=False)


def test_a_rounding_below_zero_at_the_first_candidate_moves_the_point():
    # By hand: det Y = 2(a + √2) − 2(7/10 + √2) = 2(a − 7/10), 0 at the first candidate: the smaller
    # eigenvalue of the Gram matrix (with √2 in it: the quadratic formula) is 0 there and was evaluated
    # −10⁻⁴¹, "negative eigenvalue … of a Gram matrix"; no entry of Σyx vanishes there
    der = tk.Derivation(_spec(IDENTITY, SURD))
    assert der.reference == {A: NEXT}
    note = next(n for n in der.notes if "reference point" in n)
    assert "{a = 7/10}" in note and "negative eigenvalue" in note and "rounding below 0" in note
    for a in (float(NEXT), 1.0, 2.0):
        assert der.modes["p"].floats({"a": a}) == pytest.approx(list(_numpy_surd(a)), rel=1e-9)
    # s₁s₂ = |det Σyx| = |det Y|/4 = |a − 7/10|/2 at the reference point, by hand
    s1, s2 = der.modes["p"].floats()
    assert s1 * s2 == pytest.approx(float(abs(NEXT - sp.Rational(7, 10)) / 2), rel=1e-12)


def test_exact_svd_of_a_symbolic_matrix_passes_over_it_too():
    M = sp.Matrix([[A + sp.sqrt(2), sp.Rational(7, 10) + sp.sqrt(2)], [2, 2]])
    svd = exact_svd(M)
    assert svd.reference == {A: NEXT}
    assert svd.floats() == pytest.approx(list(2 * _numpy_surd(float(NEXT))), rel=1e-9)


def test_an_error_at_the_point_moves_it_and_one_at_every_candidate_is_raised():
    calls = []

    def at_first(ref):
        calls.append(ref[A])
        if ref[A] == sp.Rational(7, 10):
            raise _PointError("negative eigenvalue -1e-41 of a Gram matrix")
        return {}

    ref, svds, note = generic_reference({A}, [], at_first)
    assert ref == {A: NEXT} and svds == {} and calls == [sp.Rational(7, 10), NEXT]
    assert "{a = 7/10}" in note and "negative eigenvalue" in note

    def always(ref):
        raise _PointError(f"negative eigenvalue at {ref[A]}")

    with pytest.raises(DerivationError, match="negative eigenvalue at 7/10"):
        generic_reference({A}, [], always)

    def other(ref):                        # an error not decided at the point: raised at once, as before
        calls.append("other")
        raise DerivationError("no closed-form singular values")

    calls.clear()
    with pytest.raises(DerivationError, match="no closed-form"):
        generic_reference({A}, [], other)
    assert calls == ["other"]
