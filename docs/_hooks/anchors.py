"""mkdocs hook: a heading's named anchor, written so that GitHub shows it too.

The docs give a section a stable anchor (cited from docstrings and other pages as, for instance,
``docs/theory.md#mode-ode``) with an HTML anchor on the line above its heading::

    <a id="mode-ode"></a>
    ## The mode ODE

GitHub makes the ``<a id>`` an anchor (it would show ``## The mode ODE {#mode-ode}`` as text, with
no anchor). On the site ``on_page_markdown`` turns the pair into ``## The mode ODE {#mode-ode}``
(``attr_list``), so the heading itself has the id and the table of contents and the heading's
permalink use it. Without this hook the site still has the anchor, on the ``<a>`` above the heading.
Lines inside fenced code blocks are left alone. ``tests/test_docs.py`` checks that every cited anchor
exists and that no heading is written with ``{#...}``.
"""
from __future__ import annotations

import re

_ANCHOR = re.compile(r'<a id="([A-Za-z0-9_-]+)"></a>\s*')
_HEADING = re.compile(r"#{1,6} \S")


def on_page_markdown(markdown, page, config, files):
    lines = markdown.split("\n")
    out: list[str] = []
    fence = None
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if fence is None and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence is not None and stripped.startswith(fence):
            fence = None
        m = _ANCHOR.fullmatch(line) if fence is None else None
        if m and i + 1 < len(lines) and _HEADING.match(lines[i + 1]):
            out.append(f"{lines[i + 1].rstrip()} {{#{m.group(1)}}}")
            i += 2
            continue
        out.append(line)
        i += 1
    return "\n".join(out)
