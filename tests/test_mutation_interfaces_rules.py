"""Rules of the interfaces layer (theorykit/cli/, theorykit/io.py, theorykit/progress.py,
theorykit/report.py) that a mutation tester of that layer found unpinned.

These came from a sceptical test engineer mutating the interfaces by hand (a dropped check before a
write, a comparison flipped at its boundary, an exit status changed, a field left out of a
provenance record): each small change that no test caught and that a user would notice became a
test here. Every expected value comes from the documented behaviour (docs/cli.md and ``--help``,
docs/reproducibility.md, the docstrings the command line's behaviour is stated in) or from a hand
derivation written beside it, never from a run of the code under test."""
from __future__ import annotations

import json
import os
import time

import pytest

import theorykit.io as tio


# ------------------------------------------------------------------------------------------------
# atomic writes
# ------------------------------------------------------------------------------------------------
def test_a_dropped_ctrl_c_stops_a_write_into_a_device_too(monkeypatch):
    """theorykit.cli._Interrupt: after a Ctrl-C that Python dropped "no result file is committed"
    (io.before_commit raises KeyboardInterrupt). A device or a pipe (/dev/null, a FIFO) is written as
    it is, without a temporary file; it too must be asked first, not written."""
    def dropped():
        raise KeyboardInterrupt
    monkeypatch.setattr(tio, "before_commit", dropped)
    with pytest.raises(KeyboardInterrupt):
        tio.atomic_write_text(os.devnull, "{}")


