"""A training run brought from elsewhere: weight checkpoints of a bias-free ReLU network and its data.

Reads a series of checkpoints (``.safetensors``, read with the ``safetensors`` package's numpy
API, no torch needed; or ``.npz``) of a bias-free ReLU network with one or two hidden layers,
``ŷ = W2 relu(W1 x)`` or ``ŷ = W3 relu(W2 relu(W1 x))``, and the training data (an ``.npz`` with
``X``, d × P, and ``Y``, p × P: datapoints as columns, as everywhere in theorykit).

* Layer names: ``W1, W2, …`` by default, or a mapping ``{"W1": "fc1.weight", …}``
  (:func:`parse_layers` reads ``W1=fc1.weight,W2=fc2.weight``).
* Orientation: each weight is out × in (PyTorch's ``nn.Linear.weight``); it is checked against
  the data (``W1`` has d columns, the last layer p rows) and against its neighbours.
* Step numbers: the last integer in each file name (``step_000100.safetensors`` → 100), or given.
* The loss convention and learning rate may be stored in a safetensors file's metadata
  (``lr``, ``loss``: ``"mean"`` for L = 1/(2P) Σ‖ŷ − y‖², ``"sum"`` for ½ Σ‖ŷ − y‖²).

Every bad input raises :class:`~theorykit.errors.SpecError` whose field names the file and
the key: a missing key, a shape mismatch, biases present (the theory is bias-free; refused
unless ``ignore_bias=True``), NaN or inf, data whose datapoints are rows.

:func:`imported_run` turns the checkpoints into what Algorithm 1 needs (first-layer binary
activity at every checkpoint, outputs and losses), and :func:`find_gates_in_run` runs
Algorithm 1 on it: clustering, the elbow (a GDLN per K trained with :func:`theorykit.sim.simulation.simulate`
from the run's own first checkpoint, the paired start) and the spec.
"""
from __future__ import annotations

import functools
import math
import glob as _glob
import re
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..errors import SpecError, keyword_errors
from ..io import counted
from ..net.starts import a0_rule
from ..spec.fields import DATA_MAX, file_field, fmt, learning_rate, loss_name
from ..spec.ranges import MAX_STEPS
from ..sim.weights import MAX_WEIGHT, finite_array, read_npz
from ..spec.expr import to_exact
from ..spec.task import Task
from ..spec.graph import graph_from_pathways
from .findgates import (ELBOW_THRESHOLD, FoundGates, check_elbow_settings, elbow_estimate, elbow_pick,
                        elbow_scores_from, geometric_mean, output_mse, patterns_for_K, patterns_to_spec, unit_rows)
from ..spec.limits import Limits, enforce, lift
from ..progress import checked_progress, progress_bar
from ..spec.gating import Training

from ._runs import gdln_outputs_from_start, unstack_gdln
from .safetensors_io import check_metadata, read_checkpoint

__all__ = ["RunCheckpoints", "load_data", "parse_layers", "parse_steps", "load_checkpoints",
           "paired_start", "start_a0", "data_task", "find_gates_in_run", "named_by_run"]

_BIAS = re.compile(r"(^|[._/])(bias|b\d*)$", re.IGNORECASE)


# ---------------------------------------------------------------------------------------------
# Reading files
# ---------------------------------------------------------------------------------------------
def load_data(path) -> tuple[np.ndarray, np.ndarray]:
    """``(X, Y)`` from an ``.npz`` with ``X`` (d × P) and ``Y`` (p × P), float64, checked."""
    path = Path(path)
    raw = read_npz(path, "--data", "an .npz with arrays X (d × P) and Y (p × P)",
                   "save the data with numpy.savez(path, X=X, Y=Y)")
    return _check_data(raw, lambda key: file_field("--data", path, key))


