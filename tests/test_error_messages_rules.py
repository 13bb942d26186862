"""Errors name the bad field and say how to fix it: cases from an error-message auditor, who listed every
``raise`` in theorykit and fed REPL mistakes to the flat namespace, the documented subpackage helpers and
the command line. Each of these raised a bare ValueError/TypeError/AttributeError (or an error whose text
contradicted itself, or a hint that pointed the wrong way) before; each now raises theorykit's SpecError
(still a ValueError) naming the field, with a fix."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.cli import main

EX = Path(__file__).resolve().parent.parent / "examples"
XOR = str(EX / "xor_linear.toml")          # Delta declared nonnegative


@pytest.fixture(scope="module")
def lin():
    return tk.load_spec(XOR)


def _err(call) -> tk.SpecError:
    with pytest.raises(tk.SpecError) as e:
        call()
    assert isinstance(e.value, ValueError)      # callers catching the ValueError of before still do
    assert "(fix: " in str(e.value)
    return e.value


# -- symbol values ----------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda s: tk.Derivation(s, values="Delta=0.5"),                 # AttributeError: 'str' has no .items
    lambda s: tk.Derivation(s).predict_loss([0, 10], values=[0.5]),
    lambda s: tk.Derivation(s).race_system("Delta=0.5"),
    lambda s: s.task.subs("Delta=0.5"),
    lambda s: s.task.numeric([0.5]),
])
def test_values_that_are_not_a_dict_are_named(lin, call):
    e = _err(lambda: call(lin))
    assert e.field == "values" and "values={'Delta': 0.5}" in e.fix


def test_a_sympy_symbol_key_with_other_assumptions_is_explained(lin):
    """values={sp.Symbol("Delta"): 0.5}: SymPy's Delta without assumptions is not the task's nonnegative
    Delta. The message read "the task has no symbol 'Delta' (its symbols: ['Delta'])"."""
    for call in (lambda: tk.simulate(lin, values={sp.Symbol("Delta"): 0.5}, steps=2, seeds=1),
                 lambda: tk.Derivation(lin, values={sp.Symbol("Delta"): 0.5})):
        e = _err(call)
        assert e.field == "values" and "Symbol('Delta')" in e.problem and "nonnegative=True" in e.problem
        assert "values={'Delta': 0.5}" in e.fix and "task.symbols['Delta']" in e.fix
    # the two fixes it names work, and agree: the task's own symbol and the name give one loss
    own = lin.task.symbols["Delta"]
    np.testing.assert_array_equal(tk.Derivation(lin, values={own: 0.5}).predict_loss([0, 10]),
                                  tk.Derivation(lin, values={"Delta": 0.5}).predict_loss([0, 10]))
    # a symbol the task lacks altogether keeps its own message
    assert "no symbol 'Gamma'" in _err(lambda: tk.Derivation(lin, values={sp.Symbol("Gamma"): 1})).problem


# -- the flat namespace -----------------------------------------------------------------------------

@pytest.mark.parametrize("args,field", [
    (("a", 1), "s"),                         # TypeError: Symbol / str
    ((None, 1), "s"),                        # AttributeError: None.is_number
    (([0.5, 0.2], 1), "s"),                  # AttributeError: list.is_number
    ((np.array([0.5, 0.2]), 1), "s"),        # SymPy's NDimArray has no as_coefficient
    ((0.5, "1"), "d"),
])
def test_t_half_takes_one_number_or_expression(args, field):
    e = _err(lambda: tk.t_half(*args))
    assert e.field == field and f"{field}=0.5" in e.fix


def test_t_half_still_takes_numpy_and_sympy_numbers():
    # by hand: t½ = τ/(2s) ln(s/(d a0) − 1) = 10/(2·½) ln(½/10⁻³ − 1) = 10 ln 499
    assert float(tk.t_half(np.float64(0.5), np.int64(1), a_init=1e-3, time_const=10)) == pytest.approx(10 * np.log(499))
    s = sp.Symbol("s", positive=True)
    assert tk.t_half(s, 1, a_init=sp.Rational(1, 1000), time_const=10) == 5 / s * sp.log(1000 * s - 1)


@pytest.mark.parametrize("training", [None, {"steps": 100}])
def test_predict_reln_names_a_missing_training(training):
    e = _err(lambda: tk.predict_reln(tk.xor_margin(0.5), 8, training, progress=False))   # AttributeError
    assert e.field == "training" and "tk.Training(" in e.fix


@pytest.mark.parametrize("arg,fix", [(None, "tk.load_spec(\""), ({"data": {"task": "xor-margin"}}, "tk.spec_from_dict"),
                                     (3, "tk.load_spec(\"")])
def test_load_spec_names_a_path_that_is_not_one(arg, fix):
    for load in (tk.load_spec, tk.load_task):        # pathlib's TypeError before
        e = _err(lambda: load(arg))
        assert e.field == "spec" and fix in e.fix


def test_load_spec_of_a_spec_says_it_is_one_already(lin):
    e = _err(lambda: tk.load_spec(lin))
    assert e.field == "spec" and "spec already" in e.fix


def test_a_depth_that_is_not_a_number_is_named_as_such():
    """depth="2" read "depth '2' is not supported (fix: use 2 (one hidden layer) or 3)"."""
    e = _err(lambda: tk.GDLNSpec(tk.xor_margin(), [tk.Pathway("a", "all", depth="2")]))
    assert e.field == "pathways[0].depth" and "needs an integer" in e.problem and "depth=2" in e.fix
    # the one integer rule's words, as a spec file's depth = 4 reads
    assert _err(lambda: tk.GDLNSpec(tk.xor_margin(), [tk.Pathway("a", "all", depth=4)])).problem == \
        "4 is out of range: must be between 2 and 3"


def test_plot_names_a_der_or_sim_that_is_not_one(lin, tmp_path):
    """tk.plot(sim="run.json") raised AttributeError ('str' has no attribute 'saved'); tk.plot(der=spec)
    drew a figure whose only curve was the note "no theory curve: 'GDLNSpec' object has no attribute ..."."""
    e = _err(lambda: tk.plot(sim="run.json"))
    assert e.field == "sim" and "tk.simulate(" in e.fix
    e = _err(lambda: tk.plot(tmp_path / "a.png", der=lin, times=[0, 10]))
    assert e.field == "der" and "tk.Derivation(spec)" in e.fix
    assert not (tmp_path / "a.png").exists()


def test_to_jax_says_why_a_symbol_of_the_same_name_is_not_an_argument(lin):
    """to_jax(der.loss, [t, tau, a0, sp.Symbol("Delta")]) said "free symbols ['Delta'] are not among the
    arguments" about the Delta it was given: the task's Delta is nonnegative, a different SymPy symbol."""
    from theorykit.theory.jaxify import NotJaxSafe
    from theorykit.theory.trajectory import a0, t, tau

    der = tk.Derivation(lin)
    with pytest.raises(NotJaxSafe) as e:
        tk.to_jax(der.loss, [t, tau, a0, sp.Symbol("Delta")])
    assert "same name with other assumptions" in str(e.value) and "der.task.symbols['Delta']" in str(e.value)
    with pytest.raises(NotJaxSafe) as e:
        tk.to_jax(der.loss, [t, tau, a0])
    assert "(fix: add them to the arguments" in str(e.value)
    # the fix it names works. By hand at t = 0, Δ = ½ (P = 4, mean loss): each pathway of the linear ReLN sees
    # two datapoints, Σyx = (0, 0, 2Δ/4): s = Δ/2 = ¼, d = 2Δ²/4 = ⅛; L(0) = ½ tr Σyy − 2 (s a0 − ½ d a0²)
    # = ½ − 2 (¼·10⁻³ − ½·⅛·10⁻⁶) = 0.499500125
    f = tk.to_jax(der.loss, [t, tau, a0, der.task.symbols["Delta"]])
    assert float(f(0.0, 20.0, 1e-3, 0.5)) == pytest.approx(0.499500125, rel=1e-12)


