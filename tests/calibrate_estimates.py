"""Calibration of the derivation's time estimate against measured runs (issue 27).

``theorykit check`` and ``theorykit derive`` estimate the exact derivation's time before running it
(:func:`theorykit.spec.limits.derivation_estimate`) and refuse one over the time limit. This script
measures, in one process, the estimate and the measured time of every case of three tables:

* **fuzz**: the fuzzer's valid specs (:func:`fuzz.valid_specs`, derandomized Hypothesis examples,
  duplicates dropped), each as the fuzzer runs it (with its ``--set`` values); a spec with symbols
  is measured a second time without them ("symbolic": the symbols stay free, as ``derive`` without
  ``--set`` does);
* **radicals**: a 3 × 4 task whose entries hold square roots of 0…N distinct primes (a number field
  of degree 2^N; the fuzzer's specs reach degree 4), with rational and with symbolic data;
* **bench**: the bench's task table (:mod:`theorykit.bench_derive`: the hierarchy and ring scaling
  grid, Section 4, Section 5 for k = 3…8, the XoR ReLNs with Δ symbolic).

A case's measured time is what ``theorykit derive`` without ``--times`` does (start-up not counted,
fresh objects for every case): build the spec, the derivation (effective datasets, exact SVDs), its
summary, method and ranking. Its estimate is ``derivation_estimate(spec, horizon=None, symbolic=...)``
as ``derive`` computes it. Both are compared above a floor (default 0.05 s): the ratio is
max(estimate, floor) / max(measured, floor), since a factor 3 on a task of a few milliseconds does
not change any plan. Run from a source checkout (needs Hypothesis)::

    python tests/calibrate_estimates.py                 # 80 fuzz examples, the full bench grid
    python tests/calibrate_estimates.py --fuzz 200 --quick --json out.json

prints one line per case (table, kind, sizes, estimate, measured, ratio) and the summary (median,
min and max ratio, share within 3× either way) per table and overall. Exit status 1 when a case is
outside 3× (or a case refused at the default 60-minute limit took less than a minute).

The constants per pair of pathways (``PAIR_SECONDS``, ``RACE_PAIR_SECONDS``, ``PAIR_BYTES``: derive on K
pathways that all couple, K(K−1)/2 pairs) are measured by the **pairs** table, on the fuzzer's exploded
graph (one layer of K width-1 nodes on 2 datapoints, as tests/test_derive_estimate_graph_rules.py builds
it) at each K of ``--pairs`` (default 400,800; 1600 takes about 2 minutes more), against the stated
constants: per pair, the difference quotient between successive K (fixed costs cancel) of what derive
keeps and writes (the derivation, its couplings as JSON, the LaTeX), of the race reduction to t = 20
(``--times 0,20``), and of the memory: the process's peak resident size after both (ru_maxrss, which only
grows: K ascending), and Python's own allocations for the outputs (tracemalloc peak, a second pass; a lower
bound: it misses the race's arrays and the allocator's slack)::

    python tests/calibrate_estimates.py --tables pairs --pairs 400,800,1600
"""
from __future__ import annotations

import argparse
import json
import signal
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sympy.core.cache import clear_cache  # noqa: E402

import fuzz  # noqa: E402  (tests/fuzz.py: the Hypothesis strategies of valid specs)
from theorykit.bench_derive import (FULL_GRID, QUICK_GRID, hierarchy_spec, ring_task_spec,  # noqa: E402
                                    warm_imports)
from theorykit.cli.common import values_from  # noqa: E402
from theorykit.spec.files import spec_from_dict  # noqa: E402
from theorykit.spec import limits as L  # noqa: E402
from theorykit.spec.limits import derivation_estimate  # noqa: E402
from theorykit.theory.derivation import Derivation  # noqa: E402

PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
DEFAULT_LIMIT = 3600.0


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout


