"""Starter automations as parameterized workflow DSL (docs/templates.md).

    import toolkiln
    for t in toolkiln.templates.list():
        print(t.slug, t.title, [(p.name, p.type.name, p.default) for p in t.parameters])
    wf = toolkiln.templates.render("lead-followup", crm_url="https://crm.example.com/api")
    wf.to_n8n()        # the same CompiledWorkflow that toolkiln.compile_workflow returns

Bad values (missing, unknown, wrong type) raise CompileError with E0802-E0804 diagnostics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkiln.templates.library import SUFFIX, get, shipped
from toolkiln.templates.params import TYPES, Parameter, ParamType
from toolkiln.templates.render import render_dsl
from toolkiln.templates.source import Template

if TYPE_CHECKING:
    import builtins  # `list` names this module's function below

    from toolkiln.workflow.compile import CompiledWorkflow

__all__ = ["TYPES", "ParamType", "Parameter", "Template", "get", "list", "render", "render_text"]


def list() -> builtins.list[Template]:  # noqa: A001 - the API's name
    """Every shipped template, sorted by slug."""
    return [*shipped().values()]


def render_text(slug: str, /, **params: object) -> str:
    """The workflow DSL of template `slug` with these parameter values; raises CompileError."""
    return render_dsl(get(slug), params)


def render(slug: str, /, **params: object) -> CompiledWorkflow:
    """Template `slug` rendered with these values and compiled (a CompiledWorkflow); raises
    CompileError with the diagnostics of the values, or of the rendered workflow."""
    from toolkiln.workflow import compile_workflow  # the validator loads on use

    return compile_workflow(render_text(slug, **params), f"{slug}{SUFFIX} (rendered)")
