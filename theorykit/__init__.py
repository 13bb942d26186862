"""theorykit: learning dynamics of ReLU networks through gated deep linear networks.

Implements "Make Haste Slowly: A Theory of Emergent Structured Mixed Selectivity in Feature
Learning ReLU Networks" (Jarvis, Klein, Rosman & Saxe, ICLR 2025).

Data flows one way: spec → net → theory → sim → analysis → interfaces (cli, report, bench). The flat
namespace holds what a researcher types; the rest is reached through the subpackages
(``theorykit.theory``: the race engine and the integrator; ``theorykit.sim``: the trainer for your
own ``Net``; ``theorykit.net``: the network description and its starts)::

    >>> import theorykit as tk
    >>> der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]))
    >>> der.modes["positive"].singular_values
    [Delta/2]

Names load on first use, so ``import theorykit`` (and the command line's ``--help``) is quick.
JAX computes in float64 once theorykit is imported (``jax_enable_x64``): validation runs in
float64 unless a dtype is asked for. Random draws use JAX's partitionable Threefry
(``jax_threefry_partitionable``, the default from JAX 0.5 on), set here too, so that a seed draws
the same weights under every JAX that pyproject.toml allows.
"""
from __future__ import annotations

import importlib
import os
import sys

from .errors import DerivationError, DivergenceError, SpecError, TheorykitError

__version__ = "0.1.0"

# float64 and partitionable Threefry in JAX: set before JAX loads (it reads the variables then), or
# now if it already has. Both are set, not defaulted: a JAX_ENABLE_X64=0 left in the environment
# kept JAX in float32 until theorykit.theory.jaxify turned x64 on at its import, and a JAX imported
# first kept its own Threefry (under JAX < 0.5, other weights for the same seed)
if "jax" in sys.modules:
    sys.modules["jax"].config.update("jax_enable_x64", True)
    sys.modules["jax"].config.update("jax_threefry_partitionable", True)
else:
    os.environ["JAX_ENABLE_X64"] = "true"
    os.environ["JAX_THREEFRY_PARTITIONABLE"] = "true"

#: the flat API: name -> the module that defines it (loaded on first use, PEP 562)
_API = {
    # tasks and specs
    "Task": "spec.task", "contexts": "spec.task", "cross": "spec.task", "hierarchy": "spec.task", "ring": "spec.task",
    "structure": "spec.task", "xor_margin": "spec.task", "parse_expr": "spec.expr",
    "GDLNSpec": "spec.gating", "Pathway": "spec.gating", "Training": "spec.gating",
    "context_pathways": "spec.gating", "lemma41_gatings": "spec.gating", "xor_relns": "spec.gating",
    "GraphSpec": "spec.graph", "Node": "spec.graph", "Edge": "spec.graph", "Group": "spec.graph",
    "graph_from_pathways": "spec.graph",
    "load_spec": "spec.files", "load_task": "spec.files", "spec_from_dict": "spec.files", "spec_to_toml": "spec.files",
    # the theory
    "EffectiveDataset": "theory.effective", "effective_dataset": "theory.effective", "couplings": "theory.effective",
    "SVD": "theory.modes", "Mode": "theory.modes", "exact_svd": "theory.svd",
    "mode_trajectory": "theory.trajectory", "t_half": "theory.trajectory", "mode_loss_reduction": "theory.trajectory",
    "Derivation": "theory.derivation", "crossings": "theory.crossings", "RaceSystem": "theory.race",
    "to_jax": "theory.jaxify",
    "NotJaxSafe": "theory.jaxify",
    "interlacing_holds": "theory.lemmas", "interlacing_holds_exact": "theory.lemmas", "is_staircase": "theory.gates",
    "lp_realisable": "theory.lemmas", "realisable_gate_patterns": "theory.lemmas", "gate_census": "theory.lemmas",
    "poly_bernoulli": "theory.lemmas", "classify_context_gating": "theory.lemmas",
    "context_gating_mismatch": "theory.lemmas",
    # networks and simulation
    "a0_rule": "net.starts", "simulate": "sim.simulation", "Trajectory": "record",
    # analysis
    "find_gates": "analysis.findgates", "exact_reln_outputs": "analysis.reln", "plot": "analysis.summary",
    "predict_reln": "analysis.predict",
}

__all__ = ["DerivationError", "DivergenceError", "SpecError", "TheorykitError", "__version__", *_API]

#: 0.1.0's flat names that are gone, and what each became (CHANGELOG.md, "Removed names"): asked
#: for, they still raise AttributeError, with the new name in the message
_REMOVED = {
    "simulate_gdln": "tk.simulate(spec, …)",
    "simulate_relu": "tk.simulate((X, Y), network=\"relu\", hidden=…, …)",
    "simulate_relu_spec": "tk.simulate(spec, network=\"relu\", …)",
    "integrate_race": "RaceSystem.solve (tk.RaceSystem.from_spec(spec).solve(times))",
    "SimResult": "tk.Trajectory",
    "Net": "theorykit.net.layout.Net (also theorykit.net.Net)",
    "SaveAt": "theorykit.record.SaveAt",
    "train": "theorykit.sim.engine.train",
    "integrate": "theorykit.theory.flow.integrate",
    "graph_flow": "tk.RaceSystem.from_graph(graph).solve(times, start=…)",
    "load_weights": "theorykit.sim.weights.load_weights",
    "numeric_svd": "theorykit.linalg.numeric_svd",
    "t": "theorykit.theory.trajectory.t", "tau": "theorykit.theory.trajectory.tau",
    "a0": "theorykit.theory.trajectory.a0",
    "discrete_mode_recurrence": "theorykit.theory.trajectory.discrete_mode_recurrence",
    "mode_ode_residual": "theorykit.theory.trajectory.mode_ode_residual",
    "input_correlation": "theorykit.theory.effective.input_correlation",
    "output_correlation": "theorykit.theory.effective.output_correlation",
    "atomic_write_text": "theorykit.io.atomic_write_text", "write_json": "theorykit.io.write_json",
}


def __getattr__(name: str):
    module = _API.get(name)
    if module is None:
        if name in _REMOVED:
            raise AttributeError(f"module 'theorykit' has no attribute {name!r}: it was removed after 0.1.0; "
                                 f"use {_REMOVED[name]} (CHANGELOG.md, Removed names)")
        raise AttributeError(f"module 'theorykit' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


#: the subpackages a user reaches for the advanced pieces (shown by dir() and tab completion)
_SUBPACKAGES = ("analysis", "net", "record", "sim", "spec", "theory")


def __dir__():
    return sorted({*__all__, *_SUBPACKAGES})
