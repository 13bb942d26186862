"""Rules of the spec expression parser (theorykit/spec/expr.py) and the field checkers
(theorykit/spec/fields.py), pinned at their edges: inclusive/exclusive bounds, the operator
table, the allowed functions, and that parsing never runs code.

Every golden value is built here by hand with SymPy (``sp.Integer(2)**64``, ``sp.Rational(3, 4)``,
``sp.sqrt(2)``) or derived in a comment, never read back from the code under test.
"""
from __future__ import annotations

import ast
import builtins
import decimal

import numpy as np
import pytest
import sympy as sp

from theorykit.errors import SpecError
from theorykit.spec import fields as vf
from theorykit.spec.expr import data_number, parse_expr, to_exact, written_nonzero

D = sp.Symbol("Delta", positive=True)
X = sp.Symbol("x", real=True)
SYMS = {"Delta": D, "x": X}


def _err(call, field=None) -> str:
    with pytest.raises(SpecError) as e:
        call()
    if field is not None:
        assert e.value.field == field
    return str(e.value)


def _refused(text, field="f") -> str:
    return _err(lambda: parse_expr(text, SYMS, field), field)


# --- the parser: values -------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("Delta - 2", D - 2),
    ("2 - Delta", 2 - D),
    ("6/4", sp.Rational(3, 2)),                 # true division, exact: 6/4 = 3/2
    ("3*Delta", 3 * D),
    ("+Delta", D),
    ("-Delta", -D),
    ("-(-Delta)", D),
    ("2 + 3*4", sp.Integer(14)),                # precedence: 2 + 12
    ("(2 + 3)*4", sp.Integer(20)),
    ("-2**2", sp.Integer(-4)),                  # Python precedence: -(2**2)
    ("2**3**2", sp.Integer(512)),               # right-assoc: 2**(3**2) = 2**9
    ("2**-1", sp.Rational(1, 2)),
    ("0**0", sp.Integer(1)),
    ("0**2", sp.Integer(0)),
    ("sqrt(4)", sp.Integer(2)),
    ("sqrt(0)", sp.Integer(0)),                 # 0 is not negative: sqrt(0) = 0 is real
    ("sqrt(2)", sp.sqrt(2)),
    ("sqrt(Delta)", sp.sqrt(D)),
    ("Rational(3, 4)", sp.Rational(3, 4)),      # p/q, not q/p
    ("Rational(-6, 4)", sp.Rational(-3, 2)),
    ("0.25", sp.Rational(1, 4)),
    ("1_000", sp.Integer(1000)),
    ("0e5", sp.Integer(0)),
    ("0.0e-400", sp.Integer(0)),                # written as zero: not an underflow
    ("1.0e-7", sp.Rational(1, 10**7)),
    ("  Delta  ", D),
])
def test_parser_values(text, expected):
    got = parse_expr(text, SYMS, "f")
    assert sp.simplify(got - expected) == 0, (text, got)


def test_exponent_bound_is_inclusive_both_ways():
    # |exponent| <= 64 is allowed; 65 is not, on either side
    assert parse_expr("2**64", {}) == sp.Integer(18446744073709551616)     # 2**64, by hand
    assert parse_expr("Delta**64", SYMS) == D**64
    assert parse_expr("Delta**-64", SYMS) == D**-64
    for text in ("Delta**65", "Delta**-65", "2**65"):
        assert "keep |exponent| <= 64" in _refused(text)


def test_power_magnitude_bound_at_1e400():
    # (10**10)**40 = 1e400 reaches |log10| = 400 exactly: allowed; 1e410 is not, nor 1e-410
    assert parse_expr("(10**10)**40", {}) == sp.Integer(10)**400
    assert parse_expr("(10**10)**-40", {}) == sp.Integer(10)**-400
    for text in ("(10**10)**41", "(10**10)**-41", "(10**7)**60"):
        assert "far outside the range" in _refused(text)


def test_power_magnitude_bound_applies_to_a_symbolic_base():
    # the numeric factor of a symbolic base is bounded as a number is (else towers of powers
    # build integers of millions of digits: the tower below took 12 s, one more power hung): (Delta*10**10)**40 = 1e400*Delta**40 is allowed
    assert parse_expr("(Delta*10**10)**40", SYMS) == sp.Integer(10)**400 * D**40
    assert "far outside the range" in _refused("(Delta*10**10)**41")
    assert "far outside the range" in _refused("(((Delta*10**60)**64)**64)**64")


