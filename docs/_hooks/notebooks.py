"""mkdocs hook: the notebooks of examples/notebooks as pages of the docs, with their math typeset by KaTeX.

* ``on_files`` adds every ``examples/notebooks/*.ipynb`` (committed with its outputs) to the site as
  ``notebooks/<name>.ipynb``, before mkdocs-jupyter (``execute: false``) turns it into a page: the
  notebooks stay where a user runs them, with no copy of them in ``docs/``.
* ``on_post_page`` drops the MathJax and Mermaid scripts that nbconvert's template loads from a CDN
  (the docs work with no network) and typesets the notebook's markdown and LaTeX outputs (and its
  headings in the page's table of contents) with the
  vendored KaTeX that every page already loads (``docs/_hooks/katex_assets.py``). The page's
  ``<body>`` gets ``data-math="rendered"`` once that has run (the browser test reads it).
  It also points the notebook's links to the docs, written relative to ``examples/notebooks`` (as
  ``../../docs/theory.md#contexts``, which works on GitHub and in Jupyter), at the site's page.
* ``on_page_markdown`` does the converse for a docs page's link to a notebook: written relative to the
  page, to the notebook where it lives (``../examples/notebooks/06_predict.ipynb`` from ``docs/``, which
  works on GitHub), it becomes a link to the notebook's page of the site (``notebooks/06_predict.ipynb``
  relative to the page). Links in fenced code blocks are left alone.
"""
from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

SRC = Path("examples") / "notebooks"
DEST = "notebooks/"

# <script ...>...</script> blocks that load or configure MathJax or Mermaid (nbconvert's lab template)
_CDN_SCRIPT = re.compile(r"<script\b[^>]*>(?:(?!</script>).)*?(?:mathjax|MathJax|mermaid)(?:(?!</script>).)*?</script>\s*",
                         re.S)
_CDN_SRC = re.compile(r"<script\b[^>]*\bsrc=\"(?:[^\"]*(?:mathjax|MathJax|mermaid)[^\"]*)?\"[^>]*>\s*</script>\s*")

_RENDER = """<style>.jupyter-wrapper .jp-RenderedLatex { overflow-y: hidden; }</style>
<script>
document.addEventListener("DOMContentLoaded", function () {
  var opts = {delimiters: [{left: "$$", right: "$$", display: true}, {left: "\\\\[", right: "\\\\]", display: true},
                           {left: "$", right: "$", display: false}, {left: "\\\\(", right: "\\\\)", display: false}],
              throwOnError: false};
  document.querySelectorAll(".jp-RenderedMarkdown, .jp-RenderedLatex, .jp-MarkdownOutput, .md-nav--secondary").forEach(function (el) {
    renderMathInElement(el, opts);
  });
  document.body.setAttribute("data-math", "rendered");
});
</script>
"""


# a link from examples/notebooks/<name>.ipynb to a page of docs/, with its anchor if any
_DOCS_LINK = re.compile(r'href="\.\./\.\./docs/([A-Za-z0-9_/.-]+?)\.md(#[^"]*)?"')


def _site_url(src: str, directory_urls: bool) -> str:
    """The site URL (from the site root) of the page ``docs/<src>.md``."""
    if not directory_urls:
        return src + ".html"
    return src[:-len("index")] if src == "index" or src.endswith("/index") else src + "/"


def _root(config) -> Path:
    return Path(config["config_file_path"]).resolve().parent


@event_priority(100)          # before mkdocs-jupyter's on_files, which makes pages of the .ipynb files
def on_files(files, config):
    # a plain File rooted at examples/ (not File.generated): mkdocs-jupyter's NotebookFile wrapper
    # derives the source path from src_dir and src_uri, which a generated file does not have
    src_dir = str(_root(config) / SRC.parent)
    for nb in sorted((_root(config) / SRC).glob("*.ipynb")):
        files.append(File(DEST + nb.name, src_dir=src_dir, dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    return files


# a docs page's link to a notebook, written relative to the page: ](../examples/notebooks/<name>.ipynb#anchor)
_NOTEBOOK_LINK = re.compile(r"\]\(((?:\.\./)+)examples/notebooks/([A-Za-z0-9_.-]+\.ipynb)(#[^)\s]*)?\)")


def on_page_markdown(markdown, page, config, files):
    here = posixpath.dirname(page.file.src_uri)        # the page's folder under docs/: "" or e.g. "notebooks"

    def to_site(m):
        # only a link that, from the page's folder under docs/, reaches the repository's examples/notebooks
        if posixpath.normpath(posixpath.join("docs", here, m.group(1))) != ".":
            return m.group(0)
        return f"]({posixpath.relpath(DEST + m.group(2), here or '.')}{m.group(3) or ''})"

    out, fence = [], None
    for line in markdown.split("\n"):
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        elif fence is None:
            line = _NOTEBOOK_LINK.sub(to_site, line)
        out.append(line)
    return "\n".join(out)


def _is_notebook(page) -> bool:
    return page.file.src_uri.startswith(DEST) and page.file.src_uri.endswith(".ipynb")


def on_post_page(output, page, config):
    if not _is_notebook(page):
        return output
    output = _CDN_SRC.sub("", output)
    output = _CDN_SCRIPT.sub("", output)
    to_root = "../" * page.url.count("/")          # notebooks/<name>/ (or notebooks/<name>.html) to the root
    output = _DOCS_LINK.sub(lambda m: f'href="{to_root}{_site_url(m.group(1), config["use_directory_urls"])}'
                                      f'{m.group(2) or ""}"', output)
    return output.replace("</body>", _RENDER + "</body>", 1)
