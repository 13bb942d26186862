"""``theorykit bench``: derivation time and simulator throughput, measured in one run.

Two parts, both reported as plain numbers and as ratios taken in the same process:

1. **Derivation time** of each paper result: the XoR ReLNs with Δ symbolic (Section 3), the
   Section 4 pathways (common + double on hierarchy/ring/cross, exact SVDs), the Section 5 ReLNs
   for k = 3, 4, 5 (exact SVDs of the common + (k−1)-context pathways), and the symbolic-k
   derivation of :mod:`theorykit.theory.k_contexts` (which covers every k at once).
2. **Simulation throughput** on the Section 4 ReLU network ([11, 700, 60], no bias, summed loss,
   η = 0.001, full-batch gradient descent), in network-steps per second: the ensemble simulator
   (:func:`theorykit.sim.simulation.simulate` (``network="relu"``), ``jit(vmap)`` over networks, ``lax.scan`` over steps)
   against a naive loop (one jitted gradient step per call, Python loops over networks and steps),
   in float64 and float32 (matmuls at "highest" precision). The ensemble's computation is compiled
   ahead of time and its execution timed alone (best of two); the library call is also timed end to
   end, compilation included; the naive loop is warmed up first. Every run is checked against the discrete gradient-descent recurrence: the
   ensemble's first network must equal the naive loop's (same initial weights) to float tolerance;
   the naive step is written out by hand in this module (forward, gradient, update), a second method
   that shares no code with the library's forward pass, loss or autodiff.
   Beside the FLOP rate, the bytes one step moves (XLA's cost analysis of one compiled step of all
   the networks) against the device's measured stream rate say how near the memory bound it runs.

``--quick`` is a CPU run of a minute or two; the default sizes are meant for a GPU (targets on an
H100: ≥ 7 M network-steps/s in float32 at "highest" precision, ≥ 3 M in float64).
"""
from __future__ import annotations

import platform
import sys
import time

import numpy as np
from .bench_derive import paper_results, run_section, timed
from .net.layout import MATMUL_PRECISION, Net, as_dtype, net_loss, objective_for
from .net.starts import random_params
from .sim.simulation import simulate
from .record import SaveAt
from .sim.engine import _make_trainer
from .spec.limits import fixed_size
from .spec.task import contexts, xor_margin
from .sim.fused import _fused_steps, pad_to
from .spec.files import load_spec, example_path
from .spec.graph import scaled
from .theory.flow import RK4
from .theory.race import RaceSystem
from .spec.gating import GDLNSpec, Training, context_pathways, family_masks, xor_relns
from .analysis.predict import predict_reln
from .io import write_json

__all__ = ["run_bench", "throughput"]

QUICK = {"ensemble_networks": 8, "steps_short": 500, "steps_long": 1000, "naive_networks": 4, "naive_steps": 60,
         "scan_networks": 4, "scan_steps": 250, "gdln_networks": 4, "gdln_steps": 300, "race_steps": 2000,
         "section5_ks": (3, 4, 5)}
FULL = {"ensemble_networks": 256, "steps_short": 2000, "steps_long": 8000, "naive_networks": 8, "naive_steps": 500,
        "scan_networks": 8, "scan_steps": 2000, "gdln_networks": 64, "gdln_steps": 2000, "race_steps": 20000,
        "section5_ks": (3, 4, 5)}


def _naive_runner(X, Y, hidden, lr, init_std, dtype):
    """One jitted full-batch GD step per call; Python loops over networks and steps.

    The step is a second method, written out here by hand and sharing no code with the library's
    forward pass, loss or autodiff: Z = W1 X, H = max(Z, 0), Ŷ = W2 H, R = Ŷ − Y; for the summed
    loss L = ½ Σ R² the gradients are ∂L/∂W2 = R Hᵀ and ∂L/∂W1 = ((W2ᵀ R) ⊙ [Z > 0]) Xᵀ; then
    W ← W − η ∂L/∂W. Agreement with the ensemble is thus agreement of two computations."""
    import jax
    import jax.numpy as jnp

    dt = as_dtype(dtype)
    Xj, Yj = jnp.asarray(X, dt), jnp.asarray(Y, dt)
    net = Net.chain(Xj.shape[0], [hidden], Yj.shape[0])

    @jax.jit
    def step(params):
        W1, W2 = params
        with jax.default_matmul_precision(MATMUL_PRECISION):
            Z = W1 @ Xj
            H = jnp.maximum(Z, 0.0)
            R = W2 @ H - Yj
            g2 = R @ H.T
            g1 = ((W2.T @ R) * (Z > 0).astype(dt)) @ Xj.T
            return [W1 - lr * g1, W2 - lr * g2], 0.5 * jnp.sum(R * R)

    def run(networks, steps, seed=0, start=None):
        """``start``: optional initial weights (list of arrays with a leading network axis)."""
        if start is None:
            p0 = random_params(net, init_std, networks, seed, dtype)
            start = [p0[k] for k in net.keys]
        finals = []
        for i in range(networks):
            p = [jnp.asarray(w[i], dt) for w in start]
            for _ in range(steps):
                p, _ = step(p)
            finals.append(p)
        jax.block_until_ready(finals)
        return finals

    return run


