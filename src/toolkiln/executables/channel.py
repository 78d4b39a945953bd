"""A run's channel to its caller: two pipes, a JSON line each way, served by the parent while
the program runs (what a javascript tool's `utils.callTool` and seeded `utils.uuid` use).

    requests   program --(fd A)--> parent     {"call": "double", "args": {"x": 2}}\\n
    answers    parent  --(fd B)--> program    {"ok": true, "result": 4}\\n

Pipes, not a socket: the program holds one end of each and can reach nothing else through
them (no address to connect to, no descriptors passed). The parent reads at most
MAX_REQUEST_BYTES per request and MAX_REQUESTS per run; past either it closes its ends and
serves no more (the program reads end of file, its writes fail). An answer is written without
blocking, and no request is read while one is unsent: a program that sends and never reads
holds at most one answer of at most MAX_ANSWER_BYTES in the parent. What a request means is
the `serve` function's (the registry's, for a tool), which answers with JSON data; this
module knows nothing of tools.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from toolkiln.diagnostics import codes

CHANNEL_ENV = "TOOLKILN_CHANNEL"  # "A,B": the program's ends (requests it writes, answers it reads)
MAX_REQUEST_BYTES = 64 * 1024
MAX_ANSWER_BYTES = 1 << 20
MAX_REQUESTS = 10_000
_CHUNK = 65536

Serve = Callable[[Any], Any]
"""One request (decoded JSON) -> its answer (JSON data: {"ok": ..., ...})."""


def refusal(code: codes.Code, message: str, hint: str | None = None) -> dict[str, Any]:
    """An answer that refuses a request, in the shape of an Outcome's reply."""
    error = {"code": code.code, "message": message, "hint": hint}
    return {"ok": False, "errors": [error], "message": message}


class Channel:
    """The parent's side of one run's channel: made before the run, closed after it."""

    def __init__(self, serve: Serve) -> None:
        self._serve = serve
        self.requests, self._program_writes = os.pipe()
        self._program_reads, self.answers = os.pipe()
        os.set_blocking(self.answers, False)
        self._open_fds = {self.requests, self.answers, self._program_writes, self._program_reads}
        self._unread = bytearray()
        self._unsent = memoryview(b"")
        self._ended = False  # the program closed its end of the requests
        self.served = 0
        self.closed_because: str | None = None

    @property
    def program_fds(self) -> tuple[int, int]:
        return (self._program_writes, self._program_reads)

    @property
    def env(self) -> dict[str, str]:
        return {CHANNEL_ENV: f"{self._program_writes},{self._program_reads}"}

    def started(self) -> None:
        """The program has its ends: the parent's copies go, so that its exit ends the requests."""
        self._close_fds(*self.program_fds)

    @property
    def open(self) -> bool:
        return self.closed_because is None

    @property
    def wants_read(self) -> bool:
        """Whether to read requests now: none is read while an answer is unsent."""
        return self.open and not self._ended and not self._unsent

    @property
    def wants_write(self) -> bool:
        return self.open and bool(self._unsent)

    def read(self) -> None:
        """Read what the program sent and serve each whole request."""
        chunk = os.read(self.requests, _CHUNK)
        if not chunk:
            self._ended = True
            return
        self._unread += chunk
        self._serve_whole_requests()

    def write(self) -> None:
        """Write what can be written of the answer without blocking; then serve what waited."""
        self._write_some()
        if not self._unsent:
            self._serve_whole_requests()

    def close(self) -> None:
        """Close every end still open (the parent's, and the program's if it never started);
        the caller has unregistered them from its selector first."""
        self._close_fds(*self._open_fds)

    def _close_fds(self, *fds: int) -> None:
        for fd in fds:
            if fd in self._open_fds:  # (never twice: the number may belong to another file by then)
                self._open_fds.discard(fd)
                os.close(fd)

    def _serve_whole_requests(self) -> None:
        while self.open and not self._unsent:
            end = self._unread.find(b"\n")
            if end < 0:
                if len(self._unread) > MAX_REQUEST_BYTES:
                    self._close(f"a request over {MAX_REQUEST_BYTES:,} bytes")
                return
            line = bytes(self._unread[:end])
            del self._unread[: end + 1]  # (a bytearray drops its start without copying the rest)
            self.served += 1
            if self.served > MAX_REQUESTS:
                self._close(f"more than {MAX_REQUESTS:,} requests")
                return
            self._unsent = memoryview(self._answer(line))
            self._write_some()

    def _write_some(self) -> None:
        try:
            written = os.write(self.answers, self._unsent[:_CHUNK])
        except BrokenPipeError:  # the program is gone or closed its end: nobody reads it
            self._unsent = memoryview(b"")
            return
        except BlockingIOError:
            return
        self._unsent = self._unsent[written:]

    def _answer(self, line: bytes) -> bytes:
        if len(line) > MAX_REQUEST_BYTES:
            answer = refusal(codes.TOOL_CALL_LIMIT, f"a request over {MAX_REQUEST_BYTES:,} bytes")
        else:
            try:
                answer = self._serve(json.loads(line))
            except (ValueError, RecursionError):
                answer = refusal(codes.TOOL_CALL_LIMIT, "a request that is not one line of JSON")
        # ASCII with escapes: a lone surrogate (JSON allows one) is written as \udXXX, never refused
        text = json.dumps(answer, separators=(",", ":"), default=str).encode() + b"\n"
        if len(text) > MAX_ANSWER_BYTES:
            message = f"the answer is over {MAX_ANSWER_BYTES:,} bytes, more than a run may be sent"
            text = json.dumps(refusal(codes.TOOL_CALL_LIMIT, message)).encode() + b"\n"
        return text

    def _close(self, why: str) -> None:
        """Serve no more: the caller unregisters and closes the parent's ends (`close`), so
        the program's next write fails and its next read ends."""
        self.closed_because = why
        self._unsent = memoryview(b"")
