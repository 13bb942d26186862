"""A found spec against the run it was found in (``theorykit compare``).

Three loss curves at the run's checkpoint steps (time counted from the first checkpoint):

* **run**: the imported ReLU network's loss, recomputed from each checkpoint's weights and the data;
* **GDLN**: the spec's GDLN trained by :func:`theorykit.sim.simulation.simulate` from the run's first
  checkpoint, its units cut into the pathways' blocks (the paired start,
  :func:`theorykit.analysis.checkpoints.paired_start`), with the run's learning rate and loss;
* **race**: the race-reduction prediction (:meth:`theorykit.theory.race.RaceSystem.solve`) from aligned
  pathways of the initial strength that the a0 rule (:func:`theorykit.net.starts.a0_rule`) gives for
  the first checkpoint's weight scales and the pathways' widths (geometric mean over pathways).

Agreement of two curves: ``max_t |L_a(t) − L_b(t)| / L_run(0)`` (a share of the run's initial
loss). :func:`write_comparison` writes ``compare.html`` (figures embedded), ``loss.png``,
``gates.png`` and ``compare.json`` atomically.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..curves import max_gap
from ..errors import SpecError, keyword_errors, keyword_typos
from ._runs import gdln_outputs_from_start
from .checkpoints import named_by_run, paired_start, start_a0
from ..theory.race import RaceSystem
from ..spec.fields import learning_rate, loss_factor
from ..spec.graph import GraphSpec
from ..html import IMAGES_JS, figure_html, html_escape, page_head
from ..io import (SIMULATION_STYLE, THEORY_STYLE, atomic_write_text, counted, gate_groups, gate_image, plot_text,
                  png_bytes, subplots, write_json, write_figure)
from ..progress import checked_progress, progress_bar

__all__ = ["Comparison", "compare_run", "write_comparison"]


@dataclass
class Comparison:
    steps: np.ndarray            # the run's checkpoint steps
    t: np.ndarray                # steps since the first checkpoint
    run_loss: np.ndarray
    gdln_loss: np.ndarray
    race_loss: np.ndarray | None
    spec: object
    a0: float
    lr: float
    loss: str
    notes: list = field(default_factory=list)

    def __repr__(self):     # one line (the dataclass's own printed every array and the spec's task)
        ag = self.agreement()
        race = f", race {ag['race_vs_run']:.3f}" if "race_vs_run" in ag else ""
        return (f"Comparison({self.spec.name!r}, {counted(len(self.spec.pathways), 'pathway')}, {counted(len(self.steps), 'checkpoint')} "
                f"(steps {int(self.steps[0])}…{int(self.steps[-1])}); max gap / L(0): GDLN {ag['gdln_vs_run']:.3f}{race})")

    @property
    def L0(self) -> float:
        return float(self.run_loss[0])

    def agreement(self) -> dict:
        """Largest gap between curves as a share of the run's initial loss."""
        out = {"gdln_vs_run": max_gap(self.gdln_loss, self.run_loss, self.L0)}
        if self.race_loss is not None:
            out["race_vs_run"] = max_gap(self.race_loss, self.run_loss, self.L0)
            out["race_vs_gdln"] = max_gap(self.race_loss, self.gdln_loss, self.L0)
        return out

    def summary(self) -> dict:
        return {"spec": self.spec.name, "lr": self.lr, "loss_kind": self.loss, "a0": self.a0,
                "pathways": [{"name": p.name, "hidden": p.hidden, "active": "".join(map(str, p.active))}
                             for p in self.spec.pathways],
                "steps": self.steps, "run_loss": self.run_loss, "gdln_loss": self.gdln_loss,
                "race_loss": self.race_loss, "L0": self.L0, "agreement": self.agreement(),
                "notes": list(self.notes)}     # a copy: a caller's changes never reach the Comparison

    def figure(self):
        # 4.6 in tall: at 3.8 the y label (one line, as the loss is named everywhere) was taller than the
        # panels, from the figure's title to below the axis
        fig, axes = subplots(1, 2, figsize=(10, 4.6))
        for ax, log in zip(axes, (False, True)):
            # your run's checkpoints on top of both curves (the lines drawn over them hid the dots wherever the
            # GDLN agrees, which is the point), the simulated GDLN wide and pale, the race narrow and dashed over it
            ax.plot(self.steps, self.run_loss, "o", ms=4, color="k", zorder=4, label="your ReLU run (checkpoints)")
            ax.plot(self.steps, self.gdln_loss, color="C0", label="found GDLN, paired start (simulated)",
                    **SIMULATION_STYLE)
            if self.race_loss is not None:
                ax.plot(self.steps, self.race_loss, color="C3", label="race reduction (theory)", **THEORY_STYLE)
            ax.set_xlabel("gradient step")
            ax.set_ylabel(f"loss, ½ ‖y − ŷ‖² {'summed' if self.loss == 'sum' else 'averaged'} over the "
                          f"{counted(self.spec.task.P, 'datapoint')}", fontsize=9)
            if log:
                ax.set_yscale("log")
        axes[0].legend(fontsize=8)
        ag = self.agreement()
        fig.suptitle(f"{plot_text(self.spec.name)}: {counted(len(self.spec.pathways), 'pathway')}; max gap / L(0): GDLN "
                     f"{ag['gdln_vs_run']:.3f}" + (f", race {ag['race_vs_run']:.3f}" if "race_vs_run" in ag else ""),
                     fontsize=10)
        fig.tight_layout()
        return fig

    def gates_figure(self):
        G = np.array([p.active for p in self.spec.pathways], float)
        fig, ax = subplots(figsize=(10, max(2.0, 0.9 + 0.35 * len(G))))
        gate_image(ax, G, G.shape[1], [f"{plot_text(p.name)} ({p.hidden} units)" for p in self.spec.pathways],
                   group=gate_groups(self.spec.task))
        ax.set_title("gates of the found pathways (black: on)", fontsize=10)
        fig.tight_layout()
        return fig

    def _repr_png_(self):
        return png_bytes(self.figure(), dpi=90)


