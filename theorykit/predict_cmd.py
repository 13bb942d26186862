"""``theorykit predict SPEC.toml --hidden H --out PRED.toml``: the ReLN a ReLU network will learn, from data.

SPEC holds ``[data]`` (and ``[symbols]``) and ``[training]``; it needs no pathways (any it has are
ignored). The method is :func:`theorykit.analysis.predict.predict_reln`; ``--validate`` trains the
ReLU network and compares (:func:`theorykit.analysis.predict_validate.validate_prediction`).
"""
from __future__ import annotations

import argparse
import math

from .errors import SpecError

DESCRIPTION = """Predict, from the data alone, the gated deep linear network (ReLN) a bias-free ReLU network of
width H learns by full-batch gradient descent from small random weights.

1. Enumerate the gate patterns one bias-free ReLU unit can realise on the data: exactly (LP
   feasibility, depth-first) for up to 16 datapoints and at most --max-patterns patterns, else by a
   seeded search (--samples random N(0, I) weight vectors, --seed). Keep the patterns whose units
   keep them while learning (Definition 3.1's consistency, one LP each).
2. Group them into orbits of the data's symmetry (datapoint permutations preserving X'X and Y'Y,
   found by backtracking and verified exactly).
3. Race families (unions of orbits) with the race reduction and rank them by the area of L(t)/L(0):
   exhaustively where the family count allows, else beam/forward search by area.
4. Share the H units equally among the winning family's pathways; a0 of each = a0_rule(init_std, H_p).

Writes the predicted ReLN as a spec (atomically), prints its pathways and gates, the half-way time of
the predicted loss and the runner-up families with their areas."""


def add_parser(subparsers):
    """Register ``predict`` on an argparse subparsers object."""
    p = subparsers.add_parser("predict", help="predict the ReLN a ReLU network will learn, from data alone",
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("spec", help="TOML with [data] (and [symbols]) and [training]; pathways not needed")
    p.add_argument("--hidden", type=int, required=True, metavar="H", help="hidden width of the ReLU network")
    p.add_argument("--out", required=True, metavar="PRED.toml", help="write the predicted ReLN spec here (atomic)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="value of a symbol of the data")
    p.add_argument("--search", choices=["auto", "exhaustive", "forward", "beam"], default="auto",
                   help="family search (default auto: exhaustive when at most --max-families families)")
    p.add_argument("--beam", type=int, default=3, help="beam width of --search beam (default 3)")
    p.add_argument("--shortlist", type=int, default=8, help="orbits tried per family and round (default 8)")
    p.add_argument("--max-families", type=int, default=1023, help="largest exhaustive search (default 1023)")
    p.add_argument("--max-patterns", type=int, default=4096, help="largest exact enumeration (default 4096)")
    p.add_argument("--max-orbit-size", type=int, default=32, help="orbits with more patterns are left out (default 32)")
    p.add_argument("--enumerate", choices=["auto", "exact", "sample"], default="auto", dest="enum_method",
                   help="pattern enumeration (default auto)")
    p.add_argument("--samples", type=int, default=20000, help="weight vectors of the sampled enumeration (default 20000)")
    p.add_argument("--consistency", choices=["top", "any-output", "off"], default="top",
                   help="pattern consistency test: top input mode (default), any output direction, or none")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampled enumeration (and of --validate)")
    p.add_argument("--steps", type=int, help="race horizon in steps (default: training.steps)")
    p.add_argument("--time-bound", type=float, default=60.0,
                   help="refuse when the estimated run time exceeds this many seconds (default 60; 0: no bound)")
    p.add_argument("--validate", action="store_true", help="train the ReLU network, run Algorithm 1, compare")
    p.add_argument("--seeds", type=int, default=8, help="ReLU networks trained by --validate (default 8)")
    p.add_argument("--json", metavar="OUT", help="write the prediction (and validation) as JSON (atomic)")
    p.add_argument("--html", metavar="DIR", help="with --validate: write the validation page and figures here")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    p.set_defaults(func=run, distributed=False)
    return p


def load_task_training(path, assignments=()):
    """``(task, training, name)`` from a spec file's ``[data]``, ``[symbols]`` and ``[training]`` (the spec
    parsers' own field checks), with ``--set`` values substituted."""
    import tomllib
    from pathlib import Path

    from .spec import files as sf
    from .spec.limits import Limits
    from .spec.task import Task

    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SpecError("spec", f"no such file: {path}", "give the path of a .toml spec") from None
    if len(raw) > sf.MAX_SPEC_BYTES:
        raise SpecError("spec", f"{path} is larger than {sf.MAX_SPEC_BYTES} bytes", "keep large data out of the spec")
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SpecError("spec", f"{path} is not valid TOML: {exc}", "check the file's syntax") from None
    symbols = sf._symbols(data.get("symbols"))
    task = sf._task(data.get("data"), symbols, Limits())
    if symbols:
        task = Task(task.X, task.Y, {**task.symbols, **symbols}, task.name, task.meta)
    training = sf._training(data.get("training"))
    vals = {}
    for a in assignments:
        sym, v = sf.parse_assignment(a, task.symbols)
        vals[sym] = v
    if vals:
        task = task.subs(vals)
    if task.free_symbols:
        raise SpecError("--set", f"no value for {sorted(map(str, task.free_symbols))}",
                        "give every symbol a value, e.g. --set Delta=0.5")
    name = data.get("name", path.stem) if isinstance(data.get("name", path.stem), str) else path.stem
    return task, training, name


def run(args) -> int:
    from .analysis.predict import predict_reln
    from .io import atomic_write_text, write_json
    from .spec.files import spec_to_toml

    for flag, v, lo in (("--hidden", args.hidden, 1), ("--beam", args.beam, 1), ("--shortlist", args.shortlist, 1),
                        ("--seeds", args.seeds, 1), ("--samples", args.samples, 1),
                        ("--max-families", args.max_families, 1), ("--max-patterns", args.max_patterns, 1)):
        if v < lo:
            raise SpecError(flag, f"needs an integer >= {lo}, got {v}", f"e.g. {flag} {max(lo, 8)}")
    if args.steps is not None and args.steps < 1:
        raise SpecError("--steps", f"needs a positive integer, got {args.steps}", "e.g. --steps 2000")
    if not (math.isfinite(args.time_bound) and args.time_bound >= 0):
        raise SpecError("--time-bound", f"needs a number >= 0, got {args.time_bound}", "e.g. --time-bound 60")
    task, training, name = load_task_training(args.spec, args.set)
    pred = predict_reln(task, args.hidden, training, search=args.search, beam=args.beam, shortlist=args.shortlist,
                        seed=args.seed, max_patterns=args.max_patterns, samples=args.samples,
                        enumerate_method=args.enum_method, max_families=args.max_families,
                        max_orbit_size=args.max_orbit_size, steps=args.steps, consistency=args.consistency,
                        time_bound=args.time_bound or None)
    spec = pred.to_spec(f"{name}-predicted"[:64])
    out = atomic_write_text(args.out, spec_to_toml(spec))
    print(pred.text())
    print(f"  wrote {out}")
    doc = {"prediction": pred.summary()}
    if args.validate:
        from .analysis.predict_validate import validate_prediction

        val = validate_prediction(pred, seeds=args.seeds, seed=args.seed, html_dir=args.html)
        doc["validation"] = val.summary()
        print(val.text())
    if args.json:
        print(f"  wrote {write_json(args.json, doc)}")
    return 0
