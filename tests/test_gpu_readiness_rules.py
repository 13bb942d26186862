"""Rules found by a GPU-readiness auditor (no GPU): `.ci/gpu`, the script a lent GPU machine runs for
fifteen minutes in all, dry-run on the CPU with a stand-in python, and the GPU-skip rule of
tests/conftest.py.

The stand-in (``PY``) answers ``-m pip`` and ``-c`` at once, runs ``-m theorykit`` as a process that
ignores SIGTERM (as a JAX process does while its computation runs: its exit waits for the
computation), and runs ``-m pytest`` on a two-test file of the test's own, with pytest-xdist absent.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "gpu"

pytestmark = pytest.mark.skipif(sys.platform != "linux" or not Path("/usr/bin/timeout").exists(),
                                reason="needs Linux with GNU timeout (what the GPU machine has)")


def _stand_in(tmp_path: Path) -> Path:
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    (tiny / "test_tiny.py").write_text("def test_good():\n    pass\n\n\ndef test_bad():\n    assert 1 == 2\n")
    py = tmp_path / "py"
    py.write_text(textwrap.dedent(f"""\
        #!/bin/bash
        if [ "$1" = -c ]; then case "$2" in *xdist*) exit 1 ;; *) echo "stand-in: $2"; exit 0 ;; esac; fi
        case "$2" in
          pip) exit 0 ;;
          theorykit) echo "stand-in theorykit $3"; trap '' TERM; exec sleep 300 ;;
          pytest) args=(); for a in "${{@:3}}"; do case $a in tests/*|--ignore=*|--durations=*) ;; *) args+=("$a") ;; esac; done
                  cd {tiny} && exec {sys.executable} -m pytest "${{args[@]}}" test_tiny.py ;;
        esac
        exit 3
        """))
    py.chmod(0o755)
    return py


def _run(tmp_path, stage, **env):
    out = tmp_path / "out"
    e = {**os.environ, "PY": str(_stand_in(tmp_path)), "OUT": str(out), "T_KILL": "1", **env}
    e.pop("THEORYKIT_GPU_CI", None)
    proc = subprocess.Popen(["bash", str(SCRIPT), stage], cwd=ROOT, env=e, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        text, _ = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"bash .ci/gpu {stage} ran on past its stage's time limit (a stand-in that ignores "
                    "SIGTERM was never killed)")
    return proc.returncode, text, out


def test_a_stage_past_its_limit_is_killed_and_its_log_says_so(tmp_path):
    """`timeout` sends SIGTERM, which a JAX process running a computation outlives (on this CPU a
    `bench` and a `race-exhaust` ran 12 minutes past a 30 s limit); the limit must hold, and the log,
    which is all that comes back, must say the stage was cut and by which variable."""
    rc, _text, out = _run(tmp_path, "bench", T_BENCH="1")
    log = (out / "bench.log").read_text()
    assert "stand-in theorykit bench" in log
    assert "stopped at its time limit" in log and "T_BENCH=1" in log
    assert rc in (124, 137)


def test_failed_tests_are_named_without_xdist(tmp_path):
    """`tests` ends its log with the tests that failed. Without pytest-xdist (the stand-in has none)
    pytest -v names a failure `test_tiny.py::test_bad FAILED`, not `[gw0] ... FAILED`; the summary must
    name test_bad (the file's one failing test, by construction) and not say "none"."""
    _rc, _text, out = _run(tmp_path, "tests", T_GPUTESTS="60", T_TESTS="60")
    log = (out / "tests.log").read_text()
    summary = log[log.rindex("failed or errored (named as they ended):"):]
    assert "test_bad" in summary and "test_good" not in summary and "none" not in summary


def test_all_names_each_stage_and_leaves_at_most_eight_files(tmp_path):
    """`all` goes on past a stage stopped at its limit and says how each stage ended; the device tool
    brings back at most 8 files."""
    rc, _text, out = _run(tmp_path, "all", T_BENCH="1", T_RACE4="1", T_GPUTESTS="60", T_SUITES="1")
    setup = (out / "setup.log").read_text()
    line = next(l for l in setup.splitlines() if l.startswith("stages"))
    for stage in ("bench", "race4", "suites"):   # 124: ended by SIGTERM; 137: by the SIGKILL after it
        assert re.search(rf"{stage} (124|137)\b", line), line
    assert "gputests 1" in line            # the two-test file has one failure: pytest exits 1
    assert rc == 1                          # a stage that failed, not by its limit, fails the call
    assert len([p for p in out.rglob("*") if p.is_file()]) <= 8
    assert "stopped at its time limit, T_SUITES=1" in (out / "suites.log").read_text()
    tests_log = (out / "tests.log").read_text()      # the GPU-only tests' failures are named there too
    assert "test_bad" in tests_log[tests_log.rindex("failed or errored"):]


def _skip_file(tmp_path):
    d = tmp_path / "skips"
    d.mkdir()
    (d / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    (d / "_gpu.py").write_text((ROOT / "tests" / "_gpu.py").read_text())
    (d / "test_s.py").write_text("import pytest\nfrom _gpu import no_gpu\n\n\n"
                                 "@pytest.mark.skipif(True, reason=no_gpu('needs a GPU (x)'))\n"
                                 "def test_gpu():\n    pass\n")
    return d


def _run_skips(d, env):
    """pytest on d/test_s.py with only ``env`` of the skip rule's variables, and JAX on the CPU (on the
    GPU machine too, so that only THEORYKIT_TEST_FAKE_GPU can make the helper see a GPU)."""
    drop = ("CI", "THEORYKIT_GPU_CI", "THEORYKIT_TEST_FAKE_GPU")
    e = {k: v for k, v in os.environ.items() if k not in drop}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "test_s.py"], cwd=d,
                          env={**e, "JAX_PLATFORMS": "cpu", **env}, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("env, outcome", [({}, "1 skipped"), ({"CI": "true"}, "1 skipped"),
                                          ({"THEORYKIT_GPU_CI": "1"}, "1 failed")])
def test_a_gpu_skip_fails_on_the_gpu_machine(tmp_path, env, outcome):
    """A test that skips for want of a GPU is the accepted skip on the CPU (CI too), but on the GPU
    machine (.ci/gpu sets THEORYKIT_GPU_CI) it means JAX did not see the GPU: it fails there."""
    d = _skip_file(tmp_path)
    r = _run_skips(d, env)
    if outcome == "1 failed":   # a skipif mark skips at setup, so pytest counts it as an error there
        assert r.returncode == 1 and re.search(r"\b1 (failed|error)\b", r.stdout), r.stdout
        assert "THEORYKIT_GPU_CI" in r.stdout and "needs a GPU" in r.stdout
    else:
        assert r.returncode == 0 and outcome in r.stdout, r.stdout


def test_the_gpu_script_sets_the_gpu_skip_rule_and_the_docs_say_to_carry_the_wheels():
    """What .ci/gpu exports is what conftest reads; .whl/ is ignored by git, so the device tool
    carries it only when named in `carry`, which docs/scaling.md must say."""
    assert "export THEORYKIT_GPU_CI=1" in SCRIPT.read_text()
    assert ".whl/" in (ROOT / ".gitignore").read_text().split()
    scaling = (ROOT / "docs" / "scaling.md").read_text()
    assert 'carry' in scaling and '".whl"' in scaling


def test_bench_json_records_the_matmul_precision(monkeypatch, tmp_path):
    """The brief: on a GPU set the float32 matmul precision on purpose, and record it. bench.json
    named its device but not the precision its float32 figures ran at; docs/scaling.md says
    "highest" (no TF32 on an H100)."""
    from test_bench_rules import _stub_run_bench

    from theorykit import bench

    _stub_run_bench(monkeypatch)
    out = tmp_path / "b.json"
    assert bench.run_bench(quick=True, json_out=str(out)) == 0
    assert json.loads(out.read_text())["matmul_precision"] == "highest"


@pytest.mark.parametrize("env, failed", [({"CI": "true"}, True), ({"THEORYKIT_GPU_CI": "1"}, False)])
def test_other_skips_keep_their_rules(tmp_path, env, failed):
    """A skip for a missing tool still fails in CI (.ci/run) and still skips on the GPU machine."""
    d = _skip_file(tmp_path)
    (d / "test_s.py").write_text("import pytest\n\n\ndef test_tool():\n    pytest.skip('chromium missing')\n")
    r = _run_skips(d, env)
    assert (r.returncode == 1 and "1 failed" in r.stdout) if failed else (r.returncode == 0 and "1 skipped" in r.stdout)


# A skip reason that merely mentions "GPU" or "CUDA" is not a GPU skip: in CI it fails like any other
# (before, "needs chromium to render the GPU page" passed CI as a GPU skip). Only tests/_gpu.py's two
# prefixes are GPU skips: no_gpu (accepted in CI, fails on the GPU machine) and gpu_model (a GPU is
# present but of another model: accepted on the GPU machine while a GPU is present, fails in CI).
_MENTIONS = ("import pytest\n\n\ndef test_tool():\n"
             "    pytest.skip('needs chromium to render the GPU page; GPU-free path missing scipy (CUDA)')\n")
_MODEL = ("import pytest\nfrom _gpu import needs_gpu\n\n\n"
          "@needs_gpu('a measured refusal', kinds=('H100', 'H200'))\ndef test_hopper():\n    pass\n")


@pytest.mark.parametrize("body, env, outcome", [
    (_MENTIONS, {"CI": "true"}, "failed"),
    (_MENTIONS, {}, "skipped"),
    (_MODEL, {"THEORYKIT_GPU_CI": "1", "THEORYKIT_TEST_FAKE_GPU": "Tesla T4"}, "skipped"),
    (_MODEL, {"CI": "true", "THEORYKIT_TEST_FAKE_GPU": "Tesla T4"}, "failed"),
    (_MODEL, {"THEORYKIT_GPU_CI": "1", "THEORYKIT_TEST_FAKE_GPU": "NVIDIA H200"}, "passed"),
    (_MODEL, {"THEORYKIT_GPU_CI": "1"}, "failed"),         # no GPU: needs_gpu says no_gpu, which fails there
    (_MODEL, {"CI": "true"}, "skipped"),                    # no GPU in CI: the accepted skip
])
def test_only_the_helpers_gpu_reasons_are_gpu_skips(tmp_path, body, env, outcome):
    d = _skip_file(tmp_path)
    (d / "test_s.py").write_text(body)
    r = _run_skips(d, env)
    if outcome == "failed":     # a skipif mark skips at setup, so pytest counts it as an error there
        assert r.returncode == 1 and re.search(r"\b1 (failed|error)\b", r.stdout), r.stdout
    else:
        assert r.returncode == 0 and f"1 {outcome}" in r.stdout, r.stdout
    if "Tesla T4" in env.get("THEORYKIT_TEST_FAKE_GPU", "") and outcome == "skipped":
        assert "Tesla T4" in r.stdout and "H100" in r.stdout       # -ra names the model and what it needs


def test_every_gpu_skip_in_tests_uses_the_helper():
    """A GPU skip written by hand (reason "needs a GPU ...") now fails in CI; none may be left in tests/."""
    bad = []
    for f in sorted((ROOT / "tests").glob("*.py")):
        for i, line in enumerate(f.read_text().splitlines(), 1):
            if re.search(r"skip(if)?\(", line) and re.search(r"GPU|CUDA", line) and "_gpu" not in f.name \
                    and not re.search(r"no_gpu\(|needs_gpu\(|gpu_model\(", line) and f.name != Path(__file__).name:
                bad.append(f"{f.name}:{i}: {line.strip()}")
    assert not bad, bad
