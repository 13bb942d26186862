"""`theorykit rerun RESULT`: run a result's recorded command again and compare the numbers.

A result (``derive``/``simulate``/``predict --json``, ``compare.json``, ``exhaust.json``, or a spec
file of ``predict``/``find-gates`` with its ``# made by theorykit:`` first line) records how it was
made (:func:`theorykit.cli.common.provenance`). The record is data: its command is split with
:func:`shlex.split`, never evaluated, and run in this process through :func:`theorykit.cli.main`
with the recorded spec (``spec_toml``) in a temporary file and every output option pointed at a
temporary folder; an option that is not known to be an input, a setting or a redirected output is
refused. Exit 0 when the numbers agree (bit for bit, or to ``--rtol``), 1 when they differ, 2 for a
bad result file or a command that cannot be rerun safely.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import shlex
import sys
import tempfile
import tomllib
from pathlib import Path

from .. import io
from ..errors import SpecError
from ..io import software_versions
from . import one_line
from .common import BUILTIN_TASKS, INPUT_OPTIONS, check_outputs, file_sha256, write_result
from .parser import build_parser

#: the commands whose results record how they were made, each with its output options: dest → what
#: the rerun gives it (``result``: the new result file; ``dir``: a folder holding it; ``aside``: a file
#: in the temporary folder that is not compared)
OUTPUTS = {
    "derive": {"json": "result", "latex": "aside", "plot": "aside"},
    "simulate": {"json": "result", "plot": "aside"},
    "predict": {"out": "result", "json": "result", "html": "aside"},
    "find-gates": {"out": "result"},
    "compare": {"out": "dir"},
    "race-exhaust": {"out": "dir"},
}
#: where a command that writes into a folder puts the result
IN_DIR = {"compare": "compare.json", "race-exhaust": "exhaust.json"}
#: the positional that names the spec the command reads
SPEC_DEST = {"derive": "spec", "simulate": "spec", "predict": "spec", "compare": "spec", "find-gates": "source"}
COMMENT = "# made by theorykit: "
FIX_FOLDER = "run theorykit rerun in the folder the command ran in (its paths are relative to it), with the same files"


def _is_timing(key: str) -> bool:
    """Wall-clock fields (``seconds``, ``estimated_seconds``) differ from run to run by nature."""
    return key == "seconds" or key.endswith("_seconds")


def read_result(path: Path):
    """``(document, provenance, kind)`` of a result file, ``kind`` ``"json"`` or ``"toml"``; a SpecError
    naming the field where the file is not a result that records how it was made."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError("RESULT", f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}",
                        "give a result file theorykit wrote (derive/simulate/predict --json, compare.json, "
                        "exhaust.json, or a spec from predict/find-gates)") from None
    if text.startswith("#") or path.suffix == ".toml":
        first = text.split("\n", 1)[0]
        if not first.startswith(COMMENT):
            raise SpecError("provenance", f"{path} does not begin with a '{COMMENT.strip()}' line: it records "
                            "nothing to rerun", "give a spec that predict or find-gates wrote, or a JSON result")
        try:
            doc, rec = tomllib.loads(text), json.loads(first[len(COMMENT):])
        except (tomllib.TOMLDecodeError, ValueError) as exc:
            raise SpecError("provenance", f"{path} is not a readable spec with its record ({exc})",
                            "give the spec file as theorykit wrote it") from None
        kind = "toml"
    else:
        try:
            doc = json.loads(text)
        except ValueError as exc:
            raise SpecError("RESULT", f"{path} is not JSON ({exc})", "give a result file theorykit wrote") from None
        rec, kind = doc.get("provenance") if isinstance(doc, dict) else None, "json"
        if rec is None:
            raise SpecError("provenance", f"{path} has no provenance record (results written before it was "
                            "recorded have none)", "make the result again with this theorykit, then rerun it")
    if not isinstance(rec, dict):
        raise SpecError("provenance", "is not a record (a JSON object)", "give the result as theorykit wrote it")
    for name in ("options", "inputs", "versions"):
        if rec.get(name) is not None and not isinstance(rec[name], dict):
            raise SpecError(f"provenance.{name}", f"is {type(rec[name]).__name__}, not a record (a JSON object)",
                            "give the result as theorykit wrote it")
    return doc, rec, kind


