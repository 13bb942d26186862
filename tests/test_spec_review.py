"""Spec parsing and writing, fixes from a review: symbol values obey the symbols' assumptions, a bad
entry blames the right symbol, schedule lists have no repeats, spec_to_toml round-trips, and small
parser gaps (keywords as names, 1e-400, sqrt's arity). Each test fails before its fix."""
import dataclasses
import tomllib

import numpy as np
import pytest
import sympy as sp

from theorykit.cli import main
from theorykit.errors import SpecError
from theorykit.spec.expr import parse_expr
from theorykit.spec.files import check_values, load_spec, parse_assignment, spec_from_dict, spec_to_toml
from theorykit.spec.graph import graph_from_pathways


def _spec(symbols, inputs, **over):
    d = {"name": "t", "symbols": symbols, "data": {"inputs": inputs, "targets": [[1, -1]]},
         "pathways": [{"name": "a", "active": "all"}]}
    d.update(over)
    return spec_from_dict(d)


def _graph(fit=("g0",), edges=("input->k", "k->output"), name="g1"):
    return {"name": "g", "data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, -1]]},
            "nodes": [{"name": "h", "width": 4}, {"name": "k", "width": 3}],
            "edges": [{"from": "input", "to": "h"}, {"from": "h", "to": "output"},
                      {"from": "input", "to": "k"}, {"from": "k", "to": "output"}],
            "schedule": [{"name": "g0", "edges": ["input->h", "h->output"]},
                         {"name": name, "edges": list(edges), "fit": list(fit)}]}


# -- 1. --set values obey the symbols' assumptions ------------------------------------------------

def test_set_value_contradicting_an_assumption_is_refused(tmp_path, capsys):
    """With D declared positive the parser simplifies sqrt(D**2) to D, so X[0][0] is D; D = -1 would
    make that entry -1 where sqrt((-1)**2) = 1: a silently wrong task. -1 is not positive, so
    ``--set D=-1`` must be refused naming ``--set D`` and the assumption ``positive`` (exit 2).
    Likewise 0.5 is not an integer (n declared integer), and 1 is positive (D declared positive = false).
    D = 2 is positive, n = 3 an integer: both accepted, unchanged."""
    spec = tmp_path / "d.toml"
    spec.write_text('[symbols]\nD = {positive = true}\n[data]\ninputs = [["sqrt(D**2)", 1], [1, 1]]\n'
                    'targets = [[1, -1]]\n[[pathways]]\nname = "a"\nactive = "all"\n')
    assert main(["derive", str(spec), "--set", "D=-1"]) == 2
    err = capsys.readouterr().err
    assert "--set D" in err and "positive" in err and "fix" in err
    D = sp.Symbol("D", positive=True)
    n = sp.Symbol("n", integer=True)
    E = sp.Symbol("E", positive=False)
    for text, syms, word in (("D=-1", {"D": D}, "positive"), ("D=0", {"D": D}, "positive"),
                             ("n=0.5", {"n": n}, "integer"), ("E=1", {"E": E}, "positive")):
        with pytest.raises(SpecError) as e:
            parse_assignment(text, syms)
        assert e.value.field == f"--set {text[0]}" and word in str(e.value)
    assert parse_assignment("D=2", {"D": D}) == (D, 2)
    assert parse_assignment("n=3", {"n": n}) == (n, 3)
    # check_values (the values of a Python caller) applies the same check
    s = _spec({"D": {"positive": True}}, [["sqrt(D**2)", 1], [1, 1]])
    with pytest.raises(SpecError) as e:
        check_values(s, {"D": sp.Integer(-1)})
    assert e.value.field == "--set D" and "positive" in str(e.value)


# -- 2. check_values blames the symbol that breaks the entry ----------------------------------------

