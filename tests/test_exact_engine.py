"""The exact SVD engine (theorykit.theory.exactla): checked against numpy's SVD (a second method), with
exact identities M v = s u and Mᵀ u = s v proved by exact arithmetic, and with numeric guessing
(nsimplify, mpmath identify/PSLQ) forbidden."""
import json

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

import theorykit as tk
from theorykit.theory.exact_values import X
from theorykit.theory.exactla import rational_svd
from theorykit.theory.svd import exact_svd
from theorykit.linalg import numeric_svd


def _np_check(A, svd, tol=1e-12):
    """Singular values and the reconstruction against numpy (float64) to ``tol``."""
    A = np.asarray(A, dtype=float)
    _, s_np, _ = numeric_svd(A)
    U, s, V = svd.numeric()
    assert s.size == s_np.size
    np.testing.assert_allclose(s, s_np, rtol=0, atol=tol * max(1.0, s_np[0] if s_np.size else 1))
    if s.size:
        np.testing.assert_allclose(U @ np.diag(s) @ V.T, A, atol=tol * max(1.0, np.abs(A).max()) * 10)
        np.testing.assert_allclose(V.T @ V, np.eye(s.size), atol=1e-12)
        np.testing.assert_allclose(U.T @ U, np.eye(s.size), atol=1e-12)
        assert list(s) == sorted(s, reverse=True)


def _proved_zero(r) -> bool:
    """Exact zero test: expansion, else the minimal polynomial of the algebraic number is x."""
    r = sp.expand(r)
    return r == 0 or sp.minimal_polynomial(r, X) == X


def _exact_identities(M, svd):
    """M v = s u and Mᵀ u = s v, exactly for exact vectors, to 40 digits for vectors of roots of
    degree ≥ 3 (their singular values stay exact)."""
    for m in svd.modes:
        if m.exact_vectors:
            for r in list(M * m.v - m.s * m.u) + list(M.T * m.u - m.s * m.v):
                assert _proved_zero(r)
        else:
            with mpmath.workdps(50):
                s = mpmath.mpf(m.raw.s.mp)
                u, v = m.raw.u.mp(), m.raw.v.mp()
                Mq = [[mpmath.mpf(x.p) / x.q for x in row] for row in M.tolist()]
                for i in range(M.rows):
                    assert abs(mpmath.fsum(Mq[i][j] * v[j] for j in range(M.cols)) - s * u[i]) < mpmath.mpf(10) ** -40
                for j in range(M.cols):
                    assert abs(mpmath.fsum(Mq[i][j] * u[i] for i in range(M.rows)) - s * v[j]) < mpmath.mpf(10) ** -40


def _matrices(entries):
    # up to 3 × 3 (6 × 6 with a repeated block): characteristic factors stay of low degree, so the
    # exact identity checks (minimal polynomials of nested radicals) finish in seconds on 2 cores
    small = st.integers(1, 3)
    return st.tuples(small, small).flatmap(
        lambda rc: st.lists(st.lists(entries, min_size=rc[1], max_size=rc[1]), min_size=rc[0], max_size=rc[0]))


@settings(max_examples=20, deadline=None)
@given(_matrices(st.integers(-3, 3)), st.sampled_from(["plain", "dup_row", "dup_col", "block2"]))
@example([[0, 0, -1], [1, 3, 0], [-1, 0, -3]], "plain")      # a degree-3 factor; v of its smallest root is negated
def test_integer_matrices_match_numpy_and_identities_hold_exactly(rows, shape):
    """Random integer matrices; duplicated rows/columns give rank deficiency, a repeated block
    gives repeated singular values."""
    M = sp.Matrix(rows)
    if shape == "dup_row":
        M = M.col_join(M[0, :])
    elif shape == "dup_col":
        M = M.row_join(M[:, 0])
    elif shape == "block2":
        M = sp.diag(M, M)
    svd = exact_svd(M)
    assert svd.rank == M.rank()
    _np_check(np.array(M.tolist(), dtype=float), svd)
    _exact_identities(M, svd)
    for m in svd.modes:                                   # sign convention: first non-zero of v positive
        first = next(x for x in m.v_floats() if abs(x) > 1e-12)
        assert first > 0


@settings(max_examples=15, deadline=None)
@given(_matrices(st.fractions(-2, 2, max_denominator=5)))
def test_rational_matrices_match_numpy(rows):
    M = sp.Matrix([[sp.Rational(x.numerator, x.denominator) for x in r] for r in rows])
    svd = exact_svd(M)
    assert svd.rank == M.rank()
    _np_check(np.array(M.tolist(), dtype=float), svd)
    _exact_identities(M, svd)


