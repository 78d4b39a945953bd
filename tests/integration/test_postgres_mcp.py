"""`toolkiln mcp` on a registry in PostgreSQL, under the official MCP client: a tool made by
another machine (another process's store on the same database) reaches the client as
`list_changed`, and runs by name through run_custom_tool."""

from __future__ import annotations

import os
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from test_server_support import compute_tool

from toolkiln import Registry

CHANGE_SECONDS = 10  # the server looks every 0.1 s here; a loaded machine may take a while


def test_mcp_on_a_database_hears_of_a_tool_made_on_another_machine(postgres_url):
    with Registry(postgres_url) as reg:
        reg.create(compute_tool("double", "x * 2"))
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkiln", "mcp", "--registry", postgres_url, "--poll-seconds", "0.1"],
        env=dict(os.environ),  # (the SDK passes only a few variables; PYTHONPATH names this tree)
    )

    async def main() -> None:
        heard = anyio.Event()

        async def on_message(message) -> None:
            if type(message).__name__ == "ToolListChangedNotification":
                heard.set()

        async with Client(server, mode="legacy", message_handler=on_message) as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            assert "double" in listed and "from_elsewhere" not in listed
            with Registry(postgres_url) as elsewhere:
                elsewhere.create(compute_tool("from_elsewhere", "x + 1"))
            with anyio.fail_after(CHANGE_SECONDS):
                await heard.wait()
            assert "from_elsewhere" in [tool.name for tool in (await client.list_tools()).tools]
            via = await client.call_tool("run_custom_tool", {"name": "from_elsewhere", "args": {"x": 1}})
            assert via.structured_content == {"ok": True, "result": 2}

    anyio.run(main)


def test_mcp_of_one_tenant_hears_only_its_tenants_changes(postgres_url):
    """`toolkiln mcp --registry URL --tenant alpha`: beta's new tool of the same name moves
    nothing (another schema, another channel); alpha's own reaches the client as list_changed."""
    from test_postgres_tenants import toolkiln

    from toolkiln.registry.postgres.urls import tenant_url

    for tenant in ("alpha", "beta"):
        toolkiln("tenants", "create", tenant, "--registry", postgres_url)
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkiln", "mcp", "--registry", postgres_url, "--tenant", "alpha", "--poll-seconds", "0.1"],
        env=dict(os.environ),
    )

    async def main() -> None:
        heard: list[str] = []

        async def on_message(message) -> None:
            if type(message).__name__ == "ToolListChangedNotification":
                heard.append("list_changed")

        async with Client(server, mode="legacy", message_handler=on_message) as client:
            with Registry(tenant_url(postgres_url, "beta")) as beta:
                beta.create(compute_tool("made", "x + 100"))
            await anyio.sleep(2)  # (20 polls: a change of beta's would have been pushed by now)
            assert heard == [] and "made" not in [tool.name for tool in (await client.list_tools()).tools]
            with Registry(tenant_url(postgres_url, "alpha")) as alpha:
                alpha.create(compute_tool("made", "x + 1"))
            with anyio.fail_after(CHANGE_SECONDS):
                while not heard:
                    await anyio.sleep(0.05)
            via = await client.call_tool("run_custom_tool", {"name": "made", "args": {"x": 1}})
            assert via.structured_content == {"ok": True, "result": 2}  # (alpha's, not beta's 101)

    anyio.run(main)
