"""theorykit.io: result files are written atomically. A write that fails part-way leaves the old
file as it was and no temporary file behind; a bad output path is an error naming that path."""
import errno
import json
import os

import pytest
from hypothesis import given, settings, strategies as st

from theorykit import io


def _names(folder):
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def old(tmp_path):
    f = tmp_path / "result.json"
    f.write_text('{"old": true}\n')
    return f


def test_new_file_is_written_whole_with_ordinary_permissions(tmp_path):
    f = tmp_path / "sub" / "r.json"
    io.write_json(f, {"a": [1, 2.5]})
    assert json.loads(f.read_text()) == {"a": [1, 2.5]} and _names(f.parent) == ["r.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert f.stat().st_mode & 0o777 == 0o666 & ~umask


def test_failed_rename_keeps_the_old_file_and_removes_the_temporary(old, monkeypatch):
    def boom(src, dst):
        raise OSError(errno.EIO, "simulated failure in rename")

    monkeypatch.setattr(io.os, "replace", boom)
    with pytest.raises(OSError, match="simulated failure"):
        io.write_json(old, {"new": True})
    assert old.read_text() == '{"old": true}\n' and _names(old.parent) == ["result.json"]


class _HalfWriter:
    """A file object that writes half of the data, then fails as a full disk would."""

    def __init__(self, fh):
        self.fh = fh

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.fh.close()

    def write(self, data):
        self.fh.write(data[: len(data) // 2])
        self.fh.flush()
        raise OSError(errno.ENOSPC, "No space left on device (simulated)")

    def __getattr__(self, name):
        return getattr(self.fh, name)


def test_write_failing_part_way_keeps_the_old_file_and_removes_the_temporary(old, monkeypatch):
    real = os.fdopen
    seen = []

    def half(fd, *a, **kw):
        seen.append(fd)
        return _HalfWriter(real(fd, *a, **kw))

    monkeypatch.setattr(io.os, "fdopen", half)
    with pytest.raises(OSError, match="No space left"):
        io.atomic_write_text(old, "x" * 10000)
    assert seen, "the writer did not go through os.fdopen: this test no longer tests it"
    assert old.read_text() == '{"old": true}\n' and _names(old.parent) == ["result.json"]


def test_interrupt_during_fsync_keeps_the_old_file_and_removes_the_temporary(old, monkeypatch):
    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(io.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        io.atomic_write_bytes(old, b"new contents")
    assert old.read_text() == '{"old": true}\n' and _names(old.parent) == ["result.json"]


def test_non_finite_number_is_refused_before_the_file_is_touched(old):
    with pytest.raises(ValueError, match="non-finite"):
        io.write_json(old, {"loss": [1.0, float("nan")]})
    assert old.read_text() == '{"old": true}\n' and _names(old.parent) == ["result.json"]


def test_bad_output_paths_name_the_path(tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(NotADirectoryError) as ei:
        io.atomic_write_text(tmp_path / "afile" / "r.json", "{}")
    assert ei.value.filename == str(tmp_path / "afile" / "r.json")
    with pytest.raises(IsADirectoryError) as ei:
        io.atomic_write_text(tmp_path, "{}")
    assert ei.value.filename == str(tmp_path) and "folder" in ei.value.strerror
    assert _names(tmp_path) == ["afile"] and (tmp_path / "afile").read_text() == "x"


def test_figures_are_written_by_one_renderer(tmp_path):
    """write_figure writes a PNG atomically (no temporary file left) and closes a pyplot figure;
    png_bytes on a figure drawn without pyplot never imports pyplot (a notebook keeps its backend):
    checked in a fresh interpreter."""
    import subprocess
    import sys

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from theorykit.io import write_figure

    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    path = write_figure(fig, tmp_path / "a.png", tight=True)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png"]
    assert not plt.fignum_exists(fig.number)
    code = ("import sys; from matplotlib.figure import Figure; from matplotlib.backends.backend_agg import "
            "FigureCanvasAgg; from theorykit.io import png_bytes; f = Figure(); FigureCanvasAgg(f); "
            "f.add_subplot().plot([0, 1]); b = png_bytes(f); "
            "print(b[:4] == b'\\x89PNG', 'matplotlib.pyplot' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "False"]


@settings(max_examples=200)
@given(st.text(st.characters(blacklist_categories=("Cs",))))
def test_spec_writer_strings_round_trip_through_toml(v):
    """Any name a spec file can hold is written back as a TOML string that reads as the same text:
    control characters included (the fuzzer found a name with U+001C written raw, an unreadable file)."""
    import tomllib

    from theorykit.spec.files import _toml_str

    assert tomllib.loads("n = " + _toml_str(v))["n"] == v


def test_a_weight_file_error_reports_the_shape_as_stored(tmp_path):
    """A 2-D (3, 2) array for an edge that needs (1, 3): the message gives (3, 2), the array the user
    stored, not the (1, 3, 2) the reader makes of it by adding a seed axis (docs/specs.md quotes it)."""
    import re

    from theorykit.errors import SpecError
    from theorykit.net.layout import Net
    from theorykit.sim.weights import check_weights
    import numpy as np

    net = Net.chain(2, [3], 1)
    good = {k: np.zeros(s) for k, s in net.shapes().items()}
    bad = dict(good, **{net.keys[-1]: np.zeros((3, 2))})
    with pytest.raises(SpecError, match=re.escape("has shape (3, 2), the edge needs (1, 3)")):
        check_weights(bad, net, 1, "float64", "init weights")


def test_a_killed_writers_temporary_file_is_swept_and_no_other(tmp_path, monkeypatch):
    """SIGKILL between mkstemp and the rename leaves ``.tk<pid>-….tmp`` behind (no ``except`` runs).
    The next atomic write into that folder removes such a file when it is an hour old and its
    process is gone; a fresh one (a write in progress) and one of a running process stay."""
    import os
    import subprocess
    import sys
    import time

    import theorykit.io as tio

    monkeypatch.setattr(tio, "_SWEPT", set())
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead_pid = int(dead.stdout)        # a process that has exited (its number is free again)
    old = time.time() - 2 * 3600
    stale = tmp_path / f".tk{dead_pid}-abc.tmp"
    fresh = tmp_path / f".tk{dead_pid}-def.tmp"
    alive = tmp_path / f".tk{os.getpid()}-ghi.tmp"
    other = tmp_path / "notes.tmp"
    for f in (stale, fresh, alive, other):
        f.write_text("partial")
    for f in (stale, alive, other):
        os.utime(f, (old, old))
    tio.atomic_write_text(tmp_path / "result.json", "{}")
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([fresh.name, alive.name, other.name, "result.json"])


def test_a_symbolic_link_as_output_is_written_through(tmp_path):
    """An output path that is a link (results/latest.json -> run7/out.json) gets its target replaced
    and stays a link; a rename over it replaced the link with a file and left the target stale."""
    import os

    from theorykit.io import atomic_write_text

    (tmp_path / "run7").mkdir()
    target = tmp_path / "run7" / "out.json"
    target.write_text("old")
    link = tmp_path / "latest.json"
    os.symlink(target, link)
    atomic_write_text(link, "new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new"
    dangling = tmp_path / "next.json"                     # a link whose target does not exist yet
    os.symlink(tmp_path / "run7" / "next.json", dangling)
    atomic_write_text(dangling, "first")
    assert dangling.is_symlink() and (tmp_path / "run7" / "next.json").read_text() == "first"