def split_command(rec) -> list[str]:
    """The recorded command as arguments after ``theorykit``: split by :func:`shlex.split` (never
    evaluated), refused unless it is a theorykit command that writes a result with provenance."""
    cmd = rec.get("command")
    if not isinstance(cmd, str):
        raise SpecError("provenance.command", f"is {cmd!r}, not a command line", "give a result theorykit wrote")
    try:
        argv = shlex.split(cmd)
    except ValueError as exc:
        raise SpecError("provenance.command", f"cannot be split into arguments ({exc})",
                        "give the result as theorykit wrote it") from None
    if not argv or argv[0] != "theorykit":
        raise SpecError("provenance.command", f"{cmd[:80]!r} is not a theorykit command",
                        "rerun only results theorykit wrote; run any other command yourself")
    argv = argv[1:]
    while argv and argv[0] == "--debug":
        argv = argv[1:]
    if argv and argv[0] == "--distributed":
        raise SpecError("provenance.command", "is a multi-host run (--distributed), which is not rerun here",
                        "rerun its command under the job's launcher, as it was run")
    if not argv or argv[0] not in OUTPUTS:
        name = argv[0] if argv else "(none)"
        raise SpecError("provenance.command", f"'theorykit {name}' writes no result that records how it was "
                        "made", f"rerun results of {', '.join(OUTPUTS)}")
    return argv


def _subparser(command: str):
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def _action(sub, name: str):
    """The option ``name`` names, as argparse reads it (an unambiguous prefix included)."""
    if name in sub._option_string_actions:
        return sub._option_string_actions[name]
    near = [o for o in sub._option_string_actions if o.startswith(name) and o.startswith("--")]
    if len({sub._option_string_actions[o].dest for o in near}) == 1:
        return sub._option_string_actions[near[0]]
    return None


def rewrite(argv: list[str], spec: str | None, tmp: Path, kind: str,
            read: list | None = None) -> tuple[list[str], Path]:
    """The command with the spec replaced by ``spec`` (where given) and every output option pointed
    into ``tmp``; and the path of the new result. An option that is not the command's is refused.
    Each file the command will read (an input option, the spec where not replaced; not a built-in
    task) is appended to ``read`` as ``(dest, option, path)``."""
    command, rest = argv[0], argv[1:]
    sub, outputs = _subparser(command), OUTPUTS[command]
    if (kind == "toml") != (command == "find-gates") and not (command == "predict"):
        raise SpecError("provenance.command", f"theorykit {command} does not write this kind of file ({kind})",
                        "give the result file its command wrote")
    result_dest = "json" if command in ("derive", "simulate") or (command == "predict" and kind == "json") \
        else "out"
    new, seen, positional, i = [command], set(), 0, 0

    def target(dest, given):
        role = outputs[dest]
        if role == "dir":
            return str(tmp / "out")
        if dest == result_dest:
            return str(tmp / ("result.toml" if kind == "toml" else "result.json"))
        return str(tmp / "aside" / (f"{dest}-" + (Path(given).name or "out")))

    only_positional = False
    while i < len(rest):
        tok = rest[i]
        i += 1
        if tok == "--" and not only_positional:
            only_positional = True
            new.append(tok)
            continue
        if tok.startswith("-") and len(tok) > 1 and not only_positional and not _number(tok):
            name, eq, value = tok.partition("=")
            act = _action(sub, name)
            if act is None:
                raise SpecError("provenance.command", f"{name} is not an option of theorykit {command}",
                                "give the result as theorykit wrote it")
            if act.dest == "help":
                raise SpecError("provenance.command", f"{name} prints help and runs nothing",
                                "give the result as theorykit wrote it")
            takes = act.nargs != 0
            if takes and not eq:
                if i >= len(rest):
                    raise SpecError("provenance.command", f"{name} has no value", "give the result as theorykit wrote it")
                value, i = rest[i], i + 1
            if (act.dest in INPUT_OPTIONS or act.dest == "checkpoints") and read is not None:
                read.append((act.dest, act.option_strings[-1], value))
            if act.dest in outputs:
                seen.add(act.dest)
                new += [act.option_strings[-1], target(act.dest, value)]
            elif takes:
                new += [name, value]
            else:
                new.append(tok)
            continue
        if positional == 0 and spec is not None and SPEC_DEST.get(command):
            tok = spec
        elif positional == 0 and SPEC_DEST.get(command) and read is not None and not (
                command == "find-gates" and tok in BUILTIN_TASKS):
            read.append((SPEC_DEST[command], SPEC_DEST[command].upper(), tok))
        positional += 1
        new.append(tok)
    if spec is not None and positional == 0:
        raise SpecError("provenance.command", "names no spec, though the record holds one",
                        "give the result as theorykit wrote it")
    if result_dest not in seen:         # derive/simulate: stdout; race-exhaust: "."
        new += ["--" + result_dest, target(result_dest, "")]
    res = tmp / "out" / IN_DIR[command] if command in IN_DIR else Path(target(result_dest, ""))
    return new, res


