"""The RK4 flow compiles once per shape: its programs are cached (bounded) as Dopri5's are.

Tracing a vector field runs its Python body; running a compiled program does not. A counter inside
the field therefore counts how often the flow was traced (and compiled) again. Golden values: a
numpy RK4 written here (the same substeps: each recording interval cut into ceil(length / h) equal
steps) and the closed form y(t) = e^{At} y0 of the linear ODE dy/dt = A y (scipy's expm). No timings.
"""
import jax
import numpy as np
import pytest
from scipy.linalg import expm

from theorykit import bench
from theorykit.analysis.exhaust import race_rk4
from theorykit.record import SaveAt
from theorykit.spec.gating import GDLNSpec, Training, xor_relns
from theorykit.spec.task import xor_margin
from theorykit.theory import flow
from theorykit.theory.flow import RK4, integrate
from theorykit.theory.race import RaceSystem

# a stable, non-normal A: trace -1.5, determinant 0.56, eigenvalues -0.75 ± √(0.5625 − 0.56) = -0.7, -0.8
A = np.array([[-1.0, 0.3], [-0.2, -0.5]])


def _counting_field():
    """dy/dt = a y, with a counter of how often it is traced (a fresh function: a fresh program)."""
    count = [0]

    def field(y, a):
        count[0] += 1
        return a @ y

    return field, count


def _numpy_rk4(A_, y0, ts, h):
    """Classical RK4 on dy/dt = A y, each interval [t_{i-1}, t_i] (t_0 = 0) in ceil(length/h) steps."""
    y, out, t_prev = np.array(y0, float), [], 0.0
    for t in ts:
        length = t - t_prev
        n = int(np.ceil(length / h - 1e-9)) if length > 0 else 0
        dt = length / n if n else 0.0
        for _ in range(n):
            k1 = A_ @ y
            k2 = A_ @ (y + dt / 2 * k1)
            k3 = A_ @ (y + dt / 2 * k2)
            k4 = A_ @ (y + dt * k3)
            y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        out.append(y.copy())
        t_prev = t
    return np.array(out)


def _state(y, a):
    return y


def _run(field, y0, args, h, ts=None, every=None, t_end=None):
    # the recorded function is one object across calls: the program is keyed by it, as by the field
    save = SaveAt(ts=ts, fns={"y": _state}) if ts is not None else SaveAt(every=every, fns={"y": _state})
    return integrate(field, y0, args, solver=RK4(h), save=save, t_end=t_end)


def test_a_second_rk4_call_of_the_same_shapes_does_not_trace_the_field_again():
    field, count = _counting_field()
    y0, args = np.ones((3, 2)), np.stack([A, 2 * A, 0.5 * A])
    for kw in ({"every": 0.5, "t_end": 2.0}, {"ts": [0.0, 0.3, 1.0, 2.5]}):
        _run(field, y0, args, 0.01, **kw)
        traced = count[0]
        assert traced >= 1
        again = _run(field, 2 * y0, 3 * args, 0.01, **kw)         # other values, the same shapes
        assert count[0] == traced, f"{kw}: the flow was traced again ({count[0] - traced} more traces)"
        assert np.isfinite(again.saved["y"]).all()


def test_other_steps_and_times_of_the_same_count_reuse_the_program():
    # unequal recording intervals: the steps per interval and their sizes are arguments of the program
    field, count = _counting_field()
    y0, args = np.ones((2, 2)), np.stack([A, 2 * A])
    _run(field, y0, args, 0.01, ts=[0.0, 0.3, 1.0, 2.5])
    traced = count[0]
    for h, ts in ((0.02, [0.0, 0.3, 1.0, 2.5]), (0.005, [0.0, 0.7, 1.1, 3.0]), (0.3, [0.1, 0.2, 0.9, 1.0])):
        res = _run(field, y0, args, h, ts=ts)
        assert count[0] == traced, f"h = {h}, ts = {ts}: traced again"
        np.testing.assert_allclose(res.saved["y"][0], _numpy_rk4(A, y0[0], ts, h), rtol=1e-13, atol=1e-15)


def test_the_equal_interval_loop_is_keyed_by_its_step():
    # equal intervals: a loop of static length whose step is a constant of the program (kept as before,
    # bit for bit); the same step again reuses it, another step compiles one more program
    field, count = _counting_field()
    y0, args = np.ones((1, 2)), A[None]
    _run(field, y0, args, 0.01, every=0.5, t_end=2.0)
    first = count[0]
    _run(field, y0, args, 0.01, every=0.5, t_end=2.0)
    assert count[0] == first
    _run(field, y0, args, 0.02, every=0.5, t_end=2.0)
    assert count[0] > first


@pytest.mark.parametrize("kw", [{"every": 0.25, "t_end": 1.5}, {"ts": [0.0, 0.1, 0.45, 1.5]},
                                # 2e4 steps × 1: the four stages unrolled (UNROLL_STEPS)
                                {"every": 0.5, "t_end": 2.0, "h": 1e-4}])
