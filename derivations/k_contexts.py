"""The k-context closed forms with symbolic k, as a script: ``python -m theorykit.derivations.k_contexts
[--latex OUT.tex] [--json OUT.json] [--quick]`` (the derivation itself is
:mod:`theorykit.theory.k_contexts`, docs/theory.md#contexts)."""
from __future__ import annotations

import argparse

from theorykit.derivations import run_script
from theorykit.io import atomic_write_text, write_json
from theorykit.theory.k_contexts import derive


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m theorykit.derivations.k_contexts",
                                 description="Symbolic-k derivation of the context task (docs/theory.md#contexts).")
    ap.add_argument("--latex", metavar="OUT.tex", help="write the derivation as a LaTeX document")
    ap.add_argument("--json", metavar="OUT.json", help="write the results and checks as JSON")
    ap.add_argument("--quick", action="store_true", help="check k = 2..5 only, without the race integration")
    args = ap.parse_args(argv)
    res = derive(check_ks=range(2, 6) if args.quick else range(2, 9), race_check=not args.quick)
    K = res.kminus1
    print(f"derived in {res.seconds:.2f}s (symbolic); checks:")
    print("  common pathway sectors:")
    for m in res.common:
        print(f"    {m['sector']}: s = {m['s']}, d = {m['d']}, end = {m['end_point']}, x{m['multiplicity']}")
    print(f"  residual per mode: {res.residual['loss_per_alpha']}")
    print(f"  (k-1)-context: s = {K['s']}, d_own = {K['d_own']}, d = {K['d_eff']}, end = {K['end_point']}")
    print(f"  single-context: s = {res.single['s']}, d = {res.single['d_eff']}")
    print(f"  r-family: s = {res.r_family['s']}, d = {res.r_family['d_eff']}")
    for c in res.checks:
        print("   ", {kk: (round(v, 14) if isinstance(v, float) else v) for kk, v in c.items() if kk != "kminus1_end_points"})
    if args.latex:
        atomic_write_text(args.latex, res.latex)
        print(f"wrote {args.latex}")
    if args.json:
        write_json(args.json, res.summary())
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_script(main))
