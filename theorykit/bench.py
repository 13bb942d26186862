"""``theorykit bench``: derivation time and simulator throughput, measured in one run.

Two parts, both reported as plain numbers and as ratios taken in the same process:

1. **Derivation time** of each paper result: the XoR ReLNs with Δ symbolic (Section 3), the
   Section 4 pathways (common + double on hierarchy/ring/cross, exact SVDs), the Section 5 ReLNs
   for k = 3, 4, 5 (exact SVDs of the common + (k−1)-context pathways), and the symbolic-k
   derivation of :mod:`theorykit.derivations.k_contexts` (which covers every k at once).
2. **Simulation throughput** on the Section 4 ReLU network ([11, 700, 60], no bias, summed loss,
   η = 0.001, full-batch gradient descent), in network-steps per second: the ensemble simulator
   (:func:`theorykit.simulate.simulate_relu`, ``jit(vmap)`` over networks, ``lax.scan`` over steps)
   against a naive loop (one jitted gradient step per call, Python loops over networks and steps),
   in float64 and float32 (matmuls at "highest" precision). The ensemble's computation is compiled
   ahead of time and its execution timed alone (best of two); the library call is also timed end to
   end, compilation included; the naive loop is warmed up first. Every run is checked against the discrete gradient-descent recurrence: the
   ensemble's first network must equal the naive loop's (same initial weights) to float tolerance.

``--quick`` is a CPU run of a minute or two; the default sizes are meant for a GPU (targets on an
H100: ≥ 10 M network-steps/s in float32, ≥ 3 M in float64).
"""
from __future__ import annotations

import platform
import time

import numpy as np

__all__ = ["run_bench", "derivation_times", "throughput"]

QUICK = {"ensemble_networks": 8, "steps_short": 500, "steps_long": 1000, "naive_networks": 4, "naive_steps": 60,
         "section5_ks": (3, 4, 5)}
FULL = {"ensemble_networks": 256, "steps_short": 2000, "steps_long": 8000, "naive_networks": 8, "naive_steps": 500,
        "section5_ks": (3, 4, 5)}


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def derivation_times(cfg) -> list:
    """Wall time of each paper result's derivation (fresh objects, so no cached properties)."""
    import sympy as sp

    from .derivation import Derivation
    from .gating import GDLNSpec, Training, context_pathways, xor_relns
    from .suites import load_package
    from .task import contexts, xor_margin

    rows = []

    def xor():
        out = {}
        for name, paths in xor_relns().items():
            der = Derivation(GDLNSpec(xor_margin(), paths))
            out[name] = (der.method, der.loss)
        s_lin = Derivation(GDLNSpec(xor_margin(), xor_relns()["linear"])).modes["positive"].modes[0].s
        s_xor = Derivation(GDLNSpec(xor_margin(), xor_relns()["xor"])).modes["point0"].modes[0].s
        D = sp.Symbol("Delta", nonnegative=True)
        crossing = sp.solve(sp.Eq(s_lin, s_xor), D)
        return out, crossing

    sec, (out, crossing) = _timed(xor)
    rows.append({"result": "XoR ReLNs, Delta symbolic (Sec. 3): modes, closed-form losses, crossover",
                 "seconds": sec, "detail": f"crossover Delta* = {crossing}"})

    def sec4():
        task = contexts(8, 3, blocks=["hierarchy", "ring", "cross"])
        der = Derivation(GDLNSpec(task, context_pathways(8, 3, [(0, 1), (0, 2), (1, 2)]), Training(loss="sum")))
        return der.modes, der.method, der.race_system()

    sec, (modes, meth, _) = _timed(sec4)
    rows.append({"result": "Section 4 pathways (common + double; hierarchy, ring, cross): exact SVDs, race system",
                 "seconds": sec, "detail": f"method {meth}, {sum(m.rank for m in modes.values())} modes"})
    for kk in cfg["section5_ks"]:
        def sec5(kk=kk):
            task = contexts(8, kk)
            fam = [tuple(c for c in range(kk) if c != q) for q in range(kk)]
            der = Derivation(GDLNSpec(task, context_pathways(8, kk, fam), Training(loss="sum")))
            return der.modes

        sec, modes = _timed(sec5)
        rows.append({"result": f"Section 5, k = {kk}: common + (k-1)-context pathways, exact SVDs (n = 8)",
                     "seconds": sec, "detail": f"{sum(m.rank for m in modes.values())} modes"})
    load_package("derivations")
    from theorykit.derivations import k_contexts as kc

    sec, res = _timed(lambda: kc.derive(check_ks=[], latex=True))
    rows.append({"result": "Sections 4-5 for symbolic k, n, sigma (all k at once): common pathway, residual, "
                           "(k-1)-, single- and r-context pathways, LaTeX",
                 "seconds": sec, "detail": f"s = {res.kminus1['s']}, d = {res.kminus1['d_eff']}"})
    return rows


