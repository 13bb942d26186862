"""The benchmarks' bookkeeping and arithmetic, by hand and from the docstrings (found by a mutation
check of theorykit/bench.py, theorykit/bench_derive.py and theorykit/bench_repl.py).

The timings themselves are noise, so no test here asserts one: the timers are stubbed (a fake
``timed`` that returns a fixed number of seconds, fake clocks, a fake ``measure``) and what is pinned
is what the benchmarks do with the seconds. bench_derive: ``timed`` (wall and CPU differences), the
ring circulant, the (k−1)-context subsets and the pathways' hidden units, ``derive_case``'s counts,
the scaling grid and its targets, the paper total against its target and the table's met/NOT met.
bench_repl: PYTHONPATH put first, each command's best of ``repeats``, the table's old/new ratios and
the relative change of L(1000). bench: the largest relative weight difference, XLA's cost analysis
read defensively, the matmul and stream rates (2n³·reps and 2·n·itemsize·reps over the best of
three), the throughput figures (rates, ratios, FLOP and memory fractions, tolerances), the GDLN and
race figures, and ``run_bench``'s JSON, table and exit status. Every expected value is worked out by
hand in a comment or read from a docstring, never taken from a run of the code under test. Tiny
sizes: each test runs in a few seconds at most.
"""
from __future__ import annotations

import itertools
import json
import types

import jax
import numpy as np
import pytest

import theorykit.bench as bench
import theorykit.bench_derive as bd
import theorykit.bench_repl as br
from theorykit.spec.gating import context_family


# ------------------------------------------------------------------------------------------------
# bench_derive
# ------------------------------------------------------------------------------------------------
def _clock(*values):
    it = iter(values)
    return lambda: next(it)


def test_timed_returns_wall_and_cpu_differences(monkeypatch):
    # perf_counter 10 → 12.5 (2.5 s wall), process_time 1 → 1.75 (0.75 s CPU)
    monkeypatch.setattr(bd, "time", types.SimpleNamespace(perf_counter=_clock(10.0, 12.5),
                                                          process_time=_clock(1.0, 1.75)))
    sec, out, cpu = bd.timed(lambda: "result")
    assert (sec, out, cpu) == (2.5, "result", 0.75)


def test_ring_structure_is_the_three_neighbour_circulant():
    # row r is 1 on items r−1, r, r+1 (mod n): built here with numpy's roll of the identity
    for n in (4, 5, 7):
        want = np.eye(n, dtype=int) + np.roll(np.eye(n, dtype=int), 1, axis=1) + np.roll(np.eye(n, dtype=int), -1, axis=1)
        got = np.array(bd.ring_structure(n).tolist(), dtype=int)
        assert (got == want).all(), n


def test_double_pathways_are_the_k_minus_1_subsets_and_hidden_units_cover_the_modes():
    assert context_family(3, 2) == [(0, 1), (0, 2), (1, 2)]
    assert context_family(4, 3) == list(itertools.combinations(range(4), 3)) and len(context_family(4, 3)) == 4
    # n + k hidden units when that is over 100 (one per mode of the common Σyx, n + k − 1), else 100
    assert {p.hidden for p in bd._paths(8, 3)} == {100}
    assert {p.hidden for p in bd._paths(97, 4)} == {101}
    assert {p.hidden for p in bd._paths(96, 4)} == {100}
    # common + k pathways of k − 1 contexts
    assert [p.name for p in bd._paths(4, 3)][0] == "common" and len(bd._paths(4, 3)) == 1 + 3


def test_specs_use_the_mean_loss_and_the_ring_as_common_block():
    h = bd.hierarchy_spec(4, 3)
    assert h.training.loss == "mean" and h.task.P == 4 * 3
    r = bd.ring_task_spec(5)
    assert r.training.loss == "mean" and r.task.P == 5 * 3           # k = 3 by default
    r4 = bd.ring_task_spec(5, 4)
    assert r4.task.P == 5 * 4
    # common + the 4 three-context pathways; a context pathway sees the 5 item rows, on for 3 of 4 contexts
    assert len(r4.pathways) == 1 + 4 and r4.pathways[0].name == "common"
    assert all(tuple(p.inputs) == tuple(range(5)) and sum(p.active) == 3 * 5 for p in r4.pathways[1:])
    h = bd.hierarchy_spec(8, 4)
    assert len(h.pathways) == 1 + 4 and all(sum(p.active) == 3 * 8 for p in h.pathways[1:])


def test_paper_results_default_ks_are_section_5s_3_to_8():
    import inspect

    # the module docstring: "Section 5 for k = 3…8"
    assert inspect.signature(bd.paper_results).parameters["ks"].default == (3, 4, 5, 6, 7, 8)


