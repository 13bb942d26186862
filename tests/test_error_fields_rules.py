"""Bad input names its field and says how to fix it: the learning rate's one rule, and malformed inputs a
user might write, fed to the command line.

1. The learning rate. Before, its range was stated five ways: a spec's ``training.lr`` in [1e-12, 1e3]
   ("a positive number, e.g. 0.05, between 1e-12 and 1000"), ``find-gates --lr`` the same range in other
   words, ``compare --lr`` and the checkpoints' ``run_settings`` (0, 1e3] (so ``--lr 1e-13`` ran a
   comparison that ``training.lr = 1e-13`` refuses), a sweep's ``--grid lr=`` [1e-12, 1e3] in a third
   wording ("learning rates between …"), and a checkpoint's metadata "(a positive number up to 1e3)". Now
   one rule (theorykit.spec.ranges, theorykit.spec.fields.learning_rate), one fix everywhere:
   ``give a number from 1e-12 to 1000, e.g. <how it is written there>``. The range is docs/specs.md's
   (``training.lr``: 1e-12 … 1e3), written out here by hand.
2. Malformed inputs: each case, fed to the command that reads it, exits 2 with one line on stderr,
   ``theorykit: error in FIELD: problem (fix: …)``, names the field (the TOML path where it is one),
   prints nothing on stdout and leaves no output file.
"""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

from theorykit.analysis.checkpoints import run_settings
from theorykit.analysis.safetensors_io import check_metadata
from theorykit.analysis.sweep import plan_sweep
from theorykit.cli import main
from theorykit.cli.parser import build_parser, commands
from theorykit.errors import DerivationError, SpecError
from theorykit.io import software_versions
from theorykit.spec import ranges
from theorykit.spec.files import TRAINING_RANGES, load_spec
from theorykit.theory.svd import exact_svd

#: the range of every learning rate, as docs/specs.md states it for training.lr (1e-12 … 1e3)
LR_FIX = "give a number from 1e-12 to 1000, e.g."

SPEC = '''name = "t"
[data]
inputs = [[1, -1, 1, -1], [1, -1, -1, 1], [1, 1, -1, -1]]
targets = [[1, 1, -1, -1]]
[[pathways]]
name = "a"
active = [1, 1, 0, 0]
hidden = 4
[[pathways]]
name = "b"
active = [0, 0, 1, 1]
hidden = 4
[training]
lr = 0.05
steps = 10
'''


def _one_error_line(capsys, argv, tmp_path):
    """Run ``argv`` in ``tmp_path``: exit 2, nothing on stdout, one error line on stderr (returned)."""
    before = set(tmp_path.rglob("*"))
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "", out
    assert err.count("\n") == 1 and err.startswith("theorykit: error in "), err
    assert "Traceback" not in err
    assert set(tmp_path.rglob("*")) == before, "an output was left"
    return err.strip()


def _npz_run(tmp_path):
    np.savez(tmp_path / "data.npz", X=np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [1, 1, -1, -1]]),
             Y=np.array([[1.0, 1, -1, -1]]))
    (tmp_path / "ck").mkdir()
    rng = np.random.default_rng(0)
    for s in (0, 10):
        np.savez(tmp_path / "ck" / f"step_{s}.npz", W1=0.1 * rng.standard_normal((8, 3)),
                 W2=0.1 * rng.standard_normal((1, 8)))


# ------------------------------------------------------------------------------------------------
# 1. the learning rate: one rule, one message, at every entry point
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, problem", [
    ("5000", "5000 is out of range [1e-12, 1000]"),
    ("0", "0 is out of range [1e-12, 1000]"),
    ("1e-13", "1e-13 is out of range [1e-12, 1000]"),
    ('"0.05"', "needs a number, got a string '0.05'"),
    ("nan", "nan is not a finite number"),
])
def test_training_lr_in_a_spec_file(tmp_path, monkeypatch, capsys, value, problem):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(SPEC.replace("lr = 0.05", f"lr = {value}"))
    for argv in (["check", "s.toml"], ["derive", "s.toml", "--json", "o.json"],
                 ["simulate", "s.toml", "--json", "o.json"]):
        line = _one_error_line(capsys, argv, tmp_path)
        assert line == f"theorykit: error in training.lr: {problem} (fix: {LR_FIX} lr = 0.05)"


