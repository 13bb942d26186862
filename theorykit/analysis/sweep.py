"""Declared sweeps: grids of symbol values × learning rates × seeds, through one call of the trainer.

``theorykit sweep SPEC --grid Delta=0:2:21 --grid lr=0.01,0.05 --seeds 4 --steps N --out DIR``

Every member (one symbol-value point, one learning rate, one seed) is a member of the ensemble of
one :func:`theorykit.sim.engine.train` call: its data (X, Y at its symbol values) ride the ensemble
axis (``data_axis=0``), its learning rate is its own, and the ensemble is sharded over every
device. The members run in chunks of ``chunk`` (the trainer's ``batch``); each finished chunk is
written at once, atomically, to ``DIR/chunks/chunk_NNNNN.npz``, and a re-run of the same sweep
skips the chunks already there. ``DIR/sweep.json`` holds the declaration, and, when every chunk is
done, the final losses per member and their mean and spread over seeds per grid point.

A member's start is the one :func:`theorykit.sim.simulation.simulate` would give it, so a sweep's loss
curves equal separate ``simulate`` calls: with ``init="aligned"`` (the default) aligned weights of the
spec's a0 at its symbol values, with ``init="random"`` N(0, init_std²) weights; seeds 0 … S−1. Aligned
seeds differ only by a rotation inside the hidden layers, which the loss does not see: their losses
are the same up to rounding (spread 0 but for the dtype's rounding), and the summary says so; random
seeds give the spread of small random starts.
"""
from __future__ import annotations

import hashlib
import io
import itertools
import json
import time
from pathlib import Path

import numpy as np

from ..errors import SpecError, keyword_errors
from ..spec.expr import parse_expr
from ..spec.fields import check_magnitude, learning_rate
from ..spec.files import VALUE_FIX, parse_assignment
from ..net.layout import MATMUL_PRECISION, Net, as_dtype
from ..record import SaveAt
from ..sim.engine import train_net
from ..sim.simulation import _edge_scales
from ..spec.gating import positive_int
from ..spec.graph import graph_from_pathways
from ..net.starts import aligned_params, random_params
from ..io import atomic_write_bytes, software_versions, write_json
from ..progress import checked_progress, progress_bar

__all__ = ["parse_grid", "plan_sweep", "run_sweep", "load_chunks"]

#: most points of one START:STOP:COUNT range
MAX_GRID_COUNT = 10 ** 6


def _numbers(name: str, text: str, symbols) -> list:
    """Values of ``NAME=a:b:n`` (n points from a to b) or ``NAME=v1,v2,…``; numbers via the safe parser."""
    def num(v):
        fld = f"--grid {name}"
        if name in symbols:     # a symbol's value: as --set checks it (magnitude, the symbol's assumptions)
            try:
                _, val = parse_assignment(f"{name}={v.strip()}", symbols)
            except SpecError as exc:
                raise SpecError(fld, exc.problem, exc.fix) from None
        else:
            try:
                val = parse_expr(v.strip(), {}, fld)
            except SpecError as exc:
                if exc.problem.startswith("unknown symbol"):
                    raise SpecError(fld, exc.problem, VALUE_FIX) from None
                raise
            if name != "lr":
                check_magnitude(val, fld, text=v.strip())
        try:
            x = float(val)
        except TypeError:
            raise SpecError(fld, f"{v!r} is not a number", "write numbers, e.g. Delta=0:2:21") from None
        if name == "lr":        # a learning rate: as training.lr is checked
            learning_rate(x, fld, "--grid lr=0.01,0.05")
        return x

    text = text.strip()
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise SpecError("--grid", f"{name}={text!r}: a range is START:STOP:COUNT", "write e.g. Delta=0:2:21")
        a, b = num(parts[0]), num(parts[1])
        try:
            n = int(parts[2])
        except ValueError:
            raise SpecError("--grid", f"{name}: COUNT {parts[2]!r} is not an integer", "write e.g. Delta=0:2:21") from None
        if n < 1:
            raise SpecError("--grid", f"{name}: COUNT must be at least 1", "write e.g. Delta=0:2:21")
        if n > MAX_GRID_COUNT:
            raise SpecError("--grid", f"{name}: COUNT {n} is more than {MAX_GRID_COUNT} points",
                            "sweep fewer points, e.g. Delta=0:2:21")
        return [float(x) for x in np.linspace(a, b, n)]
    vals = [num(v) for v in text.split(",") if v.strip()]
    if not vals:
        raise SpecError("--grid", f"{name}: no values", "write e.g. lr=0.01,0.05")
    return vals


