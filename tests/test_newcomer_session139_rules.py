"""Rules from a newcomer's first hour with theorykit (session 139): what a reader who found the
project today clicked, ran and read, and what did not work as written.

* **Links resolve on GitHub.** A reader on GitHub follows a relative link from the file it is
  written in. docs/notebooks/index.md linked each notebook as ``01_xor_crossover.ipynb`` and
  docs/predict.md as ``notebooks/06_predict.ipynb``: files that exist only on the docs site (the
  mkdocs hook adds the notebooks there), so on GitHub all seven links were 404s. They are now written
  to the notebooks where they live (``../../examples/notebooks/...``), and the hook points them at
  the notebook's page on the site (the strict docs build of tests/test_docs.py checks the site side).
* **Where the results land.** The README's Set up names the report to open, ``results/report.html``.
* **The report's figures say what they show.** Six of the twelve figures of ``validate all``'s report
  (depth, gates, lemmas) were captioned with their file names; each suite figure now has a caption.
* **Each suite's section says what it does.** Only the xor section of the report had its suite's
  DESCRIPTION under its heading; the runner now gives every result its suite's.
* **The report says how to read it**: the verdict words as docs/validation.md defines them, and that a
  quick run is at reduced sizes.
* **derive and simulate say what they wrote**, on a terminal, as predict and race-exhaust do.

Each test here reads text files or source (no run of the package) and takes milliseconds.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from test_docs import _without_fences       # the one reader of fenced blocks

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md"] + sorted(DOCS.rglob("*.md"))

# a markdown link or image ``](target)`` (an optional "title" after it), and an HTML href/src
_MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_LINK = re.compile(r"\b(?:href|src)=\"([^\"]+)\"")


def _prose(text: str) -> str:
    """The markdown without fenced code blocks (``` or ~~~, blanked by test_docs' reader) and inline code
    spans: links in code are not links."""
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", _without_fences(text))


def _relative_links(page: Path) -> list[str]:
    """The relative targets (no scheme, not a same-page ``#anchor``) that ``page`` links to."""
    text = _prose(page.read_text("utf-8"))
    targets = _MD_LINK.findall(text) + _HTML_LINK.findall(text)
    return [t for t in targets if not re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", t) and not t.startswith("#")]


def _dead_on_github(page: Path) -> list[str]:
    """The relative links of ``page`` that name no file or folder, resolved as GitHub resolves them:
    from the folder of the page, within the repository."""
    dead = []
    for target in _relative_links(page):
        path = target.split("#", 1)[0].split("?", 1)[0]
        if path and not (page.parent / path).exists():
            dead.append(target)
    return dead


def test_the_link_finder_sees_links_and_skips_code():
    """The checker below must be able to fail: it finds a markdown link, an image and an href, and leaves
    out URLs, same-page anchors and links inside code (a fence or a code span)."""
    page = ROOT / "README.md"          # any real page: only its folder is used here
    text = ("[a](docs/a.md) ![b](img/b.png \"title\") <a href=\"c.html#x\">c</a> [u](https://x.org) "
            "[s](#here) `[d](in_code.md)`\n```\n[e](in_fence.md)\n```\n")
    found = _MD_LINK.findall(_prose(text)) + _HTML_LINK.findall(_prose(text))
    assert found == ["docs/a.md", "img/b.png", "https://x.org", "#here", "c.html#x"]
    assert _relative_links(page)                                   # the README has relative links
    assert (page.parent / "docs" / "index.md").is_file()


def test_every_relative_link_of_the_readme_and_the_docs_resolves_on_github():
    """Every relative link in README.md and docs/**/*.md names a file or folder that exists, from the
    folder of the page that holds it, as a reader on GitHub follows it (anchors: tests/test_docs.py)."""
    dead = {str(p.relative_to(ROOT)): d for p in PAGES if (d := _dead_on_github(p))}
    assert dead == {}, (f"links that are 404s on GitHub: {dead} (fix: write the link relative to the page, to "
                        "the file in the repository; a notebook is ../examples/notebooks/NAME.ipynb from docs/)")


def test_notebook_links_of_the_docs_point_at_the_notebooks_pages_on_the_site():
    """docs/_hooks/notebooks.py turns a page's link to ``examples/notebooks/NAME.ipynb`` (written relative
    to the page, for GitHub) into a link to the notebook's page of the site, ``notebooks/NAME.ipynb``
    relative to the page; other links, and a link written in code, are left alone."""
    pytest.importorskip("mkdocs", reason="the docs hook needs the docs extra: pip install -e \".[docs]\"")
    spec = importlib.util.spec_from_file_location("_nb_hook", DOCS / "_hooks" / "notebooks.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)

    def page(src_uri):
        return SimpleNamespace(file=SimpleNamespace(src_uri=src_uri))

    md = ("[one](../../examples/notebooks/01_xor_crossover.ipynb) [two](../examples/notebooks/06_predict.ipynb#run) "
          "[spec](../../examples/xor_reln.toml) [page](../theory.md)")
    out = hook.on_page_markdown(md, page("notebooks/index.md"), {}, None)
    # from docs/notebooks/index.md, ../../examples/notebooks/X is the notebook; ../examples/... is not
    assert out == ("[one](01_xor_crossover.ipynb) [two](../examples/notebooks/06_predict.ipynb#run) "
                   "[spec](../../examples/xor_reln.toml) [page](../theory.md)")
    out = hook.on_page_markdown("see [nb](../examples/notebooks/06_predict.ipynb#run).", page("predict.md"), {}, None)
    assert out == "see [nb](notebooks/06_predict.ipynb#run)."
    fenced = "```\n[nb](../examples/notebooks/06_predict.ipynb)\n```"
    assert hook.on_page_markdown(fenced, page("predict.md"), {}, None) == fenced


def test_readme_set_up_names_the_report_its_main_command_writes():
    """"Where do the results land?": the README's Set up said "with a report, into `results/`" and named no
    file to open. It now names the report, in the folder the main command's ``validate all --out`` gives,
    with the name theorykit.report writes it under (read from the source, not from a run)."""
    readme = (ROOT / "README.md").read_text("utf-8")
    setup = readme.split("## Set up\n", 1)[1].split("\n## ", 1)[0]
    prose, command = setup.split("```bash\n", 1)[0], setup.split("```bash\n", 1)[1].split("\n", 1)[0]
    out = re.search(r"theorykit validate all\b[^&]*--out (\S+)", command).group(1)
    writer = (ROOT / "theorykit" / "report.py").read_text("utf-8")
    assert 'out_dir / "report.html"' in writer, "theorykit.report no longer writes report.html into out_dir"
    assert f"`{out.rstrip('/')}/report.html`" in " ".join(prose.split()), \
        f"the README's Set up does not say where the report is (`{out}/report.html`)"


# ------------------------------------------------------------------------------------------------
# The report's figures say what they show
# ------------------------------------------------------------------------------------------------
# `theorykit validate all` writes report.html with each suite's figures under the caption the suite gives
# (theorykit.report._figures: a figure without one is captioned with its file name). The xor and
# contexts suites gave captions; depth, gates and lemmas gave bare file names, so six of the report's
# twelve figures were captioned "fig6_depth.png", "fig9_elbow.png", ... A suite's figures are now
# each {"file", "caption"}. The suites train networks for minutes, so this reads their source.
VALIDATION = ROOT / "validation"


def _figure_lists(tree):
    """Every list literal given as a suite result's ``"figures"``: a dict's value or ``x["figures"] = [...]``."""
    import ast

    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value == "figures" and isinstance(v, ast.List):
                    yield v
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.List):
            for t in node.targets:
                if (isinstance(t, ast.Subscript) and isinstance(t.slice, ast.Constant)
                        and t.slice.value == "figures"):
                    yield node.value


def _uncaptioned(lst) -> list[str]:
    """The entries of a ``"figures"`` list literal that are not ``{"file": ..., "caption": <words>}``."""
    import ast

    bad = []
    for elt in lst.elts:
        keys = {k.value: v for k, v in zip(elt.keys, elt.values) if isinstance(k, ast.Constant)} \
            if isinstance(elt, ast.Dict) else {}
        cap = keys.get("caption")
        words = cap is not None and not (isinstance(cap, ast.Constant) and str(cap.value).endswith(".png"))
        if "file" not in keys or not words:
            bad.append(ast.unparse(elt)[:60])
    return bad


def test_every_suite_figure_in_the_report_has_a_caption():
    import ast

    found, bad = {}, {}
    for path in sorted(VALIDATION.glob("*.py")):
        for lst in _figure_lists(ast.parse(path.read_text("utf-8"))):
            found[path.stem] = found.get(path.stem, 0) + len(lst.elts)
            if b := _uncaptioned(lst):
                bad.setdefault(path.stem, []).extend(b)
    # contexts, depth, gates and lemmas list their figures literally (xor's come from xor_figures, with captions)
    assert {"contexts", "depth", "gates", "lemmas"} <= set(found), found
    assert bad == {}, f"figures the report would caption with their file name: {bad} (fix: {{'file', 'caption'}})"


def test_the_caption_check_catches_a_bare_file_name():
    import ast

    tree = ast.parse('r = {"figures": ["a.png", {"file": "b.png"}, {"file": "c.png", "caption": "c.png"}, '
                     '{"file": "d.png", "caption": "Fig. 1: words"}]}\nr["figures"] = [f()]')
    found = sorted(_uncaptioned(x) for x in _figure_lists(tree))
    assert found == [["'a.png'", "{'file': 'b.png'}", "{'file': 'c.png', 'caption': 'c.png'}"], ["f()"]]


# ------------------------------------------------------------------------------------------------
# Each suite's section of the report says what the suite does
# ------------------------------------------------------------------------------------------------
# Every suite module defines DESCRIPTION (theorykit/suites.py's docstring), and the report prints a
# result's "description" under the suite's heading. Only the xor suite copied its DESCRIPTION into its
# result, so the contexts, depth, gates and lemmas sections began with bare numbers. The runner now
# gives each result its suite's DESCRIPTION (a run, and a cached result alike), unless it has one.
_FAKE_SUITE = '''
from pathlib import Path
NAME = "{name}"
DESCRIPTION = "Section 9: the {name} claims <checked> by hand"

def run(out_dir, mode, progress=True):
    (Path(out_dir) / "{name}.png").write_bytes(b"\\x89PNG fake")
    return {{"figures": [{{"file": "{name}.png", "caption": "a figure"}}],
             "claims": [{{"claim": "one", "ours": "x", "agreement": "|x| < 1", "verdict": "confirmed"}}]}}
'''


def test_the_report_prints_each_suites_description_run_or_cached(tmp_path, monkeypatch):
    import json

    import theorykit.suites as suites_mod
    from theorykit.suites import load_package

    validation = load_package("validation")
    src = tmp_path / "src"
    src.mkdir()
    (src / "gamma.py").write_text(_FAKE_SUITE.format(name="gamma"))

    def load(name):
        spec = importlib.util.spec_from_file_location(f"tk_s139_{name}", src / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    monkeypatch.setattr(suites_mod, "load_suite", load)
    out = tmp_path / "out"
    want = "Section 9: the gamma claims <checked> by hand"          # the fake suite's DESCRIPTION, as written
    for status in ("ran", "cached"):
        assert validation.run_suites(out, "quick", ["gamma"], progress=False, report=True) == 0
        doc = json.loads((out / "results.json").read_text("utf-8"))
        assert doc["status"] == {"gamma": status}
        assert doc["suites"]["gamma"]["description"] == want, status
        page = (out / "report.html").read_text("utf-8")
        assert "Section 9: the gamma claims &lt;checked&gt; by hand" in page, status     # escaped, as html_escape does
        assert want in (out / "report.md").read_text("utf-8"), status


# ------------------------------------------------------------------------------------------------
# The report says how to read it
# ------------------------------------------------------------------------------------------------
# report.html opened with "confirmed: 16, partly: 13, not borne out: 9, n/a: 2" and a table, and no word
# of what the verdicts mean or that a quick run is at reduced sizes; the definitions were only on
# docs/validation.md. The report now says both, in the words of docs/validation.md.
def _verdict_definitions() -> dict[str, str]:
    """docs/validation.md's "Verdicts:" paragraph: ``**word** (meaning)`` for partly and not borne out."""
    text = " ".join((DOCS / "validation.md").read_text("utf-8").split("Verdicts:", 1)[1].split("\n\n", 1)[0].split())
    return {m.group(1): m.group(2) for m in re.finditer(r"\*\*([a-z ]+)\*\* \(([^()]+)\)", text)}


def test_the_report_defines_its_verdicts_as_docs_validation_does_and_names_a_quick_run():
    from theorykit import report

    defs = _verdict_definitions()
    assert set(defs) >= {"partly", "not borne out"}, defs
    doc = {"mode": "quick", "theorykit_version": "0", "suites": {}, "claims": [], "failed": {},
           "verdict_counts": {}}
    for page in (report.render_markdown(doc), report.render_html(doc, Path("."))):
        flat = " ".join(page.split())
        for word, meaning in defs.items():
            assert f"{word} ({meaning})" in flat, (word, meaning)
        assert "quick run, at reduced sizes" in flat and "--full" in flat
    full = " ".join(report.render_markdown(dict(doc, mode="full")).split())
    assert "partly (" + defs["partly"] + ")" in full and "quick run" not in full


# ------------------------------------------------------------------------------------------------
# derive and simulate say what they wrote
# ------------------------------------------------------------------------------------------------
# The README's main command runs derive --latex A --json B and simulate --json C; on a terminal each
# printed its summary and never the files, while predict ends "wrote pred.toml" and race-exhaust
# "-> DIR/exhaust.json, ...". Their summaries now end "  wrote B, A": the JSON, then the others.
def test_derive_and_simulate_on_a_terminal_end_with_the_files_they_wrote(tmp_path, monkeypatch, capsys):
    from theorykit.analysis import summary
    from theorykit.cli import main

    spec = str(ROOT / "examples" / "xor_linear.toml")
    monkeypatch.setattr(summary, "stdout_is_terminal", lambda: True)
    j, tex = tmp_path / "d.json", tmp_path / "d.tex"
    assert main(["derive", spec, "--set", "Delta=1", "--json", str(j), "--latex", str(tex)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"  wrote {j}, {tex}"
    assert j.is_file() and tex.is_file()
    assert main(["derive", spec, "--set", "Delta=1"]) == 0          # nothing written: no such line
    assert "wrote" not in capsys.readouterr().out
    png = tmp_path / "s.png"
    assert main(["simulate", spec, "--set", "Delta=1", "--seeds", "1", "--steps", "20", "--plot", str(png),
                 "--no-progress"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"  wrote {png}" and png.is_file()
    monkeypatch.setattr(summary, "stdout_is_terminal", lambda: False)   # a pipe: the JSON file, nothing printed
    assert main(["derive", spec, "--set", "Delta=1", "--json", str(j)]) == 0
    assert capsys.readouterr().out == ""
