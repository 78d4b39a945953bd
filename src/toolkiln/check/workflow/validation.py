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


@dataclass
class Validation:
    graph: WorkflowGraph
    catalog: CatalogLoader
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # The static type of each `set` field, by (step name, field name): the emitter's n8n type.
    field_types: dict[tuple[str, str], Type] = field(default_factory=dict)
    # The type of each respond body, by step name.
    respond_types: dict[str, Type] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(d.is_error for d in self.diagnostics)

    def report(self, code: codes.Code, message: str, span: Span, hint: str | None = None) -> None:
        self.diagnostics.append(Diagnostic.of(code, message, span, hint))
