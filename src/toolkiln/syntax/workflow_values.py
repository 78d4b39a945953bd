"""The checks of workflow values that both workflow front ends make (the hand-written one in
workflow_parser.py and Lark's in workflow_lark.py), and the n8n importer and templates too:
names, times, cron rules, timezones, webhook paths, raw JSON and the bounds of a declared
shape. No Lark here: a valid workflow is checked without loading it."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from toolkiln.ast import workflow as w
from toolkiln.ast.spans import Span
from toolkiln.syntax.strings import LONE_SURROGATE, lone_surrogate_at

WORKFLOW_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}")
CLOCK_TIME = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]")
CRON = re.compile(r"\S+( \S+){4,5}")  # five fields (six with seconds); n8n checks the values
TIMEZONE_SHAPE = re.compile(r"UTC|[A-Za-z_]+(/[A-Za-z0-9_+-]+)+")
WEBHOOK_PATH = re.compile(r"/?(?::?[A-Za-z0-9_-]+)(?:/:?[A-Za-z0-9_-]+)*/?")

# A declared shape's bounds: levels of objects in objects, and fields at all levels.
MAX_SHAPE_DEPTH = 8
MAX_SHAPE_FIELDS = 1000


def is_timezone(name: str) -> bool:
    """An IANA timezone name. Where the system has no timezone database, any Area/City name."""
    import zoneinfo  # (only a schedule with a timezone asks)

    known = zoneinfo.available_timezones()
    return name in known if known else bool(TIMEZONE_SHAPE.fullmatch(name))


def decode_json(text: str) -> Any:
    """Raw n8n JSON (`with {...}`, a node's parameters) as n8n's JSON.parse would read it.
    A ValueError (a json.JSONDecodeError for a syntax error) for what n8n would refuse or
    what could not be written back as UTF-8."""
    data = json.loads(text, parse_constant=_not_json, parse_float=_finite)
    if lone_surrogate_at(data) is not None:  # fmt and compile could not write it as UTF-8
        raise ValueError(LONE_SURROGATE)
    return data


def _not_json(name: str) -> None:
    # Python's json reads NaN and Infinity; n8n's JSON.parse would refuse the workflow we wrote
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):  # 1e999: the float is inf, written out as Infinity
        raise ValueError(f"{text} is too large for a JSON number")
    return number


def shape_out_of_bounds(shape: w.Shape) -> tuple[str, Span, str] | None:
    """Why a declared shape (the top of one) is over MAX_SHAPE_DEPTH levels (an object or a
    list in another is one more) or MAX_SHAPE_FIELDS fields: a message, where and a hint; None
    when it is within them, so a hostile declaration costs the checks no more than a sensible
    one."""
    count = 0
    stack: list[tuple[w.Shape | w.FieldType, int]] = [(shape, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_SHAPE_DEPTH:
            message = f"a declared shape nested deeper than {MAX_SHAPE_DEPTH} levels"
            return message, current.span, "declare the deep part `object`"
        if isinstance(current, w.FieldType):
            stack.extend((inner, depth + 1) for inner in (current.shape, current.items) if inner is not None)
            continue
        count += len(current.fields)
        if count > MAX_SHAPE_FIELDS:
            message = f"a declared shape of more than {MAX_SHAPE_FIELDS} fields"
            return message, shape.span, "declare its large parts `object`"
        stack.extend((field.type, depth) for field in current.fields)
    return None