def test_derive_case_counts_modes_and_value_kinds(monkeypatch):
    """The bookkeeping of one case on a fake derivation: modes = the singular values summed over the
    pathways, the top ranked name, the value kinds sorted (``expr`` where a mode has no raw value)."""
    mode = lambda kind: types.SimpleNamespace(raw=None if kind is None else types.SimpleNamespace(s=types.SimpleNamespace(kind=kind)))  # noqa: E731

    class FakeDer:
        def __init__(self, spec):
            assert spec == "spec"
            self.method = "decoupled"
            self.ranking_text = [(0.5, "second"), (0.1, "first")]
            self.modes = {"a": types.SimpleNamespace(modes=[mode("rational"), mode(None)]),
                          "b": types.SimpleNamespace(modes=[mode("algebraic")])}

        def summary(self):
            return {"a": {"singular_values": [1, 2, 3]}, "b": {"singular_values": [4, 5]}}

    monkeypatch.setattr(bd, "Derivation", FakeDer)
    monkeypatch.setattr(bd, "timed", lambda fn: (1.5, fn(), 0.25))
    r = bd.derive_case(lambda: "spec")
    assert r == {"seconds": 1.5, "cpu_seconds": 0.25, "modes": 3 + 2, "method": "decoupled", "top": "second",
                 "value_kinds": ["algebraic", "expr", "rational"]}

    class NoRanking(FakeDer):
        def __init__(self, spec):
            super().__init__(spec)
            self.ranking_text = []

    monkeypatch.setattr(bd, "Derivation", NoRanking)
    assert bd.derive_case(lambda: "spec")["top"] is None


def test_scaling_runs_the_grid_in_order_and_reports_each_row(monkeypatch):
    made = []
    monkeypatch.setattr(bd, "warm_imports", lambda: None)
    monkeypatch.setattr(bd, "hierarchy_spec", lambda n, k: made.append(("h", n, k)) or "h")
    monkeypatch.setattr(bd, "ring_task_spec", lambda n, k: made.append(("r", n, k)) or "r")
    monkeypatch.setattr(bd, "derive_case", lambda make: {"spec": make()})
    seen = []
    rows = bd.scaling(quick=True, on_row=seen.append)
    # the quick grid: hierarchy n ∈ {8, 16, 32} × k ∈ {3, 4, 5}, then 64 × 4 and 128 × 4; ring n ∈ {12, 24, 48}, k = 3
    want = [("hierarchy", n, k) for n in (8, 16, 32) for k in (3, 4, 5)] + [("hierarchy", 64, 4), ("hierarchy", 128, 4)] \
        + [("ring", n, 3) for n in (12, 24, 48)]
    assert [(r["task"], r["n"], r["k"]) for r in rows] == want
    assert made == [(t[0], n, k) for t, n, k in want]
    assert seen == rows
    full = bd.scaling()                                                 # the full grid by default
    # the module docstring: n ∈ {8, 16, 32, 64, 128}, k ∈ {3, 4, 5}; the ring at n ∈ {12, 24, 48}, k = 3
    assert [(r["task"], r["n"], r["k"]) for r in full] == [("hierarchy", n, k) for n in (8, 16, 32, 64, 128)
                                                             for k in (3, 4, 5)] + [("ring", n, 3) for n in (12, 24, 48)]


def test_target_lookup():
    assert bd._target({"task": "hierarchy", "n": 64, "k": 4}) == 2.0
    assert bd._target({"task": "ring", "n": 12, "k": 3}) == 0.5
    assert bd._target({"task": "hierarchy", "n": 64, "k": 3}) is None


def _derive_section(monkeypatch, paper_seconds, rows):
    monkeypatch.setattr(bd, "paper_results", lambda: [{"result": f"r{i}", "seconds": s, "cpu_seconds": s / 2}
                                                      for i, s in enumerate(paper_seconds)])

    def scaling(quick, on_row):
        for r in rows:
            on_row(r)
        return rows

    monkeypatch.setattr(bd, "scaling", scaling)
    lines = []
    return bd.run_section(out=lines.append), lines


