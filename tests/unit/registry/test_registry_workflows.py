"""Workflow tools in the registry, against an in-memory n8n (httpx.MockTransport)."""

from __future__ import annotations

import json
from decimal import Decimal

import httpx
import pytest
from unit.n8n.fake_n8n import BASE, KEY, FakeN8n, failure
from unit.registry.stores import stored_bytes, write_by_hand

from toolkiln import CompileError, Registry, RunError
from toolkiln.n8n.client import N8nClient
from toolkiln.registry import (
    CapabilityNotGranted,
    InvalidRequest,
    N8nNotConfigured,
    NotTrusted,
    ToolNotActive,
    WorkflowDeployFailed,
    WorkflowNameTaken,
    WorkflowNotDeployed,
    WorkflowRunFailed,
)

WF = """workflow order_total
description "Prices an order"
on webhook POST "/orders" respond with node
set priced { total = body.qty * body.price }
respond reply priced
"""


def definition(**changes):
    base = {
        "kind": "workflow",
        "name": "order_total",
        "description": "Prices an order",
        "parameters": {
            "qty": {"type": "integer", "description": "How many"},
            "price": {"type": "number", "default": 2.5},
        },
        "workflow": WF,
    }
    return {**base, **changes}


@pytest.fixture
def fake():
    return FakeN8n()


@pytest.fixture
def wreg(registry_location, fake):
    with Registry(registry_location, n8n=fake.client()) as registry:
        yield registry


def test_a_models_workflow_tool_waits_and_approval_deploys_it(wreg, fake):
    record = wreg.create(definition(), created_by="llm")
    assert (record.kind, record.status, record.deployment) == ("workflow", "pending_approval", None)
    assert fake.workflows == {}  # nothing reaches n8n before a person approves
    with pytest.raises(ToolNotActive):
        wreg.run("order_total", {"qty": 1})

    record = wreg.approve("order_total")
    assert record.status == "active"
    assert (
        record.deployment.workflow_id,
        record.deployment.method,
        record.deployment.path,
        record.deployment.version,
    ) == ("wf1", "POST", "orders", 1)
    assert fake.workflows["wf1"]["active"] is True and fake.workflows["wf1"]["name"] == "order_total"
    assert wreg.get("order_total").deployment == record.deployment  # recorded in the file


def test_run_checks_the_arguments_posts_them_and_returns_the_answer(wreg, fake):
    wreg.create(definition())  # a person's tool is active, so deployed at once
    reply = wreg.run("order_total", {"qty": 3})
    assert reply == {"workflow": "order_total", "body": {"qty": 3, "price": 2.5}, "query": {}}
    with pytest.raises(RunError) as info:
        wreg.run("order_total", {"qty": "many"})
    assert info.value.code == "E0508"
    assert wreg.get("order_total").usage_count == 2


def test_a_non_json_answer_is_returned_as_text(wreg, fake):
    fake.respond = lambda workflow, body, query: httpx.Response(200, text="done")
    wreg.create(definition())
    assert wreg.run("order_total", {"qty": 1}) == "done"


def test_a_failing_workflow_is_a_run_error_with_the_servers_message(wreg, fake):
    fake.respond = lambda workflow, body, query: httpx.Response(500, json={"message": "Error in workflow"})
    wreg.create(definition())
    with pytest.raises(WorkflowRunFailed) as info:
        wreg.run("order_total", {"qty": 1})
    assert (info.value.code, info.value.status, info.value.message) == ("R0404", 500, "Error in workflow")


def test_disable_deactivates_enable_and_updates_redeploy(wreg, fake):
    wreg.create(definition())
    wreg.disable("order_total")
    assert fake.workflows["wf1"]["active"] is False
    wreg.enable("order_total")
    assert fake.workflows["wf1"]["active"] is True

    record = wreg.update("order_total", {"workflow": WF.replace("body.price", "body.price * 2")})
    assert (record.version, record.deployment.version, record.deployment.workflow_id) == (2, 2, "wf1")
    assert "* 2" in json.dumps(fake.workflows["wf1"]["nodes"])
    assert list(fake.workflows) == ["wf1"]


