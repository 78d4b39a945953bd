"""Value types of the language, shared by declarations, the checker and the interpreter.

The names are JSON Schema's, because parameters are published as JSON Schema:
`number`, `integer`, `string`, `boolean`, `null`, `array` (with an item type), `object`
and `any` (the gradual type: unknown until run time, checked there).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Literal

TypeName = Literal["number", "integer", "string", "boolean", "null", "array", "object", "any"]
DECLARABLE = ("number", "integer", "string", "boolean", "array", "object", "any")


@dataclass(frozen=True, slots=True)
class Type:
    """A plain frozen dataclass, not a pydantic model: the checker compares types constantly,
    and dataclass equality is several times cheaper."""

    name: TypeName
    items: Type | None = None
    nullable: bool = False  # `string?`: a string or null (never set on `any` or `null`)

    def __str__(self) -> str:
        text: str = self.name
        if self.name == "array" and self.items is not None and self.items.name != "any":
            text = f"array[{self.items}]"
        return text + "?" if self.nullable else text

    @property
    def is_numeric(self) -> bool:
        """A number for certain: not `number?`, which must be tested for null first."""
        return self.name in ("number", "integer") and not self.nullable

    def item_type(self) -> Type:
        return self.items or ANY

    def json_schema(self) -> dict[str, Any]:
        if self.name == "any":
            return {}
        schema: dict[str, Any] = {"type": [self.name, "null"] if self.nullable else self.name}
        if self.name == "array" and self.items is not None and self.items.name != "any":
            schema["items"] = self.items.json_schema()
        return schema


NUMBER = Type(name="number")
INTEGER = Type(name="integer")
STRING = Type(name="string")
BOOLEAN = Type(name="boolean")
NULL = Type(name="null")
OBJECT = Type(name="object")
ANY = Type(name="any")
ARRAY = Type(name="array", items=ANY)


def array_of(items: Type) -> Type:
    return Type(name="array", items=items)


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
    return True


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
    return ANY