def test_derive_section_totals_and_targets(monkeypatch):
    row = lambda task, n, k, s: {"task": task, "n": n, "k": k, "modes": 7, "value_kinds": ["rational"], "seconds": s, "cpu_seconds": s}  # noqa: E731
    rows = [row("hierarchy", 32, 4, 0.5), row("hierarchy", 64, 4, 1.0), row("hierarchy", 8, 3, 9.0)]
    res, lines = _derive_section(monkeypatch, [0.5, 0.75, 0.25], rows)
    # total 0.5 + 0.75 + 0.25 = 1.5 s wall, CPU half of each: 0.75 s; 1.5 < 2 → met
    assert res["paper_total_seconds"] == 1.5 and res["paper_total_cpu_seconds"] == 0.75
    total = next(ln for ln in lines if "paper results, total" in ln)
    assert "1.50 s" in total and "0.75 s" in total and "(target < 2.0 s wall: met)" in total
    # 0.5 s against the 0.5 s target of 32 × 4: not under it; 1.0 s against 2.0 s: met; 8 × 3 has none
    t32 = next(ln for ln in lines if ln.startswith("  hierarchy  32"))
    assert t32.endswith("< 0.5 s NOT met")
    assert next(ln for ln in lines if ln.startswith("  hierarchy  64")).endswith("< 2 s met")
    assert next(ln for ln in lines if ln.startswith("  hierarchy   8")).endswith("9.00  ")
    assert res["targets"] == {"paper": 2.0, "hierarchy-n32-k4": 0.5, "hierarchy-n64-k4": 2.0, "hierarchy-n128-k4": 8.0,
                              "ring-n12-k3": 0.5, "ring-n48-k3": 10.0}
    assert res["scaling"] == rows
    quick = []
    monkeypatch.setattr(bd, "scaling", lambda q, on_row: quick.append(q) or [])
    bd.run_section(out=lambda s: None)
    assert quick == [False]                                             # the full grid by default
    # exactly 2.0 s is not under the target
    _, lines = _derive_section(monkeypatch, [1.0, 1.0], [])
    assert "(target < 2.0 s wall: NOT met)" in next(ln for ln in lines if "paper results, total" in ln)


def test_paper_results_rows_and_details(monkeypatch):
    """The rows of the paper results (fake timer, so the derivations run but nothing is timed): XoR,
    Section 4, one row per k, the symbolic-k row. The XoR crossover: the XoR pathway's s against the
    linear one's; the Section 4 count: the common pathway's Σyx of the three blocks plus the three
    double pathways (see docs/theory.md, Section 4)."""
    monkeypatch.setattr(bd, "timed", lambda fn: (0.5, fn(), 0.25))
    rows = bd.paper_results(ks=(3,))
    assert [r["result"] for r in rows] == ["XoR ReLNs, Delta symbolic: modes, closed-form losses, crossover",
                                           "Section 4 (common + double; hierarchy, ring, cross)",
                                           "Section 5, k = 3 (n = 8)", "symbolic k (all k at once, LaTeX)"]
    assert all(r["seconds"] == 0.5 and r["cpu_seconds"] == 0.25 for r in rows)
    # docs/theory.md, "The crossover": Δ/2 = √(2 + Δ²)/4 squares to 4Δ² = 2 + Δ², Δ* = √(2/3)
    import sympy as sp

    assert rows[0]["detail"].startswith("Delta* = [")
    (crossing,) = sp.sympify(rows[0]["detail"][len("Delta* = "):])
    assert sp.simplify(crossing - sp.sqrt(sp.Rational(2, 3))) == 0
    import re

    m4 = re.fullmatch(r"method (\S+), (\d+) modes", rows[1]["detail"])
    m5 = re.fullmatch(r"(\d+) modes", rows[2]["detail"])
    # a count of modes (the ranks summed over the pathways): a positive integer, at most the 4
    # pathways' 60 outputs each (the Σyx of each pathway is 60 × its inputs)
    assert m4 and m5 and 0 < int(m4[2]) <= 4 * 60 and 0 < int(m5[1]) <= 4 * 60
    assert rows[3]["detail"].startswith("s = ")


# ------------------------------------------------------------------------------------------------
# bench_repl
# ------------------------------------------------------------------------------------------------
def test_env_puts_the_root_first_on_the_path(monkeypatch, tmp_path):
    import os

    monkeypatch.setenv("PYTHONPATH", "/old")
    assert br._env(None)["PYTHONPATH"] == "/old"
    assert br._env(tmp_path)["PYTHONPATH"] == str(tmp_path) + os.pathsep + "/old"
    monkeypatch.delenv("PYTHONPATH")
    assert br._env(tmp_path)["PYTHONPATH"] == str(tmp_path)
    assert "PYTHONPATH" not in br._env(None)


def test_timed_command_checks_the_exit_status(tmp_path):
    import subprocess
    import sys

    assert br._timed([sys.executable, "-c", "pass"], None, tmp_path) > 0
    with pytest.raises(subprocess.CalledProcessError):
        br._timed([sys.executable, "-c", "raise SystemExit(3)"], None, tmp_path)


def test_timed_command_is_the_wall_time_difference(monkeypatch):
    # perf_counter 100 → 100.25: 0.25 s; the command runs with the exit status checked, output dropped
    monkeypatch.setattr(br, "time", types.SimpleNamespace(perf_counter=_clock(100.0, 100.25)))
    runs = []
    monkeypatch.setattr(br.subprocess, "run", lambda cmd, **kw: runs.append((cmd, kw)))
    assert br._timed(["x"], {"E": "1"}, "/here") == 0.25
    assert runs[0][0] == ["x"] and runs[0][1]["check"] is True and runs[0][1]["env"] == {"E": "1"}
    assert runs[0][1]["cwd"] == "/here"