def test_known_values_by_hand():
    # MᵀM = [[5,4],[4,5]]: eigenvalues 9, 1 -> σ = 3, 1 (hand)
    assert exact_svd(sp.Matrix([[2, 1], [1, 2], [0, 0]])).singular_values == [3, 1]
    # MᵀM = [[1,1],[1,2]]: λ = (3 ± √5)/2, σ = (√5 ± 1)/2 (hand; denested exactly)
    assert exact_svd(sp.Matrix([[1, 1], [0, 1]])).singular_values == [(1 + sp.sqrt(5)) / 2, (sp.sqrt(5) - 1) / 2]
    # 3 × 3 identity twice stacked: σ = √2 three times (repeated), orthonormal V
    svd = exact_svd(sp.Matrix.vstack(sp.eye(3), sp.eye(3)))
    assert svd.singular_values == [sp.sqrt(2)] * 3 and svd.V.T * svd.V == sp.eye(3)


def _circulant(n, bump):
    return [[bump[(j - r) % n] if (j - r) % n < len(bump) else 0 for j in range(n)] for r in range(n)]


@settings(max_examples=6, deadline=None)
@given(st.integers(4, 12), st.lists(st.integers(0, 2), min_size=2, max_size=4).filter(any),
       st.sampled_from(["double", "single"]))
def test_ring_structured_tasks_match_numpy(n, bump, reln):
    """Circulant (ring) structures in 3 contexts: every pathway's modes against numpy; exact
    singular values (surds, or a polynomial and a root index) whose text reads back."""
    R = sp.Matrix(_circulant(n, bump))
    task = tk.contexts(n, 3, common=R, blocks=R)
    subsets = [(0, 1), (0, 2), (1, 2)] if reln == "double" else [(0,), (1,), (2,)]
    der = tk.Derivation(tk.GDLNSpec(task, tk.context_pathways(n, 3, subsets)))
    for name, svd in der.modes.items():
        A = der.effective_datasets[name].Syx_float()
        _np_check(A, svd, tol=1e-12)
        for m in svd.modes:
            back = sp.sympify(m.s_text)
            assert abs(float(back) - m.s_float()) < 1e-12 * max(1, m.s_float())


def test_exact_strings_read_back_random_structure():
    """A contexts task whose structure is a random 0/1 matrix over 10 items: every exact value in
    the derive JSON parses back with sympify to the same number (CRootOf in x, not lambda)."""
    rng = np.random.default_rng(7)
    H = sp.Matrix(rng.integers(0, 2, size=(6, 10)).tolist())
    task = tk.contexts(10, 3, common=H, blocks=H)
    der = tk.Derivation(tk.GDLNSpec(task, tk.context_pathways(10, 3, [(0, 1), (0, 2), (1, 2)])))
    summ = json.loads(json.dumps(der.summary()))
    seen_root = False
    for name, p in summ.items():
        for key in ("singular_values", "input_variances"):
            for text, val in zip(p[key], p[key + "_float"]):
                assert "lambda" not in text
                seen_root |= "CRootOf" in text
                back = sp.sympify(text)
                assert abs(float(back) - val) <= 1e-12 * max(1.0, abs(val))
    assert seen_root, "this structure was chosen to have singular values of degree > 2"
    for n, text in der.ranking_text:
        assert float(sp.sympify(text)) == pytest.approx(der.modes[n].modes[0].s_float(), rel=1e-12)


def test_no_numeric_guessing_on_result_paths(monkeypatch, tmp_path):
    """nsimplify, mpmath.identify and PSLQ raise: every result-producing path still works."""
    def forbidden(*a, **k):
        raise AssertionError("numeric identification used on a result path")

    import importlib

    ssimp = importlib.import_module("sympy.simplify.simplify")

    monkeypatch.setattr(sp, "nsimplify", forbidden)
    monkeypatch.setattr(ssimp, "nsimplify", forbidden)
    monkeypatch.setattr(mpmath, "identify", forbidden)
    monkeypatch.setattr(mpmath, "pslq", forbidden)
    # symbolic (XoR with Δ), numeric (Section 4), a ring with roots of degree > 2, random matrices
    for name, paths in tk.xor_relns().items():
        der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), paths))
        der.summary(), der.loss, der.latex(document=True)
    task = tk.contexts(8, 3, blocks=["hierarchy", "ring", "cross"])
    der = tk.Derivation(tk.GDLNSpec(task, tk.context_pathways(8, 3, [(0, 1), (0, 2), (1, 2)])))
    der.summary(), der.method, der.ranking
    R = sp.Matrix(_circulant(10, [1, 2, 1]))
    der = tk.Derivation(tk.GDLNSpec(tk.contexts(10, 3, common=R, blocks=R), tk.context_pathways(10, 3, [(0, 1)])))
    [m.s for svd in der.modes.values() for m in svd.modes]
    exact_svd(sp.Matrix([[1, 2, 0], [3, 1, 1], [0, 1, 2]])).singular_values
    from theorykit.cli import main

    spec = tmp_path / "x.toml"
    spec.write_text('name = "x"\n[symbols]\nDelta = {nonnegative = true}\n[data]\ntask = "xor-margin"\n'
                    'reln = "xor"\nhidden = 8\n[training]\nlr = 0.01\nsteps = 100\n')
    assert main(["derive", str(spec), "--set", "Delta=1/2", "--times", "0,10", "--json", str(tmp_path / "o.json"),
                 "--latex", str(tmp_path / "o.tex")]) == 0


