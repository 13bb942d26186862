"""Six follow-ups from a newcomer's hour and a message audit (session 139, helper h146)."""
import json
from pathlib import Path

import pytest

from theorykit import report
from theorykit.analysis import summary as S
from theorykit.cli import main

ROOT = Path(__file__).resolve().parent.parent


# 1. the report's summary badges: a zero count is neutral, a nonzero failed count stays red
def test_a_zero_failed_badge_is_not_red_and_a_nonzero_one_is():
    red = report._COLOURS["failed"]
    h = report.render_html(report.build_results("quick", {"s": {"claims": [
        {"claim": "c", "ours": "1", "agreement": "a", "verdict": "confirmed"}]}}), Path("."))
    badge = next(line for line in h.splitlines() if ">failed: 0</span>" in line)
    assert red not in badge and "background:#eaeef2" in badge
    # nothing red among the zero counts either (not borne out: 0 uses the same red)
    for v in ("partly", "not borne out", "n/a", "failed"):
        assert f'<span class="badge" style="background:#eaeef2;color:#57606a">{v}: 0</span>' in h
    assert '<span class="badge" style="background:#1a7f37">confirmed: 1</span>' in h
    h = report.render_html(report.build_results("quick", {}, failed={"x": {"error": "e"}}), Path("."))
    assert f'<span class="badge" style="background:{red}">failed: 1</span>' in h


# 2. derive without --set: the floats are taken at Delta = 7/10, and the message says where that comes from
# (theorykit.theory.modes.reference_values: a fixed generic point, 7/10 for the first symbol, where the modes'
# order and signs are decided; not a value of the spec, which has none) and how to choose another (--set)
def _says_where_the_point_comes_from(text):
    assert "7/10" in text and "reference point" in text, text
    assert "order and signs" in text and "not a value of the spec" in text, text
    assert "--set NAME=VALUE" in text, text


def test_derive_says_why_its_floats_are_taken_at_delta_seven_tenths(monkeypatch, capsys):
    monkeypatch.setattr(S, "stdout_is_terminal", lambda: True)
    assert main(["derive", str(ROOT / "examples" / "xor_reln.toml")]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert line.startswith("  symbols Delta have no value")
    _says_where_the_point_comes_from(line)
    assert main(["derive", str(ROOT / "examples" / "xor_reln.toml"), "--json", "-"]) == 0
    note = next(n for n in json.loads(capsys.readouterr().out)["notes"] if "have no value" in n)
    _says_where_the_point_comes_from(note)
    # docs/specs.md, where --set is described, says it too
    specs = " ".join((ROOT / "docs" / "specs.md").read_text().split())
    assert "*reference point* (Δ = 7/10" in specs and "not at a value of the spec" in specs


# 3. the depth suite's Fig. 6 row prints "final loss ReLU 0.00036, GDLN 5.06" (quick): its agreement text and
# docs/validation.md say what those end points are, and the verdict stays on the largest gap over time
class _Any(float):
    """A number that is also every dict depth._claims reads (each key gives the same number)."""
    def __getitem__(self, key):
        return self

    def get(self, key, default=None):
        return self

    def values(self):
        return [self]

    def items(self):
        return [("50%", self)]


def test_the_depth_rows_final_losses_are_explained_where_the_row_is_made():
    from theorykit.suites import load_suite

    depth = load_suite("depth")
    x = _Any(0.5)
    row = next(r for r in depth._claims(x, x, x, x, {"one": 0.5, "both": 0.5}, x, 8)
               if r["claim"].startswith("Fig. 6: stereotypical ReLU and GDLN"))
    assert "final loss ReLU 0.5, GDLN 0.5" in row["ours"]               # the numbers, unchanged
    assert row["agreement"].startswith("tolerance 0.05·L(0) on the largest gap over time")
    assert "mean summed loss over the seeds at the last step" in row["agreement"]
    assert "plateau, not at a minimum" in row["agreement"]
    assert row["verdict"] == "not borne out"                             # 0.5 > 0.15: as before
    text = " ".join((ROOT / "docs" / "validation.md").read_text().split())
    assert 'the Fig. 6 row\'s "final loss ReLU …, GDLN …"' in text
    assert "mean summed loss over the seeds at the last step" in text


# 4. rerun of a result whose provenance.spec_toml is TOML but a wrong spec: the refusal names the record's
# field and the file, and keeps the inner field (it said "error in pathways[0].hidden" and then
# "provenance.command: the rerun exited with status 2", neither naming spec_toml nor the file)
def test_rerun_names_the_recorded_spec_when_it_is_a_wrong_spec(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", str(ROOT / "examples" / "xor_reln.toml"), "--set", "Delta=1", "--steps", "5",
                 "--no-progress", "--json", "R.json"]) == 0
    doc = json.loads(Path("R.json").read_text())
    assert "hidden = 32" in doc["provenance"]["spec_toml"]
    doc["provenance"]["spec_toml"] = doc["provenance"]["spec_toml"].replace("hidden = 32", "hidden = -1", 1)
    Path("bad.json").write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["rerun", "bad.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("theorykit: error in provenance.spec_toml: in bad.json: the recorded spec is refused, "
                          "at pathways[0].hidden: -1 is out of range"), err
    assert "pathways[0].hidden: a positive whole number of hidden units" in err      # the inner fix, kept
    assert "provenance.command" not in err and "rerun: theorykit" not in err         # refused before any run
    assert len(err.strip().splitlines()) == 1
    capsys.readouterr()
    assert main(["rerun", "R.json"]) == 0                                            # the result as written
    assert capsys.readouterr().out.startswith("identical:")


