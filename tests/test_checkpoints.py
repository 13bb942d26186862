"""Your own training run: checkpoints + data → find-gates → compare (theorykit/analysis/checkpoints.py, compare.py).

The checkpoints are written here with the safetensors numpy API (no torch), from a ReLU run of
theorykit's own trainer, so the loss recomputed from the files has a second source to agree with.
Every bad input of issue 14 item 1 raises SpecError naming the file and the key.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

safetensors_numpy = pytest.importorskip("safetensors.numpy")
pytest.importorskip("sklearn")

from theorykit.analysis.checkpoints import (find_gates_in_run, load_checkpoints, load_data, paired_start, parse_layers,  # noqa: E402
                                   split_units)
from theorykit.cli import main  # noqa: E402
from theorykit.errors import SpecError  # noqa: E402

LR, STEPS, EVERY, H = 0.02, 600, 50, 8


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A bias-free ReLU network (3 → 8 → 1) on XoR with margin 0.5, trained by theorykit's trainer;
    its weights every 50 steps saved as safetensors, its loss curve kept as the reference."""
    from theorykit.record import SaveAt
    from theorykit.sim.simulation import simulate
    from theorykit.spec.task import xor_margin

    d = tmp_path_factory.mktemp("run")
    X, Y = xor_margin(0.5).numeric()
    steps = list(range(0, STEPS + 1, EVERY))
    sim = simulate((X, Y), network="relu", hidden=H, lr=LR, steps=STEPS, seeds=1, init_std=0.1,
                        save=SaveAt(ts=steps, fns={"p": lambda p, _d: p}))
    P = sim.saved["p"]
    for i, s in enumerate(steps):
        safetensors_numpy.save_file({"W1": np.asarray(P["input->h1"][0, i]), "W2": np.asarray(P["h1->output"][0, i])},
                                    str(d / f"step_{s:06d}.safetensors"), metadata={"lr": repr(LR), "loss": "mean"})
    np.savez(d / "data.npz", X=X, Y=Y)
    return d, sim.loss[0][steps], X, Y


def _save(path, arrays, meta=None):
    safetensors_numpy.save_file({k: np.ascontiguousarray(v) for k, v in arrays.items()}, str(path), metadata=meta)


def _two(tmp_path, arrays_by_step, X=None, Y=None):
    X = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]]) if X is None else X
    Y = np.array([[1.0, 1, -1, -1]]) if Y is None else Y
    np.savez(tmp_path / "data.npz", X=X, Y=Y)
    for s, arrays in arrays_by_step.items():
        _save(tmp_path / f"step_{s}.safetensors", arrays)
    return str(tmp_path / "step_*.safetensors"), str(tmp_path / "data.npz")


def _good(rng=np.random.default_rng(0)):
    return {"W1": 0.1 * rng.standard_normal((4, 3)), "W2": 0.1 * rng.standard_normal((1, 4))}


# ------------------------------------------------------------------------------------------
# reading a good run
# ------------------------------------------------------------------------------------------
def test_loss_recomputed_from_checkpoints_matches_the_trainer(run_dir):
    d, ref, X, _ = run_dir
    run = load_checkpoints(str(d / "step_*.safetensors"), d / "data.npz")
    np.testing.assert_array_equal(run.steps, np.arange(0, STEPS + 1, EVERY))
    assert run.widths == [H] and run.meta["lr"] == repr(LR)
    # second source: the trainer's own loss curve at the same steps
    np.testing.assert_allclose(run.loss("mean"), ref, rtol=1e-10, atol=1e-14)
    # summed loss = P × mean loss (P = 4)
    np.testing.assert_allclose(run.loss("sum"), 4 * run.loss("mean"), rtol=1e-14)
    assert ref[-1] < 0.2 * ref[0]          # it learned: the test can tell curves apart


