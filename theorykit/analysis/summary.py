"""A spec at a glance: short terminal summaries of ``derive`` and ``simulate``, and their figure.

* :func:`derive_text` -- method, pathways, s and d per mode, t½, the loss at the requested times;
* :func:`simulate_text` -- the simulated loss (mean ± std over seeds) with the theory beside it;
* :func:`plot` -- loss and mode strengths a_α(t): theory as lines, simulation as mean ± spread
  (the strengths of a simulated pathway are ``u_αᵀ W_p(t) v_α``, W_p the product of its edges'
  weights, u_α and v_α the exact singular vectors of its effective dataset);
* :func:`mode_recorder` -- the :class:`~theorykit.record.SaveAt` function that records them;

The command line prints the summary on a terminal; on a pipe, or with ``--json -``, the full JSON
document as before.
"""
from __future__ import annotations

import sys
from typing import Mapping

import numpy as np
from ..errors import SpecError, TheorykitError
from ..io import (SIMULATION_STYLE, THEORY_STYLE, counted, cut, json_text, log_if_spanning, lone_markers, plot_text,
                  subplots, write_json, write_figure)
from ..theory.crossings import group_line
from ..theory.derivation import Derivation, numeric_matrix
from ..theory.trajectory import a0 as A0, t_half_float, tau as TAU
from ..record import SaveAt
from ..spec.fields import figure_path
from ..spec.graph import graph_from_pathways
from ..spec.task import Task

__all__ = ["derive_text", "simulate_text", "plot", "mode_recorder", "wants_summary", "emit",
           "plot_save", "pathway_colours", "plot_title"]


def wants_summary(args) -> bool:
    """The summary on a terminal (or with --summary); JSON on a pipe or with ``--json -``."""
    if getattr(args, "json", None) == "-":
        return False
    return bool(getattr(args, "summary", False)) or stdout_is_terminal()


def stdout_is_terminal() -> bool:
    return hasattr(sys.stdout, "isatty") and sys.stdout.isatty()


def emit(args, out: dict, text, written=()) -> None:
    """``--json FILE``: write it; then the summary ``text()`` on a terminal, and the files written (the
    JSON and ``written``, the command's other outputs) on a last line, as predict's and race-exhaust's
    summaries end; else the JSON on stdout unless it went to a file (``--json -``: always the JSON on
    stdout)."""
    j = getattr(args, "json", None)
    if j and j != "-":
        write_json(j, out)
    if wants_summary(args):
        files = [str(f) for f in ([j] if j and j != "-" else []) + list(written) if f]
        print(text() + (f"\n  wrote {', '.join(files)}" if files else ""))
    elif not j or j == "-":
        print(json_text(out), end="")


def plot_save(spec, values, steps: int, points: int = 60):
    """``(SaveAt recording the mode strengths at ~points steps, Derivation)`` for ``simulate --plot``;
    ``(None, None)`` where the spec's modes cannot be had (the plot then shows the loss only)."""

    try:
        der = Derivation(spec, values=values)
        fn = mode_recorder(spec, der, values)
    except TheorykitError:      # e.g. symbols without values, a graph without per-pathway modes (a bug surfaces)
        return None, None
    at = sorted({int(v) for v in np.linspace(0, steps, points + 1)})
    return SaveAt(loss_every=1, ts=at, fns={"modes": fn}), der


def _g(v) -> str:
    try:
        return f"{float(v):.4g}"
    except (TypeError, ValueError):
        return "—"


def _t_halves(der, values) -> dict:
    """Each mode's half-way time in floats, from its s and d in floats (the closed form for two layers,
    quadrature deeper). The exact t½ of two layers, evaluated, gave the same numbers, but for the nested
    radicals of a task with irrational data it took minutes, or failed and printed nan."""
    try:
        vals = der.numeric_values(values)
    except Exception:  # noqa: BLE001 - symbols without values: no numbers
        return {}
    out = {}
    depth = {p.name: p.depth for p in der.spec.pathways}
    for n, svd in der.modes.items():
        row = []
        for m in svd.modes:
            try:
                with np.errstate(divide="ignore", invalid="ignore"):    # past half-way (log of ≤ 0): nan
                    v = float(t_half_float(m.s_float(vals), m.d_float(vals), float(vals[A0]), float(vals[TAU]),
                                           depth[n]))
            except Exception:  # noqa: BLE001 - e.g. no value for d
                v = float("nan")
            row.append(v if np.isfinite(v) else float("nan"))
        out[n] = row
    return out


