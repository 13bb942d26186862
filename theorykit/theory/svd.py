"""The exact SVD of a matrix (:func:`exact_svd`): rational matrices through the exact engine
(:mod:`theorykit.theory.exactla`), symbolic ones through their Gram matrix's eigenvectors, in the
package's conventions (descending singular values, the first non-zero entry of each v positive).
"""
from __future__ import annotations
from typing import Mapping
import mpmath
import numpy as np
import sympy as sp
from sympy.polys.matrices import DomainMatrix
from ..errors import DerivationError, SpecError
from ..io import cut
from ..spec.expr import to_exact
from ..spec.fields import integer, short_repr, type_name
from .exact_values import X
from .exactla import _components, _spread, rational_parts, rational_svd

from .modes import (NULLSPACE_SIMPLIFY_MAX_OPS, SVD, Mode, _is_zero_at_random_points, is_zero, num, reference_values,
                    tidy)

__all__ = ["exact_svd", "generic_reference", "input_power", "zero_variance"]

#: how many candidate reference points :func:`generic_reference` tries before it keeps the first
REFERENCE_TRIES = 4


def _symbolic(m: Mode) -> bool:
    return m.raw is None and bool(sp.sympify(m.s).free_symbols or m.v_untidied.free_symbols)


def ambiguity(svds: Mapping, ref: dict) -> str | None:
    """Why the conventions of the SVDs ``{name: SVD}`` are arbitrary at ``ref``, or None where they are not.

    They are where two singular values coincide there without being identically equal (their order
    is a tie, broken by discovery), where a singular value vanishes there (a rank drop: its vectors
    are 0/0), or where an entry of a right singular vector v before the one that fixes its sign
    vanishes there without being identically zero (the first non-zero entry of v, made positive, is
    another entry elsewhere). Coincidences are looked for across pathways too (the ranking)."""
    named = [((n, k), m, m.s_float(ref)) for n, svd in svds.items() for k, m in enumerate(svd.modes)]
    if not any(_symbolic(m) for _, m, _ in named):
        return None

    def mode(key, m):
        return f"mode {key[1] + 1} of pathway {key[0]!r} (s = {cut(m.s_text)})"
    scale = max([abs(x) for _, _, x in named] + [1e-300])
    for key, m, x in named:
        if _symbolic(m) and abs(x) <= 1e-12 * scale:
            return f"the singular value of {mode(key, m)} is 0 (a rank drop)"
    ordered = sorted(named, key=lambda it: -it[2])
    for (k1, m1, x1), (k2, m2, x2) in zip(ordered, ordered[1:]):
        if (_symbolic(m1) or _symbolic(m2)) and abs(x1 - x2) <= 1e-12 * scale and not is_zero(m1.s - m2.s):
            return (f"the singular values of {mode(k1, m1)} and of {mode(k2, m2)} coincide, not identically: "
                    "their order can change across such a point")
    for key, m, _ in named:
        if not _symbolic(m):
            continue
        for i, x in enumerate(m.v_untidied):
            if abs(num(x, ref)) > 1e-12:
                break
            if x != 0 and not is_zero(x):
                return (f"entry {i} of the right singular vector v of {mode(key, m)} is 0, not identically: the sign "
                        "convention (first non-zero entry of v positive) can change across such a point")
    return None


class _PointError(DerivationError):
    """A :class:`DerivationError` decided by a value at the candidate reference point only (a root of a
    Gram matrix that vanishes there, evaluated a rounding below 0): :func:`generic_reference` passes
    over such a point, and raises the error where it holds at every candidate."""


