"""`js_f64`: a nested JsonLogic arithmetic rule computed in binary floats in one call.

`{"*": [{"+": [{"*": [{"var": "kg"}, 2.5]}, 5]}, 0.9]}` imported in the float-compatible mode
is one `js_f64([kg, 2.5, 5, 0.9], ". . *2 . +2 . *2")` where it would be three `_f64` calls:
each operator computes in floats as JavaScript does, in the same order, and stops on a result
that is not finite as each `_f64` call does; only the last result becomes a decimal (a float
converted to a decimal and back is the same float, so the answer is the same).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from functools import lru_cache
from typing import Any

from toolkiln.ast.types import ARRAY, NUMBER, STRING
from toolkiln.semantics.builtin_registry import Arg, builtin, first_size
from toolkiln.semantics.js_builtins import FLOAT_OPERATORS, float_result
from toolkiln.semantics.js_values import compare, invalid_arguments, nan, to_number

PUSH = "."  # the code's step that takes the next operand; "+2" applies + to the last two values


@lru_cache(maxsize=1024)
def steps(code: str) -> tuple[tuple[str, int], ...]:
    steps = []
    for word in code.split():
        if word == PUSH:
            steps.append((PUSH, 0))
        elif word[:1] in FLOAT_OPERATORS and word[1:].isdigit():
            steps.append((word[0], int(word[1:])))
        else:
            raise invalid_arguments(f"js_f64's code has the step {word!r}")
    return tuple(steps)


@builtin(
    "js_f64",
    (Arg("operands", (ARRAY,)), Arg("code", (STRING,))),
    NUMBER,
    "Nested JsonLogic arithmetic in binary floats in one call: the operands (each as "
    "JavaScript's Number(x)) taken by the code's '.' steps, each operator ('+2') applied to the "
    "last values, as the `_f64` builtins compute them.",
    pure=True,
    work=first_size,
)
def _js_f64(limits: Any, operands: list[Any], code: str) -> Decimal:
    return float_result(computed(operands, code))


def computed(operands: list[Any], code: str) -> float:
    """js_f64's value as a float (finite: each step stops on a result that is not)."""
    stack: list[float] = []
    taken = 0
    for symbol, count in steps(code):
        if symbol == PUSH:
            if taken >= len(operands):
                raise invalid_arguments("js_f64's code takes more operands than it is given")
            stack.append(as_float(operands[taken]))
            taken += 1
            continue
        if count > len(stack):
            raise invalid_arguments(f"js_f64's code applies {symbol} to more values than it has")
        values = stack[len(stack) - count :]
        del stack[len(stack) - count :]
        stack.append(finite(FLOAT_OPERATORS[symbol](values)))
    if len(stack) != 1 or taken != len(operands):
        raise invalid_arguments("js_f64's code does not compute one value from its operands")
    return stack[0]


def as_float(value: Any) -> float:
    """JavaScript's Number(value) as a float (a float, in the float mode, as it is)."""
    kind = type(value)
    if kind is float:
        return value  # type: ignore[no-any-return]
    return float(value) if kind is Decimal else float(to_number(value))


def finite(result: float) -> float:
    if not math.isfinite(result):
        raise nan(f"the result is {result} (JsonLogic engines stop with NaN)")
    return result


# --- the float mode end to end (interpret/float_domain.py) --------------------------------
# The same builtins giving floats, which the next operator takes as they are, where the
# builtins above give decimals (for a program that computes in decimals around them).


def _arithmetic_in_floats(floats: Callable[[list[float]], float]) -> Callable[..., float]:
    def impl(limits: Any, operands: Any) -> float:
        values = operands if type(operands) is list else [operands]
        return finite(floats([as_float(value) for value in values]))

    return impl


def _js_f64_in_floats(limits: Any, operands: list[Any], code: str) -> float:
    return computed(operands, code)


_ORDER = {-1: -1.0, 0: 0.0, 1: 1.0, 2: 2.0}


def _js_compare_in_floats(limits: Any, a: Any, b: Any) -> float:
    if type(a) is float and type(b) is float:  # the common case: no coercion
        return _ORDER[(a > b) - (a < b)]
    return _ORDER[compare(a, b)]


_NAMES = {"+": "js_add_f64", "*": "js_mul_f64", "-": "js_sub_f64", "/": "js_div_f64", "%": "js_mod_f64"}
OPERATOR_OF = {name: symbol for symbol, name in _NAMES.items()}  # js_add_f64 -> "+"
IN_FLOATS: dict[str, Callable[..., float]] = {
    "js_f64": _js_f64_in_floats,
    "js_compare": _js_compare_in_floats,
    **{_NAMES[symbol]: _arithmetic_in_floats(floats) for symbol, floats in FLOAT_OPERATORS.items()},
}
