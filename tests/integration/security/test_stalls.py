"""Red team (issue 24, items 3 and 5): one request held in the slowest path never stalls the rest.

Each test holds requests of a real `toolkiln serve` where they are slowest: an executable
definition whose `path` is a FIFO that nobody writes to (reading it blocks for ever), examples
that each run for the whole `max_seconds`, and a create racing them. Meanwhile /health and the
run of an active tool must answer within 2 s, and a `toolkiln tools create` from the command
line on the same folder must not wait for the server. Before the fix the registry read the
FIFO and ran the examples holding its lock: every route waited (for ever, or about 20 s).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from test_server_support import ServerProcess, compute_tool, make_tokens, served_registry

from toolkiln.registry.registry import Registry

QUICK = 2.0  # seconds: what a route not involved in the stall may take
SPIN = "len([v ** 0.12345 + v ** 0.54321 for v in range(n)])"  # n = 60,000: within the operations, past max_seconds


def spinning_tool(name: str, examples: int) -> dict:
    spin = {"args": {"n": 60_000}, "expect": 60_000}
    return {
        "name": name,
        "description": "Spins for the whole max_seconds in every example",
        "parameters": {"n": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": SPIN}]},
        "examples": [spin] * examples,
    }


class InFlight(threading.Thread):
    """One request sent from a thread of its own; `.answer` once it is answered, `.seconds` it took."""

    def __init__(self, url: str, token: str, path: str, body: dict, settle: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.url, self.token, self.path, self.body = url, token, path, body
        self.answer: httpx.Response | None = None
        self.seconds: float | None = None
        self.start()
        time.sleep(settle)  # in the slow part by now

    def run(self) -> None:
        started = time.monotonic()
        with httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.token}"}, timeout=120) as c:
            try:
                self.answer = c.post(self.path, json=self.body)
            except httpx.TransportError:  # the server was stopped first
                return
        self.seconds = time.monotonic() - started


@pytest.fixture
def server(tmp_path: Path) -> Iterator:
    with Registry(tmp_path / "registry") as reg:
        reg.create(compute_tool("double"))
    yield from served_registry(tmp_path)


def assert_other_routes_answer(server) -> None:
    """/health and a run of an active tool, each within QUICK seconds."""
    with httpx.Client(base_url=server.url, timeout=QUICK) as client:
        started = time.monotonic()
        assert client.get("/health").status_code == 200
        ran = client.post(
            "/api/v1/tools/double/execute",
            json={"args": {"x": 21}},
            headers={"Authorization": f"Bearer {server.tokens['run']}"},
        )
        assert ran.status_code == 200 and ran.json()["result"] == 42
        assert time.monotonic() - started < 2 * QUICK


def assert_the_command_line_creates(server, folder: Path, name: str) -> None:
    """`toolkiln tools create` on the server's folder succeeds: the folder's lock is free."""
    source = folder / f"{name}.json"
    source.write_text(json.dumps(compute_tool(name, "x * 3")))
    cli = subprocess.run(
        [sys.executable, "-m", "toolkiln", "tools", "create", str(source), "--registry", str(server.registry)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 0, cli.stdout + cli.stderr


def unblock(fifo: Path) -> None:
    """Let a reader stuck on `fifo` go (it reads the end of the file)."""
    for _ in range(20):
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # no reader (any more)
            return
        time.sleep(0.05)


def test_a_file_that_never_reads_holds_no_route_and_no_lock(server, tmp_path):
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    stuck = {"kind": "executable", "name": "stuck", "description": "Reads a FIFO", "path": str(fifo)}
    try:
        validating = InFlight(server.url, server.tokens["read"], "/api/v1/tools/validate", {"definition": stuck})
        creating = InFlight(server.url, server.tokens["write"], "/api/v1/tools", {"definition": stuck})
        assert_other_routes_answer(server)

        assert_the_command_line_creates(server, tmp_path, "triple")
        validating.join(timeout=10)  # a check that saves nothing has a budget (R0305), or is refused at once
        assert validating.answer is not None, "the validate request is still held"
        assert validating.answer.status_code in (200, 400, 403, 422), validating.answer.text
        assert validating.answer.json().get("code") or validating.answer.json().get("diagnostics")
    finally:
        unblock(fifo)
    creating.join(timeout=30)


@pytest.mark.slow  # about 14 s: the create's twelve examples of a second each
def test_examples_that_run_for_seconds_hold_no_route(server, tmp_path):
    read, write = server.tokens["read"], server.tokens["write"]
    validating = InFlight(server.url, read, "/api/v1/tools/validate", {"definition": spinning_tool("spin", 20)})
    creating = InFlight(server.url, write, "/api/v1/tools", {"definition": spinning_tool("spin_saved", 12)})
    assert_other_routes_answer(server)
    assert_the_command_line_creates(server, tmp_path, "triple")
    assert creating.answer is None  # the command line did not wait for the create's 12 s of examples

    validating.join(timeout=30)
    answer = validating.answer
    assert answer is not None and answer.status_code == 422, answer
    assert answer.json()["code"] == "R0305"
    assert validating.seconds < 2 * 1.0 + QUICK  # the budget: twice max_seconds, for all 20 examples
    creating.join(timeout=60)
    assert creating.answer is not None and creating.answer.status_code == 422  # its examples ran out of time


@pytest.mark.slow  # about 10 s
def test_more_slow_requests_than_the_server_has_threads_hold_no_route(tmp_path):
    """Slow work runs in two threads of its own: 44 creates (the server's pool has 40 threads)
    that each spend 3 s on examples leave /health and runs a thread to answer in."""
    registry = tmp_path / "registry"
    with Registry(registry) as reg:
        reg.create(compute_tool("double"))
    tokens = make_tokens(registry)
    server = ServerProcess(registry)
    server.tokens = tokens
    try:
        for i in range(44):
            InFlight(server.url, tokens["write"], "/api/v1/tools", {"definition": spinning_tool(f"spin_{i}", 3)}, 0)
        time.sleep(1.0)
        assert_other_routes_answer(server)
    finally:
        server.stop(signal.SIGKILL)  # the queued creates would take a minute to drain
