"""JSON data equality: whether two definitions, records or results are the same data.

Numbers compare by value whatever their Python type (0.10 == 0.1, 2 == 2.0, Decimal or float),
and booleans stay apart from numbers (true != 1), as in JSON; a date or datetime is its ISO 8601
text, as JSON carries it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal
from typing import Any

from toolkiln.semantics.dates import iso_text
from toolkiln.semantics.numbers import from_float


def same_data(a: Any, b: Any) -> bool:
    """JSON data equality with numbers compared by value (0.10 == 0.1, 2 == 2.0), bools apart."""
    return _norm(a) == _norm(b)


def _norm(value: Any) -> object:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, date):
        return ("str", iso_text(value))
    if isinstance(value, float):
        return ("number", from_float(value))
    if isinstance(value, int | Decimal):
        return ("number", Decimal(value))
    if isinstance(value, Mapping):
        return {k: _norm(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_norm(v) for v in value]
    return ("other", repr(value))
