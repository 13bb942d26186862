"""A spec file's data numbers must be 0 or within 1e-6 … 1e6 in magnitude (docs/specs.md, docs/api.md);
a Python ``Task`` takes any finite number. ``spec_to_toml`` (and every command that writes a spec)
refuses a task whose data a spec file cannot hold, before anything is written, naming the entry as
``load_spec`` names it; before, it wrote a file that ``load_spec`` then refused (the results were lost
at the next step). The bounds are the ones load_spec applies: 1e-6 and 1e6 are taken, just outside not.
"""
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.cli import main
from theorykit.errors import SpecError
from theorykit.spec.files import load_spec, spec_to_toml

# (value, how a spec file writes it): the range's edges by hand, 1e-6 = 1/10**6, 1e6 = 10**6
INSIDE = [(sp.Rational(1, 10 ** 6), '"1/1000000"'), (-sp.Rational(1, 10 ** 6), '"-1/1000000"'),
          (sp.Integer(10 ** 6), "1000000"), (-sp.Integer(10 ** 6), "-1000000"), (sp.Integer(0), "0")]
# just outside: 999999/10**12 = 1e-6 − 1e-12, (10**12 + 1)/10**6 = 1e6 + 1e-6, 10**6 + 1
OUTSIDE = [(sp.Rational(999999, 10 ** 12), '"999999/1000000000000"', "too small"),
           (-sp.Rational(999999, 10 ** 12), '"-999999/1000000000000"', "too small"),
           (sp.Rational(10 ** 12 + 1, 10 ** 6), '"1000000000001/1000000"', "too large"),
           (sp.Integer(10 ** 6 + 1), "1000001", "too large")]


def _spec(v):
    """Two datapoints, x = (1, v) and (1, 0), one target row: the entry v at data.inputs[1][0]."""
    X = sp.Matrix([[1, 1], [v, 0]])
    return tk.GDLNSpec(tk.Task(X, sp.Matrix([[1, 0]])), [tk.Pathway("all", (1, 1))])


def _file(entry):
    return ('name = "s"\n\n[data]\ninputs = [[1, 1], [' + entry + ', 0]]\ntargets = [[1, 0]]\n\n'
            '[[pathways]]\nname = "all"\nactive = [1, 1]\n')


def test_spec_to_toml_refuses_an_entry_a_spec_file_cannot_hold(tmp_path):
    X = sp.Matrix([[1, sp.Rational(1, 5000000)], [1, 0]])          # 2e-7: below 1e-6
    spec = tk.GDLNSpec(tk.Task(X, sp.Matrix([[1, 0]])), [tk.Pathway("all", (1, 1))])
    out = tmp_path / "s.toml"
    with pytest.raises(SpecError) as err:
        out.write_text(spec_to_toml(spec))
    assert not out.exists()
    e = err.value
    assert e.field == "data.inputs[0][1]"
    assert "'1/5000000' is too small" in e.problem and "2e-7" in e.problem and "1e-6" in e.problem
    assert "rescale" in e.fix and "common factor" in e.fix and "write 0" in e.fix
    # the same task in floats, and a target too large: the entry named, the range given
    big = tk.Task(np.array([[1.0, 0.0]]), np.array([[2.5e6, 1.0]]))
    with pytest.raises(SpecError, match="at most 1e6") as err:
        spec_to_toml(tk.GDLNSpec(big, [tk.Pathway("all", (1, 1))]))
    assert err.value.field == "data.targets[0][0]" and "'2500000' is too large" in err.value.problem


@pytest.mark.parametrize("v,text", INSIDE)
def test_the_range_edges_are_written_and_read_back(tmp_path, v, text):
    path = tmp_path / "s.toml"
    path.write_text(spec_to_toml(_spec(v)))
    assert load_spec(path).task.X[1, 0] == v
    # load_spec takes the same entry written by hand
    path.write_text(_file(text))
    assert load_spec(path).task.X[1, 0] == v


@pytest.mark.parametrize("v,text,says", OUTSIDE)
def test_just_outside_the_range_writer_and_reader_agree(tmp_path, v, text, says):
    with pytest.raises(SpecError) as wrote:
        spec_to_toml(_spec(v))
    path = tmp_path / "s.toml"
    path.write_text(_file(text))                  # the file the writer used to write, by hand
    with pytest.raises(SpecError) as read:
        load_spec(path)
    assert wrote.value.field == read.value.field == "data.inputs[1][0]"
    assert says in wrote.value.problem and says in read.value.problem


def test_find_gates_out_refuses_imported_data_out_of_range_cleanly(tmp_path, capsys):
    """find-gates on an imported run (--checkpoints, --data) whose inputs hold 3e-7: exit 2, one error
    line naming --out and the entry, no traceback, no file (nor a temporary one) left."""
    rng = np.random.default_rng(1)
    np.savez(tmp_path / "data.npz", X=np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, 3e-7]]),
             Y=np.array([[1.0, 1, -1, -1]]))
    for s in (0, 10):
        np.savez(tmp_path / f"step_{s}.npz", W1=0.1 * rng.standard_normal((4, 3)), W2=0.1 * rng.standard_normal((1, 4)))
    out = tmp_path / "found.toml"
    rc = main(["find-gates", "--checkpoints", str(tmp_path / "step_*.npz"), "--data", str(tmp_path / "data.npz"),
               "--lr", "0.05", "--K", "1", "--no-progress", "--out", str(out)])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "error in --out:" in err and "data.inputs[2][3]" in err and "too small" in err
    assert "Traceback" not in err
    assert not out.exists()
    assert sorted(p.name for p in Path(tmp_path).iterdir()) == ["data.npz", "step_0.npz", "step_10.npz"]
