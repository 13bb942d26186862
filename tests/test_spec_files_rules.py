"""Rules of the spec files (theorykit/spec/files.py), the task builders (theorykit/spec/task.py) and
the gate patterns and context families (theorykit/spec/gating.py), pinned at their edges: the
inclusive ranges of docs/specs.md's field reference, the built-in tasks' matrices entry by entry,
the widths xor_relns shares out, the pathway sets of reln = "...", and the errors that name a field.

Every golden value is written here by hand (a matrix typed out from docs/theory.md#xor and
docs/theory.md#contexts or from a docstring, a count from itertools or Python integers), with the
derivation in a comment beside it; none is read back from the code under test.
"""
from __future__ import annotations

import itertools
import math
import tomllib
from pathlib import Path

import pytest
import sympy as sp

import theorykit
from theorykit.errors import SpecError
from theorykit.spec.files import (example_path, load_spec, parse_assignment, spec_from_dict, spec_to_toml)
from theorykit.spec.gating import (GDLNSpec, Pathway, Training, context_family, context_name, context_pathways,
                                   family_masks, lemma41_gatings, xor_relns)
from theorykit.spec.task import Task, contexts, cross, hierarchy, radicals_of, ring, structure, xor_margin

def _err(call, field=None) -> SpecError:
    with pytest.raises(SpecError) as e:
        call()
    if field is not None:
        assert e.value.field == field, (e.value.field, str(e.value))
    return e.value


def _xor_data(**training):
    """A 1 × 2 task with one pathway: the smallest spec that has a [training] table."""
    d = {"data": {"inputs": [[1, 2]], "targets": [[1, 0]]}, "pathways": [{"name": "p", "active": "all"}]}
    if training:
        d["training"] = training
    return d


# --- files.py: paths, --set, [training] ranges -------------------------------------------------------

def test_example_path_is_the_checkouts_examples_folder():
    # docstring: examples/<name> from the checkout, the folder beside the theorykit package
    root = Path(theorykit.__file__).resolve().parents[1]
    assert example_path("xor_linear.toml") == root / "examples" / "xor_linear.toml"
    assert example_path("predict/xor_data.toml") == root / "examples" / "predict" / "xor_data.toml"
    with pytest.raises(FileNotFoundError):
        example_path("no_such_example.toml")


def test_set_of_an_unknown_symbol_names_set_and_the_declared_ones():
    D = sp.Symbol("Delta", positive=True)
    e = _err(lambda: parse_assignment("delta=1", {"Delta": D}), "--set")
    assert "unknown symbol 'delta'" in e.problem and "['Delta']" in e.fix      # names are case-sensitive
    e = _err(lambda: parse_assignment("x=1", {}), "--set")
    assert "no symbols" in e.fix
    _err(lambda: parse_assignment("Delta 1", {"Delta": D}), "--set")            # no '='
    # the value is split at the first '=' and stripped: " Delta = 1/4 " is Delta = 1/4
    assert parse_assignment(" Delta = 1/4 ", {"Delta": D}) == (D, sp.Rational(1, 4))


@pytest.mark.parametrize("key, lo, hi", [("lr", 1e-12, 1e3), ("a0", 1e-12, 1e2), ("init_std", 1e-12, 1e2)])
def test_training_ranges_are_inclusive_at_both_ends(key, lo, hi):
    # docs/specs.md field reference: training.lr 1e-12 … 1e3, a0 and init_std 1e-12 … 1e2
    for ok in (lo, hi):
        assert getattr(spec_from_dict(_xor_data(**{key: ok})).training, key) == ok
    for bad in (lo / 2, hi * 1.5):
        e = _err(lambda: spec_from_dict(_xor_data(**{key: bad})), f"training.{key}")
        assert "out of range" in e.problem


def test_training_steps_range_and_loss():
    # docs/specs.md: training.steps 1 … 1e9
    assert spec_from_dict(_xor_data(steps=1)).training.steps == 1
    assert spec_from_dict(_xor_data(steps=10 ** 9)).training.steps == 10 ** 9
    for bad in (0, 10 ** 9 + 1):
        _err(lambda: spec_from_dict(_xor_data(steps=bad)), "training.steps")
    assert spec_from_dict(_xor_data(loss="sum")).training.loss == "sum"
    _err(lambda: spec_from_dict(_xor_data(loss="max")), "training.loss")
    _err(lambda: spec_from_dict(_xor_data(momentum=0.9)), "training.momentum")
    # defaults of the field reference: 0.05, "mean", 0.001, 0.01, 2000
    t = spec_from_dict(_xor_data()).training
    assert (t.lr, t.loss, t.a0, t.init_std, t.steps) == (0.05, "mean", 0.001, 0.01, 2000)


def test_pathway_hidden_and_depth_ranges():
    def spec(**kw):
        return spec_from_dict({"data": {"inputs": [[1, 2]], "targets": [[1, 0]]},
                               "pathways": [{"name": "p", "active": [1, 1], **kw}]})
    assert spec(hidden=1).pathways[0].hidden == 1
    assert spec(hidden=2 ** 62).pathways[0].hidden == 2 ** 62
    for bad in (0, 2 ** 62 + 1):
        _err(lambda: spec(hidden=bad), "pathways[0].hidden")
    assert spec().pathways[0].hidden == 16 and spec().pathways[0].depth == 2     # the documented defaults
    assert spec(depth=3).pathways[0].depth == 3
    for bad in (1, 4):
        _err(lambda: spec(depth=bad), "pathways[0].depth")


# --- task.py: the built-in tasks, entry by entry -----------------------------------------------------

