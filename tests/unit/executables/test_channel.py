"""The parent's side of a run's channel (executables/channel.py), driven by hand: its bounds
hold whatever the program writes."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

from toolkiln.diagnostics import codes
from toolkiln.executables.channel import MAX_ANSWER_BYTES, MAX_REQUEST_BYTES, MAX_REQUESTS, Channel


@pytest.fixture
def channel() -> Iterator[Channel]:
    made = Channel(lambda request: {"ok": True, "result": request})
    yield made
    made.close()


def send(channel: Channel, data: bytes) -> None:
    """What the program writes, a pipe's worth at a time; the parent reads it as its selector
    would have it, while it wants to."""
    to, _ = channel.program_fds
    os.set_blocking(to, False)
    os.set_blocking(channel.requests, False)
    unsent = memoryview(data)
    while unsent:
        try:
            unsent = unsent[os.write(to, unsent[:4096]) :]
        except BlockingIOError:
            if not channel.wants_read:
                return  # the parent reads no more: the program would block here
        if channel.wants_read:
            try:
                channel.read()
            except BlockingIOError:
                pass


def answers(channel: Channel) -> list[Any]:
    _, back = channel.program_fds
    os.set_blocking(back, False)
    try:
        return [json.loads(line) for line in os.read(back, 1 << 20).splitlines()]
    except BlockingIOError:
        return []


def test_each_line_is_served_in_turn(channel: Channel):
    send(channel, b'{"a": 1}\n{"b": 2}\n')
    assert answers(channel) == [{"ok": True, "result": {"a": 1}}, {"ok": True, "result": {"b": 2}}]


def test_a_line_that_is_not_json_is_refused_with_a_code(channel: Channel):
    send(channel, b"not json\n" + b"[" * 60_000 + b"\n")  # (nested past the recursion limit)
    found = answers(channel)
    assert [a["errors"][0]["code"] for a in found] == [codes.TOOL_CALL_LIMIT.code] * 2
    assert channel.open


def test_a_request_past_its_size_closes_the_channel(channel: Channel):
    send(channel, b"x" * (MAX_REQUEST_BYTES + 2))
    assert channel.closed_because == f"a request over {MAX_REQUEST_BYTES:,} bytes"
    assert not channel.wants_read and not channel.wants_write and answers(channel) == []


def test_an_answer_past_its_size_is_refused():
    big = Channel(lambda request: {"ok": True, "result": "y" * MAX_ANSWER_BYTES})
    try:
        send(big, b"{}\n")
        assert answers(big)[0]["errors"][0]["code"] == codes.TOOL_CALL_LIMIT.code
    finally:
        big.close()


def test_no_request_is_read_while_an_answer_is_unsent():
    served: list[int] = []

    def serve(request: Any) -> dict[str, Any]:
        served.append(request)
        return {"ok": True, "result": "z" * 200_000}  # more than a pipe holds

    slow = Channel(serve)
    try:
        send(slow, b"1\n2\n3\n")  # the program reads no answer
        assert served == [1] and slow.wants_write and not slow.wants_read
        _, back = slow.program_fds
        received = b""
        while slow.wants_write:  # the program reads: each answer goes, then the next is served
            received += os.read(back, 1 << 20)
            slow.write()
        received += os.read(back, 1 << 20)
        assert served == [1, 2, 3] and received.count(b"\n") == 3
    finally:
        slow.close()


def test_a_lone_surrogate_in_an_answer_is_escaped_not_refused(channel: Channel):
    send(channel, b'{"text": "\\ud800 and \\u00e9"}\n')
    assert answers(channel) == [{"ok": True, "result": {"text": "\ud800 and \u00e9"}}]


def test_past_the_count_of_requests_the_channel_closes(channel: Channel):
    to, back = channel.program_fds
    for fd in (to, back, channel.requests):
        os.set_blocking(fd, False)
    sent = 0
    while channel.open and sent < 5 * MAX_REQUESTS:  # the program writes, reads every answer
        try:
            os.write(to, b"1\n" * 100)
            sent += 100
        except BlockingIOError:
            pass
        with contextlib.suppress(BlockingIOError):
            os.read(back, 1 << 20)
        if channel.wants_write:
            channel.write()
        if channel.wants_read:
            with contextlib.suppress(BlockingIOError):
                channel.read()
    assert channel.closed_because == f"more than {MAX_REQUESTS:,} requests"
    assert channel.served == MAX_REQUESTS + 1
