"""Review of the spec layer's and the top-level modules' cuts (issue 26), second pass.

- ``io._LeftBytes`` (the ``.buffer`` of :class:`~theorykit.io.ReaderMayLeave`) became a subclass whose
  ``stream`` is a property reading the text stream's ``.buffer``. Where that stream has none (stdout
  redirected to an ``io.StringIO``, a notebook's stream) or where the buffer's own ``.buffer`` was
  asked for, the property's AttributeError fell into the inherited ``__getattr__``, which reads
  ``stream`` again: a RecursionError, which ``hasattr`` and ``getattr(x, name, default)`` do not
  catch. Before the cut these were AttributeErrors, as on the unwrapped stream; they are again.
"""
from __future__ import annotations

import io

import pytest

import theorykit.io as tio


def test_a_text_stream_without_a_binary_buffer_has_none_wrapped_either():
    stream = io.StringIO()
    out = tio.ReaderMayLeave(stream)
    # the reference: the unwrapped stream, asked the same (a StringIO has no .buffer)
    assert hasattr(out, "buffer") == hasattr(stream, "buffer") is False
    assert getattr(out, "buffer", None) is None
    with pytest.raises(AttributeError, match="'_io.StringIO' object has no attribute 'buffer'"):
        out.buffer.write(b"x")
    out.write("text\n")                       # the text itself is written as before
    assert stream.getvalue() == "text\n"


def test_the_guarded_buffer_has_no_buffer_of_its_own_as_the_binary_stream_has_none():
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, write_through=True)
    out = tio.ReaderMayLeave(stream)
    # the reference: the unwrapped binary buffer (a BytesIO has no .buffer; its .getbuffer is its own)
    assert hasattr(out.buffer, "buffer") == hasattr(stream.buffer, "buffer") is False
    assert getattr(out.buffer, "no_such_attribute", "absent") == "absent"
    assert out.buffer.write(b"abc") == 3 and raw.getvalue() == b"abc"
