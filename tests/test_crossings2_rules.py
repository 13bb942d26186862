"""Mode crossings, second step: crossings between several derivations (``tk.crossings([der_a, der_b])``,
``theorykit derive A.toml --crossings SYMBOL --against B.toml``) and the default search domain taken from
the symbol's own assumptions. Golden numbers are derived by hand in the docstrings."""
import doctest
import json
import re
from pathlib import Path

import pytest
import sympy as sp

import theorykit as tk
from theorykit.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
LIN, XOR = EXAMPLES / "xor_linear.toml", EXAMPLES / "xor_reln.toml"


@pytest.fixture(scope="module")
def ders():
    return tk.Derivation(tk.load_spec(LIN)), tk.Derivation(tk.load_spec(XOR))


def test_xor_crossover_from_two_derivations_is_sqrt_6_over_3(ders):
    """By hand (docs/theory.md#xor): s_lin = Δ/2 (both pathways of xor-linear), s_xor = √(2 + Δ²)/4 (all
    four of xor-xor). Δ/2 = √(2 + Δ²)/4 ⇔ 4Δ² = 2 + Δ² ⇔ Δ² = 2/3 ⇔ Δ* = √6/3 (Δ ≥ 0), where both are
    √6/6. Below (Δ = 0): √2/4 > 0, the XoR mode is larger; above (Δ = 2): 1 > √6/4, the linear one.
    Each linear mode meets each XoR mode there: 2 × 4 = 8 crossings; the identical modes of one
    derivation are not crossings."""
    lin, xo = ders
    cross = tk.crossings([lin, xo])
    assert len(cross) == 8 and {c.at for c in cross} == {sp.sqrt(6) / 3}
    assert all(sp.simplify(c.value - sp.sqrt(6) / 6) == 0 for c in cross)
    assert {(c.a, c.b) for c in cross} == {(f"xor-linear:{p}", f"xor-xor:point{k}")
                                          for p in ("positive", "negative") for k in range(4)}
    assert all(c.larger_below == c.b and c.larger_above == c.a for c in cross)
    # a dict labels each derivation's modes by its key
    keyed = tk.crossings({"lin": lin, "xor": xo})
    assert {c.a for c in keyed} == {"lin:positive", "lin:negative"} and {c.at for c in keyed} == {sp.sqrt(6) / 3}


def test_two_derivations_of_one_spec_name_are_refused(ders):
    lin, _ = ders
    with pytest.raises(tk.SpecError) as e:
        tk.crossings([lin, lin])
    assert e.value.field == "values" and "xor-linear:positive" in str(e.value) and "dict" in e.value.fix


def test_one_symbol_name_with_two_declarations_is_refused(ders):
    """xor-linear declares Delta nonnegative; a positive Delta is another SymPy symbol of the same name."""
    lin, _ = ders
    with pytest.raises(tk.SpecError) as e:
        tk.crossings([lin, ("x", sp.Symbol("Delta", positive=True))])
    assert e.value.field == "symbol" and "Delta: nonnegative" in str(e.value) and "Delta: positive" in str(e.value)


