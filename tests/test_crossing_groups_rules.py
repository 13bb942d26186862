"""Mode crossings read at a glance: ``tk.crossings(...).groups`` gathers the crossings at one point with one
value whose modes split into the same "larger below" and "larger above" sets into one group, and the
result prints (repr, str, text, LaTeX, ``theorykit derive --crossings``'s summary) one line per group.
Golden numbers are derived by hand in the docstrings and comments."""
import json
import re
from pathlib import Path

import pytest
import sympy as sp

import theorykit as tk
from theorykit.analysis import summary
from theorykit.cli import main
from theorykit.theory.crossings import Crossing, Crossings, mode_set

ROOT = Path(__file__).resolve().parents[1]
LIN, XOR = ROOT / "examples" / "xor_linear.toml", ROOT / "examples" / "xor_reln.toml"
LINEAR = ("xor-linear:negative", "xor-linear:positive")
POINTS = tuple(f"xor-xor:point{k}" for k in range(4))
a = sp.Symbol("a", positive=True)


@pytest.fixture(scope="module")
def xor_crossings():
    return tk.crossings([tk.Derivation(tk.load_spec(LIN)), tk.Derivation(tk.load_spec(XOR))])


def test_the_xor_crossover_is_one_group_at_root_six_over_three(xor_crossings):
    """docs/theory.md#xor: each linear pathway's mode is s_lin = Δ/2, each XoR single-point pathway's
    s_xor = √(2 + Δ²)/4. Δ/2 = √(2 + Δ²)/4 squares to 4Δ² = 2 + Δ², Δ² = 2/3, Δ* = √(2/3) = √6/3 (Δ ≥ 0),
    where s = Δ*/2 = √6/6. At Δ = 0, s_xor = √2/4 > 0 = s_lin (the XoR modes larger below); at Δ = 2,
    s_lin = 1 > √6/4 = s_xor (the linear ones larger above). The two linear modes are identically equal,
    as are the four XoR ones, so their pairs do not cross: 2 × 4 = 8 crossings, one statement."""
    assert len(xor_crossings) == 8
    (g,) = xor_crossings.groups
    assert g.at == sp.sqrt(6) / 3 and g.value == sp.sqrt(6) / 6
    assert g.below == POINTS and g.above == LINEAR
    assert len(g.crossings) == 8 and set(g.crossings) == set(xor_crossings)
    assert g.at_float == pytest.approx(2.449489742783178 / 3, rel=1e-15)     # √6 = 2.449489742783178…


def test_the_xor_crossover_prints_in_one_short_line(xor_crossings):
    line = ("Delta = sqrt(6)/3 (≈ 0.8165), s = sqrt(6)/6: {xor-xor:point0–point3} larger below, "
            "{xor-linear:negative, xor-linear:positive} larger above")
    assert xor_crossings.text() == line and str(xor_crossings) == line
    assert len(repr(xor_crossings)) < 300 and line in repr(xor_crossings)
    assert repr(xor_crossings).startswith("Crossings(8 crossings in 1 group: ")
    latex = xor_crossings._repr_latex_()
    assert r"\frac{\sqrt{6}}{3}" in latex and r"\frac{\sqrt{6}}{6}" in latex
    # one group, one statement; its LaTeX (739 pt wide in pdflatex as one line) is broken between modes into
    # lines that fit a page (tests/test_latex_width_rules.py), and is the one line, written by hand, without
    # the breaks (and the spaces a line ends without)
    one_line = (r"\Delta = \frac{\sqrt{6}}{3} \approx 0.8165:\ s = \frac{\sqrt{6}}{6};\ \{" + ",\\, ".join(
        rf"\mathrm{{xor\text{{-}}xor:point{k}}}" for k in range(4)) + r"\}\ \text{larger below},\ \{"
        r"\mathrm{xor\text{-}linear:negative},\, \mathrm{xor\text{-}linear:positive}\}\ \text{larger above}")
    rows = latex.removeprefix(r"$\begin{aligned}").removesuffix(r"\end{aligned}$").split(r" \\ ")
    assert len(rows) > 1 and rows[0].startswith("&") and all(r.startswith(r"&\quad ") for r in rows[1:])
    unspaced = [re.sub(r"\\[ ,]|\s+", "", r.removeprefix(r"&\quad ").removeprefix("&")) for r in rows]
    assert "".join(unspaced) == re.sub(r"\\[ ,]|\s+", "", one_line)
    assert all(m in latex for m in (r"\mathrm{xor\text{-}xor:point3}", r"\mathrm{xor\text{-}linear:positive}"))
    # still the list of the 8 per-pair crossings, as before
    assert isinstance(xor_crossings, list) and all(isinstance(c, Crossing) for c in xor_crossings)


