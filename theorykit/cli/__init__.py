"""Command line: ``theorykit`` (also ``python -m theorykit``).

Subcommands: check, derive, simulate, validate, find-gates, compare, race-exhaust, sweep, predict,
bench, rerun; one module each in this package, imported only when its command runs (the parser,
:mod:`.parser`, needs nothing but argparse, so ``--help`` answers at once). Errors exit with status
2 and a message that names the field and the fix (``--debug`` adds the traceback); the other
statuses are listed in ``theorykit --help``. Sizes are checked against an estimate of memory and
time (:mod:`theorykit.spec.limits`) before any work starts.
"""
from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
import time
import warnings
import traceback

from .. import io
from ..errors import DerivationError, DivergenceError, SpecError, TheorykitError
from .parser import build_parser, check_numbers, commands

__all__ = ["main", "build_parser"]


def one_line(msg: str) -> str:
    """Messages are one line: newlines and tabs (e.g. from a library's text) become spaces."""
    return " ".join(msg.replace("\t", " ").splitlines())


def _report(error: SpecError) -> None:
    """The line of an error: ``theorykit: error in field: problem (fix: fix)``, as a :class:`SpecError`
    reads; every error the command line reports is this line."""
    print(one_line(f"theorykit: error in {error}"), file=sys.stderr)


def warning(msg) -> None:
    """The line of a warning: ``theorykit: warning: msg`` (a Python warning's too, not its source location)."""
    print(one_line(f"theorykit: warning: {msg}"), file=sys.stderr)


