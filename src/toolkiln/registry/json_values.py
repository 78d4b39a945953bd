"""What records and exports write as JSON, without the models: times as ISO 8601 text, exact
numbers as plain ones. Light on purpose: `tools run`, the exports and usage.json use it without
importing pydantic (codec.py keeps the models' side)."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import Any

from toolkiln.semantics.dates import iso_text


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def plain_json(value: Any) -> Any:
    """Data any JSON encoder takes: exact Decimals become int or float (for exports and models),
    dates and datetimes ISO 8601 text."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, date):
        return iso_text(value)
    if isinstance(value, dict):
        return {k: plain_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(v) for v in value]
    return value
