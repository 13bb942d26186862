"""Shared pieces of the commands: reading options, estimating costs, writing results."""
from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
import stat
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np

from ..errors import SpecError
from . import one_line
from .parser import MAX_SEEDS
from ..io import atomic_write_text, counted, is_special, jsonable, software_versions
from ..io import json_text as io_json_text          # the one JSON form; json_text below names a non-finite result
from ..spec.fields import NAME_MAX_LEN, fmt, integer, label, real, seed_value
from ..spec.files import MAX_STEPS, check_values, load_spec, parse_assignment, spec_from_dict, spec_to_toml
from ..spec.limits import SIM_STARTUP, Limits, derivation_estimate, simulation_estimate
from ..spec.ranges import time_limit_fix
from ..suites import SUITES

#: largest time (gradient steps) at which a loss may be asked for
MAX_TIME = 1e12
#: networks trained at once unless --seeds (or a weight file) says otherwise
DEFAULT_SEEDS = 4
#: how the first line of a spec file a command writes begins: its record follows as JSON (``rerun`` reads it)
COMMENT = "# made by theorykit: "


def unrecorded(path, doc) -> tuple[str, str]:
    """The problem and fix of a JSON result that ``rerun`` was given without a provenance record. A
    validation suite's result (``validate NAME``: ``suite`` and ``mode``) or ``validate all``'s
    results.json (``verdict_counts`` and ``mode``) records no command, as suites are not rerun: the fix
    is the command that runs it again. Any other was written before results recorded how they were made."""
    doc = doc if isinstance(doc, dict) else {}
    name = doc.get("suite", "all" if "verdict_counts" in doc else None)
    if doc.get("mode") in ("quick", "full") and name in (*SUITES, "all"):
        what = "the results.json of theorykit validate all" if name == "all" else \
            f"the result of the validation suite {name!r}"
        return (f"{path} is {what}, which rerun does not rerun: it records no command",
                f"run it again into a new folder and compare: theorykit validate {name} --{doc['mode']} --out NEW_DIR")
    return (f"{path} has no provenance record (results written before it was recorded have none)",
            "make the result again with this theorykit, then rerun it")


def parse_times(text, default_max):
    """``--times`` as a sorted array, each time once (times out of order or repeated are sorted and the
    repeats dropped, with a note on stderr saying so); ``None`` gives 11 times from 0 to ``default_max``."""
    if text is None:
        return np.unique(np.linspace(0, default_max, 11).astype(int)).astype(float)
    try:
        vals = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SpecError("--times", f"{text[:60]!r} is not a comma-separated list of numbers",
                        "write e.g. --times 0,100,1000") from None
    if not vals or any(not (0 <= v <= MAX_TIME) for v in vals):
        raise SpecError("--times", f"times must be numbers between 0 and {MAX_TIME:.0e}", "write e.g. --times 0,100,1000")
    if len(vals) > 100000:
        raise SpecError("--times", f"{len(vals)} times given (at most 100000)", "ask for fewer times")
    times = np.unique(np.array(vals))       # sorted, each once: a repeat was a repeated row of the same loss
    if len(times) < len(vals) or np.any(np.diff(vals) < 0):
        done = " and ".join(w for w, did in (("sorted", np.any(np.diff(vals) < 0)),
                                             (f"{counted(len(vals) - len(times), 'repeat')} dropped",
                                              len(times) < len(vals))) if did)
        shown = ",".join(f"{t:g}" for t in times[:12]) + (",…" if len(times) > 12 else "")
        note(f"--times: {done}; the times used are {shown} (give them in order, each once, to have no note)")
    return times


def limits_from(args) -> Limits:
    """The size check's limits of ``args``: ``--time-limit`` (seconds; 0 or inf: no limit, as predict's
    --time-limit) and ``--force``; a refusal's fix names those of the two the command has (``Limits.options``:
    compare has neither, and its fix names THEORYKIT_MAX_SECONDS)."""
    tl = getattr(args, "time_limit", None)
    if tl is not None and tl != math.inf:       # inf: no limit
        tl = real(tl, "--time-limit", lo=0.0, hi=math.inf, fix=time_limit_fix("600"))
    return Limits(max_seconds=tl, force=getattr(args, "force", False), options=lift_options(args))  # 0: no limit, as Limits reads it


