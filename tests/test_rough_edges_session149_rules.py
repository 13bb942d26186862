"""Five rough edges a user met (session 149, helper h151).

1. ``context_scale = true`` (or ``Delta = true``) in a spec file was refused with "fix: write 0 or 1": wrong
   advice for a scale (0 is refused as not positive) and for a margin. The fix now says what the field takes.
2. ``tk.ring(7)``, ``tk.cross(7)``, ``tk.hierarchy(6)`` refused in a spec file's words ("use n = 8"); now in
   Python's, as ``tk.contexts``' refusals are (h148), while a spec file's contexts task keeps ``data.blocks[2]``
   and ``n = 8``.
3. ``tk.contexts(8, 1)`` built a task that a spec file's ``[data]`` refuses (k ≥ 2, docs/specs.md). One
   context leaves the context pathways nothing to learn: the residual of docs/theory.md#contexts is
   (H_i − h̄)(δ_cc' − 1/k), zero for k = 1. Both now refuse k = 1, naming k.
4. "1 structures given for k = 3 contexts" and other counts printed with a plural noun at 1.
5. ``tk.to_jax("Delta**2", [Delta])`` handed the string to SymPy's ``sympify``, which ``eval``s it; a string
   is now refused with the safe parser as the fix (``tk.parse_expr``).
"""
import os
import re

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.analysis.predict_share import family_a0s
from theorykit.analysis.reln import exact_reln_outputs
from theorykit.cli import main
from theorykit.errors import SpecError
from theorykit.net.layout import Net
from theorykit.net.starts import aligned_net_params, aligned_params
from theorykit.record import Trajectory
from theorykit.sim.engine import train_net
from theorykit.sim.weights import check_weights
from theorykit.theory.gates import UnitGates
from theorykit.theory.race import RaceSystem

CONTEXTS = '[data]\ntask = "contexts"\nreln = "double"\n'
XOR = '[data]\ntask = "xor-margin"\nreln = "xor"\n'


def _check(tmp_path, capsys, text: str) -> str:
    """``theorykit check`` of a spec file holding ``text``: its one error line (exit status 2)."""
    spec = tmp_path / "s.toml"
    spec.write_text(text)
    capsys.readouterr()
    assert main(["check", str(spec)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in "), err
    return err.strip()


def _err(fn, *args, **kw) -> SpecError:
    with pytest.raises(SpecError) as e:
        fn(*args, **kw)
    return e.value


# ------------------------------------------------------------------------------------------------
# 1. a boolean where a number goes: the fix says what the field takes
# ------------------------------------------------------------------------------------------------
def test_context_scale_true_gets_a_fix_for_a_scale(tmp_path, capsys):
    err = _check(tmp_path, capsys, CONTEXTS + "context_scale = true\n")
    assert err.startswith("theorykit: error in data.context_scale: got a boolean true, expected a number"), err
    assert "0 or 1" not in err, err          # 0 is no scale: contexts refuses it as not positive
    assert "positive number" in err and "context_scale = 1.1" in err, err


def test_the_advice_for_context_scale_is_a_value_the_spec_file_accepts(tmp_path, capsys):
    """The example in the fix, written into the file, checks (the test can fail: 0 of "0 or 1" does not)."""
    for bad, good in ((" 0\n", False), (" 1.1\n", True), (' "sqrt(2)"\n', True)):
        spec = tmp_path / "s.toml"
        spec.write_text(CONTEXTS + "context_scale =" + bad)
        capsys.readouterr()
        assert (main(["check", str(spec)]) == 0) is good, capsys.readouterr().err


def test_delta_true_gets_a_fix_for_a_margin(tmp_path, capsys):
    err = _check(tmp_path, capsys, XOR + "Delta = false\n")
    assert err.startswith("theorykit: error in data.Delta: got a boolean false, expected a number"), err
    assert "0 or 1" not in err and "Delta = 0.5" in err, err


def test_xor_margin_true_from_python_gets_pythons_example():
    e = _err(tk.xor_margin, True)
    assert e.field == "delta" and e.fix == "e.g. delta=0.5", str(e)


# ------------------------------------------------------------------------------------------------
# 2. the structures called from Python: Python's words
# ------------------------------------------------------------------------------------------------
STRUCTURE_CALLS = [
    (lambda: tk.ring(7), "n", "'ring' is defined for n=8 items, got n=7", "use n=8 or another structure"),
    (lambda: tk.cross(7), "n", "'cross' is defined for n=8 items, got n=7", "use n=8 or another structure"),
    (lambda: tk.hierarchy(6), "n", "the hierarchy needs n a power of two, got n=6", "use n=2, 4, 8, 16, …"),
    (lambda: tk.hierarchy(0), "n", "0 is out of range: must be at least 1", "a positive integer, e.g. n=8"),
    (lambda: tk.ring("8"), "n", "needs an integer, got a string '8'", "a positive integer, e.g. n=8"),
    (lambda: tk.cross(2.5), "n", "needs an integer, got a float 2.5", "a positive integer, e.g. n=8"),
]


@pytest.mark.parametrize("i", range(len(STRUCTURE_CALLS)))
def test_a_structure_called_from_python_refuses_in_pythons_words(i):
    call, field, problem, fix = STRUCTURE_CALLS[i]
    e = _err(call)
    assert (e.field, e.problem) == (field, problem), str(e)
    if fix is not None:
        assert e.fix == fix, str(e)
    assert "data." not in str(e) and "n = " not in str(e), str(e)      # a spec file's field and spelling


def test_a_structure_in_a_spec_file_keeps_the_files_words(tmp_path, capsys):
    err = _check(tmp_path, capsys, CONTEXTS + 'n = 4\nblocks = ["hierarchy", "hierarchy", "ring"]\n')
    assert err == ("theorykit: error in data.blocks[2]: 'ring' is defined for n = 8 items, got n = 4 "
                   "(fix: use n = 8 or another structure)"), err
    err = _check(tmp_path, capsys, CONTEXTS + "n = 6\n")
    assert err == ("theorykit: error in data.common: the hierarchy needs n a power of two, got n = 6 "
                   "(fix: use n = 2, 4, 8, 16, …)"), err


def test_the_structures_still_build():
    """The decorated structures are the same matrices: the hierarchy of n = 4 is 1 + 2 + 4 = 7 rows (h = 1, 2, 4
    blocks of n/h items), the ring and cross 15 rows of 8 items (their docstrings)."""
    H = tk.hierarchy(4)
    assert H.tolist() == [[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0],
                          [0, 0, 0, 1]]
    assert tk.ring().shape == (15, 8) and tk.cross().shape == (15, 8)
    assert tk.structure("identity", 3) == sp.eye(3)


# ------------------------------------------------------------------------------------------------
# 3. one rule for k: at least 2 contexts, from Python as in a spec file
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 2, 3])
def test_python_and_a_spec_file_agree_on_k(tmp_path, capsys, k):
    spec = tmp_path / "k.toml"
    spec.write_text(CONTEXTS + f"n = 2\nk = {k}\n")
    capsys.readouterr()
    file_ok = main(["check", str(spec)]) == 0
    try:
        tk.contexts(2, k)
        python_ok = True
    except SpecError:
        python_ok = False
    assert file_ok == python_ok == (k >= 2), capsys.readouterr().err


