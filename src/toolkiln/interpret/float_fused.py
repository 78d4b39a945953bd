"""The float domain's builtins and fused arithmetic (float_domain.py): imported when a
program in the float domain is compiled, so that a run of any other program never imports
the JsonLogic builtins."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.spans import Span
from toolkiln.errors import RunError
from toolkiln.interpret.float_domain import literal
from toolkiln.interpret.plan import Fn, Frame
from toolkiln.semantics.builtins import BUILTINS, Builtin
from toolkiln.semantics.js_builtins import FLOAT_OPERATORS
from toolkiln.semantics.js_float import IN_FLOATS, OPERATOR_OF, PUSH, as_float, finite, steps

# The float domain's builtins: the `_f64` ones and js_compare giving floats, the rest as they are.
FLOAT_BUILTINS: dict[str, Builtin] = {name: replace(BUILTINS[name], impl=impl) for name, impl in IN_FLOATS.items()}


_READS = frozenset({"js_var", "js_val"})  # operands whose reading never fails


def fused(call: n.Call, closure: Callable[[n.Expr], Fn]) -> Fn | None:
    """`js_add_f64([a, b])` and its kin, and `js_f64([operands], "code")`, as one closure per
    operator over its operands' floats: the same operations in the same order as the builtins,
    without their loop, the operands' list or the call. None where the call is not of that
    form (the builtin then runs, and says what is wrong)."""
    symbol = OPERATOR_OF.get(call.function)
    if symbol is not None:
        items = call.args[0].items if len(call.args) == 1 and isinstance(call.args[0], n.ListExpr) else None
        values = _operands(items, closure)
        return None if values is None else _located(_operator(symbol, tuple(values)), call.span)
    operands, code = call.args if call.function == "js_f64" and len(call.args) == 2 else (None, None)
    if not isinstance(operands, n.ListExpr) or not isinstance(code, n.StringLit):
        return None
    try:
        plan = steps(code.value)
    except RunError:
        return None
    values = _operands(operands.items, closure)
    stack: list[Fn] = []
    for symbol, count in plan if values is not None else ():
        if symbol == PUSH and values:
            stack.append(values.pop(0))
        elif 0 < count <= len(stack):
            parts = tuple(stack[len(stack) - count :])
            del stack[len(stack) - count :]
            stack.append(_operator(symbol, parts))
        else:
            return None
    return _located(stack[0], call.span) if len(stack) == 1 and not values else None


def _operands(items: tuple[n.Expr, ...] | None, closure: Callable[[n.Expr], Fn]) -> list[Fn] | None:
    """Each operand as a closure giving its float; None if one may fail (its failure must come
    when the builtin's would) or is a constant that is no number."""
    if items is None or not all(isinstance(item, n.LITERALS + (n.Name,)) or _a_read(item) for item in items):
        return None
    try:
        return [_operand(item, closure) for item in items]
    except RunError:
        return None


def _a_read(expr: n.Expr) -> bool:
    return isinstance(expr, n.Call) and expr.function in _READS


def _operand(expr: n.Expr, closure: Callable[[n.Expr], Fn]) -> Fn:
    if isinstance(expr, n.LITERALS):
        number = as_float(literal(getattr(expr, "value", None)))  # (a numeral's text, once)
        return lambda f: number
    read = closure(expr)
    return lambda f: as_float(read(f))


def _operator(symbol: str, parts: tuple[Fn, ...]) -> Fn:
    """One operator as FLOAT_OPERATORS computes it: + from 0.0 (so -0.0 + -0.0 is 0.0)."""
    if len(parts) == 2 and symbol in "+-*":
        a, b = parts
        if symbol == "+":
            return lambda f: finite(0.0 + a(f) + b(f))
        if symbol == "-":
            return lambda f: finite(a(f) - b(f))
        return lambda f: finite(a(f) * b(f))
    floats = FLOAT_OPERATORS[symbol]
    return lambda f: finite(floats([part(f) for part in parts]))


def _located(fn: Fn, span: Span) -> Fn:
    def run(f: Frame) -> Any:
        try:
            return fn(f)
        except RunError as error:
            raise error.at(span) from None

    return run
