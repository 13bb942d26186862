"""Closed-form mode trajectories of a two-layer deep linear pathway (docs/theory.md#mode-ode).

For a mode with singular value ``s`` and input variance ``d``, balanced and aligned
weights of mode strength ``a`` obey ``τ da/dt = 2a(s − d a)``, solved by the logistic

    a(t) = (s/d) / (1 + (s/(d a0) − 1) · exp(−2 s t / τ)),

written ``1 / (e^{−2st/τ}/a0 + (d/s)(1 − e^{−2st/τ}))`` (the same expression). This form is numerically
stable: ``exp`` only ever sees a non-positive argument for t ≥ 0, so there is no inf/inf at large t,
every term of the denominator is ≥ 0 for any ``a0 > 0`` (below or above the end point ``s/d``), and
it holds no s/d, so where s and d vanish together with d/s → 0 (the XoR "linear" ReLN at Δ = 0) it is
a0, not ∞/∞. Near s = 0 with d fixed it is a 0/0 (1 − e^{−2st/τ} over s); in JAX (any
argument a JAX array, or ``exp`` from JAX) it is written as ``1/(d (1 − e^{−u})/s + e^{−u}/a0)`` with
the 0/0 taken by its series, so values and derivatives keep their digits there. Each mode lowers
the loss by ``s a − ½ d a²``, which is ``s²/(2d) − ½ d g²`` with the gap ``g = s/d − a``. Numbers
follow the second form: the gap has its
own closed form (:func:`mode_gap`) and recurrence (:func:`discrete_mode_gap`), so a loss far below
its start keeps its digits instead of cancelling to 0 near 1e-16 of L(0). The symbolic loss
(``Derivation.loss``) follows it too, with the gap as a fraction of the end point
(:func:`mode_gap_fraction`).
"""
from __future__ import annotations

import numbers

import numpy as np
import sympy as sp

from ..errors import SpecError
from ..spec.fields import integer, short_repr, type_name
from .modes import SIMPLIFY_MAX_OPS, is_large, tidy

__all__ = ["t", "tau", "a0", "mode_trajectory", "mode_ode_residual", "t_half", "mode_loss_reduction",
           "discrete_mode_recurrence", "deep_mode_rhs", "mode_gap", "mode_gap_fraction", "discrete_mode_gap",
           "closed_form_loss"]

#: time in gradient steps
t = sp.Symbol("t", nonnegative=True)
#: time constant: 1/η for the mean loss, 1/(Pη) for the summed loss
tau = sp.Symbol("tau", positive=True)
#: initial mode strength
a0 = sp.Symbol("a_0", positive=True)


def _arg(v, name: str, positive: bool = False):
    """A number, a SymPy expression or an array (lists become arrays); ``positive``: a scalar number
    must be > 0 (symbols and arrays pass)."""
    if isinstance(v, (list, tuple)):
        return np.asarray(v, dtype=float)
    if v is None or isinstance(v, (str, bytes, bool, dict, set)):
        raise SpecError(name, f"needs a number, a SymPy expression or an array, got {type_name(v)} {short_repr(v)}",
                        f"e.g. {name}=0.5")
    if positive:
        bad = (v.is_number and v.is_positive is False) if isinstance(v, sp.Basic) \
            else isinstance(v, numbers.Real) and not v > 0
        if bad:
            raise SpecError(name, f"{v} is not positive", f"give {name} > 0")
    return v


def _scalar(v, name: str) -> sp.Expr:
    """One number or SymPy expression as SymPy (a half-way time is one expression, not an array): None,
    a string, a list or an array reached SymPy as an AttributeError or a TypeError from the formula."""
    if isinstance(v, np.ndarray) and v.ndim == 0:      # a 0-d array is one number (SymPy took it before)
        v = v[()]
    if v is None or isinstance(v, (str, bytes, bool, dict, set, list, tuple, np.ndarray)):
        raise SpecError(name, f"needs one number or a SymPy expression, got {type_name(v)} {short_repr(v)}",
                        f"e.g. {name}=0.5; for arrays of numbers (two layers) use "
                        "theorykit.theory.trajectory.t_half_float, or call t_half once per mode")
    try:
        return sp.sympify(v, strict=True)
    except sp.SympifyError:
        raise SpecError(name, f"needs one number or a SymPy expression, got {type_name(v)} {short_repr(v)}",
                        f"e.g. {name}=0.5") from None


