"""Standard input as the language server reads it (toolkiln.lsp.transport.ReadAhead): lines
and bodies as pygls's loop asks for them, served from what a thread has read ahead, within the
bounds: a header line of at most 64 KiB, a body past the message bound dropped (its bytes
consumed, a notice read in its place), a body larger than the read-ahead read whole."""

from __future__ import annotations

import asyncio
import io
import json

from toolkiln.lsp.transport import CHUNK_BYTES, MAX_HEADER_BYTES, READ_AHEAD_BYTES, SKIPPED_MESSAGE, ReadAhead

WAIT_SECONDS = 60  # a reader that waits for bytes that never come fails the test instead of hanging it


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_all(reader: ReadAhead, sizes: list[int | None]) -> list[bytes]:
    """What the reader gives for each call: None a readline, a number a readexactly."""

    async def calls() -> list[bytes]:
        return [await (reader.readline() if size is None else reader.readexactly(size)) for size in sizes]

    return asyncio.run(asyncio.wait_for(calls(), WAIT_SECONDS))


def test_a_body_past_the_bound_is_consumed_and_a_notice_read_in_its_place() -> None:
    after = b'{"jsonrpc": "2.0", "method": "exit"}'
    reader = ReadAhead(io.BytesIO(frame(b"x" * 100) + frame(after)), max_message_bytes=50)
    header, blank, notice, next_header, _, body = read_all(reader, [None, None, 100, None, None, len(after)])
    assert (header, blank) == (b"Content-Length: 100\r\n", b"\r\n")
    assert json.loads(notice) == {"jsonrpc": "2.0", "method": SKIPPED_MESSAGE, "params": {"bytes": 100}}
    assert (next_header, body) == (b"Content-Length: %d\r\n" % len(after), after)


def test_a_header_line_is_read_to_at_most_64_kib() -> None:
    reader = ReadAhead(io.BytesIO(b"a" * (MAX_HEADER_BYTES + 10) + b"\r\n"))
    first, rest, end = read_all(reader, [None, None, None])
    assert (len(first), rest, end) == (MAX_HEADER_BYTES, b"a" * 10 + b"\r\n", b"")


def test_a_body_larger_than_the_read_ahead_is_read_whole_and_the_input_ends_after_it() -> None:
    size = READ_AHEAD_BYTES + 3 * CHUNK_BYTES + 7
    body = bytes(range(256)) * (size // 256) + b"z" * (size % 256)
    reader = ReadAhead(io.BytesIO(frame(body)))
    _, _, read, end = read_all(reader, [None, None, size, None])
    assert (read == body, end) == (True, b"")


def test_a_body_cut_short_by_the_end_of_input_is_what_arrived() -> None:
    reader = ReadAhead(io.BytesIO(b"Content-Length: 10\r\n\r\nabc"))
    assert read_all(reader, [None, None, 10, 10]) == [b"Content-Length: 10\r\n", b"\r\n", b"abc", b""]
