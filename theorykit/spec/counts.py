"""Counts an exhaustive enumeration checks before it starts (:mod:`theorykit.theory.lemmas`), and how a message
writes them: huge counts are never built as integers. Re-exported by :mod:`theorykit.spec.limits`, beside the bounds
(``ALL_PATTERNS_MAX``, ``REALISABLE_MAX_ORDERINGS``, ``POLY_BERNOULLI_MAX_WORK`` and ``POLY_BERNOULLI_MAX_BITS``)."""
from __future__ import annotations

import math

__all__ = ["poly_bernoulli_work", "product_count", "int_text"]


def poly_bernoulli_work(n: int, k: int) -> tuple:
    """``(word operations, bits)``: an upper bound on the work of ``poly_bernoulli(n, k)``'s Stirling numbers
    (SymPy's row recurrence: S(N, K) for 3 ≤ K takes N·K updates of integers below K^N, of N·log2(K) bits;
    for K ≤ 2 a closed form) and on the bits of its largest integer: a term (m!)² S(n+1, m+1) S(k+1, m+1),
    m ≤ s = min(n, k), is below (s + 1)^(2s + n + k + 2). Floats (inf past 1e300): no big integer is built."""
    s = min(n, k)
    nf, kf, sf = (float(min(v, 10 ** 300)) for v in (n, k, s))
    row_bits = (max(nf, kf) + 1) * math.log2(s + 1)
    bits = (2 * sf + nf + kf + 2) * math.log2(s + 1)
    rows = (nf + kf + 2) * ((sf + 1) * (sf + 2) / 2 - 3) if s >= 2 else 0.0     # Σ_{m=2}^{s} (n+1 + k+1)(m+1)
    return rows * (1.0 + row_bits / 64.0) + bits / 64.0, bits


def product_count(*powers) -> tuple:
    """``(count or None, text)`` of the product of ``base ** exp`` over ``powers`` (pairs): the exact count and
    its digits, ``1,099,511,627,776``, when it is below 10^18; else None and ``about 10^40.4`` (no huge
    integer is built: 2^(10^18) would not fit in memory)."""
    log10 = sum(float(min(e, 10 ** 300)) * math.log10(b) for b, e in powers if b > 0)
    if log10 >= 18:
        return None, (f"about 10^{log10:,.1f}" if log10 < 1e15 else f"about 10^({log10:.3g})" if log10 < 1e300
                      else "over 10^(10^300)")
    count = math.prod(b ** e for b, e in powers)
    return count, f"{count:,}"


def int_text(v: int) -> str:
    """An integer as a message shows it: its digits below 10^18, else ``about 10^400.0`` (Python refuses to
    write an integer of more than 4300 digits)."""
    return str(v) if v < 10 ** 18 else f"about 10^{math.log10(v):.4g}"