def test_repeated_blocks_are_solved_once():
    """Pathways whose correlations are permutations of one another share one SVD (the cache)."""
    import theorykit.theory.exactla as ex

    calls = []
    orig = ex._block_modes

    def counting(B, den):
        calls.append(B.shape)
        return orig(B, den)

    ex._block_modes = counting
    try:
        der = tk.Derivation(tk.GDLNSpec(tk.contexts(8, 4), tk.context_pathways(8, 4, [(0, 1, 2), (0, 1, 3),
                                                                                      (0, 2, 3), (1, 2, 3)])))
        der.modes
    finally:
        ex._block_modes = orig
    # the common pathway (one block) + the four 3-context pathways (identical up to row order), whose
    # block is a Kronecker product a ⊗ B (a a 4 × 1 column of context weights, B 15 × 8): solved once,
    # as its two factors. Without the sharing the four pathways would cost four solves (or eight).
    assert sorted(calls) == [(4, 1), (15, 8), (75, 12)]


def test_rational_svd_direct():
    B = np.array([[2, 0], [0, 2], [0, 0]])
    ms = rational_svd(B, 3)
    assert [m.s.text() for m in ms] == ["2/3", "2/3"]


def test_high_precision_vectors_survive_sign_flip_and_permutation():
    """Regression: a degree-3 Gram factor whose smallest root's v starts negative. The sign flip
    (``-x`` on mpmath values) used to run at the default 15 digits, leaving that mode's vectors
    accurate only to ~1e-16. The residuals of M v = s u and Mᵀ u = s v must be below 1e-50."""
    B = np.array([[0, 0, -1], [1, 3, 0], [-1, 0, -3]])
    ms = rational_svd(B)
    assert len(ms) == 3 and all(not m.u.exact for m in ms)
    with mpmath.workdps(80):
        for m in ms:
            u, v, s = m.u.mp(), m.v.mp(), m.s.mp
            for i in range(3):
                assert abs(mpmath.fsum(int(B[i, j]) * v[j] for j in range(3)) - s * u[i]) < mpmath.mpf(10) ** -50
            for j in range(3):
                assert abs(mpmath.fsum(int(B[i, j]) * u[i] for i in range(3)) - s * v[j]) < mpmath.mpf(10) ** -50
    # the input-variance check of NumVec runs at high precision too (it decides "diagonalisable")
    import flint
    d, ok = ms[-1].v.quad_form(flint.fmpq_mat(3, 3, [1, 0, 0, 0, 1, 0, 0, 0, 1]))
    assert ok and abs(float(d) - 1) < 1e-25


def _small_int_matrix(max_r=3, max_c=3):
    return st.tuples(st.integers(1, max_r), st.integers(1, max_c)).flatmap(
        lambda rc: st.lists(st.lists(st.integers(-2, 2), min_size=rc[1], max_size=rc[1]),
                            min_size=rc[0], max_size=rc[0]))


