"""`toolkiln mcp --tenant NAME` under the official MCP client: the server sees only that
tenant's tools. Tenants `alpha` and `beta` (and the default one) each have a tool `shared` with
other logic, and beta a tool of its own; served for alpha, over stdio and streamable HTTP,
beta's tools are invisible, its calls refused (by name and through run_custom_tool), and over
HTTP only alpha's tokens pass. On the main of 2026-11-29 01:50 UTC `--tenant` did not exist
(a tenant was served by naming its folder, with tokens of that folder's own state)."""

from __future__ import annotations

import os
import subprocess
import sys

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from test_server_support import compute_tool, free_port, mcp_over_http

from toolkiln import Registry
from toolkiln.registry.tenants import create_tenant, tenant_folder
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore


@pytest.fixture
def registry(tmp_path):
    root = tmp_path / "registry"
    for tenant, factor in (("default", 2), ("alpha", 10), ("beta", 3)):
        with Registry(create_tenant(root, tenant)) as reg:
            reg.create(compute_tool("shared", f"x * {factor}"))
    with Registry(tenant_folder(root, "beta")) as reg:
        reg.create(compute_tool("beta_only", "x + 1000"))
    return root


def tokens_of(root) -> dict[str, str]:
    store = TokenStore(state_folder(root))
    return {tenant: store.create("writer", "write", "person", tenant)[0] for tenant in ("default", "alpha", "beta")}


async def sees_only_alpha(client: Client) -> None:
    listed = [tool.name for tool in (await client.list_tools()).tools]
    assert "shared" in listed and "beta_only" not in listed
    shared = await client.call_tool("shared", {"x": 4})
    assert shared.structured_content == {"ok": True, "result": 40}  # alpha's logic, not beta's or default's
    refused = await client.call_tool("beta_only", {"x": 1})
    assert refused.is_error and "1001" not in str(refused.content)
    via = await client.call_tool("run_custom_tool", {"name": "beta_only", "args": {"x": 1}})
    assert via.structured_content["ok"] is False
    assert via.structured_content["errors"][0]["code"] == "R0102"  # no such tool


def test_over_stdio_only_the_tenants_tools_are_seen_and_called(registry):
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkiln", "mcp", "--registry", str(registry), "--tenant", "alpha"],
        env=dict(os.environ),  # (the SDK passes only a few variables on: PYTHONPATH names the code under test)
    )

    async def main() -> None:
        async with Client(server, mode="legacy") as client:
            await sees_only_alpha(client)

    anyio.run(main)


def test_over_http_only_the_tenants_tokens_pass_and_see_only_its_tools(registry):
    tokens = tokens_of(registry)
    port = free_port()
    args = ["--registry", str(registry), "--tenant", "alpha", "--http", "--port", str(port), "--rate-limit", ""]
    with mcp_over_http(args, port) as url:
        hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        for other in ("beta", "default"):
            refused = httpx.post(url, json=hello, headers={"Authorization": f"Bearer {tokens[other]}"})
            assert (refused.status_code, refused.json()["code"]) == (401, "R0502")

        async def main() -> None:
            headers = {"Authorization": f"Bearer {tokens['alpha']}"}
            transport = streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers))
            async with Client(transport, mode="legacy") as client:
                await sees_only_alpha(client)

        anyio.run(main)


def test_a_tenant_that_is_not_there_is_refused_before_serving(registry):
    for name, code in (("gamma", "R0751"), ("../beta", "R0750")):
        done = subprocess.run(
            [sys.executable, "-m", "toolkiln", "mcp", "--registry", str(registry), "--tenant", name],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2 and f"error[{code}]" in done.stderr, done.stderr
