"""Value types of the language, shared by declarations, the checker and the interpreter.

The names are JSON Schema's, because parameters are published as JSON Schema:
`number`, `integer`, `string`, `boolean`, `null`, `array` (with an item type), `object`
and `any` (the gradual type: unknown until run time, checked there); and `date` and
`datetime`, published as JSON Schema strings of `format` `date` and `date-time` (ISO 8601). An
`object` with `fields` is a record type: `{"net": number, "vat": number}` (JSON Schema's
`properties`); without them it is any object, whose fields are read as `any`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Literal

from toolkiln.ast.records import record, set_field

TypeName = Literal["number", "integer", "string", "boolean", "null", "array", "object", "any", "date", "datetime"]
DECLARABLE = ("number", "integer", "string", "boolean", "array", "object", "any", "date", "datetime")
# The JSON Schema string format of each type published as a string with a `format`.
STRING_FORMATS: dict[TypeName, str] = {"date": "date", "datetime": "date-time"}


@record(slots=True)
class Type:
    """A plain frozen dataclass, not a pydantic model: the checker compares types constantly,
    and dataclass equality is several times cheaper."""

    name: TypeName
    items: Type | None = None
    nullable: bool = False  # `string?`: a string or null (never set on `any` or `null`)
    # A record's fields in order (only on `object`); None: any object, its fields unknown.
    fields: tuple[tuple[str, Type], ...] | None = None

    def __init__(
        self,
        name: TypeName,
        items: Type | None = None,
        nullable: bool = False,
        fields: tuple[tuple[str, Type], ...] | None = None,
    ) -> None:
        set_field(self, "name", name)
        set_field(self, "items", items)
        set_field(self, "nullable", nullable)
        set_field(self, "fields", fields)

    # Written out, not the records' shared ones: the checker compares and hashes types constantly.
    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Type:
            return NotImplemented
        return (self.name, self.items, self.nullable, self.fields) == (
            other.name,
            other.items,
            other.nullable,
            other.fields,
        )

    def __hash__(self) -> int:
        return hash((self.name, self.items, self.nullable, self.fields))

    def __str__(self) -> str:
        text: str = self.name
        if self.name == "array" and self.items is not None and self.items.name != "any":
            text = f"array[{self.items}]"
        elif self.fields is not None:
            text = (
                "{" + ", ".join(f"{json.dumps(key, ensure_ascii=False)}: {type_}" for key, type_ in self.fields) + "}"
            )
        return text + "?" if self.nullable else text

    def field_type(self, name: str) -> Type | None:
        """The type of a record's field `name`: None if it has no such field; `any` for any
        object whose fields are not known."""
        if self.fields is None:
            return ANY
        return next((type_ for key, type_ in self.fields if key == name), None)

    @property
    def is_numeric(self) -> bool:
        """A number for certain: not `number?`, which must be tested for null first."""
        return self.name in ("number", "integer") and not self.nullable

    def item_type(self) -> Type:
        return self.items or ANY

    def json_schema(self) -> dict[str, Any]:
        if self.name == "any":
            return {}
        string_format = STRING_FORMATS.get(self.name)
        base = self.name if string_format is None else "string"
        schema: dict[str, Any] = {"type": [base, "null"] if self.nullable else base}
        if string_format is not None:
            schema["format"] = string_format
        if self.name == "array" and self.items is not None and self.items.name != "any":
            schema["items"] = self.items.json_schema()
        if self.fields is not None:
            # A nullable field may be left out (it reads as null); every other one is required.
            schema["properties"] = {key: type_.json_schema() for key, type_ in self.fields}
            schema["required"] = [key for key, type_ in self.fields if not type_.nullable and type_.name != "any"]
        return schema


NUMBER = Type(name="number")
INTEGER = Type(name="integer")
STRING = Type(name="string")
BOOLEAN = Type(name="boolean")
NULL = Type(name="null")
OBJECT = Type(name="object")
ANY = Type(name="any")
ARRAY = Type(name="array", items=ANY)
DATE = Type(name="date")
DATETIME = Type(name="datetime")


def array_of(items: Type) -> Type:
    return Type(name="array", items=items)


def record_of(fields: tuple[tuple[str, Type], ...]) -> Type:
    """The record type with these fields (in this order)."""
    return Type(name="object", fields=fields)


def or_null(type_: Type) -> Type:
    """`type_` or null: `string` -> `string?` (`any` and `null` already hold null)."""
    return type_ if type_.nullable or type_.name in ("any", "null") else replace(type_, nullable=True)


def not_null(type_: Type) -> Type:
    """What a value of `type_` is once it is known not to be null."""
    return replace(type_, nullable=False) if type_.nullable else type_


def fits(actual: Type, expected: Type) -> bool:
    """Whether a value of type `actual` may stand where `expected` is required (statically)."""
    if actual.name == "any" or expected.name == "any":
        return True
    if actual.name == "null":
        return expected.name == "null" or expected.nullable
    if actual.nullable and not expected.nullable:
        return False
    if expected.name == "number":
        return actual.name in ("number", "integer")
    if expected.name == "integer":
        return actual.name == "integer"
    if actual.name != expected.name:
        return False
    if actual.name == "array":
        return fits(actual.item_type(), expected.item_type())
    if expected.fields is not None and actual.fields is not None:
        # A record fits where one of fewer fields is wanted (its other fields are not read).
        return all(_fits_field(actual.field_type(key), type_) for key, type_ in expected.fields)
    return True


def _fits_field(actual: Type | None, expected: Type) -> bool:
    if actual is None:  # a missing field reads as null
        return expected.nullable or expected.name == "any"
    return fits(actual, expected)


def join(a: Type, b: Type) -> Type:
    """The type of a variable that holds `a` on one path and `b` on another."""
    if a == b:
        return a
    if NULL in (a, b):
        return or_null(b if a == NULL else a)
    if a.nullable or b.nullable:
        return or_null(join(not_null(a), not_null(b)))
    if a.is_numeric and b.is_numeric:
        return NUMBER
    if a.name == "array" and b.name == "array":
        return array_of(join(a.item_type(), b.item_type()))
    if a.name == "object" and b.name == "object":
        if a.fields is not None and b.fields is not None and {k for k, _ in a.fields} == {k for k, _ in b.fields}:
            other = dict(b.fields)
            return record_of(tuple((key, join(type_, other[key])) for key, type_ in a.fields))
        return OBJECT  # records of other fields: an object, whose fields are read unchecked
    return ANY
