"""Rules from a referee who reruns a result with one command, ``theorykit rerun RESULT``, as a careful
engineer: docs/reproducibility.md's "step by step" (save ``spec_toml``, substitute it for the spec
path, point the outputs elsewhere, run ``command`` again, compare) done by theorykit itself.

* A result reruns bit for bit (simulate, derive, a predict spec); a hand-edited number is reported as
  a difference naming its field and both values (exit 1); ``--rtol`` accepts a small one.
* A file without a record, a command that is not theorykit's, one that writes no result, an option
  the command does not have: exit 2 naming the field (``provenance``, ``provenance.command``).
* The rerun writes nothing where the recorded command wrote (its outputs go to a temporary folder),
  reads the spec from the record (not the file, which may have changed since), and warns, naming
  the package, where the recorded versions are not the running ones.

Expected values are the first run's own file (an independent run of the command) or hand
derivations in the comments, never pasted from a run of ``rerun``.
"""
from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest

from theorykit.cli import main

EX = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """A small simulate result (--steps 30 --seeds 2), made in its own folder."""
    d = tmp_path_factory.mktemp("sim")
    spec = d / "xor_linear.toml"
    shutil.copy(EX / "xor_linear.toml", spec)
    out = d / "sim.json"
    assert main(["simulate", str(spec), "--set", "Delta=0.5", "--seeds", "2", "--steps", "30", "--times", "0,10,30",
                 "--no-progress", "--json", str(out)]) == 0
    return out


def _edited(src: Path, dst: Path, edit) -> Path:
    doc = json.loads(src.read_text())
    edit(doc)
    dst.write_text(json.dumps(doc))
    return dst


def test_a_simulate_result_reruns_bit_for_bit(sim, tmp_path, capsys):
    new = tmp_path / "new.json"
    assert main(["rerun", str(sim), "--out", str(new)]) == 0
    assert capsys.readouterr().out.startswith("identical:")
    old, again = json.loads(sim.read_text()), json.loads(new.read_text())
    # the rerun ran (its own record names the spec it wrote from spec_toml) and its loss is the old one
    assert again["provenance"]["command"] != old["provenance"]["command"]
    assert again["loss"] == old["loss"] and again["seed"] == old["seed"] == 0


def test_a_hand_edited_number_differs_naming_the_field(sim, tmp_path, capsys):
    def edit(doc):
        doc["loss"]["mean"][1] = doc["loss"]["mean"][1] * (1 + 1e-12)
    bad = _edited(sim, tmp_path / "edited.json", edit)
    assert main(["rerun", str(bad)]) == 1
    out = capsys.readouterr().out
    recorded = json.loads(bad.read_text())["loss"]["mean"][1]
    assert out.startswith("differ:") and "loss.mean[1]" in out and repr(recorded) in out
    # a relative change of 1e-12 is within --rtol 1e-9 (and not within 1e-13)
    assert main(["rerun", str(bad), "--rtol", "1e-9"]) == 0
    assert capsys.readouterr().out.startswith("agree to --rtol 1e-09")
    assert main(["rerun", str(bad), "--rtol", "1e-13"]) == 1


def test_an_added_or_removed_field_differs(sim, tmp_path, capsys):
    bad = _edited(sim, tmp_path / "edited.json", lambda doc: doc["loss"].pop("std"))
    assert main(["rerun", str(bad)]) == 1
    assert "loss.std" in capsys.readouterr().out


