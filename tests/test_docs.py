"""The documentation: the tutorial's REPL session runs as written, and the site builds strictly.

The strict build (``mkdocs build --strict``: warnings are errors) runs when mkdocs with its
plugins is installed (``pip install ".[docs]"``; .ci/run installs it and builds the site).
"""
from __future__ import annotations

import doctest
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import theorykit as tk

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _pycon_blocks(text: str) -> str:
    return "\n".join(m.group(1) for m in re.finditer(r"```pycon\n(.*?)```", text, flags=re.S))


def _xor_modes_by_hand(delta):
    """The XoR ReLNs' modes at margin Δ (mean loss, P = 4, x = (±1, ±1, ±Δ), y = x1·x2), by hand.

    linear: pathway "positive" is on for x = (1, 1, Δ), (−1, −1, Δ), both with y = 1: Σ^yx = (0, 0, 2Δ)/4,
    one singular value s = Δ/2 along e3, input variance along e3 d = 2Δ²/4 = Δ²/2; "negative" alike.
    xor: pathway m is on for x_m alone: s = |x_m|/4 = √(2+Δ²)/4, d = |x_m|²/4 = (2+Δ²)/4.
    With no network L = Σy²/(2P) = ½; a mode of strength a lowers it by s·a − d·a²/2 (both ReLNs fit
    the task: 2 · (Δ/2)²/(2·Δ²/2) = ½ and 4 · s²/(2d) = 4/8 = ½). Returns {name: (s, d, count)}."""
    return {"linear": (delta / 2, delta ** 2 / 2, 2), "xor": (np.sqrt(2 + delta ** 2) / 4, (2 + delta ** 2) / 4, 4)}


def _mode_losses(s, d, count, a0, lr, steps):
    """Gradient descent a ← a (1 + (s − d a)/τ)² and gradient flow a(t) = (s/d)/(1 + (s/(d a0) − 1)
    e^{−2st/τ}) of ``count`` equal modes, τ = 1/η; the loss ½ − count·(s a − d a²/2) of each."""
    tau, a, disc = 1 / lr, a0, np.empty(steps + 1)
    for i in range(steps + 1):
        disc[i] = 0.5 - count * (s * a - d * a * a / 2)
        a = a * (1 + (s - d * a) / tau) ** 2
    af = (s / d) / (1 + (s / (d * a0) - 1) * np.exp(-2 * s * np.arange(steps + 1) / tau))
    return disc, 0.5 - count * (s * af - d * af ** 2 / 2)


def _relu_gd(W1, W2, X, Y, lr, steps):
    """ŷ = W2 relu(W1 X), mean loss ½Σ‖y − ŷ‖²/P, plain gradient descent; the loss at every step."""
    P, out = X.shape[1], np.empty(steps + 1)
    for t in range(steps + 1):
        pre = W1 @ X
        h = np.maximum(pre, 0)
        E = (W2 @ h - Y) / P
        out[t] = 0.5 * P * np.sum(E ** 2)
        W1, W2 = W1 - lr * ((W2.T @ E) * (pre > 0)) @ X.T, W2 - lr * E @ h.T
    return out


