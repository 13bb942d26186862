"""Rules of the derivation scripts, the grid trainer, the alignment measures, the linear-algebra and
HTML helpers, by hand and from the docs (found by a mutation check).

``theorykit.linalg`` (data_scale, numeric_svd's conventions and rank trimming, unit_columns),
``theorykit.html`` (escaping, figures as data URIs, KaTeX's fonts inlined), ``theorykit.analysis.alignment``
(power iteration), ``theorykit.sim.grid`` (member layout Δ-major then seed, the aligned start
W1 = √a0 r vᵀ, W2 = √a0 u rᵀ, the recording stride) and ``derivations/xor_crossover`` (Δ* = √(2/3), the
half-loss time, the summary). Every expected value is derived by hand in a comment, read from the
docstrings or docs/theory.md, or computed by a second method (numpy, sympy written out here), never
taken from a run of the code under test. Sizes are tiny: each test runs well under two seconds,
except those that share the module's one symbolic derivation of the XoR task.
"""
from __future__ import annotations

import base64
import math
import re

import numpy as np
import pytest
import sympy as sp

import theorykit as tk
from theorykit import html as th
from theorykit.linalg import data_scale, numeric_svd, unit_columns


# ------------------------------------------------------------------------------------------------
# theorykit.linalg
# ------------------------------------------------------------------------------------------------
def test_data_scale_by_hand():
    """‖Y‖_F ‖X‖_F / P: X all ones 2×4 (‖X‖ = √8), Y = (3, 4, 0, 0) (‖Y‖ = 5): 5√8/4."""
    X, Y = np.ones((2, 4)), np.array([[3.0, 4.0, 0.0, 0.0]])
    assert data_scale(X, Y) == pytest.approx(5 * math.sqrt(8) / 4, rel=1e-15)
    # no datapoints: the max(P, 1) keeps it finite (0, not a division by zero)
    assert data_scale(np.zeros((2, 0)), np.zeros((1, 0))) == 0.0


