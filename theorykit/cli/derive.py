"""`theorykit derive`: the exact derivation, and the loss curve only where one is asked for."""
from __future__ import annotations

import numpy as np

from ..analysis import summary
from ..errors import SpecError
from ..spec.fields import figure_path, file_field
from ..spec.files import load_spec
from ..spec.limits import derivation_estimate, enforce
from ..theory.crossings import crossings
from ..theory.derivation import Derivation
from ..theory.modes import exact_latex
from .common import (check_outputs, file_sha256, json_text, limits_from, no_value, note, parse_times, provenance,
                     values_from, values_record, write_result)


#: a derivation estimated to take longer than this says so before it starts (it shows no progress)
LONG_SECONDS = 10.0


def run(args):
    limits = limits_from(args)
    spec = load_spec(args.spec, limits=limits)
    if args.against and args.crossings is None:
        raise SpecError("--against", "compares modes only in the search for crossings", "add --crossings SYMBOL")
    others = [_named(path, load_spec, path, limits=limits) for path in args.against or []]  # costs nothing yet
    # --set NAME=VALUE of a symbol that only an --against spec declares is that spec's (_against reads it);
    # any other name is checked against the spec's symbols, as every command checks it
    theirs = {name for other in others for name in other.task.symbols} - set(spec.task.symbols)
    values = values_from(spec, [a for a in args.set or [] if _set_name(a) not in theirs])
    if args.crossings is not None and args.crossings in {_set_name(a) for a in args.set or []}:
        raise SpecError("--crossings", f"{args.crossings} has a value (--set {args.crossings}=…): crossings are "
                        "searched along a symbol left free", f"leave out --set {args.crossings}=…")
    if args.plot is not None:
        figure_path(args.plot, "--plot")      # before the derivation: a wrong name costs nothing
    # a loss curve is integrated only for --times or --plot; without them the derivation is all
    curve = args.times is not None or bool(args.plot)
    times = parse_times(args.times, spec.training.steps)
    free_left = bool(spec.task.free_symbols - set(values))
    if args.plot and free_left:     # a plot needs numbers: refuse before any work, not draw empty axes
        raise no_value(spec.task.free_symbols - set(values), "--plot", "the loss curve needs a value for {names}")
    est = derivation_estimate(spec, horizon=float(times.max()) if curve else None, symbolic=free_left,
                              horizon_field="--times" if args.times is not None else "--plot", plot=bool(args.plot))
    enforce(est, limits)
    if est.seconds > LONG_SECONDS:      # the exact algebra (SymPy, flint) has no steps to count: say so instead
        note(f"estimated derivation {est.summary()}, with no progress to show (exact algebra); Ctrl-C stops it "
             "and writes nothing" + (" (--set NAME=VALUE derives at numbers, much faster)" if free_left else ""))
    der = Derivation(spec, method=args.method, values=values)
    free = der.task.free_symbols
    out = {"spec": spec.name, "method": der.method, "notes": list(der.notes), "tau": spec.tau,      # a copy: the CLI adds its own
           "a0": spec.training.a0, "loss_kind": spec.training.loss, "pathways": der.summary(),
           "couplings": [list(c) for c in der.couplings],
           "ranking": [{"pathway": n, "rank": r, "top_singular_value": s}     # equal values share a rank
                       for r, (n, s) in zip(der.ranks, der.ranking_text)],
           "values": values_record(values)}
    out["latex"] = {"loss": exact_latex(der.loss)} if der.method == "closed-form" else {}
    if free:
        out["loss"] = None
        ref = {str(k): str(v) for k, v in sorted(der.reference.items(), key=lambda kv: str(kv[0]))}
        out["reference_values"] = ref
        out["notes"].append(f"symbols {sorted(map(str, free))} have no value: the exact fields hold them as "
                            f"symbols, and the *_float fields are taken at the reference point {ref} (theorykit's "
                            "fixed reference point, where the SVD's order and signs are decided, not a value of "
                            "the spec); pass --set NAME=VALUE for numbers at your values and for predicted losses")
    elif der.method == "closed-form" or curve:
        # the closed form costs nothing to evaluate; the race reduction is integrated when asked
        try:
            out["loss"] = {"t": times, "value": der.predict_loss(times)}
        except SpecError as exc:    # the flow's step budget: the horizon is the --times the user gave
            if exc.field != "training.lr" or args.times is None:
                raise
            raise SpecError("--times", exc.problem, exc.fix) from None
    else:
        out["loss"] = None
        out["notes"].append("the loss curve is the race reduction, integrated numerically: pass --times t1,t2,... "
                            "(or --plot) to have it")
    if args.crossings is not None:
        ders = [der] + [_named(path, _against, args, other, limits) for path, other in zip(args.against or [], others)]
        try:        # with --against: each mode labelled spec-name:pathway
            cross = crossings(ders if others else der, symbol=args.crossings)
            out["crossings"] = [c.as_dict() for c in cross]
            out["crossing_groups"] = [g.as_dict() for g in cross.groups]     # the same, one per coincident group
            if cross.cancelled:     # another symbol (targets times a positive c) cancelled from the comparison
                out["notes"].append(cross.cancelled_note())
        except SpecError as exc:    # name the option, not the keyword
            if exc.field == "values":       # two specs of one name: their modes' labels would clash
                raise SpecError("--against", exc.problem, "give each spec its own name = \"…\" line") from None
            raise SpecError("--crossings", exc.problem, exc.fix) from None
    out["provenance"] = provenance(args, spec)
    for k, path in enumerate(args.against or [], 1):    # hashed like the spec: rerun checks them
        out["provenance"]["inputs"][f"against[{k}]"] = {"path": path, "sha256": file_sha256(path)}
    # everything is computed before anything is written: an error leaves no file behind
    json_text(out)          # a non-finite number is refused here, before any file is written
    check_outputs(("--latex", args.latex), ("--plot", args.plot), ("--json", args.json),    # and a bad path
                  inputs=[("spec", args.spec)] + [("--against", p) for p in args.against or []], stdout=("--json",))
    if args.latex:
        write_result("--latex", args.latex, der.latex(document=True))
    if args.plot:
        summary.plot(args.plot, der=der, values=values, times=times, title=summary.plot_title(spec.name, values))
        L = np.asarray(out["loss"]["value"], float) if out["loss"] else None
        if L is not None and L[-1] > 0.5 * L[0]:      # a plot of the start only reads as "nothing happens"
            note(f"--plot: the loss has not halved by step {times.max():g}, so the plot shows only its start; "
                 f"pass later --times (e.g. --times 0,{10 * times.max():g})")
    summary.emit(args, out, lambda: summary.derive_text(der, out, values), written=(args.latex, args.plot))
    return 0


def _set_name(assignment: str) -> str:
    """The symbol a ``--set NAME=VALUE`` names (read whole, and checked, by ``values_from``)."""
    return assignment.split("=", 1)[0].strip()


def _against(args, spec, limits) -> Derivation:
    """``--against SPEC``'s derivation, at the ``--set`` values of the symbols it declares."""
    sets = [a for a in args.set or [] if _set_name(a) in spec.task.symbols]
    values = values_from(spec, sets)
    enforce(derivation_estimate(spec, horizon=None, symbolic=bool(spec.task.free_symbols - set(values))), limits)
    return Derivation(spec, method=args.method, values=values)


def _named(path, fn, *a, **kw):
    """``fn(*a, **kw)``, its error naming the --against file it came from: ``--against B.toml`` for the
    file itself (missing, not TOML), ``--against B.toml: pathways[0].hidden`` for a field in it (the
    same field of the spec would read alike); an option's own error (``--set b``) as it is."""
    try:
        return fn(*a, **kw)
    except SpecError as exc:
        if exc.field.startswith("--"):
            raise
        where = file_field("--against", path) + ("" if exc.field == "spec" else f": {exc.field}")
        raise SpecError(where, exc.problem, exc.fix) from None
