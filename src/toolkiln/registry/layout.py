"""The names of a registry folder's parts (folder.py describes them), and how to recognise one.

Kept apart from the store, which imports filelock: `toolkiln check` asks `is_registry` of every
folder it walks, and a project's ./.toolkiln registry holds records, not tool files.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

TOOLS = "tools"
VERSIONS = "versions"
TABLES = "tables"
AUDIT = "audit.jsonl"
USAGE = "usage.json"
LOCK = ".lock"
DELETED = ".deleted"  # deleted tools, each in a folder of its own: <name>.<UTC time>/
TENANTS = "tenants"  # <registry>/tenants/<name>/: the registry of each tenant but `default`
TENANT_NAME = re.compile(r"[a-z][a-z0-9-]{0,39}")


def tenant_of_folder(folder: Path) -> str | None:
    """The tenant whose registry `folder` is, by its place (`.../tenants/NAME`); None for a
    registry folder that is no tenant's (the tenant `default`)."""
    folder = Path(os.path.abspath(folder))
    found = TENANT_NAME.fullmatch(folder.name)
    return folder.name if found and folder.parent.name == TENANTS and folder.name != "default" else None


def is_registry(folder: Path) -> bool:
    """A folder laid out as a registry: its tools/ beside the audit log, past versions, usage or
    lock (a clone from git may lack the ignored ones)."""
    return (folder / TOOLS).is_dir() and any((folder / name).exists() for name in (AUDIT, VERSIONS, USAGE, LOCK))
