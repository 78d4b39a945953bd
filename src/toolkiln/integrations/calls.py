"""What every framework adapter shares: which tools it offers, and how a call reaches the
registry's one door (`Registry.invoke`, or `call_meta` for a meta-tool) and comes back as data.

An adapter only translates: the schema it shows its framework is the registry's own OpenAI
export (`registry.definitions("openai")`), and what a call gives is the Outcome's reply as JSON
text, each number with the digits the tool computed (`{"ok": true, "result": 12.50}` or
`{"ok": false, "errors": [...], "message": ...}`), the same text the agent loop hands a model.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypedDict, TypeVar

from toolkiln.diagnostics.codes import FRAMEWORK_NOT_INSTALLED, INVALID_REQUEST
from toolkiln.diagnostics.details import ErrorDetails
from toolkiln.llm.loops import capped
from toolkiln.registry.errors import RegistryError
from toolkiln.registry.outcome import Outcome
from toolkiln.registry.principals import LOCAL_MODEL, Principal, principal_of
from toolkiln.semantics.values import to_json

if TYPE_CHECKING:
    from toolkiln.registry.hot_door import ChangeMark
    from toolkiln.registry.registry import Registry

T = TypeVar("T")


_RESULT = '{"ok": true, "result": '  # how to_json begins a successful reply ({"ok": true, "result": ...})


class FrameworkNotInstalled(RegistryError, code=FRAMEWORK_NOT_INSTALLED):
    """An adapter imported without its framework (R0760)."""


def not_installed(framework: str, extra: str) -> FrameworkNotInstalled:
    return FrameworkNotInstalled(
        f"toolkiln.integrations needs {framework} for this adapter, and it is not installed",
        hint=f"pip install 'toolkiln[{extra}]'",
    )


@dataclass(frozen=True)
class Offered:
    """One tool as a framework is shown it: the OpenAI export's name, description and JSON
    Schema of the parameters; `meta` for a meta-tool (create_compute_tool, ...)."""

    name: str
    description: str
    parameters: dict[str, Any]
    meta: bool = False


def offered(registry: Registry, names: Iterable[str] | None = None, *, include_meta: bool = False) -> list[Offered]:
    """The active tools (only those in `names`, when given), then the meta-tools if asked for.
    A name the registry has no tool of is ToolNotFound (R0102); a tool that is not active, or
    that the OpenAI format cannot express, is not offered (`registry.export("openai").skipped`)."""
    wanted = None if names is None else set(names)
    for name in sorted(wanted or ()):
        registry.get(name)  # (a misspelt name is an error now, not a tool silently missing)
    tools = [_offered(definition) for definition in registry.definitions("openai")]
    if wanted is not None:
        tools = [tool for tool in tools if tool.name in wanted]
    if include_meta:
        tools += [_offered(definition, meta=True) for definition in registry.meta_definitions("openai")]
    return tools


def _offered(definition: Mapping[str, Any], *, meta: bool = False) -> Offered:
    function = definition["function"]
    return Offered(function["name"], function["description"], function["parameters"], meta)


class Kept(Generic[T]):
    """What an adapter last read of the registry (its tools), with the registry's change mark
    taken before the read: believed while `registry.unchanged_since(mark)` says nothing can
    have changed (asked in the event loop: it asks the store nothing), read again otherwise (in
    a worker thread from `aget`). Frameworks ask for their tools at every step or turn."""

    def __init__(self, registry: Registry, read: Callable[[], T]) -> None:
        self._registry, self._read = registry, read
        self._last: tuple[ChangeMark | None, T] | None = None

    def _believed(self) -> tuple[ChangeMark | None, T] | None:
        last = self._last
        return last if last is not None and self._registry.unchanged_since(last[0]) else None

    def get(self) -> T:
        last = self._believed()
        if last is not None:
            return last[1]
        mark = self._registry.change_mark()  # (before reading: a change made meanwhile is seen next time)
        value = self._read()
        self._last = (mark, value)
        return value

    async def aget(self) -> T:
        last = self._believed()
        return last[1] if last is not None else await asyncio.to_thread(self.get)


class CallOptions(TypedDict, total=False):
    """The keywords every adapter passes on to `Calls`."""

    principal: Principal | str
    approval_timeout: float | None
    conversation: str | None


class Calls:
    """How an adapter's tool calls the registry: as `principal` (default: the local user's
    model, as the agent loops call), a held call waited for (`approval_timeout` seconds at
    most; None: until it is decided or expires, as the agent loops wait), `conversation` kept
    with a held call for the person who decides."""

    def __init__(
        self,
        registry: Registry,
        *,
        principal: Principal | str = LOCAL_MODEL,
        approval_timeout: float | None = None,
        conversation: str | None = None,
    ) -> None:
        self.registry = registry
        self.principal = principal_of(principal, "principal")
        self.approval_timeout = approval_timeout
        self.conversation = conversation

    def reply(self, tool: Offered, arguments: Any) -> dict[str, Any]:
        """The call's Outcome as data; never raises for the call's own mistake."""
        if tool.meta:
            return self.registry.call_meta(tool.name, arguments, self.principal)
        if not isinstance(arguments, Mapping):
            return _not_an_object(tool.name, f"the arguments are {type(arguments).__name__}, not an object")
        return self.registry.settled(self._invoke(tool, arguments), self.approval_timeout).reply()

    def answer(self, tool: Offered, arguments: Any) -> tuple[bool, str]:
        """Whether the call went well, and its reply as JSON text: numbers with their computed
        digits, cut as the agent loop cuts a tool result."""
        if tool.meta or type(arguments) is not dict:
            reply = self.reply(tool, arguments)
        else:
            outcome = self._invoke(tool, arguments)
            if outcome.ok and outcome.call is None:  # (the common reply, written without the dict)
                return True, capped(_RESULT + to_json(outcome.result, exact=True) + "}")
            reply = self.registry.settled(outcome, self.approval_timeout).reply()
        return reply["ok"], capped(to_json(reply, exact=True))

    def _invoke(self, tool: Offered, arguments: Mapping[str, Any]) -> Outcome:
        return self.registry.invoke(tool.name, arguments, principal=self.principal, conversation=self.conversation)

    def text(self, tool: Offered, arguments: Any) -> str:
        return self.answer(tool, arguments)[1]

    def text_of_json(self, tool: Offered, arguments: str) -> str:
        """`text` for arguments sent as JSON text (a refusal, as data, if they are not JSON)."""
        try:
            parsed = json.loads(arguments or "{}")
        except ValueError as error:
            return to_json(_not_an_object(tool.name, f"the arguments are not JSON: {error}"), exact=True)
        return self.text(tool, parsed)


def _not_an_object(tool: str, message: str) -> dict[str, Any]:
    refusal = ErrorDetails.coded(INVALID_REQUEST, f"`{tool[:64]}`: {message}", "send a JSON object")
    return Outcome.refused(tool[:64], [refusal]).reply()
