"""Rules of the checkpoint readers that a mutation check of safetensors_io.py, checkpoints.py and
sim/weights.py found unpinned: each test kills a mutant that the other tests let through.

Safetensors files here are written by hand with struct and json, per the public format (an 8-byte
little-endian unsigned header length N, N bytes of UTF-8 JSON ``{name: {dtype, shape,
data_offsets}, "__metadata__": {str: str}}``, then the data, offsets counted from the data's first
byte), so the expected arrays come from the bytes the test wrote, not from the reader. Forward
passes and a0 values are worked out by hand in the comments. No torch, no safetensors package.
"""
from __future__ import annotations

import io
import json
import os
import struct
import zipfile

import numpy as np
import pytest

import theorykit as tk

from theorykit.analysis.checkpoints import (RunCheckpoints, find_gates_in_run, load_checkpoints, load_data,
                                            paired_start, parse_layers, parse_steps, run_settings, split_units,
                                            start_a0)
from theorykit.analysis.safetensors_io import check_metadata, read_checkpoint, read_safetensors
from theorykit.errors import SpecError
from theorykit.net.layout import Net
from theorykit.sim.weights import check_weights, load_weights, read_npz, save_weights

X3 = np.array([[1.0, -1, 1, -1], [1, -1, -1, 1], [0.5, 0.5, -0.5, -0.5]])      # d = 3, P = 4
Y1 = np.array([[1.0, 1, -1, -1]])                                                # p = 1


# ------------------------------------------------------------------------------------------
# helpers: a safetensors file by hand, errors
# ------------------------------------------------------------------------------------------
def _st_raw(path, header, data=b"", n=None):
    """Bytes of a safetensors file: ``header`` a dict (key order kept) or JSON text; ``n`` overrides
    the declared header length."""
    h = (header if isinstance(header, str) else json.dumps(header)).encode("utf-8")
    path.write_bytes(struct.pack("<Q", len(h) if n is None else n) + h + data)
    return path


