"""Rules found by a command-line user (small mends left over from the last review, then a walk through
every command's --help, exit statuses and bad spec files). Each test states what the docs promise --
"Errors exit with status 2 and name the field and the fix" (README.md) -- and checks it with a tiny
input; expected values are read from the docs or worked out by hand, never from a run of the code
under test."""
from pathlib import Path

import pytest

from theorykit.cli import main
from theorykit.cli.parser import build_parser

EX = Path(__file__).resolve().parent.parent / "examples"
XOR = str(EX / "xor_linear.toml")


# ------------------------------------------------------------------------------------------
# negative numbers as option values
# ------------------------------------------------------------------------------------------
# Before: `theorykit rerun R.json --rtol -1e-12` was answered by argparse "argument --rtol: expected
# one argument": Python 3.11-3.13 read a word that starts with '-' as an option unless it is -1 or
# -1.5 (argparse docs, "Arguments containing -"), so -1e-12, -.5e1 or --times -1,5 never reached
# theorykit's own check. Now every word starting with '-' and a digit is a value (Python 3.14's rule)
# and the option's own range check answers, naming the option and the range.
@pytest.mark.parametrize("argv, value", [
    (["rerun", "R.json", "--rtol", "-1e-12"], -1e-12),
    (["rerun", "R.json", "--rtol", "-.5"], -0.5),
    (["predict", "x.toml", "--hidden", "4", "--out", "p.toml", "--time-limit", "-1e3"], -1000.0),
    (["race-exhaust", "--gamma", "-1E-3"], -0.001),
    (["derive", XOR, "--time-limit", "-2e1"], -20.0),
])
def test_a_negative_number_in_exponent_form_is_read_as_the_value(argv, value):
    args, extra = build_parser().parse_known_args(argv)
    option = argv[-2]
    assert extra == [] and getattr(args, option[2:].replace("-", "_")) == value


