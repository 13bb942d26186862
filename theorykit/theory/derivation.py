"""The derivation object: from a GDLN spec to its learning dynamics.

Build it once, then read its results as properties (in the manner of SymPy's
``KanesMethod``)::
    >>> from theorykit import Derivation, GDLNSpec, xor_margin, xor_relns
    >>> der = Derivation(GDLNSpec(xor_margin(), xor_relns()["xor"]))
    >>> der.method
    'closed-form'
    >>> der.modes["point0"].singular_values
    [sqrt(Delta**2 + 2)/4]
    >>> der.loss.subs({"Delta": 0}) # doctest: +SKIP

Data flow: task → gating → effective datasets → modes (SVD) → trajectories → loss.

Method choice (keyword ``method``):

* ``"auto"`` (default): the closed form when every pathway decouples (no two pathways
  that share an output row are on for a common datapoint) and every pathway's input
  correlation is diagonal in its own right singular vectors (Assumption 2.1); otherwise
  the numerically integrated race reduction (:mod:`theorykit.theory.race`).
* ``"closed-form"``: as auto, but a warning is issued (and recorded in ``notes``) when the
  closed form does not apply and the race reduction is used instead.
* ``"race-reduction"``: always integrate the race reduction numerically.
"""
from __future__ import annotations

import warnings
from functools import cached_property
from typing import Mapping

import numpy as np
import sympy as sp

from .effective import EffectiveDataset, couplings, effective_dataset, output_trace, pairs_text
from ..errors import DerivationError, SpecError, keyword_typos
from ..spec.gating import GDLNSpec
from .display import competition_ranks
from .modes import (SVD, Exprs, ExprsByName, Ranking, _maybe_eigvec, _quad_float, build_unevaluated, exact_text, is_zero,
                    lazy_matvec, num, quad_exact, tidy)
from .svd import exact_svd, generic_reference, input_power
from .trajectory import (a0 as A0, closed_form_loss, discrete_mode_gap, mode_gap, mode_trajectory, t, t_half,
                         t_half_float, tau)
from ..spec.expr import exact_float
from ..spec.graph import GraphSpec
from ..spec.fields import choice
from ..spec.task import checked_values_map
from ..spec.values import checked_times, checked_value, exact_values
from .jaxify import to_jax
from .race import RaceSystem
from .latex import derivation_latex, derivation_latex_short, named_results, typeset_loss

__all__ = ["Derivation"]

METHODS = ("auto", "closed-form", "race-reduction")


def _same_value(a, b) -> bool:
    """Whether two symbol values agree (exact where both are exact, else to 1e-12 relative)."""
    try:
        fa, fb = float(sp.N(a, 30)), float(sp.N(b, 30))
    except (TypeError, ValueError):
        return sp.simplify(sp.sympify(a) - sp.sympify(b)) == 0
    return abs(fa - fb) <= 1e-12 * max(1.0, abs(fb))


