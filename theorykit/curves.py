"""Curve metrics: what the suites measure on loss curves and on time series of a run.

* Speed of one curve: :func:`learning_time` (first time below a fraction of L(0), batched),
  :func:`loss_metrics` (times to several fractions, area, final value), :func:`loss_at_steps`,
  :func:`first_crossing`, :func:`level_times`.
* Curve against curve: :func:`curve_distance`, :func:`closest`, :func:`max_gap`,
  :func:`time_errors`, :func:`level_error`.
* Across a grid of a control parameter: :func:`switch_point` (where a share crosses a level).
* Fits: :func:`fit_log_scale` (one scale, e.g. a0, by bounded search) and :func:`best_grid_row`
  (the best row of a grid of candidates).
* Across runs: :func:`r2`, :func:`variance_explained`, :func:`stereotypical`,
  :func:`median_never_inf` (a median that counts "never" as +∞).
* :func:`nan_to_none`: NaN ("never") as JSON null.
"""
from __future__ import annotations

import math

import numpy as np

from .errors import SpecError

__all__ = ["learning_time", "curve_distance", "closest", "switch_point", "median_never_inf", "fit_log_scale",
           "nan_to_none", "loss_metrics", "loss_at_steps", "time_errors", "max_gap", "best_grid_row", "first_crossing",
           "r2", "variance_explained", "stereotypical", "level_times", "level_error"]


