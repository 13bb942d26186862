"""Estimates of the memory and time a spec needs, checked before any work starts.

Three stages are estimated from sizes alone (no JAX; SymPy only to find which entries are not
rational, for data with symbols or radicals):

* **task**: building the exact task matrices (``(d + p) × P`` SymPy entries);
* **derivation**: effective datasets, exact SVDs (one Gram-matrix eigenproblem per pathway,
  roughly cubic in its size), and for coupled specs the numerically integrated race reduction;
* **simulation**: full-batch gradient descent in JAX, vmapped over seeds: parameters, gradients,
  activations and the loss history (``seeds × (steps + 1)`` numbers) in memory; in time, a start-up
  and compilation part (per weight matrix), a per-step overhead (per weight matrix, shared by the
  seeds), and ``steps × seeds × 6 × (multiply-adds per step)`` at a measured CPU rate.

The estimates are deliberately rough and on the high side for a small CPU machine (they were
calibrated on a shared 2-core CPU; a run that gets less of the machine takes longer).
:func:`enforce` compares one with the :class:`Limits`: over the memory limit is always an error;
over the time limit is an error unless ``force`` is set (``--force`` on the command line). Every
error names the field that drives the cost, gives the estimate and the limit, and says how far to
lower the field.

Defaults: memory limit = half of this machine's memory (physical, or the cgroup limit when
lower); time limit = 3600 s. The environment variables ``THEORYKIT_MAX_BYTES`` and
``THEORYKIT_MAX_SECONDS`` change the defaults; ``--time-limit`` changes the time limit of one command.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from ..errors import SpecError
from ..io import human_bytes, human_seconds       # re-exported (they moved to io)
from .counts import int_text, poly_bernoulli_work, product_count     # re-exported (they moved to spec.counts)
from .fields import choice, real, short_repr, type_name
from .ranges import MAX_FAMILIES, TIME_LIMIT_WHAT, max_family_contexts
from .task_radicals import radicals_of

__all__ = ["Limits", "Estimate", "machine_memory", "task_estimate", "derivation_estimate", "simulation_estimate",
           "enforce", "lift", "fixed_size", "human_bytes", "human_seconds", "poly_bernoulli_work", "product_count", "int_text",
           "ALL_PATTERNS_MAX", "REALISABLE_MAX_ORDERINGS", "POLY_BERNOULLI_MAX_WORK", "POLY_BERNOULLI_MAX_BITS",
           "MAX_FAMILIES", "max_family_contexts", "MAX_CONTEXT_PERMUTATIONS"]

#: bytes per SymPy matrix entry (pointer + share of small objects), generous
SYMPY_ENTRY_BYTES = 200
#: seconds to build one SymPy matrix entry
SYMPY_ENTRY_SECONDS = 2e-5
#: the simulation's time (simulation_estimate), measured with tests/calibrate_sim_estimates.py: 24 cases
#: (XoR ReLNs, context-task GDLNs, the Section 6 graphs, ReLU networks; 1-8 seeds; float64 and
#: float32), each `theorykit simulate` in a fresh process, in 6 runs on the shared 2-core CPU
#: (2026-11-27, load 1.7-6.3); docs/performance.md#sim-estimates has the before/after ratios.
#: Sustained float64 FLOP/s of the steps, counted as 6 × weights × datapoints per network and step (measured
#: 20-50 GFLOP/s with the run holding about one core, about half that at load 6; was 5e9: 2-10× over)
SIM_FLOPS = 4e10
#: float32 steps run this much faster (measured 1.5-2×: more SIMD lanes, half the bytes; was 1)
SIM_FLOAT32_SPEEDUP = 1.75
#: seconds per gradient step per weight matrix (the loop and its small operations; shared by the vmapped seeds:
#: 2-5 µs a step measured for networks of 2-8 weight matrices; was 3e-6 per pathway and per seed)
SIM_STEP_OVERHEAD = 1e-6
#: seconds per step and seed, the seeds' small operations (was 0: `check xor_linear.toml --steps 300000 --seeds 16`
#: said 4.57 s for 15-19 s CPU). Measured 2026-11-29, `simulate`, user+sys CPU, shared 2 cores at load 3-10: xor_linear
#: (E = 4) 3e5 steps 5.2-5.6 s at 1 seed, 18.1-19.0 s at 16; xor_reln (E = 8) 1e5 steps 4.0 s, 8.8 s: fits 2.6e-6, 1.7e-6
SIM_SEED_STEP_OVERHEAD = 2.5e-6
#: fixed seconds: JAX's start-up in the process, the initial weights and the JIT compilation, a constant and a part per
#: weight matrix (edge; 1-2 s for 2-8 matrices, 3-4 s for 15-22 at load 4; was 3 s + 1.5 s per pathway)
SIM_COMPILE = (1.5, 0.1)
#: fixed seconds of a command (simulate, check, sweep) before that: Python's start-up and the imports, JAX's among them,
#: once per process (cli.common.sim_estimate adds it: a part "start-up"). 1.16-1.36 s CPU in 42 runs (2026-11-30, load 10-17)
SIM_STARTUP = 1.3
#: the constants below were measured with tests/calibrate_estimates.py (shared 2-core CPU, 149 cases:
#: 110 from 80 examples of the fuzzer's valid specs, 12 of a radical table, 27 of the bench's task
#: table); docs/performance.md#estimates has the before/after ratios
#: seconds per pathway of the exact engine, beyond its share of W^0.6 (measured 2-8 ms per small task)
EXACT_OVERHEAD = 0.005
#: symbolic entries: the rational part of the cost this much slower (the symbolic contexts tasks)
SYMBOLIC_FACTOR = 20.0
#: a pathway with radicals whose blocks are a single row or column (m = min(n_in, n_out, active
#: datapoints) = 1: a norm): seconds per entry of its data that is not rational (1 × 2 × 5 with
#: square roots 0.12-0.22 s, the contexts task's context scale 0.14-0.22 s: SymPy denests the roots)
ROW_ENTRY_SECONDS = 0.03
#: the same with symbols: roots of sums over the symbols are tidied without simplify (XoR with Δ
#: 7-15 ms, 1 × 2 × 5 with Δ and square roots 30-60 ms)
ROW_SYMBOL_ENTRY_SECONDS = 0.01
#: seconds per symbolic pathway with m ≥ 2, times (m − 1)^SYMBOLIC_BLOCK_POWER (2 × 2: 0.03-0.31 s). The power
#: was 3, fitted on 2 × 2 blocks only: contexts(n, k, γ) (m = 4…11) took 0.24-0.95 s of CPU for an estimate of
#: 2.7-100 s; linear fits them and symbolic 3 × 3 and 4 × 4 blocks within 0.6-1.9× (docs/performance.md#symbolic-blocks)
SYMBOLIC_BLOCK_SECONDS = 0.1
SYMBOLIC_BLOCK_POWER = 1
#: radicals (square roots of distinct primes, a number field of degree 2^r) in a pathway's data with
#: m ≥ 2: seconds per radicand, up to RADICAL_CAP radicands. Measured on 2 cores: a 2 × 2 pathway
#: with 1, 2, 3 square roots 0.9, 1.8, 1.1 s; 3 × 4 tasks of two 2 × 2 pathways with 2-8 square roots
#: 0.6-4.2 s, not growing with the degree past 3 radicands (the older SymPy engine grew linearly)
RADICAL_SECONDS = 0.7
RADICAL_CAP = 3
#: symbols and radicals in one pathway with m ≥ 2: the size of SymPy's expressions drives the cost,
#: measured as (number of irrational or symbolic entries in the pathway's data)^3 times this: 4
#: entries 1.8-2.2 s, 6 entries 5.3-7.7 s (4 × 2 fuzz tasks whose 2 × 2 Gram problem is a quadratic
#: over Δ and surds, solved in closed form: 30-40 s and 23-26 s with SymPy's roots and null space);
#: counted up to SYMBOLIC_RADICAL_CAP entries (unmeasured beyond 6)
SYMBOLIC_RADICAL_SECONDS = 0.028
SYMBOLIC_RADICAL_POWER = 3
SYMBOLIC_RADICAL_CAP = 14
#: roots of index q up to this took as long as square roots (2**(1/q), q = 2…16: 0.6-0.8 s); beyond
#: it (unmeasured; nested square roots are such roots) the cost is taken to grow like q / RADICAL_INDEX
RADICAL_INDEX = 16
#: seconds per unit of W^0.6 of the exact derivation (derivation_estimate): centred between the
#: bench's ring (under) and hierarchy rows (over), 0.42-2.97 at 1.9e-5 in two runs
EXACT_SECONDS = 1.7e-5
#: the race reduction (theorykit.theory.race): seconds of compilation, and floating-point operations
#: per second of the engine's vector field on a 2-core CPU (calibrated on the coupled hierarchy
#: tasks, 32 × 4 and 64 × 4). Its cost is bounded by the unsplit system, K² p' d² per evaluation (K pathways, p' = min(p, K d) output rows, d inputs), about 600
#: evaluations of the adaptive Dormand–Prince per decade of t/τ past the first (measured: 73–91
#: steps of 7 stages to t = 50τ on the hierarchy tasks); splitting into blocks only lowers it
RACE_COMPILE_SECONDS = 1.5
RACE_FLOPS = 3e10
#: per pair of pathways (K pathways make K(K-1)/2 pairs, counted as all coupled, an upper bound): the
#: couplings kept and written (a list of pairs in the JSON, built twice, and in the LaTeX), and with a loss
#: curve the race reduction's work per pair, which the flops above miss for narrow pathways. Measured on the
#: fuzzer's exploded graph of K = 800 and 1600 width-1 paths (2-core CPU, 2026-11-29): 12 s of output and
#: 11 s of race per 1.28M pairs, ~0.7 kB of memory per pair. The first PAIRS_CALIBRATED pairs are not
#: counted: the constants above were calibrated on tasks of up to 31 pathways (465 pairs), whose pairs they hold
PAIR_SECONDS = 1.5e-5
PAIRS_CALIBRATED = 1000
RACE_PAIR_SECONDS = 1e-5
PAIR_BYTES = 700.0
#: derive --plot (analysis.summary.plot), counted only when a plot is asked for: per pathway, its line and
#: legend entry (the figure alone); per pair of pathways beyond PAIRS_CALIBRATED, the modes and the loss
#: integrated again on the figure's 300-point grid (race work, as RACE_PAIR_SECONDS). Measured on the exploded
#: graph of tests/test_derive_estimate_graph_rules.py (K width-1 paths), summary.plot timed after the loss at
#: --times as derive calls it (shared 2-core CPU at load 4-5, 2026-11-29): the figure 1.3, 2.1, 4.3, 11.3, 27.7 s
#: at K = 50, 200, 400, 800, 1600 (14-17 ms per pathway from K = 800); the two integrations 2.3, 1.9, 2.2, 4.7,
#: 47.4 s (3.7e-5 s per pair at K = 1600, 1.3 M pairs). A small spec's estimate gains ~0.02 s per pathway
PLOT_PATHWAY_SECONDS = 0.017
PLOT_PAIR_SECONDS = 3e-5
#: simulate --plot (simulation_estimate(plot=True)): the figure (analysis.summary.plot: the loss, and for a GDLN
#: each pathway's modes, theory and simulation) and, for a GDLN, what plot_save adds (its mode recorder at ~61
#: saves; its Derivation is counted by derivation_estimate). Measured on specs of K = 1, 4, 10, 25, 50 coupled
#: pathways on 4 datapoints (random start, 2 seeds, 2000 steps), each part timed a second time in one process
#: (shared 2-core CPU at load 12-13, 2026-11-29, CPU seconds, as wall time there was 6-8× that): the figure 0.43,
#: 0.68, 0.90, 1.49, 2.16 s (0.035 s per pathway); the recorded modes 0.02-0.23 s and plot_save's frames
#: 0.01-0.20 s (0.004 s per pathway each). The simulation itself was 1-2 s of the same: the plot doubled a small run
SIM_PLOT_SECONDS = 0.4
SIM_PLOT_PATHWAY_SECONDS = 0.045

# the exhaustive enumerations (theorykit.theory.lemmas, spec.gating.family_masks, analysis.exhaust): each
# refuses, before it allocates or loops, a size whose count is over its bound (measured on the shared
# 2-core CPU, 2026-11-29; checked by tests/test_lemma_sizes_rules.py)
#: all_patterns(n, k): at most 2^20 patterns (n·k ≤ 20). Building them holds 2^(nk) · nk int64 shifts
#: (168 MB at n·k = 20) besides the 21 MB of booleans returned; 0.1-0.7 s measured at n·k = 20
#: (2^24 patterns at n·k = 24 would be 400 MB returned and 3.2 GB while built; n·k = 40, 44 TB)
ALL_PATTERNS_MAX = 2 ** 20
#: realisable_gate_patterns(n, k): at most 10^7 weight orderings k^k (k+1)^n, enumerated in Python
#: (0.2-0.6 µs each, measured): (9, 3) = 7 077 888 took 4.3 s; (10, 3) = 28 311 552 took 24 s and 860 MB
REALISABLE_MAX_ORDERINGS = 10 ** 7
#: poly_bernoulli(n, k): at most 10^10 word operations of its Stirling-number recurrences (see
#: poly_bernoulli_work; measured 1.1-2.6 ns each: n = k = 500, 9e9 of them, took 10 s) ...
POLY_BERNOULLI_MAX_WORK = 1e10
#: ... and integers of at most 10^8 bits (12.5 MB; B_n^(−1) = 2^n: n = 10^8)
POLY_BERNOULLI_MAX_BITS = 10 ** 8
#: family_masks(k), exhaust_spec(k), race-exhaust --k: MAX_FAMILIES = 2^15 − 1 = 32 767 families (k = 4, 0.25 s);
#: k = 5 has 2^31 − 1, built as a list. Stated in spec.ranges (imported above: the command line's parser reads
#: it without SymPy); every k up to max_family_contexts() (4) is taken
#: context_symmetries(task, n, k): at most 7! = 5040 context permutations, each checked on the exact
#: matrices (3.4-3.8 ms each measured on contexts(8, k), k = 4…6: about 20 s at k = 7; 8! would take minutes)
MAX_CONTEXT_PERMUTATIONS = 5040


def machine_memory() -> int:
    """Bytes of memory this process may use: physical memory, or a lower cgroup limit."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        total = 8 << 30
    for cg in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(cg) as fh:
                txt = fh.read().strip()
            if txt.isdigit() and 0 < int(txt) < total:
                total = int(txt)
        except OSError:
            pass
    return int(total)


