"""Finds the validation suites and derivation scripts.

They live in the top-level folders ``validation/`` and ``derivations/`` of the source tree and
are installed as ``theorykit.validation`` and ``theorykit.derivations``; from a source checkout
that is not installed, they are found beside the ``theorykit`` folder. Either way
``theorykit validate …`` works from any folder.

A suite module defines ``NAME``, ``DESCRIPTION`` and ``run(out_dir, mode, progress=True) -> dict``
(``mode`` is ``"quick"`` or ``"full"``); it writes its figures into ``out_dir`` and returns its
results, which the command line writes as ``out_dir/<NAME>.json``.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

__all__ = ["load_suite", "available_suites", "load_package"]

SUITES = ("xor", "contexts", "depth", "gates", "lemmas")


def load_package(kind: str):
    """Import ``theorykit.validation`` or ``theorykit.derivations`` (installed or from the checkout)."""
    full = f"theorykit.{kind}"
    try:
        return importlib.import_module(full)
    except ModuleNotFoundError as exc:
        if exc.name != full:
            raise
    root = Path(__file__).resolve().parent.parent / kind
    init = root / "__init__.py"
    if not init.is_file():
        raise ModuleNotFoundError(f"cannot find the {kind} package (looked for {full} and {root})", name=full)
    spec = importlib.util.spec_from_file_location(full, init, submodule_search_locations=[str(root)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[full] = mod
    spec.loader.exec_module(mod)
    return mod


def available_suites() -> list[str]:
    pkg = load_package("validation")
    folder = Path(pkg.__file__).parent
    return [s for s in SUITES if (folder / f"{s}.py").is_file()]


def load_suite(name: str):
    load_package("validation")
    return importlib.import_module(f"theorykit.validation.{name}")
