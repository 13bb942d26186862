"""Weight files: initial weights read from an ``.npz`` (keyed by edge or ``W1, W2, …``, every shape
checked), and written back.

Weights are dicts keyed by edge, ``"<from>-><to>"``, each ``to_width × from_width`` (for an edge
from the input or to the output: the rows it reads or writes), with a leading ensemble axis. A
ReLU chain's weights may also be keyed ``W1, W2, …``.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Mapping

import jax.numpy as jnp
import numpy as np

from ..errors import SpecError
from ..net.layout import Net, as_dtype
from ..spec.fields import file_field
from ..spec.limits import Limits
from ..io import atomic_write_bytes, counted, cut, is_special

__all__ = ["load_weights", "save_weights", "from_chain_names", "unused_weight_keys", "read_npz", "check_weights",
           "finite_array", "MAX_WEIGHT", "MAX_NPZ_BYTES"]


# ---------------------------------------------------------------------------------------------
# Weight files
# ---------------------------------------------------------------------------------------------
def from_chain_names(net: Net, weights: Mapping, where: str = "init weights") -> dict:
    """Accept ``W1, W2, …`` for a chain, or edge keys; return edge keys."""
    if net.keys and all(k in weights for k in net.keys):
        return {k: weights[k] for k in net.keys}
    names = net.chain_names()
    if all(n in weights for n in names):
        return {names[n]: weights[n] for n in names}
    have_chain = [n for n in names if n in weights]
    chain = all(a[2] == b[1] for a, b in zip(net.edges, net.edges[1:]))     # input -> h1 -> … -> output
    if chain and have_chain and not any(k in weights for k in net.keys):
        # keyed W1, W2, … with a layer missing: name that layer, not the first edge key (the file used none)
        gone = [n for n in names if n not in weights]
        raise SpecError(f"{where}: key {gone[0]!r}", f"missing: keyed by layer (W1, W2, …), the weights have "
                        f"{have_chain} but not {gone}", "save every layer of the network: "
                        + ", ".join(f"{n} (edge {k})" for n, k in names.items()))
    missing = [k for k in net.keys if k not in weights]
    raise SpecError(f"{where}: key {missing[0]!r}", f"missing: no weights for edges {missing} (the file has "
                    f"{sorted(map(str, weights))[:12]})",
                    f"key the arrays by edge ({', '.join(net.keys)}) or W1, W2, … for a ReLU chain")


def unused_weight_keys(raw: Mapping, net: Net) -> list:
    """The keys of ``raw`` that :func:`from_chain_names` does not read for ``net`` (biases,
    optimizer state, misnamed arrays): reported, since they change nothing in the run."""
    used = set(net.keys) if net.keys and all(k in raw for k in net.keys) else set(net.chain_names())
    return sorted(str(k) for k in raw if k not in used)


def load_weights(path, net: Net, seeds: int | None = None, dtype: str = "float64", unused: list | None = None) -> dict:
    """Read initial weights from an ``.npz`` (arrays keyed by edge or ``W1, W2, …``), checking every
    shape; each array is ``to × from`` or has a leading seed axis. Returns weights with a seed axis.
    ``unused``: a list that receives the file's keys the network does not read."""
    raw = read_npz(path, "--init-weights", "an .npz of weights", "save the weights with numpy.savez")
    out = check_weights(raw, net, seeds, dtype, file_field("--init-weights", path))
    if unused is not None:
        unused.extend(unused_weight_keys(raw, net))
    return out


#: largest magnitude of a weight read from a file (a larger one is a diverged run or a damaged file)
MAX_WEIGHT = 1e6
#: largest total size (bytes, as stored) of the arrays of one .npz file read (weights, data, checkpoints)
MAX_NPZ_BYTES = 4 << 30


