"""The report's and the command line's small rules, by hand and from the docstrings (found by a
mutation check of theorykit/report.py, theorykit/progress.py, theorykit/cli/common.py and the command
handlers).

The report: how a claim's value is written (3 significant figures, ∞, yes/no/—, dicts as ``key value``,
lists cut after eight), which keys stand in for ``ours``/``agreement``, the verdict counts, the
``latex`` keys found at any depth, the headline numbers of a suite, figures, the failed suites'
sections and the HTML page's run time, status line and empty table; ``prose`` (long floats,
THEORY.md references, dict literals, SymPy code math). The progress bar: a total of at least one that
grows with the work. The CLI's shared helpers: --times defaults and bounds, --time-limit, --set given
twice, the no-value error, name cutting, --steps/--seeds bounds, output paths, the spec written back,
non-finite results and the weight-key names. Every expected value is worked out by hand in a comment
or read from a docstring, or computed a second way in the test (SymPy for LaTeX, base64 by hand),
never taken from a run of the code under test. No training: each test runs in well under a second.
"""
from __future__ import annotations

import io
import math
import re
import types
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from theorykit import report
from theorykit.cli import common
from theorykit.errors import SpecError


def _res(claims=(), **suite):
    return report.build_results("quick", {"s": {"claims": list(claims), **suite}})


def _row(**claim):
    return report.claim_rows("s", {"claims": [claim]})[0]


# ------------------------------------------------------------------------------------------------
# a claim's value in a cell
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value,text", [
    (True, "yes"), (False, "no"), (None, "—"),
    (7, "7"), (0.123456, "0.123"), (123456.0, "1.23e+05"),       # 3 significant figures ({:.3g})
    (math.inf, "∞"), (-math.inf, "−∞"), (math.nan, "not a number"),
    ([1, 2.5, "a"], "1, 2.5, a"),
    (list(range(9)), "0, 1, 2, 3, 4, 5, 6, 7, …"),                  # the first eight, then an ellipsis
    (list(range(8)), "0, 1, 2, 3, 4, 5, 6, 7"),                     # eight: all of them, no ellipsis
    ({"a_b": 1, "c": True}, "a b 1, c yes"),                        # underscores read as spaces
    ({3: 2, "-1.5": 0.5}, "3: 2, -1.5: 0.5"),                       # numeric keys get a colon
    ({"x": [1, 2], "y": {}}, "x (1, 2), y "),                       # nested non-empty ones in parentheses
    # depth: the top dict is depth 0, a dict at depth 3 is "…"
    ({"a": {"b": {"c": {"d": 1}}}}, "a (b (c (…)))"),
    ({f"k{i}": i for i in range(9)}, "k0 0, k1 1, k2 2, k3 3, k4 4, k5 5, k6 6, k7 7, …"),
])
def test_a_claims_value_is_written_short(value, text):
    assert _row(claim="c", ours=value)["ours"] == text


def test_ours_and_agreement_fall_back_on_figure_measured_and_criterion():
    """Module docstring: where ``ours`` or ``agreement`` is missing, ``figure``/``measured`` and
    ``criterion`` stand in (``ours`` first, then ``figure``, then ``measured``)."""
    assert _row(ours=1, figure=2, measured=3)["ours"] == "1"
    assert _row(figure=2, measured=3)["ours"] == "2"
    assert _row(measured=3)["ours"] == "3"
    assert _row()["ours"] == "—"                                     # nothing: None, written as —
    assert _row(agreement="a", criterion="c")["agreement"] == "a"
    assert _row(criterion="c")["agreement"] == "c"
    # source, prediction, criterion and figure are kept as columns of their own (formatted)
    r = _row(claim="c", source="paper §4", prediction=0.5, criterion="x < 1", figure=[1, 2])
    assert (r["source"], r["prediction"], r["criterion"], r["figure"]) == ("paper §4", "0.5", "x < 1", "1, 2")
    assert r["suite"] == "s" and r["verdict"] == "n/a" and r["verdict_class"] == "n/a"
    assert "source" not in _row(claim="c")


def test_results_document_counts_verdicts_and_keeps_status_and_seconds():
    suites = {"a": {"claims": [{"verdict": "yes"}, {"verdict": "partial"}, {"verdict": "no"}]},
              "b": {"claims": [{"verdict": "confirmed"}, {"verdict": "weird"}]}}
    doc = report.build_results("full", suites, failed={"c": {"error": "x"}, "d": {"error": "y"}},
                               status={"a": "ran"}, seconds=0.0)
    # by hand: yes, confirmed -> confirmed; partial -> partly; no -> not borne out; weird -> n/a;
    # two failed suites
    assert doc["verdict_counts"] == {"confirmed": 2, "partly": 1, "not borne out": 1, "n/a": 1, "failed": 2}
    assert [r["suite"] for r in doc["claims"]] == ["a", "a", "a", "b", "b"]
    assert doc["mode"] == "full" and doc["status"] == {"a": "ran"}
    assert doc["seconds"] == 0.0                      # a run of 0 s still records its time
    bare = report.build_results("quick", {})
    assert "status" not in bare and "seconds" not in bare and bare["failed"] == {}


