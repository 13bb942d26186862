"""Bad input names the exact field, in Python as on the command line (round 2 of
tests/test_error_fields_rules.py).

1. An unknown key is named by its own TOML path (``training.lrate``, ``pathways[0].hiden``), not its
   table's; a bad gate or row index by its entry (``pathways[0].active[1]``), not the list's. The fix
   text ("did you mean …") is kept.
2. A learning rate given in Python (``tk.Training(lr=…)``, ``tk.simulate(…, lr=…)``,
   ``tk.find_gates(…, lr=…)``, ``compare_run(…, lr=…)``) is held to the command line's rule.
3. Infinity written as a name (``"oo"``) is not an undeclared symbol; the bound of ``hidden`` reads 2^62;
   a checkpoint whose metadata records no learning rate (``lr = "None"``) asks for ``--lr``.
"""
from __future__ import annotations

import json
import struct
from types import SimpleNamespace

import numpy as np
import pytest

import theorykit as tk
from theorykit.analysis.checkpoints import run_settings
from theorykit.analysis.compare import compare_run
from theorykit.analysis.safetensors_io import check_metadata, read_checkpoint
from theorykit.cli import main
from theorykit.errors import SpecError
from theorykit.spec.files import spec_from_dict
from theorykit.spec.graph import scaled

from test_error_fields_rules import SPEC        # the two-pathway XoR spec of the first round's cases


def _edit(old, new, text=SPEC):
    assert old in text, old
    return text.replace(old, new, 1)