@settings(max_examples=25, deadline=None)
@given(_small_int_matrix(2, 3), _small_int_matrix(3, 2), st.integers(1, 3))
def test_kronecker_tasks_match_numpy_and_identities_hold(a, b, den):
    """M = (A ⊗ B)/den: the engine solves A and B and combines (values multiply, vectors are
    Kronecker products). Checked against numpy's SVD of M itself (a second method) to 1e-12, with
    exact identities M v = s u, Mᵀ u = s v, orthonormality and the sign convention."""
    A, B = np.array(a), np.array(b)
    Mi = np.kron(A, B)
    M = sp.Matrix(Mi.tolist()) / den
    svd = exact_svd(M)
    assert svd.rank == np.linalg.matrix_rank(Mi) == np.linalg.matrix_rank(A) * np.linalg.matrix_rank(B)
    _np_check(Mi / den, svd)
    _exact_identities(M, svd)
    for m in svd.modes:
        first = next(x for x in m.v_floats() if abs(x) > 1e-12)
        assert first > 0
        assert float(sp.sympify(m.s_text)) == pytest.approx(m.s_float(), rel=1e-12)
    # equal values are one exact value (shared text), in descending order
    texts = [m.s_text for m in svd.modes]
    vals = [m.s_float() for m in svd.modes]
    for i in range(len(vals) - 1):
        assert vals[i] >= vals[i + 1] - 1e-12
        if abs(vals[i] - vals[i + 1]) < 1e-9 and svd.modes[i].raw.s.kind == svd.modes[i + 1].raw.s.kind == "sqrt":
            assert texts[i] == texts[i + 1]


def test_kronecker_detection_fires_and_solves_only_the_factors():
    """A 6 × 6 dense A ⊗ B (A = [[2, 1], [1, 3]], B = [[1, 1, 0], [0, 1, 1], [1, 0, 1]]): detected
    (the counter moves), and the eigen-solver only ever sees the 2 × 2 and 3 × 3 factors.
    Hand values: AᵀA = [[5, 5], [5, 10]], eigenvalues (15 ± 5√5)/2, so σ_A = √((15 ± 5√5)/2);
    B = I + P (P the cyclic shift) is normal with eigenvalues 1 + ωʲ (ω = e^{2πi/3}), so its
    singular values are |1 + ωʲ| = 2, 1, 1. So σ(A ⊗ B) = 2σ_A, σ_A, σ_A for each σ_A:
    7.236, 3.618, 3.618, 2.764, 1.382, 1.382."""
    import theorykit.theory.exactla as ex

    A = np.array([[2, 1], [1, 3]])
    B = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]])
    shapes = []
    orig = ex._block_modes

    def counting(Bk, den):
        shapes.append(Bk.shape)
        return orig(Bk, den)

    before = ex.STATS["kronecker"]
    ex._block_modes = counting
    try:
        ms = ex.rational_svd(np.kron(A, B), 1, {})
    finally:
        ex._block_modes = orig
    assert ex.STATS["kronecker"] == before + 1
    assert sorted(shapes) == [(2, 2), (3, 3)]
    big, small = sp.sqrt((15 + 5 * sp.sqrt(5)) / 2), sp.sqrt((15 - 5 * sp.sqrt(5)) / 2)
    want = [2 * big, big, big, 2 * small, small, small]
    want = sorted(want, key=lambda e: -float(e))
    got = [m.s.expr() for m in ms]
    assert len(got) == 6
    for g, w in zip(got, want):
        assert _proved_zero(g - w)
    # repeated values share one exact value object and keep the discovery order of their vectors
    assert ms[1].s is ms[2].s and ms[4].s is ms[5].s


