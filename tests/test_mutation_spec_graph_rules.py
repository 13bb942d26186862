"""Tests written by the third mutation audit: the parts the first two (tests/test_mutation_audit_rules.py,
core formulas; tests/test_mutation_verdicts_rules.py, the numbers behind verdicts) did not look at: the spec
layer's parsing and exact conversions, gate specs and graphs, the LaTeX of a derivation, predict's pattern
enumeration, symmetry grouping and width rules, and find-gates' elbow estimate and its size check.

Each test kills a small, plausible wrong change that the rest of the suite let through (the mutation is
named in the test's docstring). Golden numbers come from a hand derivation written beside them or from
numpy written in the test, never from a run of the code under test. Everything is tiny and fast."""
from __future__ import annotations

import json
import struct
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

from theorykit.analysis.checkpoints import check_elbow_size
from theorykit.analysis.findgates import elbow_estimate
from theorykit.analysis.patterns import realisable_patterns
from theorykit.analysis.predict_share import pattern_masses
from theorykit.analysis.safetensors_io import read_safetensors
from theorykit.cli import main
from theorykit.errors import SpecError
from theorykit.spec.expr import to_exact
from theorykit.spec.gating import GDLNSpec, Pathway, Training, context_name, context_pathways, lemma41_gatings
from theorykit.spec.graph import Edge, GraphSpec, Node
from theorykit.spec.limits import Limits
from theorykit.spec.task import Task
from theorykit.theory.derivation import Derivation


# ------------------------------------------------------------------------------------------------
# predict --share mass: the Gaussian mass of each gate pattern
# ------------------------------------------------------------------------------------------------
def test_pattern_masses_of_data_with_a_zero_datapoint_still_sum_to_one():
    """A unit's gate on a datapoint is ``w·x > 0`` (patterns.realisable_patterns, the ReLU's own
    relu_gates): on the zero datapoint x = 0 it is off for every w. ``(W @ X) >= 0`` in pattern_masses
    (on there for every draw) survived every test: no draw then matched a realisable pattern, every mass
    was 0, and --share mass fell back to equal shares without a word. By hand, X = (1, −1, 0) in one
    input dimension: w > 0 gives (1, 0, 0), w < 0 gives (0, 1, 0), each with probability ½ (w ~ N(0, 1)),
    and w = 0 has probability 0, so the two masses sum to exactly 1."""
    X = np.array([[1.0, -1.0, 0.0]])
    gates = np.array([[1, 0, 0], [0, 1, 0]], dtype=bool)
    n = 4000
    m = pattern_masses(X, gates, n, 3)
    assert m.sum() == 1.0
    assert m == pytest.approx([0.5, 0.5], abs=4 * 0.5 / np.sqrt(n))     # 4 binomial standard deviations


def test_pattern_masses_are_counted_on_the_draws_of_the_sampled_enumeration():
    """pattern_masses draws "with ``seed`` as the sampled enumeration draws them" (its docstring): the
    same N(0, I) weight vectors, so a pattern's mass is its count in realisable_patterns(method="sample")
    over the samples. ``default_rng(seed + 1)`` survived every test (the masses are as plausible from any
    seed). The golden: the draws written here in numpy, ``default_rng(seed).standard_normal((N, d))``, and
    the fraction of them whose gates ``W @ X > 0`` equal each pattern."""
    X = np.array([[1.0, 0.0, 1.0, -1.0], [0.0, 1.0, 1.0, 0.5]])
    N, seed = 500, 7
    W = np.random.default_rng(seed).standard_normal((N, 2))
    G = (W @ X) > 0
    pats, counts, _ = realisable_patterns(X, method="sample", samples=N, seed=seed)
    want = np.array([np.mean(np.all(G == g, axis=1)) for g in pats])
    got = pattern_masses(X, pats, N, seed)
    assert np.array_equal(got, want)
    assert np.array_equal(got, counts / N)


# ------------------------------------------------------------------------------------------------
# find-gates --checkpoints: the elbow's estimate and its size check
# ------------------------------------------------------------------------------------------------
def _task():
    """d = 2 inputs, p = 1 output, P = 3 datapoints."""
    return Task(sp.Matrix([[1, 0, 1], [0, 1, 1]]), sp.Matrix([[1, -1, 2]]), {}, "t")


@pytest.mark.parametrize("hidden, Ks, widths", [(5, [1, 2], {1: [5], 2: [3, 2]}),
                                                (4, [1, 3, 6], {1: [4], 3: [2, 1, 1], 6: [1, 1, 1, 1]})])
