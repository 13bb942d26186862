"""Rules from a maintainer removing copies in the simulation and analysis layers and the validation
suites (issue 26, "one way to do each thing"): each rule here pins that a job is done in one place,
and, where two copies differed, which behaviour was kept, against a reference worked out by hand.
"""
import ast
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _own_imports_inside_functions(path):
    """(line, module) of every import of theorykit's own modules (theorykit, validation, relative ones)
    that sits inside a function of ``path``."""
    tree = ast.parse(path.read_text())
    out = []
    for f in ast.walk(tree):
        if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(f):
            if isinstance(node, ast.ImportFrom):
                mod = "." * node.level + (node.module or "")
                if node.level or mod.split(".")[0] in ("theorykit", "validation"):
                    out.append((node.lineno, mod))
            elif isinstance(node, ast.Import):
                out += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "theorykit"]
    return sorted(set(out))


def test_lemmas_and_depth_protocols_suites_import_theorykit_at_the_top():
    """validation/lemmas.py imported theorykit.theory.lemmas inside six of its functions (seven
    import statements of one module, 20 in all) and depth_protocols.py theorykit inside
    run_protocols: the house rule puts them at the top, once."""
    for name in ("lemmas.py", "depth_protocols.py"):
        assert _own_imports_inside_functions(ROOT / "validation" / name) == [], name


def test_the_suite_runner_looks_up_only_the_suite_loaders_at_call_time():
    """validation/__init__.py imported theorykit.io (three times), theorykit.errors, theorykit.spec and
    theorykit itself inside functions; only theorykit.suites' loaders stay there, looked up when the
    runner runs (tests and callers replace theorykit.suites.load_suite)."""
    inner = _own_imports_inside_functions(ROOT / "validation" / "__init__.py")
    assert {mod for _line, mod in inner} == {"theorykit.suites"}, inner


def test_exact_reln_of_one_hidden_layer_is_the_node_gated_product():
    """exact_reln_outputs had two ways to the ReLN's output: for one hidden layer one pathway per unit
    (H pathways through sim.simulation.gdln_forward, a Python loop: 2H matrix products), for deeper
    networks the node-gated layers ŷ = W_L G_{L−1} W_{L−1} … G_1 W_1 x. With L = 2 that form is the same
    sum, Σ_h W2[:, h] g_h W1[h, :] x = W2 G_1 W1 x, so it serves both. Kept: the node-gated product.

    By hand, G_1 W1 x is relu(W1 x) entry by entry (g·h = h where h > 0, 0 where h ≤ 0), so the ReLN's
    output is the ReLU network's, W2 relu(W1 x), to the last bit; the per-unit sum was off by rounding
    (5e-15 at H = 64). Its trace holds one product for the gates and one per layer: 3 for
    [3, 16, 2] (the per-unit sum traced 33), 5 for [3, 16, 16, 2] as before."""
    import jax
    import jax.numpy as jnp

    import theorykit as tk
    from theorykit.sim.simulation import relu_forward

    rng = np.random.default_rng(0)
    X = rng.normal(size=(11, 24))
    W1, W2 = rng.normal(size=(64, 11)), rng.normal(size=(60, 64))
    out = np.asarray(tk.exact_reln_outputs([W1, W2], X))
    np.testing.assert_allclose(out, W2 @ np.maximum(W1 @ X, 0.0), rtol=1e-12, atol=1e-12)   # numpy, by hand
    np.testing.assert_array_equal(out, np.asarray(relu_forward([jnp.asarray(W1), jnp.asarray(W2)], jnp.asarray(X))))
    x3 = rng.normal(size=(3, 5))
    for sizes, products in (([3, 16, 2], 3), ([3, 16, 16, 2], 5)):
        Ws = [rng.normal(size=(o, i)) for i, o in zip(sizes[:-1], sizes[1:])]
        jaxpr = str(jax.make_jaxpr(lambda *W: tk.exact_reln_outputs(list(W), x3))(*Ws))
        assert jaxpr.count("dot_general") == products, sizes


