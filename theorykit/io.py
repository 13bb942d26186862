"""Atomic, NaN-safe result files, and figures (PNG; PDF or SVG where a path asks for it)."""
from __future__ import annotations

import cmath
import decimal
import errno
import functools
import json
import math
import os
import stat
import tempfile
import time
from pathlib import Path

import numpy as np

from .errors import SpecError

__all__ = ["atomic_write_text", "atomic_write_bytes", "write_json", "json_text", "jsonable", "png_bytes", "write_figure", "FIGURE_FORMATS", "new_figure", "plot_text", "counted", "cut", "ReaderMayLeave",
           "log_if_spanning", "LOG_SPAN", "SIMULATION_STYLE", "THEORY_STYLE", "THEORY_MARKERS"]


def atomic_write_bytes(path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically: a temporary file in the same folder, then rename. A
    symbolic link is written through (its target is replaced, the link stays), as an editor saves
    it: a rename over the link itself replaced ``results/latest.json -> run7/out.json`` with a file
    and left the run's own copy stale."""
    link = Path(path)
    if is_special(link):    # through a link too: /dev/stdout on a pipe resolves to pipe:[N], which names no file
        return _write_through(link, data)
    path = Path(os.path.realpath(link)) if link.is_symlink() else link
    # errors name the output path (not the temporary file) and say what is wrong with it
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder: give a file name to write to", str(path))
    if is_special(path):
        return _write_through(path, data)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise NotADirectoryError(errno.ENOTDIR, "cannot be written: a part of its folder path is a file, not a "
                                 "folder", str(path)) from None
    # a short temporary name in the same folder (a long output name plus a long prefix would pass the
    # file system's name limit); any error names the output path, never the temporary file
    _sweep_stale(path.parent)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".tk{os.getpid()}-", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise _naming(exc, path) from None
    PENDING.add(tmp)
    try:
        with os.fdopen(fd, "wb") as fh:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)   # mkstemp makes 0600; give the file ordinary permissions
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if before_commit is not None:   # the command line's check for a Ctrl-C that Python dropped
            before_commit()
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:                 # gone already, or not removable: the first error is the one to say
            pass
        if isinstance(exc, OSError):
            raise _naming(exc, path) from None
        raise
    finally:
        PENDING.discard(tmp)
    return path


#: the temporary files being written now, and the staging folders of work not yet moved into place
#: (``validate``): what :func:`remove_pending` removes when the command line must end the process at
#: once (SIGTERM while the main thread is inside a long computation, ``theorykit.cli._Watchdog``)
PENDING: set = set()


def remove_pending() -> None:
    """Remove every path in :data:`PENDING` (a file, or a folder with what it holds); one that is gone
    already, or cannot be removed, is left as it is."""
    import shutil

    for p in list(PENDING):
        try:
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except OSError:
            pass


#: called (when set) just before a result replaces its path: the command line sets it while a command
#: runs, to raise KeyboardInterrupt after a Ctrl-C that Python dropped (``theorykit.cli._Interrupt``)
before_commit = None

def is_special(path) -> bool:
    """Whether ``path`` is an existing file that is not a regular file or a folder: a device
    (``/dev/null``, ``/dev/stdout``, ``/dev/full``), a named pipe, a socket."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_through(path: Path, data: bytes) -> Path:
    """Write into a device or a named pipe as it is: there is nothing to be atomic about, and the
    temporary file and rename replaced the device node itself (run as root, ``--json /dev/null``
    turned /dev/null into a regular file for every process on the machine, and ``/dev/full`` took
    the result without the error it exists to give)."""
    if before_commit is not None:
        before_commit()
    try:
        with open(path, "wb") as fh:
            fh.write(data)
            fh.flush()
    except OSError as exc:
        raise _naming(exc, path) from None
    return path


_SWEPT: set = set()
STALE_SECONDS = 3600.0


def _sweep_stale(folder: Path) -> None:
    """Remove the temporary files a killed writer left in ``folder`` (SIGKILL, a power cut: no
    ``except`` ran). Once a folder per process, and only a file both an hour old (a write lasts
    seconds, and its file is written at once) and of a process that no longer runs on this
    machine (its number is in the name, ``.tk<pid>-….tmp``); another writer's file is never touched."""
    key = str(folder)
    if key in _SWEPT:
        return
    _SWEPT.add(key)
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not (name.startswith(".tk") and name.endswith(".tmp")):
            continue
        pid = name[3:].split("-", 1)[0]
        if not (pid.isdigit() and "-" in name):     # not ``.tk<pid>-….tmp``: not a writer's, a user's file
            continue
        try:
            if time.time() - entry.stat(follow_symlinks=False).st_mtime < STALE_SECONDS:
                continue
            if _running(int(pid)):
                continue
            os.unlink(entry.path)
        except OSError:                 # gone already, or not ours to remove: leave it
            continue


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (signal 0 tests without sending anything; on
    Windows ``os.kill`` would end the process, so there every process counts as running)."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError, ValueError):
        return False
    except OSError:                     # PermissionError: another user's process
        return True
    return True


