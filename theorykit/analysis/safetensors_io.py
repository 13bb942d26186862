"""Reading one checkpoint file: ``.npz`` or ``.safetensors`` (read by theorykit itself: an 8-byte
length, a JSON header, raw data; every header field is checked against the file before any array
is read, so a header that lies is named rather than trusted), and its metadata.
"""
from __future__ import annotations
import math
from pathlib import Path
from typing import Mapping
import numpy as np
from ..errors import SpecError
from ..spec.fields import file_field, learning_rate, loss_name, short_repr
from ..sim.weights import read_npz, MAX_NPZ_BYTES
from ..spec.limits import Limits

__all__ = ["read_checkpoint", "read_safetensors", "check_metadata", "MAX_ST_HEADER"]


def read_checkpoint(path) -> tuple[dict, dict]:
    """``(arrays, metadata)`` of one checkpoint file (``.safetensors`` or ``.npz``), every header
    field checked (:func:`read_safetensors`, :func:`theorykit.sim.weights.read_npz`)."""

    path = Path(path)
    if not path.is_file():
        raise SpecError("--checkpoints", f"no such file: {path}", "give existing checkpoint files")
    suffix = path.suffix.lower()
    if suffix == ".safetensors":
        arrays, meta = read_safetensors(path, "--checkpoints")
        if _unrecorded(meta.get("lr", 0)):     # no learning rate recorded: left out, so --lr is used or asked for
            meta = {k: v for k, v in meta.items() if k != "lr"}
        check_metadata(meta, path)
        return arrays, meta
    if suffix == ".npz":
        return read_npz(path, "--checkpoints", "a checkpoint (.npz)", "save it with numpy.savez"), {}
    raise SpecError(file_field("--checkpoints", path), f"unknown checkpoint format {suffix!r}",
                    "use .safetensors or .npz files")


#: safetensors dtypes read (BF16 is widened to float32)
_ST_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
              "I8": "i1", "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "BOOL": "?"}
#: largest safetensors header (bytes), as the format's own reader allows
MAX_ST_HEADER = 100_000_000


class _DuplicateKey(Exception):
    """A JSON object in a safetensors header names one key twice."""

    def __init__(self, key):
        super().__init__(key)
        self.key = key


