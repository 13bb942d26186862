"""derive on an exploded graph: the fuzzer's ``graph-explosion`` (one layer of K width-1 nodes, every node
fed by the input and feeding the output) on a 2-datapoint spec. Every pair of its K paths shares the one
output row and both datapoints, so all K(K-1)/2 pairs couple: what derive keeps and writes of the pairs,
and the race reduction's work per pair, grew as K² while the estimate counted the pathways one by one
("estimated derivation about 18.7 s" at K = 3000; derive used over 300 s of CPU). The counts here are
worked out by hand from that structure, never read off the code under test; no test times anything."""
import json

import pytest

from theorykit.cli import main
from theorykit.errors import SpecError
from theorykit.spec import limits as L
from theorykit.spec.files import spec_from_dict
from theorykit.theory.derivation import Derivation


def _exploded(K: int) -> dict:
    """What ``graph-explosion`` with (layers, per) = (1, K) makes of the fuzz case's spec
    (tests/fuzz.py::_m_graph_explosion): d = 2 inputs, p = 1 output, P = 2 datapoints."""
    nodes = [{"name": f"n0_{i}", "width": 1} for i in range(K)]
    edges = [{"from": "input", "to": n["name"]} for n in nodes] + \
            [{"from": n["name"], "to": "output"} for n in nodes]
    return {"name": "graph", "data": {"inputs": [[1.5, -2], [1.5, -2]], "targets": [[1.5, 0]]},
            "nodes": nodes, "edges": edges}


def _toml(doc: dict) -> str:
    nodes = ", ".join(f'{{name = "{n["name"]}", width = 1}}' for n in doc["nodes"])
    edges = ", ".join(f'{{from = "{e["from"]}", to = "{e["to"]}"}}' for e in doc["edges"])
    return ('name = "graph"\ndata = {inputs = [[1.5, -2], [1.5, -2]], targets = [[1.5, 0]]}\n'
            f"nodes = [{nodes}]\nedges = [{edges}]\n")


def test_the_fuzz_cases_exploded_graph_is_refused_by_the_estimate_naming_the_edges(tmp_path, capsys):
    """The fuzz case (K = 3000 paths, 4,498,500 pairs = 3000·2999/2) under derive's --time-limit 30:
    measured (2-core CPU) at over 300 s of CPU before, 63 s of CPU already at K = 1600. It is refused
    before any work, by the estimate, naming the edges (the paths a user lowers) and the pair count."""
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text(_toml(_exploded(3000)))
    out = tmp_path / "d.json"
    rc = main(["derive", str(spec_path), "--times", "0,20", "--json", str(out), "--time-limit", "30"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("theorykit: error in edges: derivation needs an estimated ")
    assert "4498500 pairs" in err and "--force" in err
    assert not out.exists()


def test_the_estimate_counts_every_pair_derive_keeps():
    """K = 100: 100·99/2 = 4950 coupled pairs (one output row, both datapoints shared by every path);
    Derivation's couplings list them all, and the estimate holds a part for them: PAIR_SECONDS per pair
    kept beyond the PAIRS_CALIBRATED (1000) that the other constants hold, and at most 3 times
    (PAIR_SECONDS + RACE_PAIR_SECONDS) per pair."""
    K, pairs = 100, 100 * 99 // 2
    spec = spec_from_dict(_exploded(K))
    assert len(Derivation(spec).couplings) == pairs == 4950
    est = L.derivation_estimate(spec, horizon=20.0, symbolic=False)
    part = [pt for pt in est.parts if pt[0] == "edges"]
    assert len(part) == 1
    assert L.PAIRS_CALIBRATED <= 1000
    _, secs, nbytes, value, power = part[0]
    assert (value, power) == (K, 2.0)
    per = L.PAIR_SECONDS + L.RACE_PAIR_SECONDS
    assert L.PAIR_SECONDS * (pairs - 1000) <= secs <= 3 * per * pairs
    assert nbytes >= L.PAIR_BYTES * (pairs - 1000)
    # without a loss curve the race reduction's part is not counted, the pairs kept still are
    alone = [pt for pt in L.derivation_estimate(spec, horizon=None, symbolic=False).parts if pt[0] == "edges"]
    assert alone and L.PAIR_SECONDS * (pairs - 1000) <= alone[0][1] < secs


def test_the_limit_names_how_many_paths_fit():
    """Over the limit, the fix names the paths and a count that fits: the pairs' part grows as K², so
    at most K·sqrt(room / cost) paths fit (room: the limit less the other parts)."""
    K = 1000
    est = L.derivation_estimate(spec_from_dict(_exploded(K)), horizon=20.0, symbolic=False)
    with pytest.raises(SpecError) as ei:
        L.enforce(est, L.Limits(max_seconds=10.0))
    cost = (L.PAIR_SECONDS + L.RACE_PAIR_SECONDS) * (K * (K - 1) / 2 - L.PAIRS_CALIBRATED)
    fit = int(K * ((10.0 - (est.seconds - cost)) / cost) ** 0.5)
    assert ei.value.field == "edges"
    assert "paths from input to output (fewer nodes or edges): 1000 of them make 499500 pairs" in ei.value.fix
    assert f"at most {fit} fit the limit" in ei.value.fix


def test_the_note_on_coupled_pairs_stays_short_and_the_json_keeps_them_all(tmp_path):
    """K = 200: 19900 pairs. The note named every pair (about 0.4 MB of text for 200 paths, 29 MB at
    1600, copied into the JSON and the LaTeX); it names the first 8 and the count, while the JSON's
    couplings field still lists all 19900."""
    spec = spec_from_dict(_exploded(200))
    der = Derivation(spec)
    assert der.method == "race-reduction"
    note = [n for n in der.notes if "couple" in n]
    assert len(note) == 1
    assert len(note[0]) < 1000
    assert "19900 pairs in all" in note[0] and "('n0_0', 'n0_8')" in note[0] and "'n0_9'" not in note[0]
    spec_path = tmp_path / "spec.toml"
    spec_path.write_text(_toml(_exploded(200)))
    out = tmp_path / "d.json"
    assert main(["derive", str(spec_path), "--json", str(out), "--time-limit", "600"]) == 0
    doc = json.loads(out.read_text())
    assert len(doc["couplings"]) == 19900
    assert sum(len(n) for n in doc["notes"]) < 3000


def test_a_few_coupled_pairs_are_still_named_one_by_one():
    """K = 3: pairs (n0_0, n0_1), (n0_0, n0_2), (n0_1, n0_2), all named in the note as before."""
    der = Derivation(spec_from_dict(_exploded(3)))
    assert der.method == "race-reduction"
    assert any("pathways [('n0_0', 'n0_1'), ('n0_0', 'n0_2'), ('n0_1', 'n0_2')] couple (shared outputs and "
               "datapoints)" in n for n in der.notes)
