"""Rules found by a theorist's REPL-speed walkthrough: timing the everyday loop (Derivation, modes,
predict_loss at several horizons, values=, plot, the k-context results, race-exhaust, predict) on
the shared 2-core CPU, then looking for valid tasks that are refused or far slower than their
neighbours. No test here times anything (speed is measured by ``theorykit bench``); each pins what
was wrong: a refusal of a documented task, or a result that must not change when only the cost does.
Every expected value is worked out by hand in a comment or computed by a second method in the test.
"""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.spec.files import spec_from_dict


# ------------------------------------------------------------------------------------------------
# A symbolic context scale (docs/specs.md: data.context_scale is a "number or expression"; docs/theory.md:
# "theorykit takes γ as a parameter"). It was refused with "unknown symbols ['g'] (fix: declare them
# under [symbols])" although g was declared: contexts() built its Task with no symbols at all.
# ------------------------------------------------------------------------------------------------
def test_contexts_with_a_declared_symbolic_scale_is_read():
    spec = spec_from_dict({"symbols": {"g": {"positive": True}},
                           "data": {"task": "contexts", "n": 2, "k": 2, "context_scale": "g", "reln": "double"}})
    g = spec.task.symbols["g"]
    assert set(spec.task.symbols) == {"g"} and g.is_positive
    # contexts(2, 2): the one-hot item on the scaled one-hot context, context-major columns
    # (docstring of contexts: context c holds columns c·n … c·n+n−1), so by hand:
    assert spec.task.X.tolist() == [[1, 0, 1, 0], [0, 1, 0, 1], [g, g, 0, 0], [0, 0, g, g]]
    # and at g = 11/10 it is the task built with the number
    at = spec.subs({"g": sp.Rational(11, 10)}).task
    assert at.X == tk.contexts(2, 2, context_scale=sp.Rational(11, 10)).X and not at.free_symbols


def test_contexts_from_python_keeps_the_symbols_of_its_scale():
    g = sp.Symbol("g", positive=True)
    task = tk.contexts(2, 3, context_scale=2 * g)
    assert task.symbols == {"g": g}
    # the context rows are 2g on their context's n = 2 columns, 0 elsewhere (by hand)
    assert task.X.row(2).tolist() == [[2 * g, 2 * g, 0, 0, 0, 0]]
    assert task.X.row(4).tolist() == [[0, 0, 0, 0, 2 * g, 2 * g]]


def test_contexts_with_an_undeclared_symbol_is_still_refused_by_name():
    with pytest.raises(SpecError, match="context_scale"):
        spec_from_dict({"data": {"task": "contexts", "n": 2, "k": 2, "context_scale": "g", "reln": "double"}})


# ------------------------------------------------------------------------------------------------
# A graph with shared edges: predict_loss integrates the graph's own race (RaceSystem.from_graph, the
# race its notes name), but predict_modes integrated the pathways' private chains, another model, and
# tk.plot drew those modes as "theory" beside the graph's loss. And each predict_loss rebuilt the race
# and its aligned start (most of a short flow's time in a REPL).
# ------------------------------------------------------------------------------------------------
def _shared_trunk():
    """One input, one output, one datapoint with target s = 2; a shared edge input → h and two
    always-on branches h → m_p → output (widths 1 in the race: the rank of Σyx)."""
    return spec_from_dict({"data": {"inputs": [[1]], "targets": [[2]]},
                           "training": {"lr": 0.01, "a0": 0.001, "loss": "mean"},
                           "nodes": [{"name": "h", "width": 4}, {"name": "m0", "width": 4}, {"name": "m1", "width": 4}],
                           "edges": [{"from": "input", "to": "h"}, {"from": "h", "to": "m0"}, {"from": "h", "to": "m1"},
                                     {"from": "m0", "to": "output"}, {"from": "m1", "to": "output"}]})


def test_graph_modes_follow_the_shared_edge_race_the_loss_follows():
    """By hand. Scalars: the trunk weight y, each branch's two weights x (equal by symmetry), the map
    M = 2 x² y, each pathway's strength m = x² y = M/2, mean loss ½(s − M)², τ = 1/lr = 100. The flow
    τ dy/dt = 2x²(s − M), τ dx/dt = x y (s − M) keeps y² − 2x² constant, and the aligned start
    (c_e² ∝ pathways through e: y = √2 x) makes it 0, so y = √2 x throughout; then
    τ dM/dt = 12 x⁴ (s − M) = 3 M^{4/3} (s − M) (the depth-3 mode law of docs/theory.md), i.e.
    τ dm/dt = 3·2^{1/3} m^{4/3} (s − 2m) from m(0) = a0. Private chains (no shared edge) would give
    τ dm/dt = 3 m^{4/3} (s − 2m): 0.106 at t = 400 against the shared race's 0.927."""
    from scipy.integrate import solve_ivp

    der = tk.Derivation(_shared_trunk())
    ts = np.array([0.0, 200.0, 300.0, 400.0, 450.0])
    ode = solve_ivp(lambda t, m: [3 * 2 ** (1 / 3) * m[0] ** (4 / 3) * (2 - 2 * m[0]) / 100], (0, 450), [1e-3],
                    t_eval=ts, method="LSODA", rtol=1e-11, atol=1e-14).y[0]
    assert ode[3] > 0.9                                     # the shared race has learned by t = 400
    # the loss to 1e-8 of L(0) = 2 (the flow's rtol is on the weights: relative error grows as L → 0)
    np.testing.assert_allclose(der.predict_loss(ts), 0.5 * (2 - 2 * ode) ** 2, rtol=1e-6, atol=2e-8)
    modes = der.predict_modes(ts)
    assert set(modes) == {"h/m0", "h/m1"}
    for name in modes:
        np.testing.assert_allclose(modes[name][:, 0], ode, rtol=1e-6)


