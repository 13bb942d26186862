"""The reference point of a symbolic derivation is generic for the SVD itself.

A symbolic SVD's conventions, singular values in descending order and the first non-zero entry of
each right singular vector v positive (u flipped with it), are decided at the reference point
(:func:`theorykit.theory.modes.reference_values`). Its first candidate for a positive symbol ``a`` is
7/10. Where, at that point, two singular values coincide without being identically equal (a crossing),
a singular value vanishes (a rank drop), or an entry of v before the one that fixes its sign vanishes,
the order or sign is a tie broken by the order of discovery, and results next to the point were wrong:
not descending, or signs flipped against the documented rule. The point now moves to the next
candidate (7/10 + 3/11 = 107/110 for one symbol: the rule of ``reference_values``) and a note names the
point passed over and why.

Golden values: hand derivations in the comments, and numpy's SVD of the same numeric Σyx written
here (sorted descending, the sign rule applied by hand).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.cli import main
from theorykit.theory import svd as svd_module
from theorykit.theory.exactla import _gram, _int_matmul
from theorykit.theory.modes import reference_values
from theorykit.theory.svd import exact_svd

A = sp.Symbol("a", positive=True)
B = sp.Symbol("b", positive=True)


def _spec(targets, symbols):
    # inputs X = I₂ (datapoints are columns), P = 2, one pathway on both: Σyx = Y Xᵀ/P = Y/2, Σx = I/2
    return tk.spec_from_dict({
        "name": "generic-ref", "symbols": symbols,
        "data": {"inputs": [[1, 0], [0, 1]], "targets": targets},
        "pathways": [{"name": "p", "active": [1, 1], "hidden": 4}],
        "training": {"lr": 0.01, "a0": 0.001, "steps": 100}})


def _numpy_svd(M: np.ndarray):
    """numpy's SVD (singular values descending), each mode signed so that the first entry of v with
    |entry| > 1e-12 is positive (u flipped with it): the package's documented convention."""
    U, s, Vt = np.linalg.svd(M)
    for k in range(len(s)):
        j = np.flatnonzero(np.abs(Vt[k]) > 1e-12)[0]
        if Vt[k, j] < 0:
            U[:, k], Vt[k] = -U[:, k], -Vt[k]
    return U, s, Vt.T


def _numeric_target(targets, vals: dict) -> np.ndarray:
    return np.array([[float(sp.sympify(x).subs({sp.Symbol(k): v for k, v in vals.items()}))
                      for x in row] for row in targets]) / 2


def _agrees_with_numpy_near_reference(der, targets, eps=sp.Rational(1, 100)):
    """At the reference point and at each symbol moved by ±eps, the derivation's (U, s, V) are numpy's."""
    ref = {str(k): v for k, v in der.reference.items()}
    points = [ref] + [{**ref, k: ref[k] + sgn * eps} for k in ref for sgn in (1, -1)]
    for vals in points:
        U, s, V = der.modes["p"].numeric(vals)
        Un, sn, Vn = _numpy_svd(_numeric_target(targets, vals))
        k = len(s)
        assert np.allclose(s, sn[:k], rtol=1e-10, atol=1e-12), (vals, s, sn)
        assert np.allclose(V, Vn[:, :k], atol=1e-9), (vals, V, Vn)
        assert np.allclose(U, Un[:, :k], atol=1e-9), (vals, U, Un)


CROSSING = [["a", 0], [0, "7/10"]]


def test_a_crossing_at_the_first_candidate_moves_the_point_and_is_named():
    # By hand: Σyx = diag(a, 7/10)/2, singular values a/2 and 7/20, equal at a = 7/10 (the first
    # candidate); a/2 is the larger for a > 7/10, the smaller below. At the old point the tie was broken by
    # discovery (a/2 first), so at a = 7/10 − 1/100 the modes came out ascending, 0.345 before 0.35.
    der = tk.Derivation(_spec(CROSSING, {"a": {"positive": True}}))
    _agrees_with_numpy_near_reference(der, CROSSING)
    assert der.reference == {A: sp.Rational(107, 110)}          # 7/10 + 1·(0 + 3)/11
    s = der.modes["p"].floats()
    assert s == pytest.approx([107 / 220, 0.35], rel=1e-12) and s[0] > s[1]
    note = next(n for n in der.notes if "reference point" in n)
    assert "{a = 7/10}" in note and "{a = 107/110}" in note and "(s = a/2)" in note and "(s = 7/20)" in note
    assert "coincide" in note


