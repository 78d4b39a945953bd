"""Runs at once are bounded: past `max_concurrent_runs`, a request that runs a tool waits for a
slot (in the event loop, holding no thread), so what runs add to the server's memory is bounded
by the slots times one run's budget."""

from __future__ import annotations

import anyio
import httpx

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


def test_a_run_waits_for_a_free_slot_and_runs_when_one_frees(tmp_path):
    app = create_app(Settings(registry=tmp_path / "reg", max_concurrent_runs=1))
    registry = app.state.services.registries.default
    registry.create(DOUBLE)
    token = TokenStore(state_folder(registry.path)).create("runner", "run", "service")[0]
    headers = {"Authorization": f"Bearer {token}"}

    async def main() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", headers=headers) as http:
            first = await http.post("/api/v1/tools/double/execute", json={"args": {"x": 1}})
            assert first.json()["result"] == 2  # the slots are made and free
            slots = app.state.services.run_slots
            answers: list[httpx.Response] = []

            async def execute() -> None:
                answers.append(await http.post("/api/v1/tools/double/execute", json={"args": {"x": 21}}))

            async with anyio.create_task_group() as tasks:
                await slots.acquire()  # every slot taken, as by a long run
                tasks.start_soon(execute)
                await anyio.sleep(0.3)
                assert answers == [] and slots.statistics().tasks_waiting == 1
                health = await http.get("/health")  # what does not run a tool does not wait
                assert health.status_code == 200
                slots.release()
            assert answers[0].json()["result"] == 42

    anyio.run(main)
