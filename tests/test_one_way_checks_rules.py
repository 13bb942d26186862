"""One way to check a number: the integer and real checks of the Python API go through the field
rules of :mod:`theorykit.spec.fields` (``integer``, ``real``), so each refusal reads in the shared
words and names its field with a fix.

The expected texts are the field rules' own wordings, written out by hand from
theorykit/spec/fields.py (``integer``: "needs an integer, got <type> <repr>" and "<v> is out of range:
must be at least <lo>" / "between <lo> and <hi>"; ``real``: "<repr> is not a finite number" and "<v> is
out of range (<lo>, <hi>)"). Before this change each module wrote its own check: a float depth 2.0 went
through ``tk.Pathway`` and ``train_gdln`` (the latter then failed inside ``[Ht] * (depth - 1)``), and
the other cases below read in wordings of their own ("needs a positive integer", "is not supported",
"is not a depth", "needs a positive finite number", ...).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import theorykit as tk
from theorykit.analysis._runs import train_gdln
from theorykit.analysis.exhaust import exhaust_spec
from theorykit.analysis.predict import predict_reln
from theorykit.net.layout import Net, net_loss
from theorykit.net.starts import random_params
from theorykit.sim.engine import train
from theorykit.spec.files import spec_from_dict
from theorykit.theory.gates import UnitGates
from theorykit.theory.race import RaceSystem
from theorykit.theory.trajectory import t_half

NOT_INT = "needs an integer, got {}"


def _pathway_depth(v):
    return tk.GDLNSpec(tk.xor_margin(), [tk.Pathway("a", "all", depth=v)])


def _predict_hidden(v):
    return predict_reln(tk.xor_margin(1.0), v, tk.Training(steps=2000, lr=0.05), progress=False)


_XR = np.array([[1.0, -1, 1, -1], [1, 1, -1, -1]])
_YR = np.array([[1.0, -1, -1, 1]])
_GR = np.array([[1.0, 1, 0, 0], [0, 0, 1, 1]])


def _race_depth(v):
    return RaceSystem.from_data(_XR, _YR, _GR, depth=v)


def _blocks(v):
    return UnitGates(np.array([[1, 0, 1, 0], [0, 1, 1, 1]]), blocks=v)


_NET = Net.chain(2, [3], 1)


def _seeds(v):
    return random_params(_NET, 0.1, seeds=v)


def _batch(v):
    p0 = random_params(_NET, 0.1, seeds=2)
    return train(net_loss(_NET, "mean"), p0, (_XR, _YR[:, :4]), lr=0.05, steps=1, batch=v)


def _gdln_depth(v):
    return train_gdln(np.array([[1.0, 0, 1, -1], [0, 1, 1, 2]]), np.array([[1.0, -1, 0.5, 2]]),
                      np.array([[1, 1, 0, 0], [0, 1, 1, 1]], float), hidden=[2, 2], lr=0.1, steps=1, seeds=1,
                      every=1, depth=v)


def _edge_scale(v):
    return spec_from_dict({
        "data": {"inputs": [[1, 0], [0, 1]], "targets": [[1, -1]]},
        "nodes": [{"name": "h", "width": 2}],
        "edges": [{"from": "input", "to": "h"}, {"from": "h", "to": "output", "init_scale": v}],
        "training": {"lr": 0.05, "init_std": 0.01, "steps": 10}})


# (call, bad value, field named, the shared problem text, a word of the fix)
CASES = [
    # bool for an int, float for an int, NaN, inf, out of range: the integer rule's words
    (_pathway_depth, 2.0, "pathways[0].depth", NOT_INT.format("a float 2.0"), "depth=2"),      # went through
    (_pathway_depth, 4, "pathways[0].depth", "4 is out of range: must be between 2 and 3", "use 2"),
    (_gdln_depth, 2.0, "depth", NOT_INT.format("a float 2.0"), "use 2 or 3"),                  # went through
    (_gdln_depth, True, "depth", NOT_INT.format("a boolean True"), "use 2 or 3"),
    (_gdln_depth, 1, "depth", "1 is out of range: must be between 2 and 3", "use 2 or 3"),
    (_predict_hidden, True, "hidden", NOT_INT.format("a boolean True"), "--hidden 128"),
    (_predict_hidden, -1, "hidden", "-1 is out of range: must be at least 1", "--hidden 128"),
    (_predict_hidden, 8.0, "hidden", NOT_INT.format("a float 8.0"), "--hidden 128"),
    (exhaust_spec, True, "--k", NOT_INT.format("a boolean True"), "--k 3"),
    (exhaust_spec, math.nan, "--k", NOT_INT.format("a float nan"), "--k 3"),
    (exhaust_spec, 1, "--k", "1 is out of range: must be at least 2", "--k 3"),
    (lambda v: t_half(1, 1, depth=v), 2.0, "depth", NOT_INT.format("a float 2.0"), "depth=2"),
    (lambda v: t_half(1, 1, depth=v), False, "depth", NOT_INT.format("a boolean False"), "depth=2"),
    (lambda v: t_half(1, 1, depth=v), -2, "depth", "-2 is out of range: must be at least 2", "depth=2"),
    (_race_depth, 1, "depth", "1 is out of range: must be at least 2", "depth=2"),
    (_race_depth, [2, 2.5], "depth[1]", NOT_INT.format("a float 2.5"), "depth=2"),
    (_race_depth, [True, 2], "depth[0]", NOT_INT.format("a boolean True"), "depth=2"),
    (_blocks, True, "blocks", NOT_INT.format("a boolean True"), "blocks=3"),
    (_blocks, 0, "blocks", "0 is out of range: must be at least 1", "blocks=3"),
    (_blocks, math.inf, "blocks", NOT_INT.format("a float inf"), "blocks=3"),
    (_seeds, True, "seeds", NOT_INT.format("a boolean True"), "seeds=4"),
    (_seeds, 0, "seeds", "0 is out of range: must be at least 1", "seeds=4"),
    (_seeds, 2.0, "seeds", NOT_INT.format("a float 2.0"), "seeds=4"),
    (_batch, True, "batch", NOT_INT.format("a boolean True"), "batch = 10"),
    (_batch, -1, "batch", "-1 is out of range: must be at least 1", "batch = 10"),
    (_batch, math.nan, "batch", NOT_INT.format("a float nan"), "batch = 10"),
    # a graph edge's init_scale (docs/specs.md: 0 < σ < 1e6): the real rule's words
    (_edge_scale, math.nan, "edges[1].init_scale", "nan is not a finite number", "init_scale = 0.001"),
    (_edge_scale, math.inf, "edges[1].init_scale", "inf is not a finite number", "init_scale = 0.001"),
    (_edge_scale, -0.1, "edges[1].init_scale", "-0.1 is out of range (0, 1e6)", "init_scale = 0.001"),
    (_edge_scale, 1e6, "edges[1].init_scale", "1e6 is out of range (0, 1e6)", "init_scale = 0.001"),
    (_edge_scale, True, "edges[1].init_scale", "needs a number, got a boolean True", "init_scale = 0.001"),
]


@pytest.mark.parametrize("call,bad,field,problem,fix", CASES,
                         ids=[f"{i}-{c[2]}-{c[1]!r}" for i, c in enumerate(CASES)])
def test_each_check_reads_in_the_one_rules_words(call, bad, field, problem, fix):
    with pytest.raises(tk.SpecError) as e:
        call(bad)
    assert e.value.field == field
    assert e.value.problem == problem
    assert fix in e.value.fix


def test_the_rules_hand_back_plain_integers():
    """A numpy integer passes each rule and comes back a Python int (the rule's ``int(value)``)."""
    spec = _pathway_depth(np.int64(3))
    assert type(spec.pathways[0].depth) is int and spec.pathways[0].depth == 3
    assert _blocks(np.int64(2)).blocks == 2 and type(_blocks(np.int64(2)).blocks) is int
    assert RaceSystem.from_data(_XR, _YR, _GR, depth=np.int64(2)).depth == (2, 2)