def _env_number(name, default):
    txt = os.environ.get(name)
    if not txt:
        return default
    try:
        v = float(txt)
    except ValueError:
        raise SpecError(name, f"environment variable {name}={txt!r} is not a number", f"unset {name} or give a number")
    if not (v > 0 and math.isfinite(v)):
        raise SpecError(name, f"environment variable {name}={txt!r} must be a positive, finite number",
                        f"unset {name} or give a positive number")
    return v


#: the options that lift a command's time limit (:attr:`Limits.options` holds those its command has)
LIFT_OPTIONS = ("--force", "--time-limit")


@dataclass
class Limits:
    """Memory (bytes, never overridden) and time (seconds, overridden by ``force``) limits.

    ``max_bytes``: None for half this machine's memory (or ``THEORYKIT_MAX_BYTES``). ``max_seconds``: None for
    3600 s (or ``THEORYKIT_MAX_SECONDS``); 0 or ``math.inf`` for no time limit, as ``--time-limit 0`` (or ``inf``)
    on the command line (both are stored as ``math.inf``); a negative number or NaN is a :class:`SpecError`.
    ``options``: the command's options that lift its time limit, which a refusal's fix names, else THEORYKIT_MAX_SECONDS
    (``cli.common.limits_from`` reads them: compare has none, predict ``--time-limit``): a tuple of LIFT_OPTIONS,
    anything else a :class:`SpecError` naming ``options``. ``fixed``: :func:`fixed_size`."""
    max_bytes: float | None = None
    max_seconds: float | None = None
    force: bool = False
    options: tuple = LIFT_OPTIONS
    fixed: bool = False

    def __post_init__(self):
        if self.max_bytes is None:
            self.max_bytes = _env_number("THEORYKIT_MAX_BYTES", machine_memory() / 2)
        if self.max_seconds is None:
            self.max_seconds = _env_number("THEORYKIT_MAX_SECONDS", 3600.0)
        elif not (isinstance(self.max_seconds, (int, float)) and self.max_seconds == math.inf):
            # 0 is no limit, as --time-limit 0 is (it was a limit of 0 s: every estimate over it)
            self.max_seconds = real(self.max_seconds, "max_seconds", lo=0.0, hi=math.inf, fix=(
                f"give {TIME_LIMIT_WHAT}, e.g. Limits(max_seconds=600) (0 or inf: no limit; None: "
                "THEORYKIT_MAX_SECONDS, else 3600)")) or math.inf
        # options: None (or a string, a tuple's letters) reached lift()'s `in` as a TypeError
        if not isinstance(self.options, (tuple, list)):
            raise SpecError("options", f"needs a tuple of options, got {type_name(self.options)} {short_repr(self.options)}",
                            "e.g. options=(\"--time-limit\",), or () for a caller with neither (THEORYKIT_MAX_SECONDS)")
        self.options = tuple(choice(o, f"options[{i}]", LIFT_OPTIONS) for i, o in enumerate(self.options))


