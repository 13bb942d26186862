"""What is read off derivations and runs: gates, curve metrics, comparisons, sweeps, summaries.

``gates`` (the one unit-gate classifier: which datapoints and contexts a hidden unit is on for),
``curves`` (metrics on loss curves: learning times, switch points, times to fractions of L(0)),
``findgates`` (Algorithm 1 and the exact ReLN), ``checkpoints`` (a run brought from elsewhere: its
weights and data), ``compare`` (a found spec against that run), ``exhaust`` (the race by
exhaustion), ``sweep`` (declared grids), ``summary`` (terminal summaries and figures), and the
suites' experiment drivers (``context_runs``, ``context_races``, ``depth_runs``, ``alignment``),
driven by the settings each suite keeps in ``validation/``.
"""