def _check_data(raw: Mapping, field_of) -> tuple[np.ndarray, np.ndarray]:
    """``(X, Y)`` of ``raw`` (arrays ``X``, d × P, and ``Y``, p × P; a 1-D array is one row), float64,
    checked as :func:`load_data` checks a file's; ``field_of(key)`` names an array in errors."""
    out = {}
    for key in ("X", "Y"):
        f = field_of(key)
        if key not in raw:
            raise SpecError(f, f"missing (the file has {sorted(raw)})",
                            "save inputs as X (d × P) and targets as Y (p × P), datapoints as columns")
        try:
            A = np.asarray(raw[key])
            if A.dtype.kind == "O":                     # exact numbers given from Python (sympy, Fraction)
                A = A.astype(np.float64)
        except (TypeError, ValueError) as exc:          # a ragged list, or objects that are not numbers
            raise SpecError(f, f"is not an array ({str(exc)[:80]})", f"give {key} as a 2-D array of numbers") from None
        if A.dtype.kind not in "fiub":
            raise SpecError(f, f"has dtype {A.dtype}", "store real numbers")
        if A.ndim == 1:
            A = A[None, :]
        if A.ndim != 2 or A.size == 0:
            raise SpecError(f, f"has shape {A.shape}", f"store {key} as a 2-D array, datapoints as columns")
        out[key] = finite_array(A, f, "number", DATA_MAX, "store finite numbers",
                           "rescale the data (divide X, or Y, by one common factor)")
    X, Y = out["X"], out["Y"]
    for key, A, what in (("X", X, "inputs"), ("Y", Y, "targets")):
        if not A.any():     # every effective dataset Σyx = Y diag(g) Xᵀ / P is then zero
            raise SpecError(field_of(key), f"the {what} are all zero: no gate pattern has anything to learn",
                            f"give the {what} the network was trained on")
    if X.shape[1] != Y.shape[1]:
        if X.shape[0] == Y.shape[0]:
            raise SpecError(field_of("X"), f"X is {X.shape[0]} × {X.shape[1]} and Y {Y.shape[0]} × {Y.shape[1]}: "
                            "the datapoints look like rows", "datapoints are columns: save X.T and Y.T "
                            "(X is d × P, Y is p × P)")
        raise SpecError(field_of("Y"), f"X has {X.shape[1]} datapoints (columns), Y has {Y.shape[1]}",
                        "give one target column per input column")
    return X, Y


def parse_layers(text: str | Mapping | None) -> dict | None:
    """``"W1=fc1.weight,W2=fc2.weight"`` → ``{"W1": "fc1.weight", "W2": "fc2.weight"}`` (checked)."""
    if text is None:
        return None
    if isinstance(text, Mapping):
        items = list(text.items())
    else:
        items = []
        for part in str(text).split(","):
            if not part.strip():
                continue
            if "=" not in part:
                raise SpecError("--layers", f"{part.strip()!r} is not NAME=KEY", "write e.g. W1=fc1.weight,W2=fc2.weight")
            a, b = (s.strip() for s in part.split("=", 1))
            items.append((a, b))
    names = [a for a, _ in items]
    want = [f"W{i + 1}" for i in range(len(items))]
    if sorted(names, key=lambda n: (len(n), n)) != want or not items:
        raise SpecError("--layers", f"names {names} are not W1, W2, … in full",
                        "map every layer, e.g. W1=fc1.weight,W2=fc2.weight")
    if len(items) not in (2, 3):
        raise SpecError("--layers", f"{len(items)} layers: one or two hidden layers (2 or 3 weights) are supported",
                        "map W1, W2 (and W3)")
    return dict(items)


def parse_steps(text) -> list | None:
    if text is None:
        return None
    if isinstance(text, (list, tuple, np.ndarray)):
        vals = list(text)
    else:
        try:
            vals = [int(s) for s in str(text).split(",") if s.strip()]
        except ValueError:
            raise SpecError("--steps", f"{text!r} is not a comma-separated list of integers",
                            "write e.g. --steps 0,100,200") from None
    try:
        bad = any(int(v) != v or v < 0 for v in vals)
    except (TypeError, ValueError, OverflowError):     # NaN, inf or a string in a list given from Python
        bad = True
    if bad:
        raise SpecError("--steps", "steps must be non-negative integers", "write e.g. --steps 0,100,200")
    return [int(v) for v in vals]


def _step_from_name(path: Path):
    nums = re.findall(r"\d+", path.stem)
    return int(nums[-1]) if nums else None


