"""The time estimate of the race's searches, in parts a test can count: :func:`theorykit.analysis.predict.predict_reln`'s
and ``race-exhaust``'s (:func:`theorykit.analysis.exhaust.race_exhaust`, :func:`exhaust_estimate`), by one estimator.

The search calls the race engine once per batch of families (:func:`batch_plan`: families are grouped
so that the union of their pathways stays at most ``chunk_pathways``). Its cost has three parts:

* **compilation**, once per distinct shape the engine compiles, ``(families in the batch, pathways in
  the union)`` (:func:`engine_shapes`), at :data:`COMPILE_S` each; a shape this process has already
  compiled (:func:`note_compiled`) costs only the call itself, :data:`CALL_S`. (A shape compiled by an
  earlier process and kept in the persistent JAX cache is also cheap, but that cannot be known here, so
  it is counted as a compilation: the estimate errs high there.)
* **arithmetic**: the RK4 steps of each family's stacked network (R = pathways·rank hidden rows,
  D = pathways·d inputs), at :data:`FLOPS` FLOP/s.
* **steps**: the RK4 steps themselves, whose count is known before the race
  (:func:`race_rk4_steps`: ``steps``·``race_dt``/τ, more where the step does not
  divide the recording interval), at :data:`RK4_STEP_S` per step of each engine call and
  :data:`RK4_FAMILY_STEP_S` per step of each family, besides their arithmetic: what a huge ``--race-dt`` costs
  on a small task, whose arithmetic is next to nothing.
* **beam rounds**: a beam (or forward) search adds one orbit per round and stops when the area stops
  improving, which is not known in advance. :func:`beam_rounds_bound` bounds the rounds by what is known
  (one orbit more per round, at most the candidate orbits, and no more pathways than hidden units);
  :func:`beam_estimate` gives the time *assuming* :data:`ASSUMED_ROUNDS` rounds (what ``--time-limit``
  refuses on before the search) and the time of the bound on the rounds (the high end, reported).

``race-exhaust`` races one family per orbit (every family with ``--no-symmetry``), ``--batch`` at a time, each
over the whole superset of pathways (its masks switch pathways off; the arithmetic is the superset's):
:func:`exhaust_estimate` prices that with :func:`estimate_seconds`, the same constants and step counter.
"""
from __future__ import annotations

import math

from ..errors import SpecError
from ..record import every_count

__all__ = ["COMPILE_S", "CALL_S", "FLOPS", "RK4_STEP_S", "RK4_FAMILY_STEP_S", "ASSUMED_ROUNDS", "batch_plan", "engine_shapes", "note_compiled",
           "compiled_shapes", "new_shapes", "estimate_seconds", "beam_rounds_bound", "beam_round_sizes",
           "beam_estimate", "race_rk4_steps", "exhaust_estimate",
           "exhaust_refusal"]

