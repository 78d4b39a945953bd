"""Meta-tools: the model's interface to the registry.

    create_compute_tool   check a definition and save it (or, with update: true, a new version)
    create_workflow_tool  the same for a tool that runs as an n8n workflow (workflow DSL text)
    list_custom_tools     the registered tools, optionally of one status
    test_custom_tool      compile and run a definition without saving anything
    delete_custom_tool    delete a tool (needs confirm: true)
    toggle_custom_tool    enable or disable a tool

`call_meta` never raises on what a model sends: every failure is an `Outcome`'s reply
`{"ok": false, "errors": [...], "message": ...}` whose errors have the 16 keys of
`ErrorDetails.to_dict()` (code, name, severity, message, path, line, column, hint, ...), each
with a code and a hint. The tools that change the registry go through `Registry.apply`.
"""

from __future__ import annotations

import difflib
import json
import logging
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from toolkiln.diagnostics.codes import DUPLICATE_TOOL, INVALID_REQUEST
from toolkiln.diagnostics.details import ErrorDetails
from toolkiln.errors import Error
from toolkiln.registry import exports
from toolkiln.registry.applying import Change, Create, Delete, Lifecycle, Update, tool_named
from toolkiln.registry.json_values import plain_json
from toolkiln.registry.kinds import kind_of
from toolkiln.registry.names import META_TOOL_NAMES
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.principals import Principal, principal_of
from toolkiln.registry.repairing import with_certain_fixes
from toolkiln.semantics.builtins import authored_builtins

if TYPE_CHECKING:
    from toolkiln.registry.definitions import Compiled
    from toolkiln.registry.models import ToolRecord


class Registry(Protocol):
    """The registry as the meta-tools use it (`toolkiln.registry.Registry` is one): declared
    here, so that this module does not import the class that calls it."""

    def check_definition(self, definition: Any, *, seconds: float | None = None) -> Compiled: ...
    @property
    def check_seconds(self) -> float: ...
    def apply(self, request: Change, *, principal: Principal | str) -> Outcome: ...
    def get(self, name: str) -> ToolRecord: ...
    def list(self, status: str | None = None, created_by: str | None = None) -> list[ToolRecord]: ...
    def __contains__(self, name: object) -> bool: ...
    @property
    def tables(self) -> dict[str, dict[str, Any]]: ...


log = logging.getLogger(__name__)

_LANGUAGE = (
    'A definition is JSON: {"name": "snake_case_name", "description": "what it computes", '
    '"parameters": {"qty": {"type": "integer", "description": "..."}, "price": {"type": "number", "default": 0}}, '
    '"logic": {"steps": [...]}, "riskLevel": "low"}. Parameter types: number, integer, string, boolean, '
    'array (with "items": {"type": ...}), object, any. Steps run in order: '
    '{"op": "math", "expression": "qty * price", "output": "total"}; '
    '{"op": "lookup", "table": "rates", "key": "zone", "output": "rate", "default": "0"}; '
    '{"op": "format", "template": "Total: {{total:,.2f}}", "output": "label"}; '
    '{"op": "call", "tool": "another_registered_tool", "args": {"its_parameter": "qty * 2"}, "output": "r"}; '
    '{"op": "condition", "if": "total > 100", "then": [steps], "else": [steps]}; '
    '{"op": "return", "value": "round(total, 2)"}. Every path must end in a return. Expressions: '
    "+ - * / % **, == != < <= > >=, and or not, in, x if cond else y, [e for v in list if cond], "
    f"obj.field, list[i], and the functions {' '.join(authored_builtins())}. Numbers are exact decimals. "
    "There are no loops, imports or other functions. "
    'Optional "examples": [{"args": {"qty": 2, "price": 5}, "expect": 10}, ...]: each is run before the tool '
    "is saved, and a wrong result is reported with the arguments, the expected and the actual value."
)

_FIX = (
    "If it fails, the reply lists every problem with its code, location (JSON path, line, column) and a "
    "hint: fix them all and call again."
)

