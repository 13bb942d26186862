"""What a user writes down: tasks, gatings, graphs, and the spec files that hold them.

``task`` (X, Y), ``gating`` (pathways, the pathway form of a spec), ``graph`` (the GDLN as nodes
and edges), ``files`` (TOML in and out), ``expr`` (safe expression strings), ``fields`` (the field
checks every parser shares) and ``limits`` (memory and time estimates before any work starts).
Nothing here imports from the later stages.
"""