def typed_as(args, option: str, former: str) -> str:
    """The name under which ``option`` was typed on the command line (``args.argv``): ``former``, its former name
    (parser._Renamed: predict's --time-bound), where that came after the last ``option`` (argparse's last wins),
    so that an error in the value names the option typed; else ``option``."""
    names = [w.split("=", 1)[0] for w in getattr(args, "argv", None) or ()]
    names = [w for w in names if w in (option, former)]
    return names[-1] if names else option


def lift_options(args) -> tuple:
    """Which of ``--force`` and ``--time-limit`` the command of ``args`` has (``Limits.options``)."""
    return tuple(o for o in ("--force", "--time-limit") if hasattr(args, o[2:].replace("-", "_")))


def limits_passed_on(argv: list, args, options) -> list:
    """The recorded command ``argv`` (whose option strings are ``options``) with ``rerun``'s ``--force`` and
    ``--time-limit`` passed on: after its own (argparse's last wins), before any ``--``. Checked first, as every
    command checks them; an option the command lacks (predict has no --force; compare neither) is refused by name."""
    limits_from(args)
    extra = (["--force"] if getattr(args, "force", False) else []) + \
        ([] if getattr(args, "time_limit", None) is None else ["--time-limit", repr(float(args.time_limit))])
    for opt in (o for o in extra if o.startswith("--") and o not in options):
        raise SpecError(opt, f"theorykit {argv[0]} has no {opt}: it cannot be passed on to the command rerun",
                        f"leave out {opt}" + (" (its --time-limit 0 lifts its limit)" if "--time-limit" in options else ""))
    at = argv.index("--") if "--" in argv else len(argv)
    return argv[:at] + extra + argv[at:]


def values_from(spec, sets) -> dict:
    """``--set NAME=VALUE`` options as symbol values, checked against the spec."""
    vals, given = {}, {}
    for a in sets or []:
        sym, v = parse_assignment(a, spec.task.symbols)
        if sym in vals:         # the last would silently win
            raise SpecError(f"--set {sym}", f"is given twice ({given[sym]} and {a.split('=', 1)[1].strip()})",
                            "give each symbol one value")
        vals[sym] = v
        given[sym] = a.split("=", 1)[1].strip()
    check_values(spec, vals, given)
    return vals


def no_value(free, field: str = "--set", problem: str = "no value for {names}") -> SpecError:
    """The command line's error for symbols left without a value: it names them, and the fix is one
    ``--set NAME=VALUE`` per name."""
    names = sorted(map(str, free))
    return SpecError(field, problem.format(names=names), "pass " + " ".join(f"--set {n}=VALUE" for n in names))


def spec_from_args(args):
    """The limits of ``args``, the spec ``args.spec`` read under them and its ``--set`` values (none for
    a command without ``--set``)."""
    limits = limits_from(args)
    spec = load_spec(args.spec, limits=limits)
    return limits, spec, values_from(spec, getattr(args, "set", None))


def fitting_name(text: str, fallback: str) -> str:
    """``text`` cut to the longest name a spec may have (``fallback`` where that is no name)."""
    try:
        return label(text[:NAME_MAX_LEN], "name", "")
    except SpecError:
        return fallback


def steps_arg(value) -> int:
    """``--steps``: a positive number of gradient steps, at most MAX_STEPS."""
    return integer(value, "--steps", lo=1, hi=MAX_STEPS,
                   fix=f"a positive integer (at most {fmt(MAX_STEPS)}), e.g. --steps 2000")


def seeds_arg(value) -> int:
    """``--seeds``: a positive number of networks, at most MAX_SEEDS."""
    return integer(value, "--seeds", lo=1, hi=MAX_SEEDS, fix="a positive integer, e.g. --seeds 4")


