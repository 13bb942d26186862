"""Errors raised by theorykit.

Every user-facing error names the field that is wrong and says how to fix it, so that a
message printed by the command line is enough to mend a spec file.
"""
from __future__ import annotations

import difflib
import functools
import inspect


class TheorykitError(Exception):
    """Base class of all theorykit errors."""


class SpecError(TheorykitError, ValueError):
    """A spec (task, pathways, training settings) is malformed.

    Parameters
    ----------
    field:
        Dotted path of the offending field, e.g. ``pathways[1].active``.
    problem:
        What is wrong.
    fix:
        How to mend it.
    keyword_fix:
        For an error whose field is a command-line option: the fix in Python's words, ``{key}`` standing
        for the keyword (``"e.g. {key}=20000"``), which :func:`keyword_errors` gives a Python caller instead
        of the command's fix; None: the command's fix and a note saying which keyword the option is.
    keyword_problem:
        The same for the problem, where it names a command-line option (``"fewer than --steps = 2000"``):
        in Python's words, ``{key}`` standing for the keyword of ``field``; None: the problem as it is.
    """

    def __init__(self, field: str, problem: str, fix: str = "", keyword_fix: str | None = None,
                 keyword_problem: str | None = None):
        self.field = field
        self.problem = problem
        self.fix = fix
        self.keyword_fix = keyword_fix
        self.keyword_problem = keyword_problem
        msg = f"{field}: {problem}"
        if fix:
            msg += f" (fix: {fix})"
        super().__init__(msg)


class UnknownKeyError(SpecError, KeyError):
    """A look-up by a name that is not there (``der.modes["pathway"]`` with a misspelt pathway): a
    :class:`SpecError` naming what was looked up, and a ``KeyError``, as a dict's look-up raises."""

    def __str__(self):          # the message as SpecError writes it, not KeyError's quoted repr
        return BaseException.__str__(self)


class DerivationError(TheorykitError):
    """A derivation cannot be carried out as asked (e.g. a degenerate SVD).

    ``field``: the spec field at fault where one is known (e.g. ``pathways[1]``), else None.
    ``fix``: how to mend the spec where one is known, else None; the message then ends in ``(fix: …)``,
    as a :class:`SpecError`'s does, and ``message`` is the message without it.
    """

    def __init__(self, message: str = "", field: str | None = None, fix: str | None = None):
        self.field, self.fix, self.message = field, fix, message
        super().__init__(f"{message} (fix: {fix})" if fix else message)


class DivergenceError(TheorykitError):
    """A simulation diverged (the learning rate is too large for the data)."""


def keyword_errors(options: dict):
    """A decorator putting a function's errors in Python's words: a :class:`SpecError` whose field is a
    command-line option in ``options`` (option → keyword, e.g. ``{"--enumerate": "enumerate_method"}``)
    or a spec file's field (``{"data.blocks": "blocks"}``; ``data.blocks[2]`` becomes ``blocks[2]``)
    names the keyword instead, and its fix says so for an option (or is its ``keyword_fix``, in Python's
    words, where it has one), and its problem is its ``keyword_problem`` where it has one. The command
    line and the spec-file loader call ``fn.__wrapped__``, whose errors name their own options and fields."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except SpecError as exc:
                key = options.get(exc.field)
                head, bracket, rest = exc.field.partition("[")      # data.blocks[2] → blocks[2]
                if key is None and bracket and head in options:
                    key = f"{options[head]}[{rest}"
                if key is None:
                    raise
                note = f"options are keywords here: {exc.field} is {key}="
                fix = exc.fix if not exc.field.startswith("-") else f"{exc.fix} ({note})" if exc.fix else note
                if getattr(exc, "keyword_fix", None):
                    fix = exc.keyword_fix.replace("{key}", key)
                problem = exc.keyword_problem.replace("{key}", key) if getattr(exc, "keyword_problem", None) \
                    else exc.problem
                # the same kind of error (an UnknownKeyError stays one), naming the keyword
                raise (type(exc) if type(exc).__init__ is SpecError.__init__ else SpecError)(
                    key, problem, fix) from None
        return wrapper
    return decorate


def nearest(value, names):
    """The one of ``names`` that ``value`` most likely misspells (the same but for case, else difflib's
    nearest at a ratio of 0.6 or more, else the only name it begins, from 3 letters: ``race`` for
    ``race-reduction``), or None: the one rule behind every "did you mean …?" (a misspelt keyword, a choice
    such as ``method="closed_form"``, an option's choice on the command line)."""
    if not isinstance(value, str):
        return None
    low = {str(n).lower(): n for n in names}
    near = [value.lower()] if value.lower() in low else difflib.get_close_matches(value.lower(), list(low), n=1, cutoff=0.6)
    near = near or [n for n in low if len(value) >= 3 and n.startswith(value.lower())]
    return low[near[0]] if len(near) == 1 else None


def keyword_typos(fn):
    """A decorator: a keyword ``fn`` does not take raises Python's own ``TypeError`` ("got an unexpected
    keyword argument 'step'"), and says which keyword was meant ("did you mean 'steps'?") or lists them."""
    params = inspect.signature(fn).parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params):       # **kwargs takes any keyword
        return fn
    names = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        for key in kwargs:
            if key not in names:
                near = [nearest(key, names)]        # k for K; lrate for lr (a name it begins with)
                near = near if near[0] else [n for n in names if len(n) > 1 and key.lower().startswith(n.lower())]
                raise TypeError(f"{fn.__qualname__}() got an unexpected keyword argument {key!r} (fix: "
                                + (f"did you mean {near[0]}=?)" if near else f"use one of {names})"))
        return fn(*args, **kwargs)
    return wrapper


def as_command(fn):
    """``fn`` as the command line calls it: without :func:`keyword_errors`' translation, so that its
    errors name the command's options (``--k``), not Python's keywords. Any other function as it is
    (a test's stand-in, say)."""
    return getattr(fn, "__wrapped__", fn)
