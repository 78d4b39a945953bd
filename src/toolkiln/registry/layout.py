"""The names of a registry folder's parts (folder.py describes them), and how to recognise one.

Kept apart from the store, which imports filelock: `toolkiln check` asks `is_registry` of every
folder it walks, and a project's ./.toolkiln registry holds records, not tool files.
"""

from __future__ import annotations

from pathlib import Path

TOOLS = "tools"
VERSIONS = "versions"
TABLES = "tables"
AUDIT = "audit.jsonl"
USAGE = "usage.json"
LOCK = ".lock"
DELETED = ".deleted"  # deleted tools, each in a folder of its own: <name>.<UTC time>/


def is_registry(folder: Path) -> bool:
    """A folder laid out as a registry: its tools/ beside the audit log, past versions, usage or
    lock (a clone from git may lack the ignored ones)."""
    return (folder / TOOLS).is_dir() and any((folder / name).exists() for name in (AUDIT, VERSIONS, USAGE, LOCK))
