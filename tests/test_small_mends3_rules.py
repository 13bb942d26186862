"""Small mends of the twelfth session (the maintainer's own list).

- The signal watchdog's pipe: a process with no file descriptor left (EMFILE) made ``os.pipe()`` raise
  before ``main()``'s clean-up began, so a command ended in an OSError traceback (exit 1) where it
  can run on without a watchdog, as it does where the wakeup fd is another library's.
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
