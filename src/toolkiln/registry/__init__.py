"""The tool registry: checked tools persisted in a folder, with a lifecycle, versions, usage
counts, exports to every tool-calling format and meta-tools for models. See docs/registry.md."""

from toolkiln.registry.errors import (BrokenTool, DuplicateTool, InvalidName, InvalidRequest, InvalidTransition,
                                      PermissionDenied, RegistryError, StoreError, ToolNotActive, ToolNotFound)
from toolkiln.registry.exports import FORMATS, Export, ExportIssue
from toolkiln.registry.models import AuditEntry, Problem, ToolRecord
from toolkiln.registry.policy import TRANSITIONS, Policy
from toolkiln.registry.registry import Registry

__all__ = ["FORMATS", "TRANSITIONS", "AuditEntry", "BrokenTool", "DuplicateTool", "Export", "ExportIssue",
           "InvalidName", "InvalidRequest", "InvalidTransition", "PermissionDenied", "Policy", "Problem", "Registry",
           "RegistryError", "StoreError", "ToolNotActive", "ToolNotFound", "ToolRecord"]
