"""`theorykit find-gates`."""
from __future__ import annotations

import time
from pathlib import Path

from ..analysis.checkpoints import find_gates_in_run, parse_steps, run_settings
from ..analysis.findgates import check_training_size, find_gates, training_estimate
from ..errors import SpecError, as_command
from ..io import counted
from ..progress import Progress
from ..spec.fields import NAME_MAX_LEN, label, learning_rate
from ..spec.files import load_spec
from ..spec.gating import GDLNSpec, Pathway, Training
from ..spec.limits import fixed_size
from ..spec.task import contexts, xor_margin
from .common import BUILTIN_TASKS, check_outputs, fitting_name, limits_from, no_value, values_from, write_spec
from .parser import MAX_STEPS, WholeNumber
from .runs import run_from_args

#: --steps of a training (not of --checkpoints, where it lists the checkpoints' steps)
_STEPS = WholeNumber("--steps", lo=1, hi=MAX_STEPS, example=2000)


def mse_by_K(scores) -> str:
    """The elbow's line, ``  output MSE by K: 1:0.07, 2:0.0114, …``. A K whose clusters kept no gate
    pattern (none with a non-zero effective dataset) has no GDLN to score: an imported run's score is
    then +inf, shown as ``1: no pattern kept``; a trained run's is the ReLU outputs' mean square (a
    GDLN of no pathway outputs 0), shown with ``(no pattern kept)`` after it."""
    def one(r):
        none_kept = "patterns" in r and len(r["patterns"]) == 0
        if r["mse"] == float("inf"):
            return f"{r['K']}: no pattern kept"
        return f"{r['K']}:{r['mse']:.3g}" + (" (no pattern kept)" if none_kept else "")
    return "  output MSE by K: " + ", ".join(one(r) for r in scores)


def _check_options(args) -> None:
    """The options both forms read, checked as the spec parser checks the fields they become (the
    written spec must load back): a value out of range is an error, never a silent default. (The
    whole-number options, --K, --max-K, --seeds, --hidden and --seed, are checked by the parser's rule.)"""
    if args.lr is not None:
        learning_rate(args.lr, "--lr", "--lr 0.05")
    if args.name is not None:
        label(args.name, "--name", f"a name of at most {NAME_MAX_LEN} printable characters, e.g. --name found-xor")
    check_outputs(("--out", args.out),      # before any training: a bad path costs nothing
                  inputs=[("spec", args.source), ("--data", args.data)], stdout=())