# COMPILE_S and CALL_S measured on 2026-11-29 (09:08 UTC, commit d24ecef, the RK4 programs cached) in one
# process on the shared 2-core x86_64 development CPU, load average 4.6 rising to 7.5, persistent JAX cache
# off (THEORYKIT_JAX_CACHE=""): predict's engine call (_race_families -> race_rk4) on random_24x12's
# patterns, 2000 steps, first call against the median of 3 repeats of the same shape (families, pathways):
#   (1, 4): 3.65 s / 0.132 s;  (4, 8): 2.48 / 0.232;  (16, 24): 6.37 / 3.94;  (16, 48): 18.4 / 14.0 s.
#: seconds to compile one new engine shape: first call less a repeated one, 2.2, 2.4 and 4.4 s (the
#: process's first call 3.5 s, JAX's start included); was 1.0 s (docs/predict.md#time)
COMPILE_S = 2.5
#: seconds per engine call besides its arithmetic, even of a shape already compiled (the system's set-up,
#: the cache look-up, the results read back): a repeated small call less its priced arithmetic, 0.125
#: and 0.18 s (a line through both: 0.115 s). Was 0.25 s, set when the RK4 loop was traced afresh each call
CALL_S = 0.12
#: the RK4 arithmetic's speed, FLOP/s
FLOPS = 3e10
# RK4_STEP_S and RK4_FAMILY_STEP_S measured on 2026-11-29 (20:50 UTC, commit e41abac) in one process on the shared
# 2-core x86_64 development CPU, load average 3.3 to 4.6, persistent JAX cache off, in CPU seconds (process_time):
# predict's engine call (_race_families -> race_rk4) on xor-margin data (Δ = 0.5, lr 0.05, mean loss: τ = 20) to
# 40 steps, repeated calls of a compiled shape at race_dt 1e4, 1e5, 1e6 (2e4, 2e5, 2e6 RK4 steps): per RK4 step,
# the difference quotient between step counts, 6.38 µs for 2 families (4 and 2 pathways, union 6) and 13.56 µs
# for 16 (those two, 8 times over); less their priced arithmetic (5 760 and 46 080 FLOP a step: 0.19, 1.54 µs),
# 6.19 = a + 2 b and 12.02 = a + 16 b µs. (A repeated call of 2e6 steps took 12.8 s of CPU, the estimate was 2.9 s.)
#: seconds per RK4 step of an engine call besides its arithmetic (the loop's own work): a above, 5.36 µs
RK4_STEP_S = 5.4e-6
#: seconds per RK4 step of each family raced in a call, besides its arithmetic: b above, 0.416 µs
RK4_FAMILY_STEP_S = 0.42e-6
#: the beam rounds the estimate that ``--time-limit`` refuses on assumes (the high end bounds them)
ASSUMED_ROUNDS = 4

_COMPILED: set = set()      # the engine shapes this process has compiled (note_compiled)


def batch_plan(families, chunk_pathways: int = 48) -> list:
    """The engine calls of a list of families (each a collection of pattern indices): lists of family
    indices, in order, a new batch starting where adding a family would take the union of the batch's
    pathways past ``chunk_pathways`` (a family larger than that has a batch of its own)."""
    groups, cur, cur_set = [], [], set()
    for i, fam in enumerate(families):
        s = cur_set | set(fam)
        if cur and len(s) > chunk_pathways:
            groups.append(cur)
            cur, s = [], set(fam)
        cur.append(i)
        cur_set = s
    if cur:
        groups.append(cur)
    return groups


def engine_shapes(families, groups, key=()) -> list:
    """One shape per engine call: ``(families in the batch, pathways in their union) + key`` (``key``: what
    else the compiled program depends on, e.g. the steps and the RK4 step)."""
    return [(len(g), len(set().union(*[set(families[i]) for i in g]))) + tuple(key) for g in groups]


def note_compiled(shape) -> None:
    """Record that this process has compiled ``shape`` (its next call costs :data:`CALL_S`)."""
    _COMPILED.add(tuple(shape))


def compiled_shapes() -> frozenset:
    """The engine shapes this process has compiled so far."""
    return frozenset(_COMPILED)


def new_shapes(shapes, compiled=None) -> int:
    """How many distinct shapes of ``shapes`` are not in ``compiled`` (default: this process's)."""
    done = _COMPILED if compiled is None else set(map(tuple, compiled))
    return len({tuple(s) for s in shapes} - done)

def race_rk4_steps(tau: float, race_dt: float, t_end: int) -> int:
    """The RK4 steps :func:`~theorykit.analysis.exhaust.race_rk4` (default ``every``) takes to ``t_end``, known before it runs: the loss is
    recorded every e = max(1, ⌊τ/race_dt⌋) steps (:meth:`~theorykit.record.SaveAt.times`: 0, e, …, (n−1)·e and
    ``t_end``, n = ⌈t_end/e⌉), and each interval of length L > 0 between recordings is cut into
    max(1, ⌈L/(τ/race_dt)⌉) RK4 steps (:func:`~theorykit.theory.flow.integrate`). So (n − 1) such steps of e and
    the last interval's: about t_end·race_dt/τ where τ/race_dt ≥ 1, t_end·⌈race_dt/τ⌉ below."""
    dt, t_end = tau / race_dt, float(int(t_end))
    e = float(max(1, int(dt)))
    n = math.ceil(every_count(e, t_end))

    def cut(length):        # flow._integrate_rk4's nsub (its 1e-9 forgives a whole ratio's round-off)
        return max(math.ceil(length / dt - 1e-9), 1) if length > 0 else 0
    return (n - 1) * cut(e) + cut(t_end - (n - 1) * e) if n >= 1 else 0


