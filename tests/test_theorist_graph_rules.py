"""A theorist's hour in the REPL with graph GDLNs, deep pathways and their LaTeX (docs/graphs.md,
docs/theory.md#deep-modes, #race): what was found wrong, each case worked out by hand below."""
from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import quad, solve_ivp

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.spec.fields import tex_text
from theorykit.spec.graph import Edge, GraphSpec, Node

# d = 3 inputs, P = 3 datapoints, p = 2 outputs: X = I, Y = [[3, 0, 0], [0, 1, 0]]
X = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
Y = [[3, 0, 0], [0, 1, 0]]


def _task():
    return tk.Task(X, Y, name="diag")


def test_a_cycle_is_named_by_its_own_nodes_not_those_it_feeds():
    """docs/graphs.md's shared trunk with a back edge left -> trunk: the cycle is trunk -> left -> trunk.
    'right' hangs below the cycle (trunk -> right -> output) and is not on it; nor is 'tail', fed by the
    cycle through left -> tail. The message listed every node Kahn's order could not place,
    ['left', 'right', 'tail', 'trunk']."""
    nodes = [Node("trunk", 2), Node("left", 2), Node("right", 2), Node("tail", 1)]
    edges = [Edge("input", "trunk"), Edge("trunk", "left"), Edge("trunk", "right"), Edge("left", "trunk"),
             Edge("left", "tail"), Edge("tail", "output"), Edge("right", "output")]
    with pytest.raises(SpecError) as e:
        GraphSpec(_task(), nodes, edges)
    assert e.value.field == "edges" and e.value.fix
    assert "['left', 'trunk']" in str(e.value)
    assert "right" not in str(e.value) and "tail" not in str(e.value)


def test_a_node_between_two_cycles_is_on_neither():
    """a <-> b, then b -> c -> d, then d <-> e: c runs from one cycle to the other but lies on no cycle."""
    nodes = [Node(n, 1) for n in "abcde"]
    edges = [Edge("input", "a"), Edge("a", "b"), Edge("b", "a"), Edge("b", "c"), Edge("c", "d"),
             Edge("d", "e"), Edge("e", "d"), Edge("e", "output")]
    with pytest.raises(SpecError) as e:
        GraphSpec(_task(), nodes, edges)
    assert e.value.field == "edges" and "['a', 'b', 'd', 'e']" in str(e.value)


def _chain3():
    """input -> a -> b -> output: one private pathway, 3 weight layers. Σyx = Y Xᵀ/3 = [[1, 0, 0],
    [0, 1/3, 0]], Σx = I/3: modes s = 1, 1/3, each with d = 1/3."""
    return GraphSpec(_task(), [Node("a", 4), Node("b", 4)],
                     [Edge("input", "a"), Edge("a", "b"), Edge("b", "output")], tk.Training(lr=0.01, a0=0.01))


def _trunk():
    """docs/graphs.md's shared trunk (input -> trunk -> left | right -> output), at small widths."""
    task = tk.Task([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]], [[1, 1, 0, 0], [0, 0, 1, 1]], name="trunk")
    nodes = [Node("trunk", 4), Node("left", 2, (1, 1, 0, 0)), Node("right", 2, (0, 0, 1, 1))]
    edges = [Edge("input", "trunk"), Edge("trunk", "left"), Edge("trunk", "right"),
             Edge("left", "output", rows=[0]), Edge("right", "output", rows=[1])]
    return GraphSpec(task, nodes, edges, tk.Training(lr=0.02, a0=0.001))


DEPTH2_RACE = r"(M_pM_p^\top)^{1/2}G_p"


@pytest.mark.parametrize("make", [_chain3, _trunk])
def test_the_latex_names_the_flow_the_race_integrates(make):
    """The race of a depth-3 pathway, or of pathways sharing an edge, is the gradient flow of each edge's
    weights (docs/theory.md#race: τ dW_e/dt = Σ_{p∋e} A_{p,e}ᵀ G_p B_{p,e}ᵀ), not the closed equation
    τ dM/dt = (MMᵀ)^{1/2} G + G (MᵀM)^{1/2} of a private depth-2 map, which the LaTeX claimed for every race.
    Alone, a balanced depth-3 mode obeys τ da/dt = 3 a^{4/3} (s − d a) (docs/theory.md#deep-modes)."""
    der = tk.Derivation(make())
    assert der.method == "race-reduction"
    tex = der.latex()
    assert DEPTH2_RACE not in tex
    assert r"\tau \dot W_e = \sum_{p \ni e} A_{p,e}^\top G_p B_{p,e}^\top" in tex
    assert r"\tau \dot a = 3a^{\frac{4}{3}}(s - d\,a)" in tex
    assert tex.count("{") == tex.count("}") and tex.count("$") % 2 == 0