# A workflow tool, told in the workflow DSL's terms: the smallest workflow that answers a call.
_WORKFLOW_EXAMPLE = (
    "workflow order_total\n"
    'description "Prices an order"\n'
    'on webhook POST "/order-total" respond with node\n'
    "set priced { total = body.qty * body.price }\n"
    "respond reply priced\n"
)
_WORKFLOW_LANGUAGE = (
    'The workflow DSL text. Header `workflow NAME` and `description "..."`, then the trigger '
    '`on webhook POST "/path" respond with node` (a run posts the arguments there as JSON: `body.qty` is '
    "argument qty), then named steps, one after the other: `set NAME { field = expression, ... }`; "
    "`if NAME condition { steps } else { steps }`; `switch NAME { case condition { steps } else { steps } }`; "
    "`merge NAME` after an if or switch; `wait NAME 5 minutes`; "
    '`http NAME GET "https://api.example.com/x/{{body.id}}" [query {k = expr}] [headers {"X-Key" = expr}] '
    '[body {k = expr}] [credentials httpHeaderAuth "credential name"]`; '
    "`respond NAME expression` answers the call (its value is the tool's result). A step's output fields "
    "are `step.field`. Expressions are those of the compute language: + - * / % **, comparisons, "
    "and or not, x if c else y, round(), upper(), len(), ... Example:\n" + _WORKFLOW_EXAMPLE
)

_DEFINITION_OBJECT = {
    "type": "object",
    "description": _LANGUAGE,
    "properties": {
        "name": {"type": "string", "description": "Lower-case name: ^[a-z][a-z0-9_]{0,63}$"},
        "description": {"type": "string", "description": "What the tool computes, for whoever calls it."},
        "parameters": {"type": "object", "description": "Parameter name -> {type, description?, default?}."},
        "logic": {
            "type": "object",
            "description": '{"steps": [step, ...]}',
            "properties": {"steps": {"type": "array", "items": {"type": "object"}}},
            "required": ["steps"],
        },
        "riskLevel": {"type": "string", "enum": ["low", "medium", "high"]},
        "tables": {"type": "object", "description": "Optional: table name -> {type, description?}."},
    },
    "required": ["name", "description", "logic"],
}
_DEFINITION_TEXT = {"type": "string", "description": "The definition as JSON text. " + _LANGUAGE}
_ARGS_OBJECT = {"type": "object", "description": "Arguments to run the definition with, by parameter name."}
_ARGS_TEXT = {"type": "string", "description": "Arguments to run the definition with, as a JSON object text."}
_NAME = {"type": "string", "description": "The tool's name."}
_UPDATE = {"type": "boolean", "description": "Replace the existing tool of that name (default: false)."}
_PARAMETERS_OBJECT = {
    "type": "object",
    "description": 'The arguments: name -> {"type": "number"|"integer"|"string"|"boolean"|'
    '"array"|"object", "description": "...", "default": ...}. Each is posted to '
    "the webhook under its name (`body.name`).",
}
_PARAMETERS_TEXT = {
    **_PARAMETERS_OBJECT,
    "type": "string",
    "description": "As a JSON object text. " + _PARAMETERS_OBJECT["description"],
}
_SCHEMA_OBJECT = {
    "type": "object",
    "description": 'The arguments as a JSON Schema: {"type": "object", "properties": {"city": '
    '{"type": "string"}}, "required": ["city"]}. They are checked against it before the program runs.',
}
_SCHEMA_TEXT = {
    **_SCHEMA_OBJECT,
    "type": "string",
    "description": "As a JSON object text. " + _SCHEMA_OBJECT["description"],
}
_RISK = {"type": "string", "enum": ["low", "medium", "high"], "description": "What a run can do (default: low)."}
_STATUS = {
    "type": "string",
    "enum": ["active", "disabled", "pending_approval", "rejected"],
    "description": "Only tools of this status (default: all).",
}


