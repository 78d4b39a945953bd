"""What validating a workflow found and learned: its graph, the diagnostics, and the static
types the n8n emitter needs."""

from __future__ import annotations

from dataclasses import dataclass, field

from toolkiln.ast.spans import Span
from toolkiln.ast.types import Type
from toolkiln.check.workflow.catalog import CatalogLoader
from toolkiln.check.workflow.graph import WorkflowGraph
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic

# The severity policy (docs/workflows.md#severities): an error is what n8n refuses or what
# cannot run; what n8n accepts and runs is a warning — the same warning the n8n linter gives
# an export with that finding. `strict` validation keeps the error.
ACCEPTED_BY_N8N: dict[codes.Code, codes.Code] = {
    codes.DISCONNECTED_STEP: codes.UNREACHABLE_NODE,  # n8n saves it and never runs it
    codes.WORKFLOW_CYCLE: codes.NODE_CYCLE,  # n8n runs loops (they end when items run out)
    codes.UNKNOWN_NODE_TYPE: codes.NODE_NOT_IN_CATALOG,  # the catalog may be older than the server
    codes.UNKNOWN_PARAMETER: codes.NODE_PARAMETER_UNKNOWN,  # n8n keeps parameters it does not know
}


@dataclass
class Validation:
    graph: WorkflowGraph
    catalog: CatalogLoader
    strict: bool = False
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # The static type of each `set` field, by (step name, field name): the emitter's n8n type.
    field_types: dict[tuple[str, str], Type] = field(default_factory=dict)
    # The type of each respond body, by step name.
    respond_types: dict[str, Type] = field(default_factory=dict)
    # The type a `set` field has from declared shapes it reads (checks only, never the JSON).
    declared_types: dict[tuple[str, str], Type] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    def report(self, code: codes.Code, message: str, span: Span, hint: str | None = None) -> None:
        if not self.strict:
            code = ACCEPTED_BY_N8N.get(code, code)
        self.diagnostics.append(Diagnostic.of(code, message, span, hint))
