"""`run_prompted_loop`: a conversation with tools for a model without native tool calling.

Each turn the model either calls tools in ```tool blocks (their results come back in the next
user message, under the same system prompt) or, after `finalResponse()`, gives its final
answer as JSON. Whatever cannot be read or run goes back to the model as diagnostics; a reply
with any of them runs none of its calls, so a half-understood reply changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.diagnostics.render import render_text
from toolkiln.diagnostics.source import Source
from toolkiln.errors import Error
from toolkiln.llm.client import ChatClient
from toolkiln.llm.errors import LLMConfigError
from toolkiln.llm.loops import LoopLimitReached, LoopResult, capped
from toolkiln.llm.messages import Assistant, Message, System, Usage, User
from toolkiln.llm.prompted.binding import bind
from toolkiln.llm.prompted.final_answer import checked_format, read_final_answer
from toolkiln.llm.prompted.signatures import tool_prompt
from toolkiln.llm.prompted.tools import (
    DEFAULT_RESPONSE_FORMAT,
    FINAL_RESPONSE,
    PromptedTool,
    final_response_tool,
)
from toolkiln.registry.outcome import Outcome
from toolkiln.semantics.values import to_json
from toolkiln.syntax.limits import MAX_SOURCE_CHARS
from toolkiln.syntax.tool_calls import ParsedCall, parse_tool_calls

_KEPT_CHARS = 1_000
_NOTHING_RAN = "Nothing of that reply was run. Fix every problem and send the calls again."
_CALL_OR_FINISH = "Call the tools you need in a ```tool block, or finalResponse() when you can answer."


def run_prompted_loop(
    client: ChatClient,
    system: str,
    user: str,
    tools: Sequence[PromptedTool],
    max_iterations: int = 8,
    *,
    response_format: Mapping[str, Any] | None = None,
) -> LoopResult:
    """Converse until the model gives its final answer after calling `finalResponse()`; the
    answer must match `response_format` (a JSON Schema; default `{"answer": string}`).
    LoopLimitReached after `max_iterations` replies without one."""
    if max_iterations < 1:
        raise LLMConfigError(f"max_iterations must be at least 1, got {max_iterations}")
    response_format = response_format if response_format is not None else DEFAULT_RESPONSE_FORMAT
    validator = checked_format(response_format)
    offered = [*tools, final_response_tool(response_format)]
    table = {tool.name: tool for tool in offered}
    if len(table) < len(offered):
        raise LLMConfigError("two prompted tools have the same name", hint=f"{FINAL_RESPONSE} is built in")
    conversation: list[Message] = [System(f"{system}\n\n{tool_prompt(offered)}".lstrip()), User(user)]
    usage = Usage()
    finishing = False
    for iteration in range(1, max_iterations + 1):
        reply = client.chat(conversation)
        usage += reply.usage
        conversation.append(Assistant(_kept(reply.text)))
        parsed = parse_tool_calls(reply.text)
        if finishing and parsed.blocks == 0:
            answer = read_final_answer(reply.text, validator)
            if not isinstance(answer, Diagnostic):
                return LoopResult(answer, tuple(conversation), iteration, usage)
            conversation.append(User(_diagnostics([answer], reply.text)))
            continue
        feedback, finishing = _answer_calls(parsed.calls, list(parsed.diagnostics), table, reply.text)
        conversation.append(User(feedback))
    raise LoopLimitReached(
        f"no final answer after {max_iterations} replies",
        transcript=tuple(conversation),
        turns=max_iterations,
        hint="raise max_iterations, or look at the transcript for a model that does not call finalResponse()",
    )


def _answer_calls(
    calls: Sequence[ParsedCall], diagnostics: list[Diagnostic], tools: Mapping[str, PromptedTool], reply: str
) -> tuple[str, bool]:
    """The next user message, and whether finalResponse() was called."""
    bound = []
    for call in calls:
        found = bind(call, tools)
        if isinstance(found, Diagnostic):
            diagnostics.append(found)
        else:
            bound.append((call, *found))
    if diagnostics:
        return _diagnostics(diagnostics, reply), False
    if not bound:
        return _diagnostics([_no_call()], reply), False
    results = [f"{call.text} returned:\n{_result(tool, arguments)}" for call, tool, arguments in bound]
    finished = any(tool.name == FINAL_RESPONSE for _, tool, _ in bound)
    return "\n\n".join(results), finished


def _result(tool: PromptedTool, arguments: dict[str, Any]) -> str:
    """A call's result as the model reads it; a failure (an Outcome that is not ok, or a
    toolkiln.Error the tool raised) is `failed: ` and the one failure shape, coded and hinted."""
    try:
        value = tool.run(arguments)
    except Error as error:  # the tool's failure is the model's to read, not the loop's
        value = Outcome.failed(tool.name, error)
    if isinstance(value, Outcome):
        if not value.ok:
            return "failed: " + capped(to_json(value.reply(), indent=2, exact=True))
        value = value.result
    return capped(value if isinstance(value, str) else to_json(value))


def _kept(reply: str) -> str:
    """The reply as the conversation keeps it: one too large to read (E0902, E0906) is kept
    as its start, so that it is not sent back to the provider on every later turn."""
    if len(reply) <= MAX_SOURCE_CHARS:
        return reply
    return reply[:_KEPT_CHARS] + f"\n[a reply of {len(reply):,} characters, cut here: too large to read]"


def _no_call() -> Diagnostic:
    return Diagnostic.of(codes.NO_TOOL_CALL, "the reply calls no tool", None, hint=_CALL_OR_FINISH)


def _diagnostics(diagnostics: Sequence[Diagnostic], reply: str) -> str:
    source = Source(name="your reply", text=reply)
    shown = "\n\n".join(render_text(diagnostic.located(source)) for diagnostic in diagnostics)
    return f"{shown}\n\n{_NOTHING_RAN}"
