"""The registry's errors. Each derives from `toolkiln.Error` through `RegistryError`.

Every error has a stable `code` and `name` (like a diagnostic's), a `message` and a `hint`,
and `to_dict()` gives the same keys as `Diagnostic.to_dict()`, so a model (through
`call_meta`) and a CLI user see registry errors and compile errors in one shape.
"""

from __future__ import annotations

from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.errors import Error


class RegistryError(Error):
    """Base of the registry's errors."""

    code = codes.REGISTRY_ERROR.code
    name = codes.REGISTRY_ERROR.name

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

    code = codes.TOOL_NAME_INVALID.code
    name = codes.TOOL_NAME_INVALID.name


class ToolNotFound(RegistryError):
    """No tool (or no such version of a tool) by that name."""

    code = codes.TOOL_NOT_FOUND.code
    name = codes.TOOL_NOT_FOUND.name


class DuplicateTool(RegistryError):
    """A tool of that name exists already; `update` changes it."""

    code = codes.DUPLICATE_TOOL.code
    name = codes.DUPLICATE_TOOL.name


class InvalidRequest(RegistryError):
    """An argument the registry cannot act on: an unknown actor, format, version or field."""

    code = codes.INVALID_REQUEST.code
    name = codes.INVALID_REQUEST.name


class DependencyCycle(RegistryError):
    """Saving the tool would make tools call each other in a cycle; `.cycle` lists it."""

    code = codes.DEPENDENCY_CYCLE.code
    name = codes.DEPENDENCY_CYCLE.name

    def __init__(self, message: str, hint: str | None = None, *, cycle: list[str] | None = None) -> None:
        super().__init__(message, hint)
        self.cycle = cycle or []


class ToolInUse(RegistryError):
    """The tool cannot be deleted: other tools call it (`.callers`); `force=True` deletes anyway."""

    code = codes.TOOL_IN_USE.code
    name = codes.TOOL_IN_USE.name

    def __init__(self, message: str, hint: str | None = None, *, callers: list[str] | None = None) -> None:
        super().__init__(message, hint)
        self.callers = callers or []


class PermissionDenied(RegistryError):
    """The actor may not do this (for example a model deleting a tool a person created)."""

    code = codes.PERMISSION_DENIED.code
    name = codes.PERMISSION_DENIED.name


class InvalidTransition(RegistryError):
    """The lifecycle does not allow this action from the tool's status."""

    code = codes.INVALID_TRANSITION.code
    name = codes.INVALID_TRANSITION.name


class ToolNotActive(RegistryError):
    """Only active tools run."""

    code = codes.TOOL_NOT_ACTIVE.code
    name = codes.TOOL_NOT_ACTIVE.name


class BrokenTool(RegistryError):
    """A stored tool no longer compiles (its file was changed by hand, or the language changed)."""

    code = codes.BROKEN_TOOL.code
    name = codes.BROKEN_TOOL.name

    def __init__(self, message: str, hint: str | None = None, *, diagnostics: list | None = None) -> None:
        super().__init__(message, hint)
        self.diagnostics = diagnostics or []


class StoreError(RegistryError):
    """The store cannot be read or written: a file system error, or the lock timed out."""

    code = codes.STORE_ERROR.code
    name = codes.STORE_ERROR.name


class N8nNotConfigured(RegistryError):
    """A workflow tool is to be deployed or run, but no n8n server (or API key) is known."""

    code = codes.N8N_NOT_CONFIGURED.code
    name = codes.N8N_NOT_CONFIGURED.name


class WorkflowDeployFailed(RegistryError):
    """n8n refused or could not be reached while deploying or taking down a workflow tool;
    `status` is n8n's HTTP status (None when there was no answer)."""

    code = codes.WORKFLOW_DEPLOY_FAILED.code
    name = codes.WORKFLOW_DEPLOY_FAILED.name

    def __init__(self, message: str, hint: str | None = None, *, status: int | None = None) -> None:
        super().__init__(message, hint)
        self.status = status


class WorkflowNotDeployed(RegistryError):
    """An active workflow tool whose current version has no deployment on record."""

    code = codes.WORKFLOW_NOT_DEPLOYED.code
    name = codes.WORKFLOW_NOT_DEPLOYED.name


class WorkflowRunFailed(RegistryError):
    """Calling a workflow tool's webhook failed; `status` is the HTTP status of n8n's answer."""

    code = codes.WORKFLOW_RUN_FAILED.code
    name = codes.WORKFLOW_RUN_FAILED.name

    def __init__(self, message: str, hint: str | None = None, *, status: int | None = None) -> None:
        super().__init__(message, hint)
        self.status = status


__all__ = ["BrokenTool", "DependencyCycle", "DuplicateTool", "InvalidName", "InvalidRequest", "InvalidTransition",
           "N8nNotConfigured", "PermissionDenied", "RegistryError", "StoreError", "ToolInUse", "ToolNotActive",
           "ToolNotFound", "WorkflowDeployFailed", "WorkflowNotDeployed", "WorkflowRunFailed"]