def _naming(exc: OSError, path: Path) -> OSError:
    """``exc`` as the same kind of error naming ``path`` (the output, not the temporary file)."""
    try:
        if exc.errno is None:
            return type(exc)(f"{exc} (writing {path})")
        return type(exc)(exc.errno, exc.strerror or os.strerror(exc.errno), str(path))
    except Exception:                   # a subclass with another constructor
        return OSError(exc.errno, exc.strerror or str(exc), str(path))


def atomic_write_text(path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (:func:`atomic_write_bytes`); returns the path."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def jsonable(obj, _at: str = "result"):
    """Convert numpy/sympy objects for JSON; refuses NaN and infinity (they are never written): a
    SpecError (a ValueError) whose field is where the number sits, e.g. ``result['loss'][3]``."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v, f"{_at}[{k!r}]") for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v, f"{_at}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist(), _at)
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        if not math.isfinite(v):
            raise _non_finite(v, _at)
        return v
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    if not _finite_other(obj):          # SymPy's nan, zoo, oo: str() wrote them as "nan", "zoo", "oo"
        raise _non_finite(obj, _at)
    return str(obj)


def _non_finite(v, at: str) -> SpecError:
    # the message named neither where the number sat nor what to do
    return SpecError(at, f"refusing to write a non-finite number ({v}) to a result file",
                     "nothing was written: find where it came from (a diverged run: lower lr; a value at "
                     "a singular point: other symbol values), or drop it from what is written")


def _finite_other(obj) -> bool:
    """Whether a value that :func:`jsonable` writes as text is finite: not SymPy's ``nan``, ``zoo`` or
    ``oo`` (nor an expression holding one), a non-finite ``Decimal`` or ``complex``; anything that is
    no number counts as finite."""
    if isinstance(obj, decimal.Decimal):
        return obj.is_finite()
    if isinstance(obj, (complex, np.complexfloating)):
        return cmath.isfinite(complex(obj))
    if type(obj).__module__.split(".")[0] == "sympy" and hasattr(obj, "has"):     # an expression: oo anywhere
        import sympy as sp
        return not obj.has(sp.nan, sp.zoo, sp.oo, -sp.oo)
    return True


#: the packages that compute a result's numbers beside theorykit (another JAX draws other random bits)
COMPUTING_PACKAGES = ("jax", "jaxlib", "numpy", "scipy", "sympy", "flint")


def installed_version(name: str) -> str | None:
    """The installed version of distribution ``name`` (``"flint"``: python-flint), None if it is not
    installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version({"flint": "python-flint"}.get(name, name))
    except PackageNotFoundError:
        return None


def software_versions(computes: bool = False) -> dict:
    """What computed a result besides its inputs, for its record: theorykit's version, Python's and
    those of :data:`COMPUTING_PACKAGES` (None where one is not installed) and, where JAX ran, its
    backend, first device and whether float64 was on. Nothing is imported to find them.
    ``computes=True``: the caller is about to compute with JAX (a record written before the work, as
    a sweep's): its backend and device are recorded even where JAX has not computed yet."""
    import platform
    import sys

    # the package's own __version__ (this bottom layer imports nothing above it: the package itself is
    # loaded before any of its modules)
    out = {"theorykit": getattr(sys.modules.get(__package__), "__version__", None), "python": platform.python_version(),
           **{m: installed_version(m) for m in COMPUTING_PACKAGES}}
    jax = sys.modules.get("jax")
    # where JAX has computed: asking for devices before then would start a backend for the record's sake
    # (seconds, on a GPU); a JAX without the private table is asked anyway
    backends = getattr(sys.modules.get("jax._src.xla_bridge"), "_backends", None)
    if jax is not None and hasattr(jax, "devices") and (computes or backends is None or backends):
        d = jax.devices()[0]
        kind = getattr(d, "device_kind", "")
        out.update({"jax_backend": jax.default_backend(), "jax_devices": jax.device_count(),
                    "jax_device": str(d) if d.platform == "cpu" or not kind else f"{d} ({kind})",
                    "jax_enable_x64": bool(jax.config.jax_enable_x64)})
    return out


def json_text(obj) -> str:
    """``obj`` as the text of a theorykit JSON file: indented, through :func:`jsonable` (NaN and infinity
    refused), ending in a newline. The one form every JSON file and ``--json -`` is written in."""
    return json.dumps(jsonable(obj), indent=2) + "\n"


def write_json(path, obj) -> Path:
    """Write ``obj`` as indented JSON (:func:`json_text`: NaN and infinity refused) to ``path``
    atomically; returns the path."""
    return atomic_write_text(path, json_text(obj))


def read_json(path, give: str, field: str = "path"):
    """The JSON document at ``path`` (a file theorykit wrote, read back to draw it again); a file that cannot
    be read, or is not JSON, is refused naming ``field``, with ``give`` (what to give instead) as the fix."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(field, f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}", give) from None
    except (ValueError, RecursionError) as exc:
        raise SpecError(field, f"{path} is not JSON ({exc})", give) from None


#: what a figure's path may end in, and the format written for each ending
FIGURE_FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}


def figure_path(value, field: str):
    """A figure's output path: it must end in .png, .pdf or .svg (:data:`FIGURE_FORMATS`), the format
    it is written in (``loss.jpg`` once got PNG bytes under a name that says JPEG)."""
    p = Path(value)
    if p.suffix.lower() not in FIGURE_FORMATS:
        # '', '.' and '/' have no name to give a suffix (with_suffix raised ValueError: an internal error)
        stem = p.stem if p.name not in ("", ".", "..") else "loss"
        raise SpecError(field, f"{value or repr(value)} does not end in .png, .pdf or .svg, the formats a figure is written in",
                        f"name it e.g. {stem}.png, or {stem}.pdf for a paper")
    return value


def png_bytes(fig, dpi: int = 110, tight: bool = False, fmt: str = "png") -> bytes:
    """A matplotlib figure as PNG bytes (``tight``: trimmed to its contents; ``fmt``: "pdf" or "svg"
    for those formats instead): the one renderer of every figure theorykit writes or shows. A pyplot figure is closed (pyplot forgets it); pyplot is
    never imported here, so a figure drawn without it leaves a notebook's backend as it is."""
    import io
    import sys

    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, dpi=dpi, **({"bbox_inches": "tight"} if tight else {}))
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is not None:
        plt.close(fig)
    return buf.getvalue()


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, the noun plural unless n is 1: ``"1 pathway"``, ``"3 pathways"``; ``plural``
    where it is not the noun and an s (``counted(2, "family", "families")``)."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural or noun + 's'}"


