"""Refusals a user reads, in the user's words (session 161): each names the field or option as the user
typed it (on the command line the option or the environment variable; from Python the keyword) and a fix
that works."""
from __future__ import annotations

from pathlib import Path

import pytest

from theorykit.analysis.exhaust import exhaust_spec, race_exhaust
from theorykit.analysis.predict_share import share_hidden, share_mass
from theorykit.cli import main
from theorykit.cli import predict as cli_predict
from theorykit.cli.parser import build_parser
from theorykit.errors import SpecError
from theorykit.spec.limits import Limits, fixed_size
from theorykit.spec.task import contexts


# ---------------------------------------------------------------------------------------------
# share_hidden / share_mass with no unit to give: fewer pathways cannot help
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("share", [share_hidden, lambda H, m: share_mass(H, [1.0] * m)])
@pytest.mark.parametrize("H, m", [(0, 1), (0, 3), (-2, 2)])
def test_no_units_fix_asks_for_units_not_fewer_pathways(share, H, m):
    # with H ≤ 0 units, every m ≥ 1 pathways is refused (m pathways need m units, m ≥ 1 > H): the fix must
    # ask for at least 1 unit and H ≥ m, never for fewer pathways (the fewest, one, still needs a unit)
    with pytest.raises(SpecError) as info:
        share(H, m)
    assert info.value.field == "H"
    assert "fewer pathways" not in info.value.fix
    assert info.value.fix == f"use H >= {m}: at least 1 unit, and at least one per pathway (H >= the number of pathways)"


@pytest.mark.parametrize("H, m", [(1, 2), (2, 3), (3, 7)])
def test_some_units_fix_says_how_many_pathways_fit(H, m):
    # 1 ≤ H < m: H pathways of one unit each fit, so the fix's "at most H pathways" works, and H ≥ m does
    with pytest.raises(SpecError) as info:
        share_hidden(H, m)
    noun = "pathway" if H == 1 else "pathways"
    assert info.value.fix == f"use H >= {m} (one unit per pathway at least), or at most {H} {noun}"
    assert share_hidden(H, H) == [1] * H and share_hidden(m, m) == [1] * m       # both fixes work


# ---------------------------------------------------------------------------------------------
# a fixed-size build over the memory limit names THEORYKIT_MAX_BYTES, the one thing a user can change
# ---------------------------------------------------------------------------------------------
ROOT = Path(__file__).resolve().parents[1]
CONTEXTS = str(ROOT / "examples" / "contexts_double.toml")      # contexts(8, 3): its task build is estimated
TWO_GROUPS = str(ROOT / "examples" / "predict" / "two_groups.toml")      # 4 × 8 numbers, no symbols
# task_estimate counts (d + p) × P exact entries at SYMPY_ENTRY_BYTES = 200 B each (theorykit.spec.limits):
# contexts(8, 2): d = n + k = 10 inputs, p = 15 (common hierarchy, 2·8 − 1 rows) + 2 × 15 = 45 outputs, P = 16
CONTEXTS_8_2_BYTES = (10 + 45) * 16 * 200         # 176 000
# find-gates contexts is contexts(8, 3) with hierarchy, ring (15 rows) and cross (15 rows): d = 11, p = 15 + 45, P = 24
CONTEXTS_8_3_BYTES = (11 + 60) * 24 * 200         # 340 800


def _python_words(err: str) -> list:
    return [w for w in ("limits=", "Limits(", "max_bytes", "error in n:", "lower n ") if w in err]


