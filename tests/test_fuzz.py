"""Bad input never crashes: a fuzzer over valid and mutated specs of every kind, run through the CLI.

Each case runs ``check``, ``derive`` and (for a share of the cases, each compiles a JAX program)
a short ``simulate`` via :func:`theorykit.cli.main`. The outcome is a success (the result file is
written; derived and simulated initial losses agree) or exit 2 with one message naming a field and
no file left behind. CI runs THEORYKIT_FUZZ_CASES (default 200) derandomized cases; the long
campaign is ``python -m theorykit.fuzz --cases 10000``.
"""
import math
import os
import tempfile
import tomllib

from hypothesis import HealthCheck, given, settings

from theorykit import fuzz
from theorykit.spec.files import spec_from_dict

CASES = int(os.environ.get("THEORYKIT_FUZZ_CASES", "200"))
SIM_SHARE = float(os.environ.get("THEORYKIT_FUZZ_SIMULATE", "0.15"))


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


@given(fuzz.cases())
def test_toml_writer_round_trips(case):
    if case.raw is None:
        assert _same(tomllib.loads(fuzz.to_toml(case.doc)), case.doc)


@given(fuzz.valid_specs())
def test_every_valid_spec_kind_parses(item):
    kind, doc, sets = item
    spec = spec_from_dict(doc)
    assert spec.pathways and kind in fuzz.SPEC_KINDS


@settings(max_examples=CASES, deadline=None, suppress_health_check=list(HealthCheck))
@given(fuzz.cases(mutate=0.85, simulate=SIM_SHARE))
def test_fuzz_bad_input_never_crashes(case):
    with tempfile.TemporaryDirectory(prefix="tkfuzz-") as tmp:
        out = fuzz.run_case(case, tmp, time_limit=300, estimate_limit=30)
    assert out.kind in ("success", "error"), f"{out.kind}: {out.detail}\n{case!r}\n{out.commands}"


def test_a_crash_is_detected(tmp_path, monkeypatch):
    """The oracle can fail: a command that raises an unexpected exception is a crash."""
    import theorykit.cli as cli

    def boom(args):
        raise TypeError("Cannot convert complex to float")

    monkeypatch.setattr(cli, "cmd_check", boom)
    case = fuzz.Case("pathways", {"data": {"inputs": [[1]], "targets": [[1]]},
                                  "pathways": [{"name": "a", "active": "all"}]}, simulate=False)
    out = fuzz.run_case(case, tmp_path)
    assert out.kind == "crash" and "exit status 70" in out.detail


def test_an_unnamed_error_is_detected(tmp_path, monkeypatch):
    import theorykit.cli as cli
    from theorykit.errors import TheorykitError

    def vague(args):
        raise TheorykitError("something went wrong")

    monkeypatch.setattr(cli, "cmd_derive", vague)
    case = fuzz.Case("pathways", {"data": {"inputs": [[1]], "targets": [[1]]},
                                  "pathways": [{"name": "a", "active": "all"}]}, simulate=False)
    out = fuzz.run_case(case, tmp_path)
    assert out.kind == "crash" and "without naming a field" in out.detail
