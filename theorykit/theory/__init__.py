"""The theory: effective datasets, modes, trajectories, the race, and their JAX lowering.

``effective`` (each pathway's effective dataset), ``modes`` and ``exactla`` (exact SVDs),
``trajectory`` (closed-form mode trajectories), ``race`` (the neural race reduction; the scipy
reference integrator), ``flow`` (the one race engine, in JAX), ``derivation`` (the derivation
object), ``lemmas``, ``latex`` and ``jaxify``. Reads ``theorykit.spec.files``; never the simulator.
"""
