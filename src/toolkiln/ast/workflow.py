"""The typed AST of the workflow language.

Frozen, keyword-only dataclasses with a `span`, children as tuples, the kinds of a union told
apart by `kind`. Expressions inside a workflow are compute expressions (`toolkiln.ast.compute`),
so one checker types both languages. Not pydantic models (issue 34: building their validators
was a third of `toolkiln check x.wf`): the front end builds nodes from what it matched, and
the n8n importer checks what it reads from an export before it makes a node of it
(backends/n8n/modeled.py), as the compute AST's front ends do.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from dataclasses import field as _field
from typing import Any, Literal

from toolkiln.ast.compute import Expr, Template
from toolkiln.ast.spans import NO_SPAN, Span


# Every node: frozen, and made by naming its fields (as a pydantic model was).
@dataclass(frozen=True, kw_only=True)
class Node:
    span: Span = NO_SPAN


HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]
HTTP_METHODS: tuple[str, ...] = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")
ScheduleRule = Literal["daily", "every", "cron"]
ScheduleUnit = Literal["minutes", "hours", "days"]
SCHEDULE_UNITS: tuple[str, ...] = ("minutes", "hours", "days")
WaitUnit = Literal["seconds", "minutes", "hours", "days"]
WAIT_UNITS: tuple[str, ...] = ("seconds", "minutes", "hours", "days")
# The field types of a declared shape: n8n's own (a Set field's type, a sub-workflow input's).
FIELD_TYPES: tuple[str, ...] = ("string", "number", "boolean", "array", "object", "any")


# --- wiring and raw n8n properties ------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Wire(Node):
    """`after source[output] -> input`: output `output` of node `source` feeds input `input`."""

    source: str
    output: int = 0
    input: int = 0


@dataclass(frozen=True, kw_only=True)
class FieldType(Node):
    """The type of a declared field: one of FIELD_TYPES by `name`, `{...}` (an `object` whose
    fields `shape` declares) or `[type]` (an `array` whose items are `items`)."""

    name: str
    shape: Shape | None = None
    items: FieldType | None = None


@dataclass(frozen=True, kw_only=True)
class ShapeField(Node):
    """`name: type` in a declared shape."""

    name: str
    type: FieldType


@dataclass(frozen=True, kw_only=True)
class Shape(Node):
    """`{name: type, ...}`: the fields an item is declared to have (`returns {...}` of a `node`
    or `http` step, `body {...}` of a webhook), objects nested in it too. toolkiln's own: not
    written into the n8n JSON."""

    fields: tuple[ShapeField, ...]

    @property
    def names(self) -> frozenset[str]:
        return frozenset(field.name for field in self.fields)

    def field(self, name: str) -> ShapeField | None:
        return next((field for field in self.fields if field.name == name), None)


@dataclass(frozen=True, kw_only=True)
class Credentials(Node):
    """`credentials TYPE "name"`: the n8n credential of type TYPE with that name."""

    type: str
    name: str


@dataclass(frozen=True, kw_only=True)
class NodeSpec(Node):
    """`node LABEL type "n8n-nodes-base.x" version N {parameters} [credentials TYPE "name"]`:
    any n8n node, its parameters kept as written. `name` is the n8n node name (any text)."""

    name: str
    type: str
    version: int | float
    parameters: dict[str, Any]
    credentials: Credentials | None = None
    returns: Shape | None = None  # `returns {...}`: the fields of its output item (a Code node's)


# --- triggers -----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class TriggerNode(Node):
    """What every trigger has: raw n8n node properties (`with {...}` after it)."""

    extra: dict[str, Any] = _field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class WebhookTrigger(TriggerNode):
    """`on webhook POST "/orders" [respond with node]`. `path` is stored as written."""

    kind: Literal["webhook"] = "webhook"
    method: HttpMethod
    path: str
    respond_with_node: bool = False
    body: Shape | None = None  # `body {...}`: the fields the posted JSON is declared to have


@dataclass(frozen=True, kw_only=True)
class ManualTrigger(TriggerNode):
    """`on manual`: run from the n8n editor or `n8n execute`; it cannot be activated."""

    kind: Literal["manual"] = "manual"


@dataclass(frozen=True, kw_only=True)
class ScheduleTrigger(TriggerNode):
    """`on schedule daily at "09:00" | every 15 minutes | cron "0 9 * * 1-5" [timezone "…"]`.
    `every` is (interval, unit) for `every`, `at` is "HH:MM" for `daily`; the timezone
    becomes the workflow's timezone setting."""

    kind: Literal["schedule"] = "schedule"
    rule: ScheduleRule
    at: str | None = None
    interval: int | None = None
    unit: ScheduleUnit | None = None
    cron: str | None = None
    timezone: str | None = None