@pytest.mark.parametrize("call,field", [
    (lambda lem: tk.interlacing_holds("abc", [0], [0]), "A"),            # numpy's "could not convert string"
    (lambda lem: tk.interlacing_holds(np.ones(3), [0], []), "A"),
    (lambda lem: lem.interlacing_bounds([["a", 1]], [], []), "A"),
    (lambda lem: lem.exact_squared_singular_values(sp.Matrix([[sp.Symbol("x"), 1], [0, 1]])), "A"),
    (lambda lem: tk.interlacing_holds_exact(sp.Matrix([[sp.Symbol("x"), 1], [0, 1]]), [0], [0]), "A"),  # NotImplementedError
])
def test_interlacing_helpers_name_a_matrix_they_cannot_read(call, field):
    from theorykit.theory import lemmas

    assert _err(lambda: call(lemmas)).field == field


# -- documented subpackage helpers (docs/api.md) ----------------------------------------------------

def test_unit_gates_name_on_blocks_and_rule():
    from theorykit.theory.gates import UnitGates

    assert _err(lambda: UnitGates(np.ones(4))).field == "on"
    e = _err(lambda: UnitGates(np.ones((2, 4)), blocks=3))
    assert e.field == "blocks" and "divisor of 4" in e.fix
    e = _err(lambda: UnitGates(np.ones((2, 4)), rule="majorty"))
    assert e.field == "rule" and "'majority'" in e.fix
    assert _err(lambda: UnitGates(np.ones((2, 2, 4))).groups()).field == "on"
    assert UnitGates(np.ones((2, 4)), blocks=2).items == 2          # P = blocks · items = 2 · 2