# ------------------------------------------------------------------------------------------------
# cases: (table, kind, label, make) with make() -> (spec, values)
# ------------------------------------------------------------------------------------------------
def fuzz_cases(n: int, seed: int = 0) -> list:
    """``n`` derandomized examples of the fuzzer's valid specs (duplicates dropped)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    drawn = []

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate], derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(fuzz.valid_specs())
    def collect(item):
        drawn.append(item)

    hseed(seed)(collect)()
    out, seen = [], set()
    for kind, doc, sets in drawn:
        key = (fuzz.to_toml(doc), tuple(sets))
        if key in seen:
            continue
        seen.add(key)

        def make(doc=doc, sets=sets):
            spec = spec_from_dict(doc)
            return spec, values_from(spec, sets)

        out.append(("fuzz", kind, "", make))
        if sets:
            out.append(("fuzz", kind + ", symbolic", "", lambda doc=doc: (spec_from_dict(doc), {})))
    return out


def radical_doc(k: int, symbolic: bool = False) -> dict:
    """A 3 × 4 task (two pathways: inputs 0-1 and 1-2) with square roots of the first ``k`` primes."""
    cells = [(r, c) for r in range(5) for c in range(4)]
    base = [[1, 0, 2, 1], [0, 1, 1, 2], [1, 1, 0, 3], [2, 1, 0, 1], [1, 3, 1, 0]]
    for i in range(k):
        r, c = cells[(7 * i + 3) % len(cells)]
        base[r][c] = f"sqrt({PRIMES[i]})"
    if symbolic:
        base[0][0] = "Delta"
    doc = {"data": {"inputs": base[:3], "targets": base[3:]},
           "pathways": [{"name": "a", "active": [1, 1, 1, 0], "inputs": [0, 1]},
                        {"name": "b", "active": [0, 1, 1, 1], "inputs": [1, 2]}]}
    if symbolic:
        doc["symbols"] = {"Delta": "positive"}
    return doc


def radical_cases(kmax: int) -> list:
    out = []
    for k in range(kmax + 1):
        out.append(("radicals", f"{k} sqrt primes", "", lambda k=k: (spec_from_dict(radical_doc(k)), {})))
    for k in (0, 2, 4):
        out.append(("radicals", f"{k} sqrt primes, symbolic", "",
                    lambda k=k: (spec_from_dict(radical_doc(k, True)), {})))
    return out


def bench_cases(quick: bool) -> list:
    from theorykit.spec.gating import GDLNSpec, Training, context_family, context_pathways, xor_relns
    from theorykit.spec.task import contexts, xor_margin

    grid = QUICK_GRID if quick else FULL_GRID
    out = []
    for name, paths in xor_relns().items():
        out.append(("bench", f"xor {name}, symbolic", "", lambda paths=paths: (GDLNSpec(xor_margin(), paths), {})))
    out.append(("bench", "section 4", "", lambda: (GDLNSpec(
        contexts(8, 3, blocks=["hierarchy", "ring", "cross"]),
        context_pathways(8, 3, [(0, 1), (0, 2), (1, 2)]), Training(loss="sum")), {})))
    for k in (3, 4, 5, 6, 7, 8):
        out.append(("bench", f"section 5 k={k}", "", lambda k=k: (GDLNSpec(
            contexts(8, k), context_pathways(8, k, context_family(k, k - 1)), Training(loss="sum")), {})))
    for n, k in grid["hierarchy"]:
        out.append(("bench", f"hierarchy {n}x{k}", "", lambda n=n, k=k: (hierarchy_spec(n, k), {})))
    for n in grid["ring"]:
        out.append(("bench", f"ring {n}x3", "", lambda n=n: (ring_task_spec(n, 3), {})))
    return out


def exploded_doc(K: int) -> dict:
    """The fuzzer's ``graph-explosion`` at (layers, per) = (1, K): every path shares the output row and
    both datapoints, so all K(K−1)/2 pairs couple."""
    nodes = [{"name": f"n0_{i}", "width": 1} for i in range(K)]
    edges = [{"from": "input", "to": n["name"]} for n in nodes] + [{"from": n["name"], "to": "output"} for n in nodes]
    return {"name": "graph", "data": {"inputs": [[1.5, -2], [1.5, -2]], "targets": [[1.5, 0]]},
            "nodes": nodes, "edges": edges}


def _derive_outputs(spec) -> Derivation:
    """What derive keeps and writes of the pairs: the derivation, its couplings as JSON, the LaTeX."""
    der = Derivation(spec)
    der.summary()
    der.method
    der.ranking_text
    json.dumps([list(c) for c in der.couplings] + list(der.notes))
    der.latex(document=True)
    return der


def pair_constants(Ks) -> list:
    """Per pair, measured between successive K of the exploded graph, against the stated constants."""
    import resource
    import tracemalloc

    import numpy as np

    rows = []
    for K in Ks:
        clear_cache()
        spec = spec_from_dict(exploded_doc(K))
        t0 = time.perf_counter()
        der = _derive_outputs(spec)
        t1 = time.perf_counter()
        der.predict_loss(np.array([0.0, 20.0]))
        t2 = time.perf_counter()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0      # KiB on Linux
        del der
        clear_cache()
        tracemalloc.start()
        _derive_outputs(spec_from_dict(exploded_doc(K)))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append({"K": K, "pairs": K * (K - 1) // 2, "output": t1 - t0, "race": t2 - t1, "rss": rss, "bytes": peak})
        print(f"pairs    K={K:<6d}{K * (K - 1) // 2:>9d} pairs  output {t1 - t0:8.2f}s  race {t2 - t1:8.2f}s  "
              f"peak RSS {rss / 1e6:8.1f} MB  Python {peak / 1e6:8.1f} MB", flush=True)
    stated = {"output": L.PAIR_SECONDS, "race": L.RACE_PAIR_SECONDS, "rss": L.PAIR_BYTES, "bytes": L.PAIR_BYTES}
    names = {"output": "PAIR_SECONDS", "race": "RACE_PAIR_SECONDS", "rss": "PAIR_BYTES (RSS)", "bytes": "PAIR_BYTES (Python)"}
    out = []
    for a, b in zip(rows, rows[1:]):
        dp = b["pairs"] - a["pairs"]
        for key in ("output", "race", "rss", "bytes"):
            per = (b[key] - a[key]) / dp
            out.append((names[key], a["K"], b["K"], per, stated[key]))
            print(f"  {names[key]:<20} K {a['K']}->{b['K']}: measured {per:.3g} per pair, stated {stated[key]:.3g} "
                  f"(ratio stated/measured {stated[key] / per if per > 0 else float('inf'):.2f})")
    return out


# ------------------------------------------------------------------------------------------------
# measuring
# ------------------------------------------------------------------------------------------------
def _describe(spec) -> str:
    s = spec.size_view() if hasattr(spec, "size_view") else spec
    t = s.task
    rad = t.radicals if hasattr(t, "X") else None
    deg = rad.degree if rad is not None else 1
    return f"{t.d}x{t.p}x{t.P} K={len(s.pathways)}" + (f" D={deg}" if deg > 1 else "")


def measure(make, case_limit: float) -> dict:
    """Estimate and measured seconds of one case (fresh objects; an error or a timeout is reported)."""
    clear_cache()                      # SymPy's cache: as in a fresh `theorykit derive` process
    t0, c0 = time.perf_counter(), time.process_time()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, case_limit)
    try:
        spec, values = make()
        free_left = bool(spec.task.free_symbols - set(values))
        est_t = time.perf_counter()
        est = derivation_estimate(spec, horizon=None, symbolic=free_left)
        est_t = time.perf_counter() - est_t
        der = Derivation(spec, values=values)
        der.summary()
        der.method
        der.ranking_text
        status = "ok"
    except _Timeout:
        status = "timeout"
    except Exception as exc:          # a spec the derivation refuses (e.g. a Gram factor of degree > 2)
        status = f"error: {type(exc).__name__}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    sec, cpu = time.perf_counter() - t0, time.process_time() - c0
    if status != "ok" and status != "timeout":
        return {"status": status}
    if status == "timeout":
        spec, values = make()
        free_left = bool(spec.task.free_symbols - set(values))
        est = derivation_estimate(spec, horizon=None, symbolic=free_left)
        est_t = 0.0
    return {"status": status, "estimate": est.seconds, "measured": sec - est_t, "cpu": cpu,
            "symbolic": free_left, "sizes": _describe(spec)}


def ratio(est: float, measured: float, floor: float) -> float:
    return max(est, floor) / max(measured, floor)


def summarize(rows, floor) -> str:
    return summarize_ratios([ratio(r["estimate"], r["measured"], floor) for r in rows])


def summarize_ratios(rs) -> str:
    """Median, range and share within 3× of estimate/measured ratios (tests/calibrate_sim_estimates.py too)."""
    if not rs:
        return "no cases"
    inside = sum(1 for x in rs if 1 / 3 <= x <= 3)
    return (f"{len(rs)} cases: median {statistics.median(rs):.2f}, min {min(rs):.2f}, max {max(rs):.2f}, "
            f"within 3x {inside}/{len(rs)} ({100 * inside / len(rs):.0f}%)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python tests/calibrate_estimates.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--fuzz", type=int, default=80, help="Hypothesis examples of the fuzzer's valid specs (default 80)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--radicals", type=int, default=8, help="the radical table: 0 to this many square roots")
    ap.add_argument("--quick", action="store_true", help="the bench's quick grid (no 64 and 128 x 3, 5)")
    ap.add_argument("--tables", default="fuzz,radicals,bench")
    ap.add_argument("--floor", type=float, default=0.05, help="seconds below which times are not told apart")
    ap.add_argument("--case-limit", type=float, default=300.0, help="stop a case after this many seconds")
    ap.add_argument("--json", help="also write every case to this JSON file")
    ap.add_argument("--pairs", default="400,800", help="the pairs table: K of the exploded graph (default 400,800)")
    args = ap.parse_args(argv)
    tables = {t.strip() for t in args.tables.split(",") if t.strip()}
    t_all = time.perf_counter()
    warm_imports()
    Derivation(spec_from_dict(radical_doc(1))).summary()      # first-use imports and caches, not counted
    cases = []
    if "fuzz" in tables:
        cases += fuzz_cases(args.fuzz, args.seed)
    if "radicals" in tables:
        cases += radical_cases(args.radicals)
    if "bench" in tables:
        cases += bench_cases(args.quick)
    if "pairs" in tables:
        pair_constants([int(k) for k in args.pairs.split(",") if k.strip()])
        if not tables - {"pairs"}:
            return 0
    rows, skipped = [], []
    print(f"{'table':<9}{'kind':<26}{'sizes':<22}{'estimate':>10}{'measured':>10}{'CPU':>9}{'ratio':>8}")
    for table, kind, _label, make in cases:
        r = measure(make, args.case_limit)
        if r["status"].startswith("error"):
            skipped.append((table, kind, r["status"]))
            continue
        r.update(table=table, kind=kind)
        rows.append(r)
        q = ratio(r["estimate"], r["measured"], args.floor)
        flag = "" if 1 / 3 <= q <= 3 else "  <-- outside 3x"
        if r["status"] == "timeout":
            flag += f"  (stopped at {args.case_limit:g} s)"
        print(f"{table:<9}{kind:<26}{r['sizes']:<22}{r['estimate']:9.3f}s{r['measured']:9.3f}s{r['cpu']:8.2f}s"
              f"{q:8.2f}{flag}", flush=True)
    print(f"\nratio = max(estimate, {args.floor:g} s) / max(measured, {args.floor:g} s)")
    for table in ("fuzz", "radicals", "bench"):
        sub = [r for r in rows if r["table"] == table]
        if sub:
            print(f"  {table:<9} {summarize(sub, args.floor)}")
    print(f"  {'all':<9} {summarize(rows, args.floor)}")
    if skipped:
        print(f"  not measured (the derivation refuses them): {len(skipped)}: "
              + ", ".join(f"{t}/{k} ({s})" for t, k, s in skipped))
    refused = [r for r in rows if r["estimate"] > DEFAULT_LIMIT and r["measured"] < 60]
    if refused:
        print(f"  REFUSED at the default limit but measured under a minute: {len(refused)}")
    print(f"  total {time.perf_counter() - t_all:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"floor": args.floor, "cases": rows, "skipped": skipped}, indent=1))
    bad = [r for r in rows if not 1 / 3 <= ratio(r["estimate"], r["measured"], args.floor) <= 3]
    return 1 if (bad or refused) else 0


if __name__ == "__main__":
    sys.exit(main())
