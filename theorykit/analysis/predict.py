"""From data to dynamics without training: predict the ReLN a ReLU network will learn.

:func:`predict_reln` reads only the data (X, Y), the width H and the training settings, and
returns the gated deep linear network (a ReLN: one pathway per gate pattern) whose race it
predicts the ReLU network to run. Four stages, each stated in the result:

1. **Gate patterns.** A bias-free ReLU unit with first-layer weights w is on for datapoint μ iff
   ``w·x_μ > 0``; a pattern g ∈ {0,1}^P is *realisable* iff some w gives it, i.e. iff the linear
   program ``w·x_μ ≥ 1 (g_μ = 1), w·x_μ ≤ 0 (g_μ = 0)`` is feasible (a strict inequality on
   finitely many points scales to ``≥ 1``, so this is exact). :func:`realisable_patterns`
   enumerates them **exactly** by a depth-first search over the datapoints that prunes every
   infeasible prefix (one LP per node; a child the parent's witness already satisfies needs
   none), when Cover's bound ``2 Σ_{k<r} C(P−1, k)`` (r = rank X) on their number is at most
   ``max_patterns``. Beyond that it runs a **seeded search**: ``samples`` weight vectors drawn
   N(0, I) (the isotropic law of a small random initialisation) and their patterns; each is
   realisable by construction, and the count found is reported (the search may miss rare
   patterns). The all-off pattern is dropped (such a unit never learns), and so is any pattern
   whose effective correlation ``Y diag(g) Xᵀ`` is zero (its pathway starts and stays at zero).
1b. **Consistency (Definition 3.1).** The ReLN's gates must be those its own units produce. A
   unit grows along its pathway's top input direction ±v₁ (of ``Y diag(g) Xᵀ``), so a pattern is
   kept only when ±v₁ is positive on all its datapoints and some w equal to ±v₁ on them (free
   orthogonally to them) is ≤ 0 on the rest (:func:`consistent_pattern`, one LP). XoR's mixed pairs
   and triples fail it: their units learn their way out of the pattern.
2. **Symmetry.** A permutation σ of the datapoints is kept when it preserves both Gram matrices,
   ``XᵀX`` and ``YᵀY`` (checked exactly on the task's rational entries; on floats with a 1e-12
   relative tolerance for irrational data). Then some orthogonal map of the inputs and one of the
   outputs carry (X, Y) to their permuted copies; squared loss and an isotropic Gaussian
   initialisation are invariant under both, so the ReLU network's dynamics (in distribution) and
   the race are equivariant, and patterns in one orbit play the same role. The group is found by
   backtracking (every element enumerated, capped at ``max_group``; a truncated group gives finer
   orbits, never wrong ones). Candidate families are unions of whole orbits.
3. **Family search by the race.** A family's pathways each see every input and write every
   output; the family's race reduction (:meth:`theorykit.theory.race.RaceSystem.solve`, the one race
   engine, RK4 with step τ/(``race_dt`` · max(1, s_max)), s_max the largest singular value of a candidate
   pattern's Σyx; a ``race_dt`` under ``race_step.min_race_dt`` (≥ 1.44; Σx's bound) is refused) is integrated
   from aligned, balanced maps with the a0 of stage 4, and ranked by the area of L(t)/L(0) over the
   training horizon (lower is faster), as ``race-exhaust`` does. ``search="exhaustive"``: every non-empty union of the
   candidate orbits; ``"forward"`` (beam 1) or ``"beam"``: start from nothing, add one orbit at a
   time, keeping the ``beam`` best families by area, with the candidates at each step the
   ``shortlist`` orbits of largest top singular value of the *residual* correlation
   ``(R ∘ g) Xᵀ / P`` (R = Y − the family's final output; R = Y at the start), and stop when no
   addition lowers the area by more than ``min_gain`` (relative). ``"auto"``: exhaustive when the
   candidate orbits give at most ``max_families`` families, else beam.
4. **Width and a0 (stated rule).** The H hidden units are shared equally among the family's m
   pathways (H // m each, the remainder one each to the first pathways; ``share="mass"``: in
   proportion to each pattern's Gaussian mass, :mod:`.predict_share`), and each pathway's
   initial mode strength is the one a0 rule, ``a0_p = a0_rule(init_std, H_p)`` = σ²H_p/2
   (:func:`theorykit.net.starts.a0_rule`). A family with more pathways therefore starts each of
   them weaker: the rule prices extra pathways in the race itself, with no parsimony constant.

The prediction is the family of least area (of equal areas, the one of fewer orbits, then of smallest
:func:`.patterns.gates_key`: never the enumeration's order). Its runner-ups follow by the same key. All rests on the paper's
assumptions (small initialisation, full-batch gradient descent, gates fixed after an early alignment
phase); :mod:`.predict_validate` trains the ReLU network and says where it departs.
"""
from __future__ import annotations

