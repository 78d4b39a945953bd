"""A client that lists the tools once and never again (as Claude Code, Codex and other clients
do: they ignore `notifications/tools/list_changed`) still reaches every tool made after it
connected, through `list_custom_tools` and `run_custom_tool`, with the official MCP client over
stdio against a real `toolkiln mcp` process."""

from __future__ import annotations

import os
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from test_server_support import compute_tool

from toolkiln import Registry


def test_a_client_that_never_refetches_its_list_creates_and_runs_new_tools(tmp_path):
    registry = tmp_path / "registry"
    with Registry(registry) as reg:
        reg.create(compute_tool("double", "x * 2"))
    server = StdioServerParameters(  # (the whole environment: the SDK passes only a few variables)
        command=sys.executable,
        args=["-m", "toolkiln", "mcp", "--registry", str(registry), "--poll-seconds", "0.1"],
        env=dict(os.environ),
    )
    heard: list[str] = []

    async def ignore(message) -> None:  # what a client that drops notifications does
        heard.append(type(message).__name__)

    async def main() -> None:
        async with Client(server, mode="legacy", message_handler=ignore) as client:
            assert "list_custom_tools" in client.instructions and "run_custom_tool" in client.instructions
            listed_once = {tool.name for tool in (await client.list_tools()).tools}
            assert "triple" not in listed_once and {"run_custom_tool", "list_custom_tools"} <= listed_once

            made = await client.call_tool("create_compute_tool", {"definition": compute_tool("triple", "x * 3")})
            assert made.structured_content["ok"] is True, made.structured_content
            with Registry(registry) as other:  # and one made by another process
                other.create(compute_tool("from_elsewhere", "x + 1"))

            found = await client.call_tool("list_custom_tools", {})
            names = {tool["name"] for tool in found.structured_content["tools"]}
            assert {"triple", "from_elsewhere"} <= names
            tripled = await client.call_tool("run_custom_tool", {"name": "triple", "args": {"x": 3}})
            assert tripled.structured_content == {"ok": True, "result": 9}
            plus = await client.call_tool("run_custom_tool", {"name": "from_elsewhere", "args": {"x": 1}})
            assert plus.structured_content == {"ok": True, "result": 2}

            with Registry(registry) as other:  # a tool that went away is a coded error, not a hang
                other.delete("from_elsewhere")
            gone = await client.call_tool("run_custom_tool", {"name": "from_elsewhere", "args": {"x": 1}})
            assert gone.is_error and gone.structured_content["errors"][0]["code"] == "R0102"

    anyio.run(main)
