"""Rules from a newcomer who found three outputs hard to read, and from a check whose estimate ran low:
the bench's scaling table (a long values entry pushed its row out of line), Fig. 4b (mode colours
without a key), Fig. 9 (a legend over the K = 4 line), and ``theorykit check``'s simulation estimate
(against a hand computation of its formula, never the clock).

Figure checks read the Figure objects (legend entries, window extents), never pixels.
"""
from __future__ import annotations


import numpy as np
import pytest

from theorykit import bench_derive as bd
from test_bench_rules import _derive_section
from test_plot_critic_rules import fig4b_stand_in


def _scaling_lines(monkeypatch, kinds):
    """The derivation section's printed lines, with the derivations replaced by rows whose value kinds
    are ``kinds`` (one row each): test_bench_rules' stand-in section, one paper result of 0.5 s."""
    rows = [{"task": "hierarchy", "n": 32, "k": 4, "modes": 7, "value_kinds": list(k), "seconds": 1.25,
             "cpu_seconds": 1.5} for k in kinds]
    _, lines = _derive_section(monkeypatch, [0.5], rows)
    head = next(i for i, ln in enumerate(lines) if "modes" in ln and "values" in ln)
    return lines[head].lstrip("\n"), lines[head + 1:head + 1 + len(rows)]


def test_the_scaling_table_keeps_its_columns_with_the_longest_values_entry(monkeypatch):
    """`theorykit bench --quick`: the row whose values were "quad,root,sqrt" (14 characters in a column of
    12) had its seconds, CPU and target two characters to the right of every other row's. Every kind a
    case can report together ("expr,quad,root,sqrt", the widest entry) now fits: each row's seconds and
    CPU end where the header's "seconds" and "CPU" end, and the target starts in the same column."""
    kinds = [("sqrt",), ("quad", "root", "sqrt"), ("expr", "quad", "root", "sqrt"), ("expr",)]
    header, rows = _scaling_lines(monkeypatch, kinds)
    assert len(rows) == 4
    # hand-written: seconds 1.25 and CPU 1.50 as the rows print them; target of 32 × 4 is 0.5 s
    ends = {(ln.index("1.25") + 4, ln.index("1.50") + 4, ln.index("< 0.5 s")) for ln in rows}
    assert len(ends) == 1, rows
    (sec_end, cpu_end, tgt_at), = ends
    assert header.index("seconds") + len("seconds") == sec_end
    assert header.index("CPU") + len("CPU") == cpu_end
    assert header.index("target") == tgt_at
    # the values sit under their header, each row's entry in full
    for ln, k in zip(rows, kinds):
        assert ln.index(",".join(k)) == header.index("values")
    # and the kinds the column is sized for are the ones a derivation reports (SValue.kind, or expr)
    assert set(bd.VALUE_KINDS) == {"expr", "sqrt", "quad", "root"}


def _drawn(module, monkeypatch):
    """The figures ``module`` would write, kept instead of written."""
    drawn = []
    monkeypatch.setattr(module, "write_figure", lambda fig, path, **kw: drawn.append(fig))
    return drawn


def _extents(fig):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if fig.canvas is None or not hasattr(fig.canvas, "get_renderer"):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _inside(fig, box):
    return box.x0 >= -1 and box.y0 >= -1 and box.x1 <= fig.bbox.width + 1 and box.y1 <= fig.bbox.height + 1


def test_fig4b_has_a_key_for_its_mode_colours_beside_the_panels(tmp_path, monkeypatch):
    """validation Fig. 4b (`theorykit validate contexts`, fig4b_singular_values.png): mode i of every pathway
    is drawn in colour C{i}, but only the line styles had a key (inside the first panel, in mode 1's
    colour), so a reader could not tell which colour was which mode. Now two keys sit right of the
    panels, over no panel: the methods (line styles) and the modes, "mode 1 (largest)" … "mode 4", each
    in the colour its curves are drawn in."""
    from matplotlib.colors import to_rgba

    from theorykit.suites import load_package

    figs = __import__(load_package("validation").__name__ + ".contexts_figures", fromlist=["fig4b"])
    drawn = _drawn(figs, monkeypatch)
    monkeypatch.setattr(figs, "write_json", lambda *a, **kw: None)
    names = ["common", "ctx12", "ctx13", "ctx23"]
    s4 = fig4b_stand_in(names, [0, 500, 1000], np.random.default_rng(1), relu_groups=("ctx12",))
    data = figs.fig4b(s4, tmp_path / "fig4b.png")
    (fig,) = drawn
    assert all(a.get_legend() is None for a in fig.axes)           # no key over a panel's curves
    keys = {lg.get_title().get_text(): lg for lg in fig.legends}
    assert set(keys) == {"method", "mode (colour)"}
    assert [t.get_text() for t in keys["method"].get_texts()] == ["GDLN (joint)", "race reduction", "ReLU units grouped"]
    # W2 W1 is 3 × 3 here (a 4 × 3 and a 3 × 4 factor): 3 singular values, so 3 modes, 3 colours
    top = len(data["common"]["gdln_joint"][0])
    assert top == 3
    modes = keys["mode (colour)"]
    assert [t.get_text() for t in modes.get_texts()] == ["mode 1 (largest)", "mode 2", "mode 3"]
    key_colours = [to_rgba(h.get_color()) for h in modes.legend_handles]
    # each panel's curves: mode i's (every method's) in the key's colour i, and the curves are the data
    for nm, a in zip(names, fig.axes):
        gd = [ln for ln in a.lines if ln.get_linestyle() == "-"]
        assert len(gd) == top
        for i, ln in enumerate(gd):
            assert to_rgba(ln.get_color()) == key_colours[i]
            np.testing.assert_array_equal(ln.get_ydata(), np.asarray(data[nm]["gdln_joint"])[:, i])
    r = _extents(fig)
    panels = [a.get_window_extent(r) for a in fig.axes]
    for lg in fig.legends:
        box = lg.get_window_extent(r)
        assert _inside(fig, box)
        assert not any(box.overlaps(p) for p in panels)
        assert box.x0 >= max(p.x1 for p in panels)                 # right of the panels