def test_check_values_names_the_symbol_whose_value_breaks_the_entry():
    """a/b with a = 1, b = 0: a = 1 alone leaves 1/b (finite for b != 0); b = 0 alone gives a/0,
    infinite whatever a is. So the error names ``--set b``, not ``--set a``. With D = 0.001 and
    E = 0.0001, D*E = 1e-7 < 1e-6 is too small, but neither value alone is (each leaves a symbol):
    the error names the entry, data.inputs[0][1], and quotes both values."""
    s = _spec({"a": {}, "b": {}}, [["a/b", 1], [1, 1]])
    with pytest.raises(SpecError) as e:
        check_values(s, {"a": sp.Integer(1), "b": sp.Integer(0)}, {})
    assert e.value.field == "--set b" and "infinite" in str(e.value)
    s = _spec({"D": {}, "E": {}}, [[1, "D*E"], [1, 1]])
    with pytest.raises(SpecError) as e:
        check_values(s, {"D": sp.Rational(1, 1000), "E": sp.Rational(1, 10000)})
    assert e.value.field == "data.inputs[0][1]" and "too small" in str(e.value)
    assert "D = 1/1000" in str(e.value) and "E = 1/10000" in str(e.value)


# -- 3. schedule: no repeats, names are labels -------------------------------------------------------

@pytest.mark.parametrize("kw, field", [
    ({"fit": ("g0", "g0")}, "schedule[1].fit"),                                # would fit Y - 2 * out(g0)
    ({"edges": ("input->k", "k->output", "k->output")}, "schedule[1].edges"),
    ({"name": "g\x01"}, "schedule[1].name"),                                   # a control character
    ({"name": "g\n"}, "schedule[1].name"),
])
def test_schedule_repeats_and_control_characters_are_refused(kw, field):
    """Group g1 fits the residual of g0 once: Y - out(g0). Listing g0 twice would subtract its
    output twice; listing an edge twice names it twice; a name with a control character cannot be
    printed or written back. Each is refused on the field it is in."""
    with pytest.raises(SpecError) as e:
        spec_from_dict(_graph(**kw))
    assert e.value.field == field


# -- 4. spec_to_toml round trips --------------------------------------------------------------------

def test_spec_to_toml_keeps_false_assumptions():
    """D = {positive = false} is a different symbol from D = {} (SymPy compares assumptions), so the
    file written must say positive = false and read back the same symbol and spec."""
    s = _spec({"D": {"positive": False}}, [["D", 1], [1, 1]])
    text = spec_to_toml(s)
    assert "positive = false" in text
    back = spec_from_dict(tomllib.loads(text))
    assert back.task.symbols["D"] == sp.Symbol("D", positive=False) and back.task.X == s.task.X


def test_spec_to_toml_writes_abs_as_the_parser_reads_it():
    """With D real, sqrt(D**2) = |D|, which SymPy prints Abs(D); the parser allows no Abs. Written as
    sqrt((D)**2) it parses back to sqrt(D**2) = Abs(D): the same matrix."""
    s = _spec({"D": {"real": True}}, [["sqrt(D**2)", 1], [1, "2*sqrt(D**2) + 1"]])
    D = sp.Symbol("D", real=True)
    assert s.task.X[0, 0] == sp.Abs(D)
    back = spec_from_dict(tomllib.loads(spec_to_toml(s)))
    assert back.task.X == s.task.X == sp.Matrix([[sp.Abs(D), 1], [1, 2 * sp.Abs(D) + 1]])


def test_spec_to_toml_writes_numpy_numbers_as_plain_numbers():
    """repr(np.float64(0.05)) is "np.float64(0.05)", not TOML; the value is 0.05 and steps 300 (a numpy
    integer), so the file must read back lr = 0.05, a0 = 0.002 and steps = 300."""
    s = _spec({}, [[1, 0], [0, 1]])
    s = dataclasses.replace(s, training=dataclasses.replace(s.training, lr=np.float64(0.05), a0=np.float64(0.002),
                                                            steps=np.int64(300)))
    t = spec_from_dict(tomllib.loads(spec_to_toml(s))).training
    assert t.lr == 0.05 and t.a0 == 0.002 and t.steps == 300


def test_spec_to_toml_writes_graph_specs():
    """A graph (two nodes, an edge reading input row 0, an init_scale, a two-group schedule whose
    second group starts at step 5 and fits g0's residual) is written with its [[nodes]], [[edges]] and
    [[schedule]] and reads back equal. A graph whose pathways carry names of their own (the depth-3
    chain a, a_2 made from pathway "a" is named "a", not "a/a_2") cannot be written: SpecError."""
    d = _graph()
    d["edges"][0]["rows"] = [0]
    d["edges"][2]["init_scale"] = 0.5
    d["schedule"][1]["start"] = 5
    g = spec_from_dict(d)
    assert spec_from_dict(tomllib.loads(spec_to_toml(g))) == g
    p = _spec({}, [[1, 0], [0, 1]], pathways=[{"name": "a", "active": "all", "depth": 3}])
    with pytest.raises(SpecError) as e:
        spec_to_toml(graph_from_pathways(p))
    assert e.value.field == "spec"


