"""The RK4 flow pads its recording grid to Dopri5's count bucket, so one compiled program serves
every count of a bucket, and the padding leaves the real recording times' values bit for bit.

Tracing a vector field runs its Python body; running a compiled program does not. A counter inside
the field therefore counts how often the flow was traced (and compiled) again. Golden values: the
exact RK4 recurrence of dy/dt = −λ y written here, and the same flows with the padding switched off
(every count its own program, as before the padding). No timings.
"""
import jax
import numpy as np
import pytest

from theorykit import bench
from theorykit.analysis.exhaust import race_rk4
from theorykit.record import SaveAt
from theorykit.spec.gating import GDLNSpec, Training, context_pathways, family_masks, xor_relns
from theorykit.spec.task import contexts, xor_margin
from theorykit.theory import flow, race
from theorykit.theory.flow import RK4, integrate
from theorykit.theory.race import RaceSystem

from test_rk4_cache_rules import A, _counting_field      # the cache tests' field and matrix, written once


def _state(y, a):
    return y


def _rk4_factor(z):
    """One RK4 step of dy/dt = −λ y multiplies y by 1 − z + z²/2 − z³/6 + z⁴/24, z = hλ (the Taylor
    polynomial of e^{−z} to fourth order: the stages k1 = −λy, k2 = −λy(1 − z/2), k3 = −λy(1 − z/2 + z²/4),
    k4 = −λy(1 − z + z²/2 − z³/4), and y + h/6 (k1 + 2k2 + 2k3 + k4))."""
    return 1 - z + z ** 2 / 2 - z ** 3 / 6 + z ** 4 / 24


@pytest.mark.parametrize("kw", [{"every": 0.5, "t_end": 8.0},            # 17 times: bucket 32, uniform
                                {"every": 0.5, "t_end": 2.0},            # 5 times: bucket 16, uniform
                                {"ts": [0.0, 0.25, 1.0, 1.5, 4.0]}])     # non-uniform
def test_padded_rk4_equals_the_exact_recurrence_of_linear_decay(kw):
    lam = np.array([0.3, 1.0, 2.5])                   # a batch of three rates
    h = 0.125                                          # every interval an exact multiple of h: steps of h
    save = SaveAt(ts=kw["ts"], fns={"y": _state}) if "ts" in kw else SaveAt(every=kw["every"], fns={"y": _state})
    res = integrate(lambda y, a: -a * y, np.ones((3, 1)), lam[:, None], solver=RK4(h), save=save, t_end=kw.get("t_end"))
    t = res.saved_t
    steps = np.rint(t / h)                             # steps taken up to each recording time
    assert np.allclose(steps * h, t)
    expected = _rk4_factor(h * lam)[:, None] ** steps[None, :]
    assert res.saved["y"].shape == (3, t.size, 1)
    np.testing.assert_allclose(res.saved["y"][..., 0], expected, rtol=1e-13, atol=0)
    np.testing.assert_allclose(res.params[:, 0], expected[:, -1], rtol=1e-13, atol=0)


def _unpadded(monkeypatch):
    """The padding switched off: each count of recording times its own program (as before)."""
    monkeypatch.setattr(flow, "_count_bucket", lambda n: n)


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert np.shape(x) == np.shape(y) and np.array_equal(np.asarray(x), np.asarray(y))


def _flows():
    """Flows through every public RK4 path: (name, call returning the arrays to compare)."""
    task = contexts(8, 3, blocks=["hierarchy", "ring", "cross"])
    subsets, masks, _labels = family_masks(3)
    spec = GDLNSpec(task, context_pathways(8, 3, subsets), Training(lr=0.001, loss="sum", a0=1e-4))
    ctx = RaceSystem.from_spec(spec)
    masks = np.asarray(masks, float)[:6]
    xor = RaceSystem.from_spec(GDLNSpec(xor_margin(), xor_relns()["xor"], Training(lr=0.05, a0=1e-3)), {"Delta": 0.5})
    args = np.stack([A, 2 * A, 0.5 * A])

    def user(h, **kw):
        save = SaveAt(ts=kw["ts"], fns={"y": _state}) if "ts" in kw else SaveAt(every=kw["every"], fns={"y": _state})
        res = integrate(lambda y, a: a @ y, np.ones((3, 2)), args, solver=RK4(h), save=save, t_end=kw.get("t_end"))
        return res.saved["y"], res.params

    def racing(res):
        return [res.loss, res.saved["modes"] if "modes" in res.saved else {}, res.params]

    return {
        # the race of a context task (a batch of families), uniform grid and unequal times
        "context race, uniform": lambda: racing(ctx.solve(SaveAt(every=100), t_end=1700, masks=masks,
                                                          solver=RK4(spec.tau / 40))),
        "context race, unequal": lambda: racing(ctx.solve([0.0, 13.0, 170.5, 400.0, 401.0, 1500.0], masks=masks,
                                                          solver=RK4(spec.tau / 40))),
        # predict_reln's and race-exhaust's engine
        "race_rk4": lambda: racing(race_rk4(xor, xor.tau, 10.0, 400)),
        "batched, uniform": lambda: user(0.01, every=0.5, t_end=9.0),
        "batched, uniform, unrolled stages": lambda: user(1e-3, every=0.5, t_end=9.0),
        "batched, unequal": lambda: user(0.01, ts=[0.0, 0.3, 1.0, 2.5, 2.5, 3.0]),
    }


