"""Rules for results a person looks at rather than reads: every result type of the flat API prints a
short one-line ``repr`` with its key numbers, mathematics typesets (``_repr_latex_`` balanced and, where
matplotlib's mathtext can read it, parsed), a spec shows as a table in Jupyter (``_repr_html_``), and
``tk.plot`` keeps curves that coincide, and the legend, out of each other's way.

Checks are on strings and on matplotlib Figure objects, never on pixels. Expected numbers are worked
out by hand in the comments (a task's shape from its definition, a mode's closed form), never read
off the code under test.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
import sympy as sp
from matplotlib.mathtext import MathTextParser

import theorykit as tk

# ---------------------------------------------------------------------------------------------
# helpers: a LaTeX balance check and matplotlib's mathtext on each $...$ piece
# ---------------------------------------------------------------------------------------------
_MATHTEXT = MathTextParser("agg")


def _balanced(tex: str) -> bool:
    """Braces, \\left/\\right and \\begin/\\end nest properly, and the $ signs pair up."""
    stack = []
    for tok in re.finditer(r"\\begin\{(\w+)\}|\\end\{(\w+)\}|\\left\b|\\right\b|\\[{}$]|\\.|[{}]", tex):
        t = tok.group(0)
        if t.startswith("\\begin") or t == "{" or t == "\\left":
            stack.append(tok.group(1) or t)
        elif t.startswith("\\end") or t == "}" or t == "\\right":
            want = tok.group(2) or {"}": "{", "\\right": "\\left"}[t]
            if not stack or stack.pop() != want:
                return False
    return not stack and len(re.findall(r"(?<!\\)\$", tex)) % 2 == 0


def _parses(tex: str) -> None:
    """Each $...$ piece without an environment (mathtext has no aligned/matrix) parses in mathtext;
    SymPy's \\displaystyle, which mathtext lacks, is dropped first."""
    for piece in re.findall(r"(?<!\\)\$(.+?)(?<!\\)\$", tex, flags=re.S):
        if "\\begin" not in piece:
            _MATHTEXT.parse("$" + piece.replace("\\displaystyle", "") + "$")


def test_the_balance_check_itself_catches_what_it_should():
    assert _balanced(r"$\left(\frac{a}{b}\right)$") and _balanced(r"$\begin{aligned}a\begin{matrix}1\end{matrix}\end{aligned}$")
    assert not _balanced(r"$\left(\frac{a}{b}$") and not _balanced(r"$\frac{a}{b$")
    assert not _balanced(r"$\begin{aligned}a\end{matrix}$") and not _balanced(r"$a")


def _xor_linear():
    return tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"])


# ---------------------------------------------------------------------------------------------
# repr: one short line with the key numbers
# ---------------------------------------------------------------------------------------------
def test_a_task_repr_is_one_line_of_shapes_not_its_matrices():
    # Before: the dataclass's repr printed X and Y row by row, over several lines (1,508 characters
    # for contexts(4); more for contexts(8, 3)). contexts(n, k): items one-hot (n rows) plus a one-hot
    # context (k rows) = n + k input rows, one datapoint per (context, item): P = n k.
    n, k = 8, 3
    task = tk.contexts(n, k)
    r = repr(task)
    assert "\n" not in r and len(r) < 100 and "Matrix" not in r, r
    assert f"X {n + k} × {n * k}" in r and f"Y {task.Y.shape[0]} × {n * k}" in r and "'contexts'" in r
    # XoR with a margin: inputs (±1, ±1, Δ) in 3 rows, 4 datapoints, one target row; the symbol Δ
    r = repr(tk.xor_margin())
    assert r == "Task('xor-margin', X 3 × 4, Y 1 × 4; symbols Delta)", r
    # the matrices are still there, and the spec's repr (which has its own) is unchanged in form
    assert tk.xor_margin().X.shape == (3, 4)
    assert "task 'xor-margin' (X 3 × 4, Y 1 × 4; symbols Delta)" in repr(_xor_linear())


