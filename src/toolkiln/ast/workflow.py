"""The typed AST of the workflow language.

Same conventions as `ast/compute.py`: frozen pydantic nodes with a `span`, children as tuples,
unions discriminated by `kind`. Expressions inside a workflow are compute expressions
(`toolkiln.ast.compute.Expr`), so one checker types both languages.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from toolkiln.ast.compute import Expr, Node

HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"]
HTTP_METHODS: tuple[str, ...] = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")


# --- triggers -----------------------------------------------------------------------------

class WebhookTrigger(Node):
    """`on webhook POST "/orders" [respond with node]`. `path` is stored as written."""

    kind: Literal["webhook"] = "webhook"
    method: HttpMethod
    path: str
    respond_with_node: bool = False


class ManualTrigger(Node):
    """`on manual`: run from the n8n editor or `n8n execute`; it cannot be activated."""

    kind: Literal["manual"] = "manual"


Trigger = Annotated[WebhookTrigger | ManualTrigger, Field(discriminator="kind")]


# --- steps --------------------------------------------------------------------------------

class SetField(Node):
    """`name = expression`: one output field of a `set` step."""

    name: str
    value: Expr


class SetStep(Node):
    """`set NAME { field = expr, ... }`: its output item has exactly these fields."""

    kind: Literal["set"] = "set"
    name: str
    fields: tuple[SetField, ...]


class IfStep(Node):
    """`if NAME condition { ... } else { ... }`: items pass through unchanged. An empty
    `otherwise` means there is no else branch."""

    kind: Literal["if"] = "if"
    name: str
    condition: Expr
    then: tuple[Step, ...]
    otherwise: tuple[Step, ...] = ()


class RespondStep(Node):
    """`respond NAME expression`: answers the webhook request with the expression's value."""

    kind: Literal["respond"] = "respond"
    name: str
    body: Expr


Step = Annotated[SetStep | IfStep | RespondStep, Field(discriminator="kind")]


class Workflow(Node):
    name: str
    description: str | None = None
    trigger: Trigger
    steps: tuple[Step, ...]


def walk_steps(steps: tuple[Step, ...]):
    """Every step, branches included, in source order (depth first)."""
    for step in steps:
        yield step
        if isinstance(step, IfStep):
            yield from walk_steps(step.then)
            yield from walk_steps(step.otherwise)
