"""Rules from the second code review of the merges of 6276e7c..main (a careful senior engineer
reviewing the batch-job, error-message, reproducibility and API-consistency merges): each test
failed before its fix."""
import os
import socket

from validation import run_suites

# a process number above Linux's largest (pid_max ≤ 2**22): no process has it
NO_PROCESS = 2 ** 22 + 1


# ------------------------------------------------------------------------------------------
# validate: two jobs on two nodes (or in two containers) share one --out on a shared file system
# ------------------------------------------------------------------------------------------
# The staging folder was .staging/<suite>.<pid>/, and a run cleared every folder of its suite whose
# process number was its own or did not run on this machine. Two batch jobs on two nodes writing into
# one shared OUT can have the same process number (containers start theirs again at 1): job B took
# job A's folder for its own leftover and removed A's half-made figures (A then finished without
# them); and a folder of a job on another node, whose process number means nothing here, was cleared
# as a dead process's. Now the folder is .staging/<suite>.<host>.<pid>/, and only this host's are cleared.
def test_a_job_on_another_host_with_the_same_pid_keeps_the_first_ones_figures(tmp_path, monkeypatch):
    from theorykit.suites import load_suite

    out = tmp_path / "res"
    host = ["node-a"]
    monkeypatch.setattr(socket, "gethostname", lambda: host[0])
    # a folder of a job running on a third node, whose process number is not running here
    other = out / ".staging" / f"lemmas.node-c.{NO_PROCESS}"
    other.mkdir(parents=True)
    (other / "c.png").write_bytes(b"C")
    calls = []

    def run(stage, mode, progress=True):
        calls.append(stage.name)
        if len(calls) == 1:                     # job A, on node-a: B starts on node-b while A runs
            (stage / "a.png").write_bytes(b"A")
            host[0] = "node-b"
            assert run_suites(out, "quick", ["lemmas"], force=True, progress=False) == 0
            host[0] = "node-a"
        else:
            (stage / "b.png").write_bytes(b"B")
        return {"claims": []}

    monkeypatch.setattr(load_suite("lemmas"), "run", run)
    assert run_suites(out, "quick", ["lemmas"], force=True, progress=False) == 0
    assert (out / "a.png").read_bytes() == b"A"     # A's figure, made before B ran
    assert (out / "b.png").read_bytes() == b"B"
    assert (other / "c.png").read_bytes() == b"C"   # node-c's job is not this host's to judge
    assert calls == [f"lemmas.node-a.{os.getpid()}", f"lemmas.node-b.{os.getpid()}"]


def test_a_dead_process_folder_of_this_host_is_still_cleared(tmp_path, monkeypatch):
    from theorykit.suites import load_suite

    out = tmp_path / "res"
    monkeypatch.setattr(socket, "gethostname", lambda: "node-a")
    left = [out / ".staging" / "lemmas", out / ".staging" / f"lemmas.{NO_PROCESS}",
            out / ".staging" / f"lemmas.node-a.{NO_PROCESS}"]
    for d in left:
        d.mkdir(parents=True)
        (d / "half.png").write_bytes(b"x")
    monkeypatch.setattr(load_suite("lemmas"), "run", lambda stage, mode, progress=True: {"claims": []})
    assert run_suites(out, "quick", ["lemmas"], force=True, progress=False) == 0
    assert not (out / ".staging").exists()
    assert not (out / "half.png").exists()


# ------------------------------------------------------------------------------------------
# sweep.json records the device it ran on
# ------------------------------------------------------------------------------------------
# io.software_versions records JAX's backend and device only where JAX has computed (88238c4), and a
# sweep writes its manifest (with "versions") before it computes anything: from the command line its
# record never named the backend or device, so a sweep started on a GPU and resumed on a CPU kept the
# GPU's chunks without the note "ran under other versions or on another device" the resume promises.
# A fresh process, as `theorykit sweep` runs; the expected backend is asked of JAX here.
def test_a_fresh_sweeps_manifest_names_its_jax_backend_and_device(tmp_path):
    import json
    import subprocess
    import sys
    import textwrap

    import jax

    out = tmp_path / "sw"
    code = textwrap.dedent(f"""
        import theorykit as tk
        from theorykit.analysis.sweep import parse_grid, run_sweep
        from theorykit.spec.files import example_path
        spec = tk.load_spec(example_path("xor_linear.toml"))
        run_sweep(spec, parse_grid(["Delta=0.5"], spec.task.symbols), seeds=1, steps=2, out={str(out)!r},
                  progress=False)
        """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    versions = json.loads((out / "sweep.json").read_text())["versions"]
    assert versions.get("jax_backend") == jax.default_backend()
    assert versions.get("jax_device", "").startswith(str(jax.devices()[0]))