def test_measure_takes_each_commands_best_and_the_scripts_json(monkeypatch, tmp_path):
    secs = iter([3.0, 1.0, 5.0, 4.0, 2.0, 6.0])         # help 3, 1; derive --json 5, 4; --times 2, 6
    calls = []
    monkeypatch.setattr(br, "_timed", lambda cmd, env, cwd: calls.append(cmd[-5:]) or next(secs))
    runs = []

    def run(cmd, **kw):
        runs.append((cmd, kw))
        return types.SimpleNamespace(stdout='noise\n{"imports": 0.25, "cases": {}}\n')

    monkeypatch.setattr(br.subprocess, "run", run)
    res = br.measure(tmp_path, repeats=2)
    assert res == {"help": 1.0, "derive_json_64x4": 4.0, "derive_times_32x4": 2.0, "imports": 0.25, "cases": {}}
    assert len(calls) == 6 and calls[0][-1] == "--help"
    # the measuring script gets the example of the checkout at root, on that checkout's path
    # a failing step (the task files, the script) stops the measurement rather than being timed
    assert len(runs) == 2 and all(kw["check"] is True for _, kw in runs)
    cmd, kw = runs[-1]
    assert cmd[-1] == str(tmp_path / "examples" / "contexts_double.toml")
    assert kw["env"]["PYTHONPATH"].split(":")[0] == str(tmp_path)


def test_measure_without_root_uses_this_checkouts_example_twice_each(monkeypatch):
    import inspect

    # the module docstring: "each task twice over"
    assert inspect.signature(br.measure).parameters["repeats"].default == 2
    calls = []
    monkeypatch.setattr(br, "_timed", lambda cmd, env, cwd: calls.append(cmd) or 1.0)
    runs = []
    monkeypatch.setattr(br.subprocess, "run", lambda cmd, **kw: runs.append((cmd, kw)) or types.SimpleNamespace(stdout="{}"))
    br.measure()
    assert len(calls) == 3 * 2
    example = runs[-1][0][-1]
    assert example.endswith("examples/contexts_double.toml") and __import__("os").path.isfile(example)


def test_repl_section_ratios(monkeypatch, tmp_path):
    case = lambda d, w, L: {"derivation": d, "predict_cold": 1.0, "predict_warm": w, "loss_at_1000": L}  # noqa: E731
    new = {"help": 0.5, "derive_json_64x4": 2.0, "derive_times_32x4": 4.0, "cases": {"c": case(2.0, 0.5, 0.4)}}
    old = {"help": 1.5, "derive_json_64x4": 2.0, "derive_times_32x4": 1.0, "cases": {"c": case(4.0, 1.0, 0.5)}}
    monkeypatch.setattr(br, "measure", lambda root=None: old if root is not None else new)
    (tmp_path / "theorykit").mkdir()
    (tmp_path / "theorykit" / "__init__.py").write_text("")            # a checkout, as far as the check goes
    lines = []
    res = br.run_section(str(tmp_path), out=lines.append)
    assert res == {"now": new, "baseline": old}
    line = lambda key: next(ln for ln in lines if key in ln)  # noqa: E731
    # old / new: help 1.5 / 0.5 = 3.0, --times 1.0 / 4.0 = 0.25 → 0.2 (one decimal)
    assert line("theorykit --help").endswith("     3.0x")
    assert line("derive --times").endswith("     0.2x")
    assert line("c: exact derivation").endswith("     2.0x")            # 4.0 / 2.0
    assert line("warm / exact derivation").endswith("0.25")              # 0.5 / 2.0
    # |0.5 − 0.4| / 0.5 = 0.2
    assert line("relative change").endswith("2.0e-01")
    # a figure of 0 s now has no ratio (blank), rather than a division by zero
    new["help"] = 0.0
    lines.clear()
    br.run_section(str(tmp_path), out=lines.append)
    assert line("theorykit --help").endswith("0.00      1.50")
    new["help"] = 0.5
    # a baseline L(1000) of 0: 0 when the new one is 0 too, else inf (it divided by zero)
    for new_L, shown in ((0.0, "0.0e+00"), (0.1, "inf")):
        old["cases"]["c"]["loss_at_1000"], new["cases"]["c"]["loss_at_1000"] = 0.0, new_L
        lines.clear()
        br.run_section(str(tmp_path), out=lines.append)
        assert line("relative change").endswith(shown)
    lines.clear()
    res = br.run_section(None, out=lines.append)
    assert res == {"now": new, "baseline": None}
    assert "baseline" not in lines[1] and not any("relative change" in ln for ln in lines)
    assert line("theorykit --help").endswith("     0.50")


