"""Rules of the size/time estimates (theorykit.spec.limits), the summaries and figure of a spec
(theorykit.analysis.summary), the theory-vs-run comparison (theorykit.analysis.compare) and the
fused training kernel's layout (theorykit.sim.fused), each checked against a value worked out by
hand in the test (the formulas of the modules' docstrings and comments, written out here), or by a
second method written here (numpy), never against a value the code under test produced.
Tiny sizes: each test runs in well under a second or two (the fused kernel in Pallas's interpreter)."""
import io
import math
import types

import numpy as np
import pytest

from theorykit.errors import SpecError
from theorykit.spec import limits as L
from theorykit.spec.files import spec_from_dict


# ------------------------------------------------------------------------------------------------
# limits: human units, the environment, the machine's memory
# ------------------------------------------------------------------------------------------------
def test_human_seconds_switches_unit_at_each_boundary():
    """human_seconds: seconds below 120, minutes below 7200 s, hours below 2 days, days below 2 years
    (365-day years), then years; 3 significant digits."""
    hs = L.human_seconds
    assert [hs(0), hs(119), hs(120)] == ["0 s", "119 s", "2 min"]
    assert [hs(7199.4), hs(7200)] == ["120 min", "2 h"]                    # 7199.4/60 = 119.99
    assert [hs(2 * 86400 - 36), hs(2 * 86400)] == ["48 h", "2 days"]      # 172764/3600 = 47.99
    assert [hs(2 * 365 * 86400 - 86400), hs(2 * 365 * 86400)] == ["729 days", "2 years"]
    assert hs(10 * 365 * 86400) == "10 years"
    # not a number of seconds: said as it is, in seconds (it read "nan years": NaN fails every "s < below")
    assert [hs(float("nan")), hs(float("inf"))] == ["nan s", "inf s"]
    # years of 365 × 86400 s: 2.00500001 years print as 2.01 (a year 1 s longer would give 2.004977: "2")
    assert hs(365 * 86400 * 2.00500001) == "2.01 years"


def test_human_bytes_switches_unit_at_a_thousand():
    """human_bytes: decimal units, the next one from 1000 of the last (1000 B is 1 KB, 999 B stays)."""
    hb = L.human_bytes
    assert [hb(999), hb(1000), hb(999_000), hb(1e6), hb(1e9), hb(1e12), hb(1e15)] == \
        ["999 B", "1 KB", "999 KB", "1 MB", "1 GB", "1 TB", "1 PB"]


@pytest.mark.parametrize("text", ["abc", "0", "-5", "inf", "nan"])
def test_a_bad_limit_in_the_environment_is_refused_by_name(monkeypatch, text):
    """_env_number: a value that is not a positive finite number is a SpecError naming the variable."""
    monkeypatch.setenv("THEORYKIT_MAX_SECONDS", text)
    with pytest.raises(SpecError) as err:
        L.Limits(max_bytes=1.0)
    assert err.value.field == "THEORYKIT_MAX_SECONDS" and repr(text) in str(err.value)
    assert ("not a number" in str(err.value)) == (text == "abc")
    # inf is positive but not finite: the message says what is wanted (it read "must be positive")
    assert text == "abc" or "must be a positive, finite number" in str(err.value)


def test_limits_defaults_and_the_environment(monkeypatch):
    """Defaults: half the machine's memory, 3600 s; THEORYKIT_MAX_BYTES/SECONDS change them (an empty
    variable is as if unset); explicit values are kept; force defaults to off."""
    monkeypatch.delenv("THEORYKIT_MAX_BYTES", raising=False)
    monkeypatch.setenv("THEORYKIT_MAX_SECONDS", "")
    lim = L.Limits()
    assert lim.max_seconds == 3600.0 and lim.max_bytes == L.machine_memory() / 2 and lim.force is False
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "2.5e3")
    monkeypatch.setenv("THEORYKIT_MAX_SECONDS", "7")
    lim = L.Limits()
    assert (lim.max_bytes, lim.max_seconds) == (2500.0, 7.0)
    assert (L.Limits(max_bytes=5, max_seconds=6).max_bytes, L.Limits(max_bytes=5, max_seconds=6).max_seconds) == (5, 6)


def test_machine_memory_is_physical_or_a_lower_cgroup_limit(monkeypatch):
    """machine_memory: page size × pages; a cgroup limit (a number) replaces it only when lower and
    positive ("max", 0 or a larger number do not); sysconf missing: 8 GiB."""
    monkeypatch.setattr(L.os, "sysconf", lambda k: {"SC_PAGE_SIZE": 4096, "SC_PHYS_PAGES": 1000}[k])
    files = {}

    def fake_open(path, *a, **k):
        if path not in files:
            raise OSError(path)
        return io.StringIO(files[path])

    monkeypatch.setattr(L, "open", fake_open, raising=False)
    assert L.machine_memory() == 4096 * 1000
    for text in ("max\n", "0\n", str(4096 * 1000 + 1)):
        files["/sys/fs/cgroup/memory.max"] = text
        assert L.machine_memory() == 4096 * 1000
    files["/sys/fs/cgroup/memory.max"] = "123456\n"
    assert L.machine_memory() == 123456
    files.clear()
    files["/sys/fs/cgroup/memory/memory.limit_in_bytes"] = "654321"      # cgroup v1
    assert L.machine_memory() == 654321

    def no_sysconf(k):
        raise ValueError(k)

    monkeypatch.setattr(L.os, "sysconf", no_sysconf)
    files.clear()
    assert L.machine_memory() == 8 << 30


# ------------------------------------------------------------------------------------------------
# limits: Estimate, task_estimate, derivation_estimate, simulation_estimate
# ------------------------------------------------------------------------------------------------
def test_estimates_add_up_and_keep_their_parts():
    """Estimate.add accumulates seconds and bytes and lists (field, seconds, bytes, value, power);
    a + b joins the stages with " + ", sums both and keeps both parts lists and extra attributes."""
    a = L.Estimate("A").add("x", 1.0, 10.0, 3, 1.0).add("y", 2.0, 20.0)
    assert (a.seconds, a.bytes, a.parts) == (3.0, 30.0, [("x", 1.0, 10.0, 3, 1.0), ("y", 2.0, 20.0, None, 1.0)])
    b = L.Estimate("B").add("z", 0.5, 5.0)
    b.radicals = "marker"
    c = a + b
    assert (c.stage, c.seconds, c.bytes) == ("A + B", 3.5, 35.0)
    assert [p[0] for p in c.parts] == ["x", "y", "z"] and c.radicals == "marker"
    assert c.summary() == "about 3.5 s, 35 B"
    assert (L.Estimate("m").add("f", nbytes=5.0).seconds, L.Estimate("t").add("f", 2.0).bytes) == (0.0, 0.0)


def test_task_estimate_counts_entries():
    """(d + p)·P SymPy entries at SYMPY_ENTRY_SECONDS and SYMPY_ENTRY_BYTES (200) each: 3 inputs, 1 output,
    4 datapoints are 16 entries."""
    e = L.task_estimate(3, 1, 4, "data.n", 7, 2.0)
    assert e.seconds == pytest.approx(16 * L.SYMPY_ENTRY_SECONDS, rel=1e-15) and e.bytes == 16 * 200
    assert e.parts == [("data.n", e.seconds, 3200.0, 7, 2.0)] and e.stage == "building the task"


