"""Red team: a javascript tool calling other tools (`utils.callTool`, issue 27 item 5), through a
real `toolkiln serve` with two tenants and real bubblewrap. The call is made as the caller of
the tool that runs, in its tenant, through the registry's one door: it reaches no other
tenant's tool and no tool that is not active, a call that needs a person's approval is held
as that caller's, tools cannot recurse past 4 deep, and a program flooding its channel gets
it closed while the server keeps answering. On the main before this change every
`utils.callTool` failed ("a toolkiln script cannot call other tools"), so each test fails there.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_javascript_tool_calls import js
from test_server_support import ServerProcess, compute_tool

from toolkiln.diagnostics import codes
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

pytestmark = pytest.mark.usefixtures("bwrap_installed")

REACH = """const out = {};
for (const name of args.names) {
  out[name] = await utils.callTool(name, { x: 5 }).then(
    (result) => ({ result }),
    (error) => ({ code: error.code, call: error.call || null }),
  );
}
return out;"""
RECURSE = """try {
  return (await utils.callTool("recurse", { n: args.n + 1 })).output;
} catch (error) {
  return { deepest: args.n, code: error.code };
}"""
FLOOD = """const fs = require("fs");
const to = Number(process.env.TOOLKILN_CHANNEL.split(",")[0]);
const line = Buffer.alloc(1 << 16, 120);
try {
  for (let i = 0; i < 1600; i++) fs.writeSync(to, line); // 100 MiB, never a newline
  return "all written";
} catch (error) {
  return error.code;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    registry = tmp_path_factory.mktemp("calls") / "registry"
    store = TokenStore(state_folder(registry))
    tokens: dict[str, str] = {}
    for tenant in ("alpha", "beta"):
        subprocess.run([sys.executable, "-m", "toolkiln", "tenants", "create", tenant, "--registry", str(registry)])
        tokens[tenant] = store.create("admin", "admin", "person", tenant)[0]
    tokens["model"] = store.create("agent", "run", "model", "alpha")[0]
    writer = store.create("factory", "write", "model", "alpha")[0]  # (a model's tool waits for review)
    process = ServerProcess(registry, "--rate-limit", "100000/minute")
    with process.client(tokens["beta"]) as beta:
        made(beta, compute_tool("shared", "x * 3"), compute_tool("beta_only", "x + 1"))
    with process.client(tokens["alpha"]) as alpha:
        made(alpha, compute_tool("shared", "x * 2"), compute_tool("guarded", "x * 10"))
        made(alpha, js("reach", REACH), js("recurse", RECURSE, timeout_secs=120), js("flood", FLOOD))
        assert alpha.put("/api/v1/tools/guarded/call-approval", json={"required": True}).status_code == 200
        made(alpha, compute_tool("review_me", "x - 1", riskLevel="high"), by_model=process.client(writer))
    process.tokens = tokens
    yield process
    process.stop()


def made(admin: httpx.Client, *definitions: dict[str, Any], by_model: httpx.Client | None = None) -> None:
    for definition in definitions:
        answer = (by_model or admin).post("/api/v1/tools", json={"definition": definition})
        assert answer.status_code == 201, answer.text


def executed(server: ServerProcess, token: str, name: str, args: dict[str, Any]) -> Any:
    with server.client(token) as http:
        answer = http.post(f"/api/v1/tools/{name}/execute", json={"args": args}, timeout=120)
    assert answer.status_code == 200, answer.text
    return answer.json()["result"]["output"]


def test_a_call_reaches_only_the_callers_tenants_active_tools(server: ServerProcess):
    names = ["shared", "beta_only", "review_me", "create_compute_tool"]
    found = executed(server, server.tokens["model"], "reach", {"names": names})
    assert found["shared"] == {"result": 10}  # alpha's x * 2, never beta's x * 3
    assert found["beta_only"]["code"] == codes.TOOL_NOT_FOUND.code  # beta's: as if nobody had it
    assert found["review_me"]["code"] == codes.TOOL_NOT_ACTIVE.code  # waits for review
    assert found["create_compute_tool"]["code"] == codes.TOOL_NAME_INVALID.code  # a meta-tool is not callable


def test_a_call_that_needs_approval_is_held_as_the_callers_own(server: ServerProcess):
    found = executed(server, server.tokens["model"], "reach", {"names": ["guarded"]})
    assert found["guarded"]["code"] == codes.CALL_PENDING.code
    call = found["guarded"]["call"]
    with server.client(server.tokens["alpha"]) as alpha:
        held = alpha.get(f"/api/v1/calls/{call}").json()
    assert (held["tool"], held["arguments"], held["status"]) == ("guarded", {"x": 5}, "pending")
    assert (held["caller"]["kind"], held["caller"]["name"]) == ("model", "agent")  # not the tool, not more
    with server.client(server.tokens["beta"]) as beta:
        assert beta.get(f"/api/v1/calls/{call}").status_code == 404  # another tenant's call


def test_tools_calling_tools_stop_four_deep(server: ServerProcess):
    found = executed(server, server.tokens["model"], "recurse", {"n": 1})
    assert found == {"deepest": 4, "code": codes.TOOL_CALL_TOO_DEEP.code}


def test_a_flood_on_the_channel_is_cut_and_the_server_keeps_answering(server: ServerProcess):
    assert executed(server, server.tokens["alpha"], "flood", {}) == "EPIPE"
    assert httpx.get(f"{server.url}/health", timeout=5).status_code == 200