def mode_trajectory(s, d, a_init=a0, time=t, time_const=tau, exp=sp.exp):
    """Closed-form a(t) of one mode (the logistic form written as :func:`_logistic`); in numpy (``time``
    an array) with ``exp=np.exp``.

    ``s``, ``d``: the mode's singular value and input variance; ``a_init``: its strength at t = 0 (a0,
    the symbol ``a0`` by default); ``time``: t; ``time_const``: τ (the symbol ``tau``; 1/η in steps)."""
    s, d, a_init, time, time_const = (_arg(v, k, k in ("d", "a_init", "time_const")) for k, v in (
        ("s", s), ("d", d), ("a_init", a_init), ("time", time), ("time_const", time_const)))
    if exp is sp.exp and any(isinstance(v, np.ndarray) for v in (s, d, a_init, time, time_const)):
        raise SpecError("exp", "an argument is an array, which SymPy's exp (the default) cannot take",
                        "pass exp=np.exp for numbers")
    if any(_is_jax(v) for v in (s, d, a_init, time, time_const)) or _is_jax_fn(exp):
        return _jax_trajectory(s, d, a_init, time, time_const)
    if exp is np.exp:       # numbers: the rate form, which keeps the digits that the logistic form loses near s = 0
        return _at_s(s, lambda s_: 1 / _np_rate_form(s_, d, a_init, time, time_const)[0],
                     lambda: a_init / (1 + 2 * d * a_init * time / time_const))
    # SymPy: integers (and fractions) stay exact, as in t_half; Python's d / s made mode_trajectory(1, 2) hold 2.0
    if exp is sp.exp:
        s, d, a_init, time, time_const = (sp.Rational(v) if isinstance(v, numbers.Rational) else v
                                          for v in (s, d, a_init, time, time_const))
    return _at_s(s, lambda s_: _logistic(s_, d, a_init, time, time_const, exp),
                 lambda: a_init / (1 + 2 * d * a_init * time / time_const))


def _logistic(s, d, a_init, time, time_const, exp):
    """The logistic form ``(s/d)/(1 + (s/(d a0) − 1) e^{−u})`` (u = 2 s t/τ) divided through by its
    numerator: ``1 / (e^{−u}/a0 + (d/s)(1 − e^{−u}))``, the ``1/u(t)`` of docs/theory.md#closed-form and
    the same expression (SymPy simplifies their difference to 0). Every term of its denominator is
    ≥ 0 for t ≥ 0 and it holds neither s/d nor s/(d a0): where s and d vanish together with d/s → 0
    (the XoR "linear" ReLN at Δ = 0: s = Δ/2, d = Δ²/2, d/s = Δ) it is analytic, a = a0 there, and
    JAX's value and gradients stay finite (the logistic form was ∞/∞: a and ∂L/∂Δ were NaN). In
    saturation (e^{−u} = 0) no a0 is left, so ∂a/∂a0 is 0, not rounding noise. Where s → 0 with d
    fixed, (1 − e^{−u})/s is still 0/0 and loses digits near it: numbers and numpy arrays (``exp=np.exp``)
    take :func:`_np_rate_form`, JAX arrays :func:`_jax_rate_form`'s series, and :func:`~theorykit.to_jax`
    of the symbolic form :func:`_jax_phi`; SymPy's numbers, :func:`_at_s`'s limit at s = 0."""
    e = exp(-2 * s * time / time_const)
    return 1 / (e / a_init + d / s * (1 - e))


def _is_jax(v) -> bool:
    return type(v).__module__.split(".")[0] in ("jax", "jaxlib")


def _is_jax_fn(f) -> bool:
    return (getattr(f, "__module__", "") or "").split(".")[0] == "jax"