def _naive_runner(X, Y, hidden, lr, init_std, dtype):
    """One jitted full-batch GD step per call; Python loops over networks and steps."""
    import jax
    import jax.numpy as jnp

    from .engine import Net, as_dtype, loss_value
    from .init import random_params
    from .simulate import relu_forward

    dt = as_dtype(dtype)
    Xj, Yj = jnp.asarray(X, dt), jnp.asarray(Y, dt)
    net = Net.chain(Xj.shape[0], [hidden], Yj.shape[0])

    def loss_fn(params):
        return loss_value(relu_forward(params, Xj), Yj, "sum")

    @jax.jit
    def step(params):
        with jax.default_matmul_precision("highest"):
            val, g = jax.value_and_grad(loss_fn)(params)
            return [w - lr * gw for w, gw in zip(params, g)], val

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
    """The one trainer (:func:`theorykit.engine.make_trainer`, as :func:`theorykit.simulate.simulate_relu`
    calls it), compiled ahead of time so that execution can be timed alone. ``start``: initial
    weights (list, leading network axis), else drawn as simulate_relu draws them."""
    import jax
    import jax.numpy as jnp

    from .engine import Net, SaveAt, as_dtype, make_trainer, net_loss
    from .init import random_params

    dt = as_dtype(dtype)
    data = (jnp.asarray(X, dt), jnp.asarray(Y, dt))
    net = Net.chain(data[0].shape[0], [hidden], data[1].shape[0])
    p0 = random_params(net, init_std, networks, seed, dtype) if start is None else \
        {k: jnp.asarray(w, dt) for k, w in zip(net.keys, start)}
    tr = make_trainer(net_loss(net, "sum"), steps=steps, save=SaveAt())
    lrs = jnp.full((networks,), lr, dt)
    t0 = time.perf_counter()
    compiled = tr.fn.lower(p0, data, lrs).compile()
    t_compile = time.perf_counter() - t0

    def execute():
        out = compiled(p0, data, lrs)
        jax.block_until_ready(out)
        return [out[0][k] for k in net.keys], out[1]

    return execute, t_compile


def throughput(cfg, dtype: str) -> dict:
    """Ensemble vs naive network-steps per second on the Section 4 ReLU network."""
    from .simulate import simulate_relu
    from .task import contexts

    X, Y = contexts(8, 3, blocks=["hierarchy", "ring", "cross"]).numeric()
    H, lr, std = 700, 0.001, 0.005 / 700
    B, S = cfg["ensemble_networks"], cfg["steps_long"]
    # 1. the ensemble, execution timed alone (best of two runs)
    execute, t_compile = _ensemble_runner(X, Y, H, lr, std, dtype, B, S)
    times = []
    for _ in range(2):
        t_run, _ = _timed(execute)
        times.append(t_run)
    ens_rate = B * S / min(times)
    # 2. the library call end to end (compilation included)
    t_lib, r_lib = _timed(lambda: simulate_relu(X, Y, hidden=H, lr=lr, steps=cfg["steps_short"], seeds=B,
                                                init_std=std, loss="sum", dtype=dtype))
    # 3. the naive loop from the same initial weights (vmapped float32 normals need not equal unbatched ones)
    naive = _naive_runner(X, Y, H, lr, std, dtype)
    naive(1, 2)                                  # compile and warm up
    Bn, Sn = cfg["naive_networks"], cfg["naive_steps"]
    start = simulate_relu(X, Y, hidden=H, lr=lr, steps=0, seeds=B, init_std=std, loss="sum", dtype=dtype).params
    t_n, finals = _timed(lambda: naive(Bn, Sn, start=start))
    naive_rate = Bn * Sn / t_n
    # 4. the discrete GD recurrence: network 0 of the library ensemble, of the timed runner and of the naive
    #    loop agree after Sn steps
    r_chk = simulate_relu(X, Y, hidden=H, lr=lr, steps=Sn, seeds=B, init_std=std, loss="sum", dtype=dtype)
    ex_chk, _ = _ensemble_runner(X, Y, H, lr, std, dtype, B, Sn, start=start)
    p_run = ex_chk()[0]
    lib_W = [np.asarray(w[0]) for w in r_chk.params]
    nv_W = [np.asarray(w) for w in finals[0]]
    run_W = [np.asarray(w[0]) for w in p_run]

    def rel(a_, b_):
        return max(float(np.max(np.abs(x - y)) / (np.max(np.abs(y)) + 1e-300)) for x, y in zip(a_, b_))

    diff = max(rel(lib_W, nv_W), rel(run_W, lib_W))
    tol = 1e-10 if dtype == "float64" else 1e-4
    return {"dtype": dtype, "networks": B, "steps": S, "ensemble_network_steps_per_s": ens_rate,
            "ensemble_seconds": min(times), "ensemble_compile_seconds": t_compile,
            "library_call_seconds_including_compile": t_lib, "library_call_steps": cfg["steps_short"],
            "library_call_network_steps_per_s_including_compile": B * cfg["steps_short"] / t_lib,
            "naive_networks": Bn, "naive_steps": Sn, "naive_network_steps_per_s": naive_rate,
            "ratio_ensemble_over_naive": ens_rate / naive_rate,
            "matches_naive_recurrence": bool(diff < tol), "max_rel_weight_difference": diff, "tolerance": tol,
            "final_loss_mean_library_call": float(r_lib.loss[:, -1].mean())}


