"""What is read off derivations and runs: gates found, comparisons, sweeps and summaries.

``findgates`` (Algorithm 1 and the exact ReLN), ``checkpoints`` (a run brought from elsewhere:
its weights and data), ``compare`` (a found spec against its run),
``exhaust`` (the race by exhaustion), ``sweep`` (declared grids) and ``summary`` (terminal
summaries and figures).
"""
