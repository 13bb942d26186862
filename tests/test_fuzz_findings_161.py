"""What the fuzz campaign of session 161 found (tests/fuzz.py's kinds predict-data, race-options and rerun, on
the command line of 2026-11-29: predict of a data-only spec, race-exhaust's options, rerun of a damaged or
hand-edited result), each with the regression test that failed before its fix; and a fast check that the
generator draws the new kinds and their options (a few hundred cases drawn, none run)."""
import json

import fuzz
from theorykit.analysis import predict_estimate
from theorykit.cli import main
from theorykit.cli.rerun import compare


def _argvs(kind, n=150, seed=20261130):
    cases = fuzz._generate(n, seed, [kind])
    assert cases and all(c.kind == kind for c in cases)
    return cases


def test_the_new_kinds_are_in_the_mix_and_their_errors_count_as_named():
    for kind in ("predict-data", "race-options", "rerun"):
        assert kind in fuzz.all_kinds() and fuzz.KIND_WEIGHTS.get(kind, 1) >= 1
    for root in ("RESULT", "provenance", "complete", "--rtol", "--enumerate", "--html"):
        assert root in fuzz._FIELD_ROOTS, root


def test_the_generator_draws_the_new_options_and_damages():
    pred = _argvs("predict-data")
    assert all("pathways" not in (c.doc or {}) or not isinstance(c.doc, dict) or c.mutations for c in pred)
    flags = {a for c in pred for a in c.runs[0][1] if a.startswith("--")}
    assert {"--time-limit", "--steps", "--enumerate", "--max-patterns", "--seed", "--json"} <= flags, flags
    assert any(c.refuse for c in pred)                      # --out or --json onto the spec: must be refused
    race = _argvs("race-options")
    flags = {a for c in race for a in c.runs[0][1] if a.startswith("--")}
    assert {"--batch", "--gamma", "--a0", "--time-limit", "--force", "--no-symmetry"} <= flags, flags
    rer = _argvs("rerun")
    ops = {op for c in rer for op, _ in c.edit[2]}
    assert {"text", "truncate", "field", "command", "edit-command", "number", "list", "key"} <= ops, ops
    assert any(not c.edit[2] for c in rer)                  # undamaged: must rerun identical
    makers = {c.mutations[0] for c in rer}
    assert {"make: derive", "make: simulate", "make: predict", "make: predict-toml", "make: race-exhaust"} <= makers


# --- finding 1: a predict result and its rerun in one Python session "differed" ------------------------------
def test_rerun_leaves_out_a_predictions_count_of_shapes_left_to_compile():
    """The estimate's ``compiles`` (and its ``assumes`` words) count the engine shapes this process had not yet
    compiled: a second run in the same process finds them compiled. Not a result: not compared."""
    old = {"prediction": {"area": 0.5, "search": {"estimate": {
        "families": 1, "calls": 1, "compiles": 1,
        "assumes": "1 family in 1 engine call, 1 new shape to compile"}}}}
    new = json.loads(json.dumps(old))
    new["prediction"]["search"]["estimate"].update(compiles=0, assumes="1 family in 1 engine call, 0 new shapes "
                                                                        "to compile")
    assert compare(old, new, 0.0).agree
    new["prediction"]["area"] = 0.25            # a number that is a result still differs
    assert not compare(old, new, 0.0).agree


