"""Derivation time against task size (``theorykit bench``, derivation part).

Measured in one process, start-up (imports) not counted, fresh objects for every case:

* **paper results**: XoR ReLNs with Δ symbolic (modes, closed-form losses, crossover), Section 4
  (common + double pathways on hierarchy/ring/cross: exact SVDs, method), Section 5 for k = 3…8
  (common + (k−1)-context pathways, exact SVDs), and the symbolic-k derivation;
* **scaling**: the contexts task with the hierarchy in every context and its common + (k−1)-context
  pathways (``reln = "double"``) at n ∈ {8, 16, 32, 64, 128}, k ∈ {3, 4, 5}; and the ring: n items,
  each row a bump of three neighbouring items (a circulant), the same block in 3 contexts and as the
  common block, same pathways, at n ∈ {12, 24, 48}.

A case's time runs from building the task to everything ``theorykit derive`` writes except the
predicted loss curve (that is a numerical integration when pathways couple): effective datasets,
exact SVDs, input variances, the Assumption 2.1 check, the method, exact strings and floats, the
ranking.
"""
from __future__ import annotations

import time

from .spec.gating import GDLNSpec, Training, context_family, context_pathways, xor_relns
from .spec.limits import fixed_size
from .spec.task import contexts, xor_margin
from .theory import k_contexts as kc
from .theory.derivation import Derivation

__all__ = ["ring_structure", "ring_task_spec", "hierarchy_spec", "derive_case", "paper_results", "scaling",
           "run_section", "TARGETS", "warm_imports", "timed"]

#: targets of issue 15 (2-core CPU, seconds)
TARGETS = {("hierarchy", 32, 4): 0.5, ("hierarchy", 64, 4): 2.0, ("hierarchy", 128, 4): 8.0,
           ("ring", 12, 3): 0.5, ("ring", 48, 3): 10.0, "paper": 2.0}

#: the kinds of exact singular value a case can report (``SValue.kind`` of theory/exact_values.py, and
#: ``expr`` for a mode without one): the scaling table's values column is as wide as all of them
#: together, so each row is printed as it is derived and still lines up with the others
VALUE_KINDS = ("expr", "quad", "root", "sqrt")

FULL_GRID = {"hierarchy": [(n, k) for n in (8, 16, 32, 64, 128) for k in (3, 4, 5)], "ring": [12, 24, 48]}
QUICK_GRID = {"hierarchy": [(n, k) for n in (8, 16, 32) for k in (3, 4, 5)] + [(64, 4), (128, 4)],
              "ring": [12, 24, 48]}


def ring_structure(n: int):
    """n × n circulant: row r is 1 on items r−1, r, r+1 (mod n)."""
    import sympy as sp

    return sp.Matrix(n, n, lambda r, j: 1 if (j - r) % n in (0, 1, n - 1) else 0)


def _paths(n: int, k: int) -> list:
    # n + k hidden units: one per mode of the common pathway's Σyx (n + k − 1), so the timed specs
    # raise no "fewer hidden units than modes" warning (the derivation's time does not depend on it)
    return context_pathways(n, k, context_family(k, k - 1), hidden=max(100, n + k))


def hierarchy_spec(n: int, k: int):
    return GDLNSpec(contexts(n, k, blocks="hierarchy"), _paths(n, k), Training(loss="mean"))


def ring_task_spec(n: int, k: int = 3):
    R = ring_structure(n)
    return GDLNSpec(contexts(n, k, common=R, blocks=R), _paths(n, k), Training(loss="mean"))


def derive_case(make_spec) -> dict:
    """Time one derivation (task construction included), fresh objects."""
    def derive():
        der = Derivation(make_spec())
        return der, der.summary(), der.method, der.ranking_text

    sec, (der, summ, method, ranking), cpu = timed(derive)
    modes = sum(len(v["singular_values"]) for v in summ.values())
    kinds = {m.raw.s.kind if m.raw is not None else "expr" for svd in der.modes.values() for m in svd.modes}
    return {"seconds": sec, "cpu_seconds": cpu, "modes": modes, "method": method,
            "top": ranking[0][1] if ranking else None,
            "value_kinds": sorted(kinds)}


def warm_imports():
    """Start-up, not counted: modules that the derivation imports lazily on first use. SymPy's
    ``simplify`` imports ``sympy.physics.units`` on its first call (about 0.4 s on an idle 2-core
    CPU), the exact engine SciPy's graph routines, python-flint's mpoly contexts."""
    import scipy.sparse.csgraph  # noqa: F401
    import sympy.physics.units  # noqa: F401