def _expand(checkpoints) -> list[Path]:
    pats = [str(checkpoints)] if isinstance(checkpoints, (str, Path)) else [str(c) for c in checkpoints]
    files = []
    for pat in pats:
        hits = sorted(_glob.glob(pat)) if any(ch in pat for ch in "*?[") else [pat]
        if hits == [pat] and not Path(pat).exists():
            raise SpecError("--checkpoints", f"no such file: {pat}",
                            "give existing checkpoint files, or a glob such as 'run/step_*.safetensors'")
        if not hits:
            raise SpecError("--checkpoints", f"{pat!r} matches no file", "give a glob such as 'run/step_*.safetensors'")
        files += [Path(h) for h in hits]
    return files


# ---------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------
@dataclass
class RunCheckpoints:
    """A checked run: ``weights[l]`` is checkpoints × out × in (float64), at ``steps``."""
    steps: np.ndarray
    weights: list
    files: list
    X: np.ndarray
    Y: np.ndarray
    meta: dict = field(default_factory=dict)
    keys: list = field(default_factory=list)
    #: whether ``steps`` were given (``--steps``), not read from the file names: what an error names
    steps_given: bool = False

    @property
    def widths(self) -> list:
        return [int(W.shape[1]) for W in self.weights[:-1]]

    @property
    def depth(self) -> int:
        return len(self.weights)

    def params(self, i: int) -> list:
        return [W[i] for W in self.weights]

    def __repr__(self):     # one line (the dataclass's own printed every weight array and the data: 13,000 characters)
        sizes = " → ".join(str(n) for n in (self.X.shape[0], *self.widths, self.Y.shape[0]))
        span = f"steps {int(self.steps[0])}…{int(self.steps[-1])}" if len(self.steps) else "no steps"
        return (f"RunCheckpoints({counted(len(self.steps), 'checkpoint')} ({span}), ReLU network {sizes}, "
                f"{counted(self.X.shape[1], 'datapoint')}; meta {self.meta})")

    def _forward(self) -> list:
        """The forward pass at every checkpoint: each hidden layer's pre-activations
        (checkpoints × H × P), then the outputs (checkpoints × p × P)."""
        h = np.broadcast_to(self.X, (len(self.steps),) + self.X.shape)
        pres = []
        for W in self.weights[:-1]:
            pres.append(W @ h)
            h = np.maximum(pres[-1], 0.0)
        return pres + [self.weights[-1] @ h]

    def hidden_activity(self) -> list:
        """Pre-activation signs: per hidden layer, checkpoints × H × P booleans (1[pre > 0])."""
        return [pre > 0 for pre in self._forward()[:-1]]

    def outputs(self) -> np.ndarray:
        """Network outputs at every checkpoint (checkpoints × p × P)."""
        return self._forward()[-1]

    def loss(self, kind: str = "mean") -> np.ndarray:
        """The training loss at every checkpoint: 1/(2P) Σ‖ŷ − y‖² (``"mean"``) or ½ Σ‖ŷ − y‖²."""
        r = self.outputs() - self.Y
        L = 0.5 * np.sum(r * r, axis=(1, 2))
        return L if loss_name(kind, "loss", 'use "mean" or "sum", as --loss') == "sum" else L / self.X.shape[1]


def _pick(arrays, path, names, ignore_bias):
    key_field = functools.partial(file_field, "--checkpoints", path)      # key_field(key): the file's key, for messages
    bias = sorted(k for k in arrays if _BIAS.search(k))
    if bias and not ignore_bias:
        raise SpecError(key_field(bias[0]), f"holds biases ({', '.join(bias)}); the theory is of bias-free networks",
                        "train without biases (bias=False / use_bias=False), or pass --ignore-bias to drop them "
                        "(the results then describe a different network)")
    if names is None:
        n = 0
        while f"W{n + 1}" in arrays:
            n += 1
        if n < 2:
            missing = "W1" if "W1" not in arrays else "W2"
            raise SpecError(key_field(missing), f"missing (the file has {sorted(arrays)})",
                            "name the weights W1, W2 (, W3), or map them with --layers W1=fc1.weight,W2=fc2.weight")
        if n > 3:
            raise SpecError(key_field(f"W{n}"), f"{n} weight layers: one or two hidden layers are supported",
                            "give a network with 2 or 3 weight matrices")
        names = {f"W{i + 1}": f"W{i + 1}" for i in range(n)}
    out, keys = [], []
    for i in range(len(names)):
        key = names[f"W{i + 1}"]
        if key not in arrays:
            raise SpecError(key_field(key), f"missing (the file has {sorted(arrays)})",
                            "check --layers against the file's keys")
        W = np.asarray(arrays[key])
        if W.dtype.kind not in "fiu" or W.ndim != 2 or W.size == 0:
            raise SpecError(key_field(key), f"has shape {W.shape} and dtype {W.dtype}",
                            "each layer is a non-empty 2-D real matrix, out × in")
        damaged = "the run diverged or the file is damaged: drop that checkpoint"
        out.append(finite_array(W, key_field(key), "weight", MAX_WEIGHT, damaged, damaged))
        keys.append(key)
    return out, keys