def seed_arg(value) -> int:
    """``--seed``: a whole number from 0 to 2**32 - 1 (JAX's PRNGKey takes no more)."""
    return seed_value(value, "--seed", "--seed 1")


def write_result(option, path, text) -> Path:
    """Write one result file atomically, returning the path written (:func:`~theorykit.io.atomic_write_text`);
    an unwritable path is an error naming the option."""
    try:
        return atomic_write_text(path, text)
    except OSError as exc:
        raise SpecError(option, f"cannot write {path}: {exc.strerror or exc}", "give a writable path") from None


def check_outputs(*outputs, inputs=(), stdout=None) -> None:
    """Refuse, before anything is written, an output path that cannot be written: ``outputs`` are
    ``(option, path)`` pairs (``None`` and ``'-'`` skipped; given ``stdout``, the options that write
    ``'-'`` to stdout, another option's ``'-'`` is refused: it would make a file named ``-``). A path
    must not be a folder, and its nearest existing folder must be a folder one can write in (missing
    folders are made on writing).
    Nor may it be the path of another output (the second written would replace the first; a device
    such as /dev/null, or /dev/stdout on a pipe, written as it is, may take several, but not a named
    pipe: its reader ends at the first output's end, and the second waits for ever) or of a
    file the command reads, ``inputs`` (``(option, path)`` pairs): ``derive s.toml --json s.toml``
    replaced the spec with its own derivation."""
    seen = {}
    for option, path in outputs:
        if path == "-" and stdout is not None and option not in stdout:
            raise SpecError(option, f"{option} does not write to stdout ('-'): it would make a file named '-'", f"give {option} a file name")
        if path is None or path == "-":
            continue
        text_name(option, path)
        path = Path(path)
        here = path.resolve()
        for source, given in inputs:
            if isinstance(given, (str, os.PathLike)) and Path(given).is_file() and Path(given).resolve() == here:
                raise SpecError(option, f"{path} is the {source} file this command reads; writing there would "
                                "replace it", "write the result to another file")
        if here in seen and not _may_share(path, here):     # /dev/null twice: neither write replaces the other
            if is_special(path):
                raise SpecError(option, f"{path} is also given to {seen[here]}: a named pipe's reader stops at the "
                                "end of the first output, and the second would wait for ever",
                                "give each output a pipe or a file of its own")
            raise SpecError(option, f"{path} is also given to {seen[here]}: one result would replace the other",
                            "give each output a file of its own")
        seen[here] = option
        if path.is_dir():
            raise SpecError(option, f"{path} is a folder", "give a file name to write to")
        if is_special(path):        # /dev/null, a named pipe: written as it is, its folder is not used
            if not os.access(path, os.W_OK):
                raise SpecError(option, f"cannot write {path}: it is not writable", "give a writable path")
            continue
        _nearest_folder_writable(option, f"cannot write {path}", path.parent)


