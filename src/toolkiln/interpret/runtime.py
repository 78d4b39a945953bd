"""The state of one run, kept in slot 0 of the frame."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolkiln.semantics.limits import Limits


class Runtime:
    __slots__ = ("limits", "tables", "operations", "deadline")

    def __init__(self, limits: Limits, tables: Mapping[str, Any], operations: int, deadline: float) -> None:
        self.limits = limits
        self.tables = tables
        self.operations = operations
        self.deadline = deadline
