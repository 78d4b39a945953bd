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

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.ast.types import Type
from toolkiln.ast.visitor import walk
from toolkiln.check import ParamInfo
from toolkiln.interpret.plan import Fn, Frame
from toolkiln.semantics.numbers import from_float_fast

# What puts a program in the float domain: a call of float arithmetic (the source says so).
# (Names only: the JsonLogic builtins are imported when a program calls one, float_fused.py.)
FLOAT_ARITHMETIC = frozenset({"js_f64", "js_add_f64", "js_sub_f64", "js_mul_f64", "js_div_f64", "js_mod_f64"})
# The builtins that take a float wherever they take a number (js_values.NUMBER_TYPES).
FLOAT_READY = FLOAT_ARITHMETIC | {
    "truthy",
    "js_equals",
    "js_strict_equals",
    "js_compare",
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
            if node.function not in FLOAT_READY:
                return False
            floats = floats or node.function in FLOAT_ARITHMETIC
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
