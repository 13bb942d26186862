"""Command line: ``theorykit`` (also ``python -m theorykit``).

Subcommands: check, derive, simulate, validate, find-gates, compare, race-exhaust, sweep, bench. Errors exit
with status 2 and a message that names the field and the fix (``--debug`` adds the traceback). Sizes are
checked against an estimate of memory and time (:mod:`theorykit.spec.limits`) before any work starts.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from .errors import DerivationError, DivergenceError, SpecError, TheorykitError

EPILOG = """examples:
  theorykit check examples/xor_linear.toml
  theorykit derive examples/xor_linear.toml --set Delta=0.5 --times 0,100,1000 --json out.json --latex out.tex
  theorykit simulate examples/xor_linear.toml --set Delta=0.5 --init aligned --seeds 4 --steps 2000 --json sim.json
  theorykit validate xor --quick --out results/
  theorykit validate all --quick --out results/
  theorykit find-gates contexts --K 4 --seeds 2 --out found.toml
  theorykit find-gates --checkpoints 'run/step_*.safetensors' --data run/data.npz --out found.toml
  theorykit compare found.toml --checkpoints 'run/step_*.safetensors' --data run/data.npz --out cmp/
  theorykit bench --quick
  theorykit race-exhaust --k 4 --out results/
  theorykit sweep examples/xor_linear.toml --grid Delta=0:2:21 --grid lr=0.01,0.05 --seeds 4 --steps 2000 --out sweep/
