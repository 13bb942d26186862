"""`theorykit compare`: a found spec against the run it was found in (run, GDLN from the run's first
checkpoint, race reduction)."""
from __future__ import annotations

from ..analysis.safetensors_io import check_metadata
from ..analysis.compare import compare_run, write_comparison
from ..errors import SpecError, as_command
from ..io import counted
from ..progress import Progress
from ..spec.fields import learning_rate
from ..spec.files import load_spec
from .common import check_out_dir, limits_from, provenance
from .runs import run_from_args


def run(args) -> int:
    """``theorykit compare FOUND.toml --checkpoints … --data … --out DIR``."""
    spec = load_spec(args.spec, limits=limits_from(args))      # compare has no --force, no --time-limit: the fix says so
    check_out_dir("--out", args.out)
    run = run_from_args(args)
    lr = args.lr if args.lr is not None else (float(check_metadata(run.meta, run.files[0])["lr"])
                                              if "lr" in run.meta else None)
    if lr is not None:
        learning_rate(lr, "--lr", "--lr 0.05")
    if spec.task.free_symbols:      # compare has no --set: the symbols' own error would offer one
        names = sorted(str(x) for x in spec.task.free_symbols)
        raise SpecError("spec", f"{args.spec} leaves {names} without a value, so its data cannot be the run's",
                        "compare the spec find-gates wrote for this run (its data are numbers)")
    with Progress("compare", 3, enabled=not args.no_progress) as pr:
        cmp = as_command(compare_run)(spec, run, lr=lr, loss=args.loss or run.meta.get("loss"), progress=pr)
        paths = write_comparison(cmp, args.out, provenance(args, spec))
        pr.update(note="page written")
    ag = cmp.agreement()
    print(f"compare: {spec.name} ({counted(len(spec.pathways), 'pathway')}) against {counted(len(run.files), 'checkpoint')}, "
          f"L(0) = {cmp.L0:.4g}")
    print(f"  found GDLN (paired start) vs run: max |dL| / L(0) = {ag['gdln_vs_run']:.4f}")
    if "race_vs_run" in ag:
        print(f"  race reduction vs run:            max |dL| / L(0) = {ag['race_vs_run']:.4f}")
        print(f"  race reduction vs found GDLN:     max |dL| / L(0) = {ag['race_vs_gdln']:.4f}")
    print("  wrote " + ", ".join(str(p) for p in paths))
    return 0
