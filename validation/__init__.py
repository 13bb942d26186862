"""Validation suites: symbolic predictions beside simulated networks.

Installed as ``theorykit.validation``; run with ``theorykit validate SUITE --quick --out DIR`` or
``theorykit validate all --quick --out DIR``. Each suite module defines ``NAME``, ``DESCRIPTION`` and
``run(out_dir, mode, progress=True) -> dict``; it writes its figures into ``out_dir`` and returns a
JSON-able dict with a ``"claims"`` list (paper claim → our figure → agreement → verdict): one dict per
claim, with ``"claim"`` (the paper's claim), ``"ours"`` (our figure), ``"agreement"`` (the rule the
verdict follows) and ``"verdict"``: ``"confirmed"``, ``"partly"``, ``"not borne out"`` or ``"n/a"``
(:func:`theorykit.report.verdict_class` maps a few other words and counts a word it does not know as
``"n/a"``). A suite runs only once its name is in ``theorykit.suites.SUITES``.

The runner (:func:`run_suites`)

* runs each suite in a staging folder ``OUT/.staging/<suite>.<host>.<pid>/`` and moves every file it wrote into
  ``OUT`` with an atomic rename only once the suite has returned, then writes ``OUT/<suite>.json``
  atomically, then the suite's cache entry ``OUT/.cache/<suite>.json``. An interrupted run
  therefore leaves no half-written file in ``OUT`` and no cache entry for the unfinished suite:
  the next run resumes at that suite. Every run first removes the staging folders that killed runs
  of any suite on this host left (not a running process's, nor another host's), and ``OUT/.staging``
  once it is empty;
* skips a suite whose cache entry matches: the same key (a hash of the suite name, the mode, the
  suite's source, the theorykit version and package sources, the versions of JAX, NumPy, SciPy,
  SymPy and python-flint, the JAX backend, and the example spec files ``examples/**/*.toml``, see
  :func:`cache_key`) and an
  unchanged ``<suite>.json`` and figures (checked by SHA-256), unless ``force``;
* refuses, before running anything, a ``quick`` run into a folder that holds a suite's ``full`` result
  (``OUT/<suite>.json`` with ``"mode": "full"``, hours of GPU time), unless ``force``: a quick
  result would replace it;
* records a suite that raises as failed (its error and traceback), goes on with the others and
  returns 1 at the end;
* with ``report=True`` (``validate all``) writes ``results.json`` (all suites, all claims, failures)
  and the reports ``report.md`` and ``report.html`` (:mod:`theorykit.report`).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import time
import traceback
from pathlib import Path

import theorykit
from theorykit.errors import SpecError
from theorykit.io import (COMPUTING_PACKAGES, PENDING, _running, atomic_write_text, json_text, software_versions,
                          write_json)
from theorykit.progress import checked_progress, is_flag
from theorykit.report import _figures, build_results, write_reports
from theorykit.spec import files as spec_files

__all__ = ["run_suites", "cache_key", "code_fingerprint", "load_cached", "CACHE_DIR", "STAGING_DIR"]

CACHE_DIR = ".cache"
STAGING_DIR = ".staging"
#: theorykit modules and packages that do not change what a suite computes (left out of the cache key):
#: the interfaces above the suites (no suite imports them; the runner's report is written afresh)
_NOT_IN_KEY = {"report.py", "bench.py", "bench_derive.py", "bench_repl.py", "progress.py", "__main__.py"}
_DIRS_NOT_IN_KEY = ("cli",)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _hash_tree(root: Path, skip_dirs=(), skip_files=(), pattern: str = "*.py") -> str:
    """SHA-256 over the relative paths and contents of the files matching ``pattern`` (``.py``) under ``root``."""
    h = hashlib.sha256()
    root = Path(root)
    for p in sorted(root.rglob(pattern)):
        rel = p.relative_to(root)
        if "__pycache__" in rel.parts or (rel.parts and rel.parts[0] in skip_dirs):
            continue
        if len(rel.parts) == 1 and rel.name in skip_files:
            continue
        h.update(str(rel.as_posix()).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


_FINGERPRINT = None


def code_fingerprint() -> dict:
    """The theorykit version, the versions of the packages that compute beside it and the JAX backend,
    and hashes of the package's sources, of the derivation scripts and of the example spec files
    (``examples/**/*.toml``, which suites read)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        from theorykit.suites import load_package

        core = Path(theorykit.__file__).resolve().parent
        import jax

        # what computes the numbers besides theorykit: another JAX (its random bits), NumPy, SymPy or
        # SciPy, or another device, must not reuse a cached verdict; read from the one record of them
        # that every result file carries (theorykit.io.software_versions)
        versions = software_versions(computes=True)
        fp = {"theorykit_version": theorykit.__version__,
              "dependencies": {m: versions[m] for m in COMPUTING_PACKAGES},
              "backend": jax.default_backend(),
              "theorykit_sources": _hash_tree(core, skip_dirs=("validation", "derivations", "assets",
                                                               *_DIRS_NOT_IN_KEY), skip_files=_NOT_IN_KEY)}
        try:
            der = Path(load_package("derivations").__file__).resolve().parent
            fp["derivations_sources"] = _hash_tree(der)
        except ModuleNotFoundError:
            fp["derivations_sources"] = None
        # the example spec files suites read (e.g. depth_protocols: examples/section6_*.toml)
        ex = _examples_dir()
        fp["example_specs"] = _hash_tree(ex, pattern="*.toml") if ex is not None else None
        _FINGERPRINT = fp
    return dict(_FINGERPRINT)