"""


#: largest time (gradient steps) at which a loss may be asked for
MAX_TIME = 1e12
#: largest number of seeds
MAX_SEEDS = 2 ** 31 - 1


def _times(text, default_max):
    if text is None:
        return np.unique(np.linspace(0, default_max, 11).astype(int)).astype(float)
    try:
        vals = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SpecError("--times", f"{text[:60]!r} is not a comma-separated list of numbers",
                        "write e.g. --times 0,100,1000") from None
    if not vals or any(not (0 <= v <= MAX_TIME) for v in vals):
        raise SpecError("--times", f"times must be numbers between 0 and {MAX_TIME:.0e}", "write e.g. --times 0,100,1000")
    if len(vals) > 100000:
        raise SpecError("--times", f"{len(vals)} times given (at most 100000)", "ask for fewer times")
    return np.array(vals)


def _limits(args):
    from .spec.limits import Limits

    tl = getattr(args, "time_limit", None)
    if tl is not None and not (tl > 0 and tl == tl):
        raise SpecError("--time-limit", f"needs a positive number of seconds, got {tl}", "e.g. --time-limit 600")
    return Limits(max_seconds=tl, force=getattr(args, "force", False))


def _values(spec, sets):
    from .spec.files import check_values, parse_assignment

    vals, given = {}, {}
    for a in sets or []:
        sym, v = parse_assignment(a, spec.task.symbols)
        vals[sym] = v
        given[sym] = a.split("=", 1)[1].strip()
    check_values(spec, vals, given)
    return vals


def _load(path, limits=None):
    from .spec.files import load_spec

    return load_spec(path, limits=limits)


def _int_arg(value, option, lo, hi, fix):
    from .spec.fields import integer

    return integer(value, option, lo=lo, hi=hi, fix=fix)


def _write(option, path, text):
    """Write one result file atomically; an unwritable path is an error naming the option."""
    from .io import atomic_write_text

    try:
        atomic_write_text(path, text)
    except OSError as exc:
        raise SpecError(option, f"cannot write {path}: {exc.strerror or exc}", "give a writable path") from None


def _json_text(obj):
    from .io import jsonable

    try:
        return json.dumps(jsonable(obj), indent=2) + "\n"
    except ValueError as exc:          # a non-finite number: never written
        raise SpecError("training", f"the result is not finite ({exc})",
                        "lower training.lr or training.a0, or rescale the data") from None


def _sim_settings(args, spec):
    from .spec.files import MAX_STEPS

    steps = spec.training.steps if args.steps is None else _int_arg(
        args.steps, "--steps", 1, MAX_STEPS, f"a positive integer (at most {MAX_STEPS:.0e}), e.g. --steps 2000".replace("e+0", "e"))
    seeds = _int_arg(args.seeds, "--seeds", 1, MAX_SEEDS, "a positive integer, e.g. --seeds 4")
    return steps, seeds


def _sim_estimate(args, spec, steps, seeds, need_derivation):
    from .spec.limits import derivation_estimate, simulation_estimate

    est = simulation_estimate(spec, steps=steps, seeds=seeds, network=args.network, dtype=args.dtype,
                              steps_field="--steps" if args.steps is not None else "training.steps")
    if need_derivation:
        est = derivation_estimate(spec, horizon=steps) + est
    return est


def cmd_check(args):
    """Validate a spec without deriving it and print a summary with the estimated costs."""
    from .theory.effective import couplings
    from .spec.limits import derivation_estimate, enforce, human_bytes, human_seconds, simulation_estimate

    limits = _limits(args)
    spec = _load(args.spec, limits)
    values = _values(spec, args.set)
    steps, seeds = _sim_settings(args, spec)
    times = _times(args.times, spec.training.steps)
    task = spec.task
    free = sorted(map(str, task.free_symbols - set(values)))
    der = derivation_estimate(spec, horizon=float(times.max()), symbolic=bool(free))
    sim = simulation_estimate(spec, steps=steps, seeds=seeds, network=args.network, dtype=args.dtype,
                              steps_field="--steps" if args.steps is not None else "training.steps")
    enforce(der, limits)
    enforce(sim, limits)
    graph = spec if hasattr(spec, "size_view") else None
    if graph is not None:
        spec = graph.as_pathway_spec()
    coupled = couplings(spec)
    lines = [f"spec {spec.name!r} ({args.spec}): OK",
             f"task: {task.name}, {task.d} inputs x {task.P} datapoints -> {task.p} outputs",
             f"pathways: {len(spec.pathways)}, {spec.hidden_total} hidden units in all; "
             + ("closed form expected (no pathways couple)" if not coupled else
                f"{len(coupled)} coupled pairs: race reduction")]
    for p in spec.pathways[:12]:
        lines.append(f"  {p.name}: on {sum(p.active)}/{task.P} datapoints, {len(p.inputs)} inputs, "
                     f"{len(p.outputs)} outputs, hidden {p.hidden}, depth {p.depth}")
    if len(spec.pathways) > 12:
        lines.append(f"  ... and {len(spec.pathways) - 12} more")
    if graph is not None:
        shared = graph.shared_edges()
        lines.append(f"graph: {len(graph.nodes)} nodes, {len(graph.edges)} edges; "
                     + (f"shared edges {sorted(shared)}: race reduction with shared edges" if shared else
                        "no shared edge (private chains)")
                     + (f"; schedule groups {[g.name for g in graph.schedule]}" if graph.schedule else ""))
    syms = sorted(task.symbols)
    lines.append("symbols: " + (", ".join(syms) if syms else "none")
                 + (f" (no value for {free}: derive stays symbolic, simulate needs --set)" if free else ""))
    lines.append(f"training: lr {spec.training.lr:g}, loss {spec.training.loss}, a0 {spec.training.a0:g}, "
                 f"init_std {spec.training.init_std:g}, steps {spec.training.steps}")
    lines.append(f"estimated derivation: {der.summary()}")
    lines.append(f"estimated simulation ({args.network}, {seeds} seeds, {steps} steps, {args.dtype}): {sim.summary()}")
    lines.append(f"limits: memory {human_bytes(limits.max_bytes)}, time {human_seconds(limits.max_seconds)}"
                 + (" (--force: time limit lifted)" if limits.force else ""))
    print("\n".join(lines))
    return 0


def cmd_derive(args):
    from .theory.derivation import Derivation
    from .spec.limits import derivation_estimate, enforce

    limits = _limits(args)
    spec = _load(args.spec, limits)
    values = _values(spec, args.set)
    times = _times(args.times, spec.training.steps)
    free_left = bool(spec.task.free_symbols - set(values))
    enforce(derivation_estimate(spec, horizon=float(times.max()), symbolic=free_left), limits)
    der = Derivation(spec, method=args.method, values=values)
    free = der.task.free_symbols
    out = {"spec": spec.name, "method": der.method, "notes": der.notes, "tau": spec.tau,
           "a0": spec.training.a0, "loss_kind": spec.training.loss, "pathways": der.summary(),
           "couplings": [list(c) for c in der.couplings],
           "ranking": [{"pathway": n, "top_singular_value": s} for n, s in der.ranking_text]}
    if der.method == "closed-form":
        out["latex"] = {"loss": __import__("sympy").latex(der.loss)}
    else:
        out["latex"] = {}
    if free:
        out["loss"] = None
        out["notes"].append(f"symbols {sorted(map(str, free))} have no value: pass --set NAME=VALUE for predicted losses")
    else:
        out["loss"] = {"t": times, "value": der.predict_loss(times)}
    # everything is computed before anything is written: an error leaves no file behind
    text = _json_text(out)
    latex = der.latex(document=True) if args.latex else None
    if args.latex:
        _write("--latex", args.latex, latex)
    from .analysis import summary

    if args.plot:
        summary.plot(args.plot, der=der, values=values, times=times, title=spec.name)
    summary.emit(args, out, lambda: summary.derive_text(der, out, values))
    return 0


def cmd_simulate(args):
    from .sim.engine import Net
    from .sim.init import load_weights
    from .spec.limits import enforce
    from .sim.simulate import simulate, simulate_relu_spec

    limits = _limits(args)
    spec = _load(args.spec, limits)
    values = _values(spec, args.set)
    steps, seeds = _sim_settings(args, spec)
    times = _times(args.times, steps)
    if times.max() > steps:
        raise SpecError("--times", f"a time {times.max():g} is beyond --steps {steps}", "raise --steps or lower --times")
    missing = spec.task.free_symbols - set(values)
    if missing:
        names = sorted(map(str, missing))
        raise SpecError("--set", f"no value for {names}", f"pass --set {names[0]}=VALUE")
    need_der = (args.network == "gdln" and args.init == "aligned") or args.compare
    enforce(_sim_estimate(args, spec, steps, seeds, need_der), limits)
    t0 = time.time()
    init, der = args.init, None
    if args.init_weights:
        if args.network == "relu":
            X, Y = spec.task.numeric(values)
            net = Net.chain(X.shape[0], [spec.hidden_total], Y.shape[0])
        else:
            net = Net.from_graph(spec)
        unused = []
        init = load_weights(args.init_weights, net, seeds, args.dtype, unused=unused)
        if unused:
            # not an error: files from elsewhere carry biases, optimizer state or counters
            print(_one_line(f"theorykit: note: --init-weights {args.init_weights}: "
                            f"{len(unused)} key{'s' if len(unused) > 1 else ''} not read, {unused[:8]!r}"
                            f"{' …' if len(unused) > 8 else ''}: this network reads only {_weight_names(net)} "
                            "(it has no biases)"), file=sys.stderr)
    fused_save = None
    if args.fused:      # the loss only where --times asks (the fused kernel runs the steps between in one call)
        from .sim.engine import SaveAt

        fused_save = SaveAt(loss_every=max(1, int(np.gcd.reduce(np.append(times.astype(int), steps)))))
    try:
        if args.network == "relu":
            sim = simulate_relu_spec(spec, seeds=seeds, steps=steps, values=values, dtype=args.dtype,
                                     init=init if args.init_weights else None, fused=args.fused, save=fused_save)
        else:
            from .analysis.summary import plot_save

            save, der = plot_save(spec, values, steps) if args.plot else (fused_save, None)
            sim = simulate(spec, init=init, seeds=seeds, steps=steps, values=values, dtype=args.dtype, save=save,
                           fused=args.fused)
    except SpecError as exc:
        if exc.field != "fused":
            raise
        raise SpecError("--fused", exc.problem, "leave --fused off: the plain engine trains every network") from None
    idx = np.searchsorted(sim.t, times.astype(int))
    init_name = args.init_weights or (args.init if args.network == "gdln" else "random")
    out = {"spec": spec.name, "network": args.network, "init": init_name, "devices": sim.devices,
           **({"init_keys_not_read": unused} if args.init_weights else {}),
           "engine": "fused" if args.fused else "plain",
           "seeds": seeds, "steps": steps, "dtype": args.dtype,
           "seconds": time.time() - t0,
           "loss": {"t": times, "mean": sim.mean[idx], "std": sim.std[idx]}}
    if args.compare:
        from .theory.derivation import Derivation

        der = der or Derivation(spec, values=values)
        pred = der.predict_loss(times)
        out["theory"] = {"method": der.method, "value": pred,
                         "max_abs_error_over_initial_loss": float(np.max(np.abs(sim.mean[idx] - pred)) / sim.mean[0])}
    from .analysis import summary

    if args.plot:
        summary.plot(args.plot, der=der, values=values, times=times,
                     sim=sim, title=f"{spec.name} ({args.network})")
    summary.emit(args, out, lambda: summary.simulate_text(out))
    return 0


def _weight_names(net) -> str:
    """``W1, W2 or the edge keys input->h1, h1->output`` (shortened past six)."""
    def some(names):
        return ", ".join(names[:6]) + (" …" if len(names) > 6 else "")
    keys = list(net.keys)
    return f"{some([f'W{i + 1}' for i in range(len(keys))])} or the edge keys {some(keys)}"


def cmd_validate(args):
    from .suites import available_suites

    suites = available_suites()
    if args.suite != "all" and args.suite not in suites:
        raise SpecError("suite", f"unknown suite {args.suite!r}", f"use one of {suites + ['all']}")
    names = suites if args.suite == "all" else [args.suite]
    mode = "full" if args.full else "quick"
    # validation/__init__.py runs the suites: caching by spec/code hash, atomic results, report
    return _validation().run_suites(Path(args.out), mode, names, force=args.force,
                                    progress=not args.no_progress, report=args.suite == "all") or 0


def _validation():
    from .suites import load_package

    return load_package("validation")


def cmd_find_gates(args):
    """Algorithm 1: train ReLU networks, cluster their binary unit activity, write a GDLN spec."""
    from .analysis.findgates import find_gates
    from .io import atomic_write_text
    from .spec.files import parse_assignment, spec_to_toml

    if args.checkpoints:                                    # an imported run (theorykit/analysis/checkpoints.py)
        from .analysis.checkpoints import cmd_find_gates_in_run

        return cmd_find_gates_in_run(args)
    src = args.source
    if src is None:
        raise SpecError("source", "missing", "give a spec file or a built-in task, or --checkpoints and --data")
    if args.steps is not None and not args.steps.strip().isdigit():
        raise SpecError("--steps", f"{args.steps!r} is not a number of gradient steps", "e.g. --steps 2000")
    steps = int(args.steps) if args.steps is not None else None
    if src in ("contexts", "xor-margin"):
        from .spec.gating import Training
        from .spec.task import contexts, xor_margin

        if src == "contexts":
            if args.set:
                raise SpecError("--set", "the contexts task has no symbols", "leave out --set")
            task = contexts(8, 3, blocks=["hierarchy", "ring", "cross"])
            training = Training(lr=0.001, loss="sum", init_std=0.005 / 700, steps=8001)
            hidden = 700
        else:
            task = xor_margin()
            vals = dict(parse_assignment(a, task.symbols) for a in (args.set or []))
            if task.free_symbols - set(vals):
                raise SpecError("--set", "xor-margin needs a value for Delta", "add --set Delta=0.5")
            task = task.subs(vals)
            training = Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)
            hidden = 128
        from .spec.gating import GDLNSpec, Pathway

        source = GDLNSpec(task, (Pathway("all", "all", "all", "all", hidden),), training, src)
    else:
        spec = _load(src)
        values = _values(spec, args.set)
        source = spec.subs(values) if values else spec
        if source.task.free_symbols:
            raise SpecError("--set", f"no value for {sorted(map(str, source.task.free_symbols))}",
                            "pass --set NAME=VALUE")
    if args.K is not None and args.K < 1:
        raise SpecError("--K", f"needs a positive integer, got {args.K}", "e.g. --K 4")
    if args.seeds < 1:
        raise SpecError("--seeds", f"needs a positive integer, got {args.seeds}", "e.g. --seeds 4")
    t0 = time.time()
    from .progress import Progress

    with Progress("find-gates: elbow", args.max_K, enabled=args.K is None and not args.quiet) as pr:
        found = find_gates(source, K=args.K, Ks=range(1, args.max_K + 1), seeds=args.seeds, steps=steps,
                           hidden=args.hidden, lr=args.lr, seed=args.seed, name=args.name or f"found-{Path(src).stem}",
                           progress=pr)
    atomic_write_text(args.out, spec_to_toml(found.spec))
    summ = found.summary()
    print(f"find-gates: K = {found.K} ({'given' if args.K else 'elbow'}), {len(found.spec.pathways)} pathways "
          f"-> {args.out} ({time.time() - t0:.1f}s)")
    for p in found.spec.pathways:
        print(f"  {p.name}: hidden {p.hidden}, active {''.join(map(str, p.active))}")
    if summ["mse"]:
        print("  output MSE by K: " + ", ".join(f"{k}:{m:.3g}" for k, m in zip(summ["Ks"], summ["mse"])))
    return 0


def cmd_compare(args):
    """A found spec against the run it was found in: run, GDLN from the run's first checkpoint, race."""
    from .analysis.compare import cmd_compare as run_compare

    return run_compare(args)


