"""One way to do each thing in the analysis layer (issue 26, cut 4).

* The RK4 race at the step τ/race_dt, its loss recorded every ⌊τ/race_dt⌋ steps, was written three
  times (``race_exhaust``, the contexts suite's ``suite_race`` and ``predict_reln``'s family race): it is
  :func:`theorykit.analysis.exhaust.race_rk4`, and ``race_exhaust`` builds its race system once, not once
  per batch of orbits.
* The loss gaps of ``validate_prediction`` (RMS and largest gap over L(0)) and the elbow's
  ``loss_max_rel_err`` were inline copies of :func:`theorykit.curves.curve_distance` and
  :func:`theorykit.curves.max_gap`.
* ``find_gates_in_run`` wrote the a0 rule of the run's first checkpoint again: it is
  :func:`theorykit.analysis.checkpoints.start_a0`.
"""
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

from theorykit import curves
from theorykit.analysis import checkpoints, context_races, exhaust, findgates, predict, predict_validate
from theorykit.net.starts import a0_rule
from theorykit.record import SaveAt
from theorykit.spec.task import Task
from theorykit.theory.flow import RK4
from theorykit.theory.race import RaceSystem


# ---------------------------------------------------------------------------------------------
# the one RK4 race
# ---------------------------------------------------------------------------------------------
def _logistic_loss(t, tau, a0):
    """By hand: one input x = 1, one target y = 1 (P = 1), one always-on depth-2 pathway from the aligned,
    balanced start of strength a0. Each layer's weight w obeys τ ẇ = w (s − w²) with s = Σyx = 1, so the
    strength a = w² obeys τ ȧ = 2a(1 − a): a(t) = 1 / (1 + (1/a0 − 1) e^(−2t/τ)). The mean loss is
    L = 1/(2P) Σ (y − a x)² = ½ (1 − a)²."""
    a = 1.0 / (1.0 + (1.0 / a0 - 1.0) * np.exp(-2.0 * np.asarray(t, float) / tau))
    return 0.5 * (1.0 - a) ** 2


def test_race_rk4_follows_the_logistic_mode_and_records_every_rk4_step():
    system = RaceSystem.from_data(np.array([[1.0]]), np.array([[1.0]]), [[1]])
    tau, a0 = 100.0, 1e-3
    rf = exhaust.race_rk4(system, tau, 10, 2000, a0=a0)
    # recorded every ⌊τ/race_dt⌋ = 10 steps from 0 to t_end
    np.testing.assert_array_equal(rf.t, np.arange(0, 2001, 10))
    gap10 = np.max(np.abs(rf.loss[0] - _logistic_loss(rf.t, tau, a0)))
    assert gap10 <= 1e-5 * 0.5                      # a share of L(0) = ½
    # the step is τ/race_dt: RK4 is of order 4, four times finer is ≥ 50 times closer (256 in the limit)
    fine = exhaust.race_rk4(system, tau, 40, 2000, a0=a0, every=10)
    np.testing.assert_array_equal(fine.t, rf.t)
    assert np.max(np.abs(fine.loss[0] - _logistic_loss(fine.t, tau, a0))) < gap10 / 50
    # a given recording interval; τ/race_dt below one step still records every step
    np.testing.assert_array_equal(exhaust.race_rk4(system, tau, 10, 2000, a0=a0, every=100).t, np.arange(0, 2001, 100))
    np.testing.assert_array_equal(exhaust.race_rk4(system, 5.0, 10, 20, a0=a0).t, np.arange(21))


def test_the_three_rankings_race_through_the_one_rk4_race():
    assert context_races.race_rk4 is exhaust.race_rk4
    assert predict.race_rk4 is exhaust.race_rk4


