"""Check a :class:`~theorykit.analysis.predict.Prediction` against trained ReLU networks.

:func:`validate_prediction` trains ``seeds`` bias-free ReLU networks of the predicted width with
the spec's hyper-parameters from small random weights (the one trainer, through Algorithm 1's
:func:`~theorykit.analysis.findgates.find_gates`, which also clusters their units), and reports:

* **loss agreement**: RMS over the steps of (predicted race loss − mean ReLU loss), over the ReLU
  networks' mean L(0); also the largest gap;
* **pathway agreement**: the share of the ReLU networks' weight (‖W1_j‖·‖W2_j‖ per unit, final
  weights) in units whose final gate pattern is one of the predicted patterns; and the overlap
  (Jaccard index) of Algorithm 1's found patterns (K = the predicted pathway count) with the
  predicted ones;
* **gate changes**: the weighted share of units whose gate pattern at the end differs from
  their pattern at the predicted half-way time (the paper assumes gates fixed after an early
  alignment phase; a large share says that assumption fails on this task).

Unit gates: on where the pre-activation exceeds 1e-6 × the unit's largest |pre-activation|
(the xor suite's rule); gate changes compare the network's own activity (pre-activation > 0) at
both times, the rule of its recorded snapshots. ``html_dir`` gets ``validate.html`` (figures embedded), ``loss.png``,
``gates.png`` and ``validate.json``, written atomically; ``validate.json``'s ``validation.figure_data`` keeps
what the two figures draw, and :func:`~theorykit.analysis.predict_figure.redraw_validation` draws them again from it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from ..curves import curve_distance, max_gap
from ..errors import SpecError
from .findgates import find_gates, training_estimate
from ..io import atomic_write_text, counted, write_json, write_figure
from ..html import html_escape
from ..theory.gates import UnitGates, unit_gates, unit_weights
from ..spec.limits import Limits
from .compare import report_page
from .predict_figure import plot_validation, through_json, validation_figure_data

__all__ = ["Validation", "validate_prediction", "validation_estimate", "validation_limits"]

GATE_TOL = 1e-6


@dataclass
class Validation:
    t: np.ndarray
    relu_loss: np.ndarray        # seeds × T
    pred_loss: np.ndarray        # on t
    rms_gap: float
    max_gap: float
    weight_share: float
    jaccard: float
    found: list                  # [(pattern tuple, share)]
    gate_change_share: float
    seeds: int
    predicted: list
    top_unit_patterns: list      # [(pattern string, weight share)]
    notes: list = field(default_factory=list)
    prediction: object = field(default=None, repr=False, compare=False)   # the Prediction checked (its figures' titles)

    def summary(self, pred=None) -> dict:
        """A JSON-ready dict of the check: the seeds, the loss gaps over L(0), the weight share and the
        Jaccard overlap of the found and predicted patterns, and what its figures draw (``figure_data``, against
        ``pred``, default the prediction checked; None where neither is known)."""
        known = pred is not None or self.prediction is not None
        return {"seeds": self.seeds, "rms_gap_over_L0": self.rms_gap, "max_gap_over_L0": self.max_gap,
                "relu_weight_share_in_predicted_patterns": self.weight_share,
                "found_vs_predicted_jaccard": self.jaccard,
                "found_patterns": [{"active": list(p), "share": s} for p, s in self.found],
                "gate_change_share_after_t_half": self.gate_change_share,
                "top_relu_unit_patterns": [{"pattern": p, "weight_share": s} for p, s in self.top_unit_patterns],
                "notes": list(self.notes),      # a copy: a caller's changes never reach the Validation
                "figure_data": self.figure_data(pred) if known else None}

    def __repr__(self):     # one line, as a Prediction's (the dataclass's own printed every loss array)
        return (f"Validation({counted(self.seeds, 'ReLU network')}: RMS gap {self.rms_gap:.4f} L(0), weight in predicted "
                f"patterns {self.weight_share:.3f}, Jaccard {self.jaccard:.2f}; print(.text()) for the rest)")

    def text(self) -> str:
        """The check as lines of text (what ``theorykit predict --validate`` prints)."""
        return "\n".join([f"validation ({counted(self.seeds, 'ReLU network')}):",
                          f"  loss: RMS gap {self.rms_gap:.4f} L(0), largest gap {self.max_gap:.4f} L(0)",
                          f"  pathways: {self.weight_share:.3f} of the ReLU weight lies in predicted patterns; "
                          f"Algorithm 1 found {counted(len(self.found), 'pattern')}, Jaccard with the prediction {self.jaccard:.2f}",
                          f"  gates changing after the predicted half-way time: {self.gate_change_share:.3f} of the weight"]
                         + [f"  note: {n}" for n in self.notes])

    def figure_data(self, pred=None) -> dict:
        """What :meth:`figures` draws against the prediction ``pred`` (default: the one checked), JSON-ready
        (:func:`~theorykit.analysis.predict_figure.validation_figure_data`)."""
        return validation_figure_data(self, self._checked(pred))

    def figures(self, pred=None):
        """Matplotlib figures of the check against the prediction ``pred`` (default: the one checked): the loss
        curves, and the gates found beside the predicted ones; drawn from :meth:`figure_data` as a JSON file
        gives it back, by :func:`~theorykit.analysis.predict_figure.plot_validation`, as
        :func:`~theorykit.analysis.predict_figure.redraw_validation` draws them from ``validate.json``."""
        return plot_validation(through_json(self.figure_data(pred)))

    def _checked(self, pred):
        if pred is None and self.prediction is None:
            raise SpecError("pred", "this Validation does not know the prediction it checked",
                            "pass it: val.figures(pred), val.summary(pred)")
        return self.prediction if pred is None else pred


def _every(steps: int) -> int:
    """The steps between the validation's snapshots: about 100 of them."""
    return max(1, int(steps) // 100)


def validation_estimate(task, hidden: int, seeds: int, steps: int, fields=None):
    """The memory and time of :func:`validate_prediction`'s training (:func:`~theorykit.analysis.findgates.find_gates`
    with K given: ``seeds`` ReLU networks, no elbow), by find-gates' estimate
    (:func:`~theorykit.analysis.findgates.training_estimate`), before anything is predicted or trained."""
    return training_estimate(task, hidden=hidden, seeds=seeds, steps=steps, every=_every(steps), fields=fields)


def validation_limits() -> Limits:
    """The validation's size check from Python: the general limits (memory: half this machine's memory, or
    THEORYKIT_MAX_BYTES; time: 3600 s, or THEORYKIT_MAX_SECONDS). ``theorykit predict --validate`` passes its own
    instead, the one Limits of its ``--time-limit`` (60 s by default) that its task build and search obey too."""
    return Limits()


def validate_prediction(pred, task=None, seeds: int = 8, *, seed: int = 0, K: int | None = None,
                        html_dir=None, on_step=None, limits: Limits | None = None) -> Validation:
    """Train ReLU networks with the prediction's settings and compare (module docstring).
    ``on_step(done)``: called with the training's steps done, about 100 times, the last at the
    prediction's ``training.steps`` (the command line's bar; :func:`find_gates`'s). ``seeds`` networks whose
    estimated memory or time (:func:`validation_estimate`) is over ``limits`` (default :func:`validation_limits`;
    ``Limits(force=True)`` lifts the time limit, as in :func:`find_gates`) are refused before any training, naming
    ``seeds`` (or ``hidden``, ``steps``: the prediction's)."""
    task = pred.task if task is None else task
    tr = pred.training
    steps = int(tr.steps)
    every = _every(steps)
    K = len(pred.gates) if K is None else int(K)
    try:
        fg = find_gates(task, K=K, seeds=int(seeds), steps=steps, hidden=pred.hidden, lr=tr.lr, init_std=tr.init_std,
                        loss=tr.loss, every=every, seed=seed, on_step=on_step,
                        limits=validation_limits() if limits is None else limits)
    except SpecError as exc:
        if exc.field != "--K":
            raise
        raise SpecError("--validate", f"Algorithm 1 found no usable gate pattern in the {seeds} trained ReLU "
                                      f"network(s): {exc.problem}", "train more or wider networks (--seeds, --hidden), "
                                                                   "or leave out --validate") from None
    run = fg.run
    X, _ = task.numeric()
    L = np.asarray(run.loss, float)
    t = np.arange(L.shape[1], dtype=float)
    pl = np.interp(t, pred.t, pred.loss)
    L0 = float(L[:, 0].mean())
    mean = L.mean(axis=0)
    rms = float(curve_distance(pl, mean)) / L0
    mx = max_gap(pl, mean, L0)
    W1 = np.asarray(run.params[0], float)
    W2 = np.asarray(run.params[1], float)
    pre = np.einsum("shd,dp->shp", W1, X)                          # seeds × H × P
    G = unit_gates(pre, GATE_TOL)
    w = unit_weights(W1, W2)                                       # seeds × H
    predicted = {tuple(int(v) for v in g) for g in pred.gates}
    inpred = UnitGates(G).matches(pred.gates)                      # seeds × H
    share = float((w * inpred).sum() / w.sum()) if w.sum() > 0 else 0.0
    found = [(tuple(int(v) for v in p.active), p.hidden / fg.spec.hidden_total) for p in fg.spec.pathways]
    fset = {p for p, _ in found}
    jac = len(fset & predicted) / len(fset | predicted) if fset | predicted else 1.0
    # gate changes after the predicted half-way time (snapshots: seeds × ck × H × P, at run.t_ck[:-1])
    snaps = np.asarray(run.snapshots).astype(bool)
    th = pred.t_half if pred.t_half is not None else 0.0
    ck = np.asarray(run.t_ck)[:-1]
    j = min(int(np.searchsorted(ck, th)), snaps.shape[1] - 1)
    # the snapshots' own rule (pre > 0) at both ends: GATE_TOL would count a unit with a small positive
    # pre-activation as changed although its activity never changed
    active = pre > 0
    changed = np.any(snaps[:, j] != active, axis=-1)
    gchg = float((w * changed).sum() / w.sum()) if w.sum() > 0 else 0.0
    notes = [f"gate change measured between step {int(ck[j])} and the end ({steps})" if pred.t_half is not None else
             f"the predicted loss never falls to L(0)/2: gate change measured from the start (step {int(ck[j])}) to "
             f"the end ({steps})"]
    # top unit patterns by weight
    acc = {}
    for Gs, ws in zip(G, w):
        for u, wt in zip(Gs, ws):
            k = "".join(str(int(v)) for v in u)
            acc[k] = acc.get(k, 0.0) + float(wt)
    tot = sum(acc.values()) or 1.0
    tops = sorted(((k, v / tot) for k, v in acc.items()), key=lambda kv: -kv[1])[:20]
    val = Validation(t, L, pl, rms, mx, share, jac, found, gchg, int(seeds), [list(map(int, g)) for g in pred.gates],
                     tops, notes, prediction=pred)
    if html_dir is not None:
        write_validation(val, pred, html_dir)
    return val


def write_validation(val: Validation, pred, out_dir) -> list:
    """``validate.html`` (figures embedded), ``loss.png``, ``gates.png``, ``validate.json``, atomically."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary = val.summary(pred)
    f1, f2 = plot_validation(through_json(summary["figure_data"]))     # the numbers validate.json keeps
    paths = [write_figure(f1, out / "loss.png"), write_figure(f2, out / "gates.png"),
             write_json(out / "validate.json", {"prediction": pred.summary(), "validation": summary})]
    rows = [("RMS gap, predicted − mean ReLU loss, / L(0)", f"{val.rms_gap:.4f}"),
            ("largest gap / L(0)", f"{val.max_gap:.4f}"),
            ("ReLU weight in predicted patterns", f"{val.weight_share:.3f}"),
            ("Jaccard(found patterns, predicted patterns)", f"{val.jaccard:.2f}"),
            ("weight in units whose gates change after the predicted t½", f"{val.gate_change_share:.3f}")]
    figures = {out / "loss.png": "loss: ReLU networks (orange; mean thick) and the predicted ReLN's race (dashes); "
                                 "linear and log scale",
               out / "gates.png": "gates: predicted (left), the ReLU units' final patterns by weight share (middle), "
                                  "Algorithm 1's found pathways (right)"}
    H = ["<h2>Predicted pathways</h2><table><thead><tr><th>pathway</th><th>gates</th><th>hidden</th><th>a0</th>"
         "</tr></thead><tbody>"]
    H += [f"<tr><td>{n}</td><td><code>{g}</code></td><td>{h}</td><td>{a:.3g}</td></tr>" for n, g, h, a in pred.table_rows()]
    H.append("</tbody></table>")
    page = report_page("theorykit predict --validate", "Predicted ReLN against trained ReLU networks",
                       f"{counted(len(pred.gates), 'predicted pathway')}, H = {pred.hidden}; "
                       f"{counted(val.seeds, 'ReLU network')}; "
                       f"lr {pred.training.lr:g}, loss {html_escape(pred.training.loss)}, init_std "
                       f"{pred.training.init_std:g}; search: {html_escape(pred.search['covered'])}",
                       [(html_escape(a), b) for a, b in rows], val.notes, figures, H)
    paths.append(atomic_write_text(out / "validate.html", page))
    return paths