def test_npz_checkpoints_layer_map_and_steps(tmp_path):
    w = _good()
    X = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])
    np.savez(tmp_path / "data.npz", X=X, Y=np.array([[1.0, 1, -1, -1]]))
    for name in ("a", "b"):
        np.savez(tmp_path / f"ck_{name}.npz", **{"fc1.weight": w["W1"], "fc2.weight": w["W2"]})
    run = load_checkpoints(str(tmp_path / "ck_*.npz"), tmp_path / "data.npz", layers="W1=fc1.weight,W2=fc2.weight",
                           steps="0,10")
    assert list(run.steps) == [0, 10] and run.keys == ["fc1.weight", "fc2.weight"]
    # hand check of the forward pass: W2 relu(W1 x)
    np.testing.assert_allclose(run.outputs()[0], w["W2"] @ np.maximum(w["W1"] @ X, 0))
    with pytest.raises(SpecError, match="no step number"):
        load_checkpoints(str(tmp_path / "ck_*.npz"), tmp_path / "data.npz", layers="W1=fc1.weight,W2=fc2.weight")
    with pytest.raises(SpecError, match="--layers"):
        parse_layers("W1=fc1.weight,W3=fc2.weight")


def test_split_units_adds_up():
    assert split_units([0.5, 0.3, 0.2], 32) == [15, 10, 7]     # 29·share floored + 1, remainders .8, .8
    assert sum(split_units([0.97, 0.01, 0.01, 0.01], 10)) == 10
    with pytest.raises(SpecError):
        split_units([0.5, 0.5], 1)


# ------------------------------------------------------------------------------------------
# every bad input names the file and the key
# ------------------------------------------------------------------------------------------
def _raises(match_file, match_key, fn, *a, **kw):
    with pytest.raises(SpecError) as ei:
        fn(*a, **kw)
    msg = str(ei.value)
    assert match_file in msg and match_key in msg, msg
    return msg


def test_missing_key(tmp_path):
    g = _good()
    ck, data = _two(tmp_path, {0: g, 1: {"W1": g["W1"]}})
    _raises("step_1.safetensors", "'W2'", load_checkpoints, ck, data)
    ck2 = str(tmp_path / "step_0.safetensors")
    _raises("step_0.safetensors", "'fc1.weight'", load_checkpoints, [ck2, str(tmp_path / "step_1.safetensors")], data,
            layers="W1=fc1.weight,W2=W2")


def test_shape_mismatch_and_transposed(tmp_path):
    g = _good()
    ck, data = _two(tmp_path, {0: g, 5: {"W1": g["W1"].T.copy(), "W2": g["W2"]}})
    msg = _raises("step_5.safetensors", "'W1'", load_checkpoints, ck, data)
    assert "transposed" in msg
    # a later checkpoint of another width
    d2 = tmp_path / "b"
    d2.mkdir()
    ck, data = _two(d2, {0: g, 5: {"W1": np.zeros((5, 3)), "W2": np.zeros((1, 5))}})
    _raises("step_5.safetensors", "'W1'", load_checkpoints, ck, data)
    # last layer against Y
    d3 = tmp_path / "c"
    d3.mkdir()
    ck, data = _two(d3, {0: {"W1": g["W1"], "W2": np.zeros((2, 4))}, 1: g})
    _raises("step_0.safetensors", "'W2'", load_checkpoints, ck, data)


def test_biases_refused_unless_ignored(tmp_path):
    g = _good()
    ck, data = _two(tmp_path, {0: {**g, "b1": np.zeros(4)}, 1: {**g, "b1": np.zeros(4)}})
    msg = _raises("step_0.safetensors", "'b1'", load_checkpoints, ck, data)
    assert "bias-free" in msg and "--ignore-bias" in msg
    run = load_checkpoints(ck, data, ignore_bias=True)
    assert run.widths == [4]
    d2 = tmp_path / "torch"
    d2.mkdir()
    ck, data = _two(d2, {0: {"fc1.weight": g["W1"], "fc1.bias": np.zeros(4), "fc2.weight": g["W2"]}, 1: {
        "fc1.weight": g["W1"], "fc2.weight": g["W2"]}})
    _raises("step_0.safetensors", "'fc1.bias'", load_checkpoints, ck, data, layers="W1=fc1.weight,W2=fc2.weight")


def test_nans(tmp_path):
    g = _good()
    bad = dict(g, W2=np.full((1, 4), np.nan))
    ck, data = _two(tmp_path, {0: g, 7: bad})
    msg = _raises("step_7.safetensors", "'W2'", load_checkpoints, ck, data)
    assert "NaN" in msg
    d2 = tmp_path / "d"
    d2.mkdir()
    X = np.array([[1.0, np.nan, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])
    ck, data = _two(d2, {0: g, 1: g}, X=X)
    _raises("data.npz", "'X'", load_checkpoints, ck, data)


def test_data_with_datapoints_as_rows(tmp_path):
    g = _good()
    X = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])
    ck, data = _two(tmp_path, {0: g, 1: g}, X=X.T.copy(), Y=np.array([[1.0, 1, -1, -1]]).T.copy())
    msg = _raises("data.npz", "'X'", load_checkpoints, ck, data)
    assert "rows" in msg
    np.savez(tmp_path / "nox.npz", inputs=X, Y=np.ones((1, 4)))
    _raises("nox.npz", "'X'", load_data, tmp_path / "nox.npz")


