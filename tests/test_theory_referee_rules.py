"""A theorist's independent check of the docs' mathematics (docs/theory.md, docs/lemmas.md,
docs/validation.md, docs/race_k4.md).

These tests came from re-deriving what those pages state, independently of theorykit's own
functions: effective datasets and singular values written out in SymPy or numpy here, gradient
descent written here, and the suites' settings read back against what the pages say about them.
Expected values come from hand derivations in the docstrings or from a second method computed in
the test, never from a run of the code under test.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import theorykit as tk

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _section(text: str, anchor: str) -> str:
    """The text of docs/theory.md from ``<a id="anchor">`` to the next anchor."""
    start = text.index(f'<a id="{anchor}"></a>')
    nxt = text.find("<a id=", start + 1)
    return text[start:nxt if nxt >= 0 else len(text)]


# ---------------------------------------------------------------------------------------------
# docs/lemmas.md: a test the page calls a strict xfail must be one
# ---------------------------------------------------------------------------------------------
def test_lemmas_page_calls_xfail_only_tests_that_are_xfail():
    """docs/lemmas.md said ``test_predict_loss_with_crootof_singular_values`` "is pinned as a strict
    xfail, which starts failing once the core is fixed"; the core was fixed (to_jax evaluates
    CRootOf) and the test became an ordinary one, so the page described a defect that no longer
    exists. Every test the page names as a (strict) xfail must carry an xfail marker."""
    text = DOCS.joinpath("lemmas.md").read_text(encoding="utf-8")
    named = re.findall(r"pinned as a strict\s+xfail,\s+`(test_\w+)`", text)
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").glob("test_*.py"))
    for name in named:
        m = re.search(r"((?:@[^\n]*\n)*)def " + name + r"\(", sources)
        assert m is not None, f"docs/lemmas.md names {name}, which no test file defines"
        assert "xfail" in m.group(1), f"docs/lemmas.md calls {name} a strict xfail; it is not marked xfail"


def test_crootof_pathway_predict_loss_against_numpy_svd():
    """The example of docs/lemmas.md (X = I₃, Y = [[−3,3,0],[0,−2,−1],[−2,0,0]], mean loss, P = 3):
    Σyx = Y/3, Σx = I/3, so every mode has d = 1/3 and s = σ_α(Y)/3 (numpy's SVD here; the σ² are
    roots of an irreducible cubic). L(t) = ½ tr Σy − Σ_α (s a − ½ d a²) with the logistic a(t) of
    docs/theory.md#closed-form, τ = 1/η."""
    Y = sp.Matrix([[-3, 3, 0], [0, -2, -1], [-2, 0, 0]])
    lr, a0 = 0.05, 1e-3
    spec = tk.GDLNSpec(tk.Task(sp.eye(3), Y), [tk.Pathway("p", (1, 1, 1), "all", "all", hidden=8)],
                       tk.Training(lr=lr, a0=a0))
    t = np.linspace(0, 400, 9)
    Yn = np.array(Y, dtype=float)
    s = np.linalg.svd(Yn / 3, compute_uv=False)[:, None]
    d, tau = 1 / 3, 1 / lr
    a = (s / d) / (1 + (s / (d * a0) - 1) * np.exp(-2 * s * t / tau))
    want = 0.5 * np.sum(Yn ** 2) / 3 - np.sum(s * a - 0.5 * d * a ** 2, axis=0)
    np.testing.assert_allclose(tk.Derivation(spec).predict_loss(t), want, rtol=1e-9)


