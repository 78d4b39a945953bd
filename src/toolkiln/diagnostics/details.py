"""ErrorDetails: the one shape of an error as callers read it (REST, MCP, models, CI).

A Diagnostic, a run-time failure and a registry refusal all reach a caller as these 16 keys,
written in one place (`ErrorDetails.to_dict`). `toolkiln.errors.error_details` turns any
toolkiln error into a list of them.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from toolkiln.diagnostics.codes import CODES, Code, Severity


# Typed named tuples, not pydantic models or frozen dataclasses: every diagnostic a check
# prints goes through one, and validating fields that typed models already hold (pydantic) or
# setting each through object.__setattr__ (frozen dataclass) cost 2-7x Diagnostic.to_dict's time.
class FixDetails(NamedTuple):
    """A certain repair as data: `start`/`end` are offsets (characters) in the file's text."""

    replacement: str
    path: str | None = None
    start: int | None = None
    end: int | None = None
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "start": self.start,
            "end": self.end,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "replacement": self.replacement,
        }


class ErrorDetails(NamedTuple):
    """One error: its stable code and name, where it is and how to repair it. Build it by
    keyword; `to_dict` gives the keys in their JSON order."""

    code: str
    message: str
    name: str | None = None
    severity: Severity = "error"
    file: str | None = None
    path: str | None = None
    line: int | None = None
    column: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    in_file: bool | None = None
    hint: str | None = None
    source: str | None = None
    input: str | None = None
    expected: tuple[str, ...] | None = None
    fix: FixDetails | None = None

    @classmethod
    def coded(cls, code: Code, message: str, hint: str | None = None, *, path: str | None = None) -> ErrorDetails:
        """An error known by its code alone, with no place in a source (server and registry refusals)."""
        return cls(code=code.code, name=code.name, message=message, hint=hint, path=path)

    def explained(self) -> ErrorDetails:
        """A model repairs best with a hint; where there is none, the first paragraph of the
        code's explanation (`toolkiln explain CODE`) stands in."""
        entry = CODES.get(self.code)
        if self.hint or entry is None:
            return self
        first = entry.explanation.split("\n\n")[0]
        return self._replace(hint=" ".join(first.split()))

    def to_dict(self) -> dict[str, Any]:
        """The machine-readable form: always the same 16 keys in the same order."""
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "in_file": self.in_file,
            "hint": self.hint,
            "source": self.source,
            "input": self.input,
            "expected": list(self.expected) if self.expected is not None else None,
            "fix": self.fix.to_dict() if self.fix is not None else None,
        }