def test_a_models_update_goes_back_to_approval_and_takes_the_workflow_down(wreg, fake):
    wreg.create(definition(), created_by="llm")
    wreg.approve("order_total")
    record = wreg.update("order_total", {"description": "Prices it", "parameters": None}, by="llm")
    assert record.status == "pending_approval" and fake.workflows["wf1"]["active"] is False
    with pytest.raises(ToolNotActive):
        wreg.run("order_total", {})


def test_delete_deletes_the_workflow_in_n8n(wreg, fake):
    wreg.create(definition())
    wreg.delete("order_total")
    assert fake.workflows == {} and "order_total" not in wreg


def test_n8n_failures_change_nothing(registry_location, fake):
    with Registry(registry_location, n8n=fake.client(api_key="wrong")) as reg:
        reg.create(definition(), created_by="llm")
        with pytest.raises(WorkflowDeployFailed) as info:
            reg.approve("order_total")
        assert info.value.status == 401 and info.value.code == "R0402"
        assert reg.get("order_total").status == "pending_approval"
        with pytest.raises(WorkflowDeployFailed):
            reg.create(definition(name="other"))
        assert "other" not in reg


def test_delete_when_n8n_is_unreachable_needs_force(registry_location, fake):
    with Registry(registry_location, n8n=fake.client()) as reg:
        reg.create(definition())

    def refuse(request):
        raise httpx.ConnectError("Connection refused")

    broken = N8nClient(BASE, KEY, transport=httpx.MockTransport(refuse), retries=0)
    with Registry(registry_location, n8n=broken) as reg:
        with pytest.raises(WorkflowDeployFailed, match="cannot connect"):
            reg.delete("order_total")
        assert "order_total" in reg
        reg.delete("order_total", force=True)
        assert "order_total" not in reg


def test_without_a_client_the_environment_names_the_server(registry_location, monkeypatch):
    monkeypatch.delenv("TOOLKILN_N8N_URL", raising=False)
    with Registry(registry_location) as reg, pytest.raises(N8nNotConfigured) as info:
        reg.create(definition())
    assert info.value.code == "R0401" and "TOOLKILN_N8N_URL" in info.value.hint
    assert "order_total" not in reg


def test_the_api_key_is_not_stored_and_the_url_is(wreg, fake):
    record = wreg.create(definition(n8n={"url": "http://127.0.0.1:5678/"}))
    text = stored_bytes(wreg, "order_total").decode()
    assert record.definition["n8n"] == {"url": "http://127.0.0.1:5678"}
    assert "fake-key" not in text and '"workflow_id": "wf1"' in text


def test_an_active_tool_without_a_deployment_for_its_version_does_not_run(wreg, fake):
    wreg.create(definition())
    data = json.loads(stored_bytes(wreg, "order_total"))
    del data["deployment"]
    write_by_hand(wreg, "order_total", json.dumps(data))
    wreg.refresh()
    with pytest.raises(NotTrusted):  # a hand edit: the registry no longer believes the file
        wreg.run("order_total", {"qty": 1})
    assert wreg.trust(["order_total"]) == {"order_total": [1]}
    with pytest.raises(WorkflowNotDeployed):
        wreg.run("order_total", {"qty": 1})
    fake.workflows.clear()  # also gone in n8n: deploy creates it again
    record = wreg.deploy("order_total")
    assert record.deployment.workflow_id in fake.workflows
    assert wreg.run("order_total", {"qty": 1})["body"] == {"qty": 1, "price": 2.5}
    assert wreg.audit_log("order_total")[-1].action == "deploy"


def test_deploy_is_for_active_workflow_tools(wreg, make_def):
    wreg.create(make_def())
    with pytest.raises(InvalidRequest):
        wreg.deploy("double")
    wreg.create(definition(), created_by="llm")
    with pytest.raises(ToolNotActive):
        wreg.deploy("order_total")


