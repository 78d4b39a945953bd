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