def test_lemma_helpers_name_their_pattern():
    from theorykit.theory import lemmas

    e = _err(lambda: lemmas.pattern_from_gates(np.ones((3, 5)), 2, 2))
    assert e.field == "gates" and "n·k = 4" in e.problem
    e = _err(lambda: lemmas.staircase_weights(np.eye(2, dtype=int)))      # the XoR pattern: no staircase
    assert e.field == "pattern" and "is_staircase" in e.fix
    assert _err(lambda: tk.lp_realisable(np.array([1, 0, 1]))).field == "pattern"   # unpacking its shape
    assert _err(lambda: tk.lp_realisable([[2, 0], [0, 1]])).field == "pattern"    # a gate of 2 was "on"
    # the identity holds the XoR pattern (not realisable); the staircase [[1, 0], [1, 1]] is realisable
    assert tk.lp_realisable([[1, 0], [0, 1]])[0] is False and tk.lp_realisable([[1, 0], [1, 1]])[0] is True


def test_exact_squared_singular_values_refuses_a_complex_matrix():
    """diag(i, 1): AᵀA = diag(−1, 1) gave "squared singular values" [1, −1]; those of AᴴA are 1, 1."""
    from theorykit.theory import lemmas

    e = _err(lambda: lemmas.exact_squared_singular_values(sp.Matrix([[sp.I, 0], [0, 1]])))
    assert e.field == "A" and "real" in e.fix
    # by hand: [[1, 2], [3, 4]]ᵀ[[1, 2], [3, 4]] = [[10, 14], [14, 20]]: eigenvalues 15 ± √221
    assert lemmas.exact_squared_singular_values([[1, 2], [3, 4]]) == [15 + sp.sqrt(221), 15 - sp.sqrt(221)]


