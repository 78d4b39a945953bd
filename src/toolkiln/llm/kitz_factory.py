"""Kitz's meta-tools by Kitz's names: `toolFactory_*` as aliases of toolkiln's meta-tools, for
a model prompted the Kitz way (docs/migrating.md#kitz).

    definitions = kitz_factory_definitions("openai")
    reply = call_kitz_factory(reg, "toolFactory_createCompute", {"tool_name": ..., "logic": ...})

| Kitz                             | toolkiln                                                        |
| -------------------------------- | --------------------------------------------------------------- |
| toolFactory_createCompute        | create_compute_tool (Kitz's logic read with Kitz's meaning)     |
| toolFactory_createFromTemplate   | create_workflow_tool with a template rendered: toolkiln's       |
|                                  | (customizations are its parameters) or Kitz's own (kitz_templates) |
| toolFactory_listCustomTools      | list_custom_tools, `type` "compute" or "n8n" (workflow tools)   |
| toolFactory_deleteCustomTool     | delete_custom_tool (a model deletes only its own tools)         |

toolFactory_createFromDescription is not offered: in toolkiln the model writes the workflow
(create_workflow_tool), rather than a hidden second model. Every reply is the meta-tool's
(`ok`, `message`, `errors`) with Kitz's keys added: `success` and `toolName`, or `error`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolkiln.diagnostics.codes import INVALID_REQUEST
from toolkiln.diagnostics.details import ErrorDetails
from toolkiln.errors import CompileError, Error
from toolkiln.registry import exports
from toolkiln.registry.formats import COMPUTE_ANNOTATIONS
from toolkiln.registry.kitz import KitzRefused, kitz_logic, template_workflow
from toolkiln.registry.meta import explained
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.principals import Principal

if TYPE_CHECKING:
    from toolkiln.registry.registry import Registry

_NAME = {"type": "string", "description": "Name for the new tool (snake_case)"}
_DESCRIPTION = {"type": "string", "description": "Human-readable description"}


# In MCP's terms: each call changes the registry, except listing.
_WRITES = {**COMPUTE_ANNOTATIONS, "readOnlyHint": False, "idempotentHint": False}


def _arguments_object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def _specs(gemini: bool) -> list[exports.ToolSpec]:
    obj_or_text = "string" if gemini else "object"  # Gemini cannot describe a free object argument
    obj, hints = _arguments_object, _WRITES
    return [
        exports.ToolSpec(
            "toolFactory_createFromTemplate",
            "Create a new automation tool from a workflow template. The tool waits for a person to "
            "approve it; approval deploys it to n8n. `customizations` sets the template's "
            "parameters.",
            obj(
                {
                    "template": {"type": "string", "description": 'Template slug (e.g. "new-lead-welcome")'},
                    "tool_name": _NAME,
                    "tool_description": _DESCRIPTION,
                    "customizations": {"type": obj_or_text, "description": "Optional template parameters"},
                },
                ["template", "tool_name", "tool_description"],
            ),
            hints,
        ),
        exports.ToolSpec(
            "toolFactory_createCompute",
            "Create a new compute tool using a safe JSON DSL. For data transformations, "
            "calculations, and formatting. No arbitrary code execution.",
            obj(
                {
                    "tool_name": _NAME,
                    "tool_description": {"type": "string", "description": "What this tool calculates or transforms"},
                    "tool_parameters": {"type": obj_or_text, "description": "Input parameters schema"},
                    "logic": {"type": obj_or_text, "description": "ComputeLogic JSON DSL with steps array"},
                },
                ["tool_name", "tool_description", "tool_parameters", "logic"],
            ),
            hints,
        ),
        exports.ToolSpec(
            "toolFactory_listCustomTools",
            "List all custom tools, with their type, status and risk level.",
            obj({"type": {"type": "string", "description": 'Filter by type: "n8n" or "compute". Omit for all.'}}, []),
            {**hints, "readOnlyHint": True, "idempotentHint": True},
        ),
        exports.ToolSpec(
            "toolFactory_deleteCustomTool",
            "Delete a custom tool you created, with its n8n workflow if it has one.",
            obj(
                {
                    "tool_name": {"type": "string", "description": "Name of the tool to delete"},
                    "delete_n8n_workflow": {"type": "boolean", "description": "Always done for an n8n tool"},
                },
                ["tool_name"],
            ),
            {**hints, "destructiveHint": True, "idempotentHint": True},
        ),
    ]


KITZ_FACTORY_NAMES = tuple(spec.name for spec in _specs(gemini=False))


def kitz_factory_definitions(format: str) -> list[dict[str, Any]]:  # noqa: A002 - the public parameter name
    """The toolFactory_* definitions in a tool-calling format (openai, anthropic, mcp, gemini)."""
    exports.check_format(format)
    return exports.export(_specs(gemini=format == "gemini"), format).definitions


def call_kitz_factory(
    registry: Registry,
    name: str,
    args: Any,
    created_by: Principal | str = "llm",
    *,
    kitz_templates: Path | None = None,
) -> dict[str, Any]:
    """Carry out a toolFactory_* call through the meta-tool it names; never raises on what a
    model sends. `kitz_templates` is Kitz's data/n8n-workflows, whose templates come before
    toolkiln's of the same slug."""
    handler = _HANDLERS.get(name)
    if handler is None:
        return registry.call_meta(name, args, created_by)  # says there is no such meta-tool
    arguments = dict(args) if isinstance(args, Mapping) else None
    if arguments is None:
        return registry.call_meta(name, args, created_by)  # the meta-tools' own refusal of non-objects
    try:
        _decode_text(arguments, name)
        reply = handler(registry, arguments, created_by, kitz_templates)
    except _BadArguments as bad:
        reply = Outcome.refused(name, bad.errors).reply()
    except Error as error:
        reply = Outcome.failed(name, error).reply()
    return _with_kitz_keys(reply, arguments)