import copy
import dataclasses
import itertools
import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import SpecError, as_command, keyword_errors, keyword_typos
from ..linalg import correlation
from .findgates import check_seed, geometric_mean
from .patterns import consistent_any_output, consistent_pattern, data_symmetries, gates_key, pattern_orbits, realisable_patterns
from .exhaust import check_predict_horizon, race_rk4
from .race_step import check_race_dt, check_raced, pathway_rate, positive_race_dt
from .predict_estimate import (batch_plan, beam_estimate, engine_shapes, estimate_seconds, new_shapes, note_compiled,
                               race_rk4_steps)
from ..theory.race import RaceSystem
from .predict_share import SHARE_RULES, family_a0s, pattern_masses, share_hidden, share_rule_text
from ..curves import loss_metrics
from ..spec.fields import choice, figure_path, flow_tau, integer, loss_factor, real, short_repr
from ..spec.files import TRAINING_RANGES
from ..spec.ranges import MAX_STEPS, time_limit_fix
from ..spec.gating import GDLNSpec, Pathway, Training
from ..spec.task import Task, as_task, no_value_error
from ..io import counted, png_bytes, write_figure
from .predict_figure import as_drawn, figure_data, plot_prediction
from ..html import html_escape
from ..progress import checked_progress, progress_bar

__all__ = ["Prediction", "predict_reln", "share_hidden", "estimate_seconds",]     # .predict_share's, .predict_estimate's