@pytest.mark.parametrize("argv, option, range_words", [
    (["rerun", "R.json", "--rtol", "-1e-12"], "--rtol", "at least 0 and below 1"),          # its --help
    (["predict", "x.toml", "--hidden", "4", "--out", "p.toml", "--time-limit", "-1e3"], "--time-limit", "0 or more"),   # the one fix of every --time-limit (spec.ranges.time_limit_fix)
    (["race-exhaust", "--gamma", "-1e-3", "--out", "{tmp}"], "--gamma", "positive"),
    (["simulate", XOR, "--set", "Delta=0.5", "--times", "-1,5"], "--times", "between 0 and"),
    (["derive", XOR, "--time-limit", "-2e1"], "--time-limit", "0 or more"),
])
def test_a_negative_value_is_refused_by_theorykit_naming_the_option(argv, option, range_words, capsys, tmp_path):
    argv = [a.replace("{tmp}", str(tmp_path / "out")) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "expected one argument" not in err
    assert f"theorykit: error in {option}:" in err and range_words in err and "fix:" in err


# ------------------------------------------------------------------------------------------
# stdout's binary buffer, read by a reader that leaves (| head)
# ------------------------------------------------------------------------------------------
# Before: ReaderMayLeave guarded write/writelines/flush, but `.buffer` went to the raw stream through
# __getattr__, so `sys.stdout.buffer.write(...)` (a caller's binary output) raised BrokenPipeError
# once the reader left, where text was dropped and the command went on (exit 141 at the end). Now the
# buffer's writes are guarded the same way and mark the reader as gone for the text too.
def test_bytes_written_through_stdout_buffer_are_guarded_like_text():
    import os

    from theorykit.io import ReaderMayLeave

    r, w = os.pipe()
    os.close(r)                                  # the reader left: a write to the pipe is EPIPE
    stream = open(w, "w")
    try:
        out = ReaderMayLeave(stream)
        data = b"x" * (1 << 20)                  # larger than any buffer: written at once
        assert out.buffer.write(data) == len(data)
        assert out.reader_left                   # what the exit status 141 is read from
        out.buffer.flush()
        out.buffer.writelines([b"a", b"b"])
        assert out.write("text after\n") == len("text after\n")     # the text is dropped too
        out.flush()
    finally:
        stream.close()                           # the descriptor points at the null device now


# ------------------------------------------------------------------------------------------
# rerun: a field present in one result only
# ------------------------------------------------------------------------------------------
# Before: a field in one result only was shown as "new_field: recorded 1, rerun '(missing)'": the
# word (missing) read as a recorded string value, and nothing said that the field is in one result
# only (as a result of a newer theorykit, which added the field, reruns). It is still a difference
# (a field removed by hand must be found), now named as present in one only.
def test_rerun_names_a_field_present_in_one_result_only():
    from theorykit.cli.rerun import compare, verdict

    # the recorded result has a field the rerun does not make (a newer theorykit's), and lacks one it
    # makes (an older one's): two "other fields" differ, no number does (a: 1.0 both)
    found = compare({"a": 1.0, "b": {"added": 7}}, {"a": 1.0, "b": {}, "old": "(missing)"}, 0.0)
    lines = verdict("R.json", found, 0.0)
    assert lines[0] == "differ: R.json: 2 other fields differ"
    assert lines[1].startswith("  b.added: present in the recorded result only") and lines[1].endswith("recorded 7")
    # a field whose rerun value is the text "(missing)" is not mistaken for an absent one
    assert lines[2].startswith("  old: present in the rerun only") and lines[2].endswith("rerun '(missing)'")


# ------------------------------------------------------------------------------------------
# spec files that are not UTF-8 TOML text
# ------------------------------------------------------------------------------------------
# Before: a spec saved "UTF-8 with BOM" (Windows Notepad) was "not valid TOML: Invalid statement (at
# line 1, column 1)" with the fix "check the file's syntax" -- nothing an editor shows; a UTF-16 file
# or a binary one gave Python's "'utf-8' codec can't decode byte 0xff in position 0"; an empty file
# was "error in data: missing". Now each is named for what it is, with how to save the file.
def _xor_text():
    return Path(XOR).read_text(encoding="utf-8")


@pytest.mark.parametrize("make, words", [
    (lambda: b"\xef\xbb\xbf" + _xor_text().encode("utf-8"), ["byte-order mark", "UTF-8 with BOM"]),
    (lambda: _xor_text().encode("utf-16"), ["UTF-16", "save it as UTF-8"]),          # with its BOM
    (lambda: _xor_text().encode("utf-16-le"), ["UTF-16", "save it as UTF-8"]),       # without
    (lambda: 'name = "caf\u00e9"\n'.encode("latin-1"), ["not UTF-8 text", "byte 0xe9 on line 1"]),   # é in Latin-1
    (lambda: b"", ["is empty"]),
    (lambda: b"\n  \n", ["is empty"]),
])
@pytest.mark.parametrize("command", [["check"], ["predict", "--hidden", "4", "--out", "{tmp}/p.toml"]])
def test_a_spec_that_is_not_utf8_text_is_named_so(tmp_path, capsys, make, words, command):
    spec = tmp_path / "s.toml"
    spec.write_bytes(make())
    argv = [command[0], str(spec)] + [a.replace("{tmp}", str(tmp_path)) for a in command[1:]]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in spec:") and str(spec) in err and "fix:" in err
    assert all(w in err for w in words), err
    assert "codec can't decode" not in err and "Invalid statement" not in err


def test_a_spec_with_crlf_line_ends_reads_as_the_same_spec(tmp_path):
    """TOML allows CRLF line ends: a spec saved on Windows is the same spec (the task's data compared
    with the LF file's, read the same way)."""
    from theorykit.spec.files import load_spec

    crlf = tmp_path / "xor.toml"
    crlf.write_bytes(_xor_text().replace("\n", "\r\n").encode("utf-8"))
    a, b = load_spec(XOR), load_spec(crlf)
    assert a.task.X == b.task.X and a.task.Y == b.task.Y and [p.name for p in a.pathways] == [p.name for p in b.pathways]


# ------------------------------------------------------------------------------------------
# --help: every option that has a default value says it
# ------------------------------------------------------------------------------------------
# Before: race-exhaust --batch (256), find-gates --seed and predict --seed (0) and derive --method
# (auto) had defaults their --help did not state, and derive/simulate --times did not say which
# times they report without it. Now each option with a value default names it in its help, and the
# value named is the parser's own default (read from the parser, not from the help text).
def _subcommands():
    import argparse

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices


def _options_with_a_value_default():
    import argparse

    for name, sp in _subcommands().items():
        for a in sp._actions:
            if (a.option_strings and a.nargs != 0 and not a.required and a.default is not None
                    and a.default is not argparse.SUPPRESS and a.default != []):
                yield name, a


def test_every_option_with_a_default_value_states_it_in_its_help():
    seen, bad = 0, []
    for name, a in _options_with_a_value_default():
        seen += 1
        value = f"{a.default:g}" if isinstance(a.default, (int, float)) else str(a.default)
        words = (a.help or "").lower()          # "the spec's GDLN (default)" names the choice gdln
        if "default" not in words or value.lower() not in words:
            bad.append(f"{name} {a.option_strings[0]} (default {value}): {a.help}")
    assert bad == []
    assert seen >= 20      # predict alone has 10 (--beam ... --time-limit), race-exhaust 5


@pytest.mark.parametrize("command", ["derive", "simulate"])
def test_times_help_says_what_is_reported_without_it(command):
    # common.parse_times(None, steps): 11 times from 0 to the steps (np.linspace(0, steps, 11))
    times = next(a for a in _subcommands()[command]._actions if "--times" in a.option_strings)
    assert "default: 11" in times.help


# ------------------------------------------------------------------------------------------
# rerun --no-progress
# ------------------------------------------------------------------------------------------
# Before: every long command took --no-progress but rerun, which runs one of them again (race-exhaust
# --k 4 for hours): its bar or lines could not be turned off. Now rerun --no-progress runs the
# recorded command with --no-progress (where that command has it), as a batch job would.
@pytest.mark.parametrize("given, expected", [(["--no-progress"], True), ([], False)])
def test_rerun_no_progress_is_passed_to_the_command_rerun(tmp_path, monkeypatch, given, expected):
    import json

    import theorykit.cli as cli

    # a simulate result as simulate --json records it (docs/reproducibility.md): the command, the
    # spec's text, and no other input file
    spec = tmp_path / "xor.toml"
    spec.write_text(_xor_text())
    result = tmp_path / "sim.json"
    result.write_text(json.dumps({"loss": {"mean": [1.0]}, "provenance": {
        "command": f"theorykit simulate {spec} --set Delta=0.5 --seeds 1 --steps 5 --json sim.json",
        "inputs": {"spec": {"path": str(spec), "sha256": "0" * 64}}, "spec_toml": _xor_text()}}))
    ran = []

    def fake_main(argv):                # the command rerun: seen, not run (2: it stopped on an error)
        ran.append(argv)
        return 2

    monkeypatch.setattr(cli, "main", fake_main)
    from theorykit.cli.rerun import run
    from theorykit.errors import SpecError

    with pytest.raises(SpecError, match="exited with status 2"):
        run(build_parser().parse_args(["rerun", str(result), *given]))
    assert len(ran) == 1 and ran[0][0] == "simulate"
    assert ("--no-progress" in ran[0]) == expected


# ------------------------------------------------------------------------------------------
# whole-number options given a number in another spelling
# ------------------------------------------------------------------------------------------
# Before: `simulate --steps 1e4` (how a theorist writes ten thousand) was answered "argument --steps:
# invalid int value: '1e4'", which does not say what to write instead. Now: the number is not written
# as a whole number, and the digits to write (1e4 = 10000, 1E2 = 100, 3.0 = 3, by hand).
@pytest.mark.parametrize("argv, option, says", [
    (["simulate", XOR, "--steps", "1e4"], "--steps", "'1e4' is 10000 written another way (fix: write it in digits, --steps 10000)"),
    (["predict", XOR, "--hidden", "1E2", "--out", "p.toml"], "--hidden", "'1E2' is 100 written another way (fix: write it in digits, --hidden 100)"),
    (["find-gates", "contexts", "--K", "3.0", "--out", "f.toml"], "--K", "'3.0' is 3 written another way (fix: write it in digits, --K 3)"),
    (["sweep", XOR, "--seeds", "2.5", "--out", "d"], "--seeds", "'2.5' is not a whole number"),
    (["race-exhaust", "--k", "three"], "--k", "'three' is not a whole number"),
])
def test_a_whole_number_option_says_what_to_write(capsys, argv, option, says):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"theorykit: error in {option}: ") and says in err and "Traceback" not in err