def _may_share(path: Path, here: Path) -> bool:
    """Whether two outputs may both be written to ``path`` (``here``: where it resolves): a character
    device (/dev/null, a terminal), or this process's own descriptor on a pipe (/dev/stdout | …: it
    resolves to no file, ``pipe:[N]``, and stays open between the writes). Not a named pipe: its
    reader ends when the first output is closed, and the second open then waits for a reader for ever."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or (stat.S_ISFIFO(mode) and not here.exists())


def _nearest_folder_writable(option, what, start: Path) -> None:
    """The nearest existing folder at or above ``start`` (missing ones are made on writing) must be a
    folder one can write in; else a SpecError naming ``option``, beginning with ``what``."""
    parent = start
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise SpecError(option, f"{what}: {parent} is a file, not a folder", "give a path whose folders are folders")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise SpecError(option, f"{what}: the folder {parent} is not writable", "give a writable path")
    # os.access answers yes to root for any folder, and a read-only or virtual file system (/proc, a
    # read-only mount) refuses only on writing: a file made and removed there is the sure test
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix=".theorykit-write-test-")
    except OSError as exc:
        raise SpecError(option, f"{what}: a file cannot be made in the folder {parent} "
                        f"({exc.strerror or exc})", "give a path in a folder you can write in") from None
    os.close(fd)
    os.unlink(probe)


def text_name(option, path) -> None:
    """Refuse a path that names no file: an empty one (``--out ''``: ``Path('')`` is ``.``, and a command wrote
    into the current folder) or one holding a lone surrogate (``\\ud800``: a hand-edited record's command, a Python
    caller's string): no file name can hold one (a shell's undecodable bytes, ``\\udc80`` to ``\\udcff``, can)."""
    if isinstance(path, str) and not path:
        raise SpecError(option, "'' is empty: it names no file or folder (it would be read as the current folder)",
                        f"give {option} a path")
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        raise SpecError(option, f"{ascii(str(path))} holds a character no file name can hold (a lone surrogate)",
                        "give a file name of text") from None


def check_out_dir(option, path) -> None:
    """Refuse, before any work, an output folder that cannot be made or written in: ``path`` must be a
    folder or not exist yet, and its nearest existing folder must be one a user can write in (an
    existing file there was ``File exists`` only after a run that may have taken hours)."""
    if path is None:
        return
    text_name(option, path)
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise SpecError(option, f"{path} is a file, not a folder", "give a folder (it is made when missing)")
    _nearest_folder_writable(option, f"cannot write in {path}", path)


def record_comment(args) -> str:
    """The first line of a spec file a command writes: a TOML comment recording how it was made (the
    command line, every option as read, the input files' SHA-256 and the versions; see
    :func:`provenance`), as one line of JSON (escaped, so no name in it can end the comment)."""
    rec = provenance(args)
    return COMMENT + json.dumps(jsonable(rec), ensure_ascii=True, separators=(",", ":")) + "\n"


def spec_text(option, spec, args=None, done: str = "nothing was written", fixed: bool = False) -> str:
    """``spec`` as the TOML text :func:`write_spec` writes, refusing one that :func:`~theorykit.spec.files.load_spec`
    would not read back: the error names ``option`` and the field at fault (the size limits' time bound is not
    applied). ``done``: what the refusal says was left undone; ``fixed``: no field of the command lowers the written
    task's size (predict's: SPEC's data), so a refusal over the memory limit names THEORYKIT_MAX_BYTES and the bytes
    (:func:`~theorykit.spec.limits.fixed_size`). Given the command's ``args``, the text begins with :func:`record_comment`."""
    text = record_comment(args) if args is not None else ""
    try:
        text += spec_to_toml(spec)          # refuses data a spec file cannot hold (load_spec's range)
        spec_from_dict(tomllib.loads(text), limits=Limits(force=True, fixed=fixed, **(
            {} if args is None else {"options": lift_options(args)})))
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(option, f"the spec to be written is not valid TOML ({exc}); {done}",
                        "report this as a bug") from None
    except SpecError as exc:
        raise SpecError(option, f"the spec to be written would not load back: {exc.field}: {exc.problem}; "
                                f"{done}", exc.fix) from None
    return text


def write_spec(option, path, spec, args=None) -> Path:
    """Write ``spec`` as TOML to ``path`` (atomically; returns the path written), refusing first to write one that
    :func:`~theorykit.spec.files.load_spec` would not read back (:func:`spec_text`)."""
    return write_result(option, path, spec_text(option, spec, args))


def json_text(obj) -> str:
    try:
        return io_json_text(obj)
    except ValueError as exc:          # a non-finite number: never written
        what = f"{exc.field}: {exc.problem}" if isinstance(exc, SpecError) else str(exc)
        raise SpecError("training", f"the result is not finite ({what})",
                        "lower training.lr or training.a0, or rescale the data") from None


def sim_settings(args, spec):
    steps = spec.training.steps if args.steps is None else steps_arg(args.steps)
    return steps, seeds_arg(DEFAULT_SEEDS if args.seeds is None else args.seeds)