def test_elbow_estimate_by_hand(hidden, Ks, widths):
    """elbow_estimate: one GDLN per K of K pathways (at most ``hidden``: K = 6 over 4 units is 4 pathways
    of one unit) whose widths add up to ``hidden`` (the remainder one each to the first), trained one
    after another: the times add up, the memory is the largest one's (its docstring). ``max`` over the
    Ks' step times instead of their sum, and K not capped at the width (a width-0 pathway, refused
    with "pathways[4].hidden: 0 is out of range"), survived every test. By hand from simulate's
    estimator (theorykit/spec/limits.py: SIM_FLOPS 4e10, SIM_STEP_OVERHEAD 1e-6 per weight matrix per
    step, SIM_SEED_STEP_OVERHEAD 2.5e-6 per seed and step, SIM_COMPILE 1.5 + 0.1 per weight matrix; float64,
    one seed): a depth-2 pathway of width h has
    d h + h p parameters, (h + p) P activations and 8 (6 params + 4 acts + 2 h) bytes; T steps cost
    6 params P T / 4e10 s plus the loop's T · (1e-6 · 2 K + 2.5e-6) s, and the loss history 16 (T + 1) bytes."""
    d, p, P, T = 2, 1, 3, 1000
    secs_steps = secs_K = 0.0
    sizes = []
    for K in Ks:
        ws = widths[K]
        assert sum(ws) == hidden
        params = sum(d * h + h * p for h in ws)
        acts = sum((h + p) * P for h in ws)
        secs_steps += T * 6 * params * P / 4e10 + T * (1e-6 * 2 * len(ws) + 2.5e-6)
        secs_K += 1.5 + 0.1 * 2 * len(ws)
        sizes.append(8 * (6 * params + 4 * acts + 2 * sum(ws)))
    e = elbow_estimate(_task(), hidden=hidden, depth=2, steps=T, Ks=Ks)
    parts = {pt[0]: pt for pt in e.parts}
    assert parts["steps"][1] == pytest.approx(secs_steps, rel=1e-9)
    assert parts["Ks"][1] == pytest.approx(secs_K, rel=1e-9)
    assert parts["steps"][2] == 16 * (T + 1)
    assert parts["Ks"][2] == max(sizes)
    assert e.seconds == pytest.approx(secs_steps + secs_K, rel=1e-9)


def test_forced_elbow_over_memory_offers_the_most_steps_that_fit_in_memory():
    """check_elbow_size: ``force`` lifts the time limit only, so the most steps offered (--checkpoints)
    are those that fit in memory. Taking the time's room where force is given (and ignoring it where it is
    not) survived every test: here the time room is negative (the compilations alone, 3.6 s, are over the
    1 s limit), and the refusal named --max-K, or --K, instead of the steps that fit. By hand (the
    estimator as in test_elbow_estimate_by_hand): width 4 over K = 1, 2; K = 2's GDLN is the largest,
    two pathways of 2 units: 12 parameters, 18 activations, 8 (72 + 72 + 8) = 1216 bytes; with the loss
    history 16 (T + 1), a limit of 1216 + 16 · 1001 bytes holds T = 1000 steps, one byte less T = 999."""
    run = SimpleNamespace(widths=[4], depth=2, steps=[0, 10 ** 6])
    for max_bytes, most in ((1216 + 16 * 1001, 1000), (1216 + 16 * 1001 - 1, 999)):
        with pytest.raises(SpecError) as info:
            check_elbow_size(run, _task(), [1, 2], 10 ** 6, Limits(max_bytes=max_bytes, max_seconds=1.0, force=True))
        assert info.value.field == "--checkpoints"
        assert f"read checkpoints over at most {most} steps" in info.value.fix


# ------------------------------------------------------------------------------------------------
# the spec layer: exact conversions and gate specs
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text, dps", [("9.5154199598281193126e-93", 20), ("8.8638590110177071464e-137", 20)])
def test_to_exact_reads_a_sympy_float_by_the_decimal_it_was_written_as(text, dps):
    """to_exact reads a SymPy Float by "the shortest decimal that reads back as it at its precision"
    (float_text, whose search starts at the precision's own digits, mpmath's prec_to_dps). Starting the
    search one digit later survived every test: these two Floats of 20 digits then became 21-digit
    rationals (9.51541995982811931259e-93, 8.86385901101770714639e-137), not the numbers written.
    The golden is the decimal as written, 20 digits, which reads back as the same Float (checked here)."""
    f = sp.Float(text, dps)
    assert sp.Float(text, dps) == f and len(text.split("e")[0].replace(".", "")) == dps
    assert to_exact(f) == sp.Rational(text)


