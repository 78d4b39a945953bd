"""The builtins of imported JsonLogic rules (`toolkiln import --from jsonlogic`).

Their names say that JavaScript's rules apply (`truthy`, `to_number`, `js_equals`, ...): the
import calls them where a rule's values are untyped, and drops them where a data schema
gives the types. Arithmetic comes twice: `js_add` and its kin compute in exact decimals,
`js_add_f64` and its kin in binary floats, as JavaScript does (the float-compatible mode).
Arithmetic takes its operands as one list, as JsonLogic gives them (`{"+": [a, b, c]}` or
`{"+": {"var": "prices"}}`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from toolkiln.ast.types import ANY, ARRAY, BOOLEAN, NUMBER, OBJECT, STRING, array_of
from toolkiln.diagnostics import codes
from toolkiln.errors import RunError
from toolkiln.semantics.builtin_registry import (
    HOMES,
    Arg,
    all_sizes,
    builtin,
    fault,
    first_size,
    list_work,
    result_text_work,
    size_of,
)
from toolkiln.semantics.js_values import (
    compare,
    invalid_arguments,
    loose_equals,
    nan,
    scalar_text,
    strict_equals,
    to_js_string,
    to_number,
    truthy,
)
from toolkiln.semantics.limits import Limits
from toolkiln.semantics.numbers import from_float_fast
from toolkiln.semantics.values import type_name

V = Arg("value", (ANY,))
OPERANDS = Arg("operands", (ANY,))


@builtin("truthy", (V,), BOOLEAN, "JsonLogic's (JavaScript's) truthiness; an empty list is false.", pure=True)
def _truthy(limits: Limits, value: Any) -> bool:
    return truthy(value)


@builtin(
    "to_number",
    (V,),
    NUMBER,
    'JavaScript\'s Number(value): null -> 0, true -> 1, " 12 " -> 12, "" -> 0; E1003 for NaN.',
    pure=True,
    work=first_size,
)
def _to_number(limits: Limits, value: Any) -> Decimal:
    return to_number(value)


@builtin("js_equals", (V, Arg("other", (ANY,))), BOOLEAN, "JavaScript's loose `==`.", pure=True, work=all_sizes)
def _js_equals(limits: Limits, a: Any, b: Any) -> bool:
    return loose_equals(a, b)


@builtin("js_strict_equals", (V, Arg("other", (ANY,))), BOOLEAN, "JavaScript's `===`.", pure=True, work=all_sizes)
def _js_strict_equals(limits: Limits, a: Any, b: Any) -> bool:
    return strict_equals(a, b)


@builtin(
    "js_compare",
    (V, Arg("other", (ANY,))),
    NUMBER,
    "JavaScript's `<` as -1, 0 or 1 (2 where no order holds, null against a word): two strings "
    "by characters, else as numbers (E1003 for NaN).",
    pure=True,
    work=all_sizes,
)
def _js_compare(limits: Limits, a: Any, b: Any) -> Decimal:
    if type(a) is type(b) and (type(a) is Decimal or type(a) is float):  # the common case: no coercion
        return _ORDER[(a > b) - (a < b)]
    return _ORDER[compare(a, b)]


_ORDER = {-1: Decimal(-1), 0: Decimal(0), 1: Decimal(1), 2: Decimal(2)}


def _operands(value: Any) -> list[Any]:
    """JsonLogic's operands: a list as given, anything else as the one operand."""
    return value if type(value) is list else [value]


def _numbers(value: Any) -> list[Decimal]:
    """The operands as JavaScript's Number(x) (a number as it is: the common case, no call)."""
    return [item if type(item) is Decimal else to_number(item) for item in _operands(value)]


# --- exact arithmetic ---------------------------------------------------------------------


def _sum(limits: Limits, values: list[Decimal]) -> Decimal:
    total = Decimal(0)
    for value in values:
        total = limits.context.add(total, value)
    return total


def _product(limits: Limits, values: list[Decimal]) -> Decimal:
    total = Decimal(1)
    for value in values:
        total = limits.context.multiply(total, value)
    return total


