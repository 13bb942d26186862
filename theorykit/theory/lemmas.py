"""The paper's lemmas (Appendices D–E, docs/theory.md#lemma-4-1) as small, checkable functions.

Three groups:

* **Interlacing** (Thompson 1972): if ``B`` is ``A`` (m × n) with ``r`` rows and ``c`` columns
  removed, then ``σ_i(A) ≥ σ_i(B) ≥ σ_{i+r+c}(A)`` for ``i = 1 … min(m−r, n−c)``, with
  ``σ_j(A) = 0`` for ``j > min(m, n)``. :func:`interlacing_holds` (floats, tolerance scaled by
  ``‖A‖₂``) and :func:`interlacing_holds_exact` (SymPy, exact algebraic numbers).
* **Gate patterns of one bias-free ReLU unit** on one-hot item + (scaled) one-hot context: the
  pre-activation on (item i, context c) is ``a_i + s·b_c``, so the unit's n × k on/off pattern is
  ``G[i, c] = 1[a_i + s b_c > 0]``. Exact characterisation (proved in ``docs/lemmas.md`` and
  checked exhaustively by the tests): ``G`` is realisable ⇔ it has no 2 × 2 XOR sub-pattern ⇔
  its rows are nested ⇔ after sorting rows and columns it is a staircase (Ferrers diagram).
  Three independent deciders: :func:`realisable_gate_patterns` (enumeration of all orderings of
  the weights), :func:`lp_realisable` (linear-programming feasibility) and
  :func:`is_staircase` / :func:`has_xor_subpattern` (combinatorial). Their count is the
  poly-Bernoulli number :func:`poly_bernoulli` (these are the "lonesum" matrices).
* **Census** of the patterns a trained network uses: :func:`classify_context_gating`.

Patterns are boolean numpy arrays of shape ``(n, k)`` (items × contexts). A gate vector over
the P = n·k datapoints of :func:`theorykit.spec.task.contexts` (context-major: column ``c·n + i`` is
item i in context c) converts with :func:`pattern_from_gates`.
"""
from __future__ import annotations

import itertools
import math
import numbers
from typing import Iterable, Sequence

import numpy as np
import sympy as sp

from ..curves import _floats
from ..errors import SpecError
from ..io import counted
from ..linalg import unit_columns
from ..spec.fields import integer, real
from ..spec.limits import (ALL_PATTERNS_MAX, POLY_BERNOULLI_MAX_BITS, POLY_BERNOULLI_MAX_WORK, REALISABLE_MAX_ORDERINGS,
                           int_text, poly_bernoulli_work, product_count)
from .gates import LEMMA_CLASSES, UnitGates, binary, is_staircase

__all__ = [
    "singular_values", "interlacing_bounds", "interlacing_holds", "exact_squared_singular_values",
    "interlacing_holds_exact", "gate_pattern", "pattern_from_gates", "has_xor_subpattern", "is_staircase",
    "staircase_weights", "lp_realisable", "realisable_gate_patterns", "all_patterns", "poly_bernoulli",
    "GATE_CLASSES", "classify_context_gating", "stronger_reading_holds", "gate_census", "top_singular_value",
    "context_gating_mismatch", "lp_pattern_feasible",
]


# ---------------------------------------------------------------------------------------------
# Interlacing
# ---------------------------------------------------------------------------------------------
def singular_values(A: np.ndarray) -> np.ndarray:
    """Singular values of ``A`` in descending order (length min(m, n); empty for an empty matrix)."""
    try:
        A = np.asarray(A, dtype=float)
    except (TypeError, ValueError) as exc:          # numpy's "could not convert string to float"
        raise SpecError("A", f"cannot be read as a matrix of real numbers ({exc})",
                        "give a 2-d array of numbers (a SymPy matrix with symbols: substitute values first)") from None
    if A.size == 0:
        return np.zeros(0)
    if A.ndim < 2:                                  # LinAlgError: "at least two-dimensional"
        raise SpecError("A", f"needs a matrix, got shape {A.shape}", "give rows × columns, e.g. [[1, 2], [3, 4]]")
    return np.linalg.svd(A, compute_uv=False)


