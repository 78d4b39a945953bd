"""Deploying by name: create a workflow, or update the one of the same name, and find its webhooks.

    with N8nClient.from_env() as n8n:
        deployed = deploy(n8n, workflow_json, activate=True)     # idempotent: run it again freely
        deployed.id, deployed.webhooks                            # [Webhook("POST", "orders")]
        reply = call_webhook(n8n, first_webhook(find_workflow(n8n, "order_total")), {"qty": 2})

A workflow's name is its identity here (n8n itself allows several workflows of one name; two
are refused as ambiguous rather than guessed between). Used by `toolkiln n8n` and by the
registry's workflow tools.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolkiln.backends.n8n.client import N8nClient, WebhookResponse
from toolkiln.backends.n8n.errors import (
    AmbiguousWorkflow,
    N8nConfigError,
    N8nNotFound,
    NoWebhook,
    UnknownWorkflow,
)

WEBHOOK_TYPE = "n8n-nodes-base.webhook"


@dataclass(frozen=True)
class Webhook:
    """A webhook trigger of a workflow: its HTTP method and path (as n8n's URL has it)."""

    method: str
    path: str


@dataclass(frozen=True)
class Deployed:
    """A workflow as deployed: its n8n id and name, whether it is active, whether this deploy
    created it (else it updated the workflow of the same name), and its webhook triggers."""

    id: str
    name: str
    active: bool
    created: bool
    webhooks: tuple[Webhook, ...]


def webhooks_of(workflow: Mapping[str, Any]) -> tuple[Webhook, ...]:
    """The enabled webhook triggers of an n8n workflow (n8n's default method is GET)."""
    found = []
    for node in workflow.get("nodes") or ():
        if not isinstance(node, Mapping) or node.get("type") != WEBHOOK_TYPE or node.get("disabled"):
            continue
        parameters = node.get("parameters") or {}
        path = str(parameters.get("path") or "").strip("/")
        if not path:
            continue
        method = parameters.get("httpMethod") or "GET"
        if isinstance(method, list):  # "multipleMethods": any of them answers; prefer POST
            method = "POST" if "POST" in method else (method[0] if method else "GET")
        found.append(Webhook(str(method).upper(), path))
    return tuple(found)


def find_workflow(client: N8nClient, name: str) -> dict[str, Any]:
    """The one workflow named `name`; UnknownWorkflow or AmbiguousWorkflow otherwise."""
    found = _named(client, name)
    if found is None:
        raise UnknownWorkflow(
            f"no workflow named {name!r}",
            url=client.base_url,
            hint="deploy it first (toolkiln n8n deploy FILE), or see toolkiln n8n list",
        )
    return found


def deploy(
    client: N8nClient, workflow: Mapping[str, Any], *, activate: bool = False, workflow_id: str | None = None
) -> Deployed:
    """Create `workflow`, or update the workflow known by `workflow_id` (else the one of the same
    name); then activate it if asked. An active workflow stays active (n8n re-registers its
    webhooks on update)."""
    existing = _by_id(client, workflow_id) if workflow_id else None
    if existing is None:
        existing = _named(client, str(workflow.get("name")))
    if existing is None:
        saved, created = client.create_workflow(workflow), True
    else:
        saved, created = client.update_workflow(existing["id"], workflow), False
    if activate and not saved.get("active"):
        saved = client.activate_workflow(saved["id"])
    return Deployed(
        id=saved["id"],
        name=saved.get("name", ""),
        active=bool(saved.get("active")),
        created=created,
        webhooks=webhooks_of(workflow),
    )


def first_webhook(workflow: Mapping[str, Any]) -> Webhook:
    """The webhook trigger a run calls: the workflow's first; NoWebhook when it has none."""
    hooks = webhooks_of(workflow)
    if not hooks:
        raise NoWebhook(
            f"the workflow {workflow.get('name')!r} has no webhook trigger",
            hint="only workflows that start with `on webhook` can be run this way",
        )
    return hooks[0]


def call_webhook(client: N8nClient, hook: Webhook, data: Any) -> WebhookResponse:
    """Send `data` to a webhook: as the JSON body, or for GET and HEAD as the query string."""
    if hook.method in ("GET", "HEAD"):
        if data is not None and not isinstance(data, Mapping):
            raise N8nConfigError(
                f"a {hook.method} webhook takes an object of query parameters, not {type(data).__name__}"
            )
        return client.trigger_webhook(hook.path, method=hook.method, query=data)
    return client.trigger_webhook(hook.path, data, method=hook.method)


def _named(client: N8nClient, name: str) -> dict[str, Any] | None:
    # The API's `name` filter is not documented as exact, so the names are compared here.
    matches = [w for w in client.list_workflows(name=name) if w.get("name") == name]
    if len(matches) > 1:
        ids = ", ".join(str(w.get("id")) for w in matches)
        raise AmbiguousWorkflow(
            f"{len(matches)} workflows are named {name!r} (ids {ids})",
            url=client.base_url,
            hint="delete or rename all but one of them in n8n",
        )
    return matches[0] if matches else None


def _by_id(client: N8nClient, workflow_id: str) -> dict[str, Any] | None:
    try:
        return client.get_workflow(workflow_id)
    except N8nNotFound:
        return None  # deleted in n8n meanwhile: deploy by name instead