def test_context_pathways_gate_each_context_as_a_block_of_n_datapoints():
    """The k-context task orders its P = n k datapoints context by context: datapoint μ is item μ mod n
    in context μ // n (docs/theory.md#contexts; spec.task.contexts fills columns c n … (c + 1) n − 1 for
    context c). A context pathway is on in its contexts' datapoints and reads the n item rows. Gating
    by ``μ % k`` (interleaved contexts) survived every test. By hand for n = 2, k = 3: the pathway of
    context 0 is on at μ = 0, 1; that of contexts 1 and 2 at μ = 2 … 5; the common pathway everywhere."""
    paths = context_pathways(2, 3, [(0,), (1, 2)], hidden=5)
    assert [p.name for p in paths] == ["common", "ctx1", "ctx23"]
    assert paths[0].active == (1, 1, 1, 1, 1, 1)
    assert paths[1].active == (1, 1, 0, 0, 0, 0)
    assert paths[2].active == (0, 0, 1, 1, 1, 1)
    assert paths[1].inputs == (0, 1) and paths[2].inputs == (0, 1)


@pytest.mark.parametrize("contexts, k, name", [((0, 8), 9, "ctx19"), ((2,), 9, "ctx3"), ((0, 9), 10, "ctx1-10"),
                                               ((1, 2), 10, "ctx2-3")])
def test_context_names_are_digits_up_to_nine_contexts_then_joined_by_dashes(contexts, k, name):
    """context_name: "While k ≤ 9 the contexts' numbers (1-based) follow "ctx" as digits ... From k = 10
    on ... they are joined by "-"" (its docstring). ``k < 9`` survived every test: nine contexts were
    then named "ctx1-9". By hand: contexts 0 and 8 of 9 are 1 and 9 → "ctx19"; 0 and 9 of 10 → "ctx1-10"."""
    assert context_name(contexts, k) == name


def test_lemma41_gatings_use_proper_subsets_only():
    """lemma41_gatings(k): a common pathway plus families of *proper*, non-empty context subsets, grouped
    by size (its docstring; Lemma 4.1: a pathway on in every context is the common one). Sizes
    1 … k instead of 1 … k − 1 survived every test (a "common+3-context" family of the full set). By
    hand for k = 3: sizes 1 and 2, three subsets each; all proper: 2³ − 2 = 6; and common alone."""
    g = lemma41_gatings(3)
    assert set(g) == {"common+1-context", "common+2-context", "common+all-proper", "common-only"}
    assert g["common+1-context"] == [(0,), (1,), (2,)]
    assert g["common+2-context"] == [(0, 1), (0, 2), (1, 2)]
    assert len(g["common+all-proper"]) == 6 and g["common-only"] == []


# ------------------------------------------------------------------------------------------------
# graph GDLNs
# ------------------------------------------------------------------------------------------------
def test_a_cycle_is_named_by_its_own_nodes_not_those_it_feeds():
    """GraphSpec: "name only the nodes on a cycle (each reaches itself), not those a cycle feeds" (the
    comment above the error). Kahn's order leaves the cycle h → k → h and the node w it feeds; naming
    every node left (``sorted(left)``) survived every test (tests/test_graph_rules.py's cycle feeds no
    node). By hand: z is ordered (in-degree 0 once input is set aside), h and k wait on each other,
    w waits on k: left = {h, k, w}; h and k reach themselves, w reaches no node."""
    task = Task(sp.Matrix([[1, 0], [0, 1]]), sp.Matrix([[1, 1]]), {}, "t")
    nodes = tuple(Node(n, 2) for n in ("z", "h", "k", "w"))
    edges = (Edge("input", "z"), Edge("z", "h"), Edge("h", "k"), Edge("k", "h"), Edge("k", "w"), Edge("w", "output"))
    with pytest.raises(SpecError) as info:
        GraphSpec(task, nodes, edges)
    assert info.value.field == "edges"
    assert "the edges form a cycle through ['h', 'k']" in info.value.problem