def test_the_sweep_of_stale_temporaries_leaves_a_users_dot_tk_files(tmp_path, monkeypatch):
    """Only a killed writer's own temporary file, ``.tk<pid>-….tmp``, is swept (io._sweep_stale):
    a user's ``.tkrc`` or ``.tk-notes.txt`` in the output folder, however old, is theirs."""
    monkeypatch.setattr(tio, "_SWEPT", set())
    old = time.time() - 2 * 3600
    mine = [tmp_path / ".tkrc", tmp_path / ".tk99999999-notes.txt"]
    for f in mine:
        f.write_text("a user's file")
        os.utime(f, (old, old))
    tio.atomic_write_text(tmp_path / "result.json", "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f.name for f in mine] + ["result.json"])


# ------------------------------------------------------------------------------------------------
# rerun: what "agree" means (docs/reproducibility.md; rerun.compare's docstring)
# ------------------------------------------------------------------------------------------------
def test_rerun_compare_leaves_out_timing_fields_and_the_record():
    """"every number (timing fields and the record left out)": ``seconds`` and any ``*_seconds``."""
    from theorykit.cli.rerun import compare

    old = {"loss": [1.0, 0.5], "seconds": 1.0, "estimated_seconds": 3.0, "provenance": {"command": "a"}}
    new = {"loss": [1.0, 0.5], "seconds": 9.0, "estimated_seconds": 7.0, "provenance": {"command": "b"}}
    found = compare(old, new, 0.0)
    assert found.agree and found.worst == 0.0 and found.numbers == 2     # the two losses, nothing else


def test_rerun_compare_counts_a_difference_of_exactly_rtol_as_agreement():
    """"within --rtol of the larger": 3 against 4 differ by 1, a quarter of the larger (exactly, in
    binary), so they agree at --rtol 0.25 and differ at any smaller tolerance."""
    from theorykit.cli.rerun import compare

    assert compare({"x": 4.0}, {"x": 3.0}, 0.25).agree
    assert compare({"x": 4.0}, {"x": 3.0}, 0.25).worst == 0.25
    assert compare({"x": 4.0}, {"x": 3.0}, 0.2499).shown == [("x", 4.0, 3.0, 0.25)]


def test_rerun_compare_a_list_of_another_length_differs():
    """A curve with one value more is a difference (its length), not the shared values agreeing."""
    from theorykit.cli.rerun import compare

    found = compare({"t": [0, 10]}, {"t": [0, 10, 30]}, 0.0)
    assert not found.agree and found.shown == [("t (length)", 2, 3, None)]


@pytest.mark.parametrize("old, new", [(True, 1), (1, True), (False, 0.0), ("1", 1), (None, 0)])
def test_rerun_compare_a_value_of_another_kind_differs(old, new):
    """"everything else must be equal": ``true`` in JSON is not the number 1 (Python's True == 1 is
    no agreement), a string is not a number; 1 and 1.0 are both numbers and agree."""
    from theorykit.cli.rerun import compare

    assert compare({"v": old}, {"v": new}, 0.5).shown == [("v", old, new, None)]
    assert compare({"v": 1}, {"v": 1.0}, 0.0).agree


def test_rerun_version_changes_names_only_the_changed_versions(monkeypatch):
    """The warning names each version the record and this process both know that differs: the
    record's ``numpy 1.0`` against a running 2.0, and nothing for an equal or an unknown one."""
    import theorykit.cli.rerun as rr

    monkeypatch.setattr(rr, "software_versions", lambda: {"numpy": "2.0", "python": "3.12.1", "jax": None})
    assert rr.version_changes({"numpy": "1.0", "python": "3.12.1", "jax": None, "gone": "9"}) == ["numpy 1.0 -> 2.0"]


def test_rerun_printable_escapes_what_would_drive_the_terminal():
    """The recorded command comes from a file anyone may write: a newline or a terminal escape in it
    is shown as its escape (``\\n``, ``\\x1b``), never sent to the terminal."""
    from theorykit.cli.rerun import printable

    assert printable("a\nb\x1b[2Jc") == "a\\nb\\x1b[2Jc"
    assert printable("Delta=0.5 é") == "Delta=0.5 é"     # printable text, non-ASCII included, as it is


# ------------------------------------------------------------------------------------------------
# provenance: what a result records (docs/reproducibility.md)
# ------------------------------------------------------------------------------------------------
EX = __import__("pathlib").Path(__file__).resolve().parent.parent / "examples"


def _args(*argv):
    from theorykit.cli.parser import build_parser

    args = build_parser().parse_args(list(argv))
    args.argv = list(argv)
    return args


def test_provenance_records_every_option_as_read_defaults_included(tmp_path):
    """"every option as it was read, defaults included (options)": each option of the parsed command
    but the bookkeeping ones, with its value (``--seed 3`` as 3, the default ``--dtype`` as float64)."""
    from theorykit.cli.common import provenance

    args = _args("simulate", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--seed", "3")
    opts = provenance(args)["options"]
    assert opts["seed"] == 3 and opts["dtype"] == "float64" and opts["set"] == ["Delta=0.5"]
    assert set(opts) == set(vars(args)) - {"argv", "module", "debug"}


def test_provenance_keeps_the_typed_path_of_an_input_and_its_sha256(tmp_path, monkeypatch):
    """"the SHA-256 of each file read (inputs)" under the path as the command names it: a relative
    path stays relative ("The working directory (left out on purpose)"), so that rerun, run in that
    folder, finds the file by it. --init-weights is a file read, as the spec is."""
    import hashlib

    from theorykit.cli.common import provenance

    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_bytes((EX / "xor_linear.toml").read_bytes())
    (tmp_path / "w.npz").write_bytes(b"not really weights")     # hashed as bytes, not read as weights
    rec = provenance(_args("simulate", "s.toml", "--init-weights", "w.npz"))
    assert rec["inputs"]["spec"] == {"path": "s.toml",
                                     "sha256": hashlib.sha256((EX / "xor_linear.toml").read_bytes()).hexdigest()}
    assert rec["inputs"]["init_weights"] == {"path": "w.npz",
                                             "sha256": hashlib.sha256(b"not really weights").hexdigest()}


def test_provenance_command_splits_back_into_the_arguments_typed():
    """``command``: the command line as typed, as shell words: a path with a space splits back whole."""
    import shlex

    from theorykit.cli.common import provenance

    rec = provenance(_args("derive", "my spec.toml", "--set", "Delta=1/2"))
    assert shlex.split(rec["command"]) == ["theorykit", "derive", "my spec.toml", "--set", "Delta=1/2"]


def test_provenance_versions_name_the_computing_packages():
    """"the versions of theorykit, Python, JAX, NumPy, SciPy, SymPy and python-flint"."""
    from theorykit.cli.common import provenance

    versions = provenance(_args("derive", str(EX / "xor_linear.toml")))["versions"]
    assert {"theorykit", "python", "jax", "numpy", "scipy", "sympy", "flint"} <= set(versions)
    assert versions["python"] == __import__("platform").python_version()


def test_provenance_of_an_infinite_time_limit_is_written_as_text():
    """--time-limit inf (no limit) is recorded as its text: JSON has no infinity, and a result
    with NaN or infinity is refused, so the record must not make one."""
    from theorykit.cli.common import provenance

    rec = provenance(_args("derive", str(EX / "xor_linear.toml"), "--time-limit", "inf"))
    assert rec["options"]["time_limit"] == "inf"
    json.dumps(tio.jsonable(rec), allow_nan=False)


def test_values_are_recorded_as_exact_text():
    """``values``: the --set values as exact text (``1/2``, ``sqrt(2)``), not as rounded floats."""
    import sympy as sp

    from theorykit.cli.common import values_record

    D, g = sp.symbols("Delta gamma")
    assert values_record({g: sp.sqrt(2), D: sp.Rational(1, 2)}) == {"Delta": "1/2", "gamma": "sqrt(2)"}


# ------------------------------------------------------------------------------------------------
# option ranges stated in --help (docs/cli.md)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn, option, bad, good", [
    ("seed_arg", "--seed", [-1, 2 ** 32], [0, 2 ** 32 - 1]),     # "0 to 2**32 - 1"
    ("steps_arg", "--steps", [0, -5], [1]),                     # a positive number of steps
    ("seeds_arg", "--seeds", [0, -1], [1]),                     # a positive number of networks
])
def test_option_ranges_are_those_the_help_states(fn, option, bad, good):
    from theorykit.cli import common
    from theorykit.errors import SpecError

    for v in good:
        assert getattr(common, fn)(v) == v
    for v in bad:
        with pytest.raises(SpecError) as e:
            getattr(common, fn)(v)
        assert e.value.field == option


def test_check_estimates_the_default_four_seeds(capsys):
    """--help: "--seeds SEEDS  independent networks trained at once (default 4)"; check prints the
    simulation it would run."""
    from theorykit.cli import main

    assert main(["check", str(EX / "xor_linear.toml"), "--set", "Delta=0.5"]) == 0
    assert "4 seeds" in capsys.readouterr().out


# ------------------------------------------------------------------------------------------------
# result files: NaN and infinity are never written
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_a_non_finite_number_is_refused_naming_where_it_sits(tmp_path, bad):
    """io.jsonable: "refuses NaN and infinity (they are never written): a SpecError ... whose field
    is where the number sits, e.g. ``result['loss'][3]``"; the file is not written."""
    from theorykit.errors import SpecError

    path = tmp_path / "r.json"
    with pytest.raises(SpecError) as e:
        tio.write_json(path, {"loss": [1.0, 0.5, 0.25, bad]})
    assert e.value.field == "result['loss'][3]"
    assert not path.exists()