def parse_grid(items, symbols) -> dict:
    """``["Delta=0:2:21", "lr=0.01,0.05"]`` → {"Delta": [...], "lr": [...]} (names: the spec's symbols or lr)."""
    grid = {}
    for it in items or []:
        if "=" not in it:
            raise SpecError("--grid", f"{it!r} is not NAME=VALUES", "write e.g. --grid Delta=0:2:21 or --grid lr=0.01,0.05")
        name, text = (s.strip() for s in it.split("=", 1))
        if name != "lr" and name not in symbols:
            raise SpecError("--grid", f"unknown name {name!r}", f"sweep lr or a symbol of the spec: {sorted(symbols)}")
        if name in grid:
            raise SpecError("--grid", f"{name} is given twice", "give each name once")
        grid[name] = _numbers(name, text, symbols)
        _no_repeats(name, grid[name])
    return grid


def _no_repeats(name: str, values) -> None:
    """A grid's values of ``name`` each once: a repeated value trained the same point again and listed
    two identical results (``--grid Delta=0.5,0.5``, ``Delta=1:1:3``, ``Delta=0.5,1/2``)."""
    try:
        vals = [float(v) for v in values]
    except (TypeError, ValueError):     # not numbers: the plan's own checks name them
        return
    once = list(dict.fromkeys(vals))
    if len(once) < len(vals):
        rep = next(v for i, v in enumerate(vals) if v in vals[:i])
        shown = ",".join(f"{v:g}" for v in once[:12]) + (",…" if len(once) > 12 else "")
        raise SpecError(f"--grid {name}", f"{rep:g} is given more than once ({len(vals) - len(once)} "
                        f"repeat{'s' if len(vals) - len(once) > 1 else ''}): the same point would be trained again",
                        f"give each value once, e.g. --grid {name}={shown}")


def plan_sweep(spec, grid: dict, seeds: int, steps: int | None = None) -> dict:
    """Members in order: every symbol point (product over the grid's symbols), every lr, every seed."""
    positive_int(seeds, "--seeds", "--seeds 4")
    steps = spec.training.steps if steps is None else int(steps)
    if steps < 1:
        raise SpecError("--steps", f"needs a positive integer, got {steps}", "e.g. --steps 2000")
    for name, values in grid.items():      # a grid made in Python too (parse_grid checks the command line's)
        _no_repeats(name, values)
    names = [n for n in grid if n != "lr"]
    free = sorted(map(str, spec.task.free_symbols))
    missing = [s for s in free if s not in names]
    if missing:
        raise SpecError("--grid", f"no values for symbols {missing}", f"add --grid {missing[0]}=START:STOP:COUNT")
    points = list(itertools.product(*[grid[n] for n in names]))
    lrs = grid.get("lr", [spec.training.lr])
    for lr in lrs:                  # a grid made in Python too: the rule of every learning rate
        learning_rate(lr, "--grid lr", "--grid lr=0.01,0.05")
    members = [(pi, li, s) for pi in range(len(points)) for li in range(len(lrs)) for s in range(seeds)]
    return {"names": names, "points": points, "lrs": lrs, "seeds": seeds, "steps": steps, "members": members}


def _key(spec, plan, dtype, init="aligned") -> str:
    # aligned: no "init" entry, so the key of earlier sweeps
    desc = json.dumps({**({"init": init} if init != "aligned" else {}),
                       "spec": spec.name, "task": repr(spec.task.X.tolist()) + repr(spec.task.Y.tolist()),
                       "pathways": [repr(p) for p in spec.pathways], "training": repr(spec.training),
                       "names": plan["names"], "points": plan["points"], "lrs": plan["lrs"], "seeds": plan["seeds"],
                       "steps": plan["steps"], "dtype": dtype}, sort_keys=True, default=str)
    return hashlib.sha256(desc.encode()).hexdigest()[:16]


def _chunk_path(out: Path, i: int) -> Path:
    return out / "chunks" / f"chunk_{i:05d}.npz"


