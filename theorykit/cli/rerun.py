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

import contextlib
import json
import math
import os
import shlex
import stat
import sys
import tempfile
import tomllib
from fractions import Fraction
from pathlib import Path

from .. import io
from ..errors import SpecError
from ..io import counted, cut, software_versions
from ..spec.fields import real
from ..spec.files import spec_from_dict, task_file
from ..spec.limits import Limits, human_seconds
from ..spec.toml_text import parse_toml
from . import one_line, warning
from .common import (BUILTIN_TASKS, COMMENT, INPUT_OPTIONS, check_outputs, file_sha256, limits_passed_on, note,
                     unrecorded, write_result)
from .parser import build_parser, commands

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
    "sweep": {"out": "dir"},
}
#: where a command that writes into a folder puts the result
IN_DIR = {"compare": "compare.json", "race-exhaust": "exhaust.json", "sweep": "sweep.json"}
#: the positional that names the spec the command reads
SPEC_DEST = {"derive": "spec", "simulate": "spec", "predict": "spec", "compare": "spec", "find-gates": "source",
             "sweep": "spec"}
FIX_FOLDER = "run theorykit rerun in the folder the command ran in (its paths are relative to it), with the same files"
#: the fix of every refusal of a record that theorykit would not have written so
AS_WRITTEN = "give the result as theorykit wrote it"


#: fields that say what one run did rather than what it found: a resumed sweep's ``chunks_computed``
#: (the chunks it computed itself; a rerun into an empty folder computes them all), and a prediction's
#: estimate of the engine shapes it had left to compile (``prediction.search.estimate.compiles`` and the
#: ``assumes`` words that count them), which depends on what the process compiled before: a predict run
#: and its rerun in one Python session (``main`` called twice) compiled 1 shape and 0 and "differed"
RUN_LOCAL = frozenset({"chunks_computed", "compiles", "assumes"})


def _is_timing(key: str) -> bool:
    """Wall-clock fields (``seconds``, ``estimated_seconds``, a sweep's ``seconds_this_run``) differ from
    run to run by nature."""
    return key == "seconds" or key.endswith("_seconds") or key.startswith("seconds_")


RESULT_FIX = ("give a result file theorykit wrote (derive/simulate/predict --json, compare.json, exhaust.json, or a "
              "spec from predict/find-gates)")


def read_result(path: Path):
    """``(document, provenance, kind)`` of a result file, ``kind`` ``"json"`` or ``"toml"``; a SpecError
    naming the field where the file is not a result that records how it was made."""
    try:
        mode = os.stat(path).st_mode      # /dev/zero or a disk was read without end; a pipe, rerun <(...), is read
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            raise SpecError("RESULT", f"{path} is a device, not a result file", RESULT_FIX)
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError("RESULT", f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}", RESULT_FIX) from None
    if text.startswith("#") or path.suffix == ".toml":
        first = text.split("\n", 1)[0]
        if not first.startswith(COMMENT):
            raise SpecError("provenance", f"{path} does not begin with a '{COMMENT.strip()}' line: it records "
                            "nothing to rerun", "give a spec that predict or find-gates wrote, or a JSON result")
        try:
            doc, rec = tomllib.loads(text), json.loads(first[len(COMMENT):])
        except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
            raise SpecError("provenance", f"{path} is not a readable spec with its record ({exc})",
                            "give the spec file as theorykit wrote it") from None
        kind = "toml"
    else:
        try:
            doc = json.loads(text)
        except ValueError as exc:
            raise SpecError("RESULT", f"{path} is not JSON ({exc})", "give a result file theorykit wrote") from None
        except RecursionError:          # arrays nested a thousand deep: no result theorykit writes
            raise SpecError("RESULT", f"{path} nests its values too deeply to be read",
                            "give a result file theorykit wrote") from None
        rec, kind = doc.get("provenance") if isinstance(doc, dict) else None, "json"
        if rec is None:
            raise SpecError("provenance", *unrecorded(path, doc))
    if not isinstance(rec, dict):
        raise SpecError("provenance", "is not a record (a JSON object)", AS_WRITTEN)
    for name in ("options", "inputs", "versions"):
        if rec.get(name) is not None and not isinstance(rec[name], dict):
            raise SpecError(f"provenance.{name}", f"is {type(rec[name]).__name__}, not a record (a JSON object)",
                            AS_WRITTEN)
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
        raise SpecError("provenance.command", f"cannot be split into arguments ({exc})", AS_WRITTEN) from None
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
    return commands(build_parser())[command]


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
                raise SpecError("provenance.command", f"{name} is not an option of theorykit {command}", AS_WRITTEN)
            if act.dest == "help":
                raise SpecError("provenance.command", f"{name} prints help and runs nothing", AS_WRITTEN)
            takes = act.nargs != 0
            if takes and not eq:
                if i >= len(rest):
                    raise SpecError("provenance.command", f"{name} has no value", AS_WRITTEN)
                value, i = rest[i], i + 1
            if (act.dest in INPUT_OPTIONS or act.dest == "checkpoints") and read is not None:
                read.append((act.dest, act.option_strings[-1], value))
            elif act.dest == "against" and read is not None:     # derive's --against: inputs against[1], …
                read.append((f"against[{sum(r[0].startswith('against[') for r in read) + 1}]", name, value))
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
        raise SpecError("provenance.command", "names no spec, though the record holds one", AS_WRITTEN)
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
            raise SpecError(f"provenance.inputs.{name}", "is not a {path, sha256} record", AS_WRITTEN)
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


