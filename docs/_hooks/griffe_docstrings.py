"""griffe extension for the API reference: renders theorykit's docstrings as they read.

* Doctest examples (``>>>`` lines and their output) become fenced ``pycon`` code blocks, so that
  their brackets are not read as Markdown links.
* In a numpy-style section (``Parameters`` / ``-----``) whose items read ``name: description``,
  a paragraph after a blank line that does not start with such an item (e.g. a closing
  ``Results (properties): …``) is a note on the section, not a parameter: it is moved under a
  ``Notes`` header instead of being parsed as an item.
"""
from __future__ import annotations

import re

from griffe import Extension

_DASH = re.compile(r"^\s*-{3,}\s*$")
_ITEM = re.compile(r"^\**[A-Za-z_][A-Za-z0-9_]*(\s*,\s*\**[A-Za-z_][A-Za-z0-9_]*)*\s*:")


def _fence_doctests(lines: list[str]) -> list[str]:
    out, i, fenced = [], 0, False
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
                i += 1
            if out and out[-1].strip():
                out.append("")
            out += [indent + "```pycon"] + [indent + b for b in block] + [indent + "```"]
            continue
        out.append(line)
        i += 1
    return out


def _section_notes(lines: list[str]) -> list[str]:
    out, in_section = [], False
    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if _DASH.match(nxt) and line.strip() and not _DASH.match(line):
            in_section = line.strip() in {"Parameters", "Attributes", "Other Parameters", "Returns", "Raises"}
        elif (in_section and line.strip() and not line.startswith(" ") and i > 0 and not lines[i - 1].strip()
              and not _ITEM.match(line)):
            out += ["Notes", "-----"]
            in_section = False
        out.append(line)
    return out


class TheorykitDocstrings(Extension):
    def on_instance(self, *, obj, **kwargs):
        doc = getattr(obj, "docstring", None)
        if doc is None or not doc.value:
            return
        lines = doc.value.split("\n")
        new = _section_notes(_fence_doctests(lines))
        if new != lines:
            doc.value = "\n".join(new)
