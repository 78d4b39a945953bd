"""Standard input as pygls reads it, bounded: a header line is read to at most MAX_HEADER_BYTES,
and a message body over MAX_MESSAGE_BYTES is read in chunks and dropped (never held whole),
the server told of it by a notification of its own (SKIPPED_MESSAGE), which it shows the
client as error R0802. pygls reads `Content-Length` bytes in one call: without the bound a
header claiming a terabyte would be one allocation of that size."""

from __future__ import annotations

import json
from typing import Any, BinaryIO

from toolkiln.diagnostics import codes

MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # a 1 MiB document (the largest toolkiln checks) as JSON, with room
MAX_HEADER_BYTES = 64 * 1024
CHUNK_BYTES = 1 << 20
SKIPPED_MESSAGE = "toolkiln/skippedMessage"


class BoundedReader:
    """The two calls pygls makes of standard input (readline, read), within the bounds."""

    def __init__(self, raw: BinaryIO, max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self.raw = raw
        self.max_message_bytes = max_message_bytes

    def readline(self) -> bytes:
        return self.raw.readline(MAX_HEADER_BYTES)

    def read(self, size: int) -> bytes:
        if size <= self.max_message_bytes:
            return self.raw.read(size)
        left = size
        while left > 0:
            chunk = self.raw.read(min(left, CHUNK_BYTES))
            if not chunk:
                return b""  # the client closed its end: the server stops
            left -= len(chunk)
        notice = {"jsonrpc": "2.0", "method": SKIPPED_MESSAGE, "params": {"bytes": size}}
        return json.dumps(notice).encode()


def skipped_message(params: Any) -> str:
    """The message shown for a skipped body (`params` as pygls hands them in: a mapping or an object)."""
    size = params.get("bytes") if isinstance(params, dict) else getattr(params, "bytes", None)
    size_text = f"{size:,} bytes" if isinstance(size, int) else "too many bytes"
    return (
        f"error[{codes.LSP_MESSAGE_TOO_LARGE.code}]: a message of {size_text} was skipped unread: "
        f"the limit is {MAX_MESSAGE_BYTES:,} bytes (a request in it gets no answer)"
    )
