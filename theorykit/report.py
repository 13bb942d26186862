"""The validation report: ``results.json``, ``report.md`` and ``report.html``.

:func:`build_results` gathers the suites' result dicts into one document (every claim row gets a
``suite`` column and a normalised verdict class); :func:`write_reports` writes it as Markdown
(GitHub renders its ``$…$`` mathematics and shows the PNGs beside it) and as one self-contained
HTML page: the figures are embedded as data URIs and KaTeX (vendored under
``theorykit/assets/katex``, MIT) is inlined with its fonts, so the page renders its mathematics with
no network and can be moved or mailed on its own.

The claims table reads *paper claim → our figure → agreement → verdict*. A suite's claim row is a
dict with ``claim``, ``ours``, ``agreement`` and ``verdict``; where ``ours`` or ``agreement`` is
missing, ``figure``/``measured`` and ``criterion`` stand in. LaTeX that a suite returns under a key
``latex`` (a string, or a dict of label → LaTeX, at any depth) is typeset in the suite's section.
"""
from __future__ import annotations

import ast
import math
import re
from pathlib import Path

from . import __version__
from .html import IMAGES_JS, asset, figure_html, html_escape, page_head
from .io import atomic_write_text

__all__ = ["build_results", "write_reports", "render_markdown", "render_html", "verdict_class", "claim_rows",
           "collect_latex", "prose", "VERDICTS"]

#: verdict classes, in the order of the summary
VERDICTS = ("confirmed", "partly", "not borne out", "n/a", "failed")
_VERDICT_WORDS = {
    "confirmed": "confirmed", "supported": "confirmed", "reproduced": "confirmed", "yes": "confirmed",
    "pass": "confirmed", "passed": "confirmed", "agrees": "confirmed",
    "partly": "partly", "partly supported": "partly", "partial": "partly", "partially": "partly",
    "partly confirmed": "partly", "partially supported": "partly", "partially confirmed": "partly",
    "not borne out": "not borne out", "not supported": "not borne out", "not confirmed": "not borne out",
    "refuted": "not borne out", "no": "not borne out", "fail": "not borne out", "failed": "not borne out",
    "n/a": "n/a", "na": "n/a", "not applicable": "n/a", "skipped": "n/a", "": "n/a",
}
_COLOURS = {"confirmed": "#1a7f37", "partly": "#9a6700", "not borne out": "#cf222e", "n/a": "#57606a",
            "failed": "#cf222e"}
# a summary badge whose count is 0 is drawn in this neutral style, whatever its verdict: "failed: 0" in red
# read as an alarm when nothing had failed
_ZERO_BADGE = "background:#eaeef2;color:#57606a"
_SKIP_SCALARS = {"suite", "mode", "description", "device", "cache_key", "name"}


# ------------------------------------------------------------------------------------------------
# gathering
# ------------------------------------------------------------------------------------------------
def verdict_class(verdict) -> str:
    """Map a suite's verdict word onto one of :data:`VERDICTS` (unknown words count as ``n/a``)."""
    if isinstance(verdict, bool):
        return "confirmed" if verdict else "not borne out"
    v = str(verdict if verdict is not None else "").strip().lower()
    return _VERDICT_WORDS.get(v, "n/a")


def _reading(mode: str) -> str:
    """How to read the claims table: its columns and the verdict words (as docs/validation.md defines
    them), and, for a quick run, that its sizes are reduced."""
    text = ("Each row: a claim of the paper, the figure this run measured, their agreement (with the criterion "
            "it was graded by), and the verdict: confirmed; partly (the claim holds with a qualification the row "
            "states); not borne out (the measurement contradicts the claim as stated); n/a (a note, not a test, "
            "or a number this run could not measure). 'failed' counts the suites that stopped on an error.")
    if mode == "quick":
        text += (" This is a quick run, at reduced sizes: a row that cannot refute its claim at these sizes "
                 "says so, and --full runs the paper's sizes (docs/validation.md: the full runs' verdicts).")
    return text


def _shown_verdict(row: dict) -> str:
    """The verdict cell: the class the summary counts, so the table and the counts use one set of words
    (a suite's own word, when it differs, follows in parentheses: ``not borne out (refuted)``)."""
    cls, raw = row["verdict_class"], row["verdict"]
    return cls if raw.strip().lower() == cls else f"{cls} ({raw})"


