"""Mode crossings (``tk.crossings``, ``theorykit derive --crossings SYMBOL``): the exact points along one
free symbol where two singular values coincide without being identically equal, ascending, with the
larger mode on each side. Golden numbers are derived by hand in the docstrings, or located by numpy."""
import json
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, strategies as st

import theorykit as tk
from theorykit.analysis import summary
from theorykit.cli import main

a = sp.Symbol("a", real=True)


def test_xor_crossover_between_the_two_relns_is_sqrt_2_over_3():
    """docs/theory.md#xor: s_lin = Δ/2, s_xor = √(2 + Δ²)/4; squared, 4Δ² = 2 + Δ², so Δ* = √(2/3) = √6/3
    (Δ ≥ 0). At Δ = 0 s_xor = √2/4 > 0 = s_lin (XoR larger below), at Δ = 2: 1 > √6/4 (linear above)."""
    task = tk.xor_margin()
    relns = tk.xor_relns(8)
    s_lin = tk.Derivation(tk.GDLNSpec(task, relns["linear"])).ranking[0][1]
    s_xor = tk.Derivation(tk.GDLNSpec(task, relns["xor"])).ranking[0][1]
    cross = tk.crossings([("linear", s_lin), ("xor", s_xor)])
    assert len(cross) == 1
    c = cross[0]
    assert c.at == sp.sqrt(6) / 3 and sp.simplify(c.at - sp.sqrt(sp.Rational(2, 3))) == 0
    assert (c.a, c.b, c.larger_below, c.larger_above) == ("linear", "xor", "xor", "linear")
    assert sp.simplify(c.value - sp.sqrt(6) / 6) == 0        # s_lin(Δ*) = √6/6
    assert "\\frac{\\sqrt{6}}{3}" in cross._repr_latex_() and c.as_dict()["at"] == "sqrt(6)/3"


def _diag_spec(tmp_path):
    """X = I₂ (P = 2), Y = diag(a, 7/10): Σyx = Y Xᵀ / P = diag(a, 7/10)/2, so the singular values are a/2
    and 7/20, equal at a = 7/10 exactly; a/2 is the larger above it."""
    path = tmp_path / "diag.toml"
    path.write_text('name = "diag"\n[symbols]\na = {positive = true}\n[data]\ninputs = [[1, 0], [0, 1]]\n'
                    'targets = [["a", 0], [0, "7/10"]]\n[[pathways]]\nname = "all"\nactive = [1, 1]\nhidden = 4\n'
                    '[training]\nlr = 0.01\na0 = 0.001\nsteps = 1000\n')
    return path


def test_diagonal_crossing_at_seven_tenths_from_a_derivation(tmp_path):
    der = tk.Derivation(tk.load_spec(_diag_spec(tmp_path)))
    cross = tk.crossings(der)
    assert [c.at for c in cross] == [sp.Rational(7, 10)]
    c = cross[0]
    s_of = {m.s: lab for lab, m in zip(("all[1]", "all[2]"), der.modes["all"].modes)}
    big = s_of[der.task.symbols["a"] / 2]       # the mode whose s is a/2
    assert c.larger_above == big and c.larger_below != big and c.value == sp.Rational(7, 20)