def zero_variance(svds: Mapping, ref: dict, power: float) -> str | None:
    """Why the modes of ``svds`` (``{name: SVD}``, with their input variances) are degenerate at ``ref``, or
    None: where a mode's ``d = vᵀ Σx v`` is at most 1e-14 of the input power ``power`` (``‖X‖_F² / P``) there,
    the bound below which :class:`~theorykit.theory.derivation.Derivation` refuses it ("zero input
    variance"). With symbols, that can be a point near a special one (inputs ``a`` and ``7/10 + 1/10⁸``,
    singular at a = 7/10 + 10⁻⁸, give d ≈ 10⁻¹⁶ at a = 7/10), not the data."""
    for n, svd in svds.items():
        for k, m in enumerate(svd.modes):
            if m.d_float(ref) <= 1e-14 * power:
                return (f"the input variance d of mode {k + 1} of pathway {n!r} (s = {cut(m.s_text)}) is 0 "
                        f"there (to 1e-14 of the input power, {power:.6g})")
    return None


def input_power(task, ref: dict) -> float:
    """``‖X‖_F² / P`` of ``task`` at the values ``ref``: a bound on every ``d = vᵀ Σx_p v`` (``‖v‖ = 1``)."""
    X, _ = task.numeric(ref)
    return float(np.sum(X ** 2)) / max(task.P, 1)


def generic_reference(symbols, avoid, derive, tries: int = REFERENCE_TRIES, task=None) -> tuple:
    """``(point, svds, note)``: the first candidate reference point of :func:`reference_values` (skipping
    0, 1, … of them) at which the SVDs ``svds = derive(point)`` (``{name: SVD}``) have conventions that
    are not arbitrary (:func:`ambiguity`), where ``derive`` raises no error decided at the point alone
    (:class:`_PointError`: a root of a Gram matrix that vanishes there came out a rounding below 0) and,
    given the ``task`` (``svds`` then carry input variances), no mode's input variance vanishes there
    (:func:`zero_variance`). ``note`` is None at the first candidate (an ordinary point: nothing changes);
    else it names the point passed over and why, or, where every candidate was ambiguous, says that the
    order and signs at the first candidate, kept, are arbitrary. An error at every candidate is raised
    (the first one); a zero input variance at every candidate is left to the caller (at the first)."""
    passed, kept, error = None, None, None       # the first candidate passed over; the first one derived
    for k in range(tries if symbols else 1):
        ref = reference_values(symbols, avoid=avoid, skip=k)
        try:
            svds = derive(ref)
        except _PointError as exc:
            error = error or exc
            passed = passed or (ref, f"the exact SVD fails there ({cut(exc.message, 100)}: a root of a Gram matrix "
                                     "that vanishes there, a rank drop, came out a rounding below 0)")
            continue
        why = None if not symbols else (ambiguity(svds, ref) or (
            zero_variance(svds, ref, input_power(task, ref)) if task is not None else None))
        if why is None:
            note = None if passed is None else (
                f"the reference point is {_text(ref)}: at the first candidate, {_text(passed[0])}, {passed[1]}; the "
                f"order of the modes and the signs of their vectors are those at {_text(ref)}, and hold where they "
                "are the same as there: pass --set NAME=VALUE (values=) to derive at your values")
            return ref, svds, note
        passed = passed or (ref, why)
        kept = kept or (ref, svds, why)
    if kept is None:
        raise error
    return kept[0], kept[1], (f"at the reference point {_text(kept[0])}, {kept[2]}, and at the {tries - 1} "
                              "next candidate points the conventions are arbitrary too: the order of the modes "
                              "and the signs of their vectors are one choice; pass --set NAME=VALUE (values=) "
                              "to derive at your values")


def _text(ref: dict) -> str:
    return "{" + ", ".join(f"{k} = {v}" for k, v in sorted(ref.items(), key=lambda kv: str(kv[0]))) + "}"


