"""theorykit: learning dynamics of ReLU networks through gated deep linear networks.

Implements "Make Haste Slowly: A Theory of Emergent Structured Mixed Selectivity in
Feature Learning ReLU Networks" (Jarvis, Klein, Rosman & Saxe, ICLR 2025).

Data flows one way: task → gating → effective datasets → modes (SVD) → trajectories →
JAX → simulation → comparison → report. The public API is flat::

    >>> import theorykit as tk
    >>> der = tk.Derivation(tk.GDLNSpec(tk.xor_margin(), tk.xor_relns()["linear"]))
    >>> der.modes["positive"].singular_values
    [Delta/2]

Importing theorykit switches JAX to float64 (``jax_enable_x64``): validation runs in float64
unless a dtype is asked for.
"""
from .errors import DerivationError, DivergenceError, SpecError, TheorykitError
from .spec.expr import parse_expr
from .spec.task import Task, contexts, cross, hierarchy, ring, structure, xor_margin
from .spec.gating import GDLNSpec, Pathway, Training, context_pathways, lemma41_gatings, xor_relns
from .theory.effective import EffectiveDataset, couplings, effective_dataset, input_correlation, output_correlation
from .theory.modes import SVD, Mode, exact_svd, numeric_svd
from .theory.trajectory import (a0, discrete_mode_recurrence, mode_loss_reduction, mode_ode_residual, mode_trajectory,
                         t, t_half, tau)
from .theory.jaxify import NotJaxSafe, to_jax
from .theory.race import RaceSystem, integrate_race
from .theory.derivation import Derivation
from .sim.simulate import SimResult, simulate, simulate_gdln, simulate_relu, simulate_relu_spec
from .spec.graph import Edge, GraphSpec, Group, Node, graph_from_pathways
from .sim.engine import Net, SaveAt, train
from .theory.flow import graph_flow, integrate
from .sim.init import a0_rule, load_weights
from .spec.files import load_spec, spec_from_dict, spec_to_toml
from .io import atomic_write_text, write_json
from .analysis.findgates import exact_reln_outputs, find_gates
from .theory.lemmas import (classify_context_gating, context_gating_mismatch, gate_census, interlacing_holds,
                     interlacing_holds_exact, is_staircase, lp_realisable, poly_bernoulli, realisable_gate_patterns)

__version__ = "0.1.0"

__all__ = [
    "DerivationError", "DivergenceError", "SpecError", "TheorykitError", "parse_expr",
    "Task", "contexts", "cross", "hierarchy", "ring", "structure", "xor_margin",
    "GDLNSpec", "Pathway", "Training", "context_pathways", "lemma41_gatings", "xor_relns",
    "EffectiveDataset", "couplings", "effective_dataset", "input_correlation", "output_correlation",
    "SVD", "Mode", "exact_svd", "numeric_svd",
    "a0", "discrete_mode_recurrence", "mode_loss_reduction", "mode_ode_residual", "mode_trajectory", "t", "t_half",
    "tau", "NotJaxSafe", "to_jax", "RaceSystem", "integrate_race", "Derivation", "SimResult", "simulate", "simulate_gdln",
    "Edge", "GraphSpec", "Group", "Node", "graph_from_pathways", "Net", "SaveAt", "train", "graph_flow", "integrate",
    "a0_rule", "load_weights",
    "simulate_relu", "simulate_relu_spec", "load_spec", "spec_from_dict", "spec_to_toml", "atomic_write_text", "write_json",
    "exact_reln_outputs", "find_gates", "classify_context_gating", "context_gating_mismatch", "gate_census", "interlacing_holds",
    "interlacing_holds_exact", "is_staircase", "lp_realisable", "poly_bernoulli", "realisable_gate_patterns",
]
