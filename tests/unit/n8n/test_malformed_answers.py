"""n8n answers that are not what its public API documents (an n8n behind a proxy, another
server at that URL, a future version) are coded errors where they are read, never a KeyError
or AttributeError later: deploy, the registry's workflow tools and the reading of a failed run."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from unit.n8n.fake_n8n import BASE, KEY, FakeN8n

from toolkiln import Registry
from toolkiln.n8n.client import N8nClient
from toolkiln.n8n.deploy import Webhook, deploy, deploy_owned, run_webhook
from toolkiln.n8n.errors import ExecutionFailed, N8nResponseError
from toolkiln.registry import WorkflowDeployFailed

WORKFLOW = {
    "name": "hook",
    "nodes": [
        {
            "name": "Webhook",
            "type": "n8n-nodes-base.webhook",
            "typeVersion": 2,
            "position": [0, 0],
            "parameters": {"path": "p", "httpMethod": "POST"},
        }
    ],
    "connections": {},
}
TOOL = {
    "kind": "workflow",
    "name": "hook",
    "description": "A hook",
    "parameters": {"qty": {"type": "integer"}},
    "workflow": 'workflow hook\ndescription "A hook"\non webhook POST "/p"\n',
}


def altered(fake: FakeN8n, change: Callable[[httpx.Request, Any], Any]) -> N8nClient:
    """A client of `fake` whose JSON answers pass through `change(request, answer)` first."""

    def handler(request: httpx.Request) -> httpx.Response:
        answer = fake(request)
        return httpx.Response(answer.status_code, json=change(request, json.loads(answer.content)))

    return N8nClient(BASE, KEY, transport=httpx.MockTransport(handler))


def without_id(request: httpx.Request, answer: Any) -> Any:
    if request.method == "POST" and isinstance(answer, dict):
        answer.pop("id", None)
    return answer


def test_deploy_of_an_answer_without_id_is_a_response_error() -> None:
    """It was a KeyError: 500 from POST /api/v1/workflows/deploy (issue 24)."""
    with pytest.raises(N8nResponseError, match="no `id`"):
        deploy(altered(FakeN8n(), without_id), WORKFLOW, activate=True)
    with pytest.raises(N8nResponseError, match="no `id`"):
        deploy_owned(altered(FakeN8n(), without_id), WORKFLOW, owned_id=None, activate=True)


def test_a_list_item_without_id_stops_deploy_with_a_response_error() -> None:
    fake = FakeN8n()
    fake.workflows["x"] = {**WORKFLOW, "id": "x", "active": False}

    def list_without_ids(request: httpx.Request, answer: Any) -> Any:
        for item in answer.get("data", []) if isinstance(answer, dict) else []:
            item.pop("id")
        return answer

    with pytest.raises(N8nResponseError, match="no `id`"):
        deploy(altered(fake, list_without_ids), WORKFLOW)


def test_a_workflow_tool_whose_deploy_answer_has_no_id_is_r0402(tmp_path) -> None:
    fake = FakeN8n()
    with Registry(tmp_path / "reg", n8n=altered(fake, without_id)) as registry:
        with pytest.raises(WorkflowDeployFailed, match="no `id`") as info:
            registry.create(TOOL)
        assert info.value.code == "R0402"
        assert registry.list() == []  # nothing recorded


@pytest.mark.parametrize(
    "data",
    [
        "crashed",
        ["not", "an", "object"],
        {"resultData": "text"},
        {"resultData": {"error": "Out of memory"}},
        {"resultData": {"error": ["x"]}},
        None,
    ],
)
def test_a_failed_execution_of_any_shape_is_execution_failed(data: Any) -> None:
    fake = FakeN8n()
    client = fake.client()
    deployed = deploy(client, WORKFLOW, activate=True)
    fake.outcome = lambda workflow, body: {"status": "error"}

    def odd_execution(request: httpx.Request, answer: Any) -> Any:
        for item in answer.get("data", []) if request.url.path.endswith("/executions") else []:
            item["data"] = data
        return answer

    with pytest.raises(ExecutionFailed, match="the workflow failed"):
        run_webhook(altered(fake, odd_execution), Webhook("POST", "p"), deployed.id, {"a": 1}, wait=0.2)