def test_two_distinct_points_give_two_groups_in_ascending_order():
    """(a² + 1)/4 = 3a/4 ⇔ a² − 3a + 1 = 0 ⇔ a = (3 ∓ √5)/2 ≈ 0.382, 2.618, with s = 3a/4 = (9 ∓ 3√5)/8.
    At a → 0⁺ p = 1/4 > 0 = q (p larger below the first); at a = 1, 1/2 < 3/4 (q between); at a = 3,
    10/4 > 9/4 (p above the second)."""
    groups = tk.crossings([("p", (a ** 2 + 1) / 4), ("q", 3 * a / 4)]).groups
    assert len(groups) == 2
    assert [sp.simplify(g.at - r) for g, r in zip(groups, ((3 - sp.sqrt(5)) / 2, (3 + sp.sqrt(5)) / 2))] == [0, 0]
    assert [sp.simplify(g.value - v) for g, v in zip(groups, ((9 - 3 * sp.sqrt(5)) / 8, (9 + 3 * sp.sqrt(5)) / 8))] == [0, 0]
    assert [(g.below, g.above) for g in groups] == [(("p",), ("q",)), (("q",), ("p",))]
    assert groups[0].at_float == pytest.approx((3 - 5 ** 0.5) / 2) and groups[1].at_float == pytest.approx((3 + 5 ** 0.5) / 2)


def test_two_pairs_meeting_at_one_point_with_different_values_are_two_groups():
    """On (3/4, 2): p = a and q = 2a − 1 meet at a = 1 with s = 1 (p larger below: 1/2 > 0 at a = 1/2);
    r = 2a and t = 3a − 1 meet at a = 1 too, with s = 2 (r larger below). No other pair meets there:
    q = r never (2a − 1 ≠ 2a), p = r and q = t only at a = 0, p = t at a = 1/2, and the sign-flipped
    equalities at a = 0, 1/4, 1/3, 2/5: all outside (3/4, 2)."""
    cross = tk.crossings([("p", a), ("q", 2 * a - 1), ("r", 2 * a), ("t", 3 * a - 1)], interval=(sp.Rational(3, 4), 2))
    assert [c.at for c in cross] == [1, 1]
    groups = cross.groups
    assert [(g.at, g.value, g.below, g.above) for g in groups] == [(1, 1, ("p",), ("q",)), (1, 2, ("r",), ("t",))]
    assert cross.text() == ("a = 1, s = 1: {p} larger below, {q} larger above\n"
                            "a = 1, s = 2: {r} larger below, {t} larger above")
    assert repr(cross).startswith("Crossings(2 crossings: a = 1, s = 1: ")


def test_three_lines_through_one_point_give_groups_that_are_each_true():
    """p = a, q = 2a − 1, r = 3a − 2 all pass through (1, 1); slopes 1 < 2 < 3, so below a = 1
    p > q > r and above r > q > p. p's partners (larger above) are {q, r}, q's is {r}: two groups,
    "{p} below, {q, r} above" and "{q} below, {r} above"; no mode is on both sides of one group."""
    cross = tk.crossings([("p", a), ("q", 2 * a - 1), ("r", 3 * a - 2)])
    assert len(cross) == 3 and {c.at for c in cross} == {1}
    assert [(g.below, g.above) for g in cross.groups] == [(("p",), ("q", "r")), (("q",), ("r",))]
    assert sorted(id(c) for g in cross.groups for c in g.crossings) == sorted(map(id, cross))   # each once
    for g in cross.groups:
        assert not set(g.below) & set(g.above)
        assert {(c.larger_below, c.larger_above) for c in g.crossings} == {(b, u) for b in g.below for u in g.above}