def test_numpy_booleans_are_written_as_json_booleans(tmp_path):
    """A numpy bool (a gate, a verdict) is written as JSON's ``true``, not as the number 1."""
    import numpy as np

    path = tio.write_json(tmp_path / "r.json", {"gate": np.bool_(True), "gates": np.array([True, False])})
    assert path.read_text().split() == ["{", '"gate":', "true,", '"gates":', "[", "true,", "false", "]", "}"]


def test_an_old_temporary_of_another_users_process_is_not_swept(tmp_path, monkeypatch):
    """io._sweep_stale: "another writer's file is never touched". A process of another user cannot
    be signalled (os.kill raises PermissionError) but runs: its temporary file stays, however old."""
    monkeypatch.setattr(tio, "_SWEPT", set())

    def kill(pid, sig):
        raise PermissionError(1, "Operation not permitted")
    monkeypatch.setattr(tio.os, "kill", kill)
    theirs = tmp_path / ".tk424242-abc.tmp"
    theirs.write_text("partial")
    old = time.time() - 2 * 3600
    os.utime(theirs, (old, old))
    tio.atomic_write_text(tmp_path / "result.json", "{}")
    assert theirs.exists()


def _non_finite_others():
    import decimal

    import sympy as sp

    x = sp.Symbol("x")
    return [sp.oo, -sp.oo, sp.zoo, sp.nan, sp.Piecewise((sp.oo, x > 0), (1, True)),
            decimal.Decimal("Infinity"), decimal.Decimal("NaN"), complex(1, float("inf"))]


@pytest.mark.parametrize("bad", _non_finite_others(), ids=str)
def test_a_non_finite_symbolic_or_decimal_value_is_refused(tmp_path, bad):
    """SymPy's oo, -oo, zoo and nan (or an expression holding one), a non-finite Decimal or complex
    were written as the text "oo", "nan": they are refused as a float infinity is."""
    from theorykit.errors import SpecError

    with pytest.raises(SpecError) as e:
        tio.write_json(tmp_path / "r.json", {"limit": bad})
    assert e.value.field == "result['limit']"
    assert not (tmp_path / "r.json").exists()


def test_a_figure_path_in_capitals_is_written_in_its_format(tmp_path):
    """FIGURE_FORMATS: the format is the one the path's ending names, whatever its case (a camera's
    or Windows' habit, ``FIG.PNG``): a PNG there, not a refusal."""
    fig = tio.new_figure(figsize=(1, 1))
    fig.add_subplot().plot([0, 1], [1, 0])
    path = tio.write_figure(fig, tmp_path / "FIG.PNG")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"        # the PNG signature


@pytest.mark.parametrize("n, text", [(0, "0 pathways"), (1, "1 pathway"), (2, "2 pathways")])
def test_counted_nouns_are_plural_unless_one(n, text):
    """English: "0 pathways", "1 pathway", "2 pathways" (the counts a command prints)."""
    assert tio.counted(n, "pathway") == text


# ------------------------------------------------------------------------------------------------
# rerun: the record is data; what it runs and where it writes (docs/reproducibility.md)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [
    "sh -c 'rm -rf ~'",                         # not theorykit
    "python derive s.toml",                     # another program, whatever its arguments
    "theorykit check s.toml",                   # writes no result with a record
    "theorykit validate all --out r",           # nor this
    "theorykit --distributed simulate s.toml",  # a multi-host run is not rerun here
    "theorykit",
])
def test_rerun_refuses_a_command_it_does_not_rerun(command):
    """"Only derive, simulate, predict, find-gates, compare and race-exhaust are rerun"; the field
    named is provenance.command."""
    from theorykit.cli.rerun import split_command
    from theorykit.errors import SpecError

    with pytest.raises(SpecError) as e:
        split_command({"command": command})
    assert e.value.field == "provenance.command"


def test_rerun_points_every_output_into_its_folder_and_reads_the_recorded_spec(tmp_path):
    """"the spec as the result recorded it (spec_toml) in a temporary file, in place of the spec
    path; every output option (--json, --out, --plot, --latex, --html) pointed into a temporary
    folder": nothing is written where the recorded command wrote."""
    from theorykit.cli.rerun import rewrite

    read = []
    new, res = rewrite(["derive", "s.toml", "--set", "Delta=0.5", "--latex", "paper.tex", "--plot", "fig.png",
                        "--json", "out.json"], str(tmp_path / "spec.toml"), tmp_path, "json", read)
    assert new[:4] == ["derive", str(tmp_path / "spec.toml"), "--set", "Delta=0.5"]
    for option in ("--latex", "--plot", "--json"):
        written = new[new.index(option) + 1]
        assert os.path.commonpath([written, str(tmp_path)]) == str(tmp_path), option
    assert new[new.index("--json") + 1] == str(res) and res.parent == tmp_path
    assert read == []                            # the spec is the record's text: no file is read


def test_rerun_gives_a_result_option_where_the_command_wrote_to_stdout(tmp_path):
    """derive without --json wrote its JSON to stdout: the rerun writes it into its folder to compare."""
    from theorykit.cli.rerun import rewrite

    new, res = rewrite(["derive", "s.toml"], str(tmp_path / "spec.toml"), tmp_path, "json", [])
    assert new[-2:] == ["--json", str(res)] and res.parent == tmp_path


