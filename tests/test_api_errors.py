"""The Python API names the bad argument and its fix, as the command line does: cases from a review
that fed typical mistakes to the public functions (each of these ran silently, gave a wrong number,
or raised a raw NumPy/JAX/SymPy/scikit-learn exception before)."""
from __future__ import annotations

import numpy as np
import pytest

import theorykit as tk

X = np.array([[1, 1, -1, -1], [1, -1, 1, -1], [0.5, 0.5, -0.5, -0.5]])   # XoR at Δ = ½, datapoints as columns
Y = np.array([[1.0, -1.0, -1.0, 1.0]])


@pytest.fixture(scope="module")
def lin():
    return tk.load_spec("examples/xor_linear.toml")


def _field(call):
    with pytest.raises(tk.SpecError) as e:
        call()
    return e.value.field


def test_symbol_values_are_checked_against_the_task_and_its_assumptions(lin):
    """xor_linear.toml declares Delta nonnegative, so the derivation wrote √(Δ²) as Δ: Δ = −½ gave a
    silently wrong curve through predict_loss. A symbol the task lacks was ignored by Derivation."""
    assert _field(lambda: tk.Derivation(lin).predict_loss([0, 10], values={"Delta": -0.5})) == "values[Delta]"
    assert _field(lambda: tk.Derivation(lin, values={"Delta": -0.5})) == "values[Delta]"
    assert _field(lambda: tk.Derivation(lin, values={"Gamma": 0.5})) == "values"
    assert _field(lambda: tk.Derivation(lin, values={"Delta": "half"})) == "values[Delta]"


def test_numpy_numbers_are_numbers(lin):
    """np.float64(0.5) raised "TypeError: invalid input: np.float64(0.5)" in simulate and Derivation:
    its repr is not a number's. They now give what 0.5 gives."""
    der = tk.Derivation(lin)
    want = der.predict_loss([0, 100], values={"Delta": 0.5})
    for v in (np.float64(0.5), np.float32(0.5)):
        np.testing.assert_array_equal(tk.Derivation(lin, values={"Delta": v}).predict_loss([0, 100]), want)
    a = tk.simulate(lin, values={"Delta": np.float64(0.5)}, steps=5, seeds=1)
    b = tk.simulate(lin, values={"Delta": 0.5}, steps=5, seeds=1)
    np.testing.assert_array_equal(a.loss, b.loss)


@pytest.mark.parametrize("kw,field", [
    ({"source": (X.T, Y.T)}, "source"),                 # datapoints as rows: Y broadcast and it trained
    ({"source": (X, Y.ravel())}, "source"),
    ({"hidden": 0}, "hidden"), ({"hidden": []}, "hidden"), ({"hidden": [8, 0]}, "hidden"),
    ({"seeds": 0}, "seeds"), ({"lr": -0.1}, "lr"), ({"lr": float("nan")}, "lr"),
])
def test_simulate_on_data_names_the_bad_argument(kw, field):
    args = {"source": (X, Y), "network": "relu", "hidden": 8, "lr": 0.1, "steps": 5, **kw}
    src = args.pop("source")
    assert _field(lambda: tk.simulate(src, **args)) == field


@pytest.mark.parametrize("kw,field", [({"lr": -0.1}, "lr"), ({"a0": 0}, "a0"), ({"init_std": -1}, "init_std"),
                                      ({"init_std": {"positive": 0.0}}, "init_std['positive']")])
def test_simulate_overrides_are_checked_as_the_specs_settings_are(lin, kw, field):
    """Training(lr=-0.1) is refused, but simulate(..., lr=-0.1) ran gradient ascent: an override now
    meets the setting's own rule (a positive number)."""
    assert _field(lambda: tk.simulate(lin, values={"Delta": 0.5}, steps=5, seeds=1, **kw)) == field


@pytest.mark.parametrize("kw,field", [({"K": 0}, "K"), ({"K": 2.5}, "K"), ({"seeds": 0}, "seeds"),
                                      ({"Ks": []}, "Ks"), ({"Ks": [0, 1]}, "Ks"), ({"hidden": 0}, "hidden")])
