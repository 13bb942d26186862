"""Spec parsing: expression strings are data, errors name the field, malformed specs never crash."""
import math

import pytest
import sympy as sp
from hypothesis import event, example, given
from hypothesis import strategies as st

import theorykit as tk
from theorykit.errors import DerivationError, SpecError
from theorykit.spec.expr import parse_expr
from theorykit.spec.files import load_spec, spec_from_dict, spec_to_toml

D = sp.Symbol("Delta", positive=True)


@pytest.mark.parametrize("code", [
    "__import__('os').system('echo pwned')",
    "().__class__.__bases__[0].__subclasses__()",
    "exp(1)",                      # functions other than sqrt / Rational are refused
    "Delta.subs(Delta, 2)",
    "lambda x: x",
    "[1, 2]",
    "Delta if Delta else 1",
    "open('/etc/passwd')",
    "1 @ 2",
    "Delta ** 1000",
    "Delta ** -1000",              # |exponent| is bounded both ways (keep |exponent| <= 64)
    "'text'",
    "True",
    "sqrt(2, 3)",
    "Rational(1.5, 2)",
    "1/0",
])
def test_parser_refuses_code_and_non_arithmetic(code):
    with pytest.raises(SpecError) as err:
        parse_expr(code, {"Delta": D}, field="data.inputs[0][0]")
    assert "data.inputs[0][0]" in str(err.value)


def test_parser_accepts_arithmetic_exactly():
    assert parse_expr("sqrt(2)*Delta/2 + 0.5", {"Delta": D}) == sp.sqrt(2) * D / 2 + sp.Rational(1, 2)
    assert parse_expr("0.33", {}) == sp.Rational(33, 100)   # decimals stay exact
    assert parse_expr("-Rational(2, 3)**2", {}) == -sp.Rational(4, 9)


def test_unknown_symbol_names_field_and_fix():
    with pytest.raises(SpecError) as err:
        parse_expr("Gamma + 1", {"Delta": D}, field="data.targets[0][1]")
    msg = str(err.value)
    assert "data.targets[0][1]" in msg and "Gamma" in msg and "[symbols]" in msg


def _xor_dict(**over):
    d = {
        "name": "t",
        "symbols": {"Delta": {"positive": True}},
        "data": {"inputs": [[1, -1, 1, -1], [1, -1, -1, 1], ["Delta", "Delta", "-Delta", "-Delta"]],
                 "targets": [[1, 1, -1, -1]]},
        "pathways": [{"name": "pos", "active": [1, 1, 0, 0]}, {"name": "neg", "active": [0, 0, 1, 1]}],
        "training": {"lr": 0.01},
    }
    d.update(over)
    return d


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["data"]["targets"][0].append(1), "data.targets"),
    (lambda d: d["pathways"][0].update(active=[1, 2, 0, 0]), "pathways[0].active"),
    (lambda d: d["pathways"][0].update(active=[0, 0, 0, 0]), "pathways[0].active"),
    (lambda d: d["pathways"][0].update(active=[1, 0]), "pathways[0].active"),
    (lambda d: d["pathways"][0].update(inputs=[0, 7]), "pathways[0].inputs"),
    (lambda d: d["pathways"][0].update(hidden=0), "pathways[0].hidden"),
    (lambda d: d["pathways"][0].pop("name"), "pathways[0].name"),
    # names that cannot name a hidden node of the pathway's graph (simulate builds one per pathway)
    (lambda d: d["pathways"][0].update(name="input->pos"), "pathways[0].name"),
    (lambda d: d["pathways"][1].update(name="input"), "pathways[1].name"),
    (lambda d: d["pathways"][0].update(depth=3) or d["pathways"][1].update(name="pos_2"), "pathways[1].name"),
    (lambda d: d["training"].update(lr=-1), "training.lr"),
    (lambda d: d["training"].update(loss="median"), "training.loss"),
    (lambda d: d["symbols"].update(Delta={"blue": True}), "symbols.Delta.blue"),
    (lambda d: d["data"]["inputs"][2].__setitem__(0, "Gamma"), "data.inputs[2][0]"),
    (lambda d: d.update(extra=1), "extra"),            # an unknown key: named itself
    (lambda d: d["data"].update(task="moons"), "data"),
])
def test_bad_specs_name_the_field(mutate, field):
    d = _xor_dict()
    mutate(d)
    with pytest.raises(SpecError) as err:
        spec_from_dict(d)
    assert err.value.field.startswith(field.split("[")[0]) and field.split(".")[0] in str(err.value)
    assert err.value.fix, "every error says how to fix it"


def test_every_accepted_pathway_spec_has_a_graph():
    """What check and derive accept, simulate's graph accepts too: pathway and inner-node names stay apart."""
    from theorykit.spec.graph import graph_from_pathways

    d = _xor_dict()
    d["pathways"][0].update(name="pos_3", depth=3)     # inner node pos_3_2: no clash with "pos_2" below
    d["pathways"][1].update(name="pos_2")
    g = graph_from_pathways(spec_from_dict(d))
    assert [n.name for n in g.nodes] == ["pos_3", "pos_3_2", "pos_2"]