def _ensemble_runner(X, Y, hidden, lr, init_std, dtype, networks, steps, seed=0, start=None):
    """The one trainer (:func:`theorykit.sim.engine._make_trainer`, as :func:`theorykit.sim.simulation.simulate` (``network="relu"``)
    calls it), compiled ahead of time so that execution can be timed alone. ``start``: initial
    weights (list, leading network axis), else drawn as simulate draws them. Returns
    (execute, compile seconds, FLOPs of the compiled program from XLA's cost analysis)."""
    import jax.numpy as jnp

    dt = as_dtype(dtype)
    data = (jnp.asarray(X, dt), jnp.asarray(Y, dt))
    net = Net.chain(data[0].shape[0], [hidden], data[1].shape[0])
    p0 = random_params(net, init_std, networks, seed, dtype) if start is None else \
        {k: jnp.asarray(w, dt) for k, w in zip(net.keys, start)}
    return _compiled(_make_trainer(net_loss(net, "sum"), steps=steps, save=SaveAt()), p0, data, lr, dt,
                     lambda out: [out[0][k] for k in net.keys])


def _compiled(tr, p0, data, lr, dt, unpack):
    """The trainer ``tr`` compiled ahead of time for weights shaped as ``p0``: (execute, compile seconds,
    FLOPs); ``execute(p)`` runs it on the weights ``p`` (by default ``p0``): ``(unpack(out), losses)``."""
    import jax
    import jax.numpy as jnp

    n = jax.tree_util.tree_leaves(p0)[0].shape[0]
    lrs = jnp.full((n,), lr, dt)
    with jax.default_matmul_precision(MATMUL_PRECISION):
        t_compile, compiled, _ = timed(lambda: tr.fn.lower(p0, data, lrs).compile())
    flops = _flops(compiled)

    def execute(p=p0):
        out = compiled(p, data, lrs)
        jax.block_until_ready(out)
        return unpack(out), out[1]

    return execute, t_compile, flops


def _flops(compiled, key: str = "flops"):
    """FLOPs (or, with ``key="bytes accessed"``, bytes read and written) of a compiled program by
    XLA's cost analysis (None where the backend gives none). XLA counts a loop body once, so callers
    divide by the work of one body."""
    try:
        ca = compiled.cost_analysis()
        ca = ca[0] if isinstance(ca, (list, tuple)) else ca
        return float(ca.get(key)) if ca and ca.get(key) is not None else None
    except Exception:  # noqa: BLE001 - cost analysis is optional on some backends
        return None


def _step_cost(net, data, dtype, networks: int = 1, key: str = "flops"):
    """FLOPs (or ``key``, as :func:`_flops`) of one full-batch gradient step, per network, by XLA's
    cost analysis of the jitted step (of ``networks`` networks at once, vmapped as the ensemble
    runs them, where ``networks`` > 1)."""
    import jax

    p = random_params(net, 0.01, networks, 0, dtype)
    vg = jax.value_and_grad(net_loss(net, "sum"))

    def step(p):
        v, g = vg(p, data)
        return jax.tree_util.tree_map(lambda w, gw: w - 1e-3 * gw, p, g), v

    with jax.default_matmul_precision(MATMUL_PRECISION):
        if networks == 1:
            c = jax.jit(step).lower({k: v[0] for k, v in p.items()}).compile()
        else:
            c = jax.jit(jax.vmap(step)).lower(p).compile()
    v = _flops(c, key)
    return v / networks if v is not None else None


def matmul_rate(dtype: str, n: int = 1024, reps: int = 8) -> float:
    """The device's measured matmul rate (FLOP/s) at "highest" precision: best of three timings of
    ``reps`` chained n × n products."""
    import jax

    dt = as_dtype(dtype)
    A = jax.random.normal(jax.random.PRNGKey(0), (n, n), dt) / np.sqrt(n)
    B = jax.random.normal(jax.random.PRNGKey(1), (n, n), dt)

    @jax.jit
    def chain(B):
        for _ in range(reps):
            B = A @ B
        return B

    with jax.default_matmul_precision(MATMUL_PRECISION):
        jax.block_until_ready(chain(B))
        best = min(timed(lambda: jax.block_until_ready(chain(B)))[0] for _ in range(3))
    return 2.0 * n ** 3 * reps / best