@keyword_errors({"--data": "run", "--checkpoints": "run", "--lr": "lr", "--loss": "loss"})
@keyword_typos
def compare_run(spec, run, *, lr: float | None = None, loss: str | None = None, progress=None) -> Comparison:
    """Compare a pathway spec with an imported run (:class:`theorykit.analysis.checkpoints.RunCheckpoints`).

    ``lr`` / ``loss``: the run's learning rate and loss convention (default: the spec's training).
    ``progress``: True for a bar on stderr (False or None: none), or a
    :class:`theorykit.progress.Progress` or tqdm bar of your own, advanced once by each of the two stages (the
    found GDLN trained from the run's first checkpoint, then the race reduction)."""
    checked_progress(progress)

    if isinstance(spec, GraphSpec):
        raise SpecError("spec", "compare takes a pathway spec (as find-gates writes)",
                        "give the spec that find-gates found in this run")
    Xs, Ys = spec.task.numeric()
    if Xs.shape != run.X.shape or Ys.shape != run.Y.shape or not (np.allclose(Xs, run.X) and np.allclose(Ys, run.Y)):
        same = Xs.shape == run.X.shape and Ys.shape == run.Y.shape
        raise SpecError("--data", f"the spec's data ({Xs.shape[0]} × {Xs.shape[1]} inputs, {Ys.shape[0]} × "
                        f"{Ys.shape[1]} targets) is not the run's ({run.X.shape[0]} × {run.X.shape[1]} inputs, "
                        f"{run.Y.shape[0]} × {run.Y.shape[1]} targets)" + (": the same sizes, other values" if same else ""),
                        "compare a spec with the run it was found in")
    lr = float(spec.training.lr if lr is None else learning_rate(lr, "lr", "lr=0.05"))
    loss = loss or spec.training.loss
    run_loss = run.loss(loss)
    if not run_loss[0] > 0:            # the gaps are shares of L(0)
        raise SpecError("--checkpoints", f"the run's loss at its first checkpoint (step {int(run.steps[0])}) is "
                        f"{float(run_loss[0]):.3g}, so its gaps, shares of L(0), are undefined",
                        "give checkpoints from the start of training, of a run with something to learn "
                        "(targets not all zero)")
    t = (run.steps - run.steps[0]).astype(int)
    W0 = run.params(0)
    start = paired_start(spec, W0)
    with progress_bar(progress, "compare", 2) as bar:
        with named_by_run(run, steps=int(t[-1])):        # its errors name the files (or --steps) given
            _, sim = gdln_outputs_from_start(spec, start, list(t), lr, loss=loss)
        gdln_loss = sim.mean[t]
        bar.update(note="found GDLN trained")
        a0 = start_a0(W0, [p.hidden for p in spec.pathways])
        factor = loss_factor(loss, run.X.shape[1])
        with named_by_run(run, a0=a0):
            race = RaceSystem.from_spec(spec).solve(t.astype(float), tau=1.0 / (lr * factor), a0=a0,
                                                    loss_factor=factor, modes=False).loss[0]
        bar.update(note="race integrated")
    return Comparison(run.steps, t, run_loss, np.asarray(gdln_loss), np.asarray(race), spec, a0, lr, loss)


