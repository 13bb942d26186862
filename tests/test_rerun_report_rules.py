"""Rules from a reproducibility user of ``theorykit rerun RESULT``, who reruns old results (their own,
a colleague's, one an older theorykit wrote) and wants to know, before and after, what happened.

* The verdict stopped at the first differing field: it now counts the differing numbers (of how
  many) and other fields, shows the first five with both values, says how many more, and gives the
  largest relative difference (exit 1 as before).
* Zeros of either sign are equal numbers (``-0.0 == 0.0``): identical, and the verdict says how many
  came back with the other sign (it said "bit for bit" without a word). A NaN equals a NaN in the
  same place (it was a difference: ``nan == nan`` is false); an infinity equals the same infinity.
* Before it reruns, it says how long the recorded command took (``provenance.elapsed_seconds``, now
  recorded with ``provenance.written``; an older simulate result: its own ``seconds``).
* A record that names no versions (an older theorykit) is noted; ``--rtol`` negative, NaN, 1 or more
  is refused naming --rtol; a record with a relative spec path reruns from another folder.
* A file's integer too large for a float (10**400) was an OverflowError (exit 70), and with --rtol 0
  10**400 + 1 "agreed" with 10**400 (their relative difference rounds to 0.0); a JSON file nested
  too deeply to read was a RecursionError (exit 70): now compared exactly, and refused (exit 2).

Expected values come from hand derivations in the comments (the edits made to a result and their
relative differences) and a second count of the numbers walked over the file in the test, never
pasted from a run of ``rerun``.
"""
from __future__ import annotations

import json
import math
import shutil
import time
from pathlib import Path

import pytest

from theorykit.cli import main
from theorykit.cli.rerun import compare

EX = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """``simulate s.toml --steps 5 --times 0,1,2,3,4,5 --seeds 2 --json sim.json`` run in its own folder
    with relative paths (the aligned start: the seeds agree, so loss.std is all zeros)."""
    import os

    d = tmp_path_factory.mktemp("simrel")
    shutil.copy(EX / "xor_linear.toml", d / "s.toml")
    here = os.getcwd()
    os.chdir(d)
    try:
        assert main(["simulate", "s.toml", "--set", "Delta=0.5", "--seeds", "2", "--steps", "5",
                     "--times", "0,1,2,3,4,5", "--no-progress", "--json", "sim.json"]) == 0
    finally:
        os.chdir(here)
    return d / "sim.json"


def _edited(src: Path, dst: Path, edit) -> Path:
    doc = json.loads(src.read_text())
    edit(doc)
    dst.write_text(json.dumps(doc))
    return dst


def _numbers(doc) -> int:
    """A second count of the numbers the rerun compares: every int or float (not a bool) outside the
    provenance record and the timing fields (``seconds``, ``*_seconds``)."""
    if isinstance(doc, dict):
        return sum(_numbers(v) for k, v in doc.items()
                   if k != "provenance" and k != "seconds" and not k.endswith("_seconds"))
    if isinstance(doc, list):
        return sum(_numbers(v) for v in doc)
    return int(isinstance(doc, (int, float)) and not isinstance(doc, bool))


