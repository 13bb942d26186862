"""Rules found untested by a hand mutation check of the spec layer, the result files and the records
(theorykit/spec/files.py, expr.py, task.py, fields.py, graph.py, gating.py, values.py, limits.py;
theorykit/record.py, io.py and report.py), by a mutation tester of the spec layer.

Each test kills a mutant that the earlier test files let through (a bound moved, a check skipped, a
refusal dropped), or pins a defect the mutation check found. Every expected value comes from
docs/specs.md, a hand derivation in a comment, Python's fractions module or a second method computed
here, never from a run of the code under test. Everything is tiny and fast.
"""
from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from theorykit.errors import SpecError


@pytest.mark.parametrize("value", [sp.nan, sp.zoo, sp.oo, -sp.oo, sp.Float("inf"), sp.Symbol("x") + sp.oo,
                                   complex(float("nan"), 0)])
def test_jsonable_refuses_sympy_and_complex_non_finite_numbers(value, tmp_path):
    """io.jsonable's docstring: it "refuses NaN and infinity (they are never written)". SymPy's nan, zoo
    and oo went through str() and were written as the strings "nan", "zoo", "oo" (a derived quantity
    that came out infinite read as a value in the result file); they are refused as a float NaN is, and
    the file is not made."""
    from theorykit.io import jsonable, write_json
    with pytest.raises(ValueError, match="non-finite"):
        jsonable({"loss": [1.0, value]})
    out = tmp_path / "r.json"
    with pytest.raises(ValueError):
        write_json(out, {"x": value})
    assert not out.exists()


def test_jsonable_still_writes_finite_sympy_numbers_as_their_text():
    """The refusal is for non-finite values only: an exact rational and a radical stay the text that
    parse_expr reads back (docs/specs.md: expression strings)."""
    from theorykit.io import jsonable
    got = json.loads(json.dumps(jsonable({"a": sp.Rational(1, 10), "b": sp.sqrt(2) / 2})))
    assert got == {"a": "1/10", "b": "sqrt(2)/2"}


def test_saveat_refuses_a_recording_step_past_the_last_step():
    """SaveAt.times(t_end, integer=True): the trainer's steps to record must be whole steps in
    0..t_end (its error says so). A run of 10 steps has no step 11: asking for it is refused naming
    save.ts, not silently dropped (the bound was loosened by one and no test noticed)."""
    from theorykit.record import SaveAt
    assert SaveAt(ts=[0, 10]).times(10, integer=True).tolist() == [0, 10]     # the last step itself is fine
    with pytest.raises(SpecError, match="save.ts") as err:
        SaveAt(ts=[0, 11]).times(10, integer=True)
    assert "0..10" in str(err.value)


def test_loss_at_refuses_a_member_one_past_the_last():
    """Trajectory.loss_at(times, batch): a run of 2 members has members 0 and 1 (and -1, -2 from the
    end, as Python indexes); batch=2 is refused by name as a SpecError, not an IndexError from numpy."""
    from theorykit.record import Trajectory
    tr = Trajectory(t=np.array([0.0, 10.0]), loss=np.array([[1.0, 0.0], [2.0, 4.0]]), saved={}, saved_t=np.array([]))
    # linear interpolation at t = 5, by hand: member 1 is (2 + 4) / 2 = 3, member -2 is member 0: 0.5
    assert tr.loss_at([5.0], batch=1).tolist() == [3.0]
    assert tr.loss_at([5.0], batch=-2).tolist() == [0.5]
    for bad in (2, -3):
        with pytest.raises(SpecError, match="batch"):
            tr.loss_at([5.0], batch=bad)


_ONE_PATHWAY = """
[data]
inputs = [[1, 1]]
targets = [[1, -1]]
[[pathways]]
name = "a"
active = "all"
"""


def _spec(text):
    from theorykit.spec.files import spec_from_dict
    from theorykit.spec.toml_text import parse_toml
    return spec_from_dict(parse_toml(text.encode(), "t.toml"))


@pytest.mark.parametrize("name", ["D\\n", "D\\t", " D"])
def test_symbol_name_with_a_trailing_newline_is_refused(name):
    """docs/specs.md: a symbol NAME is "an ASCII letter, then letters, digits, `_`". A quoted TOML key
    "D\\n" passed the check (a regex's `$` also matches before a final newline): the spec then held a
    symbol no expression can name, and spec_to_toml wrote it back as a broken bare key."""
    with pytest.raises(SpecError, match="symbols") as err:
        _spec(f'[symbols]\n"{name}" = {{positive = true}}\n' + _ONE_PATHWAY)
    assert "not a usable symbol name" in str(err.value)