def top_singular_value(A) -> float:
    """σ₁ of ``A`` (0 for a zero or empty matrix); accepts numpy arrays and SymPy matrices."""
    A = np.array(sp.Matrix(A).evalf(30).tolist(), dtype=float) if isinstance(A, sp.MatrixBase) else A
    s = singular_values(A)
    return float(s[0]) if s.size else 0.0


def _submatrix(A, rows_removed: Iterable[int], cols_removed: Iterable[int]):
    """The rows and columns of ``A`` kept, and how many rows and columns were removed (r, c)."""
    rows_removed, cols_removed = list(rows_removed), list(cols_removed)
    for what, idx, n in (("rows_removed", rows_removed, A.shape[0]), ("cols_removed", cols_removed, A.shape[1])):
        odd = [i for i in idx if isinstance(i, (bool, np.bool_)) or not isinstance(i, numbers.Integral)]
        if odd:     # [0.5] removed nothing and answered True; ['0'] was a TypeError
            raise SpecError(what, f"{idx} holds {odd[0]!r}, not an index", "give integer indices, e.g. [0]")
        if len(set(idx)) != len(idx) or any(not 0 <= i < n for i in idx):     # ignored before
            raise SpecError(what, f"{idx} are not distinct indices in 0…{n - 1}", "give each index once, in range")
    rr, cr = set(rows_removed), set(cols_removed)
    keep_r = [i for i in range(A.shape[0]) if i not in rr]
    keep_c = [j for j in range(A.shape[1]) if j not in cr]
    return keep_r, keep_c, A.shape[0] - len(keep_r), A.shape[1] - len(keep_c)


def _float_matrix(A) -> np.ndarray:
    """``A`` as a 2-d float array, else a SpecError naming ``A`` (a string or a symbol reached numpy's
    "could not convert string to float")."""
    try:
        M = np.asarray(A, dtype=float)
    except (TypeError, ValueError) as exc:
        raise SpecError("A", f"cannot be read as a matrix of real numbers ({exc})",
                        "give a 2-d array of numbers; a matrix with symbols: substitute values first, "
                        "or use interlacing_holds_exact for exact rational entries") from None
    if M.ndim != 2:
        raise SpecError("A", f"needs a 2-d matrix, got shape {M.shape}", "give rows × columns, e.g. [[1, 2], [3, 4]]")
    return M


def interlacing_bounds(A: np.ndarray, rows_removed: Sequence[int], cols_removed: Sequence[int]):
    """``(upper, sigma_B, lower)``: the arrays σ_i(A), σ_i(B), σ_{i+r+c}(A) for i = 1 … min dims of B.

    ``σ_j(A)`` beyond ``min(m, n)`` counts as 0 (the zero padding of Thompson's statement).
    """
    A = _float_matrix(A)
    keep_r, keep_c, r, c = _submatrix(A, rows_removed, cols_removed)
    sA = singular_values(A)
    sB = singular_values(A[np.ix_(keep_r, keep_c)])
    q = sB.size
    pad = np.concatenate([sA, np.zeros(q + r + c)])
    return pad[:q], sB, pad[r + c: r + c + q]


def interlacing_holds(A: np.ndarray, rows_removed: Sequence[int], cols_removed: Sequence[int],
                      tol: float | None = None) -> bool:
    """Whether ``σ_i(A) ≥ σ_i(B) ≥ σ_{i+r+c}(A)`` holds for every i, up to ``tol``.

    ``tol`` defaults to ``32 · eps · max(m, n) · σ₁(A)``: the backward error of a floating-point
    SVD is of order ``eps · ‖A‖₂`` per singular value, so the tolerance scales with the matrix.
    """
    A = _float_matrix(A)
    up, sB, low = interlacing_bounds(A, rows_removed, cols_removed)
    if tol is None:
        tol = 32 * np.finfo(float).eps * max(A.shape) * top_singular_value(A)
    elif not tol >= 0:
        raise SpecError("tol", f"{tol} is not a tolerance ≥ 0", "leave it out (a scale-aware default) or give tol ≥ 0")
    return bool(np.all(up >= sB - tol) and np.all(sB >= low - tol))