def _cli_error(tmp_path, monkeypatch, capsys, text):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(text)
    assert main(["derive", "s.toml", "--json", "out.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert not (tmp_path / "out.json").exists()
    return err.strip()


# ------------------------------------------------------------------------------------------------
# 1. the key, the entry
# ------------------------------------------------------------------------------------------------
KEY_CASES = [
    # (case, edit of SPEC, the line's start, what it still says)
    ("training-key", ("lr = 0.05", "lrate = 0.1"), "theorykit: error in training.lrate: unknown keys ['lrate']",
     "(fix: use only ['lr', 'loss', 'a0', 'init_std', 'steps'])"),
    ("pathway-key", ("hidden = 4\n[[", "hiden = 4\n[["), "theorykit: error in pathways[0].hiden: unknown keys",
     "did you mean 'hidden' for 'hiden'?"),
    ("second-pathway-key", ("hidden = 4\n[training]", "hidden = 4\ndeph = 2\n[training]"),
     "theorykit: error in pathways[1].deph: unknown keys ['deph']", "did you mean 'depth' for 'deph'?"),
    ("data-key", ("targets =", "target ="), "theorykit: error in data.target: unknown keys ['target']",
     "did you mean 'targets' for 'target'?"),
    ("top-level-table", ("[training]", "[trainig]"), "theorykit: error in trainig: unknown keys ['trainig'] at the top",
     "did you mean 'training' for 'trainig'?"),
    ("quoted-key", ("lr = 0.05", '"l r" = 0.05'), 'theorykit: error in training."l r": unknown keys [\'l r\']',
     "use only"),
    ("gate-entry", ("active = [1, 1, 0, 0]", "active = [1, 2, 0, 0]"),
     "theorykit: error in pathways[0].active[1]: gate 2 (datapoint 1) is not 0 or 1", "(fix: gates are binary"),
    ("index-entry", ('name = "b"\n', 'name = "b"\noutputs = [0, 3]\n'),
     "theorykit: error in pathways[1].outputs[1]: 3 is not an output row index in 0..0", "(fix: use integers below 1)"),
]


@pytest.mark.parametrize("case, edit, start, says", KEY_CASES, ids=[c[0] for c in KEY_CASES])
def test_an_unknown_key_or_a_bad_entry_is_named_by_its_own_path(tmp_path, monkeypatch, capsys, case, edit, start,
                                                                 says):
    line = _cli_error(tmp_path, monkeypatch, capsys, _edit(*edit))
    assert line.startswith(start), line
    assert says in line, line


def test_the_first_of_several_unknown_keys_is_named_and_all_are_listed():
    data = {"data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, 1]]},
            "pathways": [{"name": "p", "active": "all"}], "training": {"zeta": 1, "lrr": 0.1}}
    with pytest.raises(SpecError) as e:
        spec_from_dict(data)
    assert e.value.field == "training.zeta"           # the first in the file, not the table
    assert e.value.problem == "unknown keys ['lrr', 'zeta']"
    assert e.value.fix == "did you mean 'lr' for 'lrr'? Otherwise use only ['lr', 'loss', 'a0', 'init_std', 'steps']"


# ------------------------------------------------------------------------------------------------
# 2. the Python API holds a learning rate to the command line's rule: 1e-12 … 1e3 (docs/specs.md,
#    training.lr), the fix "give a number from 1e-12 to 1000, e.g. …" written as Python writes it
# ------------------------------------------------------------------------------------------------
LR_FIX = "give a number from 1e-12 to 1000, e.g."


def _xor_spec(lr=0.05):
    return tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"], tk.Training(lr=lr, steps=5))


@pytest.mark.parametrize("lr, problem", [(1e4, "10000 is out of range [1e-12, 1000]"),
                                         (1e-13, "1e-13 is out of range [1e-12, 1000]")])
def test_training_holds_lr_to_the_one_rule(lr, problem):
    with pytest.raises(SpecError) as e:
        tk.Training(lr=lr)
    assert (e.value.field, e.value.problem, e.value.fix) == ("training.lr", problem, f"{LR_FIX} lr = 0.05")
    assert tk.Training(lr=1000.0).lr == 1000.0 and tk.Training(lr=1e-12).lr == 1e-12     # the ends are in


@pytest.mark.parametrize("call", [
    lambda: tk.simulate(_xor_spec(), lr=1e4, seeds=1, steps=5, values={"Delta": 0.5}),
    lambda: tk.find_gates(tk.contexts(n=1, k=2), lr=1e4, K=1, seeds=1, steps=5, hidden=4),
    lambda: compare_run(_xor_spec().subs({"Delta": 0.5}), _fake_run(_xor_spec().subs({"Delta": 0.5})), lr=1e4),
], ids=["simulate", "find_gates", "compare_run"])
def test_the_python_entry_points_refuse_an_lr_the_command_line_refuses(call):
    """tk.simulate and tk.find_gates ran lr = 1e4 (simulate's check was (0, ∞), find_gates' none);
    compare_run took any number."""
    with pytest.raises(SpecError) as e:
        call()
    assert (e.value.field, e.value.problem, e.value.fix) == ("lr", "10000 is out of range [1e-12, 1000]",
                                                             f"{LR_FIX} lr=0.05")


def test_compare_run_names_lr_for_a_word():
    spec = _xor_spec().subs({"Delta": 0.5})
    with pytest.raises(SpecError) as e:              # was float("fast"): a bare ValueError
        compare_run(spec, _fake_run(spec), lr="fast")
    assert e.value.field == "lr" and e.value.fix == f"{LR_FIX} lr=0.05"


def _fake_run(spec):
    """What compare_run reads before the learning rate: the run's data, the spec's own."""
    X, Y = spec.task.numeric()
    return SimpleNamespace(X=X, Y=Y)


def test_a_scaled_graph_holds_its_learning_rate_to_the_rule():
    """scaled(graph, factor, time) trains at η × time: with η = 600 and time = 2 that is 1200 > 1000,
    refused naming time (the largest time allowed: floor(1000 / 600) = 1)."""
    g = tk.graph_from_pathways(_xor_spec(lr=600.0))
    with pytest.raises(SpecError) as e:
        scaled(g, 1.0, 2)
    assert e.value.field == "time"
    assert e.value.problem == "the scaled learning rate η × time = 600 × 2 = 1200 is over 1000"
    assert e.value.fix == "give a time of at most 1, or a smaller training.lr"
    assert scaled(_xor_spec_graph(0.25), 0.5, 4).training.lr == 1.0        # 0.25 × 4


def _xor_spec_graph(lr):
    return tk.graph_from_pathways(_xor_spec(lr=lr))


# ------------------------------------------------------------------------------------------------
# 3. small oddities: infinity in the data, the bound of hidden, a checkpoint that records no lr
# ------------------------------------------------------------------------------------------------
#: docs/specs.md: numbers in the data are 0 or of magnitude 1e-6 … 1e6
FINITE_FIX = "(fix: give a finite number: 0, or between 1e-6 and 1e6 in magnitude)"


@pytest.mark.parametrize("text, name, what", [("oo", "oo", "infinity"), ("-oo", "oo", "infinity"),
                                              ("2*Infinity", "Infinity", "infinity"), ("inf", "inf", "infinity"),
                                              ("zoo", "zoo", "complex infinity"), ("nan", "nan", "NaN")])
def test_infinity_written_as_a_name_is_not_an_undeclared_symbol(tmp_path, monkeypatch, capsys, text, name, what):
    """'oo' was "unknown symbol 'oo' (fix: declare it under [symbols])": there is nothing to declare."""
    line = _cli_error(tmp_path, monkeypatch, capsys, _edit("[1, -1, -1, 1], ", f'[1, -1, -1, "{text}"], '))
    assert line == (f"theorykit: error in data.inputs[1][3]: {name!r} in {text!r} is {what}, not a finite number "
                    f"{FINITE_FIX}")


def test_a_declared_symbol_may_still_be_called_inf():
    data = {"symbols": {"inf": {"positive": True}}, "data": {"inputs": [["inf", 1]], "targets": [[1, 1]]},
            "pathways": [{"name": "p", "active": "all"}]}
    assert str(spec_from_dict(data).task.X[0, 0]) == "inf"


def test_the_bound_of_hidden_is_printed_readably(tmp_path, monkeypatch, capsys):
    """2^62 + 1 = 4611686018427387905 hidden units: the bound was printed as 4611686018427387904."""
    line = _cli_error(tmp_path, monkeypatch, capsys, _edit("hidden = 4\n[[", "hidden = 4611686018427387905\n[["))
    assert line.startswith("theorykit: error in pathways[0].hidden: 4611686018427387905 is out of range: "
                           "must be between 1 and 2^62 (fix: "), line
    assert "4611686018427387904" not in line


def _safetensors(path, meta):
    """A safetensors file written by hand (8-byte little-endian header length, JSON header, the data)."""
    W = np.arange(6, dtype="<f8").reshape(2, 3)
    header = json.dumps({"W1": {"dtype": "F64", "shape": [2, 3], "data_offsets": [0, W.nbytes]},
                         "__metadata__": meta}).encode()
    path.write_bytes(struct.pack("<Q", len(header)) + header + W.tobytes())


@pytest.mark.parametrize("recorded", ["None", "", "null"])
def test_a_checkpoint_that_records_no_lr_asks_for_lr(tmp_path, recorded):
    """metadata lr = "None" (a script's str(None)) was refused on reading, "needs a number, got a string
    'None'", even with --lr given; now it is no learning rate recorded: --lr is used, or asked for."""
    _safetensors(tmp_path / "step_0.safetensors", {"lr": recorded, "loss": "sum"})
    arrays, meta = read_checkpoint(tmp_path / "step_0.safetensors")
    assert meta == {"loss": "sum"} and arrays["W1"].shape == (2, 3)
    run = SimpleNamespace(meta=meta, files=[str(tmp_path / "step_0.safetensors")])
    assert run_settings(run, lr=0.05) == (0.05, "sum")
    with pytest.raises(SpecError) as e:
        run_settings(run)
    assert (e.value.field, e.value.problem) == ("--lr", "no learning rate recorded (the checkpoints' metadata has none)")
    assert e.value.fix.startswith("give --lr") and e.value.fix.endswith("e.g. --lr 0.05")


@pytest.mark.parametrize("recorded, shown", [(None, "None"), ("None", "'None'")])
def test_a_python_none_lr_in_metadata_is_none_recorded(recorded, shown):
    """check_metadata({"lr": None}) said "needs a number, got a NoneType None"."""
    with pytest.raises(SpecError) as e:
        check_metadata({"lr": recorded, "loss": "mean"}, "ck/step_0.safetensors")
    assert (e.value.field, e.value.problem) == ("--checkpoints ck/step_0.safetensors: metadata 'lr'",
                                                f"no learning rate recorded (lr = {shown})")
    assert e.value.fix == 'give --lr, the step size of the run, e.g. --lr 0.05, or store metadata lr = "0.05"'


# ------------------------------------------------------------------------------------------------
# 4. the Python API typed in a REPL with wrong arguments
# ------------------------------------------------------------------------------------------------
TYPOS = [
    # (call, Python's own words, the keyword meant)
    (lambda: tk.simulate(_xor_spec(), step=5), "simulate() got an unexpected keyword argument 'step'", "steps"),
    (lambda: tk.find_gates(tk.xor_margin(0.5), k=2), "find_gates() got an unexpected keyword argument 'k'", "K"),
    (lambda: tk.predict_reln(tk.xor_margin(0.5), 8, tk.Training(), serch="beam"),
     "predict_reln() got an unexpected keyword argument 'serch'", "search"),
    (lambda: tk.Derivation(_xor_spec(), value={"Delta": 1}),
     "Derivation.__init__() got an unexpected keyword argument 'value'", "values"),
    (lambda: tk.Training(lrate=0.1), "Training.__init__() got an unexpected keyword argument 'lrate'", "lr"),
    (lambda: compare_run(_xor_spec(), None, lrr=0.1), "compare_run() got an unexpected keyword argument 'lrr'", "lr"),
]


@pytest.mark.parametrize("call, words, meant", TYPOS, ids=["simulate", "find_gates", "predict_reln", "Derivation",
                                                          "Training", "compare_run"])
def test_a_misspelt_keyword_is_a_type_error_that_says_which_was_meant(call, words, meant):
    """Python 3.11 says only "got an unexpected keyword argument"; the message keeps its words and adds the fix."""
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == f"{words} (fix: did you mean {meant}=?)"


def test_a_keyword_with_no_near_name_lists_the_keywords():
    with pytest.raises(TypeError) as e:
        tk.Training(momentum=0.9)
    assert str(e.value) == ("Training.__init__() got an unexpected keyword argument 'momentum' "
                            "(fix: use one of ['lr', 'loss', 'a0', 'init_std', 'steps'])")
    assert tk.Training(lr=0.1, steps=3).steps == 3 and tk.Training(0.1).lr == 0.1     # right calls as before


@pytest.mark.parametrize("kw, field, fix", [
    ({"steps": 2.5}, "steps", "a positive integer (at most 1e9), e.g. steps=2000"),
    ({"steps": 0}, "steps", "a positive integer (at most 1e9), e.g. steps=2000"),
    ({"init_std": 0}, "init_std", "give a positive number from 1e-12 to 100, e.g. init_std=0.01"),   # the spec's range
    ({"loss": "max"}, "loss", 'use loss="mean" or loss="sum"'),
])
def test_find_gates_names_its_keywords_not_the_spec_fields(kw, field, fix):
    """find_gates(task, steps=0) said "training.steps … (fix: … e.g. steps = 2000)", a spec file's words."""
    with pytest.raises(SpecError) as e:
        tk.find_gates(tk.xor_margin(0.5), K=1, hidden=4, seeds=1, **kw)
    assert (e.value.field, e.value.fix) == (field, fix)


@pytest.mark.parametrize("source", [tk.xor_margin(0.5), "xor.toml", None])
def test_the_race_of_something_that_is_not_a_spec_is_a_spec_error(source):
    """RaceSystem.from_spec(task) was AttributeError: 'Task' object has no attribute 'task'."""
    with pytest.raises(SpecError) as e:
        tk.RaceSystem.from_spec(source)
    assert e.value.field == "spec"
    assert e.value.fix == "pass a pathway spec: tk.load_spec(path) or tk.GDLNSpec(task, pathways)"


def test_a_race_names_a_misspelt_keyword_and_gates_that_are_not_numbers():
    rs = tk.RaceSystem.from_spec(_xor_spec().subs({"Delta": 0.5}))
    with pytest.raises(TypeError) as e:
        rs.solve([0, 1], taus=3)
    assert str(e.value) == "RaceSystem.solve() got an unexpected keyword argument 'taus' (fix: did you mean tau=?)"
    X, Y = tk.xor_margin(0.5).numeric()
    with pytest.raises(SpecError) as e:                 # was ValueError: could not convert string to float: 'all'
        tk.RaceSystem.from_data(X, Y, "all")
    assert e.value.field == "gates" and e.value.problem == "needs K × P 0/1 numbers, got 'all'"