@dataclass
class Estimate:
    """Estimated cost of one stage, with the parts that make it up.

    ``parts``: (field, seconds, bytes, scale) -- the field a user would lower, the cost it
    drives, and how the cost grows with it (1: linearly; 3: cubically).
    """

    stage: str
    seconds: float = 0.0
    bytes: float = 0.0
    parts: list = field(default_factory=list)

    def add(self, fld, seconds=0.0, nbytes=0.0, value=None, power=1.0):
        self.seconds += seconds
        self.bytes += nbytes
        self.parts.append((fld, seconds, nbytes, value, power))
        return self

    def __add__(self, other: "Estimate") -> "Estimate":
        out = Estimate(self.stage + " + " + other.stage, self.seconds + other.seconds, self.bytes + other.bytes,
                       self.parts + other.parts)
        for src in (self, other):
            for k, v in src.__dict__.items():
                if k not in ("stage", "seconds", "bytes", "parts"):
                    setattr(out, k, v)
        return out

    def summary(self) -> str:
        return f"about {human_seconds(self.seconds)}, {human_bytes(self.bytes)}"


# ----------------------------------------------------------------------------------------------
# stages
# ----------------------------------------------------------------------------------------------
def task_estimate(d: int, p: int, P: int, size_field: str = "data", value=None, power: float = 1.0) -> Estimate:
    """Building a task of d inputs, p outputs and P datapoints as exact SymPy matrices.

    ``power``: how the size grows with ``value`` of ``size_field`` (2 for the items n of the contexts task)."""
    entries = float(d + p) * float(P)
    est = Estimate("building the task")
    est.task = True         # _pick's fix: its size field alone grows it (no seeds, steps or widths multiply it)
    return est.add(size_field, entries * SYMPY_ENTRY_SECONDS, entries * SYMPY_ENTRY_BYTES,
                                              value, power)


