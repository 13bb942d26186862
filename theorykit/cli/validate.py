"""`theorykit validate`."""
from __future__ import annotations

from pathlib import Path
from ..errors import SpecError
from ..suites import available_suites, load_package
from .common import check_out_dir


def run(args):
    suites = available_suites()
    if args.suite != "all" and args.suite not in suites:
        raise SpecError("suite", f"unknown suite {args.suite!r}", f"use one of {suites + ['all']}")
    check_out_dir("--out", args.out)
    names = suites if args.suite == "all" else [args.suite]
    mode = "full" if args.full else "quick"
    # validation/__init__.py runs the suites: caching by spec/code hash, atomic results, report
    return load_package("validation").run_suites(Path(args.out), mode, names, force=args.force,
                                    progress=not args.no_progress, report=args.suite == "all") or 0
