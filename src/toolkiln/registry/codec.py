"""Record files and log lines: JSON text <-> models, exact numbers, every problem a diagnostic.

A tool file is the record as indented JSON (numbers exact, as the JSON DSL writes them),
without the usage fields. Decoding never raises: what does not decode comes back as
diagnostics with the file and JSON path, for `Registry.problems`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from decimal import Decimal
from typing import Any

import msgspec
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from toolkiln.ast.spans import Span, json_path
from toolkiln.diagnostics import codes
from toolkiln.diagnostics.model import Diagnostic
from toolkiln.diagnostics.source import Source
from toolkiln.registry.json_values import iso
from toolkiln.registry.models import USAGE_FIELDS, AuditEntry, ToolRecord
from toolkiln.semantics.values import to_json
from toolkiln.syntax.json_document import load_json
from toolkiln.syntax.limits import MAX_SOURCE_CHARS

# Decoding a tool file with msgspec takes half the time of the json module (the better part of
# a start-up with thousands of tools); numbers stay exact. Whatever it does not take (NaN, a
# lone surrogate, too deep, not JSON at all) goes the json module's way, which reports it.
_RECORD_JSON = msgspec.json.Decoder(float_hook=Decimal)


def encode_record(record: ToolRecord) -> str:
    # A compute tool's file has no `deployment` key at all, `approve_calls` and `pins` only when set:
    # its files stay as they were.
    left_out: dict[str, Any] = dict.fromkeys(USAGE_FIELDS, True)
    if record.deployment is None:
        left_out["deployment"] = True
    elif not record.deployment.credentials:  # (files of workflows without credentials stay as they were)
        left_out["deployment"] = {"credentials"}
    if not record.approve_calls:
        left_out["approve_calls"] = True
    if not record.pins:
        left_out["pins"] = True
    data = record.model_dump(exclude=left_out)
    data["created_at"] = iso(record.created_at)
    data["updated_at"] = iso(record.updated_at)
    return to_json(data, indent=2) + "\n"


def encode_audit(entry: AuditEntry) -> str:
    data = entry.model_dump(exclude_none=True)
    data["at"] = iso(entry.at)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def decode_audit(line: str) -> AuditEntry | None:
    """An audit line, or None for one that is not (a hand edit, a foreign line)."""
    try:
        return AuditEntry.model_validate_json(line)
    except ValidationError:
        return None


def file_digest(data: bytes, version: str) -> str:
    """What the check cache remembers of a file: its bytes, under one toolkiln version."""
    return hashlib.sha256(version.encode() + b"\0" + data).hexdigest()


def content_key(record: ToolRecord) -> str:
    """What a compiled definition is remembered by: the definition and the record's copies of
    its name, description, parameters, risk level and kind, and the callee versions it is pinned
    to (a status change leaves it alone)."""
    parts = [record.definition, record.name, record.description, record.parameters, record.risk_level, record.kind]
    if record.pins:  # (the keys of unpinned records stay as they were)
        parts.append({name: [pin.version, pin.digest] for name, pin in record.pins.items()})
    return hashlib.sha256(to_json(parts).encode()).hexdigest()


def decode_record(data: bytes, file: str) -> tuple[ToolRecord | None, list[Diagnostic]]:
    """The record in a tool file, or None and the diagnostics that say why not."""
    if len(data) <= MAX_SOURCE_CHARS:  # (no more characters than bytes: the json way takes it too)
        try:
            obj = _RECORD_JSON.decode(data)
        except (msgspec.MsgspecError, RecursionError, ValueError):
            obj = None
        if isinstance(obj, dict):
            try:
                return ToolRecord.model_validate(obj), []
            except ValidationError:
                pass  # the json way says where
    return decode_record_by_json(data, file)


def decode_record_by_json(data: bytes, file: str) -> tuple[ToolRecord | None, list[Diagnostic]]:
    """`decode_record` with the json module alone: what every diagnostic comes from."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, [replace(Diagnostic.of(codes.UNREADABLE_FILE, f"not UTF-8 text: {error.reason}", None), file=file)]
    source = Source(name=file, text=text)
    if not text.strip():
        return None, [
            replace(
                Diagnostic.of(
                    codes.INVALID_JSON, "the file is empty", None, hint="restore it from version control, or delete it"
                ),
                file=file,
            )
        ]
    obj, diagnostics = load_json(text)
    if diagnostics:
        return None, [d.located(source) for d in diagnostics]
    if not isinstance(obj, dict):
        return None, [_at(codes.WRONG_JSON_TYPE, "a tool file must hold a JSON object", (), file)]
    try:
        return ToolRecord.model_validate(obj), []
    except ValidationError as error:
        return None, [_validation_diagnostic(e, file) for e in error.errors()]


def _validation_diagnostic(error: ErrorDetails, file: str) -> Diagnostic:
    loc = tuple(part for part in error["loc"] if isinstance(part, str | int))
    kind = error["type"]
    field = str(loc[-1]) if loc else "?"
    if kind == "missing":
        return _at(codes.MISSING_FIELD, f"the record is missing the field `{field}`", loc, file)
    if kind == "extra_forbidden":
        allowed = ", ".join(name for name in ToolRecord.model_fields if name not in USAGE_FIELDS)
        return _at(
            codes.UNKNOWN_FIELD,
            f"the record has an unknown field `{field}`",
            loc,
            file,
            hint=f"a record's fields are: {allowed}",
        )
    shown = error.get("input")
    shown_text = json.dumps(shown, default=str)[:60] if not isinstance(shown, dict | list) else type(shown).__name__
    return _at(codes.WRONG_JSON_TYPE, f"`{json_path(loc) or field}`: {error['msg']} (found {shown_text})", loc, file)


def _at(code: codes.Code, message: str, loc: tuple[str | int, ...], file: str, hint: str | None = None) -> Diagnostic:
    span = Span(line=0, column=0, end_line=0, end_column=0, path=json_path(loc)) if loc else None
    return replace(Diagnostic.of(code, message, span, hint), file=file)
