"""Rules from a test auditor, who mutated the code behind the last sessions' tests one small change at a
time and kept each change no test caught (the mutation is named in each test's comment).

Expected values come from hand derivations in the comments and from mpmath at 50 digits of the paper's
logistic form a = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}), which shares no code with theorykit, never from a
run of the code under test."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from theorykit.cli.rerun import compare


# ------------------------------------------------------------------------------------------------
# rerun's compare: a list of another length, the relative difference of the larger, a type change
# ------------------------------------------------------------------------------------------------
def test_a_list_of_another_length_differs():
    """Mutation that survived every rerun test: the length check dropped (zip walks the shorter list),
    so a rerun that wrote one more loss value, or one fewer, was "identical"."""
    for old, new in (([1.0, 2.0], [1.0, 2.0, 3.0]), ([1.0, 2.0, 3.0], [1.0, 2.0]), ([], [0.0])):
        got = compare({"loss": old}, {"loss": new}, 0.5)
        assert not got.agree and got.fields == 1 and got.shown[0][0] == "loss (length)", (old, new)
        assert got.shown[0][1:3] == (len(old), len(new))


def test_the_relative_difference_is_taken_of_the_larger_number():
    """compare's docstring: numbers agree "within rtol of the larger". By hand: 1 against 2 is
    |1 − 2|/2 = 0.5 (of the smaller it would be 1.0); 1 against 1.5 is 0.5/1.5 = 1/3, within 0.34
    (of the smaller, 0.5, it is not). Mutation that survived: max → min in _relative."""
    assert compare([1.0], [2.0], 0.0).worst == 0.5
    assert compare([2.0], [1.0], 0.0).worst == 0.5
    assert compare([-1.0], [-2.0], 0.0).worst == 0.5
    near = compare([1.0], [1.5], 0.34)
    assert near.agree and near.worst == pytest.approx(1 / 3, rel=1e-15)
    assert not compare([1.0], [1.5], 0.33).agree


def test_a_value_of_another_json_type_differs():
    """JSON ``true`` is not the number 1 and the text "1" is not 1 (Python's ``True == 1`` holds):
    mutation that survived, ``type(old) is type(new)`` dropped from compare's last test."""
    for old, new in ((True, 1), (1, True), (False, 0), ("1", 1)):
        got = compare({"x": old}, {"x": new}, 0.5)
        assert not got.agree and got.fields == 1, (old, new)
    assert compare({"x": True}, {"x": True}, 0.0).agree


# ------------------------------------------------------------------------------------------------
# φ(u) = (1 − e^{−u})/u, the series branch, seen where it is not swamped by e^{−u}/a0
# ------------------------------------------------------------------------------------------------
def _logistic_mp(s, d, a0, t_over_tau):
    s, d, a0 = mpmath.mpf(s), mpmath.mpf(d), mpmath.mpf(a0)
    return (s / d) / (1 + (s / (d * a0) - 1) * mpmath.exp(-2 * s * t_over_tau))


@pytest.fixture(scope="module")
def small_mode():
    """The small mode of tests/test_jax_small_s_rules.py's task (s = Δ, d = ½), lambdified by to_jax."""
    import theorykit as tk
    from theorykit.theory.trajectory import a0, t, tau

    D = sp.Symbol("Delta", nonnegative=True)
    task = tk.Task(sp.eye(2), 2 * sp.Matrix([[D, 0], [0, 1]]), {"Delta": D})
    der = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 8, 2),),
                                    tk.Training(lr=0.01, a0=1e-3)))
    (i,) = [k for k, m in enumerate(der.modes["p"].modes) if m.s == D]
    return tk.to_jax(der.trajectories["p"][i], [D, a0, t, tau])