def test_points_are_compared_exactly_not_by_digits():
    """√(3 + 2√2) = 1 + √2 ((1 + √2)² = 3 + 2√2): one point written two ways is one group; 1 + √2 + 10⁻⁴⁰
    agrees with it to 40 digits but is another point: two groups."""
    x = sp.Symbol("x", real=True)
    one, other = sp.sqrt(3 + 2 * sp.sqrt(2)), 1 + sp.sqrt(2)
    assert one != other       # structurally different
    c1 = Crossing(x, one, "p", "q", "p", "q", sp.Integer(1))
    c2 = Crossing(x, other, "p", "r", "p", "r", sp.Integer(1))
    (g,) = Crossings([c1, c2]).groups
    assert g.below == ("p",) and g.above == ("q", "r")
    c3 = Crossing(x, other + sp.Rational(1, 10 ** 40), "p", "r", "p", "r", sp.Integer(1))
    assert len(Crossings([c1, c3]).groups) == 2
    # the same point with values equal but written differently: √6/6 and 1/√6 (= √6/6), one group
    inv = sp.Pow(sp.sqrt(6), -1, evaluate=False)
    assert inv != sp.sqrt(6) / 6
    c5 = Crossing(x, one, "p", "q", "p", "q", sp.sqrt(6) / 6)
    c6 = Crossing(x, other, "p", "r", "p", "r", inv)
    (g,) = Crossings([c5, c6]).groups
    assert g.above == ("q", "r")


def test_a_crossing_that_changes_no_order_is_a_group_of_its_own():
    """y ≥ 0: s_a = y and s_b = 2y meet at y = 0 only, the domain's closed end (below it: "none"); such a
    crossing says which mode is larger on each side as the pair it is."""
    y = sp.Symbol("y", nonnegative=True)
    cross = tk.crossings([("a", y), ("b", 2 * y)])
    (g,) = cross.groups
    assert (g.at, g.below, g.above) == (0, (), ("b",))
    assert cross.text() == "y = 0, s = 0: s[a] = s[b]; larger below: none, above: b"
    assert g.as_dict()["pair"] == ["a", "b", "none", "b"]


def test_a_set_of_modes_is_shortened_only_for_three_or_more_consecutive_numbers():
    assert mode_set(["x:point3", "x:point1", "x:point0", "x:point2"]) == "{x:point0–point3}"
    assert mode_set(["p2", "p3", "p4"]) == "{p2–p4}"
    assert mode_set(["x:point10", "x:point9", "x:point8"]) == "{x:point8–point10}"    # natural order
    assert mode_set(["x:point0", "x:point2", "x:point3"]) == "{x:point0, x:point2, x:point3}"     # a gap
    assert mode_set(["x:point0", "x:point1"]) == "{x:point0, x:point1}"                          # two
    assert mode_set(["x:point0", "x:point1", "y:point2"]) == "{x:point0, x:point1, y:point2}"     # two stems
    assert mode_set(["p01", "p02", "p03"]) == "{p01, p02, p03}"                                  # zero-padded
    assert mode_set(["all[1]", "all[2]", "all[3]"]) == "{all[1], all[2], all[3]}"


def test_derive_crossings_json_has_the_groups_the_summary_prints_them_and_rerun_agrees(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["derive", str(LIN), "--crossings", "Delta", "--against", str(XOR), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert len(doc["crossings"]) == 8
    (g,) = doc["crossing_groups"]
    assert (g["at"], g["latex"], g["value"], g["pairs"], g["pair"]) == ("sqrt(6)/3", r"\frac{\sqrt{6}}{3}", "sqrt(6)/6", 8, None)
    assert (tuple(g["below"]), tuple(g["above"])) == (POINTS, LINEAR)
    text = summary.derive_text(tk.Derivation(tk.load_spec(LIN)), {**doc, "notes": []})
    assert "  crossings (8 pairs of modes, in 1 group):\n      Delta = sqrt(6)/3 (≈ 0.8165), s = sqrt(6)/6: " \
           "{xor-xor:point0–point3} larger below, {xor-linear:negative, xor-linear:positive} larger above" in text
    assert text.count("sqrt(6)/3") == 1
    # a document without the groups (an older theorykit's) is still summarised pair by pair
    old = summary.derive_text(tk.Derivation(tk.load_spec(LIN)), {k: v for k, v in doc.items() if k != "crossing_groups"} | {"notes": []})
    assert "crossings (8):" in old and old.count("sqrt(6)/3") == 8
    assert main(["rerun", str(out)]) == 0
    assert "bit for bit" in capsys.readouterr().out
