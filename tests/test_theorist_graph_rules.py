"""A theorist's hour in the REPL with graph GDLNs, deep pathways and their LaTeX (docs/graphs.md,
docs/theory.md#deep-modes, #race): what was found wrong, each case worked out by hand below."""
from __future__ import annotations

import pytest

import theorykit as tk
from theorykit.errors import SpecError
from theorykit.spec.graph import Edge, GraphSpec, Node

# d = 3 inputs, P = 3 datapoints, p = 2 outputs: X = I, Y = [[3, 0, 0], [0, 1, 0]]
X = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
Y = [[3, 0, 0], [0, 1, 0]]


def _task():
    return tk.Task(X, Y, name="diag")


def test_a_cycle_is_named_by_its_own_nodes_not_those_it_feeds():
    """docs/graphs.md's shared trunk with a back edge left -> trunk: the cycle is trunk -> left -> trunk.
    'right' hangs below the cycle (trunk -> right -> output) and is not on it; nor is 'tail', fed by the
    cycle through left -> tail. The message listed every node Kahn's order could not place,
    ['left', 'right', 'tail', 'trunk']."""
    nodes = [Node("trunk", 2), Node("left", 2), Node("right", 2), Node("tail", 1)]
    edges = [Edge("input", "trunk"), Edge("trunk", "left"), Edge("trunk", "right"), Edge("left", "trunk"),
             Edge("left", "tail"), Edge("tail", "output"), Edge("right", "output")]
    with pytest.raises(SpecError) as e:
        GraphSpec(_task(), nodes, edges)
    assert e.value.field == "edges" and e.value.fix
    assert "['left', 'trunk']" in str(e.value)
    assert "right" not in str(e.value) and "tail" not in str(e.value)


def test_a_node_between_two_cycles_is_on_neither():
    """a <-> b, then b -> c -> d, then d <-> e: c runs from one cycle to the other but lies on no cycle."""
    nodes = [Node(n, 1) for n in "abcde"]
    edges = [Edge("input", "a"), Edge("a", "b"), Edge("b", "a"), Edge("b", "c"), Edge("c", "d"),
             Edge("d", "e"), Edge("e", "d"), Edge("e", "output")]
    with pytest.raises(SpecError) as e:
        GraphSpec(_task(), nodes, edges)
    assert e.value.field == "edges" and "['a', 'b', 'd', 'e']" in str(e.value)