# ---------------------------------------------------------------------------------------------
# docs/theory.md#paper-settings: what the quick runs keep
# ---------------------------------------------------------------------------------------------
def test_paper_settings_quick_start_matches_the_contexts_suite():
    """docs/theory.md said the quick runs keep σ√H "so that the a0 rule gives the same start". In
    the contexts suite the quick GDLN pathways (25 units) keep σ√H at its value for 50 units, the full
    ones have 100 units at the paper's std 20·0.0005/700 (context pathways), so by the rule a0 = σ²H/2
    the quick start is σ²·50/2, half the full σ²·100/2. The page must not claim the same start where
    the suite's own settings give another, and must say which width the quick GDLN keeps."""
    from theorykit.analysis.context_runs import _keep_sigma_sqrt_h
    from theorykit.net.starts import a0_rule
    from theorykit.validation.contexts import MODES

    sig = 20 * 0.0005 / 700
    q, f = MODES["quick"], MODES["full"]
    a0_quick = a0_rule(sig * _keep_sigma_sqrt_h(q, q["gdln_hidden"]), q["gdln_hidden"])
    a0_full = a0_rule(sig * _keep_sigma_sqrt_h(f, f["gdln_hidden"]), f["gdln_hidden"])
    assert a0_quick == pytest.approx(sig ** 2 * 50 / 2, rel=1e-12)
    assert a0_full == pytest.approx(sig ** 2 * 100 / 2, rel=1e-12)
    text = " ".join(_section(DOCS.joinpath("theory.md").read_text(encoding="utf-8"), "paper-settings").split())
    if "gives the same start" in text:
        assert a0_quick == pytest.approx(a0_full), "theory.md claims the quick runs start as the full ones"
    assert "50 units per GDLN pathway" in text