# ------------------------------------------------------------------------------------------------
# LaTeX under "latex" keys
# ------------------------------------------------------------------------------------------------
def test_latex_labels_and_forms():
    res = {"latex": "a", "t": {"latex": {"x": "b", "n": 3}}, "u": {"latex": ["c", 4, "d"]}}
    # top-level string: "LaTeX"; a dict under a path: "path / key"; a list: the path for each string;
    # non-strings skipped
    assert report.collect_latex(res) == [("LaTeX", "a"), ("t / x", "b"), ("u", "c"), ("u", "d")]


def test_latex_is_searched_six_levels_deep_and_fifty_list_items():
    def nest(n):
        d = {"latex": "x"}
        for i in range(n):
            d = {f"k{i}": d}
        return d

    # the innermost dict is at depth n; depths 0..6 are searched (docstring: "at any depth", cut at 6)
    assert len(report.collect_latex(nest(6))) == 1
    assert report.collect_latex(nest(7)) == []
    items = [{"latex": str(i)} for i in range(51)]
    got = report.collect_latex({"l": items})
    assert [t for _, t in got] == [str(i) for i in range(50)]      # the first 50 items only
    assert got[0][0] == "l / 0"


@pytest.mark.parametrize("tex,body,display", [
    ("\\[x\\]", "x", True), ("$z$", "z", False), ("w", "w", True), ("$$ v $$", "v", True), ("$", "$", True)])
def test_math_delimiters(tex, body, display):
    """Markdown puts every body between $$ lines; HTML marks the inline ones (no 'display' class)."""
    md = report.render_markdown(_res(latex={"k": tex}))
    assert f"*k*:\n\n$$\n{body}\n$$" in md
    h = report.render_html(_res(latex={"k": tex}), Path("."))
    cls = "tex display" if display else "tex"
    assert f'<div class="{cls}" data-tex="{report.html_escape(body)}">' in h


# ------------------------------------------------------------------------------------------------
# a suite's section: headline numbers, figures, failures
# ------------------------------------------------------------------------------------------------
def _nums(md):
    return [ln for ln in md.splitlines() if ln.startswith("| ") and not ln.startswith("| s |")
            and not ln.startswith("| suite |") and not ln.startswith("| quantity |")]


def test_headline_numbers_leave_out_bookkeeping_and_take_four_of_a_dict():
    res = _res(suite="s", mode="quick", description="d", device="cpu", cache_key="k", name="n",
               config={"lr": 1}, timing_s={"a": 1}, figures=[], seconds=12.34,
               max_err=0.5, ok=True, word="w" * 100, long="w" * 101, lst=[1, 2],
               sub={"a": 1, "b_c": 2.0, "s": "text", "d": 3, "e": 4, "f": 5})
    rows = _nums(report.render_markdown(res))
    # by hand: the scalars max err, ok and a 100-character string; the dict's numeric entries,
    # the first four (a, b c, d, e; "s" is text); the run time to one decimal
    assert rows == ["| max err | 0.5 |", "| ok | yes |", f"| word | {'w' * 100} |",
                    "| sub / a | 1 |", "| sub / b c | 2 |", "| sub / d | 3 |", "| sub / e | 4 |",
                    "| run time | 12.3 s |"]


def test_a_summary_dict_is_shown_whole_and_rows_stop_at_24():
    res = _res(summary={"seconds": 1, "lst": [1, 2], "mode": "m"}, other=5)
    assert _nums(report.render_markdown(res)) == ["| seconds | 1 |", "| lst | 1, 2 |", "| mode | m |"]
    many = _res(**{f"v{i}": i for i in range(30)})
    rows = _nums(report.render_markdown(many))
    assert len(rows) == 24 and rows[-1] == "| v23 | 23 |"


def test_figures_plain_names_and_captions_and_bad_entries(tmp_path):
    res = _res(figures=["a.png", {"file": "b.png"}, {"caption": "no file"}, 7])
    md = report.render_markdown(res)
    # a plain string is its own caption; a dict without caption or title is captioned by its file;
    # entries without a file name are left out
    assert "![a.png](a.png)" in md and "![b.png](b.png)" in md
    assert md.count("![") == 2


def test_markdown_header_counts_and_failed_sections():
    res = report.build_results("full", {}, failed={"x": {"error": "boom"}, "y": {"stage": "import"}})
    md = report.render_markdown(res)
    assert md.startswith("# theorykit validation report (full mode)\n")
    assert "**Verdicts:** confirmed: 0, partly: 0, not borne out: 0, n/a: 0, failed: 2" in md
    assert "**Failed suites:** x, y" in md
    assert "## x (failed)\n\n```\nboom\n```" in md
    assert "## y (failed)\n\n```\n{'stage': 'import'}\n```" in md       # no error text: the record itself
    assert "Failed suites" not in report.render_markdown(report.build_results("full", {}))