def _difference(limits: Limits, values: list[Decimal]) -> Decimal:
    if not values:
        raise invalid_arguments("- needs at least one operand")
    if len(values) == 1:
        return limits.context.minus(values[0])
    total = values[0]
    for value in values[1:]:
        total = limits.context.subtract(total, value)
    return total


def _quotient(limits: Limits, values: list[Decimal]) -> Decimal:
    if not values:
        raise invalid_arguments("/ needs at least one operand")
    total, rest = (Decimal(1), values) if len(values) == 1 else (values[0], values[1:])
    for value in rest:
        if value.is_zero():
            raise nan("division by zero (JavaScript would compute NaN or an infinity)")
        total = limits.context.divide(total, value)
    return total


def _remainder(limits: Limits, values: list[Decimal]) -> Decimal:
    if len(values) < 2:
        raise invalid_arguments("% needs at least two operands")
    total = values[0]
    for value in values[1:]:
        if value.is_zero():
            raise nan("remainder of a division by zero (JavaScript would compute NaN)")
        total = limits.context.remainder(total, value)
    return total


# --- float arithmetic (JavaScript's numbers) ----------------------------------------------


def float_result(value: float) -> Decimal:
    if not math.isfinite(value):
        raise nan(f"the result is {value} (JsonLogic engines stop with NaN)")
    return from_float_fast(value)


def _float_sum(values: list[float]) -> float:
    total = 0.0  # in order, as JavaScript adds (no fsum: its exact rounding is not JavaScript's)
    for value in values:
        total += value
    return total


def _float_product(values: list[float]) -> float:
    total = 1.0
    for value in values:
        total *= value
    return total


def _float_difference(values: list[float]) -> float:
    if not values:
        raise invalid_arguments("- needs at least one operand")
    total = values[0]
    if len(values) == 1:
        return -total
    for value in values[1:]:
        total -= value
    return total


def _float_quotient(values: list[float]) -> float:
    if not values:
        raise invalid_arguments("/ needs at least one operand")
    total, rest = (1.0, values) if len(values) == 1 else (values[0], values[1:])
    for value in rest:
        if value == 0:
            raise nan("division by zero (JavaScript would compute NaN or an infinity)")
        total /= value
    return total


def _float_remainder(values: list[float]) -> float:
    if len(values) < 2:
        raise invalid_arguments("% needs at least two operands")
    total = values[0]
    for value in values[1:]:
        if value == 0 or not math.isfinite(total):  # ("1e999" is Infinity: math.fmod refuses it)
            raise nan("remainder of a division by zero or of infinity (JavaScript would compute NaN)")
        total = math.fmod(total, value)  # JavaScript's %: the sign of the dividend
    return total


_ARITHMETIC: dict[str, tuple[str, Callable[..., Decimal], Callable[[list[float]], float]]] = {
    "add": ("+", _sum, _float_sum),
    "multiply": ("*", _product, _float_product),
    "subtract": ("-", _difference, _float_difference),
    "divide": ("/", _quotient, _float_quotient),
    "remainder": ("%", _remainder, _float_remainder),
}
# JavaScript's arithmetic in binary floats, by operator (js_float computes nested rules with them)
FLOAT_OPERATORS = {symbol: floats for symbol, _, floats in _ARITHMETIC.values()}
_SHORT = {"add": "add", "multiply": "mul", "subtract": "sub", "divide": "div", "remainder": "mod"}