def printable(text: str) -> str:
    """``text`` with each character that is not printable (a newline, a terminal's escape) written as
    its escape (``\\n``, ``\\x1b``): the command comes from the file, which may come from anyone, and
    must not make lines of its own nor drive the terminal."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _shown(path: str, width: int = 80) -> str:
    """A path for a message, :func:`printable`, and where longer than ``width`` its end kept (the file's
    name, which tells two paths apart), not its start."""
    text = printable(path)
    return text if len(text) <= width else "…" + text[-(width - 1):]


def _number(tok: str) -> bool:
    try:
        float(tok)
        return True
    except ValueError:
        return False


def check_inputs(rec, skip: str | None) -> None:
    """Every input file the record hashed must be here, with the same SHA-256 (but ``skip``, the spec
    replaced by the record's own text)."""
    for name, entry in (rec.get("inputs") or {}).items():
        if name == skip:
            continue
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise SpecError(f"provenance.inputs.{name}", "is not a {path, sha256} record",
                            "give the result as theorykit wrote it")
        p = Path(entry["path"])
        if not p.is_file():
            raise SpecError(f"provenance.inputs.{name}", f"{p} is not here", FIX_FOLDER)
        if file_sha256(p) != entry.get("sha256"):
            raise SpecError(f"provenance.inputs.{name}", f"{p} has changed since the result was made (its "
                            "SHA-256 is not the recorded one)", FIX_FOLDER)


def check_read(rec, read) -> list[str]:
    """Every file the command will read (``read``, from :func:`rewrite`) must be the one the record
    hashed: an entry of ``provenance.inputs`` with that path (its SHA-256 checked by
    :func:`check_inputs`). Else a crafted record (``"inputs": {}``, a command with ``--data
    other.npz``) would rerun on a file nobody verified. Notes on what is not checked: a
    ``--checkpoints`` glob (its files are not hashed), found in the command, not in the record's
    options (which a crafted record may leave out)."""
    inputs, notes = rec.get("inputs") or {}, []
    for dest, option, path in read:
        if dest == "checkpoints":
            note = "the --checkpoints files are not hashed in the record: they are taken as they are now"
            notes += [note] if note not in notes else []
            continue
        entry = inputs.get(dest)
        listed = entry.get("path") if isinstance(entry, dict) else None
        if listed != path:
            what = "lists no file" if listed is None else f"lists {_shown(str(listed))}"
            raise SpecError(f"provenance.inputs.{dest}", f"the command reads {_shown(path)} ({option}) but "
                            f"the record {what}: its SHA-256 was never recorded",
                            "rerun only a result theorykit wrote: every file its command reads is hashed in "
                            "provenance.inputs under the same path")
    return notes


def compare(old, new, rtol: float, at: str = ""):
    """``(first difference or None, largest relative difference, numbers compared)``; a difference is
    ``(field, old, new)``. Numbers agree when equal (``rtol`` 0) or within ``rtol`` of the larger;
    everything else must be equal. Timing fields and the provenance record are left out."""
    worst, count = 0.0, 0
    if isinstance(old, dict) and isinstance(new, dict):
        for k in list(old) + [k for k in new if k not in old]:
            if k == "provenance" or _is_timing(str(k)):
                continue
            here = f"{at}.{k}" if at else str(k)
            if k not in old or k not in new:
                return (here, old.get(k, "(missing)"), new.get(k, "(missing)")), worst, count
            diff, w, c = compare(old[k], new[k], rtol, here)
            worst, count = max(worst, w), count + c
            if diff:
                return diff, worst, count
        return None, worst, count
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            return (f"{at} (length)", len(old), len(new)), worst, count
        for j, (a, b) in enumerate(zip(old, new)):
            diff, w, c = compare(a, b, rtol, f"{at}[{j}]")
            worst, count = max(worst, w), count + c
            if diff:
                return diff, worst, count
        return None, worst, count
    num = (int, float)
    if isinstance(old, num) and isinstance(new, num) and not isinstance(old, bool) and not isinstance(new, bool):
        if old == new:
            return None, 0.0, 1
        rel = abs(old - new) / max(abs(old), abs(new))
        return (None if rel <= rtol else (at, old, new)), rel, 1
    return (None if old == new and type(old) is type(new) else (at, old, new)), 0.0, 0


def version_changes(recorded) -> list[str]:
    """``name recorded -> now`` for each version the record and this process both know and differ in."""
    now = software_versions()
    return [f"{k} {recorded[k]} -> {now[k]}" for k in recorded if k in now and recorded[k] != now[k]]


def _rerun_in(tmp: Path, argv, spec_text, kind, out, rec, notes):
    """``(status, new result)``: the command run in ``tmp`` (a status other than 0 where it was stopped
    by a bug or an interrupt, its message above), its result kept at ``out`` where given."""
    from . import main      # at call time: the command line's own entry (a test may watch it)

    spec = None
    if spec_text is not None:
        spec = str(tmp / "spec.toml")
        Path(spec).write_text(spec_text, encoding="utf-8")
    read = []
    new_argv, res = rewrite(argv, spec, tmp, kind, read)
    notes += check_read(rec, read)
    print(f"rerun: theorykit {printable(shlex.join(new_argv))}", file=sys.stderr)
    commit = io.before_commit        # the inner main sets it to None when it ends: this command's own
    with contextlib.redirect_stdout(sys.stderr):       # the command's own output; the verdict alone on stdout
        try:
            status = main(new_argv)
        except SystemExit as exc:      # the command's parser refused it (its message is above)
            status = exc.code if isinstance(exc.code, int) else 2
        finally:
            io.before_commit = commit
    if status in (70, 130, 143):       # a bug (its message is above), or interrupted
        return status, None
    if status != 0:
        raise SpecError("provenance.command", f"the rerun exited with status {status} (its error is above)",
                        "see the error above; the result may need files or versions that are not here")
    if not res.is_file():
        raise SpecError("provenance.command", f"the rerun wrote no {res.name}", "report this as a bug")
    text = res.read_text(encoding="utf-8")
    if out:
        write_result("--out", out, text)
    return 0, (tomllib.loads(text) if kind == "toml" else json.loads(text))


def run(args) -> int:
    rtol = args.rtol
    if not (isinstance(rtol, float) and math.isfinite(rtol) and 0 <= rtol < 1):
        raise SpecError("--rtol", f"{rtol} is not a relative tolerance", "give a number from 0 up to 1, e.g. --rtol 1e-12")
    path = Path(args.result)
    check_outputs(("--out", args.out), inputs=[("RESULT", args.result)], stdout=())
    old, rec, kind = read_result(path)
    argv = split_command(rec)
    command = argv[0]
    spec_text = rec.get("spec_toml")
    if spec_text is not None and not isinstance(spec_text, str):
        raise SpecError("provenance.spec_toml", "is not the text of a spec", "give the result as theorykit wrote it")
    check_inputs(rec, SPEC_DEST.get(command) if spec_text is not None else None)
    notes = []
    # nor a file the recorded command read (its spec, --data, --init-weights): --out there replaced it
    check_outputs(("--out", args.out), stdout=(), inputs=[(f"recorded {n}", e["path"])
                  for n, e in (rec.get("inputs") or {}).items()
                  if isinstance(e, dict) and isinstance(e.get("path"), str)])
    with tempfile.TemporaryDirectory(prefix="theorykit-rerun-") as tmp:
        # SIGTERM inside a long computation ends the process at once, removing what io.PENDING names
        # (theorykit.cli._Watchdog): this folder too, not left behind in the temporary folder
        io.PENDING.add(tmp)
        try:
            status, new = _rerun_in(Path(tmp), argv, spec_text, kind, args.out, rec, notes)
        finally:
            io.PENDING.discard(tmp)
    if status:
        return status
    for n in notes:
        print(one_line(f"theorykit: note: {n}"), file=sys.stderr)
    changed = version_changes(rec.get("versions") or {})
    if changed:
        print(one_line("theorykit: warning: the result was made under other versions: " + printable("; ".join(changed)) +
                       " (a difference may come from them)"), file=sys.stderr)
    diff, worst, count = compare(old, new, rtol)
    if diff is None:
        if worst == 0:
            print(f"identical: {path} reruns bit for bit ({count} numbers)")
        else:
            print(f"agree to --rtol {rtol:g}: {path} reruns to a largest relative difference of {worst:.3g} "
                  f"({count} numbers)")
        return 0
    field, a, b = diff
    print(one_line(f"differ: {path}: {printable(field)}: recorded {a!r}, rerun {b!r}"))
    return 1