def test_derive_crossings_flag_json_and_text(tmp_path, capsys):
    path = _diag_spec(tmp_path)
    assert main(["derive", str(path), "--crossings", "a", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(c["at"], c["at_float"]) for c in doc["crossings"]] == [("7/10", 0.7)]
    der = tk.Derivation(tk.load_spec(path))
    text = summary.derive_text(der, {**doc, "notes": []})
    assert "crossings (1):" in text and "a = 7/10" in text
    assert main(["derive", str(path), "--crossings", "b", "--json", "-"]) == 2
    assert "error in --crossings:" in capsys.readouterr().err


def test_two_crossings_with_surd_roots_in_ascending_order():
    """(a² + 1)/4 = 3a/4 ⇔ a² − 3a + 1 = 0 ⇔ a = (3 ∓ √5)/2 ≈ 0.382, 2.618 (both > 0). At a → 0⁺ the first
    is 1/4 > 0 (larger below), at a = 1: 1/2 < 3/4 (second larger between), at a = 3: 10/4 > 9/4."""
    cross = tk.crossings([("p", (a ** 2 + 1) / 4), ("q", 3 * a / 4)])
    assert [sp.simplify(c.at - r) for c, r in zip(cross, ((3 - sp.sqrt(5)) / 2, (3 + sp.sqrt(5)) / 2))] == [0, 0]
    assert len(cross) == 2 and all(c.at.has(sp.sqrt(5)) for c in cross)
    assert [(c.larger_below, c.larger_above) for c in cross] == [("p", "q"), ("q", "p")]


def test_a_quintic_root_is_an_exact_rootof_matching_numpy():
    """a⁵ − a + 1 = 3 has one real root (numpy's companion-matrix roots give it), kept as CRootOf."""
    (c,) = tk.crossings([("p", a ** 5 - a + 1), ("q", sp.Integer(3))], interval=(-10, 10))
    assert isinstance(c.at, sp.CRootOf)
    r = np.roots([1, 0, 0, 0, -1, -2])
    want = r[np.abs(r.imag) < 1e-12].real
    assert len(want) == 1 and c.at_float == pytest.approx(want[0], rel=1e-13)


def test_identically_equal_pairs_are_not_crossings():
    """p ≡ q = a/2 never cross each other; each meets r = 1/4 at a = 1/2."""
    cross = tk.crossings({"p": a / 2, "q": a / 2, "r": sp.Rational(1, 4)})
    assert [(c.at, c.a, c.b) for c in cross] == [(sp.Rational(1, 2), "p", "r"), (sp.Rational(1, 2), "q", "r")]
    # the XoR ReLN's four pathways have one and the same s = √(2 + Δ²)/4: nothing to report
    assert tk.crossings(tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns(8)["xor"]))) == []


def test_no_crossing_is_an_empty_list_and_the_interval_is_honoured():
    """a + 1 > a/2 for a > 0 (they meet at a = −2 only); |a|/2 = 7/20 at a = ±7/10."""
    none = tk.crossings([("p", a + 1), ("q", a / 2)], interval=sp.Interval.open(0, sp.oo))   # a is real: by default all reals
    assert none == [] and "no crossing" in none._repr_latex_()
    assert [c.at for c in tk.crossings([("p", a + 1), ("q", a / 2)], interval=(-5, 5))] == [-2]
    both = tk.crossings([("p", sp.Abs(a) / 2), ("q", sp.Rational(7, 20))], interval=(-1, 1))
    assert [c.at for c in both] == [-sp.Rational(7, 10), sp.Rational(7, 10)]
    assert [(c.larger_below, c.larger_above) for c in both] == [("p", "q"), ("q", "p")]


def test_several_symbols_are_refused_with_their_names_and_the_fix():
    b = sp.Symbol("b", positive=True)
    with pytest.raises(tk.SpecError) as e:
        tk.crossings([("p", a * b), ("q", a / 2)])
    assert e.value.field == "symbol" and "['a', 'b']" in str(e.value) and "symbol=" in e.value.fix
    with pytest.raises(tk.SpecError) as e:
        tk.crossings([("p", a * b), ("q", a / 2)], symbol="a")
    assert "['b']" in str(e.value) and ".subs" in e.value.fix
    # with b given a value, the crossing along a is found: 3a = a/2 only at a = 0, outside a > 0
    assert tk.crossings([("p", (a * b).subs(b, 3)), ("q", a / 2)], symbol="a", interval=sp.Interval.open(0, sp.oo)) == []


def _sv_formulas(M):
    """Exact singular values of a 2×2 M(a): s± = √((T ± √(T² − 4D²))/2), T = ‖M‖_F², D = det M."""
    T = sum(e ** 2 for e in M)
    disc = sp.expand(T ** 2 - 4 * M.det() ** 2)
    return sp.sqrt((T + sp.sqrt(disc)) / 2), sp.sqrt((T - sp.sqrt(disc)) / 2)