def memory_rate(dtype: str, n: int | None = None, reps: int = 8) -> float:
    """The device's measured streaming rate (bytes/s): best of three timings of ``reps`` calls of
    x ← a·x + b over n numbers, each call one pass that reads and writes x once (its buffer donated,
    so nothing is allocated or copied: XLA's cost analysis counts exactly 2 n itemsize bytes a call).
    n: 2²⁷ on a GPU (1 GiB in float64), 2²⁵ elsewhere; both are larger than the device's caches."""
    import jax
    import jax.numpy as jnp

    dt = as_dtype(dtype)
    n = n or (2 ** 27 if jax.default_backend() == "gpu" else 2 ** 25)
    one_pass = jax.jit(lambda x: x * 0.5 + 1.0, donate_argnums=0)
    x = jax.block_until_ready(one_pass(jnp.ones((n,), dt)))

    def passes():
        nonlocal x
        for _ in range(reps):
            x = one_pass(x)
        jax.block_until_ready(x)

    best = min(timed(passes)[0] for _ in range(3))
    return 2.0 * n * jnp.dtype(dt).itemsize * reps / best


def throughput(cfg, dtype: str, mm_rate: float | None = None, mem_rate: float | None = None) -> dict:
    """The Section 4 ReLU network [11, 700, 60]: the ensemble (one trainer) against two baselines,
    in network-steps/s and FLOP/s, with the discrete gradient-descent recurrence checked."""
    import jax

    X, Y = contexts(8, 3, blocks=["hierarchy", "ring", "cross"], limits=fixed_size()).numeric()
    H, lr, std = 700, 0.001, 0.005 / 700
    B, S = cfg["ensemble_networks"], cfg["steps_long"]
    net = Net.chain(X.shape[0], [H], Y.shape[0])
    dt = as_dtype(dtype)
    data = (jax.numpy.asarray(X, dt), jax.numpy.asarray(Y, dt))
    step_flops = _step_cost(net, data, dtype)
    # 1. the ensemble, execution timed alone (best of two runs)
    execute, t_compile, _ = _ensemble_runner(X, Y, H, lr, std, dtype, B, S)
    ens_time = min(timed(execute)[0] for _ in range(2))
    ens_rate = B * S / ens_time
    # 2. the library call end to end (compilation included)
    t_lib, r_lib, _ = timed(lambda: simulate((X, Y), network="relu", hidden=H, lr=lr, steps=cfg["steps_short"], seeds=B,
                                             init_std=std, loss="sum", dtype=dtype))
    start = simulate((X, Y), network="relu", hidden=H, lr=lr, steps=0, seeds=B, init_std=std, loss="sum", dtype=dtype).params
    # 3a. baseline: one jitted step per call (Python loops over networks and steps)
    naive = _naive_runner(X, Y, H, lr, std, dtype)
    naive(1, 2)                                  # compile and warm up
    Bn, Sn = cfg["naive_networks"], cfg["naive_steps"]
    t_n, finals, _ = timed(lambda: naive(Bn, Sn, start=start))
    naive_rate = Bn * Sn / t_n
    # 3b. baseline: one jitted lax.scan per network, networks one after another (the same trainer, E = 1)
    Ss = cfg["scan_steps"]
    one = _make_trainer(net_loss(net, "sum"), steps=Ss, save=SaveAt())
    p_one = [{k: jax.numpy.asarray(w[i:i + 1], dt) for k, w in zip(net.keys, start)} for i in range(cfg["scan_networks"])]
    run_one = _compiled(one, p_one[0], data, lr, dt, lambda out: out[0])[0]
    run_one()                                    # warm up
    t_s, _, _ = timed(lambda: [run_one(p) for p in p_one])
    scan_rate = cfg["scan_networks"] * Ss / t_s
    # 4. the discrete GD recurrence: network 0 of the library ensemble, of the timed runner and of the naive loop
    r_chk = simulate((X, Y), network="relu", hidden=H, lr=lr, steps=Sn, seeds=B, init_std=std, loss="sum", dtype=dtype)
    ex_chk, _, _ = _ensemble_runner(X, Y, H, lr, std, dtype, B, Sn, start=start)
    p_run = ex_chk()[0]
    lib_W = [np.asarray(w[0]) for w in r_chk.params]
    nv_W = [np.asarray(w) for w in finals[0]]
    run_W = [np.asarray(w[0]) for w in p_run]

    diff = max(_rel(lib_W, nv_W), _rel(run_W, lib_W))
    tol = 1e-10 if dtype == "float64" else 1e-4
    # 5. the fused multi-step kernel (Pallas), timed on a GPU only, checked against the naive loop
    fused = _fused_figures(X, Y, net, lr, dt, B, S, Sn, start, nv_W, tol)
    # forward W1X, W2h; backward dW2, dh, dW1 (no input gradient): 2 FLOP per multiply-add
    analytic = 2 * X.shape[1] * (2 * H * X.shape[0] + 3 * Y.shape[0] * H)
    fl = step_flops or float(analytic)
    mm = mm_rate if mm_rate is not None else matmul_rate(dtype)
    # memory traffic of one step of the B networks, as XLA compiles it (its fusions decide how often
    # the weights and the intermediates go through memory): the rate it allows at the measured stream rate
    step_bytes = _step_cost(net, data, dtype, networks=B, key="bytes accessed")
    mem = mem_rate if mem_rate is not None else memory_rate(dtype)
    mem_bound = mem / step_bytes if step_bytes else None
    w_bytes = sum(int(np.prod(sh)) for sh in net.shapes().values()) * np.dtype(dt).itemsize
    return {"dtype": dtype, "networks": B, "steps": S, "ensemble_network_steps_per_s": ens_rate,
            "ensemble_seconds": ens_time, "ensemble_compile_seconds": t_compile,
            "flops_per_network_step_xla": step_flops, "flops_per_network_step_analytic": analytic,
            "ensemble_flop_per_s": ens_rate * fl, "matmul_flop_per_s": mm, "fraction_of_matmul_rate": ens_rate * fl / mm,
            "bytes_per_network_step_xla": step_bytes,
            "weight_bytes_per_network": w_bytes,
            "memory_bytes_per_s": mem, "memory_bound_network_steps_per_s": mem_bound,
            # the ceiling of any step that keeps the weights in device memory: each read and written once
            "weight_roundtrip_bound_network_steps_per_s": mem / (2 * w_bytes),
            "fraction_of_memory_bound": ens_rate / mem_bound if mem_bound else None,
            "library_call_seconds_including_compile": t_lib, "library_call_steps": cfg["steps_short"],
            "library_call_network_steps_per_s_including_compile": B * cfg["steps_short"] / t_lib,
            "naive_networks": Bn, "naive_steps": Sn, "naive_network_steps_per_s": naive_rate,
            "scan_networks": cfg["scan_networks"], "scan_steps": Ss, "scan_per_network_network_steps_per_s": scan_rate,
            "ratio_ensemble_over_naive": ens_rate / naive_rate, "ratio_ensemble_over_scan_per_network": ens_rate / scan_rate,
            "matches_naive_recurrence": bool(diff < tol), "max_rel_weight_difference": diff, "tolerance": tol,
            "final_loss_mean_library_call": float(r_lib.loss[:, -1].mean()), "fused": fused,
            "fused_flop_per_s": fused["network_steps_per_s"] * fl if "network_steps_per_s" in fused else None}


