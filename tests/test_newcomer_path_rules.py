"""Rules from a newcomer's path: the README, then docs/tutorial.md and docs/own_network.md typed as written,
and the results a REPL or Jupyter shows on the way.

What the walk found: the tutorial's comment quoted the discrete prediction's error as 5e-16, and the session
prints 1.9e-15 (float64 rounding: the comment now quotes a bound); docs/own_network.md had the reader echo
``found.scores``, every K's centroids and loss curve (10,000 characters of arrays), and the imported run
(``RunCheckpoints``) printed every weight array and the data when echoed (13,000 characters for the digits
run), as did ``tk.find_gates(...).run`` (``ReluRun``); a trajectory of one time said "(1 times)". Expected
values are by hand, in the comments, or ``sympy.latex`` of hand-built expressions.
"""
from __future__ import annotations

import doctest
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit.analysis._runs import ReluRun
from theorykit.analysis.checkpoints import RunCheckpoints
from theorykit.record import SaveAt, Trajectory

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PNG = b"\x89PNG\r\n\x1a\n"


# -- the tutorial's session, run once as written ------------------------------------------------------

@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """The globals of docs/tutorial.md's REPL session, run as written (doctest, in a scratch folder: it
    writes xor_linear.tex and tutorial_linear.png)."""
    text = (DOCS / "tutorial.md").read_text("utf-8")
    src = "\n".join(m.group(1) for m in re.finditer(r"```pycon\n(.*?)```", text, flags=re.S))
    here = Path.cwd()
    os.chdir(tmp_path_factory.mktemp("tutorial"))
    try:
        test = doctest.DocTestParser().get_doctest(src, {}, "tutorial.md", str(DOCS / "tutorial.md"), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        out = []
        runner.run(test, out=out.append, clear_globs=False)
    finally:
        os.chdir(here)
    assert runner.failures == 0, "".join(out)
    return src, test.globs


def test_tutorial_discrete_error_is_within_what_its_comment_quotes(session):
    """The comment beside ``err_disc`` quotes its size; the session's value is within it (it said 5e-16,
    the session prints 1.9e-15 on a 2-core CPU: float64 rounding, which the comment now bounds)."""
    src, g = session
    (line,) = [ln for ln in src.splitlines() if "err_disc < 1e-12" in ln]
    quoted = float(re.search(r"\(disc: [^)]*?(\d(?:\.\d+)?e-\d+)\)", line).group(1))
    assert 0 <= g["err_disc"] <= quoted, (g["err_disc"], line)


def _well_formed(tex: str) -> str:
    """The body of a ``$…$`` LaTeX string, after checking it is one: one pair of dollars, braces that
    balance (``\\{`` not counted), and ``\\begin``/``\\end`` that nest."""
    assert tex.startswith("$") and tex.endswith("$") and "$" not in tex[1:-1], tex
    body = tex[1:-1]
    depth = 0
    for tok in re.findall(r"\\[{}]|[{}]", body):
        depth += {"{": 1, "}": -1}.get(tok, 0)
        assert depth >= 0, tex
    assert depth == 0, tex
    stack = []
    for kind, env in re.findall(r"\\(begin|end)\{(\w+)\}", body):
        if kind == "begin":
            stack.append(env)
        else:
            assert stack and stack.pop() == env, tex
    assert not stack, tex
    return body


def test_tutorial_results_display_as_well_formed_latex_of_their_values(session):
    """What Jupyter shows for the tutorial's results is well-formed LaTeX holding ``sympy.latex`` of the
    values by hand: the linear ReLN's pathways have s = Δ/2, d = Δ²/2, the xor ReLN's s = √(Δ² + 2)/4,
    d = (Δ² + 2)/4 (docs/theory.md, XoR); the linear mode's half-way time (τ/(2s)) ln(s/(d a0) − 1) =
    (τ/Δ) ln(1/(Δ a0) − 1)."""
    _, g = session
    lin, xor = g["lin"], g["xor"]
    # one mode is typeset without parentheses (s = \frac{\Delta}{2}; "(…)" read like a one-element tuple)
    D, a0, tau = sp.Symbol("Delta"), sp.Symbol("a_0"), sp.Symbol("tau")
    s_lin, d_lin = sp.latex(D / 2), sp.latex(D ** 2 / 2)
    s_xor, d_xor = sp.latex(sp.sqrt(D ** 2 + 2) / 4), sp.latex(sp.factor((D ** 2 + 2) / 4))
    body = _well_formed(lin._repr_latex_())
    assert body.count(f"s = {s_lin}, & d = {d_lin}") == 2 and r"\text{closed-form}" in body
    assert r"\mathrm{positive}" in body and r"\mathrm{negative}" in body
    body = _well_formed(xor._repr_latex_())
    assert body.count(f"s = {s_xor}, & d = {d_xor}") == 4
    assert _well_formed(lin.modes._repr_latex_()).count(f"s = {s_lin}") == 2
    assert _well_formed(lin.modes["positive"]._repr_latex_()) == rf"s = {s_lin}"
    assert _well_formed(xor.modes["point0"].modes[0]._repr_latex_()) == f"s = {s_xor},\\quad d = {d_xor}"
    assert _well_formed(xor.modes["point0"].singular_values._repr_latex_()) == sp.latex([sp.sqrt(D ** 2 + 2) / 4])
    th = tau / D * sp.log(1 / (D * a0) - 1)
    assert _well_formed(lin.t_half._repr_latex_()).count(sp.latex([th])) == 2
    assert _well_formed(xor.ranking._repr_latex_()).count(f"s = {s_xor}") == 4
    assert _well_formed(g["task"]._repr_latex_())      # the graph task of section 6: X and Y
    # every one prints as one line in a terminal
    for obj in (lin, xor, g["der"], g["spec"], g["sim"], g["relu"], g["net"]):
        assert "\n" not in repr(obj) and len(repr(obj)) < 400, repr(obj)


def test_tutorial_runs_display_their_loss_and_say_what_they_hold(session):
    """A ReLU ensemble (4 seeds, 2000 steps) and the staged graph run of section 6 (2 seeds, 400 steps)
    show their loss curve as a PNG in Jupyter and say in one line what they hold; the linear ReLN's race
    recorded at 11 times too."""
    _, g = session
    assert repr(g["sim"]).startswith("Trajectory(batch 2, t 0…400 (401 times), loss ")
    assert repr(g["relu"]).startswith("Trajectory(batch 4, t 0…2000 (2001 times)")
    race = g["lin"].race_system(values={"Delta": 1.2}).solve(np.linspace(0, 2000, 11))
    assert repr(race).startswith("Trajectory(batch 1, t 0…2000 (11 times)")
    for run in (g["sim"], g["relu"], race):
        assert run._repr_png_()[:8] == PNG


def test_trajectory_of_one_time_says_one_time():
    """A run recorded at one time says "t 0 (1 time)", not "t 0…0 (1 times)"; two times stay plural."""
    one = Trajectory(t=np.array([0.0]), loss=np.array([[0.5]]), saved={}, saved_t=np.array([]))
    assert "t 0 (1 time)," in repr(one) and "times" not in repr(one), repr(one)
    two = Trajectory(t=np.array([0.0, 3.0]), loss=np.array([[0.5, 0.25]]), saved={}, saved_t=np.array([]))
    assert "t 0…3 (2 times)" in repr(two), repr(two)


# -- docs/own_network.md's Python session -----------------------------------------------------------

def test_run_checkpoints_repr_is_one_line_of_sizes():
    """An imported run echoes as one line: 3 checkpoints at steps 0, 50, 100 of a 3 → 8 → 1 network on
    4 datapoints (the dataclass's own repr printed every weight array and the data)."""
    rng = np.random.default_rng(0)
    run = RunCheckpoints(steps=np.array([0, 50, 100]), weights=[rng.normal(size=(3, 8, 3)), rng.normal(size=(3, 1, 8))],
                         files=["a", "b", "c"], X=rng.normal(size=(3, 4)), Y=rng.normal(size=(1, 4)),
                         meta={"lr": "0.1"}, keys=["W1", "W2"])
    assert repr(run) == "RunCheckpoints(3 checkpoints (steps 0…100), ReLU network 3 → 8 → 1, 4 datapoints; meta {'lr': '0.1'})"


def test_relu_run_of_find_gates_repr_is_one_line():
    """``tk.find_gates(...).run``, the ReLU networks Algorithm 1 trained, echoes as one line: 2 seeds,
    10 steps, checkpoints at 0, 5, 10, 8 hidden units, final losses 0.2 and 0.3 (mean 0.25); the
    dataclass's own repr printed every loss curve, output and activity snapshot."""
    run = ReluRun(t_ck=np.array([0, 5, 10]), loss=np.array([[1.0] * 10 + [0.2], [1.0] * 10 + [0.3]]),
                  outputs=np.zeros((2, 3, 1, 4)), snapshots=np.zeros((2, 2, 8, 4), bool), params=[])
    assert repr(run) == "ReluRun(2 seeds, 10 steps, 3 checkpoints (t 0…10), 8 hidden units; final loss 0.25 (mean over seeds))"


def test_own_network_python_session_runs_and_echoes_short_lines(tmp_path, monkeypatch):
    """docs/own_network.md's "In Python" block, run line by line as a REPL runs it, on a small run saved
    where the block looks (run/step_*.safetensors, run/data.npz): it runs, and each value it echoes is one
    readable line (``found.scores`` echoed 10,000 characters of centroids and curves for the digits run);
    the comparison shows its figure."""
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    pytest.importorskip("sklearn")
    X, Y = tk.xor_margin(0.5).numeric()
    steps = list(range(0, 201, 50))
    sim = tk.simulate((X, Y), network="relu", hidden=8, lr=0.1, steps=200, seeds=1, init_std=0.1,
                      save=SaveAt(ts=steps, fns={"p": lambda p, _d: p}))
    (tmp_path / "run").mkdir()
    for i, s in enumerate(steps):
        safetensors_numpy.save_file({"W1": np.asarray(sim.saved["p"]["input->h1"][0, i]),
                                     "W2": np.asarray(sim.saved["p"]["h1->output"][0, i])},
                                    str(tmp_path / "run" / f"step_{s:06d}.safetensors"), metadata={"lr": "0.1", "loss": "mean"})
    np.savez(tmp_path / "run" / "data.npz", X=X, Y=Y)
    monkeypatch.chdir(tmp_path)

    text = (DOCS / "own_network.md").read_text("utf-8")
    block = text.split("## In Python", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    echoed = []
    monkeypatch.setattr(sys, "displayhook", lambda v: echoed.append(repr(v)) if v is not None else None)
    ns: dict = {}
    for line in block.splitlines():
        code = line.split("  #", 1)[0].rstrip()
        if code:
            exec(compile(code, "docs/own_network.md", "single"), ns)  # noqa: S102 - the page's own code
    assert len(echoed) >= 4
    for shown in echoed:
        assert "\n" not in shown and len(shown) < 400, shown[:2000]
    assert ns["cmp"]._repr_png_()[:8] == PNG
    assert (tmp_path / "compare" / "compare.html").is_file()
