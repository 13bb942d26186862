"""Shared test settings: Hypothesis profiles and per-dtype tolerance tables."""
import os

import matplotlib
import pytest
from hypothesis import HealthCheck, settings

matplotlib.use("Agg")

# fast: CI, derandomized (the same examples on every run, so a CI result can be reproduced);
# thorough: local runs, random (>= 2000 examples per property, new examples each run). Select with
# HYPOTHESIS_PROFILE=thorough python -m pytest tests/
settings.register_profile("fast", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

#: tolerances per dtype for comparisons of a computation with an exact reference
TOL = {
    "float64": {"rtol": 1e-10, "atol": 1e-12},
    "float32": {"rtol": 1e-4, "atol": 1e-6},
}


@pytest.fixture
def tol():
    return TOL


# the validation suites' modules, loaded once per test module (their verdict rules are tested on hand-made
# results: tests/test_verdicts.py, tests/test_suite_verdict_rules.py)
def _suite_fixture(name):
    @pytest.fixture(scope="module", name=name)
    def fixture():
        from theorykit.suites import load_suite

        return load_suite(name)
    return fixture


lemmas, gates, xor, contexts = (_suite_fixture(n) for n in ("lemmas", "gates", "xor", "contexts"))


# ------------------------------------------------------------------------------------------------
# In CI (CI=true, set by .ci/run) the one accepted skip is a test that needs a GPU, and it must say so
# with a reason from tests/_gpu.py (a fixed prefix; a reason that merely mentions "GPU" is not one): a
# test that would skip for a missing tool or package (chromium, pdflatex, mkdocs, safetensors, ...)
# fails instead, so a green CI run means the test ran. Outside CI such tests still skip, saying why.
# On the GPU machine (THEORYKIT_GPU_CI=1, set by .ci/gpu) a test that skips for want of a GPU fails
# instead: a JAX without CUDA there would otherwise leave every GPU check skipped and the run green.
# A skip because this GPU's model lacks a capability (tests/_gpu.py gpu_model) is accepted there while a
# GPU is present.
# ------------------------------------------------------------------------------------------------
IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
ON_GPU_CI = os.environ.get("THEORYKIT_GPU_CI", "").strip().lower() in ("true", "1", "yes")


def _skip_reason(rep) -> str:
    lr = rep.longrepr
    if isinstance(lr, tuple) and len(lr) == 3:
        return str(lr[2])
    return str(lr)


def _strict_skip(rep):
    if not (IN_CI or ON_GPU_CI) or not rep.skipped or hasattr(rep, "wasxfail"):
        return
    from _gpu import device_kind, reason_kind

    reason = _skip_reason(rep)
    kind = reason_kind(reason)
    if ON_GPU_CI and kind is not None:
        gpu = device_kind()
        if kind == "gpu_model" and gpu is not None:
            return
        rep.outcome = "failed"
        rep.longrepr = (f"skipped on the GPU machine (THEORYKIT_GPU_CI), where GPU tests must run; JAX sees "
                        f"{'no GPU (install jax with CUDA there)' if gpu is None else 'the GPU ' + repr(gpu)}: "
                        f"{reason}")
        return
    if not IN_CI or kind == "no_gpu":
        return
    rep.outcome = "failed"
    rep.longrepr = ("skipped in CI, where only GPU tests may skip, with a reason from tests/_gpu.py "
                    f"(no_gpu / needs_gpu); install what it needs: {reason}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _strict_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _strict_skip(outcome.get_result())


@pytest.fixture
def cheap_lemmas(monkeypatch):
    """The lemmas suite with its six stages stubbed out (interlacing; restrictions; positive data;
    gate patterns; census; figure -- its docstring and docs/validation.md's row): it advances its
    progress six times, once per stage, and computes nothing, for tests of progress alone."""
    from theorykit.suites import load_suite

    lemmas = load_suite("lemmas")
    for name in ("_interlacing_random", "_interlacing_exact", "_section4_restrictions", "_positive_data",
                 "_gate_characterisation", "_section4_pattern_counts", "_census", "_figure"):
        monkeypatch.setattr(lemmas, name, lambda *a, **k: {})
    monkeypatch.setattr(lemmas, "_claims", lambda results: [])
    return lemmas