# -- 5. small parser gaps --------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["if", "None", "True", "class"])
def test_python_keywords_are_refused_as_symbol_names(name):
    """A keyword cannot be a name in an expression (``if`` does not parse, ``None`` is a constant), so
    the symbol could never be used: refuse it where it is declared, symbols.NAME."""
    with pytest.raises(SpecError) as e:
        spec_from_dict({"symbols": {name: {}}, "data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, -1]]},
                        "pathways": [{"name": "a", "active": "all"}]})
    assert e.value.field == f"symbols.{name}" and "keyword" in str(e.value)


def test_numbers_below_the_smallest_float_are_too_small_not_zero(tmp_path):
    """1e-400 is non-zero but below the smallest float (about 5e-324), so Python and TOML read 0.0;
    like any non-zero number below 1e-6 it must be refused as too small, as an expression string and
    as a TOML number. 0.0 and 0e5 are zero, and accepted."""
    with pytest.raises(SpecError) as e:
        _spec({}, [["1e-400", 1], [1, 1]])
    assert e.value.field == "data.inputs[0][0]" and "too small" in str(e.value)
    path = tmp_path / "u.toml"
    path.write_text('[data]\ninputs = [[1e-400, 1], [1, 1]]\ntargets = [[1, -1]]\n'
                    '[[pathways]]\nname = "a"\nactive = "all"\n')
    with pytest.raises(SpecError) as e:
        load_spec(path)
    assert e.value.field == "data.inputs[0][0]" and "too small" in str(e.value)
    path.write_text(path.read_text().replace("1e-400", "0e5"))
    assert load_spec(path).task.X[0, 0] == 0
    assert _spec({}, [["0.0", 1], [1, 1]]).task.X[0, 0] == 0


def test_sqrt_and_rational_with_the_wrong_number_of_arguments_say_so():
    """sqrt is allowed but takes one argument, Rational two: sqrt(2, 3) and Rational(1) are refused
    saying so, not that the function is not allowed."""
    with pytest.raises(SpecError) as e:
        parse_expr("sqrt(2, 3)", {}, "data.inputs[0][0]")
    assert "sqrt takes one argument" in str(e.value) and "not allowed" not in str(e.value)
    with pytest.raises(SpecError) as e:
        parse_expr("Rational(1)", {}, "data.inputs[0][0]")
    assert "Rational takes two arguments" in str(e.value)


# -- 6. defaults and ranges of docs/specs.md's field reference --------------------------------------

def test_defaults_and_ranges_are_those_of_the_field_reference():
    """Golden values from docs/specs.md's field reference: pathways[].hidden 16, depth 2, inputs and
    outputs "all"; data.k 3 (at least 2); data.hidden 100 per pathway for contexts, 128 in all for
    xor-margin (64 per pathway of "linear"); training.lr at most 1e3; data.context_scale positive,
    so 0 is refused, and the error names data.context_scale."""
    (p,) = _spec({}, [[1, 0], [0, 1]]).pathways
    assert (p.hidden, p.depth, p.inputs, p.outputs) == (16, 2, (0, 1), (0,))
    c = spec_from_dict({"data": {"task": "contexts", "n": 2, "reln": "single"}})
    assert c.task.meta["k"] == 3 and [q.hidden for q in c.pathways] == [100] * 4   # common + 3 singles
    x = spec_from_dict({"data": {"task": "xor-margin", "reln": "linear", "Delta": 1}})
    assert [q.hidden for q in x.pathways] == [64, 64]
    for reln in ("linear", "xor"):     # 4 at least for either set (one unit for each XoR pathway)
        with pytest.raises(SpecError) as e:
            spec_from_dict({"data": {"task": "xor-margin", "reln": reln, "Delta": 1, "hidden": 3}})
        assert e.value.field == "data.hidden" and ">= 4" in str(e.value)
    assert [q.hidden for q in spec_from_dict({"data": {"task": "xor-margin", "reln": "linear", "Delta": 1,
                                                       "hidden": 5}}).pathways] == [3, 2]
    with pytest.raises(SpecError) as e:
        spec_from_dict({"data": {"task": "contexts", "n": 2, "k": 1, "reln": "single"}})
    assert e.value.field == "data.k"
    assert _spec({}, [[1, 0], [0, 1]], training={"lr": 1e3}).training.lr == 1e3
    with pytest.raises(SpecError) as e:
        _spec({}, [[1, 0], [0, 1]], training={"lr": 1.5e3})
    assert e.value.field == "training.lr"
    for bad in (0, -1, "-sqrt(2)"):
        with pytest.raises(SpecError) as e:
            spec_from_dict({"data": {"task": "contexts", "n": 2, "reln": "single", "context_scale": bad}})
        assert e.value.field == "data.context_scale" and "not positive" in str(e.value), bad