def test_html_run_time_status_source_and_an_empty_table():
    h = report.render_html(report.build_results("quick", {"s": {}}, seconds=61.6), Path("."))
    assert "<b>quick</b> mode, 62 s.</p>" in h                     # {:.0f}: 61.6 -> 62
    assert '<tr><td colspan="5">no claims</td></tr>' in h
    assert "Suites:" not in h
    h = report.render_html(_res([{"claim": "c", "source": "paper <4>", "verdict": "yes"}]), Path("."))
    assert "<b>quick</b> mode.</p>" in h
    assert '<td>c<div class="small">paper &lt;4&gt;</div></td>' in h
    assert "no claims" not in h
    # the summary badges: one per class, with its count
    assert '<span class="badge" style="background:#1a7f37">confirmed: 1</span>' in h
    # a failed suite: its traceback when it has one, else its error
    h = report.render_html(report.build_results("quick", {}, failed={"x": {"error": "e", "traceback": "tb <1>"},
                                                                     "y": {"error": "only e"}}), Path("."))
    assert "<pre>tb &lt;1&gt;</pre>" in h and "<pre>only e</pre>" in h


def test_write_reports_writes_both_files(tmp_path):
    paths = report.write_reports(_res([{"claim": "c", "verdict": "yes"}]), tmp_path)
    assert [p.name for p in paths] == ["report.md", "report.html"]
    assert "| s | c | — | — | **confirmed (yes)** |" in (tmp_path / "report.md").read_text()
    assert (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")


# ------------------------------------------------------------------------------------------------
# prose
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text,out", [
    ("see THEORY.md §3", "see docs/theory.md#race"),                # the table of anchors, §3 = race
    ("see THEORY.md §7, §8", "see docs/theory.md#finding-gates"),   # the first section names the anchor
    ("see THEORY.md §1", "see docs/theory.md"),                     # no anchor for §1
    ("see THEORY.md", "see docs/theory.md"),
    ("pi 3.14159", "pi 3.14"),                                      # six digits: three significant figures
    ("x 1.234", "x 1.234"),                                         # four digits are kept as written
    ("x 0.0001234", "x 0.0001234"),                                 # leading zeros do not count
    ("x 1.2345", "x 1.23"),                                         # five digits are rounded
    ("x 1e-07", "x 1e-07"), ("x 2E5", "x 2e+05"),                   # exponents through {:.3g}
    ("v1.23456", "v1.23456"),                                       # glued to a word: not a number
    ("d {'a_b': 1, 2: 0.5}", "d a b 1, 2: 0.5"),                    # a dict literal as key value pairs
    ("set {'a'} and {x}", "set {'a'} and {x}"),                     # a set and a brace are not dicts
    ("{'a': 1} {'b': 2}", "a 1 b 2"),
    ("$1.23456$", "$1.23$"),                                        # inside $…$: only floats rounded
])
def test_prose_rules(text, out):
    assert report.prose(text) == out


def test_prose_code_math_is_typeset_by_sympy():
    x, k = sp.symbols("x k")
    # the same expressions written directly in SymPy give the LaTeX
    assert report.prose("so x**2 here") == f"so ${sp.latex(x ** 2)}$ here"
    assert report.prose("so -x**2.") == f"so ${sp.latex(-x ** 2)}$."
    assert report.prose("a 2.5*k b") == f"a ${sp.latex(sp.Float(2.5, 3) * k)}$ b"
    assert report.prose("r sqrt(k)/(k - 1)") == f"r ${sp.latex(sp.sqrt(k) / (k - 1))}$"
    # not code math: a boolean, keywords, three arguments, unknown functions are left as written
    for s in ("True*x", "sqrt(x, y, z)*2", "foo(x)*2", "sqrt(x=1)*2", "x**"):
        assert report.prose(s) == s


# ------------------------------------------------------------------------------------------------
# the progress bar
# ------------------------------------------------------------------------------------------------
class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_total_is_at_least_one_and_grows_with_the_work():
    from theorykit.progress import Progress

    assert Progress("p", 0, stream=io.StringIO()).total == 1
    assert Progress("p", -3, stream=io.StringIO()).total == 1
    tty = _Tty()
    with Progress("grow", 2, stream=tty) as pr:
        assert pr.enabled and pr.tty
        pr.update(3, note="stage one")
        assert (pr.n, pr.total, pr._bar.total) == (3, 3, 3)          # an estimate that was too small grows
        pr.update()
        assert (pr.n, pr.total) == (4, 4)
    text = tty.getvalue()
    assert "4/4" in text and "stage one" in text
    pipe = io.StringIO()
    pr = Progress("p", 5, stream=pipe)
    assert not pr.tty and not pr.enabled                               # not a terminal: quiet
    pr.update(2)
    assert pr.n == 2 and pr.total == 5
    pr.close()


