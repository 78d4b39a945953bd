"""/api/v1/workflows (compile, deploy to n8n) and /api/v1/templates (list, render)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter
from fastapi import Path as PathParam

from toolkiln import templates
from toolkiln import workflow as workflow_language  # (its compiler loads on first use)
from toolkiln.errors import CompileError
from toolkiln.n8n.errors import N8nConfigError, N8nError
from toolkiln.registry.errors import N8nNotConfigured, WorkflowDeployFailed
from toolkiln.server.auth import Reader, Writer
from toolkiln.server.problems import NotFound
from toolkiln.server.responses import ExactJSONResponse
from toolkiln.server.routes import PROBLEMS
from toolkiln.server.schemas import (
    Compiled,
    CompileWorkflow,
    Deployed,
    DeployWorkflow,
    Rendered,
    RenderTemplate,
    TemplateOut,
)
from toolkiln.templates.source import Template

router = APIRouter(tags=["workflows"], responses=PROBLEMS, default_response_class=ExactJSONResponse)
Slug = Annotated[str, PathParam(description="a template's slug (GET /templates)", max_length=200)]


@router.post("/workflows/compile", response_model=Compiled, summary="Workflow DSL to n8n workflow JSON")
def compile_(body: CompileWorkflow, _: Reader) -> Any:
    compiled = workflow_language.compile_workflow(body.source, strict=body.strict, n8n_version=body.n8n_version)
    return ExactJSONResponse(
        {
            "name": compiled.name,
            "workflow": compiled.to_n8n(),
            "diagnostics": [d.to_dict() for d in compiled.diagnostics],
        }
    )


@router.post("/workflows/deploy", response_model=Deployed, summary="Compile and deploy a workflow to n8n")
def deploy_(body: DeployWorkflow, _: Writer) -> Any:
    """n8n is the one of TOOLKILN_N8N_URL and TOOLKILN_N8N_API_KEY in the server's environment."""
    # (imported here: the n8n client brings httpx, httpcore and rich, a tenth of the server's start)
    from toolkiln.n8n.client import N8nClient
    from toolkiln.n8n.deploy import deploy

    workflow = workflow_language.compile_workflow(body.source).to_n8n()
    try:
        with N8nClient.from_env() as client:
            deployed = deploy(client, workflow, activate=body.activate)
            hooks = [
                {"method": hook.method, "path": hook.path, "url": client.webhook_url(hook.path)}
                for hook in deployed.webhooks
            ]
    except N8nConfigError as error:
        raise N8nNotConfigured(str(error), hint="start the server with TOOLKILN_N8N_URL (and _API_KEY) set") from None
    except N8nError as error:
        raise WorkflowDeployFailed(str(error), status=error.status) from None
    return ExactJSONResponse(
        {
            "id": deployed.id,
            "name": deployed.name,
            "active": deployed.active,
            "created": deployed.created,
            "webhooks": hooks,
        }
    )


def template_json(template: Template) -> dict[str, Any]:
    return {
        "slug": template.slug,
        "title": template.title,
        "description": template.description,
        "parameters": [
            {
                "name": p.name,
                "type": p.type.name,
                "description": p.description,
                "required": p.required,
                "default": p.default,
            }
            for p in template.parameters
        ],
    }


@router.get("/templates", response_model=list[TemplateOut], summary="The starter workflows")
def list_templates(_: Reader) -> Any:
    return ExactJSONResponse([template_json(t) for t in templates.list()])


@router.post("/templates/{slug}/render", response_model=Rendered, summary="Render a template (n8n JSON or DSL)")
def render_template(slug: Slug, body: RenderTemplate, _: Reader) -> Any:
    try:
        templates.get(slug)
    except CompileError as error:
        raise NotFound(error.diagnostics) from None
    if body.dsl:
        return ExactJSONResponse({"slug": slug, "dsl": templates.render_text(slug, **body.values), "workflow": None})
    return ExactJSONResponse({"slug": slug, "dsl": None, "workflow": templates.render(slug, **body.values).to_n8n()})
