"""Rules from a maintainer's pass over the mends list: a name that gave a module where the docs promise
a function, own-module imports left inside functions, one test harness written twice, a silent
``Task.subs`` typo, and the message of ``float()`` of a derivation's time with symbols left free.

Expected values are written out by hand here (or read from the docs), never taken from a run of the
code under test. Every test is tiny.
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import theorykit as tk


# ---------------------------------------------------------------------------------------------
# 1. ``from theorykit.sim import simulate`` was the module theorykit/sim/simulate.py
# ---------------------------------------------------------------------------------------------
def test_from_sim_import_simulate_is_the_function():
    """docs/api.md: ``tk.simulate`` is the one way to simulate; the subpackage's name for it was the module
    (``simulate(spec)`` failed with "'module' object is not callable"). The module is now ``simulation``."""
    from theorykit.sim import simulate

    assert callable(simulate) and simulate is tk.simulate
    from theorykit.sim import simulation

    assert simulation.simulate is tk.simulate
    # it runs: one input, one output (y = 2x, P = 1), a ReLU network of one hidden unit, one step
    X, Y = np.array([[1.0]]), np.array([[2.0]])
    res = simulate((X, Y), network="relu", hidden=1, lr=0.01, steps=1, seeds=1)
    assert isinstance(res, tk.Trajectory)


@pytest.mark.parametrize("module", ["theorykit.sim"])
def test_imported_first_in_a_fresh_interpreter(module):
    """An import moved to module level must not create a cycle: each module touched by the mends is imported
    first thing in a fresh interpreter (where a cycle shows as an ImportError)."""
    r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
