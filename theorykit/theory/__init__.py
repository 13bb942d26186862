"""The theory: effective datasets, modes, trajectories, the race, and their JAX lowering.

``effective`` (each pathway's effective dataset), ``modes`` and ``exactla`` (exact SVDs),
``trajectory`` (closed-form mode trajectories; ``closed_grid`` evaluates them on a grid of
symbol values, ``mode_ode`` integrates a deep chain's balanced mode ODE), ``race`` (the neural
race reduction: the JAX ``race_flow`` every caller uses, gating families, and the SciPy reference
integrator), ``flow`` (the one race engine: RK4 in JAX, and the gradient flow of a graph),
``derivation`` (the derivation object), ``lemmas``, ``latex`` and ``jaxify``. Reads
``theorykit.spec``; of the simulator only the network layout (``sim.engine.Net``), for the
gradient flow of a network's own weights.
"""
