"""Rules from a plot critic: ``tk.plot`` (the figure of ``derive --plot``, ``simulate --plot`` and Jupyter)
read as a figure in a paper -- a colour per pathway, a legend that leaves the curves visible, a mean
that a diverged seed ends is explained rather than left as an empty axis, a one-step series that
shows, and a title that names the values the figure was drawn at.

The checks are on the Figure objects (colours, labels, legend placement, window extents), never on
pixels.
"""
from __future__ import annotations

import types

import numpy as np
from matplotlib.colors import to_rgba


def _sim(loss, t=None, modes=None):
    loss = np.asarray(loss, float)
    t = np.arange(loss.shape[1]) * 10 if t is None else np.asarray(t)
    return types.SimpleNamespace(t=t, loss=loss, mean=loss.mean(0), std=loss.std(0),
                                 saved={} if modes is None else {"modes": modes}, saved_t=t)


def _theory(n):
    """A stand-in Derivation with ``n`` one-mode pathways p0 … p{n-1}."""
    return types.SimpleNamespace(method="race", predict_loss=lambda g, v: np.exp(-np.asarray(g) / 20),
                                 predict_modes=lambda g, v: {f"p{i}": np.ones((len(g), 1)) * i for i in range(n)})


def _inside(fig, artist):
    fig.canvas.draw()
    e = artist.get_window_extent(fig.canvas.get_renderer())
    return e.x0 >= -1 and e.y0 >= -1 and e.x1 <= fig.bbox.width + 1 and e.y1 <= fig.bbox.height + 1


def test_twelve_pathways_get_twelve_colours():
    """Before: colour C{i % 10}, so pathways p0 and p10 (and p1, p11) were drawn alike. Each pathway's
    lines now share one colour, and no two pathways share one (12 pathways: 12 distinct colours)."""
    import theorykit as tk

    fig = tk.plot(der=_theory(12), times=np.asarray([0, 100]))
    ax = fig.axes[1]
    by_name = {ln.get_label().split()[0]: to_rgba(ln.get_color()) for ln in ax.lines}
    assert sorted(by_name) == sorted(f"p{i}" for i in range(12))
    assert len(set(by_name.values())) == 12
    # up to 10 pathways: matplotlib's own C0 … C9 as before (so figures of small specs do not change)
    fig = tk.plot(der=_theory(3), times=np.asarray([0, 100]))
    assert [to_rgba(ln.get_color()) for ln in fig.axes[1].lines] == [to_rgba(f"C{i}") for i in range(3)]


def test_a_long_legend_goes_beside_the_axis_and_stays_in_the_figure():
    """12 pathways with theory and simulation: 24 legend entries. Inside the axis they covered the
    curves; now the legend lies right of the axis (its left edge past the axis' right edge) and
    within the figure. A short legend (2 entries) stays inside the axis."""
    import theorykit as tk

    t = np.arange(0, 101, 20)
    modes = {f"p{i}": np.full((2, len(t), 1), 0.5) for i in range(12)}
    fig = tk.plot(der=_theory(12), sim=_sim(np.ones((2, len(t))), t=t, modes=modes))
    ax = fig.axes[1]
    leg = ax.get_legend()
    assert len(leg.get_texts()) == 24
    assert _inside(fig, leg)
    r = fig.canvas.get_renderer()
    assert leg.get_window_extent(r).x0 >= ax.get_window_extent(r).x1
    fig = tk.plot(der=_theory(2), times=np.asarray([0, 100]))
    leg, ax = fig.axes[1].get_legend(), fig.axes[1]
    fig.canvas.draw()
    assert leg.get_window_extent(r := fig.canvas.get_renderer()).x1 <= ax.get_window_extent(r).x1


def test_a_seed_that_diverges_is_said_on_the_axis_not_left_as_an_empty_plot():
    """Seed 0's loss turns NaN at step 20 (third save, steps 0, 10, 20): the mean is NaN from there and
    the line draws only two points. The axis now says how many seeds and from which step; the figure
    is drawn without an error and the note fits in it."""
    import theorykit as tk

    loss = [[1.0, 0.8, np.nan, np.nan], [1.0, 0.8, 0.6, 0.4], [1.0, 0.9, 0.7, np.inf]]
    fig = tk.plot(sim=_sim(loss))
    notes = [x for x in fig.axes[0].texts if "NaN/inf" in x.get_text()]
    assert len(notes) == 1
    assert notes[0].get_text().startswith("2 of 3 seeds") and "first at step 20" in notes[0].get_text()
    assert _inside(fig, notes[0])
    # all finite: no note
    assert not tk.plot(sim=_sim([[1.0, 0.5, 0.2]])).axes[0].texts


