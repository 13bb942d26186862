"""The only skip reasons a GPU test may give, and whether a GPU is present (tests/conftest.py reads both).

Two fixed prefixes, so that the CI skip rule (tests/conftest.py ``_strict_skip``) matches a reason
exactly rather than any mention of "GPU":

- ``NO_GPU``: the test needs a GPU and JAX sees none. Accepted in CI (CI=true, no GPU there); fails on
  the GPU machine (THEORYKIT_GPU_CI=1), where it means JAX did not find the GPU.
- ``GPU_MODEL``: a GPU is present but this model lacks what the test needs (e.g. a check measured on an
  H100/H200). Accepted on the GPU machine only while a GPU is present; in CI it cannot arise honestly
  (no GPU) and fails.

Every other skip reason, whatever words it has, is an ordinary skip: it fails in CI.
"""
from __future__ import annotations

import os

import pytest

NO_GPU = "no GPU: "
GPU_MODEL = "this GPU model lacks it: "

#: read only here, only by the throwaway pytest of tests/test_gpu_readiness_rules.py: pretend JAX sees a
#: GPU of this device kind (e.g. "Tesla T4"), to test the GPU machine's rule on a CPU
FAKE_ENV = "THEORYKIT_TEST_FAKE_GPU"


def device_kind() -> str | None:
    """The first GPU's device kind (e.g. "NVIDIA H100 80GB HBM3"), or None when JAX sees no GPU."""
    fake = os.environ.get(FAKE_ENV, "").strip()
    if fake:
        return fake
    import jax

    return jax.devices()[0].device_kind if jax.default_backend() == "gpu" else None


def gpu_present() -> bool:
    return device_kind() is not None


def no_gpu(why: str) -> str:
    """The reason of a skip for want of a GPU: ``no_gpu("the compiled Triton kernel")``."""
    return NO_GPU + why


def gpu_model(why: str) -> str:
    """The reason of a skip on a GPU of the wrong model: ``gpu_model("needs an H100 or H200 ...")``."""
    return GPU_MODEL + why


def needs_gpu(why: str, kinds: tuple[str, ...] = ()):
    """A skipif mark: skip with ``no_gpu(why)`` when JAX sees no GPU, and, when ``kinds`` is given, with
    ``gpu_model(...)`` on a GPU whose device kind contains none of them."""
    kind = device_kind()
    if kind is None:
        return pytest.mark.skipif(True, reason=no_gpu(why))
    if kinds and not any(k in kind for k in kinds):
        return pytest.mark.skipif(True, reason=gpu_model(f"{why}; needs one of {', '.join(kinds)}, this is {kind}"))
    return pytest.mark.skipif(False, reason=why)


def reason_kind(reason: str) -> str | None:
    """"no_gpu", "gpu_model", or None for a skip reason as pytest reports it ("Skipped: ...")."""
    r = reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason
    if r.startswith(NO_GPU):
        return "no_gpu"
    if r.startswith(GPU_MODEL):
        return "gpu_model"
    return None