@pytest.mark.parametrize("value, problem", [
    ("5000", "5000 is out of range [1e-12, 1000]"),
    ("1e-13", "1e-13 is out of range [1e-12, 1000]"),     # compare took it (its range was (0, 1e3])
    ("0", "0 is out of range [1e-12, 1000]"),
    ("fast", "'fast' is not a number"),
])
def test_every_lr_option(tmp_path, monkeypatch, capsys, value, problem):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(SPEC)
    _npz_run(tmp_path)
    want = f"theorykit: error in --lr: {problem} (fix: {LR_FIX} --lr 0.05)"
    for argv in (["find-gates", "contexts", "--out", "f.toml"],
                 ["find-gates", "--checkpoints", "ck/*.npz", "--data", "data.npz", "--out", "f.toml"],
                 ["compare", "s.toml", "--checkpoints", "ck/*.npz", "--data", "data.npz", "--out", "cmp"]):
        assert _one_error_line(capsys, [*argv, "--lr", value, "--no-progress"], tmp_path) == want


@pytest.mark.parametrize("grid, problem", [
    ("lr=5000", "5000 is out of range [1e-12, 1000]"),
    ("lr=0.01,0", "0 is out of range [1e-12, 1000]"),
    ("lr=1e-13:0.1:3", "1e-13 is out of range [1e-12, 1000]"),
])
def test_a_sweeps_learning_rates(tmp_path, monkeypatch, capsys, grid, problem):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text(SPEC)
    line = _one_error_line(capsys, ["sweep", "s.toml", "--grid", grid, "--out", "sw", "--no-progress"], tmp_path)
    assert line == f"theorykit: error in --grid lr: {problem} (fix: {LR_FIX} --grid lr=0.01,0.05)"


def test_a_sweep_planned_in_python_meets_the_same_rule(tmp_path):
    (tmp_path / "s.toml").write_text(SPEC)
    spec = load_spec(tmp_path / "s.toml")
    for lr, problem in ((0.0, "0 is out of range [1e-12, 1000]"), (2e3, "2000 is out of range [1e-12, 1000]")):
        with pytest.raises(SpecError) as e:
            plan_sweep(spec, {"lr": [0.05, lr]}, seeds=1)
        assert (e.value.field, e.value.problem, e.value.fix) == ("--grid lr", problem, f"{LR_FIX} --grid lr=0.01,0.05")


@pytest.mark.parametrize("lr, problem", [(1e-13, "1e-13 is out of range [1e-12, 1000]"),
                                         (1e4, "10000 is out of range [1e-12, 1000]")])
def test_the_runs_learning_rate(lr, problem):
    """find-gates --checkpoints and compare read a run's lr through run_settings: it took 1e-13."""

    with pytest.raises(SpecError) as e:
        run_settings(SimpleNamespace(meta={}, files=["ck/step_0.npz"]), lr=lr, loss="mean")
    assert (e.value.field, e.value.problem, e.value.fix) == ("--lr", problem, f"{LR_FIX} --lr 0.05")


@pytest.mark.parametrize("text, problem", [("5000", "5000 is out of range [1e-12, 1000]"),
                                           ("1e-13", "1e-13 is out of range [1e-12, 1000]"),
                                           ("fast", "needs a number, got a string 'fast'")])
def test_a_checkpoints_metadata_lr(text, problem):

    with pytest.raises(SpecError) as e:
        check_metadata({"lr": text}, "ck/step_0.safetensors")
    assert e.value.field == "--checkpoints ck/step_0.safetensors: metadata 'lr'"
    assert e.value.problem == problem
    assert e.value.fix.startswith(f"{LR_FIX} metadata lr = \"0.05\"")


def test_the_range_is_stated_once():
    """The help of every --lr states the range the check applies, from the one place."""
    assert (ranges.LR_MIN, ranges.LR_MAX) == (1e-12, 1e3)
    assert TRAINING_RANGES["lr"] == (ranges.LR_MIN, ranges.LR_MAX)
    for name in ("find-gates", "compare"):
        action = commands(build_parser())[name]._option_string_actions["--lr"]
        assert "a number from 1e-12 to 1000" in action.help
        assert action.type.what == "a number from 1e-12 to 1000"