@pytest.mark.parametrize("u", [1e-3, 0.02, 0.05, 0.0999, 0.1001, 1.0])
def test_phi_series_and_quotient_hold_every_digit_where_they_decide_the_trajectory(small_mode, u):
    """a = 1/G, G = d (2t/τ) φ(u) + e^{−u}/a0, u = 2st/τ. tests/test_jax_small_s_rules.py takes a0 = 1e-3
    and t = τ, where e^{−u}/a0 ≈ 1000 swamps d (2t/τ) φ ≈ 1: a wrong φ moves a by 1/1000 of its own
    error. Here a0 = 1 and t = 50τ, so d (2t/τ) φ ≈ 50 of G ≈ 51, and a's relative error is φ's.
    Mutations that survived there and fail here: the series cut after u⁵ (an error u⁶/7! ≈ 2e-10 at
    u = 0.1), and the quotient taken from |u| = 0.01 (1 − e^{−u} loses ε/u, 5e-15 at u = 0.02, and its
    gradient ε/u², 3e-13). Both branches (u on either side of the threshold 0.1) and jax.grad up to
    second order, against mpmath at 50 digits of the logistic form. Tolerances: a few ulp for the
    value (1e-15 ≈ 4.5 ε); the derivatives compose more rounded operations: φ′ from the quotient side
    subtracts terms of size 1/u = 10 to leave ½ (20 ε ≈ 4e-15), φ″ terms of size 2/u² = 200 to leave
    ⅓ (600 ε ≈ 1.3e-13, a few times that through the rest of G), so 1e-14 and 2e-12 there; each is
    far below the mutations' errors."""
    import jax

    s, tt = u / 100, 50.0                # u = 2 s t/τ with t/τ = 50
    g = jax.grad(small_mode)
    h = jax.grad(g)
    with mpmath.workdps(50):
        f = lambda y: _logistic_mp(y, "0.5", 1, 50)                        # noqa: E731
        want = (f(s), mpmath.diff(f, mpmath.mpf(s)), mpmath.diff(f, mpmath.mpf(s), 2))
    got = (small_mode(s, 1.0, tt, 1.0), g(s, 1.0, tt, 1.0), h(s, 1.0, tt, 1.0))
    assert float(got[0]) == pytest.approx(float(want[0]), rel=1e-15, abs=0)
    assert float(got[1]) == pytest.approx(float(want[1]), rel=1e-14, abs=0)
    assert float(got[2]) == pytest.approx(float(want[2]), rel=2e-12, abs=0)


@pytest.mark.parametrize("u", [1e-3, 0.02, 0.0999, 0.1001, 1.0])
def test_the_jax_trajectory_of_numbers_holds_every_digit_too(u):
    """mode_trajectory on JAX values (its own copy of the series, :func:`_jax_rate_form`): the same
    check as above, with the same tolerances and the same hand set-up (a0 = 1, t = 50τ, d = ½)."""
    import jax
    import jax.numpy as jnp

    from theorykit.theory.trajectory import mode_trajectory

    s = u / 100
    f = lambda x: mode_trajectory(x, 0.5, 1.0, 50.0, 1.0)                   # noqa: E731
    with mpmath.workdps(50):
        m = lambda y: _logistic_mp(y, "0.5", 1, 50)                          # noqa: E731
        want = (m(s), mpmath.diff(m, mpmath.mpf(s)), mpmath.diff(m, mpmath.mpf(s), 2))
    x = jnp.float64(s)
    assert float(f(x)) == pytest.approx(float(want[0]), rel=1e-15, abs=0)
    assert float(jax.grad(f)(x)) == pytest.approx(float(want[1]), rel=1e-14, abs=0)
    assert float(jax.grad(jax.grad(f))(x)) == pytest.approx(float(want[2]), rel=2e-12, abs=0)


# ------------------------------------------------------------------------------------------------
# the numbers path (numpy: predict_loss, the theory curves) keeps its digits for a tiny s
# ------------------------------------------------------------------------------------------------
def _paper_loss_mp(x, t_over_tau, a0="0.001"):
    """tests/test_jax_small_s_rules.py's task (targets 2·diag(Δ, 1) on I₂, summed loss): ½ tr Σy = Δ² + 1,
    modes s = Δ and s = 1, both d = ½; L = Δ² + 1 − Σ (s a − ½ d a²), a by the logistic form."""
    x = mpmath.mpf(x)
    L = x ** 2 + 1
    for s in (x, mpmath.mpf(1)):
        a = _logistic_mp(s, "0.5", a0, t_over_tau)
        L -= s * a - a * a / 4
    return L


