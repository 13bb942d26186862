"""`theorykit race-exhaust`."""
from __future__ import annotations

from ..analysis.exhaust import race_exhaust, write_outputs
from ..errors import SpecError, as_command
from ..io import counted
from ..spec.limits import human_seconds
from .common import check_out_dir, json_text, limits_from, note, provenance


#: a race estimated to take longer than this says so before it starts, as derive's LONG_SECONDS (a shorter one is
#: quiet, its error alone on stderr; exhaust.json keeps every estimate)
LONG_SECONDS = 10.0


def _note(est: dict) -> None:
    """The estimate, said before the race (on stderr) where it is over :data:`LONG_SECONDS`."""
    if est["seconds"] > LONG_SECONDS:
        note(f"race-exhaust: estimated {human_seconds(est['seconds'])} ({counted(est['orbits'], 'race')} of "
             f"{counted(est['rk4_steps'], 'RK4 step')} each, in {counted(est['calls'], 'engine call')}; a CPU's "
             "estimate: docs/race_k4.md#time)")


def run(args):
    """Rank every context-gated family of the k-context task by race speed (orbits under its symmetry)."""
    check_out_dir("--out", args.out)      # before the race: a bad folder costs nothing
    limits = limits_from(args)      # --time-limit (default 3600 s, or THEORYKIT_MAX_SECONDS; 0 or inf: none), --force
    # race_exhaust refuses, before any race, a --steps past any of the flow's budgets (race_steps_bounds, the
    # checks the flow makes, with the same steps): no race it starts runs out of the flow's steps
    res = as_command(race_exhaust)(args.k, gamma=args.gamma, a0=args.a0, batch=args.batch, race_dt=args.race_dt,
                                   use_symmetry=not args.no_symmetry, progress=not args.no_progress, steps=args.steps,
                                   time_limit=None if limits.force else limits.max_seconds, on_estimate=_note)
    try:        # a race that blew up is refused before anything is written
        json_text({"summary": res.summary, "metrics": res.metrics})
    except SpecError:
        given = [o for o, v in (("--a0", args.a0), ("--gamma", args.gamma)) if v is not None]
        raise SpecError(given[0] if given else "--race-dt", "the race diverged (a loss became infinite or undefined)",
                        "lower --a0 or --gamma, or raise --race-dt for a finer integration step") from None
    paths = write_outputs(res, args.out, provenance(args))
    s = res.summary
    print(f"race-exhaust k={s['k']}: {counted(s['families'], 'family', 'families')}, symmetry group of order {s['symmetry']['group_order']}, "
          f"{counted(s['symmetry']['orbits_integrated'], 'orbit')} integrated in {s['seconds']['total']:.1f}s")
    print(f"  winner (area): {s['winner']}; contains common + all (k-1)-context pathways: "
          f"{s['winner_contains_common_and_all_(k-1)-context']}")
    for nm, r in s["named"].items():
        print(f"  {nm:>18}: rank {r['rank_area']:>6} area {r['area']:.4f}")
    print(f"  -> {paths['json']}, {paths['figure']}")
    return 0