#: 1 − u/2 + u²/6 − …: the Taylor coefficients (−1)^k/(k+1)! of φ(u) = (1 − e^{−u})/u up to u¹⁰; below
#: |u| = 0.1 the next term is under 2e-20 of φ (and 3e-18 of φ′)
_PHI = [(-1) ** k / float(sp.factorial(k + 1)) for k in range(11)]


def _jax_phi(u):
    """φ(u) = (1 − e^{−u})/u in JAX, φ(0) = 1: the series :data:`_PHI` below |u| = 0.1, above it the
    quotient, each branch fed a harmless argument where the other is taken, so ``jax.grad`` (every order)
    is that of the branch taken, with no NaN from the other: φ′(0) = −½. :func:`~theorykit.to_jax`
    writes (1 − e^{−u})/s as (u/s)·φ(u) with it (no 0/0 at s = 0)."""
    import jax.numpy as jnp

    small = jnp.abs(u) < 0.1
    us = jnp.where(small, u, 0.0)
    series = _PHI[-1]
    for c in reversed(_PHI[:-1]):
        series = series * us + c
    ub = jnp.where(small, 1.0, u)
    return jnp.where(small, series, (1 - jnp.exp(-ub)) / ub)


def _jax_trajectory(s, d, a_init, time, time_const):
    """:func:`mode_trajectory` in JAX: ``1/G`` (:func:`_jax_rate_form`)."""
    return 1 / _jax_rate_form(s, d, a_init, time, time_const)[0]


def _jax_rate_form(s, d, a_init, time, time_const):
    """``(G, u)`` with a(t) = 1/G: the logistic form written without its cancellation near s = 0.

    Dividing the logistic form by s/d: a = 1/(d · (2t/τ) · φ(u) + e^{−u}/a0) with u = 2 s t/τ and
    φ(u) = (1 − e^{−u})/u, which is entire (φ(0) = 1). φ comes from its Taylor series below |u| = 0.1
    and from 1 − e^{−u} above (at most 10 ulp lost there; not ``expm1``, whose JAX derivative is
    ``expm1 + 1`` and cancels at large u), so value and every derivative (s = 0 included) stay accurate:
    the logistic form loses the digits of 1 − e^{−u} (∂a/∂s at s = 1e-9 was 5e-3 off, at 1e-12 NaN or
    10³ off). At s = 0 this is the decaying a0/(1 + 2 d a0 t/τ); at large t, s/d."""
    import jax.numpy as jnp

    u = 2 * s * time / time_const
    small = jnp.abs(u) < 0.1             # the series of _jax_phi, taken where it is exact to the last digit
    # above the threshold d (1 − e^{−u})/s, the form that keeps s/d at t = ∞; its branch sees s = u = 1
    # where the series is taken, so no NaN reaches the gradient of the branch not taken
    sb, ub = jnp.where(small, 1.0, s), jnp.where(small, 1.0, u)
    growth = jnp.where(small, d * (2 * time / time_const) * _jax_phi(u), d * (1 - jnp.exp(-ub)) / sb)
    return growth + jnp.exp(-u) / a_init, u


def _np_rate_form(s, d, a_init, time, time_const):
    """:func:`_jax_rate_form` for numbers and numpy arrays: ``(G, u)``, a = 1/G, G = d (2t/τ) φ(u) + e^{−u}/a0,
    with φ(u) = (1 − e^{−u})/u = −expm1(−u)/u (φ(0) = 1), which holds every digit at any u ≥ 0 (no
    derivative is taken here, so ``expm1`` serves). The logistic form lost the digits of 1 − e^{−u} for
    tiny s: a at s = 1e-18 was 1 % off, and at s = 1e-300 (u = 0 in floating point) it was 0/0."""
    u = 2 * s * time / time_const
    zero = np.equal(u, 0)
    phi = np.where(zero, 1.0, -np.expm1(-u) / np.where(zero, 1.0, u))
    return d * (2 * time / time_const) * phi + np.exp(-u) / a_init, u