def test_a_touch_of_the_two_singular_values_of_a_shear_is_found_with_radicals_squared_away():
    """M = [[1, a], [0, 1]]: T = 2 + a², D = 1, T² − 4D² = a²(a² + 4), zero (real a) only at a = 0, where
    s± = 1; elsewhere s+ > s−, so s+ is larger on both sides (a touch, not a change of order)."""
    (c,) = tk.crossings(list(zip(("p", "q"), _sv_formulas(sp.Matrix([[1, a], [0, 1]])))), interval=(-5, 5))
    assert (c.at, c.value, c.larger_below, c.larger_above) == (0, 1, "p", "p")


_small = st.fractions(min_value=-3, max_value=3, max_denominator=4)


@given(A=st.lists(_small, min_size=4, max_size=4), B=st.lists(_small, min_size=4, max_size=4),
       diagonal=st.booleans())
# found by a random (not CI's derandomized) run: M = [[0, a], [a, a]], whose s_p² − s_q² = √5·a² has an irrational
# coefficient (was refused as "not a rational function"; the touch is at a = 0, where M = 0), and M = [[3 − a, 2a],
# [3a/2 + 2, 1]], which touches at the interval's end a = 4 (M = [[−1, 8], [8, 1]], MᵀM = 65·I): nothing lies above
@example(A=[Fraction(0)] * 4, B=[Fraction(0), Fraction(1), Fraction(1), Fraction(1)], diagonal=False)
@example(A=[Fraction(3), Fraction(0), Fraction(2), Fraction(1)], B=[Fraction(-1), Fraction(2), Fraction(3, 2), Fraction(0)],
         diagonal=False)
def test_reported_roots_make_the_numeric_singular_values_equal(A, B, diagonal):
    """M(a) = A + a B with small rational A, B. A diagonal M has the branches |A₁₁ + a B₁₁|, |A₂₂ + a B₂₂|
    (which cross); a full one s± (which can only touch, where M is a multiple of an orthogonal matrix).
    At every reported root numpy's singular values agree to 1e-9, and numpy's sign of s_p − s_q on each
    side is the reported larger mode's (or they touch)."""
    A = [sp.Rational(q.numerator, q.denominator) for q in A]
    B = [sp.Rational(q.numerator, q.denominator) for q in B]
    if diagonal:
        A[1] = A[2] = B[1] = B[2] = sp.Integer(0)
    M = sp.Matrix(2, 2, [x + a * y for x, y in zip(A, B)])
    if diagonal:
        vals = [("p", sp.Abs(M[0, 0])), ("q", sp.Abs(M[1, 1]))]

        def num(x):      # numpy: the two branches at x
            return abs(float(A[0] + x * B[0])), abs(float(A[3] + x * B[3]))
    else:
        vals = list(zip(("p", "q"), _sv_formulas(M)))

        def num(x):
            sv = np.linalg.svd(np.array([[float(A[i] + x * B[i]) for i in (0, 1)],
                                         [float(A[i] + x * B[i]) for i in (2, 3)]]), compute_uv=False)
            return sv[0], sv[1]
    if not any(v.free_symbols for _, v in vals):     # B = 0 (on the diagonal): no symbol to search along
        with pytest.raises(tk.SpecError, match="no free symbol"):
            tk.crossings(vals, interval=(-4, 4))
        return
    for c in tk.crossings(vals, interval=(-4, 4)):
        x = c.at_float
        Mx = np.array([[float(A[i] + x * B[i]) for i in (0, 1)], [float(A[i] + x * B[i]) for i in (2, 3)]])
        sv = np.linalg.svd(Mx, compute_uv=False)
        sp_, sq_ = num(x)
        assert abs(sp_ - sq_) <= 1e-9 * (1 + sp_)
        if diagonal:
            assert abs(sv[0] - sv[1]) <= 1e-9 * (1 + sv[0])
        for side, h in (("larger_below", -1e-4), ("larger_above", 1e-4)):
            if not -4 <= x + h <= 4:         # beyond the interval's closed end: nothing lies there
                assert getattr(c, side) == "none"
                continue
            dp, dq = num(x + h)
            d = dp - dq
            if abs(d) > 1e-9:        # on the side, numpy's sign names the reported larger mode
                assert getattr(c, side) == ("p" if d > 0 else "q")