def _check_shapes(Ws, keys, path, d, p, P=None, data=None):
    key_field = functools.partial(file_field, "--checkpoints", path)
    W1 = Ws[0]
    if W1.shape[1] != d:
        if P is not None and W1.shape[1] == P and W1.shape[0] != d and data is not None:
            raise SpecError(file_field("--data", data, "X"),
                            f"X is {d} × {P} but {key_field(keys[0])} reads {P} inputs: the datapoints look like rows",
                            "datapoints are columns: save X.T and Y.T (X is d × P, Y is p × P)")
        hint = (" (it looks transposed: in × out, as Flax's kernel; store out × in, e.g. kernel.T)"
                if W1.shape[0] == d else "")
        raise SpecError(key_field(keys[0]), f"has shape {W1.shape}, but the data's X has d = {d} rows: the first "
                        f"layer must be hidden × {d}{hint}", "weights are out × in (PyTorch's nn.Linear.weight)")
    for l in range(1, len(Ws)):
        if Ws[l].shape[1] != Ws[l - 1].shape[0]:
            hint = " (it looks transposed)" if Ws[l].shape[0] == Ws[l - 1].shape[0] else ""
            raise SpecError(key_field(keys[l]), f"has shape {Ws[l].shape}, but {keys[l - 1]!r} has "
                            f"{Ws[l - 1].shape[0]} outputs{hint}", "weights are out × in, each reading the previous layer")
    if Ws[-1].shape[0] != p:
        raise SpecError(key_field(keys[-1]), f"has shape {Ws[-1].shape}, but the data's Y has p = {p} rows",
                        f"the last layer must be {p} × hidden (out × in)")


def load_checkpoints(checkpoints, data, *, layers=None, steps=None, ignore_bias: bool = False) -> RunCheckpoints:
    """Read and check a run: ``checkpoints`` a glob, a path or a list of paths; ``data`` an ``.npz``
    path or ``(X, Y)``; ``layers`` a mapping or ``"W1=…,W2=…"``; ``steps`` one per file."""
    if isinstance(data, (str, Path)):
        X, Y = load_data(data)
    else:
        try:
            xs, ys = data
        except (TypeError, ValueError):
            raise SpecError("data", f"is a {type(data).__name__}, not an .npz path or a pair (X, Y)",
                            "give the path of an .npz with X and Y, or (X, Y): X d × P, Y p × P") from None
        X, Y = _check_data({"X": xs, "Y": ys}, lambda key: f"data: {key}")
    names = parse_layers(layers)
    files = _expand(checkpoints)
    steps = parse_steps(steps)
    steps_given = steps is not None
    if steps is not None:
        if len(steps) != len(files):
            raise SpecError("--steps", f"{len(steps)} steps for {len(files)} checkpoint files",
                            "give one step per file, in the order of the sorted file names")
    else:
        found = [_step_from_name(p) for p in files]
        if any(s is None for s in found):
            bad = files[found.index(None)]
            raise SpecError("--steps", f"no step number in the file name {bad.name!r}",
                            "name files like step_000100.safetensors, or give --steps 0,100,…")
        steps = found
    # one step per file, given or read from the names: the run in the order of its steps
    order = sorted(range(len(files)), key=lambda i: steps[i])
    files, steps = [files[i] for i in order], [steps[i] for i in order]
    rep = next((i for i in range(1, len(steps)) if steps[i] == steps[i - 1]), None)
    if rep is not None:
        raise SpecError("--steps", f"repeated step numbers {steps}: {files[rep - 1]} and {files[rep]} are both "
                        f"step {steps[rep]}", "give each checkpoint its own step")
    if len(files) < 2:
        raise SpecError("--checkpoints", f"{len(files)} checkpoint file: a run needs at least two",
                        "save checkpoints during training, e.g. every 100 steps from step 0")
    allW, meta, keys, shapes = [], {}, None, None
    auto = names is None            # layers found as W1, W2, …: every file has the first one's count
    for path in files:
        arrays, m = read_checkpoint(path)
        Ws, keys = _pick(arrays, path, names, ignore_bias)
        if auto and f"W{len(keys) + 1}" in arrays:
            raise SpecError(file_field("--checkpoints", path, f"W{len(keys) + 1}"),
                            f"a weight layer beyond the {len(keys)} of the first checkpoint {files[0]}",
                            "give checkpoints of one network")
        if names is None:
            names = {f"W{i + 1}": k for i, k in enumerate(keys)}
        _check_shapes(Ws, keys, path, X.shape[0], Y.shape[0], X.shape[1], data if isinstance(data, (str, Path)) else None)
        if shapes is None:
            shapes, meta = [W.shape for W in Ws], m
        elif [W.shape for W in Ws] != shapes:
            l = next(i for i, W in enumerate(Ws) if W.shape != shapes[i])
            raise SpecError(file_field("--checkpoints", path, keys[l]), f"has shape {Ws[l].shape}, the first checkpoint's is {shapes[l]}",
                            "give checkpoints of one network")
        allW.append(Ws)
    return RunCheckpoints(np.asarray(steps, int), [np.stack(w) for w in zip(*allW)], [str(f) for f in files], X, Y,
                          meta, keys, steps_given)


