"""Validation suites: symbolic predictions beside simulated networks.

Installed as ``theorykit.validation``; run with ``theorykit validate SUITE --quick --out DIR``.
Each suite module defines ``NAME``, ``DESCRIPTION`` and ``run(out_dir, mode, progress=True)``.
"""

import time
from pathlib import Path


def run_suites(out: Path, mode: str, names, force: bool = False, progress: bool = True, report: bool = False) -> int:
    """Run the named suites into ``out``, writing ``<name>.json`` for each (atomically).

    Minimal runner; the report/caching layer extends it.
    """
    from theorykit.io import write_json
    from theorykit.suites import load_suite

    out = Path(out)
    for name in names:
        mod = load_suite(name)
        t0 = time.time()
        res = mod.run(out, mode, progress=progress)
        res.setdefault("suite", name)
        res.setdefault("mode", mode)
        res["seconds"] = time.time() - t0
        write_json(out / f"{name}.json", res)
        print(f"{name}: wrote {out / (name + '.json')} ({res['seconds']:.1f}s)")
    return 0