def _specs(gemini: bool) -> list[exports.ToolSpec]:
    definition = _DEFINITION_TEXT if gemini else _DEFINITION_OBJECT
    args = _ARGS_TEXT if gemini else _ARGS_OBJECT
    parameters = _PARAMETERS_TEXT if gemini else _PARAMETERS_OBJECT
    schema = _SCHEMA_TEXT if gemini else _SCHEMA_OBJECT

    def obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
        return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}

    hints = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}
    return [
        exports.ToolSpec(
            "create_compute_tool",
            "Create a new tool that computes a result from its arguments; it is checked before it "
            "is saved and then appears in your tool list. The `definition` argument describes the "
            "language. " + _FIX + " A tool of that name you created can be replaced with update: true (the old version "
            "is kept). Try a definition with test_custom_tool first.",
            obj({"definition": definition, "update": _UPDATE}, ["definition"]),
            hints,
        ),
        exports.ToolSpec(
            "create_workflow_tool",
            "Create a tool that runs as an n8n workflow (an automation that can call HTTP APIs, "
            "branch and wait), written in the workflow DSL that the `workflow` argument describes. "
            "A call posts the tool's arguments as JSON to the workflow's webhook; what the "
            "workflow's `respond` step answers is the result. The tool is checked, then saved in "
            "pending_approval: it cannot be called until a person approves it, which deploys it "
            "to n8n. Minimal workflow:\n"
            + _WORKFLOW_EXAMPLE
            + _FIX
            + " With update: true a workflow tool you created is replaced (a new version, approved "
            "again).",
            obj(
                {
                    "name": {"type": "string", "description": "Lower-case name: ^[a-z][a-z0-9_]{0,63}$"},
                    "description": {"type": "string", "description": "What the tool does, for whoever calls it."},
                    "workflow": {"type": "string", "description": _WORKFLOW_LANGUAGE},
                    "parameters": parameters,
                    "riskLevel": _RISK,
                    "update": _UPDATE,
                },
                ["name", "description", "workflow"],
            ),
            hints,
        ),
        exports.ToolSpec(
            "create_script_tool",
            "Create a tool that runs a short bash, python or javascript (Node) program in a sandbox: no network unless "
            "network: true, a private /tmp, no access to the user's files, killed at timeout_secs. The "
            "arguments arrive only as data: one JSON object on stdin, and TK_ARG_<NAME> environment "
            "variables holding each argument's JSON (never pasted into the program). What the "
            "program prints is the result (JSON or text); an exit status other than 0 is a failure. "
            "The tool is checked, then saved in pending_approval: it never runs until a person "
            "approves it. " + _FIX + " With update: true a script tool you created is replaced (a "
            "new version, approved again).",
            obj(
                {
                    "name": {"type": "string", "description": "Lower-case name: ^[a-z][a-z0-9_]{0,63}$"},
                    "description": {"type": "string", "description": "What the tool does, for whoever calls it."},
                    "runtime": {"type": "string", "enum": ["bash", "python", "javascript"]},
                    "body": {"type": "string", "description": "The program's text (no #! line needed)."},
                    "parameters": schema,
                    "network": {"type": "boolean", "description": "Needs the network (default: false)."},
                    "timeout_secs": {"type": "number", "description": "Wall-clock limit, at most 3600 (default 10)."},
                    "update": _UPDATE,
                },
                ["name", "description", "runtime", "body"],
            ),
            hints,
        ),
        exports.ToolSpec(
            "list_custom_tools",
            "List the custom tools: name, description, status (active, disabled, pending_approval, "
            "rejected), version, who created it, risk level and how often it ran.",
            obj({"status": _STATUS}, []),
            {**hints, "readOnlyHint": True, "idempotentHint": True},
        ),
        exports.ToolSpec(
            "test_custom_tool",
            "Check a tool definition and, with args, run it once, without saving anything. Replies "
            "with the result (or every problem found, with its location and a hint) and the "
            "parameters' JSON Schema. Takes the same definition as create_compute_tool.",
            obj({"definition": definition, "args": args}, ["definition"]),
            {**hints, "readOnlyHint": True, "idempotentHint": True},
        ),
        exports.ToolSpec(
            "delete_custom_tool",
            "Delete a custom tool you created, with all its versions. This cannot be undone, so it "
            "needs confirm: true. Tools a person created cannot be deleted this way.",
            obj(
                {"name": _NAME, "confirm": {"type": "boolean", "description": "Must be true to delete."}},
                ["name", "confirm"],
            ),
            {**hints, "destructiveHint": True, "idempotentHint": True},
        ),
        exports.ToolSpec(
            "toggle_custom_tool",
            "Enable (enabled: true) or disable (enabled: false) a custom tool you created. A disabled "
            "tool stays saved but cannot be called. A tool waiting for approval needs a person.",
            obj({"name": _NAME, "enabled": {"type": "boolean"}}, ["name", "enabled"]),
            {**hints, "idempotentHint": True},
        ),
    ]


