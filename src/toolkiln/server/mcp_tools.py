"""The registry as MCP tools: what `tools/list` shows and what `tools/call` does, without the SDK.

The list is the active tools (their inputSchema is their parameters' JSON Schema), the
meta-tools (create, list, test, delete, toggle) and `run_custom_tool`, a stable tool that
runs any active tool by name: many clients never refetch the list when told it changed, and
this one reaches tools created after they connected. Calls never raise: a failure is the
Outcome's reply, `ok: false` with its coded errors (the meta-tools' shape), marked as an error.
A call held for a person's approval is answered once decided (`settle`: docs/approvals.md).
A result's numbers keep their digits (31.500) in the text content; the structured content,
which the MCP SDK writes, has the same numbers as JSON floats (31.5).
Callers through MCP are models: meta-tool calls act as a model, the local user's (stdio) or
the token's narrowed to a model (HTTP), whose name the audit line then gives.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from toolkiln.registry.errors import InvalidRequest
from toolkiln.registry.names import META_TOOL_NAMES
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.principals import LOCAL_MODEL, Principal
from toolkiln.registry.registry import Registry
from toolkiln.semantics.chance import as_source, drawing_from
from toolkiln.semantics.values import dumps, to_jsonable

RUN_CUSTOM_TOOL = "run_custom_tool"
# What the server tells a client's model at the handshake (many clients put it in the system
# prompt): the way to new tools for a client that never lists its tools again.
INSTRUCTIONS = (
    "This server's tools can change while you work: tools are created, updated and deleted. "
    "If a tool you need is not in your tool list, call list_custom_tools to see every tool as it "
    "is now, and run_custom_tool with its name and args to run one you were not shown."
)
_RUN_CUSTOM_TOOL_SPEC = {
    "name": RUN_CUSTOM_TOOL,
    "description": "Run a custom tool by its name with its arguments. Use it for a tool created after "
    "your tool list was given to you (list_custom_tools shows every tool and its parameters).",
    "inputSchema": {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "the tool's name"},
            "args": {"type": "object", "description": "the tool's arguments, by name"},
            "seed": {
                "type": "integer",
                "description": "the seed of what uuid(), random() and random_int() draw: the same seed, "
                "the same values (the system's generator if absent)",
            },
        },
        "required": ["name"],
        "additionalProperties": False,
    },
    "annotations": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": True},
}


@dataclass(frozen=True)
class CallResult:
    payload: dict[str, Any]  # JSON data (floats for decimals, as the SDK writes it): the structured content
    text: str  # the same as JSON text, each number with the digits computed (31.500): the content
    is_error: bool
    pending: str | None = None  # a call held for a person's approval: its id (`settle` waits for it)


def _answer(data: dict[str, Any], is_error: bool) -> CallResult:
    return CallResult(to_jsonable(data), dumps(data), is_error)


def tool_list(reg: Registry) -> list[dict[str, Any]]:
    """Every tool a client sees: active tools, meta-tools, run_custom_tool (a registry tool of
    that name is reached through it)."""
    own = [d for d in reg.definitions("mcp") if d["name"] != RUN_CUSTOM_TOOL]
    return own + reg.meta_definitions("mcp") + [_RUN_CUSTOM_TOOL_SPEC]


def fingerprint(reg: Registry) -> tuple[tuple[str, int, str], ...]:
    """What the tool list depends on: when it changes, clients are told to refetch."""
    return tuple((r.name, r.version, r.description) for r in reg.list(status="active"))


def call_tool(
    reg: Registry, name: str, arguments: dict[str, Any] | None, principal: Principal = LOCAL_MODEL
) -> CallResult:
    args = arguments or {}
    if name in META_TOOL_NAMES:
        reply = reg.call_meta(name, args, created_by=principal)
        return _answer(reply, is_error=not reply.get("ok", False))
    seed = None
    try:
        if name == RUN_CUSTOM_TOOL:
            name, args, seed = _target(args)
    except InvalidRequest as error:
        return _failed(Outcome.failed(RUN_CUSTOM_TOOL, error))
    with drawing_from(as_source(seed)):  # (the run's thread: this one)
        outcome = reg.invoke(name, args, principal=principal)
    if outcome.pending:
        return replace(_failed(outcome), pending=outcome.call)
    return _failed(outcome) if not outcome.ok else _answer(outcome.reply(), is_error=False)


def settle(reg: Registry, call_id: str, timeout: float | None = None) -> CallResult:
    """What a call held for a person's approval comes to, once decided (or expired), waiting at
    most `timeout` seconds (0: one look; `pending` is still set when it was not decided)."""
    outcome = reg.wait_for_call(call_id, timeout)
    if outcome.pending:
        return replace(_failed(outcome), pending=call_id)
    return _failed(outcome) if not outcome.ok else _answer(outcome.reply(), is_error=False)


def _failed(outcome: Outcome) -> CallResult:
    return _answer(outcome.reply(), is_error=True)


def _target(args: dict[str, Any]) -> tuple[str, dict[str, Any], int | None]:
    """The tool, arguments and seed a run_custom_tool call names."""
    name, tool_args, seed = args.get("name"), args.get("args", {}), args.get("seed")
    if not isinstance(name, str) or not isinstance(tool_args, dict):
        raise InvalidRequest(
            "run_custom_tool takes `name`, a string, `args`, an object, and `seed`, a whole number",
            hint="list_custom_tools shows the names",
        )
    if seed is not None and (type(seed) is not int or not -(2**63) <= seed < 2**63):
        raise InvalidRequest(f"run_custom_tool's `seed` must be a whole number, not {str(seed)[:40]}")
    return name, tool_args, seed
