"""Rules from a careful, security-minded engineer closing an integrity gap in ``theorykit rerun``.

rerun checked the SHA-256 of each file listed in ``provenance.inputs``, but not that the files the
recorded command reads are the listed ones: a crafted record with ``"inputs": {}`` (or listing one
file while its command names another) reran on files nobody verified and still said ``identical``
when the numbers agreed. Now every input-file option of the command (``--init-weights``, ``--data``,
the spec where no ``spec_toml`` is recorded) must have an entry in ``provenance.inputs`` with the
command's path (and, as before, the recorded SHA-256); else exit 2 naming the field. A built-in task
of ``find-gates`` (``xor-margin``) is not a file and needs no entry. A ``--checkpoints`` glob is not
hashed (docs/reproducibility.md): the note saying so follows the command, not the record's options.

Expected values: the first run's own result file (an independent run of the command) and the
fields named in docs/reproducibility.md; nothing is pasted from a run of ``rerun``.
"""
from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import numpy as np
import pytest

from theorykit.cli import main

EX = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """``simulate --init-weights w.npz --steps 30 --seeds 2``: the result and its folder."""
    d = tmp_path_factory.mktemp("simw")
    spec, w, out = d / "s.toml", d / "w.npz", d / "sim.json"
    shutil.copy(EX / "xor_linear.toml", spec)
    rng = np.random.default_rng(0)
    # xor_linear's GDLN: input (3) -> positive, negative (64 units each) -> output (1)
    np.savez(w, **{"input->positive": rng.normal(0, 0.1, (64, 3)), "input->negative": rng.normal(0, 0.1, (64, 3)),
                   "positive->output": rng.normal(0, 0.1, (1, 64)), "negative->output": rng.normal(0, 0.1, (1, 64))})
    assert main(["simulate", str(spec), "--set", "Delta=0.5", "--init-weights", str(w), "--seeds", "2",
                 "--steps", "30", "--times", "0,10,30", "--no-progress", "--json", str(out)]) == 0
    return out


def _crafted(src: Path, dst: Path, edit) -> Path:
    doc = json.loads(src.read_text())
    edit(doc["provenance"])
    dst.write_text(json.dumps(doc))
    return dst


def test_a_listed_and_matching_init_weights_file_reruns_identical(sim, capsys):
    rec = json.loads(sim.read_text())["provenance"]
    assert rec["inputs"]["init_weights"]["path"] in shlex.split(rec["command"])   # the record as written
    capsys.readouterr()
    assert main(["rerun", str(sim)]) == 0
    assert capsys.readouterr().out.startswith("identical:")


def test_an_unlisted_init_weights_file_is_refused_naming_the_field(sim, tmp_path, capsys):
    # the same numbers (the same file), but the record vouches for no file: before, "identical"
    bad = _crafted(sim, tmp_path / "crafted.json", lambda rec: rec.update(inputs={}))
    capsys.readouterr()
    assert main(["rerun", str(bad)]) == 2
    captured = capsys.readouterr()
    assert "error in provenance.inputs.init_weights:" in captured.err and "--init-weights" in captured.err
    assert not captured.out.startswith("identical")


def test_a_command_naming_another_file_than_the_listed_one_is_refused(sim, tmp_path, capsys):
    # other.npz is a byte-for-byte copy (so the numbers would agree), but it is not the file hashed
    rec = json.loads(sim.read_text())["provenance"]
    listed = rec["inputs"]["init_weights"]["path"]
    other = tmp_path / "other.npz"
    shutil.copy(listed, other)

    def edit(r):
        r["command"] = r["command"].replace(shlex.quote(listed), shlex.quote(str(other)))
    bad = _crafted(sim, tmp_path / "crafted.json", edit)
    assert str(other) in json.loads(bad.read_text())["provenance"]["command"]
    capsys.readouterr()
    assert main(["rerun", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "error in provenance.inputs.init_weights:" in err and "other.npz" in err


def test_the_spec_path_must_be_listed_where_no_spec_text_is_recorded(sim, tmp_path, capsys):
    def edit(rec):
        rec["spec_toml"] = None
        rec["inputs"].pop("spec")
    bad = _crafted(sim, tmp_path / "crafted.json", edit)
    capsys.readouterr()
    assert main(["rerun", str(bad)]) == 2
    assert "error in provenance.inputs.spec:" in capsys.readouterr().err


def test_a_built_in_task_is_not_a_file_and_needs_no_entry(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", "--seeds", "1", "--steps", "100", "--K", "2",
                 "--hidden", "8", "--no-progress", "--out", "found.toml"]) == 0
    first = (tmp_path / "found.toml").read_text().split("\n", 1)[0]
    assert json.loads(first.split(": ", 1)[1])["inputs"] == {}       # nothing read from a file
    capsys.readouterr()
    assert main(["rerun", "found.toml"]) == 0
    assert capsys.readouterr().out.startswith("identical:")


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    """``find-gates --checkpoints GLOB --data data.npz --K 1``: your own run (random 3 -> 4 -> 1 ReLU
    weights at steps 0, 100, 200 on XoR with margin 0.5), its found spec."""
    d = tmp_path_factory.mktemp("ckpt")
    rng = np.random.default_rng(0)
    np.savez(d / "data.npz", X=np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]]),
             Y=np.array([[1.0, 1, -1, -1]]))
    for s in (0, 100, 200):
        np.savez(d / f"step_{s}.npz", W1=0.1 * rng.standard_normal((4, 3)), W2=0.1 * rng.standard_normal((1, 4)))
    out = d / "found.toml"
    assert main(["find-gates", "--checkpoints", str(d / "step_*.npz"), "--data", str(d / "data.npz"), "--lr", "0.1",
                 "--K", "1", "--no-progress", "--out", str(out)]) == 0
    return out


def _crafted_spec(src: Path, dst: Path, edit) -> Path:
    first, rest = src.read_text().split("\n", 1)
    head, rec = first.split(": ", 1)
    rec = json.loads(rec)
    edit(rec)
    dst.write_text(f"{head}: {json.dumps(rec)}\n{rest}")
    return dst


def test_an_unlisted_data_file_is_refused_naming_the_field(found, tmp_path, capsys):
    capsys.readouterr()
    assert main(["rerun", str(found)]) == 0          # the record as written: --data listed, same SHA-256
    assert capsys.readouterr().out.startswith("identical:")
    bad = _crafted_spec(found, tmp_path / "crafted.toml", lambda rec: rec.update(inputs={}))
    assert main(["rerun", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "error in provenance.inputs.data:" in err and "--data" in err


def test_the_checkpoints_note_follows_the_command_not_the_recorded_options(found, tmp_path, capsys):
    # docs/reproducibility.md: checkpoint globs are not hashed; a record whose options leave the glob
    # out (its command still reads it) must not hide that
    quiet = _crafted_spec(found, tmp_path / "crafted.toml", lambda rec: rec["options"].update(checkpoints=None))
    capsys.readouterr()
    assert main(["rerun", str(quiet)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("identical:") and "--checkpoints files are not hashed" in captured.err