def _two_pathway_spec(lr=0.01):
    # rational data, d = 2, p = 2, P = 4; pathway a reads every row, b input 0 and output 1
    return spec_from_dict({"data": {"inputs": [[1, 0, 1, 0], [0, 1, 1, 0]], "targets": [[1, 0, 0, 1], [0, 1, 0, 1]]},
                           "pathways": [{"name": "a", "active": "all"},
                                        {"name": "b", "active": "all", "inputs": [0], "outputs": [1]}],
                           "training": {"lr": lr}})


def test_derivation_estimate_of_rational_data_by_hand():
    """Rational data (the exact engine): per pathway EXACT_OVERHEAD + EXACT_SECONDS·W^0.6·w/W with
    w = (n_in + n_out)·P·min(n_in, n_out), W = Σ w; bytes 200·(n_in n_out + n_in² + n_out²)·4 + 16 P²;
    the data: 1e-6 (d + p) P s and 200 (d² + p d + p²) B. Here a: w = 4·4·2 = 32, b: w = 2·4·1 = 8,
    W = 40; bytes a: 200·12·4 + 256 = 9856, b: 200·3·4 + 256 = 2656, data 200·12 = 2400."""
    s = _two_pathway_spec()
    e = L.derivation_estimate(s)
    assert [p[0] for p in e.parts] == ["pathways[0]", "pathways[1]", "data"]
    assert [p[4] for p in e.parts] == [3.0, 3.0, 1.0]
    W = 40.0
    for part, w in zip(e.parts, (32.0, 8.0)):
        assert part[1] == pytest.approx(L.EXACT_OVERHEAD + L.EXACT_SECONDS * W ** 0.6 * w / W, rel=1e-12)
    assert [p[2] for p in e.parts] == [9856.0, 2656.0, 2400.0]
    assert e.parts[2][1] == pytest.approx(1e-6 * 16, rel=1e-12)
    assert e.bytes == 9856 + 2656 + 2400 and not hasattr(e, "radicals")


def test_derivation_estimate_counts_the_race_only_with_a_horizon():
    """The race reduction (two pathways, a horizon): 1.5 s + 3 K² min(p', K d) d² · 600 · span / 3e10 with
    span = max(1, log10(1 + horizon/τ)); memory 8 × Σ_pq (o_p o_q i_q + o_p i_q i_p). Here K = 2, the
    widest pathway has d = 2 inputs and p' = 2 outputs: 3·4·2·4·600 = 57600 flops per unit of span;
    Σ over (a,a), (a,b), (b,a), (b,b) with a = (2 in, 2 out), b = (1, 1): 16 + 6 + 6 + 2 = 30."""
    s = _two_pathway_spec(lr=0.01)
    tau = s.tau
    base = L.derivation_estimate(s)
    assert L.derivation_estimate(s, horizon=0).seconds == base.seconds       # no loss curve asked for
    for horizon, span in ((1000.0, math.log10(1 + 1000.0 / tau)), (1e-3, 1.0)):
        e = L.derivation_estimate(s, horizon=horizon, horizon_field="--times")
        fld, secs, nbytes, _, power = e.parts[-1]
        assert fld == "--times" and power == 1.0 and nbytes == 8 * 30
        assert secs == pytest.approx(1.5 + 57600 * span / 3e10, rel=1e-12)
        assert e.seconds == pytest.approx(base.seconds + secs, rel=1e-12)
    one = spec_from_dict({"data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, 1]]},
                          "pathways": [{"name": "a", "active": "all"}]})
    assert len(L.derivation_estimate(one, horizon=1000.0).parts) == 2       # one pathway: no race


def test_derivation_estimate_of_symbols_by_hand():
    """Symbols take a pathway out of the exact engine: its rational part costs SYMBOLIC_FACTOR (20) times
    more; a pathway whose blocks are a row (m = min(n_in, n_out, active) = 1) adds ROW_SYMBOL_ENTRY_SECONDS
    per symbolic entry of its data; one with m ≥ 2 adds SYMBOLIC_BLOCK_SECONDS·(m − 1)³.
    xor_linear: 2 pathways of 3 inputs, 1 output, 2 active datapoints, each with two entries ±Δ
    (w = 4·4·1 = 16, W = 32). A 2 × 2 task with one symbol a: m = 2, w = W = 4·2·2 = 16."""
    from pathlib import Path

    from theorykit.spec.files import load_spec

    xor = load_spec(Path(__file__).resolve().parents[1] / "examples" / "xor_linear.toml")
    e = L.derivation_estimate(xor)
    rational = L.EXACT_SECONDS * 32 ** 0.6 * 16 / 32
    for part in e.parts[:2]:
        assert part[1] == pytest.approx(L.EXACT_OVERHEAD + 20 * rational + 2 * L.ROW_SYMBOL_ENTRY_SECONDS, rel=1e-12)
    # the same spec with its symbol given as a number would not be symbolic
    e_num = L.derivation_estimate(xor, symbolic=False)
    assert e_num.parts[0][1] == pytest.approx(L.EXACT_OVERHEAD + rational, rel=1e-12)
    sym = spec_from_dict({"symbols": {"a": {"positive": True}},
                          "data": {"inputs": [[1, 0], [0, "a"]], "targets": [[1, 0], [0, 1]]},
                          "pathways": [{"name": "p", "active": "all"}]})
    e2 = L.derivation_estimate(sym)
    assert e2.parts[0][1] == pytest.approx(L.EXACT_OVERHEAD + 20 * L.EXACT_SECONDS * 16 ** 0.6
                                           + L.SYMBOLIC_BLOCK_SECONDS * 1 ** 3, rel=1e-12)


def test_simulation_memory_by_hand():
    """Memory of a simulation (simulation_estimate): per pathway seeds·item·(6·weights + 4·activations
    + hidden·(depth − 1)·2), the loss history 2·8·seeds·(steps + 1). xor_linear: two pathways
    [3, 64, 1], P = 4: weights 3·64 + 64 = 256, activations (64 + 1)·4 = 260, so 6·256 + 4·260 + 128 =
    2704 numbers per seed; the ReLU network of the same width (H = 128): weights 3·128 + 128 = 512,
    activations 128·4·2 + 4 = 1028, 6·512 + 4·1028 = 7184."""
    from pathlib import Path

    from theorykit.spec.files import load_spec

    xor = load_spec(Path(__file__).resolve().parents[1] / "examples" / "xor_linear.toml")
    e = L.simulation_estimate(xor, steps=10, seeds=2)
    hist = 2 * 8 * 2 * 11
    assert e.bytes == 2 * (2 * 8 * 2704) + hist
    assert [p[0] for p in e.parts] == ["pathways[0].hidden", "pathways[1].hidden", "training.steps", "compile"]
    assert [p[3] for p in e.parts] == [64, 64, 10, None] and [p[4] for p in e.parts] == [1.0, 1.0, 1.0, 0.0]
    assert e.parts[2][2] == hist and e.parts[2][1] == pytest.approx(10 * (L.SIM_STEP_OVERHEAD * 4 + 2 * L.SIM_SEED_STEP_OVERHEAD), rel=1e-12)
    f32 = L.simulation_estimate(xor, steps=10, seeds=2, dtype="float32")
    assert f32.bytes == 2 * (2 * 4 * 2704) + hist                 # 4-byte numbers; the history stays float64
    relu = L.simulation_estimate(xor, steps=10, seeds=3, network="relu", seeds_field="--seeds")
    assert relu.parts[0][0] == "pathways[*].hidden (their sum)" and relu.parts[0][3] == 128.0
    assert relu.bytes == 3 * 8 * 7184 + 2 * 8 * 3 * 11
    assert (relu.steps, relu.seeds, relu.steps_field, relu.seeds_field) == (10.0, 3.0, "training.steps", "--seeds")