def test_find_gates_reads_the_spec_off_its_record_and_thresholds_the_centroids_once(monkeypatch):
    """find_gates thresholded the chosen K's centroids twice: patterns_for_K did (centroids_to_patterns,
    then the patterns of zero Σyx dropped), and find_gates did it again from the record's centroids before
    patterns_to_spec dropped the same patterns again. The spec is now built from the record's own patterns
    and shares: the same pathways (the second pass kept every pattern and split the same shares), with
    one thresholding. On the XoR task (Δ = 1) with K = 2 the found pathways are the record's patterns, in
    its order, with widths adding up to hidden = 8."""
    import theorykit as tk
    from theorykit.analysis import findgates as fg

    calls, records = [], []
    thresholded, for_K = fg.centroids_to_patterns, fg.patterns_for_K
    monkeypatch.setattr(fg, "centroids_to_patterns", lambda *a, **k: calls.append(1) or thresholded(*a, **k))
    monkeypatch.setattr(fg, "patterns_for_K", lambda *a, **k: records.append(for_K(*a, **k)) or records[-1])
    found = fg.find_gates(tk.xor_margin(1), K=2, seeds=2, steps=200, hidden=8, lr=0.1, init_std=0.1, every=50,
                          n_init=5)
    assert len(calls) == 1 and len(records) == 1
    rec = records[0]
    assert [p.active for p in found.spec.pathways] == [tuple(g) for g in rec["patterns"]]
    assert [p.hidden for p in found.spec.pathways] == rec["hidden"] and sum(rec["hidden"]) == 8


def test_the_one_a0_of_a_found_or_predicted_spec_is_one_geometric_mean():
    """Three copies took a geometric mean for the one number a spec holds: Prediction.to_spec (equal a0s
    as they are, the mean kept between the values), checkpoints.start_a0 and find_gates_in_run's
    init_std (plain exp(mean(log)), one ulp off for equal values). Kept: to_spec's.

    By hand: pathways of equal widths h have equal a0 = a0_rule(σ, [h, h]), whose geometric mean is that
    number itself; W1 = ±0.02 and W2 = ±0.03 (mean 0) have σ = 0.02 and 0.03, a0 = ¼(σ₁² h + σ₂² h) = 0.00065 at h = 2.
    The plain formula gave 6.91666666666667e-05 for 6.916666666666666e-05 (the run below, 165 of 200 random
    starts were off); of 1e-4 and 1e-2 the mean is 1e-3, within rounding, and always within the two."""
    from theorykit.analysis.checkpoints import start_a0
    from theorykit.analysis.findgates import geometric_mean
    from theorykit.net.starts import a0_rule

    W = [np.arange(24.0).reshape(8, 3) * 1e-3, np.arange(16.0).reshape(2, 8) * 1e-3]
    stds = [float(np.std(w)) for w in W]
    for h in (1, 4, 5):
        assert start_a0(W, [h, h, h]) == a0_rule(stds, [h, h]) == start_a0(W, [h])
    signs = np.array([[1.0, -1.0], [-1.0, 1.0]])
    W = [0.02 * signs, 0.03 * signs[:1]]
    assert np.isclose(start_a0(W, [2, 2]), 0.25 * (0.02 ** 2 * 2 + 0.03 ** 2 * 2), rtol=1e-12)
    rng = np.random.default_rng(0)
    for _ in range(100):
        v = 10.0 ** rng.uniform(-12, 2, size=rng.integers(1, 5))
        g = geometric_mean(v)
        assert min(v) <= g <= max(v) and np.isclose(g, np.exp(np.mean(np.log(v))), rtol=1e-12)
        assert geometric_mean([v[0]] * 3) == v[0]
    assert np.isclose(geometric_mean([1e-4, 1e-2]), 1e-3, rtol=1e-12)
