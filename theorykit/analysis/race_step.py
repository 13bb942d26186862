"""The race's RK4 step: the rate it must resolve, and the checks before and after a race.

The one race (:func:`theorykit.analysis.exhaust.race_rk4`, used by ``race-exhaust``, the contexts suite and
``predict``) integrates the race reduction's gradient flow by RK4 at a fixed step. This module says which
steps are safe, before any race (:func:`check_race_dt`, from the fastest rate: :func:`race_rate`,
:func:`pathway_rate`), and refuses, after a race, losses that show the step was too coarse after all
(:func:`check_raced`, :func:`check_no_rise`: gradient flow never raises the loss).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import SpecError
from ..spec.fields import fmt, real
from ..theory.race import RaceSystem

__all__ = ["RK4_STABLE", "RK4_MARGIN", "RISE_TOLERANCE", "pathway_rate", "race_rate", "start_rate", "min_race_dt",
           "check_race_dt", "check_raced", "check_no_rise"]


#: RK4's stability interval on the negative real axis: one step of y' = −λy multiplies y by
#: R(−hλ), R(z) = 1 + z + z²/2 + z³/6 + z⁴/24, and |R(−x)| ≤ 1 for 0 ≤ x ≤ 2.7853 (R(−x) = 1 there)
RK4_STABLE = 2.785
#: the safety margin on it: the race's RK4 step is refused beyond h·λ_max = RK4_STABLE / RK4_MARGIN ≈ 1.39, where
#: R(−1.39) = 0.28 against e^−1.39 = 0.25 (a decaying step; at RK4_STABLE itself a step no longer decays)
RK4_MARGIN = 2.0


def pathway_rate(Syx, Sx, depth: int = 2, reach=None) -> float:
    """τ·(the race's fastest rate) at one pathway's end point, from its Σyx (outputs × inputs) and Σx (inputs ×
    inputs), both ⟨·⟩ over the P datapoints with its gates (the mean loss's, as :class:`RaceSystem` holds them).

    The race is gradient flow τẆ = −∇L, so its Jacobian is −H/τ (H the loss's Hessian: real eigenvalues). At the
    end point M* = Σyx Σx⁺ = W_L…W_1 (balanced: W_{l+1}ᵀW_{l+1} = W_l W_lᵀ) the residual's correlation Σyx − M*Σx
    vanishes (Σyx's rows lie in Σx's range), so H is its Gauss–Newton part Jᵀ(Σx ⊗ I)J, δM = J δW = Σ_l A_l δW_l B_l
    (A_l = W_L…W_{l+1}, B_l = W_{l−1}…W_1), whose nonzero spectrum is that of (Σx^½ ⊗ I) JJᵀ (Σx^½ ⊗ I), JJᵀ =
    Σ_l B_lᵀB_l ⊗ A_lA_lᵀ. Balanced, with M* = U D Vᵀ: A_lA_lᵀ = U D^{2(L−l)/L} Uᵀ, B_lᵀB_l = V D^{2(l−1)/L} Vᵀ (I at
    l = 1), so each output mode α is a block, largest at the largest d_α = ‖M*‖:

        τ·λmax = λmax(Σx^½ (Σ_l ‖M*‖^{2(L−l)/L} C_l) Σx^½),  C_1 = I, C_l = V D^{2(l−1)/L} Vᵀ
        (depth 2: λmax(‖M*‖Σx + Σx^½ W_1ᵀW_1 Σx^½), at most λmax(Σx)(‖W_2‖² + ‖W_1‖²) = 2·λmax(Σx)·‖M*‖).

    White inputs (Σx = I: M* = Σyx) give L·s^{2(L−1)/L}, the mode ODE's 2s at depth 2. Pathways share no edge or
    unit: they couple only through the loss, where they share datapoints and outputs (Σx_qp ≠ 0); this is one
    pathway's rate, a family's is measured, not proved (tests/test_race_rate_bound_rules.py; :func:`check_raced`).
    ``reach = (a0, t_end/τ)`` (depth 2): only Σyx's modes α that can grow (from a0, at most as a0·e^{2 s_α t/τ}, the
    mode ODE's) to s_α·min(1, 1/λmax(Σx)) by t_end (--gamma 1e-3's s_α = 4.6e-4 on Σx's 3.3e-7 never does)."""
    Syx, Sx = np.asarray(Syx, float), np.asarray(Sx, float)
    if reach is not None and int(depth) == 2 and Syx.any():
        (u, sv, vt), (a0, span) = np.linalg.svd(Syx, full_matrices=False), reach
        k = a0 * np.exp(np.minimum(2 * sv * span, 700.0)) >= sv * min(1.0, 1.0 / np.linalg.eigvalsh(Sx)[-1])
        Syx = (u[:, k] * sv[k]) @ vt[k]
    if not (Syx.any() and Sx.any()):
        return 0.0
    w, Q = np.linalg.eigh((Sx + Sx.T) / 2)
    root = (Q * np.sqrt(np.clip(w, 0.0, None))) @ Q.T                 # Σx^½
    _u, d, vt = np.linalg.svd(Syx @ np.linalg.pinv(Sx, rcond=1e-12, hermitian=True), full_matrices=False)
    d, V, L = d[d > 1e-12 * d[0]], vt[d > 1e-12 * d[0]].T, int(depth)
    C = d[0] ** (2 * (L - 1) / L) * np.eye(len(Sx))
    for l in range(2, L + 1):
        C += d[0] ** (2 * (L - l) / L) * (V * d ** (2 * (l - 1) / L)) @ V.T
    return float(np.linalg.eigvalsh(root @ C @ root)[-1])


#: relative gap under which a measured rate counts as 2·s_max (race_rate, check_race_dt's message) (rounding, not curvature)
SAME_RATE = 1e-9


def race_rate(system: RaceSystem, reach=None) -> float:
    """τ·(the race's fastest rate), as the check takes it: the largest :func:`pathway_rate` (``reach``: its) over the
    system's pathways, in each of its blocks (the state's factors are per block, so a step moves one block's Σx), and
    at least 2·s_max (``system.rate``, the mode ODE's, floored at 1 as the flow's budget counts it), and exactly
    2·s_max where no pathway passes it by more than :data:`SAME_RATE` (rounding)."""
    S = system.arrays_np["Syx"]
    nb, K, _pb, db = S.shape
    Sx = system.arrays_np["Sxb"].reshape(nb, K, db, K, db)
    two_s = 2.0 * system.rate
    rates = [pathway_rate(S[b, k], Sx[b, k, :, k], system.depth[k], reach) for b in range(nb) for k in range(K)]
    # a rate within rounding of 2·s_max is 2·s_max (white inputs; numpy 2.4.6's eigvalsh put it a few ulps above)
    return max([two_s] + [r for r in rates if r > two_s * (1 + SAME_RATE)])


def start_rate(system: RaceSystem, a0: float) -> float:
    """τ·(the race's fastest rate at its start a0), which a start above the modes' end points makes the fastest:
    the mode ODE τȧ = 2a(s − da) linearised at a0 is τδȧ = 2(s − 2d·a0)δa, faster than at the end point (2s) once
    a0 > s/d. Taken as 4·λmax(Σx)·a0 over the pathways, at least that since d ≤ λmax(Σx): race-exhaust --k 2
    --a0 10 gives 4·0.625·10 = 25 (the common pathway's Σx has λmax 0.625), where the end point's 2·s_max = 2.65
    alone offered a step of τ/1.91, and that race blew up to 1.8e14 × L(0)."""
    S = system.arrays_np["Syx"]
    nb, K, _pb, db = S.shape
    Sx = system.arrays_np["Sxb"].reshape(nb, K, db, K, db)
    return max([0.0] + [4.0 * float(a0) * float(np.linalg.eigvalsh((Sx[b, k, :, k] + Sx[b, k, :, k].T) / 2)[-1])
                        for b in range(nb) for k in range(K) if S[b, k].any()])


def min_race_dt(s_max: float, fastest: float | None = None) -> float:
    """The smallest ``race_dt`` (RK4 steps per τ) whose step h = τ/race_dt RK4 takes stably at the race's fastest
    rate λ = ``fastest``/τ, by default 2·s_max/τ: the mode ODE τȧ = 2a(s − da) (docs/theory.md, "the mode ODE")
    linearised at its end point a = s/d is τ δȧ = −2s δa (``s_max``: ``RaceSystem.rate``). Inputs whose Σx does not
    commute with Σyx race faster (λmax(Σx)·2‖M*‖), as :func:`race_rate` sees (2·s_max where Σx is white). h·λ ≤
    RK4_STABLE/RK4_MARGIN gives race_dt ≥ max(2·s_max, fastest)·RK4_MARGIN/RK4_STABLE (1.90 at k = 2, s_max = 1.326;
    a coarser step blew the race up to areas of 4e24, or learned nothing). Measured along the race (the Jacobian of
    its field, tests/test_race_rate_bound_rules.py): 2·s_max at k = 2, 3, 4 and on XoR; the two-input data there
    reach their end point's 101.02 (race_dt ≥ 72.6; 10, accepted by 2·s_max alone, blew up); a family of three on
    examples/predict/two_groups.toml 2.5867 against its patterns' 2.0944, inside the margin (:func:`check_raced`)."""
    return max(2.0 * s_max, 0.0 if fastest is None else float(fastest)) * RK4_MARGIN / RK4_STABLE


def _round_up(x: float) -> float:
    """``x`` rounded up to 3 significant digits (a value to print that is itself at least ``x``)."""
    d = 2 - math.floor(math.log10(x))
    v = math.ceil(x * 10.0 ** d) / 10.0 ** d
    return v if v >= x else math.nextafter(v, math.inf)


def positive_race_dt(race_dt) -> None:
    """``race_dt`` a positive number, else a SpecError naming ``--race-dt`` (``race_dt=`` from Python, in its
    words): the first check of race-exhaust's and predict's --race-dt, before :func:`check_race_dt`."""
    real(race_dt, "--race-dt", lo=0.0, lo_open=True, hi=math.inf, fix="a positive number, e.g. --race-dt 10",
         keyword_fix="a positive number, e.g. {key}=10")


def check_race_dt(race_dt: float, s_max: float, tau: float, *, fastest: float | None = None, field: str = "--race-dt",
                  per: float = 1.0, step: str = "τ/race-dt", start: float = 0.0) -> None:
    """Refuse, before any race, a ``race_dt`` whose RK4 step τ/(race_dt·``per``) is too coarse for the race's
    fastest rate (:func:`min_race_dt`: ``fastest``/τ, e.g. :func:`race_rate`, at least 2·s_max/τ), naming ``field``
    with the smallest accepted value (rounded up) as the fix.
    ``per``: what the caller multiplies race_dt by before :func:`race_rk4` (predict_reln: s_max). ``start``: the
    rate at the race's start (:func:`start_rate`): the value offered covers it too, so that it races (a start
    above the end points is refused only once it diverges, by :func:`check_raced`, naming the option given)."""
    low = min_race_dt(s_max, fastest) / per
    if race_dt >= low:
        return
    ok = _round_up(max(low, min_race_dt(s_max, start) / per))       # a fix that races from its start too
    # a measured rate within rounding of 2·s_max is 2·s_max: pathway_rate of white inputs is 2·s up to eigvalsh's
    # last bits, and numpy 2.4's came out a hair above it, which named the curvature where there is none
    white = fastest is None or fastest <= 2 * s_max * (1 + SAME_RATE)
    rate = (f"2·s_max/τ (s_max = {s_max:.4g}, τ = {fmt(tau)})" if white else
            f"{fastest:.4g}/τ (τ = {fmt(tau)}; a pathway's curvature at its end point, about λmax(Σx)·2‖M‖ where "
            f"the inputs' covariance Σx does not commute with Σyx, over 2·s_max = {2 * s_max:.4g})")
    why = (f"; {ok:g} also resolves the start's rate 4·λmax(Σx)·a0 = {start:.4g}/τ" if min_race_dt(s_max, start) / per
           > low else "")
    raise SpecError(field, f"{race_dt!r} makes the RK4 step {step} = {tau / (race_dt * per):.3g} too coarse for the "
                           f"race's fastest rate {rate}: RK4 is stable only "
                           f"up to step × rate = {RK4_STABLE}, here taken with a margin of {RK4_MARGIN:g}",
                    f"use {field} {ok:g} or larger (default 10){why}" if field.startswith("--")
                    else f"use {field}={ok:g} or larger (default 10){why}",
                    keyword_fix=f"use {{key}}={ok:g} or larger (default 10){why}")


#: how far (relative to L(0)) a raced loss may stand above its start before the race counts as blown up
RISE_TOLERANCE = 1e-6


def _diverged(losses, finite: bool) -> str | None:
    """What shows a race (losses: batch × times) diverged, in words, or None: a loss above its start L(0) by more
    than :data:`RISE_TOLERANCE` (gradient flow never raises the loss: dL/dt = −‖∇L‖²/τ ≤ 0), and, where ``finite``
    is asked, a NaN or infinite loss."""
    L = np.asarray(losses, float)
    L0 = L[:, :1]
    if finite and not np.isfinite(L).all():
        return "turned NaN or infinite"
    rise = np.isfinite(L) & np.isfinite(L0) & (L > L0 * (1 + RISE_TOLERANCE))
    if not rise.any():
        return None
    return f"rose to {float(np.max(np.where(rise, L / np.where(L0 > 0, L0, 1.0), 0.0))):.3g} × its start L(0)"


def check_raced(losses, race_dt: float, step: str = "τ/(race_dt·s_max)", field: str = "race_dt") -> None:
    """The second line of defence, measured (:func:`pathway_rate` is one pathway's end point's, not a family's): refuse
    raced losses (batch × times) that turned NaN or infinite or rose above L(0), naming ``field`` and 4 × ``race_dt``
    (predict's races)."""
    what = _diverged(losses, finite=True)
    if what is not None:
        raise SpecError(field, f"the race diverged: its loss {what} (gradient flow never raises the loss: the RK4 step "
                               f"{step} with race_dt = {race_dt!r} is too coarse for this race)",
                        (f"use {field} {_round_up(4.0 * race_dt):g}" if field.startswith("--") else
                         f"use {field}={_round_up(4.0 * race_dt):g}") + " or larger for a finer RK4 step",
                        keyword_fix=f"use {{key}}={_round_up(4.0 * race_dt):g} or larger for a finer RK4 step")


def check_no_rise(losses, race_dt, given=()) -> None:
    """Refuse a batch of raced loss curves (batch × times) where one stands above its start (race-exhaust's races:
    it came back from --race-dt 1e-9 as areas of 5e25 and a ranking). Non-finite values are left to the caller (the
    command line names what was given: --a0, --gamma or --race-dt). The error names the first of ``given`` (the
    options set away from their defaults), else --race-dt."""
    what = _diverged(losses, finite=False)
    if what is not None:
        raise SpecError((list(given) + ["--race-dt"])[0],
                        f"the race diverged: its loss {what} (gradient flow never raises the "
                        f"loss: the RK4 step τ/{fmt(race_dt)} is too coarse for this race)",
                        "raise --race-dt for a finer RK4 step (default 10), or lower --a0 or --gamma")
