"""Exact SVDs: checked against numpy's SVD at random parameter values (a second method)."""
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import theorykit as tk
from theorykit.theory.svd import exact_svd
from theorykit.linalg import numeric_svd

D = sp.Symbol("Delta", nonnegative=True)


def _check_against_numpy(M, svd, values=None):
    vals = values or {}
    A = np.array(M.subs(vals).evalf(30).tolist(), dtype=float)
    _, s_np, _ = numeric_svd(A)
    s_ex = np.array([float(sp.N(s.subs(vals), 30)) for s in svd.singular_values])
    np.testing.assert_allclose(np.sort(s_ex)[::-1], s_np, rtol=1e-10, atol=1e-12)
    U = np.array(svd.U.subs(vals).evalf(30).tolist(), dtype=float).reshape(svd.U.shape)
    V = np.array(svd.V.subs(vals).evalf(30).tolist(), dtype=float).reshape(svd.V.shape)
    np.testing.assert_allclose(U @ np.diag(s_ex) @ V.T, A, atol=1e-10)
    np.testing.assert_allclose(V.T @ V, np.eye(V.shape[1]), atol=1e-10)
    np.testing.assert_allclose(U.T @ U, np.eye(U.shape[1]), atol=1e-10)
    return s_ex, V


def test_xor_reln_modes_match_theory_at_random_delta():
    """docs/theory.md#xor: s_lin = Δ/2, d_lin = Δ²/2, s_xor = √(2+Δ²)/4, d_xor = (2+Δ²)/4."""
    task = tk.xor_margin()
    rng = np.random.default_rng(0)
    for name, ps in tk.xor_relns().items():
        der = tk.Derivation(tk.GDLNSpec(task, ps))
        assert der.method == "closed-form"
        for p in ps:
            m = der.modes[p.name].modes
            assert len(m) == 1
            for Dv in rng.uniform(0.05, 3.0, size=5):
                s, d = float(m[0].s.subs(D, Dv)), float(m[0].d.subs(D, Dv))
                if name == "linear":
                    assert s == pytest.approx(Dv / 2, rel=1e-12) and d == pytest.approx(Dv ** 2 / 2, rel=1e-12)
                else:
                    assert s == pytest.approx(np.sqrt(2 + Dv ** 2) / 4, rel=1e-12)
                    assert d == pytest.approx((2 + Dv ** 2) / 4, rel=1e-12)
            _check_against_numpy(der.effective_datasets[p.name].Syx, der.modes[p.name], {D: sp.Rational(3, 7)})


def test_singular_values_stay_surds():
    svd = exact_svd(sp.Matrix([[2, 1], [1, 2], [0, 0]]))
    # hand: MᵀM = [[5,4],[4,5]] with eigenvalues 9 and 1 -> σ = 3, 1
    assert svd.singular_values == [3, 1]
    svd = exact_svd(sp.Matrix([[1, 1], [0, 1]]))
    # hand: MᵀM = [[1,1],[1,2]], λ = (3 ± √5)/2, σ = (√5 ± 1)/2 (golden ratio and its inverse)
    assert [sp.nsimplify(sp.sqrtdenest(s) - t) for s, t in
            zip(svd.singular_values, [(sp.sqrt(5) + 1) / 2, (sp.sqrt(5) - 1) / 2])] == [0, 0]
    assert all(isinstance(s, sp.Expr) and not s.has(sp.Float) for s in svd.singular_values)


def test_sign_convention_and_order():
    svd = exact_svd(sp.Matrix([[0, -3, 0], [-1, 0, 0]]))
    assert svd.singular_values == [3, 1]
    for m in svd.modes:
        first = next(x for x in m.v if x != 0)
        assert first > 0


def test_context_task_modes_match_numpy_and_theory_end_points():
    """The 8-item hierarchy, k = 3: the residual-pathway end points √((k−1)/k)·σ̃ of docs/theory.md#contexts are
    2.160, 1.414 (twice), 0.816; here we check the centred structure's σ̃ via numpy, and the exact
    SVD of every Section 4 pathway against numpy."""
    H = tk.hierarchy(8)
    Ht = np.array(H, dtype=float) @ (np.eye(8) - np.ones((8, 8)) / 8)
    sig = np.linalg.svd(Ht, compute_uv=False)
    ends = np.sqrt(2 / 3) * sig[sig > 1e-9]
    np.testing.assert_allclose(ends[:4], [2.160, 1.414, 1.414, 0.816], atol=1e-3)   # the page's 3 decimals
    # by hand (tests/test_contexts.py, the hierarchy's centred Gram eigenvalues 7, 3, 3, 1): √(2/3)·√7, ...
    np.testing.assert_allclose(ends[:4], np.sqrt(2 / 3) * np.sqrt([7, 3, 3, 1]), rtol=1e-12)
    task = tk.contexts(8, 3, blocks=["hierarchy", "ring", "cross"])
    for p in tk.context_pathways(8, 3, [(1, 2)]):
        eff = tk.effective_dataset(task, p)
        _check_against_numpy(eff.Syx, exact_svd(eff.Syx))


