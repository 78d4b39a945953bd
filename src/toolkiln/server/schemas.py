"""The shapes of request bodies and answers, as the OpenAPI document shows them.

Bodies refuse unknown fields (a typo is a 422 naming it, not a silently ignored option).
Definitions stay open (`dict | str`): the registry's compiler checks them and answers
with located diagnostics, which say far more than a schema could.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Path as PathParam
from pydantic import BaseModel, ConfigDict, Field, StrictInt

Actor = Literal["user", "llm", "service"]
ACTING_AS = (
    "who to act as, narrowing the token's kind: a person's token may act as a model (\"llm\"); "
    'absent: as the token says (a model\'s token can never act as "user")'
)
Definition = dict[str, Any] | str
Arguments = dict[str, Any]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CreateTool(Body):
    definition: Definition = Field(description="a tool in the JSON format (an object) or the text DSL")
    created_by: Actor | None = Field(None, description=ACTING_AS)


class UpdateTool(Body):
    changes: Definition = Field(
        description="fields of the definition to change (description, parameters, logic, riskLevel, tables), "
        "or a whole new definition"
    )
    by: Actor | None = Field(None, description=ACTING_AS)


class Rollback(Body):
    version: int = Field(ge=1)
    by: Actor | None = Field(None, description=ACTING_AS)


NOW = (
    "what today() and now() read for this run, RFC 3339 with its offset (2026-01-31T09:30:00Z); "
    "the server's clock if absent"
)
SEED = (
    "the seed of what uuid(), random() and random_int() draw in this run (and a javascript tool's "
    "utils.uuid() and utils.randomInt()): the same seed, the same values; the system's generator if absent"
)


class Execute(Body):
    args: Arguments = Field(default_factory=dict, description="the tool's arguments, by name")
    now: str | None = Field(None, max_length=40, description=NOW)
    conversation: str | None = Field(
        None, max_length=200, description="the conversation the call belongs to (kept with a call that waits)"
    )
    seed: StrictInt | None = Field(None, ge=-(2**63), le=2**63 - 1, description=SEED)


class TestDefinition(Body):
    definition: Definition
    args: Arguments | None = Field(None, description="run it once with these arguments (a compute tool)")
    now: str | None = Field(None, max_length=40, description=NOW)


class ValidateDefinition(Body):
    definition: Definition


class CheckSource(Body):
    source: Definition = Field(description="a compute tool (text DSL or JSON), workflow DSL, or an n8n workflow")
    kind: Literal["auto", "compute", "workflow"] = Field(
        "auto", description="auto: an n8n workflow object or text starting with `workflow` is a workflow"
    )
    strict: bool = Field(False, description="workflows: what n8n accepts but toolkiln warns about is an error")
    n8n_version: str | None = None


class CompileWorkflow(Body):
    source: str = Field(description="workflow DSL text")
    strict: bool = False
    n8n_version: str | None = None


class DeployWorkflow(Body):
    source: str = Field(description="workflow DSL text")
    activate: bool = True


class RenderTemplate(Body):
    values: dict[str, str | int] = Field(default_factory=dict, description="the template's parameters")
    dsl: bool = Field(False, description="answer with the rendered DSL text instead of n8n JSON")


class CreateToken(Body):
    name: str
    kind: Literal["person", "model", "service"] = Field(description="who holds it: who acts with it")
    scope: Literal["read", "run", "write", "admin"]


# --- answers ----------------------------------------------------------------------------------


class FixOut(BaseModel):
    """A certain repair: `replacement` in place of the characters `start` to `end` of the
    source text (offsets null when only the JSON path is known)."""

    path: str | None
    start: int | None
    end: int | None
    line: int | None
    column: int | None
    end_line: int | None
    end_column: int | None
    replacement: str


class DiagnosticOut(BaseModel):
    code: str
    name: str | None
    severity: str
    message: str
    file: str | None
    path: str | None
    line: int | None
    column: int | None
    end_line: int | None
    end_column: int | None
    in_file: bool | None
    hint: str | None
    source: str | None
    input: str | None = None
    expected: list[str] | None = None
    fix: FixOut | None = None


class ProblemOut(BaseModel):
    type: str
    title: str
    status: int
    detail: str
    instance: str | None
    code: str
    diagnostics: list[DiagnosticOut]


class DeploymentOut(BaseModel):
    url: str
    workflow_id: str
    method: str
    path: str
    version: int


class ToolOut(BaseModel):
    name: str
    description: str
    kind: str
    parameters: dict[str, Any]
    risk_level: str
    status: str
    created_by: Actor
    created_at: str
    updated_at: str
    version: int
    usage_count: int
    last_used_at: str | None
    definition: dict[str, Any]
    deployment: DeploymentOut | None
    pins: dict[str, dict[str, Any]] | None = Field(
        default=None,
        description='the version of each tool it calls that this caller runs ({"shipping_cost": {"version": 1, '
        '"digest": ...}}), written when a person approved it; absent when it follows each tool\'s current version',
    )
    trusted_here: bool | None = Field(
        default=None,
        description="whether this registry wrote the record, in this folder (listings and GET): when false, what it "
        "claims is not believed and its program or workflow does not run until `toolkiln trust`",
    )
    fixes_applied: list[str] | None = Field(
        default=None,
        description="on create: the certain fixes applied to the definition before it was saved "
        '("`&&` -> `and` at logic.steps[0].if"); absent when none was',
    )


class ToolPage(BaseModel):
    tools: list[ToolOut]
    total: int = Field(description="tools matching the filters, before limit and offset")
    limit: int
    offset: int


class Deleted(BaseModel):
    deleted: str


class Executed(BaseModel):
    tool: str
    version: int
    result: Any


class Tested(BaseModel):
    name: str
    kind: str
    parameters: dict[str, Any]
    warnings: list[DiagnosticOut]
    ran: bool
    result: Any = None


class Validation(BaseModel):
    valid: bool
    errors: int
    warnings: int
    diagnostics: list[DiagnosticOut]


class Stats(BaseModel):
    total: int
    by_status: dict[str, int]
    by_kind: dict[str, int]
    by_creator: dict[str, int]
    runs: int = Field(description="runs of every tool so far")
    most_used: list[dict[str, Any]]
    problems: int = Field(description="registry files that do not load")


class Compiled(BaseModel):
    name: str
    workflow: dict[str, Any] = Field(description="n8n workflow JSON")
    diagnostics: list[DiagnosticOut]


class Deployed(BaseModel):
    id: str
    name: str
    active: bool
    created: bool
    webhooks: list[dict[str, str]]


class TemplateOut(BaseModel):
    slug: str
    title: str
    description: str
    parameters: list[dict[str, Any]]


class Rendered(BaseModel):
    slug: str
    dsl: str | None = None
    workflow: dict[str, Any] | None = None


class TokenOut(BaseModel):
    name: str
    kind: str
    scope: str
    created_at: str


class NewToken(TokenOut):
    token: str = Field(description="the bearer token: shown this once, stored only as its SHA-256")


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    tools: int


ToolName = Annotated[
    str, PathParam(description="a tool's name", pattern=r"^[a-z][a-z0-9_]{0,63}$", examples=["shipping_cost"])
]