def estimate_seconds(P: int, d: int, rank: int, pathways: float, families: int, steps: int, tau: float,
                     race_dt: float, compiles: int | None = None, calls: int | None = None) -> float:
    """A rough CPU estimate of racing ``families`` families of ``pathways`` pathways each (the RMS, as
    the cost is quadratic in it): ``compiles`` new shapes at :data:`COMPILE_S`, ``calls`` engine calls at
    :data:`CALL_S`, and the race's RK4 steps (:func:`race_rk4_steps` of ``steps`` at
    ``race_dt``, RK4 steps per τ) in each call at :data:`RK4_STEP_S` and of each family at :data:`RK4_FAMILY_STEP_S`,
    plus each family's arithmetic in them (R = pathways·rank hidden rows, D = pathways·d inputs) at :data:`FLOPS`.
    ``calls`` defaults to one per 16 families, and ``compiles`` to ``calls`` (every call a new shape: the high side)."""
    calls = max(1, math.ceil(families / 16)) if calls is None else int(calls)
    compiles = calls if compiles is None else int(compiles)
    rk = race_rk4_steps(tau, race_dt, steps)
    R, D = pathways * rank, pathways * d
    flops = families * rk * 4 * 6 * R * D * P
    return (COMPILE_S * compiles + CALL_S * calls + rk * (RK4_STEP_S * calls + RK4_FAMILY_STEP_S * families)
            + flops / FLOPS)


def beam_rounds_bound(orbit_sizes, hidden: int) -> int:
    """The most rounds a beam (or forward) search can run: round r races families of r orbits, so it
    stops by the number of candidate orbits, and a family needs one hidden unit per pathway, so by the
    largest r whose r smallest orbits together have at most ``hidden`` patterns."""
    total, r = 0, 0
    for s in sorted(int(s) for s in orbit_sizes):
        total += s
        if total > hidden:
            break
        r += 1
    return r


def beam_round_sizes(n_orbits: int, width: int, shortlist: int, rounds: int) -> list:
    """An upper bound on the families raced in each of ``rounds`` rounds: round 1 expands the empty family
    (``min(shortlist, n)``), round r > 1 expands at most ``min(width, C(n, r − 1))`` families by at most
    ``min(shortlist, n − r + 1)`` orbits each; never more than the C(n, r) unions of r orbits."""
    out = []
    for r in range(1, rounds + 1):
        frontier = 1 if r == 1 else min(width, math.comb(n_orbits, r - 1))
        out.append(min(frontier * min(shortlist, n_orbits - r + 1), math.comb(n_orbits, r)))
    return out


def beam_estimate(orbit_sizes, hidden: int, width: int, shortlist: int, *, P: int, d: int, rank: int, steps: int,
                  tau: float, race_dt: float, assumed: int = ASSUMED_ROUNDS, estimate=None) -> dict:
    """The beam search's estimate: ``{"rounds_bound", "rounds_assumed", "seconds" (assuming
    ``rounds_assumed`` rounds), "seconds_high" (all ``rounds_bound`` rounds), "families", "families_high"}``.
    Round r's families have r orbits of the candidates' mean size; each round is one engine call of a new
    shape (its batch and union differ from the last round's). ``estimate``: the function that prices a
    round (default :func:`estimate_seconds`, called with its eight sizes, compiles = calls = 1)."""
    estimate = estimate or estimate_seconds
    n = len(orbit_sizes)
    bound = beam_rounds_bound(orbit_sizes, hidden)
    mean = sum(orbit_sizes) / n if n else 0.0
    sizes = beam_round_sizes(n, width, shortlist, bound)

    def secs(k):
        return sum(estimate(P, d, rank, min(r * mean, hidden), f, steps, tau, race_dt, 1, 1)
                   for r, f in enumerate(sizes[:k], start=1))

    k = min(int(assumed), bound)
    return {"rounds_bound": bound, "rounds_assumed": k, "seconds": secs(k), "seconds_high": secs(bound),
            "families": sum(sizes[:k]), "families_high": sum(sizes)}