def cmd_bench(args):
    from .bench import run_bench

    return run_bench(quick=args.quick, json_out=args.json)


def cmd_race_exhaust(args):
    """Rank every context-gated family of the k-context task by race speed (orbits under its symmetry)."""
    from .analysis.exhaust import race_exhaust, write_outputs

    res = race_exhaust(args.k, gamma=args.gamma, a0=args.a0, batch=args.batch, race_dt=args.race_dt,
                       use_symmetry=not args.no_symmetry, progress=not args.no_progress, steps=args.steps)
    paths = write_outputs(res, args.out)
    s = res.summary
    print(f"race-exhaust k={s['k']}: {s['families']} families, symmetry group of order {s['symmetry']['group_order']}, "
          f"{s['symmetry']['orbits_integrated']} orbits integrated in {s['seconds']['total']:.1f}s")
    print(f"  winner (area): {s['winner']}; contains common + all (k-1)-context pathways: "
          f"{s['winner_contains_common_and_all_(k-1)-context']}")
    for nm, r in s["named"].items():
        print(f"  {nm:>18}: rank {r['rank_area']:>6} area {r['area']:.4f}")
    print(f"  -> {paths['json']}, {paths['figure']}")
    return 0


def cmd_sweep(args):
    """A declared sweep (symbol grids x learning rates x seeds) through one sharded trainer call, resumable."""
    from .analysis.sweep import parse_grid, run_sweep

    spec = _load(args.spec)
    grid = parse_grid(args.grid, spec.task.symbols)
    res = run_sweep(spec, grid, seeds=args.seeds, steps=args.steps, out=args.out, chunk=args.chunk, dtype=args.dtype,
                    progress=not args.no_progress)
    print(f"sweep: {res['members']} members in {res['chunks']} chunks ({len(res['chunks_computed'])} computed this run, "
          f"{res['seconds_this_run']:.1f}s) -> {Path(args.out) / 'sweep.json'}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="theorykit",
        description="Learning dynamics of ReLU networks through gated deep linear networks (GDLNs): derive "
                    "effective datasets, exact SVDs and closed-form mode trajectories from a spec, simulate "
                    "the networks in JAX, and run the paper's validation suites ('Make Haste Slowly', ICLR 2025).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--distributed", action="store_true",
                   help="join a multi-host run first (jax.distributed.initialize(): on SLURM it reads the job's "
                        "variables; elsewhere set JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID). "
                        "Simulations then shard their ensemble over every device of every host")
    p.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def _spec_options(sp_, times_help: str) -> None:
        sp_.add_argument("spec", help="spec file (TOML); see docs/specs.md")
        sp_.add_argument("--set", action="append", metavar="NAME=VALUE", help="give a symbol a value (repeatable)")
        sp_.add_argument("--times", help=times_help)

    def _run_size_options(sp_) -> None:
        """The options that size a simulation (``check`` estimates with them, ``simulate`` runs with them)."""
        sp_.add_argument("--network", choices=["gdln", "relu"], default="gdln",
                         help="the spec's GDLN, or a bias-free ReLU network of the same total width (random init)")
        sp_.add_argument("--seeds", type=int, default=4, help="independent networks trained at once (default 4)")
        sp_.add_argument("--steps", type=int, help="gradient steps (default: training.steps of the spec)")
        sp_.add_argument("--dtype", choices=["float64", "float32"], default="float64",
                         help="simulation precision (default float64; float32 products run at \"highest\" precision)")

    def _common(sp_, limits=True):
        sp_.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                         help="show the Python traceback of an error")
        if limits:
            sp_.add_argument("--force", action="store_true",
                             help="run even when the estimated time is over the time limit (never the memory limit)")
            sp_.add_argument("--time-limit", type=float, metavar="SECONDS",
                             help="time limit of the size check (default 3600, or THEORYKIT_MAX_SECONDS)")

    c = sub.add_parser("check", help="validate a spec without deriving it; print its size and estimated costs",
                       description="Check every field of a spec and print a summary: task size, pathways, symbols, "
                                   "and the estimated memory and time of the derivation and of a simulation "
                                   "(with --steps/--seeds/--network as simulate would run it). Exit 2 when bad.")
    _spec_options(c, "times (gradient steps) a derivation would predict")
    _run_size_options(c)
    _common(c)
    c.set_defaults(func=cmd_check)

    d = sub.add_parser("derive", help="derive modes, trajectories and the loss of a spec (JSON, LaTeX)",
                       description="Derive each pathway's effective dataset, exact SVD and the loss trajectory. "
                                   "Writes JSON (stdout or --json) and optionally a LaTeX document.")
    _spec_options(d, "comma-separated times in gradient steps at which to predict the loss")
    d.add_argument("--json", metavar="OUT", help="write the full JSON document here (atomically); '-': to stdout "
                                                 "(the default on a pipe; a terminal gets a short summary)")
    d.add_argument("--plot", metavar="OUT.png", help="draw the predicted loss and mode strengths a(t)")
    d.add_argument("--latex", metavar="OUT.tex", help="write a standalone LaTeX document of the derivation")
    d.add_argument("--method", choices=["auto", "closed-form", "race-reduction"], default="auto",
                   help="closed form where it applies (auto), insist on it, or integrate the race reduction")
    _common(d)
    d.set_defaults(func=cmd_derive)

    s = sub.add_parser("simulate", help="simulate the spec's GDLN with gradient descent (JAX, vmapped over seeds)",
                       description="Full-batch gradient descent on the GDLN the spec defines, float64 by default.")
    _spec_options(s, "comma-separated steps at which to report the loss")
    s.add_argument("--init", choices=["aligned", "random"], default="aligned",
                   help="aligned: exact aligned balanced weights of strength a0; random: N(0, init_std^2)")
    s.add_argument("--init-weights", metavar="W.npz",
                   help="start from these weights: an .npz keyed by edge, '<from>-><to>' (to_width x from_width, "
                        "rows read/written for input/output edges), or W1, W2, ... for --network relu; an optional "
                        "leading seed axis")
    _run_size_options(s)
    s.add_argument("--fused", action="store_true",
                   help="step with the fused multi-step kernel (Pallas; fast on a GPU, interpreted and slow on a "
                        "CPU): depth-2 networks without a schedule, loss curve only (not with --plot)")
    s.add_argument("--compare", action="store_true", help="also report the theory and the largest error")
    s.add_argument("--json", metavar="OUT", help="write the full JSON document here; '-': to stdout (the default "
                                                 "on a pipe; a terminal gets a short summary)")
    s.add_argument("--plot", metavar="OUT.png", help="draw loss and mode strengths: theory as lines, simulation "
                                                     "as mean ± spread over seeds")
    _common(s)
    s.set_defaults(func=cmd_simulate)

    v = sub.add_parser("validate", help="run a validation suite: xor, contexts, depth, gates, lemmas, or all",
                       description="Reproduce the paper's results: symbolic predictions beside simulated networks. "
                                   "Writes <suite>.json and PNG figures into --out.")
    v.add_argument("suite", help="xor | contexts | depth | gates | lemmas | all")
    g = v.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_true", help="CPU-sized run (default)")
    g.add_argument("--full", action="store_true", help="paper-sized run, meant for a GPU")
    v.add_argument("--out", required=True, help="output folder")
    v.add_argument("--force", action="store_true", help="re-run parts already cached")
    v.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    _common(v, limits=False)
    v.set_defaults(func=cmd_validate)

    f = sub.add_parser("find-gates", help="find a GDLN's gates from trained ReLU networks (Algorithm 1) and write a spec",
                       description="Train ReLU networks on a task, record binary hidden activity every 100 steps, "
                                   "k-means the units and write a spec with one pathway per gate pattern. K by the "
                                   "elbow of the ReLU-vs-GDLN output MSE over K = 1..--max-K unless --K is given.")
    f.add_argument("source", nargs="?", help="a spec file (TOML; its task and training are used) or a built-in task: "
                                  "'contexts' (the Section 4 task) or 'xor-margin' (with --set Delta=...); "
                                  "or leave out and give --checkpoints and --data (your own run)")
    f.add_argument("--out", required=True, metavar="FOUND.toml", help="where to write the found spec")
    f.add_argument("--set", action="append", metavar="NAME=VALUE", help="give a symbol a value (repeatable)")
    f.add_argument("--K", type=int, help="number of clusters (default: elbow)")
    f.add_argument("--max-K", type=int, default=8, help="largest K tried for the elbow (default 8)")
    f.add_argument("--seeds", type=int, default=4, help="ReLU trainings (default 4)")
    f.add_argument("--steps", help="gradient steps (default: the spec's or the task's); with --checkpoints, "
                                   "the checkpoints' steps (0,100,...) when the file names have none")
    f.add_argument("--hidden", type=int, help="ReLU hidden width (default: the spec's total width)")
    f.add_argument("--lr", type=float, help="learning rate (default: the spec's; with --checkpoints: the "
                                             "checkpoints' metadata)")
    f.add_argument("--seed", type=int, default=0, help="random seed of initial weights and k-means")
    f.add_argument("--name", help="name of the written spec")
    f.add_argument("--quiet", action="store_true", help="no progress bar")
    from .analysis.checkpoints import add_run_arguments

    add_run_arguments(f)
    _common(f, limits=False)
    f.set_defaults(func=cmd_find_gates)

    r = sub.add_parser("race-exhaust", help="rank every context-gated family of the k-context task (race by exhaustion)",
                       description="Integrate the coupled race of every family Lemma 4.1 allows on contexts(8, k) "
                                   "(hierarchy in every context), one representative per orbit of the task's "
                                   "symmetry (found and verified), and rank them. Writes exhaust.json and race_k<k>.png.")
    r.add_argument("--k", type=int, default=4, help="number of contexts (3: 127 families; 4: 32 767)")
    r.add_argument("--out", default=".", help="output folder (default: here)")
    r.add_argument("--batch", type=int, default=256, help="families integrated at once (memory)")
    r.add_argument("--gamma", type=float, help="context scale (default: the paper's Section 5 value, 1.1 at k = 4)")
    r.add_argument("--a0", type=float, help="initial strength (default: the contexts suite's GDLN rule)")
    r.add_argument("--race-dt", type=float, default=10, help="RK4 step tau/RACE_DT (default 10, the suite's quick setting)")
    r.add_argument("--steps", type=int, default=8000, help="gradient steps raced (default 8000, the paper's)")
    r.add_argument("--no-symmetry", action="store_true", help="integrate every family, not one per orbit")
    r.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    r.set_defaults(func=cmd_race_exhaust)

    w = sub.add_parser("sweep", help="run a declared sweep over symbol values, learning rates and seeds (resumable)",
                       description="Every (symbol point, lr, seed) is one member of one sharded trainer call; chunks of "
                                   "members are written atomically as they finish (DIR/chunks), and a re-run skips them. "
                                   "DIR/sweep.json: the declaration and the final losses per grid point.")
    w.add_argument("spec")
    w.add_argument("--grid", action="append", metavar="NAME=VALUES",
                   help="a symbol or lr: START:STOP:COUNT (linspace) or v1,v2,... (repeatable)")
    w.add_argument("--seeds", type=int, default=4, help="seeds per (symbol point, learning rate) (default 4)")
    w.add_argument("--steps", type=int, help="gradient steps (default: the spec's)")
    w.add_argument("--out", required=True, help="output folder (resumes a sweep already there)")
    w.add_argument("--chunk", type=int, default=64, help="members per chunk (default 64)")
    w.add_argument("--dtype", choices=["float64", "float32"], default="float64",
                   help="simulation precision (default float64; float32 products run at \"highest\" precision)")
    w.add_argument("--no-progress", action="store_true", help="no progress lines on stderr")
    w.set_defaults(func=cmd_sweep)

    c = sub.add_parser("compare", help="compare a found spec with your own training run (HTML page and PNGs)",
                       description="The run's loss at every checkpoint, the spec's GDLN trained from the run's first "
                                   "checkpoint (paired start) and the race-reduction prediction, each with its "
                                   "agreement as a share of L(0). Writes compare.html, loss.png, gates.png, "
                                   "compare.json into --out.")
    c.add_argument("spec", help="the spec find-gates wrote for this run")
    add_run_arguments(c, required=True)
    c.add_argument("--steps", help="the checkpoints' steps (0,100,...) when the file names have none")
    c.add_argument("--lr", type=float, help="the run's learning rate (default: the spec's)")
    c.add_argument("--out", required=True, metavar="DIR", help="output folder")
    c.set_defaults(func=cmd_compare)

    from .predict_cmd import add_parser as _add_predict
    _add_predict(sub)

    b = sub.add_parser("bench", help="benchmark derivation time and simulator throughput (ratios in one run)",
                       description="Time each paper result's derivation, then train the Section 4 ReLU network "
                                   "[11, 700, 60] as a vmapped ensemble in float64 and float32 and report "
                                   "network-steps/s, FLOP/s (XLA's cost analysis), the device's own measured "
                                   "matmul rate and the fraction of it reached, two baselines (one jitted step "
                                   "per call; one jitted lax.scan per network), the Section 6 GDLN and the race "
                                   "engine. Every figure is measured in this one run and names its device and "
                                   "precision; the ensemble is checked against the discrete gradient-descent "
                                   "recurrence. On a GPU it also times the fused kernel (simulate --fused).")
    b.add_argument("--quick", action="store_true", help="a CPU-sized run of a minute or two (default: GPU sizes)")
    b.add_argument("--json", metavar="OUT", help="also write every figure to this JSON file (atomically)")
    _common(b, limits=False)
    b.set_defaults(func=cmd_bench)
    return p


