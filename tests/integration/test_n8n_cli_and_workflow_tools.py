"""`toolkiln n8n deploy/run` and the registry's workflow tools against a real n8n 1.123.50.

Uses the session's n8n server (conftest.py) (install, start, API key, cleanup;
skipped with the reason only when n8n cannot be installed).
"""

from __future__ import annotations

import json
import uuid

import pytest

from toolkiln.cli import main
from toolkiln.registry import Registry, ToolNotActive, WorkflowRunFailed


def source(name: str, path: str) -> str:
    return f"""workflow {name}
description "Prices an order posted as JSON"
on webhook POST "/{path}" respond with node
set priced {{ total = body.qty * body.price, customer = upper(body.customer) }}
respond reply priced
"""


def test_cli_deploys_redeploys_and_runs_a_workflow(n8n, tmp_path, capsys):
    tag = uuid.uuid4().hex[:8]
    name, path = f"cli_total_{tag}", f"cli-total-{tag}"
    file = tmp_path / "total.wf"
    file.write_text(source(name, path))
    options = ["--url", n8n.server.url, "--api-key", n8n.key]

    assert main(["n8n", "deploy", str(file), "--activate", "--json", *options]) == 0
    first = json.loads(capsys.readouterr().out)
    n8n.created.append(first["id"])
    assert first["active"] is True and first["created"] is True
    assert first["webhooks"] == [{"method": "POST", "path": path, "url": f"{n8n.server.url}/webhook/{path}"}]

    assert main(["n8n", "run", name, "--data", '{"qty": 3, "price": 4, "customer": "ada"}', *options]) == 0
    assert json.loads(capsys.readouterr().out) == {"total": 12, "customer": "ADA"}

    file.write_text(source(name, path).replace("body.qty * body.price", "body.qty * body.price + 1"))
    assert main(["n8n", "deploy", str(file), "--json", *options]) == 0
    second = json.loads(capsys.readouterr().out)
    assert (second["id"], second["created"], second["active"]) == (first["id"], False, True)
    assert main(["n8n", "run", name, "--data", '{"qty": 3, "price": 4, "customer": "bo"}', *options]) == 0
    assert json.loads(capsys.readouterr().out) == {"total": 13, "customer": "BO"}

    assert main(["n8n", "list", "--json", *options]) == 0
    assert [w["id"] for w in json.loads(capsys.readouterr().out) if w["name"] == name] == [first["id"]]


def test_cli_errors_from_the_real_server(n8n, capsys):
    assert main(["n8n", "run", "no_such_workflow", "--url", n8n.server.url, "--api-key", n8n.key]) == 1
    assert "no workflow named 'no_such_workflow'" in capsys.readouterr().err
    assert main(["n8n", "list", "--url", n8n.server.url, "--api-key", "wrong"]) == 1
    assert "unauthorized (HTTP 401" in capsys.readouterr().err


def test_a_workflow_tool_is_approved_deployed_and_run(n8n, tmp_path):
    tag = uuid.uuid4().hex[:8]
    definition = {
        "kind": "workflow",
        "name": "order_total",
        "description": "Prices an order",
        "parameters": {
            "qty": {"type": "integer"},
            "price": {"type": "number"},
            "customer": {"type": "string", "default": "anon"},
        },
        "workflow": source(f"tool_total_{tag}", f"tool-total-{tag}"),
    }
    with Registry(tmp_path / "reg", n8n=n8n.client) as reg:
        assert reg.create(definition, created_by="llm").status == "pending_approval"
        with pytest.raises(ToolNotActive):
            reg.run("order_total", {"qty": 1, "price": 1})

        record = reg.approve("order_total")
        n8n.created.append(record.deployment.workflow_id)
        assert n8n.client.get_workflow(record.deployment.workflow_id)["active"] is True
        assert reg.run("order_total", {"qty": 2, "price": 2.25}) == {"total": 4.5, "customer": "ANON"}

        reg.disable("order_total")
        assert n8n.client.get_workflow(record.deployment.workflow_id)["active"] is False
        reg.enable("order_total")
        n8n.client.deactivate_workflow(record.deployment.workflow_id)  # taken down behind its back
        with pytest.raises(WorkflowRunFailed) as info:
            reg.run("order_total", {"qty": 1, "price": 1})
        assert info.value.status == 404 and "not registered" in info.value.message
        reg.deploy("order_total")
        assert reg.run("order_total", {"qty": 1, "price": 1, "customer": "cy"}) == {"total": 1, "customer": "CY"}

        reg.delete("order_total")
        assert record.deployment.workflow_id not in {w["id"] for w in n8n.client.list_workflows()}