def meta_definitions(format: str) -> list[dict[str, Any]]:  # noqa: A002 - the public parameter name
    exports.check_format(format)
    result = exports.export(_specs(gemini=format == "gemini"), format)
    assert not result.skipped, result.skipped  # our own definitions fit every format
    return result.definitions


# --- calling --------------------------------------------------------------------------------


class _BadArguments(Exception):
    def __init__(self, errors: list[ErrorDetails]) -> None:
        self.errors = errors


def _error(message: str, hint: str | None = None, path: str | None = None) -> ErrorDetails:
    return ErrorDetails.coded(INVALID_REQUEST, message, hint, path=path)


def call_meta(reg: Registry, name: Any, args: Any, created_by: Principal | str = "llm") -> dict[str, Any]:
    tool = name[:64] if isinstance(name, str) else repr(name)[:64]
    try:
        principal = principal_of(created_by)
        handler = _HANDLERS.get(name) if isinstance(name, str) else None
        if handler is None:
            close = difflib.get_close_matches(tool, list(_HANDLERS), n=1)
            hint = f"did you mean `{close[0]}`?" if close else f"the meta-tools are: {', '.join(META_TOOL_NAMES)}"
            return Outcome.refused(tool, [_error(f"there is no meta-tool `{tool}`", hint)]).reply()
        return handler(reg, _arguments(args, tool), principal)
    except _BadArguments as bad:
        return Outcome.refused(tool, bad.errors).reply()
    except Error as error:
        return Outcome.failed(tool, error).reply()
    except Exception as error:  # a bug: the model reads a coded error, the log has the trace
        log.exception("meta-tool %s failed", tool)
        return Outcome.failed(tool, error).reply()


def _arguments(args: Any, tool: str) -> dict[str, Any]:
    if args is None:
        return {}
    if isinstance(args, str | bytes):
        try:
            args = json.loads(args, parse_float=Decimal)
        except (ValueError, RecursionError) as error:
            raise _BadArguments(
                [_error(f"the arguments are not valid JSON: {error}", "send the arguments as a JSON object")]
            ) from None
    if not isinstance(args, Mapping):
        raise _BadArguments(
            [
                _error(
                    f"the arguments must be a JSON object, not {type(args).__name__}",
                    f"call {tool} with an object of named arguments",
                )
            ]
        )
    return dict(args)


def _check(args: dict[str, Any], spec: dict[str, tuple[type | tuple[type, ...], bool, str]]) -> None:
    """Every problem with the arguments at once: unknown, missing, of the wrong type."""
    errors = []
    for key in args:
        if key not in spec:
            close = difflib.get_close_matches(str(key), list(spec), n=1)
            errors.append(
                _error(
                    f"unknown argument `{str(key)[:40]}`",
                    f"did you mean `{close[0]}`?" if close else f"arguments: {', '.join(spec)}",
                    str(key)[:64],
                )
            )
    for key, (kinds, required, what) in spec.items():
        if key not in args or args[key] is None:
            if required:
                errors.append(_error(f"missing argument `{key}` ({what})", f"add `{key}`", key))
            continue
        value = args[key]
        if not isinstance(value, kinds) or (bool not in _tuple(kinds) and isinstance(value, bool)):
            errors.append(_error(f"argument `{key}` must be {what}, not {_json_type(value)}", path=key))
    if errors:
        raise _BadArguments(errors)