@pytest.mark.parametrize("delta", [1e-9, 1e-15, 1e-18, 1e-300])
def test_predict_loss_for_a_tiny_singular_value_keeps_its_digits(delta):
    """The JAX path was rewritten last session without the 0/0 of s → 0 (tests/test_jax_small_s_rules.py);
    the numbers path, mode_gap and mode_trajectory with np.exp (what predict_loss, simulate's theory
    curve and the context suites use), kept the logistic form and lost the digits of 1 − e^{−u}:
    predict_loss at Δ = 1e-18 was 1.8 % low at t = 10⁴ (2.028e-7 for 2.066e-7), at 1e-15 1.6e-5 off,
    and at 1e-300 (u = 0 in floating point) mode_gap divided 0 by 0. Against mpmath at 700 digits (enough
    for 1 − e^{−u} at u = 2e-300). Tolerance: every term holds a few ulp (1e-13 leaves room), where the
    error before was 1.8e-2."""
    import warnings

    import theorykit as tk

    D = sp.Symbol("Delta", nonnegative=True)
    task = tk.Task(sp.eye(2), 2 * sp.Matrix([[D, 0], [0, 1]]), {"Delta": D})
    der = tk.Derivation(tk.GDLNSpec(task, (tk.Pathway("p", "all", "all", "all", 8, 2),),
                                    tk.Training(lr=0.01, a0=1e-3)))
    assert der.spec.tau == 100.0
    times = np.array([0.0, 100.0, 1e4])
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no "divide by zero" on the way
        got = der.predict_loss(times, {"Delta": delta})
    with mpmath.workdps(700):
        want = [float(_paper_loss_mp(delta, T / 100)) for T in times]
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


@pytest.mark.parametrize("s", [0.0, 1e-300, 1e-18, 1e-12, 0.3, 5.0])
def test_mode_trajectory_and_gap_of_numbers_against_the_logistic_form(s):
    """a(t) and s/d − a(t) in numpy at t = 0, τ, 100τ (d = ½, a0 = 1e-3, τ = 100), against mpmath at 700
    digits of the logistic form (at s = 0 by hand: a = a0/(1 + 2 d a0 t/τ), the gap −a). Mutation: the
    logistic form back in the numbers path fails at s = 1e-18 (1 % off) and 1e-300 (0/0)."""
    from theorykit.theory.trajectory import mode_gap, mode_trajectory

    T = np.array([0.0, 100.0, 1e4])
    a = mode_trajectory(s, 0.5, 1e-3, T, 100.0, np.exp)
    g = mode_gap(s, 0.5, 1e-3, T, 100.0)
    with mpmath.workdps(700):
        if s == 0:
            want_a = [mpmath.mpf("0.001") / (1 + mpmath.mpf("0.001") * T_ / 100) for T_ in T]
        else:
            want_a = [_logistic_mp(s, "0.5", "0.001", T_ / 100) for T_ in T]
        want_g = [float(mpmath.mpf(s) / mpmath.mpf("0.5") - w) for w in want_a]
        want_a = [float(w) for w in want_a]
    # s = 0.3 at t = 100τ: the gap is 3e-24 through e^{−60}, whose argument carries 0.3's rounding
    # (60 ε relative): 1e-13 covers it
    np.testing.assert_allclose(a, want_a, rtol=1e-14, atol=0)
    np.testing.assert_allclose(g, want_g, rtol=1e-13, atol=0)


# ------------------------------------------------------------------------------------------------
# rerun: the versions warning names what changed only; a time that is no duration is not shown
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sim_result(tmp_path_factory):
    """``simulate xor_linear.toml --set Delta=0.5 --seeds 1 --steps 3 --json sim.json`` (tiny)."""
    from pathlib import Path

    from theorykit.cli import main

    d = tmp_path_factory.mktemp("audit_sim")
    ex = Path(__file__).resolve().parent.parent / "examples" / "xor_linear.toml"
    assert main(["simulate", str(ex), "--set", "Delta=0.5", "--seeds", "1", "--steps", "3", "--times", "0,3",
                 "--no-progress", "--json", str(d / "sim.json")]) == 0
    return d / "sim.json"


