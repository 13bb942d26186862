"""Rules from a maintainer removing copies in the simulation and analysis layers and the validation
suites (issue 26, "one way to do each thing"): each rule here pins that a job is done in one place,
and, where two copies differed, which behaviour was kept, against a reference worked out by hand.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _own_imports_inside_functions(path):
    """(line, module) of every import of theorykit's own modules (theorykit, validation, relative ones)
    that sits inside a function of ``path``."""
    tree = ast.parse(path.read_text())
    out = []
    for f in ast.walk(tree):
        if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(f):
            if isinstance(node, ast.ImportFrom):
                mod = "." * node.level + (node.module or "")
                if node.level or mod.split(".")[0] in ("theorykit", "validation"):
                    out.append((node.lineno, mod))
            elif isinstance(node, ast.Import):
                out += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "theorykit"]
    return sorted(set(out))


def test_lemmas_and_depth_protocols_suites_import_theorykit_at_the_top():
    """validation/lemmas.py imported theorykit.theory.lemmas inside six of its functions (seven
    import statements of one module, 20 in all) and depth_protocols.py theorykit inside
    run_protocols: the house rule puts them at the top, once."""
    for name in ("lemmas.py", "depth_protocols.py"):
        assert _own_imports_inside_functions(ROOT / "validation" / name) == [], name


def test_the_suite_runner_looks_up_only_the_suite_loaders_at_call_time():
    """validation/__init__.py imported theorykit.io (three times), theorykit.errors, theorykit.spec and
    theorykit itself inside functions; only theorykit.suites' loaders stay there, looked up when the
    runner runs (tests and callers replace theorykit.suites.load_suite)."""
    inner = _own_imports_inside_functions(ROOT / "validation" / "__init__.py")
    assert {mod for _line, mod in inner} == {"theorykit.suites"}, inner
