"""Every .tex theorykit writes goes through pdflatex (Debian's texlive; .ci/run installs it):
``derive --latex`` and the suites' ``xor_crossover.tex`` and ``k_contexts.tex``. Page 1 is rendered
to PNG (pdftoppm) and must not be blank. Skips, saying why, without pdflatex or pdftoppm."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from theorykit.cli import main

PDFLATEX, PDFTOPPM = shutil.which("pdflatex"), shutil.which("pdftoppm")
pytestmark = pytest.mark.skipif(PDFLATEX is None or PDFTOPPM is None,
                                reason="pdflatex/pdftoppm not installed (Debian: apt-get install texlive-latex-base "
                                       "texlive-latex-recommended poppler-utils; .ci/run installs them)")
EX = Path(__file__).resolve().parents[1] / "examples"


def compile_tex(tex: Path) -> dict:
    """pdflatex in nonstop mode (stops at the first error); returns errors, overfull boxes, page-1 PNG."""
    r = subprocess.run([PDFLATEX, "-interaction=nonstopmode", "-halt-on-error", tex.name], cwd=tex.parent,
                       capture_output=True, text=True, errors="replace", timeout=120)
    log = tex.with_suffix(".log").read_text(errors="replace")
    errors = re.findall(r"^! .*$", log, flags=re.M)
    assert r.returncode == 0 and not errors, f"{tex.name}: {errors[:3]}\n{r.stdout[-1500:]}"
    pdf = tex.with_suffix(".pdf")
    subprocess.run([PDFTOPPM, "-png", "-r", "40", "-f", "1", "-l", "1", "-singlefile", pdf.name, "page1"],
                   cwd=tex.parent, check=True, timeout=60)
    import matplotlib.image as mpimg

    img = mpimg.imread(tex.parent / "page1.png")
    return {"overfull": len(re.findall(r"^Overfull \\hbox", log, flags=re.M)),
            "ink": float(np.mean(img[..., :3] < 0.5))}


def test_the_checker_catches_an_error(tmp_path):
    bad = tmp_path / "bad.tex"
    bad.write_text(r"\documentclass{article}\begin{document}\text{$x}\end{document}")
    with pytest.raises(AssertionError):
        compile_tex(bad)


@pytest.mark.parametrize("spec,sets", [("xor_linear.toml", []), ("xor_reln.toml", ["--set", "Delta=1"]),
                                       ("contexts_double.toml", [])])
def test_derive_latex_compiles(tmp_path, spec, sets):
    tex = tmp_path / "d.tex"
    assert main(["derive", str(EX / spec), *sets, "--latex", str(tex), "--json", str(tmp_path / "d.json")]) == 0
    res = compile_tex(tex)
    assert res["ink"] > 0.002, res          # page 1 has text on it
    if spec != "contexts_double.toml":      # its 24-column X runs past the margin; the XoR documents fit
        assert res["overfull"] == 0, res


def test_names_with_tex_characters_compile(tmp_path):
    # Names may hold any printable character. Written into LaTeX as they were, "50%" began a comment
    # and "&" an alignment cell, and pdflatex stopped; each is now escaped.
    spec = tmp_path / "s.toml"
    spec.write_text('name = "50% of h_1 & {x} #2 $5 ~a^b \\\\ end"\n[data]\ninputs = [[1, 0], [0, 1]]\n'
                    'targets = [[1, 0]]\n[[pathways]]\nname = "p_1 50% & #{}"\nactive = [1, 0]\n'
                    '[[pathways]]\nname = "q~^$ \\\\x ctx1-12"\nactive = "all"\n')
    tex = tmp_path / "d.tex"
    assert main(["derive", str(spec), "--latex", str(tex)]) == 0
    assert compile_tex(tex)["ink"] > 0.002


def _named_spec_compiles(tmp_path, name) -> bool:
    """A spec and its one pathway both called ``name``: derive's LaTeX compiles, with ink on page 1."""
    spec = tmp_path / "s.toml"
    spec.write_text(f'name = "{name}"\n[data]\ninputs = [[1, 0], [0, 1]]\ntargets = [[1, 0]]\n'
                    f'[[pathways]]\nname = "{name}"\nactive = [1, 0]\n', encoding="utf-8")
    tex = tmp_path / "d.tex"
    assert main(["derive", str(spec), "--latex", str(tex)]) == 0
    return compile_tex(tex)["ink"] > 0.002


@pytest.mark.parametrize("name", ["Weg-ä", "ctx α Δ", "通路", "ά-x"])
def test_names_in_other_scripts_compile(tmp_path, name):
    # Names may be in any script. pdflatex stopped at "ä" in math mode (an accent), at "α" and at
    # "通" (no definition); Greek letters are now their macros, other letters sit in \text{}, and a
    # character pdflatex cannot typeset is printed as its code point ([U+901A]).
    assert _named_spec_compiles(tmp_path, name)


#: every printable Latin-1 and Latin Extended-A character (U+00A1..U+017F), 56 to a name
_LATIN = [c for c in map(chr, range(0xA1, 0x180)) if c.isprintable() and c != "\u00ad"]


@pytest.mark.parametrize("part", range(4))
def test_every_latin_letter_in_a_name_compiles(tmp_path, part):
    # pdflatex stopped at "ð", "þ", "«", "ą" and 23 more Latin letters: LaTeX's utf8 maps them to
    # commands (\dh, \guillemotleft, \k{a}) that its default OT1 font encoding lacks. They now print
    # as their code point under pdflatex, like a character with no definition at all.
    name = "".join(_LATIN[56 * part:56 * (part + 1)])
    assert name
    assert _named_spec_compiles(tmp_path, name)


def test_xor_crossover_tex_compiles_without_overfull_boxes(tmp_path):
    from theorykit.derivations.xor_crossover import derive
    from theorykit.theory.latex import latex_document

    tex = tmp_path / "xor_crossover.tex"
    # as validation/xor.py writes it
    tex.write_text(latex_document(r"XoR with a margin: the two ReLNs and the crossover $\Delta^\ast$",
                                  derive()["latex"]))
    res = compile_tex(tex)
    assert res["ink"] > 0.002 and res["overfull"] == 0, res


def test_k_contexts_tex_compiles(tmp_path):
    from theorykit.theory import k_contexts as kc

    tex = tmp_path / "k_contexts.tex"
    res_k = kc.derive(check_ks=range(2, 4), n_check=2, race_check=False, exact_check=False)
    tex.write_text(res_k.latex)
    res = compile_tex(tex)
    assert res["ink"] > 0.002 and res["overfull"] == 0, res
    # Jupyter's view: one line of repr (it printed 5,000 characters of expressions and checks), and a
    # typeset table of each family's s, d, s/d (the common pathway's sectors, then k-1, single, r)
    assert "\n" not in repr(res_k) and len(repr(res_k)) < 200 and "2 numeric checks" in repr(res_k)
    view = res_k._repr_latex_()
    assert view.count(r"\\") == len(res_k.common) + 3 - 1 and view.count("s/d = ") == len(res_k.common) + 3
    frag = tmp_path / "view.tex"
    frag.write_text("\\documentclass{article}\\usepackage{amsmath}\\begin{document}\n" + view + "\n\\end{document}\n")
    assert compile_tex(frag)["ink"] > 0.001
