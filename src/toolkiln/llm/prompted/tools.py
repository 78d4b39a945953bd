"""What a prompted tool is, and where prompted tools come from: the registry, wget, and the
built-in finalResponse that ends a conversation."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolkiln.llm.wget import DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, Allowed, wget
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.principals import LOCAL_MODEL

if TYPE_CHECKING:
    from toolkiln.registry.registry import Registry

FINAL_RESPONSE = "finalResponse"
DEFAULT_RESPONSE_FORMAT: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "description": "the answer to the user's request"}},
    "required": ["answer"],
}


@dataclass(frozen=True)
class PromptedTool:
    """A tool a model calls in a ```tool block.

    `parameters` is the JSON Schema of an object: its `properties`, in order, are the positional
    parameters of the signature, `required` says which cannot be left out. `run` takes the
    arguments by name (those left out are absent) and returns the result, or an `Outcome` (the
    registry's); a failed Outcome, or a `toolkiln.Error` it raises, goes back to the model as
    `failed: ` and the errors' JSON. `returns` is the result's type in the signature.
    `examples`: argument tuples shown in the prompt; the prompt adds generated ones up to three.
    """

    name: str
    description: str
    parameters: Mapping[str, Any]
    run: Callable[[dict[str, Any]], Any]
    returns: str = "any"
    examples: tuple[tuple[Any, ...], ...] = field(default=())


def registry_tools(registry: Registry) -> list[PromptedTool]:
    """The registry's active tools as prompted tools: each call goes through `registry.invoke`
    as the local user's model; the tool's own examples (`{"args": {...}, "expect": ...}`) are
    shown first."""

    def runner(name: str) -> Callable[[dict[str, Any]], Outcome]:
        # (a call held for a person's approval waits here for the decision: docs/approvals.md)
        return lambda arguments: registry.settled(registry.invoke(name, arguments, principal=LOCAL_MODEL))

    return [
        PromptedTool(
            record.name,
            record.description,
            record.parameters,
            runner(record.name),
            examples=_positional(record.definition.get("examples"), list(parameters_of(record.parameters)[0])),
        )
        for record in registry.list(status="active")
    ]


def _positional(examples: Any, names: list[str]) -> tuple[tuple[Any, ...], ...]:
    """Examples' named arguments in the signature's order; one left out is null, and the
    nulls at the end are dropped (an optional parameter may be left out)."""
    found = []
    for example in examples if isinstance(examples, list) else []:
        arguments = example.get("args") if isinstance(example, dict) else None
        if isinstance(arguments, dict):
            values = [arguments.get(name) for name in names]
            while values and values[-1] is None:
                values.pop()
            found.append(tuple(values))
    return tuple(found)


def wget_tool(*, allow: Allowed = (), max_bytes: int | None = None) -> PromptedTool:
    """`wget(string uri, number timeoutMs): string`; `allow` lists the networks it may reach
    beyond the public internet (e.g. "127.0.0.1/32"), see `toolkiln.llm.wget.wget`."""
    options: dict[str, Any] = {"allow": allow} if max_bytes is None else {"allow": allow, "max_bytes": max_bytes}
    return PromptedTool(
        "wget",
        "Fetch a web page or a text file with an HTTP GET and return its text. Only public "
        "http(s) addresses; a failure (refused address, timeout, not text) comes back as text "
        "starting with `wget failed:`.",
        {
            "type": "object",
            "properties": {
                "uri": {"type": "string", "format": "uri", "description": "the http or https address"},
                "timeoutMs": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_TIMEOUT_MS,
                    "description": "how long to wait for the whole answer, in milliseconds",
                    "examples": [DEFAULT_TIMEOUT_MS, 2000, 10000],
                },
            },
            "required": ["uri", "timeoutMs"],
        },
        lambda arguments: wget(arguments["uri"], arguments["timeoutMs"], **options),
        returns="string",
        examples=(
            ("https://example.com", DEFAULT_TIMEOUT_MS),
            ("https://en.wikipedia.org/wiki/Kiln", 10000),
            ("https://api.example.org/items?id=42", 2000),
        ),
    )


def final_response_tool(response_format: Mapping[str, Any]) -> PromptedTool:
    """The built-in that ends the conversation: its result says how to write the final answer."""
    requirements = (
        "Now write your final answer and nothing else: one JSON value, alone or in a ```json "
        "block, that matches this JSON Schema:\n" + json.dumps(response_format, indent=2, ensure_ascii=False)
    )
    return PromptedTool(
        FINAL_RESPONSE,
        "Call this when you have everything you need to answer. Its result tells you how to "
        "write your final answer; write it in your next reply, without calling any tool.",
        {"type": "object", "properties": {}},
        lambda _: requirements,
        returns="string",
    )


def parameters_of(schema: Any) -> tuple[dict[str, Any], set[str]]:
    """The properties of an object schema, in order, and the names it requires."""
    if not isinstance(schema, Mapping):
        return {}, set()
    properties = schema.get("properties")
    required = schema.get("required")
    return (
        dict(properties) if isinstance(properties, Mapping) else {},
        {name for name in required if isinstance(name, str)} if isinstance(required, list) else set(),
    )