SIGN = [["a", 1], ["-7/10", 1]]


def test_a_vanishing_entry_of_v_at_the_first_candidate_moves_the_point():
    # By hand: Σyx = B/2 with B = [[a, 1], [−7/10, 1]], BᵀB = [[a² + 49/100, a − 7/10], [a − 7/10, 2]]. Its
    # off-diagonal vanishes at a = 7/10, where the top right singular vector is e₂; elsewhere its first
    # entry is ∝ (a − 7/10) and changes sign there. Fixed at a = 7/10 by the second entry, the first
    # entry came out negative for a < 7/10 (numpy with the sign rule: positive).
    der = tk.Derivation(_spec(SIGN, {"a": {"positive": True}}))
    _agrees_with_numpy_near_reference(der, SIGN)
    assert der.reference == {A: sp.Rational(107, 110)}
    assert any("entry 0 of the right singular vector" in n and "{a = 7/10}" in n for n in der.notes)


RANK = [["a", "161/100"], [1, "b"]]


def test_a_rank_drop_at_the_first_candidate_moves_the_point():
    # By hand: Σyx = B/2 with B = [[a, 161/100], [1, b]], det B = ab − 161/100, 0 at the first candidate
    # (a, b) = (7/10, 23/10) although no entry vanishes: the second singular value was 0 there (its u is
    # 0/0). At the next candidate, (7/10 + 3/11, 23/10 + 1 + 4/11) = (107/110, 293/110), s₁s₂ = |det B|/4
    # and s₁² + s₂² = ‖B‖_F²/4.
    der = tk.Derivation(_spec(RANK, {"a": {"positive": True}, "b": {"positive": True}}))
    a, b = sp.Rational(107, 110), sp.Rational(293, 110)
    _agrees_with_numpy_near_reference(der, RANK)
    assert der.reference == {A: a, B: b}
    s1, s2 = der.modes["p"].floats()
    assert s1 > s2 > 0
    assert s1 * s2 == pytest.approx(float(abs(a * b - sp.Rational(161, 100)) / 4), rel=1e-12)
    assert s1 ** 2 + s2 ** 2 == pytest.approx(float((a ** 2 + sp.Rational(161, 100) ** 2 + 1 + b ** 2) / 4), rel=1e-12)
    assert any("is 0 (a rank drop)" in n and "{a = 7/10, b = 23/10}" in n for n in der.notes)


def test_exact_svd_of_a_symbolic_matrix_takes_a_generic_point_too():
    # diag(a, 7/10): singular values a and 7/10, equal at the first candidate a = 7/10
    svd = exact_svd(sp.Matrix([[A, 0], [0, sp.Rational(7, 10)]]))
    s = svd.floats()
    assert s[0] > s[1]                  # strictly descending at its own reference point (was a tie)
    assert svd.reference == {A: sp.Rational(107, 110)}
    assert s == pytest.approx([107 / 110, 0.7], rel=1e-12)


def test_reference_values_skip_passes_over_candidates():
    # one symbol: the candidates are 7/10 + k·3/11 (k = 0, 1, 2, …); an avoided zero at the second
    # candidate (a − 107/110) is passed over without being counted
    assert reference_values([A]) == reference_values([A], skip=0) == {A: sp.Rational(7, 10)}
    assert reference_values([A], skip=1) == {A: sp.Rational(107, 110)}
    assert reference_values([A], avoid=[A - sp.Rational(107, 110)], skip=1) == {A: sp.Rational(7, 10) + sp.Rational(6, 11)}


def test_an_ordinary_point_is_kept_with_no_note():
    # XoR's linear ReLN: both pathways have s = Δ/2 (docs/theory.md#xor), identical expressions, not a crossing
    der = tk.Derivation(tk.load_spec("examples/xor_linear.toml"))
    assert der.reference == {der.task.symbols["Delta"]: sp.Rational(7, 10)}
    assert not any("reference point" in n for n in der.notes)