def _examples_dir():
    """The folder ``theorykit.spec.files.example_path`` reads spec files from: the checkout's ``examples/``,
    else the copy installed with the package; None if there is none."""
    here = Path(spec_files.__file__).resolve().parents[1]
    for cand in (here.parent / "examples", here / "examples"):
        if cand.is_dir() and any(cand.glob("*.toml")):
            return cand
    return None


def _suite_source(mod) -> str:
    """Hash of the suite module's source and of the helper modules beside it: private ones (``_*.py``) and
    the suite's own (``<suite>_*.py``, e.g. ``xor_figures.py``)."""
    path = Path(mod.__file__).resolve()
    h = hashlib.sha256(path.read_bytes())
    for p in sorted(set(path.parent.glob("_*.py")) | set(path.parent.glob(f"{path.stem}_*.py"))):
        if p.name != "__init__.py":
            h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def cache_key(name: str, mode: str, mod) -> str:
    """The cache key of one suite run: a hash of (name, mode, suite source, version, package sources,
    example spec files)."""
    blob = json.dumps({"suite": name, "mode": mode, "suite_source": _suite_source(mod), **code_fingerprint()},
                      sort_keys=True)
    return _sha256(blob.encode())


def load_cached(out: Path, name: str, key: str):
    """The cached result of suite ``name`` if its cache entry, JSON and figures are intact, else None."""
    out = Path(out)
    entry_path = out / CACHE_DIR / f"{name}.json"
    result_path = out / f"{name}.json"
    try:
        entry = json.loads(entry_path.read_text("utf-8"))
        data = result_path.read_bytes()
        if (not isinstance(entry, dict) or entry.get("key") != key
                or entry.get("json_sha256") != _sha256(data)):
            return None
        files = entry.get("files") or {}
        if not isinstance(files, dict):     # a damaged entry is a cache miss, not a crash of the run
            return None
        if any(_sha256((out / fname).read_bytes()) != digest for fname, digest in files.items()):
            return None
        return json.loads(data)
    except (OSError, ValueError):
        return None


def _move_staged(stage: Path, out: Path) -> list[str]:
    """Move every file under ``stage`` to the same place under ``out`` (atomic renames, same filesystem)."""
    moved = []
    for p in sorted(stage.rglob("*")):
        if p.is_file():
            rel = p.relative_to(stage)
            dest = out / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(p, dest)
            moved.append(rel.as_posix())
    return moved


def _stage_name(name: str) -> str:
    """This process's staging folder for suite ``name``: ``<name>.<host>.<pid>``. The host is part of
    it: two batch jobs on two nodes (or in two containers, where process numbers start again at 1)
    writing into one shared ``OUT`` may have the same process number."""
    return f"{name}.{_stage_host()}.{os.getpid()}"


def _stage_host() -> str:
    """This host's name as staging folders carry it (:func:`_stage_name`)."""
    import socket

    return "".join(c if c.isalnum() or c in "-_." else "_" for c in socket.gethostname()) or "localhost"


