"""Spec files that several test modules write (the tests' own data, one copy)."""

#: the XoR-with-margin task with training settings and no pathways: what `theorykit predict` reads
XOR_TOML = """[symbols]
Delta = {positive = true}
[data]
task = "xor-margin"
[training]
lr = 0.05
loss = "mean"
init_std = 0.01
steps = 2000
"""