def test_fraction_values_are_read_exactly():
    """Python's exact rational, fractions.Fraction, is a number (numbers.Rational): values, the task
    builders and parse_expr read it as the same rational, where it was refused as "expected a number"."""
    from fractions import Fraction

    import theorykit as tk
    from theorykit.spec.expr import parse_expr, to_exact
    from theorykit.spec.values import exact_values
    assert to_exact(Fraction(1, 10)) == sp.Rational(1, 10)
    assert parse_expr(Fraction(-2, 6), {}) == sp.Rational(-1, 3)
    assert exact_values({"Delta": Fraction(1, 3)})["Delta"] == sp.Rational(1, 3)
    # xor-margin's third row is (Δ, Δ, −Δ, −Δ) (docs/specs.md: x = (±1, ±1, ±Δ))
    assert tk.xor_margin(Fraction(1, 3)).X.row(2).tolist() == [[sp.Rational(1, 3)] * 2 + [-sp.Rational(1, 3)] * 2]


def test_spec_file_over_16_mib_is_refused_before_it_is_read(tmp_path):
    """docs/specs.md: "A spec file may be at most 16 MiB." A file one byte over (a sparse file, so the
    test writes nothing) is refused naming spec, by its size."""
    from theorykit.spec.files import load_spec
    big = tmp_path / "big.toml"
    with open(big, "wb") as fh:
        fh.truncate(16 * 2 ** 20 + 1)
    with pytest.raises(SpecError, match="larger than") as err:
        load_spec(big)
    assert err.value.field == "spec"


@pytest.mark.parametrize("text, ok", [("1000000", True), ("1e6", True), ("1000000.000001", False),
                                      ("-1000000.0000000000001", False), ("0.000001", True),
                                      ("0.00000099999999999", False), ("0.0", True)])
def test_data_range_is_checked_exactly_at_its_ends(text, ok):
    """docs/specs.md: a plain number in the data must "be 0 or between 1e-6 and 1e6 in magnitude", and
    "0.1 is 1/10": the number is exact, so is the range. 1000000.000001 is 10**6 + 10**-6 (fractions:
    Fraction("1000000.000001") > 10**6), over the end; a log10 with slack 1e-12 let it through."""
    from fractions import Fraction
    f = abs(Fraction(text))
    assert ok == (f == 0 or Fraction(1, 10 ** 6) <= f <= 10 ** 6)     # the docs' rule, by Python's fractions
    toml = f"[data]\ninputs = [[{text}, 1]]\ntargets = [[1, -1]]\n[[pathways]]\nname = \"a\"\nactive = \"all\"\n"
    if ok:
        assert _spec(toml).task.X[0, 0] == sp.Rational(Fraction(text).numerator, Fraction(text).denominator)
    else:
        with pytest.raises(SpecError, match=r"data\.inputs\[0\]\[0\]"):
            _spec(toml)


@pytest.mark.parametrize("times", [[-0.5], [0.0, -1e-9, 3.0]])
def test_checked_times_refuses_any_negative_time(times):
    """values.checked_times: "finite gradient steps t ≥ 0". A time just below 0 (-0.5, -1e-9) is
    refused naming times, as -1 is: the run starts at step 0."""
    from theorykit.spec.values import checked_times
    assert checked_times([0.0, 0.5]).tolist() == [0.0, 0.5]
    with pytest.raises(SpecError, match="times"):
        checked_times(times)


def test_derivation_values_are_substituted_as_exact_rationals():
    """docs/specs.md: "0.1 is 1/10". values={"Delta": 0.1} given to a Derivation is substituted as the
    rational 1/10 (exact_values), not as SymPy's binary Float 0.1000000000000000055511151231257827:
    the third input row of xor-margin is then (Δ, Δ, −Δ, −Δ) = (1/10, 1/10, −1/10, −1/10)."""
    import theorykit as tk
    from theorykit.spec.values import exact_values
    assert exact_values({"Delta": 0.1}) == {"Delta": sp.Rational(1, 10)}
    assert all(v.is_Rational for v in exact_values({"a": 0.25, "b": 3, "c": np.float64(0.1)}).values())
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]), values={"Delta": 0.1})
    row = der.spec.task.X.row(2)
    assert all(e.is_Rational for e in row)
    assert list(row) == [sp.Rational(1, 10)] * 2 + [-sp.Rational(1, 10)] * 2


@pytest.mark.parametrize("every", [float("inf"), float("nan"), True, "3", 0, -2.0])
def test_saveat_every_must_be_a_finite_positive_number(every):
    """SaveAt's docstring: with ``every`` a run records at 0, every, 2·every, … below its end, and the end.
    every=inf recorded the end alone (no multiple of inf is a time, so not even t = 0), every="3" failed
    with a TypeError and every=True read as 1: each is refused naming save.every."""
    from theorykit.record import SaveAt
    with pytest.raises(SpecError, match="save.every"):
        SaveAt(every=every).times(100)