# ------------------------------------------------------------------------------------------------
# 2. malformed inputs a user might write, each fed to the command that reads it
# ------------------------------------------------------------------------------------------------
def _edit(old, new, text=SPEC):
    assert old in text, old
    return text.replace(old, new, 1)


ROWS = "inputs = [[1, -1, 1, -1], [1, -1, -1, 1], [1, 1, -1, -1]]"
SYM = _edit("[1, 1, -1, -1]]", '["Delta", "Delta", "-Delta", "-Delta"]]',
            _edit('name = "t"\n', 'name = "t"\n[symbols]\nDelta = {positive = true}\n'))
DATA_ONLY = "[data]\ninputs = [[1, -1, 1, -1], [1, -1, -1, 1]]\ntargets = [[1, 1, -1, -1]]\n"
DERIVE = ["derive", "s.toml", "--json", "out.json"]
SIMULATE = ["simulate", "s.toml", "--json", "out.json"]
RUN = ["--checkpoints", "ck/*.npz", "--data", "data.npz"]


def _record(command, theorykit="9.0.0"):
    """A result file as a newer theorykit might write it: its command, versions and spec."""
    return json.dumps({"loss": [1.0], "new_field": {"x": 1}, "provenance": {
        "command": command, "spec_toml": SPEC, "elapsed_seconds": 3.7, "versions": {"theorykit": theorykit}}})


