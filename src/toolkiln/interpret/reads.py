"""Closures that read: a field of an object, an item of a list, text or object, the fields of
items of a list bound as given (lazy_items.py), and the list a comprehension builds."""

from __future__ import annotations

import time
from decimal import Decimal
from typing import Any

from toolkiln.ast.spans import Span
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.interpret.faults import fault, type_fault
from toolkiln.interpret.plan import Fn, Frame, Op
from toolkiln.interpret.runtime import CHECK_EVERY, out_of_time, over_budget
from toolkiln.semantics.failures import caught
from toolkiln.semantics.numbers import from_float_fast
from toolkiln.semantics.values import type_name


def field(target: Fn, name: str, span: Span) -> Fn:
    """`target.name`."""

    def read(f: Frame) -> Any:
        record = target(f)
        if type(record) is not dict:
            raise type_fault(f"field `{name}` needs an object", record, span)
        try:
            return record[name]
        except KeyError:
            raise no_field(record, name, span) from None

    return read


def raw_field(slot: int, name: str, may_be_missing: bool, span: Span) -> Fn:
    """`var.name` where `var` (in `slot`) iterates a list bound as given: the value converted as
    read, as the eager converter would have; a record's nullable field left out reads as null."""
    convert = from_float_fast

    def read_raw(f: Frame) -> Any:
        record = f[slot]
        if type(record) is not dict:  # (an item of a list of anything, converted eagerly)
            raise type_fault(f"field `{name}` needs an object", record, span)
        try:
            value = record[name]
        except KeyError:
            if may_be_missing:
                return None  # a record's nullable field, left out
            raise no_field(record, name, span) from None
        kind = type(value)  # a float or int as given: converted as the eager converter does
        if kind is float:
            return convert(value)
        if kind is int:
            return Decimal(value)
        return value

    return read_raw


def raw_arithmetic(op: Op, left: tuple[int, str], right: tuple[int, str], otherwise: Fn) -> Fn:
    """`a.x * b.y` (or + -) with both fields read from lists bound as given, each a (slot,
    field): a float is converted as read, a whole number is left an int for Decimal's operator
    to take (exactly as if converted first: Decimal converts an int exactly, then rounds the
    result in the run's context). Anything else (a missing field, other types, a decimal
    signal) is `otherwise`'s, the closure compiled for the operation as usual, which reads
    both fields again (reads are pure) and gives the result or error."""
    (ls, lname), (rs, rname) = left, right
    convert = from_float_fast

    def run(f: Frame) -> Any:
        try:
            a, b = f[ls][lname], f[rs][rname]
        except (KeyError, TypeError):  # a field missing, an item not an object
            return otherwise(f)
        ka, kb = type(a), type(b)
        if ka is float:
            a, ka = convert(a), Decimal
        elif ka is int and kb is int:
            a, ka = Decimal(a), Decimal  # (two ints: one converted makes a Decimal result)
        if kb is float:
            b, kb = convert(b), Decimal
        if (ka is Decimal and (kb is Decimal or kb is int)) or (ka is int and kb is Decimal):
            try:
                return op(a, b)
            except ArithmeticError:
                pass
        return otherwise(f)

    return run


def index(target: Fn, key_of: Fn, span: Span) -> Fn:
    """`target[key]`: an object's field by text, a list's or text's item by whole number."""

    def read(f: Frame) -> Any:
        container, key = target(f), key_of(f)
        kind = type(container)
        if kind is dict:
            if type(key) is not str:
                raise type_fault("an object key must be a string", key, span)
            if key not in container:
                raise fault(codes.MISSING_ITEM, f"the object has no field {key!r}", span)
            return container[key]
        if kind is list or kind is str:
            if type(key) is not Decimal or key != key.to_integral_value():
                raise fault(codes.RUNTIME_TYPE, f"an index must be a whole number, not {key:.40}", span)
            if not -len(container) <= key < len(container):  # compared before int(): O(1)
                raise fault(
                    codes.MISSING_ITEM,
                    f"index {key:.40} is outside the {type_name(container)} of length {len(container)}",
                    span,
                )
            return container[int(key)]
        raise type_fault("indexing needs a list, string or object", container, span)

    return read


def comprehension(iterable: Fn, slot: int, element: Fn, condition: Fn | None, cost: int, span: Span) -> Fn:
    """The list `[element for var in iterable if condition]`, `var` in `slot`: charged `cost`
    operations per item before it starts, and timed. Items between two looks at the clock:
    about CHECK_EVERY operations' worth; work in the element that grows with the data
    (builtins, equality, powers) is charged as it runs."""
    chunk = max(1, CHECK_EVERY // cost)

    def build(f: Frame) -> list[Any]:
        items = iterable(f)
        runtime = f[0]
        runtime.operations += cost * len(items)
        limits = runtime.limits
        if runtime.operations > limits.max_operations:
            raise over_budget(limits, span)
        deadline = runtime.deadline
        if time.monotonic() > deadline:
            raise out_of_time(limits, span)
        out: list[Any] = []
        if len(items) <= chunk:
            for item in items:
                f[slot] = item
                if condition is None or condition(f):
                    out.append(element(f))
            return out
        for start in range(0, len(items), chunk):
            if start and time.monotonic() > deadline:
                raise out_of_time(limits, span)
            for item in items[start : start + chunk]:
                f[slot] = item
                if condition is None or condition(f):
                    out.append(element(f))
        return out

    return build


def no_field(record: dict[str, Any], name: str, span: Span) -> RunError:
    fields = ", ".join(list(record)[:10])
    return fault(
        codes.MISSING_ITEM,
        f"the object has no field `{name}`",
        span,
        hint=f"its fields: {fields}" if fields else "the object is empty",
    )


def attempt(body: Fn, slot: int, handler: Fn) -> Fn:
    """`try body catch error: handler`, `error` in `slot`: the handler runs when the body
    stops with an error `try` may catch (semantics/failures.py); any other goes on."""

    def tried(f: Frame) -> Any:
        try:
            return body(f)
        except RunError as error:
            record = caught(error)
            if record is None:
                raise
            f[slot] = record
            return handler(f)

    return tried
