"""An in-memory n8n behind httpx.MockTransport: the public API's workflow calls and webhooks.

Enough of n8n for the CLI and the registry's workflow tools: workflows by id (list with the
`name` filter, get, create, update, activate, deactivate, delete), the X-N8N-API-KEY check
(401), and production webhooks of active workflows, which answer with `respond(workflow, body)`
(default: echo the posted JSON with the workflow's name). Each webhook call records an execution
(`outcome(workflow, body)`: its status and error, default success; None saves none), listed
newest first by GET /api/v1/executions?workflowId=...
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx

from toolkiln.n8n.client import N8nClient

BASE = "http://127.0.0.1:5678"
KEY = "fake-key"


def success(workflow: dict[str, Any], body: Any) -> dict[str, Any] | None:
    return {"status": "success"}


def failure(node: str, message: str, description: str | None = None) -> Callable[..., dict[str, Any]]:
    """An outcome: the run failed in `node` with n8n's error `message` (as a Code node's throw)."""
    error = {"message": message, "description": description, "node": {"name": node}}
    return lambda workflow, body: {"status": "error", "error": error, "lastNodeExecuted": node}


def echo(workflow: dict[str, Any], body: Any, query: dict[str, str]) -> httpx.Response:
    return httpx.Response(200, json={"workflow": workflow["name"], "body": body, "query": query})


class FakeN8n:
    def __init__(self, respond: Callable[..., httpx.Response] = echo) -> None:
        self.workflows: dict[str, dict[str, Any]] = {}
        self.respond = respond
        self.outcome: Callable[..., dict[str, Any] | None] = success
        self.executions: list[dict[str, Any]] = []
        self.requests: list[httpx.Request] = []
        self._next = 0

    def client(self, base_url: str = BASE, api_key: str | None = KEY, **options: Any) -> N8nClient:
        return N8nClient(base_url, api_key, transport=httpx.MockTransport(self), **options)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        parts = request.url.path.strip("/").split("/")
        if parts[0] == "webhook":
            return self._webhook(request, "/".join(parts[1:]))
        if request.headers.get("X-N8N-API-KEY") != KEY:
            return httpx.Response(401, json={"message": "unauthorized"})
        body = json.loads(request.content) if request.content else None
        match request.method, parts[2:]:
            case "GET", ["workflows"]:
                name = request.url.params.get("name")
                return httpx.Response(
                    200,
                    json={
                        "data": [w for w in self.workflows.values() if name is None or w["name"] == name],
                        "nextCursor": None,
                    },
                )
            case "GET", ["executions"]:
                return httpx.Response(200, json={"data": self._executions(request.url.params), "nextCursor": None})
            case "POST", ["workflows"]:
                self._next += 1
                workflow_id = f"wf{self._next}"
                self.workflows[workflow_id] = {**body, "id": workflow_id, "active": False}
                return httpx.Response(200, json=self.workflows[workflow_id])
        workflow = self.workflows.get(parts[3]) if len(parts) > 3 else None
        if workflow is None:
            return httpx.Response(404, json={"message": "Not Found"})
        match request.method, parts[4:]:
            case "GET", []:
                return httpx.Response(200, json=workflow)
            case "PUT", []:
                workflow.update(body)
            case "POST", ["activate"]:
                workflow["active"] = True
            case "POST", ["deactivate"]:
                workflow["active"] = False
            case "DELETE", []:
                del self.workflows[workflow["id"]]
            case _:
                return httpx.Response(405, json={"message": "method not allowed"})
        return httpx.Response(200, json=workflow)

    def _webhook(self, request: httpx.Request, path: str) -> httpx.Response:
        for workflow in self.workflows.values():
            for node in workflow["nodes"]:
                parameters = node.get("parameters", {})
                if (
                    workflow["active"]
                    and node["type"] == "n8n-nodes-base.webhook"
                    and parameters.get("path") == path
                    and parameters.get("httpMethod", "GET") == request.method
                ):
                    body = json.loads(request.content) if request.content else None
                    self._execute(workflow, body)
                    return self.respond(workflow, body, dict(request.url.params))
        return httpx.Response(
            404,
            json={
                "message": f'The requested webhook "{request.method} {path}" is not registered.',
                "hint": "activate the workflow",
            },
        )

    def _execute(self, workflow: dict[str, Any], body: Any) -> None:
        outcome = self.outcome(workflow, body)
        if outcome is None:
            return
        result = {key: outcome[key] for key in ("error", "lastNodeExecuted") if key in outcome}
        self.executions.append(
            {
                "id": str(len(self.executions) + 1),
                "workflowId": workflow["id"],
                "status": outcome["status"],
                "mode": "webhook",
                "data": {"resultData": result},
            }
        )

    def _executions(self, params: httpx.QueryParams) -> list[dict[str, Any]]:
        found = [e for e in reversed(self.executions) if e["workflowId"] == params.get("workflowId", e["workflowId"])]
        found = found[: int(params.get("limit", 100))]
        if params.get("includeData") != "true":
            found = [{k: v for k, v in e.items() if k != "data"} for e in found]
        return found