def _tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float | Decimal):
        return "a number"
    names = {str: "a string", list: "a list", dict: "an object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _definition(args: dict[str, Any]) -> Any:
    """The definition argument (an object or JSON/DSL text); a model that put the definition's
    fields directly into the arguments is understood too."""
    if "definition" not in args and "logic" in args:
        extra = {
            k: args.pop(k)
            for k in list(args)
            if k in ("name", "description", "parameters", "logic", "riskLevel", "tables")
        }
        args["definition"] = extra
    return args.get("definition")


def _parsed(args: dict[str, Any], key: str) -> Any:
    """Argument `key`, decoded when it came as JSON text."""
    value = args[key]
    if isinstance(value, str):
        try:
            return json.loads(value, parse_float=Decimal)
        except ValueError as error:
            raise _BadArguments(
                [_error(f"`{key}` is not valid JSON: {error}", f"send {key} as a JSON object", key)]
            ) from None
    return value


def _create(reg: Registry, args: dict[str, Any], created_by: Principal) -> dict[str, Any]:
    _definition(args)
    _check(
        args,
        {"definition": ((dict, str), True, "the tool definition, an object"), "update": (bool, False, "true or false")},
    )
    return _save(reg, args["definition"], bool(args.get("update")), created_by)


_WORKFLOW_FIELDS = ("name", "description", "workflow", "parameters", "riskLevel")


def _create_workflow(reg: Registry, args: dict[str, Any], created_by: Principal) -> dict[str, Any]:
    _check(
        args,
        {
            "name": (str, True, "the tool's name, a string"),
            "description": (str, True, "what the tool does, a string"),
            "workflow": (str, True, "the workflow DSL text, a string"),
            "parameters": ((dict, str), False, "an object of parameters"),
            "riskLevel": (str, False, "low, medium or high"),
            "update": (bool, False, "true or false"),
        },
    )
    if args.get("parameters") is not None:
        args["parameters"] = _parsed(args, "parameters")
    # The arguments are a workflow tool definition's fields, so its diagnostics' paths name them.
    definition = {"kind": "workflow", **{key: args[key] for key in _WORKFLOW_FIELDS if args.get(key) is not None}}
    return _save(reg, definition, bool(args.get("update")), created_by)


_SCRIPT_FIELDS = ("name", "description", "runtime", "body", "parameters", "network", "timeout_secs")


def _create_script(reg: Registry, args: dict[str, Any], created_by: Principal) -> dict[str, Any]:
    _check(
        args,
        {
            "name": (str, True, "the tool's name, a string"),
            "description": (str, True, "what the tool does, a string"),
            "runtime": (str, True, "bash, python or javascript"),
            "body": (str, True, "the program's text, a string"),
            "parameters": ((dict, str), False, "a JSON Schema object"),
            "network": (bool, False, "true or false"),
            "timeout_secs": ((int, float, Decimal), False, "a number of seconds"),
            "update": (bool, False, "true or false"),
        },
    )
    if args.get("parameters") is not None:
        args["parameters"] = _parsed(args, "parameters")
    # The arguments are a script tool definition's fields, so its diagnostics' paths name them.
    definition = {"kind": "script", **{key: args[key] for key in _SCRIPT_FIELDS if args.get(key) is not None}}
    return _save(reg, definition, bool(args.get("update")), created_by)


def _save(reg: Registry, definition: Any, update: bool, created_by: Principal) -> dict[str, Any]:
    """Save a model's definition after its certain fixes; the reply names the fixes applied."""
    fixed = with_certain_fixes(definition)
    try:
        reply = _saved(reg, fixed.definition, fixed.summary or None, update, created_by)
    except Error as error:
        if not fixed.applied:
            raise
        reply = Outcome.failed(tool_named(Create(definition)), error).reply()
    return {**reply, "fixes_applied": list(fixed.applied)} if fixed.applied else reply


def _saved(reg: Registry, definition: Any, note: str | None, update: bool, created_by: Principal) -> dict[str, Any]:
    compiled = reg.check_definition(definition)  # reports every problem before anything else
    replaces = update and compiled.name in reg
    request: Change = Update(compiled.name, {"definition": definition}) if replaces else Create(definition, note)
    outcome = reg.apply(request, principal=created_by)
    if not outcome.ok:
        return _offering_update(outcome).reply()
    record = outcome.result
    done = f"updated `{record.name}` to version {record.version}" if replaces else f"created `{record.name}`"
    approval = "; approval deploys it to n8n" if kind_of(record.kind).deploys else ""
    state = {
        "active": "it is active: call it by its name",
        "pending_approval": f"it waits for a person to approve it before it can be called{approval}",
        "disabled": "it is disabled",
        "rejected": "it is rejected",
    }[record.status]
    return {
        "ok": True,
        "message": f"{done}; {state}",
        "tool": _shown(record),
        "warnings": explained([d.details() for d in compiled.warnings]),
    }


def _list(reg: Registry, args: dict[str, Any], created_by: Principal) -> dict[str, Any]:
    _check(args, {"status": (str, False, "one of active, disabled, pending_approval, rejected")})
    tools = [record.summary() for record in reg.list(status=args.get("status"))]
    return {"ok": True, "count": len(tools), "tools": tools}


def _test(reg: Registry, args: dict[str, Any], created_by: Principal) -> dict[str, Any]:
    _definition(args)
    _check(
        args,
        {
            "definition": ((dict, str), True, "the tool definition, an object"),
            "args": ((dict, str), False, "an object of arguments"),
        },
    )
    compiled = reg.check_definition(args["definition"], seconds=reg.check_seconds)  # it only asks
    reply: dict[str, Any] = {
        "ok": True,
        "name": compiled.name,
        "parameters": plain_json(compiled.parameters),
        "result_type": compiled.tool.result_type if compiled.tool is not None else None,
        "result_schema": compiled.tool.result_schema if compiled.tool is not None else None,
        "warnings": explained([d.details() for d in compiled.warnings]),
    }
    if "args" not in args or args["args"] is None:
        reply["message"] = "the definition checks; pass args to run it once"
        return reply
    why = compiled.kind.not_tried
    if why is not None:
        reply["message"] = f"the definition checks; a {compiled.kind.name} tool is not run here ({why})"
        return reply
    run_args = _parsed(args, "args")
    if not isinstance(run_args, Mapping):
        raise _BadArguments([_error("`args` must be an object of arguments", path="args")])
    result = compiled.kind.try_run(compiled, run_args, reg.tables, None)
    reply["result"] = result  # exact: each server writes it with the digits computed
    reply["message"] = "the definition checks and ran; nothing was saved"
    return reply


def _delete(reg: Registry, args: dict[str, Any], created_by: Principal) -> dict[str, Any]:
    _check(args, {"name": (str, True, "the tool's name, a string"), "confirm": (bool, True, "true")})
    if args["confirm"] is not True:
        raise _BadArguments(
            [
                _error(
                    f"deleting `{args['name'][:64]}` needs confirm: true",
                    "deleting cannot be undone; set confirm to true if that is what you want",
                    "confirm",
                )
            ]
        )
    outcome = reg.apply(Delete(args["name"]), principal=created_by)
    return {"ok": True, "message": f"deleted `{args['name']}`"} if outcome.ok else outcome.reply()


def _toggle(reg: Registry, args: dict[str, Any], created_by: Principal) -> dict[str, Any]:
    _check(args, {"name": (str, True, "the tool's name, a string"), "enabled": (bool, True, "true or false")})
    name, enabled = args["name"], args["enabled"]
    record = reg.get(name)
    wanted = "active" if enabled else "disabled"
    if record.status != wanted:
        outcome = reg.apply(Lifecycle(name, "enable" if enabled else "disable"), principal=created_by)
        if not outcome.ok:
            return outcome.reply()
        record = outcome.result
        message = f"{'enabled' if enabled else 'disabled'} `{name}`"
    else:
        message = f"`{name}` is {wanted} already"
    return {"ok": True, "message": message, "tool": _shown(record)}


def _shown(record: Any) -> dict[str, Any]:
    return {**record.summary(), "parameters": plain_json(record.parameters)}


def explained(errors: list[ErrorDetails]) -> list[dict[str, Any]]:
    """Errors as a model reads them: every one with a hint (`ErrorDetails.explained`)."""
    return [e.explained().to_dict() for e in errors]


_UPDATE_HINT = "choose another name, or set update: true to replace your tool of that name (its old version is kept)"


def _offering_update(outcome: Outcome) -> Outcome:
    """A refused create, where a taken name's hint says what a model can do: update: true."""
    errors = tuple(e._replace(hint=_UPDATE_HINT) if e.code == DUPLICATE_TOOL.code else e for e in outcome.errors)
    return Outcome(False, None, errors, outcome.version, outcome.tool)


_HANDLERS: dict[str, Callable[[Registry, dict[str, Any], Principal], dict[str, Any]]] = {
    "create_compute_tool": _create,
    "create_workflow_tool": _create_workflow,
    "create_script_tool": _create_script,
    "list_custom_tools": _list,
    "test_custom_tool": _test,
    "delete_custom_tool": _delete,
    "toggle_custom_tool": _toggle,
}
assert tuple(_HANDLERS) == META_TOOL_NAMES