def cut(text: str, n: int = 60, mark: str = "…") -> str:
    """``text`` for a message, cut to ``n`` characters where longer, the last of them ``mark``: the one
    shortening of an expression's, a value's or an error's text (``cut(repr(v), 60, "...")``)."""
    return text if len(text) <= n else text[: n - len(mark)] + mark


def plot_text(text) -> str:
    """``text`` (a name, a message) as matplotlib draws it, letter for letter: its ``$`` escaped, since
    two of them make matplotlib read what lies between as mathtext (``"a$\\x$"`` stopped the drawing
    with a parse error)."""
    return str(text).replace("$", r"\$")


def lone_markers(y) -> dict:
    """``plot`` keywords putting a dot on each finite value of ``y`` with no finite neighbour: a line
    alone draws nothing there (a run of one step, a curve broken by NaN); ``{}`` where there is none."""
    fin = np.isfinite(np.asarray(y, float))
    lone = fin & ~np.r_[False, fin[:-1]] & ~np.r_[fin[1:], False]
    return {"marker": "o", "ms": 3, "markevery": np.flatnonzero(lone).tolist()} if lone.any() else {}


#: a simulated curve beside the theory it is checked against: solid, wide and pale, under the theory. Where
#: the two agree (the point of most figures) the theory drawn narrow on top leaves the simulation showing
#: on both sides of it; a simulation drawn on top, or as wide as the theory, hid one of the two
SIMULATION_STYLE = {"ls": "-", "lw": 2.6, "alpha": 0.55, "zorder": 2.2}
#: a theory curve (closed form, race reduction, flow): dashed (never solid: that is the simulation's),
#: narrow, on top of the simulations (a caller may give another dash pattern, never "-")
THEORY_STYLE = {"ls": "--", "lw": 1.2, "zorder": 3}
#: a theory series of markers beside a simulated one: hollow and smaller, on top, so that a value where
#: both agree shows the simulation's filled marker inside the theory's ring (a filled one hid it)
THEORY_MARKERS = {"mfc": "none", "ms": 5, "mew": 1.2, "zorder": 3.1}


