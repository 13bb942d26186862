"""Review fixes: safetensors headers that lie in ways the size checks missed (absurd sizes of a
zero-size tensor, negative offsets, a key given twice), and atomic writes of long output names with
every error naming the output path. The safetensors files are written by hand (8-byte little-endian
header length, JSON header, data), so these tests need neither torch nor the safetensors package."""
import errno
import json
import struct

import numpy as np
import pytest

from theorykit import io
from theorykit.analysis.safetensors_io import read_safetensors
from theorykit.errors import SpecError


def _st(path, header, data=b""):
    """A safetensors file from a header given as a dict or as raw JSON text."""
    h = (header if isinstance(header, str) else json.dumps(header)).encode("utf-8")
    path.write_bytes(struct.pack("<Q", len(h)) + h + data)
    return path


def _refused(path, *parts):
    with pytest.raises(SpecError) as ei:
        read_safetensors(path)
    msg = str(ei.value)
    assert path.name in msg and all(p in msg for p in parts), msg
    return msg


# --- safetensors: absurd sizes ----------------------------------------------------------------

def test_zero_size_tensor_with_absurd_sizes_is_refused(tmp_path):
    big = 2 ** 62 - 1
    f = _st(tmp_path / "w.safetensors", {"W1": {"dtype": "F32", "shape": [big, big, 0], "data_offsets": [0, 0]}})
    msg = _refused(f, "'W1'", ".shape", "absurd")
    assert "cannot reshape" not in msg


def test_absurd_sizes_exit_2_from_the_cli(tmp_path, capsys):
    pytest.importorskip("sklearn")
    from theorykit.cli import main

    big = 2 ** 62 - 1
    for s in (0, 1):
        _st(tmp_path / f"step_{s}.safetensors",
            {"W1": {"dtype": "F32", "shape": [big, big, 0], "data_offsets": [0, 0]}})
    np.savez(tmp_path / "data.npz", X=np.eye(2), Y=np.eye(2))
    rc = main(["find-gates", "--checkpoints", str(tmp_path / "step_*.safetensors"), "--data",
               str(tmp_path / "data.npz"), "--out", str(tmp_path / "f.toml")])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "step_0.safetensors" in err and "'W1'" in err and "internal error" not in err
    assert not (tmp_path / "f.toml").exists()


def test_zero_size_tensors_of_sensible_sizes_still_read(tmp_path):
    f = _st(tmp_path / "w.safetensors",
            {"E": {"dtype": "F64", "shape": [0, 1000], "data_offsets": [0, 0]},
             "W": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}},
            np.array([1.5, -2.0], "<f4").tobytes())
    arrays, meta = read_safetensors(f)
    assert arrays["E"].shape == (0, 1000) and arrays["W"].tolist() == [1.5, -2.0] and meta == {}


def test_files_written_by_safetensors_still_read(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    want = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "z": np.zeros((0, 4), np.float64)}
    safetensors_numpy.save_file(want, str(tmp_path / "w.safetensors"), metadata={"lr": "0.1"})
    arrays, meta = read_safetensors(tmp_path / "w.safetensors")
    assert meta == {"lr": "0.1"} and set(arrays) == set(want)
    for k in want:
        assert arrays[k].shape == want[k].shape and np.array_equal(arrays[k], want[k])


# --- safetensors: offsets ---------------------------------------------------------------------

@pytest.mark.parametrize("offs", [[-8, 24], [-4, 0], [24, -8], [32, 0]])
def test_offsets_out_of_order_or_negative_are_refused_clearly(tmp_path, offs):
    f = _st(tmp_path / "w.safetensors", {"W1": {"dtype": "F32", "shape": [2, 4], "data_offsets": offs}},
            bytes(32))
    msg = _refused(f, "'W1'", "data_offsets", str(offs), "0 <= begin <= end")
    assert "need" not in msg                    # not a size comparison that contradicts itself


@pytest.mark.parametrize("offs", [[0.0, 32.0], [0, "32"], [0, True], [0], [0, 32, 64]])
def test_offsets_that_are_not_two_whole_numbers_are_refused(tmp_path, offs):
    f = _st(tmp_path / "w.safetensors", {"W1": {"dtype": "F32", "shape": [2, 4], "data_offsets": offs}},
            bytes(32))
    _refused(f, "'W1'", "data_offsets", "whole numbers")