#: differences the verdict shows one by one (all are counted)
SHOWN = 5


class _Absent:
    """A field one of the two results does not have (a value of :attr:`Comparison.shown`)."""

    def __repr__(self):
        return "(absent)"


#: the recorded or rerun value of a field present in the other result only
ABSENT = _Absent()


class Comparison:
    """What :func:`compare` found: ``numbers`` compared, ``differing`` numbers beyond the tolerance,
    ``fields`` that differ otherwise (a text, a field present in one only, :data:`ABSENT` in the other,
    a list's length), ``worst`` relative
    difference of any number (``inf`` where a number differs from an infinity or a NaN), ``signs``:
    zeros rerun with the other sign (equal as numbers: not a difference), ``unequal``: numbers not
    equal, within the tolerance or not (a relative difference too small for a float, of two integers
    beyond 10**308, is 0: they are still unequal), and the first :data:`SHOWN`
    differences, ``(field, recorded, rerun, relative difference or None)``."""

    def __init__(self):
        self.numbers = self.differing = self.fields = self.signs = self.unequal = 0
        self.worst = 0.0
        self.shown: list = []

    def differ(self, field, old, new, rel=None):
        if rel is None:
            self.fields += 1
        else:
            self.differing += 1
        if len(self.shown) < SHOWN:
            self.shown.append((field, old, new, rel))

    @property
    def agree(self) -> bool:
        return not (self.differing or self.fields)


def _relative(old, new) -> float:
    """``|old - new| / max(|old|, |new|)`` of two unequal numbers; ``inf`` where either is not finite
    (an infinity against another number, a NaN against a number). An integer too large for a float
    (a file may hold one) is taken exactly."""
    if any(isinstance(x, float) and not math.isfinite(x) for x in (old, new)):
        return math.inf
    try:
        return abs(old - new) / max(abs(old), abs(new))
    except OverflowError:
        a, b = Fraction(old), Fraction(new)
        return float(abs(a - b) / max(abs(a), abs(b)))


def compare(old, new, rtol: float, at: str = "", found: Comparison | None = None) -> Comparison:
    """Every difference between the recorded result ``old`` and the rerun's ``new`` (a
    :class:`Comparison`). Numbers agree when equal (``rtol`` 0) or within ``rtol`` of the larger; a
    zero of either sign equals the other (``-0.0 == 0.0``), a NaN equals a NaN in the same place, an
    infinity the same infinity; everything else must be equal. Timing fields, :data:`RUN_LOCAL` and the
    provenance record are left out."""
    found = Comparison() if found is None else found
    if isinstance(old, dict) and isinstance(new, dict):
        for k in list(old) + [k for k in new if k not in old]:
            if k == "provenance" or _is_timing(str(k)) or k in RUN_LOCAL:
                continue
            here = f"{at}.{k}" if at else str(k)
            if k not in old or k not in new:
                found.differ(here, old.get(k, ABSENT), new.get(k, ABSENT))
            else:
                compare(old[k], new[k], rtol, here, found)
        return found
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            found.differ(f"{at} (length)", len(old), len(new))
            return found
        for j, (a, b) in enumerate(zip(old, new)):
            compare(a, b, rtol, f"{at}[{j}]", found)
        return found
    num = (int, float)
    if isinstance(old, num) and isinstance(new, num) and not isinstance(old, bool) and not isinstance(new, bool):
        found.numbers += 1
        if old == new or (isinstance(old, float) and isinstance(new, float) and math.isnan(old) and math.isnan(new)):
            found.signs += old == 0 and math.copysign(1, old) != math.copysign(1, new)
            return found
        rel = _relative(old, new)
        found.worst, found.unequal = max(found.worst, rel), found.unequal + 1
        if not rel <= rtol or rtol == 0:        # unequal: with --rtol 0 even 1 in 10**400 differs
            found.differ(at, old, new, rel)
        return found
    if not (old == new and type(old) is type(new)):
        found.differ(at, old, new)
    return found