def test_every_result_of_the_flat_api_has_a_short_one_line_repr():
    spec = _xor_linear()
    der = tk.Derivation(spec)
    v = {"Delta": 0.5}
    times = np.linspace(0.0, 400.0, 9)
    sol = tk.RaceSystem.from_spec(spec, v).solve(times)
    sim = tk.simulate(spec, values=v, steps=20, seeds=3)
    svd = der.modes["positive"]
    objects = [spec, spec.task, spec.pathways[0], spec.training, der, der.modes, der.t_half, der.end_points,
               der.effective_datasets, svd, svd.modes[0], der.effective_datasets["positive"],
               tk.RaceSystem.from_spec(spec, v), sol, sim]
    for o in objects:
        r = repr(o)
        assert "\n" not in r and len(r) < 400, (type(o).__name__, r)
    # the key numbers, by hand: XoR's "linear" ReLN pathway "positive" is on for (1,1,Δ) and (−1,−1,Δ),
    # both labelled +1, so Σyx = ¼[(1,1,Δ) + (−1,−1,Δ)] = (0, 0, Δ/2) (1 × 3) and its one mode has s = Δ/2
    assert "Syx 1 × 3, Sx 3 × 3" in repr(der.effective_datasets["positive"])
    assert "s=Delta/2" in repr(svd.modes[0])
    # a trajectory says its batch, its times and its loss at both ends (the batch mean, with numpy)
    assert f"batch 3, t 0…20 ({sim.t.size} times)" in repr(sim) and sim.t.size == 21
    m = np.asarray(sim.loss).mean(0)
    assert f"loss {m[0]:.4g} → {m[-1]:.4g}" in repr(sim)
    assert f"({times.size} times)" in repr(sol)


# ---------------------------------------------------------------------------------------------
# LaTeX: balanced, and parsed by mathtext where it can
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["linear", "xor"])
def test_every_latex_display_is_balanced_and_parses(key):
    spec = tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()[key])
    der = tk.Derivation(spec)
    shown = [spec.task, der, der.modes, der.trajectories, der.t_half, der.end_points, der.effective_datasets]
    shown += [s for s in der.modes.values()] + [m for s in der.modes.values() for m in s.modes]
    shown += list(der.effective_datasets.values())
    for o in shown:
        tex = o._repr_latex_()
        assert tex.startswith("$") and tex.endswith("$"), (type(o).__name__, tex[:80])
        assert _balanced(tex), (type(o).__name__, tex)
        _parses(tex)
    # single expressions, as Jupyter shows SymPy's (t_half, mode_trajectory)
    for e in [tk.t_half(1, 2), tk.mode_trajectory(1, 2)] + [x for xs in der.trajectories.values() for x in xs]:
        tex = e._repr_latex_()
        assert _balanced(tex)
        _parses(tex)


def test_mode_trajectory_of_integers_stays_exact():
    # Before: Python's d / s made tk.mode_trajectory(1, 2) hold 2.0 (displayed "2.0 - 2.0 e^{…}"),
    # while t_half(1, 2) stayed exact. By hand (docs/theory.md, the closed form divided through):
    # a(t) = 1 / (e^{-u}/a0 + (d/s)(1 − e^{-u})), u = 2 s t/τ; s = 1, d = 2: 1/(2 − 2e^{-2t/τ} + e^{-2t/τ}/a0)
    a0, t, tau = sp.symbols("a_0 t tau", positive=True)
    a = tk.mode_trajectory(1, 2)
    assert not a.atoms(sp.Float), a
    e = sp.exp(-2 * t / tau)
    hand = 1 / (2 - 2 * e + e / a0)
    names = {str(x): x for x in a.free_symbols}
    assert sp.simplify(a.subs({names["a_0"]: a0, names["t"]: t, names["tau"]: tau}) - hand) == 0
    # s = 1/3 (a Fraction) with a float a0: d/s = 6 exactly; only a0's float is a float
    from fractions import Fraction
    b = tk.mode_trajectory(Fraction(1, 3), 2, a_init=0.001)
    const = (1 / b).expand().as_independent(*b.free_symbols)[0]
    assert const == 6 and isinstance(const, sp.Integer), b
    # numbers (exp=np.exp) are unchanged: at t = 0, a = a0 (here 0.001)
    assert abs(float(tk.mode_trajectory(1, 2, a_init=1e-3, time=0.0, time_const=1.0, exp=np.exp)) - 1e-3) < 1e-15