def test_tensors_whose_data_overlap_are_refused_naming_the_later_key(tmp_path):
    """read_safetensors' docstring: overlapping tensors are an error naming the file and the key. W1
    (two F32, bytes 0-8) and W2 (two F32, bytes 4-12) share bytes 4-8: read as written, W2 would start
    with W1's second number. Laid end to end (0-8, 8-16) the same header reads."""
    data = struct.pack("<4f", 1.0, 2.0, 3.0, 4.0)
    head = {"W1": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
            "W2": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}
    _refused(_st(tmp_path / "w.safetensors", head, data), "'W2'", "data_offsets", "overlaps", "'W1'")
    head["W2"]["data_offsets"] = [8, 16]
    arrays, _ = read_safetensors(_st(tmp_path / "ok.safetensors", head, data))
    assert arrays["W1"].tolist() == [1.0, 2.0] and arrays["W2"].tolist() == [3.0, 4.0]

# --- safetensors: duplicate keys --------------------------------------------------------------

def test_a_tensor_named_twice_is_refused(tmp_path):
    header = ('{"W1": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, '
              '"W1": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}')
    f = _st(tmp_path / "w.safetensors", header, bytes(8))
    _refused(f, "header", "'W1'", "twice")


def test_a_field_named_twice_inside_an_entry_is_refused(tmp_path):
    header = '{"W1": {"dtype": "F64", "dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}'
    f = _st(tmp_path / "w.safetensors", header, bytes(8))
    _refused(f, "header", "'dtype'", "twice")


# --- atomic writes ----------------------------------------------------------------------------

def test_long_output_name_is_written(tmp_path):
    """A 250-character name is valid (the limit is 255); the temporary name must not push it over."""
    f = tmp_path / ("r" * 245 + ".json")
    io.write_json(f, {"a": 1})
    assert json.loads(f.read_text()) == {"a": 1} and [p.name for p in tmp_path.iterdir()] == [f.name]
    io.atomic_write_bytes(f, b"again")
    assert f.read_bytes() == b"again" and [p.name for p in tmp_path.iterdir()] == [f.name]


def test_temporary_file_name_is_short_and_hidden_in_the_same_folder(tmp_path, monkeypatch):
    seen = []
    real = io.os.replace

    def spy(src, dst):
        seen.append((str(src), str(dst)))
        return real(src, dst)

    monkeypatch.setattr(io.os, "replace", spy)
    f = tmp_path / ("x" * 200 + ".txt")
    io.atomic_write_text(f, "hi")
    (src, dst), = seen
    assert dst == str(f) and src.startswith(str(tmp_path) + "/.") and len(src) - len(str(tmp_path)) < 40


def test_too_long_output_name_is_an_error_naming_the_output(tmp_path):
    f = tmp_path / ("r" * 300)
    with pytest.raises(OSError) as ei:
        io.atomic_write_text(f, "x")
    assert ei.value.errno == errno.ENAMETOOLONG and ei.value.filename == str(f)
    assert list(tmp_path.iterdir()) == []


def test_failed_rename_names_the_output_not_the_temporary(tmp_path, monkeypatch):
    def boom(src, dst):
        raise PermissionError(errno.EACCES, "Permission denied", str(src), None, str(dst))

    monkeypatch.setattr(io.os, "replace", boom)
    f = tmp_path / "r.json"
    with pytest.raises(PermissionError) as ei:
        io.write_json(f, {"a": 1})
    assert ei.value.filename == str(f) and ei.value.filename2 is None and ".tmp" not in str(ei.value)
    assert list(tmp_path.iterdir()) == []


def test_failed_temporary_file_names_the_output(tmp_path, monkeypatch):
    def boom(prefix=None, suffix=None, dir=None, **kw):
        raise PermissionError(errno.EACCES, "Permission denied", f"{dir}/{prefix}abc{suffix}")

    monkeypatch.setattr(io.tempfile, "mkstemp", boom)
    f = tmp_path / "r.json"
    with pytest.raises(PermissionError) as ei:
        io.atomic_write_text(f, "{}")
    assert ei.value.filename == str(f) and ei.value.strerror == "Permission denied"
