"""The radicals of a task's exact entries (square roots and other roots), by which the size estimates of
:mod:`theorykit.spec.limits` judge the cost of exact arithmetic. Apart from :mod:`theorykit.spec.task` so
that the task builders can check their size with those estimates before building anything."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import sympy as sp

__all__ = ["Radicals", "radicals_of"]


@dataclass(frozen=True)
class Radicals:
    """The radicals ``b**(r/q)`` (q > 1) that occur in a task's entries.

    ``indices`` maps each base ``b`` to the least common multiple of its root indices ``q``.
    ``degree`` is their product: an upper bound on the degree of the number field (over the
    rationals, or over the field of rational functions of the symbols) that the entries
    generate. Exact arithmetic on such numbers costs more as that degree grows: sixty nested
    square roots of 2 make the single number ``2**(1/2**60)``, of degree ``2**60``, and ten
    square roots of different primes make a field of degree ``2**10``.
    ``deepest``: the field (``data.inputs[i][j]``) holding the radical of the largest index,
    with that index; ``None`` without radicals.
    """

    indices: Mapping
    deepest: tuple | None

    @property
    def deepest_index(self) -> str:
        """The largest root index as text (``"1"`` without radicals)."""
        return _int_str(self.deepest[1]) if self.deepest else "1"

    @property
    def degree(self) -> int:
        """The product of the root indices: a bound on the degree of the number field the entries generate."""
        return math.prod(int(q) for q in self.indices.values())

    def describe(self) -> str:
        """The degree as text: ``"2**60"`` for a large power of two, else the number (rounded when huge)."""
        return _int_str(self.degree)


def _int_str(D: int) -> str:
    if D > 1 and D & (D - 1) == 0 and D > 1024:
        return f"2**{D.bit_length() - 1}"
    return str(D) if D < 10 ** 6 else f"about {float(D):.1e}"


def radicals_of(matrices: Mapping) -> Radicals:
    """:class:`Radicals` of ``{field: matrix}`` (the field names ``data.inputs`` and so on)."""
    indices, deepest = {}, None
    for name, M in matrices.items():
        for i in range(M.rows):
            for j in range(M.cols):
                e = M[i, j]
                if e.is_Rational or e.is_Symbol:
                    continue
                for a in e.atoms(sp.Pow):
                    ex = a.exp
                    if ex.is_Rational and not ex.is_Integer:
                        q = int(ex.q)
                        indices[a.base] = int(sp.ilcm(indices.get(a.base, 1), q))
                        if deepest is None or q > deepest[1]:
                            deepest = (f"{name}[{i}][{j}]", q)
    return Radicals(indices, deepest)