@pytest.mark.parametrize(
    ("changes", "code", "path"),
    [
        ({"workflow": WF.replace("body.qty", "bdy.qty")}, "E0702", "workflow"),
        ({"workflow": 'workflow m\ndescription "d"\non manual\nset s { v = 1 }\n'}, "E0707", "workflow"),
        ({"parameters": {"qty": {"type": "count"}}}, "E0111", "parameters.qty.type"),
        ({"n8n": {"url": "ftp://x"}}, "E0111", "n8n.url"),
        ({"n8n": {"url": "http://x", "apiKey": "k"}}, "E0106", "n8n"),
        ({"workflw": WF}, "E0109", "workflw"),
        ({"kind": "robot"}, "E0111", "kind"),
    ],
)
def test_bad_definitions_are_compile_errors_with_paths(wreg, fake, changes, code, path):
    with pytest.raises(CompileError) as info:
        wreg.create(definition(**changes))
    assert (code, path) in {(d.code, d.span.path) for d in info.value.diagnostics}
    assert fake.requests == [] and len(wreg) == 0


def test_a_workflow_diagnostic_points_into_the_workflow_text(wreg):
    with pytest.raises(CompileError) as info:
        wreg.create(definition(workflow=WF.replace("body.qty", "bdy.qty")))
    where = info.value.diagnostics[0].to_dict()
    assert (where["path"], where["line"], where["column"]) == ("workflow", 4, 22)


def test_exports_include_workflow_tools_with_their_parameters(wreg):
    wreg.create(definition())
    schema = {
        "type": "object",
        "properties": {
            "qty": {"type": "integer", "description": "How many"},
            "price": {"type": ["number", "null"], "default": 2.5},
        },
        "required": ["qty"],
        "additionalProperties": False,
    }
    assert wreg.definitions("openai") == [
        {
            "type": "function",
            "function": {"name": "order_total", "description": "Prices an order", "parameters": schema},
        }
    ]
    assert wreg.definitions("anthropic")[0]["input_schema"] == schema
    mcp = wreg.definitions("mcp")[0]
    assert mcp["inputSchema"] == schema and mcp["annotations"]["readOnlyHint"] is False
    assert wreg.definitions("gemini")[0]["parameters"]["properties"]["qty"] == {
        "type": "INTEGER",
        "description": "How many",
    }


def test_compute_tools_cannot_call_workflow_tools_or_become_one(wreg, make_def):
    wreg.create(definition())
    caller = make_def("caller")
    caller["logic"]["steps"].insert(0, {"op": "call", "tool": "order_total", "args": {"qty": "1"}, "output": "r"})
    with pytest.raises(CompileError) as info:
        wreg.create(caller)
    assert info.value.diagnostics[0].code == "E0211"
    wreg.create(make_def())
    with pytest.raises(CompileError, match="cannot change its kind"):
        wreg.update("double", {"definition": definition(name="double")})


def test_a_workflow_tool_survives_a_reload_and_its_file_is_checked(registry_location, fake):
    with Registry(registry_location, n8n=fake.client()) as reg:
        reg.create(definition(parameters={"qty": {"type": "integer"}, "price": {"type": "number", "default": 1.10}}))
    with Registry(registry_location, n8n=fake.client(), trust_check_cache=False) as reg:
        assert reg.problems == []
        assert reg.run("order_total", {"qty": 2})["body"] == {"qty": 2, "price": 1.1}
        assert reg.get("order_total").parameters["properties"]["price"]["default"] == Decimal("1.10")


def test_a_model_can_create_a_workflow_tool_through_the_meta_tool(wreg, fake):
    reply = wreg.call_meta("create_compute_tool", {"definition": definition()})
    assert reply["ok"] is True and reply["tool"]["status"] == "pending_approval"
    tested = wreg.call_meta("test_custom_tool", {"definition": definition(name="other"), "args": {"qty": 1}})
    assert tested["ok"] is True and "not run" in tested["message"] and fake.requests == []


def test_the_command_line_shows_and_deploys_workflow_tools(wreg, fake, capsys, monkeypatch):
    from toolkiln.cli import main

    wreg.create(definition())
    assert main(["tools", "show", "order_total", "--registry", wreg.location]) == 0
    out = capsys.readouterr().out
    assert "webhook POST /orders on http://127.0.0.1:5678" in out and 'on webhook POST "/orders"' in out
    monkeypatch.delenv("TOOLKILN_N8N_URL", raising=False)
    assert main(["tools", "deploy", "order_total", "--registry", wreg.location]) == 1
    assert "error[R0401]: no n8n URL" in capsys.readouterr().err


