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
    # exactly: Σyx = Y/3 has modes s = 2/3, 1/3 with d = vᵀ(I/3)v = 1/3 each; the aligned start puts the map at
    # a0·U Vᵀ (W3 W2 W1 = c³ Q V_rᵀ, Q = U, √K c³ = a0 with K = 1), every mode at a0, so L(0) = 5/6 − Σ (s a0 − ½ d a0²)
    # = 5/6 − 1e-3 + 1e-6/3 (1e-2 above passed a start 10 times too strong, or none)
    assert L[0] == pytest.approx(5 / 6 - 1e-3 + 1e-6 / 3, rel=1e-12)


def _names_in(path: Path, attr: str) -> list:
    """Calls ``….norm(<Name>…)`` in ``path`` whose first argument is (a subscript of) a weight ``W…``."""
    out = []
    for n in ast.walk(ast.parse(path.read_text())):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == attr and n.args:
            a = n.args[0]
            a = a.value if isinstance(a, ast.Subscript) else a
            if isinstance(a, ast.Name) and a.id.startswith("W1"):
                out.append(f"{path.name}:{n.lineno}")
    return out


def test_the_scripts_take_a_units_weight_from_unit_weights():
    """No suite computes ‖W1_j‖ for a unit's weight itself (xor.py and lemmas.py did, beside
    theorykit.theory.gates.unit_weights); both import unit_weights."""
    assert [hit for p in sorted(VALIDATION.glob("*.py")) for hit in _names_in(p, "norm")] == []
    for name in ("xor.py", "lemmas.py"):
        assert "unit_weights" in (VALIDATION / name).read_text(), name


def test_lemmas_census_weighs_units_by_hand(monkeypatch):
    """The census's weighted shares on a run made by hand (``simulate`` replaced): 100 always-on units of
    weight 1·3, 100 on for context 1 only of weight 1·1, the other 500 silent of weight 0 (w_out = 0).
    By hand: always-on 300/400 = 0.75, context-only 100/400 = 0.25, every other class 0; the unweighted
    shares 100/700, 100/700 and 500/700."""
    lemmas = load_suite("lemmas")
    import theorykit as tk

    X, Y = tk.contexts(8, 3, blocks=["hierarchy", "ring", "cross"]).numeric()
    H, P = 700, X.shape[1]
    gates = np.zeros((1, H, P), bool)
    gates[0, :100] = True
    gates[0, 100:200, :8] = True
    W1 = np.zeros((1, H, X.shape[0]))
    W1[0, :, 0] = 1.0
    W2 = np.zeros((1, Y.shape[0], H))
    W2[0, 0, :100], W2[0, 0, 100:200] = 3.0, 1.0
    fake = types.SimpleNamespace(extra={"gates": [gates], "snapshots": gates[:, None]}, params=(W1, W2),
                                 loss=np.ones((1, 2)))
    monkeypatch.setattr(lemmas, "simulate", lambda *a, **k: fake)
    cen = lemmas._census(1, progress=False)
    want = {c: 0.0 for c in cen["weighted_shares"]}
    want.update({"always-on": 0.75, "context-only": 0.25})
    assert cen["weighted_shares"] == want
    assert cen["shares"]["always-on"] == cen["shares"]["context-only"] == 100 / 700
    assert cen["shares"]["dead"] == 500 / 700


def _label_by_hand(pattern, n, k):
    """gates._label's rule, written out: 'mixed(…)' if a context is partly on, 'common' if all are on,
    'dead' if none is, else 'ctx' and the (1-based) contexts that are on."""
    g = np.asarray(pattern).reshape(k, n)
    on = [c for c in range(k) if g[c].all()]
    if any(0 < g[c].sum() < n for c in range(k)):
        return "mixed(" + ",".join(f"c{c + 1}:{int(g[c].sum())}/{n}" for c in range(k)) + ")"
    return "common" if len(on) == k else "dead" if not on else "ctx" + "".join(str(c + 1) for c in on)


def test_gates_label_is_the_unit_gate_classifiers(monkeypatch):
    """Every pattern of 2 items × 3 contexts gets the label written out by hand, and the label is read
    through theorykit.theory.gates.UnitGates (gates.py had a reading of its own)."""
    gates = load_suite("gates")
    for bits in itertools.product((0, 1), repeat=6):
        assert gates._label(list(bits), n=2, k=3) == _label_by_hand(bits, 2, 3), bits
    seen = []
    real = gates.UnitGates

    def spy(*a, **k):
        seen.append(1)
        return real(*a, **k)

    monkeypatch.setattr(gates, "UnitGates", spy)
    assert gates._label([1] * 8 + [0] * 8 + [1] * 8) == "ctx13" and seen == [1]


def test_json_text_by_hand_and_write_json_writes_it(tmp_path):
    """theorykit.io.json_text: indented by 2, numpy numbers as JSON numbers, a final newline; write_json
    writes exactly that text; a NaN is refused naming where it sits."""
    text = io.json_text({"a": [np.float64(1.5), np.int64(2)], "b": "x"})
    assert text == '{\n  "a": [\n    1.5,\n    2\n  ],\n  "b": "x"\n}\n'
    io.write_json(tmp_path / "r.json", {"a": [np.float64(1.5), np.int64(2)], "b": "x"})
    assert (tmp_path / "r.json").read_text() == text
    with pytest.raises(ValueError, match=r"result\['a'\]\[1\]"):
        io.json_text({"a": [1.0, float("nan")]})


def test_the_runner_and_the_command_line_make_json_text_in_one_place(monkeypatch):
    """validation._json_text (the suites' result files) and cli.common.json_text (``--json``) both go
    through theorykit.io.json_text."""
    from theorykit.cli import common

    validation = load_package("validation")
    calls = []

    def spy(obj):
        calls.append(obj)
        return io.json_text(obj)

    monkeypatch.setattr(validation, "json_text", spy)
    monkeypatch.setattr(common, "io_json_text", spy)
    assert json.loads(validation._json_text({"a": 1})) == {"a": 1}
    assert json.loads(common.json_text({"b": 2})) == {"b": 2}
    assert calls == [{"a": 1}, {"b": 2}]