def derive_text(der, out: dict, values=None, max_modes: int = 4) -> str:
    """The summary of ``derive``'s document ``out`` (see :func:`theorykit.cli.cmd_derive`)."""
    spec = der.spec
    L = [f"{spec.name}: {counted(len(spec.pathways), 'pathway')}, method {der.method}; τ = {_g(spec.tau)} steps, "
         f"a0 = {_g(spec.training.a0)}, loss {spec.training.loss}"]
    summ = out["pathways"]
    free = sorted(map(str, der.task.free_symbols))
    if free:
        # no value for some symbols: the modes are shown exactly (shortened where long); numbers
        # would be those at a hidden reference point, so they are not shown as if they were the answer
        ref = ", ".join(f"{k} = {v}" for k, v in sorted((str(k), v) for k, v in der.reference.items()))
        L.append(f"  symbols {', '.join(free)} have no value: exact s and d below (the floats of --json are taken "
                 f"at {ref}, theorykit's fixed reference point, where the SVD's order and signs are decided, "
                 "not a value of the spec; pass --set NAME=VALUE for numbers at your values)")
    th = {} if free else _t_halves(der, values)
    for p in spec.pathways:
        s = summ[p.name]
        act = "all" if all(p.active) else f"{sum(p.active)}/{len(p.active)}"
        L.append(f"  {p.name:<12} active on {act} datapoints, {counted(len(p.inputs), 'input')} → {counted(len(p.outputs), 'output')}")
        shown = max_modes if len(s["singular_values"]) > max_modes + 1 else len(s["singular_values"])
        for i, (sv, dv) in enumerate(zip(s["singular_values"][:shown], s["input_variances"][:shown])):
            if free:
                L.append(f"      mode {i + 1}: s = {cut(sv)}, d = {cut(dv)}")      # --json has them whole
                continue
            sf, df = s["singular_values_float"][i], s["input_variances_float"][i]
            exact = f"  (s = {sv}, d = {dv})" if len(sv) + len(dv) < 50 else ""
            t_h = th.get(p.name, [])
            L.append(f"      mode {i + 1}: s = {_g(sf)}, d = {_g(df)}, end s/d = {_g(sf / df) if df else '—'}, "
                     f"t½ = {_g(t_h[i]) if i < len(t_h) else '—'}{exact}")
        if shown < len(s["singular_values"]):
            L.append(f"      … {len(s['singular_values']) - shown} more modes (--json for all)")
    if der.method != "closed-form":
        deep = any(p.depth != 2 for p in der.spec.pathways)
        L.append("  (t½ here is each mode's own time, τ/(2s) ln(s/(d a0) − 1)"
                 + (" for two layers, the integral of its balanced mode equation for more" if deep else "")
                 + ", as if it learned alone; the loss below integrates the coupled race reduction)")
    if out.get("loss"):
        L.append("  loss (theory):")
        for t_, v in zip(out["loss"]["t"], out["loss"]["value"]):
            L.append(f"      t = {_g(t_):>8}   L = {_g(v)}")
    if out.get("crossing_groups") and out.get("crossings"):     # one line per group of coincident crossings
        n, groups = len(out["crossings"]), out["crossing_groups"]
        L.append(f"  crossings ({n}):" if len(groups) == n else f"  crossings ({n} pairs of modes, in "
                 f"{counted(len(groups), 'group')}):")
        for g in groups:
            L.append("      " + group_line(g["symbol"], g["at"], g["at_float"], cut(g["value"], 40), g["below"],
                                           g["above"], g["pair"]))
    elif "crossings" in out:        # a document without the groups (an older theorykit's)
        L.append(f"  crossings ({len(out['crossings'])}):" if out["crossings"] else "  crossings: none")
        for c in out["crossings"]:
            L.append(f"      {c['symbol']} = {c['at']} ≈ {_g(c['at_float'])}: s[{c['modes'][0]}] = s[{c['modes'][1]}]"
                     f" = {cut(c['value'], 40)}; larger below: {c['larger_below']}, above: {c['larger_above']}")
    for n in out.get("notes", []):
        if not (free and n.startswith("symbols ") and "have no value" in n):   # said above, at the top
            L.append(f"  note: {n}")
    return "\n".join(L)


def simulate_text(out: dict) -> str:
    """The summary of ``simulate``'s document ``out``: loss mean ± std beside the theory."""
    L = [f"{out['spec']}: {out['network']} network, init {out['init']}, {counted(out['seeds'], 'seed')}, {counted(out['steps'], 'step')}, "
         f"{out['dtype']} ({out['seconds']:.1f}s)"]
    th = out.get("theory")
    head = f"      {'t':>8}   {'simulation (mean ± std)':>26}" + (f"   {'theory (' + th['method'] + ')':>22}" if th else "")
    L.append(head)
    for i, t_ in enumerate(out["loss"]["t"]):
        row = f"      {_g(t_):>8}   {_g(out['loss']['mean'][i]):>14} ± {_g(out['loss']['std'][i]):<9}"
        if th:
            row += f"   {_g(th['value'][i]):>22}"
        L.append(row)
    if th:
        L.append(f"  largest |simulation − theory| / L(0) (the flow: gradient descent is O(lr) off it): "
                 f"{_g(th['max_abs_error_over_initial_loss'])}")
        if "discrete" in th:
            L.append(f"  largest |simulation − discrete recurrence| / L(0): "
                     f"{_g(th['discrete']['max_abs_error_over_initial_loss'])} (exact for this start: rounding)")
    return "\n".join(L)


