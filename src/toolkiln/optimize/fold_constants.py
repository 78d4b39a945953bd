"""Constant folding, in exact decimal arithmetic with the interpreter's own operators.

A fold that would fail (1 / 0, a limit, a type error) is left in place, so the run reports it
with its location: folding never changes what a program does, only when the work is done.
Folds compute under the Limits the program will run under (the pass's `limits`), so a value
too large for them stays a computation that fails at run time, as written; and only builtins
declared `pure` fold. Nor does an operation whose work the run charges to the operation
budget as it goes (a builtin with a `work` cost, `**`, membership, equality of anything but
two numbers, strings or booleans): folded, that charge would be lost, and a program the
budget stops as written would run.
"""

from __future__ import annotations

from decimal import Decimal
from functools import partial
from typing import Any

from toolkiln.ast import compute as n
from toolkiln.errors import RunError
from toolkiln.optimize.rewrite import any_node, every_expr
from toolkiln.semantics import operators
from toolkiln.semantics.builtins import BUILTINS
from toolkiln.semantics.limits import Limits

MAX_FOLDED_TEXT = 1000  # longer strings stay computed at run time
MAX_FOLDED_ITEMS = 100


class Impossible(Exception):
    """This expression is not a constant (or folding it would fail): leave it."""


def fold_constants(program: n.Program, *, limits: Limits) -> n.Program:
    if not any_node(program, _may_fold):
        return program  # nothing constant to fold (see any_step)
    return every_expr(program, partial(fold, limits=limits))


def fold(expr: n.Expr, *, limits: Limits) -> n.Expr:
    if not _may_fold(expr):
        return expr  # not the shape of a fold (and no Impossible raised and caught)
    try:
        return _fold(expr, limits)
    except Impossible:
        return expr


def _fold(expr: n.Expr, limits: Limits) -> n.Expr:
    match expr:
        case n.Conditional(test=n.BoolLit(value=value), then=then, otherwise=otherwise):
            return then if value else otherwise
        case n.Binary(op="and", left=n.BoolLit(value=False)) | n.Binary(op="or", left=n.BoolLit(value=True)):
            return expr.left  # the right side is never evaluated
        case n.Unary(op=op, operand=operand):
            return literal(_evaluate(lambda: operators.unary(op, value_of(operand), limits)), expr)
        case n.Binary(op=op, left=left, right=right):
            a, b = value_of(left), value_of(right)
            if op == "**" or (op in n.EQUALITY_OPS and not _same_scalar(a, b)):
                raise Impossible  # charged at run time (see the module's docstring)
            if op in n.ARITHMETIC_OPS:
                return literal(_evaluate(lambda: operators.arithmetic(op, a, b, limits)), expr)
            if op in n.LOGIC_OPS:
                if type(a) is not bool or type(b) is not bool:
                    raise Impossible
                return literal(a and b if op == "and" else a or b, expr)
            return literal(_evaluate(lambda: operators.compare(op, a, b)), expr)
        case n.Call(function=function, args=args):
            values = [value_of(arg) for arg in args]
            builtin = BUILTINS[function]
            return literal(_evaluate(lambda: builtin.impl(limits, *values)), expr)
        case n.Index(target=n.ListExpr() as target, index=n.NumberLit(value=index)):
            if index != index.to_integral_value() or not -len(target.items) <= index < len(target.items):
                raise Impossible
            return target.items[int(index)]
        case n.Field_(target=n.RecordExpr(entries=entries), name=name):
            return _read_field(entries, name)
        case n.Index(target=n.RecordExpr(entries=entries), index=n.StringLit(value=name)):
            return _read_field(entries, name)
    raise Impossible


def _read_field(entries: tuple[n.RecordEntry, ...], name: str) -> n.Expr:
    """`{"a": 1, "b": x}.b` is `x` once the other fields are constants (which cannot fail, so
    dropping them changes nothing); a missing field stays, for the run to report."""
    found = [entry.value for entry in entries if entry.key == name]
    if not found or not all(_constant(entry.value) for entry in entries if entry.key != name):
        raise Impossible
    return found[0]


def _may_fold(node: n.Node) -> bool:
    """Whether `node` has the shape of one of `_fold`'s cases (so it may fold; no other can)."""
    if type(node) is n.Binary:
        if node.op in n.MEMBERSHIP_OPS:
            return False  # charged at run time (see the module's docstring)
        return _constant(node.left) and (_constant(node.right) or node.op in n.LOGIC_OPS)
    if type(node) is n.Unary:
        return _constant(node.operand)
    if type(node) is n.Call:
        builtin = BUILTINS[node.function]
        return builtin.pure and builtin.work is None and all(_constant(arg) for arg in node.args)
    if type(node) is n.Conditional:
        return type(node.test) is n.BoolLit
    if type(node) is n.Index:
        if type(node.target) is n.RecordExpr:
            return type(node.index) is n.StringLit
        return type(node.target) is n.ListExpr and type(node.index) is n.NumberLit
    if type(node) is n.Field_:
        return type(node.target) is n.RecordExpr
    return False


def _same_scalar(a: Any, b: Any) -> bool:
    """Two numbers, two strings or two booleans: the equality the run does not charge."""
    return type(a) is type(b) and type(a) in (Decimal, str, bool)


def _constant(expr: n.Expr) -> bool:
    """Whether `value_of` has a value for `expr`."""
    if type(expr) is n.ListExpr:
        return all(_constant(item) for item in expr.items)
    if type(expr) is n.RecordExpr:
        return all(_constant(entry.value) for entry in expr.entries)
    return type(expr) in _LITERALS


_LITERALS = frozenset(n.LITERALS)


def _evaluate(compute: Any) -> Any:
    try:
        return compute()
    except (RunError, ArithmeticError):  # a decimal signal: the run turns it into its RunError
        raise Impossible from None


def value_of(expr: n.Expr) -> Any:
    match expr:
        case n.NumberLit(value=value) | n.StringLit(value=value) | n.BoolLit(value=value):
            return value
        case n.NullLit():
            return None
        case n.ListExpr(items=items):
            return [value_of(item) for item in items]
        case n.RecordExpr(entries=entries):
            return {entry.key: value_of(entry.value) for entry in entries}
    raise Impossible


def literal(value: Any, replaced: n.Expr) -> n.Expr:
    """The literal node for a folded value, in the place (and span) of `replaced`."""
    span = replaced.span
    kind = type(value)
    if value is None:
        return n.NullLit(span=span)
    if kind is bool:
        return n.BoolLit(value=value, span=span)
    if kind is Decimal:
        return n.NumberLit(value=value, span=span)
    if kind is str and len(value) <= MAX_FOLDED_TEXT:
        return n.StringLit(value=value, span=span)
    if kind is list and len(value) <= MAX_FOLDED_ITEMS:
        return n.ListExpr(items=tuple(literal(item, replaced) for item in value), span=span)
    if kind is dict and len(value) <= MAX_FOLDED_ITEMS:
        entries = (n.RecordEntry(key=key, value=literal(item, replaced), span=span) for key, item in value.items())
        return n.RecordExpr(entries=tuple(entries), span=span)
    raise Impossible
