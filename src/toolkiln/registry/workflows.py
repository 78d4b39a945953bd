"""Workflow tools: a registered tool that runs as an n8n workflow, called through its webhook.

A definition (JSON) holds the workflow DSL source and the tool's parameters, in the compute
tools' parameter format:

    {"kind": "workflow", "name": "order_total", "description": "Prices an order",
     "parameters": {"qty": {"type": "integer"}, "price": {"type": "number"}},
     "workflow": "workflow order_total\\n...on webhook POST \\"/orders\\" respond with node\\n...",
     "n8n": {"url": "http://127.0.0.1:5678"}}          # optional: the registry's own n8n only; never the key

The arguments are checked by a compute tool compiled from the same parameters whose logic
returns them as a list, so a workflow tool validates, defaults and publishes its arguments
exactly as a compute tool does. Deploying (create or update in n8n, activate) happens when the
tool becomes active; a run posts the checked arguments to the webhook recorded at deployment.
httpx is imported only when a workflow tool is deployed or run.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from toolkiln.registry.codec import plain_json
from toolkiln.registry.definitions import Compiled, WorkflowTarget, compile_definition
from toolkiln.registry.errors import (
    CapabilityNotGranted,
    N8nFailure,
    N8nNotConfigured,
    RegistryError,
    WorkflowDeployFailed,
    WorkflowNameTaken,
    WorkflowNotDeployed,
    WorkflowRunFailed,
)
from toolkiln.registry.models import Deployment, ToolRecord
from toolkiln.semantics.limits import Limits

if TYPE_CHECKING:
    from toolkiln.n8n.client import N8nClient


class WorkflowTools:
    """The registry's side of n8n: deploy, take down and run workflow tools, on the registry's
    own n8n only: `client` (if given), else the one of TOOLKILN_N8N_URL. A definition may name
    that server (`n8n.url`), never another: the API key goes nowhere else (R0700)."""

    def __init__(self, client: N8nClient | None = None) -> None:
        self._client = client

    @contextmanager
    def _connection(self, url: str | None, error: type[N8nFailure]) -> Iterator[N8nClient]:
        """The registry's client, for a tool or deployment at `url` (None: the registry's);
        CapabilityNotGranted for any other server, before anything is sent; n8n errors become
        `error`."""
        from toolkiln.n8n import errors as n8n_errors
        from toolkiln.n8n.client import N8nClient

        try:
            if self._client is not None:
                yield _only_at(self._client, url)
                return
            with N8nClient.from_env() as client:
                yield _only_at(client, url)
        except n8n_errors.N8nConfigError as problem:
            raise N8nNotConfigured(problem.message, hint=problem.hint) from None
        except n8n_errors.WorkflowNameTaken as problem:
            raise WorkflowNameTaken(problem.message, hint=problem.hint) from None
        except n8n_errors.N8nError as problem:
            raise error(problem.message, hint=problem.hint, status=getattr(problem, "status", None)) from None

    def deploy(self, record: ToolRecord, compiled: Compiled) -> Deployment:
        """Create the tool's workflow in n8n, or update the one it created (known by its id on
        that server); then activate it. A workflow it did not create is never touched."""
        from toolkiln.n8n.deploy import deploy_owned

        target = _target(compiled)
        with self._connection(target.url, WorkflowDeployFailed) as client:
            known = record.deployment
            owned = known.workflow_id if known is not None and known.url == client.base_url else None
            deployed = deploy_owned(client, target.n8n, owned_id=owned, activate=True)
            return Deployment(
                url=client.base_url,
                workflow_id=deployed.id,
                method=target.webhook.method,
                path=target.webhook.path,
                version=record.version,
            )

    def take_down(self, deployment: Deployment, *, delete: bool) -> None:
        """Deactivate (or delete) a deployed workflow; one already gone in n8n is fine."""
        from toolkiln.n8n.errors import N8nNotFound

        with self._connection(deployment.url, WorkflowDeployFailed) as client:
            try:
                if delete:
                    client.delete_workflow(deployment.workflow_id)
                else:
                    client.deactivate_workflow(deployment.workflow_id)
            except N8nNotFound:
                pass

    def forget(self, deployment: Deployment) -> None:
        """Delete a workflow deployed for a change that was not saved after all; a failure leaves
        it in n8n (as a forced delete does)."""
        try:
            self.take_down(deployment, delete=True)
        except RegistryError:
            pass

    def settle(self, old: ToolRecord | None, new: ToolRecord, compiled: Compiled | None) -> ToolRecord:
        """`new` with n8n brought in line with it: its version deployed when it is active, its
        workflow deactivated when it stops being active. Compute tools pass unchanged."""
        if new.kind != "workflow":
            return new
        was_active = old is not None and old.status == "active"
        if new.status == "active":
            deployment = new.deployment
            if deployment is None or deployment.version != new.version or not was_active:
                compiled = compiled or compile_definition(new.definition)
                return new.model_copy(update={"deployment": self.deploy(new, compiled)})
        elif was_active and new.deployment is not None:
            self.take_down(new.deployment, delete=False)
        return new

    def runnable(self, record: ToolRecord, compiled: Compiled) -> WorkflowRun:
        return WorkflowRun(self, record, compiled)

    def call(self, deployment: Deployment, data: dict[str, Any]) -> Any:
        """Post `data` to the deployed workflow's webhook; a run that n8n recorded as failed is
        WorkflowRunFailed with n8n's message, even when the webhook answered 200."""
        from toolkiln.n8n.deploy import Webhook, run_webhook

        with self._connection(deployment.url, WorkflowRunFailed) as client:
            hook = Webhook(deployment.method, deployment.path)
            reply = run_webhook(client, hook, deployment.workflow_id, data)
        return reply.data if reply.data is not None else reply.text


class WorkflowRun:
    """A workflow tool as `Registry.run` runs it: `run(args)` checks the arguments, then posts
    them to the deployed workflow's webhook and returns its answer (parsed JSON, else text)."""

    def __init__(self, tools: WorkflowTools, record: ToolRecord, compiled: Compiled) -> None:
        self._tools = tools
        self._record = record
        self._compiled = compiled

    def run(
        self,
        args: Mapping[str, Any] | None = None,
        *,
        tables: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
    ) -> Any:
        record = self._record
        values = self._compiled.compute.run(args, limits=limits)  # RunError on bad arguments
        names = [p.name for p in self._compiled.compute.checked.parameters]
        deployment = record.deployment
        if deployment is None or deployment.version != record.version:
            raise WorkflowNotDeployed(
                f"version {record.version} of `{record.name}` is not deployed to n8n",
                hint=f"deploy it: reg.deploy({record.name!r}) or toolkiln tools deploy {record.name}",
            )
        return self._tools.call(
            deployment, {name: plain_json(value) for name, value in zip(names, values, strict=True)}
        )


def _only_at(client: N8nClient, url: str | None) -> N8nClient:
    """`client`, when `url` is None or its server."""
    from toolkiln.n8n.client import check_url

    if url is not None and check_url(url) != client.base_url:
        raise CapabilityNotGranted(
            f"the workflow names the n8n at {url}; this registry deploys only to {client.base_url}",
            hint="leave `n8n.url` out, or name the registry's own n8n (TOOLKILN_N8N_URL)",
        )
    return client


def _target(compiled: Compiled) -> WorkflowTarget:
    assert compiled.target is not None, "a workflow tool compiles with its target"
    return compiled.target
