"""Rules from a reproducibility auditor: a researcher who must let a referee rerun every number a
paper quotes took only the result files theorykit writes and asked whether each says how it was made.

* ``derive --json`` did not record the ``--set`` values it derived at (a derivation at Δ = 1/3 and one
  at Δ = 1/2 wrote files that differed only in their numbers), nor any version or option; ``simulate
  --json`` recorded neither the values, the seed, the learning rate and start scale it used, nor the
  versions of theorykit and JAX (whose random bits decide a random start); ``predict --json`` and the
  spec files of ``predict --out`` and ``find-gates --out`` recorded no option (``--seed`` included);
  a suite's ``<suite>.json`` kept its versions only in the hidden cache entry beside it; a resumed
  sweep kept chunks computed under other versions without a word. Now each result has a
  ``provenance`` record (the command line, every option as read with its default, the input files'
  SHA-256, the spec as read, the versions), and a rerun from the result file alone gives the same
  numbers bit for bit.
* The exact strings of ``derive --json`` read back exactly with theorykit's own parser.

Expected values are hand derivations (in the comments) or read from the spec file with ``tomllib``
and from the packages' own ``__version__``, never pasted from a run.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import shlex
import tomllib
from pathlib import Path

import jax
import numpy as np
import sympy as sp

import theorykit as tk
import theorykit.suites as suites_mod
from theorykit.cli import main
from theorykit.suites import load_package

EX = Path(__file__).resolve().parent.parent / "examples"
XOR_LINEAR = EX / "xor_linear.toml"


def _versions_are_these(v: dict) -> None:
    assert v["theorykit"] == tk.__version__
    assert v["numpy"] == np.__version__ and v["sympy"] == sp.__version__ and v["jax"] == jax.__version__


def test_derive_json_records_the_values_it_derived_at_and_how_it_was_run(tmp_path):
    """Before: no ``values`` and no ``provenance``; two derivations at other Δ differed only in their
    numbers. By hand (docs/theory.md#xor): the "positive" pathway sees (1, 1, Δ) and (−1, −1, Δ), both
    labelled +1, of P = 4 points, so Σyx = (0, 0, 2Δ)/4 and s = Δ/2 = 1/6 at Δ = 1/3, with input
    variance d = (Δ² + Δ²)/4 = 1/18."""
    out = tmp_path / "d.json"
    assert main(["derive", str(XOR_LINEAR), "--set", "Delta=1/3", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["values"] == {"Delta": "1/3"}
    pos = doc["pathways"]["positive"]
    assert (pos["singular_values"], pos["input_variances"]) == (["1/6"], ["1/18"])
    prov = doc["provenance"]
    _versions_are_these(prov["versions"])
    assert shlex.split(prov["command"]) == ["theorykit", "derive", str(XOR_LINEAR), "--set", "Delta=1/3",
                                            "--json", str(out)]
    # options not typed are recorded with the value they had
    assert prov["options"]["method"] == "auto" and prov["options"]["times"] is None
    assert prov["inputs"]["spec"]["sha256"] == hashlib.sha256(XOR_LINEAR.read_bytes()).hexdigest()
    # the spec as read loads back to the same spec
    again = tmp_path / "again.toml"
    again.write_text(prov["spec_toml"])
    assert tk.spec_to_toml(tk.load_spec(again)) == tk.spec_to_toml(tk.load_spec(XOR_LINEAR))


def test_simulate_reruns_from_its_result_file_alone(tmp_path):
    """Before: the JSON had no spec, values, seed, lr or versions, so a referee holding it could not
    rerun it. Now: the spec as read, the command line and the settings are in it; the rerun from them
    alone (no other file) gives the same losses bit for bit. lr, loss and init_std are the spec file's
    (read here with tomllib), the seed theorykit's only one, 0."""
    first = tmp_path / "first.json"
    assert main(["simulate", str(XOR_LINEAR), "--set", "Delta=0.5", "--init", "random", "--seeds", "2",
                 "--steps", "30", "--times", "0,10,30", "--no-progress", "--json", str(first)]) == 0
    doc = json.loads(first.read_text())
    training = tomllib.loads(XOR_LINEAR.read_text())["training"]
    assert (doc["seed"], doc["lr"], doc["loss_kind"]) == (0, training["lr"], training["loss"])
    assert doc["init_std"] == 0.01 and "init_std" not in training      # the documented default (docs/specs.md)
    assert doc["values"] == {"Delta": "1/2"}
    _versions_are_these(doc["provenance"]["versions"])
    assert doc["provenance"]["options"]["dtype"] == "float64"       # a default, not typed

    # the referee's rerun: from the result file alone
    spec = tmp_path / "from_record.toml"
    spec.write_text(doc["provenance"]["spec_toml"])
    argv = shlex.split(doc["provenance"]["command"])[1:]
    argv[argv.index(str(XOR_LINEAR))] = str(spec)
    second = tmp_path / "second.json"
    argv[argv.index(str(first))] = str(second)
    assert main(argv) == 0
    again = json.loads(second.read_text())
    assert again["loss"] == doc["loss"]
    assert again["loss"]["std"][-1] > 0             # a random start: a spread over the seeds, reproduced


def test_predicted_spec_file_records_its_command_in_a_comment_that_stays_one(tmp_path):
    """Before: the spec ``predict --out`` wrote recorded no option (``--seed``, ``--hidden`` …). Now its
    first line is a TOML comment with the record, as one line of JSON: a source path holding a newline
    and TOML cannot end the comment and add a field."""
    src = tmp_path / 'x\n[extra]\nlr = 9 #.toml'
    src.write_text((EX / "predict" / "xor_data.toml").read_text())
    out, js = tmp_path / "pred.toml", tmp_path / "pred.json"
    assert main(["predict", str(src), "--set", "Delta=1", "--hidden", "4", "--out", str(out), "--json", str(js),
                 "--no-progress"]) == 0
    text = out.read_text()
    first, body = text.split("\n", 1)
    assert first.startswith("# made by theorykit: ")
    rec = json.loads(first.removeprefix("# made by theorykit: "))
    assert rec["options"]["seed"] == 0 and rec["options"]["hidden"] == 4 and rec["options"]["spec"] == str(src)
    _versions_are_these(rec["versions"])
    assert "extra" not in tomllib.loads(text) and tomllib.loads(text) == tomllib.loads(body)
    tk.load_spec(out)                                   # still a spec file
    assert json.loads(js.read_text())["provenance"]["options"]["seed"] == 0


TINY_SUITE = '''
NAME = "tiny"
DESCRIPTION = "a suite of one claim"

def run(out_dir, mode, progress=True):
    return {"claims": [{"claim": "c", "ours": "1", "agreement": "exact", "verdict": "confirmed"}]}
'''


def test_a_suites_json_names_the_versions_that_made_it(tmp_path, monkeypatch):
    """Before: ``<suite>.json`` had the device and a cache key (a hash), the versions only in the
    hidden ``.cache`` entry, which a shared result leaves behind. Now the suite's JSON has them."""
    src = tmp_path / "fake_tiny.py"
    src.write_text(TINY_SUITE)

    def load(name):
        spec = importlib.util.spec_from_file_location("fake_tiny", src)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    from theorykit.cli import validate as cli_validate      # bound before the patches (see test_report.fakes)

    monkeypatch.setattr(suites_mod, "load_suite", load)
    monkeypatch.setattr(suites_mod, "available_suites", lambda: ["tiny"])
    monkeypatch.setattr(cli_validate, "available_suites", lambda: ["tiny"])
    out = tmp_path / "out"
    assert load_package("validation").run_suites(out, "quick", ["tiny"], progress=False) == 0
    fp = json.loads((out / "tiny.json").read_text())["fingerprint"]
    assert fp["theorykit_version"] == tk.__version__
    assert fp["dependencies"]["numpy"] == np.__version__ and fp["dependencies"]["jax"] == jax.__version__
    assert fp["backend"] == jax.default_backend()


def test_a_resumed_sweep_says_its_kept_chunks_ran_under_other_versions(tmp_path):
    """Before: a sweep resumed under another JAX (or on another device) mixed the chunks of both runs
    in one result and said nothing. Now ``sweep.json`` records the versions, and a resume that keeps
    chunks made under others notes it and records theirs."""
    from theorykit.analysis.sweep import parse_grid, run_sweep

    spec = tk.load_spec(XOR_LINEAR)
    grid = parse_grid(["Delta=0.5,1"], spec.task.symbols)
    out = tmp_path / "sw"
    first = run_sweep(spec, grid, seeds=1, steps=5, out=out, chunk=1, progress=False)
    _versions_are_these(first["versions"])
    manifest = json.loads((out / "sweep.json").read_text())
    old = dict(manifest["versions"], jax="0.0.1")       # as if the chunks were made by another JAX
    (out / "sweep.json").write_text(json.dumps({**manifest, "versions": old}))
    again = run_sweep(spec, grid, seeds=1, steps=5, out=out, chunk=1, progress=False)
    assert again["chunks_computed"] == [] and again["versions_of_earlier_chunks"] == old
    assert any("jax 0.0.1 -> " + jax.__version__ in n for n in again["notes"])
    assert json.loads((out / "sweep.json").read_text())["versions_of_earlier_chunks"] == old
    # a fresh sweep under the same versions says nothing of the kind
    fresh = run_sweep(spec, grid, seeds=1, steps=5, out=tmp_path / "sw2", chunk=1, progress=False)
    assert "versions_of_earlier_chunks" not in fresh and not any("other versions" in n for n in fresh["notes"])


def test_derive_json_exact_strings_read_back_exactly_with_theorykits_parser(tmp_path):
    """The symbolic XoR ReLN (docs/theory.md#xor): pathway point_i sees one datapoint x_i of P = 4, so
    Σyx = y x_iᵀ/4, s = |x_i|/4 = sqrt(Δ² + 2)/4 and d = |x_i|²/4 = (Δ² + 2)/4; the strings the JSON
    holds parse (theorykit.parse_expr, never sympify) to exactly these, with the spec's symbol."""
    out = tmp_path / "d.json"
    assert main(["derive", str(EX / "xor_reln.toml"), "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    syms = tk.load_spec(EX / "xor_reln.toml").task.symbols
    D = syms["Delta"]
    assert len(doc["pathways"]) == 4
    for p in doc["pathways"].values():
        (s,), (d,) = p["singular_values"], p["input_variances"]
        assert sp.simplify(tk.parse_expr(s, syms) - sp.sqrt(D ** 2 + 2) / 4) == 0
        assert sp.simplify(tk.parse_expr(d, syms) - (D ** 2 + 2) / 4) == 0


def test_simulate_takes_a_seed_records_it_and_refuses_a_bad_one(tmp_path, capsys):
    """Before: simulate had no --seed (every run drew seed 0's start), so a second, independent sample
    of random starts could not be had, nor a run's seed be named. Now --seed draws the start (recorded
    in the JSON); the same seed gives the same numbers, another seed others; a seed JAX cannot take,
    or one beside --init-weights (which gives the start), is refused naming --seed."""
    def run(*extra):
        out = tmp_path / f"s{len(list(tmp_path.iterdir()))}.json"
        assert main(["simulate", str(XOR_LINEAR), "--set", "Delta=1", "--init", "random", "--seeds", "2", "--steps",
                     "1", "--times", "0,1", "--no-progress", "--json", str(out), *extra]) == 0
        return json.loads(out.read_text())

    default, zero, one = run(), run("--seed", "0"), run("--seed", "1")
    assert (default["seed"], zero["seed"], one["seed"]) == (0, 0, 1)
    assert default["loss"] == zero["loss"]          # the default is seed 0 (and a run repeats bit for bit)
    assert one["loss"]["mean"][0] != zero["loss"]["mean"][0]        # another start: another initial loss
    for bad in ("-1", str(2 ** 32)):
        assert main(["simulate", str(XOR_LINEAR), "--set", "Delta=1", "--seed", bad, "--steps", "1"]) == 2
        assert "error in --seed" in capsys.readouterr().err
    w = tmp_path / "w.npz"
    np.savez(w, **{"input->positive": np.zeros((64, 3)), "positive->output": np.zeros((1, 64)),
                   "input->negative": np.zeros((64, 3)), "negative->output": np.zeros((1, 64))})
    assert main(["simulate", str(XOR_LINEAR), "--set", "Delta=1", "--init-weights", str(w), "--seed", "1",
                 "--steps", "1"]) == 2
    assert "error in --seed" in capsys.readouterr().err


def test_an_infinite_option_is_recorded_as_text_not_refused(tmp_path):
    """--time-limit inf (no limit) is accepted; the record of the options must not then refuse the
    result as "not finite" (it blamed training.lr) or fail as a bug: it is recorded as "inf"."""
    out = tmp_path / "d.json"
    assert main(["derive", str(XOR_LINEAR), "--set", "Delta=1", "--time-limit", "inf", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["provenance"]["options"]["time_limit"] == "inf"