class Derivation:
    """Learning dynamics of a GDLN spec, derived exactly where the maths is exact.

    Parameters
    ----------
    spec: the :class:`~theorykit.spec.gating.GDLNSpec` (task, pathways, training).
    method: ``"auto"``, ``"closed-form"`` or ``"race-reduction"`` (see the module docstring).
    values: optional values for the task's symbols (names or symbols as keys); symbols without a value stay symbolic.

    Results (properties): ``effective_datasets``, ``modes``, ``diagonalisable``,
    ``couplings``, ``method``, ``trajectories``, ``loss``, ``t_half``, ``ranking`` (and its ``ranks``), ``notes``.
    """

    @keyword_typos
    def __init__(self, spec: GDLNSpec, method: str = "auto", values: Mapping | None = None):
        if not isinstance(spec, (GDLNSpec, GraphSpec)):     # a path, a Task, a ReLN's list of pathways
            raise SpecError("spec", f"expected a GDLNSpec or GraphSpec, got {type(spec).__name__}",
                            "pass a spec: tk.load_spec(path) reads a file, GDLNSpec(task, pathways) builds one")
        choice(method, "method", METHODS, problem=f"unknown method {method!r}")   # "did you mean …?" where near one
        checked_values_map(values, spec.task.symbols)
        for k, v in (values or {}).items():     # a name the task lacks, or a value its assumptions forbid
            checked_value(spec.task, k, v)

        #: the graph of a graph spec (None for a pathway spec); with shared edges the race is the
        #: race of :meth:`theorykit.theory.race.RaceSystem.from_graph`, else the pathway form is exact
        self.graph = None
        if isinstance(spec, GraphSpec):
            self.graph = spec.subs(exact_values(values), check=False) if values else spec     # each checked above
            spec = spec.as_pathway_spec()
            if not self.graph.private_chains:
                method = "race-reduction"
        self._generic = spec          # before the values: a pathway may have nothing to learn only at them
        self.spec = spec.subs(exact_values(values), check=False) if values else spec      # checked above, once
        #: the symbol values fixed when the derivation was built (later ``values=`` must agree)
        self._fixed = self.spec.task.keyed(values, check=False)
        self.requested_method = method
        self.notes: list[str] = []
        if self.graph is not None and not self.graph.private_chains:
            self.notes.append("pathways share edges " + ", ".join(sorted(self.graph.shared_edges())) +
                              ": no closed form; the race reduction with shared edges (theorykit.theory.race.RaceSystem.from_graph) "
                              "is integrated from aligned, balanced weights of strength a0")
        if self.graph is not None and self.graph.schedule:
            self.notes.append("the derivation leaves out the [[schedule]]: it is every edge training from step 0 on "
                              "the targets, whatever the groups' start and fit (a simulation trains the schedule)")

    def _values_text(self) -> str:
        return ", ".join(f"{k} = {v}" for k, v in self._fixed.items())

    # -- task → effective datasets ---------------------------------------------------------
    @property
    def task(self):
        """The spec's :class:`~theorykit.spec.task.Task` (at the values fixed when the derivation was built)."""
        return self.spec.task

    @cached_property
    def effective_datasets(self) -> dict[str, EffectiveDataset]:
        """Each pathway's effective dataset (Σyx, Σx); in Jupyter typeset, one pathway a line."""
        return ExprsByName({p.name: effective_dataset(self.task, p) for p in self.spec.pathways})

    @property
    def reference(self) -> dict:
        """Where the modes' order and signs are decided (:func:`~theorykit.theory.svd.generic_reference`)."""
        return self.__dict__["_reference"] if "_reference" in self.__dict__ else (self.modes, self._reference)[1]

    def _pathway_field(self, i: int) -> str:
        """The spec field of pathway i: ``pathways[i]``, or the graph node that holds it."""
        return self.graph.pathway_field(i) if self.graph is not None else f"pathways[{i}]"

    # -- effective datasets → modes ----------------------------------------------------------
    @cached_property
    def modes(self) -> dict[str, SVD]:
        """Exact SVD of each pathway's Σyx, with input variances ``d_α = v_αᵀ Σx v_α``.

        Nothing is simplified or typeset here: values are exact as derived (symbolic ``d`` is
        tidied for display on first access)."""
        symbolic = [e for eff in self.effective_datasets.values() if eff.exact is None for e in (*eff.Syx, *eff.Sx)]
        # not at a special point of the SVDs, nor where an input variance vanishes
        self._reference, out, note = generic_reference(self.task.free_symbols, symbolic, self._svds, task=self.task)
        self.notes += [note] if note else []
        for i, (name, modes) in enumerate((n, svd.modes) for n, svd in out.items()):
            fld = self._pathway_field(i)
            if not modes and self._fixed and any(
                    e != 0 for e in effective_dataset(self._generic.task, self._generic.pathways[i]).Syx):
                # Σyx vanishes at these values only (XoR's linear ReLN at Δ = 0): the pathway adds no mode
                msg = (f"pathway {name!r} has nothing to learn at {self._values_text()}: its Σyx is zero there "
                       "(not in general), so it adds no mode and its weights stay at their start")
                self.notes.append(msg)
                warnings.warn(msg, stacklevel=3)
            elif not modes:
                raise DerivationError(f"pathway {name!r}: its effective dataset Σyx is zero, there is nothing to learn",
                                      field=fld, fix=f"check {fld}: turn it on for datapoints whose targets its input "
                                      "rows correlate with (its active gates, inputs and outputs), or remove it")
            for m in modes:
                if m.d_float(self.reference) <= 1e-14 * self._input_power:
                    raise DerivationError(f"pathway {name!r}: a mode with s = {m.s_text} has zero input variance d "
                                          "(degenerate SVD)", field=fld, fix="give the symbols other values (--set NAME=VALUE)")
            width = self.spec.pathways[i].hidden
            if width < len(modes):
                msg = (f"pathway {name!r} has {width} hidden unit(s), fewer than the {len(modes)} modes of its Σyx: "
                       f"the derivation gives every mode a unit, so it predicts more learning than a width-{width} "
                       f"network can do (raise {fld}.{'hidden' if self.graph is None else 'width'} "
                       f"to {len(modes)})")
                self.notes.append(msg)
                warnings.warn(msg, stacklevel=3)
        return named_results(self, out, out)

    def _svds(self, ref: dict) -> dict:
        """Each pathway's SVD with its input variances, its conventions decided at ``ref``."""
        out, self._diag, cache = {}, {}, self.__dict__.setdefault("_svd_cache", {})
        for i, (name, eff) in enumerate(self.effective_datasets.items()):
            try:
                svd = exact_svd(eff.Syx if eff.exact is None else eff.exact[:2], ref, cache)
            except DerivationError as exc:
                exc.field = getattr(exc, "field", None) or self._pathway_field(i)
                raise
            if eff.exact is not None:
                Sx = eff.Sx_fmpq() if svd.modes else None
                modes, ok = [], True
                for m in svd.modes:
                    d, diag = m.raw.v.quad_form(Sx)
                    ok &= bool(diag)
                    modes.append(m.with_d(d, d_float=exact_float(d)))     # d may be a surd
                self._diag[name] = ok
            else:
                modes = []
                for m in svd.modes:
                    d = quad_exact(m.v_untidied, eff.Sx)          # v exact; its tidy form is for display only
                    if not m.exact_vectors:
                        modes.append(m.with_d(sp.N(d, 30)))
                        continue
                    # d is kept exact; its value comes from the numeric vector (evaluating the exact
                    # d, a sum of products of nested radicals that cancel, took minutes: a fuzz hang)
                    modes.append(m.with_d(d, d_pending=True, d_float=_quad_float(m, eff.Sx, ref)))
            out[name] = SVD(tuple(modes), svd.shape, svd.reference)
        return out

    @cached_property
    def _input_power(self) -> float:
        """``‖X‖_F² / P`` at the reference values: a bound on every ``d = vᵀ Σx_p v`` (``‖v‖ = 1``), the
        scale against which a zero input variance is told from tiny data (X scaled by 1e-8 has d ≈ 1e-16)."""
        return input_power(self.task, self.reference)

    @cached_property
    def diagonalisable(self) -> dict[str, bool]:
        """Whether Σx_p maps each right singular vector v_α to d_α v_α (Assumption 2.1).

        Decided in exact arithmetic for rational tasks (over ℚ or ℚ(√D); to 40 digits for
        vectors of roots of degree ≥ 3)."""
        out = {}
        modes = self.modes
        for name, eff in self.effective_datasets.items():
            if name in self._diag:
                out[name] = self._diag[name]
                continue
            ok = True
            for m in modes[name].modes:
                if m.exact_vectors and not _maybe_eigvec(m, eff.Sx, self.reference):
                    ok = False          # clearly not an eigenvector (in floats): no exact test needed
                    continue
                v = m.v_untidied
                if build_unevaluated(m.d_untidied) or any(build_unevaluated(x) for x in v):   # exact, unevaluated
                    Sv, d = lazy_matvec(eff.Sx, v), m.d_untidied
                    resid = [sp.Add(Sv[i], sp.Mul(-1, d, v[i], evaluate=False), evaluate=False) for i in range(v.rows)]
                else:
                    resid = eff.Sx * v - m.d_untidied * v
                if m.exact_vectors:
                    ok &= all(is_zero(r) for r in resid)
                else:
                    ok &= all(abs(complex(sp.N(r.subs(self.reference), 30))) < 1e-20 for r in resid)
            out[name] = bool(ok)
        return out

    @cached_property
    def couplings(self) -> list:
        """Pairs of pathways that share output rows and are both on for some datapoint (pathways of a
        graph that share an edge couple too: ``graph.shared_edges()``; :attr:`method` counts both)."""
        return couplings(self.spec)

    @cached_property
    def method(self) -> str:
        """``"closed-form"`` or ``"race-reduction"``: which method produced the results."""
        if self.requested_method == "race-reduction":
            return "race-reduction"
        reasons = []
        if self.couplings:
            reasons.append(f"pathways {pairs_text(self.couplings)} couple (shared outputs and datapoints)")
        bad = [n for n, ok in self.diagonalisable.items() if not ok]
        if bad:
            reasons.append(f"correlations of {bad} are not mutually diagonalisable")
            rep = [n for n in bad if len({m.s_text for m in self.modes[n].modes}) < len(self.modes[n].modes)]
            if rep:
                # known limit: with a repeated s the SVD's basis of that subspace is one choice of many
                reasons.append(f"{rep} have a repeated singular value, and Assumption 2.1 was tested on one "
                               "basis of its subspace (a rotation within it that diagonalises Σx is not searched "
                               "for, so a closed form may be missed; the race reduction is exact either way)")
        if any(p.depth != 2 for p in self.spec.pathways):
            reasons.append("pathways deeper than two layers have no closed form here")
        if not reasons:
            return "closed-form"
        msg = "closed form not applicable: " + "; ".join(reasons) + "; using the race reduction"
        self.notes.append(msg)
        if self.requested_method == "closed-form":
            warnings.warn(msg, stacklevel=2)
        return "race-reduction"

    # -- modes → trajectories ----------------------------------------------------------------
    @cached_property
    def trajectories(self) -> dict[str, list]:
        """Closed-form a_α(t) of every mode (symbols ``t``, ``tau``, ``a_0``); per pathway."""
        self._need_closed_form("trajectories")
        return named_results(self, {n: Exprs(mode_trajectory(m.s, m.d) for m in svd.modes) for n, svd in self.modes.items()})

    @cached_property
    def loss(self) -> sp.Expr:
        """Closed-form loss L(t) = ½ tr Σy − Σ_p Σ_α (s a − ½ d a²), times P for a summed loss.

        Written as ``½ tr Σy − Σ s²/(2d) + Σ s²/(2d) · q²`` with each mode's gap fraction
        ``q = 1 − a d/s`` (:func:`~theorykit.theory.trajectory.mode_gap_fraction`), the same expression:
        what no mode removes is SymPy's exact bracket, so a lambdified loss keeps its digits in
        saturation, and there is no s/d or s/(d a0) in it, so a mode whose s and d vanish together with
        d/s → 0 (the XoR "linear" ReLN at Δ = 0) has a finite value and gradient in JAX."""
        self._need_closed_form("loss")
        modes = [(m.s, m.d) for svd in self.modes.values() for m in svd.modes]
        return self.spec.loss_factor * closed_form_loss(output_trace(self.task), modes)   # numbers tidied

    @property
    def loss_typeset(self):
        """:attr:`loss` in lines that fit a page, as a :class:`~theorykit.theory.latex.TypesetLoss` (``.latex()``)."""
        return typeset_loss(self)

    @cached_property
    def initial_loss(self) -> sp.Expr:
        """Loss with every map at zero: ½ tr Σy (times P for a summed loss)."""
        return self.spec.loss_factor * output_trace(self.task) / 2

    @cached_property
    def t_half(self) -> dict[str, list]:
        """Half-way time of each mode: τ/(2s) · ln(s/(d a0) − 1) for a two-layer pathway; for a deeper
        one the exact integral of its balanced mode equation (:func:`~theorykit.theory.trajectory.t_half`).

        Each mode's own time, *as if it learned alone*. That is the mode's time where the method is
        ``"closed-form"``; where pathways couple or share edges (``"race-reduction"``) the race
        changes it, and :meth:`predict_loss` (the race) says when the loss halves. ``float()`` of one needs a number
        for every free symbol (else SymPy's "Cannot convert expression to float"): the task's by ``values={...}``
        (``--set NAME=VALUE``), τ (1/lr) and a0 by ``subs`` (docs/tutorial.md, section 3)."""
        depth = {p.name: p.depth for p in self.spec.pathways}
        return named_results(self, {n: Exprs(t_half(m.s, m.d, depth=depth[n]) for m in svd.modes)
                            for n, svd in self.modes.items()})

    @cached_property
    def end_points(self) -> dict[str, list]:
        """End point s_α/d_α of each mode, *as if it learned alone* (as :attr:`t_half`): where the method is
        ``"race-reduction"`` the pathways share what they learn and end elsewhere (:meth:`predict_modes`)."""
        return named_results(self, {n: Exprs(tidy(m.s / m.d) for m in svd.modes) for n, svd in self.modes.items()})

    @cached_property
    def ranking(self) -> list[tuple[str, sp.Expr]]:
        """Pathways ordered fastest first, with their top singular value s: by s (rate 2s/τ) when all
        pathways have the same depth; across depths, by the half-way time of the top mode (depth
        changes the rate, so s alone does not order them).

        With symbols, the order is the one at the reference values (see ``reference``). A pathway
        with nothing to learn at this derivation's values (no mode) comes last, with s = 0. Exactly equal
        values share a rank (``ranking.ranks``: :attr:`ranks`)."""
        return Ranking([(n, m.s) for n, m in self._ranked()] + [(n, sp.S.Zero) for n in self._idle()], self.ranks)

    @cached_property
    def ranks(self) -> list[int]:
        """Each pathway's rank in :attr:`ranking`, "1, 2, 2, 2, 5": shared where their top s (across depths:
        depth, s and d) are exactly equal, proved (:func:`~theorykit.theory.display.competition_ranks`)."""
        ranked, ref, depth = self._ranked(), self.reference, {p.name: p.depth for p in self.spec.pathways}
        mixed = len(set(depth.values())) > 1

        def floats(n, m):
            return (depth[n], m.s_float(ref), m.d_float(ref)) if mixed else (m.s_float(ref),)

        def exact(i):       # asked for only where the floats agree (an exact s can cost a CRootOf to build)
            if i >= len(ranked):
                return (sp.S.Zero,)         # a pathway with nothing to learn
            n, m = ranked[i]
            return (depth[n], m.s, m.d) if mixed else (m.s,)
        return competition_ranks([floats(n, m) for n, m in ranked] + [(0.0,)] * len(self._idle()), exact)

    @cached_property
    def ranking_text(self) -> list[tuple[str, str]]:
        """:attr:`ranking` with each value as exact text (no ``CRootOf`` object is built)."""
        return [(n, m.s_text) for n, m in self._ranked()] + [(n, "0") for n in self._idle()]

    def _idle(self) -> list:
        return [n for n, svd in self.modes.items() if not svd.modes]

    def _ranked(self) -> list:
        items = [(n, svd.modes[0]) for n, svd in self.modes.items() if svd.modes]
        if len({p.depth for p in self.spec.pathways}) == 1:
            return sorted(items, key=lambda it: -it[1].s_float(self.reference))
        depth = {p.name: p.depth for p in self.spec.pathways}
        a0_, tau_ = float(self.spec.training.a0), float(self.spec.tau)
        th = {n: t_half_float(m.s_float(self.reference), m.d_float(self.reference), a0_, tau_, depth[n])
              for n, m in items}          # floats: no symbolic half-way time is built for this
        return sorted(items, key=lambda it: th[it[0]])

    def _need_closed_form(self, what):
        if self.method != "closed-form":
            raise DerivationError(f"{what}: no closed form for this spec ({'; '.join(self.notes)}). "
                                  "Use predict_loss(), which integrates the race reduction.")

    # -- numbers -----------------------------------------------------------------------------
    def numeric_values(self, values: Mapping | None) -> dict:
        """``values`` keyed by the task's SymPy symbols (names resolved), for ``subs``."""
        checked_values_map(values, self.task.symbols)
        for k, v in (values or {}).items():
            sym = checked_value(self.task, k, v)
            if sym in self._fixed and not _same_value(v, self._fixed[sym]):
                raise SpecError("symbols", f"{sym} = {self._fixed[sym]} was fixed when this Derivation was built, "
                                           f"not {v}", f"build Derivation(spec, values={{'{sym}': {v}}}), or build it "
                                                       "without values and pass them here")
        vals = self.task.value_map(values, check=False)     # every free symbol needs a value (each checked above, once)
        vals.update({tau: self.spec.tau, A0: self.spec.training.a0})
        return vals

    def loss_function(self, values: Mapping | None = None):
        """The closed-form loss as a JAX function of t (jit/vmap/grad-safe), at given symbol values."""
        vals = self.numeric_values(values)
        L = self.loss.subs(vals)
        if self.task.free_symbols and L.has(sp.nan, sp.zoo):
            return self._at(values).loss_function()                  # special values: derive there
        return to_jax(L, [t])

    def race_system(self, values: Mapping | None = None, frames: str = "exact"):
        """The numeric race-reduction system (float64) at given symbol values
        (:class:`~theorykit.theory.race.RaceSystem`; built once per values).

        ``frames="exact"``: each pathway's singular vectors from its exact SVD, so the recorded
        mode strengths are the derivation's modes; ``"numeric"``: numpy's SVD of its float Σyx
        (faster; the same loss, since an aligned start ``a0 U Vᵀ`` does not depend on the basis
        chosen within a repeated singular value)."""

        checked_values_map(values, self.task.symbols)
        key = (frames,) + tuple(sorted((str(k), float(v)) for k, v in (values or {}).items()))
        cache = self.__dict__.setdefault("_race_systems", {})
        if key not in cache:
            fr = None if frames == "numeric" else self.frames(values)
            cache[key] = RaceSystem.from_spec(self.spec, values,
                                              frames=None if fr is None else [fr[p.name] for p in self.spec.pathways])
        return cache[key]

    def frames(self, values: Mapping | None = None) -> dict:
        """Each pathway's singular vectors ``(U, V)`` in floats, from its exact SVD, at the values:
        the frames of an aligned start (:func:`theorykit.net.starts.aligned_params`) and of the race."""
        vals = self.numeric_values(values)
        out = {}
        for p in self.spec.pathways:
            U_, _s, V_ = self.modes[p.name].numeric(vals)
            out[p.name] = (U_, V_)
            if self.task.free_symbols and not (np.isfinite(U_).all() and np.isfinite(V_).all()):
                return self._at(values).frames()
        return out

    def _at(self, values) -> "Derivation":
        """The derivation redone with ``values`` substituted first (cached). A symbolic SVD holds
        for generic values of the symbols; at special ones (an off-diagonal entry that vanishes,
        say) its vectors can degenerate to 0/0, where the substituted derivation is exact."""
        key = tuple(sorted((str(k), str(v)) for k, v in (values or {}).items()))
        cache = self.__dict__.setdefault("_at_values", {})
        if key not in cache:
            graph = self.graph if self.graph is not None else self.spec
            cache[key] = Derivation(graph, self.requested_method, values={**{str(k): v for k, v in self._fixed.items()},
                                                                           **dict(values or {})})
        return cache[key]

    def predict_loss(self, times, values: Mapping | None = None, discrete: bool = False) -> np.ndarray:
        """Predicted loss at ``times`` (gradient steps), by this derivation's method.

        With ``discrete=True`` (closed-form specs only) each mode follows the discrete
        gradient-descent recurrence ``a ← a(1 + (s − d a)/τ)²`` instead of the flow; for
        aligned, balanced initial weights this is exact for gradient descent, not O(η)."""
        times = checked_times(times)
        if discrete and (times != np.round(times)).any():
            raise SpecError("times", "discrete gradient descent has whole steps only",
                            "give integer steps, e.g. np.arange(0, 5001, 50)")
        if discrete:
            self._need_closed_form("discrete prediction")
        if discrete or (not self._race_decided() and self.method == "closed-form"):
            # numbers only: each mode's s and d at the values, its a(t) in numpy: the closed form, or
            # the discrete recurrence (the symbolic loss is neither built nor simplified)
            # L = [½ tr Σy − Σ s²/2d] + Σ ½ d g² with each mode's gap g = s/d − a: the bracket (what no
            # mode removes) at 30 digits, the gaps by their own closed form or recurrence, so a loss far
            # below L(0) keeps its digits (the form ½ tr Σy − Σ (s a − ½ d a²) cancels to 0 near 1e-16)
            # values at 30 digits (a float keeps its binary value): with 15-digit Floats substituted the
            # bracket, exactly 0 for a task the pathways fit, came out as ±1e-17 of L(0), and the tail
            # below it was lost (a negative loss at large t)
            vals = {k: _digits(v, 30) for k, v in self.numeric_values(values).items()}
            a_init, tau_ = float(self.spec.training.a0), float(self.spec.tau)
            floor = sp.N(output_trace(self.task).subs(vals), 30) / 2
            gaps, recurrences = [], {}        # modes of equal (s, d) share one recurrence (a context task has many)
            for svd in self.modes.values():
                for m in svd.modes:
                    s30, d30 = self._mode_numbers(m, vals, digits=30)
                    if not _positive(s30, d30):     # a mode that vanishes (or is 0/0) at these values: derive there
                        if self.task.free_symbols:
                            return self._at(values).predict_loss(times, discrete=discrete)
                        raise DerivationError(f"a mode with s = {s30}, d = {d30}: no trajectory")
                    floor -= s30 ** 2 / (2 * d30)
                    s_, d_ = float(s30), float(d30)
                    if discrete:
                        if (s_, d_) not in recurrences:
                            recurrences[s_, d_] = discrete_mode_gap(s_, d_, a_init, tau_, int(np.max(times)))
                        g = recurrences[s_, d_][times.astype(int)]
                    else:
                        g = mode_gap(s_, d_, a_init, times, tau_, np.exp)
                    gaps.append(d_ * g ** 2 / 2)
            # what no mode removes is a loss (a sum of squares): never below 0; a negative bracket is
            # rounding at 30 digits
            floor = max(float(floor), 0.0)
            L = floor + np.sum(gaps, axis=0) if gaps else np.full(times.shape, floor)
            if not discrete and not np.isfinite(L).all() and self.task.free_symbols:    # special values: derive there
                return self._at(values).predict_loss(times)
            return self.spec.loss_factor * L
        if self._shared_edges:
            return self._graph_race(values).solve(times, modes=False).loss[0]
        return self.race_system(values, "numeric").solve(times).loss[0]

    def _race_decided(self) -> bool:
        """Whether :attr:`method` is the race reduction for a reason that needs no SVD: pathways that
        couple, or deeper than two layers (:attr:`method` decides the same, after the modes). A
        numeric loss then needs no modes: with symbols their exact SVD can take minutes, where the
        race at the values takes a fraction of a second."""
        if "method" in self.__dict__ or self.requested_method == "closed-form":     # its warning, if any
            return self.method == "race-reduction"
        return (self.requested_method == "race-reduction" or bool(self.couplings)
                or any(p.depth != 2 for p in self.spec.pathways))

    @property
    def _shared_edges(self) -> bool:
        return self.graph is not None and not self.graph.private_chains

    def _graph_race(self, values: Mapping | None = None):
        """The race of a graph with shared edges (:meth:`RaceSystem.from_graph`) at the values, built
        once per values: the race that the notes name, of both :meth:`predict_loss` and :meth:`predict_modes`."""
        key = tuple(sorted((str(k), str(v)) for k, v in (values or {}).items()))     # strings: "1/2" too
        cache = self.__dict__.setdefault("_graph_races", {})
        if key not in cache:
            cache[key] = RaceSystem.from_graph(self.graph, values)
        return cache[key]

    def _mode_numbers(self, m, vals, digits: int) -> tuple:
        """(s, d) of a mode at ``vals``, SymPy Floats of ``digits`` precision (the one caller,
        :meth:`predict_loss`, asks for 30: floats would cost the loss tail its digits)."""
        if m.raw is not None:       # the engine's mode: s is a number (to 60 digits); d may hold Σx's symbols
            try:
                d30 = sp.N(sp.sympify(m.d_untidied).subs(vals), digits)
            except (sp.SympifyError, TypeError, AttributeError):
                d30 = m.d_float()
            return sp.Float(m.raw.s.mp, digits), sp.Float(d30, digits)
        s_, d_ = sp.N(sp.sympify(m.s).subs(vals), 30), sp.N(sp.sympify(m.d_untidied).subs(vals), 30)
        return sp.Float(s_, digits), sp.Float(d_, digits)

    def predict_modes(self, times, values: Mapping | None = None) -> dict:
        """Per-pathway mode strengths a_α at ``times`` (closed form, or the race reduction integrated):
        ``{pathway name: array of shape (len(times), number of modes)}``, row i at ``times[i]``, column α the
        strength of mode α of ``modes[name].modes``, in that order (descending s; in the race, ``u_αᵀ M_p v_α``
        of the pathway's map in those singular vectors). A pathway with nothing to learn has no column; a
        graph whose pathways share edges gives its own race's modes (:meth:`RaceSystem.from_graph`)."""
        times = checked_times(times)
        vals = self.numeric_values(values)
        if self.method == "closed-form":
            out = {}
            for n, trajs in self.trajectories.items():
                at = [a.subs(vals) for a in trajs]
                if self.task.free_symbols and any(a.has(sp.nan, sp.zoo) for a in at):
                    return self._at(values).predict_modes(times)       # special values: derive there
                cols = [np.asarray(to_jax(a, [t])(times)) * np.ones_like(times) for a in at]
                # a pathway with nothing to learn at these values has no mode: no column (np.stack of none raised)
                out[n] = np.stack(cols, axis=1) if cols else np.zeros(np.shape(times) + (0,))
            return out
        # a graph with shared edges: its own race (the pathways' private chains would be another model)
        sol = (self._graph_race(values) if self._shared_edges else self.race_system(values)).solve(times)
        return {n: m[0] for n, m in sol.saved["modes"].items()}

    # -- display -------------------------------------------------------------------------------
    def summary(self, values: Mapping | None = None) -> dict:
        """JSON-ready, per pathway: singular values and input variances (exact strings; floats at ``values``,
        a symbol given none at the :attr:`reference` point), exact vectors, diagonalisable. End points and
        the method are :attr:`end_points` and :attr:`method`."""
        checked_values_map(values, self.task.symbols)
        for k, v in (values or {}).items():      # Δ = −2 for a nonnegative Δ printed s = Δ/2 as −1.0
            checked_value(self.task, k, v)
        ref = {**self.reference, **self.task.keyed(values, check=False)}     # checked above, once
        out = {}
        for n, svd in self.modes.items():
            out[n] = {
                "singular_values": [m.s_text for m in svd.modes],
                "singular_values_float": [m.s_float(ref) for m in svd.modes],
                "input_variances": [exact_text(m.d) for m in svd.modes],
                "input_variances_float": [m.d_float(ref) for m in svd.modes],
                "exact_vectors": all(m.exact_vectors for m in svd.modes),
                "diagonalisable": self.diagonalisable[n],
            }
        return out

    def latex(self, document: bool = False) -> str:
        """The derivation step by step as LaTeX (a standalone document with ``document=True``)."""
        return derivation_latex(self, document=document)

    def _repr_latex_(self):
        return derivation_latex_short(self)

    def __repr__(self):
        # the method once it is known (deciding it may need the modes: a repr computes nothing)
        method = self.__dict__.get("method", self.requested_method)
        return f"Derivation({self.spec.name!r}, pathways={[p.name for p in self.spec.pathways]}, method={method!r})"


def _positive(*xs) -> bool:
    """Whether every number is positive: False for 0 and for NaN (SymPy refuses to compare NaN)."""
    try:
        return all(bool(x > 0) for x in xs)
    except TypeError:
        return False


def _digits(v, digits: int):
    """A symbol's value with ``digits`` of working precision: floats (Python, numpy or SymPy) keep their
    binary value, now at that precision; exact values stay exact."""
    if isinstance(v, (float, np.floating)):
        return sp.Float(float(v), digits)
    if isinstance(v, sp.Float):
        return sp.Float(v, digits)
    return v


def numeric_matrix(M, vals) -> np.ndarray:
    """A real exact matrix in floats, entry by entry in bounded time (:func:`~theorykit.theory.modes.num`)."""
    M = sp.Matrix(M)
    return np.array([[num(M[i, j], vals) for j in range(M.cols)] for i in range(M.rows)], dtype=float).reshape(M.shape)