@given(st.lists(st.lists(st.integers(-3, 3), min_size=3, max_size=3), min_size=2, max_size=4))
def test_exact_svd_of_random_integer_matrices(rows):
    M = sp.Matrix(rows)
    svd = exact_svd(M)
    if M.is_zero_matrix:
        assert svd.rank == 0
        return
    assert svd.rank == M.rank()
    _check_against_numpy(M, svd)
    vals = [float(s) for s in svd.singular_values]
    assert vals == sorted(vals, reverse=True)


def test_symbolic_matrix_at_random_values():
    a, b = sp.symbols("a b", positive=True)
    M = sp.Matrix([[a, 0, 0], [0, b, b], [0, 0, 0]])
    svd = exact_svd(M)
    rng = np.random.default_rng(3)
    for _ in range(5):
        vals = {a: sp.Float(rng.uniform(0.1, 3)), b: sp.Float(rng.uniform(0.1, 3))}
        s_num = sorted([float(vals[a]), float(np.sqrt(2) * vals[b])], reverse=True)
        got = sorted([float(s.subs(vals)) for s in svd.singular_values], reverse=True)
        np.testing.assert_allclose(got, s_num, rtol=1e-12)


def test_bounded_simplification_helpers():
    """tidy() simplifies small expressions and leaves large ones exact but untouched (bounded
    time); the numeric pivot test recognises identities and non-zeros at random points."""
    import sympy as sp

    from theorykit.theory import modes as md

    D = sp.Symbol("Delta", positive=True)
    assert md.tidy((D ** 2 - 1) / (D - 1)) == D + 1
    big = sum(sp.sqrt(D + i) * (D + i) ** 2 for i in range(40))
    assert sp.count_ops(big) > md.SIMPLIFY_MAX_OPS and md.tidy(big) is big
    assert md._is_zero_at_random_points(sp.expand((D + 1) ** 3) - (D + 1) ** 3)
    assert md._is_zero_at_random_points(sp.sqrt(D ** 2 + 2 * D + 1) - D - 1)
    assert not md._is_zero_at_random_points(D - 1)
    assert not md._is_zero_at_random_points(sp.sqrt(2) - sp.Rational(99, 70))   # 1.4142135… vs 1.4142857…
    assert md._is_zero_at_random_points(sp.Integer(0))


@pytest.mark.parametrize("expr", [
    sp.sqrt(2), sp.Rational(3, 7), sp.Integer(-8) ** sp.Rational(1, 3),
    sp.cos(sp.pi / 7), sp.re((1 + sp.I) ** sp.Rational(1, 3)), sp.Float(0.1, 30) * sp.sqrt(7),
    sp.CRootOf(sp.Symbol("x") ** 5 - sp.Symbol("x") - 1, 0),
    (sp.Rational(1, 2) + sp.sqrt(3) * sp.I / 2) ** sp.Rational(1, 3) * sp.sqrt(5),
    sp.Add(sp.sqrt(2 + sp.sqrt(3)), -sp.sqrt(sp.Rational(1, 2)) * (1 + sp.sqrt(3)), evaluate=False),  # exactly 0
])
def test_bounded_float_evaluation_agrees_with_sympy(expr):
    """modes.num (fixed-precision mpmath, 40/80/160/320 digits until two agree) against SymPy's
    adaptive N at 50 digits, including an exact zero written as nested radicals."""
    from theorykit.theory.modes import num

    ref = float(sp.re(sp.N(expr, 50)))
    assert abs(num(expr, {}) - ref) <= 1e-15 * max(1.0, abs(ref))