def test_xor_margin_delta_may_be_an_expression_in_declared_symbols():
    """docs/specs.md: data.Delta is a 'number or expression'. With Delta = "2*x" the third input row
    is (Δ, Δ, −Δ, −Δ) with Δ = 2x (the xor_margin docstring: +Δ on the positive examples (1, 1) and
    (−1, −1), −Δ on the negative ones), and x is the task's declared symbol."""
    import sympy as sp

    from theorykit.spec.files import spec_from_dict

    spec = spec_from_dict({"symbols": {"x": {"positive": True}},
                           "data": {"task": "xor-margin", "Delta": "2*x", "reln": "linear"}})
    x = spec.task.symbols["x"]
    assert x.is_positive and set(spec.task.symbols) == {"x"}
    assert list(spec.task.X.row(2)) == [2 * x, 2 * x, -2 * x, -2 * x]
    assert list(spec.task.Y) == [1, 1, -1, -1]
    assert sp.simplify(spec.subs({"x": sp.Rational(1, 4)}).task.X[2, 0] - sp.Rational(1, 2)) == 0


def test_an_unknown_key_near_a_known_one_is_named_with_it():
    """A misspelt key ('activ', 'trainig') is refused by name with the near key suggested (difflib,
    ratio ≥ 0.75); a key near nothing ('zzz') gets the list only."""
    data = {"inputs": [[1, 0], [0, 1]], "targets": [[1, 0]]}
    # the field is the unknown key's own TOML path (its table's was named before: pathways[0], spec)
    for spec, field, hint in (({"data": data, "pathways": [{"name": "a", "activ": [1, 1]}]}, "pathways[0].activ",
                               "did you mean 'active' for 'activ'?"),
                              ({"data": data, "pathways": [{"name": "a", "active": [1, 1]}], "trainig": {}}, "trainig",
                               "did you mean 'training' for 'trainig'?")):
        with pytest.raises(SpecError) as e:
            spec_from_dict(spec)
        assert e.value.field == field and hint in str(e.value)
    with pytest.raises(SpecError) as e:
        spec_from_dict({"data": data, "pathways": [{"name": "a", "active": [1, 1], "zzz": 1}]})
    assert "did you mean" not in str(e.value) and "use only ['name', 'active'" in str(e.value)


def test_load_task_reads_a_data_only_spec_file_with_the_spec_checks(tmp_path):
    """tk.load_task: [data], [symbols] and [training] of a file without pathways (what `theorykit
    predict` reads) as (Task, Training); its fields are checked by name as load_spec checks them."""
    import theorykit as tk

    path = tmp_path / "t.toml"
    path.write_text('name = "and"\n[data]\ninputs = [[1, 1, 0, 0], [1, 0, 1, 0]]\ntargets = [[1, 0, 0, 0]]\n'
                    '[training]\nlr = 0.1\nsteps = 500\n')
    task, training = tk.load_task(path)
    assert (task.d, task.P, task.p) == (2, 4, 1) and list(task.Y) == [1, 0, 0, 0]
    assert (training.lr, training.steps, training.loss) == (0.1, 500, "mean")      # loss: the default
    for text, field in (('[data]\ninputs = [[1, 1]]\ntargets = [[1]]\n', "data.targets"),
                        ('[data]\ninputs = [[1]]\ntargets = [[1]]\n[trainig]\nlr = 1\n', "trainig"),   # the unknown table
                        ('[data]\ninputs = [[1]]\ntargets = [[1]]\n[training]\nlr = -1\n', "training.lr")):
        path.write_text(text)
        with pytest.raises(SpecError) as e:
            tk.load_task(path)
        assert e.value.field == field, (text, e.value.field)
