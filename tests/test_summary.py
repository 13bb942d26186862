"""A spec at a glance: terminal summaries of derive/simulate, --plot, a simulation in Jupyter."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from theorykit.cli import main

EX = Path(__file__).resolve().parents[1] / "examples"
PNG = b"\x89PNG\r\n\x1a\n"


def _not_blank(path):
    import matplotlib.image as mpimg

    img = mpimg.imread(path)
    return float(np.std(img[..., :3])) > 0.01


@pytest.fixture
def terminal(monkeypatch):
    from theorykit.analysis import summary

    monkeypatch.setattr(summary, "stdout_is_terminal", lambda: True)


def test_derive_summary_on_a_terminal(terminal, capsys):
    assert main(["derive", str(EX / "xor_reln.toml"), "--set", "Delta=1", "--times", "0,1000"]) == 0
    out = capsys.readouterr().out
    assert out.lstrip()[0] != "{" and "method closed-form" in out
    # xor_reln at Delta = 1: each point pathway has s = √3/4, d = 3/4 (hand: Σyx = (1/4) y x_μᵀ with
    # ‖x_μ‖ = √3, Σx = (1/4) x_μ x_μᵀ so d = 3/4); τ = 1/η = 100, a0 = 1e-3:
    # t½ = τ/(2s) ln(s/(d a0) − 1) = 115.47 · ln(576.35) = 734.0
    assert "s = sqrt(3)/4, d = 3/4" in out and "t½ = 734" in out
    assert "end s/d = 0.5774" in out                     # 1/√3


def test_json_on_a_pipe_and_when_asked(terminal, capsys, tmp_path):
    assert main(["derive", str(EX / "xor_reln.toml"), "--set", "Delta=1", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["method"] == "closed-form" and "pathways" in doc
    out = tmp_path / "d.json"
    assert main(["derive", str(EX / "xor_reln.toml"), "--set", "Delta=1", "--json", str(out)]) == 0
    assert "method closed-form" in capsys.readouterr().out      # a terminal still gets the summary
    assert json.loads(out.read_text())["tau"] == 100.0


def test_simulate_summary_and_plot(terminal, capsys, tmp_path):
    png = tmp_path / "s.png"
    assert main(["simulate", str(EX / "xor_reln.toml"), "--set", "Delta=1", "--seeds", "2", "--steps", "1500",
                 "--times", "0,700,1500", "--compare", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "simulation (mean ± std)" in out and "theory (closed-form)" in out
    assert png.read_bytes()[:8] == PNG and _not_blank(png)


def test_simulate_text_rows_are_mean_plus_minus_std_beside_the_theory():
    """A hand-made document: each row reads t, the mean, "±", the std, then the theory's value; the last
    line gives the largest gap over L(0)."""
    from theorykit.analysis.summary import simulate_text

    doc = {"spec": "s", "network": "gdln", "init": "aligned", "seeds": 3, "steps": 10, "dtype": "float64",
           "seconds": 0.5, "loss": {"t": [0, 10], "mean": [0.75, 0.125], "std": [0.001, 0.03]},
           "theory": {"method": "closed-form", "value": [0.75, 0.2], "max_abs_error_over_initial_loss": 0.1}}
    rows = simulate_text(doc).splitlines()
    assert rows[2].split() == ["0", "0.75", "±", "0.001", "0.75"]
    assert rows[3].split() == ["10", "0.125", "±", "0.03", "0.2"]
    assert rows[-1].endswith("0.1")


def test_mode_recorder_reaches_the_end_point():
    """Simulated mode strengths u_αᵀ W_p v_α from aligned weights follow the closed form to s/d = 1/√3."""
    from theorykit import Derivation
    from theorykit.sim.simulation import simulate
    from theorykit.spec.files import load_spec
    from theorykit.analysis.summary import plot_save

    spec = load_spec(EX / "xor_reln.toml")
    save, der = plot_save(spec, {"Delta": 1}, 2500, points=25)
    sim = simulate(spec, seeds=2, steps=2500, values={"Delta": 1}, save=save)
    modes = sim.saved["modes"]
    for name, S in modes.items():
        S = np.asarray(S)
        assert S.shape == (2, 26, 1)
        # end point s/d; the gap decays as exp(−2s(t − t½)/τ) = exp(−0.00866 · 1766) ≈ 2e-7
        assert S[:, -1, 0] == pytest.approx(1 / np.sqrt(3), rel=1e-6)       # 2e-7, with 5x room
        assert S[:, 0, 0] == pytest.approx(1e-3, rel=1e-6)                  # a0 of the aligned start
    der1 = Derivation(spec, values={"Delta": 1})
    pred = der1.predict_modes(np.asarray(sim.saved_t, float))
    # gradient descent reaches strength a later than the flow by ΔT(a) = ¼ ln(a/a0) + ½ ln((s − d a)/(s − d a0))
    # steps (its modified equation: tests/_gd_reference.py gd_flow_gap), so the strengths differ by at most
    # max_a |ȧ|·ΔT = 2a(s − d a)/τ·|ΔT| to first order; the next order is O(s/τ) of it (5 % is ample room)
    s_, d_ = (lambda m: (m.s_float(), m.d_float()))(next(iter(der1.modes.values())).modes[0])
    a = np.linspace(1e-3, s_ / d_, 400001)[1:-1]
    lag = 0.25 * np.log(a / 1e-3) + 0.5 * np.log((s_ - d_ * a) / (s_ - d_ * 1e-3))
    bound = float(np.max(np.abs(2 * a * (s_ - d_ * a) / float(spec.tau) * lag)))
    assert all(len(svd.modes) == 1 and svd.modes[0].s_float() == s_ for svd in der1.modes.values())
    for name in modes:
        # closed form vs simulation (gradient descent vs flow: O(η) apart)
        assert np.max(np.abs(np.asarray(modes[name])[0, :, 0] - pred[name][:, 0])) < 0.02
        assert np.max(np.abs(np.asarray(modes[name])[:, :, 0] - pred[name][None, :, 0])) <= 1.05 * bound, bound


def test_simresult_displays_as_a_figure(tmp_path):
    from theorykit.sim.simulation import simulate
    from theorykit.spec.files import load_spec

    sim = simulate(load_spec(EX / "xor_reln.toml"), seeds=2, steps=200, values={"Delta": 1})
    data = sim._repr_png_()
    assert data[:8] == PNG
    (tmp_path / "r.png").write_bytes(data)
    assert _not_blank(tmp_path / "r.png")


def test_tk_plot_draws_theory_and_simulation_and_names_what_is_missing(tmp_path):
    """``tk.plot``: a Figure (no pyplot), its dashed theory line the closed form written here by hand,
    its solid line the simulation's mean; a path writes the same figure; nothing to draw is refused."""
    import theorykit as tk
    from theorykit.sim.simulation import simulate
    from theorykit.spec.files import load_spec

    spec = load_spec(EX / "xor_linear.toml")
    der = tk.Derivation(spec)
    sim = simulate(spec, seeds=2, steps=400, values={"Delta": 1})
    fig = tk.plot(der=der, sim=sim, values={"Delta": 1})
    assert len(fig.axes) == 2 and fig._repr_png_()[:8] == PNG        # Jupyter shows it (no pyplot figure)
    theory = [ln for ln in fig.axes[0].lines if ln.get_linestyle() == "--"][0]
    t, y = (np.asarray(v, float) for v in theory.get_data())
    # by hand, the linear ReLN at Δ = 1: "positive" is on for (1,1,Δ) and (−1,−1,Δ), both labelled +1,
    # so Σyx = ¼[(1,1,Δ) + (−1,−1,Δ)] = (0,0,Δ/2): s = Δ/2 = ½ along e3, where Σx gives d = ¼·2Δ² = ½
    # ("negative" alike). Mean loss: τ = 1/η = 100, a0 = 0.001 (the spec), L(0) = ½⟨y²⟩ = ½, and
    # L(t) = ½ − 2 (s a − ½ d a²) with a(t) = (s/d)/(1 + (s/(d a0) − 1) e^{−2 s t/τ}).
    s_, d_, a0_, tau_ = 0.5, 0.5, 1e-3, 100.0
    a = (s_ / d_) / (1 + (s_ / (d_ * a0_) - 1) * np.exp(-2 * s_ * t / tau_))
    hand = 0.5 - 2 * (s_ * a - 0.5 * d_ * a ** 2)
    assert np.max(np.abs(y - hand)) < 1e-9
    sim_line = [ln for ln in fig.axes[0].lines if ln.get_linestyle() == "-"][0]
    assert np.allclose(sim_line.get_ydata(), sim.mean)
    path = tmp_path / "f.png"
    tk.plot(path, der=der, values={"Delta": 1}, times=np.linspace(0, 400, 50))
    assert path.read_bytes()[:8] == PNG and _not_blank(path)
    with pytest.raises(tk.SpecError, match="times"):
        tk.plot(der=der, values={"Delta": 1})
    with pytest.raises(tk.SpecError, match="nothing to draw"):
        tk.plot()


def test_progress_is_tqdm_on_a_terminal_and_quiet_otherwise():
    import io

    from theorykit.progress import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty, pipe = Tty(), io.StringIO()
    with Progress("demo", 3, stream=tty) as pr:
        for _ in range(3):
            pr.update(note="x")
    assert "demo" in tty.getvalue() and "3/3" in tty.getvalue()
    with Progress("demo", 3, stream=pipe) as pr:
        pr.update()
    assert pipe.getvalue() == ""                       # not a terminal: nothing
    quiet = Tty()
    with Progress("demo", 3, stream=quiet, enabled=False) as pr:
        pr.update()
    assert quiet.getvalue() == ""                      # --quiet / --no-progress
