"""The rest of the flat namespace names the bad argument and its fix (the sequel of test_api_errors.py):
cases from a probe that fed REPL mistakes (a float for an int, a string, None, 0 or a negative size, a
list for an array and back, a transposed matrix, a bool for an int) to the less used names of
``import theorykit as tk``. Each raised a raw TypeError/AttributeError/SymPy error from deep inside,
returned an absurd result, or named the wrong field before."""
from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import theorykit as tk

TASK = tk.xor_margin(0.5)
LIN = tk.xor_relns()["linear"]
SPEC = tk.GDLNSpec(TASK, LIN)
X2 = np.array([[1.0, 1, -1, -1], [1, -1, 1, -1]])
W = [np.ones((5, 2)), np.ones((1, 5))]                 # hidden × d, p × hidden


def _field(call):
    with pytest.raises(tk.SpecError) as e:
        call()
    return e.value.field


@pytest.mark.parametrize("call,field", [
    (lambda: tk.hierarchy(8.0), "n"),                  # TypeError: float & float
    (lambda: tk.hierarchy(True), "n"),                 # was Matrix([[1]])
    (lambda: tk.hierarchy(6), "n"),                    # was named data.structure
    (lambda: tk.ring("8"), "n"),                       # was "defined for n = 8 items, got n=8"
    (lambda: tk.cross(4), "n"),
    (lambda: tk.structure("identity", 0), "n"),        # was an empty 0 × 0 matrix
    (lambda: tk.structure("identity", -2), "n"),       # SymPy ValueError
    (lambda: tk.structure(None, 8), "spec"),            # SymPy TypeError; the keyword (was data.structure)
    (lambda: tk.contexts(common=None), "common"),     # the keyword (a spec file: data.common)
    (lambda: tk.contexts(context_scale=0), "context_scale"),     # refused in a spec file, ran here
    (lambda: tk.contexts(context_scale=-1), "context_scale"),
    (lambda: tk.contexts(context_scale=float("nan")), "context_scale"),   # SymPy TypeError
    (lambda: tk.contexts(context_scale=None), "context_scale"),
    (lambda: tk.contexts(context_scale=[1, 2, 3]), "context_scale"),     # numpy broadcast error
    (lambda: tk.xor_margin(float("nan")), "delta"),
    (lambda: tk.xor_margin(True), "delta"),
    (lambda: tk.xor_margin([0.5]), "delta"),
    (lambda: tk.xor_margin(1j), "delta"),              # was a task with imaginary inputs
    (lambda: tk.Task(X2, None), "data.targets"),
    (lambda: tk.Task(np.array([[np.nan, 1, 1, 1]]), [[1, -1, -1, 1]]), "data.inputs"),   # was an exact nan
    (lambda: tk.Task(np.ones((2, 2, 4)), [[1, -1, -1, 1]]), "data.inputs"),
    (lambda: tk.Task(X2, [[1, -1, -1, 1]], ["Delta"]), "symbols"),
])
def test_tasks_and_structures(call, field):
    assert _field(call) == field


def test_tasks_take_numpy_numbers():
    """np.int64 sizes raised AttributeError (no bit_length), np.float64 margins and scales
    "TypeError: invalid input": they now give what the Python numbers give."""
    assert tk.hierarchy(np.int64(4)) == tk.hierarchy(4)
    assert tk.contexts(np.int64(4), np.int64(2)).X == tk.contexts(4, 2).X
    assert tk.contexts(4, 2, context_scale=np.float64(1.1)).X == tk.contexts(4, 2, context_scale=1.1).X
    assert tk.xor_margin(np.float64(0.5)).X == TASK.X
    assert tk.xor_margin(0.5).X[2, 0] == sp.Rational(1, 2)          # floats stay exact
    assert tk.contexts(4, 2, context_scale="sqrt(2)").X[4, 0] == sp.sqrt(2)


