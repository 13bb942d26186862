"""A spec file's bytes as a TOML document: the text checks (UTF-8, no byte-order mark, not empty),
TOML's syntax, nesting, and floats read as written (:func:`parse_toml`). The file itself is read, with
its size bound, by :func:`theorykit.spec.files.read_toml`; the document becomes a spec there."""
from __future__ import annotations

import codecs
import decimal
import math
import tomllib

from ..errors import SpecError
from .expr import WrittenFloat, written_nonzero

__all__ = ["parse_toml"]


def parse_toml(raw: bytes, path) -> dict:
    """The TOML document in ``raw``, the bytes of the spec file ``path`` (floats as :func:`_toml_float`
    reads them: 1e-400 is not 0); a deeply nested file is an error, not a crash. A file that is not
    UTF-8 text (a byte-order mark, UTF-16, a binary file) or is empty is named as such: TOML's own
    error, "Invalid statement (at line 1, column 1)", shows nothing wrong in an editor."""
    _not_text(raw, path)
    try:
        return tomllib.loads(raw.decode("utf-8"), parse_float=_toml_float)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        fix = "check the file's syntax"
        if str(path).lower().endswith(".json"):     # the same tables in JSON: spec_from_dict reads them
            fix = ("a spec file is TOML (docs/specs.md); the same tables as JSON load in Python: "
                   "theorykit.spec_from_dict(json.load(open(path)))")
        raise SpecError("spec", f"{path} is not valid TOML: {exc}", fix) from None
    except RecursionError:
        raise SpecError("spec", f"{path} is nested too deeply to read", "flatten its arrays and tables") from None


def _not_text(raw: bytes, path) -> None:
    """A SpecError for spec bytes that are not a TOML file's UTF-8 text, or no text at all."""
    utf8 = "save it as UTF-8 (an editor's \"UTF-8\", not \"UTF-8 with BOM\" or \"UTF-16\"); docs/specs.md"
    if raw.startswith(codecs.BOM_UTF8):
        raise SpecError("spec", f"{path} begins with a byte-order mark (BOM, bytes EF BB BF), which TOML readers "
                                "(Python's tomllib) refuse", utf8)
    head = raw[:16]     # UTF-16 without its BOM: ASCII characters with a zero byte before or after each
    wide = len(head) >= 4 and any(set(head[i::2]) == {0} and 0 not in head[1 - i::2] for i in (0, 1))
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or wide:
        raise SpecError("spec", f"{path} is UTF-16 (or other wide) text, not the UTF-8 a TOML file is", utf8)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise SpecError("spec", f"{path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}): a binary "
                                "file, or text in another encoding", "give a spec file: TOML text, saved as UTF-8 "
                                "(docs/specs.md)") from None
    if not raw.strip():
        raise SpecError("spec", f"{path} is empty" + (" (blank lines only)" if raw else ""), "write a spec into it (docs/specs.md), e.g. a copy of "
                                                      "examples/xor_linear.toml")


def _toml_float(text: str):
    """A TOML float; one written non-zero that a float reads as 0 (``1e-400``), or a finite one it reads
    as infinite (``1e400``), stays a Decimal, which the field checks refuse (too small, too large, or not
    a number) by what was written instead of reading 0 or inf. One written with more digits than a
    double keeps is a :class:`~theorykit.spec.expr.WrittenFloat`, which the data read exactly as written."""
    v = float(text)
    if (v == 0 and written_nonzero(text)) or (math.isinf(v) and "inf" not in text):
        return decimal.Decimal(text.replace("_", ""))
    if math.isfinite(v) and decimal.Decimal(text.replace("_", "")) != decimal.Decimal(repr(v)):
        return WrittenFloat(v, text.replace("_", ""))       # more digits than the double keeps
    return v