# ------------------------------------------------------------------------------------------------
# bench
# ------------------------------------------------------------------------------------------------
def test_rel_is_the_largest_difference_over_the_reference_max():
    a = [np.array([1.0, 2.0]), np.array([[0.0, 9.0]])]
    b = [np.array([1.0, 4.0]), np.array([[1.0, 10.0]])]
    # first: max|a−b| = 2 over max|b| = 4 → 0.5; second: 1 over 10 → 0.1; the larger: 0.5
    assert bench._rel(a, b) == 0.5
    assert bench._rel([np.array([3.0])], [np.array([-2.0])]) == 2.5          # |3 − (−2)| / 2
    assert bench._rel([np.array([0.0, 1.0])], [np.array([0.0, 4.0])]) == 0.75  # 3 / 4, not over a's max
    assert bench._rel([np.zeros(2)], [np.zeros(2)]) == 0.0


def test_flops_reads_the_cost_analysis_defensively():
    fake = lambda ca: types.SimpleNamespace(cost_analysis=lambda: ca)  # noqa: E731
    assert bench._flops(fake({"flops": 12, "bytes accessed": 40})) == 12.0
    assert bench._flops(fake([{"flops": 12, "bytes accessed": 40}]), "bytes accessed") == 40.0
    assert bench._flops(fake({"bytes accessed": 40})) is None
    assert bench._flops(fake({})) is None
    assert bench._flops(fake(None)) is None

    def boom():
        raise RuntimeError("no cost analysis")

    assert bench._flops(types.SimpleNamespace(cost_analysis=boom)) is None


def test_step_cost_is_per_network():
    """XLA counts the vmapped step of 3 networks; divided by 3 it is one network's step (XLA may fuse
    a little differently, hence 10 %), and it is near the hand count of the tiny net's matmuls:
    [2, 3, 2] on 4 points, forward W1X (3·2·4) and W2h (2·3·4), backward dW2, dh (2·3·4 each) and dW1
    (3·2·4): 5·24 multiply-adds, 240 FLOP, plus elementwise work of the same order."""
    import jax.numpy as jnp

    from theorykit.net.layout import Net

    net = Net.chain(2, [3], 2)
    rng = np.random.default_rng(0)
    data = (jnp.asarray(rng.normal(size=(2, 4))), jnp.asarray(rng.normal(size=(2, 4))))
    one = bench._step_cost(net, data, "float64")
    three = bench._step_cost(net, data, "float64", networks=3)
    assert one is not None and three is not None
    assert three == pytest.approx(one, rel=0.1)
    assert 240 <= one <= 4 * 240


def _fixed_timer(seconds):
    return lambda fn: (seconds, fn(), 0.0)


def test_matmul_and_memory_rates_from_the_best_of_three(monkeypatch):
    best = iter([0.5, 0.25, 1.0])
    monkeypatch.setattr(bench, "timed", lambda fn: (next(best), None, 0.0))
    # 2 n³ reps FLOP over the best time: 2·4³·2 / 0.25 = 1024
    assert bench.matmul_rate("float64", n=4, reps=2) == 1024.0
    best = iter([2.0, 0.5, 4.0])
    # 2 n itemsize reps bytes: 2·8·4 (float32)·2 / 0.5 = 256
    assert bench.memory_rate("float32", n=8, reps=2) == 256.0
    best = iter([1.0, 1.0, 1.0])
    assert bench.memory_rate("float64", n=8, reps=3) == 2 * 8 * 8 * 3


def test_matmul_rate_default_is_the_printed_1024_products():
    import inspect

    # run_bench prints "1024 x 1024 products" beside the rate
    assert inspect.signature(bench.matmul_rate).parameters["n"].default == 1024


def test_memory_rate_default_size_off_a_gpu(monkeypatch):
    monkeypatch.setattr(bench, "timed", lambda fn: (1.0, None, 0.0))
    # n = 2²⁵ elsewhere than on a GPU; float32 (4 bytes), 1 rep, 1 s: 2·2²⁵·4 bytes/s
    assert bench.memory_rate("float32", reps=1) == 2 * 2 ** 25 * 4


CFG = {"ensemble_networks": 3, "steps_short": 2, "steps_long": 5, "naive_networks": 2, "naive_steps": 3,
       "scan_networks": 2, "scan_steps": 7, "gdln_networks": 2, "gdln_steps": 3, "race_steps": 20}