@pytest.mark.parametrize("call,field", [
    (lambda: tk.xor_relns(128.0), "hidden"),           # was hidden=64.0, refused later as pathways[0].hidden
    (lambda: tk.xor_relns(2), "hidden"),               # the xor ReLN got hidden 0
    (lambda: tk.xor_relns(True), "hidden"),
    (lambda: tk.context_pathways(8.0, 3, [(0,)]), "n"),
    (lambda: tk.context_pathways(8, 3, [(5,)]), "subsets[0]"),     # a pathway on no datapoint
    (lambda: tk.context_pathways(8, 3, [()]), "subsets[0]"),
    (lambda: tk.context_pathways(8, 3, [0, 1]), "subsets[0]"),     # 'int' object is not iterable
    (lambda: tk.context_pathways(8, 3, None), "subsets"),
    (lambda: tk.context_pathways(8, 3, [(0,)], hidden=0), "hidden"),
    (lambda: tk.lemma41_gatings(3.0), "k"),
    (lambda: tk.lemma41_gatings(0), "k"),              # was an empty family
    (lambda: tk.GDLNSpec(TASK, LIN[0]), "pathways"),   # one Pathway, not a list: TypeError
    (lambda: tk.GDLNSpec(TASK, tk.xor_relns()), "pathways"),      # the dict of ReLNs: AttributeError
    (lambda: tk.GDLNSpec(TASK, ["positive"]), "pathways[0]"),
    (lambda: tk.GDLNSpec(None, LIN), "task"),
    (lambda: tk.GDLNSpec(TASK, LIN, name=None), "name"),
    (lambda: tk.graph_from_pathways(TASK), "spec"),
    (lambda: tk.spec_to_toml("examples/xor_linear.toml"), "spec"),
    (lambda: tk.spec_to_toml(tk.Derivation(SPEC)), "spec"),
    (lambda: tk.effective_dataset(SPEC, LIN[0]), "task"),
    (lambda: tk.effective_dataset(TASK, "positive"), "p"),
    (lambda: tk.couplings(TASK), "spec"),
    (lambda: tk.couplings(tk.graph_from_pathways(SPEC)), "spec"),   # GraphPathway has no outputs
])
def test_pathways_specs_and_effective_datasets(call, field):
    assert _field(call) == field


def test_gates_and_rows_may_be_numpy():
    """A numpy gate array was refused as "needs one gate per datapoint" and np.int64(1) as "not 0 or 1"."""
    a = tk.Pathway("positive", np.array([1, 1, 0, 0]), np.array([0, 2]), "all", np.int64(4))
    b = tk.Pathway("positive", (1, 1, 0, 0), (0, 2), "all", 4)
    neg = tk.Pathway("negative", (0, 0, 1, 1), "all", "all", 4)
    assert tk.GDLNSpec(TASK, [a, neg]).pathways[0] == tk.GDLNSpec(TASK, [b, neg]).pathways[0]
    assert tk.GDLNSpec(TASK, [tk.Pathway("p", [np.int64(1)] * 4, [np.int64(0)], "all", 4)]).pathways[0].inputs == (0,)


@pytest.mark.parametrize("call,field", [
    (lambda: tk.exact_svd(None), "M"),
    (lambda: tk.exact_svd(np.ones((2, 2, 2))), "M"),
    (lambda: tk.exact_svd(np.array([[np.nan, 1.0], [0.0, 1.0]])), "M"),   # TypeError inside SymPy's factor
    (lambda: tk.exact_svd(sp.Matrix([[sp.I, 1], [0, 1]])), "M"),          # was the SVD of AᵀA, not AᴴA
    (lambda: tk.exact_svd((np.array([[1, 0], [0, 2]]), 2.0)), "M"),       # FLINT TypeError
    (lambda: tk.exact_svd((np.array([[1, 0], [0, 2]]),)), "M"),           # IndexError
    (lambda: tk.exact_svd((np.array([[0.5, 1]], dtype=object), 1)), "M"),  # was σ = 1: 0.5 truncated to 0
    (lambda: tk.exact_svd((np.array([[None, 1]], dtype=object), 1)), "M"),  # TypeError in a sort
    (lambda: tk.mode_trajectory(0.5, 0), "d"),                             # ZeroDivisionError
    (lambda: tk.mode_trajectory(0.5, 1, a_init=0), "a_init"),
    (lambda: tk.mode_trajectory(0.5, 1, -0.1, 1, 1), "a_init"),           # was a negative strength
    (lambda: tk.mode_trajectory(0.5, 1, 1e-3, 1, -10), "time_const"),
    (lambda: tk.mode_trajectory(0.5, 1, 1e-3, np.arange(3), 10), "exp"),  # an expression holding a list
    (lambda: tk.mode_trajectory(None, 1), "s"),
    (lambda: tk.mode_loss_reduction("0.5", 1, 0.25), "s"),
    (lambda: tk.to_jax(sp.Symbol("x") ** 2, sp.Symbol("x")), "args"),    # 'Symbol' object is not iterable
    (lambda: tk.to_jax(sp.Symbol("x") ** 2, ["x"]), "args"),              # said x is not among the arguments
    (lambda: tk.to_jax(None, [sp.Symbol("x")]), "expr"),
    (lambda: tk.parse_expr("Delta", ["Delta"]), "symbols"),               # TypeError: list indices
    (lambda: tk.parse_expr("Delta", [sp.Symbol("Delta")]), "symbols"),    # "unknown symbol 'Delta' (declared: [Delta])"
    (lambda: tk.parse_expr("Delta", {"Delta": 0.5}), "symbols['Delta']"),  # "expected a number, got a float"
    (lambda: tk.parse_expr(sp.I, {}), "expression"),                       # returned I
])
def test_theory_helpers(call, field):
    assert _field(call) == field