@pytest.mark.parametrize("call,field", [
    (lambda fg: fg.unit_rows(np.ones(5)), "snapshots"),
    (lambda fg: fg.cluster_gates(np.ones((4, 4)), 2, n_init=1), "n_init"),
    (lambda fg: fg.choose_elbow([], []), "scores"),
    (lambda fg: fg.choose_elbow([1, 2], [1.0]), "scores"),
    (lambda fg: fg.choose_elbow([1, 2], [1.0, 0.5], threshold=2), "threshold"),
    (lambda fg: fg.choose_elbow([1, 2], [1.0, 0.5], rule="knee"), "rule"),
])
def test_find_gates_helpers_name_their_argument(call, field):
    from theorykit.analysis import findgates

    assert _err(lambda: call(findgates)).field == field


def test_write_figure_names_the_path(tmp_path):
    from theorykit.io import new_figure, write_figure

    fig = new_figure()
    fig = fig[0] if isinstance(fig, tuple) else fig
    e = _err(lambda: write_figure(fig, tmp_path / "loss.jpg"))
    assert e.field == "path" and "loss.png" in e.fix
    assert not (tmp_path / "loss.jpg").exists()


# -- the command line -------------------------------------------------------------------------------

def _cli_error(capsys, argv) -> str:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_an_option_of_another_command_is_named_as_such(capsys):
    """`theorykit simulate SPEC --lr 0.1` answered "did you mean: --lr -> --plot?" (difflib's nearest
    option). simulate has no --lr: the learning rate is the spec's [training] lr."""
    err = _cli_error(capsys, ["simulate", XOR, "--lr", "0.1"])
    assert "--lr -> --plot" not in err
    assert "--lr is an option of theorykit find-gates and compare, not of theorykit simulate" in err
    assert "[training] lr" in err
    err = _cli_error(capsys, ["simulate", XOR, "--out", "o.json"])
    assert "--out -> --plot" not in err and "not of theorykit simulate" in err and "simulate --help" in err


def test_set_with_a_space_says_to_write_one_word(capsys):
    """`--set Delta 0.5` left "unrecognized arguments: 0.5" and no word on why."""
    err = _cli_error(capsys, ["derive", XOR, "--set", "Delta", "0.5"])
    assert "unrecognized arguments: 0.5" in err and "--set Delta=0.5" in err


def test_a_misspelt_example_names_the_nearest_one():
    """example_path("xor_lin.toml") said only that it was not found beside theorykit."""
    from theorykit.spec.files import example_path

    with pytest.raises(FileNotFoundError) as e:       # the type callers (and read_toml's hint) catch
        example_path("xor_lin.toml")
    assert "did you mean 'xor_linear.toml'?" in str(e.value)
    assert example_path("xor_linear.toml") == EX / "xor_linear.toml"


def test_spec_from_dict_of_a_path_points_to_load_spec():
    """spec_from_dict("x.toml") said "spec: must be a table (fix: see docs/specs.md)"."""
    e = _err(lambda: tk.spec_from_dict("examples/xor_linear.toml"))
    assert e.field == "spec" and "got a string" in e.problem and "tk.load_spec(path)" in e.fix
    e = _err(lambda: tk.spec_from_dict(None))
    assert e.field == "spec" and "{'data': {'task': 'xor-margin'}" in e.fix


def test_reln_grid_start_names_hidden():
    """A ReLN of 3 units on a ReLU network of 4: a bare ValueError, now SpecError naming hidden."""
    import jax
    from theorykit.sim import grid

    task = tk.xor_margin(0.5)
    X, Y = task.numeric()
    paths = tk.GDLNSpec(task, [tk.Pathway("p", (1, 1, 1, 1), "all", "all", 3)]).pathways
    e = _err(lambda: grid.reln_grid_start(X[None], Y, jax.random.split(jax.random.PRNGKey(0), 1), paths, task=task,
                                          hidden=4, std=0.1))
    assert e.field == "hidden" and "hidden=3" in e.fix


# -- the trainer for your own Net (theorykit.sim.engine.train_net) ----------------------------------

