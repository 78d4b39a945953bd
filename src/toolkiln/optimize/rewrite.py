"""Rebuilding trees bottom-up: the shared machinery of the passes.

`bottom_up(fn)` applies `fn` to every sub-expression, children first, and rebuilds only
what changed (an unchanged subtree is returned as the same object). `map_steps` does the
same for the expressions inside steps. Rewritten nodes keep the span of the node they
replace, so diagnostics and run-time errors still point at the source.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeVar, assert_never

from toolkiln.ast import compute as n
from toolkiln.ast.visitor import children, left_chain

ExprFn = Callable[[n.Expr], n.Expr]
N = TypeVar("N", bound=n.Node)


def bottom_up(fn: ExprFn) -> ExprFn:
    """`fn` applied to every sub-expression, children first, as one function."""

    def visit(node: n.Expr) -> n.Expr:
        if type(node) is n.Binary:
            return rebuild_chain(node, visit, fn)
        rebuild = _REBUILD[type(node)]
        return fn(node if rebuild is None else rebuild(node, visit))

    return visit


def rebuild_chain(expr: n.Binary, fn: ExprFn, after: ExprFn | None = None) -> n.Expr:
    """`expr` with `fn` applied to the operands of its left-deep chain (see `left_chain`),
    rebuilt bottom-up in a loop, and `after` applied to each rebuilt binary: a sum of 10,000
    terms is a tree 10,000 deep, too deep to recurse into."""
    leaf, chain = left_chain(expr)
    result = fn(leaf)
    for node in chain:
        rebuilt = copy_changed(node, left=result, right=fn(node.right))
        result = rebuilt if after is None else after(rebuilt)
    return result


def map_children(expr: n.Expr, fn: ExprFn) -> n.Expr:
    """`expr` with `fn` applied to each direct child expression."""
    rebuild = _REBUILD[type(expr)]
    return expr if rebuild is None else rebuild(expr, fn)


def _unary(e: n.Unary, fn: ExprFn) -> n.Unary:
    return copy_changed(e, operand=fn(e.operand))


def _binary(e: n.Binary, fn: ExprFn) -> n.Binary:
    return copy_changed(e, left=fn(e.left), right=fn(e.right))


def _conditional(e: n.Conditional, fn: ExprFn) -> n.Conditional:
    return copy_changed(e, test=fn(e.test), then=fn(e.then), otherwise=fn(e.otherwise))


def _call(e: n.Call, fn: ExprFn) -> n.Call:
    return copy_changed(e, args=tuple(fn(a) for a in e.args))


def _list(e: n.ListExpr, fn: ExprFn) -> n.ListExpr:
    return copy_changed(e, items=tuple(fn(i) for i in e.items))


def _record(e: n.RecordExpr, fn: ExprFn) -> n.RecordExpr:
    return copy_changed(e, entries=tuple(copy_changed(entry, value=fn(entry.value)) for entry in e.entries))


def _field(e: n.Field_, fn: ExprFn) -> n.Field_:
    return copy_changed(e, target=fn(e.target))


def _index(e: n.Index, fn: ExprFn) -> n.Index:
    return copy_changed(e, target=fn(e.target), index=fn(e.index))


def _comprehension(e: n.Comprehension, fn: ExprFn) -> n.Comprehension:
    condition = None if e.condition is None else fn(e.condition)
    return copy_changed(e, element=fn(e.element), iterable=fn(e.iterable), condition=condition)


def _attempt(e: n.Try, fn: ExprFn) -> n.Try:
    return copy_changed(e, body=fn(e.body), handler=fn(e.handler))


# The rebuild of each expression kind, None for a leaf. Every pass maps every expression, and
# with a lookup by exact type a traversal takes 2.5 times less than with a `match` over the kinds;
# so instead of `assert_never`, tests/unit/ast/test_exhaustive_dispatch.py checks that every kind of
# n.Expr is here (an unknown kind is a KeyError, never taken for a leaf). Each function takes the
# kind it is listed under (hence Any: a dict cannot pair each key's type with its value's).
_REBUILD: dict[type[n.Node], Callable[[Any, ExprFn], n.Expr] | None] = {
    n.NumberLit: None,
    n.StringLit: None,
    n.BoolLit: None,
    n.NullLit: None,
    n.Name: None,
    n.Unary: _unary,
    n.Binary: _binary,
    n.Conditional: _conditional,
    n.Call: _call,
    n.ListExpr: _list,
    n.RecordExpr: _record,
    n.Field_: _field,
    n.Index: _index,
    n.Comprehension: _comprehension,
    n.Try: _attempt,
}


def copy_changed(node: N, **parts: Any) -> N:
    """The node with new children (field values of any kind), or the node itself when nothing
    changed."""
    for key, value in parts.items():
        old = getattr(node, key)
        if old is not value and not (type(old) is tuple and _same(old, value)):
            return replace(node, **parts)
    return node


def map_step_exprs(step: n.Step, fn: ExprFn) -> n.Step:
    """The step with `fn` applied to each of its own expressions (not those of nested steps)."""
    match step:
        case n.Assign(value=value) | n.Return(value=value):
            return copy_changed(step, value=fn(value))
        case n.Lookup(key=key, default=default):
            return copy_changed(step, key=fn(key), default=None if default is None else fn(default))
        case n.Format(template=template):
            parts = tuple(copy_changed(p, expr=fn(p.expr)) if isinstance(p, n.Hole) else p for p in template.parts)
            return copy_changed(step, template=copy_changed(template, parts=parts))
        case n.CallTool(args=args):
            return copy_changed(step, args=tuple(copy_changed(arg, value=fn(arg.value)) for arg in args))
        case n.If(condition=condition):
            return copy_changed(step, condition=fn(condition))
        case _:
            assert_never(step)


def map_blocks(steps: tuple[n.Step, ...], fn: Callable[[tuple[n.Step, ...]], tuple[n.Step, ...]]) -> tuple[n.Step, ...]:
    """Apply a block rewrite to every block, innermost first."""
    rebuilt = []
    for step in steps:
        if isinstance(step, n.If):
            step = copy_changed(step, then=map_blocks(step.then, fn), otherwise=map_blocks(step.otherwise, fn))
        rebuilt.append(step)
    result = fn(tuple(rebuilt))
    return steps if _same(result, steps) else result


def any_step(steps: tuple[n.Step, ...], predicate: Callable[[n.Step], bool]) -> bool:
    """Whether `predicate` holds for a step of the blocks, those inside `if`s included. A pass
    asks first, and returns the program itself when there is nothing to rewrite: most passes
    find nothing in most programs, and a scan costs a fraction of a rebuild."""
    stack = list(steps)
    while stack:
        step = stack.pop()
        if predicate(step):
            return True
        if type(step) is n.If:
            stack += step.then
            stack += step.otherwise
    return False


def any_node(program: n.Program, predicate: Callable[[n.Node], bool]) -> bool:
    """Whether `predicate` holds for a node of the program's steps (not its declarations), for
    the same kind of scan (a loop, not `walk`: a scan is only worth it when it is cheap)."""
    stack: list[n.Node] = list(program.steps)
    while stack:
        node = stack.pop()
        if predicate(node):
            return True
        stack += children(node)
    return False


def _same(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def with_steps(program: n.Program, steps: tuple[n.Step, ...]) -> n.Program:
    return program if _same(steps, program.steps) else replace(program, steps=steps)


def every_expr(program: n.Program, fn: ExprFn) -> n.Program:
    """`fn` applied bottom-up to every expression of every step."""
    visit = bottom_up(fn)

    def block(steps: tuple[n.Step, ...]) -> tuple[n.Step, ...]:
        return tuple(map_step_exprs(step, visit) for step in steps)

    return with_steps(program, map_blocks(program.steps, block))