def _sized(spec):
    """A graph spec is estimated through its pathways (each as wide as its widest node)."""
    return spec.size_view() if hasattr(spec, "size_view") else spec


def _nonrational(task, pathways, symbolic, rad):
    """Per pathway: (symbols in its data, number of radicands, entries not rational, index excess, active datapoints)."""
    out = []
    for pw in pathways:
        cols = [j for j, g in enumerate(pw.active) if g] if not isinstance(pw.active, str) else list(range(task.P))
        sub = {"x": task.X.extract(list(pw.inputs), cols), "y": task.Y.extract(list(pw.outputs), cols)}
        sym = bool(symbolic) and any(M.free_symbols for M in sub.values())
        n_irr = sum(1 for M in sub.values() for e in M if not e.is_Rational)
        r = radicals_of(sub) if rad is not None and rad.degree > 1 else None
        excess = 1.0
        for q in (r.indices.values() if r is not None else ()):
            excess *= max(1.0, min(float(q), 1e300) / RADICAL_INDEX)
        out.append((sym, len(r.indices) if r is not None else 0, n_irr, min(excess, 1e300), len(cols)))
    return out


def derivation_estimate(spec, *, horizon: float | None = None, symbolic: bool | None = None,
                        horizon_field: str = "--times", plot: bool = False) -> Estimate:
    """Effective datasets and exact SVDs of every pathway, plus the race reduction where pathways couple.

    ``horizon``: the largest time (gradient steps) at which the loss is predicted, or None when
    no loss curve is asked for (then the race reduction is not counted: only what the command
    line asks for is estimated). ``horizon_field``: the option that asked for it, named when
    the estimate is over a limit. ``plot``: derive's ``--plot`` is asked for, whose figure costs
    PLOT_PATHWAY_SECONDS per pathway and PLOT_PAIR_SECONDS per pair beyond PAIRS_CALIBRATED (a part named ``--plot``).
    """
    pair_field = "edges" if hasattr(spec, "size_view") else "pathways"     # what a user lowers to have fewer
    spec = _sized(spec)
    task = spec.task
    d, p, P = task.d, task.p, task.P
    symbolic = bool(task.free_symbols) if symbolic is None else symbolic
    est = Estimate("derivation")
    rad = task.radicals if hasattr(task, "X") else None
    outs = [(len(pw.inputs), len(pw.outputs)) for pw in spec.pathways]
    # rational data, the exact engine (python-flint): calibrated on the bench's task table (hierarchy
    # n = 8…128, k = 3…5; ring n = 12…48; 2-core CPU) as EXACT_SECONDS · W^0.6 with W = Σ_p (n_in +
    # n_out)·P·min(n_in, n_out), within a factor of 3 of every measured time (docs/performance.md)
    works = [float(ni + no) * P * min(ni, no) for ni, no in outs]
    total = sum(works) or 1.0
    # symbols or radicals in a pathway's data take it out of the exact engine: SymPy, per connected
    # block of its Σyx (a norm for a single row or column; a Gram eigenproblem of at most quadratic
    # factors otherwise). Measured by tests/calibrate_estimates.py (see the constants above)
    extra = _nonrational(task, spec.pathways, symbolic, rad) if (symbolic or (rad and rad.degree > 1)) else None
    rad_secs = 0.0
    for i, ((ni, no), w) in enumerate(zip(outs, works)):
        secs = EXACT_OVERHEAD + EXACT_SECONDS * total ** 0.6 * w / total
        if extra is not None:
            sym_i, r_i, n_irr, excess_i, p_i = extra[i]
            m = min(ni, no, p_i)
            if sym_i:
                secs = EXACT_OVERHEAD + SYMBOLIC_FACTOR * (secs - EXACT_OVERHEAD)
            if m == 1 or (task.name == "contexts" and not sym_i):
                part = (ROW_SYMBOL_ENTRY_SECONDS if sym_i else ROW_ENTRY_SECONDS) * n_irr
            else:
                part = SYMBOLIC_BLOCK_SECONDS * (m - 1) ** SYMBOLIC_BLOCK_POWER if sym_i else 0.0
                if r_i:
                    part = max(part, RADICAL_SECONDS * min(r_i, RADICAL_CAP))
                    if sym_i:
                        part = max(part, SYMBOLIC_RADICAL_SECONDS * min(n_irr, SYMBOLIC_RADICAL_CAP) ** SYMBOLIC_RADICAL_POWER)
            if r_i:
                part *= excess_i
                rad_secs += part
            secs += part
        nbytes = SYMPY_ENTRY_BYTES * (ni * no + ni * ni + no * no) * 4 + 16.0 * P * P
        est.add(f"pathways[{i}]", secs, nbytes, None, 3.0)
    if rad_secs > 0.0:
        field_name = (rad.deepest[0] if task.name == "custom" else
                      "data.Delta" if "Delta" in getattr(task, "meta", {}) else "data")
        est.radicals = (rad, field_name, rad_secs)
    est.add("data", 1e-6 * (d + p) * P, SYMPY_ENTRY_BYTES * (d * d + p * d + p * p), None, 1.0)
    K = len(outs)
    pairs = K * (K - 1) / 2.0 - PAIRS_CALIBRATED
    if pairs > 0:
        secs = (PAIR_SECONDS + (RACE_PAIR_SECONDS if horizon else 0.0)) * pairs
        est.add(pair_field, secs, PAIR_BYTES * pairs, K, 2.0)
        est.pairs = (pair_field, K)
    if len(spec.pathways) > 1 and horizon:
        # the race reduction (only when pathways couple; counted always, as an upper bound)
        # Σ_p Σ_q (no_p no_q ni_q + no_p ni_q ni_p), summed in O(K) (the double loop took seconds at K = 3000)
        rhs = sum(no for _, no in outs) * sum(ni * no for ni, no in outs) + \
            sum(ni * no for ni, no in outs) * sum(ni for ni, _ in outs)
        span = max(1.0, math.log10(1.0 + float(horizon) / max(spec.tau, 1e-300)))
        di, po = max(ni for ni, _ in outs), max(no for _, no in outs)
        flops = 3.0 * K * K * min(po, K * di) * di * di * 600 * span     # value and gradient: ~3 passes
        est.add(horizon_field, RACE_COMPILE_SECONDS + flops / RACE_FLOPS, 8.0 * rhs, None, 1.0)
    if plot:            # a line and a legend entry per pathway, the race again per pair (memory: the pairs' already)
        est.add("--plot", PLOT_PATHWAY_SECONDS * K + PLOT_PAIR_SECONDS * max(pairs, 0.0), 0.0, None, 1.0)
    return est


