"""Figures where theory and simulation agree must still show both: checked through matplotlib's object
API on the Figure each draws (no image comparison).

The rule (``theorykit.io.SIMULATION_STYLE``, ``THEORY_STYLE``, ``THEORY_MARKERS``): a simulated curve is
solid, wide and pale, drawn under the theory it is checked against; the theory is dashed or dotted (never
solid), narrower, and drawn on top; a theory series of markers is hollow and no larger than the
simulation's. Where the two coincide (the point of these figures) the simulation then shows on both sides
of the theory. Before:

* ``tk.plot``'s mode panel (``derive --plot``, ``simulate --plot``, Jupyter) drew each pathway's simulation,
  solid, after its theory: where pathways coincide (XoR's four) one solid line hid every theory dash;
* Fig. 2e drew each ReLN's simulation as a thin solid line on top of its dashed closed form, filling in the
  dashes;
* the digits figure drew the race's final error as filled squares on top of the simulated ReLN's final
  error, hiding that series wherever the two agree (at every K in the docs' figure).

Every axis that plots curves has both axis labels. The curves' numbers are the ones given, checked
against the hand-made inputs.
"""
from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest

import theorykit as tk
from theorykit.io import new_figure


# ---------------------------------------------------------------------------------------------
# the geometric checks
# ---------------------------------------------------------------------------------------------
def _drawn_order(ax, line):
    """Where ``line`` is drawn among the axis' artists: matplotlib draws by zorder, ties in the order added."""
    kids = ax.get_children()
    return (line.get_zorder(), kids.index(line))


def _solid(line) -> bool:
    return line.get_linestyle() in ("-", "solid")


def theory_over_simulation(ax, theory, sims):
    """A list of what is wrong: each theory line must be drawn above every simulation line of ``ax``, in a
    dash pattern (not solid) and narrower than it; each simulation line solid; a theory marker hollow and
    no larger than a simulation marker."""
    bad = []
    for s in sims:
        if not _solid(s):
            bad.append(f"simulation {s.get_label()!r} is not solid ({s.get_linestyle()})")
    for th in theory:
        if _solid(th) or th.get_linestyle() in ("None", "none", " ", ""):
            bad.append(f"theory {th.get_label()!r} is drawn {th.get_linestyle()!r}, not dashed or dotted")
        for s in sims:
            if _drawn_order(ax, th) < _drawn_order(ax, s):
                bad.append(f"theory {th.get_label()!r} lies under simulation {s.get_label()!r}")
            if th.get_linewidth() >= s.get_linewidth():
                bad.append(f"theory {th.get_label()!r} ({th.get_linewidth()}) is as wide as simulation "
                           f"{s.get_label()!r} ({s.get_linewidth()})")
            if th.get_marker() not in ("None", None, "") and s.get_marker() not in ("None", None, ""):
                if str(th.get_markerfacecolor()) != "none" or th.get_markersize() > s.get_markersize():
                    bad.append(f"theory markers {th.get_label()!r} are filled or larger than {s.get_label()!r}'s")
    return bad


def labelled_axes(fig):
    """A list of what is wrong: an axis with curves but no x or no y label."""
    return [f"axis {i} ({ax.get_title()!r}) lacks an x or y label" for i, ax in enumerate(fig.axes)
            if ax.lines and not (ax.get_xlabel() and ax.get_ylabel())]


def test_the_checks_can_fail():
    """A theory drawn solid, wide and under its simulation, filled markers on top, and an axis without
    labels: each is caught."""
    ax = new_figure().subplots()
    th = ax.plot([0, 1], [0, 1], "-", lw=2, label="theory")[0]
    s = ax.plot([0, 1], [0, 1], "--", lw=1, label="sim")[0]
    bad = theory_over_simulation(ax, [th], [s])
    assert any("not solid" in b for b in bad) and any("not dashed" in b for b in bad)
    assert any("lies under" in b for b in bad) and any("as wide" in b for b in bad)
    ax = new_figure().subplots()
    s = ax.plot([0, 1], [0, 1], marker="o", ms=6, lw=2.6, label="sim")[0]
    th = ax.plot([0, 1], [0, 1], marker="s", ms=6, ls="--", lw=1, label="theory")[0]
    assert any("markers" in b for b in theory_over_simulation(ax, [th], [s]))
    assert labelled_axes(ax.figure) == ["axis 0 ('') lacks an x or y label"]


