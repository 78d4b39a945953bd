"""Builtins that read and write data as text, the data helpers of OwnPilot's `utils`: JSON
(`is_json`, `parse_json`, `to_json`), CSV (`parse_csv`), UUIDs (`is_uuid`) and `chunk`.

What they parse is held to the run's limits as an argument is (numbers, lengths, values in
all) and charged by what it turned out to hold (`data_work`), once built."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from toolkiln.ast.types import ANY, ARRAY, BOOLEAN, NUMBER, OBJECT, STRING, Type, array_of
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.builtin_registry import (
    BYTES_PER_OPERATION,
    NUMBER_BYTES,
    SLOT_BYTES,
    Arg,
    builtin,
    fault,
    first_size,
    list_built,
    result_text_work,
)
from toolkiln.semantics.dates import iso_text
from toolkiln.semantics.limits import Limits
from toolkiln.semantics.numbers import render_number
from toolkiln.semantics.values import value_reader
from toolkiln.semantics.word_builtins import JS_WHITESPACE

S = Arg("text", (STRING,))
MAX_INDENT = 10  # JSON.stringify's own cap
LIST_BYTES = SLOT_BYTES + 56
"""What one list a builtin makes takes besides its items: its slot and a list's header."""
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.ASCII | re.I)
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def data_work(value: Any) -> int:
    """What a parsed value takes, in operations: each item and field as a number in a list
    (NUMBER_BYTES, more than a text's or a list's header), and its texts' characters at four
    bytes. Object keys are in their field's share (a CSV's keys are one header, shared)."""
    nodes, characters, pending = 1, 0, [value]
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is str:
            characters += len(item)
        elif kind is list or kind is dict:
            nodes += len(item)
            pending.extend(item.values() if kind is dict else item)
    return (nodes * NUMBER_BYTES + characters * 4) // BYTES_PER_OPERATION


def written_work(text: str) -> int:
    """What writing a value as JSON text takes, from the text written (every item or field
    writes at least one character, and writing stops past max_string_length)."""
    return len(text) // 4


def _not_a_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # (Python reads NaN and Infinity; JSON has neither)


def _json_data(text: str, number: Any) -> Any:
    """`text` read as strict JSON (as JavaScript's JSON.parse reads it); ValueError if it is
    not JSON, or nested too deep for the reader."""
    try:
        return json.loads(text, parse_float=number, parse_int=number, parse_constant=_not_a_constant)
    except RecursionError:
        raise ValueError("nested too deep") from None


@builtin(
    "is_json",
    (S,),
    BOOLEAN,
    'Whether text is JSON, as JavaScript\'s JSON.parse reads it: is_json("{\\"a\\": [1]}") = true, '
    'is_json("NaN") = false.',
    pure=True,
    work=lambda text: len(text) // 16,  # C's JSON scanner, a Python call a number
)
def _is_json(limits: Limits, text: str) -> bool:
    try:
        _json_data(text, len)  # (numbers are not made: only whether they are numbers matters)
    except ValueError:
        return False
    return True


@builtin(
    "parse_json",
    (S,),
    ANY,
    'The value JSON text holds, numbers as exact decimals: parse_json("{\\"total\\": 31.50}").total '
    "= 31.5. Text that is not JSON, or data beyond the run's limits, is E0515.",
    pure=True,
    work=first_size,
    built=data_work,
)
def _parse_json(limits: Limits, text: str) -> Any:
    try:
        data = _json_data(text, Decimal)
    except ValueError as error:
        raise fault(codes.INVALID_TEXT, f"parse_json of text that is not JSON: {error}") from None
    reader = value_reader(
        limits.max_number_digits,
        limits.max_list_length,
        limits.max_string_length,
        max(limits.max_operations, limits.max_list_length),  # as an argument's values in all
    )
    try:
        return reader(data)
    except RunError as error:
        raise fault(codes.INVALID_TEXT, f"parse_json: {error.message}") from None


def _indent(indent: Decimal) -> int:
    if indent != indent.to_integral_value() or not 0 <= indent <= MAX_INDENT:
        raise fault(
            codes.INVALID_OPERATION, f"to_json's indent must be a whole number from 0 to {MAX_INDENT}, not {indent}"
        )
    return int(indent)


@builtin(
    "to_json",
    (Arg("value", (ANY,)), Arg("indent", (NUMBER,), optional=True)),
    STRING,
    "A value as JSON text, as JavaScript's JSON.stringify writes it: compact, or laid out with "
    'indent spaces (0 to 10): to_json({"a": [1, 2]}) = "{\\"a\\":[1,2]}". Numbers as toolkiln '
    "prints them (31.5), dates and datetimes as ISO 8601 text.",
    pure=True,
    work=first_size,
    built=lambda result: result_text_work(result) + written_work(result),
)
def _to_json(limits: Limits, value: Any, indent: Decimal = Decimal(0)) -> str:
    spaces = _indent(indent)
    pieces: list[str] = []
    left = [limits.max_string_length]
    _write(value, spaces, "\n", pieces, left)
    if left[0] < 0:
        raise fault(codes.STRING_TOO_LONG, f"to_json would write more than {limits.max_string_length:,} characters")
    return "".join(pieces)


