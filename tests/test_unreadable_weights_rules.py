"""An --init-weights (or any .npz) file that exists but may not be read is a permissions problem, not a
bad file: its error says so, naming the option, and does not tell the user to save the weights again
(it said "is not a readable .npz (PermissionError: …)" with the fix "save the weights with numpy.savez").
The tests run as any user: the permission error is raised by a stand-in for zipfile.ZipFile, as the
operating system raises it for a file of mode 000 (root may read such a file, so chmod cannot show it)."""
import zipfile

import numpy as np
import pytest

from theorykit.errors import SpecError
from theorykit.sim.weights import read_npz


def _denied(*a, **kw):
    raise PermissionError(13, "Permission denied")


def test_an_npz_that_may_not_be_read_says_permission_and_how_to_fix(tmp_path, monkeypatch):
    path = tmp_path / "W.npz"
    np.savez(path, W1=np.zeros((2, 2)))
    monkeypatch.setattr(zipfile, "ZipFile", _denied)
    with pytest.raises(SpecError) as info:
        read_npz(path, "--init-weights", "the weights file", "save the weights with numpy.savez")
    text = str(info.value)
    assert "--init-weights" in text and "Permission denied" in text and str(path) in text
    assert "may read" in text and "numpy.savez" not in text


def test_a_corrupt_npz_still_gets_the_fix_of_a_bad_file(tmp_path):
    """The other side of the rule: a file that is read but is no .npz keeps its own fix."""
    path = tmp_path / "W.npz"
    path.write_bytes(b"not a zip at all")
    with pytest.raises(SpecError) as info:
        read_npz(path, "--init-weights", "the weights file", "save the weights with numpy.savez")
    assert "numpy.savez" in str(info.value) and "not a readable .npz" in str(info.value)
