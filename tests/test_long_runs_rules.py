"""Rules that came from a long-run user's walkthrough: a researcher who interrupts sweeps, resumes
them into the same --out folder, damages their files, and brings their own checkpoints. Each
expected value is worked out by hand (docs/theory.md#xor) or computed a second way in the test,
never pasted from a run of the code under test. Tiny specs and few steps: each test runs in seconds.

examples/xor_linear.toml, mean loss: with no network the loss is ½·Σy²/P (P = 4 datapoints).
Targets ±1 give ½; targets ±2 give ½·16/4 = 2. At Δ = 0 (s = d = 0, docs/theory.md#xor) no mode
can learn, so the loss stays at that value for every step."""
import json
from pathlib import Path

import numpy as np
import pytest

from theorykit.errors import SpecError

EX = Path(__file__).resolve().parent.parent / "examples"
XOR = EX / "xor_linear.toml"


def _spec(tmp_path, targets="[[1, 1, -1, -1]]", name="a.toml"):
    from theorykit.spec.files import load_spec

    text = XOR.read_text().replace("hidden = 64", "hidden = 4")
    text = text.replace("targets = [[1, 1, -1, -1]]", f"targets = {targets}")
    p = tmp_path / name
    p.write_text(text)
    return load_spec(str(p))


def _sweep(spec, out, **kw):
    from theorykit.analysis.sweep import parse_grid, run_sweep

    grid = parse_grid([kw.pop("grid", "Delta=0,0.5")], spec.task.symbols)
    args = dict(seeds=2, steps=5, chunk=2, progress=False)
    args.update(kw)
    return run_sweep(spec, grid, out=out, **args)


def test_a_changed_spec_file_is_a_different_sweep(tmp_path):
    """The sweep's key holds the spec's data: the same declaration with other targets in the same
    folder is refused (it used to resume silently, with the first spec's losses), and said to be a
    change of the spec. In a folder of its own, its loss at Δ = 0 is 2 (module docstring), not ½."""
    one = _spec(tmp_path)
    two = _spec(tmp_path, targets="[[2, 2, -2, -2]]", name="b.toml")
    first = _sweep(one, tmp_path / "sw")
    np.testing.assert_allclose(first["loss"][:2], 0.5, rtol=0, atol=1e-12)    # Δ = 0: ½ throughout
    with pytest.raises(SpecError, match="different sweep.*the spec's data, pathways or training changed") as exc:
        _sweep(two, tmp_path / "sw")
    assert exc.value.field == "out"           # run_sweep's keyword (the command line: --out)
    own = _sweep(two, tmp_path / "own")
    np.testing.assert_allclose(own["loss"][:2], 2.0, rtol=0, atol=1e-12)


def test_a_refused_declaration_names_what_changed(tmp_path):
    """--seeds 2 then --seeds 3 into one folder: the refusal names the field and both values."""
    spec = _spec(tmp_path)
    _sweep(spec, tmp_path / "sw")
    with pytest.raises(SpecError, match=r"seeds 2 -> 3"):
        _sweep(spec, tmp_path / "sw", seeds=3)
    with pytest.raises(SpecError, match=r"dtype 'float64' -> 'float32'"):
        _sweep(spec, tmp_path / "sw", dtype="float32")


@pytest.mark.parametrize("damage", [b"", b"garbage\n", b"PK\x03\x04 truncated"])
def test_a_damaged_chunk_file_is_run_again_and_said(tmp_path, damage):
    """A chunk file that cannot be read (truncated, not an .npz) is run again, with a note naming
    it, and the result equals the undamaged run's (it used to stop with an internal error)."""
    spec = _spec(tmp_path)
    first = _sweep(spec, tmp_path / "sw")
    bad = tmp_path / "sw" / "chunks" / "chunk_00001.npz"
    bad.write_bytes(damage)
    again = _sweep(spec, tmp_path / "sw")
    assert again["chunks_computed"] == [1]
    assert any(str(bad) in n and "run again" in n for n in again["notes"])
    np.testing.assert_array_equal(again["loss"], first["loss"])
    # Δ = 1/2 from a0 = 1e-3 (tests/test_cli_rules.py XOR_L0): L(0) = ½ − 2·(a0/4 − a0²/16)
    np.testing.assert_allclose(again["loss"][2:, 0], 0.5 - 2 * (1e-3 / 4 - 1e-6 / 16), rtol=1e-12)