# ------------------------------------------------------------------------------------------------
# the CLI's shared helpers
# ------------------------------------------------------------------------------------------------
def test_default_times_are_eleven_whole_steps_or_fewer():
    # linspace(0, 3000, 11) steps by 300; linspace(0, 5, 11) = 0, .5, …, 5 cut to integers 0..5
    assert common.parse_times(None, 3000).tolist() == [300.0 * i for i in range(11)]
    assert common.parse_times(None, 5).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_times_bounds_and_count():
    assert common.parse_times("0, 1e12", 1).tolist() == [0.0, 1e12]
    for bad in ("-1", "1e12,1.0000001e12", "nan", ",", "1,x"):
        with pytest.raises(SpecError) as e:
            common.parse_times(bad, 1)
        assert e.value.field == "--times"
    # 100000 distinct times (a time given twice is now dropped, with a note: tests/test_researcher_findings_rules.py)
    assert len(common.parse_times(",".join(map(str, range(100000))), 1)) == 100000
    with pytest.raises(SpecError, match="100001 times given"):
        common.parse_times(",".join(["1"] * 100001), 1)


def test_time_limit_must_be_non_negative_and_a_number():
    assert common.limits_from(types.SimpleNamespace(time_limit=0.5, force=True)).max_seconds == 0.5
    assert common.limits_from(types.SimpleNamespace(time_limit=0.5, force=True)).force is True
    assert common.limits_from(types.SimpleNamespace()).force is False
    # 0 means no limit on every command (as on predict; each --help says "0 or inf: no limit")
    assert common.limits_from(types.SimpleNamespace(time_limit=0.0)).max_seconds == math.inf
    for bad in (-0.5, -1.0, math.nan):
        with pytest.raises(SpecError) as e:
            common.limits_from(types.SimpleNamespace(time_limit=bad))
        assert e.value.field == "--time-limit"


def test_a_symbol_set_twice_is_refused_naming_both_values():
    from theorykit.spec.files import load_spec

    spec = load_spec(str(Path(__file__).resolve().parent.parent / "examples" / "xor_linear.toml"))
    assert {str(k): float(v) for k, v in common.values_from(spec, ["Delta=0.5"]).items()} == {"Delta": 0.5}
    with pytest.raises(SpecError) as e:
        common.values_from(spec, ["Delta=0.5", "Delta = 0.25"])
    assert e.value.field == "--set Delta" and "(0.5 and 0.25)" in e.value.problem


def test_no_value_names_the_symbols_sorted_with_one_set_each():
    e = common.no_value({"b", "a"})
    assert (e.field, e.problem, e.fix) == ("--set", "no value for ['a', 'b']", "pass --set a=VALUE --set b=VALUE")
    e = common.no_value({"z"}, "--plot", "needs {names}")
    assert (e.field, e.problem) == ("--plot", "needs ['z']")


def test_fitting_name_is_cut_to_64_characters_or_falls_back():
    assert common.fitting_name("x" * 70, "fb") == "x" * 64              # NAME_MAX_LEN = 64 (docs/specs.md)
    assert common.fitting_name("ok", "fb") == "ok"
    assert common.fitting_name("", "fb") == "fb"                        # no name: the fallback
    assert common.fitting_name("\x00bad", "fb") == "fb"                 # a control character: no name


def test_steps_and_seeds_bounds():
    assert common.steps_arg(1) == 1 and common.steps_arg(10 ** 9) == 10 ** 9    # MAX_STEPS = 10**9
    assert common.seeds_arg(1) == 1 and common.seeds_arg(2 ** 31 - 1) == 2 ** 31 - 1
    for f, bad, field in ((common.steps_arg, 0, "--steps"), (common.steps_arg, 10 ** 9 + 1, "--steps"),
                          (common.seeds_arg, 0, "--seeds"), (common.seeds_arg, 2 ** 31, "--seeds")):
        with pytest.raises(SpecError) as e:
            f(bad)
        assert e.value.field == field
    a = types.SimpleNamespace(steps=None, seeds=None)
    spec = types.SimpleNamespace(training=types.SimpleNamespace(steps=77))
    assert common.sim_settings(a, spec) == (77, 4)                    # DEFAULT_SEEDS = 4
    assert common.sim_settings(types.SimpleNamespace(steps=5, seeds=2), spec) == (5, 2)


def test_output_paths(tmp_path):
    common.check_outputs(("--a", None), ("--b", "-"), ("--c", tmp_path / "new" / "deeper" / "f.json"))
    with pytest.raises(SpecError, match="is a folder") as e:
        common.check_outputs(("--ok", tmp_path / "f"), ("--json", tmp_path))
    assert e.value.field == "--json"
    (tmp_path / "file").write_text("x")
    with pytest.raises(SpecError, match="is a file, not a folder") as e:
        common.check_outputs(("--plot", tmp_path / "file" / "sub" / "p.png"))
    assert e.value.field == "--plot"
    with pytest.raises(SpecError, match="cannot write") as e:
        common.write_result("--latex", tmp_path / "file" / "x.tex", "t")
    # the OS's reason in words (its strerror), not the exception's "[Errno …]" text
    assert e.value.field == "--latex" and "[Errno" not in e.value.problem
    # (theorykit.io's reason for a path under a file, theorykit/io.py)
    assert e.value.problem == (f"cannot write {tmp_path / 'file' / 'x.tex'}: cannot be written: a part of its "
                               "folder path is a file, not a folder")
    common.write_result("--latex", tmp_path / "made" / "x.tex", "t")
    assert (tmp_path / "made" / "x.tex").read_text() == "t"


