"""The HTML report in a real browser: headless Chromium (Debian's ``chromium``; .ci/run installs it).

Checks that the mathematics renders (KaTeX elements, no KaTeX errors, no raw ``$…$``/``\\(…\\)``
left in the visible text) and that every image loads (the report's own script marks each ``<img>``
with ``data-loaded`` once the page has loaded), and takes a screenshot. The checker itself is
tested on a page with a broken image and unrendered mathematics.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from theorykit import report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install "
                                                         "chromium; .ci/run installs it)")


def chromium(tmp_path: Path, page: Path, *extra: str, timeout: int = 90) -> subprocess.CompletedProcess:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'chromium-profile'}",
           "--virtual-time-budget=5000", "--window-size=1200,1600", *extra, page.resolve().as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tmp_path)


class Rendered(HTMLParser):
    """Visible text (outside script/style and KaTeX's MathML copy), KaTeX nodes, images."""

    def __init__(self):
        super().__init__()
        self.stack, self.text, self.pre = [], [], []
        self.katex = self.errors = 0
        self.images, self.body = [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "body":
            self.body = a
        if "katex" in cls:
            self.katex += 1
        if "katex-error" in cls:
            self.errors += 1
        if tag == "img":
            self.images.append(a)
            return
        # code blocks (tracebacks) are shown verbatim on purpose: not part of the check
        hidden = tag in ("script", "style", "annotation", "pre", "code") or "katex-mathml" in cls
        self.stack.append((tag, hidden))

    def handle_endtag(self, tag):
        while self.stack:
            t, _ = self.stack.pop()
            if t == tag:
                break

    def handle_data(self, data):
        if not any(h for _, h in self.stack):
            self.text.append(data)
        elif self.stack and self.stack[-1][0] == "pre":
            self.pre.append(data)


def dom(tmp_path, page) -> Rendered:
    r = chromium(tmp_path, page, "--dump-dom")
    assert r.returncode == 0, r.stderr[-2000:]
    p = Rendered()
    p.feed(r.stdout)
    return p


RAW_MATH = re.compile(r"\$[^$\s][^$]*\$|\\\(|\\\[|\\frac|\\sqrt")


def problems(p: Rendered, want_math: int) -> list[str]:
    out = []
    text = " ".join(p.text)
    if p.katex < want_math:
        out.append(f"only {p.katex} KaTeX nodes, want {want_math}")
    if p.errors:
        out.append(f"{p.errors} KaTeX errors")
    raw = RAW_MATH.findall(text)
    if raw:
        out.append(f"raw TeX left in the text: {raw[:5]}")
    if p.body.get("data-math") != "rendered":
        out.append(f"data-math = {p.body.get('data-math')!r}")
    bad = [i.get("alt") for i in p.images if i.get("data-loaded") != "yes"]
    if not p.images or bad:
        out.append(f"images not loaded: {bad} of {len(p.images)}")
    return out


def _figure(path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1, 2], [1, 0.3, 0.1], label=r"$L(t)$")
    ax.legend()
    fig.savefig(path, dpi=60)
    plt.close(fig)


@pytest.fixture
def page(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    _figure(out / "fig2d.png")
    _figure(out / "fig2e.png")
    suites = {
        "xor": {"description": r"XoR with margin $\Delta$; crossover at $\Delta^* = \sqrt{2/3}$.",
                "figures": ["fig2d.png", {"file": "fig2e.png", "caption": "loss curves"}],
                "theory": {"crossover": {"latex": r"\frac{\sqrt{6}}{3}"}},
                "latex": {"loss": r"\[ L(t) = \tfrac12 \operatorname{tr}\Sigma^y - \sum_\alpha s_\alpha a_\alpha(t) \]"},
                "claims": [{"claim": "The ReLNs tie at Δ* = √(2/3) (the root of $s_{lin} = s_{xor}$)",
                            "measured": {"derived": "sqrt(6)/3"}, "criterion": "exact", "verdict": "supported"},
                           {"claim": r"Learning time is \(\tau/(2s)\ln(s/(d a_0) - 1)\)", "ours": "1.2% off",
                            "agreement": "within 10%", "verdict": "partly"}]},
    }
    res = report.build_results("quick", suites, {"gates": {"error": "RuntimeError: x", "traceback": "Trace $x$"}})
    report.write_reports(res, out)
    return out / "report.html"


def test_report_renders_math_and_images(tmp_path, page):
    p = dom(tmp_path, page)
    # 2 latex entries + 2 in the description + 1 + 1 in the claims
    assert problems(p, want_math=6) == []
    assert p.body.get("data-images") == "2/2"
    assert "Trace $x$" in " ".join(p.pre)      # a traceback is code, shown verbatim, not typeset


def test_screenshot(tmp_path, page):
    shot = tmp_path / "report.png"
    r = chromium(tmp_path, page, f"--screenshot={shot}")
    assert r.returncode == 0 and shot.is_file(), r.stderr[-2000:]
    import matplotlib.image as mpimg
    import numpy as np

    img = mpimg.imread(shot)
    assert img.shape[:2] == (1600, 1200)
    assert np.unique(img[..., :3].reshape(-1, 3), axis=0).shape[0] > 50   # not a blank page
    keep = os.environ.get("THEORYKIT_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / "report.png")


def test_checker_catches_raw_math_and_broken_images(tmp_path, page):
    bad = page.parent / "bad.html"
    bad.write_text(page.read_text().replace('<img src="data:image/png;base64,', '<img src="data:image/png;base64,AAAA', 1)
                   .replace("renderMathInElement(document.body", "(function(){})(document.body"))
    found = problems(dom(tmp_path, bad), want_math=6)
    assert any("raw TeX" in f for f in found), found
    assert any("images not loaded" in f for f in found), found