def _rel(x: float) -> str:
    """A relative difference of two unequal numbers for the verdict: 0 where it is too small for a float."""
    return f"{x:.3g}" if x else "below 1e-323"


def _value(v, width: int = 60) -> str:
    """A value for the verdict: its repr, :func:`printable`, cut to ``width`` (a whole missing list); a
    long integer keeps its last digits and says how many it has (two that differ in the last digits
    only, cut at the front, read the same)."""
    text = printable(repr(v))
    if len(text) <= width:
        return text
    if isinstance(v, int) and not isinstance(v, bool):
        digits = len(text.lstrip("-"))
        return f"{text[:16]}…{text[-24:]} ({digits} digits)"
    return cut(text, width)


def verdict(path, found: Comparison, rtol: float) -> list[str]:
    """The lines of the verdict (stdout): ``identical``, ``agree to --rtol`` or ``differ`` with how
    many numbers and fields differ, the first :data:`SHOWN` of them, and the largest relative
    difference."""
    signs = f"; {counted(found.signs, 'zero')} rerun with the other sign" if found.signs else ""
    if found.agree and not found.unequal:
        return [f"identical: {path} reruns bit for bit ({counted(found.numbers, 'number')}{signs})"]
    if found.agree:
        return [f"agree to --rtol {rtol:g}: {path} reruns to a largest relative difference of {_rel(found.worst)} "
                f"({counted(found.numbers, 'number')}{signs})"]
    what = []
    if found.differing:
        what.append(f"{found.differing} of {counted(found.numbers, 'number')} differ" + ("s" if found.differing == 1 else "")
                    + (f" beyond --rtol {rtol:g}" if rtol else "") + f" (largest relative difference {_rel(found.worst)})")
    if found.fields:
        what.append(f"{counted(found.fields, 'other field')} differ" + ("s" if found.fields == 1 else ""))
    lines = [f"differ: {printable(str(path))}: " + ", and ".join(what)]
    for field, a, b, rel in found.shown:
        if a is ABSENT:         # kept a difference on purpose: a field removed by hand must be found
            lines.append(f"  {printable(field)}: present in the rerun only, not in the recorded result (an older "
                         f"theorykit's, or removed by hand): rerun {_value(b)}")
        elif b is ABSENT:
            lines.append(f"  {printable(field)}: present in the recorded result only, not in the rerun (written by "
                         f"a newer theorykit, or added by hand): recorded {_value(a)}")
        else:
            lines.append(f"  {printable(field)}: recorded {_value(a)}, rerun {_value(b)}"
                         + (f" (relative difference {_rel(rel)})" if rel is not None else ""))
    more = found.differing + found.fields - len(found.shown)
    if more:
        lines.append(f"  … and {more} more")
    return lines


def version_changes(recorded) -> list[str]:
    """``name recorded -> now`` for each version the record and this process both know and differ in."""
    now = software_versions()
    return [f"{k} {recorded[k]} -> {now[k]}" for k in recorded if k in now and recorded[k] != now[k]]


def checked_command(argv, kind, rec) -> None:
    """Refuse a recorded command this theorykit cannot run, before anything is said or run (the note of
    how long it took came first, then the error). Where another version of theorykit wrote the result
    (a newer one may have options this one lacks), the error says which, and the fix is to rerun it
    with that version."""
    try:
        rewrite(argv, None, Path(tempfile.gettempdir()), kind)       # paths only: nothing is written
    except SpecError as exc:
        versions = rec.get("versions") if isinstance(rec.get("versions"), dict) else {}
        then, now = versions.get("theorykit"), software_versions().get("theorykit")
        if not isinstance(then, str) or then == now:
            raise
        then = printable(then)[:40]
        raise SpecError(exc.field, f"{exc.problem} (theorykit {then} wrote the result; this is theorykit {now})",
                        f"rerun it with theorykit {then}, the version that wrote it") from None


def recorded_time(rec, doc) -> str | None:
    """How long the recorded command took, where the record says (``elapsed_seconds``; a result of
    an older theorykit: a simulate result's own ``seconds``, the training alone), with when it was
    written and JAX's backend: ``"183 s (written 2026-11-28T11:41:34Z, JAX on cpu)"``; None where
    nothing says."""
    took, what = rec.get("elapsed_seconds"), ""
    if not _seconds(took) and isinstance(doc, dict) and _seconds(doc.get("seconds")):
        took, what = doc["seconds"], " to train"
    if not _seconds(took):
        return None
    versions = rec.get("versions") if isinstance(rec.get("versions"), dict) else {}
    where = [f"{label} {printable(x)[:40]}" for label, x in (("written", rec.get("written")),
                                                            ("JAX on", versions.get("jax_backend"))) if isinstance(x, str)]
    return f"{human_seconds(took)}{what}" + (f" ({', '.join(where)})" if where else "")