def test_throughput_arithmetic_with_a_fixed_timer(monkeypatch):
    """Every timed run takes 0.5 s: the rates are the network-steps over 0.5 s, and the ratios, the
    FLOP rate and the memory figures follow from them and the rates passed in."""
    monkeypatch.setattr(bench, "timed", _fixed_timer(0.5))
    r = bench.throughput(CFG, "float64", mm_rate=1e9, mem_rate=4e9)
    assert r["networks"] == 3 and r["steps"] == 5 and r["dtype"] == "float64"
    assert r["ensemble_seconds"] == 0.5 and r["ensemble_compile_seconds"] == 0.5
    assert r["ensemble_network_steps_per_s"] == 3 * 5 / 0.5                  # 30
    assert r["naive_network_steps_per_s"] == 2 * 3 / 0.5                     # 12
    assert r["scan_per_network_network_steps_per_s"] == 2 * 7 / 0.5          # 28
    assert r["library_call_network_steps_per_s_including_compile"] == 3 * 2 / 0.5
    assert r["library_call_seconds_including_compile"] == 0.5 and r["library_call_steps"] == 2
    assert (r["naive_networks"], r["naive_steps"], r["scan_networks"], r["scan_steps"]) == (2, 3, 2, 7)
    assert r["ratio_ensemble_over_naive"] == pytest.approx(30 / 12)
    assert r["ratio_ensemble_over_scan_per_network"] == pytest.approx(30 / 28)
    fl = r["flops_per_network_step_xla"] or r["flops_per_network_step_analytic"]
    assert r["ensemble_flop_per_s"] == pytest.approx(30 * fl)
    assert r["matmul_flop_per_s"] == 1e9 and r["fraction_of_matmul_rate"] == pytest.approx(30 * fl / 1e9)
    assert r["memory_bytes_per_s"] == 4e9
    bx = r["bytes_per_network_step_xla"]
    if jax.default_backend() == "cpu":
        # XLA's cost analysis gives numbers on the CPU (bench._flops says None only where a backend gives none):
        # the figures below are checked, not skipped. And a second method: the analytic count, the five matmuls
        # of one step (2·P·(2·H·d_in + 3·d_out·H)), is a lower bound on XLA's, which adds the elementwise work
        # (ReLU, loss, updates; measured 2.5 % more, CPU), so within 10 % of it
        assert bx is not None and bx > 0
        analytic = r["flops_per_network_step_analytic"]
        assert analytic <= r["flops_per_network_step_xla"] <= 1.1 * analytic, (analytic, r["flops_per_network_step_xla"])
    if bx is not None:
        assert r["memory_bound_network_steps_per_s"] == pytest.approx(4e9 / bx)
        assert r["fraction_of_memory_bound"] == pytest.approx(30 * bx / 4e9)
    # the weights: (700·11 + 60·700)·8 bytes, read and written once each
    assert r["weight_roundtrip_bound_network_steps_per_s"] == pytest.approx(4e9 / (2 * 49_700 * 8))
    assert r["tolerance"] == 1e-10 and r["matches_naive_recurrence"] is True
    assert 0 <= r["max_rel_weight_difference"] < 1e-10
    assert r["fused"]["status"].startswith("not timed") and r["fused_flop_per_s"] is None
    assert np.isfinite(r["final_loss_mean_library_call"]) and r["final_loss_mean_library_call"] > 0


def test_throughput_float32_tolerance(monkeypatch):
    monkeypatch.setattr(bench, "timed", _fixed_timer(0.5))
    r = bench.throughput(dict(CFG, ensemble_networks=2, steps_long=2, scan_networks=1), "float32", mm_rate=1e9,
                         mem_rate=1e9)
    assert r["tolerance"] == 1e-4 and r["matches_naive_recurrence"] is True


def test_gdln_and_race_figures_with_a_fixed_timer(monkeypatch):
    monkeypatch.setattr(bench, "timed", _fixed_timer(0.25))
    g = bench.gdln_throughput(CFG, "float64", mm=1e9)
    assert g["networks"] == 2 and g["steps"] == 3 and g["compile_seconds"] == 0.25
    assert g["network_steps_per_s"] == 2 * 3 / 0.25                           # 24
    fl = g["flops_per_network_step_xla_joint_step"]
    assert fl or jax.default_backend() != "cpu"             # on the CPU the figures below are checked, not skipped
    if fl:
        assert g["flop_per_s_lower_bound"] == pytest.approx(24 * fl)
        assert g["fraction_of_matmul_rate_lower_bound"] == pytest.approx(24 * fl / 1e9)
    race = bench.race_throughput(CFG)
    # k = 3: the common pathway and the 6 proper non-empty context subsets, 2⁷ − 1 non-empty families
    assert race["families"] == 2 ** 7 - 1 and race["flow_steps"] == 20 and race["seconds"] == 0.25
    assert race["families_per_s"] == pytest.approx(127 / 0.25)
    # RK4's largest step τ/40, τ = 1/(P η) for the summed loss, P = 8·3, η = 0.001: τ/40 = 1/0.96 ≈ 1.04;
    # records every max(1, 20 // 20) = 1 time unit, and each interval is cut into ceil(1 / (τ/40)) =
    # ceil(0.96) = 1 step (flow.RK4's docstring), so the step taken is the interval, 1
    assert 1 / (24 * 0.001) / 40 > 1
    assert race["rk4_step"] == 1.0
    lo, hi = race["final_loss_range"]
    assert lo <= hi
    # first and repeated call of a race solve and of a small predict_reln, each timed 0.25 s here: 0.25/0.25
    assert set(race["reuse"]) == {"race_solve", "race_solve_other_count", "predict_reln"}
    for r in race["reuse"].values():
        assert r == {"first_s": 0.25, "repeat_s": 0.25, "first_over_repeat": 1.0}


