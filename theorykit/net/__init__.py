"""The network description shared by theory and simulation, so that the two cannot drift apart:

* :mod:`~theorykit.net.layout`: :class:`~theorykit.net.layout.Net` (a graph GDLN or a bias-free
  ReLU network), its forward pass, its loss and a schedule's objective;
* :mod:`~theorykit.net.starts`: its starts (random; aligned and balanced, private chains or
  shared edges) and the one a0 rule.

The simulator (:mod:`theorykit.sim`) trains a ``Net``; the theory (:mod:`theorykit.theory.flow`)
integrates its gradient flow from the same starts.
"""
from .layout import DTYPES, Net, as_dtype, loss_value, net_apply, net_loss, objective_for, unit_activity
from .starts import a0_rule, aligned_net_params, aligned_params, random_params

__all__ = ["Net", "net_apply", "net_loss", "unit_activity", "objective_for", "loss_value", "as_dtype", "DTYPES",
           "a0_rule", "random_params", "aligned_params", "aligned_net_params"]