def _dims(pw):
    return [len(pw.inputs)] + [pw.hidden] * (pw.depth - 1) + [len(pw.outputs)]


def simulation_estimate(spec, *, steps: int, seeds: int, network: str = "gdln", dtype: str = "float64",
                        steps_field: str = "training.steps", seeds_field: str = "--seeds",
                        hidden_field: str | None = None, plot: bool = False) -> Estimate:
    """Gradient descent on the spec's GDLN (or the ReLU network of the same width), vmapped over seeds.

    Time: ``SIM_COMPILE[0] + SIM_COMPILE[1] × E`` (the process's JAX start-up, initial weights and the
    compilation; E weight matrices), plus ``steps × (SIM_STEP_OVERHEAD × E + seeds × SIM_SEED_STEP_OVERHEAD)``
    (the loop, shared by the vmapped seeds, and its small operations, per seed), plus ``steps × seeds × 6 ×
    (multiply-adds per step) / rate`` (rate: SIM_FLOPS, times SIM_FLOAT32_SPEEDUP in float32). Calibrated by
    tests/calibrate_sim_estimates.py. ``hidden_field``: the name of a ReLU network's width where a caller
    sets it (find-gates' ``--hidden``), else the spec's field.
    ``plot``: simulate's ``--plot`` is asked for, whose figure costs SIM_PLOT_SECONDS, and for a GDLN (its modes
    drawn and recorded) SIM_PLOT_PATHWAY_SECONDS per pathway more (a part named ``--plot``)."""
    graph = spec if hasattr(spec, "size_view") else None
    spec = _sized(spec)
    item = 4 if dtype == "float32" else 8
    P, d, p = spec.task.P, spec.task.d, spec.task.p
    est = Estimate("simulation")
    steps, seeds = float(steps), float(seeds)
    rate = SIM_FLOPS * (SIM_FLOAT32_SPEEDUP if dtype == "float32" else 1.0)

    def run_seconds(params):            # the steps' arithmetic (the per-step overhead is the steps' part)
        return steps * seeds * 6.0 * params * P / rate

    if network == "relu":
        H = float(sum(pw.hidden for pw in spec.pathways))
        params = d * H + H * p
        acts = H * P * 2 + p * P
        n_weights = 2
        wfield = hidden_field or ("pathways[0].hidden" if len(spec.pathways) == 1 else "pathways[*].hidden (their sum)")
        est.add(wfield, run_seconds(params), seeds * item * (6 * params + 4 * acts), H, 1.0)
    elif graph is not None:
        # a graph: every edge once (shared edges are not counted per pathway); a schedule's objective
        # evaluates each group's output besides, which measured no slower per step (the groups read
        # the same hidden layers)
        n_weights = len(graph.edges)
        for i, e in enumerate(graph.edges):
            a, b = (float(x) for x in graph.edge_shape(e))
            params = a * b
            est.add(f"edges[{i}]" if e.dst == "output" or e.src == "input" else f"{graph.node_field(e.dst)}.width",
                    run_seconds(params), seeds * item * (6 * params + 4 * a * P), int(a), 1.0)
    else:
        n_weights = 0
        for i, pw in enumerate(spec.pathways):
            dims = [float(x) for x in _dims(pw)]
            params = sum(a * b for a, b in zip(dims[:-1], dims[1:]))
            acts = sum(dims[1:]) * P
            est.add(f"pathways[{i}].hidden", run_seconds(params),
                    seeds * item * (6 * params + 4 * acts + float(pw.hidden) * (pw.depth - 1) * 2),
                    pw.hidden, 1.0)
            n_weights += pw.depth
    # the loop (shared by the seeds), its small operations (per seed); the loss history, kept twice
    est.add(steps_field, steps * (SIM_STEP_OVERHEAD * n_weights + seeds * SIM_SEED_STEP_OVERHEAD),
            2 * 8.0 * seeds * (steps + 1), int(steps), 1.0)
    est.add("compile", SIM_COMPILE[0] + SIM_COMPILE[1] * n_weights, 0.0, None, 0.0)
    if plot:            # the loss; a GDLN's modes too, recorded and drawn per pathway (theory and simulation)
        est.add("--plot", SIM_PLOT_SECONDS + (SIM_PLOT_PATHWAY_SECONDS * len(spec.pathways) if network != "relu" else 0.0),
                0.0, None, 1.0)
    est.steps_field, est.seeds_field, est.steps, est.seeds = steps_field, seeds_field, steps, seeds
    est.seed_step_seconds = steps * seeds * SIM_SEED_STEP_OVERHEAD      # in the steps' part; the seeds drive it too
    return est