def report_page(title: str, heading: str, sub: str, rows, notes, figures: dict, tail: list) -> str:
    """A report page in the validation report's style: ``title`` and ``heading`` (escaped here), the
    ``sub`` line (HTML), an "Agreement" table of ``rows`` (label HTML, value), ``notes``, the
    ``figures`` ({PNG path: caption}, embedded as data URIs) and the ``tail`` (HTML lines)."""
    H = page_head(title) + [f"<h1>{html_escape(heading)}</h1>", f'<p class="sub">{sub}</p>',
                            "<h2>Agreement</h2>", '<table class="nums"><tbody>']
    H += [f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows]
    H.append("</tbody></table>")
    H += [f'<p class="small">{html_escape(n)}</p>' for n in notes]
    H += [figure_html(p, cap) for p, cap in figures.items()]
    H += tail + [f"<script>{IMAGES_JS}</script>", "</body></html>"]
    return "\n".join(H) + "\n"


def render_html(cmp: Comparison, figures: dict) -> str:
    """The comparison page (figures embedded as data URIs, the validation report's style)."""
    labels = {"gdln_vs_run": "found GDLN (paired start) vs run: max |ΔL| / L(0)",
              "race_vs_run": "race reduction vs run: max |ΔL| / L(0)",
              "race_vs_gdln": "race reduction vs found GDLN: max |ΔL| / L(0)"}
    rows = [("run's initial loss L(0)", f"{cmp.L0:.6g}")]
    rows += [(html_escape(labels[k]), f"{v:.4f}") for k, v in cmp.agreement().items()]
    H = ["<h2>Pathways</h2>", "<table><thead><tr><th>pathway</th><th>hidden units</th><th>active on</th>"
         "</tr></thead><tbody>"]
    for p in cmp.spec.pathways:
        H.append(f"<tr><td>{html_escape(p.name)}</td><td>{p.hidden}</td><td>{sum(p.active)} of {len(p.active)} "
                 "datapoints</td></tr>")
    H += ["</tbody></table>", "<h2>Loss at the checkpoints</h2>",
          "<table><thead><tr><th>step</th><th>run</th><th>GDLN</th><th>race</th></tr></thead><tbody>"]
    for i, s in enumerate(cmp.steps):
        r = f"{cmp.race_loss[i]:.6g}" if cmp.race_loss is not None else "–"
        H.append(f"<tr><td>{int(s)}</td><td>{cmp.run_loss[i]:.6g}</td><td>{cmp.gdln_loss[i]:.6g}</td><td>{r}</td></tr>")
    H.append("</tbody></table>")
    return report_page(f"theorykit compare: {cmp.spec.name}", f"{cmp.spec.name} against the run it was found in",
                       f"{counted(len(cmp.spec.pathways), 'pathway')}; {counted(len(cmp.steps), 'checkpoint')}, steps "
                       f"{int(cmp.steps[0])}…{int(cmp.steps[-1])}; lr {cmp.lr:g}, loss {html_escape(cmp.loss)}; "
                       f"a0 = {cmp.a0:.3g} (a0 rule at the first checkpoint).", rows, cmp.notes, figures, H)


def write_comparison(cmp: Comparison, out_dir, provenance: dict | None = None) -> list[Path]:
    """Write loss.png, gates.png, compare.json and compare.html (atomically) into ``out_dir``;
    ``provenance`` (the command's record: its options, input files and versions) goes into compare.json."""
    out = Path(out_dir)
    doc = cmp.summary() if provenance is None else {**cmp.summary(), "provenance": provenance}
    paths = [write_figure(cmp.figure(), out / "loss.png"), write_figure(cmp.gates_figure(), out / "gates.png"),
             write_json(out / "compare.json", doc)]
    figs = {str(out / "loss.png"): "loss: your run (dots), the found spec's GDLN from the run's first checkpoint "
                                   "(line), the race reduction (dashes); linear and log scale",
            str(out / "gates.png"): "gates of the found pathways over the datapoints"}
    paths.append(atomic_write_text(out / "compare.html", render_html(cmp, figs)))
    return paths