# ---------------------------------------------------------------------------------------------
# tk.plot: loss and mode panels
# ---------------------------------------------------------------------------------------------
def _sim(loss, t, modes):
    loss = np.asarray(loss, float)
    return types.SimpleNamespace(t=t, loss=loss, mean=loss.mean(0), std=loss.std(0), saved={"modes": modes}, saved_t=t)


def _theory(names, curve):
    """A stand-in Derivation: each pathway one mode, every pathway's theory the same ``curve`` (XoR's four
    pathways coincide so)."""
    return types.SimpleNamespace(method="closed-form", predict_loss=lambda g, v: 0.5 * np.exp(-np.asarray(g) / 200),
                                 predict_modes=lambda g, v: {n: curve(np.asarray(g))[:, None] for n in names})


def test_tk_plot_draws_each_theory_over_its_simulation():
    names = ["point0", "point1", "point2", "point3"]
    curve = lambda g: 1 / (1 + 999 * np.exp(-g / 100))                    # a sigmoid from 1e-3 to 1
    t = np.arange(0.0, 1001.0, 50.0)
    modes = {n: np.stack([curve(t)[:, None]] * 2) for n in names}          # 2 seeds × saves × 1 mode
    loss = np.stack([0.5 * np.exp(-t / 200)] * 2)
    fig = tk.plot(der=_theory(names, curve), sim=_sim(loss, t, modes))
    a_loss, a_modes = fig.axes[:2]
    th = [ln for ln in a_modes.lines if ln.get_label().endswith("theory")]
    sims = [ln for ln in a_modes.lines if ln.get_label().endswith("simulation")]
    assert len(th) == len(sims) == 4
    assert theory_over_simulation(a_modes, th, sims) == []
    # the numbers are the ones given: every simulation line is the seeds' mean of the sigmoid
    for s in sims:
        np.testing.assert_allclose(s.get_ydata(), curve(t))
    th = [ln for ln in a_loss.lines if ln.get_label().startswith("theory")]
    sims = [ln for ln in a_loss.lines if ln.get_label().startswith("simulation")]
    assert len(th) == len(sims) == 1
    assert theory_over_simulation(a_loss, th, sims) == []
    np.testing.assert_allclose(sims[0].get_ydata(), 0.5 * np.exp(-t / 200))
    assert labelled_axes(fig) == []


# ---------------------------------------------------------------------------------------------
# the validation suites' figures, on hand-made data
# ---------------------------------------------------------------------------------------------
def _validation_module(name):
    from theorykit.suites import load_package

    return __import__(load_package("validation").__name__ + "." + name, fromlist=["_"])


@pytest.fixture
def kept(monkeypatch):
    """The figures a suite's module would write (the write replaced by keeping the Figure)."""
    figs = []

    def keep(mod):
        monkeypatch.setattr(mod, "write_figure", lambda fig, path, **kw: figs.append(fig) or Path(path))
        return mod
    keep.figs = figs
    return keep


def test_fig2e_draws_the_closed_forms_over_the_simulated_relns(kept, tmp_path):
    xf = kept(_validation_module("xor_figures"))
    deltas = np.array([0.0, 0.4, 1.2])
    times = np.arange(0.0, 301.0, 10.0)
    sig = lambda c: 0.5 / (1 + np.exp((times - c) / 20))                  # a loss falling from ½ at step c
    A = {"relu_lt_med": np.array([100.0, 100.0, 60.0]), "relu_q": np.array([[90.0, 90, 50], [110, 110, 70]]),
         "cf_lt_rule": {"linear": np.array([np.inf, 200, 55]), "xor": np.array([100.0, 100, 90])},
         "sim_lt_med": {"linear": np.array([np.inf, 200, 55]), "xor": np.array([100.0, 100, 90])},
         "crossover_sim": 0.85,
         "relu_curves": [np.stack([sig(c), sig(c + 4)]) for c in (100, 100, 60)],
         "cf_rule": {"linear": [sig(1e6), sig(200), sig(55)], "xor": [sig(100), sig(100), sig(90)]},
         "sims": {"linear": [np.stack([sig(1e6)] * 2), np.stack([sig(201)] * 2), np.stack([sig(56)] * 2)],
                  "xor": [np.stack([sig(101)] * 2), np.stack([sig(101)] * 2), np.stack([sig(91)] * 2)]}}
    cfg = {"hidden": 128, "lr": 0.05, "init_std": 0.01, "seeds": 2, "curve_deltas": [0.0, 0.4, 1.2]}
    xf.figures(tmp_path, cfg, {"crossover_float": (2 / 3) ** 0.5}, deltas, times, A)
    fig = kept.figs[1]                                                    # Fig. 2e (2d first)
    panels = [a for a in fig.axes if a.lines]
    assert len(panels) == 3
    for i, a in enumerate(panels):
        by = {ln.get_label(): ln for ln in a.lines}
        for n, lab in (("linear", "linear ReLN"), ("xor", "XoR ReLN")):
            th, s = by[f"{lab} closed form"], by[f"{lab} sim"]
            assert theory_over_simulation(a, [th], [s]) == []
            sel = times <= min(max(4 * A["relu_lt_med"][i], 50), times[-1])
            np.testing.assert_array_equal(th.get_ydata(), A["cf_rule"][n][i][sel])
            np.testing.assert_allclose(s.get_ydata(), A["sims"][n][i].mean(0)[sel])
        relu = by["ReLU (mean, range)"]            # the ReLU network above the ReLN simulations, under the theory
        assert _drawn_order(a, by["XoR ReLN sim"]) < _drawn_order(a, relu) < _drawn_order(a, by["XoR ReLN closed form"])
    assert labelled_axes(fig) == [] and labelled_axes(kept.figs[-1]) == []


