"""Whether a program tool's `parameters` is plainly a valid JSON Schema (Draft 2020-12) without
asking jsonschema, whose import is 46 ms of a `toolkiln check` that meets a `.skill` file
(issue 34).

`plainly_valid` answers True only for a schema built of the keywords tools write (types,
properties, required, items, enum, bounds, texts), each holding a value the 2020-12 meta-schema
takes; anything else (another keyword, a value in doubt, a nesting deeper than 32) is False,
which means "ask jsonschema", not "invalid": `check_schema` then decides and words the
diagnostic, so no diagnostic changes. A property test holds it to that: whatever this takes,
jsonschema takes too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

SIMPLE_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
MAX_DEPTH = 32


def plainly_valid(schema: Any, depth: int = 0) -> bool:
    """True when `schema` is certainly a valid Draft 2020-12 schema (see the module's docstring)."""
    if schema is True or schema is False:
        return True
    if type(schema) is not dict or depth > MAX_DEPTH:
        return False
    for key, value in schema.items():
        check = _KEYWORDS.get(key) if type(key) is str else None
        if check is None or not check(value, depth + 1):
            return False
    return True


def _anything(value: Any, depth: int) -> bool:
    return True


def _text(value: Any, depth: int) -> bool:
    return type(value) is str


def _flag(value: Any, depth: int) -> bool:
    return type(value) is bool


def _array(value: Any, depth: int) -> bool:
    return type(value) is list


def _number(value: Any, depth: int) -> bool:
    return type(value) is int or type(value) is float  # (not bool; a Decimal is left to jsonschema)


def _positive(value: Any, depth: int) -> bool:
    return _number(value, depth) and value > 0


def _count(value: Any, depth: int) -> bool:
    return type(value) is int and value >= 0


def _names(value: Any, depth: int) -> bool:
    return type(value) is list and all(type(name) is str for name in value) and len(set(value)) == len(value)


def _types(value: Any, depth: int) -> bool:
    if type(value) is str:
        return value in SIMPLE_TYPES
    return _names(value, depth) and bool(value) and all(name in SIMPLE_TYPES for name in value)


def _properties(value: Any, depth: int) -> bool:
    return type(value) is dict and all(type(name) is str and plainly_valid(s, depth) for name, s in value.items())


# What each keyword may hold, as the 2020-12 meta-schema says (validation, applicator,
# meta-data and format-annotation vocabularies); a keyword not here is left to jsonschema.
_KEYWORDS: dict[str, Callable[[Any, int], bool]] = {
    "type": _types,
    "properties": _properties,
    "required": _names,
    "items": plainly_valid,
    "additionalProperties": plainly_valid,
    "enum": _array,
    "examples": _array,
    "const": _anything,
    "default": _anything,
    "title": _text,
    "description": _text,
    "format": _text,
    "$comment": _text,
    "minimum": _number,
    "maximum": _number,
    "exclusiveMinimum": _number,
    "exclusiveMaximum": _number,
    "multipleOf": _positive,
    "minLength": _count,
    "maxLength": _count,
    "minItems": _count,
    "maxItems": _count,
    "minProperties": _count,
    "maxProperties": _count,
    "uniqueItems": _flag,
    "deprecated": _flag,
    "readOnly": _flag,
    "writeOnly": _flag,
}
