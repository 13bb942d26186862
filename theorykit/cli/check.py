"""`theorykit check`: every field of a spec, its size, and the estimated cost of what is asked."""
from __future__ import annotations

from ..io import counted
from ..spec.limits import derivation_estimate, enforce, human_bytes, human_seconds
from ..theory.effective import couplings
from .common import parse_times, sim_estimate, sim_settings, spec_from_args


def run(args):
    """Validate a spec without deriving it and print a summary with the estimated costs (the derivation's
    loss curve only with --times, as derive would integrate it)."""
    limits, spec, values = spec_from_args(args)
    steps, seeds = sim_settings(args, spec)
    times = parse_times(args.times, spec.training.steps)
    task = spec.task
    free = sorted(map(str, task.free_symbols - set(values)))
    der = derivation_estimate(spec, horizon=float(times.max()) if args.times is not None else None,
                              symbolic=bool(free))
    sim = sim_estimate(args, spec, steps, seeds, need_derivation=False)
    enforce(der, limits)
    enforce(sim, limits)
    graph = spec if hasattr(spec, "size_view") else None
    shared = graph.shared_edges() if graph is not None else {}
    if graph is not None:
        spec = graph.as_pathway_spec()
    coupled = couplings(spec)
    # a graph's units are its nodes' (a pathway's chain may share them with others through an edge)
    units = sum(n.width for n in graph.nodes) if graph is not None else spec.hidden_total
    method = (f"{counted(len(coupled), 'coupled pair')}: race reduction" if coupled else
              "race reduction (pathways share edges)" if shared else "closed form expected (no pathways couple)")
    lines = [f"spec {spec.name!r} ({args.spec}): OK",
             f"task: {task.name}, {counted(task.d, 'input')} x {counted(task.P, 'datapoint')} -> {counted(task.p, 'output')}",
             f"pathways: {len(spec.pathways)}, {counted(units, 'hidden unit')} in all; {method}"]
    for p in spec.pathways[:12]:
        width = "narrowest node" if graph is not None else "hidden"
        lines.append(f"  {p.name}: on {sum(p.active)}/{task.P} datapoints, {counted(len(p.inputs), 'input')}, "
                     f"{counted(len(p.outputs), 'output')}, {width} {p.hidden}, depth {p.depth}")
    if len(spec.pathways) > 12:
        lines.append(f"  ... and {len(spec.pathways) - 12} more")
    if graph is not None:
        lines.append(f"graph: {counted(len(graph.nodes), 'node')}, {counted(len(graph.edges), 'edge')}; "
                     + (f"shared edges {sorted(shared)}: race reduction with shared edges" if shared else
                        "no shared edge (private chains)")
                     + (f"; schedule groups {[g.name for g in graph.schedule]}" if graph.schedule else ""))
    syms = sorted(task.symbols)
    lines.append("symbols: " + (", ".join(syms) if syms else "none")
                 + (f" (no value for {free}: derive stays symbolic, simulate needs --set)" if free else ""))
    lines.append(f"training: lr {spec.training.lr:g}, loss {spec.training.loss}, a0 {spec.training.a0:g}, "
                 f"init_std {spec.training.init_std:g}, steps {spec.training.steps}")
    lines.append(f"estimated derivation: {der.summary()}")
    lines.append(f"estimated simulation ({args.network}, {counted(seeds, 'seed')}, {counted(steps, 'step')}, {args.dtype}): {sim.summary()}")
    lines.append(f"limits: memory {human_bytes(limits.max_bytes)}, time {human_seconds(limits.max_seconds)}"
                 + (" (--force: time limit lifted)" if limits.force else ""))
    print("\n".join(lines))
    return 0