def test_json_text_refuses_non_finite_numbers():
    assert common.json_text({"a": np.float64(1.5)}) == '{\n  "a": 1.5\n}\n'
    with pytest.raises(SpecError) as e:
        common.json_text({"a": [1.0, np.nan]})
    assert e.value.field == "training"


def test_weight_names_shorten_past_six():
    net = types.SimpleNamespace(keys=["a", "b"])
    assert common.weight_names(net) == "W1, W2 or the edge keys a, b"
    net = types.SimpleNamespace(keys=list("abcdefg"))
    assert common.weight_names(net) == ("W1, W2, W3, W4, W5, W6 … or the edge keys a, b, c, d, e, f …")
    net = types.SimpleNamespace(keys=list("abcdef"))
    assert common.weight_names(net).endswith("the edge keys a, b, c, d, e, f")


def test_note_goes_to_stderr_on_one_line(capsys):
    common.note("two\nlines")
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err.startswith("theorykit: note: two") and cap.err.count("\n") == 1


def test_times_given_out_of_order_come_back_sorted():
    """parse_times' docstring: '--times as a sorted array' (the --plot note compares the last time's
    loss with the first's, so it needs them in order)."""
    assert common.parse_times("100,0,50", 1).tolist() == [0.0, 50.0, 100.0]


def test_derive_plot_note_with_times_out_of_order(tmp_path, capsys):
    """xor_reln at Δ = 1/2 passes half its loss near step 749 (the hand derivation in
    test_cli_rules.test_derive_plot_says_when_it_shows_only_the_start): --times 3000,1000,0 reaches
    past it, so no note, whatever order the times are given in; the JSON lists them in order."""
    from theorykit.cli import main

    spec = str(Path(__file__).resolve().parents[1] / "examples" / "xor_reln.toml")
    out = tmp_path / "d.json"
    assert main(["derive", spec, "--set", "Delta=0.5", "--times", "3000,1000,0", "--plot", str(tmp_path / "p.png"),
                 "--json", str(out)]) == 0
    assert "has not halved" not in capsys.readouterr().err
    import json

    assert json.loads(out.read_text())["loss"]["t"] == [0, 1000, 3000]


# ------------------------------------------------------------------------------------------------
# check's summary of a graph and of many pathways
# ------------------------------------------------------------------------------------------------
_GRAPH = """name = "tiny-graph"
[data]
inputs = [[1, 0, 1], [0, 1, 1]]
targets = [[1, 0, 0]]
[training]
lr = 0.01
steps = 10
[[nodes]]
name = "h"
width = 4
[[nodes]]
name = "m0"
width = 2
[[nodes]]
name = "m1"
width = 3
active = [1, 0, 1]
[[edges]]
from = "input"
to = "h"
[[edges]]
from = "h"
to = "m0"
[[edges]]
from = "h"
to = "m1"
[[edges]]
from = "m0"
to = "output"
[[edges]]
from = "m1"
to = "output"
"""


def test_check_summary_of_a_graph(tmp_path, capsys):
    """A graph input -> h (4 units) -> m0 (2) / m1 (3, on datapoints 0 and 2) -> output: its units are
    its nodes' (4 + 2 + 3 = 9, the shared h counted once), a pathway's width is its narrowest node
    (min(4, 2) = 2, min(4, 3) = 3) over three weight layers, and the edge input->h is shared."""
    from theorykit.cli import main

    path = tmp_path / "g.toml"
    path.write_text(_GRAPH)
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"spec 'tiny-graph' ({path}): OK"
    assert out[1] == "task: custom, 2 inputs x 3 datapoints -> 1 output"
    assert out[2].startswith("pathways: 2, 9 hidden units in all; ") and "race reduction" in out[2]
    assert out[3] == "  h/m0: on 3/3 datapoints, 2 inputs, 1 output, narrowest node 2, depth 3"
    assert out[4] == "  h/m1: on 2/3 datapoints, 2 inputs, 1 output, narrowest node 3, depth 3"
    assert out[5] == "graph: 3 nodes, 5 edges; shared edges ['input->h']: race reduction with shared edges"
    assert out[6] == "symbols: none"
    # with a schedule, its groups are named
    path.write_text(_GRAPH + '[[schedule]]\nname = "g0"\nedges = ["input->h", "h->m0", "m0->output"]\n'
                             '[[schedule]]\nname = "g1"\nedges = ["h->m1", "m1->output"]\nstart = 5\n')
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "race reduction with shared edges; schedule groups ['g0', 'g1']\n" in out


def test_check_summary_of_private_chains(tmp_path, capsys):
    """Two chains input -> a (2 units) -> output and input -> b (5) -> output on disjoint datapoints:
    no shared edge, 7 units, and no pathways couple (disjoint gates)."""
    from theorykit.cli import main

    path = tmp_path / "c.toml"
    path.write_text('name = "chains"\n[data]\ninputs = [[1, 0], [0, 1]]\ntargets = [[1, 2]]\n'
                    '[training]\nlr = 0.01\nsteps = 10\n'
                    '[[nodes]]\nname = "a"\nwidth = 2\nactive = [1, 0]\n'
                    '[[nodes]]\nname = "b"\nwidth = 5\nactive = [0, 1]\n'
                    + "".join(f'[[edges]]\nfrom = "{f}"\nto = "{t}"\n' for f, t in
                              (("input", "a"), ("a", "output"), ("input", "b"), ("b", "output"))))
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "pathways: 2, 7 hidden units in all; closed form expected (no pathways couple)\n" in out
    assert "graph: 2 nodes, 4 edges; no shared edge (private chains)\n" in out