# ---------------------------------------------------------------------------------------------
# the result
# ---------------------------------------------------------------------------------------------
@dataclass
class Prediction:
    """What :func:`predict_reln` predicts: pathways (gate vectors), their widths and a0, the race's loss
    curve and half-way time, the runner-up families, and what each stage did."""

    task: object
    training: object
    hidden: int
    gates: np.ndarray             # m × P
    widths: list
    a0: list
    t: np.ndarray
    loss: np.ndarray              # the race's loss (the spec's loss: times P for a summed loss)
    t_half: float | None          # the step at which the predicted loss reaches L(0)/2; None: not within the steps
    area: float
    runners_up: list              # [{"family": [orbit labels], "pathways": m, "area": …, "t_half": …, "gates": m × P 0/1}]
    search: dict
    enumeration: dict
    symmetry: dict
    orbits: list                  # [{"orbit": k, "size": n, "example": gate list, "in_prediction": bool}]
    seconds: dict = field(default_factory=dict)
    curves: dict = field(default_factory=dict)  # label -> L/L0 of the best families (figure)
    share_rule: str = share_rule_text("equal")   # the width rule, in words (sample size and seed for "mass")

    # -- outputs --------------------------------------------------------------------------------------
    def to_spec(self, name: str = "predicted-reln"):
        """The predicted ReLN as a :class:`~theorykit.spec.gating.GDLNSpec` (every pathway sees all
        inputs and writes all outputs; ``training.a0`` = the geometric mean of the pathways' a0)."""
        paths = [Pathway(f"p{j + 1}", tuple(int(v) for v in g), "all", "all", int(h))
                 for j, (g, h) in enumerate(zip(self.gates, self.widths))]
        # equal a0s (equal widths) are written as they are; otherwise the geometric mean, kept between them
        a0 = geometric_mean(self.a0)
        lo, hi = TRAINING_RANGES["a0"]
        if not lo <= a0 <= hi:          # the spec file's own range, so that the written spec loads
            raise SpecError("training.init_std", f"the a0 rule gives the predicted pathways a0 = {a0:.3g} "
                                                 f"(init_std {self.training.init_std:g}, {min(self.widths)}–"
                                                 f"{max(self.widths)} units each), outside the [{lo:g}, {hi:g}] a spec "
                                                 "file accepts", "raise init_std or --hidden" if a0 < lo else
                                                 "lower init_std or --hidden")
        return GDLNSpec(self.task, tuple(paths), dataclasses.replace(self.training, a0=a0), name)

    def summary(self) -> dict:
        """A JSON-ready dict of the prediction: the pathways (gates, widths, a0), the race's half-way time,
        area and first and last loss, the runners-up, how the search went, and what its figure draws
        (``figure_data``, :func:`.predict_figure.figure_data`)."""
        return {"hidden": self.hidden, "pathways": [{"name": f"p{j + 1}", "active": [int(v) for v in g],
                                                     "hidden": int(h), "a0": float(a)}
                                                    for j, (g, h, a) in enumerate(zip(self.gates, self.widths, self.a0))],
                "t_half": self.t_half, "area": self.area, "loss_0": float(self.loss[0]),
                "loss_end": float(self.loss[-1]), "runners_up": copy.deepcopy(self.runners_up),
                "search": copy.deepcopy(self.search),
                "enumeration": copy.deepcopy(self.enumeration), "symmetry": copy.deepcopy(self.symmetry),
                "orbits": copy.deepcopy(self.orbits),     # copies: a caller's changes never reach the Prediction
                "share_rule": self.share_rule, "seconds": dict(self.seconds),
                "figure_data": figure_data(self.t, self.loss, self.curves, self.task)}   # what .figure() draws

    def table_rows(self):
        """One row per predicted pathway: (name, gate pattern as 0/1 text, width, a0)."""
        return [(f"p{j + 1}", "".join(str(int(v)) for v in g), int(h), float(a))
                for j, (g, h, a) in enumerate(zip(self.gates, self.widths, self.a0))]

    def __repr__(self):     # one line (the dataclass's own printed the task, the curves and every orbit)
        return f"Prediction({self.text().splitlines()[0]}; print(.text()) for the rest)"

    def _search_words(self) -> str:
        """"exhaustive (all 3 non-empty unions …)"; a beam or forward search's description already starts
        with its name ("beam (beam search (beam width 3, …" said it twice)."""
        method, covered = self.search["method"], self.search["covered"]
        return covered if covered.startswith(method) else f"{method} ({covered})"

    def _half_way(self) -> str:
        """The half-way time in words: "137.5 steps", or, where the predicted loss stays above L(0)/2
        (a task it cannot half fit), "never (L > L(0)/2 for all 500 steps)" ("never steps" before)."""
        if self.t_half is not None:
            return f"{self.t_half:.1f} steps"
        return f"never (L > L(0)/2 for all {int(self.training.steps)} steps)"

    def text(self) -> str:
        """The prediction as lines of text (what ``theorykit predict`` prints)."""
        lines = [f"predicted ReLN: {counted(len(self.gates), 'pathway')}, H = {self.hidden}; half-way time {self._half_way()}; "
                 f"area {self.area:.5f}",
                 f"  search: {self._search_words()}",
                 f"  patterns: {self.enumeration['method']}, {self.enumeration['found']} found; symmetry group of order "
                 f"{self.symmetry['order']}, {counted(self.search['orbits'], 'orbit')} "
                 f"({counted(self.search['candidates'], 'candidate')})"]
        if self.share_rule != share_rule_text("equal"):     # the default rule is the documented one
            lines.append(f"  width rule: {self.share_rule}")
        for nm, g, h, a in self.table_rows():
            lines.append(f"  {nm}: gates {g}  hidden {h}  a0 {a:.3g}")
        if self.runners_up:
            lines.append("  runner-up families (area, pathways):")
            for r in self.runners_up[:5]:
                lines.append(f"    {r['area']:.5f}  {r['pathways']:3d}  orbits {'+'.join(map(str, r['family']))}")
        # the orbits named above: a symmetry class of gate patterns, each shown by one of its members
        named = {k for r in self.runners_up[:5] for k in r["family"]}
        shown = [o for o in self.orbits if o["in_prediction"] or o["orbit"] in named]
        if shown:
            lines.append("  orbits (gate patterns equal up to the task's symmetry):")
            for o in shown[:12]:
                lines.append(f"    {o['orbit']}: {o['size']} pattern{'s' if o['size'] > 1 else ''} like "
                             f"{''.join(map(str, o['example']))}{'  (predicted)' if o['in_prediction'] else ''}")
            if len(shown) > 12:
                lines.append(f"    … {len(shown) - 12} more (the JSON has them all)")
        return "\n".join(lines)

    def figure(self):
        """A matplotlib figure: the predicted ReLN's loss curve and its gate patterns, drawn from the numbers
        :meth:`summary` keeps (``figure_data``) by :func:`.predict_figure.plot_prediction`, as
        :func:`.predict_figure.redraw_prediction` draws them from a saved JSON."""
        return plot_prediction(as_drawn(self.summary()))

    def plot(self, path=None):
        """Draw the predicted loss and gates; with ``path``, write it there (atomically; a .png, .pdf or
        .svg, by its ending)."""
        if path is not None:
            figure_path(path, "path")
        fig = self.figure()
        if path is not None:
            return write_figure(fig, path)
        return fig

    def _repr_html_(self):
        import base64

        png = png_bytes(self.figure(), dpi=90)
        rows = "".join(f"<tr><td>{n}</td><td><code>{g}</code></td><td>{h}</td><td>{a:.3g}</td></tr>"
                       for n, g, h, a in self.table_rows())
        ru = "".join(f"<tr><td>{html_escape('+'.join(map(str, r['family'])))}</td><td>{r['pathways']}</td>"
                     f"<td>{r['area']:.5f}</td></tr>" for r in self.runners_up[:5])
        return (f"<p><b>Predicted ReLN</b>: {counted(len(self.gates), 'pathway')}, H = {self.hidden}, half-way time "
                f"{html_escape(self._half_way())}, area {self.area:.5f}; search {html_escape(self._search_words())}</p>"
                f"<table><tr><th>pathway</th><th>gates</th><th>hidden</th><th>a0</th></tr>{rows}</table>"
                + (f"<p>runner-up families</p><table><tr><th>orbits</th><th>pathways</th><th>area</th></tr>{ru}"
                   "</table>" if ru else "")
                + f'<img src="data:image/png;base64,{base64.b64encode(png).decode()}">')


