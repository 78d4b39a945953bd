"""`agent_loop`: a conversation with native tool calling over a registry.

    result = agent_loop(client, "What does shipping 3 kg cost?", registry)
    result.answer, result.transcript, result.turns, result.usage

Every turn offers the registry's active tools (and, with `include_meta`, the meta-tools that
create, test, list, toggle and delete them), read afresh: a tool the model creates in turn N
is callable in turn N+1. Each call's outcome goes back as a tool result in JSON,
`{"ok": true, "result": ...}` or `{"ok": false, "errors": [...], "message": ...}` (an
Outcome's reply: every error with the 16 keys of `ErrorDetails`, a code and a hint); a
failure is the model's to read and repair, never the loop's end.
A call that waits for a person's approval (docs/approvals.md) pauses the loop until a person
decides: the model then reads the run's outcome, or the denial and its reason (R0731).
The loop ends at the first reply without tool calls, or with LoopLimitReached after `max_turns`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from toolkiln.diagnostics.codes import INVALID_REQUEST
from toolkiln.diagnostics.details import ErrorDetails
from toolkiln.llm.client import ChatClient
from toolkiln.llm.errors import LLMConfigError
from toolkiln.llm.kitz_factory import call_kitz_factory, kitz_factory_definitions
from toolkiln.llm.loops import LoopLimitReached, LoopResult, capped
from toolkiln.llm.messages import MessageLike, ToolCall, ToolResult, Usage, as_messages
from toolkiln.llm.tools import tool_name
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.principals import LOCAL_MODEL
from toolkiln.semantics.values import to_json

if TYPE_CHECKING:
    from toolkiln.registry.registry import Registry

Progress = Callable[[str], None]


def agent_loop(
    client: ChatClient,
    messages: str | Sequence[MessageLike],
    registry: Registry,
    *,
    include_meta: bool = True,
    max_turns: int = 10,
    progress: Progress | None = None,
    meta_names: Literal["toolkiln", "kitz"] = "toolkiln",
    conversation_id: str | None = None,
) -> LoopResult:
    """Converse until the model answers without calling a tool; `progress` hears one line a
    call (`turn 2: shipping_cost -> ok`). `messages` may be OpenAI-style dicts
    (`{"role": "user", "content": ...}`), as toolkiln's message types. `meta_names="kitz"`
    offers the meta-tools by Kitz's names (toolFactory_*: toolkiln.llm.kitz_factory).
    `conversation_id` names the conversation to whoever approves a call it holds (docs/approvals.md)."""
    if max_turns < 1:
        raise LLMConfigError(f"max_turns must be at least 1, got {max_turns}")
    conversation = list(as_messages(messages))
    usage = Usage()
    for turn in range(1, max_turns + 1):
        definitions = registry.definitions(client.tool_format)
        meta = _meta_definitions(registry, client.tool_format, meta_names) if include_meta else []
        reply = client.chat(conversation, tools=[*definitions, *meta] or None)
        usage += reply.usage
        conversation.append(reply.message())
        if not reply.tool_calls:
            return LoopResult(reply.text, tuple(conversation), turn, usage)
        for call in reply.tool_calls:
            said = None if progress is None else partial(_progress_line, progress, turn, call.name[:64])
            outcome = _outcome(call, registry, meta, client.tool_format, meta_names, said, conversation_id)
            if progress is not None:
                progress(f"turn {turn}: {call.name[:64]} -> {_summary(outcome)}")
            conversation.append(ToolResult(call.id, capped(to_json(outcome, exact=True)), is_error=not outcome["ok"]))
    raise LoopLimitReached(
        f"the model was still calling tools after {max_turns} turns",
        transcript=tuple(conversation),
        turns=max_turns,
        hint="raise max_turns, or read the transcript for a model that repeats itself",
    )


def _meta_definitions(registry: Registry, format: str, names: str) -> list[dict[str, Any]]:  # noqa: A002
    return kitz_factory_definitions(format) if names == "kitz" else registry.meta_definitions(format)


def _outcome(
    call: ToolCall,
    registry: Registry,
    meta: list[dict[str, Any]],
    format: str,  # noqa: A002
    meta_names: str = "toolkiln",
    said: Callable[[str], None] | None = None,
    conversation_id: str | None = None,
) -> dict[str, Any]:
    """What a call gives, as data: the Outcome's reply (the registry's own errors, such as no
    such tool, not active, bad arguments or a failed run, carry their codes and hints). A call
    held for a person's approval is waited for (`said` hears that it waits, and its id)."""
    if call.arguments_error is not None:
        message = f"the arguments of `{call.name[:64]}` are not a JSON object: {call.arguments_error}"
        refusal = ErrorDetails.coded(INVALID_REQUEST, message, "send a JSON object")
        return Outcome.refused(call.name[:64], [refusal]).reply()
    if any(tool_name(definition, format) == call.name for definition in meta):
        if meta_names == "kitz":
            return call_kitz_factory(registry, call.name, call.arguments)
        return registry.call_meta(call.name, call.arguments)
    outcome = registry.invoke(call.name, call.arguments, principal=LOCAL_MODEL, conversation=conversation_id)
    if outcome.pending and said is not None:
        said(f"waiting for a person's approval of call {outcome.call} (toolkiln calls approve|deny)")
    return registry.settled(outcome).reply()  # (the loop pauses until it is decided, or expires)


def _progress_line(progress: Progress, turn: int, name: str, what: str) -> None:
    progress(f"turn {turn}: {name} -> {what}")


def _summary(outcome: dict[str, Any]) -> str:
    if outcome["ok"]:
        return "ok"
    first = (outcome.get("errors") or [{}])[0]
    code = f"{first['code']} " if first.get("code") else ""
    return f"failed: {code}{str(first.get('message', ''))[:160]}"