def _fused_figures(X, Y, net, lr, dt, B, S, Sn, start, nv_W, tol) -> dict:
    """The fused kernel (:mod:`theorykit.sim.fused`) on the same ensemble: execution timed alone
    (best of two) on a GPU, and its weights after ``Sn`` steps checked against the naive loop's.
    Elsewhere Pallas runs it in an interpreter, which tests it but says nothing of speed: not timed."""
    import jax
    import jax.numpy as jnp

    if jax.default_backend() != "gpu":
        return {"status": "not timed: no GPU (on a CPU Pallas interprets the kernel; the tests check it there)"}
    try:
        D, P = X.shape
        O, H = Y.shape[0], dict(net.nodes)["h1"]
        Hp, Dp, Op, Pp = pad_to(H), pad_to(D), pad_to(O), pad_to(P)
        pad = lambda a, shape: jnp.pad(jnp.asarray(a, dt), [(0, q - n) for n, q in zip(a.shape, shape)])  # noqa: E731
        Xp, Yp = pad(X, (Dp, Pp)), pad(Y, (Op, Pp))
        W1 = pad(np.asarray(start[0]), (B, Hp, Dp))
        W2 = pad(np.asarray(start[1]), (B, Op, Hp))
        run = lambda W1, W2, k: _fused_steps(W1, W2, Xp, Yp, steps=k, lr=float(lr), scale=1.0, relu=True)  # noqa: E731
        chk = jax.block_until_ready(run(W1, W2, Sn))
        diff = _rel([np.asarray(chk[0][0, :H, :D]), np.asarray(chk[1][0, :O, :H])], nv_W)
        jax.block_until_ready(run(W1, W2, S))                       # compile the timed length
        t = min(timed(lambda: jax.block_until_ready(run(W1, W2, S)))[0] for _ in range(2))
        return {"status": "ok", "network_steps_per_s": B * S / t, "seconds": t, "padded_shapes": [Hp, Dp, Op, Pp],
                "matches_naive_recurrence": bool(diff < tol), "max_rel_weight_difference": diff}
    except Exception as exc:  # noqa: BLE001 - the kernel's compilation is backend-dependent: report, don't stop
        return {"status": f"failed: {type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"}