def test_spec_roundtrip_through_toml(tmp_path):
    spec = spec_from_dict(_xor_dict())
    path = tmp_path / "s.toml"
    path.write_text(spec_to_toml(spec))
    again = load_spec(path)
    assert again.task.X == spec.task.X and again.task.Y == spec.task.Y
    assert [p.active for p in again.pathways] == [p.active for p in spec.pathways]
    assert str(tk.Derivation(again).modes["pos"].singular_values[0]) == "Delta/2"


def test_builtin_tasks_in_spec():
    spec = spec_from_dict({"data": {"task": "xor-margin", "reln": "xor"}, "symbols": {"Delta": "nonnegative"}})
    assert len(spec.pathways) == 4
    spec = spec_from_dict({"data": {"task": "contexts", "n": 4, "k": 3, "reln": "double", "context_scale": 1.1}})
    assert [p.name for p in spec.pathways] == ["common", "ctx12", "ctx13", "ctx23"]
    assert spec.task.X[4, 0] == sp.Rational(11, 10)


# --------------------------------------------------------------------------------------------
# fuzz: random and malformed specs -> a result or a documented error, never another exception
# --------------------------------------------------------------------------------------------
_good_atoms = st.one_of(st.integers(-3, 3), st.sampled_from([0.5, -0.25, 1.5]),
                        st.sampled_from(["Delta", "-Delta", "sqrt(2)", "Delta/2", "Delta**2", "1/3", "sqrt(Delta)"]))
_bad_atoms = st.sampled_from(["bad(", "Gamma", "__import__('os')", "", "1/0", None, True, [1], "x.y", "2**99"])

_MUTATIONS = [
    lambda s, v: s["data"]["inputs"][0].__setitem__(0, v["atom"]),
    lambda s, v: s["data"]["targets"][0].append(1),
    lambda s, v: s["data"].__setitem__("inputs", []),
    lambda s, v: s["pathways"][0].__setitem__("active", v["gate"]),
    lambda s, v: s["pathways"][0].__setitem__("inputs", v["idx"]),
    lambda s, v: s["pathways"][0].__setitem__("hidden", v["hidden"]),
    lambda s, v: s["pathways"][0].pop("name"),
    lambda s, v: s["pathways"].append(dict(s["pathways"][0])),          # duplicate name
    lambda s, v: s.__setitem__("symbols", v["symbols"]),
    lambda s, v: s.__setitem__("training", v["training"]),
    lambda s, v: s.pop("data"),
    lambda s, v: s.__setitem__("pathways", []),
]


@st.composite
def specs(draw):
    """Mostly valid specs (numbers, symbolic entries, random gates), some with one corruption."""
    P = draw(st.integers(1, 4))
    d = draw(st.integers(1, 3))
    p = draw(st.integers(1, 2))
    mat = lambda r, c: draw(st.lists(st.lists(_good_atoms, min_size=c, max_size=c), min_size=r, max_size=r))
    spec = {"symbols": {"Delta": {"positive": True}},
            "data": {"inputs": mat(d, P), "targets": mat(p, P)},
            "pathways": []}
    for i in range(draw(st.integers(1, 3))):
        gates = draw(st.lists(st.integers(0, 1), min_size=P, max_size=P).filter(any))
        path = {"name": f"p{i}", "active": gates}
        if draw(st.booleans()):
            path["inputs"] = sorted(draw(st.sets(st.integers(0, d - 1), min_size=1)))
        if draw(st.booleans()):
            path["outputs"] = sorted(draw(st.sets(st.integers(0, p - 1), min_size=1)))
        spec["pathways"].append(path)
    if draw(st.booleans()):
        spec["training"] = {"lr": draw(st.sampled_from([0.01, 0.1])), "loss": draw(st.sampled_from(["mean", "sum"]))}
    if draw(st.integers(0, 2)) == 0:
        vals = {"atom": draw(_bad_atoms),
                "gate": draw(st.sampled_from([[2] * P, [0] * P, [1] * (P + 1), "none", [True] * P, [0.5] * P])),
                "idx": draw(st.sampled_from([[d], [-1], [0, 0], "some", []])),
                "hidden": draw(st.sampled_from([0, -2, "many", 2.5, True])),
                "symbols": draw(st.sampled_from([{"lambda": {}}, {"Delta": {"positive": "yes"}}, [1], {"Delta": {"x": 1}}])),
                "training": draw(st.sampled_from([{"lr": 0}, {"loss": "median"}, {"a0": float("nan")}, "fast",
                                                  {"steps": 0}, {"momentum": 0.9}]))}
        draw(st.sampled_from(_MUTATIONS))(spec, vals)
    return spec


@given(specs())
@example({"data": {"inputs": [["Delta"]], "targets": [[1]]}, "pathways": [{"name": "a", "active": [1]}],
          "symbols": {"Delta": {"positive": True}}})
@example({"data": {"inputs": [[0, 0]], "targets": [[1, 1]]}, "pathways": [{"name": "a", "active": [1, 1]}]})
def test_fuzz_specs_give_result_or_documented_error(raw):
    try:
        spec = spec_from_dict(raw)
    except SpecError as err:
        assert err.field and str(err)
        event("spec refused")
        return
    try:
        der = tk.Derivation(spec)
        der.summary()
        if not spec.task.free_symbols:
            out = der.predict_loss([0.0, 10.0])
            assert all(math.isfinite(v) for v in out)
        else:
            der.method
        event("derived")
    except (SpecError, DerivationError) as err:
        assert str(err)
        event("derivation refused")
