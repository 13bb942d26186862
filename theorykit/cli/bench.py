"""`theorykit bench`."""
from __future__ import annotations

from ..bench import run_bench
from ..bench_repl import run_section
from ..errors import SpecError
from ..io import write_json
from .common import check_outputs


def run(args):
    if args.baseline and not args.repl:
        raise SpecError("--baseline", "compares the REPL speed only", "add --repl")
    check_outputs(("--json", args.json), stdout=())    # before the timings: a bad path was found only after them
    if args.repl:
        res = run_section(args.baseline)
        if args.json:
            write_json(args.json, res)
        return 0
    return run_bench(quick=args.quick, json_out=args.json)