def workflow_tool_args(**changes):
    """create_workflow_tool's arguments: a workflow tool definition's fields, without `kind`."""
    return {key: value for key, value in definition(**changes).items() if key != "kind"}


def test_create_workflow_tool_waits_for_approval_then_deploys_and_runs(wreg, fake):
    reply = wreg.call_meta("create_workflow_tool", workflow_tool_args(riskLevel="medium"))
    assert reply["ok"] is True, reply
    assert reply["tool"]["status"] == "pending_approval" and "approval deploys it to n8n" in reply["message"]
    assert reply["tool"]["parameters"]["required"] == ["qty"]
    assert fake.requests == []  # nothing reaches n8n before a person approves
    assert wreg.get("order_total").kind == "workflow" and wreg.get("order_total").risk_level == "medium"

    record = wreg.approve("order_total")
    assert record.status == "active" and record.deployment.path == "orders"
    assert fake.workflows[record.deployment.workflow_id]["active"] is True
    assert wreg.run("order_total", {"qty": 2})["body"] == {"qty": 2, "price": 2.5}


def test_create_workflow_tool_takes_parameters_as_json_text_and_updates(wreg, fake):
    args = workflow_tool_args(parameters='{"qty": {"type": "integer"}}')
    assert wreg.call_meta("create_workflow_tool", args)["ok"] is True
    again = wreg.call_meta("create_workflow_tool", args)
    assert again["ok"] is False and "update: true" in again["errors"][0]["hint"]
    updated = wreg.call_meta(
        "create_workflow_tool", {**args, "workflow": WF.replace("body.price", "2"), "update": True}
    )
    assert updated["ok"] is True and updated["tool"]["version"] == 2 and updated["tool"]["status"] == "pending_approval"


def test_create_workflow_tool_reports_every_problem_at_its_argument(wreg, fake):
    bad = WF.replace("body.qty * body.price", "body.qty * ")
    reply = wreg.call_meta(
        "create_workflow_tool",
        workflow_tool_args(workflow=bad, parameters={"qty": {"type": "count"}}, riskLevel="extreme"),
    )
    assert reply["ok"] is False
    errors = {e["path"]: e for e in reply["errors"]}
    assert set(errors) >= {"workflow", "parameters.qty.type", "riskLevel"}, errors
    syntax = errors["workflow"]
    assert (syntax["code"], syntax["line"]) == ("E0101", 4) and syntax["column"] and syntax["hint"]
    assert all(e["code"] and e["hint"] for e in reply["errors"])
    assert "order_total" not in wreg and fake.requests == []


def test_create_workflow_tool_needs_a_webhook_trigger(wreg):
    manual = 'workflow order_total\ndescription "d"\non manual\nset priced { total = 1 }\n'
    reply = wreg.call_meta("create_workflow_tool", workflow_tool_args(workflow=manual))
    assert [(e["code"], e["path"]) for e in reply["errors"]] == [("E0707", "workflow")]


def test_the_example_the_meta_tool_shows_a_model_is_a_working_workflow_tool(wreg, fake):
    from toolkiln.registry import meta

    (spec,) = [d for d in wreg.meta_definitions("anthropic") if d["name"] == "create_workflow_tool"]
    assert meta._WORKFLOW_EXAMPLE in spec["description"] and "pending_approval" in spec["description"]
    assert meta._WORKFLOW_EXAMPLE in spec["input_schema"]["properties"]["workflow"]["description"]
    assert spec["input_schema"]["required"] == ["name", "description", "workflow"]
    reply = wreg.call_meta(
        "create_workflow_tool",
        {
            "name": "order_total",
            "description": "Prices an order",
            "workflow": meta._WORKFLOW_EXAMPLE,
            "parameters": {"qty": {"type": "integer"}, "price": {"type": "number"}},
        },
    )
    assert reply["ok"] is True, reply


def users_workflow(fake, name="order_total", path="users-orders"):
    """A workflow the user deployed themselves (as `toolkiln n8n deploy` would): not the tool's."""
    hook = {"name": "Webhook", "type": "n8n-nodes-base.webhook", "parameters": {"httpMethod": "POST", "path": path}}
    with fake.client() as client:
        return client.create_workflow({"name": name, "nodes": [hook], "connections": {}})["id"]


