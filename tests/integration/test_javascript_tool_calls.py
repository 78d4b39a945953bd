"""`utils.callTool(name, args)`: a javascript tool calls another registry tool through its
run's channel (two pipes the parent serves), by Registry.invoke, as the principal of the call
under way; with real bubblewrap. (OwnPilot's summarize_url: peers/test_ownpilot_javascript.py;
through a real server, across tenants: security/test_tool_calls_from_tools.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from toolkiln import api
from toolkiln.diagnostics import codes
from toolkiln.registry.json_values import plain_json
from toolkiln.registry.principals import Principal
from toolkiln.registry.program_calls import MAX_CALL_DEPTH, MAX_CALLS_PER_RUN
from toolkiln.registry.registry import Registry
from toolkiln.semantics.chance import as_source, drawing_from
from toolkiln.server.app import create_app
from toolkiln.server.services import Settings
from toolkiln.server.state import state_folder
from toolkiln.server.tokens import TokenStore

pytestmark = pytest.mark.usefixtures("bwrap_installed")
MODEL = Principal("model", "agent-7", "run", "token agent-7")


def js(name: str, code: str, **fields: object) -> dict[str, object]:
    """A javascript tool whose body is `utils.run(async (args) => { code })`."""
    body = f'const utils = require("toolkiln/utils");\nutils.run(async (args) => {{\n{code}\n}});\n'
    return {
        "kind": "script",
        "name": name,
        "description": "Calls tools.",
        "runtime": "javascript",
        "body": body,
        "parameters": {"type": "object"},
    } | fields


def double() -> dict[str, object]:
    return {
        "name": "double",
        "description": "Doubles x",
        "parameters": {"x": {"type": "number"}},
        "logic": {"steps": [{"op": "return", "value": "x * 2"}]},
    }


@pytest.fixture
def reg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Registry]:
    monkeypatch.setenv("TOOLKILN_STATE_DIR", str(tmp_path / "state"))
    with Registry(tmp_path / "registry", durable=False, usage_flush_seconds=0) as registry:
        registry.create(double())
        yield registry


def output(reg: Registry, name: str, args: dict[str, object], principal: Principal | str = "user") -> object:
    outcome = reg.invoke(name, args, principal=principal)
    assert outcome.ok, outcome.errors
    return outcome.result["output"]


def test_a_call_answers_what_invoke_answers(reg: Registry):
    code = """const doubled = await utils.callTool("double", { x: args.x });
const refused = await utils.callTool("double", { x: "five" }).catch((e) => [e.code, e.message]);
const missing = await utils.callTool("no_such_tool", {}).catch((e) => e.code);
const meta = await utils.callTool("create_compute_tool", {}).catch((e) => e.code);
return { doubled, refused, missing, meta };"""
    reg.create(js("caller", code))
    found = output(reg, "caller", {"x": 21})
    assert found["doubled"] == 42
    assert found["refused"][0] == reg.invoke("double", {"x": "five"}, principal="user").errors[0].code
    assert found["missing"] == codes.TOOL_NOT_FOUND.code
    assert found["meta"] == codes.TOOL_NAME_INVALID.code  # a meta-tool is no registry tool: never callable


def test_a_tool_that_is_not_active_cannot_be_called(reg: Registry):
    reg.create(double() | {"name": "draft_double", "riskLevel": "high"}, created_by=MODEL)  # waits for a person
    assert reg.get("draft_double").status != "active"
    reg.create(js("caller", 'return await utils.callTool("draft_double", { x: 1 }).catch((e) => e.code);'))
    assert output(reg, "caller", {}) == reg.invoke("draft_double", {"x": 1}, principal="user").errors[0].code


def test_calls_recurse_at_most_four_deep(reg: Registry):
    code = """try {
  return (await utils.callTool("recurse", { n: args.n + 1 })).output;
} catch (error) {
  return { deepest: args.n, code: error.code };
}"""
    reg.create(js("recurse", code, timeout_secs=120))
    assert output(reg, "recurse", {"n": 1}) == {"deepest": MAX_CALL_DEPTH, "code": codes.TOOL_CALL_TOO_DEEP.code}


def test_a_run_makes_at_most_32_calls(reg: Registry):
    code = """const answers = [];
