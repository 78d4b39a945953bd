"""Resource limits of one run. Defaults suit a business rule; pass `Limits(...)` to change."""

from __future__ import annotations

import math
from decimal import Context
from functools import cached_property

from toolkiln.ast.records import record, set_field
from toolkiln.errors import Error
from toolkiln.semantics.numbers import MAX_NUMBER_DIGITS, make_bounds, make_context


class LimitsError(Error, ValueError):
    """A Limits field out of range."""


@record()
class Limits:
    max_operations: int = 1_000_000
    max_string_length: int = 100_000
    max_list_length: int = 100_000
    max_number_digits: int = 100
    max_seconds: float = 1.0

    def __init__(
        self,
        max_operations: int = 1_000_000,
        max_string_length: int = 100_000,
        max_list_length: int = 100_000,
        max_number_digits: int = 100,
        max_seconds: float = 1.0,
    ) -> None:
        set_field(self, "max_operations", max_operations)
        set_field(self, "max_string_length", max_string_length)
        set_field(self, "max_list_length", max_list_length)
        set_field(self, "max_number_digits", max_number_digits)
        set_field(self, "max_seconds", max_seconds)
        self.__post_init__()

    def __post_init__(self) -> None:
        for name in ("max_operations", "max_string_length", "max_list_length", "max_number_digits"):
            value = getattr(self, name)
            if type(value) is not int:  # not bool, not float, not str
                raise LimitsError(f"{name} must be a whole number, not {type(value).__name__} {value!r:.40}")
            if value < 1:
                raise LimitsError(f"{name} must be at least 1, not {value}")
        if self.max_number_digits > MAX_NUMBER_DIGITS:
            raise LimitsError(f"max_number_digits must be at most {MAX_NUMBER_DIGITS:,}, not {self.max_number_digits}")
        seconds = self.max_seconds
        if type(seconds) not in (int, float):
            raise LimitsError(f"max_seconds must be a number, not {type(seconds).__name__} {seconds!r:.40}")
        if not seconds > 0 or math.isnan(seconds):
            raise LimitsError(f"max_seconds must be positive, not {seconds}")

    @cached_property
    def context(self) -> Context:
        return make_context(self.max_number_digits)

    @cached_property
    def bounds(self) -> Context:
        """What a number from outside (argument, table, data) may be: see `make_bounds`."""
        return make_bounds(self.max_number_digits)


DEFAULT_LIMITS = Limits()
