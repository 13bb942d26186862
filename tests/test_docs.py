"""The documentation: the tutorial's REPL session runs as written, and the site builds strictly.

The strict build (``mkdocs build --strict``: warnings are errors) runs when mkdocs with its
plugins is installed (``pip install ".[docs]"``; .ci/run installs it and builds the site).
"""
from __future__ import annotations

import doctest
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _pycon_blocks(text: str) -> str:
    return "\n".join(m.group(1) for m in re.finditer(r"```pycon\n(.*?)```", text, flags=re.S))


def test_tutorial_session_runs_as_written(tmp_path, monkeypatch):
    src = _pycon_blocks((DOCS / "tutorial.md").read_text("utf-8"))
    assert src.count(">>>") > 20
    monkeypatch.chdir(tmp_path)       # the session writes xor_linear.tex
    test = doctest.DocTestParser().get_doctest(src, {}, "tutorial.md", str(DOCS / "tutorial.md"), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
    assert (tmp_path / "xor_linear.tex").read_text().startswith("\\documentclass")


def test_every_figure_page_names_its_command_and_its_images_exist():
    pages = sorted((DOCS / "figures").glob("fig*.md"))
    assert len(pages) == 5
    for page in pages:
        text = page.read_text("utf-8")
        assert "theorykit validate" in text, page
        for img in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
            assert (page.parent / img).is_file(), f"{page.name}: {img} missing"


def _have_mkdocs() -> bool:
    return all(importlib.util.find_spec(m) for m in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers"))


@pytest.mark.skipif(not _have_mkdocs(), reason="mkdocs, mkdocs-material, mkdocstrings[python] not installed "
                                               "(pip install \".[docs]\")")
def test_docs_build_strict(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    site = tmp_path / "site"
    assert (site / "javascripts" / "katex" / "katex.min.js").is_file()
    assert (site / "javascripts" / "katex" / "fonts" / "KaTeX_Main-Regular.woff2").is_file()
    api = (site / "api" / "index.html").read_text("utf-8")
    assert "theorykit.theory.derivation.Derivation" in api or "Derivation" in api
    assert (site / "lemmas" / "index.html").is_file()


def test_specs_md_lists_every_field_the_parser_accepts():
    """The field reference of docs/specs.md and the parser's key sets name the same fields."""
    import theorykit.spec.files as spec_mod

    text = (DOCS / "specs.md").read_text("utf-8")
    section = text.split("## Field reference", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `([^`]+)` \|", section, flags=re.M)
    assert sorted(documented) == sorted(spec_mod.FIELDS)
    # and FIELDS is what the parser uses: every key set of the parser appears in FIELDS
    keys = {("", spec_mod.TOP_KEYS), ("data.", spec_mod.DATA_KEYS), ("data.", spec_mod.XOR_KEYS),
            ("data.", spec_mod.CONTEXTS_KEYS), ("pathways[].", spec_mod.PATHWAY_KEYS),
            ("training.", spec_mod.TRAINING_KEYS), ("nodes[].", spec_mod.NODE_KEYS), ("edges[].", spec_mod.EDGE_KEYS),
            ("schedule[].", spec_mod.SCHEDULE_KEYS)}
    for prefix, names in keys:
        for k in names:
            full = prefix + k
            assert full in spec_mod.FIELDS or any(f.startswith(full + ".") for f in spec_mod.FIELDS) \
                or full in ("symbols", "data", "pathways", "training", "nodes", "edges", "schedule"), full
    for row in re.findall(r"^\| `[^`]+` \|(.*)$", section, flags=re.M):
        assert len([c for c in row.split("|") if c.strip()]) == 3, row   # type, range, default


def test_readme_is_a_short_introduction_without_history():
    """The README fits a five-minute read: at most 200 lines, no commit hashes, and it links the
    pages the measurements and the history moved to (which exist)."""
    text = (ROOT / "README.md").read_text("utf-8")
    assert len(text.splitlines()) <= 200
    hashes = [h for h in re.findall(r"\b[0-9a-f]{7,40}\b", text) if re.search(r"[a-f]", h) and re.search(r"\d", h)]
    assert hashes == [], hashes
    for page in ("docs/performance.md", "docs/validation.md", "docs/theory.md", "CHANGELOG.md"):
        assert f"({page})" in text and (ROOT / page).is_file(), page
    for target in re.findall(r"\]\(((?:docs|examples)/[^)#]+)", text):
        if not target.startswith("examples/notebooks"):       # written by the notebooks' own work
            assert (ROOT / target).exists(), target


def test_theory_anchors_cited_anywhere_exist():
    """Every anchor of ``docs/theory.md`` cited in the code, the suites, the tests, the docs and the examples
    is an anchor of docs/theory.md; the docs and examples no longer cite the external THEORY.md."""
    anchors = set(re.findall(r"\{#([a-z0-9-]+)\}", (DOCS / "theory.md").read_text("utf-8")))
    assert {"mode-ode", "closed-form", "effective-datasets", "race", "a0-rule", "time-conventions", "xor",
            "contexts", "lemma-4-1", "interlacing"} <= anchors
    cited = {}
    for folder in ("theorykit", "validation", "derivations", "tests", "docs", "examples"):
        for f in (ROOT / folder).rglob("*"):
            if f.suffix in (".py", ".md", ".toml") and f.is_file():
                for a in re.findall(r"theory\.md#([A-Za-z0-9_-]+)", f.read_text("utf-8", errors="replace")):
                    cited.setdefault(a, f.relative_to(ROOT))
    missing = {a: str(f) for a, f in cited.items() if a not in anchors}
    assert missing == {}
    for f in [ROOT / "README.md", *DOCS.rglob("*.md"), *(ROOT / "examples").rglob("*.toml")]:
        assert "THEORY.md" not in f.read_text("utf-8"), f
