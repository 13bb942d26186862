"""One way to do each thing, in the script packages validation/ and derivations/ (the refactor issue).

1. depth's ``shared_first_flow`` ran its race at a width r of its own rule (singular values above ``tol`` × the
   largest, with a ``tol`` of its own), while the aligned start it starts from reads r by
   :func:`theorykit.linalg.correlation_rank`: data with no input-output correlation gave r = 0 and a
   SpecError about an internal node's width. It now reads r by the one rule.
2. A hidden unit's weight ‖w_in‖·‖w_out‖ is :func:`theorykit.theory.gates.unit_weights`; the xor and lemmas
   suites computed it themselves (xor with |w_out| summed, the same number for its one output).
3. gates' ``_label`` reads a pattern by the one unit-gate classifier (:class:`theorykit.theory.gates.UnitGates`).
4. The text of a JSON result is made in one place, :func:`theorykit.io.json_text` (write_json, the suites'
   runner and the command line wrote ``json.dumps(jsonable(obj), indent=2) + "\\n"`` each).
"""
from __future__ import annotations

import ast
import itertools
import json
import types
from pathlib import Path

import numpy as np
import pytest

from theorykit import io
from theorykit.suites import load_package, load_suite

VALIDATION = Path(load_package("validation").__file__).resolve().parent


@pytest.fixture(scope="module")
def depth():
    return load_suite("depth")


def test_shared_first_flow_runs_on_data_with_no_correlation(depth):
    """Y = 0: Σyx = 0, rank 0, and the flow runs at width 1 (correlation_rank's "at least 1"). Before: r = 0
    and "nodes['shared'].width: 0 is out of range". The start is small and aligned, each pathway of strength
    a0 (spectral norm a0), so by hand L(0) = (1/2P) Σ_μ ‖Σ_p g_pμ W_p x_μ‖² ≤ ½ (K a0)² max_μ ‖x_μ‖²; with
    nothing to learn the loss only falls."""
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(3, 4)), np.zeros((2, 4))
    G = np.array([[1, 1, 1, 1], [1, 1, 0, 0]], float)
    a0 = 1e-3
    L = depth.shared_first_flow(X, Y, G, a0=a0, lr=0.1, loss="mean", times=[0.0, 1.0, 2.0])
    assert L.shape == (3,) and np.all(np.isfinite(L))
    bound = 0.5 * (len(G) * a0) ** 2 * np.max(np.sum(X * X, axis=0))
    assert 0.0 < L[0] <= bound
    assert np.all(np.diff(L) <= 0.0)


def test_shared_first_flow_reads_its_width_by_the_aligned_starts_rule(depth, monkeypatch):
    """The race width r comes from theorykit.linalg.correlation_rank, the function the aligned start
    (theorykit.net.starts.aligned_net_params) reads r by: one rule, so the two cannot disagree (before, a
    ``tol`` of shared_first_flow's own decided it)."""
    import theorykit.linalg as linalg

    calls = []

    def spy(X, Y, *a, **k):
        calls.append((np.shape(X), np.shape(Y), a, k))
        return linalg.correlation_rank(X, Y, *a, **k)

    monkeypatch.setattr(depth, "correlation_rank", spy)
    X = np.eye(3)
    Y = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
    L = depth.shared_first_flow(X, Y, np.ones((1, 3)), a0=1e-3, lr=0.5, loss="mean", times=[0.0, 1.0])
    assert calls == [((3, 3), (2, 3), (), {})]
    # by hand: L(0) = ½ tr Σy − (small start) ≈ ½ (1 + 4)/3 = 5/6, to within the start's strength
    assert abs(L[0] - 5 / 6) < 1e-2