@pytest.fixture(scope="module")
def chain():
    from theorykit.net.layout import Net
    from theorykit.net.starts import random_params

    net = Net.chain(3, [4], 1)                       # W1 4 × 3, W2 1 × 4
    return net, random_params(net, 0.1, seeds=2)


X3 = np.array([[1.0, 1, -1, -1], [1, -1, 1, -1], [0.5, 0.5, -0.5, -0.5]])
Y1 = np.array([[1.0, -1, -1, 1]])


@pytest.mark.parametrize("change,field,fix", [
    (dict(data=(X3[:2], Y1)), "data", "3 × P"),                     # JAX's dot_general TypeError
    (dict(data=(X3, Y1[:, :3])), "data", "3 × P"),
    (dict(data=X3), "data", "data=(X, Y)"),                         # too many values to unpack
    (dict(drop="h1->output"), "params0", "net.shapes()"),           # KeyError: 'h1->output'
    (dict(transpose="input->h1"), "params0['input->h1']", "random_params"),
    (dict(lr=-0.1), "lr", "lr=0.05"),                               # ran gradient ascent
    (dict(lr=float("nan")), "lr", "lr=0.05"),
    (dict(lr="0.1"), "lr", "lr=0.05"),
])
def test_train_net_checks_weights_data_and_lr_against_the_net(chain, change, field, fix):
    from theorykit.sim.engine import train_net

    net, p0 = chain
    p0 = dict(p0)
    if "drop" in change:
        p0.pop(change["drop"])
    if "transpose" in change:
        k = change["transpose"]
        p0[k] = np.swapaxes(np.asarray(p0[k]), 1, 2)
    data = change.get("data", (X3, Y1))
    e = _err(lambda: train_net(net, p0, data, lr=change.get("lr", 0.1), steps=2))
    assert e.field == field and fix in e.fix


def test_train_net_still_trains_what_fits(chain):
    """The checks pass what they should: 2 members, X 3 × 4, Y 1 × 4, one lr per member. By hand, at
    step 0 the mean loss is ½ · mean over datapoints of (ŷ − y)² summed over outputs: ½ Σ (W2 relu(W1 x) − y)²/P."""
    from theorykit.sim.engine import train_net

    net, p0 = chain
    res = train_net(net, p0, (X3, Y1), lr=np.array([0.05, 0.1]), steps=2)
    W1, W2 = np.asarray(p0["input->h1"]), np.asarray(p0["h1->output"])
    L0 = [0.5 * np.sum((W2[m] @ np.maximum(W1[m] @ X3, 0) - Y1) ** 2) / 4 for m in range(2)]
    np.testing.assert_allclose(res.loss[:, 0], L0, rtol=1e-12)


@pytest.mark.parametrize("call,field", [
    (lambda net, rp: rp(net, -0.1), "scales"),                                        # drew weights, sign flipped
    (lambda net, rp: rp(net, {"input->h1": 0.1}), "scales"),                          # KeyError: 'h1->output'
    (lambda net, rp: rp(net, {"input->h1": 0.1, "h1->output": float("nan")}), "scales['h1->output']"),
    (lambda net, rp: rp(net, "abc"), "scales"),                                       # float('abc') ValueError
    (lambda net, rp: rp(net, None), "scales"),                                        # dict(None) TypeError
    (lambda net, rp: rp(net, 0.1, seeds=0), "seeds"),                                 # an ensemble of no network
])
def test_random_params_checks_its_scales_and_seeds(call, field):
    from theorykit.net.layout import Net
    from theorykit.net.starts import random_params

    assert _err(lambda: call(Net.chain(3, [4], 1), random_params)).field == field


def test_net_chain_of_one_width_and_an_aligned_start_of_negative_strength():
    from theorykit.net.layout import Net
    from theorykit.net.starts import aligned_net_params

    e = _err(lambda: Net.chain(3, 4, 1))                 # TypeError: object of type 'int' has no len()
    assert e.field == "widths" and "[4]" in e.fix
    assert Net.chain(3, (4,), 1).shapes() == {"input->h1": (4, 3), "h1->output": (1, 4)}
    # a0 = −1 gave NaN weights (√a0)
    assert _err(lambda: aligned_net_params(Net.chain(3, [4], 1, relu=False), X3, Y1, -1.0)).field == "a0"


