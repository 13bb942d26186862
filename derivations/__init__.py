"""Derivation scripts of the paper's results, installed as ``theorykit.derivations``.

Each module has a ``derive()`` function returning its results and LaTeX, and runs as a script:
``python -m theorykit.derivations.<name>``.
"""
import os
import sys


class _ReaderMayLeave:
    """stdout whose reader may leave before the output ends (``… | head``): the rest of the text is dropped
    and the script goes on, so the files it writes (``--latex``, ``--json``) are still written."""

    def __init__(self, stream):
        self.stream, self.reader_left = stream, False

    def _gone(self):
        self.reader_left = True
        try:    # the interpreter's last flush at exit must not fail again
            os.dup2(os.open(os.devnull, os.O_WRONLY), self.stream.fileno())
        except (OSError, ValueError, AttributeError):
            pass

    def write(self, text):
        if not self.reader_left:
            try:
                return self.stream.write(text)
            except BrokenPipeError:
                self._gone()
        return len(text)

    def flush(self):
        if not self.reader_left:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._gone()

    def __getattr__(self, name):
        return getattr(self.stream, name)


def run_script(main, argv) -> int:
    """``main(argv)`` as a script: where stdout's reader left early it exits 141 (SIGPIPE's status, as the
    ``theorykit`` commands do) with no traceback, after writing its files."""
    out = sys.stdout = _ReaderMayLeave(sys.stdout)
    status = main(argv)
    out.flush()
    return 141 if out.reader_left else status
