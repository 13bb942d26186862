"""The validation runner and report: caching, atomic writes, resuming, failures, Markdown and HTML.

Uses small fake suites (modules written to a temporary folder, served by a patched
``theorykit.suites.load_suite``) so that it does not depend on the real suites' run time.
"""
from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

import theorykit.suites as suites_mod
from theorykit import report
from theorykit.suites import load_package

validation = load_package("validation")

FAKE = '''
import json, os
from pathlib import Path
NAME = "{name}"
DESCRIPTION = "fake suite {name}: $a_0$ and friends"
VERSION = {version}

def run(out_dir, mode, progress=True):
    out_dir = Path(out_dir)
    counter = Path(os.environ["FAKE_COUNTER_DIR"]) / "{name}.count"
    n = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(n + 1))
    behaviour = os.environ.get("FAKE_{upper}", "ok")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.plot([0, 1], [1, 0])
    fig.savefig(out_dir / "{name}_fig.png", dpi=40)
    plt.close(fig)
    if behaviour == "raise":
        raise RuntimeError("boom in {name}")
    if behaviour == "interrupt":
        (out_dir / "{name}_half.png").write_bytes(b"\\x89PNG half")
        raise KeyboardInterrupt
    if behaviour == "nan":
        return {{"claims": [], "value": float("nan")}}
    return {{
        "suite": NAME, "mode": mode, "description": DESCRIPTION,
        "crossover_value": 0.8165, "runs": n + 1,
        "figures": ["{name}_fig.png"],
        "latex": {{"crossover": r"\\Delta^* = \\sqrt{{\\frac{{2}}{{3}}}}", "loss": r"$L(t) = \\frac{{1}}{{2}} s a(t)$"}},
        "claims": [
            {{"claim": "Claim one of {name} with $\\\\tau$", "ours": "0.82", "agreement": "0.1% off",
              "verdict": "confirmed"}},
            {{"claim": "Claim two of {name}", "measured": {{"x": 0.123456, "y": [1, 2]}},
              "criterion": "|x| < 1", "verdict": "partly supported"}},
            {{"claim": "Claim three of {name}", "ours": "n", "agreement": "far", "verdict": "not supported"}},
        ],
    }}
'''