def learning_time(curves, frac: float = 0.5, initial=None, times=None) -> np.ndarray:
    """First time a loss curve reaches (≤) ``frac`` × its initial value, interpolated linearly.

    ``curves``: (..., T) losses at ``times`` (default 0, 1, …, T−1). ``initial`` overrides the
    initial value (default ``curves[..., 0]``). NaN where the curve never reaches the level.
    """
    c = _floats(curves, "curves", "give losses as an array (..., T), e.g. traj.loss")
    if c.ndim == 0:
        raise SpecError("curves", "is one number, not a curve", "give losses as an array (..., T), e.g. traj.loss")
    tt = np.arange(c.shape[-1], dtype=float) if times is None else \
        _floats(times, "times", "give one time per loss, e.g. traj.t")
    if tt.shape != (c.shape[-1],):      # an IndexError, or times read past the curve's own
        raise SpecError("times", f"{tt.size} times for curves of {c.shape[-1]} points (shape {c.shape})",
                        "give one time per point of the curves' last axis, e.g. traj.t")
    L0 = c[..., 0] if initial is None else np.broadcast_to(np.asarray(initial, dtype=float), c.shape[:-1])
    level = frac * L0
    below = c <= level[..., None]
    hit = below.any(axis=-1)
    k = np.argmax(below, axis=-1)
    # between the point before the first one at or below the level (j − 1) and that one (j); the first
    # point itself where it is below already (k = 0), NaN where none is
    j = np.minimum(np.maximum(k, 1), c.shape[-1] - 1)[..., None]
    y0, y1 = np.take_along_axis(c, j - 1, -1)[..., 0], np.take_along_axis(c, j, -1)[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(y0 != y1, (y0 - level) / (y0 - y1), 1.0)
    t0, t1 = tt[j[..., 0] - 1], tt[j[..., 0]]
    return np.where(hit, np.where(k == 0, tt[0], t0 + w * (t1 - t0)), np.nan)


def curve_distance(a, b) -> np.ndarray:
    """RMS distance between loss curves over the run (last axis), broadcasting."""
    a, b = _floats(a, "a", "give losses as an array (..., T)"), _floats(b, "b", "give losses as an array (..., T)")
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:                  # numpy's "operands could not be broadcast together"
        raise SpecError("b", f"shape {b.shape} does not match the curve a of shape {a.shape}",
                        "compare curves recorded at the same times (interpolate one: np.interp)") from None
    return np.sqrt(np.mean((a - b) ** 2, axis=-1))


def _floats(x, field: str, fix: str) -> np.ndarray:
    """``x`` as a float array, else a SpecError naming ``field`` (numpy's "could not convert string")."""
    try:
        return np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise SpecError(field, f"cannot be read as numbers ({exc})", fix) from None


def closest(curve, candidates: dict) -> tuple[str, dict]:
    """Name of the candidate curve closest to ``curve`` (RMS over the run) and all distances."""
    dists = {k: float(curve_distance(curve, v)) for k, v in candidates.items()}
    return min(dists, key=dists.get), dists


def switch_point(x, y, level: float = 0.5):
    """Where ``y`` (low on the left, high on the right) crosses ``level``: a step-function fit.

    The split k (left: ``y ≤ level``, right: ``y > level``) with the fewest misclassified points is
    chosen, and the crossing is interpolated linearly between x[k−1] and x[k]. Ties are averaged.
    Returns ``(value, info)``: value is None when y never crosses (all on one side); info gives
    the number of misclassified points and whether y crosses the level exactly once.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(y)
    x, y = x[ok], y[ok]
    n = x.size
    above = y > level
    info = {"misclassified": None, "single_crossing": None, "n_points": int(n)}
    if n < 2 or above.all() or not above.any():
        return None, info
    errs = np.array([above[:k].sum() + (~above[k:]).sum() for k in range(n + 1)])
    best = np.flatnonzero(errs == errs.min())
    best = best[(best > 0) & (best < n)]
    if best.size == 0:
        return None, info
    vals = []
    for k in best:
        y0, y1 = y[k - 1], y[k]
        w = 0.5 if y1 == y0 else float(np.clip((level - y0) / (y1 - y0), 0.0, 1.0))
        vals.append(x[k - 1] + w * (x[k] - x[k - 1]))
    info["misclassified"] = int(errs.min())
    info["single_crossing"] = bool(np.count_nonzero(np.diff(above.astype(int))) == 1)
    return float(np.mean(vals)), info


def median_never_inf(lt):
    """Median over seeds (axis 1) counting 'never' (NaN) as +∞; NaN if the median is never."""
    m = np.median(np.where(np.isfinite(lt), lt, np.inf), axis=1)
    return np.where(np.isfinite(m), m, np.nan)


def fit_log_scale(curve_fn, target, lo=1e-7, hi=0.3):
    """The scale a (e.g. a0) in [lo, hi] whose ``curve_fn(a)`` is closest to ``target`` (RMS; bounded
    search on log10 a). Returns (a, RMS distance)."""
    from scipy.optimize import minimize_scalar

    def obj(la):
        return float(curve_distance(curve_fn(10.0 ** la), target))

    res = minimize_scalar(obj, bounds=(math.log10(lo), math.log10(hi)), method="bounded",
                          options={"xatol": 1e-4})
    return 10.0 ** res.x, res.fun


def nan_to_none(x):
    """``x`` (dicts, lists, arrays) with every non-finite float as None (JSON null); arrays become lists."""
    if isinstance(x, dict):
        return {k: nan_to_none(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [nan_to_none(v) for v in x]
    if isinstance(x, np.ndarray):
        return nan_to_none(x.tolist())
    if isinstance(x, (float, np.floating)) and not math.isfinite(float(x)):
        return None
    return x


def loss_metrics(t: np.ndarray, loss: np.ndarray, fractions=(0.5, 0.1, 0.01)) -> dict:
    """Speed of a loss curve: times to reach fractions of L(0), normalised area, final value.

    Times as :func:`learning_time` gives them (linearly interpolated); ``None`` when never reached.
    """
    t = _floats(t, "t", "give the curve's times, e.g. traj.t")
    loss = _floats(loss, "loss", "give one loss curve, e.g. traj.mean")
    if t.ndim != 1 or t.shape != loss.shape:        # numpy's broadcast error from trapezoid
        raise SpecError("loss", f"shape {loss.shape} does not match the times t of shape {t.shape}",
                        "give one curve and its times, both 1-d of one length (e.g. traj.t, traj.mean)")
    L0 = float(loss[0])
    out = {"L0": L0, "final_fraction": float(loss[-1] / L0),
           "area": float(np.trapezoid(loss / L0, t) / (t[-1] - t[0]))}
    for f in fractions:
        tf = float(learning_time(loss, f, times=t))
        out[f"t_{f:g}"] = None if np.isnan(tf) else tf
    return out


def loss_at_steps(curve_t, curve, steps) -> dict:
    """The curve at the given steps, {step: loss} (linear interpolation)."""
    return {int(s): float(np.interp(s, curve_t, curve)) for s in steps}


def time_errors(t, sim, theory, fractions=(0.5, 0.1, 0.01)) -> dict:
    """Times to reach each fraction of L(0) (:func:`loss_metrics`) of a simulated and a predicted curve, and
    the prediction's error in steps and relative to the simulation (None where either never gets there)."""
    ms, mt = loss_metrics(t, sim, fractions), loss_metrics(t, theory, fractions)
    out = {}
    for f in fractions:
        a, b = ms[f"t_{f:g}"], mt[f"t_{f:g}"]
        out[f"{f:g}"] = {"simulation": a, "theory": b,
                         "error_steps": None if a is None or b is None else b - a,
                         "relative_error": None if a is None or b is None or a == 0 else (b - a) / a}
    return out


def max_gap(a, b, L0) -> float:
    """Largest |a − b| over ``L0``."""
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))) / L0)


