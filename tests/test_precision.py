"""Float32 products run at "highest" precision on purpose (docs: on a GPU the default for float32 is
TF32, 10 mantissa bits). Checked on CPU from the jaxpr: with the setting applied, every
``dot_general`` carries ``precision=(Precision.HIGHEST, Precision.HIGHEST)``; without it, none."""
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import theorykit as tk

HIGHEST = "precision=(Precision.HIGHEST, Precision.HIGHEST)"


def _dots(jaxpr_text: str) -> list:
    """The parameter block of every dot_general in a jaxpr's text (nested jaxprs included)."""
    return re.findall(r"dot_general\[(.*?)\n\s*\]", jaxpr_text, flags=re.S)


def _all_highest(jaxpr_text: str) -> bool:
    dots = _dots(jaxpr_text)
    assert dots, "no matrix product traced: the check would be empty"
    return all(HIGHEST in d for d in dots)


def test_the_check_sees_the_default():
    a = jnp.ones((3, 3), jnp.float32)
    assert not any(HIGHEST in d for d in _dots(str(jax.make_jaxpr(lambda x: x @ x)(a))))
    with jax.default_matmul_precision("highest"):
        assert _all_highest(str(jax.make_jaxpr(lambda x: x @ x)(a)))


def test_aligned_start_in_float32_is_built_at_highest_precision():
    """aligned_params (private chains) built W1 = c R Vᵀ, W2 = c U Rᵀ at the default precision: on a
    GPU a float32 start was TF32-rounded, off the aligned start by ~1e-3 relative."""
    from theorykit.net.starts import aligned_params

    spec = tk.GDLNSpec(tk.xor_margin(1), tk.xor_relns()["xor"], tk.Training(lr=0.01))
    text = str(jax.make_jaxpr(lambda: aligned_params(spec, 1e-3, 2, 0, "float32"))())
    assert _all_highest(text)


def test_shared_edge_aligned_start_in_float32_is_built_at_highest_precision():
    from test_graph import shared_graph_dict
    from theorykit.net.layout import Net
    from theorykit.net.starts import aligned_net_params
    from theorykit.spec.files import spec_from_dict

    d = shared_graph_dict()
    d["nodes"][2]["width"] = 4
    g = spec_from_dict(d)
    X, Y = g.task.numeric()
    text = str(jax.make_jaxpr(lambda: aligned_net_params(Net.from_graph(g), X, Y, 1e-2, 2, 0, "float32"))())
    assert _all_highest(text)


def test_xor_grid_aligned_start_is_built_at_highest_precision():
    from theorykit.sim import grid

    task = tk.xor_margin()
    paths = [p.resolve(task) for p in tk.xor_relns(4)["linear"]]
    frames = [{p.name: (np.ones((len(p.outputs), 1)), np.ones((len(p.inputs), 1)) / np.sqrt(len(p.inputs)))
               for p in paths}] * 2
    points = [{"Delta": 0.5}, {"Delta": 1.0}]
    text = str(jax.make_jaxpr(lambda: grid.aligned_reln_grid_start(task, paths, points, frames, 1e-3, seeds=2,
                                                                   dtype="float32")[1])())
    assert _all_highest(text)


def test_xor_grid_aligned_start_is_aligned_and_balanced_at_every_grid_point():
    """The grid's aligned start is the one aligned start at each grid point: per pathway,
    W2 W1 = a0 u vᵀ (W1 = √a0 r vᵀ, W2 = √a0 u rᵀ with ‖r‖ = ‖u‖ = ‖v‖ = 1) and W1 W1ᵀ = W2ᵀ W2
    (both a0 r rᵀ), for frames written here by hand, different at the two grid points."""
    from theorykit.sim import grid

    task = tk.xor_margin()
    paths = [p.resolve(task) for p in tk.xor_relns(4)["linear"]]
    rng = np.random.default_rng(3)

    def unit(n):
        x = rng.normal(size=(n, 1))
        return x / np.linalg.norm(x)

    frames = [{p.name: (unit(len(p.outputs)), unit(len(p.inputs))) for p in paths} for _ in range(2)]
    a0, seeds = 2e-3, 3
    net, p0 = grid.aligned_reln_grid_start(task, paths, [{"Delta": 0.5}, {"Delta": 1.0}], frames, a0, seeds=seeds)
    for p in paths:
        W1, W2 = np.asarray(p0[f"input->{p.name}"]), np.asarray(p0[f"{p.name}->output"])
        assert W1.shape == (2 * seeds, p.hidden, len(p.inputs)) and W2.shape == (2 * seeds, len(p.outputs), p.hidden)
        for m in range(2 * seeds):                       # members: grid-major, then seed
            u, v = frames[m // seeds][p.name]
            np.testing.assert_allclose(W2[m] @ W1[m], a0 * u @ v.T, rtol=0, atol=1e-15)
            np.testing.assert_allclose(W1[m] @ W1[m].T, W2[m].T @ W2[m], rtol=0, atol=1e-15)


@pytest.mark.parametrize("hidden_layers", [1, 2])
def test_exact_reln_outputs_at_highest_precision(hidden_layers):
    rng = np.random.default_rng(0)
    X = jnp.asarray(rng.normal(size=(3, 5)), jnp.float32)
    sizes = [3] + [4] * hidden_layers + [2]
    Ws = [jnp.asarray(rng.normal(size=(o, i)), jnp.float32) for i, o in zip(sizes[:-1], sizes[1:])]
    assert _all_highest(str(jax.make_jaxpr(lambda *W: tk.exact_reln_outputs(list(W), X))(*Ws)))


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_trainer_traces_its_step_at_highest_precision(dtype):
    """engine.train: the loss and its gradient are traced under jax.default_matmul_precision("highest")
    (what the trainer's own jaxpr holds is recorded from inside its trace)."""
    from theorykit.sim.engine import train

    seen = []

    def loss(p, d):
        seen.append(str(jax.make_jaxpr(lambda W, X: W @ X)(p, d[0])))
        return 0.5 * jnp.sum((p @ d[0] - d[1]) ** 2)

    X = jnp.asarray(np.eye(3), dtype)
    Y = jnp.asarray(np.ones((2, 3)), dtype)
    train(loss, jnp.zeros((2, 2, 3), dtype), (X, Y), lr=0.1, steps=3)
    assert seen and all(_all_highest(t) for t in seen)