def test_cli_exits_2_with_file_and_key(tmp_path, capsys):
    g = _good()
    ck, data = _two(tmp_path, {0: {**g, "b2": np.zeros(1)}, 1: g})
    assert main(["find-gates", "--checkpoints", ck, "--data", data, "--lr", "0.1", "--out",
                 str(tmp_path / "f.toml")]) == 2
    err = capsys.readouterr().err
    assert "step_0.safetensors" in err and "'b2'" in err
    # no learning rate anywhere
    d2 = tmp_path / "nolr"
    d2.mkdir()
    ck, data = _two(d2, {0: g, 1: g})
    assert main(["find-gates", "--checkpoints", ck, "--data", data, "--out", str(tmp_path / "f.toml")]) == 2
    assert "--lr" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------
# the path end to end, at tiny size
# ------------------------------------------------------------------------------------------
def test_paired_start_cuts_the_relu_weights(run_dir):
    d, _, X, Y = run_dir
    run = load_checkpoints(str(d / "step_*.safetensors"), d / "data.npz")
    found = find_gates_in_run(run, lr=LR, K=2)
    spec = found.spec
    # the result type of tk.find_gates, with the imported run in place of the trained one
    from theorykit.analysis.findgates import FoundGates
    assert isinstance(found, FoundGates) and found.run is run and found.lr == LR and found.summary()["K"] == 2
    assert sum(p.hidden for p in spec.pathways) == H
    start = paired_start(spec, run.params(0))
    W1, W2 = run.params(0)
    h0 = spec.pathways[0].hidden
    np.testing.assert_array_equal(start[f"input->{spec.pathways[0].name}"][0], W1[:h0])
    np.testing.assert_array_equal(start[f"{spec.pathways[-1].name}->output"][0], W2[:, H - spec.pathways[-1].hidden:])
    # with every gate on, the GDLN from the paired start is the linear network of the same weights:
    # at t = 0 its output is W2 W1 X (a hand check of the cut and the trainer's forward pass)
    from dataclasses import replace

    from theorykit.analysis._runs import gdln_outputs_from_start

    on = replace(spec, pathways=tuple(replace(p, active=(1,) * 4) for p in spec.pathways))
    out, _ = gdln_outputs_from_start(on, paired_start(on, run.params(0)), [0, 1], LR)
    np.testing.assert_allclose(out[0, 0], W2 @ W1 @ X, rtol=1e-12, atol=1e-15)