def _eigen_gram(G: sp.Matrix, ref):
    """Positive eigenvalues of a PSD Gram matrix with orthonormal eigenvectors.

    Returns a list of (λ, [(vector, norm)], exact_vectors): the unit eigenvectors are vector / norm
    (norm 1 where the vector is normalised already).
    """
    n = G.rows
    cp = G.charpoly(sp.Dummy("x") if G.free_symbols else X)
    _, factors = cp.factor_list()
    found = []
    symbolic = bool(G.free_symbols)
    quadratic = set()                    # roots of a 2 × 2 Gram over the symbols: eigenvectors in closed form
    for fp, _mult in factors:
        deg = fp.degree()
        if deg == 0:
            continue
        if deg == 2 and symbolic and fp.get_domain().is_EX:
            # symbols mixed with surds: the quadratic formula, where SymPy's roots spends seconds
            # trying to rescale the coefficients to rational ones
            a2, a1, a0 = (sp.expand(c) for c in fp.all_coeffs())
            if is_zero(a0):
                rts = [-a1 / a2]                        # rank one: the roots 0 and a + c (0 is dropped)
            else:
                root = sp.sqrt(sp.expand(a1 ** 2 - 4 * a2 * a0))
                rts = [(-a1 + root) / (2 * a2), (-a1 - root) / (2 * a2)]
        elif deg <= 2 or (deg <= 4 and not symbolic):
            rts = sp.roots(fp, multiple=True)
            # radicals only where they are real surds: a cubic with three real roots
            # (casus irreducibilis) would need complex radicals, so keep CRootOf there
            if len(rts) != deg or (deg > 2 and any(r.has(sp.I) or sp.count_ops(r) > 40 for r in rts)):
                rts = None
        else:
            rts = None
        if rts is None:
            if symbolic:
                raise DerivationError(
                    f"the Gram matrix has an irreducible factor of degree {deg} in the symbols; "
                    "no closed-form singular values", fix="substitute numbers for the symbols (--set NAME=VALUE)")
            if not fp.get_domain().is_Exact or fp.get_domain().is_EX or fp.get_domain().is_AlgebraicField:
                # CRootOf needs rational coefficients; irrational entries (sqrt(2), ...) give a factor
                # over an algebraic domain: say so instead of guessing or failing inside SymPy
                raise DerivationError(
                    f"the Gram matrix has an irreducible factor of degree {deg} with irrational coefficients "
                    f"({fp.get_domain()}); exact singular values are not supported for it",
                    fix="use rational entries in the data (a decimal such as 1.4142 is exact), or "
                        "theorykit.linalg.numeric_svd for numbers")
            rts = [sp.CRootOf(fp, i) for i in range(deg)]
        for r in dict.fromkeys(rts):
            if r == 0 or (not symbolic and abs(num(r, ref)) < 1e-14):
                continue
            if num(r, ref) < 0:
                raise _PointError(f"negative eigenvalue {r} of a Gram matrix")
            found.append(r)
            if symbolic and deg == 2 and n == 2 and abs(num(G[0, 1], ref)) > 1e-12:
                quadratic.add(r)
    out = []
    for r in dict.fromkeys(found):
        if r.has(sp.CRootOf):
            # exact value, numeric vectors at high precision
            with mpmath.workdps(60):
                A = mpmath.matrix([[mpmath.mpf(str(sp.N(G[i, j], 60))) for j in range(n)] for i in range(n)])
                E, Q = mpmath.eigsy(A)
                val = mpmath.mpf(str(sp.N(r, 60)))
                scale = max(abs(E[j]) for j in range(n))
                vecs = [sp.Matrix([sp.Float(str(Q[i, j]), 40) for i in range(n)])
                        for j in range(n) if abs(E[j] - val) < mpmath.mpf("1e-35") * scale]
            if not vecs:
                raise DerivationError(f"no eigenvector found for the eigenvalue {r}")
            out.append((r, [(x, 1) for x in vecs], False))
            continue
        if r in quadratic:
            # G = [[a, b], [b, c]] over the symbols with b ≠ 0 (at the reference point): its two
            # eigenvalues differ ((a − c)² + 4b² > 0), each is simple, and (b, λ − a) spans its
            # eigenspace, as (a − λ)b + b(λ − a) = 0 and b² + (c − λ)(λ − a) = −(λ² − (a + c)λ + ac − b²)
            # = 0. Exact, with no pivot to decide: SymPy's null space of a matrix mixing symbols and
            # radicals takes seconds to tens of seconds here (rational data with surds keeps the null
            # space, faster there: its simpler vectors make the later steps cheaper).
            vec = sp.Matrix([G[0, 1], sp.expand(r - G[0, 0])])
            # the squared norm from the squares (vec.dot(vec) multiplies the two roots of the
            # quadratic term by term, which SymPy takes seconds to flatten)
            out.append((r, [(vec, sp.sqrt(sp.expand(vec[0] ** 2 + vec[1] ** 2)))], True))
            continue
        N = (G - r * sp.eye(n)).applyfunc(lambda x: sp.radsimp(sp.expand(x)))
        basis = _field_nullspace(N)         # entries rational functions of the symbols: over QQ(symbols)
        if basis is None and sum(sp.count_ops(x) for x in N) <= NULLSPACE_SIMPLIFY_MAX_OPS:
            basis = N.nullspace(simplify=True)
        elif basis is None:
            # large symbolic entries: SymPy's simplify-based pivoting has no time bound; decide
            # pivots by evaluation at random parameter values instead (exact arithmetic kept)
            basis = N.nullspace(iszerofunc=_is_zero_at_random_points)
        if not basis:
            raise DerivationError(f"could not find the null space for eigenvalue {r}")
        vecs = sp.GramSchmidt(basis, orthonormal=True)        # exact; tidied when shown (Mode.u/.v)
        out.append((r, [(x, 1) for x in vecs], True))
    return out