def _at_s(s, formula, at_zero):
    """``formula(s)``, and where ``s`` is exactly 0, ``at_zero()``: the logistic form's limit s → 0
    (the form itself is 0/0 there). With s = 0 the ODE ``τ ȧ = −2 d a²`` gives ``a0/(1 + 2 d a0 t/τ)``:
    nothing to learn, the mode decays. Numbers and numpy arrays are checked entry by entry; a symbol goes
    through the formula (SymPy's ``limit`` gives the same expression). JAX values never come here:
    :func:`mode_trajectory` and :func:`mode_gap` take them to :func:`_jax_rate_form`, which has no 0/0."""
    if isinstance(s, np.ndarray) and s.dtype.kind in "biuf" and (s == 0).any():
        zero = s == 0
        return np.where(zero, at_zero(), formula(np.where(zero, 1.0, s)))
    if (isinstance(s, sp.Basic) and s.is_zero) or (isinstance(s, numbers.Real) and s == 0):
        return at_zero()
    return formula(s)


def mode_gap(s, d, a_init, time, time_const, exp=np.exp):
    """``s/d − a(t)`` of :func:`mode_trajectory` without subtracting nearly equal numbers:
    ``(s/d) · c e^{−u} / (1 + c e^{−u})`` with ``c = s/(d a0) − 1`` and ``u = 2 s t/τ``
    (``−a(t)`` where s = 0). In JAX (any argument a JAX array, or ``exp`` from JAX) it is
    ``e^{−u} (s/a0 − d)/(d G)`` with a = 1/G as in :func:`mode_trajectory`, which keeps its digits near s = 0."""
    if any(_is_jax(v) for v in (s, d, a_init, time, time_const)) or _is_jax_fn(exp):
        import jax.numpy as jnp
        G, u = _jax_rate_form(s, d, a_init, time, time_const)
        return jnp.exp(-u) * (s / a_init - d) / (d * G)

    def gap(s_):
        if exp is np.exp:   # e^{−u} (s/a0 − d)/(d G), the same value as below without its 1 − e^{−u}
            G, u = _np_rate_form(s_, d, a_init, time, time_const)
            return np.exp(-u) * (s_ / a_init - d) / (d * G)
        ce = (s_ / (d * a_init) - 1) * exp(-2 * s_ * time / time_const)
        return (s_ / d) * ce / (1 + ce)
    return _at_s(s, gap, lambda: -a_init / (1 + 2 * d * a_init * time / time_const))


def mode_gap_fraction(s, d, a_init=a0, time=t, time_const=tau, exp=sp.exp):
    """``q = 1 − a(t)/(s/d)``, the gap of :func:`mode_trajectory` as a fraction of its end point, written
    ``1 − r / (r (1 − e^{−u}) + e^{−u})`` with ``r = d a0/s`` and ``u = 2 s t/τ`` (at t = 0, q = 1 − r).

    The mode lowers the loss by ``s a − ½ d a² = s²/(2d) · (1 − q²)``; :attr:`Derivation.loss` is written
    ``½ tr Σy − Σ s²/(2d) + Σ s²/(2d) · q²``, so in saturation, where q is 0 exactly (e^{−u} = 0 gives
    1 − r/r), what is left is SymPy's exact bracket (0 for a task the pathways fit, e.g. XoR). There is no
    s/d or s/(d a0) in it: where s and d vanish together with d/s → 0 (the XoR "linear" ReLN at Δ = 0,
    r = Δ a0) q is 1 and analytic. The form ``1 − r/D`` rather than ``(1 − r) e^{−u}/D`` (the same
    number) keeps JAX's derivatives in the plateau (q near 1, r ≪ e^{−u}) free of the cancellation of
    two large terms of the quotient rule; in saturation such rounding in ∂q is multiplied by q = 0."""
    e = exp(-2 * s * time / time_const)
    r = d * a_init / s
    return 1 - r / (r * (1 - e) + e)


def mode_ode_residual(s, d, a_init=a0) -> sp.Expr:
    """``τ da/dt − 2a(s − d a)`` for the closed form; identically zero."""
    a = mode_trajectory(s, d, a_init)
    return sp.simplify(tau * sp.diff(a, t) - 2 * a * (s - d * a))