# ----------------------------------------------------------------------------------------------
# the check
# ----------------------------------------------------------------------------------------------
#: sizes considered ordinary, to decide which field is out of proportion
_TYPICAL = {"steps": 1e4, "seeds": 8, "hidden": 1e3}


def _candidates(est: Estimate, key: int):
    """(field, value, cost driven by it) for every field a user can lower, with its cost share.

    The seeds multiply the widths' parts (and the loss history's memory, and the steps' part's per-seed
    time); the steps multiply those and the steps' own part (the loop's overhead per step)."""
    out = [(pt[0], pt[3], pt[key], pt[4]) for pt in est.parts if pt[0] not in ("compile", "start-up")]
    if hasattr(est, "seeds"):
        sized = sum(pt[key] for pt in est.parts if _kind(pt[0]) == "hidden")     # a pathway's, an edge's, a node's
        own = sum(pt[key] for pt in est.parts if pt[0] == est.steps_field)
        out.append((est.seeds_field, int(est.seeds), sized + (own if key == 2 else getattr(est, "seed_step_seconds", 0.0)), 1.0))
        if key == 1:
            out.append((est.steps_field, int(est.steps), sized + own, 1.0))
    return out


def _kind(fld):
    """The ordinary size a field's value is measured against: a graph's parts (``nodes[i].width``,
    ``edges[i]``, valued by a width or the rows an edge reads or writes) are widths like a pathway's."""
    if "steps" in fld:
        return "steps"
    if "seeds" in fld:
        return "seeds"
    return "hidden" if "hidden" in fld or fld.endswith(".width") or fld.startswith("edges[") else None


