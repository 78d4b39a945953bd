"""Workflow tools on the registry's n8n: deploying, taking down and calling (the kind itself,
compiling and running one, is registry/kinds/workflow.py).

A definition (JSON) holds the workflow DSL source and the tool's parameters, in the compute
tools' parameter format:

    {"kind": "workflow", "name": "order_total", "description": "Prices an order",
     "parameters": {"qty": {"type": "integer"}, "price": {"type": "number"}},
     "workflow": "workflow order_total\\n...on webhook POST \\"/orders\\" respond with node\\n...",
     "n8n": {"url": "http://127.0.0.1:5678"}}          # optional: the registry's own n8n only; never the key

Deploying (create or update in n8n, activate) happens when the
tool becomes active; a run posts the checked arguments to the webhook recorded at deployment.
httpx is imported only when a workflow tool is deployed or run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from toolkiln.registry.definitions import Compiled, compile_definition
from toolkiln.registry.errors import (
    CapabilityNotGranted,
    N8nFailure,
    N8nNotConfigured,
    RegistryError,
    SecretMissing,
    SecretNotAHeaderValue,
    WorkflowDeployFailed,
    WorkflowNameTaken,
    WorkflowRunFailed,
)
from toolkiln.registry.kinds import kind_of
from toolkiln.registry.kinds.workflow import WorkflowCompiled, WorkflowTarget
from toolkiln.registry.kinds.workflow_credentials import CredentialUse
from toolkiln.registry.models import Deployment, ToolRecord

if TYPE_CHECKING:
    from toolkiln.n8n.client import N8nClient
    from toolkiln.n8n.credentials import Wanted


class WorkflowTools:
    """The registry's side of n8n: deploy, take down and run workflow tools, on the registry's
    own n8n only: `client` (if given), else the one of TOOLKILN_N8N_URL. A definition may name
    that server (`n8n.url`), never another: the API key goes nowhere else (R0700)."""

    def __init__(self, client: N8nClient | None = None, secret: Callable[[str], str | None] | None = None) -> None:
        self._client = client
        self._secret = secret or (lambda name: None)  # the registry's secrets, read on deploy

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
        that server); then activate it. A workflow it did not create is never touched. Its
        credentials are made (or updated) from the registry's secrets first; a secret that is
        not set refuses the deploy (R0742) before anything is sent."""
        from toolkiln.n8n.credentials import deploy_bound
        from toolkiln.n8n.deploy import deploy_owned

        target = _target(compiled)
        wanted = credentials_wanted(f"`{record.name}`", record.name, target.credentials, self._secret)
        with self._connection(target.url, WorkflowDeployFailed) as client:
            known = record.deployment if record.deployment and record.deployment.url == client.base_url else None
            owned_id = known.workflow_id if known else None
            deployed, made = deploy_bound(
                client,
                target.n8n,
                wanted,
                known.credentials if known else {},
                lambda workflow: deploy_owned(client, workflow, owned_id=owned_id, activate=True),
            )
            return Deployment(
                url=client.base_url,
                workflow_id=deployed.id,
                method=target.webhook.method,
                path=target.webhook.path,
                version=record.version,
                credentials=made,
            )

    def take_down(self, deployment: Deployment, *, delete: bool) -> None:
        """Deactivate (or delete, with the credentials it made) a deployed workflow; one already
        gone in n8n is fine."""
        from toolkiln.n8n.credentials import delete_credentials
        from toolkiln.n8n.errors import N8nNotFound

        with self._connection(deployment.url, WorkflowDeployFailed) as client:
            try:
                if delete:
                    client.delete_workflow(deployment.workflow_id)
                else:
                    client.deactivate_workflow(deployment.workflow_id)
            except N8nNotFound:
                pass
            if delete:
                delete_credentials(client, deployment.credentials.values())

    def forget(self, deployment: Deployment) -> None:
        """Delete a workflow deployed for a change that was not saved after all; a failure leaves
        it in n8n (as a forced delete does)."""
        try:
            self.take_down(deployment, delete=True)
        except RegistryError:
            pass

    def settle(self, old: ToolRecord | None, new: ToolRecord, compiled: Compiled | None) -> ToolRecord:
        """`new` with n8n brought in line with it: its version deployed when it is active, its
        workflow deactivated when it stops being active. Tools of kinds that do not deploy
        pass unchanged."""
        if not kind_of(new.kind).deploys:
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

    def call(self, deployment: Deployment, data: dict[str, Any]) -> Any:
        """Post `data` to the deployed workflow's webhook; a run that n8n recorded as failed is
        WorkflowRunFailed with n8n's message, even when the webhook answered 200."""
        from toolkiln.n8n.deploy import Webhook, run_webhook

        with self._connection(deployment.url, WorkflowRunFailed) as client:
            hook = Webhook(deployment.method, deployment.path)
            reply = run_webhook(client, hook, deployment.workflow_id, data)
        return reply.data if reply.data is not None else reply.text


def credentials_wanted(
    owner: str, label: str, uses: Sequence[CredentialUse], secret: Callable[[str], str | None]
) -> list[Wanted]:
    """The credentials `uses` with their secrets' values (named in n8n after `label`: a tool's
    name); SecretMissing, naming `owner`, when one is not set: then nothing has been sent."""
    from toolkiln.n8n.credentials import Wanted

    values: dict[str, str] = {}
    for name in dict.fromkeys(s for use in uses for s in use.secrets.values()):
        value = secret(name)
        if value is None:
            raise SecretMissing(
                f"{owner} needs the secret {name} for its n8n credentials, which is not set; nothing was sent",
                hint=f"a person sets it (toolkiln secrets set {name}), then deploys (or approves) again",
            )
        values[name] = value
    for use in uses:
        if (found := use.unsendable(values)) is not None:
            raise SecretNotAHeaderValue(
                f"{owner}'s credential {use.key!r} sends the secret {found[0]} as an HTTP header, and its "
                f"character {found[1]} is not printable ASCII, which n8n does not send as it is; nothing was sent",
                hint=f"set {found[0]} again with printable ASCII only (a key read from a file often ends in a newline)",
            )
    return [Wanted(use.key, use.type, use.n8n_name(label), use.data(values)) for use in uses]


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
    assert isinstance(compiled, WorkflowCompiled), "only a workflow tool deploys"
    return compiled.target