def _start_bounds(spec, W, a0, X, Y, L0):
    """How far each curve's first loss may lie from L_Y = ‖Y‖²/(2P), derived by hand (mean loss, P datapoints).

    For outputs Ŷ, L(Ŷ) = ‖Y − Ŷ‖²/(2P) = L_Y − ⟨Y, Ŷ⟩/P + ‖Ŷ‖²/(2P) with L_Y = ‖Y‖²/(2P), so by
    Cauchy–Schwarz |L(Ŷ) − L_Y| ≤ b(‖Ŷ‖) := (2‖Y‖‖Ŷ‖ + ‖Ŷ‖²)/(2P) (Frobenius norms). Each curve is within
    b of L_Y, and so is the run's L0: two curves start within the sum of their b's of each other, with
    * the run: Ŷ = W_L relu(… relu(W1 X)) at the first checkpoint, in numpy (and L0 is checked to be its loss);
    * the GDLN: pathway j owns the next h_j units of every layer (the paired start), gated by its
      pattern g_j over datapoints: Ŷ = Σ_j [W_L]_j … [W1]_j (X ⊙ g_j), inputs and outputs restricted;
    * the race: every mode starts at strength a0, aligned: a mode contributes a0 u vᵀ(X ⊙ g_j), of norm at
      most a0 ‖X ⊙ g_j‖₂, and a pathway has at most min(inputs, outputs) modes.
    A start at the wrong weights or the wrong a0 (ten times too large, say) breaks these bounds; the
    measured gaps (0.1 % to 2 % of L0) sit well inside them."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    P = X.shape[1]

    def b(m):
        return (2 * np.linalg.norm(Y) * m + m * m) / (2 * P)

    h = X
    for Wl in W[:-1]:
        h = np.maximum(Wl @ h, 0.0)
    run_out = W[-1] @ h
    assert L0 == pytest.approx(np.sum((Y - run_out) ** 2) / (2 * P), rel=1e-10)
    gdln_out, race_norm, start = np.zeros_like(Y), 0.0, 0
    for p in spec.pathways:
        units = slice(start, start + p.hidden)
        start += p.hidden
        g = np.asarray(p.active, float)
        Xp = X[list(p.inputs)] * g
        h = W[0][units][:, list(p.inputs)] @ Xp
        for Wl in W[1:-1]:
            h = Wl[units, units] @ h
        gdln_out[list(p.outputs)] += W[-1][list(p.outputs)][:, units] @ h
        race_norm += a0 * min(len(p.inputs), len(p.outputs)) * np.linalg.norm(Xp, 2)
    return {"run": b(np.linalg.norm(run_out)), "gdln": b(np.linalg.norm(gdln_out)), "race": b(race_norm)}


def test_find_gates_and_compare_end_to_end(run_dir, tmp_path, capsys):
    d, ref, X, Y = run_dir
    ck, data = str(d / "step_*.safetensors"), str(d / "data.npz")
    found = tmp_path / "found.toml"
    assert main(["find-gates", "--checkpoints", ck, "--data", data, "--out", str(found), "--max-K", "4",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "K = " in out and found.exists()
    from theorykit.spec.files import load_spec

    spec = load_spec(found)
    assert spec.training.lr == LR and sum(p.hidden for p in spec.pathways) == H
    np.testing.assert_array_equal(np.array(spec.task.numeric()[0]), X)
    cmp_dir = tmp_path / "cmp"
    assert main(["compare", str(found), "--checkpoints", ck, "--data", data, "--out", str(cmp_dir)]) == 0
    import json

    res = json.loads((cmp_dir / "compare.json").read_text())
    np.testing.assert_allclose(res["run_loss"], ref, rtol=1e-10)
    assert res["L0"] == pytest.approx(ref[0])
    # every datapoint is on in some found pathway (else the GDLN could not fit it: a floor above zero)
    assert np.array([p.active for p in spec.pathways]).max(axis=0).tolist() == [1] * X.shape[1]
    curves = {"run": np.array(res["run_loss"]), "gdln": np.array(res["gdln_loss"]), "race": np.array(res["race_loss"])}
    L0 = curves["run"][0]
    # the paired start: each curve starts within its derived distance of L0 (_start_bounds, by hand)
    W0 = [safetensors_numpy.load_file(str(d / "step_000000.safetensors"))[k] for k in ("W1", "W2")]
    # a0 by the rule of docs/theory.md#a0-rule, ¼(σ1² h + σ2² h) per pathway of width h, σ_l the layer's std
    # at the first checkpoint; one a0 for the spec: the geometric mean over pathways
    a0s = [0.25 * (np.std(W0[0]) ** 2 + np.std(W0[1]) ** 2) * p.hidden for p in spec.pathways]
    assert res["a0"] == pytest.approx(np.exp(np.mean(np.log(a0s))), rel=1e-12)
    bounds = _start_bounds(spec, W0, res["a0"], X, Y, L0)
    for nm, c in curves.items():
        assert len(c) == len(ref) and np.all(np.diff(c) < 0), nm            # each curve falls at every checkpoint
        assert abs(c[0] - L0) <= bounds[nm] + bounds["run"], (nm, c[0], L0, bounds)
        assert c[-1] < 0.03 * L0, nm                                       # and learns the task
    # the reported agreement is the largest gap over L0, recomputed here; a prediction stuck at L0
    # would give 1 − L_end/L0 ≈ 1 and fail the bound 0.35 (the measured gaps are 0.09 to 0.24)
    for k, (a, b) in {"gdln_vs_run": ("gdln", "run"), "race_vs_run": ("race", "run"),
                      "race_vs_gdln": ("race", "gdln")}.items():
        by_hand = np.max(np.abs(curves[a] - curves[b])) / L0
        assert res["agreement"][k] == pytest.approx(by_hand, rel=1e-12)
        assert by_hand < 0.35, (k, by_hand)
    html = (cmp_dir / "compare.html").read_text()
    assert html.count("data:image/png;base64,") == 2
    for f in ("loss.png", "gates.png"):
        assert (cmp_dir / f).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_refuses_a_spec_of_other_data(run_dir, tmp_path):
    d, *_ = run_dir
    ck, data = str(d / "step_*.safetensors"), str(d / "data.npz")
    other = tmp_path / "other.npz"
    X, Y = load_data(data)
    np.savez(other, X=2 * X, Y=Y)
    found = tmp_path / "f.toml"
    assert main(["find-gates", "--checkpoints", ck, "--data", data, "--out", str(found), "--K", "1", "--no-progress"]) == 0
    assert main(["compare", str(found), "--checkpoints", ck, "--data", str(other), "--out", str(tmp_path / "c")]) == 2


def test_docs_page_names_the_commands_and_its_images_exist():
    import re
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "own_network.md"
    text = page.read_text("utf-8")
    assert "theorykit find-gates --checkpoints" in text and "theorykit compare" in text
    imgs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(imgs) == 3 and all((page.parent / i).is_file() for i in imgs)


def test_two_hidden_layers(tmp_path):
    """A 3 → 6 → 6 → 1 run: depth-3 pathways; the paired start keeps each pathway's diagonal block of W2."""
    from theorykit.record import SaveAt
    from theorykit.sim.simulation import simulate
    from theorykit.spec.task import xor_margin

    X, Y = xor_margin(0.5).numeric()
    steps = [0, 40, 80, 120]
    sim = simulate((X, Y), network="relu", hidden=[6, 6], lr=0.05, steps=120, seeds=1, init_std=0.3,
                        save=SaveAt(ts=steps, fns={"p": lambda p, _d: p}))
    P = sim.saved["p"]
    for i, s in enumerate(steps):
        np.savez(tmp_path / f"ck{s}.npz", W1=P["input->h1"][0, i], W2=P["h1->h2"][0, i], W3=P["h2->output"][0, i])
    np.savez(tmp_path / "data.npz", X=X, Y=Y)
    run = load_checkpoints(str(tmp_path / "ck*.npz"), tmp_path / "data.npz")
    assert run.widths == [6, 6] and list(run.steps) == steps
    np.testing.assert_allclose(run.loss(), sim.loss[0][steps], rtol=1e-10, atol=1e-14)
    found = find_gates_in_run(run, lr=0.05, K=2)
    assert all(p.depth == 3 for p in found.spec.pathways)
    start = paired_start(found.spec, run.params(0))
    p0 = found.spec.pathways[0]
    h = p0.hidden
    np.testing.assert_array_equal(start[f"{p0.name}->{p0.name}_2"][0], run.params(0)[1][:h, :h])
    from theorykit.analysis.compare import compare_run

    cmp = compare_run(found.spec, run)
    np.testing.assert_allclose(cmp.run_loss, sim.loss[0][steps], rtol=1e-10)
    # the GDLN curve against numpy gradient descent on the gated depth-3 network from the paired start
    from _gd_reference import gdln_gd
    from theorykit.spec.graph import graph_from_pathways

    gps = graph_from_pathways(found.spec).pathways
    ref, _ = gdln_gd([(p.active, p.inputs, p.outputs) for p in found.spec.pathways],
                     [[np.asarray(start[k])[0] for k in gp.edges] for gp in gps], X, Y, lr=0.05, steps=120,
                     loss="mean")
    np.testing.assert_allclose(cmp.gdln_loss, ref[steps], rtol=1e-9)
    # its floor, by hand: a datapoint no found pathway is on for keeps its whole target, ‖y_μ‖²/(2P)
    on = np.array([p.active for p in found.spec.pathways]).max(axis=0)
    floor = float(np.sum(np.asarray(Y, float)[:, on == 0] ** 2) / (2 * X.shape[1]))
    assert np.all(np.diff(cmp.gdln_loss) < 0) and np.all(cmp.gdln_loss >= floor - 1e-12)
    # the race reduction of the same gates falls too, from about the same start
    race = np.asarray(cmp.race_loss)
    # "about": the race starts aligned at a0 (start_a0 of the run's weights), the GDLN at the cut random
    # weights; both within their derived distances of ‖Y‖²/(2P) (_start_bounds), so of each other
    assert len(race) == 4 and np.all(np.diff(race) < 0)
    # a0 by the rule of docs/theory.md#a0-rule, deeper than two layers: Π_l σ_l √(h/2) per pathway of width h
    W0 = run.params(0)
    a0s = [np.prod([np.std(W) * np.sqrt(p.hidden / 2) for W in W0]) for p in found.spec.pathways]
    assert cmp.a0 == pytest.approx(np.exp(np.mean(np.log(a0s))), rel=1e-12)
    bounds = _start_bounds(found.spec, W0, cmp.a0, X, Y, cmp.run_loss[0])
    assert abs(race[0] - cmp.gdln_loss[0]) <= bounds["race"] + bounds["gdln"], (race[0], cmp.gdln_loss[0], bounds)
    assert abs(cmp.gdln_loss[0] - cmp.run_loss[0]) <= bounds["gdln"] + bounds["run"]
    ag = cmp.agreement()
    assert ag["gdln_vs_run"] == pytest.approx(np.max(np.abs(cmp.gdln_loss - cmp.run_loss)) / cmp.run_loss[0])