def plot_seconds(est: Estimate) -> float:
    """The seconds of ``est`` that leaving out ``--plot`` saves: its parts named ``--plot`` (the figure, derive's
    horizon where the plot sets it) and ``est.plot_extra`` (what only the plot needs besides, e.g. the derivation
    of a GDLN's plot from a random start, :func:`theorykit.cli.common.sim_estimate`)."""
    return sum(pt[1] for pt in est.parts if pt[0] == "--plot") + float(getattr(est, "plot_extra", 0.0))


def _pick(est: Estimate, key: int, limit: float):
    """The field to name: ``--plot`` where leaving it out alone brings the time under the limit (with the
    field that alone could, if one can); else, among those that alone could bring the cost under the limit,
    the most out of proportion to an ordinary size; else the one driving the largest cost."""
    total = est.bytes if key == 2 else est.seconds
    plot = plot_seconds(est) if key == 1 else 0.0
    if plot > 0 and total - plot <= limit:      # the plot is what passes the limit: naming --seeds misled
        _, fld, value, target = _best(est, key, limit, total, skip="--plot") or (None, None, None, None)
        return "--plot", (f"leave out --plot (it adds an estimated {human_seconds(plot)}: the run without it, "
                          f"{human_seconds(total - plot)}, fits the limit)"
                          + (f", or lower {fld} from {value} to at most {target}" if target is not None else ""))
    best = _best(est, key, limit, total)
    if best is None:
        return "spec", "lower the sizes in the spec"
    _, fld, value, target = best
    if (fld, value) == getattr(est, "pairs", None):       # the pairs of pathways: K(K-1)/2 of them
        what = "paths from input to output (fewer nodes or edges)" if fld == "edges" else "pathways"
        return fld, (f"have fewer {what}: {value} of them make {value * (value - 1) // 2} pairs that may couple"
                     + (f", at most {target} fit the limit" if target is not None else ""))
    if fld == "--plot":
        return fld, "leave out --plot (its figure draws a line and a legend entry per pathway), or have fewer pathways"
    if target is not None:
        return fld, f"lower {fld} from {value} to at most {target}"
    if fld.startswith("pathways[") and not fld.endswith("hidden"):
        return fld, f"make {fld} smaller (fewer input and output rows), or use fewer datapoints"
    if fld.startswith("edges["):
        return fld, (f"narrow the hidden node at the end of {fld} (or have it read or write fewer rows), "
                     "or lower the sizes it multiplies: seeds, steps, datapoints")
    if getattr(est, "task", False):
        return fld, f"lower {fld} (the task's exact entries grow with it)"
    return fld, f"lower {fld} (and the sizes it multiplies: seeds, steps, widths, datapoints)"


