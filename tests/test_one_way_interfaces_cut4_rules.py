"""Issue 26 (one way to do each thing), the interface layer outside ``cli/``: the copies removed from
report.py, html.py, analysis/compare.py's page helpers, cli/rerun.py and cli/common.py, progress.py
and linalg.py, each pinned here where the merge kept one behaviour of two (expected strings written
out by hand, not printed by the code under test; numeric_svd against a loop written here)."""
from __future__ import annotations

import base64

import numpy as np
import pytest

from theorykit.analysis.compare import report_page
from theorykit.cli import rerun
from theorykit.errors import SpecError
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


@pytest.mark.parametrize("rec, problem", [
    ({"command": "theorykit 'unclosed"}, "cannot be split into arguments (No closing quotation)"),
    ({"command": "theorykit derive --jsonx o.json"}, "--jsonx is not an option of theorykit derive"),
    ({"command": "theorykit derive --help"}, "--help prints help and runs nothing"),
    ({"command": "theorykit derive s.toml --json"}, "--json has no value"),
])
def test_rerun_refusals_of_a_record_share_one_fix(rec, problem, tmp_path):
    """Every refusal of a record theorykit would not have written says one fix (it was written out at
    each of nine places): the message as SpecError formats it, ``field: problem (fix: fix)``."""
    with pytest.raises(SpecError) as e:
        rerun.rewrite(rerun.split_command(rec), None, tmp_path, "json")
    assert rerun.AS_WRITTEN == "give the result as theorykit wrote it"
    assert str(e.value) == f"provenance.command: {problem} (fix: give the result as theorykit wrote it)"


def test_rerun_notes_are_the_command_lines_notes(monkeypatch):
    """rerun's notes go through :func:`theorykit.cli.common.note` (one line, ``theorykit: note:``), not a
    copy of it."""
    said = []
    monkeypatch.setattr(rerun, "note", said.append)
    monkeypatch.setattr(rerun, "read_result", lambda path: ({}, {"command": "theorykit derive s.toml"}, "json"))
    monkeypatch.setattr(rerun, "_rerun_in", lambda *a: (0, {}))
    monkeypatch.setattr(rerun, "check_outputs", lambda *a, **k: None)
    args = type("Args", (), {"rtol": 0.0, "result": "r.json", "out": None, "no_progress": False})()
    assert rerun.run(args) == 0
    assert said == ["the record names no versions (an older theorykit wrote it): a difference may come from other "
                    "versions than these"]


def test_the_spec_record_line_is_written_and_read_with_one_prefix(tmp_path):
    """The first line of a spec file a command writes (common.record_comment) and the line rerun
    requires (read_result) begin with one prefix, defined once: a record written is a record read."""
    from argparse import Namespace

    from theorykit.cli import common

    assert common.COMMENT == "# made by theorykit: " and rerun.COMMENT is common.COMMENT
    line = common.record_comment(Namespace(argv=["find-gates", "contexts", "--out", "g.toml"], command="find-gates"))
    assert line.startswith("# made by theorykit: {") and line.endswith("}\n")
    spec = tmp_path / "g.toml"
    spec.write_text(line + 'name = "x"\n', encoding="utf-8")
    doc, rec, kind = rerun.read_result(spec)
    assert kind == "toml" and doc == {"name": "x"}
    assert rec["command"] == "theorykit find-gates contexts --out g.toml"


def test_progress_keeps_its_last_note_as_a_callers_bar_does(tmp_path, monkeypatch):
    """Progress advances its tqdm bar as a caller's bar is advanced (the note as the postfix, one
    code for both); on a log file each line carries the last note given, an update without one keeps it."""
    from theorykit.progress import Progress

    monkeypatch.setattr(Progress, "LOG_SECONDS", 0.0)
    with open(tmp_path / "log", "w") as log:
        with Progress("xor", 4, stream=log) as pr:
            pr.update(1, note="stage a")
            pr.update(1)
            assert pr._bar.postfix == "stage a" and pr.n == 2
    lines = (tmp_path / "log").read_text().splitlines()
    assert [ln.rsplit(",", 1)[0] for ln in lines] == ["xor: 1/4 (25%), stage a", "xor: 2/4 (50%), stage a"]


