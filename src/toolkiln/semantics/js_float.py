"""`js_f64`: a nested JsonLogic arithmetic rule computed in binary floats in one call.

`{"*": [{"+": [{"*": [{"var": "kg"}, 2.5]}, 5]}, 0.9]}` imported in the float-compatible mode
is one `js_f64([kg, 2.5, 5, 0.9], ". . *2 . +2 . *2")` where it would be three `_f64` calls:
each operator computes in floats as JavaScript does, in the same order, and stops on a result
that is not finite as each `_f64` call does; only the last result becomes a decimal (a float
converted to a decimal and back is the same float, so the answer is the same).
"""

from __future__ import annotations

import math
from decimal import Decimal
from functools import lru_cache
from typing import Any

from toolkiln.ast.types import ARRAY, NUMBER, STRING
from toolkiln.semantics.builtin_registry import Arg, builtin, first_size
from toolkiln.semantics.js_builtins import FLOAT_OPERATORS, float_result
from toolkiln.semantics.js_values import invalid_arguments, nan, to_number

PUSH = "."  # the code's step that takes the next operand; "+2" applies + to the last two values


@lru_cache(maxsize=1024)
def _steps(code: str) -> tuple[tuple[str, int], ...]:
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
    stack: list[float] = []
    taken = 0
    for symbol, count in _steps(code):
        if symbol == PUSH:
            if taken >= len(operands):
                raise invalid_arguments("js_f64's code takes more operands than it is given")
            value = operands[taken]
            stack.append(float(value) if type(value) is Decimal else float(to_number(value)))
            taken += 1
            continue
        if count > len(stack):
            raise invalid_arguments(f"js_f64's code applies {symbol} to more values than it has")
        values = stack[len(stack) - count :]
        del stack[len(stack) - count :]
        result = FLOAT_OPERATORS[symbol](values)
        if not math.isfinite(result):
            raise nan(f"the result is {result} (JsonLogic engines stop with NaN)")
        stack.append(result)
    if len(stack) != 1 or taken != len(operands):
        raise invalid_arguments("js_f64's code does not compute one value from its operands")
    return float_result(stack[0])
