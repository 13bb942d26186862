"""The reference point of a symbolic derivation lies in each symbol's domain.

With symbols left free, `derive` orders the modes and prints the ``*_float`` fields at fixed reference
values (:func:`theorykit.theory.modes.reference_values`). These were 7/10, 13/10, … whatever the
symbol's assumptions, so a Δ declared negative was evaluated at +7/10: the XoR "linear" pathway's
singular value, exactly ``|Δ|/2`` (by hand below), simplifies to ``−Δ/2`` for Δ < 0 and was printed
as −0.35, a negative singular value.
"""
from __future__ import annotations

import json

import pytest
import sympy as sp

from theorykit.cli import main
from theorykit.theory.modes import reference_values

EXAMPLE = "examples/xor_linear.toml"

# every fact SymPy derives from the declared assumptions must hold at the value (SymPy decides both)
DECLARED = [{}, {"positive": True}, {"positive": False}, {"nonnegative": True}, {"nonnegative": False},
            {"nonnegative": False, "real": True}, {"negative": True}, {"nonpositive": True}, {"real": True},
            {"nonzero": True}, {"integer": True}, {"integer": True, "positive": False},
            {"integer": True, "nonnegative": True}]


@pytest.mark.parametrize("assumptions", DECLARED, ids=str)
def test_the_reference_value_has_every_fact_of_its_symbol(assumptions):
    s = sp.Symbol("x", **assumptions)
    v = reference_values([s])[s]
    for fact, holds in s.assumptions0.items():
        assert getattr(v, f"is_{fact}") == holds, (assumptions, v, fact)


def test_several_symbols_get_distinct_values_in_their_domains():
    syms = [sp.Symbol("a", integer=True), sp.Symbol("b", integer=True, positive=False),
            sp.Symbol("c", negative=True), sp.Symbol("d")]
    ref = reference_values(syms)
    assert len(set(map(abs, ref.values()))) == 4
    assert ref[syms[0]] > 0 and ref[syms[1]] < 0 and ref[syms[2]] < 0 and ref[syms[3]] > 0
    assert ref[syms[0]].is_integer and ref[syms[1]].is_integer