def test_a_damaged_sweep_json_is_refused_naming_it(tmp_path):
    """DIR/sweep.json that is not JSON: an error on --out naming the file (it used to be an internal
    error), and deleting it resumes from the chunks, computing none."""
    spec = _spec(tmp_path)
    first = _sweep(spec, tmp_path / "sw")
    manifest = tmp_path / "sw" / "sweep.json"
    manifest.write_text("{bad")
    with pytest.raises(SpecError, match="sweep.json is not a sweep's JSON") as exc:
        _sweep(spec, tmp_path / "sw")
    assert exc.value.field == "out"
    manifest.unlink()
    again = _sweep(spec, tmp_path / "sw")
    assert again["chunks_computed"] == []
    np.testing.assert_array_equal(again["loss"], first["loss"])
    assert json.loads(manifest.read_text())["complete"]


def test_without_sweep_json_another_sweeps_chunks_are_neither_used_nor_overwritten(tmp_path):
    """sweep.json deleted, then a sweep of another spec of the same size into that folder: its chunks
    carry their sweep's key, so they are refused (not taken as this sweep's, not overwritten)."""
    one = _spec(tmp_path)
    two = _spec(tmp_path, targets="[[2, 2, -2, -2]]", name="b.toml")
    _sweep(one, tmp_path / "sw")
    (tmp_path / "sw" / "sweep.json").unlink()
    chunk = tmp_path / "sw" / "chunks" / "chunk_00000.npz"
    before = chunk.read_bytes()
    with pytest.raises(SpecError, match="chunk_00000.npz belongs to a different sweep"):
        _sweep(two, tmp_path / "sw")
    assert chunk.read_bytes() == before
    assert not (tmp_path / "sw" / "sweep.json").exists()


# ------------------------------------------------------------------------------------------
# find-gates on a run of one's own (docs/own_network.md)
# ------------------------------------------------------------------------------------------
def _small_run(tmp_path, H=3, d=4, p=2, P=8, every=20, steps=100, lr=0.1):
    """A bias-free d → H → p ReLU network trained by full-batch gradient descent on the mean loss
    (written out here, as a user's own training loop), an .npz checkpoint every ``every`` steps."""
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((d, P)), rng.standard_normal((p, P))
    np.savez(tmp_path / "data.npz", X=X, Y=Y)
    W1, W2 = 0.1 * rng.standard_normal((H, d)), 0.1 * rng.standard_normal((p, H))
    (tmp_path / "run").mkdir()
    for t in range(steps + 1):
        if t % every == 0:
            np.savez(tmp_path / "run" / f"step_{t}.npz", W1=W1, W2=W2)
        h = W1 @ X
        E = (W2 @ np.maximum(h, 0) - Y) / P
        W1, W2 = W1 - lr * ((W2.T @ E) * (h > 0)) @ X.T, W2 - lr * E @ np.maximum(h, 0).T
    return str(tmp_path / "run" / "step_*.npz"), str(tmp_path / "data.npz")


def test_the_elbow_of_a_narrow_run_stops_at_its_width(tmp_path):
    """3 hidden units: the paired start gives each pathway at least one unit, so the elbow tries
    K = 1, 2, 3 (not the default 1 … 8, which stopped with 'K: 4 pathways cannot share 3 hidden
    units' though no K was given), says so, and --K 4 is refused on --K."""
    from theorykit.analysis.checkpoints import find_gates_in_run, load_checkpoints

    ck, data = _small_run(tmp_path, H=3)
    run = load_checkpoints(ck, data)
    assert run.widths == [3]
    found = find_gates_in_run(run, lr=0.1, n_init=5)
    assert [r["K"] for r in found.scores] == [1, 2, 3]
    assert found.K <= 3 and sum(p.hidden for p in found.spec.pathways) == 3
    assert any("K = 1 … 3" in n for n in found.notes)
    with pytest.raises(SpecError, match="3 units") as exc:
        find_gates_in_run(run, lr=0.1, K=4, n_init=5)
    assert exc.value.field == "K"             # find_gates_in_run's keyword (the command line: --K)