def test_length_bound_is_500_characters():
    ok = "1" + "+1" * 249 + " "              # 1 + 2*249 + 1 = 500 characters, value 250
    assert len(ok) == 500
    assert parse_expr(ok, {}) == 250
    assert "longer than 500" in _refused(ok + " ")


# --- the parser: what it refuses ------------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("7 % 2", "operator Mod"),
    ("7 // 2", "operator FloorDiv"),
    ("1 << 2", "operator LShift"),
    ("~1", "UnaryOp is not allowed"),
    ("not 1", "UnaryOp is not allowed"),
    ("1j", "is not a number"),
    ("True", "is not a number"),
    ("'2'", "is not a number"),
    ("None", "is not a number"),
    ("Delta**x", "is not a number"),            # exponent must be numeric
    ("0**-1", "division by zero"),
    ("0.0**-2", "division by zero"),
    ("1/0", "division by zero"),
    ("Delta/(Delta - Delta)", "division by zero"),
    ("sqrt(-1)", "sqrt of the negative number"),
    ("sqrt(-Delta)", "imaginary"),
    ("(-1)**0.5", "imaginary"),
    ("(-2)**sqrt(2)", "imaginary"),             # (-2)^sqrt(2) = 2^sqrt(2)·e^(iπ·sqrt(2)): not real
    ("(-Delta)**sqrt(2)", "imaginary"),
    ("sqrt()", "takes one argument"),
    ("sqrt(1, 2)", "takes one argument"),
    ("Rational(1)", "takes two arguments"),
    ("Rational(1, 2, 3)", "takes two arguments"),
    ("Rational(1, 0)", "second nonzero"),
    ("Rational(0.5, 2)", "two integers"),
    ("Rational(Delta, 2)", "two integers"),
    ("sqrt(x=4)", "may be called"),
    ("Delta.sqrt(4)", "may be called"),
    ("abs(-1)", "function 'abs' is not allowed"),
    ("Gamma", "unknown symbol 'Gamma'"),
    ("1e-400", "too small"),
    ("1E-400", "too small"),                     # capital E exponent too
    ("1e400", "'1e400' is too large"),           # past the largest float: named as written, not as inf
    ("2 * 1e400", "'1e400' is too large"),
])
def test_parser_refusals_name_field_and_reason(text, words):
    msg = _refused(text, field="data.inputs[1][2]")
    assert "data.inputs[1][2]" in msg and words in msg, msg


def test_symbol_mapped_to_a_non_sympy_value_is_refused():
    msg = _err(lambda: parse_expr("Delta + 1", {"Delta": 2.0}), field="symbols['Delta']")
    assert "not a SymPy symbol" in msg


def test_symbols_must_be_a_mapping():
    assert "dict name" in _err(lambda: parse_expr("1", ["Delta"]), field="symbols")
    assert parse_expr("1", None) == 1


def test_non_string_inputs():
    assert parse_expr(sp.sqrt(2), {}) == sp.sqrt(2)
    assert "imaginary" in _err(lambda: parse_expr(sp.I, {}, "f"), field="f")
    assert parse_expr(3, {}) == sp.Integer(3)
    assert parse_expr(0.5, {}) == sp.Rational(1, 2)


def test_to_exact():
    assert to_exact(0.1) == sp.Rational(1, 10)              # via repr "0.1", not the binary value
    assert to_exact(np.float64(0.25)) == sp.Rational(1, 4)
    assert to_exact(np.int64(7)) == sp.Integer(7)
    assert "boolean" in _err(lambda: to_exact(True, "f"), field="f")
    assert "not a finite" in _err(lambda: to_exact(float("nan"), "f"), field="f")
    assert "not a finite" in _err(lambda: to_exact(float("inf"), "f"), field="f")
    assert "too small" in _err(lambda: to_exact(decimal.Decimal("1e-400"), "f"), field="f")
    assert "too large" in _err(lambda: to_exact(decimal.Decimal("1e400"), "f"), field="f")
    assert "not a finite" in _err(lambda: to_exact(decimal.Decimal("inf"), "f"), field="f")
    assert to_exact(decimal.Decimal("0.5")) == sp.Rational(1, 2)
    assert "expected a number" in _err(lambda: to_exact([1], "f"), field="f")


