"""The registry's data: a tool's record, an audit entry, a problem found while loading.

All are frozen pydantic models that refuse unknown fields, so a hand-edited file with a
misspelt field is reported instead of half-understood.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from toolkiln.diagnostics.model import Diagnostic

Status = Literal["active", "disabled", "pending_approval", "rejected"]
Actor = Literal["user", "llm", "service"]  # a person, a model, an automation (principals.py)
# A tool kind's name: one of the table in registry/kinds/ (a record names the kind its
# definition checked as; one whose kind this toolkiln lacks is BrokenTool on use).
KIND_NAME = r"^[a-z][a-z0-9_]{0,31}$"
RiskLevel = Literal["low", "medium", "high"]
# "run" is written for unsandboxed runs only (a granted capability in use: see capabilities.py).
Action = Literal[
    "create",
    "update",
    "delete",
    "enable",
    "disable",
    "approve",
    "reject",
    "rollback",
    "deploy",
    "run",
    "trust",
    "approve_calls",  # each call of the tool made to wait for a person, or no longer
    "repin",  # a person moved the versions of the tools a caller runs (pins.py)
]

STATUSES: tuple[Status, ...] = ("active", "disabled", "pending_approval", "rejected")
ACTORS: tuple[Actor, ...] = ("user", "llm", "service")

# The fields a record file does not hold: usage lives in usage.json, so that running a tool
# never rewrites (or dirties in git) the tool's own file.
USAGE_FIELDS = frozenset({"usage_count", "last_used_at"})


def utc_now() -> datetime:
    return datetime.now(UTC)


class Deployment(BaseModel):
    """Where a workflow tool's version runs: the n8n server, the workflow's id, its webhook."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str
    workflow_id: str
    method: str
    path: str
    version: int = Field(ge=1)  # the tool version deployed
    # The n8n credentials this deploy made from the registry's secrets: the name a step gives
    # one -> its id in n8n. Only these are ever updated or deleted (never a user's own).
    credentials: dict[str, str] = Field(default_factory=dict)


class Pin(BaseModel):
    """The version of a callee a caller runs (pins.py): its number, and the SHA-256 of its
    definition without the description, so a tool made again under the name is not it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = Field(ge=1)
    digest: str = Field(pattern=r"^[0-9a-f]{64}$")


class ToolRecord(BaseModel):
    """A registered tool: its definition and what the registry knows about it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    description: str
    kind: str = Field(default="compute", pattern=KIND_NAME)
    parameters: dict[str, Any]
    risk_level: RiskLevel = "low"
    status: Status
    created_by: Actor
    created_at: datetime
    updated_at: datetime
    version: int = Field(ge=1)
    usage_count: int = Field(default=0, ge=0)
    last_used_at: datetime | None = None
    definition: dict[str, Any]
    deployment: Deployment | None = None  # workflow tools, once deployed to n8n
    approve_calls: bool = False  # each call waits for a person's approval (set by an admin person)
    # callee -> the version this caller runs, written when a person approves it (pins.py)
    pins: dict[str, Pin] = Field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """The short form shown in listings (and to models by list_custom_tools)."""
        return {
            "name": self.name,
            "description": self.description,
            "status": self.status,
            "version": self.version,
            "created_by": self.created_by,
            "risk_level": self.risk_level,
            "usage_count": self.usage_count,
        }


class AuditEntry(BaseModel):
    """One line of audit.jsonl: who did what to which tool, when, from which version to which."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    at: datetime
    by: Actor
    action: Action
    tool: str
    old_version: int | None = None
    new_version: int | None = None
    old_status: Status | None = None
    new_status: Status | None = None
    note: str | None = None
    via: str | None = None  # through what the change came (a server's token); see via.py


class Problem(BaseModel):
    """A file the registry could not load (and skipped), with every diagnostic found in it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    file: str
    diagnostics: tuple[Diagnostic, ...]

    @property
    def message(self) -> str:
        first = self.diagnostics[0] if self.diagnostics else None
        return f"{self.file}: " + (f"[{first.code}] {first.message}" if first else "cannot be loaded")

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "diagnostics": [d.to_dict() for d in self.diagnostics]}