def _st(path, tensors, meta=None):
    """``tensors``: ``(name, dtype, shape, raw bytes)`` laid end to end in the order given."""
    header, data = {}, b""
    for name, dt, shape, raw in tensors:
        header[name] = {"dtype": dt, "shape": list(shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if meta is not None:
        header["__metadata__"] = meta
    return _st_raw(path, header, data)


def _f64(name, A):
    A = np.asarray(A, float)
    return (name, "F64", A.shape, struct.pack(f"<{A.size}d", *A.ravel()))


def _err(fn, *a, **kw):
    with pytest.raises(SpecError) as ei:
        fn(*a, **kw)
    return ei.value


def _good(rng=None):
    rng = np.random.default_rng(0) if rng is None else rng
    return {"W1": 0.1 * rng.standard_normal((4, 3)), "W2": 0.1 * rng.standard_normal((1, 4))}


def _run_files(tmp_path, per_step, fmt="npz", meta=None):
    """Checkpoints ``step_<s>.<fmt>`` of ``per_step`` {step: {key: array}}; returns their glob."""
    for s, arrays in per_step.items():
        if fmt == "npz":
            np.savez(tmp_path / f"step_{s}.npz", **arrays)
        else:
            _st(tmp_path / f"step_{s}.safetensors", [_f64(k, v) for k, v in arrays.items()], meta)
    return str(tmp_path / f"step_*.{fmt}")


# ------------------------------------------------------------------------------------------
# safetensors: the format
# ------------------------------------------------------------------------------------------
def test_checkpoint_suffix_is_matched_in_any_case(tmp_path):
    """read_checkpoint lower-cases the suffix: STEP_1.SAFETENSORS is a safetensors file."""
    f = _st(tmp_path / "STEP_1.SAFETENSORS", [_f64("W1", [[1.5, -2.0]])], {"lr": "0.5"})
    arrays, meta = read_checkpoint(f)
    assert arrays["W1"].tolist() == [[1.5, -2.0]] and meta == {"lr": "0.5"}


def test_a_missing_file_is_named(tmp_path):
    err = _err(read_checkpoint, tmp_path / "gone.safetensors")
    assert err.field == "--checkpoints" and "no such file" in err.problem and "gone.safetensors" in err.problem
    # read_safetensors itself: an OSError becomes an error naming the file (no traceback)
    err = _err(read_safetensors, tmp_path / "gone.safetensors")
    assert err.field == f"--checkpoints {tmp_path / 'gone.safetensors'}" and "cannot be read" in err.problem


def test_bool_tensors_are_read_as_bool(tmp_path):
    """BOOL is one byte per value, 0 or 1 (bytes 01 00 01 → True, False, True)."""
    arrays, _ = read_safetensors(_st(tmp_path / "b.safetensors", [("m", "BOOL", [3], b"\x01\x00\x01")]))
    assert arrays["m"].dtype == np.bool_ and arrays["m"].tolist() == [True, False, True]


def test_a_long_header_is_read(tmp_path):
    """The format's own reader allows headers up to 100 MB: a 20 kB metadata value is fine."""
    f = _st(tmp_path / "m.safetensors", [_f64("W1", [[1.0]])], {"note": "x" * 20_000})
    arrays, meta = read_safetensors(f)
    assert len(meta["note"]) == 20_000 and arrays["W1"].tolist() == [[1.0]]


def test_a_file_that_is_only_a_header_is_read(tmp_path):
    """No tensor data at all (8 + N bytes exactly): metadata only, or a zero-size tensor [0, 0]."""
    arrays, meta = read_safetensors(_st_raw(tmp_path / "a.safetensors", {"__metadata__": {"lr": "0.1"}}))
    assert arrays == {} and meta == {"lr": "0.1"}
    arrays, _ = read_safetensors(_st(tmp_path / "z.safetensors", [("E", "F32", [0, 3], b"")]))
    assert arrays["E"].shape == (0, 3) and arrays["E"].dtype == np.float32


def test_short_files_and_header_lengths_are_named(tmp_path):
    # 7 bytes: not even the length
    (tmp_path / "s.safetensors").write_bytes(b"\x02" + bytes(6))
    err = _err(read_safetensors, tmp_path / "s.safetensors")
    assert "7 bytes: too short" in err.problem and err.field == f"--checkpoints {tmp_path / 's.safetensors'}"
    # a declared length of 0 or 1 cannot hold a JSON object ("{}" is 2 bytes)
    for n in (0, 1):
        f = _st_raw(tmp_path / f"n{n}.safetensors", "{}", n=n)
        err = _err(read_safetensors, f)
        assert err.field.endswith(": header length") and f"{n}-byte header" in err.problem
    # a length 3 bytes past the end of the file (the 8 length bytes are not data)
    h = b'{"__metadata__": {"a": "b"}}'
    (tmp_path / "l.safetensors").write_bytes(struct.pack("<Q", len(h) + 3) + h)
    err = _err(read_safetensors, tmp_path / "l.safetensors")
    assert err.field.endswith(": header length"), err


def test_data_reaching_past_the_end_names_the_offsets(tmp_path):
    """8 bytes of data, a U8 tensor declared over bytes 0-12: the file is truncated, said at
    data_offsets (not found later, by a short read)."""
    f = _st_raw(tmp_path / "t.safetensors", {"W": {"dtype": "U8", "shape": [12], "data_offsets": [0, 12]}},
                bytes(8))
    err = _err(read_safetensors, f)
    assert err.field == f"--checkpoints {f}: key 'W'.data_offsets" and "holds 8 bytes" in err.problem


def test_shapes_up_to_eight_dimensions(tmp_path):
    """A 3-D tensor (2 × 1 × 2 F64: 1, 2, 3, 4) reads; nine dimensions are refused at .shape; a
    boolean is not a size (JSON true would read as 1)."""
    arrays, _ = read_safetensors(_st(tmp_path / "c.safetensors", [_f64("T", [[[1, 2]], [[3, 4]]])]))
    assert arrays["T"].shape == (2, 1, 2) and arrays["T"].ravel().tolist() == [1, 2, 3, 4]
    f = _st_raw(tmp_path / "n.safetensors", {"T": {"dtype": "U8", "shape": [1] * 9, "data_offsets": [0, 1]}}, b"\0")
    assert _err(read_safetensors, f).field.endswith("key 'T'.shape")
    f = _st_raw(tmp_path / "b.safetensors", {"T": {"dtype": "U8", "shape": [True, 2], "data_offsets": [0, 2]}},
                b"\0\0")
    assert _err(read_safetensors, f).field.endswith("key 'T'.shape")
    f = _st_raw(tmp_path / "o.safetensors", {"T": {"dtype": "U8", "shape": [1], "data_offsets": [False, 1]}}, b"\0")
    assert _err(read_safetensors, f).field.endswith("key 'T'.data_offsets")


def test_offsets_that_hold_more_than_the_shape_are_refused(tmp_path):
    """Two F32 need 8 bytes; offsets [0, 12] hold 12 (all inside the file)."""
    f = _st_raw(tmp_path / "w.safetensors", {"W1": {"dtype": "F32", "shape": [2], "data_offsets": [0, 12]}},
                bytes(12))
    err = _err(read_safetensors, f)
    assert err.field.endswith("key 'W1'.data_offsets") and "hold 12 bytes" in err.problem and "need 8" in err.problem


def test_tensors_listed_out_of_data_order_are_read(tmp_path):
    """The header lists B (data bytes 8-16) before A (bytes 0-8): valid, no overlap."""
    data = struct.pack("<2d", 1.25, -3.5)
    head = {"B": {"dtype": "F64", "shape": [1], "data_offsets": [8, 16]},
            "A": {"dtype": "F64", "shape": [1], "data_offsets": [0, 8]}}
    arrays, _ = read_safetensors(_st_raw(tmp_path / "o.safetensors", head, data))
    assert arrays["A"].tolist() == [1.25] and arrays["B"].tolist() == [-3.5]


def test_the_byte_limit_counts_all_tensors(tmp_path, monkeypatch):
    """THEORYKIT_MAX_BYTES = 100: one 100-byte tensor (25 F32) is within it; two 64-byte tensors
    (128 bytes) are not, and the second is named."""
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "100")
    arrays, _ = read_safetensors(_st(tmp_path / "a.safetensors", [("A", "F32", [25], bytes(100))]))
    assert arrays["A"].shape == (25,)
    f = _st(tmp_path / "b.safetensors", [("A", "F32", [16], bytes(64)), ("B", "F32", [16], bytes(64))])
    err = _err(read_safetensors, f)
    assert err.field == f"--checkpoints {f}: key 'B'" and "128 bytes" in err.problem


def test_a_file_may_declare_at_most_4_gib(tmp_path, monkeypatch):
    """MAX_NPZ_BYTES = 4 GiB = 2**32 bytes caps a file even where THEORYKIT_MAX_BYTES allows more: a
    U8 tensor declared 2**32 + 1 bytes long is refused from its shape; one of 2**32 bytes passes that
    check and is refused as truncated (the file holds 1 byte). Nothing is read or allocated."""
    monkeypatch.setenv("THEORYKIT_MAX_BYTES", "1e13")
    for n, where, says in ((2 ** 32 + 1, ".shape", f"the {2 ** 32} bytes"), (2 ** 32, ".data_offsets", "truncated")):
        f = _st_raw(tmp_path / f"big{n}.safetensors", {"B": {"dtype": "U8", "shape": [n], "data_offsets": [0, n]}},
                    b"\0")
        err = _err(read_safetensors, f)
        assert err.field.endswith("key 'B'" + where) and says in err.problem + err.fix, err


def test_arrays_read_are_ordinary_writable_arrays(tmp_path):
    arrays, _ = read_safetensors(_st(tmp_path / "w.safetensors", [_f64("W1", [[1.0, 2.0]])]))
    arrays["W1"] *= 2                                   # not a read-only view of the file's bytes
    assert arrays["W1"].tolist() == [[2.0, 4.0]]


@pytest.mark.parametrize("lr,ok", [("0", False), ("1000", True), ("1e3", True), ("1000.5", False),
                                   ("1e-9", True)])
def test_metadata_lr_bounds(tmp_path, lr, ok):
    """A learning rate is a positive number up to 1e3 (both messages say so)."""
    f = _st(tmp_path / "step_0.safetensors", [_f64("W1", [[1.0]])], {"lr": lr})
    if ok:
        assert read_checkpoint(f)[1] == {"lr": lr}
    else:
        assert _err(read_checkpoint, f).field == f"--checkpoints {f}: metadata 'lr'"


@pytest.mark.parametrize("meta", [[1, 2], "lr=0.1", 5])
def test_metadata_that_is_not_a_table_is_named(tmp_path, meta):
    f = _st_raw(tmp_path / "m.safetensors", {"__metadata__": meta})
    assert _err(read_safetensors, f).field == f"--checkpoints {f}: __metadata__"


def test_check_metadata_refuses_a_value_that_is_not_a_string(tmp_path):
    """check_metadata is public: metadata from elsewhere may hold None (float(None) is a TypeError)."""
    err = _err(check_metadata, {"lr": None}, tmp_path / "a.safetensors")
    assert err.field.endswith("metadata 'lr'")


# ------------------------------------------------------------------------------------------
# checkpoints: data, names, steps
# ------------------------------------------------------------------------------------------
def test_load_data_rows_bools_and_empty(tmp_path):
    # a 1-D Y of P targets is one output row; boolean inputs are 0/1 numbers
    np.savez(tmp_path / "d.npz", X=np.array([[True, False, True]]), Y=np.array([1.0, 2.0, 3.0]))
    X, Y = load_data(tmp_path / "d.npz")
    assert X.tolist() == [[1.0, 0.0, 1.0]] and Y.tolist() == [[1.0, 2.0, 3.0]]
    # no datapoints: refused, naming the file and X (not a traceback from max() of nothing)
    np.savez(tmp_path / "e.npz", X=np.zeros((3, 0)), Y=np.zeros((1, 0)))
    err = _err(load_data, tmp_path / "e.npz")
    assert err.field == f"--data {tmp_path / 'e.npz'}: key 'X'" and "(3, 0)" in err.problem


@pytest.mark.parametrize("key", ["b", "bias", "fc1.Bias", "layer/B2", "enc.b1"])
def test_bias_keys_are_recognised(tmp_path, key):
    """The bias pattern: a key that is, or ends in (after . _ /), 'bias' or 'b' + digits, any case."""
    ck = _run_files(tmp_path, {0: {**_good(), key: np.zeros(4)}, 1: _good()})
    err = _err(load_checkpoints, ck, (X3, Y1))
    assert f"key {key!r}" in err.field and "bias-free" in err.problem


def test_keys_that_only_look_like_biases_are_not(tmp_path):
    ck = _run_files(tmp_path, {0: {**_good(), "emb": np.zeros(2), "lambda": np.zeros(1)}, 1: _good()})
    assert load_checkpoints(ck, (X3, Y1)).widths == [4]


def test_parse_layers_edges():
    assert parse_layers("W1=fc1.weight, W2=fc2.weight,") == {"W1": "fc1.weight", "W2": "fc2.weight"}
    assert parse_layers("W1=a=b,W2=c") == {"W1": "a=b", "W2": "c"}          # split at the first '='
    err = _err(parse_layers, "W1=a,W2=b,W3=c,W4=d")
    assert err.field == "--layers" and "4 layers" in err.problem
    # W1 … W10 are "in full" (sorted by number, not as text): the message is about the count
    err = _err(parse_layers, ",".join(f"W{i}=k{i}" for i in range(1, 11)))
    assert "10 layers" in err.problem


@pytest.mark.parametrize("bad", [[0, 1.5], "-1,0", [-1, 2], [0, float("nan")], [0, float("inf")], ["a"]])
def test_parse_steps_refuses_fractions_and_negatives(bad):
    assert _err(parse_steps, bad).field == "--steps"


def test_parse_steps_accepts_whole_floats():
    assert parse_steps([0, 10.0]) == [0, 10]


def test_step_globs_and_given_steps(tmp_path):
    """'?' is a glob too; given steps go to the files in sorted name order (a before b)."""
    a, b = _good(np.random.default_rng(1)), _good(np.random.default_rng(2))
    np.savez(tmp_path / "ck_a.npz", **a)
    np.savez(tmp_path / "ck_b.npz", **b)
    run = load_checkpoints(str(tmp_path / "ck_?.npz"), (X3, Y1), steps="0,10")
    assert run.steps.tolist() == [0, 10]
    np.testing.assert_array_equal(run.weights[0][0], a["W1"])
    np.testing.assert_array_equal(run.weights[0][1], b["W1"])
    assert _err(load_checkpoints, str(tmp_path / "ck_?.npz"), (X3, Y1), steps="0").field == "--steps"
    err = _err(load_checkpoints, str(tmp_path / "ck_?.npz"), (X3, Y1), steps="5,5")
    assert err.field == "--steps" and "repeated" in err.problem


def test_a_unit_exactly_at_zero_is_off():
    """hidden_activity is 1[pre > 0]: W1 = [[1, 1, 0], [1, -1, 0]] on x = (1, 1, ·) gives
    pre = (2, 0): the second unit is off; on x = (1, -1, ·), pre = (0, 2)."""
    W1 = np.array([[1.0, 1, 0], [1, -1, 0]])
    W2 = np.array([[1.0, 1.0]])
    X = np.array([[1.0, 1.0], [1.0, -1.0], [5.0, 5.0]])
    run = RunCheckpoints(np.array([0, 1]), [np.stack([W1, W1]), np.stack([W2, W2])], ["a", "b"], X,
                         np.zeros((1, 2)))
    assert run.hidden_activity()[0][0].tolist() == [[True, False], [False, True]]
    # outputs by hand: relu(pre) summed: (2 + 0, 0 + 2)
    assert run.outputs()[0].tolist() == [[2.0, 2.0]]


# ------------------------------------------------------------------------------------------
# checkpoints: layers
# ------------------------------------------------------------------------------------------
def test_data_given_as_arrays_is_checked(tmp_path):
    """load_checkpoints(..., (X, Y)) checks the arrays as load_data checks a file's (they were used
    unchecked: NaN gave a NaN loss, a Y of other P a numpy broadcast error): errors name data: X or Y."""
    import sympy as sp

    ck = _run_files(tmp_path, {0: _good(), 1: _good()})
    Xn = X3.copy()
    Xn[0, 1] = np.nan
    assert _err(load_checkpoints, ck, (Xn, Y1)).field == "data: X"
    assert _err(load_checkpoints, ck, (X3, np.ones((1, 5)))).field == "data: Y"
    assert _err(load_checkpoints, ck, (X3, [[1, 2], [3]])).field == "data: Y"            # ragged
    assert _err(load_checkpoints, ck, (X3, Y1, Y1)).field == "data"
    # a 1-D Y is one output row, as in a file; exact numbers (a sympy Matrix) are read as floats
    run = load_checkpoints(ck, (sp.Matrix(X3.tolist()), Y1[0]))
    assert run.Y.tolist() == Y1.tolist() and run.X.dtype == np.float64 and run.X.tolist() == X3.tolist()


def test_layer_names_counted_and_named(tmp_path):
    g = _good()
    W3, W4 = np.zeros((4, 4)), np.zeros((1, 4))
    # four weight layers (three hidden): refused at W4
    ck = _run_files(tmp_path, {0: {"W1": g["W1"], "W2": W3, "W3": W3, "W4": W4}, 1: {"W1": g["W1"], "W2": W3,
                                                                                  "W3": W3, "W4": W4}})
    err = _err(load_checkpoints, ck, (X3, Y1))
    assert err.field.endswith("key 'W4'") and "4 weight layers" in err.problem
    # a first checkpoint with W1 alone (1 × 3, the data's p × d): not taken for a network without a
    # hidden layer; W2 is named missing
    d = tmp_path / "only_w1"
    d.mkdir()
    ck = _run_files(d, {0: {"W1": np.ones((1, 3))}, 1: {"W1": np.ones((1, 3))}})
    err = _err(load_checkpoints, ck, (X3, Y1))
    assert err.field.endswith("key 'W2'") and "missing" in err.problem
    # W2 without W1: the missing one is named
    d = tmp_path / "no_w1"
    d.mkdir()
    ck = _run_files(d, {0: {"W2": g["W2"], "W3": g["W2"]}, 1: g})
    assert _err(load_checkpoints, ck, (X3, Y1)).field.endswith("key 'W1'")


@pytest.mark.parametrize("bad", [np.ones((1, 4), bool), np.ones(4), np.ones((1, 1, 4))])
def test_a_layer_that_is_not_a_real_matrix_is_refused(tmp_path, bad):
    g = _good()
    ck = _run_files(tmp_path, {0: {"W1": g["W1"], "W2": bad}, 1: g})
    err = _err(load_checkpoints, ck, (X3, Y1))
    assert err.field == f"--checkpoints {tmp_path / 'step_0.npz'}: key 'W2'" and "out × in" in err.fix


def test_a_weight_at_the_limit_is_read_and_beyond_refused(tmp_path):
    """MAX_WEIGHT = 1e6: |w| = 1e6 is read; -2e6 (negative: the magnitude counts) is refused."""
    g = _good()
    ck = _run_files(tmp_path, {0: {"W1": g["W1"], "W2": np.array([[1e6, 0, 0, -1e6]])}, 1: g})
    assert load_checkpoints(ck, (X3, Y1)).weights[1][0].tolist() == [[1e6, 0, 0, -1e6]]
    d = tmp_path / "big"
    d.mkdir()
    ck = _run_files(d, {0: {"W1": g["W1"], "W2": np.array([[-2e6, 0, 0, 0]])}, 1: g})
    err = _err(load_checkpoints, ck, (X3, Y1))
    assert err.field.endswith("key 'W2'") and "magnitude 2e+06" in err.problem


def test_run_settings_given_values_win(tmp_path):
    ck = _run_files(tmp_path, {0: _good(), 1: _good()}, "safetensors", {"lr": "0.1", "loss": "sum"})
    run = load_checkpoints(ck, (X3, Y1))
    assert run_settings(run) == (0.1, "sum")                         # from the metadata
    assert run_settings(run, lr=0.5, loss="mean") == (0.5, "mean")    # given: they win
    assert _err(run_settings, run, lr=0.0).field == "--lr"
    run.meta = {"lr": "0.1"}
    assert run_settings(run) == (0.1, "mean")                         # the default loss is mean


# ------------------------------------------------------------------------------------------
# the paired start and Algorithm 1 on a run
# ------------------------------------------------------------------------------------------
def test_start_a0_is_the_geometric_mean_over_pathways():
    """W1 = [[1, -1]] (std 1), W2 = [[2], [-2]] (std 2): per pathway of width h, a0 = ¼(1·h + 4·h)
    = 1.25 h; widths 1 and 4: 1.25 and 5, geometric mean √(1.25 · 5) = 2.5 (arithmetic: 3.125)."""
    assert start_a0([np.array([[1.0, -1.0]]), np.array([[2.0], [-2.0]])], [1, 4]) == pytest.approx(2.5, rel=1e-12)


def _spec(pathways):
    from theorykit.spec.files import spec_from_dict

    return spec_from_dict({"data": {"inputs": [[1, 0, 1], [0, 1, 1], [1, 1, 0]], "targets": [[1, -1, 0]]},
                           "pathways": pathways})


def test_paired_start_keeps_a_pathways_input_columns():
    """Pathway a (2 units, inputs 0 and 2) gets rows 0-1 of W1 at columns 0, 2; b the last row, all
    columns; W2's columns likewise. W1 = [[0,1,2],[3,4,5],[6,7,8]], W2 = [[10, 20, 30]]."""
    spec = _spec([{"name": "a", "active": [1, 1, 0], "hidden": 2, "inputs": [0, 2]},
                  {"name": "b", "active": "all", "hidden": 1}])
    out = paired_start(spec, [np.arange(9.0).reshape(3, 3), np.array([[10.0, 20, 30]])])
    assert out["input->a"][0].tolist() == [[0, 2], [3, 5]] and out["a->output"][0].tolist() == [[10, 20]]
    assert out["input->b"][0].tolist() == [[6, 7, 8]] and out["b->output"][0].tolist() == [[30]]
    # widths that add up to less than the run's 3 units are refused
    short = _spec([{"name": "a", "active": "all", "hidden": 2}])
    assert _err(paired_start, short, [np.zeros((3, 3)), np.zeros((1, 3))]).field == "pathways.hidden"


def test_paired_start_of_depth_3_needs_equal_widths():
    spec = _spec([{"name": "a", "active": "all", "hidden": 3, "depth": 3}])
    err = _err(paired_start, spec, [np.zeros((3, 3)), np.zeros((2, 3)), np.zeros((1, 2))])
    assert err.field == "pathways.hidden" and "3 and 2" in err.problem


def test_split_units_with_one_unit_per_pathway():
    assert split_units([0.5, 0.5], 2) == [1, 1]
    assert split_units([0.2, 0.3, 0.5], 3) == [1, 1, 1]


def test_find_gates_refuses_unequal_hidden_widths():
    X = np.eye(3)
    W = [np.zeros((2, 4, 3)), np.zeros((2, 3, 4)), np.zeros((2, 1, 3))]
    run = RunCheckpoints(np.array([0, 10]), W, ["s0.npz", "s10.npz"], X, np.ones((1, 3)), keys=["W1", "W2", "W3"])
    err = _err(find_gates_in_run, run, lr=0.1, K=1)
    assert err.field == "--checkpoints s0.npz: key 'W2'" and "4 and 3" in err.problem


def test_find_gates_counts_steps_from_the_first_checkpoint():
    """A run saved at steps 100, 150, 200 (random weights: only the step count matters here): the
    GDLN trains from the first checkpoint for the 200 − 100 = 100 steps between the first and the
    last checkpoint, not for 200."""
    rng = np.random.default_rng(4)
    W = [0.3 * rng.standard_normal((3, 4, 3)), 0.3 * rng.standard_normal((3, 1, 4))]
    run = RunCheckpoints(np.array([100, 150, 200]), W, ["a", "b", "c"], X3, Y1, keys=["W1", "W2"])
    assert find_gates_in_run(run, lr=0.05, K=1).spec.training.steps == 100


# ------------------------------------------------------------------------------------------
# weight files (sim/weights.py)
# ------------------------------------------------------------------------------------------
def _npz(path, members):
    """An .npz by hand: ``members`` a list of (member name, array), duplicates allowed."""
    with zipfile.ZipFile(path, "w") as z:
        for name, A in members:
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asarray(A), allow_pickle=True)
            z.writestr(name, buf.getvalue())
    return path


