"""The typed AST of the workflow language.

Frozen, slotted, keyword-only dataclasses with a `span`, children as tuples, the kinds of a
union told apart by `kind`. Expressions inside a workflow are compute expressions
(`toolkiln.ast.compute`), so one checker types both languages. Not pydantic models (issue 34:
building their validators was a third of `toolkiln check x.wf`): the front end builds nodes
from what it matched, and the n8n importer checks what it reads from an export before it makes
a node of it (backends/n8n/modeled.py), as the compute AST's front ends do.

The classes share the compute nodes' equality, hash, repr and refusal to change (ast/nodes.py)
and one `__init__` that sets the fields it is given by name: `@dataclass(frozen=True)` compiled
six methods a class as the module loaded, a tenth of a workflow check's instructions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import MISSING, Field, fields
from dataclasses import field as _field
from typing import Any, Literal

from toolkiln.ast import nodes
from toolkiln.ast.compute import Expr, Template
from toolkiln.ast.nodes import node, set_field
from toolkiln.ast.spans import NO_SPAN, Span

_FIELDS: dict[type, tuple[Field[Any], ...]] = {}  # each class's fields, looked up once


@node
class Node(nodes.Node):
    span: Span = NO_SPAN

    def __init__(self, **given: Any) -> None:
        cls = type(self)
        declared = _FIELDS.get(cls) or _FIELDS.setdefault(cls, fields(cls))
        for field in declared:
            if field.name in given:
                value = given.pop(field.name)
            elif field.default is not MISSING:
                value = field.default
            elif field.default_factory is not MISSING:
                value = field.default_factory()
            else:
                raise TypeError(f"{cls.__name__}() missing the keyword argument {field.name!r}")
            set_field(self, field.name, value)
        if given:
            raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {next(iter(given))!r}")


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


@node
class Wire(Node):
    """`after source[output] -> input`: output `output` of node `source` feeds input `input`."""

    source: str
    output: int = 0
    input: int = 0


@node
class FieldType(Node):
    """The type of a declared field: one of FIELD_TYPES by `name`, `{...}` (an `object` whose
    fields `shape` declares) or `[type]` (an `array` whose items are `items`)."""

    name: str
    shape: Shape | None = None
    items: FieldType | None = None


@node
class ShapeField(Node):
    """`name: type` in a declared shape."""

    name: str
    type: FieldType


@node
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


@node
class Credentials(Node):
    """`credentials TYPE "name"`: the n8n credential of type TYPE with that name."""

    type: str
    name: str


@node
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


@node
class TriggerNode(Node):
    """What every trigger has: raw n8n node properties (`with {...}` after it)."""

    extra: dict[str, Any] = _field(default_factory=dict)


@node
class WebhookTrigger(TriggerNode):
    """`on webhook POST "/orders" [respond with node]`. `path` is stored as written."""

    kind: Literal["webhook"] = "webhook"
    method: HttpMethod
    path: str
    respond_with_node: bool = False
    body: Shape | None = None  # `body {...}`: the fields the posted JSON is declared to have


@node
class ManualTrigger(TriggerNode):
    """`on manual`: run from the n8n editor or `n8n execute`; it cannot be activated."""

    kind: Literal["manual"] = "manual"


@node
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


@node
class NodeTrigger(TriggerNode):
    """`on node ...`: any other n8n trigger node (a form, an app event, a sub-workflow call)."""

    kind: Literal["node"] = "node"
    node: NodeSpec


Trigger = WebhookTrigger | ManualTrigger | ScheduleTrigger | NodeTrigger


# --- steps --------------------------------------------------------------------------------


@node
class StepNode(Node):
    """What every step has: a name, where its input comes from and raw n8n node properties.
    `after` None means "the step before it" (or the branch it starts); () means no input."""

    name: str
    after: tuple[Wire, ...] | None = None
    extra: dict[str, Any] = _field(default_factory=dict)


@node
class SetField(Node):
    """`name = expression`: one output field of a `set` step (or a query/header/body entry)."""

    name: str
    value: Expr


@node
class SetStep(StepNode):
    """`set NAME { field = expr, ... }`: its output item has exactly these fields."""

    kind: Literal["set"] = "set"
    fields: tuple[SetField, ...]


@node
class IfStep(StepNode):
    """`if NAME condition { ... } else { ... }`: items pass through unchanged. An empty
    `otherwise` means there is no else branch."""

    kind: Literal["if"] = "if"
    condition: Expr
    then: tuple[Step, ...]
    otherwise: tuple[Step, ...] = ()


@node
class SwitchCase(Node):
    condition: Expr
    steps: tuple[Step, ...]


@node
class SwitchStep(StepNode):
    """`switch NAME { case cond { ... } ... else { ... } }`: each item goes to the first case
    whose condition holds (output i), or to `else` (the last output) if there is one."""

    kind: Literal["switch"] = "switch"
    cases: tuple[SwitchCase, ...]
    otherwise: tuple[Step, ...] | None = None


@node
class RespondStep(StepNode):
    """`respond NAME expression`: answers the webhook request with the expression's value."""

    kind: Literal["respond"] = "respond"
    body: Expr


@node
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


@node
class MergeStep(StepNode):
    """`merge NAME [by position]` after an `if` or `switch`: waits for its branches (input i is
    branch i) and appends their items, or pairs them by position."""

    kind: Literal["merge"] = "merge"
    mode: Literal["append", "position"] = "append"


@node
class WaitStep(StepNode):
    """`wait NAME 5 minutes`: pauses, then passes its items on."""

    kind: Literal["wait"] = "wait"
    amount: int
    unit: WaitUnit


@node
class NodeStep(StepNode):
    """`node ...`: any other n8n node; its output is not typed."""

    kind: Literal["node"] = "node"
    node: NodeSpec


Step = SetStep | IfStep | SwitchStep | RespondStep | HttpStep | MergeStep | WaitStep | NodeStep


@node
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