@dataclass(frozen=True, kw_only=True)
class NodeTrigger(TriggerNode):
    """`on node ...`: any other n8n trigger node (a form, an app event, a sub-workflow call)."""

    kind: Literal["node"] = "node"
    node: NodeSpec


Trigger = WebhookTrigger | ManualTrigger | ScheduleTrigger | NodeTrigger


# --- steps --------------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class StepNode(Node):
    """What every step has: a name, where its input comes from and raw n8n node properties.
    `after` None means "the step before it" (or the branch it starts); () means no input."""

    name: str
    after: tuple[Wire, ...] | None = None
    extra: dict[str, Any] = _field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class SetField(Node):
    """`name = expression`: one output field of a `set` step (or a query/header/body entry)."""

    name: str
    value: Expr


@dataclass(frozen=True, kw_only=True)
class SetStep(StepNode):
    """`set NAME { field = expr, ... }`: its output item has exactly these fields."""

    kind: Literal["set"] = "set"
    fields: tuple[SetField, ...]


@dataclass(frozen=True, kw_only=True)
class IfStep(StepNode):
    """`if NAME condition { ... } else { ... }`: items pass through unchanged. An empty
    `otherwise` means there is no else branch."""

    kind: Literal["if"] = "if"
    condition: Expr
    then: tuple[Step, ...]
    otherwise: tuple[Step, ...] = ()


@dataclass(frozen=True, kw_only=True)
class SwitchCase(Node):
    condition: Expr
    steps: tuple[Step, ...]


@dataclass(frozen=True, kw_only=True)
class SwitchStep(StepNode):
    """`switch NAME { case cond { ... } ... else { ... } }`: each item goes to the first case
    whose condition holds (output i), or to `else` (the last output) if there is one."""

    kind: Literal["switch"] = "switch"
    cases: tuple[SwitchCase, ...]
    otherwise: tuple[Step, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class RespondStep(StepNode):
    """`respond NAME expression`: answers the webhook request with the expression's value."""

    kind: Literal["respond"] = "respond"
    body: Expr


@dataclass(frozen=True, kw_only=True)
class HttpStep(StepNode):
    """`http NAME METHOD "url {{template}}" [query {...}] [headers {...}] [body {...}]
    [credentials TYPE "name"]`: its output item is the response's JSON."""

    kind: Literal["http"] = "http"
    method: HttpMethod
    url: Template
    query: tuple[SetField, ...] = ()
    headers: tuple[SetField, ...] = ()
    body: tuple[SetField, ...] | None = None
    credentials: Credentials | None = None
    returns: Shape | None = None  # `returns {...}`: the fields of the response's JSON


@dataclass(frozen=True, kw_only=True)
class MergeStep(StepNode):
    """`merge NAME [by position]` after an `if` or `switch`: waits for its branches (input i is
    branch i) and appends their items, or pairs them by position."""

    kind: Literal["merge"] = "merge"
    mode: Literal["append", "position"] = "append"


@dataclass(frozen=True, kw_only=True)
class WaitStep(StepNode):
    """`wait NAME 5 minutes`: pauses, then passes its items on."""

    kind: Literal["wait"] = "wait"
    amount: int
    unit: WaitUnit


@dataclass(frozen=True, kw_only=True)
class NodeStep(StepNode):
    """`node ...`: any other n8n node; its output is not typed."""

    kind: Literal["node"] = "node"
    node: NodeSpec


Step = SetStep | IfStep | SwitchStep | RespondStep | HttpStep | MergeStep | WaitStep | NodeStep


@dataclass(frozen=True, kw_only=True)
class Workflow(Node):
    name: str
    description: str | None = None
    trigger: Trigger
    steps: tuple[Step, ...]
    extra: dict[str, Any] = _field(
        default_factory=dict
    )  # raw top-level n8n workflow properties (settings, pinData, ...)


def branches(step: Step) -> tuple[tuple[Step, ...], ...]:
    """The blocks a step holds, by output index (an if: then, else; a switch: its cases, else)."""
    if isinstance(step, IfStep):
        return (step.then, step.otherwise)
    if isinstance(step, SwitchStep):
        cases = tuple(case.steps for case in step.cases)
        return cases if step.otherwise is None else (*cases, step.otherwise)
    return ()


def walk_steps(steps: tuple[Step, ...]) -> Iterator[Step]:
    """Every step, branches included, in source order (depth first)."""
    for step in steps:
        yield step
        for block in branches(step):
            yield from walk_steps(block)
