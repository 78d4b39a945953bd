"""The workflow language: automations compiled to n8n workflows (docs/workflows.md).

    from toolkiln.workflow import compile_workflow
    wf = compile_workflow(open("orders.wf").read())
    wf.to_n8n()          # n8n workflow JSON, ready for N8nClient.create_workflow

The names load on first use, so the CLI can register `toolkiln workflow` without importing
the validator (and networkx) for every other command.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CompiledWorkflow", "check_workflow", "compile_workflow"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from toolkiln.workflow import compile as compiled

        return getattr(compiled, name)
    raise AttributeError(f"module 'toolkiln.workflow' has no attribute {name!r}")