def _clear_left_stages(staging: Path, name: str | None) -> None:
    """Remove the staging folders that an interrupted or killed run left in ``staging``: for suite
    ``name``, ``<name>`` (the form before staging folders carried a process number), and
    ``<name>.<host>.<pid>`` (:func:`_stage_name`) of this host whose process no longer runs, or is
    this one; for ``name=None``, ``<suite>.<host>.<pid>`` of every suite (a name without a dot, as
    every suite's is) of this host whose process no longer runs, so a suite killed and never run
    again leaves no folder behind. A running process's folder is left alone: it is another run of
    the same suite, into the same folder; so is another host's, whose processes cannot be asked (a
    shared file system: its process numbers mean nothing here)."""
    try:
        entries = list(os.scandir(staging))
    except OSError:
        return
    host = _stage_host()
    for entry in entries:
        stem, _, pid = entry.name.rpartition(".")
        if name is None:
            suite, dot, stem_host = stem.partition(".")     # a suite's name has no dot; a host's may
            left = (bool(suite) and bool(dot) and stem_host == host and pid.isdigit() and
                    int(pid) != os.getpid() and not _running(int(pid)))
        else:
            left = entry.name == name or (stem in (f"{name}.{host}", name) and pid.isdigit() and
                                          (int(pid) == os.getpid() or not _running(int(pid))))
        if left and entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)


def _log(msg: str, enabled: bool = True):
    if enabled:
        print(msg, file=sys.stderr, flush=True)


def _refuse_replacing_full(out: Path, names) -> None:
    """A SpecError on --out when ``out`` holds the full result of one of ``names`` (an unreadable
    ``<suite>.json`` is no full result: it is re-run as any damaged one is)."""
    full = []
    for name in names:
        try:
            if json.loads((out / f"{name}.json").read_text("utf-8")).get("mode") == "full":
                full.append(name)
        except (OSError, ValueError, AttributeError):
            continue
    if full:
        raise SpecError("--out", f"{out} holds the full run of {', '.join(full)}: a quick run would replace it",
                        "give the quick run another --out, or add --force to replace the full results")


def _device() -> str:
    """The device the suite's JAX computations ran on, e.g. ``cpu:0`` or ``cuda:0 (NVIDIA H100 …)``."""
    import jax

    d = jax.devices()[0]
    kind = getattr(d, "device_kind", "")
    return f"{d}" if d.platform == "cpu" or not kind else f"{d} ({kind})"


def _describe(res: dict, mod) -> None:
    """The suite's ``DESCRIPTION`` as its result's ``description`` (the report's line under the suite's
    heading), unless the suite gave one."""
    desc = getattr(mod, "DESCRIPTION", None)
    if isinstance(desc, str) and desc and not res.get("description"):
        res["description"] = desc


