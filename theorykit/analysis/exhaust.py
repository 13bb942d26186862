"""The race by exhaustion beyond the paper: every context-gated family on the k-context task.

For the Section 5 task (``contexts(8, k)``: the hierarchy in every context) Lemma 4.1 allows a
common pathway plus one item-only pathway per proper non-empty subset of contexts, so
2^(2^k − 1) − 1 non-empty families (127 at k = 3, 32 767 at k = 4). This module

1. **finds the task's symmetry** rather than assuming it: a permutation π of the contexts is kept
   when moving every datapoint (i, c) to (i, π(c)) maps X and Y onto row permutations of
   themselves, checked exactly on the task's SymPy matrices and again on the floats;
2. builds the **induced action** on pathways (gate moved with the datapoints, input and output rows
   moved by the row permutations; the image must be a pathway of the superset, else the
   permutation is rejected) and on families (masks), and splits the families into orbits;
3. integrates **one representative per orbit** with :meth:`theorykit.theory.race.RaceSystem.solve`
   (masks over the full superset, in batches), and expands the metrics back to every family —
   the race of a family and of its image are the same flow, up to relabelling rows;
4. ranks every family by the contexts suite's metrics (:func:`theorykit.curves.loss_metrics`: normalised area of
   L(t)/L(0), times to 50 %, 10 %, 1 % of L(0)).
"""
from __future__ import annotations

import itertools
import json
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import SpecError, keyword_errors
from ..net.starts import a0_rule
from ..theory.race import RaceSystem
from ..spec.fields import DATA_MAX, DATA_MIN, fmt, integer, real, short_repr
from ..spec.ranges import time_limit_fix
from ..spec.files import TRAINING_RANGES
from ..spec.limits import MAX_CONTEXT_PERMUTATIONS, fixed_size, max_family_contexts
from ..spec.gating import GDLNSpec, Training, context_pathways, family_masks, positive_int
from ..spec.task import contexts
from ..curves import loss_metrics
from ..progress import checked_progress, progress_bar
from ..record import MAX_RECORDS, SaveAt, every_count
from ..theory.flow import MAX_FLOW_STEPS, RK4, rate_step, within_budget
from .race_step import check_no_rise, check_race_dt, min_race_dt, positive_race_dt, race_rate, start_rate
# race_rk4_steps lived here; it is imported from here still (predict_estimate counts with it)
from .predict_estimate import exhaust_estimate, exhaust_refusal, note_compiled, race_rk4_steps  # noqa: F401
from ..io import figure_path, json_text, read_json, subplots, write_json, write_figure

__all__ = ["SEC5_GAMMA", "ETA", "STEPS", "default_a0", "exhaust_spec", "context_symmetries", "pathway_action",
           "family_orbits", "race_exhaust", "named_families", "write_outputs", "plot_exhaust",
           "redraw_exhaust"]

# paper hyper-parameters (Section 5; the contexts suite's, validation/contexts.py)
ETA = 0.001
STEPS = 8000
SEC5_GAMMA = {3: 1.0, 4: 1.1, 5: 1.35}
FRACTIONS = (0.5, 0.1, 0.01)


#: the fix when MAX_FAMILIES admits no k of race-exhaust (k ≥ 2 contexts)
_NO_K = "raise MAX_FAMILIES in theorykit.spec.ranges: it admits no k from 2 up"


def default_a0() -> float:
    """The a0 the contexts suite ranks with: the rule for a context pathway of its GDLN (σ = 20·0.0005/700, H = 50)."""
    return a0_rule(20 * 0.0005 / 700, 50)


def exhaust_spec(k: int, gamma=None, n: int = 8, limits=None):
    """The superset spec: ``contexts(n, k)`` (hierarchy everywhere, context scale γ) with the common
    pathway and one item-only pathway per proper non-empty context subset, summed loss, η = 0.001. The task is
    built under ``limits`` (:class:`~theorykit.spec.limits.Limits`; default its defaults)."""

    top = max_family_contexts()      # 4: the largest k whose families are within MAX_FAMILIES (spec.limits)
    ks = list(range(max(2, top - 1), top + 1))       # [3, 4]
    k = integer(k, "--k", lo=2, fix=f"use {' or '.join(f'--k {v}' for v in ks)}" if ks else _NO_K)   # numpy's too
    if k > top:       # k = 5: 2^31 - 1 families, built as a list before any race (k = 4, 32 767, takes 0.25 s)
        count = f"2^{2 ** k - 1} - 1" if k <= 60 else f"2^(2^{k} - 1) - 1"     # 2^(10^5) has too many digits to write
        raise SpecError("--k", f"k = {k} has {count} families: too many to enumerate",
                        f"use --k {' or '.join(map(str, ks))}" if ks else _NO_K)
    g = SEC5_GAMMA.get(k, 1.0) if gamma is None else gamma
    subsets, masks, labels = family_masks(k)
    task = contexts(n, k, context_scale=g, limits=limits)
    spec = GDLNSpec(task, context_pathways(n, k, subsets), Training(lr=ETA, loss="sum", steps=STEPS))
    return spec, subsets, np.array(masks, dtype=np.int8), labels