def test_private_depth2_races_keep_their_map_equation():
    """contexts_double.toml: private depth-2 pathways that couple through their outputs: the race is the
    map equation there, as before."""
    der = tk.Derivation(tk.load_spec("examples/contexts_double.toml"))
    assert der.method == "race-reduction" and DEPTH2_RACE in der.latex()
    assert r"\dot W_e" not in der.latex()


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex not installed (Debian: texlive-latex-base)")
def test_the_deep_race_document_compiles(tmp_path):
    """The standalone document of the depth-3 chain, with the new race text, goes through pdflatex
    without an error or an overfull line."""
    tex = tmp_path / "chain3.tex"
    tex.write_text(tk.Derivation(_chain3()).latex(document=True))
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name], cwd=tmp_path,
                       capture_output=True, text=True, errors="replace", timeout=120)
    log = tex.with_suffix(".log").read_text(errors="replace")
    assert r.returncode == 0 and not re.findall(r"^! .*$", log, flags=re.M), r.stdout[-1500:]
    assert not re.findall(r"^Overfull \\hbox", log, flags=re.M)


def test_a_graph_spec_shows_its_pathways_in_jupyter():
    """A GDLNSpec shows a table of its pathways in Jupyter (docs/api.md); a GraphSpec (what load_spec gives
    for a graph file) showed only its repr. Its table, by hand for the shared trunk: trunk/left is on where
    left is (1100), reads input rows 0, 1, 2, writes output row 0, width min(4, 2) = 2, depth 3 (three
    edges), input->trunk shared with trunk/right; trunk/right on 0011, writes row 1."""
    html = _trunk()._repr_html_()
    assert html.startswith("<p><code>GraphSpec(")
    assert ("<tr><td>trunk/left</td><td><code>1100</code></td><td>0, 1, 2</td><td>0</td><td>2</td><td>3</td>"
            "<td>input-&gt;trunk*, trunk-&gt;left, left-&gt;output</td></tr>") in html
    assert ("<tr><td>trunk/right</td><td><code>0011</code></td><td>0, 1, 2</td><td>1</td><td>2</td><td>3</td>"
            "<td>input-&gt;trunk*, trunk-&gt;right, right-&gt;output</td></tr>") in html
    assert html.count("<tr>") == 3


@pytest.mark.parametrize("edges_, fit, field, words", [
    ("input->trunk", (), "schedule[0].edges", "the string 'input->trunk'"),   # was: unknown edge 'i'
    (5, (), "schedule[0].edges", "needs a list of edge names"),               # was: TypeError, int not iterable
    (("input->trunk", "trunk->left", "left->output"), 5, "schedule[0].fit", "needs a list of group names"),
])
def test_a_schedule_group_of_the_wrong_type_is_named(edges_, fit, field, words):
    """Group("all", "input->trunk"), a string where a tuple of edges goes, was read one character at a
    time ("unknown edge 'i'"); a number gave a bare TypeError. Each is refused naming the group's field."""
    g = _trunk()
    with pytest.raises(SpecError) as e:
        GraphSpec(g.task, g.nodes, g.edges, g.training, schedule=(tk.Group("all", edges_, fit=fit),))
    assert e.value.field == field and words in str(e.value) and e.value.fix


def test_schedule_groups_as_documented_still_work():
    """A tuple or a list of edges, fit "targets" or one earlier group's name, as before."""
    g = _trunk()
    left = ("input->trunk", "trunk->left", "left->output")
    right = ["trunk->right", "right->output"]
    s = GraphSpec(g.task, g.nodes, g.edges, g.training,
                  schedule=(tk.Group("l", left), tk.Group("r", right, start=5, fit="l")))
    assert [(x.edges, x.start, x.fit) for x in s.schedule] == [(left, 0, ()), (tuple(right), 5, ("l",))]