# (case, spec text or None, argv, the field named, what the line says: a part of the problem or the fix)
CASES = [
    # types
    ("steps-float", _edit("steps = 10", "steps = 2.5"), SIMULATE, "training.steps", "needs an integer, got a float 2.5"),
    ("hidden-string", _edit("hidden = 4\n[[", 'hidden = "4"\n[['), SIMULATE, "pathways[0].hidden",
     "fix: a positive whole number of hidden units, e.g. hidden = 32"),
    ("hidden-float", _edit("hidden = 4\n[[", "hidden = 4.0\n[["), SIMULATE, "pathways[0].hidden", "got a float 4.0"),
    ("name-a-number", _edit('name = "t"', "name = 5"), DERIVE, "name", "needs a string, got an integer 5"),
    ("training-not-a-table", SPEC.split("[training]")[0].replace('name = "t"', 'name = "t"\ntraining = 5'), DERIVE,
     "training", "must be a table"),
    ("inputs-a-file-name", _edit(ROWS, 'inputs = "x.csv"'), DERIVE, "data.inputs", "got a string 'x.csv'"),
    ("inputs-one-row", _edit(ROWS, "inputs = [1, -1, 1, -1]"), DERIVE, "data.inputs",
     "fix: write it as a d × P array, one list per row: inputs = [[1, -1, 1, -1]]"),
    ("inputs-empty", _edit(ROWS, "inputs = []"), DERIVE, "data.inputs", "got an empty array"),
    ("gates-a-word", _edit("active = [1, 1, 0, 0]", 'active = "alll"'), DERIVE, "pathways[0].active",
     'or "all"'),
    ("inputs-a-word", _edit('name = "a"\n', 'name = "a"\ninputs = "some"\n'), DERIVE, "pathways[0].inputs",
     'fix: write "all" or e.g. [0, 1]'),
    # misspelt keys: the table, the key and the nearest key
    ("training-key", _edit("lr = 0.05", "lrate = 0.05"), DERIVE, "training.lrate", "unknown keys ['lrate']"),
    ("pathway-key", _edit("hidden = 4\n[[", "hiden = 4\n[["), DERIVE, "pathways[0].hiden",
     "did you mean 'hidden' for 'hiden'?"),
    ("data-key", _edit("targets =", "target ="), DERIVE, "data.target", "did you mean 'targets' for 'target'?"),
    ("table-misspelt", SPEC.replace("[[pathways]]", "[[pathway]]"), DERIVE, "pathway",
     "did you mean 'pathways' for 'pathway'?"),
    ("assumption-misspelt", SYM.replace("positive = true", "positiv = true"), DERIVE, "symbols.Delta.positiv",
     "unknown assumption 'positiv'"),
    ("loss-misspelt", _edit("steps = 10", 'steps = 10\nloss = "meen"'), DERIVE, "training.loss", 'loss = "mean"'),
    ("task-unknown", '[data]\ntask = "xor"\nreln = "linear"\n', DERIVE, "data.task", 'use "xor-margin" or "contexts"'),
    ("reln-misspelt", '[data]\ntask = "xor-margin"\nDelta = 1\nreln = "linaer"\n', DERIVE, "data.reln",
     "'linaer' is not one of ['linear', 'xor']"),
    ("blocks-misspelt", '[data]\ntask = "contexts"\nblocks = "hierarchyy"\nreln = "double"\n', DERIVE,
     "data.blocks", "'hierarchyy' is not one of"),
    # missing sections and fields
    ("data-missing", SPEC.replace("[data]\n" + ROWS + "\ntargets = [[1, 1, -1, -1]]\n", ""), DERIVE, "data",
     "fix: add a [data] table"),
    ("inputs-missing", _edit(ROWS + "\n", ""), DERIVE, "data.inputs", "missing"),
    ("pathway-name-missing", _edit('name = "b"\n', ""), DERIVE, "pathways[1].name", "missing"),
    ("both-forms", SPEC + '[[nodes]]\nname = "h"\nwidth = 2\n', DERIVE, "pathways", "keep one of the two forms"),
    # gates
    ("gates-too-few", _edit("active = [0, 0, 1, 1]", "active = [0, 1, 1]"), DERIVE, "pathways[1].active",
     "needs one gate per datapoint (4)"),
    ("gate-not-binary", _edit("active = [1, 1, 0, 0]", "active = [1, 2, 0, 0]"), DERIVE, "pathways[0].active[1]",
     "gate 2 (datapoint 1) is not 0 or 1"),
    ("gates-all-off", _edit("active = [1, 1, 0, 0]", "active = [0, 0, 0, 0]"), DERIVE, "pathways[0].active",
     "active on no datapoint"),
    ("nothing-to-learn", _edit(", [1, 1, -1, -1]]", "]"), DERIVE, "pathways[0]",
     "fix: check pathways[0]: turn it on for datapoints"),
    ("no-closed-form", '[symbols]\nD = {positive = true}\n[data]\ninputs = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n'
     'targets = [["D", 1, 2], [0, "D", 3], [1, 0, "D"]]\n[[pathways]]\nname = "all"\nactive = "all"\n', DERIVE,
     "pathways[0]", "(fix: substitute numbers for the symbols (--set NAME=VALUE))"),
    # NaN and inf
    ("a0-nan", _edit("lr = 0.05", "lr = 0.05\na0 = nan"), DERIVE, "training.a0", "nan is not a finite number"),
    ("data-nan", _edit("[1, 1, -1, -1]]", "[1, 1, -1, nan]]"), DERIVE, "data.inputs[2][3]", "not a finite number"),
    ("data-inf", _edit("targets = [[1, 1, -1, -1]]", "targets = [[1, 1, -1, -inf]]"), DERIVE, "data.targets[0][3]",
     "not a finite number"),
    # negative, zero and huge sizes
    ("steps-zero", _edit("steps = 10", "steps = 0"), SIMULATE, "training.steps", "0 is out of range"),
    ("steps-huge", _edit("steps = 10", "steps = 1000000000000"), SIMULATE, "training.steps", "out of range"),
    ("hidden-zero", _edit("hidden = 4\n[[", "hidden = 0\n[["), SIMULATE, "pathways[0].hidden", "0 is out of range"),
    ("hidden-negative", _edit("hidden = 4\n[t", "hidden = -3\n[t"), SIMULATE, "pathways[1].hidden",
     "-3 is out of range"),
    ("hidden-huge", _edit("hidden = 4\n[[", "hidden = 1000000000000\n[["), SIMULATE, "pathways[0].hidden",
     "--force does not lift the memory limit"),
    ("depth-4", _edit("hidden = 4\n[[", "hidden = 4\ndepth = 4\n[["), DERIVE, "pathways[0].depth", "use 2"),
    ("a0-zero", _edit("lr = 0.05", "lr = 0.05\na0 = 0"), DERIVE, "training.a0", "0 is out of range"),
    ("contexts-n-zero", '[data]\ntask = "contexts"\nn = 0\nreln = "double"\n', DERIVE, "data.n", "e.g. n = 8"),
    ("contexts-k-huge", '[data]\ntask = "contexts"\nk = 1000000000\nreln = "double"\n', DERIVE, "data.k",
     "e.g. k = 3"),
    ("index-out-of-range", _edit('name = "a"\n', 'name = "a"\ninputs = [5]\n'), DERIVE, "pathways[0].inputs[0]",
     "5 is not an input row index in 0..2"),
    ("rows-unequal", _edit("[1, -1, -1, 1], ", "[1, -1, -1], "), DERIVE, "data.inputs[1]", "has 3 entries"),
    ("columns-differ", _edit("targets = [[1, 1, -1, -1]]", "targets = [[1, 1, -1]]"), DERIVE, "data.targets",
     "datapoints are columns"),
    ("name-repeated", _edit('name = "b"', 'name = "a"'), DERIVE, "pathways[1].name", "give each pathway its own name"),
    # symbols and their domains
    ("symbol-undeclared", _edit("[1, -1, -1, 1], ", '[1, -1, -1, "Delta"], '), DERIVE, "data.inputs[1][3]",
     "declare it under [symbols]"),
    ("symbol-reserved", SYM.replace("Delta = {positive = true}", "Delta = {positive = true}\nlambda = {}"), DERIVE,
     "symbols.lambda", "not a usable symbol name"),
    ("value-outside-domain", SYM, [*DERIVE, "--set", "Delta=-1"], "--set Delta", "-1 is not positive"),
    ("set-unknown-symbol", SYM, [*DERIVE, "--set", "Gamma=1"], "--set", "unknown symbol 'Gamma'"),
    ("set-not-a-number", SYM, [*SIMULATE, "--set", "Delta=abc"], "--set Delta", "a value is a number"),
    ("symbol-without-value", SYM, SIMULATE, "--set", "pass --set Delta=VALUE"),
    ("sweep-unknown-name", SYM, ["sweep", "s.toml", "--grid", "Gamma=0:1:3", "--out", "sw"], "--grid",
     "unknown name 'Gamma'"),
    # Python in an expression string: refused, never evaluated
    ("expr-import", _edit("[1, -1, -1, 1], ", "[1, -1, -1, \"__import__('os').system('touch pwned')\"], "), DERIVE,
     "data.inputs[1][3]", "may be called"),
    ("expr-lambda", _edit("[1, -1, -1, 1], ", '[1, -1, -1, "(lambda: 1)()"], '), DERIVE, "data.inputs[1][3]",
     "may be called"),
    ("expr-attribute", _edit("[1, -1, -1, 1], ", '[1, -1, -1, "().__class__"], '), DERIVE, "data.inputs[1][3]",
     "Attribute is not allowed"),
    ("expr-huge-power", _edit("[1, -1, -1, 1], ", '[1, -1, -1, "2**100000"], '), DERIVE, "data.inputs[1][3]",
     "exponent 100000"),
    # the file itself
    ("toml-syntax", _edit("lr = 0.05", "lr = [0.05"), DERIVE, "spec", "is not valid TOML"),
    ("file-empty", "", DERIVE, "spec", "is empty"),
    ("file-missing", None, DERIVE, "spec", "no such file: s.toml"),
    # options
    ("times-negative", SPEC, ["derive", "s.toml", "--times", "-1,5", "--json", "out.json"], "--times", "--times 0,100"),
    ("times-a-word", SPEC, ["derive", "s.toml", "--times", "0,ten", "--json", "out.json"], "--times",
     "not a comma-separated list of numbers"),
    ("seeds-zero", SPEC, ["check", "s.toml", "--seeds", "0"], "--seeds", "e.g. --seeds 4"),
    ("steps-option-huge", SPEC, [*SIMULATE, "--steps", "99999999999"], "--steps", "from 1 to 1000000000"),
    ("init-weights-missing", SPEC, [*SIMULATE, "--init-weights", "w.npz"], "--init-weights", "no such file"),
    ("predict-hidden-zero", DATA_ONLY, ["predict", "s.toml", "--hidden", "0", "--out", "out.toml"], "--hidden",
     "e.g. --hidden 128"),
    # checkpoints
    ("checkpoints-empty-dir", None, ["find-gates", "--checkpoints", "empty/*.npz", "--data", "data.npz",
                                     "--out", "out.toml"], "--checkpoints", "matches no file"),
    ("compare-checkpoints-empty-dir", SPEC, ["compare", "s.toml", "--checkpoints", "empty/*.npz", "--data", "data.npz",
                                             "--out", "cmp"], "--checkpoints", "matches no file"),
    ("checkpoints-of-two-networks", None, ["find-gates", *RUN, "--K", "2", "--out", "out.toml"],
     "--checkpoints ck/step_10.npz: key 'W1'", "give checkpoints of one network"),
    # results: another version's, not JSON, not theorykit's
    ("rerun-newer-version", None, ["rerun", "new.json", "--out", "again.json"], "provenance.command",
     "(theorykit 9.0.0 wrote the result; this is theorykit "),
    ("rerun-not-json", None, ["rerun", "bad.json", "--out", "again.json"], "RESULT", "is not JSON"),
    ("rerun-other-program", None, ["rerun", "python.json", "--out", "again.json"], "provenance.command",
     "is not a theorykit command"),
]


