"""Four command-line findings of the fuzz campaign of session 161 (tests/fuzz.py), each with the regression
test that failed before its fix: an error names the option as the user typed it and says how to fix it (exit 2).

1. ``predict SPEC --max-families 1 --search exhaustive`` said "more than max_families = 1" (Python's name) and
   its fix did not mention raising --max-families.
2. ``predict … --time-bound nan`` (--time-bound: --time-limit's former name) said "error in --time-limit".
3. ``race-exhaust --k 2 --out ''`` wrote into the current folder (``Path('')`` is ``.``); every output option
   checked by ``check_outputs``/``check_out_dir`` took '' alike.
4. ``simulate … --init-weights '\\ud800.npz'`` held the raw UnicodeEncodeError text in its message.
"""
from pathlib import Path

import pytest

from theorykit.analysis.predict import predict_reln
from theorykit.cli import main
from theorykit.cli.predict import load_task_training

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
XOR_DATA = str(EXAMPLES / "predict" / "xor_data.toml")
XOR_RELN = str(EXAMPLES / "xor_reln.toml")


def _err(capsys):
    return capsys.readouterr().err


# 1. ---------------------------------------------------------------------------------------------
def test_max_families_refusal_names_the_option_and_says_to_raise_it(tmp_path, capsys):
    out = tmp_path / "p.toml"
    assert main(["predict", XOR_DATA, "--set", "Delta=1", "--hidden", "4", "--max-families", "1",
                 "--search", "exhaustive", "--out", str(out), "--no-progress"]) == 2
    err = _err(capsys)
    assert "theorykit: error in --search:" in err and "--max-families 1" in err, err
    assert "max_families" not in err, err                   # Python's name, not the option typed
    # the fix: a search that fits, or a --max-families as large as the families the search needs; the number is
    # the problem's own ("means N families"): 2**orbits - 1
    problem, _, fix = err.partition("(fix:")
    n_fam = int(problem.split(" families")[0].rsplit(" ", 1)[1])
    orbits = int(problem.split(" orbits")[0].rsplit(" ", 1)[1])
    assert n_fam == 2 ** orbits - 1 and n_fam > 1
    assert "--search beam or forward" in fix and f"raise --max-families to {n_fam}" in fix, fix
    assert not out.exists()


def test_max_families_refusal_in_python_names_the_keyword():
    task, training, _ = load_task_training(XOR_DATA, ["Delta=1"])
    with pytest.raises(Exception) as info:
        predict_reln(task, 4, training, search="exhaustive", max_families=1, progress=False)
    msg = str(info.value)
    assert "max_families=1" in msg and "raise max_families to" in msg and "--" not in msg, msg


# 2. ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["nan", "-1", "abc"])
def test_time_bound_value_error_names_time_bound(value, tmp_path, capsys):
    out = tmp_path / "p.toml"
    assert main(["predict", XOR_DATA, "--set", "Delta=1", "--hidden", "4", "--time-bound", value,
                 "--out", str(out), "--no-progress"]) == 2
    err = _err(capsys)
    assert "theorykit: error in --time-bound:" in err and "error in --time-limit" not in err, err
    assert "e.g. --time-limit 60" in err        # the fix names the new name to write, as the warning does
    assert not out.exists()


def test_time_limit_typed_last_is_the_one_named(tmp_path, capsys):
    # argparse's last wins: the value at fault is --time-limit's here, and the error names it
    assert main(["predict", XOR_DATA, "--set", "Delta=1", "--hidden", "4", "--time-bound", "5", "--time-limit",
                 "nan", "--out", str(tmp_path / "p.toml"), "--no-progress"]) == 2
    err = _err(capsys)
    assert "theorykit: error in --time-limit: nan" in err and "error in --time-bound" not in err, err


# 3. ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv, option", [
    (["race-exhaust", "--k", "2", "--out", ""], "--out"),
    (["sweep", XOR_RELN, "--out", ""], "--out"),
    (["validate", "xor", "--quick", "--out", ""], "--out"),
    (["derive", XOR_RELN, "--set", "Delta=1", "--json", ""], "--json"),
    (["predict", XOR_DATA, "--set", "Delta=1", "--hidden", "4", "--out", ""], "--out"),
])
def test_an_empty_output_path_is_refused_naming_the_option(argv, option, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status = main(argv)
    err = _err(capsys)
    assert status == 2 and f"theorykit: error in {option}: '' is empty" in err, err
    assert f"give {option} a path" in err
    assert list(tmp_path.iterdir()) == []           # nothing written into the current folder


# 4. ---------------------------------------------------------------------------------------------
def test_init_weights_lone_surrogate_is_named_without_the_raw_encode_error(capsys):
    assert main(["simulate", XOR_RELN, "--set", "Delta=1", "--init-weights", "\ud800.npz"]) == 2
    err = _err(capsys)
    assert "theorykit: error in --init-weights:" in err and "lone surrogate" in err, err
    assert "UnicodeEncodeError" not in err and "surrogates not allowed" not in err, err


def test_init_weights_empty_is_refused_not_read_as_no_file(capsys):
    # '' was falsy: the run went on from the default start as if --init-weights were not given
    assert main(["simulate", XOR_RELN, "--set", "Delta=1", "--steps", "5", "--init-weights", ""]) == 2
    err = _err(capsys)
    assert "theorykit: error in --init-weights: '' is empty" in err, err


@pytest.mark.parametrize("command", [["simulate", XOR_RELN, "--set", "Delta=1", "--steps", "5"],
                                     ["derive", XOR_RELN, "--set", "Delta=1"]])
@pytest.mark.parametrize("plot", ["", ".", "/"])
def test_a_figure_path_without_a_name_is_refused_not_a_crash(command, plot, tmp_path, monkeypatch, capsys):
    # --plot '' was exit 70, "internal error: ValueError: PosixPath('.') has an empty name" (the fix's
    # suggested name came from Path.with_suffix, which refuses a path with no name)
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--plot", plot]) == 2
    err = _err(capsys)
    assert "theorykit: error in --plot:" in err and "internal error" not in err, err
    assert "does not end in .png, .pdf or .svg" in err and "e.g. loss.png" in err, err
    assert list(tmp_path.iterdir()) == []