# a quick run's Fig. 9 MSE by K (tests/test_verdicts.py's QUICK_MSE): the elbow is K = 3 on the linear
# MSE by both rules and K = 4 on log10(MSE) by both (hand-checked there with choose_elbow)
QUICK_MSE = [0.0112, 0.00623, 0.00119, 0.000619, 0.000633, 0.000636, 0.00111, 0.00112]


def test_fig9_key_lies_over_no_data(tmp_path, monkeypatch):
    """validation Fig. 9 (`theorykit validate gates`, fig9_elbow.png): the key of the elbow lines was placed
    inside the left panel, where its long entries covered the K = 4 line (the elbow on log10(MSE)) and
    the MSE curve. The key now sits outside both panels, inside the figure, and names both elbows."""
    from theorykit.suites import load_suite

    gates = load_suite("gates")
    drawn = _drawn(gates, monkeypatch)
    per_k = [{"K": K, "mse": m, "loss_max_rel_err": 0.1 / K} for K, m in enumerate(QUICK_MSE, 1)]
    gates._fig9(per_k, 3, 3, tmp_path / "fig9.png", K_log={"improvement": 4, "chord": 4})
    (fig,) = drawn
    keys = [a.get_legend() for a in fig.axes if a.get_legend() is not None] + list(fig.legends)
    assert len(keys) == 1
    texts = [t.get_text() for t in keys[0].get_texts()]
    assert len(texts) == 2 and "K=3" in texts[0] and "improvement K=4, chord K=4" in texts[1]
    # the K = 4 line is drawn in the left panel, at x = 4
    assert [ln.get_xdata()[0] for ln in fig.axes[0].lines[1:]] == [3, 4]
    r = _extents(fig)
    box = keys[0].get_window_extent(r)
    assert _inside(fig, box)
    assert not any(box.overlaps(a.get_window_extent(r)) for a in fig.axes)


def test_simulation_estimate_counts_a_per_seed_cost_of_each_step():
    """`theorykit check examples/xor_linear.toml --set Delta=1 --steps 300000 --seeds 16` estimated 4.57 s;
    `theorykit simulate` with the same options took 15.4 s CPU (the user's report; 19.0 s here). The
    vmapped seeds share the loop, but each seed's small operations cost SIM_SEED_STEP_OVERHEAD per step,
    which the estimate now counts. By hand, xor_linear: 2 pathways [3, 64, 1], so E = 4
    weight matrices, W = 2·(3·64 + 64) = 512 weights, P = 4 datapoints:
    compile 1.5 + 0.1·4 = 1.9 s; steps 3e5·(1e-6·4 + 16·2.5e-6) = 3e5·4.4e-5 = 13.2 s;
    FLOPs 3e5·16·6·512·4 / 4e10 = 1.47456 s; in all 16.57456 s, within a factor 2 of 15.4 s."""
    from pathlib import Path

    from theorykit.spec import limits as L
    from theorykit.spec.files import load_spec

    xor = load_spec(Path(__file__).resolve().parents[1] / "examples" / "xor_linear.toml")
    est = L.simulation_estimate(xor, steps=300000, seeds=16)
    assert est.seconds == pytest.approx(1.9 + 13.2 + 1.47456, rel=1e-9)
    assert 15.4 / 2 <= est.seconds <= 15.4 * 2
    # the steps' part: the shared loop once, the per-seed part 16 times (1 seed: 3e5·(1e-6·4 + 2.5e-6) = 1.95 s)
    steps = {p[0]: p[1] for p in est.parts}["training.steps"]
    assert steps == pytest.approx(13.2, rel=1e-9)
    one = {p[0]: p[1] for p in L.simulation_estimate(xor, steps=300000, seeds=1).parts}["training.steps"]
    assert one == pytest.approx(1.95, rel=1e-9)


def test_the_seeds_over_the_time_limit_are_lowered_by_their_per_seed_cost(monkeypatch, capsys):
    """The per-seed part of each step is driven by the seeds too, so the largest --seeds offered counts it:
    xor_linear, 1e6 steps, 2000 seeds (memory limit lifted): 1.9 s + 1e6·4e-6 s shared, and the command's
    start-up, 1.3 s (since 2026-11-30), and per seed 1e6·(2.5e-6 + 6·512·4/4e10) = 1e6·2.8072e-6 s; in 60 min at
    most (3600 − 5.9 − 1.3) / 2.8072 = 1279.9, 1279 seeds (1280 before the start-up was counted)."""
    from pathlib import Path

    from theorykit.cli import main

    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1000000000000")
    ex = Path(__file__).resolve().parents[1] / "examples" / "xor_linear.toml"
    assert main(["check", str(ex), "--set", "Delta=1", "--steps", "1000000", "--seeds", "2000"]) == 2
    err = capsys.readouterr().err
    assert "error in --seeds" in err and "lower --seeds from 2000 to at most 1279;" in err
