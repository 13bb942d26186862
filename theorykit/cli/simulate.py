"""`theorykit simulate`."""
from __future__ import annotations

import time

import numpy as np

from ..analysis import summary
from ..analysis.summary import plot_save
from ..errors import SpecError
from ..net.layout import MATMUL_PRECISION, Net
from ..progress import Progress
from ..record import SaveAt
from ..sim.weights import load_weights
from ..sim.simulation import simulate
from ..spec.fields import figure_path
from ..spec.limits import enforce
from ..theory.derivation import Derivation
from .common import (check_outputs, no_value, note, parse_times, provenance, seed_arg, sim_estimate, sim_settings,
                     spec_from_args, text_name, values_record, weight_names)


def run(args):
    limits, spec, values = spec_from_args(args)
    steps, seeds = sim_settings(args, spec)
    times = parse_times(args.times, steps)
    if np.any(times != np.floor(times)):     # the loss is recorded at whole steps only
        bad = times[times != np.floor(times)][0]
        raise SpecError("--times", f"{bad:g} is not a whole number of gradient steps",
                        "give integer steps, e.g. --times 0,100,1000")
    if times.max() > steps:
        raise SpecError("--times", f"a time {times.max():g} is beyond --steps {steps}", "raise --steps or lower --times")
    missing = spec.task.free_symbols - set(values)
    if missing:
        raise no_value(missing)
    if args.network == "relu" and args.init == "aligned":
        raise SpecError("--init", "a ReLU network has no aligned start (it is the GDLN's: exact aligned, balanced "
                                  "weights per pathway)", "leave --init out, or pass --init random, with --network relu")
    if args.fused and args.plot and args.network == "gdln":    # --help: "loss curve only (not with --plot)"
        raise SpecError("--plot", "the GDLN's plot draws its mode strengths, and --fused records the loss curve only",
                        "leave --plot off with --fused, or --fused off to have the plot")
    if args.init_weights is not None:       # '' (no file: read as no --init-weights) or a lone surrogate, by name
        text_name("--init-weights", args.init_weights)
    if args.seed is not None and args.init_weights:
        raise SpecError("--seed", "draws a start, and --init-weights gives one", "leave --seed out with --init-weights")
    seed = 0 if args.seed is None else seed_arg(args.seed)
    args.init = args.init or ("aligned" if args.network == "gdln" else "random")
    init, der, unused = args.init, None, []
    if args.init_weights:
        if args.network == "relu":
            X, Y = spec.task.numeric(values)
            net = Net.chain(X.shape[0], [spec.hidden_total], Y.shape[0])
        else:
            net = Net.from_graph(spec)
        # without --seeds, the file's seed count is the number of networks
        init = load_weights(args.init_weights, net, None if args.seeds is None else seeds, args.dtype, unused=unused)
        seeds = int(next(iter(init.values())).shape[0])
        if seeds > 1 and all(bool(np.all(W == W[:1])) for W in init.values()):
            note(f"--init-weights {args.init_weights}: one set of weights for --seeds {seeds}: full-batch gradient "
                 "descent from one start is deterministic, so the runs are identical (their spread is 0)")
        if unused:
            # not an error: files from elsewhere carry biases, optimizer state or counters
            note(f"--init-weights {args.init_weights}: {len(unused)} key{'s' if len(unused) > 1 else ''} not read, "
                 f"{unused[:8]!r}{' …' if len(unused) > 8 else ''}: this network reads only {weight_names(net)} "
                 "(it has no biases)")
    if args.plot is not None:
        figure_path(args.plot, "--plot")
    check_outputs(("--plot", args.plot), ("--json", args.json),
                  inputs=[("spec", args.spec), ("--init-weights", args.init_weights)], stdout=("--json",))
    if args.network == "gdln":      # updates are steps 0 .. steps - 1: a group from step `steps` on never trains
        for i, g in enumerate(getattr(spec, "schedule", ())):
            if g.start >= steps:
                note(f"schedule[{i}] ({g.name!r}) starts at step {g.start}, but this run makes {steps} steps: "
                     "its edges do not train in it (lower its start, or pass --steps past it)")
    need_der = (args.network == "gdln" and args.init == "aligned") or args.compare
    enforce(sim_estimate(args, spec, steps, seeds, need_der), limits)
    t0 = time.time()
    fused_save = None
    if args.fused:      # the loss only where --times asks (the fused kernel runs the steps between in one call)
        fused_save = SaveAt(loss_every=max(1, int(np.gcd.reduce(np.append(times.astype(int), steps)))))
    bar = Progress("simulate", steps, enabled=not (args.no_progress or args.fused))
    step = None if args.fused else (lambda done: bar.update(done - bar.n))     # the trainer's steps done
    try:
        with bar:
            if args.network == "relu":
                sim = simulate(spec, network="relu", seeds=seeds, steps=steps, values=values, dtype=args.dtype,
                               init=init if args.init_weights else None, fused=args.fused, save=fused_save, seed=seed,
                               on_step=step)
            else:
                save, der = plot_save(spec, values, steps) if args.plot else (fused_save, None)
                sim = simulate(spec, init=init, seeds=seeds, steps=steps, values=values, dtype=args.dtype, save=save,
                               fused=args.fused, on_step=step, seed=seed)
    except SpecError as exc:
        if exc.field != "fused":
            raise
        raise SpecError("--fused", exc.problem, "leave --fused off: the plain engine trains every network") from None
    idx = np.searchsorted(sim.t, times.astype(int))
    init_name = args.init_weights or args.init      # args.init: "random" for --network relu (refused "aligned")
    out = {"spec": spec.name, "network": args.network, "init": init_name, "devices": sim.extra["devices"],
           **({"init_keys_not_read": unused} if args.init_weights else {}),
           "engine": "fused" if args.fused else "plain",
           "seeds": seeds, "seed": seed, "steps": steps, "dtype": args.dtype, "matmul_precision": MATMUL_PRECISION,
           "values": values_record(values), "lr": spec.training.lr, "loss_kind": spec.training.loss,
           **({"a0": spec.training.a0} if init_name == "aligned" else
              {"init_std": spec.training.init_std} if init_name == "random" else {}),
           "seconds": time.time() - t0,
           "loss": {"t": times, "mean": sim.mean[idx], "std": sim.std[idx]}}
    if args.compare:
        der = der or Derivation(spec, values=values)
        if init_name != "aligned":
            note(f"--compare: the theory starts from aligned weights of strength training.a0 = {spec.training.a0:g}; "
                 f"this run starts from {init_name} weights, which follow it "
                 "only from the effective a0 of their start (docs/theory.md#a0-rule: theorykit.net.starts.a0_rule); "
                 "set training.a0 to that to compare")
        if getattr(spec, "schedule", ()):
            note("--compare: the theory leaves out the spec's [[schedule]] (it is every edge training from step 0 "
                 "on the targets), so the simulation of the schedule may differ from it by more than the step size")
        pred = der.predict_loss(times)
        out["theory"] = {"method": der.method, "value": pred,
                         "max_abs_error_over_initial_loss": float(np.max(np.abs(sim.mean[idx] - pred)) / sim.mean[0]),
                         "what": "gradient flow: a gradient-descent run differs from it by O(training.lr), not "
                                 "rounding"}
        if (args.network == "gdln" and init_name == "aligned" and der.method == "closed-form"
                and not getattr(spec, "schedule", ())):
            # aligned, balanced modes (a unit each: a narrower aligned start is refused) under gradient
            # descent follow the discrete recurrence exactly: the run's own arithmetic, to rounding, not O(η)
            disc = der.predict_loss(times, discrete=True)
            out["theory"]["discrete"] = {
                "value": disc, "max_abs_error_over_initial_loss": float(np.max(np.abs(sim.mean[idx] - disc))
                                                                        / sim.mean[0]),
                "what": f"the discrete gradient-descent recurrence of each mode: exact for this start, so the gap is "
                        f"{args.dtype} rounding"}
    out["provenance"] = provenance(args, spec)
    if args.plot:
        summary.plot(args.plot, der=der, values=values, times=times,
                     sim=sim, title=summary.plot_title(spec.name, values, args.network))
    summary.emit(args, out, lambda: summary.simulate_text(out), written=(args.plot,))
    return 0