def _register_arithmetic(what: str, symbol: str, exact: Callable[..., Decimal], floats: Callable[..., float]) -> None:
    name = f"js_{_SHORT[what]}"

    @builtin(
        name,
        (OPERANDS,),
        NUMBER,
        f"JsonLogic's `{symbol}` in exact decimals: the operands (a list, or one value) as "
        f"JavaScript's Number(x); E1003 where that is NaN.",
        pure=True,
        work=first_size,
    )
    def exact_impl(limits: Limits, operands: Any) -> Decimal:
        values = _numbers(operands)
        try:
            return exact(limits, values)
        except ArithmeticError:
            raise fault(codes.INVALID_OPERATION, "the result is beyond the number limit") from None

    @builtin(
        f"{name}_f64",
        (OPERANDS,),
        NUMBER,
        f"JsonLogic's `{symbol}` in binary floats, as JavaScript computes it (0.1 + 0.2 = "
        f"0.30000000000000004): the float-compatible mode of an import.",
        pure=True,
        work=first_size,
    )
    def float_impl(limits: Limits, operands: Any) -> Decimal:
        values = operands if type(operands) is list else [operands]
        return float_result(floats([float(v) if type(v) is Decimal else float(to_number(v)) for v in values]))


for _what, (_symbol, _exact_fn, _float_fn) in _ARITHMETIC.items():
    _register_arithmetic(_what, _symbol, _exact_fn, _float_fn)


def _extreme(pick: Callable[..., Decimal], symbol: str) -> Callable[..., Decimal]:
    def impl(limits: Limits, operands: Any) -> Decimal:
        values = _operands(operands)
        if not values:
            raise invalid_arguments(f"{symbol} of nothing")
        for value in values:
            if type(value) is not Decimal and type(value) is not float:  # (float: the float mode)
                raise invalid_arguments(f"{symbol} takes numbers only, not {type_name(value)}")
        return pick(values)

    return impl


@builtin(
    "js_max", (OPERANDS,), NUMBER, "JsonLogic's `max`: numbers only (E1002 otherwise).", pure=True, work=first_size
)
def _js_max(limits: Limits, operands: Any) -> Decimal:
    return _extreme(max, "max")(limits, operands)


@builtin(
    "js_min", (OPERANDS,), NUMBER, "JsonLogic's `min`: numbers only (E1002 otherwise).", pure=True, work=first_size
)
def _js_min(limits: Limits, operands: Any) -> Decimal:
    return _extreme(min, "min")(limits, operands)


# --- text and lists -----------------------------------------------------------------------


@builtin(
    "js_cat",
    (OPERANDS,),
    STRING,
    "JsonLogic's `cat`: each operand as JavaScript's String(x) (null -> \"null\"), joined.",
    pure=True,
    work=first_size,
    built=result_text_work,
)
def _js_cat(limits: Limits, operands: Any) -> str:
    return to_js_string(_operands(operands), limits.max_string_length, separator="")


def _position(value: Any) -> int:
    """JavaScript's ToIntegerOrInfinity, bounded: past any text's length either way."""
    number = to_number(value)
    return int(max(min(number, _FAR), -_FAR))


_FAR = Decimal(2**53)


@builtin(
    "js_substr",
    (V, Arg("start", (ANY,)), Arg("length", (ANY,), optional=True)),
    STRING,
    "JsonLogic's `substr`: a negative start counts from the end, a negative length leaves "
    "that many characters off the end.",
    pure=True,
    work=first_size,
    built=result_text_work,
)
def _js_substr(limits: Limits, value: Any, start: Any, length: Any = None) -> str:
    text = to_js_string(value, limits.max_string_length)
    begin = _position(start)
    part = text[max(len(text) + begin, 0) :] if begin < 0 else text[begin:]
    if length is None:
        return part
    count = _position(length)
    return part[: max(len(part) + count, 0)] if count < 0 else part[:count]


@builtin(
    "js_in",
    (V, Arg("container", (ANY,))),
    BOOLEAN,
    "JsonLogic's `in`: a substring of text, or an item (by ===) of a list; false otherwise.",
    pure=True,
    work=all_sizes,
)
def _js_in(limits: Limits, item: Any, container: Any) -> bool:
    if type(container) is str:
        try:
            return to_js_string(item, len(container)) in container
        except RunError:  # longer than the text: not in it
            return False
    if type(container) is list:
        return any(strict_equals(item, element) for element in container)
    return False


