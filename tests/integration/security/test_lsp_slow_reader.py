"""Red team (session 7): `toolkiln lsp` (its read-ahead stdin reader) against a client that sends
a burst of documents and a flood of changes and reads nothing for a while. The server's writes
block on the full pipe (so its memory stays bounded); once the client reads again every
document gets its diagnostics, each at its newest version, and the server still answers: no
deadlock between the reader thread and the blocked writer, no message lost or reordered."""

from __future__ import annotations

import fcntl
import itertools
import queue
import struct
import termios
import time
from pathlib import Path

from lsp_client import WAIT_SECONDS, LspClient
from test_lsp_hostile_client import TOOL, still_answers

FULL_BYTES = 48 * 1024  # most of a 64 KiB pipe: a publish (tens of KiB) no longer fits
DOCUMENTS = 60
CHANGES = 200
ERRORS = "".join(f"  return nope{i}\n" for i in range(300))
BAD = f'tool t(n: number)\ndescription "T"\n{{\n{ERRORS}}}\n'  # about 300 diagnostics: a publish fills a pipe


class NotReadingYet(LspClient):
    """A client whose reader starts only when `start_reading` is called."""

    def _attach(self) -> None:
        self.ids = itertools.count(1)
        self.messages: queue.Queue = queue.Queue()
        self.pending: list = []

    def start_reading(self) -> None:
        super()._attach()


def full_pipe(client: LspClient) -> None:
    """Wait until the server's output pipe is (nearly) full, unread (FIONREAD)."""
    stream = client.process.stdout
    assert stream is not None
    deadline = time.monotonic() + WAIT_SECONDS
    while pending_bytes(stream.fileno()) < FULL_BYTES:
        assert time.monotonic() < deadline, f"the server wrote {pending_bytes(stream.fileno())} bytes only"
        time.sleep(0.05)


def pending_bytes(fd: int) -> int:
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def test_a_client_that_stops_reading_gets_every_newest_result_once_it_reads(tmp_path: Path) -> None:
    client = NotReadingYet(cwd=tmp_path)
    try:
        capabilities = {"general": {"positionEncodings": ["utf-16"]}, "textDocument": {}}
        client.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": capabilities}})  # fmt: skip
        client.notify("initialized", {})
        paths = [tmp_path / f"d{n}.tk" for n in range(DOCUMENTS)]
        for path in paths:
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": path.as_uri(), "languageId": "toolkiln", "version": 1, "text": BAD}})  # fmt: skip
        flooded = paths[0].as_uri()
        for version in range(2, CHANGES + 2):
            text = BAD if version <= CHANGES else TOOL
            client.notify("textDocument/didChange", {
                "textDocument": {"uri": flooded, "version": version}, "contentChanges": [{"text": text}]})  # fmt: skip
        full_pipe(client)  # the server is blocked writing to a client that does not read
        client.start_reading()
        assert client.wait_for(lambda m: m.get("id") == 0)["result"]["capabilities"]
        assert client.diagnostics(flooded, CHANGES + 1) == []  # the newest text, which is clean
        for path in paths[1:]:
            assert len(client.diagnostics(path.as_uri(), 1)) >= 100
        still_answers(client, tmp_path)
        older = [m["params"]["version"] for m in client.pending if m.get("params", {}).get("uri") == flooded]
        assert older == sorted(older) and all(v < CHANGES + 1 for v in older), older  # none after the newest
        assert client.close() == 0
    finally:
        client.kill()