for (let i = 0; i < 40; i++) answers.push(await utils.callTool("double", { x: i }).catch((e) => e.code));
return answers;"""
    reg.create(js("many", code, timeout_secs=60))
    found = output(reg, "many", {})
    assert found == [2 * i for i in range(MAX_CALLS_PER_RUN)] + [codes.TOOL_CALL_LIMIT.code] * 8


def test_a_call_that_needs_a_persons_approval_is_held_as_the_callers(reg: Registry):
    reg.require_call_approval("double")
    reg.create(js("caller", 'return await utils.callTool("double", { x: 3 }).catch((e) => [e.code, e.call]);'))
    code, call = output(reg, "caller", {}, principal=MODEL)
    assert code == codes.CALL_PENDING.code
    held = reg.call(call)
    assert (held.tool, held.arguments, held.caller.kind, held.caller.name) == ("double", {"x": 3}, "model", "agent-7")


def test_a_flood_on_the_channel_closes_it_and_the_run_ends(reg: Registry):
    code = """const fs = require("fs");
const to = Number(process.env.TOOLKILN_CHANNEL.split(",")[0]);
const chunk = Buffer.alloc(1 << 16, 120); // 64 KiB of "x", never a newline
let wrote = 0;
try {
  for (let i = 0; i < 160; i++) wrote += fs.writeSync(to, chunk); // 10 MiB
} catch (error) {
  return { stopped: error.code, wrote, next: await utils.callTool("double", { x: 1 }).catch((e) => e.message) };
}
return { stopped: null, wrote };"""
    reg.create(js("flood", code, timeout_secs=60))
    found = output(reg, "flood", {})
    assert found["stopped"] == "EPIPE" and found["wrote"] < 1 << 20  # the parent read at most about 128 KiB
    assert found["next"].startswith("toolkiln closed this run's channel")


DRAWS = {
    "name": "draws",
    "description": "Two uuids and a number",
    "parameters": {},
    "logic": {"steps": [{"op": "return", "value": "[uuid(), uuid(), random_int(1, 1000000)]"}]},
}


def test_a_seeded_run_draws_utils_uuid_as_compute_draws_uuid(reg: Registry):
    reg.create(js("ids", "return [utils.uuid(), utils.uuid(), utils.randomInt(1, 1000000)];"))
    with drawing_from(as_source(7)):
        seven = output(reg, "ids", {})
    with drawing_from(as_source(7)):
        assert output(reg, "ids", {}) == seven
    assert seven == plain_json(api.compile(DRAWS).run({}, random=7))  # compute's uuid() with the same seed
    assert output(reg, "ids", {}) != seven  # no seed: Node's own generator


def test_rest_execute_passes_its_seed_to_a_javascript_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TOOLKILN_STATE_DIR", str(tmp_path / "state"))
    app = create_app(Settings(registry=tmp_path / "served"))
    registry = app.state.services.registries.default
    registry.create(js("ids", "return [utils.uuid(), utils.randomInt(1, 1000000)];"))
    token = TokenStore(state_folder(registry.path)).create("runner", "run", "service")[0]
    with TestClient(app, headers={"Authorization": f"Bearer {token}"}) as http:
        runs = [http.post("/api/v1/tools/ids/execute", json={"seed": 42}).json()["result"]["output"] for _ in "ab"]
    assert runs[0] == runs[1] and len(runs[0][0]) == 36


def test_an_approved_held_call_calls_as_the_caller_who_made_it(reg: Registry):
    reg.create(js("outer", 'return await utils.callTool("guarded", { x: 2 }).catch((e) => [e.code, e.call]);'))
    reg.create(double() | {"name": "guarded"})
    reg.require_call_approval("outer")
    reg.require_call_approval("guarded")
    held = reg.invoke("outer", {}, principal=MODEL)
    assert held.pending
    ran = reg.decide_call(held.call, approve=True, by="user")  # a person approves the model's call
    assert ran.ok, ran.errors
    code, inner = ran.result["output"]
    assert code == codes.CALL_PENDING.code
    caller = reg.call(inner).caller
    assert (caller.kind, caller.name, caller.scope) == ("model", "agent-7", "run")  # the model's, not the approver's