#: a loss axis whose curves span more than this ratio (largest / smallest positive value) is drawn on a log scale
LOG_SPAN = 1e3


def log_if_spanning(ax) -> bool:
    """Put ``ax`` on a log y scale where its curves (their positive, finite values) span more than
    :data:`LOG_SPAN`: a loss falling from 0.5 to 1e-18 is a flat line at 0 after its drop on a linear
    axis. Whether it did."""
    ys = [np.asarray(ln.get_ydata(), float) for ln in ax.lines]
    y = np.concatenate([v[np.isfinite(v) & (v > 0)] for v in ys]) if ys else np.zeros(0)
    if y.size > 1 and float(y.max()) > LOG_SPAN * float(y.min()):
        ax.set_yscale("log")
        return True
    return False


def new_figure(**kw):
    """A matplotlib ``Figure(**kw)`` drawn without pyplot (a notebook's backend is left as it is)
    that Jupyter shows as a PNG: a figure made outside pyplot has no display of its own there."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = _shown_figure_class()(**kw)
    FigureCanvasAgg(fig)
    return fig


def subplots(*grid, figsize=None, layout=None, **kw):
    """A figure and its axes as ``plt.subplots(*grid, figsize=…, layout=…, **kw)`` returns them, drawn
    without pyplot (:func:`new_figure`): the caller's matplotlib backend is left as it is."""
    fig = new_figure(figsize=figsize, layout=layout)
    return fig, fig.subplots(*grid, **kw)


def gate_groups(task) -> int | None:
    """The datapoints per group that a gate panel marks off: a context task's items per context (its
    columns are context-major, context c holds columns c·n … c·n+n−1); None for any other task."""
    meta = getattr(task, "meta", None) or {}
    if getattr(task, "name", None) == "contexts" and int(meta.get("k", 1)) > 1 and int(meta.get("n", 0)) > 0:
        return int(meta["n"])
    return None


def gate_share_labels(shares) -> list:
    """Row labels of gate patterns ranked by their share of the network's weight: "#1  24 %", with two
    significant digits; rows of nearly equal share read apart by their rank (at two decimals many read 0.01)."""
    return [f"#{i + 1}  {_percent(100 * float(s))} %" for i, s in enumerate(shares)]


def _percent(v: float) -> str:
    """A percentage to two significant digits, never in exponent form: 100 (not "1e+02"), 24, 1.2, 0.049;
    under 0.001 "<0.001" (not "1e-05"); 0 as "0"."""
    if v >= 10:
        return f"{v:.0f}"
    return f"{v:.2g}" if v == 0 or v >= 1e-3 else "<0.001"