@pytest.mark.parametrize("literal, nonzero", [
    ("1e-400", True), ("1E-400", True), ("0.0e5", False), ("0E9", False), ("-0.000", False),
    ("1_0e-999", True), ("0.00001e-400", True), ("+0", False),
])
def test_written_nonzero(literal, nonzero):
    assert written_nonzero(literal) is nonzero


def test_data_number_range_and_realness():
    assert data_number("1e6", "f") == sp.Integer(10**6)
    assert data_number(0, "f") == 0
    assert "too large" in _err(lambda: data_number("1e6 + 1", "f"), field="f")
    assert "too small" in _err(lambda: data_number("1e-7", "f"), field="f")
    assert "imaginary" in _err(lambda: data_number(sp.I, "f"), field="f")
    assert data_number("Delta*1e9", "f", SYMS) == 10**9 * D            # symbolic values pass
    # 1e400 and 1e-400 are past any float: shown by their power of ten, not as inf or 0
    assert "about 1e400" in _err(lambda: data_number("(10**10)**40", "f"), field="f")
    assert "about 1e-400" in _err(lambda: data_number("(10**10)**-40", "f"), field="f")


# --- parsing never runs code ------------------------------------------------------------------------------

CODE = [
    "__import__('os').system('echo pwned')",
    "__import__",
    "getattr(Delta, 'subs')",
    "Delta.__class__",
    "Delta.real",
    "Delta[0]",
    "lambda: 1",
    "[c for c in 'ab']",
    "{c for c in 'ab'}",
    "(c for c in 'ab')",
    "{1: 2}",
    "(x := 1)",
    "f'{Delta}'",
    "eval('1')",
    "exec('x=1')",
    "sympify('1')",
    "sqrt.__globals__",
    "Rational.__init__",
    "1 if Delta else 2",
    "Delta == Delta",
    "x = 1",
    "import os",
    "(yield)",
    "*Delta",
]