@pytest.mark.parametrize("name", list(_flows()))
def test_padding_leaves_the_recorded_values_bit_for_bit(name, monkeypatch):
    call = _flows()[name]
    padded = call()
    _unpadded(monkeypatch)
    _same(jax.tree_util.tree_leaves(padded), jax.tree_util.tree_leaves(call()))


def test_padded_counts_are_the_dopri5_bucket():
    # the one rule of both solvers: the next power of two, at least 16
    assert [flow._count_bucket(n) for n in (1, 2, 15, 16, 17, 32, 33, 200, 201, 256, 257)] == \
        [16, 16, 16, 16, 32, 32, 64, 256, 256, 256, 512]


@pytest.mark.parametrize("kw", [
    # unequal intervals: 17, then 20 and 32 times (bucket 32)
    [{"ts": np.r_[0.0, np.cumsum(np.linspace(0.1, 0.3, n - 1))]} for n in (17, 20, 32)],
    # equal intervals after the first: every 0.5 to 8.0, 9.0, 15.5 (17, 19, 32 times)
    [{"every": 0.5, "t_end": t} for t in (8.0, 9.0, 15.5)],
])
def test_another_count_in_the_same_bucket_does_not_trace_the_field_again(kw):
    field, count = _counting_field()
    y0, args = np.ones((2, 2)), np.stack([A, 2 * A])
    out = []
    for i, k in enumerate(kw):
        save = SaveAt(ts=k["ts"], fns={"y": _state}) if "ts" in k else SaveAt(every=k["every"], fns={"y": _state})
        res = integrate(field, y0, args, solver=RK4(0.01), save=save, t_end=k.get("t_end"))
        out.append(res)
        if i == 0:
            traced = count[0]
            assert traced >= 1
        assert count[0] == traced, f"{k}: the flow was traced again ({count[0] - traced} more traces)"
    assert [r.saved["y"].shape[1] for r in out] == [r.saved_t.size for r in out]
    assert len({r.saved_t.size for r in out}) == 3


def test_a_race_with_another_number_of_times_reuses_its_program(monkeypatch):
    # the race's loss is traced inside its vector field: counting its calls counts the traces
    calls = [0]
    loss = race._loss

    def counting(M, dd):
        calls[0] += 1
        return loss(M, dd)

    monkeypatch.setattr(race, "_loss", counting)
    spec = GDLNSpec(xor_margin(), xor_relns()["xor"], Training(lr=0.05, a0=1e-3))
    system = RaceSystem.from_spec(spec, {"Delta": 0.4})
    info = flow._compiled_rk4.cache_info()
    first = system.solve(np.linspace(0.0, 777.0, 200), solver=RK4(0.5))
    traced, size = calls[0], flow._compiled_rk4.cache_info().currsize
    assert traced >= 1 and size <= info.currsize + 1
    second = system.solve(np.linspace(0.0, 777.0, 201), solver=RK4(0.5))          # bucket 256, as 200
    assert calls[0] == traced, "the race was traced again for another number of times in its bucket"
    assert flow._compiled_rk4.cache_info().currsize == size
    assert first.loss.shape == (1, 200) and second.loss.shape == (1, 201)
    assert first.loss[0, 0] == second.loss[0, 0]         # t = 0: the start


def test_the_bench_prints_the_other_count_call_beside_the_first():
    # 1.0 s then 0.25 s: 1.0 / 0.25 = 4.0 (the ratio of one run, as rk4_reuse measures it)
    reuse = {"race_solve": {"first_s": 1.0, "repeat_s": 0.25, "first_over_repeat": 4.0},
             "race_solve_other_count": {"first_s": 1.0, "repeat_s": 0.5, "first_over_repeat": 2.0}}
    assert bench.reuse_lines(reuse) == [
        "  XoR race solve (RK4): first call 1.000 s, the same call again 0.250 s (4.0 x; the compiled program reused)",
        "  XoR race solve (RK4), 11 recording times after 9: first call 1.000 s, this call 0.500 s "
        "(2.0 x; one count bucket, the program reused)"]