def _not_positive(v: sp.Expr) -> bool:
    """Whether the number ``v`` is known to be ≤ 0 (or not real): SymPy's answer where its assumptions
    decide, else that of its value to 30 digits. The singular values and input variances of a task with
    irrational data are nested radicals whose sign the assumptions leave undecided: ``not v.is_positive``
    refused them as not positive, and comparing two raised "cannot determine truth value of Relational".
    An expression of more than ``LARGE_NODES`` nodes is not evaluated, by SymPy's query or to 30 digits
    (minutes for one input variance): it passes, unchecked."""
    if is_large(v):         # SymPy's own query evaluates it too
        return False
    if v.is_positive is not None:
        return not v.is_positive
    z = complex(v.evalf(30))
    return abs(z.imag) > 1e-25 * max(1.0, abs(z.real)) or not z.real > 0


def t_half(s, d, a_init=a0, time_const=tau, depth: int = 2) -> sp.Expr:
    """Time at which a(t) reaches half its end point: ``τ/(2s) · ln(s/(d a0) − 1)``.

    A balanced mode of a pathway ``depth`` layers deep obeys τ ȧ = L a^{2−2/L} (s − d a) (L =
    ``depth``; docs/theory.md#deep-modes), so its half-way time is the exact, unevaluated integral
    ``τ ∫_{a0}^{s/2d} da / (L a^{2−2/L} (s − d a))`` (the formula above for L = 2; ``sp.N`` evaluates it).
    ``a_init`` is a0 and ``time_const`` τ, as in :func:`mode_trajectory`."""
    depth = integer(depth, "depth", lo=2, fix="a depth ≥ 2 (weight layers), e.g. depth=2")
    nums = {k: _scalar(v, k) for k, v in (("s", s), ("d", d), ("a_init", a_init), ("time_const", time_const))}
    for k, v in nums.items():           # the arguments given as numbers (symbols stay symbols)
        if v.is_number and _not_positive(v):
            raise SpecError(k, f"{short_repr(v)} is not a positive number", f"give {k} > 0")
    if all(nums[k].is_number for k in ("s", "d", "a_init")):   # a half-way time exists only ahead of the start
        if _not_positive(nums["s"] / (2 * nums["d"]) - nums["a_init"]):
            raise SpecError("a_init", f"a mode started at {short_repr(nums['a_init'])} is already at or past half its "
                                      f"end point s/(2d) = {short_repr(nums['s'] / (2 * nums['d']))}: it has no "
                                      "half-way time ahead", "start below s/(2d) (small initialisation)")
    if depth == 2:      # a large s or d: log's automatic evaluation queries signs by evaluating it (minutes)
        large = is_large(nums["s"]) or is_large(nums["d"])
        return time_const / (2 * s) * sp.log(s / (d * a_init) - 1, evaluate=not large)
    x = sp.Dummy("a", positive=True)
    L = sp.Integer(depth)
    return time_const * sp.Integral(1 / (L * x ** (2 - 2 / L) * (s - d * x)), (x, a_init, s / (2 * d)))


def t_half_float(s: float, d: float, a_init: float, time_const: float, depth: int = 2) -> float:
    """:func:`t_half` in floats (no symbolic expression is built): the closed form for two layers, the
    integral by quadrature for deeper ones, over x = ln a (da = a dx): in a the integrand falls by
    many decades from a0 to s/2d, and quadrature on it returned garbage for a small a0 (−34 for
    8584 at depth 3, a0 = 1e-7) with only a warning; in ln a it is smooth. The integrand a/(L a^(2−2/L)
    (s − d a)) is taken as e^((2/L−1)x)/(L (s − d e^x)): a^(2−2/L) underflowed to 0 below a0 ≈ 1e-154
    and the half-way time came back inf (1e100 at depth 3, a0 = 1e-300, s = d = 1)."""
    if depth == 2:
        return time_const / (2 * s) * np.log(s / (d * a_init) - 1)
    from scipy.integrate import quad

    val, _ = quad(lambda x: np.exp((2.0 / depth - 1.0) * x) / (depth * (s - d * np.exp(x))), np.log(a_init),
                  np.log(s / (2 * d)), limit=200)
    return time_const * val