def mode_recorder(spec, der, values=None):
    """``fn(params, data)`` → {pathway: strengths (rank,)} = diag(Uᵀ W_p V), for :class:`SaveAt`."""
    import jax.numpy as jnp

    vals = der.task.value_map(values)
    # (graph pathway, U, V) per pathway with numeric singular vectors
    frames = [(gp, numeric_matrix(der.modes[gp.name].U, vals), numeric_matrix(der.modes[gp.name].V, vals))
              for gp in graph_from_pathways(spec).pathways]

    def fn(params, _data):
        res = {}
        for gp, U, V in frames:
            M = params[gp.edges[0]]
            for k in gp.edges[1:]:
                M = params[k] @ M
            res[gp.name] = jnp.einsum("or,oi,ir->r", jnp.asarray(U), M, jnp.asarray(V))
        return res

    return fn


def pathway_colours(n: int) -> list:
    """``n`` colours, one per pathway, all different: matplotlib's C0…C9 for up to 10 (as before), tab20
    for up to 20, else ``n`` evenly spaced hues of turbo (C{i % 10} gave pathways 1 and 11 one colour)."""
    import matplotlib

    if n <= 10:
        return [f"C{i}" for i in range(n)]
    if n <= 20:
        return [matplotlib.colormaps["tab20"](i) for i in range(n)]
    return [matplotlib.colormaps["turbo"](x) for x in np.linspace(0.05, 0.95, n)]


#: the theory curves' dash patterns, one per pathway in turn (never solid: that is the simulation's). Where
#: pathways' curves coincide (contexts of one symmetric task, XoR's two ReLN pathways) the one drawn last
#: hid the others in one dash pattern; in different patterns the colours below show through the gaps
THEORY_STYLES = ("--", "-.", ":", (0, (6, 2, 1, 2, 1, 2)))


def plot_title(name: str, values=None, extra: str = "") -> str:
    """A figure's title: the spec's name, then ``extra`` and the symbol values it was drawn at
    (``xor-xor (gdln, Delta = 0.5)``), so that two figures of one spec say how they differ."""
    parts = ([extra] if extra else []) + [f"{k} = {_g(v)}" for k, v in sorted((str(k), v) for k, v in (values or {}).items())]
    return f"{name} ({', '.join(parts)})" if parts else name