# ------------------------------------------------------------------------------------------------
# the LaTeX of a derivation
# ------------------------------------------------------------------------------------------------
def test_latex_of_a_deep_pathway_states_its_mode_equation_with_exponent_2_minus_2_over_L():
    """docs/theory.md#deep-modes: alone, a balanced mode of a pathway L weight layers deep obeys
    τ ȧ = L a^{2 − 2/L}(s − d a). The LaTeX writes the exponent for each depth in the spec; 2 − 1/L
    there survived every test. By hand, L = 3: 2 − 2/3 = 4/3, so τ ȧ = 3 a^{4/3}(s − d a)."""
    task = Task(sp.Matrix([[1, 0], [0, 1]]), sp.Matrix([[1, 2]]), {}, "t")
    der = Derivation(GDLNSpec(task, [Pathway("p", (1, 1), "all", "all", 4, 3)], Training(lr=0.5)))
    assert r"$L = 3$: $\tau \dot a = 3a^{" + sp.latex(sp.Rational(4, 3)) + r"}(s - d\,a)$" in der.latex()


def test_latex_numbers_the_half_way_times_of_a_pathways_modes_from_one():
    """The LaTeX numbers the modes s_1, s_2, … (section 3) and, where a pathway has several, their
    half-way times t_{1/2}(p, 1), t_{1/2}(p, 2) to match. Numbering the half-way times from 0 survived
    every test (a mode t_{1/2}(p, 0) that section 3 does not have). By hand: X = I, Y = diag(2, 1),
    P = 2, one pathway on both datapoints: Σyx = Y Xᵀ/P = diag(1, 1/2), two modes, s = 1 and 1/2."""
    task = Task(sp.eye(2), sp.diag(2, 1), {}, "t")
    der = Derivation(GDLNSpec(task, [Pathway("p", (1, 1))], Training(lr=0.5)))
    tex = der.latex()
    assert r"s_{1} &= 1, & d_{1}" in tex and r"s_{2} &= \frac{1}{2}, & d_{2}" in tex
    assert r"\[ t_{1/2}(\mathrm{p}, 1) = " in tex and r"\[ t_{1/2}(\mathrm{p}, 2) = " in tex
    assert r"(\mathrm{p}, 0)" not in tex


# ------------------------------------------------------------------------------------------------
# checkpoints: a bfloat16 tensor
# ------------------------------------------------------------------------------------------------
def test_a_bfloat16_tensor_is_read_as_the_float32_of_its_bits(tmp_path):
    """read_safetensors widens BF16 to float32 (``_ST_DTYPES``: "BF16 is widened to float32"): a bfloat16
    is the top 16 bits of a float32, so its float32 is those bits shifted up by 16. A shift by 15 survived
    every test (no test read a BF16 value). By hand: 1.0 is 0x3F800000 in float32, bfloat16 0x3F80;
    −2.5 is 0xC0200000, bfloat16 0xC020; 0.15625 = 5/32 is 0x3E200000, bfloat16 0x3E20."""
    header = json.dumps({"W": {"dtype": "BF16", "shape": [3], "data_offsets": [0, 6]}}).encode()
    path = tmp_path / "w.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + struct.pack("<3H", 0x3F80, 0xC020, 0x3E20))
    arrays, _ = read_safetensors(path)
    assert arrays["W"].dtype == np.float32
    assert arrays["W"].tolist() == [1.0, -2.5, 0.15625]


# ------------------------------------------------------------------------------------------------
# the command line: an entry broken only by two --set values together names the entry
# ------------------------------------------------------------------------------------------------
_TWO_SYMBOLS = """name = "two-symbols"

[symbols]
a = {real = true}
b = {real = true}

[data]
inputs = [[1, "1/(a - b)", 0], [0, 1, 1]]
targets = [[1, -1, 1]]

[[pathways]]
name = "p"
active = [1, 1, 1]
"""


def test_an_entry_broken_by_two_set_values_together_is_named_row_then_column(tmp_path, capsys):
    """check_values: "when only the values together break it, [the entry is reported] as the entry's
    field", ``data.inputs[i][j]``, row i, column j (docs/specs.md: rows are the input dimensions, columns
    the datapoints). Writing the field as ``[j][i]`` survived every test (every entry tested was broken
    by one symbol alone, reported as --set NAME). By hand: 1/(a − b) is row 0, column 1; a = 1 alone or
    b = 1 alone leaves it finite (1/(1 − b), 1/(a − 1)), both together make it 1/0."""
    path = tmp_path / "two.toml"
    path.write_text(_TWO_SYMBOLS)
    assert main(["derive", str(path), "--set", "a=1", "--set", "b=1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in data.inputs[0][1]: with a = 1, b = 1: ")