def exact_squared_singular_values(A) -> list:
    """Exact squared singular values (eigenvalues of the smaller Gram matrix), descending.

    Entries must be rational; values are exact algebraic numbers (radicals or ``CRootOf``),
    each repeated by its multiplicity, zeros included, length min(m, n).
    """
    A = sp.Matrix(A)
    if A.rows == 0 or A.cols == 0:
        return []
    if A.free_symbols:          # SymPy's "sorted roots not supported over ZZ[x]" (NotImplementedError)
        raise SpecError("A", f"holds the symbols {sorted(map(str, A.free_symbols))}: exact singular values "
                             "are computed for numbers", "substitute numbers first, e.g. A.subs({x: 1})")
    if any(x.is_extended_real is False for x in A):     # AᵀA of a complex A is not its Gram matrix AᴴA:
        raise SpecError("A", "holds non-real entries (a complex matrix)",   # diag(i, 1) gave [1, −1]
                        "give a real matrix; for a complex one use the real form [[Re, −Im], [Im, Re]]")
    G = A.T * A if A.cols <= A.rows else A * A.T
    lam = sp.Symbol("lam")
    try:            # sorted ascending, with multiplicity
        roots = sp.Poly(G.charpoly(lam).as_expr(), lam).real_roots()
    except NotImplementedError:     # SymPy's "sorted roots not supported over EX" ([[√2, 2], [4, 5]])
        raise SpecError("A", "its Gram matrix has irrational entries, whose eigenvalues SymPy cannot isolate exactly",
                        "give rational entries (the exact check is for those), or use interlacing_holds on "
                        "floats") from None
    if len(roots) != G.rows:
        raise ValueError("a Gram matrix must have only real eigenvalues")
    return list(reversed(roots))


def _ge(x, y) -> bool:
    rel = sp.Ge(x, y)
    if rel not in (sp.true, sp.false):
        raise ValueError(f"cannot decide {x} >= {y} exactly")
    return bool(rel)


def interlacing_holds_exact(A, rows_removed: Sequence[int], cols_removed: Sequence[int]) -> bool:
    """Thompson's inequalities, decided exactly on squared singular values (A rational)."""
    A = sp.Matrix(A)
    keep_r, keep_c, r, c = _submatrix(A, rows_removed, cols_removed)
    lA = exact_squared_singular_values(A)
    lB = exact_squared_singular_values(A.extract(keep_r, keep_c)) if keep_r and keep_c else []
    pad = lA + [sp.Integer(0)] * (len(lB) + r + c)
    return all(_ge(pad[i], lB[i]) and _ge(lB[i], pad[i + r + c]) for i in range(len(lB)))


# ---------------------------------------------------------------------------------------------
# Gate patterns of one bias-free ReLU unit on one-hot item + one-hot context
# ---------------------------------------------------------------------------------------------
def gate_pattern(w_item: Sequence[float], w_context: Sequence[float], context_scale: float = 1.0) -> np.ndarray:
    """The unit's n × k pattern ``G[i, c] = 1[w_item[i] + context_scale · w_context[c] > 0]``.

    This is exactly ``relu_gates`` of the unit on the inputs of :func:`theorykit.spec.task.contexts`
    (pre-activation 0 counts as off).
    """
    a, b = _weights(w_item, "w_item", "item"), _weights(w_context, "w_context", "context")
    return (a[:, None] + _context_scale(context_scale) * b[None, :]) > 0