def test_tutorial_session_runs_as_written(tmp_path, monkeypatch):
    """The tutorial's REPL session runs as written (doctest), and every measured number it prints is
    recomputed here by an independent method (numpy, modes derived by hand above) to the digits printed."""
    text = (DOCS / "tutorial.md").read_text("utf-8")
    src = _pycon_blocks(text)
    assert src.count(">>>") > 20
    monkeypatch.chdir(tmp_path)       # the session writes xor_linear.tex
    test = doctest.DocTestParser().get_doctest(src, {}, "tutorial.md", str(DOCS / "tutorial.md"), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = []
    runner.run(test, out=out.append, clear_globs=False)
    assert runner.failures == 0, "".join(out)
    assert (tmp_path / "xor_linear.tex").read_text().startswith("\\documentclass")
    g = test.globs

    # the aligned linear ReLN at Δ = 1.2 (lr 0.05, a0 0.001, 2000 steps): "0.021 True"
    (printed_flow,) = re.findall(r"^(\d\.\d{3}) True$", src, flags=re.M)
    s, d, m = _xor_modes_by_hand(1.2)["linear"]
    disc, flow = _mode_losses(s, d, m, 1e-3, 0.05, 2000)
    np.testing.assert_allclose(g["disc"], disc, rtol=1e-12, atol=1e-13)   # the session's discrete prediction
    np.testing.assert_allclose(g["flow"], flow, rtol=1e-12, atol=1e-13)   # and its closed form
    assert f"{np.max(np.abs(disc - flow)) / disc[0]:.3f}" == printed_flow

    # the ReLU network against each ReLN's theory: "linear 0.010", "xor 0.055"
    printed = dict(re.findall(r"^(linear|xor) (\d\.\d{3})$", src, flags=re.M))
    assert sorted(printed) == ["linear", "xor"]
    X, Y = g["X"], g["Y"]
    relu = g["relu"]
    W1s, W2s = [np.asarray(w) for w in tk.simulate((X, Y), network="relu", hidden=128, lr=0.05, steps=0, seeds=4,
                                                        init_std=0.01).params]   # the same start (seed 0)
    runs = np.array([_relu_gd(W1s[i], W2s[i], np.asarray(X, float), np.asarray(Y, float), 0.05, 2000)
                     for i in range(4)])
    np.testing.assert_allclose(relu.loss, runs, rtol=1e-9, atol=1e-13)
    for name, hidden in (("linear", 64), ("xor", 32)):
        s, d, m = _xor_modes_by_hand(1.2)[name]
        _, theory = _mode_losses(s, d, m, hidden * 0.01 ** 2 / 2, 0.05, 2000)   # a0 = H σ²/2
        rms = np.sqrt(np.mean((runs.mean(axis=0) - theory) ** 2)) / runs.mean(axis=0)[0]
        assert f"{rms:.3f}" == printed[name], (name, rms)


def test_every_figure_page_names_its_command_and_its_images_exist():
    pages = sorted((DOCS / "figures").glob("fig*.md"))
    assert len(pages) == 5
    for page in pages:
        text = page.read_text("utf-8")
        assert "theorykit validate" in text, page
        for img in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
            assert (page.parent / img).is_file(), f"{page.name}: {img} missing"


def _have_mkdocs() -> bool:
    return all(importlib.util.find_spec(m) for m in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers"))


@pytest.mark.skipif(not _have_mkdocs(), reason="mkdocs, mkdocs-material, mkdocstrings[python] not installed "
                                               "(pip install \".[docs]\")")
def test_docs_build_strict(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    site = tmp_path / "site"
    assert (site / "javascripts" / "katex" / "katex.min.js").is_file()
    assert (site / "javascripts" / "katex" / "fonts" / "KaTeX_Main-Regular.woff2").is_file()
    api = (site / "api" / "index.html").read_text("utf-8")
    assert "theorykit.theory.derivation.Derivation" in api or "Derivation" in api
    assert (site / "lemmas" / "index.html").is_file()
    # each <a id> of a page is an id of the built page: the id of the heading below it (docs/_hooks/anchors.py),
    # and no heading shows a "{#...}"
    pages = [p for p in DOCS.rglob("*.md") if _A_ID.search(p.read_text("utf-8"))]
    assert {"theory.md", "validation.md", "performance.md", "predict.md"} <= {p.name for p in pages}
    for page in pages:
        rel = page.relative_to(DOCS).with_suffix("")
        html = (site / ("" if rel.name == "index" else rel) / "index.html").read_text("utf-8")
        lines = _without_fences(page.read_text("utf-8")).split("\n")
        for i, line in enumerate(lines):
            if m := _A_ID.fullmatch(line.strip()):
                heading = i + 1 < len(lines) and re.match(r"#{1,6}\s", lines[i + 1])
                assert re.search(rf'<h[1-6] id="{m.group(1)}"' if heading else rf'\bid="{m.group(1)}"', html), \
                    f"{page.name}: #{m.group(1)} is not {'a heading id' if heading else 'an id'} of the site's page"
        assert not re.search(r"<h[1-6][^>]*>[^<]*\{#", html), page.name
    # a notebook's link to the docs (to ../../docs/theory.md with its anchor, for GitHub and Jupyter) is the
    # site's page
    nbs = {p.parent.name: p.read_text("utf-8") for p in (site / "notebooks").glob("*/index.html")}
    assert 'href="../../theory/#contexts"' in nbs["02_contexts_race"]
    assert {n: re.findall(r'href="[^"]*\.md[#"]', t) for n, t in nbs.items() if re.search(r'href="[^"]*\.md[#"]', t)} == {}


def test_specs_md_lists_every_field_the_parser_accepts():
    """The field reference of docs/specs.md and the parser's key sets name the same fields."""
    import theorykit.spec.files as spec_mod

    text = (DOCS / "specs.md").read_text("utf-8")
    section = text.split("## Field reference", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `([^`]+)` \|", section, flags=re.M)
    assert sorted(documented) == sorted(spec_mod.FIELDS)
    # and FIELDS is what the parser uses: every key set of the parser appears in FIELDS
    keys = {("", spec_mod.TOP_KEYS), ("data.", spec_mod.DATA_KEYS), ("data.", spec_mod.XOR_KEYS),
            ("data.", spec_mod.CONTEXTS_KEYS), ("pathways[].", spec_mod.PATHWAY_KEYS),
            ("training.", spec_mod.TRAINING_KEYS), ("nodes[].", spec_mod.NODE_KEYS), ("edges[].", spec_mod.EDGE_KEYS),
            ("schedule[].", spec_mod.SCHEDULE_KEYS)}
    for prefix, names in keys:
        for k in names:
            full = prefix + k
            assert full in spec_mod.FIELDS or any(f.startswith(full + ".") for f in spec_mod.FIELDS) \
                or full in ("symbols", "data", "pathways", "training", "nodes", "edges", "schedule"), full
    for row in re.findall(r"^\| `[^`]+` \|(.*)$", section, flags=re.M):
        assert len([c for c in row.split("|") if c.strip()]) == 3, row   # type, range, default


def test_cli_md_holds_every_command_and_option():
    """docs/cli.md, the command-line reference, has a section per command holding each of its options
    (five options were in no page before it). Regenerate it with the command the page names."""
    import argparse

    from theorykit.cli.parser import REGENERATE, build_parser

    text = (DOCS / "cli.md").read_text("utf-8")
    sections = dict(part.split("\n", 1) for part in text.split("\n## ")[1:])
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert sorted(sections) == sorted(sub.choices), f"regenerate: {REGENERATE}"
    for name, p in sub.choices.items():
        for opt in (o for a in p._actions for o in a.option_strings):
            assert opt in sections[name], f"{name} {opt}: regenerate with {REGENERATE}"
        for a in p._actions:
            if not a.option_strings and a.help:      # positional arguments: their help is on the page
                assert " ".join(a.help.split()[:4]) in " ".join(sections[name].split()), (name, a.dest)


def test_graphs_md_complete_file_loads_and_check_counts_its_nodes(tmp_path, capsys):
    """docs/graphs.md's complete graph file is a spec as written: two pathways through a shared trunk
    (8 units) and two branches of 4 (16 units in all), so no closed form: the race reduction, which
    `check` says (it said "closed form expected (no pathways couple)" and 8 units)."""
    from theorykit.cli import main

    text = (DOCS / "graphs.md").read_text("utf-8")
    block = next(b for b in re.findall(r"```toml\n(.*?)```", text, flags=re.S) if b.startswith("name = "))
    f = tmp_path / "graph.toml"
    f.write_text(block)
    der = tk.Derivation(tk.load_spec(str(f)))
    assert der.method == "race-reduction" and len(der.spec.pathways) == 2
    assert main(["check", str(f)]) == 0
    out = capsys.readouterr().out
    assert "16 hidden units in all; race reduction (pathways share edges)" in out and "closed form" not in out


def test_api_md_sympy_to_jax_example_runs_and_is_the_derivative():
    """docs/api.md's "From SymPy to JAX" block runs as written; its ∂L/∂Δ is checked against a central
    difference of the derivation's own numeric loss (predict_loss, a second path: numpy, not JAX)."""
    text = (DOCS / "api.md").read_text("utf-8")
    block = text.split("**From SymPy to JAX", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    ns = {}
    exec(block, ns)  # noqa: S102 - the page's own code
    der, h = ns["der"], 1e-5
    fd = (der.predict_loss([100], values={"Delta": 0.5 + h})[0]
          - der.predict_loss([100], values={"Delta": 0.5 - h})[0]) / (2 * h)
    assert float(ns["dL_dDelta"]) == pytest.approx(fd, rel=1e-6)


def test_ci_runs_the_readme_test_command_verbatim():
    """CI (.ci/run) runs the README's "Install and run the tests" command as written."""
    readme = (ROOT / "README.md").read_text("utf-8")
    cmd = readme.split("Install and run the tests", 1)[1].split("```bash\n", 1)[1].split("\n", 1)[0]
    assert "pytest" in cmd and cmd in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()


def test_readme_is_a_short_introduction_without_history():
    """The README fits a five-minute read: at most 200 lines, no commit hashes, and it links the
    pages the measurements and the history moved to (which exist)."""
    text = (ROOT / "README.md").read_text("utf-8")
    assert len(text.splitlines()) <= 200
    hashes = [h for h in re.findall(r"\b[0-9a-f]{7,40}\b", text) if re.search(r"[a-f]", h) and re.search(r"\d", h)]
    assert hashes == [], hashes
    for page in ("docs/performance.md", "docs/validation.md", "docs/theory.md", "CHANGELOG.md"):
        assert f"({page})" in text and (ROOT / page).is_file(), page
    for target in re.findall(r"\]\(((?:docs|examples)/[^)#]+)", text):
        if not target.startswith("examples/notebooks"):       # written by the notebooks' own work
            assert (ROOT / target).exists(), target


# A section's stable anchor is an HTML anchor on the line above its heading (``<a id="mode-ode"></a>``):
# GitHub shows a Python-Markdown ``{#mode-ode}`` as text and gives it no anchor; docs/_hooks/anchors.py
# turns the pair into the heading's own id on the site.
_A_ID = re.compile(r'<a\s+id="([^"]+)"\s*>\s*</a>')
_ATTR_HEADING = re.compile(r"^#{1,6}[ \t].*\{[ \t]*:?[ \t]*[#.][^}\n]*\}[ \t]*$", re.M)
_CITED = re.compile(r"([\w./-]*\.md)#([A-Za-z0-9_-]+)")
# where anchors are cited: docstrings, comments, the suites, the tests, the docs, the examples and notebooks
_CITING = ("README.md", "CHANGELOG.md", "mkdocs.yml", "theorykit", "validation", "derivations", "tests", "docs",
           "examples")


def _without_fences(text: str) -> str:
    """The markdown with its fenced code blocks (``` or ~~~) blanked, line count kept."""
    out, fence = [], None
    for line in text.split("\n"):
        s = line.lstrip()
        if fence is None and s.startswith(("```", "~~~")):
            fence, line = s[:3], ""
        elif fence is not None:
            fence, line = (None if s.startswith(fence) else fence), ""
        out.append(line)
    return "\n".join(out)


def _heading_text(line: str) -> str:
    """A heading's text as rendered: no ``#``s, code spans and emphasis unwrapped, links to their text."""
    text = re.sub(r"^#{1,6}\s+|\s+#+\s*$", "", line.strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[`*]|<[^>]+>", "", text)


def _github_slug(text: str) -> str:
    """GitHub's heading anchor (github-slugger): lower case, punctuation dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def _mkdocs_slug(text: str) -> str:
    """Python-Markdown's toc slug (markdown.extensions.toc.slugify, as mkdocs uses it)."""
    import unicodedata

    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip().lower())


def _page_anchors(page: Path) -> set[str]:
    """The anchors a link to ``page`` may name that exist both on GitHub and on the site: its
    ``<a id>``s, and each heading's slug where GitHub and Python-Markdown agree on it (a heading under an
    ``<a id>`` takes that id on the site instead of its slug)."""
    lines = _without_fences(page.read_text("utf-8")).split("\n")
    anchors = set(_A_ID.findall("\n".join(lines)))
    for i, line in enumerate(lines):
        if re.match(r"#{1,6}\s", line) and not (i and _A_ID.fullmatch(lines[i - 1].strip())):
            text = _heading_text(line)
            if _github_slug(text) == _mkdocs_slug(text):
                anchors.add(_github_slug(text))
    return anchors


def _cited_anchors():
    """(citing file, page path as written, resolved page or None, anchor) for every ``<page>.md#<anchor>``
    in the repository's text files, and every ``](#anchor)`` of a docs page (its own page)."""
    files = []
    for name in _CITING:
        p = ROOT / name
        files += [p] if p.is_file() else [f for f in p.rglob("*") if f.is_file() and f.suffix in
                                           (".py", ".md", ".toml", ".ipynb", ".yml", ".txt")
                                           and "__pycache__" not in f.parts and ".ipynb_checkpoints" not in f.parts]
    for f in files:
        text = f.read_text("utf-8", errors="replace")
        for path, anchor in _CITED.findall(text):
            target = next((c.resolve() for c in (f.parent / path, ROOT / path) if c.is_file()), None)
            yield f, path, target, anchor
        if f.suffix == ".md" and f.is_relative_to(DOCS):
            for anchor in re.findall(r"\]\(#([^)\s]+)\)", _without_fences(text)):
                yield f, f.name, f, anchor


def test_theory_anchors_cited_anywhere_exist():
    """Every anchor of ``docs/theory.md`` cited in the code, the suites, the tests, the docs and the examples
    is an anchor of docs/theory.md; the docs and examples no longer cite the external THEORY.md."""
    anchors = _page_anchors(DOCS / "theory.md")
    assert {"mode-ode", "closed-form", "effective-datasets", "race", "a0-rule", "time-conventions", "xor",
            "contexts", "lemma-4-1", "interlacing"} <= anchors
    cited = {a: f for f, _, target, a in _cited_anchors() if target == (DOCS / "theory.md").resolve()}
    assert {"mode-ode", "xor", "contexts", "race"} <= set(cited)        # the scan finds the citations
    missing = {a: str(f.relative_to(ROOT)) for a, f in cited.items() if a not in anchors}
    assert missing == {}
    from theorykit.report import _THEORY_ANCHORS     # the report's links, built as docs/theory.md + "#" + anchor

    assert set(_THEORY_ANCHORS.values()) - anchors == set()
    for f in [ROOT / "README.md", *DOCS.rglob("*.md"), *(ROOT / "examples").rglob("*.toml")]:
        assert "THEORY.md" not in f.read_text("utf-8"), f


def test_every_cited_docs_anchor_exists_on_github_and_the_site():
    """Every ``<page>.md#<anchor>`` cited anywhere in the repository (docstrings, comments, README, CHANGELOG,
    docs, examples, notebooks and their .py pairs, tests) names a page that exists and an anchor of it
    that both GitHub and the mkdocs site have: an ``<a id>`` of the page, or a heading whose GitHub and
    Python-Markdown slugs agree. Same-page ``](#anchor)`` links of the docs are checked too."""
    found, bad = set(), []
    for f, path, target, anchor in _cited_anchors():
        where = f"{f.relative_to(ROOT)}: {path}#{anchor}"
        if target is None:
            bad.append(f"{where} (no such page)")
        elif anchor not in _page_anchors(target):
            bad.append(f"{where} (no such anchor in {target.relative_to(ROOT)})")
        else:
            found.add(target.relative_to(ROOT).as_posix())
    assert bad == [], "\n".join(bad) + "\nadd <a id=\"ANCHOR\"></a> on the line above the heading it names"
    assert {"docs/theory.md", "docs/validation.md", "docs/performance.md", "docs/predict.md"} <= found


def test_no_heading_uses_attr_list_anchors():
    """No heading of the docs, README, CHANGELOG or a notebook is written ``## Title {#anchor}``: GitHub
    shows the ``{#anchor}`` as text and has no such anchor (write ``<a id="anchor"></a>`` above it)."""
    texts = {p: p.read_text("utf-8") for p in [ROOT / "README.md", ROOT / "CHANGELOG.md", *DOCS.rglob("*.md")]}
    for nb in (ROOT / "examples" / "notebooks").glob("*.ipynb"):
        for i, cell in enumerate(json.loads(nb.read_text("utf-8"))["cells"]):
            if cell["cell_type"] == "markdown":
                texts[Path(f"{nb}#cell{i}")] = "".join(cell["source"])
    bad = {str(p.relative_to(ROOT)): _ATTR_HEADING.findall(_without_fences(t)) for p, t in texts.items()}
    assert {p: h for p, h in bad.items() if h} == {}
    assert _ATTR_HEADING.search("## The mode ODE {#mode-ode}")      # the pattern catches the old form


def test_readme_first_example_runs_and_prints_what_it_says(capsys):
    """The README's "A first example" runs line by line as written, and every value its comments state
    is what the line gives. The stated values are checked against a hand derivation too, so a README
    refreshed from a wrong result fails: pathway "point0" of the xor ReLN is on for x = (1, 1, Δ) alone
    (mean loss, P = 4), so Σ^yx = x/4 with one singular value s = √(2+Δ²)/4 and d = |x|²/4 = (2+Δ²)/4;
    the mode a(t) = (s/d)/(1 + (s/(d a0) − 1) e^{−2st/τ}) reaches half its end point s/d at
    t½ = (τ/2s) ln(s/(d a0) − 1) = (2τ/√(2+Δ²)) ln(1/(a0√(2+Δ²)) − 1). The 0.003 is gradient descent
    against that closed form at η = 0.01 (they differ by O(η)), stated to one significant digit."""
    import sympy as sp

    text = (ROOT / "README.md").read_text("utf-8")
    block = re.search(r"## A first example\s*```python\n(.*?)```", text, flags=re.S)
    assert block, "README.md lost its 'A first example' python block"
    ns: dict = {}
    claims = {}
    for line in block.group(1).splitlines():
        code, _, comment = line.partition("  #")
        code, comment = code.strip(), comment.strip()
        if not code:
            continue
        if not comment or code.startswith(("import", "print(")) or "=" in code.split("(")[0]:
            exec(code, ns)  # noqa: S102 - the README's own code
            continue
        value = eval(code, ns)  # noqa: S307
        claim = comment.split(":")[0].strip()
        if claim.startswith("'"):
            assert repr(value) == claim, (code, value)
        elif re.fullmatch(r"[0-9.]+", claim):
            assert f"{float(value):.1g}" == claim, (code, value)
        elif ", " in claim or " in " in claim:
            continue  # a description ("L(t) in t, tau, a_0, Delta ..."), not a value
        else:
            assert str(value) == claim, (code, value)
        claims[code] = value
    capsys.readouterr()
    assert len(claims) == 4, list(claims)
    (sv,) = claims['der.modes["point0"].singular_values']
    th = claims['der.t_half["point0"][0]']
    sym = {x.name: x for x in sv.free_symbols | th.free_symbols}   # the task's symbols, with their assumptions
    D, a0, tau = sym["Delta"], sym["a_0"], sym["tau"]
    s, d = sp.sqrt(2 + D ** 2) / 4, (2 + D ** 2) / 4
    assert sp.simplify(sv - s) == 0
    assert sp.simplify(th - tau / (2 * s) * sp.log(s / (d * a0) - 1)) == 0


def test_predict_page_python_session_runs_as_written(tmp_path, monkeypatch, capsys):
    """docs/predict.md's Python session runs as written (in a scratch folder, for its ``val/`` page), and
    predicts what the page's XoR section says for Δ = 0.5: the four single-datapoint pathways."""
    text = (DOCS / "predict.md").read_text("utf-8")
    src, from_file = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    # the second session reads the example data-only spec, from the repository root
    monkeypatch.chdir(DOCS.parent)
    ns: dict = {"tk": tk}
    exec(compile(from_file, "docs/predict.md", "exec"), ns)  # noqa: S102 - the page's own code
    assert sorted(map(tuple, ns["pred"].gates.astype(int))) == [(0, 0, 0, 1), (0, 0, 1, 0), (0, 1, 0, 0), (1, 0, 0, 0)]
    monkeypatch.chdir(tmp_path)
    ns: dict = {}
    exec(compile(src, "docs/predict.md", "exec"), ns)  # noqa: S102 - the page's own code
    capsys.readouterr()
    pred, val = ns["pred"], ns["val"]
    # Δ = 0.5 < Δ* = √(2/3): the xor ReLN, one pathway per datapoint (docs/theory.md#xor)
    assert sorted(map(tuple, pred.gates.astype(int))) == [(0, 0, 0, 1), (0, 0, 1, 0), (0, 1, 0, 0), (1, 0, 0, 0)]
    assert isinstance(pred.to_spec(), tk.GDLNSpec)
    assert (tmp_path / "val" / "validate.html").is_file() and val is not None
