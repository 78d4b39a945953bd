"""The built-in functions: the only things an expression can call.

Each has a signature (checked statically by the checker) and an implementation on run-time
values. Implementations take the run's `Limits` first, for their decimal context and caps.
The numbers and the first list and text builtins are here; `text_builtins`, `word_builtins`,
`data_builtins`, `list_builtins`, `date_builtins`, `random_builtins` and the `js_` modules
register the rest into the same BUILTINS, which imports each when one of its names is first
looked up (builtin_registry.HOMES).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from toolkiln.ast.types import (
    ANY,
    ARRAY,
    BOOLEAN,
    NUMBER,
    OBJECT,
    STRING,
    Type,
    array_of,
    join,
)
from toolkiln.diagnostics import codes
from toolkiln.semantics.builtin_registry import (
    BUILTINS,
    CHARS_PER_OPERATION,
    Arg,
    Builtin,
    all_sizes,
    builtin,
    checked_text,
    constant_work,
    fault,
    first_size,
    result_text_work,
    size_of,
    text_built,
    whole_number,
)
from toolkiln.semantics.limits import Limits
from toolkiln.semantics.values import equal, to_text_within, too_long, type_name

__all__ = [
    "BUILTINS",
    "authored_builtins",
    "CHARS_PER_OPERATION",
    "Arg",
    "Builtin",
    "builtin",
    "contains",
    "fault",
    "size_of",
]

NUMBERS = array_of(NUMBER)
# (text: `re` compiles it when `number()` first reads text and keeps it; see semantics/dates.py)
_NUMERAL = r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,6})?"


def _numbers(values: list[Any], what: str) -> list[Decimal]:
    for value in values:
        if type(value) is not Decimal:
            raise fault(codes.RUNTIME_TYPE, f"{what} needs numbers, got {type_name(value)}")
    return values


N = Arg("x", (NUMBER,))


# --- numbers ------------------------------------------------------------------------------


@builtin("abs", (N,), NUMBER, "Absolute value.", pure=True)
def _abs(limits: Limits, x: Decimal) -> Decimal:
    return limits.context.abs(x)


@builtin(
    "round",
    (N, Arg("digits", (NUMBER,), optional=True)),
    NUMBER,
    "Round half away from zero (commercial rounding): round(2.5) = 3, round(-2.5) = -3, "
    "round(2.675, 2) = 2.68. Negative digits round to tens, hundreds, ...",
    pure=True,
)
def _round(limits: Limits, x: Decimal, digits: Decimal = Decimal(0)) -> Decimal:
    places = whole_number(digits, "round's digits", -limits.max_number_digits, 28)
    try:
        return x.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=limits.context)
    except InvalidOperation:
        raise fault(codes.INVALID_OPERATION, f"cannot round {x} to {places} digits") from None


@builtin("floor", (N,), NUMBER, "Largest whole number not above x.", pure=True)
def _floor(limits: Limits, x: Decimal) -> Decimal:
    return x.to_integral_value(rounding=ROUND_FLOOR, context=limits.context)


@builtin("ceil", (N,), NUMBER, "Smallest whole number not below x.", pure=True)
def _ceil(limits: Limits, x: Decimal) -> Decimal:
    return x.to_integral_value(rounding=ROUND_CEILING, context=limits.context)


@builtin("sqrt", (N,), NUMBER, "Square root (28 significant digits).", pure=True, work=constant_work)
def _sqrt(limits: Limits, x: Decimal) -> Decimal:
    if x < 0:
        raise fault(codes.INVALID_OPERATION, f"square root of a negative number ({x})")
    return limits.context.sqrt(x)


@builtin(
    "clamp", (N, Arg("low", (NUMBER,)), Arg("high", (NUMBER,))), NUMBER, "x limited to the range low..high.", pure=True
)
def _clamp(limits: Limits, x: Decimal, low: Decimal, high: Decimal) -> Decimal:
    if low > high:
        raise fault(codes.INVALID_OPERATION, f"clamp's low ({low}) is above its high ({high})")
    return low if x < low else high if x > high else x  # (min and max cost four times as much)


def _extreme(pick: Callable[..., Decimal], name: str) -> Callable[..., Decimal]:
    def impl(limits: Limits, first: Any, *rest: Any) -> Decimal:
        values = first if type(first) is list and not rest else [first, *rest]
        if not values:
            raise fault(codes.INVALID_OPERATION, f"{name} of an empty list")
        return pick(_numbers(values, name))

    return impl


_MINMAX_ARGS = (Arg("values", (NUMBER, NUMBERS)),)
_MIN_DOC = "Smallest of several numbers, or of a list: min(a, b), min(prices)."
builtin("min", _MINMAX_ARGS, NUMBER, _MIN_DOC, True, pure=True, work=all_sizes)(_extreme(min, "min"))
builtin("max", _MINMAX_ARGS, NUMBER, "Largest of several numbers, or of a list.", True, pure=True, work=all_sizes)(
    _extreme(max, "max")
)


@builtin(
    "sum",
    (Arg("values", (NUMBERS,)),),
    NUMBER,
    "Sum of a list of numbers; 0 for an empty list. sum(i.price * i.qty for i in items).",
    pure=True,
    work=first_size,
)
def _sum(limits: Limits, values: list[Any]) -> Decimal:
    add = limits.context.add
    total = Decimal(0)
    for value in _numbers(values, "sum"):
        total = add(total, value)
    return total


@builtin(
    "avg", (Arg("values", (NUMBERS,)),), NUMBER, "Average of a non-empty list of numbers.", pure=True, work=first_size
)
def _avg(limits: Limits, values: list[Any]) -> Decimal:
    if not values:
        raise fault(codes.INVALID_OPERATION, "avg of an empty list")
    return limits.context.divide(_sum(limits, values), Decimal(len(values)))


@builtin(
    "number",
    (Arg("value", (STRING, NUMBER)),),
    NUMBER,
    'Parse text as a number: number("12.50") = 12.5.',
    pure=True,
    work=first_size,
)
def _number(limits: Limits, value: Any) -> Decimal:
    if type(value) is Decimal:
        return value
    text = value.strip()
    parsed = Decimal(text) if re.fullmatch(_NUMERAL, text) else None
    if parsed is None or parsed.adjusted() >= limits.max_number_digits:
        raise fault(codes.RUNTIME_TYPE, f"{value[:40]!r} is not a number")
    return parsed


# --- lists --------------------------------------------------------------------------------


@builtin(
    "len",
    (Arg("value", (STRING, ARRAY, OBJECT)),),
    NUMBER,
    "Number of characters of a string, items of a list or fields of an object.",
    pure=True,
)
def _len(limits: Limits, value: Any) -> Decimal:
    return Decimal(len(value))


def _count_work(values: list[Any], *value: Any) -> int:
    return size_of(values) if value else 0  # only a count of one value compares the items


@builtin(
    "count",
    (Arg("values", (ARRAY,)), Arg("value", (ANY,), optional=True)),
    NUMBER,
    "Number of items: count(i for i in items if i.paid); with a value, number of items equal "
    'to it: count(statuses, "open"). (There are no functions to pass as a predicate: a '
    "comprehension with `if` counts what a predicate would.)",
    pure=True,
    work=_count_work,
)
def _count(limits: Limits, values: list[Any], *value: Any) -> Decimal:
    if not value:
        return Decimal(len(values))
    left = [limits.max_operations]
    return Decimal(sum(1 for item in values if equal(item, value[0], left)))


@builtin(
    "any", (Arg("values", (array_of(BOOLEAN),)),), BOOLEAN, "Whether any item is true.", pure=True, work=first_size
)
def _any(limits: Limits, values: list[Any]) -> bool:
    return any(_booleans(values, "any"))


@builtin(
    "all",
    (Arg("values", (array_of(BOOLEAN),)),),
    BOOLEAN,
    "Whether every item is true (true for an empty list).",
    pure=True,
    work=first_size,
)
def _all(limits: Limits, values: list[Any]) -> bool:
    return all(_booleans(values, "all"))


def _booleans(values: list[Any], what: str) -> list[bool]:
    for value in values:
        if type(value) is not bool:
            raise fault(codes.RUNTIME_TYPE, f"{what} needs booleans, got {type_name(value)}")
    return values


@builtin(
    "contains",
    (Arg("container", (STRING, ARRAY, OBJECT)), Arg("item", (ANY,))),
    BOOLEAN,
    "Whether a string contains a substring, a list an item, or an object a key.",
    pure=True,
    work=all_sizes,
)
def _contains(limits: Limits, container: Any, item: Any) -> bool:
    return contains(container, item, [limits.max_operations])


def contains(container: Any, item: Any, left: list[int] | None = None) -> bool:
    """Membership; `left`: how many items its equalities may compare (see `equal`)."""
    kind = type(container)
    if kind is str:
        if type(item) is not str:
            raise fault(codes.RUNTIME_TYPE, f"a string can only contain strings, not {type_name(item)}")
        return item in container
    if kind is list:
        return any(equal(element, item, left) for element in container)
    if kind is dict:
        return type(item) is str and item in container
    raise fault(codes.RUNTIME_TYPE, f"cannot look inside {type_name(container)}")


@builtin(
    "get",
    (Arg("object", (OBJECT,)), Arg("field", (STRING,)), Arg("default", (ANY,), optional=True)),
    lambda types: ANY,
    "A field of an object, or the default (null) when it is missing.",
    pure=True,
)
def _get(limits: Limits, obj: dict[str, Any], field: str, default: Any = None) -> Any:
    return obj.get(field, default)


@builtin(
    "coalesce",
    (Arg("values", (ANY,)),),
    lambda types: _join_all(types),
    "The first argument that is not null (null if all are).",
    variadic=True,
    pure=True,
)
def _coalesce(limits: Limits, *values: Any) -> Any:
    return next((value for value in values if value is not None), None)


def _join_all(types: list[Type]) -> Type:
    result = types[0] if types else ANY
    for other in types[1:]:
        result = join(result, other) if other.name != "null" else result
    return result


# --- text ---------------------------------------------------------------------------------

S = Arg("text", (STRING,))


@builtin("lower", (S,), STRING, "Lower-case text.", pure=True, work=first_size, built=result_text_work)
def _lower(limits: Limits, text: str) -> str:
    return checked_text(limits, text.lower())


@builtin("upper", (S,), STRING, "Upper-case text.", pure=True, work=first_size, built=result_text_work)
def _upper(limits: Limits, text: str) -> str:
    return checked_text(limits, text.upper())


@builtin(
    "trim",
    (S,),
    STRING,
    "Text without leading and trailing whitespace.",
    pure=True,
    work=first_size,
    builds=lambda limits, text: text_built(limits, len(text), text),  # at most the text
)
def _trim(limits: Limits, text: str) -> str:
    return text.strip()


@builtin(
    "starts_with",
    (S, Arg("prefix", (STRING,))),
    BOOLEAN,
    "Whether text starts with prefix.",
    pure=True,
    work=all_sizes,
)
def _starts_with(limits: Limits, text: str, prefix: str) -> bool:
    return text.startswith(prefix)


@builtin(
    "ends_with", (S, Arg("suffix", (STRING,))), BOOLEAN, "Whether text ends with suffix.", pure=True, work=all_sizes
)
def _ends_with(limits: Limits, text: str, suffix: str) -> bool:
    return text.endswith(suffix)


@builtin(
    "replace",
    (S, Arg("old", (STRING,)), Arg("new", (STRING,))),
    STRING,
    "Text with every occurrence of old replaced by new.",
    pure=True,
    work=all_sizes,
    builds=lambda limits, text, old, new: text_built(limits, _replaced_length(text, old, new), text, new),
)
def _replace(limits: Limits, text: str, old: str, new: str) -> str:
    if not old:
        raise fault(codes.INVALID_OPERATION, "replace needs a non-empty string to replace")
    if _replaced_length(text, old, new) > limits.max_string_length:
        raise fault(codes.STRING_TOO_LONG, f"replace would exceed the limit of {limits.max_string_length:,} characters")
    return text.replace(old, new)


def _replaced_length(text: str, old: str, new: str) -> int:
    return len(text) + (len(new) - len(old)) * text.count(old) if old else 0


@builtin(
    "join",
    (Arg("values", (ARRAY,)), Arg("separator", (STRING,), optional=True)),
    STRING,
    'Items as text, joined by separator: join(names, ", ").',
    pure=True,
    work=first_size,
    built=result_text_work,
)
def _join(limits: Limits, values: list[Any], separator: str = "") -> str:
    # Each item's text is bounded by what is left (to_text_within): the whole never passes the
    # limit, in time or memory, however long the items' texts would be.
    limit, parts, used, step = limits.max_string_length, [], 0, len(separator)
    for value in values:
        text = to_text_within(value, limit - used)
        used += len(text) + step
        if used - step > limit:
            raise too_long(limit)
        parts.append(text)
    return separator.join(parts)


@builtin(
    "text",
    (Arg("value", (ANY,)),),
    STRING,
    'Any value as text, as a template would print it: text(31.500) = "31.5".',
    pure=True,
    work=first_size,
    built=result_text_work,
)
def _text(limits: Limits, value: Any) -> str:
    return to_text_within(value, limits.max_string_length)


def authored_builtins() -> list[str]:
    """The names of the builtins a tool's author writes, sorted: every builtin but those of
    imported JsonLogic rules (`truthy`, `js_add`, ...). What models are told the language has."""
    from toolkiln.semantics.js_builtins import JSONLOGIC_BUILTINS

    return sorted(name for name in BUILTINS if name not in JSONLOGIC_BUILTINS)