def test_a_whole_number_option_still_reads_digits():
    args = build_parser().parse_args(["simulate", XOR, "--steps", "10000", "--seeds", "-3"])
    assert args.steps == 10000 and args.seeds == -3      # -3: refused later, by --seeds' own range


# ------------------------------------------------------------------------------------------
# a spec path that is a device or a pipe
# ------------------------------------------------------------------------------------------
# Before: the spec's size was checked by stat() alone, which is 0 for a device or a pipe, then the
# whole of it was read: `theorykit check /dev/zero` read without end (memory growing until killed).
# Now at most one byte more than a spec may have is read, and more is refused, naming the spec.
def test_a_spec_from_a_pipe_is_read_to_the_size_a_spec_may_have(tmp_path, monkeypatch):
    import os
    import threading

    import theorykit.spec.files as sf
    from theorykit.errors import SpecError

    monkeypatch.setattr(sf, "MAX_SPEC_BYTES", 4096)
    text = (_xor_text() + "#" * 8000 + "\n").encode("utf-8")     # a valid spec, 8000+ bytes: over 4096
    fifo = tmp_path / "spec.toml"
    os.mkfifo(fifo)

    def feed():
        try:
            with open(fifo, "wb") as f:
                f.write(text)
        except BrokenPipeError:         # the reader stopped at 4097 bytes and closed
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    with pytest.raises(SpecError) as exc:
        sf.load_spec(fifo)
    writer.join()
    assert exc.value.field == "spec" and "more than the 4096 bytes" in exc.value.problem