# ---------------------------------------------------------------------------------------------
# 3. the race over families
# ---------------------------------------------------------------------------------------------
def _race_families(task, training, gates_all, families, H, *, race_dt, steps, chunk_pathways=48, done=None, masses=None, given_dt=None):
    """Race each family (a list of pattern indices) with the stated width/a0 rule; returns (t, list of loss curves,
    list of final outputs Ŷ). ``done(k)`` is called after each engine call with the number of families it raced.
    ``masses``: the "mass" width rule. ``given_dt``: the caller's race_dt, named where a race diverged (check_raced)."""
    X, Y = task.numeric()
    out_L, out_Y, t = [None] * len(families), [None] * len(families), None
    # group families so that the union of their pathways stays small (the engine's cost is quadratic in it)
    groups = batch_plan(families, chunk_pathways)
    tau = flow_tau(training.lr, training.loss, task.P)
    for grp in groups:
        union = sorted(set().union(*[set(families[i]) for i in grp]))
        col = {p: j for j, p in enumerate(union)}
        system = RaceSystem.from_data(X, Y, np.asarray([gates_all[p] for p in union], float),
                                      names=[f"q{p}" for p in union])
        masks = np.zeros((len(grp), len(union)))
        a0 = np.full((len(grp), len(union)), 1e-12)
        for b, i in enumerate(grp):
            fam = families[i]
            for j, a in zip(fam, family_a0s(training.init_std, H, len(fam), None if masses is None else masses[fam])[1]):
                masks[b, col[j]] = 1.0
                a0[b, col[j]] = a
        rf = race_rk4(system, tau, race_dt, steps, a0=a0, masks=masks, loss_factor=loss_factor(training.loss, task.P))
        check_raced(rf.loss, race_dt if given_dt is None else given_dt, field="--race-dt")  # a family may race faster
        note_compiled((len(grp), len(union), int(steps), float(race_dt)))     # as engine_shapes keys it
        t = rf.t
        for b, i in enumerate(grp):
            out_L[i] = np.asarray(rf.loss[b], float)
            Yh = np.zeros_like(Y)
            for p in families[i]:
                M = rf.params[f"q{p}"][b]
                Yh += M @ (X * gates_all[p][None, :].astype(float))
            out_Y[i] = Yh
        if done is not None:
            done(len(grp))
    return t, out_L, out_Y


def _residual_score(X, R, gates):
    return np.array([np.linalg.norm(correlation(X, R, g), 2) for g in gates], dtype=float)


#: the command line's options → predict_reln's keywords: a Python caller's error names the keyword
_KEYWORDS = {"--hidden": "hidden", "--search": "search", "--time-limit": "time_limit", "--steps": "steps",
             "--consistency": "consistency", "--max-orbit-size": "max_orbit_size", "--shortlist": "shortlist",
             "--beam": "beam", "--enumerate": "enumerate_method", "--max-patterns": "max_patterns", "--seed": "seed",
             "--samples": "samples", "--share": "share", "--race-dt": "race_dt"}