def _field_nullspace(N: sp.Matrix) -> list | None:
    """SymPy's ``N.nullspace()``, the same vectors (1 at each free column, read off the unique reduced row
    echelon form), computed over the field of rational functions with rational coefficients in N's symbols
    (``QQ(gamma)``) where every entry of N is such a function; None otherwise (surds, roots of polynomials in
    the symbols: SymPy's own null space then). Exact, and generic in the symbols as SymPy's is (a pivot is
    non-zero as a rational function). ``contexts(4, 3, context_scale=gamma)``'s common pathway: a 7 × 7 Gram
    matrix whose eigenvalues are polynomials in gamma; ``nullspace(simplify=True)`` took 41 s for one of them
    (most of the derivation), this 0.05 s."""
    dm = DomainMatrix.from_Matrix(N)
    dom = dm.domain
    if not (dom.is_ZZ or dom.is_QQ or ((dom.is_PolynomialRing or dom.is_FractionField) and (dom.dom.is_ZZ or dom.dom.is_QQ)
                                       and all(isinstance(g, sp.Symbol) for g in dom.symbols))):
        return None         # a generator such as exp(gamma) would be taken as independent of gamma
    null = dm.to_field().nullspace(divide_last=True).to_Matrix()
    return [null[i, :].T for i in range(null.rows)]


def _image(B: sp.Matrix, vec: sp.Matrix, norm, s) -> sp.Matrix:
    """``B (vec/norm) / s``: the other singular vector. With a norm (an unnormalised eigenvector of
    a quadratic's root) ``B vec`` is built from expanded products and scaled once: SymPy's own
    product of such nested radicals takes seconds."""
    if norm == 1:
        return B * vec / s
    # entry by entry, each product expanded: SymPy's matrix product of these entries takes seconds
    image = [sp.expand(sp.Add(*[sp.expand(B[i, j] * vec[j]) for j in range(B.cols)])) for i in range(B.rows)]
    return sp.Matrix(image) / (norm * s)


def _placed(b: sp.Matrix, idx, n: int) -> sp.Matrix:
    """The block vector ``b`` placed at rows ``idx`` of an n-vector (zeros elsewhere)."""
    return sp.Matrix(_spread(b, idx, n, sp.S.Zero))


def _sign_fix(u: sp.Matrix, v: sp.Matrix, ref):
    for x in v:
        val = num(x, ref)
        if abs(val) > 1e-12:
            return (u, v) if val > 0 else (-u, -v)
    return u, v


