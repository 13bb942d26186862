"""The figure of a predicted ReLN, drawn from what its JSON keeps.

A :class:`~theorykit.analysis.predict.Prediction`'s summary (``predict --json``'s ``prediction``,
``validate.json`` of ``predict --validate --html``) holds ``figure_data``: the race's steps, the predicted
loss L(t)/L(0) and the runner-up families' curves the figure draws, and the datapoints per context its
gate panel marks (:func:`figure_data`; at most :data:`FIGURE_POINTS` steps, evenly spaced, the first and
the last kept). :func:`plot_prediction` draws the figure from that summary, as read from the file; a
live prediction's ``figure()`` draws through it too, and :func:`redraw_prediction` draws the figure
again from a saved file without predicting again: the two cannot drift.

The same holds for the two figures of ``predict --validate`` (``loss.png``, ``gates.png``): a
:class:`~theorykit.analysis.predict_validate.Validation`'s summary (``validate.json``'s ``validation``)
holds their ``figure_data`` (:func:`validation_figure_data`: the ReLU networks' loss curves, their mean
and the predicted race over L(0), capped as above by :func:`kept_steps`, and the gate panels' rows);
:func:`plot_validation` draws them for ``Validation.figures`` and for :func:`redraw_validation`, which
reads ``validate.json`` and trains nothing.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..errors import SpecError
from ..io import (counted, figure_path, gate_groups, gate_image, gate_share_labels, json_text, plot_text, read_json,
                  subplots, write_figure)

__all__ = ["FIGURE_POINTS", "RUNNERS_UP_DRAWN", "UNIT_PATTERNS_DRAWN", "kept_steps", "figure_data", "as_drawn",
           "through_json", "plot_prediction", "redraw_prediction", "task_words", "validation_figure_data",
           "plot_validation", "redraw_validation"]

#: the most steps a prediction's figure_data keeps (a race of 8000 steps records 8001: 6 curves of them
#: were 1.5 MB of JSON; 1001 points are more than the loss panel's pixels)
FIGURE_POINTS = 1001
#: the runner-up families whose curves the figure draws (and figure_data keeps) beside the prediction's
RUNNERS_UP_DRAWN = 4


def kept_steps(n: int) -> np.ndarray:
    """The indices of a curve of ``n`` recorded steps that a figure's data keeps: all of them up to
    :data:`FIGURE_POINTS`, else that many, evenly spaced, the first and the last kept (the one capping of
    the prediction's and the validation's ``figure_data``)."""
    return np.unique(np.linspace(0, n - 1, min(n, FIGURE_POINTS)).round().astype(int))


def figure_data(t, loss, curves: dict, task) -> dict:
    """What the figure of a prediction draws, JSON-ready: ``t`` (the race's steps, at most
    :data:`FIGURE_POINTS` of them), ``predicted`` (the race's ``loss`` over its first value), ``runners_up``
    (label → L(t)/L(0) of the next :data:`RUNNERS_UP_DRAWN` families of ``curves``, whose first entry is the
    prediction's own) and ``gate_group`` (the datapoints per context of ``task``, :func:`~theorykit.io.gate_groups`)."""
    t, loss = np.asarray(t, float), np.asarray(loss, float)
    keep = kept_steps(len(t))
    runners = list(curves.items())[1:1 + RUNNERS_UP_DRAWN]
    return {"t": t[keep].tolist(), "predicted": (loss[keep] / loss[0]).tolist(),    # plain floats: json.dumps writes them
            "runners_up": {str(lab): np.asarray(c, float)[keep].tolist() for lab, c in runners},
            "gate_group": gate_groups(task),
            "note": f"L(t)/L(0) of the prediction and {RUNNERS_UP_DRAWN} runner-up families at {len(keep)} of the race's "
                    f"{len(t)} recorded steps (the figure's left panel); gate_group: datapoints per context"}


def as_drawn(summary: dict) -> dict:
    """The parts of a prediction's ``summary`` the figure reads, as a JSON file gives them back (lists of
    floats): a live prediction is drawn from the same numbers as its saved file."""
    return through_json({k: summary[k] for k in ("pathways", "t_half", "figure_data")})


def through_json(data):
    """``data`` as a JSON file gives it back (lists of plain floats): a live figure is drawn from the same
    numbers as its saved file."""
    return json.loads(json_text(data))


def plot_prediction(data: dict):
    """The figure of a prediction's summary ``data`` (a dict as read from its JSON): left, the predicted
    loss L(t)/L(0) and the runner-up families' (``figure_data``), the half-way step marked; right, the
    predicted pathways' gate patterns (``pathways``). Returns the matplotlib figure."""
    fd = data["figure_data"]
    t = np.asarray(fd["t"], dtype=float)
    fig, (a1, a2) = subplots(1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [1.4, 1]})
    a1.plot(t, np.asarray(fd["predicted"], dtype=float), "k", lw=2, label="predicted ReLN (race)")
    for lab, c in fd["runners_up"].items():
        a1.plot(t, np.asarray(c, dtype=float), lw=1, ls="--", label=f"runner-up: orbits {lab}")
    if data["t_half"] is not None:
        a1.axvline(data["t_half"], color="0.6", lw=0.8, label=f"half-way, step {data['t_half']:.0f}")
    a1.set_xlabel("gradient step")
    a1.set_ylabel("L(t) / L(0)")
    a1.legend(fontsize=7)
    a1.set_title("predicted loss")
    gates = [p["active"] for p in data["pathways"]]
    gate_image(a2, gates, len(gates[0]), [f"{p['name']} ({p['hidden']})" for p in data["pathways"]],
               label_size=7, group=fd["gate_group"])
    a2.set_ylabel("pathway (hidden units)")
    a2.set_title("predicted gates (black = on)")
    fig.tight_layout()
    return fig


#: how to make a JSON that holds its figure's data (the command, run again)
_REDO = ("run theorykit predict again with this theorykit (--json PRED.json, or --validate --html DIR for "
         "validate.json), or in Python write pred.summary(): the prediction then keeps its figure's curves")
_GIVE = "give the JSON that theorykit predict --json (or --validate --html: validate.json) wrote"


def redraw_prediction(path, figure=None) -> Path:
    """Draw a prediction's figure again from a saved JSON (``path``: ``predict --json``'s, ``validate.json``,
    or a written ``Prediction.summary()``), without predicting: the same drawing as ``Prediction.figure()``
    (:func:`plot_prediction`), into ``figure`` (default: the .png beside the JSON). Returns the figure's path.
    A JSON without ``figure_data`` (written before it was kept) is refused, naming it and the fix."""
    path = Path(path)
    if figure is not None:
        figure_path(figure, "figure")
    data = read_json(path, _GIVE)
    where = "prediction." if isinstance(data, dict) and isinstance(data.get("prediction"), dict) else ""
    pred = data["prediction"] if where else data
    if not isinstance(pred, dict) or not isinstance(pred.get("pathways"), list) or "t_half" not in pred:
        raise SpecError("path", f"{path} holds no prediction (no prediction.pathways or t_half)", _GIVE)
    if not isinstance(pred.get("figure_data"), dict):
        raise SpecError(f"{where}figure_data", f"{path} does not hold the figure's curves (written before they "
                                               "were kept)", _REDO)
    out = path.with_suffix(".png") if figure is None else Path(figure)
    return write_figure(plot_prediction(pred), out)


#: the ReLU units' top patterns the validation's gate figure draws (validate.json's top_relu_unit_patterns keeps 20)
UNIT_PATTERNS_DRAWN = 12


def task_words(task, P: int) -> str:
    """The task in a figure's title: "contexts(8, 3), 24 datapoints", "xor-margin, 4 datapoints", "your data,
    8 datapoints" (a task from a spec file's tables is named "custom")."""
    name, meta = getattr(task, "name", "custom"), getattr(task, "meta", None) or {}
    if name == "contexts" and "n" in meta and "k" in meta:
        name = f"contexts({meta['n']}, {meta['k']})"
    elif name == "custom":
        name = "your data"
    return f"{name}, {counted(P, 'datapoint')}"


def validation_figure_data(val, pred) -> dict:
    """What the figures of a :class:`~theorykit.analysis.predict_validate.Validation` ``val`` against the
    prediction ``pred`` draw, JSON-ready: ``t`` (the training's steps, at most :data:`FIGURE_POINTS`, by
    :func:`kept_steps`), ``L0`` (the networks' mean start), ``relu`` (each network's loss over ``L0``),
    ``relu_mean`` (their mean over ``L0``), ``predicted`` (the race's loss on ``t`` over ``L0``), the title's
    words (``task``, ``hidden``, ``lr``, ``loss``, ``seeds``, ``rms_gap``) and the gate panels' rows
    (``predicted_gates``; ``relu_units`` and ``found``: pattern and weight share) with ``gate_group``."""
    L = np.asarray(val.relu_loss, float)
    keep = kept_steps(L.shape[1])
    L0 = float(L[:, 0].mean())
    tr = getattr(pred, "training", None)
    tops = val.top_unit_patterns[:UNIT_PATTERNS_DRAWN]
    return {"t": np.asarray(val.t, float)[keep].tolist(), "L0": L0, "relu": (L[:, keep] / L0).tolist(),
            "relu_mean": (L.mean(axis=0)[keep] / L0).tolist(),
            "predicted": (np.asarray(val.pred_loss, float)[keep] / L0).tolist(),
            "task": task_words(pred.task, getattr(pred.task, "P", len(val.predicted[0]))), "hidden": int(pred.hidden),
            "lr": None if tr is None else float(tr.lr), "loss": None if tr is None else str(tr.loss),
            "seeds": int(val.seeds), "rms_gap": float(val.rms_gap),
            "predicted_gates": [[int(v) for v in g] for g in val.predicted],
            "relu_units": [{"active": [int(ch) for ch in p], "share": float(s)} for p, s in tops],
            "found": [{"active": [int(v) for v in p], "share": float(s)} for p, s in val.found],
            "gate_group": gate_groups(pred.task),
            "note": f"losses over L0 (the networks' mean start) at {len(keep)} of the training's {L.shape[1]} steps "
                    f"(the loss figure, both panels); the gate figure's rows: predicted, the ReLU units' top "
                    f"{UNIT_PATTERNS_DRAWN} patterns and Algorithm 1's found ones, with their weight shares"}


def plot_validation(fd: dict):
    """The two figures of a validation's ``figure_data`` ``fd`` (a dict as read from its JSON): the loss
    (each ReLU network thin, their mean thick, the predicted race dashed; linear and log scale) and the gates
    (predicted, the ReLU units' top patterns, Algorithm 1's found ones). Returns (loss figure, gates figure)."""
    t = np.asarray(fd["t"], dtype=float)
    f1, ax = subplots(1, 2, figsize=(10, 3.9))
    for a, log in zip(ax, (False, True)):
        for i, c in enumerate(fd["relu"]):
            a.plot(t, np.asarray(c, dtype=float), color="tab:orange", lw=0.5, alpha=0.5,
                   label="each ReLU network" if i == 0 else None)
        a.plot(t, np.asarray(fd["relu_mean"], dtype=float), color="tab:orange", lw=2, label="ReLU networks (mean)")
        a.plot(t, np.asarray(fd["predicted"], dtype=float), "k--", lw=2, label="predicted ReLN (race)")
        a.set_xlabel("gradient step")
        a.set_ylabel("L / L(0)  (L(0): the networks' mean start)", fontsize=8)
        a.set_title("log scale" if log else "linear scale", fontsize=9)
        if log:
            a.set_yscale("log")
    ax[0].legend(fontsize=8)
    how = "" if fd["lr"] is None else f", η = {fd['lr']:g}, {fd['loss']} loss"
    f1.suptitle(f"{plot_text(fd['task'])}: predicted ReLN vs {counted(fd['seeds'], 'ReLU network')} (H = {fd['hidden']}"
                f"{how}); RMS gap {fd['rms_gap']:.3f} L(0)", fontsize=10)
    f1.tight_layout()
    predicted = fd["predicted_gates"]
    f2, ax = subplots(1, 3, figsize=(12.5, 3.6))
    rows = lambda key: ([r["active"] for r in fd[key]], gate_share_labels([r["share"] for r in fd[key]]))
    panels = [(predicted, [f"p{j + 1}" for j in range(len(predicted))], "predicted gates (pathways)", "pathway"),
              (*rows("relu_units"), "ReLU units: top patterns", "rank: share of the network's weight"),
              (*rows("found"), "found gates (Algorithm 1)", "rank: share of the network's weight")]
    for i, (a, (gates, labels, title, ylabel)) in enumerate(zip(ax, panels)):
        gate_image(a, gates, len(predicted[0]), labels, label_size=7, group=fd["gate_group"], key=i == len(panels) - 1)
        a.set_ylabel(ylabel, fontsize=8)
        a.set_title(f"{title} (black = on)", fontsize=9)
    f2.tight_layout()
    return f1, f2


_REDO_VAL = ("run theorykit predict SPEC --hidden H --validate --html DIR again with this theorykit (or in Python "
             "write val.summary() of validate_prediction's result): the validation then keeps its figures' data")
_GIVE_VAL = "give the validate.json that theorykit predict --validate --html DIR wrote"


def redraw_validation(path, loss=None, gates=None) -> tuple:
    """Draw a validation's two figures again from a saved JSON (``path``: ``validate.json`` of ``predict
    --validate --html DIR``, or a written ``Validation.summary()``), without training or predicting: the same
    drawing as ``Validation.figures`` (:func:`plot_validation`), into ``loss`` and ``gates`` (default:
    ``loss.png`` and ``gates.png`` beside the JSON, the names the command writes). Returns the two paths.
    A JSON without ``figure_data`` (written before it was kept) is refused, naming it and the fix."""
    path = Path(path)
    for value, name in ((loss, "loss"), (gates, "gates")):
        if value is not None:
            figure_path(value, name)
    data = read_json(path, _GIVE_VAL)
    where = "validation." if isinstance(data, dict) and isinstance(data.get("validation"), dict) else ""
    val = data["validation"] if where else data
    if not isinstance(val, dict) or "rms_gap_over_L0" not in val:
        raise SpecError("path", f"{path} holds no validation (no validation.rms_gap_over_L0)", _GIVE_VAL)
    if not isinstance(val.get("figure_data"), dict):
        raise SpecError(f"{where}figure_data", f"{path} does not hold the figures' curves and gates (written before "
                                               "they were kept)", _REDO_VAL)
    f1, f2 = plot_validation(val["figure_data"])
    out1 = path.parent / "loss.png" if loss is None else Path(loss)
    out2 = path.parent / "gates.png" if gates is None else Path(gates)
    return write_figure(f1, out1), write_figure(f2, out2)
