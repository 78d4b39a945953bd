"""Workflow tools: a workflow DSL text compiled to n8n JSON, run through its webhook on the
registry's n8n (deploying and taking down: registry/workflows.py).

The arguments are checked by a compute tool compiled from the same parameters whose logic
returns them as a list, so a workflow tool validates, defaults and publishes its arguments
exactly as a compute tool does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from toolkiln.ast.records import record, set_field
from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.errors import CompileError
from toolkiln.executables.program_tools import declared_secrets
from toolkiln.registry.errors import N8nFailure, WorkflowNotDeployed
from toolkiln.registry.json_values import plain_json
from toolkiln.registry.kinds.base import (
    Compiled,
    CompileOptions,
    RunContext,
    Runnable,
    ToolKind,
    WorkflowPoster,
    at_path,
    no_examples,
)
from toolkiln.registry.kinds.compute import COMPUTE, ComputeCompiled
from toolkiln.registry.kinds.workflow_credentials import CredentialUse, credential_uses

if TYPE_CHECKING:
    from toolkiln.n8n.deploy import Webhook
    from toolkiln.registry.models import ToolRecord
    from toolkiln.semantics.dates import Clock
    from toolkiln.semantics.limits import Limits
    from toolkiln.tool import Tool  # (the interpreter: loaded by the compiler when a tool compiles)

REQUIRED = ("kind", "name", "description", "workflow")
OPTIONAL = ("parameters", "riskLevel", "n8n", "secrets", "credentials")
# MCP annotations: a workflow may send messages, write to other systems, and answer
# differently each time: the cautious values (MCP's defaults for a tool that is not read-only).
ANNOTATIONS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


@dataclass(frozen=True)
class WorkflowTarget:
    """A workflow tool's compiled workflow: the n8n JSON, the webhook a run calls, the server
    named by the definition (None: the registry's)."""

    n8n: dict[str, Any]
    webhook: Webhook
    url: str | None
    credentials: tuple[CredentialUse, ...] = ()  # made in n8n from the registry's secrets on deploy

    @property
    def secrets(self) -> tuple[str, ...]:
        """The names of the secrets its credentials are filled from."""
        return tuple(dict.fromkeys(s for use in self.credentials for s in use.secrets.values()))


@record(kw_only=True)
class WorkflowCompiled(Compiled):
    """A workflow tool: the compute tool that checks its arguments, and its compiled workflow."""

    arguments: Tool
    target: WorkflowTarget

    def __init__(
        self,
        kind: ToolKind,
        definition: dict[str, Any],
        name: str,
        description: str,
        risk_level: str,
        parameters: dict[str, Any],
        examples: list[dict[str, Any]] | None = None,
        *,
        arguments: Tool,
        target: WorkflowTarget,
    ) -> None:
        super().__init__(kind, definition, name, description, risk_level, parameters, examples)
        set_field(self, "arguments", arguments)
        set_field(self, "target", target)

    @property
    def tool(self) -> Tool:
        return self.arguments


class WorkflowKind(ToolKind):
    name = "workflow"
    changeable = ("description", "parameters", "workflow", "riskLevel", "n8n", "secrets", "credentials")
    optional = ("riskLevel", "parameters", "n8n", "secrets", "credentials")
    annotations = ANNOTATIONS
    side_effects = True
    reapproval = False
    signed = True  # its deployment (which n8n, which workflow id) is believed only when signed here
    deploys = True
    not_tried = "a run would act in n8n"
    has_examples = False
    runs_in = "n8n (the workflow's server)"

    def compile(self, source: Any, tools: Mapping[str, Any] | None, options: CompileOptions) -> WorkflowCompiled:
        """Check a workflow tool definition; CompileError with every problem found."""
        obj = source if isinstance(source, dict) else {}
        problems = [
            at_path(codes.MISSING_FIELD, f"a workflow tool needs `{key}`", key) for key in REQUIRED if key not in obj
        ]
        problems.extend(_unknown_fields(obj))
        url = _server(obj.get("n8n"), problems)
        arguments = _argument_tool(obj, problems)
        target = _workflow(obj.get("workflow"), url, problems) if "workflow" in obj else None
        if target is not None:
            declared = declared_secrets(obj.get("secrets", []), problems)
            target = replace(target, credentials=credential_uses(obj, declared, target.n8n, problems))
        if problems or arguments is None or target is None:
            raise CompileError(problems)
        definition = {"kind": "workflow", **{k: v for k, v in arguments.definition.items() if k != "logic"}}
        if "n8n" in obj:
            definition["n8n"] = {"url": url}
        for key in ("secrets", "credentials"):
            if obj.get(key):
                definition[key] = obj[key]
        definition["workflow"] = obj["workflow"]
        return WorkflowCompiled(
            self,
            definition,
            arguments.name,
            arguments.description,
            arguments.risk_level,
            arguments.parameters,
            arguments=arguments.tool,
            target=target,
        )

    def examples_problems(self, found: Any) -> list[Diagnostic]:
        return no_examples(self.name, "act in n8n")

    def runnable(self, record: ToolRecord, compiled: Compiled, context: RunContext) -> Runnable:
        assert isinstance(compiled, WorkflowCompiled)
        return WorkflowRun(context.n8n, record, compiled, context.secret)

    def text(self, record: ToolRecord) -> str:
        """Its parameters, deployment and workflow."""
        deployment = record.deployment
        where = (
            f"deployed: version {deployment.version} as n8n workflow {deployment.workflow_id}, "
            f"webhook {deployment.method} /{deployment.path} on {deployment.url}"
            if deployment
            else "not deployed"
        )
        parameters = json.dumps(record.definition.get("parameters", {}), ensure_ascii=False, default=str)
        return f"  {where}\n  parameters: {parameters}\n\n{record.definition['workflow'].rstrip()}"

    def source_text(self, definition: Mapping[str, Any]) -> str | None:
        return str(definition.get("workflow", ""))


WORKFLOW = WorkflowKind()


class WorkflowRun:
    """A workflow tool as `Registry.run` runs it: `run(args)` checks the arguments, then posts
    them to the deployed workflow's webhook and returns its answer (parsed JSON, else text),
    with the values of its credentials' secrets redacted (an echoing server cannot show them)."""

    def __init__(
        self,
        n8n: WorkflowPoster,
        record: ToolRecord,
        compiled: WorkflowCompiled,
        secret: Callable[[str], str | None] = lambda name: None,
    ) -> None:
        self._n8n = n8n
        self._record = record
        self._compiled = compiled
        self._secret = secret

    def run(
        self,
        args: Mapping[str, Any] | None = None,
        *,
        tables: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
        clock: Clock | datetime | None = None,  # (n8n reads its own)
    ) -> Any:
        from toolkiln.registry.programs import redacted, secret_values  # (pydantic records: a check needs none)

        record = self._record
        values = self._compiled.arguments.run(args, limits=limits)  # RunError on bad arguments
        names = [p.name for p in self._compiled.arguments.checked.parameters]
        deployment = record.deployment
        if deployment is None or deployment.version != record.version:
            raise WorkflowNotDeployed(
                f"version {record.version} of `{record.name}` is not deployed to n8n",
                hint=f"deploy it: reg.deploy({record.name!r}) or toolkiln tools deploy {record.name}",
            )
        secrets = secret_values(self._record.name, self._compiled.target.secrets, self._secret)
        data = {name: plain_json(value) for name, value in zip(names, values, strict=True)}
        try:
            return redacted(self._n8n.call(deployment, data), secrets)
        except N8nFailure as error:  # n8n's message may quote what the run sent or got
            raise type(error)(redacted(error.message, secrets), error.hint, status=error.status) from None


def _unknown_fields(obj: dict[str, Any]) -> list[Diagnostic]:
    known = REQUIRED + OPTIONAL
    problems = []
    for key in obj:
        if key not in known:
            from difflib import get_close_matches  # (12 M instructions to import: on this error only)

            close = get_close_matches(str(key), known, n=1)
            hint = f"did you mean `{close[0]}`?" if close else f"a workflow tool's fields: {', '.join(known)}"
            problems.append(
                at_path(codes.UNKNOWN_FIELD, f"unknown field `{str(key)[:40]}` in a workflow tool", str(key)[:64], hint)
            )
    return problems


def _argument_tool(obj: dict[str, Any], problems: list[Diagnostic]) -> ComputeCompiled | None:
    """The compute tool that checks the arguments: the same name, description, parameters and
    risk level, with logic that returns the arguments in order."""
    names = list(obj["parameters"]) if isinstance(obj.get("parameters"), dict) else []
    logic = {"steps": [{"op": "return", "value": f"[{', '.join(map(str, names))}]"}]}
    fields = {key: obj[key] for key in ("name", "description", "parameters", "riskLevel") if key in obj}
    try:
        return COMPUTE.compile({**fields, "logic": logic}, None, CompileOptions())
    except CompileError as error:
        # Errors in the generated logic only repeat a bad parameter, reported at its own path.
        problems.extend(d for d in error.diagnostics if not (d.span and (d.span.path or "").startswith("logic")))
        return None


def _server(value: Any, problems: list[Diagnostic]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"url"} or not isinstance(value["url"], str):
        problems.append(
            at_path(
                codes.WRONG_JSON_TYPE,
                '`n8n` must be {"url": "http://..."}',
                "n8n",
                "the API key is never part of a definition: it comes from the environment "
                "(TOOLKILN_N8N_API_KEY) or Registry(..., n8n=client)",
            )
        )
        return None
    from toolkiln.n8n.client import check_url
    from toolkiln.n8n.errors import N8nConfigError

    try:
        return check_url(value["url"])
    except N8nConfigError as error:
        problems.append(at_path(codes.INVALID_DECLARATION, error.message, "n8n.url", error.hint))
        return None


def _workflow(text: Any, url: str | None, problems: list[Diagnostic]) -> WorkflowTarget | None:
    if not isinstance(text, str):
        problems.append(at_path(codes.WRONG_JSON_TYPE, "`workflow` must be the workflow DSL text", "workflow"))
        return None
    from toolkiln.n8n.deploy import webhooks_of
    from toolkiln.workflow import compile_workflow

    try:
        n8n = compile_workflow(text).to_n8n()
    except CompileError as error:
        # Located inside the `workflow` string, as compute expressions are inside theirs.
        problems.extend(
            replace(d, span=(d.span or Span(line=0, column=0, end_line=0, end_column=0)).shifted("workflow"))
            for d in error.diagnostics
        )
        return None
    hooks = webhooks_of(n8n)
    if not hooks:
        problems.append(
            at_path(
                codes.INVALID_TRIGGER,
                "a workflow tool's workflow needs a webhook trigger",
                "workflow",
                'start it with `on webhook POST "/path"`: a run posts the arguments there',
            )
        )
        return None
    return WorkflowTarget(n8n, hooks[0], url)