def test_bench_warm_imports_resolve():
    """The bench's start-up imports name real modules (a layout move once broke `bench --quick`) and do
    their job: in a fresh interpreter they load what the derivation would otherwise import lazily on
    first use (sympy.physics.units by simplify, SciPy's graph routines), so a derivation run afterwards
    imports no more of those."""
    import subprocess
    import sys

    code = """
import sys, json
import theorykit
before = set(sys.modules)
from theorykit.bench_derive import warm_imports
warm_imports()
mid = set(sys.modules)
import sympy as sp
x = sp.Symbol("x")
sp.simplify(sp.sin(x) ** 2 + sp.cos(x) ** 2)
theorykit.Derivation(theorykit.GDLNSpec(theorykit.xor_margin(), theorykit.xor_relns()["xor"]),
                     values={"Delta": 2}).loss
print(json.dumps({"new": sorted(mid - before), "later": sorted(set(sys.modules) - mid), "all": sorted(mid)}))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert {"sympy.physics.units", "scipy.sparse.csgraph"} <= set(out["new"])      # loaded by the warm-up
    assert {"theorykit.spec.gating", "theorykit.spec.task", "theorykit.theory.derivation",
            "theorykit.theory.exactla", "theorykit.theory.modes"} <= set(out["all"])
    assert not [m for m in out["later"] if m.startswith(("sympy.physics", "scipy.sparse"))], out["later"]

def _tiny(M, digits=50) -> bool:
    """Every entry of M evaluates to below 10^-30 at 50 digits. SymPy's simplify cannot always prove
    a nested-radical sum zero, and where a singular value is a CRootOf the engine's vectors are
    40-digit numbers by design (errors near 10^-40); a non-zero algebraic number of these sizes is
    nowhere near 10^-30."""
    return all(abs(x.evalf(digits)) < 1e-30 for x in M)


@settings(max_examples=12, deadline=None)
@given(st.integers(2, 3), st.integers(2, 4), st.lists(st.integers(-3, 3), min_size=16, max_size=16),
       st.lists(st.sampled_from([1, 2, 3, 5, 6, 8]), min_size=4, max_size=4), st.booleans())
def test_columns_scaled_by_square_roots_give_an_exact_svd(r, c, ints, qs, by_rows):
    """B = R·diag(√q) (or diag(√q)·R) with R rational: the modes come from the rational Gram matrix
    on the other side (svd._scaled_blocks). Checked against the definition: Σ s u vᵀ = B, U and V
    orthonormal (to 10^-30), s descending and positive, first non-zero entry of each v positive,
    and s against numpy's singular values (a second method)."""
    R = sp.Matrix(r, c, lambda i, j: sp.Rational(ints[(i * c + j) % 16], 1 + (i + j) % 2))
    D = sp.diag(*[sp.sqrt(q) for q in qs[: (r if by_rows else c)]])
    B = D * R if by_rows else R * D
    svd = exact_svd(B)
    n = len(svd.modes)
    assert _tiny(svd.reconstruct() - B)
    assert _tiny(svd.U.T * svd.U - sp.eye(n)) and _tiny(svd.V.T * svd.V - sp.eye(n))
    f = [float(s) for s in svd.singular_values]
    assert all(x > 0 for x in f) and f == sorted(f, reverse=True)
    for m in svd.modes:
        assert next(float(x) for x in m.v if abs(float(x)) > 1e-12) > 0
    ref = [x for x in np.linalg.svd(np.array(B, dtype=float), compute_uv=False) if x > 1e-12]
    np.testing.assert_allclose(f, ref, rtol=1e-12)


def test_contexts_with_a_surd_context_scale_is_fast_and_exact():
    """Fuzz case (seed 307, case 331): contexts(16, 2) with context_scale √2, common pathway only,
    ran for minutes (0.5 s now; a speed check belongs to the bench, not here) in SymPy's null space of an 18 × 18 Gram block over Q(√2). Its rows are scaled
    by √2, so the rational Gram matrix on the other side gives the modes; checked exactly against
    Σyx and against numpy's singular values."""
    task = tk.contexts(16, 2, blocks="hierarchy", context_scale=sp.sqrt(2))
    M = task.Y * task.X.T / task.P
    svd = exact_svd(M)
    assert _tiny(svd.reconstruct() - M)
    np.testing.assert_allclose([float(s) for s in svd.singular_values],
                               [x for x in np.linalg.svd(np.array(M, dtype=float), compute_uv=False) if x > 1e-12],
                               rtol=1e-12)


def test_square_root_of_a_quadratic_surd_denests_only_when_it_may():
    """_sqrt_quad writes √(P + Q√D) and denests it only when P² − Q²D is the square of a rational r
    (then √(P + Q√D) = √((P+r)/2) + sign(Q)·√((P−r)/2)). By hand: 3/2 + √2 has P² − Q²D = 9/4 − 2 = 1/4,
    r = 1/2, so it is 1 + √2/2; 3/2 − √2 gives 1 − √2/2; 1 + √2/2 has P² − Q²D = 1 − 1/2 = 1/2, not a square
    (its numerator is, its denominator is not), so it must stay nested. Each is checked against
    math.sqrt (a second method), and _is_square against the hand values."""
    import math

    import flint

    from theorykit.theory.exact_values import _is_square, _sqrt_quad

    q = flint.fmpq
    assert _is_square(q(9, 4)) == q(3, 2) and _is_square(q(0)) == 0
    for x in (q(1, 2), q(4, 3), q(3, 4), q(2), q(-4)):
        assert _is_square(x) is None, x
    cases = [((q(3, 2), q(1), q(2)), 1 + sp.sqrt(2) / 2), ((q(3, 2), q(-1), q(2)), 1 - sp.sqrt(2) / 2),
             ((q(1), q(1, 2), q(2)), None), ((q(5), q(2), q(6)), sp.sqrt(3) + sp.sqrt(2))]
    for (P, Q, D), denested in cases:
        got = _sqrt_quad(P, Q, D)
        want = math.sqrt(float(P) + float(Q) * math.sqrt(float(D)))
        assert float(sp.N(got, 30)) == pytest.approx(want, rel=1e-14)
        if denested is not None:
            assert sp.expand(got - denested) == 0
