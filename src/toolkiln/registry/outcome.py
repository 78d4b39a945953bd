"""Outcome: what a caller gets back from the registry's one door, `Registry.invoke`.

Adapters (REST, MCP, the meta-tools, the agent loops) translate an Outcome into their wire
format; none of them catches the registry's errors on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolkiln.diagnostics.details import ErrorDetails
from toolkiln.errors import error_details


@dataclass(frozen=True, slots=True)
class Outcome:
    """`ok` and the `result`, or the `errors` (each with a hint) that say why not; `version` is
    the version of `tool` that ran (None when no version was found to run)."""

    ok: bool
    result: Any
    errors: tuple[ErrorDetails, ...]
    version: int | None
    tool: str

    @classmethod
    def failed(cls, tool: str, error: BaseException, version: int | None = None) -> Outcome:
        """The outcome of a refusal or a failed run: the error's details, explained."""
        return cls(False, None, tuple(e.explained() for e in error_details(error)), version, tool)

    @property
    def error_dicts(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.errors]
