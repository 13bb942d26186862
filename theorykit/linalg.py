"""Numeric linear algebra with theorykit's conventions (a base module: numpy only)."""
from __future__ import annotations

import numpy as np

__all__ = ["numeric_svd"]


def numeric_svd(M: np.ndarray, tol: float = 1e-12):
    """numpy SVD with theorykit's conventions (descending, first non-zero of v positive, rank-trimmed)."""
    U, s, Vt = np.linalg.svd(np.asarray(M, dtype=float), full_matrices=False)
    keep = s > tol * max(1.0, s[0] if s.size else 1.0)
    U, s, V = U[:, keep], s[keep], Vt[keep].T
    for a in range(s.size):
        i = np.flatnonzero(np.abs(V[:, a]) > 1e-9)
        if i.size and V[i[0], a] < 0:
            U[:, a] *= -1
            V[:, a] *= -1
    return U, s, V