def test_read_npz_refuses_objects_duplicates_and_counts_bytes(tmp_path):
    err = _err(read_npz, _npz(tmp_path / "o.npz", [("A.npy", np.array([1, "a"], object))]), "--data", "d", "h")
    # refused from its header, with a fix that says what to store (not as data numpy will not unpickle)
    assert err.field == f"--data {tmp_path / 'o.npz'}: key 'A'" and "pickle" in err.problem
    assert "Python objects" in err.problem and "real numbers" in err.fix
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")              # zipfile warns of the duplicate name
        f = _npz(tmp_path / "d.npz", [("A.npy", np.ones(2)), ("A.npy", np.zeros(2))])
    err = _err(read_npz, f, "--data", "d", "h")
    assert err.field == f"--data {f}: key 'A'" and "twice" in err.problem
    # 16 float64 = 128 bytes: within max_bytes = 128, beyond 127 (the itemsize counts)
    f = _npz(tmp_path / "b.npz", [("A.npy", np.ones(16))])
    assert read_npz(f, "--data", "d", "h", max_bytes=128)["A"].shape == (16,)
    err = _err(read_npz, f, "--data", "d", "h", max_bytes=127)
    assert err.field == f"--data {f}: key 'A'" and "128 bytes" in err.problem


def test_weight_seed_axes(tmp_path):
    net = Net.chain(2, [3], 1)
    k1, k2 = net.keys
    one = {"W1": np.ones((3, 2)), "W2": np.ones((1, 3))}
    out = check_weights(one, net, seeds=2)
    assert out[k1].shape == (2, 3, 2) and out[k2].shape == (2, 1, 3)       # one set, repeated
    two = {"W1": np.ones((2, 3, 2)), "W2": np.ones((2, 1, 3))}
    assert _err(check_weights, two, net, seeds=3).field == "init weights"
    mixed = {"W1": np.ones((2, 3, 2)), "W2": np.ones((3, 1, 3))}
    err = _err(check_weights, mixed, net)
    assert err.field == f"init weights: key {k2!r}" and "3 seeds" in err.problem
    none = {"W1": np.ones((0, 3, 2)), "W2": np.ones((0, 1, 3))}
    assert "no seed" in _err(check_weights, none, net).problem