def _one_line(msg: str) -> str:
    """Messages are one line: newlines and tabs (e.g. from a library's text) become spaces."""
    return " ".join(msg.replace("\t", " ").splitlines())


def _report(field, problem, fix=""):
    msg = f"theorykit: error in {field}: {problem}"
    if fix:
        msg += f" (fix: {fix})"
    print(_one_line(msg), file=sys.stderr)


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 a bad input or a refused run, 70 a bug)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    debug = getattr(args, "debug", False)
    try:
        if args.distributed:
            import jax

            jax.distributed.initialize()
        return args.func(args) or 0
    except SpecError as exc:
        if debug:
            traceback.print_exc()
        print(_one_line(f"theorykit: error in {exc}"), file=sys.stderr)
        return 2
    except DivergenceError as exc:
        if debug:
            traceback.print_exc()
        _report("training.lr", str(exc), "lower training.lr (or rescale the data)")
        return 2
    except DerivationError as exc:
        if debug:
            traceback.print_exc()
        _report(getattr(exc, "field", None) or "data", f"cannot derive: {exc}")
        return 2
    except TheorykitError as exc:
        if debug:
            traceback.print_exc()
        print(f"theorykit: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if debug:
            traceback.print_exc()
        _report(getattr(exc, "filename", None) or "file", exc.strerror or str(exc))
        return 2
    except KeyboardInterrupt:
        print("theorykit: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: say so briefly; --debug shows where
        if debug:
            traceback.print_exc()
        print(f"theorykit: internal error (a bug in theorykit, please report it): {type(exc).__name__}: "
              f"{str(exc)[:300]}" + ("" if debug else " -- rerun with --debug for the traceback"), file=sys.stderr)
        return 70