def test_race_exhaust_builds_its_race_system_once(monkeypatch):
    """Three orbits raced one per batch: one race system (it was built again for every batch), and each
    family's area is the one its race alone gives (a system of its own, RK4 at τ/10, recorded every
    ⌊τ/10⌋ steps)."""
    built = []
    from_spec = RaceSystem.from_spec.__func__

    def counting(cls, *a, **k):
        built.append(1)
        return from_spec(cls, *a, **k)

    monkeypatch.setattr(RaceSystem, "from_spec", classmethod(counting))
    res = exhaust.race_exhaust(3, families=[0, 1, 2], batch=1, steps=400, use_symmetry=False, progress=False)
    assert len(built) == 1
    # second method: each family's race on its own, from the superset's spec with that family's mask
    spec, _, masks, _ = exhaust.exhaust_spec(3)
    system = from_spec(RaceSystem, spec)
    for row in res.metrics:
        alone = system.solve(SaveAt(every=max(1, int(spec.tau / 10))), t_end=400, a0=exhaust.default_a0(),
                             masks=masks[[row["index"]]].astype(float), modes=False, solver=RK4(spec.tau / 10))
        L = alone.loss[0]
        area = np.trapezoid(L / L[0], alone.t) / (alone.t[-1] - alone.t[0])
        np.testing.assert_allclose(row["area"], area, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# the one loss gap
# ---------------------------------------------------------------------------------------------
def test_the_loss_gaps_are_the_curves_modules():
    assert predict_validate.max_gap is curves.max_gap
    assert predict_validate.curve_distance is curves.curve_distance
    assert findgates.max_gap is curves.max_gap


def test_validate_prediction_gaps_by_hand(monkeypatch):
    """Two ReLU networks whose losses are 4, 2, 1 at steps 0, 1, 2 (mean 4, 2, 1, L(0) = 4) against a
    predicted 4, 3, 1: the gap is 0, 1, 0, so its RMS is √(1/3) and its largest 1, over L(0) = 4.
    One unit per network, W1 = 1 and W2 = 1 on the data x = (1, −1): its gates are (1, 0), the predicted
    pattern, at every checkpoint, so all the weight is in it and none changes its gates."""
    task = Task(sp.Matrix([[1, -1]]), sp.Matrix([[1, 1]]))
    on = np.array([True, False])
    run = SimpleNamespace(loss=np.array([[4.0, 2.0, 1.0]] * 2), t_ck=np.array([0, 1, 2]),
                          params=[np.ones((2, 1, 1)), np.ones((2, 1, 1))],
                          snapshots=np.broadcast_to(on, (2, 2, 1, 2)))
    spec = SimpleNamespace(pathways=[SimpleNamespace(active=(1, 0), hidden=1)], hidden_total=1)
    monkeypatch.setattr(predict_validate, "find_gates", lambda *a, **k: SimpleNamespace(run=run, spec=spec))
    pred = SimpleNamespace(task=task, training=SimpleNamespace(steps=2, lr=0.1, init_std=0.1, loss="mean"),
                           hidden=1, gates=np.array([[1, 0]]), t=np.array([0.0, 1.0, 2.0]),
                           loss=np.array([4.0, 3.0, 1.0]), t_half=1.0)
    val = predict_validate.validate_prediction(pred, seeds=2)
    assert np.isclose(val.rms_gap, np.sqrt(1 / 3) / 4, rtol=1e-15)
    assert val.max_gap == 0.25
    assert val.weight_share == 1.0 and val.gate_change_share == 0.0 and val.jaccard == 1.0


# ---------------------------------------------------------------------------------------------
# the one a0 of a run's start
# ---------------------------------------------------------------------------------------------
def test_find_gates_in_run_takes_its_a0_from_start_a0(monkeypatch):
    """find_gates_in_run wrote the a0 rule of the run's first checkpoint again (a0_rule of the layers'
    stds, all H units one pathway) for the training its specs are built with; that is
    ``start_a0(W0, [H])``. The number is the rule's: a0_rule(σ, [H, H]) with σ the layers' stds."""
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(0)
    X = np.array([[1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0]])
    Y = np.array([[1.0, 0.0, 0.0, 1.0]])
    W1, W2 = rng.normal(0, 0.1, size=(2, 4, 2)), rng.normal(0, 0.2, size=(2, 1, 4))
    run = checkpoints.RunCheckpoints(np.array([0, 10]), [W1, W2], ["a.npz", "b.npz"], X, Y)
    calls, trainings = [], []
    start_a0, to_spec = checkpoints.start_a0, checkpoints.patterns_to_spec
    monkeypatch.setattr(checkpoints, "start_a0", lambda W, h: calls.append(list(h)) or start_a0(W, h))
    monkeypatch.setattr(checkpoints, "patterns_to_spec", lambda *a, **k: trainings.append(a[3]) or to_spec(*a, **k))
    found = checkpoints.find_gates_in_run(run, lr=0.1, K=1, n_init=5)
    # first the training's a0 (all H = 4 units one pathway), then the found spec's (its pathways' widths)
    assert calls == [[4], [p.hidden for p in found.spec.pathways]]
    stds = [float(np.std(W1[0])), float(np.std(W2[0]))]
    assert trainings[0].a0 == a0_rule(stds, [4, 4])


# ---------------------------------------------------------------------------------------------
# the one ranking of context families
# ---------------------------------------------------------------------------------------------
def test_the_two_rankings_of_context_families_are_one():
    assert context_races.rank_families is exhaust.rank_families


def test_rank_families_by_hand():
    """Five families, ranked by hand. By area: "12+13+23" (1.0) and "common+12" (1.0) tie, "common+12+13+23"
    (1.005), "common" (2.0), "1" (3.0): ties in the rows' order, or by ``tie``. Within 1 % of the winner's
    1.0 (area ≤ 1.01): the two tied and "common+12+13+23". The first by area lacking one of {common, 12,
    13, 23}: the first of the tied pair, "common+12" (no 13, 23) in the rows' order, "12+13+23" (no
    common) by index. By time to 1 % of L(0): 50, 80, 80, then the two that never get there (None), ties
    again in the rows' order or by ``tie``."""
    rows = [{"family": "common", "area": 2.0, "t_0.01": None, "index": 4},
            {"family": "common+12", "area": 1.0, "t_0.01": 80.0, "index": 3},
            {"family": "12+13+23", "area": 1.0, "t_0.01": 80.0, "index": 1},
            {"family": "1", "area": 3.0, "t_0.01": None, "index": 0},
            {"family": "common+12+13+23", "area": 1.005, "t_0.01": 50.0, "index": 2}]
    core = {"common", "12", "13", "23"}

    def names(rs):
        return [r["family"] for r in rs]

    by_area, by_t1, near, lacking = exhaust.rank_families(rows, core)
    assert names(by_area) == ["common+12", "12+13+23", "common+12+13+23", "common", "1"]
    assert names(by_t1) == ["common+12+13+23", "common+12", "12+13+23", "common", "1"]
    assert names(near) == ["common+12", "12+13+23", "common+12+13+23"]
    assert lacking["family"] == "common+12"
    by_area, by_t1, near, lacking = exhaust.rank_families(rows, core, tie=lambda r: r["index"])
    assert names(by_area) == ["12+13+23", "common+12", "common+12+13+23", "common", "1"]
    assert names(by_t1) == ["common+12+13+23", "12+13+23", "common+12", "1", "common"]
    assert lacking["family"] == "12+13+23"
    assert exhaust.rank_families(rows[-1:], {"common"})[3] is None