def _device():
    import jax

    d = jax.devices()[0]
    return {"platform": d.platform, "device": str(d), "device_kind": getattr(d, "device_kind", ""),
            "cpu": platform.processor() or platform.machine(), "jax": jax.__version__}


def run_bench(quick: bool = False, json_out: str | None = None) -> int:
    """Run the benchmark, print a table, optionally write JSON (atomically). Returns an exit status."""
    from . import jaxify  # noqa: F401  (float64 available)

    cfg = QUICK if quick else FULL
    dev = _device()
    t0 = time.perf_counter()
    der = derivation_times(cfg)
    thr = [throughput(cfg, "float64"), throughput(cfg, "float32")]
    total = time.perf_counter() - t0
    print(f"theorykit bench ({'quick' if quick else 'full'}) on {dev['platform']} ({dev['device_kind'] or dev['cpu']}), "
          f"jax {dev['jax']}")
    print("\nDerivation time")
    w = max(len(r["result"]) for r in der)
    for r in der:
        print(f"  {r['result']:<{w}}  {r['seconds']:8.2f} s")
    base = der[0]["seconds"]
    print("  (ratios to the XoR derivation: " + ", ".join(f"{r['seconds'] / base:.1f}" for r in der[1:]) + ")")
    print("\nSimulation throughput, Section 4 ReLU network [11, 700, 60], network-steps per second")
    print(f"  ensemble: {cfg['ensemble_networks']} networks x {cfg['steps_long']} steps, execution only (compiled ahead); "
          f"naive: {cfg['naive_networks']} x {cfg['naive_steps']} jitted single steps; library call: simulate_relu, "
          f"{cfg['steps_short']} steps, compilation included")
    print(f"  {'dtype':<8}{'ensemble (jit+vmap)':>22}{'naive loop':>14}{'ratio':>9}{'library call':>15}  recurrence check")
    for r in thr:
        print(f"  {r['dtype']:<8}{r['ensemble_network_steps_per_s']:>22,.0f}{r['naive_network_steps_per_s']:>14,.0f}"
              f"{r['ratio_ensemble_over_naive']:>9.1f}{r['library_call_network_steps_per_s_including_compile']:>15,.0f}  "
              f"{'ok' if r['matches_naive_recurrence'] else 'MISMATCH'} (max rel. diff {r['max_rel_weight_difference']:.1e})")
    targets = {"float32": 10e6, "float64": 3e6}
    if dev["platform"] == "gpu":
        for r in thr:
            ok = r["ensemble_network_steps_per_s"] >= targets[r["dtype"]]
            print(f"  target {r['dtype']}: >= {targets[r['dtype']]:,.0f} on an H100: {'met' if ok else 'NOT met'}")
    else:
        print("  no GPU: these are CPU figures; the targets (H100: >= 10 M float32, >= 3 M float64) are not "
              "measured here")
    from .bench_derive import run_section  # exact-derivation scaling table (issue 15)
    scaling = run_section(quick)
    print(f"\ntotal {total:.1f} s (before the scaling table)")
    ok = all(r["matches_naive_recurrence"] for r in thr)
    if json_out:
        from .io import write_json

        write_json(json_out, {"mode": "quick" if quick else "full", "device": dev, "config": cfg,
                              "derivation": der, "throughput": thr, "targets_h100": targets,
                              "gpu": dev["platform"] == "gpu", "seconds": total, "all_checks_pass": ok,
                              "derivation_scaling": scaling})
        print(f"wrote {json_out}")
    return 0 if ok else 1