def test_digits_figure_keeps_the_simulated_relns_errors_visible_under_the_race(kept, tmp_path):
    """Where the race's final error equals the simulated ReLN's (K = 1 and 2 here, as at every K of the
    docs' figure), the race's markers are hollow, no larger and on top: both series show."""
    gates = kept(_validation_module("gates"))
    t = np.arange(0.0, 101.0, 10.0)
    rows = [{"K": K, "sim_loss": np.exp(-t / (20 * K)) + 0.1, "race_loss": np.exp(-t / (20 * K)) + 0.1,
             "sim_max_rel_err": 0.8 / K, "race_max_rel_err": 0.7 / K, "sim_final_rel_err": 0.3 / K,
             "race_final_rel_err": 0.3 / K} for K in (1, 2)]
    dg = {"t": t, "relu_loss": np.exp(-t / 30) + 0.05, "rows": rows, "K_elbow": 2, "X_shape": [64, 900],
          "settings": {"classes": 5, "hidden": 200, "lr": 0.05, "seeds": 5}}
    gates._fig_digits(dg, tmp_path / "fig_digits.png")
    fig = kept.figs[-1]
    a_loss, a_err = fig.axes[:2]
    by = {ln.get_label(): ln for ln in a_err.lines}
    for what in ("max err / L(0)", "final err / final L"):
        s, th = by[f"simulated ReLN: {what}"], by[f"race reduction: {what}"]
        assert theory_over_simulation(a_err, [th], [s]) == []
    np.testing.assert_array_equal(by["simulated ReLN: final err / final L"].get_ydata(), [0.3, 0.15])
    np.testing.assert_array_equal(by["race reduction: final err / final L"].get_ydata(), [0.3, 0.15])
    np.testing.assert_array_equal(by["race reduction: max err / L(0)"].get_ydata(), [0.7, 0.35])
    by = {ln.get_label(): ln for ln in a_loss.lines}
    for K in (1, 2):
        assert theory_over_simulation(a_loss, [by[f"race K={K}"]], [by[f"GDLN sim K={K}"]]) == []
    assert labelled_axes(fig) == []


def test_fig4a_draws_every_simulation_solid_and_every_theory_dashed_on_top(kept, tmp_path):
    """Fig. 4a's staged GDLN run was dotted, like the theory curves beside it (the key's groups said which
    was which, the figure did not)."""
    figs = kept(_validation_module("contexts_figures"))
    t = np.arange(0.0, 40.0)
    keys = [k for k, _, _ in figs.FIG4A_SIM + figs.FIG4A_THEORY]
    d = {"seeds": 3, "t": t, "relu_mean": np.exp(-t / 10), "relu_std": 0.01 * np.exp(-t / 10),
         **{k: np.exp(-t / (9 + i)) for i, k in enumerate(keys)}}
    fig = figs.plot_fig4a(d)
    sim_labels = [lab for _, lab, _ in figs.FIG4A_SIM]
    theory_labels = [lab for _, lab, _ in figs.FIG4A_THEORY]
    for a in fig.axes:
        by = {ln.get_label(): ln for ln in a.lines}
        sims = [by[lab] for lab in sim_labels] + [by["ReLU network (mean ± std of 3 seeds)"]]
        bad = theory_over_simulation(a, [by[lab] for lab in theory_labels], sims)
        assert [b for b in bad if "as wide" not in b] == []          # Fig. 4a's widths are its own (tested elsewhere)
        for i, k in enumerate(keys):                                   # the numbers given
            np.testing.assert_array_equal(by[(sim_labels + theory_labels)[i]].get_ydata(), d[k])
    assert labelled_axes(fig) == []