def run_suites(out: Path, mode: str, names, force: bool = False, progress=True, report: bool = False) -> int:
    """Run the named suites into ``out``; returns 0, or 1 if any suite failed.

    See the module docstring for caching, atomicity and resuming. ``progress``: True or False turns the
    suites' progress bars and the runner's lines on stderr on or off (None: off); a caller's own
    progress object or tqdm bar (:func:`theorykit.progress.checked_progress`) is handed to each suite,
    the runner's lines shown. Anything else is a SpecError naming ``progress``, before any suite runs.
    """
    from theorykit.suites import load_suite

    if mode not in ("quick", "full"):
        raise ValueError(f"mode must be 'quick' or 'full', got {mode!r}")
    checked_progress(progress)
    # the runner's lines: a flag's own truth; never bool() of a caller's bar (tqdm's raises without a total)
    lines = bool(progress) if is_flag(progress) else True
    out = Path(out)
    names = list(names)
    if mode == "quick" and not force:
        _refuse_replacing_full(out, names)
    out.mkdir(parents=True, exist_ok=True)
    # what killed runs of any suite left here (this host's dead processes), not only of the suites
    # run now: a suite killed and never run again would otherwise leave its folder for ever
    _clear_left_stages(out / STAGING_DIR, None)
    results, failed, status = {}, {}, {}
    t_all = time.time()
    for i, name in enumerate(names, 1):
        tag = f"[{i}/{len(names)}] {name}"
        try:
            mod = load_suite(name)
            key = cache_key(name, mode, mod)
        except Exception as exc:  # a suite that cannot even be imported is a failed suite
            failed[name] = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(),
                            "stage": "import"}
            status[name] = "failed"
            _log(f"{tag}: FAILED to import: {type(exc).__name__}: {exc}")
            continue
        if not force:
            cached = load_cached(out, name, key)
            if cached is not None:
                _describe(cached, mod)
                results[name] = cached
                status[name] = "cached"
                _log(f"{tag}: up to date, skipped (cached {out / (name + '.json')}; --force re-runs it)", lines)
                continue
        # a staging folder of this process's own: another run of this suite into OUT at the same
        # time (a second batch job) has its own, and a run cleared the other's as its leftover
        stage = out / STAGING_DIR / _stage_name(name)
        _clear_left_stages(out / STAGING_DIR, name)
        stage.mkdir(parents=True)
        PENDING.add(str(stage))     # removed by the command line if it must end the process at once
        _log(f"{tag}: running ({mode}) …", lines)
        t0 = time.time()
        try:
            res = mod.run(stage, mode, progress=progress)
            if not isinstance(res, dict):
                raise TypeError(f"suite {name!r} returned {type(res).__name__}, expected a dict")
            res = dict(res)
            res.setdefault("suite", name)
            res.setdefault("mode", mode)
            _describe(res, mod)
            res.setdefault("device", _device())     # the report names the device beside the mode
            # what computed it (theorykit's version and sources, NumPy, SymPy, JAX and its backend): a
            # suite's JSON shared alone says it, not only the hidden cache entry beside it
            res.setdefault("fingerprint", code_fingerprint())
            res["seconds"] = time.time() - t0
            res["cache_key"] = key
            json_text = _json_text(res)  # refuses NaN before anything is moved
        except Exception as exc:
            failed[name] = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc(),
                            "stage": "run", "seconds": time.time() - t0}
            status[name] = "failed"
            shutil.rmtree(stage, ignore_errors=True)
            PENDING.discard(str(stage))
            _log(f"{tag}: FAILED after {time.time() - t0:.1f}s: {type(exc).__name__}: {exc}")
            continue
        except BaseException:   # Ctrl-C: the suite's half-made figures go, not left in OUT/.staging
            shutil.rmtree(stage, ignore_errors=True)
            PENDING.discard(str(stage))
            with contextlib.suppress(OSError):
                (out / STAGING_DIR).rmdir()
            raise
        moved = _move_staged(stage, out)
        shutil.rmtree(stage, ignore_errors=True)
        PENDING.discard(str(stage))
        atomic_write_text(out / f"{name}.json", json_text)
        files = {f: _sha256((out / f).read_bytes()) for f in sorted(set(moved) | {f for f, _ in _figures(res)})
                 if (out / f).is_file()}
        write_json(out / CACHE_DIR / f"{name}.json",
                   {"suite": name, "mode": mode, "key": key, "json_sha256": _sha256(json_text.encode()),
                    "files": files, "finished": time.strftime("%Y-%m-%dT%H:%M:%S"), "seconds": res["seconds"],
                    "fingerprint": code_fingerprint()})
        results[name] = res
        status[name] = "ran"
        _log(f"{tag}: done in {res['seconds']:.1f}s, wrote {out / (name + '.json')}", lines)
    with contextlib.suppress(OSError):
        (out / STAGING_DIR).rmdir()
    if report:
        results_doc = build_results(mode, results, failed, status=status, seconds=time.time() - t_all)
        write_json(out / "results.json", results_doc)
        paths = write_reports(results_doc, out)
        _log("wrote " + ", ".join(str(p) for p in [out / "results.json", *paths]), lines)
    if failed:
        where = "errors in the report / results.json" if report else "the error of each is above"
        _log(f"{len(failed)} suite(s) failed: {', '.join(failed)} ({where})")
        return 1
    return 0


def _json_text(obj) -> str:
    try:
        return json_text(obj)
    except ValueError as exc:
        where = _nonfinite_path(obj)
        raise ValueError(f"{exc}" + (f" at {where}" if where else "")) from None


def _nonfinite_path(obj, path="result"):
    """Where the first NaN or infinity sits in a suite's result (for the error message)."""
    import math

    import numpy as np

    if isinstance(obj, (dict, list, tuple)):
        for k, v in obj.items() if isinstance(obj, dict) else enumerate(obj):
            p = _nonfinite_path(v, f"{path}[{k!r}]")      # a list's index: repr(i) == str(i)
            if p:
                return p
    elif isinstance(obj, np.ndarray):
        bad = np.argwhere(~np.isfinite(obj)) if obj.dtype.kind in "fc" else []
        return f"{path}[{', '.join(map(str, bad[0]))}]" if len(bad) else None
    elif isinstance(obj, (float, np.floating)) and not math.isfinite(float(obj)):
        return path
    return None