# -- curve metrics (theorykit.curves) ---------------------------------------------------------------

@pytest.mark.parametrize("call,field", [
    (lambda c: c.learning_time("abc"), "curves"),                                 # could not convert string
    (lambda c: c.learning_time(0.5), "curves"),                                   # IndexError: a 0-d array
    (lambda c: c.learning_time(np.ones((2, 5)), times=[0, 1]), "times"),          # IndexError in the loop
    (lambda c: c.curve_distance(np.ones(5), np.ones(4)), "b"),                    # operands could not be broadcast
    (lambda c: c.loss_metrics(np.arange(5), np.ones(4)), "loss"),                 # numpy's trapezoid error
])
def test_curve_metrics_name_the_curve_that_does_not_fit(call, field):
    from theorykit import curves

    assert _err(lambda: call(curves)).field == field


def test_curve_metrics_still_measure():
    """By hand: L = 1, 0.6, 0.4, 0.2 at t = 0, 10, 20, 30 reaches ½ L(0) between 10 and 20, at
    10 + 10 (0.6 − 0.5)/(0.6 − 0.4) = 15; the RMS distance of (0, 0) and (3, 4) is √(25/2)."""
    from theorykit import curves

    assert curves.learning_time(np.array([1.0, 0.6, 0.4, 0.2]), 0.5, times=[0, 10, 20, 30]) == pytest.approx(15.0)
    assert curves.curve_distance([0.0, 0.0], [3.0, 4.0]) == pytest.approx(np.sqrt(12.5))
    assert curves.loss_metrics(np.array([0.0, 10, 20, 30]), np.array([1.0, 0.6, 0.4, 0.2]))["t_0.5"] == pytest.approx(15.0)


def test_to_jax_of_a_function_jax_lacks_says_what_to_do():
    """to_jax(lowergamma(x, 2), [x]) passed on SymPy's printer text, "Set the printer option 'strict'
    to False", an option to_jax does not take, and no way out."""
    from theorykit.theory.jaxify import NotJaxSafe

    x = sp.Symbol("x")
    with pytest.raises(NotJaxSafe) as e:
        tk.to_jax(sp.lowergamma(x, 2), [x])
    assert "lowergamma" in str(e.value) and "(fix: " in str(e.value) and "strict" not in str(e.value)


@pytest.mark.parametrize("call,field", [
    (lambda: tk.context_gating_mismatch(np.ones((3, 5)), 2, 2), "pre"),    # reshape's "cannot reshape array"
    (lambda: tk.context_gating_mismatch(np.ones((4, 5)), 2, 2), "pre"),    # P × H: was read as 5 units
    (lambda: tk.context_gating_mismatch("x", 2, 2), "pre"),
    (lambda: tk.context_gating_mismatch(np.ones((1, 4)), 0, 2), "n"),
])
def test_context_gating_mismatch_checks_its_pre_activations(call, field):
    assert _err(call).field == field


def test_context_gating_mismatch_still_measures():
    """By hand, n = k = 2, one unit pre = (1, −1 | 2, 2) (context-major): context 0 costs min(1, 1) = 1,
    context 1 min(0, 4) = 0, over Σ|pre| = 6: 1/6; a flat pre of one unit reads the same."""
    assert tk.context_gating_mismatch(np.array([[1.0, -1, 2, 2]]), 2, 2) == pytest.approx([1 / 6])
    assert tk.context_gating_mismatch(np.array([1.0, -1, 2, 2]), 2, 2) == pytest.approx([1 / 6])