def test_a_graphs_race_is_built_once_and_answers_as_a_fresh_one(monkeypatch):
    """The race and its aligned start are built on the first call and reused: the second call at
    other times builds neither, and gives what a fresh Derivation gives at those times."""
    import theorykit.theory.race as race_mod

    calls = []
    real = race_mod.aligned_params
    monkeypatch.setattr(race_mod, "aligned_params", lambda *a, **k: calls.append(1) or real(*a, **k))
    der = tk.Derivation(_shared_trunk())
    der.predict_loss([0.0, 300.0])
    again = der.predict_loss([0.0, 150.0, 300.0, 450.0])
    assert calls == [1]
    fresh = tk.Derivation(_shared_trunk()).predict_loss([0.0, 150.0, 300.0, 450.0])
    np.testing.assert_allclose(again, fresh, rtol=1e-12, atol=0)


# ------------------------------------------------------------------------------------------------
# Pathways that couple are raced whatever their SVD says, and the race needs numbers only; but a
# predict_loss(values=...) of a spec with symbols first computed the symbolic modes (for method): 30 s
# at contexts(4, 3) with a symbolic context scale, minutes at n = 8, where the race itself took 0.1 s.
# ------------------------------------------------------------------------------------------------
def _coupled_xor():
    # the positive-class pathway and an always-on one: both write the one output on datapoints 1, 2
    return tk.GDLNSpec(tk.xor_margin(), [tk.Pathway("pos", (1, 1, 0, 0)), tk.Pathway("all", (1, 1, 1, 1))],
                       tk.Training(lr=0.05, a0=1e-3))


def test_a_coupled_symbolic_spec_predicts_at_values_without_its_symbolic_modes(monkeypatch):
    import theorykit.theory.derivation as dmod

    times = [0.0, 40.0, 120.0, 400.0]
    # second method: the derivation built at the value (numbers from the start)
    want = tk.Derivation(_coupled_xor(), values={"Delta": 0.5}).predict_loss(times)
    calls = []
    real = dmod.exact_svd
    monkeypatch.setattr(dmod, "exact_svd", lambda *a, **k: calls.append(1) or real(*a, **k))
    der = tk.Derivation(_coupled_xor())
    got = der.predict_loss(times, values={"Delta": 0.5})
    assert calls == []                                  # no symbolic SVD was needed for numbers
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    assert got[0] > got[-1] > 0
    # both sides above are theorykit's race (theorykit.theory.race): the numbers against SciPy's map
    # equation (tests/race_reference.py, LSODA at rtol 1e-10), the race's Dopri5 at rtol 1e-8 (1e-6 as in
    # tests/test_findgates.py; measured below 1e-7, CPU)
    from race_reference import scipy_race_spec
    ref, _ = scipy_race_spec(_coupled_xor(), times=np.array(times), values={"Delta": 0.5}, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=0)
    # the method, asked for afterwards, is the race reduction, with its reason
    assert der.method == "race-reduction" and any("couple" in n for n in der.notes)


def test_closed_form_asked_of_a_coupled_spec_still_warns_on_predict_loss():
    der = tk.Derivation(_coupled_xor(), method="closed-form")
    with pytest.warns(UserWarning, match="closed form not applicable"):
        der.predict_loss([0.0, 10.0], values={"Delta": 0.5})


# ------------------------------------------------------------------------------------------------
# derive shows no progress (the exact algebra has no steps to count) and said nothing before a
# derivation of minutes (contexts(4, 3) with a symbolic scale: estimated 22 s, a minute or more under load).
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seconds, said", [(45.0, True), (2.0, False)])
def test_derive_says_when_a_long_derivation_will_show_no_progress(tmp_path, capsys, monkeypatch, seconds, said):
    import theorykit.cli.derive as cli_derive
    from theorykit.cli import main
    from theorykit.spec.files import example_path
    from theorykit.spec.limits import Estimate

    # the estimate is stubbed (a 45 s or a 2 s one), the derivation itself is the quick XoR one
    monkeypatch.setattr(cli_derive, "derivation_estimate", lambda *a, **k: Estimate("derivation", seconds, 1e6))
    assert main(["derive", str(example_path("xor_linear.toml")), "--json", str(tmp_path / "o.json")]) == 0
    err = capsys.readouterr().err
    assert ("no progress to show" in err and "about 45 s" in err and "Ctrl-C" in err and "--set" in err) == said
    assert (tmp_path / "o.json").is_file()
