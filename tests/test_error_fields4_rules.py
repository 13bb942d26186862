"""The Python API's last loose ends (errors, round 4): the task builders' size guard, the one bound of
gradient steps, hidden widths by the one integer rule, and summaries that hand back copies.

Golden numbers are worked out by hand in the comments (sizes of the context task: docs/theory.md#contexts,
X is (n + k) × n·k, Y has the common structure's rows plus each context's; a hierarchy of n items has
2n − 1 rows; the size estimate counts 200 bytes per exact entry, theorykit/spec/limits.py)."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import theorykit as tk
from theorykit.analysis._runs import train_gdln, train_gdln_many, train_relu
from theorykit.analysis.compare import Comparison
from theorykit.analysis.findgates import FoundGates
from theorykit.analysis.predict import predict_reln
from theorykit.analysis.predict_validate import Validation
from theorykit.errors import SpecError
from theorykit.spec.files import spec_from_dict
from theorykit.spec.limits import Limits
from theorykit.spec.task import contexts, hierarchy, structure


def _refused_without_allocating(call):
    """The SpecError ``call`` raises, and the most memory (bytes) Python allocated while it ran."""
    tracemalloc.start()
    try:
        with pytest.raises(SpecError) as ei:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return ei.value, peak


# ---------------------------------------------------------------------------------------------
# 1. the task builders' size guard (the spec loader's estimate and limits)
# ---------------------------------------------------------------------------------------------
def test_contexts_with_a_billion_contexts_is_refused_before_anything_is_built():
    """contexts(2, 10**9) hung (a list of 10**9 block names, then 10**9 structures). Now refused by the
    spec loader's size estimate, naming k, with the size it would build. By hand: P = n·k = 2·10**9
    datapoints, n + k = 1 000 000 002 inputs, outputs 3 (hierarchy of 2: 2n − 1) + 3·10**9 =
    3 000 000 003; entries (d + p)·P = 4 000 000 005 × 2·10**9 ≈ 8.0e18, × 200 B = 1.6e21 B = 1.6e3 EB."""
    err, peak = _refused_without_allocating(lambda: tk.contexts(2, 10 ** 9))
    assert err.field == "k"          # the keyword (a spec file's data.k is checked before contexts() is called)
    text = str(err)
    assert "2000000000 datapoints × 1000000002 inputs and 3000000003 outputs" in text
    assert "1.6e+03 EB" in text
    assert "lower k from 1000000000 to at most" in text
    assert "THEORYKIT_MAX_BYTES" in text and "limits=theorykit.spec.limits.Limits(max_bytes=" in text
    assert peak < 5_000_000          # a list of 10**9 names alone would be 8 GB


def test_contexts_with_a_million_items_names_n():
    """n = 10**6, k = 3: P = 3·10**6 datapoints, 1 000 003 inputs; outputs (2n − 1)·(1 + 3) = 7 999 996."""
    err, peak = _refused_without_allocating(lambda: tk.contexts(10 ** 6, 3))
    assert err.field == "n"          # the keyword
    assert "3000000 datapoints × 1000003 inputs and 7999996 outputs" in str(err)
    assert peak < 5_000_000


def test_hierarchy_and_named_structures_are_size_guarded():
    """hierarchy(2**40) would be a (2**41 − 1) × 2**40 matrix; identity(10**7) a 10**7 × 10**7 one."""
    err, peak = _refused_without_allocating(lambda: hierarchy(2 ** 40))
    assert err.field == "n" and f"{2 ** 41 - 1} × {2 ** 40} (features × items)" in str(err)
    assert peak < 5_000_000
    err, peak = _refused_without_allocating(lambda: structure("identity", 10 ** 7))
    assert err.field == "n" and "10000000 × 10000000 (features × items)" in str(err)
    assert peak < 5_000_000


def test_the_guard_follows_the_limits_given_or_the_environment(monkeypatch):
    """The override is the spec loader's: a Limits (limits=) or THEORYKIT_MAX_BYTES / _SECONDS. contexts(8, 3)
    has (11 + 60) × 24 = 1704 entries (60 = 4 hierarchies of 15 rows), 340 800 B estimated."""
    assert contexts(8, 3).X.shape == (11, 24)
    with pytest.raises(SpecError) as ei:
        contexts(8, 3, limits=Limits(max_bytes=1000))
    assert ei.value.field == "n" and "341 KB" in str(ei.value) and "max_bytes" in ei.value.fix
    assert contexts(8, 3, limits=Limits(max_bytes=1e6)).Y.shape == (60, 24)
    # over the time limit: force=True lifts it, as --force on the command line
    with pytest.raises(SpecError) as ei:
        contexts(8, 3, limits=Limits(max_seconds=1e-9))
    assert "force=True" in ei.value.fix
    assert contexts(8, 3, limits=Limits(max_seconds=1e-9, force=True)).P == 24
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1000")
    with pytest.raises(SpecError) as ei:
        contexts(8, 3)
    assert ei.value.field == "n"
    with pytest.raises(SpecError):
        hierarchy(8)            # 15 × 8 = 120 entries, 24 000 B


def test_a_spec_files_limits_reach_the_builder(monkeypatch):
    """The loader passes its limits on: a spec read with a larger limit than the environment's builds."""
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1000")
    data = {"data": {"task": "contexts", "n": 4, "k": 2}, "pathways": [{"name": "a", "active": "all", "hidden": 2}]}
    spec = spec_from_dict(data, limits=Limits(max_bytes=1e9))
    assert spec.task.P == 8


