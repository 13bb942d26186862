"""Derivation scripts of the paper's results, installed as ``theorykit.derivations``.

Each module has a ``derive()`` function returning its results and LaTeX, and runs as a script:
``python -m theorykit.derivations.<name>``.
"""
import sys

from theorykit.io import ReaderMayLeave


def run_script(main, argv=None) -> int:
    """``main(argv)`` as a script (``argv``: the command line's arguments by default): where stdout's reader
    left early it exits 141 (SIGPIPE's status, as the ``theorykit`` commands do) with no traceback, after
    writing its files."""
    out = sys.stdout = ReaderMayLeave(sys.stdout)
    status = main(sys.argv[1:] if argv is None else argv)
    out.flush()
    return 141 if out.reader_left else status