# ------------------------------------------------------------------------------------------------
# limits: enforce and the field it names
# ------------------------------------------------------------------------------------------------
def _sim_like(hidden_cost, steps_cost, hidden=2000, steps=10 ** 6, seeds=4, key=1):
    e = L.Estimate("simulation")
    for fld, cost, value in (("pathways[0].hidden", hidden_cost, hidden), ("training.steps", steps_cost, steps)):
        e.add(fld, *((cost, 0.0) if key == 1 else (0.0, cost)), value, 1.0)
    e.add("compile", 1.5 if key == 1 else 0.0, 0.0, None, 0.0)
    e.steps_field, e.seeds_field, e.steps, e.seeds = "training.steps", "--seeds", float(steps), float(seeds)
    return e


def test_enforce_names_the_field_most_out_of_proportion_and_how_far():
    """_pick, by hand: hidden 2000 costs 50 s, the steps' own overhead 10 s, compile 1.5 s (61.5 s),
    limit 31.5 s. Candidates: hidden (room 31.5 − 11.5 = 20 → 2000·20/50 = 800, 2000/1e3 = 2× typical);
    training.steps' own part (room −20: no target); --seeds (cost 50, room 20 → 4·0.4 = 1.6 → 1, 4/8);
    the steps (cost 60, room 30 → 1e6·30/60 = 500000, 1e6/1e4 = 100× typical): the steps are named."""
    e = _sim_like(50.0, 10.0)
    with pytest.raises(SpecError) as err:
        L.enforce(e, L.Limits(max_bytes=1e30, max_seconds=31.5))
    assert err.value.field == "training.steps"
    assert "lower training.steps from 1000000 to at most 500000" in str(err.value)
    assert "over the time limit of 31.5 s" in str(err.value) and "--force" in str(err.value)
    L.enforce(e, L.Limits(max_bytes=1e30, max_seconds=31.5, force=True))        # force lifts it
    L.enforce(e, L.Limits(max_bytes=1e30, max_seconds=61.5))                      # at the limit: allowed
    # ordinary steps (1e4, 1× typical) beside a wide layer (hidden 4000, 4×): the width is named;
    # room for it 31.5 − 11.5 = 20 → 4000·20/50 = 1600
    with pytest.raises(SpecError) as err:
        L.enforce(_sim_like(50.0, 10.0, hidden=4000, steps=10 ** 4), L.Limits(max_bytes=1e30, max_seconds=31.5))
    assert err.value.field == "pathways[0].hidden" and "from 4000 to at most 1600" in str(err.value)


def test_enforce_compares_each_field_with_its_ordinary_size():
    """_TYPICAL: 1e4 steps, 8 seeds, 1e3 hidden units. 16 seeds (2× ordinary) beside 1900 hidden units
    (1.9×), both costing 50 s of 61.5 s, limit 31.5 s: both could fit (room 20 s: 16·0.4 → 6, 1900·0.4 →
    760) and the seeds are further out of proportion, so they are named."""
    with pytest.raises(SpecError) as err:
        L.enforce(_sim_like(50.0, 10.0, hidden=1900, steps=10 ** 4, seeds=16), L.Limits(max_bytes=1e30, max_seconds=31.5))
    assert err.value.field == "--seeds" and "lower --seeds from 16 to at most 6" in str(err.value)


def test_enforce_memory_is_never_lifted_and_counts_the_seeds():
    """Memory (key 2): the seeds multiply the widths' parts and the loss history. hidden 2000 holds 600 B,
    the history 200 B (800 B), limit 500 B: hidden → room 500 − 200 = 300 → 2000·300/600 = 1000 (2× typical);
    --seeds (cost 800, room 500 → 4·500/800 = 2.5 → 2, 0.5×); the steps' own part (room 500 − 600 < 0):
    the width is named. Exactly at the limit nothing is raised; force does not lift it."""
    e = _sim_like(600.0, 200.0, steps=10 ** 4, key=2)
    with pytest.raises(SpecError) as err:
        L.enforce(e, L.Limits(max_bytes=500.0, max_seconds=1e9, force=True))
    assert err.value.field == "pathways[0].hidden" and "from 2000 to at most 1000" in str(err.value)
    assert "800 B of memory, over the limit of 500 B" in str(err.value)
    assert "--force does not lift the memory limit" in str(err.value)
    L.enforce(e, L.Limits(max_bytes=800.0, max_seconds=1e9))


def test_enforce_without_a_target_says_what_to_make_smaller():
    """A derivation's pathway (no value to scale) is named with "make … smaller"; the race's --times
    (no value) with "lower --times (and the sizes it multiplies…)"; nothing at all to lower: "spec"."""
    e = L.Estimate("derivation").add("pathways[0]", 100.0, 0.0, None, 3.0).add("data", 1.0, 0.0, None, 1.0)
    with pytest.raises(SpecError) as err:
        L.enforce(e, L.Limits(max_bytes=1e30, max_seconds=10.0))
    assert err.value.field == "pathways[0]" and "make pathways[0] smaller" in str(err.value)
    e = L.Estimate("derivation").add("data", 1.0, 0.0, None, 1.0).add("--times", 100.0, 0.0, None, 1.0)
    with pytest.raises(SpecError) as err:
        L.enforce(e, L.Limits(max_bytes=1e30, max_seconds=10.0))
    assert err.value.field == "--times" and "lower --times (and the sizes it multiplies" in str(err.value)
    e = L.Estimate("x").add("compile", 100.0, 0.0, None, 0.0)
    with pytest.raises(SpecError) as err:
        L.enforce(e, L.Limits(max_bytes=1e30, max_seconds=10.0))
    assert err.value.field == "spec"


def test_enforce_blames_the_radicals_only_when_they_alone_pass_the_limit():
    """enforce: over the time limit, with radicals costing r of the s seconds: when s − r ≤ limit the error
    names the radicals' field (their count in words, the deepest index, the degree); else the usual field."""
    rad2 = types.SimpleNamespace(indices={2: 2, 3: 2}, deepest_index="2", describe=lambda: "4")
    e = L.Estimate("derivation").add("pathways[0]", 30.0, 0.0, None, 3.0)
    e.radicals = (rad2, "data.inputs[0][1]", 20.0)
    with pytest.raises(SpecError) as err:
        L.enforce(e, L.Limits(max_bytes=1e30, max_seconds=10.0))        # 30 − 20 = 10 ≤ 10: the radicals
    assert err.value.field == "data.inputs[0][1]"
    assert "of 2 different radicands, the deepest a root of index 2" in str(err.value)
    assert "degree up to 4" in str(err.value)
    e.radicals = (types.SimpleNamespace(indices={5: 2}, deepest_index="2", describe=lambda: "2"), "data", 20.0)
    with pytest.raises(SpecError) as err:
        L.enforce(e, L.Limits(max_bytes=1e30, max_seconds=10.0))
    assert "(of one radicand," in str(err.value)
    with pytest.raises(SpecError) as err:
        L.enforce(e, L.Limits(max_bytes=1e30, max_seconds=9.0))         # 10 > 9: more than the radicals
    assert err.value.field == "pathways[0]"