@pytest.mark.parametrize("call,field", [
    (lambda lem, pat: lem.has_xor_subpattern(np.ones(4)), "pattern"),              # IndexError
    (lambda lem, pat: lem.all_patterns(-1, 2), "n"),                               # numpy reshape error
    (lambda lem, pat: pat.realisable_patterns(np.ones(4)), "X"),                   # "not enough values to unpack"
    (lambda lem, pat: pat.data_symmetries(np.ones(4), np.ones((1, 4))), "X, Y"),   # IndexError
])
def test_pattern_helpers_name_a_flat_array(call, field):
    from theorykit.analysis import patterns
    from theorykit.theory import lemmas

    assert _err(lambda: call(lemmas, patterns)).field == field


@pytest.mark.parametrize("call,field", [
    (lambda lem: lem.top_singular_value("abc"), "A"),           # could not convert string to float
    (lambda lem: lem.singular_values([1.0, 2.0, 3.0]), "A"),    # LinAlgError: at least two-dimensional
    (lambda lem: lem.gate_pattern("a", [1.0]), "w_item"),
    (lambda lem: lem.gate_pattern([1.0], [[1.0]]), "w_context"),
])
def test_singular_values_and_gate_pattern_name_their_argument(call, field):
    from theorykit.theory import lemmas

    assert _err(lambda: call(lemmas)).field == field
    # by hand: σ of diag(3, 4) are 4, 3; G[i, c] = 1[a_i + b_c > 0] for a = (½, −1), b = (0, −1)
    assert lemmas.top_singular_value([[3, 0], [0, 4]]) == pytest.approx(4.0)
    assert lemmas.gate_pattern([0.5, -1], [0.0, -1.0]).tolist() == [[True, False], [False, False]]


def test_write_json_names_where_a_non_finite_number_sits(tmp_path):
    """io.write_json({"loss": [0.5, nan]}) said only "refusing to write a non-finite number (nan)": in a
    result of many curves, not where. It names the entry now (still a ValueError), and writes nothing."""
    from theorykit.cli.common import json_text
    from theorykit.io import write_json

    e = _err(lambda: write_json(tmp_path / "r.json", {"loss": [0.5, float("nan")], "s": {"x": np.array([1, np.inf])}}))
    assert e.field == "result['loss'][1]" and "non-finite" in e.problem and "nothing was written" in e.fix
    assert not (tmp_path / "r.json").exists()
    assert _err(lambda: write_json(tmp_path / "r.json", {"s": {"x": np.array([1, np.inf])}})).field == "result['s']['x'][1]"
    # the command line's wrapper keeps one "(fix: …)": its own
    e = _err(lambda: json_text({"loss": [float("inf")]}))
    assert e.field == "training" and "result['loss'][0]" in e.problem and str(e).count("(fix: ") == 1


def test_not_jax_safe_is_a_theorykit_error():
    """``except tk.TheorykitError`` catches every theorykit error, NotJaxSafe included (it was a bare
    ValueError subclass, so such a handler missed an expression with a free symbol left over)."""
    x, y = sp.Symbol("x"), sp.Symbol("y")
    with pytest.raises(tk.TheorykitError, match="not among the arguments"):
        tk.to_jax(x * y, [x])
    with pytest.raises(ValueError):     # still a ValueError, for callers that catch that
        tk.to_jax(x * y, [x])


def test_plot_refuses_a_misspelt_symbol_name():
    """``tk.plot(der=…, values={"delta": 0.5})`` on the task of Δ = "Delta": a SpecError naming
    ``values`` and the task's symbols; it drew a figure whose only theory was a "no theory curve" note."""
    der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns(hidden=8)["linear"]))
    with pytest.raises(tk.SpecError) as e:
        tk.plot(der=der, values={"delta": 0.5}, times=[0.0, 10.0])
    assert e.value.field == "values" and "'Delta'" in str(e.value) and "delta" in str(e.value)
    assert tk.plot(der=der, values={"Delta": 0.5}, times=[0.0, 10.0]) is not None     # the right name draws