@pytest.mark.parametrize("entries", [
    ("Delta", 1, "sqrt(2)", "Delta"),               # symbols and a radical: two modes
    ("Delta", "2*Delta", 1, 2),                      # rank one: one mode
    ("Delta", 1, -1, "Delta"),                       # BᵀB = (Δ² + 1) I: one repeated value
    ("Delta", 2, "Delta", -2),                       # BᵀB = diag(2Δ², 8): distinct, diagonal Gram
])
def test_symbolic_two_by_two_svd_against_numpy(entries):
    """The exact SVD of a symbolic 2 × 2 matrix (its Gram eigenproblem): the singular values match
    numpy's SVD at several values of Δ (the order is fixed at the reference Δ), every pair (u, v)
    satisfies B v = s u and Bᵀ u = s v there to 1e-12, and the v's are orthonormal."""
    import sympy as sp

    from theorykit.theory.svd import exact_svd

    D = sp.Symbol("Delta", positive=True)
    B = sp.Matrix(2, 2, [sp.sympify(e, locals={"Delta": D}) for e in entries])
    svd = exact_svd(B)
    for val in (0.37, 1.3, 2.9):
        Bn = np.array(B.subs(D, val).evalf(30).tolist(), dtype=float)
        want = [x for x in np.linalg.svd(Bn, compute_uv=False) if x > 1e-12]
        got = [float(sp.N(m.s.subs(D, val), 30)) for m in svd.modes]
        np.testing.assert_allclose(sorted(got), sorted(want), rtol=1e-12)
        V = np.array([[float(sp.N(x.subs(D, val), 30)) for x in m.v] for m in svd.modes])
        U = np.array([[float(sp.N(x.subs(D, val), 30)) for x in m.u] for m in svd.modes])
        np.testing.assert_allclose(V @ V.T, np.eye(len(got)), atol=1e-12)
        for s, u, v in zip(got, U, V):
            np.testing.assert_allclose(Bn @ v, s * u, atol=1e-12)
            np.testing.assert_allclose(Bn.T @ u, s * v, atol=1e-12)
    # the fixed order: descending at the reference value of Δ (theorykit.theory.modes.reference_values),
    # where numpy's singular values (descending by construction) are the independent check
    from theorykit.theory.modes import reference_values

    ref = reference_values([D])
    at_ref = [float(sp.N(m.s.subs(ref), 30)) for m in svd.modes]
    Bn = np.array(B.subs(ref).evalf(30).tolist(), dtype=float)
    np.testing.assert_allclose(at_ref, [x for x in np.linalg.svd(Bn, compute_uv=False) if x > 1e-12], rtol=1e-12)


@pytest.mark.parametrize("rows", [
    # symbols mixed with surds (an irreducible quadratic over Q(Δ, √2, √3): the Gram's closed-form
    # eigenvectors (b, λ − a)), wide and tall; the second is the block of a fuzz spec that took 30 s
    [["Delta", "sqrt(2)", 1], ["sqrt(3)", "Delta + 1", "-1/2"]],
    [["Delta", "sqrt(3)"], ["sqrt(2)", "Delta + 1"], [1, "-1/2"]],
    [["33/400 - Delta*33/100", "33/200 + 3*sqrt(2)/8", "sqrt(2)/4", "sqrt(2)*(1 + Delta)/4"],
     ["-sqrt(3)/4 - Delta*sqrt(2)/4", "sqrt(6)/8 - sqrt(2)/16", "-3*sqrt(3)/16", "sqrt(2)/8"]],
    # rank one (the second row is √2 times the first): one mode, no spurious zero
    [["Delta + sqrt(3)", "sqrt(2)", 1], ["sqrt(2)*(Delta + sqrt(3))", 2, "sqrt(2)"]],
    [["Delta*sqrt(6)", "sqrt(3)"], ["sqrt(2)*Delta", 1]],
])
def test_symbolic_surd_blocks_against_numpy(rows):
    """The exact SVD of a block mixing Δ with square roots against numpy's SVD at several values of
    Δ: as many modes as numpy's rank, the singular values, B v = s u and Bᵀ u = s v to 1e-12,
    orthonormal u's and v's, and the sign convention (the first non-zero entry of each v positive)."""
    import sympy as sp

    from theorykit.theory.svd import exact_svd

    D = sp.Symbol("Delta", positive=True)
    B = sp.Matrix([[sp.sympify(e, locals={"Delta": D}) for e in row] for row in rows])
    svd = exact_svd(B)
    for val in (0.37, 1.3, 2.9):
        Bn = np.array(B.subs(D, val).evalf(30).tolist(), dtype=float)
        want = [x for x in np.linalg.svd(Bn, compute_uv=False) if x > 1e-12]
        assert len(svd.modes) == len(want)
        got = [float(sp.N(m.s.subs(D, val), 30)) for m in svd.modes]
        np.testing.assert_allclose(sorted(got), sorted(want), rtol=1e-12)
        V = np.array([[float(sp.N(x.subs(D, val), 30)) for x in m.v] for m in svd.modes])
        U = np.array([[float(sp.N(x.subs(D, val), 30)) for x in m.u] for m in svd.modes])
        np.testing.assert_allclose(V @ V.T, np.eye(len(got)), atol=1e-12)
        np.testing.assert_allclose(U @ U.T, np.eye(len(got)), atol=1e-12)
        for s, u, v in zip(got, U, V):
            np.testing.assert_allclose(Bn @ v, s * u, atol=1e-12)
            np.testing.assert_allclose(Bn.T @ u, s * v, atol=1e-12)
    ref = svd.reference
    for m in svd.modes:
        first = next(float(sp.N(x.subs(ref), 30)) for x in m.v if abs(float(sp.N(x.subs(ref), 30))) > 1e-12)
        assert first > 0