# ---------------------------------------------------------------------------------------------
# HTML: a spec is a table of its pathways
# ---------------------------------------------------------------------------------------------
def test_a_spec_shows_its_pathways_as_a_table():
    # Before: GDLNSpec had no _repr_html_; Jupyter showed the one-line repr only, no gates.
    # XoR with a margin, targets (1, 1, −1, −1): the "linear" ReLN's "positive" pathway is on for
    # datapoints 0 and 1 (gates 1100), "negative" for 2 and 3 (0011); both see all 3 input rows.
    h = _xor_linear()._repr_html_()
    rows = re.findall(r"<tr>(.*?)</tr>", h)
    assert len(rows) == 3 and "<th>pathway</th>" in rows[0]
    assert "<td>positive</td><td><code>1100</code></td><td>0, 1, 2</td><td>0</td>" in rows[1]
    assert "<td>negative</td><td><code>0011</code></td>" in rows[2]
    # a name with HTML's special characters is escaped
    spec = tk.GDLNSpec(tk.xor_margin(), (tk.Pathway("a<b>&", (1, 0, 1, 0), inputs=(0, 2)),))
    assert "<td>a&lt;b&gt;&amp;</td><td><code>1010</code></td><td>0, 2</td>" in spec._repr_html_()
    # contexts(8, 3): n + k = 11 input rows; the common pathway sees all (0–10), a context pathway the
    # n = 8 item rows (0–7); P = 24 gates per pathway, context 1 on for its 8 items only
    spec = tk.GDLNSpec(tk.contexts(8, 3), tk.context_pathways(8, 3, [[0]]))
    h = spec._repr_html_()
    assert "<td>common</td><td><code>" + "1" * 24 + "</code></td><td>0–10</td>" in h
    assert "<code>" + "1" * 8 + "0" * 16 + "</code></td><td>0–7</td>" in h


# ---------------------------------------------------------------------------------------------
# plots
# ---------------------------------------------------------------------------------------------
def test_coinciding_pathway_curves_are_drawn_in_different_dash_patterns():
    # XoR's "linear" ReLN: both pathways have s = Δ/2, d = Δ²/2 (by symmetry), so their theory curves
    # coincide. Both were dashed "--": the one drawn last hid the other, and its legend entry pointed
    # at nothing. Each pathway now has its own colour AND dash pattern (never solid: the simulation's).
    fig = tk.plot(der=tk.Derivation(_xor_linear()), values={"Delta": 0.5}, times=np.linspace(0, 1000, 50))
    ax = fig.axes[1]
    assert ax.get_xlabel() == "step" and "a_" in ax.get_ylabel()
    lines = {ln.get_label().split()[0]: ln for ln in ax.lines}
    assert sorted(lines) == ["negative", "positive"]
    p, n = lines["positive"], lines["negative"]
    np.testing.assert_allclose(p.get_ydata(), n.get_ydata())          # they do coincide
    assert p.get_color() != n.get_color()
    assert p.get_linestyle() != n.get_linestyle() and "-" not in (p.get_linestyle(), n.get_linestyle())
    assert {t.get_text().split()[0] for t in ax.get_legend().get_texts()} == {"positive", "negative"}
    assert fig.axes[0].get_xlabel() == "step" and fig.axes[0].get_ylabel() == "loss"


def test_a_legend_of_seven_pathways_lies_beside_the_mode_axis():
    # contexts(4, 3) with a common pathway and 6 context pathways: 7 legend entries. Inside the axis
    # (matplotlib's "best" place) the legend covered the common pathway's curves near a = 1.25; more
    # than 4 entries now go beside the axis, still inside the figure.
    subsets = [[0], [1], [2], [0, 1], [0, 2], [1, 2]]
    spec = tk.GDLNSpec(tk.contexts(4, 3), tk.context_pathways(4, 3, subsets))
    fig = tk.plot(der=tk.Derivation(spec), times=np.linspace(0, 3000, 60))
    ax = fig.axes[1]
    leg = ax.get_legend()
    assert len(leg.get_texts()) == 1 + len(subsets)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    e, a = leg.get_window_extent(r), ax.get_window_extent(r)
    assert e.x0 >= a.x1 and e.x1 <= fig.bbox.width + 1
    # seven distinct (colour, dash) pairs: no two pathways drawn alike
    assert len({(str(ln.get_color()), str(ln.get_linestyle())) for ln in ax.lines if not ln.get_label().startswith("_")}) == 7