def run_settings(run: RunCheckpoints, lr=None, loss=None) -> tuple[float, str]:
    """Learning rate and loss convention: given, else from the checkpoint's metadata."""
    if lr is None and "lr" in run.meta:
        lr = float(check_metadata(run.meta, run.files[0])["lr"])
    if lr is None:
        raise SpecError("--lr", "no learning rate recorded (the checkpoints' metadata has none)",
                        "give --lr, the step size of the run's full-batch gradient descent, e.g. --lr 0.05")
    learning_rate(lr, "--lr", "--lr 0.05")
    loss = loss or run.meta.get("loss", "mean")
    loss_name(loss, "--loss", "\"mean\": L = 1/(2P) Σ‖ŷ−y‖²; \"sum\": L = ½ Σ‖ŷ−y‖²")
    return float(lr), loss


#: the fields of the checks that the values a run gives meet (the paired start's a0 and std, the
#: steps from its first checkpoint to its last), as Training and the trainer and race name them
_SPAN_FIELDS, _START_FIELDS = ("training.steps", "steps"), ("training.a0", "training.init_std", "a0")


@contextmanager
def named_by_run(run: RunCheckpoints, **values):
    """Refusals of values the run gives (``values``: the a0 or init_std of its paired start, or
    ``steps``, its span), as Training, the trainer or the race check them, re-raised naming what the
    user gave (the first checkpoint and its arrays; --steps or the last checkpoint), not a spec field
    or a keyword they never wrote. What is refused is unchanged: only the words."""
    try:
        yield
    except SpecError as exc:
        if exc.field in _SPAN_FIELDS and "steps" in values:
            raise _span_error(run) from None
        what = {"training.a0": "a0", "a0": "a0", "training.init_std": "init_std"}.get(exc.field)
        if exc.field not in _START_FIELDS or what not in values:
            raise
        raise _start_error(run, what, values[what], exc.problem) from None


def _span_error(run: RunCheckpoints) -> SpecError:
    first, last = int(run.steps[0]), int(run.steps[-1])
    span = f"{last - first} steps from the first checkpoint (step {first}) to the last (step {last})"
    bound = f"a GDLN is trained for at most {fmt(MAX_STEPS)} steps"
    if run.steps_given:
        return SpecError("--steps", f"{span}: {bound}", "check --steps: one step per file, in the order of the "
                         f"sorted file names, at most {fmt(MAX_STEPS)} apart from first to last")
    return SpecError(file_field("--checkpoints", run.files[-1]), f"its step number, the last number in its name, "
                     f"is {span}: {bound}", "check the step numbers in the file names, or give the checkpoints' "
                     "steps with --steps 0,100,…")