def gate_image(ax, gates, datapoints: int, labels, *, label_size=None, group: int | None = None, key: bool = True):
    """Draw gate patterns on ``ax``: one row per pathway or unit (``labels``), one column per datapoint,
    black where the gate is on; whole datapoints on the x axis, at most 16 ticks. Thin grey lines part
    the rows; ``group`` (datapoints per context, :func:`gate_groups`) draws a red line where a context
    ends and the next begins; ``key`` puts an on/off key right of the axis. The caller adds the title
    and the y label."""
    from matplotlib.patches import Patch

    G = np.asarray(gates, float).reshape(-1, datapoints)
    ax.imshow(G, aspect="auto", cmap="Greys", vmin=0, vmax=1, interpolation="nearest")
    ax.set_xticks(range(0, datapoints, max(1, -(-datapoints // 16))))
    ax.set_xlabel("datapoint" + (f" (red lines: a new context every {group})" if group else ""))
    ax.set_yticks(range(len(labels)), labels, **({} if label_size is None else {"fontsize": label_size}))
    for r in range(1, G.shape[0]):
        ax.axhline(r - 0.5, color="0.6", lw=0.6)
    if group:
        for b in range(group, datapoints, group):
            ax.axvline(b - 0.5, color="tab:red", lw=1.6)
    if key:
        ax.legend(handles=[Patch(facecolor="black", edgecolor="0.3", label="on"),
                           Patch(facecolor="white", edgecolor="0.3", label="off")],
                  title="gate", fontsize=7, title_fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  borderaxespad=0, frameon=False, handlelength=1.2)


@functools.cache
def _shown_figure_class():
    import matplotlib.figure

    class Figure(matplotlib.figure.Figure):
        """matplotlib's Figure, with ``_repr_png_`` (its repr reads as matplotlib's)."""

        def _repr_png_(self):
            return png_bytes(self)

    return Figure


def write_figure(fig, path, dpi: int = 110, tight: bool = False) -> Path:
    """:func:`png_bytes` written atomically to ``path``, in the format its ending names
    (:data:`FIGURE_FORMATS`; a path from a user is checked first by :func:`figure_path`, before the work)."""
    fmt = FIGURE_FORMATS[Path(figure_path(path, "path")).suffix.lower()]
    return atomic_write_bytes(path, png_bytes(fig, dpi, tight, fmt))


class ReaderMayLeave:
    """stdout, read by a command or a script that may leave before the output ends (``theorykit predict … | head``).
    Once a write fails so, the rest of the text is dropped and the command goes on to the end, so
    that the files it writes (a predicted spec, a JSON) are still written; it then exits 141. Bytes
    written through ``.buffer`` (``sys.stdout.buffer.write``, a caller's binary output) are guarded
    the same way: once the text or the bytes find the reader gone, both drop the rest."""

    def __init__(self, stream):
        self.stream, self.reader_left = stream, False

    @property
    def buffer(self):       # none where the stream has none (a StringIO): its AttributeError, as unwrapped
        return _LeftBytes(self) if hasattr(self.stream, "buffer") else self.stream.buffer

    def _gone(self):
        self.reader_left = True
        try:    # the interpreter's last flush at exit must not fail again: point stdout at the null device
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.stream.fileno())
        except (OSError, ValueError, AttributeError):   # a stdout with no file descriptor (a test's capture)
            pass

    def write(self, text):
        if not self.reader_left:
            try:
                return self.stream.write(text)
            except BrokenPipeError:
                self._gone()
        return self._dropped(text)

    @staticmethod
    def _dropped(text) -> int:
        """What a write that dropped ``text`` reports written: its length (its bytes, for the buffer's)."""
        return len(text)

    def writelines(self, lines):        # print() writes, but a caller's writelines must be guarded too
        for line in lines:
            self.write(line)

    def flush(self):
        if not self.reader_left:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._gone()

    def __getattr__(self, name):        # isatty, fileno, encoding: the stream's own
        return getattr(self.stream, name)


class _LeftBytes(ReaderMayLeave):
    """:class:`ReaderMayLeave`'s ``.buffer``: the stream's binary buffer, its writes guarded as the text's
    (the same reader: once the text or the bytes find it gone, both drop the rest)."""

    def __init__(self, text: ReaderMayLeave):
        self.text = text

    stream = property(lambda self: self.text.stream.buffer)
    reader_left = property(lambda self: self.text.reader_left)

    def _gone(self):
        self.text._gone()

    @staticmethod
    def _dropped(data) -> int:
        return memoryview(data).nbytes


# the numbers of every size message (theorykit.spec.limits re-exports them)
def human_bytes(b: float) -> str:
    b = float(b)
    if not math.isfinite(b):
        return f"{b:.3g} B"
    for unit in ("B", "KB", "MB", "GB", "TB", "PB", "EB"):
        if float(f"{b:.3g}") < 1000 or unit == "EB":     # as shown: 999 999 B is 1 MB, not "1e+03 KB"
            return f"{b:.3g} {unit}"
        b /= 1000


def human_seconds(s: float) -> str:
    s = float(s)
    if not math.isfinite(s):
        return f"{s:.3g} s"
    for below, unit, name in ((120, 1, "s"), (7200, 60, "min"), (2 * 86400, 3600, "h"),
                              (2 * 365 * 86400, 86400, "days")):
        if s < below:
            return f"{s / unit:.3g} {name}"
    return f"{s / (365 * 86400):.3g} years"
