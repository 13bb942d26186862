"""Interface and persistence rules, by hand and from the docs (found by a mutation check).

The runner (``theorykit.validation``: cache key, staging folder, atomic moves, failures), the report
(verdict words, Markdown and HTML escaping, figures), the JSON writer, the one result type and the
resumable sweep. Every expected value here is derived by hand in a comment or read from the docs
(docs/index.md, docs/validation.md, the module docstrings), never taken from a run of the code.
Fake suites write a few bytes, not figures; the sweep's trainer is replaced by one that returns
loss curves written by hand, so every test runs in well under a second or two.
"""
from __future__ import annotations

import base64
import json
import os
import re
import types
from pathlib import Path

import numpy as np
import pytest

import theorykit.suites as suites_mod
from theorykit import io, report
from theorykit.errors import DivergenceError, SpecError
from theorykit.record import Trajectory, check_finite
from theorykit.suites import load_package

validation = load_package("validation")

# ------------------------------------------------------------------------------------------------
# the runner, with fake suites
# ------------------------------------------------------------------------------------------------
SUITE = '''
import os
from pathlib import Path
NAME = "{name}"

def run(out_dir, mode, progress=True):
    fig = Path(out_dir) / "{name}_fig.png"
    fig.write_bytes(b"\\x89PNG fake figure of {name}")
    # the figure's inode as the suite wrote it (a rename keeps it, a copy makes a new file)
    Path(os.environ["TK_RULES_LOG"], "{name}.inode").write_text(str(fig.stat().st_ino))
    if os.environ.get("TK_RULES_{upper}") == "raise":
        raise RuntimeError("<boom & {name}>")
    return {{"figures": [{{"file": "{name}_fig.png", "caption": 'the "{name}" <figure>'}}],
             "claims": [{{"claim": "one", "ours": "x", "agreement": "|x| < 1", "verdict": "confirmed"}}]}}
'''


@pytest.fixture
def fake(tmp_path, monkeypatch):
    """Suites ``alpha`` and ``beta`` in ``tmp_path/src`` (served by a patched ``load_suite``)."""
    src = tmp_path / "src"
    src.mkdir()
    log = tmp_path / "log"
    log.mkdir()
    monkeypatch.setenv("TK_RULES_LOG", str(log))
    for n in ("alpha", "beta"):
        (src / f"{n}.py").write_text(SUITE.format(name=n, upper=n.upper()))

    def load(name):
        import importlib.util

        spec = importlib.util.spec_from_file_location(f"tk_rules_{name}", src / f"{name}.py")
        if spec is None or not (src / f"{name}.py").is_file():
            raise ModuleNotFoundError(f"no suite {name}")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    monkeypatch.setattr(suites_mod, "load_suite", load)
    out = tmp_path / "out"

    def run(names=("alpha", "beta"), **kw):
        return validation.run_suites(out, "quick", list(names), progress=False, report=True, **kw)

    return types.SimpleNamespace(src=src, log=log, out=out, load=load, run=run)


def test_cache_key_follows_the_suites_own_and_private_helper_modules(fake):
    """validation._suite_source: the key covers the suite's module and the modules beside it that are
    private (``_*.py``) or the suite's own (``<suite>_*.py``, e.g. xor_figures.py), not another
    suite's helpers."""
    (fake.src / "_shared.py").write_text("A = 1\n")
    (fake.src / "alpha_figures.py").write_text("B = 1\n")
    (fake.src / "beta_figures.py").write_text("C = 1\n")
    mod = fake.load("alpha")
    k0 = validation.cache_key("alpha", "quick", mod)
    (fake.src / "beta_figures.py").write_text("C = 2\n")          # another suite's helper: same key
    assert validation.cache_key("alpha", "quick", mod) == k0
    (fake.src / "_shared.py").write_text("A = 2\n")              # a private helper: a new key
    k1 = validation.cache_key("alpha", "quick", mod)
    assert k1 != k0
    (fake.src / "alpha_figures.py").write_text("B = 2\n")        # the suite's own helper: a new key
    assert validation.cache_key("alpha", "quick", mod) not in (k0, k1)


