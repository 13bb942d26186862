"""Simulation: the finite networks a spec defines and the one trainer that runs them.

``engine`` (the network, the trainer, what is recorded), ``init`` (initial weights and the one
a0 rule) and ``simulate`` (a spec's GDLN and ReLU network through the trainer).
Reads ``theorykit.spec.files`` and ``theorykit.theory``.
"""