# ---------------------------------------------------------------------------------------------
# symmetry
# ---------------------------------------------------------------------------------------------
def _row_perm(A, B):
    """ρ with B[r] == A[ρ[r]] for every row r (a bijection), or None. Rows compared as tuples of
    exact entries (SymPy numbers) or floats, whichever the arrays hold."""
    index = {}
    for r in range(A.shape[0]):
        index.setdefault(tuple(A[r]), []).append(r)
    rho = []
    for r in range(B.shape[0]):
        cand = index.get(tuple(B[r]))
        if not cand:
            return None
        rho.append(cand.pop(0))
    return np.array(rho, dtype=int)


def context_symmetries(task, n: int, k: int) -> list:
    """Every permutation π of the k contexts that is a symmetry of ``task``.

    π moves datapoint (i, c) (column c·n + i) to (i, π(c)); it is kept when the moved X and Y are
    row permutations of X and Y, found on the exact matrices and verified on the floats. Returns
    dicts {"pi", "cols" (σ: column μ goes to σ[μ]), "rx", "ry"} with Xπ = X[rx], Yπ = Y[ry],
    where Xπ[:, σ[μ]] = X[:, μ]; so X[rx[r], σ[μ]] = X[r, μ].
    """
    Xe = np.array(task.X.tolist(), dtype=object)
    Ye = np.array(task.Y.tolist(), dtype=object)
    Xf, Yf = task.numeric()
    P = n * k
    if Xe.shape[1] != P:
        raise SpecError("task", f"expected n·k = {P} datapoints, got {Xe.shape[1]}", "use contexts(n, k)")
    if k > 7 or math.factorial(k) > MAX_CONTEXT_PERMUTATIONS:     # k = 10: 3.6 million, each checked exactly
        count = f"{math.factorial(k):,}" if k <= 20 else f"more than {math.factorial(20):,}"
        raise SpecError("k", f"{k} contexts have {k}! = {count} permutations to check, over the bound "
                             f"of {MAX_CONTEXT_PERMUTATIONS:,} "
                             "(MAX_CONTEXT_PERMUTATIONS in theorykit.spec.limits)",
                        "use at most 7 contexts (the race by exhaustion takes k ≤ 4)")
    out = []
    for pi in itertools.permutations(range(k)):
        sigma = np.array([pi[mu // n] * n + mu % n for mu in range(P)])
        inv = np.argsort(sigma)                      # Xπ[:, ν] = X[:, inv[ν]]
        rx, ry = _row_perm(Xe, Xe[:, inv]), _row_perm(Ye, Ye[:, inv])
        if rx is None or ry is None:
            continue
        # verify: exactly, and on the numeric matrices
        if not (np.all(Xe[rx] == Xe[:, inv]) and np.all(Ye[ry] == Ye[:, inv])):
            continue
        if not (np.array_equal(Xf[rx], Xf[:, inv]) and np.array_equal(Yf[ry], Yf[:, inv])):
            continue
        out.append({"pi": tuple(int(c) for c in pi), "cols": sigma, "rx": rx, "ry": ry})
    return out


def _key(p, task):
    q = p.resolve(task)
    return (tuple(int(a) for a in q.active), tuple(sorted(q.inputs)), tuple(sorted(q.outputs)))


def pathway_action(spec, sym: dict):
    """The image of each pathway under a symmetry, as indices into ``spec.pathways``, or None when
    some image is not a pathway of the superset. Pathway (gate g, inputs I, outputs O) goes to
    (g', I', O') with g'[σ[μ]] = g[μ], I' = rx(I) = {rx[r] : r ∈ I}, O' = ry(O): the symmetry carries
    input row r at datapoint μ to row rx[r] at datapoint σ[μ] (X[rx[r], σ[μ]] = X[r, μ])."""
    keys = [_key(p, spec.task) for p in spec.pathways]
    where = {kk: j for j, kk in enumerate(keys)}
    sigma, rx, ry = sym["cols"], sym["rx"], sym["ry"]
    perm = []
    for g, I, O in keys:
        g2 = np.zeros(len(g), dtype=int)
        g2[sigma] = g
        I2 = tuple(sorted(int(rx[r]) for r in I))
        O2 = tuple(sorted(int(ry[o]) for o in O))
        j = where.get((tuple(int(a) for a in g2), I2, O2))
        if j is None:
            return None
        perm.append(j)
    return np.array(perm, dtype=int)


def family_orbits(masks: np.ndarray, perms: list):
    """Orbits of the families (rows of 0/1 ``masks``) under pathway permutations.

    Returns (rep_index, orbit_of): ``rep_index`` the row of each orbit's representative (the
    family whose bit code is smallest), ``orbit_of[f]`` the orbit of family f."""
    npw = masks.shape[1]
    w = (1 << np.arange(npw, dtype=np.int64))
    code = masks.astype(np.int64) @ w
    best = code.copy()
    for perm in perms:
        moved = np.zeros_like(masks)
        moved[:, perm] = masks                     # pathway j's bit goes to perm[j]
        best = np.minimum(best, moved.astype(np.int64) @ w)
    row_of = {int(c): i for i, c in enumerate(code)}
    reps_codes, orbit_of = np.unique(best, return_inverse=True)
    rep_index = np.array([row_of[int(c)] for c in reps_codes], dtype=int)
    return rep_index, orbit_of


def named_families(k: int, labels: list) -> dict:
    """The named sets: common only, common + all r-context pathways (r = 1 … k−1), all pathways."""
    words = {1: "singles", 2: "doubles", 3: "triples", 4: "quadruples"}
    out = {"common only": "common"}
    for r in range(1, k):
        out[f"common + {words.get(r, f'{r}-context')}"] = "+".join(
            ["common"] + ["".join(str(c + 1) for c in S) for S in itertools.combinations(range(k), r)])
    out["all"] = labels[-1]
    return out


# ---------------------------------------------------------------------------------------------
# the race
# ---------------------------------------------------------------------------------------------
def race_rk4(system: RaceSystem, tau: float, race_dt: float, t_end: int, *, every: int | None = None, **kw):
    """The race of ``system`` by RK4 at the step τ/``race_dt``
    (:meth:`~theorykit.theory.race.RaceSystem.solve`, losses only), its loss recorded every ``every`` steps
    (default the RK4 step rounded down, at least 1) up to ``t_end``; ``kw`` (``a0``, ``masks``,
    ``loss_factor``, ``svals``) go to the solve. The one race of this layer's rankings: :func:`race_exhaust`'s,
    the contexts suite's and :func:`theorykit.analysis.predict.predict_reln`'s."""
    dt = tau / race_dt
    return system.solve(SaveAt(every=every or max(1, int(dt))), t_end=int(t_end), tau=tau, solver=RK4(dt),
                        modes=False, **kw)


def _largest(ok, guess: float) -> int:
    """The largest whole t ≥ 0 with ``ok(t)`` (``ok`` true up to a bound, false beyond), from a ``guess`` near
    that bound; -1 when even t = 0 fails; 4·10¹⁸ (:data:`_LARGEST_CAP`) when ``ok`` holds that far. By doubling
    and bisection from the guess: a few hundred calls of ``ok`` at most (stepping one by one from a guess far
    from the bound, as a tiny race_dt gives, hung)."""
    t = max(0, int(min(guess, _LARGEST_CAP)))
    if ok(t):
        lo, hi, step = t, None, 1
        while hi is None:       # doubling up to the first t that fails, or the cap
            if lo >= _LARGEST_CAP:
                return _LARGEST_CAP
            n = min(lo + step, _LARGEST_CAP)
            lo, hi = (n, None) if ok(n) else (lo, n)
            step *= 2
    else:
        if not ok(0):
            return -1
        lo, hi = 0, t
    while hi - lo > 1:          # ok(lo), not ok(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo


#: :func:`_largest`'s answer where its test holds at every step count it tries
_LARGEST_CAP = 4 * 10 ** 18


def _over(x: float, cap: float) -> str:
    """``x``, a count over ``cap``, written so that it reads as over it (2e+06 for 2000000.34 did not)."""
    return f"{x:.3g}" if float(f"{x:.3g}") > cap else f"{x:,.2f}"


def race_steps_bounds(s_max: float, tau: float, race_dt: float) -> dict:
    """The largest ``t_end`` (steps) :func:`race_rk4` takes, by each of the checks its race makes before it
    starts, made with their own predicates: ``"records"`` (the loss recorded every ⌊τ/race_dt⌋ steps, at
    least 1: at most :data:`~theorykit.record.MAX_RECORDS` times), ``"rk4"`` (:data:`MAX_FLOW_STEPS` RK4
    steps of τ/race_dt) and ``"rate"`` (:data:`MAX_FLOW_STEPS` steps of τ/(40·s_max), ``s_max`` the race's
    largest singular value, at least 1, its ``RaceSystem.rate``: :func:`~theorykit.theory.flow.integrate`'s
    budget, which race_dt does not move; a larger s_max than the race's gives bounds on the safe side).
    A bound is -1 where not even 0 steps pass."""
    dt = tau / race_dt
    rev = max(1, int(dt))
    h = rate_step(s_max / tau)
    return {"records": _largest(lambda t: every_count(float(rev), t) <= MAX_RECORDS, rev * MAX_RECORDS),
            "rk4": _largest(lambda t: within_budget(t, dt), MAX_FLOW_STEPS * dt),
            "rate": _largest(lambda t: within_budget(t, h), MAX_FLOW_STEPS * h)}


def _check_steps(system: RaceSystem, tau: float, race_dt: float, steps: int, given=(), a0=None) -> None:
    """Refuse, before any race, ``steps`` over one of :func:`race_steps_bounds`: the problem names every bound
    passed, the fix one --steps that passes them all, and what else alone lets these steps pass. The error names
    the first of ``given`` (the options set away from their defaults) that is such a fix, else --steps. A race_dt
    so small that τ/race_dt overflows is refused naming --race-dt (its bounds' int(τ/race_dt) was an OverflowError)."""
    if not math.isfinite(tau / race_dt):
        raise SpecError("--race-dt", f"{race_dt!r} makes the RK4 step τ/race-dt = {fmt(tau)}/{race_dt!r} overflow "
                                     "to infinity", "a larger --race-dt, e.g. --race-dt 10 (the default)",
                        keyword_fix="a larger {key}, e.g. {key}=10 (the default)")
    b = race_steps_bounds(system.rate, tau, race_dt)
    fastest = race_rate(system, None if a0 is None else (a0, steps / tau))     # Σx's curvature too
    if steps <= min(b.values()):      # too coarse a step for RK4 at the race's fastest rate
        check_race_dt(race_dt, system.rate, tau, fastest=fastest, start=0.0 if a0 is None else start_rate(system, a0))
        return
    dt, rev, s = tau / race_dt, max(1, int(tau / race_dt)), system.rate
    h = rate_step(s / tau)
    words = {"records": f"the loss, recorded every {rev} (τ/race-dt = {fmt(tau)}/{fmt(race_dt)}, rounded down, at "
                        f"least 1), is {_over(every_count(float(rev), steps), MAX_RECORDS)} recording times, "
                        f"more than {MAX_RECORDS:,}",
             "rk4": f"RK4 steps of τ/race-dt = {dt:.3g} are {_over(steps / dt, MAX_FLOW_STEPS)} integration steps, "
                    f"more than the flow's budget of {MAX_FLOW_STEPS:,.0f}",
             "rate": f"steps of τ/(40·s_max) = {h:.3g} (s_max = {s:.4g}, the pathways' largest singular value, at "
                     f"least 1; --race-dt does not change this step) are {_over(steps / h, MAX_FLOW_STEPS)} "
                     f"integration steps, more than the flow's budget of {MAX_FLOW_STEPS:,.0f}"}
    # a bound below 1 is no count to quote ("at most 0 steps" read as advice to run 0 steps)
    over = [f"{words[kk]} ({f'at most {v} steps' if v >= 1 else 'not even 1 step'})" for kk, v in b.items() if steps > v]
    n = min(b.values())
    # what else lets these steps pass alone: a smaller race_dt is a coarser RK4 step, recorded less often (the
    # first two bounds grow without end, the rate's stays); a smaller context scale lowers s_max, not below 1
    floor = _largest(lambda t: within_budget(t, rate_step(1.0 / tau)), MAX_FLOW_STEPS * tau / 40)
    fixes = {"--steps": f"lower --steps to at most {n}"} if n >= 1 else {}
    if steps <= b["rate"]:
        fixes["--race-dt"] = f"lower --race-dt (a coarser RK4 step, recorded less often; up to {b['rate']} steps)"
        top = _race_dt_for(s, tau, steps, fastest) if n < 1 else None     # no --steps fix beside it: a value to use
        if top is not None:
            fixes["--race-dt"] += f", e.g. --race-dt {top:g}"
    if s > 1 and steps <= min(floor, b["records"], b["rk4"]):
        fixes["--gamma"] = f"lower --gamma (the context scale sets s_max; up to {floor} steps at s_max = 1)"
    # the error names the first option given that is a fix alone (its fix first), else the first fix
    fld = next((o for o in given if o in fixes), next(iter(fixes), "--race-dt" if b["rate"] >= 1 else "--gamma"))
    fix = ", or ".join([fixes[fld]] * (fld in fixes) + [v for o, v in fixes.items() if o != fld])
    problem = (f"{steps} steps are more than the race can take: " if n >= 1 else
               "no step count is within the race's bounds: ") + "; ".join(over)
    raise SpecError(fld, problem, fix or "lower --race-dt and --gamma")


def _race_dt_for(s_max: float, tau: float, steps: int, fastest: float | None = None, per: float = 1.0) -> float | None:
    """A race_dt at which ``steps`` pass every bound of :func:`race_steps_bounds` and RK4 is stable
    (:func:`min_race_dt` at ``fastest``, the rate the check before the race takes): the default 10, or the largest
    below it that passes (2·10⁶·τ/steps, the RK4 budget's, rounded down to 3 digits), checked with the bounds' own
    predicates; None if none. ``per``: what the caller multiplies race_dt by (predict_reln: s_max, as
    :func:`check_race_dt`'s)."""
    x = min(10.0, MAX_FLOW_STEPS * tau / (steps * per))
    d = 2 - math.floor(math.log10(x))
    v = math.floor(x * 10.0 ** d) / 10.0 ** d
    ok = v > 0 and v >= min_race_dt(s_max, fastest) / per and \
        steps <= min(race_steps_bounds(s_max, tau, v * per).values())
    return v if ok else None


def check_predict_horizon(steps: int, race_dt: float, s_max: float, tau: float, *, fastest: float | None = None,
                          field: str = "--steps", lr_at_fault: bool = False) -> None:
    """Refuse, before any estimate or race, predict_reln's race (RK4 steps of τ/(race_dt·s_max), ``s_max`` at least
    1) where it cannot reach ``steps``: a step that overflows, or one too short for a single step within the flow's
    budget (naming --race-dt), or ``steps`` over :func:`race_steps_bounds`' least bound, naming what set them
    (``field``: training.steps or --steps), or --race-dt where it was given away from its default 10 and a race_dt
    that reaches them exists (:func:`_race_dt_for`, the fix; lowering ``field`` the other way). ``lr_at_fault``: a
    candidate's s ≥ τ (predict_reln warns; the flow names training.lr): the bounds are not the fix then."""
    race_steps = race_dt * s_max        # RK4 steps per τ
    if not math.isfinite(tau / race_steps):     # race_steps_bounds' int(τ/race_dt) was an OverflowError
        raise SpecError("--race-dt", f"{race_dt!r} makes the RK4 step τ/(race_dt·s_max) overflow to infinity",
                        "a larger --race-dt, e.g. --race-dt 10 (the default)", "a larger {key}, e.g. {key}=10 (the default)")
    bounds = race_steps_bounds(s_max, tau, race_steps)
    most = min(bounds.values())
    if lr_at_fault or steps <= most:
        return
    if 1 > most and steps <= bounds["rate"]:        # race_dt alone sets the others: not one step fits
        raise SpecError("--race-dt", f"{race_dt!r} makes the RK4 step τ/(race_dt·s_max) = {tau / race_steps:.3g} steps, "
                                     f"too short for even one step of the race within the flow's budget",
                        "a smaller --race-dt, e.g. --race-dt 10 (the default)", "a smaller {key}, e.g. {key}=10 (the default)")
    budget, lower = "(the flow's budget of integration steps at its fastest rate, and of recorded losses)", \
        f"lower {field} to at most {most}"
    better = _race_dt_for(s_max, tau, steps, fastest, per=s_max) if race_dt != 10 else None
    lower_kw = f"steps={most} or fewer" if field == "--steps" else lower      # from Python: the keyword steps
    if better is None:      # race_dt at its default, or no race_dt reaches these steps: they are the fix
        raise SpecError(field, f"{steps} steps are more than a race of this data can take: at most {most} {budget}", lower,
                        f"give {{key}}={most} or fewer" if field == "--steps" else None)
    use = f"{better:g}" + (" (the default)" if better == 10 else "")
    short = f"{race_dt!r} makes the RK4 step τ/(race_dt·s_max) = {tau / race_steps:.3g} steps, so a race of this data " \
            f"can take at most {most} steps {budget}, fewer than "
    raise SpecError("--race-dt", f"{short}{field} = {steps}", f"use --race-dt {use}" + (f", or {lower}" if most >= 1 else ""),
                    f"use {{key}}={use}" + (f", or {lower_kw}" if most >= 1 else ""),
                    keyword_problem=f"{short}{'steps' if field == '--steps' else field} = {steps}")


def rank_families(rows, core: set, tie=None) -> tuple:
    """Rows of families (:func:`~theorykit.curves.loss_metrics` with a ``"family"`` label such as
    ``"common+12+13"``) ranked the one way both rankings of context families rank them: ``(the rows by the
    area of L(t)/L(0), by the time to 1 % of L(0) (a family that never gets there last), the rows within
    1 % of the winner's area, the first row by area that lacks one of the ``core`` pathways or None)``.
    Ties go by ``tie(row)`` where given, else by the rows' order."""
    tie = tie or (lambda r: 0)
    by_area = sorted(rows, key=lambda r: (r["area"], tie(r)))
    by_t1 = sorted(rows, key=lambda r: (r["t_0.01"] is None, r["t_0.01"] or 0.0, tie(r)))
    near = [r for r in by_area if r["area"] <= 1.01 * by_area[0]["area"]]
    return by_area, by_t1, near, next((r for r in by_area if not core <= set(r["family"].split("+"))), None)


@dataclass
class ExhaustResult:
    summary: dict
    t: np.ndarray
    curves: dict          # label -> normalised loss curve L(t)/L(0), for the figure: float32 (one is kept per
    #                       orbit until the ranking is known); the metrics come from the float64 curves
    metrics: list         # one dict per family, in family_masks order

    def __repr__(self):     # one line (the dataclass's own printed every family's metrics and curve)
        s = self.summary
        return (f"ExhaustResult(k={s.get('k')}, {s.get('families')} families in "
                f"{s.get('symmetry', {}).get('orbits')} orbits, winner {s.get('winner')}; "
                f"see .summary, .metrics, .curves)")


def _time_limit(time_limit, on_estimate):
    """:func:`race_exhaust`'s ``time_limit`` as a bound in seconds, or None for none (0, None, inf), checked as
    predict_reln checks its own; ``on_estimate`` None or callable."""
    if on_estimate is not None and not callable(on_estimate):
        raise SpecError("on_estimate", f"needs a function of the estimate, got {short_repr(on_estimate)}",
                        "pass a function, e.g. on_estimate=print, or None")
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit == math.inf):
        time_limit = real(time_limit, "--time-limit", lo=0.0, hi=math.inf, fix=time_limit_fix("600"),
                          keyword_fix=time_limit_fix("600", keyword=True))
    return time_limit if time_limit and time_limit != math.inf else None


@keyword_errors({"--k": "k", "--steps": "steps", "--race-dt": "race_dt", "--batch": "batch", "--gamma": "gamma",
                 "--a0": "a0", "--time-limit": "time_limit"})
def race_exhaust(k: int = 4, *, gamma=None, a0: float | None = None, batch: int = 256, race_dt: float = 10,
                 use_symmetry: bool = True, families=None, progress=True, curves_top: int = 8,
                 steps: int = STEPS, time_limit: float | None = None, on_estimate=None) -> ExhaustResult:
    """Rank every context-gated family of the k-context task by the race's speed.

    ``families``: restrict to these rows of ``family_masks(k)`` (tests). ``use_symmetry``: integrate
    one representative per orbit (default) or every family. ``race_dt``: RK4 step τ/race_dt, the
    loss recorded every ⌊τ/race_dt⌋ steps (default 10; the contexts suite races at τ/2 in
    ``--quick`` and τ/40 in ``--full``, ``validation/contexts.py``). ``progress``: True (default) for a
    bar on stderr over the orbits raced, False or None for none, or a :class:`~theorykit.progress.Progress`
    or tqdm bar of your own, advanced by the orbits of each batch. Before any race the run time is estimated
    (:func:`~theorykit.analysis.predict_estimate.exhaust_estimate`, predict's estimator; ``summary["estimate"]``)
    and given to ``on_estimate(estimate)``; ``time_limit`` (seconds; 0, None or inf: no limit) refuses a run whose
    estimate is over it, naming what bounds it.
    """
    checked_progress(progress)
    limit = _time_limit(time_limit, on_estimate)
    positive_int(steps, "--steps", "--steps 8000")
    positive_race_dt(race_dt)
    positive_int(batch, "--batch", "--batch 256")      # 2.5 or "8": a raw TypeError before
    for fld, v, (lo, hi), eg in (("--gamma", gamma, (DATA_MIN, DATA_MAX), "--gamma 1.1"),
                                 ("--a0", a0, TRAINING_RANGES["a0"], "--a0 0.001")):
        if v is not None:       # the context scale is a data number, a0 a training setting: checked as a spec's
            try:
                v = float(v)
            except (TypeError, ValueError):
                raise SpecError(fld, f"needs a number, got {v!r}", f"e.g. {eg}") from None
            real(v, fld, lo=lo, hi=hi, fix=f"a positive number between {fmt(lo)} and {fmt(hi)}, e.g. {eg}")
    given = [o for o, v in (("--race-dt", race_dt != 10), ("--a0", a0 is not None), ("--gamma", gamma is not None)) if v]
    t_start = time.time()
    # contexts(8, k ≤ 4), under 0.1 s, is timed with the run by the estimate below (time_limit), not by THEORYKIT_MAX_SECONDS;
    # its memory refusal names THEORYKIT_MAX_BYTES (no option lowers its size), in Python as on the command line
    spec, subsets, masks, labels = exhaust_spec(k, gamma, limits=fixed_size())
    system = RaceSystem.from_spec(spec)             # built once: every batch races its pathways
    set_ = (("--race-dt", race_dt != 10), ("--gamma", gamma is not None), ("--steps", steps != STEPS))
    a0 = default_a0() if a0 is None else float(a0)
    _check_steps(system, spec.tau, race_dt, int(steps), [o for o, v in set_ if v], a0)  # every bound, before any race
    k = int(k)                                     # checked there (numpy's integers too): a plain int in the summary
    fam = np.arange(len(masks)) if families is None else np.asarray(families, dtype=int)
    syms = context_symmetries(spec.task, 8, k)
    perms = [pa for pa in (pathway_action(spec, s) for s in syms) if pa is not None]
    every = np.arange(len(masks))                  # without the symmetry: each family its own orbit
    rep_index, orbit_of = family_orbits(masks, perms) if use_symmetry else (every, every)
    todo = np.unique(orbit_of[fam])                # orbits we need
    reps = rep_index[todo]
    X, Y = spec.task.numeric()
    sizes = {"P": spec.task.P, "d": X.shape[0], "rank": max(1, min(X.shape[0], Y.shape[0])), "steps": int(steps),
             "tau": spec.tau, "race_dt": race_dt, "batch": batch, "key": ("race-exhaust",)}
    est = {**exhaust_estimate(len(reps), masks.shape[1], **sizes), "sizes": sizes}
    if limit is not None and est["seconds"] > limit:
        raise exhaust_refusal(est, limit, k=k, ranked=len(fam), symmetry=use_symmetry)
    if on_estimate is not None:
        on_estimate(est)
    dt = spec.tau / race_dt
    rev = max(1, int(dt))
    t_sym = time.time() - t_start
    per_orbit, t = {}, None
    t0 = time.time()
    keep_curve = {}
    # closed on an interrupt too: else its last line came after the command line's "interrupted"; a
    # Progress (not tqdm's bar as it is): on a batch job's log, lines without a carriage return
    with progress_bar(progress, f"race k={k}", len(reps)) as bar:
        for s in range(0, len(reps), batch):
            chunk = reps[s:s + batch]
            rf = race_rk4(system, spec.tau, race_dt, steps, a0=a0, masks=masks[chunk].astype(float))
            note_compiled(est["shapes"][s // batch])
            t = rf.t
            check_no_rise(rf.loss, race_dt, given)
            for o, L in zip(todo[s:s + batch], rf.loss):
                per_orbit[int(o)] = loss_metrics(rf.t, L, FRACTIONS)
                keep_curve[int(o)] = (L / L[0]).astype(np.float32)
            bar.update(len(chunk))
    t_race = time.time() - t0
    rows = []
    for f in fam:
        m = dict(per_orbit[int(orbit_of[f])])
        m.update({"family": labels[f], "index": int(f), "orbit": int(orbit_of[f]), "pathways": int(masks[f].sum()),
                  "has_common": bool(masks[f][0])})
        rows.append(m)
    core = {"common"} | {"".join(str(c + 1) for c in S) for S in itertools.combinations(range(k), k - 1)}
    contains_core = lambda r: core <= set(r["family"].split("+"))  # noqa: E731
    by_area, by_t1, near, best_lacking = rank_families(rows, core, tie=lambda r: r["index"])
    for i, (r, r1) in enumerate(zip(by_area, by_t1)):
        r["rank_area"], r1["rank_t_0.01"] = i + 1, i + 1
    win = by_area[0]
    named = named_families(k, labels)
    lab_row = {r["family"]: r for r in rows}
    named_rows = {nm: lab_row[lab] for nm, lab in named.items() if lab in lab_row}
    cols = ("family", "area", "t_0.5", "t_0.1", "t_0.01", "final_fraction", "pathways", "rank_area", "rank_t_0.01",
            "orbit")
    summary = {
        "k": k, "gamma": float(Fraction(spec.task.meta["context_scale"])),
        "task": f"contexts(8, {k}, context_scale={spec.task.meta['context_scale']}): hierarchy in every context",
        "lr": ETA, "loss": "sum", "steps": steps, "tau": spec.tau, "a0": a0, "rk4_dt": dt, "record_every": rev,
        "families": len(masks), "families_ranked": len(rows),
        "symmetry": {"group_order": len(syms), "permutations": [list(s["pi"]) for s in syms],
                     "acting_on_pathways": len(perms), "verified": "exact (SymPy) and float row permutations of X and Y",
                     "orbits": int(orbit_of.max()) + 1, "orbits_integrated": int(len(reps)), "used": use_symmetry},
        "metric": f"area = mean of L(t)/L(0) over 0..{steps} steps (lower is faster); t_f = first step with L <= f L(0)",
        "winner": win["family"], "winner_contains_common_and_all_(k-1)-context": contains_core(win),
        "within_1pct_of_winner": [r["family"] for r in near],
        "all_within_1pct_contain_common_and_all_(k-1)-context": all(contains_core(r) for r in near),
        "best_family_lacking_common_or_a_(k-1)-context_pathway": best_lacking and
        {c: best_lacking[c] for c in cols},
        "top20_by_area": [{c: r[c] for c in cols} for r in by_area[:20]],
        "named": {nm: {c: r[c] for c in cols} for nm, r in named_rows.items()},
        "seconds": {"symmetry": t_sym, "race": t_race, "total": time.time() - t_start},
        "estimate": {"seconds": est["seconds"], "rk4_steps": est["rk4_steps"], "engine_calls": est["calls"]},
    }
    # curves for the figure: the top families and the named sets
    want = [r["family"] for r in by_area[:curves_top]] + [r["family"] for r in named_rows.values()]
    curves = {lab: keep_curve[int(lab_row[lab]["orbit"])] for lab in dict.fromkeys(want)}
    return ExhaustResult(summary, t, curves, rows)


def write_outputs(res: ExhaustResult, out_dir, provenance: dict | None = None) -> dict:
    """``exhaust.json`` (atomic) and ``race_k<k>.png`` in ``out_dir``; returns the paths.
    ``provenance`` (the command's record: its options and versions) goes into exhaust.json. The JSON
    keeps what the figure draws (``figure_data``: the steps and the kept curves), and the figure is drawn
    from that JSON's contents by :func:`plot_exhaust`, the drawing :func:`redraw_exhaust` makes from the
    file: a new look needs no new race."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    k = res.summary["k"]
    data = dict(res.summary)
    data["ranking_by_area"] = [{c: r[c] for c in ("family", "area", "t_0.01", "rank_area", "orbit")}
                               for r in sorted(res.metrics, key=lambda r: r["rank_area"])]
    data["figure_data"] = {"t": res.t, "curves": res.curves,
                           "note": "L(t)/L(0) of the top families and the named sets (race_k<k>.png's left panel)"}
    if provenance is not None:
        data["provenance"] = provenance
    jpath = write_json(out / "exhaust.json", data)
    ppath = write_figure(plot_exhaust(json.loads(json_text(data))), out / f"race_k{k}.png", dpi=120)
    return {"json": jpath, "figure": ppath}


#: how to make an exhaust.json that holds its figure's data (the command, run again)
_REDO = "run theorykit race-exhaust again (--k, --out) with this theorykit: exhaust.json then keeps its figure's curves"


def redraw_exhaust(path, figure=None) -> Path:
    """Draw ``race_k<k>.png`` again from a saved ``exhaust.json`` (``path``), without a race: the same
    drawing as the command's (:func:`plot_exhaust`), into ``figure`` (default: ``race_k<k>.png`` beside the
    JSON). Returns the figure's path. A JSON without ``figure_data`` (written before it was kept) is refused."""
    path = Path(path)
    if figure is not None:
        figure_path(figure, "figure")
    data = read_json(path, "give the exhaust.json that theorykit race-exhaust wrote")
    if not isinstance(data, dict) or "ranking_by_area" not in data or "named" not in data:
        raise SpecError("path", f"{path} is not an exhaust.json of race-exhaust (no ranking_by_area or named sets)",
                        "give the exhaust.json that race-exhaust wrote")
    if not isinstance(data.get("figure_data"), dict):
        raise SpecError("figure_data", f"{path} does not hold the figure's curves (written before they were kept)",
                        _REDO)
    out = path.with_name(f"race_k{data['k']}.png") if figure is None else Path(figure)
    return write_figure(plot_exhaust(data), out, dpi=120)


def plot_exhaust(data: dict):
    """The figure of an ``exhaust.json``'s contents ``data`` (a dict as read from the file): left, L(t)/L(0)
    of the top five families and the named sets from ``figure_data``; right, every family's area
    (``ranking_by_area``) against its rank, the named sets marked. Returns the matplotlib figure."""
    k, fd = data["k"], data["figure_data"]
    t = np.asarray(fd["t"], dtype=float)
    fig, (a1, a2) = subplots(1, 2, figsize=(11, 5.0))
    named = {r["family"]: nm for nm, r in data["named"].items()}
    top = [r["family"] for r in data["top20_by_area"][:5]]
    # the named sets wide and pale underneath, the top families narrow on top in their own dash patterns:
    # the curves coincide (that is the finding), and each stays visible where it does
    dashes = ["-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1))]
    colour = {nm: f"C{i % 5}" for i, nm in enumerate(data["named"])}     # the same in both panels
    for lab, c in fd["curves"].items():
        c = np.asarray(c, dtype=float)
        if lab in named:
            a1.plot(t, c, lw=4, alpha=0.45, zorder=1, color=colour[named[lab]],
                    label=f"{named[lab]} (#{data['named'][named[lab]]['rank_area']})")
        elif lab in top:
            i = top.index(lab)
            a1.plot(t, c, lw=1.2, ls=dashes[i % len(dashes)], color="k" if i == 0 else f"C{5 + i}", zorder=2,
                    label=f"#{i + 1} {lab}" if len(lab) < 40 else f"#{i + 1}")
    a1.set_xlabel("gradient step")
    a1.set_ylabel("L(t) / L(0) of the race reduction")
    a1.set_yscale("log")
    a1.set_title(f"k = {k} contexts: top families and named sets")
    a1.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=2, frameon=False,
              title="wide, pale: named sets (rank); narrow: the top five by area", title_fontsize=7)
    areas = np.sort([r["area"] for r in data["ranking_by_area"]])
    a2.plot(np.arange(1, len(areas) + 1), areas, color="0.3", lw=1)
    for nm, r in data["named"].items():
        a2.plot([r["rank_area"]], [r["area"]], "o", color=colour[nm], label=f"{nm}: #{r['rank_area']}")
    a2.set_xscale("log")
    a2.set_xlabel("rank (by area)")
    a2.set_ylabel("area of L/L(0)")
    a2.set_title(f"all {len(areas)} families")
    a2.legend(fontsize=7)
    fig.tight_layout()
    return fig