def test_a_spec_from_a_short_pipe_still_loads(tmp_path):
    """Process substitution, `theorykit check <(generate-spec)`: a pipe under the size limit is a spec."""
    import os
    import threading

    from theorykit.spec.files import load_spec

    fifo = tmp_path / "xor.toml"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(_xor_text()), daemon=True)
    writer.start()
    spec = load_spec(fifo)
    writer.join()
    assert [p.name for p in spec.pathways] == [p.name for p in load_spec(XOR).pathways]


# Before: an .npz option (--init-weights, --data, an .npz checkpoint) given a device was opened as a
# zip: /dev/zero read without end, /dev/null was "not a readable .npz (BadZipFile ...)". A zip is read
# by seeking, which a device or a pipe cannot: now refused as not a file, naming the option.
@pytest.mark.skipif(not Path("/dev/null").exists(), reason="a device file")
@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_an_npz_option_given_a_device_is_refused_as_not_a_file(device):
    from theorykit.errors import SpecError
    from theorykit.sim.weights import read_npz

    with pytest.raises(SpecError) as exc:
        read_npz(device, "--data", "an .npz with arrays X and Y", "save it with numpy.savez")
    assert exc.value.field == "--data" and "is not a file (a device or a pipe)" in exc.value.problem


def test_rerun_refuses_a_device_instead_of_reading_it_without_end(tmp_path):
    """`theorykit rerun /dev/zero` read without end (read_result read the whole file); a character or
    block device is now refused naming RESULT, before any read. A pipe (rerun <(cat r.json)) is not a
    device and is still read (tests/test_rerun_inputs_rules.py reads results through pipes)."""
    from theorykit.cli.rerun import read_result
    from theorykit.errors import SpecError
    with pytest.raises(SpecError) as e:
        read_result(Path("/dev/zero"))
    assert "RESULT" in str(e.value) and "device" in str(e.value)