def verdict(matches: bool, difference: float) -> str:
    """The recurrence check as the table prints it: ``ok (1.2e-13)`` or ``MISMATCH (3.4e-02)``, the
    largest relative weight difference (:func:`_rel`) in brackets; the one wording of every row."""
    return f"{'ok' if matches else 'MISMATCH'} ({difference:.1e})"


def _rel(a_, b_) -> float:
    """The largest relative difference of two lists of weight arrays (each over the max of ``b_``'s)."""
    return max(float(np.max(np.abs(x - y)) / (np.max(np.abs(y)) + 1e-300)) for x, y in zip(a_, b_))


def fused_where_it_fits(cfg, dtype: str, hidden: int = 128) -> dict:
    """On a GPU, the fused kernel against the plain ensemble at a width whose kernel fits the shared
    memory: the Section 4 data with ``hidden`` units (the paper's 700 do not fit an H100 or H200).
    Both timed alone, best of two, ``ensemble_networks`` × ``steps_long``; the fused weights after
    ``naive_steps`` steps are checked against the plain ensemble's. It answers whether keeping the
    weights on the chip between steps pays, before the kernel is split to fit 700 units."""
    import jax

    if jax.default_backend() != "gpu":
        return {"status": "not timed: no GPU"}
    X, Y = contexts(8, 3, blocks=["hierarchy", "ring", "cross"], limits=fixed_size()).numeric()
    lr, std, B, S, Sn = 0.001, 0.005 / hidden, cfg["ensemble_networks"], cfg["steps_long"], cfg["naive_steps"]
    net = Net.chain(X.shape[0], [hidden], Y.shape[0])
    execute, _, _ = _ensemble_runner(X, Y, hidden, lr, std, dtype, B, S)
    plain = B * S / min(timed(execute)[0] for _ in range(2))
    p0 = random_params(net, std, B, 0, dtype)
    start = [np.asarray(p0[k]) for k in net.keys]
    ref = _ensemble_runner(X, Y, hidden, lr, std, dtype, B, Sn, start=start)[0]()[0]
    tol = 1e-10 if dtype == "float64" else 1e-4
    fused = _fused_figures(X, Y, net, lr, as_dtype(dtype), B, S, Sn, start, [np.asarray(w[0]) for w in ref], tol)
    rate = fused.get("network_steps_per_s")
    return {"dtype": dtype, "hidden": hidden, "networks": B, "steps": S, "plain_network_steps_per_s": plain,
            "fused": fused, "ratio_fused_over_plain": rate / plain if rate else None}


def gdln_throughput(cfg, dtype: str, mm: float) -> dict:
    """The Section 6 GDLN of ``examples/section6_paper.toml`` (staged schedule) at the quick suite's
    size, as one ensemble of the one trainer: network-steps/s and FLOP/s."""
    import jax.numpy as jnp

    g = scaled(load_spec(example_path("section6_paper.toml")), 7 / 30, 2)
    net = Net.from_graph(g)
    X, Y = g.task.numeric()
    dt = as_dtype(dtype)
    data = (jnp.asarray(X, dt), jnp.asarray(Y, dt))
    B, S = cfg["gdln_networks"], cfg["gdln_steps"]
    objective, mask = objective_for(net, g.schedule, "sum")
    tr = _make_trainer(net_loss(net, "sum"), steps=S, objective=objective, mask=mask, save=SaveAt())
    p0 = random_params(net, g.edge_init_scales(g.training.init_std), B, 0, dtype)
    execute, t_c, _ = _compiled(tr, p0, data, g.training.lr, dt, lambda out: out[0])
    t = min(timed(execute)[0] for _ in range(2))
    fl = _step_cost(net, data, dtype)
    rate = B * S / t
    return {"dtype": dtype, "network": "Section 6 GDLN, paper protocol, quick size (h1 = 98, 7 modules of 14)",
            "networks": B, "steps": S, "network_steps_per_s": rate, "compile_seconds": t_c,
            "flops_per_network_step_xla_joint_step": fl,
            "flop_per_s_lower_bound": rate * fl if fl else None,
            "fraction_of_matmul_rate_lower_bound": rate * fl / mm if fl else None,
            "note": "the staged objective evaluates each group's output as well; FLOPs counted for the plain step"}


