"""mkdocs hook: serve theorykit's vendored KaTeX (theorykit/assets/katex) under javascripts/katex/.

The documentation then typesets its mathematics with no network, from the same KaTeX files that
the HTML validation report inlines, without a second copy of them in docs/.
"""
from pathlib import Path

from mkdocs.structure.files import File


def on_files(files, config):
    root = Path(config["config_file_path"]).resolve().parent / "theorykit" / "assets" / "katex"
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix in {".js", ".css", ".woff2"}:
            uri = "javascripts/katex/" + p.relative_to(root).as_posix()
            files.append(File.generated(config, uri, abs_src_path=str(p)))
    return files