def timed(fn):
    """``fn()``'s wall time (s), its result, and its CPU time (this process's processor time, s)."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    cpu = time.process_time() - c0
    return time.perf_counter() - t0, out, cpu


def paper_results(ks=(3, 4, 5, 6, 7, 8)) -> list:
    """Wall time of each paper result's derivation (imports done first: start-up is not counted)."""
    import sympy as sp

    warm_imports()
    rows = []

    def row(result, fn, detail):
        """Time ``fn`` and add its row; ``detail`` describes what ``fn`` returned."""
        sec, out, cpu = timed(fn)
        rows.append({"result": result, "seconds": sec, "cpu_seconds": cpu, "detail": detail(out)})

    def modes(mds):
        return sum(m.rank for m in mds.values())

    def xor():
        out = {}
        for name, paths in xor_relns().items():
            der = Derivation(GDLNSpec(xor_margin(), paths))
            out[name] = (der.method, der.loss)
        s_lin = Derivation(GDLNSpec(xor_margin(), xor_relns()["linear"])).modes["positive"].modes[0].s
        s_xor = Derivation(GDLNSpec(xor_margin(), xor_relns()["xor"])).modes["point0"].modes[0].s
        D = sp.Symbol("Delta", nonnegative=True)
        return sp.solve(sp.Eq(s_lin, s_xor), D)

    row("XoR ReLNs, Delta symbolic: modes, closed-form losses, crossover", xor,
        lambda crossing: f"Delta* = {crossing}")

    def sec4():
        task = contexts(8, 3, blocks=["hierarchy", "ring", "cross"], limits=fixed_size())
        der = Derivation(GDLNSpec(task, context_pathways(8, 3, [(0, 1), (0, 2), (1, 2)]), Training(loss="sum")))
        return der.modes, der.method

    row("Section 4 (common + double; hierarchy, ring, cross)", sec4, lambda r: f"method {r[1]}, {modes(r[0])} modes")
    for kk in ks:
        def sec5(kk=kk):
            der = Derivation(GDLNSpec(contexts(8, kk, limits=fixed_size()), context_pathways(8, kk, context_family(kk, kk - 1)),
                                       Training(loss="sum")))
            return der.modes, der.method

        row(f"Section 5, k = {kk} (n = 8)", sec5, lambda r: f"{modes(r[0])} modes")
    row("symbolic k (all k at once, LaTeX)", lambda: kc.derive(check_ks=[], latex=True),
        lambda res: f"s = {res.kminus1['s']}")
    return rows


def scaling(quick: bool = False, on_row=None) -> list:
    """The scaling grid's rows, derived in order; ``on_row(row)`` is called as each is done (the bench
    prints it; not a ``progress`` argument, which every long run takes as :mod:`theorykit.progress` says)."""
    warm_imports()
    grid = QUICK_GRID if quick else FULL_GRID
    cases = ([("hierarchy", n, k, hierarchy_spec) for n, k in grid["hierarchy"]]
             + [("ring", n, 3, ring_task_spec) for n in grid["ring"]])
    rows = []
    for task, n, k, make_spec in cases:
        rows.append({"task": task, "n": n, "k": k, **derive_case(lambda: make_spec(n, k))})
        if on_row is not None:
            on_row(rows[-1])
    return rows


def _target(row):
    return TARGETS.get((row["task"], row["n"], row["k"]))


def run_section(quick: bool = False, out=print) -> dict:
    """Measure and print the paper-results total and the scaling table; return them for JSON."""
    out("\nExact derivation time (python-flint engine; task construction included, start-up not counted)")
    paper = paper_results()
    w = max(len(r["result"]) for r in paper)
    out(f"  {'':<{w}}  {'wall':>9}  {'CPU':>9}   (CPU: this process's processor time; on a shared machine "
        "wall time is larger)")
    for r in paper:
        out(f"  {r['result']:<{w}}  {r['seconds']:7.2f} s  {r['cpu_seconds']:7.2f} s")
    total = sum(r["seconds"] for r in paper)
    total_cpu = sum(r["cpu_seconds"] for r in paper)
    out(f"  {'paper results, total':<{w}}  {total:7.2f} s  {total_cpu:7.2f} s   (target < {TARGETS['paper']} s "
        f"wall: {'met' if total < TARGETS['paper'] else 'NOT met'})")
    # the values column fits its widest entry, every kind at once (was 12 characters: a row with
    # "quad,root,sqrt" pushed its seconds, CPU and target out of line)
    vw = len(",".join(VALUE_KINDS)) + 2
    out(f"\n  {'task':<9}{'n':>4}{'k':>4}{'modes':>8}  {'values':<{vw}}{'seconds':>9}{'CPU':>9}  target")

    def show(r):
        t = _target(r)
        tgt = "" if t is None else f"< {t:g} s {'met' if r['seconds'] < t else 'NOT met'}"
        out(f"  {r['task']:<9}{r['n']:>4}{r['k']:>4}{r['modes']:>8}  {','.join(r['value_kinds']):<{vw}}"
            f"{r['seconds']:9.2f}{r['cpu_seconds']:9.2f}  {tgt}")

    rows = scaling(quick, on_row=show)
    return {"paper_results": paper, "paper_total_seconds": total, "paper_total_cpu_seconds": total_cpu,
            "scaling": rows,
            "targets": {"paper": TARGETS["paper"],
                        **{f"{k[0]}-n{k[1]}-k{k[2]}": v for k, v in TARGETS.items() if k != "paper"}}}
