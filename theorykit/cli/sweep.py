"""`theorykit sweep`."""
from __future__ import annotations

import math
from pathlib import Path

from ..analysis.sweep import parse_grid, run_sweep
from ..errors import as_command
from ..io import counted
from ..spec.limits import enforce
from .common import check_out_dir, note, provenance, sim_estimate, spec_from_args


def run(args):
    """A declared sweep (symbol grids x learning rates x seeds) through one sharded trainer call, resumable."""
    limits, spec, _ = spec_from_args(args)      # sweep has no --set: its symbols are gridded (--grid)
    grid = parse_grid(args.grid, spec.task.symbols)
    # --steps and --seeds are checked by the parser's rule (theorykit.cli.parser.WholeNumber)
    steps, seeds = args.steps, args.seeds
    # the size check simulate makes, before anything is written: every member (grid point x lr x seed)
    # is one network of the ensemble, and the loss curves of all of them are kept
    members = math.prod(len(v) for v in grid.values()) * seeds
    enforce(sim_estimate(args, spec, spec.training.steps if steps is None else steps, members, need_derivation=False,
                         seeds_field="--seeds × --grid (members)"), limits)
    check_out_dir("--out", args.out)
    try:
        res = as_command(run_sweep)(spec, grid, seeds=seeds, steps=steps, out=args.out, chunk=args.chunk,
                                    dtype=args.dtype, progress=not args.no_progress, init=args.init,
                                    record=lambda: provenance(args, spec))
    except KeyboardInterrupt:       # Ctrl-C or SIGTERM: say what is kept, and that the sweep goes on from it
        chunks = Path(args.out) / "chunks"
        kept = len(list(chunks.glob("chunk_*.npz")))
        if kept:
            note(f"{kept} of {counted(math.ceil(members / args.chunk), 'chunk')} are saved in {chunks}: the same "
                 "command continues from there")
        raise
    # on stderr, "theorykit: note: …", as every other command's notes
    for n in res.get("notes", []):
        note(n)
    print(f"sweep: {counted(res['members'], 'member')} in {counted(res['chunks'], 'chunk')} ({len(res['chunks_computed'])} computed this run, "
          f"{res['seconds_this_run']:.1f}s) -> {Path(args.out) / 'sweep.json'}")
    return 0