def test_saveat_every_grid_by_hand():
    """The grid of SaveAt(every=30) to t_end = 100, by the docstring: 0, 30, 60, 90 (below 100), then 100;
    as the trainer's whole steps with every = 2.5 to 10: 0, 2.5→2, 5, 7.5→8 (numpy rounds half to even),
    10. An every larger than the run still records 0 and the end."""
    from theorykit.record import SaveAt
    assert SaveAt(every=30).times(100).tolist() == [0.0, 30.0, 60.0, 90.0, 100.0]
    assert SaveAt(every=2.5).times(10, integer=True).tolist() == [0, 2, 5, 8, 10]
    assert SaveAt(every=1e9).times(100).tolist() == [0.0, 100.0]


def test_human_bytes_moves_to_the_next_unit_when_rounding_reaches_1000():
    """The size in every limit error: 999 999 bytes is 0.999999 MB, which to 3 significant figures is
    1.00 MB (hand rounding); it read "1e+03 KB" (the unit was picked before rounding)."""
    from theorykit.spec.limits import human_bytes
    assert human_bytes(999) == "999 B"
    assert human_bytes(999_999) == "1 MB"
    assert human_bytes(999.6) == "1 KB"
    assert human_bytes(1.2e6) == "1.2 MB"


def test_report_counts_a_refuted_or_false_claim_as_not_borne_out():
    """docs/contributing.md: verdicts are "confirmed", "partly", "not borne out" or "n/a", and "a word
    the report does not know counts as n/a". A claim a suite calls "refuted", or whose verdict is the
    boolean False (its check failed), says the paper's claim did not hold: "not borne out", never the
    neutral n/a, which would hide it from the summary's count of claims that failed. True is confirmed;
    "partially" (any case) is partly, not confirmed."""
    from theorykit.report import build_results, render_markdown
    claims = [{"claim": "a", "ours": 1, "agreement": "x", "verdict": "refuted"},
              {"claim": "b", "ours": 1, "agreement": "x", "verdict": False},
              {"claim": "c", "ours": 1, "agreement": "x", "verdict": True},
              {"claim": "d", "ours": 1, "agreement": "x", "verdict": "a word nobody uses"},
              {"claim": "e", "ours": 1, "agreement": "x", "verdict": "Partially"}]
    res = build_results("quick", {"s": {"claims": claims}})
    assert [r["verdict_class"] for r in res["claims"]] == ["not borne out", "not borne out", "confirmed", "n/a",
                                                            "partly"]
    assert res["verdict_counts"] == {"confirmed": 1, "partly": 1, "not borne out": 2, "n/a": 1, "failed": 0}
    assert "**not borne out (refuted)**" in render_markdown(res)


def test_is_special_is_false_for_a_folder_and_a_regular_file(tmp_path):
    """io.is_special's docstring: an existing file "that is not a regular file or a folder" (a device,
    a pipe). Its callers check for a folder first, so a mutant that called a folder special survived
    them; the function's own contract is pinned here. /dev/null is a character device."""
    import os
    import stat

    from theorykit.io import is_special
    f = tmp_path / "f.json"
    f.write_text("{}")
    assert not is_special(tmp_path) and not is_special(f) and not is_special(tmp_path / "missing")
    if os.path.exists("/dev/null") and stat.S_ISCHR(os.stat("/dev/null").st_mode):
        assert is_special("/dev/null")


@pytest.mark.parametrize("value", ["2000000", "1e-7", "-1e7"])
def test_set_value_obeys_the_data_range(value):
    """docs/specs.md: "Symbol values given with --set obey the same range" as data (0 or 1e-6 … 1e6 in
    magnitude). parse_assignment refuses an out-of-range value itself, naming --set Delta; an exact
    in-range one is read exactly (0.1 is 1/10)."""
    from theorykit.spec.files import parse_assignment
    D = sp.Symbol("Delta", real=True)
    assert parse_assignment("Delta=0.1", {"Delta": D}) == (D, sp.Rational(1, 10))
    assert parse_assignment("Delta = 1e6", {"Delta": D}) == (D, sp.Integer(10) ** 6)
    with pytest.raises(SpecError, match="--set Delta"):
        parse_assignment(f"Delta={value}", {"Delta": D})


def test_hierarchy_needs_a_power_of_two_and_is_the_binary_tree():
    """docs/specs.md: data.n is "a power of two for "hierarchy"". By hand, the hierarchy of n = 4 items
    has a root row, two rows of two items and four rows of one item (docs: for h = 1, 2, 4, …, n, h rows
    each on a block of n/h items). n = 6 has no such tree and is refused naming n (in a spec file
    data.common, the field the structure came from), not built as some uneven matrix."""
    from theorykit.spec.task import hierarchy
    assert hierarchy(4).tolist() == [[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1],
                                     [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    with pytest.raises(SpecError, match="power of two"):
        hierarchy(6)
    with pytest.raises(SpecError, match=r"data\.common"):
        _spec('[data]\ntask = "contexts"\nn = 6\nk = 2\nreln = "single"\n')
