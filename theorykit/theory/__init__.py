"""The theory: effective datasets, modes, trajectories, the race, and their JAX lowering.

``effective`` (each pathway's effective dataset), ``modes`` and ``exactla`` (exact SVDs),
``trajectory`` (closed-form mode trajectories; ``closed_grid`` evaluates them on a grid of
symbol values, ``mode_ode`` integrates a deep chain's balanced mode ODE), ``race`` (the neural
race reduction: one :class:`~theorykit.theory.race.RaceSystem`, with one loss, one start and one
``solve``, for every caller; the gating families), ``flow`` (the one integrator, and the gradient
flow of a graph with shared edges), ``derivation`` (the derivation object), ``lemmas``, ``latex``
and ``jaxify``. Reads ``theorykit.spec`` and the network description ``theorykit.net``.
"""