def test_check_lists_twelve_pathways_then_how_many_more(tmp_path, capsys):
    """13 point pathways (one datapoint each, 1 hidden unit): the first 12 are listed, then
    '... and 1 more'; 13 units in all."""
    from theorykit.cli import main

    path = tmp_path / "p.toml"
    rows = lambda v: "[" + ", ".join([v] * 13) + "]"      # noqa: E731
    path.write_text(f'name = "many"\n[data]\ninputs = [{rows("1")}]\ntargets = [{rows("1")}]\n'
                    "[training]\nlr = 0.01\nsteps = 10\n"
                    + "".join(f'[[pathways]]\nname = "p{i}"\nactive = [{", ".join("1" if j == i else "0" for j in range(13))}]\n'
                              "hidden = 1\n" for i in range(13)))
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    listed = [ln for ln in out if re.match(r"  p\d+: on 1/13 datapoints, 1 input, 1 output, hidden 1, depth 2$", ln)]
    assert [ln.split(":")[0].strip() for ln in listed] == [f"p{i}" for i in range(12)]
    assert "  ... and 1 more" in out
    assert out[2].startswith("pathways: 13, 13 hidden units in all; ")


def test_derive_plot_note_compares_the_last_time_with_the_first(tmp_path, capsys):
    """The note compares L at the last time with half of L at the first. xor_reln at Δ = 1/2 (the
    derivation in test_cli_rules.test_derive_plot_says_when_it_shows_only_the_start): every mode
    leaves the share (1 − x)² of the loss, x(t) = 1/(1 + 665.67·e^(−0.0075 t)); by hand
    x(0) = 0.0015, x(700) = 1/(1 + 665.67·e^−5.25) = 0.2225, x(800) = 1/(1 + 665.67·e^−6) = 0.3774,
    so L(800)/L(0) = 0.388/0.997 < 1/2 (no note), though L(800)/L(700) = 0.388/0.604 > 1/2."""
    from theorykit.cli import main

    spec = str(Path(__file__).resolve().parents[1] / "examples" / "xor_reln.toml")
    assert main(["derive", spec, "--set", "Delta=0.5", "--times", "0,700,800", "--plot", str(tmp_path / "p.png")]) == 0
    assert "has not halved" not in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------
# simulate's checks
# ------------------------------------------------------------------------------------------------
_XOR = str(Path(__file__).resolve().parents[1] / "examples" / "xor_linear.toml")    # symbol Delta, 2 x 64 units


def _err(capsys):
    return capsys.readouterr().err


def test_simulate_times_past_the_steps_and_a_missing_value_name_their_option(tmp_path, capsys):
    from theorykit.cli import main

    out = tmp_path / "s.json"
    assert main(["simulate", _XOR, "--set", "Delta=0.5", "--steps", "5", "--times", "0,6", "--json", str(out)]) == 2
    assert "error in --times: a time 6 is beyond --steps 5" in _err(capsys)
    assert main(["simulate", _XOR, "--steps", "5", "--json", str(out)]) == 2
    err = _err(capsys)
    assert "error in --set: no value for ['Delta']" in err and "--set Delta=VALUE" in err
    assert not out.exists()