def test_a_lone_point_is_drawn_as_a_dot():
    """A line through one point draws nothing: a run of 0 steps, or a mean with one finite value
    between NaNs, showed an empty axis. Such points now carry a marker, and only they do."""
    import theorykit as tk

    ln = tk.plot(sim=_sim([[1.0], [0.5]], t=[0])).axes[0].lines[0]
    assert ln.get_marker() == "o" and list(ln.get_markevery()) == [0]
    # finite, NaN, finite, finite: index 0 stands alone; 2 and 3 make a segment
    ln = tk.plot(sim=_sim([[1.0, np.nan, 0.5, 0.4]])).axes[0].lines[0]
    assert list(ln.get_markevery()) == [0]
    ln = tk.plot(sim=_sim([[1.0, 0.7, 0.5]])).axes[0].lines[0]
    assert ln.get_marker() in ("None", None, "")


def test_the_title_names_the_values_it_was_drawn_at(tmp_path, monkeypatch):
    """derive --plot titled its figure with the spec's name alone, so the figures at Delta = 0.5 and
    Delta = 1 read alike. The title now carries the --set values (and simulate's, the network)."""
    from theorykit.analysis.summary import plot_title
    from theorykit.cli import main
    from pathlib import Path
    import sympy as sp

    assert plot_title("xor-xor", {sp.Symbol("Delta"): sp.Rational(1, 2)}) == "xor-xor (Delta = 0.5)"
    assert plot_title("xor-xor", {}, "gdln") == "xor-xor (gdln)"
    assert plot_title("xor-xor") == "xor-xor"
    import theorykit.analysis.summary as summary

    seen, real = {}, summary.plot

    def spy(*a, **kw):
        seen["title"] = kw.get("title")
        return real(*a, **kw)

    monkeypatch.setattr(summary, "plot", spy)
    ex = Path(__file__).resolve().parents[1] / "examples" / "xor_linear.toml"
    assert main(["derive", str(ex), "--set", "Delta=0.5", "--times", "0,100",
                 "--plot", str(tmp_path / "d.png"), "--json", str(tmp_path / "d.json")]) == 0
    assert "Delta = 0.5" in seen["title"]


def test_fig4b_suptitle_does_not_cover_the_panel_titles(tmp_path, monkeypatch):
    """validation Fig. 4b (four panels, each titled by its pathway, under one suptitle): drawn with
    plt.subplots' default layout and written with bbox_inches="tight", which trims but does not move
    anything, the suptitle lay over the titles "ctx12" and "ctx13". With a constrained layout no panel
    title's box meets the suptitle's; fig5 (panel titles "k = …" under a suptitle) likewise."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from theorykit.suites import load_package

    figs = __import__(load_package("validation").__name__ + ".contexts_figures", fromlist=["fig4b"])
    drawn = []
    monkeypatch.setattr(figs, "write_figure", lambda fig, path, **kw: drawn.append(fig))
    rng = np.random.default_rng(0)
    s4 = fig4b_stand_in(["common", "ctx12", "ctx13", "ctx23"], [0, 500, 1000], rng, race_svals=np.ones((3, 3)))
    figs.fig4b(s4, tmp_path / "fig4b.png")
    t = np.arange(0, 50, 5.0)
    figs.fig5({kk: {"gamma": 1.0, "_curves": {"t": t, "relu": rng.random((2, t.size)), "gdln": rng.random((2, t.size)),
                                             "closed_form": rng.random(t.size), "closed_form_fit": rng.random(t.size),
                                             "race": rng.random(t.size)}} for kk in ("3", "4", "5")},
              tmp_path / "fig5.png")
    assert len(drawn) == 2
    for fig in drawn:
        FigureCanvasAgg(fig)
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        sup = fig._suptitle.get_window_extent(r)
        titles = [a.title for a in fig.axes if a.title.get_text()]
        assert len(titles) >= 3
        assert not [x.get_text() for x in titles if x.get_window_extent(r).overlaps(sup)]
        assert all(_inside(fig, x) for x in titles + [fig._suptitle])


def test_a_trajectory_of_one_step_shows_its_point_in_jupyter(monkeypatch):
    """Trajectory._repr_png_ (a simulation shown in Jupyter) drew a run of 0 steps -- one loss value
    per seed -- as a line through one point: an empty axis. The point now carries a dot; a longer
    run keeps its plain line."""
    from theorykit import record

    drawn = []
    monkeypatch.setattr(record, "png_bytes", lambda fig, **kw: drawn.append(fig) or b"")
    record.Trajectory(t=np.array([0]), loss=np.array([[1.0], [0.8]]), saved={}, saved_t=np.array([]))._repr_png_()
    ln = drawn[-1].axes[0].lines[0]
    assert ln.get_marker() == "o" and list(ln.get_markevery()) == [0] and ln.get_ydata()[0] == 0.9
    record.Trajectory(t=np.array([0, 1]), loss=np.array([[1.0, 0.5]]), saved={}, saved_t=np.array([]))._repr_png_()
    assert drawn[-1].axes[0].lines[0].get_marker() in ("None", None, "")


def test_section6_protocols_figure_draws_the_relu_spread_its_label_names(tmp_path, monkeypatch):
    """validation depth_protocols.figure labels its y axis "summed loss (mean ± std over seeds)" but drew
    a band for the two GDLN protocols only, none for the ReLU network. Each panel now has three bands;
    the ReLU's spans its mean ± std (hand-made: mean 10, 5, 1 with std 1, 1, 0.5 → 9…11, 4…6, 0.5…1.5)."""
    from theorykit.suites import load_package

    mod = __import__(load_package("validation").__name__ + ".depth_protocols", fromlist=["figure"])
    drawn = []
    monkeypatch.setattr(mod, "write_figure", lambda fig, path, **kw: drawn.append(fig))
    t = np.array([0.0, 10.0, 20.0])
    curve = {"mean": np.array([10.0, 5.0, 1.0]), "std": np.array([1.0, 1.0, 0.5])}
    res = {"t": t, **{ds: {"relu": curve, **{p: curve for p in mod.PROTOCOLS}} for ds in mod.DATASETS}}
    mod.figure(res, tmp_path / "fig6_protocols.png")
    for ax in drawn[0].axes:
        assert len(ax.collections) == 1 + len(mod.PROTOCOLS)
        relu_band = ax.collections[0].get_paths()[0].vertices[:, 1]
        assert relu_band.min() == 0.5 and relu_band.max() == 11.0


