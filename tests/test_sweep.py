"""Sweeps: one sharded trainer call over symbol values x learning rates x seeds, resumable by chunk."""
import json

import numpy as np
import pytest
from _gd_reference import gdln_gd

from theorykit.errors import SpecError
from theorykit.sim.simulation import simulate
from theorykit.spec.files import load_spec
from theorykit.analysis.sweep import parse_grid, run_sweep

SPEC = "examples/xor_linear.toml"


@pytest.fixture(scope="module")
def spec():
    return load_spec(SPEC)


def test_sweep_equals_simulate_and_resumes(spec, tmp_path):
    grid = parse_grid(["Delta=0.5:1.5:2", "lr=0.01,0.05"], spec.task.symbols)
    assert grid["Delta"] == [0.5, 1.5] and grid["lr"] == [0.01, 0.05]
    out = tmp_path / "sw"
    res = run_sweep(spec, grid, seeds=2, steps=60, out=out, chunk=3, progress=False)
    assert res["members"] == 8 and res["chunks"] == 3 and res["chunks_computed"] == [0, 1, 2]
    D = spec.task.symbols["Delta"]
    m = 0
    by_point = {}
    for d in grid["Delta"]:
        for lr in grid["lr"]:
            sim = simulate(spec, seeds=2, steps=60, values={D: d}, lr=lr)
            np.testing.assert_allclose(res["loss"][m:m + 2], sim.loss, rtol=0, atol=1e-12)
            by_point[(d, lr)] = sim.loss[:, -1]
            m += 2
    # the sweep and simulate both train with theorykit.sim.engine.train_net from aligned_params, so the
    # comparison above checks the grid's layout only. The numbers, by hand: each pathway of the linear
    # ReLN sees two datapoints, Σyx = (0, 0, Δ/2) (s = Δ/2 along v = e₃) and Σx v = (Δ²/2) v (d = Δ²/2);
    # from the aligned, balanced start of strength a0 the network's output on every datapoint is
    # ŷ = ±aΔ, so the mean loss is ½(1 − aΔ)², and gradient descent on the two balanced layers
    # b = √a, b ← b + η b (s − d b²), is a ← a (1 + η (s − d a))² exactly (docs/theory.md#mode-ode)
    m = 0
    for d in grid["Delta"]:
        for lr in grid["lr"]:
            a, hand = spec.training.a0, []
            for _ in range(61):
                hand.append(0.5 * (1 - a * d) ** 2)
                a = a * (1 + lr * (d / 2 - d * d / 2 * a)) ** 2
            assert hand[0] - hand[-1] > 1e-4                     # the curve moves (1.7e-4 at least)
            # float64 rounding over 60 steps (measured 1.7e-16, CPU); 1e-14 is 1e-10 of the smallest move
            np.testing.assert_allclose(res["loss"][m:m + 2], np.array([hand, hand]), rtol=0, atol=1e-14)
            m += 2
    # each grid point's summary is the mean and spread over its own seeds (separate simulate calls)
    assert len(res["results"]) == 4
    for r in res["results"]:
        fin = by_point[(r["Delta"], r["lr"])]
        assert r["final_loss_mean"] == pytest.approx(float(np.mean(fin)), rel=1e-10)
        assert r["final_loss_std"] == pytest.approx(float(np.std(fin)), rel=1e-6, abs=1e-15)
        assert r["diverged_seeds"] == 0
    # resume: a complete sweep recomputes nothing; deleting one chunk recomputes only it
    again = run_sweep(spec, grid, seeds=2, steps=60, out=out, chunk=3, progress=False)
    assert again["chunks_computed"] == []
    (out / "chunks" / "chunk_00001.npz").unlink()
    before = {i: (out / "chunks" / f"chunk_{i:05d}.npz").stat().st_mtime_ns for i in (0, 2)}
    third = run_sweep(spec, grid, seeds=2, steps=60, out=out, chunk=3, progress=False)
    assert third["chunks_computed"] == [1]
    assert {i: (out / "chunks" / f"chunk_{i:05d}.npz").stat().st_mtime_ns for i in (0, 2)} == before
    np.testing.assert_array_equal(third["loss"], res["loss"])
    js = json.loads((out / "sweep.json").read_text())
    assert js["complete"] and len(js["results"]) == 4


def test_sweep_errors(spec, tmp_path):
    with pytest.raises(SpecError):
        parse_grid(["Gamma=0:1:3"], spec.task.symbols)
    with pytest.raises(SpecError):
        parse_grid(["Delta=0:1"], spec.task.symbols)
    with pytest.raises(SpecError):
        parse_grid(["lr=__import__('os')"], spec.task.symbols)
    with pytest.raises(SpecError):   # Delta has no value
        run_sweep(spec, {"lr": [0.01]}, seeds=1, steps=5, out=tmp_path / "a", progress=False)
    run_sweep(spec, {"Delta": [0.5]}, seeds=1, steps=5, out=tmp_path / "b", progress=False)
    with pytest.raises(SpecError):   # a different sweep in the same folder
        run_sweep(spec, {"Delta": [0.7]}, seeds=1, steps=5, out=tmp_path / "b", progress=False)