def _stub_run_bench(monkeypatch, matches=True, platform="cpu", rate=30.0, fused=None):
    monkeypatch.setattr(bench, "_device", lambda: {"platform": platform, "device": "d", "device_kind": "kind",
                                                   "count": 1, "cpu": "x", "jax": "0"})
    monkeypatch.setattr(bench, "paper_results", lambda ks: [{"result": "xor", "seconds": 2.0},
                                                           {"result": "s4", "seconds": 3.0},
                                                           {"result": "s5", "seconds": 5.0}])
    monkeypatch.setattr(bench, "matmul_rate", lambda dt: 1e9)
    monkeypatch.setattr(bench, "memory_rate", lambda dt: 2e9)
    seen = {}

    def thr(cfg, dt, mm, mem):
        seen.setdefault("cfg", cfg)
        return {"dtype": dt, "networks": 3, "ensemble_network_steps_per_s": rate, "ensemble_flop_per_s": 3e9,
                "fraction_of_matmul_rate": 0.5, "naive_network_steps_per_s": 10.0,
                "scan_per_network_network_steps_per_s": 20.0, "ratio_ensemble_over_naive": 3.0,
                "ratio_ensemble_over_scan_per_network": 1.5, "flops_per_network_step_xla": 1e6,
                "flops_per_network_step_analytic": 6_787_200, "matches_naive_recurrence": matches,
                "max_rel_weight_difference": 1e-12, "memory_bound_network_steps_per_s": 100.0,
                "bytes_per_network_step_xla": 2e6, "weight_bytes_per_network": 5e5, "fraction_of_memory_bound": 0.3,
                "fused": fused or {"status": "not timed"}, "fused_flop_per_s": None, "matmul_flop_per_s": mm,
                "weight_roundtrip_bound_network_steps_per_s": 7.0}

    monkeypatch.setattr(bench, "throughput", thr)
    monkeypatch.setattr(bench, "fused_where_it_fits", lambda cfg, dt: {"hidden": 128, "dtype": dt, "plain_network_steps_per_s": 1.0,
                                                                       "fused": {"status": "x"}, "ratio_fused_over_plain": None})
    monkeypatch.setattr(bench, "gdln_throughput", lambda cfg, dt, mm: {"dtype": dt, "network_steps_per_s": 5.0,
                                                                       "flop_per_s_lower_bound": None})
    monkeypatch.setattr(bench, "race_throughput", lambda cfg: {"families": 127, "flow_steps": 20, "seconds": 1.0,
                                                               "families_per_s": 127.0})
    monkeypatch.setattr(bench, "run_section", lambda quick: {"scaling": "table"})
    return seen


def test_run_bench_writes_json_and_prints_ratios(monkeypatch, tmp_path, capsys):
    seen = _stub_run_bench(monkeypatch)
    out = tmp_path / "b.json"
    assert bench.run_bench(quick=True, json_out=str(out)) == 0
    assert seen["cfg"] is bench.QUICK
    text = capsys.readouterr().out
    # ratios to the XoR derivation: 3/2 = 1.5, 5/2 = 2.5
    assert "(ratios to the XoR derivation: 1.5, 2.5)" in text
    # 1e9 FLOP/s = 1.0 GFLOP/s; 2e9 B/s = 2 GB/s
    assert "float64 1.0 GFLOP/s, float32 1.0 GFLOP/s" in text and "float64 2 GB/s" in text
    # memory: 2e6 bytes = 2.00 MB, 2e6 / 5e5 = 4.0 × the weights
    assert "moves 2.00 MB per network (4.0 x its weights)" in text
    assert "no GPU" in text and f"wrote {out}" in text
    data = json.loads(out.read_text())
    assert data["mode"] == "quick" and data["complete"] is True and data["all_checks_pass"] is True
    assert data["gpu"] is False and data["derivation_scaling"] == {"scaling": "table"}
    assert data["targets_h100"] == {"float32": 7e6, "float64": 3e6}
    assert data["matmul_flop_per_s"] == {"float64": 1e9, "float32": 1e9}
    assert data["race_engine"]["families"] == 127 and len(data["throughput"]) == 2


def test_run_bench_fails_on_a_recurrence_mismatch(monkeypatch, capsys):
    seen = _stub_run_bench(monkeypatch, matches=False)
    assert bench.run_bench(quick=False) == 1
    assert seen["cfg"] is bench.FULL
    assert "MISMATCH" in capsys.readouterr().out


