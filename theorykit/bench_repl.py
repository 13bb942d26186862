"""REPL speed (``theorykit bench --repl``): what a user waits for around the exact derivation.

Measured in fresh processes, each task twice over, on this machine and in this sitting:

* ``theorykit --help``: start-up of the command line;
* ``derive --json`` of the 64 × 4 task and ``derive --times 0,100,1000`` of the 32 × 4 task (the
  whole command: start-up, checks, derivation, and the loss curve where asked);
* in one process: the exact derivation (build, modes, method), then ``predict_loss`` cold (the
  first call) and warm (a second call at other times), for the explicit hierarchy tasks with
  coupled pathways (32 × 4 and 64 × 4: the common pathway and the four 3-context pathways), for
  ``examples/contexts_double.toml`` and, where the checkout has it, for the graph with shared edges
  ``examples/section6_paper.toml`` (its warm call is the race of the graph alone: the race and its
  aligned start are built once).

``--baseline DIR`` runs the same measurements against another checkout of theorykit (for instance
``git worktree add /tmp/old <commit>``) in the same sitting, and prints the ratio old / new beside
each figure. The measuring code runs as a script that uses only the API both versions share.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .errors import SpecError
from .spec.files import example_path

__all__ = ["MEASURE", "measure", "run_section"]

#: the measurement, run in a fresh interpreter against whichever theorykit is on its path
MEASURE = r'''
import json, sys, time
from pathlib import Path
t0 = time.perf_counter()
import theorykit
from theorykit.bench_derive import hierarchy_spec, warm_imports
from theorykit.spec.files import load_spec
from theorykit.theory.derivation import Derivation
warm_imports()          # lazy first-use imports (sympy.physics.units, ...): start-up, not counted
imports = time.perf_counter() - t0
cases = {"hierarchy 32 x 4": lambda: hierarchy_spec(32, 4), "hierarchy 64 x 4": lambda: hierarchy_spec(64, 4),
         "examples/contexts_double.toml": lambda: load_spec(sys.argv[1])}
graph = Path(sys.argv[1]).with_name("section6_paper.toml")     # a graph with shared edges (a checkout may lack it)
if graph.is_file():
    cases["examples/section6_paper.toml"] = lambda: load_spec(graph)
out = {"imports": imports, "cases": {}}
for name, make in cases.items():
    t = time.perf_counter()
    der = Derivation(make())
    der.summary(); der.method
    d = time.perf_counter() - t
    t = time.perf_counter()
    L1 = der.predict_loss([0.0, 100.0, 1000.0])
    cold = time.perf_counter() - t
    t = time.perf_counter()
    L2 = der.predict_loss([0.0, 50.0, 200.0, 700.0, 1000.0])
    warm = time.perf_counter() - t
    out["cases"][name] = {"method": der.method, "derivation": d, "predict_cold": cold, "predict_warm": warm,
                          "loss_at_1000": float(L1[-1]), "loss_at_1000_again": float(L2[-1])}
print(json.dumps(out))
'''


def _env(root: Path | None):
    env = dict(os.environ)
    if root is not None:
        env["PYTHONPATH"] = str(root) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _timed(cmd, env, cwd) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def measure(root: Path | None = None, repeats: int = 2) -> dict:
    """The figures of the module docstring for the theorykit at ``root`` (None: this one); each
    command's best of ``repeats`` runs."""
    # this theorykit's example (a checkout's examples/, or the copy a wheel installs in the package:
    # site-packages/examples, which the path beside the package named, is not there), or the baseline's
    example = example_path("contexts_double.toml") if root is None else Path(root) / "examples" / "contexts_double.toml"
    env = _env(root)
    py = sys.executable
    cli = [py, "-c", "import sys; from theorykit.cli import main; sys.exit(main())"]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # the explicit task files (written by the code under test, so the files are its own)
        subprocess.run([py, "-c", "import sys; from theorykit.bench_derive import hierarchy_spec; "
                        "from theorykit.spec.files import spec_to_toml; from pathlib import Path; "
                        "[Path(sys.argv[1], f'h{n}.toml').write_text(spec_to_toml(hierarchy_spec(n, 4))) "
                        "for n in (32, 64)]", str(tmp)], env=env, check=True)
        commands = {"help": ["--help"], "derive_json_64x4": ["derive", "h64.toml", "--json", "o.json", "--force"],
                    "derive_times_32x4": ["derive", "h32.toml", "--times", "0,100,1000", "--json", "o.json", "--force"]}
        res = {key: min(_timed(cli + argv, env, tmp) for _ in range(repeats)) for key, argv in commands.items()}
        proc = subprocess.run([py, "-c", MEASURE, str(example)], env=env, cwd=tmp, check=True, capture_output=True,
                              text=True)
    res.update(json.loads(proc.stdout.strip().splitlines()[-1]))
    return res


def run_section(baseline: str | None = None, out=print) -> dict:
    """Measure (and the baseline, if given, in the same sitting) and print one table."""
    if baseline and not (Path(baseline) / "theorykit" / "__init__.py").is_file():
        # else the baseline's interpreter would import this theorykit (installed) and call it the old one
        raise SpecError("--baseline", f"{baseline} holds no theorykit package (no theorykit/__init__.py there)",
                        "give the root of another checkout, e.g. one made by git worktree add /tmp/old <commit>")
    new = measure()
    old = measure(Path(baseline)) if baseline else None

    def ratio(a, b):
        return f"{a / b:8.1f}x" if (a is not None and b) else ""

    out("\nREPL speed (2 runs of each command, best; fresh processes; seconds of wall time)")
    out(f"  {'what':<58}{'now':>9}" + (f"{'baseline':>10}{'old/new':>9}" if old else ""))
    rows = [("theorykit --help", "help"), ("derive --json, hierarchy 64 x 4 (whole command)", "derive_json_64x4"),
            ("derive --times 0,100,1000, hierarchy 32 x 4 (whole command)", "derive_times_32x4")]
    for label, key in rows:
        out(f"  {label:<58}{new[key]:9.2f}" + (f"{old[key]:10.2f}{ratio(old[key], new[key])}" if old else ""))
    for name, c in new["cases"].items():
        o = old["cases"].get(name) if old else None
        for label, key in (("exact derivation", "derivation"), ("predict_loss, first call", "predict_cold"),
                           ("predict_loss, second call (other times)", "predict_warm")):
            out(f"  {name + ': ' + label:<58}{c[key]:9.3f}" + (f"{o[key]:10.3f}{ratio(o[key], c[key])}" if o else ""))
        out(f"  {name + ': predict_loss warm / exact derivation':<58}{c['predict_warm'] / c['derivation']:9.2f}")
        if o:
            gap = abs(o["loss_at_1000"] - c["loss_at_1000"])        # relative, unless the baseline's is 0
            rel = gap / abs(o["loss_at_1000"]) if o["loss_at_1000"] else (0.0 if gap == 0 else float("inf"))
            out(f"  {name + ': L(1000), relative change to baseline':<58}{rel:9.1e}")
    return {"now": new, "baseline": old}