def _start_error(run: RunCheckpoints, what: str, value: float, problem: str) -> SpecError:
    stds = {k: float(np.std(W)) for k, W in zip(run.keys or [f"W{i + 1}" for i in range(run.depth)], run.params(0))}
    low = not value >= 1          # out of range from below (a zero-initialised layer), else from above
    key = (min if low else max)(stds, key=stds.get)
    listed = ", ".join(f"{k} = {fmt(s)}" for k, s in stds.items())
    source = "the a0 rule" if what == "a0" else "the geometric mean"
    fix = ("give checkpoints of a run started from small random weights, not (near) zeros (from all-zero "
           "weights gradient descent never moves), or leave this checkpoint out of --checkpoints: the run then "
           "starts at the next" if low else "the theory is of learning from small weights: give checkpoints of a run started from "
           "smaller random weights (docs/theory.md#a0-rule)")
    return SpecError(file_field("--checkpoints", run.files[0], key),
                     f"the weights of this first checkpoint (step {int(run.steps[0])}) have stds {listed}, so the "
                     f"{what} of the GDLN started from them ({source} of those stds) is out of range: {problem}", fix)


# ---------------------------------------------------------------------------------------------
# The GDLN of gate patterns, started from the run's own weights
# ---------------------------------------------------------------------------------------------
def data_task(X, Y, name: str = "imported"):
    """A :class:`~theorykit.spec.task.Task` of numeric data (floats kept exactly, via their decimal repr)."""
    import sympy as sp

    def mat(A):
        return sp.Matrix([[to_exact(float(v)) if v != int(v) else sp.Integer(int(v)) for v in row] for row in A])

    return Task(mat(X), mat(Y), {}, name)


def start_a0(params, hidden) -> float:
    """a0 of the paired start: :func:`~theorykit.net.starts.a0_rule` per pathway of width h, from σ_l,
    the run's layer-l std at its first checkpoint; the geometric mean over pathways (the found spec
    holds one a0), :func:`~theorykit.analysis.findgates.geometric_mean`: pathways of equal widths give
    their a0 as it is."""
    stds = [float(np.std(W)) for W in params]
    vals = [a0_rule(stds, [int(h)] * len(stds)) for h in hidden]
    return geometric_mean(vals)


def paired_start(spec, params: Sequence[np.ndarray]) -> dict:
    """Edge weights of a pathway spec's GDLN cut from one ReLU checkpoint ``[W1, …, WL]``: pathway
    j owns the next ``hidden_j`` units (rows of W1, columns of WL, a diagonal block of a middle
    layer), as the GDLN trainings of Algorithm 1 pair seeds (:mod:`theorykit.analysis._runs`). Widths must add up to the ReLU's."""

    g = graph_from_pathways(spec)
    L = len(params)
    H = params[0].shape[0]
    tot = sum(p.hidden for p in spec.pathways)
    if tot != H or any(p.depth != L for p in spec.pathways):
        raise SpecError("pathways.hidden", f"the pathways' widths add up to {tot} (depths "
                        f"{sorted({p.depth for p in spec.pathways})}), the run's network has {H} hidden units and "
                        f"{L} layers", "use the spec found in this run, or widths that add up to the run's")
    if L == 3 and params[1].shape[0] != H:
        raise SpecError("pathways.hidden", f"hidden layers of {H} and {params[1].shape[0]} units",
                        "the paired start of a depth-3 pathway spec needs equal hidden widths")
    out = {}
    for gp, p, ws in zip(g.pathways, spec.pathways, unstack_gdln(params, [p.hidden for p in spec.pathways])):
        ws = [ws[0][:, list(p.inputs)]] + ws[1:-1] + [ws[-1][list(p.outputs)]]
        for k, W in zip(gp.edges, ws):
            out[k] = np.asarray(W, np.float64)[None]
    return out


def split_units(shares, H: int) -> list:
    """``H`` units split by ``shares`` (summing to 1): largest remainders, at least one unit each."""
    shares = np.asarray(shares, float)
    K = len(shares)
    if K > H:
        raise SpecError("K", f"{K} pathways cannot share {H} hidden units", f"use K <= {H}")
    base = np.maximum(np.floor(shares * (H - K)).astype(int), 0) + 1
    rem = shares * (H - K) - np.floor(shares * (H - K))
    for j in np.argsort(-rem, kind="stable")[:H - int(base.sum())]:
        base[j] += 1
    return [int(b) for b in base]


