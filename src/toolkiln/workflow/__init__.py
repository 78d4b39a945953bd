"""The workflow language: automations compiled to n8n workflows (docs/workflows.md).

    from toolkiln.workflow import compile_workflow
    wf = compile_workflow(open("orders.wf").read())
    wf.to_n8n()          # n8n workflow JSON, ready for N8nClient.create_workflow
    wf.to_text()         # the canonical DSL text

    from toolkiln.workflow import import_n8n
    imported = import_n8n(open("export.json").read())   # an n8n export -> DSL, losslessly
    imported.to_text(); imported.to_n8n(); imported.diagnostics

The names load on first use, so the CLI can register `toolkiln workflow` without importing
the validator for every other command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkiln.backends.n8n.importer import ImportedWorkflow, import_n8n
    from toolkiln.workflow.compile import CompiledWorkflow, check_workflow, compile_workflow

__all__ = ["CompiledWorkflow", "ImportedWorkflow", "check_workflow", "compile_workflow", "import_n8n"]
_MODULES = {
    "CompiledWorkflow": "toolkiln.workflow.compile",
    "check_workflow": "toolkiln.workflow.compile",
    "compile_workflow": "toolkiln.workflow.compile",
    "ImportedWorkflow": "toolkiln.backends.n8n.importer",
    "import_n8n": "toolkiln.backends.n8n.importer",
}


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        import importlib

        return getattr(importlib.import_module(_MODULES[name]), name)
    raise AttributeError(f"module 'toolkiln.workflow' has no attribute {name!r}")
