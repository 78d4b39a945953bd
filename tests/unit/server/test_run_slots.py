"""Runs at once are bounded: past `max_concurrent_runs`, a request that runs a tool waits for a
slot (in the event loop, holding no thread), so what runs add to the server's memory is bounded
by the slots times one run's budget."""

from __future__ import annotations

import threading

import anyio
import httpx
import pytest

from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

DOUBLE = {
    "name": "double",
    "description": "Doubles x",
    "parameters": {"x": {"type": "number"}},
    "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
}


# execute, and RustyClaw's test route: each runs in a slot
ROUTES = [
    ("/api/v1/tools/double/execute", lambda x: {"args": {"x": x}}, lambda answer: answer["result"]),
    ("/api/tools/double/test", lambda x: {"parameters": {"x": x}}, lambda answer: answer["data"]["output"]),
]


@pytest.mark.parametrize(("path", "body", "result"), ROUTES)
def test_a_run_waits_for_a_free_slot_and_runs_when_one_frees(tmp_path, path, body, result):
    app = create_app(Settings(registry=tmp_path / "reg", max_concurrent_runs=1))
    registry = app.state.services.registries.default
    registry.create(DOUBLE)
    token = TokenStore(state_folder(registry.path)).create("runner", "run", "service")[0]
    headers = {"Authorization": f"Bearer {token}"}
    slots = app.state.services.run_slots
    held, holding = threading.Event(), threading.Event()

    def long_run() -> None:  # what a run that takes its time does to the only slot
        holding.set()
        held.wait(30)

    async def main() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", headers=headers) as http:
            first = await http.post(path, json=body(1))
            assert result(first.json()) == 2
            answers: list[httpx.Response] = []

            async def execute() -> None:
                answers.append(await http.post(path, json=body(21)))

            async with anyio.create_task_group() as tasks:
                tasks.start_soon(slots.run, long_run)
                await anyio.to_thread.run_sync(holding.wait, 30)  # the slot is taken
                tasks.start_soon(execute)
                await anyio.sleep(0.3)
                assert answers == []  # it waits for the slot
                health = await http.get("/health")  # what does not run a tool does not wait
                assert health.status_code == 200
                held.set()
            assert result(answers[0].json()) == 42

    anyio.run(main)