def check_elbow_size(run: RunCheckpoints, task: Task, Ks, steps: int, limits: Limits | None = None) -> None:
    """Refuse, before any GDLN trains, an elbow of :func:`find_gates_in_run` whose estimate
    (:func:`~theorykit.analysis.findgates.elbow_estimate`: one GDLN of the run's width per K, for the run's
    ``steps``, its last checkpoint's step less its first's) is over ``limits`` (default
    :class:`~theorykit.spec.limits.Limits`; ``force`` lifts the time limit only). The error names
    --checkpoints (``run=`` from Python) with the most steps that fit, else --max-K (``Ks=``; for time only: the
    memory does not fall with K), and --K (``K=``), which skips the elbow: nothing is trained then."""
    limits = limits if limits is not None else Limits()
    size = dict(task=task, hidden=run.widths[0], depth=run.depth, Ks=Ks)
    est = elbow_estimate(steps=steps, **size)
    try:
        enforce(est, limits)
    except SpecError as err:
        def fits(t, ks=Ks):
            e = elbow_estimate(steps=t, **{**size, "Ks": ks})
            return e.bytes <= limits.max_bytes and (limits.force or e.seconds <= limits.max_seconds)
        zero = elbow_estimate(steps=0, **size)      # the estimate is linear in the steps: the most that fit, then checked
        room = min((limits.max_bytes - zero.bytes) / max(est.bytes - zero.bytes, 1e-300),
                   math.inf if limits.force else (limits.max_seconds - zero.seconds) / max(est.seconds - zero.seconds, 1e-300))
        most = min(int(steps * room), steps - 1)
        while most >= 1 and not fits(most):
            most -= 1
        past = ["; " + lift(est, limits, python) for python in (False, True)]     # the command line's, Python's
        span = f"the elbow trains a GDLN per K over the run's {steps} steps, from step {run.steps[0]} to {run.steps[-1]}"
        if most >= 1:
            raise SpecError("--checkpoints", err.problem, f"read checkpoints over at most {most} steps ({span}), or give --K "
                            f"(no elbow: nothing is trained){past[0]}", keyword_fix=f"a run over at most {most} steps "
                            f"({span}), or give K= (no elbow: nothing is trained){past[1]}") from None
        # fewer Ks: offered only up to a largest K that fits. The memory is the largest GDLN's, whose weights add
        # up to the run's width whatever K, and its loss history: a lower --max-K, offered whatever it saved,
        # was refused again where the history alone is over the limit
        ks = sorted({int(k) for k in Ks})
        m = next((k for k in reversed(ks[:-1]) if fits(steps, [j for j in ks if j <= k])), None)
        if m is None:
            raise SpecError("--K", err.problem, f"give --K (no elbow: nothing is trained){past[0]}",
                            keyword_fix=f"give K= (no elbow: nothing is trained){past[1]}") from None
        raise SpecError("--max-K", err.problem, f"lower --max-K to at most {m}, or give --K (no elbow: nothing is "
                        f"trained){past[0]}", keyword_fix=f"Ks up to {m} (e.g. Ks=range(1, {m + 1})), or give K= (no "
                        f"elbow: nothing is trained){past[1]}") from None