@builtin(
    "js_merge",
    (OPERANDS,),
    ARRAY,
    "JsonLogic's `merge`: the operands' items, one level of lists flattened.",
    pure=True,
    work=first_size,
    built=lambda merged: list_work(len(merged)),
)
def _js_merge(limits: Limits, operands: Any) -> list[Any]:
    values = _operands(operands)
    length = sum(len(value) if type(value) is list else 1 for value in values)
    if length > limits.max_list_length:  # refused before it is built
        raise fault(codes.LIST_TOO_LONG, f"merge would make {length:,} items, over {limits.max_list_length:,}")
    merged: list[Any] = []
    for value in values:
        if type(value) is list:
            merged.extend(value)
        else:
            merged.append(value)
    return merged


@builtin(
    "js_list", (V,), ARRAY, "The value if it is a list, else an empty list (what map and filter iterate).", pure=True
)
def _js_list(limits: Limits, value: Any) -> list[Any]:
    return value if type(value) is list else []


@builtin(
    "js_entries",
    (V,),
    array_of(ARRAY),
    "The pairs [position, item] of a list, else an empty list (a loop whose rule reads the position).",
    pure=True,
    work=first_size,
    built=lambda pairs: list_work(3 * len(pairs)),  # each pair a list of two
)
def _js_entries(limits: Limits, value: Any) -> list[list[Any]]:
    return [[Decimal(i), item] for i, item in enumerate(value)] if type(value) is list else []


@builtin(
    "js_last",
    (Arg("values", (ARRAY,)), Arg("default", (ANY,))),
    lambda types: ANY,
    "The last item, or the default for an empty list (a reduce whose body does not read the accumulator).",
    pure=True,
)
def _js_last(limits: Limits, values: list[Any], default: Any) -> Any:
    return values[-1] if values else default


@builtin(
    "js_all",
    (Arg("values", (array_of(BOOLEAN),)),),
    BOOLEAN,
    "JsonLogic's `all`: whether every item is true, and false for an empty list.",
    pure=True,
    work=first_size,
)
def _js_all(limits: Limits, values: list[bool]) -> bool:
    return bool(values) and all(values)


