"""Exact numbers at every boundary (issue 25, item 5): the Quick start tool's 31.500, which
`toolkiln run` prints, is written `31.500` by a real `toolkiln serve` (execute and test, the
seed's /api/tools/test), and by `toolkiln mcp` under the official client (its text content);
`?decimals=string` writes it as a string. Before, every one of them wrote 31.5."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from test_server_support import ServerProcess, served_registry

EXAMPLE = json.loads((Path(__file__).parents[2] / "examples" / "shipping_cost.json").read_text())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served_registry(tmp_path_factory.mktemp("exact"))


def test_execute_writes_the_digits_computed(server: ServerProcess) -> None:
    with server.client(server.tokens["admin"]) as http:
        assert http.post("/api/v1/tools", json={"definition": EXAMPLE}).status_code == 201
        ran = http.post("/api/v1/tools/shipping_cost/execute", json={"args": {"weight_kg": 12}})
        assert ran.status_code == 200 and '"result": 31.500' in ran.text
        as_text = http.post("/api/v1/tools/shipping_cost/execute?decimals=string", json={"args": {"weight_kg": 12}})
        assert as_text.json()["result"] == "31.500"
        wrong = http.post("/api/v1/tools/shipping_cost/execute?decimals=float", json={"args": {"weight_kg": 12}})
        assert wrong.status_code == 422 and "decimals" in wrong.text


def test_a_test_run_writes_the_digits_computed(server: ServerProcess) -> None:
    with server.client(server.tokens["run"]) as http:
        tested = http.post("/api/v1/tools/test", json={"definition": EXAMPLE, "args": {"weight_kg": 12}})
        assert tested.status_code == 200 and '"result": 31.500' in tested.text
        with_strings = http.post(
            "/api/v1/tools/test?decimals=string", json={"definition": EXAMPLE, "args": {"weight_kg": 2}}
        )
        assert with_strings.json()["result"] == "10.00"


def test_mcp_text_content_has_the_digits_and_structured_content_the_number(tmp_path: Path) -> None:
    registry = tmp_path / "registry"

    async def main() -> None:
        # the whole environment: the SDK passes only a few variables (not PYTHONPATH) by default
        command = ["-m", "toolkiln", "mcp", "--registry", str(registry)]
        served = StdioServerParameters(command=sys.executable, args=command, env=dict(os.environ))
        async with Client(served) as client:
            made = await client.call_tool("create_compute_tool", {"definition": EXAMPLE})
            assert made.structured_content["ok"] is True, made.structured_content
            ran = await client.call_tool("run_custom_tool", {"name": "shipping_cost", "args": {"weight_kg": 12}})
            assert ran.content[0].text == '{"ok": true, "result": 31.500}'
            assert ran.structured_content == {"ok": True, "result": 31.5}
            tested = await client.call_tool("test_custom_tool", {"definition": EXAMPLE, "args": {"weight_kg": 12}})
            assert '"result": 31.500' in tested.content[0].text

    anyio.run(main)