# ------------------------------------------------------------------------------------------------
# summary: the terminal texts, emit, plot_save, tk.plot
# ------------------------------------------------------------------------------------------------
def _examples():
    from pathlib import Path

    return Path(__file__).resolve().parents[1] / "examples"


def test_wants_summary_and_emit_follow_the_terminal_and_the_json_option(monkeypatch, capsys, tmp_path):
    """The summary on a terminal or with --summary; with ``--json -`` always the JSON on stdout (indent 2);
    ``--json FILE`` writes the file, then the summary on a terminal and nothing on a pipe."""
    import json

    from theorykit.analysis import summary as S

    A = types.SimpleNamespace
    monkeypatch.setattr(S, "stdout_is_terminal", lambda: False)
    assert S.wants_summary(A(json=None, summary=True)) is True
    assert S.wants_summary(A(json="-", summary=True)) is False
    assert S.wants_summary(A(json=None, summary=False)) is False
    assert S.wants_summary(A()) is False
    doc = {"a": 1, "b": [1.5, "x"]}
    S.emit(A(json=None, summary=False), doc, lambda: "TEXT")
    assert capsys.readouterr().out == json.dumps(doc, indent=2) + "\n"
    S.emit(A(json="-", summary=True), doc, lambda: "TEXT")
    assert capsys.readouterr().out == json.dumps(doc, indent=2) + "\n"
    f = tmp_path / "o.json"
    S.emit(A(json=str(f), summary=False), doc, lambda: "TEXT")
    assert capsys.readouterr().out == "" and json.loads(f.read_text()) == doc
    monkeypatch.setattr(S, "stdout_is_terminal", lambda: True)
    assert S.wants_summary(A(json=None, summary=False)) is True
    S.emit(A(json=None), doc, lambda: "TEXT")
    assert capsys.readouterr().out == "TEXT\n"


def test_short_numbers_and_cut_expressions():
    """_g: 4 significant digits, "—" for what is not a number; cut (theorykit.io, was summary._short): text
    up to n characters kept whole, longer cut to n − 1 characters and "…" (n characters in all)."""
    from theorykit.analysis.summary import _g
    from theorykit.io import cut

    assert [_g(1 / 3), _g(12345.6), _g("2.5"), _g(None), _g("x")] == ["0.3333", "1.235e+04", "2.5", "—", "—"]
    assert cut("a" * 60) == "a" * 60
    assert cut("a" * 61) == "a" * 59 + "…" and cut("abcdef", 4) == "abc…"


def test_simulate_text_header_and_without_theory():
    """simulate_text: the header line from the document's fields (seconds to 0.1); without theory no
    theory column and no gap line."""
    from theorykit.analysis.summary import simulate_text

    doc = {"spec": "s", "network": "relu", "init": "random", "seeds": 2, "steps": 5, "dtype": "float32",
           "seconds": 1.26, "loss": {"t": [0, 5], "mean": [0.5, 0.25], "std": [0.0, 0.125]}}
    rows = simulate_text(doc).splitlines()
    assert rows[0] == "s: relu network, init random, 2 seeds, 5 steps, float32 (1.3s)"
    assert "theory" not in rows[1] and len(rows) == 4
    assert rows[3].split() == ["5", "0.25", "±", "0.125"]


