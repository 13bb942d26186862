"""The options that name an imported run (``--checkpoints``, ``--data``, ...), read into a run."""
from __future__ import annotations

from ..analysis.checkpoints import RunCheckpoints, load_checkpoints
from ..errors import SpecError


def run_from_args(args) -> RunCheckpoints:
    if not args.data:
        raise SpecError("--data", "an imported run needs its data", "give --data DATA.npz with X (d × P) and Y (p × P)")
    return load_checkpoints(args.checkpoints, args.data, layers=args.layers,
                            steps=args.steps, ignore_bias=args.ignore_bias)
