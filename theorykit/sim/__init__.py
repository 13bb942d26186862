"""Simulation: the finite networks a spec defines and the one trainer that runs them.

``engine`` (the network, the trainer, what is recorded), ``init`` (initial weights and the one
a0 rule), ``simulate`` (a spec's GDLN and ReLU network through the trainer, with parameter
snapshots: ``relu_run``, ``gdln_run``) and ``grid`` (ensembles over a grid of symbol values, one
call of the trainer). Reads ``theorykit.spec`` and ``theorykit.theory``.
"""
