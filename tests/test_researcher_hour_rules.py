"""An ML researcher's hour with the simulation side (h135): the defects it found, each pinned here."""
from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path

import numpy as np
import pytest

from theorykit import simulate
from theorykit.analysis.summary import plot
from theorykit.cli import main
from theorykit.errors import SpecError
from theorykit.record import Trajectory


def _traj(loss_curve):
    t = np.arange(loss_curve.size, dtype=float)
    loss = np.stack([loss_curve, loss_curve * (1 + 1e-3)])      # two seeds
    return Trajectory(t=t, loss=loss, saved={}, saved_t=np.zeros(0, int))


def test_plot_loss_axis_is_log_where_the_loss_spans_decades():
    """`simulate --plot` / tk.plot: a loss that falls from 0.5 to ~1e-14 (here 0.5·exp(−t/100) over 3000
    steps, written by hand: 0.5·e^−30 ≈ 4.7e-14) was drawn on a linear axis, a flat line at 0 after
    the drop; it is drawn on a log scale now. A loss within a decade (0.5 to
    0.3) stays linear."""
    t = np.arange(3001.0)
    fig = plot(sim=_traj(0.5 * np.exp(-t / 100)))
    ax = fig.axes[0]
    assert ax.get_yscale() == "log" and ax.get_ylabel() == "loss"
    fig = plot(sim=_traj(0.5 - 0.2 * t / 3000))
    assert fig.axes[0].get_yscale() == "linear" and fig.axes[0].get_ylabel() == "loss"


XOR = str(Path(__file__).resolve().parents[1] / "examples" / "xor_reln.toml")


def test_sweep_json_records_how_it_was_made_and_reruns(tmp_path, capsys):
    """sweep.json had no provenance: `theorykit rerun DIR/sweep.json` refused it ("results written
    before it was recorded have none … make the result again with this theorykit", which could not
    help), and nothing in it said the command or the spec it ran. It records them now, as every other
    result, and reruns bit for bit; its wall-clock `seconds_this_run` and which chunks a resumed run
    computed itself (`chunks_computed`) are no result of it, and are left out of the comparison."""
    out = tmp_path / "sw"
    argv = ["sweep", XOR, "--grid", "Delta=0.5,1", "--seeds", "1", "--steps", "20", "--chunk", "1",
            "--out", str(out), "--no-progress"]
    assert main(argv) == 0
    doc = json.loads((out / "sweep.json").read_text())
    rec = doc["provenance"]
    assert rec["command"] == shlex.join(["theorykit", *argv])
    assert rec["inputs"]["spec"]["path"] == XOR
    assert tomllib.loads(rec["spec_toml"])["name"] == "xor-xor"
    assert doc["chunks_computed"] == [0, 1]
    capsys.readouterr()
    assert main(["rerun", str(out / "sweep.json")]) == 0
    assert "bit for bit" in capsys.readouterr().out
    # resumed: the second chunk removed and computed again; the rerun computes both, and still agrees
    (out / "chunks" / "chunk_00001.npz").unlink()
    assert main(argv) == 0
    assert json.loads((out / "sweep.json").read_text())["chunks_computed"] == [1]
    capsys.readouterr()
    assert main(["rerun", str(out / "sweep.json")]) == 0
    assert "bit for bit" in capsys.readouterr().out


def test_a_trajectory_spanning_decades_shows_on_a_log_scale_in_jupyter(monkeypatch):
    """Trajectory._repr_png_ (a simulation shown in Jupyter) drew the same flat line at 0 after the drop;
    it takes the log scale too where the loss spans more than three decades (0.5·exp(−t/100), by hand
    0.5 → 4.7e-14 over 3000 steps), and keeps a linear one within a decade."""
    from theorykit import record

    drawn = []
    monkeypatch.setattr(record, "png_bytes", lambda fig, **kw: drawn.append(fig) or b"")
    t = np.arange(3001.0)
    _traj(0.5 * np.exp(-t / 100))._repr_png_()
    assert drawn[-1].axes[0].get_yscale() == "log"
    _traj(0.5 - 0.2 * t / 3000)._repr_png_()
    assert drawn[-1].axes[0].get_yscale() == "linear"


def test_init_weights_keyed_by_layer_name_the_missing_layer(tmp_path, capsys):
    """`simulate --network relu --init-weights w.npz` with W1 but no W2 said "key 'input->h1': missing:
    no weights for edges ['input->h1', 'h1->output'] (the file has ['W1'])": it named a key the user never
    used and a layer the file holds. It names W2 now, and the fix lists every layer with its edge."""
    w = tmp_path / "w.npz"
    np.savez(w, W1=np.full((128, 3), 0.01))      # xor_reln's ReLU network: 3 inputs, 128 hidden units
    assert main(["simulate", XOR, "--set", "Delta=1", "--steps", "5", "--network", "relu", "--init-weights", str(w),
                 "--json", str(tmp_path / "o.json"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"error in --init-weights {w}: key 'W2': missing" in err
    assert "['W1'] but not ['W2']" in err and "W1 (edge input->h1), W2 (edge h1->output)" in err
    assert "'input->h1'" not in err.split("(fix:")[0]
    assert not (tmp_path / "o.json").exists()


def test_weights_keyed_by_layer_in_python_name_the_missing_middle_layer():
    """The same in Python, a two-hidden-layer chain given W1 and W3: W2 is named."""
    X = np.array([[1, -1, 1, -1], [1, -1, -1, 1], [1, 1, -1, -1.0]])
    Y = np.array([[1, 1, -1, -1.0]])
    with pytest.raises(SpecError) as info:
        simulate((X, Y), network="relu", hidden=[4, 4], lr=0.05, steps=2, seeds=1,
                 init={"W1": np.zeros((4, 3)), "W3": np.zeros((1, 4))})
    assert info.value.field.endswith("key 'W2'") and "['W1', 'W3'] but not ['W2']" in str(info.value)


PRED = str(Path(__file__).resolve().parents[1] / "examples" / "predict" / "xor_data.toml")


def test_predict_seeds_without_validate_is_refused(tmp_path, capsys):
    """`predict SPEC --hidden 32 --seeds 2 --out p.toml` trained nothing and said nothing: --seeds only
    sets the networks --validate trains. It is refused now, naming --seeds, as --html without --validate
    is, and nothing is written; with --validate and no --seeds the record still says the default, 8."""
    out = tmp_path / "p.toml"
    base = ["predict", PRED, "--set", "Delta=0.5", "--hidden", "8", "--steps", "50", "--no-progress"]
    assert main([*base, "--seeds", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "error in --seeds:" in err and "--validate" in err and "(fix: add --validate, or leave --seeds off)" in err
    assert not out.exists()
    assert main([*base, "--out", str(out), "--json", str(tmp_path / "p.json")]) == 0       # no --seeds: fine
    assert json.loads((tmp_path / "p.json").read_text())["provenance"]["options"]["seeds"] == 8