def _unrecognized(parser, args, extra) -> None:
    """Refuse arguments no parser took, as the command's own parser (its usage line, not the top
    level's) and with the nearest option name of that command for a misspelt one: ``--jsn`` -> ``--json``."""
    import difflib

    # here, not at the top: spec.files loads SymPy, and this package must answer --help without it
    from ..spec.files import TRAINING_KEYS

    subs, others = commands(parser), {}
    command = subs.get(getattr(args, "command", None), parser)
    for name, sub in subs.items():
        for o in (o for a in sub._actions for o in a.option_strings if o.startswith("--")):
            others.setdefault(o, []).append(name)
    options = [o for a in command._actions for o in a.option_strings if o.startswith("--")]
    hints, elsewhere = [], []
    for arg in extra:
        if arg.startswith("-"):
            name = arg.split("=", 1)[0]
            key = name[2:].replace("-", "_")
            if name in others and name not in options:
                # `simulate --lr 0.1` was answered "did you mean: --lr -> --plot?": say whose option it is
                subs = others[name]
                subs = ", ".join(subs[:-1]) + " and " + subs[-1] if len(subs) > 1 else subs[0]
                where = f"{name} is an option of theorykit {subs}, not of {command.prog}"
                elsewhere.append(where + (f": {command.prog} reads it from the spec ([training] {key} = …)"
                                          if key in TRAINING_KEYS else ""))
                continue
            near = difflib.get_close_matches(name, options, n=1)
            if near:
                hints.append(f"{name} -> {near[0]}")
    shown = " ".join(extra) if len(extra) <= 4 else " ".join(extra[:3]) + f" … ({len(extra)} in all)"
    if "--checkpoints" in options and any(not a.startswith("-") and os.path.exists(a) for a in extra):
        hints_text = (" (the shell expanded the --checkpoints glob into file names: quote it, e.g. "
                      "--checkpoints 'run/step_*.safetensors')")
    elif (loose := [v for v in getattr(args, "set", None) or [] if "=" not in v]) and not extra[0].startswith("-"):
        # `--set Delta 0.5`: argparse took Delta as the value and left 0.5 over, with no word on why
        hints_text = (f" (--set takes NAME=VALUE as one word: write --set {loose[0]}={extra[0]}, "
                      "not --set NAME VALUE)")
    elif hints or elsewhere:
        hints_text = " (" + "; ".join(elsewhere + ([f"did you mean: {', '.join(hints)}?"] if hints else [])) + \
            (f"; see {command.prog} --help)" if elsewhere else ")")
    else:
        hints_text = f" (see {command.prog} --help)"
    command.error(f"unrecognized arguments: {shown}{hints_text}")


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 a bad input or a refused run, 70 a bug)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    for old, new in vars(args).pop("renamed", {}).items():      # an option's former name (parser._Renamed)
        warning(f"{old} is now {new} (same meaning; write {new})")
    if extra:
        _unrecognized(parser, args, extra)
    if not getattr(args, "module", None):
        parser.print_help()
        return 2
    try:        # each number option's text and range, before any work (the command's module is not loaded yet)
        check_numbers(parser, args)
    except SpecError as exc:
        return _failure(exc, getattr(args, "debug", False))
    args.argv = list(sys.argv[1:] if argv is None else argv)      # a result records the command line
    args.started = time.monotonic()        # and how long the command took until it was written
    debug = getattr(args, "debug", False)
    out = io.ReaderMayLeave(sys.stdout)
    sys.stdout = out
    threads, interrupt = set(threading.enumerate()), _Interrupt(sys.unraisablehook)
    sys.unraisablehook, io.before_commit = interrupt.hook, interrupt.check
    term = _on_sigterm()
    # Ctrl-C is the watchdog's too only where main() is the program (``theorykit``, ``python -m
    # theorykit``: no argv given, no interpreter of a person's around it): a caller's own interpreter,
    # a REPL or a Jupyter kernel (``%run -m theorykit …``), keeps Python's KeyboardInterrupt
    ctrl_c = _on_sigint() if argv is None and not _interactive() else None
    watchdog = _Watchdog.start(term is not None, ctrl_c is not None) if term is not None or ctrl_c is not None \
        else None
    status = None
    try:
        with warnings.catch_warnings():
            # a warning reads as one line of the command's own, not a Python source location
            warnings.showwarning = lambda message, *_a, **_k: warning(message)
            status = _run(args, debug)
        out.flush()
    finally:
        interrupt.running = False
        sys.stdout, sys.unraisablehook, io.before_commit = out.stream, interrupt.previous, None
        if watchdog is not None:
            watchdog.stop()
        if term is not None:
            signal.signal(signal.SIGTERM, term)
        if ctrl_c is not None:
            signal.signal(signal.SIGINT, ctrl_c)
    if interrupt.dropped and status not in (130, 143):  # the command ended before the signal came again
        print("theorykit: interrupted", file=sys.stderr)
        status = 130
    if status in (130, 143):
        _cancel_timers(threads)
    if watchdog is not None and (status == 143 or (status == 130 and watchdog.ctrl_c)):
        # SIGTERM's own action (and Ctrl-C's, where the program is theorykit), after the clean-up: the
        # process ends now. On its way out it waited for the computation it had started (a compiled
        # loop runs on after the command has ended)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)
    return _reader_left() if out.reader_left and status == 0 else status


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, SLURM's ``scancel`` or time limit, a container stop) while a command runs.
    A KeyboardInterrupt, so that every clean-up an interrupt runs (a temporary file removed, a
    suite's staging folder, a progress bar closed) runs for it too; the exit status is 143 (128 + 15)."""


def _telling_watchdog(sig, expected, event: str, then):
    """Install a handler for ``sig`` that sets the running watchdog's ``event`` (its clean-up has begun)
    and then does what ``then`` does; only from the main thread, and only where ``sig`` has the handler
    ``expected`` (not where it is ignored, as in a shell's background job, nor where someone else
    handles it). Returns the handler to restore, or None."""
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        if signal.getsignal(sig) is not expected:
            return None

        def handler(signum, frame):
            dog = _WATCHDOG[0]
            if dog is not None:
                getattr(dog, event).set()
            return then(signum, frame)
        return signal.signal(sig, handler)
    except (ValueError, OSError, AttributeError):      # no such signal here, or not settable
        return None


def _raise_terminated(signum, frame):
    raise Terminated()


def _on_sigterm():
    """Raise :class:`Terminated` on SIGTERM while the command runs, where SIGTERM has its default
    action; returns the handler to restore, or None."""
    return _telling_watchdog(signal.SIGTERM, signal.SIG_DFL, "handled", _raise_terminated)


def _interactive() -> bool:
    """Whether a person's interpreter runs this: a REPL (``sys.ps1``, ``python -i``), IPython or a
    Jupyter kernel (both set ``sys.ps1``; ``%run -m theorykit`` calls main() as the program does).
    There an interrupted command must return, not end the process: Ctrl-C or "interrupt kernel"
    would end the session, its variables lost."""
    if hasattr(sys, "ps1") or sys.flags.interactive:
        return True
    ipython = sys.modules.get("IPython")
    try:
        return ipython is not None and ipython.get_ipython() is not None
    except Exception:                   # an IPython without get_ipython, or one that fails: not a shell
        return False


def _on_sigint():
    """Tell the watchdog when Python's own Ctrl-C handler runs (it still raises KeyboardInterrupt),
    where SIGINT has that handler; returns the handler to restore, or None."""
    return _telling_watchdog(signal.SIGINT, signal.default_int_handler, "interrupted", signal.default_int_handler)


#: seconds from SIGTERM (or Ctrl-C) to the watchdog's exit when Python has not begun the command's clean-up
TERM_GRACE_SECONDS = 5.0


class _Watchdog:
    """SIGTERM during a long JAX computation: the process outlived the signal. Python runs a signal
    handler only between bytecodes of the main thread, and a process whose command has ended still
    waits, on its way out, for the computation it started: ``theorykit simulate
    examples/xor_linear.toml --set Delta=0.5 --steps 6000000 --force`` sent SIGTERM 10 s in ended 60 s
    later, past a batch job's grace period (SLURM: 30 s), so the job's SIGKILL ended it first, with
    no clean-up and no word. The signal's number is written to a pipe at once, in C
    (``signal.set_wakeup_fd``); this thread reads it, and where the handler has not run
    :data:`TERM_GRACE_SECONDS` later (the main thread is inside one call) it removes the temporary
    files and staging folders still being written (:data:`theorykit.io.PENDING`), says "terminated"
    and ends the process with status 143, as SIGTERM's default action would have (the handler is
    installed only where SIGTERM had it). A command that did end by SIGTERM ends the process at once
    (:func:`main`), not waiting for the computation on the way out. Results already in place are kept;
    a result not yet committed is not written.

    Ctrl-C (SIGINT) the same, where the program is theorykit (``ctrl_c``): ``theorykit simulate …
    --steps 6000000 --seeds 4`` sent SIGINT 10 s in said "interrupted" and exited 130 only 47 s later,
    the user at the terminal seeing nothing happen. Python's handler still raises KeyboardInterrupt and
    the command cleans up as before; where it has not run :data:`TERM_GRACE_SECONDS` later the
    watchdog says "interrupted" and ends the process with status 130. One Ctrl-C is enough (a second
    is not needed, nor counted: ``timeout -s INT`` and ``kill -INT`` send one, and
    :class:`_Interrupt` sends one again itself). Elsewhere (a caller's REPL) its byte is ignored."""

    def __init__(self, read_fd, write_fd, previous, term=True, ctrl_c=False):
        self.read_fd, self.write_fd, self.previous = read_fd, write_fd, previous
        self.term, self.ctrl_c = term, ctrl_c  # which signals it ends the process for: handled by theorykit
        self.handled = threading.Event()        # set by the SIGTERM handler: the clean-up has begun
        self.interrupted = threading.Event()    # set by the SIGINT handler: KeyboardInterrupt raised
        self.stopped = threading.Event()        # set when the command has ended

    @classmethod
    def start(cls, term=True, ctrl_c=False):
        """A running watchdog, or None where the wakeup fd is not ours to take (another library's, a
        platform without one)."""
        if os.name != "posix" or threading.current_thread() is not threading.main_thread():
            return None
        try:                                    # no file descriptor left (EMFILE): run without a watchdog
            r, w = os.pipe()
        except OSError:
            return None
        try:
            os.set_blocking(w, False)
            previous = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        except (ValueError, OSError, AttributeError, TypeError):
            os.close(r)
            os.close(w)
            return None
        if previous != -1:                      # an event loop's: give it back, run without a watchdog
            signal.set_wakeup_fd(previous)
            os.close(r)
            os.close(w)
            return None
        dog = cls(r, w, previous, term, ctrl_c)
        _WATCHDOG[0] = dog
        threading.Thread(target=dog._watch, name="theorykit-signal-watchdog", daemon=True).start()
        return dog

    def _watch(self):
        try:
            while True:
                got = os.read(self.read_fd, 64)
                if not got:                     # stop() closed the write end
                    return
                for sig, ran in ((signal.SIGTERM, self.handled), (signal.SIGINT, self.interrupted)):
                    if sig in got and (self.term if sig == signal.SIGTERM else self.ctrl_c) \
                            and not ran.wait(TERM_GRACE_SECONDS) and not self.stopped.is_set():
                        self._end(sig)
        finally:
            os.close(self.read_fd)

    def _end(self, sig=signal.SIGTERM):
        io.remove_pending()
        word, status = (b"terminated", 143) if sig == signal.SIGTERM else (b"interrupted", 130)
        try:
            os.write(2, b"theorykit: " + word + b"\n")
        except OSError:
            pass
        os._exit(status)

    def stop(self):
        self.stopped.set()
        _WATCHDOG[0] = None
        try:
            signal.set_wakeup_fd(self.previous)
        except (ValueError, OSError):
            pass
        os.close(self.write_fd)


_WATCHDOG = [None]      # the running command's watchdog, told by the SIGTERM handler that it ran


class _Interrupt:
    """A Ctrl-C that Python dropped. SIGINT raises KeyboardInterrupt wherever the main thread is; in a
    garbage-collector callback (JAX registers one, ``_xla_gc_callback``) or a ``__del__`` Python prints
    "Exception ignored in …" and goes on, and the command ran to its end, exited 0 and wrote its files.
    While a command runs, :meth:`hook` (``sys.unraisablehook``) notes such an interrupt and sends the
    signal again a moment later, from a thread, so that it is raised in the command's own code; until
    then no result file is committed (:func:`theorykit.io.atomic_write_bytes` asks :meth:`check`), and
    a command that ends first exits 130 all the same. Other unraisable exceptions go to ``previous``."""

    def __init__(self, previous):
        self.previous, self.dropped, self.running = previous, False, True

    def hook(self, unraisable):
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            return self.previous(unraisable)
        self.dropped = True
        sig = signal.SIGTERM if isinstance(unraisable.exc_value, Terminated) else signal.SIGINT
        dog = _WATCHDOG[0]
        if dog is not None:     # the handler ran, but its interrupt did not take: the watchdog's grace anew
            (dog.handled if sig == signal.SIGTERM else dog.interrupted).clear()
        threading.Thread(target=self._again, args=(sig,), daemon=True).start()

    def _again(self, sig):
        time.sleep(0.05)               # out of the callback: there the handler would raise into it again
        if self.running:
            os.kill(os.getpid(), sig)

    def check(self):
        if self.dropped:
            raise KeyboardInterrupt


def _cancel_timers(before) -> None:
    """After Ctrl-C: cancel the timer threads the command started and left running (JAX's backend
    start arms a 60 s ``threading.Timer`` and cancels it in a ``finally`` that an interrupt landing
    between the two skips). Python's exit waits for such a thread: the command would hang for a
    minute after "interrupted", then warn of a TPU. Threads that were there before are left alone."""
    for thread in threading.enumerate():
        if isinstance(thread, threading.Timer) and thread not in before:
            thread.cancel()


def _run(args, debug) -> int:
    try:
        if args.distributed:
            import jax

            try:
                jax.distributed.initialize()
            except (ValueError, RuntimeError) as exc:   # no cluster found, or its coordinator not reached
                raise SpecError("--distributed", f"cannot join a multi-host run: {exc}",
                                "run it under SLURM, or set JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES and "
                                "JAX_PROCESS_ID; leave --distributed off for one host") from None
        command = importlib.import_module(f"{__name__}.{args.module}")
        return command.run(args) or 0
    except Terminated:
        print("theorykit: terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("theorykit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return _reader_left()
    except Exception as exc:
        if debug:
            traceback.print_exc()
        return _failure(exc, debug, args)


def _reader_left() -> int:
    """stdout's reader left before the output ended (``theorykit derive … | head``): no message, as
    ``cat`` and ``git``, and the status of a command ended by SIGPIPE (128 + 13)."""
    return 141


def _failure(exc, debug, args=None) -> int:
    """Say what went wrong in one line; the exit status: 2 for a bad input or a refused run, 70 for a bug.
    ``args``: the command's options: a divergence names the --lr the command was given (find-gates and
    compare take one), not the training.lr it replaced."""
    if isinstance(exc, DivergenceError):
        lr = "--lr" if getattr(args, "lr", None) is not None else "training.lr"
        # the fix is said once, in the fix (the message's own "; lower training.lr" is for Python callers)
        exc = SpecError(lr, str(exc).removesuffix("; lower training.lr"), f"lower {lr} (or rescale the data)")
    if isinstance(exc, SpecError):
        _report(exc)
    elif isinstance(exc, DerivationError):
        _report(SpecError(getattr(exc, "field", None) or "data", f"cannot derive: {getattr(exc, 'message', exc)}",
                          getattr(exc, "fix", None) or ""))
    elif isinstance(exc, TheorykitError):
        print(f"theorykit: {type(exc).__name__}: {exc}", file=sys.stderr)
    elif isinstance(exc, OSError):
        _report(SpecError(getattr(exc, "filename", None) or "file", exc.strerror or str(exc)))
    else:  # a bug: say so briefly; --debug shows where
        print(f"theorykit: internal error (a bug in theorykit, please report it): {type(exc).__name__}: "
              f"{str(exc)[:300]}" + ("" if debug else " -- rerun with --debug for the traceback"), file=sys.stderr)
        return 70
    return 2