def changes_to(fake, workflow_id):
    """The requests that changed the workflow `workflow_id` (anything but a GET)."""
    return [r for r in fake.requests if r.method != "GET" and f"/workflows/{workflow_id}" in r.url.path]


def test_a_workflow_of_the_same_name_that_the_tool_did_not_create_is_never_taken_over(wreg, fake):
    theirs = users_workflow(fake)
    before = json.loads(json.dumps(fake.workflows[theirs]))
    with pytest.raises(WorkflowNameTaken) as info:
        wreg.create(definition())
    assert info.value.code == "R0405" and theirs in info.value.message and "rename" in info.value.hint
    assert fake.workflows == {theirs: before} and changes_to(fake, theirs) == []
    assert "order_total" not in wreg


def test_a_tool_updates_and_deletes_only_the_workflow_it_created(wreg, fake):
    mine = wreg.create(definition()).deployment.workflow_id
    theirs = users_workflow(fake)  # n8n allows a second workflow of the name
    with pytest.raises(WorkflowNameTaken):
        wreg.update("order_total", {"workflow": WF.replace("body.price", "body.price * 2")})
    assert wreg.get("order_total").version == 1 and changes_to(fake, theirs) == []

    wreg.disable("order_total")
    wreg.delete("order_total")
    assert (
        list(fake.workflows) == [theirs] and fake.workflows[theirs]["nodes"][0]["parameters"]["path"] == "users-orders"
    )
    assert changes_to(fake, theirs) == [] and mine != theirs


def test_a_tool_whose_workflow_was_deleted_in_n8n_creates_it_again(wreg, fake):
    first = wreg.create(definition()).deployment.workflow_id
    del fake.workflows[first]
    second = wreg.deploy("order_total").deployment.workflow_id
    assert second != first and fake.workflows[second]["active"] is True
    assert wreg.run("order_total", {"qty": 1})["body"] == {"qty": 1, "price": 2.5}


def test_a_run_that_n8n_recorded_as_failed_is_a_run_error_even_after_a_200(wreg, fake):
    wreg.create(definition())
    fake.respond = lambda workflow, body, query: httpx.Response(200)  # the respond step was never reached
    fake.outcome = failure("priced", "Cannot read properties of undefined")
    with pytest.raises(WorkflowRunFailed) as info:
        wreg.run("order_total", {"qty": 1})
    assert info.value.code == "R0404" and "failed in node 'priced': Cannot read properties" in info.value.message


def test_running_needs_no_api_key(registry_location, fake):
    with Registry(registry_location, n8n=fake.client()) as reg:
        reg.create(definition())
    with Registry(registry_location, n8n=fake.client(api_key=None)) as reg:
        assert reg.run("order_total", {"qty": 1})["body"] == {"qty": 1, "price": 2.5}


def test_a_definition_naming_another_n8n_is_refused_and_the_key_goes_nowhere(tmp_path, fake, monkeypatch):
    """The review's SSRF: deploy sent X-N8N-API-KEY to any `n8n.url` a definition named."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    seen: list[str] = []

    class Attacker(BaseHTTPRequestHandler):
        def do_POST(self):
            seen.append(self.headers.get("X-N8N-API-KEY", ""))
            self.send_response(200)
            self.end_headers()

        do_GET = do_PUT = do_PATCH = do_POST

    attacker = ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    Thread(target=attacker.serve_forever, daemon=True).start()
    elsewhere = f"http://127.0.0.1:{attacker.server_address[1]}"
    try:
        monkeypatch.setenv("TOOLKILN_N8N_URL", BASE)
        monkeypatch.setenv("TOOLKILN_N8N_API_KEY", KEY)
        for client in (fake.client(), None):  # the registry's own client, or the environment's
            with Registry(tmp_path / f"reg{client is None}", n8n=client) as reg:
                with pytest.raises(CapabilityNotGranted) as refused:
                    reg.create(definition(n8n={"url": elsewhere}))
                assert refused.value.code == "R0700" and BASE in refused.value.message
                assert "order_total" not in reg
    finally:
        attacker.shutdown()
    assert seen == []
    with Registry(tmp_path / "own", n8n=fake.client()) as reg:  # naming its own server is fine
        assert reg.create(definition(n8n={"url": BASE + "/"})).deployment.url == BASE