def test_cached_rk4_equals_a_fresh_program_numpy_rk4_and_the_exponential(kw):
    kw = dict(kw)
    h = kw.pop("h", 0.01)
    field, _count = _counting_field()
    y0, args = np.array([[1.0, -0.5], [0.2, 0.7]]), np.stack([A, 0.5 * A])
    first = _run(field, y0, args, h, **kw)
    second = _run(field, y0, args, h, **kw)          # from the cache
    assert np.array_equal(first.saved["y"], second.saved["y"]) and np.array_equal(first.params, second.params)
    ts = first.saved_t
    # the uncached path: a fresh program of the same flow (the cache's function, unwrapped)
    lengths = np.diff(np.concatenate([[0.0], ts]))
    nsub = np.where(lengths > 0, np.ceil(lengths / h - 1e-9), 0).astype(np.int32)
    steps = np.where(nsub > 0, lengths / np.maximum(nsub, 1), 0.0)
    uniform = nsub.size > 1 and bool(np.all(nsub[1:] == nsub[1]) and np.all(steps[1:] == steps[1]))
    fresh = flow._compiled_rk4.__wrapped__(field, (("y", _state),), True, int(nsub.sum()) * 2 >= flow.UNROLL_STEPS,
                                          (int(nsub[1]), float(steps[1])) if uniform else None)
    with jax.default_matmul_precision("highest"):
        final, recs = fresh(y0, args, nsub, steps)
    assert np.array_equal(np.asarray(recs["y"]), first.saved["y"]) and np.array_equal(np.asarray(final), first.params)
    for b in range(2):
        Ab = args[b]
        np.testing.assert_allclose(first.saved["y"][b], _numpy_rk4(Ab, y0[b], ts, h), rtol=1e-12, atol=1e-15)
        exact = np.array([expm(Ab * t) @ y0[b] for t in ts])
        # RK4's global error is O(h^4) (times a constant of order ‖A‖^5 t): far below 1e-6 here
        np.testing.assert_allclose(first.saved["y"][b], exact, rtol=1e-6, atol=1e-9)


def test_the_rk4_program_cache_is_bounded():
    info = flow._compiled_rk4.cache_info()
    assert info.maxsize is not None and info.maxsize <= 64
    # a long session of fresh vector fields (a REPL's lambdas): the cache holds at most maxsize programs
    for i in range(info.maxsize + 8):
        flow._compiled_rk4(lambda y, a, i=i: -i * y, (), True, False, None)      # building compiles nothing
    assert flow._compiled_rk4.cache_info().currsize <= info.maxsize


def test_a_race_solved_again_and_a_new_system_of_its_layout_share_one_program():
    # the race's vector field is one object per layout (race._field is cached), so predict's engine calls
    # (a RaceSystem per group of families) and a REPL's repeated solves compile once per shape
    spec = GDLNSpec(xor_margin(), xor_relns()["xor"], Training(lr=0.05, a0=1e-3))
    times = [0.0, 200.0, 400.0, 600.0, 800.0]
    one = RaceSystem.from_spec(spec, {"Delta": 0.5}).solve(times, solver=RK4(0.5))
    size = flow._compiled_rk4.cache_info().currsize
    hits = flow._compiled_rk4.cache_info().hits
    two = RaceSystem.from_spec(spec, {"Delta": 0.5}).solve(times, solver=RK4(0.5))
    assert flow._compiled_rk4.cache_info().hits == hits + 1 and flow._compiled_rk4.cache_info().currsize == size
    assert np.array_equal(one.loss, two.loss)
    # predict's and race-exhaust's engine: race_rk4 at the step tau/race_dt, twice
    system = RaceSystem.from_spec(spec, {"Delta": 0.5})
    a = race_rk4(system, system.tau, 10.0, 400)
    hits = flow._compiled_rk4.cache_info().hits
    b = race_rk4(RaceSystem.from_spec(spec, {"Delta": 0.5}), system.tau, 10.0, 400, a0=2e-3)
    assert flow._compiled_rk4.cache_info().hits == hits + 1
    assert a.loss.shape == b.loss.shape and not np.array_equal(a.loss, b.loss)


def test_the_bench_prints_first_and_repeated_call_with_their_ratio():
    # 1.0 s then 0.25 s: 1.0 / 0.25 = 4.0 (the ratio of one run, as rk4_reuse measures it)
    lines = bench.reuse_lines({"race_solve": {"first_s": 1.0, "repeat_s": 0.25, "first_over_repeat": 4.0}})
    assert lines == ["  XoR race solve (RK4): first call 1.000 s, the same call again 0.250 s "
                     "(4.0 x; the compiled program reused)"]
    assert bench.reuse_lines({}) == []