def test_theory_helpers_take_lists_and_tuples():
    """A list of times (with exp=np.exp) or of strengths raised "can't multiply sequence"; a tuple of
    rows was read as (B, den). By hand: a(t) = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}) at s = ½, d = 1,
    a0 = 10⁻³, τ = 10, t = 1: ½/(1 + 499 e^{−0.1}); s a − d a²/2 at a = 0.1: 0.05 − 0.005."""
    a = tk.mode_trajectory(0.5, 1, 1e-3, [0, 1], 10, exp=np.exp)
    np.testing.assert_allclose(a, [1e-3, 0.5 / (1 + 499 * np.exp(-0.1))], rtol=1e-12)
    np.testing.assert_allclose(tk.mode_loss_reduction(0.5, 1, [0.1]), [0.045], rtol=1e-12)
    # ((1, 2), (3, 4)): σ² are the eigenvalues of AᵀA = [[10, 14], [14, 20]]: 15 ± √221
    sv = tk.exact_svd(((1, 2), (3, 4))).singular_values
    assert [float(s) ** 2 for s in sv] == pytest.approx([15 + 221 ** 0.5, 15 - 221 ** 0.5])


@pytest.mark.parametrize("call,field", [
    (lambda: tk.exact_reln_outputs(W, X2.T), "X"),                         # dot_general TypeError
    (lambda: tk.exact_reln_outputs([w.T for w in W], X2), "params[1]"),
    (lambda: tk.exact_reln_outputs(W[:1], X2), "params"),                  # returned W1 X, a hidden layer
    (lambda: tk.exact_reln_outputs({"input->h1": W[0], "h1->output": W[1]}, X2), "params"),
    (lambda: tk.exact_reln_outputs([w[None] for w in W], X2), "params[0]"),   # a batch of networks
    (lambda: tk.exact_reln_outputs(W, sp.Matrix(X2)), "X"),
    (lambda: tk.is_staircase([[1, 0], [1]]), "pattern"),                   # numpy's inhomogeneous shape
    (lambda: tk.poly_bernoulli(2.0, 2), "n"),
    (lambda: tk.poly_bernoulli(-1, 2), "n"),                               # was 0
    (lambda: tk.poly_bernoulli(True, 2), "n"),                             # was B_1^(−2) = 4
    (lambda: tk.classify_context_gating([1, 1, 0, 0], 2.0, 2), "n"),
    (lambda: tk.classify_context_gating([1, 1, 0, 0], "2", 2), "n"),       # "give 22 gates"
    (lambda: tk.classify_context_gating([1, 1, 0, 0], 0, 2), "n"),         # was named pattern
    (lambda: tk.gate_census(np.ones((5, 4)), -2, -2), "n"),                # ValueError: -2 blocks
    (lambda: tk.gate_census(np.ones((5, 4)), 2, 2.0), "k"),
    (lambda: tk.realisable_gate_patterns(0, 2), "n"),                      # a plain ValueError
    (lambda: tk.realisable_gate_patterns(2, 2.5), "k"),
])
def test_reln_and_lemma_helpers(call, field):
    assert _field(call) == field


def test_lemma_helpers_take_numpy_integers():
    """By hand: B_2^(−2) = 14 (the 16 two-by-two patterns less the two XOR ones)."""
    assert tk.poly_bernoulli(np.int64(2), np.int64(2)) == 14
    assert len(tk.realisable_gate_patterns(np.int64(2), 2)) == 14
    assert tk.classify_context_gating([1, 1, 0, 0], np.int64(2), np.int64(2)) == "context-only"


def test_xor_relns_keep_every_unit_of_a_width_not_divisible_by_four():
    # 130 units: 65 + 65 for the linear ReLN, 33 + 33 + 32 + 32 for the XoR one (the remainder one
    # unit each to the first pathways); 128 stays 64 + 64 and 4 × 32. It used to drop 2 units of 130.
    r = tk.xor_relns(130)
    assert [p.hidden for p in r["linear"]] == [65, 65] and [p.hidden for p in r["xor"]] == [33, 33, 32, 32]
    r = tk.xor_relns(131)
    assert [p.hidden for p in r["linear"]] == [66, 65] and [p.hidden for p in r["xor"]] == [33, 33, 33, 32]
    r = tk.xor_relns(128)
    assert [p.hidden for p in r["linear"]] == [64, 64] and [p.hidden for p in r["xor"]] == [32] * 4


@pytest.mark.parametrize("times, discrete", [([0, 10.5], True), ([-5, 0], False), ([-5, 0], True),
                                             ([np.nan], False), ([0, np.inf], False), ("abc", False)])