def test_one_context_is_refused_from_python_naming_k():
    e = _err(tk.contexts, 8, 1)
    assert e.field == "k" and e.problem == "1 is out of range: must be at least 2", str(e)
    assert e.fix == "use e.g. contexts(8, 3): n=8 items, k=3 contexts", str(e)


# ------------------------------------------------------------------------------------------------
# 4. a count of 1 with a singular noun
# ------------------------------------------------------------------------------------------------
def test_one_structure_for_three_contexts_in_a_spec_file(tmp_path, capsys):
    err = _check(tmp_path, capsys, CONTEXTS + 'blocks = ["hierarchy"]\n')
    assert err == ("theorykit: error in data.blocks: 1 structure given for k = 3 contexts "
                   "(fix: give one per context, or one name for all)"), err
    err = _check(tmp_path, capsys, CONTEXTS + 'blocks = ["hierarchy", "ring"]\n')       # the plural kept
    assert "2 structures given for k = 3 contexts" in err, err


def test_one_column_for_an_explicit_structure_in_a_spec_file(tmp_path, capsys):
    err = _check(tmp_path, capsys, CONTEXTS + 'n = 1\nk = 2\ncommon = "identity"\nblocks = [[1, 0]]\n')
    assert "error in data.blocks: an explicit structure needs 1 column (n = 1 items), got 2" in err, err


NET = Net.chain(2, [3], 1)
ONE_DATAPOINT = {"data": {"inputs": [[1]], "targets": [[1]]}, "training": {"lr": 0.1}}
NARROW = {"name": "g2", "data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, 0], [0, 1]]},     # Σyx = I/2: rank 2
          "training": {"lr": 0.05, "steps": 10}, "nodes": [{"name": "wide", "width": 3}, {"name": "narrow", "width": 1}],
          "edges": [{"from": "input", "to": "wide"}, {"from": "wide", "to": "narrow"}, {"from": "narrow", "to": "output"}]}