def _warnings(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if "made under other versions" in ln]


def test_rerun_warns_of_the_versions_that_changed_and_of_no_other(sim_result, tmp_path, capsys):
    """No rerun test looked at this warning. Mutation that survived: ``recorded[k] != now[k]`` dropped,
    so every rerun warned "numpy 2.x -> 2.x" of versions that had not changed. By hand: the record as
    written (this process's own versions) warns of nothing; with numpy recorded as 0.0.1 it names
    numpy alone, recorded -> now; a name this process does not know (``cuda``) is not named."""
    import json

    from theorykit.cli import main
    from theorykit.io import software_versions

    capsys.readouterr()
    assert main(["rerun", str(sim_result)]) == 0
    assert _warnings(capsys.readouterr().err) == []

    doc = json.loads(sim_result.read_text())
    doc["provenance"]["versions"].update(numpy="0.0.1", cuda="12.0")
    edited = tmp_path / "old_numpy.json"
    edited.write_text(json.dumps(doc))
    assert main(["rerun", str(edited)]) == 0
    warned = _warnings(capsys.readouterr().err)
    assert len(warned) == 1 and f"numpy 0.0.1 -> {software_versions()['numpy']}" in warned[0], warned
    others = [k for k in software_versions() if k != "numpy"]
    assert not any(f"{k} " in warned[0].split("versions:", 1)[1] for k in others + ["cuda"]), warned


@pytest.mark.parametrize("took", [-5.0, -1, float("nan"), float("inf"), True, "100"])
def test_a_recorded_time_that_is_no_duration_is_not_shown(took):
    """recorded_time: a negative, NaN, infinite, boolean or text ``elapsed_seconds`` says nothing (a
    crafted or damaged record; "took -5 s" is no time). Mutation that survived: ``x >= 0`` dropped.
    Where the result has its own training ``seconds``, that is shown instead, as for an older result."""
    from theorykit.cli.rerun import recorded_time

    assert recorded_time({"elapsed_seconds": took}, {}) is None
    shown = recorded_time({"elapsed_seconds": took}, {"seconds": 42.0})
    assert shown is not None and shown.startswith("42 s to train"), shown
    assert recorded_time({"elapsed_seconds": 0.0}, {}).startswith("0 s")      # zero is a duration


# ------------------------------------------------------------------------------------------------
# sweep: a resume with other steps is another sweep; the grid's limits at their edges
# ------------------------------------------------------------------------------------------------
def _xor_spec():
    from pathlib import Path

    from theorykit.spec.files import load_spec

    return load_spec(Path(__file__).resolve().parent.parent / "examples" / "xor_linear.toml")


def test_a_sweep_resumed_with_other_steps_is_refused_not_mixed(tmp_path):
    """The sweep's key (which refuses a folder of another sweep) holds --steps: mutation that survived
    every sweep test, ``steps`` dropped from _key. Then a 3-step sweep's chunks were taken up by a
    5-step sweep into the same folder, which returned their 4 loss values where 6 were asked. Now
    refused, naming the folder (``out``; --out on the command line)."""
    import theorykit as tk
    from theorykit.analysis.sweep import parse_grid, run_sweep

    spec = _xor_spec()
    grid = parse_grid(["Delta=1"], spec.task.symbols)
    first = run_sweep(spec, grid, seeds=1, steps=3, out=tmp_path / "sw", progress=False)
    assert np.asarray(first["loss"]).shape == (1, 4)           # steps 0 … 3
    with pytest.raises(tk.SpecError) as e:
        run_sweep(spec, grid, seeds=1, steps=5, out=tmp_path / "sw", progress=False)
    assert e.value.field == "out" and "different sweep" in str(e.value)     # the Python name of --out