@pytest.mark.parametrize("seeds,same,noted", [(2, True, True), (2, False, False), (1, True, False)])
def test_simulate_notes_identical_runs_only_for_one_start_copied(tmp_path, capsys, seeds, same, noted):
    """The note 'runs are identical' is for several seeds that all start from the same weights; a
    file with different starts, or one network, gets no note. ReLU weights W1 (128 x 3), W2 (1 x 128)
    with a leading seed axis."""
    from theorykit.cli import main

    rng = np.random.default_rng(1)
    w1 = 0.01 * rng.standard_normal((1 if same else seeds, 128, 3))
    w2 = 0.01 * rng.standard_normal((1 if same else seeds, 1, 128))
    np.savez(tmp_path / "w.npz", W1=np.repeat(w1, seeds // len(w1), 0), W2=np.repeat(w2, seeds // len(w2), 0))
    assert main(["simulate", _XOR, "--set", "Delta=0.5", "--network", "relu", "--init-weights", str(tmp_path / "w.npz"),
                 "--steps", "2", "--times", "0,2", "--no-progress", "--json", str(tmp_path / "s.json")]) == 0
    assert ("runs are identical" in _err(capsys)) == noted


@pytest.mark.parametrize("extra,need", [([], True), (["--init", "random"], False), (["--network", "relu"], False),
                                        (["--network", "relu", "--compare"], True),
                                        (["--init", "random", "--compare"], True)])
def test_simulate_size_check_counts_the_derivation_only_where_one_is_made(capsys, monkeypatch, extra, need):
    """The GDLN's aligned start is built from the derivation's modes and --compare predicts the loss:
    only then is the derivation's cost added to the size check (a random start or a ReLU network
    without --compare derive nothing). The estimate is replaced by a probe that stops the run."""
    from theorykit.cli import main
    from theorykit.cli import simulate as cmd

    seen = []

    def probe(args, spec, steps, seeds, need_derivation):
        seen.append(need_derivation)
        raise SpecError("probe", "stop", "")

    monkeypatch.setattr(cmd, "sim_estimate", probe)
    assert main(["simulate", _XOR, "--set", "Delta=0.5", "--steps", "5", *extra]) == 2
    assert "error in probe" in _err(capsys)
    assert seen == [need]


@pytest.mark.parametrize("extra,enabled", [([], True), (["--no-progress"], False), (["--fused"], False)])
def test_simulate_progress_bar_is_off_with_no_progress_or_fused(capsys, monkeypatch, extra, enabled):
    """The bar counts the trainer's steps: --no-progress turns it off, and so does --fused (the fused
    kernel runs the steps in one call, with no step callback). A probe bar records and stops the run."""
    from theorykit.cli import main
    from theorykit.cli import simulate as cmd

    seen = []

    def probe(label, total, stream=None, enabled=True):
        seen.append((label, total, enabled))
        raise SpecError("probe", "stop", "")

    monkeypatch.setattr(cmd, "Progress", probe)
    assert main(["simulate", _XOR, "--set", "Delta=0.5", "--steps", "5", *extra]) == 2
    assert seen == [("simulate", 5, enabled)]


# ------------------------------------------------------------------------------------------------
# find-gates: options and the built-in tasks, with the training replaced by a probe
# ------------------------------------------------------------------------------------------------
@pytest.fixture
def fg_probe(monkeypatch):
    from theorykit.cli import find_gates as cmd

    seen = {}

    class Bar:
        def __init__(self, label, total, stream=None, enabled=True):
            seen["bar"] = (label, total, enabled)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def fake(source, **kw):
        seen["source"], seen["kw"] = source, kw
        raise SpecError("probe", "stop", "")

    monkeypatch.setattr(cmd, "Progress", Bar)
    monkeypatch.setattr(cmd, "find_gates", fake)
    return seen


@pytest.mark.parametrize("opt", ["--K", "--max-K"])
def test_find_gates_refuses_zero_clusters(tmp_path, capsys, fg_probe, opt):
    from theorykit.cli import main

    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", opt, "0", "--out", str(tmp_path / "f.toml")]) == 2
    assert f"error in {opt}:" in _err(capsys) and fg_probe == {}


def test_find_gates_contexts_is_the_papers_section_4_network(tmp_path, capsys, fg_probe):
    """docs/theory.md#paper-settings, Section 4 ReLU: 11 -> 700 -> 60, init std 0.005/700, lr 0.001,
    8001 steps (summed loss, the paper's); 8 items in 3 contexts = 24 datapoints. The elbow search over
    K = 1..--max-K shows a bar (no --K, no --no-progress)."""
    from theorykit.cli import main

    assert main(["find-gates", "contexts", "--max-K", "3", "--out", str(tmp_path / "f.toml")]) == 2
    src, kw = fg_probe["source"], fg_probe["kw"]
    assert (src.task.d, src.task.P, src.task.p) == (11, 24, 60)
    t = src.training
    assert (t.lr, t.loss, t.init_std, t.steps) == (0.001, "sum", 0.005 / 700, 8001)
    assert [(p.name, p.hidden) for p in src.pathways] == [("all", 700)]
    assert list(kw["Ks"]) == [1, 2, 3] and kw["K"] is None
    assert kw["name"] == "found-contexts"
    assert fg_probe["bar"] == ("find-gates: elbow", 3, True)
    assert main(["find-gates", "contexts", "--set", "x=1", "--out", str(tmp_path / "f.toml")]) == 2
    assert "error in --set: the contexts task has no symbols" in _err(capsys)


@pytest.mark.parametrize("extra,bar", [(["--K", "2"], False), (["--no-progress"], False), ([], True)])
def test_find_gates_xor_margin_settings_and_bar(tmp_path, capsys, fg_probe, extra, bar):
    """xor-margin: the [training] defaults of docs/specs.md (lr 0.05, mean loss, init std 0.01, 2000
    steps) and the paper's 128 hidden units (docs/theory.md#paper-settings, XoR); a bar only for the
    elbow search and without --no-progress."""
    from theorykit.cli import main

    assert main(["find-gates", "xor-margin", "--set", "Delta=0.5", *extra, "--out", str(tmp_path / "f.toml")]) == 2
    src = fg_probe["source"]
    t = src.training
    assert (t.lr, t.loss, t.init_std, t.steps) == (0.05, "mean", 0.01, 2000)
    assert [(p.name, p.hidden) for p in src.pathways] == [("all", 128)]
    assert fg_probe["bar"][2] is bar
    assert main(["find-gates", "xor-margin", "--out", str(tmp_path / "f.toml")]) == 2
    assert "error in --set: xor-margin needs a value for Delta" in _err(capsys)


def test_find_gates_from_an_imported_run_prints_its_summary(tmp_path, capsys, monkeypatch, fg_probe):
    """find-gates --checkpoints: the run, its settings and Algorithm 1 replaced by fakes (two checkpoints
    at steps 0 and 100 of a width-4 network in a folder 'run'; the found spec is xor_linear's two
    pathways of 64 units on 2 of 4 datapoints each). The default name is found-<the run's folder>."""
    from theorykit.cli import find_gates as cmd
    from theorykit.cli import main
    from theorykit.spec.files import load_spec

    seen = {}
    run = types.SimpleNamespace(files=["x/run/step_0.npz", "x/run/step_100.npz"], steps=[0, 100], widths=[4])
    found = types.SimpleNamespace(K=2, spec=load_spec(_XOR), notes=["n1"],
                                  scores=[{"K": 1, "mse": 0.5}, {"K": 2, "mse": 0.01}])
    monkeypatch.setattr(cmd, "run_from_args", lambda args: run)
    monkeypatch.setattr(cmd, "run_settings", lambda run, lr, loss: (0.05, "mean"))

    def fake(run, **kw):
        seen.update(kw)
        return found

    monkeypatch.setattr(cmd, "find_gates_in_run", fake)
    clock = iter([10.0, 12.5])                  # the run's start and end: 2.5 s
    monkeypatch.setattr(cmd, "time", types.SimpleNamespace(time=lambda: next(clock)))
    out = tmp_path / "f.toml"
    assert main(["find-gates", "--checkpoints", "c_*.npz", "--data", "d.npz", "--out", str(out)]) == 0
    assert fg_probe["bar"] == ("find-gates: elbow", 8, True)          # the elbow search over K = 1..8
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"find-gates: 2 checkpoints (steps 0…100), ReLU widths [4]; K = 2 (elbow), 2 pathways -> {out} (2.5s)"
    assert lines[1:] == ["  positive: hidden 64, active on 2 of 4 datapoints",
                         "  negative: hidden 64, active on 2 of 4 datapoints",
                         "  output MSE by K: 1:0.5, 2:0.01", "  note: n1"]
    assert seen["name"] == "found-run" and (seen["lr"], seen["loss"]) == (0.05, "mean") and list(seen["Ks"]) == list(range(1, 9))
    assert out.is_file()
    clock = iter([0.0, 1.0])
    assert main(["find-gates", "--checkpoints", "c_*.npz", "--data", "d.npz", "--name", "mine", "--K", "2",
                 "--out", str(out)]) == 0
    assert seen["name"] == "mine" and seen["K"] == 2 and fg_probe["bar"][2] is False     # K given: no search
    assert "K = 2 (given)" in capsys.readouterr().out
    assert main(["find-gates", "xor-margin", "--checkpoints", "c_*.npz", "--data", "d.npz", "--out", str(out)]) == 2
    assert "error in source: 'xor-margin' given with --checkpoints" in _err(capsys)


# ------------------------------------------------------------------------------------------------
# predict's spec reading
# ------------------------------------------------------------------------------------------------
def test_predict_reads_the_name_or_the_file_stem_and_needs_every_value(tmp_path):
    from theorykit.cli.predict import load_task_training

    task, training, name = load_task_training(_XOR, ["Delta=0.5"])
    assert name == "xor-linear" and not task.free_symbols and training.lr == 0.01    # the file's name and lr
    X, _ = task.numeric({})
    assert X[2].tolist() == [0.5, 0.5, -0.5, -0.5]                                   # row 3 is (Δ, Δ, −Δ, −Δ)
    nameless = tmp_path / "my_data.toml"
    nameless.write_text("[data]\ninputs = [[1, 0], [0, 1]]\ntargets = [[1, 2]]\n")
    assert load_task_training(nameless)[2] == "my_data"                              # no name: the file's stem
    with pytest.raises(SpecError) as e:
        load_task_training(_XOR)
    assert e.value.field == "--set" and e.value.problem == "no value for ['Delta']"


def test_simulate_plot_of_the_gdln_is_written(tmp_path, monkeypatch):
    """simulate --plot on the GDLN saves the trajectory the plot needs and draws it beside the theory
    (xor_linear's two pathways do not couple: the closed form, as check says); the file is a PNG (its
    first eight bytes are the PNG signature, 89 50 4E 47 0D 0A 1A 0A)."""
    from theorykit.cli import main
    from theorykit.cli import simulate as cmd

    png = tmp_path / "p.png"
    assert main(["simulate", _XOR, "--set", "Delta=0.5", "--steps", "20", "--times", "0,20", "--seeds", "1",
                 "--no-progress", "--plot", str(png), "--json", str(tmp_path / "s.json")]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    drawn = []
    monkeypatch.setattr(cmd.summary, "plot", lambda path, der=None, **kw: drawn.append(der))
    assert main(["simulate", _XOR, "--set", "Delta=0.5", "--steps", "20", "--times", "0,20", "--seeds", "1",
                 "--no-progress", "--plot", str(png)]) == 0
    assert len(drawn) == 1 and drawn[0] is not None and drawn[0].method == "closed-form"