def test_rerun_lists_each_file_the_command_reads(tmp_path):
    """Each input file the command names (--init-weights, --data, a spec not recorded as text) is
    checked against provenance.inputs; a built-in task of find-gates is no file."""
    from theorykit.cli.rerun import rewrite

    read = []
    rewrite(["simulate", "s.toml", "--init-weights", "w.npz", "--json", "o.json"], None, tmp_path, "json", read)
    assert sorted(read) == [("init_weights", "--init-weights", "w.npz"), ("spec", "SPEC", "s.toml")]
    read = []
    rewrite(["find-gates", "xor-margin", "--set", "Delta=0.5", "--out", "f.toml"], None, tmp_path, "toml", read)
    assert read == []


@pytest.mark.parametrize("argv, kind", [
    (["derive", "s.toml", "--help"], "json"),          # prints help and runs nothing
    (["derive", "s.toml", "--ti", "5"], "json"),       # --times or --time-limit: ambiguous
    (["derive", "s.toml", "--jsonn", "x"], "json"),    # no such option
    (["derive", "s.toml"], "toml"),                    # derive writes JSON, not a spec
    (["find-gates", "xor-margin", "--out", "f.toml"], "json"),   # find-gates writes a spec
])
def test_rerun_refuses_what_the_command_would_not_have_written(tmp_path, argv, kind):
    from theorykit.cli.rerun import rewrite
    from theorykit.errors import SpecError

    with pytest.raises(SpecError) as e:
        rewrite(argv, None, tmp_path, kind, [])
    assert e.value.field == "provenance.command"


def test_rerun_checks_each_recorded_input_but_the_replaced_spec(tmp_path):
    """Each file in provenance.inputs must be here with its SHA-256 (field provenance.inputs.NAME);
    the spec replaced by the record's text is not read, so it may have changed or be gone."""
    import hashlib

    from theorykit.cli.rerun import check_inputs, check_read
    from theorykit.errors import SpecError

    data = tmp_path / "d.npz"
    data.write_bytes(b"abc")
    good = {"path": str(data), "sha256": hashlib.sha256(b"abc").hexdigest()}
    gone = {"path": str(tmp_path / "gone.toml"), "sha256": "0" * 64}
    check_inputs({"inputs": {"data": good, "spec": gone}}, "spec")
    for inputs, field in (({"data": {**good, "sha256": "0" * 64}}, "provenance.inputs.data"),
                          ({"spec": gone}, "provenance.inputs.spec")):
        with pytest.raises(SpecError) as e:
            check_inputs({"inputs": inputs}, None)
        assert e.value.field == field
    with pytest.raises(SpecError) as e:        # the command reads another file than the one hashed
        check_read({"inputs": {"data": good}}, [("data", "--data", str(tmp_path / "other.npz"))])
    assert e.value.field == "provenance.inputs.data"


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """A derive result with its record (the spec as text), and theorykit.cli.main replaced, for the
    rerun only, by a stand-in that writes ``answer`` (a document) where the rewritten command's --json
    points and returns ``status``; the rerun itself runs through the real main."""
    import theorykit.cli as cli

    monkeypatch.chdir(tmp_path)
    old = {"spec": "xor", "loss": {"t": [0, 10], "value": [1.0, 0.5]}, "seconds": 0.25,
           "provenance": {"command": "theorykit derive s.toml --set Delta=0.5 --json r.json", "options": {},
                          "inputs": {}, "versions": {}, "spec_toml": (EX / "xor_linear.toml").read_text()}}
    (tmp_path / "r.json").write_text(json.dumps(old))
    real, state = cli.main, {"answer": old, "status": 0, "pending": None}

    def stand_in(argv):
        state["pending"] = [p for p in tio.PENDING if "theorykit-rerun-" in str(p)]
        print("the command's own output")
        out = argv[argv.index("--json") + 1]
        if state["status"] == 0:
            tio.write_json(out, state["answer"])
        return state["status"]
    monkeypatch.setattr(cli, "main", stand_in)
    return real, state