def plot(path=None, *, der=None, values=None, times=None, sim=None, title: str = ""):
    """Loss and mode strengths: theory (``der``, a :class:`Derivation`) as lines over ``times`` (or
    the simulation's steps), a simulation (``sim``, a :class:`~theorykit.record.Trajectory`; its mode
    strengths where ``sim.saved['modes']`` holds them, from :func:`mode_recorder`) as mean ± std.
    The loss axis is a log scale where its curves span more than three decades (:data:`theorykit.io.LOG_SPAN`).
    One colour per pathway (:func:`pathway_colours`); a legend of more than 8 entries lies beside the
    axis; seeds whose loss turns NaN/inf are counted in a note on the loss axis (the mean stops there).

    Returns the matplotlib ``Figure`` (Jupyter shows it), drawn without pyplot so a notebook's backend
    is left as it is; with ``path`` it is also written there (a .png, .pdf or .svg, by its ending)::

        tk.plot(der=der, sim=sim, values={"Delta": 0.5})
    """
    if path is not None:
        figure_path(path, "path")
    if der is None and sim is None:
        raise SpecError("der", "nothing to draw", "give der= (a Derivation), sim= (a simulation) or both")
    # a string or a spec reached sim.saved as an AttributeError, or der.predict_loss as a note drawn on the figure
    if der is not None and not callable(getattr(der, "predict_loss", None)):     # what is drawn of it
        raise SpecError("der", f"expected a Derivation, got {type(der).__name__}",
                        "pass der=tk.Derivation(spec) (a spec is derived first)")
    if sim is not None and not all(hasattr(sim, k) for k in ("t", "loss", "saved")):
        raise SpecError("sim", f"expected a simulation (a Trajectory), got {type(sim).__name__}",
                        "pass sim=tk.simulate(spec, values=..., steps=...)")
    if sim is None and times is None:
        raise SpecError("times", "the theory needs the steps to draw it at", "e.g. times=np.linspace(0, 3000, 300)")
    task = getattr(der, "task", None)
    unknown = task._unknown_names(values) if isinstance(task, Task) and isinstance(values, Mapping) else []
    if unknown:     # a misspelt name drew a figure whose only theory was "no theory curve: no value for …"
        raise SpecError("values", f"{unknown} are no symbols of the task (its symbols: {sorted(task.symbols)})",
                        "key the values by the task's symbol names (case-sensitive), e.g. {'Delta': 0.5}")
    modes_sim = sim is not None and "modes" in sim.saved
    tmax = max(float(np.max(times)) if times is not None else 0.0, float(sim.t[-1]) if sim is not None else 0.0)
    grid = np.linspace(0.0, tmax, 300)
    pred = None
    if der is not None:
        try:
            pred = der.predict_modes(grid, values)
        except Exception:  # noqa: BLE001 - symbols without values, or no modes per pathway (a graph)
            pred = None
    n_ax = 2 if (modes_sim or pred) else 1
    fig, axes = subplots(1, n_ax, figsize=(5.2 * n_ax, 3.8), squeeze=False)
    ax = axes[0, 0]
    if sim is not None:
        m, s = sim.mean, sim.std
        ax.fill_between(sim.t, m - s, m + s, color="C0", alpha=0.25, lw=0)
        B = sim.loss.shape[0]
        ax.plot(sim.t, m, color="C0", label=f"simulation (mean ± std, {B} seed{'s' if B != 1 else ''})",
                **SIMULATION_STYLE, **lone_markers(m))
        bad = ~np.all(np.isfinite(np.asarray(sim.loss, float)), axis=-1) if np.ndim(sim.loss) == 2 else []
        if np.any(bad):     # a diverged seed makes the mean NaN/inf from there on: an empty axis would not say why
            first = np.asarray(sim.t)[np.argmax((~np.isfinite(np.asarray(sim.loss, float))).any(0))]
            ax.text(0.02, 0.02, f"{int(np.sum(bad))} of {B} seeds reach a NaN/inf loss (first at step {_g(first)}): "
                    "the mean stops there", transform=ax.transAxes, fontsize=7, color="C3", va="bottom")
    if der is not None:
        try:
            ax.plot(grid, der.predict_loss(grid, values), color="k", label=f"theory ({der.method})", **THEORY_STYLE)
        except Exception as exc:  # noqa: BLE001 - symbols without values
            ax.text(0.5, 0.5, f"no theory curve: {plot_text(exc)}", transform=ax.transAxes, ha="center", fontsize=7, wrap=True)
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    log_if_spanning(ax)     # a loss from 0.5 to 1e-18 was a flat line at 0 after the drop on a linear axis
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    if n_ax == 2:
        ax = axes[0, 1]
        names = list(pred) if pred else list(sim.saved["modes"]) if modes_sim else []
        colours = pathway_colours(len(names))
        for i, n in enumerate(names):
            c = colours[i]
            if pred:
                A = np.asarray(pred[n])
                for j in range(A.shape[1]):
                    # narrow, on top of the simulation (drawn solid and wide under it, which it no longer hides)
                    ax.plot(grid, A[:, j], color=c, **(THEORY_STYLE | {"ls": THEORY_STYLES[i % len(THEORY_STYLES)]}),
                            label=f"{plot_text(n)} α={j + 1} theory" if A.shape[1] <= 3 else
                            (f"{plot_text(n)} theory" if j == 0 else None))
            if modes_sim:
                S = np.asarray(sim.saved["modes"][n])           # seeds × saves × rank
                ts = np.asarray(sim.saved_t)
                mu, sd = S.mean(0), S.std(0)
                for j in range(S.shape[2]):
                    ax.fill_between(ts, mu[:, j] - sd[:, j], mu[:, j] + sd[:, j], color=c, alpha=0.2, lw=0)
                    ax.plot(ts, mu[:, j], color=c, label=f"{plot_text(n)} simulation" if j == 0 else None,
                            **SIMULATION_STYLE, **lone_markers(mu[:, j]))
        ax.set_xlabel("step")
        ax.set_ylabel("mode strength $a_\\alpha(t)$")
        if names:
            n_lab = len(ax.get_legend_handles_labels()[1])
            if n_lab > 4:       # beside the axis: inside, 5 or more entries covered the curves (7 pathways' did)
                ax.legend(fontsize=6, ncol=-(-n_lab // 22), loc="upper left", bbox_to_anchor=(1.02, 1.0),
                          borderaxespad=0.0)
                fig.set_figwidth(fig.get_figwidth() + 1.3 * -(-n_lab // 22))
            else:
                ax.legend(fontsize=6, ncol=2)
    if title:
        fig.suptitle(plot_text(title), fontsize=10)
    fig.tight_layout()
    if path is not None:
        write_figure(fig, path)
    return fig