def test_the_verdict_counts_every_difference_and_shows_the_first_five(sim, tmp_path, capsys):
    """loss.mean[i] scaled by 1 + (i+1)·1e-9 (six numbers) and loss.std removed: seven differences.
    The relative difference of x(1 + e) against x is e / (1 + e): the largest, e = 6e-9, prints as
    6e-09 (3 significant digits). Before: one line naming loss.mean[0] alone."""
    def edit(doc):
        m = doc["loss"]["mean"]
        for i in range(len(m)):
            m[i] = m[i] * (1 + (i + 1) * 1e-9)
        doc["loss"].pop("std")
    bad = _edited(sim, tmp_path / "edited.json", edit)
    n = _numbers(json.loads(sim.read_text())) - 6          # the six zeros of loss.std are not in the file
    assert len(json.loads(bad.read_text())["loss"]["mean"]) == 6
    capsys.readouterr()
    assert main(["rerun", str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("differ:")
    assert f"6 of {n} numbers differ" in lines[0] and "largest relative difference 6e-09" in lines[0]
    assert "1 other field differs" in lines[0]
    shown = lines[1:6]
    assert [s.split(":")[0].strip() for s in shown] == [f"loss.mean[{i}]" for i in range(5)]
    recorded = json.loads(bad.read_text())["loss"]["mean"]
    assert f"recorded {recorded[0]!r}" in shown[0] and "relative difference 1e-09" in shown[0]
    assert lines[6].strip() == "… and 2 more" and len(lines) == 7         # loss.mean[5] and loss.std

    # within --rtol 3.5e-9: 1, 2 and 3e-9 agree; 4, 5 and 6e-9 do not; loss.std still differs
    capsys.readouterr()
    assert main(["rerun", str(bad), "--rtol", "3.5e-9"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert f"3 of {n} numbers differ beyond --rtol 3.5e-09" in lines[0]
    assert [s.split(":")[0].strip() for s in lines[1:]] == ["loss.mean[3]", "loss.mean[4]", "loss.mean[5]",
                                                            "loss.std"]


def test_a_zero_of_the_other_sign_is_identical_and_said(sim, tmp_path, capsys):
    """loss.t[0] is 0.0 (the first time) and loss.std is six zeros (the aligned seeds agree): written as
    -0.0 they are equal numbers, so identical (exit 0), and the verdict counts the 1 + 6 = 7 zeros
    that came back with the other sign."""
    def edit(doc):
        assert doc["loss"]["t"][0] == 0 and doc["loss"]["std"] == [0.0] * 6
        doc["loss"]["t"][0] = -0.0
        doc["loss"]["std"] = [-0.0] * 6
    neg = _edited(sim, tmp_path / "negzero.json", edit)
    assert '"t": [-0.0,' in neg.read_text()
    capsys.readouterr()
    assert main(["rerun", str(neg), "--rtol", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("identical:") and "7 zeros rerun with the other sign" in out


def test_nan_equals_nan_in_the_same_place_and_infinities_their_own_sign():
    nan, inf = math.nan, math.inf
    same = compare({"a": [nan, -0.0, inf, -inf, 1.0]}, {"a": [nan, 0.0, inf, -inf, 1.0]}, 0.0)
    assert same.agree and same.worst == 0 and same.numbers == 5 and same.signs == 1
    # a NaN against a number, an infinity against the other or a finite one: no tolerance admits them
    for a, b in ((nan, 1.0), (1.0, nan), (inf, -inf), (inf, 1e308), (-inf, 0.0)):
        got = compare({"x": a}, {"x": b}, 0.5)
        assert not got.agree and got.differing == 1 and got.worst == inf, (a, b)
    # a NaN in one place is not a NaN in another
    moved = compare([nan, 1.0], [1.0, nan], 0.0)
    assert moved.differing == 2


def test_a_recorded_nan_is_a_difference_in_the_verdict(sim, tmp_path, capsys):
    """A result theorykit writes holds no NaN (it is refused), but a file may (JSON's NaN): against the
    rerun's number it is one differing number, relative difference inf."""
    bad = _edited(sim, tmp_path / "nan.json", lambda doc: doc["loss"]["mean"].__setitem__(2, math.nan))
    capsys.readouterr()
    assert main(["rerun", str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "1 of" in lines[0] and "differs" in lines[0] and "largest relative difference inf" in lines[0]
    assert lines[1].strip().startswith("loss.mean[2]: recorded nan, rerun ")


def test_the_record_holds_how_long_the_command_took_and_when(sim):
    rec = json.loads(sim.read_text())["provenance"]
    assert isinstance(rec["elapsed_seconds"], float) and rec["elapsed_seconds"] >= 0
    written = time.strptime(rec["written"], "%Y-%m-%dT%H:%M:%SZ")
    assert abs(time.mktime(written) - time.mktime(time.gmtime())) < 86400      # today (UTC), not 1970
    assert "started" not in rec["options"]          # the start is no option of the command


def _took(err: str) -> list[str]:
    return [line for line in err.splitlines() if "rerunning a command that took" in line]


def test_the_rerun_says_how_long_the_command_took_before_it_runs(sim, tmp_path, capsys):
    def edit(doc):
        doc["provenance"].update(elapsed_seconds=100.0, written="2020-01-02T03:04:05Z")
    rec = _edited(sim, tmp_path / "took.json", edit)
    capsys.readouterr()
    assert main(["rerun", str(rec)]) == 0
    err = capsys.readouterr().err
    took = _took(err)
    assert len(took) == 1 and "took 100 s" in took[0] and "2020-01-02T03:04:05Z" in took[0]
    lines = err.splitlines()
    assert lines.index(took[0]) < next(i for i, line in enumerate(lines) if line.startswith("rerun: theorykit"))


def test_an_older_simulate_result_says_its_training_time_and_a_record_without_any_says_nothing(
        sim, tmp_path, capsys):
    def older(doc):
        for k in ("elapsed_seconds", "written"):
            doc["provenance"].pop(k)
        doc["seconds"] = 42.0
    rec = _edited(sim, tmp_path / "older.json", older)
    capsys.readouterr()
    assert main(["rerun", str(rec)]) == 0
    took = _took(capsys.readouterr().err)
    assert len(took) == 1 and "took 42 s to train" in took[0]

    def none(doc):
        older(doc)
        doc.pop("seconds")
    rec = _edited(sim, tmp_path / "none.json", none)
    assert main(["rerun", str(rec)]) == 0            # a timing field, gone, is not compared
    assert _took(capsys.readouterr().err) == []


def test_a_crafted_written_time_is_shown_without_terminal_escapes(sim, tmp_path, capsys):
    rec = _edited(sim, tmp_path / "esc.json",
                  lambda doc: doc["provenance"].update(written="\x1b[2Jnow\nidentical: fine"))
    capsys.readouterr()
    assert main(["rerun", str(rec)]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and not any(line.startswith("identical: fine") for line in err.splitlines())


def test_a_record_without_versions_is_noted(sim, tmp_path, capsys):
    rec = _edited(sim, tmp_path / "old.json", lambda doc: doc["provenance"].pop("versions"))
    capsys.readouterr()
    assert main(["rerun", str(rec)]) == 0
    err = capsys.readouterr().err
    assert "theorykit: note: the record names no versions" in err


@pytest.mark.parametrize("value", ["-1", "-1e-12", "nan", "inf", "1", "2"])
def test_a_tolerance_that_is_none_is_refused_naming_rtol(sim, capsys, value):
    capsys.readouterr()
    assert main(["rerun", str(sim), f"--rtol={value}"]) == 2        # '--rtol -1e-12': argparse's own refusal
    err = capsys.readouterr().err
    assert "error in --rtol:" in err and "below 1" in err


def test_a_relative_spec_path_reruns_from_another_folder(sim, tmp_path, monkeypatch, capsys):
    """The command names s.toml relative to its own folder; the spec's text is in the record, so from
    another folder (where no s.toml is) the rerun is the same run: identical."""
    assert json.loads(sim.read_text())["provenance"]["command"].split()[2] == "s.toml"
    monkeypatch.chdir(tmp_path)
    assert not (tmp_path / "s.toml").exists()
    capsys.readouterr()
    assert main(["rerun", str(sim)]) == 0
    assert capsys.readouterr().out.startswith("identical:")


def test_integers_too_large_for_a_float_are_compared_exactly():
    """A file may hold any JSON integer. 10**400 - 1.0 overflowed a float (OverflowError: a bug, exit
    70); by hand |10**400 - 1| / 10**400 rounds to 1.0. 10**400 + 1 against 10**400 is a relative
    difference of 1e-400, 0.0 as a float: with --rtol 0 (bit for bit) it still differs."""
    big = 10 ** 400
    assert compare([big], [1.0], 0.5).worst == 1.0
    assert compare([big + 1], [big], 0.0).differing == 1
    assert compare([big + 1], [big], 1e-12).agree


def test_a_result_nested_too_deeply_to_read_is_refused_not_a_bug(sim, tmp_path, capsys):
    deep = tmp_path / "deep.json"
    deep.write_text(sim.read_text().rstrip()[:-1] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + "}")
    capsys.readouterr()
    assert main(["rerun", str(deep)]) == 2
    assert "theorykit: error in RESULT:" in capsys.readouterr().err
