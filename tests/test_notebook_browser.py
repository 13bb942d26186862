"""The notebooks as the docs render them, in headless Chromium: figures load and mathematics is typeset.

The docs are built (``mkdocs build --strict``, mkdocs-jupyter with ``execute: false``) into a
temporary folder; each notebook page is opened in Chromium (as in tests/test_browser.py) with a
small probe appended that writes every image's ``naturalWidth`` into the DOM once the page has
loaded. Checked per page:

* every image (the notebook's figures, inlined as PNG) has ``naturalWidth > 0``, and the page has
  at least as many as the notebook has figure outputs;
* KaTeX has run (``data-math="rendered"``, set by docs/_hooks/notebooks.py), with no KaTeX error,
  at least one KaTeX node per math span of the notebook's markdown and per LaTeX output (counted
  from the notebook's own cells), and no raw ``$…$``, ``$$``, ``\\frac`` … left in the visible text.

The checker is itself tested on a page whose figure is broken and whose math is left unrendered.
Skips without chromium (Debian: ``apt-get install chromium``; .ci/run installs it) or without the
docs extra.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from test_browser import CHROMIUM, RAW_MATH, Rendered, chromium

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install "
                                                         "chromium; .ci/run installs it)")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "examples" / "notebooks").glob("*.ipynb"))

PROBE = """<script>
window.addEventListener("load", function () {
  var imgs = document.querySelectorAll("article img");
  var ok = 0;
  imgs.forEach(function (im) {
    im.setAttribute("data-natural-width", String(im.naturalWidth));
    if (im.complete && im.naturalWidth > 0) ok += 1;
  });
  document.body.setAttribute("data-images", ok + "/" + imgs.length);
});
</script>
"""

class Page(Rendered):
    """:class:`test_browser.Rendered`, with mkdocs-jupyter's hidden copy of each cell's code
    (``div.clipboard-copy-txt``, for the copy button; not displayed) kept out of the visible text."""

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        if "clipboard-copy-txt" in (dict(attrs).get("class") or "").split():
            self.stack[-1] = (tag, True)


MATH_SPAN = re.compile(r"\$\$.+?\$\$|\$[^$\n]+\$", re.S)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs_jupyter", reason="the docs extra is not installed: pip install -e \".[docs]\"")
    out = tmp_path_factory.mktemp("site")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    return out


def expected(ipynb: Path) -> dict:
    """What the page must show, counted from the notebook's own cells (not from the page)."""
    nb = json.loads(ipynb.read_text())
    md = sum(len(MATH_SPAN.findall("".join(c["source"]))) for c in nb["cells"] if c["cell_type"] == "markdown")
    outs = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
    return {"math": md + sum("text/latex" in o.get("data", {}) for o in outs),
            "figures": sum("image/png" in o.get("data", {}) for o in outs)}


def probe(page: Path, tmp_path: Path, html: str | None = None) -> Page:
    """The page (or ``html`` written beside it) with the image probe, as Chromium leaves it."""
    html = page.read_text() if html is None else html
    probed = page.with_name(f"probed-{tmp_path.name}.html")     # beside the page: its relative links resolve
    probed.write_text(html.replace("</body>", PROBE + "</body>", 1))
    r = chromium(tmp_path, probed, "--dump-dom")
    assert r.returncode == 0, r.stderr[-2000:]
    p = Page()
    p.feed(r.stdout)
    return p


def problems(p: Page, want: dict) -> list[str]:
    out = []
    widths = [int(i.get("data-natural-width", "0")) for i in p.images]
    if len(widths) < want["figures"]:
        out.append(f"{len(widths)} images on the page, the notebook has {want['figures']} figures")
    if not widths or min(widths) <= 0:
        out.append(f"images not loaded (naturalWidth {widths})")
    if p.body.get("data-math") != "rendered":
        out.append(f"data-math = {p.body.get('data-math')!r}")
    if p.katex < want["math"]:
        out.append(f"only {p.katex} KaTeX nodes, want {want['math']}")
    if p.errors:
        out.append(f"{p.errors} KaTeX errors")
    text = " ".join(p.text)
    raw = RAW_MATH.findall(text) + (["$$"] if "$$" in text else [])
    if raw:
        out.append(f"raw TeX left in the text: {raw[:5]}")
    return out


@pytest.mark.parametrize("ipynb", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_page_figures_and_math(site, tmp_path, ipynb):
    page = site / "notebooks" / ipynb.stem / "index.html"
    assert page.is_file(), f"the docs have no page for {ipynb.name}"
    want = expected(ipynb)
    assert want["figures"] >= 1 and want["math"] >= 1, want
    assert problems(probe(page, tmp_path), want) == []


def test_notebooks_overview_links_every_notebook(site):
    index = (site / "notebooks" / "index.html").read_text()
    for nb in NOTEBOOKS:
        assert f'href="../{nb.stem}/"' in index or f'href="{nb.stem}/"' in index, nb.stem


def test_checker_catches_broken_figure_and_raw_math(site, tmp_path):
    ipynb = NOTEBOOKS[0]
    page = site / "notebooks" / ipynb.stem / "index.html"
    html = page.read_text()
    broken = re.sub(r'src="data:image/png;base64,[^"]*"', 'src="data:image/png;base64,AAAA"', html, count=1)
    broken = broken.replace("renderMathInElement(el, opts)", "void el")   # the hook's KaTeX call, disabled
    assert broken != html
    found = problems(probe(page, tmp_path, broken), expected(ipynb))
    assert any("images not loaded" in f for f in found), found
    assert any("raw TeX" in f for f in found), found
    assert any("KaTeX nodes" in f for f in found), found