def test_resuming_with_another_chunk_size_is_refused(spec, tmp_path):
    """Chunk files index members by chunk: re-read under another chunk size they would be misplaced."""
    grid = parse_grid(["Delta=0.5:1.5:2", "lr=0.01,0.05"], spec.task.symbols)
    out = tmp_path / "sw"
    run_sweep(spec, grid, seeds=2, steps=20, out=out, chunk=3, progress=False)
    (out / "chunks" / "chunk_00002.npz").unlink()
    with pytest.raises(SpecError, match="--chunk 3"):
        run_sweep(spec, grid, seeds=2, steps=20, out=out, chunk=2, progress=False)
    assert run_sweep(spec, grid, seeds=2, steps=20, out=out, chunk=3, progress=False)["chunks_computed"] == [2]


def test_a_sweep_whose_large_learning_rate_diverges_reports_it(spec, tmp_path):
    """On XoR (mean loss) with lr = 1000 the aligned start overshoots at once and the loss becomes
    non-finite; a sweep over learning rates expects that: the summary counts the diverged seeds and
    averages the others (it refused to write a non-finite mean before)."""
    grid = parse_grid(["Delta=1", "lr=0.01,1000"], spec.task.symbols)
    res = run_sweep(spec, grid, seeds=2, steps=200, out=tmp_path / "sw", chunk=4, progress=False)
    small, big = res["results"]
    assert small["diverged_seeds"] == 0 and np.isfinite(small["final_loss_mean"])
    assert big["diverged_seeds"] == 2 and big["final_loss_mean"] is None
    assert json.loads((tmp_path / "sw" / "sweep.json").read_text())["complete"]


def test_a_random_start_sweep_equals_simulate_and_has_a_spread(spec, tmp_path):
    """--init random: each member starts as simulate(init="random") would (N(0, init_std²), seeds
    0 … S−1), so the seeds spread; aligned seeds have the same loss (a rotation inside the hidden
    layer that the loss does not see), and the summary says so. The two are different sweeps: one
    folder does not resume the other."""
    grid = parse_grid(["Delta=0.5,1.5"], spec.task.symbols)
    D = spec.task.symbols["Delta"]
    rnd = run_sweep(spec, grid, seeds=3, steps=80, out=tmp_path / "r", progress=False, init="random")
    for i, d in enumerate(grid["Delta"]):
        sim = simulate(spec, init="random", seeds=3, steps=80, values={D: d})
        np.testing.assert_allclose(rnd["loss"][3 * i:3 * i + 3], sim.loss, rtol=0, atol=1e-12)
        assert rnd["results"][i]["final_loss_std"] > 0
        # both train with train_net: the numbers against numpy gradient descent (tests/_gd_reference.py)
        # on the gated network, from simulate's initial weights (float64 rounding, measured 2.2e-16 of L(0), CPU)
        X, Y = spec.task.numeric({D: d})
        p0 = sim.extra["initial_params"]
        paths = [(p.active, p.inputs, p.outputs) for p in spec.pathways]
        finals = []
        for seed in range(3):
            params = [[np.asarray(p0[f"input->{p.name}"])[seed], np.asarray(p0[f"{p.name}->output"])[seed]]
                      for p in spec.pathways]
            ref, _ = gdln_gd(paths, params, X, Y, lr=spec.training.lr, steps=80, loss="mean")
            assert ref[0] - ref[-1] > 1e-3 * ref[0]                    # the curve moves (2.4e-3 of L(0) at least)
            np.testing.assert_allclose(rnd["loss"][3 * i + seed], ref, rtol=0, atol=1e-12 * ref[0])
            finals.append(ref[-1])
        # the summary's spread over seeds is the one simulate reports for them (Simulation.std: ddof 0, what
        # `simulate --seeds` prints as mean ± std and tk.plot draws), √(Σ(Lᵢ − L̄)²/S) by hand on the numpy runs'
        # final losses; ddof 1 would be √(3/2) = 1.22 × larger (the aligned sweeps' seeds are equal: they cannot tell)
        finals = np.array(finals)
        mean = sum(finals) / 3
        by_hand = (sum((f - mean) ** 2 for f in finals) / 3) ** 0.5
        assert by_hand > 1e-6 * mean                                   # the seeds differ
        res = rnd["results"][i]
        assert res["final_loss_mean"] == pytest.approx(mean, rel=1e-10)
        assert res["final_loss_std"] == pytest.approx(by_hand, rel=1e-6)
        assert res["final_loss_std"] == pytest.approx(float(sim.std[-1]), rel=1e-6)
    assert rnd["init"] == "random" and rnd["notes"] == []
    ali = run_sweep(spec, grid, seeds=3, steps=80, out=tmp_path / "a", progress=False)
    assert all(r["final_loss_std"] <= 1e-12 for r in ali["results"]) and "spread 0" in ali["notes"][0]
    with pytest.raises(SpecError, match="different sweep"):
        run_sweep(spec, grid, seeds=3, steps=80, out=tmp_path / "a", progress=False, init="random")
    with pytest.raises(SpecError, match="--init"):
        run_sweep(spec, grid, seeds=3, steps=80, out=tmp_path / "b", progress=False, init="paired")