def test_gate_matrix_effective_dataset_untidied_vectors_and_with_pathways():
    """Documented helpers against the definitions (docs/theory.md#effective-datasets):
    Σyx = Y G Xᵀ / P with G = diag(gates), written out by hand for the first XoR pathway
    (gate on datapoint 0 only: Σyx = y₀ x₀ᵀ / 4 = [1, 1, Δ] / 4), and Σyx v = s u exactly for the
    tidied and the untidied singular vectors of every pathway."""
    task = tk.xor_margin()
    spec = tk.GDLNSpec(task, tk.xor_relns()["xor"])
    der = tk.Derivation(spec)
    first = spec.pathways[0].resolve(task)
    assert first.gate_matrix() == sp.diag(1, 0, 0, 0)
    assert der.effective_datasets[first.name].Syx == sp.Matrix([[1, 1, D]]) / 4
    for p in spec.pathways:
        r = p.resolve(task)
        G = r.gate_matrix()
        assert G == sp.diag(*r.active)
        Syx = task.Y[list(r.outputs), :] * G * task.X[list(r.inputs), :].T / task.P
        assert sp.simplify(der.effective_datasets[p.name].Syx - Syx) == sp.zeros(*Syx.shape)
        modes = der.modes[p.name].modes
        assert modes
        for m in modes:
            for u, v in ((m.u_untidied, m.v_untidied), (m.u, m.v)):
                assert sp.simplify(Syx * v - m.s * u) == sp.zeros(Syx.rows, 1)
    # with_pathways: a new spec with the other ReLN, the same task and training; the old one unchanged
    lin = tk.xor_relns()["linear"]
    other = spec.with_pathways(lin)
    assert [p.name for p in other.pathways] == [p.name for p in lin]
    assert [p.name for p in spec.pathways] == [p.name for p in tk.xor_relns()["xor"]]
    assert other.task is spec.task and other.training == spec.training
    assert tk.Derivation(other).effective_datasets["positive"].Syx == sp.Matrix([[0, 0, D / 2]])


def test_radical_reduction_proves_only_true_identities():
    """zero_by_radical_reduction (the exact proof behind is_zero, which decides Assumption 2.1 for symbolic
    tasks) replaces √b by y with y² = b. By hand: (√(Δ+1) + 1)(√(Δ+1) − 1) − Δ = (Δ + 1) − 1 − Δ = 0 and
    √(2Δ)·√(2Δ) − 2Δ = 0 are identities; √Δ − Δ (zero only at Δ ∈ {0, 1}), √(Δ+1) − Δ − 1 and √2·Δ − Δ are
    not, and is_zero must say so (a numeric check at Δ = 0.37 below confirms each is non-zero)."""
    from theorykit.theory.modes import is_zero
    from theorykit.theory.radicals import zero_by_radical_reduction

    D = sp.Symbol("Delta", positive=True)
    r = sp.sqrt(D + 1)
    identities = [(r + 1) * (r - 1) - D, sp.Mul(sp.sqrt(2 * D), sp.sqrt(2 * D), evaluate=False) - 2 * D,
                  (r + D) ** 2 - (D + 1) - 2 * D * r - D ** 2]
    for e in identities:
        assert zero_by_radical_reduction(e), e
        assert is_zero(e)
    for e in (sp.sqrt(D) - D, r - D - 1, sp.sqrt(2) * D - D, (r + 1) ** 2 - D):
        assert abs(float(e.subs(D, 0.37))) > 1e-3             # not identically zero
        assert not zero_by_radical_reduction(e), e
        assert not is_zero(e), e
