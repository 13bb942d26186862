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
