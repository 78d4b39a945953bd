"""Lookup tables: given as dicts, or loaded from JSON and CSV files."""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.numbers import from_float, render_number

Tables = dict[str, dict[str, Any]]
MAX_TABLE_BYTES = 16 * 1024 * 1024  # a table file is read whole into memory: larger ones are refused
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _invalid(message: str) -> RunError:
    return RunError(codes.INVALID_TABLE.code, message)


def normalize_tables(tables: Mapping[str, Any] | None) -> Tables:
    """Check the shape {table: {key: value}} and make every key a string."""
    if tables is None:
        return {}
    if not isinstance(tables, Mapping):
        raise _invalid("tables must be an object of table name -> {key: value}")
    out: Tables = {}
    for name, table in tables.items():
        if not isinstance(table, Mapping):
            raise _invalid(f"table `{name}` must be an object of key -> value")
        name = str.__str__(name) if isinstance(name, str) else str(name)
        if type(table) is dict and set(map(type, table)) <= _TEXT:
            out[name] = table  # keys all text already: the table as given, checked at C speed
        else:
            out[name] = {_key(k): v for k, v in table.items()}
    return out


_TEXT = frozenset({str})


def _key(key: Any) -> str:
    """Keys are text; a number key is stored as its plain text, the form a lookup uses."""
    if isinstance(key, str):
        return str.__str__(key)
    if isinstance(key, bool) or not isinstance(key, (int, Decimal, float)):
        raise _invalid(f"table keys must be strings or numbers, not {key!r}")
    return render_number(from_float(key) if isinstance(key, float) else Decimal(key))


def load_table_file(path: str | Path) -> Tables:
    """A JSON file holds {table: {key: value}}; a CSV file is one table named after the file:
    the first column is the key; a second column is the value, more columns make an object."""
    path = Path(path)
    try:
        raw = _read_regular_file(path)
    except OSError as error:
        raise _invalid(f"cannot read table file {path}: {error.strerror or error}") from None
    return table_file_data(raw, path)


def table_file_data(raw: bytes, path: Path) -> Tables:
    """The tables in a table file's bytes (read by the caller, e.g. the registry's store);
    `path` names the file (its suffix says CSV or JSON, its stem names a CSV table)."""
    if len(raw) > MAX_TABLE_BYTES:
        raise _invalid(f"table file {path} is larger than {MAX_TABLE_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _invalid(f"table file {path} is not UTF-8 text: {error.reason}") from None
    if path.suffix.lower() == ".csv":
        return {path.stem: _csv_table(text, path)}
    try:
        data = json.loads(text, parse_float=Decimal)
    except (json.JSONDecodeError, RecursionError) as error:
        raise _invalid(f"table file {path} is not valid JSON: {error}") from None
    return normalize_tables(data)


def _read_regular_file(path: Path) -> bytes:
    """At most MAX_TABLE_BYTES + 1 bytes of a regular file; a FIFO, a device or a folder is
    refused (OSError) without blocking: opened non-blocking and looked at before any read.
    (The front ends have the same reader; the interpreter does not import them.)"""
    fd = os.open(path, os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if _NONBLOCK:
            os.set_blocking(fd, True)
        chunks, left = [], MAX_TABLE_BYTES + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _csv_table(text: str, path: Path) -> dict[str, Any]:
    import csv  # (only for a CSV table: 1 ms of every run's start-up)

    rows = list(csv.reader(text.splitlines()))
    if not rows or len(rows[0]) < 2:
        raise _invalid(f"CSV table {path} needs a header row with a key column and value column(s)")
    header, table = rows[0], {}
    for number, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise _invalid(f"{path}:{number}: expected {len(header)} columns, found {len(row)}")
        cells = [_cell(cell) for cell in row[1:]]
        table[row[0]] = cells[0] if len(cells) == 1 else dict(zip(header[1:], cells))
    return table


def _cell(text: str) -> Any:
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        return text
    return value if value.is_finite() and text.strip() else text