def exhaust_estimate(orbits: int, pathways: int, *, P: int, d: int, rank: int, steps: int, tau: float, race_dt: float,
                     batch: int, key=(), compiled=None) -> dict:
    """``race-exhaust``'s estimate, by :func:`estimate_seconds`: ``orbits`` families (one per orbit raced, or every
    family without the symmetry), ``batch`` to an engine call, each of all ``pathways`` of the superset (the
    masks switch some off; the arithmetic is the superset's), on data of ``P`` datapoints and ``d`` inputs
    (``rank``: min(d, outputs), as predict counts it), ``steps`` gradient steps at the RK4 step τ/``race_dt``.
    A call's shape is ``(families in the batch, pathways, steps, race_dt) + key``; a shape not in ``compiled``
    (default: this process's, :func:`note_compiled`) is a compilation. Returns ``{"seconds", "orbits", "pathways", "calls",
    "compiles", "rk4_steps", "shapes"}``."""
    sizes = [min(int(batch), int(orbits) - s) for s in range(0, int(orbits), int(batch))]
    shapes = [(n, int(pathways), int(steps), float(race_dt)) + tuple(key) for n in sizes]
    compiles = new_shapes(shapes, compiled)
    seconds = estimate_seconds(P, d, rank, pathways, int(orbits), steps, tau, race_dt, compiles, len(sizes))
    return {"seconds": seconds, "orbits": int(orbits), "pathways": int(pathways), "calls": len(sizes),
            "compiles": compiles, "rk4_steps": race_rk4_steps(tau, race_dt, steps), "shapes": shapes}


def exhaust_refusal(est: dict, limit: float, *, k: int, ranked: int, symmetry: bool = True) -> SpecError:
    """The error refusing ``race-exhaust`` where its estimate ``est`` (:func:`exhaust_estimate`, with its
    keywords as ``est["sizes"]``) is over ``limit`` seconds: the estimate, the limit, what was counted (``ranked``
    families at ``k`` contexts), and each option that bounds the run, with a value where one is known; in
    predict's words (naming --time-limit; Python's keywords in its ``keyword_fix``)."""
    sizes = est["sizes"]
    steps, race_dt, batch = sizes["steps"], sizes["race_dt"], sizes["batch"]

    def fits(t):        # the estimate at t gradient steps (it grows with them: fewer RK4 steps, never more)
        return exhaust_estimate(est["orbits"], est["pathways"], **{**sizes, "steps": t})["seconds"] <= limit
    lo, hi = 0, steps       # the most steps that fit: fits(lo), not fits(hi)
    while hi - lo > 1:
        lo, hi = ((lo + hi) // 2, hi) if fits((lo + hi) // 2) else (lo, (lo + hi) // 2)

    def fixes(cli: bool) -> str:     # on the command line (--k 3) or in Python (k=3)
        def name(key):
            return f"--{key.replace('_', '-')}" if cli else key
        opts = [f"lower {name('k')} ({name('k')}{' ' if cli else '='}{k - 1}: {2 ** (2 ** (k - 1) - 1) - 1} families)"
                if k > 2 else None,
                f"lower {name('steps')} to at most {lo}" if lo >= 1 and fits(lo) else None,
                f"lower {name('race_dt')} (a coarser RK4 step: {est['rk4_steps']:,} RK4 steps a race at {race_dt:g})",
                None if symmetry else ("leave out --no-symmetry" if cli else "use_symmetry=True")]
        return ", or ".join(v for v in opts if v)
    problem = (f"the estimated run time is {est['seconds']:.0f} s, over the {limit:g} s bound ({est['orbits']:,} "
               f"{'orbits' if symmetry else 'families'} of {ranked:,} families raced, {est['rk4_steps']:,} RK4 steps "
               f"each, in {est['calls']} engine calls of up to {batch}; a CPU's estimate: a GPU takes far less)")
    return SpecError("--time-limit", problem,
                     f"{fixes(True)}, or raise --time-limit (0: no limit) or pass --force to run it anyway",
                     f"{fixes(False)}, or raise {{key}} (0 or None: no limit)")