def read_npz(path, option: str, what: str, how: str, max_bytes: float | None = None) -> dict:
    """Every array of an ``.npz`` (no pickles, no object arrays); a missing, unreadable, truncated
    or oversized file is a :class:`SpecError` naming ``option``, the file and, where one is at
    fault, the key. Each array's header (dtype, shape) is checked before its data is read, so a
    file that declares more data than memory allows is refused without reading it."""
    import zipfile

    path = Path(path)
    f = file_field(option, path)
    limit = min(MAX_NPZ_BYTES, Limits().max_bytes) if max_bytes is None else max_bytes
    if is_special(path):        # an .npz is a zip, read by seeking: /dev/zero or a pipe was read without end
        raise SpecError(option, f"{path} is not a file (a device or a pipe): an .npz is read by seeking in it",
                        f"give the path of {what}, saved as a file")
    try:
        zf = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise SpecError(option, f"no such file: {path}", f"give the path of {what}") from None
    except IsADirectoryError:
        raise SpecError(option, f"{path} is a folder", f"give the path of {what}") from None
    except PermissionError as exc:      # not a fault of the file's contents: saving it again would not help
        raise SpecError(option, f"cannot read {path}: {exc.strerror or exc}",
                        f"give the path of {what} that you may read (or change its permissions)") from None
    except Exception as exc:  # noqa: BLE001 - a corrupt, truncated or foreign file
        raise SpecError(f, f"is not a readable .npz ({type(exc).__name__}: {_short_exc(exc)})", how) from None
    out, total = {}, 0
    with zf:
        for info in zf.infolist():
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            kf = file_field(option, path, key)
            try:
                with zf.open(info) as fh:
                    version = np.lib.format.read_magic(fh)
                    shape, _fortran, dtype = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
                                              np.lib.format.read_array_header_2_0)(fh)
            except Exception as exc:  # noqa: BLE001
                raise SpecError(kf, f"is not a readable array ({type(exc).__name__}: {_short_exc(exc)})", how) \
                    from None
            if dtype.hasobject:
                raise SpecError(kf, f"has dtype {dtype} (Python objects, read only with pickle)",
                                "store real numbers (float64, float32 or integers)")
            nbytes = math.prod(int(s) for s in shape) * dtype.itemsize
            total += nbytes
            if total > limit:
                raise SpecError(kf, f"declares shape {tuple(shape)} ({nbytes} bytes), more than the "
                                f"{int(limit)} bytes a file may hold here", "store smaller arrays")
            try:
                with zf.open(info) as fh:
                    A = np.lib.format.read_array(fh, allow_pickle=False)
            except Exception as exc:  # noqa: BLE001 - truncated data, a bad CRC
                raise SpecError(kf, f"cannot be read ({type(exc).__name__}: {_short_exc(exc)})", how) from None
            if key in out:
                raise SpecError(kf, "appears twice in the file", how)
            out[key] = A
    return out


def _short_exc(exc, n: int = 160) -> str:
    return cut(" ".join(str(exc).split()), n, "...")


def finite_array(A, f: str, noun: str, limit: float, nan_fix: str, big_fix: str) -> np.ndarray:
    """``A`` as float64, refused (field ``f``) where it holds NaN or inf, or a ``noun`` of magnitude
    above ``limit``."""
    with np.errstate(all="ignore"):
        A = np.asarray(A, np.float64)
    if not np.all(np.isfinite(A)):
        raise SpecError(f, "holds NaN or inf (or numbers beyond float64)", nan_fix)
    big = float(np.max(np.abs(A)))
    if big > limit:
        raise SpecError(f, f"holds a {noun} of magnitude {big:.3g}, more than {limit:g}", big_fix)
    return A


def check_weights(raw: Mapping, net: Net, seeds: int | None = None, dtype: str = "float64",
                  where: str = "init weights") -> dict:
    """Weights keyed by edge (or W1, W2, …), each ``to × from`` with an optional leading seed axis,
    real and finite; errors name ``where`` and the key."""
    ws = from_chain_names(net, raw, where)
    shapes = net.shapes()
    out, n = {}, None
    for k, W in ws.items():
        W = np.asarray(W)
        f = f"{where}: key {k!r}"
        if W.dtype.kind not in "fiu":
            raise SpecError(f, f"has dtype {W.dtype}", "store real numbers (float64, float32 or integers)")
        shape = W.shape         # as stored, for the message
        if W.ndim == 2:
            W = W[None]
        if W.ndim != 3 or W.shape[1:] != shapes[k]:
            raise SpecError(f, f"has shape {shape}, the edge needs {shapes[k]} (or seeds × {shapes[k]})",
                            "each array is to_width × from_width (rows written/read for output/input edges)")
        if W.shape[0] < 1:
            raise SpecError(f, f"has shape {W.shape}: no seed", "give at least one set of weights")
        W = finite_array(W, f, "weight", MAX_WEIGHT, "store finite weights",
                         "store initial weights of a trainable size (small: e.g. std 0.01)")
        if n is None:
            n = W.shape[0]
        elif W.shape[0] != n:
            raise SpecError(f, f"has {counted(W.shape[0], 'seed')}, other arrays {n}", "give every edge the same seed axis")
        out[k] = W
    if seeds is not None and n == 1 and seeds > 1:
        out = {k: np.repeat(W, seeds, axis=0) for k, W in out.items()}
    elif seeds is not None and n != seeds:
        raise SpecError(where, f"holds {n} seeds, {seeds} asked for", f"use --seeds {n}")
    dt = as_dtype(dtype)
    return {k: jnp.asarray(W, dt) for k, W in out.items()}


def save_weights(path, params: Mapping, names: Mapping | None = None):
    """Write weights (with their seed axis) to an ``.npz``, atomically; ``names`` renames keys."""
    import io

    buf = io.BytesIO()
    np.savez(buf, **{(names or {}).get(k, k): np.asarray(v) for k, v in params.items()})
    atomic_write_bytes(Path(path), buf.getvalue())
