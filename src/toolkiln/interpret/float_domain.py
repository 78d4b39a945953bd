"""The float mode end to end: a program that computes in binary floats keeps its numbers as
floats from its data to its result.

A JsonLogic rule imported with `numbers="float"` computes with the `_f64` builtins, each of
which takes JavaScript's numbers (floats) and gives one. Run as the exact mode runs, every
number of the data became a decimal when bound and a float again at each operator, and each
operator's float a decimal again. A program in the float domain skips both: its data's
floats are bound as they are (finite, within the number limit), its number literals are
floats, its `_f64` builtins give floats (js_float.IN_FLOATS), and only its result's floats
become decimals, as the `_f64` builtins' own results did (`from_float_fast`): the same
answers, with no decimal in between.

Which programs: those that call an `_f64` builtin and nothing that takes a number as a
decimal: only the JsonLogic builtins below (which take a float as JavaScript takes a number),
comparisons of operands of one known type, no arithmetic operator, and data of type `any`
(a schema's typed numbers are decimals). Any other program runs in decimals, as before: the
domain changes how fast a program runs, never what it computes or what the checker sees.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from decimal import Decimal
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.spans import Span
from toolkiln.ast.types import Type
from toolkiln.ast.visitor import walk
from toolkiln.check import ParamInfo
from toolkiln.errors import RunError
from toolkiln.interpret.plan import Fn, Frame
from toolkiln.semantics.builtins import BUILTINS, Builtin
from toolkiln.semantics.js_builtins import FLOAT_OPERATORS
from toolkiln.semantics.js_float import IN_FLOATS, OPERATOR_OF, PUSH, as_float, finite, steps
from toolkiln.semantics.numbers import from_float_fast

# The builtins that take a float wherever they take a number (js_values.NUMBER_TYPES).
_FLOAT_READY = frozenset(IN_FLOATS) | {
    "truthy",
    "js_equals",
    "js_strict_equals",
    "js_max",
    "js_min",
    "js_in",
    "js_merge",
    "js_list",
    "js_last",
    "js_all",
    "js_var",
    "js_cat",
}
# What puts a program in the float domain: a call of float arithmetic (the source says so).
_FLOAT_ARITHMETIC = frozenset(name for name in IN_FLOATS if name.endswith("f64"))
# The float domain's builtins: the `_f64` ones and js_compare giving floats, the rest as they are.
FLOAT_BUILTINS: dict[str, Builtin] = {name: replace(BUILTINS[name], impl=impl) for name, impl in IN_FLOATS.items()}
_NODES: tuple[type[n.Node], ...] = (n.Program, n.Param, n.Return, n.Name, n.NumberLit, n.StringLit, n.BoolLit)
_NODES += (n.NullLit, n.Conditional, n.Call, n.ListExpr, n.Comprehension, n.Unary, n.Binary)
_COMPARISONS = frozenset(n.EQUALITY_OPS + n.ORDER_OPS)


def computes_in_floats(program: n.Program, params: Iterable[ParamInfo], types: Mapping[int, Type]) -> bool:
    """Whether `program` runs in the float domain (see the module's doc)."""
    if any(param.type.name != "any" for param in params):
        return False
    floats = False
    for node in walk(program):
        if not isinstance(node, _NODES):
            return False
        if isinstance(node, n.Call):
            if node.function not in _FLOAT_READY:
                return False
            floats = floats or node.function in _FLOAT_ARITHMETIC
        elif isinstance(node, n.Unary) and node.op == "-" and not isinstance(node.operand, n.NumberLit):
            return False  # `-x` tests that x is a decimal
        elif isinstance(node, n.Binary) and not _plain_binary(node, types):
            return False
    return floats


def _plain_binary(node: n.Binary, types: Mapping[int, Type]) -> bool:
    """`and`, `or`, and a comparison of two numbers, texts or booleans that Python's own
    operator answers (a float against a decimal by value); no arithmetic."""
    if node.op in ("and", "or"):
        return True
    if node.op not in _COMPARISONS:
        return False
    kinds = {_kind(types.get(id(node.left))), _kind(types.get(id(node.right)))}
    return len(kinds) == 1 and kinds <= {"number", "string", "boolean"}


def _kind(type_: Type | None) -> str:
    if type_ is None or type_.nullable:
        return "any"
    return "number" if type_.is_numeric else type_.name


def literal(value: Any) -> Any:
    """A literal's value in the float domain: a number as a float."""
    return float(value) if type(value) is Decimal else value


def with_decimal_result(body: Fn) -> Fn:
    """`body`, its result's floats as decimals (what the `_f64` builtins give in decimals)."""

    def run(f: Frame) -> Any:
        return _decimals(body(f))

    return run


def _decimals(value: Any) -> Any:
    kind = type(value)
    if kind is float:
        return from_float_fast(value)  # (finite: bound so, and every _f64 result is)
    if kind is list:
        return [_decimals(item) for item in value]
    if kind is dict:
        return {key: _decimals(item) for key, item in value.items()}
    return value


# --- js_f64 as closures -------------------------------------------------------------------

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