def _context_scale(s) -> float:
    """The scale of the context one-hot, a positive finite number as in a task (``data.context_scale``):
    NaN reached linprog's ValueError, 0 a division by zero and a bare AssertionError in staircase_weights."""
    return real(s, "context_scale", lo=0.0, hi=math.inf, lo_open=True,
                fix="give the context one-hot's scale, a positive number, e.g. context_scale=1.1")


def _weights(w, field: str, per: str) -> np.ndarray:
    """A unit's weights as a 1-d float array, else a SpecError naming ``field``."""
    v = _floats(w, field, f"give one weight per {per}")
    if v.ndim != 1:
        raise SpecError(field, f"needs a 1-d array of weights, got shape {v.shape}", f"give one weight per {per}")
    return v


def pattern_from_gates(gates: Sequence, n: int, k: int) -> np.ndarray:
    """n × k pattern from a gate vector over the P = n·k context-major datapoints (or H × P → H × n × k)."""
    g = np.asarray(gates).astype(bool)
    if g.shape[-1] != n * k:
        raise SpecError("gates", f"expected n·k = {counted(n * k, 'datapoint')} (last axis), got {g.shape[-1]}",
                        "give one gate per datapoint, context-major (P = n·k), or the n and k of the task")
    return np.swapaxes(g.reshape(g.shape[:-1] + (k, n)), -1, -2)


def has_xor_subpattern(pattern: np.ndarray) -> bool:
    """Whether some items i, i' and contexts c, c' give on at (i,c), (i',c') and off at (i,c'), (i',c).

    This is the 2 × 2 pattern the proof of Lemma 4.1 rules out.
    """
    G = binary(pattern, "pattern", pattern=True)  # a flat list was an IndexError, a gate of 2 read as on
    # XOR on rows i, j ⇔ row i ⊄ row j and row j ⊄ row i; not_in[i, j]: row i ⊄ row j
    not_in = (G[:, None, :] & ~G[None, :, :]).any(axis=-1)
    return bool((not_in & not_in.T).any())


def staircase_weights(pattern: np.ndarray, context_scale: float = 1.0):
    """Constructive weights ``(w_item, w_context)`` realising a staircase pattern (the sufficiency proof).

    With columns ranked by descending on-count (rank ρ_c = 0, 1, …) and row i on for its r_i
    highest-ranked columns: ``a_i = r_i − ½``, ``s·b_c = −ρ_c``; then ``a_i + s b_c > 0 ⇔ ρ_c < r_i``.
    Raises SpecError (a ValueError) naming ``pattern`` for a pattern that is not a staircase.
    """
    context_scale = _context_scale(context_scale)
    G = np.asarray(pattern, dtype=bool)
    if not is_staircase(G):
        raise SpecError("pattern", "not a staircase pattern: no bias-free unit realises it (Lemma 4.1)",
                        "check it first with is_staircase(pattern); only a staircase has constructive weights")
    cols = np.argsort(-G.sum(axis=0), kind="stable")
    rank = np.empty(G.shape[1])
    rank[cols] = np.arange(G.shape[1])
    a = G.sum(axis=1) - 0.5
    b = -rank / context_scale
    assert np.array_equal(gate_pattern(a, b, context_scale), G)
    return a, b