def test_cache_key_follows_the_names_of_the_example_specs_not_only_their_text(fake, monkeypatch, tmp_path):
    """The fingerprint hashes relative paths and contents (validation._hash_tree's docstring): a spec
    file renamed (same text, a suite reading section6_paper.toml now finds nothing) is a new key."""
    ex = tmp_path / "examples"
    ex.mkdir()
    (ex / "section6_paper.toml").write_text("a = 1\n")
    monkeypatch.setattr(validation, "_examples_dir", lambda: ex)
    mod = fake.load("alpha")
    monkeypatch.setattr(validation, "_FINGERPRINT", None)
    k = validation.cache_key("alpha", "quick", mod)
    (ex / "section6_paper.toml").rename(ex / "section6_other.toml")
    monkeypatch.setattr(validation, "_FINGERPRINT", None)
    assert validation.cache_key("alpha", "quick", mod) != k


def test_cache_key_follows_the_derivation_scripts(fake, monkeypatch, tmp_path):
    """code_fingerprint's docstring: the key covers 'the derivation scripts' (suites run them)."""
    der = tmp_path / "derivations"
    der.mkdir()
    (der / "__init__.py").write_text("")
    (der / "xor_derivation.py").write_text("X = 1\n")
    real = suites_mod.load_package

    def load_package(kind):
        return types.SimpleNamespace(__file__=str(der / "__init__.py")) if kind == "derivations" else real(kind)

    monkeypatch.setattr(suites_mod, "load_package", load_package)
    mod = fake.load("alpha")
    monkeypatch.setattr(validation, "_FINGERPRINT", None)
    k = validation.cache_key("alpha", "quick", mod)
    (der / "xor_derivation.py").write_text("X = 2\n")
    monkeypatch.setattr(validation, "_FINGERPRINT", None)
    assert validation.cache_key("alpha", "quick", mod) != k


def test_cache_key_follows_the_mode(fake):
    mod = fake.load("alpha")
    assert validation.cache_key("alpha", "quick", mod) != validation.cache_key("alpha", "full", mod)


def test_figures_reach_the_output_folder_by_rename(fake):
    """docs/index.md: 'a suite's figures appear in the output folder only once the suite has finished'
    and the runner moves them 'with an atomic rename' (module docstring). A rename keeps the file the
    suite wrote (its inode); a copy would be a new file, half-written while it is being copied."""
    assert fake.run() == 0
    for n in ("alpha", "beta"):
        assert (fake.out / f"{n}_fig.png").stat().st_ino == int((fake.log / f"{n}.inode").read_text())
        assert (fake.out / f"{n}_fig.png").read_bytes() == f"\x89PNG fake figure of {n}".encode("latin-1")


def test_a_failed_suite_leaves_no_staging_folder(fake, monkeypatch):
    """A suite that raises: its staged figure is dropped, nothing of it in OUT, and the staging folder
    OUT/.staging is removed as after a run that succeeded (only an interrupt leaves it)."""
    monkeypatch.setenv("TK_RULES_ALPHA", "raise")
    assert fake.run() == 1
    assert not (fake.out / validation.STAGING_DIR).exists()
    assert not (fake.out / "alpha_fig.png").exists() and (fake.out / "beta_fig.png").is_file()


def test_a_suite_that_cannot_be_imported_is_recorded_and_the_others_run(fake):
    """Module docstring: 'records a suite that raises as failed ..., goes on with the others and
    returns 1'. A suite missing on disk fails at import."""
    (fake.src / "alpha.py").unlink()
    assert fake.run() == 1
    res = json.loads((fake.out / "results.json").read_text())
    assert set(res["failed"]) == {"alpha"} and res["failed"]["alpha"]["stage"] == "import"
    assert "no suite alpha" in res["failed"]["alpha"]["error"]
    assert res["status"] == {"alpha": "failed", "beta": "ran"} and set(res["suites"]) == {"beta"}
    assert res["verdict_counts"]["failed"] == 1


def test_report_of_a_failed_run_names_and_escapes_it(fake, monkeypatch):
    """report.md lists the failed suites under the verdicts; report.html shows the error escaped (the
    error text '<boom & alpha>' is the suite's, not markup) and the suites' status line."""
    monkeypatch.setenv("TK_RULES_ALPHA", "raise")
    assert fake.run() == 1
    md = (fake.out / "report.md").read_text()
    assert "**Failed suites:** alpha" in md
    h = (fake.out / "report.html").read_text()
    assert "<boom & alpha>" not in h and "&lt;boom &amp; alpha&gt;" in h
    assert "Suites: alpha (failed), beta (ran)." in h