def test_predict_then_rerun_in_one_session_is_identical(tmp_path, monkeypatch, capsys):
    """Found by the campaign (seed 16111, case 39): ``main(["predict", ..., "--json", "res.json"])`` then
    ``main(["rerun", "res.json"])`` in one process exited 1, ``differ: ... prediction.search.estimate.compiles:
    recorded 1, rerun 0``. The shapes compiled so far are emptied first, so that the first run compiles one
    whatever ran before in this test process."""
    monkeypatch.setattr(predict_estimate, "_COMPILED", set())
    spec = tmp_path / "spec.toml"
    spec.write_text('[data]\ntask = "xor-margin"\nDelta = 1\n[training]\nlr = 0.05\nsteps = 50\n', "utf-8")
    res = tmp_path / "res.json"
    assert main(["predict", str(spec), "--hidden", "2", "--out", str(tmp_path / "pred.toml"), "--json", str(res),
                 "--no-progress", "--time-limit", "0"]) == 0
    assert json.loads(res.read_text())["prediction"]["search"]["estimate"]["compiles"] >= 1
    capsys.readouterr()
    assert main(["rerun", str(res), "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith("identical:")


# --- finding 2: a hand-edited recorded time beyond a float ended rerun with exit 70 ------------------------------
def test_recorded_time_beyond_a_float_is_no_time():
    """JSON holds integers of any size; ``elapsed_seconds = 10**400`` (or a simulate result's own ``seconds``) is
    not a time a run took: no note, rather than OverflowError in math.isfinite / float()."""
    from theorykit.cli.rerun import recorded_time

    assert recorded_time({"elapsed_seconds": 10 ** 400}, {}) is None
    assert recorded_time({}, {"seconds": 10 ** 400}) is None
    assert recorded_time({"elapsed_seconds": -(10 ** 400)}, {}) is None
    # a time within a float's range is still said: 150 s is 2.5 min (limits.human_seconds: minutes from 120 s)
    assert recorded_time({"elapsed_seconds": 150}, {}) == "2.5 min"


def test_rerun_of_a_result_whose_recorded_time_is_huge_reruns(tmp_path, capsys):
    """Found by hand during the campaign: ``theorykit rerun big.json`` (a result with ``"elapsed_seconds":
    1000...0`` of 401 digits) printed ``theorykit: internal error (a bug in theorykit, please report it):
    OverflowError: int too large to convert to float`` and exited 70. The rerun itself is unaffected: identical."""
    spec = tmp_path / "spec.toml"
    spec.write_text('[data]\ninputs = [[1, 0], [0, 1]]\ntargets = [[1, 0]]\n[[pathways]]\nname = "p"\n'
                    'active = "all"\nhidden = 1\n', "utf-8")
    res = tmp_path / "res.json"
    assert main(["derive", str(spec), "--times", "0,10", "--json", str(res)]) == 0
    doc = json.loads(res.read_text())
    doc["provenance"]["elapsed_seconds"] = 10 ** 400
    res.write_text(json.dumps(doc), "utf-8")
    capsys.readouterr()
    assert main(["rerun", str(res)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("identical:") and "internal error" not in err, err


# --- finding 3: a path holding a lone surrogate ended a command with exit 70 -------------------------------------
def test_a_path_with_a_lone_surrogate_is_refused_naming_the_option(tmp_path, capsys):
    """A string holding a lone surrogate (``\\ud800``: JSON's escape in a hand-edited record, or a Python caller's
    string; not a shell's argument, whose undecodable bytes are ``\\udc80``-``\\udcff`` and encode back) names no
    file. Found during the campaign: a result whose recorded command had ``--latex \\ud800.tex`` and
    ``main(["rerun", "res.json", "--out", "\\ud800.json"])`` printed ``theorykit: internal error (a bug in
    theorykit, please report it): UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800'`` and exited 70;
    so did ``main(["derive", "\\ud800.toml"])`` and an output folder (``race-exhaust --out``). Now exit 2 naming
    the option (or the spec); an undecodable byte of a shell's argument (``\\udcff``) is still a file name."""
    spec = tmp_path / "spec.toml"
    spec.write_text('[data]\ninputs = [[1, 0], [0, 1]]\ntargets = [[1, 0]]\n[[pathways]]\nname = "p"\n'
                    'active = "all"\nhidden = 1\n', "utf-8")
    res = tmp_path / "res.json"
    for argv, field in ((["derive", str(spec), "--json", str(tmp_path / "x\ud800.json")], "--json"),
                        (["derive", str(tmp_path / "\ud800.toml")], "spec"),
                        (["race-exhaust", "--k", "2", "--out", str(tmp_path / "\ud800"), "--no-progress"], "--out")):
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith(f"theorykit: error in {field}: ") and "lone surrogate" in err, err
    assert main(["derive", str(spec), "--times", "0,10", "--json", str(res)]) == 0
    capsys.readouterr()
    assert main(["rerun", str(res), "--out", str(tmp_path / "\ud800.json")]) == 2
    assert capsys.readouterr().err.startswith("theorykit: error in --out: ")
    doc = json.loads(res.read_text())
    doc["provenance"]["command"] += " --latex '\ud800.tex'"
    res.write_text(json.dumps(doc), "utf-8")
    assert main(["rerun", str(res)]) == 2
    err = capsys.readouterr().err
    assert "error in --latex: " in err and "internal error" not in err, err
    # a shell's undecodable byte (surrogateescape) is a file name: written
    assert main(["derive", str(spec), "--times", "0,10", "--json", str(tmp_path / "x\udcff.json")]) == 0
