"""Deploying by name: create a workflow, or update the one of the same name, and find its webhooks.

    with N8nClient.from_env() as n8n:
        deployed = deploy(n8n, workflow_json, activate=True)     # idempotent: run it again freely
        deployed.id, deployed.webhooks                            # [Webhook("POST", "orders")]
        reply = run_workflow(n8n, find_workflow(n8n, "order_total"), {"qty": 2})  # ExecutionFailed

A workflow's name is its identity for `toolkiln n8n` (n8n itself allows several workflows of
one name; two are refused as ambiguous rather than guessed between). The registry's workflow
tools use `deploy_owned` instead: a tool knows its workflow by id and never takes over another
workflow that happens to have its name.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolkiln.n8n.client import REGISTER_INTERVAL, REGISTER_POLLS, N8nClient, WebhookResponse
from toolkiln.n8n.errors import (
    AmbiguousWorkflow,
    ExecutionFailed,
    N8nConfigError,
    N8nNotFound,
    N8nServerError,
    N8nUnauthorized,
    NoWebhook,
    UnknownWorkflow,
    WebhookNotRegistered,
    WorkflowNameTaken,
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
    created it (else it updated an existing one), and its webhook triggers."""

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


def deploy(client: N8nClient, workflow: Mapping[str, Any], *, activate: bool = False) -> Deployed:
    """Create `workflow`, or update the workflow of the same name; then activate it if asked.
    An active workflow stays active (n8n 1.x re-registers its webhooks on update; n8n 2.x runs
    the update once it is activated again, which `activate` does)."""
    existing = _named(client, str(workflow.get("name")))
    return _save(client, workflow, existing["id"] if existing else None, activate=activate)


def deploy_owned(
    client: N8nClient, workflow: Mapping[str, Any], *, owned_id: str | None, activate: bool = False
) -> Deployed:
    """Create `workflow`, or update the workflow `owned_id` (the one this caller created before);
    create it again when it was deleted in n8n. No other workflow is ever updated: when one of
    the same name exists, WorkflowNameTaken is raised before anything is changed."""
    name = str(workflow.get("name"))
    mine = _by_id(client, owned_id) if owned_id else None
    others = [w for w in client.list_workflows(name=name) if w.get("name") == name and w.get("id") != owned_id]
    if others:
        ids = ", ".join(str(w.get("id")) for w in others)
        raise WorkflowNameTaken(
            f"another workflow in n8n is named {name!r} (id {ids}); it is not this tool's, so it is left alone",
            url=client.base_url,
            hint="rename the workflow in the tool's definition (`workflow NAME`), or rename or delete "
            "the other one in n8n",
        )
    return _save(client, workflow, mine["id"] if mine else None, activate=activate)


def _save(client: N8nClient, workflow: Mapping[str, Any], workflow_id: str | None, *, activate: bool) -> Deployed:
    if workflow_id is None:
        saved, created = client.create_workflow(workflow), True
    else:
        saved, created = client.update_workflow(workflow_id, workflow), False
    if activate and (not saved.get("active") or _unpublished_changes(saved)):
        saved = client.activate_workflow(saved["id"])
    return Deployed(
        id=saved["id"],  # the client checked it is there
        name=str(saved.get("name") or ""),
        active=bool(saved.get("active")),
        created=created,
        webhooks=webhooks_of(workflow),
    )


def _unpublished_changes(saved: Mapping[str, Any]) -> bool:
    """n8n 2.x keeps running the published version of an active workflow after an update
    (`activeVersionId` stays, `versionId` moves) until it is activated again; 1.x has neither."""
    published = saved.get("activeVersionId")
    return published is not None and published != saved.get("versionId")


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


def run_workflow(client: N8nClient, workflow: Mapping[str, Any], data: Any, *, wait: float = 5.0) -> WebhookResponse:
    """Call a deployed workflow's first webhook and return its answer, or raise ExecutionFailed
    with n8n's error message when n8n recorded the run as failed (see `run_webhook`)."""
    return run_webhook(
        client,
        first_webhook(workflow),
        str(workflow["id"]),
        data,
        to_the_end=_response_mode(workflow) == "lastNode",
        name=str(workflow.get("name")),
        wait=wait,
    )