@keyword_errors({"--K": "K", "--lr": "lr", "--loss": "loss", "--checkpoints": "run", "--max-K": "Ks"})
def find_gates_in_run(run: RunCheckpoints, *, lr: float, loss: str = "mean", K: int | None = None,
                      Ks=range(1, 9), seed: int = 0, n_init: int = 10, rule: str = "improvement",
                      threshold: float | None = None, name: str = "found-gates", progress=None,
                      limits: Limits | None = None) -> FoundGates:
    """Algorithm 1 on an imported run: the first hidden layer's binary activity at every checkpoint
    is clustered; for each K the GDLN of the K patterns is trained from the run's first checkpoint
    (paired start) for the run's steps and scored by its output MSE against the run at every
    checkpoint; K by the elbow (unless given); the spec of that K. ``progress``: True, False or None,
    or a :class:`~theorykit.progress.Progress`, as :func:`theorykit.analysis.findgates.find_gates` takes it.
    ``limits``: the elbow's size check (:func:`check_elbow_size`), as ``find_gates`` takes it; with ``K`` given
    nothing is trained."""

    X, Y = run.X, run.Y
    if run.depth == 3 and run.widths[0] != run.widths[1]:
        raise SpecError(file_field("--checkpoints", run.files[0], run.keys[1]), f"hidden layers of {run.widths[0]} and {run.widths[1]} "
                        "units", "Algorithm 1's GDLN of a two-hidden-layer network needs equal widths")
    threshold = ELBOW_THRESHOLD if threshold is None else threshold
    check_elbow_settings(rule, threshold, n_init, seed, K=K, Ks=Ks)     # as tk.find_gates checks them
    checked_progress(progress)
    rows = unit_rows(run.hidden_activity()[0])                        # (checkpoints · H) × P
    ref = run.outputs()                                               # checkpoints × p × P
    t_rel = [int(s - run.steps[0]) for s in run.steps]
    H = run.widths[0]
    task = data_task(X, Y)
    W0 = run.params(0)
    stds = [float(np.std(W)) for W in W0]
    a0, init_std = start_a0(W0, [H]), geometric_mean(np.maximum(stds, 1e-300))
    with named_by_run(run, a0=a0, init_std=init_std, steps=t_rel[-1]):   # their errors name the files given
        training = Training(lr=lr, loss=loss, a0=a0, init_std=init_std, steps=max(t_rel[-1], 1))

    def spec_of(patterns, shares, nm=name):
        spec = patterns_to_spec(task, list(zip(patterns, shares)), H, training, nm, depth=run.depth)
        # the paired start cuts the run's H units into the pathways: widths by share adding up to H
        # exactly (largest remainders, at least one unit each), even where that is below a rank
        sh = np.array([shares[patterns.index(p.active)] for p in spec.pathways], float)
        return replace(spec, pathways=tuple(replace(p, hidden=h) for p, h in
                                            zip(spec.pathways, split_units(sh / sh.sum(), H))))

    def fit(rec):
        spec = spec_of(rec["patterns"], rec["shares"])
        out, sim = gdln_outputs_from_start(spec, paired_start(spec, W0), t_rel, lr)
        return {"mse": output_mse(out[0], ref), "gdln_loss": sim.mean[t_rel],
                "hidden": [p.hidden for p in spec.pathways]}

    notes = []
    if K is None:
        # the paired start gives every pathway at least one of the run's H units: more than H
        # clusters cannot all be pathways, so the elbow stops at K = H
        if any(k > H for k in Ks):
            Ks = [k for k in Ks if k <= H]
            if not Ks:
                raise SpecError("Ks", f"every K is above the {H} units of the run's first hidden layer, and each "
                                "pathway needs one", f"e.g. Ks=range(1, {H + 1})")
            notes.append(f"the elbow tried K = 1 … {H}: the run's first hidden layer has {H} units, "
                         "and each pathway needs one")
        check_elbow_size(run, task, Ks, training.steps, limits)      # before k-means and any GDLN
        with progress_bar(progress, "find-gates: elbow", len(list(Ks))) as bar:
            scores = elbow_scores_from(X, Y, rows, Ks, H, fit, kmeans_seed=seed, n_init=n_init, progress=bar)
        K, rec, Ks = elbow_pick(scores, rule, threshold, notes)
    else:
        if int(K) > H:
            raise SpecError("--K", f"{int(K)} clusters, but the run's first hidden layer has {H} units and "
                            "each pathway needs one", f"use --K {H} or fewer")
        rec = patterns_for_K(X, Y, rows, int(K), H, kmeans_seed=seed, n_init=n_init)
        scores, Ks = [], [int(K)]
    if not rec["patterns"]:
        raise SpecError("--K", f"no gate pattern of the {K} clusters of the run's first-layer activity has a "
                        "non-zero effective dataset (the units are off where the targets are)",
                        "use more clusters (a larger --K), or check that the run learned the data")
    spec = spec_of(rec["patterns"], rec["shares"])

    a0 = start_a0(W0, [p.hidden for p in spec.pathways])
    with named_by_run(run, a0=a0):
        spec = replace(spec, training=replace(training, a0=a0))
    if len(spec.pathways) < K:
        notes.append(f"{K} clusters gave {counted(len(spec.pathways), 'distinct non-empty gate pattern')}")
    return FoundGates(spec, int(K), list(Ks), scores, run, rule, lr, loss, notes)
