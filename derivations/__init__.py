"""Derivation scripts of the paper's results, installed as ``theorykit.derivations``.

Each module has a ``derive()`` function returning its results and LaTeX, and runs as a script:
``python -m theorykit.derivations.<name>``.
"""