def _svd_by_the_convention(M, tol=1e-12):
    """The reference: numpy's SVD, rank-trimmed at tol · max(1, s₀), each pair (u, v) flipped where the
    first entry of v above 1e-9 in size is negative (numeric_svd's docstring), one column at a time."""
    U, s, Vt = np.linalg.svd(np.asarray(M, float), full_matrices=False)
    keep = s > tol * max(1.0, s[0] if s.size else 1.0)
    U, s, V = U[:, keep].copy(), s[keep], Vt[keep].T.copy()
    for a in range(s.size):
        for x in V[:, a]:
            if abs(x) > 1e-9:
                if x < 0:
                    U[:, a], V[:, a] = -U[:, a], -V[:, a]
                break
    return U, s, V


@pytest.mark.parametrize("M", [
    np.random.default_rng(0).normal(size=(5, 3)),
    np.random.default_rng(1).normal(size=(3, 6)),
    np.array([[0.0, 1.0, 0.0], [0.0, 0.0, -2.0]]),              # v's first entries exactly 0
    np.array([[1e-12, -1.0], [0.0, 0.0]]),                      # a first entry below 1e-9: skipped
    np.diag([3.0, -1.0, 0.0]), np.zeros((3, 3)), np.zeros((3, 0)), np.zeros((0, 3)),
])
def test_numeric_svd_signs_without_a_loop_match_the_convention(M):
    from theorykit.linalg import numeric_svd

    got, want = numeric_svd(M), _svd_by_the_convention(M)
    for g, w in zip(got, want):
        assert g.shape == w.shape and np.array_equal(g, w)


def test_bench_compiled_program_runs_on_the_weights_given():
    """bench's one ahead-of-time compile (``_compiled``) serves the scan-per-network baseline too: its
    ``execute(p)`` runs on the weights ``p`` (by default those it was compiled for), as a separate
    compile for ``p`` does, bit for bit; the baseline had its own copy of the compile and the call."""
    import jax.numpy as jnp

    from theorykit import bench
    from theorykit.net.layout import Net

    X = np.array([[1.0, -1.0, 0.5], [0.0, 1.0, 1.0]])
    Y = np.array([[1.0, 0.0, -1.0]])
    rng = np.random.default_rng(0)
    a, b = ([0.1 * rng.normal(size=(2, 3, 2)), 0.1 * rng.normal(size=(2, 1, 3))] for _ in range(2))
    run_a = bench._ensemble_runner(X, Y, 3, 0.05, 0.1, "float64", 2, 4, start=a)[0]
    run_b = bench._ensemble_runner(X, Y, 3, 0.05, 0.1, "float64", 2, 4, start=b)[0]
    keys = Net.chain(2, [3], 1).keys
    on_b = run_a({k: jnp.asarray(w) for k, w in zip(keys, b)})
    for got, want in zip(on_b[0], run_b()[0]):
        assert np.array_equal(np.asarray(got), np.asarray(want))
    assert not np.array_equal(np.asarray(run_a()[0][0]), np.asarray(on_b[0][0]))


@pytest.mark.parametrize("raised, running", [(ProcessLookupError, False), (OverflowError, False),
                                             (PermissionError, True), (OSError, True), (None, True)])
def test_a_writer_process_counts_as_running_unless_it_is_gone(monkeypatch, raised, running):
    """io._running: a process that signal 0 finds gone (or a number no process can have) is not
    running; one of another user (PermissionError) or any other OSError is taken as running (its
    temporary file is left), one OSError branch for both."""
    import os

    from theorykit import io

    def kill(pid, sig):
        assert sig == 0
        if raised is not None:
            raise raised()

    monkeypatch.setattr(os, "name", "posix")
    monkeypatch.setattr(os, "kill", kill)
    assert io._running(12345) is running
