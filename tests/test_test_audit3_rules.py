"""Rules found by a test auditor (stated tolerances and the CI skip rule): the reasons tests/_gpu.py gives
for a GPU skip, read the way tests/conftest.py reads them. The skip rule itself, run in a throwaway pytest
under CI=true and THEORYKIT_GPU_CI=1, is in tests/test_gpu_readiness_rules.py."""
from __future__ import annotations

import pytest

import _gpu


def _reason(mark) -> str | None:
    """The reason a skipif mark gives when it skips, None when it does not skip."""
    (cond,), kw = mark.args, mark.kwargs
    return kw["reason"] if cond else None


def test_a_reason_that_mentions_gpu_is_not_a_gpu_skip():
    """Only the two prefixes count, at the start, with pytest's "Skipped: " in front or not."""
    for r in ("needs a GPU (x)", "needs chromium to render the GPU page", "GPU-free path missing scipy",
              "CUDA", "x no GPU: y"):
        assert _gpu.reason_kind(r) is None and _gpu.reason_kind("Skipped: " + r) is None, r
    assert _gpu.reason_kind("Skipped: " + _gpu.no_gpu("x")) == "no_gpu"
    assert _gpu.reason_kind(_gpu.gpu_model("x")) == "gpu_model"


@pytest.mark.parametrize("kind, want", [(None, "no_gpu"), ("Tesla T4", "gpu_model"), ("NVIDIA H100 80GB HBM3", None),
                                        ("NVIDIA H200", None)])
def test_needs_gpu_names_what_is_missing(monkeypatch, kind, want):
    """No GPU: the no-GPU reason; a GPU of another model: the model reason, naming the model seen and the
    ones needed; an H100 or H200: no skip."""
    monkeypatch.setattr(_gpu, "device_kind", lambda: kind)
    reason = _reason(_gpu.needs_gpu("a measured refusal", kinds=("H100", "H200")))
    assert (reason is None) if want is None else (_gpu.reason_kind(reason) == want), reason
    if want == "gpu_model":
        assert "Tesla T4" in reason and "H100" in reason and "a measured refusal" in reason
    assert _reason(_gpu.needs_gpu("any GPU")) == (_gpu.no_gpu("any GPU") if kind is None else None)


def test_the_fake_gpu_is_read_only_from_its_variable(monkeypatch):
    monkeypatch.setenv(_gpu.FAKE_ENV, "Tesla T4")
    assert _gpu.device_kind() == "Tesla T4" and _gpu.gpu_present()