def test_derive_against_writes_the_crossover_json(tmp_path, capsys):
    """The CLI form of the first test: Δ* = √6/3 ≈ 0.816496580927726 (√6 = 2.449489742783178…)."""
    out = tmp_path / "r.json"
    assert main(["derive", str(LIN), "--crossings", "Delta", "--against", str(XOR), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert len(doc["crossings"]) == 8
    assert {(c["at"], c["latex"], c["value"]) for c in doc["crossings"]} == {("sqrt(6)/3", "\\frac{\\sqrt{6}}{3}",
                                                                            "sqrt(6)/6")}
    assert all(c["at_float"] == pytest.approx(2.449489742783178 / 3, rel=1e-15) for c in doc["crossings"])
    assert doc["crossings"][0]["modes"][0].startswith("xor-linear:") and \
        doc["crossings"][0]["modes"][1].startswith("xor-xor:")
    # the other spec is hashed in the record, so that rerun can check it
    assert doc["provenance"]["inputs"]["against[1]"]["path"] == str(XOR)
    assert main(["rerun", str(out)]) == 0
    capsys.readouterr()
    # --against without --crossings, and a spec against one of the same name, are refused
    assert main(["derive", str(LIN), "--against", str(XOR), "--json", "-"]) == 2
    assert "error in --against:" in capsys.readouterr().err
    assert main(["derive", str(LIN), "--crossings", "Delta", "--against", str(LIN), "--json", "-"]) == 2
    assert "error in --against:" in capsys.readouterr().err


def test_a_negative_symbol_is_searched_on_the_negative_reals_by_default():
    """b < 0: s_a = −b/2 (positive there), s_b = 1/4; −b/2 = 1/4 at b = −1/2. Below (b = −1): 1/2 > 1/4,
    s_a larger; above (b = −1/4): 1/8 < 1/4, s_b larger. On b > 0 there is nothing to find."""
    b = sp.Symbol("b", negative=True)
    (c,) = tk.crossings([("a", -b / 2), ("b", sp.Rational(1, 4))])
    assert (c.at, c.value, c.larger_below, c.larger_above) == (-sp.Rational(1, 2), sp.Rational(1, 4), "a", "b")
    # n ≤ 0: (−∞, 0], 0 included. −3n = −n only at n = 0; −3n = 1/4 at n = −1/12; −n = 1/4 at n = −1/4
    n = sp.Symbol("n", nonpositive=True)
    assert [c.at for c in tk.crossings([("a", -3 * n), ("b", -n), ("c", sp.Rational(1, 4))])] == \
        [-sp.Rational(1, 4), -sp.Rational(1, 12), 0]


def test_a_real_symbol_is_searched_on_both_sides_of_zero():
    """x real: s_p = x², s_q = 1/4 meet at x = ±1/2 (x² = 1/4). Below −1/2 and above 1/2 x² is larger; in
    between 1/4 is. A symbol with no assumption at all is searched on the real line too."""
    for x in (sp.Symbol("x", real=True), sp.Symbol("x")):
        cross = tk.crossings([("p", x ** 2), ("q", sp.Rational(1, 4))])
        assert [c.at for c in cross] == [-sp.Rational(1, 2), sp.Rational(1, 2)]
        assert [(c.larger_below, c.larger_above) for c in cross] == [("p", "q"), ("q", "p")]


def test_a_nonnegative_symbol_includes_zero_and_a_positive_one_does_not():
    """s_p = y, s_q = 2y meet only at y = 0 (y = 2y): in [0, ∞) for y ≥ 0, not in (0, ∞) for y > 0."""
    y0, y1 = sp.Symbol("y", nonnegative=True), sp.Symbol("y", positive=True)
    assert [c.at for c in tk.crossings([("p", y0), ("q", 2 * y0)])] == [0]
    assert tk.crossings([("p", y1), ("q", 2 * y1)]) == []


def test_theory_page_xor_example_runs_as_written(monkeypatch):
    """docs/theory.md#xor's REPL block (the crossover from the two example specs) runs as written; its
    Δ* is the hand derivation's √6/3 (first test's docstring)."""
    text = (ROOT / "docs" / "theory.md").read_text("utf-8")
    blocks = re.findall(r"```pycon\n(.*?)```", text, flags=re.S)
    assert len(blocks) == 1 and "tk.crossings([lin, xor])" in blocks[0] and "{sqrt(6)/3}" in blocks[0]
    monkeypatch.chdir(ROOT)         # the block reads examples/*.toml
    test = doctest.DocTestParser().get_doctest(blocks[0], {}, "theory.md", str(ROOT / "docs" / "theory.md"), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    out = []
    runner.run(test, out=out.append)
    assert runner.tries >= 6 and runner.failures == 0, "".join(out)


def test_a_crossing_at_the_closed_end_of_the_domain_has_no_side_beyond_it():
    # y ≥ 0: s_a = y and s_b = 2y meet at y = 0 only (2y − y = y), the domain's closed lower end; above it
    # b is the larger (2y > y for y > 0), and below it lies outside the domain: "none", not "equal"
    y = sp.Symbol("y", nonnegative=True)
    (c,) = tk.crossings([("a", y), ("b", 2 * y)])
    assert (c.at, c.larger_below, c.larger_above) == (0, "none", "b")
    (c,) = tk.crossings([("a", y), ("b", 2 * y)], interval=(0, 1))
    assert (c.at, c.larger_below, c.larger_above) == (0, "none", "b")