def test_a_deep_mode_from_python_matches_scipy():
    """docs/theory.md#deep-modes from Python: the depth-3 chain's modes (s = 1, 1/3; d = 1/3; τ = 1/η = 100,
    a0 = 0.01) by Derivation.predict_modes against scipy's solve_ivp of τ da/dt = 3 a^{4/3} (s − d a), and
    tk.t_half(s, d, depth=3) against scipy's quad of τ ∫_{a0}^{s/2d} da / (3 a^{4/3} (s − d a))."""
    der = tk.Derivation(_chain3())
    times = np.arange(0.0, 3001.0, 100.0)
    got = der.predict_modes(times)["a/b"]
    for col, (s, d) in enumerate([(1.0, 1 / 3), (1 / 3, 1 / 3)]):
        ref = solve_ivp(lambda t, a: 3 * np.cbrt(a) ** 4 * (s - d * a) / 100.0, (0, 3000), [0.01], t_eval=times,
                        rtol=1e-11, atol=1e-14, method="LSODA").y[0]
        assert np.max(np.abs(got[:, col] - ref)) < 1e-6 * (s / d)
    th = float(sp.N(tk.t_half(sp.Integer(1), sp.Rational(1, 3), sp.Rational(1, 100), 100, depth=3)))
    ref = 100 * quad(lambda a: 1 / (3 * a ** (4 / 3) * (1 - a / 3)), 0.01, 1.5, epsabs=1e-13, epsrel=1e-13)[0]
    assert th == pytest.approx(ref, rel=1e-10) and round(ref, 2) == 404.43


def test_edge_keys_in_latex_text_keep_their_arrow():
    """pdflatex's default font encoding (OT1) sets a bare < > | in text as ¡ ¿ and a dash: the note
    'pathways share edges input->trunk' of a derivation's document printed 'input-¿trunk'."""
    assert tex_text("input->h1 | a<b") == r"input-\textgreater{}h1 \textbar{} a\textless{}b"
    tex = tk.Derivation(_trunk()).latex()
    assert r"input-\textgreater{}trunk" in tex and "input->trunk" not in tex


@pytest.mark.skipif(shutil.which("pdflatex") is None or shutil.which("pdftotext") is None,
                    reason="pdflatex/pdftotext not installed (Debian: texlive-latex-base, poppler-utils)")
def test_the_shared_trunk_pdf_reads_its_edge_keys(tmp_path):
    """The text of the compiled document, read back by pdftotext, names the shared edge as written."""
    tex = tmp_path / "trunk.tex"
    tex.write_text(tk.Derivation(_trunk()).latex(document=True))
    r = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name], cwd=tmp_path,
                       capture_output=True, text=True, errors="replace", timeout=120)
    assert r.returncode == 0, r.stdout[-1500:]
    text = subprocess.run(["pdftotext", "trunk.pdf", "-"], cwd=tmp_path, capture_output=True, text=True,
                          errors="replace", timeout=60).stdout
    assert "share edges input->trunk" in " ".join(text.split()) and "¿" not in text


def test_the_closed_form_document_keeps_the_derivations_notes():
    """One width-1 pathway on a rank-2 Σyx (s = 1, 1/3): the closed form applies, and its note says it
    predicts more learning than one unit can do. The race's document printed the notes; the closed form's
    left them out."""
    spec = tk.GDLNSpec(_task(), [tk.Pathway("p", "all", hidden=1)])
    with pytest.warns(UserWarning, match="fewer than the 2 modes"):
        der = tk.Derivation(spec)
        assert der.method == "closed-form"
    tex = der.latex()
    assert (r"\emph{Notes:}\begin{itemize}\item pathway 'p' has 1 hidden unit(s), fewer than the 2 modes of "
            r"its $\Sigma$yx") in tex
    assert r"(raise pathways[0].hidden to 2)\end{itemize}" in tex


def test_notes_in_the_document_are_items():
    """Two notes of a graph with a shared edge and a schedule (section6_paper.toml), each its own item;
    run together, '... of strength a0' ran into 'the derivation leaves out ...'."""
    tex = tk.Derivation(tk.load_spec("examples/section6_paper.toml")).latex()
    assert r"\item pathways share edges input-\textgreater{}h1: no closed form" in tex
    assert r"strength a0\item the derivation leaves out the [[schedule]]" in tex
    assert tex.count(r"\item ") == 2 and "a0 the derivation" not in tex
