"""predict's width rules: how a family's H hidden units are shared among its pathways.

``"equal"`` (the default, :func:`share_hidden`): H // m units each, the remainder one each to the
first pathways. ``"mass"`` (:func:`share_mass`): in proportion to each pattern's Gaussian mass m(g),
the solid-angle fraction of the cone {w : sign(Xᵀw) = g}, the chance that a bias-free unit started
at w ~ N(0, σ²I) starts in pattern g (σ does not matter: the cone is scale-free). m(g) is estimated
by :func:`pattern_masses` from seeded N(0, I) draws, the draws of the sampled enumeration. Either way
pathway p starts at ``a0_rule(init_std, H_p)`` = σ²H_p/2. Both rules are stated choices, not laws;
docs/predict.md ("Width rule: an alternative measured") compares them with trained ReLU networks.
"""
from __future__ import annotations

import numpy as np

from ..errors import SpecError
from ..io import counted
from ..net.starts import a0_rule
from .patterns import _check_samples

__all__ = ["SHARE_RULES", "share_hidden", "share_mass", "pattern_masses", "family_a0s", "share_rule_text"]

SHARE_RULES = ("equal", "mass")


def _check_units(H: int, m: int) -> None:
    """Refuse H < m by name (field ``H``): m ≥ 1 pathways need one unit each at least (the width rules gave
    widths of 0 before: ``[1, 0, 0]`` for H = 1, m = 3)."""
    if m >= 1 and H < m:
        whom = "the one pathway" if m == 1 else f"each of the {m} pathways"
        # fewer pathways help only where there is a unit to give: with H ≤ 0 none works (share_hidden(0, 1))
        raise SpecError("H", f"{counted(H, 'hidden unit')} cannot give {whom} at least one unit",
                        f"use H >= {m} (one unit per pathway at least), or at most {counted(H, 'pathway')}" if H >= 1
                        else f"use H >= {m}: at least 1 unit, and at least one per pathway (H >= the number of pathways)")


def share_hidden(H: int, m: int) -> list:
    """The stated rule: H units shared equally among m pathways, remainder one each to the first. H < m is
    refused by name, as :func:`share_mass` refuses it (it gave widths of 0: ``[1, 0, 0]`` for H = 1, m = 3)."""
    if m < 1:
        return []
    _check_units(H, m)
    return [H // m + (1 if j < H % m else 0) for j in range(m)]


def share_mass(H: int, masses) -> list:
    """H units in proportion to ``masses``, at least one each: every pathway gets 1, and the other H − m
    are shared by largest remainder (Hamilton) in proportion to the masses, ties to the first pathways;
    all masses zero: shared equally (:func:`share_hidden`). The widths sum to H; H < m is refused by name.
    A mass of 0 (a degenerate pattern, or one no draw gave) keeps its 1 unit, deliberately: docs/predict.md
    ("Width rule") gives the reasons."""
    ms = np.asarray(masses, dtype=float)
    m = len(ms)
    if m < 1:
        return []
    _check_units(H, m)     # the H − m others below zero: widths of 0 ([0, 1, 1] for H = 2 over 3 masses)
    if not ms.sum() > 0:
        return share_hidden(H, m)
    raw = (H - m) * ms / ms.sum()
    base = np.floor(raw).astype(int)
    order = np.argsort(-(raw - base), kind="stable")
    base[order[:(H - m) - int(base.sum())]] += 1
    return [1 + int(b) for b in base]


def pattern_masses(X, gates, samples: int, seed: int) -> np.ndarray:
    """The Gaussian mass of each gate pattern (rows of ``gates``): the fraction of ``samples`` weight
    vectors w ~ N(0, I), drawn with ``seed`` as the sampled enumeration draws them, with
    ``(Xᵀw > 0) == g``. A pattern no draw gives has mass 0 here (a degenerate pattern, one that needs
    w·x = 0 on an off datapoint, has mass 0 exactly)."""
    X = np.asarray(X, dtype=float)
    d, P = X.shape
    _check_samples(samples, d, P)
    W = np.random.default_rng(seed).standard_normal((int(samples), d))
    uniq, counts = np.unique(np.packbits((W @ X) > 0, axis=1), axis=0, return_counts=True)
    found = {u.tobytes(): int(c) for u, c in zip(uniq, counts)}
    keys = np.packbits(np.asarray(gates, dtype=bool).reshape(-1, P), axis=1)
    return np.array([found.get(k.tobytes(), 0) for k in keys], dtype=float) / int(samples)


def family_a0s(init_std, H: int, m: int, masses=None) -> tuple:
    """(widths, a0s) of a family of m pathways: equal shares when ``masses`` is None, else
    :func:`share_mass` over the family's masses (one per pathway); a0_p = a0_rule(init_std, H_p).
    H < m is refused by name (field ``H``), as :func:`share_hidden` and :func:`share_mass` refuse it,
    and so are masses of another count than m (field ``masses``): share_mass shared H over
    len(masses) pathways, so 2 masses for m = 3 gave 2 widths and passed H = 2 < 3."""
    _check_units(H, m)
    if masses is not None and len(masses) != m:
        raise SpecError("masses", f"{counted(len(masses), 'mass', 'masses')} for a family of {counted(m, 'pathway')}",
                        f"give one mass per pathway ({m} of them), or masses=None for equal shares")
    widths = share_hidden(H, m) if masses is None else share_mass(H, masses)
    return widths, [a0_rule(init_std, h) for h in widths]


def share_rule_text(share: str, samples: int = 0, seed: int = 0) -> str:
    """The rule in words, as the result's summary states it."""
    if share == "mass":
        return (f"H shared in proportion to each pattern's Gaussian mass m(g) (the fraction of {int(samples)} "
                f"N(0, I) weight vectors, seed {int(seed)}, that give pattern g), 1 unit each and the other "
                "H - m by largest remainder; a0_p = a0_rule(init_std, H_p)")
    return "H shared equally among the pathways (remainder to the first); a0_p = a0_rule(init_std, H_p)"