def test_data_as_rows_when_the_shapes_alone_do_not_tell(tmp_path):
    """d = p = 3, P = 4: X.T and Y.T have equal column counts, so only the weights show the datapoints are rows."""
    rng = np.random.default_rng(1)
    X, Y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    g = {"W1": 0.1 * rng.standard_normal((5, 3)), "W2": 0.1 * rng.standard_normal((3, 5))}
    ck, data = _two(tmp_path, {0: g, 1: g}, X=X.T.copy(), Y=Y.T.copy())
    msg = _raises("data.npz", "'X'", load_checkpoints, ck, data)
    assert "rows" in msg
    ck, data = _two(tmp_path, {0: g, 1: g}, X=X, Y=Y)                  # as columns: fine
    assert load_checkpoints(ck, data).widths == [5]


def test_derive_summary_is_short_for_many_modes(monkeypatch, capsys):
    from pathlib import Path

    from theorykit.analysis import summary

    monkeypatch.setattr(summary, "stdout_is_terminal", lambda: True)
    ex = Path(__file__).resolve().parents[1] / "examples" / "contexts_double.toml"
    assert main(["derive", str(ex), "--times", "0,1000"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) < 60 and "mode 5:" not in out
    # four pathways: common (10 modes) and three (k−1)-context pathways (8 modes each), four shown each
    heads = re.findall(r"^  (\w+) +active on", out, flags=re.M)
    assert heads == ["common", "ctx12", "ctx13", "ctx23"]
    assert re.findall(r"… (\d+) more modes \(--json for all\)", out) == ["6", "4", "4", "4"]
    modes = re.findall(r"mode \d: s = ([\d.]+), d = ([\d.]+), end s/d = ([\d.]+), t½ = ([\d.]+)", out)
    assert len(modes) == 16
    # the printed numbers obey the mode relations (example: lr 0.01, mean loss: τ = 100 steps; a0 = 0.001):
    # end = s/d, and t½ = τ/(2s)·ln(s/(d a0) − 1), where a(t) = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}) = s/(2d)
    # rel 3e-3, derived: every number is printed to 4 significant digits, off by at most half a unit in the
    # 4th, i.e. ≤ 5e-4 relative. end = s/d from the printed s and d: ≤ 3 × 5e-4 = 1.5e-3. t½: the printed
    # s enters as 1/s·ln(q), q = s/(d a0) − 1 ≥ 2000 here, so with relative weight |1 − 1/ln q| < 1, d with
    # 1/ln q < 0.14, t½'s own rounding 1: ≤ 5e-4·(1 + 0.14 + 1) = 1.1e-3. 3e-3 is 2 to 3 times these bounds
    # (τ off by 1 % moves t½ by 1e-2 and fails it; a0 off by 1 % moves it by only 0.01/ln q ≈ 1.3e-3)
    for s_, d_, end, th in (tuple(map(float, m)) for m in modes):
        assert end == pytest.approx(s_ / d_, rel=3e-3)
        assert th == pytest.approx(100 / (2 * s_) * np.log(s_ / (d_ * 1e-3) - 1), rel=3e-3)
    # ctx12's first mode, by the printed exact values s = √10/8, d = 1/12
    assert "mode 1: s = 0.3953, d = 0.08333" in out and "(s = sqrt(10)/8, d = 1/12)" in out


def test_steps_files_and_formats(tmp_path):
    g = _good()
    ck, data = _two(tmp_path, {0: g, 1: g})
    with pytest.raises(SpecError, match="--steps"):
        load_checkpoints(ck, data, steps="0,1,2")                       # 3 steps for 2 files
    with pytest.raises(SpecError, match="matches no file"):
        load_checkpoints(str(tmp_path / "nope_*.safetensors"), data)
    (tmp_path / "step_2.safetensors").write_bytes(b"not a safetensors file")
    _raises("step_2.safetensors", "readable", load_checkpoints, ck, data)
    (tmp_path / "step_2.safetensors").unlink()
    (tmp_path / "w_3.pt").write_bytes(b"")
    _raises("w_3.pt", ".pt", load_checkpoints, [str(tmp_path / "step_0.safetensors"), str(tmp_path / "w_3.pt")], data)
    with pytest.raises(SpecError, match="at least two"):
        load_checkpoints(str(tmp_path / "step_0.safetensors"), data)



def test_the_step_is_the_last_number_in_the_file_name(tmp_path):
    """The module docstring: a checkpoint's step is the last integer in its file name. In
    run2_step_30.npz and run2_step_7.npz the run's number 2 comes first: the steps are 30 and 7, and
    the checkpoints are ordered by step (7 before 30, though "run2_step_30" sorts first by name)."""
    X = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])
    Y = np.array([[1.0, 1, -1, -1]])
    late, early = _good(), _good()
    np.savez(tmp_path / "run2_step_30.npz", **late)
    np.savez(tmp_path / "run2_step_7.npz", **early)
    run = load_checkpoints(str(tmp_path / "run2_step_*.npz"), (X, Y))
    assert run.steps.tolist() == [7, 30]
    np.testing.assert_array_equal(run.weights[0][0], early["W1"])
    np.testing.assert_array_equal(run.weights[1][1], late["W2"])