def test_xor_margin_is_the_documented_encoding():
    # docs/theory.md#xor: columns (1, 1, Δ), (−1, −1, Δ), (1, −1, −Δ), (−1, 1, −Δ); y = x1·x2
    half = sp.Rational(1, 2)
    t = xor_margin(half)
    assert t.X == sp.Matrix([[1, -1, 1, -1], [1, -1, -1, 1], [half, half, -half, -half]])
    assert t.Y == sp.Matrix([[1, 1, -1, -1]])
    assert (t.name, t.symbols) == ("xor-margin", {})
    # delta=None: Δ is the symbol Delta, which may be 0 (Δ = 0 is the classical XoR)
    s = xor_margin()
    (D,) = s.X.free_symbols
    assert D.name == "Delta" and D.is_nonnegative and s.symbols == {"Delta": D}


def test_hierarchy_rows_are_blocks_of_n_over_h_items():
    # h = 1, 2, 4: h rows each on a block of 4/h items
    assert hierarchy(4) == sp.Matrix([[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1],
                                      [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    assert hierarchy(1) == sp.Matrix([[1]])
    e = _err(lambda: hierarchy(6), "n")
    assert "power of two" in e.problem


def test_cross_and_ring_refuse_other_sizes_naming_the_structure_field():
    for f in (cross, ring):
        _err(lambda: f(4), "n")
    e = _err(lambda: structure("ring", 4, "data.blocks[1]"), "data.blocks[1]")
    assert "n = 8" in e.problem
    _err(lambda: structure("spiral", 8, "data.common"), "data.common")
    _err(lambda: structure(None, 8, "data.common"), "data.common")
    _err(lambda: structure([[1, 0, 0]], 2, "data.common"), "data.common")      # 3 columns for n = 2
    assert structure([[1, 0], [0, 1]], 2) == sp.eye(2)


def test_contexts_task_is_item_over_scaled_context_and_context_major():
    # n = 2 items, k = 2 contexts, identity structures, γ = 3. Columns (item, context):
    # (0,0), (1,0), (0,1), (1,1). X stacks the one-hot item on γ·(one-hot context).
    t = contexts(2, 2, "identity", "identity", 3)
    assert t.X == sp.Matrix([[1, 0, 1, 0], [0, 1, 0, 1], [3, 3, 0, 0], [0, 0, 3, 3]])
    # Y: the common block I e_i in every context, then block c = I e_i in context c and 0 elsewhere
    assert t.Y == sp.Matrix([[1, 0, 1, 0], [0, 1, 0, 1],
                             [1, 0, 0, 0], [0, 1, 0, 0],
                             [0, 0, 1, 0], [0, 0, 0, 1]])
    assert t.meta == {"n": 2, "k": 2, "common": "identity", "blocks": ["identity", "identity"],
                      "context_scale": "3"}


def test_contexts_blocks_per_context_and_their_count():
    # blocks = [hierarchy, identity] for n = 2: hierarchy(2) = [[1, 1], [1, 0], [0, 1]] in context 0,
    # identity in context 1; common = identity
    t = contexts(2, 2, "identity", ["hierarchy", "identity"])
    assert t.Y == sp.Matrix([[1, 0, 1, 0], [0, 1, 0, 1],
                             [1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0],
                             [0, 0, 1, 0], [0, 0, 0, 1]])
    e = _err(lambda: contexts(2, 3, "identity", ["identity", "identity"]), "blocks")
    assert "2 structures" in e.problem and "k=3" in e.problem
    for bad in (0, -1):
        _err(lambda: contexts(2, 2, "identity", "identity", bad), "context_scale")


def test_radicals_index_lcm_degree_and_deepest_entry():
    # sqrt(2) and 2**(1/3) share the base 2: lcm(2, 3) = 6; sqrt(3) adds 2; degree 6·2 = 12.
    # The deepest root is the cube root, at data.inputs[0][1].
    X = sp.Matrix([[sp.sqrt(2), sp.cbrt(2)], [sp.sqrt(3), 1]])
    r = radicals_of({"data.inputs": X, "data.targets": sp.Matrix([[1, 0]])})
    assert dict(r.indices) == {2: 6, 3: 2}
    assert r.degree == 12 and r.deepest == ("data.inputs[0][1]", 3) and r.deepest_index == "3"
    # Task.radicals looks at both matrices: the cube root of 5 in the targets is the deepest
    t = Task(X, sp.Matrix([[sp.cbrt(5), 1]]))
    assert dict(t.radicals.indices) == {2: 6, 3: 2, 5: 3} and t.radicals.degree == 36          # 6·2·3
    assert t.radicals.deepest == ("data.inputs[0][1]", 3)          # the first root of index 3 found
    assert radicals_of({"data.targets": sp.Matrix([[sp.sqrt(2), sp.root(7, 5)]])}).deepest == ("data.targets[0][1]", 5)
    none = radicals_of({"data.inputs": sp.Matrix([[1, sp.Rational(1, 2)]])})
    assert (none.degree, none.deepest, none.deepest_index) == (1, None, "1")


@pytest.mark.parametrize("q, text", [
    (2 ** 11, "2**11"),            # a power of two above 1024 is written as a power
    (1024, "1024"),                # 1024 itself is not (the rule is D > 1024)
    (3 * 2 ** 10, "3072"),         # not a power of two
    (999_999, "999999"),           # below 10**6: the number
    (10 ** 6 + 1, "about 1.0e+06"),
])
def test_radicals_describe(q, text):
    # one radical 2**(1/q) makes the degree q
    r = radicals_of({"data.inputs": sp.Matrix([[sp.Pow(2, sp.Rational(1, q), evaluate=False)]])})
    assert r.degree == q and r.describe() == text


# --- gating.py: widths, context pathways, families ----------------------------------------------------

@pytest.mark.parametrize("hidden, lin, xor", [
    (130, [65, 65], [33, 33, 32, 32]),          # the docstring's example
    (7, [4, 3], [2, 2, 2, 1]),                  # 7 = 3 + 3 + ... : 7 // 4 = 1, remainder 3 to the first three
    (4, [2, 2], [1, 1, 1, 1]),                  # the smallest width: one unit per XoR pathway
])
def test_xor_relns_share_the_width_remainder_first(hidden, lin, xor):
    r = xor_relns(hidden)
    assert [p.hidden for p in r["linear"]] == lin and sum(lin) == hidden
    assert [p.hidden for p in r["xor"]] == xor and sum(xor) == hidden
    # docs/theory.md#xor: positive points are columns 0, 1; each XoR pathway on one point
    assert [p.active for p in r["linear"]] == [(1, 1, 0, 0), (0, 0, 1, 1)]
    assert [p.active for p in r["xor"]] == [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)]


def test_xor_relns_refuse_fewer_than_four_units():
    _err(lambda: xor_relns(3), "hidden")


def test_context_pathways_gates_rows_and_names():
    # n = 2, k = 3: datapoint μ is in context μ // 2. Subset (0, 2) is on in contexts 0 and 2:
    # μ = 0, 1, 4, 5. Names are 1-based: "ctx13".
    paths = context_pathways(2, 3, [(2, 0), (1,)], hidden=5)
    assert [p.name for p in paths] == ["common", "ctx13", "ctx2"]
    assert paths[0].active == (1,) * 6 and paths[0].inputs == "all"
    assert paths[1].active == (1, 1, 0, 0, 1, 1) and paths[1].inputs == (0, 1)    # item rows only
    assert paths[2].active == (0, 0, 1, 1, 0, 0)
    assert all(p.hidden == 5 and p.outputs == "all" for p in paths)
    assert [p.name for p in context_pathways(2, 3, [(0,)], common=False)] == ["ctx1"]
    for bad in ([()], [(3,)], [(-1,)], [(True,)], "01", [0]):
        _err(lambda: context_pathways(2, 3, bad))


def test_context_names_stay_unambiguous_and_short_from_ten_contexts_on():
    # k ≤ 9: digits, as the paper writes them (k = 9, contexts 1..8: "ctx12345678").
    assert context_name(range(8), 9) == "ctx12345678"
    # k = 12: "ctx12" would be both contexts {1, 2} and context 12, so the numbers are joined by "-".
    assert [p.name for p in context_pathways(1, 12, [(0, 1), (11,)], common=False)] == ["ctx1-2", "ctx12"]
    assert context_name(range(9), 10) == "ctx1-2-3-4-5-6-7-8-9"
    # k = 25, contexts 1..23: 3 + (9·1 + 14·2 digits) + 22 dashes = 62 characters, kept (≤ 64);
    # contexts 1..24: 3 + (9 + 30) + 23 = 65, so the name lists the one left out.
    name23 = context_name(range(23), 25)
    assert len(name23) == 62 and name23.startswith("ctx1-2-3-") and name23.endswith("-22-23")
    assert context_name(range(24), 25) == "ctx-all-but-25"
    # reln = "double" at k = 40: every (k−1)-context pathway is named by its missing context, and the
    # spec loads (before, "ctx1234…" names of 70+ characters were refused as pathways[1].name).
    spec = spec_from_dict({"data": {"task": "contexts", "n": 1, "k": 40, "reln": "double", "hidden": 4}})
    names = [p.name for p in spec.pathways]
    assert names[0] == "common" and sorted(names[1:]) == sorted(f"ctx-all-but-{c}" for c in range(1, 41))
    # A subset whose both names pass 64 characters is refused by its own field, not by a pathway name.
    evens = tuple(range(0, 60, 2))       # 30 of 60 contexts: either list is 30 numbers, > 64 characters
    _err(lambda: context_pathways(1, 60, [(0,), evens]), "subsets[1]")


def test_lemma41_gatings_are_the_subsets_by_size():
    # k = 3: sizes 1 and 2 (proper, non-empty), all of them together, and the common pathway alone
    g = lemma41_gatings(3)
    assert g == {"common+1-context": [(0,), (1,), (2,)], "common+2-context": [(0, 1), (0, 2), (1, 2)],
                 "common+all-proper": [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)], "common-only": []}
    assert context_family(4, 2) == list(itertools.combinations(range(4), 2))
    # k = 1 (k >= 1): one context has no proper non-empty subset, only the common pathway
    assert lemma41_gatings(1) == {"common+all-proper": [], "common-only": []}
    _err(lambda: lemma41_gatings(0), "k")


def test_family_masks_count_and_labels():
    # k = 3: 6 proper subsets, so 7 pathways and 2**7 − 1 = 127 non-empty families; 64 with the
    # common pathway, 63 without
    subsets, masks, labels = family_masks(3)
    assert subsets == [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]
    assert len(masks) == 127 and len(set(masks)) == 127 and (0,) * 7 not in masks
    assert len(family_masks(3, True)[1]) == 64 and all(m[0] == 1 for m in family_masks(3, True)[1])
    assert len(family_masks(3, False)[1]) == 63 and all(m[0] == 0 for m in family_masks(3, False)[1])
    lab = dict(zip(masks, labels))
    assert lab[(1, 0, 0, 0, 0, 0, 0)] == "common"
    assert lab[(1, 1, 0, 0, 0, 0, 1)] == "common+1+23"
    assert lab[(0, 0, 1, 0, 0, 1, 0)] == "2+13"        # subsets[1] = (1,), subsets[4] = (0, 2)


def test_tau_and_loss_factor():
    # docs/specs.md: mean loss τ = 1/η, sum loss τ = 1/(Pη); the loss factor is 1 or P (P = 4 here)
    t = xor_margin(1)
    paths = xor_relns(4)["linear"]
    mean = GDLNSpec(t, paths, Training(lr=0.25))
    summ = GDLNSpec(t, paths, Training(lr=0.25, loss="sum"))
    assert mean.tau == 4.0 and mean.loss_factor == 1         # 1 / 0.25
    assert summ.tau == 1.0 and summ.loss_factor == 4          # 1 / (4 · 0.25)
    assert mean.hidden_total == 4


# --- files.py: [symbols], [data] and the built-in pathway sets ---------------------------------------

def test_symbols_short_form_assumptions_and_bad_names():
    # docs/specs.md [symbols]: a table, the comma-separated short form, or {} for none
    t = spec_from_dict({"symbols": {"D": "positive, real", "x": {}, "n": {"integer": True}},
                        "data": {"inputs": [["D", "x"], ["n", 1]], "targets": [[1, 0]]},
                        "pathways": [{"name": "p", "active": "all"}]}).task
    assert t.symbols["D"].is_positive and t.symbols["x"].is_positive is None and t.symbols["n"].is_integer

    def syms(table):
        return spec_from_dict({"symbols": table, "data": {"inputs": [[1]], "targets": [[1]]},
                               "pathways": [{"name": "p", "active": "all"}]})
    _err(lambda: syms({"1x": {}}), "symbols.'1x'")            # not a letter first: the name quoted
    for reserved in ("tau", "t", "lambda", "sqrt", "Rational", "a_0"):
        e = _err(lambda: syms({reserved: {}}))
        assert e.field in (f"symbols.{reserved}", f"symbols.{reserved!r}"), e.field
    e = _err(lambda: syms({"if": {}}), "symbols.if")
    assert "keyword" in e.problem
    _err(lambda: syms({"D": {"even": True}}), "symbols.D.even")
    _err(lambda: syms({"D": {"positive": 1}}), "symbols.D.positive")         # true or false, not 1
    _err(lambda: syms({"D": 3}), "symbols.D")
    e = _err(lambda: syms({"D": {"positive": True, "nonnegative": False}}), "symbols.D")
    assert "inconsistent" in e.problem


def test_data_rows_and_the_integer_fast_path_bound():
    def data(inputs, targets=None):
        return spec_from_dict({"data": {"inputs": inputs, "targets": targets or [[1, 0]]},
                               "pathways": [{"name": "p", "active": "all"}]})
    _err(lambda: data([]), "data.inputs")
    _err(lambda: data([1, 2]), "data.inputs")                                 # rows must be lists
    _err(lambda: data([[]]), "data.inputs[0]")
    _err(lambda: data([[1, 2], [3]]), "data.inputs[1]")
    _err(lambda: data([[1, 2]], [[1, 2, 3]]), "data.targets")                 # P differs
    _err(lambda: spec_from_dict({"pathways": []}), "data")
    _err(lambda: spec_from_dict({"data": {"inputs": [[1]]}, "pathways": []}), "data.targets")
    # docs/specs.md: a number must be 0 or between 1e-6 and 1e6 in magnitude, plain integers too
    assert data([[10 ** 6, -10 ** 6]]).task.X == sp.Matrix([[10 ** 6, -10 ** 6]])
    _err(lambda: data([[1, 10 ** 6 + 1]]), "data.inputs[0][1]")
    _err(lambda: data([[-(10 ** 6) - 1, 1]]), "data.inputs[0][0]")


def test_builtin_task_keys_defaults_and_errors():
    # docs/specs.md: contexts defaults n = 8, k = 3, hierarchy everywhere, scale 1
    t = spec_from_dict({"data": {"task": "contexts", "reln": "common"}}).task
    assert (t.meta["n"], t.meta["k"], t.P, t.d) == (8, 3, 24, 11)
    assert t.p == 15 * 4          # hierarchy(8) has 1 + 2 + 4 + 8 = 15 rows; the common block and 3 blocks

    def ctx(**kw):
        return spec_from_dict({"data": {"task": "contexts", "reln": "common", **kw}})
    _err(lambda: ctx(k=1), "data.k")                            # k >= 2 in a spec
    assert ctx(n=1, k=2).task.P == 2
    _err(lambda: ctx(n=0), "data.n")
    _err(lambda: ctx(n=2, k=2, blocks=["identity"]), "data.blocks")            # 1 name for k = 2
    _err(lambda: ctx(n=2, k=2, blocks=["identity", "spiral"]), "data.blocks[1]")
    _err(lambda: ctx(n=2, k=2, blocks=[[1, 0, 0]]), "data.blocks")             # 3 columns for n = 2
    _err(lambda: ctx(n=2, k=2, common="spiral"), "data.common")
    _err(lambda: ctx(n=2, k=2, common=5), "data.common")
    _err(lambda: ctx(n=2, k=2, Delta=1), "data.Delta")                             # an xor-margin key
    _err(lambda: spec_from_dict({"data": {"task": "xor-margin", "reln": "linear", "n": 2}}), "data.n")
    e = _err(lambda: spec_from_dict({"data": {"task": "parity", "reln": "linear"}}), "data.task")
    assert "unknown task 'parity'" in e.problem
    e = _err(lambda: spec_from_dict({"data": {"task": 3, "reln": "linear"}}), "data.task")
    assert "needs a string" in e.problem
    # explicit blocks: one matrix for every context (n = 2, k = 2; the common block is identity)
    t = ctx(n=2, k=2, common="identity", blocks=[[1, 2]]).task
    assert t.Y == sp.Matrix([[1, 0, 1, 0], [0, 1, 0, 1], [1, 2, 0, 0], [0, 0, 1, 2]])
    assert ctx(n=2, k=2, context_scale="1/2").task.X[2, 0] == sp.Rational(1, 2)


def test_xor_reln_widths_from_a_spec():
    # docs/specs.md: data.hidden is the total width for xor-margin (default 128), shared by the pathways
    def xor(**kw):
        return spec_from_dict({"data": {"task": "xor-margin", "Delta": 1, **kw}})
    assert [p.hidden for p in xor(reln="linear").pathways] == [64, 64]
    assert [p.hidden for p in xor(reln="xor").pathways] == [32, 32, 32, 32]
    assert [p.hidden for p in xor(reln="xor", hidden=5).pathways] == [2, 1, 1, 1]   # 5 = 4·1 + 1
    _err(lambda: xor(reln="xor", hidden=3), "data.hidden")
    _err(lambda: xor(reln="single"), "data.reln")
    assert xor(reln="linear").task.X[2, :] == sp.Matrix([[1, 1, -1, -1]])       # Δ = 1
    # the symbol Delta by default, or the one declared under [symbols]
    D = spec_from_dict({"data": {"task": "xor-margin", "reln": "linear"}}).task.symbols["Delta"]
    assert D.is_nonnegative
    D = spec_from_dict({"symbols": {"Delta": "positive"}, "data": {"task": "xor-margin", "reln": "linear"}})\
        .task.symbols["Delta"]
    assert D.is_positive


@pytest.mark.parametrize("reln, names", [
    ("double", ["common", "ctx12", "ctx13", "ctx23"]),      # on in k − 1 = 2 of the 3 contexts
    ("single", ["common", "ctx1", "ctx2", "ctx3"]),
    ("all", ["common", "ctx1", "ctx2", "ctx3", "ctx12", "ctx13", "ctx23"]),   # every proper subset
    ("common", ["common"]),
])
def test_context_relns_are_the_documented_sets(reln, names):
    spec = spec_from_dict({"data": {"task": "contexts", "n": 2, "k": 3, "reln": reln, "hidden": 7}})
    assert [p.name for p in spec.pathways] == names
    assert all(p.hidden == 7 for p in spec.pathways)                          # per pathway for contexts
    by = {p.name: p for p in spec.pathways}
    # n = 2: context c holds columns 2c, 2c + 1; context pathways read the item rows 0, 1 only
    assert by["common"].inputs == (0, 1, 2, 3, 4)
    if "ctx13" in by:
        assert by["ctx13"].active == (1, 1, 0, 0, 1, 1) and by["ctx13"].inputs == (0, 1)


def test_context_relns_default_width_and_errors():
    spec = spec_from_dict({"data": {"task": "contexts", "n": 2, "k": 2, "reln": "single"}})
    assert [p.hidden for p in spec.pathways] == [100, 100, 100]
    _err(lambda: spec_from_dict({"data": {"task": "contexts", "n": 2, "k": 2, "reln": "single", "hidden": 0}}),
         "data.hidden")
    _err(lambda: spec_from_dict({"data": {"task": "contexts", "n": 2, "k": 2, "reln": "linear"}}), "data.reln")
    # "all" with k = 9: 2**9 − 2 = 510 context pathways, over the 256 of docs/specs.md
    _err(lambda: spec_from_dict({"data": {"task": "contexts", "n": 1, "k": 9, "reln": "all"}}), "data.reln")
    e = _err(lambda: spec_from_dict({"data": {"inputs": [[1]], "targets": [[1]], "reln": "linear"}}), "data.reln")
    assert "reln" in e.problem                          # explicit data admits inputs and targets only


def test_pathways_missing_empty_repeated_or_beside_reln():
    data = {"inputs": [[1, 2]], "targets": [[1, 0]]}
    _err(lambda: spec_from_dict({"data": data}), "pathways")
    _err(lambda: spec_from_dict({"data": data, "pathways": []}), "pathways")
    e = _err(lambda: spec_from_dict({"data": data, "pathways": [{"name": "p", "active": "all"},
                                                                  {"name": "p", "active": [1, 0]}]}),
             "pathways[1].name")
    assert "pathways[0]" in e.problem
    _err(lambda: spec_from_dict({"data": {"task": "xor-margin", "reln": "linear"},
                                 "pathways": [{"name": "p", "active": "all"}]}), "data.reln")
    _err(lambda: spec_from_dict({"data": data, "pathways": [{"name": "p"}]}), "pathways[0].active")
    # a list of gates is read as the tuple of its gates
    assert spec_from_dict({"data": data, "pathways": [{"name": "p", "active": [0, 1]}]}).pathways[0].active == (0, 1)


def test_spec_forms_and_names():
    data = {"inputs": [[1, 2]], "targets": [[1, 0]]}
    one = [{"name": "p", "active": "all"}]
    _err(lambda: spec_from_dict([1, 2]), "spec")
    # a [[schedule]] belongs to a graph: beside [[pathways]] the two forms clash, alone the nodes are missing
    assert "either" in _err(lambda: spec_from_dict({"data": data, "pathways": one, "schedule": []}),
                            "pathways").problem
    _err(lambda: spec_from_dict({"data": data, "schedule": []}), "nodes")
    e = _err(lambda: spec_from_dict({"data": data, "pathways": one, "nodes": [{"name": "h", "width": 1}],
                                     "edges": [{"from": "input", "to": "h"}, {"from": "h", "to": "output"}]}),
             "pathways")
    assert "either" in e.problem
    # the name: given, else the file name (default_name) cut to 64 characters, else "spec"
    assert spec_from_dict({"name": "n1", "data": data, "pathways": one}, default_name="f").name == "n1"
    assert spec_from_dict({"data": data, "pathways": one}, default_name="f" * 70).name == "f" * 64
    assert spec_from_dict({"data": data, "pathways": one}, default_name="").name == "spec"
    _err(lambda: spec_from_dict({"name": "", "data": data, "pathways": one}), "name")


def test_load_spec_names_a_spec_after_its_file(tmp_path):
    f = tmp_path / "my-task.toml"
    f.write_text('[data]\ninputs = [[1, 2]]\ntargets = [[1, 0]]\n[[pathways]]\nname = "p"\nactive = "all"\n')
    assert load_spec(f).name == "my-task"
    e = _err(lambda: load_spec(tmp_path / "none.toml"), "spec")
    assert "no such file" in e.problem
    (tmp_path / "bad.toml").write_text("[data\n")
    assert "not valid TOML" in _err(lambda: load_spec(tmp_path / "bad.toml"), "spec").problem


def test_toml_floats_stay_floats_unless_a_float_would_lose_them():
    # parse_toml's docstring: 1e-400 is not 0 (a float reads it as 0) and 1e400 is not inf; they stay
    # Decimals, as written. Every other float is a float; inf written as inf is a float too.
    import decimal

    from theorykit.spec.toml_text import parse_toml
    doc = parse_toml(b"a = 0.5\nb = 0.0\nc = 1e-400\nd = 1e400\ne = inf\nf = -1_0.5e-400", "f.toml")
    assert type(doc["a"]) is float and doc["a"] == 0.5
    assert type(doc["b"]) is float and doc["b"] == 0.0
    assert doc["c"] == decimal.Decimal("1e-400") and doc["d"] == decimal.Decimal("1e400")
    assert type(doc["e"]) is float and doc["e"] == math.inf
    assert doc["f"] == decimal.Decimal("-10.5e-400")                          # the _ dropped


@pytest.mark.parametrize("text", ['a"b', "back\\slash", "tab\there", "nl\nx", "\x01\x1f\x7f", "é ✓", "\b\f\r"])
def test_toml_strings_read_back_as_written(text):
    # the independent reader is tomllib: every string _toml_str writes reads back as itself
    from theorykit.spec.files import _toml_str
    assert tomllib.loads(f"x = {_toml_str(text)}")["x"] == text



@pytest.mark.parametrize("n, k, common, blocks, rows", [
    (4, 2, "hierarchy", "hierarchy", 7 * 3),              # hierarchy(4): 1 + 2 + 4 = 7 rows, common + 2 blocks
    (4, 2, "identity", ["hierarchy", "identity"], 4 + 7 + 4),
    (8, 2, "ring", "cross", 15 * 3),                      # ring: row 0 and 14 rotations; cross: as hierarchy(8)
    (4, 3, "identity", [[1, 0, 0, 0], [0, 1, 0, 0]], 4 + 3 * 2),    # an explicit 2-row block in each context
])
def test_contexts_size_estimate_counts_the_output_rows_the_task_will_have(monkeypatch, n, k, common, blocks, rows):
    """The contexts task is sized before any matrix is built ("size first"): the estimate is given
    d = n + k inputs, the p output rows the task will have and P = n·k datapoints."""
    import theorykit.spec.files as files
    seen = []
    real = files.task_estimate
    monkeypatch.setattr(files, "task_estimate", lambda d, p, P, *a: seen.append((d, p, P)) or real(d, p, P, *a))
    spec = spec_from_dict({"data": {"task": "contexts", "n": n, "k": k, "common": common, "blocks": blocks,
                                    "reln": "common"}})
    assert seen == [(n + k, rows, n * k)]
    assert (spec.task.d, spec.task.p, spec.task.P) == (n + k, rows, n * k)

# --- task.py: the Task's own checks and its values -----------------------------------------------------

def test_task_shapes_and_symbols_are_checked():
    e = _err(lambda: Task(sp.Matrix([[1, 2]]), sp.Matrix([[1, 2, 3]])), "data.targets")
    assert "inputs have 2 datapoints" in e.problem and "targets have 3" in e.problem
    _err(lambda: Task(sp.zeros(0, 2), sp.Matrix([[1, 2]])), "data.inputs")
    _err(lambda: Task(sp.zeros(2, 0), sp.zeros(1, 0)), "data.inputs")
    _err(lambda: Task(sp.Matrix([[1, 2]]), sp.zeros(0, 2)), "data.targets")
    a, b = sp.symbols("a b")
    e = _err(lambda: Task(sp.Matrix([[b, a]]), sp.Matrix([[1, 0]])), "data")
    assert "['a', 'b']" in e.problem                                          # sorted by name
    assert Task(sp.Matrix([[a, 1]]), sp.Matrix([[1, 0]]), {"a": a}).free_symbols == {a}
    _err(lambda: Task(sp.Matrix([[1]]), sp.Matrix([[1]]), [a]), "symbols")


def test_task_from_numpy_refuses_nan_inf_and_complex():
    import numpy as np
    ok = np.array([[1.0, 2.0]])
    for bad in (np.array([[1.0, np.nan]]), np.array([[np.inf, 1.0]]), np.array([[1 + 1j, 1]])):
        _err(lambda: Task(bad, ok), "data.inputs")
        _err(lambda: Task(ok, bad), "data.targets")
    assert Task(ok, ok).X == sp.Matrix([[1, 2]])       # exact: floats are read by their repr (1.0 is 1)


def test_task_values_by_name_or_symbol():
    t = xor_margin()
    D = t.symbols["Delta"]
    assert t.keyed({"Delta": 1, "other": 2}) == {D: 1, "other": 2}
    assert t.keyed({D: 3}) == {D: 3} and t.keyed(None) == {}
    assert t.value_map({"Delta": 2}) == {D: 2}
    e = _err(lambda: t.value_map({"delta": 2}), "symbols")
    assert "['Delta']" in e.problem and "['delta']" in e.problem              # the misspelt name is named
    assert "'Delta': 0.5" in e.fix and "--set Delta=0.5" in e.fix
    e = _err(lambda: t.value_map({}), "symbols")
    assert "given a value" not in e.problem
    s = t.subs({"Delta": sp.Rational(1, 2)})
    assert s.X[2, :] == sp.Matrix([[sp.Rational(1, 2)] * 2 + [-sp.Rational(1, 2)] * 2])
    assert (s.name, s.symbols) == ("xor-margin", t.symbols)
    X, Y = t.numeric({"Delta": 0.5})
    assert X.tolist() == [[1, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]] and Y.tolist() == [[1, 1, -1, -1]]
    _err(lambda: t.numeric({}), "symbols")


def test_tasks_and_their_parts_are_immutable():
    # a Task, its Radicals, a Pathway and a Training are frozen: a spec built from them cannot change
    import dataclasses
    t = xor_margin(1)
    spec = GDLNSpec(t, xor_relns(4)["linear"])
    for obj, attr in ((t, "name"), (t.radicals, "deepest"), (Pathway("p", "all"), "hidden"), (Training(), "lr"),
                      (spec, "name")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(obj, attr, None)


def test_task_latex_is_both_matrices():
    t = xor_margin(1)
    # the same two matrices typed out from docs/theory.md#xor with Δ = 1, printed by SymPy
    X = sp.Matrix([[1, -1, 1, -1], [1, -1, -1, 1], [1, 1, -1, -1]])
    assert t.latex() == f"X = {sp.latex(X)},\\quad Y = {sp.latex(sp.Matrix([[1, 1, -1, -1]]))}"
    assert t._repr_latex_() == f"${t.latex()}$"


def test_as_task_makes_a_pair_into_a_task():
    from theorykit.spec.task import as_task
    t = as_task(([[1, 2]], [[3, 4]]))
    assert isinstance(t, Task) and t.X == sp.Matrix([[1, 2]]) and t.Y == sp.Matrix([[3, 4]])
    u = xor_margin(1)
    assert as_task(u) is u


# --- gating.py: a pathway's gates and rows, the spec's checks ----------------------------------------

def _task23():
    """d = 3 input rows, p = 2 output rows, P = 2 datapoints."""
    return Task(sp.Matrix([[1, 0], [0, 1], [1, 1]]), sp.Matrix([[1, 0], [0, 1]]))


def test_pathway_gates_are_zero_or_one_per_datapoint():
    t = _task23()

    def res(active):
        return Pathway("p", active).resolve(t, "pathways[0]")
    assert res("all").active == (1, 1) and res([0, 1]).active == (0, 1)
    for bad, at in (("some", ""), ([1], ""), ([1, 0, 1], ""), ([1, 2], "[1]"), ([True, 1], "[0]"), ([1.0, 1], "[0]"),
                    (5, "")):
        _err(lambda: res(bad), "pathways[0].active" + at)          # a bad gate: its entry
    e = _err(lambda: res([0, 0]), "pathways[0].active")
    assert "'p' is active on no datapoint" in e.problem


def test_pathway_rows_are_in_range_once_and_sorted():
    t = _task23()

    def res(**kw):
        return Pathway("p", "all", **kw).resolve(t, "pathways[0]")
    r = res()
    assert (r.inputs, r.outputs) == ((0, 1, 2), (0, 1))                       # "all": every row
    assert res(inputs=[2, 0]).inputs == (0, 2)                                # sorted
    for bad, at in (([3], "[0]"), ([-1], "[0]"), ([0, 0], ""), ([], ""), ("none", ""), ([True], "[0]"), ([0.0], "[0]")):
        _err(lambda: res(inputs=bad), "pathways[0].inputs" + at)  # a bad index: its entry
    e = _err(lambda: res(outputs=[2]), "pathways[0].outputs[0]")
    assert "0..1" in e.problem                                               # p = 2 output rows
    assert res(outputs=[1]).outputs == (1,)
    for bad in (1, 4, True):
        _err(lambda: Pathway("p", "all", depth=bad).resolve(t, "pathways[0]"), "pathways[0].depth")
    _err(lambda: Pathway("p", "all", hidden=0).resolve(t, "pathways[0]"), "pathways[0].hidden")
    _err(lambda: Pathway("input", "all").resolve(t, "pathways[0]"), "pathways[0].name")


def test_gdln_spec_checks_its_parts_and_the_depth_three_node_names():
    t = _task23()
    p, q = Pathway("p", "all"), Pathway("q", "all")
    assert GDLNSpec(t, [p, q]).pathways[0].active == (1, 1)                    # resolved
    _err(lambda: GDLNSpec(t, []), "pathways")
    _err(lambda: GDLNSpec(t, p), "pathways")
    _err(lambda: GDLNSpec(t, {"linear": [p]}), "pathways")
    _err(lambda: GDLNSpec(t, [p, "q"]), "pathways[1]")
    _err(lambda: GDLNSpec(t, [p, Pathway("p", [1, 0])]), "pathways[1].name")
    _err(lambda: GDLNSpec("task", [p]), "task")
    _err(lambda: GDLNSpec(t, [p], training={"lr": 0.1}), "training")
    # docs/specs.md: a depth-3 pathway q has hidden nodes q and q_2, so no other pathway may be q_2
    deep = Pathway("q", "all", depth=3)
    e = _err(lambda: GDLNSpec(t, [deep, Pathway("q_2", "all")]), "pathways[1].name")
    assert "hidden layer 2 of pathways[0]" in e.problem
    _err(lambda: GDLNSpec(t, [Pathway("q_2", "all"), deep]), "pathways[0].name")
    assert GDLNSpec(t, [Pathway("q", "all", depth=2), Pathway("q_2", "all")]).hidden_total == 32   # 16 + 16
    s = GDLNSpec(t, [p])
    assert s.with_pathways([q]).pathways[0].name == "q"
    assert Pathway("p", (1, 0)).gate_matrix() == sp.Matrix([[1, 0], [0, 0]])


def test_training_checks_its_own_fields():
    for kw, field in (({"lr": 0}, "training.lr"), ({"a0": -1.0}, "training.a0"), ({"init_std": math.inf},
                      "training.init_std"), ({"steps": 0}, "training.steps"), ({"loss": "max"}, "training.loss")):
        _err(lambda: Training(**kw), field)
    _err(lambda: Training(lr=1e6), "training.lr")    # the one rule of every learning rate: 1e-12 … 1e3, as spec files
    assert Training(lr=1e3).lr == 1e3 and Training(lr=1e-12).lr == 1e-12


# --- bugs found by the mutation check, each with its fix -----------------------------------------------

def test_a_delta_string_is_read_without_running_code():
    """xor_margin(str) went through sympy.sympify, which calls eval: the string below set a key in
    sys.modules and the task was built. Strings are now read as a spec file's expressions
    (parse_expr), so the call is refused, naming delta, and nothing runs."""
    import sys
    probe = "theorykit_test_probe_executed"
    sys.modules.pop(probe, None)
    e = _err(lambda: xor_margin(f"__import__('sys').modules.__setitem__('{probe}', 1) or 1"), "delta")
    assert probe not in sys.modules, "the expression was executed"
    assert "not allowed" in e.problem or "cannot parse" in e.problem


def test_a_delta_string_is_exact_and_its_names_are_symbols():
    # as in a spec file, a decimal is read from its digits: "0.1" is 1/10 (sympify made the float 0.1)
    t = xor_margin("0.1")
    assert t.X[2, :] == sp.Matrix([[sp.Rational(1, 10)] * 2 + [-sp.Rational(1, 10)] * 2])
    t = xor_margin("2*x + sqrt(2)")
    x = sp.Symbol("x")
    assert t.symbols == {"x": x} and t.X[2, 0] == 2 * x + sp.sqrt(2)
    _err(lambda: xor_margin("x y"), "delta")
    _err(lambda: xor_margin("sqrt(-1)"), "delta")


def test_a_builtin_context_reln_makes_at_most_256_pathways_with_the_common_one():
    """docs/specs.md: data.reln makes at most 256 pathways. The count left out the common pathway:
    reln = "single" with k = 256 made 1 + 256 = 257 pathways and passed, and k = 257 was said to
    make 257. Now k = 255 (256 pathways) passes, k = 256 is refused as 257 pathways, and the fix does
    not suggest "single" to a spec that already uses it."""
    ok = spec_from_dict({"data": {"task": "contexts", "n": 1, "k": 255, "reln": "single", "hidden": 1}})
    assert len(ok.pathways) == 256
    e = _err(lambda: spec_from_dict({"data": {"task": "contexts", "n": 1, "k": 256, "reln": "single",
                                              "hidden": 1}}), "data.reln")
    assert "makes 257 pathways" in e.problem and "single" not in e.fix
    # "all": 1 + (2**8 − 2) = 255 pathways for k = 8; 1 + 510 = 511 for k = 9
    assert len(spec_from_dict({"data": {"task": "contexts", "n": 1, "k": 8, "reln": "all"}}).pathways) == 255
    e = _err(lambda: spec_from_dict({"data": {"task": "contexts", "n": 1, "k": 9, "reln": "all"}}), "data.reln")
    assert "makes 511 pathways" in e.problem and "single" in e.fix


def test_spec_to_toml_writes_what_tomllib_reads_back():
    # read with tomllib (not load_spec): integers stay integers, other exact numbers are expression
    # strings, every pathway and training field is written
    D = sp.Symbol("D", positive=True)
    t = Task(sp.Matrix([[1, sp.Rational(1, 2)], [D, -3]]), sp.Matrix([[1, 0]]), {"D": D})
    spec = GDLNSpec(t, [Pathway("p", [1, 0], [1], "all", 5, 3)], Training(lr=0.25, loss="sum", steps=10), "s1")
    doc = tomllib.loads(spec_to_toml(spec))
    assert doc["name"] == "s1"
    assert doc["symbols"]["D"]["positive"] is True
    assert doc["data"] == {"inputs": [[1, "1/2"], ["D", -3]], "targets": [[1, 0]]}
    assert doc["pathways"] == [{"name": "p", "active": [1, 0], "inputs": [1], "outputs": [0], "hidden": 5,
                                "depth": 3}]
    assert doc["training"] == {"lr": 0.25, "loss": "sum", "a0": 0.001, "init_std": 0.01, "steps": 10}
    _err(lambda: spec_to_toml(t), "spec")


def test_toml_floats_with_more_digits_than_a_double_are_read_as_written(tmp_path):
    # A double keeps about 17 significant digits: 0.12345678901234567890123 read as a float and then
    # exactly from its repr would be 12345678901234568/10^17. Written digits are kept instead:
    # 12345678901234567890123/10^23, and 1_000.000_000_000_000_000_1 (15 zeros, then 1) is 1000 + 10^-16.
    # Short decimals are unchanged: 0.1 is 1/10, 2.5 is 5/2.
    f = tmp_path / "s.toml"
    f.write_text('[data]\ninputs = [[0.12345678901234567890123, 1_000.000_000_000_000_000_1], [0.1, 2.5]]\n'
                 'targets = [[1, 0]]\n[[pathways]]\nname = "p"\nactive = "all"\n')
    X = load_spec(f).task.X
    assert X[0, 0] == sp.Rational(12345678901234567890123, 10**23)
    assert X[0, 1] == 1000 + sp.Rational(1, 10**16)
    assert X[1, 0] == sp.Rational(1, 10) and X[1, 1] == sp.Rational(5, 2)
    # it stays a float that pickles (and deep-copies) with its digits
    import pickle

    from theorykit.spec.expr import WrittenFloat

    w = pickle.loads(pickle.dumps(WrittenFloat(0.1, "0.10000000000000000001")))
    assert w == 0.1 and w.text == "0.10000000000000000001"
