"""pyproject.toml: what setuptools needs to build without deprecation warnings (issue 14 item 5)."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_spdx_license_and_declared_package_data():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert cfg["project"]["license"] == "MIT"                      # an SPDX string, not a table
    assert any(r.startswith("setuptools>=7") and int(r.split(">=")[1].split(".")[0]) >= 77
               for r in cfg["build-system"]["requires"])         # PEP 639 needs setuptools 77
    st = cfg["tool"]["setuptools"]
    packages, data = set(st["packages"]), st["package-data"]
    # every file under theorykit/assets is in a declared package and matched by its package data
    import fnmatch

    for f in (ROOT / "theorykit" / "assets").rglob("*"):
        if not f.is_file():
            continue
        pkg = ".".join(f.parent.relative_to(ROOT).parts)
        assert pkg in packages, f"{pkg} is not in [tool.setuptools] packages"
        assert any(fnmatch.fnmatch(f.name, pat) for pat in data.get(pkg, [])), f"{f} is not package data"
    deps = " ".join(cfg["project"]["dependencies"])
    assert "tqdm" in deps and "safetensors" not in deps        # checkpoints are read by theorykit itself
    assert any(r.startswith("safetensors") for r in cfg["project"]["optional-dependencies"]["test"])  # the tests' writer
