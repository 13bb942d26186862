"""`theorykit sweep`."""
from __future__ import annotations

from pathlib import Path
from ..analysis.sweep import parse_grid, run_sweep
from .common import load_spec_arg


def run(args):
    """A declared sweep (symbol grids x learning rates x seeds) through one sharded trainer call, resumable."""
    spec = load_spec_arg(args.spec)
    grid = parse_grid(args.grid, spec.task.symbols)
    res = run_sweep(spec, grid, seeds=args.seeds, steps=args.steps, out=args.out, chunk=args.chunk, dtype=args.dtype,
                    progress=not args.no_progress)
    print(f"sweep: {res['members']} members in {res['chunks']} chunks ({len(res['chunks_computed'])} computed this run, "
          f"{res['seconds_this_run']:.1f}s) -> {Path(args.out) / 'sweep.json'}")
    return 0