# ---------------------------------------------------------------------------------------------
# docs/race_k4.md: the a0 the exhaustive race uses, and the tables it refers to
# ---------------------------------------------------------------------------------------------
def test_race_k4_page_states_the_a0_the_command_uses():
    """docs/race_k4.md said only "a0 from the suite's GDLN rule"; the full suite's GDLN (100 units a
    pathway) gives twice the a0 that `race-exhaust` uses. The page must state the value: by hand,
    σ = 20·0.0005/700 = 1/70 000 with σ√H kept at H = 50, a0 = σ²·50/2 = 25/4.9·10⁹ = 5.102·10⁻⁹."""
    from theorykit.analysis.exhaust import default_a0

    hand = (20 * 0.0005 / 700) ** 2 * 50 / 2
    assert default_a0() == pytest.approx(hand, rel=1e-12)
    text = DOCS.joinpath("race_k4.md").read_text(encoding="utf-8")
    m = re.search(r"a0 = σ²H/2 = ([0-9.]+)·10⁻([⁰¹²³⁴⁵⁶⁷⁸⁹]+)", text)
    assert m is not None, "docs/race_k4.md does not state the a0 of race-exhaust"
    stated = float(m.group(1)) * 10.0 ** (-int(m.group(2).translate(str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789"))))
    assert stated == pytest.approx(hand, rel=0.01)    # the page gives two figures: ±0.05 of 5.1 is 1 %
    digits = len(m.group(1).replace(".", "").lstrip("0"))        # and it is the hand value rounded to them
    assert stated == pytest.approx(float(f"{hand:.{digits - 1}e}"), rel=1e-12), (stated, hand)


def test_race_k4_page_table_references_point_at_tables():
    """Each "the table below" on docs/race_k4.md has a rank table after it, each "the table above" one
    before it (the H100 cost line, after the k = 4 table, said "below", where no table follows)."""
    text = DOCS.joinpath("race_k4.md").read_text(encoding="utf-8")
    tables = [m.start() for m in re.finditer(r"^\| rank \|", text, flags=re.M)]
    assert tables
    for m in re.finditer(r"the table (below|above)", text):
        if m.group(1) == "below":
            assert any(t > m.start() for t in tables), f"'the table below' at {m.start()}: no table follows"
        else:
            assert any(t < m.start() for t in tables), f"'the table above' at {m.start()}: no table precedes"


# ---------------------------------------------------------------------------------------------
# docs/theory.md#time-conventions: the summed loss, by gradient descent written here
# ---------------------------------------------------------------------------------------------
def test_summed_loss_time_constant_by_own_gradient_descent():
    """docs/theory.md#time-conventions: with L = ½Σ‖y − ŷ‖² the flow has τ = 1/(Pη) and the loss is P
    times the averaged one. Gradient descent on the linear ReLN of the XoR task at Δ = 0.7, written
    here from aligned, balanced weights (W1 = √a0 vᵀ, W2 = √a0 u per pathway), η = 0.0025, P = 4:
    Derivation.predict_loss(discrete=True) must equal it to rounding, and the flow (τ = 1/(Pη) = 100)
    within the O(η) gap, here below 1 % of L(0)."""
    D, lr, a0, steps = 0.7, 0.0025, 1e-3, 3000
    pts = [(1, 1), (-1, -1), (1, -1), (-1, 1)]
    X = np.array([[x1, x2, D * x1 * x2] for x1, x2 in pts]).T
    Y = np.array([[x1 * x2 for x1, x2 in pts]], dtype=float)
    gates = [np.array([1, 1, 0, 0.]), np.array([0, 0, 1, 1.])]
    Ws = []
    for g in gates:
        U, S, Vt = np.linalg.svd(Y * g @ X.T / 4)
        Ws.append([np.sqrt(a0) * Vt[:1], np.sqrt(a0) * U[:, :1]])
    L = np.empty(steps + 1)
    for t in range(steps + 1):
        E = Y - sum((W2 @ W1 @ X) * g for (W1, W2), g in zip(Ws, gates))
        L[t] = 0.5 * np.sum(E ** 2)
        grads = [(W2.T @ (E * g) @ X.T, (E * g) @ X.T @ W1.T) for (W1, W2), g in zip(Ws, gates)]
        for W, (g1, g2) in zip(Ws, grads):
            W[0], W[1] = W[0] + lr * g1, W[1] + lr * g2
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=lr, a0=a0, loss="sum"))
    assert float(spec.tau) == pytest.approx(1 / (4 * lr))
    der = tk.Derivation(spec)
    times = np.arange(0, steps + 1, 100)
    np.testing.assert_allclose(der.predict_loss(times, {"Delta": D}, discrete=True), L[times], rtol=1e-10, atol=1e-13)
    flow = der.predict_loss(times, {"Delta": D})
    assert np.max(np.abs(flow - L[times])) < 0.01 * L[0]
    # the O(η) gap worked out by hand (tests/_gd_reference.py gd_flow_gap: GD's lag behind the flow, to first
    # order, summed over the two modes, times P for a summed loss): 2.8e-3 of L(0); next order O(s/τ) = 0.35 %
    from _gd_reference import gd_flow_gap

    at = tk.Derivation(spec, values={"Delta": D})
    bound = 4 * sum(gd_flow_gap(m.s_float(), m.d_float(), a0, float(spec.tau)) for svd in at.modes.values()
                    for m in svd.modes)
    assert np.max(np.abs(flow - L[times])) <= 1.05 * bound, (np.max(np.abs(flow - L[times])), bound)
    assert L[0] == pytest.approx(4 * 0.5 * (1 - D * a0) ** 2, rel=1e-12)   # P × ½(1 − Δ a0)², hand


# ---------------------------------------------------------------------------------------------
# docs/theory.md#contexts: the k (k−1)-context pathways on the residual, by gradient descent here
# ---------------------------------------------------------------------------------------------
def _hierarchy4():
    """The 4-item binary tree (docs/theory.md#contexts): rows 1111, 1100, 0011, then the 4 items."""
    return np.array([[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1],
                     [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], dtype=float)


@pytest.mark.parametrize("kk", [3, 4])
def test_kminus1_pathways_on_the_residual_by_own_gradient_descent(kk):
    """docs/theory.md#contexts: k pathways, pathway q on in every context but q and reading the items,
    trained jointly on the residual of the common pathway's least-squares fit (mean loss), each from
    aligned, balanced weights of strength a0 on its own singular vectors. The page says their couplings
    (Σx_rq = (k−2)/(nk) I) cancel because the maps sum to zero, so every mode α of every pathway follows
    the one-mode recurrence a ← a(1 + η(s_α − d a))² with s_α = √((k−1)/k) σ̃_α/(nk), d = 1/(nk).
    By hand, H̃ = H(I − 11ᵀ/4) of the 4-item tree has H̃ᵀH̃ with eigenvalues 3, 1, 1 (σ̃ = √3, 1, 1),
    and the residual loss is (k−1)/(2nk)·‖H̃‖²_F = 5(k−1)/(8k). The data, the fit and the descent are
    written here with numpy; theorykit's closed form (k_contexts) must equal the flow of these modes."""
    from theorykit.theory import k_contexts as kc

    n, H = 4, _hierarchy4()
    f = H.shape[0]
    X = np.zeros((n + kk, n * kk))
    Y = np.zeros((f * (kk + 1), n * kk))
    for c in range(kk):
        for i in range(n):
            mu = c * n + i
            X[i, mu] = X[n + c, mu] = 1
            Y[:f, mu] = Y[f * (c + 1):f * (c + 2), mu] = H[:, i]
    P = n * kk
    R = Y - Y @ np.linalg.pinv(X) @ X                     # the common pathway's least-squares residual
    assert 0.5 * np.sum(R ** 2) / P == pytest.approx(5 * (kk - 1) / (8 * kk), rel=1e-12)
    Xi = X[:n]
    gates = [np.array([0.0 if mu // n == q else 1.0 for mu in range(P)]) for q in range(kk)]
    lr, a0, steps = 0.05, 1e-3, 3000
    Ws = []
    for g in gates:
        U, S, Vt = np.linalg.svd((R * g) @ Xi.T / P)
        r = int(np.sum(S > 1e-12))
        Ws.append([np.sqrt(a0) * Vt[:r], np.sqrt(a0) * U[:, :r]])
    L = np.empty(steps + 1)
    for t in range(steps + 1):
        E = R - sum((W2 @ W1 @ Xi) * g for (W1, W2), g in zip(Ws, gates))
        L[t] = 0.5 * np.sum(E ** 2) / P
        grads = [(W2.T @ (E * g) @ Xi.T / P, (E * g) @ Xi.T @ W1.T / P) for (W1, W2), g in zip(Ws, gates)]
        for W, (g1, g2) in zip(Ws, grads):
            W[0], W[1] = W[0] + lr * g1, W[1] + lr * g2
    s = np.sqrt((kk - 1) / kk) * np.array([np.sqrt(3), 1, 1]) / (n * kk)
    d = 1 / (n * kk)
    a, rec = np.full(3, a0), np.empty(steps + 1)
    for t in range(steps + 1):
        rec[t] = 5 * (kk - 1) / (8 * kk) - kk * np.sum(s * a - d * a ** 2 / 2)
        a = a * (1 + lr * (s - d * a)) ** 2
    assert L[-1] < 0.01 * L[0]                               # learned: the comparison is not trivial
    np.testing.assert_allclose(L, rec, rtol=0, atol=1e-12 * L[0])
    times = np.arange(steps + 1)
    af = (s[:, None] / d) / (1 + (s[:, None] / (d * a0) - 1) * np.exp(-2 * s[:, None] * lr * times))
    flow = 5 * (kk - 1) / (8 * kk) - kk * np.sum(s[:, None] * af - d * af ** 2 / 2, axis=0)
    res = kc.derive(check_ks=(), latex=False)
    got = kc.closed_form_loss(res, sp.Matrix(H.astype(int)), n, kk, 1.0, times, 1 / lr, a0, residual_only=True)
    np.testing.assert_allclose(got, flow, rtol=0, atol=1e-12 * L[0])


def test_race_exhaust_help_states_the_suite_settings_it_names():
    """`theorykit race-exhaust --help` said the default RK4 step τ/10 was "the suite's quick setting";
    the contexts suite races at τ/2 in --quick and τ/40 in --full (validation/contexts.py), so no suite
    run uses τ/10. The help must name the suite's steps as the suite has them, and the default a0 as
    the value the command uses: by hand (20·0.0005/700)²·50/2 = 5.10e-9."""
    import argparse

    from theorykit.analysis.exhaust import default_a0
    from theorykit.cli.parser import build_parser
    from theorykit.validation.contexts import MODES

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: (a.help, a.default) for a in sub.choices["race-exhaust"]._actions}
    dt_help, dt_default = helps["race_dt"]
    if "quick setting" in dt_help:
        assert dt_default == MODES["quick"]["race_dt"], dt_help
    for mode in ("quick", "full"):
        assert f"tau/{MODES[mode]['race_dt']:g} in --{mode}" in dt_help, dt_help
    m = re.search(r"default: ([0-9.]+e-\d+)", helps["a0"][0])
    assert m is not None, helps["a0"][0]
    hand = (20 * 0.0005 / 700) ** 2 * 50 / 2
    assert float(m.group(1)) == pytest.approx(hand, rel=0.01) and default_a0() == pytest.approx(hand, rel=1e-12)
    # 1 % is two printed figures (5.1e-09); the help must be the hand value rounded to the figures it prints
    digits = len(m.group(1).split("e")[0].replace(".", "").lstrip("0"))
    assert float(m.group(1)) == pytest.approx(float(f"{hand:.{digits - 1}e}"), rel=1e-12), (m.group(1), hand)