def run_webhook(
    client: N8nClient,
    hook: Webhook,
    workflow_id: str,
    data: Any,
    *,
    to_the_end: bool = False,
    name: str | None = None,
    wait: float = 5.0,
) -> WebhookResponse:
    """`call_webhook`, then ExecutionFailed when n8n recorded the run as failed.

    Only a webhook that responds with the last node (`to_the_end`) answers a failure with an
    error status (500, "Error in workflow"); an empty answer, or one given before the end (when
    received, or by a respond node), does not tell. Then the run's execution is read (the
    newest one newer than before the call), waiting up to `wait` seconds for it to finish.
    Without access to the API (no key) the answer is all there is.
    """
    try:
        before = _newest_execution(client, workflow_id, include_data=False)
    except (N8nConfigError, N8nUnauthorized):
        return call_webhook(client, hook, data)
    try:
        reply = _call_once_registered(client, hook, workflow_id, data)
    except N8nServerError as error:
        failed: N8nServerError | None = error  # n8n's own message is in the execution
    else:
        failed = None
        if reply.text.strip() and to_the_end:
            return reply
    execution = _execution_after(client, workflow_id, before.get("id") if before else None, wait)
    if execution is not None and execution.get("status") in FAILED_STATUSES:
        node, message = _failure(execution)
        which = f"the workflow {name!r}" if name else "the workflow"
        where = f" in node {node!r}" if node else ""
        raise ExecutionFailed(
            f"{which} failed{where}: {message} (execution {execution.get('id')})",
            url=client.base_url,
            hint="n8n's editor shows each node's input and output under Executions",
        )
    if failed is not None:
        raise failed
    return reply


def _call_once_registered(client: N8nClient, hook: Webhook, workflow_id: str, data: Any) -> WebhookResponse:
    """n8n 2.x registers an activated workflow's webhooks after it answers the activation (also
    to another client: `toolkiln n8n deploy --activate`, then `run`). A 404 from a workflow the
    API calls active is that moment: the call is sent again, REGISTER_POLLS times at most."""
    attempt = 0
    while True:
        try:
            return call_webhook(client, hook, data)
        except WebhookNotRegistered:
            attempt += 1
            if attempt > REGISTER_POLLS or not client.get_workflow(workflow_id).get("active"):
                raise
        time.sleep(REGISTER_INTERVAL)


FAILED_STATUSES = ("error", "crashed")
_UNFINISHED_STATUSES = ("new", "running")


def _response_mode(workflow: Mapping[str, Any]) -> str:
    """How the first enabled webhook answers; n8n's default is `onReceived` (at once)."""
    for node in workflow.get("nodes") or ():
        if isinstance(node, Mapping) and node.get("type") == WEBHOOK_TYPE and not node.get("disabled"):
            return str((node.get("parameters") or {}).get("responseMode") or "onReceived")
    return "onReceived"


def _newest_execution(client: N8nClient, workflow_id: str, *, include_data: bool) -> dict[str, Any] | None:
    found = client.list_executions(workflow_id=workflow_id, include_data=include_data, limit=1)
    return found[0] if found else None


def _execution_after(client: N8nClient, workflow_id: str, before: object, wait: float) -> dict[str, Any] | None:
    """The workflow's newest execution once it is newer than `before` and finished; None when
    none appears in `wait` seconds (n8n may be told not to save executions)."""
    deadline, pause = time.monotonic() + wait, 0.05
    while True:
        newest = _newest_execution(client, workflow_id, include_data=True)
        if newest is not None and newest.get("id") != before and newest.get("status") not in _UNFINISHED_STATUSES:
            return newest
        if time.monotonic() >= deadline:
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.5)


def _failure(execution: Mapping[str, Any]) -> tuple[str | None, str]:
    """The failed node and n8n's error message (with its description) of a failed execution."""
    data = execution.get("data")
    result = data.get("resultData") if isinstance(data, Mapping) else None
    result = result if isinstance(result, Mapping) else {}
    error = result.get("error")
    error = error if isinstance(error, Mapping) else {"message": error}
    node = error.get("node")
    node = (node.get("name") if isinstance(node, Mapping) else node) or result.get("lastNodeExecuted")
    message = str(error.get("message") or f"status {execution.get('status')}")
    description = error.get("description")
    if description and description not in message:
        message = f"{message} ({description})"
    return (str(node) if node else None), message


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
        return None  # deleted in n8n meanwhile: created again
