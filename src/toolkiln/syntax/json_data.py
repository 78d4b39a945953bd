"""Walking decoded JSON data without recursion: data nested 100,000 deep is as easy to walk as
data one level deep, so a check that walks it cannot itself fail with RecursionError."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

# A trail is (key, parent's trail) or None: linked to its parent's, so that data nested
# 100,000 deep costs no 100,000-long path per value; `path_of` spells it out when needed.
Trail = tuple[str | int, Any] | None


def walk_json(data: Any) -> Iterator[tuple[Any, Trail, int]]:
    """Every value in `data` (itself first) with its trail and depth (0 for `data`)."""
    stack: list[tuple[Any, Trail, int]] = [(data, None, 0)]
    while stack:
        value, trail, depth = stack.pop()
        yield value, trail, depth
        if isinstance(value, dict):
            stack.extend((item, (key, trail), depth + 1) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend((item, (index, trail), depth + 1) for index, item in enumerate(value))


def path_of(trail: Trail) -> tuple[str | int, ...]:
    keys = []
    while trail is not None:
        key, trail = trail
        keys.append(key)
    return tuple(reversed(keys))


def deeper_than(data: Any, levels: int) -> tuple[str | int, ...] | None:
    """The path of the first value nested more than `levels` lists and objects deep, if any."""
    for _, trail, depth in walk_json(data):
        if depth > levels:
            return path_of(trail)
    return None


def foreign_value_at(data: Any) -> tuple[tuple[str | int, ...], str] | None:
    """The path and a description of the first key or value in `data` that JSON cannot hold
    (a number key, a Decimal, a set, NaN), if any: Python data handed in as a document."""
    for value, trail, _ in walk_json(data):
        if isinstance(value, dict):
            for key in value:
                if not isinstance(key, str):
                    return path_of(trail), f"a key of type {type(key).__name__}"
        elif isinstance(value, float) and not math.isfinite(value):
            return path_of(trail), f"the number {value}"
        elif not isinstance(value, (list, str, int, float)) and value is not None:
            return path_of(trail), f"a value of type {type(value).__name__}"
    return None