def _write(value: Any, spaces: int, newline: str, out: list[str], left: list[int]) -> None:
    """JSON.stringify's layout of `value` into `out`, each piece's length taken from `left`:
    once it is below 0, nothing more is written (the caller refuses the text)."""
    kind = type(value)
    if kind is list or kind is dict:
        _write_container(value, spaces, newline, out, left)
        return
    if kind is str:
        piece = _LONE_SURROGATE.sub(lambda c: f"\\u{ord(c[0]):04x}", json.dumps(value, ensure_ascii=False))
    elif kind is Decimal:
        piece = render_number(value)
    elif kind is date or kind is datetime:
        piece = f'"{iso_text(value)}"'
    else:
        piece = "null" if value is None else "true" if value else "false"
    left[0] -= len(piece)
    out.append(piece)


def _write_container(
    value: list[Any] | dict[str, Any], spaces: int, newline: str, out: list[str], left: list[int]
) -> None:
    opening, closing = ("[", "]") if type(value) is list else ("{", "}")
    if not value:
        out.append(opening + closing)
        left[0] -= 2
        return
    inner = newline + " " * spaces if spaces else ""
    items = value.items() if type(value) is dict else ((None, item) for item in value)
    out.append(opening)
    for position, (key, item) in enumerate(items):
        if left[0] < 0:
            return
        out.append(("," if position else "") + inner)
        if key is not None:
            _write(key, spaces, inner, out, left)
            out.append(": " if spaces else ":")
        _write(item, spaces, inner, out, left)
        left[0] -= len(inner) + 3
    out.append((newline if spaces else "") + closing)


@builtin(
    "is_uuid",
    (S,),
    BOOLEAN,
    "Whether text is a UUID of versions 1 to 8 (RFC 9562) in its 36-character form, either "
    'case: is_uuid("0192f9a4-5f3c-7d2e-9b1a-3c4d5e6f7a8b") = true.',
    pure=True,
)
def _is_uuid(limits: Limits, text: str) -> bool:
    return _UUID.fullmatch(text) is not None


def _same_list(types: list[Type]) -> Type:
    return array_of(types[0]) if types and types[0].name == "array" else array_of(ARRAY)


@builtin(
    "chunk",
    (Arg("values", (ARRAY,)), Arg("size", (NUMBER,))),
    _same_list,
    "The items of a list in lists of size items (the last may be shorter): chunk([1, 2, 3, 4, 5], 2) "
    "= [[1, 2], [3, 4], [5]].",
    pure=True,
    work=first_size,
    builds=lambda limits, values, size: list_built(limits, len(values)) + list_built(limits, len(values), LIST_BYTES),
)
def _chunk(limits: Limits, values: list[Any], size: Decimal) -> list[list[Any]]:
    if size != size.to_integral_value() or size < 1:
        raise fault(codes.INVALID_OPERATION, f"chunk's size must be a whole number, 1 or more, not {size}")
    step = int(min(size, Decimal(len(values) + 1)))
    return [values[start : start + step] for start in range(0, len(values), step)]


@builtin(
    "parse_csv",
    (S, Arg("delimiter", (STRING,), optional=True)),
    array_of(OBJECT),
    "The rows of CSV text as records, keyed by the first row's names (trimmed, as every value "
    'is): parse_csv("name,qty\\nbolt, 4") = [{"name": "bolt", "qty": "4"}]. Quoted values may '
    "hold the delimiter, quotes (doubled) and line breaks; blank lines are skipped; a missing "
    "value is empty text. Values stay text: number(row.qty) reads one.",
    pure=True,
    work=first_size,
    built=data_work,
)
def _parse_csv(limits: Limits, text: str, delimiter: str = ",") -> list[dict[str, str]]:
    if len(delimiter) != 1 or delimiter in '"\r\n':
        raise fault(
            codes.INVALID_OPERATION,
            f"parse_csv's delimiter must be one character, not a quote or line break: {delimiter!r:.20}",
        )
    rows = _csv_rows(text, delimiter)
    if not rows:
        return []
    header = [name.strip(JS_WHITESPACE) for name in rows[0]]
    if len(set(header)) != len(header):
        raise fault(codes.INVALID_TEXT, "parse_csv: the first row names a column twice")
    if (len(rows) - 1) * max(len(header), 1) > limits.max_list_length:
        raise fault(codes.LIST_TOO_LONG, f"parse_csv would make more than {limits.max_list_length:,} values")
    width = len(header)
    return [
        dict(
            zip(header, [value.strip(JS_WHITESPACE) for value in row[:width]] + [""] * (width - len(row)), strict=True)
        )
        for row in rows[1:]
    ]


def _csv_rows(text: str, delimiter: str) -> list[list[str]]:
    """The rows of `text` that are not blank; E0515 where its quotes are not CSV's."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        return [row for row in reader if any(value.strip(JS_WHITESPACE) for value in row)]
    except csv.Error as error:
        raise fault(codes.INVALID_TEXT, f"parse_csv: {error} (line {reader.line_num})") from None