def _num(x: float) -> str:
    """A float to 3 significant figures (``1.23e-05`` style below 1e-3 or from 1e5 up)."""
    if not math.isfinite(x):
        return {math.inf: "∞", -math.inf: "−∞"}.get(x, "not a number")
    return f"{x:.3g}"


def _key(k) -> str:
    return str(k).replace("_", " ").replace("k-1", "k−1")


def _fmt(v, depth=0) -> str:
    """A short human-readable rendering of a claim's value: numbers to 3 significant figures,
    dicts as ``key value, key value`` (nested ones in parentheses), lists as ``a, b, c``;
    strings through :func:`prose`."""
    if isinstance(v, bool) or v is None:
        return {True: "yes", False: "no", None: "—"}[v]
    if isinstance(v, float):
        return _num(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, dict):
        if depth > 2:
            return "…"
        items = list(v.items())
        parts = []
        for k, x in items[:8]:
            s = _fmt(x, depth + 1)
            sep = ": " if re.fullmatch(r"-?[\d.]+", str(k)) else " "      # "3: 2" for numeric keys, "common 1006"
            parts.append(f"{_key(k)}{sep}({s})" if isinstance(x, (dict, list, tuple)) and x else f"{_key(k)}{sep}{s}")
        return ", ".join(parts) + (", …" if len(items) > 8 else "")
    if isinstance(v, (list, tuple)):
        s = ", ".join(_fmt(x, depth + 1) for x in list(v)[:8])
        return s + (", …" if len(v) > 8 else "")
    return prose(str(v))


# ------------------------------------------------------------------------------------------------
# prose: what a suite wrote, made fit for a table cell
# ------------------------------------------------------------------------------------------------
#: sections of the external note the suites once cited, and the theory page's anchors for them
_THEORY_ANCHORS = {"2": "mode-ode", "3": "race", "4": "xor", "5": "contexts", "6": "two-hidden-layers",
                   "7": "finding-gates", "8": "lemma-4-1", "9": "paper-settings"}
_THEORY_RE = re.compile(r"THEORY\.md(?:\s*§\s*(\d+)(?:\s*,\s*§\s*\d+)*)?")
_LONG_FLOAT_RE = re.compile(r"(?<![\w.])(-?\d+\.\d+(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+)(?![\w.])")
_LATEX_NAME_RE = re.compile(r"\\[A-Za-z]+(?:\{[^{}]*\})*(?:_(?:\\[A-Za-z]+|\{[^{}]*\}|[A-Za-z0-9]))?")
_CODE_MATH_HINT = re.compile(r"\*\*|\b(?:sqrt|binomial|exp|log|Rational|Interval)\(|[\w)}]\*[\w(\\]|\)/\(|\w/\(")
_EXPR_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_\\{}().*/^+-")
_FUNCS = {"sqrt", "exp", "log", "binomial", "Rational", "Abs", "Interval"}


def _theory_ref(m) -> str:
    anchor = _THEORY_ANCHORS.get(m.group(1) or "")
    return "docs/theory.md" + (f"#{anchor}" if anchor else "")


def _long_float(m) -> str:
    s = m.group(1)
    digits = len(re.sub(r"[^0-9]", "", s.split("e")[0].split("E")[0]).lstrip("0"))
    if digits <= 4 and "e" not in s.lower():
        return s
    try:
        return _num(float(s))
    except ValueError:
        return s


def _dict_spans(s: str):
    """Spans of balanced ``{…}`` that read as a Python dict literal (keys quoted or numbers)."""
    i = 0
    while i < len(s):
        if s[i] == "{" and i + 1 < len(s) and (s[i + 1] in "'\"-}" or s[i + 1].isdigit()):
            depth = 0
            for j in range(i, len(s)):
                depth += {"{": 1, "}": -1}.get(s[j], 0)
                if depth == 0:
                    try:
                        val = ast.literal_eval(s[i:j + 1])
                    except (ValueError, SyntaxError, MemoryError, RecursionError):
                        break
                    if isinstance(val, dict):
                        yield i, j + 1, val
                        i = j
                    break
        i += 1