@pytest.mark.parametrize("argv, need", [
    (["race-exhaust", "--k", "2", "--out", "{tmp}/r"], CONTEXTS_8_2_BYTES),
    (["find-gates", "contexts", "--K", "2", "--out", "{tmp}/f.toml"], CONTEXTS_8_3_BYTES),
])
def test_fixed_size_build_over_memory_names_the_environment_variable(argv, need, tmp_path, capsys, monkeypatch):
    # before: "error in n: … (fix: lower n (…); or raise the memory limit: limits=theorykit.spec.limits.Limits(
    # max_bytes=…), or THEORYKIT_MAX_BYTES)": n is no option of these commands, and their task's size is fixed
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1000")
    assert main([a.format(tmp=tmp_path) for a in argv] + ["--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in THEORYKIT_MAX_BYTES: "), err
    assert f"raise THEORYKIT_MAX_BYTES to at least {need}," in err, err
    assert not _python_words(err), err
    assert not (tmp_path / "r").exists() and not (tmp_path / "f.toml").exists()


def test_validate_suites_fixed_task_over_memory_names_the_environment_variable(tmp_path, capsys, monkeypatch):
    # the depth suite's first build is the Section 4 task, contexts(8, 3) of hierarchy, ring and cross (the size
    # counted above): before, "SpecError: n: … lower n (…); or raise the memory limit: limits=…(max_bytes=…)"
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1000")
    assert main(["validate", "depth", "--quick", "--out", str(tmp_path / "v")]) == 1
    err = capsys.readouterr().err
    assert "depth: FAILED" in err and "SpecError: THEORYKIT_MAX_BYTES: contexts(n=8, k=3) would be" in err, err
    assert f"raise THEORYKIT_MAX_BYTES to at least {CONTEXTS_8_3_BYTES}," in err and not _python_words(err), err


def test_fixed_size_lift_is_enough_and_python_names_it_too(monkeypatch):
    # the fix's number is the estimate: THEORYKIT_MAX_BYTES at it lets the build through
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", str(CONTEXTS_8_2_BYTES - 1))
    with pytest.raises(SpecError) as info:
        exhaust_spec(2, limits=fixed_size())
    assert info.value.field == "THEORYKIT_MAX_BYTES" and str(CONTEXTS_8_2_BYTES) in info.value.fix
    with pytest.raises(SpecError) as info:      # race_exhaust has no keyword n either: the same words from Python
        race_exhaust(2, progress=False)
    assert info.value.field == "THEORYKIT_MAX_BYTES" and not _python_words(str(info.value))
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", str(CONTEXTS_8_2_BYTES))
    spec, *_ = exhaust_spec(2, limits=fixed_size())
    assert (spec.task.d, spec.task.p, spec.task.P) == (10, 45, 16)        # the sizes counted above
    # a size the caller chose is still named by its keyword (contexts' own n), as before
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1000")
    with pytest.raises(SpecError) as info:
        contexts(8, 2)
    assert info.value.field == "n"


# ---------------------------------------------------------------------------------------------
# compare has neither --force nor --time-limit: its spec-load refusal names THEORYKIT_MAX_SECONDS
# ---------------------------------------------------------------------------------------------
def test_compare_spec_load_refusal_names_no_option_compare_lacks(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("THEORYKIT_MAX_SECONDS", "0.000001")
    monkeypatch.delenv("THEORYKIT_MAX_BYTES", raising=False)
    opts = {o for a in build_parser()._subparsers._group_actions[0].choices["compare"]._actions
            for o in a.option_strings}
    assert "--force" not in opts and "--time-limit" not in opts       # what the fix must not offer
    argv = ["compare", CONTEXTS, "--checkpoints", str(tmp_path / "*.npz"), "--data", str(tmp_path / "d.npz"),
            "--out", str(tmp_path / "c"), "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    # before: "… (fix: lower data.n (…); or pass --force (or a larger --time-limit) to run it anyway)"
    assert err.startswith("theorykit: error in data.n: building the task needs an estimated "), err
    assert "--force" not in err and "--time-limit" not in err, err
    assert err.rstrip().endswith("or raise THEORYKIT_MAX_SECONDS to run it anyway)"), err
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1000")       # and its memory refusal offers no --force either
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--force" not in err and err.rstrip().endswith("or raise THEORYKIT_MAX_BYTES)"), err


# ---------------------------------------------------------------------------------------------
# predict --validate: its trainings obey --time-limit, the one Limits of the task build and the search
# ---------------------------------------------------------------------------------------------
class _Stop(BaseException):
    pass


def test_predict_validate_training_obeys_time_limit(tmp_path, capsys, monkeypatch):
    # every training estimate counts at least SIM_COMPILE[0] = 1.5 s (theorykit.spec.limits): over 0.001 s
    monkeypatch.delenv("THEORYKIT_MAX_SECONDS", raising=False)
    monkeypatch.delenv("THEORYKIT_MAX_BYTES", raising=False)
    argv = ["predict", TWO_GROUPS, "--hidden", "4", "--validate", "--out", str(tmp_path / "p.toml"), "--no-progress"]
    assert main(argv + ["--time-limit", "0.001"]) == 2
    err = capsys.readouterr().err
    # before: the validation's check read 3600 s (THEORYKIT_MAX_SECONDS) and passed; the refusal came later, from
    # the search, not from --validate
    assert err.startswith("theorykit: error in --seeds: --validate: training 8 ReLU networks of width 4 for 3000 "
                          "steps needs an estimated "), err
    assert "over the time limit of 0.001 s" in err and "or pass a larger --time-limit (0: no limit)" in err, err
    assert "THEORYKIT_MAX_SECONDS" not in err and "--force" not in err, err
    assert not (tmp_path / "p.toml").exists()


def test_predict_validate_passes_its_limits_down_not_the_environments(tmp_path, monkeypatch):
    monkeypatch.setenv("THEORYKIT_MAX_SECONDS", "0.000001")     # predict's --time-limit is its own
    monkeypatch.delenv("THEORYKIT_MAX_BYTES", raising=False)
    seen = {}

    def validate(pred, **kw):
        seen.update(kw)
        raise _Stop
    monkeypatch.setattr(cli_predict, "validate_prediction", validate)
    with pytest.raises(_Stop):
        main(["predict", TWO_GROUPS, "--hidden", "4", "--validate", "--time-limit", "600", "--out",
              str(tmp_path / "p.toml"), "--no-progress"])
    # before: validate_prediction got no limits (its default: THEORYKIT_MAX_SECONDS), and the check before it
    # refused at the environment's 1 µs
    assert isinstance(seen.get("limits"), Limits) and seen["limits"].max_seconds == 600
    assert not seen["limits"].force


def test_predict_written_spec_refusal_offers_no_force(tmp_path, capsys, monkeypatch):
    # predict checks that the spec it writes loads back (cli.common.write_spec), under the memory limit: with
    # THEORYKIT_MAX_BYTES tiny that check refused, saying "--force does not lift the memory limit" to a
    # command that has no --force. Now its fix names THEORYKIT_MAX_BYTES
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1000")
    monkeypatch.delenv("THEORYKIT_MAX_SECONDS", raising=False)
    out = tmp_path / "p.toml"
    argv = ["predict", str(ROOT / "examples" / "predict" / "xor_data.toml"), "--set", "Delta=1", "--hidden", "4",
            "--out", str(out), "--no-progress"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "theorykit: error in --out: the spec to be written would not load back" in err, err
    # the fix names THEORYKIT_MAX_BYTES with the bytes the written task needs (xor-margin: 3 inputs + 1 output,
    # 4 datapoints, 200 B an entry: 3 200), checked before the prediction (tests/test_rough_edges_session161_rules.py)
    assert "--force" not in err and "raise THEORYKIT_MAX_BYTES to at least 3200," in err, err
    assert not out.exists()
