"""The n8n client against a real n8n on 127.0.0.1 (the session's server, conftest.py).

The session fixture (conftest.py) installs n8n with scripts/n8n-install.sh (cached; CI runs the
script before the tests), starts it with a throwaway user folder, creates an API key through
the REST API, and at the end deletes what the tests deployed and stops n8n with SIGTERM. The
workflows in fixtures/ are the ones captured from a real n8n; each test gives its copy a
unique name and webhook path (n8n 1.x lets two workflows share a path, and deleting one
unregisters the other).
"""

from __future__ import annotations

import copy
import re
import uuid

import pytest
from harness import load, wait_for, webhook_removed
from n8n_server import free_port

from toolkiln.n8n import errors
from toolkiln.n8n.client import N8nClient


def executions(client: N8nClient, workflow_id: str, count: int) -> list[dict]:
    def probe():
        runs = client.list_executions(workflow_id=workflow_id, include_data=True)
        return runs if len(runs) >= count and all(r.get("finished") for r in runs) else None

    return wait_for(f"{count} finished execution(s) of workflow {workflow_id}", probe)


def test_webhook_set_if_respond_both_branches_and_executions(n8n):
    workflow, path = n8n.deploy("webhook_set_if_respond.json", activate=True)
    assert workflow["active"] is True

    big = n8n.client.trigger_webhook(path, {"n": 7})
    assert (big.status, big.data) == (200, {"branch": "big", "doubled": 14, "label": "n=7"})

    small = n8n.client.trigger_webhook(path, {"n": 2})
    assert (small.status, small.data) == (202, {"doubled": 4, "label": "n=2"})

    runs = executions(n8n.client, workflow["id"], 2)
    assert len(runs) == 2
    assert {run["status"] for run in runs} == {"success"}
    assert {run["workflowId"] for run in runs} == {workflow["id"]}
    one = n8n.client.get_execution(runs[0]["id"], include_data=True)
    assert one["id"] == runs[0]["id"] and "resultData" in one["data"]
    assert n8n.client.list_executions(workflow_id=workflow["id"], limit=1)[0]["id"] == runs[0]["id"]


def test_webhook_code_http_last_node(n8n):
    _, path = n8n.deploy("webhook_code_http_lastnode.json", activate=True)
    reply = n8n.client.trigger_webhook(path, {"n": 3})
    assert (reply.status, reply.data) == (200, {"squared": 9, "health": "ok"})


def test_schedule_runs_on_its_own_until_deactivated(n8n):
    workflow, _ = n8n.deploy("schedule_noop.json", activate=True)
    runs = executions(n8n.client, workflow["id"], 1)  # the schedule fires every 5 s
    assert runs[0]["status"] == "success" and runs[0]["mode"] == "trigger"
    assert n8n.client.deactivate_workflow(workflow["id"])["active"] is False


def test_an_editor_export_deploys_and_a_manual_workflow_cannot_be_activated(n8n):
    export = load("manual_set_if_cli.json")
    assert {"id", "active", "pinData", "tags"} <= export.keys()  # fields the public API refuses
    workflow, _ = n8n.deploy("manual_set_if_cli.json")
    assert workflow["id"] != export["id"] and len(workflow["nodes"]) == 5
    with pytest.raises(errors.N8nBadRequest) as info:
        n8n.client.activate_workflow(workflow["id"])
    assert info.value.status == 400
    # n8n 1.x: "... has no node to start the workflow"; 2.x: "... because it has no trigger node"
    assert re.search("has no node to start the workflow|has no trigger node", info.value.message)


def test_update_get_list_deactivate_delete(n8n):
    workflow, path = n8n.deploy("webhook_set_if_respond.json", activate=True)
    changed = copy.deepcopy(workflow)
    changed["name"] = workflow["name"] + " renamed"
    assert n8n.client.update_workflow(workflow["id"], changed)["name"] == changed["name"]
    assert n8n.client.get_workflow(workflow["id"])["name"] == changed["name"]
    listed = {w["id"]: w for w in n8n.client.list_workflows()}
    assert workflow["id"] in listed
    assert workflow["id"] in {w["id"] for w in n8n.client.list_workflows(active=True)}

    n8n.client.deactivate_workflow(workflow["id"])
    wait_for("the deactivated workflow's webhook to be removed", lambda: webhook_removed(n8n.client, path))
    n8n.client.delete_workflow(workflow["id"])
    with pytest.raises(errors.N8nNotFound):
        n8n.client.get_workflow(workflow["id"])


def test_server_errors_become_toolkiln_errors(n8n):
    with pytest.raises(errors.N8nNotFound) as info:
        n8n.client.get_workflow("doesNotExist0001")
    assert info.value.status == 404

    with N8nClient(n8n.server.url, "not-a-key") as wrong, pytest.raises(errors.N8nUnauthorized) as info:
        wrong.list_workflows()
    assert info.value.status == 401 and info.value.message.lower() == "unauthorized"  # 2.x: "Unauthorized"
    assert "not-a-key" not in str(info.value)

    with pytest.raises(errors.WebhookNotRegistered) as info:
        n8n.client.trigger_webhook(f"nothing-here-{uuid.uuid4().hex[:8]}", {})
    assert "is not registered" in info.value.message and info.value.hint  # n8n's own hint

    with pytest.raises(errors.N8nBadRequest) as info:
        n8n.client.create_workflow({"name": "bad", "nodes": [], "connections": {}, "settings": {"noSuchSetting": 1}})
    # n8n 1.x: "... must NOT have additional properties"; 2.x: "... Unrecognized key(s) in object: 'noSuchSetting'"
    assert re.fullmatch(
        r"request/body/settings (must NOT have additional properties|Unrecognized key\(s\) in object: 'noSuchSetting')",
        info.value.message,
    )


def test_test_url_without_a_listener_is_not_registered(n8n):
    _, path = n8n.deploy("webhook_set_if_respond.json", activate=True)
    assert n8n.client.trigger_webhook(path, {"n": 9}).status == 200
    with pytest.raises(errors.WebhookNotRegistered) as info:
        n8n.client.trigger_webhook(path, {"n": 9}, test=True)
    assert "/webhook-test/" in info.value.url


def test_unknown_node_type_fails_at_activation_with_the_servers_message(n8n):
    workflow = load("webhook_set_if_respond.json")
    workflow["nodes"][1]["type"] = "n8n-nodes-base.noSuchNode"
    created = n8n.client.create_workflow(dict(workflow, name=f"unknown {uuid.uuid4().hex[:8]}"))
    n8n.created.append(created["id"])
    with pytest.raises(errors.N8nBadRequest) as info:
        n8n.client.activate_workflow(created["id"])
    assert info.value.message == "Unrecognized node type: n8n-nodes-base.noSuchNode"


def test_unreachable_server_is_a_connection_error():
    down = N8nClient(f"http://127.0.0.1:{free_port()}", "k", retries=1, backoff=0.01)
    with down, pytest.raises(errors.N8nConnectionError, match="2 attempt"):
        down.list_workflows()
