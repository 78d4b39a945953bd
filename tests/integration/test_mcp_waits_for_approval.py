"""`toolkiln mcp` under the official MCP client: a call of a tool whose calls need a person's
approval waits for the decision, made in another process, and the client gets its outcome."""

from __future__ import annotations

import os
import sys
import threading
import time

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from test_server_support import compute_tool

from toolkiln import Registry


def a_person_decides(registry, *, approve: bool, reason: str | None = None) -> threading.Thread:
    def decide() -> None:
        with Registry(registry) as person:
            deadline = time.monotonic() + 60
            while not person.calls() and time.monotonic() < deadline:
                time.sleep(0.05)
            person.decide_call(person.calls()[0].id, approve=approve, by="user", reason=reason)

    thread = threading.Thread(target=decide)
    thread.start()
    return thread


@pytest.mark.parametrize("held_by", ["the tool's flag", "--approve-calls"])
def test_an_mcp_call_waits_for_the_decision_and_gets_its_outcome(tmp_path, held_by):
    registry = tmp_path / "registry"
    with Registry(registry) as reg:
        reg.create(compute_tool("double", "x * 2"))
        if held_by == "the tool's flag":
            reg.require_call_approval("double", by="user")
    rules = ["--approve-calls", "principal=model"] if held_by == "--approve-calls" else []
    # (the whole environment: the SDK passes only a few variables, and PYTHONPATH says which toolkiln)
    arguments = ["-m", "toolkiln", "mcp", "--registry", str(registry), *rules]
    server = StdioServerParameters(command=sys.executable, args=arguments, env=dict(os.environ))

    async def main() -> None:
        with anyio.fail_after(120):
            await use(server, registry)

    anyio.run(main)


async def use(server: StdioServerParameters, registry) -> None:
    async with Client(server, mode="legacy") as client:
        person = a_person_decides(registry, approve=True)
        approved = await client.call_tool("double", {"x": 21})
        person.join()
        assert not approved.is_error and approved.structured_content["result"] == 42
        person = a_person_decides(registry, approve=False, reason="too late in the day")
        denied = await client.call_tool("double", {"x": 1})
        person.join()
        assert denied.is_error and denied.structured_content["errors"][0]["code"] == "R0731"
        assert "too late in the day" in denied.structured_content["message"]