@builtin(
    "js_length",
    (V,),
    NUMBER,
    "The length of a text (in UTF-16 code units, as JavaScript counts) or a list (E1002 otherwise).",
    pure=True,
)
def _js_length(limits: Limits, value: Any) -> Decimal:
    if type(value) is str:
        return Decimal(len(value.encode("utf-16-le")) // 2)
    if type(value) is list:
        return Decimal(len(value))
    raise invalid_arguments(f"length of {type_name(value)}")


@builtin(
    "js_throw",
    (V,),
    ANY,
    "JsonLogic's `throw`: stop the rule with E1004 naming the error (a text, or an object's `type`).",
    pure=False,
)
def _js_throw(limits: Limits, value: Any) -> Any:
    kind = value.get("type") if type(value) is dict else value
    thrown = fault(codes.JSONLOGIC_THROWN, f"the rule threw {scalar_text(kind)[:200]}")
    thrown.value = value  # what `try`'s next alternative reads (js_error_data)
    raise thrown


# What a JsonLogic engine names each failure, in the error object `try` hands on.
_ERROR_TYPES = {codes.JSONLOGIC_NAN.code: "NaN", codes.JSONLOGIC_INVALID_ARGUMENTS.code: "Invalid Arguments"}


@builtin(
    "js_error_data",
    (Arg("error", (OBJECT,)),),
    OBJECT,
    'The data of JsonLogic\'s `try` after a failure: an object thrown, or {"type": what was thrown, "NaN", ...}.',
    pure=True,
)
def _js_error_data(limits: Limits, error: dict[str, Any]) -> Any:
    code = str(error.get("code"))
    if code == codes.JSONLOGIC_THROWN.code:
        value = error.get("value")
        return value if type(value) is dict else {"type": value}
    return {"type": _ERROR_TYPES.get(code, code)}


# --- reading the data ---------------------------------------------------------------------

_MISSING = object()


def _step(current: Any, key: Any) -> Any:
    """One step into the data: a field of an object, an item of a list by its index."""
    if type(current) is dict:
        return current.get(scalar_text(key), _MISSING)
    if type(current) is list:
        text = scalar_text(key)
        if text.isdigit() and int(text) < len(current):
            return current[int(text)]
    return _MISSING


def read_path(data: Any, path: Any) -> Any:
    """`var`'s path: a dotted text or a number; "" or null is the whole data."""
    if type(path) is str and path and "." not in path:  # the common case, one step: no split
        if type(data) is dict:
            return data.get(path, _MISSING)
        return _step(data, path)
    if path is None or path == "" or path == []:
        return data
    current = data
    for key in scalar_text(path).split("."):
        if current is None:
            return _MISSING
        current = _step(current, key)
        if current is _MISSING:
            return _MISSING
    return current


@builtin(
    "js_var",
    (Arg("data", (ANY,)), Arg("path", (ANY,)), Arg("default", (ANY,), optional=True)),
    ANY,
    'JsonLogic\'s `var`: the value at a dotted path ("a.b.0"), or the default (null) where there is none.',
    pure=True,
)
def _js_var(limits: Limits, data: Any, path: Any, default: Any = None) -> Any:
    found = read_path(data, path)
    return default if found is _MISSING or found is None else found


def _walk(data: Any, keys: list[Any]) -> Any:
    current = data
    for key in keys:
        current = _step(current, key)
        if current is _MISSING:
            return _MISSING
    return current


@builtin(
    "js_val",
    (Arg("data", (ANY,)), Arg("keys", (ARRAY,))),
    ANY,
    "JsonLogic's `val`: the value under these keys, each a field or an index (no dots are "
    "split); null where there is none.",
    pure=True,
)
def _js_val(limits: Limits, data: Any, keys: list[Any]) -> Any:
    found = _walk(data, keys)
    return None if found is _MISSING else found


@builtin(
    "js_exists",
    (Arg("data", (ANY,)), Arg("keys", (ARRAY,))),
    BOOLEAN,
    "JsonLogic's `exists`: whether the data has a value (even null) under these keys.",
    pure=True,
)
def _js_exists(limits: Limits, data: Any, keys: list[Any]) -> bool:
    return _walk(data, keys) is not _MISSING


# A path read (a text split at dots, a step per part) costs about this many additions of `sum`.
PATH_READ_WORK = 16


def _missing_work(data: Any, keys: Any, *rest: Any) -> int:
    return PATH_READ_WORK * (size_of(keys) + sum(size_of(other) for other in rest))


def _missing(data: Any, keys: list[Any]) -> list[Any]:
    found = []
    for key in keys:
        value = read_path(data, key)
        if value is _MISSING or value is None or value == "":
            found.append(key)
    return found


@builtin(
    "js_missing",
    (Arg("data", (ANY,)), Arg("keys", (ANY,))),
    ARRAY,
    'JsonLogic\'s `missing`: the keys whose value is absent, null or "".',
    pure=True,
    work=_missing_work,
    built=lambda missing: list_work(len(missing)),
)
def _js_missing(limits: Limits, data: Any, keys: Any) -> list[Any]:
    return _missing(data, _operands(keys))


@builtin(
    "js_missing_some",
    (Arg("data", (ANY,)), Arg("need", (ANY,)), Arg("keys", (ANY,))),
    ARRAY,
    "JsonLogic's `missing_some`: none when at least `need` of the keys are there, else the missing ones.",
    pure=True,
    work=_missing_work,
    built=lambda missing: list_work(len(missing)),
)
def _js_missing_some(limits: Limits, data: Any, need: Any, keys: Any) -> list[Any]:
    wanted = _operands(keys)
    missing = _missing(data, wanted)
    return [] if len(wanted) - len(missing) >= to_number(need) else missing


# What this module and js_float register: the builtins of imported rules, not of the language a tool's
# author writes (see `authored_builtins`).
JSONLOGIC_BUILTINS = frozenset(HOMES["js_builtins"].split() + HOMES["js_float"].split())
