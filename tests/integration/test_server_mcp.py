"""`toolkiln mcp` under the official MCP client, over stdio and streamable HTTP, in both
protocol eras: list, call, create through a meta-tool, hear that the list changed (also for a
tool made by another process), call the new tool by its name and through run_custom_tool."""

from __future__ import annotations

import socket
import sys

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from test_server_support import compute_tool, free_port, make_tokens, mcp_over_http

from toolkiln import Registry

CHANGE_SECONDS = 10  # the server looks every 0.1 s here; a loaded machine may take a while


def stdio_server_for(registry) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkiln", "mcp", "--registry", str(registry), "--poll-seconds", "0.1"],
    )


@pytest.fixture
def registry(tmp_path):
    path = tmp_path / "registry"
    with Registry(path) as reg:
        reg.create(compute_tool("double", "x * 2"))
    return path


@pytest.fixture
def http_server(registry):
    """`toolkiln mcp --http` on a free port; its tokens by scope."""
    tokens = make_tokens(registry)
    port = free_port()
    args = ["--registry", str(registry), "--http", "--port", str(port), "--poll-seconds", "0.1", "--rate-limit", ""]
    with mcp_over_http(args, port) as url:
        yield url, tokens


def test_the_helper_waits_for_its_own_server_not_whoever_holds_the_port(registry):
    """mcp_over_http (test_server_support.py) on a port another process took meanwhile: the
    child's coded refusal, not a connect to the other process (which answered 404 at load)."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        args = ["--registry", str(registry), "--http", "--port", str(port)]
        refused = pytest.raises(AssertionError, match=f"error\\[R0531\\]: 127.0.0.1:{port} is in use")
        with refused, mcp_over_http(args, port):
            pass


def over_http(url: str, token: str):
    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}))


async def names(client: Client) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


async def use_the_registry(client: Client, created: anyio.Event, registry) -> None:
    """What both eras do; `created` is set when the client hears the list changed."""
    listed = await names(client)
    assert "double" in listed and "create_compute_tool" in listed and "run_custom_tool" in listed
    schema = next(t for t in (await client.list_tools()).tools if t.name == "double").input_schema
    assert schema["properties"] == {"x": {"type": "number"}}

    doubled = await client.call_tool("double", {"x": 21})
    assert not doubled.is_error and doubled.structured_content == {"ok": True, "result": 42}
    failed = await client.call_tool("double", {"x": "a"})
    assert failed.is_error and failed.structured_content["errors"][0]["code"] == "E0508"

    made = await client.call_tool("create_compute_tool", {"definition": compute_tool("triple", "x * 3")})
    assert made.structured_content["ok"] is True, made.structured_content
    with anyio.fail_after(CHANGE_SECONDS):
        await created.wait()
    assert "triple" in await names(client)
    assert (await client.call_tool("triple", {"x": 2})).structured_content["result"] == 6
    via = await client.call_tool("run_custom_tool", {"name": "triple", "args": {"x": 3}})
    assert via.structured_content == {"ok": True, "result": 9}


def test_a_handshake_era_client_hears_of_new_tools(registry):
    hears_of_new_tools_with_a_handshake(lambda: stdio_server_for(registry), registry)


def test_a_handshake_era_client_over_http_hears_of_new_tools(http_server, registry):
    url, tokens = http_server
    hears_of_new_tools_with_a_handshake(lambda: over_http(url, tokens["write"]), registry)


def hears_of_new_tools_with_a_handshake(server, registry) -> None:
    async def main() -> None:
        heard = anyio.Event()

        async def on_message(message) -> None:
            if type(message).__name__ == "ToolListChangedNotification":
                heard.set()

        async with Client(server(), mode="legacy", message_handler=on_message) as client:
            assert not client.protocol_version.startswith("2026")
            await use_the_registry(client, heard, registry)

            heard = anyio.Event()  # a tool made by another process: told too
            with Registry(registry) as other:
                other.create(compute_tool("from_elsewhere", "x + 1"))
            with anyio.fail_after(CHANGE_SECONDS):
                await heard.wait()
            assert "from_elsewhere" in await names(client)
            via = await client.call_tool("run_custom_tool", {"name": "from_elsewhere", "args": {"x": 1}})
            assert via.structured_content == {"ok": True, "result": 2}

    anyio.run(main)


def test_a_2026_client_hears_of_new_tools_on_its_listen_stream(registry):
    hears_of_new_tools_on_a_listen_stream(lambda: stdio_server_for(registry), registry)


def test_a_2026_client_over_http_hears_of_new_tools(http_server, registry):
    url, tokens = http_server
    hears_of_new_tools_on_a_listen_stream(lambda: over_http(url, tokens["write"]), registry)


def hears_of_new_tools_on_a_listen_stream(server, registry) -> None:
    async def main() -> None:
        async with Client(server()) as client:
            assert client.protocol_version == "2026-07-28"
            async with client.listen(tools_list_changed=True) as subscription:
                heard = anyio.Event()

                async def wait_for_change() -> None:
                    async for event in subscription:
                        if type(event).__name__ == "ToolsListChanged":
                            heard.set()
                            return

                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(wait_for_change)
                    await use_the_registry(client, heard, registry)

                with Registry(registry) as other:  # another process's change reaches the stream
                    other.create(compute_tool("from_elsewhere", "x + 1"))
                with anyio.fail_after(CHANGE_SECONDS):
                    async for event in subscription:
                        assert type(event).__name__ == "ToolsListChanged"
                        break
            assert "from_elsewhere" in await names(client)

    anyio.run(main)


def test_http_needs_a_write_token(http_server):
    url, tokens = http_server
    hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for token, status, code in ((None, 401, "R0501"), ("tk_wrong", 401, "R0502"), (tokens["run"], 403, "R0503")):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        refused = httpx.post(url, json=hello, headers=headers)
        assert refused.status_code == status and refused.json()["code"] == code


def test_over_http_a_meta_tool_acts_as_a_model_named_by_its_token(http_server, registry):
    """A person's write token over MCP acts as a model (MCP clients are models), and the audit
    line names the token it came through."""
    url, tokens = http_server

    async def main() -> None:
        async with Client(over_http(url, tokens["write"]), mode="legacy") as client:
            made = await client.call_tool("create_compute_tool", {"definition": compute_tool("quad", "x * 4")})
            assert made.structured_content["ok"] is True, made.structured_content

    anyio.run(main)
    with Registry(registry) as reg:
        created = reg.audit_log("quad")[-1]
        assert (created.action, created.by, created.via) == ("create", "llm", "token write (MCP)")
        assert reg.get("quad").created_by == "llm"