def load_chunks(out, n_chunks: int, chunk: int | None = None, members: int | None = None, key: str | None = None,
                keyless: bool = True, notes: list | None = None):
    """Loss curves of the finished chunks: {chunk index: (members, loss)}. With ``chunk`` and
    ``members`` (the sweep's size), a file whose members are not chunk i's (i·chunk … up to
    ``members``) is left out, to be run again. A file that cannot be read (truncated, not an .npz) is
    left out too, and said in ``notes``. With ``key``, a file of another sweep (its ``key`` entry) is
    refused (SpecError on --out: its results are not overwritten), and a file without a key (written
    before chunks carried one) is kept only when ``keyless``."""
    out = Path(out)
    done = {}
    for i in range(n_chunks):
        p = _chunk_path(out, i)
        if p.exists():
            try:
                with np.load(p) as z:
                    m, loss = np.asarray(z["members"]), np.asarray(z["loss"])
                    ck = str(z["key"]) if "key" in z.files else None
            except Exception as exc:        # a damaged file: any reader error, the chunk is run again
                if notes is not None:
                    notes.append(f"{p} could not be read ({type(exc).__name__}: {exc}); its chunk is run again")
                continue
            if key is not None and ck is not None and ck != key:
                raise SpecError("--out", f"{p} belongs to a different sweep (key {ck}, this one {key})",
                                "use another folder, or delete it")
            if key is not None and ck is None and not keyless:
                continue
            if chunk is not None and members is not None and \
                    not np.array_equal(m, np.arange(i * chunk, min(members, (i + 1) * chunk))):
                continue
            done[i] = (m, loss)
    return done


@keyword_errors({"--grid": "grid", "--seeds": "seeds", "--steps": "steps", "--out": "out", "--chunk": "chunk",
                 "--init": "init"})
