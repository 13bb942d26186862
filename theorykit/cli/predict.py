"""`theorykit predict SPEC.toml --hidden H --out PRED.toml`: the ReLN a ReLU network will learn, from data.

SPEC holds ``[data]`` (and ``[symbols]``) and ``[training]``; it needs no pathways (any it has are
ignored). The method is :func:`theorykit.analysis.predict.predict_reln`; ``--validate`` trains the
ReLU network and compares (:func:`theorykit.analysis.predict_validate.validate_prediction`).
"""
from __future__ import annotations

import math
from pathlib import Path

from ..analysis.predict import predict_reln
from ..analysis.findgates import check_training_size
from ..analysis.predict_validate import validate_prediction, validation_estimate
from ..errors import SpecError, as_command
from ..progress import Progress
from ..spec import fields as vf
from ..spec import files as sf
from ..spec.gating import GDLNSpec, Pathway
from ..spec.limits import Limits
from ..spec.ranges import time_limit_fix
from .common import (check_out_dir, check_outputs, fitting_name, json_text, no_value, provenance, spec_text,
                     typed_as, values_from, write_result, write_spec)

#: ReLU networks --validate trains when --seeds is not given
VALIDATE_SEEDS = 8


def load_task_training(path, assignments=(), limits: Limits | None = None):
    """``(task, training, name)`` from a spec file's ``[data]``, ``[symbols]`` and ``[training]`` (the spec
    parsers' own field checks), with ``--set`` values substituted. The task is built under ``limits`` (predict's:
    :func:`predict_limits`; default: its default limits); predict has no --force, so a refusal over its time limit
    says to raise --time-limit (``Limits.options``)."""
    path = Path(path)
    limits = predict_limits(None) if limits is None else limits
    task, training, name = sf.task_file(sf.read_toml(path), limits)      # tk.load_task's reading and checks
    # --set values checked as every command checks them (a data entry must stay real, finite, in range)
    vals = values_from(GDLNSpec(task, (Pathway("all", "all", "all", "all", 1),), training), assignments)
    if vals:
        task = task.subs(vals)
    if task.free_symbols:
        raise no_value(task.free_symbols)
    return task, training, name if name is not None else fitting_name(path.stem, "spec")


def predict_limits(time_limit) -> Limits:
    """predict's one Limits, passed down to the task's build and --validate's trainings (the search takes its seconds,
    ``time_limit=``): ``--time-limit`` (0 or inf: none; None: THEORYKIT_MAX_SECONDS, else 3600), no --force."""
    return Limits(max_seconds=time_limit, options=("--time-limit",))


def run(args) -> int:
    # the whole-number options are checked by the parser's rule (theorykit.cli.parser.WholeNumber)
    if args.time_limit != math.inf:     # 0 or inf: no limit, as for every command's --time-limit
        # named as typed: --time-bound nan said "error in --time-limit"
        vf.real(args.time_limit, typed_as(args, "--time-limit", "--time-bound"), lo=0.0, hi=math.inf,
                fix=time_limit_fix("60"))
    # one Limits: the task's build and --validate's trainings under predict's own time limit (0 or inf: none), not
    # THEORYKIT_MAX_SECONDS, as the search
    limits = predict_limits(args.time_limit)
    task, training, name = load_task_training(args.spec, args.set, limits)
    # before any work and any file: an unwritable --json must not leave --out behind
    check_outputs(("--out", args.out), ("--json", args.json), inputs=[("spec", args.spec)], stdout=())
    # the spec --out writes holds this task (SPEC's data, --set values substituted): one that would not load back
    # (over THEORYKIT_MAX_BYTES) is refused now, not after the prediction, naming the variable (no predict option
    # lowers the data); its pathways are the prediction's
    spec_text("--out", GDLNSpec(task, (Pathway("all", "all", "all", "all", 1),), training, f"{name}-predicted"[:64]),
              args, done="nothing was predicted or written", fixed=True)
    if args.html and not args.validate:     # --help: "with --validate: write the validation page"
        raise SpecError("--html", "writes the page of --validate, which was not asked for", "add --validate, or leave --html off")
    if args.seeds is not None and not args.validate:    # it was silently ignored: no network was trained
        raise SpecError("--seeds", "sets the networks --validate trains, which was not asked for",
                        "add --validate, or leave --seeds off")
    if args.seeds is None:      # the default, recorded as such in the provenance
        args.seeds = VALIDATE_SEEDS
    check_out_dir("--html", args.html)
    if args.validate:       # its trainings' memory and time, estimated as find-gates' before anything is predicted
        steps = int(training.steps if args.steps is None else args.steps)
        est = validation_estimate(task, args.hidden, args.seeds, steps, fields={
            "hidden": "--hidden", "seeds": "--seeds", "steps": "--steps"})
        try:
            check_training_size(est, limits, python=False)
        except SpecError as err:        # the fix ends as lift() says for predict's options (--time-limit, no --force)
            how, _, lifted = err.fix.rpartition("; ")
            raise SpecError(err.field, f"--validate: {err.problem}",
                            f"{how}, or leave out --validate; {lifted}" if how else err.fix) from None
    # the unwrapped function: its errors name the options
    pred = as_command(predict_reln)(task, args.hidden, training, search=args.search, beam=args.beam,
                                    shortlist=args.shortlist, seed=args.seed, max_patterns=args.max_patterns,
                                    samples=args.samples, enumerate_method=args.enum_method,
                                    max_families=args.max_families, max_orbit_size=args.max_orbit_size,
                                    steps=args.steps, consistency=args.consistency, race_dt=args.race_dt,
                                    time_limit=args.time_limit, progress=not args.no_progress, share=args.share)
    spec = pred.to_spec(f"{name}-predicted"[:64])
    print(pred.text())
    doc = {"prediction": pred.summary()}
    if args.validate:       # before anything is written: a failed validation leaves no result behind
        # the ReLU training was quiet (seconds to minutes): a bar of its steps, as find-gates shows
        with Progress("predict: validating (ReLU training)", int(pred.training.steps),
                      enabled=not args.no_progress) as bar:
            val = validate_prediction(pred, seeds=args.seeds, seed=args.seed, html_dir=args.html,
                                      on_step=lambda done: bar.update(done - bar.n), limits=limits)
        doc["validation"] = val.summary()
        print(val.text())
    doc["provenance"] = provenance(args)
    text = json_text(doc) if args.json else None       # a result that cannot be written stops before any file
    # as every command writes a spec: refused, naming --out, if it would not load back
    print(f"  wrote {write_spec('--out', args.out, spec, args)}")
    if args.json:
        print(f"  wrote {write_result('--json', args.json, text)}")
    return 0