def lp_pattern_feasible(X, gates):
    """Whether one bias-free ReLU unit realises ``gates`` on the columns of ``X`` (exact LP feasibility).

    Constraints ``w·x_μ ≥ 1`` where the gate is 1 and ``w·x_μ ≤ 0`` where it is 0 (pre-activation 0
    counts as off). Returns ``(feasible, w or None)``. The LP is posed on the datapoints scaled to unit
    length, which keeps every sign: the solver drops constraint entries below 1e-9 (HiGHS's
    ``small_matrix_value``), so data of scale 1e-10, or one datapoint that small, lost its constraints."""
    from scipy.optimize import linprog

    X = np.asarray(X, float)
    g = np.asarray(gates, bool)
    Xu = unit_columns(X)
    A = np.where(g[:, None], -Xu.T, Xu.T)
    b = np.where(g, -1.0, 0.0)
    res = linprog(np.zeros(X.shape[0]), A_ub=A, b_ub=b, bounds=[(None, None)] * X.shape[0], method="highs")
    if res.status == 0:
        w = res.x
        if g.any():             # w·x_μ ≥ |x_μ| > 0 on: scaled up to ≥ 1 on the data as given
            w = w * max(1.0, float(np.max(1.0 / (w @ X[:, g]))))
        return True, w
    if res.status == 2:
        return False, None
    raise RuntimeError(f"linprog failed: {res.message}")


def lp_realisable(pattern: np.ndarray, context_scale: float = 1.0):
    """Decide by linear programming whether one bias-free unit realises ``pattern``.

    Feasibility of ``a_i + s b_c ≥ 1`` (on) and ``a_i + s b_c ≤ 0`` (off): a strict inequality
    ``> 0`` on finitely many points can be scaled up to ``≥ 1``, so this is exact. Returns
    ``(feasible, (w_item, w_context) or None)``. It is :func:`lp_pattern_feasible` on the inputs
    ``[e_i; s e_c]`` of the n·k datapoints (item-major here; the order does not change feasibility).
    """
    G = binary(pattern, "pattern", pattern=True)  # a gate of 2 was read as on, a flat list failed to unpack its shape
    n, k = G.shape
    X = np.vstack([np.repeat(np.eye(n), k, axis=1), _context_scale(context_scale) * np.tile(np.eye(k), n)])
    ok, w = lp_pattern_feasible(X, G.ravel())
    return ok, (w[:n], w[n:]) if ok else None


def realisable_gate_patterns(n: int, k: int) -> set:
    """Every n × k pattern one bias-free ReLU unit can produce, by enumerating weight orderings.

    A pattern ``1[a_i > t_c]`` (``t_c = −s b_c``) depends only on how the values a_i and t_c
    interleave, ties counting as off. Rank the distinct thresholds 0, 1, …; each t_c gets a rank
    in {0 … k−1} and each a_i the number of threshold ranks below it, in {0 … k}. Enumerating all
    ``k^k (k+1)^n`` such integer assignments therefore reaches every realisable pattern, and
    every assignment is itself a realisable choice of weights. Patterns are returned as
    bytes of the row-major boolean n × k array (``np.frombuffer(p, bool).reshape(n, k)``).
    """
    n, k = _sizes(n, k)
    orderings, text = product_count((k, k), (k + 1, n))
    if orderings is None or orderings > REALISABLE_MAX_ORDERINGS:     # (10, 4): 2.5e9 orderings looped in Python
        raise SpecError("n, k", f"realisable_gate_patterns(n={int_text(n)}, k={int_text(k)}) would enumerate "
                                f"k^k·(k+1)^n = {text} weight orderings, over the bound of "
                                f"{REALISABLE_MAX_ORDERINGS:,} (REALISABLE_MAX_ORDERINGS in "
                                "theorykit.spec.limits)",
                        "lower n or k (e.g. n = 9, k = 3 or n = 6, k = 4); to decide one pattern use "
                        "lp_realisable(pattern) or is_staircase(pattern), and to count the realisable patterns "
                        "poly_bernoulli(n, k)")
    out = set()
    a_all = np.array(list(itertools.product(range(k + 1), repeat=n)), dtype=np.int8)  # (A, n)
    for t in itertools.product(range(k), repeat=k):
        G = a_all[:, :, None] > np.array(t, dtype=np.int8)[None, None, :]             # (A, n, k)
        out.update(g.tobytes() for g in np.ascontiguousarray(G))
    return out


