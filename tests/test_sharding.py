"""The ensemble axis sharded over several devices gives the single-device results.

Several CPU devices come from ``XLA_FLAGS=--xla_force_host_platform_device_count=4``, which must be
set before JAX starts, so the check runs in a fresh interpreter."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import json, numpy as np, jax
    import theorykit as tk
    from theorykit.net.layout import Net, net_loss
    from theorykit.record import SaveAt
    from theorykit.sim.engine import train
    from theorykit.net.starts import random_params
    assert jax.device_count() == 4, jax.devices()
    X, Y = tk.contexts(4, 3).numeric()
    net = Net.chain(X.shape[0], [16], Y.shape[0])
    p0 = random_params(net, 0.1, seeds=6, seed=3)            # 6 members: padded to 8 on 4 devices
    lrs = np.linspace(0.01, 0.03, 6)                          # one learning rate per member
    save = SaveAt(ts=[10, 40], fns={"w": lambda p, d: p["h1->output"]})
    many = train(net_loss(net, "sum"), p0, (X, Y), lr=lrs, steps=50, save=save)
    one = train(net_loss(net, "sum"), p0, (X, Y), lr=lrs, steps=50, save=save, devices=jax.devices()[:1])
    spec = tk.GDLNSpec(tk.xor_margin(1), tk.xor_relns(8)["xor"], tk.Training(lr=0.05, steps=30))
    sim = tk.simulate(spec, init="random", seeds=5, steps=30)
    print(json.dumps({"devices": [many.extra["devices"], one.extra["devices"], sim.extra["devices"]],
                      "loss_gap": float(np.max(np.abs(many.loss - one.loss))),
                      "saved_gap": float(np.max(np.abs(many.saved["w"] - one.saved["w"]))),
                      "param_gap": float(max(np.max(np.abs(np.asarray(many.params[k]) - np.asarray(one.params[k])))
                                             for k in net.keys)),
                      "shape": list(many.loss.shape), "moved": float(many.loss[0, 0] - many.loss[0, -1])}))
""")


def test_sharded_ensemble_equals_single_device():
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4", JAX_PLATFORMS="cpu")
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["devices"] == [4, 1, 4]
    assert r["shape"] == [6, 51]                              # padding members dropped
    assert r["loss_gap"] <= 1e-12 and r["saved_gap"] <= 1e-12 and r["param_gap"] <= 1e-12, r
    assert r["moved"] > 0                                     # the runs trained


MP_SCRIPT = textwrap.dedent("""
    import sys, json, numpy as np, jax
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    if sys.argv[1] != "single":
        jax.distributed.initialize(coordinator_address="127.0.0.1:" + sys.argv[2], num_processes=2,
                                   process_id=int(sys.argv[1]))
    import theorykit as tk
    from theorykit.net.layout import Net, net_loss
    from theorykit.sim.engine import train
    from theorykit.net.starts import random_params
    X, Y = tk.contexts(4, 3).numeric()
    net = Net.chain(X.shape[0], [16], Y.shape[0])
    p0 = random_params(net, 0.1, seeds=5, seed=3)
    r = train(net_loss(net, "sum"), p0, (X, Y), lr=0.02, steps=60)
    print(json.dumps({"devices": r.extra["devices"], "processes": jax.process_count(), "loss": r.loss.tolist()}))
""")


def _free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_on_loopback_equal_one_process():
    """jax.distributed across two local processes (2 CPU devices each, gloo collectives on
    127.0.0.1): every process gets every member's loss, equal to the single-process run."""
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    port = str(_free_port())
    procs = [subprocess.Popen([sys.executable, "-c", MP_SCRIPT, str(i), port], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for i in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (o, e) in zip(procs, outs):
        assert p.returncode == 0, e[-3000:]
    single = subprocess.run([sys.executable, "-c", MP_SCRIPT, "single", "0"], capture_output=True, text=True,
                            env=dict(env, XLA_FLAGS=""), timeout=600)
    assert single.returncode == 0, single.stderr[-3000:]
    ref = json.loads(single.stdout.strip().splitlines()[-1])
    assert ref["devices"] == 1
    for o, _e in outs:
        r = json.loads(o.strip().splitlines()[-1])
        assert r["devices"] == 4 and r["processes"] == 2
        assert max(abs(a - b) for ra, rb in zip(r["loss"], ref["loss"]) for a, b in zip(ra, rb)) <= 1e-12