def test_rerun_stdout_holds_the_verdict_alone(recorded, capsys):
    """"Prints one verdict" on stdout: the rerun's command line and the command's own output go to
    stderr (a script reads the verdict)."""
    main, _ = recorded
    assert main(["rerun", "r.json"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("identical: r.json") and len(out.splitlines()) == 1


def test_rerun_says_agree_not_identical_for_a_difference_within_rtol(recorded, capsys):
    main, state = recorded
    state["answer"] = json.loads(json.dumps(state["answer"]))
    state["answer"]["loss"]["value"][1] = 0.5 * (1 + 1e-12)
    assert main(["rerun", "r.json", "--rtol", "1e-9"]) == 0
    assert capsys.readouterr().out.startswith("agree to --rtol 1e-09")
    assert main(["rerun", "r.json"]) == 1                                 # "1 they differ"
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("differ: r.json: 1 of ") and out[1].startswith("  loss.value[1]: recorded 0.5, rerun")


@pytest.mark.parametrize("status", [130, 143, 70])
def test_rerun_passes_on_an_interrupt_or_a_bug_of_the_command(recorded, capsys, status):
    """--help: "70 a bug in theorykit; 130 interrupted (Ctrl-C); 143 terminated (SIGTERM)": a rerun
    stopped so exits with that status, no verdict. SIGTERM is ignored here, so that main returns 143
    rather than end the process (it ends it only where SIGTERM has its default action)."""
    import signal

    main, state = recorded
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        state["status"] = status
        assert main(["rerun", "r.json"]) == status
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert capsys.readouterr().out == ""


def test_rerun_folder_is_removed_by_a_sigterm_while_it_runs(recorded):
    """The temporary folder is listed in io.PENDING while the command runs (what the SIGTERM
    watchdog removes), and not after."""
    main, state = recorded
    assert main(["rerun", "r.json"]) == 0
    assert len(state["pending"]) == 1 and not [p for p in tio.PENDING if "theorykit-rerun-" in str(p)]


@pytest.mark.parametrize("rtol", ["1", "-0.1", "nan", "inf"])
def test_rerun_rtol_must_be_from_0_up_to_1(tmp_path, rtol, capsys):
    """"give a number from 0 up to 1": 1 itself would let any two numbers of one sign agree."""
    from theorykit.cli import main

    assert main(["rerun", str(tmp_path / "r.json"), "--rtol", rtol]) == 2
    assert "--rtol" in capsys.readouterr().err


def test_rerun_out_may_not_replace_the_result_or_a_recorded_input(recorded, tmp_path, capsys):
    """--out NEW is refused, before anything runs, where it is the RESULT itself or a file the
    recorded command read (exit 2, naming --out); both files are left as they were."""
    import hashlib

    main, state = recorded
    before = (tmp_path / "r.json").read_bytes()
    assert main(["rerun", "r.json", "--out", "r.json"]) == 2
    assert (tmp_path / "r.json").read_bytes() == before and state["pending"] is None
    data = tmp_path / "d.npz"
    data.write_bytes(b"abc")
    doc = json.loads(before)
    doc["provenance"]["inputs"] = {"data": {"path": "d.npz", "sha256": hashlib.sha256(b"abc").hexdigest()}}
    (tmp_path / "r.json").write_text(json.dumps(doc))
    assert main(["rerun", "r.json", "--out", "d.npz"]) == 2
    assert data.read_bytes() == b"abc" and state["pending"] is None
    assert "error in --out" in capsys.readouterr().err


def test_rerun_says_why_a_multi_host_run_is_not_rerun():
    from theorykit.cli.rerun import split_command
    from theorykit.errors import SpecError

    with pytest.raises(SpecError) as e:
        split_command({"command": "theorykit --distributed simulate s.toml --json o.json"})
    assert "multi-host" in e.value.problem and "launcher" in e.value.fix


@pytest.mark.parametrize("text, name", [
    ("[training]\nlr = 0.05\n", "plain.toml"),                          # a spec, but no record
    ('# made by theorykit: {"command": 1\n[training]\n', "broken.toml"),  # a record that is no JSON
])
def test_rerun_refuses_a_spec_file_without_its_record(tmp_path, text, name):
    """A spec file reruns only with its '# made by theorykit:' first line (predict, find-gates)."""
    from theorykit.cli.rerun import read_result
    from theorykit.errors import SpecError

    (tmp_path / name).write_text(text)
    with pytest.raises(SpecError) as e:
        read_result(tmp_path / name)
    assert e.value.field == "provenance"
    if name == "plain.toml":            # the message says what is missing, not that JSON is broken
        assert "does not begin with a '# made by theorykit:' line" in e.value.problem


@pytest.mark.parametrize("name", ["options", "inputs", "versions"])
def test_rerun_refuses_a_record_whose_parts_are_not_records(tmp_path, name):
    from theorykit.cli.rerun import read_result
    from theorykit.errors import SpecError

    doc = {"loss": 1.0, "provenance": {"command": "theorykit derive s.toml", name: ["not", "a", "record"]}}
    (tmp_path / "r.json").write_text(json.dumps(doc))
    with pytest.raises(SpecError) as e:
        read_result(tmp_path / "r.json")
    assert e.value.field == f"provenance.{name}"


def test_rerun_names_the_end_of_a_long_path_it_refuses(tmp_path):
    """A long path in the message keeps its end, the file's name, which tells two paths apart."""
    from theorykit.cli.rerun import check_read
    from theorykit.errors import SpecError

    long = "/" + "a-very-long-folder-name/" * 6
    with pytest.raises(SpecError) as e:
        check_read({"inputs": {"data": {"path": long + "data.npz"}}}, [("data", "--data", long + "other.npz")])
    assert "other.npz" in e.value.problem and "data.npz" in e.value.problem


# ------------------------------------------------------------------------------------------------
# the command line's checks before any work
# ------------------------------------------------------------------------------------------------
def test_times_are_sorted():
    """parse_times: ``--times`` "as a sorted array" (a flow records at sorted times: --times 100,0,10
    given to the race reduction would stop on save.ts, an option the user never gave)."""
    from theorykit.cli.common import parse_times

    assert parse_times("100,0,10", 1).tolist() == [0.0, 10.0, 100.0]


def test_a_symbol_given_twice_is_refused(capsys):
    """``--set Delta=0.5 --set Delta=1``: the last would silently win; refused, naming --set Delta."""
    from theorykit.cli import main

    assert main(["check", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--set", "Delta=1"]) == 2
    err = capsys.readouterr().err
    assert "--set Delta" in err and "twice" in err


def test_an_output_on_an_input_is_refused_however_the_path_is_written(tmp_path, monkeypatch):
    """check_outputs: an output may not be a file the command reads (``derive s.toml --json s.toml``
    replaced the spec): the same file by an absolute path, or through ./, is the same file."""
    from theorykit.cli.common import check_outputs
    from theorykit.errors import SpecError

    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.toml").write_text("x")
    for out in (str(tmp_path / "s.toml"), "./s.toml", "sub/../s.toml"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        with pytest.raises(SpecError) as e:
            check_outputs(("--json", out), inputs=[("spec", "s.toml")], stdout=("--json",))
        assert e.value.field == "--json" and "reads" in e.value.problem


def test_an_unwritable_device_is_refused_before_any_work(monkeypatch):
    """A device or pipe as an output is written as it is, so its own permission is what counts: one
    that cannot be written is refused naming the option (checked as a user who may not write it)."""
    from theorykit.cli import common
    from theorykit.errors import SpecError

    monkeypatch.setattr(common.os, "access", lambda path, mode: False)
    with pytest.raises(SpecError) as e:
        common.check_outputs(("--json", os.devnull), stdout=("--json",))
    assert e.value.field == "--json" and "not writable" in e.value.problem


# ------------------------------------------------------------------------------------------------
# progress (theorykit/progress.py's docstring: a bar on a terminal, lines on a log, else nothing)
# ------------------------------------------------------------------------------------------------
def test_progress_writes_nothing_on_an_in_memory_stream():
    import io

    from theorykit.progress import Progress

    buf = io.StringIO()
    with Progress("sim", 10, stream=buf) as pr:
        pr.update(5, note="stage")
    assert buf.getvalue() == ""


def test_progress_lines_on_a_log_file_only_when_enabled_and_only_after_a_while(tmp_path, monkeypatch):
    """On a log file: a line at most every LOG_SECONDS, "the first only once the run has lasted that
    long: a short run writes nothing"; nothing at all when disabled (--no-progress)."""
    from theorykit.progress import Progress

    log = tmp_path / "job.log"
    with open(log, "w") as fh:
        with Progress("sim", 10, stream=fh) as pr:         # an hour between lines: this run is short
            pr.update(5)
        monkeypatch.setattr(Progress, "LOG_SECONDS", 0.0)
        with Progress("sim", 10, stream=fh, enabled=False) as pr:
            pr.update(5)
    assert log.read_text() == ""
    with open(log, "w") as fh:
        with Progress("sim", 10, stream=fh) as pr:
            pr.update(5, note="stage")
    assert log.read_text().startswith("sim: 5/10 (50%), stage, ")     # "label: n/total (p%), note, Xs"


def test_progress_lines_on_a_pipe(monkeypatch):
    """A pipe (``| tee``) is a log as a file is."""
    from theorykit.progress import Progress

    monkeypatch.setattr(Progress, "LOG_SECONDS", 0.0)
    r, w = os.pipe()
    with os.fdopen(r, "r") as rd, os.fdopen(w, "w") as wr:
        with Progress("sweep", 4, stream=wr) as pr:
            pr.update(1)
        wr.close()
        assert rd.read().startswith("sweep: 1/4 (25%), ")


def test_progress_is_quiet_in_a_jupyter_kernel(tmp_path, monkeypatch):
    """A Jupyter kernel's stream may have a file descriptor (a log file behind it): still no lines."""
    from theorykit.progress import Progress

    monkeypatch.setattr(Progress, "LOG_SECONDS", 0.0)
    fh = open(tmp_path / "kernel.log", "w")
    Stream = type("OutStream", (), {"__module__": "ipykernel.iostream", "fileno": fh.fileno,
                                    "write": fh.write, "flush": fh.flush, "isatty": lambda self: False})
    with Progress("sim", 4, stream=Stream()) as pr:
        pr.update(2)
    fh.close()
    assert (tmp_path / "kernel.log").read_text() == ""


def test_progress_total_grows_with_the_work(tmp_path, monkeypatch):
    """"a total that was an estimate grows with the work": never more than 100%."""
    from theorykit.progress import Progress

    monkeypatch.setattr(Progress, "LOG_SECONDS", 0.0)
    with open(tmp_path / "job.log", "w") as fh:
        with Progress("find-gates", 2, stream=fh) as pr:
            pr.update(3)
    assert (tmp_path / "job.log").read_text().startswith("find-gates: 3/3 (100%), ")


@pytest.mark.parametrize("argv", [
    ["race-exhaust", "--k", "3", "--out", "{f}", "--no-progress"],
    ["compare", str(EX / "xor_linear.toml"), "--checkpoints", "{d}/none_*.npz", "--data", "{d}/none.npz", "--out", "{f}"],
])
def test_an_output_folder_that_is_a_file_is_refused_before_any_work(tmp_path, argv, capsys):
    """--out DIR "output folder": an existing file there was "File exists" only after a run that may
    have taken hours; it is refused first (exit 2 naming --out), the file left as it was."""
    from theorykit.cli import main

    f = tmp_path / "results"
    f.write_text("mine")
    assert main([a.format(f=f, d=tmp_path) for a in argv]) == 2
    assert "error in --out" in capsys.readouterr().err and f.read_text() == "mine"


def test_the_record_comment_of_a_spec_is_one_valid_toml_comment_whatever_the_paths():
    """record_comment: "one line of JSON (escaped, so no name in it can end the comment)". TOML allows
    no control character in a comment (DEL, U+007F, included): a path holding one is escaped, and the
    file still reads as TOML with the command line back from its first line."""
    import shlex
    import tomllib

    from theorykit.cli.common import record_comment

    argv = ["find-gates", "xor-margin", "--set", "Delta=0.5", "--out", "found\x7f\n.toml"]
    comment = record_comment(_args(*argv))
    assert comment.endswith("\n") and comment.count("\n") == 1
    assert tomllib.loads(comment + "x = 1\n") == {"x": 1}
    rec = json.loads(comment[len("# made by theorykit: "):])
    assert shlex.split(rec["command"]) == ["theorykit", *argv]


# ------------------------------------------------------------------------------------------------
# exit statuses and error lines (theorykit --help: "exit status: ...")
# ------------------------------------------------------------------------------------------------
def test_no_command_prints_the_help_and_exits_2(capsys):
    """``theorykit`` alone runs nothing: the help, and the status of a refused run (2), so that a
    script's ``theorykit $CMD`` with an empty $CMD does not pass as done."""
    from theorykit.cli import main

    assert main([]) == 2
    assert "usage: theorykit" in capsys.readouterr().out


def _failure_line(exc, capsys, debug=False):
    from theorykit.cli import _failure

    status = _failure(exc, debug)
    return status, capsys.readouterr().err


def test_a_diverged_run_names_training_lr(capsys):
    """A DivergenceError is a bad input (exit 2) whose field is training.lr, with the fix to lower it."""
    from theorykit.errors import DivergenceError

    status, err = _failure_line(DivergenceError("training diverged with lr=5"), capsys)
    assert status == 2 and err.startswith("theorykit: error in training.lr: ") and "lower training.lr" in err


def test_a_file_error_names_the_file_on_one_line(capsys):
    """An OSError is exit 2 naming the file (its field) and saying what is wrong; messages are one
    line: a newline or a tab in a library's text becomes a space."""
    status, err = _failure_line(PermissionError(13, "Permission denied", "/data/run\n1.npz"), capsys)
    assert status == 2 and err == "theorykit: error in /data/run 1.npz: Permission denied\n"


def test_a_bug_exits_70_and_shows_its_traceback_only_with_debug(capsys):
    from types import SimpleNamespace

    from theorykit.cli import _run

    args = SimpleNamespace(distributed=False, module="no_such_command_module")
    assert _run(args, False) == 70
    err = capsys.readouterr().err
    assert "internal error" in err and "--debug" in err and "Traceback" not in err
    assert _run(args, True) == 70
    assert "Traceback (most recent call last)" in capsys.readouterr().err


def test_a_spec_that_would_not_load_back_is_not_written(tmp_path, monkeypatch):
    """write_spec: "refusing first to write one that load_spec would not read back: the error names
    the field at fault"; nothing is written. (A spec whose TOML holds a negative learning rate stands
    in for whatever a writer's bug might produce.)"""
    from theorykit.cli import common
    from theorykit.errors import SpecError

    good = (EX / "xor_linear.toml").read_text()
    bad = good.replace("lr = ", "lr = -", 1)
    assert bad != good
    monkeypatch.setattr(common, "spec_to_toml", lambda spec: bad)
    with pytest.raises(SpecError) as e:
        common.write_spec("--out", tmp_path / "found.toml", object())
    assert e.value.field == "--out" and "training.lr" in e.value.problem and "nothing was written" in e.value.problem
    assert not (tmp_path / "found.toml").exists()


def test_a_write_that_fails_names_the_option(tmp_path):
    """write_result: "an unwritable path is an error naming the option" (--latex, not "file")."""
    from theorykit.cli.common import write_result
    from theorykit.errors import SpecError

    (tmp_path / "notes.txt").write_text("a file, not a folder")
    with pytest.raises(SpecError) as e:
        write_result("--latex", tmp_path / "notes.txt" / "paper.tex", "\\documentclass{article}")
    assert e.value.field == "--latex" and "notes.txt" in e.value.problem


def test_a_dropped_ctrl_c_exits_130_even_where_the_command_ended_first(monkeypatch, capsys):
    """cli._Interrupt: a Ctrl-C that Python dropped (in a garbage-collector callback) is noted, and
    "a command that ends first exits 130 all the same", saying "interrupted" (exit status 130,
    interrupted). The note is made here from the start; ``check`` writes no file to be stopped."""
    import theorykit.cli as cli

    class Dropped(cli._Interrupt):
        def __init__(self, previous):
            super().__init__(previous)
            self.dropped = True
    monkeypatch.setattr(cli, "_Interrupt", Dropped)
    assert cli.main(["check", str(EX / "xor_linear.toml"), "--set", "Delta=0.5"]) == 130
    assert capsys.readouterr().err.endswith("theorykit: interrupted\n")


def test_a_reader_that_left_gives_141_and_no_message(monkeypatch, capsys):
    """--help: "141 stdout closed by its reader before the output ended (| head): the rest of the
    text is dropped without a message, and the command still runs to its end"."""
    import sys

    from theorykit.cli import main

    class Gone:
        writes = 0

        def write(self, text):
            Gone.writes += 1
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")
    monkeypatch.setattr(sys, "stdout", Gone())
    assert main(["check", str(EX / "xor_linear.toml"), "--set", "Delta=0.5"]) == 141
    assert Gone.writes == 1                          # the first write failed; the rest were dropped
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("extra, field", [
    (["--times", "0,1.5"], "--times"),                         # the loss is recorded at whole steps
    (["--times", "0,31"], "--times"),                          # beyond --steps 30
    (["--seed", "1", "--init-weights", "{w}"], "--seed"),      # a seed draws a start; the file is one
    (["--init-weights", "{w}", "--json", "{w}"], "--json"),    # the result would replace the weights
])
def test_simulate_refuses_before_training(tmp_path, capsys, extra, field):
    """simulate's refusals, each exit 2 naming the option, before any training (the weights file is
    not even read where the refusal comes first; it is left as it was)."""
    import numpy as np

    from theorykit.cli import main

    w = tmp_path / "w.npz"
    # a ReLU network of the spec's total width on its task: 3 inputs, 128 hidden units, 1 output
    np.savez(w, W1=np.full((128, 3), 0.01), W2=np.full((1, 128), 0.01))
    before = w.read_bytes()
    argv = ["simulate", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--steps", "30", "--seeds", "1",
            "--network", "relu", "--no-progress", *[a.format(w=w) for a in extra]]
    assert main(argv) == 2
    assert f"error in {field}" in capsys.readouterr().err and w.read_bytes() == before


def test_a_simulate_result_records_its_spec_seed_and_values(tmp_path):
    """docs/reproducibility.md: simulate's result has ``spec_toml`` (a spec file that loads back),
    ``values`` as exact text, and ``seed`` (--seed, 0 by default)."""
    from theorykit.cli import main
    from theorykit.spec.files import load_spec

    out = tmp_path / "sim.json"
    assert main(["simulate", str(EX / "xor_linear.toml"), "--set", "Delta=1/2", "--steps", "3", "--seeds", "1",
                 "--times", "0,3", "--no-progress", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["seed"] == 0 and doc["values"] == {"Delta": "1/2"}
    (tmp_path / "again.toml").write_text(doc["provenance"]["spec_toml"])
    assert load_spec(tmp_path / "again.toml").name == load_spec(EX / "xor_linear.toml").name


def test_rerun_says_the_command_failed_when_it_exits_2(recorded, capsys):
    """A rerun whose command stops on an error (exit 2, its message above) exits 2 saying so, with
    the status: not "wrote no result ... report this as a bug"."""
    main, state = recorded
    state["status"] = 2
    assert main(["rerun", "r.json"]) == 2
    err = capsys.readouterr().err
    assert "error in provenance.command: the rerun exited with status 2" in err and "bug" not in err


def test_derive_writes_no_file_when_its_result_is_not_finite(tmp_path, monkeypatch, capsys):
    """derive: "everything is computed before anything is written: an error leaves no file behind";
    a non-finite number in the result (here a loss curve made infinite by hand) leaves no --latex."""
    import numpy as np

    from theorykit.cli import main
    from theorykit.theory.derivation import Derivation

    monkeypatch.setattr(Derivation, "predict_loss", lambda self, t, *a, **k: np.full(np.shape(t), np.inf))
    tex, js = tmp_path / "d.tex", tmp_path / "d.json"
    assert main(["derive", str(EX / "xor_linear.toml"), "--set", "Delta=0.5", "--times", "0,10",
                 "--latex", str(tex), "--json", str(js)]) == 2
    assert "not finite" in capsys.readouterr().err
    assert not tex.exists() and not js.exists()


def test_predict_json_and_spec_record_how_they_were_made(tmp_path):
    """docs/reproducibility.md: predict --json has a ``provenance`` entry (the command as typed, the
    input spec's SHA-256); the spec of --out begins with the same record as a TOML comment."""
    import hashlib
    import shlex

    from theorykit.cli import main

    spec = EX / "predict" / "xor_data.toml"
    argv = ["predict", str(spec), "--hidden", "8", "--set", "Delta=0.5", "--out", str(tmp_path / "p.toml"),
            "--json", str(tmp_path / "p.json"), "--no-progress"]
    assert main(argv) == 0
    rec = json.loads((tmp_path / "p.json").read_text())["provenance"]
    assert shlex.split(rec["command"]) == ["theorykit", *argv]
    assert rec["inputs"]["spec"]["sha256"] == hashlib.sha256(spec.read_bytes()).hexdigest()
    first = (tmp_path / "p.toml").read_text().split("\n", 1)[0]
    assert first.startswith("# made by theorykit: ")
    assert json.loads(first[len("# made by theorykit: "):])["command"] == rec["command"]


# (race-exhaust's fallback for a "training.lr" error after race_exhaust, tested here with a stand-in that raised
# one, is removed: no input reaches it, since race_exhaust refuses a --steps past any of the flow's budgets
# before any race; tests/test_record_span_rules.py::test_race_exhaust_at_its_steps_bound_passes_every_flow_check)


def test_a_found_spec_begins_with_its_record(tmp_path):
    """Spec files from find-gates "begin with the same record as a one-line TOML comment"."""
    import shlex

    from theorykit.cli import main

    argv = ["find-gates", "xor-margin", "--set", "Delta=0.5", "--K", "1", "--seeds", "1", "--steps", "20",
            "--hidden", "4", "--no-progress", "--out", str(tmp_path / "found.toml")]
    assert main(argv) == 0
    first = (tmp_path / "found.toml").read_text().split("\n", 1)[0]
    assert first.startswith("# made by theorykit: ")
    assert shlex.split(json.loads(first[len("# made by theorykit: "):])["command"]) == ["theorykit", *argv]


@pytest.mark.parametrize("name", [".tkeep.tmp", ".tk-notes.tmp", ".tk123.tmp", ".tkabc-def.tmp"])
def test_a_users_file_named_like_a_temporary_is_not_swept(tmp_path, monkeypatch, name):
    """A defect found here: the sweep removed any hour-old ``.tk*.tmp`` whose name held no process
    number (``.tkeep.tmp``, a user's file), though only ``.tk<pid>-….tmp`` is a writer's own
    (tempfile.mkstemp's prefix ``.tk<pid>-``) and "another writer's file is never touched"."""
    monkeypatch.setattr(tio, "_SWEPT", set())
    f = tmp_path / name
    f.write_text("a user's data")
    old = time.time() - 2 * 3600
    os.utime(f, (old, old))
    tio.atomic_write_text(tmp_path / "result.json", "{}")
    assert f.read_text() == "a user's data"