def _expr_to_latex(text: str) -> str | None:
    """LaTeX of a SymPy-printed expression string such as ``\\tilde{\\sigma}_\\alpha*sqrt(k - 1)/(k**(3/2)*n)``,
    or ``None`` where it is not one. The string is parsed by Python's ``ast`` and rebuilt from a
    small whitelist (numbers, names, + − * / **, sqrt, exp, log, binomial, Rational, Interval): nothing is
    evaluated or sympified."""
    import sympy as sp

    names = {}

    def hold(m):
        key = f"Ltx{len(names)}x"
        names[key] = m.group(0)
        return f" {key} "      # spaced: a name glued to its neighbours ("H\\rVert") is not code math

    src = _LATEX_NAME_RE.sub(hold, text).replace("^", "**").strip()
    try:
        tree = ast.parse(src, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    symbols = {}

    def build(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return sp.Integer(node.value) if isinstance(node.value, int) else sp.Float(float(_num(node.value)), 3)
        if isinstance(node, ast.Name):
            return symbols.setdefault(node.id, sp.Symbol(node.id))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            x = build(node.operand)
            return -x if isinstance(node.op, ast.USub) else x
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
            a, b = build(node.left), build(node.right)
            return {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                    ast.Div: lambda: a / b, ast.Pow: lambda: a ** b}[type(node.op)]()
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS
                and not node.keywords and 1 <= len(node.args) <= 2):
            return getattr(sp, node.func.id)(*[build(a) for a in node.args])
        raise ValueError("not an expression")

    try:
        expr = build(tree.body)
    except (ValueError, TypeError, ZeroDivisionError, RecursionError):
        return None
    latex_names = {sym: names[name] for name, sym in symbols.items() if name in names}
    return sp.latex(expr, symbol_names=latex_names)


def _code_math(s: str) -> str:
    """Replace runs of SymPy-printed code math in prose by ``$…$`` LaTeX."""
    out, i = [], 0
    while i < len(s):
        if s[i] in _EXPR_CHARS and (i == 0 or s[i - 1] not in _EXPR_CHARS):
            j, depth = i, 0
            while j < len(s) and (s[j] in _EXPR_CHARS or (s[j] in " ," and depth > 0)):
                depth += {"(": 1, ")": -1}.get(s[j], 0)
                j += 1
            run = s[i:j]
            core = run.rstrip(".")
            while depth < 0 and core.endswith(")"):      # the close of a parenthesis of the prose
                core, depth = core[:-1], depth + 1
            if depth == 0 and _CODE_MATH_HINT.search(core):
                tex = _expr_to_latex(core)
                if tex is not None:
                    out.append(f"${tex}$" + run[len(core):])
                    i = j
                    continue
            out.append(run)
            i = j
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def prose(s: str) -> str:
    """A suite's text made fit for the report: a Python dict literal becomes ``key value, …``,
    SymPy-printed code math becomes ``$…$`` LaTeX, long floats are rounded to 3 significant
    figures, and references to the external theory note point to ``docs/theory.md``. Mathematics
    the suite already typeset as ``$…$`` is kept (only its long floats are rounded)."""
    s = str(s)
    if "THEORY.md" in s:
        s = _THEORY_RE.sub(_theory_ref, s)
    if "{" in s:
        parts, last = [], 0
        for a, b, val in list(_dict_spans(s)):
            parts += [s[last:a], _fmt(val)]
            last = b
        s = "".join(parts) + s[last:]
    # mathematics already typeset by the suite (the odd pieces between "$"s) is left alone
    return "$".join(_LONG_FLOAT_RE.sub(_long_float, _code_math(p) if k % 2 == 0 else p)
                    for k, p in enumerate(s.split("$")))


def claim_rows(name: str, result: dict) -> list[dict]:
    """The claim rows of one suite, each with ``suite``, the four table columns and ``verdict_class``."""
    rows = []
    for c in (result.get("claims") or []) if isinstance(result, dict) else []:
        if not isinstance(c, dict):
            continue
        ours = c.get("ours", c.get("figure", c.get("measured")))
        agreement = c.get("agreement", c.get("criterion"))
        row = {"suite": name, "id": c.get("id"), "claim": prose(c.get("claim", "")),
               "ours": _fmt(ours), "agreement": _fmt(agreement),
               "verdict": str(c.get("verdict", "n/a")), "verdict_class": verdict_class(c.get("verdict"))}
        for k in ("source", "prediction", "criterion", "figure"):
            if k in c and k not in row:
                row[k] = _fmt(c[k])
        rows.append(row)
    return rows


def build_results(mode: str, suites: dict, failed: dict | None = None, status: dict | None = None,
                  seconds: float | None = None) -> dict:
    """The ``results.json`` document: mode, version, every suite's result, all claims, failures."""
    failed = dict(failed or {})
    claims = [r for name, res in suites.items() for r in claim_rows(name, res)]
    counts = {v: 0 for v in VERDICTS}
    for r in claims:
        counts[r["verdict_class"]] += 1
    counts["failed"] = len(failed)
    doc = {"mode": mode, "theorykit_version": __version__, "suites": dict(suites), "claims": claims,
           "failed": failed, "verdict_counts": counts}
    if status:
        doc["status"] = dict(status)
    if seconds is not None:
        doc["seconds"] = seconds
    return doc


def collect_latex(result, _path=(), _depth=0) -> list[tuple[str, str]]:
    """``(label, latex)`` pairs found under keys named ``latex`` anywhere in a suite's result."""
    out = []
    if _depth > 6:
        return out
    if isinstance(result, dict):
        for k, v in result.items():
            if k == "latex":
                label = " / ".join(str(p) for p in _path) or "LaTeX"
                if isinstance(v, str):
                    out.append((label, v))
                elif isinstance(v, dict):
                    out += [(f"{label} / {kk}" if _path else str(kk), vv) for kk, vv in v.items()
                            if isinstance(vv, str)]
                elif isinstance(v, list):
                    out += [(label, vv) for vv in v if isinstance(vv, str)]
            elif k != "claims":
                out += collect_latex(v, _path + (k,), _depth + 1)
    elif isinstance(result, list):
        for i, v in enumerate(result[:50]):
            out += collect_latex(v, _path + (str(i),), _depth + 1)
    return out


def _strip_math_delims(tex: str) -> tuple[str, bool]:
    """Remove surrounding ``$…$``/``$$…$$``/``\\[…\\]``/``\\(…\\)``; returns (tex, display)."""
    s = tex.strip()
    for left, right, disp in (("$$", "$$", True), ("\\[", "\\]", True), ("\\(", "\\)", False), ("$", "$", False)):
        if s.startswith(left) and s.endswith(right) and len(s) >= len(left) + len(right):
            return s[len(left):len(s) - len(right)].strip(), disp
    return s, True


def _key_numbers(result: dict, limit: int = 24) -> list[tuple[str, str]]:
    """Headline numbers of a suite: its ``summary`` dict if any, else its top-level scalars and
    the numeric entries of its top-level dicts (``config`` and timings left out)."""
    summary = result.get("summary") if isinstance(result.get("summary"), dict) else None
    src = summary or result
    rows = []
    for k, v in src.items():
        if summary is None and (k in _SKIP_SCALARS or k in ("seconds", "config", "timing_s", "figures")):
            continue
        label = k.replace("_", " ")
        if isinstance(v, (bool, int, float)) or (isinstance(v, str) and len(v) <= 100):
            rows.append((label, _fmt(v)))
        elif isinstance(v, dict) and summary is None:
            kids = [(f"{label} / {kk.replace('_', ' ')}", _fmt(vv)) for kk, vv in v.items()
                    if isinstance(vv, (bool, int, float))]
            rows += kids[:4]
        elif summary is not None:
            rows.append((label, _fmt(v)))
    rows = rows[:limit]
    if isinstance(result.get("seconds"), (int, float)):
        rows.append(("run time", f"{result['seconds']:.1f} s"))
    return rows


def _figures(result: dict) -> list[tuple[str, str]]:
    """``(file, caption)`` pairs of a suite's figures."""
    out = []
    for f in result.get("figures") or []:
        if isinstance(f, dict):
            name = f.get("file") or f.get("path") or f.get("name")
            cap = f.get("caption") or f.get("title") or name
        else:
            name, cap = f, f
        if isinstance(name, str):
            out.append((name, str(cap)))
    return out


# ------------------------------------------------------------------------------------------------
# Markdown
# ------------------------------------------------------------------------------------------------
def _run_line(name: str, res: dict) -> str:
    """Which protocol and device gave a suite's numbers: its mode (``quick``: theorykit's smaller
    settings; ``full``: the paper's sizes where it gives them), the device it ran on, and where its
    settings are (``config`` or ``settings`` in ``NAME.json``), so a number quoted from the report carries its protocol."""
    mode = res.get("mode") or "?"
    what = {"quick": "quick mode (theorykit's reduced settings, not the paper's sizes)",
            "full": "full mode (the paper's sizes where it gives them)"}.get(mode, f"{mode} mode")
    dev = res.get("device")
    where = f" on {dev}" if dev else ", device not recorded"
    key = next((k for k in ("config", "settings") if isinstance(res.get(k), dict)), None)
    cfg = f"; settings under `{key}` in `{name}.json`" if key else ""
    return f"Run: {what}{where}{cfg}."


def _md_cell(s) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def render_markdown(results: dict) -> str:
    """The Markdown report (figures referenced by relative path: keep it beside the PNGs)."""
    L = [f"# theorykit validation report ({results.get('mode', '?')} mode)", "",
         f"theorykit {results.get('theorykit_version', '?')} — reproduction of *Make Haste Slowly* "
         "(Jarvis, Klein, Rosman & Saxe, ICLR 2025).", ""]
    counts = results.get("verdict_counts", {})
    L += ["**Verdicts:** " + ", ".join(f"{v}: {counts.get(v, 0)}" for v in VERDICTS), "",
          _reading(results.get("mode", "?")), ""]
    if results.get("failed"):
        L += ["**Failed suites:** " + ", ".join(results["failed"]), ""]
    L += ["## Claims", "", "| suite | paper claim | our figure | agreement | verdict |", "|---|---|---|---|---|"]
    for r in results.get("claims", []):
        L.append("| " + " | ".join(_md_cell(x) for x in (r["suite"], r["claim"], r["ours"], r["agreement"],
                                                             f"**{_shown_verdict(r)}**")) + " |")
    L.append("")
    for name, res in results.get("suites", {}).items():
        L += [f"## {name}", ""]
        if res.get("description"):
            L += [prose(res["description"]), ""]
        L += [f"*{_run_line(name, res)}*", ""]
        nums = _key_numbers(res)
        if nums:
            L += ["| quantity | value |", "|---|---|"] + [f"| {_md_cell(k)} | {_md_cell(v)} |" for k, v in nums] + [""]
        for label, tex in collect_latex(res):
            body, _ = _strip_math_delims(tex)
            L += [f"*{label}*:", "", "$$", body, "$$", ""]
        for f, cap in _figures(res):
            L += [f"![{cap}]({f})", ""]
    for name, err in (results.get("failed") or {}).items():
        L += [f"## {name} (failed)", "", "```", str(err.get("error", err)), "```", ""]
    return "\n".join(L) + "\n"


# ------------------------------------------------------------------------------------------------
# HTML
# ------------------------------------------------------------------------------------------------
_JS = r"""
(function(){
  function typeset(){
    var bad = 0;
    document.querySelectorAll(".tex").forEach(function(el){
      try { katex.render(el.getAttribute("data-tex"), el,
                         {displayMode: el.classList.contains("display"), throwOnError: false}); }
      catch (e) { bad++; }
    });
    renderMathInElement(document.body, {
      delimiters: [{left: "$$", right: "$$", display: true}, {left: "\\[", right: "\\]", display: true},
                   {left: "\\(", right: "\\)", display: false}, {left: "$", right: "$", display: false}],
      ignoredTags: ["script", "noscript", "style", "textarea", "pre", "code", "option"],
      throwOnError: false});
    document.body.setAttribute("data-math", bad ? "errors" : "rendered");
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", typeset); else typeset();
})();
"""


def render_html(results: dict, out_dir) -> str:
    """The self-contained HTML report (figures read from ``out_dir`` and embedded)."""
    out_dir = Path(out_dir)
    mode = results.get("mode", "?")
    counts = results.get("verdict_counts", {})
    H = page_head(f"theorykit validation report ({mode})", katex=True) + [
         "<h1>theorykit validation report</h1>",
         f'<p class="sub">Reproduction of <em>Make Haste Slowly: A Theory of Emergent Structured Mixed '
         f'Selectivity in Feature Learning ReLU Networks</em> (Jarvis, Klein, Rosman &amp; Saxe, ICLR 2025). '
         f'theorykit {html_escape(results.get("theorykit_version", "?"))}, <b>{html_escape(mode)}</b> mode'
         + (f', {results["seconds"]:.0f} s' if isinstance(results.get("seconds"), (int, float)) else "")
         + ".</p>", '<div class="summary">']
    for v in VERDICTS:
        n = counts.get(v, 0)
        style = f"background:{_COLOURS[v]}" if n else _ZERO_BADGE
        H.append(f'<span class="badge" style="{style}">{html_escape(v)}: {n}</span>')
    H.append("</div>")
    status = results.get("status") or {}
    if status:
        H.append('<p class="small">Suites: ' + ", ".join(f"{html_escape(k)} ({html_escape(v)})" for k, v in status.items())
                 + ".</p>")

    H.append(f'<p class="small">{html_escape(_reading(mode))}</p>')
    H += ["<h2>Claims</h2>", "<table><thead><tr><th>suite</th><th>paper claim</th><th>our figure</th>"
          "<th>agreement</th><th>verdict</th></tr></thead><tbody>"]
    for r in results.get("claims", []):
        src = f'<div class="small">{html_escape(r["source"])}</div>' if r.get("source") else ""
        crit = (f'<div class="small">criterion: {html_escape(r["criterion"])}</div>'
                if r.get("criterion") and r["criterion"] != r["agreement"] else "")
        H.append(f'<tr><td>{html_escape(r["suite"])}</td><td>{html_escape(r["claim"])}{src}</td><td>{html_escape(r["ours"])}</td>'
                 f'<td>{html_escape(r["agreement"])}{crit}</td><td class="v" style="color:{_COLOURS[r["verdict_class"]]}">'
                 f'{html_escape(_shown_verdict(r))}</td></tr>')
    if not results.get("claims"):
        H.append('<tr><td colspan="5">no claims</td></tr>')
    H.append("</tbody></table>")

    for name, res in results.get("suites", {}).items():
        H.append(f'<h2 id="{html_escape(name)}">{html_escape(name)}</h2>')
        if res.get("description"):
            H.append(f"<p>{html_escape(prose(res['description']))}</p>")
        H.append(f'<p class="small">{html_escape(_run_line(name, res).replace("`", ""))}</p>')
        nums = _key_numbers(res)
        if nums:
            H.append('<table class="nums"><tbody>' + "".join(f"<tr><td>{html_escape(k)}</td><td>{html_escape(v)}</td></tr>"
                                                             for k, v in nums) + "</tbody></table>")
        for label, tex in collect_latex(res):
            body, disp = _strip_math_delims(tex)
            cls = "tex display" if disp else "tex"
            H.append(f'<div class="eq"><div class="lab">{html_escape(label)}</div>'
                     f'<div class="{cls}" data-tex="{html_escape(body)}"><code>{html_escape(body)}</code></div></div>')
        H += [figure_html(out_dir / f, cap, f) for f, cap in _figures(res)]
    for name, err in (results.get("failed") or {}).items():
        H.append(f'<h2 id="{html_escape(name)}">{html_escape(name)} <span style="color:{_COLOURS["failed"]}">(failed)</span></h2>')
        H.append(f"<pre>{html_escape(err.get('traceback') or err.get('error', err))}</pre>")
    H.append(f"<script>{asset('katex.min.js').decode('utf-8')}</script>")
    H.append(f"<script>{asset('contrib', 'auto-render.min.js').decode('utf-8')}</script>")
    H.append(f"<script>{_JS}</script>")
    H.append(f"<script>{IMAGES_JS}</script>")
    H.append("</body></html>")
    return "\n".join(H) + "\n"


def write_reports(results: dict, out_dir) -> list[Path]:
    """Write ``report.md`` and ``report.html`` into ``out_dir`` (atomically); returns their paths."""
    out_dir = Path(out_dir)
    md = atomic_write_text(out_dir / "report.md", render_markdown(results))
    ht = atomic_write_text(out_dir / "report.html", render_html(results, out_dir))
    return [md, ht]