def test_numeric_svd_orders_descending_and_fixes_the_sign_of_v():
    """Descending singular values; the first non-zero entry of each v is positive (docstring)."""
    U, s, V = numeric_svd(np.diag([1.0, 3.0]))
    np.testing.assert_allclose(s, [3.0, 1.0])
    # M = [[0, −3]]: s = 3, v = ±(0, 1); its first non-zero entry (index 1) must be +1, so u = −1
    U, s, V = numeric_svd(np.array([[0.0, -3.0]]))
    np.testing.assert_allclose(s, [3.0])
    np.testing.assert_allclose(V[:, 0], [0.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(U[:, 0], [-1.0])
    # −M: both signs flip back to v's convention, u = +1
    U, s, V = numeric_svd(np.array([[-2.0, 0.0], [0.0, 0.0]]))
    np.testing.assert_allclose(V[:, 0], [1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(U[:, 0], [-1.0, 0.0], atol=1e-15)


def test_numeric_svd_trims_values_up_to_tol_times_scale():
    """Singular values *up to* tol·scale are dropped, scale = max(1, s_max) unless given."""
    # diag(2, 1), tol 0.5: threshold 0.5·max(1, 2) = 1; s = 1 is "up to" it, so dropped
    _, s, V = numeric_svd(np.diag([2.0, 1.0]), tol=0.5)
    np.testing.assert_allclose(s, [2.0])
    assert V.shape == (2, 1)
    # diag(3, 1e-13): the default 1e-12·3 drops the second; 1e-11 is kept
    assert numeric_svd(np.diag([3.0, 1e-13]))[1].size == 1
    assert numeric_svd(np.diag([3.0, 1e-11]))[1].size == 2
    # s_max below 1: the default scale is still 1, so tol 0.4 drops 0.3 (not 0.4·0.5 = 0.2, which keeps it)
    np.testing.assert_allclose(numeric_svd(np.diag([0.5, 0.3]), tol=0.4)[1], [0.5])
    # data far below 1: the default scale is 1 (both kept at 1e-12), a given scale 1e-8, tol 0.5 → 5e-9
    assert numeric_svd(np.diag([1e-8, 1e-9]))[1].size == 2
    np.testing.assert_allclose(numeric_svd(np.diag([1e-8, 1e-9]), tol=0.5, scale=1e-8)[1], [1e-8])
    # the zero matrix has no modes; an empty one neither (no index error on s[0])
    U, s, V = numeric_svd(np.zeros((2, 3)))
    assert (U.shape, s.shape, V.shape) == ((2, 0), (0,), (3, 0))
    assert numeric_svd(np.zeros((2, 0)))[1].size == 0


def test_unit_columns_keeps_a_zero_column_zero():
    """Columns (3, 4) → (0.6, 0.8); a zero column stays zero (not nan)."""
    got = unit_columns(np.array([[3.0, 0.0], [4.0, 0.0]]))
    np.testing.assert_allclose(got, [[0.6, 0.0], [0.8, 0.0]], rtol=1e-15)


# ------------------------------------------------------------------------------------------------
# theorykit.html
# ------------------------------------------------------------------------------------------------
def test_html_escape_escapes_quotes_too():
    """quote=True: both quote characters are escaped (attribute values), as html.escape documents."""
    assert th.html_escape("<a href=\"x\">'&") == "&lt;a href=&quot;x&quot;&gt;&#x27;&amp;"
    assert th.html_escape(3) == "3"


def test_img_data_uri_of_a_missing_file_is_none(tmp_path):
    assert th.img_data_uri(tmp_path / "nope.png") is None
    (tmp_path / "a.PNG").write_bytes(b"abc")                 # suffix compared lower-case
    assert th.img_data_uri(tmp_path / "a.PNG") == "data:image/png;base64,YWJj"   # base64("abc") = "YWJj"


def test_katex_css_inlines_every_woff2_font():
    """Every ``src:url(fonts/NAME.woff2) format("woff2")…`` of the vendored CSS becomes a data URI of
    that font's bytes (read here from the package folder directly), the woff/ttf fallbacks dropped."""
    from importlib import resources

    root = resources.files("theorykit").joinpath("assets", "katex")
    raw = root.joinpath("katex.min.css").read_text("utf-8")
    names = re.findall(r"src:url\(fonts/([A-Za-z0-9_\-]+)\.woff2\)", raw)
    assert names
    css = th.katex_css_inline()
    assert "fonts/" not in css and ".ttf" not in css and ".woff)" not in css
    assert css.count("data:font/woff2;base64,") == len(names)
    first = base64.b64encode(root.joinpath("fonts", names[0] + ".woff2").read_bytes()).decode("ascii")
    assert f'src:url(data:font/woff2;base64,{first}) format("woff2")' in css
    assert th.asset("fonts", names[0] + ".woff2") == root.joinpath("fonts", names[0] + ".woff2").read_bytes()


def test_katex_css_without_fonts_is_an_error(monkeypatch):
    monkeypatch.setattr(th, "asset", lambda *parts: b"body{color:red}")
    with pytest.raises(RuntimeError, match="no woff2 font sources"):
        th.katex_css_inline()


# ------------------------------------------------------------------------------------------------
# theorykit.analysis.alignment
# ------------------------------------------------------------------------------------------------
def test_top_vector_steps_by_hand():
    """Power iteration on A = diag(1, 4) from v0 = (3, 4): no step gives v0/‖v0‖ = (0.6, 0.8); one step
    A v0/‖A v0‖ = (3, 16)/√265; many steps the top eigenvector (0, 1) (ratio (1/4)^100)."""
    from theorykit.analysis.alignment import top_vector

    A = np.diag([1.0, 4.0])
    v0 = np.array([3.0, 4.0])
    np.testing.assert_allclose(np.asarray(top_vector(lambda v: A @ v, v0, iters=0)), [0.6, 0.8], rtol=1e-15)
    np.testing.assert_allclose(np.asarray(top_vector(lambda v: A @ v, v0, iters=1)),
                               np.array([3.0, 16.0]) / math.sqrt(265), rtol=1e-14)
    np.testing.assert_allclose(np.asarray(top_vector(lambda v: A @ v, v0)), [0.0, 1.0], atol=1e-15)


# ------------------------------------------------------------------------------------------------
# theorykit.sim.grid
# ------------------------------------------------------------------------------------------------
def _xor_data(deltas):
    task = tk.xor_margin()
    Xs = np.stack([task.numeric({"Delta": x})[0] for x in deltas])
    return task, Xs, task.numeric({"Delta": 1.0})[1]


def test_grid_keys_repeat_the_seeds_grid_major():
    import jax
    from theorykit.sim.grid import grid_keys

    keys = np.asarray(jax.random.split(jax.random.PRNGKey(1), 2))
    got = np.asarray(grid_keys(keys, 3))
    np.testing.assert_array_equal(got, np.concatenate([keys, keys, keys]))   # k0 k1 k0 k1 k0 k1


def test_reln_grid_start_refuses_a_unit_count_mismatch():
    import jax
    from theorykit.sim import grid

    task, Xs, Y = _xor_data([0.5])
    paths = tk.GDLNSpec(task, [tk.Pathway("p", (1, 1, 1, 1), "all", "all", 3)]).pathways
    with pytest.raises(ValueError, match="hold 3 units, the ReLU network 4"):
        grid.reln_grid_start(Xs, Y, jax.random.split(jax.random.PRNGKey(0), 1), paths, task=task, hidden=4, std=0.1)


def test_aligned_reln_grid_start_is_sqrt_a0_r_v_and_u_r():
    """The docstring: the one aligned start at each grid point, W1 = √a0 r vᵀ, W2 = √a0 u rᵀ with r a
    random unit vector (one per pathway and seed, the same at every Δ: each grid point draws from the
    same seed); members Δ-major, then seed. So W1 v = √a0 r (v a unit vector), W2 W1 = a0 u vᵀ, and W1
    of member (Δ, s) equals √a0 r_s vᵀ(Δ)."""
    from theorykit.sim import grid

    task, Xs, _ = _xor_data([0.3, 1.1])
    paths = tk.GDLNSpec(task, [tk.Pathway("a", (1, 1, 0, 0), "all", "all", 3),
                               tk.Pathway("b", (0, 0, 1, 1), (0, 2), "all", 2)]).pathways
    rng = np.random.default_rng(0)

    def unit(n):
        x = rng.normal(size=(2, n))
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    V, U = [unit(3), unit(2)], [unit(1), unit(1)]
    a0 = 0.04
    frames = [{q.name: (U[j][d][:, None], V[j][d][:, None]) for j, q in enumerate(paths)} for d in range(2)]
    _, p0 = grid.aligned_reln_grid_start(task, paths, [{"Delta": 0.3}, {"Delta": 1.1}], frames, a0, seeds=3, seed=2)
    for j, q in enumerate(paths):
        W1, W2 = np.asarray(p0[f"input->{q.name}"]), np.asarray(p0[f"{q.name}->output"])
        assert W1.shape == (6, q.hidden, V[j].shape[1]) and W2.shape == (6, 1, q.hidden)
        c = math.sqrt(a0)
        for d in range(2):
            for s in range(3):
                m = d * 3 + s
                r = W1[m] @ V[j][d] / c
                assert np.linalg.norm(r) == pytest.approx(1.0, rel=1e-12)
                np.testing.assert_allclose(W1[m], c * np.outer(r, V[j][d]), atol=1e-15)
                np.testing.assert_allclose(W2[m], c * np.outer(U[j][d], r), atol=1e-15)
                np.testing.assert_allclose(W2[m] @ W1[m], a0 * np.outer(U[j][d], V[j][d]), atol=1e-15)
                np.testing.assert_allclose(W1[s] @ V[j][0], W1[m] @ V[j][d], atol=1e-15)   # same r at every Δ
        assert not np.allclose(W1[0], W1[1])            # seeds differ


def test_train_grid_layout_and_recording_stride():
    """Members are Δ-major then seed: the recorded loss at step 0 is L = 1/(2P) Σ_μ (y_μ − ŷ_μ)²
    (docs/theory.md's loss) of member (Δ, s)'s initial ReLU network W2 relu(W1 Xs[Δ]), by numpy;
    ``record_every`` = 2 over 4 steps keeps steps 0, 2, 4 of the per-step curve."""
    import jax
    from theorykit.sim import grid

    _, Xs, Y = _xor_data([0.0, 1.5])
    keys = jax.random.split(jax.random.PRNGKey(5), 2)
    net, p0 = grid.relu_grid_start(Xs, Y, keys, hidden=4, std=0.5)
    params, rec2, _ = grid.train_grid(net, p0, Xs, Y, 0.1, 4, 2, 2)
    _, rec1, _ = grid.train_grid(net, p0, Xs, Y, 0.1, 4, 1, 2)
    rec1, rec2 = np.asarray(rec1), np.asarray(rec2)
    assert rec2.shape == (2, 2, 3) and rec1.shape == (2, 2, 5)
    np.testing.assert_array_equal(rec2, rec1[..., [0, 2, 4]])
    W1, W2 = np.asarray(p0["input->h1"]), np.asarray(p0["h1->output"])
    for d in range(2):
        for s in range(2):
            m = d * 2 + s
            yhat = W2[m] @ np.maximum(W1[m] @ Xs[d], 0.0)
            assert rec1[d, s, 0] == pytest.approx(np.sum((Y - yhat) ** 2) / (2 * Y.shape[1]), rel=1e-12)
    assert params["input->h1"].shape == (2, 2, 4, 3)


# ------------------------------------------------------------------------------------------------
# derivations/xor_crossover
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def xc():
    from theorykit.suites import load_package

    load_package("derivations")
    from theorykit.derivations import xor_crossover

    return xor_crossover


def test_half_loss_time_by_hand(xc):
    """One mode, s = d = 1, ½ tr Σy = ½: L(a) = ½ − a + a²/2 = (1 − a)²/2. Half of L(a0) is where
    (1 − a)² = (1 − a0)²/2, a* = 1 − (1 − a0)/√2 (below the end point 1). The logistic
    a(t) = 1/(1 + (1/a0 − 1) e^{−2t/τ}) reaches a* at t = τ/2 · ln[(1/a0 − 1)/(1/a* − 1)]."""
    a0v, tauv = 0.01, 3.0
    a_star, t_half = xc.half_loss_time(sp.Integer(1), sp.Integer(1), 1, sp.Rational(1, 2))
    want_a = 1 - (1 - a0v) / math.sqrt(2)
    want_t = tauv / 2 * math.log((1 / a0v - 1) / (1 / want_a - 1))
    from theorykit.theory.trajectory import a0, tau

    assert float(a_star.subs(a0, a0v)) == pytest.approx(want_a, rel=1e-12)
    assert float(t_half.subs({a0: a0v, tau: tauv})) == pytest.approx(want_t, rel=1e-12)


def test_derive_refuses_a_numeric_margin(xc):
    with pytest.raises(ValueError, match="keep Delta symbolic"):
        xc.derive(task=tk.xor_margin(1.0))


def test_summary_states_the_crossover(xtheory, xc):
    """docs/theory.md#xor: s_lin = Δ/2, s_xor = √(2 + Δ²)/4, equal at Δ* = √(2/3) ≈ 0.8165 (4Δ² = 2 + Δ²
    for Δ ≥ 0); at Δ*/2 the XoR ReLN is faster, at 2Δ* the linear one (s_lin − s_xor changes sign once)."""
    summ = xc.summary(xtheory, {"linear": 1.0, "xor": 2.0})
    assert summ["crossover"]["equals_sqrt_2_over_3"] is True
    assert summ["crossover"]["float"] == pytest.approx(math.sqrt(2 / 3), rel=1e-15)
    assert (summ["faster_below"], summ["faster_above"]) == ("xor", "linear")
    assert summ["a0_rule_values"] == {"linear": 1.0, "xor": 2.0}
    assert summ["learning_time_crossover_equals_crossover_under_a0_rule"] is True
    assert set(summ["latex"]) == {"crossover", "linear ReLN", "xor ReLN", "linear ReLN half-loss time",
                                  "xor ReLN half-loss time"}
    assert r"\approx 0.8165" in summ["latex"]["crossover"]           # √(2/3) = 0.81649…
    D = xtheory["Delta"]
    assert sp.simplify(xtheory["s_linear"] - D / 2) == 0
    assert sp.simplify(xtheory["s_xor"] - sp.sqrt(2 + D ** 2) / 4) == 0
    assert xtheory["linear_faster_set"] == sp.Interval.open(sp.sqrt(sp.Rational(2, 3)), sp.oo)


@pytest.fixture(scope="module")
def xtheory(xc):
    return xc.derive()


# ------------------------------------------------------------------------------------------------
# derivations/k_contexts (the script)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv,ks,race", [([], [2, 3, 4, 5, 6, 7, 8], True), (["--quick"], [2, 3, 4, 5], False)])
def test_k_contexts_script_checks_k_2_to_8_or_2_to_5_quick(monkeypatch, argv, ks, race):
    """docs/theory.md#contexts and docs/validation.md: the derivation is checked against the exact one
    for k = 2 … 8 and against the race reduction; ``--quick`` (its help): k = 2..5 only, without the
    race integration. The derivation is replaced by a stub that records its arguments and stops."""
    from theorykit.suites import load_package

    load_package("derivations")
    from theorykit.derivations import k_contexts as script

    seen = {}

    class Stop(Exception):
        pass

    def fake(check_ks, race_check):
        seen.update(ks=list(check_ks), race=race_check)
        raise Stop

    monkeypatch.setattr(script, "derive", fake)
    with pytest.raises(Stop):
        script.main(argv)
    assert seen == {"ks": ks, "race": race}


def test_layer_alignment_of_an_all_zero_layer_is_zero_in_float32_and_float64():
    """An all-zero layer has no direction and no energy: every entry is 0, not 0/0. The guard was a fixed
    1e-300, which rounds to 0 in float32 (so the float32 result was NaN)."""
    import jax.numpy as jnp

    from theorykit.analysis.alignment import layer_alignment

    for dt in (jnp.float32, jnp.float64):
        eye = jnp.eye(4, dtype=dt)
        aux = (eye, eye, jnp.ones(4, dt), jnp.ones(4, dt))      # U4 = V4 = I, start vectors of ones
        zero = jnp.zeros((4, 4), dt)
        out = layer_alignment([zero, zero], aux)
        assert out.dtype == dt and np.array_equal(np.asarray(out), np.zeros(4)), (dt, out)