# ---------------------------------------------------------------------------------------------
# 2. the one bound of gradient steps (MAX_STEPS = 10**9, theorykit/spec/ranges.py)
# ---------------------------------------------------------------------------------------------
def test_training_refuses_steps_over_the_spec_bound():
    with pytest.raises(SpecError) as ei:
        tk.Training(steps=10 ** 12)
    assert ei.value.field == "training.steps"
    assert "must be between 1 and 1000000000" in str(ei.value) and "at most 1e9" in ei.value.fix
    assert tk.Training(steps=10 ** 9).steps == 10 ** 9


def test_find_gates_and_predict_reln_refuse_steps_over_the_bound_naming_steps():
    with pytest.raises(SpecError) as ei:
        tk.find_gates(tk.xor_margin(), K=2, seeds=1, steps=10 ** 12)
    assert ei.value.field == "steps" and "must be between 1 and 1000000000" in str(ei.value)
    with pytest.raises(SpecError) as ei:
        predict_reln(tk.xor_margin(0.5), 4, tk.Training(), steps=10 ** 12, progress=False)
    assert ei.value.field == "steps" and "must be between 1 and 1000000000" in str(ei.value)


# ---------------------------------------------------------------------------------------------
# 3. hidden widths by the one integer rule (2.5 was cut to 2)
# ---------------------------------------------------------------------------------------------
X2 = np.array([[1.0, 0, 1, -1], [0, 1, 1, 2]])
Y1 = np.array([[1.0, -1, 0.5, 2]])
G2 = np.array([[1, 1, 0, 0], [0, 1, 1, 1]], float)


@pytest.mark.parametrize("call,field", [
    (lambda: train_gdln(X2, Y1, G2, hidden=[2, 2.5], lr=0.1, steps=1, seeds=1, every=1), "hidden[1]"),
    (lambda: train_gdln(X2, Y1, G2, hidden=[2, 2], depth=3, shared_first=2.5, lr=0.1, steps=1, seeds=1, every=1),
     "shared_first"),
    (lambda: train_relu(X2, Y1, hidden=[2.5], lr=0.1, steps=1, seeds=1, every=1), "hidden[0]"),
    (lambda: train_relu(X2, Y1, hidden=2.5, lr=0.1, steps=1, seeds=1, every=1), "hidden"),
    (lambda: train_gdln_many(X2, Y1, [G2], [[2, 1.5]], lr=0.1, steps=1, seeds=1, every=1), "hidden_sets[0][1]"),
])
def test_a_fractional_width_is_refused_by_name(call, field):
    with pytest.raises(SpecError) as ei:
        call()
    assert ei.value.field == field and "needs an integer, got a float" in str(ei.value)


# ---------------------------------------------------------------------------------------------
# 4. summaries are copies
# ---------------------------------------------------------------------------------------------
def _spec():
    return tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"])


def test_summaries_hand_back_copies_of_the_notes():
    t = np.arange(3.0)
    cmp_ = Comparison(t, t, np.array([1.0, 0.5, 0.2]), np.array([1.0, 0.5, 0.2]), None, _spec(), 1e-3, 0.05,
                      "mean", notes=["a note"])
    val = Validation(t, np.ones((1, 3)), np.ones(3), 0.0, 0.0, 1.0, 1.0, [((1, 0), 1.0)], 0.0, 1, [], [],
                     notes=["a note"])
    fg = FoundGates(_spec(), 1, [1, 2], [], None, "improvement", 0.05, "mean", notes=["a note"])
    for obj in (cmp_, val, fg):
        s = obj.summary()
        s["notes"].append("changed by the caller")
        assert obj.notes == ["a note"], type(obj).__name__
    s = fg.summary()
    s["Ks"].append(99)
    assert fg.Ks == [1, 2]
