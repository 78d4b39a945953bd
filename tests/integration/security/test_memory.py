"""Red team: compute memory bounded by the clock only (issue 24, item 4), against a real
`toolkiln serve` process on 127.0.0.1.

The review's program `[s + "x" for x in xs]` over a text of 99,000 characters built 1.5 GB
before the one-second limit stopped it; three concurrent executes grew the server from 93 MB
to 1.3 GB, and it kept 1 GB afterwards. On the main of 2026-11-27 both tests here failed (the
server's peak grew by 750 MB and more; each execute ended E0507 after a second)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from test_server_support import ServerProcess, make_tokens

MiB = 2**20
BUDGET_CODES = {"E0503", "E0507"}  # the size budget, or the clock when the machine is loaded
TEXT = "a" * 99_000
WIDE = "\U0001f600" * 24_000  # four bytes a character
# name -> (what it builds, item by item, the text it is given)
HEAVY = {
    "concat": ('[s + "x" for x in xs]', TEXT),  # the review's program
    "concat_wide": ('[s + "x" for x in xs]', WIDE),
    "upper": ("[upper(s) for x in xs]", TEXT),
    "padded": ('[pad_left("", 99000, "x") for x in xs]', TEXT),
    "sliced": ("[slice(s, 1) for x in xs]", WIDE),
    "joined": ('[join([s, "x"], "") for x in xs]', TEXT),
    "ranges": ("[range(99000) for x in xs]", TEXT),
}


def definition(name: str, expression: str) -> dict[str, object]:
    return {
        "name": name,
        "description": "Builds all it can",
        "parameters": {"s": {"type": "string"}, "xs": {"type": "array", "items": {"type": "number"}}},
        "logic": {"steps": [{"op": "return", "value": f"len({expression})"}]},
    }


def memory(pid: int) -> dict[str, int]:
    """The process's VmRSS (now) and VmHWM (its peak), in bytes."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) * 1024
    return fields


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    registry = tmp_path_factory.mktemp("memory") / "registry"
    tokens = make_tokens(registry)
    process = ServerProcess(registry)
    with process.client(tokens["admin"]) as client:
        for name, (expression, _) in HEAVY.items():
            saved = client.post("/api/v1/tools", json={"definition": definition(name, expression)})
            assert saved.status_code == 201, saved.text
    process.tokens = tokens
    yield process
    process.stop()


def execute(server: ServerProcess, name: str) -> tuple[int, str]:
    text = HEAVY[name][1]
    with server.client(server.tokens["run"]) as client:
        answer = client.post(f"/api/v1/tools/{name}/execute", json={"args": {"s": text, "xs": [0] * 2_000}})
    return answer.status_code, answer.json().get("code", "")


def test_concurrent_heavy_runs_grow_the_server_by_less_than_256_mib(server: ServerProcess) -> None:
    """Four executes at a time, each tool three times: every run is refused by its budget
    (422) before it builds more than the budget pays for, /health answers throughout, and the
    server's peak RSS grows by less than 256 MiB. Alone a run meets its size budget (E0503)
    in 20-50 ms; on a loaded machine four at a time may meet the one-second clock first
    (E0507), which refuses it as surely: the peak RSS is what says nothing was overbuilt."""
    pid = server.process.pid
    before = memory(pid)["VmRSS"]
    names = [name for name in HEAVY for _ in range(3)]
    health: list[float] = []
    with ThreadPoolExecutor(4) as pool:
        answers = pool.map(lambda name: execute(server, name), names)
        with server.client() as client:
            for _ in range(5):
                started = time.monotonic()
                assert client.get("/health", timeout=2).status_code == 200
                health.append(time.monotonic() - started)
        answers = list(answers)
    grown = memory(pid)["VmHWM"] - before
    assert grown < 256 * MiB, f"the server's peak grew by {grown / MiB:.0f} MiB"
    assert all(status == 422 and code in BUDGET_CODES for status, code in answers), answers
    assert max(health) < 2


def test_the_server_gives_memory_back_after_heavy_runs(server: ServerProcess) -> None:
    """After a burst of heavy executes, what the runs built goes back to the system: the
    server's RSS ends within 64 MiB of where it started (before: it kept 1 GB)."""
    pid = server.process.pid
    before = memory(pid)["VmRSS"]
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda name: execute(server, name), [*HEAVY, *HEAVY]))
    kept = memory(pid)["VmRSS"] - before
    assert kept < 64 * MiB, f"the server kept {kept / MiB:.0f} MiB"
    assert all(status == 422 for status, _ in answers)
    assert httpx.get(f"{server.url}/health", timeout=2).status_code == 200
