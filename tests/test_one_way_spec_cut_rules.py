"""One way to do each thing (issue 26), in the spec layer and the top-level modules: copies removed.

Each test pins that the one implementation is the one used (a spy on it, or the copy's absence), and
the behaviour kept against an independent reference: a list written out by hand, itertools, or a
loop written here.

- ``spec.files`` built the context subsets of ``reln = "double" | "single" | "all"`` with its own
  itertools calls, a copy of :func:`theorykit.spec.gating.context_family`; ``bench_derive._double``
  was a third copy. Both now call ``context_family``.
- ``spec.files`` refused a non-positive ``data.context_scale`` itself, with the words ``contexts()``
  then repeated: the check is now ``contexts()``'s alone (same field, same message).
- ``spec.files._TOP`` (a set of the top-level keys) was never read.
- ``spec.expr.data_number`` checked a value real and finite again after ``parse_expr`` had.
- ``spec.task``'s three errors about a task's values each wrote the ``'Delta': 0.5, …`` example of
  their fix; they now share ``_example``.
- ``spec.values.checked_value`` converted a value as ``exact_values`` does, written out again.
- ``spec.limits`` told a width's part of a simulation estimate (``_sized_part``) apart from the
  other parts by a second rule beside ``_kind``'s; ``_kind`` is now the one.
- ``curves``: ``fit_log_scale`` and ``stereotypical`` computed the RMS distance of two curves by
  hand beside :func:`~theorykit.curves.curve_distance`; ``learning_time`` interpolated curve by
  curve in a Python loop, which numpy does for the whole batch.
- ``io.write_figure`` checked its path with its own copy of ``spec.fields.figure_path`` (its fix
  named ".pdf" bare); ``figure_path`` now lives in ``io`` and both use it.
- ``io``: the ``.buffer`` of :class:`~theorykit.io.ReaderMayLeave` wrote out its guarded ``write``,
  ``writelines`` and ``flush`` a second time; it now inherits them.
"""
from __future__ import annotations

import ast
import inspect
import itertools
import math
import os
import textwrap

import numpy as np
import pytest
import sympy as sp

import theorykit.bench_derive as bd
import theorykit.curves as curves
import theorykit.io as tio
import theorykit.spec.expr as expr
import theorykit.spec.files as files
import theorykit.spec.limits as limits
import theorykit.spec.task as task_mod
import theorykit.spec.values as values
from theorykit.errors import SpecError
from theorykit.spec.task import xor_margin


def _spy(monkeypatch, module, name):
    """Replace ``module.name`` by a wrapper that counts its calls (``monkeypatch`` raises where the
    module has no such name: the module does not use it)."""
    calls = []
    real = getattr(module, name)

    def spy(*a, **kw):
        calls.append((a, kw))
        return real(*a, **kw)

    monkeypatch.setattr(module, name, spy, raising=True)
    return calls


def _contexts_spec(reln, n=2, k=4, **data):
    return {"data": {"task": "contexts", "n": n, "k": k, "reln": reln, **data}}