def test_every_candidate_ambiguous_keeps_the_first_and_says_so(monkeypatch):
    monkeypatch.setattr(svd_module, "ambiguity", lambda svds, ref: "a test's reason")
    der = tk.Derivation(_spec(CROSSING, {"a": {"positive": True}}))
    assert der.reference == {A: sp.Rational(7, 10)}
    note = next(n for n in der.notes if "reference point" in n)
    assert "a test's reason" in note and "arbitrary" in note


def test_derive_names_the_moved_point(tmp_path):
    spec = tmp_path / "cross.toml"
    spec.write_text('name = "cross"\n[symbols]\na = {positive = true}\n[data]\ninputs = [[1, 0], [0, 1]]\n'
                    'targets = [["a", 0], [0, "7/10"]]\n[[pathways]]\nname = "p"\nactive = [1, 1]\nhidden = 4\n'
                    '[training]\nlr = 0.01\na0 = 0.001\nsteps = 100\n')
    out = tmp_path / "d.json"
    assert main(["derive", str(spec), "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["reference_values"] == {"a": "107/110"}
    # the *_float fields at a = 107/110: a/2 = 107/220 before 7/20
    assert d["pathways"]["p"]["singular_values_float"] == pytest.approx([107 / 220, 0.35], rel=1e-12)
    assert any("{a = 7/10}" in n and "coincide" in n for n in d["notes"])
    assert any("{'a': '107/110'}" in n for n in d["notes"])


# -- the exact integer product (exactla._int_matmul: the Gram matrices of the exact engine and the
#    effective datasets' Σyx, Σx): int64 only where no entry can overflow ---------------------------------
M63 = 2 ** 63


def test_exact_svd_of_an_int64_matrix_holding_minus_two_to_the_63():
    # B = [[−2⁶³, 1]] (int64 holds −2⁶³): rank one, s = ‖b‖ = √(2¹²⁶ + 1). The overflow bound was taken
    # from np.abs(B), and np.abs(−2⁶³) is −2⁶³: BBᵀ was formed in int64, wrapped to 1, and s came out 1.
    svd = exact_svd((np.array([[-M63, 1]], dtype=np.int64), 1))
    assert svd.singular_values == [sp.sqrt(2 ** 126 + 1)]
    # B = [[−m, 1], [1, 1]], m = 2⁶³, symmetric: its eigenvalues are ((1 − m) ± √((m + 1)² + 4))/2, so
    # its singular values are (m − 1 + √D)/2 and (√D − (m − 1))/2 with D = (m + 1)² + 4 (a TypeError before)
    D = (M63 + 1) ** 2 + 4
    svd = exact_svd((np.array([[-M63, 1], [1, 1]], dtype=np.int64), 1))
    assert [sp.expand(s) for s in svd.singular_values] == [sp.expand((M63 - 1 + sp.sqrt(D)) / 2),
                                                            sp.expand((sp.sqrt(D) - (M63 - 1)) / 2)]


def test_the_integer_product_is_exact_at_the_int64_edges():
    rng = np.random.default_rng(7)
    cases = [np.array([[-M63, 1], [1, 1]], dtype=np.int64),                # np.abs(−2⁶³) = −2⁶³: the bound was 1
             np.array([[-(M63 - 1), 1], [3, 1]], dtype=np.int64),
             rng.integers(-2 ** 31, 2 ** 31, size=(4, 6), dtype=np.int64),     # 6·2⁶² ≥ 2⁶²: Python integers
             rng.integers(-2 ** 20, 2 ** 20, size=(4, 6), dtype=np.int64),     # far below: int64
             np.array([[2 ** 70, -1]], dtype=object), np.zeros((0, 3), dtype=np.int64)]
    for A in cases:
        # second method: numpy's product of Python integers (no overflow)
        want = A.astype(object) @ A.T.astype(object)
        got = _int_matmul(A, A.T)
        assert got.shape == want.shape and all(int(x) == int(y) for x, y in zip(got.ravel(), want.ravel()))
        G = _gram(A, "u")
        assert [int(x) for x in G.entries()] == [int(x) for x in want.ravel()]
