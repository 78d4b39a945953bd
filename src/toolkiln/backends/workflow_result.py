"""What compiling or importing a workflow gives: its AST, its n8n JSON and the diagnostics."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from toolkiln.ast import workflow as w
from toolkiln.diagnostics.model import Diagnostic


@dataclass(frozen=True)
class WorkflowResult:
    """A workflow AST and its n8n JSON: `to_n8n()` and `to_text()` (canonical DSL)."""

    ast: w.Workflow
    n8n: dict[str, Any]
    diagnostics: tuple[Diagnostic, ...] = ()  # warnings (and, for an import, lint findings)

    @property
    def name(self) -> str:
        return self.ast.name

    def to_n8n(self) -> dict[str, Any]:
        """The n8n workflow JSON (a fresh copy: name, nodes, connections, settings)."""
        return copy.deepcopy(self.n8n)

    def to_text(self) -> str:
        """The canonical DSL text (what `toolkiln workflow fmt` writes)."""
        from toolkiln.backends.workflow_printer import print_workflow  # (not on a check's path)

        return print_workflow(self.ast)