def race_throughput(cfg) -> dict:
    """The race engine on every context-gated family of Section 4 (k = 3: 127 families), float64."""
    task = contexts(8, 3, blocks=["hierarchy", "ring", "cross"], limits=fixed_size())
    subsets, masks, _labels = family_masks(3)
    spec = GDLNSpec(task, context_pathways(8, 3, subsets), Training(lr=0.001, loss="sum", a0=1e-4))
    masks = np.asarray(masks, float)
    T = cfg["race_steps"]
    system = RaceSystem.from_spec(spec)
    solver = RK4(spec.tau / 40)
    system.solve(SaveAt(every=10), t_end=10, masks=masks[:2], solver=solver)          # compile a small one first
    t, rf, _ = timed(lambda: system.solve(SaveAt(every=max(1, T // 20)), t_end=T, masks=masks, solver=solver))
    return {"families": int(masks.shape[0]), "flow_steps": T, "seconds": t, "families_per_s": masks.shape[0] / t,
            "rk4_step": rf.extra["h"], "final_loss_range": [float(rf.loss[:, -1].min()), float(rf.loss[:, -1].max())],
            "reuse": rk4_reuse()}


def rk4_reuse() -> dict:
    """A REPL's first and repeated call of the same shapes (the compiled RK4 program is reused):
    an XoR race solve by RK4 and a small ``predict_reln`` (XoR, 16 hidden units, 300 steps); and
    the race solved for another number of recording times of the same count bucket (11 after 9: the
    grid padded to 16), against its first call."""
    xor = RaceSystem.from_spec(GDLNSpec(xor_margin(), xor_relns()["xor"], Training(lr=0.05, a0=1e-3)), {"Delta": 0.5})
    calls = {"race_solve": lambda: xor.solve(SaveAt(every=100), t_end=800, solver=RK4(0.5)),
             "predict_reln": lambda: predict_reln(xor_margin(0.5), 16, Training(lr=0.05, init_std=0.01, steps=300),
                                                  progress=False)}
    out = {}
    for key, call in calls.items():
        first, again = timed(call)[0], timed(call)[0]
        out[key] = {"first_s": first, "repeat_s": again, "first_over_repeat": first / again}
        if key == "race_solve":
            other = timed(lambda: xor.solve(SaveAt(every=100), t_end=1000, solver=RK4(0.5)))[0]
            out["race_solve_other_count"] = {"first_s": first, "repeat_s": other, "first_over_repeat": first / other}
    return out


def reuse_lines(reuse: dict) -> list:
    """The table's lines of :func:`rk4_reuse`'s figures (none where they were not measured)."""
    names = {"race_solve": "XoR race solve (RK4)", "predict_reln": "predict_reln, XoR, 16 hidden"}
    lines = [f"  {names[k]}: first call {r['first_s']:.3f} s, the same call again {r['repeat_s']:.3f} s "
             f"({r['first_over_repeat']:.1f} x; the compiled program reused)" for k, r in reuse.items() if k in names]
    r = reuse.get("race_solve_other_count")
    if r:
        lines.insert(1 if "race_solve" in reuse else 0,
                     f"  XoR race solve (RK4), 11 recording times after 9: first call {r['first_s']:.3f} s, this call "
                     f"{r['repeat_s']:.3f} s ({r['first_over_repeat']:.1f} x; one count bucket, the program reused)")
    return lines


def _device():
    import jax

    d = jax.devices()[0]
    return {"platform": d.platform, "device": str(d), "device_kind": getattr(d, "device_kind", ""),
            "count": jax.device_count(),
            "cpu": platform.processor() or platform.machine(), "jax": jax.__version__}


def run_bench(quick: bool = False, json_out: str | None = None, write=None, progress: bool = False) -> int:
    """Run the benchmark, print a table, optionally write JSON (atomically). Returns an exit status.

    ``progress``: a line on stderr as each part starts (``bench: matmul rate (12 s in)``), never on
    stdout, which carries the table (the command line's, unless ``--no-progress``).

    ``write(path, record)`` writes the JSON (each time a part is measured); by default
    :func:`theorykit.io.write_json`, and the command line passes its own writer of results (the same
    atomic write, an error named ``--json``)."""
    write = write or write_json
    cfg = QUICK if quick else FULL
    dev = _device()
    targets = {"float32": 7e6, "float64": 3e6}
    res = {"mode": "quick" if quick else "full", "device": dev, "config": cfg, "targets_h100": targets,
           "gpu": dev["platform"] == "gpu", "matmul_precision": MATMUL_PRECISION, "complete": False}

    def save(**parts):
        # each part is printed and (with --json) written as soon as it is measured, so a run stopped
        # at a time limit (a lent GPU's minutes) still leaves what it measured
        res.update(parts)
        if json_out:
            write(json_out, res)

    t0 = time.perf_counter()

    def part(what):
        if progress:
            print(f"bench: {what} ({time.perf_counter() - t0:.0f} s in)", file=sys.stderr, flush=True)

    where = f"{dev['platform']} ({dev['device_kind'] or dev['cpu']}), {dev['count']} device(s), jax {dev['jax']}"
    print(f"theorykit bench ({'quick' if quick else 'full'}) on {where}", flush=True)
    part(f"derivation times (XoR, Section 4, Section 5 k = {', '.join(map(str, cfg['section5_ks']))})")
    der = paper_results(ks=tuple(cfg["section5_ks"]))     # fresh objects, so no cached properties
    save(derivation=der)
    print("\nDerivation time")
    w = max(len(r["result"]) for r in der)
    for r in der:
        print(f"  {r['result']:<{w}}  {r['seconds']:8.2f} s")
    base = der[0]["seconds"]
    print("  (ratios to the XoR derivation: " + ", ".join(f"{r['seconds'] / base:.1f}" for r in der[1:]) + ")",
          flush=True)
    part("matmul rate, float64 and float32")
    mm = {dt: matmul_rate(dt) for dt in ("float64", "float32")}
    save(matmul_flop_per_s=mm)
    print(f"\nMeasured matmul rate of this device, 1024 x 1024 products, precision 'highest': "
          f"float64 {mm['float64'] / 1e9:.1f} GFLOP/s, float32 {mm['float32'] / 1e9:.1f} GFLOP/s", flush=True)
    part("stream rate, float64 and float32")
    mem = {dt: memory_rate(dt) for dt in ("float64", "float32")}
    save(memory_bytes_per_s=mem)
    print(f"Measured stream rate (x <- a x + b, read and write): float64 {mem['float64'] / 1e9:.0f} GB/s, "
          f"float32 {mem['float32'] / 1e9:.0f} GB/s", flush=True)
    thr = [part(f"Section 4 ReLU ensemble and baselines, {dt}") or throughput(cfg, dt, mm[dt], mem[dt])
           for dt in ("float64", "float32")]
    save(throughput=thr)
    print(f"\nSection 4 ReLU network [11, 700, 60], full-batch GD, on {where}")
    print(f"  ensemble (one trainer, jit+vmap): {cfg['ensemble_networks']} networks x {cfg['steps_long']} steps, "
          f"execution only; baselines: one jitted step per call ({cfg['naive_networks']} x {cfg['naive_steps']}), "
          f"one jitted lax.scan per network, networks one after another ({cfg['scan_networks']} x {cfg['scan_steps']})")
    print(f"  {'dtype':<8}{'ensemble':>12}{'GFLOP/s':>9}{'of matmul':>10}{'step/call':>11}{'scan/net':>10}"
          f"{'x step':>8}{'x scan':>8}  FLOP/step (XLA)  recurrence")
    for r in thr:
        print(f"  {r['dtype']:<8}{r['ensemble_network_steps_per_s']:>12,.0f}{r['ensemble_flop_per_s'] / 1e9:>9.1f}"
              f"{r['fraction_of_matmul_rate']:>10.0%}{r['naive_network_steps_per_s']:>11,.0f}"
              f"{r['scan_per_network_network_steps_per_s']:>10,.0f}{r['ratio_ensemble_over_naive']:>8.1f}"
              f"{r['ratio_ensemble_over_scan_per_network']:>8.1f}  {r['flops_per_network_step_xla'] or float('nan'):>14,.0f}"
              f"  {verdict(r['matches_naive_recurrence'], r['max_rel_weight_difference'])}")
    print("  (network-steps/s; FLOP from XLA's cost analysis of one compiled step; analytic count "
          f"{thr[0]['flops_per_network_step_analytic']:,} FLOP)")
    for r in thr:
        if r["memory_bound_network_steps_per_s"]:
            mb, times = r["bytes_per_network_step_xla"] / 1e6, r["bytes_per_network_step_xla"] / r["weight_bytes_per_network"]
            print(f"  memory, {r['dtype']}: a step of the {r['networks']} networks as XLA compiles it moves {mb:.2f} MB "
                  f"per network ({times:.1f} x its weights); the stream rate allows "
                  f"{r['memory_bound_network_steps_per_s']:,.0f} network-steps/s, and the ensemble runs at "
                  f"{r['fraction_of_memory_bound']:.0%} of that")
    for r in thr:
        f = r["fused"]
        if "network_steps_per_s" in f:
            print(f"  fused kernel (Pallas), {r['dtype']}: {f['network_steps_per_s']:,.0f} network-steps/s, "
                  f"{r['fused_flop_per_s'] / 1e9:.1f} GFLOP/s ({r['fused_flop_per_s'] / r['matmul_flop_per_s']:.0%} of matmul), "
                  f"{f['network_steps_per_s'] / r['ensemble_network_steps_per_s']:.2f} x the ensemble; recurrence "
                  f"{verdict(f['matches_naive_recurrence'], f['max_rel_weight_difference'])}")
        else:
            print(f"  fused kernel (Pallas), {r['dtype']}: {f['status']}")
    if dev["platform"] == "gpu":
        small = [part(f"fused kernel where it fits, {dt}") or fused_where_it_fits(cfg, dt) for dt in ("float64", "float32")]
        save(fused_where_it_fits=small)
        for r in small:
            f = r["fused"]
            print(f"  where the kernel fits, [11, {r['hidden']}, 60], {r['dtype']}: plain ensemble "
                  f"{r['plain_network_steps_per_s']:,.0f} network-steps/s, fused "
                  + (f"{f['network_steps_per_s']:,.0f} ({r['ratio_fused_over_plain']:.2f} x); recurrence "
                     f"{verdict(f['matches_naive_recurrence'], f['max_rel_weight_difference'])}"
                     if r["ratio_fused_over_plain"] else f["status"]))
    sys.stdout.flush()
    gd = [part(f"Section 6 GDLN, {dt}") or gdln_throughput(cfg, dt, mm[dt]) for dt in ("float64", "float32")]
    save(gdln_throughput=gd)
    print(f"\nSection 6 GDLN (graph spec, staged schedule, quick size), {cfg['gdln_networks']} networks x "
          f"{cfg['gdln_steps']} steps")
    for r in gd:
        print(f"  {r['dtype']:<8}{r['network_steps_per_s']:>12,.0f} network-steps/s"
              + (f", >= {r['flop_per_s_lower_bound'] / 1e9:.1f} GFLOP/s ({r['fraction_of_matmul_rate_lower_bound']:.0%} "
                 "of matmul)" if r["flop_per_s_lower_bound"] else ""), flush=True)
    part("race engine")
    race = race_throughput(cfg)
    save(race_engine=race)
    print(f"\nRace engine (RK4 in JAX, vmapped): all {race['families']} context-gated families of Section 4, "
          f"{race['flow_steps']} steps of flow time: {race['seconds']:.1f} s, {race['families_per_s']:.1f} families/s "
          "(float64, compilation included)")
    for line in reuse_lines(race.get("reuse", {})):
        print(line)
    if dev["platform"] == "gpu":
        for r in thr:
            for name, rate in (("ensemble", r["ensemble_network_steps_per_s"]),
                               ("fused kernel", r["fused"].get("network_steps_per_s"))):
                if rate is not None:
                    ok = rate >= targets[r["dtype"]]
                    print(f"  target {r['dtype']}, {name}: >= {targets[r['dtype']]:,.0f} on an H100: "
                          f"{'met' if ok else 'NOT met'}")
            print(f"  ({r['dtype']}: a step that reads and writes each weight once, and nothing else, allows "
                  f"{r['weight_roundtrip_bound_network_steps_per_s']:,.0f} network-steps/s at the measured stream "
                  "rate; only a kernel that keeps the weights on the chip between steps can pass that)")
    else:
        print("\nno GPU: these are CPU figures; the H100 targets (>= 7 M float32 at 'highest', >= 3 M float64) "
              "are not measured here")
    total = time.perf_counter() - t0
    ok = all(r["matches_naive_recurrence"] and r["fused"].get("matches_naive_recurrence", True) for r in thr) \
        and all(r["fused"].get("matches_naive_recurrence", True) for r in res.get("fused_where_it_fits", []))
    save(seconds=total, all_checks_pass=ok)
    sys.stdout.flush()
    part("derivation scaling table (a row as each case is done)")
    scaling = run_section(quick)
    print(f"\ntotal {total:.1f} s (before the scaling table)")
    save(derivation_scaling=scaling, complete=True)
    if json_out:
        print(f"wrote {json_out}")
    return 0 if ok else 1
