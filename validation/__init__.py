"""Validation suites: symbolic predictions beside simulated networks.

Installed as ``theorykit.validation``; run with ``theorykit validate SUITE --quick --out DIR``.
Each suite module defines ``NAME``, ``DESCRIPTION`` and ``run(out_dir, mode, progress=True)``.
"""