def test_run_bench_fails_on_a_fused_mismatch(monkeypatch):
    _stub_run_bench(monkeypatch, fused={"status": "ok", "network_steps_per_s": 1.0, "matches_naive_recurrence": False,
                                        "max_rel_weight_difference": 1.0})
    monkeypatch.setattr(bench, "throughput", lambda cfg, dt, mm, mem, _t=bench.throughput: dict(_t(cfg, dt, mm, mem),
                                                                                                   fused_flop_per_s=1e9))
    assert bench.run_bench(quick=True) == 1


def test_run_bench_gpu_targets_met_at_the_target(monkeypatch, capsys):
    # the ensemble runs exactly at 7 M network-steps/s: "≥ 7 M" holds in float32; 3 M in float64 too
    _stub_run_bench(monkeypatch, platform="gpu", rate=7e6)
    assert bench.run_bench(quick=True) == 0
    text = capsys.readouterr().out
    assert "target float32, ensemble: >= 7,000,000 on an H100: met" in text
    assert "target float64, ensemble: >= 3,000,000 on an H100: met" in text
    # on a GPU the kernel is also compared where it fits, once per dtype
    assert "where the kernel fits, [11, 128, 60], float64: plain ensemble 1 network-steps/s, fused x" in text
    assert "where the kernel fits, [11, 128, 60], float32: plain ensemble" in text
    _stub_run_bench(monkeypatch, platform="gpu", rate=7e6 - 1)
    bench.run_bench(quick=True)
    assert "target float32, ensemble: >= 7,000,000 on an H100: NOT met" in capsys.readouterr().out


def test_repl_baseline_must_be_a_theorykit_checkout(monkeypatch, tmp_path):
    """A baseline folder without theorykit/ once went on: its interpreter imported the installed
    theorykit (this one) and the table compared it with itself. Now the field is named, before any
    measuring."""
    from theorykit.errors import SpecError

    monkeypatch.setattr(br, "measure", lambda root=None: pytest.fail("measured before checking --baseline"))
    with pytest.raises(SpecError, match="--baseline") as e:
        br.run_section(str(tmp_path / "no-such-checkout"), out=lambda s: None)
    assert e.value.field == "--baseline" and "theorykit/__init__.py" in e.value.problem
    (tmp_path / "theorykit").mkdir()
    (tmp_path / "theorykit" / "__init__.py").write_text("")
    seen = []
    monkeypatch.setattr(br, "measure", lambda root=None: seen.append(root) or pytest.skip("reached the measuring"))
    with pytest.raises(pytest.skip.Exception):
        br.run_section(str(tmp_path), out=lambda s: None)
    assert seen == [None]


def test_device_names_jax_s_first_device():
    import jax

    d = bench._device()
    assert d["platform"] == jax.devices()[0].platform and d["count"] == jax.device_count()
    assert d["jax"] == jax.__version__ and d["device"] == str(jax.devices()[0])


def test_bench_sizes_fit_the_runs_that_share_the_start():
    """throughput trains the naive loop, the scan baseline and the recurrence check from the
    ensemble's start (network i of ``ensemble_networks``), and Section 5 is k = 3, 4, 5 (module
    docstring) in both sizes."""
    for cfg in (bench.QUICK, bench.FULL):
        assert cfg["naive_networks"] <= cfg["ensemble_networks"] and cfg["scan_networks"] <= cfg["ensemble_networks"]
        assert tuple(cfg["section5_ks"]) == (3, 4, 5)
    assert all(bench.QUICK[k] <= bench.FULL[k] for k in bench.QUICK if k != "section5_ks")


def test_fused_where_it_fits_plain_rate_and_ratio(monkeypatch):
    """On a (pretended) GPU with a fixed timer of 0.5 s and the kernel stubbed at 10 network-steps/s:
    the plain ensemble runs 2 networks × 4 steps in 0.5 s, 16 network-steps/s, and the ratio is 10/16."""
    import jax

    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    monkeypatch.setattr(bench, "timed", _fixed_timer(0.5))
    got = {}

    def fused(X, Y, net, lr, dt, B, S, Sn, start, nv_W, tol):
        got.update(B=B, S=S, Sn=Sn, tol=tol, lr=lr)
        return {"network_steps_per_s": 10.0}

    monkeypatch.setattr(bench, "_fused_figures", fused)
    r = bench.fused_where_it_fits({"ensemble_networks": 2, "steps_long": 4, "naive_steps": 3}, "float64", hidden=8)
    assert r["plain_network_steps_per_s"] == 2 * 4 / 0.5
    assert r["ratio_fused_over_plain"] == pytest.approx(10 / 16)
    assert got == {"B": 2, "S": 4, "Sn": 3, "tol": 1e-10, "lr": 0.001}
    assert (r["hidden"], r["networks"], r["steps"]) == (8, 2, 4)
