"""Issue 26 (one way to do each thing), the interface layer outside ``cli/``: the copies removed from
report.py, html.py, analysis/compare.py's page helpers, bench.py and cli/rerun.py, each pinned here
where the merge kept one behaviour of two (expected strings written out by hand, not printed by the
code under test)."""
from __future__ import annotations

import base64

from theorykit.analysis.compare import report_page
from theorykit.report import render_html

# the 8-byte PNG signature: enough for a data URI (the browser tests load real figures)
PNG = b"\x89PNG\r\n\x1a\n"


def test_compare_page_names_a_missing_figure(tmp_path):
    """A figure that cannot be read is a line saying so, as in the validation report; the comparison
    page once embedded ``src="None"`` (an image that shows nothing, with no word why)."""
    gone = tmp_path / "gone.png"
    page = report_page("t", "h", "s", [], [], {str(gone): "loss curves"}, [])
    assert f'<p class="missing">figure {gone} is missing</p>' in page
    assert 'src="None"' not in page and "<figure>" not in page


def test_compare_page_embeds_a_figure_with_its_caption(tmp_path):
    f = tmp_path / "a.png"
    f.write_bytes(PNG)
    page = report_page("t", "h", "s", [], [], {str(f): "a < b"}, [])
    uri = "data:image/png;base64," + base64.b64encode(PNG).decode("ascii")      # iVBORw0KGgo=
    assert uri == "data:image/png;base64,iVBORw0KGgo="
    assert (f'<figure><img src="{uri}" alt="a &lt; b"><figcaption>a &lt; b</figcaption></figure>') in page


def test_compare_page_has_the_report_head():
    """One head for both pages (the validation report's): the viewport line (a phone shows the page
    at its own width), the title escaped, the page style, no KaTeX CSS where nothing is typeset."""
    page = report_page("a<b & c", "h", "s", [], [], {}, [])
    lines = page.splitlines()
    assert lines[:4] == ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
                         '<meta name="viewport" content="width=device-width, initial-scale=1">',
                         "<title>a&lt;b &amp; c</title>"]
    assert "@font-face" not in page and page.count("<style>") == 1


def _image_scripts(page: str) -> list[str]:
    return [s for s in page.split("<script>")[1:] if 'setAttribute("data-images"' in s]


def test_report_and_compare_pages_mark_images_with_one_script(tmp_path):
    """The script that marks each image loaded or not is one text on both pages (it was written twice,
    and the comparison page's copy did not run where the page had loaded already)."""
    report = render_html({"mode": "quick", "suites": {}, "claims": []}, tmp_path)
    compare = report_page("t", "h", "s", [], [], {}, [])
    (a,), (b,) = _image_scripts(report), _image_scripts(compare)
    assert a == b
    assert 'document.readyState === "complete"' in a
