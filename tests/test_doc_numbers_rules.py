"""Rules from a docs-numbers audit: the numbers and verdicts the docs quote agree with their sources.

Three kinds of drift, each cheap to catch without running a suite:

* docs/validation.md's verdict column holds a verdict word (confirmed, partly, not borne out, n/a),
  optionally qualified; a row once read "see report: …" where its own page (docs/figures/fig8-9.md)
  and the suite's JSON both say "not borne out";
* docs/figures/index.md says, per page, which run drew its pictures (mode, device, date), and each
  page says the same; the index once said every picture came from a quick run while four of the
  five pages said theirs came from ``--full`` runs, and Fig. 5's page named the run of the day before
  the one that redrew its picture;
* exact values the docs quote (Δ*, the XoR singular values and half-way times, the api page's loss
  at Δ = 1.6, predict's half-way times) equal what numpy, scipy and mpmath give here, written from
  the hand derivations of docs/theory.md, not from theorykit's results.

No measured (noisy) number is pinned here.
"""
import math
import re
from pathlib import Path

import mpmath as mp
import numpy as np
from scipy.optimize import brentq

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
VERDICTS = ("confirmed", "partly", "not borne out", "n/a")


def _read(rel: str) -> str:
    return (ROOT / rel).read_text("utf-8")


def _table_rows(text: str, header_start: str):
    """The rows (lists of cells) of every markdown table whose header starts with ``header_start``."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith(header_start):
            inside, header = True, [c.strip() for c in line.strip().strip("|").split("|")]
            continue
        if inside and line.startswith("|---"):
            continue
        if inside and line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
            rows.append(dict(zip(header, cells)))
            continue
        inside = False
    return rows


def test_validation_page_verdict_cells_are_verdict_words():
    """Every row of docs/validation.md's claim tables gives its verdict as one of the four words
    (a qualification may follow in brackets or after a colon), so the page can be read against a
    run's report, whose verdicts are those words."""
    rows = _table_rows(_read("docs/validation.md"), "| claim | our figure | verdict |")
    assert len(rows) >= 35, f"docs/validation.md: only {len(rows)} claim rows found; the tables' header changed?"
    bad = [(r["claim"][:60], r["verdict"]) for r in rows
           if not any(r["verdict"].startswith(v) for v in VERDICTS)]
    assert not bad, f"docs/validation.md: verdict cells that are not one of {VERDICTS}: {bad}"


def _page_provenance(page_text: str):
    """The sentence(s) of a figure page that say which run drew its pictures."""
    return [m.group(0) for m in re.finditer(
        r"(?:From|are from|come from) a `--(?:quick|full)` run[^\n]*(?:\n(?!\n)[^\n]*){0,3}", page_text)]


def test_figure_index_names_the_run_of_each_pages_pictures_as_the_page_does():
    """docs/figures/index.md's table gives, per page, the run its pictures are from (``--quick`` or
    ``--full``, the device, the date); the page says the same run (mode and every date)."""
    index = _read("docs/figures/index.md")
    rows = _table_rows(index, "| paper figure |")
    assert len(rows) == 5, f"docs/figures/index.md: expected 5 figure rows, found {len(rows)}"
    col = "our pictures from (run, device, date)"
    missing = [r["paper figure"] for r in rows if not r.get(col)]
    assert not missing, f"docs/figures/index.md: no '{col}' entry for {missing}"
    modes = set()
    for r in rows:
        entry = r[col]
        page = re.search(r"\]\(([\w.-]+\.md)\)", r["page"]).group(1)
        mode = re.search(r"`--(quick|full)`", entry)
        dates = re.findall(r"20\d\d-\d\d-\d\d", entry)
        assert mode and dates, f"docs/figures/index.md: '{entry}' for {page} names no mode or no date"
        modes.add(mode.group(1))
        said = " ".join(_page_provenance((DOCS / "figures" / page).read_text("utf-8")))
        assert f"`--{mode.group(1)}` run" in said, (
            f"docs/figures/{page}: no sentence says its pictures are from a `--{mode.group(1)}` run "
            f"(the index says '{entry}'); found: {said[:200]!r}")
        for d in dates:
            assert d in said, f"docs/figures/{page}: the index dates its pictures {d}, the page does not"
    prose = index[index.rfind("|\n") + 2:]  # the text under the table
    for m in sorted(modes):
        assert f"`--{m}` run" in prose, (
            f"docs/figures/index.md: pictures from `--{m}` runs, but the text under the table does not say so")
    assert "come from quick runs" not in index or modes == {"quick"}, (
        "docs/figures/index.md says the pictures come from quick runs, but its table names --full runs")