# ------------------------------------------------------------------------------------------------
# context subsets: spec.files and bench_derive take them from gating.context_family
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reln, sizes", [("double", [3]), ("single", [1]), ("all", [1, 2, 3]), ("common", [])])
def test_builtin_context_pathways_take_their_subsets_from_context_family(monkeypatch, reln, sizes):
    calls = _spy(monkeypatch, files, "context_family")
    spec = files.spec_from_dict(_contexts_spec(reln))
    assert bool(calls) == bool(sizes)
    # independent reference: k = 4 contexts, the subsets of each size by itertools, in that order
    want = [S for r in sizes for S in itertools.combinations(range(4), r)]
    got = [tuple(sorted({mu // 2 for mu, g in enumerate(p.active) if g})) for p in spec.pathways[1:]]
    assert spec.pathways[0].name == "common" and got == want
    # a context pathway sees the n = 2 item rows only
    assert all(tuple(p.inputs) == (0, 1) for p in spec.pathways[1:])


def test_the_reln_names_of_contexts_are_listed_as_before():
    with pytest.raises(SpecError) as e:
        files.spec_from_dict(_contexts_spec("doubel"))
    assert e.value.field == "data.reln"
    assert str(e.value) == ("data.reln: 'doubel' is not one of ['all', 'common', 'double', 'single'] (fix: did you "
                            "mean 'double'? Otherwise use one of ['all', 'common', 'double', 'single'] for contexts)")


def test_bench_double_pathways_come_from_context_family():
    assert not hasattr(bd, "_double")
    # common + the k pathways on k − 1 of the k contexts (itertools here), each seeing the n item rows
    paths = bd._paths(3, 4)
    got = [tuple(sorted({mu // 3 for mu, g in enumerate(p.active) if g})) for p in paths[1:]]
    assert got == list(itertools.combinations(range(4), 3))


# ------------------------------------------------------------------------------------------------
# context_scale: refused by contexts() alone
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("scale, shown", [(-1, "-1"), (0, "0"), ("-sqrt(2)", "-sqrt(2)")])
def test_a_context_scale_not_positive_is_refused_by_contexts_alone(monkeypatch, scale, shown):
    calls = _spy(monkeypatch, files, "contexts")
    with pytest.raises(SpecError) as e:
        files.spec_from_dict(_contexts_spec("double", context_scale=scale))
    assert calls, "the spec file's parser refused the scale itself, beside contexts()"
    assert str(e.value) == f"data.context_scale: {shown} is not positive (fix: e.g. context_scale = 1.1)"


def test_a_positive_context_scale_still_scales_the_context_rows():
    spec = files.spec_from_dict(_contexts_spec("double", n=2, k=3, context_scale=1.5))
    # rows n .. n + k − 1 are the one-hot contexts times 3/2 (1.5 read exactly)
    X = spec.task.X
    assert [X[2 + c, c * 2 + i] for c in range(3) for i in range(2)] == [sp.Rational(3, 2)] * 6


def test_the_never_read_set_of_top_keys_is_gone():
    assert not hasattr(files, "_TOP")
    assert files.TOP_KEYS == ("name", "symbols", "data", "pathways", "training", "nodes", "edges", "schedule")


# ------------------------------------------------------------------------------------------------
# spec.expr: data_number checks a value's reality once, in parse_expr
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["sqrt(2)/2", "Delta", "2*Delta - 1", 0.5, 3, sp.Rational(1, 3), sp.sqrt(3)])
def test_data_number_adds_no_second_reality_check(monkeypatch, value):
    calls = _spy(monkeypatch, expr, "check_real_finite")
    D = sp.Symbol("Delta", positive=True)
    expr.parse_expr(value, {"Delta": D}, "f")
    n = len(calls)
    calls.clear()
    expr.data_number(value, "f", {"Delta": D})
    assert len(calls) == n


def test_data_number_still_refuses_what_is_not_real_finite_or_in_range():
    # by hand: 0.5 is 1/2 exactly, sqrt(8)/2 is sqrt(2); 1e7 > 1e6; 1e-7 < 1e-6
    assert expr.data_number(0.5, "f") == sp.Rational(1, 2) and expr.data_number("sqrt(8)/2", "f") == sp.sqrt(2)
    for value, words in (("sqrt(-2)", "imaginary"), ("1/0", "division by zero"), ("(-8)**(1/3)", "complex"),
                         (1e7, "too large"), ("1e-7", "too small"), (float("nan"), "not a finite number")):
        with pytest.raises(SpecError) as e:
            expr.data_number(value, "data.inputs[0][1]")
        assert e.value.field == "data.inputs[0][1]" and words in e.value.problem, (value, str(e.value))


# ------------------------------------------------------------------------------------------------
# spec.task: the values example of the fixes, written once
# ------------------------------------------------------------------------------------------------
def test_the_fixes_about_values_share_one_example(monkeypatch):
    monkeypatch.setattr(task_mod, "_example", lambda names: "SPY", raising=True)
    with pytest.raises(SpecError) as e:
        task_mod.checked_values_map("Delta=0.5", ["Delta"])
    assert e.value.fix == "e.g. values={SPY}"
    assert task_mod.no_value_error([sp.Symbol("a")]).fix.startswith("pass values: values={SPY} in Python")


def test_the_values_examples_read_as_before():
    # written out by hand: names sorted, each 0.5; 'Delta' where the task has no symbol to name
    with pytest.raises(SpecError) as e:
        task_mod.checked_values_map([0.5], ["b", "a"])
    assert e.value.fix == "e.g. values={'a': 0.5, 'b': 0.5}"
    with pytest.raises(SpecError) as e:
        task_mod.checked_values_map("x", ())
    assert e.value.fix == "e.g. values={'Delta': 0.5}"
    err = task_mod.no_value_error({sp.Symbol("b"), sp.Symbol("a")})
    assert str(err) == ("symbols: no value for ['a', 'b'] (fix: pass values: values={'a': 0.5, 'b': 0.5} in Python, "
                        "--set a=0.5 --set b=0.5 on the command line)")


# ------------------------------------------------------------------------------------------------
# spec.values: checked_value converts as exact_values does, by calling it
# ------------------------------------------------------------------------------------------------
def test_checked_value_converts_through_exact_values(monkeypatch):
    calls = _spy(monkeypatch, values, "exact_values")
    task = xor_margin()
    assert values.checked_value(task, "Delta", 0.5) == task.symbols["Delta"]
    assert calls == [(({"Delta": 0.5},), {})]


@pytest.mark.parametrize("value", [-0.5, "-1/2", -1, sp.Rational(-1, 2)])
def test_checked_value_still_refuses_a_value_against_the_assumptions(value):
    # Delta of xor_margin() is nonnegative: −1/2 (a float, a string, an int or SymPy's) is refused
    with pytest.raises(SpecError) as e:
        values.checked_value(xor_margin(), "Delta", value)
    assert e.value.field == "values[Delta]" and "nonnegative" in e.value.problem


def test_checked_value_still_names_what_is_no_number():
    with pytest.raises(SpecError) as e:
        values.checked_value(xor_margin(), "Delta", "x + 1")
    assert e.value.field == "values[Delta]"
    with pytest.raises(SpecError) as e:
        values.checked_value(xor_margin(), "Delta", True)
    assert e.value.field == "values[Delta]" and "boolean" in e.value.problem


# ------------------------------------------------------------------------------------------------
# spec.limits: one rule for which parts are a width's
# ------------------------------------------------------------------------------------------------
def test_the_width_parts_of_an_estimate_are_told_by_kind_alone():
    assert not hasattr(limits, "_sized_part")
    # by hand: 2 seeds; parts (field, seconds, bytes, value, power)
    est = limits.Estimate("simulation")
    est.add("pathways[0].hidden", 3.0, 30.0, 8, 1.0).add("edges[1]", 5.0, 50.0, 4, 1.0)
    est.add("nodes[2].width", 7.0, 70.0, 4, 1.0).add("training.steps", 11.0, 110.0, 100, 1.0)
    est.add("compile", 13.0, 0.0, None, 0.0).add("pathways[3]", 17.0, 170.0, None, 3.0)
    est.steps_field, est.seeds_field, est.steps, est.seeds = "training.steps", "--seeds", 100.0, 2.0
    seconds = {f: c for f, _v, c, _p in limits._candidates(est, 1)}
    nbytes = {f: c for f, _v, c, _p in limits._candidates(est, 2)}
    # the seeds drive the widths' parts, 3 + 5 + 7 = 15 s (not pathways[3], no width); the steps those
    # and their own 11 s; in memory the seeds drive the widths' 30 + 50 + 70 and the steps' 110 bytes
    assert seconds["--seeds"] == 15.0 and seconds["training.steps"] == 15.0 + 11.0
    assert nbytes["--seeds"] == 150.0 + 110.0


# ------------------------------------------------------------------------------------------------
# curves: one RMS distance; learning_time vectorised
# ------------------------------------------------------------------------------------------------
def test_fit_log_scale_and_stereotypical_measure_with_curve_distance(monkeypatch):
    calls = _spy(monkeypatch, curves, "curve_distance")
    # log losses [0, 0], [ln 4, ln 4], [ln 2, ln 2]: their mean is ln 2, which run 2 is
    assert curves.stereotypical(np.array([[1.0, 1.0], [4.0, 4.0], [2.0, 2.0]])) == 2
    n = len(calls)
    assert n >= 1
    # a·(1, 1, 1) against 10⁻³·(1, 1, 1): the distance vanishes at a = 10⁻³ (bounded search, log10 ± 10⁻⁴)
    a, dist = curves.fit_log_scale(lambda a: a * np.ones(3), 1e-3 * np.ones(3))
    assert len(calls) > n
    assert math.isclose(a, 1e-3, rel_tol=1e-3) and dist < 1e-6


def _learning_time_by_hand(c, frac, times):
    """Curve by curve: the first point at or below frac × L(0); the time interpolated linearly between
    it and the point before (np.interp on that segment), the first time if it is the first point."""
    for j, y in enumerate(c):
        if y <= frac * c[0]:
            if j == 0:
                return times[0]
            return float(np.interp(frac * c[0], [y, c[j - 1]], [times[j], times[j - 1]]))
    return np.nan


def test_learning_time_matches_a_segment_by_segment_reference():
    rng = np.random.default_rng(7)
    for shape in [(5,), (3, 6), (2, 3, 4), (4, 1), (1, 2)]:
        c = 3.0 - np.cumsum(rng.random(shape), axis=-1)          # falling curves, some never below half
        c[..., 0] = 3.0
        times = np.sort(rng.random(shape[-1])) * 100
        for frac in (0.5, 0.9, 0.1, 1.0):
            got = curves.learning_time(c, frac, times=times)
            want = np.array([_learning_time_by_hand(row, frac, times) for row in c.reshape(-1, shape[-1])])
            assert got.shape == shape[:-1]
            np.testing.assert_allclose(got.reshape(-1), want, rtol=1e-12, atol=0)


def test_learning_time_never_and_nan_and_one_point():
    # by hand: 4 → 3 → 1 reaches 2 (half of 4) between t = 1 and t = 2, at 1 + (3 − 2)/(3 − 1) = 1.5
    assert float(curves.learning_time([4.0, 3.0, 1.0])) == 1.5
    assert np.isnan(curves.learning_time([4.0, 3.0, 2.5]))                   # never
    assert np.isnan(curves.learning_time([4.0, np.nan, 1.0]))                # the point before is NaN
    # one point: 4 is not at or below 2 (never); 0 is at 0 at once (t = 0)
    np.testing.assert_array_equal(curves.learning_time([[4.0], [0.0]], 0.5), [np.nan, 0.0])
    assert float(curves.learning_time([4.0, 3.0, 1.0], initial=10.0)) == 0.0     # 4 ≤ 5 at once


def test_learning_time_has_no_loop_over_the_curves():
    tree = ast.parse(textwrap.dedent(inspect.getsource(curves.learning_time)))
    loops = (ast.For, ast.While, ast.comprehension)
    assert not [type(n).__name__ for n in ast.walk(tree) if isinstance(n, loops)]


# ------------------------------------------------------------------------------------------------
# io: the guarded buffer inherits the guarded writes
# ------------------------------------------------------------------------------------------------
def test_the_guarded_buffer_inherits_write_writelines_and_flush():
    assert issubclass(tio._LeftBytes, tio.ReaderMayLeave)
    for name in ("write", "writelines", "flush", "__getattr__"):
        assert name not in vars(tio._LeftBytes), name


def test_the_guarded_buffer_still_drops_the_rest_once_the_reader_left():
    r, w = os.pipe()
    os.close(r)                                   # the reader left: a write is EPIPE
    stream = open(w, "w")
    try:
        out = tio.ReaderMayLeave(stream)
        data = memoryview(bytearray(b"xy" * (1 << 19))).cast("H")     # 2¹⁹ items of 2 bytes: 2²⁰ bytes
        assert out.buffer.write(data) == 1 << 20   # its bytes, not its 2¹⁹ items
        assert out.reader_left and out.buffer.reader_left
        assert out.buffer.write(b"abc") == 3 and out.write("text\n") == 5
        out.buffer.writelines([b"a", b"b"])
        out.buffer.flush()
        assert out.buffer.closed is False          # any other attribute is the binary buffer's own
    finally:
        stream.close()


# ------------------------------------------------------------------------------------------------
# io and spec.fields: one check of a figure's path
# ------------------------------------------------------------------------------------------------
def test_write_figure_checks_its_path_with_figure_path(monkeypatch, tmp_path):
    calls = _spy(monkeypatch, tio, "figure_path")
    bad = tmp_path / "loss.jpg"
    with pytest.raises(SpecError) as e:
        tio.write_figure(tio.new_figure(), bad)
    assert calls
    # the fix names both endings, as spec.fields.figure_path's did (write_figure's own named ".pdf" bare)
    assert str(e.value) == (f"path: {bad} does not end in .png, .pdf or .svg, the formats a figure is written in "
                            "(fix: name it e.g. loss.png, or loss.pdf for a paper)")
    assert not bad.exists()


def test_the_spec_fields_figure_path_is_the_one_of_io(tmp_path):
    from theorykit.spec import fields

    assert fields.figure_path is tio.figure_path and "figure_path" in fields.__all__
    assert fields.figure_path("a/b.SVG", "--plot") == "a/b.SVG"
    with pytest.raises(SpecError) as e:
        fields.figure_path("out/loss.jpeg", "--plot")
    assert str(e.value) == ("--plot: out/loss.jpeg does not end in .png, .pdf or .svg, the formats a figure is written "
                            "in (fix: name it e.g. loss.png, or loss.pdf for a paper)")
    # each ending is written in its own format: the file begins as that format begins
    for ending, head in ((".png", b"\x89PNG"), (".pdf", b"%PDF"), (".svg", b"<?xml")):
        path = tio.write_figure(tio.new_figure(figsize=(1, 1)), tmp_path / f"f{ending.upper()}")
        assert path.read_bytes().startswith(head), ending