class _BadArguments(Exception):
    def __init__(self, errors: list[ErrorDetails]) -> None:
        self.errors = errors


# The arguments a model sends: each one's required-ness and type, in Kitz's names.
_ARGUMENTS: dict[str, dict[str, tuple[bool, type | tuple[type, ...]]]] = {
    "toolFactory_createFromTemplate": {
        "template": (True, str),
        "tool_name": (True, str),
        "tool_description": (True, str),
        "customizations": (False, dict),
    },
    "toolFactory_createCompute": {
        "tool_name": (True, str),
        "tool_description": (True, str),
        "tool_parameters": (True, dict),
        "logic": (True, dict),
    },
    "toolFactory_listCustomTools": {"type": (False, str)},
    "toolFactory_deleteCustomTool": {"tool_name": (True, str), "delete_n8n_workflow": (False, bool)},
}


def _decode_text(arguments: dict[str, Any], tool: str) -> None:
    """Object arguments sent as JSON text (Gemini's format) decoded; every missing argument,
    and every one of the wrong type, reported at once by its Kitz name."""
    errors = []
    for key, (required, kind) in _ARGUMENTS[tool].items():
        value = arguments.get(key)
        if kind is dict and isinstance(value, str):
            try:
                value = arguments[key] = json.loads(value, parse_float=Decimal)
            except ValueError as error:
                errors.append(_error(f"`{key}` is not valid JSON: {error}", key))
                continue
        if value is None:
            if required:
                errors.append(_error(f"missing argument `{key}`", key))
        elif not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            errors.append(_error(f"argument `{key}` must be {_WORDS[kind]}", key))
    if errors:
        raise _BadArguments(errors)


_WORDS: dict[Any, str] = {str: "a string", dict: "an object", bool: "true or false"}


def _error(message: str, path: str) -> ErrorDetails:
    hint = f"call it again with `{path}` as the description says"
    return ErrorDetails.coded(INVALID_REQUEST, message, hint, path=path)


def _with_kitz_keys(reply: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    if reply.get("ok"):
        return {"success": True, "toolName": arguments.get("tool_name"), **reply}
    return {"error": reply.get("message"), **reply}


def _create_compute(
    registry: Registry, args: dict[str, Any], created_by: Principal | str, _: Path | None
) -> dict[str, Any]:
    logic, warnings = kitz_logic(args["logic"])  # the model means Kitz's lookup and conditions
    definition = {
        "name": args.get("tool_name"),
        "description": args.get("tool_description"),
        "parameters": args["tool_parameters"] or None,  # Kitz writes {} for "none declared": inferred
        "logic": logic,
        "riskLevel": "medium",  # what Kitz's createCompute gives every tool
    }
    reply = registry.call_meta("create_compute_tool", {"definition": _present(definition)}, created_by)
    if reply.get("ok"):
        reply["warnings"] = [*explained([w.details() for w in warnings]), *reply.get("warnings", [])]
    return reply


def _create_from_template(
    registry: Registry, args: dict[str, Any], created_by: Principal | str, kitz_templates: Path | None
) -> dict[str, Any]:
    try:
        workflow = _rendered(args["template"], args.get("customizations") or {}, kitz_templates)
    except KitzRefused as refused:
        raise CompileError([refused.diagnostic]) from None
    fields = {
        "name": args.get("tool_name"),
        "description": args.get("tool_description"),
        "workflow": workflow,
        "riskLevel": "medium",  # what Kitz's createFromTemplate gives every tool
    }
    return registry.call_meta("create_workflow_tool", _present(fields), created_by)


def _rendered(slug: str, customizations: Mapping[str, Any], kitz_templates: Path | None) -> str:
    """The workflow DSL of template `slug`: Kitz's file when there is one, else toolkiln's
    template rendered with the customizations as its parameters."""
    from toolkiln import templates

    if kitz_templates is not None and (kitz_templates / f"{slug}.json").is_file():
        return template_workflow(slug, kitz_templates, "template")
    # Kitz's own customizations (the workflow's name, active) have no meaning for a toolkiln template.
    values = {key: value for key, value in customizations.items() if key not in ("name", "active")}
    return templates.render_text(slug, **values)


def _list(registry: Registry, args: dict[str, Any], created_by: Principal | str, _: Path | None) -> dict[str, Any]:
    wanted = args.get("type")
    kinds = {"compute": ("compute",), "n8n": ("workflow",)}.get(wanted) if wanted is not None else None
    if wanted is not None and kinds is None:
        raise _BadArguments([_error('`type` must be "n8n" or "compute"', "type")])
    tools = [
        {**record.summary(), "type": "n8n" if record.kind == "workflow" else record.kind}
        for record in registry.list()
        if kinds is None or record.kind in kinds
    ]
    return {"ok": True, "count": len(tools), "tools": tools}


def _delete(registry: Registry, args: dict[str, Any], created_by: Principal | str, _: Path | None) -> dict[str, Any]:
    # Kitz deletes without a confirmation: the call itself is the model's decision.
    return registry.call_meta("delete_custom_tool", {"name": args.get("tool_name"), "confirm": True}, created_by)


def _present(fields: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not None}


_HANDLERS: dict[str, Callable[[Registry, dict[str, Any], Principal | str, Path | None], dict[str, Any]]] = {
    "toolFactory_createFromTemplate": _create_from_template,
    "toolFactory_createCompute": _create_compute,
    "toolFactory_listCustomTools": _list,
    "toolFactory_deleteCustomTool": _delete,
}
assert tuple(_HANDLERS) == KITZ_FACTORY_NAMES