def test_reports_are_replaced_not_rewritten_in_place(fake):
    """docs/index.md: 'Every file is written atomically (a temporary file, then a rename)'. A hard link
    to the previous report keeps the previous text after a rename; an in-place write would change it."""
    assert fake.run() == 0
    for name in ("report.md", "report.html", "results.json"):
        os.link(fake.out / name, fake.out / f".old_{name}")
        (fake.out / name).write_text("previous")
    assert fake.run() == 0
    for name in ("report.md", "report.html", "results.json"):
        assert (fake.out / f".old_{name}").read_text() == "previous", name
        assert (fake.out / name).read_text() != "previous", name


# ------------------------------------------------------------------------------------------------
# the report
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("word,cls", [
    # the four classes of docs/validation.md, by meaning: "not borne out" = the measurement
    # contradicts the claim; a claim that "failed" is a claim not borne out (the class "failed" is
    # for a suite that failed to run, not for a claim)
    (" Confirmed ", "confirmed"), ("PASSED", "confirmed"), ("reproduced", "confirmed"),
    ("partially confirmed", "partly"), ("refuted", "not borne out"), ("failed", "not borne out"),
    ("fail", "not borne out"), ("no", "not borne out"), ("not confirmed", "not borne out"),
    ("skipped", "n/a"), ("", "n/a"), (False, "not borne out")])
def test_verdict_words_by_meaning(word, cls):
    assert report.verdict_class(word) == cls


def _res(claims=(), **suite):
    return report.build_results("quick", {"s": {"claims": list(claims), **suite}})


def test_markdown_table_rows_keep_five_columns_with_pipes_in_cells():
    """A '|' inside a cell (the criterion '|x| < 1') is escaped, so every claim row splits into the
    five columns suite | paper claim | our figure | agreement | verdict."""
    md = report.render_markdown(_res([{"claim": "a|b", "ours": "x", "agreement": "|x| < 1", "verdict": "yes"}]))
    rows = [ln for ln in md.splitlines() if ln.startswith("| s |")]
    assert len(rows) == 1
    cells = re.split(r"(?<!\\)\|", rows[0])[1:-1]       # split on unescaped pipes only
    assert [c.strip() for c in cells] == ["s", "a\\|b", "x", "\\|x\\| < 1", "**confirmed (yes)**"]


def test_display_latex_in_double_dollars_is_unwrapped_once():
    """'$$x^2$$' is display mathematics: its body x^2 goes between the report's own $$ lines (a '$'
    test first would leave '$x^2$' inside them, inline math in display math)."""
    md = report.render_markdown(_res(latex={"d": "$$x^2$$", "i": "\\(y\\)"}))
    assert "$$\nx^2\n$$" in md and "$$\ny\n$$" in md
    h = report.render_html(_res(latex={"d": "$$x^2$$", "i": "\\(y\\)"}), Path("."))
    assert '<div class="tex display" data-tex="x^2">' in h and '<div class="tex" data-tex="y">' in h


def test_html_attributes_escape_quotes(tmp_path):
    """LaTeX goes into data-tex="…" and captions into alt="…": a '"' in them must be &quot;, or the
    attribute ends early and the rest becomes markup."""
    (tmp_path / "f.png").write_bytes(b"\x89PNG")
    h = report.render_html(_res(latex=r'\text{"q"}', figures=[{"file": "f.png", "caption": 'a "b" <c>'}]),
                           tmp_path)
    assert 'data-tex="\\text{&quot;q&quot;}"' in h
    assert 'alt="a &quot;b&quot; &lt;c&gt;"' in h


@pytest.mark.parametrize("fig", [{"file": "f.png", "caption": "cap"}, {"path": "f.png", "caption": "cap"},
                                 {"name": "f.png", "title": "cap"}])