def test_weight_files_unused_keys_names_and_atomic_write(tmp_path):
    net = Net.chain(2, [3], 1)
    k1, k2 = net.keys
    W = {k1: np.full((1, 3, 2), 0.5), k2: np.full((1, 1, 3), -0.25)}
    save_weights(tmp_path / "w.npz", W, names={k1: "W1", k2: "W2"})
    with np.load(tmp_path / "w.npz") as z:
        assert sorted(z.files) == ["W1", "W2"]
    # keyed by edge, with an extra array: the extra one is the only unused key
    np.savez(tmp_path / "e.npz", **{k1: W[k1], k2: W[k2], "opt_state": np.zeros(2)})
    unused = []
    out = load_weights(tmp_path / "e.npz", net, unused=unused)
    assert unused == ["opt_state"] and np.asarray(out[k1]).tolist() == W[k1].tolist()
    # atomic: a new file replaces the old by rename, so a second name (hard link) of the old file
    # keeps the old bytes; writing in place would change both
    os.link(tmp_path / "w.npz", tmp_path / "old.npz")
    before = (tmp_path / "old.npz").read_bytes()
    save_weights(tmp_path / "w.npz", {k1: W[k1] * 2, k2: W[k2]})
    assert (tmp_path / "old.npz").read_bytes() == before
    with np.load(tmp_path / "w.npz") as z:
        assert z[k1].tolist() == (W[k1] * 2).tolist()


@pytest.mark.parametrize("kw, field", [({"Ks": []}, "Ks"), ({"K": 0}, "K"), ({"Ks": [2, 0]}, "Ks")])
def test_both_algorithm_1_paths_refuse_a_bad_number_of_pathways_before_any_work(kw, field):
    """tk.find_gates and find_gates_in_run read K / Ks through one check: no K to try, K = 0, or a 0
    among the Ks is a SpecError naming the field, before anything trains or clusters."""
    rng = np.random.default_rng(4)
    W = [0.3 * rng.standard_normal((2, 4, 3)), 0.3 * rng.standard_normal((2, 1, 4))]
    run = RunCheckpoints(np.array([0, 10]), W, ["a", "b"], X3, Y1, keys=["W1", "W2"])
    with pytest.raises(SpecError) as e1:
        find_gates_in_run(run, lr=0.05, **kw)
    with pytest.raises(SpecError) as e2:
        tk.find_gates(tk.xor_margin(1), seeds=1, steps=10, hidden=4, **kw)
    assert e1.value.field == e2.value.field == field