@pytest.mark.parametrize("edit, field", [
    (lambda doc: doc.pop("provenance"), "provenance"),
    (lambda doc: doc["provenance"].update(command="rm -rf ~"), "provenance.command"),
    (lambda doc: doc["provenance"].update(command="python -c 'print(1)'"), "provenance.command"),
    (lambda doc: doc["provenance"].update(command="theorykit validate all --out /"), "provenance.command"),
    (lambda doc: doc["provenance"].update(command=doc["provenance"]["command"] + " --bogus 1"),
     "provenance.command"),
    (lambda doc: doc["provenance"].update(command=doc["provenance"]["command"] + " --help"), "provenance.command"),
    (lambda doc: doc["provenance"].update(command="theorykit simulate 'unclosed"), "provenance.command"),
    (lambda doc: doc["provenance"].update(command=None), "provenance.command"),
    (lambda doc: doc["provenance"].update(versions=["numpy"]), "provenance.versions"),
    (lambda doc: doc["provenance"].update(inputs="s.toml"), "provenance.inputs"),
    # the command's own parser refuses it (argparse exits): the rerun says so, it does not exit with it
    (lambda doc: doc["provenance"].update(command=doc["provenance"]["command"] + " --steps many"),
     "provenance.command"),
])
def test_a_file_that_cannot_be_rerun_exits_2_naming_the_field(sim, tmp_path, capsys, edit, field):
    bad = _edited(sim, tmp_path / "bad.json", edit)
    assert main(["rerun", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"theorykit: error in {field}:" in err and "fix:" in err


def test_not_json_and_a_spec_without_a_record_exit_2(tmp_path, capsys):
    (tmp_path / "x.json").write_text("{not json")
    assert main(["rerun", str(tmp_path / "x.json")]) == 2
    assert "error in RESULT:" in capsys.readouterr().err
    assert main(["rerun", str(EX / "xor_linear.toml")]) == 2      # a hand-written spec records nothing
    assert "error in provenance:" in capsys.readouterr().err


def test_a_derive_result_reruns_identical_from_the_recorded_spec_and_writes_nothing_of_its_own(tmp_path, capsys):
    """By hand (docs/theory.md#xor): the positive pathway's singular value is Δ/2 = 1/4 at Δ = 1/2. The spec
    file is replaced after the run: the rerun reads the record's spec_toml, not the file; and the
    recorded --latex path is not written again (the rerun's outputs go to a temporary folder)."""
    spec, out, tex = tmp_path / "s.toml", tmp_path / "d.json", tmp_path / "d.tex"
    shutil.copy(EX / "xor_linear.toml", spec)
    assert main(["derive", str(spec), "--set", "Delta=1/2", "--json", str(out), "--latex", str(tex)]) == 0
    assert json.loads(out.read_text())["pathways"]["positive"]["singular_values"] == ["1/4"]
    tex.unlink()
    spec.write_text("this is no longer the spec")
    before = out.read_bytes()
    capsys.readouterr()
    assert main(["rerun", str(out)]) == 0
    assert capsys.readouterr().out.startswith("identical:")
    assert not tex.exists() and out.read_bytes() == before


def test_a_changed_input_file_is_refused(tmp_path, capsys):
    """An input without its text in the record (here --init-weights) must still have its SHA-256."""
    import numpy as np

    spec, w, out = tmp_path / "s.toml", tmp_path / "w.npz", tmp_path / "sim.json"
    shutil.copy(EX / "xor_linear.toml", spec)
    rng = np.random.default_rng(0)
    # xor_linear's GDLN: input (3) -> positive, negative (64 units each) -> output (1)
    weights = {"input->positive": rng.normal(0, 0.1, (64, 3)), "input->negative": rng.normal(0, 0.1, (64, 3)),
               "positive->output": rng.normal(0, 0.1, (1, 64)), "negative->output": rng.normal(0, 0.1, (1, 64))}
    np.savez(w, **weights)
    assert main(["simulate", str(spec), "--set", "Delta=0.5", "--init-weights", str(w), "--steps", "5",
                 "--no-progress", "--json", str(out)]) == 0
    weights["input->positive"] = weights["input->positive"] * 2
    np.savez(w, **weights)
    capsys.readouterr()
    assert main(["rerun", str(out)]) == 2
    assert "error in provenance.inputs.init_weights:" in capsys.readouterr().err


def test_other_versions_are_named_in_a_warning(sim, tmp_path, capsys):
    old = _edited(sim, tmp_path / "old.json", lambda doc: doc["provenance"]["versions"].update(numpy="1.0.0"))
    assert main(["rerun", str(old)]) == 0      # the numbers are still this NumPy's
    err = capsys.readouterr().err
    assert "warning" in err and "numpy 1.0.0 ->" in err


def test_a_predict_spec_reruns_from_its_first_line(tmp_path, capsys):
    pred = tmp_path / "pred.toml"
    assert main(["predict", str(EX / "predict" / "xor_data.toml"), "--hidden", "8", "--set", "Delta=0.5",
                 "--out", str(pred), "--no-progress"]) == 0
    first = pred.read_text().split("\n", 1)[0]
    assert shlex.split(json.loads(first.split(": ", 1)[1])["command"])[:2] == ["theorykit", "predict"]
    capsys.readouterr()
    assert main(["rerun", str(pred)]) == 0
    assert capsys.readouterr().out.startswith("identical:")


def test_out_may_not_be_the_result_itself(sim, capsys):
    before = sim.read_bytes()
    assert main(["rerun", str(sim), "--out", str(sim)]) == 2
    assert "error in --out:" in capsys.readouterr().err and sim.read_bytes() == before


def test_the_rerun_keeps_its_own_interrupt_check_for_its_out_file(sim, tmp_path, monkeypatch):
    """The rerun runs the command through main(), which clears io.before_commit (the command line's
    check for a dropped Ctrl-C before a file is committed) when it ends: the rerun's own --out write,
    after it, must still run the check."""
    import argparse

    from theorykit import io
    from theorykit.cli import rerun

    calls = []
    monkeypatch.setattr(io, "before_commit", lambda: calls.append(1))
    args = argparse.Namespace(result=str(sim), out=str(tmp_path / "new.json"), rtol=0.0)
    assert rerun.run(args) == 0
    assert calls and (tmp_path / "new.json").is_file()


def test_the_temporary_folder_is_removed_by_the_sigterm_clean_up_too(sim, monkeypatch):
    """SIGTERM while the rerun's command is inside a long computation ends the process at once,
    removing only what io.PENDING names (theorykit.cli._Watchdog): a rerun sent SIGTERM 5 s into
    ``race-exhaust --k 3 --race-dt 40`` left its empty theorykit-rerun-* folder in /tmp. While the
    command runs, the folder holding its spec and outputs is in io.PENDING; afterwards it is not."""
    import theorykit.cli as cli
    from theorykit import io

    real, seen = cli.main, []

    def watching(argv):
        spec = Path(argv[1])            # simulate SPEC …: the rerun's spec, written from spec_toml
        seen.append(str(spec.parent) in io.PENDING)
        return real(argv)

    monkeypatch.setattr(cli, "main", watching)
    assert real(["rerun", str(sim)]) == 0
    assert seen == [True] and not any("theorykit-rerun-" in str(p) for p in io.PENDING)


def test_file_sha256_reads_in_blocks_and_matches_hashlib(tmp_path):
    """The one hash of an input (recorded by provenance, checked by rerun), read a megabyte at a time:
    the empty file's SHA-256 is the standard e3b0c442…b855 (FIPS 180-4 test vector), and a file of
    3 MiB + 5 bytes (blocks of unequal size) hashes as hashlib does on the whole bytes."""
    import hashlib

    from theorykit.cli.common import file_sha256

    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert file_sha256(empty) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    data = bytes(range(256)) * (3 * 4096) + b"tail!"
    big = tmp_path / "big.npz"
    big.write_bytes(data)
    assert file_sha256(big) == hashlib.sha256(data).hexdigest()
