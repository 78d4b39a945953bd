"""Lists of objects whose items the program only reads fields of: checked whole, converted
field by field as the program reads them.

Converting an argument such as `items: array[object]` copies every item into a new dict and
turns every number into an exact decimal, read or not: most of the time of a short program
over line items. When the program uses such a parameter only as the list of a comprehension
whose variable is only ever the target of a field read (`sum(i.price * i.qty for i in items)`),
the binder checks the list without copying it and each field read converts the one value it
reads. See docs/decisions.md ("Lists of records are converted as they are read").

The check accepts only what the eager converter accepts unchanged, by cheap tests of exact
types and bounds; anything else (a value out of bounds, a nested list, a Mapping that is not a
dict, a date as text, ...) is handed to the eager converter, whose result or error is then
exactly today's. So a list is bound either as given (every value a plain scalar that the
converter would accept) or as the eager converter builds it, and a field read converts a
value of either form: float and int into exact decimals, anything else as it is (a value the
eager converter built is already converted).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import date
from decimal import Decimal
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.types import Type
from toolkiln.ast.visitor import children
from toolkiln.check import ParamInfo
from toolkiln.semantics.limits import Limits
from toolkiln.semantics.numbers import LOWEST_DIGIT
from toolkiln.semantics.values import SHORT_DECIMAL_DIGITS, SHORT_DECIMAL_SIZE

Converter = Callable[[Any], Any]
Check = Callable[[Any], bool]
# Field types whose values a check tests in place (a datetime's offset, a list's items: not).
_SCALAR_FIELDS = frozenset({"number", "integer", "string", "boolean", "date", "any"})


def lazy_parameters(program: n.Program, params: tuple[ParamInfo, ...]) -> dict[str, frozenset[str]]:
    """The parameters whose items are converted as their fields are read: each to the fields
    that read as null when an item leaves them out (a record's nullable and `any` fields).

    A parameter qualifies when its type is a list of objects, of records whose fields are all
    scalars, or of anything (see `_eligible`), and every use of it is the list of a
    comprehension whose variable is used only as `var.field` (a field the record declares).
    Any other use (passed to a builtin, returned, compared, stored, handed to a tool,
    assigned) keeps the eager conversion."""
    candidates = {p.name: p.type.item_type() for p in params if _eligible(p.type)}
    if not candidates:
        return {}
    escaped: set[str] = set()
    # (node, comprehension variable -> the candidate it iterates, or None)
    stack: list[tuple[n.Node, Mapping[str, str | None]]] = [(program, {})]
    while stack:
        node, bound = stack.pop()
        if isinstance(node, n.Name):
            if node.name not in bound:
                if node.name in candidates:
                    escaped.add(node.name)  # the list itself, used whole
            elif (owner := bound[node.name]) is not None:
                escaped.add(owner)  # an item, used whole
            continue
        if isinstance(node, n.Field_) and isinstance(node.target, n.Name) and bound.get(node.target.name) is not None:
            owner = bound[node.target.name]
            assert owner is not None
            if candidates[owner].field_type(node.name) is None:
                escaped.add(owner)  # (the checker refuses this; a hand-built program may not)
            continue
        if isinstance(node, n.Comprehension):
            iterable, iterated = node.iterable, None
            if isinstance(iterable, n.Name) and iterable.name not in bound and iterable.name in candidates:
                iterated = iterable.name
            else:
                stack.append((iterable, bound))
            inner = {**bound, node.var: iterated}
            stack.append((node.element, inner))
            if node.condition is not None:
                stack.append((node.condition, inner))
            continue
        if isinstance(node, n.Try):  # the error variable is no item of a list
            stack.extend(((node.body, bound), (node.handler, {**bound, node.var: None})))
            continue
        if isinstance(node, n.ASSIGNING_STEPS) and node.target in candidates:
            escaped.add(node.target)
        stack.extend((child, bound) for child in children(node))
    return {
        name: frozenset(key for key, type_ in item.fields or () if type_.nullable or type_.name == "any")
        for name, item in candidates.items()
        if name not in escaped
    }


def _eligible(type_: Type) -> bool:
    """A list of objects, of records whose fields are all scalars (no list or object to walk
    when an item is checked), or of anything (`array`, as bare logic infers it: its items
    are bound as given when they are all objects, and a field read tests that it has one)."""
    if type_.name != "array" or type_.nullable:
        return False
    item = type_.item_type()
    if item.name not in ("object", "any") or item.nullable:
        return False
    return all(field.name in _SCALAR_FIELDS for _, field in item.fields or ())


def lazy_list(type_: Type, limits: Limits, eager: Converter) -> Converter:
    """The binder's converter for a list whose fields are read lazily (see the module): the
    list itself when every item is a dict that `eager` would convert without refusing anything,
    else what `eager` returns or raises."""
    max_len, budget = limits.max_list_length, max(limits.max_operations, limits.max_list_length)  # as eager's
    float_bound, int_bound = 10.0 ** min(limits.max_number_digits, 308), 10**limits.max_number_digits
    float_low, int_low = -float_bound, -int_bound
    data = _data_check(limits)
    fields = type_.item_type().fields or ()
    fitting = _record_check(fields) if fields else None

    def bind(value: Any) -> Any:
        if type(value) is not list and type(value) is not tuple or len(value) > max_len:
            return eager(value)
        left = budget - len(value)
        for item in value:
            if type(item) is not dict or len(item) > max_len:
                return eager(value)
            left -= len(item)
            for key, field in item.items():  # every field: a text key, a value kept as data
                kind = type(field)  # numbers, the commonest, tested inline
                if type(key) is not str:
                    return eager(value)
                if kind is float:
                    if float_low < field < float_bound:
                        continue
                elif kind is int:
                    if int_low < field < int_bound:
                        continue
                elif data(field):
                    continue
                return eager(value)
            if fitting is not None:  # a record's fields: their types, the required ones present
                found = fitting(item)
                if found < 0:
                    return eager(value)
                left -= len(item) - found  # the record converter reads other fields as data of their own
        return value if left >= 0 else eager(value)

    return bind


def _data_check(limits: Limits) -> Check:
    """A test that reading data (values.py) keeps or converts a scalar without refusing it."""
    max_text, max_digits = limits.max_string_length, limits.max_number_digits
    float_bound, int_bound = 10.0 ** min(max_digits, 308), 10**max_digits
    lowest = LOWEST_DIGIT + SHORT_DECIMAL_DIGITS

    def data(value: Any) -> bool:
        kind = type(value)
        within: bool
        if kind is float:
            within = -float_bound < value < float_bound
        elif kind is int:
            within = -int_bound < value < int_bound
        elif kind is str:
            within = len(value) <= max_text
        elif kind is Decimal:  # a finite Decimal the bounds hold unchanged: the eager converters keep it
            within = value.is_finite() and value.__sizeof__() == SHORT_DECIMAL_SIZE
            within = within and lowest < value.adjusted() < max_digits
        else:
            within = kind is bool or value is None or kind is date
        return within

    return data


def _record_check(fields: tuple[tuple[str, Type], ...]) -> Callable[[dict[str, Any]], int]:
    """`fitting(item)`: how many of the record's declared fields the item holds, each of its
    type, or -1 when a required one is missing or one is not of its type."""
    declared = tuple(_field_checks(fields).items())
    required = frozenset(key for key, field in fields if not field.nullable and field.name != "any")
    missing = object()

    def fitting(item: dict[str, Any]) -> int:
        found = 0
        for key, check in declared:
            field = item.get(key, missing)
            if field is missing:
                if key in required:
                    return -1
            elif check(field):
                found += 1
            else:
                return -1
        return found

    return fitting


def _field_checks(fields: tuple[tuple[str, Type], ...]) -> dict[str, Check]:
    """Per declared field, a test that the record converter takes its value unchanged (a
    number as the exact decimal a field read makes of it), for a value already found within
    the bounds of data (a float's digits, a text's length)."""

    def number(value: Any) -> bool:
        kind = type(value)
        return kind is float or kind is int or kind is Decimal

    def integer(value: Any) -> bool:
        kind = type(value)
        return kind is int or (kind is float and value.is_integer())

    by_type: dict[str, Check] = {
        "number": number,
        "integer": integer,
        "string": lambda value: type(value) is str,
        "boolean": lambda value: type(value) is bool,
        "date": lambda value: type(value) is date,
        "any": lambda value: True,
    }
    checks = {key: by_type[field.name] for key, field in fields}
    for key, field in fields:
        if field.nullable:
            checks[key] = _or_null(checks[key])
    return checks


def _or_null(check: Check) -> Check:
    return lambda value: value is None or check(value)
