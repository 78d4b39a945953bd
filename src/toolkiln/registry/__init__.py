"""The tool registry: checked tools persisted in a folder, with a lifecycle, versions, usage
counts, exports to every tool-calling format and meta-tools for models. See docs/registry.md.

The names below load on first use, so that `toolkiln.registry.cli` (imported whenever the
`toolkiln` command builds its parser) does not bring in the registry and filelock.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Registry": "registry",
    "ToolRecord": "models",
    "AuditEntry": "models",
    "Problem": "models",
    "Policy": "policy",
    "TRANSITIONS": "policy",
    "FORMATS": "exports",
    "Export": "exports",
    "ExportIssue": "exports",
    "RegistryError": "errors",
    "BrokenTool": "errors",
    "DuplicateTool": "errors",
    "InvalidName": "errors",
    "InvalidRequest": "errors",
    "InvalidTransition": "errors",
    "PermissionDenied": "errors",
    "StoreError": "errors",
    "ToolNotActive": "errors",
    "ToolNotFound": "errors",
    "DependencyCycle": "errors",
    "ToolInUse": "errors",
    "N8nNotConfigured": "errors",
    "WorkflowDeployFailed": "errors",
    "WorkflowNameTaken": "errors",
    "WorkflowNotDeployed": "errors",
    "WorkflowRunFailed": "errors",
    "Deployment": "models",
    "Principal": "principals",
    "LOCAL_USER": "principals",
    "Capabilities": "capabilities",
    "CapabilityNotGranted": "errors",
    "NeedsAdminPerson": "errors",
    "NotTrusted": "errors",
    "Outcome": "outcome",
    "Create": "applying",
    "Update": "applying",
    "Rollback": "applying",
    "Delete": "applying",
    "Lifecycle": "applying",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkiln.registry' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"toolkiln.registry.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
