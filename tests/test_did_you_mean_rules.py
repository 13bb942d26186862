"""A misspelt symbol or pathway name is answered with the name meant, where one is close.

Before, `values={"Delt": 0.5}`, `--set delta=1` and `der.modes["pont0"]` listed the names there are
and said to drop the key or to use one of them; the reader had to spot the slip. Now the fix names
the closest (difflib's ratio of at least 0.6, its default), and a name close to none keeps the old fix.
Every expected line is written by hand from the xor example (its one symbol Delta, its pathways
point0 … point3).
"""
from __future__ import annotations

import pytest

import theorykit as tk
from theorykit.cli import main
from theorykit.errors import SpecError

XOR = "examples/xor_reln.toml"


@pytest.fixture(scope="module")
def spec():
    return tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.01, a0=1e-3))


@pytest.mark.parametrize("key, fix", [
    ("Delt", "did you mean 'Delta'? Otherwise drop it from the values"),
    ("x", "drop it from the values"),
])
def test_a_misspelt_value_name(spec, key, fix):
    with pytest.raises(SpecError) as info:
        tk.simulate(spec, values={key: 0.5}, steps=10)
    assert str(info.value) == f"values: the task has no symbol {key!r} (its symbols: ['Delta']) (fix: {fix})"


@pytest.mark.parametrize("key, fix", [("pont0", "did you mean 'point0'?"), ("zzz", "use one of those names")])
def test_a_misspelt_pathway_name(spec, key, fix):
    with pytest.raises(KeyError) as info:
        tk.Derivation(spec).modes[key]
    assert str(info.value.args[0]) == (f"pathway: {key!r} is no pathway here; the pathways are "
                                       f"['point0', 'point1', 'point2', 'point3'] (fix: {fix})")


@pytest.mark.parametrize("assignment, fix", [
    ("delta=1", "did you mean --set Delta=1? the spec declares ['Delta']"),
    ("q=1", "the spec declares ['Delta']"),
])
def test_a_misspelt_set_name(capsys, assignment, fix):
    assert main(["derive", XOR, "--set", assignment]) == 2
    name = assignment.split("=")[0]
    assert capsys.readouterr().err.strip() == f"theorykit: error in --set: unknown symbol {name!r} (fix: {fix})"