def test_find_gates_checks_before_training(kw, field, monkeypatch):
    """K = 0 reached scikit-learn (InvalidParameterError), seeds = 0 a range() error, Ks = [] a ValueError
    after every network had trained, hidden = 0 was reported as --K. All are checked first now."""
    import theorykit.analysis.findgates as fg

    monkeypatch.setattr(fg, "train_relu", lambda *a, **k: pytest.fail("trained"))
    args = {"seeds": 1, "steps": 10, "hidden": 4, **kw}
    assert _field(lambda: tk.find_gates(tk.xor_margin(), values={"Delta": 0.5}, **args)) == field


def test_float64_runs_refuse_when_x64_was_turned_off_after_import():
    """theorykit turns JAX's x64 mode on at import. A user who turned it off later got float32 runs
    labelled float64 (simulate's extra["dtype"]) and a float32 race (the tail of predict_loss went to
    0). Such a run is refused, naming dtype; float32 asked for runs. In a fresh process: x64 is global."""
    import subprocess
    import sys

    code = """
import jax, theorykit as tk
spec = tk.load_spec("examples/xor_linear.toml")
race = tk.Derivation(tk.load_spec("examples/contexts_double.toml"))
jax.config.update("jax_enable_x64", False)
out = []
for call in (lambda: tk.simulate(spec, values={"Delta": 0.5}, steps=3, seeds=1),
             lambda: race.predict_loss([0, 100])):
    try:
        call()
        out.append("ran")
    except tk.SpecError as e:
        out.append(e.field)
r = tk.simulate(spec, values={"Delta": 0.5}, steps=3, seeds=1, dtype="float32")
out.append(str(r.params["input->positive"].dtype))
print(out)
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert res.stdout.strip() == "['dtype', 'dtype', 'float32']", res.stdout + res.stderr


@pytest.mark.parametrize("make,field", [
    (lambda R: R.from_data(X, Y, [[1, 2, 0, 0], [0, 0, 1, 1]]), "gates"),         # a gate of 2
    (lambda R: R.from_data(X, Y, [[0, 0, 0, 0], [0, 0, 1, 1]]), "gates"),         # a pathway never on
    (lambda R: R.from_data(X, Y, [[1, 1, 0, 0], [0, 0, 1, 1]], depth=1), "depth"),
    (lambda R: R.from_data(X, Y, [[1, 1, 0, 0], [0, 0, 1, 1]], names=["a"]), "names"),
    (lambda R: R.from_data(X, Y, [[1, 1, 0, 0], [0, 0, 1, 1]], inputs=[[0, 7], None]), "inputs"),
    (lambda R: R.from_data(X, Y.ravel(), [[1, 1, 0, 0], [0, 0, 1, 1]]), "X, Y"),
    (lambda R: R.from_data(X, Y, [[1, 1, 0, 0], [0, 0, 1, 1]]).solve([0, 10], tau=-10.0, a0=1e-3), "tau"),
    (lambda R: R.from_data(X, Y, [[1, 1, 0, 0], [0, 0, 1, 1]]).solve([0, 10], tau=10.0, a0=0), "a0"),
    (lambda R: R.from_data(X, Y, [[1, 1, 0, 0], [0, 0, 1, 1]]).solve([0, 10], tau=10.0, a0=[1e-3] * 3), "a0"),
])
def test_a_race_from_data_names_the_bad_argument(make, field):
    """RaceSystem.from_data integrated gates of 2, a never-on pathway, depth 1 and a short list of names
    without a word, ran backwards in time with tau < 0, and raised IndexError for out-of-range rows."""
    from theorykit.theory.race import RaceSystem

    assert _field(lambda: make(RaceSystem)) == field


def test_a_net_checks_its_sizes():
    """Net.chain(3, [-2], 1) was made, and train_net then trained the width-4 weights it was given."""
    from theorykit.net.layout import Net

    assert _field(lambda: Net.chain(3, [-2], 1)) == "nodes['h1'].width"
    assert _field(lambda: Net.chain(3, [4.5], 1)) == "nodes['h1'].width"
    assert _field(lambda: Net.chain(0, [4], 1)) == "d"
    assert Net.chain(3, [4], 1).shapes() == {"input->h1": (4, 3), "h1->output": (1, 4)}


@pytest.mark.parametrize("call,field", [
    (lambda: tk.interlacing_holds(np.eye(3), [5], [0]), "rows_removed"),        # out of range: was ignored, True
    (lambda: tk.interlacing_holds(np.eye(3), [0, 0], []), "rows_removed"),
    (lambda: tk.interlacing_holds(np.eye(3), [0], [0], tol=-1), "tol"),
    (lambda: tk.classify_context_gating([1, 2, 0, 1], 2, 2), "pattern"),        # a gate of 2 counted as on
    (lambda: tk.classify_context_gating([1, 0, 1], 2, 2), "pattern"),
    (lambda: tk.gate_census(np.ones((4, 5)), 2, 2), "gates"),                    # datapoints × units: 5 "units"
    (lambda: tk.gate_census(np.full((5, 4), 2.0), 2, 2), "gates"),
])
def test_lemma_helpers_check_their_gates_and_indices(call, field):
    """The lemma helpers take a researcher's own gate arrays: non-binary gates, a transposed array and
    out-of-range rows gave answers (True, a class, a census) instead of an error."""
    assert _field(call) == field
    assert tk.classify_context_gating([1, 1, 1, 1], 2, 2) == "always-on"     # P = n·k = 4 gates, all on
    assert tk.gate_census(np.ones((5, 4)), 2, 2)["always-on"] == 5


@pytest.mark.parametrize("call,field", [
    (lambda: tk.t_half(0.5, 1.0, a_init=2.0), "a_init"),     # above s/(2d) = ¼: the log is of a negative number
    (lambda: tk.t_half(0.5, 1.0, a_init=-0.1), "a_init"),
    (lambda: tk.t_half(0, 1), "s"),                           # s = 0: zoo
    (lambda: tk.t_half(0.5, 1, depth=1), "depth"),
    (lambda: tk.a0_rule(0.01, -100), "widths"),                # a0 = −0.005
    (lambda: tk.a0_rule(0.01, 100, depth=0), "depth"),         # a0 = 1 (an empty product)
    (lambda: tk.a0_rule(float("nan"), 100), "stds"),
])
def test_closed_form_helpers_refuse_arguments_without_a_meaning(call, field):
    """t_half gave complex times and zoo, a0_rule negative or empty-product strengths."""
    assert _field(call) == field
    # by hand: t½ = τ/(2s) ln(s/(d a0) − 1) = 10/(2·½) ln(½/10⁻³ − 1) = 10 ln 499; a0 = σ²n/2 = 10⁻⁴·100/2
    assert float(tk.t_half(0.5, 1.0, a_init=1e-3, time_const=10)) == pytest.approx(10 * np.log(499))
    assert tk.a0_rule(0.01, 100) == pytest.approx(0.005) and tk.a0_rule([0.01, 0.0], [64, 64]) == pytest.approx(0.0016)


def test_predict_reln_names_its_keywords_and_the_command_line_its_options(tmp_path, capsys):
    """predict_reln named command-line options (--hidden) in Python. XoR has no family of one pathway
    (its smallest has 2), so hidden = 1 is refused: as hidden= in Python, as --hidden on the command line."""
    from theorykit.cli import main

    with pytest.raises(tk.SpecError) as e:
        tk.predict_reln(tk.xor_margin(0.5), 1, tk.Training(steps=100), progress=False)
    assert e.value.field == "hidden" and "--hidden is hidden=" in str(e.value)
    spec = tmp_path / "x.toml"
    spec.write_text('[symbols]\nDelta = {positive = true}\n[data]\ntask = "xor-margin"\n[training]\nsteps = 100\n')
    assert main(["predict", str(spec), "--hidden", "1", "--set", "Delta=0.5", "--no-progress",
                 "--out", str(tmp_path / "p.toml")]) == 2
    assert "error in --hidden:" in capsys.readouterr().err
