"""Outcome: what a caller gets back from the registry's one door (`Registry.invoke` to run a
tool, `Registry.apply` to change one).

Adapters (REST, MCP, the web page, the meta-tools, the agent loops, the CLI) translate an
Outcome into their wire format; none of them catches the registry's errors on its own.
`reply()` is the one JSON shape a model or an MCP client reads: `{"ok": true, "result": ...}`
or `{"ok": false, "errors": [the 16 keys, each with a code and a hint], "message": ...}`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from toolkiln.diagnostics.codes import CALL_PENDING
from toolkiln.errors import error_details

if TYPE_CHECKING:  # (the details' named tuples load with the first error: a run that succeeds needs none)
    from toolkiln.diagnostics.details import ErrorDetails


@dataclass(frozen=True, slots=True, init=False)
class Outcome:
    """`ok` and the `result`, or the `errors` (each with a hint) that say why not; `version` is
    the version of `tool` that ran, or that a change wrote (None when there is none)."""

    ok: bool
    result: Any
    errors: tuple[ErrorDetails, ...]
    version: int | None
    tool: str
    call: str | None = None  # the id of the call kept for a person's approval (pending_calls.py)
    fixes: tuple[str, ...] = ()  # the certain fixes applied to a definition before it was saved

    def __init__(
        self,
        ok: bool,
        result: Any,
        errors: tuple[ErrorDetails, ...],
        version: int | None,
        tool: str,
        call: str | None = None,
        fixes: tuple[str, ...] = (),
    ) -> None:
        # Each field through its slot's own setter: a frozen dataclass's generated __init__ goes
        # through object.__setattr__ by name, several times the cost, and every call through
        # the one door makes an Outcome.
        _set_ok(self, ok)
        _set_result(self, result)
        _set_errors(self, errors)
        _set_version(self, version)
        _set_tool(self, tool)
        _set_call(self, call)
        _set_fixes(self, fixes)

    @classmethod
    def failed(cls, tool: str, error: BaseException, version: int | None = None) -> Outcome:
        """The outcome of a refusal or a failed run: the error's details, explained."""
        return cls.refused(tool, error_details(error), version)

    @classmethod
    def refused(cls, tool: str, errors: list[ErrorDetails], version: int | None = None) -> Outcome:
        """The outcome of a refusal found by its caller (an adapter's own argument checks)."""
        return cls(False, None, tuple(e.explained() for e in errors), version, tool)

    @property
    def error_dicts(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.errors]

    @property
    def pending(self) -> bool:
        """Whether the call did not run: it waits for a person's approval (`call` is its id)."""
        return bool(self.errors) and self.errors[0].code == CALL_PENDING.code

    @property
    def message(self) -> str:
        """One line for the whole failure: the tool and its first error."""
        if self.pending:
            return f"`{self.tool}` has not run: {self.errors[0].message}"
        errors = [e for e in self.errors if e.severity == "error"] or list(self.errors)
        if not errors:
            return f"`{self.tool}` failed"
        if len(errors) == 1:
            return f"`{self.tool}` failed: {errors[0].message}"
        return f"`{self.tool}` failed with {len(errors)} errors; the first: {errors[0].message}"

    def reply(self) -> dict[str, Any]:
        """The outcome as a model or an MCP client reads it (the result as computed: a wire
        format writes its numbers)."""
        reply: dict[str, Any] = (
            {"ok": True, "result": self.result}
            if self.ok
            else {"ok": False, "errors": self.error_dicts, "message": self.message}
        )
        if self.call is not None:  # (a call that waited for a person: its id, to ask about it)
            reply["call"] = self.call
        if self.fixes:  # (a definition saved or refused after its certain fixes: which ones)
            reply["fixes_applied"] = list(self.fixes)
        return reply


_set_ok, _set_result, _set_errors, _set_version, _set_tool, _set_call, _set_fixes = (
    vars(Outcome)[field.name].__set__ for field in fields(Outcome)
)
