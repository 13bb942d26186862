"""Numeric linear algebra with theorykit's conventions (a base module: numpy and theorykit.errors only)."""
from __future__ import annotations

import numpy as np

from .errors import SpecError

__all__ = ["numeric_svd", "data_scale", "unit_columns", "correlation", "correlation_rank", "data_pair"]


def data_pair(X, Y, field: str = "X, Y", fix: str = "give 2-D data with datapoints as columns") -> tuple:
    """``(X, Y)`` as float arrays, refused naming ``field`` (with ``fix``) unless they are d × P and p × P with
    one P: the one check of every entry that takes data (``RaceSystem.from_data``, ``data_symmetries``,
    ``simulate((X, Y), ...)``); an IndexError of ``X.shape[1]`` before."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[1] != Y.shape[1]:
        raise SpecError(field, f"X {X.shape} and Y {Y.shape} are not d × P and p × P with one P", fix)
    return X, Y


def data_scale(X, Y) -> float:
    """‖Y‖_F ‖X‖_F / P: a bound on the norm of every gated Σyx = Y diag(g) Xᵀ / P of the data, the
    scale against which a singular value is told from rounding noise (tiny data keep their modes)."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    return float(np.linalg.norm(Y) * np.linalg.norm(X) / max(X.shape[1], 1))


def numeric_svd(M: np.ndarray, tol: float = 1e-12, scale: float | None = None):
    """numpy SVD with theorykit's conventions (descending, first non-zero of v positive, rank-trimmed:
    singular values up to ``tol · scale`` are dropped; ``scale`` defaults to max(1, the largest one),
    give :func:`data_scale` for a Σyx of data far below 1)."""
    U, s, Vt = np.linalg.svd(np.asarray(M, dtype=float), full_matrices=False)
    keep = s > tol * (max(1.0, s[0] if s.size else 1.0) if scale is None else scale)
    U, s, V = U[:, keep], s[keep], Vt[keep].T
    big = np.abs(V) > 1e-9          # a pair is flipped where the first entry of v above 1e-9 is negative
    sign = np.where((big & (np.cumsum(big, axis=0) == 1) & (V < 0)).any(axis=0), -1.0, 1.0)
    return U * sign, s, V * sign


def unit_columns(X) -> np.ndarray:
    """The datapoints (columns) scaled to unit length; a zero one stays zero. Gate-pattern LPs ask for
    signs of w·x_μ (and equalities datapoint by datapoint), which this keeps; an LP solver drops
    constraint entries below about 1e-9 (HiGHS's ``small_matrix_value``), so data of that scale lost
    every constraint."""
    X = np.asarray(X, float)
    n = np.linalg.norm(X, axis=0)
    return X / np.where(n > 0, n, 1.0)


def correlation(X, Y, gate=None) -> np.ndarray:
    """The input-output correlation Σyx = Y diag(g) Xᵀ / P of numeric data (X: d × P, Y: p × P);
    ``gate``: the P gate values of a pathway (all on by default)."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    if gate is not None:
        Y = Y * np.asarray(gate, float)[None, :]
    return Y @ X.T / max(X.shape[1], 1)


def correlation_rank(X, Y, rel_tol: float = 1e-9) -> int:
    """The rank r of the full Σyx, at least 1: its singular values above ``rel_tol`` × the largest.
    The aligned start of a graph with shared edges holds r dimensions per node, and the race of that
    graph runs at width r: both read r here, so they cannot disagree."""
    s = np.linalg.svd(correlation(X, Y), compute_uv=False)
    return max(1, int(np.sum(s > rel_tol * max(s[0] if s.size else 0.0, 1e-300))))