def _unique_keys(pairs):
    """``object_pairs_hook`` for :func:`json.loads`: a dict, refusing a key given twice (plain
    ``json.loads`` would keep the last silently)."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def read_safetensors(path, option: str = "--checkpoints") -> tuple[dict, dict]:
    """``(arrays, metadata)`` of a ``.safetensors`` file, read by hand (the format: an 8-byte
    little-endian header length N, N bytes of JSON ``{name: {dtype, shape, data_offsets}, ...,
    "__metadata__": {str: str}}``, then the data). Every header field is checked against the
    file before any data is read: a header that lies about its sizes, a truncated file, an
    unknown dtype or overlapping tensors are errors naming the file and the key."""
    import json
    import os

    path = Path(path)
    f = file_field(option, path)
    how = "save it with safetensors (save_file)"
    limit = min(MAX_NPZ_BYTES, Limits().max_bytes)
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            head = fh.read(8)
            if len(head) < 8:
                raise SpecError(f, f"is {size} bytes: too short to be a readable safetensors file", how)
            n = int.from_bytes(head, "little")
            if n < 2 or n > MAX_ST_HEADER or 8 + n > size:
                raise SpecError(f"{f}: header length", f"not a readable safetensors file: the first 8 bytes declare a {n}-byte header, but the file "
                                f"is {size} bytes" + (f" (at most {MAX_ST_HEADER} allowed)" if n > MAX_ST_HEADER else ""),
                                "the file is truncated or not a safetensors file: save it again")
            raw = fh.read(n)
            try:
                header = json.loads(raw.decode("utf-8"), object_pairs_hook=_unique_keys)
            except _DuplicateKey as exc:
                raise SpecError(f"{f}: header", f"names the key {exc.key!r} twice in one JSON object (a reader "
                                "would silently keep only one of them)", "remove the duplicate entry, or save the "
                                "file again with safetensors (save_file)") from None
            except (UnicodeDecodeError, ValueError, RecursionError) as exc:
                raise SpecError(f"{f}: header", f"is not valid JSON ({type(exc).__name__}: {str(exc)[:120]})",
                                how) from None
            if not isinstance(header, dict):
                raise SpecError(f"{f}: header", f"is a JSON {type(header).__name__}, not an object", how)
            meta = header.pop("__metadata__", None)
            if meta is None:
                meta = {}
            if not isinstance(meta, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in meta.items()):
                raise SpecError(f"{f}: __metadata__", "must map strings to strings", how)
            data_len = size - 8 - n
            entries, total = [], 0
            for key, ent in header.items():
                kf = file_field(option, path, key)
                if not isinstance(ent, dict) or set(ent) != {"dtype", "shape", "data_offsets"}:
                    raise SpecError(kf, "needs exactly dtype, shape and data_offsets in the header", how)
                dt, shape, offs = ent["dtype"], ent["shape"], ent["data_offsets"]
                if not isinstance(dt, str) or dt not in _ST_DTYPES:
                    raise SpecError(f"{kf}.dtype", f"{str(dt)[:40]!r} is not a dtype read here",
                                    f"store one of {sorted(_ST_DTYPES)} (float64 or float32 best)")
                if not isinstance(shape, list) or len(shape) > 8 or \
                        not all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 2 ** 62 for x in shape):
                    raise SpecError(f"{kf}.shape", f"{str(shape)[:60]} is not a list of sizes", how)
                if not (isinstance(offs, list) and len(offs) == 2 and
                        all(isinstance(x, int) and not isinstance(x, bool) for x in offs)):
                    raise SpecError(f"{kf}.data_offsets", f"{str(offs)[:60]} is not [begin, end] (two whole "
                                    "numbers)", how)
                begin, end = offs
                if begin < 0 or end < begin:
                    raise SpecError(f"{kf}.data_offsets", f"{str(offs)[:60]} is not a byte range: begin and end "
                                    "must satisfy 0 <= begin <= end", "the header is damaged: save the file again")
                # sizes in Python ints (no overflow); a zero-size tensor's other sizes are still bounded,
                # as numpy cannot make an array whose nonzero sizes multiply past its index range
                item = np.dtype(_ST_DTYPES[dt]).itemsize
                count, span = math.prod(shape), math.prod(max(x, 1) for x in shape)
                cap = int(min(limit, 2 ** 62))
                if span * item > cap:
                    raise SpecError(f"{kf}.shape", f"{str(shape)[:80]} is absurd: its nonzero sizes multiply to {span} "
                                    f"elements of {item} bytes, more than the {cap} bytes a file may hold here",
                                    "the header is damaged: save the file again")
                if end - begin != count * item:
                    raise SpecError(f"{kf}.data_offsets", f"{offs} hold {end - begin} bytes, but dtype {dt} and "
                                    f"shape {shape} need {count * item}", "the header lies about its sizes: save "
                                    "the file again")
                if end > data_len:
                    raise SpecError(f"{kf}.data_offsets", f"{offs} reach byte {end}, but the file holds "
                                    f"{data_len} bytes of data", "the file is truncated: save it again")
                total += end - begin
                if total > limit:
                    raise SpecError(kf, f"the tensors declare {total} bytes, more than the {int(limit)} a file may "
                                    "hold here", "store smaller arrays")
                entries.append((begin, end, key, dt, shape))
            entries.sort()
            for (b0, e0, k0, _, _), (b1, _, k1, _, _) in zip(entries, entries[1:]):
                if b1 < e0:
                    raise SpecError(f"{file_field(option, path, k1)}.data_offsets",
                                    f"overlaps the data of {k0!r}", "the header is damaged: save the file again")
            arrays = {}
            for begin, end, key, dt, shape in entries:
                fh.seek(8 + n + begin)
                buf = fh.read(end - begin)
                if len(buf) != end - begin:
                    raise SpecError(file_field(option, path, key), "is cut short (the file shrank while read)", how)
                A = np.frombuffer(buf, dtype=_ST_DTYPES[dt]).reshape(shape)
                if dt == "BF16":
                    A = (A.astype("<u4") << 16).view("<f4")
                arrays[key] = A.copy()
    except SpecError:
        raise
    except OSError as exc:
        raise SpecError(f, f"cannot be read ({exc.strerror or exc})", "give a readable file") from None
    return arrays, dict(meta)


def _unrecorded(lr) -> bool:
    """An ``lr`` that records no learning rate: None, or a script's ``str(None)``, ``""``, ``"null"``."""
    return lr is None or str(lr).strip().lower() in ("", "none", "null")


def check_metadata(meta: Mapping, path) -> dict:
    """The run settings a safetensors file's metadata may hold (``lr``, ``loss``), checked where read."""
    f = file_field("--checkpoints", path)
    if "lr" in meta and _unrecorded(meta["lr"]):
        raise SpecError(f"{f}: metadata 'lr'", f"no learning rate recorded (lr = {short_repr(meta['lr'])})",
                        "give --lr, the step size of the run, e.g. --lr 0.05, or store metadata lr = \"0.05\"")
    if "lr" in meta:
        try:
            lr = float(meta["lr"])
        except (TypeError, ValueError):
            lr = meta["lr"]                 # refused by the rule: "needs a number, got a string 'fast'"
        learning_rate(lr, f"{f}: metadata 'lr'", "metadata lr = \"0.05\" (or leave it out and give --lr 0.05)")
    if "loss" in meta:
        loss_name(meta["loss"], f"{f}: metadata 'loss'", "store loss = mean or sum, or leave it out and give --loss")
    return dict(meta)