# (the call, words its refusal holds with the count 1)
SINGULAR = [
    (lambda: tk.Task([[1]], [[1, 2]]), "inputs have 1 datapoint (columns) but targets have 2"),
    (lambda: tk.spec_from_dict({**ONE_DATAPOINT, "pathways": [{"name": "a", "active": [1, 0]}]}),
     "give a list of 1 zero or one, or \"all\""),
    (lambda: tk.spec_from_dict({**ONE_DATAPOINT, "pathways": [{"name": "a", "active": "some"}]}),
     "give a list of 1 zero or one, or \"all\""),
    (lambda: tk.contexts(1, 2, common="identity", blocks=np.array([[1, 0]])), "must have 1 column (n=1 items), got 2"),
    (lambda: train_net(NET, {k: np.ones((1,) + s) for k, s in NET.shapes().items()}, (np.ones((2, 4)), np.ones((2, 4))),
                       lr=0.1, steps=2), "do not fit the net's 2 inputs and 1 output with"),
    (lambda: check_weights({"W1": np.ones((2, 3, 2)), "W2": np.ones((1, 1, 3))}, NET), "has 1 seed, other arrays 2"),
    (lambda: RaceSystem.from_data(np.ones((2, 2)), np.ones((1, 2)), [[1]]), "gates cover 1 datapoint, the data 2"),
    (lambda: UnitGates(np.ones((2, 1)), blocks=2), "1 datapoint cannot be split into 2 blocks"),
    (lambda: aligned_net_params(Net.chain(2, [1], 2), np.eye(2), np.eye(2), 1e-3),
     "1 unit (node 'h1') cannot hold the task's rank 2"),
    (lambda: aligned_params(tk.spec_from_dict(NARROW), 1e-3), "1 hidden unit (node 'narrow') cannot hold rank 2"),
    (lambda: Trajectory(t=np.arange(3.0), loss=np.ones((1, 3)), saved={}, saved_t=np.arange(3.0)).loss_at([1.0], batch=1),
     "1 is not a member of this run (1 member: 0)"),
    (lambda: family_a0s(1e-3, 4, 1, masses=[0.5, 0.5]), "2 masses for a family of 1 pathway"),
    (lambda: exact_reln_outputs([np.ones((3, 1)), np.ones((1, 3))], np.ones((2, 4))), "the first layer reads 1 input"),
]


@pytest.mark.parametrize("i", range(len(SINGULAR)))
def test_a_count_of_one_takes_the_singular(i):
    call, words = SINGULAR[i]
    e = _err(call)
    assert re.search(re.escape(words) + r"(?![A-Za-z])", str(e)), str(e)     # "1 pathway", not "1 pathways"


# ------------------------------------------------------------------------------------------------
# 5. to_jax never evaluates a string
# ------------------------------------------------------------------------------------------------
def test_to_jax_refuses_a_string_and_names_the_safe_parser():
    D = sp.Symbol("Delta")
    e = _err(tk.to_jax, "Delta**2", [D])
    assert e.field == "expr" and e.problem.startswith("got a string 'Delta**2'"), str(e)
    assert "tk.to_jax(tk.parse_expr('Delta**2', {'Delta': Delta}), [Delta])" in e.fix, str(e)
    # the fix, followed: Δ² at Δ = 3 is 9
    f = tk.to_jax(tk.parse_expr("Delta**2", {"Delta": D}), [D])
    assert float(f(3.0)) == 9.0


def test_to_jax_evaluates_no_code_in_a_string_or_a_list(monkeypatch):
    """SymPy's sympify runs this string (and a list of such strings): it set the variable before."""
    monkeypatch.delenv("TK_H151_EVALED", raising=False)
    x = sp.Symbol("x")
    code = "__import__('os').environ.setdefault('TK_H151_EVALED', '1')"
    for expr in (code, [code], np.array([code])):
        e = _err(tk.to_jax, expr, [x])
        assert e.field == "expr", str(e)
    assert "TK_H151_EVALED" not in os.environ


def test_to_jax_still_takes_numbers_arrays_and_matrices():
    x = sp.Symbol("x")
    assert float(tk.to_jax(3, [x])(2.0)) == 3.0
    assert float(tk.to_jax(2.5, [x])(2.0)) == 2.5
    np.testing.assert_array_equal(np.asarray(tk.to_jax(np.array([1.0, 2.0]), [x])(2.0)), [1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(tk.to_jax(sp.Matrix([[x, x ** 2]]), [x])(3.0)), [[3.0, 9.0]])
    e = _err(tk.to_jax, [x, x ** 2], [x])           # a list: an AttributeError before
    assert e.field == "expr" and "sp.Matrix" in e.fix, str(e)