def test_figure_entries_in_each_form(tmp_path, fig):
    """A suite's figure entry names its file as 'file', 'path' or 'name' and its caption as 'caption'
    or 'title': Markdown links it, HTML embeds the bytes on disk."""
    (tmp_path / "f.png").write_bytes(b"\x89PNG 123")
    res = _res(figures=[fig])
    assert "![cap](f.png)" in report.render_markdown(res)
    uri = "data:image/png;base64," + base64.b64encode(b"\x89PNG 123").decode()   # by hand: RFC 2397
    assert f'<img src="{uri}" alt="cap">' in report.render_html(res, tmp_path)


@pytest.mark.parametrize("name,mime", [("a.svg", "image/svg+xml"), ("a.JPG", "image/jpeg"),
                                       ("a.gif", "image/gif"), ("a.dat", "application/octet-stream")])
def test_figure_mime_types(tmp_path, name, mime):
    from theorykit.html import img_data_uri

    (tmp_path / name).write_bytes(b"abc")
    assert img_data_uri(tmp_path / name) == f"data:{mime};base64,YWJj"     # base64("abc") = "YWJj"


def test_claims_that_are_not_dicts_are_left_out():
    res = _res(["a stray string", 7, {"claim": "real", "verdict": "confirmed"}])
    assert [c["claim"] for c in res["claims"]] == ["real"]
    assert res["verdict_counts"] == {"confirmed": 1, "partly": 0, "not borne out": 0, "n/a": 0, "failed": 0}


def test_verdict_colours_green_amber_red_grey():
    """The verdict cell's colour: confirmed green, partly amber, not borne out red, n/a grey (the
    usual traffic-light reading; judged by the dominant channel of the colour, not its exact hex)."""
    def rgb(word):
        h = report.render_html(_res([{"claim": "c", "verdict": word}]), Path("."))
        m = re.search(r'<td class="v" style="color:#([0-9a-f]{6})">', h)
        return [int(m.group(1)[i:i + 2], 16) for i in (0, 2, 4)]

    r, g, b = rgb("confirmed")
    assert g > r and g > b
    r, g, b = rgb("not borne out")
    assert r > g and r > b
    r, g, b = rgb("partly")
    assert r > b and g > b and r >= g                     # amber: red and green over blue
    r, g, b = rgb("n/a")
    assert max(r, g, b) - min(r, g, b) < 0x30             # grey


# ------------------------------------------------------------------------------------------------
# JSON: NaN-safe and typed
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [float("inf"), -np.inf, np.float32("nan"), np.array([1.0, np.nan]),
                                 {"a": (1.0, np.array([[np.inf]]))}])
def test_non_finite_numbers_are_refused_anywhere(tmp_path, bad):
    """io's docstring: 'refuses NaN and infinity (they are never written)', in arrays too."""
    with pytest.raises(ValueError, match="non-finite"):
        io.write_json(tmp_path / "r.json", {"x": bad})
    assert not (tmp_path / "r.json").exists()


def test_numpy_scalars_keep_their_json_type(tmp_path):
    """np.int64(3) is the integer 3 (not 3.0), np.bool_ is true/false (not 1/0)."""
    io.write_json(tmp_path / "r.json", {"i": np.int64(3), "b": np.bool_(True), "a": np.arange(2)})
    text = (tmp_path / "r.json").read_text()
    assert json.loads(text) == {"i": 3, "b": True, "a": [0, 1]}
    assert '"i": 3,' in text and '"b": true' in text and "1.0" not in text


# ------------------------------------------------------------------------------------------------
# the one result type
# ------------------------------------------------------------------------------------------------
def test_trajectory_mean_and_std_are_over_the_batch():
    """loss[b, i] (batch × times). By hand for [[1, 2, 3], [3, 6, 3]]: mean over the batch
    [2, 4, 3], population std [1, 2, 0]; batch 2."""
    tr = Trajectory(t=np.array([0, 1, 2]), loss=np.array([[1.0, 2, 3], [3, 6, 3]]), saved={}, saved_t=np.array([]))
    np.testing.assert_array_equal(tr.mean, [2.0, 4.0, 3.0])
    np.testing.assert_array_equal(tr.std, [1.0, 2.0, 0.0])
    assert tr.batch == 2


def test_trajectory_batch_from_what_was_saved():
    """No loss curve: the batch is the first axis of what was saved (5 members × 2 times × 3)."""
    tr = Trajectory(t=np.array([0, 1]), loss=None, saved={"w": np.zeros((5, 2, 3))}, saved_t=np.array([0, 1]))
    assert tr.batch == 5


