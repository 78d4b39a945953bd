"""A tool file read as plain JSON, without pydantic: what `tools run` needs of a record.

`codec.decode_record` validates a tool file with the `ToolRecord` model, which costs importing
pydantic and building the models (about half the start-up of `toolkiln tools run`). This reader
takes only the shape the registry itself writes (`codec.encode_record`): each field of its
exact JSON type, times as the ISO 8601 text `iso` writes, no field the model does not have, none
the registry never writes (the usage fields, a workflow's deployment). Anything else, it
declines (None) and the caller takes the model's way, which accepts or refuses it with the same
codes as always. So what it accepts, the model accepts with the same values
(tests/property/test_record_view.py holds the two to that); it never refuses on its own.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from decimal import Decimal
from typing import Any

from toolkiln.syntax.limits import MAX_SOURCE_CHARS

# The json module reads a small file as fast as msgspec (codec.py's decoder) and is imported
# already: msgspec's import costs more than the whole read. They differ in two things only,
# which json takes and msgspec refuses: NaN and infinities, and a surrogate escape without its
# pair. This reader declines both (a surrogate escape even with its pair: the registry writes
# none), so the files it reads are the ones msgspec reads, to the same values.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")

_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")  # models.ToolRecord.name
_KIND = re.compile(r"[a-z][a-z0-9_]{0,31}")  # models.KIND_NAME
_DIGEST = re.compile(r"[0-9a-f]{64}")  # models.Pin.digest
# A time as `iso` writes it (and datetime.fromisoformat reads it): date, "T", time with at most
# six digits of a second, then "Z", an offset or nothing.
_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?(Z|[+-][0-9]{2}:[0-9]{2})?")
_STATUSES = ("active", "disabled", "pending_approval", "rejected")  # models.STATUSES
_ACTORS = ("user", "llm", "service")  # models.ACTORS
_RISKS = ("low", "medium", "high")  # models.RiskLevel
_REQUIRED = frozenset(
    {"name", "description", "parameters", "status", "created_by", "created_at", "updated_at", "version", "definition"}
)
_OPTIONAL = frozenset({"kind", "risk_level", "approve_calls", "pins"})


class RecordView:
    """A tool's record as the run path reads it: the fields of `ToolRecord` a tool file holds,
    plain (`pins`: callee -> (version, digest))."""

    __slots__ = (
        "name",
        "description",
        "kind",
        "parameters",
        "risk_level",
        "status",
        "created_by",
        "created_at",
        "updated_at",
        "version",
        "definition",
        "approve_calls",
        "pins",
    )

    def __init__(self, obj: dict[str, Any], created_at: datetime, updated_at: datetime) -> None:
        self.name: str = obj["name"]
        self.description: str = obj["description"]
        self.kind: str = obj.get("kind", "compute")
        self.parameters: dict[str, Any] = obj["parameters"]
        self.risk_level: str = obj.get("risk_level", "low")
        self.status: str = obj["status"]
        self.created_by: str = obj["created_by"]
        self.created_at = created_at
        self.updated_at = updated_at
        self.version: int = obj["version"]
        self.definition: dict[str, Any] = obj["definition"]
        self.approve_calls: bool = obj.get("approve_calls", False)
        self.pins: dict[str, tuple[int, str]] = {
            callee: (pin["version"], pin["digest"]) for callee, pin in obj.get("pins", {}).items()
        }


def read_record(data: bytes) -> RecordView | None:
    """The record in a tool file's bytes, or None when it is not in the shape the registry
    writes (then `codec.decode_record` says what it is)."""
    if len(data) > MAX_SOURCE_CHARS or _SURROGATE_ESCAPE.search(data):
        return None
    try:
        obj = json.loads(data.decode("utf-8"), parse_float=Decimal, parse_constant=_refuse_constant)
    except (RecursionError, ValueError):  # (UnicodeDecodeError and JSONDecodeError are ValueErrors)
        return None
    if not isinstance(obj, dict) or not _in_shape(obj):
        return None
    created_at, updated_at = _time(obj["created_at"]), _time(obj["updated_at"])
    if created_at is None or updated_at is None:
        return None
    return RecordView(obj, created_at, updated_at)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _in_shape(obj: dict[str, Any]) -> bool:
    keys = obj.keys()
    if not keys >= _REQUIRED or not keys <= _REQUIRED | _OPTIONAL:
        return False
    return (
        _text(obj["name"], _NAME)
        and type(obj["description"]) is str
        and _text(obj.get("kind", "compute"), _KIND)
        and type(obj["parameters"]) is dict
        and obj.get("risk_level", "low") in _RISKS
        and obj["status"] in _STATUSES
        and obj["created_by"] in _ACTORS
        and _whole(obj["version"])
        and type(obj["definition"]) is dict
        and type(obj.get("approve_calls", False)) is bool
        and _pins(obj.get("pins", {}))
    )


def _text(value: Any, pattern: re.Pattern[str]) -> bool:
    return type(value) is str and pattern.fullmatch(value) is not None


def _whole(value: Any) -> bool:
    """A whole number of at least 1 (`bool` is not one, nor `1.0`)."""
    return type(value) is int and value >= 1


def _pins(pins: Any) -> bool:
    if type(pins) is not dict:
        return False
    return all(
        type(pin) is dict
        and pin.keys() == {"version", "digest"}
        and _whole(pin["version"])
        and _text(pin["digest"], _DIGEST)
        for pin in pins.values()
    )


def _time(value: Any) -> datetime | None:
    if type(value) is not str or _TIME.fullmatch(value) is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:  # (a month 13, an hour 24, an offset of a day)
        return None
