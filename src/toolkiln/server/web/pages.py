"""The pages that only show: the tool list and a tool's tabs."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from toolkiln.registry.kinds import KINDS
from toolkiln.registry.policy import next_actions
from toolkiln.semantics.limits import DEFAULT_LIMITS
from toolkiln.server.services import Reg
from toolkiln.server.web import tool_view
from toolkiln.server.web.access import Viewer
from toolkiln.server.web.actions import offered
from toolkiln.server.web.form_fields import form_fields
from toolkiln.server.web.listing import Query, list_tools, whole_number
from toolkiln.server.web.rendering import render

router = APIRouter(include_in_schema=False)
DONE = {
    "approve": "Approved.",
    "reject": "Rejected.",
    "enable": "Enabled.",
    "disable": "Disabled.",
    "rollback": "Rolled back: a new version.",
    "create": "Created.",
    "update": "Saved.",
    "repin": "Its callers run this version now.",
}


@router.get("/")
@router.get("/ui")
def home() -> Response:
    return RedirectResponse("/ui/tools", status_code=303)


@router.get("/ui/tools")
def tool_list(request: Request, reg: Reg, visitor: Viewer) -> Response:
    query = Query.of(dict(request.query_params))
    listing = list_tools(reg, query)
    deleted = request.query_params.get("deleted", "")
    pending = listing.by_status.get("pending_approval", 0)  # counted already: the header's badge
    return render(
        request, "list.html", visitor, pending=pending, query=query, listing=listing, kinds=KINDS, deleted=deleted[:64]
    )


def tool_page(request: Request, reg: Reg, visitor: Viewer, name: str, tab: str, **extra: Any) -> Response:
    """A tool's page on `tab`; `extra` adds to what the tab shows (a test run's result)."""
    record = reg.get(name)
    tabs = tool_view.tabs_for(reg, record)
    tab = tab if tab in tabs else "definition"
    possible = [*next_actions(record.status), "delete", "update", "rollback"]
    allowed = offered(visitor, reg.policy, possible, record)  # only what this visitor may do
    actions = [action for action in allowed if action not in ("update", "rollback")]  # those two have their places
    context: dict[str, Any] = {"record": record, "tabs": tabs, "tab": tab, "actions": actions, "allowed": allowed}
    context.update(trusted_here=reg.trusted_here(name), registry_path=reg.location)
    params = request.query_params
    if tab == "definition":
        context["definition"] = tool_view.definition_view(record)
    elif tab == "graph":
        context["svg"], context["diagnostics"] = tool_view.graph_view(record)
    elif tab == "examples":
        context["runs"], context["diagnostics"] = tool_view.example_runs(reg, record)
    elif tab == "review":
        context["review"], context["review_error"] = tool_view.review_view(reg, name)
        context["budget"] = (reg.limits or DEFAULT_LIMITS).max_operations
    elif tab == "test":
        context["fields"] = form_fields(record.parameters, record.definition.get("examples"))
        context.setdefault("values", {})
    elif tab == "versions":
        left, right = params.get("left", ""), params.get("right", "")
        context["versions"] = tool_view.versions_view(reg, name, whole_number(left), whole_number(right))
    elif tab == "audit":
        context["audit"] = list(reversed(reg.audit_log(tool=name)))
    context["done"] = DONE.get(params.get("done", ""), "")
    context.update(extra)
    return render(request, "tool.html", visitor, **context)


@router.get("/ui/tools/{name}")
def show_tool(request: Request, reg: Reg, visitor: Viewer, name: str, tab: str = "definition") -> Response:
    return tool_page(request, reg, visitor, name, tab)