@pytest.mark.parametrize("text", CODE)
def test_parsing_never_evaluates(text, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the parser evaluated code")

    real_compile = builtins.compile

    def compile_ast_only(source, filename, mode, flags=0, *a, **k):
        assert flags & ast.PyCF_ONLY_AST, "compiled to bytecode"
        return real_compile(source, filename, mode, flags, *a, **k)

    monkeypatch.setattr(builtins, "eval", boom)
    monkeypatch.setattr(builtins, "exec", boom)
    monkeypatch.setattr(builtins, "compile", compile_ast_only)
    monkeypatch.setattr(sp, "sympify", boom)
    with pytest.raises(SpecError) as e:
        parse_expr(text, SYMS, "data.inputs[0][0]")
    assert e.value.field == "data.inputs[0][0]"


# --- field checkers ---------------------------------------------------------------------------------------

def test_integer_bounds_inclusive():
    assert vf.integer(2, "n", lo=2, hi=5, fix="x") == 2
    assert vf.integer(5, "n", lo=2, hi=5, fix="x") == 5
    assert vf.integer(np.int64(3), "n", lo=2, hi=5, fix="x") == 3
    assert vf.integer(10**9, "n", lo=1, fix="x") == 10**9                # no upper bound
    assert "between 2 and 5" in _err(lambda: vf.integer(1, "n", lo=2, hi=5, fix="x"), field="n")
    assert "between 2 and 5" in _err(lambda: vf.integer(6, "n", lo=2, hi=5, fix="x"), field="n")
    assert "at least 1" in _err(lambda: vf.integer(0, "n", lo=1, fix="x"), field="n")
    assert "needs an integer, got a boolean" in _err(lambda: vf.integer(True, "n", lo=0, hi=5, fix="x"))
    assert "needs an integer, got a float" in _err(lambda: vf.integer(2.0, "n", lo=0, hi=5, fix="x"))


def test_real_bounds_closed_and_open():
    assert vf.real(0.0, "lr", lo=0, hi=1, fix="x") == 0.0
    assert vf.real(1, "lr", lo=0, hi=1, fix="x") == 1.0
    assert vf.real(decimal.Decimal("0.5"), "lr", lo=0, hi=1, fix="x") == 0.5
    assert "out of range (0, 1]" in _err(lambda: vf.real(0, "lr", lo=0, hi=1, fix="x", lo_open=True), field="lr")
    assert vf.real(1e-300, "lr", lo=0, hi=1, fix="x", lo_open=True) == 1e-300
    assert "out of range [0, 1]" in _err(lambda: vf.real(1.0000001, "lr", lo=0, hi=1, fix="x"), field="lr")
    assert "out of range [0, 1]" in _err(lambda: vf.real(-1e-9, "lr", lo=0, hi=1, fix="x"), field="lr")
    assert "needs a number, got a boolean" in _err(lambda: vf.real(True, "lr", lo=0, hi=1, fix="x"))
    assert "needs a number, got a string" in _err(lambda: vf.real("0.1", "lr", lo=0, hi=1, fix="x"))
    assert "too small" in _err(lambda: vf.real(decimal.Decimal("1e-400"), "lr", lo=0, hi=1, fix="x"))
    # a signalling NaN refuses float() itself (ValueError): still "not a finite number", naming the field
    assert "not a finite number" in _err(lambda: vf.real(decimal.Decimal("sNaN"), "lr", lo=0, hi=1, fix="x"),
                                         field="lr")
    # float(10**400) overflows: reported as not finite, not as 0 or a raw OverflowError
    assert "not a finite number" in _err(lambda: vf.real(10**400, "lr", lo=0, hi=1e9, fix="x"), field="lr")
    assert "not a finite number" in _err(lambda: vf.real(float("nan"), "lr", lo=0, hi=1, fix="x"))


def test_label_rules():
    assert vf.label("a" * 64, "name", fix="x") == "a" * 64
    assert "more than 64" in _err(lambda: vf.label("a" * 65, "name", fix="x"), field="name")
    assert "is empty" in _err(lambda: vf.label("", "name", fix="x"))
    assert "is empty" in _err(lambda: vf.label("   ", "name", fix="x"))
    assert vf.label("a b-c_ü", "name", fix="x") == "a b-c_ü"
    for bad in ("a\tb", "a\u00a0b", "a\u2028b", "a\x00b"):   # Cc, Zs (no-break space), Zl, Cc
        assert "control or separator" in _err(lambda: vf.label(bad, "name", fix="x"), field="name")
    assert "needs a string" in _err(lambda: vf.label(3, "name", fix="x"))


def test_node_label_rules():
    assert vf.node_label("h1", "pathways[0].name", fix="x") == "h1"
    for bad in ("input", "output"):
        assert "reserved" in _err(lambda: vf.node_label(bad, "pathways[0].name", fix="x"))
    assert "'a_to_b'" in _err(lambda: vf.node_label("a->b", "pathways[0].name", fix="x"))


def test_magnitude_bounds():
    for ok in (sp.Integer(10**6), sp.Integer(999999), sp.Integer(-10**6), sp.Rational(1, 10**6),
               sp.Rational(-1, 10**6), sp.Rational(1, 999999), sp.Integer(0), sp.sqrt(2)):
        assert vf.check_magnitude(ok, "f") == ok
    for big in (sp.Integer(10**6 + 1), sp.Integer(-(10**6 + 1)), sp.sqrt(10**12 + 10**7)):
        assert "too large" in _err(lambda: vf.check_magnitude(big, "f"), field="f")
    for small in (sp.Rational(1, 10**6 + 1), sp.Rational(-1, 10**6 + 1), 1 / sp.sqrt(10**12 + 10**7)):
        assert "too small" in _err(lambda: vf.check_magnitude(small, "f"), field="f")
    assert vf.check_magnitude(10**9 * D, "f") == 10**9 * D


def test_log10_abs():
    assert vf.log10_abs(sp.Rational(1, 1000)) == pytest.approx(-3)      # log10(1) - log10(1000)
    assert vf.log10_abs(sp.Integer(-100)) == pytest.approx(2)
    assert vf.log10_abs(sp.sqrt(10)) == pytest.approx(0.5)


def test_check_real_finite():
    z = sp.Symbol("z", real=False)
    for bad, words in ((sp.I, "imaginary"), (sp.I * X, "imaginary"), (z, "imaginary"), (sp.nan, "infinite"),
                       (sp.oo, "infinite"), (-sp.oo, "infinite"), (sp.zoo, "infinite"), (1 + sp.oo * D, "infinite")):
        assert words in _err(lambda: vf.check_real_finite(bad, "f"), field="f")
    assert "expected a number" in _err(lambda: vf.check_real_finite(1.5, "f"))
    assert vf.check_real_finite(X + 1, "f") == X + 1


def test_table_keys_and_small_helpers():
    assert vf.path("pathways", 2, "hidden") == "pathways[2].hidden"
    assert vf.path("", "data", "inputs") == "data.inputs"
    msg = _err(lambda: vf.no_unknown_keys({"lrr": 1}, ["lr", "loss"], "training"), field="training.lrr")
    assert "'lrr'" in msg and "did you mean 'lr'" in msg
    vf.no_unknown_keys({"lr": 1}, ["lr", "loss"], "training")
    assert "missing" in _err(lambda: vf.required({}, "lr", "training", "add lr"), field="training.lr")
    assert vf.loss_name("sum") == "sum" and vf.loss_name("mean") == "mean"
    assert "not \"mean\" or \"sum\"" in _err(lambda: vf.loss_name("median"), field="loss")
    assert vf.choice("a", "k", ["a", "b"]) == "a"

    class EqualsEverything:
        def __eq__(self, other):
            return True
        __hash__ = object.__hash__

    _err(lambda: vf.choice(EqualsEverything(), "k", ["a", "b"]), field="k")     # a string is needed
    assert "must be a table, got an array" in _err(lambda: vf.table([1], "t", "x"), field="t")


@pytest.mark.parametrize("where,field", [("inputs = [[1e400, 1]]", "data.inputs[0][0]"),
                                         ("inputs = [[1, 1]]\n[training]\nlr = 1e400", "training.lr")])
def test_a_spec_file_number_past_the_largest_float_is_too_large_not_inf(tmp_path, where, field):
    """TOML reads 1e400 as inf; the spec keeps what was written and refuses it as too large, naming the
    field. The literal ``inf`` is still "not a finite number"."""
    from theorykit.spec.files import load_spec

    head = 'name = "x"\n[[pathways]]\nname = "a"\nactive = [1, 1]\n[data]\ntargets = [[1, -1]]\n'
    (tmp_path / "s.toml").write_text(head + where + "\n")
    msg = _err(lambda: load_spec(tmp_path / "s.toml"), field=field)
    assert "too large" in msg and "inf" not in msg, msg
    (tmp_path / "i.toml").write_text(head + "inputs = [[inf, 1]]\n")
    assert "not a finite number" in _err(lambda: load_spec(tmp_path / "i.toml"), field="data.inputs[0][0]")


@pytest.mark.parametrize("text,exact", [
    ("0.12345678901234567890", sp.Rational(1234567890123456789, 10 ** 19)),   # 20 digits: a float keeps ~17
    ("1_000.25", sp.Rational(4001, 4)),                                         # 1000 + 1/4
    ("-1.5e-3", -sp.Rational(3, 2000)),
    ("0.1", sp.Rational(1, 10)),
])
def test_a_decimal_in_an_expression_is_read_with_every_digit_written(text, exact):
    """docs/specs.md: decimals in expressions are read exactly, so every written digit counts."""
    assert parse_expr(text, {}, "f") == exact


def test_tex_label_and_tex_text_escape_every_tex_special_character():
    # Hand-written: TeX's ten special characters, and in math mode the space (else dropped) and the
    # hyphen (else a minus sign with spaces around it); in text, a hyphen before a hyphen (else "--" is a dash).
    tex_label, tex_text = vf.tex_label, vf.tex_text
    assert tex_label("p_1") == r"\mathrm{p\_1}"
    assert tex_label("50% & #{x}") == r"\mathrm{50\%\ \&\ \#\{x\}}"
    assert tex_label("a$b~c^d\\e") == r"\mathrm{a\$b\tilde{}c\hat{}d\backslash{}e}"
    assert tex_label("ctx1-12") == r"\mathrm{ctx1\text{-}12}"
    assert tex_text("50% of a_b & {c} #1 $2 ~^\\ --x") == (r"50\% of a\_b \& \{c\} \#1 \$2 "
                                                          r"\textasciitilde{}\textasciicircum{}\textbackslash{} -{}-x")
    # Greek letters are their macros (capitals without one look like Latin letters: Α is A), any other
    # non-ASCII letter sits in \\text{} in math mode; in text, Greek letters are set as math.
    assert tex_label("α Δ Α ς λ") == r"\mathrm{\alpha{}\ \Delta{}\ A{}\ \varsigma{}\ \lambda{}}"
    assert tex_label("Weg-ä") == r"\mathrm{Weg\text{-}\text{ä}}"
    assert tex_text("Σyx, ä") == r"$\Sigma$yx, ä"