# --- exact values, by hand -------------------------------------------------------------------

def _s_lin(delta):
    """Positive pathway of the linear ReLN: points (1, 1, Δ), (−1, −1, Δ), y = 1, P = 4:
    Σ^yx = (0, 0, Δ/2), s = |Σ^yx|; d = e₃ᵀ Σ^x e₃ = (Δ² + Δ²)/4."""
    pts = np.array([[1.0, 1.0, delta], [-1.0, -1.0, delta]])
    syx = pts.sum(axis=0) / 4
    return np.linalg.norm(syx), (pts[:, 2] ** 2).sum() / 4


def _s_xor(delta):
    """One pathway of the XoR ReLN on the point x = (1, 1, Δ): s = |x|/4, d = |x|²/4."""
    x = np.array([1.0, 1.0, delta])
    return np.linalg.norm(x) / 4, x @ x / 4


def _dstar():
    return brentq(lambda D: _s_lin(D)[0] - _s_xor(D)[0], 0.1, 2.0, xtol=1e-15)


def _t_half_mode(s, d, a0, tau):
    """The logistic a(t) = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}) reaches s/(2d) here."""
    return tau / (2 * s) * math.log(s / (d * a0) - 1)


def _t_half_loss(s, d, a0, tau):
    """A family of equal modes: L ∝ (s − d a)², so L = L(0)/2 where s − d a = (s − d a0)/√2."""
    ast = s / d
    a = ast * (1 - 1 / math.sqrt(2)) + a0 / math.sqrt(2)
    return tau / (2 * s) * math.log(a * (ast - a0) / (a0 * (ast - a)))


def test_delta_star_quoted_everywhere_is_sqrt_two_thirds():
    """Δ* is where s_lin(Δ) = s_xor(Δ) (brentq on the hand effective datasets): √(2/3) = √6/3. Every
    decimal the docs give for it (after "Δ* =", "\\Delta^* … \\approx", "sqrt(6)/3 (≈", and any 0.816…)
    is that number rounded (or cut) to the digits shown (a bisection's bracket [0.816484, 0.816523]
    on docs/predict.md aside)."""
    dstar = _dstar()
    assert abs(dstar - math.sqrt(2 / 3)) < 1e-12
    anchor = re.compile(r"(?:Δ\\?\*|\\Delta\^\*|\\Delta\^\\ast|sqrt\(6\)/3|√6/3)"
                        r"(?:[\s=(≈]|\\approx|√\(2/3\)|\\sqrt\{2/3\}|sqrt\(6\)/3|√6/3)*?"
                        r"(?<![\d.])(\d\.\d+)")
    quoted, anchored = [], 0
    for path in [ROOT / "README.md", *DOCS.rglob("*.md")]:
        for line in path.read_text("utf-8").splitlines():
            line = re.sub(r"\[0\.816\d*, 0\.816\d*\]", "", line)  # a bisection's bracket, not Δ*
            found = {m.start(1): m.group(1) for m in anchor.finditer(line)}
            anchored += len(found)
            found.update({m.start(): m.group(0) for m in re.finditer(r"(?<![\d.])0\.816\d*", line)})
            quoted += [(path.name, q) for q in found.values()]
    assert anchored >= 6, f"expected Δ* given as a decimal in several pages, found {quoted}"
    for name, q in quoted:
        digits = len(q.split(".")[1])
        ok = {f"{dstar:.{digits}f}", str(math.floor(dstar * 10 ** digits) / 10 ** digits)}
        assert q in ok, f"{name}: Δ* quoted as {q}; √(2/3) = {dstar:.10f}"
    # s at Δ*: Δ*/2 = √6/6, the value the crossings line prints
    assert abs(_s_lin(dstar)[0] - math.sqrt(6) / 6) < 1e-12
    for rel in ("docs/tutorial.md", "docs/theory.md", "docs/api.md"):
        assert "s = sqrt(6)/6" in _read(rel), f"{rel}: the crossings line no longer gives s = sqrt(6)/6"


