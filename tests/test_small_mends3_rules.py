"""Small mends of the twelfth session (the maintainer's own list).

- The signal watchdog's pipe: a process with no file descriptor left (EMFILE) made ``os.pipe()`` raise
  before ``main()``'s clean-up began, so a command ended in an OSError traceback (exit 1) where it
  can run on without a watchdog, as it does where the wakeup fd is another library's.
- ``io.ReaderMayLeave.writelines`` (stdout of the commands and the derivation scripts) reached the
  stream itself, so ``… | head`` raised BrokenPipeError there; it drops the rest as ``write`` does.
"""
import errno
import os

from pathlib import Path

import theorykit.cli as cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_no_file_descriptor_left_runs_without_a_watchdog(monkeypatch):
    def no_fd():
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(os, "pipe", no_fd)
    assert cli._Watchdog.start(term=True, ctrl_c=False) is None


def test_a_command_runs_when_no_pipe_can_be_made(monkeypatch, capsys):
    def no_fd():
        raise OSError(errno.EMFILE, "Too many open files")

    monkeypatch.setattr(os, "pipe", no_fd)
    # the XoR task's derivation, printed: it needs no file descriptor of its own
    assert cli.main(["derive", str(EXAMPLES / "xor_reln.toml")]) == 0
    assert "Traceback" not in capsys.readouterr().err


class _LeftPipe:
    """A stdout whose reader has left: every write fails as a closed pipe's does."""
    def __init__(self):
        self.writes = 0

    def write(self, text):
        self.writes += 1
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_writelines_to_a_reader_that_left_drops_the_rest():
    """``writelines`` went to the stream itself (``__getattr__``), so a reader that left raised
    BrokenPipeError there where ``write`` drops the rest: both now take the same way."""
    from theorykit.io import ReaderMayLeave

    inner = _LeftPipe()
    out = ReaderMayLeave(inner)
    out.writelines(["a\n", "b\n", "c\n"])
    assert out.reader_left and inner.writes == 1        # the first failed; the others were dropped