def _scaled_blocks(B: sp.Matrix, cache) -> list | None:
    """The modes of a block whose every column (or every row) is a rational vector times √q, q
    rational, as the contexts task's ``context_scale = "sqrt(2)"`` makes them; ``None`` otherwise.

    Then B = R·D (or D·R) with R rational and D diagonal, D² rational, and the Gram matrix on the
    other side, R D² Rᵀ = B Bᵀ (or Rᵀ D² R = BᵀB), is rational. Its eigenvectors and eigenvalues s²
    come from the exact engine; the vectors of the other side are Bᵀu/s (or Bv/s). SymPy's null
    space of the irrational Gram matrix took 54 s per eigenvalue on an 18 × 18 block (contexts,
    n = 16, k = 2)."""
    for by_cols in (True, False):
        lines = [B[:, j] for j in range(B.cols)] if by_cols else [B[i, :].T for i in range(B.rows)]
        R, q = [], []
        for x in lines:
            e = next(y for y in x if y != 0)            # a connected block has no zero line
            e2 = sp.expand(e ** 2)
            ratios = [sp.radsimp(y / e) for y in x] if e2.is_Rational else ()   # symbols: no radsimp
            if not (ratios and all(r.is_Rational for r in ratios)):
                break
            R.append(ratios)
            q.append(e2)
        else:
            Rm = sp.Matrix(R).T                          # column j: the rational direction of line j
            G = Rm * sp.diag(*q) * Rm.T                  # B Bᵀ (by columns) or BᵀB (by rows)
            A = B.T if by_cols else B                    # from G's eigenvectors to the other side
            blocks = []
            for r in rational_svd(*rational_parts(G), cache):
                s = tidy(sp.sqrt(r.s.expr()))
                x_b = r.u.sympy()
                y_b = _image(A, x_b, 1, s)
                blocks.append((s, x_b, y_b, True, ("plain", "rad")) if by_cols else (s, y_b, x_b, True, ("rad", "plain")))
            return blocks
    return None


def _matrix(M) -> sp.Matrix:
    """``M`` as a SymPy matrix, or an error naming ``M``."""
    if isinstance(M, np.ndarray) and M.dtype.kind == "f" and not np.isfinite(M).all():
        raise SpecError("M", "holds NaN or infinite entries", "give a real matrix with finite entries")
    try:
        out = sp.Matrix(M)
    except (TypeError, ValueError, NotImplementedError, sp.SympifyError):
        out = None
    if out is None or not all(isinstance(x, sp.Expr) for x in out):
        raise SpecError("M", f"cannot be read as a matrix of numbers: {type_name(M)} {short_repr(M)}",
                        "give a 2-d array, nested lists or a SymPy Matrix (or (B, den): integers B over den)")
    floats = {f for x in out for f in x.atoms(sp.Float)}
    if floats:     # read as the decimals they print as (0.1 → 1/10), as spec files' numbers are
        if any(f._prec > 53 for f in floats):
            raise SpecError("M", f"holds floats of more than double precision ({short_repr(max(floats, key=lambda f: f._prec))})",
                            "give exact numbers: sp.Rational or sp.sqrt(...)")
        exact = {f: to_exact(float(f), "M") for f in floats}
        out = out.applyfunc(lambda x: x.xreplace(exact))
    return out