def test_predict_loss_refuses_times_that_are_not_steps(times, discrete):
    """Gradient steps are finite and ≥ 0, and whole for the discrete recurrence (10.5 used to be read
    as 10, a negative step raised an IndexError, NaN gave NaN)."""
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"]))
    with pytest.raises(tk.SpecError) as e:
        der.predict_loss(times, values={"Delta": 1}, discrete=discrete)
    assert e.value.field == "times"


def test_discrete_prediction_of_modes_with_equal_numbers_is_each_modes_own_recurrence():
    """The four XoR pathways at Δ = 1 each see one datapoint x = (±1, ±1, ±1): Σyx = y xᵀ/4, so all four
    share (s, d) = (|x|/4, |x|²/4) = (√3/4, 3/4), computed once. The loss is still ½ tr Σy − Σ (s a − ½ d a²)
    over every mode (docs/theory.md#mode-loss), each a from the recurrence a ← a(1 + (s − d a)/τ)²
    (docs/theory.md#time-conventions) written here, s and d from numpy's SVD of each pathway's Σyx and
    Σx. That form cancels near 1e-16 of L(0) = ½, hence the absolute tolerance on the tail."""
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["xor"], tk.Training(lr=0.05, a0=1e-3))
    der = tk.Derivation(spec)
    times = np.arange(0, 401, 40)
    got = der.predict_loss(times, values={"Delta": 1}, discrete=True)
    X, Y = spec.task.numeric({"Delta": 1})
    P, tau = X.shape[1], 1 / 0.05
    want = np.full(len(times), 0.5 * np.sum(Y * Y) / P)
    for p in spec.pathways:
        g = np.asarray(p.active, float)
        Syx, Sx = (Y * g) @ X.T / P, (X * g) @ X.T / P
        u, sv, vt = np.linalg.svd(Syx)
        for k in range(int(np.sum(sv > 1e-12))):
            s_, d_ = sv[k], vt[k] @ Sx @ vt[k]
            a = [1e-3]
            for _ in range(400):
                a.append(a[-1] * (1 + (s_ - d_ * a[-1]) / tau) ** 2)
            a = np.array(a)[times]
            want -= s_ * a - 0.5 * d_ * a ** 2
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-15)
    assert want[-1] < 1e-9                  # the tail is reached: the recurrences really ran


def test_a_misspelt_pathway_name_in_a_result_dict_lists_the_names():
    """der.modes["postive"]: a KeyError that names the pathways there are (it was a bare KeyError)."""
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]))
    for result in (der.modes, der.t_half):
        with pytest.raises(KeyError) as e:
            result["postive"]
        assert "'positive', 'negative'" in str(e.value)
    assert der.modes.get("postive") is None and "positive" in der.modes     # the rest of a dict unchanged


def test_a_pathway_sees_all_inputs_and_writes_all_outputs_by_default():
    """tk.Pathway(name, gates): inputs and outputs "all", as a spec file's [[pathways]] default them
    (docs/specs.md); on XoR with margin (3 inputs, 1 output) that is rows (0, 1, 2) and (0,)."""
    spec = tk.GDLNSpec(tk.xor_margin(), [tk.Pathway("a", (1, 0, 0, 0)), tk.Pathway("b", (0, 1, 1, 1), hidden=4)])
    assert [(p.inputs, p.outputs, p.hidden) for p in spec.pathways] == [((0, 1, 2), (0,), 16), ((0, 1, 2), (0,), 4)]


@pytest.mark.parametrize("flat", [[1, 2, 3], (1, 2, 3), np.array([1.0, 2.0, 3.0]), ["Delta", 1, 2]])
def test_a_flat_list_of_data_is_refused_as_ambiguous(flat):
    """Datapoints are columns, so [1, 2, 3] could be one datapoint of 3 features or 3 datapoints of
    one feature. SymPy read it as a 3 × 1 column: tk.Task([1, 2, 3], [[1, 0, 1]]) said the targets had
    3 datapoints "but inputs have 1", and tk.Task([1, 2, 3], [1, 0, 1]) was taken, silently, as ONE
    datapoint with 3 features and 3 outputs. Refused now, naming the field and both readings."""
    with pytest.raises(tk.SpecError) as err:
        tk.Task(flat, [[1, 0, 1]], symbols={"Delta": sp.Symbol("Delta")})
    assert err.value.field == "data.inputs"
    assert "flat list of 3 entries" in str(err.value) and "[[v1, …, v3]]" in str(err.value)
    with pytest.raises(tk.SpecError) as err:
        tk.Task([[1, 2, 3]], [1, 0, 1])
    assert err.value.field == "data.targets"
    # the nested forms it points to are read as said: 3 datapoints of one feature; one of 3 features
    assert (tk.Task([[1, 2, 3]], [[1, 0, 1]]).P, tk.Task([[1], [2], [3]], [[1]]).P) == (3, 1)
