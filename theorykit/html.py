"""HTML pieces shared by the pages theorykit writes (the validation report, compare, predict): the
vendored KaTeX inlined, figures as data URIs, the page style, escaping, the page's head, a figure
with its caption, and the script that marks each image loaded or not. A base module."""
from __future__ import annotations

import base64
import html
import re
from importlib import resources
from pathlib import Path

__all__ = ["asset", "katex_css_inline", "img_data_uri", "PAGE_CSS", "html_escape", "page_head", "figure_html",
           "IMAGES_JS"]


def asset(*parts) -> bytes:
    """A file of the vendored KaTeX (theorykit/assets/katex)."""
    return resources.files("theorykit").joinpath("assets", "katex", *parts).read_bytes()


def katex_css_inline() -> str:
    """KaTeX's CSS with its woff2 fonts as data URIs (the woff/ttf fallbacks dropped)."""
    css = asset("katex.min.css").decode("utf-8")

    def font(m):
        data = base64.b64encode(asset("fonts", m.group(1) + ".woff2")).decode("ascii")
        return f'src:url(data:font/woff2;base64,{data}) format("woff2")'

    css, n = re.subn(r'src:url\(fonts/([A-Za-z0-9_\-]+)\.woff2\) format\("woff2"\)[^;}]*', font, css)
    if n == 0:
        raise RuntimeError("unexpected katex.min.css: no woff2 font sources found")
    return css


def img_data_uri(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    mime = {".png": "image/png", ".svg": "image/svg+xml", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
            ".gif": "image/gif"}.get(path.suffix.lower(), "application/octet-stream")
    return f"data:{mime};base64," + base64.b64encode(data).decode("ascii")


PAGE_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2328;
 max-width:1150px;margin:0 auto;padding:24px 28px;background:#fff}
h1{font-size:1.7em;margin:.2em 0}h2{border-bottom:1px solid #d0d7de;padding-bottom:.2em;margin-top:1.6em}
.sub{color:#57606a}.summary{display:flex;gap:10px;flex-wrap:wrap;margin:14px 0}
.badge{border-radius:6px;padding:6px 12px;color:#fff;font-weight:600}
table{border-collapse:collapse;width:100%;margin:10px 0;font-size:.93em}
th,td{border:1px solid #d0d7de;padding:6px 8px;vertical-align:top;text-align:left}
th{background:#f6f8fa}tr:nth-child(even) td{background:#fbfcfd}
td.v{font-weight:700;white-space:nowrap}.small{font-size:.85em;color:#57606a}
figure{margin:14px 0;text-align:center}figure img{max-width:100%;border:1px solid #eaeef2}
figcaption{font-size:.85em;color:#57606a}.eq{margin:8px 0 14px}.eq .lab{font-size:.85em;color:#57606a}
pre{background:#f6f8fa;padding:10px;overflow:auto;font-size:.85em}.missing{color:#cf222e}
.nums td:first-child{width:40%}
"""


def html_escape(s) -> str:
    return html.escape(str(s), quote=True)


def page_head(title: str, katex: bool = False) -> list[str]:
    """The lines of a page up to its ``<body>``: ``title`` (escaped here), the page style, and
    KaTeX's CSS before it where the page typesets mathematics (``katex``)."""
    H = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
         '<meta name="viewport" content="width=device-width, initial-scale=1">', f"<title>{html_escape(title)}</title>"]
    H += [f"<style>{katex_css_inline()}</style>"] if katex else []
    return H + [f"<style>{PAGE_CSS}</style>", "</head><body>"]


def figure_html(path, caption: str, name=None) -> str:
    """The figure at ``path`` embedded as a data URI with its ``caption``; where it cannot be read, a
    line saying that figure ``name`` (by default the path) is missing, not an image that shows nothing."""
    uri = img_data_uri(Path(path))
    if uri is None:
        return f'<p class="missing">figure {html_escape(path if name is None else name)} is missing</p>'
    cap = html_escape(caption)
    return f'<figure><img src="{uri}" alt="{cap}"><figcaption>{cap}</figcaption></figure>'


#: marks each <img> data-loaded="yes"/"no" once the page has loaded, and the body data-images="ok/all"
#: (what the browser tests read)
IMAGES_JS = r"""
(function(){
  function images(){
    var imgs = document.querySelectorAll("img"), ok = 0;
    imgs.forEach(function(im){
      var good = im.complete && im.naturalWidth > 0;
      im.setAttribute("data-loaded", good ? "yes" : "no");
      if (good) ok++;
    });
    document.body.setAttribute("data-images", ok + "/" + imgs.length);
  }
  if (document.readyState === "complete") images(); else window.addEventListener("load", images);
})();
"""