def _sizes(n, k, lo: int = 1) -> tuple:
    """``(n, k)``: numbers of items and contexts, integers (numpy's too) of at least ``lo``."""
    return tuple(integer(v, f, lo=lo, fix=f"a whole number of {what}, e.g. {f}=2")
                 for f, v, what in (("n", n, "items"), ("k", k, "contexts")))


def all_patterns(n: int, k: int) -> np.ndarray:
    """All 2^(n·k) boolean n × k patterns, shape (2^(nk), n, k)."""
    n, k = _sizes(n, k)                 # n = −1: numpy's "can only specify one unknown dimension"
    m = n * k
    if m > ALL_PATTERNS_MAX.bit_length() - 1:       # (10, 4): 2^40 × 40 bytes asked of numpy
        bound = ALL_PATTERNS_MAX.bit_length() - 1
        raise SpecError("n, k", f"all_patterns(n={int_text(n)}, k={int_text(k)}) would build 2^(n·k) = "
                                f"{'2^' + str(m) + ' = ' if m < 10 ** 18 else ''}{product_count((2, m))[1]} patterns "
                                f"of n·k booleans each, over the bound of 2^{bound} = {ALL_PATTERNS_MAX:,} "
                                "(ALL_PATTERNS_MAX in theorykit.spec.limits)",
                        f"lower n·k to at most {bound}; to decide one pattern use lp_realisable(pattern) or "
                        "is_staircase(pattern), to count the realisable ones poly_bernoulli(n, k)")
    idx = np.arange(2 ** m, dtype=np.int64)[:, None]
    bits = ((idx >> np.arange(m)) & 1).astype(bool)
    return bits.reshape(-1, n, k)


def _about(x: float) -> str:
    return f"about {x:.3g}" if x < 1e300 else "over 1e300"


def _stirling2(n: int, k: int) -> int:
    return int(sp.functions.combinatorial.numbers.stirling(n, k, kind=2))


def poly_bernoulli(n: int, k: int) -> int:
    """Poly-Bernoulli number ``B_n^(−k) = Σ_m (m!)² S(n+1, m+1) S(k+1, m+1)``.

    It counts the n × k "lonesum" binary matrices (Brewbaker 2008), i.e. those without a 2 × 2
    XOR sub-pattern, i.e. (as the tests check) the gate patterns one bias-free unit realises.
    B_2^(−2) = 14: all 16 two-by-two patterns but the two XOR ones.
    """
    n, k = _sizes(n, k, lo=0)
    work, bits = poly_bernoulli_work(n, k)
    if work > POLY_BERNOULLI_MAX_WORK or bits > POLY_BERNOULLI_MAX_BITS:     # (10^6, 10^6): years
        raise SpecError("n, k", f"poly_bernoulli(n={int_text(n)}, k={int_text(k)}) needs Stirling numbers S(N, K) "
                                f"up to N = max(n, k) + 1, K = min(n, k) + 1: {_about(work)} big-integer word "
                                f"operations on integers of {_about(bits)} bits, over the bound of "
                                f"{POLY_BERNOULLI_MAX_WORK:.3g} operations and {POLY_BERNOULLI_MAX_BITS:.3g} bits "
                                "(POLY_BERNOULLI_MAX_WORK and POLY_BERNOULLI_MAX_BITS in theorykit.spec.limits)",
                        "lower n or k (n = k = 500 is admitted, about 10 s; so are n = 10^5 with k = 3 and "
                        "n = 10^7 with k = 1)")
    return sum(math.factorial(m) ** 2 * _stirling2(n + 1, m + 1) * _stirling2(k + 1, m + 1)
               for m in range(min(n, k) + 1))


#: the classes of :func:`classify_context_gating`, in report order (those of the one unit-gate classifier)
GATE_CLASSES = LEMMA_CLASSES


