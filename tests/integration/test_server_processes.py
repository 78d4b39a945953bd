"""Servers as processes: two on one registry folder see each other's (and the CLI's, and
Python's) changes at once; SIGTERM loses no acknowledged write; the rate limit answers 429."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest
from test_server_support import ServerProcess, compute_tool, make_tokens

from toolkiln import Registry

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.fixture
def registry(tmp_path):
    return tmp_path / "registry"


def test_two_servers_on_one_folder_see_every_change_at_once(registry, tmp_path):
    tokens = make_tokens(registry)
    first, second = ServerProcess(registry, wait=False), ServerProcess(registry, wait=False)
    first.wait_until_up()
    second.wait_until_up()
    try:
        with first.client(tokens["admin"]) as one, second.client(tokens["admin"]) as two:
            assert one.post("/api/v1/tools", json={"definition": compute_tool("shared", "x + 1")}).status_code == 201
            assert "shared" in [t["name"] for t in two.get("/api/v1/tools").json()["tools"]]
            assert "shared" in [d["function"]["name"] for d in two.get("/api/v1/tools/definitions").json()]
            assert two.post("/api/v1/tools/shared/execute", json={"args": {"x": 1}}).json()["result"] == 2

            with Registry(registry) as reg:  # Python, a third process' view
                reg.create(compute_tool("from_python", "x * 10"))
            assert two.post("/api/v1/tools/from_python/execute", json={"args": {"x": 2}}).json()["result"] == 20

            definition = tmp_path / "from_cli.json"
            definition.write_text(json.dumps(compute_tool("from_cli", "x - 1")))
            subprocess.run(
                [sys.executable, "-m", "toolkiln", "tools", "create", str(definition), "--registry", str(registry)],
                check=True,
                capture_output=True,
            )
            assert one.get("/api/v1/tools/from_cli/definition").json()["function"]["name"] == "from_cli"
            assert two.post("/api/v1/tools/from_cli/execute", json={"args": {"x": 1}}).json()["result"] == 0

            assert one.patch("/api/v1/tools/shared", json={"changes": {"description": "Adds one"}}).status_code == 200
            assert two.get("/api/v1/tools/shared").json()["description"] == "Adds one"
            assert two.delete("/api/v1/tools/shared").status_code == 200
            assert one.get("/api/v1/tools/shared").status_code == 404

            subprocess.run(
                [sys.executable, "-m", "toolkiln", "tokens", "revoke", "admin", "--registry", str(registry)],
                check=True,
                capture_output=True,
            )
            for client in (one, two):
                assert client.get("/api/v1/tools").json()["code"] == "R0502"  # revoked everywhere, no restart
    finally:
        first.stop()
        second.stop()


def test_sigterm_during_a_stream_of_creates_loses_no_acknowledged_create(registry):
    tokens = make_tokens(registry)
    server = ServerProcess(registry)
    acknowledged: list[str] = []
    stop = threading.Event()

    def create_stream(worker: int) -> None:
        with server.client(tokens["write"]) as http:
            for n in range(10_000):
                if stop.is_set():
                    return
                name = f"t{worker}_{n}"
                try:
                    response = http.post("/api/v1/tools", json={"definition": compute_tool(name)})
                except httpx.TransportError:
                    return  # the server went away: this create was never acknowledged
                if response.status_code == 201:
                    acknowledged.append(name)

    writers = [threading.Thread(target=create_stream, args=(w,)) for w in range(4)]
    for writer in writers:
        writer.start()
    deadline = time.monotonic() + 60
    while len(acknowledged) < 20:
        assert all(w.is_alive() for w in writers), "the writers stopped before the signal"
        assert time.monotonic() < deadline, f"only {len(acknowledged)} creates in 60 s"
        time.sleep(0.01)
    assert server.stop(signal.SIGTERM) in (0, -signal.SIGTERM)
    stop.set()
    for writer in writers:
        writer.join(timeout=30)
    on_disk = {record.name for record in Registry(registry).list()}
    assert set(acknowledged) <= on_disk, sorted(set(acknowledged) - on_disk)
    assert "Finished server process" in server.log.read_text()


def test_the_rate_limit_answers_429_with_retry_after(registry):
    tokens = make_tokens(registry)
    server = ServerProcess(registry, "--rate-limit", "3/minute")
    try:
        with server.client(tokens["read"]) as reader, server.client(tokens["run"]) as runner:
            assert [reader.get("/api/v1/tools").status_code for _ in range(3)] == [200, 200, 200]
            limited = reader.get("/api/v1/tools")
            assert limited.status_code == 429 and limited.json()["code"] == "R0504"
            assert 1 <= int(limited.headers["retry-after"]) <= 60
            assert runner.get("/api/v1/tools").status_code == 200  # counted per token
            assert reader.get("/health").status_code == 200  # never limited
    finally:
        server.stop()