def sim_estimate(args, spec, steps, seeds, need_derivation, seeds_field="--seeds"):
    """The size check of a simulation of ``args``: ``seeds`` networks (named ``seeds_field``) of the
    command's --network (a sweep's: the GDLN) for ``steps`` (--steps where given, else the spec's), with
    simulate's --plot (a GDLN's plot derives the spec for its modes, whatever the start). The command's own start-up
    (Python and the imports, SIM_STARTUP) is counted: a run of 300-3000 steps took 1.6-1.9× an estimate without it."""
    network, plot = getattr(args, "network", "gdln"), bool(getattr(args, "plot", None))
    est = simulation_estimate(spec, steps=steps, seeds=seeds, network=network,
                              dtype=args.dtype, steps_field="--steps" if args.steps is not None else "training.steps",
                              seeds_field=seeds_field, plot=plot)
    est.add("start-up", SIM_STARTUP, 0.0, None, 0.0)
    if need_derivation or (plot and network == "gdln"):
        der = derivation_estimate(spec, horizon=None)
        est = der + est
        if not need_derivation:         # the plot's alone: leaving out --plot saves it too (limits._pick)
            est.plot_extra = der.seconds
    return est


#: the options that name files a command reads: a result records each file's SHA-256
INPUT_OPTIONS = ("spec", "source", "init_weights", "data")
#: find-gates SOURCE values that name a built-in task, not a file (nothing to hash)
BUILTIN_TASKS = ("contexts", "xor-margin")


def file_sha256(path) -> str:
    """The SHA-256 of a file's bytes, read a megabyte at a time (a large --data file is not held whole):
    what a result records of each input, and what ``theorykit rerun`` checks it against."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def provenance(args, spec=None) -> dict:
    """What a result file records so that it can be rerun from it alone: the command line
    (``command``: ``theorykit …`` as typed), every option as it was read (``options``: the defaults of
    those not typed included), the SHA-256 of each file the command read, the spec as it was read
    (``spec_toml``, given ``spec``; it loads back with :func:`~theorykit.spec.files.load_spec`) and
    the versions of what computed it (:func:`theorykit.io.software_versions`). Where the command
    line ran it (``args.started``, set by :func:`theorykit.cli.main`): the seconds from its start to
    this record (``elapsed_seconds``, so that a rerun can say how long it will take) and the UTC time
    of the record (``written``)."""
    argv = getattr(args, "argv", None)
    # an infinite option (--time-limit inf: no limit) is recorded as its text: JSON has no infinity
    options = {k: str(v) if isinstance(v, float) and not math.isfinite(v) else v
               for k, v in vars(args).items() if k not in ("argv", "module", "debug", "started")}
    inputs = {}
    for name in INPUT_OPTIONS:
        path = options.get(name)
        if isinstance(path, str) and Path(path).is_file():
            inputs[name] = {"path": path, "sha256": file_sha256(path)}
    rec = {"command": shlex.join(["theorykit", *argv]) if argv is not None else None, "options": options,
           "inputs": inputs, "versions": software_versions()}
    started = getattr(args, "started", None)
    if isinstance(started, float):
        rec["elapsed_seconds"] = round(time.monotonic() - started, 3)
        rec["written"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    if spec is not None:
        try:
            rec["spec_toml"] = spec_to_toml(spec)
        except SpecError as exc:      # e.g. a graph that names its pathways: the file's hash is the record
            rec["spec_toml"] = None
            rec["spec_toml_missing"] = exc.problem
    return rec


def values_record(values) -> dict:
    """``--set`` values as a result records them: symbol name → exact text (``1/2``, ``sqrt(2)``),
    which :func:`~theorykit.spec.expr.parse_expr` reads back to the same number."""
    return {str(k): str(v) for k, v in sorted(values.items(), key=lambda kv: str(kv[0]))}


def note(msg: str) -> None:
    print(one_line(f"theorykit: note: {msg}"), file=sys.stderr)


def weight_names(net) -> str:
    """``W1, W2 or the edge keys input->h1, h1->output`` (shortened past six)."""
    def some(names):
        return ", ".join(names[:6]) + (" …" if len(names) > 6 else "")
    keys = list(net.keys)
    return f"{some([f'W{i + 1}' for i in range(len(keys))])} or the edge keys {some(keys)}"