def test_fig8_centroids_have_a_colour_scale_and_no_empty_band_under_the_title(tmp_path, monkeypatch):
    """validation gates Fig. 8 (k-means centroids of binary unit activity, values in [0, 1]) had no
    colour bar, so a cell's value could not be read, and the default layout (axes top at 0.88 of the
    figure, the suptitle's top at 0.98) left an empty band under the suptitle: 0.10 of the height less the
    title's own (here, 5.05 in tall: about 0.07). Now: one colour bar from 0 to 1 with a label, and the
    top panel within 0.04 of the figure's height of the suptitle."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from theorykit.suites import load_package

    mod = __import__(load_package("validation").__name__ + ".gates", fromlist=["_fig8"])
    drawn = []
    monkeypatch.setattr(mod, "write_figure", lambda fig, path, **kw: drawn.append(fig))
    rng = np.random.default_rng(1)
    scores = [{"centroids": rng.random((K, 24)), "weights": np.arange(K, 0, -1) * 10} for K in range(1, 5)]
    mod._fig8(scores, tmp_path / "fig8.png", show=(2, 3, 4))
    fig = drawn[0]
    bars = [a for a in fig.axes if a.get_label() == "<colorbar>"]
    assert len(bars) == 1 and len(fig.axes) == 4
    assert bars[0].get_ylabel() and tuple(bars[0].get_ylim()) == (0.0, 1.0)
    FigureCanvasAgg(fig)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    top = max(a.get_window_extent(r).y1 for a in fig.axes if a not in bars)
    assert fig._suptitle.get_window_extent(r).y0 - top < 0.04 * fig.bbox.height


def fig4b_stand_in(names, snaps, rng, dims=(4, 3), race_svals=None, relu_groups=()):
    """What validation's Fig. 4b reads from the Section 4 runs (``s4``), made up: each pathway's weights (2 seeds,
    ``dims`` = (outputs, inputs)) at each snapshot, its raced singular values (``race_svals``, else random) and
    the ReLU groups' (random). The one stand-in for the tests of that figure."""
    snaps = list(snaps)
    a, b = dims
    return {"spec_d": types.SimpleNamespace(pathways=[types.SimpleNamespace(name=n) for n in names]), "snaps": snaps,
            "gsn": {("double", "joint"): {s: [(rng.normal(size=(2, a, b)), rng.normal(size=(2, b, a))) for _ in names]
                                          for s in snaps}},
            "sv_race_svals": {n: rng.random((len(snaps), 4)) if race_svals is None else race_svals for n in names},
            "relu_group_svals": {g: rng.random((len(snaps), 4)) for g in relu_groups}}