# -- what a cached program bakes in ------------------------------------------------------------------
# A trace bakes the numpy arrays and numbers a field reads besides its arguments into the program as
# constants; the programs are cached by the field's identity. Changed in place (or rebound), such a
# value must give the new system, not the cached old one. Golden values: y(t) = e^{−λt} y0 of
# dy/dt = −λ y (RK4 at h = 0.01 is within ~h⁴ of it, Dopri5 within its tolerance).
_RATE = 1.0


def _global_rate_field(y, a):
    return -_RATE * y


class _Decay:
    def __init__(self, rate):
        self.rate = np.asarray(rate, float)

    def field(self, y, a):
        return -self.rate * y


def _at_one(field, solver):
    save = SaveAt(ts=[1.0], fns={"y": _state})
    return integrate(field, np.ones((1, 2)), None, solver=solver, save=save, batched_args=False).saved["y"][0, 0]


SOLVERS = [RK4(0.01), flow.Dopri5()]


@pytest.mark.parametrize("solver", SOLVERS, ids=["rk4", "dopri5"])
def test_an_array_the_field_captures_changed_in_place_gives_the_new_flow(solver):
    M = -np.eye(2)
    count = [0]

    def field(y, a):
        count[0] += 1
        return M @ y

    np.testing.assert_allclose(_at_one(field, solver), np.exp(-1.0), rtol=1e-7)
    traced = count[0]
    np.testing.assert_allclose(_at_one(field, solver), np.exp(-1.0), rtol=1e-7)
    assert count[0] == traced                       # unchanged: the program is reused
    M *= 2                                          # in place: dy/dt = −2 y
    np.testing.assert_allclose(_at_one(field, solver), np.exp(-2.0), rtol=1e-7)
    assert count[0] > traced


@pytest.mark.parametrize("solver", SOLVERS, ids=["rk4", "dopri5"])
def test_a_rebound_global_rate_an_object_s_array_and_a_grad_s_capture_give_the_new_flow(solver):
    global _RATE
    try:
        _RATE = 1.0
        np.testing.assert_allclose(_at_one(_global_rate_field, solver), np.exp(-1.0), rtol=1e-7)
        _RATE = 3.0
        np.testing.assert_allclose(_at_one(_global_rate_field, solver), np.exp(-3.0), rtol=1e-7)
    finally:
        _RATE = 1.0
    decay = _Decay([1.0, 0.5])
    np.testing.assert_allclose(_at_one(decay.field, solver), np.exp([-1.0, -0.5]), rtol=1e-7)
    decay.rate[:] = [2.0, 0.25]                      # the bound method's object, changed in place
    np.testing.assert_allclose(_at_one(decay.field, solver), np.exp([-2.0, -0.25]), rtol=1e-7)
    # the field as the gradient of a potential ½ yᵀ K y whose K it captures: dy/dt = −K y
    K = np.eye(2)
    grad = jax.grad(lambda y: 0.5 * y @ (K @ y))
    field = lambda y, a: -grad(y)                   # noqa: E731
    np.testing.assert_allclose(_at_one(field, solver), np.exp(-1.0), rtol=1e-7)
    K *= 0.5
    np.testing.assert_allclose(_at_one(field, solver), np.exp(-0.5), rtol=1e-7)


def test_the_race_s_own_fields_capture_a_fixed_fingerprint():
    # the race takes every array as an argument: its fields capture only its layout, so a new system of
    # the same layout with other data (another Delta) reuses the program
    spec = GDLNSpec(xor_margin(), xor_relns()["xor"], Training(lr=0.05, a0=1e-3))
    one, two = RaceSystem.from_spec(spec, {"Delta": 0.3}), RaceSystem.from_spec(spec, {"Delta": 0.6})
    assert one._layout() == two._layout()
    lay = one._layout()
    fns = (race._field(lay), race._record_loss(lay), race._record_modes(lay))
    assert flow._captured(*fns) == flow._captured(*fns)
    assert not any(isinstance(x, tuple) and len(x) == 3 and isinstance(x[2], bytes) for x in flow._captured(*fns))
    one.solve([0.0, 50.0, 100.0], solver=RK4(0.5))
    hits = flow._compiled_rk4.cache_info().hits
    two.solve([0.0, 50.0, 100.0], solver=RK4(0.5))
    assert flow._compiled_rk4.cache_info().hits == hits + 1