def test_grid_count_limit_and_plan_lr_at_their_edges():
    """COUNT may be MAX_GRID_COUNT (10⁶) points, not one more (mutation that survived: ``>`` → ``> +1``).
    plan_sweep (public) refuses a learning rate of 0 itself, as parse_grid does (mutation that
    survived: ``lr > 0`` → ``lr >= 0``)."""
    import theorykit as tk
    from theorykit.analysis.sweep import MAX_GRID_COUNT, parse_grid, plan_sweep

    spec = _xor_spec()
    assert MAX_GRID_COUNT == 10 ** 6
    assert len(parse_grid(["Delta=0:1:1000000"], spec.task.symbols)["Delta"]) == 10 ** 6
    with pytest.raises(tk.SpecError) as e:
        parse_grid(["Delta=0:1:1000001"], spec.task.symbols)
    assert e.value.field == "--grid" and "1000001" in str(e.value)
    for lr in (0.0, -0.01):
        with pytest.raises(tk.SpecError) as e:
            plan_sweep(spec, {"Delta": [1.0], "lr": [lr]}, 1, 3)
        # the one learning-rate rule (theorykit.spec.ranges: 1e-12 to 1e3), named as the grid's lr
        assert e.value.field == "--grid lr" and "is out of range [1e-12, 1000]" in str(e.value)


# ------------------------------------------------------------------------------------------------
# Progress on a log: one line per LOG_SECONDS since the last line, a total that grows, a log that goes
# ------------------------------------------------------------------------------------------------
class _Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def _log_progress(tmp_path, monkeypatch, total):
    import theorykit.progress as progress

    clock = _Clock()
    monkeypatch.setattr(progress.time, "monotonic", clock)
    log = open(tmp_path / "log", "w")
    pr = progress.Progress("job", total, stream=log)
    assert pr.log and pr.LOG_SECONDS == 60.0
    return pr, clock, log


def test_a_log_gets_a_line_each_log_seconds_after_the_last_line(tmp_path, monkeypatch):
    """Progress's docstring: a line "at most every LOG_SECONDS seconds, the first only once the run has
    lasted that long". Updates at 30, 61, 90, 125 s after the start (a clock of the test's own): by
    hand, lines at 61 (61 ≥ 60 since the start) and at 125 (64 since the line at 61), none at 90 (29
    since it). Mutation that survived every test (LOG_SECONDS is set to 0 or left at 60 with a run of
    a moment there): the time measured from the start, not the last line, wrote at 90 too."""
    pr, clock, log = _log_progress(tmp_path, monkeypatch, 10)
    for at in (30, 61, 90, 125):
        clock.now = 1000.0 + at
        pr.update(1)
    pr.close()
    log.close()
    lines = (tmp_path / "log").read_text().splitlines()
    # each line ends with the time left at the pace so far (session 149): 61 s × 8/2 = 244 s, about 4 min;
    # 125 s × 6/4 = 187.5 s, about 3 min
    assert lines == ["job: 2/10 (20%), 61s (about 4 min left)", "job: 4/10 (40%), 125s (about 3 min left)"], lines


def test_a_total_that_was_an_estimate_grows_with_the_work(tmp_path, monkeypatch):
    """update: "a total that was an estimate grows with the work". Three steps estimated, four done:
    the line says 4/4 (100%), never 4/3 (133%). Mutation that survived: ``n > total`` → ``n > total + 1``."""
    pr, clock, log = _log_progress(tmp_path, monkeypatch, 3)
    pr.update(3)
    clock.now += 60
    pr.update(1)
    pr.close()
    log.close()
    assert (tmp_path / "log").read_text().splitlines() == ["job: 4/4 (100%), 60s"]


def test_a_log_that_goes_away_is_not_written_again(tmp_path, monkeypatch):
    """_line: "the log went away: the run goes on" — one failed write turns the lines off; the run's
    later updates do not try again (mutation that survived: ``self.log = False`` dropped, every later
    update wrote to the dead stream again)."""
    pr, clock, log = _log_progress(tmp_path, monkeypatch, 10)

    class Gone:
        writes = 0

        def write(self, text):
            Gone.writes += 1
            raise OSError(5, "Input/output error")

        def flush(self):
            pass

    pr.stream = Gone()
    for _ in range(3):
        clock.now += 61
        pr.update(1)                    # no error reaches the run
    assert Gone.writes == 1 and not pr.log
    log.close()
