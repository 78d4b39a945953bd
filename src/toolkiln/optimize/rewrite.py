"""Rebuilding trees bottom-up: the shared machinery of the passes.

`map_expr(expr, fn)` applies `fn` to every sub-expression, children first, and rebuilds only
what changed (an unchanged subtree is returned as the same object). `map_steps` does the
same for the expressions inside steps. Rewritten nodes keep the span of the node they
replace, so diagnostics and run-time errors still point at the source.
"""

from __future__ import annotations

from collections.abc import Callable

from toolkiln.ast import compute as n

ExprFn = Callable[[n.Expr], n.Expr]


def map_expr(expr: n.Expr, fn: ExprFn) -> n.Expr:
    return fn(map_children(expr, lambda child: map_expr(child, fn)))


def map_children(expr: n.Expr, fn: ExprFn) -> n.Expr:
    """`expr` with `fn` applied to each direct child expression."""
    match expr:
        case n.Unary(operand=operand):
            return _copy(expr, operand=fn(operand))
        case n.Binary(left=left, right=right):
            return _copy(expr, left=fn(left), right=fn(right))
        case n.Conditional(test=test, then=then, otherwise=otherwise):
            return _copy(expr, test=fn(test), then=fn(then), otherwise=fn(otherwise))
        case n.Call(args=args):
            return _copy(expr, args=tuple(fn(a) for a in args))
        case n.ListExpr(items=items):
            return _copy(expr, items=tuple(fn(i) for i in items))
        case n.Field_(target=target):
            return _copy(expr, target=fn(target))
        case n.Index(target=target, index=index):
            return _copy(expr, target=fn(target), index=fn(index))
        case n.Comprehension(element=element, iterable=iterable, condition=condition):
            return _copy(expr, element=fn(element), iterable=fn(iterable),
                         condition=None if condition is None else fn(condition))
    return expr


def _copy(node: n.Node, **parts: object) -> n.Node:
    """The node with new children, or the node itself when nothing changed."""
    if all(_identical(getattr(node, key), value) for key, value in parts.items()):
        return node
    return node.model_copy(update=parts)


def _identical(old: object, new: object) -> bool:
    if isinstance(old, tuple) and isinstance(new, tuple):
        return _same(old, new)
    return old is new


def map_step_exprs(step: n.Step, fn: ExprFn) -> n.Step:
    """The step with `fn` applied to each of its own expressions (not those of nested steps)."""
    match step:
        case n.Assign(value=value) | n.Return(value=value):
            return _copy(step, value=fn(value))
        case n.Lookup(key=key, default=default):
            return _copy(step, key=fn(key), default=None if default is None else fn(default))
        case n.Format(template=template):
            parts = tuple(_copy(p, expr=fn(p.expr)) if isinstance(p, n.Hole) else p for p in template.parts)
            return _copy(step, template=_copy(template, parts=parts))
        case n.CallTool(args=args):
            return _copy(step, args=tuple(_copy(arg, value=fn(arg.value)) for arg in args))
        case n.If(condition=condition):
            return _copy(step, condition=fn(condition))
    raise AssertionError(step)


def map_blocks(steps: tuple[n.Step, ...], fn: Callable[[tuple[n.Step, ...]], tuple[n.Step, ...]]
               ) -> tuple[n.Step, ...]:
    """Apply a block rewrite to every block, innermost first."""
    rebuilt = []
    for step in steps:
        if isinstance(step, n.If):
            step = _copy(step, then=map_blocks(step.then, fn), otherwise=map_blocks(step.otherwise, fn))
        rebuilt.append(step)
    result = fn(tuple(rebuilt))
    return steps if _same(result, steps) else result


def _same(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def with_steps(program: n.Program, steps: tuple[n.Step, ...]) -> n.Program:
    return program if _same(steps, program.steps) else program.model_copy(update={"steps": steps})


def every_expr(program: n.Program, fn: ExprFn) -> n.Program:
    """`fn` applied bottom-up to every expression of every step."""
    def block(steps: tuple[n.Step, ...]) -> tuple[n.Step, ...]:
        return tuple(map_step_exprs(step, lambda e: map_expr(e, fn)) for step in steps)
    return with_steps(program, map_blocks(program.steps, block))
