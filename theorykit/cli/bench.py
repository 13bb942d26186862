"""`theorykit bench`."""
from __future__ import annotations

from ..bench import run_bench


def run(args):
    return run_bench(quick=args.quick, json_out=args.json)