def test_steps_given_out_of_order_are_put_in_order_with_their_files(tmp_path):
    """--steps gives one step per file in the order of the sorted file names; given 20,0,60,40 the run
    is steps 0, 20, 40, 60 (it used to keep 20, 0, 60, 40, and the GDLN trained for 40 − 20 = 20
    steps), each with its own file's weights (read here with numpy), and the GDLN trains for the
    run's span, 60 − 0 = 60 steps."""
    from theorykit.analysis.checkpoints import find_gates_in_run, load_checkpoints

    ck, data = _small_run(tmp_path, every=20, steps=60)
    names = [tmp_path / "run" / f"step_{t}.npz" for t in (0, 20, 40, 60)]
    plain = []
    for i, f in enumerate(names):                   # names without a step number: ck_a < ck_b < …
        g = tmp_path / "run" / f"ck_{'abcd'[i]}.npz"
        f.rename(g)
        plain.append(g)
    given = [20, 0, 60, 40]                         # ck_a is step 20, ck_b step 0, …
    run = load_checkpoints(str(tmp_path / "run" / "ck_*.npz"), data, steps=given)
    assert run.steps.tolist() == [0, 20, 40, 60]
    for i, s in enumerate(run.steps):
        with np.load(plain[given.index(s)]) as z:
            np.testing.assert_array_equal(run.weights[0][i], z["W1"])
    found = find_gates_in_run(run, lr=0.1, K=1, n_init=5)
    assert found.spec.training.steps == 60


def test_two_files_of_one_step_are_named(tmp_path):
    """step_20.npz and step_020.npz are both step 20: the error names both files."""
    from theorykit.analysis.checkpoints import load_checkpoints

    ck, data = _small_run(tmp_path, every=20, steps=40)
    (tmp_path / "run" / "step_020.npz").write_bytes((tmp_path / "run" / "step_20.npz").read_bytes())
    with pytest.raises(SpecError, match=r"step_020\.npz and .*step_20\.npz are both step 20"):
        load_checkpoints(ck, data)


def test_one_missing_file_is_said_to_be_missing(tmp_path):
    """--checkpoints a path that does not exist: 'no such file' naming it (it used to say that one
    file is too few checkpoints)."""
    from theorykit.analysis.checkpoints import load_checkpoints

    _, data = _small_run(tmp_path, every=20, steps=40)
    with pytest.raises(SpecError, match="no such file: .*gone.npz") as exc:
        load_checkpoints(str(tmp_path / "gone.npz"), data)
    assert exc.value.field == "--checkpoints"


@pytest.mark.parametrize("kw, field", [({"K": 0}, "K"), ({"Ks": []}, "Ks"), ({"Ks": [0, 1]}, "Ks"),
                                       ({"Ks": [4, 5]}, "Ks")])
def test_find_gates_in_run_checks_K_and_Ks_as_find_gates_does(tmp_path, kw, field):
    """K = 0, no Ks, a K below 1, or only Ks above the run's 3 hidden units: a SpecError on that
    argument (they used to reach k-means or the elbow and stop with their own errors)."""
    from theorykit.analysis.checkpoints import find_gates_in_run, load_checkpoints

    run = load_checkpoints(*_small_run(tmp_path, H=3, every=20, steps=40))
    with pytest.raises(SpecError) as exc:
        find_gates_in_run(run, lr=0.1, n_init=5, **kw)
    assert exc.value.field == field


def test_a_checkpoint_with_a_layer_more_than_the_first_is_refused(tmp_path):
    """step_0 holds W1, W2 and step_20 W1, W2, W3 (another network): refused naming step_20's key
    'W3' (W3 used to be left out without a word, as if step_20 were the two-layer network)."""
    from theorykit.analysis.checkpoints import load_checkpoints

    ck, data = _small_run(tmp_path, every=20, steps=20)
    with np.load(tmp_path / "run" / "step_20.npz") as z:
        W1, W2 = z["W1"], z["W2"]
    np.savez(tmp_path / "run" / "step_20.npz", W1=W1, W2=W2, W3=np.eye(2))
    with pytest.raises(SpecError, match="step_20.npz: key 'W3'"):
        load_checkpoints(ck, data)