# 5. predict_reln's race horizon refused from Python: the problem text reads in Python's words too
# (keyword_errors translated the field and the fix, but the problem still said "fewer than --steps = 2000")
def _refusal(fn, **kw):
    import theorykit as tk

    training = tk.Training(lr=0.05, init_std=0.01, steps=2000)       # docs/predict.md's XoR, Δ = 0.5
    with pytest.raises(tk.SpecError) as info:
        fn(tk.xor_margin(0.5), hidden=8, training=training, progress=False, **kw)
    return info.value


def test_predict_reln_race_dt_refusal_reads_in_pythons_words():
    import theorykit as tk
    from theorykit.errors import as_command

    exc = _refusal(tk.predict_reln, race_dt=1e6, steps=2000)
    assert exc.field == "race_dt"
    assert exc.problem.endswith("fewer than steps = 2000"), exc.problem
    assert "--" not in str(exc), str(exc)
    # steps from the Training (no steps=): its field as Python reads it, training.steps
    exc = _refusal(tk.predict_reln, race_dt=1e6)
    assert exc.field == "race_dt" and exc.problem.endswith("fewer than training.steps = 2000")
    assert "--" not in str(exc), str(exc)
    # too many steps for any race_dt: the keyword and a fix in Python's words
    exc = _refusal(tk.predict_reln, steps=10**9)
    assert exc.field == "steps" and "--" not in str(exc), str(exc)
    # the command line's path keeps its options
    exc = _refusal(as_command(tk.predict_reln), race_dt=1e6, steps=2000)
    assert exc.field == "--race-dt" and exc.problem.endswith("fewer than --steps = 2000")
    assert "lower --steps to at most" in exc.fix
    exc = _refusal(as_command(tk.predict_reln), steps=10**9)
    assert exc.field == "--steps" and exc.fix.startswith("lower --steps to at most")


# 6. tk.contexts' size guard from Python names the keyword n (it named the spec file's data.n, with the fix
# "lower data.n"); a spec file's contexts task keeps data.n. contexts(8, 3) is (11 + 60) × 24 exact entries
# (docs/theory.md#contexts), far over 10 bytes.
def test_contexts_from_python_names_n_and_a_spec_file_keeps_data_n(tmp_path, capsys):
    import theorykit as tk
    from theorykit.spec.files import spec_from_dict
    from theorykit.spec.limits import Limits

    with pytest.raises(tk.SpecError) as e:
        tk.contexts(8, 3, limits=Limits(max_bytes=10))
    assert e.value.field == "n" and e.value.fix.startswith("lower n "), e.value
    assert "data." not in e.value.fix
    with pytest.raises(tk.SpecError) as e:       # the integer check too: the keyword, and Python's example
        tk.contexts(0, 3)
    assert e.value.field == "n" and "contexts(8, 3)" in e.value.fix
    # the spec-file paths: spec_from_dict and theorykit check keep the file's field
    with pytest.raises(tk.SpecError) as e:
        spec_from_dict({"data": {"task": "contexts", "n": 8, "k": 3, "reln": "double"}}, limits=Limits(max_bytes=10))
    assert e.value.field == "data.n" and "lower data.n" in e.value.fix
    spec = tmp_path / "big.toml"
    spec.write_text('[data]\ntask = "contexts"\nn = 1000000\nreln = "double"\n')
    capsys.readouterr()
    assert main(["check", str(spec)]) == 2
    assert capsys.readouterr().err.startswith("theorykit: error in data.n: ")
