"""Simulation: the finite networks a spec defines, and the one trainer that runs them.

``simulate`` (the function: a spec's GDLN or ReLU network, or a ReLU network on data — the one way
to simulate; ``from theorykit.sim import simulate`` is ``tk.simulate``; it lives in ``simulation``, with
the forward passes ``relu_forward``, ``relu_gates`` and ``gdln_forward``), ``engine`` (the trainer: ``train``
for any loss, ``train_net`` for a :class:`~theorykit.net.layout.Net`; what it records and returns is
:mod:`theorykit.record`), ``weights`` (weight files), ``fused`` (the fused multi-step kernel for a GPU),
``grid`` (ensembles over a grid of datasets, one call of the trainer). The network description and its
starts are in :mod:`theorykit.net`. Reads ``theorykit.spec``, ``theorykit.net`` and ``theorykit.theory``.
"""
from .simulation import simulate

__all__ = ["simulate"]