def _best(est: Estimate, key: int, limit: float, total: float, skip: str | None = None):
    """:func:`_pick`'s choice among :func:`_candidates` (but ``skip``): ``(score, field, value, target)``, target
    the value that alone brings the cost under ``limit`` (None where none does), or None without candidates."""
    best = None
    for fld, value, cost, power in _candidates(est, key):
        if cost <= 0 or fld == skip:
            continue
        room = limit - (total - cost)
        target = None
        if isinstance(value, (int, float)) and value > 1 and room > 0:
            t = int(value * (room / cost) ** (1.0 / max(power, 1e-9)))
            target = t if 1 <= t < value else None
        typical = _TYPICAL.get(_kind(fld))
        score = (target is not None, (value / typical) if (typical and value) else 0.0, cost)
        if best is None or score > best[0]:
            best = (score, fld, value, target)
    return best


def lift(est: Estimate, limits: Limits, python: bool = False, verb: str = "run") -> str:
    """How the fix of a refusal of ``est`` over ``limits`` ends: how to lift the limit it is over (the
    memory limit where it is over that, else the time limit), on the command line (:func:`enforce`'s: by the
    command's ``limits.options``, else the environment), or with ``python`` from Python (``limits=Limits(...)``);
    ``verb``: what a lifted limit lets it do."""
    force, longer = ("--force" in limits.options), ("--time-limit" in limits.options)
    if est.bytes > limits.max_bytes:
        return ("or raise the memory limit: limits=theorykit.spec.limits.Limits(max_bytes=…), or THEORYKIT_MAX_BYTES"
                if python else "--force does not lift the memory limit" if force else "or raise THEORYKIT_MAX_BYTES")
    if python:
        return (f"or pass limits=theorykit.spec.limits.Limits(force=True) (or max_seconds=…, or THEORYKIT_MAX_SECONDS) "
                f"to {verb} it anyway")
    how = ("--force (or a larger --time-limit)" if force and longer else "--force" if force else
           "a larger --time-limit (0: no limit)" if longer else None)
    return f"or pass {how} to {verb} it anyway" if how else f"or raise THEORYKIT_MAX_SECONDS to {verb} it anyway"


def fixed_size() -> Limits:
    """The limits a built-in task of fixed size is built under (race-exhaust's and find-gates' contexts(8, k), the suites'):
    no time limit of its own (the run's estimate refuses), the memory limit naming THEORYKIT_MAX_BYTES (nothing else fits)."""
    return Limits(max_seconds=math.inf, fixed=True)


def enforce(est: Estimate, limits: Limits) -> None:
    """Raise :class:`SpecError` when ``est`` is over the memory limit, or over the time limit without force."""
    if est.bytes > limits.max_bytes:
        over = (f"{est.stage} needs an estimated {human_bytes(est.bytes)} of memory, over the limit of "
                f"{human_bytes(limits.max_bytes)} (half this machine's memory, or THEORYKIT_MAX_BYTES)")
        if limits.fixed:        # the one thing a user can change, from Python as on the command line
            raise SpecError("THEORYKIT_MAX_BYTES", f"{over}; its size is fixed",
                            f"raise THEORYKIT_MAX_BYTES to at least {math.ceil(est.bytes)}, or unset it (the default: "
                            f"half this machine's memory, {human_bytes(machine_memory() / 2)})")
        fld, how = _pick(est, 2, limits.max_bytes)
        raise SpecError(fld, over, f"{how}; {lift(est, limits)}")
    if est.seconds > limits.max_seconds and not limits.force:
        over = (f"{est.stage} needs an estimated {human_seconds(est.seconds)}, over the time limit of "
                f"{human_seconds(limits.max_seconds)}")
        radicals = getattr(est, "radicals", None)
        if radicals is not None and est.seconds - radicals[2] <= limits.max_seconds:
            rad, fld, _ = radicals
            n = len(rad.indices)
            raise SpecError(fld, f"{over}: the data's radicals (of "
                                 f"{f'{n} different radicands' if n > 1 else 'one radicand'}, the deepest a root "
                                 f"of index {rad.deepest_index}) "
                                 f"generate a number field of degree up to {rad.describe()}, and exact arithmetic "
                                 "slows with that degree",
                            "write fewer or shallower radicals (a decimal such as 1.4142 is kept as an exact "
                            f"rational), {lift(est, limits)}")
        fld, how = _pick(est, 1, limits.max_seconds)
        raise SpecError(fld, over, f"{how}; {lift(est, limits)}")
