"""The validation suites' run sizes: --full keeps the paper's sizes, and --quick shrinks them only in
ways that keep the physics: σ√H (hence the initial strength a0 = Π σ_l √(n_l/2)) and the time in
units of τ = 1/(Pη). Every expected value is written out by hand from the paper's hyper-parameters
(docs/theory.md, "hyper-parameters"), not read from the code under test."""
import math
import re

import pytest

from theorykit.analysis.context_runs import _keep_sigma_sqrt_h
from theorykit.analysis.exhaust import default_a0
from theorykit.cli.parser import markdown
from theorykit.net.starts import a0_rule
from theorykit.suites import load_suite

ctx = load_suite("contexts")
dp = load_suite("depth")
dproto = load_suite("depth_protocols")
gates = load_suite("gates")


def test_full_modes_keep_the_paper_sizes():
    full = ctx.MODES["full"]
    assert (full["seeds"], full["relu_hidden4"], full["gdln_hidden"], full["sec5_hidden"]) == (16, 700, 100, None)
    assert full["race_dt"] == 40 and full["rfamily_k"] == (3, 4, 5, 6)
    # no σ√H rescaling in full: the paper's stds at the paper's widths, every k of SEC5
    assert not any(k.endswith("sigma_width") or k == "sec5_k" or k == "sec5_fit_grid" for k in full)
    assert _keep_sigma_sqrt_h(full, 100) == 1.0
    assert (ctx.ETA, ctx.STEPS) == (0.001, 8000) and sorted(ctx.SEC5) == [3, 4, 5, 6]
    d = dp.SETTINGS["full"]
    assert (d["hidden"], d["init_std"], d["lr"], d["steps"], d["seeds"], d["every"]) == (420, 6e-4, 1e-3, 30001, 50, 100)
    g = gates.SETTINGS["full"]
    assert (g["hidden"], g["init_std"], g["lr"], g["steps"], g["seeds"]) == (700, 0.005 / 700, 1e-3, 8001, 5)
    assert dproto.SIZES["full"]["factor"] == 1.0 and dproto.SIZES["full"]["time"] == 1


def test_contexts_quick_keeps_a0():
    """a0 = σ²H/2 (two layers of σ, √(H/2) each). Section 4 ReLU: the paper's σ = 0.005/700 at H = 700
    gives 0.005²/(2·700) = 1.7857e-8; the quick std 0.005/√(700·H) gives σ²H/2 = 0.005²/(2·700) at any H.
    GDLN context modules: σ = 20·0.0005/700 at the reference width 50: (1e-2/700)²·50/2 = 5.1020e-9 (the a0 of
    the 127-family race in the quick report); at 25 units the std is × √2, the same a0."""
    q = ctx.MODES["quick"]
    H = q["relu_hidden4"]
    assert H < 700
    assert a0_rule(0.005 / math.sqrt(700 * H), H) == pytest.approx(0.005 ** 2 / 1400, rel=1e-12)
    gh, ref = q["gdln_hidden"], q["gdln_sigma_width"]
    assert gh < ref
    sig = 20 * 0.0005 / 700 * _keep_sigma_sqrt_h(q, gh)
    assert a0_rule(sig, gh) == pytest.approx((1e-2 / 700) ** 2 * 50 / 2, rel=1e-12)
    # 5.10204e-9 to four figures is 5.102e-9 (1 in the last place is 2e-4, half of it 1e-4). This line compared
    # two literals ((1e-2 / 700)² · 50 / 2 against 5.102e-9) and could not fail; it now holds the suite's value
    assert a0_rule(sig, gh) == pytest.approx(5.102e-9, rel=1e-4)
    # the same a0 is race-exhaust's (the 127-family race of the quick report), and its --help states it rounded
    # to the figures it prints ("default: 5.1e-9")
    assert default_a0() == pytest.approx(a0_rule(sig, gh), rel=1e-12)
    stated = re.search(r"initial strength \(default: ([0-9.]+)e-9", markdown()).group(1)
    assert float(stated) == round(default_a0() * 1e9, len(stated.split(".")[1]))
    # Section 5 ReLU: σ√H of 0.005/200 at 200 units, i.e. a0 = 0.005²/(2·200) = 6.25e-8
    Hh, ref5 = q["sec5_hidden"], q["sec5_sigma_width"]
    std5 = 0.005 / math.sqrt(Hh * ref5)
    assert a0_rule(std5, Hh) == pytest.approx(6.25e-8, rel=1e-12)
    # quick runs the paper's k = 3, 4, 5 (k = 6, beyond the paper, only in full)
    assert tuple(q["sec5_k"]) == (3, 4, 5) and tuple(q["rfamily_k"]) == (3, 4, 5)


def test_depth_quick_keeps_a0_and_time_in_tau():
    """σ√H: 0.0006·√420 in full; τ = 1/(Pη), so η·steps and η·every fix the run length and the checkpoint
    spacing in units of τ: full 0.001·30000 = 30 and 0.001·100 = 0.1."""
    q, f = dp.SETTINGS["quick"], dp.SETTINGS["full"]
    assert q["init_std"] * math.sqrt(q["hidden"]) == pytest.approx(6e-4 * math.sqrt(420), rel=1e-12)
    assert q["lr"] * (q["steps"] - 1) == pytest.approx(30.0) and f["lr"] * (f["steps"] - 1) == pytest.approx(30.0)
    # checkpoint spacing η·every = 0.2 (× 1/P in units of τ): twice full's 0.1; 150 checkpoints (full: 300)
    assert q["lr"] * q["every"] == pytest.approx(0.2) and (q["steps"] - 1) // q["every"] == 150
    s = dproto.SIZES["quick"]
    assert s["relu_std"] / math.sqrt(s["factor"]) * math.sqrt(420 * s["factor"]) == pytest.approx(6e-4 * math.sqrt(420))


def test_gates_quick_keeps_time_in_tau():
    q = gates.SETTINGS["quick"]
    assert q["lr"] * (q["steps"] - 1) == pytest.approx(0.001 * 8000)
    assert q["init_std"] == pytest.approx(0.005 / q["hidden"])   # the paper's 0.005/H rule
