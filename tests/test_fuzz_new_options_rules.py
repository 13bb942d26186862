"""The fuzzer (tests/fuzz.py) draws the options that landed on 2026-11-29: ``predict --share {equal,mass}``,
``race-exhaust --race-dt`` (refused below the RK4 stability bound, ``check_race_dt``) and ``find-gates
--checkpoints`` with the elbow, ``--force`` and ``--time-limit`` (``check_elbow_size``).

A fast check of the generator (a few hundred cases drawn, none run) and of the race-exhaust case's
reference on one refused value; the campaign itself is ``python tests/fuzz.py --kinds
checkpoints,predict,race-exhaust``.
"""
import math
import tempfile

import fuzz

# the RK4 stability bound of --race-dt at --k 2 and the default gamma, as the CLI help and docs/theory.md
# state it: race_dt >= 4 s_max / 2.785 (RK4's stability limit on the negative real axis, margin 2), with
# s_max = 1.326 the race's largest singular value at k = 2: 4 * 1.326 / 2.785 = 1.9045, printed rounded up 1.91
_BOUND_K2 = 4 * 1.326 / 2.785


def _opt(argv, flag):
    return argv[argv.index(flag) + 1] if flag in argv else None


def _argvs(kind, n=200, seed=20261129):
    """The command lines of ``n`` cases of one kind, drawn as a campaign draws them (``--kinds KIND``)."""
    cases = fuzz._generate(n, seed, [kind])
    assert cases and all(c.kind == kind for c in cases)
    return [c.runs[0][1] for c in cases]


def test_the_new_kind_and_options_are_in_the_mix():
    assert "race-exhaust" in fuzz.all_kinds()
    assert fuzz.KIND_WEIGHTS.get("race-exhaust", 1) >= 1
    for flag in ("--share", "--race-dt", "--force", "--max-K", "--time-limit"):
        assert flag in fuzz._FIELD_ROOTS, flag      # a clean error naming it is a clean error


def test_the_generator_draws_each_new_option_and_its_hostile_values():
    argvs = {k: _argvs(k) for k in ("checkpoints", "predict", "race-exhaust")}

    # predict: both rules, and a value argparse refuses
    shares = {a[i + 1] for a in argvs["predict"] for i, x in enumerate(a) if x == "--share"}
    assert {"equal", "mass"} <= shares, shares
    assert shares - {"equal", "mass"}, shares

    # race-exhaust: plausible, around the bound (either side), tiny, huge, not a number
    dts = [_opt(a, "--race-dt") for a in argvs["race-exhaust"]]
    vals = []
    for v in dts:
        try:
            vals.append(float(v))
        except ValueError:
            pass
    assert any(math.isnan(v) for v in vals), dts
    assert any(0 < v < _BOUND_K2 and v > 0.9 * _BOUND_K2 for v in vals), dts         # just below: refused
    assert any(_BOUND_K2 <= v < 1.1 * _BOUND_K2 for v in vals), dts                 # just above: accepted
    assert any(0 < v < 1e-6 for v in vals), dts                                      # tiny
    assert any(v > 1e5 and math.isfinite(v) for v in vals), dts                      # huge (past the step budget)
    assert any(v == 10 for v in vals), dts                                           # the default

    # find-gates --checkpoints: --force with and without --K, the elbow, time limits 0, tiny, huge
    ck = argvs["checkpoints"]
    assert any("--force" in a and "--K" in a for a in ck)
    assert any("--force" in a and "--K" not in a and "--max-K" in a for a in ck)
    assert any("--K" not in a and "--max-K" in a for a in ck)
    limits = {float(t) for t in (_opt(a, "--time-limit") for a in ck) if t is not None}
    assert 0.0 in limits, limits
    assert any(0 < t < 1e-2 for t in limits), limits
    assert any(t > 1e6 for t in limits), limits


def test_a_refused_race_dt_names_a_value_that_is_then_accepted():
    """1.9 is below the k = 2 bound (1.9045): refused naming --race-dt with 1.91, which the reference runs
    again and which passes the stability check (a success, or a refusal for some other reason)."""
    case = fuzz.Case("race-exhaust", None, b"", [], steps=1, runs=[(
        "race-exhaust", ["race-exhaust", "--k", "2", "--steps", "1", "--race-dt", "1.9", "--out", "{dir}/race",
                         "--no-progress"], "race/exhaust.json")], ref="race-dt")
    with tempfile.TemporaryDirectory() as tmp:
        out = fuzz.run_case(case, tmp, time_limit=120)
    assert out.kind == "error", out
    name, rc, first, _ = out.commands[0]
    assert rc == 2 and first.startswith("theorykit: error in --race-dt:") and "use --race-dt 1.91 or larger" in first