def exact_svd(M, reference: Mapping | None = None, cache: dict | None = None) -> SVD:
    """Exact SVD of ``M`` (see the module docstring for method and conventions).

    Float entries are read as the decimals they print as (0.1 → 1/10, as a spec file's numbers are).
    A matrix with rational entries goes to the exact engine of :mod:`theorykit.theory.exactla` (FLINT);
    ``cache`` (a dict) lets calls share the SVDs of identical blocks. ``M`` may also be given as
    ``(B, den)``: an integer numpy array and a common denominator.

    >>> import sympy as sp
    >>> exact_svd(sp.Matrix([[1, 1, 0], [0, 0, 2]])).singular_values
    [2, sqrt(2)]
    """
    if isinstance(M, tuple) and M and isinstance(M[0], np.ndarray):
        if len(M) != 2 or M[0].ndim != 2 or M[0].dtype.kind not in "iuO":
            raise SpecError("M", f"(B, den) needs B a 2-d integer array and den, got {len(M)} items, B of dtype "
                            f"{M[0].dtype}, shape {M[0].shape}",
                            "give the matrix itself, or integers B over a common denominator den")
        B = M[0]
        if B.dtype == object:      # Python integers, each checked: int() would truncate 0.5 or Fraction(1, 2) to 0
            bad = [x for x in B.flat if not isinstance(x, (int, np.integer, sp.Integer))]
            if bad:
                raise SpecError("M", f"(B, den) needs B's entries integers, got {short_repr(bad[0])} ({type_name(bad[0])})",
                                "give the matrix itself (rationals are read exactly), or integers B over a common "
                                "denominator den")
            B = np.frompyfunc(int, 1, 1)(B).astype(object)     # Python integers: np.int64 entries would wrap around
        parts, shape = (B, integer(M[1], "M", lo=1, fix="(B, den): den a positive integer")), B.shape
    else:
        M = _matrix(M)
        parts, shape = (None if M.free_symbols else rational_parts(M)), M.shape
    if parts is not None:
        raws = rational_svd(parts[0], parts[1], cache)
        return SVD(tuple(Mode(raw=r) for r in raws), tuple(shape), dict(reference or {}))
    if M.has(sp.nan, sp.zoo, sp.oo, -sp.oo, sp.I):
        raise SpecError("M", "holds NaN, infinite or complex entries", "give a real matrix with finite entries")
    M = M.applyfunc(sp.expand)
    if reference:
        return _symbolic_svd(M, dict(reference), cache)
    return generic_reference(M.free_symbols, list(M), lambda ref: {"M": _symbolic_svd(M, ref, cache)})[1]["M"]


def _symbolic_svd(M: sp.Matrix, ref: dict, cache) -> SVD:
    """The SVD of a matrix with symbols, its conventions (order, signs) decided at ``ref``."""
    modes = []
    for rows, cols in _components(np.array([x != 0 for x in M], dtype=bool).reshape(M.shape)):
        B = M.extract(rows, cols)
        parts = rational_parts(B) if not B.free_symbols else None
        if parts is not None:
            # a numeric block of a symbolic matrix: the exact engine
            for r in rational_svd(parts[0], parts[1], cache):
                u, v = _placed(r.u.sympy(), rows, M.rows), _placed(r.v.sympy(), cols, M.cols)
                modes.append(Mode(r.s.expr(), u, v, None, r.exact_vectors))
            continue
        if B.rows == 1 or B.cols == 1:
            s = tidy(sp.sqrt(sum(x ** 2 for x in B)))
            if B.rows == 1:
                u_b, v_b = sp.Matrix([1]), B.T / s              # tidied when shown (Mode.u/.v)
            else:
                u_b, v_b = B / s, sp.Matrix([1])
            blocks = [(s, u_b, v_b, True, ("plain", "plain"))]
        elif (scaled := _scaled_blocks(B, cache)) is not None:
            blocks = scaled
        else:
            # the Gram matrix on the smaller side: AᵀA with A = B (eigenvectors v) or A = Bᵀ (eigenvectors u)
            blocks = []
            on_v = B.cols <= B.rows
            A = B if on_v else B.T
            for lam, vecs, ex in _eigen_gram((A.T * A).applyfunc(sp.expand), ref):
                s = tidy(sp.sqrt(lam))
                for x_b, norm in vecs:
                    y_b, x_b = _image(A, x_b, norm, s), x_b / norm
                    y_b = y_b if ex else y_b.applyfunc(lambda x: sp.N(x, 30))
                    blocks.append((s, y_b, x_b, ex, ("plain", "rad")) if on_v else (s, x_b, y_b, ex, ("rad", "plain")))
        for s, u_b, v_b, ex, kinds in blocks:
            u, v = _sign_fix(_placed(u_b, rows, M.rows), _placed(v_b, cols, M.cols), ref)
            modes.append(Mode(s, u, v, None, ex, uv_pending=kinds if ex else False))
    # stable order: by value, descending; ties keep discovery order
    modes = sorted(modes, key=lambda m: -num(m.s, ref))
    return SVD(tuple(modes), (M.rows, M.cols), ref)