@pytest.mark.parametrize("case, text, argv, field, says", CASES, ids=[c[0] for c in CASES])
def test_a_malformed_input_is_one_line_naming_its_field_with_a_fix(tmp_path, monkeypatch, capsys, case, text, argv,
                                                                  field, says):
    monkeypatch.chdir(tmp_path)
    if text is not None:
        (tmp_path / "s.toml").write_text(text)
    (tmp_path / "empty").mkdir()
    _npz_run(tmp_path)
    rng = np.random.default_rng(1)
    if case == "checkpoints-of-two-networks":            # a second network's checkpoint among the first's
        np.savez(tmp_path / "ck" / "step_10.npz", W1=rng.standard_normal((6, 3)), W2=rng.standard_normal((1, 6)))
    (tmp_path / "new.json").write_text(_record("theorykit derive s.toml --times 0,10 --smooth 3 --json r.json"))
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "python.json").write_text(_record("python -c 'import os'"))
    line = _one_error_line(capsys, [*argv, *(["--no-progress"] if argv[0] in ("find-gates", "compare") else [])],
                           tmp_path)
    assert line.startswith(f"theorykit: error in {field}: "), line
    assert line.endswith(")") and " (fix: " in line, line
    assert says in line, line
    assert not (tmp_path / "pwned").exists()