def run_sweep(spec, grid: dict, *, seeds: int = 4, steps: int | None = None, out, chunk: int = 64,
              dtype: str = "float64", progress=True, devices=None, init: str = "aligned", record=None) -> dict:
    """Run (or resume) a sweep; returns the summary written to ``out/sweep.json`` plus ``t`` and ``loss``.
    ``init``: ``"aligned"`` or ``"random"`` (module docstring). ``progress``: True (default) for a bar on
    stderr over the members trained, False or None for none, or a :class:`~theorykit.progress.Progress` of
    your own or a tqdm bar, advanced by the members of each chunk written. ``record``: None, or a function
    of no arguments that returns the ``provenance`` record sweep.json keeps (how it was made, as every
    other command's result: ``theorykit sweep`` gives it, so that ``theorykit rerun`` can make it again);
    called each time sweep.json is written."""
    checked_progress(progress)
    import jax.numpy as jnp

    positive_int(chunk, "--chunk", "--chunk 64")
    if init not in ("aligned", "random"):
        raise SpecError("--init", f"unknown start {init!r}", "use --init aligned or --init random")
    plan = plan_sweep(spec, grid, seeds, steps)
    out = Path(out)
    (out / "chunks").mkdir(parents=True, exist_ok=True)
    key = _key(spec, plan, dtype, init)
    manifest = out / "sweep.json"
    had_manifest = manifest.exists()
    if had_manifest:
        try:
            old = json.loads(manifest.read_text())
            if not isinstance(old, dict):
                raise ValueError("not a JSON object")
        except (ValueError, UnicodeDecodeError) as exc:
            raise SpecError("--out", f"{manifest} is not a sweep's JSON ({exc})",
                            "delete it to resume: the chunks carry their sweep's key, and only this sweep's "
                            "are kept") from None
        if old.get("key") != key:
            # what differs: the declaration's fields, else the spec file's contents (in the key only)
            now = {"spec": spec.name, "grid": {n: list(map(float, v)) for n, v in grid.items()}, "seeds": seeds,
                   "steps": plan["steps"], "dtype": dtype, "init": init}
            differ = [f"{f} {old.get(f, 'aligned' if f == 'init' else None)!r} -> {v!r}" for f, v in now.items()
                      if old.get(f, "aligned" if f == "init" else None) != v]
            what = "; ".join(differ) if differ else "the spec's data, pathways or training changed"
            raise SpecError("--out", f"{out} holds a different sweep (key {old.get('key')}, this one {key}): {what}",
                            "use another folder, or delete it")
        if old.get("chunk", chunk) != chunk:
            raise SpecError("--chunk", f"the sweep in {out} was started with --chunk {old['chunk']}, not {chunk}",
                            f"resume it with --chunk {old['chunk']}, or use another folder")
    members = plan["members"]
    E = len(members)
    n_chunks = -(-E // chunk)
    decl = {"key": key, "spec": spec.name, "grid": {n: list(map(float, v)) for n, v in grid.items()},
            "names": plan["names"], "lrs": plan["lrs"], "seeds": seeds, "steps": plan["steps"], "dtype": dtype,
            "matmul_precision": MATMUL_PRECISION, "init": init, "members": E, "chunk": chunk, "chunks": n_chunks,
            "complete": False,
            "notes": ["aligned starts: the seeds differ only by a rotation inside the hidden layers, which the loss "
                      "does not see, so their losses are the same up to rounding (spread 0 but for the dtype's "
                      "rounding: ~1e-16 of the loss in float64, ~1e-8 in float32); --init random gives the spread "
                      "of small random starts"] if init == "aligned" and seeds > 1 else [],
            # the device too, though JAX has not computed yet: a resume on another one is noted below
            "versions": software_versions(computes=True)}
    done = load_chunks(out, n_chunks, chunk, E, key=key, keyless=had_manifest, notes=decl["notes"])
    if had_manifest and done:
        # chunks kept from a run under other versions or on another device: said, not hidden
        earlier = old.get("versions_of_earlier_chunks")
        if isinstance(old.get("versions"), dict) and old["versions"] != decl["versions"]:
            earlier = old["versions"]
        if isinstance(earlier, dict) and earlier != decl["versions"]:
            changed = sorted(k for k in set(earlier) | set(decl["versions"]) if earlier.get(k) != decl["versions"].get(k))
            decl["notes"].append("chunks computed earlier in this folder ran under other versions or on another "
                                 "device (" + ", ".join(f"{k} {earlier.get(k)} -> {decl['versions'].get(k)}"
                                                        for k in changed)
                                 + "): their losses may differ from this run's in the last digits (delete the "
                                 "folder to recompute them all)")
            decl["versions_of_earlier_chunks"] = earlier
    if record is not None:
        decl["provenance"] = record()
    if not manifest.exists() or not done:
        write_json(manifest, decl)
    todo = [i for i in range(n_chunks) if i not in done]

    g = graph_from_pathways(spec)
    tr = g.training
    net = Net.from_graph(g)
    dt = as_dtype(dtype)
    a0 = tr.a0
    t0 = time.time()
    if todo:
        idx = np.concatenate([np.arange(i * chunk, min(E, (i + 1) * chunk)) for i in todo])
        need_pts = sorted({members[m][0] for m in idx})
        starts, Xs, Ys = {}, {}, {}
        for pi in need_pts:
            vals = {spec.task.symbols[n]: v for n, v in zip(plan["names"], plan["points"][pi])}
            X, Y = g.task.numeric(vals)
            Xs[pi], Ys[pi] = X, Y
            starts[pi] = (aligned_params(g, a0, seeds, 0, dtype, vals) if init == "aligned" else
                          random_params(net, _edge_scales(g, tr.init_std), seeds, 0, dtype))
        p0 = {e: jnp.asarray(np.stack([np.asarray(starts[members[m][0]][e][members[m][2]]) for m in idx]))
              for e in starts[need_pts[0]]}
        data = (jnp.asarray(np.stack([Xs[members[m][0]] for m in idx]), dt),
                jnp.asarray(np.stack([Ys[members[m][0]] for m in idx]), dt))
        lrs = np.array([plan["lrs"][members[m][1]] for m in idx])
        # closed on an error or an interrupt too (it was left open)
        with progress_bar(progress, "sweep", len(idx)) as pr:
            pending = iter(todo)

            def on_result(a, b, loss):
                i = next(pending)
                buf = io.BytesIO()
                np.savez(buf, members=idx[a:b], loss=np.asarray(loss), key=np.asarray(key))
                atomic_write_bytes(_chunk_path(out, i), buf.getvalue())
                done[i] = (idx[a:b], np.asarray(loss))
                pr.update(b - a, note=f"chunk {i + 1}/{n_chunks} written")

            # one call of the sharded trainer; its batches are exactly the pending chunks (only the
            # last chunk of the sweep can be short, and it comes last)
            train_net(net, p0, data, loss=tr.loss, schedule=g.schedule, lr=lrs, steps=plan["steps"],
                      save=SaveAt(final=False), data_axis=0, batch=chunk, on_batch_result=on_result, devices=devices)
    loss = np.concatenate([done[i][1] for i in range(n_chunks)])
    t = np.arange(plan["steps"] + 1)
    S, nl = seeds, len(plan["lrs"])
    fin = loss[:, -1].reshape(len(plan["points"]), nl, S)
    def stats(f):   # over the seeds that did not diverge (a sweep over lr expects some that do)
        ok = np.isfinite(f)
        return {"final_loss_mean": float(np.mean(f[ok])) if ok.any() else None,
                "final_loss_std": float(np.std(f[ok])) if ok.any() else None, "diverged_seeds": int(np.sum(~ok))}

    summary = dict(decl, complete=True, seconds_this_run=time.time() - t0, chunks_computed=todo,
                   results=[{**{n: float(v) for n, v in zip(plan["names"], pt)}, "lr": float(lr), **stats(fin[pi, li])}
                            for pi, pt in enumerate(plan["points"]) for li, lr in enumerate(plan["lrs"])])
    if record is not None:      # its elapsed_seconds: the whole run's
        summary["provenance"] = record()
    write_json(manifest, summary)
    return dict(summary, t=t, loss=loss)
