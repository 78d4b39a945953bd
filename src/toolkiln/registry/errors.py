"""The registry's errors. Each derives from `toolkiln.Error` through `RegistryError`.

Every error has a stable `code` and `name` (like a diagnostic's), a `message` and a `hint`,
and `to_dict()` gives the same keys as `Diagnostic.to_dict()` (both are `ErrorDetails`), so a model (through
`call_meta`) and a CLI user see registry errors and compile errors in one shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolkiln.diagnostics import codes
from toolkiln.errors import Error, error_details

if TYPE_CHECKING:
    from toolkiln.diagnostics.model import Diagnostic


class RegistryError(Error):
    """Base of the registry's errors. A subclass names its code: `class X(RegistryError, code=...)`."""

    code = codes.REGISTRY_ERROR.code
    name = codes.REGISTRY_ERROR.name

    def __init_subclass__(cls, *, code: codes.Code | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if code is not None:
            cls.code, cls.name = code.code, code.name

    def __init__(self, message: str, hint: str | None = None, *, path: str | None = None) -> None:
        self.message = message
        self.hint = hint
        self.path = path
        super().__init__(message if hint is None else f"{message} (hint: {hint})")

    def to_dict(self) -> dict[str, Any]:
        """This error alone (not the diagnostics it may carry) in the one shape of an error."""
        return error_details(self)[0].to_dict()


class InvalidName(RegistryError, code=codes.TOOL_NAME_INVALID):
    """A tool name that does not match ^[a-z][a-z0-9_]{0,63}$ or names a meta-tool."""


class ToolNotFound(RegistryError, code=codes.TOOL_NOT_FOUND):
    """No tool (or no such version of a tool) by that name."""


class DuplicateTool(RegistryError, code=codes.DUPLICATE_TOOL):
    """A tool of that name exists already; `update` changes it."""


class InvalidRequest(RegistryError, code=codes.INVALID_REQUEST):
    """An argument the registry cannot act on: an unknown actor, format, version or field."""


class DependencyCycle(RegistryError, code=codes.DEPENDENCY_CYCLE):
    """Saving the tool would make tools call each other in a cycle; `.cycle` lists it."""

    def __init__(self, message: str, hint: str | None = None, *, cycle: list[str] | None = None) -> None:
        super().__init__(message, hint)
        self.cycle = cycle or []


class ToolInUse(RegistryError, code=codes.TOOL_IN_USE):
    """The tool cannot be deleted: other tools call it (`.callers`); `force=True` deletes anyway."""

    def __init__(self, message: str, hint: str | None = None, *, callers: list[str] | None = None) -> None:
        super().__init__(message, hint)
        self.callers = callers or []


class PermissionDenied(RegistryError, code=codes.PERMISSION_DENIED):
    """The actor may not do this (for example a model deleting a tool a person created)."""


class CapabilityNotGranted(PermissionDenied, code=codes.CAPABILITY_NOT_GRANTED):
    """The tool needs a power (unsandboxed, network, an executable folder) the registry was not granted."""


class NeedsAdminPerson(PermissionDenied, code=codes.NEEDS_ADMIN_PERSON):
    """Only a person with the admin scope may create, change or approve a tool using a capability."""


class NotTrusted(PermissionDenied, code=codes.RECORD_NOT_TRUSTED):
    """A record this registry did not write here (cloned, copied, edited by hand), asked to run
    a program or a workflow, or to be approved, enabled, changed or deployed."""


class InvalidTransition(RegistryError, code=codes.INVALID_TRANSITION):
    """The lifecycle does not allow this action from the tool's status."""


class ToolNotActive(RegistryError, code=codes.TOOL_NOT_ACTIVE):
    """Only active tools run."""


class CallPending(RegistryError, code=codes.CALL_PENDING):
    """A call that waits for a person's approval (not an error of the caller's: it has not run)."""


class CallDenied(RegistryError, code=codes.CALL_DENIED):
    """A call a person denied, or that expired before anyone decided."""


class CallNotFound(ToolNotFound, code=codes.CALL_NOT_FOUND):
    """No pending call by that id."""


class CallDecided(InvalidTransition, code=codes.CALL_DECIDED):
    """A call approved or denied already (of two decisions, the one that lost), or expired."""


class TooManyPendingCalls(PermissionDenied, code=codes.TOO_MANY_PENDING_CALLS):
    """A caller with `Policy.max_pending_calls` calls waiting already (429 over REST)."""


class CallTooLarge(InvalidRequest, code=codes.CALL_TOO_LARGE):
    """A held call whose arguments would make its file larger than the store keeps."""


class CallToolChanged(InvalidTransition, code=codes.CALL_TOOL_CHANGED):
    """The tool has a new version since the call was made: the approved call does not run."""


class BrokenTool(RegistryError, code=codes.BROKEN_TOOL):
    """A stored tool no longer compiles (its file was changed by hand, or the language changed)."""

    def __init__(self, message: str, hint: str | None = None, *, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message, hint)
        self.diagnostics = diagnostics or []


class StoreError(RegistryError, code=codes.STORE_ERROR):
    """The store cannot be read or written: a file system error, or the lock timed out."""


class UnsafeFile(StoreError, code=codes.UNSAFE_REGISTRY_FILE):
    """An entry of the registry folder that is not a regular file inside it (a symbolic link, a
    FIFO, a device, a folder where a file belongs): never read, followed or written through."""


class FileTooLarge(StoreError, code=codes.REGISTRY_FILE_TOO_LARGE):
    """A file of the registry folder larger than the registry ever writes it; left unread."""


class DatabaseUnreachable(StoreError, code=codes.DATABASE_UNREACHABLE):
    """No PostgreSQL answered at the registry URL's host and port."""


class DatabaseLoginRefused(StoreError, code=codes.DATABASE_LOGIN_REFUSED):
    """PostgreSQL refused the registry URL's user, password or database."""


class SchemaVersionMismatch(StoreError, code=codes.DATABASE_SCHEMA_VERSION):
    """The registry's tables in the database are of another schema version."""


class CheckTooSlow(RegistryError, code=codes.CHECK_TOO_SLOW):
    """A check that saves nothing (validate, test) took longer than its total time budget."""


class N8nNotConfigured(RegistryError, code=codes.N8N_NOT_CONFIGURED):
    """A workflow tool is to be deployed or run, but no n8n server (or API key) is known."""


class N8nFailure(RegistryError):
    """n8n answered with an error, or not at all: `status` is its HTTP status (None: no answer)."""

    def __init__(self, message: str, hint: str | None = None, *, status: int | None = None) -> None:
        super().__init__(message, hint)
        self.status = status


class WorkflowDeployFailed(N8nFailure, code=codes.WORKFLOW_DEPLOY_FAILED):
    """n8n refused or could not be reached while deploying or taking down a workflow tool."""


class WorkflowNameTaken(RegistryError, code=codes.WORKFLOW_NAME_TAKEN):
    """Another workflow in n8n (one the tool did not create) has the name of the tool's workflow."""


class WorkflowNotDeployed(RegistryError, code=codes.WORKFLOW_NOT_DEPLOYED):
    """An active workflow tool whose current version has no deployment on record."""


class WorkflowRunFailed(N8nFailure, code=codes.WORKFLOW_RUN_FAILED):
    """Calling a workflow tool's webhook failed."""


__all__ = [
    "BrokenTool",
    "CheckTooSlow",
    "DependencyCycle",
    "DuplicateTool",
    "FileTooLarge",
    "InvalidName",
    "InvalidRequest",
    "InvalidTransition",
    "N8nNotConfigured",
    "PermissionDenied",
    "RegistryError",
    "StoreError",
    "ToolInUse",
    "ToolNotActive",
    "ToolNotFound",
    "UnsafeFile",
    "WorkflowDeployFailed",
    "WorkflowNameTaken",
    "WorkflowNotDeployed",
    "WorkflowRunFailed",
    "InvalidSecretName",
    "InvalidSecretValue",
    "SecretMissing",
    "SecretNotAHeaderValue",
    "SecretUnreadable",
    "SecretsKeyMissing",
    "SecretsKeyWrong",
    "InvalidTenantName",
    "UnknownTenant",
]


class InvalidSecretName(InvalidRequest, code=codes.INVALID_SECRET_NAME):
    """A secret name that is not an upper-case environment variable name."""


class SecretNotFound(RegistryError, code=codes.SECRET_NOT_FOUND):
    """No secret of that name is set."""


class SecretMissing(RegistryError, code=codes.SECRET_MISSING):
    """A secret a tool needs (to run, or to be deployed with) is not set."""


class SecretNotAHeaderValue(RegistryError, code=codes.SECRET_NOT_A_HEADER_VALUE):
    """A secret that becomes an HTTP header in n8n holds what n8n would not send as it is."""


class SecretUnreadable(RegistryError, code=codes.SECRET_UNREADABLE):
    """A stored secret that does not decrypt with this key (a copied folder, another key)."""


class SecretsKeyMissing(StoreError, code=codes.SECRETS_KEY_MISSING):
    """A database's registry reads or sets a secret, and this process has no fleet key."""


class SecretsKeyWrong(StoreError, code=codes.SECRETS_KEY_WRONG):
    """This process's key is not the one the database's secrets are sealed under."""


class InvalidSecretValue(InvalidRequest, code=codes.INVALID_SECRET_VALUE):
    """A secret's value no environment variable can hold (a NUL, a lone surrogate), empty or too long."""


class InvalidTenantName(InvalidRequest, code=codes.INVALID_TENANT_NAME):
    """A tenant name that is not `[a-z][a-z0-9-]{0,39}` (no path can hide in one)."""


class TenantInUse(RegistryError, code=codes.TENANT_IN_USE):
    """A tenant to delete still has tokens or calls held for approval (`--force` deletes it anyway)."""


class DefaultTenantKept(InvalidRequest, code=codes.DEFAULT_TENANT_KEPT):
    """The tenant `default` (the registry folder itself) cannot be deleted."""


class UnknownTenant(RegistryError, code=codes.UNKNOWN_TENANT):
    """No tenant of that name: its folder is not there."""
