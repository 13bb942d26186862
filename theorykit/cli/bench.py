"""`theorykit bench`."""
from __future__ import annotations

from ..bench import run_bench
from ..bench_repl import run_section
from ..errors import SpecError
from ..io import json_text
from .common import check_outputs, write_result


def write_json_result(path, record) -> None:
    """``--json``: the record as indented JSON through the commands' one writer of results
    (:func:`~theorykit.cli.common.write_result`: atomic, an unwritable path named ``--json``)."""
    write_result("--json", path, json_text(record))


def run(args):
    if args.baseline and not args.repl:
        raise SpecError("--baseline", "compares the REPL speed only", "add --repl")
    check_outputs(("--json", args.json), stdout=())    # before the timings: a bad path was found only after them
    if args.repl:
        res = run_section(args.baseline)
        if args.json:
            write_json_result(args.json, res)
        return 0
    return run_bench(quick=args.quick, json_out=args.json, write=write_json_result, progress=not args.no_progress)
