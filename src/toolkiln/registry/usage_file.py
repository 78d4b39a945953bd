"""usage.json: the run counts and last use of each tool, as the processes flushed them
(usage.py counts them), read again when the file changes."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from toolkiln.diagnostics import codes
from toolkiln.registry.errors import StoreError
from toolkiln.registry.folder import MAX_USAGE_BYTES, Folder, Sig, sig_of
from toolkiln.registry.json_values import iso
from toolkiln.semantics.values import to_json

if TYPE_CHECKING:
    from toolkiln.registry.models import Problem
    from toolkiln.registry.problem_files import Problems

Usage = dict[str, tuple[int, datetime | None]]


class UsageFile:
    def __init__(self, folder: Folder, problems: Problems) -> None:
        self.folder = folder
        self.problems = problems
        self.counts: Usage = {}  # as the file held them when last read or written
        self._sig: Sig | None = None

    def note(self, usage: Usage) -> None:
        """The counts this process just wrote (holding the lock)."""
        self.counts = usage
        self._sig = sig_of(self.folder.usage_path)
        self.problems.pop(self.folder.relative(self.folder.usage_path), None)

    def load(self) -> None:
        """Read the file again if it changed."""
        path = self.folder.usage_path
        sig = sig_of(path)
        if sig == self._sig and sig is not None:
            return
        self._sig = sig
        rel = self.folder.relative(path)
        self.problems.pop(rel, None)
        try:
            data = self.folder.read_bytes(path, MAX_USAGE_BYTES)
        except StoreError as error:
            self.counts = {}
            self.problems.unreadable(path, error)
            return
        self.counts, found = decode_usage(data, rel)
        if found is not None:
            self.problems[rel] = found


def decode_usage(data: bytes | None, rel: str) -> tuple[Usage, Problem | None]:
    """usage.json -> {tool: (count, last used)}; a broken file is a problem and counts as empty."""
    if data is None:
        return {}, None
    try:
        raw = json.loads(data.decode("utf-8"), parse_float=Decimal)
        usage: Usage = {}
        for name, entry in raw.items():
            count = entry["count"]
            last = entry.get("last_used_at")
            if not isinstance(count, int) or count < 0:
                raise ValueError(f"bad count for {name}")
            usage[name] = (count, datetime.fromisoformat(last) if last else None)
        return usage, None
    except (ValueError, TypeError, KeyError, AttributeError, UnicodeDecodeError) as error:
        from toolkiln.registry.problem_files import problem  # (the models: only for a broken file)

        hint = "the file is rewritten at the next run; its old counts are lost"
        return {}, problem(rel, codes.INVALID_JSON, f"usage counts cannot be read: {error}", hint)


def encode_usage(usage: Usage) -> str:
    data = {name: {"count": count, "last_used_at": iso(last)} for name, (count, last) in sorted(usage.items())}
    return to_json(data, indent=1) + "\n"