def test_derive_text_of_xor_linear_by_hand(monkeypatch, capsys):
    """xor_linear at Δ = 1/2 (docs/theory.md#xor): each pathway has s = Δ/2 = 1/4, d = Δ²/2 = 1/8, end
    s/d = 2; τ = 1/η = 100, a0 = 1e-3: t½ = τ/(2s) ln(s/(d a0) − 1) = 200 ln(1999) = 1520.1; L(0) =
    ½ − 2(s a0 − d a0²/2) = 0.499500125. Pathway positive is on 2 of the 4 datapoints, 3 inputs, 1 output."""
    from theorykit.analysis import summary as S
    from theorykit.cli import main

    monkeypatch.setattr(S, "stdout_is_terminal", lambda: True)
    assert main(["derive", str(_examples() / "xor_linear.toml"), "--set", "Delta=1/2", "--times", "0,1000"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "xor-linear: 2 pathways, method closed-form; τ = 100 steps, a0 = 0.001, loss mean"
    assert out[1].split() == ["positive", "active", "on", "2/4", "datapoints,", "3", "inputs", "→", "1", "output"]
    th = 200 * math.log(1999)
    assert out[2].strip() == f"mode 1: s = 0.25, d = 0.125, end s/d = 2, t½ = {th:.4g}  (s = 1/4, d = 1/8)"
    assert "t½ here is each mode's own" not in "\n".join(out)          # only for a coupled method
    loss_rows = [ln.split() for ln in out if ln.strip().startswith("t =")]
    assert loss_rows[0] == ["t", "=", "0", "L", "=", f"{0.5 - 2 * (1e-3 / 4 - 1e-6 / 16):.4g}"]


def test_derive_text_shows_at_most_max_modes_and_says_how_many_more():
    """derive_text: all the modes when there are at most max_modes + 1 of them (a "1 more" line would
    take the place of the mode it hides); else max_modes and "… k more modes"."""
    from fractions import Fraction

    from theorykit import Derivation
    from theorykit.analysis.summary import derive_text
    from theorykit.spec.files import load_spec

    spec = load_spec(_examples() / "xor_linear.toml")
    der = Derivation(spec, values={"Delta": 0.5})

    def doc(k):
        sv = [str(Fraction(1, i + 2)) for i in range(k)]
        pw = {"singular_values": sv, "input_variances": sv, "singular_values_float": [1 / (i + 2) for i in range(k)],
              "input_variances_float": [1 / (i + 2) for i in range(k)]}
        return {"pathways": {"positive": pw, "negative": pw}}

    two = derive_text(der, doc(2), {"Delta": 0.5}, max_modes=1)
    assert two.count("mode 2:") == 2 and "more modes" not in two
    three = derive_text(der, doc(3), {"Delta": 0.5}, max_modes=1)
    assert three.count("mode 2:") == 0 and three.count("… 2 more modes (--json for all)") == 2
    # mode 2 has no t½ (one mode per pathway), its s/d = 1
    assert "mode 2: s = 0.3333, d = 0.3333, end s/d = 1, t½ = —  (s = 1/3, d = 1/3)" in two
    # the exact values are shown beside the floats only while both texts together are under 50 characters
    for n_s, shown in ((24, True), (25, False)):
        d = doc(1)
        d["pathways"]["positive"] = dict(d["pathways"]["positive"], singular_values=["1" * n_s],
                                         input_variances=["2" * 25])
        assert (f"(s = {'1' * n_s}, d = {'2' * 25})" in derive_text(der, d, {"Delta": 0.5})) is shown


def test_plot_save_records_the_modes_at_evenly_spread_steps():
    """plot_save: SaveAt at the integer parts of linspace(0, steps, points + 1) (no repeats), the loss
    every step, the modes recorder; a spec whose modes cannot be had (symbols without values): (None, None)."""
    from theorykit.analysis.summary import plot_save
    from theorykit.spec.files import load_spec

    spec = load_spec(_examples() / "xor_linear.toml")
    save, der = plot_save(spec, {"Delta": 0.5}, 10, points=4)
    assert list(save.ts) == [0, 2, 5, 7, 10] and save.loss_every == 1 and set(save.fns) == {"modes"}
    assert der is not None and der.method == "closed-form"
    save, _ = plot_save(spec, {"Delta": 0.5}, 3, points=6)          # 0, .5, 1, …, 3 → 0, 1, 2, 3
    assert list(save.ts) == [0, 1, 2, 3]
    assert plot_save(spec, None, 10) == (None, None)


def _fake_sim(seeds=3, t=(0, 50, 100), modes=None):
    t = np.asarray(t)
    loss = np.linspace(1.0, 0.5, seeds * len(t)).reshape(seeds, len(t))
    saved = {} if modes is None else {"modes": modes}
    return types.SimpleNamespace(t=t, loss=loss, mean=loss.mean(0), std=loss.std(0), saved=saved, saved_t=t)


def test_plot_axes_labels_and_time_grid():
    """tk.plot: one loss axis for a simulation alone; a second for mode strengths when the theory has
    modes or the simulation recorded them. The theory is drawn on 300 steps from 0 to the later of
    max(times) and the simulation's last step; the simulation's label counts its seeds; the title
    is the figure's suptitle; mode lines of a pathway with at most 3 modes are labelled per mode."""
    import theorykit as tk
    from theorykit import Derivation
    from theorykit.spec.files import load_spec

    fig = tk.plot(sim=_fake_sim())
    assert len(fig.axes) == 1 and fig._suptitle is None
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert labels == ["simulation (mean ± std, 3 seeds)"]
    der = Derivation(load_spec(_examples() / "xor_linear.toml"), values={"Delta": 0.5})
    for times, sim, tmax in (([0, 0.5], None, 0.5), ([0, 400], None, 400.0), ([0, 40], _fake_sim(), 100.0), ([0, 400], _fake_sim(), 400.0)):
        fig = tk.plot(der=der, values={"Delta": 0.5}, times=np.asarray(times), sim=sim, title="T")
        assert len(fig.axes) == 2 and fig._suptitle.get_text() == "T"
        x = fig.axes[0].lines[-1].get_xdata()
        np.testing.assert_array_equal(x, np.linspace(0.0, tmax, 300))
        assert fig.axes[0].lines[-1].get_label() == "theory (closed-form)"
    # times not given: the simulation's steps alone set the grid (a run of 0 steps: every point at 0)
    fig = tk.plot(der=der, values={"Delta": 0.5}, sim=_fake_sim(t=(0,)))
    np.testing.assert_array_equal(fig.axes[0].lines[-1].get_xdata(), np.zeros(300))
    fig = tk.plot(der=der, values={"Delta": 0.5}, times=np.asarray([0, 400]))
    names = fig.axes[1].get_legend_handles_labels()[1]
    assert names == ["positive α=1 theory", "negative α=1 theory"]
    # recorded modes (seeds × saves × rank), no theory: mean over the seeds, labelled once per pathway
    S = np.arange(3 * 3 * 2, dtype=float).reshape(3, 3, 2)
    fig = tk.plot(sim=_fake_sim(modes={"p": S}))
    assert len(fig.axes) == 2
    lines = fig.axes[1].lines
    assert [ln.get_label() for ln in lines][0] == "p simulation" and len(lines) == 2
    np.testing.assert_allclose(lines[1].get_ydata(), S.mean(0)[:, 1])
    # the band of mode 1 spans mean ± std over the seeds: S[:, :, 0] = 2k + 6·seed, std √(2/3)·6
    band = fig.axes[1].collections[0].get_paths()[0].vertices[:, 1]
    mu, sd = S[:, :, 0].mean(0), S[:, :, 0].std(0)
    assert band.min() == pytest.approx((mu - sd).min()) and band.max() == pytest.approx((mu + sd).max())
    # a pathway with more than 3 modes: its theory lines labelled once, "<name> theory"
    fake = types.SimpleNamespace(method="race", predict_modes=lambda g, v: {"q": np.zeros((len(g), 4))},
                                 predict_loss=lambda g, v: np.zeros(len(g)))
    fig = tk.plot(der=fake, times=np.asarray([0, 10]))
    assert fig.axes[1].get_legend_handles_labels()[1] == ["q theory"] and len(fig.axes[1].lines) == 4
    # Δ without a value: no theory curve, said on the loss axis; no modes either, so one axis
    fig = tk.plot(der=Derivation(load_spec(_examples() / "xor_linear.toml")), times=np.asarray([0, 10]))
    assert len(fig.axes) == 1 and fig.axes[0].texts[0].get_text().startswith("no theory curve: ")
    # nothing to draw, or a theory without the steps to draw it at: SpecErrors naming der and times
    with pytest.raises(SpecError) as err:
        tk.plot()
    assert err.value.field == "der" and "nothing to draw" in str(err.value)
    with pytest.raises(SpecError) as err:
        tk.plot(der=der)
    assert err.value.field == "times"


def test_derivation_estimate_of_symbols_with_radicals_grows_as_the_cube_of_their_entries():
    """A pathway with m ≥ 2 whose data hold symbols and radicals: SYMBOLIC_RADICAL_SECONDS × (number of
    irrational or symbolic entries)³ where that is more than RADICAL_SECONDS per radicand (limits' comment:
    "measured as (number of …)^3"). Here 2 × 2 inputs sqrt(2), a, a, sqrt(2): 4 entries, one radicand,
    index 2 (no excess): 0.028·4³ = 1.792 s > 0.7 s; all of it is the radicals' share."""
    s = spec_from_dict({"symbols": {"a": {"positive": True}},
                        "data": {"inputs": [["sqrt(2)", "a"], ["a", "sqrt(2)"]], "targets": [[1, 0], [0, 1]]},
                        "pathways": [{"name": "p", "active": "all"}]})
    e = L.derivation_estimate(s)
    assert e.radicals[2] == pytest.approx(L.SYMBOLIC_RADICAL_SECONDS * 4 ** 3, rel=1e-12)
    assert e.radicals[1] == "data.inputs[0][0]" and e.radicals[2] > L.RADICAL_SECONDS
    assert e.parts[0][1] == pytest.approx(L.EXACT_OVERHEAD + 20 * L.EXACT_SECONDS * 16 ** 0.6 + e.radicals[2], rel=1e-12)


# ------------------------------------------------------------------------------------------------
# fused: what the kernel takes, its layout, the ReLU derivative at 0
# ------------------------------------------------------------------------------------------------
def _net(nodes, edges, node_gates=None, edge_gates=None, relu=False, d=2, p=1):
    from theorykit.net.layout import Net

    def rows(r):
        return None if r is None else np.asarray(r)

    return Net(d, p, tuple(nodes), tuple((k, s, t, rows(i), rows(o)) for k, s, t, i, o in edges),
               node_gates or {}, edge_gates or {}, relu)


IA, AO = ("ia", "input", "a", [0, 1], None), ("ao", "a", "output", None, [0])


@pytest.mark.parametrize("nodes, edges, kw, reason", [
    ((), [("io", "input", "output", [0, 1], [0])], {}, "it has no hidden node"),
    ((("a", 2),), [IA, AO, ("io", "input", "output", [0, 1], [0])], {}, "edge io runs from input to output directly"),
    ((("a", 2),), [IA, ("ib", "input", "a", [1], None), AO], {}, "hidden node a has two edges in"),
    ((("a", 2),), [IA, AO, ("ao2", "a", "output", None, [0])], {}, "hidden node a has two edges out"),
    ((("a", 2),), [IA, AO], {"node_gates": {"a": np.array([1.0, 0.0])}, "relu": True},
     "it is a ReLU network with fixed gates"),
    ((("a", 2),), [IA, AO], {"edge_gates": {"ia": np.array([1.0, 0.0])}, "relu": True},
     "it is a ReLU network with fixed gates"),
    ((("a", 2), ("b", 1)), [IA, AO, ("ib", "input", "b", [0], None)], {}, "hidden node b is not between input and output"),
    ((("a", 2), ("b", 1)), [IA, AO, ("bo", "b", "output", None, [0])], {}, "hidden node b is not between input and output"),
])
def test_layout_names_what_the_fused_kernel_does_not_take(nodes, edges, kw, reason):
    """fused.layout's reasons (its docstring: a sentence naming what is outside the kernel's scope)."""
    from theorykit.sim.fused import supports

    assert supports(_net(nodes, edges, **kw)) == reason


def test_layout_stacks_units_masks_and_multiplies_gates():
    """Two nodes: a (2 units, reads both inputs, node gate 1 0 1), b (1 unit, reads input 1 only, in-edge
    gate 1 1 0, out-edge gate 0 1 1). Units stacked a then b; M1 marks the weights (b's row: input 1 only);
    every output row is written by both, so M2 is None; G: a's rows its node gate, b's row the product of
    its edge gates (0 1 0). One step size for every member is taken; a per-unit 2-D gate is used as given."""
    from theorykit.sim.fused import layout, supports

    edges = [IA, AO, ("ib", "input", "b", [1], None), ("bo", "b", "output", None, [0])]
    net = _net((("a", 2), ("b", 1)), edges, {"a": np.array([1.0, 0.0, 1.0])},
               {"ib": np.array([1.0, 1.0, 0.0]), "bo": np.array([0.0, 1.0, 1.0])})
    lay = layout(net, lr=[0.1, 0.1])
    assert lay.units == 3 and lay.slices == {"a": slice(0, 2), "b": slice(2, 3)}
    np.testing.assert_array_equal(lay.M1, [[1, 1], [1, 1], [0, 1]])
    assert lay.M2 is None
    np.testing.assert_array_equal(lay.G, [[1, 0, 1], [1, 0, 1], [0, 1, 0]])
    g2 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    lay2 = layout(_net((("a", 2),), [IA, AO], {"a": g2}, {"ao": np.array([1.0, 1.0, 0.0])}))
    np.testing.assert_array_equal(lay2.G, [[1, 0, 0], [0, 1, 0]])
    assert lay2.M1 is None and lay2.M2 is None
    assert supports(_net((("a", 2),), [IA, AO], relu=True), lr=np.array([0.1, 0.1])) is None
    two_out = _net((("a", 1), ("b", 1)), [("ia", "input", "a", [0, 1], None), ("ao", "a", "output", None, [0]),
                                          ("ib", "input", "b", [0, 1], None), ("bo", "b", "output", None, [1])], p=2)
    np.testing.assert_array_equal(layout(two_out).M2, [[1, 0], [0, 1]])       # a writes row 0, b row 1


def test_fused_relu_derivative_is_zero_at_zero():
    """The plain engine's ReLU derivative is 0 at 0 (the module docstring): one unit with W1 = (1, −1)
    on x = (1, 1) has h = 0, so a = 0, the residual is y = 1, ∂L/∂W2 = −r a = 0 and ∂L/∂W1 = −(W2 r)·[h > 0]·x
    = 0: a step changes nothing, the summed loss stays ½·1² = ½."""
    import jax.numpy as jnp

    from theorykit.net.layout import Net
    from theorykit.sim.engine import train_net

    net = Net.chain(2, [1], 1)
    p0 = {"input->h1": jnp.asarray([[[1.0, -1.0]]]), "h1->output": jnp.asarray([[[1.0]]])}
    data = (jnp.asarray([[1.0], [1.0]]), jnp.asarray([[1.0]]))
    r = train_net(net, p0, data, loss="sum", lr=0.1, steps=2, fused=True)
    np.testing.assert_array_equal(np.asarray(r.params["input->h1"]), [[[1.0, -1.0]]])
    np.testing.assert_array_equal(np.asarray(r.params["h1->output"]), [[[1.0]]])
    np.testing.assert_array_equal(r.loss, [[0.5, 0.5, 0.5]])


def test_fused_gated_mean_loss_step_by_hand():
    """A gated depth-2 GDLN (not ReLU), mean loss over P = 2: one unit, gate (1, 0), W1 = (1, 0), W2 = 2,
    X = I, Y = (1, 1). Pattern 1: h = 1, a = 1, ŷ = 2, r = −1; pattern 2: gated off, a = 0, ŷ = 0, r = 1.
    Loss ½·(1 + 1)/2 = ½. Gradients scaled by 1/P: −∂L/∂W2 = (r·a)/2 = −1/2; −∂L/∂W1 = (W2 r g)·xᵀ/2 =
    (2·(−1), 0)/2 = (−1, 0). With lr 0.1: W2 = 1.95, W1 = (0.9, 0)."""
    import jax.numpy as jnp

    from theorykit.sim.engine import train_net

    net = _net((("a", 1),), [IA, AO], {"a": np.array([1.0, 0.0])})
    p0 = {"ia": jnp.asarray([[[1.0, 0.0]]]), "ao": jnp.asarray([[[2.0]]])}
    data = (jnp.eye(2), jnp.asarray([[1.0, 1.0]]))
    r = train_net(net, p0, data, loss="mean", lr=0.1, steps=1, fused=True)
    np.testing.assert_allclose(np.asarray(r.params["ia"]), [[[0.9, 0.0]]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(np.asarray(r.params["ao"]), [[[1.95]]], rtol=0, atol=1e-15)
    assert r.loss[0, 0] == pytest.approx(0.5, abs=1e-15)


# ------------------------------------------------------------------------------------------------
# compare: agreement, the summary document, the page, the figures, the refusals
# ------------------------------------------------------------------------------------------------
def _comparison(race=True):
    from theorykit.analysis.compare import Comparison
    from theorykit.spec.files import load_spec

    spec = load_spec(_examples() / "xor_linear.toml")      # pathways positive (1100), negative (0011), 64 units
    steps = np.array([10, 20, 30])
    return Comparison(steps, steps - 10, np.array([2.0, 1.0, 0.5]), np.array([2.0, 1.2, 0.4]),
                      np.array([2.0, 0.7, 0.5]) if race else None, spec, 1e-3, 0.5, "mean")


def test_agreement_is_the_largest_gap_over_the_runs_initial_loss():
    """Module docstring: max_t |L_a(t) − L_b(t)| / L_run(0). run (2, 1, 0.5), GDLN (2, 1.2, 0.4), race
    (2, 0.7, 0.5): GDLN vs run 0.2/2 = 0.1; race vs run 0.3/2 = 0.15; race vs GDLN 0.5/2 = 0.25.
    Without a race curve only the GDLN's gap."""
    c = _comparison()
    assert c.L0 == 2.0
    ag = c.agreement()
    assert set(ag) == {"gdln_vs_run", "race_vs_run", "race_vs_gdln"}
    assert ag["gdln_vs_run"] == pytest.approx(0.1, rel=1e-12)
    assert ag["race_vs_run"] == pytest.approx(0.15, rel=1e-12)
    assert ag["race_vs_gdln"] == pytest.approx(0.25, rel=1e-12)
    assert set(_comparison(race=False).agreement()) == {"gdln_vs_run"}
    s = c.summary()
    assert s["spec"] == "xor-linear" and s["lr"] == 0.5 and s["loss_kind"] == "mean" and s["a0"] == 1e-3
    assert s["pathways"] == [{"name": "positive", "hidden": 64, "active": "1100"},
                             {"name": "negative", "hidden": 64, "active": "0011"}]
    assert s["L0"] == 2.0 and s["agreement"] == ag and s["race_loss"] is c.race_loss


def test_comparison_figures_title_and_gates():
    """figure: the title gives the pathways and both gaps to 3 decimals (no race: the GDLN's only), the
    run as dots, the GDLN as a line, the race dashed; gates_figure: the pathways' 0/1 gates as an image,
    one labelled row per pathway, (0.9 + 0.35·K) inches tall but at least 2."""
    c = _comparison()
    fig = c.figure()
    assert fig._suptitle.get_text() == "xor-linear: 2 pathways; max gap / L(0): GDLN 0.100, race 0.150"
    styles = [(ln.get_marker(), ln.get_linestyle()) for ln in fig.axes[0].lines]
    assert styles == [("o", "None"), ("None", "-"), ("None", "--")]
    assert [ax.get_yscale() for ax in fig.axes] == ["linear", "log"]
    for ax in fig.axes:                       # every curve over the checkpoint steps, on both panels
        for ln, y in zip(ax.lines, (c.run_loss, c.gdln_loss, c.race_loss)):
            np.testing.assert_array_equal(ln.get_xdata(), [10, 20, 30])
            np.testing.assert_array_equal(ln.get_ydata(), y)
    assert fig.axes[1].get_position().x0 > fig.axes[0].get_position().x1     # side by side
    assert fig.axes[0].get_legend() is not None and fig.axes[1].get_legend() is None
    nf = _comparison(race=False).figure()
    assert nf._suptitle.get_text() == "xor-linear: 2 pathways; max gap / L(0): GDLN 0.100"
    assert len(nf.axes[0].lines) == 2
    g = c.gates_figure()
    np.testing.assert_array_equal(g.axes[0].images[0].get_array(), [[1, 1, 0, 0], [0, 0, 1, 1]])
    assert [t.get_text() for t in g.axes[0].get_yticklabels()] == ["positive (64 units)", "negative (64 units)"]
    assert g.get_size_inches()[1] == pytest.approx(2.0)          # 0.9 + 0.35·2 = 1.6 < 2
    assert g.axes[0].images[0].get_clim() == (0, 1)              # 0 white, 1 black, whatever the gates
    from theorykit.spec.files import load_spec

    four = load_spec(_examples() / "xor_reln.toml")               # four point pathways
    c4 = type(c)(c.steps, c.t, c.run_loss, c.gdln_loss, None, four, 1e-3, 0.5, "mean")
    assert c4.gates_figure().get_size_inches()[1] == pytest.approx(0.9 + 0.35 * 4)


def test_comparison_page_and_files(tmp_path):
    """write_comparison: loss.png, gates.png, compare.json, compare.html; the page's tables: L(0) to 6
    digits, each gap to 4 decimals, a pathway's hidden units and "k of P datapoints", one row per
    checkpoint ("–" in the race column without a race), the line under the heading."""
    import json

    from theorykit.analysis.compare import render_html, write_comparison

    c = _comparison()
    paths = write_comparison(c, tmp_path)
    assert sorted(p.name for p in paths) == ["compare.html", "compare.json", "gates.png", "loss.png"]
    doc = json.loads((tmp_path / "compare.json").read_text())
    assert doc["run_loss"] == [2.0, 1.0, 0.5] and doc["steps"] == [10, 20, 30]
    page = (tmp_path / "compare.html").read_text()
    assert "<tr><td>run's initial loss L(0)</td><td>2</td></tr>" in page
    assert "race reduction vs found GDLN: max |ΔL| / L(0)</td><td>0.2500</td>" in page
    assert "<tr><td>positive</td><td>64</td><td>2 of 4 datapoints</td></tr>" in page
    assert "<tr><td>20</td><td>1</td><td>1.2</td><td>0.7</td></tr>" in page
    assert "2 pathways; 3 checkpoints, steps 10…30; lr 0.5, loss mean; a0 = 0.001" in page
    assert page.count('src="data:image/png;base64,') == 2
    bare = render_html(_comparison(race=False), {})
    assert "<tr><td>30</td><td>0.5</td><td>0.4</td><td>–</td></tr>" in bare and "race reduction vs" not in bare


def test_compare_refuses_a_graph_spec_and_other_data():
    """compare_run: a graph spec is refused on "spec"; data of another shape or value on "run" (the
    command line: on --data), naming both sizes."""
    from theorykit.analysis.compare import compare_run
    from theorykit.spec.files import load_spec

    with pytest.raises(SpecError) as err:
        compare_run(load_spec(_examples() / "section6_paper.toml"), None)
    assert err.value.field == "spec"
    spec = spec_from_dict({"data": {"inputs": [[1, 0, 1], [0, 1, 1]], "targets": [[1, 0, 0]]},
                           "pathways": [{"name": "a", "active": "all"}]})
    X, Y = np.array([[1.0, 0, 1], [0, 1, 1]]), np.array([[1.0, 0, 0]])
    # the message gives both sizes of both matrices; with equal sizes it says the values differ (it
    # gave the inputs' sizes alone: a run whose targets differed read "(2 × 3 inputs) is not the run's (2 × 3)")
    ns = types.SimpleNamespace
    for run, theirs in ((ns(X=X[:1], Y=Y), "1 × 3 inputs, 1 × 3 targets)"), (ns(X=X, Y=Y[:, :2]), "2 × 3 inputs, 1 × 2 targets)"),
                        (ns(X=X, Y=-Y), "2 × 3 inputs, 1 × 3 targets): the same sizes, other values"),
                        (ns(X=X + 1e-3, Y=Y), "2 × 3 inputs, 1 × 3 targets): the same sizes, other values")):
        with pytest.raises(SpecError) as err:
            compare_run(spec, run)
        assert err.value.field == "run"
        assert f"the spec's data (2 × 3 inputs, 1 × 3 targets) is not the run's ({theirs}" in str(err.value)


def test_compare_refuses_a_run_with_no_initial_loss():
    """The gaps are shares of the run's L(0): a run whose first checkpoint has loss 0 (nothing to learn,
    or already trained) or NaN is refused on "run" (the command line: on --checkpoints), naming the step
    (it gave inf or NaN gaps)."""
    from theorykit.analysis.compare import compare_run

    spec = spec_from_dict({"data": {"inputs": [[1, 0, 1], [0, 1, 1]], "targets": [[0, 0, 0]]},
                           "pathways": [{"name": "a", "active": "all"}]})
    X, Y = np.array([[1.0, 0, 1], [0, 1, 1]]), np.zeros((1, 3))
    for L0, shown in ((0.0, "is 0,"), (float("nan"), "is nan,")):
        run = types.SimpleNamespace(X=X, Y=Y, steps=np.array([5, 10]), loss=lambda kind, L0=L0: np.array([L0, 0.0]))
        with pytest.raises(SpecError) as err:
            compare_run(spec, run)
        assert err.value.field == "run"
        assert f"first checkpoint (step 5) {shown}" in str(err.value)


def test_derive_text_with_free_symbols_shows_the_exact_modes(monkeypatch, capsys):
    """Without a value for Δ, derive's summary says so and shows s = Δ/2, d = Δ²/2 exactly (docs/theory.md#xor),
    numbered from 1, and no t½ or loss numbers."""
    from theorykit.analysis import summary as S
    from theorykit.cli import main

    monkeypatch.setattr(S, "stdout_is_terminal", lambda: True)
    assert main(["derive", str(_examples() / "xor_linear.toml"), "--times", "0,10"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("  symbols Delta have no value: exact s and d below")
    assert [ln.strip() for ln in out if "mode" in ln and ":" in ln] == ["mode 1: s = Delta/2, d = Delta**2/2"] * 2
    assert not any("t½" in ln or ln.strip().startswith("t =") for ln in out)


def test_fused_check_reports_a_divergence_by_name():
    """check= (as the plain engine): a run whose loss grows tenfold is a DivergenceError naming it and the
    step size; without check the curve is returned. One linear unit, W1 = W2 = 1, x = 1, y = 0, lr 3, by
    hand: r = −w1 w2, w1 ← w1 + 3 r w2, w2 ← w2 + 3 r w1: from (1, 1): r = −1 → (−2, −2); r = −4 → (22, 22),
    r = −484; the loss ½ r² goes 0.5, 8, ½·484² = 117128."""
    import jax.numpy as jnp

    from theorykit.errors import DivergenceError
    from theorykit.sim.engine import train_net

    net = _net((("a", 1),), [("ia", "input", "a", [0], None), AO], d=1)
    p0 = {"ia": jnp.asarray([[[1.0]]]), "ao": jnp.asarray([[[1.0]]])}
    data = (jnp.asarray([[1.0]]), jnp.asarray([[0.0]]))
    r = train_net(net, p0, data, loss="sum", lr=3.0, steps=2, fused=True)
    np.testing.assert_allclose(r.loss, [[0.5, 8.0, 0.5 * 484.0 ** 2]], rtol=1e-15)
    with pytest.raises(DivergenceError, match="fused run diverged with lr=3.0"):
        train_net(net, p0, data, loss="sum", lr=3.0, steps=2, fused=True, check="fused run")


def test_simulation_estimate_of_a_graph_by_hand():
    """A graph: every edge once, W_e of (destination width) × (source width); memory per edge
    seeds·item·(6·a·b + 4·a·P), the time per edge steps·seeds·6·a·b·P/SIM_FLOPS, E = 3 weight matrices
    (the steps' part steps·(SIM_STEP_OVERHEAD·E + seeds·SIM_SEED_STEP_OVERHEAD)).
    input (2) → a (3) → b (4) → output (1), P = 2: input→a 3 × 2: 6·6 + 4·3·2 = 60; a→b 4 × 3: 72 + 32 = 104;
    b→output 1 × 4: 24 + 8 = 32; 196 per seed in all. An edge from the input or to the output is named
    by its index, one between nodes by its destination's width."""
    doc = {"data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, -1]]}, "training": {"lr": 0.05, "steps": 10},
           "nodes": [{"name": "a", "width": 3}, {"name": "b", "width": 4}],
           "edges": [{"from": "input", "to": "a"}, {"from": "a", "to": "b"}, {"from": "b", "to": "output"}]}
    e = L.simulation_estimate(spec_from_dict(doc), steps=10, seeds=2)
    assert [p[0] for p in e.parts] == ["edges[0]", "nodes[1].width", "edges[2]", "training.steps", "compile"]
    assert [p[2] for p in e.parts[:3]] == [2 * 8 * 60, 2 * 8 * 104, 2 * 8 * 32] and [p[3] for p in e.parts[:3]] == [3, 4, 1]
    assert e.bytes == 2 * 8 * 196 + 2 * 8 * 2 * 11
    for part, ab in zip(e.parts, (6, 12, 4)):
        assert part[1] == pytest.approx(10 * 2 * 6 * ab * 2 / L.SIM_FLOPS, rel=1e-12)
    assert e.parts[4][1] == pytest.approx(L.SIM_COMPILE[0] + 3 * L.SIM_COMPILE[1], rel=1e-12)
    assert e.parts[3][1] == pytest.approx(10 * (L.SIM_STEP_OVERHEAD * 3 + 2 * L.SIM_SEED_STEP_OVERHEAD), rel=1e-12)


def test_radicals_of_a_named_task_are_blamed_on_its_delta():
    """enforce's radicals field: a custom task names the deepest radical's entry; a named task with a
    Delta (xor-margin with Δ = sqrt(2)) names data.Delta."""
    s = spec_from_dict({"data": {"task": "xor-margin", "reln": "linear", "hidden": 4, "Delta": "sqrt(2)"}})
    e = L.derivation_estimate(s)
    assert e.radicals[1] == "data.Delta" and e.radicals[2] > 0


def test_fused_loss_curve_drops_residuals_below_the_floor():
    """The residual floor (RESIDUAL_FLOOR = 1e-150, as the plain engine): W2 = 0, y = 5e-151, so the
    residual is 5e-151 and is dropped: the recorded loss is exactly 0 (without the floor ½·25e-302, a
    normal float64, not flushed as a subnormal would be)."""
    import jax.numpy as jnp

    from theorykit.sim.engine import train_net

    net = _net((("a", 1),), [("ia", "input", "a", [0], None), AO], d=1)
    p0 = {"ia": jnp.asarray([[[1.0]]]), "ao": jnp.asarray([[[0.0]]])}
    r = train_net(net, p0, (jnp.asarray([[1.0]]), jnp.asarray([[5e-151]])), loss="sum", lr=0.1, steps=0, fused=True)
    assert r.loss.tolist() == [[0.0]]
    r = train_net(net, p0, (jnp.asarray([[1.0]]), jnp.asarray([[1e-100]])), loss="sum", lr=0.1, steps=0, fused=True)
    assert r.loss[0, 0] == pytest.approx(0.5e-200, rel=1e-12)          # above the floor: ½ r²


def test_names_with_dollar_signs_are_drawn_as_written():
    """Two '$' in a name made matplotlib read the text between them as mathtext: "a$\\x$" stopped
    `simulate --plot` with a parse error. Names are drawn letter for letter ('$' escaped), in the
    summary figure's legend and title and in compare's figures."""
    from theorykit.analysis.summary import plot
    from theorykit.io import png_bytes
    from theorykit.theory.derivation import Derivation

    spec = spec_from_dict({"name": "cost $x$", "data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, 0]]},
                           "pathways": [{"name": "a$\\x$", "active": [1, 0]}, {"name": "b$^$", "active": "all"}]})
    fig = plot(der=Derivation(spec), times=[0, 10, 100], title=spec.name)
    assert png_bytes(fig)[:8] == b"\x89PNG\r\n\x1a\n"
    # by hand: each '$' becomes '\$'; one mode per pathway, so the label is "<name> α=1 theory"
    assert fig.axes[1].get_legend_handles_labels()[1] == [r"a\$\x\$ α=1 theory", r"b\$^\$ α=1 theory"]
    assert fig._suptitle.get_text() == r"cost \$x\$"
