"""Workflow tools: a registered tool that runs as an n8n workflow, called through its webhook.

A definition (JSON) holds the workflow DSL source and the tool's parameters, in the compute
tools' parameter format:

    {"kind": "workflow", "name": "order_total", "description": "Prices an order",
     "parameters": {"qty": {"type": "integer"}, "price": {"type": "number"}},
     "workflow": "workflow order_total\\n...on webhook POST \\"/orders\\" respond with node\\n...",
     "n8n": {"url": "http://127.0.0.1:5678"}}          # optional; never the API key

The arguments are checked by a compute tool compiled from the same parameters whose logic
returns them as a list, so a workflow tool validates, defaults and publishes its arguments
exactly as a compute tool does. Deploying (create or update in n8n, activate) happens when the
tool becomes active; a run posts the checked arguments to the webhook recorded at deployment.
httpx is imported only when a workflow tool is deployed or run.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError
from toolkiln.registry.codec import plain_json
from toolkiln.registry.definitions import Compiled, compile_definition
from toolkiln.registry.errors import (
    N8nNotConfigured,
    RegistryError,
    WorkflowDeployFailed,
    WorkflowNotDeployed,
    WorkflowRunFailed,
)
from toolkiln.registry.models import Deployment, ToolRecord
from toolkiln.semantics.limits import Limits
from toolkiln.syntax.spans import Span

if TYPE_CHECKING:
    from toolkiln.backends.n8n.client import N8nClient
    from toolkiln.backends.n8n.deploy import Webhook

REQUIRED = ("kind", "name", "description", "workflow")
OPTIONAL = ("parameters", "riskLevel", "n8n")


@dataclass(frozen=True)
class WorkflowTarget:
    """A workflow tool's compiled workflow: the n8n JSON, the webhook a run calls, the server
    named by the definition (None: the registry's)."""

    n8n: dict[str, Any]
    webhook: Webhook
    url: str | None


def _at(code: codes.Code, message: str, path: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic.of(code, message, Span(line=0, column=0, end_line=0, end_column=0, path=path), hint)


def compile_workflow_tool(obj: dict[str, Any]) -> Compiled:
    """Check a workflow tool definition; CompileError with every problem found."""
    problems = [_at(codes.MISSING_FIELD, f"a workflow tool needs `{key}`", key) for key in REQUIRED if key not in obj]
    for key in obj:
        if key not in REQUIRED + OPTIONAL:
            close = difflib.get_close_matches(str(key), REQUIRED + OPTIONAL, n=1)
            problems.append(_at(codes.UNKNOWN_FIELD, f"unknown field `{str(key)[:40]}` in a workflow tool",
                                str(key)[:64], f"did you mean `{close[0]}`?" if close else
                                f"a workflow tool's fields: {', '.join(REQUIRED + OPTIONAL)}"))
    url = _server(obj.get("n8n"), problems)
    arguments = _argument_tool(obj, problems)
    target = _workflow(obj.get("workflow"), url, problems) if "workflow" in obj else None
    if problems or arguments is None or target is None:
        raise CompileError(problems)
    definition = {"kind": "workflow", **{k: v for k, v in arguments.definition.items() if k != "logic"}}
    if "n8n" in obj:
        definition["n8n"] = {"url": url}
    definition["workflow"] = obj["workflow"]
    return Compiled(arguments.tool, definition, kind="workflow", target=target)


def _argument_tool(obj: dict[str, Any], problems: list[Diagnostic]) -> Compiled | None:
    """The compute tool that checks the arguments: the same name, description, parameters and
    risk level, with logic that returns the arguments in order."""
    names = list(obj["parameters"]) if isinstance(obj.get("parameters"), dict) else []
    logic = {"steps": [{"op": "return", "value": f"[{', '.join(map(str, names))}]"}]}
    fields = {key: obj[key] for key in ("name", "description", "parameters", "riskLevel") if key in obj}
    try:
        return compile_definition({**fields, "logic": logic})
    except CompileError as error:
        # Errors in the generated logic only repeat a bad parameter, reported at its own path.
        problems.extend(d for d in error.diagnostics if not (d.span and (d.span.path or "").startswith("logic")))
        return None


def _server(value: Any, problems: list[Diagnostic]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"url"} or not isinstance(value["url"], str):
        problems.append(_at(codes.WRONG_JSON_TYPE, '`n8n` must be {"url": "http://..."}', "n8n",
                            "the API key is never part of a definition: it comes from the environment "
                            "(TOOLKILN_N8N_API_KEY) or Registry(..., n8n=client)"))
        return None
    from toolkiln.backends.n8n.client import check_url
    from toolkiln.backends.n8n.errors import N8nConfigError

    try:
        return check_url(value["url"])
    except N8nConfigError as error:
        problems.append(_at(codes.INVALID_DECLARATION, error.message, "n8n.url", error.hint))
        return None


def _workflow(text: Any, url: str | None, problems: list[Diagnostic]) -> WorkflowTarget | None:
    if not isinstance(text, str):
        problems.append(_at(codes.WRONG_JSON_TYPE, "`workflow` must be the workflow DSL text", "workflow"))
        return None
    from toolkiln.backends.n8n.deploy import webhooks_of
    from toolkiln.workflow import compile_workflow

    try:
        n8n = compile_workflow(text).to_n8n()
    except CompileError as error:
        # Located inside the `workflow` string, as compute expressions are inside theirs.
        problems.extend(d.model_copy(update={"span": (d.span or Span(line=0, column=0, end_line=0, end_column=0))
                                             .shifted("workflow")}) for d in error.diagnostics)
        return None
    hooks = webhooks_of(n8n)
    if not hooks:
        problems.append(_at(codes.INVALID_TRIGGER, "a workflow tool's workflow needs a webhook trigger", "workflow",
                            'start it with `on webhook POST "/path"`: a run posts the arguments there'))
        return None
    return WorkflowTarget(n8n, hooks[0], url)


class WorkflowTools:
    """The registry's side of n8n: deploy, take down and run workflow tools. `client` (if given)
    serves the tools that name no server or its server; others get a client from the environment."""

    def __init__(self, client: N8nClient | None = None) -> None:
        self._client = client

    @contextmanager
    def _connection(self, url: str | None, error: type[RegistryError]) -> Iterator[N8nClient]:
        """A client for the server at `url` (None: the registry's); n8n errors become `error`."""
        from toolkiln.backends.n8n.client import N8nClient
        from toolkiln.backends.n8n.errors import N8nConfigError, N8nError

        try:
            if self._client is not None and url in (None, self._client.base_url):
                yield self._client
                return
            with N8nClient.from_env(base_url=url) as client:
                yield client
        except N8nConfigError as problem:
            raise N8nNotConfigured(problem.message, hint=problem.hint) from None
        except N8nError as problem:
            raise error(problem.message, hint=problem.hint, status=getattr(problem, "status", None)) from None

    def deploy(self, record: ToolRecord, compiled: Compiled) -> Deployment:
        """Create or update the tool's workflow in n8n and activate it."""
        from toolkiln.backends.n8n.deploy import deploy

        target = _target(compiled)
        known = record.deployment.workflow_id if record.deployment else None
        with self._connection(target.url, WorkflowDeployFailed) as client:
            deployed = deploy(client, target.n8n, activate=True, workflow_id=known)
            return Deployment(url=client.base_url, workflow_id=deployed.id, method=target.webhook.method,
                              path=target.webhook.path, version=record.version)

    def take_down(self, deployment: Deployment, *, delete: bool) -> None:
        """Deactivate (or delete) a deployed workflow; one already gone in n8n is fine."""
        from toolkiln.backends.n8n.errors import N8nNotFound

        with self._connection(deployment.url, WorkflowDeployFailed) as client:
            try:
                if delete:
                    client.delete_workflow(deployment.workflow_id)
                else:
                    client.deactivate_workflow(deployment.workflow_id)
            except N8nNotFound:
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
        from toolkiln.backends.n8n.deploy import Webhook, call_webhook

        with self._connection(deployment.url, WorkflowRunFailed) as client:
            reply = call_webhook(client, Webhook(deployment.method, deployment.path), data)
        return reply.data if reply.data is not None else reply.text


class WorkflowRun:
    """A workflow tool as `Registry.run` runs it: `run(args)` checks the arguments, then posts
    them to the deployed workflow's webhook and returns its answer (parsed JSON, else text)."""

    def __init__(self, tools: WorkflowTools, record: ToolRecord, compiled: Compiled) -> None:
        self._tools = tools
        self._record = record
        self._compiled = compiled

    def run(self, args: Mapping[str, Any] | None = None, *, tables: Mapping[str, Any] | None = None,
            limits: Limits | None = None) -> Any:
        record = self._record
        values = self._compiled.tool.run(args, limits=limits)          # RunError on bad arguments
        names = [p.name for p in self._compiled.tool.checked.parameters]
        deployment = record.deployment
        if deployment is None or deployment.version != record.version:
            raise WorkflowNotDeployed(f"version {record.version} of `{record.name}` is not deployed to n8n",
                                      hint=f"deploy it: reg.deploy({record.name!r}) or toolkiln tools deploy "
                                           f"{record.name}")
        return self._tools.call(deployment, {name: plain_json(value) for name, value in zip(names, values,
                                                                                            strict=True)})


def _target(compiled: Compiled) -> WorkflowTarget:
    assert compiled.target is not None, "a workflow tool compiles with its target"
    return compiled.target
