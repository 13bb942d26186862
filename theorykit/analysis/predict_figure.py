"""The figure of a predicted ReLN, drawn from what its JSON keeps.

A :class:`~theorykit.analysis.predict.Prediction`'s summary (``predict --json``'s ``prediction``,
``validate.json`` of ``predict --validate --html``) holds ``figure_data``: the race's steps, the predicted
loss L(t)/L(0) and the runner-up families' curves the figure draws, and the datapoints per context its
gate panel marks (:func:`figure_data`; at most :data:`FIGURE_POINTS` steps, evenly spaced, the first and
the last kept). :func:`plot_prediction` draws the figure from that summary, as read from the file; a
live prediction's ``figure()`` draws through it too, and :func:`redraw_prediction` draws the figure
again from a saved file without predicting again: the two cannot drift.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..errors import SpecError
from ..io import figure_path, gate_groups, gate_image, json_text, subplots, write_figure

__all__ = ["FIGURE_POINTS", "RUNNERS_UP_DRAWN", "figure_data", "as_drawn", "plot_prediction", "redraw_prediction"]

#: the most steps a prediction's figure_data keeps (a race of 8000 steps records 8001: 6 curves of them
#: were 1.5 MB of JSON; 1001 points are more than the loss panel's pixels)
FIGURE_POINTS = 1001
#: the runner-up families whose curves the figure draws (and figure_data keeps) beside the prediction's
RUNNERS_UP_DRAWN = 4


def figure_data(t, loss, curves: dict, task) -> dict:
    """What the figure of a prediction draws, JSON-ready: ``t`` (the race's steps, at most
    :data:`FIGURE_POINTS` of them), ``predicted`` (the race's ``loss`` over its first value), ``runners_up``
    (label → L(t)/L(0) of the next :data:`RUNNERS_UP_DRAWN` families of ``curves``, whose first entry is the
    prediction's own) and ``gate_group`` (the datapoints per context of ``task``, :func:`~theorykit.io.gate_groups`)."""
    t, loss = np.asarray(t, float), np.asarray(loss, float)
    keep = np.unique(np.linspace(0, len(t) - 1, min(len(t), FIGURE_POINTS)).round().astype(int))
    runners = list(curves.items())[1:1 + RUNNERS_UP_DRAWN]
    return {"t": t[keep].tolist(), "predicted": (loss[keep] / loss[0]).tolist(),    # plain floats: json.dumps writes them
            "runners_up": {str(lab): np.asarray(c, float)[keep].tolist() for lab, c in runners},
            "gate_group": gate_groups(task),
            "note": f"L(t)/L(0) of the prediction and {RUNNERS_UP_DRAWN} runner-up families at {len(keep)} of the race's "
                    f"{len(t)} recorded steps (the figure's left panel); gate_group: datapoints per context"}


def as_drawn(summary: dict) -> dict:
    """The parts of a prediction's ``summary`` the figure reads, as a JSON file gives them back (lists of
    floats): a live prediction is drawn from the same numbers as its saved file."""
    return json.loads(json_text({k: summary[k] for k in ("pathways", "t_half", "figure_data")}))


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
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError("path", f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}", _GIVE) from None
    except (ValueError, RecursionError) as exc:
        raise SpecError("path", f"{path} is not JSON ({exc})", _GIVE) from None
    where = "prediction." if isinstance(data, dict) and isinstance(data.get("prediction"), dict) else ""
    pred = data["prediction"] if where else data
    if not isinstance(pred, dict) or not isinstance(pred.get("pathways"), list) or "t_half" not in pred:
        raise SpecError("path", f"{path} holds no prediction (no prediction.pathways or t_half)", _GIVE)
    if not isinstance(pred.get("figure_data"), dict):
        raise SpecError(f"{where}figure_data", f"{path} does not hold the figure's curves (written before they "
                                               "were kept)", _REDO)
    out = path.with_suffix(".png") if figure is None else Path(figure)
    return write_figure(plot_prediction(pred), out)