def test_tutorial_half_way_time_is_the_hand_value():
    """docs/tutorial.md: the linear ReLN's t½ at Δ = ½, τ = 100, a0 = 1/1000 is
    τ/Δ · ln(1/(Δ a0) − 1) = 200 ln 1999 = 1520.08 (s = Δ/2, d = Δ²/2)."""
    s, d = _s_lin(0.5)
    th = _t_half_mode(s, d, 1e-3, 100.0)
    assert abs(th - 200 * math.log(1999)) < 1e-9
    text = _read("docs/tutorial.md")
    assert ">>> round(float(th), 2)" in text, "docs/tutorial.md: the t½ line of section 3 is gone"
    block = text[text.find(">>> round(float(th), 2)"):]
    value = float(block.splitlines()[1])
    assert value == round(th, 2), f"docs/tutorial.md: t½ printed as {value}, by hand {th:.4f}"


def test_predict_page_half_way_times_and_tie_at_dstar():
    """docs/predict.md, XoR at Δ = 0.5 (H = 128 → 32 units a pathway, σ = 0.01, a0 = 32σ²/2, τ = 1/0.05):
    the loss halves at 137.5 steps, the mode reaches half its end point at 160.8; at Δ* the two
    families have d_xor = 2/3 = 2 d_lin and Σ 1/d = 6 each."""
    s, d = _s_xor(0.5)
    a0 = 32 * 0.01 ** 2 / 2
    loss_half, mode_half = _t_half_loss(s, d, a0, 20.0), _t_half_mode(s, d, a0, 20.0)
    text = _read("docs/predict.md")
    m = re.search(r"on XoR at Δ = 0\.5 the two are ([\d.]+) and ([\d.]+) steps", text)
    assert m, "docs/predict.md: the sentence giving both half-way times at Δ = 0.5 is gone"
    assert (float(m.group(1)), float(m.group(2))) == (round(loss_half, 1), round(mode_half, 1)), (
        f"docs/predict.md: {m.groups()}; by hand {loss_half:.2f}, {mode_half:.2f}")
    dstar = _dstar()
    d_lin, d_xor = _s_lin(dstar)[1], _s_xor(dstar)[1]
    assert abs(d_xor - 2 / 3) < 1e-12 and abs(d_xor - 2 * d_lin) < 1e-12
    assert abs(4 / d_xor - 6) < 1e-9 and abs(2 / d_lin - 6) < 1e-9
    assert "d_xor = 2/3 = 2 d_lin" in text and "is 6 for both" in text
    m = re.search(r"Δ\* = √\(2/3\) = (0\.\d+)", text)
    assert m and m.group(1) == f"{dstar:.{len(m.group(1)) - 2}f}"


def test_api_page_xor_loss_at_delta_1_6():
    """docs/api.md: the XoR ReLN (four modes s = √(Δ²+2)/4, d = (Δ²+2)/4, ½ tr Σy = ½ = Σ s²/(2d))
    at Δ = 1.6, τ = 100, a0 = 1e-3, t = 2000 has L = Σ (s − d a)²/(2d) = 3.09e-14 (mpmath, 50 digits)."""
    mp.mp.dps = 50
    D, tau_, a0_, t_ = mp.mpf("1.6"), 100, mp.mpf("1e-3"), 2000
    s, d = mp.sqrt(D ** 2 + 2) / 4, (D ** 2 + 2) / 4
    e = mp.e ** (-2 * s * t_ / tau_)
    a = 1 / (e / a0_ + (d / s) * (1 - e))
    L = 4 * (s - d * a) ** 2 / (2 * d)
    m = re.search(r"Δ = 1\.6, τ = 100, a0 = 1e-3, t = 2000, L = ([\d.]+e-\d+)", _read("docs/api.md"))
    assert m, "docs/api.md: the sentence with the XoR loss at Δ = 1.6 is gone"
    assert float(m.group(1)) == float(mp.nstr(L, 3)), f"docs/api.md: L = {m.group(1)}, by hand {mp.nstr(L, 6)}"
