"""Lookup tables: given as dicts, or loaded from JSON and CSV files."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.numbers import from_float, render_number

Tables = dict[str, dict[str, Any]]


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
        out[str(name)] = {_key(k): v for k, v in table.items()}
    return out


def _key(key: Any) -> str:
    """Keys are text; a number key is stored as its plain text, the form a lookup uses."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool) or not isinstance(key, (int, Decimal, float)):
        raise _invalid(f"table keys must be strings or numbers, not {key!r}")
    return render_number(from_float(key) if isinstance(key, float) else Decimal(key))


def load_table_file(path: str | Path) -> Tables:
    """A JSON file holds {table: {key: value}}; a CSV file is one table named after the file:
    the first column is the key; a second column is the value, more columns make an object."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise _invalid(f"cannot read table file {path}: {error}") from None
    if path.suffix.lower() == ".csv":
        return {path.stem: _csv_table(text, path)}
    try:
        data = json.loads(text, parse_float=Decimal)
    except (json.JSONDecodeError, RecursionError) as error:
        raise _invalid(f"table file {path} is not valid JSON: {error}") from None
    return normalize_tables(data)


def _csv_table(text: str, path: Path) -> dict[str, Any]:
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
