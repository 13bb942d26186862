"""Estimates that are honest, and one check done once (session 161).

- ``Derivation.numeric_values`` checked each symbol value (``spec.values.checked_value``: a symbol of
  the task, a number, its assumptions) and then ``Task.value_map`` checked every value again through
  ``Task.keyed``; ``Derivation.summary`` did the same through ``keyed``. Each value is now checked once,
  and every error the check gives is the same (same field, same words).
"""
from __future__ import annotations

import pytest
import sympy as sp

import theorykit as tk
import theorykit.spec.task as task_mod
import theorykit.theory.derivation as derivation_mod
from theorykit.errors import SpecError


# ------------------------------------------------------------------------------------------------
# Derivation.numeric_values / summary: each value checked once
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def xor_der():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3)))
    der.reference           # the modes and their reference point derived first: that check is not the caller's
    return der


def _count_checks(monkeypatch):
    """Every call of ``checked_value`` from the derivation and the task, counted (the real check still runs)."""
    calls = []
    real = derivation_mod.checked_value

    def spy(task, key, value):
        calls.append((str(key), value))
        return real(task, key, value)
    monkeypatch.setattr(derivation_mod, "checked_value", spy)
    monkeypatch.setattr(task_mod, "checked_value", spy)
    return calls


def test_numeric_values_checks_each_value_once(monkeypatch, xor_der):
    calls = _count_checks(monkeypatch)
    vals = xor_der.numeric_values({"Delta": 0.5})
    assert calls == [("Delta", 0.5)]
    # the result is as before: Δ keyed by the task's own symbol, τ and a0 from the spec (τ = 1/η = 100)
    assert vals[xor_der.task.symbols["Delta"]] == 0.5
    assert sp.nsimplify(vals[sp.Symbol("tau", positive=True)]) == 100


def test_summary_checks_each_value_once(monkeypatch, xor_der):
    calls = _count_checks(monkeypatch)
    out = xor_der.summary({"Delta": 1})
    assert calls == [("Delta", 1)]
    # s = √(Δ² + 2)/4 (README, docs/theory.md#xor) at Δ = 1: √3/4
    assert out["point0"]["singular_values_float"][0] == pytest.approx(3 ** 0.5 / 4, rel=1e-12)


@pytest.mark.parametrize("values, field, words", [
    ({"Delta": -1}, "values[Delta]", "nonnegative"),            # against the symbol's assumption
    ({"Delt": 0.5}, "values", "did you mean 'Delta'"),          # a misspelt name
    ({"Delta": "x + 1"}, "values[Delta]", "not a number"),      # an expression, no value
    ({"Delta": True}, "values[Delta]", "needs a number"),
    ("Delta=0.5", "values", "needs a dict"),                    # no mapping at all
])
def test_numeric_values_keeps_every_error(xor_der, values, field, words):
    for call in (xor_der.numeric_values, xor_der.summary):
        with pytest.raises(SpecError) as exc:
            call(values)
        assert exc.value.field == field and words in str(exc.value), str(exc.value)


def test_numeric_values_still_needs_every_symbol(xor_der):
    with pytest.raises(SpecError, match=r"no value for \['Delta'\]"):
        xor_der.numeric_values({})


def test_numeric_values_still_refuses_a_value_other_than_the_fixed_one():
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3)),
                        values={"Delta": 1})
    with pytest.raises(SpecError, match="was fixed when this Derivation was built"):
        der.numeric_values({"Delta": 0.5})