def classify_context_gating(pattern, n: int, k: int) -> str:
    """Class of one unit's gate pattern on the n-item, k-context task.

    ``pattern`` is an n × k array or a gate vector over the P = n·k context-major datapoints.
    Classes (first that applies): ``"dead"`` (never on), ``"always-on"``, ``"context-only"``
    (on for whole contexts: every column constant), ``"single-datapoint"`` (on for exactly one
    datapoint), ``"item-only"`` (on for whole items in every context: every row constant),
    ``"other-staircase"`` (realisable, none of the above) and ``"not-staircase"`` (no bias-free
    unit realises it; never produced by a network of :mod:`theorykit.sim.simulation`). Read by the one
    unit-gate classifier, :meth:`theorykit.theory.gates.UnitGates.lemma_classes`.
    """
    n, k = _sizes(n, k)
    G = binary(pattern, "pattern")
    if G.ndim == 1:
        if G.size != n * k:
            raise SpecError("pattern", f"{counted(G.size, 'gate')} for {counted(n, 'item')} × {counted(k, 'context')}",
                              f"give {counted(n * k, 'gate')}, context-major")
        G = pattern_from_gates(G, n, k)
    if G.shape != (n, k):
        raise SpecError("pattern", f"expected an {n} × {k} pattern, got shape {G.shape}", "give items × contexts")
    return str(UnitGates(G.T.reshape(1, n * k), blocks=k).lemma_classes()[0])


def stronger_reading_holds(pattern, n: int, k: int) -> bool:
    """The paper's informal Lemma 4.1: the unit "gates on context alone or on a single datapoint".

    True for dead, always-on, context-only and single-datapoint patterns. (False in general:
    see ``docs/lemmas.md`` and the pinned counterexample in ``tests/test_lemmas.py``.)
    """
    return classify_context_gating(pattern, n, k) in ("dead", "always-on", "context-only", "single-datapoint")


def gate_census(gates: np.ndarray, n: int, k: int) -> dict:
    """Counts of :data:`GATE_CLASSES` over units; ``gates`` is H × P (or seeds × H × P), context-major."""
    n, k = _sizes(n, k)
    G = binary(gates)
    if G.ndim < 2 or G.shape[-1] != n * k:
        raise SpecError("gates", f"shape {G.shape}: the last axis must be the {counted(n * k, 'datapoint')} (n·k)",
                        "give units × datapoints (transpose datapoints × units)")
    cls = UnitGates(G.reshape(-1, n * k), blocks=k).lemma_classes()
    return {c: int(np.sum(cls == c)) for c in GATE_CLASSES}


def context_gating_mismatch(pre: np.ndarray, n: int, k: int) -> np.ndarray:
    """Per unit: how far its ReLU gating is, in activity, from the nearest context-only gating.

    ``pre`` is H × P pre-activations (context-major datapoints). Gating unit j on a whole context c
    instead of by its sign changes its output on the datapoints of c by ``|pre|`` where ``pre < 0``;
    gating it off for c removes ``pre`` where ``pre > 0``. The cost of the best choice per context,
    summed over contexts and divided by ``Σ_μ |pre_jμ|``, is returned (0: the unit is exactly
    context-gated; units with all-zero pre-activations get 0).
    """
    n, k = _sizes(n, k)
    pre = _floats(pre, "pre", "give H × P pre-activations as an array")
    if pre.ndim < 1 or pre.shape[-1] != n * k:          # reshape's error, or a transposed P × H read as other units
        raise SpecError("pre", f"shape {pre.shape}: the last axis must be the {counted(n * k, 'datapoint')} (n·k)",
                        "give units × datapoints (transpose datapoints × units)")
    pre = pre.reshape(-1, k, n)                                    # H × k × n
    neg = np.maximum(-pre, 0).sum(axis=2)                          # cost of "on for context c"
    pos = np.maximum(pre, 0).sum(axis=2)                           # cost of "off for context c"
    cost = np.minimum(neg, pos).sum(axis=1)
    total = np.abs(pre).sum(axis=(1, 2))
    return np.divide(cost, total, out=np.zeros_like(cost), where=total > 0)
