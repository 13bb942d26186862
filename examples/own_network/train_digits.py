"""Train a small bias-free ReLU network on scikit-learn's digits and save safetensors checkpoints.

This stands for *your own* training run, done outside theorykit: PyTorch if it is installed,
else plain JAX (the same full-batch gradient descent either way). It writes

    OUT/data.npz                    X (64 × P) and Y (10 × P): datapoints as columns
    OUT/step_000000.safetensors     W1 (hidden × 64) and W2 (10 × hidden), out × in, every --every steps

with the learning rate and the loss convention in each checkpoint's metadata (``lr``, ``loss``),
so that ``theorykit find-gates`` and ``theorykit compare`` need no more flags. The loss is
theorykit's "mean" loss, L = 1/(2P) Σ_μ ‖ŷ_μ − y_μ‖² (PyTorch's ``MSELoss()`` is 1/(pP) Σ, which
is 2/p times this: the same run with lr scaled by p/2).

    python examples/own_network/train_digits.py --out run/
    theorykit find-gates --checkpoints 'run/step_*.safetensors' --data run/data.npz --out found.toml
    theorykit compare found.toml --checkpoints 'run/step_*.safetensors' --data run/data.npz --out compare/

The digits ship with scikit-learn (no download).
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def digits_data(per_class: int, seed: int = 0):
    """X (64 × P, pixels / 16, so entries are multiples of 1/16) and one-hot Y (10 × P)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    rng = np.random.default_rng(seed)
    idx = np.concatenate([rng.choice(np.flatnonzero(d.target == c), per_class, replace=False) for c in range(10)])
    X = d.data[idx].T / 16.0
    Y = np.eye(10)[d.target[idx]].T
    return X, Y


def init_weights(d, hidden, p, init_std, seed):
    rng = np.random.default_rng(seed)
    return [init_std * rng.standard_normal((hidden, d)), init_std * rng.standard_normal((p, hidden))]


def train_torch(X, Y, W, lr, steps, every, save):
    import torch

    torch.set_default_dtype(torch.float64)
    net = torch.nn.Sequential(torch.nn.Linear(X.shape[0], W[0].shape[0], bias=False), torch.nn.ReLU(),
                              torch.nn.Linear(W[0].shape[0], Y.shape[0], bias=False))
    with torch.no_grad():
        net[0].weight.copy_(torch.from_numpy(W[0]))
        net[2].weight.copy_(torch.from_numpy(W[1]))
    Xt, Yt = torch.from_numpy(X.T), torch.from_numpy(Y.T)        # torch wants datapoints as rows
    opt = torch.optim.SGD(net.parameters(), lr=lr)
    P = X.shape[1]
    for t in range(steps + 1):
        if t % every == 0 or t == steps:
            save(t, net[0].weight.detach().numpy(), net[2].weight.detach().numpy())
        if t == steps:
            break
        opt.zero_grad()
        loss = 0.5 * ((net(Xt) - Yt) ** 2).sum() / P
        loss.backward()
        opt.step()


def train_jax(X, Y, W, lr, steps, every, save):
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    P = X.shape[1]
    Xj, Yj = jnp.asarray(X), jnp.asarray(Y)

    def loss(w):
        return 0.5 * jnp.sum((w[1] @ jax.nn.relu(w[0] @ Xj) - Yj) ** 2) / P

    @jax.jit
    def step(w):
        g = jax.grad(loss)(w)
        return [a - lr * b for a, b in zip(w, g)]

    w = [jnp.asarray(a) for a in W]
    for t in range(steps + 1):
        if t % every == 0 or t == steps:
            save(t, np.asarray(w[0]), np.asarray(w[1]))
        if t == steps:
            break
        w = step(w)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="run", help="folder for data.npz and the checkpoints")
    ap.add_argument("--per-class", type=int, default=20, help="digits per class (P = 10 × this)")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--every", type=int, default=50, help="save a checkpoint every this many steps")
    ap.add_argument("--init-std", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--backend", choices=["auto", "torch", "jax"], default="auto")
    a = ap.parse_args(argv)
    from safetensors.numpy import save_file

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    X, Y = digits_data(a.per_class, a.seed)
    np.savez(out / "data.npz", X=X, Y=Y)
    W = init_weights(X.shape[0], a.hidden, Y.shape[0], a.init_std, a.seed)
    meta = {"lr": repr(a.lr), "loss": "mean"}

    def save(t, W1, W2):
        save_file({"W1": np.ascontiguousarray(W1), "W2": np.ascontiguousarray(W2)},
                  str(out / f"step_{t:06d}.safetensors"), metadata=meta)

    backend = a.backend
    if backend == "auto":
        try:
            import torch  # noqa: F401
            backend = "torch"
        except ImportError:
            backend = "jax"
    (train_torch if backend == "torch" else train_jax)(X, Y, W, a.lr, a.steps, a.every, save)
    print(f"trained with {backend}: P = {X.shape[1]}, hidden {a.hidden}, {a.steps} steps; checkpoints in {out}/")


if __name__ == "__main__":
    main()