@keyword_errors(_KEYWORDS)
@keyword_typos
def predict_reln(task, hidden: int, training, *, search: str = "auto", beam: int = 3, shortlist: int = 8,
                 seed: int = 0, max_patterns: int = 4096, samples: int = 20000, enumerate_method: str = "auto",
                 max_families: int = 1023, max_orbit_size: int = 32, min_gain: float = 1e-3, race_dt: float = 10.0,
                 steps: int | None = None, max_group: int = 2000, runners_up: int = 8, consistency="top", max_checked: int = 4000,
                 time_limit: float | None = None, progress=True, time_bound=None, share: str = "equal") -> Prediction:
    """Predict, from (X, Y) alone, the ReLN a bias-free ReLU network of width ``hidden`` learns (``task``: a
    :class:`~theorykit.spec.task.Task` or the data ``(X, Y)``, datapoints as columns).

    See the module docstring for the four stages and the stated rules. ``search``: ``"auto"``,
    ``"exhaustive"``, ``"forward"`` (beam width 1) or ``"beam"`` (width ``beam``). ``time_limit``
    (seconds, as ``--time-limit``): refuse, with an estimate naming the bounding option, when the search's
    estimate exceeds it, and stop with the same error wherever a stage (enumeration, consistency, symmetry,
    each batch of families) would run past it; ``None`` (default), ``0`` or ``math.inf``: no limit, as 0 on
    the command line (a negative number or NaN is refused). ``time_bound``: its former name, deprecated
    (warns; give ``time_limit``). The task must be numeric (substitute symbols first:
    ``task.subs({...})``). ``progress``: True (default) for bars on stderr for the pattern stages and the
    race (only on a terminal), False or None for none, or a :class:`~theorykit.progress.Progress` of your
    own or a tqdm bar, which receives the updates of both: three (patterns, consistent, orbits), then one per batch of
    families raced (``k`` families; its total is yours). ``share``: the width rule (:mod:`.predict_share`),
    ``"equal"`` (default) or ``"mass"``: in proportion to each pattern's Gaussian mass, estimated from
    ``samples`` N(0, I) draws with ``seed``."""

    t0 = time.time()
    if time_bound is not None:      # the former name of time_limit (the option was --time-bound)
        if time_limit is not None:
            raise SpecError("--time-limit", "given twice (time_bound is its former name)", "give only time_limit=")
        warnings.warn("predict_reln(time_bound=) is now time_limit= (seconds, as --time-limit; 0 or None: no limit)",
                      DeprecationWarning, stacklevel=4)     # past keyword_errors and keyword_typos: the caller
        time_limit = time_bound
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit == math.inf):
        time_limit = real(time_limit, "--time-limit", lo=0.0, hi=math.inf,   # negative, NaN: refused by name
                          fix=time_limit_fix("60"), keyword_fix=time_limit_fix("60", keyword=True))
    limit = time_limit if time_limit and time_limit != math.inf else None    # 0, None, inf: no limit
    checked_progress(progress)
    task = as_task(task)
    if not isinstance(task, Task):      # a spec, a path, a name: the data is what is predicted from
        raise SpecError("task", f"expected a Task or data (X, Y), got {type(task).__name__} {short_repr(task)}",
                        "pass a task (e.g. tk.xor_margin(1.2), or spec.task) or (X, Y), datapoints as columns")
    hidden = integer(hidden, "--hidden", lo=1, fix="a positive integer, e.g. --hidden 128")
    if not isinstance(training, Training):    # None or a dict reached training.steps as an AttributeError
        raise SpecError("training", f"expected a Training, got {type(training).__name__} {short_repr(training)}",
                        "pass e.g. tk.Training(steps=2000, lr=0.05), or a spec's spec.training")
    for opt, v in (("--beam", beam), ("--shortlist", shortlist)):    # 0 ran into a wrong "more pathways
        integer(v, opt, lo=1, fix=f"a positive integer, e.g. {opt} 3")   # than units"; −1 cut a list silently
    check_seed(seed, "--seed")        # before any work: --validate's k-means takes 0 … 2**32 − 1 (−1 crashed there)
    choice(search, "--search", ("auto", "exhaustive", "forward", "beam"), "use exhaustive, forward or beam",
           problem=f"unknown search {search!r}")
    choice(share, "--share", SHARE_RULES, "use equal or mass", problem=f"unknown width rule {share!r}")
    if consistency not in (True, False):        # checked before any work (it was after the enumeration)
        choice(consistency, "--consistency", ("top", "any-output", "off"), "use top, any-output or off",
               problem=f"unknown test {consistency!r}")
    positive_race_dt(race_dt)
    if task.free_symbols:       # the shared error's Python fix is values=, which predict_reln does not take
        err = no_value_error(task.free_symbols)
        names = sorted(map(str, task.free_symbols))
        py = ", ".join(f"{n!r}: 0.5" for n in names)
        raise SpecError(err.field, err.problem, f"substitute them first: task.subs({{{py}}}) in Python, "
                                                + " ".join(f"--set {n}=0.5" for n in names) + " on the command line")
    field = "training.steps" if steps is None else "--steps"       # what set the race's horizon
    if steps is not None:   # the race's horizon: also the validation's, and the written spec's steps
        training = dataclasses.replace(training, steps=integer(steps, "--steps", lo=1, hi=MAX_STEPS,
                                                                 fix="e.g. --steps 2000"))
    steps = int(training.steps)
    X, Y = task.numeric()
    P = X.shape[1]
    deadline = time.monotonic() + limit if limit is not None else None
    with progress_bar(progress, "predict: patterns", 3) as stages:
        # 1. patterns
        try:
            pats, counts, enum_info = as_command(realisable_patterns)(X, method=enumerate_method, max_patterns=max_patterns,
                                                          samples=samples, seed=seed, deadline=deadline)
        except TimeoutError as exc:
            raise SpecError("--time-limit", f"the pattern enumeration passed the {limit:g} s bound ({exc})",
                            "raise --time-limit, or use the sampled search (--enumerate sample)") from None
        t_enum = time.time() - t0
        stages.update(note=f"{len(pats)} realisable ({enum_info.get('method', 'enumerated')})")
        tiny = 1e-12 * np.abs(Y).max() * np.abs(X).max()   # relative: the data's scale is the user's
        nz = np.array([np.linalg.norm((Y * g[None, :]) @ X.T) > tiny for g in pats], dtype=bool) \
            if len(pats) else np.zeros(0, bool)
        enum_info["dropped_zero_correlation"] = int((~nz).sum())
        pats = pats[nz]
        if not len(pats):
            raise SpecError("data.targets", "no realisable gate pattern has a non-zero input-output correlation",
                            "the targets are orthogonal to every gated input: nothing can be learned")
        if consistency in ("top", "any-output", True):
            test = consistent_any_output if consistency == "any-output" else consistent_pattern
            if len(pats) > max_checked and enum_info["method"] == "sample":   # an exact enumeration: all
                enum_info["consistency_checked"] = f"the {max_checked} most often sampled of {len(pats)} patterns"
                pats = pats[:max_checked]
            keep = np.zeros(len(pats), dtype=bool)
            for i, g in enumerate(pats):
                if deadline is not None and time.monotonic() > deadline:
                    raise SpecError("--time-limit", f"the consistency test passed the {limit:g} s bound after "
                                                    f"{i} of {len(pats)} patterns", "raise --time-limit, or lower "
                                                                                    "--samples (fewer patterns to test)")
                keep[i] = test(X, Y, g)[0]
            enum_info["consistency"] = "top" if consistency is True else consistency
            enum_info["dropped_inconsistent"] = int((~keep).sum())
            pats = pats[keep]
            if not len(pats):
                tested = enum_info.get("consistency_checked", f"the {len(keep)} patterns found")   # "the 4000 most often sampled of …"
                raise SpecError("--consistency", f"none of {tested} passes the {enum_info['consistency']!r} "
                                                 "consistency test", "try --consistency any-output, more --samples, or "
                                                                     "--consistency off")
        stages.update(note=f"{len(pats)} consistent")
        masses = pattern_masses(X, pats, samples, seed) if share == "mass" else None    # one per pattern
        # 2. symmetry and orbits
        t1 = time.time()
        try:
            perms, sym_info = data_symmetries(X, Y, task, max_group=max_group, deadline=deadline)
            orbit_of = pattern_orbits(pats, perms, deadline=deadline)
        except TimeoutError as exc:
            raise SpecError("--time-limit", f"the symmetry search passed the {limit:g} s bound ({exc})",
                            "raise --time-limit") from None
        n_orb = int(orbit_of.max()) + 1
        members = [np.flatnonzero(orbit_of == k) for k in range(n_orb)]
        t_sym = time.time() - t1
        stages.update(note=f"{n_orb} orbits")
    big = [k for k in range(n_orb) if len(members[k]) > max_orbit_size]
    cand = [k for k in range(n_orb) if len(members[k]) <= max_orbit_size]
    if not cand:
        smallest = min(len(m) for m in members)
        raise SpecError("--max-orbit-size", f"all {counted(n_orb, 'orbit')} have more than {counted(max_orbit_size, 'pattern')} "
                                            f"(the smallest has {smallest})", f"raise --max-orbit-size to at least {smallest}")
    tau = flow_tau(training.lr, training.loss, P)
    # the race's RK4 step: tau/race_dt, shortened by 2 s_max/tau (s_max: the largest singular value of a candidate pattern's
    # Σyx = Y diag(g) Xᵀ / P, at least 1, as RaceSystem.rate counts it): at tau/10 whatever the data, RK4 blew up from s_max
    # ≈ 14 on data of a large scale (NaN areas). The check sees Σx too (race_step.pathway_rate; after a race: check_raced)
    s_top = max([0.0] + [float(np.linalg.norm((Y * pats[i][None, :]) @ X.T, 2)) / P for k in cand for i in members[k]])
    fastest = max([0.0] + [pathway_rate((Y * pats[i]) @ X.T / P, (X * pats[i]) @ X.T / P) for k in cand for i in members[k]])
    s_max = max(1.0, s_top)
    race_steps = race_dt * s_max        # RK4 steps per tau
    # before any estimate or race (s_top >= tau: the lr is at fault, warned below and named by the flow)
    check_predict_horizon(steps, race_dt, s_max, tau, fastest=fastest, field=field, lr_at_fault=s_top >= tau)
    check_race_dt(race_dt, s_max, tau, fastest=fastest, field="--race-dt", per=s_max, step="τ/(race_dt·s_max)")
    if s_top >= tau:
        # gradient descent on a mode: a <- a (1 + (s - d a)/tau)^2, whose slope at its end point s/d is
        # 1 - 2 s/tau: past s = tau every step overshoots by more than it corrects (the flow never does)
        warnings.warn(f"gradient descent at training.lr = {training.lr:g} is unstable on this data: its fastest "
                      f"candidate mode has s = {s_top:.3g} >= tau = {tau:.3g} steps, where a step overshoots the "
                      f"mode's end point by more than it corrects, and the prediction (a gradient flow) will not "
                      f"describe the network; lower training.lr below {training.lr * tau / s_top:.3g} (or rescale "
                      "the data)", stacklevel=3)      # the caller of predict_reln, past its keyword wrapper
    # 3. search
    n_fam = 2 ** len(cand) - 1
    method = search
    if method == "auto":
        method = "exhaustive" if n_fam <= max_families else "beam"
    if method == "exhaustive" and n_fam > max_families:
        # the command line's words (--max-families), and Python's (max_families=) through keyword_errors
        over = f"exhaustive search over {len(cand)} orbits means {n_fam} families, more than "
        raise SpecError("--search", f"{over}--max-families {max_families}",
                        f"use --search beam or forward, or raise --max-families to {n_fam}",
                        keyword_fix=f"use search='beam' or 'forward', or raise max_families to {n_fam}",
                        keyword_problem=f"{over}max_families={max_families}")
    def fits(orbs):         # a family needs at least one hidden unit per pathway
        return sum(len(members[k]) for k in orbs) <= hidden

    rank = max(1, min(X.shape[0], Y.shape[0]))
    fam_of = lambda orbs: sorted(int(i) for k in orbs for i in members[k])  # noqa: E731
    key = (steps, float(race_steps))        # with a batch's size and union, what the engine compiles for
    if method == "exhaustive":
        all_sets = [tuple(c for c, b in zip(cand, bits) if b) for bits in itertools.product((0, 1), repeat=len(cand))
                    if any(bits)]
        fitting = [o for o in all_sets if fits(o)]
        fams = [fam_of(o) for o in fitting]         # the engine calls are known: their shapes are counted
        shapes = engine_shapes(fams, batch_plan(fams), key)
        est_info = {"families": len(fams), "calls": len(shapes), "compiles": new_shapes(shapes)}
        npw = math.sqrt(np.mean([len(f) ** 2 for f in fams])) if fams else 0.0
        est = t_enum + estimate_seconds(P, X.shape[0], rank, npw, len(fams), steps, tau, race_steps,
                                        est_info["compiles"], est_info["calls"])
        est_info["assumes"] = (f"{len(fams)} {'family' if len(fams) == 1 else 'families'} in "
                               f"{counted(len(shapes), 'engine call')}, {counted(est_info['compiles'], 'new shape')} "
                               "to compile")
    else:
        est_info = beam_estimate([len(members[k]) for k in cand], int(hidden), 1 if method == "forward" else int(beam),
                                 int(shortlist), P=P, d=X.shape[0], rank=rank, steps=steps, tau=tau, race_dt=race_steps,
                                 estimate=estimate_seconds)
        est = t_enum + est_info["seconds"]
        est_info["seconds_high"] += t_enum
        est_info["assumes"] = (f"assuming {counted(est_info['rounds_assumed'], 'round')} of the search, up to "
                               f"{est_info['families']} families and one new shape to compile per round; it "
                               f"stops when the area stops improving, after at most {counted(est_info['rounds_bound'], 'round')} "
                               f"(up to {est_info['families_high']} families, {est_info['seconds_high']:.0f} s)")
    fam_est = est_info["families"]
    opt = "use --search beam with a smaller --beam/--shortlist" if method == "exhaustive" else \
        "lower --shortlist and --beam (or --steps, or --max-orbit-size)"
    if race_dt > 10:        # a huge --race-dt: its RK4 steps are priced (predict_estimate.RK4_STEP_S); the default's fewer
        opt = (f"lower --race-dt ({race_rk4_steps(tau, race_steps, steps):,} RK4 steps a race here, "
               f"{race_rk4_steps(tau, 10 * s_max, steps):,} at the default 10), {opt}")
    if limit is not None and est > limit:
        raise SpecError("--time-limit", f"the estimated run time is {est:.0f} s, over the {limit:g} s bound "
                                        f"({len(cand)} candidate orbits, {method} search, {steps} steps; "
                                        f"{est_info['assumes']})", f"{opt}, or raise --time-limit")
    t2 = time.time()
    results = {}            # frozenset(orbits) -> (area, t_half, curve, Yhat)
    tgrid = None

    def run(list_of_orbsets):
        nonlocal tgrid
        todo = [o for o in list_of_orbsets if frozenset(o) not in results]
        if not todo:
            return
        fams = [fam_of(o) for o in todo]
        if limit is not None:
            # the bound holds during the search too: each batch is estimated from its own families
            spent = time.time() - t0
            shapes = engine_shapes(fams, batch_plan(fams), key)
            more = estimate_seconds(P, X.shape[0], rank, math.sqrt(np.mean([len(f) ** 2 for f in fams])), len(fams),
                                    steps, tau, race_steps, new_shapes(shapes), len(shapes))
            if spent + more > limit:
                raise SpecError("--time-limit", f"after {spent:.0f} s and {len(results)} families raced, the next "
                                                f"{len(fams)} families (up to {max(map(len, fams))} pathways; "
                                                f"{counted(new_shapes(shapes), 'new shape')} to compile) are "
                                                f"estimated at {more:.0f} s, which would pass the {limit:g} s bound",
                                f"{opt}, or raise --time-limit")
        raced = [len(results)]

        def done(k):
            raced[0] += k
            bar.update(k, note=f"{raced[0]} families raced")

        try:
            t, Ls, Yh = _race_families(task, training, pats, fams, hidden, race_dt=race_steps, steps=steps, done=done,
                                       masses=masses, given_dt=race_dt)
        except SpecError as exc:
            if exc.field != "training.lr":      # the flow's budget: its fix named derive's --times
                raise
            raise SpecError("training.lr", f"{exc.problem}; the data's largest gated correlation is s_max = {s_max:.3g}",
                            "lower training.lr or --steps, or rescale the data (divide every input, or every "
                            "target, by one common factor)") from None
        tgrid = t
        for o, L, yh in zip(todo, Ls, Yh):
            m = loss_metrics(t, L, (0.5,))
            results[frozenset(o)] = (m["area"], m["t_0.5"], L, yh)

    rounds = []
    with progress_bar(progress, f"predict: racing ({method})", max(1, int(fam_est))) as bar:
        if method == "exhaustive":
            run(fitting)
            covered = f"all {counted(len(all_sets), 'non-empty union')} of the {counted(len(cand), 'candidate orbit')}" + (
                f" ({len(all_sets) - len(fitting)} left out: more pathways than the {counted(hidden, 'hidden unit')})"
                if len(fitting) < len(all_sets) else "")
        else:
            width = 1 if method == "forward" else int(beam)
            frontier = [frozenset()]
            best_area = np.inf
            seen_total = 0
            while True:
                expand = []
                for fs in frontier:
                    R = Y - results[fs][3] if fs else Y
                    rest = sorted((k for k in cand if k not in fs and fits(fs | {k})), key=lambda k: gates_key(pats, members[k]))
                    if not rest:
                        continue
                    reps = np.array([pats[members[k][0]] for k in rest])
                    sc = _residual_score(X, R, reps)
                    top = [rest[i] for i in np.argsort(-sc, kind="stable")[:shortlist]]
                    expand += [tuple(sorted(fs | {k})) for k in top]
                expand = [e for e in dict.fromkeys(expand) if fits(e)]
                if not expand:
                    break
                run(expand)
                seen_total += len(expand)
                ranked = sorted({frozenset(e) for e in expand}, key=lambda f: (results[f][0], len(f), gates_key(pats, fam_of(f))))
                new_best = results[ranked[0]][0]
                rounds.append({"families_raced": len(expand), "best_area": new_best,
                               "best": sorted(ranked[0])})
                if new_best >= best_area * (1 - min_gain):
                    break
                best_area = new_best
                frontier = ranked[:width]
            covered = (f"{method} search (beam width {width}, shortlist {shortlist} orbits by residual correlation per "
                       f"family, stop when the area gains < {min_gain:g}): {seen_total} families raced in {len(rounds)} "
                       f"rounds, of {n_fam} possible unions of {len(cand)} candidate orbits")
    t_race = time.time() - t2
    if not results:
        smallest = min(len(members[k]) for k in cand)
        raise SpecError("--hidden", f"every candidate family has more pathways than the {counted(hidden, 'hidden unit')} "
                                    f"(the smallest has {smallest})", f"raise --hidden to at least {smallest}")
    ranked = sorted(results.items(), key=lambda kv: (kv[1][0], len(kv[0]), gates_key(pats, fam_of(kv[0]))))   # ties: by the gates
    best_set, (area, t_half, curve, _) = ranked[0]
    fam = fam_of(sorted(best_set))
    gates = pats[fam]
    m = len(fam)
    widths, a0 = family_a0s(training.init_std, int(hidden), m, None if masses is None else masses[fam])
    # each runner-up with its gate patterns: the orbits' labels alone could not be resolved (an orbit shows
    # one example), so a runner-up family could not be derived or simulated
    ru = [{"family": sorted(int(k) for k in fs), "pathways": len(fam_of(fs)), "area": float(v[0]),
           "t_half": v[1], "gates": [[int(x) for x in pats[i]] for i in fam_of(fs)]} for fs, v in ranked[1:1 + runners_up]]
    curves = {"+".join(map(str, sorted(fs))): v[2] / v[2][0] for fs, v in ranked[:6]}
    orbits = [{"orbit": k, "size": int(len(members[k])), "example": [int(v) for v in pats[members[k][0]]],
               "on": int(pats[members[k][0]].sum()), "candidate": k in cand, "in_prediction": k in best_set}
              for k in range(n_orb)]
    search_info = {"estimated_seconds": est, "estimate": est_info, "method": method, "requested": search, "covered": covered, "orbits": n_orb,
                   "candidates": len(cand), "left_out_orbits_larger_than": max_orbit_size if big else None,
                   "left_out": len(big), "families_raced": len(results), "rounds": rounds,
                   "metric": f"area of L(t)/L(0) over 0..{steps} steps (race reduction, RK4 step tau/{race_steps:.4g})",
                   "prediction_orbits": sorted(int(k) for k in best_set)}
    secs = {"patterns": t_enum, "symmetry": t_sym, "race": t_race, "total": time.time() - t0}
    return Prediction(task, training, int(hidden), gates, widths, a0, tgrid, curve, t_half, float(area), ru,
                      search_info, enum_info, sym_info, orbits, secs, curves, share_rule_text(share, samples, seed))