def test_compare_trains_the_gdln_in_the_runs_loss_convention(run_dir, tmp_path):
    """The run used the mean loss (P = 4). Compared as a summed-loss run, every curve is in the summed
    convention: at step 0 the GDLN's loss is ≈ P × its mean-loss value, and the run's exactly so."""
    from theorykit.analysis.compare import compare_run

    d, _, _, _ = run_dir
    run = load_checkpoints(str(d / "step_*.safetensors"), str(d / "data.npz"))
    spec = find_gates_in_run(run, lr=LR, K=2).spec
    mean, summed = (compare_run(spec, run, lr=LR, loss=k) for k in ("mean", "sum"))
    assert summed.run_loss[0] == pytest.approx(4 * mean.run_loss[0], rel=1e-12)
    assert summed.gdln_loss[0] == pytest.approx(4 * mean.gdln_loss[0], rel=1e-9)
    # the race too: the summed loss is P × the mean loss, and its gradient P × larger, so the flow's
    # time constant τ = 1/(η P) is P times shorter: L_sum(t) = P · L_mean(P t) at every checkpoint t
    # whose P t is a checkpoint too (0, 50, 100, 150 → 0, 200, 400, 600)
    pairs = [(i, int(np.flatnonzero(mean.t == 4 * ti)[0])) for i, ti in enumerate(summed.t) if 4 * ti in mean.t]
    assert len(pairs) >= 3
    for i, j in pairs:
        assert summed.race_loss[i] == pytest.approx(4 * mean.race_loss[j], rel=1e-6)


def test_a0_rule_with_unequal_layer_stds_is_the_derived_sum():
    """Two layers: a0 = ¼ E‖w1 + w2‖² = ¼(σ1² H + σ2² H) (docs/theory.md#a0-rule). σ1 = 0.05, σ2 = 0.01,
    H = 40: ¼(0.0025 + 0.0001)·40 = 0.026 (a reviewer's numpy gradient flow measured 0.026); the product
    σ1σ2H/2 = 0.01 is right only when σ1 = σ2 (then both give σ²H/2: 0.008 for σ = 0.02)."""
    from theorykit.net.starts import a0_rule

    assert a0_rule([0.05, 0.01], [40, 40]) == pytest.approx(0.026, rel=1e-12)
    assert a0_rule(0.02, 40) == pytest.approx(0.008, rel=1e-12) == a0_rule([0.02, 0.02], [40, 40])
    assert a0_rule(0.02, 40, 3) == pytest.approx((0.02 * np.sqrt(20)) ** 3, rel=1e-12)   # deeper: the product