def _seconds(x) -> bool:       # compared, not converted: a hand-edited 10**400 (JSON's integer) overflowed a float
    return isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= sys.float_info.max


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
                        "see the error above (rerun passes its --force and --time-limit on to the command); the result may "
                        "need files or versions that are not here")
    if not res.is_file():
        raise SpecError("provenance.command", f"the rerun wrote no {res.name}", "report this as a bug")
    text = res.read_text(encoding="utf-8")
    if out:
        write_result("--out", out, text)
    return 0, (tomllib.loads(text) if kind == "toml" else json.loads(text))


def recorded_spec(rec, path, command: str | None = None) -> str | None:
    """The spec text the record holds (``provenance.spec_toml``), or None; refused naming that field and the
    result file ``path`` where it is no text, or no TOML text (:func:`~theorykit.spec.toml_text.parse_toml`'s
    checks), or a spec ``command`` refuses (read as it reads it, the inner field kept): the rerun reads it from
    a temporary file, whose name told the user nothing of where to look."""
    text = rec.get("spec_toml")
    if text is not None and not isinstance(text, str):
        raise SpecError("provenance.spec_toml", f"in {_shown(str(path))}: a {type(text).__name__}, not the text of a spec",
                        AS_WRITTEN)
    if text is not None:
        try:
            data = parse_toml(text.encode("utf-8", "surrogatepass"), "the recorded spec")
        except SpecError as exc:
            raise SpecError("provenance.spec_toml", f"in {_shown(str(path))}: {exc.problem}",
                            f"{AS_WRITTEN} (its spec_toml is the text of the spec the command read)") from None
        try:        # read as the command reads it (predict: the task and training alone), its field kept
            if command is not None:
                task_file(data) if command == "predict" else spec_from_dict(data, limits=Limits(force=True))
        except SpecError as exc:
            raise SpecError("provenance.spec_toml", f"in {_shown(str(path))}: the recorded spec is refused, at "
                            f"{exc.field}: {exc.problem}", f"{AS_WRITTEN} (its spec_toml is the text of the spec "
                            f"the command read; {exc.field}: {exc.fix})") from None
    return text


def check_finished(command: str, doc, path) -> None:
    """Refuse a sweep.json whose sweep was stopped before its end (``complete`` false): it holds no results to
    compare, and its rerun, a whole sweep, "differed" by the results the stopped one never wrote."""
    if command != "sweep" or not isinstance(doc, dict) or doc.get("complete", True) is True:
        return
    if doc["complete"] is not False:
        raise SpecError("complete", f"is {doc['complete']!r}, not true or false", AS_WRITTEN)
    raise SpecError("complete", f"{path} is a sweep stopped before its end (complete = false): it holds no results "
                    "to compare", "finish it first: run its recorded command again where it ran (it resumes from "
                    "the chunks saved in its folder), then rerun the sweep.json it completes")


def run(args) -> int:
    rtol = args.rtol
    real(rtol, "--rtol", lo=0.0, hi=1.0, hi_open=True, fix="give a number at least 0 and below 1, e.g. --rtol 1e-12 (0: bit for bit)")
    path = Path(args.result)
    check_outputs(("--out", args.out), inputs=[("RESULT", args.result)], stdout=())
    old, rec, kind = read_result(path)
    argv = split_command(rec)
    command = argv[0]
    if getattr(args, "no_progress", False) and "--no-progress" not in argv and \
            "--no-progress" in _subparser(command)._option_string_actions:
        argv = [command, "--no-progress", *argv[1:]]     # before any '--' and the positionals
    argv = limits_passed_on(argv, args, _subparser(command)._option_string_actions)     # --force, --time-limit
    spec_text = recorded_spec(rec, path, command)
    check_inputs(rec, SPEC_DEST.get(command) if spec_text is not None else None)
    notes = []
    # nor a file the recorded command read (its spec, --data, --init-weights): --out there replaced it
    check_outputs(("--out", args.out), stdout=(), inputs=[(f"recorded {n}", e["path"])
                  for n, e in (rec.get("inputs") or {}).items()
                  if isinstance(e, dict) and isinstance(e.get("path"), str)])
    checked_command(argv, kind, rec)
    check_finished(command, old, path)
    took = recorded_time(rec, old)
    if took:
        note(f"rerunning a command that took {took}")
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
        note(n)
    if not rec.get("versions"):
        note("the record names no versions (an older theorykit wrote it): a difference may come from other "
             "versions than these")
    changed = version_changes(rec.get("versions") or {})
    if changed:
        warning("the result was made under other versions: " + printable("; ".join(changed))
                + " (a difference may come from them)")
    found = compare(old, new, rtol)
    for line in verdict(path, found, rtol):
        print(one_line(line))
    return 0 if found.agree else 1