def test_a_result_of_another_version_says_which_and_a_result_of_this_one_does_not(tmp_path, monkeypatch, capsys):
    """The fix names the version that wrote the result; where it is this version, the old message stands."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "new.json").write_text(_record("theorykit derive s.toml --smooth 3 --json r.json"))
    line = _one_error_line(capsys, ["rerun", "new.json"], tmp_path)
    assert line.endswith("(fix: rerun it with theorykit 9.0.0, the version that wrote it)")
    now = software_versions()["theorykit"]
    (tmp_path / "same.json").write_text(_record("theorykit derive s.toml --smooth 3 --json r.json", now))
    line = _one_error_line(capsys, ["rerun", "same.json"], tmp_path)
    assert line == ("theorykit: error in provenance.command: --smooth is not an option of theorykit derive "
                    "(fix: give the result as theorykit wrote it)")


def test_a_derivation_error_with_a_fix_keeps_its_message_apart():
    e = DerivationError("a degenerate SVD", field="pathways[1]", fix="give the symbols other values")
    assert (e.message, e.fix, e.field) == ("a degenerate SVD", "give the symbols other values", "pathways[1]")
    assert str(e) == "a degenerate SVD (fix: give the symbols other values)"
    assert str(DerivationError("a degenerate SVD")) == "a degenerate SVD"


def test_at_least_forty_cases():
    assert len(CASES) >= 40 and len({c[0] for c in CASES}) == len(CASES)


def test_an_irrational_gram_factor_of_degree_three_gives_its_fix():
    """[[√2, 1, 2], [0, 1, 3], [1, 0, 1]]: its Gram's characteristic polynomial has √2 in its coefficients
    and no closed form is taken for a cubic over Q(√2); the advice was inside the message, not a fix."""
    with pytest.raises(DerivationError) as e:
        exact_svd(sp.Matrix([[sp.sqrt(2), 1, 2], [0, 1, 3], [1, 0, 1]]), {}, {})
    assert e.value.message.endswith("exact singular values are not supported for it")
    assert e.value.fix.startswith("use rational entries in the data")