def test_a_negative_delta_gets_a_nonnegative_singular_value(tmp_path):
    """XoR with margin, the "positive" pathway: datapoints (1, 1, Δ) and (−1, −1, Δ), both labelled
    +1, of P = 4. Σyx = ¼[(1, 1, Δ) + (−1, −1, Δ)] = (0, 0, Δ/2), one singular value |Δ|/2: 0.35 at
    Δ = −7/10, never −0.35."""
    text = open(EXAMPLE).read().replace("Delta = {nonnegative = true}", "Delta = {nonnegative = false, real = true}")
    assert "real = true" in text
    spec = tmp_path / "neg.toml"
    spec.write_text(text)
    out = tmp_path / "d.json"
    assert main(["derive", str(spec), "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["reference_values"] == {"Delta": "-7/10"}
    for name in ("positive", "negative"):
        assert d["pathways"][name]["singular_values_float"] == [pytest.approx(0.35, rel=1e-12)]


def test_a_symbol_declared_not_positive_is_zero_tested_on_its_own_domain():
    """``positive = false`` alone (no ``real``): the domain is C ∖ (0, ∞). There, −x is off the cut
    (−∞, 0], arg(−1/x) = −arg(−x), so √(−x)·√(−1/x) = 1 and f = √(−x)√(−1/x) − 1 vanishes; at x > 0,
    outside it, both roots are i·(…) and f = −2. ``is_zero``'s numeric points took such a symbol as
    positive: a sum of f·(x + k)², too large to simplify, was called non-zero."""
    from theorykit.theory.modes import SIMPLIFY_MAX_OPS, is_zero

    x = sp.Symbol("x", positive=False)
    f = sp.sqrt(-x) * sp.sqrt(-1 / x) - 1
    h = sp.Rational(1, 2)
    for v in (-h, -sp.Rational(23, 10), h + h * sp.I, h - h * sp.I, -sp.I):    # 30 digits: zero on the domain
        assert abs(complex(f.subs(x, v).evalf(30))) < 1e-25
    assert complex(f.subs(x, h).evalf(30)) == pytest.approx(-2)   # and not off it
    g = sum(f * (x + k) ** 2 for k in range(1, 40))
    assert sp.count_ops(g) > SIMPLIFY_MAX_OPS
    assert is_zero(g)
    assert not is_zero(g + x)
    # declared real too, the domain is (−∞, 0] and SymPy folds f to 0 itself
    assert sp.simplify(f.subs(x, sp.Symbol("x", positive=False, real=True))) == 0


def test_values_outside_a_symbols_domain_are_refused_everywhere_they_are_keyed():
    """Task.keyed is where every value meets its symbol: the data (`numeric`), `subs` and the race took
    Δ = −2 for a Δ declared nonnegative, though `Derivation` and `simulate` refused it. The XoR data at
    Δ = 1/2 (docs/theory.md#xor): x = (1, 1, Δ), (−1, −1, Δ), (1, −1, −Δ), (−1, 1, −Δ) as columns."""
    import numpy as np

    import theorykit as tk
    from theorykit.errors import SpecError

    spec = tk.load_spec(EXAMPLE)
    for call in (lambda v: spec.task.numeric(v), lambda v: spec.subs(v),
                 lambda v: tk.RaceSystem.from_spec(spec, values=v)):
        with pytest.raises(SpecError, match=r"nonnegative") as e:
            call({"Delta": -2})
        assert e.value.field == "values[Delta]"
    X, Y = spec.task.numeric({"Delta": 0.5})
    np.testing.assert_array_equal(X, [[1, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])
    np.testing.assert_array_equal(Y, [[1, 1, -1, -1]])


def test_a_modes_floats_take_values_keyed_by_name():
    """The "positive" pathway's s = |Δ|/2 (by hand, above): 1 at Δ = 2, whether keyed by the name or by a
    plain Symbol of that name (the task's Delta carries nonnegative = true, so SymPy counts them as other
    symbols and the value was not substituted: "Cannot convert expression to float"). A missing value is
    named."""
    import theorykit as tk
    from theorykit.errors import SpecError

    m = tk.Derivation(tk.load_spec(EXAMPLE)).modes["positive"].modes[0]
    assert m.s_float({"Delta": 2}) == pytest.approx(1.0, rel=1e-15)
    assert m.s_float({sp.Symbol("Delta"): 2}) == pytest.approx(1.0, rel=1e-15)
    with pytest.raises(SpecError, match=r"no value for \['Delta'\]"):
        m.s_float({})


def test_sweep_notes_are_the_command_lines_notes(tmp_path, capsys):
    """Every command writes its notes to stderr as `theorykit: note: …`; sweep printed `note: …` to
    stdout, mixed into its result line. An aligned sweep always notes that its seeds differ only by a
    rotation (analysis.sweep)."""
    assert main(["sweep", EXAMPLE, "--grid", "Delta=0.5", "--seeds", "2", "--steps", "5", "--out",
                 str(tmp_path / "sw"), "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("sweep: 2 members") and "note:" not in out
    assert "theorykit: note: aligned starts" in err


def test_predict_writes_its_spec_as_every_command_does(tmp_path, monkeypatch, capsys):
    """`predict --out` wrote its spec with atomic_write_text beside the command line's write_spec, so the
    spec was never read back before it was written (find-gates' is) and an unwritable path was not
    named by --out. It now goes through write_spec: the record line first, a spec that loads back."""
    import json

    import theorykit.cli.predict as cli_predict
    from theorykit.cli import common
    from theorykit.spec.files import load_spec

    used = []
    monkeypatch.setattr(cli_predict, "write_spec", lambda *a: used.append(a[0]) or common.write_spec(*a))
    out, js = tmp_path / "p.toml", tmp_path / "p.json"
    assert main(["predict", EXAMPLE, "--set", "Delta=0.5", "--hidden", "8", "--out", str(out), "--json", str(js),
                 "--no-progress"]) == 0
    assert used == ["--out"]
    text = out.read_text()
    assert text.startswith(common.COMMENT)
    spec = load_spec(out)
    assert sum(p.hidden for p in spec.pathways) == 8 and spec.task.P == 4
    doc = json.loads(js.read_text())
    assert doc["prediction"] and doc["provenance"]["command"].startswith("theorykit predict")
    assert f"wrote {out}" in capsys.readouterr().out
