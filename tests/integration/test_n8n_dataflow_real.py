"""The data-flow check's errors against the real n8n (issue 26, item 4): what toolkiln calls an
error (E0734, E0735) fails the execution on n8n, and the fix the hint gives runs."""

from __future__ import annotations

import json
import uuid

from harness import wait_for

from toolkiln.workflow import check_workflow


def node(name: str, type_: str, version: float, x: int, **parameters) -> dict:
    return {"name": name, "type": type_, "typeVersion": version, "position": [x, 0], "parameters": parameters}


def side_branches(expression: str) -> dict:
    """Webhook -> Side (sets x) and Webhook -> Read (reads `expression`): two branches."""
    path = f"dataflow-{uuid.uuid4().hex[:8]}"
    webhook = node("Webhook", "n8n-nodes-base.webhook", 2, 0, httpMethod="POST", path=path, options={})
    webhook["webhookId"] = str(uuid.uuid4())

    def set_node(name: str, field: str, value: str, x: int) -> dict:
        assignment = {"id": field, "name": field, "value": value, "type": "string"}
        return node(name, "n8n-nodes-base.set", 3.4, x, assignments={"assignments": [assignment]}, options={})

    targets = [{"node": name, "type": "main", "index": 0} for name in ("Side", "Read")]
    return {
        "name": f"data flow {path}",
        "nodes": [webhook, set_node("Side", "x", "1", 200), set_node("Read", "y", expression, 400)],
        "connections": {"Webhook": {"main": [targets]}},
        "settings": {"executionOrder": "v1"},
    }


def run(n8n, data: dict) -> dict:
    """Create, activate and call the workflow; its finished execution, with data."""
    created = n8n.client.create_workflow(data)
    n8n.created.append(created["id"])
    n8n.client.activate_workflow(created["id"])
    path = data["nodes"][0]["parameters"]["path"]
    wait_for("the webhook", lambda: n8n.client.trigger_webhook(path, {"a": 1}, raise_for_status=False).status == 200)

    def finished() -> dict | None:
        done = [
            e
            for e in n8n.client.list_executions(workflow_id=created["id"], include_data=True)
            if e.get("finished") or e.get("status") in ("success", "error")
        ]
        return done[0] if done else None

    return wait_for("the execution", finished)


def test_what_toolkiln_calls_an_error_fails_on_n8n_and_the_hints_fix_runs(n8n):
    cases = [  # the expression, what toolkiln says, how the run ends, what n8n says
        ("={{ $('Side').item.json.x }}", "E0735", "error", "No path back to referenced node"),
        ("={{ $('Sidee').first().json.x }}", "E0734", "error", "Referenced node"),
        ("={{ $('Side').first().json.x }}", None, "success", ""),
    ]
    for expression, code, status, said in cases:
        data = side_branches(expression)
        found = {d.code for d in check_workflow(data)} & {"E0734", "E0735"}
        assert found == ({code} if code else set())
        execution = json.dumps(run(n8n, data))
        assert json.loads(execution)["status"] == status and said in execution, (expression, execution[:3000])