def test_divergence_is_a_tenfold_growth():
    """check_finite: non-finite, or the last loss above ten times the first ('grew tenfold')."""
    check_finite(np.array([[1.0, 5.0, 9.9]]), "run", 0.1)
    with pytest.raises(DivergenceError, match="lr=0.1"):
        check_finite(np.array([[1.0, 5.0, 10.5]]), "run", 0.1)
    with pytest.raises(DivergenceError):
        check_finite(np.array([[1.0, 0.5], [1.0, np.nan]]), "run", 0.1)


# ------------------------------------------------------------------------------------------------
# the sweep, with a trainer that returns hand-written losses
# ------------------------------------------------------------------------------------------------
@pytest.fixture
def sweep(monkeypatch):
    """run_sweep with its trainer replaced: member m's loss curve is constant at final[m] (given per
    test), so the summary can be checked by hand; the calls are counted."""
    from theorykit.analysis import sweep as sw
    from theorykit.spec.files import load_spec

    calls = []

    def fake_train(net, p0, data, *, lr, steps, batch, on_batch_result, **kw):
        n = len(lr)
        calls.append(n)
        final = state["final"]
        for a in range(0, n, batch):
            b = min(n, a + batch)
            on_batch_result(a, b, np.array([[final[a + j]] * (steps + 1) for j in range(b - a)]))

    state = {"final": None}
    monkeypatch.setattr(sw, "train_net", fake_train)
    spec = load_spec(Path(__file__).resolve().parents[1] / "examples" / "xor_linear.toml")
    return types.SimpleNamespace(run=sw.run_sweep, spec=spec, calls=calls, state=state)


def test_sweep_summary_is_over_the_seeds_that_did_not_diverge(sweep, tmp_path):
    """One point, lr 0.01 and 0.05, 3 seeds: members (lr0: s0 s1 s2, lr1: s0 s1 s2). Final losses
    1, 2, nan | 4, 4, 4. By hand: lr 0.01: mean 1.5, std 0.5 (population), 1 diverged; lr 0.05:
    mean 4, std 0, none diverged."""
    sweep.state["final"] = [1.0, 2.0, np.nan, 4.0, 4.0, 4.0]
    res = sweep.run(sweep.spec, {"Delta": [1.0], "lr": [0.01, 0.05]}, seeds=3, steps=2, out=tmp_path / "sw",
                    chunk=4, progress=False)
    a, b = res["results"]
    assert (a["lr"], a["final_loss_mean"], a["final_loss_std"], a["diverged_seeds"]) == (0.01, 1.5, 0.5, 1)
    assert (b["lr"], b["final_loss_mean"], b["final_loss_std"], b["diverged_seeds"]) == (0.05, 4.0, 0.0, 0)


@pytest.mark.parametrize("change", [{"steps": 3}, {"seeds": 1}, {"dtype": "float32"}])
def test_a_sweep_with_other_steps_seeds_or_dtype_is_another_sweep(sweep, tmp_path, change):
    """The folder's key covers the steps, the seed count and the dtype: resuming with another of
    them would mix curves of other lengths, other members (with chunk 1, chunk file 1 holds member 1
    either way: (point 0, seed 1) with 2 seeds, (point 1, seed 0) with 1) or other precision."""
    sweep.state["final"] = [1.0] * 8
    kw = dict(seeds=2, steps=2, dtype="float64")
    grid = {"Delta": [0.5, 1.0]}
    sweep.run(sweep.spec, grid, **kw, out=tmp_path / "sw", chunk=1, progress=False)
    with pytest.raises(SpecError, match="different sweep"):
        sweep.run(sweep.spec, grid, **{**kw, **change}, out=tmp_path / "sw", chunk=1, progress=False)


def test_saveat_with_both_ts_and_every_is_refused_where_it_is_made():
    """The docstring: ``every`` is "instead of ts". SaveAt(ts=[0], every=10) was accepted, and a run
    that read ts alone dropped every without a word."""
    from theorykit.errors import SpecError
    from theorykit.record import SaveAt

    with pytest.raises(SpecError, match="both ts and every"):
        SaveAt(ts=[0], every=10)
    assert SaveAt(every=10).every == 10 and list(SaveAt(ts=[0, 5]).ts) == [0, 5]
