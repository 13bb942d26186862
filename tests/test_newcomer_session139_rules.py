"""Rules from a newcomer's first hour with theorykit (session 139): what a reader who found the
project today clicked, ran and read, and what did not work as written.

* **Links resolve on GitHub.** A reader on GitHub follows a relative link from the file it is
  written in. docs/notebooks/index.md linked each notebook as ``01_xor_crossover.ipynb`` and
  docs/predict.md as ``notebooks/06_predict.ipynb``: files that exist only on the docs site (the
  mkdocs hook adds the notebooks there), so on GitHub all seven links were 404s. They are now written
  to the notebooks where they live (``../../examples/notebooks/...``), and the hook points them at
  the notebook's page on the site (the strict docs build of tests/test_docs.py checks the site side).

Each test here reads text files (no run of the package) and takes milliseconds.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md"] + sorted(DOCS.rglob("*.md"))

# a markdown link or image ``](target)`` (an optional "title" after it), and an HTML href/src
_MD_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HTML_LINK = re.compile(r"\b(?:href|src)=\"([^\"]+)\"")


def _prose(text: str) -> str:
    """The markdown without fenced code blocks (``` or ~~~) and inline code spans: links in code are
    not links."""
    out, fence = [], None
    for line in text.split("\n"):
        s = line.lstrip()
        if fence is None and s.startswith(("```", "~~~")):
            fence, line = s[:3], ""
        elif fence is not None:
            fence, line = (None if s.startswith(fence) else fence), ""
        out.append(line)
    return re.sub(r"(`+)(?:(?!\1).)+?\1", "", "\n".join(out))


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