def run(args):
    """Algorithm 1: train ReLU networks, cluster their binary unit activity, write a GDLN spec."""
    _check_options(args)
    if args.checkpoints:                                    # an imported run (theorykit/analysis/checkpoints.py)
        return _from_run(args)
    src = args.source
    if src is None:
        raise SpecError("source", "missing", "give a spec file or a built-in task, or --checkpoints and --data")
    # a number here (a list of steps with --checkpoints): read by the rule of every whole-number option
    steps = None if args.steps is None else _STEPS.read(args.steps)
    # the number, as the record (provenance options) of every other command holds it: the parser reads
    # --steps as text, since with --checkpoints it is a list of steps
    args.steps = steps
    # the command's one Limits (--time-limit, --force): the task's build and the trainings' check alike
    limits = limits_from(args)
    if src in BUILTIN_TASKS:
        if src == "contexts":
            if args.set:
                raise SpecError("--set", "the contexts task has no symbols", "leave out --set")
            # a fixed build (under 0.1 s), timed with the run by the trainings' check below, not by THEORYKIT_MAX_SECONDS;
            # over the memory limit, refused naming THEORYKIT_MAX_BYTES (no option lowers its size)
            task = contexts(8, 3, blocks=["hierarchy", "ring", "cross"], limits=fixed_size())
            training = Training(lr=0.001, loss="sum", init_std=0.005 / 700, steps=8001)
            hidden = 700
        else:
            task = xor_margin()
            training = Training(lr=0.05, loss="mean", init_std=0.01, steps=2000)
            hidden = 128
        spec = GDLNSpec(task, (Pathway("all", "all", "all", "all", hidden),), training, src)
    else:
        spec = load_spec(src, limits=limits)
    # --set read as every command reads it: checked against the data, a symbol given twice refused
    values = values_from(spec, args.set)
    source = spec.subs(values) if values else spec
    if source.task.free_symbols:
        raise (SpecError("--set", "xor-margin needs a value for Delta", "add --set Delta=0.5") if src == "xor-margin"
               else no_value(source.task.free_symbols))
    name = fitting_name(f"found-{Path(src).stem}", "found-gates") if args.name is None else args.name
    train_steps = source.training.steps if steps is None else steps
    # the trainings' memory and time, estimated as simulate's before anything is allocated: over the limits,
    # refused naming the option to lower (--force lifts the time limit only)
    check_training_size(training_estimate(source.task, hidden=source.hidden_total if args.hidden is None else args.hidden,
                                          seeds=args.seeds, steps=train_steps, elbow=args.max_K if args.K is None else 0,
                                          fields={"hidden": "--hidden", "seeds": "--seeds", "steps": "--steps"}),
                        limits, python=False)
    t0 = time.time()
    # the ReLU training is the long part (22 s for contexts --K 4 on a shared CPU): a bar of its steps,
    # with --K too; then, without --K, the elbow's bar over K
    with Progress("find-gates: training", train_steps, enabled=not args.no_progress) as tr, \
            Progress("find-gates: elbow", args.max_K, enabled=args.K is None and not args.no_progress) as pr:
        found = find_gates(source, K=args.K, Ks=range(1, args.max_K + 1), seeds=args.seeds, steps=steps,
                           hidden=args.hidden, lr=args.lr, seed=args.seed, name=name, progress=pr,
                           on_step=lambda done: tr.update(done - tr.n), limits=limits)
    write_spec("--out", args.out, found.spec, args)
    summ = found.summary()
    print(f"find-gates: K = {found.K} ({'given' if args.K else 'elbow'}), {counted(len(found.spec.pathways), 'pathway')} "
          f"-> {args.out} ({time.time() - t0:.1f}s)")
    for p in found.spec.pathways:
        print(f"  {p.name}: hidden {p.hidden}, active {''.join(map(str, p.active))}")
    if summ["mse"]:
        print(mse_by_K(found.scores))
    return 0


def _from_run(args) -> int:
    """``find-gates --checkpoints … --data …``: Algorithm 1 on an imported run; writes the spec."""
    if args.source is not None:
        raise SpecError("source", f"{args.source!r} given with --checkpoints", "give either a task/spec or --checkpoints")
    for opt, given in (("--force", args.force), ("--time-limit", args.time_limit is not None)):
        if given and args.K is not None:    # they bound the elbow's GDLN trainings; with --K there are none
            raise SpecError(opt, "given with --checkpoints and --K: it bounds the elbow's GDLN trainings by their "
                            "estimate; with --K there is no elbow, and the imported run is read, not trained",
                            f"leave out {opt}")
    limits = limits_from(args)      # before the run is read: a bad --time-limit costs nothing
    # the list of steps as numbers, as the record (provenance options) holds the trained path's --steps (it was
    # the text '0,100')
    args.steps = parse_steps(args.steps)
    t0 = time.time()
    run = run_from_args(args)
    lr, loss = run_settings(run, args.lr, args.loss)
    default = fitting_name(f"found-{Path(run.files[0]).parent.name or 'run'}", "found-gates")
    with Progress("find-gates: elbow", args.max_K, enabled=args.K is None and not args.no_progress) as progress:
        found = as_command(find_gates_in_run)(run, lr=lr, loss=loss, K=args.K, Ks=range(1, args.max_K + 1), seed=args.seed,
                                  name=default if args.name is None else args.name, progress=progress, limits=limits)
    write_spec("--out", args.out, found.spec, args)
    print(f"find-gates: {counted(len(run.files), 'checkpoint')} (steps {run.steps[0]}…{run.steps[-1]}), ReLU widths "
          f"{run.widths}; K = {found.K} ({'given' if args.K else 'elbow'}), {counted(len(found.spec.pathways), 'pathway')} "
          f"-> {args.out} ({time.time() - t0:.1f}s)")
    for p in found.spec.pathways:
        print(f"  {p.name}: hidden {p.hidden}, active on {sum(p.active)} of {len(p.active)} datapoints")
    if found.scores:
        print(mse_by_K(found.scores))
    for n in found.notes:
        print(f"  note: {n}")
    return 0