def best_grid_row(predict_batch, A, ref, L0):
    """Best row of a parameter grid ``A`` (e.g. a0 values): the one whose predicted curve has the smallest
    largest error against ``ref``, over ``L0``. ``predict_batch(A)`` → batch × T. Returns (row, error, curve)."""
    curves = predict_batch(A)
    errs = np.max(np.abs(curves - ref[None]), axis=1) / L0
    i = int(np.argmin(errs))
    return A[i], float(errs[i]), curves[i]


def first_crossing(t, x, level):
    """First time at which x ≥ level (NaN if never)."""
    idx = np.nonzero(np.asarray(x) >= level)[0]
    return float(t[idx[0]]) if idx.size else float("nan")


def r2(y, X):
    """R² of a least-squares fit of y on the columns of X (with intercept)."""
    y = np.asarray(y, float)
    A = np.column_stack([np.ones(len(y)), np.asarray(X, float).reshape(len(y), -1)])
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    ss = np.sum((y - y.mean()) ** 2)
    return float(1 - np.sum((y - A @ coef) ** 2) / ss) if ss > 0 else float("nan")


def variance_explained(loss_ck, regressors):
    """Per-checkpoint R² of the loss across runs on the regressors; variance-weighted summary."""
    var = loss_ck.var(axis=0)
    r2s = np.array([r2(loss_ck[:, i], regressors) if var[i] > 0 else np.nan for i in range(loss_ck.shape[1])])
    ok = np.isfinite(r2s)
    weighted = float(np.sum(var[ok] * r2s[ok]) / np.sum(var[ok])) if ok.any() else float("nan")
    imax = int(np.argmax(var))
    return r2s, weighted, imax


def stereotypical(loss):
    """Index of the run closest to the mean curve (RMS distance in log loss)."""
    lg = np.log(np.maximum(loss, 1e-300))
    return int(np.argmin(curve_distance(lg, lg.mean(0))))


def level_times(t, L0, curves, levels=(0.5, 0.25, 0.1, 0.05)):
    """For each level ℓ (share of L(0)): the first checkpoint each curve reaches ℓ·L(0); for a set
    of runs (rows), the median over the runs, a run that never reaches it counted as +∞ (NaN when
    that median is never), as :func:`median_never_inf`."""
    out = {}
    for lv in levels:
        row = {}
        for name, C in curves.items():
            ts = np.array([first_crossing(t, -c, -lv * L0) for c in np.atleast_2d(C)])
            row[name] = float(median_never_inf(ts[None])[0])
        out[f"{lv:.0%}"] = row
    return out


def level_error(levels, against, of: str = "gdln_flow"):
    """Largest relative error of the crossing times of curve ``of`` against ``against`` (inf if one of
    them never crosses a level the other reaches)."""
    errs = []
    for v in levels.values():
        a, b = v[of], v[against]
        if np.isfinite(a) and np.isfinite(b):
            errs.append(abs(a - b) / max(b, 1.0))
        elif np.isfinite(a) != np.isfinite(b):
            errs.append(np.inf)
    return float(max(errs)) if errs else float("nan")
