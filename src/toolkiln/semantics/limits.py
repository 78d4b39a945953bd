"""Resource limits of one run. Defaults suit a business rule; pass `Limits(...)` to change."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Context
from functools import cached_property

from toolkiln.errors import Error
from toolkiln.semantics.numbers import make_context


class LimitsError(Error, ValueError):
    """A Limits field out of range."""


@dataclass(frozen=True)
class Limits:
    max_operations: int = 1_000_000
    max_string_length: int = 100_000
    max_list_length: int = 100_000
    max_number_digits: int = 100
    max_seconds: float = 1.0

    def __post_init__(self) -> None:
        for name in ("max_operations", "max_string_length", "max_list_length", "max_number_digits"):
            if getattr(self, name) < 1:
                raise LimitsError(f"{name} must be at least 1")
        if not self.max_seconds > 0:
            raise LimitsError("max_seconds must be positive")

    @cached_property
    def context(self) -> Context:
        return make_context(self.max_number_digits)


DEFAULT_LIMITS = Limits()