def test_fig5_draws_the_theory_over_the_gdln_and_the_relu_network_above_it(kept, tmp_path):
    figs = kept(_validation_module("contexts_figures"))
    t = np.arange(0.0, 100.0, 5.0)
    curves = {"t": t, "relu": np.stack([np.exp(-t / 30), np.exp(-t / 32)]), "gdln": np.stack([np.exp(-t / 28)] * 2),
              "closed_form": np.exp(-t / 40), "closed_form_fit": np.exp(-t / 29), "race": np.exp(-t / 28)}
    figs.fig5({"3": {"gamma": 1.0, "_curves": curves}, "4": {"gamma": 1.1, "_curves": curves}}, tmp_path / "fig5.png")
    fig = kept.figs[-1]
    for a in fig.axes:
        by = {ln.get_label(): ln for ln in a.lines}
        gdln = by["GDLN common + (k-1)-context (joint)"]
        theory = [by["closed form (rule a0)"], by["closed form (a0 fitted to ReLU)"], by["race reduction (joint, rule a0)"]]
        assert theory_over_simulation(a, theory, [gdln]) == []
        relu = by["ReLU (mean)"]
        assert _drawn_order(a, gdln) < _drawn_order(a, relu) < min(_drawn_order(a, th) for th in theory)
        np.testing.assert_array_equal(gdln.get_ydata(), np.exp(-t / 28))      # the seeds' mean of two equal runs
        np.testing.assert_array_equal(theory[2].get_ydata(), curves["race"])
    # each k has its own y range (sharey=False): every panel says what its axis is, not the first alone
    assert [a.get_xlabel() for a in fig.axes] == ["gradient step"] * 2
    assert [a.get_ylabel() for a in fig.axes] == ["loss (summed over the datapoints)"] * 2
    assert not fig.axes[0].get_shared_y_axes().joined(fig.axes[0], fig.axes[1])


def test_fig4b_labels_the_y_axis_of_every_panel(kept, tmp_path):
    """Fig. 4b: a panel per pathway, each with its own y range; the y label stood on the first panel only."""
    figs = kept(_validation_module("contexts_figures"))
    t = [0, 500, 1000]
    data = {nm: {"t": t, "gdln_joint": [[0.0, 0.0], [1.0 + i, 0.5], [2.0 + i, 1.0]],
                 "race": [[0.0, 0.0], [1.1 + i, 0.4], [2.0 + i, 1.0]], "relu_groups": None} for i, nm in enumerate(["common", "ctx12"])}
    fig = figs.plot_fig4b(data)
    assert labelled_axes(fig) == []
    assert [a.get_ylabel() for a in fig.axes] == ["singular value of the pathway map"] * 2
    for nm, a in zip(data, fig.axes):                       # the numbers given: mode 1 of each method
        ys = [list(ln.get_ydata()) for ln in a.lines]
        assert [r[0] for r in data[nm]["gdln_joint"]] in ys and [r[0] for r in data[nm]["race"]] in ys


def test_compare_draws_your_runs_checkpoints_over_the_gdln_and_the_race():
    """``theorykit compare``'s loss figure: the run's checkpoints (black dots) were drawn under the GDLN's line
    and the race's, which covered them wherever they agree; the race (theory) was as wide as the GDLN."""
    from theorykit.analysis.compare import Comparison

    paths = (tk.Pathway("g1", (1, 1, 0, 0), hidden=2), tk.Pathway("g2", (1, 1, 1, 1), hidden=2))
    spec = tk.GDLNSpec(tk.contexts(2, 2), paths, tk.Training(lr=0.1), "found-gates")
    steps = np.array([0, 50, 100])
    run, gdln, race = np.array([0.5, 0.3, 0.1]), np.array([0.5, 0.3, 0.1]), np.array([0.5, 0.25, 0.1])
    fig = Comparison(steps, steps, run, gdln, race, spec, 1e-3, 0.1, "mean").figure()
    for a in fig.axes:
        by = {ln.get_label(): ln for ln in a.lines}
        dots, g, r = by["your ReLU run (checkpoints)"], by["found GDLN, paired start (simulated)"], by["race reduction (theory)"]
        assert theory_over_simulation(a, [r], [g]) == []
        assert _drawn_order(a, dots) > max(_drawn_order(a, g), _drawn_order(a, r))
        for ln, y in ((dots, run), (g, gdln), (r, race)):
            np.testing.assert_array_equal(ln.get_ydata(), y)
    assert labelled_axes(fig) == []