def closed_form_loss(trace, modes) -> sp.Expr:
    """The mean loss ``½ tr Σy − Σ s²/(2d) + Σ s²/(2d) · q²`` of the modes ``(s, d)`` (``trace``: tr Σy), q the
    gap fraction of :func:`mode_gap_fraction`; :attr:`Derivation.loss` is this times the loss factor.

    Each ``s²/(2d)`` is built as ``s·(s/d)/2`` so SymPy cancels as it can; where it is a number it is
    tidied (:func:`~theorykit.theory.modes.tidy`: ``radsimp``, ``sqrtdenest``, exact), and so is the bracket
    ``½ tr Σy − Σ s²/(2d)`` where it is one: with X = I₂, Y = [[2, 1], [1, 3]] (s = (5 ± √5)/4, d = ½) the
    bracket printed as ``−(√5/4 + 5/4)(√5/2 + 5/2)/2 − (5/4 − √5/4)(5/2 − √5/2)/2 + 15/4``, which is 0."""
    def number(x):      # a small number expanded (15/8 + 5√5/8: sums of surds collect), then tidied
        small = not x.free_symbols and not is_large(x) and sp.count_ops(x) <= SIMPLIFY_MAX_OPS
        return tidy(sp.expand(x)) if small else x

    ends = [number(s * (s / d) / 2) for s, d in modes]
    bracket = number(trace / 2 - sum(ends))
    return bracket + sum(end * mode_gap_fraction(s, d) ** 2 for end, (s, d) in zip(ends, modes))


def mode_loss_reduction(s, d, a) -> sp.Expr:
    """How much a mode of strength ``a`` lowers the (mean) loss: ``s a − ½ d a²``."""
    s, d, a = _arg(s, "s"), _arg(d, "d"), _arg(a, "a")
    return s * a - d * a ** 2 / 2


def discrete_mode_recurrence(s: float, d: float, a_init: float, tau_steps: float, steps: int) -> np.ndarray:
    """Strength of a balanced, aligned mode under *discrete* gradient descent.

    Each layer's mode strength b (with a = b²) takes the step ``b ← b + (1/τ) b (s − d b²)``,
    so ``a ← a (1 + (s − d a)/τ)²``. Its gap to the flow :func:`mode_trajectory` is O(1/τ) = O(η).
    """
    return _discrete_mode_states(s, d, a_init, tau_steps, steps)[0]


def discrete_mode_gap(s: float, d: float, a_init: float, tau_steps: float, steps: int) -> np.ndarray:
    """The gap ``g = s/d − a`` of :func:`discrete_mode_recurrence`, carried by its own recurrence
    (``s − d a = d g``, so ``g ← g (1 − (a d/τ)(2 + d g/τ))``): it keeps its relative precision as
    ``a`` nears ``s/d``, where ``s/d − a`` in floats would be rounding noise."""
    return _discrete_mode_states(s, d, a_init, tau_steps, steps)[1]


def _discrete_mode_states(s, d, a_init, tau_steps, steps):
    a, g = np.empty(steps + 1), np.empty(steps + 1)
    if d == 0:      # no input variance (s = 0 too, e.g. XoR's linear ReLN at Δ = 0): no end point
        a[0], g[:] = a_init, np.inf
        for i in range(steps):
            a[i + 1] = a[i] * (1.0 + s / tau_steps) ** 2
        return a, g
    a[0], g[0] = a_init, s / d - a_init
    for i in range(steps):
        step = d * g[i] / tau_steps            # (s − d a)/τ
        a[i + 1] = a[i] * (1.0 + step) ** 2
        g[i + 1] = g[i] * (1.0 - a[i] * d / tau_steps * (2.0 + step))
    return a, g


def deep_mode_rhs(a, s, d, depth: int):
    """``da/dt · τ`` for a balanced mode of a depth-L linear pathway: ``L a^(2−2/L) (s − d a)``; for
    floats, numpy and JAX arrays alike (the vector field of a JAX integration, too)."""
    return depth * abs(a) ** (2.0 - 2.0 / depth) * (s - d * a)
