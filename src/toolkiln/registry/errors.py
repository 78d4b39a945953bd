"""The registry's errors. Each derives from `toolkiln.Error` through `RegistryError`.

Every error has a stable `code` and `name` (like a diagnostic's), a `message` and a `hint`,
and `to_dict()` gives the same keys as `Diagnostic.to_dict()`, so a model (through
`call_meta`) and a CLI user see registry errors and compile errors in one shape.
"""

from __future__ import annotations

from typing import Any

from toolkiln.errors import Error


class RegistryError(Error):
    """Base of the registry's errors."""

    code = "R0100"
    name = "registry-error"

    def __init__(self, message: str, hint: str | None = None, *, path: str | None = None) -> None:
        self.message = message
        self.hint = hint
        self.path = path
        super().__init__(message if hint is None else f"{message} (hint: {hint})")

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "severity": "error", "message": self.message,
                "file": None, "path": self.path, "line": None, "column": None, "end_line": None,
                "end_column": None, "in_file": None, "hint": self.hint, "source": None}


class InvalidName(RegistryError):
    """A tool name that does not match ^[a-z][a-z0-9_]{0,63}$ or names a meta-tool."""

    code = "R0101"
    name = "invalid-name"


class ToolNotFound(RegistryError):
    """No tool (or no such version of a tool) by that name."""

    code = "R0102"
    name = "tool-not-found"


class DuplicateTool(RegistryError):
    """A tool of that name exists already; `update` changes it."""

    code = "R0103"
    name = "duplicate-tool"


class InvalidRequest(RegistryError):
    """An argument the registry cannot act on: an unknown actor, format, version or field."""

    code = "R0104"
    name = "invalid-request"


class PermissionDenied(RegistryError):
    """The actor may not do this (for example a model deleting a tool a person created)."""

    code = "R0201"
    name = "permission-denied"


class InvalidTransition(RegistryError):
    """The lifecycle does not allow this action from the tool's status."""

    code = "R0202"
    name = "invalid-transition"


class ToolNotActive(RegistryError):
    """Only active tools run."""

    code = "R0203"
    name = "tool-not-active"


class BrokenTool(RegistryError):
    """A stored tool no longer compiles (its file was changed by hand, or the language changed)."""

    code = "R0301"
    name = "broken-tool"

    def __init__(self, message: str, hint: str | None = None, *, diagnostics: list | None = None) -> None:
        super().__init__(message, hint)
        self.diagnostics = diagnostics or []


class StoreError(RegistryError):
    """The store cannot be read or written: a file system error, or the lock timed out."""

    code = "R0302"
    name = "store-error"


__all__ = ["BrokenTool", "DuplicateTool", "InvalidName", "InvalidRequest", "InvalidTransition", "PermissionDenied",
           "RegistryError", "StoreError", "ToolNotActive", "ToolNotFound"]
