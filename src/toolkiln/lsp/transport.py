"""Standard input as pygls reads it, read ahead by a thread and bounded.

The thread keeps what the client sent in a buffer (at most READ_AHEAD_BYTES beyond the
message being read), so pygls's loop takes every message that has arrived one after another
without waiting on the pipe; a check scheduled by a change runs once they are all handled, on
the newest text (toolkiln.lsp.server: a burst of changes is checked once). A header line is
read to at most MAX_HEADER_BYTES, and a message body over MAX_MESSAGE_BYTES is dropped as it
arrives (never held whole), the server told of it by a notification of its own
(SKIPPED_MESSAGE), which it shows the client as error R0802. pygls reads `Content-Length`
bytes in one call: without the bound a header claiming a terabyte would be one allocation of
that size."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

from toolkiln.diagnostics import codes

MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # a 1 MiB document (the largest toolkiln checks) as JSON, with room
MAX_HEADER_BYTES = 64 * 1024
CHUNK_BYTES = 1 << 20
READ_AHEAD_BYTES = 4 * CHUNK_BYTES  # what may wait in the buffer beyond the message being read
SKIPPED_MESSAGE = "toolkiln/skippedMessage"


class ReadAhead:
    """The two calls pygls's loop makes of its reader (readline, readexactly), served from a
    buffer that a thread fills from `raw`. A call the buffer can answer returns at once."""

    def __init__(self, raw: BinaryIO, max_message_bytes: int = MAX_MESSAGE_BYTES) -> None:
        self.raw = raw
        self.max_message_bytes = max_message_bytes
        self.buffer = bytearray()
        self.ended = False  # the client closed its end (or it could not be read)
        self.wanted = 0  # bytes a readexactly waits for: the thread reads on until they are here
        self.room = threading.Condition()
        self.arrived: asyncio.Event | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    async def readline(self) -> bytes:
        """A line through its newline, at most MAX_HEADER_BYTES (b"" once the input ended)."""
        while True:
            newline = self.buffer.find(b"\n", 0, MAX_HEADER_BYTES)
            if newline >= 0 or len(self.buffer) >= MAX_HEADER_BYTES or self.ended:
                return self._take(newline + 1 if newline >= 0 else MAX_HEADER_BYTES)
            await self._more()

    async def readexactly(self, size: int) -> bytes:
        """The next `size` bytes (fewer if the input ends first); a body over the bound is
        dropped as it arrives and the SKIPPED_MESSAGE notification read in its place."""
        if size > self.max_message_bytes:
            return await self._skip(size)
        self.wanted = size
        try:
            while len(self.buffer) < size and not self.ended:
                await self._more()
        finally:
            self.wanted = 0
        return self._take(size)

    async def _skip(self, size: int) -> bytes:
        left = size
        while left > 0:
            if not self.buffer:
                if self.ended:
                    return b""  # the client closed its end: the server stops
                await self._more()
            left -= len(self._take(left))
        notice = {"jsonrpc": "2.0", "method": SKIPPED_MESSAGE, "params": {"bytes": size}}
        return json.dumps(notice).encode()

    def _take(self, size: int) -> bytes:
        with self.room:
            taken = bytes(self.buffer[:size])
            del self.buffer[:size]
            self.room.notify()
        return taken

    async def _more(self) -> None:
        """Wait until the thread has read more (or the input ended)."""
        if self.arrived is None:
            self.loop, self.arrived = asyncio.get_running_loop(), asyncio.Event()
            threading.Thread(target=self._fill, name="toolkiln-lsp-stdin", daemon=True).start()
        self.arrived.clear()
        with self.room:
            self.room.notify()  # (self.wanted may have grown)
        await self.arrived.wait()

    def _fill(self) -> None:
        read = self._reader()
        while True:
            with self.room:
                while len(self.buffer) >= max(READ_AHEAD_BYTES, self.wanted):
                    self.room.wait()
            try:
                chunk = read(CHUNK_BYTES)
            except (OSError, ValueError):
                chunk = b""
            with self.room:
                self.buffer += chunk
                self.ended = not chunk
            self._tell()
            if not chunk:
                return

    def _reader(self) -> Callable[[int], bytes]:
        """A file's descriptor is read directly: a thread waiting in a buffered reader holds
        its lock, and Python aborts at exit when a daemon thread holds standard input's."""
        try:
            descriptor = self.raw.fileno()
        except (OSError, ValueError):  # (an in-memory stream)
            return getattr(self.raw, "read1", self.raw.read)
        return functools.partial(os.read, descriptor)

    def _tell(self) -> None:
        assert self.loop is not None and self.arrived is not None
        try:
            self.loop.call_soon_threadsafe(self.arrived.set)
        except RuntimeError:  # the loop has closed: nobody is reading any more
            pass


def skipped_message(params: Any) -> str:
    """The message shown for a skipped body (`params` as pygls hands them in: a mapping or an object)."""
    size = params.get("bytes") if isinstance(params, dict) else getattr(params, "bytes", None)
    size_text = f"{size:,} bytes" if isinstance(size, int) else "too many bytes"
    return (
        f"error[{codes.LSP_MESSAGE_TOO_LARGE.code}]: a message of {size_text} was skipped unread: "
        f"the limit is {MAX_MESSAGE_BYTES:,} bytes (a request in it gets no answer)"
    )