@pytest.fixture
def fakes(tmp_path, monkeypatch):
    """Two fake suites ``alpha`` and ``beta``; returns a helper object."""
    src = tmp_path / "fake_src"
    src.mkdir()
    counters = tmp_path / "counters"
    counters.mkdir()
    monkeypatch.setenv("FAKE_COUNTER_DIR", str(counters))

    class F:
        names = ["alpha", "beta"]
        out = tmp_path / "out"

        @staticmethod
        def write(name, version=1):
            (src / f"fake_{name}.py").write_text(FAKE.format(name=name, upper=name.upper(), version=version))

        @staticmethod
        def load(name):
            path = src / f"fake_{name}.py"
            spec = importlib.util.spec_from_file_location(f"fake_{name}", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return mod

        @staticmethod
        def count(name):
            p = counters / f"{name}.count"
            return int(p.read_text()) if p.exists() else 0

        @staticmethod
        def run(**kw):
            kw.setdefault("progress", False)
            kw.setdefault("report", True)
            return validation.run_suites(F.out, kw.pop("mode", "quick"), kw.pop("names", F.names), **kw)

    # `theorykit validate` holds its own reference, bound when a test before this one imported it
    # (then it ran the real suites' names with the fake loader, and failed, by test order alone);
    # imported before the patches below: imported after them, it bound the fake, monkeypatch
    # "restored" the fake, and every later test in the process saw only alpha and beta
    from theorykit.cli import validate as cli_validate

    for n in F.names:
        F.write(n)
    monkeypatch.setattr(suites_mod, "load_suite", F.load)
    monkeypatch.setattr(suites_mod, "available_suites", lambda: list(F.names))
    monkeypatch.setattr(cli_validate, "available_suites", lambda: list(F.names))
    return F


def visible_files(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()
            and not p.relative_to(out).parts[0].startswith(".")}


def test_run_writes_results_reports_and_figures(fakes):
    assert fakes.run() == 0
    out = fakes.out
    assert visible_files(out) == {"alpha.json", "beta.json", "alpha_fig.png", "beta_fig.png", "results.json",
                                  "report.md", "report.html"}
    res = json.loads((out / "results.json").read_text())
    assert res["mode"] == "quick" and res["theorykit_version"]
    assert set(res["suites"]) == {"alpha", "beta"} and res["failed"] == {}
    assert len(res["claims"]) == 6 and {c["suite"] for c in res["claims"]} == {"alpha", "beta"}
    assert [c["verdict_class"] for c in res["claims"][:3]] == ["confirmed", "partly", "not borne out"]
    assert res["verdict_counts"] == {"confirmed": 2, "partly": 2, "not borne out": 2, "n/a": 0, "failed": 0}
    # the xor-style row (measured / criterion) fills "our figure" and "agreement"
    row = res["claims"][1]
    assert row["ours"] == "x 0.123, y (1, 2)" and row["agreement"] == "|x| < 1"
    one = json.loads((out / "alpha.json").read_text())
    assert one["suite"] == "alpha" and one["seconds"] >= 0 and one["cache_key"]
    assert not (out / validation.STAGING_DIR).exists()


def test_rerun_skips_cached_suites_and_force_reruns(fakes):
    assert fakes.run() == 0
    assert (fakes.count("alpha"), fakes.count("beta")) == (1, 1)
    report_before = (fakes.out / "report.md").read_text()
    assert fakes.run() == 0
    assert (fakes.count("alpha"), fakes.count("beta")) == (1, 1)
    # the cached result is the one reported (runs == 1), and the report is rebuilt from it
    res = json.loads((fakes.out / "results.json").read_text())
    assert res["suites"]["alpha"]["runs"] == 1 and res["status"] == {"alpha": "cached", "beta": "cached"}
    assert (fakes.out / "report.md").read_text() == report_before
    assert fakes.run(force=True) == 0
    assert (fakes.count("alpha"), fakes.count("beta")) == (2, 2)
    # another mode has another key
    assert fakes.run(mode="full") == 0
    assert (fakes.count("alpha"), fakes.count("beta")) == (3, 3)
    # a quick run into the folder now holding the full results would replace them (hours of GPU
    # time): refused before anything runs or is written, naming --out; --force replaces them
    before = {p: p.read_bytes() for p in fakes.out.rglob("*") if p.is_file()}
    from theorykit.errors import SpecError

    with pytest.raises(SpecError, match=r"--out: .* holds the full run of alpha, beta: a quick run would replace it"):
        fakes.run()
    assert (fakes.count("alpha"), fakes.count("beta")) == (3, 3)
    assert {p: p.read_bytes() for p in fakes.out.rglob("*") if p.is_file()} == before
    assert fakes.run(force=True) == 0
    assert (fakes.count("alpha"), fakes.count("beta")) == (4, 4)
    assert json.loads((fakes.out / "alpha.json").read_text())["mode"] == "quick"


def test_cache_invalidated_by_source_and_by_damaged_outputs(fakes):
    assert fakes.run() == 0
    fakes.write("alpha", version=2)            # the suite's source changed
    assert fakes.run() == 0
    assert (fakes.count("alpha"), fakes.count("beta")) == (2, 1)
    (fakes.out / "beta_fig.png").unlink()      # a figure went missing
    assert fakes.run() == 0
    assert fakes.count("beta") == 2 and (fakes.out / "beta_fig.png").is_file()
    p = fakes.out / "alpha.json"               # a result file was edited
    p.write_text(p.read_text().replace('"runs": 2', '"runs": 99'))
    assert fakes.run() == 0
    assert fakes.count("alpha") == 3
    assert json.loads(p.read_text())["runs"] == 3


def test_cache_key_depends_on_name_mode_source_and_package(fakes, monkeypatch):
    mod = fakes.load("alpha")
    k = validation.cache_key("alpha", "quick", mod)
    assert k == validation.cache_key("alpha", "quick", mod)
    assert k != validation.cache_key("alpha", "full", mod)
    assert k != validation.cache_key("beta", "quick", mod)
    fp = validation.code_fingerprint()
    monkeypatch.setattr(validation, "_FINGERPRINT", {**fp, "theorykit_sources": "0" * 64})
    assert k != validation.cache_key("alpha", "quick", mod)
    monkeypatch.setattr(validation, "_FINGERPRINT", {**fp, "theorykit_version": "9.9.9"})
    assert k != validation.cache_key("alpha", "quick", mod)
    # another JAX draws other random bits, another device computes otherwise: not the cached verdict
    monkeypatch.setattr(validation, "_FINGERPRINT", {**fp, "dependencies": {**fp["dependencies"], "jax": "0.4.30"}})
    assert k != validation.cache_key("alpha", "quick", mod)
    monkeypatch.setattr(validation, "_FINGERPRINT", {**fp, "backend": "gpu"})
    assert k != validation.cache_key("alpha", "quick", mod)
    assert fp["backend"] == __import__("jax").default_backend() and fp["dependencies"]["sympy"]


def test_no_suite_imports_what_the_cache_key_leaves_out():
    """The cache key leaves out the interfaces above the suites (the command line, the benchmarks, the
    report): an edit there must not cost a --full run its cache, and that is only safe while no suite
    and nothing a suite imports loads them. Checked on the suites' own import graph (a fresh process
    importing every suite; the left-out modules must not be in sys.modules afterwards)."""
    import subprocess

    # progress.py is imported (the suites' bars) and report.py by the runner: they draw and write, and
    # compute nothing a verdict reads; the rest must not be loaded at all
    quiet = ("__main__.py", "report.py", "progress.py")
    left_out = [f"theorykit.{n[:-3]}" for n in validation._NOT_IN_KEY if n not in quiet]
    left_out += [f"theorykit.{d}" for d in validation._DIRS_NOT_IN_KEY]
    code = ("import sys\nfrom theorykit.suites import available_suites, load_suite\n"
            "[load_suite(n) for n in available_suites()]\n"
            f"print([m for m in sys.modules if any(m == x or m.startswith(x + '.') for x in {left_out!r})])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out


def test_cache_key_depends_on_the_example_spec_files(fakes, monkeypatch, tmp_path):
    """depth_protocols reads examples/section6_paper.toml and section6_joint.toml: editing one must change
    the key (a stale cached verdict otherwise)."""
    real = validation._examples_dir()
    assert real is not None and (real / "section6_paper.toml").is_file() and (real / "section6_joint.toml").is_file()
    ex = tmp_path / "examples"
    ex.mkdir()
    (ex / "section6_paper.toml").write_text("a = 1\n")
    monkeypatch.setattr(validation, "_examples_dir", lambda: ex)
    mod = fakes.load("alpha")
    monkeypatch.setattr(validation, "_FINGERPRINT", None)
    k = validation.cache_key("alpha", "quick", mod)
    (ex / "section6_paper.toml").write_text("a = 2\n")
    monkeypatch.setattr(validation, "_FINGERPRINT", None)
    assert validation.cache_key("alpha", "quick", mod) != k
    (ex / "section6_paper.toml").write_text("a = 1\n")
    monkeypatch.setattr(validation, "_FINGERPRINT", None)
    assert validation.cache_key("alpha", "quick", mod) == k


def test_failed_suite_is_recorded_and_the_others_run(fakes, monkeypatch):
    monkeypatch.setenv("FAKE_ALPHA", "raise")
    assert fakes.run() == 1
    res = json.loads((fakes.out / "results.json").read_text())
    assert set(res["failed"]) == {"alpha"} and "boom in alpha" in res["failed"]["alpha"]["error"]
    assert set(res["suites"]) == {"beta"} and res["verdict_counts"]["failed"] == 1
    assert not (fakes.out / "alpha.json").exists() and not (fakes.out / "alpha_fig.png").exists()
    assert "boom in alpha" in (fakes.out / "report.html").read_text()
    assert "alpha (failed)" in (fakes.out / "report.md").read_text()
    # a failure is not cached: the next run tries again, and succeeds
    monkeypatch.setenv("FAKE_ALPHA", "ok")
    assert fakes.run() == 0
    assert (fakes.count("alpha"), fakes.count("beta")) == (2, 1)


def test_nan_result_fails_without_clobbering_the_previous_result(fakes, monkeypatch):
    assert fakes.run() == 0
    before = (fakes.out / "alpha.json").read_bytes()
    monkeypatch.setenv("FAKE_ALPHA", "nan")
    assert fakes.run(force=True, names=["alpha"]) == 1
    assert (fakes.out / "alpha.json").read_bytes() == before
    err = json.loads((fakes.out / "results.json").read_text())["failed"]["alpha"]["error"]
    assert "non-finite" in err and "result['value']" in err
    # and the untouched cache entry still matches the untouched result: a plain run skips it
    monkeypatch.setenv("FAKE_ALPHA", "ok")
    n = fakes.count("alpha")
    assert fakes.run(names=["alpha"]) == 0 and fakes.count("alpha") == n


def test_interrupted_run_leaves_no_partial_files_and_resumes(fakes, monkeypatch):
    monkeypatch.setenv("FAKE_BETA", "interrupt")
    with pytest.raises(KeyboardInterrupt):
        fakes.run()
    out = fakes.out
    # alpha finished; beta left nothing visible (its figures stay in the hidden staging folder)
    assert visible_files(out) == {"alpha.json", "alpha_fig.png"}
    assert not (out / validation.CACHE_DIR / "beta.json").exists()
    monkeypatch.setenv("FAKE_BETA", "ok")
    assert fakes.run() == 0
    assert (fakes.count("alpha"), fakes.count("beta")) == (1, 2)   # resumed at beta
    assert "beta_half.png" not in visible_files(out)
    assert not (out / validation.STAGING_DIR).exists()


def test_no_temporary_files_left(fakes):
    assert fakes.run() == 0
    assert not [p for p in fakes.out.rglob("*.tmp")]


def test_markdown_report(fakes):
    assert fakes.run() == 0
    md = (fakes.out / "report.md").read_text()
    assert "| suite | paper claim | our figure | agreement | verdict |" in md
    assert "| alpha | Claim one of alpha with $\\tau$ | 0.82 | 0.1% off | **confirmed** |" in md
    assert "![alpha_fig.png](alpha_fig.png)" in md
    assert "$$\n\\Delta^* = \\sqrt{\\frac{2}{3}}\n$$" in md
    assert "$$\nL(t) = \\frac{1}{2} s a(t)\n$$" in md      # the suite's own $…$ stripped, not doubled
    assert "confirmed: 2, partly: 2, not borne out: 2" in md
    # the table speaks the summary's words: a suite's own word follows its class in parentheses
    assert "| alpha | Claim three of alpha | n | far | **not borne out (not supported)** |" in md
    assert "**partly (partly supported)** |" in md
    cells = [line.rsplit("|", 2)[-2].strip() for line in md.splitlines() if line.startswith("| alpha |")
             or line.startswith("| beta |")]
    assert sorted(c.strip("*").split(" (")[0] for c in cells) == sorted(["confirmed", "partly", "not borne out"] * 2)


def test_html_report_is_self_contained(fakes):
    assert fakes.run() == 0
    h = (fakes.out / "report.html").read_text()
    # the figures embedded as data URIs, decoding to the PNG on disk
    import base64

    uris = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', h)
    assert len(uris) == 2
    assert base64.b64decode(uris[0]) == (fakes.out / "alpha_fig.png").read_bytes()
    # KaTeX inlined, fonts as data URIs, nothing fetched from elsewhere
    assert "katex" in h and "renderMathInElement" in h
    assert "data:font/woff2;base64," in h and "url(fonts/" not in h
    page = re.sub(r"<script>.*?</script>", "", h, flags=re.S)     # the markup outside the inline scripts
    assert "<link" not in page and "<script src" not in h
    assert not re.search(r'<(img|link|script)\b[^>]*\b(src|href)="(?!data:)', page)
    # LaTeX from the suite result kept as data for KaTeX, escaped
    assert 'data-tex="\\Delta^* = \\sqrt{\\frac{2}{3}}"' in h
    assert "<th>paper claim</th><th>our figure</th><th>agreement</th><th>verdict</th>" in h


def test_html_escapes_suite_text():
    res = report.build_results("quick", {"s": {"description": "<script>alert(1)</script>",
                                               "claims": [{"claim": "a < b & c", "ours": "<b>", "agreement": "x",
                                                           "verdict": "confirmed"}]}})
    h = report.render_html(res, Path("."))
    assert "<script>alert(1)</script>" not in h and "&lt;script&gt;alert(1)&lt;/script&gt;" in h
    assert "a &lt; b &amp; c" in h


def test_missing_figure_is_reported_not_fatal(tmp_path):
    res = report.build_results("quick", {"s": {"figures": ["nope.png"], "claims": []}})
    assert "figure nope.png is missing" in report.render_html(res, tmp_path)


@pytest.mark.parametrize("word,cls", [("confirmed", "confirmed"), ("Supported", "confirmed"),
                                      ("partly supported", "partly"), ("partly", "partly"),
                                      ("not borne out", "not borne out"), ("not supported", "not borne out"),
                                      ("n/a", "n/a"), (None, "n/a"), ("weird", "n/a"), (True, "confirmed")])
def test_verdict_class(word, cls):
    assert report.verdict_class(word) == cls


def test_collect_latex_nested():
    res = {"theory": {"crossover": {"latex": r"\sqrt{6}/3"}}, "latex": {"a": "x^2"}, "claims": [{"latex": "no"}],
           "list": [{"latex": "y"}]}
    got = report.collect_latex(res)
    assert ("theory / crossover", r"\sqrt{6}/3") in got and ("a", "x^2") in got and ("list / 0", "y") in got
    assert all(t != "no" for _, t in got)


def test_cli_validate_all_runs_the_fake_suites(fakes):
    from theorykit.cli import main

    assert main(["validate", "all", "--quick", "--out", str(fakes.out), "--no-progress"]) == 0
    assert (fakes.out / "report.html").is_file() and (fakes.out / "results.json").is_file()
    # one suite only: no report
    out2 = fakes.out.parent / "one"
    assert main(["validate", "alpha", "--out", str(out2), "--no-progress"]) == 0
    assert (out2 / "alpha.json").is_file() and not (out2 / "report.html").exists()


def test_katex_assets_are_package_data():
    from importlib import resources

    root = resources.files("theorykit").joinpath("assets", "katex")
    for f in ("katex.min.js", "katex.min.css", "contrib/auto-render.min.js", "LICENSE",
              "fonts/KaTeX_Main-Regular.woff2", "fonts/KaTeX_Math-Italic.woff2"):
        assert root.joinpath(*f.split("/")).is_file(), f
    from theorykit.html import katex_css_inline

    css = katex_css_inline()
    assert css.count("@font-face") == css.count("data:font/woff2;base64,") > 10


def _visible(html_page: str) -> str:
    """The page's text outside its inline scripts and styles (KaTeX's own code is not content)."""
    return re.sub(r"<(script|style)>.*?</\1>", "", html_page, flags=re.S)


def test_report_cells_hold_prose_rounded_figures_and_math_only(tmp_path):
    """A suite result with every kind of raw program output the report once showed: a dict value,
    a dict printed into a string, 17-digit floats, SymPy-printed code math and a reference to the
    external THEORY.md note. None of it may survive into report.md or report.html."""
    counts = {"common": 1006, "k-1-context": 2803, "single-context": 12}
    suite = {
        "description": "Context tasks (THEORY.md §5, §9).",
        "long_value": 0.12345678901234567,
        "expr_value": r"\tilde{\sigma}_\alpha*sqrt(k - 1)/(k**(3/2)*n)",
        "claims": [
            {"claim": "units are common or (k-1)-context (THEORY.md §5)", "ours": counts,
             "agreement": f"significant units by context: {counts}; mean purity 0.91234567890123456",
             "verdict": "confirmed", "source": "paper Section 4; THEORY.md"},
            {"claim": "closed form", "verdict": "confirmed", "agreement": "exact",
             "ours": r"s = \tilde{\sigma}_\alpha*sqrt(k - 1)/(k**(3/2)*n), d = 1/(k*n)"},
            {"claim": "a float", "ours": 2.718281828459045, "agreement": {"rel_error": 1.2345678901234e-05},
             "verdict": "partly"},
        ]}
    res = report.build_results("quick", {"contexts": suite})
    md = report.render_markdown(res)
    page = _visible(report.render_html(res, tmp_path))
    for name, text in (("report.md", md), ("report.html", page)):
        assert "THEORY.md" not in text, name
        assert "{'" not in text and "&#x27;common&#x27;" not in text and "'common'" not in text, name
        assert not re.search(r"\d\.\d{5,}", text), (name, re.findall(r"\d\.\d{5,}", text))
        assert "**(" not in text and "sqrt(" not in text and "k*n" not in text, name
        # what replaced them: prose, rounded figures, LaTeX, the project's theory page
        assert "common 1006, k−1-context 2803, single-context 12" in text, name
        assert "0.123" in text and "0.912" in text and "2.72" in text and "1.23e-05" in text, name
        assert "docs/theory.md#contexts" in text, name
        assert r"\tilde{\sigma}_\alpha" in text and r"\sqrt{k - 1}" in text and r"k^{\frac{3}{2}}" in text, name
        assert r"$\frac{1}{k n}$" in text, name


def test_prose_leaves_ordinary_text_alone():
    for s in ("tolerance 0.05·L(0)", "k = 2..8", "common+double within 0.84% of the winner",
              "version 0.1.0 at step 30001", "results/*.png", "(a*b, c)", "|x| < 1"):
        assert report.prose(s) == s
    assert report.prose("Δ* = sqrt(6)/3 ≈ 0.8165") == r"Δ* = $\frac{\sqrt{6}}{3}$ ≈ 0.8165"
